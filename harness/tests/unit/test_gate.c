/* SPDX-License-Identifier: MIT */
/*
 * The release gate (harness/lib/run/gate*.c) and the JSON reader it loads
 * reports with (harness/lib/packet/json_read.c): every class of change at
 * and around its tolerance, known failures, the files' errors, and the
 * gate's JSON and JUnit reports read back.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocetest/gate.h"
#include "rocetest/gate_report.h"
#include "rocetest/json_read.h"
#include "suites.h"

/* ---- results built by hand --------------------------------------------------- */

struct mini {
	struct rt_gate_result r;
	struct rt_gate_item items[16];
	struct rt_gate_metric metrics[32];
};

static void mini_init(struct mini *m, const char *dir)
{
	memset(m, 0, sizeof *m);
	m->r.items = m->items;
	m->r.metrics = m->metrics;
	m->r.source = RT_GATE_SOURCE_RUN;
	m->r.has_seed = true;
	m->r.seed = 1;
	snprintf(m->r.path, sizeof m->r.path, "%s", dir);
	snprintf(m->r.dir, sizeof m->r.dir, "%s", dir);
}

static struct rt_gate_item *mini_item(struct mini *m, const char *id, bool passed)
{
	struct rt_gate_item *it = &m->items[m->r.n_items++];
	snprintf(it->id, sizeof it->id, "%s", id);
	it->passed = passed;
	it->evaluated = true;
	snprintf(it->detail, sizeof it->detail, "%s", passed ? "" : "WR 2: status RETRY_EXC_ERR");
	snprintf(it->page, sizeof it->page, "tests/%s.html", id);
	return it;
}

static void mini_metric(struct mini *m, enum rt_gate_metric_kind kind, const char *item, double value)
{
	struct rt_gate_metric *mt = &m->metrics[m->r.n_metrics++];
	mt->kind = kind;
	snprintf(mt->item, sizeof mt->item, "%s", item);
	mt->value = value;
}

static void compare(const struct mini *base, const struct mini *cand, const struct rt_gate_policy *p,
		    struct rt_gate_outcome *o)
{
	struct rt_error err;
	ck_assert_msg(rt_gate_compare(&base->r, &cand->r, p, o, &err) == 0, "%s", err.msg);
}

/* The change with this xfail-style id; fails the test when there is none. */
static const struct rt_gate_change *change(const struct rt_gate_outcome *o, const char *id)
{
	char buf[RT_GATE_ID + 32];
	for (size_t i = 0; i < o->n_changes; i++) {
		rt_gate_change_id(&o->changes[i], buf, sizeof buf);
		if (!strcmp(buf, id))
			return &o->changes[i];
	}
	ck_abort_msg("no change for %s (%zu changes)", id, o->n_changes);
	return NULL;
}

static void expect_class(const struct rt_gate_outcome *o, const char *id, enum rt_gate_class cls)
{
	const struct rt_gate_change *c = change(o, id);
	ck_assert_msg(c->cls == cls, "%s: %s, expected %s (%s)", id, rt_gate_class_name(c->cls), rt_gate_class_name(cls),
		      c->what);
}

