/* SPDX-License-Identifier: MIT */
/*
 * The results file of `rocetest report` (harness/lib/run/run_results.c): a
 * good file read into run results field by field, and every kind of bad
 * line refused with an error naming the file, the line and the field.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/run_results.h"
#include "suites.h"

/* Reads text (len bytes) as the file "r.tsv"; the reader's return. */
static int read_text(const char *text, size_t len, struct rt_run_results *r, struct rt_error *err)
{
	FILE *f = fmemopen((void *)text, len, "r");
	ck_assert_ptr_nonnull(f);
	int rc = rt_run_results_read(r, f, "r.tsv", err);
	fclose(f);
	return rc;
}

static const char good[] =
	"# suite name verdict wall capture figures text\n"
	"\n"
	"rxe\twrite-bw\tpass\t8.0\tcaptures/write-bw.pcap\top=WRITE size=65536 messages=200 bytes=13107200 gbps=0.16"
	"\tib_write_bw -s 65536 -n 200\r\n"
	"board\tsend\tfail\t6.5\t-\top=send size=64 messages=1990 cq_errors=10\trocetest peer exit 1: 10 completion errors\n"
	"board\tsetup\tpass\t0.5\t-\t-\t\n";

START_TEST(good_file)
{
	struct rt_run_results r;
	struct rt_error err = { "" };
	ck_assert_msg(read_text(good, strlen(good), &r, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(r.n_tests, 3);
	ck_assert_uint_eq(r.failures, 1);
	ck_assert_double_eq_tol(r.wall_s, 15.0, 1e-9);

	const struct rt_run_result *w = &r.tests[0];
	ck_assert_str_eq(w->suite, "rxe");
	ck_assert_str_eq(w->name, "write-bw");
	ck_assert(w->passed);
	ck_assert_str_eq(w->failure, "");
	ck_assert_double_eq_tol(w->wall_s, 8.0, 1e-9);
	ck_assert_str_eq(w->pcap, "captures/write-bw.pcap");
	ck_assert(w->has_goodput);
	ck_assert_uint_eq(w->opcode, RT_DUT_WRITE);
	ck_assert_uint_eq(w->msg_size, 65536);
	ck_assert_double_eq_tol(w->goodput_gbps, 0.16, 1e-12);
	ck_assert_uint_eq(w->wrs, 200);
	ck_assert_uint_eq(w->completions, 200);
	ck_assert_uint_eq(w->payload_bytes, 13107200);
	ck_assert_str_eq(w->description, "ib_write_bw -s 65536 -n 200");

	const struct rt_run_result *s = &r.tests[1];
	ck_assert(!s->passed);
	ck_assert_str_eq(s->pcap, "");
	ck_assert(!s->has_goodput);
	ck_assert_uint_eq(s->opcode, RT_DUT_SEND);
	ck_assert_str_eq(s->failure, "rocetest peer exit 1: 10 completion errors");
	ck_assert_str_eq(s->description, "rocetest peer exit 1: 10 completion errors; 10 completion errors");

	const struct rt_run_result *u = &r.tests[2];
	ck_assert(u->passed);
	ck_assert_str_eq(u->description, "");
	ck_assert_uint_eq(u->wrs, 0);
	rt_run_results_free(&r);
	ck_assert_ptr_null(r.tests);
}
END_TEST

/* A long TEXT: the failure keeps it whole, the description is cut with "..." before the error count. */
START_TEST(long_text)
{
	char text[2048], line[1100];
	memset(line, 'x', 1000);
	line[1000] = '\0';
	int n = snprintf(text, sizeof text, "a\tb\tfail\t1\t-\tcq_errors=3\t%s\n", line);
	struct rt_run_results r;
	struct rt_error err;
	ck_assert_msg(read_text(text, (size_t)n, &r, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(strlen(r.tests[0].failure), 1000);
	const char *d = r.tests[0].description;
	ck_assert_uint_eq(strlen(d), sizeof r.tests[0].description - 1);
	ck_assert_ptr_nonnull(strstr(d, "xxx...; 3 completion errors"));
	ck_assert_str_eq(d + strlen(d) - strlen("...; 3 completion errors"), "...; 3 completion errors");
	rt_run_results_free(&r);
}
END_TEST

/* Each bad line as line 3 of a file, after a comment and a good line; what the error must say. */
static const struct {
	const char *line, *error;
} bad[] = {
	{ "a\tb\tpass\t1\t-\t-", "6 tab-separated fields, expected 7" },
	{ "a\tb\tpass\t1\t-\t-\tt\textra", "8 tab-separated fields, expected 7" },
	{ "a b c", "1 tab-separated fields" },
	{ "\tb\tpass\t1\t-\t-\tt", "SUITE is empty" },
	{ "a\tb\tpass\t1\t\t-\tt", "CAPTURE is empty" },
	{ "r x\tb\tpass\t1\t-\t-\tt", "SUITE 'r x' is not 1..31 characters" },
	{ "a\tb/c\tpass\t1\t-\t-\tt", "NAME 'b/c' is not" },
	{ "a\tbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\tpass\t1\t-\t-\tt", "NAME 'bbbb" },
	{ "a\tb\tok\t1\t-\t-\tt", "VERDICT 'ok' is not pass or fail" },
	{ "a\tb\tpass\t-1\t-\t-\tt", "WALL_S '-1' is not a finite number" },
	{ "a\tb\tpass\tinf\t-\t-\tt", "WALL_S 'inf'" },
	{ "a\tb\tpass\t1s\t-\t-\tt", "WALL_S '1s'" },
	{ "a\tb\tpass\t1\t-\tgbps=1\tt", "gbps needs op and size" },
	{ "a\tb\tpass\t1\t-\tgbps=1 op=WRITE\tt", "gbps needs op and size" },
	{ "a\tb\tpass\t1\t-\tspeed=1\tt", "unknown key 'speed'" },
	{ "a\tb\tpass\t1\t-\tsize=1 size=2\tt", "size given twice" },
	{ "a\tb\tpass\t1\t-\top=READ\tt", "op=READ is not SEND, SEND_IMM, WRITE or WRITE_IMM" },
	{ "a\tb\tpass\t1\t-\tmessages=-1\tt", "messages=-1 is not a whole number" },
	{ "a\tb\tpass\t1\t-\tmessages=1.5\tt", "messages=1.5 is not a whole number" },
	{ "a\tb\tpass\t1\t-\tbytes=\tt", "bytes= is not a whole number" },
	{ "a\tb\tpass\t1\t-\tgbps=nan op=SEND size=1\tt", "gbps=nan is not a finite number" },
	{ "a\tb\tpass\t1\t-\tsize=5000000000\tt", "size=5000000000 is over 4 GiB" },
	{ "a\tb\tpass\t1\t-\tsize\tt", "'size' is not KEY=VALUE" },
	{ "a\tb\tfail\t1\t-\t-\t", "TEXT is empty: a failed test says why" },
	{ "a\tb\tpass\t1\t-\tcq_errors=2\tt", "a passed test with cq_errors=2" },
	{ "rxe\tok\tpass\t1\t-\t-\tagain", "rxe/ok is there already (test 1)" },
};

START_TEST(bad_line)
{
	char text[512];
	int n = snprintf(text, sizeof text, "# results\nrxe\tok\tpass\t1\t-\t-\tfine\n%s\n", bad[_i].line);
	struct rt_run_results r;
	struct rt_error err = { "" };
	ck_assert_int_eq(read_text(text, (size_t)n, &r, &err), -1);
	ck_assert_msg(strncmp(err.msg, "r.tsv:3: ", 9) == 0, "'%s': the error '%s' names no file and line", bad[_i].line,
		      err.msg);
	ck_assert_msg(strstr(err.msg, bad[_i].error), "'%s': the error '%s' lacks '%s'", bad[_i].line, err.msg,
		      bad[_i].error);
	ck_assert_uint_eq(r.n_tests, 0);
	ck_assert_ptr_null(r.tests);
}
END_TEST

/* Lengths at the limits: CAPTURE of 128 characters and TEXT of 1024 do not fit; a NUL byte is refused. */
START_TEST(limits)
{
	char text[2200], cap[129], words[1025];
	memset(cap, 'c', 128);
	cap[128] = '\0';
	memset(words, 'w', 1024);
	words[1024] = '\0';
	struct rt_run_results r;
	struct rt_error err;
	int n = snprintf(text, sizeof text, "a\tb\tpass\t1\t%s\t-\tt\n", cap);
	ck_assert_int_eq(read_text(text, (size_t)n, &r, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "r.tsv:1: CAPTURE is longer than 127 characters"));
	n = snprintf(text, sizeof text, "a\tb\tpass\t1\t%.127s\t-\t%.1023s\n", cap, words);
	ck_assert_msg(read_text(text, (size_t)n, &r, &err) == 0, "%s", err.msg);
	rt_run_results_free(&r);
	n = snprintf(text, sizeof text, "a\tb\tpass\t1\t-\t-\t%s\n", words);
	ck_assert_int_eq(read_text(text, (size_t)n, &r, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "r.tsv:1: TEXT is 1024 characters, at most 1023"));
	static const char nul[] = "a\tb\tpass\t1\t-\t-\tt\0x\n";
	ck_assert_int_eq(read_text(nul, sizeof nul - 1, &r, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "r.tsv:1: a NUL byte"));
}
END_TEST

START_TEST(empty_file)
{
	struct rt_run_results r;
	struct rt_error err;
	static const char text[] = "# nothing ran\n\n";
	ck_assert_int_eq(read_text(text, sizeof text - 1, &r, &err), 0);
	ck_assert_uint_eq(r.n_tests, 0);
	rt_run_results_free(&r);
}
END_TEST

Suite *run_results_suite(void)
{
	Suite *s = suite_create("run_results");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, good_file);
	tcase_add_test(tc, long_text);
	tcase_add_loop_test(tc, bad_line, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, limits);
	tcase_add_test(tc, empty_file);
	suite_add_tcase(s, tc);
	return s;
}
