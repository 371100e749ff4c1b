/* SPDX-License-Identifier: MIT */
/*
 * The parser: every link type, VLAN tags, IPv4/IPv6/RoCE v1, every opcode's
 * fields through rt_build -> rt_parse, trailers, non-RoCE and malformed
 * frames, and truncation at every length (on exact-size heap copies, so a
 * sanitizer build catches any read past the captured bytes).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/icrc.h"
#include "suites.h"
#include "test_util.h"

enum { ETH = 14, IPV4 = 20, IPV6 = 40, UDP = 8, BTH = 12 };

static enum rt_parse_status parse_all(struct rt_packet *p, enum rt_link link, const uint8_t *f, size_t len)
{
	return rt_parse(p, link, f, (uint32_t)len, (uint32_t)len);
}

/* ---- link types ---- */

START_TEST(every_link_type)
{
	static const struct {
		enum rt_link link;
		uint8_t ip_version;
	} cases[] = {
		{ RT_LINK_ETHERNET, 4 },  { RT_LINK_ETHERNET, 6 }, { RT_LINK_LINUX_SLL, 4 }, { RT_LINK_LINUX_SLL, 6 },
		{ RT_LINK_LINUX_SLL2, 4 }, { RT_LINK_LINUX_SLL2, 6 }, { RT_LINK_RAW_IP, 4 }, { RT_LINK_RAW_IP, 6 },
		{ RT_LINK_IPV4, 4 },      { RT_LINK_IPV6, 6 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt_build_spec s;
		uint8_t eth[TEST_FRAME_MAX], frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x0A, 7, 0);	/* RDMA WRITE Only: RETH and a padded payload */
		s.ip_version = cases[i].ip_version;
		size_t eth_len = build_frame(&s, eth, sizeof eth);
		size_t len = reframe(eth, eth_len, cases[i].link, frame, sizeof frame);
		unsigned hdr = link_header_bytes(cases[i].link);
		ck_assert_uint_eq(len, eth_len - ETH + hdr);

		struct rt_packet p;
		ck_assert_msg(parse_all(&p, cases[i].link, frame, len) == RT_PARSE_ROCE, "%s IPv%u: %s (%s)",
			      rt_link_name(cases[i].link), cases[i].ip_version, p.reason, p.detail);
		ck_assert_uint_eq(p.l3_off, hdr);
		ck_assert_uint_eq(p.ip_version, cases[i].ip_version);
		ck_assert_uint_eq(p.roce_version, 2);
		ck_assert_uint_eq(p.vlan_count, 0);
		ck_assert_uint_eq(p.bth.psn, s.bth.psn);
		ck_assert_uint_eq(p.ext.reth.va, s.ext.reth.va);
		ck_assert_uint_eq(p.payload_len, 7);
		ck_assert_uint_eq(p.roce_end, len);
		ck_assert_mem_eq(p.src_ip, s.src_ip, cases[i].ip_version == 4 ? 4 : 16);
		ck_assert_msg(rt_icrc_check(&p) == RT_ICRC_OK, "%s IPv%u: ICRC %s", rt_link_name(cases[i].link),
			      cases[i].ip_version, rt_icrc_status_name(rt_icrc_check(&p)));
	}
}
END_TEST

START_TEST(raw_link_with_a_bad_version_nibble)
{
	struct rt_build_spec s;
	uint8_t eth[TEST_FRAME_MAX], frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x04, 4, 0);
	size_t len = reframe(eth, build_frame(&s, eth, sizeof eth), RT_LINK_RAW_IP, frame, sizeof frame);
	frame[0] = 0x55;	/* version 5 */
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_RAW_IP, frame, len), RT_PARSE_MALFORMED);
	ck_assert_str_eq(p.field, "IP version");
}
END_TEST

/* ---- VLAN tags ---- */