/* A temporary file holding text; the path is in buf. */
static void temp_file(char *buf, size_t size, const char *text)
{
	snprintf(buf, size, "/tmp/rocetest-gate-test.XXXXXX");
	int fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* ---- items ------------------------------------------------------------------- */

START_TEST(identical_results_pass)
{
	struct mini a, b;
	mini_init(&a, "base");
	mini_init(&b, "cand");
	mini_item(&a, "loss/tail", true);
	mini_item(&b, "loss/tail", true);
	mini_metric(&a, RT_GATE_GOODPUT, "loss/tail", 98.0);
	mini_metric(&b, RT_GATE_GOODPUT, "loss/tail", 98.0);
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	ck_assert_uint_eq(o.n_changes, 0);
	ck_assert_uint_eq(o.items, 1);
	ck_assert_uint_eq(o.metrics, 1);
	ck_assert(rt_gate_passed(&o));
	rt_gate_outcome_free(&o);
}
END_TEST

START_TEST(item_classes)
{
	struct mini a, b;
	mini_init(&a, "base");
	mini_init(&b, "reports/runs/X");
	mini_item(&a, "s/broke", true);
	mini_item(&b, "s/broke", false);
	mini_item(&a, "s/fixed", false);
	mini_item(&b, "s/fixed", true);
	mini_item(&a, "s/still", false);
	mini_item(&b, "s/still", false);
	mini_item(&a, "s/gone", true);
	mini_item(&b, "s/new-pass", true);
	mini_item(&b, "s/new-fail", false);
	mini_item(&a, "s/same", true);
	mini_item(&b, "s/same", true);
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	expect_class(&o, "s/broke", RT_GATE_REGRESSION);
	expect_class(&o, "s/fixed", RT_GATE_FIXED);
	expect_class(&o, "s/still", RT_GATE_STILL_FAILING);
	expect_class(&o, "s/gone", RT_GATE_REGRESSION);
	expect_class(&o, "s/new-pass", RT_GATE_NEW);
	expect_class(&o, "s/new-fail", RT_GATE_REGRESSION);
	ck_assert_uint_eq(o.n_changes, 6);
	ck_assert_uint_eq(o.count[RT_GATE_REGRESSION], 3);
	ck_assert(!rt_gate_passed(&o));
	/* The message names the test, why it fails and the candidate's page for it. */
	const struct rt_gate_change *c = change(&o, "s/broke");
	ck_assert_str_eq(c->baseline, "pass");
	ck_assert_str_eq(c->candidate, "FAIL");
	ck_assert_ptr_nonnull(strstr(c->what, "passed in the baseline, fails: WR 2: status RETRY_EXC_ERR"));
	ck_assert_str_eq(c->page, "reports/runs/X/tests/s/broke.html");
	ck_assert_str_eq(change(&o, "s/gone")->candidate, "absent");
	/* Worst first: the three regressions lead. */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(o.changes[i].cls, RT_GATE_REGRESSION);
	rt_gate_outcome_free(&o);
}
END_TEST

START_TEST(rule_not_evaluated_is_a_note)
{
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	a.r.source = b.r.source = RT_GATE_SOURCE_CHECK;
	mini_item(&a, "x.pcap:RSP-NAK-SEQ", true);
	mini_item(&b, "x.pcap:RSP-NAK-SEQ", true)->evaluated = false;
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	expect_class(&o, "x.pcap:RSP-NAK-SEQ", RT_GATE_NOTE);
	ck_assert_str_eq(o.changes[0].candidate, "not evaluated");
	ck_assert(rt_gate_passed(&o));
	rt_gate_outcome_free(&o);
}
END_TEST

START_TEST(verdict_change_says_the_violations)
{
	/* A rule that broke: one regression, not a second one for its violation count. */
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	a.r.source = b.r.source = RT_GATE_SOURCE_CHECK;
	mini_item(&a, "x.pcap:SEQ-PSN", true);
	mini_item(&b, "x.pcap:SEQ-PSN", false);
	mini_metric(&a, RT_GATE_VIOLATIONS, "x.pcap:SEQ-PSN", 0);
	mini_metric(&b, RT_GATE_VIOLATIONS, "x.pcap:SEQ-PSN", 2);
	mini_item(&a, "x.pcap:SEQ-MSN", false);
	mini_item(&b, "x.pcap:SEQ-MSN", false);
	mini_metric(&a, RT_GATE_VIOLATIONS, "x.pcap:SEQ-MSN", 1);
	mini_metric(&b, RT_GATE_VIOLATIONS, "x.pcap:SEQ-MSN", 3);
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	expect_class(&o, "x.pcap:SEQ-PSN", RT_GATE_REGRESSION);
	/* A rule failing before and after with more violations: those are new. */
	expect_class(&o, "violations:x.pcap:SEQ-MSN", RT_GATE_REGRESSION);
	expect_class(&o, "x.pcap:SEQ-MSN", RT_GATE_STILL_FAILING);
	ck_assert_uint_eq(o.n_changes, 3);
	rt_gate_outcome_free(&o);
}
END_TEST

START_TEST(run_against_check_is_refused)
{
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	b.r.source = RT_GATE_SOURCE_CHECK;
	struct rt_gate_outcome o;
	struct rt_error err;
	ck_assert_int_eq(rt_gate_compare(&a.r, &b.r, NULL, &o, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "compare like with like"));
}
END_TEST

START_TEST(another_seed_is_noted)
{
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	b.r.seed = 7;
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	ck_assert_uint_eq(o.count[RT_GATE_NOTE], 1);
	ck_assert_ptr_nonnull(strstr(o.changes[0].what, "seed 1, the candidate with seed 7"));
	ck_assert(rt_gate_passed(&o));
	rt_gate_outcome_free(&o);
}
END_TEST

/* ---- metrics and tolerances ------------------------------------------------ */

/* One metric from base to cand, compared under policy p: the class of the change, -1 when none. */
static int metric_change(enum rt_gate_metric_kind kind, double base, double cand, const struct rt_gate_policy *p)
{
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	mini_item(&a, "throughput/write-64k", true);
	mini_item(&b, "throughput/write-64k", true);
	mini_metric(&a, kind, "throughput/write-64k", base);
	mini_metric(&b, kind, "throughput/write-64k", cand);
	struct rt_gate_outcome o;
	compare(&a, &b, p, &o);
	int cls = o.n_changes ? (int)o.changes[0].cls : -1;
	ck_assert_uint_le(o.n_changes, 1);
	rt_gate_outcome_free(&o);
	return cls;
}

START_TEST(goodput_tolerance)
{
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 100, NULL), -1);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 99.5, NULL), RT_GATE_CHANGED);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 99.01, NULL), RT_GATE_CHANGED);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 98.99, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 101.5, NULL), RT_GATE_IMPROVED);
	/* A throughput test that could not measure goodput any more. */
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, NAN, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, NAN, NAN, NULL), -1);
}
END_TEST

