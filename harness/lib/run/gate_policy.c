/* SPDX-License-Identifier: MIT */
/*
 * What the gate holds a candidate to besides the baseline: the metrics and
 * their default tolerances, the tolerance file that overrides them, and the
 * list of known failures with their reasons.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/gate.h"

/* Goodput down 1 %, simulated cycles per message up 2 %, any retransmission or violation more. */
static const struct rt_gate_metric_info metric_info[RT_GATE_METRIC_KINDS] = {
	[RT_GATE_GOODPUT] = { "goodput", "Gb/s", true, 0.01, true, 2 },
	[RT_GATE_RETRANSMISSIONS] = { "retransmissions", "", false, 0, false, 0 },
	[RT_GATE_CYCLES_PER_MESSAGE] = { "cycles_per_message", "cycles", false, 0.02, true, 1 },
	[RT_GATE_VIOLATIONS] = { "violations", "", false, 0, false, 0 },
};

const struct rt_gate_metric_info *rt_gate_metric_info(enum rt_gate_metric_kind kind)
{
	return &metric_info[kind];
}

int rt_gate_metric_by_name(const char *name)
{
	for (int k = 0; k < RT_GATE_METRIC_KINDS; k++)
		if (!strcmp(metric_info[k].name, name))
			return k;
	return -1;
}

void rt_gate_policy_init(struct rt_gate_policy *p)
{
	memset(p, 0, sizeof *p);
}

void rt_gate_policy_free(struct rt_gate_policy *p)
{
	free(p->xfail);
	free(p->tolerances);
	rt_gate_policy_init(p);
}

/* ---- reading the files ------------------------------------------------------ */

struct line_reader {
	FILE *f;
	const char *path;
	unsigned line;
	char buf[1024];
};

static int list_error(struct rt_error *err, const struct line_reader *lr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int list_error(struct rt_error *err, const struct line_reader *lr, const char *fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	rt_error_set(err, "%s:%u: %s", lr->path, lr->line, what);
	return -1;
}

/* The next line with something on it, comment and surrounding blanks removed; NULL at the end. */
static char *next_entry(struct line_reader *lr, struct rt_error *err, bool *failed)
{
	while (fgets(lr->buf, sizeof lr->buf, lr->f)) {
		lr->line++;
		size_t n = strlen(lr->buf);
		if (n == sizeof lr->buf - 1 && lr->buf[n - 1] != '\n') {
			*failed = list_error(err, lr, "line longer than %zu characters", sizeof lr->buf - 2) != 0;
			return NULL;
		}
		char *hash = strchr(lr->buf, '#');
		if (hash)
			*hash = '\0';
		char *s = lr->buf + strspn(lr->buf, " \t\r\n");
		for (n = strlen(s); n && strchr(" \t\r\n", s[n - 1]); n--)
			s[n - 1] = '\0';
		if (*s)
			return s;
	}
	return NULL;
}

static FILE *open_list(const char *path, struct rt_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		rt_error_set(err, "%s: %s", path, strerror(errno));
	return f;
}

static bool grow(void **items, size_t n, size_t size)
{
	/* Lists are short: grow to the next power of two. */
	if (n & (n - 1) || (n && n < 16))
		return true;
	void *p = realloc(*items, (n ? n * 2 : 16) * size);
	if (!p)
		return false;
	*items = p;
	return true;
}

/* An xfail entry: "ID REASON"; the ID must be new and the reason given. */
static int add_xfail(struct rt_gate_policy *p, const struct line_reader *lr, char *s, struct rt_error *err)
{
	size_t id_len = strcspn(s, " \t");
	const char *reason = s + id_len + strspn(s + id_len, " \t");
	if (!*reason)
		return list_error(err, lr, "'%s' has no reason (each known failure says why it is accepted)", s);
	s[id_len] = '\0';
	for (size_t i = 0; i < p->n_xfail; i++)
		if (!strcmp(p->xfail[i].id, s))
			return list_error(err, lr, "'%s' is listed already at line %u", s, p->xfail[i].line);
	if (id_len >= RT_GATE_ID)
		return list_error(err, lr, "ID too long");
	if (!grow((void **)&p->xfail, p->n_xfail, sizeof *p->xfail))
		return list_error(err, lr, "out of memory");
	struct rt_gate_xfail *x = &p->xfail[p->n_xfail++];
	snprintf(x->id, sizeof x->id, "%s", s);
	snprintf(x->reason, sizeof x->reason, "%s", reason);
	x->line = lr->line;
	return 0;
}

int rt_gate_read_xfail(struct rt_gate_policy *p, const char *path, struct rt_error *err)
{
	struct line_reader lr = { .f = open_list(path, err), .path = path };
	if (!lr.f)
		return -1;
	snprintf(p->xfail_path, sizeof p->xfail_path, "%s", path);
	bool failed = false;
	char *s;
	while (!failed && (s = next_entry(&lr, err, &failed)))
		failed = add_xfail(p, &lr, s, err) != 0;
	fclose(lr.f);
	return failed ? -1 : 0;
}

/* "1%" (relative, 0.01) or "3" (absolute); false when it is neither or negative. */
static bool parse_tolerance(const char *s, double *value, bool *relative)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return false;
	*relative = *end == '%';
	if (*relative)
		end++;
	*value = *relative ? v / 100 : v;
	return *end == '\0';
}

