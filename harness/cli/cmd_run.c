/* SPDX-License-Identifier: MIT */
/* rocetest run: the conformance suites against a device (the Verilator model of dut/). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dut_load.h"
#include "run_iface.h"
#include "rocetest/report.h"
#include "rocetest/run.h"
#include "rocetest/run_report.h"

static const char run_help[] =
	"usage: rocetest run --dut sim [--suite NAME]... [--seed N] [--report DIR] [--width W] [--sim-lib SO] [--host-delay-us X] [--shard I/N]\n"
	"       rocetest run --dut iface:NAME --board-control PATH --dut-ip A [OPTION]... [--suite NAME]... [--seed N] [--report DIR]\n"
	"       rocetest run --list\n"
	"\n"
	"Runs conformance suites against a device under test. The harness plays the\n"
	"remote host: ARP, the CM exchange of cm-frame.md, then one reference-model QP\n"
	"(the responder) per device QP, joined to the device by a simulated 100 Gb/s\n"
	"link that injects the test's faults. Every test asserts that its capture passes\n"
	"the conformance checker, that the peer's memory holds exactly what the device\n"
	"sent, and that every completion carries the expected status.\n"
	"\n"
	"  --dut sim         the Verilator model of the included FPGA endpoint (dut/),\n"
	"                    built by `make dut-sim`\n"
	"%s"
	"  --suite NAME      a suite to run (repeatable; default all): quick, all,\n"
	"                    functional (all but throughput), or one of those --list\n"
	"                    shows\n"
	"  --skip SUITE/NAME leave this test out (repeatable)\n"
	"  --shard I/N       run only shard I of N of the selected tests (the 1st, N+1st,\n"
	"                    ... for I=1): N machines each run one, and rocetest report\n"
	"                    --merge joins their report directories into the run's\n"
	"  --seed N          memory contents, random lengths and addresses (default 1);\n"
	"                    a run is the same for the same seed\n"
	"  --report DIR      write DIR/summary.json, DIR/junit.xml, DIR/index.html (with\n"
	"                    the goodput plot) and per test DIR/tests/SUITE-NAME.pcap and\n"
	"                    .html (its check report with the ladder diagrams), and the\n"
	"                    work it ran as a scenario, DIR/tests/SUITE-NAME.scn (one per QP,\n"
	"                    SUITE-NAME.qpN.scn, for tests of several QPs): `rocetest gen` makes\n"
	"                    its twin capture from the reference model, for `rocetest diff`;\n"
	"                    what a test did that a scenario cannot say is in the file and\n"
	"                    printed after the test (\"twin leaves out\")\n"
	"  --width W         the model's DATA_WIDTH (default 512)\n"
	"  --sim-lib SO      the model to load (default: build/dut/wW/libroce_dut_sim.so\n"
	"                    beside this rocetest)\n"
	"  --host-delay-us X a slow host: every turn of the harness takes X us more of\n"
	"                    the device's time, as on a board whose clock runs while\n"
	"                    the harness works; shows which tests a host that slow\n"
	"                    would leave untimed (default 0)\n"
	"  --list            the suites and their tests, each with its shortest timer\n"
	"  -q, --quiet       only failures and the summary line\n"
	"  -h, --help        this text\n"
	"\n"
	"A test's verdict rests on timers (the device's local ACK timeout, the peer's\n"
	"RNR timer, a goodput test's round trip). The harness may take a tenth of the\n"
	"shortest to answer the device, in the device's time; a test that passed every\n"
	"check while the harness took longer (a board, whose clock does not wait for\n"
	"the harness) is UNTIMED: it timed the harness as much as the device, so it is\n"
	"neither passed nor failed (JUnit: skipped; summary.json: \"untimed\": true).\n"
	"\n"
	"Exit status: 0 no test failed (untimed ones are counted apart), 1 a test\n"
	"failed, 2 usage error, or the device or the report could not be opened or\n"
	"written.\n";

#define MAX_SUITES 16

struct run_cli {
	const char *suites[MAX_SUITES];
	unsigned n_suites;
	const char *skips[MAX_SUITES];	/* --skip SUITE/NAME */
	unsigned n_skips;
	uint64_t seed;
	const char *report;
	unsigned width;
	const char *sim_lib;
	bool quiet;
	bool list;
	uint32_t host_delay_ns;
	unsigned shard, shards;	/* --shard I/N; 0 of 0: every selected test */
	struct run_iface iface;
	/* the test being run */
	char tests_dir[4096];
	struct rt_violation_list violations;
	const char *current;
	bool progress;
	struct timespec since;
	bool write_failed;	/* a per-test report could not be written */
};

