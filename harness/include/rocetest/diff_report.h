/* SPDX-License-Identifier: MIT */
/* Layer: report. */
/*
 * Report writers for `rocetest diff` (rocetest/diff.h): the summary people
 * read and JSON for tools. Each returns 0, or -1 when writing failed (errno
 * set).
 */
#ifndef ROCETEST_DIFF_REPORT_H
#define ROCETEST_DIFF_REPORT_H

#include <stdio.h>

#include "rocetest/diff.h"

/* The names the captures go by in the reports. */
struct rt_diff_names {
	const char *a, *b;
};

/*
 * Per pair of flows: its endpoints in both captures, how many messages
 * aligned, the coverage notes, then per field and direction how many
 * messages differ and the first examples ("message 3: A splits 7168 B as
 * First 4096 + Last 3072, B as ..."); then the flows left unpaired and the
 * verdict line with the count per class. examples: per field and direction
 * (0: 3).
 */
int rt_diff_report_text(const struct rt_diff *d, const struct rt_diff_names *names, unsigned examples, FILE *out);

/*
 * {"a", "b", "profile", "payload", "pairs": [{"id", "flow_a", "flow_b",
 *  "a", "b", "swapped", "mapped", "messages_a", "messages_b", "aligned",
 *  "differences": {CLASS: n}, "notes"}], "unpaired_a", "unpaired_b",
 *  "differences": [{"class", "flow", "side", "message", "field", "a", "b",
 *  "frame_a", "frame_b", "what"}], "summary": {"semantic", "behaviour",
 *  "cosmetic", "dropped", "verdict"}}. "flow" is the pair's id, "message"
 * 0 for a field of a whole direction or side, a frame 0 (null) when that
 * capture lacks the message; the verdict is "same" without a semantic
 * difference, else "different".
 */
int rt_diff_report_json(const struct rt_diff *d, const struct rt_diff_names *names, FILE *out);

/*
 * One page: the per-class counts at the top, then per pair of flows the
 * differences and the two captures' ladder diagrams side by side (A left,
 * B right), rows of frames that differ highlighted; runs of rows that
 * agree are folded, so that a capture of 100,000 packets stays readable.
 * Ladders need rt_diff_options.ladder_flows.
 */
int rt_diff_report_html(const struct rt_diff *d, const struct rt_diff_names *names, FILE *out);

#endif
