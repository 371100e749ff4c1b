/* SPDX-License-Identifier: MIT */
#include "test_util.h"

#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/capture.h"
#include "util.h"

/*
 * wire-facts.md "Opcodes", transcribed here on purpose rather than read from
 * the library's table, so that the two can disagree.
 */
#define NONE 0
#define FACT(op, ext, bytes, pay) { (op), (ext), (bytes), (pay) }
#define SEND_WRITE_FACTS(base)                                                                    \
	FACT((base) + 0x00, NONE, 0, true),	/* SEND First */                                    \
	FACT((base) + 0x01, NONE, 0, true),	/* SEND Middle */                                   \
	FACT((base) + 0x02, NONE, 0, true),	/* SEND Last */                                     \
	FACT((base) + 0x03, RT_EXT_IMMDT, FACT_IMMDT_BYTES, true),	/* SEND Last with Immediate */ \
	FACT((base) + 0x04, NONE, 0, true),	/* SEND Only */                                     \
	FACT((base) + 0x05, RT_EXT_IMMDT, FACT_IMMDT_BYTES, true),	/* SEND Only with Immediate */ \
	FACT((base) + 0x06, RT_EXT_RETH, FACT_RETH_BYTES, true),	/* RDMA WRITE First */         \
	FACT((base) + 0x07, NONE, 0, true),	/* RDMA WRITE Middle */                             \
	FACT((base) + 0x08, NONE, 0, true),	/* RDMA WRITE Last */                               \
	FACT((base) + 0x09, RT_EXT_IMMDT, FACT_IMMDT_BYTES, true),	/* WRITE Last with Immediate */ \
	FACT((base) + 0x0A, RT_EXT_RETH, FACT_RETH_BYTES, true),	/* RDMA WRITE Only */          \
	FACT((base) + 0x0B, RT_EXT_RETH | RT_EXT_IMMDT, FACT_RETH_BYTES + FACT_IMMDT_BYTES, true)

const struct fact_opcode fact_opcodes[] = {
	SEND_WRITE_FACTS(0x00),
	FACT(0x0C, RT_EXT_RETH, FACT_RETH_BYTES, false),	/* RDMA READ Request */
	FACT(0x0D, RT_EXT_AETH, FACT_AETH_BYTES, true),		/* READ Response First */
	FACT(0x0E, NONE, 0, true),				/* READ Response Middle */
	FACT(0x0F, RT_EXT_AETH, FACT_AETH_BYTES, true),		/* READ Response Last */
	FACT(0x10, RT_EXT_AETH, FACT_AETH_BYTES, true),		/* READ Response Only */
	FACT(0x11, RT_EXT_AETH, FACT_AETH_BYTES, false),	/* Acknowledge */
	FACT(0x12, RT_EXT_AETH | RT_EXT_ATOMICACKETH, FACT_AETH_BYTES + FACT_ATOMICACKETH_BYTES, false),
	FACT(0x13, RT_EXT_ATOMICETH, FACT_ATOMICETH_BYTES, false),	/* Compare&Swap */
	FACT(0x14, RT_EXT_ATOMICETH, FACT_ATOMICETH_BYTES, false),	/* Fetch&Add */
	FACT(0x16, RT_EXT_IETH, FACT_IETH_BYTES, true),		/* SEND Last with Invalidate */
	FACT(0x17, RT_EXT_IETH, FACT_IETH_BYTES, true),		/* SEND Only with Invalidate */
	/* "UC is 0x20 + the same low bits for 0x00-0x0B". */
	SEND_WRITE_FACTS(0x20),
	FACT(0x64, RT_EXT_DETH, FACT_DETH_BYTES, true),		/* UD SEND Only */
	FACT(0x65, RT_EXT_DETH | RT_EXT_IMMDT, FACT_DETH_BYTES + FACT_IMMDT_BYTES, true),
	/* CNP: no extension header; its 16 reserved bytes sit where a payload would. */
	FACT(0x81, NONE, 0, true),
};
const size_t fact_opcode_count = sizeof fact_opcodes / sizeof fact_opcodes[0];

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t hex_to_bytes(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int high = -1;
	for (const char *c = hex; *c; c++) {
		if (isspace((unsigned char)*c))
			continue;
		int d = hex_digit(*c);
		if (d < 0)
			ck_abort_msg("bad hex digit '%c' in test vector", *c);
		if (high < 0) {
			high = d;
			continue;
		}
		if (n == cap)
			ck_abort_msg("hex vector longer than %zu bytes", cap);
		out[n++] = (uint8_t)(high << 4 | d);
		high = -1;
	}
	if (high >= 0)
		ck_abort_msg("odd number of hex digits in test vector");
	return n;
}

