/* SPDX-License-Identifier: MIT */
#include "run_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- Suites -------------------------------------------------------------- */

/* qsort's comparator gets no context: each entry carries its test's suite name. */
struct by_suite {
	const char *suite;
	size_t at;		/* the test's index */
	size_t first;		/* index of the suite's first test */
};

static int cmp_name_then_at(const void *pa, const void *pb)
{
	const struct by_suite *a = pa, *b = pb;
	int c = strcmp(a->suite, b->suite);
	if (c)
		return c;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int cmp_first_then_at(const void *pa, const void *pb)
{
	const struct by_suite *a = pa, *b = pb;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

int rt_run_index_build(struct rt_run_index *ix, const struct rt_run_summary *s)
{
	memset(ix, 0, sizeof *ix);
	size_t n = s->tests ? s->n_tests : 0;
	if (!n)
		return 0;
	/* Sorting, not a scan per test: a run of a few thousand tests must not be quadratic in its report. */
	struct by_suite *k = calloc(n, sizeof *k);
	ix->order = calloc(n, sizeof *ix->order);
	ix->suites = calloc(n, sizeof *ix->suites);
	if (!k || !ix->order || !ix->suites) {
		free(k);
		rt_run_index_free(ix);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct by_suite){ .suite = s->tests[i].suite, .at = i };
	qsort(k, n, sizeof *k, cmp_name_then_at);
	for (size_t i = 0; i < n; i++)
		k[i].first = i && !strcmp(k[i].suite, k[i - 1].suite) ? k[i - 1].first : k[i].at;
	qsort(k, n, sizeof *k, cmp_first_then_at);
	for (size_t i = 0; i < n; i++) {
		const struct rt_run_result *r = &s->tests[k[i].at];
		ix->order[i] = k[i].at;
		if (!i || k[i].first != k[i - 1].first)
			ix->suites[ix->n_suites++] = (struct rt_run_suite){ .name = r->suite, .begin = i };
		struct rt_run_suite *su = &ix->suites[ix->n_suites - 1];
		su->end = i + 1;
		su->failures += rt_run_failed(r);
		su->untimed += r->untimed;
		su->wall_s += rt_run_nonneg(r->wall_s);
		ix->failures += rt_run_failed(r);
		ix->untimed += r->untimed;
		ix->wall_s += rt_run_nonneg(r->wall_s);
	}
	free(k);
	return 0;
}

void rt_run_index_free(struct rt_run_index *ix)
{
	free(ix->order);
	free(ix->suites);
	memset(ix, 0, sizeof *ix);
}

/* ---- Goodput ------------------------------------------------------------- */

static int cmp_point(const void *pa, const void *pb)
{
	const struct rt_run_point *a = pa, *b = pb;
	if (a->r->opcode != b->r->opcode)
		return a->r->opcode < b->r->opcode ? -1 : 1;
	if (a->r->msg_size != b->r->msg_size)
		return a->r->msg_size < b->r->msg_size ? -1 : 1;
	/* Same array: the address is the run order. */
	return a->r < b->r ? -1 : a->r > b->r;
}

double rt_run_limit(const struct rt_run_summary *s, const struct rt_run_result *r)
{
	if (isfinite(r->limit_gbps) && r->limit_gbps > 0)
		return r->limit_gbps;
	return rt_goodput_limit_gbps((enum rt_dut_opcode)r->opcode, r->msg_size, s->pmtu, s->line_gbps);
}

int rt_run_points(const struct rt_run_summary *s, struct rt_run_point **points, size_t *n)
{
	*points = NULL;
	*n = 0;
	size_t count = 0;
	for (size_t i = 0; s->tests && i < s->n_tests; i++)
		count += s->tests[i].has_goodput;
	if (!count)
		return 0;
	struct rt_run_point *p = calloc(count, sizeof *p);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < s->n_tests; i++) {
		const struct rt_run_result *r = &s->tests[i];
		if (!r->has_goodput)
			continue;
		p[k++] = (struct rt_run_point){ .r = r, .gbps = isfinite(r->goodput_gbps) ? r->goodput_gbps : NAN,
						 .limit = rt_run_limit(s, r) };
	}
	qsort(p, count, sizeof *p, cmp_point);
	*points = p;
	*n = count;
	return 0;
}

double rt_run_write_64k(const struct rt_run_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (points[i].r->opcode == RT_DUT_WRITE && points[i].r->msg_size == 65536 && isfinite(points[i].gbps))
			return points[i].gbps;
	return NAN;
}

/* ---- Formatting ---------------------------------------------------------- */

void rt_run_opcode_name(uint8_t opcode, char *buf, size_t size)
{
	if (opcode <= RT_DUT_WRITE_IMM)
		snprintf(buf, size, "%s", rt_dut_opcode_name((enum rt_dut_opcode)opcode));
	else
		snprintf(buf, size, "opcode %u", opcode);
}

void rt_run_size(uint64_t bytes, char *buf, size_t size)
{
	const uint64_t kb = 1024, mb = kb * kb, gb = mb * kb;
	if (bytes && bytes % gb == 0)
		snprintf(buf, size, "%llu GB", (unsigned long long)(bytes / gb));
	else if (bytes && bytes % mb == 0)
		snprintf(buf, size, "%llu MB", (unsigned long long)(bytes / mb));
	else if (bytes && bytes % kb == 0)
		snprintf(buf, size, "%llu KB", (unsigned long long)(bytes / kb));
	else
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
}

double rt_run_nonneg(double v)
{
	return isfinite(v) && v > 0 ? v : 0.0;
}

void rt_run_first_line(const char *text, char *buf, size_t size)
{
	if (!size)
		return;
	size_t len = strcspn(text, "\n");
	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), text);
}

void rt_run_xml_lines(FILE *out, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		rt_rep_xmlf(out, "%.*s", (int)len, text);
		fputc('\n', out);
		text += len + (text[len] == '\n');
	}
}

int rt_run_view_build(struct rt_run_view *v, const struct rt_run_summary *s)
{
	v->points = NULL;
	v->n_points = 0;
	if (rt_run_index_build(&v->ix, s))
		return -1;
	if (rt_run_points(s, &v->points, &v->n_points)) {
		rt_run_index_free(&v->ix);
		return -1;
	}
	return 0;
}

void rt_run_view_free(struct rt_run_view *v)
{
	free(v->points);
	v->points = NULL;
	rt_run_index_free(&v->ix);
}
