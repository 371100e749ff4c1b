/* SPDX-License-Identifier: MIT */
/*
 * rocetest report: a results file (rocetest/run_results.h) as the reports of
 * a conformance run, or the shards of one run (rocetest/run_read.h) joined.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "rocetest/run_report.h"
#include "rocetest/run_read.h"
#include "rocetest/run_results.h"

static const char report_help[] =
	"usage: rocetest report --results FILE --report DIR [--title T] [--started TIME] [--wall-s S]\n"
	"       rocetest report --merge --report DIR SHARD_DIR...\n"
	"\n"
	"Writes the reports of a conformance run (summary.json, junit.xml, index.html)\n"
	"for tests another tool ran and measured, such as the interop lab's results.tsv.\n"
	"FILE has one test a line, seven tab-separated fields:\n"
	"\n"
	"  SUITE NAME pass|fail WALL_S CAPTURE FIGURES TEXT\n"
	"\n"
	"CAPTURE is relative to DIR (\"-\": none); FIGURES \"-\" or KEY=VALUE words: op\n"
	"(SEND, SEND_IMM, WRITE, WRITE_IMM), size, gbps (needs op and size), messages,\n"
	"bytes, cq_errors (completion errors; a passed test has none); TEXT what was\n"
	"measured, or why the test failed. Empty lines and lines starting with # are\n"
	"skipped. A line that breaks these rules is an error naming the file and line.\n"
	"\n"
	"  --results FILE   the results (\"-\": standard input)\n"
	"  --report DIR     where the reports go (created if missing; its parent must exist)\n"
	"  --title T        what was tested, the reports' device line (default: the\n"
	"                   results file's name)\n"
	"  --started TIME   when the tests started, UTC ISO 8601 (default: now)\n"
	"  --wall-s S       the run's wall time (default: the tests' times added up)\n"
	"  --merge          join the report directories of the shards of one run\n"
	"                   (rocetest run --shard I/N ... --report SHARD_DIR, every I of\n"
	"                   one N, same device, build and seed) into DIR: one\n"
	"                   summary.json, junit.xml and index.html with every test in the\n"
	"                   unsharded run's order, and each shard's tests/ files copied\n"
	"                   beside them; rocetest gate judges DIR as the whole run\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 every test passed; 1 a test failed; 2 usage error, or a results\n"
	"file or shard that cannot be read, shards that are not one whole run, or a\n"
	"report that cannot be written.\n";

struct report_opts {
	const char *results, *report, *title, *started;
	double wall_s;
	bool merge;
	char **shards;	/* --merge: the shards' directories */
	int n_shards;
};

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'r' }, { "report", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },   { "started", required_argument, NULL, 's' },
		{ "wall-s", required_argument, NULL, 'w' },  { "help", no_argument, NULL, 'h' },
		{ "merge", no_argument, NULL, 'm' },	     { NULL, 0, NULL, 0 },
	};
	int c;
	char *end;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o->results = optarg; break;
		case 'o': o->report = optarg; break;
		case 't': o->title = optarg; break;
		case 's': o->started = optarg; break;
		case 'm': o->merge = true; break;
		case 'w':
			o->wall_s = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(o->wall_s) || o->wall_s < 0)
				return cli_usage_error("report", "--wall-s '%s' is not a number of seconds >= 0", optarg);
			break;
		case 'h': fputs(report_help, stdout); return -1;
		case ':': return cli_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->merge) {
		if (o->results || o->title || o->started || o->wall_s >= 0)
			return cli_usage_error("report", "--merge takes the shards' directories, not --results, --title, "
					       "--started or --wall-s (they come from the shards)");
		if (!o->report || optind == argc)
			return cli_usage_error("report", "--merge needs --report DIR and the shards' directories");
		o->shards = argv + optind;
		o->n_shards = argc - optind;
		/* Writing into a shard would truncate its files while they are copied. */
		char out[PATH_MAX], shard[PATH_MAX];
		for (int i = 0; i < o->n_shards && realpath(o->report, out); i++)
			if (realpath(o->shards[i], shard) && !strcmp(out, shard))
				return cli_usage_error("report", "--report %s is shard %s itself: join the shards into a "
						       "directory of its own", o->report, o->shards[i]);
		return 0;
	}
	if (optind < argc)
		return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (!o->results || !o->report)
		return cli_usage_error("report", "--results and --report are both needed");
	return 0;
}

static int read_results(const char *path, struct rt_run_results *r)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	if (!f) {
		cli_error("cannot read the results %s: %s", path, strerror(errno));
		return -1;
	}
	struct rt_error err;
	int rc = rt_run_results_read(r, f, is_stdin ? "standard input" : path, &err);
	if (!is_stdin)
		fclose(f);
	if (rc)
		cli_error("%s", err.msg);
	return rc;
}

static int write_json(const void *ctx, FILE *out)
{
	return rt_run_report_json(ctx, out);
}

static int write_junit(const void *ctx, FILE *out)
{
	return rt_run_report_junit(ctx, out);
}

static int write_html(const void *ctx, FILE *out)
{
	return rt_run_report_html(ctx, out);
}

