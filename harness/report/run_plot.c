/* SPDX-License-Identifier: MIT */
/*
 * The goodput plot of the run report: message size on a log2 axis (256 B to
 * 1 MB, widened to cover every measurement), Gb/s from 0 to the line rate.
 * Per opcode measured: a polyline with a marker per test (its tooltip the
 * numbers) and, dashed in the same colour, the limit rt_goodput_limit_gbps
 * gives at the run's PMTU and line rate. The limit is a sawtooth: one byte
 * past a PMTU multiple costs a whole extra frame of headers, so the curve is
 * sampled on every 1/8 octave and on both sides of the PMTU multiples where
 * the teeth are wide enough to see.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_util.h"
#include "util.h"

/* Geometry in SVG user units (1 = 1 px at full size). */
enum {
	PLOT_W = 960,
	PLOT_H = 430,
	PLOT_LEFT = 64,		/* room for the Gb/s labels */
	PLOT_RIGHT = 20,
	PLOT_TOP = 16,
	PLOT_BOTTOM = 56,	/* size labels and the axis title */
	PLOT_X_LO = 8,		/* log2 of the axis' default ends: 256 B ... */
	PLOT_X_HI = 20,		/* ... 1 MB */
	PLOT_STEPS_PER_OCTAVE = 8,
	PLOT_TOOTH_MAX = 64,	/* PMTU multiples sampled exactly; past these a tooth is narrower than a pixel or two */
};

/* The goal a 100 G device is held to (64 KB WRITEs), drawn for reference when the axis reaches it. */
#define PLOT_TARGET_GBPS 97.0

struct axes {
	int x_lo, x_hi;		/* log2 of the message sizes at the ends */
	double y_max, y_step;
	double line_gbps;	/* the limit curves' line rate; 0: none drawn */
};

static double px(const struct axes *a, double size)
{
	double w = PLOT_W - PLOT_LEFT - PLOT_RIGHT;
	return PLOT_LEFT + (log2(size) - a->x_lo) / (a->x_hi - a->x_lo) * w;
}

static double py(const struct axes *a, double gbps)
{
	double h = PLOT_H - PLOT_TOP - PLOT_BOTTOM;
	if (gbps < 0)
		gbps = 0;	/* nonsense, but on the axis rather than below the plot */
	return PLOT_TOP + h - gbps / a->y_max * h;
}

const char *rt_run_series_colour(uint8_t opcode)
{
	/* The ladder's palette (html.c), so that WRITE is the same blue on every page. */
	static const char *const known[] = { [RT_DUT_SEND] = "#2e7d5b", [RT_DUT_SEND_IMM] = "#ef6c00",
					     [RT_DUT_WRITE] = "#1f5fa8", [RT_DUT_WRITE_IMM] = "#7b1fa2" };
	static const char *const other[] = { "#c62828", "#00838f", "#6d4c41", "#5f6b76" };
	if (opcode <= RT_DUT_WRITE_IMM)
		return known[opcode];
	return other[opcode % (sizeof other / sizeof other[0])];
}

static void axes_init(struct axes *a, const struct rt_run_summary *s, const struct rt_run_point *p, size_t n)
{
	a->x_lo = PLOT_X_LO;
	a->x_hi = PLOT_X_HI;
	a->line_gbps = isfinite(s->line_gbps) && s->line_gbps > 0 && s->pmtu ? s->line_gbps : 0;
	a->y_max = isfinite(s->line_gbps) && s->line_gbps > 0 ? s->line_gbps : 100;
	double top = 0;
	for (size_t i = 0; i < n; i++) {
		if (!p[i].r->msg_size)
			continue;
		int lo = (int)floor(log2(p[i].r->msg_size)), hi = (int)ceil(log2(p[i].r->msg_size));
		a->x_lo = lo < a->x_lo ? lo : a->x_lo;
		a->x_hi = hi > a->x_hi ? hi : a->x_hi;
		if (isfinite(p[i].gbps) && p[i].gbps > top)
			top = p[i].gbps;
	}
	/*
	 * Ten steps to the line rate. A measurement above it (a clock or counter
	 * gone wrong) stays in view, the steps widened by whole multiples so that
	 * there are still about ten of them however far off it is.
	 */
	a->y_step = a->y_max / 10;
	if (top > a->y_max) {
		a->y_step *= ceil(top / 10 / a->y_step);
		a->y_max = ceil(top / a->y_step) * a->y_step;
	}
}

