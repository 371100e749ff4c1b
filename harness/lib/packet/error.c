/* SPDX-License-Identifier: MIT */
#include "rocetest/error.h"

#include <stdarg.h>
#include <stdio.h>

void rt_error_set(struct rt_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}
