/* SPDX-License-Identifier: MIT */
/* Layer: report. */
/*
 * Report writers for `rocetest gate` (rocetest/gate.h): a table for the
 * terminal, JSON and JUnit XML for CI. Each returns 0, or -1 when writing
 * failed (errno set).
 */
#ifndef ROCETEST_GATE_REPORT_H
#define ROCETEST_GATE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "rocetest/gate.h"

/*
 * One line per change, worst first ("REGRESSION  loss/tail-loss  passed in
 * the baseline, fails: ... [page]"), then the verdict line ("gate: FAIL: 1
 * regression ...; candidate PATH against baseline PATH"). only_failing
 * leaves out every change that does not fail the gate.
 */
int rt_gate_report_text(const struct rt_gate_outcome *o, bool only_failing, FILE *out);

/*
 * {"baseline", "candidate", "verdict": "pass"|"fail", "strict_xfail",
 *  "compared": {"items", "metrics"}, "summary": {CLASS: count, ...},
 *  "changes": [{"class", "id", "item", "metric", "baseline", "candidate",
 *  "change", "relative", "tolerance", "what", "page"}]}; class names in
 * lower case ("regression", "still_failing"), metric null for an item's
 * verdict, change and tolerance null for an item.
 */
int rt_gate_report_json(const struct rt_gate_outcome *o, FILE *out);

/*
 * One <testsuite name="rocetest.gate">, a <testcase> per item of either
 * result (and per stale xfail entry): a <failure> when the item or one of
 * its metrics regressed, <skipped> for a known failure, the item's changes
 * in <system-out>.
 */
int rt_gate_report_junit(const struct rt_gate_outcome *o, FILE *out);

#endif
