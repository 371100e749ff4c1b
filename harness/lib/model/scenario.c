/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (vectors/scenarios/README.md is the format).
 *
 * The lines are read in order: connection settings and node keys go straight
 * into the simulation config, work lines into a list of their own. Whatever
 * depends on the whole file is settled after the last line, because the
 * README lets lines come in any order: `ip 6` after the node lines changes
 * their default addresses, a node's memory size set late still decides where
 * its earlier requests' data goes, and the va=, rkey= and psn=+N defaults are
 * the other end's final settings. Then the work lines become actions.
 *
 * The first problem found is the one reported, as "file:line: directive: what".
 */
#include "rocetest/scenario.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/check.h"
#include "rocetest/opcode.h"

/*
 * Bounds on what one file may ask for, so that a mistyped or hostile file
 * (count=1000000000) fails with a message instead of exhausting memory. A
 * conformance vector needs a few hundred requests.
 */
#define MAX_COUNT 65536u		/* count= of one line */
#define MAX_ACTIONS (1u << 18)		/* actions of one scenario, initial receives included */
#define MAX_MSG_LEN (1ull << 31)	/* the largest RDMA message (a RETH DMA length) */

#define MAX_WORDS 2		/* positional words of a directive */
#define MAX_KEYS 32		/* keys of a directive */
#define MAX_DIRECTIVES 32
#define DEFAULT_RECV 16		/* receive buffers each node posts at the start */
#define PSN_MASK 0xffffffu
#define ATOMIC_LEN 8u
/* Words and values quoted in messages are cut here, so one long token cannot crowd out the rest. */
#define Q "%.64s"

struct parser;
struct line;

struct directive {
	const char *name;
	int (*apply)(struct parser *p, const struct line *l);
	unsigned words;				/* positional words, all required */
	const char *word_what[MAX_WORDS];	/* what they are, for "missing ..." */
	const char *const *keys;		/* NULL-terminated, in the order messages list them */
	const char *const *required;		/* keys that must be given (NULL: none) */
	bool once;				/* a connection setting: at most once a file */
	bool rest;				/* takes the rest of the line as its text */
	/* Requests: the work request opcode, and the one with imm= or inv=. */
	enum rt_wr_opcode op, op_imm, op_inv;
};

/* One line split into its directive, words and key values. */
struct line {
	const struct directive *d;
	const char *word[MAX_WORDS];
	const char *val[MAX_KEYS];	/* by the key's place in d->keys; NULL: not given */
	const char *rest;		/* directives that take the rest of the line */
};

/* A work line as written; its defaults are filled in after the last line. */
struct work {
	unsigned line;
	const struct directive *d;
	enum rt_sim_action_kind kind;
	enum rt_wr_opcode op;
	uint8_t node;
	int64_t at_ns;
	uint32_t count;
	uint64_t len;
	bool has_offset, has_id, has_rkey, va_absolute;
	uint64_t offset, id, va, rkey, imm, compare, swap_add;
};

/* What node lines say that is not in struct rt_qp_config yet, or must be checked against the whole file. */
struct node_state {
	uint64_t recv;		/* receive buffers posted at the start */
	unsigned recv_line;	/* the last line that set recv or rq_depth (0: neither) */
	unsigned ip_line;	/* the last line that set ip (0: the default address) */
	unsigned ip_version;	/* of that address */
	unsigned bug_line;
};

struct parser {
	const char *name;
	struct rt_scenario *sc;
	struct rt_error *err;
	unsigned line;		/* 1-based; 0 in checks of the whole file */
	const char *dir;	/* the directive being read, for messages */
	unsigned first_line[MAX_DIRECTIVES];	/* where each directive first appeared */
	struct node_state node[2];
	struct work *work;
	size_t n_work, cap_work;
	uint64_t work_actions;	/* actions the work lines expand to */
	bool psn_relative[RT_SIM_MAX_FAULTS];	/* psn=+N: still relative to the sender's first PSN */
	unsigned expect_line[RT_SCENARIO_MAX_EXPECT];
	unsigned clean_line;	/* "expect clean" */
};

/* ---- messages ---- */

static int vfail(const struct parser *p, unsigned line, const char *dir, const char *key, const char *fmt,
		 va_list ap)
{
	char msg[400];
	vsnprintf(msg, sizeof msg, fmt, ap);
	char at[16] = "";
	if (line)
		snprintf(at, sizeof at, ":%u", line);
	rt_error_set(p->err, "%s%s: %s%s%s%s%s", p->name, at, dir ? dir : "", dir ? ": " : "", key ? key : "",
		     key ? ": " : "", msg);
	return -1;
}

