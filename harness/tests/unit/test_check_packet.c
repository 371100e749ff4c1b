/* SPDX-License-Identifier: MIT */
/*
 * PKT rules: for each rule a packet that breaks it (and nothing else) and a
 * near miss that does not; the published ConnectX CNP; and the real captures,
 * which must give no error.
 */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/check.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "suites.h"

struct checked {
	uint8_t frame[9300];
	size_t len;
	struct rt_packet p;
	struct rt_verdicts v;
};

static uint64_t total_violations(const struct rt_verdicts *v)
{
	uint64_t n = 0;
	for (int r = 0; r < RT_RULE_COUNT; r++)
		n += v->total.violations[r];
	return n;
}

static void parse_and_check(struct checked *c, uint32_t pmtu)
{
	ck_assert_int_eq(rt_parse(&c->p, RT_LINK_ETHERNET, c->frame, (uint32_t)c->len, (uint32_t)c->len),
			 RT_PARSE_ROCE);
	rt_verdicts_init(&c->v);
	rt_check_packet(&c->p, 1, pmtu, &c->v);
}

static void build_and_check(struct checked *c, const struct rt_build_spec *s, uint32_t pmtu)
{
	c->len = rt_build(s, c->frame, sizeof c->frame);
	ck_assert_uint_gt(c->len, 0);
	parse_and_check(c, pmtu);
}

/* After editing covered bytes by hand: recompute the IPv4 checksum and the ICRC. */
static void refresh_checksums(struct checked *c)
{
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, c->frame, (uint32_t)c->len, (uint32_t)c->len), RT_PARSE_ROCE);
	uint8_t *ip = c->frame + p.l3_off;
	rt_put_be16(ip + 10, rt_ipv4_header_checksum(ip, p.l3_hdr_len));
	rt_icrc_store(c->frame, p.icrc_off, rt_icrc_compute(&p));
}

#define ASSERT_ONLY(c, rule)                                                   \
	do {                                                                   \
		ck_assert_uint_eq((c).v.total.violations[rule], 1);                  \
		ck_assert_uint_eq(total_violations(&(c).v), 1);                \
	} while (0)
#define ASSERT_CLEAN(c, rule)                                                  \
	do {                                                                   \
		ck_assert_uint_eq(total_violations(&(c).v), 0);                \
		ck_assert_uint_ge((c).v.total.checked[rule], 1);                     \
	} while (0)

static void send_only(struct rt_build_spec *s, uint32_t payload_len)
{
	rt_build_spec_init(s);
	s->bth.opcode = 0x04;	/* RC SEND Only */
	s->bth.dest_qp = 0x11;
	s->bth.psn = 100;
	s->bth.ack_req = true;
	s->payload_len = payload_len;
}

static void opcode_packet(struct rt_build_spec *s, uint8_t opcode, uint32_t payload_len)
{
	send_only(s, payload_len);
	s->bth.opcode = opcode;
	const struct rt_opcode_info *op = rt_opcode_info(opcode);
	s->bth.ack_req = !(op && op->response) && opcode != RT_OPCODE_CNP;
}

static struct checked c;

START_TEST(clean_send_only)
{
	struct rt_build_spec s;
	send_only(&s, 100);
	build_and_check(&c, &s, 1024);
	ck_assert_uint_eq(total_violations(&c.v), 0);
	ck_assert_uint_eq(c.v.total.checked[RT_RULE_PKT_ICRC], 1);
	ck_assert_uint_eq(c.v.total.checked[RT_RULE_PKT_LEN_ONLY], 1);
}
END_TEST

START_TEST(ip_df_and_header)
{
	struct rt_build_spec s;
	send_only(&s, 8);
	s.ip_df = false;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_IP_DF);
	ck_assert_uint_eq(rt_rule_info(RT_RULE_PKT_IP_DF)->severity, RT_SEV_WARNING);

	send_only(&s, 8);
	s.corrupt_ip_checksum = true;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_IP_HEADER);
}
END_TEST

