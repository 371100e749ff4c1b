/* SPDX-License-Identifier: MIT */
/*
 * The ICRC against the published vectors of wire-facts.md (scapy's UC SEND
 * ONLY, the ConnectX-4 Lx CNP), and against a bit-at-a-time CRC-32 written
 * here from the wire-facts.md text, which is itself first checked against
 * those vectors and the rxe seed.
 */
#include <check.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "suites.h"
#include "test_util.h"

/*
 * wire-facts.md vector 1, assembled by hand from its listed fields; only
 * the IP checksum, UDP checksum and ICRC are the published results.
 */
static const char SCAPY_UC_SEND_ONLY_HEX[] =
	"248a07a8fa22 248a07a8fa22 0800"		/* Ethernet, same MAC both ways */
	"45 01 0040 0478 4000 40 11 b4d5"		/* tos 0x01, len 64, id 1144, DF, ttl 64, UDP, checksum */
	"c0a80007 c0a80007"				/* 192.168.0.7 -> 192.168.0.7 */
	"c000 12b7 002c aca2"				/* 49152 -> 4791, len 44, checksum */
	"24 60 ffff 00 0000d3 00 cf1710"		/* UC SEND ONLY, M=1 PadCnt=2, DestQP 211, PSN 13571856 */
	"4630818be28935d90e9a95505401be885e500000"	/* payload as published: 18 bytes + 2 pad */
	"78f353f3";					/* ICRC on the wire */

/* wire-facts.md vector 2, the ConnectX-4 Lx CNP, verbatim. */
static const char CONNECTX_CNP_HEX[] =
	"e41d2dab2bc2 7cfe90643b32 0800 45c2003c718c400040119161 0a001101 0a001201"
	"000012b700280000 8100ffff4000011800000000 00000000000000000000000000000000 82fd002a";

enum { SCAPY_ICRC_OFF = 14 + 20 + 8 + 12 + 20, CNP_ICRC_OFF = 14 + 20 + 8 + 12 + 16 };

/* The scapy vector's fields in a build spec. Its 20-byte payload ends in the 2 pad bytes PadCnt 2 asks for. */
static void scapy_vector_spec(struct rt_build_spec *s, uint8_t *payload)
{
	size_t n = hex_to_bytes("4630818be28935d90e9a95505401be885e50", payload, 18);
	ck_assert_uint_eq(n, 18);
	rt_build_spec_init(s);
	static const uint8_t mac[6] = { 0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22 };
	memcpy(s->dst_mac, mac, 6);
	memcpy(s->src_mac, mac, 6);
	static const uint8_t ip[4] = { 192, 168, 0, 7 };
	memcpy(s->src_ip, ip, 4);
	memcpy(s->dst_ip, ip, 4);
	s->tos = 0x01;
	s->ip_id = 1144;
	s->ip_df = true;
	s->ttl = 64;
	s->udp_sport = 49152;
	s->udp_checksum = true;
	s->bth.opcode = 0x24;
	s->bth.migreq = true;
	s->bth.pkey = 0xffff;
	s->bth.dest_qp = 211;
	s->bth.psn = 13571856;
	s->payload = payload;
	s->payload_len = 18;	/* the builder adds (-18) & 3 = 2 zero pad bytes */
}

START_TEST(scapy_vector_built_from_its_fields)
{
	uint8_t payload[18], frame[TEST_FRAME_MAX], expected[128];
	struct rt_build_spec s;
	scapy_vector_spec(&s, payload);
	size_t expected_len = hex_to_bytes(SCAPY_UC_SEND_ONLY_HEX, expected, sizeof expected);
	ck_assert_uint_eq(expected_len, 14 + 64);

	size_t len = build_frame(&s, frame, sizeof frame);
	ck_assert_uint_eq(len, expected_len);
	/* The published results, byte by byte. */
	ck_assert_mem_eq(frame + SCAPY_ICRC_OFF, "\x78\xf3\x53\xf3", 4);
	ck_assert_uint_eq(rt_get_be16(frame + 14 + 10), 0xb4d5);
	ck_assert_uint_eq(rt_get_be16(frame + 14 + 20 + 6), 0xaca2);
	ck_assert_uint_eq(frame[14 + 20 + 8 + 1] >> 4 & 3, 2);	/* PadCnt */
	/* And every other byte as assembled from the fields. */
	for (size_t i = 0; i < len; i++)
		ck_assert_msg(frame[i] == expected[i], "byte %zu: built 0x%02x, vector 0x%02x", i, frame[i],
			      expected[i]);
}
END_TEST

