/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/* Growing arrays that hold what a run or a comparison collects (never per packet). */
#ifndef ROCETEST_GROW_H
#define ROCETEST_GROW_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Room for element n of *items, an array of *cap elements of size bytes:
 * reallocated to twice *cap (64 the first time) when n reaches it. False,
 * with *items and *cap as they were, when memory runs out.
 */
bool rt_grow(void **items, size_t *cap, size_t n, size_t size);

#endif