START_TEST(vlan_tags)
{
	static const struct {
		uint8_t count;
		uint16_t tpid[2];	/* as the spec gives them (0: the builder's default) */
		uint16_t want_tpid[2];
	} cases[] = {
		{ 0, { 0, 0 }, { 0, 0 } },
		{ 1, { 0, 0 }, { 0x8100, 0 } },
		{ 1, { 0x88A8, 0 }, { 0x88A8, 0 } },
		{ 2, { 0, 0 }, { 0x88A8, 0x8100 } },	/* 802.1ad outer, 802.1Q inner */
		{ 2, { 0x8100, 0x8100 }, { 0x8100, 0x8100 } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (uint8_t ipv = 4; ipv <= 6; ipv += 2) {
			struct rt_build_spec s;
			uint8_t frame[TEST_FRAME_MAX];
			spec_with_fields(&s, 0x11, 0, 1);
			s.ip_version = ipv;
			s.vlan_count = cases[i].count;
			s.vlan_tpid[0] = cases[i].tpid[0];
			s.vlan_tpid[1] = cases[i].tpid[1];
			s.vlan_tci[0] = 0x2064;		/* PCP 1, VID 100 */
			s.vlan_tci[1] = 0xE00A;		/* PCP 7, VID 10 */
			size_t len = build_frame(&s, frame, sizeof frame);
			struct rt_packet p;
			ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, len), RT_PARSE_ROCE);
			ck_assert_uint_eq(p.vlan_count, cases[i].count);
			ck_assert_uint_eq(p.l3_off, ETH + 4u * cases[i].count);
			ck_assert_uint_eq(p.ethertype, ipv == 4 ? 0x0800 : 0x86DD);
			for (unsigned t = 0; t < cases[i].count; t++) {
				ck_assert_uint_eq(p.vlan_tpid[t], cases[i].want_tpid[t]);
				ck_assert_uint_eq(rt_get_be16(frame + 12 + 4 * t), cases[i].want_tpid[t]);
				ck_assert_uint_eq(p.vlan_tci[t], s.vlan_tci[t]);
			}
			ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
		}
}
END_TEST

START_TEST(third_vlan_tag_is_not_roce)
{
	struct rt_build_spec s;
	uint8_t two[TEST_FRAME_MAX], three[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x04, 8, 0);
	s.vlan_count = 2;
	size_t len = build_frame(&s, two, sizeof two);
	/* Insert a third 802.1Q tag just before the Ethertype (at 12 + 2 * 4). */
	memcpy(three, two, 20);
	memcpy(three + 20, "\x81\x00\x00\x07", 4);
	memcpy(three + 24, two + 20, len - 20);
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, three, len + 4), RT_PARSE_NOT_ROCE);
	ck_assert_ptr_nonnull(p.reason);
	ck_assert_msg(strstr(p.reason, "VLAN") != NULL, "reason \"%s\" should name the VLAN tags", p.reason);
}
END_TEST

/* ---- network layers ---- */

START_TEST(ipv6_fields)
{
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x05, 3, 0);
	s.ip_version = 6;
	static const uint8_t src[16] = { 0xfe, 0x80, [14] = 0x12, [15] = 0x34 };
	static const uint8_t dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
	memcpy(s.src_ip, src, 16);
	memcpy(s.dst_ip, dst, 16);
	s.tos = 0xB8;
	s.flow_label = 0xABCDE;
	s.ttl = 7;
	size_t len = build_frame(&s, frame, sizeof frame);
	/* Version 6 and the traffic class straddling bytes 0-1, as RFC 8200 lays them out. */
	ck_assert_uint_eq(frame[ETH], 0x6B);
	ck_assert_uint_eq(frame[ETH + 1], 0x8A);
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, len), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.ip_version, 6);
	ck_assert_uint_eq(p.l3_hdr_len, IPV6);
	ck_assert_uint_eq(p.tos, 0xB8);
	ck_assert_uint_eq(p.flow_label, 0xABCDE);
	ck_assert_uint_eq(p.ttl, 7);
	ck_assert_uint_eq(p.ip_proto, 17);
	ck_assert_uint_eq(p.ip_total_len, len - ETH);
	ck_assert_mem_eq(p.src_ip, src, 16);
	ck_assert_mem_eq(p.dst_ip, dst, 16);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
	char text[64];
	rt_packet_format_ip(&p, true, text, sizeof text);
	ck_assert_str_eq(text, "fe80::1234");
	rt_packet_format_ip(&p, false, text, sizeof text);
	ck_assert_str_eq(text, "2001:db8::1");
}
END_TEST

