/* SPDX-License-Identifier: MIT */
/*
 * A recursive-descent JSON reader. Values and decoded strings are carved
 * from blocks of an arena the document owns, so a document is freed at once
 * and nothing points into the text it was parsed from.
 */
#include "rocetest/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 256
#define ARENA_BLOCK (64u * 1024u)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

struct rt_json_doc {
	struct arena_block *blocks;
	const struct rt_jv *root;
};

struct parser {
	const char *s, *end;
	const char *line_start;
	unsigned line;
	struct rt_json_doc *doc;
	struct rt_error *err;
	bool failed;
};

static void *arena_alloc(struct rt_json_doc *doc, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	struct arena_block *b = doc->blocks;
	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		b = malloc(sizeof *b + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = doc->blocks;
		doc->blocks = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

static void fail(struct parser *p, const char *what)
{
	if (p->failed)
		return;
	p->failed = true;
	rt_error_set(p->err, "line %u, column %td: %s", p->line, p->s - p->line_start + 1, what);
}

static void skip_space(struct parser *p)
{
	for (; p->s < p->end; p->s++) {
		if (*p->s == '\n') {
			p->line++;
			p->line_start = p->s + 1;
		} else if (*p->s != ' ' && *p->s != '\t' && *p->s != '\r') {
			return;
		}
	}
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n)) {
		fail(p, "expected a value (object, array, string, number, true, false or null)");
		return false;
	}
	p->s += n;
	return true;
}

static int hex4(const char *s)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* A \uXXXX escape at p->s (past the backslash and 'u'), with its low surrogate when it is a high one. */
static bool unicode_escape(struct parser *p, uint32_t *cp)
{
	int hi = p->end - p->s >= 4 ? hex4(p->s) : -1;
	if (hi < 0) {
		fail(p, "\\u must be followed by 4 hex digits");
		return false;
	}
	p->s += 4;
	*cp = (uint32_t)hi;
	if (hi < 0xD800 || hi > 0xDFFF)
		return true;
	int lo = hi < 0xDC00 && p->end - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u' ? hex4(p->s + 2) : -1;
	if (lo < 0xDC00 || lo > 0xDFFF) {
		fail(p, "unpaired UTF-16 surrogate in a \\u escape");
		return false;
	}
	p->s += 6;
	*cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
	return true;
}

/* One escape after a backslash; the bytes it stands for go to out. */
static size_t string_escape(struct parser *p, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (p->s == p->end) {
		fail(p, "unterminated string");
		return 0;
	}
	char c = *p->s++;
	const char *at = c ? strchr(from, c) : NULL;
	if (at) {
		*out = to[at - from];
		return 1;
	}
	uint32_t cp;
	if (c != 'u') {
		p->s--;
		fail(p, "invalid escape in a string");
		return 0;
	}
	return unicode_escape(p, &cp) ? put_utf8(out, cp) : 0;
}

/* A string at p->s (the opening quote); decoded into the arena. Escapes never grow: "\uXXXX" is 6 bytes for at most 3. */
static const char *parse_string(struct parser *p)
{
	const char *close = p->s + 1;
	while (close < p->end && *close != '"')
		close += *close == '\\' && close + 1 < p->end ? 2 : 1;
	char *out = arena_alloc(p->doc, (size_t)(close - p->s) + 1);
	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (p->s++; !p->failed; ) {
		if (p->s == p->end) {
			fail(p, "unterminated string");
		} else if (*p->s == '"') {
			p->s++;
			out[n] = '\0';
			return out;
		} else if ((unsigned char)*p->s < 0x20) {
			fail(p, "control character in a string (must be escaped)");
		} else if (*p->s == '\\') {
			p->s++;
			n += string_escape(p, out + n);
		} else {
			out[n++] = *p->s++;
		}
	}
	return NULL;
}

