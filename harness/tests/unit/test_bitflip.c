/* SPDX-License-Identifier: MIT */
/*
 * The acceptance criterion: flip every single bit of the ICRC-covered
 * region of a packet, one at a time. A flip of a field wire-facts.md masks
 * (TOS/traffic class, TTL/hop limit, IPv4 header checksum, IPv6 flow label,
 * UDP checksum, BTH byte 4) must leave the packet "RoCE, ICRC ok"; any other
 * flip must not. Run on built packets and on real captures.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/icrc.h"
#include "suites.h"
#include "test_util.h"

/* Bit `bit` of frame byte `off` is one that routers may change (wire-facts.md "ICRC"). */
static bool is_masked_bit(const struct rt_packet *ref, uint32_t off, unsigned bit)
{
	uint32_t ip = off - ref->l3_off;
	if (off >= ref->l3_off && ip < ref->l3_hdr_len) {
		if (ref->ip_version == 4)
			return ip == 1 || ip == 8 || ip == 10 || ip == 11;
		/* IPv6 / GRH: the low nibble of byte 0 is the top of the traffic class. */
		return (ip == 0 && bit < 4) || ip == 1 || ip == 2 || ip == 3 || ip == 7;
	}
	if (ref->roce_version == 2 && (off == ref->udp_off + 6 || off == ref->udp_off + 7))
		return true;
	return off == ref->bth_off + 4;
}

static const char *region_of(const struct rt_packet *ref, uint32_t off)
{
	if (off < ref->l3_off + ref->l3_hdr_len)
		return ref->roce_version == 1 ? "GRH" : ref->ip_version == 4 ? "IPv4 header" : "IPv6 header";
	if (off < ref->bth_off)
		return "UDP header";
	if (off < ref->bth_off + 12)
		return "BTH";
	if (off < ref->payload_off)
		return "extension headers";
	if (off < ref->icrc_off)
		return "payload/pad";
	return "ICRC";
}

/*
 * Flips every bit of [l3_off, roce_end) of frame (restoring each), parsing
 * with the frame's own caplen and wirelen. Returns the number of masked bits
 * seen, so the caller can check the regions were where it thinks.
 */
static unsigned check_every_bit(uint8_t *frame, uint32_t caplen, uint32_t wirelen, enum rt_link link,
				const char *what)
{
	struct rt_packet ref;
	ck_assert_msg(rt_parse(&ref, link, frame, caplen, wirelen) == RT_PARSE_ROCE, "%s: not RoCE", what);
	ck_assert_msg(!ref.truncated && rt_icrc_check(&ref) == RT_ICRC_OK, "%s: ICRC %s before any flip", what,
		      rt_icrc_status_name(rt_icrc_check(&ref)));
	unsigned masked_bits = 0;
	for (uint32_t off = ref.l3_off; off < ref.roce_end; off++)
		for (unsigned bit = 0; bit < 8; bit++) {
			frame[off] ^= (uint8_t)(1u << bit);
			struct rt_packet p;
			bool ok = rt_parse(&p, link, frame, caplen, wirelen) == RT_PARSE_ROCE &&
				  rt_icrc_check(&p) == RT_ICRC_OK;
			frame[off] ^= (uint8_t)(1u << bit);
			bool masked = is_masked_bit(&ref, off, bit);
			masked_bits += masked;
			if (ok != masked)
				ck_abort_msg("%s: flipping bit %u of byte %u (%s byte %u) %s", what, bit, off,
					     region_of(&ref, off), off - ref.l3_off,
					     masked ? "broke the ICRC of a masked field"
						    : "still parses as RoCE with a good ICRC");
		}
	return masked_bits;
}

/* Masked bits per layout: IPv4 TOS+TTL+checksum 32, IPv6 4+24+8 = 36, UDP checksum 16, BTH byte 4 8. */
static unsigned expected_masked_bits(uint8_t roce, uint8_t ip)
{
	unsigned n = (ip == 4 ? 32 : 36) + 8;
	return roce == 2 ? n + 16 : n;
}

START_TEST(built_packets)
{
	static const uint8_t opcodes[] = { 0x04, 0x00, 0x0B, 0x0C, 0x10, 0x11, 0x12, 0x13, 0x17, 0x29, 0x65, 0x81 };
	static const struct { uint8_t roce, ip, vlans; } layouts[] = {
		{ 2, 4, 0 }, { 2, 6, 0 }, { 2, 4, 1 }, { 2, 6, 2 }, { 1, 6, 0 },
	};
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
		for (size_t o = 0; o < sizeof opcodes; o++) {
			struct rt_build_spec s;
			uint8_t frame[TEST_FRAME_MAX];
			const struct rt_opcode_info *op = rt_opcode_info(opcodes[o]);
			spec_with_fields(&s, opcodes[o], op->payload ? (uint32_t)(o % 4) + 5 : 0, (int)(o & 1));
			s.roce_version = layouts[l].roce;
			s.ip_version = layouts[l].ip;
			s.vlan_count = layouts[l].vlans;
			s.udp_checksum = (o & 2) != 0;
			s.tos = 0x02;
			s.flow_label = 0x54321;
			size_t len = build_frame(&s, frame, sizeof frame);
			char what[80];
			snprintf(what, sizeof what, "built RoCE v%u IPv%u %u tags %s", layouts[l].roce, layouts[l].ip,
				 layouts[l].vlans, op->name);
			unsigned masked = check_every_bit(frame, (uint32_t)len, (uint32_t)len, RT_LINK_ETHERNET, what);
			ck_assert_uint_eq(masked, expected_masked_bits(layouts[l].roce, layouts[l].ip));
		}
}
END_TEST

/* The first 20 RoCE frames of each capture, each bit of each in turn. */
static void capture_bit_flips(const char *path)
{
	struct loaded_capture cap;
	load_roce_frames(path, 20, &cap);
	ck_assert_msg(cap.count >= 10, "%s: only %zu RoCE frames", path, cap.count);
	for (size_t i = 0; i < cap.count; i++) {
		struct loaded_frame *f = &cap.frames[i];
		struct rt_packet ref;
		rt_parse(&ref, cap.link, f->data, f->caplen, f->wirelen);
		char what[160];
		snprintf(what, sizeof what, "%s frame %llu", path, (unsigned long long)f->number);
		unsigned masked = check_every_bit(f->data, f->caplen, f->wirelen, cap.link, what);
		ck_assert_uint_eq(masked, expected_masked_bits(ref.roce_version, ref.ip_version));
	}
	free_loaded_capture(&cap);
}

START_TEST(capture_rxe_rping)
{
	capture_bit_flips(CAPTURES_DIR "/rxe/rping.pcap");
}
END_TEST

START_TEST(capture_connectx_read2)
{
	capture_bit_flips(CAPTURES_DIR "/connectx/read2.pcap");
}
END_TEST

START_TEST(capture_rxe_lab_ipv6)
{
	capture_bit_flips(CAPTURES_DIR "/rxe-lab/ipv6_rc_pingpong_s10000.pcap");
}
END_TEST

Suite *bitflip_suite(void)
{
	Suite *s = suite_create("bitflip");
	TCase *tc = tcase_create("every bit");
	/* Hundreds of thousands of parses and CRCs: generous for sanitizer builds at -O0. */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, built_packets);
	tcase_add_test(tc, capture_rxe_rping);
	tcase_add_test(tc, capture_connectx_read2);
	tcase_add_test(tc, capture_rxe_lab_ipv6);
	suite_add_tcase(s, tc);
	return s;
}
