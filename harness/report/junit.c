/* SPDX-License-Identifier: MIT */
/*
 * The JUnit XML report, for the test views of GitLab, Jenkins and GitHub.
 * One <testsuite> per capture. In it, by default (rt_report_junit), one
 * <testcase> per enabled rule (classname rocetest.FILE, name the rule ID):
 * its failure lists the violations of every flow ("flow 3, frame 812:
 * message"), the first JUNIT_RULE_LINES of them, so a capture of thousands
 * of QPs still gives a few dozen cases. Rules that met nothing to check are
 * skipped with the reason.
 *
 * rt_report_junit_per_flow keeps the older layout: one <testcase> per rule
 * and flow the rule was evaluated on (classname rocetest.FILE.flowN), and a
 * classname rocetest.FILE.capture case per rule for what no flow covers:
 * packets outside any tracked flow, and rules that met nothing to check.
 *
 * In both, error violations fail a case; warnings do not, they go to its
 * <system-out>. A capture not checked to its end (a record cut mid-way, a
 * read error, nothing left by the snap length) adds a case "capture" of
 * class rocetest.FILE.capture in <error type="incomplete"> first, so the
 * suite is never all green. The shape validates against the Jenkins
 * junit-10 schema (harness/tests/integration/junit.xsd).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/report.h"
#include "util.h"

/* Violation messages listed per test case; the rest are counted. */
#define JUNIT_MAX_LINES 50	/* a rule in one flow */
#define JUNIT_RULE_LINES 100	/* a rule over the whole capture */

/*
 * One test case: a rule over the whole capture (whole), or in one scope (a
 * flow, or flow 0: the rest of the capture).
 */
struct jcase {
	bool whole;
	uint32_t flow;
	enum rt_rule rule;
	uint64_t checked, violations, not_evaluated;
	uint64_t errors, warnings;
	uint64_t flows;		/* whole: tracked flows with violations of the rule */
};

enum jcase_outcome { JCASE_PASS, JCASE_FAIL, JCASE_SKIP };

static enum jcase_outcome outcome(const struct jcase *k)
{
	if (k->errors)
		return JCASE_FAIL;
	return k->checked ? JCASE_PASS : JCASE_SKIP;
}

struct jfile {
	const struct rt_report_file *rf;
	const struct rt_rep_index *ix;
	const char *base;	/* the capture's file name, for class names */
};

struct jcounts {
	uint64_t tests, failures, skipped, errors;
};

typedef void jcase_fn(FILE *out, const struct jfile *jf, const struct jcase *k, struct jcounts *n);
/* A layout: calls fn for every test case of one capture, in order. */
typedef void jcase_each(FILE *out, const struct jfile *jf, jcase_fn *fn, struct jcounts *n);

static void fill_case(struct jcase *k, const struct jfile *jf, uint32_t flow, enum rt_rule rule, uint64_t checked,
		      uint64_t violations, uint64_t not_evaluated)
{
	*k = (struct jcase){ .flow = flow, .rule = rule, .checked = checked, .violations = violations,
			     .not_evaluated = not_evaluated };
	rt_rep_split(jf->ix, flow, rule, violations, &k->errors, &k->warnings);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* ---- One case per rule and flow (--junit-per-flow) -------------------------------- */

/*
 * Calls fn for every test case of one capture, flows first. Each layout is
 * run twice: once to count (the <testsuite> attributes come before its
 * cases), once to write.
 */
static void each_case(FILE *out, const struct jfile *jf, jcase_fn *fn, struct jcounts *n)
{
	const struct rt_checker *c = jf->rf->checker;
	const struct rt_check_config *cfg = rt_checker_config(c);
	size_t nflows = rt_checker_flow_count(c);
	struct rt_rule_counts flows_sum;
	memset(&flows_sum, 0, sizeof flows_sum);
	struct jcase k;
	for (size_t i = 0; i < nflows; i++) {
		const struct rt_flow_info *f = rt_checker_flow(c, i);
		const struct rt_rule_counts *rc = &f->rules;
		for (int r = 0; r < RT_RULE_COUNT; r++) {
			flows_sum.checked[r] += rc->checked[r];
			flows_sum.violations[r] += rc->violations[r];
			flows_sum.not_evaluated[r] += rc->not_evaluated[r];
			if (!cfg->enabled[r] || (!rc->checked[r] && !rc->not_evaluated[r]))
				continue;
			fill_case(&k, jf, f->id, (enum rt_rule)r, rc->checked[r], rc->violations[r],
				  rc->not_evaluated[r]);
			fn(out, jf, &k, n);
		}
	}
	const struct rt_rule_counts *t = &rt_checker_verdicts(c)->total;
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		if (!cfg->enabled[r])
			continue;
		bool covered = flows_sum.checked[r] || flows_sum.not_evaluated[r];
		fill_case(&k, jf, 0, (enum rt_rule)r, minus(t->checked[r], flows_sum.checked[r]),
			  minus(t->violations[r], flows_sum.violations[r]),
			  minus(t->not_evaluated[r], flows_sum.not_evaluated[r]));
		if (!covered || k.checked || k.violations || k.not_evaluated)
			fn(out, jf, &k, n);
	}
}

