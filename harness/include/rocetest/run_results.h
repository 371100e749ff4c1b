/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * A results file: tests that another tool ran and measured (the interop
 * lab's results.tsv, harness/interop/), read into struct rt_run_result so
 * that the run report writers (run_report.h) give them the summary.json,
 * JUnit and HTML of a conformance run (`rocetest report`).
 *
 * One test a line, seven fields separated by one tab each; empty lines and
 * lines whose first character is '#' are ignored:
 *
 *   SUITE  NAME  VERDICT  WALL_S  CAPTURE  FIGURES  TEXT
 *
 *   SUITE     1..31 characters of [A-Za-z0-9._-]
 *   NAME      1..63 characters of the same; SUITE/NAME appears once
 *   VERDICT   pass or fail
 *   WALL_S    the test's wall time in seconds (a finite number >= 0)
 *   CAPTURE   the test's capture relative to the report directory, or "-"
 *   FIGURES   "-", or space-separated KEY=VALUE, each key at most once:
 *               op=SEND|SEND_IMM|WRITE|WRITE_IMM  what the throughput is of
 *               size=BYTES                         message size
 *               gbps=G          throughput (needs op and size)
 *               messages=N      messages completed
 *               bytes=N         their payload bytes
 *               cq_errors=N     completions with an error status
 *   TEXT      what the test did and measured; for a failed test, why it
 *             failed (required then). At most 1023 characters.
 *
 * A passed test with cq_errors above 0 is refused: completion errors fail
 * a test. The description of a result is TEXT (its first 252 characters
 * and "..." when longer) followed by "; N completion errors" when cq_errors
 * is given; a failed test's failure is TEXT whole.
 */
#ifndef ROCETEST_RUN_RESULTS_H
#define ROCETEST_RUN_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include "rocetest/error.h"
#include "rocetest/run.h"

struct rt_run_results {
	struct rt_run_result *tests;
	size_t n_tests;
	size_t failures;
	double wall_s;		/* the tests' wall times added up */
};

/*
 * Reads every line of f (named name in errors) into r, which it initialises.
 * 0, or -1 with err naming the file, the line and the field; r is then
 * empty. rt_run_results_free releases r either way.
 */
int rt_run_results_read(struct rt_run_results *r, FILE *f, const char *name, struct rt_error *err);
void rt_run_results_free(struct rt_run_results *r);

#endif
