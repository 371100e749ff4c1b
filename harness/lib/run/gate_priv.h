/* SPDX-License-Identifier: MIT */
/* Private to the release gate (gate*.c): what its loader and its comparison share. */
#ifndef ROCETEST_LIB_GATE_PRIV_H
#define ROCETEST_LIB_GATE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "rocetest/gate.h"
#include "rocetest/grow.h"

/*
 * Pointers to the n elements of size bytes at base, sorted by cmp (which
 * qsort hands two of the pointers); NULL when memory runs out. free() it.
 */
const void **gate_sorted(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Orders pointers to items by id (for gate_sorted and bsearch). */
int gate_cmp_item_ids(const void *a, const void *b);

#endif