uint8_t payload_pattern(uint32_t i)
{
	/* Never all-zero, so payload bytes cannot be confused with pad bytes. */
	return (uint8_t)(i * 37u + 11u);
}

void spec_with_fields(struct rt_build_spec *s, uint8_t opcode, uint32_t payload_len, int variant)
{
	static uint8_t payload[2048];
	for (uint32_t i = 0; i < sizeof payload; i++)
		payload[i] = payload_pattern(i);
	ck_assert_uint_le(payload_len, sizeof payload);

	/* XOR with all ones in variant 1: every bit of every field takes both values. */
	uint64_t x = variant ? ~(uint64_t)0 : 0;
	rt_build_spec_init(s);
	s->bth.opcode = opcode;
	s->bth.se = !variant;
	s->bth.migreq = variant;
	s->bth.pkey = (uint16_t)(0x8001 ^ x);
	s->bth.fecn = variant;
	s->bth.becn = !variant;
	s->bth.resv6 = (uint8_t)((0x2A ^ x) & 0x3F);
	s->bth.dest_qp = (uint32_t)((0xABCDEF ^ x) & 0xFFFFFF);
	s->bth.ack_req = !variant;
	s->bth.resv7 = (uint8_t)((0x55 ^ x) & 0x7F);
	s->bth.psn = (uint32_t)((0xFEDCBA ^ x) & 0xFFFFFF);

	struct rt_ext *e = &s->ext;
	e->deth.qkey = (uint32_t)(0x80010002 ^ x);
	e->deth.reserved = (uint8_t)(0x5A ^ x);
	e->deth.src_qp = (uint32_t)((0xFEDCB1 ^ x) & 0xFFFFFF);
	e->reth.va = 0x0123456789ABCDEFull ^ x;
	e->reth.rkey = (uint32_t)(0xFEDCBA98 ^ x);
	e->reth.dma_len = (uint32_t)(0x80000001 ^ x);
	e->atomic.va = 0xF0E1D2C3B4A59687ull ^ x;
	e->atomic.rkey = (uint32_t)(0x13579BDF ^ x);
	e->atomic.swap_add = 0x8877665544332211ull ^ x;
	e->atomic.compare = 0x0102030405060708ull ^ x;
	e->aeth.syndrome = (uint8_t)(0xA5 ^ x);
	e->aeth.msn = (uint32_t)((0xABCDE1 ^ x) & 0xFFFFFF);
	e->atomic_ack_orig = 0xDEADBEEFCAFEF00Dull ^ x;
	e->imm = (uint32_t)(0x89ABCDEF ^ x);
	e->ieth_rkey = (uint32_t)(0x76543210 ^ x);

	s->payload = payload;
	s->payload_len = payload_len;
}

size_t build_frame(const struct rt_build_spec *s, uint8_t *buf, size_t cap)
{
	size_t len = rt_build(s, buf, cap);
	ck_assert_msg(len > 0, "rt_build refused opcode 0x%02x, payload %u", s->bth.opcode, s->payload_len);
	return len;
}

unsigned link_header_bytes(enum rt_link link)
{
	switch (link) {
	case RT_LINK_ETHERNET: return 14;
	case RT_LINK_LINUX_SLL: return 16;
	case RT_LINK_LINUX_SLL2: return 20;
	case RT_LINK_RAW_IP:
	case RT_LINK_IPV4:
	case RT_LINK_IPV6: return 0;
	}
	return 0;
}