START_TEST(ipv4_fields)
{
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x04, 1, 0);
	s.tos = 0x68;
	s.ttl = 9;
	s.ip_id = 0xBEEF;
	s.ip_df = false;
	size_t len = build_frame(&s, frame, sizeof frame);
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, len), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.ip_version, 4);
	ck_assert_uint_eq(p.l3_hdr_len, IPV4);
	ck_assert_uint_eq(p.tos, 0x68);
	ck_assert_uint_eq(p.ttl, 9);
	ck_assert_uint_eq(p.ip_id, 0xBEEF);
	ck_assert(!p.ip_df);
	ck_assert_uint_eq(p.ip_total_len, len - ETH);
	ck_assert_uint_eq(p.udp_len, len - ETH - IPV4);
	ck_assert_uint_eq(p.udp_dport, 4791);
	char text[64];
	rt_packet_format_ip(&p, true, text, sizeof text);
	ck_assert_str_eq(text, "10.0.0.1");
	rt_packet_format_ip(&p, false, text, sizeof text);
	ck_assert_str_eq(text, "10.0.0.2");
}
END_TEST

START_TEST(roce_v1_grh)
{
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x0B, 6, 1);
	s.roce_version = 1;
	s.tos = 0x21;
	s.flow_label = 0x12345;
	size_t len = build_frame(&s, frame, sizeof frame);
	ck_assert_uint_eq(rt_get_be16(frame + 12), 0x8915);
	ck_assert_uint_eq(frame[ETH + 6], 0x1B);	/* GRH next header: BTH */
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, len), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.roce_version, 1);
	ck_assert_uint_eq(p.ethertype, 0x8915);
	ck_assert_uint_eq(p.ip_version, 6);
	ck_assert_uint_eq(p.bth_off, ETH + IPV6);	/* no UDP header */
	ck_assert_uint_eq(p.flow_label, 0x12345);
	ck_assert_uint_eq(p.tos, 0x21);
	ck_assert_uint_eq(p.ext.reth.rkey, s.ext.reth.rkey);
	ck_assert_uint_eq(p.ext.imm, s.ext.imm);
	ck_assert_uint_eq(p.payload_len, 6);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
}
END_TEST

/* ---- every opcode through build and parse ---- */