/* ---- One case per rule ---------------------------------------------------------- */

/*
 * The next kept violation of the case from *pos on (a position in the list
 * for a whole-capture case, in the index for a flow's), or NULL. Start at 0.
 */
static const struct rt_report_violation *next_violation(const struct jfile *jf, const struct jcase *k, size_t *pos)
{
	if (k->whole) {
		const struct rt_violation_list *l = jf->rf->violations;
		for (; l && *pos < l->count; (*pos)++)
			if (l->items[*pos].rule == k->rule)
				return &l->items[(*pos)++];
		return NULL;
	}
	size_t b, e;
	rt_rep_index_range(jf->ix, k->flow, k->rule, &b, &e);
	if (*pos < b)
		*pos = b;
	return *pos < e ? rt_rep_index_at(jf->ix, (*pos)++) : NULL;
}

/* The rule over the whole capture: the counts of every scope, the errors split as rt_rep_split does. */
static void fill_rule_case(struct jcase *k, const struct jfile *jf, enum rt_rule rule)
{
	const struct rt_checker *c = jf->rf->checker;
	const struct rt_rule_counts *t = &rt_checker_verdicts(c)->total;
	*k = (struct jcase){ .whole = true, .rule = rule, .checked = t->checked[rule],
			     .violations = t->violations[rule], .not_evaluated = t->not_evaluated[rule] };
	for (size_t i = 0; i < rt_checker_flow_count(c); i++)
		k->flows += rt_checker_flow(c, i)->rules.violations[rule] != 0;
	size_t pos = 0;
	const struct rt_report_violation *v;
	while ((v = next_violation(jf, k, &pos)))
		*(v->severity == RT_SEV_ERROR ? &k->errors : &k->warnings) += 1;
	uint64_t unlisted = minus(k->violations, k->errors + k->warnings);
	*(rt_rule_info(rule)->severity == RT_SEV_ERROR ? &k->errors : &k->warnings) += unlisted;
}

static void each_rule_case(FILE *out, const struct jfile *jf, jcase_fn *fn, struct jcounts *n)
{
	const struct rt_check_config *cfg = rt_checker_config(jf->rf->checker);
	struct jcase k;
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		if (!cfg->enabled[r])
			continue;
		fill_rule_case(&k, jf, (enum rt_rule)r);
		fn(out, jf, &k, n);
	}
}

/* ---- Writing the cases ----------------------------------------------------------- */

static void count_case(FILE *out, const struct jfile *jf, const struct jcase *k, struct jcounts *n)
{
	(void)out;
	(void)jf;
	n->tests++;
	enum jcase_outcome o = outcome(k);
	n->failures += o == JCASE_FAIL;
	n->skipped += o == JCASE_SKIP;
}

/*
 * The kept violations of the case with one severity, one line each ("frame
 * N: message", a whole-capture case "flow F, frame N: message"), up to the
 * layout's cap; then how many more there were of the `total` (which counts
 * those past the list's cap too).
 */