/* "file:line: directive: message", of the line and directive being read. */
__attribute__((format(printf, 2, 3))) static int fail(const struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(p, p->line, p->dir, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

/* "file:line: directive: key: message"; key NULL for a positional word. */
__attribute__((format(printf, 3, 4))) static int fail_key(const struct parser *p, const char *key,
							   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(p, p->line, p->dir, key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Checks after the last line name the line they concern. */
static void at_line(struct parser *p, unsigned line, const char *dir)
{
	p->line = line;
	p->dir = dir;
}

/* Appends s to a ", "-separated list in buf (cut short at size). */
static void list_add(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", s);
}

/* ---- values ---- */

enum scan {
	SCAN_OK,
	SCAN_BAD,	/* not a number */
	SCAN_BIG,	/* does not fit 64 bits */
	SCAN_FINE,	/* a fraction finer than the unit: 1.5ns */
};

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n characters of decimal digits, or hex digits after "0x". Leading zeros are decimal, not octal. */
static enum scan scan_uint(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (n == 0)
		return SCAN_BAD;
	uint64_t v = 0;
	bool big = false;
	for (size_t i = 0; i < n; i++) {
		int d = digit_value(s[i]);
		if (d < 0 || (unsigned)d >= base)
			return SCAN_BAD;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			big = true;
		else
			v = v * base + (unsigned)d;
	}
	*out = v;
	return big ? SCAN_BIG : SCAN_OK;
}

/*
 * n characters of a decimal number with an optional fraction ("1.5"), times
 * 10^exp10, which must come out whole: 1.5 us is 1500 ns, 1.5 ns is refused.
 */
static enum scan scan_decimal(const char *s, size_t n, int exp10, uint64_t *out)
{
	const char *dot = memchr(s, '.', n);
	size_t whole = dot ? (size_t)(dot - s) : n;
	size_t frac = dot ? n - whole - 1 : 0;
	if (whole == 0 || (dot && frac == 0))
		return SCAN_BAD;
	/* Trailing zeros of the fraction change nothing; without them "1.000000000000000000000s" fits. */
	while (frac && s[whole + frac] == '0')
		frac--;
	size_t end = dot ? whole + 1 + frac : n;
	uint64_t v = 0;
	bool big = false;
	for (size_t i = 0; i < end; i++) {
		if (dot && i == whole)
			continue;
		if (s[i] < '0' || s[i] > '9')
			return SCAN_BAD;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			big = true;
		else
			v = v * 10 + d;
	}
	if (big)
		return SCAN_BIG;
	/* The fraction ends in a digit other than 0: finer than the unit unless the unit has room for it. */
	if (frac > (size_t)exp10)
		return SCAN_FINE;
	for (size_t e = (size_t)exp10 - frac; e > 0; e--) {
		if (v > UINT64_MAX / 10)
			return SCAN_BIG;
		v *= 10;
	}
	*out = v;
	return SCAN_OK;
}

static int check_range(const struct parser *p, const char *key, const char *text, enum scan s, uint64_t v,
		       uint64_t min, uint64_t max, uint64_t *out)
{
	if (s == SCAN_OK && v >= min && v <= max) {
		*out = v;
		return 0;
	}
	/* Wide fields (a QPN, a PSN, a key) read better in hex. */
	if (max >= 0x10000)
		return fail_key(p, key, Q " out of range (%llu..0x%llx)", text, (unsigned long long)min,
				(unsigned long long)max);
	return fail_key(p, key, Q " out of range (%llu..%llu)", text, (unsigned long long)min,
			(unsigned long long)max);
}

static int get_uint(const struct parser *p, const char *key, const char *text, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	uint64_t v = 0;
	enum scan s = scan_uint(text, strlen(text), &v);
	if (s == SCAN_BAD)
		return fail_key(p, key, "bad number '" Q "'", text);
	return check_range(p, key, text, s, v, min, max, out);
}

/* A number with an optional K (1024) or M (1048576) suffix. */
static int get_size(const struct parser *p, const char *key, const char *text, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	size_t n = strlen(text);
	uint64_t unit = 1;
	if (n && (text[n - 1] == 'K' || text[n - 1] == 'M')) {
		unit = text[n - 1] == 'K' ? 1024 : 1024 * 1024;
		n--;
	}
	uint64_t v = 0;
	enum scan s = scan_uint(text, n, &v);
	if (s == SCAN_BAD)
		return fail_key(p, key, "bad size '" Q "' (a number with an optional K or M suffix)", text);
	if (s == SCAN_OK && v > UINT64_MAX / unit)
		s = SCAN_BIG;
	return check_range(p, key, text, s, v * unit, min, max, out);
}

/* A time in ns: a number, an optional fraction and a unit (ns, us, ms, s). */
static int get_time(const struct parser *p, const char *key, const char *text, int64_t *out)
{
	static const struct {
		const char *unit;
		int exp10;
	} units[] = { { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 } };	/* "s" last: "5ns" ends in "s" too */
	size_t n = strlen(text);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t u = strlen(units[i].unit);
		if (n <= u || strcmp(text + n - u, units[i].unit))
			continue;
		uint64_t v = 0;
		enum scan s = scan_decimal(text, n - u, units[i].exp10, &v);
		if (s == SCAN_BAD)
			break;
		if (s == SCAN_FINE)
			return fail_key(p, key, "time '" Q "' is finer than 1 ns", text);
		if (s == SCAN_BIG || v > INT64_MAX)
			return fail_key(p, key, "time '" Q "' out of range", text);
		*out = (int64_t)v;
		return 0;
	}
	if (n && strspn(text, "0123456789.") == n)
		return fail_key(p, key, "time '" Q "' needs a unit (ns, us, ms or s)", text);
	return fail_key(p, key, "bad time '" Q "' (a number and a unit: ns, us, ms or s)", text);
}

/* A rate in bit/s with an optional K, M or G (powers of 1000) suffix and fraction: 100G, 2.5G. */
static int get_rate(const struct parser *p, const char *key, const char *text, uint64_t *out)
{
	size_t n = strlen(text);
	int exp10 = 0;
	if (n) {
		switch (text[n - 1]) {
		case 'K': exp10 = 3; break;
		case 'M': exp10 = 6; break;
		case 'G': exp10 = 9; break;
		}
	}
	uint64_t v = 0;
	enum scan s = scan_decimal(text, exp10 ? n - 1 : n, exp10, &v);
	if (s == SCAN_BAD)
		return fail_key(p, key, "bad rate '" Q "' (bit/s with an optional K, M or G suffix: 100G)", text);
	if (s == SCAN_FINE)
		return fail_key(p, key, "rate '" Q "' is finer than 1 bit/s", text);
	return check_range(p, key, text, s, v, 1, UINT64_MAX, out);
}

struct choice {
	const char *word;
	int value;
};

static int get_choice(const struct parser *p, const char *key, const char *text, const struct choice *c,
		      const char *expected, int *out)
{
	for (; c->word; c++) {
		if (!strcmp(c->word, text)) {
			*out = c->value;
			return 0;
		}
	}
	return fail_key(p, key, "'" Q "' is not %s", text, expected);
}

static const struct choice node_choices[] = { { "a", 0 }, { "b", 1 }, { NULL, 0 } };

static int get_node(const struct parser *p, const char *text, uint8_t *node)
{
	int n = 0;
	if (get_choice(p, NULL, text, node_choices, "a node (a or b)", &n))
		return -1;
	*node = (uint8_t)n;
	return 0;
}

static bool scan_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		int hi = digit_value(s[0]);
		if (hi < 0)
			return false;
		int lo = digit_value(s[1]);	/* s[1] exists: s[0] was not the terminator */
		if (lo < 0)
			return false;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

/* ---- the value of a key on the line, if given ---- */

static const char *val(const struct line *l, const char *key)
{
	for (size_t k = 0; l->d->keys[k]; k++)
		if (!strcmp(l->d->keys[k], key))
			return l->val[k];
	return NULL;
}

/* The opt_ getters leave *out at its default when the key is not on the line. */
static int opt_uint(const struct parser *p, const struct line *l, const char *key, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	const char *v = val(l, key);
	return v ? get_uint(p, key, v, min, max, out) : 0;
}

static int opt_size(const struct parser *p, const struct line *l, const char *key, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	const char *v = val(l, key);
	return v ? get_size(p, key, v, min, max, out) : 0;
}

static int opt_time(const struct parser *p, const struct line *l, const char *key, int64_t *out)
{
	const char *v = val(l, key);
	return v ? get_time(p, key, v, out) : 0;
}

/* ---- connection settings ---- */

static struct rt_qp_config *node_cfg(struct parser *p, unsigned n)
{
	return &p->sc->sim.node[n];
}

static int apply_description(struct parser *p, const struct line *l)
{
	size_t n = strlen(l->rest);
	if (n >= sizeof p->sc->description)
		return fail(p, "longer than %zu characters", sizeof p->sc->description - 1);
	memcpy(p->sc->description, l->rest, n + 1);
	return 0;
}

static int apply_seed(struct parser *p, const struct line *l)
{
	return get_uint(p, NULL, l->word[0], 0, UINT64_MAX, &p->sc->sim.seed);
}

static int apply_transport(struct parser *p, const struct line *l)
{
	static const struct choice transports[] = {
		{ "rc", RT_TRANSPORT_RC }, { "uc", RT_TRANSPORT_UC }, { "ud", RT_TRANSPORT_UD }, { NULL, 0 },
	};
	int t = 0;
	if (get_choice(p, NULL, l->word[0], transports, "rc, uc or ud", &t))
		return -1;
	node_cfg(p, 0)->transport = node_cfg(p, 1)->transport = (uint8_t)t;
	return 0;
}

static int apply_ip(struct parser *p, const struct line *l)
{
	static const struct choice versions[] = { { "4", 4 }, { "6", 6 }, { NULL, 0 } };
	int v = 0;
	if (get_choice(p, NULL, l->word[0], versions, "4 or 6", &v))
		return -1;
	node_cfg(p, 0)->ip_version = node_cfg(p, 1)->ip_version = (uint8_t)v;
	return 0;
}

static int apply_vlan(struct parser *p, const struct line *l)
{
	uint64_t id = 0, pcp = 0;
	if (get_uint(p, NULL, l->word[0], 1, 4094, &id) || opt_uint(p, l, "pcp", 0, 7, &pcp))
		return -1;
	for (unsigned n = 0; n < 2; n++) {
		node_cfg(p, n)->vlan = true;
		node_cfg(p, n)->vlan_tci = (uint16_t)(id | pcp << 13);
	}
	return 0;
}

static int apply_pmtu(struct parser *p, const struct line *l)
{
	uint64_t v = 0;
	if (get_uint(p, NULL, l->word[0], 0, UINT64_MAX, &v))
		return -1;
	if (v > UINT32_MAX || !rt_is_pmtu((uint32_t)v))
		return fail(p, Q " is not 256, 512, 1024, 2048 or 4096", l->word[0]);
	node_cfg(p, 0)->pmtu = node_cfg(p, 1)->pmtu = (uint32_t)v;
	return 0;
}

static int apply_link(struct parser *p, const struct line *l)
{
	const char *rate = val(l, "rate");
	if (opt_time(p, l, "delay", &p->sc->sim.delay_ns))
		return -1;
	return rate ? get_rate(p, "rate", rate, &p->sc->sim.rate_bps) : 0;
}

static int apply_capture(struct parser *p, const struct line *l)
{
	static const struct choice taps[] = {
		{ "receiver", RT_TAP_RECEIVER }, { "a", RT_TAP_A }, { "b", RT_TAP_B }, { NULL, 0 },
	};
	int t = 0;
	if (get_choice(p, NULL, l->word[0], taps, "receiver, a or b", &t) ||
	    opt_time(p, l, "skew", &p->sc->sim.tap_skew_ns))
		return -1;
	/* The skew delays the frames the capturing node sends; a receiver-side capture has no such node. */
	if (t == RT_TAP_RECEIVER && val(l, "skew"))
		return fail_key(p, "skew", "needs a capture at a node's port (capture a or capture b)");
	p->sc->sim.tap = (enum rt_tap)t;
	return 0;
}

static int apply_limit(struct parser *p, const struct line *l)
{
	int64_t t = 0;
	if (get_time(p, NULL, l->word[0], &t))
		return -1;
	/* The simulator reads 0 as "the default"; a file saying 0 means something else. */
	if (t == 0)
		return fail(p, "must be more than 0");
	p->sc->sim.time_limit_ns = t;
	return 0;
}

/* ---- node lines ---- */

enum node_kind {
	K_NUM,		/* a number in min..max */
	K_SIZE,		/* a size in min..max */
	K_TIME,
	K_ONOFF,
	K_MAC,
	K_IP,
	K_ACKREQ,	/* "last" or a number in min..max */
	K_RECV,		/* the receives posted at the start: not a config field */
};

struct node_key {
	enum node_kind kind;
	size_t off, size;	/* the field of struct rt_qp_config */
	uint64_t min, max;
};

#define FIELD(f) offsetof(struct rt_qp_config, f), sizeof(((struct rt_qp_config *)0)->f)
#define NO_FIELD 0, 0
/* X(key, kind, field, min, max), in the order of the README's table. */
#define NODE_KEYS(X)                                                    \
	X("mac", K_MAC, FIELD(mac), 0, 0)                               \
	X("ip", K_IP, FIELD(ip), 0, 0)                                  \
	X("roce", K_NUM, FIELD(roce_version), 1, 2)                     \
	X("qpn", K_NUM, FIELD(qpn), 2, 0xffffff)                        \
	X("psn", K_NUM, FIELD(sq_psn), 0, PSN_MASK)                     \
	X("sport", K_NUM, FIELD(udp_sport), 0, 0xffff)                  \
	X("tos", K_NUM, FIELD(tos), 0, 0xff)                            \
	X("memory", K_SIZE, FIELD(mem_size), 0, UINT32_MAX)             \
	X("va", K_NUM, FIELD(mem_va), 0, UINT64_MAX)                    \
	X("rkey", K_NUM, FIELD(rkey), 0, UINT32_MAX)                    \
	X("qkey", K_NUM, FIELD(qkey), 0, UINT32_MAX)                    \
	X("timeout", K_NUM, FIELD(timeout), 0, 31)                      \
	X("retry_cnt", K_NUM, FIELD(retry_cnt), 0, 7)                   \
	X("rnr_retry", K_NUM, FIELD(rnr_retry), 0, 7)                   \
	X("rnr_timer", K_NUM, FIELD(min_rnr_timer), 0, 31)              \
	X("ackreq", K_ACKREQ, FIELD(ackreq_every), 1, UINT32_MAX)       \
	X("ack_every", K_NUM, FIELD(ack_every), 1, UINT32_MAX)          \
	X("ack_delay", K_TIME, FIELD(ack_delay_ns), 0, 0)               \
	X("credits", K_NUM, FIELD(ack_credits), 0, 31)                  \
	X("window", K_NUM, FIELD(window), 1, UINT32_MAX)                \
	X("max_rd_atomic", K_NUM, FIELD(max_rd_atomic), 1, UINT32_MAX)  \
	X("rq_depth", K_NUM, FIELD(rq_depth), 0, UINT32_MAX)            \
	X("recv_size", K_SIZE, FIELD(recv_size), 0, UINT32_MAX)         \
	X("recv", K_RECV, NO_FIELD, 0, UINT32_MAX)                      \
	X("cnp", K_ONOFF, FIELD(send_cnp), 0, 0)                        \
	X("op_error", K_NUM, FIELD(op_error_msg), 0, UINT32_MAX)
#define NODE_KEY_NAME(key, kind, field, min, max) key,
#define NODE_KEY_ROW(key, kind, field, min, max) { kind, field, min, max },

static const char *const node_key_names[] = { NODE_KEYS(NODE_KEY_NAME) NULL };
static const struct node_key node_keys[] = { NODE_KEYS(NODE_KEY_ROW) };
_Static_assert(sizeof node_keys / sizeof node_keys[0] <= MAX_KEYS, "struct line holds MAX_KEYS values");

/* Stores v into a number field of its width (the table's ranges fit the widths). */
static void store_uint(struct rt_qp_config *cfg, const struct node_key *k, uint64_t v)
{
	unsigned char *f = (unsigned char *)cfg + k->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;
	switch (k->size) {
	case 1: memcpy(f, &v8, 1); break;
	case 2: memcpy(f, &v16, 2); break;
	case 4: memcpy(f, &v32, 4); break;
	default: memcpy(f, &v, 8); break;
	}
}

static int set_node_key(struct parser *p, unsigned n, const char *name, const struct node_key *k,
			const char *text)
{
	struct rt_qp_config *cfg = node_cfg(p, n);
	unsigned char *f = (unsigned char *)cfg + k->off;
	uint64_t v = 0;
	switch (k->kind) {
	case K_NUM:
		if (get_uint(p, name, text, k->min, k->max, &v))
			return -1;
		store_uint(cfg, k, v);
		return 0;
	case K_SIZE:
		if (get_size(p, name, text, k->min, k->max, &v))
			return -1;
		store_uint(cfg, k, v);
		return 0;
	case K_ACKREQ:
		if (strcmp(text, "last") && get_uint(p, name, text, k->min, k->max, &v))
			return -1;
		store_uint(cfg, k, v);	/* "last": v is still 0, RT_ACKREQ_LAST */
		return 0;
	case K_RECV:
		return get_uint(p, name, text, k->min, k->max, &p->node[n].recv);
	case K_TIME: {
		int64_t t = 0;
		if (get_time(p, name, text, &t))
			return -1;
		memcpy(f, &t, sizeof t);
		return 0;
	}
	case K_ONOFF: {
		static const struct choice onoff[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };
		int c = 0;
		if (get_choice(p, name, text, onoff, "on or off", &c))
			return -1;
		bool b = c;
		memcpy(f, &b, sizeof b);
		return 0;
	}
	case K_MAC:
		if (!scan_mac(text, cfg->mac))
			return fail_key(p, name, "bad MAC address '" Q "' (xx:xx:xx:xx:xx:xx)", text);
		return 0;
	case K_IP:
		/* Whether the version matches `ip` is known only after the last line. */
		memset(cfg->ip, 0, sizeof cfg->ip);
		if (inet_pton(AF_INET, text, cfg->ip) == 1)
			p->node[n].ip_version = 4;
		else if (inet_pton(AF_INET6, text, cfg->ip) == 1)
			p->node[n].ip_version = 6;
		else
			return fail_key(p, name, "bad IP address '" Q "'", text);
		p->node[n].ip_line = p->line;
		return 0;
	}
	return 0;
}

static int apply_node(struct parser *p, const struct line *l)
{
	uint8_t n = 0;
	if (get_node(p, l->word[0], &n))
		return -1;
	for (size_t k = 0; node_key_names[k]; k++)
		if (l->val[k] && set_node_key(p, n, node_key_names[k], &node_keys[k], l->val[k]))
			return -1;
	if (val(l, "recv") || val(l, "rq_depth"))
		p->node[n].recv_line = p->line;
	return 0;
}

/* ---- work ---- */

static int push_work(struct parser *p, const struct work *w)
{
	if (p->work_actions + w->count > MAX_ACTIONS)
		return fail(p, "more than %u work requests in one scenario", MAX_ACTIONS);
	if (p->n_work == p->cap_work) {
		size_t cap = p->cap_work ? 2 * p->cap_work : 64;
		struct work *grown = realloc(p->work, cap * sizeof *grown);
		if (!grown)
			return fail(p, "out of memory");
		p->work = grown;
		p->cap_work = cap;
	}
	p->work[p->n_work++] = *w;
	p->work_actions += w->count;
	return 0;
}

/* What every work line has: the node, at= and count=. */
static int read_work(struct parser *p, const struct line *l, enum rt_sim_action_kind kind, struct work *w)
{
	uint64_t count = 1;
	*w = (struct work){ .line = p->line, .d = l->d, .kind = kind, .op = l->d->op };
	if (get_node(p, l->word[0], &w->node) || opt_time(p, l, "at", &w->at_ns) ||
	    opt_uint(p, l, "count", 1, MAX_COUNT, &count))
		return -1;
	w->count = (uint32_t)count;
	return 0;
}

static int apply_request(struct parser *p, const struct line *l)
{
	struct work w;
	const char *va = val(l, "va"), *imm = val(l, "imm"), *inv = val(l, "inv");
	if (imm && inv)
		return fail(p, "imm= and inv= exclude each other");
	if (read_work(p, l, RT_ACTION_SEND, &w))
		return -1;
	/* Atomics have no len=: they move 8 bytes. */
	w.len = ATOMIC_LEN;
	if (opt_size(p, l, "len", 0, MAX_MSG_LEN, &w.len) || opt_size(p, l, "offset", 0, UINT32_MAX, &w.offset) ||
	    opt_uint(p, l, "id", 0, UINT64_MAX, &w.id) || opt_uint(p, l, "rkey", 0, UINT32_MAX, &w.rkey) ||
	    opt_uint(p, l, "imm", 0, UINT32_MAX, &w.imm) || opt_uint(p, l, "inv", 0, UINT32_MAX, &w.imm) ||
	    opt_uint(p, l, "compare", 0, UINT64_MAX, &w.compare) ||
	    opt_uint(p, l, "swap", 0, UINT64_MAX, &w.swap_add) || opt_uint(p, l, "add", 0, UINT64_MAX, &w.swap_add))
		return -1;
	w.has_offset = val(l, "offset") != NULL;
	w.has_id = val(l, "id") != NULL;
	w.has_rkey = val(l, "rkey") != NULL;
	if (va) {
		/* "+N": N bytes into the peer's memory, settled when its VA is final. */
		w.va_absolute = va[0] != '+';
		if (get_size(p, "va", va + !w.va_absolute, 0, UINT64_MAX, &w.va))
			return -1;
	}
	if (imm)
		w.op = l->d->op_imm;
	if (inv)
		w.op = l->d->op_inv;
	return push_work(p, &w);
}

static int apply_recv(struct parser *p, const struct line *l)
{
	struct work w;
	return read_work(p, l, RT_ACTION_RECV, &w) || push_work(p, &w) ? -1 : 0;
}

static int apply_cnp(struct parser *p, const struct line *l)
{
	struct work w;
	return read_work(p, l, RT_ACTION_CNP, &w) || push_work(p, &w) ? -1 : 0;
}

/* ---- faults, bugs, expectations ---- */

static int get_fault_kind(const struct parser *p, const char *text, enum rt_fault_kind *kind)
{
	for (int k = RT_FAULT_DROP; k <= RT_FAULT_MISS; k++) {
		if (!strcmp(rt_fault_kind_name((enum rt_fault_kind)k), text)) {
			*kind = (enum rt_fault_kind)k;
			return 0;
		}
	}
	return fail(p, "'" Q "' is not a fault (drop, dup, reorder, delay, corrupt, ce or miss)", text);
}

/* packet=N or packet=N-M: frames of the direction, counted from 1. */
static int get_packets(const struct parser *p, const char *text, struct rt_fault *f)
{
	const char *dash = strchr(text, '-');
	size_t n = dash ? (size_t)(dash - text) : strlen(text);
	uint64_t first = 0, last = 0;
	enum scan s1 = scan_uint(text, n, &first), s2 = SCAN_OK;
	if (dash)
		s2 = scan_uint(dash + 1, strlen(dash + 1), &last);
	else
		last = first;
	if (s1 == SCAN_BAD || s2 == SCAN_BAD)
		return fail_key(p, "packet", "bad frame range '" Q "' (N or N-M)", text);
	if (s1 != SCAN_OK || s2 != SCAN_OK || first < 1 || last < first || last > UINT32_MAX)
		return fail_key(p, "packet", Q " out of range (frames from 1 to 0x%x, N <= M)", text, UINT32_MAX);
	f->first = (uint32_t)first;
	f->last = (uint32_t)last;
	return 0;
}

static int apply_fault(struct parser *p, const struct line *l)
{
	static const struct choice directions[] = { { "a>b", 0 }, { "b>a", 1 }, { NULL, 0 } };
	struct rt_sim_config *sim = &p->sc->sim;
	struct rt_fault f = { .count = 0 };
	int dir = 0;
	const char *packet = val(l, "packet"), *psn = val(l, "psn"), *by = val(l, "by");
	if (get_choice(p, NULL, l->word[0], directions, "a direction (a>b or b>a)", &dir) ||
	    get_fault_kind(p, l->word[1], &f.kind))
		return -1;
	f.dir = (uint8_t)dir;
	if (sim->n_faults == RT_SIM_MAX_FAULTS)
		return fail(p, "more than %d faults", RT_SIM_MAX_FAULTS);
	if (!packet && !psn)
		return fail(p, "missing packet= or psn=");
	if (packet && psn)
		return fail(p, "packet= and psn= exclude each other");
	if (val(l, "count") && !psn)
		return fail(p, "count= goes with psn=");
	if (f.kind == RT_FAULT_DELAY && !by)
		return fail(p, "delay needs by=T");
	if (f.kind != RT_FAULT_DELAY && by)
		return fail(p, "by= goes with delay only");
	bool relative = false;
	if (packet) {
		if (get_packets(p, packet, &f))
			return -1;
	} else {
		uint64_t v = 0, count = 1;
		relative = psn[0] == '+';
		if (get_uint(p, "psn", psn + relative, 0, PSN_MASK, &v) || opt_uint(p, l, "count", 1, UINT32_MAX, &count))
			return -1;
		f.by_psn = true;
		f.psn = (uint32_t)v;
		f.count = (uint32_t)count;
	}
	if (by && get_time(p, "by", by, &f.delay_ns))
		return -1;
	p->psn_relative[sim->n_faults] = relative;
	sim->faults[sim->n_faults++] = f;
	return 0;
}

static int apply_bug(struct parser *p, const struct line *l)
{
	uint8_t n = 0;
	uint64_t at = 1;
	if (get_node(p, l->word[0], &n) || opt_uint(p, l, "at", 1, UINT32_MAX, &at))
		return -1;
	enum rt_qp_bug bug = rt_qp_bug_by_name(l->word[1]);
	if (bug == RT_BUG_NONE) {
		char names[320] = "";
		for (int b = 1; b < RT_BUG_COUNT; b++)
			list_add(names, sizeof names, rt_qp_bug_name((enum rt_qp_bug)b));
		return fail(p, "unknown bug '" Q "' (bugs: %s)", l->word[1], names);
	}
	struct rt_qp_config *cfg = node_cfg(p, n);
	/* The config holds one bug a node. */
	if (p->node[n].bug_line)
		return fail(p, "node %c already has a bug (line %u)", "ab"[n], p->node[n].bug_line);
	cfg->bug = bug;
	cfg->bug_at = (uint32_t)at;
	p->node[n].bug_line = p->line;
	return 0;
}

static int apply_expect(struct parser *p, const struct line *l)
{
	struct rt_scenario *sc = p->sc;
	const char *frame = val(l, "frame");
	if (!strcmp(l->word[0], "clean")) {
		if (frame)
			return fail(p, "frame= goes with a rule ID, not with clean");
		if (sc->n_expect)
			return fail(p, "clean, but line %u expects a violation", p->expect_line[0]);
		p->clean_line = p->line;
		return 0;
	}
	int rule = rt_rule_find(l->word[0]);
	if (rule < 0)
		return fail(p, "unknown rule '" Q "'", l->word[0]);
	if (p->clean_line)
		return fail(p, "a violation, but line %u expects clean", p->clean_line);
	if (sc->n_expect == RT_SCENARIO_MAX_EXPECT)
		return fail(p, "more than %d expected violations", RT_SCENARIO_MAX_EXPECT);
	struct rt_scenario_expect *e = &sc->expect[sc->n_expect];
	e->rule = (enum rt_rule)rule;
	e->frame = 0;
	if (frame && get_uint(p, "frame", frame, 1, UINT64_MAX, &e->frame))
		return -1;
	p->expect_line[sc->n_expect++] = p->line;
	return 0;
}

/* ---- the directives ---- */

#define NODE_WHAT "node (a or b)"
static const char *const no_keys[] = { NULL };
static const char *const send_keys[] = { "len", "imm", "inv", "offset", "at", "count", "id", NULL };
static const char *const write_keys[] = { "len", "va", "rkey", "imm", "offset", "at", "count", "id", NULL };
static const char *const read_keys[] = { "len", "va", "rkey", "offset", "at", "count", "id", NULL };
static const char *const cas_keys[] = { "va", "rkey", "compare", "swap", "offset", "at", "count", "id", NULL };
static const char *const fadd_keys[] = { "va", "rkey", "add", "offset", "at", "count", "id", NULL };
static const char *const recv_keys[] = { "count", "at", NULL };
static const char *const at_keys[] = { "at", NULL };
static const char *const vlan_keys[] = { "pcp", NULL };
static const char *const link_keys[] = { "delay", "rate", NULL };
static const char *const capture_keys[] = { "skew", NULL };
static const char *const fault_keys[] = { "packet", "psn", "count", "by", NULL };
static const char *const expect_keys[] = { "frame", NULL };
static const char *const need_len[] = { "len", NULL };
static const char *const need_cas[] = { "compare", "swap", NULL };
static const char *const need_add[] = { "add", NULL };

static const struct directive directives[] = {
	{ .name = "description", .apply = apply_description, .words = 1, .word_what = { "text" },
	  .keys = no_keys, .once = true, .rest = true },
	{ .name = "seed", .apply = apply_seed, .words = 1, .word_what = { "value (a number)" }, .keys = no_keys,
	  .once = true },
	{ .name = "transport", .apply = apply_transport, .words = 1, .word_what = { "value (rc, uc or ud)" },
	  .keys = no_keys, .once = true },
	{ .name = "ip", .apply = apply_ip, .words = 1, .word_what = { "value (4 or 6)" }, .keys = no_keys,
	  .once = true },
	{ .name = "vlan", .apply = apply_vlan, .words = 1, .word_what = { "VLAN ID (1..4094)" },
	  .keys = vlan_keys, .once = true },
	{ .name = "pmtu", .apply = apply_pmtu, .words = 1, .word_what = { "value (256, 512, 1024, 2048 or 4096)" },
	  .keys = no_keys, .once = true },
	{ .name = "link", .apply = apply_link, .keys = link_keys, .once = true },
	{ .name = "capture", .apply = apply_capture, .words = 1, .word_what = { "value (receiver, a or b)" },
	  .keys = capture_keys, .once = true },
	{ .name = "limit", .apply = apply_limit, .words = 1, .word_what = { "time" }, .keys = no_keys,
	  .once = true },
	{ .name = "node", .apply = apply_node, .words = 1, .word_what = { NODE_WHAT }, .keys = node_key_names },
	{ .name = "send", .apply = apply_request, .words = 1, .word_what = { NODE_WHAT }, .keys = send_keys,
	  .required = need_len, .op = RT_WR_SEND, .op_imm = RT_WR_SEND_IMM, .op_inv = RT_WR_SEND_INV },
	{ .name = "write", .apply = apply_request, .words = 1, .word_what = { NODE_WHAT }, .keys = write_keys,
	  .required = need_len, .op = RT_WR_WRITE, .op_imm = RT_WR_WRITE_IMM },
	{ .name = "read", .apply = apply_request, .words = 1, .word_what = { NODE_WHAT }, .keys = read_keys,
	  .required = need_len, .op = RT_WR_READ },
	{ .name = "cas", .apply = apply_request, .words = 1, .word_what = { NODE_WHAT }, .keys = cas_keys,
	  .required = need_cas, .op = RT_WR_CMP_SWAP },
	{ .name = "fadd", .apply = apply_request, .words = 1, .word_what = { NODE_WHAT }, .keys = fadd_keys,
	  .required = need_add, .op = RT_WR_FETCH_ADD },
	{ .name = "recv", .apply = apply_recv, .words = 1, .word_what = { NODE_WHAT }, .keys = recv_keys },
	{ .name = "cnp", .apply = apply_cnp, .words = 1, .word_what = { NODE_WHAT }, .keys = at_keys },
	{ .name = "fault", .apply = apply_fault, .words = 2,
	  .word_what = { "direction (a>b or b>a)", "kind (drop, dup, reorder, delay, corrupt, ce or miss)" },
	  .keys = fault_keys },
	{ .name = "bug", .apply = apply_bug, .words = 2, .word_what = { NODE_WHAT, "bug name" }, .keys = at_keys },
	{ .name = "expect", .apply = apply_expect, .words = 1, .word_what = { "'clean' or a rule ID" },
	  .keys = expect_keys },
};
#define N_DIRECTIVES (sizeof directives / sizeof directives[0])
_Static_assert(N_DIRECTIVES <= MAX_DIRECTIVES, "parser.first_line has a slot per directive");

/* ---- reading lines ---- */

static bool is_blank(char c)
{
	/* A CR is a blank, so CRLF files read like LF ones. */
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next blank-separated token of *s, NUL-terminated in place; NULL at the end of the line. */
static char *next_token(char **s)
{
	char *t = *s;
	while (is_blank(*t))
		t++;
	if (!*t) {
		*s = t;
		return NULL;
	}
	char *e = t;
	while (*e && !is_blank(*e))
		e++;
	if (*e)
		*e++ = '\0';
	*s = e;
	return t;
}

static char *trim(char *s)
{
	while (is_blank(*s))
		s++;
	size_t n = strlen(s);
	while (n && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int key_index(const struct directive *d, const char *key)
{
	for (int k = 0; d->keys[k]; k++)
		if (!strcmp(d->keys[k], key))
			return k;
	return -1;
}

static int unknown_key(const struct parser *p, const struct directive *d, const char *key)
{
	if (!d->keys[0])
		return fail(p, "unknown key '" Q "' (%s takes no keys)", key, d->name);
	char keys[400] = "";
	for (size_t k = 0; d->keys[k]; k++)
		list_add(keys, sizeof keys, d->keys[k]);
	return fail(p, "unknown key '" Q "' (keys: %s)", key, keys);
}

static int unknown_directive(const struct parser *p, const char *name)
{
	char names[300] = "";
	for (size_t i = 0; i < N_DIRECTIVES; i++)
		list_add(names, sizeof names, directives[i].name);
	return fail(p, "unknown directive '" Q "' (directives: %s)", name, names);
}

static int read_line(struct parser *p, char *s)
{
	char *comment = strchr(s, '#');
	if (comment)
		*comment = '\0';
	char *name = next_token(&s);
	if (!name)
		return 0;
	const struct directive *d = NULL;
	for (size_t i = 0; i < N_DIRECTIVES && !d; i++)
		if (!strcmp(directives[i].name, name))
			d = &directives[i];
	if (!d)
		return unknown_directive(p, name);
	p->dir = d->name;
	unsigned *first = &p->first_line[d - directives];
	if (d->once && *first)
		return fail(p, "repeated (first on line %u)", *first);
	if (!*first)
		*first = p->line;

	struct line l = { .d = d };
	if (d->rest) {
		l.rest = trim(s);
		return *l.rest ? d->apply(p, &l) : fail(p, "missing %s", d->word_what[0]);
	}
	unsigned words = 0;
	for (char *t; (t = next_token(&s));) {
		char *eq = strchr(t, '=');
		if (!eq) {
			if (words < d->words) {
				l.word[words++] = t;
				continue;
			}
			if (key_index(d, t) >= 0)
				return fail(p, "'" Q "' needs a value (" Q "=...)", t, t);
			return fail(p, "unexpected word '" Q "'", t);
		}
		*eq = '\0';
		int k = key_index(d, t);
		if (k < 0)
			return unknown_key(p, d, t);
		if (l.val[k])
			return fail(p, "key '%s' appears twice", t);
		if (!eq[1])
			return fail_key(p, t, "missing value");
		l.val[k] = eq + 1;
	}
	if (words < d->words)
		return fail(p, "missing %s", d->word_what[words]);
	for (const char *const *r = d->required; r && *r; r++)
		if (!val(&l, *r))
			return fail(p, "missing %s=", *r);
	return d->apply(p, &l);
}

static int read_lines(struct parser *p, char *text, size_t len)
{
	char *end = text + len;
	for (char *s = text; s < end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		if (nl)
			*nl = '\0';	/* the last line ends at text[len], already '\0' */
		p->line++;
		p->dir = NULL;
		if (read_line(p, s))
			return -1;
		s = nl ? nl + 1 : end;
	}
	at_line(p, 0, NULL);
	return 0;
}

/* ---- after the last line ---- */

static int settle_addresses(struct parser *p)
{
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp_config *cfg = node_cfg(p, n);
		const struct node_state *ns = &p->node[n];
		if (ns->ip_line) {
			if (ns->ip_version == cfg->ip_version)
				continue;
			at_line(p, ns->ip_line, "node");
			return fail_key(p, "ip", "an IPv%u address, but the scenario is IPv%u%s", ns->ip_version,
					cfg->ip_version, cfg->ip_version == 4 ? " (no 'ip 6' line)" : " ('ip 6')");
		}
		/* 10.0.0.1 / 10.0.0.2, or fd00::1 / fd00::2. */
		memset(cfg->ip, 0, sizeof cfg->ip);
		if (cfg->ip_version == 4) {
			cfg->ip[0] = 10;
			cfg->ip[3] = (uint8_t)(n + 1);
		} else {
			cfg->ip[0] = 0xfd;
			cfg->ip[15] = (uint8_t)(n + 1);
		}
	}
	return 0;
}

static int check_receives(struct parser *p)
{
	for (unsigned n = 0; n < 2; n++) {
		const struct rt_qp_config *cfg = node_cfg(p, n);
		if (p->node[n].recv <= cfg->rq_depth)
			continue;
		at_line(p, p->node[n].recv_line, "node");
		return fail(p, "node %c: recv %llu > rq_depth %u", "ab"[n], (unsigned long long)p->node[n].recv,
			    cfg->rq_depth);
	}
	return 0;
}

/* Each end's peer is the other end. */
static void connect_nodes(struct parser *p)
{
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp_config *cfg = node_cfg(p, n);
		const struct rt_qp_config *peer = node_cfg(p, 1 - n);
		memcpy(cfg->peer_mac, peer->mac, sizeof cfg->peer_mac);
		memcpy(cfg->peer_ip, peer->ip, sizeof cfg->peer_ip);
		cfg->peer_qpn = peer->qpn;
		cfg->rq_psn = peer->sq_psn;
	}
}

/* psn=+N counts from the first PSN of the direction's sender. */
static void settle_faults(struct parser *p)
{
	struct rt_sim_config *sim = &p->sc->sim;
	for (unsigned i = 0; i < sim->n_faults; i++)
		if (p->psn_relative[i])
			sim->faults[i].psn = (sim->node[sim->faults[i].dir].sq_psn + sim->faults[i].psn) & PSN_MASK;
}

static int check_expectations(struct parser *p)
{
	const struct rt_scenario *sc = p->sc;
	bool bug = sc->sim.node[0].bug != RT_BUG_NONE || sc->sim.node[1].bug != RT_BUG_NONE;
	for (unsigned i = 0; i < sc->n_expect; i++) {
		if (sc->expect[i].frame || bug)
			continue;
		at_line(p, p->expect_line[i], "expect");
		return fail(p, "%s without frame= names the frame carrying the bug, but there is no bug line",
			    rt_rule_info(sc->expect[i].rule)->id);
	}
	return 0;
}

/* What the transport can carry; the README's opcode tables per service. */
static int check_transport(const struct parser *p, const struct rt_qp_config *cfg, const struct work *w)
{
	bool send = w->op == RT_WR_SEND || w->op == RT_WR_SEND_IMM;
	bool write = w->op == RT_WR_WRITE || w->op == RT_WR_WRITE_IMM;
	if (cfg->transport == RT_TRANSPORT_RC)
		return 0;
	if (w->op == RT_WR_SEND_INV)
		return fail(p, "SEND with invalidate is RC only");
	if (cfg->transport == RT_TRANSPORT_UC && !send && !write)
		return fail(p, "UC carries SEND and WRITE only");
	if (cfg->transport == RT_TRANSPORT_UD && !send)
		return fail(p, "UD carries SEND only");
	if (cfg->transport == RT_TRANSPORT_UD && w->len > cfg->pmtu)
		return fail(p, "UD messages fit one packet: len %llu > pmtu %u", (unsigned long long)w->len, cfg->pmtu);
	return 0;
}

static struct rt_sim_action *add_action(struct rt_scenario *sc, uint8_t node, enum rt_sim_action_kind kind,
					int64_t at_ns)
{
	struct rt_sim_action *a = &sc->actions[sc->n_actions++];
	*a = (struct rt_sim_action){ .at_ns = at_ns, .node = node, .kind = kind };
	return a;
}

/* Per node: the next default wr_id of requests and of receives, and where the next default offset starts. */
struct counters {
	uint64_t wr_id[2], recv_id[2], cursor[2];
};

static int expand_request(struct parser *p, const struct work *w, struct counters *c)
{
	struct rt_scenario *sc = p->sc;
	const struct rt_qp_config *cfg = node_cfg(p, w->node);
	const struct rt_qp_config *peer = node_cfg(p, 1u - w->node);
	if (check_transport(p, cfg, w))
		return -1;
	if (w->len > cfg->mem_size)
		return fail(p, "len %llu > memory %u of node %c", (unsigned long long)w->len, cfg->mem_size,
			    "ab"[w->node]);
	if (w->has_offset && w->offset + w->len > cfg->mem_size)
		return fail(p, "offset %llu + len %llu > memory %u of node %c", (unsigned long long)w->offset,
			    (unsigned long long)w->len, cfg->mem_size, "ab"[w->node]);
	uint64_t va = w->va_absolute ? w->va : peer->mem_va + w->va;
	for (uint32_t k = 0; k < w->count; k++) {
		uint64_t *cursor = &c->cursor[w->node];
		uint64_t offset = w->offset;
		if (!w->has_offset) {
			/* The next len bytes of the node's memory, from 0 again when they would run past its end. */
			if (*cursor + w->len > cfg->mem_size)
				*cursor = 0;
			offset = *cursor;
			*cursor += w->len;
		}
		/* Every request takes a number, so a default id is the request's place among its node's. */
		uint64_t id = c->wr_id[w->node]++;
		struct rt_sim_action *a = add_action(sc, w->node, RT_ACTION_SEND, w->at_ns);
		a->wr = (struct rt_send_wr){
			.wr_id = w->has_id ? w->id + k : id,
			.opcode = w->op,
			.local_offset = offset,
			.length = (uint32_t)w->len,
			.remote_va = va + (uint64_t)k * w->len,
			.rkey = (uint32_t)(w->has_rkey ? w->rkey : peer->rkey),
			.imm = (uint32_t)w->imm,
			.compare = w->compare,
			.swap_add = w->swap_add,
		};
	}
	return 0;
}

static int expand_work(struct parser *p)
{
	struct rt_scenario *sc = p->sc;
	uint64_t total = p->node[0].recv + p->node[1].recv + p->work_actions;
	if (total > MAX_ACTIONS)
		return fail(p, "%llu actions (receives posted at the start and work requests), at most %u",
			    (unsigned long long)total, MAX_ACTIONS);
	if (total) {
		sc->actions = malloc((size_t)total * sizeof *sc->actions);
		if (!sc->actions)
			return fail(p, "out of memory");
	}
	struct counters c = { .wr_id = { 1, 1 }, .recv_id = { 1, 1 } };
	/* The receives posted at the start come first, so the peers' first SENDs find them. */
	for (uint8_t n = 0; n < 2; n++)
		for (uint64_t i = 0; i < p->node[n].recv; i++)
			add_action(sc, n, RT_ACTION_RECV, 0)->recv_wr_id = c.recv_id[n]++;
	for (size_t i = 0; i < p->n_work; i++) {
		const struct work *w = &p->work[i];
		at_line(p, w->line, w->d->name);
		if (w->kind == RT_ACTION_SEND) {
			if (expand_request(p, w, &c))
				return -1;
			continue;
		}
		for (uint32_t k = 0; k < w->count; k++) {
			struct rt_sim_action *a = add_action(sc, w->node, w->kind, w->at_ns);
			if (w->kind == RT_ACTION_RECV)
				a->recv_wr_id = c.recv_id[w->node]++;
		}
	}
	return 0;
}

static int finish(struct parser *p)
{
	if (settle_addresses(p) || check_receives(p))
		return -1;
	connect_nodes(p);
	settle_faults(p);
	if (check_expectations(p))
		return -1;
	return expand_work(p);
}

/* ---- entry points ---- */

/* The file name without its directory and ".scn". */
static void set_name(struct rt_scenario *sc, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".scn"))
		n -= 4;
	snprintf(sc->name, sizeof sc->name, "%.*s", (int)(n < sizeof sc->name ? n : sizeof sc->name - 1), base);
}

int rt_scenario_parse(const char *name, const char *text, size_t len, struct rt_scenario *sc,
		      struct rt_error *err)
{
	memset(sc, 0, sizeof *sc);
	rt_sim_config_init(&sc->sim);
	set_name(sc, name);
	struct parser p = { .name = name, .sc = sc, .err = err };
	p.node[0].recv = p.node[1].recv = DEFAULT_RECV;
	/* The per-end defaults of the README that differ between a and b. */
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp_config *cfg = node_cfg(&p, n);
		memcpy(cfg->mac, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, (uint8_t)(0x0a + n) }, sizeof cfg->mac);
		cfg->qpn = 0x11 + n;
		cfg->sq_psn = 0x1000 * (n + 1);
		cfg->udp_sport = (uint16_t)(0xc011 + n);
		cfg->mem_va = 0x10000000ull * (n + 1);
		cfg->rkey = 0xa001 + 0x1000 * n;
	}

	const char *nul = len ? memchr(text, '\0', len) : NULL;
	if (nul) {
		unsigned line = 1;
		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		at_line(&p, line, NULL);
		return fail(&p, "NUL byte: not a text file");
	}
	/* A copy to cut into tokens in place; the caller's text need not end in '\0'. */
	char *copy = malloc(len + 1);
	if (!copy)
		return fail(&p, "out of memory");
	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	int rc = read_lines(&p, copy, len);
	if (!rc)
		rc = finish(&p);
	free(copy);
	free(p.work);
	if (rc)
		rt_scenario_free(sc);
	return rc;
}

int rt_scenario_load(const char *path, struct rt_scenario *sc, struct rt_error *err)
{
	memset(sc, 0, sizeof *sc);
	FILE *f = fopen(path, "rb");
	if (!f) {
		rt_error_set(err, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	/* Read to the end rather than trust a size: a pipe or /dev/stdin has none. */
	char *text = NULL;
	size_t len = 0, cap = 0;
	int error = 0;
	for (;;) {
		if (len == cap) {
			size_t grown_cap = cap ? 2 * cap : 4096;
			char *grown = grown_cap > cap ? realloc(text, grown_cap) : NULL;
			if (!grown) {
				error = ENOMEM;
				break;
			}
			text = grown;
			cap = grown_cap;
		}
		errno = 0;
		size_t got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				error = errno ? errno : EIO;
			break;
		}
	}
	fclose(f);
	if (error) {
		free(text);
		rt_error_set(err, "%s: cannot read: %s", path, strerror(error));
		return -1;
	}
	int rc = rt_scenario_parse(path, text, len, sc, err);
	free(text);
	return rc;
}

void rt_scenario_free(struct rt_scenario *sc)
{
	if (!sc)
		return;
	free(sc->actions);
	sc->actions = NULL;
	sc->n_actions = 0;
}
