/* SPDX-License-Identifier: MIT */
/*
 * The gate's comparison: every item and metric of the candidate against
 * the baseline's of the same name, then what only the baseline has, then
 * the known-failure entries that matched nothing. Each finding is one
 * change with its class; the outcome lists them worst class first.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_priv.h"

static const char *const class_names[RT_GATE_CLASSES] = {
	[RT_GATE_REGRESSION] = "REGRESSION", [RT_GATE_XPASS] = "XPASS",		[RT_GATE_STALE] = "STALE",
	[RT_GATE_XFAIL] = "XFAIL",		[RT_GATE_STILL_FAILING] = "STILL-FAILING",
	[RT_GATE_FIXED] = "FIXED",		[RT_GATE_IMPROVED] = "IMPROVED",	[RT_GATE_CHANGED] = "CHANGED",
	[RT_GATE_NEW] = "NEW",			[RT_GATE_NOTE] = "NOTE",
};

const char *rt_gate_class_name(enum rt_gate_class c)
{
	return c < RT_GATE_CLASSES ? class_names[c] : "?";
}

struct comparison {
	const struct rt_gate_result *base, *cand;
	const struct rt_gate_policy *policy;
	const struct rt_gate_item **base_items;	/* sorted by id */
	const struct rt_gate_item **cand_items;
	const struct rt_gate_metric **base_metrics;	/* sorted by (kind, item) */
	bool *base_item_seen;				/* by index into base->items */
	bool *xfail_used;
	struct rt_gate_outcome *out;
	size_t cap;
	bool failed;
};