static void expect_fields(const struct rt_build_spec *s, const struct rt_packet *p, size_t len,
			  const struct fact_opcode *fact)
{
	uint8_t op = s->bth.opcode;
	unsigned pad = (0u - s->payload_len) & 3u;	/* wire-facts: PadCnt = (-payload) & 3 */
	ck_assert_msg(p->status == RT_PARSE_ROCE, "opcode 0x%02x payload %u: %s", op, s->payload_len, p->detail);
	ck_assert_ptr_eq(p->op, rt_opcode_info(op));
	ck_assert_uint_eq(p->ext_present, fact->ext);
	ck_assert(p->ext_complete);

	const struct rt_bth *b = &p->bth;
	ck_assert_uint_eq(b->opcode, op);
	ck_assert_int_eq(b->se, s->bth.se);
	ck_assert_int_eq(b->migreq, s->bth.migreq);
	ck_assert_uint_eq(b->pad, pad);
	ck_assert_uint_eq(b->tver, 0);
	ck_assert_uint_eq(b->pkey, s->bth.pkey);
	ck_assert_int_eq(b->fecn, s->bth.fecn);
	ck_assert_int_eq(b->becn, s->bth.becn);
	ck_assert_uint_eq(b->resv6, s->bth.resv6);
	ck_assert_uint_eq(b->dest_qp, s->bth.dest_qp);
	ck_assert_int_eq(b->ack_req, s->bth.ack_req);
	ck_assert_uint_eq(b->resv7, s->bth.resv7);
	ck_assert_uint_eq(b->psn, s->bth.psn);

	const struct rt_ext *want = &s->ext, *got = &p->ext;
	if (fact->ext & RT_EXT_DETH) {
		ck_assert_uint_eq(got->deth.qkey, want->deth.qkey);
		ck_assert_uint_eq(got->deth.reserved, want->deth.reserved);
		ck_assert_uint_eq(got->deth.src_qp, want->deth.src_qp);
	}
	if (fact->ext & RT_EXT_RETH) {
		ck_assert_uint_eq(got->reth.va, want->reth.va);
		ck_assert_uint_eq(got->reth.rkey, want->reth.rkey);
		ck_assert_uint_eq(got->reth.dma_len, want->reth.dma_len);
	}
	if (fact->ext & RT_EXT_ATOMICETH) {
		ck_assert_uint_eq(got->atomic.va, want->atomic.va);
		ck_assert_uint_eq(got->atomic.rkey, want->atomic.rkey);
		ck_assert_uint_eq(got->atomic.swap_add, want->atomic.swap_add);
		ck_assert_uint_eq(got->atomic.compare, want->atomic.compare);
	}
	if (fact->ext & RT_EXT_AETH) {
		ck_assert_uint_eq(got->aeth.syndrome, want->aeth.syndrome);
		ck_assert_uint_eq(got->aeth.msn, want->aeth.msn);
	}
	if (fact->ext & RT_EXT_ATOMICACKETH)
		ck_assert_uint_eq(got->atomic_ack_orig, want->atomic_ack_orig);
	if (fact->ext & RT_EXT_IMMDT)
		ck_assert_uint_eq(got->imm, want->imm);
	if (fact->ext & RT_EXT_IETH)
		ck_assert_uint_eq(got->ieth_rkey, want->ieth_rkey);
	/* Headers the opcode does not carry stay untouched (zero). */
	if (!(fact->ext & RT_EXT_RETH))
		ck_assert_uint_eq(got->reth.va, 0);
	if (!(fact->ext & RT_EXT_IMMDT))
		ck_assert_uint_eq(got->imm, 0);
	if (!(fact->ext & RT_EXT_AETH))
		ck_assert_uint_eq(got->aeth.msn, 0);

	ck_assert_uint_eq(p->payload_off, p->bth_off + BTH + fact->ext_bytes);
	ck_assert_uint_eq(p->payload_len, s->payload_len);
	ck_assert_uint_eq(p->data_len, s->payload_len + pad);
	for (uint32_t i = 0; i < s->payload_len; i++)
		ck_assert_uint_eq(p->frame[p->payload_off + i], payload_pattern(i));
	for (unsigned i = 0; i < pad; i++)
		ck_assert_uint_eq(p->frame[p->payload_off + s->payload_len + i], 0);
	ck_assert_uint_eq(p->icrc_off, len - FACT_ICRC_BYTES);
	ck_assert_uint_eq(p->roce_end, len);
	ck_assert(!p->truncated);
	ck_assert_int_eq(rt_icrc_check(p), RT_ICRC_OK);
}

START_TEST(opcode_round_trip)
{
	const struct fact_opcode *fact = &fact_opcodes[_i];
	/* Payload lengths 0..9 cover every PadCnt twice; opcodes without a payload carry none. */
	uint32_t max_payload = fact->payload ? 9 : 0;
	for (uint8_t ipv = 4; ipv <= 6; ipv += 2)
		for (int variant = 0; variant < 2; variant++)
			for (uint32_t n = 0; n <= max_payload; n++) {
				struct rt_build_spec s;
				uint8_t frame[TEST_FRAME_MAX];
				spec_with_fields(&s, fact->opcode, n, variant);
				s.ip_version = ipv;
				size_t len = build_frame(&s, frame, sizeof frame);
				struct rt_packet p;
				parse_all(&p, RT_LINK_ETHERNET, frame, len);
				expect_fields(&s, &p, len, fact);
				ck_assert_uint_eq(p.udp_sport, s.udp_sport);
				ck_assert_mem_eq(p.dst_ip, s.dst_ip, ipv == 4 ? 4 : 16);
			}
}
END_TEST

/* ---- bytes after the RoCE packet ---- */

