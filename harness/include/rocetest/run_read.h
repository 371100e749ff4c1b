/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * A run's summary.json (run_report.h writes it) read back into the
 * structures it was written from, and the shards of one run
 * (`rocetest run --shard I/N`) joined into the whole: `rocetest report
 * --merge` writes one summary.json, JUnit and page from them, and the gate
 * judges that as it would the unsharded run.
 */
#ifndef ROCETEST_RUN_READ_H
#define ROCETEST_RUN_READ_H

#include <stddef.h>

#include "rocetest/error.h"
#include "rocetest/run.h"

struct rt_run_read {
	struct rt_run_summary sum;	/* sum.tests is tests */
	struct rt_run_result *tests;
	size_t cap;
};

/*
 * Reads path (a run directory's summary.json) into r, which it
 * initialises. 0, or -1 with err naming the file, the line and the field;
 * r is then empty. A board run's live totals are not read (-1: they cannot
 * be joined). rt_run_read_free releases r either way.
 */
int rt_run_read_summary(struct rt_run_read *r, const char *path, struct rt_error *err);
void rt_run_read_free(struct rt_run_read *r);

/*
 * Joins n shards of one run, in any order, into out (initialised here):
 * each must be a different shard I of the same N, every I from 1 to N
 * there, all of the same device, build and seed. The tests come in the
 * order the unsharded run has them (shard I held the selection's tests
 * I, I+N, I+2N, ...); wall times and cycles add up. names[i] names shard i
 * in errors. 0, or -1 with err saying what does not fit.
 */
int rt_run_merge(struct rt_run_read *out, const struct rt_run_read *shards, size_t n, const char *const *names,
		 struct rt_error *err);

#endif
