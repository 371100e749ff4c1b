/* SPDX-License-Identifier: MIT */
/*
 * rt_goodput_limit_gbps (harness/lib/run/goodput.c) against wire budgets added
 * up by hand here, frame by frame: preamble+SFD 8, Ethernet 14, IPv4 20,
 * UDP 8, BTH 12, RETH 16 (WRITE First/Only), ImmDt 4 (*_IMM Last/Only),
 * payload, pad to 4, ICRC 4, FCS 4, inter-frame gap 12. A packet without
 * RETH or ImmDt thus costs payload + pad + 82 bytes on the wire.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "rocetest/run.h"
#include "suites.h"

/* Tolerance: the expected values are exact ratios; only the last bits of a double may differ. */
#define EPS 1e-9

static void expect(enum rt_dut_opcode op, uint32_t size, uint32_t pmtu, double line, double want)
{
	double got = rt_goodput_limit_gbps(op, size, pmtu, line);
	ck_assert_msg(fabs(got - want) < EPS, "opcode %d, %u B, PMTU %u, %g G: %.12f, expected %.12f", (int)op, size,
		      pmtu, line, got, want);
}

START_TEST(one_packet)
{
	/* SEND Only, 256 B: 8+14+20+8+12 + 256 + 4+4+12 = 338 bytes on the wire. */
	expect(RT_DUT_SEND, 256, 1024, 100, 256.0 / 338 * 100);
	/* RDMA WRITE Only carries a RETH: 338 + 16 = 354. */
	expect(RT_DUT_WRITE, 256, 1024, 100, 256.0 / 354 * 100);
	/* SEND Only with Immediate: 338 + 4 = 342; WRITE Only with Immediate: 338 + 16 + 4 = 358. */
	expect(RT_DUT_SEND_IMM, 256, 4096, 100, 256.0 / 342 * 100);
	expect(RT_DUT_WRITE_IMM, 256, 4096, 100, 256.0 / 358 * 100);
	/* A message of exactly one PMTU is still one packet: 4096 + 82 + 16 = 4194. */
	expect(RT_DUT_WRITE, 4096, 4096, 100, 4096.0 / 4194 * 100);
}
END_TEST

START_TEST(the_issue_example)
{
	/* WRITE 64 KB at PMTU 4096: 16 packets of 4096 + 82, plus the First's RETH: 66864 bytes, 98.01 Gb/s. */
	expect(RT_DUT_WRITE, 65536, 4096, 100, 65536.0 / 66864 * 100);
	ck_assert_double_eq_tol(rt_goodput_limit_gbps(RT_DUT_WRITE, 65536, 4096, 100), 98.01, 0.005);
	/* 1 MB: 256 packets, 256 * 4178 + 16 = 1069584. */
	expect(RT_DUT_WRITE, 1048576, 4096, 100, 1048576.0 / 1069584 * 100);
}
END_TEST

START_TEST(segments_pad_and_immediate)
{
	/*
	 * WRITE_IMM 5 KB at PMTU 4096: First 4096 + 82 + 16 (RETH) = 4194,
	 * Last with Immediate 1024 + 82 + 4 = 1110; 5304 in all.
	 */
	expect(RT_DUT_WRITE_IMM, 5120, 4096, 100, 5120.0 / 5304 * 100);
	/* 5121 B: the Last carries 1025 B, padded by 3 to 1028: 1028 + 86 = 1114, 5308 in all. */
	expect(RT_DUT_WRITE_IMM, 5121, 4096, 100, 5121.0 / 5308 * 100);
	/* ... and up to 5124 B the pad only shrinks: the same 5308 bytes on the wire. */
	expect(RT_DUT_WRITE_IMM, 5124, 4096, 100, 5124.0 / 5308 * 100);
	/* SEND_IMM 4 KB at PMTU 1024: three packets of 1024 + 82 = 1106, the Last 1110: 4428. */
	expect(RT_DUT_SEND_IMM, 4096, 1024, 100, 4096.0 / 4428 * 100);
	/* The sawtooth: 8192 B is two full packets (2 * 4178 + 16 = 8372); one byte more is a third of 1 + 3 + 82. */
	expect(RT_DUT_WRITE, 8192, 4096, 100, 8192.0 / 8372 * 100);
	expect(RT_DUT_WRITE, 8193, 4096, 100, 8193.0 / (8372 + 86) * 100);
	ck_assert(rt_goodput_limit_gbps(RT_DUT_WRITE, 8193, 4096, 100) <
		  rt_goodput_limit_gbps(RT_DUT_WRITE, 8192, 4096, 100));
}
END_TEST

START_TEST(small_messages)
{
	/*
	 * The 64-byte Ethernet minimum (header to FCS) never binds over IPv4
	 * with a payload: 14+20+8+12 + 1 + 3 pad + 4+4 = 66 bytes for a 1-byte
	 * SEND, 86 on the wire. Only a payload-less packet (62) would be padded.
	 */
	expect(RT_DUT_SEND, 1, 4096, 100, 1.0 / 86 * 100);
	expect(RT_DUT_SEND, 4, 4096, 100, 4.0 / 86 * 100);
	expect(RT_DUT_SEND, 5, 4096, 100, 5.0 / 90 * 100);
	/* A 0-byte message moves no application data. */
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_SEND, 0, 4096, 100), 0);
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_WRITE_IMM, 0, 4096, 100), 0);
}
END_TEST

START_TEST(line_rate_and_bad_input)
{
	/* The limit scales with the line. */
	expect(RT_DUT_WRITE, 65536, 4096, 25, 65536.0 / 66864 * 25);
	expect(RT_DUT_WRITE, 65536, 4096, 400, 65536.0 / 66864 * 400);
	/* No PMTU, no line: 0, not a division by zero or a NaN. */
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_WRITE, 65536, 0, 100), 0);
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_WRITE, 65536, 4096, 0), 0);
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_WRITE, 65536, 4096, NAN), 0);
	ck_assert_double_eq(rt_goodput_limit_gbps(RT_DUT_WRITE, 65536, 4096, -100), 0);
}
END_TEST

START_TEST(largest_message)
{
	/*
	 * 4 GiB - 1 at PMTU 256: 16777216 packets, the last carrying 255 B (pad
	 * 1). First 256 + 82 + 16 = 354, then 16777214 of 338, the Last 256 + 82
	 * = 338: 354 + 16777215 * 338 = 5670699024 bytes. No 32-bit overflow.
	 */
	expect(RT_DUT_WRITE, UINT32_MAX, 256, 100, 4294967295.0 / 5670699024.0 * 100);
}
END_TEST

Suite *goodput_suite(void)
{
	Suite *s = suite_create("goodput");
	TCase *tc = tcase_create("limit");
	tcase_add_test(tc, one_packet);
	tcase_add_test(tc, the_issue_example);
	tcase_add_test(tc, segments_pad_and_immediate);
	tcase_add_test(tc, small_messages);
	tcase_add_test(tc, line_rate_and_bad_input);
	tcase_add_test(tc, largest_message);
	suite_add_tcase(s, tc);
	return s;
}