size_t reframe(const uint8_t *eth, size_t len, enum rt_link link, uint8_t *out, size_t cap)
{
	enum { ETH = 14 };
	const uint8_t *ethertype = eth + 12;
	const uint8_t *l3 = eth + ETH;
	size_t l3_len = len - ETH;
	unsigned hdr = link_header_bytes(link);
	ck_assert_uint_le(hdr + l3_len, cap);
	memset(out, 0, hdr);
	switch (link) {
	case RT_LINK_ETHERNET:
		memcpy(out, eth, ETH);
		break;
	case RT_LINK_LINUX_SLL:
		/* packet type 0 (to us), ARPHRD_ETHER, 6-byte address, protocol last. */
		out[3] = 1;
		out[5] = 6;
		memcpy(out + 6, eth + 6, 6);
		memcpy(out + 14, ethertype, 2);
		break;
	case RT_LINK_LINUX_SLL2:
		/* protocol first, reserved, ifindex 1, ARPHRD_ETHER, packet type 0, address. */
		memcpy(out, ethertype, 2);
		out[7] = 1;
		out[9] = 1;
		out[11] = 6;
		memcpy(out + 12, eth + 6, 6);
		break;
	case RT_LINK_RAW_IP:
	case RT_LINK_IPV4:
	case RT_LINK_IPV6:
		break;
	}
	memcpy(out + hdr, l3, l3_len);
	return hdr + l3_len;
}

uint16_t ones_sum16(uint32_t initial, const uint8_t *b, size_t len)
{
	uint64_t sum = initial;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

void load_roce_frames(const char *path, size_t max, struct loaded_capture *out)
{
	struct rt_error err = { "" };
	memset(out, 0, sizeof *out);
	ck_assert_uint_le(max, sizeof out->frames / sizeof out->frames[0]);
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "cannot open %s: %s", path, err.msg);
	out->link = rt_capture_link(c);
	struct rt_frame f;
	while (out->count < max && rt_capture_next(c, &f, &err) == 1) {
		struct rt_packet p;
		if (rt_parse(&p, out->link, f.data, f.caplen, f.wirelen) != RT_PARSE_ROCE)
			continue;
		struct loaded_frame *lf = &out->frames[out->count++];
		lf->data = malloc(f.caplen ? f.caplen : 1);
		ck_assert_ptr_nonnull(lf->data);
		memcpy(lf->data, f.data, f.caplen);
		lf->caplen = f.caplen;
		lf->wirelen = f.wirelen;
		lf->number = f.number;
	}
	rt_capture_close(c);
}

void free_loaded_capture(struct loaded_capture *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->frames[i].data);
	c->count = 0;
}

/* ---- JSON: a strict syntax check (RFC 8259) and a way around a document ---------------- */

struct jp {
	const char *s;
	int depth;
};

static void jp_ws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' || *p->s == '\t')
		p->s++;
}

static bool jp_value(struct jp *p);

static bool jp_string(struct jp *p)
{
	if (*p->s++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*p->s++;
		if (c == '"')
			return true;
		if (c < 0x20)
			return false;	/* raw control characters (and the end of the text) are not allowed */
		if (c == '\\') {
			c = (unsigned char)*p->s++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, p->s++)
					if (!strchr("0123456789abcdefABCDEF", *p->s) || !*p->s)
						return false;
			} else if (!c || !strchr("\"\\/bfnrt", c)) {
				return false;
			}
		} else if (c >= 0x80) {
			size_t n = rt_rep_utf8_len((const unsigned char *)p->s - 1);
			if (!n)
				return false;
			p->s += n - 1;
		}
	}
}