START_TEST(udp_length_beyond_ip_payload)
{
	struct rt_build_spec s;
	send_only(&s, 8);
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_UDP_LENGTH);
	/* The IP datagram claims 4 bytes more than UDP: a trailer inside IP. */
	uint8_t *ip = c.frame + c.p.l3_off;
	rt_put_be16(ip + 2, (uint16_t)(rt_get_be16(ip + 2) + 4));
	memset(c.frame + c.len, 0, 4);
	c.len += 4;
	refresh_checksums(&c);
	parse_and_check(&c, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_UDP_LENGTH);
}
END_TEST

START_TEST(udp_checksum)
{
	struct rt_build_spec s;
	send_only(&s, 30);
	s.udp_checksum = true;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_UDP_CHECKSUM);
	c.frame[c.p.udp_off + 7] ^= 0x01; /* not covered by the ICRC */
	parse_and_check(&c, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_UDP_CHECKSUM);
}
END_TEST

START_TEST(udp_source_port)
{
	struct rt_build_spec s;
	send_only(&s, 0);
	s.udp_sport = 0xC000;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_UDP_SPORT);
	s.udp_sport = 0xBFFF;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_UDP_SPORT);
}
END_TEST

START_TEST(icrc_bad_and_truncated)
{
	struct rt_build_spec s;
	send_only(&s, 64);
	s.corrupt_icrc = true;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_ICRC);
	/* Cut by the snap length: not evaluated, not a violation. */
	s.corrupt_icrc = false;
	c.len = rt_build(&s, c.frame, sizeof c.frame);
	ck_assert_int_eq(rt_parse(&c.p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len - 10, (uint32_t)c.len), RT_PARSE_ROCE);
	rt_verdicts_init(&c.v);
	rt_check_packet(&c.p, 1, 0, &c.v);
	ck_assert_uint_eq(total_violations(&c.v), 0);
	ck_assert_uint_eq(c.v.total.not_evaluated[RT_RULE_PKT_ICRC], 1);
}
END_TEST

START_TEST(tver_and_pkey)
{
	struct rt_build_spec s;
	send_only(&s, 4);
	s.bth.tver = 1;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_TVER);
	send_only(&s, 4);
	s.bth.pkey = 0x8000;	/* full member bit only: low 15 bits zero */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_PKEY);
	s.bth.pkey = 0x0001;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_PKEY);
}
END_TEST

START_TEST(opcode_undefined_and_unsupported)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x15, 8);	/* reserved RC opcode */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_OPCODE);
	ck_assert_uint_eq(c.v.total.violations[RT_RULE_PKT_OPCODE], 1);
	opcode_packet(&s, 0x44, 8);	/* RD SEND Only: legal IB, not modelled */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_OPCODE);
}
END_TEST

static enum rt_severity last_severity;
static void remember_severity(void *ctx, const struct rt_violation *v)
{
	(void)ctx;
	last_severity = v->severity;
}

START_TEST(opcode_severity)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x15, 8);
	c.len = rt_build(&s, c.frame, sizeof c.frame);
	rt_parse(&c.p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len, (uint32_t)c.len);
	rt_verdicts_init(&c.v);
	c.v.on_violation = remember_severity;
	rt_check_packet(&c.p, 1, 0, &c.v);
	ck_assert_int_eq(last_severity, RT_SEV_ERROR);
	opcode_packet(&s, 0xA4, 8);	/* XRC */
	c.len = rt_build(&s, c.frame, sizeof c.frame);
	rt_parse(&c.p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len, (uint32_t)c.len);
	rt_check_packet(&c.p, 1, 0, &c.v);
	ck_assert_int_eq(last_severity, RT_SEV_WARNING);
}
END_TEST

START_TEST(pad_rules)
{
	struct rt_build_spec s;
	send_only(&s, 100);
	s.pad_explicit = true;
	s.bth.pad = 1;		/* 101 bytes of payload + pad */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_PAD);

	opcode_packet(&s, 0x00, 1022);	/* SEND First, padded to 1024 */
	s.pad_explicit = true;
	s.bth.pad = 2;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_PAD);

	send_only(&s, 3);
	s.pad_byte = 0xAA;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_PAD_ZERO);
	s.pad_byte = 0;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_PAD_ZERO);
}
END_TEST

