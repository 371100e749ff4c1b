/* SPDX-License-Identifier: MIT */
/*
 * The JUnit XML of a run, for the test views of GitLab, Jenkins and GitHub:
 * a <testsuite> per suite (rocetest.run.SUITE, so that the run's suites sit
 * apart from `rocetest check`'s rocetest.FILE ones in a CI that shows
 * both), a <testcase> per test. What a person needs to follow up a test
 * goes in its <system-out>: the counts, the capture and the `rocetest check`
 * command that reproduces the checker's verdict on it. Validates against the
 * Jenkins junit-10 shape (harness/tests/integration/junit.xsd).
 */
#include <inttypes.h>
#include <math.h>

#include "rocetest/run_report.h"
#include "run_util.h"
#include "util.h"

/*
 * A failed test's <failure>, every finding its text, or an untimed test's
 * <skipped> (neither passed nor failed); the first line is the message, and
 * a test that did not pass always says so, even when the runner left no finding.
 */
static void write_not_passed(FILE *out, const struct rt_run_result *r)
{
	char first[256];
	rt_run_first_line(r->failure, first, sizeof first);
	fputs(r->untimed ? "      <skipped message=\"" : "      <failure type=\"conformance\" message=\"", out);
	rt_rep_xml(out, first[0] ? first : r->untimed ? "untimed" : "failed");
	if (r->untimed) {
		fputs("\"/>\n", out);
		return;
	}
	fputs("\">", out);
	rt_run_xml_lines(out, r->failure);
	fputs("</failure>\n", out);
}

static void write_system_out(FILE *out, const struct rt_run_summary *s, const struct rt_run_result *r)
{
	fprintf(out,
		"      <system-out>seed %" PRIu64 ", %" PRIu64 " cycles, %.3f us simulated\n"
		"%" PRIu32 " WRs, %" PRIu32 " completions, %" PRIu64 " payload bytes\n"
		"frames: %" PRIu32 " from the device, %" PRIu32 " to it\n"
		"device: %" PRIu32 " retransmissions, %" PRIu32 " timeouts, %" PRIu32 " NAKs, %" PRIu32
		" RNR NAKs\n"
		"link faults: %" PRIu64 " dropped, %" PRIu64 " duplicated, %" PRIu64 " reordered, %" PRIu64
		" corrupted\n"
		"checker: %" PRIu64 " errors, %" PRIu64 " warnings\n",
		r->seed, r->cycles, rt_run_nonneg(r->sim_us), r->wrs, r->completions, r->payload_bytes,
		r->frames_to_peer, r->frames_to_dut, r->retransmissions, r->timeouts, r->naks, r->rnr_naks,
		r->link_dropped, r->link_duplicated, r->link_reordered, r->link_corrupted, r->checker_errors,
		r->checker_warnings);
	if (r->has_goodput) {
		char op[32], size[32];
		rt_run_opcode_name(r->opcode, op, sizeof op);
		rt_run_size(r->msg_size, size, sizeof size);
		rt_rep_xmlf(out, "goodput: %s of %s: ", op, size);
		if (isfinite(r->goodput_gbps))
			fprintf(out, "%.2f Gb/s", r->goodput_gbps);
		else
			fputs("not measured", out);
		fprintf(out, " (limit %.2f Gb/s)\n", rt_run_nonneg(rt_run_limit(s, r)));
	}
	/* Line by line: rt_rep_xml would make a newline inside the text &#10;. */
	if (r->pcap[0]) {
		rt_rep_xmlf(out, "capture: %s", r->pcap);
		fputc('\n', out);
		rt_rep_xmlf(out, "reproduce: rocetest check %s%s%s", r->check_args, r->check_args[0] ? " " : "",
			    r->pcap);
		fputc('\n', out);
	} else if (r->check_args[0]) {
		rt_rep_xmlf(out, "rocetest check options: %s", r->check_args);
		fputc('\n', out);
	}
	if (r->html[0]) {
		rt_rep_xmlf(out, "ladder diagrams: %s", r->html);
		fputc('\n', out);
	}
	fputs("</system-out>\n", out);
}

static void write_case(FILE *out, const struct rt_run_summary *s, const struct rt_run_result *r)
{
	fputs("    <testcase name=\"", out);
	rt_rep_xml(out, r->name);
	fputs("\" classname=\"rocetest.run.", out);
	rt_rep_xml(out, r->suite);
	fprintf(out, "\" time=\"%.3f\">\n", rt_run_nonneg(r->wall_s));
	if (!r->passed)
		write_not_passed(out, r);
	write_system_out(out, s, r);
	fputs("    </testcase>\n", out);
}

static void property(FILE *out, const char *name, const char *value)
{
	fprintf(out, "      <property name=\"%s\" value=\"", name);
	rt_rep_xml(out, value);
	fputs("\"/>\n", out);
}

static void write_suite(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix,
			const struct rt_run_suite *su)
{
	fputs("  <testsuite name=\"rocetest.run.", out);
	rt_rep_xml(out, su->name);
	fprintf(out, "\" tests=\"%zu\" failures=\"%" PRIu64 "\" errors=\"0\" skipped=\"%" PRIu64 "\" time=\"%.3f\"",
		su->end - su->begin, su->failures, su->untimed, su->wall_s);
	if (s->started[0]) {
		fputs(" timestamp=\"", out);
		rt_rep_xml(out, s->started);
		fputc('"', out);
	}
	fputs(">\n    <properties>\n", out);
	char v[64];
	property(out, "dut", s->dut);
	property(out, "build_id", s->build_id);
	snprintf(v, sizeof v, "%" PRIu64, s->seed);
	property(out, "seed", v);
	snprintf(v, sizeof v, "%" PRIu32, s->pmtu);
	property(out, "pmtu", v);
	snprintf(v, sizeof v, "%g", rt_run_nonneg(s->line_gbps));
	property(out, "line_gbps", v);
	if (s->live) {
		property(out, "live_iface", s->live->iface);
		snprintf(v, sizeof v, "%" PRIu64, s->live->dropped + s->live->if_dropped);
		property(out, "live_capture_drops", v);
	}
	fputs("    </properties>\n", out);
	for (size_t i = su->begin; i < su->end; i++)
		write_case(out, s, rt_run_at(s, ix, i));
	fputs("  </testsuite>\n", out);
}

int rt_run_report_junit(const struct rt_run_summary *s, FILE *out)
{
	struct rt_run_index ix;
	if (rt_run_index_build(&ix, s))
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	/* The run's own wall time when known (it includes setting up), else what the tests took. */
	double secs = isfinite(s->wall_s) && s->wall_s > 0 ? s->wall_s : ix.wall_s;
	fprintf(out,
		"<testsuites name=\"rocetest run\" tests=\"%zu\" failures=\"%" PRIu64 "\" errors=\"0\" time=\"%.3f\">\n",
		s->tests ? s->n_tests : 0, ix.failures, secs);
	for (size_t k = 0; k < ix.n_suites; k++)
		write_suite(out, s, &ix, &ix.suites[k]);
	fputs("</testsuites>\n", out);
	rt_run_index_free(&ix);
	return rt_rep_finish(out);
}
