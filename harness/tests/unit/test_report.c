/* SPDX-License-Identifier: MIT */
/*
 * The report writers (harness/report/): JSON, JUnit XML and HTML written from a real
 * checker run, over a real capture and over frames built here with known
 * faults. The JSON is parsed by a strict syntax checker below; the XML and
 * HTML are searched for what must and must not be there. The integration
 * tests validate the same output with python's json, xmllint and Chromium.
 */
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/report.h"
#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/checker.h"
#include "flow_seq.h"
#include "suites.h"
#include "test_util.h"
#include "util.h"

/* A file name with every character that means something in HTML, XML or JSON, a control and a non-UTF-8 byte. */
#define HOSTILE_NAME "dir/<script>alert(1)</script>&\"'\x01\xff.pcap"

/* ---- Running the checker ---------------------------------------------------------------- */

struct run {
	struct rt_checker *checker;
	struct rt_violation_list list;
	uint64_t frames;
};

static void keep(void *ctx, const struct rt_violation *v)
{
	ck_assert_int_eq(rt_violation_list_add(ctx, v), 0);
}

static void run_start(struct run *r)
{
	memset(r, 0, sizeof *r);
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	cfg.ladder_flows = 8;
	cfg.on_violation = keep;
	cfg.ctx = &r->list;
	struct rt_error err;
	r->checker = rt_checker_new(&cfg, &err);
	ck_assert_msg(r->checker != NULL, "%s", err.msg);
}

static void run_free(struct run *r)
{
	rt_checker_free(r->checker);
	rt_violation_list_free(&r->list);
}