static void write_grid(FILE *out, const struct axes *a)
{
	double x0 = PLOT_LEFT, x1 = PLOT_W - PLOT_RIGHT, y0 = PLOT_TOP, y1 = PLOT_H - PLOT_BOTTOM;
	for (int i = 0; a->y_step * i <= a->y_max * (1 + 1e-9); i++) {
		double v = a->y_step * i, y = py(a, v);
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0, y, x1, y);
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 8,
			y + 4, v);
	}
	char label[32];
	for (int e = a->x_lo; e <= a->x_hi; e++) {
		double x = px(a, ldexp(1, e));
		fprintf(out, "<line class=\"grid%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			e % 2 ? " minor" : "", x, y0, x, y1);
		/* Every other octave labelled: 256 B, 1 KB, 4 KB ... (every one would crowd the axis). */
		if (e % 2 == 0) {
			rt_run_size((uint64_t)1 << e, label, sizeof label);
			fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x,
				y1 + 18, label);
		}
		fputc('\n', out);
	}
	fprintf(out,
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		x0, y1, x1, y1, x0, y0, x0, y1);
	fprintf(out,
		"<text class=\"title\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">message size (log scale)</text>"
		"<text class=\"title\" transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">"
		"goodput, Gb/s</text>\n",
		(x0 + x1) / 2, PLOT_H - 8, (y0 + y1) / 2);
	if (PLOT_TARGET_GBPS <= a->y_max) {
		double y = py(a, PLOT_TARGET_GBPS);
		fprintf(out,
			"<line class=\"target\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"target-label\" x=\"%.1f\" y=\"%.1f\">target %g Gb/s</text>\n",
			x0, y, x1, y, x0 + 6, y - 5, PLOT_TARGET_GBPS);
	}
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

/* The sizes the limit curve is drawn through, sorted and unique; *n of them. NULL when out of memory. */
static uint32_t *limit_sizes(const struct axes *a, uint32_t pmtu, const struct rt_run_point *p, size_t n_p,
			     size_t *n)
{
	size_t steps = (size_t)(a->x_hi - a->x_lo) * PLOT_STEPS_PER_OCTAVE + 1;
	uint32_t *v = malloc((steps + 2 * PLOT_TOOTH_MAX + n_p) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	double hi = ldexp(1, a->x_hi);
	for (size_t i = 0; i < steps; i++) {
		double size = round(ldexp(1, a->x_lo) * exp2((double)i / PLOT_STEPS_PER_OCTAVE));
		v[k++] = size >= UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	}
	for (uint64_t t = 1; t <= PLOT_TOOTH_MAX && (double)(t * pmtu + 1) <= hi && t * pmtu + 1 <= UINT32_MAX; t++) {
		if ((double)(t * pmtu) >= ldexp(1, a->x_lo)) {
			v[k++] = (uint32_t)(t * pmtu);
			v[k++] = (uint32_t)(t * pmtu + 1);
		}
	}
	/* The measured sizes too: each marker's own limit lies on the curve. */
	for (size_t i = 0; i < n_p; i++)
		if (p[i].r->msg_size)
			v[k++] = p[i].r->msg_size;
	qsort(v, k, sizeof *v, cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || v[i] != v[u - 1])
			v[u++] = v[i];
	*n = u;
	return v;
}

static void write_limit(FILE *out, const struct axes *a, const struct rt_run_summary *s, uint8_t op,
			const uint32_t *sizes, size_t n)
{
	char name[32];
	rt_run_opcode_name(op, name, sizeof name);
	fprintf(out, "<polyline class=\"limit\" stroke=\"%s\" points=\"", rt_run_series_colour(op));
	for (size_t i = 0; i < n; i++) {
		double g = rt_goodput_limit_gbps((enum rt_dut_opcode)op, sizes[i], s->pmtu, a->line_gbps);
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(a, sizes[i]), py(a, g));
	}
	fputs("\"><title>", out);
	rt_rep_xmlf(out, "%s: line-rate limit at PMTU %" PRIu32 " and %g Gb/s", name, s->pmtu, a->line_gbps);
	fputs("</title></polyline>\n", out);
}

/* The points of one opcode: [b, e) of the sorted points. */
static void write_measured(FILE *out, const struct axes *a, const struct rt_run_point *p, size_t b, size_t e)
{
	uint8_t op = p[b].r->opcode;
	const char *colour = rt_run_series_colour(op);
	char name[32], size[32];
	rt_run_opcode_name(op, name, sizeof name);
	fprintf(out, "<g class=\"series\"><polyline class=\"meas\" stroke=\"%s\" points=\"", colour);
	const char *sep = "";
	for (size_t i = b; i < e; i++) {
		if (!p[i].r->msg_size || !isfinite(p[i].gbps))
			continue;
		fprintf(out, "%s%.1f,%.1f", sep, px(a, p[i].r->msg_size), py(a, p[i].gbps));
		sep = " ";
	}
	fputs("\"/>\n", out);
	for (size_t i = b; i < e; i++) {
		if (!p[i].r->msg_size || !isfinite(p[i].gbps))
			continue;
		rt_run_size(p[i].r->msg_size, size, sizeof size);
		fprintf(out, "<circle class=\"pt\" fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"><title>", colour,
			px(a, p[i].r->msg_size), py(a, p[i].gbps));
		rt_rep_xmlf(out, "%s %s (%" PRIu32 " B): %.2f Gb/s", name, size, p[i].r->msg_size, p[i].gbps);
		if (p[i].limit > 0)
			fprintf(out, ", %.1f%% of the %.2f Gb/s limit", 100 * p[i].gbps / p[i].limit, p[i].limit);
		fputs("&#10;test ", out);
		rt_rep_xmlf(out, "%s/%s", p[i].r->suite, p[i].r->name);
		fputs("</title></circle>\n", out);
	}
	fputs("</g>\n", out);
}

