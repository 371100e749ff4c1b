/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rocetest/json.h"
#include "rocetest/opcode.h"

/* U+FFFD REPLACEMENT CHARACTER. */
#define REPLACEMENT "\xEF\xBF\xBD"

size_t rt_rep_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t n;
	uint32_t cp, min;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		/* A NUL ends the string here: (0 & 0xC0) != 0x80 stops before reading past it. */
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return n;
}

/* A copy of s with invalid UTF-8 replaced, or NULL when s is valid (or memory ran out). */
static char *utf8_repaired(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t bad = 0, len = 0;
	for (size_t k; u[len]; len += k ? k : 1)
		if (!(k = rt_rep_utf8_len(u + len)))
			bad++;
	if (!bad)
		return NULL;
	char *copy = malloc(len + 2 * bad + 1);
	if (!copy)
		return NULL;
	char *o = copy;
	for (size_t i = 0, k; u[i]; i += k ? k : 1) {
		k = rt_rep_utf8_len(u + i);
		if (k) {
			memcpy(o, u + i, k);
			o += k;
		} else {
			memcpy(o, REPLACEMENT, 3);
			o += 3;
		}
	}
	*o = '\0';
	return copy;
}

void rt_rep_json_str(FILE *out, const char *s)
{
	char *fixed = s ? utf8_repaired(s) : NULL;
	rt_json_string(out, fixed ? fixed : s);
	free(fixed);
}

void rt_rep_xml(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	for (size_t i = 0, k; u[i]; i += k ? k : 1) {
		k = rt_rep_utf8_len(u + i);
		switch (u[i]) {
		case '&': fputs("&amp;", out); continue;
		case '<': fputs("&lt;", out); continue;
		case '>': fputs("&gt;", out); continue;
		case '"': fputs("&quot;", out); continue;
		case '\'': fputs("&#39;", out); continue;
		case '\t': fputs("&#9;", out); continue;
		case '\n': fputs("&#10;", out); continue;
		case '\r': fputs("&#13;", out); continue;
		}
		if (!k || u[i] < 0x20 || u[i] == 0x7F)
			fputs(REPLACEMENT, out);
		else
			fwrite(u + i, 1, k, out);
	}
}

void rt_rep_xmlf(FILE *out, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small) {
		/* Paths can be long; only then is the text allocated. Out of memory: the cut text is better than none. */
		va_start(ap, fmt);
		if (vasprintf(&big, fmt, ap) < 0)
			big = NULL;
		va_end(ap);
	}
	rt_rep_xml(out, big ? big : small);
	free(big);
}

void rt_rep_json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.15g", v);
	else
		fputs("null", out);
}

/* ---- HTML pages ---------------------------------------------------------- */

const char rt_rep_html_css[] =
	":root{--ok:#1b7f3b;--bad:#c62828;--warn:#9a6700;--muted:#5f6b76;--line:#d9dee4;--bg2:#f4f6f8}\n"
	"*{box-sizing:border-box}\n"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;"
	"color:#1d2328;background:#fff;margin:0 auto;max-width:1120px;padding:20px 28px 60px}\n"
	"h1{font-size:23px;margin:6px 0 2px}h1 .files{font-weight:400;color:var(--muted);word-break:break-all}\n"
	"h2{font-size:20px;margin:34px 0 12px;padding-bottom:5px;border-bottom:2px solid var(--line);"
	"word-break:break-all}\n"
	"h3{font-size:16px;margin:28px 0 8px}\n"
	".sub{color:var(--muted);font-size:13px}\n"
	".summary{display:flex;gap:28px;align-items:flex-start;flex-wrap:wrap;margin:14px 0}\n"
	".verdict{color:#fff;font-size:46px;font-weight:800;letter-spacing:3px;line-height:1.1;"
	"padding:16px 34px 12px;border-radius:12px;text-align:center;min-width:200px}\n"
	".verdict small{display:block;font-size:13px;font-weight:500;letter-spacing:0;margin-top:4px;opacity:.95}\n"
	".verdict.pass{background:var(--ok)}.verdict.fail{background:var(--bad)}\n"
	"table{border-collapse:collapse}\n"
	"table.kv th,table.kv td{padding:2px 14px 2px 0;text-align:left;vertical-align:top}\n"
	"table.kv th{font-weight:500;color:var(--muted);white-space:nowrap}\n"
	"table.kv td{font-variant-numeric:tabular-nums}\n"
	"table.kv caption{text-align:left;font-weight:600;padding-bottom:3px}\n"
	"table.grid{width:100%;font-size:13px;margin:4px 0}\n"
	"table.grid th{background:var(--bg2);text-align:left;padding:5px 8px;border-bottom:2px solid var(--line);"
	"white-space:nowrap}\n"
	"table.grid td{padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}\n"
	"table.grid tr:hover td{background:#fafbfc}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.nw{white-space:nowrap}\n"
	"td.text{color:var(--muted);font-size:12px;max-width:0;width:45%;white-space:nowrap;overflow:hidden;"
	"text-overflow:ellipsis}\n"
	"td.msg{word-break:break-word}\n"
	".mono,code{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,'DejaVu Sans Mono',monospace;"
	"font-size:12.5px}\n"
	".st{display:inline-block;font-size:12px;font-weight:700;padding:0 8px;border-radius:9px;white-space:nowrap}\n"
	".st-pass{background:#e2f3e7;color:var(--ok)}.st-fail{background:#fde2e2;color:var(--bad)}"
	".st-not_evaluated{background:#eceff2;color:#55626e}.st-warn{background:#fff1cc;color:var(--warn)}"
	".st-none{color:#8a949e;font-weight:500}\n"
	"td.id{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,'DejaVu Sans Mono',monospace;"
	"font-size:12.5px;white-space:nowrap}\n"
	".nz{color:var(--bad);font-weight:700}\n"
	".more{color:var(--muted);font-style:italic;margin:6px 0}\n"
	".badge{display:inline-block;font-size:12px;font-weight:500;padding:0 8px;margin:2px 4px 2px 0;"
	"border-radius:10px;background:var(--bg2);border:1px solid var(--line);white-space:nowrap}\n"
	".badge.err{background:#fde2e2;border-color:#f1b0b0;color:var(--bad);font-weight:700}\n"
	".badge.warn{background:#fff1cc;border-color:#f0d58a;color:var(--warn);font-weight:700}\n"
	".badge.ok{background:#e2f3e7;border-color:#a9d8b6;color:var(--ok);font-weight:700}\n"
	"ul.legend{list-style:none;padding:0;margin:6px 0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:12.5px}\n"
	"ul.legend li{display:flex;align-items:center;gap:6px}\n"
	"a{color:#1f5fa8;text-decoration:none}a:hover{text-decoration:underline}\n"
	"@media print{body{max-width:none;padding:0;font-size:11px}table.grid tr{break-inside:avoid}.text{display:none}"
	"h2,h3{break-after:avoid}.verdict,.st,.badge,svg{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