static void run_capture(struct run *r, const char *path)
{
	run_start(r);
	struct rt_error err;
	struct rt_capture *cap = rt_capture_open(path, &err);
	ck_assert_msg(cap != NULL, "%s", err.msg);
	struct rt_frame fr;
	int rc;
	while ((rc = rt_capture_next(cap, &fr, &err)) == 1)
		rt_checker_frame(r->checker, rt_capture_link(cap), fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
	ck_assert_msg(rc == 0, "%s", err.msg);
	r->frames = fr.number;
	rt_capture_close(cap);
	rt_checker_finish(r->checker);
}

/* Builds the frame and feeds it as the next frame, 1 us after the previous one. */
static void feed(struct run *r, const struct rt_build_spec *s)
{
	uint8_t buf[TEST_FRAME_MAX];
	size_t len = build_frame(s, buf, sizeof buf);
	r->frames++;
	rt_checker_frame(r->checker, RT_LINK_ETHERNET, r->frames, 1000000000 + (int64_t)r->frames * 1000, buf,
			 (uint32_t)len, (uint32_t)len);
}

static void request(struct rt_build_spec *s, uint32_t psn)
{
	rt_build_spec_init(s);
	s->bth.opcode = 0x04;	/* RC SEND Only */
	s->bth.dest_qp = 0x12;
	s->bth.psn = psn;
	s->bth.ack_req = true;
	s->payload_len = 64;
}

static void ack(struct rt_build_spec *s, uint32_t psn, uint32_t msn)
{
	rt_build_spec_init(s);
	memcpy(s->src_ip, (const uint8_t[4]){ 10, 0, 0, 2 }, 4);
	memcpy(s->dst_ip, (const uint8_t[4]){ 10, 0, 0, 1 }, 4);
	s->bth.opcode = 0x11;	/* RC Acknowledge */
	s->bth.dest_qp = 0x11;
	s->bth.psn = psn;
	s->ext.aeth.syndrome = 0x1F;
	s->ext.aeth.msn = msn;
}

/*
 * One RC connection, 10.0.0.1 QP 0x11 to 10.0.0.2 QP 0x12: five SEND Only
 * requests, three with a bad ICRC, one from UDP source port 4000 (a
 * warning), each good one acknowledged.
 */
static void run_faulty(struct run *r)
{
	run_start(r);
	struct rt_build_spec s;
	uint32_t msn = 0;
	for (uint32_t psn = 100; psn < 105; psn++) {
		request(&s, psn);
		s.corrupt_icrc = psn == 101 || psn == 102 || psn == 104;
		if (psn == 103)
			s.udp_sport = 4000;
		feed(r, &s);
		if (!s.corrupt_icrc) {
			ack(&s, psn, ++msn);
			feed(r, &s);
		}
	}
	rt_checker_finish(r->checker);
}

/* ---- Writing ----------------------------------------------------------------------------- */

typedef int writer_fn(const struct rt_report_file *files, size_t n, FILE *out);

/* The writer's output as a string (free it). */
static char *write_to_string(writer_fn *w, const struct rt_report_file *files, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(w(files, n, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(text), len);	/* no NUL byte inside */
	return text;
}

static size_t flows_with_ladder(const struct rt_checker *c)
{
	size_t n = 0;
	for (size_t i = 0; i < rt_checker_flow_count(c); i++)
		n += rt_checker_flow(c, i)->ladder != NULL;
	return n;
}

/* Distinct (flow, rule) pairs with an error violation, and the error violations themselves. */
static void error_pairs(const struct rt_violation_list *l, size_t *pairs, size_t *errors)
{
	*pairs = *errors = 0;
	for (size_t i = 0; i < l->count; i++) {
		const struct rt_report_violation *v = &l->items[i];
		if (v->severity != RT_SEV_ERROR)
			continue;
		(*errors)++;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = l->items[j].severity == RT_SEV_ERROR && l->items[j].flow == v->flow &&
			       l->items[j].rule == v->rule;
		*pairs += !seen;
	}
}

/* ---- Tests -------------------------------------------------------------------------------- */

START_TEST(real_capture_all_writers)
{
	struct run r;
	run_capture(&r, CAPTURES_DIR "/rxe/rdma_read_bw.pcap");
	struct rt_report_file rf = { .file = "rdma_read_bw.pcap", .checker = r.checker, .violations = &r.list,
				     .seconds = 0.5 };

	char *json = write_to_string(rt_report_json, &rf, 1);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	static const char *const keys[] = {
		"{\"file\":\"rdma_read_bw.pcap\"", "\"packets\":", "\"roce_packets\":", "\"not_roce\":",
		"\"truncated\":", "\"malformed\":", "\"untracked\":", "\"seconds\":0.5", "\"config\":{\"pmtu\":null",
		"\"timeout_us\":null", "\"retry_cnt\":null", "\"rnr_retry\":null", "\"flows\":[", "\"transport\":\"RC\"",
		"\"endpoints\":[{\"ip\":\"", "\"pmtu_inferred\":", "\"rules\":[", "\"status\":\"pass\"",
		"\"violations\":[", "\"violations_dropped\":0", "\"summary\":{\"errors\":0,\"warnings\":0",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		text_assert_has(json, keys[i]);
	char frames[64];
	snprintf(frames, sizeof frames, "\"packets\":%" PRIu64 ",", rt_checker_totals(r.checker)->frames);
	text_assert_has(json, frames);
	/* One rule object per enabled rule (all of them by default). */
	ck_assert_uint_eq(text_count(json, "{\"id\":\""), RT_RULE_COUNT);

	char *xml = write_to_string(rt_report_junit, &rf, 1);
	text_assert_has(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ");
	text_assert_has(xml, "<testsuite name=\"rdma_read_bw.pcap\" ");
	/* One case per rule, of the capture's class. */
	ck_assert_uint_eq(text_count(xml, "<testcase "), RT_RULE_COUNT);
	ck_assert_uint_eq(text_count(xml, "classname=\"rocetest.rdma_read_bw.pcap\""), RT_RULE_COUNT);
	text_assert_lacks(xml, "<failure");
	ck_assert_uint_eq(text_count(xml, "<testsuite "), 1);
	ck_assert_uint_eq(text_count(xml, "</testsuites>\n"), 1);
	char *per_flow = write_to_string(rt_report_junit_per_flow, &rf, 1);
	text_assert_has(per_flow, "classname=\"rocetest.rdma_read_bw.pcap.flow1\"");
	free(per_flow);

	char *html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, "<!DOCTYPE html>");
	text_assert_has(html, "PASS");
	ck_assert_uint_ge(flows_with_ladder(r.checker), 1);
	ck_assert_uint_eq(text_count(html, "<svg class=\"ladder\""), flows_with_ladder(r.checker));
	/* Self-contained: nothing fetched. */
	text_assert_lacks(html, "http://");
	text_assert_lacks(html, "https://");
	text_assert_lacks(html, "<script src");
	text_assert_lacks(html, "<link");
	text_assert_lacks(html, "<img");
	ck_assert_uint_eq(text_count(html, "</html>\n"), 1);

	free(json);
	free(xml);
	free(html);
	run_free(&r);
}
END_TEST

/*
 * A capture not checked to its end (here: a clean one said to be cut at
 * frame 31) is "incomplete" in all three formats, never a pass, and the
 * summary of several captures counts it as not conformant.
 */
START_TEST(incomplete_capture_all_writers)
{
	static const char reason[] = "cut.pcap: frame 31: damaged capture record: truncated <record> & \"more\"";
	struct run r;
	run_capture(&r, CAPTURES_DIR "/rxe/rdma_read_bw.pcap");
	ck_assert_uint_eq(rt_checker_totals(r.checker)->errors, 0);
	struct rt_report_file rf = { .file = "cut.pcap", .checker = r.checker, .violations = &r.list, .seconds = 0,
				     .incomplete = reason };

	char *json = write_to_string(rt_report_json, &rf, 1);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	text_assert_has(json, "\"summary\":{\"errors\":0,\"warnings\":0,\"verdict\":\"incomplete\","
			      "\"reason\":\"cut.pcap: frame 31: damaged capture record: truncated <record> & \\\"more\\\"\"}");
	text_assert_lacks(json, "\"verdict\":\"pass\"");

	char *xml = write_to_string(rt_report_junit, &rf, 1);
	text_assert_has(xml, "<testsuites name=\"rocetest check\" tests=\"");
	text_assert_has(xml, "\" errors=\"1\" time=");
	text_assert_has(xml, "\" errors=\"1\" skipped=");
	text_assert_has(xml, "<testcase name=\"capture\" classname=\"rocetest.cut.pcap.capture\" time=\"0\">\n"
			     "      <error type=\"incomplete\" message=\"incomplete: cut.pcap: frame 31: damaged capture "
			     "record: truncated &lt;record&gt; &amp; &quot;more&quot;\">");
	ck_assert_uint_eq(text_count(xml, "<error "), 1);

	char *html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, "<div class=\"verdict fail\">INCOMPLETE<small>cut.pcap: frame 31: damaged capture "
			      "record: truncated &lt;record&gt; &amp; &quot;more&quot; (0 errors, 0 warnings in what "
			      "was checked)</small></div>");
	text_assert_lacks(html, "<div class=\"verdict pass\">");

	/* With a complete capture beside it: the whole is incomplete too. */
	struct rt_report_file files[2] = { rf, rf };
	files[0].file = "whole.pcap";
	files[0].incomplete = NULL;
	char *json2 = write_to_string(rt_report_json, files, 2);
	ck_assert_msg(json_valid(json2), "invalid JSON:\n%s", json2);
	text_assert_has(json2, "\"verdict\":\"pass\"}}");
	text_assert_has(json2, "\n],\n\"summary\":{\"errors\":0,\"warnings\":0,\"verdict\":\"incomplete\","
			       "\"incomplete\":1}}");
	char *xml2 = write_to_string(rt_report_junit, files, 2);
	ck_assert_uint_eq(text_count(xml2, "<error "), 1);
	text_assert_has(xml2, "\" errors=\"0\" skipped=");
	char *html2 = write_to_string(rt_report_html, files, 2);
	text_assert_has(html2, "<div class=\"verdict fail\">INCOMPLETE<small>1 of 2 captures not checked to their end");
	text_assert_has(html2, "<td><span class=\"st st-fail\">incomplete</span></td>");
	ck_assert_uint_eq(text_count(html2, "<div class=\"verdict pass\">"), 1); /* whole.pcap's own box */

	free(json);
	free(xml);
	free(html);
	free(json2);
	free(xml2);
	free(html2);
	run_free(&r);
}
END_TEST

START_TEST(hostile_file_name_escaped)
{
	struct run r;
	run_faulty(&r);
	struct rt_report_file rf = { .file = HOSTILE_NAME, .checker = r.checker, .violations = &r.list, .seconds = 0 };

	char *json = write_to_string(rt_report_json, &rf, 1);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	/* Quote and control escaped, the invalid byte replaced by U+FFFD; < > & need no escape in JSON. */
	text_assert_has(json, "\"file\":\"dir/<script>alert(1)</script>&\\\"'\\u0001\xEF\xBF\xBD.pcap\"");

	char *xml = write_to_string(rt_report_junit, &rf, 1);
	char *html = write_to_string(rt_report_html, &rf, 1);
	const char *escaped = "dir/&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD.pcap";
	const char *docs[] = { xml, html };
	for (size_t i = 0; i < 2; i++) {
		text_assert_has(docs[i], escaped);
		text_assert_lacks(docs[i], "<script>alert");
		text_assert_lacks(docs[i], "\x01");
		for (const unsigned char *p = (const unsigned char *)docs[i]; *p;) {
			size_t n = rt_rep_utf8_len(p);
			ck_assert_msg(n > 0, "invalid UTF-8 at offset %td", (const char *)p - docs[i]);
			p += n;
		}
	}
	/* The class name uses the base name (after the last '/', here inside "</script>"), escaped the same way. */
	text_assert_has(xml, "classname=\"rocetest.script&gt;&amp;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD.pcap\"");
	char *per_flow = write_to_string(rt_report_junit_per_flow, &rf, 1);
	text_assert_has(per_flow, "classname=\"rocetest.script&gt;&amp;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD.pcap.flow1\"");
	free(per_flow);
	free(json);
	free(xml);
	free(html);
	run_free(&r);
}
END_TEST

/* --junit-per-flow: the layout of one case per rule and flow. */
START_TEST(junit_per_flow_failures_are_error_violations)
{
	struct run r;
	run_faulty(&r);
	struct rt_report_file rf = { .file = "faulty.pcap", .checker = r.checker, .violations = &r.list, .seconds = 0 };
	size_t pairs, errors;
	error_pairs(&r.list, &pairs, &errors);
	ck_assert_uint_ge(errors, 3);	/* the three bad ICRCs at least */
	ck_assert_uint_eq(rt_checker_totals(r.checker)->errors, errors);

	char *xml = write_to_string(rt_report_junit_per_flow, &rf, 1);
	/* One failing test case per (flow, rule) with errors, one line per error violation in them. */
	ck_assert_uint_eq(text_count(xml, "<failure "), pairs);
	char attr[64];
	snprintf(attr, sizeof attr, " failures=\"%zu\"", pairs);
	ck_assert_uint_eq(text_count(xml, attr), 2);	/* <testsuites> and <testsuite> */
	size_t lines = 0;
	for (const char *p = xml; (p = strstr(p, "<failure ")); p++) {
		const char *body = strchr(p, '>'), *end = strstr(p, "</failure>");
		for (const char *q = body; (q = strstr(q, "\nframe ")) && q < end; q++)
			lines++;
		lines += !strncmp(body + 1, "frame ", 6);
	}
	ck_assert_uint_eq(lines, errors);
	text_assert_has(xml, "<failure type=\"PKT-ICRC\" message=\"3 violations of PKT-ICRC, first at frame ");

	/* The warning does not fail its test case: it is in that case's <system-out>. */
	const char *w = strstr(xml, "<testcase name=\"PKT-UDP-SPORT\" classname=\"rocetest.faulty.pcap.flow1\"");
	ck_assert_ptr_nonnull(w);
	const char *end = strstr(w, "</testcase>");
	const char *out = strstr(w, "<system-out>1 warning:\nframe ");
	ck_assert_msg(out && out < end, "the warning is not in the test case's system-out");
	const char *fail = strstr(w, "<failure");
	ck_assert(!fail || fail > end);

	/* Skipped cases say why. */
	text_assert_has(xml, "<skipped message=\"not evaluated: needs timeout\"/>");

	free(xml);
	run_free(&r);
}
END_TEST

/*
 * Three flows (requests to QPs 0x12, 0x13, 0x14), 40 requests each, every
 * one with a bad ICRC (120 PKT-ICRC errors), and one request of the second
 * flow with a wrong PadCnt (PKT-PAD).
 */
static void run_many_bad(struct run *r)
{
	run_start(r);
	struct rt_build_spec s;
	for (uint32_t psn = 100; psn < 140; psn++) {
		for (uint32_t q = 0; q < 3; q++) {
			request(&s, psn);
			s.bth.dest_qp = 0x12 + q;
			s.corrupt_icrc = true;
			feed(r, &s);
		}
	}
	request(&s, 140);
	s.bth.dest_qp = 0x13;
	s.pad_explicit = true;
	s.bth.pad = 3;
	feed(r, &s);
	rt_checker_finish(r->checker);
}

/* The text of the <testcase> named id, up to its end (free it), or NULL. */
static char *testcase_of(const char *xml, const char *id)
{
	char head[64];
	snprintf(head, sizeof head, "<testcase name=\"%s\" ", id);
	const char *b = strstr(xml, head);
	if (!b)
		return NULL;
	const char *e = strstr(b, "</testcase>");
	const char *self = strstr(b, "/>\n");
	if (!e || (self && self < strchr(b, '\n') + 1))
		e = self;
	return strndup(b, (size_t)(e - b));
}

/* By default one case per rule: every flow's violations in it, the first 100 listed, the rest counted. */
START_TEST(junit_one_case_per_rule)
{
	struct run r;
	run_many_bad(&r);
	ck_assert_uint_eq(rt_checker_flow_count(r.checker), 3);
	ck_assert_uint_eq(rt_checker_verdicts(r.checker)->total.violations[RT_RULE_PKT_ICRC], 120);
	struct rt_report_file rf = { .file = "d/many.pcap", .checker = r.checker, .violations = &r.list };
	char *xml = write_to_string(rt_report_junit, &rf, 1);
	ck_assert_uint_eq(text_count(xml, "<testcase "), RT_RULE_COUNT);
	ck_assert_uint_eq(text_count(xml, "classname=\"rocetest.many.pcap\""), RT_RULE_COUNT);
	for (int k = 0; k < RT_RULE_COUNT; k++) {
		char name[64];
		snprintf(name, sizeof name, "<testcase name=\"%s\" ", rt_rule_info((enum rt_rule)k)->id);
		ck_assert_uint_eq(text_count(xml, name), 1);
	}
	ck_assert_uint_eq(text_count(xml, "<failure "), 2);
	text_assert_has(xml, " failures=\"2\" errors=\"0\" skipped=\"");

	char *icrc = testcase_of(xml, "PKT-ICRC");
	ck_assert_ptr_nonnull(icrc);
	text_assert_has(icrc, "<failure type=\"PKT-ICRC\" message=\"120 violations of PKT-ICRC in 3 flows, first at frame 1 "
			      "(flow 1): ");
	ck_assert_uint_eq(text_count(icrc, "\nflow ") + !!strstr(icrc, "\">flow 1, frame 1: "), 100);
	text_assert_has(icrc, "\">flow 1, frame 1: ");
	text_assert_has(icrc, "\nflow 2, frame 2: ");
	text_assert_has(icrc, "\nflow 3, frame 3: ");
	text_assert_has(icrc, "\n... and 20 more\n</failure>");
	/* Only its own rule's violations. */
	text_assert_lacks(icrc, "PadCnt");
	char *pad = testcase_of(xml, "PKT-PAD");
	ck_assert_ptr_nonnull(pad);
	text_assert_has(pad, "message=\"1 violation of PKT-PAD in 1 flow, first at frame 121 (flow 2): ");
	ck_assert_uint_eq(text_count(pad, "frame 121"), 2);	/* the message attribute and the one line */
	text_assert_has(pad, "\">flow 2, frame 121: ");
	text_assert_lacks(pad, "ICRC");
	text_assert_lacks(pad, "... and");
	/* A rule with nothing to check is skipped and says why. */
	char *timeout = testcase_of(xml, "REQ-TIMEOUT");
	ck_assert_ptr_nonnull(timeout);
	text_assert_has(timeout, "<skipped message=\"not evaluated: needs timeout\"/>");

	/* The per-flow layout of the same run: a case per flow for the bad ICRCs, 40 lines at most 50 each. */
	char *per_flow = write_to_string(rt_report_junit_per_flow, &rf, 1);
	ck_assert_uint_eq(text_count(per_flow, "<failure type=\"PKT-ICRC\" message=\"40 violations of PKT-ICRC, first"), 3);
	ck_assert_uint_eq(text_count(per_flow, "<failure "), 4);
	text_assert_lacks(per_flow, "... and");
	free(per_flow);
	free(timeout);
	free(pad);
	free(icrc);
	free(xml);
	run_free(&r);
}
END_TEST

START_TEST(html_marks_violations)
{
	struct run r;
	run_faulty(&r);
	struct rt_report_file rf = { .file = "faulty.pcap", .checker = r.checker, .violations = &r.list, .seconds = 0 };
	char *html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, "<div class=\"verdict fail\">FAIL");
	ck_assert_uint_eq(text_count(html, "<svg class=\"ladder\""), flows_with_ladder(r.checker));
	/* Three bad-ICRC rows, each marked and named in the issues column. */
	ck_assert_uint_eq(text_count(html, "bad ICRC</tspan>"), 3);
	ck_assert_uint_ge(text_count(html, "<circle class=\"mark\""), 3);
	ck_assert_uint_ge(text_count(html, ">PKT-ICRC</text>"), 3);
	/* Every kept violation is a row of the violations table (the rule tables' rows start with the rule). */
	ck_assert_uint_eq(text_count(html, "<tr><td class=\"n\">"), r.list.count);
	free(html);
	run_free(&r);
}
END_TEST

START_TEST(several_files)
{
	struct run a, b;
	run_faulty(&a);
	run_capture(&b, CAPTURES_DIR "/rxe/rdma_read_bw.pcap");
	struct rt_report_file files[2] = {
		{ .file = "a.pcap", .checker = a.checker, .violations = &a.list, .seconds = 1 },
		{ .file = "b.pcap", .checker = b.checker, .violations = &b.list, .seconds = 2 },
	};
	char *json = write_to_string(rt_report_json, files, 2);
	ck_assert_msg(json_valid(json), "invalid JSON:\n%s", json);
	ck_assert_uint_eq(strncmp(json, "{\"files\":[\n{\"file\":\"a.pcap\"", 27), 0);
	text_assert_has(json, ",\n{\"file\":\"b.pcap\"");
	char summary[96];
	snprintf(summary, sizeof summary, "\n],\n\"summary\":{\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64,
		 rt_checker_totals(a.checker)->errors + rt_checker_totals(b.checker)->errors,
		 rt_checker_totals(a.checker)->warnings + rt_checker_totals(b.checker)->warnings);
	text_assert_has(json, summary);

	char *xml = write_to_string(rt_report_junit, files, 2);
	ck_assert_uint_eq(text_count(xml, "<testsuite name="), 2);
	text_assert_has(xml, "time=\"3.000\">");	/* the <testsuites> total */

	char *html = write_to_string(rt_report_html, files, 2);
	text_assert_has(html, "<a href=\"#f2\">b.pcap</a>");
	ck_assert_uint_eq(text_count(html, "<section id=\"f"), 2);
	ck_assert_uint_eq(text_count(html, "<svg class=\"ladder\""),
			  flows_with_ladder(a.checker) + flows_with_ladder(b.checker));
	free(json);
	free(xml);
	free(html);
	run_free(&a);
	run_free(&b);
}
END_TEST

START_TEST(write_error_reported)
{
	struct run r;
	run_faulty(&r);
	struct rt_report_file rf = { .file = "faulty.pcap", .checker = r.checker, .violations = &r.list, .seconds = 0 };
	writer_fn *writers[] = { rt_report_json, rt_report_junit, rt_report_html };
	for (size_t i = 0; i < 3; i++) {
		FILE *full = fopen("/dev/full", "w");
		ck_assert_ptr_nonnull(full);
		errno = 0;
		ck_assert_int_eq(writers[i](&rf, 1, full), -1);
		ck_assert_int_eq(errno, ENOSPC);
		fclose(full);
	}
	run_free(&r);
}
END_TEST

START_TEST(no_violation_list)
{
	/* The writers take a NULL list (nothing kept) as an empty one. */
	struct run r;
	run_faulty(&r);
	struct rt_report_file rf = { .file = "faulty.pcap", .checker = r.checker, .violations = NULL, .seconds = 0 };
	char *json = write_to_string(rt_report_json, &rf, 1);
	ck_assert(json_valid(json));
	text_assert_has(json, "\"violations\":[],\n\"violations_dropped\":0");
	char *xml = write_to_string(rt_report_junit, &rf, 1);
	/* Failures still come from the counts; their lines are then "... and N more". */
	text_assert_has(xml, "<failure type=\"PKT-ICRC\" message=\"3 violations of PKT-ICRC in 1 flow\">... and 3 more\n"
			     "</failure>");
	char *per_flow = write_to_string(rt_report_junit_per_flow, &rf, 1);
	text_assert_has(per_flow, "<failure type=\"PKT-ICRC\" message=\"3 violations of PKT-ICRC\">... 3 more\n</failure>");
	free(per_flow);
	char *html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, "FAIL");
	free(json);
	free(xml);
	free(html);
	run_free(&r);
}
END_TEST

