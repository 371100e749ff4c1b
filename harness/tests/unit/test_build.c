/* SPDX-License-Identifier: MIT */
/*
 * The builder: lengths from the header sizes in wire-facts.md, refusal of a
 * short buffer, the deliberate faults, and the Internet checksums verified
 * with the RFC 1071 sum computed here (not with the library's own code).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "suites.h"
#include "test_util.h"

enum { ETH = 14, VLAN = 4, IPV4 = 20, IPV6 = 40, UDP = 8 };

static size_t expected_frame_len(const struct rt_build_spec *s, const struct fact_opcode *fact)
{
	bool v1 = s->roce_version == 1;
	size_t n = ETH + VLAN * (size_t)s->vlan_count;
	n += (v1 || s->ip_version == 6) ? IPV6 : IPV4;
	n += v1 ? 0 : UDP;
	n += FACT_BTH_BYTES + fact->ext_bytes;
	n += s->payload_len + ((0u - s->payload_len) & 3u);
	return n + FACT_ICRC_BYTES;
}

START_TEST(frame_len_matches_the_layout)
{
	static const struct { uint8_t roce, ip; } nets[] = { { 2, 4 }, { 2, 6 }, { 1, 6 } };
	for (size_t f = 0; f < fact_opcode_count; f++)
		for (size_t n = 0; n < sizeof nets / sizeof nets[0]; n++)
			for (uint8_t vlans = 0; vlans <= 2; vlans++)
				for (uint32_t pay = 0; pay <= 5; pay++) {
					struct rt_build_spec s;
					uint8_t frame[TEST_FRAME_MAX];
					spec_with_fields(&s, fact_opcodes[f].opcode, pay, 0);
					s.roce_version = nets[n].roce;
					s.ip_version = nets[n].ip;
					s.vlan_count = vlans;
					size_t want = expected_frame_len(&s, &fact_opcodes[f]);
					ck_assert_msg(rt_build_frame_len(&s) == want,
						      "opcode 0x%02x RoCE v%u IPv%u %u tags payload %u: %zu, want %zu",
						      s.bth.opcode, s.roce_version, s.ip_version, vlans, pay,
						      rt_build_frame_len(&s), want);
					ck_assert_uint_eq(rt_build(&s, frame, sizeof frame), want);
				}
}
END_TEST

START_TEST(short_buffer_is_refused)
{
	struct rt_build_spec s;
	spec_with_fields(&s, 0x0B, 13, 0);
	size_t len = rt_build_frame_len(&s);
	/* Exactly one byte short, on the heap: a sanitizer build would see any write past it. */
	uint8_t *buf = malloc(len - 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(rt_build(&s, buf, len - 1), 0);
	free(buf);
	ck_assert_uint_eq(rt_build(&s, NULL, 0), 0);
	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(rt_build(&s, buf, len), len);
	free(buf);
}
END_TEST

START_TEST(corrupt_icrc_is_detected)
{
	for (uint8_t ipv = 4; ipv <= 6; ipv += 2) {
		struct rt_build_spec s;
		uint8_t good[TEST_FRAME_MAX], bad[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x04, 12, 0);
		s.ip_version = ipv;
		size_t len = build_frame(&s, good, sizeof good);
		s.corrupt_icrc = true;
		ck_assert_uint_eq(build_frame(&s, bad, sizeof bad), len);
		/* Only the ICRC differs. */
		ck_assert_mem_eq(good, bad, len - 4);
		ck_assert(memcmp(good + len - 4, bad + len - 4, 4) != 0);
		struct rt_packet p;
		ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, bad, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
		ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_BAD);
	}
}
END_TEST

/* The pseudo-header sum of RFC 768 (IPv4) / RFC 8200 (IPv6), then the whole datagram, checksum included. */
static uint16_t udp_verify_sum(const uint8_t *frame, unsigned l3, unsigned ipv)
{
	unsigned alen = ipv == 4 ? 4 : 16;
	unsigned src = ipv == 4 ? 12 : 8;
	unsigned udp = l3 + (ipv == 4 ? IPV4 : IPV6);
	uint16_t udp_len = rt_get_be16(frame + udp + 4);
	uint32_t sum = ones_sum16(0, frame + l3 + src, 2 * alen);	/* source and destination */
	sum += 17u + udp_len;
	return ones_sum16(sum, frame + udp, udp_len);
}

