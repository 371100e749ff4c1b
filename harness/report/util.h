/* SPDX-License-Identifier: MIT */
/*
 * What the three report writers share: escaping (JSON, XML/HTML), names and
 * numbers formatted one way for all of them, and an index of the violation
 * list by flow and rule. Internal to harness/report/.
 */
#ifndef ROCETEST_REPORT_UTIL_H
#define ROCETEST_REPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocetest/report.h"

/* ---- Text -------------------------------------------------------------- */

/*
 * Length of the valid UTF-8 sequence at s (1-4 bytes), or 0 when s does not
 * start one (stray continuation byte, overlong form, surrogate, beyond
 * U+10FFFF, U+FFFE/U+FFFF, or cut by the end of the string). Names come from
 * file systems and messages may be cut mid-character by a fixed buffer:
 * every writer replaces such bytes with U+FFFD rather than emit a document
 * a strict parser refuses.
 */
size_t rt_rep_utf8_len(const unsigned char *s);

/* s as a JSON string literal (rt_json_string), invalid UTF-8 replaced. */
void rt_rep_json_str(FILE *out, const char *s);

/*
 * s escaped for XML 1.0 and HTML text and attribute values alike: & < > " '
 * as entities, tab/newline/CR as character references (kept exact inside
 * attributes), other control characters and invalid UTF-8 as U+FFFD
 * (XML 1.0 forbids them even as references).
 */
void rt_rep_xml(FILE *out, const char *s);
/* printf, then rt_rep_xml of the result. */
void rt_rep_xmlf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last path component ("a/b/c.pcap" -> "c.pcap"); "-" is "stdin". */
const char *rt_rep_basename(const char *path);

/* v as a JSON number, or null when it is not finite (JSON has no NaN or Infinity). */
void rt_rep_json_num(FILE *out, double v);

/* ---- HTML pages ---------------------------------------------------------- */

/*
 * The look the HTML reports share (`rocetest check`'s page and the run
 * report): colours, headings, the verdict box, key-value and grid tables,
 * status pills, badges, legends, links and print. Each page adds its own.
 */
extern const char rt_rep_html_css[];

/*
 * "<!DOCTYPE html>" through "<title>": the caller writes the title, then
 * "</title>" and the rest of the head. The Content-Security-Policy lets
 * nothing be fetched (self-contained, should a URL ever slip in) and allows
 * inline script only when script is true.
 */
void rt_rep_html_open(FILE *out, const char *generator, bool script);
/* The big PASS/FAIL box: word in it, detail (plain text, escaped here) below. */
void rt_rep_html_verdict(FILE *out, bool pass, const char *word, const char *detail);
/* A right-aligned count cell, red and bold when alarm and v is not 0. */
void rt_rep_html_count_cell(FILE *out, uint64_t v, bool alarm);
/* "<span class=badge CLS>N one|many</span>" when n is not 0 (cls NULL: the plain badge). */
void rt_rep_html_badge(FILE *out, const char *cls, uint64_t n, const char *one, const char *many);

/* ---- Checker facts, formatted ------------------------------------------- */

/* A side is shown when it sent packets or its QP is known (UD flows have one). */
bool rt_rep_side_shown(const struct rt_flow_info *f, int side);
/* "10.0.0.1 QP 0x000011" or "10.0.0.1 QP ?". */
void rt_rep_endpoint(const struct rt_flow_info *f, int side, char *buf, size_t size);
/* "SEND First", or "opcode 0x1f" for an undefined one. */
void rt_rep_opcode(uint8_t opcode, char *buf, size_t size);
/* Time since t0 for people, to 4-6 digits: "812 ns", "12.345 us", "1.234 ms", "3.210000 s". */
void rt_rep_reltime(int64_t ts_ns, int64_t t0_ns, char *buf, size_t size);
/*
 * Why a rule was not evaluated in a scope where it was not_evaluated times:
 * "needs timeout" when the configuration lacks what it needs, else that the
 * capture did not show enough, or (not_evaluated 0) that nothing applied.
 */
void rt_rep_why_not_evaluated(const struct rt_check_config *cfg, enum rt_rule rule, uint64_t not_evaluated,
			      char *buf, size_t size);

/* The check's wall time, 0 when not a finite non-negative number (the writers must print a number). */
double rt_rep_seconds(const struct rt_report_file *rf);

/* Errors and warnings over all files. */
void rt_rep_sum(const struct rt_report_file *files, size_t n, uint64_t *errors, uint64_t *warnings);
/* How many of the files were not checked to their end (rt_report_file.incomplete set). */
size_t rt_rep_incomplete(const struct rt_report_file *files, size_t n);

/* Flushes out; 0, or -1 with errno set when anything failed to be written. */
int rt_rep_finish(FILE *out);

/* ---- The violation list by flow and rule -------------------------------- */

/*
 * The kept violations ordered by (flow, rule, frame): the JUnit and HTML
 * writers look up "the violations of rule R in flow F" once per test case
 * or table row, which a scan of the list each time would make quadratic.
 */
struct rt_rep_index {
	const struct rt_report_violation *items;
	size_t *order;		/* indexes into items */
	size_t count;
};

/* 0, or -1 with errno ENOMEM. A NULL list gives an empty index. */
int rt_rep_index_build(struct rt_rep_index *ix, const struct rt_violation_list *l);
void rt_rep_index_free(struct rt_rep_index *ix);
/* [*begin, *end) of ix->order holds the violations of (flow, rule). */
void rt_rep_index_range(const struct rt_rep_index *ix, uint32_t flow, enum rt_rule rule, size_t *begin,
			size_t *end);
static inline const struct rt_report_violation *rt_rep_index_at(const struct rt_rep_index *ix, size_t i)
{
	return &ix->items[ix->order[i]];
}

/* The violations of the list at one frame: [*begin, *end) of l->items (the list is in frame order). */
void rt_rep_frame_range(const struct rt_violation_list *l, uint64_t frame, size_t *begin, size_t *end);

/*
 * Error and warning violations of (flow, rule) given that `total` were
 * counted: those the list kept by their own severity, the ones past its cap
 * by the rule's catalogue severity (the only thing known about them).
 */
void rt_rep_split(const struct rt_rep_index *ix, uint32_t flow, enum rt_rule rule, uint64_t total,
		  uint64_t *errors, uint64_t *warnings);

#endif
