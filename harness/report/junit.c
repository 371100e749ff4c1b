/* SPDX-License-Identifier: MIT */
/*
 * The JUnit XML report, for the test views of GitLab, Jenkins and GitHub.
 * One <testsuite> per capture; in it one <testcase> per rule and flow the
 * rule was evaluated on (classname rocetest.FILE.flowN, name the rule ID),
 * and a classname rocetest.FILE.capture case per rule for what no flow
 * covers: packets outside any tracked flow, and rules that met nothing to
 * check (skipped). Error violations fail a case; warnings do not, they go
 * to its <system-out>. A capture not checked to its end (a record cut
 * mid-way, a read error, nothing left by the snap length) adds a case
 * "capture" of class rocetest.FILE.capture in <error type="incomplete">
 * first, so the suite is never all green. The shape validates against the Jenkins junit-10
 * schema (harness/tests/integration/junit.xsd).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/report.h"
#include "util.h"

/* Violation messages listed per test case; the rest are counted. */
#define JUNIT_MAX_LINES 50

/* One test case: a rule in one scope (a flow, or flow 0: the rest of the capture). */
struct jcase {
	uint32_t flow;
	enum rt_rule rule;
	uint64_t checked, violations, not_evaluated;
	uint64_t errors, warnings;
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

/*
 * Calls fn for every test case of one capture, flows first. Run twice: once
 * to count (the <testsuite> attributes come before its cases), once to write.
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
 * The kept violations of the case with one severity, one "frame N: message"
 * line each, JUNIT_MAX_LINES at most; then how many more there were of the
 * `total` (which counts those past the list's cap too).
 */
static void write_lines(FILE *out, const struct jfile *jf, const struct jcase *k, enum rt_severity sev,
			uint64_t total)
{
	size_t b, e;
	uint64_t shown = 0;
	rt_rep_index_range(jf->ix, k->flow, k->rule, &b, &e);
	for (size_t i = b; i < e && shown < JUNIT_MAX_LINES; i++) {
		const struct rt_report_violation *v = rt_rep_index_at(jf->ix, i);
		if (v->severity != sev)
			continue;
		fprintf(out, "frame %" PRIu64 ": ", v->frame);
		rt_rep_xml(out, v->message);
		fputc('\n', out);
		shown++;
	}
	if (total > shown)
		fprintf(out, "... %" PRIu64 " more\n", total - shown);
}

static const char *first_message(const struct jfile *jf, const struct jcase *k, enum rt_severity sev,
				 uint64_t *frame)
{
	size_t b, e;
	rt_rep_index_range(jf->ix, k->flow, k->rule, &b, &e);
	for (size_t i = b; i < e; i++) {
		const struct rt_report_violation *v = rt_rep_index_at(jf->ix, i);
		if (v->severity == sev) {
			*frame = v->frame;
			return v->message;
		}
	}
	return NULL;
}

static void write_failure(FILE *out, const struct jfile *jf, const struct jcase *k)
{
	const char *id = rt_rule_info(k->rule)->id;
	uint64_t frame = 0;
	const char *msg = first_message(jf, k, RT_SEV_ERROR, &frame);
	fprintf(out, "      <failure type=\"%s\" message=\"", id);
	if (msg)
		rt_rep_xmlf(out, "%" PRIu64 " violation%s of %s, first at frame %" PRIu64 ": %s", k->errors,
			    k->errors == 1 ? "" : "s", id, frame, msg);
	else
		rt_rep_xmlf(out, "%" PRIu64 " violation%s of %s", k->errors, k->errors == 1 ? "" : "s", id);
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
	if (k->flow)
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

static void write_suite(FILE *out, const struct jfile *jf, const struct jcounts *n)
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
	each_case(out, jf, write_case, NULL);
	fputs("  </testsuite>\n", out);
}

int rt_report_junit(const struct rt_report_file *files, size_t n, FILE *out)
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
		each_case(out, &jf, count_case, &counts[i]);
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
			write_suite(out, &jf, &counts[i]);
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
