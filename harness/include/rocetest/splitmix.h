/* SPDX-License-Identifier: MIT */
/* Layer: model. */
/*
 * splitmix64: a fixed, well-mixed sequence from a seed. The simulations draw
 * memory contents, lengths and addresses from it, so a run is the same for
 * the same seed on every machine (unlike rand()).
 */
#ifndef ROCETEST_SPLITMIX_H
#define ROCETEST_SPLITMIX_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t rt_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* n bytes of the sequence, little-endian per 64-bit draw. */
static inline void rt_fill_random(uint8_t *p, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = rt_splitmix64(state);
		for (size_t b = 0; b < 8 && i + b < n; b++)
			p[i + b] = (uint8_t)(v >> (8 * b));
	}
}

#endif
