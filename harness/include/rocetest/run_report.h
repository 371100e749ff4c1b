/* SPDX-License-Identifier: MIT */
/* Layer: report. */
/*
 * Report writers for `rocetest run` (a conformance run: test suites against
 * a device under test, rocetest/run.h). JSON (summary.json) and JUnit XML
 * for machines, one self-contained HTML page (index.html: verdict, goodput
 * plot against the line-rate limit, a table per suite) for people. The
 * per-test captures and their `rocetest check` pages are the runner's; these
 * writers only link to them.
 *
 * Strings are the runner's fixed-size arrays, NUL-terminated. Every writer
 * returns 0, or -1 when writing failed or memory ran out (errno set).
 */
#ifndef ROCETEST_RUN_REPORT_H
#define ROCETEST_RUN_REPORT_H

#include <stdio.h>

#include "rocetest/run.h"

/*
 * {"dut", "seed", "started", "wall_s", "tests", "failures", "suites",
 * "metrics"}: suites in the order their first test ran, each
 * {"name", "tests", "failures", "cases": [...]} with its tests in run order;
 * metrics the simulation speed and the goodput measurements (sorted by
 * opcode and size) with their limits. Numbers that are not finite are null,
 * and so are "failure" of a passed test and "pcap"/"html" when there is none.
 */
int rt_run_report_json(const struct rt_run_summary *s, FILE *out);

/*
 * JUnit XML (harness/tests/integration/junit.xsd): a <testsuite> per suite
 * (rocetest.run.SUITE), a <testcase> per test; a failed test has one
 * <failure type="conformance"> with every finding line, each test a
 * <system-out> with its counts, capture and `rocetest check` arguments.
 */
int rt_run_report_junit(const struct rt_run_summary *s, FILE *out);

/*
 * One page, nothing fetched: the verdict and the run's facts, the goodput
 * plot (measured per opcode and the limit as dashed curves, SVG) and table,
 * then per suite a table of its tests (failed ones first, with their
 * findings) linking each capture and its ladder page.
 */
int rt_run_report_html(const struct rt_run_summary *s, FILE *out);

#endif
