/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/* Errors for people: one line that names the file, the frame and the field. */
#ifndef ROCETEST_ERROR_H
#define ROCETEST_ERROR_H

struct rt_error {
	char msg[512];
};

void rt_error_set(struct rt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
