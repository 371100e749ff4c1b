/* SPDX-License-Identifier: MIT */
/* The violations of one capture as the reports list them: in frame order, bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/report.h"

/* What a list keeps when its cap was left 0: enough for any report, bounded for huge captures. */
#define RT_VIOLATION_LIST_DEFAULT_CAP 10000u

static void copy_violation(struct rt_report_violation *dst, const struct rt_violation *v)
{
	dst->rule = v->rule;
	dst->severity = v->severity;
	dst->frame = v->frame;
	dst->flow = v->flow;
	/* The checker's message lives only during its callback: keep a (possibly shortened) copy. */
	snprintf(dst->message, sizeof dst->message, "%s", v->message ? v->message : "");
}

/*
 * The list has no field for its allocated size, so the size follows from the
 * count: 64 items, then doubling, never past the cap. Storage must grow when
 * the count reaches one of those sizes. -1 when memory runs out.
 */
static int grow(struct rt_violation_list *l)
{
	size_t n = l->count;
	if (n != 0 && (n < 64 || (n & (n - 1)) != 0))
		return 0;
	size_t want = n == 0 ? 64 : n * 2;
	if (want > l->cap)
		want = l->cap;
	struct rt_report_violation *items = realloc(l->items, want * sizeof *items);
	if (!items)
		return -1;
	l->items = items;
	return 0;
}

int rt_violation_list_add(struct rt_violation_list *l, const struct rt_violation *v)
{
	if (l->cap == 0)
		l->cap = RT_VIOLATION_LIST_DEFAULT_CAP;
	if (l->count == l->cap) {
		/*
		 * Full. The lists are read as "the first violations of the
		 * capture", so a deferred violation at an earlier frame than the
		 * last one kept takes that one's place.
		 */
		l->dropped++;
		if (v->frame >= l->items[l->count - 1].frame)
			return 0;
		l->count--;
	} else if (grow(l) != 0) {
		return -1;
	}
	/*
	 * Violations arrive mostly in frame order; deferred rules report an
	 * earlier frame only a little late. Searching from the back makes the
	 * common case O(1). Equal frames keep their arrival order.
	 */
	size_t i = l->count;
	while (i > 0 && l->items[i - 1].frame > v->frame)
		i--;
	memmove(&l->items[i + 1], &l->items[i], (l->count - i) * sizeof l->items[0]);
	copy_violation(&l->items[i], v);
	l->count++;
	return 0;
}

void rt_violation_list_free(struct rt_violation_list *l)
{
	free(l->items);
	l->items = NULL;
	l->count = 0;
	l->dropped = 0;
}