START_TEST(scapy_vector_parses_and_verifies)
{
	uint8_t frame[128];
	size_t len = hex_to_bytes(SCAPY_UC_SEND_ONLY_HEX, frame, sizeof frame);
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
	ck_assert_uint_eq(rt_icrc_compute(&p), 0xF353F378);	/* 78 f3 53 f3, least significant byte first */
	ck_assert_uint_eq(p.icrc_off, SCAPY_ICRC_OFF);
	ck_assert_uint_eq(p.bth.pad, 2);
	ck_assert_uint_eq(p.payload_len, 18);
	ck_assert_uint_eq(p.bth.dest_qp, 211);
	ck_assert_uint_eq(p.bth.psn, 13571856);
	ck_assert_uint_eq(rt_udp_checksum(&p), 0xaca2);
	ck_assert_uint_eq(rt_ipv4_header_checksum(frame + 14, 20), 0xb4d5);
}
END_TEST

START_TEST(connectx_cnp_vector)
{
	uint8_t frame[128];
	size_t len = hex_to_bytes(CONNECTX_CNP_HEX, frame, sizeof frame);
	ck_assert_uint_eq(len, CNP_ICRC_OFF + 4);
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
	ck_assert_uint_eq(p.icrc_off, CNP_ICRC_OFF);
	ck_assert_mem_eq(frame + p.icrc_off, "\x82\xfd\x00\x2a", 4);
	ck_assert_uint_eq(rt_icrc_compute(&p), 0x2A00FD82);
	ck_assert_uint_eq(p.icrc_wire, 0x2A00FD82);
	/* What the vector says about this NIC: port 0, TOS 0xc2, BECN, DestQP 0x118, UDP length 40. */
	ck_assert_uint_eq(p.bth.opcode, RT_OPCODE_CNP);
	ck_assert_ptr_nonnull(p.op);
	ck_assert_uint_eq(p.op->family, RT_FAMILY_CNP);
	ck_assert(p.bth.becn);
	ck_assert(!p.bth.fecn);
	ck_assert_uint_eq(p.bth.dest_qp, 0x118);
	ck_assert_uint_eq(p.udp_sport, 0);
	ck_assert_uint_eq(p.tos, 0xc2);
	ck_assert_uint_eq(p.udp_len, 40);
	ck_assert_uint_eq(rt_ipv4_header_checksum(frame + 14, 20), 0x9161);
}
END_TEST

START_TEST(icrc_store_is_least_significant_byte_first)
{
	uint8_t b[6] = { 0 };
	rt_icrc_store(b, 1, 0x2A00FD82);
	ck_assert_mem_eq(b, "\x00\x82\xfd\x00\x2a\x00", 6);
}
END_TEST

/* wire-facts.md: "ECN marking by switches does not [break the ICRC]"; addresses and ports do. */
START_TEST(masked_fields_of_the_cnp_vector)
{
	uint8_t frame[128];
	size_t len = hex_to_bytes(CONNECTX_CNP_HEX, frame, sizeof frame);
	static const struct {
		unsigned off;
		uint8_t xor_mask;
		bool still_ok;
		const char *what;
	} edits[] = {
		{ 14 + 1, 0x03, true, "IPv4 ECN bits" },
		{ 14 + 1, 0xFC, true, "IPv4 DSCP" },
		{ 14 + 8, 0x3F, true, "TTL" },
		{ 14 + 10, 0xFF, true, "IPv4 header checksum" },
		{ 14 + 20 + 6, 0x12, true, "UDP checksum" },
		{ 14 + 20 + 8 + 4, 0xC0, true, "BTH FECN/BECN" },
		{ 14 + 15, 0x01, false, "source address" },
		{ 14 + 19, 0x80, false, "destination address" },
		{ 14 + 20 + 1, 0x01, false, "UDP source port" },
		{ 14 + 20 + 8 + 7, 0x01, false, "DestQP" },
		{ 14 + 20 + 8 + 12 + 3, 0x01, false, "reserved CNP bytes" },
	};
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		frame[edits[i].off] ^= edits[i].xor_mask;
		struct rt_packet p;
		ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
		ck_assert_msg(rt_icrc_check(&p) == (edits[i].still_ok ? RT_ICRC_OK : RT_ICRC_BAD),
			      "changing the %s: ICRC %s", edits[i].what, rt_icrc_status_name(rt_icrc_check(&p)));
		frame[edits[i].off] ^= edits[i].xor_mask;
	}
}
END_TEST