START_TEST(first_middle_length)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x01, 1000);	/* SEND Middle */
	build_and_check(&c, &s, 1024);
	ASSERT_ONLY(c, RT_RULE_PKT_LEN_FIRST_MIDDLE);
	opcode_packet(&s, 0x01, 1024);
	build_and_check(&c, &s, 1024);
	ASSERT_CLEAN(c, RT_RULE_PKT_LEN_FIRST_MIDDLE);
	/* No PMTU known: not evaluated, never guessed. */
	opcode_packet(&s, 0x01, 1000);
	build_and_check(&c, &s, 0);
	ck_assert_uint_eq(total_violations(&c.v), 0);
	ck_assert_uint_eq(c.v.total.not_evaluated[RT_RULE_PKT_LEN_FIRST_MIDDLE], 1);
}
END_TEST

START_TEST(last_and_only_length)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x02, 0);	/* SEND Last with no payload */
	build_and_check(&c, &s, 1024);
	ASSERT_ONLY(c, RT_RULE_PKT_LEN_LAST);
	opcode_packet(&s, 0x08, 1025);	/* WRITE Last over the PMTU */
	build_and_check(&c, &s, 1024);
	ASSERT_ONLY(c, RT_RULE_PKT_LEN_LAST);
	build_and_check(&c, &s, 2048);
	ASSERT_CLEAN(c, RT_RULE_PKT_LEN_LAST);

	send_only(&s, 4097);		/* larger than any PMTU */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_LEN_ONLY);
	send_only(&s, 0);
	build_and_check(&c, &s, 256);
	ASSERT_CLEAN(c, RT_RULE_PKT_LEN_ONLY);
}
END_TEST

START_TEST(no_payload_opcodes)
{
	static const uint8_t opcodes[] = { 0x0C, 0x11, 0x12, 0x13, 0x14 };
	for (size_t i = 0; i < sizeof opcodes; i++) {
		struct rt_build_spec s;
		opcode_packet(&s, opcodes[i], 0);
		s.ext.atomic.va = 0x1000;
		build_and_check(&c, &s, 0);
		ASSERT_CLEAN(c, RT_RULE_PKT_LEN_NO_PAYLOAD);
		opcode_packet(&s, opcodes[i], 4);
		s.ext.atomic.va = 0x1000;
		build_and_check(&c, &s, 0);
		ASSERT_ONLY(c, RT_RULE_PKT_LEN_NO_PAYLOAD);
	}
}
END_TEST

START_TEST(reth_dma_length_and_atomic_alignment)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x0C, 0);	/* READ request */
	s.ext.reth.dma_len = 0x80000000u;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_RETH_DMALEN);
	s.ext.reth.dma_len = 0x80000001u;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_RETH_DMALEN);

	opcode_packet(&s, 0x14, 0);	/* Fetch&Add */
	s.ext.atomic.va = 0x1008;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_ATOMIC_ALIGN);
	s.ext.atomic.va = 0x1004;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_ATOMIC_ALIGN);
}
END_TEST

START_TEST(aeth_syndrome)
{
	static const struct {
		uint8_t syndrome;
		bool ok;
	} cases[] = {
		{ 0x1F, true }, { 0x60, true }, { 0x63, true }, { 0x20, true }, { 0x3F, true },
		{ 0x9F, false }, /* bit 7 */
		{ 0x40, false }, /* type 10b */
		{ 0x64, false }, /* NAK code 4 is RD only */
		{ 0x7F, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt_build_spec s;
		opcode_packet(&s, 0x11, 0);
		s.ext.aeth.syndrome = cases[i].syndrome;
		build_and_check(&c, &s, 0);
		if (cases[i].ok)
			ASSERT_CLEAN(c, RT_RULE_PKT_AETH_SYNDROME);
		else
			ASSERT_ONLY(c, RT_RULE_PKT_AETH_SYNDROME);
	}
}
END_TEST

START_TEST(dest_qp)
{
	struct rt_build_spec s;
	send_only(&s, 4);
	s.bth.dest_qp = 0;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_DESTQP);
	s.bth.dest_qp = 1;	/* QP 1 with an RC opcode */
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_DESTQP);
	opcode_packet(&s, 0x64, 256);	/* UD SEND Only to QP 1 (CM MADs) */
	s.bth.dest_qp = 1;
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_DESTQP);
}
END_TEST

