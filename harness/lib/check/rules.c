/* SPDX-License-Identifier: MIT */
#include "rocetest/rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define E RT_SEV_ERROR
#define W RT_SEV_WARNING

static const struct rt_rule_info catalogue[RT_RULE_COUNT] = {
#define RT_RULE_ROW(sym, id_, sev, needs_, text_)                                            \
	[RT_RULE_##sym] = { .id = id_, .severity = sev, .needs = needs_, .text = text_ },
	RT_RULE_CATALOGUE(RT_RULE_ROW)
#undef RT_RULE_ROW
};

static const char *const groups[] = { "PKT", "SEQ", "RSP", "REQ", "CM", "CC" };

const struct rt_rule_info *rt_rule_info(enum rt_rule rule)
{
	return (unsigned)rule < RT_RULE_COUNT ? &catalogue[rule] : NULL;
}

const char *rt_rule_group(enum rt_rule rule)
{
	const char *id = catalogue[rule].id;
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
		size_t n = strlen(groups[i]);
		if (!strncmp(id, groups[i], n) && id[n] == '-')
			return groups[i];
	}
	return "?";
}

bool rt_rule_implemented(enum rt_rule rule)
{
	const char *needs = catalogue[rule].needs;
	return !needs || strcmp(needs, "implementation") != 0;
}

int rt_rule_find(const char *id)
{
	for (int r = 0; r < RT_RULE_COUNT; r++)
		if (!strcmp(catalogue[r].id, id))
			return r;
	return -1;
}

const char *rt_severity_name(enum rt_severity s)
{
	return s == RT_SEV_ERROR ? "error" : "warning";
}

void rt_verdicts_init(struct rt_verdicts *v)
{
	memset(v, 0, sizeof *v);
	for (int r = 0; r < RT_RULE_COUNT; r++)
		v->enabled[r] = true;
}

void rt_verdict_not_evaluated(struct rt_verdicts *v, enum rt_rule rule)
{
	if (!v->enabled[rule])
		return;
	v->total.not_evaluated[rule]++;
	if (v->flow_counts)
		v->flow_counts->not_evaluated[rule]++;
}

void rt_verdict_fail(struct rt_verdicts *v, enum rt_rule rule, enum rt_severity severity, uint64_t frame,
		     const char *fmt, ...)
{
	if (!v->enabled[rule])
		return;
	v->total.checked[rule]++;
	v->total.violations[rule]++;
	if (v->flow_counts) {
		v->flow_counts->checked[rule]++;
		v->flow_counts->violations[rule]++;
	}
	if (!v->on_violation)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (v->as_error[rule])
		severity = RT_SEV_ERROR;
	struct rt_violation viol = { .rule = rule, .severity = severity, .frame = frame, .flow = v->flow, .message = msg };
	v->on_violation(v->ctx, &viol);
}

const char *rt_rule_status(const struct rt_rule_counts *counts, enum rt_rule rule)
{
	if (counts->violations[rule])
		return "fail";
	return counts->checked[rule] ? "pass" : "not_evaluated";
}
