/* SPDX-License-Identifier: MIT */
/* Sorted views of the gate's arrays, for lookups. */
#include <stdlib.h>
#include <string.h>

#include "gate_priv.h"

const void **gate_sorted(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const void **v = malloc((n + 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = (const char *)base + i * size;
	qsort(v, n, sizeof *v, cmp);
	return v;
}

int gate_cmp_item_ids(const void *a, const void *b)
{
	return strcmp((*(const struct rt_gate_item *const *)a)->id, (*(const struct rt_gate_item *const *)b)->id);
}
