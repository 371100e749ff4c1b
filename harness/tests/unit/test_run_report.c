/* SPDX-License-Identifier: MIT */
/*
 * The run report writers (harness/report/run_*.c): JSON, JUnit XML and HTML of a
 * conformance run built here in memory: three suites whose tests ran
 * interleaved, two failed tests (one with markup in its findings, one with
 * no capture and times that are not numbers), and throughput tests of WRITE
 * and SEND at seven sizes. The JSON is walked with the strict reader of
 * test_util.c; the XML and HTML are checked for balanced tags and valid
 * entities, then searched for what must and must not be there.
 *
 * With ROCETEST_RUN_REPORT_SAMPLES=DIR the sample run's three reports are
 * also written to DIR (summary.json, junit.xml, index.html), for the
 * integration tests' xmllint, python and Chromium (12-reports.sh).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/run.h"
#include "rocetest/run_report.h"
#include "suites.h"
#include "test_util.h"
#include "util.h"

/* The failed test's findings: markup and quotes that every writer must escape. */
#define FINDING_1 "PSN 0x10 <&>\"' retransmitted after the ACK"
#define FINDING_2 "completion 3: status rnr-retry-exceeded, expected success"
#define FAILURE FINDING_1 "\n" FINDING_2 "\n"
#define UNTIMED "untimed: the harness took up to 2.50 us of the device's time to answer, more than a 10th of the test's shortest timer (16.38 us)"

static const uint32_t sizes[] = { 256, 1024, 4096, 5120, 16384, 65536, 1048576 };
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define N_TESTS (5 + 2 * N_SIZES)
#define N_FAILED 2

struct sample {
	struct rt_run_result tests[N_TESTS];
	struct rt_run_summary s;
};

static void result(struct rt_run_result *r, const char *suite, const char *name, bool passed)
{
	memset(r, 0, sizeof *r);
	snprintf(r->suite, sizeof r->suite, "%s", suite);
	snprintf(r->name, sizeof r->name, "%s", name);
	snprintf(r->description, sizeof r->description, "%s: what the test of %s does", name, suite);
	r->passed = passed;
	r->seed = 0x5eed;
	r->cycles = 250000;
	r->sim_us = 1000;
	r->wall_s = 0.25;
	r->wrs = r->completions = 4;
	r->frames_to_peer = 12;
	r->frames_to_dut = 8;
	r->payload_bytes = 4096;
	snprintf(r->pcap, sizeof r->pcap, "%s/%s.pcap", suite, name);
	snprintf(r->html, sizeof r->html, "%s/%s.html", suite, name);
	snprintf(r->check_args, sizeof r->check_args, "--pmtu 4096 --retry-cnt 7");
}

static void throughput(struct rt_run_result *r, enum rt_dut_opcode op, uint32_t size)
{
	char name[64];
	snprintf(name, sizeof name, "%s-%" PRIu32, op == RT_DUT_WRITE ? "write" : "send", size);
	result(r, "throughput", name, true);
	r->has_goodput = true;
	r->opcode = (uint8_t)op;
	r->msg_size = size;
	double limit = rt_goodput_limit_gbps(op, size, 4096, 100);
	if (op == RT_DUT_WRITE) {
		/* The runner's own limit for WRITEs; the SENDs' the writers must compute. */
		r->limit_gbps = limit;
		r->goodput_gbps = size == 65536 ? 97.3 : limit * 0.99;
	} else {
		r->goodput_gbps = size == 1048576 ? NAN : limit * 0.93;
	}
}

/*
 * Tests in run order: basic/send-only, faults/drop-one, basic/rnr-retry
 * (failed), faults/corrupt-ack (failed, no capture), basic/write-only, then
 * throughput/write-SIZE and throughput/send-SIZE for the seven sizes.
 */
