/* SPDX-License-Identifier: MIT */
/*
 * The CM frame of ../shared/spec/cm-frame.md and the host's ARP request
 * (harness/lib/packet/cm.c), against byte offsets written out here from the spec's
 * table, not from the code.
 */
#include <check.h>
#include <string.h>

#include "rocetest/cm.h"
#include "suites.h"

static const struct rt_cm_msg sample = {
	.qp_info_valid = true, .req_type = RT_CM_SEND_QP_INFO, .ack_valid = true, .ack_type = RT_CM_NAK,
	.loc_qpn = 0x000101, .loc_psn = 0xABCDEF, .loc_rkey = 0x11223344, .loc_base = 0x0102030405060708ull,
	.loc_ip = 0x0A000001, .rem_qpn = 0x001234, .rem_psn = 0xFFFFFE, .rem_rkey = 0x55667788,
	.rem_base = 0x1112131415161718ull, .rem_ip = 0xC0A80164, .listening_port = 0x4322,
	.txmeta_valid = true, .start = true, .is_immediate = false, .tx_write = true,
	.dma_length = 0x00010000, .n_transfers = 7, .frequency = 200,
};

START_TEST(payload_layout)
{
	uint8_t p[RT_CM_PAYLOAD_BYTES];
	rt_cm_encode(&sample, p);
	/* byte 0: bit 0 qp_info_valid, bits 3-1 req_type (2), bit 4 ack_valid, bits 7-5 ack_type (3). */
	ck_assert_uint_eq(p[0], 0x01 | 2 << 1 | 0x10 | 3 << 5);
	/* 24-bit fields behind a zero byte. */
	static const uint8_t loc[] = { 0x00, 0x00, 0x01, 0x01, 0x00, 0xAB, 0xCD, 0xEF, 0x11, 0x22, 0x33, 0x44,
				       0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x00, 0x00, 0x01 };
	ck_assert_mem_eq(p + 1, loc, sizeof loc);
	static const uint8_t rem[] = { 0x00, 0x00, 0x12, 0x34, 0x00, 0xFF, 0xFF, 0xFE, 0x55, 0x66, 0x77, 0x88,
				       0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0xC0, 0xA8, 0x01, 0x64 };
	ck_assert_mem_eq(p + 25, rem, sizeof rem);
	ck_assert_uint_eq(p[49], 0x43);
	ck_assert_uint_eq(p[50], 0x22);
	/* byte 51: bit 0 txmeta_valid, bit 1 start, bit 2 is_immediate, bit 3 tx_type (WRITE). */
	ck_assert_uint_eq(p[51], 0x01 | 0x02 | 0x08);
	static const uint8_t txm[] = { 0x00, 0x01, 0x00, 0x00, 0, 0, 0, 7, 0, 0, 0, 200 };
	ck_assert_mem_eq(p + 52, txm, sizeof txm);
}
END_TEST

START_TEST(payload_round_trip)
{
	uint8_t p[RT_CM_PAYLOAD_BYTES];
	struct rt_cm_msg m;
	rt_cm_encode(&sample, p);
	rt_cm_decode(p, &m);
	ck_assert(m.qp_info_valid && m.ack_valid);
	ck_assert_uint_eq(m.req_type, RT_CM_SEND_QP_INFO);
	ck_assert_uint_eq(m.ack_type, RT_CM_NAK);
	ck_assert_uint_eq(m.loc_qpn, sample.loc_qpn);
	ck_assert_uint_eq(m.loc_psn, sample.loc_psn);
	ck_assert_uint_eq(m.loc_rkey, sample.loc_rkey);
	ck_assert_uint_eq(m.loc_base, sample.loc_base);
	ck_assert_uint_eq(m.loc_ip, sample.loc_ip);
	ck_assert_uint_eq(m.rem_qpn, sample.rem_qpn);
	ck_assert_uint_eq(m.rem_psn, sample.rem_psn);
	ck_assert_uint_eq(m.rem_rkey, sample.rem_rkey);
	ck_assert_uint_eq(m.rem_base, sample.rem_base);
	ck_assert_uint_eq(m.rem_ip, sample.rem_ip);
	ck_assert_uint_eq(m.listening_port, sample.listening_port);
	ck_assert(m.txmeta_valid && m.start && !m.is_immediate && m.tx_write);
	ck_assert_uint_eq(m.dma_length, sample.dma_length);
	ck_assert_uint_eq(m.n_transfers, 7);
	ck_assert_uint_eq(m.frequency, 200);
	/* Only 24 bits of a QPN or PSN travel; the zero byte before them stays zero. */
	struct rt_cm_msg wide = sample;
	wide.loc_qpn = 0xFF000101;
	rt_cm_encode(&wide, p);
	ck_assert_uint_eq(p[1], 0);
	rt_cm_decode(p, &m);
	ck_assert_uint_eq(m.loc_qpn, 0x000101);
}
END_TEST

