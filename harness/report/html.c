/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: one self-contained page for people. Per capture: the
 * verdict, the counts and the configuration; the first violations, each
 * linked to its frame's row in the ladder; the rule table; then per flow its
 * endpoints, notes, the rules that failed or could not be evaluated, and an
 * SVG ladder diagram of its packets (each packet row's id is fN-frM: file N,
 * frame M).
 *
 * Self-contained means no request leaves the page: inline CSS, inline SVG,
 * system fonts, and a Content-Security-Policy that forbids loading anything
 * should a future change slip in a URL. The few lines of script only fold
 * and unfold the flows (and open the flow a link points into); with script
 * off every flow is open and readable.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/report.h"
#include "rocetest/describe.h"
#include "util.h"

/* Rows of the first-violations table; the rest are counted. */
#define HTML_MAX_VIOLATIONS 200

/* ---- Ladder geometry (SVG user units, 1 = 1 px at full size) ----------- */
enum {
	LAD_W = 1000,		/* whole diagram */
	LAD_FRAME_X = 62,	/* frame numbers, right-aligned */
	LAD_MARK_X = 78,	/* the violation marker's centre */
	LAD_LEFT = 230,		/* side 0's lifeline */
	LAD_RIGHT = 690,	/* side 1's lifeline */
	LAD_TIME_X = 706,	/* times, left-aligned */
	LAD_ISSUE_X = 800,	/* rule IDs of the violations at the row */
	LAD_HEAD = 62,		/* endpoint labels and column heads above the first row */
	LAD_ROW = 22,		/* one row: kept small so a 600-row ladder stays drawable */
	LAD_FOOT = 10,
	LAD_ISSUE_CHARS = 30,	/* what fits right of LAD_ISSUE_X */
};

/*
 * Arrow kinds, in the order that decides which wins when a row has several
 * flags (a retransmitted packet that also breaks a rule is drawn as a
 * violation, and dashed). One table gives the CSS, the markers and the legend.
 */
enum arrow_kind { K_VIOL, K_NAK, K_RNR, K_RTX, K_WARN, K_CNP, K_SIDE0, K_SIDE1, K_COUNT };

static const struct {
	const char *cls;	/* CSS class suffix and marker id suffix */
	const char *colour;
	const char *legend;
} kinds[K_COUNT] = {
	[K_VIOL] = { "viol", "#d32f2f", "breaks a rule (error)" },
	[K_NAK] = { "nak", "#c62828", "NAK" },
	[K_RNR] = { "rnr", "#ef6c00", "RNR NAK" },
	[K_RTX] = { "rtx", "#7b1fa2", "retransmission (dashed)" },
	[K_WARN] = { "warn", "#b7791f", "warning" },
	[K_CNP] = { "cnp", "#8a8f98", "CNP" },
	[K_SIDE0] = { "s0", "#1f5fa8", "from the left endpoint" },
	[K_SIDE1] = { "s1", "#2e7d5b", "from the right endpoint" },
};

static enum arrow_kind arrow_kind(const struct rt_ladder_event *ev)
{
	if (ev->flags & RT_LADDER_VIOLATION)
		return K_VIOL;
	if (ev->flags & RT_LADDER_NAK)
		return K_NAK;
	if (ev->flags & RT_LADDER_RNR)
		return K_RNR;
	if (ev->flags & RT_LADDER_RETRANSMIT)
		return K_RTX;
	if (ev->flags & RT_LADDER_WARNING)
		return K_WARN;
	if (ev->flags & RT_LADDER_CNP)
		return K_CNP;
	return ev->from_side ? K_SIDE1 : K_SIDE0;
}

/* What one file's section needs while it is written. */
struct hfile {
	const struct rt_report_file *rf;
	const struct rt_rep_index *ix;
	size_t number;		/* 1-based, for element ids */
};

/* ---- Page frame --------------------------------------------------------- */

/* What only this page draws; the look it shares with the run report is rt_rep_html_css (util.c). */
static const char css[] =
	".sev-error{color:#3a444d}.sev-warning{color:var(--warn)}\n"
	"ul.notes{background:#fff8e1;border-left:4px solid #f2c14e;margin:8px 0;padding:6px 12px 6px 30px}\n"
	"details.flow{border:1px solid var(--line);border-radius:10px;margin:14px 0;padding:0 16px 12px}\n"
	"details.flow.bad{border-left:5px solid var(--bad)}details.flow.warned{border-left:5px solid #f2c14e}\n"
	"details.flow>summary{cursor:pointer;padding:10px 0 6px;font-size:15px}\n"
	"details.flow>summary .ends{font-weight:600}\n"
	".ladder{overflow-x:auto;margin-top:10px}\n"
	"svg.ladder{display:block;max-width:100%;height:auto;background:#fff}\n"
	"svg text{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,'DejaVu Sans Mono',monospace;"
	"font-size:11px;fill:#333}\n"
	"svg .head{font-size:12px;font-weight:700;fill:#1d2328}svg .qp{fill:#5f6b76}\n"
	"svg .life{stroke:#9aa5b1;stroke-width:1.5}svg .lifegap{stroke:#fff;stroke-width:5}"
	"svg .lifedot{stroke:#9aa5b1;stroke-width:1.5;stroke-dasharray:1 4}\n"
	"svg .zebra{fill:#f6f8fa}svg .bg-viol{fill:#fde7e7}svg .bg-warn{fill:#fff4d6}\n"
	"svg .frame,svg .time{fill:#5f6b76}svg .fold{fill:#6b7680;font-style:italic}\n"
	"svg .arrow{stroke-width:1.6;fill:none}svg .thick{stroke-width:3.2}svg .dash{stroke-dasharray:7 4}\n"
	"svg .issue{font-weight:700}svg .icrc{fill:#d32f2f;font-weight:700}\n"
	"svg .mark{fill:#d32f2f}svg .marktext{fill:#fff;font-weight:800;font-size:11px}\n"
	"svg g:target .frame{fill:#d32f2f;font-weight:800}svg g:target .arrow{stroke-width:4}\n"
	".tools{display:none;margin:6px 0}.js .tools{display:block}\n"
	".tools button{font:inherit;font-size:12.5px;padding:2px 10px;margin-right:6px;border:1px solid var(--line);"
	"background:var(--bg2);border-radius:6px;cursor:pointer}\n"
	"@media print{.tools{display:none!important}details.flow{border-width:1px 0 0;border-radius:0;padding:0}"
	"summary{break-after:avoid}ul.notes{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static void write_kind_css(FILE *out)
{
	for (int k = 0; k < K_COUNT; k++)
		fprintf(out, "svg .k-%s{stroke:%s}svg .t-%s{fill:%s}\n", kinds[k].cls, kinds[k].colour, kinds[k].cls,
			kinds[k].colour);
}

