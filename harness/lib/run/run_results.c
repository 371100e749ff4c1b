/* SPDX-License-Identifier: MIT */
/*
 * Reading a results file (rocetest/run_results.h) into run results. Every
 * field is checked: a report built from a line the parser guessed at would
 * show figures nobody measured.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rocetest/run_results.h"

enum { F_SUITE, F_NAME, F_VERDICT, F_WALL, F_CAPTURE, F_FIGURES, F_TEXT, N_FIELDS };

static const char *const field_name[N_FIELDS] = { "SUITE", "NAME", "VERDICT", "WALL_S", "CAPTURE", "FIGURES", "TEXT" };

enum figure { FIG_OP, FIG_SIZE, FIG_GBPS, FIG_MESSAGES, FIG_BYTES, FIG_CQ_ERRORS, N_FIGURES };

static const char *const figure_key[N_FIGURES] = { "op", "size", "gbps", "messages", "bytes", "cq_errors" };

struct figures {
	bool has[N_FIGURES];
	enum rt_dut_opcode op;
	double gbps;
	uint64_t count[N_FIGURES];	/* FIG_SIZE, FIG_MESSAGES, FIG_BYTES, FIG_CQ_ERRORS */
};

struct reader {
	const char *name;
	unsigned line;
	struct rt_error *err;
};

