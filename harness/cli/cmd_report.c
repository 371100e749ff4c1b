/* SPDX-License-Identifier: MIT */
/* rocetest report: a results file (rocetest/run_results.h) as the reports of a conformance run. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "rocetest/run_report.h"
#include "rocetest/run_results.h"

static const char report_help[] =
	"usage: rocetest report --results FILE --report DIR [--title T] [--started TIME] [--wall-s S]\n"
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
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 every test passed; 1 a test failed; 2 usage error, or a results\n"
	"file that cannot be read or a report that cannot be written.\n";

struct report_opts {
	const char *results, *report, *title, *started;
	double wall_s;
};

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "results", required_argument, NULL, 'r' }, { "report", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },   { "started", required_argument, NULL, 's' },
		{ "wall-s", required_argument, NULL, 'w' },  { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
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

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .wall_s = -1 };
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
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