/* ---- Ladder rows: folds and the packets rules judge later ------------------------------ */

/*
 * A flow that skips PSN 150: A sends SEND Only 100..149, each acknowledged by
 * B, then 151 and `after` more requests B does not answer, then (cnp) a CNP
 * from B and four more requests. Every request asks for an ACK. SEQ-PSN is decided at the end of the
 * capture, at the frame of PSN 151 (which returns), long after it went by.
 */
static uint64_t run_skip(struct seq *s, uint32_t after, bool cnp)
{
	seq_init(s);
	s->cfg.ladder_flows = 1;
	uint32_t msn = 0;
	for (uint32_t psn = 100; psn < 150; psn++) {
		seq_pkt(s, SEQ_A, SEND_ONLY, psn, 64, &(struct seq_opt){ .ack_req = true });
		seq_pkt(s, SEQ_B, ACK, psn, 0, &(struct seq_opt){ .msn = ++msn });
	}
	/* B never answers from here on: the capture ends within the RSP-ACK grace, so that is no violation. */
	const struct seq_opt ackreq = { .ack_req = true };
	uint64_t skip = seq_pkt(s, SEQ_A, SEND_ONLY, 151, 64, &ackreq);
	for (uint32_t i = 0; i < after; i++)
		seq_pkt(s, SEQ_A, SEND_ONLY, 152 + i, 64, &ackreq);
	if (cnp) {
		seq_pkt(s, SEQ_B, CNP, 0, 16, &(struct seq_opt){ .becn = true, .zero_payload = true });
		for (uint32_t i = 0; i < 4; i++)
			seq_pkt(s, SEQ_A, SEND_ONLY, 152 + after + i, 64, &ackreq);
	}
	seq_finish(s);
	if (!seq_has(s, RT_RULE_SEQ_PSN, skip))
		seq_dump(s);
	ck_assert_msg(seq_has(s, RT_RULE_SEQ_PSN, skip), "no SEQ-PSN at frame %llu", (unsigned long long)skip);
	return skip;
}