static int add_tolerance(struct rt_gate_policy *p, const struct line_reader *lr, char *s, struct rt_error *err)
{
	char *word[4];
	int n = 0;
	for (char *save = NULL, *w = strtok_r(s, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		word[n < 4 ? n++ : 3] = w;
	if (n < 2 || n > 3)
		return list_error(err, lr, "expected METRIC [ITEM-GLOB] TOLERANCE");
	int kind = rt_gate_metric_by_name(word[0]);
	if (kind < 0)
		return list_error(err, lr, "unknown metric '%s' (goodput, retransmissions, cycles_per_message, violations)",
				  word[0]);
	struct rt_gate_tolerance t = { .kind = (enum rt_gate_metric_kind)kind };
	if (!parse_tolerance(word[n - 1], &t.value, &t.relative))
		return list_error(err, lr, "tolerance '%s' is not a non-negative number or percentage (\"2%%\")",
				  word[n - 1]);
	if (n == 3 && strlen(word[1]) >= sizeof t.glob)
		return list_error(err, lr, "item glob too long");
	if (!grow((void **)&p->tolerances, p->n_tolerances, sizeof *p->tolerances))
		return list_error(err, lr, "out of memory");
	if (n == 3)
		snprintf(t.glob, sizeof t.glob, "%s", word[1]);
	p->tolerances[p->n_tolerances++] = t;
	return 0;
}

int rt_gate_read_tolerances(struct rt_gate_policy *p, const char *path, struct rt_error *err)
{
	struct line_reader lr = { .f = open_list(path, err), .path = path };
	if (!lr.f)
		return -1;
	bool failed = false;
	char *s;
	while (!failed && (s = next_entry(&lr, err, &failed)))
		failed = add_tolerance(p, &lr, s, err) != 0;
	fclose(lr.f);
	return failed ? -1 : 0;
}

void rt_gate_tolerance_of(const struct rt_gate_policy *p, enum rt_gate_metric_kind kind, const char *item,
			  double *value, bool *relative)
{
	const struct rt_gate_tolerance *plain = NULL, *matched = NULL;
	for (size_t i = 0; p && i < p->n_tolerances; i++) {
		const struct rt_gate_tolerance *t = &p->tolerances[i];
		if (t->kind != kind)
			continue;
		if (!t->glob[0])
			plain = t;
		else if (!fnmatch(t->glob, item, 0))
			matched = t;
	}
	const struct rt_gate_tolerance *t = matched ? matched : plain;
	*value = t ? t->value : metric_info[kind].tolerance;
	*relative = t ? t->relative : metric_info[kind].relative;
}
