/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * The release gate: compares a candidate result with a baseline and says
 * what regressed. A result is a report directory of `rocetest run` (its
 * summary.json) or a `rocetest check --json` report. Both become the same
 * two lists:
 *   - items, each passed or failed: a run's tests ("loss/tail-loss"), a
 *     check's captures ("x.pcap": read to the end) and rules
 *     ("x.pcap:SEQ-PSN", by the capture's file name);
 *   - metrics, each a number of an item: goodput, retransmissions,
 *     simulated cycles per message, rule violations.
 * A regression is an item that passed in the baseline (or is new) and fails
 * in the candidate, an item the candidate lacks, or a metric worse than the
 * baseline's by more than its tolerance. Known failures (an xfail list, each
 * with its reason) are not regressions; one that passes is reported.
 *
 * Files (one entry a line, '#' starts a comment):
 *   xfail:       ID REASON...     ID an item, or METRIC:ITEM ("goodput:throughput/write-256")
 *   tolerances:  METRIC [ITEM-GLOB] TOLERANCE   TOLERANCE "N%" (relative) or "N" (absolute);
 *                the entry with a glob (fnmatch) that matches wins over the plain one.
 */
#ifndef ROCETEST_GATE_H
#define ROCETEST_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/error.h"

#define RT_GATE_ID 160
#define RT_GATE_PATH 512
#define RT_GATE_TEXT 512

enum rt_gate_source { RT_GATE_SOURCE_RUN, RT_GATE_SOURCE_CHECK };

/* Something a result passes or fails. */
struct rt_gate_item {
	char id[RT_GATE_ID];
	bool passed;
	bool evaluated;			/* false: a rule the check could not evaluate (neither passed nor failed) */
	char detail[RT_GATE_TEXT];	/* why it failed: the first line of the failure, or the first violation */
	char page[RT_GATE_PATH];	/* its report page, relative to the result's directory ("" none) */
};

enum rt_gate_metric_kind {
	RT_GATE_GOODPUT,		/* Gb/s of a throughput test; higher is better */
	RT_GATE_RETRANSMISSIONS,	/* the device's retransmissions in a test */
	RT_GATE_CYCLES_PER_MESSAGE,	/* simulated device cycles per work request */
	RT_GATE_VIOLATIONS,		/* checker errors + warnings of a test, violations of a rule */
	RT_GATE_METRIC_KINDS
};

struct rt_gate_metric_info {
	const char *name;		/* as in tolerance and xfail files: "goodput" */
	const char *unit;		/* "Gb/s", "" */
	bool higher_is_better;
	double tolerance;		/* the default */
	bool relative;			/* tolerance is a fraction of the baseline's value */
	int decimals;			/* printed with */
};
const struct rt_gate_metric_info *rt_gate_metric_info(enum rt_gate_metric_kind kind);
/* The kind named name; -1 when none is. */
int rt_gate_metric_by_name(const char *name);

struct rt_gate_metric {
	enum rt_gate_metric_kind kind;
	char item[RT_GATE_ID];		/* the item it measures */
	double value;			/* NAN: the item could not measure it */
};

struct rt_gate_result {
	enum rt_gate_source source;
	char path[RT_GATE_PATH];	/* as given */
	char dir[RT_GATE_PATH];		/* what item pages are relative to */
	char dut[128];			/* a run's device ("" for a check) */
	bool has_seed;
	uint64_t seed;
	struct rt_gate_item *items;
	size_t n_items;
	struct rt_gate_metric *metrics;
	size_t n_metrics;
};

/*
 * Loads a run's report directory, its summary.json, or a `check --json`
 * report. -1 with err naming the file, and the line and field, when it is
 * none of them or a field is missing or of the wrong type.
 */
int rt_gate_load(struct rt_gate_result *r, const char *path, struct rt_error *err);
void rt_gate_result_free(struct rt_gate_result *r);

/* ---- Policy: known failures and tolerances -------------------------------- */

struct rt_gate_xfail {
	char id[RT_GATE_ID];
	char reason[RT_GATE_TEXT];
	unsigned line;
};