START_TEST(trailer_is_not_taken_as_icrc)
{
	for (uint8_t ipv = 4; ipv <= 6; ipv += 2) {
		struct rt_build_spec s;
		uint8_t frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x0A, 10, 0);
		s.ip_version = ipv;
		size_t len = build_frame(&s, frame, sizeof frame);
		memcpy(frame + len, "\xde\xad\xbe\xef", 4);	/* a captured FCS, or junk */
		struct rt_packet p;
		ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, len + 4), RT_PARSE_ROCE);
		ck_assert_uint_eq(p.roce_end, len);
		ck_assert_uint_eq(p.icrc_off, len - 4);
		ck_assert_uint_eq(p.payload_len, 10);
		ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
	}

	/* A 58-byte SEND Only without payload, padded to the 60-byte Ethernet minimum, plus an FCS. */
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX] = { 0 };
	spec_with_fields(&s, 0x04, 0, 0);
	size_t len = build_frame(&s, frame, sizeof frame);
	ck_assert_uint_eq(len, 58);
	memcpy(frame + 60, "\x01\x02\x03\x04", 4);
	struct rt_packet p;
	ck_assert_int_eq(parse_all(&p, RT_LINK_ETHERNET, frame, 64), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.roce_end, 58);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
}
END_TEST

/* ---- not RoCE ---- */

static void expect_not_roce(enum rt_link link, const uint8_t *frame, size_t len, const char *what)
{
	struct rt_packet p;
	enum rt_parse_status st = parse_all(&p, link, frame, len);
	ck_assert_msg(st == RT_PARSE_NOT_ROCE, "%s: status %d (%s)", what, st, p.detail);
	ck_assert_msg(p.reason != NULL && p.reason[0] != '\0', "%s: no reason given", what);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_UNVERIFIED);
}

START_TEST(non_roce_frames)
{
	uint8_t frame[TEST_FRAME_MAX];
	struct rt_build_spec s;

	/* ARP request: Ethertype 0x0806 and its 28-byte body. */
	size_t n = hex_to_bytes("ffffffffffff 020000000001 0806 0001 0800 06 04 0001 020000000001 0a000001"
				"000000000000 0a000002", frame, sizeof frame);
	expect_not_roce(RT_LINK_ETHERNET, frame, n, "ARP");

	spec_with_fields(&s, 0x04, 16, 0);
	size_t len = build_frame(&s, frame, sizeof frame);
	frame[ETH + 9] = 6;	/* IPv4 protocol TCP */
	expect_not_roce(RT_LINK_ETHERNET, frame, len, "TCP over IPv4");

	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + ETH + IPV4 + 2, 53);	/* UDP to DNS */
	expect_not_roce(RT_LINK_ETHERNET, frame, len, "UDP to port 53");

	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + 12, 0x88CC);	/* LLDP */
	expect_not_roce(RT_LINK_ETHERNET, frame, len, "unknown Ethertype");

	/* The same in Linux cooked captures (the protocol field), and over IPv6. */
	uint8_t sll[TEST_FRAME_MAX];
	len = build_frame(&s, frame, sizeof frame);
	size_t sll_len = reframe(frame, len, RT_LINK_LINUX_SLL, sll, sizeof sll);
	rt_put_be16(sll + 14, 0x88CC);
	expect_not_roce(RT_LINK_LINUX_SLL, sll, sll_len, "unknown protocol in SLL");

	s.ip_version = 6;
	len = build_frame(&s, frame, sizeof frame);
	frame[ETH + 6] = 6;	/* IPv6 next header TCP */
	expect_not_roce(RT_LINK_ETHERNET, frame, len, "TCP over IPv6");
	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + ETH + IPV6 + 2, 4792);
	expect_not_roce(RT_LINK_ETHERNET, frame, len, "UDP to port 4792 over IPv6");
}
END_TEST

/* ---- malformed ---- */

static void expect_malformed(const uint8_t *frame, size_t len, const char *field, const char *what)
{
	struct rt_packet p;
	enum rt_parse_status st = parse_all(&p, RT_LINK_ETHERNET, frame, len);
	ck_assert_msg(st == RT_PARSE_MALFORMED, "%s: status %d, want MALFORMED (%s)", what, st, p.detail);
	ck_assert_msg(p.field != NULL && strcmp(p.field, field) == 0, "%s: field \"%s\", want \"%s\"", what,
		      p.field ? p.field : "(null)", field);
	ck_assert_msg(p.detail[0] != '\0', "%s: no detail", what);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_UNVERIFIED);
}