/* ---- A reference ICRC written from the wire-facts.md "ICRC" section. ---- */

/* Reflected CRC-32 (0xEDB88320) one bit at a time on a raw register: no init, no final xor. */
static uint32_t crc32_register(uint32_t reg, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		reg ^= b[i];
		for (int k = 0; k < 8; k++)
			reg = (reg >> 1) ^ (0xEDB88320u & (0u - (reg & 1u)));
	}
	return reg;
}

/*
 * The ICRC of a RoCE packet whose network header starts at l3 and whose
 * ICRC starts at icrc_off: eight 0xFF bytes, then the covered bytes with
 * the variant fields replaced by ones.
 */
static uint32_t reference_icrc(const uint8_t *frame, size_t l3, size_t icrc_off, int ip_version, int roce_version)
{
	uint8_t covered[TEST_FRAME_MAX + 8];
	memset(covered, 0xFF, 8);
	memcpy(covered + 8, frame + l3, icrc_off - l3);
	uint8_t *ip = covered + 8;
	size_t next;
	if (ip_version == 4) {
		size_t ihl = (ip[0] & 0x0F) * 4u;
		ip[1] = 0xFF;			/* TOS */
		ip[8] = 0xFF;			/* TTL */
		ip[10] = ip[11] = 0xFF;		/* header checksum */
		next = ihl;
	} else {
		/* "first 4 bytes become 6f ff ff ff", and the hop limit. */
		ip[0] = 0x6F;
		ip[1] = ip[2] = ip[3] = 0xFF;
		ip[7] = 0xFF;
		next = 40;
	}
	if (roce_version == 2) {
		ip[next + 6] = ip[next + 7] = 0xFF;	/* UDP checksum */
		next += 8;
	}
	ip[next + 4] = 0xFF;			/* BTH byte 4 */
	return ~crc32_register(0xFFFFFFFF, covered, 8 + icrc_off - l3);
}