START_TEST(counts_and_cycles_tolerance)
{
	ck_assert_int_eq(metric_change(RT_GATE_RETRANSMISSIONS, 5, 6, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_RETRANSMISSIONS, 5, 4, NULL), RT_GATE_IMPROVED);
	ck_assert_int_eq(metric_change(RT_GATE_RETRANSMISSIONS, 0, 1, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_VIOLATIONS, 0, 1, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_CYCLES_PER_MESSAGE, 100, 101.9, NULL), RT_GATE_CHANGED);
	/* Exactly at the tolerance is still within it. */
	ck_assert_int_eq(metric_change(RT_GATE_CYCLES_PER_MESSAGE, 100, 102, NULL), RT_GATE_CHANGED);
	ck_assert_int_eq(metric_change(RT_GATE_CYCLES_PER_MESSAGE, 100, 102.1, NULL), RT_GATE_REGRESSION);
	ck_assert_int_eq(metric_change(RT_GATE_CYCLES_PER_MESSAGE, 100, 97, NULL), RT_GATE_IMPROVED);
}
END_TEST

START_TEST(regression_message_says_how_much)
{
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "runs/1");
	mini_item(&a, "throughput/write-64k", true);
	mini_item(&b, "throughput/write-64k", true);
	mini_metric(&a, RT_GATE_GOODPUT, "throughput/write-64k", 98.01);
	mini_metric(&b, RT_GATE_GOODPUT, "throughput/write-64k", 96.05);
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	const struct rt_gate_change *c = change(&o, "goodput:throughput/write-64k");
	ck_assert_int_eq(c->cls, RT_GATE_REGRESSION);
	ck_assert_msg(strstr(c->what, "goodput 98.01 Gb/s -> 96.05 Gb/s (-2.00 %)") != NULL, "%s", c->what);
	ck_assert_msg(strstr(c->what, "tolerance of 1 %") != NULL, "%s", c->what);
	ck_assert_str_eq(c->page, "runs/1/tests/throughput/write-64k.html");
	ck_assert_double_eq_tol(c->change, -0.02, 1e-3);
	rt_gate_outcome_free(&o);
}
END_TEST

START_TEST(tolerance_file)
{
	char path[64];
	temp_file(path, sizeof path,
		  "# comment\n\ngoodput 3%   # looser everywhere\ngoodput throughput/write-2* 0.5\n"
		  "retransmissions loss/* 2\n");
	struct rt_gate_policy p;
	struct rt_error err;
	rt_gate_policy_init(&p);
	ck_assert_msg(rt_gate_read_tolerances(&p, path, &err) == 0, "%s", err.msg);
	unlink(path);
	double v;
	bool rel;
	rt_gate_tolerance_of(&p, RT_GATE_GOODPUT, "throughput/write-64k", &v, &rel);
	ck_assert(rel);
	ck_assert_double_eq_tol(v, 0.03, 1e-12);
	rt_gate_tolerance_of(&p, RT_GATE_GOODPUT, "throughput/write-256", &v, &rel);
	ck_assert(!rel);
	ck_assert_double_eq_tol(v, 0.5, 1e-12);
	rt_gate_tolerance_of(&p, RT_GATE_RETRANSMISSIONS, "psn/wrap", &v, &rel);
	ck_assert(!rel);
	ck_assert_double_eq(v, 0);
	rt_gate_tolerance_of(&p, RT_GATE_CYCLES_PER_MESSAGE, "psn/wrap", &v, &rel);
	ck_assert(rel);
	ck_assert_double_eq_tol(v, 0.02, 1e-12);
	/* The looser 3 % lets a 2 % drop through. */
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 98, &p), RT_GATE_CHANGED);
	ck_assert_int_eq(metric_change(RT_GATE_GOODPUT, 100, 96.9, &p), RT_GATE_REGRESSION);
	rt_gate_policy_free(&p);
}
END_TEST