START_TEST(malformed_frames)
{
	uint8_t frame[TEST_FRAME_MAX];
	struct rt_build_spec s;
	spec_with_fields(&s, 0x04, 16, 0);
	const unsigned udp = ETH + IPV4;

	size_t len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + udp + 4, (uint16_t)(rt_get_be16(frame + udp + 4) + 4));
	expect_malformed(frame, len, "UDP length", "UDP length beyond the IP payload");

	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + udp + 4, 20);
	expect_malformed(frame, len, "UDP length", "UDP length 20 (< UDP + BTH + ICRC)");

	len = build_frame(&s, frame, sizeof frame);
	frame[ETH] = 0x44;
	expect_malformed(frame, len, "IPv4 IHL", "IPv4 IHL 4");

	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + ETH + 2, (uint16_t)(len - ETH + 1));
	expect_malformed(frame, len, "IPv4 total length", "IPv4 total length one byte beyond the frame");

	/* A SEND Only with no payload relabelled RDMA WRITE Only: no room for RETH + ICRC. */
	spec_with_fields(&s, 0x04, 0, 0);
	len = build_frame(&s, frame, sizeof frame);
	frame[udp + UDP] = 0x0A;
	expect_malformed(frame, len, "UDP length", "RETH opcode in a 24-byte UDP datagram");

	/* A 28-byte Compare&Swap header cannot fit in a READ request's 16 + 4 either. */
	spec_with_fields(&s, 0x0C, 0, 0);
	len = build_frame(&s, frame, sizeof frame);
	frame[udp + UDP] = 0x13;
	expect_malformed(frame, len, "UDP length", "AtomicETH opcode in a RETH-sized datagram");

	spec_with_fields(&s, 0x04, 8, 0);
	s.roce_version = 1;
	len = build_frame(&s, frame, sizeof frame);
	frame[ETH + 6] = 0x11;
	expect_malformed(frame, len, "GRH next header", "GRH next header UDP");

	s.roce_version = 2;
	s.ip_version = 6;
	len = build_frame(&s, frame, sizeof frame);
	rt_put_be16(frame + ETH + 4, (uint16_t)(len - ETH - IPV6 + 2));
	expect_malformed(frame, len, "IPv6 payload length", "IPv6 payload length beyond the frame");
}
END_TEST

/* ---- truncation ---- */

/*
 * Parses every prefix of the frame (caplen 0..len, wirelen len) from an
 * exact-size heap copy. A cut frame is truncated, never malformed, and its
 * ICRC is judged only when every byte of it was captured.
 */
static void check_every_caplen(enum rt_link link, const uint8_t *frame, size_t len, const char *what)
{
	struct rt_packet full;
	ck_assert_int_eq(parse_all(&full, link, frame, len), RT_PARSE_ROCE);
	ck_assert_int_eq(rt_icrc_check(&full), RT_ICRC_OK);
	for (size_t caplen = 0; caplen <= len; caplen++) {
		uint8_t *copy = malloc(caplen);
		ck_assert(caplen == 0 || copy != NULL);
		if (caplen)
			memcpy(copy, frame, caplen);
		struct rt_packet p;
		enum rt_parse_status st = rt_parse(&p, link, copy, (uint32_t)caplen, (uint32_t)len);
		enum rt_icrc_status icrc = rt_icrc_check(&p);
		const struct rt_packet copy_of_p = p;
		free(copy);
		if (caplen == len) {
			ck_assert_msg(st == RT_PARSE_ROCE && !copy_of_p.truncated && icrc == RT_ICRC_OK,
				      "%s: whole frame: status %d ICRC %s", what, st, rt_icrc_status_name(icrc));
			continue;
		}
		if (st == RT_PARSE_TRUNCATED) {
			if (copy_of_p.field == NULL)
				ck_abort_msg("%s caplen %zu: truncated without naming the field", what, caplen);
		} else if (st == RT_PARSE_ROCE) {
			if (!copy_of_p.truncated)
				ck_abort_msg("%s caplen %zu of %zu: RoCE but not marked truncated", what, caplen, len);
			/* The BTH was read, and the headers are complete exactly when they were captured. */
			if (caplen < copy_of_p.bth_off + 12u)
				ck_abort_msg("%s caplen %zu: RoCE with the BTH cut", what, caplen);
			if (copy_of_p.ext_complete != (caplen >= copy_of_p.payload_off))
				ck_abort_msg("%s caplen %zu: ext_complete %d, headers end at %u", what, caplen,
					     copy_of_p.ext_complete, copy_of_p.payload_off);
			if ((copy_of_p.ext_present & ~full.ext_present) != 0)
				ck_abort_msg("%s caplen %zu: decoded headers the opcode does not carry", what, caplen);
		} else {
			ck_abort_msg("%s caplen %zu of %zu: status %d (%s: %s), want truncated", what, caplen, len, st,
				     copy_of_p.field ? copy_of_p.field : "-", copy_of_p.detail);
		}
		if (icrc != RT_ICRC_UNVERIFIED)
			ck_abort_msg("%s caplen %zu of %zu: ICRC %s on a cut frame", what, caplen, len,
				     rt_icrc_status_name(icrc));
	}
}

