/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/* Writing JSON text: string escaping (everything else is printf of numbers). */
#ifndef ROCETEST_JSON_H
#define ROCETEST_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void rt_json_string(FILE *out, const char *s);

#endif