/* The error reading text as a tolerance (or xfail) file; "" when it was accepted. */
static const char *policy_error(const char *text, bool xfail)
{
	static struct rt_error err;
	char path[64];
	temp_file(path, sizeof path, text);
	struct rt_gate_policy p;
	rt_gate_policy_init(&p);
	int rc = xfail ? rt_gate_read_xfail(&p, path, &err) : rt_gate_read_tolerances(&p, path, &err);
	unlink(path);
	rt_gate_policy_free(&p);
	if (!rc)
		return "";
	/* Drop the temporary path: "PATH:LINE: what" -> "LINE: what". */
	return strchr(err.msg, ':') + 1;
}

START_TEST(tolerance_file_errors)
{
	ck_assert_str_eq(policy_error("goodput 1%\nspeed 2%\n", false),
			 "2: unknown metric 'speed' (goodput, retransmissions, cycles_per_message, violations)");
	ck_assert_str_eq(policy_error("goodput -1%\n", false),
			 "1: tolerance '-1%' is not a non-negative number or percentage (\"2%\")");
	ck_assert_str_eq(policy_error("goodput 1%%\n", false),
			 "1: tolerance '1%%' is not a non-negative number or percentage (\"2%\")");
	ck_assert_str_eq(policy_error("goodput\n", false), "1: expected METRIC [ITEM-GLOB] TOLERANCE");
	ck_assert_str_eq(policy_error("goodput a b 1%\n", false), "1: expected METRIC [ITEM-GLOB] TOLERANCE");
	ck_assert_str_eq(policy_error("", false), "");
}
END_TEST

/* ---- known failures ---------------------------------------------------------- */

START_TEST(xfail_classes)
{
	char path[64];
	temp_file(path, sizeof path,
		  "# known failures\ns/known   JIRA-12: retries once too few\n"
		  "s/works   was broken in 2.0\ngoodput:s/slow  the 2.1 DMA engine\ns/typo  names nothing\n"
		  "s/gone-known  removed in 2.1\n");
	struct rt_gate_policy p;
	struct rt_error err;
	rt_gate_policy_init(&p);
	ck_assert_msg(rt_gate_read_xfail(&p, path, &err) == 0, "%s", err.msg);
	struct mini a, b;
	mini_init(&a, "a");
	mini_init(&b, "b");
	mini_item(&a, "s/known", true);
	mini_item(&b, "s/known", false);
	mini_item(&a, "s/works", false);
	mini_item(&b, "s/works", true);
	mini_item(&a, "s/slow", true);
	mini_item(&b, "s/slow", true);
	mini_item(&a, "s/gone-known", true);
	mini_metric(&a, RT_GATE_GOODPUT, "s/slow", 98);
	mini_metric(&b, RT_GATE_GOODPUT, "s/slow", 90);
	struct rt_gate_outcome o;
	compare(&a, &b, &p, &o);
	expect_class(&o, "s/known", RT_GATE_XFAIL);
	expect_class(&o, "s/works", RT_GATE_XPASS);
	expect_class(&o, "goodput:s/slow", RT_GATE_XFAIL);
	expect_class(&o, "s/typo", RT_GATE_STALE);
	expect_class(&o, "s/gone-known", RT_GATE_XFAIL);
	ck_assert_msg(strstr(change(&o, "s/known")->what, ":2: JIRA-12: retries once too few") != NULL, "%s",
		      change(&o, "s/known")->what);
	ck_assert_uint_eq(o.count[RT_GATE_REGRESSION], 0);
	ck_assert(rt_gate_passed(&o));
	rt_gate_outcome_free(&o);
	/* Strict: the entry that passes and the one that names nothing fail the gate. */
	p.strict_xfail = true;
	compare(&a, &b, &p, &o);
	ck_assert(!rt_gate_passed(&o));
	rt_gate_outcome_free(&o);
	rt_gate_policy_free(&p);
	unlink(path);
}
END_TEST

START_TEST(xfail_file_errors)
{
	ck_assert_str_eq(policy_error("s/a\n", true),
			 "1: 's/a' has no reason (each known failure says why it is accepted)");
	ck_assert_str_eq(policy_error("s/a one\n# x\ns/a two\n", true), "3: 's/a' is listed already at line 1");
	ck_assert_str_eq(policy_error("  s/a   reason  # comment\n", true), "");
}
END_TEST

/* ---- loading reports ------------------------------------------------------- */

#define CASE(name, passed, cycles, wrs, retx, warnings)                                                             \
	"{\"name\":\"" name "\",\"passed\":" #passed ",\"failure\":" /* */                                          \
	"\"completion 1: status REM_ACCESS_ERR\\nsecond line\",\"cycles\":" #cycles ",\"wrs\":" #wrs              \
	",\"retransmissions\":" #retx ",\"checker\":{\"errors\":0,\"warnings\":" #warnings "},"                     \
	"\"html\":\"tests/" name ".html\",\"wall_s\":0.5}"