static bool jp_number(struct jp *p)
{
	const char *start = p->s;
	if (*p->s == '-')
		p->s++;
	if (*p->s == '0')
		p->s++;
	else if (*p->s >= '1' && *p->s <= '9')
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	else
		return false;
	if (*p->s == '.') {
		p->s++;
		if (!(*p->s >= '0' && *p->s <= '9'))
			return false;
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (*p->s == 'e' || *p->s == 'E') {
		p->s++;
		if (*p->s == '+' || *p->s == '-')
			p->s++;
		if (!(*p->s >= '0' && *p->s <= '9'))
			return false;
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	return p->s > start;
}

static bool jp_seq(struct jp *p, char close, bool object)
{
	p->s++;
	jp_ws(p);
	if (*p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		jp_ws(p);
		if (object) {
			if (!jp_string(p))
				return false;
			jp_ws(p);
			if (*p->s++ != ':')
				return false;
		}
		if (!jp_value(p))
			return false;
		jp_ws(p);
		if (*p->s == close) {
			p->s++;
			return true;
		}
		if (*p->s++ != ',')
			return false;
	}
}

static bool jp_value(struct jp *p)
{
	jp_ws(p);
	if (++p->depth > 64)
		return false;
	bool ok;
	switch (*p->s) {
	case '{': ok = jp_seq(p, '}', true); break;
	case '[': ok = jp_seq(p, ']', false); break;
	case '"': ok = jp_string(p); break;
	case 't': ok = !strncmp(p->s, "true", 4) && (p->s += 4); break;
	case 'f': ok = !strncmp(p->s, "false", 5) && (p->s += 5); break;
	case 'n': ok = !strncmp(p->s, "null", 4) && (p->s += 4); break;
	default: ok = jp_number(p);
	}
	p->depth--;
	return ok;
}

bool json_valid(const char *text)
{
	struct jp p = { .s = text };
	if (!jp_value(&p))
		return false;
	jp_ws(&p);
	return *p.s == '\0';
}

const char *json_skip(const char *s)
{
	struct jp p = { .s = s };
	return jp_value(&p) ? p.s : NULL;
}

/*
 * Steps into the object or array at s: calls visit for each member or
 * element (key NULL in an array, else its raw text and length) with the
 * value's start, until visit returns true. Returns the number visited, or
 * (size_t)-1 when s is not a well-formed object or array.
 */
static size_t json_walk(const char *s, bool (*visit)(void *ctx, const char *key, size_t klen, const char *value),
			void *ctx)
{
	struct jp p = { .s = s };
	jp_ws(&p);
	bool object = *p.s == '{';
	if (!object && *p.s != '[')
		return (size_t)-1;
	char close = object ? '}' : ']';
	p.s++;
	jp_ws(&p);
	if (*p.s == close)
		return 0;
	for (size_t n = 0;; n++) {
		const char *key = NULL;
		size_t klen = 0;
		jp_ws(&p);
		if (object) {
			key = p.s + 1;
			if (!jp_string(&p))
				return (size_t)-1;
			klen = (size_t)(p.s - 1 - key);
			jp_ws(&p);
			if (*p.s++ != ':')
				return (size_t)-1;
		}
		jp_ws(&p);
		if (visit && visit(ctx, key, klen, p.s))
			return n + 1;
		if (!jp_value(&p))
			return (size_t)-1;
		jp_ws(&p);
		if (*p.s == close)
			return n + 1;
		if (*p.s++ != ',')
			return (size_t)-1;
	}
}

struct json_find {
	const char *key;	/* or NULL: find by position */
	size_t index, seen;
	const char *found;
};

static bool json_find_visit(void *ctx, const char *key, size_t klen, const char *value)
{
	struct json_find *f = ctx;
	bool hit = f->key ? key && klen == strlen(f->key) && !strncmp(key, f->key, klen) : f->seen == f->index;
	f->seen++;
	if (hit)
		f->found = value;
	return hit;
}

const char *json_member(const char *object, const char *key)
{
	struct json_find f = { .key = key };
	json_walk(object, json_find_visit, &f);
	return f.found;
}

const char *json_element(const char *array, size_t i)
{
	struct json_find f = { .index = i };
	json_walk(array, json_find_visit, &f);
	return f.found;
}

size_t json_length(const char *value)
{
	return json_walk(value, NULL, NULL);
}

size_t text_count(const char *text, const char *part)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, part)); p += strlen(part))
		n++;
	return n;
}

void text_assert_has(const char *text, const char *part)
{
	ck_assert_msg(strstr(text, part) != NULL, "output lacks \"%s\"", part);
}

void text_assert_lacks(const char *text, const char *part)
{
	ck_assert_msg(strstr(text, part) == NULL, "output holds \"%s\"", part);
}