/* Arrowheads, once per page: every ladder refers to them by id. */
static void write_markers(FILE *out)
{
	fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\n", out);
	for (int k = 0; k < K_COUNT; k++)
		fprintf(out,
			"<marker id=\"rt-ah-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"9\" "
			"markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 "
			"z\" fill=\"%s\"/></marker>\n",
			kinds[k].cls, kinds[k].colour);
	fputs("</defs></svg>\n", out);
}

static void write_title(FILE *out, const struct rt_report_file *files, size_t n)
{
	for (size_t i = 0; i < n && i < 3; i++) {
		fputs(i ? ", " : "", out);
		rt_rep_xml(out, files[i].file);
	}
	if (n > 3)
		fprintf(out, " and %zu more", n - 3);
}

static void write_head(FILE *out, const struct rt_report_file *files, size_t n)
{
	rt_rep_html_open(out, "rocetest check", true);
	fputs("rocetest check: ", out);
	write_title(out, files, n);
	fprintf(out, "</title>\n<style>\n%s%s", rt_rep_html_css, css);
	write_kind_css(out);
	fputs("</style>\n<script>\ndocument.documentElement.className = 'js';\n"
	      "function rtFold(open) {\n"
	      "\tdocument.querySelectorAll('details.flow').forEach(function (d) { d.open = open; });\n}\n"
	      "window.addEventListener('beforeprint', function () { rtFold(true); });\n"
	      "function rtOpenTarget() {\n"
	      "\tvar t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));\n"
	      "\tfor (var d = t; d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;\n"
	      "\tif (t) t.scrollIntoView({ block: 'center' });\n}\n"
	      "window.addEventListener('hashchange', rtOpenTarget);\n"
	      "</script>\n</head>\n<body>\n",
	      out);
}

/* ---- Small pieces --------------------------------------------------------- */

/*
 * The verdict box: PASS or FAIL by the error count, or a red INCOMPLETE with
 * the reason when the capture was not checked to its end (reason set).
 */
static void verdict_box(FILE *out, uint64_t errors, uint64_t warnings, const char *reason)
{
	char detail[80];
	snprintf(detail, sizeof detail, "%" PRIu64 " error%s, %" PRIu64 " warning%s", errors, errors == 1 ? "" : "s",
		 warnings, warnings == 1 ? "" : "s");
	if (!reason) {
		rt_rep_html_verdict(out, !errors, errors ? "FAIL" : "PASS", detail);
		return;
	}
	size_t len = strlen(reason) + sizeof detail + 64;
	char *why = malloc(len);
	if (why)
		snprintf(why, len, "%s (%s in what was checked)", reason, detail);
	rt_rep_html_verdict(out, false, "INCOMPLETE", why ? why : reason);
	free(why);
}

static void kv_u64(FILE *out, const char *key, uint64_t value, bool alarm)
{
	fprintf(out, "<tr><th>%s</th><td%s>%" PRIu64 "</td></tr>\n", key, alarm && value ? " class=\"nz\"" : "",
		value);
}

static void status_cell(FILE *out, const char *status)
{
	fprintf(out, "<td><span class=\"st st-%s\">%s</span></td>", status,
		!strcmp(status, "not_evaluated") ? "not evaluated" : status);
}

/*
 * A rule's status in a table. "not evaluated" covers two cases a reader
 * should tell apart: the rule met packets it could not judge (a gap to
 * close), and the capture held nothing it applies to (nothing to do).
 */
static void rule_status_cell(FILE *out, const struct rt_check_config *cfg, const struct rt_rule_counts *rc,
			     enum rt_rule rule)
{
	if (rc->checked[rule] || rc->not_evaluated[rule] || rc->violations[rule]) {
		status_cell(out, rt_rule_status(rc, rule));
		return;
	}
	char why[160];
	rt_rep_why_not_evaluated(cfg, rule, 0, why, sizeof why);
	if (rt_check_config_missing(cfg, rule) && (strncmp(why, "needs ", 6) == 0 || !rt_rule_implemented(rule))) {
		fputs("<td class=\"nw\"><span class=\"st st-not_evaluated\">not evaluated</span> <span class=\"sub\">", out);
		rt_rep_xml(out, why);
		fputs("</span></td>", out);
	} else {
		fputs("<td><span class=\"st st-none\">nothing to check</span></td>", out);
	}
}

static void flow_link(FILE *out, const struct hfile *hf, uint32_t flow)
{
	if (flow)
		fprintf(out, "<a href=\"#f%zu-flow%" PRIu32 "\">%" PRIu32 "</a>", hf->number, flow, flow);
	else
		fputs("&#8212;", out);
}

