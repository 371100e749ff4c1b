/* SPDX-License-Identifier: MIT */
/*
 * The diff as one self-contained page: the count per class at the top,
 * then per pair of flows its differences (each frame linked to its row)
 * and the two captures' ladders side by side. The rows are the checkers'
 * (ladder.c): ordinary packets already folded into one row per run, so a
 * long capture stays a page; a row holding a frame of a difference is
 * marked, whether the frame has a row of its own or sits in a fold.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "rocetest/diff_report.h"
#include "util.h"

static const char diff_css[] =
	".sbs{display:grid;grid-template-columns:1fr 1fr;gap:14px;align-items:start}\n"
	".sbs table{width:100%}.sbs td{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}\n"
	"tr.differs td{background:#fde2e1}tr.fold td{color:#5f6b76;font-style:italic}\n"
	".cls-semantic{color:#b3261e;font-weight:700}.cls-behaviour{color:#8a5a00}.cls-cosmetic{color:#5f6b76}\n";

/* The frames of one capture that a difference of a pair names, sorted. */
struct frames {
	uint64_t *v;
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int frames_of(const struct rt_diff_result *r, uint32_t pair, int capture, struct frames *fr)
{
	fr->n = 0;
	fr->v = malloc((r->n_differences + 1) * sizeof *fr->v);
	if (!fr->v)
		return -1;
	for (size_t i = 0; i < r->n_differences; i++) {
		const struct rt_diff_difference *x = &r->differences[i];
		uint64_t f = capture ? x->frame_b : x->frame_a;
		if (x->pair == pair && f)
			fr->v[fr->n++] = f;
	}
	qsort(fr->v, fr->n, sizeof *fr->v, cmp_u64);
	return 0;
}

/* Some frame of fr lies in [lo, hi]. */
static bool any_in(const struct frames *fr, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = fr->n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (fr->v[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < fr->n && fr->v[a] <= hi;
}

static void ladder_row(FILE *out, const struct rt_flow_info *f, const struct rt_ladder_event *ev, int capture,
		       const struct frames *fr)
{
	bool fold = ev->flags & RT_LADDER_FOLD;
	uint64_t last = fold ? ev->fold_last_frame : ev->frame;
	char t[32] = "", op[48];
	if (!ev->folded)	/* a row added for a packet of the fold above has only its frame */
		rt_rep_reltime(ev->ts_ns, f->first_ts_ns, t, sizeof t);
	fprintf(out, "<tr id=\"%c-fr%" PRIu64 "\" class=\"%s%s\"><td class=\"n\">%" PRIu64 "</td><td>%s</td>",
		capture ? 'b' : 'a', ev->frame, any_in(fr, ev->frame, last) ? "differs " : "", fold ? "fold" : "",
		ev->frame, t);
	if (fold) {
		fprintf(out, "<td colspan=\"3\">%" PRIu32 " packets (frames %" PRIu64 "..%" PRIu64 ")</td></tr>\n",
			ev->fold_count, ev->frame, last);
		return;
	}
	if (ev->folded) {
		fputs("<td colspan=\"3\">a packet of the fold above</td></tr>\n", out);
		return;
	}
	rt_rep_opcode(ev->opcode, op, sizeof op);
	fprintf(out, "<td>%s</td><td>", ev->from_side ? "&larr;" : "&rarr;");
	rt_rep_xml(out, op);
	fprintf(out, "</td><td class=\"n\">PSN %" PRIu32 ", %" PRIu32 " B%s%s</td></tr>\n", ev->psn, ev->payload_len,
		ev->flags & RT_LADDER_RETRANSMIT ? ", again" : "", ev->flags & (RT_LADDER_NAK | RT_LADDER_RNR) ? ", NAK" : "");
}

static void ladder(FILE *out, const struct rt_diff *d, int capture, uint32_t flow, const struct frames *fr)
{
	const struct rt_flow_info *f = rt_checker_flow(rt_diff_checker(d, capture), flow - 1);
	char e0[80], e1[80];
	fputs("<div>", out);
	if (!f)
		return (void)fputs("</div>", out);
	rt_rep_endpoint(f, 0, e0, sizeof e0);
	rt_rep_endpoint(f, 1, e1, sizeof e1);
	rt_rep_xmlf(out, "%s flow %" PRIu32 ": %s (left) and %s", capture ? "B" : "A", flow, e0, e1);
	if (!f->ladder) {
		fputs("<p>(no ladder kept for this flow)</p></div>\n", out);
		return;
	}
	fputs("<table class=\"grid\"><tr><th>frame</th><th>time</th><th></th><th>packet</th><th></th></tr>\n", out);
	for (uint32_t i = 0; i < f->ladder_count; i++)
		ladder_row(out, f, &f->ladder[i], capture, fr);
	if (f->ladder_dropped)
		fprintf(out, "<tr><td colspan=\"5\">%" PRIu64 " more packets not drawn</td></tr>\n", f->ladder_dropped);
	fputs("</table></div>\n", out);
}

static void frame_link(FILE *out, char capture, uint64_t frame)
{
	if (frame)
		fprintf(out, "<a href=\"#%c-fr%" PRIu64 "\">%" PRIu64 "</a>", capture, frame, frame);
	else
		fputs("-", out);
}

static void differences_table(FILE *out, const struct rt_diff_result *r, uint32_t pair)
{
	fputs("<table class=\"grid\"><tr><th>class</th><th>field</th><th>message</th><th>frame A</th><th>frame B</th>"
	      "<th>what</th></tr>\n", out);
	for (size_t i = 0; i < r->n_differences; i++) {
		const struct rt_diff_difference *x = &r->differences[i];
		if (x->pair != pair)
			continue;
		fprintf(out, "<tr><td class=\"cls-%s\">%s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">",
			rt_diff_class_name(x->cls), rt_diff_class_name(x->cls), rt_diff_field_name(x->field), x->message);
		frame_link(out, 'a', x->frame_a);
		fputs("</td><td class=\"n\">", out);
		frame_link(out, 'b', x->frame_b);
		fputs("</td><td>", out);
		rt_rep_xml(out, x->what);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static int write_pair(FILE *out, const struct rt_diff *d, const struct rt_diff_pair *p)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	struct frames fa, fb;
	if (frames_of(r, p->id, 0, &fa))
		return -1;
	if (frames_of(r, p->id, 1, &fb)) {
		free(fa.v);
		return -1;
	}
	fprintf(out, "<h2>Pair %" PRIu32 ": A flow %" PRIu32 ", B flow %" PRIu32 "%s</h2>\n", p->id, p->flow_a, p->flow_b,
		p->swapped ? " (sides swapped)" : "");
	fprintf(out, "<p>%" PRIu64 " semantic, %" PRIu64 " behaviour, %" PRIu64 " cosmetic</p>\n",
		p->differences[RT_DIFF_SEMANTIC], p->differences[RT_DIFF_BEHAVIOUR], p->differences[RT_DIFF_COSMETIC]);
	for (unsigned k = 0; k < p->n_notes; k++) {
		fputs("<p>note: ", out);
		rt_rep_xml(out, p->notes[k]);
		fputs("</p>\n", out);
	}
	differences_table(out, r, p->id);
	fputs("<div class=\"sbs\">\n", out);
	ladder(out, d, 0, p->flow_a, &fa);
	ladder(out, d, 1, p->flow_b, &fb);
	fputs("</div>\n", out);
	free(fa.v);
	free(fb.v);
	return 0;
}

int rt_diff_report_html(const struct rt_diff *d, const struct rt_diff_names *names, FILE *out)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	rt_rep_html_open(out, "rocetest diff", false);
	fputs("rocetest diff: ", out);
	rt_rep_xmlf(out, "%s vs %s", names->a, names->b);
	fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<h1>rocetest diff</h1>\n", rt_rep_html_css, diff_css);
	char detail[160];
	snprintf(detail, sizeof detail, "%" PRIu64 " semantic, %" PRIu64 " behaviour, %" PRIu64 " cosmetic difference(s); "
		 "profile %s", r->count[RT_DIFF_SEMANTIC], r->count[RT_DIFF_BEHAVIOUR], r->count[RT_DIFF_COSMETIC],
		 rt_diff_options(d)->profile.name);
	rt_rep_html_verdict(out, !r->count[RT_DIFF_SEMANTIC], r->count[RT_DIFF_SEMANTIC] ? "DIFFERENT" : "SAME", detail);
	fputs("<p>A: ", out);
	rt_rep_xml(out, names->a);
	fputs(" &mdash; B: ", out);
	rt_rep_xml(out, names->b);
	fputs("</p>\n", out);
	for (size_t i = 0; i < r->n_pairs; i++)
		if (write_pair(out, d, &r->pairs[i]))
			return -1;
	fputs("</body>\n</html>\n", out);
	return rt_rep_finish(out);
}