static const char run_summary[] =
	"{\"dut\":\"model\",\"seed\":3,\"wall_s\":9,\"suites\":[\n"
	"{\"name\":\"loss\",\"cases\":[" CASE("tail", false, 13312, 3, 3, 0) "," CASE("idle", true, 500, 0, 0, 2) "]},\n"
	"{\"name\":\"throughput\",\"cases\":[" CASE("write-64k", true, 111872, 64, 0, 0) "]}],\n"
	"\"metrics\":{\"sim_cycles\":1,\"goodput\":[{\"opcode\":\"WRITE\",\"msg_size\":65536,\"gbps\":98.01,"
	"\"suite\":\"throughput\",\"test\":\"write-64k\"}]}}\n";

static const struct rt_gate_metric *metric_of(const struct rt_gate_result *r, enum rt_gate_metric_kind k,
					      const char *item)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].kind == k && !strcmp(r->metrics[i].item, item))
			return &r->metrics[i];
	return NULL;
}

START_TEST(load_run_summary)
{
	char path[64];
	temp_file(path, sizeof path, run_summary);
	struct rt_gate_result r;
	struct rt_error err;
	ck_assert_msg(rt_gate_load(&r, path, &err) == 0, "%s", err.msg);
	unlink(path);
	ck_assert_int_eq(r.source, RT_GATE_SOURCE_RUN);
	ck_assert_str_eq(r.dut, "model");
	ck_assert_uint_eq(r.seed, 3);
	ck_assert_str_eq(r.dir, "/tmp");
	ck_assert_uint_eq(r.n_items, 3);
	ck_assert_str_eq(r.items[0].id, "loss/tail");
	ck_assert(!r.items[0].passed);
	ck_assert_str_eq(r.items[0].detail, "completion 1: status REM_ACCESS_ERR");
	ck_assert_str_eq(r.items[0].page, "tests/tail.html");
	ck_assert_str_eq(r.items[2].id, "throughput/write-64k");
	ck_assert_double_eq_tol(metric_of(&r, RT_GATE_CYCLES_PER_MESSAGE, "loss/tail")->value, 13312.0 / 3, 1e-9);
	ck_assert_double_eq(metric_of(&r, RT_GATE_RETRANSMISSIONS, "loss/tail")->value, 3);
	ck_assert_double_eq(metric_of(&r, RT_GATE_VIOLATIONS, "loss/idle")->value, 2);
	/* No work requests: no cycles per message. */
	ck_assert_ptr_null(metric_of(&r, RT_GATE_CYCLES_PER_MESSAGE, "loss/idle"));
	ck_assert_double_eq(metric_of(&r, RT_GATE_GOODPUT, "throughput/write-64k")->value, 98.01);
	rt_gate_result_free(&r);
}
END_TEST

static const char check_report[] =
	"{\"files\":[\n"
	"{\"file\":\"caps/a.pcap\",\"rules\":[{\"id\":\"SEQ-PSN\",\"status\":\"fail\",\"violations\":2},\n"
	" {\"id\":\"RSP-NAK-SEQ\",\"status\":\"not_evaluated\",\"violations\":0}],\n"
	" \"violations\":[{\"rule\":\"SEQ-PSN\",\"severity\":\"error\",\"frame\":812,\"flow\":2,\"message\":\"PSN jumps\"}],\n"
	" \"summary\":{\"errors\":2,\"warnings\":0,\"verdict\":\"fail\"}},\n"
	"{\"file\":\"b.pcap\",\"rules\":[],\"violations\":[],\"summary\":{\"errors\":0,\"warnings\":0,"
	"\"verdict\":\"incomplete\",\"reason\":\"record 7 cut\"}}],\n"
	"\"summary\":{\"errors\":2,\"warnings\":0,\"verdict\":\"incomplete\"}}\n";

