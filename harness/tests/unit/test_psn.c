/* SPDX-License-Identifier: MIT */
/* 24-bit PSN arithmetic (wire-facts.md "PSN arithmetic"). */
#include <check.h>

#include "rocetest/packet.h"
#include "suites.h"

START_TEST(wrap_around)
{
	/* 0 comes one after 0xFFFFFF. */
	ck_assert_int_eq(rt_psn_diff(0, 0xFFFFFF), 1);
	ck_assert_int_eq(rt_psn_diff(0xFFFFFF, 0), -1);
	ck_assert_uint_eq(rt_psn_add(0xFFFFFF, 1), 0);
	ck_assert_uint_eq(rt_psn_add(0, -1), 0xFFFFFF);
	ck_assert_uint_eq(rt_psn_add(0xFFFFF0, 0x20), 0x10);
	ck_assert_int_eq(rt_psn_diff(0x10, 0xFFFFF0), 0x20);
	ck_assert_int_eq(rt_psn_diff(5, 5), 0);
}
END_TEST

START_TEST(half_range_boundary)
{
	/* d in 1..0x7FFFFF is ahead, 0x800000..0xFFFFFF is behind. */
	ck_assert_int_eq(rt_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
	ck_assert_int_eq(rt_psn_diff(0x800000, 0), -0x800000);
	ck_assert_int_eq(rt_psn_diff(0, 0x800000), -0x800000);
	ck_assert_int_eq(rt_psn_diff(0, 0x7FFFFF), -0x7FFFFF);
	ck_assert_int_eq(rt_psn_diff(0x123456 + 0x7FFFFF, 0x123456), 0x7FFFFF);
	ck_assert_int_eq(rt_psn_diff((0x923456 + 0x800000) & 0xFFFFFF, 0x923456), -0x800000);
	ck_assert_uint_eq(rt_psn_add(0x7FFFFF, 1), 0x800000);
	ck_assert_uint_eq(rt_psn_add(0x800000, 0x800000), 0);
}
END_TEST

START_TEST(add_then_diff)
{
	/* For any start and any distance in the signed range, diff undoes add. */
	static const uint32_t starts[] = { 0, 1, 0x7FFFFF, 0x800000, 0xFFFFF0, 0xFFFFFF, 0x5A5A5A };
	static const int32_t steps[] = { 0, 1, -1, 64, -64, 0x7FFFFF, -0x800000, 0x400000, -0x3FFFFF };
	for (size_t a = 0; a < sizeof starts / sizeof starts[0]; a++)
		for (size_t d = 0; d < sizeof steps / sizeof steps[0]; d++) {
			uint32_t b = rt_psn_add(starts[a], steps[d]);
			ck_assert_uint_le(b, 0xFFFFFF);
			ck_assert_int_eq(rt_psn_diff(b, starts[a]), steps[d]);
		}
}
END_TEST

Suite *psn_suite(void)
{
	Suite *s = suite_create("psn");
	TCase *tc = tcase_create("arithmetic");
	tcase_add_test(tc, wrap_around);
	tcase_add_test(tc, half_range_boundary);
	tcase_add_test(tc, add_then_diff);
	suite_add_tcase(s, tc);
	return s;
}
