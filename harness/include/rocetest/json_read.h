/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * Reading JSON (RFC 8259) into a tree: for the reports rocetest itself wrote
 * (summary.json of a run, `check --json`) when a later command compares
 * them. The whole document is held; values are read-only and live as long
 * as the document. Strings are UTF-8 with the escapes decoded; numbers are
 * doubles (every count in our reports is below 2^53).
 */
#ifndef ROCETEST_JSON_READ_H
#define ROCETEST_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "rocetest/error.h"

enum rt_jv_type { RT_JV_NULL, RT_JV_BOOL, RT_JV_NUMBER, RT_JV_STRING, RT_JV_ARRAY, RT_JV_OBJECT };

struct rt_jv {
	enum rt_jv_type type;
	bool boolean;
	double number;
	const char *string;		/* RT_JV_STRING; NUL-terminated (an embedded \u0000 ends it) */
	const char *key;		/* this member's name in its object; NULL in an array or at the root */
	const struct rt_jv *child;	/* an array's first element, an object's first member */
	const struct rt_jv *next;	/* the next element or member of the parent */
	size_t count;			/* elements or members */
	unsigned line;			/* where the value starts, 1-based */
};

struct rt_json_doc;

/*
 * Parses len bytes of text. NULL with err set ("line 3, column 7: expected
 * ':' after an object key") when the text is not one JSON value, nests more
 * than 256 deep, or memory runs out.
 */
struct rt_json_doc *rt_json_parse(const char *text, size_t len, struct rt_error *err);
/* Reads and parses a file; errors start with the path ("PATH: line 3, ..."). */
struct rt_json_doc *rt_json_load(const char *path, struct rt_error *err);
const struct rt_jv *rt_json_root(const struct rt_json_doc *doc);
void rt_json_free(struct rt_json_doc *doc);

/* The member named key of an object (the first, should there be several); NULL when v is no object or lacks it. */
const struct rt_jv *rt_jv_get(const struct rt_jv *v, const char *key);
/* The member's value when it has that type, else NULL. */
const char *rt_jv_get_str(const struct rt_jv *v, const char *key);
/* The member's number, or fallback when it is absent or not a number. */
double rt_jv_get_num(const struct rt_jv *v, const char *key, double fallback);

/*
 * Typed reading of a report, every field checked: a wrong one is an error
 * naming the file, the line and the field ("summary.json: line 12: test
 * 'psn/wrap': \"cycles\" is a string, not a number"). what names the
 * object for the message.
 */
struct rt_jv_reader {
	const char *file;
	struct rt_error *err;
};
/* Sets the error (with the file and, when at is given, its line) and returns -1. */
int rt_jv_fail(const struct rt_jv_reader *rd, const struct rt_jv *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "a number", "a string", ... for v's type ("missing" for NULL). */
const char *rt_jv_type_word(const struct rt_jv *v);
/* obj's member key when it has type t; NULL with the error set otherwise. */
const struct rt_jv *rt_jv_need(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what,
			       const char *key, enum rt_jv_type t);
/* A string member that may be null or absent ("" then); -1 on another type. */
int rt_jv_opt_string(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     const char **out);
/* A number member that may be null (NAN then); -1 when absent or of another type. */
int rt_jv_opt_number(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     double *out);

#endif
