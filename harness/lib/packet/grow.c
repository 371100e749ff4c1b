/* SPDX-License-Identifier: MIT */
#include "rocetest/grow.h"

#include <stdlib.h>

bool rt_grow(void **items, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*items, c * size);
	if (!p)
		return false;
	*items = p;
	*cap = c;
	return true;
}