START_TEST(reference_crc_matches_the_facts)
{
	/* "rxe seeds its CRC with 0xDEBB20E3, which is the register after the eight 0xFF bytes". */
	static const uint8_t ones[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	ck_assert_uint_eq(crc32_register(0xFFFFFFFF, ones, 8), 0xDEBB20E3);

	uint8_t frame[128];
	size_t len = hex_to_bytes(SCAPY_UC_SEND_ONLY_HEX, frame, sizeof frame);
	ck_assert_uint_eq(reference_icrc(frame, 14, len - 4, 4, 2), 0xF353F378);
	len = hex_to_bytes(CONNECTX_CNP_HEX, frame, sizeof frame);
	ck_assert_uint_eq(reference_icrc(frame, 14, len - 4, 4, 2), 0x2A00FD82);
}
END_TEST

/* The library against the reference on layouts no published vector covers: IPv6, RoCE v1, VLAN tags. */
START_TEST(library_matches_reference_on_built_frames)
{
	static const uint8_t opcodes[] = { 0x04, 0x0B, 0x12, 0x13, 0x65, 0x81, 0x2A };
	struct { uint8_t roce, ip, vlans; } layouts[] = { { 2, 4, 0 }, { 2, 6, 0 }, { 1, 6, 0 }, { 2, 4, 2 }, { 2, 6, 1 } };
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
		for (size_t o = 0; o < sizeof opcodes; o++)
			for (uint32_t pay = 0; pay < 6; pay++) {
				struct rt_build_spec s;
				uint8_t frame[TEST_FRAME_MAX];
				spec_with_fields(&s, opcodes[o], pay, (int)(o & 1));
				s.roce_version = layouts[l].roce;
				s.ip_version = layouts[l].ip;
				s.vlan_count = layouts[l].vlans;
				s.tos = 0xB9;
				s.flow_label = 0x9ABCD;
				s.ttl = 3;
				size_t len = build_frame(&s, frame, sizeof frame);
				struct rt_packet p;
				ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len),
						 RT_PARSE_ROCE);
				uint32_t want = reference_icrc(frame, 14 + 4u * layouts[l].vlans, len - 4, layouts[l].ip,
							       layouts[l].roce);
				uint32_t wire = (uint32_t)frame[len - 4] | (uint32_t)frame[len - 3] << 8 |
						(uint32_t)frame[len - 2] << 16 | (uint32_t)frame[len - 1] << 24;
				ck_assert_msg(rt_icrc_compute(&p) == want && wire == want,
					      "RoCE v%u IPv%u %u tags opcode 0x%02x payload %u: library 0x%08x, "
					      "wire 0x%08x, reference 0x%08x", layouts[l].roce, layouts[l].ip,
					      layouts[l].vlans, opcodes[o], pay, rt_icrc_compute(&p), wire, want);
				ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
			}
}
END_TEST

/*
 * rt_icrc_verify: the ICRC from headers, payload and pad CRCed apart and
 * joined, against the reference; the payload's own CRC against the bitwise
 * CRC-32; and later questions answered from the packet.
 */
START_TEST(verify_in_one_pass_matches_reference)
{
	static const uint8_t opcodes[] = { 0x04, 0x0B, 0x11, 0x13, 0x65, 0x81, 0x06 };
	static const uint32_t payloads[] = { 0, 1, 2, 3, 4, 5, 255, 1024, 1027, 2000 };
	struct { uint8_t roce, ip; } layouts[] = { { 2, 4 }, { 2, 6 }, { 1, 6 } };
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
		for (size_t o = 0; o < sizeof opcodes; o++)
			for (size_t n = 0; n < sizeof payloads / sizeof payloads[0]; n++) {
				struct rt_build_spec s;
				uint8_t frame[TEST_FRAME_MAX];
				spec_with_fields(&s, opcodes[o], payloads[n], (int)(n & 1));
				s.roce_version = layouts[l].roce;
				s.ip_version = layouts[l].ip;
				s.corrupt_icrc = n == 3;
				size_t len = build_frame(&s, frame, sizeof frame);
				struct rt_packet p;
				ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len),
						 RT_PARSE_ROCE);
				uint32_t want = reference_icrc(frame, 14, len - 4, layouts[l].ip, layouts[l].roce);
				ck_assert_int_eq(rt_icrc_verify(&p), n == 3 ? RT_ICRC_BAD : RT_ICRC_OK);
				ck_assert_msg(p.icrc_computed == want, "opcode 0x%02x payload %u: 0x%08x, reference 0x%08x",
					      opcodes[o], p.payload_len, p.icrc_computed, want);
				uint32_t payload_crc = p.payload_len ? ~crc32_register(0xFFFFFFFF, frame + p.payload_off,
										      p.payload_len) : 0;
				ck_assert_uint_eq(p.payload_crc, payload_crc);
				/* Answered from the packet from now on. */
				p.icrc_computed ^= 1;
				ck_assert_uint_eq(rt_icrc_compute(&p), want ^ 1);
			}
	/* Cut by the snap length: unverified, nothing computed. */
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x04, 100, 0);
	size_t len = build_frame(&s, frame, sizeof frame);
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len - 1, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert_int_eq(rt_icrc_verify(&p), RT_ICRC_UNVERIFIED);
	ck_assert_uint_eq(p.payload_crc, 0);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_UNVERIFIED);
}
END_TEST