static bool suite_known(const char *name)
{
	size_t n;
	const char *const *names = rt_run_suite_names(&n);
	if (!strcmp(name, "all") || !strcmp(name, "quick") || !strcmp(name, "functional"))
		return true;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Whether spec is SUITE/NAME. */
static bool is_test(const struct rt_run_spec *s, const char *id)
{
	size_t n = strlen(s->suite);
	return !strncmp(id, s->suite, n) && id[n] == '/' && !strcmp(id + n + 1, s->name);
}

static bool test_known(const char *id)
{
	size_t n;
	const struct rt_run_spec *specs = rt_run_specs(&n);
	for (size_t i = 0; i < n; i++)
		if (is_test(&specs[i], id))
			return true;
	return false;
}

static bool selected(const struct run_cli *o, const struct rt_run_spec *s)
{
	for (unsigned i = 0; i < o->n_skips; i++)
		if (is_test(s, o->skips[i]))
			return false;
	if (!o->n_suites)
		return true;
	for (unsigned i = 0; i < o->n_suites; i++)
		if (rt_run_in_suite(s, o->suites[i]))
			return true;
	return false;
}

/* "I/N" with 1 <= I <= N <= 1024. */
static bool parse_shard(const char *s, unsigned *i, unsigned *n)
{
	char num[16];
	const char *slash = strchr(s, '/');
	uint64_t a, b;
	if (!slash || (size_t)(slash - s) >= sizeof num)
		return false;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = 0;
	if (!cli_parse_uint(num, 1024, &a) || !cli_parse_uint(slash + 1, 1024, &b) || !a || a > b)
		return false;
	*i = (unsigned)a;
	*n = (unsigned)b;
	return true;
}

static void list_tests(void)
{
	size_t n, ns;
	const struct rt_run_spec *specs = rt_run_specs(&n);
	const char *const *names = rt_run_suite_names(&ns);
	for (size_t k = 0; k < ns; k++) {
		printf("%s\n", names[k]);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(specs[i].suite, names[k]))
				printf("  %-22s%s %s (shortest timer %.2f us)\n", specs[i].name,
				       specs[i].quick ? " [quick]" : "", specs[i].description,
				       (double)rt_run_timer_ns(&specs[i]) / 1000);
	}
}