static struct sample *sample_new(void)
{
	struct sample *x = calloc(1, sizeof *x);
	ck_assert_ptr_nonnull(x);
	struct rt_run_result *t = x->tests;
	result(&t[0], "basic", "send-only", true);
	result(&t[1], "faults", "drop-one", false);
	t[1].untimed = true;
	t[1].timer_ns = 16384;
	t[1].reaction_ns = 2500;
	snprintf(t[1].failure, sizeof t[1].failure, "%s\n", UNTIMED);
	t[1].link_dropped = 1;
	t[1].retransmissions = 1;
	t[1].naks = 1;
	result(&t[2], "basic", "rnr-retry", false);
	snprintf(t[2].failure, sizeof t[2].failure, "%s", FAILURE);
	t[2].rnr_naks = 8;
	t[2].mem_latency = 300;
	t[2].p_stall = 0.25;
	t[2].underrun_cycles = 41;
	t[2].underrun_frames = 3;
	t[2].checker_errors = 2;
	t[2].checker_warnings = 1;
	result(&t[3], "faults", "corrupt-ack", false);
	snprintf(t[3].failure, sizeof t[3].failure, "the device completed a WR whose ACK was corrupted");
	t[3].pcap[0] = t[3].html[0] = '\0';
	t[3].sim_us = NAN;
	t[3].wall_s = NAN;
	t[3].link_corrupted = 1;
	result(&t[4], "basic", "write-only", true);
	t[4].underrun_cycles = 2;
	t[4].underrun_frames = 1;
	for (size_t i = 0; i < N_SIZES; i++) {
		throughput(&t[5 + i], RT_DUT_WRITE, sizes[i]);
		throughput(&t[5 + N_SIZES + i], RT_DUT_SEND, sizes[i]);
	}
	struct rt_run_summary *s = &x->s;
	snprintf(s->dut, sizeof s->dut, "roce_endpoint (Verilator, DATA_WIDTH 512, N_QP 4)");
	s->seed = 1;
	snprintf(s->started, sizeof s->started, "2026-11-21T12:00:00Z");
	s->tests = x->tests;
	s->n_tests = N_TESTS;
	s->wall_s = 12.5;
	s->cycles = 123456789;
	s->cycles_per_s = 2.5e6;
	s->clk_hz = 322265625;
	s->line_gbps = 100;
	s->pmtu = 4096;
	return x;
}

/* ---- Writing and reading back ----------------------------------------------------- */

typedef int run_writer_fn(const struct rt_run_summary *s, FILE *out);