START_TEST(reserved_bits)
{
	struct rt_build_spec s;
	send_only(&s, 4);
	s.bth.resv7 = 0x01;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_RESERVED);
	send_only(&s, 4);
	s.bth.fecn = true;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_RESERVED);
	send_only(&s, 4);
	s.bth.becn = true;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_RESERVED);
}
END_TEST

START_TEST(ackreq_on_responses)
{
	static const uint8_t responses[] = { 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12 };
	for (size_t i = 0; i < sizeof responses; i++) {
		struct rt_build_spec s;
		opcode_packet(&s, responses[i], responses[i] <= 0x10 ? 256 : 0);
		build_and_check(&c, &s, 256);
		ASSERT_CLEAN(c, RT_RULE_PKT_ACKREQ_RESPONSE);
		s.bth.ack_req = true;
		build_and_check(&c, &s, 256);
		ASSERT_ONLY(c, RT_RULE_PKT_ACKREQ_RESPONSE);
	}
}
END_TEST

static void cnp(struct rt_build_spec *s)
{
	opcode_packet(s, RT_OPCODE_CNP, RT_CNP_RESERVED_BYTES);
	s->bth.becn = true;
	s->bth.psn = 0;
	s->bth.dest_qp = 0x118;
}

START_TEST(cnp_rules)
{
	struct rt_build_spec s;
	cnp(&s);
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_CNP);

	cnp(&s);
	s.bth.becn = false;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_CNP);
	cnp(&s);
	s.bth.psn = 5;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_CNP);
	cnp(&s);
	s.payload_len = 20;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_CNP);
	cnp(&s);
	static const uint8_t junk[16] = { 1 };
	s.payload = junk;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_CNP);
	cnp(&s);
	s.bth.ack_req = true;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_ACKREQ_RESPONSE);
}
END_TEST

/* wire-facts.md vector 2: a CNP captured on a ConnectX-4 Lx. Conformant except its UDP source port 0. */
START_TEST(published_connectx_cnp)
{
	/* The segments as wire-facts.md lists them: Ethernet, IPv4, UDP, BTH, 16 reserved bytes, ICRC. */
	static const char hex[] = "e41d2dab2bc2" "7cfe90643b32" "0800"
				  "45c2003c718c400040119161" "0a001101" "0a001201"
				  "000012b700280000"
				  "8100ffff4000011800000000"
				  "00000000000000000000000000000000"
				  "82fd002a";
	c.len = strlen(hex) / 2;
	for (size_t i = 0; i < c.len; i++)
		sscanf(hex + 2 * i, "%2hhx", &c.frame[i]);
	parse_and_check(&c, 0);
	ck_assert_uint_eq(c.v.total.checked[RT_RULE_PKT_CNP], 1);
	ck_assert_uint_eq(c.v.total.checked[RT_RULE_PKT_ICRC], 1);
	ASSERT_ONLY(c, RT_RULE_PKT_UDP_SPORT);
}
END_TEST

START_TEST(ud_deth_reserved)
{
	struct rt_build_spec s;
	opcode_packet(&s, 0x65, 12);	/* UD SEND Only with Immediate */
	build_and_check(&c, &s, 0);
	ASSERT_CLEAN(c, RT_RULE_PKT_UD_DETH);
	s.ext.deth.reserved = 1;
	build_and_check(&c, &s, 0);
	ASSERT_ONLY(c, RT_RULE_PKT_UD_DETH);
}
END_TEST

/*
 * A header the snap length cut is unknown: the rule reading it is not
 * evaluated, even when the header would break it, and nothing else changes.
 */