void rt_rep_html_open(FILE *out, const char *generator, bool script)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; script-src %s\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"",
		script ? "'unsafe-inline'" : "'none'");
	rt_rep_xml(out, generator);
	fputs("\">\n<title>", out);
}

void rt_rep_html_verdict(FILE *out, bool pass, const char *word, const char *detail)
{
	fprintf(out, "<div class=\"verdict %s\">", pass ? "pass" : "fail");
	rt_rep_xml(out, word);
	fputs("<small>", out);
	rt_rep_xml(out, detail);
	fputs("</small></div>\n", out);
}

void rt_rep_html_count_cell(FILE *out, uint64_t v, bool alarm)
{
	fprintf(out, "<td class=\"n%s\">%" PRIu64 "</td>", alarm && v ? " nz" : "", v);
}

void rt_rep_html_badge(FILE *out, const char *cls, uint64_t n, const char *one, const char *many)
{
	if (n)
		fprintf(out, "<span class=\"badge%s%s\">%" PRIu64 " %s</span>", cls ? " " : "", cls ? cls : "", n,
			n == 1 ? one : many);
}

const char *rt_rep_basename(const char *path)
{
	if (!strcmp(path, "-"))
		return "stdin";
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

bool rt_rep_side_shown(const struct rt_flow_info *f, int side)
{
	return f->side[side].packets > 0 || f->side[side].qp_known;
}

void rt_rep_endpoint(const struct rt_flow_info *f, int side, char *buf, size_t size)
{
	char ip[64];
	rt_flow_format_ip(f, side, ip, sizeof ip);
	/* A RoCE v1 side has no UDP port to tell it by: say so wherever the side is named. */
	char v1[24] = "";
	if (f->side[side].rocev1)
		snprintf(v1, sizeof v1, " (%s)", rt_flow_side_versions(&f->side[side]));
	if (f->side[side].qp_known)
		snprintf(buf, size, "%s QP 0x%06" PRIx32 "%s", ip, f->side[side].qp, v1);
	else
		snprintf(buf, size, "%s QP ?%s", ip, v1);
}

void rt_rep_opcode(uint8_t opcode, char *buf, size_t size)
{
	const struct rt_opcode_info *op = rt_opcode_info(opcode);
	if (opcode == RT_OPCODE_CNP)
		snprintf(buf, size, "CNP");
	else if (op)
		snprintf(buf, size, "%s", op->label);
	else
		snprintf(buf, size, "opcode 0x%02x", opcode);
}

void rt_rep_reltime(int64_t ts_ns, int64_t t0_ns, char *buf, size_t size)
{
	/* Integers all the way: a double loses nanoseconds past about 104 days. */
	int64_t d = ts_ns - t0_ns;
	const char *sign = d < 0 ? "-" : "";
	uint64_t m = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
	if (m < 1000)
		snprintf(buf, size, "%s%" PRIu64 " ns", sign, m);
	else if (m < 1000000)
		snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 " us", sign, m / 1000, m % 1000);
	else if (m < 1000000000)
		snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 " ms", sign, m / 1000000, m % 1000000 / 1000);
	else
		snprintf(buf, size, "%s%" PRIu64 ".%06" PRIu64 " s", sign, m / 1000000000, m % 1000000000 / 1000);
}