struct rt_gate_tolerance {
	enum rt_gate_metric_kind kind;
	char glob[RT_GATE_ID];		/* items it applies to ("" all) */
	double value;
	bool relative;
};

struct rt_gate_policy {
	struct rt_gate_xfail *xfail;
	size_t n_xfail;
	char xfail_path[RT_GATE_PATH];	/* "" none */
	struct rt_gate_tolerance *tolerances;
	size_t n_tolerances;
	bool strict_xfail;		/* a known failure that passes fails the gate */
};

void rt_gate_policy_init(struct rt_gate_policy *p);
/* Reads an xfail list; -1 with err "FILE:LINE: what" (an entry without reason, an ID twice). */
int rt_gate_read_xfail(struct rt_gate_policy *p, const char *path, struct rt_error *err);
/* Reads a tolerance file; -1 with err "FILE:LINE: what" (an unknown metric, a bad number). */
int rt_gate_read_tolerances(struct rt_gate_policy *p, const char *path, struct rt_error *err);
void rt_gate_policy_free(struct rt_gate_policy *p);
/* The tolerance of a metric of item: the last matching entry with a glob, else the last plain one, else the default. */
void rt_gate_tolerance_of(const struct rt_gate_policy *p, enum rt_gate_metric_kind kind, const char *item,
			  double *value, bool *relative);

/* ---- The comparison ------------------------------------------------------ */

/* What became of one item or metric, worst first. */
enum rt_gate_class {
	RT_GATE_REGRESSION,	/* fails the gate */
	RT_GATE_XPASS,		/* on the xfail list but passes: take it off (fails the gate with strict_xfail) */
	RT_GATE_STALE,		/* on the xfail list, names nothing either result has (fails with strict_xfail) */
	RT_GATE_XFAIL,		/* fails, on the xfail list */
	RT_GATE_STILL_FAILING,	/* failed in the baseline too, not on the list */
	RT_GATE_FIXED,		/* failed in the baseline, passes */
	RT_GATE_IMPROVED,	/* a metric better by more than its tolerance */
	RT_GATE_CHANGED,	/* a metric changed within its tolerance */
	RT_GATE_NEW,		/* an item only the candidate has, passing */
	RT_GATE_NOTE,		/* not comparable: another seed or device, a rule no longer evaluated */
	RT_GATE_CLASSES
};
/* "REGRESSION", "XPASS", ...: as the reports print it. */
const char *rt_gate_class_name(enum rt_gate_class c);

struct rt_gate_change {
	enum rt_gate_class cls;
	char item[RT_GATE_ID];		/* the item ("" for a note on the whole result) */
	int metric;			/* enum rt_gate_metric_kind, or -1 for the item's verdict */
	char baseline[48];		/* "pass", "FAIL", "absent", "98.01 Gb/s" */
	char candidate[48];
	double change;			/* a metric's change: relative (0.01 = 1 %) when its tolerance is, else absolute */
	bool relative;
	double tolerance;
	char what[RT_GATE_TEXT];	/* the sentence: what changed, by how much, why */
	char page[RT_GATE_PATH];	/* the candidate's report page for the item ("" none) */
};

struct rt_gate_outcome {
	const struct rt_gate_result *baseline, *candidate;
	struct rt_gate_change *changes;	/* worst class first; in each, in the candidate's order */
	size_t n_changes;
	size_t count[RT_GATE_CLASSES];
	size_t items, metrics;		/* compared */
	bool strict_xfail;
};

/* -1 with err when the two results cannot be compared (a run against a check) or memory runs out. */
int rt_gate_compare(const struct rt_gate_result *baseline, const struct rt_gate_result *candidate,
		    const struct rt_gate_policy *policy, struct rt_gate_outcome *out, struct rt_error *err);
/* No regression (and, with strict_xfail, no xpass and no stale entry). */
bool rt_gate_passed(const struct rt_gate_outcome *o);
void rt_gate_outcome_free(struct rt_gate_outcome *o);
/* The xfail id of a change: its item, or "metric:item". */
void rt_gate_change_id(const struct rt_gate_change *c, char *buf, size_t size);

#endif