/* ---- Summary, rules, violations --------------------------------------------- */

static void write_config(FILE *out, const struct rt_checker *c)
{
	const struct rt_check_config *cfg = rt_checker_config(c);
	int enabled = 0;
	for (int r = 0; r < RT_RULE_COUNT; r++)
		enabled += cfg->enabled[r];
	fputs("<table class=\"kv\"><caption>Configuration</caption>\n<tr><th>PMTU</th><td>", out);
	if (cfg->pmtu)
		fprintf(out, "%" PRIu32 " (given)", cfg->pmtu);
	else
		fputs("inferred per flow from its First/Middle packets", out);
	fputs("</td></tr>\n<tr><th>local ACK timeout</th><td>", out);
	if (cfg->have_timeout && isfinite(cfg->timeout_us))
		fprintf(out, "%g us", cfg->timeout_us);
	else
		fputs("unknown", out);
	fputs("</td></tr>\n<tr><th>retry_cnt</th><td>", out);
	if (cfg->retry_cnt >= 0)
		fprintf(out, "%d", cfg->retry_cnt);
	else
		fputs("unknown", out);
	fputs("</td></tr>\n<tr><th>rnr_retry</th><td>", out);
	if (cfg->rnr_retry >= 0)
		fprintf(out, "%d%s", cfg->rnr_retry, cfg->rnr_retry == 7 ? " (unlimited)" : "");
	else
		fputs("unknown", out);
	fprintf(out, "</td></tr>\n<tr><th>rules enabled</th><td>%d of %d</td></tr>\n</table>\n", enabled,
		RT_RULE_COUNT);
}

static void write_summary(FILE *out, const struct hfile *hf)
{
	const struct rt_checker *c = hf->rf->checker;
	const struct rt_check_totals *t = rt_checker_totals(c);
	fputs("<div class=\"summary\">\n", out);
	verdict_box(out, t->errors, t->warnings, hf->rf->incomplete);
	fputs("<table class=\"kv\"><caption>Capture</caption>\n", out);
	kv_u64(out, "frames", t->frames, false);
	kv_u64(out, "RoCE packets", t->roce_packets, false);
	kv_u64(out, "not RoCE (skipped)", t->not_roce, false);
	kv_u64(out, "truncated by snap length", t->truncated, false);
	kv_u64(out, "malformed", t->malformed, true);
	kv_u64(out, "flows", rt_checker_flow_count(c), false);
	kv_u64(out, "packets of untracked flows", t->untracked, false);
	kv_u64(out, "errors", t->errors, true);
	kv_u64(out, "warnings", t->warnings, false);
	char took[40];
	rt_rep_reltime((int64_t)(rt_rep_seconds(hf->rf) * 1e9), 0, took, sizeof took);
	fprintf(out, "<tr><th>check time</th><td>%s</td></tr>\n</table>\n", took);
	write_config(out, c);
	fputs("</div>\n", out);
}

