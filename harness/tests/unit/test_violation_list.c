/* SPDX-License-Identifier: MIT */
/* harness/report/violation_list.c: the violations a capture's reports list, in frame order and bounded. */
#include <string.h>

#include "rocetest/report.h"
#include "suites.h"

static void add(struct rt_violation_list *l, uint64_t frame, const char *msg)
{
	struct rt_violation v = {
		.rule = RT_RULE_SEQ_PSN, .severity = RT_SEV_ERROR, .frame = frame, .flow = 1, .message = msg,
	};
	ck_assert_int_eq(rt_violation_list_add(l, &v), 0);
}

static void assert_frames(const struct rt_violation_list *l, const uint64_t *want, size_t n)
{
	ck_assert_uint_eq(l->count, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(l->items[i].frame, want[i]);
}

START_TEST(keeps_frame_order_and_arrival_order_within_a_frame)
{
	struct rt_violation_list l = { 0 };
	add(&l, 5, "a");
	add(&l, 9, "b");
	add(&l, 2, "deferred, earlier");	/* a deferred rule reports an earlier frame late */
	add(&l, 9, "c");
	add(&l, 7, "d");
	static const uint64_t want[] = { 2, 5, 7, 9, 9 };
	assert_frames(&l, want, 5);
	ck_assert_str_eq(l.items[3].message, "b");	/* equal frames: in the order they came */
	ck_assert_str_eq(l.items[4].message, "c");
	ck_assert_uint_eq(l.dropped, 0);
	rt_violation_list_free(&l);
}
END_TEST

START_TEST(copies_the_message)
{
	struct rt_violation_list l = { 0 };
	char msg[400];
	memset(msg, 'x', sizeof msg - 1);
	msg[sizeof msg - 1] = '\0';
	add(&l, 1, msg);
	memset(msg, 'y', 10);	/* the checker's buffer is reused after the callback */
	ck_assert_uint_eq(strlen(l.items[0].message), sizeof l.items[0].message - 1);
	ck_assert_int_eq(l.items[0].message[0], 'x');
	ck_assert_uint_eq(l.items[0].flow, 1);
	ck_assert_int_eq(l.items[0].rule, RT_RULE_SEQ_PSN);
	rt_violation_list_free(&l);
}
END_TEST

START_TEST(full_list_keeps_the_earliest_frames)
{
	struct rt_violation_list l = { .cap = 3 };
	add(&l, 10, "a");
	add(&l, 20, "b");
	add(&l, 30, "c");
	add(&l, 40, "later: counted only");
	add(&l, 15, "earlier: replaces frame 30");
	add(&l, 30, "equal to the last kept: counted only");
	static const uint64_t want[] = { 10, 15, 20 };
	assert_frames(&l, want, 3);
	ck_assert_uint_eq(l.dropped, 3);
	rt_violation_list_free(&l);
	ck_assert_uint_eq(l.count, 0);
	ck_assert_uint_eq(l.dropped, 0);
	add(&l, 1, "reusable after free");
	ck_assert_uint_eq(l.count, 1);
	rt_violation_list_free(&l);
}
END_TEST

START_TEST(default_cap_and_growth)
{
	struct rt_violation_list l = { 0 };
	/* Mostly in order, every seventh one a little late: the usual shape. */
	for (uint64_t i = 0; i < 10500; i++)
		add(&l, i % 7 == 3 ? i - 3 : i, "m");
	ck_assert_uint_eq(l.cap, 10000);
	ck_assert_uint_eq(l.count, 10000);
	ck_assert_uint_eq(l.dropped, 500);
	for (size_t i = 1; i < l.count; i++)
		ck_assert_uint_le(l.items[i - 1].frame, l.items[i].frame);
	rt_violation_list_free(&l);
}
END_TEST

Suite *violation_list_suite(void)
{
	Suite *s = suite_create("violation_list");
	TCase *tc = tcase_create("list");
	tcase_add_test(tc, keeps_frame_order_and_arrival_order_within_a_frame);
	tcase_add_test(tc, copies_the_message);
	tcase_add_test(tc, full_list_keeps_the_earliest_frames);
	tcase_add_test(tc, default_cap_and_growth);
	suite_add_tcase(s, tc);
	return s;
}