/* The row drawn for frame (not a fold), or NULL. */
static const struct rt_ladder_event *row_of(const struct rt_flow_info *f, uint64_t frame)
{
	for (uint32_t i = 0; i < f->ladder_count; i++)
		if (f->ladder[i].frame == frame && !(f->ladder[i].flags & RT_LADDER_FOLD))
			return &f->ladder[i];
	return NULL;
}

/* Rows in frame order, every packet drawn, folded or counted exactly once. */
static void assert_ladder_whole(const struct rt_flow_info *f)
{
	uint64_t packets = f->ladder_dropped;
	for (uint32_t i = 0; i < f->ladder_count; i++) {
		const struct rt_ladder_event *e = &f->ladder[i];
		if (i)
			ck_assert_uint_le(f->ladder[i - 1].frame, e->frame);
		if (e->flags & RT_LADDER_FOLD) {
			ck_assert_uint_ge(e->fold_count, 2);
			ck_assert_uint_eq(e->fold_dir[0].count + e->fold_dir[1].count, e->fold_count);
			packets += e->fold_count;
		} else if (!e->folded) {
			packets++;
		}
	}
	ck_assert_uint_eq(packets, f->packets);
}

/* Marked a few packets after it went by: the row it was, arrow and all, cut out of its run. */
START_TEST(ladder_late_mark_recent_packet)
{
	struct seq s;
	uint64_t skip = run_skip(&s, 10, false);
	const struct rt_flow_info *f = rt_checker_flow(s.c, 0);
	assert_ladder_whole(f);
	const struct rt_ladder_event *row = row_of(f, skip);
	ck_assert_ptr_nonnull(row);
	ck_assert(row->flags & RT_LADDER_VIOLATION);
	ck_assert(!row->folded);
	ck_assert_uint_eq(row->opcode, SEND_ONLY);
	ck_assert_uint_eq(row->psn, 151);
	ck_assert_uint_eq(row->from_side, 0);
	/* The run before it folds with each direction's PSN range: requests 100..148, ACKs 100..147 or so. */
	const struct rt_ladder_event *fold = NULL;
	for (uint32_t i = 0; i < f->ladder_count && !fold; i++)
		if (f->ladder[i].flags & RT_LADDER_FOLD)
			fold = &f->ladder[i];
	ck_assert_ptr_nonnull(fold);
	ck_assert_uint_eq(fold->fold_dir[0].first_psn, 101);	/* 100 and its ACK are the run's head rows */
	ck_assert_uint_eq(fold->fold_dir[1].first_psn, 101);
	ck_assert_uint_eq(fold->fold_dir[0].last_psn, 148);	/* 149 and its ACK are the run's last rows */
	ck_assert_uint_eq(fold->fold_dir[1].last_psn, 148);
	ck_assert_uint_eq(fold->fold_dir[0].count, 48);
	ck_assert_uint_eq(fold->fold_count, 96);
	seq_free(&s);
}
END_TEST

