/* SPDX-License-Identifier: MIT */
/*
 * index.html of a run: one self-contained page (the look of `rocetest
 * check`'s, util.c's rt_rep_html_css; no request leaves it, not even a
 * script). The verdict and the run's facts; the goodput plot (run_plot.c)
 * and table; then a table per suite, its failed tests first with their
 * findings, every test linking its capture and the `rocetest check` page
 * that holds its ladder diagrams.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/run_report.h"
#include "run_util.h"
#include "util.h"

static const char css[] =
	"td.test{min-width:220px}td.test .name{font-weight:600}"
	".desc{color:var(--muted);font-size:12px;margin-top:1px}\n"
	"tr.failed td{background:#fff5f5}tr.failed td:first-child{box-shadow:inset 4px 0 0 var(--bad)}\n"
	"tr.finding td{background:#fff5f5;box-shadow:inset 4px 0 0 var(--bad)}\n"
	"pre.finding{margin:2px 0 4px;padding:6px 10px;background:#fff;border:1px solid #f1b0b0;border-radius:6px;"
	"white-space:pre-wrap;word-break:break-word;font-size:12.5px}\n"
	".swatch{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:6px}\n"
	".dash{color:#8a949e}\n";

static void write_head(FILE *out, const struct rt_run_summary *s)
{
	rt_rep_html_open(out, "rocetest run", false);
	fputs("rocetest run: ", out);
	rt_rep_xml(out, s->dut[0] ? s->dut : "device under test");
	fprintf(out, "</title>\n<style>\n%s%s%s</style>\n</head>\n<body>\n", rt_rep_html_css, rt_run_plot_css, css);
}

static void kv_text(FILE *out, const char *key, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", key);
	rt_rep_xml(out, value);
	fputs("</td></tr>\n", out);
}

/* Seconds for people: "812 ns" ... "3.210000 s" (rt_rep_reltime), "unknown" when not a number. */
static void format_seconds(double secs, char *buf, size_t size)
{
	if (isfinite(secs) && secs >= 0 && secs < 9e9)
		rt_rep_reltime((int64_t)llround(secs * 1e9), 0, buf, size);
	else
		snprintf(buf, size, "unknown");
}

static void write_run_facts(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix)
{
	size_t n = s->tests ? s->n_tests : 0;
	char v[96];
	fputs("<table class=\"kv\"><caption>Run</caption>\n", out);
	kv_text(out, "device", s->dut[0] ? s->dut : "unknown");
	kv_text(out, "built from", s->build_id[0] ? s->build_id : "unknown (the device does not say)");
	fprintf(out, "<tr><th>tests</th><td>%zu in %zu suite%s</td></tr>\n", n, ix->n_suites,
		ix->n_suites == 1 ? "" : "s");
	fprintf(out, "<tr><th>passed</th><td>%" PRIu64 "</td></tr>\n", (uint64_t)n - ix->failures - ix->untimed);
	fprintf(out, "<tr><th>failed</th><td%s>%" PRIu64 "</td></tr>\n", ix->failures ? " class=\"nz\"" : "",
		ix->failures);
	if (ix->untimed)
		fprintf(out, "<tr><th>untimed</th><td title=\"the harness answered too slowly for these tests' timers: "
			"neither passed nor failed\">%" PRIu64 "</td></tr>\n", ix->untimed);
	fprintf(out, "<tr><th>seed</th><td class=\"mono\">%" PRIu64 "</td></tr>\n", s->seed);
	kv_text(out, "started", s->started[0] ? s->started : "unknown");
	format_seconds(s->wall_s, v, sizeof v);
	kv_text(out, "wall time", v);
	fputs("</table>\n", out);
}

/* A board behind an interface: a lossy capture there would make every verdict doubtful. */
static void write_live_facts(FILE *out, const struct rt_run_live *l)
{
	char v[96];
	fputs("<table class=\"kv\"><caption>Live path</caption>\n", out);
	kv_text(out, "interface", l->iface);
	snprintf(v, sizeof v, "%" PRIu64 " from the board, %" PRIu64 " to it", l->frames_in, l->frames_out);
	kv_text(out, "frames", v);
	fprintf(out, "<tr><th>capture drops</th><td%s>%" PRIu64 " (buffer), %" PRIu64 " (interface)</td></tr>\n",
		l->dropped || l->if_dropped ? " class=\"nz\"" : "", l->dropped, l->if_dropped);
	kv_text(out, "timestamps", l->tstamp);
	if (l->slowdown > 1) {
		snprintf(v, sizeof v, "%g (virtual board), worst lag %" PRId64 " ns of its time", l->slowdown,
			 l->max_lag_ns);
		kv_text(out, "slowdown", v);
	}
	fputs("</table>\n", out);
}