static int parse(int argc, char **argv, struct run_cli *o)
{
	static const struct option longopts[] = {
		{ "dut", required_argument, NULL, 'd' },   { "suite", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },  { "report", required_argument, NULL, 'r' },
		{ "width", required_argument, NULL, 'w' }, { "sim-lib", required_argument, NULL, 'L' },
		{ "list", no_argument, NULL, 'l' },	   { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },	   { "skip", required_argument, NULL, 'K' },
		{ "host-delay-us", required_argument, NULL, 'H' },
		{ "shard", required_argument, NULL, 'P' },
		RUN_IFACE_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	bool have_dut = false;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			rc = run_iface_dut(&o->iface, optarg);
			if (rc == 2)
				return RT_EXIT_INPUT;
			if (!rc && strcmp(optarg, "sim"))
				return cli_usage_error("run", "--dut must be 'sim' (the Verilator model of dut/) or "
						       "'iface:NAME' (a board behind interface NAME), not '%s'", optarg);
			have_dut = true;
			break;
		case 's':
			if (!suite_known(optarg))
				return cli_usage_error("run", "no suite '%s' (see rocetest run --list)", optarg);
			if (o->n_suites == MAX_SUITES)
				return cli_usage_error("run", "more than %d --suite options", MAX_SUITES);
			o->suites[o->n_suites++] = optarg;
			break;
		case 'K':
			if (!test_known(optarg))
				return cli_usage_error("run", "--skip: no test '%s' (SUITE/NAME, as rocetest run --list shows)",
						       optarg);
			if (o->n_skips == MAX_SUITES)
				return cli_usage_error("run", "more than %d --skip options", MAX_SUITES);
			o->skips[o->n_skips++] = optarg;
			break;
		case 'S':
			if (!cli_parse_uint(optarg, UINT64_MAX, &o->seed))
				return cli_usage_error("run", "--seed needs a whole number, not '%s'", optarg);
			break;
		case 'r':
			o->report = optarg;
			break;
		case 'w':
			if (!cli_parse_width(optarg, &o->width))
				return cli_usage_error("run", "--width must be " CLI_WIDTHS ", not '%s'", optarg);
			break;
		case 'L':
			o->sim_lib = optarg;
			break;
		case 'l':
			o->list = true;
			break;
		case 'H': {
			double us;
			if (!cli_parse_decimal(optarg, &us) || us > 1e6)
				return cli_usage_error("run", "--host-delay-us needs microseconds from 0 to 1000000, not '%s'",
						       optarg);
			o->host_delay_ns = (uint32_t)(us * 1000 + 0.5);
			break;
		}
		case 'P':
			if (!parse_shard(optarg, &o->shard, &o->shards))
				return cli_usage_error("run", "--shard needs I/N with 1 <= I <= N <= 1024, not '%s'", optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			printf(run_help, run_iface_help);
			exit(RT_EXIT_OK);
		default:
			rc = run_iface_option(&o->iface, c, optarg);
			if (rc >= 0) {
				if (rc)
					return rc;
				break;
			}
			return cli_usage_error("run", "unknown option");
		}
	}
	if (optind < argc)
		return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (!o->list && !have_dut)
		return cli_usage_error("run", "--dut is required (--dut sim: the Verilator model of dut/)");
	return run_iface_finish(&o->iface, o->width != 512 || o->sim_lib);
}

static int make_dir(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* ---- Callbacks ----------------------------------------------------- */

static void on_violation(void *ctx, const struct rt_violation *v)
{
	struct run_cli *o = ctx;
	rt_violation_list_add(&o->violations, v);
}

/* Its check report (ladders included) beside the capture. */
static void on_checked(void *ctx, const struct rt_run_result *r, const struct rt_checker *c)
{
	struct run_cli *o = ctx;
	if (!o->report)
		return;
	char path[4200];
	snprintf(path, sizeof path, "%s/%s-%s.html", o->tests_dir, r->suite, r->name);
	FILE *f = fopen(path, "w");
	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		o->write_failed = true;
		return;
	}
	char pcap[300];
	snprintf(pcap, sizeof pcap, "%s-%s.pcap", r->suite, r->name);
	struct rt_report_file rf = { .file = pcap, .checker = c, .violations = &o->violations, .seconds = r->wall_s };
	if (rt_report_html(&rf, 1, f) | fclose(f)) {
		cli_error("%s: cannot write the report", path);
		o->write_failed = true;
	}
}

static void on_progress(void *ctx, const struct rt_run_spec *spec, double done)
{
	struct run_cli *o = ctx;
	if (!o->progress || cli_elapsed(&o->since) < 1.0)
		return;
	int width = 30, fill = (int)(done * width);
	fprintf(stderr, "\r  %s/%s [%.*s%*s] %3.0f%% ", spec->suite, spec->name, fill,
		"##############################", width - fill, "", done * 100);
}

/* ---- Output -------------------------------------------------------- */

