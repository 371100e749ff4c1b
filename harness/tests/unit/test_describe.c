/* SPDX-License-Identifier: MIT */
/* AETH syndromes and RNR timers for people (wire-facts.md "AETH syndrome"). */
#include <check.h>
#include <string.h>

#include "rocetest/describe.h"
#include "suites.h"

static void expect_contains(const char *text, const char *part, uint8_t syndrome)
{
	ck_assert_msg(strstr(text, part) != NULL, "AETH 0x%02x: \"%s\" should mention \"%s\"", syndrome, text, part);
}

START_TEST(aeth_syndromes)
{
	char text[128];

	/* 0x1F: ACK, credit code 31 = not limited. */
	rt_describe_aeth(0x1F, text, sizeof text);
	expect_contains(text, "ACK", 0x1F);
	expect_contains(text, "unlimited", 0x1F);
	ck_assert_ptr_null(strstr(text, "NAK"));

	/* 0x60: NAK code 0. */
	rt_describe_aeth(0x60, text, sizeof text);
	expect_contains(text, "NAK", 0x60);
	expect_contains(text, "PSN sequence error", 0x60);
	ck_assert_ptr_null(strstr(text, "RNR"));

	/* 0x62: NAK code 2. */
	rt_describe_aeth(0x62, text, sizeof text);
	expect_contains(text, "NAK", 0x62);
	expect_contains(text, "remote access error", 0x62);

	/* 0x2E: RNR NAK with timer code 14, 1.28 ms. */
	rt_describe_aeth(0x2E, text, sizeof text);
	expect_contains(text, "RNR NAK", 0x2E);
	expect_contains(text, "14", 0x2E);
	expect_contains(text, "1.28 ms", 0x2E);

	/* An ACK with a real credit count (as ConnectX sends) is not called unlimited. */
	rt_describe_aeth(0x0F, text, sizeof text);
	expect_contains(text, "ACK", 0x0F);
	expect_contains(text, "15", 0x0F);
	ck_assert_ptr_null(strstr(text, "unlimited"));

	/* Type 10 is reserved. */
	rt_describe_aeth(0x40, text, sizeof text);
	expect_contains(text, "reserved", 0x40);
}
END_TEST

START_TEST(rnr_timer_table)
{
	/* wire-facts.md, minimum wait in ms by code 0..31. */
	static const double ms[32] = {
		655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48, 0.64, 0.96, 1.28, 1.92,
		2.56, 3.84, 5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76,
		327.68, 491.52,
	};
	ck_assert_double_eq(rt_rnr_timer_us(0), 655360.0);
	ck_assert_double_eq(rt_rnr_timer_us(1), 10.0);
	for (uint8_t code = 0; code < 32; code++)
		ck_assert_double_eq_tol(rt_rnr_timer_us(code), ms[code] * 1000.0, 1e-6);
}
END_TEST

START_TEST(nak_codes)
{
	ck_assert_str_eq(rt_nak_code_name(0), "PSN sequence error");
	ck_assert_str_eq(rt_nak_code_name(1), "invalid request");
	ck_assert_str_eq(rt_nak_code_name(2), "remote access error");
	ck_assert_str_eq(rt_nak_code_name(3), "remote operational error");
	ck_assert_ptr_nonnull(rt_nak_code_name(4));
	ck_assert_ptr_null(rt_nak_code_name(5));
	ck_assert_ptr_null(rt_nak_code_name(31));
}
END_TEST

START_TEST(opcode_names)
{
	char text[64];
	rt_describe_opcode(0x15, text, sizeof text);
	ck_assert_ptr_nonnull(strstr(text, "undefined"));
	rt_describe_opcode(0x81, text, sizeof text);
	ck_assert_ptr_nonnull(strstr(text, "CNP"));
	rt_describe_opcode(0x24, text, sizeof text);
	ck_assert_ptr_nonnull(strstr(text, "UC"));
	ck_assert_ptr_nonnull(strstr(text, "SEND Only"));
}
END_TEST

Suite *describe_suite(void)
{
	Suite *s = suite_create("describe");
	TCase *tc = tcase_create("aeth");
	tcase_add_test(tc, aeth_syndromes);
	tcase_add_test(tc, rnr_timer_table);
	tcase_add_test(tc, nak_codes);
	tcase_add_test(tc, opcode_names);
	suite_add_tcase(s, tc);
	return s;
}