void rt_rep_why_not_evaluated(const struct rt_check_config *cfg, enum rt_rule rule, uint64_t not_evaluated,
			      char *buf, size_t size)
{
	if (!rt_rule_implemented(rule))
		snprintf(buf, size, "not implemented in this version");
	else if (rt_check_config_missing(cfg, rule) && (not_evaluated || strcmp(rt_rule_info(rule)->needs, "PMTU")))
		snprintf(buf, size, "needs %s", rt_rule_info(rule)->needs);
	else if (not_evaluated)
		snprintf(buf, size, "what it needs is not in the capture (see the flow's notes)");
	else
		snprintf(buf, size, "nothing in the capture it applies to");
}

double rt_rep_seconds(const struct rt_report_file *rf)
{
	return isfinite(rf->seconds) && rf->seconds > 0 ? rf->seconds : 0.0;
}

void rt_rep_sum(const struct rt_report_file *files, size_t n, uint64_t *errors, uint64_t *warnings)
{
	*errors = *warnings = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rt_check_totals *t = rt_checker_totals(files[i].checker);
		*errors += t->errors;
		*warnings += t->warnings;
	}
}

size_t rt_rep_incomplete(const struct rt_report_file *files, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += files[i].incomplete != NULL;
	return k;
}

int rt_rep_finish(FILE *out)
{
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

/* ---- Index -------------------------------------------------------------- */

static int cmp_key(const struct rt_report_violation *a, uint32_t flow, enum rt_rule rule)
{
	if (a->flow != flow)
		return a->flow < flow ? -1 : 1;
	if (a->rule != rule)
		return a->rule < rule ? -1 : 1;
	return 0;
}

/* qsort's comparator gets no context; the items travel with each index instead. */
struct keyed {
	const struct rt_report_violation *v;
	size_t at;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = cmp_key(a->v, b->v->flow, b->v->rule);
	if (c)
		return c;
	/* The list is in frame order: the position keeps it, and makes the sort stable. */
	return a->at < b->at ? -1 : a->at > b->at;
}

int rt_rep_index_build(struct rt_rep_index *ix, const struct rt_violation_list *l)
{
	memset(ix, 0, sizeof *ix);
	if (!l || !l->count)
		return 0;
	struct keyed *k = calloc(l->count, sizeof *k);
	ix->order = calloc(l->count, sizeof *ix->order);
	if (!k || !ix->order) {
		free(k);
		free(ix->order);
		ix->order = NULL;
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < l->count; i++)
		k[i] = (struct keyed){ .v = &l->items[i], .at = i };
	qsort(k, l->count, sizeof *k, cmp_keyed);
	for (size_t i = 0; i < l->count; i++)
		ix->order[i] = k[i].at;
	free(k);
	ix->items = l->items;
	ix->count = l->count;
	return 0;
}

void rt_rep_index_free(struct rt_rep_index *ix)
{
	free(ix->order);
	memset(ix, 0, sizeof *ix);
}

/* First position whose key is not below (flow, rule), or with upper, above it. */
static size_t index_bound(const struct rt_rep_index *ix, uint32_t flow, enum rt_rule rule, bool upper)
{
	size_t lo = 0, hi = ix->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(rt_rep_index_at(ix, mid), flow, rule);
		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void rt_rep_index_range(const struct rt_rep_index *ix, uint32_t flow, enum rt_rule rule, size_t *begin,
			size_t *end)
{
	*begin = index_bound(ix, flow, rule, false);
	*end = index_bound(ix, flow, rule, true);
}

/* First item whose frame is not below frame (or, with upper, above it). */
static size_t frame_bound(const struct rt_violation_list *l, uint64_t frame, bool upper)
{
	size_t lo = 0, hi = l ? l->count : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t f = l->items[mid].frame;
		if (f < frame || (upper && f == frame))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void rt_rep_frame_range(const struct rt_violation_list *l, uint64_t frame, size_t *begin, size_t *end)
{
	*begin = frame_bound(l, frame, false);
	*end = frame_bound(l, frame, true);
}

void rt_rep_split(const struct rt_rep_index *ix, uint32_t flow, enum rt_rule rule, uint64_t total,
		  uint64_t *errors, uint64_t *warnings)
{
	size_t b, e;
	uint64_t err = 0, warn = 0;
	rt_rep_index_range(ix, flow, rule, &b, &e);
	for (size_t i = b; i < e; i++) {
		if (rt_rep_index_at(ix, i)->severity == RT_SEV_ERROR)
			err++;
		else
			warn++;
	}
	uint64_t unlisted = total > err + warn ? total - err - warn : 0;
	if (rt_rule_info(rule)->severity == RT_SEV_ERROR)
		err += unlisted;
	else
		warn += unlisted;
	*errors = err;
	*warnings = warn;
}