/* The row of a packet marked after it was folded: marked, right after the fold that holds it. */
static const struct rt_ladder_event *folded_row_of(const struct rt_flow_info *f, uint64_t frame)
{
	assert_ladder_whole(f);
	const struct rt_ladder_event *row = row_of(f, frame);
	ck_assert_ptr_nonnull(row);
	ck_assert(row->folded);
	ck_assert(row->flags & RT_LADDER_VIOLATION);
	ck_assert(row > f->ladder);
	const struct rt_ladder_event *fold = row - 1;
	ck_assert(fold->flags & RT_LADDER_FOLD);
	ck_assert_uint_le(fold->frame, frame);
	ck_assert_uint_ge(fold->fold_last_frame, frame);
	ck_assert(row + 1 == f->ladder + f->ladder_count || row[1].frame > fold->fold_last_frame);
	return row;
}

/* Marked after the run had folded it (still the run under way at the end): a row of its own after the fold. */
START_TEST(ladder_late_mark_folded_packet)
{
	struct seq s;
	uint64_t skip = run_skip(&s, 200, false);
	folded_row_of(rt_checker_flow(s.c, 0), skip);
	seq_free(&s);
}
END_TEST

/* Marked after its run had ended and been drawn (a CNP came between): a row inserted after its fold. */
START_TEST(ladder_late_mark_drawn_fold)
{
	struct seq s;
	uint64_t skip = run_skip(&s, 200, true);
	const struct rt_flow_info *f = rt_checker_flow(s.c, 0);
	const struct rt_ladder_event *row = folded_row_of(f, skip);
	/* The CNP after the fold is a row of its own, drawn before the mark was decided. */
	bool cnp = false;
	for (const struct rt_ladder_event *e = row + 1; e < f->ladder + f->ladder_count; e++)
		cnp |= (e->flags & RT_LADDER_CNP) != 0;
	ck_assert(cnp);
	seq_free(&s);
}
END_TEST

