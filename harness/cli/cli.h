/* SPDX-License-Identifier: MIT */
/* What the rocetest subcommands share: exit codes, messages, progress. */
#ifndef ROCETEST_CLI_H
#define ROCETEST_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum rt_exit {
	RT_EXIT_OK = 0,		/* conformant / all good */
	RT_EXIT_VIOLATIONS = 1,	/* violations found (bad ICRC, broken rules) */
	RT_EXIT_INPUT = 2,	/* usage error or unusable input */
};

/* Prints "rocetest: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and "Try 'rocetest CMD --help'."; returns RT_EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a whole non-negative decimal number; false if it is not one or exceeds max. */
bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* A non-negative decimal number, fractions allowed ("40.96", "1e3"); not hex, inf or nan. */
bool cli_parse_decimal(const char *s, double *out);
/* A DATA_WIDTH the FPGA endpoint supports (CLI_WIDTHS); the model of it is built per width. */
#define CLI_WIDTHS "64 to 512, a multiple of 64"
bool cli_parse_width(const char *s, unsigned *width);
/* A whole number, decimal or 0x-prefixed hex, up to max (QPNs, keys, addresses). */
bool cli_parse_number(const char *s, uint64_t max, uint64_t *v);
/* The same with an optional K, M or G suffix (powers of 1024). */
bool cli_parse_size(const char *s, uint64_t max, uint64_t *out);

/*
 * True when the two paths name the same file: the same name, or another name
 * (./x, a symlink, a hard link) for it. "-" (standard input or output) is
 * never a file here. For refusing to overwrite an input.
 */
bool cli_same_file(const char *a, const char *b);

/*
 * A progress line on stderr, only when stderr is a terminal and the job has
 * run for more than a second; redrawn at most ten times a second.
 */
struct cli_progress {
	bool enabled;
	bool shown;
	const char *label;
	struct timespec start;
	struct timespec last;
	uint64_t checks;
};
void cli_progress_start(struct cli_progress *pr, const char *label);
/* Cheap to call per packet: looks at the clock once every 1024 calls. */
void cli_progress_update(struct cli_progress *pr, uint64_t bytes_done, uint64_t bytes_total, uint64_t packets);
void cli_progress_finish(struct cli_progress *pr);
double cli_elapsed(const struct timespec *since);

int cmd_show(int argc, char **argv);
int cmd_icrc(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_board(int argc, char **argv);
int cmd_cm(int argc, char **argv);
int cmd_peer(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);

/*
 * Writes a report of gate or diff to path ("-": standard output) with
 * write(ctx, out); 0, or -1 after saying why, naming what and the path.
 */
int cli_write_report(const char *what, const char *path, int (*write)(const void *ctx, FILE *out), const void *ctx);

#endif