static int write_reports(const char *dir, const struct rt_run_summary *s)
{
	static const struct {
		const char *what, *file;
		int (*write)(const void *ctx, FILE *out);
	} reports[] = { { "JSON", "summary.json", write_json },
			{ "JUnit", "junit.xml", write_junit },
			{ "HTML", "index.html", write_html } };
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot create the report directory %s: %s", dir, strerror(errno));
		return -1;
	}
	char path[4200];
	for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, reports[i].file);
		if (cli_write_report(reports[i].what, path, reports[i].write, s))
			return -1;
	}
	return 0;
}

static void fill_summary(struct rt_run_summary *s, const struct report_opts *o, const struct rt_run_results *r)
{
	memset(s, 0, sizeof *s);
	snprintf(s->dut, sizeof s->dut, "%s", o->title ? o->title : o->results);
	if (o->started) {
		snprintf(s->started, sizeof s->started, "%s", o->started);
	} else {
		time_t now = time(NULL);
		strftime(s->started, sizeof s->started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	}
	s->tests = r->tests;
	s->n_tests = r->n_tests;
	s->wall_s = o->wall_s >= 0 ? o->wall_s : r->wall_s;
	s->cycles_per_s = NAN;
	s->clk_hz = NAN;
	s->line_gbps = NAN;
}

/* Copies every file of src (a shard's tests/) into dst. */
static int copy_dir(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	if (!d)
		return errno == ENOENT ? 0 : (cli_error("cannot read %s: %s", src, strerror(errno)), -1);
	if (mkdir(dst, 0777) && errno != EEXIST) {
		cli_error("cannot create %s: %s", dst, strerror(errno));
		closedir(d);
		return -1;
	}
	int rc = 0;
	char from[4608], to[4608], buf[65536];	/* a directory of up to 4200 bytes and a name of 255 */
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof from, "%s/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
		FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
		size_t n;
		while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				break;
		if (!in || !out || ferror(in) || fclose(out)) {
			cli_error("cannot copy %s to %s: %s", from, to, strerror(errno));
			rc = -1;
		}
		if (in)
			fclose(in);
	}
	closedir(d);
	return rc;
}

/* --merge: the shards read, joined, reported; their tests/ files copied. */
static int merge_shards(const struct report_opts *o)
{
	size_t n = (size_t)o->n_shards;
	struct rt_run_read *shards = calloc(n, sizeof *shards), whole;
	char path[4200], tests[4200];
	struct rt_error err;
	int rc = shards ? RT_EXIT_OK : RT_EXIT_INPUT;
	size_t read = 0;
	for (; !rc && read < n; read++) {
		snprintf(path, sizeof path, "%s/summary.json", o->shards[read]);
		if (rt_run_read_summary(&shards[read], path, &err)) {
			cli_error("%s", err.msg);
			rc = RT_EXIT_INPUT;
		}
	}
	if (!rc && rt_run_merge(&whole, shards, n, (const char *const *)o->shards, &err)) {
		cli_error("%s", err.msg);
		rc = RT_EXIT_INPUT;
	}
	for (size_t i = 0; i < read; i++)
		rt_run_read_free(&shards[i]);
	free(shards);
	if (rc)
		return rc;
	size_t failures = 0;
	for (size_t i = 0; i < whole.sum.n_tests; i++)
		failures += rt_run_failed(&whole.tests[i]);
	rc = failures ? RT_EXIT_VIOLATIONS : RT_EXIT_OK;
	if (write_reports(o->report, &whole.sum)) {
		rc = RT_EXIT_INPUT;
	} else {
		snprintf(tests, sizeof tests, "%s/tests", o->report);
		for (int i = 0; i < o->n_shards && rc != RT_EXIT_INPUT; i++) {
			snprintf(path, sizeof path, "%s/tests", o->shards[i]);
			if (copy_dir(path, tests))
				rc = RT_EXIT_INPUT;
		}
	}
	if (rc != RT_EXIT_INPUT)
		printf("rocetest report: %d shards joined: %zu tests, %zu failed; %s/summary.json, junit.xml, index.html\n",
		       o->n_shards, whole.sum.n_tests, failures, o->report);
	rt_run_read_free(&whole);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .wall_s = -1 };
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
	if (o.merge)
		return merge_shards(&o);
	struct rt_run_results r;
	if (read_results(o.results, &r))
		return RT_EXIT_INPUT;
	if (!r.n_tests) {
		cli_error("%s holds no test: nothing to report", o.results);
		rt_run_results_free(&r);
		return RT_EXIT_INPUT;
	}
	struct rt_run_summary s;
	fill_summary(&s, &o, &r);
	rc = r.failures ? RT_EXIT_VIOLATIONS : RT_EXIT_OK;
	if (write_reports(o.report, &s))
		rc = RT_EXIT_INPUT;
	else
		printf("rocetest report: %zu tests, %zu failed; %s/summary.json, junit.xml, index.html\n", r.n_tests,
		       r.failures, o.report);
	rt_run_results_free(&r);
	return rc;
}