START_TEST(load_check_report)
{
	char path[64];
	temp_file(path, sizeof path, check_report);
	struct rt_gate_result r;
	struct rt_error err;
	ck_assert_msg(rt_gate_load(&r, path, &err) == 0, "%s", err.msg);
	unlink(path);
	ck_assert_int_eq(r.source, RT_GATE_SOURCE_CHECK);
	ck_assert(!r.has_seed);
	ck_assert_uint_eq(r.n_items, 4);
	ck_assert_str_eq(r.items[0].id, "a.pcap");
	ck_assert(r.items[0].passed);
	ck_assert_str_eq(r.items[1].id, "a.pcap:SEQ-PSN");
	ck_assert(!r.items[1].passed);
	ck_assert_str_eq(r.items[1].detail, "frame 812: PSN jumps");
	ck_assert_str_eq(r.items[2].id, "a.pcap:RSP-NAK-SEQ");
	ck_assert(r.items[2].passed && !r.items[2].evaluated);
	ck_assert_str_eq(r.items[3].id, "b.pcap");
	ck_assert(!r.items[3].passed);
	ck_assert_str_eq(r.items[3].detail, "incomplete: record 7 cut");
	ck_assert_double_eq(metric_of(&r, RT_GATE_VIOLATIONS, "a.pcap:SEQ-PSN")->value, 2);
	rt_gate_result_free(&r);
}
END_TEST

/* An untimed test (a board's harness too slow for its timers) is neither passed nor failed: a note, not a regression. */
START_TEST(untimed_test_is_a_note)
{
	static const char text[] =
		"{\"dut\":\"board\",\"seed\":1,\"suites\":[{\"name\":\"rnr\",\"cases\":[\n"
		"{\"name\":\"rnr-code-4\",\"passed\":false,\"untimed\":true,\"failure\":\"untimed: the harness took up to "
		"40.00 us\",\"cycles\":1,\"wrs\":2,\"retransmissions\":1,\"checker\":{\"errors\":0,\"warnings\":0}},\n"
		"{\"name\":\"rnr-code-9\",\"passed\":false,\"untimed\":false,\"failure\":\"WR 1: status rnr-retry\","
		"\"cycles\":1,\"wrs\":2,\"retransmissions\":1,\"checker\":{\"errors\":0,\"warnings\":0}}]}],"
		"\"metrics\":{\"goodput\":[]}}\n";
	char path[64];
	temp_file(path, sizeof path, text);
	struct rt_gate_result r;
	struct rt_error err;
	ck_assert_msg(rt_gate_load(&r, path, &err) == 0, "%s", err.msg);
	unlink(path);
	ck_assert_uint_eq(r.n_items, 2);
	ck_assert(r.items[0].passed && !r.items[0].evaluated);
	ck_assert_str_eq(r.items[0].detail, "untimed: the harness took up to 40.00 us");
	ck_assert(!r.items[1].passed && r.items[1].evaluated);
	rt_gate_result_free(&r);

	struct mini a, b;
	mini_init(&a, "base");
	mini_init(&b, "cand");
	mini_item(&a, "rnr/rnr-code-4", true);
	mini_item(&b, "rnr/rnr-code-4", true)->evaluated = false;
	struct rt_gate_outcome o;
	compare(&a, &b, NULL, &o);
	expect_class(&o, "rnr/rnr-code-4", RT_GATE_NOTE);
	ck_assert(rt_gate_passed(&o));
	rt_gate_outcome_free(&o);

	/* "untimed" of another type is an input error naming the test. */
	temp_file(path, sizeof path,
		  "{\"dut\":\"d\",\"seed\":1,\"suites\":[{\"name\":\"s\",\"cases\":[{\"name\":\"t\",\"passed\":true,"
		  "\"untimed\":1,\"cycles\":1,\"wrs\":1,\"retransmissions\":0,\"checker\":{\"errors\":0,"
		  "\"warnings\":0}}]}],\"metrics\":{\"goodput\":[]}}");
	ck_assert_int_eq(rt_gate_load(&r, path, &err), -1);
	unlink(path);
	ck_assert_ptr_nonnull(strstr(err.msg, "test 's/t': \"untimed\" is a number, not true, false or null"));
}
END_TEST

/* The error loading text as a report, without the temporary path. */
static const char *load_error(const char *text)
{
	static struct rt_error err;
	char path[64];
	temp_file(path, sizeof path, text);
	struct rt_gate_result r;
	int rc = rt_gate_load(&r, path, &err);
	unlink(path);
	if (!rc) {
		rt_gate_result_free(&r);
		return "";
	}
	return strstr(err.msg, ": ") + 2;
}