START_TEST(cut_headers_are_not_evaluated)
{
	static const struct {
		uint8_t opcode;
		enum rt_rule rule;
		unsigned header_end;	/* bytes up to the end of the header, after the BTH */
	} cases[] = {
		{ 0x0C, RT_RULE_PKT_RETH_DMALEN, 16 },	/* READ request: RETH */
		{ 0x13, RT_RULE_PKT_ATOMIC_ALIGN, 28 },	/* Compare&Swap: AtomicETH */
		{ 0x11, RT_RULE_PKT_AETH_SYNDROME, 4 },	/* Acknowledge: AETH */
		{ 0x0D, RT_RULE_PKT_AETH_SYNDROME, 4 },	/* READ Response First: AETH */
		{ 0x64, RT_RULE_PKT_UD_DETH, 8 },	/* UD SEND Only: DETH */
	};
	enum { BTH_END = 14 + 20 + 8 + 12 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt_build_spec s;
		const struct rt_opcode_info *op = rt_opcode_info(cases[i].opcode);
		opcode_packet(&s, cases[i].opcode, op->payload ? 8 : 0);
		/* Each header broken, so that reading a cut one would show. */
		s.ext.reth.dma_len = 0x80000001u;
		s.ext.atomic.va = 0x1001;
		s.ext.aeth.syndrome = 0x40;	/* the reserved type 10b */
		s.ext.deth.reserved = 7;
		build_and_check(&c, &s, 0);
		ck_assert_msg(c.v.total.violations[cases[i].rule] == 1, "opcode 0x%02x whole", cases[i].opcode);
		for (unsigned cut = BTH_END; cut < BTH_END + cases[i].header_end; cut += 3) {
			ck_assert_int_eq(rt_parse(&c.p, RT_LINK_ETHERNET, c.frame, cut, (uint32_t)c.len), RT_PARSE_ROCE);
			rt_verdicts_init(&c.v);
			rt_check_packet(&c.p, 1, 0, &c.v);
			ck_assert_msg(total_violations(&c.v) == 0, "opcode 0x%02x cut at %u: %llu violations",
				      cases[i].opcode, cut, (unsigned long long)total_violations(&c.v));
			ck_assert_uint_eq(c.v.total.not_evaluated[cases[i].rule], 1);
			ck_assert_uint_eq(c.v.total.checked[cases[i].rule], 0);
		}
		/* Cut after the header: it is judged (and broken). */
		ck_assert_int_eq(rt_parse(&c.p, RT_LINK_ETHERNET, c.frame, BTH_END + cases[i].header_end,
					  (uint32_t)c.len), RT_PARSE_ROCE);
		rt_verdicts_init(&c.v);
		rt_check_packet(&c.p, 1, 0, &c.v);
		ck_assert_uint_eq(c.v.total.violations[cases[i].rule], 1);
		ck_assert_uint_eq(c.v.total.not_evaluated[cases[i].rule], 0);
	}
}
END_TEST

START_TEST(malformed_maps_to_rule)
{
	struct rt_build_spec s;
	send_only(&s, 8);
	c.len = rt_build(&s, c.frame, sizeof c.frame);
	struct rt_packet p;
	rt_parse(&p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len, (uint32_t)c.len);
	rt_put_be16(c.frame + p.udp_off + 4, 300);	/* UDP length beyond the IP payload */
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len, (uint32_t)c.len), RT_PARSE_MALFORMED);
	ck_assert_int_eq(rt_malformed_rule(&p), RT_RULE_PKT_UDP_LENGTH);
	c.frame[14] = 0x44;	/* IHL 4 */
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, c.frame, (uint32_t)c.len, (uint32_t)c.len), RT_PARSE_MALFORMED);
	ck_assert_int_eq(rt_malformed_rule(&p), RT_RULE_PKT_IP_HEADER);
}
END_TEST

static void count_errors(void *ctx, const struct rt_violation *v)
{
	if (v->severity == RT_SEV_ERROR) {
		++*(uint64_t *)ctx;
		fprintf(stderr, "unexpected: frame %llu %s: %s\n", (unsigned long long)v->frame,
			rt_rule_info(v->rule)->id, v->message);
	}
}

