/* SPDX-License-Identifier: MIT */
/*
 * The gate's reports: the table people read in the CI log, JSON for tools,
 * JUnit XML for the CI's test view (one case per compared item, so a
 * regression shows as a failed test with the same name every release).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/gate_report.h"
#include "util.h"

/* The change fails the gate. */
static bool failing(const struct rt_gate_outcome *o, const struct rt_gate_change *c)
{
	return c->cls == RT_GATE_REGRESSION || (o->strict_xfail && (c->cls == RT_GATE_XPASS || c->cls == RT_GATE_STALE));
}

static const char *result_kind(const struct rt_gate_result *r)
{
	return r->source == RT_GATE_SOURCE_RUN ? "tests" : "captures and rules";
}

/* A class as JSON keys and the summary line name it: "regression", "still_failing". */
static void class_key(enum rt_gate_class cls, char *buf, size_t size)
{
	snprintf(buf, size, "%s", rt_gate_class_name(cls));
	for (char *p = buf; *p; p++)
		*p = *p == '-' ? '_' : (char)tolower((unsigned char)*p);
}

/* "regression 2, xfail 1, changed 3" over the classes that occurred; "nothing changed" when none did. */
static void class_counts(const struct rt_gate_outcome *o, FILE *out)
{
	const char *sep = "";
	for (int k = 0; k < RT_GATE_CLASSES; k++) {
		char name[32];
		if (!o->count[k])
			continue;
		class_key((enum rt_gate_class)k, name, sizeof name);
		fprintf(out, "%s%s %zu", sep, name, o->count[k]);
		sep = ", ";
	}
	if (!*sep)
		fputs("nothing changed", out);
}

/* ---- text ------------------------------------------------------------------ */