START_TEST(load_errors)
{
	ck_assert_str_eq(load_error("{\"suites\":[],\"seed\":1,\"metrics\":{}}"), "line 1: the run: \"dut\" is missing, not a string");
	ck_assert_str_eq(load_error("{\"dut\":\"d\",\"seed\":1,\"suites\":[{\"name\":\"s\",\"cases\":[\n{\"name\":\"t\",\"passed\":1}]}],\"metrics\":{}}"),
			 "line 2: test 's/t': \"passed\" is a number, not true or false");
	ck_assert_str_eq(load_error("{\"files\":[{\"file\":\"x/a.pcap\",\"rules\":[],\"summary\":{\"verdict\":\"pass\"}},"
				    "{\"file\":\"y/a.pcap\",\"rules\":[],\"summary\":{\"verdict\":\"pass\"}}]}"),
			 "'a.pcap' appears twice (the gate names tests by suite/name and captures by file name, which must be unique)");
	ck_assert_str_eq(load_error("{\"verdict\":\"pass\"}"),
			 "neither a rocetest run summary.json (\"suites\") nor a rocetest check --json report (\"files\" or \"rules\")");
	ck_assert_str_eq(load_error("{\"suites\": [1,}"), "line 1, column 15: expected a value (object, array, string, number, true, false or null)");
	struct rt_gate_result r;
	struct rt_error err;
	ck_assert_int_eq(rt_gate_load(&r, "/nonexistent/run", &err), -1);
	ck_assert_str_eq(err.msg, "/nonexistent/run: No such file or directory");
	ck_assert_int_eq(rt_gate_load(&r, "/tmp", &err), -1);
	ck_assert_str_eq(err.msg, "/tmp: no summary.json: not a report directory of rocetest run");
}
END_TEST

/* ---- the JSON reader --------------------------------------------------------- */