START_TEST(unparsed_packets_are_unverified)
{
	struct rt_packet p;
	uint8_t frame[128];
	size_t len = hex_to_bytes(CONNECTX_CNP_HEX, frame, sizeof frame);
	/* Cut before the ICRC: truncated, so the ICRC cannot be judged. */
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len - 1, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert(p.truncated);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_UNVERIFIED);
	frame[12] = 0x08, frame[13] = 0x06;	/* ARP */
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_NOT_ROCE);
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_UNVERIFIED);
}
END_TEST

/* ---- solving a bad ICRC for a rewritten field ---------------------------- */

static uint32_t wire_icrc(const uint8_t *frame, size_t len)
{
	return (uint32_t)frame[len - 4] | (uint32_t)frame[len - 3] << 8 | (uint32_t)frame[len - 2] << 16 |
	       (uint32_t)frame[len - 1] << 24;
}

/* Every UDP source port tried with the reference CRC: how many make the ICRC verify, and the last one that does. */
static unsigned brute_force_sports(uint8_t *frame, size_t len, uint32_t *found)
{
	enum { L3 = 14, UDP = 14 + 20 };
	uint16_t keep = rt_get_be16(frame + UDP);
	unsigned n = 0;
	for (uint32_t port = 0; port <= 0xFFFF; port++) {
		rt_put_be16(frame + UDP, (uint16_t)port);
		if (reference_icrc(frame, L3, len - 4, 4, 2) == wire_icrc(frame, len)) {
			n++;
			*found = port;
		}
	}
	rt_put_be16(frame + UDP, keep);
	return n;
}

/*
 * A RoCE v2 IPv4 packet whose ICRC is then broken `how`: 0 the UDP source
 * port rewritten, 1 the IPv4 source, 2 and up a bit flipped near the end.
 */
