/* SPDX-License-Identifier: MIT */
/* Layer: report. */
/*
 * Report writers for `rocetest check`: JSON and JUnit XML for machines, a
 * self-contained HTML page (summary, a table and an SVG ladder diagram per
 * flow) for people. They read what the checker collected; none of them
 * evaluates a rule.
 */
#ifndef ROCETEST_REPORT_H
#define ROCETEST_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocetest/checker.h"

/* One violation as kept for reports (the checker's callback message copied). */
struct rt_report_violation {
	enum rt_rule rule;
	enum rt_severity severity;
	uint64_t frame;
	uint32_t flow;		/* 0: no flow */
	char message[256];
};

/* The violations of one capture, in frame order, up to a cap. */
struct rt_violation_list {
	struct rt_report_violation *items;
	size_t count;		/* kept */
	size_t cap;		/* most that are kept */
	uint64_t dropped;	/* reported but not kept (past cap) */
};

/* Everything the writers need about one checked capture. */
struct rt_report_file {
	const char *file;			/* the path as given */
	const struct rt_checker *checker;	/* finished */
	const struct rt_violation_list *violations;
	double seconds;				/* wall time of the check */
	/*
	 * NULL: the capture was read to its end and something in it could be
	 * checked. Otherwise why the check is incomplete (a record cut mid-way,
	 * a read error, every RoCE packet cut by the snap length...), as the CLI
	 * says it: the reports then give the verdict "incomplete", never a pass.
	 */
	const char *incomplete;
};

/*
 * Each writes the report of n checked captures to out and returns 0, or -1
 * when writing failed (errno set). JSON: with one capture, one object
 * ({"file", "packets", ...}); with several,
 * {"files": [object, ...], "summary": {"errors", "warnings", "verdict"}}.
 * The verdict is "pass", "fail" or "incomplete" (a capture with
 * rt_report_file.incomplete set; its summary adds "reason", the overall
 * summary the number of such captures as "incomplete").
 */
int rt_report_json(const struct rt_report_file *files, size_t n, FILE *out);
int rt_report_junit(const struct rt_report_file *files, size_t n, FILE *out);
/*
 * JUnit: rt_report_junit writes one test case per rule (its violations in
 * every flow listed in it); this one the older layout, one test case per
 * rule and flow (`rocetest check --junit-per-flow`).
 */
int rt_report_junit_per_flow(const struct rt_report_file *files, size_t n, FILE *out);
int rt_report_html(const struct rt_report_file *files, size_t n, FILE *out);

/* Adds v to the list (sorted insert by frame; past cap only counted). 0, or -1 out of memory. */
int rt_violation_list_add(struct rt_violation_list *l, const struct rt_violation *v);
void rt_violation_list_free(struct rt_violation_list *l);

#endif