static void write_lines(FILE *out, const struct jfile *jf, const struct jcase *k, enum rt_severity sev,
			uint64_t total)
{
	uint64_t shown = 0, cap = k->whole ? JUNIT_RULE_LINES : JUNIT_MAX_LINES;
	size_t pos = 0;
	const struct rt_report_violation *v;
	while (shown < cap && (v = next_violation(jf, k, &pos))) {
		if (v->severity != sev)
			continue;
		if (k->whole && v->flow)
			fprintf(out, "flow %" PRIu32 ", ", v->flow);
		fprintf(out, "frame %" PRIu64 ": ", v->frame);
		rt_rep_xml(out, v->message);
		fputc('\n', out);
		shown++;
	}
	if (total > shown)
		fprintf(out, k->whole ? "... and %" PRIu64 " more\n" : "... %" PRIu64 " more\n", total - shown);
}

static const struct rt_report_violation *first_violation(const struct jfile *jf, const struct jcase *k,
							 enum rt_severity sev)
{
	size_t pos = 0;
	const struct rt_report_violation *v;
	while ((v = next_violation(jf, k, &pos)))
		if (v->severity == sev)
			return v;
	return NULL;
}

/* The failure's message attribute: how many, (whole capture: in how many flows,) the first. */
static void failure_message(FILE *out, const struct jcase *k, const struct rt_report_violation *first)
{
	const char *id = rt_rule_info(k->rule)->id;
	char flows[48] = "";
	if (k->whole && k->flows)
		snprintf(flows, sizeof flows, " in %" PRIu64 " flow%s", k->flows, k->flows == 1 ? "" : "s");
	rt_rep_xmlf(out, "%" PRIu64 " violation%s of %s%s", k->errors, k->errors == 1 ? "" : "s", id, flows);
	if (!first)
		return;
	if (k->whole && first->flow)
		rt_rep_xmlf(out, ", first at frame %" PRIu64 " (flow %" PRIu32 "): %s", first->frame, first->flow,
			    first->message);
	else
		rt_rep_xmlf(out, ", first at frame %" PRIu64 ": %s", first->frame, first->message);
}

static void write_failure(FILE *out, const struct jfile *jf, const struct jcase *k)
{
	fprintf(out, "      <failure type=\"%s\" message=\"", rt_rule_info(k->rule)->id);
	failure_message(out, k, first_violation(jf, k, RT_SEV_ERROR));
	fputs("\">", out);
	write_lines(out, jf, k, RT_SEV_ERROR, k->errors);
	fputs("</failure>\n", out);
}