/* snprintf where a cut is acceptable: the texts are for people, and the buffers hold any real one. */
static void put(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void put(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

#define set_what(c, ...) put((c)->what, sizeof (c)->what, __VA_ARGS__)

/* ---- lookups ------------------------------------------------------------- */

static int cmp_metrics(const void *a, const void *b)
{
	const struct rt_gate_metric *x = *(const struct rt_gate_metric *const *)a;
	const struct rt_gate_metric *y = *(const struct rt_gate_metric *const *)b;
	return x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : strcmp(x->item, y->item);
}

/* The item named id in a sorted index of n items. */
static const struct rt_gate_item *find_item(const struct rt_gate_item *const *sorted, size_t n, const char *id)
{
	struct rt_gate_item key;
	const struct rt_gate_item *k = &key, *const *hit;
	snprintf(key.id, sizeof key.id, "%s", id);
	hit = bsearch(&k, sorted, n, sizeof *hit, gate_cmp_item_ids);
	return hit ? *hit : NULL;
}

static const struct rt_gate_item *base_item(const struct comparison *cmp, const char *id)
{
	return find_item(cmp->base_items, cmp->base->n_items, id);
}

static const struct rt_gate_metric *base_metric(const struct comparison *cmp, const struct rt_gate_metric *m)
{
	const struct rt_gate_metric **hit = bsearch(&m, cmp->base_metrics, cmp->base->n_metrics, sizeof *hit, cmp_metrics);
	return hit ? *hit : NULL;
}

/* The known-failure entry for id (marked used), or NULL. */
static const struct rt_gate_xfail *xfail_of(struct comparison *cmp, const char *id)
{
	for (size_t i = 0; i < cmp->policy->n_xfail; i++) {
		if (!strcmp(cmp->policy->xfail[i].id, id)) {
			cmp->xfail_used[i] = true;
			return &cmp->policy->xfail[i];
		}
	}
	return NULL;
}

static void xfail_where(const struct comparison *cmp, const struct rt_gate_xfail *x, char *buf, size_t size)
{
	put(buf, size, "%s:%u: %s", cmp->policy->xfail_path, x->line, x->reason);
}

/* ---- changes ------------------------------------------------------------- */

static struct rt_gate_change *add_change(struct comparison *cmp, enum rt_gate_class cls, const char *item, int metric)
{
	struct rt_gate_outcome *o = cmp->out;
	if (!rt_grow((void **)&o->changes, &cmp->cap, o->n_changes, sizeof *o->changes)) {
		cmp->failed = true;
		return NULL;
	}
	struct rt_gate_change *c = &o->changes[o->n_changes++];
	memset(c, 0, sizeof *c);
	c->cls = cls;
	c->metric = metric;
	snprintf(c->item, sizeof c->item, "%s", item);
	o->count[cls]++;
	return c;
}


static void set_page(const struct comparison *cmp, struct rt_gate_change *c, const struct rt_gate_item *it)
{
	if (it && it->page[0])
		put(c->page, sizeof c->page, "%s/%s", cmp->cand->dir, it->page);
}

static const char *verdict_word(const struct rt_gate_item *it)
{
	return !it ? "absent" : !it->evaluated ? "not evaluated" : it->passed ? "pass" : "FAIL";
}

/* ---- items --------------------------------------------------------------- */

/* What a failing candidate item is: known, still failing, or a regression. */
static void failing_item(struct comparison *cmp, const struct rt_gate_item *it, const struct rt_gate_item *b,
			 const struct rt_gate_xfail *x)
{
	enum rt_gate_class cls = x ? RT_GATE_XFAIL : b && !b->passed ? RT_GATE_STILL_FAILING : RT_GATE_REGRESSION;
	struct rt_gate_change *c = add_change(cmp, cls, it->id, -1);
	if (!c)
		return;
	char where[RT_GATE_TEXT];
	if (x) {
		xfail_where(cmp, x, where, sizeof where);
		set_what(c, "fails, a known failure (%s): %s", where, it->detail);
	} else if (b && !b->passed) {
		set_what(c, "fails as in the baseline, and is not on the xfail list: %s", it->detail);
	} else {
		set_what(c, "%s, fails: %s", b ? "passed in the baseline" : "not in the baseline", it->detail);
	}
}

static void passing_item(struct comparison *cmp, const struct rt_gate_item *it, const struct rt_gate_item *b,
			 const struct rt_gate_xfail *x)
{
	struct rt_gate_change *c;
	char where[RT_GATE_TEXT];
	if (x) {
		if ((c = add_change(cmp, RT_GATE_XPASS, it->id, -1))) {
			xfail_where(cmp, x, where, sizeof where);
			set_what(c, "on the xfail list (%s) but %s: take it off the list", where,
				 it->evaluated ? "passes" : "is not evaluated");
		}
	} else if (b && !b->passed && it->evaluated) {
		if ((c = add_change(cmp, RT_GATE_FIXED, it->id, -1)))
			set_what(c, "failed in the baseline (%s), passes", b->detail);
	} else if (b && b->passed && b->evaluated && !it->evaluated) {
		if ((c = add_change(cmp, RT_GATE_NOTE, it->id, -1)))
			set_what(c, "passed in the baseline, not evaluated in the candidate");
	} else if (!b) {
		if ((c = add_change(cmp, RT_GATE_NEW, it->id, -1)))
			set_what(c, "not in the baseline, %s", it->evaluated ? "passes" : "not evaluated");
	}
}

static void compare_items(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->cand->n_items && !cmp->failed; i++) {
		const struct rt_gate_item *it = &cmp->cand->items[i], *b = base_item(cmp, it->id);
		const struct rt_gate_xfail *x = xfail_of(cmp, it->id);
		size_t n = cmp->out->n_changes;
		if (b)
			cmp->base_item_seen[b - cmp->base->items] = true;
		if (it->passed)
			passing_item(cmp, it, b, x);
		else
			failing_item(cmp, it, b, x);
		for (size_t k = n; k < cmp->out->n_changes; k++) {
			struct rt_gate_change *c = &cmp->out->changes[k];
			snprintf(c->baseline, sizeof c->baseline, "%s", verdict_word(b));
			snprintf(c->candidate, sizeof c->candidate, "%s", verdict_word(it));
			set_page(cmp, c, it);
		}
	}
	cmp->out->items = cmp->cand->n_items;
}

/* What only the baseline has: the candidate lost it. */
static void compare_absent(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->base->n_items && !cmp->failed; i++) {
		const struct rt_gate_item *b = &cmp->base->items[i];
		if (cmp->base_item_seen[i])
			continue;
		const struct rt_gate_xfail *x = xfail_of(cmp, b->id);
		struct rt_gate_change *c = add_change(cmp, x ? RT_GATE_XFAIL : RT_GATE_REGRESSION, b->id, -1);
		if (!c)
			return;
		snprintf(c->baseline, sizeof c->baseline, "%s", verdict_word(b));
		snprintf(c->candidate, sizeof c->candidate, "absent");
		char where[RT_GATE_TEXT] = "";
		if (x)
			xfail_where(cmp, x, where, sizeof where);
		set_what(c, "in the baseline, not in the candidate%s%s%s", x ? " (a known failure: " : "", where,
			 x ? ")" : "");
	}
}

/* ---- metrics ------------------------------------------------------------- */

static void format_value(char *buf, size_t size, enum rt_gate_metric_kind kind, double v)
{
	const struct rt_gate_metric_info *mi = rt_gate_metric_info(kind);
	if (isnan(v))
		snprintf(buf, size, "not measured");
	else
		snprintf(buf, size, "%.*f%s%s", mi->decimals, v, mi->unit[0] ? " " : "", mi->unit);
}

/* "-1.54 %" or "+3"; how a metric moved, in its tolerance's terms. */
static void format_change(char *buf, size_t size, double change, bool relative)
{
	if (isinf(change))
		snprintf(buf, size, "%s", change > 0 ? "up from 0" : "down from 0");
	else if (relative)
		snprintf(buf, size, "%+.2f %%", change * 100);
	else
		snprintf(buf, size, "%+g", change);
}