/*
 * A front end's row (rt_checker_ladder_row, the diff's differences): a packet
 * long folded away gets an unmarked row right after its fold; one still in
 * the run's latest packets is cut out as the row it was; a frame the flow
 * draws already, a flow that does not exist and frame 0 change nothing.
 */
START_TEST(ladder_row_for_a_front_end)
{
	struct seq s;
	seq_init(&s);
	s.cfg.ladder_flows = 1;
	uint64_t frames[300];
	for (uint32_t i = 0; i < 300; i++) {
		frames[i] = seq_pkt(&s, SEQ_A, SEND_ONLY, 100 + i, 64, &(struct seq_opt){ .ack_req = true });
		seq_pkt(&s, SEQ_B, ACK, 100 + i, 0, &(struct seq_opt){ .msn = i + 1 });
	}
	const struct rt_flow_info *f = rt_checker_flow(s.c, 0);
	rt_checker_ladder_row(s.c, 1, frames[20]);	/* folded away */
	rt_checker_ladder_row(s.c, 1, frames[290]);	/* among the run's latest packets */
	rt_checker_ladder_row(s.c, 2, frames[30]);	/* no flow 2 */
	rt_checker_ladder_row(s.c, 0, frames[30]);
	rt_checker_ladder_row(s.c, 1, 0);
	seq_finish(&s);
	assert_ladder_whole(f);
	const struct rt_ladder_event *early = row_of(f, frames[20]), *late = row_of(f, frames[290]);
	ck_assert_ptr_nonnull(early);
	ck_assert_uint_eq(f->errors + f->warnings, 0);
	ck_assert(early->folded && !early->flags);
	ck_assert(early[-1].flags & RT_LADDER_FOLD);
	ck_assert_ptr_nonnull(late);
	ck_assert(!late->folded);
	ck_assert_uint_eq(late->psn, 390);
	ck_assert_uint_eq(late->opcode, SEND_ONLY);
	ck_assert_ptr_null(row_of(f, frames[30]));
	seq_free(&s);
}
END_TEST

/*
 * Past the row limits (a CNP every five messages makes rows that must be
 * drawn; 400 rows, then only such rows up to 600) with two PSN skips judged
 * at the end: one early, one in the last 100 messages (which have no CNP).
 * Every packet is still drawn, folded or counted as not drawn, once; below
 * the limits both skipped packets have their rows.
 */
START_TEST(ladder_row_limits_count_every_packet)
{
	for (uint32_t n = 300; n <= 1500; n += 1200) {
		struct seq s;
		seq_init(&s);
		s.cfg.ladder_flows = 1;
		uint32_t psn = 100;
		uint64_t skips[2] = { 0 };
		for (uint32_t m = 1; m <= n; m++, psn++) {
			bool skip = m == 50 || m == n - 90;
			psn += skip;
			uint64_t fr = seq_pkt(&s, SEQ_A, SEND_ONLY, psn, 64, &(struct seq_opt){ .ack_req = true });
			if (skip)
				skips[m != 50] = fr;
			if (m < 50)
				seq_pkt(&s, SEQ_B, ACK, psn, 0, &(struct seq_opt){ .msn = m });
			if (m % 5 == 0 && m <= n - 100)
				seq_pkt(&s, SEQ_B, CNP, 0, 16, &(struct seq_opt){ .becn = true, .zero_payload = true });
		}
		seq_finish(&s);
		ck_assert(seq_has(&s, RT_RULE_SEQ_PSN, skips[0]) && seq_has(&s, RT_RULE_SEQ_PSN, skips[1]));
		const struct rt_flow_info *f = rt_checker_flow(s.c, 0);
		assert_ladder_whole(f);
		ck_assert_uint_le(f->ladder_count, 600);
		if (n < 1000) {
			ck_assert_uint_eq(f->ladder_dropped, 0);
			ck_assert_ptr_nonnull(row_of(f, skips[0]));
			ck_assert_ptr_nonnull(row_of(f, skips[1]));
		} else {
			ck_assert_uint_eq(f->ladder_count, 600);
		}
		seq_free(&s);
	}
}
END_TEST