START_TEST(udp_checksum_verifies)
{
	static const uint8_t opcodes[] = { 0x04, 0x0A, 0x11, 0x65, 0x81 };
	for (uint8_t ipv = 4; ipv <= 6; ipv += 2)
		for (size_t o = 0; o < sizeof opcodes; o++)
			for (uint32_t pay = 0; pay < 4; pay++) {
				struct rt_build_spec s;
				uint8_t frame[TEST_FRAME_MAX];
				spec_with_fields(&s, opcodes[o], opcodes[o] == 0x11 ? 0 : pay * 5 + 1, (int)pay & 1);
				s.ip_version = ipv;
				s.udp_checksum = true;
				size_t len = build_frame(&s, frame, sizeof frame);
				struct rt_packet p;
				ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len),
						 RT_PARSE_ROCE);
				ck_assert_uint_ne(p.udp_checksum, 0);
				ck_assert_uint_eq(rt_udp_checksum(&p), p.udp_checksum);
				ck_assert_msg(udp_verify_sum(frame, ETH, ipv) == 0xFFFF,
					      "IPv%u opcode 0x%02x: UDP checksum 0x%04x does not verify", ipv,
					      opcodes[o], p.udp_checksum);
				/* The UDP checksum is masked out of the ICRC. */
				ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);

				s.udp_checksum = false;
				build_frame(&s, frame, sizeof frame);
				ck_assert_uint_eq(rt_get_be16(frame + ETH + (ipv == 4 ? IPV4 : IPV6) + 6), 0);
			}
}
END_TEST

START_TEST(ipv4_header_checksum_verifies)
{
	for (int variant = 0; variant < 2; variant++) {
		struct rt_build_spec s;
		uint8_t frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x0C, 0, variant);
		s.tos = (uint8_t)(variant ? 0xFF : 0x02);
		s.ip_id = (uint16_t)(variant ? 0xFFFF : 0x1234);
		s.ip_df = variant;
		s.ttl = (uint8_t)(variant ? 255 : 1);
		s.vlan_count = (uint8_t)variant;
		unsigned l3 = ETH + VLAN * (unsigned)variant;
		build_frame(&s, frame, sizeof frame);
		/* A correct header sums, checksum included, to all ones. */
		ck_assert_uint_eq(ones_sum16(0, frame + l3, IPV4), 0xFFFF);
		ck_assert_uint_eq(rt_ipv4_header_checksum(frame + l3, IPV4), rt_get_be16(frame + l3 + 10));

		s.corrupt_ip_checksum = true;
		build_frame(&s, frame, sizeof frame);
		ck_assert_uint_ne(ones_sum16(0, frame + l3, IPV4), 0xFFFF);
	}
}
END_TEST

START_TEST(lengths_in_the_headers)
{
	for (uint8_t ipv = 4; ipv <= 6; ipv += 2) {
		struct rt_build_spec s;
		uint8_t frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x06, 256, 0);
		s.ip_version = ipv;
		s.vlan_count = 1;
		size_t len = build_frame(&s, frame, sizeof frame);
		unsigned l3 = ETH + VLAN, udp = l3 + (ipv == 4 ? IPV4 : IPV6);
		if (ipv == 4)
			ck_assert_uint_eq(rt_get_be16(frame + l3 + 2), len - l3);	/* total length */
		else
			ck_assert_uint_eq(rt_get_be16(frame + l3 + 4), len - udp);	/* payload length */
		ck_assert_uint_eq(rt_get_be16(frame + udp + 2), 4791);
		ck_assert_uint_eq(rt_get_be16(frame + udp + 4), len - udp);
		ck_assert_uint_eq(rt_get_be16(frame + 12), 0x8100);
		ck_assert_uint_eq(rt_get_be16(frame + 16), ipv == 4 ? 0x0800 : 0x86DD);
	}
}
END_TEST

START_TEST(explicit_pad)
{
	/* pad_explicit writes what it is told, e.g. a wrong PadCnt with non-zero pad bytes for negative tests. */
	struct rt_build_spec s;
	uint8_t frame[TEST_FRAME_MAX];
	spec_with_fields(&s, 0x04, 4, 0);
	s.pad_explicit = true;
	s.bth.pad = 3;
	s.pad_byte = 0xAA;
	size_t len = build_frame(&s, frame, sizeof frame);
	ck_assert_uint_eq(len, rt_build_frame_len(&s));
	ck_assert_uint_eq(len, ETH + IPV4 + UDP + 12 + 4 + 3 + 4);
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.bth.pad, 3);
	ck_assert_uint_eq(p.data_len, 7);
	ck_assert_uint_eq(p.payload_len, 4);
	ck_assert_mem_eq(frame + p.payload_off + 4, "\xaa\xaa\xaa", 3);
	/* The pad bytes are covered, so the ICRC still verifies for what was sent. */
	ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
}
END_TEST

Suite *build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("builder");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, frame_len_matches_the_layout);
	tcase_add_test(tc, short_buffer_is_refused);
	tcase_add_test(tc, corrupt_icrc_is_detected);
	tcase_add_test(tc, udp_checksum_verifies);
	tcase_add_test(tc, ipv4_header_checksum_verifies);
	tcase_add_test(tc, lengths_in_the_headers);
	tcase_add_test(tc, explicit_pad);
	suite_add_tcase(s, tc);
	return s;
}