static size_t digits_at(const char *s, const char *end)
{
	size_t n = 0;
	while (s + n < end && s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* A number as RFC 8259 spells it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool parse_number(struct parser *p, double *out)
{
	const char *s = p->s, *end = p->end;
	if (s < end && *s == '-')
		s++;
	size_t digits = digits_at(s, end);
	bool ok = digits > 0 && !(digits > 1 && *s == '0');
	s += digits;
	if (ok && s < end && *s == '.') {
		digits = digits_at(++s, end);
		ok = digits > 0;
		s += digits;
	}
	if (ok && s < end && (*s == 'e' || *s == 'E')) {
		if (++s < end && (*s == '+' || *s == '-'))
			s++;
		digits = digits_at(s, end);
		ok = digits > 0;
		s += digits;
	}
	char buf[64];
	size_t len = (size_t)(s - p->s);
	if (!ok || len >= sizeof buf) {
		fail(p, ok ? "number too long" : "malformed number");
		return false;
	}
	memcpy(buf, p->s, len);
	buf[len] = '\0';
	*out = strtod(buf, NULL);
	p->s = s;
	return true;
}

static struct rt_jv *parse_value(struct parser *p, int depth);

/* The elements of an array or the members of an object, after the opening bracket. */
static bool parse_members(struct parser *p, struct rt_jv *v, int depth)
{
	bool object = v->type == RT_JV_OBJECT;
	char close = object ? '}' : ']';
	const struct rt_jv **tail = &v->child;
	skip_space(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		const char *key = NULL;
		skip_space(p);
		if (object) {
			if (p->s == p->end || *p->s != '"') {
				fail(p, "expected a string as the object key");
				return false;
			}
			if (!(key = parse_string(p)))
				return false;
			skip_space(p);
			if (p->s == p->end || *p->s != ':') {
				fail(p, "expected ':' after an object key");
				return false;
			}
			p->s++;
		}
		struct rt_jv *m = parse_value(p, depth + 1);
		if (!m)
			return false;
		m->key = key;
		*tail = m;
		tail = &m->next;
		v->count++;
		skip_space(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
		} else if (p->s < p->end && *p->s == close) {
			p->s++;
			return true;
		} else {
			fail(p, object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
			return false;
		}
	}
}

static bool parse_scalar(struct parser *p, struct rt_jv *v)
{
	switch (*p->s) {
	case '"':
		v->type = RT_JV_STRING;
		return (v->string = parse_string(p)) != NULL;
	case 't':
		v->type = RT_JV_BOOL;
		v->boolean = true;
		return literal(p, "true");
	case 'f':
		v->type = RT_JV_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = RT_JV_NULL;
		return literal(p, "null");
	default:
		if (*p->s != '-' && (*p->s < '0' || *p->s > '9')) {
			fail(p, "expected a value (object, array, string, number, true, false or null)");
			return false;
		}
		v->type = RT_JV_NUMBER;
		return parse_number(p, &v->number);
	}
}

static struct rt_jv *parse_value(struct parser *p, int depth)
{
	skip_space(p);
	if (depth > JSON_MAX_DEPTH) {
		fail(p, "nested more than 256 deep");
		return NULL;
	}
	if (p->s == p->end) {
		fail(p, "expected a value, found the end of the text");
		return NULL;
	}
	struct rt_jv *v = arena_alloc(p->doc, sizeof *v);
	if (!v) {
		fail(p, "out of memory");
		return NULL;
	}
	memset(v, 0, sizeof *v);
	v->line = p->line;
	if (*p->s == '{' || *p->s == '[') {
		v->type = *p->s++ == '{' ? RT_JV_OBJECT : RT_JV_ARRAY;
		return parse_members(p, v, depth) ? v : NULL;
	}
	return parse_scalar(p, v) ? v : NULL;
}

void rt_json_free(struct rt_json_doc *doc)
{
	if (!doc)
		return;
	for (struct arena_block *b = doc->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(doc);
}

struct rt_json_doc *rt_json_parse(const char *text, size_t len, struct rt_error *err)
{
	struct rt_json_doc *doc = calloc(1, sizeof *doc);
	if (!doc) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	struct parser p = { .s = text, .end = text + len, .line_start = text, .line = 1, .doc = doc, .err = err };
	doc->root = parse_value(&p, 0);
	if (doc->root) {
		skip_space(&p);
		if (p.s != p.end)
			fail(&p, "text after the JSON value");
	}
	if (p.failed) {
		rt_json_free(doc);
		return NULL;
	}
	return doc;
}

/* The whole file into memory; NULL with err naming the path. */
static char *read_file(const char *path, size_t *len, struct rt_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *bigger = realloc(buf, cap *= 2);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		rt_error_set(err, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

struct rt_json_doc *rt_json_load(const char *path, struct rt_error *err)
{
	size_t len;
	char *text = read_file(path, &len, err);
	if (!text)
		return NULL;
	struct rt_error perr;
	struct rt_json_doc *doc = rt_json_parse(text, len, &perr);
	free(text);
	if (!doc)
		rt_error_set(err, "%s: %s", path, perr.msg);
	return doc;
}

const struct rt_jv *rt_json_root(const struct rt_json_doc *doc)
{
	return doc->root;
}

const struct rt_jv *rt_jv_get(const struct rt_jv *v, const char *key)
{
	if (!v || v->type != RT_JV_OBJECT)
		return NULL;
	for (const struct rt_jv *m = v->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

const char *rt_jv_get_str(const struct rt_jv *v, const char *key)
{
	const struct rt_jv *m = rt_jv_get(v, key);
	return m && m->type == RT_JV_STRING ? m->string : NULL;
}

double rt_jv_get_num(const struct rt_jv *v, const char *key, double fallback)
{
	const struct rt_jv *m = rt_jv_get(v, key);
	return m && m->type == RT_JV_NUMBER ? m->number : fallback;
}

/* ---- typed reading ---------------------------------------------------------- */

int rt_jv_fail(const struct rt_jv_reader *rd, const struct rt_jv *at, const char *fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (at)
		rt_error_set(rd->err, "%s: line %u: %s", rd->file, at->line, what);
	else
		rt_error_set(rd->err, "%s: %s", rd->file, what);
	return -1;
}

const char *rt_jv_type_word(const struct rt_jv *v)
{
	static const char *const words[] = { "null", "true/false", "a number", "a string", "an array", "an object" };
	return v ? words[v->type] : "missing";
}

const struct rt_jv *rt_jv_need(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what,
			       const char *key, enum rt_jv_type t)
{
	static const char *const want[] = { "null", "true or false", "a number", "a string", "an array", "an object" };
	const struct rt_jv *m = rt_jv_get(obj, key);
	if (m && m->type == t)
		return m;
	rt_jv_fail(rd, m ? m : obj, "%s: \"%s\" is %s, not %s", what, key, rt_jv_type_word(m), want[t]);
	return NULL;
}

int rt_jv_opt_string(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     const char **out)
{
	const struct rt_jv *m = rt_jv_get(obj, key);
	*out = "";
	if (!m || m->type == RT_JV_NULL)
		return 0;
	if (m->type != RT_JV_STRING)
		return rt_jv_fail(rd, m, "%s: \"%s\" is %s, not a string or null", what, key, rt_jv_type_word(m));
	*out = m->string;
	return 0;
}

int rt_jv_opt_number(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     double *out)
{
	const struct rt_jv *m = rt_jv_get(obj, key);
	*out = NAN;
	if (m && m->type == RT_JV_NUMBER)
		*out = m->number;
	else if (!m || m->type != RT_JV_NULL)
		return rt_jv_fail(rd, m ? m : obj, "%s: \"%s\" is %s, not a number or null", what, key,
				  rt_jv_type_word(m));
	return 0;
}
