/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("rocetest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rocetest %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rocetest %s --help'.\n", cmd);
	return RT_EXIT_INPUT;
}

bool cli_parse_number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	unsigned long long n = strtoull(s, &end, 0);
	if (*end || n > max)
		return false;
	*v = n;
	return true;
}

bool cli_parse_width(const char *s, unsigned *width)
{
	uint64_t v;
	/* roce_endpoint refuses others: its streams carry whole 64-bit words. */
	if (!cli_parse_uint(s, 512, &v) || v < 64 || v % 64)
		return false;
	*width = (unsigned)v;
	return true;
}

bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_decimal(const char *s, double *out)
{
	if (!s || !(isdigit((unsigned char)*s) || *s == '.') || s[strspn(s, "0123456789.eE+-")] != '\0')
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

/* A whole number with an optional K, M or G (powers of 1024); false if not one or above max. */
bool cli_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: return false;
	}
	if (*end || v > (max >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

double cli_elapsed(const struct timespec *since)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) + (double)(now.tv_nsec - since->tv_nsec) * 1e-9;
}

void cli_progress_start(struct cli_progress *pr, const char *label)
{
	pr->enabled = isatty(STDERR_FILENO) && !getenv("ROCETEST_NO_PROGRESS");
	pr->shown = false;
	pr->label = label;
	pr->checks = 0;
	clock_gettime(CLOCK_MONOTONIC, &pr->start);
	pr->last = pr->start;
}

void cli_progress_update(struct cli_progress *pr, uint64_t bytes_done, uint64_t bytes_total, uint64_t packets)
{
	if (!pr->enabled || (++pr->checks & 1023))
		return;
	double total = cli_elapsed(&pr->start);
	if (total < 1.0 || cli_elapsed(&pr->last) < 0.1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &pr->last);
	pr->shown = true;
	double rate = (double)packets / total;
	if (bytes_total) {
		double frac = (double)bytes_done / (double)bytes_total;
		int width = 30, fill = (int)(frac * width);
		fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.2f Mpkt/s  %.2f GB/s ", pr->label, fill,
			"##############################", width - fill, "", frac * 100, rate / 1e6,
			(double)bytes_done / total / 1e9);
	} else {
		fprintf(stderr, "\r%s %llu packets  %.2f Mpkt/s ", pr->label, (unsigned long long)packets,
			rate / 1e6);
	}
}

void cli_progress_finish(struct cli_progress *pr)
{
	if (pr->shown)
		fputs("\r\033[K", stderr);
	pr->shown = false;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