static void print_result(const struct run_cli *o, const struct rt_run_result *r)
{
	if (o->progress)
		fputs("\r\033[K", stderr);
	if (o->quiet && r->passed)
		return;
	printf("%s %s/%s: %u WRs, %u+%u frames, %u retransmissions, %u timeouts, %u NAKs, %u RNR NAKs, "
	       "%.1f us simulated, %.1f s",
	       r->passed ? "PASS" : r->untimed ? "UNTIMED" : "FAIL", r->suite, r->name, r->wrs, r->frames_to_peer,
	       r->frames_to_dut, r->retransmissions, r->timeouts, r->naks, r->rnr_naks, r->sim_us, r->wall_s);
	if (r->has_goodput)
		printf(", goodput %.2f Gb/s (limit %.2f)", r->goodput_gbps, r->limit_gbps);
	printf("\n");
	if (r->twin_gaps[0])
		printf("    twin %s leaves out: %s\n", r->scenario, r->twin_gaps);
	if (!r->passed) {
		const char *p = r->failure;
		while (*p) {
			const char *nl = strchr(p, '\n');
			int len = nl ? (int)(nl - p) : (int)strlen(p);
			printf("    %.*s\n", len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	fflush(stdout);
}

static int write_report(const char *dir, const char *name, const struct rt_run_summary *s,
			int (*writer)(const struct rt_run_summary *, FILE *))
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (writer(s, f) | fclose(f)) {
		cli_error("%s: cannot write the report", path);
		return -1;
	}
	return 0;
}

static int write_reports(const struct run_cli *o, const struct rt_run_summary *s)
{
	if (write_report(o->report, "summary.json", s, rt_run_report_json) ||
	    write_report(o->report, "junit.xml", s, rt_run_report_junit) ||
	    write_report(o->report, "index.html", s, rt_run_report_html))
		return -1;
	return 0;
}

/* A file name of the run's tests/ directory as a path relative to the report directory ("" stays ""). */
static void in_tests_dir(char *name, size_t size)
{
	char rel[256];
	int len = snprintf(rel, sizeof rel, "tests/%s", name);
	if (name[0] && len > 0 && (size_t)len < size && (size_t)len < sizeof rel)
		memcpy(name, rel, (size_t)len + 1);
}

/* Where the twins' scenarios are, and which tests they cannot fully say (each test's line has what). */
static void print_twins(const char *report, const struct rt_run_result *results, size_t n)
{
	size_t gaps = 0;
	for (size_t i = 0; i < n; i++)
		gaps += results[i].twin_gaps[0] != '\0';
	printf("rocetest run: the work of each test as a scenario in %s/tests/*.scn (rocetest gen: its twin); "
	       "%zu of %zu leave something out%s", report, gaps, n, gaps ? ":" : "\n");
	for (size_t i = 0, k = 0; i < n; i++)
		if (results[i].twin_gaps[0])
			printf(" %s/%s%s", results[i].suite, results[i].name, ++k == gaps ? "\n" : ",");
}

/* ---- The run ------------------------------------------------------- */

static int run_tests(struct run_cli *o, struct dut_device *sim, struct rt_run_result *results, size_t *n_results,
		     struct rt_run_summary *sum)
{
	size_t n;
	const struct rt_run_spec *specs = rt_run_specs(&n);
	struct rt_run_options opt = { .seed = o->seed, .addrs = o->iface.on ? &o->iface.addrs : NULL,
				      .dir = o->report ? o->tests_dir : NULL, .ladder_flows = 8,
				      .host_delay_ns = o->host_delay_ns,
				      .on_violation = on_violation, .on_checked = on_checked,
				      .on_progress = on_progress, .ctx = o };
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double test_wall = 0;
	size_t k = 0;	/* the selected tests so far: --shard I/N keeps the k-th when k % N == I - 1 */
	for (size_t i = 0; i < n; i++) {
		if (!selected(o, &specs[i]) || (o->shards && k++ % o->shards != o->shard - 1))
			continue;
		struct rt_run_result *r = &results[(*n_results)++];
		struct rt_error err;
		o->violations.count = 0;
		o->violations.dropped = 0;
		clock_gettime(CLOCK_MONOTONIC, &o->since);
		if (rt_run_test(&sim->ops, &specs[i], &opt, r, &err)) {
			if (o->progress)
				fputs("\r\033[K", stderr);
			cli_error("%s/%s: %s", specs[i].suite, specs[i].name, err.msg);
			return -1;
		}
		if (r->pcap[0]) {
			/* Paths relative to the report directory. */
			in_tests_dir(r->pcap, sizeof r->pcap);
			in_tests_dir(r->scenario, sizeof r->scenario);
			char html[sizeof r->suite + sizeof r->name + 16];
			int len = snprintf(html, sizeof html, "tests/%s-%s.html", r->suite, r->name);
			if (len > 0 && (size_t)len < sizeof r->html)
				memcpy(r->html, html, (size_t)len + 1);
		}
		sum->cycles += r->cycles;
		test_wall += r->wall_s;
		print_result(o, r);
	}
	sum->wall_s = cli_elapsed(&t0);
	sum->cycles_per_s = test_wall > 0 ? (double)sum->cycles / test_wall : 0;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli o = { .seed = 1, .width = 512 };
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	if (o.list) {
		list_tests();
		return RT_EXIT_OK;
	}
	if (o.report) {
		snprintf(o.tests_dir, sizeof o.tests_dir, "%s/tests", o.report);
		if (make_dir(o.tests_dir)) {
			cli_error("cannot create %s: %s", o.tests_dir, strerror(errno));
			return RT_EXIT_INPUT;
		}
	}
	o.violations.cap = 1000;
	o.violations.items = calloc(o.violations.cap, sizeof *o.violations.items);
	size_t n_specs;
	rt_run_specs(&n_specs);
	struct rt_run_result *results = calloc(n_specs, sizeof *results);
	if (!results || !o.violations.items) {
		cli_error("out of memory");
		free(results);
		rt_violation_list_free(&o.violations);
		return RT_EXIT_INPUT;
	}

	struct dut_device sim;
	char msg[1024];
	struct dut_sim_request req = { .width = o.width, .lib = o.sim_lib, .seed = o.seed };
	if (o.iface.on ? run_iface_open(&o.iface, &sim, msg, sizeof msg) : dut_sim_open(&req, &sim, msg, sizeof msg)) {
		cli_error("%s", msg);
		free(results);
		rt_violation_list_free(&o.violations);
		return RT_EXIT_INPUT;
	}
	o.progress = isatty(STDERR_FILENO) && !getenv("ROCETEST_NO_PROGRESS");
	struct rt_run_summary sum = { .seed = o.seed, .clk_hz = sim.ops.info.clk_hz,
				      .line_gbps = sim.ops.info.mac_gbps > 0 ? sim.ops.info.mac_gbps : 100, .pmtu = 4096 };
	sum.shard = o.shard;
	sum.shards = o.shards;
	snprintf(sum.dut, sizeof sum.dut, "%s", sim.ops.info.name);
	snprintf(sum.build_id, sizeof sum.build_id, "%s", sim.ops.info.build_id);
	time_t now = time(NULL);
	strftime(sum.started, sizeof sum.started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (!o.quiet)
		printf("rocetest run: %s, %s, seed %" PRIu64 "\n", sum.dut,
		       sum.build_id[0] ? sum.build_id : "built from unknown sources", o.seed);

	size_t n_results = 0;
	rc = run_tests(&o, &sim, results, &n_results, &sum);
	sum.tests = results;
	sum.n_tests = n_results;
	struct rt_run_live live;
	if (o.iface.on) {
		rt_iface_dut_totals(&sim.ops, &live);
		sum.live = &live;
	}
	size_t failures = 0, untimed = 0;
	for (size_t i = 0; i < n_results; i++) {
		failures += rt_run_failed(&results[i]);
		untimed += results[i].untimed;
	}
	if (!rc && o.report && (write_reports(&o, &sum) || o.write_failed))
		rc = -1;
	if (!rc) {
		printf("rocetest run: %zu tests, %zu failed, ", n_results, failures);
		if (untimed)
			printf("%zu untimed (the harness answered too slowly for their timers), ", untimed);
		printf("seed %" PRIu64 ", %.1f s, %.0f %s/s%s%s\n", o.seed, sum.wall_s, sum.cycles_per_s,
		       o.iface.on ? "ns of the board's time" : "simulated cycles", o.report ? "; report in " : "",
		       o.report ? o.report : "");
		if (sum.live)
			run_iface_report(sum.live);
		if (o.report)
			print_twins(o.report, results, n_results);
	}
	dut_device_close(&sim);
	free(results);
	rt_violation_list_free(&o.violations);
	return rc ? RT_EXIT_INPUT : failures ? RT_EXIT_VIOLATIONS : RT_EXIT_OK;
}