/*
 * How much worse the candidate is (positive) or better (negative), in the
 * tolerance's terms; NAN when both are unmeasured. An unmeasured candidate
 * of a measured baseline is infinitely worse.
 */
static double worsening(enum rt_gate_metric_kind kind, double base, double cand, bool relative)
{
	if (isnan(base) || isnan(cand))
		return isnan(cand) && isnan(base) ? NAN : isnan(cand) ? INFINITY : -INFINITY;
	double d = rt_gate_metric_info(kind)->higher_is_better ? base - cand : cand - base;
	if (!relative)
		return d;
	if (base == 0)
		return d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
	return d / fabs(base);
}

static enum rt_gate_class metric_class(double worse, double tolerance, const struct rt_gate_xfail *x)
{
	if (worse > tolerance)
		return x ? RT_GATE_XFAIL : RT_GATE_REGRESSION;
	if (x)
		return RT_GATE_XPASS;
	return worse < -tolerance ? RT_GATE_IMPROVED : RT_GATE_CHANGED;
}

static void compare_metric(struct comparison *cmp, const struct rt_gate_metric *m, const struct rt_gate_metric *b)
{
	const struct rt_gate_metric_info *mi = rt_gate_metric_info(m->kind);
	char id[RT_GATE_ID + 32], where[RT_GATE_TEXT] = "", moved[32];
	snprintf(id, sizeof id, "%s:%s", mi->name, m->item);
	const struct rt_gate_xfail *x = xfail_of(cmp, id);
	double tol;
	bool rel;
	rt_gate_tolerance_of(cmp->policy, m->kind, m->item, &tol, &rel);
	double worse = worsening(m->kind, b->value, m->value, rel);
	if (isnan(worse) || (worse == 0 && !x))
		return;
	enum rt_gate_class cls = metric_class(worse, tol, x);
	struct rt_gate_change *c = add_change(cmp, cls, m->item, (int)m->kind);
	if (!c)
		return;
	format_value(c->baseline, sizeof c->baseline, m->kind, b->value);
	format_value(c->candidate, sizeof c->candidate, m->kind, m->value);
	/* The change as people read it: the sign of the value's own movement. */
	c->change = mi->higher_is_better ? -worse : worse;
	c->relative = rel;
	c->tolerance = tol;
	format_change(moved, sizeof moved, c->change, rel);
	const char *how = cls == RT_GATE_REGRESSION || cls == RT_GATE_XFAIL ? "worse by more than"
			  : cls == RT_GATE_IMPROVED				? "better by more than"
										: "within";
	set_what(c, "%s %s -> %s (%s), %s the tolerance of %g%s", mi->name, c->baseline, c->candidate, moved, how,
		 rel ? tol * 100 : tol, rel ? " %" : "");
	if (x) {
		size_t n = strlen(c->what);
		xfail_where(cmp, x, where, sizeof where);
		put(c->what + n, sizeof c->what - n, "; %s (%s)%s",
			 cls == RT_GATE_XFAIL ? "a known failure" : "on the xfail list", where,
			 cls == RT_GATE_XFAIL ? "" : ": take it off the list");
	}
}

/* Violations of an item that went from pass to fail or back: its verdict's change says it already. */
static bool said_by_verdict(const struct comparison *cmp, const struct rt_gate_metric *m)
{
	if (m->kind != RT_GATE_VIOLATIONS)
		return false;
	const struct rt_gate_item *b = base_item(cmp, m->item);
	const struct rt_gate_item *c = find_item(cmp->cand_items, cmp->cand->n_items, m->item);
	return b && c && b->passed != c->passed;
}

static void compare_metrics(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->cand->n_metrics && !cmp->failed; i++) {
		const struct rt_gate_metric *m = &cmp->cand->metrics[i], *b = base_metric(cmp, m);
		if (!b || said_by_verdict(cmp, m))
			continue;
		size_t n = cmp->out->n_changes;
		compare_metric(cmp, m, b);
		cmp->out->metrics++;
		if (cmp->out->n_changes > n)
			set_page(cmp, &cmp->out->changes[n], find_item(cmp->cand_items, cmp->cand->n_items, m->item));
	}
}

/* ---- the rest ------------------------------------------------------------ */

static void stale_entries(struct comparison *cmp)
{
	for (size_t i = 0; i < cmp->policy->n_xfail && !cmp->failed; i++) {
		const struct rt_gate_xfail *x = &cmp->policy->xfail[i];
		struct rt_gate_change *c = cmp->xfail_used[i] ? NULL : add_change(cmp, RT_GATE_STALE, x->id, -1);
		if (!c)
			continue;
		snprintf(c->baseline, sizeof c->baseline, "absent");
		snprintf(c->candidate, sizeof c->candidate, "absent");
		set_what(c, "%s:%u names nothing either result has: correct or remove it", cmp->policy->xfail_path,
			 x->line);
	}
}