START_TEST(truncation_at_every_length)
{
	static const struct {
		uint8_t opcode, roce, ip, vlans;
		uint32_t payload;
		enum rt_link link;
	} cases[] = {
		{ 0x04, 2, 4, 0, 9, RT_LINK_ETHERNET },  { 0x0B, 2, 6, 0, 5, RT_LINK_ETHERNET },
		{ 0x11, 1, 6, 0, 0, RT_LINK_ETHERNET },  { 0x13, 2, 4, 2, 0, RT_LINK_ETHERNET },
		{ 0x65, 2, 6, 1, 3, RT_LINK_ETHERNET },  { 0x12, 2, 4, 0, 0, RT_LINK_LINUX_SLL },
		{ 0x0A, 2, 6, 0, 2, RT_LINK_LINUX_SLL2 }, { 0x10, 2, 4, 0, 7, RT_LINK_RAW_IP },
		{ 0x64, 2, 6, 0, 1, RT_LINK_RAW_IP },    { 0x81, 2, 4, 0, 16, RT_LINK_IPV4 },
		{ 0x17, 2, 6, 0, 4, RT_LINK_IPV6 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rt_build_spec s;
		uint8_t eth[TEST_FRAME_MAX], frame[TEST_FRAME_MAX];
		spec_with_fields(&s, cases[i].opcode, cases[i].payload, 0);
		s.roce_version = cases[i].roce;
		s.ip_version = cases[i].ip;
		s.vlan_count = cases[i].vlans;
		size_t len = build_frame(&s, eth, sizeof eth);
		if (cases[i].link != RT_LINK_ETHERNET)
			len = reframe(eth, len, cases[i].link, frame, sizeof frame);
		else
			memcpy(frame, eth, len);
		char what[64];
		snprintf(what, sizeof what, "%s opcode 0x%02x", rt_link_name(cases[i].link), cases[i].opcode);
		check_every_caplen(cases[i].link, frame, len, what);
	}
}
END_TEST

Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("layers");
	tcase_add_test(tc, every_link_type);
	tcase_add_test(tc, raw_link_with_a_bad_version_nibble);
	tcase_add_test(tc, vlan_tags);
	tcase_add_test(tc, third_vlan_tag_is_not_roce);
	tcase_add_test(tc, ipv4_fields);
	tcase_add_test(tc, ipv6_fields);
	tcase_add_test(tc, roce_v1_grh);
	suite_add_tcase(s, tc);

	tc = tcase_create("opcodes");
	tcase_add_loop_test(tc, opcode_round_trip, 0, (int)fact_opcode_count);
	suite_add_tcase(s, tc);

	tc = tcase_create("edges");
	tcase_set_timeout(tc, 60);	/* thousands of parses; slow under sanitizers at -O0 */
	tcase_add_test(tc, trailer_is_not_taken_as_icrc);
	tcase_add_test(tc, non_roce_frames);
	tcase_add_test(tc, malformed_frames);
	tcase_add_test(tc, truncation_at_every_length);
	suite_add_tcase(s, tc);
	return s;
}