static void write_case(FILE *out, const struct jfile *jf, const struct jcase *k, struct jcounts *n)
{
	(void)n;
	const struct rt_rule_info *ri = rt_rule_info(k->rule);
	fprintf(out, "    <testcase name=\"%s\" classname=\"rocetest.", ri->id);
	rt_rep_xml(out, jf->base);
	if (k->whole)
		fputs("\" time=\"0\"", out);
	else if (k->flow)
		fprintf(out, ".flow%" PRIu32 "\" time=\"0\"", k->flow);
	else
		fputs(".capture\" time=\"0\"", out);
	enum jcase_outcome o = outcome(k);
	bool note = k->not_evaluated && k->checked;
	if (o == JCASE_PASS && !k->warnings && !note) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n", out);
	char reason[160];
	switch (o) {
	case JCASE_SKIP:
		rt_rep_why_not_evaluated(rt_checker_config(jf->rf->checker), k->rule, k->not_evaluated, reason,
					 sizeof reason);
		fputs("      <skipped message=\"not evaluated: ", out);
		rt_rep_xml(out, reason);
		fputs("\"/>\n", out);
		break;
	case JCASE_FAIL:
		write_failure(out, jf, k);
		break;
	case JCASE_PASS:
		break;
	}
	if (k->warnings || note) {
		fputs("      <system-out>", out);
		if (note)
			fprintf(out, "checked %" PRIu64 " times, not evaluated %" PRIu64 " times\n", k->checked,
				k->not_evaluated);
		if (k->warnings) {
			fprintf(out, "%" PRIu64 " warning%s:\n", k->warnings, k->warnings == 1 ? "" : "s");
			write_lines(out, jf, k, RT_SEV_WARNING, k->warnings);
		}
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
}

static void property(FILE *out, const char *name, uint64_t value)
{
	fprintf(out, "      <property name=\"%s\" value=\"%" PRIu64 "\"/>\n", name, value);
}

static void write_properties(FILE *out, const struct rt_checker *c)
{
	const struct rt_check_totals *t = rt_checker_totals(c);
	const struct rt_check_config *cfg = rt_checker_config(c);
	fputs("    <properties>\n", out);
	property(out, "frames", t->frames);
	property(out, "roce_packets", t->roce_packets);
	property(out, "flows", rt_checker_flow_count(c));
	property(out, "errors", t->errors);
	property(out, "warnings", t->warnings);
	if (cfg->pmtu)
		property(out, "pmtu", cfg->pmtu);
	else
		fputs("      <property name=\"pmtu\" value=\"inferred per flow\"/>\n", out);
	fputs("    </properties>\n", out);
}

/* The case that makes an incomplete capture red: the counts of the other cases cover only what was read. */
static void write_incomplete(FILE *out, const struct jfile *jf)
{
	fputs("    <testcase name=\"capture\" classname=\"rocetest.", out);
	rt_rep_xml(out, jf->base);
	fputs(".capture\" time=\"0\">\n      <error type=\"incomplete\" message=\"incomplete: ", out);
	rt_rep_xml(out, jf->rf->incomplete);
	fputs("\">", out);
	rt_rep_xml(out, jf->rf->incomplete);
	fputs("\nThe other cases cover only what was checked; the capture as a whole is not conformant.</error>\n"
	      "    </testcase>\n",
	      out);
}

static void write_suite(FILE *out, const struct jfile *jf, const struct jcounts *n, jcase_each *each)
{
	fputs("  <testsuite name=\"", out);
	rt_rep_xml(out, jf->rf->file);
	fprintf(out,
		"\" tests=\"%" PRIu64 "\" failures=\"%" PRIu64 "\" errors=\"%" PRIu64 "\" skipped=\"%" PRIu64
		"\" time=\"%.3f\">\n",
		n->tests, n->failures, n->errors, n->skipped, rt_rep_seconds(jf->rf));
	write_properties(out, jf->rf->checker);
	if (jf->rf->incomplete)
		write_incomplete(out, jf);
	each(out, jf, write_case, NULL);
	fputs("  </testsuite>\n", out);
}

static int write_junit(const struct rt_report_file *files, size_t n, FILE *out, jcase_each *each)
{
	struct rt_rep_index *ix = calloc(n ? n : 1, sizeof *ix);
	struct jcounts *counts = calloc(n ? n : 1, sizeof *counts);
	int rc = ix && counts ? 0 : -1;
	struct jcounts all = { 0 };
	double secs = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = rt_rep_index_build(&ix[i], files[i].violations);
		if (rc)
			break;
		struct jfile jf = { .rf = &files[i], .ix = &ix[i], .base = rt_rep_basename(files[i].file) };
		each(out, &jf, count_case, &counts[i]);
		if (files[i].incomplete) {
			counts[i].tests++;
			counts[i].errors++;
		}
		all.tests += counts[i].tests;
		all.failures += counts[i].failures;
		all.errors += counts[i].errors;
		secs += rt_rep_seconds(&files[i]);
	}
	if (rc == 0) {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
		fprintf(out,
			"<testsuites name=\"rocetest check\" tests=\"%" PRIu64 "\" failures=\"%" PRIu64
			"\" errors=\"%" PRIu64 "\" time=\"%.3f\">\n",
			all.tests, all.failures, all.errors, secs);
		for (size_t i = 0; i < n; i++) {
			struct jfile jf = { .rf = &files[i], .ix = &ix[i], .base = rt_rep_basename(files[i].file) };
			write_suite(out, &jf, &counts[i], each);
		}
		fputs("</testsuites>\n", out);
		rc = rt_rep_finish(out);
	}
	for (size_t i = 0; ix && i < n; i++)
		rt_rep_index_free(&ix[i]);
	free(ix);
	free(counts);
	return rc;
}

int rt_report_junit(const struct rt_report_file *files, size_t n, FILE *out)
{
	return write_junit(files, n, out, each_rule_case);
}

int rt_report_junit_per_flow(const struct rt_report_file *files, size_t n, FILE *out)
{
	return write_junit(files, n, out, each_case);
}