/* Every real capture: each flow's rows in frame order and every packet drawn, folded or counted once. */
START_TEST(ladder_real_captures_whole)
{
	glob_t g;
	ck_assert_int_eq(glob(CAPTURES_DIR "/*/*.pcap", 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 20);
	uint64_t folded = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct run r;
		run_capture(&r, g.gl_pathv[i]);
		for (size_t k = 0; k < rt_checker_flow_count(r.checker); k++) {
			const struct rt_flow_info *f = rt_checker_flow(r.checker, k);
			ck_assert((f->ladder != NULL) == (f->id <= 8));	/* run_start: the first 8 flows are drawn */
			if (f->ladder)
				assert_ladder_whole(f);
			for (uint32_t j = 0; j < f->ladder_count; j++)
				folded += (f->ladder[j].flags & RT_LADDER_FOLD) ? f->ladder[j].fold_count : 0;
		}
		run_free(&r);
	}
	ck_assert_uint_gt(folded, 1000);
	globfree(&g);
}
END_TEST

/* A fold label too long for the diagram (IPv6 addresses written out) is squeezed into its width. */
START_TEST(html_long_fold_label_fits)
{
	static const uint8_t a[16] = { 0xfd, 0, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
				       0x44, 0x44, 0x55, 0x55, 0x66, 0x66, 0x77, 0x71 };
	struct run r;
	run_start(&r);
	struct rt_build_spec s;
	for (uint32_t psn = 100; psn < 110; psn++) {
		request(&s, psn);
		s.ip_version = 6;
		memcpy(s.src_ip, a, 16);
		memcpy(s.dst_ip, a, 16);
		s.dst_ip[15] = 0x72;
		feed(&r, &s);
		ack(&s, psn, psn - 99);
		s.ip_version = 6;
		memcpy(s.src_ip, a, 16);
		s.src_ip[15] = 0x72;
		memcpy(s.dst_ip, a, 16);
		feed(&r, &s);
	}
	rt_checker_finish(r.checker);
	struct rt_report_file rf = { .file = "v6.pcap", .checker = r.checker, .violations = &r.list };
	char *html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, " textLength=\"844\" lengthAdjust=\"spacingAndGlyphs\"><title>frames 3&#8211;18</title>"
			      "\xE2\x80\xA6 16 ordinary packets: fd00:1111:2222:3333:4444:5555:6666:7771\xE2\x86\x92");
	free(html);
	run_free(&r);
	/* A short one is left as it is. */
	struct seq q;
	struct rt_violation_list l = { 0 };
	run_skip(&q, 10, false);
	rf = (struct rt_report_file){ .file = "v4.pcap", .checker = q.c, .violations = &l };
	html = write_to_string(rt_report_html, &rf, 1);
	text_assert_has(html, "<text class=\"fold\"");
	text_assert_lacks(html, "textLength");
	free(html);
	seq_free(&q);
}
END_TEST

/* The page: the violations first, each frame linked to its row's id in the ladder; the fold labelled per direction. */
START_TEST(html_violations_link_their_rows)
{
	static const struct { uint32_t after; bool cnp; } cases[] = { { 10, false }, { 200, false }, { 200, true } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct seq s;
		struct rt_violation_list l = { 0 };
		uint64_t skip = run_skip(&s, cases[i].after, cases[i].cnp);
		for (unsigned k = 0; k < s.nv; k++) {
			struct rt_violation v = { .rule = s.v[k].rule, .severity = rt_rule_info(s.v[k].rule)->severity,
						  .frame = s.v[k].frame, .flow = s.v[k].flow, .message = s.v[k].message };
			ck_assert_int_eq(rt_violation_list_add(&l, &v), 0);
		}
		struct rt_report_file rf = { .file = "skip.pcap", .checker = s.c, .violations = &l };
		char *html = write_to_string(rt_report_html, &rf, 1);
		char want[128];
		snprintf(want, sizeof want, "<tr><td class=\"n\"><a href=\"#f1-fr%llu\" ", (unsigned long long)skip);
		text_assert_has(html, want);
		snprintf(want, sizeof want, "<g id=\"f1-fr%llu\">", (unsigned long long)skip);
		ck_assert_uint_eq(text_count(html, want), 1);
		/* Every link has its target. */
		for (const char *p = html; (p = strstr(p, "href=\"#f1-fr")); p++) {
			char id[64];
			ck_assert_int_eq(sscanf(p, "href=\"#%63[^\"]", id), 1);
			snprintf(want, sizeof want, "<g id=\"%s\">", id);
			ck_assert_msg(strstr(html, want), "no row with id %s", id);
		}
		/* The list comes before the rule table and the ladders. */
		const char *list = strstr(html, "<h3 id=\"f1-violations\">");
		ck_assert_ptr_nonnull(list);
		ck_assert(strstr(html, "<h3 id=\"f1-rules\">") > list);
		ck_assert(strstr(html, "<svg class=\"ladder\"") > list);
		if (cases[i].after > 64)
			text_assert_has(html, ", in the fold above (judged after it was folded)</text>");
		else	/* the run before the skip, cut where the marked packet was */
			text_assert_has(html, "\xE2\x80\xA6 96 ordinary packets: 10.0.0.1\xE2\x86\x92" "10.0.0.2 PSN 101..148, "
					      "10.0.0.2\xE2\x86\x92" "10.0.0.1 PSN 101..148 \xE2\x80\xA6</text>");
		free(html);
		rt_violation_list_free(&l);
		seq_free(&s);
	}
}
END_TEST

/* ---- The shared helpers ------------------------------------------------------------------ */

static char *xml_of(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	rt_rep_xml(f, s);
	fclose(f);
	return text;
}