static char *write_to_string(run_writer_fn *w, const struct rt_run_summary *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(w(s, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* a and b both in text, a first. */
static void assert_before(const char *text, const char *a, const char *b)
{
	const char *pa = strstr(text, a), *pb = strstr(text, b);
	ck_assert_msg(pa && pb && pa < pb, "\"%s\" is not before \"%s\"", a, b);
}

static void assert_utf8(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		size_t n = rt_rep_utf8_len(p);
		ck_assert_msg(n > 0, "invalid UTF-8 at offset %td", (const char *)p - text);
		p += n;
	}
}

/* JSON values found with json_member/json_element, failing the test when absent. */
static const char *member(const char *obj, const char *key)
{
	ck_assert_ptr_nonnull(obj);
	const char *v = json_member(obj, key);
	ck_assert_msg(v != NULL, "no member \"%s\"", key);
	return v;
}

static const char *element(const char *arr, size_t i)
{
	const char *v = json_element(arr, i);
	ck_assert_msg(v != NULL, "no element %zu", i);
	return v;
}

static uint64_t json_u64(const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	ck_assert_msg(end > v && !errno && (*end == ',' || *end == '}' || *end == ']' || *end == '\n'),
		      "not an integer: %.20s", v);
	return n;
}

static double json_double(const char *v)
{
	char *end;
	double d = strtod(v, &end);
	ck_assert_msg(end > v, "not a number: %.20s", v);
	return d;
}

/* True when the value at v is exactly the JSON text want (a literal, number or string as written). */
static bool json_is(const char *v, const char *want)
{
	const char *end = json_skip(v);
	return end && (size_t)(end - v) == strlen(want) && !strncmp(v, want, strlen(want));
}

/*
 * Markup, checked as far as the writers' output needs: every start tag
 * closed in order (HTML's void elements and self-closed tags aside; <style>
 * skipped whole), attribute values quoted and free of '<', and every '&'
 * an entity the escaper makes. Returns NULL, or what is wrong.
 */
static const char *markup_problem(const char *t, bool html, char *why, size_t size)
{
	static const char *const voids[] = { "meta", "br", "hr", "img", "input", "link", "col", "wbr" };
	char stack[64][24];
	int depth = 0;
	for (const char *p = t; *p;) {
		if (*p == '&') {
			size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
			if (p[1 + n] != ';' || !n) {
				snprintf(why, size, "bare & at %td: %.30s", p - t, p);
				return why;
			}
			p += n + 2;
			continue;
		}
		if (*p != '<') {
			p++;
			continue;
		}
		if (!strncmp(p, "<?", 2) || !strncmp(p, "<!", 2)) {
			const char *e = strchr(p, '>');
			if (!e)
				return "unterminated declaration";
			p = e + 1;
			continue;
		}
		bool closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t nlen = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (!nlen || nlen >= sizeof stack[0]) {
			snprintf(why, size, "bad tag at %td: %.30s", p - t, p);
			return why;
		}
		const char *q = name + nlen;
		char quote = 0;
		for (; *q && (quote || *q != '>'); q++) {
			if (quote && *q == '<') {
				snprintf(why, size, "'<' in an attribute at %td", q - t);
				return why;
			}
			if (*q == '"' || *q == '\'')
				quote = quote == *q ? 0 : quote ? quote : *q;
		}
		if (!*q)
			return "unterminated tag";
		bool self = q[-1] == '/';
		bool is_void = false;
		for (size_t i = 0; html && i < sizeof voids / sizeof voids[0]; i++)
			is_void |= strlen(voids[i]) == nlen && !strncmp(name, voids[i], nlen);
		if (closing) {
			if (!depth || strlen(stack[depth - 1]) != nlen || strncmp(stack[depth - 1], name, nlen)) {
				snprintf(why, size, "</%.*s> at %td closes <%s>", (int)nlen, name, p - t,
					 depth ? stack[depth - 1] : "nothing");
				return why;
			}
			depth--;
		} else if (!self && !is_void) {
			if (depth == 64)
				return "nested too deep";
			snprintf(stack[depth++], sizeof stack[0], "%.*s", (int)nlen, name);
		}
		p = q + 1;
		if (html && !closing && nlen == 5 && !strncmp(name, "style", 5)) {
			const char *e = strstr(p, "</style>");
			if (!e)
				return "unterminated <style>";
			p = e;
		}
	}
	if (depth) {
		snprintf(why, size, "<%s> never closed", stack[depth - 1]);
		return why;
	}
	return NULL;
}

static void assert_markup(const char *text, bool html)
{
	char why[160];
	const char *problem = markup_problem(text, html, why, sizeof why);
	ck_assert_msg(problem == NULL, "%s", problem);
}

/* ---- JSON ---------------------------------------------------------------------------- */

START_TEST(json_shape_and_counts)
{
	struct sample *x = sample_new();
	char *json = write_to_string(rt_run_report_json, &x->s);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	assert_utf8(json);

	/* Exactly these top-level keys. */
	static const char *const keys[] = { "dut", "build_id", "seed", "started", "wall_s", "tests", "failures",
					    "untimed", "suites", "metrics" };
	ck_assert_uint_eq(json_length(json), sizeof keys / sizeof keys[0]);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		member(json, keys[i]);
	ck_assert(json_is(member(json, "dut"), "\"roce_endpoint (Verilator, DATA_WIDTH 512, N_QP 4)\""));
	ck_assert_uint_eq(json_u64(member(json, "seed")), 1);
	ck_assert_uint_eq(json_u64(member(json, "tests")), N_TESTS);
	ck_assert_uint_eq(json_u64(member(json, "failures")), N_FAILED);
	ck_assert_uint_eq(json_u64(member(json, "untimed")), 1);

	/* Suites in the order their first test ran, each test under its own suite in run order. */
	const char *suites = member(json, "suites");
	ck_assert_uint_eq(json_length(suites), 3);
	static const char *const names[] = { "\"basic\"", "\"faults\"", "\"throughput\"" };
	static const uint64_t tests[] = { 3, 2, 2 * N_SIZES }, failures[] = { 1, 1, 0 }, untimed[] = { 0, 1, 0 };
	uint64_t total = 0;
	for (size_t k = 0; k < 3; k++) {
		const char *su = element(suites, k);
		ck_assert_uint_eq(json_length(su), 5);
		ck_assert_msg(json_is(member(su, "name"), names[k]), "suite %zu is not %s", k, names[k]);
		ck_assert_uint_eq(json_u64(member(su, "tests")), tests[k]);
		ck_assert_uint_eq(json_u64(member(su, "failures")), failures[k]);
		ck_assert_uint_eq(json_u64(member(su, "untimed")), untimed[k]);
		ck_assert_uint_eq(json_length(member(su, "cases")), tests[k]);
		total += json_length(member(su, "cases"));
	}
	ck_assert_uint_eq(total, N_TESTS);
	const char *basic = member(element(suites, 0), "cases");
	ck_assert(json_is(member(element(basic, 0), "name"), "\"send-only\""));
	ck_assert(json_is(member(element(basic, 1), "name"), "\"rnr-retry\""));
	ck_assert(json_is(member(element(basic, 2), "name"), "\"write-only\""));

	/* Every field of a case, with its nested objects. */
	static const char *const fields[] = { "name", "description", "passed", "untimed", "failure", "seed",
					      "cycles", "timer_ns", "reaction_ns", "sim_us", "wall_s", "wrs", "completions", "frames_to_peer",
					      "frames_to_dut", "retransmissions", "timeouts", "naks", "rnr_naks",
					      "link", "checker", "payload_bytes", "bench", "underrun_cycles",
					      "underrun_frames", "pcap", "html", "scenario", "twin_gaps" };
	const char *ok = element(basic, 0), *failed = element(basic, 1);
	ck_assert_uint_eq(json_length(failed), sizeof fields / sizeof fields[0]);
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		member(failed, fields[i]);
	ck_assert(json_is(member(ok, "passed"), "true"));
	ck_assert(json_is(member(ok, "failure"), "null"));
	ck_assert(json_is(member(failed, "passed"), "false"));
	/* The findings escaped for JSON: the quote and the newlines; < & > as they are. */
	ck_assert(json_is(member(failed, "failure"),
			  "\"PSN 0x10 <&>\\\"' retransmitted after the ACK\\n" FINDING_2 "\\n\""));
	ck_assert_uint_eq(json_u64(member(failed, "rnr_naks")), 8);
	ck_assert_uint_eq(json_u64(member(failed, "underrun_cycles")), 41);
	ck_assert_uint_eq(json_u64(member(failed, "underrun_frames")), 3);
	ck_assert_uint_eq(json_u64(member(member(failed, "bench"), "mem_latency")), 300);
	ck_assert_double_eq_tol(json_double(member(member(failed, "bench"), "p_stall")), 0.25, 1e-9);
	ck_assert_uint_eq(json_u64(member(ok, "underrun_cycles")), 0);
	/* No build id: null, not "". */
	ck_assert(json_is(member(json, "build_id"), "null"));
	ck_assert_uint_eq(json_u64(member(failed, "seed")), 0x5eed);
	ck_assert(json_is(member(failed, "pcap"), "\"basic/rnr-retry.pcap\""));
	ck_assert(json_is(member(failed, "html"), "\"basic/rnr-retry.html\""));
	const char *checker = member(failed, "checker");
	ck_assert_uint_eq(json_length(checker), 3);
	ck_assert_uint_eq(json_u64(member(checker, "errors")), 2);
	ck_assert_uint_eq(json_u64(member(checker, "warnings")), 1);
	ck_assert(json_is(member(checker, "args"), "\"--pmtu 4096 --retry-cnt 7\""));
	const char *link = member(element(member(element(suites, 1), "cases"), 0), "link");
	ck_assert_uint_eq(json_length(link), 4);
	ck_assert_uint_eq(json_u64(member(link, "dropped")), 1);
	ck_assert_uint_eq(json_u64(member(link, "corrupted")), 0);

	/* Not numbers and no capture: null. */
	const char *no_pcap = element(member(element(suites, 1), "cases"), 1);
	ck_assert(json_is(member(no_pcap, "name"), "\"corrupt-ack\""));
	ck_assert(json_is(member(no_pcap, "sim_us"), "null"));
	ck_assert(json_is(member(no_pcap, "wall_s"), "null"));
	ck_assert(json_is(member(no_pcap, "pcap"), "null"));
	ck_assert(json_is(member(no_pcap, "html"), "null"));
	text_assert_lacks(json, "nan");
	text_assert_lacks(json, "inf");
	free(json);
	free(x);
}
END_TEST

START_TEST(json_metrics)
{
	struct sample *x = sample_new();
	char *json = write_to_string(rt_run_report_json, &x->s);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	const char *m = member(json, "metrics");
	ck_assert_uint_eq(json_u64(member(m, "sim_cycles")), 123456789);
	/* Underruns over every test. */
	ck_assert_uint_eq(json_u64(member(m, "underrun_cycles")), 43);
	ck_assert_uint_eq(json_u64(member(m, "underrun_frames")), 4);
	ck_assert_double_eq_tol(json_double(member(m, "sim_cycles_per_s")), 2.5e6, 1e-6);
	ck_assert_double_eq_tol(json_double(member(m, "clk_hz")), 322265625, 1e-3);
	ck_assert_double_eq_tol(json_double(member(m, "line_gbps")), 100, 1e-9);
	ck_assert_uint_eq(json_u64(member(m, "pmtu")), 4096);
	/* The tests' wall times added up; the NaN one counts as 0. */
	ck_assert_double_eq_tol(json_double(member(m, "sim_wall_s")), 0.25 * (N_TESTS - 1), 1e-9);
	ck_assert_double_eq_tol(json_double(member(m, "goodput_write_64k_gbps")), 97.3, 1e-9);

	/* One entry per throughput test, by opcode (SEND before WRITE) and size. */
	const char *g = member(m, "goodput");
	ck_assert_uint_eq(json_length(g), 2 * N_SIZES);
	for (size_t i = 0; i < 2 * N_SIZES; i++) {
		const char *e = element(g, i);
		enum rt_dut_opcode op = i < N_SIZES ? RT_DUT_SEND : RT_DUT_WRITE;
		uint32_t size = sizes[i % N_SIZES];
		ck_assert(json_is(member(e, "opcode"), op == RT_DUT_SEND ? "\"SEND\"" : "\"WRITE\""));
		ck_assert_uint_eq(json_u64(member(e, "msg_size")), size);
		/* The SENDs' limits were left to the writer: it computes them at the run's PMTU and line rate. */
		ck_assert_double_eq_tol(json_double(member(e, "limit_gbps")),
					rt_goodput_limit_gbps(op, size, 4096, 100), 1e-9);
		if (op == RT_DUT_SEND && size == 1048576)
			ck_assert(json_is(member(e, "gbps"), "null"));
		else
			ck_assert_double_eq_tol(json_double(member(e, "gbps")),
						op == RT_DUT_WRITE && size == 65536 ? 97.3
						: op == RT_DUT_WRITE ? 0.99 * rt_goodput_limit_gbps(op, size, 4096, 100)
								     : 0.93 * rt_goodput_limit_gbps(op, size, 4096, 100),
						1e-9);
	}
	free(json);

	/* No WRITE of 64 KB, a simulation speed that is not a number: null, still valid JSON. */
	x->tests[5 + 5].msg_size = 65535;
	x->s.cycles_per_s = INFINITY;
	x->s.wall_s = NAN;
	json = write_to_string(rt_run_report_json, &x->s);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	m = member(json, "metrics");
	ck_assert(json_is(member(m, "goodput_write_64k_gbps"), "null"));
	ck_assert(json_is(member(m, "sim_cycles_per_s"), "null"));
	ck_assert(json_is(member(json, "wall_s"), "null"));
	free(json);
	free(x);
}
END_TEST

/* ---- JUnit ----------------------------------------------------------------------------- */

START_TEST(junit_suites_cases_failures)
{
	struct sample *x = sample_new();
	char *xml = write_to_string(rt_run_report_junit, &x->s);
	assert_markup(xml, false);
	assert_utf8(xml);
	text_assert_has(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rocetest run\" tests=\"19\" "
			"failures=\"2\" errors=\"0\" time=\"12.500\">");
	ck_assert_uint_eq(text_count(xml, "<testsuite "), 3);
	ck_assert_uint_eq(text_count(xml, "<testcase "), N_TESTS);
	ck_assert_uint_eq(text_count(xml, "<failure "), N_FAILED);
	ck_assert_uint_eq(text_count(xml, "<system-out>"), N_TESTS);
	text_assert_has(xml, "<testsuite name=\"rocetest.run.basic\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\"");
	text_assert_has(xml, "<testsuite name=\"rocetest.run.faults\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\"");
	/* The untimed test: skipped with its reason, not failed. */
	ck_assert_uint_eq(text_count(xml, "<skipped "), 1);
	text_assert_has(xml, "<testcase name=\"drop-one\" classname=\"rocetest.run.faults\" time=\"0.250\">\n"
			"      <skipped message=\"untimed: the harness took up to 2.50 us of the device&#39;s time");
	text_assert_has(xml, "<testsuite name=\"rocetest.run.throughput\" tests=\"14\" failures=\"0\"");
	assert_before(xml, "rocetest.run.basic\"", "rocetest.run.faults\"");
	text_assert_has(xml, "<testcase name=\"send-only\" classname=\"rocetest.run.basic\" time=\"0.250\">");
	/* A wall time that is not a number is 0: the schema wants a non-negative decimal. */
	text_assert_has(xml, "<testcase name=\"corrupt-ack\" classname=\"rocetest.run.faults\" time=\"0.000\">");

	/* The failure: the first finding as the message, all of them as the text, escaped. */
	text_assert_has(xml, "<failure type=\"conformance\" message=\"PSN 0x10 &lt;&amp;&gt;&quot;&#39; retransmitted "
			"after the ACK\">PSN 0x10 &lt;&amp;&gt;&quot;&#39; retransmitted after the ACK\n" FINDING_2
			"\n</failure>");
	text_assert_lacks(xml, "<&>");
	text_assert_has(xml, "reproduce: rocetest check --pmtu 4096 --retry-cnt 7 basic/rnr-retry.pcap\n");
	text_assert_has(xml, "ladder diagrams: basic/rnr-retry.html\n");
	text_assert_has(xml, "8 RNR NAKs");
	text_assert_has(xml, "goodput: WRITE of 64 KB: 97.30 Gb/s (limit 98.01 Gb/s)\n");
	text_assert_has(xml, "goodput: SEND of 1 MB: not measured");
	text_assert_has(xml, "<property name=\"dut\" value=\"roce_endpoint (Verilator, DATA_WIDTH 512, N_QP 4)\"/>");
	text_assert_has(xml, "timestamp=\"2026-11-21T12:00:00Z\"");
	text_assert_lacks(xml, "nan");
	free(xml);
	free(x);
}
END_TEST

/* ---- HTML ------------------------------------------------------------------------------ */

/* The "x,y" pairs of the first <polyline class="CLS" ...> at or after from; *n of them (at most max). */
static void polyline_points(const char *from, const char *cls, double *xs, double *ys, size_t max, size_t *n)
{
	char head[64];
	snprintf(head, sizeof head, "<polyline class=\"%s\"", cls);
	const char *p = strstr(from, head);
	ck_assert_msg(p != NULL, "no %s", head);
	p = strstr(p, "points=\"");
	ck_assert_ptr_nonnull(p);
	p += strlen("points=\"");
	*n = 0;
	while (*p != '"') {
		char *end;
		double x = strtod(p, &end);
		ck_assert_msg(*end == ',', "bad point at %.20s", p);
		double y = strtod(end + 1, &end);
		ck_assert_uint_lt(*n, max);
		xs[*n] = x;
		ys[(*n)++] = y;
		p = end + (*end == ' ');
	}
}

START_TEST(html_page)
{
	struct sample *x = sample_new();
	char *html = write_to_string(rt_run_report_html, &x->s);
	assert_markup(html, true);
	assert_utf8(html);
	text_assert_has(html, "<!DOCTYPE html>");
	ck_assert_uint_eq(text_count(html, "</html>\n"), 1);
	text_assert_has(html, "<div class=\"verdict fail\">FAIL<small>19 tests, 2 failed, 1 untimed</small></div>");
	text_assert_has(html, "roce_endpoint (Verilator, DATA_WIDTH 512, N_QP 4)");
	text_assert_has(html, "2026-11-21T12:00:00Z");
	/* Simulation speed: 2.5 M cycles/s is 2.5 MHz, 1/129 of a 322 MHz clock. */
	text_assert_has(html, "2500000 cycles/s (2.500 MHz equivalent, 1/129 of real time)");

	/* Self-contained: nothing fetched, no script at all. */
	text_assert_lacks(html, "http://");
	text_assert_lacks(html, "https://");
	text_assert_lacks(html, "<script");
	text_assert_lacks(html, "<link");
	text_assert_lacks(html, "<img");
	text_assert_has(html, "script-src 'none'");

	/* The failed tests' findings, escaped, in a <pre>; never the raw markup. */
	ck_assert_uint_eq(text_count(html, "<pre class=\"finding\">"), N_FAILED + 1);
	/* The untimed test: its own verdict and why, not a failure. */
	text_assert_has(html, "<tr id=\"t1\"><td");
	text_assert_has(html, "<span class=\"st st-warn\" title=\"timed the harness as much as the device\">untimed</span>");
	text_assert_has(html, "<pre class=\"finding\">untimed: the harness took up to 2.50 us");
	text_assert_has(html, "<tr><th>untimed</th>");
	text_assert_has(html, "<pre class=\"finding\">PSN 0x10 &lt;&amp;&gt;&quot;&#39; retransmitted after the ACK\n" FINDING_2
			 "\n</pre>");
	text_assert_lacks(html, "<&>");
	text_assert_has(html, "<code>rocetest check --pmtu 4096 --retry-cnt 7 basic/rnr-retry.pcap</code>");
	/* Links to each test's capture and ladder page, as the runner gave them. */
	text_assert_has(html, "<a href=\"basic/rnr-retry.pcap\"");
	text_assert_has(html, "<a href=\"basic/rnr-retry.html\"");
	text_assert_has(html, "<a href=\"throughput/write-65536.html\"");
	ck_assert_uint_eq(text_count(html, ">capture</a>"), N_TESTS - 1);
	/* Failed first in its suite: rnr-retry (test 2) before send-only (test 0); a row per test. */
	ck_assert_ptr_nonnull(strstr(html, "<tr id=\"t2\" class=\"failed\">"));
	assert_before(html, "<tr id=\"t2\"", "<tr id=\"t0\"");
	assert_before(html, "<tr id=\"t0\"", "<tr id=\"t4\"");
	ck_assert_uint_eq(text_count(html, "<tr id=\"t"), N_TESTS);
	ck_assert_uint_eq(text_count(html, "<section id=\"s"), 3);

	/* The plot: one measured polyline and one dashed limit curve per opcode, a marker per measurement. */
	ck_assert_uint_eq(text_count(html, "<svg class=\"plot\""), 1);
	ck_assert_uint_eq(text_count(html, "<polyline class=\"meas\""), 2);
	ck_assert_uint_eq(text_count(html, "<polyline class=\"limit\""), 2);
	ck_assert_uint_eq(text_count(html, "r=\"4.5\"><title>"), 2 * N_SIZES - 1);	/* SEND 1 MB: not measured */
	text_assert_has(html, "<title>WRITE 64 KB (65536 B): 97.30 Gb/s, 99.3% of the 98.01 Gb/s limit&#10;test "
			 "throughput/write-65536</title>");
	static const char *const ticks[] = { ">256 B</text>", ">1 KB</text>", ">4 KB</text>", ">16 KB</text>",
					     ">64 KB</text>", ">256 KB</text>", ">1 MB</text>" };
	for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++)
		text_assert_has(html, ticks[i]);
	text_assert_has(html, "class=\"target\"");
	text_assert_has(html, "target 97 Gb/s");

	/* The limit curve is sampled densely, left to right, and shows the sawtooth past PMTU multiples. */
	static double xs[1024], ys[1024];
	size_t n;
	polyline_points(html, "limit", xs, ys, 1024, &n);
	ck_assert_uint_ge(n, 12 * 8 + 1);
	bool drops = false;
	for (size_t i = 1; i < n; i++) {
		/* Equal x: a tooth's edge, n * PMTU and one byte more a fraction of a pixel apart. */
		ck_assert(xs[i] >= xs[i - 1]);
		drops |= ys[i] > ys[i - 1] + 1;	/* lower goodput is further down: a larger y */
	}
	ck_assert_msg(drops, "the limit curve has no sawtooth");
	/* The measured WRITE series (the second polyline: SEND sorts first) has its seven points. */
	polyline_points(strstr(html, "<polyline class=\"meas\"") + 1, "meas", xs, ys, 1024, &n);
	ck_assert_uint_eq(n, N_SIZES);

	/* The table: a row per measurement, the SEND that measured nothing said so. */
	ck_assert_uint_eq(text_count(html, "<span class=\"swatch\""), 2 * N_SIZES);
	text_assert_has(html, "<td class=\"n\">97.30</td><td class=\"n\">98.01</td><td class=\"n\">99.3</td>");
	text_assert_has(html, "not measured");
	free(html);
	free(x);
}
END_TEST

START_TEST(html_absurd_goodput)
{
	/* A broken clock in the runner: the axis stretches to show it, still with about ten labelled steps. */
	struct sample *x = sample_new();
	x->tests[5].goodput_gbps = 1e12;
	x->tests[6].goodput_gbps = -5;
	char *html = write_to_string(rt_run_report_html, &x->s);
	assert_markup(html, true);
	size_t ticks = text_count(html, "text-anchor=\"end\">");
	ck_assert_uint_ge(ticks, 2);
	ck_assert_uint_le(ticks, 12);
	text_assert_has(html, "<title>WRITE 256 B (256 B): 1000000000000.00 Gb/s");
	free(html);
	free(x);
}
END_TEST

START_TEST(html_without_goodput)
{
	struct sample *x = sample_new();
	x->s.n_tests = 5;	/* the throughput tests left out */
	char *html = write_to_string(rt_run_report_html, &x->s);
	assert_markup(html, true);
	text_assert_lacks(html, "<svg class=\"plot\"");
	text_assert_lacks(html, "<polyline");
	text_assert_has(html, "No throughput test ran in this run, so there is no goodput to plot.");
	free(html);

	/* None failed, one untimed: the verdict is PASS and says so; only the untimed one has a finding. */
	x->tests[2].passed = x->tests[3].passed = true;
	html = write_to_string(rt_run_report_html, &x->s);
	text_assert_has(html, "<div class=\"verdict pass\">PASS<small>5 tests, 0 failed, 1 untimed</small></div>");
	ck_assert_uint_eq(text_count(html, "<pre class=\"finding\">"), 1);
	free(html);

	/* All passed: no finding at all. */
	x->tests[1].passed = true;
	x->tests[1].untimed = false;
	html = write_to_string(rt_run_report_html, &x->s);
	text_assert_has(html, "<div class=\"verdict pass\">PASS<small>5 tests, 0 failed</small></div>");
	text_assert_lacks(html, "<pre class=\"finding\">");
	text_assert_lacks(html, "untimed");
	free(html);
	free(x);
}
END_TEST

/* ---- Edge cases ------------------------------------------------------------------------- */

START_TEST(empty_run)
{
	struct rt_run_summary s;
	memset(&s, 0, sizeof s);
	s.line_gbps = NAN;
	char *json = write_to_string(rt_run_report_json, &s);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	ck_assert_uint_eq(json_u64(member(json, "tests")), 0);
	ck_assert_uint_eq(json_length(member(json, "suites")), 0);
	ck_assert_uint_eq(json_length(member(member(json, "metrics"), "goodput")), 0);
	ck_assert(json_is(member(member(json, "metrics"), "line_gbps"), "null"));
	char *xml = write_to_string(rt_run_report_junit, &s);
	assert_markup(xml, false);
	text_assert_has(xml, "<testsuites name=\"rocetest run\" tests=\"0\" failures=\"0\" errors=\"0\" time=\"0.000\">");
	char *html = write_to_string(rt_run_report_html, &s);
	assert_markup(html, true);
	/* A run that ran nothing is not a pass. */
	text_assert_has(html, "<div class=\"verdict fail\">NO TESTS");
	free(json);
	free(xml);
	free(html);
}
END_TEST

START_TEST(hostile_strings_escaped)
{
	struct sample *x = sample_new();
	snprintf(x->s.dut, sizeof x->s.dut, "<script>alert(1)</script>&\"'\x01\xff");
	snprintf(x->tests[0].suite, sizeof x->tests[0].suite, "a<b>&\"c");
	snprintf(x->tests[0].pcap, sizeof x->tests[0].pcap, "x\"><script>y.pcap");
	char *json = write_to_string(rt_run_report_json, &x->s);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	assert_utf8(json);
	ck_assert(json_is(member(json, "dut"), "\"<script>alert(1)</script>&\\\"'\\u0001\xEF\xBF\xBD\""));
	char *xml = write_to_string(rt_run_report_junit, &x->s);
	char *html = write_to_string(rt_run_report_html, &x->s);
	const char *docs[] = { xml, html };
	for (size_t i = 0; i < 2; i++) {
		assert_markup(docs[i], i == 1);
		assert_utf8(docs[i]);
		text_assert_lacks(docs[i], "<script>");
		text_assert_lacks(docs[i], "\x01");
		text_assert_has(docs[i], "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD");
	}
	text_assert_has(xml, "<testsuite name=\"rocetest.run.a&lt;b&gt;&amp;&quot;c\"");
	text_assert_has(html, "href=\"x&quot;&gt;&lt;script&gt;y.pcap\"");
	free(json);
	free(xml);
	free(html);
	free(x);
}
END_TEST

START_TEST(write_errors_reported)
{
	struct sample *x = sample_new();
	run_writer_fn *writers[] = { rt_run_report_json, rt_run_report_junit, rt_run_report_html };
	for (size_t i = 0; i < 3; i++) {
		FILE *full = fopen("/dev/full", "w");
		ck_assert_ptr_nonnull(full);
		ck_assert_int_eq(writers[i](&x->s, full), -1);
		fclose(full);
	}
	free(x);
}
END_TEST

/* Not a check: the sample's reports for run.sh to validate with xmllint, python and Chromium. */
START_TEST(samples_for_integration)
{
	const char *dir = getenv("ROCETEST_RUN_REPORT_SAMPLES");
	if (!dir || !*dir)
		return;
	struct sample *x = sample_new();
	static const struct {
		const char *file;
		run_writer_fn *w;
	} out[] = { { "summary.json", rt_run_report_json },
		    { "junit.xml", rt_run_report_junit },
		    { "index.html", rt_run_report_html } };
	for (size_t i = 0; i < 3; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, out[i].file);
		FILE *f = fopen(path, "w");
		ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
		ck_assert_int_eq(out[i].w(&x->s, f), 0);
		ck_assert_int_eq(fclose(f), 0);
	}
	free(x);
}
END_TEST

Suite *run_report_suite(void)
{
	Suite *s = suite_create("run_report");
	TCase *tc = tcase_create("writers");
	tcase_add_test(tc, json_shape_and_counts);
	tcase_add_test(tc, json_metrics);
	tcase_add_test(tc, junit_suites_cases_failures);
	tcase_add_test(tc, html_page);
	tcase_add_test(tc, html_absurd_goodput);
	tcase_add_test(tc, html_without_goodput);
	tcase_add_test(tc, empty_run);
	tcase_add_test(tc, hostile_strings_escaped);
	tcase_add_test(tc, write_errors_reported);
	tcase_add_test(tc, samples_for_integration);
	suite_add_tcase(s, tc);
	return s;
}