int rt_gate_report_text(const struct rt_gate_outcome *o, bool only_failing, FILE *out)
{
	int width = 8;
	char id[RT_GATE_ID + 32];
	for (size_t i = 0; i < o->n_changes; i++) {
		rt_gate_change_id(&o->changes[i], id, sizeof id);
		int n = (int)strlen(id);
		if (n > width && n <= 48)
			width = n;
	}
	for (size_t i = 0; i < o->n_changes; i++) {
		const struct rt_gate_change *c = &o->changes[i];
		if (only_failing && !failing(o, c))
			continue;
		rt_gate_change_id(c, id, sizeof id);
		fprintf(out, "%-13s  %-*s  %s", rt_gate_class_name(c->cls), width, id[0] ? id : "-", c->what);
		if (c->page[0])
			fprintf(out, " [%s]", c->page);
		fputc('\n', out);
	}
	fprintf(out, "gate: %s: ", rt_gate_passed(o) ? "PASS" : "FAIL");
	class_counts(o, out);
	fprintf(out, " (%zu %s, %zu metrics compared); candidate %s against baseline %s\n", o->items,
		result_kind(o->candidate), o->metrics, o->candidate->path, o->baseline->path);
	return rt_rep_finish(out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_key_str(FILE *out, const char *sep, const char *key, const char *value)
{
	fprintf(out, "%s\"%s\":", sep, key);
	if (value)
		rt_rep_json_str(out, value);
	else
		fputs("null", out);
}

static void json_change(FILE *out, const struct rt_gate_change *c)
{
	char id[RT_GATE_ID + 32], cls[32];
	class_key(c->cls, cls, sizeof cls);
	rt_gate_change_id(c, id, sizeof id);
	json_key_str(out, "{", "class", cls);
	json_key_str(out, ",", "id", id);
	json_key_str(out, ",", "item", c->item);
	json_key_str(out, ",", "metric",
		     c->metric < 0 ? NULL : rt_gate_metric_info((enum rt_gate_metric_kind)c->metric)->name);
	json_key_str(out, ",", "baseline", c->baseline);
	json_key_str(out, ",", "candidate", c->candidate);
	bool metric = c->metric >= 0 && c->item[0];
	fputs(",\"change\":", out);
	rt_rep_json_num(out, metric ? c->change : NAN);
	fprintf(out, ",\"relative\":%s,\"tolerance\":", metric && c->relative ? "true" : "false");
	rt_rep_json_num(out, metric ? c->tolerance : NAN);
	json_key_str(out, ",", "what", c->what);
	json_key_str(out, ",", "page", c->page[0] ? c->page : NULL);
	fputc('}', out);
}

int rt_gate_report_json(const struct rt_gate_outcome *o, FILE *out)
{
	json_key_str(out, "{", "baseline", o->baseline->path);
	json_key_str(out, ",", "candidate", o->candidate->path);
	fprintf(out, ",\"verdict\":\"%s\",\"strict_xfail\":%s,\"compared\":{\"items\":%zu,\"metrics\":%zu},\n",
		rt_gate_passed(o) ? "pass" : "fail", o->strict_xfail ? "true" : "false", o->items, o->metrics);
	fputs("\"summary\":{", out);
	for (int k = 0; k < RT_GATE_CLASSES; k++) {
		char name[32];
		class_key((enum rt_gate_class)k, name, sizeof name);
		fprintf(out, "%s\"%s\":%zu", k ? "," : "", name, o->count[k]);
	}
	fputs("},\n\"changes\":[", out);
	for (size_t i = 0; i < o->n_changes; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_change(out, &o->changes[i]);
	}
	fputs(o->n_changes ? "\n]}\n" : "]}\n", out);
	return rt_rep_finish(out);
}

/* ---- JUnit ----------------------------------------------------------------- */

/* The changes sorted by item (then as found), so each test case finds its own. */
struct by_item {
	const struct rt_gate_change *changes;
	size_t *order;
	size_t n;
};

static int cmp_change_item(const void *a, const void *b, void *arg)
{
	const struct rt_gate_change *changes = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(changes[x].item, changes[y].item);
	return c ? c : (x > y) - (x < y);
}

static int by_item_build(struct by_item *bi, const struct rt_gate_outcome *o)
{
	bi->changes = o->changes;
	bi->n = o->n_changes;
	bi->order = malloc((bi->n + 1) * sizeof *bi->order);
	if (!bi->order)
		return -1;
	for (size_t i = 0; i < bi->n; i++)
		bi->order[i] = i;
	qsort_r(bi->order, bi->n, sizeof *bi->order, cmp_change_item, (void *)o->changes);
	return 0;
}

/* [*begin, *end) of bi->order: the changes of item. */
static void by_item_range(const struct by_item *bi, const char *item, size_t *begin, size_t *end)
{
	size_t lo = 0, hi = bi->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(bi->changes[bi->order[mid]].item, item) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*begin = lo;
	while (lo < bi->n && !strcmp(bi->changes[bi->order[lo]].item, item))
		lo++;
	*end = lo;
}

/* One test case: failed when a change of the item fails the gate, skipped when it is a known failure. */
static void junit_case(FILE *out, const struct rt_gate_outcome *o, const struct by_item *bi, const char *item,
		       size_t *failures, size_t *skipped)
{
	size_t begin, end;
	by_item_range(bi, item, &begin, &end);
	const struct rt_gate_change *fail = NULL, *xfail = NULL;
	for (size_t i = begin; i < end; i++) {
		const struct rt_gate_change *c = &bi->changes[bi->order[i]];
		if (!fail && failing(o, c))
			fail = c;
		if (!xfail && c->cls == RT_GATE_XFAIL)
			xfail = c;
	}
	fputs("    <testcase name=\"", out);
	rt_rep_xml(out, item);
	fputs("\" classname=\"rocetest.gate\" time=\"0\">\n", out);
	if (fail || xfail) {
		fprintf(out, "      <%s message=\"", fail ? "failure type=\"regression\"" : "skipped");
		rt_rep_xml(out, (fail ? fail : xfail)->what);
		fputs("\"/>\n", out);
		++*(fail ? failures : skipped);
	}
	if (end > begin) {
		fputs("      <system-out>", out);
		for (size_t i = begin; i < end; i++) {
			const struct rt_gate_change *c = &bi->changes[bi->order[i]];
			rt_rep_xmlf(out, "%s: %s%s%s", rt_gate_class_name(c->cls), c->what, c->page[0] ? " " : "", c->page);
			fputc('\n', out);
		}
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
}

/*
 * The cases: the candidate's items, then what only the baseline or the
 * xfail list names; returns how many.
 */
static size_t junit_cases(FILE *out, const struct rt_gate_outcome *o, const struct by_item *bi, size_t *failures,
			  size_t *skipped)
{
	size_t cases = o->candidate->n_items;
	for (size_t i = 0; i < o->candidate->n_items; i++)
		junit_case(out, o, bi, o->candidate->items[i].id, failures, skipped);
	for (size_t i = 0; i < o->n_changes; i++) {
		const struct rt_gate_change *c = &o->changes[i];
		if (c->metric < 0 && c->item[0] && !strcmp(c->candidate, "absent")) {
			junit_case(out, o, bi, c->item, failures, skipped);
			cases++;
		}
	}
	return cases;
}

/* What concerns the whole comparison (another seed, another device), in the suite's <system-out>. */
static void junit_notes(FILE *out, const struct rt_gate_outcome *o)
{
	bool any = false;
	for (size_t i = 0; i < o->n_changes; i++) {
		const struct rt_gate_change *c = &o->changes[i];
		if (c->item[0])
			continue;
		fputs(any ? "" : "    <system-out>", out);
		rt_rep_xmlf(out, "%s: %s", rt_gate_class_name(c->cls), c->what);
		fputc('\n', out);
		any = true;
	}
	if (any)
		fputs("</system-out>\n", out);
}

int rt_gate_report_junit(const struct rt_gate_outcome *o, FILE *out)
{
	struct by_item bi;
	if (by_item_build(&bi, o))
		return -1;
	/* The counts lead the suite element: the cases go to a buffer first. */
	char *body = NULL;
	size_t body_len = 0, failures = 0, skipped = 0, cases;
	FILE *mem = open_memstream(&body, &body_len);
	if (!mem) {
		free(bi.order);
		return -1;
	}
	cases = junit_cases(mem, o, &bi, &failures, &skipped);
	fclose(mem);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites name=\"rocetest gate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"0\">\n",
		cases, failures);
	fprintf(out, "  <testsuite name=\"rocetest.gate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
		"time=\"0\">\n", cases, failures, skipped);
	fputs("    <properties>\n      <property name=\"baseline\" value=\"", out);
	rt_rep_xml(out, o->baseline->path);
	fputs("\"/>\n      <property name=\"candidate\" value=\"", out);
	rt_rep_xml(out, o->candidate->path);
	fputs("\"/>\n    </properties>\n", out);
	fwrite(body, 1, body_len, out);
	free(body);
	free(bi.order);
	junit_notes(out, o);
	fputs("  </testsuite>\n</testsuites>\n", out);
	return rt_rep_finish(out);
}