static void write_rule_table(FILE *out, const struct hfile *hf)
{
	const struct rt_checker *c = hf->rf->checker;
	const struct rt_check_config *cfg = rt_checker_config(c);
	const struct rt_rule_counts *t = &rt_checker_verdicts(c)->total;
	fprintf(out, "<h3 id=\"f%zu-rules\">Rules</h3>\n<table class=\"grid\">\n<tr><th>rule</th><th>severity</th>"
		"<th class=\"n\">checked</th><th class=\"n\">violations</th><th class=\"n\">not evaluated</th>"
		"<th>status</th><th class=\"text\">what it says</th></tr>\n",
		hf->number);
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		if (!cfg->enabled[r])
			continue;
		const struct rt_rule_info *ri = rt_rule_info((enum rt_rule)r);
		fprintf(out, "<tr><td class=\"id\">%s</td><td class=\"sev-%s\">%s</td>", ri->id,
			rt_severity_name(ri->severity), rt_severity_name(ri->severity));
		rt_rep_html_count_cell(out, t->checked[r], false);
		rt_rep_html_count_cell(out, t->violations[r], true);
		rt_rep_html_count_cell(out, t->not_evaluated[r], false);
		rule_status_cell(out, cfg, t, (enum rt_rule)r);
		/* One line per rule, cut with an ellipsis; the full text on hover. Left out in print (rules.md has it). */
		fputs("<td class=\"text\" title=\"", out);
		rt_rep_xml(out, ri->text);
		fputs("\">", out);
		rt_rep_xml(out, ri->text);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The frame's own row in the flow's ladder, or NULL when the ladder does not draw it. */
static const struct rt_ladder_event *ladder_row_of(const struct hfile *hf, uint32_t flow, uint64_t frame)
{
	const struct rt_checker *c = hf->rf->checker;
	if (!flow || flow > rt_checker_flow_count(c))
		return NULL;
	const struct rt_flow_info *f = rt_checker_flow(c, flow - 1);
	/* Rows are in frame order (a fold sorts by its first frame, the rows marked inside it after it). */
	uint32_t lo = 0, hi = f->ladder ? f->ladder_count : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->ladder[mid].frame < frame || (f->ladder[mid].frame == frame && (f->ladder[mid].flags & RT_LADDER_FOLD)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->ladder_count && f->ladder[lo].frame == frame ? &f->ladder[lo] : NULL;
}

static void violation_row(FILE *out, const struct hfile *hf, const struct rt_report_violation *v)
{
	if (ladder_row_of(hf, v->flow, v->frame))
		fprintf(out, "<tr><td class=\"n\"><a href=\"#f%zu-fr%" PRIu64 "\" title=\"its row in the ladder of flow %" PRIu32
			"\">%" PRIu64 "</a></td><td class=\"n\">",
			hf->number, v->frame, v->flow, v->frame);
	else
		fprintf(out, "<tr><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", v->frame);
	flow_link(out, hf, v->flow);
	fprintf(out, "</td><td class=\"id\">%s</td><td class=\"sev-%s\">%s</td><td class=\"msg\">",
		rt_rule_info(v->rule)->id, rt_severity_name(v->severity), rt_severity_name(v->severity));
	rt_rep_xml(out, v->message);
	fputs("</td></tr>\n", out);
}

static void write_violations(FILE *out, const struct hfile *hf)
{
	const struct rt_violation_list *l = hf->rf->violations;
	size_t kept = l ? l->count : 0;
	uint64_t dropped = l ? l->dropped : 0;
	fprintf(out, "<h3 id=\"f%zu-violations\">Violations</h3>\n", hf->number);
	if (!kept && !dropped) {
		fputs("<p>None.</p>\n", out);
		return;
	}
	fputs("<table class=\"grid\">\n<tr><th class=\"n\">frame</th><th class=\"n\">flow</th><th>rule</th>"
	      "<th>severity</th><th>message</th></tr>\n",
	      out);
	for (size_t i = 0; i < kept && i < HTML_MAX_VIOLATIONS; i++)
		violation_row(out, hf, &l->items[i]);
	fputs("</table>\n", out);
	uint64_t more = (uint64_t)(kept > HTML_MAX_VIOLATIONS ? kept - HTML_MAX_VIOLATIONS : 0) + dropped;
	if (more)
		fprintf(out, "<p class=\"more\">&#8230; %" PRIu64 " more violation%s not listed here%s.</p>\n", more,
			more == 1 ? "" : "s",
			dropped ? " (the report keeps only the first ones; the counts above include all)" : "");
}

/* ---- The ladder ------------------------------------------------------------ */

static int row_y(uint32_t row)
{
	return LAD_HEAD + (int)row * LAD_ROW;
}

static int side_x(int side)
{
	return side ? LAD_RIGHT : LAD_LEFT;
}

/* " · ": separates the parts of a ladder label (SVG collapses runs of spaces). */
#define DOT " \xC2\xB7 "

/* "RDMA WRITE First · PSN 12 · 1024 B", with the NAK's kind for NAKs. */
static void event_label(const struct rt_ladder_event *ev, char *buf, size_t size)
{
	const struct rt_opcode_info *op = rt_opcode_info(ev->opcode);
	char what[96];
	if (op && (op->ext & RT_EXT_AETH) && rt_aeth_type(ev->syndrome) != RT_AETH_ACK)
		rt_describe_aeth(ev->syndrome, what, sizeof what);
	else
		rt_rep_opcode(ev->opcode, what, sizeof what);
	int n = snprintf(buf, size, "%s" DOT "PSN %" PRIu32, what, ev->psn);
	if (n > 0 && (size_t)n < size && ev->payload_len)
		n += snprintf(buf + n, size - (size_t)n, DOT "%" PRIu32 " B", ev->payload_len);
	if (n > 0 && (size_t)n < size && (ev->flags & RT_LADDER_RETRANSMIT))
		snprintf(buf + n, size - (size_t)n, DOT "again");
}

/* Rule IDs of the violations at this row's frame in this flow: "PKT-ICRC, SEQ-PSN". */
static enum rt_severity row_issues(const struct hfile *hf, uint32_t flow, uint64_t frame, char *buf, size_t size)
{
	const struct rt_violation_list *l = hf->rf->violations;
	size_t b, e, used = 0, shown = 0, hidden = 0;
	enum rt_severity worst = RT_SEV_WARNING;
	buf[0] = '\0';
	rt_rep_frame_range(l, frame, &b, &e);
	for (size_t i = b; i < e; i++) {
		const struct rt_report_violation *v = &l->items[i];
		if (v->flow != flow)
			continue;
		if (v->severity == RT_SEV_ERROR)
			worst = RT_SEV_ERROR;
		const char *id = rt_rule_info(v->rule)->id;
		if (used + strlen(id) + 2 > LAD_ISSUE_CHARS || used + strlen(id) + 2 >= size) {
			hidden++;
			continue;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s", shown ? ", " : "", id);
		shown++;
	}
	if (hidden && used + 8 < size)
		snprintf(buf + used, size - used, " +%zu", hidden);
	return worst;
}

/* Every message of the flow at the frame, one line each, for a tooltip. */
static void tooltip_messages(FILE *out, const struct hfile *hf, uint32_t flow, uint64_t frame)
{
	size_t b, e;
	rt_rep_frame_range(hf->rf->violations, frame, &b, &e);
	for (size_t i = b; i < e; i++) {
		const struct rt_report_violation *v = &hf->rf->violations->items[i];
		if (v->flow != flow)
			continue;
		fprintf(out, "&#10;%s %s: ", rt_severity_name(v->severity), rt_rule_info(v->rule)->id);
		rt_rep_xml(out, v->message);
	}
}

/* The full story of one row, for the tooltip (<title>): every message at the frame. */
static void row_tooltip(FILE *out, const struct hfile *hf, const struct rt_flow_info *f,
			const struct rt_ladder_event *ev, const char *label, const char *when)
{
	char from[96], to[96];
	rt_rep_endpoint(f, ev->from_side, from, sizeof from);
	rt_rep_endpoint(f, !ev->from_side, to, sizeof to);
	fprintf(out, "<title>frame %" PRIu64 ", ", ev->frame);
	rt_rep_xmlf(out, "%s after the flow's first packet: %s -> %s: %s", when, from, to, label);
	if (ev->flags & RT_LADDER_BAD_ICRC)
		fputs(", bad ICRC", out);
	tooltip_messages(out, hf, f->id, ev->frame);
	fputs("</title>", out);
}

/* A packet row's group (the link target of its frame), its frame number and, for an error, the mark. */
static void row_open(FILE *out, const struct hfile *hf, const struct rt_ladder_event *ev, int base)
{
	fprintf(out, "<g id=\"f%zu-fr%" PRIu64 "\">", hf->number, ev->frame);
	fprintf(out, "<text class=\"frame\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRIu64 "</text>", LAD_FRAME_X,
		base, ev->frame);
	if (ev->flags & RT_LADDER_VIOLATION)
		fprintf(out,
			"<circle class=\"mark\" cx=\"%d\" cy=\"%d\" r=\"7\"/><text class=\"marktext\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\">!</text>",
			LAD_MARK_X, base - 4, LAD_MARK_X, base);
}

/* The rule IDs of the row's violations, in the issues column. */
static void row_issues_text(FILE *out, const struct hfile *hf, const struct rt_flow_info *f,
			    const struct rt_ladder_event *ev, int base)
{
	char issues[64];
	enum rt_severity worst = row_issues(hf, f->id, ev->frame, issues, sizeof issues);
	if (!issues[0] && !(ev->flags & (RT_LADDER_VIOLATION | RT_LADDER_WARNING)))
		return;
	bool err = issues[0] ? worst == RT_SEV_ERROR : (ev->flags & RT_LADDER_VIOLATION) != 0;
	fprintf(out, "<text class=\"issue t-%s\" x=\"%d\" y=\"%d\">", err ? "viol" : "warn", LAD_ISSUE_X, base);
	rt_rep_xml(out, issues[0] ? issues : err ? "violation" : "warning");
	fputs("</text>", out);
}

static void ladder_row(FILE *out, const struct hfile *hf, const struct rt_flow_info *f,
		       const struct rt_ladder_event *ev, uint32_t row)
{
	int top = row_y(row), base = top + 15;
	enum arrow_kind k = arrow_kind(ev);
	const char *cls = kinds[k].cls;
	char label[160], when[40];
	event_label(ev, label, sizeof label);
	rt_rep_reltime(ev->ts_ns, f->first_ts_ns, when, sizeof when);

	row_open(out, hf, ev, base);
	row_tooltip(out, hf, f, ev, label, when);
	int x1 = side_x(ev->from_side), x2 = side_x(!ev->from_side);
	int dir = x2 > x1 ? 1 : -1;
	fprintf(out,
		"<line class=\"arrow k-%s%s%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"marker-end=\"url(#rt-ah-%s)\"/>",
		cls, (ev->flags & RT_LADDER_VIOLATION) ? " thick" : "", (ev->flags & RT_LADDER_RETRANSMIT) ? " dash" : "",
		x1 + dir * 2, base + 2, x2 - dir * 2, base + 2, cls);
	fprintf(out, "<text class=\"t-%s\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", cls, (LAD_LEFT + LAD_RIGHT) / 2,
		base - 3);
	rt_rep_xml(out, label);
	if (ev->flags & RT_LADDER_BAD_ICRC)
		fputs("<tspan class=\"icrc\">  &#10007; bad ICRC</tspan>", out);
	fprintf(out, "</text><text class=\"time\" x=\"%d\" y=\"%d\">", LAD_TIME_X, base);
	rt_rep_xml(out, when);
	fputs("</text>", out);
	row_issues_text(out, hf, f, ev, base);
	fputs("</g>\n", out);
}

/*
 * A packet judged after the fold above it had swallowed it: its own row all
 * the same (the violations list links here), without an arrow, since only
 * its frame is known.
 */
static void ladder_folded(FILE *out, const struct hfile *hf, const struct rt_flow_info *f,
			  const struct rt_ladder_event *ev, uint32_t row)
{
	int base = row_y(row) + 15;
	row_open(out, hf, ev, base);
	fprintf(out, "<title>frame %" PRIu64 ": a packet of the fold above, judged after it was folded", ev->frame);
	tooltip_messages(out, hf, f->id, ev->frame);
	fprintf(out, "</title><text class=\"fold\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">&#8627; frame %" PRIu64
		", in the fold above (judged after it was folded)</text>",
		(LAD_LEFT + LAD_RIGHT) / 2, base - 3, ev->frame);
	row_issues_text(out, hf, f, ev, base);
	fputs("</g>\n", out);
}

/* What a fold label can hold before it is squeezed to fit the diagram's width. */
#define FOLD_LABEL_CHARS 130

/* "… 96 ordinary packets: 10.0.0.1→10.0.0.2 PSN 101..148, 10.0.0.2→10.0.0.1 PSN 100..147 …" */
static void fold_label(const struct rt_flow_info *f, const struct rt_ladder_event *ev, char *buf, size_t size)
{
	char ip[2][64];
	rt_flow_format_ip(f, 0, ip[0], sizeof ip[0]);
	rt_flow_format_ip(f, 1, ip[1], sizeof ip[1]);
	int n = snprintf(buf, size, "\xE2\x80\xA6 %" PRIu32 " %s packet%s", ev->fold_count,
			 (ev->flags & RT_LADDER_RETRANSMIT) ? "retransmitted" : "ordinary", ev->fold_count == 1 ? "" : "s");
	const char *sep = ": ";
	for (int side = 0; side < 2; side++) {
		const struct rt_ladder_dir *d = &ev->fold_dir[side];
		if (!d->count || n < 0 || (size_t)n >= size)
			continue;
		n += snprintf(buf + n, size - (size_t)n, "%s%s\xE2\x86\x92%s PSN %" PRIu32, sep, ip[side], ip[!side],
			      d->first_psn);
		if (d->last_psn != d->first_psn && n > 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, "..%" PRIu32, d->last_psn);
		sep = ", ";
	}
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " \xE2\x80\xA6");
}

/* Characters (not bytes) of a UTF-8 string. */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void ladder_fold(FILE *out, const struct rt_flow_info *f, const struct rt_ladder_event *ev, uint32_t row)
{
	int top = row_y(row), base = top + 15;
	/* Cut the lifelines for the row and bridge the gap with dots: time passes here. */
	for (int side = 0; side < 2; side++)
		fprintf(out,
			"<line class=\"lifegap\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
			"<line class=\"lifedot\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
			side_x(side), top + 1, side_x(side), top + LAD_ROW - 1, side_x(side), top + 1, side_x(side),
			top + LAD_ROW - 1);
	char label[320];
	fold_label(f, ev, label, sizeof label);
	fprintf(out, "<text class=\"fold\" x=\"%d\" y=\"%d\" text-anchor=\"middle\"", (LAD_LEFT + LAD_RIGHT) / 2, base - 2);
	/* Long addresses (IPv6) would run off the diagram: squeeze the text into its width instead. */
	if (utf8_chars(label) > FOLD_LABEL_CHARS)
		fprintf(out, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", LAD_W - 2 * LAD_MARK_X);
	fprintf(out, "><title>frames %" PRIu64 "&#8211;%" PRIu64 "</title>", ev->frame, ev->fold_last_frame);
	rt_rep_xml(out, label);
	fputs("</text>\n", out);
}

static void ladder_head(FILE *out, const struct rt_flow_info *f, int height)
{
	fprintf(out,
		"<svg class=\"ladder\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"ladder diagram of flow %" PRIu32 "\">\n",
		LAD_W, height, LAD_W, height, f->id);
	for (int side = 0; side < 2; side++) {
		char ip[64];
		rt_flow_format_ip(f, side, ip, sizeof ip);
		fprintf(out, "<text class=\"head\" x=\"%d\" y=\"18\" text-anchor=\"middle\">", side_x(side));
		rt_rep_xml(out, ip);
		fprintf(out, "</text><text class=\"qp\" x=\"%d\" y=\"34\" text-anchor=\"middle\">", side_x(side));
		if (f->side[side].qp_known)
			fprintf(out, "QP 0x%06" PRIx32, f->side[side].qp);
		else
			fputs("QP ?", out);
		if (f->side[side].rocev1)
			fprintf(out, ", %s", rt_flow_side_versions(&f->side[side]));
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text class=\"qp\" x=\"%d\" y=\"54\" text-anchor=\"end\">frame</text>"
		"<text class=\"qp\" x=\"%d\" y=\"54\">time</text><text class=\"qp\" x=\"%d\" y=\"54\">issues</text>\n",
		LAD_FRAME_X, LAD_TIME_X, LAD_ISSUE_X);
}

static void write_ladder(FILE *out, const struct hfile *hf, const struct rt_flow_info *f)
{
	const struct rt_check_config *cfg = rt_checker_config(hf->rf->checker);
	if (!f->ladder && f->id > cfg->ladder_flows) {
		fprintf(out,
			"<p class=\"more\">Ladder not drawn (only the first %" PRIu32 " flow%s are drawn).</p>\n",
			cfg->ladder_flows, cfg->ladder_flows == 1 ? "" : "s");
		return;
	}
	if (!f->ladder) {
		fputs("<p class=\"more\">Ladder not drawn (the checker kept no rows for this flow).</p>\n", out);
		return;
	}
	int height = row_y(f->ladder_count) + LAD_FOOT;
	fputs("<div class=\"ladder\">\n", out);
	ladder_head(out, f, height);
	/* Back to front: zebra stripes, lifelines, then the rows (folds cut the lifelines they cross). */
	for (uint32_t i = 0; i < f->ladder_count; i++) {
		uint8_t flags = f->ladder[i].flags;
		const char *bg = (flags & RT_LADDER_VIOLATION) ? "bg-viol"
				 : (flags & RT_LADDER_WARNING)	 ? "bg-warn"
				 : i % 2 == 0			 ? "zebra"
								 : NULL;
		if (bg && !(flags & RT_LADDER_FOLD))
			fprintf(out, "<rect class=\"%s\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>", bg, row_y(i),
				LAD_W, LAD_ROW);
	}
	fputc('\n', out);
	for (int side = 0; side < 2; side++)
		fprintf(out, "<line class=\"life\" x1=\"%d\" y1=\"42\" x2=\"%d\" y2=\"%d\"/>", side_x(side),
			side_x(side), height - LAD_FOOT / 2);
	fputc('\n', out);
	for (uint32_t i = 0; i < f->ladder_count; i++) {
		const struct rt_ladder_event *ev = &f->ladder[i];
		if (ev->flags & RT_LADDER_FOLD)
			ladder_fold(out, f, ev, i);
		else if (ev->folded)
			ladder_folded(out, hf, f, ev, i);
		else
			ladder_row(out, hf, f, ev, i);
	}
	fputs("</svg>\n</div>\n", out);
	if (f->ladder_dropped)
		fprintf(out, "<p class=\"more\">&#8230; %" PRIu64 " more packet%s of this flow not drawn (row limit).</p>\n",
			f->ladder_dropped, f->ladder_dropped == 1 ? "" : "s");
}

static void write_legend(FILE *out)
{
	fputs("<ul class=\"legend\">\n", out);
	static const enum arrow_kind order[] = { K_SIDE0, K_SIDE1, K_NAK, K_RNR, K_RTX, K_VIOL, K_WARN, K_CNP };
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		enum arrow_kind k = order[i];
		fprintf(out,
			"<li><svg width=\"46\" height=\"12\" viewBox=\"0 0 46 12\" aria-hidden=\"true\">"
			"<line class=\"arrow k-%s%s%s\" x1=\"2\" y1=\"6\" x2=\"44\" y2=\"6\" marker-end=\"url(#rt-ah-%s)\"/>"
			"</svg>%s</li>\n",
			kinds[k].cls, k == K_VIOL ? " thick" : "", k == K_RTX ? " dash" : "", kinds[k].cls, kinds[k].legend);
	}
	fputs("<li><span style=\"color:#d32f2f;font-weight:700\">&#10007; bad ICRC</span></li>\n"
	      "<li><span class=\"fold\" style=\"color:#6b7680;font-style:italic\">&#8230; N ordinary packets: "
	      "A&#8594;B PSN x..y, B&#8594;A PSN u..v &#8230;</span>&nbsp;folded rows (a packet a rule judged "
	      "later gets its own row after its fold)</li>\n</ul>\n",
	      out);
}

/* ---- One flow -------------------------------------------------------------- */

static void flow_summary_line(FILE *out, const struct rt_flow_info *f)
{
	char a[96], b[96];
	rt_rep_endpoint(f, 0, a, sizeof a);
	rt_rep_endpoint(f, 1, b, sizeof b);
	fprintf(out, "<summary><span class=\"ends\">Flow %" PRIu32 " &#183; %s &#183; ", f->id,
		rt_transport_name((enum rt_transport)f->transport));
	rt_rep_xml(out, a);
	fputs(f->paired ? " &#8660; " : " &#8594; ", out);
	rt_rep_xml(out, rt_rep_side_shown(f, 1) ? b : "(no reply seen)");
	fputs("</span><br>", out);
	rt_rep_html_badge(out, f->errors ? "err" : NULL, f->errors, "error", "errors");
	rt_rep_html_badge(out, "warn", f->warnings, "warning", "warnings");
	if (!f->errors && !f->warnings)
		fputs("<span class=\"badge ok\">conformant</span>", out);
	rt_rep_html_badge(out, NULL, f->packets, "packet", "packets");
	fprintf(out, "<span class=\"badge\">frames %" PRIu64 "&#8211;%" PRIu64 "</span>", f->first_frame,
		f->last_frame);
	rt_rep_html_badge(out, NULL, f->naks, "NAK", "NAKs");
	rt_rep_html_badge(out, NULL, f->rnr_naks, "RNR NAK", "RNR NAKs");
	rt_rep_html_badge(out, NULL, f->retransmissions, "retransmission", "retransmissions");
	rt_rep_html_badge(out, NULL, f->cnps, "CNP", "CNPs");
	rt_rep_html_badge(out, "err", f->bad_icrc, "bad ICRC", "bad ICRCs");
	fputs("</summary>\n", out);
}

static void flow_sides(FILE *out, const struct rt_flow_info *f)
{
	fputs("<table class=\"kv sub\">\n", out);
	for (int side = 0; side < 2; side++) {
		const struct rt_flow_side *s = &f->side[side];
		if (!rt_rep_side_shown(f, side))
			continue;
		char ep[96];
		rt_rep_endpoint(f, side, ep, sizeof ep);
		fprintf(out, "<tr><th>%s</th><td>", side ? "right" : "left");
		rt_rep_xml(out, ep);
		if (s->packets && s->rocev2)
			fprintf(out, ", UDP source port %u", s->udp_sport);
		if (s->packets)
			fprintf(out, ": %" PRIu64 " packet%s (%" PRIu64 " request%s, %" PRIu64
				" response%s)",
				s->packets, s->packets == 1 ? "" : "s", s->requests,
				s->requests == 1 ? "" : "s", s->responses, s->responses == 1 ? "" : "s");
		else
			fputs(": sent nothing in this capture", out);
		if (s->pmtu && s->pmtu_inferred)
			fprintf(out, ", PMTU %" PRIu32 " inferred at frame %" PRIu64, s->pmtu, s->pmtu_frame);
		else if (s->pmtu)
			fprintf(out, ", PMTU %" PRIu32, s->pmtu);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void flow_notes(FILE *out, const struct rt_flow_info *f)
{
	if (!f->note_count)
		return;
	fputs("<ul class=\"notes\">\n", out);
	for (uint32_t i = 0; i < f->note_count && i < RT_FLOW_MAX_NOTES; i++) {
		fputs("<li>", out);
		rt_rep_xml(out, f->notes[i]);
		fputs("</li>\n", out);
	}
	if (f->notes_dropped)
		fprintf(out, "<li>&#8230; %" PRIu32 " more notes</li>\n", f->notes_dropped);
	fputs("</ul>\n", out);
}

/* The rules that failed or could not be evaluated on this flow; the passing ones only counted. */
static void flow_rules(FILE *out, const struct hfile *hf, const struct rt_flow_info *f)
{
	const struct rt_check_config *cfg = rt_checker_config(hf->rf->checker);
	const struct rt_rule_counts *rc = &f->rules;
	uint64_t passed = 0, rows = 0;
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		if (!cfg->enabled[r])
			continue;
		if (!rc->violations[r] && !rc->not_evaluated[r]) {
			passed += rc->checked[r] != 0;
			continue;
		}
		if (!rows++)
			fputs("<table class=\"grid\">\n<tr><th>rule</th><th class=\"n\">checked</th>"
			      "<th class=\"n\">violations</th><th class=\"n\">not evaluated</th><th>status</th>"
			      "<th>first violation, or why not evaluated</th></tr>\n",
			      out);
		uint64_t errors, warnings;
		rt_rep_split(hf->ix, f->id, (enum rt_rule)r, rc->violations[r], &errors, &warnings);
		fprintf(out, "<tr><td class=\"id\">%s</td>", rt_rule_info((enum rt_rule)r)->id);
		rt_rep_html_count_cell(out, rc->checked[r], false);
		rt_rep_html_count_cell(out, rc->violations[r], errors != 0);
		rt_rep_html_count_cell(out, rc->not_evaluated[r], false);
		if (rc->violations[r] && !errors)
			fputs("<td><span class=\"st st-warn\">warning</span></td>", out);
		else
			rule_status_cell(out, cfg, rc, (enum rt_rule)r);
		fputs("<td class=\"msg\">", out);
		size_t b, e;
		rt_rep_index_range(hf->ix, f->id, (enum rt_rule)r, &b, &e);
		if (b < e) {
			const struct rt_report_violation *v = rt_rep_index_at(hf->ix, b);
			fprintf(out, "frame %" PRIu64 ": ", v->frame);
			rt_rep_xml(out, v->message);
		} else if (!rc->violations[r]) {
			char why[160];
			rt_rep_why_not_evaluated(cfg, (enum rt_rule)r, rc->not_evaluated[r], why, sizeof why);
			rt_rep_xml(out, why);
		}
		fputs("</td></tr>\n", out);
	}
	if (rows)
		fputs("</table>\n", out);
	fprintf(out, "<p class=\"sub\">%" PRIu64 " %srule%s passed on this flow.</p>\n", passed, rows ? "other " : "",
		passed == 1 ? "" : "s");
}

static void write_flow(FILE *out, const struct hfile *hf, const struct rt_flow_info *f)
{
	fprintf(out, "<details class=\"flow%s\" id=\"f%zu-flow%" PRIu32 "\" open>\n",
		f->errors ? " bad" : f->warnings ? " warned" : "", hf->number, f->id);
	flow_summary_line(out, f);
	flow_sides(out, f);
	flow_notes(out, f);
	flow_rules(out, hf, f);
	write_ladder(out, hf, f);
	fputs("</details>\n", out);
}

/* ---- Files and page -------------------------------------------------------- */

static void write_file(FILE *out, const struct hfile *hf, bool heading)
{
	const struct rt_checker *c = hf->rf->checker;
	fprintf(out, "<section id=\"f%zu\">\n", hf->number);
	if (heading) {
		fputs("<h2>", out);
		rt_rep_xml(out, hf->rf->file);
		fputs("</h2>\n", out);
	}
	write_summary(out, hf);
	write_violations(out, hf);
	write_rule_table(out, hf);
	size_t n = rt_checker_flow_count(c);
	fprintf(out, "<h3 id=\"f%zu-flows\">Flows (%zu)</h3>\n", hf->number, n);
	if (n) {
		write_legend(out);
		fputs("<div class=\"tools\"><button type=\"button\" onclick=\"rtFold(false)\">fold all flows</button>"
		      "<button type=\"button\" onclick=\"rtFold(true)\">unfold all flows</button></div>\n",
		      out);
	} else {
		fputs("<p>No RoCE flow in this capture.</p>\n", out);
	}
	for (size_t i = 0; i < n; i++)
		write_flow(out, hf, rt_checker_flow(c, i));
	fputs("</section>\n", out);
}

/* Several captures: the overall verdict and one line per capture first. */
static void write_overview(FILE *out, const struct rt_report_file *files, size_t n)
{
	uint64_t errors, warnings;
	rt_rep_sum(files, n, &errors, &warnings);
	fputs("<div class=\"summary\">\n", out);
	size_t incomplete = rt_rep_incomplete(files, n);
	char reason[96];
	snprintf(reason, sizeof reason, "%zu of %zu captures not checked to their end", incomplete, n);
	verdict_box(out, errors, warnings, incomplete ? reason : NULL);
	fputs("<table class=\"grid\" style=\"width:auto\">\n<tr><th>capture</th><th>verdict</th>"
	      "<th class=\"n\">RoCE packets</th><th class=\"n\">errors</th><th class=\"n\">warnings</th></tr>\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct rt_check_totals *t = rt_checker_totals(files[i].checker);
		fprintf(out, "<tr><td><a href=\"#f%zu\">", i + 1);
		rt_rep_xml(out, files[i].file);
		fputs("</a></td>", out);
		if (files[i].incomplete)
			fputs("<td><span class=\"st st-fail\">incomplete</span></td>", out);
		else
			status_cell(out, t->errors ? "fail" : "pass");
		rt_rep_html_count_cell(out, t->roce_packets, false);
		rt_rep_html_count_cell(out, t->errors, true);
		rt_rep_html_count_cell(out, t->warnings, false);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n</div>\n", out);
}

int rt_report_html(const struct rt_report_file *files, size_t n, FILE *out)
{
	write_head(out, files, n);
	write_markers(out);
	fputs("<header>\n<h1>rocetest check <span class=\"files\">", out);
	write_title(out, files, n);
	fputs("</span></h1>\n<p class=\"sub\">RoCEv2 conformance against the rule catalogue "
	      "(rules.md); frames are numbered from 1 as in Wireshark.</p>\n</header>\n",
	      out);
	if (n > 1)
		write_overview(out, files, n);
	for (size_t i = 0; i < n; i++) {
		struct rt_rep_index ix;
		if (rt_rep_index_build(&ix, files[i].violations))
			return -1;
		struct hfile hf = { .rf = &files[i], .ix = &ix, .number = i + 1 };
		write_file(out, &hf, n > 1);
		rt_rep_index_free(&ix);
	}
	fputs("</body>\n</html>\n", out);
	return rt_rep_finish(out);
}