/* The shared captures are real, conformant traffic: PKT rules find no error in them. */
START_TEST(real_captures_have_no_pkt_errors)
{
	glob_t g;
	ck_assert_int_eq(glob("../shared/captures/*/*.pcap", 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 20);
	uint64_t errors = 0, icrc_checked = 0, roce_complete = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct rt_error err;
		struct rt_capture *cap = rt_capture_open(g.gl_pathv[i], &err);
		ck_assert_msg(cap != NULL, "%s", err.msg);
		struct rt_verdicts v;
		rt_verdicts_init(&v);
		v.on_violation = count_errors;
		v.ctx = &errors;
		struct rt_frame fr;
		struct rt_packet p;
		while (rt_capture_next(cap, &fr, &err) == 1) {
			rt_parse(&p, rt_capture_link(cap), fr.data, fr.caplen, fr.wirelen);
			roce_complete += p.status == RT_PARSE_ROCE && !p.truncated;
			rt_check_packet(&p, fr.number, 0, &v);
		}
		icrc_checked += v.total.checked[RT_RULE_PKT_ICRC];
		rt_capture_close(cap);
	}
	globfree(&g);
	ck_assert_uint_eq(errors, 0);
	/* Every complete RoCE packet had its ICRC checked, and there were plenty. */
	ck_assert_uint_eq(icrc_checked, roce_complete);
	ck_assert_uint_ge(roce_complete, 1000);
}
END_TEST

START_TEST(catalogue_lookup)
{
	ck_assert_int_eq(rt_rule_find("PKT-ICRC"), RT_RULE_PKT_ICRC);
	ck_assert_int_eq(rt_rule_find("REQ-ACKREQ"), RT_RULE_REQ_ACKREQ);
	ck_assert_int_eq(rt_rule_find("NO-SUCH-RULE"), -1);
	ck_assert_str_eq(rt_rule_group(RT_RULE_SEQ_MSN), "SEQ");
	ck_assert_str_eq(rt_rule_group(RT_RULE_CM_FRAME), "CM");
	ck_assert_int_eq(rt_rule_info(RT_RULE_PKT_RESERVED)->severity, RT_SEV_WARNING);
	ck_assert_str_eq(rt_rule_info(RT_RULE_REQ_TIMEOUT)->needs, "timeout");
	/* Every ID is unique. */
	for (int a = 0; a < RT_RULE_COUNT; a++)
		ck_assert_int_eq(rt_rule_find(rt_rule_info(a)->id), a);
	/* A disabled rule is neither counted nor reported. */
	struct rt_verdicts v;
	rt_verdicts_init(&v);
	v.enabled[RT_RULE_PKT_TVER] = false;
	rt_verdict_fail(&v, RT_RULE_PKT_TVER, RT_SEV_ERROR, 1, "x");
	ck_assert_uint_eq(v.total.violations[RT_RULE_PKT_TVER], 0);
	ck_assert_uint_eq(v.total.checked[RT_RULE_PKT_TVER], 0);
}
END_TEST

Suite *check_packet_suite(void)
{
	Suite *s = suite_create("check_packet");
	TCase *t = tcase_create("pkt_rules");
	tcase_add_test(t, clean_send_only);
	tcase_add_test(t, ip_df_and_header);
	tcase_add_test(t, udp_length_beyond_ip_payload);
	tcase_add_test(t, udp_checksum);
	tcase_add_test(t, udp_source_port);
	tcase_add_test(t, icrc_bad_and_truncated);
	tcase_add_test(t, tver_and_pkey);
	tcase_add_test(t, opcode_undefined_and_unsupported);
	tcase_add_test(t, opcode_severity);
	tcase_add_test(t, pad_rules);
	tcase_add_test(t, first_middle_length);
	tcase_add_test(t, last_and_only_length);
	tcase_add_test(t, no_payload_opcodes);
	tcase_add_test(t, reth_dma_length_and_atomic_alignment);
	tcase_add_test(t, aeth_syndrome);
	tcase_add_test(t, dest_qp);
	tcase_add_test(t, reserved_bits);
	tcase_add_test(t, ackreq_on_responses);
	tcase_add_test(t, cnp_rules);
	tcase_add_test(t, published_connectx_cnp);
	tcase_add_test(t, ud_deth_reserved);
	tcase_add_test(t, cut_headers_are_not_evaluated);
	tcase_add_test(t, malformed_maps_to_rule);
	tcase_add_test(t, catalogue_lookup);
	suite_add_tcase(s, t);
	TCase *real = tcase_create("real_captures");
	tcase_set_timeout(real, 60);
	tcase_add_test(real, real_captures_have_no_pkt_errors);
	suite_add_tcase(s, real);
	return s;
}