START_TEST(json_values)
{
	static const char text[] = " {\"a\": [1, -2.5e2, true, false, null],\n \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
				   " \"o\": {}, \"e\": []} ";
	struct rt_error err;
	struct rt_json_doc *doc = rt_json_parse(text, sizeof text - 1, &err);
	ck_assert_msg(doc != NULL, "%s", err.msg);
	const struct rt_jv *root = rt_json_root(doc);
	ck_assert_int_eq(root->type, RT_JV_OBJECT);
	ck_assert_uint_eq(root->count, 4);
	const struct rt_jv *a = rt_jv_get(root, "a");
	ck_assert_uint_eq(a->count, 5);
	ck_assert_double_eq(a->child->number, 1);
	ck_assert_double_eq(a->child->next->number, -250);
	ck_assert(a->child->next->next->boolean);
	ck_assert_int_eq(a->child->next->next->next->type, RT_JV_BOOL);
	ck_assert(!a->child->next->next->next->boolean);
	ck_assert_int_eq(a->child->next->next->next->next->type, RT_JV_NULL);
	ck_assert_str_eq(rt_jv_get_str(root, "s"), "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
	ck_assert_uint_eq(rt_jv_get(root, "s")->line, 2);
	ck_assert_uint_eq(rt_jv_get(root, "o")->count, 0);
	ck_assert_int_eq(rt_jv_get(root, "e")->type, RT_JV_ARRAY);
	ck_assert_ptr_null(rt_jv_get(root, "missing"));
	ck_assert_ptr_null(rt_jv_get_str(root, "a"));
	ck_assert_double_eq(rt_jv_get_num(root, "s", 7), 7);
	rt_json_free(doc);
}
END_TEST

/* The error parsing text; "" when it parsed. */
static const char *json_error(const char *text)
{
	static struct rt_error err;
	struct rt_json_doc *doc = rt_json_parse(text, strlen(text), &err);
	rt_json_free(doc);
	return doc ? "" : err.msg;
}

START_TEST(json_errors)
{
	ck_assert_str_eq(json_error("{\"a\" 1}"), "line 1, column 6: expected ':' after an object key");
	ck_assert_str_eq(json_error("[1,\n 2 3]"), "line 2, column 4: expected ',' or ']' in an array");
	ck_assert_str_eq(json_error("[01]"), "line 1, column 2: malformed number");
	ck_assert_str_eq(json_error("[1.]"), "line 1, column 2: malformed number");
	ck_assert_str_eq(json_error("\"abc"), "line 1, column 5: unterminated string");
	ck_assert_str_eq(json_error("\"a\tb\""), "line 1, column 3: control character in a string (must be escaped)");
	ck_assert_str_eq(json_error("\"\\x\""), "line 1, column 3: invalid escape in a string");
	ck_assert_str_eq(json_error("\"\\ud800\""), "line 1, column 8: unpaired UTF-16 surrogate in a \\u escape");
	ck_assert_str_eq(json_error("{} x"), "line 1, column 4: text after the JSON value");
	ck_assert_str_eq(json_error(""), "line 1, column 1: expected a value, found the end of the text");
	ck_assert_str_eq(json_error("tru"), "line 1, column 1: expected a value (object, array, string, number, true, false or null)");
	ck_assert_str_eq(json_error("{1:2}"), "line 1, column 2: expected a string as the object key");
	char deep[600];
	memset(deep, '[', 257);
	deep[257] = '\0';
	ck_assert_str_eq(json_error(deep), "line 1, column 258: nested more than 256 deep");
	memset(deep, '[', 256);
	memset(deep + 256, ']', 256);
	deep[512] = '\0';
	ck_assert_str_eq(json_error(deep), "");
}
END_TEST

/* ---- the reports ------------------------------------------------------------- */

static char *report(int (*writer)(const struct rt_gate_outcome *, FILE *), const struct rt_gate_outcome *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(writer(o, f), 0);
	fclose(f);
	return buf;
}

static int text_all(const struct rt_gate_outcome *o, FILE *f)
{
	return rt_gate_report_text(o, false, f);
}

START_TEST(reports)
{
	char path[64];
	temp_file(path, sizeof path, "s/known  accepted for 2.1\n");
	struct rt_gate_policy p;
	struct rt_error err;
	rt_gate_policy_init(&p);
	ck_assert_msg(rt_gate_read_xfail(&p, path, &err) == 0, "%s", err.msg);
	unlink(path);
	struct mini a, b;
	mini_init(&a, "base");
	mini_init(&b, "cand");
	mini_item(&a, "s/broke", true);
	mini_item(&b, "s/broke", false);
	mini_item(&a, "s/known", true);
	mini_item(&b, "s/known", false);
	mini_item(&a, "s/gone", true);
	mini_item(&b, "s/ok", true);
	mini_item(&a, "s/ok", true);
	mini_metric(&a, RT_GATE_GOODPUT, "s/ok", 98);
	mini_metric(&b, RT_GATE_GOODPUT, "s/ok", 90);
	struct rt_gate_outcome o;
	compare(&a, &b, &p, &o);

	char *json = report(rt_gate_report_json, &o);
	struct rt_json_doc *doc = rt_json_parse(json, strlen(json), &err);
	ck_assert_msg(doc != NULL, "%s: %s", err.msg, json);
	const struct rt_jv *root = rt_json_root(doc);
	ck_assert_str_eq(rt_jv_get_str(root, "verdict"), "fail");
	ck_assert_double_eq(rt_jv_get_num(rt_jv_get(root, "summary"), "regression", -1), 3);
	ck_assert_double_eq(rt_jv_get_num(rt_jv_get(root, "summary"), "xfail", -1), 1);
	const struct rt_jv *first = rt_jv_get(root, "changes")->child;
	ck_assert_str_eq(rt_jv_get_str(first, "class"), "regression");
	ck_assert_str_eq(rt_jv_get_str(first, "id"), "s/broke");
	ck_assert_int_eq(rt_jv_get(first, "metric")->type, RT_JV_NULL);
	rt_json_free(doc);
	free(json);

	char *xml = report(rt_gate_report_junit, &o);
	ck_assert_msg(strstr(xml, "<testsuite name=\"rocetest.gate\" tests=\"4\" failures=\"3\" errors=\"0\" skipped=\"1\"") != NULL, "%s", xml);
	ck_assert_ptr_nonnull(strstr(xml, "<testcase name=\"s/gone\""));
	ck_assert_ptr_nonnull(strstr(xml, "<failure type=\"regression\" message=\"goodput 98.00 Gb/s -&gt; 90.00 Gb/s"));
	free(xml);

	char *text = report(text_all, &o);
	ck_assert_msg(strstr(text, "REGRESSION     s/broke") == text, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\ngate: FAIL: regression 3, xfail 1 (3 tests, 1 metrics compared); "
					   "candidate cand against baseline base\n"));
	free(text);
	rt_gate_outcome_free(&o);
	rt_gate_policy_free(&p);
}
END_TEST

Suite *gate_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *tc = tcase_create("gate");
	tcase_add_test(tc, identical_results_pass);
	tcase_add_test(tc, item_classes);
	tcase_add_test(tc, rule_not_evaluated_is_a_note);
	tcase_add_test(tc, verdict_change_says_the_violations);
	tcase_add_test(tc, run_against_check_is_refused);
	tcase_add_test(tc, another_seed_is_noted);
	tcase_add_test(tc, goodput_tolerance);
	tcase_add_test(tc, counts_and_cycles_tolerance);
	tcase_add_test(tc, regression_message_says_how_much);
	tcase_add_test(tc, tolerance_file);
	tcase_add_test(tc, tolerance_file_errors);
	tcase_add_test(tc, xfail_classes);
	tcase_add_test(tc, xfail_file_errors);
	tcase_add_test(tc, load_run_summary);
	tcase_add_test(tc, load_check_report);
	tcase_add_test(tc, untimed_test_is_a_note);
	tcase_add_test(tc, load_errors);
	tcase_add_test(tc, json_values);
	tcase_add_test(tc, json_errors);
	tcase_add_test(tc, reports);
	suite_add_tcase(s, tc);
	return s;
}
