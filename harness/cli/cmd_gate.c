/* SPDX-License-Identifier: MIT */
/* rocetest gate: a candidate result against a baseline; exit 1 when anything regressed. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rocetest/gate.h"
#include "rocetest/gate_report.h"

static const char gate_help[] =
	"usage: rocetest gate [--xfail F] [--tolerances F] [--strict-xfail] [--json F] [--junit F] [--quiet] BASELINE CANDIDATE\n"
	"\n"
	"Compares two results of the same work and fails when the candidate is worse.\n"
	"A result is a report directory of `rocetest run` (or its summary.json), or a\n"
	"`rocetest check --json` report; both must be of one kind. It regressed when a\n"
	"test, or a capture's rule, that passed in the baseline fails (or is new and\n"
	"fails), when one the baseline has is missing, or when a metric is worse by more\n"
	"than its tolerance: goodput down more than 1 %, retransmissions up, simulated\n"
	"cycles per message up more than 2 %, checker violations (of a test, or of a\n"
	"rule in a capture) up.\n"
	"\n"
	"Prints what changed, worst first, one line each with the report page of the\n"
	"test, then the verdict. Tests are named SUITE/NAME, rules FILE:RULE, metrics\n"
	"METRIC:ITEM (as in the xfail list).\n"
	"\n"
	"  --xfail F        known failures, one a line: ID REASON (default: xfail.txt\n"
	"                   in BASELINE when it is a directory and has one). A listed\n"
	"                   failure does not fail the gate; a listed one that passes,\n"
	"                   or names nothing, is reported (XPASS, STALE)\n"
	"  --tolerances F   one a line: METRIC [ITEM-GLOB] TOLERANCE, TOLERANCE \"N%\" of\n"
	"                   the baseline's value or an absolute N; METRIC goodput,\n"
	"                   retransmissions, cycles_per_message or violations (default:\n"
	"                   tolerances.txt in BASELINE when it has one)\n"
	"  --strict-xfail   an XPASS or STALE entry fails the gate too\n"
	"  --json F         the comparison as JSON (\"-\": standard output)\n"
	"  --junit F        JUnit XML: a test case per test or rule, failed when it regressed\n"
	"  -q, --quiet      print only what fails the gate, and the verdict\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 nothing regressed; 1 something did; 2 usage error or a result\n"
	"that cannot be read.\n";

struct gate_opts {
	const char *xfail, *tolerances, *json, *junit;
	bool strict, quiet;
};

static int parse_args(int argc, char **argv, struct gate_opts *o)
{
	static const struct option longopts[] = {
		{ "xfail", required_argument, NULL, 'x' },	{ "tolerances", required_argument, NULL, 't' },
		{ "strict-xfail", no_argument, NULL, 's' },	{ "json", required_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'u' },	{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'x': o->xfail = optarg; break;
		case 't': o->tolerances = optarg; break;
		case 's': o->strict = true; break;
		case 'j': o->json = optarg; break;
		case 'u': o->junit = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': fputs(gate_help, stdout); return -1;
		case ':': return cli_usage_error("gate", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("gate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("gate", "expected BASELINE and CANDIDATE, got %d argument%s", argc - optind,
				       argc - optind == 1 ? "" : "s");
	if (o->json && o->junit && strcmp(o->json, "-") && !strcmp(o->json, o->junit))
		return cli_usage_error("gate", "--json and --junit name the same file %s", o->json);
	return 0;
}

/* The baseline directory's own file name, when the option did not give one and it is there. */
static const char *beside_baseline(const char *given, const char *baseline, const char *name, char *buf, size_t size)
{
	struct stat st;
	if (given)
		return given;
	if (stat(baseline, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	snprintf(buf, size, "%s/%s", baseline, name);
	return access(buf, F_OK) ? NULL : buf;
}

static int load_policy(struct rt_gate_policy *p, const struct gate_opts *o, const char *baseline)
{
	char xbuf[RT_GATE_PATH + 16], tbuf[RT_GATE_PATH + 16];
	const char *xfail = beside_baseline(o->xfail, baseline, "xfail.txt", xbuf, sizeof xbuf);
	const char *tol = beside_baseline(o->tolerances, baseline, "tolerances.txt", tbuf, sizeof tbuf);
	struct rt_error err;
	rt_gate_policy_init(p);
	p->strict_xfail = o->strict;
	if ((xfail && rt_gate_read_xfail(p, xfail, &err)) || (tol && rt_gate_read_tolerances(p, tol, &err))) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

static int write_json(const void *ctx, FILE *out)
{
	return rt_gate_report_json(ctx, out);
}

static int write_junit(const void *ctx, FILE *out)
{
	return rt_gate_report_junit(ctx, out);
}

/* Compares the loaded results, prints and writes the reports; the exit status. */
static int gate(const struct gate_opts *o, const struct rt_gate_result *base, const struct rt_gate_result *cand,
		const struct rt_gate_policy *policy)
{
	struct rt_gate_outcome out;
	struct rt_error err;
	if (rt_gate_compare(base, cand, policy, &out, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	int rc = rt_gate_passed(&out) ? RT_EXIT_OK : RT_EXIT_VIOLATIONS;
	bool json_stdout = o->json && !strcmp(o->json, "-"), junit_stdout = o->junit && !strcmp(o->junit, "-");
	/* A report on standard output replaces the table there; the verdict still counts. */
	if (!json_stdout && !junit_stdout && rt_gate_report_text(&out, o->quiet, stdout))
		rc = RT_EXIT_INPUT;
	if (o->json && cli_write_report("JSON", o->json, write_json, &out))
		rc = RT_EXIT_INPUT;
	if (o->junit && cli_write_report("JUnit", o->junit, write_junit, &out))
		rc = RT_EXIT_INPUT;
	rt_gate_outcome_free(&out);
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_opts o = { 0 };
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
	const char *base_path = argv[optind], *cand_path = argv[optind + 1];
	struct rt_gate_policy policy;
	struct rt_gate_result base, cand;
	struct rt_error err;
	if (load_policy(&policy, &o, base_path)) {
		rt_gate_policy_free(&policy);
		return RT_EXIT_INPUT;
	}
	if (rt_gate_load(&base, base_path, &err)) {
		cli_error("baseline %s", err.msg);
		rt_gate_policy_free(&policy);
		return RT_EXIT_INPUT;
	}
	if (rt_gate_load(&cand, cand_path, &err)) {
		cli_error("candidate %s", err.msg);
		rc = RT_EXIT_INPUT;
	} else {
		rc = gate(&o, &base, &cand, &policy);
		rt_gate_result_free(&cand);
	}
	rt_gate_result_free(&base);
	rt_gate_policy_free(&policy);
	return rc;
}