/* Results that differ in what they ran: said once, before the findings it may explain. */
static void notes(struct comparison *cmp)
{
	const struct rt_gate_result *b = cmp->base, *c = cmp->cand;
	struct rt_gate_change *ch;
	if (b->has_seed && c->has_seed && b->seed != c->seed && (ch = add_change(cmp, RT_GATE_NOTE, "", -1)))
		set_what(ch, "the baseline ran with seed %llu, the candidate with seed %llu: lengths, addresses and "
			 "memory contents differ, and metrics with them", (unsigned long long)b->seed,
			 (unsigned long long)c->seed);
	if (strcmp(b->dut, c->dut) && (ch = add_change(cmp, RT_GATE_NOTE, "", -1)))
		set_what(ch, "the baseline's device is '%s', the candidate's '%s'", b->dut, c->dut);
}

/* Worst class first; within a class, the order they were found in. */
static int order_by_class(struct rt_gate_outcome *o)
{
	struct rt_gate_change *sorted = malloc((o->n_changes + 1) * sizeof *sorted);
	if (!sorted)
		return -1;
	size_t n = 0;
	for (int cls = 0; cls < RT_GATE_CLASSES; cls++)
		for (size_t i = 0; i < o->n_changes; i++)
			if (o->changes[i].cls == (enum rt_gate_class)cls)
				sorted[n++] = o->changes[i];
	free(o->changes);
	o->changes = sorted;
	return 0;
}

static void comparison_free(struct comparison *cmp)
{
	free(cmp->base_items);
	free(cmp->cand_items);
	free(cmp->base_metrics);
	free(cmp->base_item_seen);
	free(cmp->xfail_used);
}

int rt_gate_compare(const struct rt_gate_result *baseline, const struct rt_gate_result *candidate,
		    const struct rt_gate_policy *policy, struct rt_gate_outcome *out, struct rt_error *err)
{
	static const char *const source[] = { "a rocetest run report", "a rocetest check --json report" };
	static const struct rt_gate_policy no_policy;
	memset(out, 0, sizeof *out);
	if (baseline->source != candidate->source) {
		rt_error_set(err, "%s is %s, %s %s: compare like with like", baseline->path, source[baseline->source],
			     candidate->path, source[candidate->source]);
		return -1;
	}
	out->baseline = baseline;
	out->candidate = candidate;
	out->strict_xfail = policy && policy->strict_xfail;
	struct comparison cmp = {
		.base = baseline, .cand = candidate, .policy = policy ? policy : &no_policy, .out = out,
		.base_items = (const struct rt_gate_item **)gate_sorted(baseline->items, baseline->n_items,
									 sizeof *baseline->items, gate_cmp_item_ids),
		.cand_items = (const struct rt_gate_item **)gate_sorted(candidate->items, candidate->n_items,
									 sizeof *candidate->items, gate_cmp_item_ids),
		.base_metrics = (const struct rt_gate_metric **)gate_sorted(baseline->metrics, baseline->n_metrics,
									     sizeof *baseline->metrics, cmp_metrics), .base_item_seen = calloc(baseline->n_items + 1, sizeof(bool)),
		.xfail_used = calloc((policy ? policy->n_xfail : 0) + 1, sizeof(bool)),
	};
	cmp.failed = !cmp.base_items || !cmp.cand_items || !cmp.base_metrics || !cmp.base_item_seen || !cmp.xfail_used;
	if (!cmp.failed) {
		notes(&cmp);
		compare_items(&cmp);
		compare_absent(&cmp);
		compare_metrics(&cmp);
		stale_entries(&cmp);
	}
	comparison_free(&cmp);
	if (cmp.failed || order_by_class(out)) {
		rt_gate_outcome_free(out);
		rt_error_set(err, "out of memory");
		return -1;
	}
	return 0;
}

bool rt_gate_passed(const struct rt_gate_outcome *o)
{
	if (o->count[RT_GATE_REGRESSION])
		return false;
	return !o->strict_xfail || (!o->count[RT_GATE_XPASS] && !o->count[RT_GATE_STALE]);
}

void rt_gate_outcome_free(struct rt_gate_outcome *o)
{
	free(o->changes);
	o->changes = NULL;
	o->n_changes = 0;
}

void rt_gate_change_id(const struct rt_gate_change *c, char *buf, size_t size)
{
	if (c->metric < 0)
		snprintf(buf, size, "%s", c->item);
	else
		snprintf(buf, size, "%s:%s", rt_gate_metric_info((enum rt_gate_metric_kind)c->metric)->name, c->item);
}