START_TEST(utf8_and_xml_escaping)
{
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"a"), 1);
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xC3\xA9"), 2);		/* é */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xE2\x82\xAC"), 3);		/* € */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xF0\x9F\x98\x80"), 4);	/* U+1F600 */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xC0\xAF"), 0);		/* overlong '/' */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xED\xA0\x80"), 0);		/* surrogate */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xEF\xBF\xBE"), 0);		/* U+FFFE */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xF4\x90\x80\x80"), 0);	/* > U+10FFFF */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\xE2\x82"), 0);		/* cut short */
	ck_assert_uint_eq(rt_rep_utf8_len((const unsigned char *)"\x80"), 0);

	char *x = xml_of("a<b>&\"c'\t\n\r\x1f\x7f\xC3\xA9\xFF");
	ck_assert_str_eq(x, "a&lt;b&gt;&amp;&quot;c&#39;&#9;&#10;&#13;\xEF\xBF\xBD\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD");
	free(x);
	x = xml_of(NULL);
	ck_assert_str_eq(x, "");
	free(x);

	/* Formatted text longer than the writer's stack buffer (a long path) is not cut. */
	char longname[1200], *text = NULL;
	size_t len = 0;
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	longname[600] = '&';
	FILE *f = open_memstream(&text, &len);
	rt_rep_xmlf(f, "<%s>", longname);
	fclose(f);
	ck_assert_uint_eq(len, sizeof longname - 1 + 4 + 4 + 4);	/* &lt; &gt; and &amp; for & */
	ck_assert_ptr_nonnull(strstr(text, "a&amp;a"));
	ck_assert_int_eq(strncmp(text + len - 7, "aaa&gt;", 7), 0);
	free(text);
}
END_TEST

START_TEST(formatting)
{
	char buf[64];
	rt_rep_reltime(1500, 1000, buf, sizeof buf);
	ck_assert_str_eq(buf, "500 ns");
	rt_rep_reltime(12345, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "12.345 us");
	rt_rep_reltime(4161000, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "4.161 ms");
	rt_rep_reltime(3210000999, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "3.210000 s");
	rt_rep_reltime(0, 2000, buf, sizeof buf);
	ck_assert_str_eq(buf, "-2.000 us");
	ck_assert_str_eq(rt_rep_basename("a/b/c.pcap"), "c.pcap");
	ck_assert_str_eq(rt_rep_basename("c.pcap"), "c.pcap");
	ck_assert_str_eq(rt_rep_basename("-"), "stdin");
	rt_rep_opcode(0x06, buf, sizeof buf);
	ck_assert_str_eq(buf, "RDMA WRITE First");
	rt_rep_opcode(0x81, buf, sizeof buf);
	ck_assert_str_eq(buf, "CNP");
	rt_rep_opcode(0x1f, buf, sizeof buf);
	ck_assert_str_eq(buf, "opcode 0x1f");
}
END_TEST

START_TEST(index_by_flow_and_rule)
{
	struct rt_violation_list l = { 0 };
	/* Frames in order; flows and rules mixed. */
	static const struct { uint32_t flow; enum rt_rule rule; enum rt_severity sev; } in[] = {
		{ 2, RT_RULE_PKT_ICRC, RT_SEV_ERROR }, { 1, RT_RULE_SEQ_PSN, RT_SEV_ERROR },
		{ 1, RT_RULE_PKT_ICRC, RT_SEV_ERROR }, { 0, RT_RULE_PKT_ICRC, RT_SEV_ERROR },
		{ 1, RT_RULE_PKT_ICRC, RT_SEV_WARNING }, { 2, RT_RULE_PKT_ICRC, RT_SEV_ERROR },
	};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		struct rt_violation v = { .rule = in[i].rule, .severity = in[i].sev, .frame = 10 + i, .flow = in[i].flow,
					  .message = "m" };
		ck_assert_int_eq(rt_violation_list_add(&l, &v), 0);
	}
	struct rt_rep_index ix;
	ck_assert_int_eq(rt_rep_index_build(&ix, &l), 0);
	size_t b, e;
	rt_rep_index_range(&ix, 2, RT_RULE_PKT_ICRC, &b, &e);
	ck_assert_uint_eq(e - b, 2);
	ck_assert_uint_eq(rt_rep_index_at(&ix, b)->frame, 10);	/* frame order within the pair */
	ck_assert_uint_eq(rt_rep_index_at(&ix, b + 1)->frame, 15);
	rt_rep_index_range(&ix, 1, RT_RULE_PKT_ICRC, &b, &e);
	ck_assert_uint_eq(e - b, 2);
	rt_rep_index_range(&ix, 3, RT_RULE_PKT_ICRC, &b, &e);
	ck_assert_uint_eq(e - b, 0);
	/* Split by severity; 5 counted but 2 kept: the other 3 take the rule's catalogue severity (error). */
	uint64_t err, warn;
	rt_rep_split(&ix, 1, RT_RULE_PKT_ICRC, 5, &err, &warn);
	ck_assert_uint_eq(err, 4);
	ck_assert_uint_eq(warn, 1);
	rt_rep_frame_range(&l, 13, &b, &e);
	ck_assert_uint_eq(e - b, 1);
	ck_assert_uint_eq(l.items[b].flow, 0);
	rt_rep_index_free(&ix);
	rt_violation_list_free(&l);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("writers");
	tcase_add_test(tc, real_capture_all_writers);
	tcase_add_test(tc, incomplete_capture_all_writers);
	tcase_add_test(tc, hostile_file_name_escaped);
	tcase_add_test(tc, junit_per_flow_failures_are_error_violations);
	tcase_add_test(tc, junit_one_case_per_rule);
	tcase_add_test(tc, html_marks_violations);
	tcase_add_test(tc, several_files);
	tcase_add_test(tc, write_error_reported);
	tcase_add_test(tc, no_violation_list);
	suite_add_tcase(s, tc);
	tc = tcase_create("ladder");
	tcase_add_test(tc, ladder_late_mark_recent_packet);
	tcase_add_test(tc, ladder_late_mark_folded_packet);
	tcase_add_test(tc, ladder_late_mark_drawn_fold);
	tcase_add_test(tc, ladder_row_for_a_front_end);
	tcase_add_test(tc, ladder_real_captures_whole);
	tcase_add_test(tc, ladder_row_limits_count_every_packet);
	tcase_add_test(tc, html_long_fold_label_fits);
	tcase_add_test(tc, html_violations_link_their_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("helpers");
	tcase_add_test(tc, utf8_and_xml_escaping);
	tcase_add_test(tc, formatting);
	tcase_add_test(tc, index_by_flow_and_rule);
	suite_add_tcase(s, tc);
	return s;
}