static void write_sim_facts(FILE *out, const struct rt_run_summary *s, const struct rt_run_point *p, size_t n_p)
{
	char v[160];
	fputs("<table class=\"kv\"><caption>Simulation</caption>\n", out);
	bool clk = isfinite(s->clk_hz) && s->clk_hz > 0;
	if (clk)
		snprintf(v, sizeof v, "%g MHz", s->clk_hz / 1e6);
	kv_text(out, "device clock", clk ? v : "unknown");
	fprintf(out, "<tr><th>simulated cycles</th><td>%" PRIu64 "</td></tr>\n", s->cycles);
	if (clk) {
		format_seconds((double)s->cycles / s->clk_hz, v, sizeof v);
		kv_text(out, "simulated time", v);
	}
	/* The simulator's speed as a clock rate: what a reader compares with the device's real clock. */
	if (isfinite(s->cycles_per_s) && s->cycles_per_s > 0) {
		int len = snprintf(v, sizeof v, "%.0f cycles/s (%.3f MHz equivalent", s->cycles_per_s,
				   s->cycles_per_s / 1e6);
		if (clk && len > 0 && (size_t)len < sizeof v)
			snprintf(v + len, sizeof v - (size_t)len, ", 1/%.0f of real time)", s->clk_hz / s->cycles_per_s);
		else if (len > 0 && (size_t)len < sizeof v)
			snprintf(v + len, sizeof v - (size_t)len, ")");
		kv_text(out, "simulation speed", v);
	} else {
		kv_text(out, "simulation speed", "unknown");
	}
	if (isfinite(s->line_gbps) && s->line_gbps > 0)
		snprintf(v, sizeof v, "%g Gb/s", s->line_gbps);
	kv_text(out, "line rate", isfinite(s->line_gbps) && s->line_gbps > 0 ? v : "unknown");
	if (s->pmtu)
		fprintf(out, "<tr><th>PMTU</th><td>%" PRIu32 "</td></tr>\n", s->pmtu);
	double w64 = rt_run_write_64k(p, n_p);
	if (isfinite(w64)) {
		snprintf(v, sizeof v, "%.2f Gb/s", w64);
		kv_text(out, "WRITE 64 KB goodput", v);
	}
	fputs("</table>\n", out);
}

/* A verdict: failed over untimed over passed. */
static void status_pill(FILE *out, uint64_t failures, uint64_t untimed)
{
	if (failures)
		fputs("<span class=\"st st-fail\">fail</span>", out);
	else if (untimed)
		fputs("<span class=\"st st-warn\" title=\"timed the harness as much as the device\">untimed</span>",
		      out);
	else
		fputs("<span class=\"st st-pass\">pass</span>", out);
}

static void write_suite_overview(FILE *out, const struct rt_run_index *ix)
{
	fputs("<table class=\"grid\" style=\"width:auto\"><caption class=\"sub\" style=\"text-align:left\">Suites"
	      "</caption>\n<tr><th>suite</th><th>verdict</th><th class=\"n\">tests</th><th class=\"n\">failed</th>"
	      "<th class=\"n\">wall time</th></tr>\n",
	      out);
	char took[40];
	for (size_t k = 0; k < ix->n_suites; k++) {
		const struct rt_run_suite *su = &ix->suites[k];
		fprintf(out, "<tr><td><a href=\"#s%zu\">", k + 1);
		rt_rep_xml(out, su->name);
		fputs("</a></td><td>", out);
		status_pill(out, su->failures, su->untimed);
		fputs("</td>", out);
		rt_rep_html_count_cell(out, su->end - su->begin, false);
		rt_rep_html_count_cell(out, su->failures, true);
		format_seconds(su->wall_s, took, sizeof took);
		fprintf(out, "<td class=\"n\">%s</td></tr>\n", took);
	}
	fputs("</table>\n", out);
}