static int line_error(const struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int line_error(const struct reader *rd, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	rt_error_set(rd->err, "%s:%u: %s", rd->name, rd->line, what);
	return -1;
}

/* Splits s at its tabs; the number of fields, at most N_FIELDS + 1 (more: one too many). */
static int split_fields(char *s, char *field[N_FIELDS + 1])
{
	int n = 0;
	for (;;) {
		field[n++] = s;
		char *tab = strchr(s, '\t');
		if (!tab || n == N_FIELDS + 1)
			return n;
		*tab = '\0';
		s = tab + 1;
	}
}

static bool valid_id(const char *s, size_t max)
{
	size_t n = strlen(s);
	return n >= 1 && n <= max && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static bool parse_count(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (!*s || strspn(s, "0123456789") != strlen(s) || *end || errno)
		return false;
	*v = x;
	return true;
}

static bool parse_real(const char *s, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(x) || x < 0)
		return false;
	*v = x;
	return true;
}

/* One KEY=VALUE of FIGURES into fg. */
static int parse_figure(const struct reader *rd, char *word, struct figures *fg)
{
	char *eq = strchr(word, '=');
	if (!eq)
		return line_error(rd, "FIGURES: '%s' is not KEY=VALUE", word);
	*eq = '\0';
	const char *value = eq + 1;
	int k = 0;
	while (k < N_FIGURES && strcmp(word, figure_key[k]))
		k++;
	if (k == N_FIGURES)
		return line_error(rd, "FIGURES: unknown key '%s' (op, size, gbps, messages, bytes, cq_errors)", word);
	if (fg->has[k])
		return line_error(rd, "FIGURES: %s given twice", word);
	bool ok = k == FIG_OP	  ? rt_dut_opcode_parse(value, &fg->op)
		  : k == FIG_GBPS ? parse_real(value, &fg->gbps)
				  : parse_count(value, &fg->count[k]);
	if (!ok)
		return line_error(rd, "FIGURES: %s=%s is not %s", word, value,
				  k == FIG_OP	  ? "SEND, SEND_IMM, WRITE or WRITE_IMM"
				  : k == FIG_GBPS ? "a finite number >= 0"
						  : "a whole number >= 0");
	fg->has[k] = true;
	return 0;
}

static int parse_figures(const struct reader *rd, char *s, struct figures *fg)
{
	memset(fg, 0, sizeof *fg);
	if (!strcmp(s, "-"))
		return 0;
	char *save = NULL;
	for (char *w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (parse_figure(rd, w, fg))
			return -1;
	if (fg->has[FIG_GBPS] && !(fg->has[FIG_OP] && fg->has[FIG_SIZE]))
		return line_error(rd, "FIGURES: gbps needs op and size (what the throughput was measured on)");
	if (fg->count[FIG_SIZE] > UINT32_MAX)
		return line_error(rd, "FIGURES: size=%llu is over 4 GiB", (unsigned long long)fg->count[FIG_SIZE]);
	return 0;
}

static void put_figures(struct rt_run_result *res, const struct figures *fg)
{
	if (fg->has[FIG_MESSAGES])
		res->wrs = res->completions = (uint32_t)(fg->count[FIG_MESSAGES] > UINT32_MAX ? UINT32_MAX
											 : fg->count[FIG_MESSAGES]);
	res->payload_bytes = fg->count[FIG_BYTES];
	res->opcode = (uint8_t)fg->op;
	res->msg_size = (uint32_t)fg->count[FIG_SIZE];
	res->has_goodput = fg->has[FIG_GBPS];
	res->goodput_gbps = fg->has[FIG_GBPS] ? fg->gbps : NAN;
	res->limit_gbps = NAN;
	res->sim_us = NAN;
	res->p_stall = NAN;
}

/* The description: TEXT (cut with "..." to fit), then the completion errors when counted. */
static void put_description(struct rt_run_result *res, const char *text, const struct figures *fg)
{
	char errors[48] = "";
	if (fg->has[FIG_CQ_ERRORS])
		snprintf(errors, sizeof errors, "%s%llu completion errors", *text ? "; " : "",
			 (unsigned long long)fg->count[FIG_CQ_ERRORS]);
	size_t elen = strlen(errors), room = sizeof res->description - 1 - elen, len = strlen(text);
	if (len > room) {
		memcpy(res->description, text, room - 3);
		memcpy(res->description + room - 3, "...", 3);
		len = room;
	} else {
		memcpy(res->description, text, len);
	}
	memcpy(res->description + len, errors, elen + 1);
}

static int check_fields(const struct reader *rd, char *field[N_FIELDS + 1], int n, bool *passed)
{
	if (n != N_FIELDS)
		return line_error(rd, "%d tab-separated fields, expected %d (SUITE NAME VERDICT WALL_S CAPTURE FIGURES TEXT)",
				  n, N_FIELDS);
	for (int k = 0; k < N_FIELDS - 1; k++)
		if (!field[k][0])
			return line_error(rd, "%s is empty", field_name[k]);
	if (!valid_id(field[F_SUITE], sizeof ((struct rt_run_result *)0)->suite - 1))
		return line_error(rd, "SUITE '%s' is not 1..31 characters of A-Z a-z 0-9 . _ -", field[F_SUITE]);
	if (!valid_id(field[F_NAME], sizeof ((struct rt_run_result *)0)->name - 1))
		return line_error(rd, "NAME '%s' is not 1..63 characters of A-Z a-z 0-9 . _ -", field[F_NAME]);
	if (strcmp(field[F_VERDICT], "pass") && strcmp(field[F_VERDICT], "fail"))
		return line_error(rd, "VERDICT '%s' is not pass or fail", field[F_VERDICT]);
	*passed = !strcmp(field[F_VERDICT], "pass");
	if (strlen(field[F_CAPTURE]) >= sizeof ((struct rt_run_result *)0)->pcap)
		return line_error(rd, "CAPTURE is longer than %zu characters", sizeof ((struct rt_run_result *)0)->pcap - 1);
	if (strlen(field[F_TEXT]) >= sizeof ((struct rt_run_result *)0)->failure)
		return line_error(rd, "TEXT is %zu characters, at most %zu", strlen(field[F_TEXT]),
				  sizeof ((struct rt_run_result *)0)->failure - 1);
	if (!*passed && !field[F_TEXT][0])
		return line_error(rd, "TEXT is empty: a failed test says why it failed");
	return 0;
}

/* One test's line (without its newline) into res. */
static int parse_line(const struct reader *rd, char *line, struct rt_run_result *res)
{
	char *field[N_FIELDS + 1];
	bool passed = false;
	struct figures fg;
	if (check_fields(rd, field, split_fields(line, field), &passed))
		return -1;
	double wall;
	if (!parse_real(field[F_WALL], &wall))
		return line_error(rd, "WALL_S '%s' is not a finite number of seconds >= 0", field[F_WALL]);
	if (parse_figures(rd, field[F_FIGURES], &fg))
		return -1;
	if (passed && fg.count[FIG_CQ_ERRORS])
		return line_error(rd, "a passed test with cq_errors=%llu: completion errors fail a test",
				  (unsigned long long)fg.count[FIG_CQ_ERRORS]);
	memset(res, 0, sizeof *res);
	snprintf(res->suite, sizeof res->suite, "%s", field[F_SUITE]);
	snprintf(res->name, sizeof res->name, "%s", field[F_NAME]);
	res->passed = passed;
	res->wall_s = wall;
	if (!passed)
		snprintf(res->failure, sizeof res->failure, "%s", field[F_TEXT]);
	if (strcmp(field[F_CAPTURE], "-"))
		snprintf(res->pcap, sizeof res->pcap, "%s", field[F_CAPTURE]);
	put_figures(res, &fg);
	put_description(res, field[F_TEXT], &fg);
	return 0;
}

static int add_result(struct rt_run_results *r, const struct reader *rd, char *line, size_t *cap)
{
	if (r->n_tests == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct rt_run_result *p = realloc(r->tests, n * sizeof *p);
		if (!p)
			return line_error(rd, "out of memory");
		r->tests = p;
		*cap = n;
	}
	struct rt_run_result *res = &r->tests[r->n_tests];
	if (parse_line(rd, line, res))
		return -1;
	for (size_t i = 0; i < r->n_tests; i++)
		if (!strcmp(r->tests[i].suite, res->suite) && !strcmp(r->tests[i].name, res->name))
			return line_error(rd, "%s/%s is there already (test %zu)", res->suite, res->name, i + 1);
	r->n_tests++;
	r->failures += !res->passed;
	r->wall_s += res->wall_s;
	return 0;
}

int rt_run_results_read(struct rt_run_results *r, FILE *f, const char *name, struct rt_error *err)
{
	memset(r, 0, sizeof *r);
	struct reader rd = { .name = name, .err = err };
	char *line = NULL;
	size_t size = 0, cap = 0;
	ssize_t len;
	int rc = 0;
	while (!rc && (len = getline(&line, &size, f)) >= 0) {
		rd.line++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if ((size_t)len != strlen(line))
			rc = line_error(&rd, "a NUL byte in the line");
		else if (len && line[0] != '#')
			rc = add_result(r, &rd, line, &cap);
	}
	if (!rc && ferror(f))
		rc = line_error(&rd, "reading failed: %s", strerror(errno));
	free(line);
	if (rc)
		rt_run_results_free(r);
	return rc;
}

void rt_run_results_free(struct rt_run_results *r)
{
	free(r->tests);
	memset(r, 0, sizeof *r);
}