static size_t damaged_frame(uint8_t *frame, size_t cap, uint32_t payload, int how, struct rt_packet *p)
{
	struct rt_build_spec s;
	spec_with_fields(&s, 0x04, payload, 0);
	s.udp_sport = 0xD0B3;
	size_t len = build_frame(&s, frame, cap);
	if (how == 0)
		rt_put_be16(frame + 14 + 20, 0x1234);
	else if (how == 1)
		rt_put_be32(frame + 14 + 12, 0xC0A80707);
	else
		frame[len - 5 - (unsigned)how % (payload + 12)] ^= (uint8_t)(1u << (how % 8));
	ck_assert_int_eq(rt_parse(p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert_int_eq(rt_icrc_check(p), RT_ICRC_BAD);
	return len;
}

/* The solver names the port every one of the 65536 ports was tried for, and no port where none fits. */
START_TEST(solve_agrees_with_brute_force)
{
	struct rt_icrc_solver solver;
	rt_icrc_solver_init(&solver);
	/* The port rewritten, then payload bits flipped; the basis is rebuilt, and reused, as lengths change. */
	static const int hows[] = { 0, 2, 3, 4, 5, 6 };
	static const uint32_t payloads[] = { 0, 37, 4, 37, 37, 1 };
	for (int i = 0; i < 6; i++) {
		int how = hows[i];
		uint8_t frame[TEST_FRAME_MAX];
		struct rt_packet p;
		size_t len = damaged_frame(frame, sizeof frame, payloads[i], how, &p);
		uint32_t solved = 0, brute = 0;
		bool ok = rt_icrc_solve(&solver, &p, rt_icrc_compute(&p), RT_ICRC_FIELD_UDP_SPORT, &solved);
		unsigned n = brute_force_sports(frame, len, &brute);
		ck_assert_msg(n <= 1, "%u ports fit", n);
		ck_assert_msg(ok == (n == 1), "case %d: solver %d, brute force %u", how, ok, n);
		if (ok)
			ck_assert_uint_eq(solved, brute);
		if (how == 0)
			ck_assert_uint_eq(solved, 0xD0B3);
	}
}
END_TEST

/* A 32-bit field always has a solution: the one given makes the reference CRC verify, and is the original. */
START_TEST(solve_ipv4_addresses)
{
	struct rt_icrc_solver solver;
	rt_icrc_solver_init(&solver);
	for (int how = 1; how < 5; how++) {
		uint8_t frame[TEST_FRAME_MAX];
		struct rt_packet p;
		size_t len = damaged_frame(frame, sizeof frame, 100u * (unsigned)how, how, &p);
		for (int f = RT_ICRC_FIELD_IPV4_SRC; f <= RT_ICRC_FIELD_IPV4_DST; f++) {
			uint32_t v = 0, keep;
			ck_assert(rt_icrc_solve(&solver, &p, rt_icrc_compute(&p), (enum rt_icrc_field)f, &v));
			uint8_t *at = frame + 14 + (f == RT_ICRC_FIELD_IPV4_SRC ? 12 : 16);
			keep = rt_get_be32(at);
			rt_put_be32(at, v);
			ck_assert_uint_eq(reference_icrc(frame, 14, len - 4, 4, 2), wire_icrc(frame, len));
			rt_put_be32(at, keep);
			if (how == 1 && f == RT_ICRC_FIELD_IPV4_SRC)
				ck_assert_uint_eq(v, 0x0A000001);	/* the builder's 10.0.0.1 */
		}
	}
	ck_assert_str_eq(rt_icrc_field_name(RT_ICRC_FIELD_IPV4_DST), "IPv4 destination address");
	ck_assert_uint_eq(rt_icrc_field_bytes(RT_ICRC_FIELD_UDP_SPORT), 2);
}
END_TEST

/* Fields a packet does not have are not solved for: RoCE v1 has no UDP, IPv6 no IPv4 address. */
START_TEST(solve_only_fields_the_packet_has)
{
	struct rt_icrc_solver solver;
	rt_icrc_solver_init(&solver);
	for (int layout = 0; layout < 2; layout++) {
		struct rt_build_spec s;
		uint8_t frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x04, 8, 0);
		s.roce_version = layout ? 2 : 1;
		s.ip_version = 6;
		s.corrupt_icrc = true;
		size_t len = build_frame(&s, frame, sizeof frame);
		struct rt_packet p;
		ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
		uint32_t v;
		ck_assert(!rt_icrc_solve(&solver, &p, rt_icrc_compute(&p), RT_ICRC_FIELD_IPV4_SRC, &v));
		ck_assert(!rt_icrc_field_value(&p, RT_ICRC_FIELD_IPV4_DST, &v));
		ck_assert_int_eq(rt_icrc_field_value(&p, RT_ICRC_FIELD_UDP_SPORT, &v), layout == 1);
		/* Cut by the snap length: the ICRC is unknown, nothing to solve. */
		ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len - 1, (uint32_t)len), RT_PARSE_ROCE);
		ck_assert(!rt_icrc_solve(&solver, &p, 0, RT_ICRC_FIELD_UDP_SPORT, &v));
	}
}
END_TEST

Suite *icrc_suite(void)
{
	Suite *s = suite_create("icrc");
	TCase *tc = tcase_create("vectors");
	tcase_add_test(tc, scapy_vector_built_from_its_fields);
	tcase_add_test(tc, scapy_vector_parses_and_verifies);
	tcase_add_test(tc, connectx_cnp_vector);
	tcase_add_test(tc, icrc_store_is_least_significant_byte_first);
	tcase_add_test(tc, masked_fields_of_the_cnp_vector);
	suite_add_tcase(s, tc);
	tc = tcase_create("reference");
	tcase_add_test(tc, reference_crc_matches_the_facts);
	tcase_add_test(tc, library_matches_reference_on_built_frames);
	tcase_add_test(tc, verify_in_one_pass_matches_reference);
	tcase_add_test(tc, unparsed_packets_are_unverified);
	suite_add_tcase(s, tc);
	tc = tcase_create("solve");
	tcase_add_test(tc, solve_agrees_with_brute_force);
	tcase_add_test(tc, solve_ipv4_addresses);
	tcase_add_test(tc, solve_only_fields_the_packet_has);
	suite_add_tcase(s, tc);
	return s;
}