static uint16_t ones_sum(const uint8_t *b, unsigned n)
{
	uint32_t s = 0;
	for (unsigned i = 0; i < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

START_TEST(frame_build_and_parse)
{
	struct rt_cm_addr a = { .src_mac = { 2, 0, 0, 0, 0xAB, 0 }, .dst_mac = { 2, 0, 0, 0, 0, 1 },
				.src_ip = 0x0A000164, .dst_ip = 0x0A000001, .src_port = 0x4322,
				.dst_port = RT_CM_UDP_PORT, .ip_id = 0x1234 };
	uint8_t f[RT_CM_FRAME_BYTES];
	rt_cm_frame_build(f, &a, &sample);
	ck_assert_mem_eq(f, a.dst_mac, 6);
	ck_assert_mem_eq(f + 6, a.src_mac, 6);
	ck_assert_uint_eq(f[12] << 8 | f[13], 0x0800);
	ck_assert_uint_eq(f[14], 0x45);
	ck_assert_uint_eq(f[16] << 8 | f[17], 92);		/* IPv4 total length */
	ck_assert_uint_eq(f[23], 17);				/* UDP */
	ck_assert_uint_eq(ones_sum(f + 14, 20), 0xFFFF);	/* the header checksum holds */
	ck_assert_uint_eq(f[36] << 8 | f[37], 0x4321);		/* to 17185 */
	ck_assert_uint_eq(f[38] << 8 | f[39], 72);		/* the only UDP length the endpoint takes */

	struct rt_cm_addr b;
	struct rt_cm_msg m;
	ck_assert(rt_cm_frame_parse(f, sizeof f, &b, &m));
	ck_assert_uint_eq(b.src_ip, a.src_ip);
	ck_assert_uint_eq(b.dst_ip, a.dst_ip);
	ck_assert_uint_eq(b.src_port, 0x4322);
	ck_assert_uint_eq(m.rem_psn, 0xFFFFFE);
	/* Not a CM frame: short, another UDP length, other ports. */
	ck_assert(!rt_cm_frame_parse(f, sizeof f - 1, &b, &m));
	f[39] = 73;
	ck_assert(!rt_cm_frame_parse(f, sizeof f, &b, &m));
	f[39] = 72;
	f[36] = 0x12;
	ck_assert(!rt_cm_frame_parse(f, sizeof f, &b, &m));
}
END_TEST

START_TEST(arp)
{
	const uint8_t mac[6] = { 2, 0, 0, 0, 0xAB, 0 };
	uint8_t f[RT_ARP_FRAME_BYTES];
	rt_arp_request_build(f, mac, 0x0A000164, 0x0A000001);
	static const uint8_t head[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 0xAB, 0, 0x08, 0x06,
					0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 2, 0, 0, 0, 0xAB, 0,
					0x0A, 0x00, 0x01, 0x64, 0, 0, 0, 0, 0, 0, 0x0A, 0x00, 0x00, 0x01 };
	ck_assert_mem_eq(f, head, sizeof head);
	for (unsigned i = sizeof head; i < sizeof f; i++)
		ck_assert_uint_eq(f[i], 0);
	uint8_t smac[6], tmac[6];
	uint32_t sip, tip;
	ck_assert(!rt_arp_reply_parse(f, sizeof f, smac, &sip, tmac, &tip));	/* a request, not a reply */
	f[21] = 2;
	ck_assert(rt_arp_reply_parse(f, sizeof f, smac, &sip, tmac, &tip));
	ck_assert_mem_eq(smac, mac, 6);
	ck_assert_uint_eq(sip, 0x0A000164);
	ck_assert_uint_eq(tip, 0x0A000001);
	ck_assert(!rt_arp_reply_parse(f, 41, smac, &sip, tmac, &tip));
}
END_TEST

Suite *cm_suite(void)
{
	Suite *s = suite_create("cm");
	TCase *tc = tcase_create("cm");
	tcase_add_test(tc, payload_layout);
	tcase_add_test(tc, payload_round_trip);
	tcase_add_test(tc, frame_build_and_parse);
	tcase_add_test(tc, arp);
	suite_add_tcase(s, tc);
	return s;
}