static void legend_item(FILE *out, const char *colour, const char *cls, bool marker, const char *text)
{
	fprintf(out,
		"<li><svg width=\"40\" height=\"12\" viewBox=\"0 0 40 12\" aria-hidden=\"true\" class=\"plot\">"
		"<line class=\"%s\" stroke=\"%s\" x1=\"2\" y1=\"6\" x2=\"38\" y2=\"6\"/>",
		cls, colour);
	if (marker)
		fprintf(out, "<circle class=\"pt\" fill=\"%s\" cx=\"20\" cy=\"6\" r=\"4\"/>", colour);
	fputs("</svg>", out);
	rt_rep_xml(out, text);
	fputs("</li>\n", out);
}

static void write_legend(FILE *out, const struct axes *a, const struct rt_run_point *p, size_t n)
{
	char name[32], text[96];
	fputs("<ul class=\"legend\">\n", out);
	for (size_t b = 0, e; b < n; b = e) {
		for (e = b; e < n && p[e].r->opcode == p[b].r->opcode; e++)
			;
		uint8_t op = p[b].r->opcode;
		rt_run_opcode_name(op, name, sizeof name);
		snprintf(text, sizeof text, "%s measured", name);
		legend_item(out, rt_run_series_colour(op), "meas", true, text);
		if (a->line_gbps) {
			snprintf(text, sizeof text, "%s limit", name);
			legend_item(out, rt_run_series_colour(op), "limit", false, text);
		}
	}
	if (PLOT_TARGET_GBPS <= a->y_max) {
		snprintf(text, sizeof text, "target %g Gb/s", PLOT_TARGET_GBPS);
		legend_item(out, "#c62828", "target", false, text);
	}
	fputs("</ul>\n", out);
}

const char rt_run_plot_css[] =
	".plot-box{overflow-x:auto;margin:8px 0}\n"
	"svg.plot{display:block;max-width:100%;height:auto;background:#fff}\n"
	"svg.plot text{font-size:12px;fill:#333}svg.plot .tick{fill:#5f6b76}svg.plot .title{font-weight:600}\n"
	"svg.plot .grid{stroke:#e3e7eb;stroke-width:1}svg.plot .grid.minor{stroke:#f0f2f4}\n"
	"svg.plot .axis{stroke:#5f6b76;stroke-width:1.2}\n"
	"svg.plot .limit{fill:none;stroke-width:1.5;stroke-dasharray:6 4;opacity:.8}\n"
	"svg.plot .meas{fill:none;stroke-width:2.2;stroke-linejoin:round}\n"
	"svg.plot .pt{stroke:#fff;stroke-width:1.5}svg.plot .pt:hover{stroke:#1d2328}\n"
	"svg.plot .target{stroke:#c62828;stroke-width:1.2;stroke-dasharray:2 3}"
	"svg.plot .target-label{fill:#c62828;font-size:11px}\n";

void rt_run_plot(FILE *out, const struct rt_run_summary *s, const struct rt_run_point *p, size_t n)
{
	struct axes a;
	axes_init(&a, s, p, n);
	fprintf(out,
		"<div class=\"plot-box\"><svg class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"goodput against message size, measured and the line-rate limit\">\n",
		PLOT_W, PLOT_H, PLOT_W, PLOT_H);
	write_grid(out, &a);
	size_t n_sizes = 0;
	uint32_t *sizes = a.line_gbps ? limit_sizes(&a, s->pmtu, p, n, &n_sizes) : NULL;
	/* Limits first, so that the measurements are drawn over them. Out of memory: the plot without them. */
	for (size_t b = 0, e; sizes && b < n; b = e) {
		for (e = b; e < n && p[e].r->opcode == p[b].r->opcode; e++)
			;
		write_limit(out, &a, s, p[b].r->opcode, sizes, n_sizes);
	}
	free(sizes);
	for (size_t b = 0, e; b < n; b = e) {
		for (e = b; e < n && p[e].r->opcode == p[b].r->opcode; e++)
			;
		write_measured(out, &a, p, b, e);
	}
	fputs("</svg></div>\n", out);
	write_legend(out, &a, p, n);
}
