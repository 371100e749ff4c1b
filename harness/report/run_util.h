/* SPDX-License-Identifier: MIT */
/*
 * What the run report writers (run_json.c, run_junit.c, run_html.c,
 * run_plot.c) share: the tests grouped by suite, the goodput measurements
 * sorted for plotting, and names and numbers formatted one way for all.
 * Internal to harness/report/.
 */
#ifndef ROCETEST_RUN_UTIL_H
#define ROCETEST_RUN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocetest/run.h"

/* ---- Suites -------------------------------------------------------------- */

/* One suite: [begin, end) of rt_run_index.order. */
struct rt_run_suite {
	const char *name;
	size_t begin, end;
	uint64_t failures, untimed;
	double wall_s;		/* its tests' wall times (rt_run_seconds) added up */
};

/*
 * The tests grouped by suite: suites in the order their first test ran,
 * the tests of each in run order. Every writer walks the run this way;
 * the runner need not have run a suite's tests back to back.
 */
struct rt_run_index {
	size_t *order;		/* indexes into the summary's tests */
	struct rt_run_suite *suites;
	size_t n_suites;
	uint64_t failures, untimed;	/* rt_run_failed; rt_run_result.untimed */
	double wall_s;		/* all tests */
};

/* 0, or -1 with errno ENOMEM. */
int rt_run_index_build(struct rt_run_index *ix, const struct rt_run_summary *s);
void rt_run_index_free(struct rt_run_index *ix);

static inline const struct rt_run_result *rt_run_at(const struct rt_run_summary *s, const struct rt_run_index *ix,
						    size_t i)
{
	return &s->tests[ix->order[i]];
}

/* ---- Goodput ------------------------------------------------------------- */

/* One throughput test's measurement. */
struct rt_run_point {
	const struct rt_run_result *r;
	double gbps;		/* as measured; NAN when the test could not measure it */
	double limit;		/* rt_run_limit */
};

/*
 * The tests with has_goodput sorted by opcode, message size, then run
 * order: the plot's series, the table's rows, the JSON's "goodput". *points
 * is malloc'ed (NULL when there are none). 0, or -1 with errno ENOMEM.
 */
int rt_run_points(const struct rt_run_summary *s, struct rt_run_point **points, size_t *n);

/*
 * A throughput test's line-rate limit: the runner's limit_gbps when it set
 * one, else rt_goodput_limit_gbps at the run's PMTU and line rate.
 */
double rt_run_limit(const struct rt_run_summary *s, const struct rt_run_result *r);

/* What the JSON and HTML writers both read: the suite index and the goodput points. */
struct rt_run_view {
	struct rt_run_index ix;
	struct rt_run_point *points;
	size_t n_points;
};
/* 0, or -1 with errno ENOMEM (nothing left to free). */
int rt_run_view_build(struct rt_run_view *v, const struct rt_run_summary *s);
void rt_run_view_free(struct rt_run_view *v);

/* The measured goodput of the first WRITE of 64 KB (the headline number), NAN when no test measured one. */
double rt_run_write_64k(const struct rt_run_point *points, size_t n);

/*
 * The goodput plot (run_plot.c): an inline SVG of the measured goodput per
 * opcode against message size (log axis), the line-rate limit of each of
 * those opcodes as a dashed curve, and the legend below it. n must not be 0.
 */
void rt_run_plot(FILE *out, const struct rt_run_summary *s, const struct rt_run_point *points, size_t n);
/* Its CSS, for the page's <style>. */
extern const char rt_run_plot_css[];
/* The colour of an opcode's series, for anything that refers to it. */
const char *rt_run_series_colour(uint8_t opcode);

/* ---- Formatting ---------------------------------------------------------- */

/* "WRITE", "SEND_IMM"; "opcode 7" past the device's opcodes. */
void rt_run_opcode_name(uint8_t opcode, char *buf, size_t size);

/* Message sizes as people say them: "256 B", "5 KB", "1 MB"; "1000 B" when not a whole KB. */
void rt_run_size(uint64_t bytes, char *buf, size_t size);

/* A duration or rate that must print as a number: v when finite and non-negative, else 0. */
double rt_run_nonneg(double v);

/* The first line of text into buf (cut to fit). */
void rt_run_first_line(const char *text, char *buf, size_t size);

/*
 * text escaped for XML and HTML (rt_rep_xml), each line ended by a real
 * newline rather than the &#10; rt_rep_xml makes of it: the failure lines
 * stay one per line in the file, for grep and for people reading it raw.
 */
void rt_run_xml_lines(FILE *out, const char *text);

#endif