static void write_summary(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix,
			  const struct rt_run_point *p, size_t n_p)
{
	size_t n = s->tests ? s->n_tests : 0;
	char detail[96];
	snprintf(detail, sizeof detail, "%zu test%s, %" PRIu64 " failed", n, n == 1 ? "" : "s", ix->failures);
	if (ix->untimed)
		snprintf(detail + strlen(detail), sizeof detail - strlen(detail), ", %" PRIu64 " untimed", ix->untimed);
	fputs("<div class=\"summary\">\n", out);
	/* A run that ran nothing proves nothing: not a pass. */
	rt_rep_html_verdict(out, n && !ix->failures, !n ? "NO TESTS" : ix->failures ? "FAIL" : "PASS", detail);
	write_run_facts(out, s, ix);
	write_sim_facts(out, s, p, n_p);
	if (s->live)
		write_live_facts(out, s->live);
	if (ix->n_suites)
		write_suite_overview(out, ix);
	fputs("</div>\n", out);
}

/* ---- Goodput --------------------------------------------------------------- */

static void write_goodput_table(FILE *out, const struct rt_run_summary *s, const struct rt_run_point *p, size_t n)
{
	fputs("<table class=\"grid\" style=\"width:auto\">\n<tr><th>opcode</th><th class=\"n\">message size</th>"
	      "<th class=\"n\">Gb/s</th><th class=\"n\">limit, Gb/s</th><th class=\"n\">% of limit</th><th>test</th>"
	      "</tr>\n",
	      out);
	char name[32], size[32];
	for (size_t i = 0; i < n; i++) {
		const struct rt_run_result *r = p[i].r;
		rt_run_opcode_name(r->opcode, name, sizeof name);
		rt_run_size(r->msg_size, size, sizeof size);
		fprintf(out, "<tr><td class=\"nw\"><span class=\"swatch\" style=\"background:%s\"></span>%s</td>",
			rt_run_series_colour(r->opcode), name);
		fprintf(out, "<td class=\"n\" title=\"%" PRIu32 " bytes\">%s</td>", r->msg_size, size);
		if (isfinite(p[i].gbps))
			fprintf(out, "<td class=\"n\">%.2f</td>", p[i].gbps);
		else
			fputs("<td class=\"n\"><span class=\"dash\">not measured</span></td>", out);
		if (p[i].limit > 0)
			fprintf(out, "<td class=\"n\">%.2f</td>", p[i].limit);
		else
			fputs("<td class=\"n\"><span class=\"dash\">&#8212;</span></td>", out);
		if (p[i].limit > 0 && isfinite(p[i].gbps))
			fprintf(out, "<td class=\"n\">%.1f</td>", 100 * p[i].gbps / p[i].limit);
		else
			fputs("<td class=\"n\"><span class=\"dash\">&#8212;</span></td>", out);
		fprintf(out, "<td><a href=\"#t%zu\">", (size_t)(r - s->tests));
		rt_rep_xmlf(out, "%s/%s", r->suite, r->name);
		fputs("</a></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void write_goodput(FILE *out, const struct rt_run_summary *s, const struct rt_run_point *p, size_t n)
{
	fputs("<h2 id=\"goodput\">Goodput</h2>\n", out);
	if (!n) {
		fputs("<p>No throughput test ran in this run, so there is no goodput to plot.</p>\n", out);
		return;
	}
	fputs("<p class=\"sub\">Application payload over the time from a test's first frame to its last. ", out);
	if (isfinite(s->line_gbps) && s->line_gbps > 0 && s->pmtu)
		fprintf(out,
			"Dashed: what a perfect requester reaches on the %g Gb/s line at PMTU %" PRIu32
			" (Ethernet, IPv4, UDP, BTH, RETH and ImmDt where the opcode has them, pad, ICRC, FCS, "
			"preamble and inter-frame gap on every frame); each step down is a message one byte past "
			"a PMTU multiple, which pays for one more frame.",
			s->line_gbps, s->pmtu);
	else
		fputs("The line-rate limit is not drawn: the run did not say its line rate and PMTU.", out);
	fputs(" Hover a point for its numbers.</p>\n", out);
	rt_run_plot(out, s, p, n);
	write_goodput_table(out, s, p, n);
}

/* ---- Suites ---------------------------------------------------------------- */

static void dash(FILE *out)
{
	fputs("<span class=\"dash\">&#8212;</span>", out);
}

static void file_link(FILE *out, const char *href, const char *text, const char *title)
{
	fputs("<a href=\"", out);
	rt_rep_xml(out, href);
	fputs("\" title=\"", out);
	rt_rep_xml(out, title);
	fputs("\">", out);
	rt_rep_xml(out, text);
	fputs("</a> ", out);
}

static void test_cell(FILE *out, const struct rt_run_result *r)
{
	fputs("<td class=\"test\"><div class=\"name mono\">", out);
	rt_rep_xml(out, r->name);
	fputs("</div>", out);
	if (r->description[0]) {
		fputs("<div class=\"desc\">", out);
		rt_rep_xml(out, r->description);
		fputs("</div>", out);
	}
	if (r->has_goodput) {
		char name[32], size[32];
		rt_run_opcode_name(r->opcode, name, sizeof name);
		rt_run_size(r->msg_size, size, sizeof size);
		fputs("<span class=\"badge\">", out);
		rt_rep_xmlf(out, "%s %s: ", name, size);
		if (isfinite(r->goodput_gbps))
			fprintf(out, "%.2f Gb/s", r->goodput_gbps);
		else
			fputs("not measured", out);
		fputs("</span>", out);
	}
	fputs("</td>", out);
}

static void device_cell(FILE *out, const struct rt_run_result *r)
{
	fputs("<td>", out);
	rt_rep_html_badge(out, NULL, r->retransmissions, "retransmission", "retransmissions");
	rt_rep_html_badge(out, NULL, r->timeouts, "timeout", "timeouts");
	rt_rep_html_badge(out, NULL, r->naks, "NAK", "NAKs");
	rt_rep_html_badge(out, NULL, r->rnr_naks, "RNR NAK", "RNR NAKs");
	rt_rep_html_badge(out, NULL, r->underrun_cycles, "TX underrun cycle", "TX underrun cycles");
	if (!r->retransmissions && !r->timeouts && !r->naks && !r->rnr_naks && !r->underrun_cycles)
		dash(out);
	fprintf(out, "<div class=\"mono\" title=\"the device's memory latency (cycles) and back-pressure in this "
		"test\">mem %" PRIu32 ", stall %.2f</div>", r->mem_latency, r->p_stall);
	fputs("</td>", out);
}

static void link_cell(FILE *out, const struct rt_run_result *r)
{
	fputs("<td>", out);
	rt_rep_html_badge(out, NULL, r->link_dropped, "dropped", "dropped");
	rt_rep_html_badge(out, NULL, r->link_duplicated, "duplicated", "duplicated");
	rt_rep_html_badge(out, NULL, r->link_reordered, "reordered", "reordered");
	rt_rep_html_badge(out, NULL, r->link_corrupted, "corrupted", "corrupted");
	if (!r->link_dropped && !r->link_duplicated && !r->link_reordered && !r->link_corrupted)
		dash(out);
	fputs("</td>", out);
}

static void checker_cell(FILE *out, const struct rt_run_result *r)
{
	fputs("<td>", out);
	rt_rep_html_badge(out, "err", r->checker_errors, "error", "errors");
	rt_rep_html_badge(out, "warn", r->checker_warnings, "warning", "warnings");
	if (!r->checker_errors && !r->checker_warnings)
		fputs("<span class=\"badge ok\">conformant</span>", out);
	fputs("</td>", out);
}

static void files_cell(FILE *out, const struct rt_run_result *r)
{
	fputs("<td class=\"nw\">", out);
	if (r->pcap[0])
		file_link(out, r->pcap, "capture", r->pcap);
	if (r->html[0])
		file_link(out, r->html, "ladders", "the capture's rocetest check report, with its ladder diagrams");
	if (!r->pcap[0] && !r->html[0])
		dash(out);
	fputs("</td>", out);
}

enum { SUITE_COLUMNS = 9 };

static void test_row(FILE *out, const struct rt_run_summary *s, const struct rt_run_result *r)
{
	fprintf(out, "<tr id=\"t%zu\"%s>", (size_t)(r - s->tests), rt_run_failed(r) ? " class=\"failed\"" : "");
	test_cell(out, r);
	fputs("<td>", out);
	status_pill(out, rt_run_failed(r), r->untimed);
	fputs("</td>", out);
	fprintf(out, "<td class=\"n nw\">%" PRIu32 " / %" PRIu32 "</td><td class=\"n nw\">%" PRIu32 " / %" PRIu32 "</td>",
		r->wrs, r->completions, r->frames_to_peer, r->frames_to_dut);
	device_cell(out, r);
	link_cell(out, r);
	checker_cell(out, r);
	char when[40];
	format_seconds(isfinite(r->sim_us) ? r->sim_us / 1e6 : NAN, when, sizeof when);
	fprintf(out, "<td class=\"n nw\" title=\"%" PRIu64 " cycles, seed %" PRIu64 "\">%s</td>", r->cycles, r->seed,
		when);
	files_cell(out, r);
	fputs("</tr>\n", out);
	if (r->passed)
		return;
	fprintf(out, "<tr class=\"finding\"><td colspan=\"%d\"><pre class=\"finding\">", SUITE_COLUMNS);
	rt_run_xml_lines(out, r->failure[0] ? r->failure : "failed (the runner gave no reason)");
	fputs("</pre>", out);
	if (r->pcap[0]) {
		fputs("<div class=\"sub\">reproduce the checker's verdict: <code>rocetest check ", out);
		if (r->check_args[0]) {
			rt_rep_xml(out, r->check_args);
			fputc(' ', out);
		}
		rt_rep_xml(out, r->pcap);
		fputs("</code></div>", out);
	}
	fputs("</td></tr>\n", out);
}

static void write_suite(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix, size_t k)
{
	const struct rt_run_suite *su = &ix->suites[k];
	size_t n = su->end - su->begin;
	fprintf(out, "<section id=\"s%zu\">\n<h2>", k + 1);
	rt_rep_xml(out, su->name);
	fprintf(out, " <span class=\"sub\">%zu test%s, ", n, n == 1 ? "" : "s");
	if (su->failures)
		fprintf(out, "<span class=\"nz\">%" PRIu64 " failed</span>", su->failures);
	else if (!su->untimed)
		fputs("all passed", out);
	if (su->untimed)
		fprintf(out, "%s%" PRIu64 " untimed", su->failures ? ", " : "", su->untimed);
	fputs("</span></h2>\n<table class=\"grid\">\n<tr><th>test</th><th>verdict</th>"
	      "<th class=\"n\" title=\"work requests posted / completions\">WRs</th>"
	      "<th class=\"n\" title=\"frames the device sent / frames the harness sent it\">frames</th>"
	      "<th title=\"the device's counters\">device</th><th title=\"faults the simulated link applied\">link"
	      "</th><th>checker</th><th class=\"n\">sim time</th><th>files</th></tr>\n",
	      out);
	/* Failed tests first: the reason to open the page. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = su->begin; i < su->end; i++) {
			const struct rt_run_result *r = rt_run_at(s, ix, i);
			if (r->passed == (pass == 1))
				test_row(out, s, r);
		}
	fputs("</table>\n</section>\n", out);
}

int rt_run_report_html(const struct rt_run_summary *s, FILE *out)
{
	struct rt_run_view v;
	if (rt_run_view_build(&v, s))
		return -1;
	write_head(out, s);
	fputs("<header>\n<h1>rocetest run <span class=\"files\">", out);
	rt_rep_xml(out, s->dut);
	fputs("</span></h1>\n<p class=\"sub\">RoCEv2 conformance of the device under test: the harness plays the "
	      "remote side, a simulated link between them applies each test's faults, and every test's capture "
	      "goes through the conformance checker. Each test links its capture and that check's page with the "
	      "ladder diagrams.</p>\n</header>\n",
	      out);
	write_summary(out, s, &v.ix, v.points, v.n_points);
	write_goodput(out, s, v.points, v.n_points);
	if (!v.ix.n_suites)
		fputs("<p>No test ran.</p>\n", out);
	for (size_t k = 0; k < v.ix.n_suites; k++)
		write_suite(out, s, &v.ix, k);
	fputs("</body>\n</html>\n", out);
	rt_run_view_free(&v);
	return rt_rep_finish(out);
}
