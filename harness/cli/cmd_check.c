/* SPDX-License-Identifier: MIT */
/* rocetest check: evaluate the rule catalogue on captures; a summary and JSON, JUnit and HTML reports. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rocetest/report.h"
#include "rocetest/capture.h"
#include "rocetest/check.h"
#include "rocetest/checker.h"
#include "rocetest/rules.h"

static const char check_help[] =
	"usage: rocetest check [OPTIONS] FILE...\n"
	"\n"
	"Checks pcap or pcapng captures (\"-\" reads standard input) against the\n"
	"conformance rule catalogue: every packet against the PKT rules, every\n"
	"connection against the SEQ, RSP and REQ rules. Prints per capture a summary\n"
	"(rules passed, failed, not evaluated), notes on flows the capture shows only\n"
	"in part, the first violations by frame and a verdict line.\n"
	"\n"
	"What the endpoints were configured with (rules that need a value the\n"
	"capture does not show are \"not evaluated\" without it, never guessed):\n"
	"  --pmtu N          path MTU: 256, 512, 1024, 2048 or 4096 (default:\n"
	"                    inferred per flow from its First/Middle packets)\n"
	"  --timeout-us X    local ACK timeout in microseconds (decimals allowed),\n"
	"                    for REQ-TIMEOUT\n"
	"  --timeout-max-us X  also fail REQ-TIMEOUT when a timer's retransmission\n"
	"                    comes later than X us after the last request or\n"
	"                    progress (needs --timeout-us; rocetest run uses 2x the\n"
	"                    timeout + 2 us)\n"
	"  --retry-cnt N     retry count 0-7, for REQ-RETRY-LIMIT\n"
	"  --rnr-retry N     RNR retry count 0-7 (7: unlimited), for REQ-RNR-LIMIT\n"
	"\n"
	"Where the capture was taken:\n"
	"  --in-flight-us X  how long a packet may travel between the capture point\n"
	"                    and the endpoint that acts on it (default 50): an answer\n"
	"                    captured up to X us before its request, or a resend up\n"
	"                    to X us after the answer that made it needless, is\n"
	"                    capture order, noted, not an error. A capture inside a VM\n"
	"                    or at a distant mirror port may need milliseconds\n"
	"\n"
	"Which rules:\n"
	"  --rules ID,...    check only these rules (IDs as --list-rules prints them,\n"
	"                    in any case; may be repeated)\n"
	"  --skip ID,...     do not check these rules (may be repeated)\n"
	"  --errors ID,...   count these rules' violations as errors, warnings too\n"
	"                    (rocetest run checks its captures with --errors PKT-PAD-ZERO)\n"
	"  --list-rules      print the rule catalogue (ID, severity, what it needs,\n"
	"                    rule) and exit\n"
	"\n"
	"Reports (\"-\" writes one of them to standard output; the summary then goes\n"
	"to standard error):\n"
	"  --json F          JSON: per capture, every rule's status and the violations\n"
	"  --junit F         JUnit XML for CI: one test case per rule, its violations in\n"
	"                    every flow listed in it (the first 100)\n"
	"  --junit-per-flow  with --junit: one test case per rule and flow instead (a\n"
	"                    capture of thousands of QPs gives 100 000 cases and more)\n"
	"  --html F          one self-contained HTML page with a ladder diagram per\n"
	"                    flow (the first 64 flows)\n"
	"\n"
	"Output and input:\n"
	"  --max-report N    list at most N violations and N flow notes per capture\n"
	"                    (default 20)\n"
	"  -q, --quiet       print only the verdict line\n"
	"  --libpcap         read the captures with libpcap only (classic pcap files\n"
	"                    are otherwise read in place, faster); for cross-checks\n"
	"  -h, --help        this text\n"
	"\n"
	"Exit status: 0 no error-severity violation (warnings allowed); 1 at least one\n"
	"error-severity violation; 2 usage error, an unusable or damaged capture, or a\n"
	"report that could not be written.\n";

/* Where the ladders stop: a page of more flows would not be read. */
#define HTML_LADDER_FLOWS 64

enum report_kind { REPORT_JSON, REPORT_JUNIT, REPORT_HTML, REPORT_KINDS };

static const char *const report_option[REPORT_KINDS] = { "--json", "--junit", "--html" };
static const char *const report_name[REPORT_KINDS] = { "JSON", "JUnit", "HTML" };

struct check_opts {
	struct rt_check_config cfg;
	struct rt_capture_options capture;
	const char *report_path[REPORT_KINDS]; /* NULL: not asked for */
	bool junit_per_flow;
	uint64_t max_report;
	bool quiet;
	bool list_rules;
	/* --rules and --skip, combined once all options are read. */
	bool only_given;
	bool only[RT_RULE_COUNT];
	bool skip[RT_RULE_COUNT];
};

/* One capture being checked. */
struct file_run {
	const char *path;
	struct rt_checker *checker;	/* NULL: the capture could not be opened */
	struct rt_violation_list violations;
	uint64_t errors_by_rule[RT_RULE_COUNT]; /* uncapped: tells FAIL from WARN per rule */
	double seconds;
	bool damaged;		/* reading stopped at a damaged record */
	bool nothing_checked;	/* every RoCE packet cut by the snap length before its BTH */
	char incomplete[sizeof ((struct rt_error *)0)->msg + 64]; /* why, when damaged or nothing_checked */
	uint64_t frames_read;
	bool out_of_memory;	/* a violation could not be kept */
};

/* ---- options ---------------------------------------------------------------- */

/*
 * Marks the rules of a comma-separated ID list in set[]. IDs are matched
 * without regard to case. Returns 0, or the usage error's exit code.
 */
static int parse_rule_list(const char *opt, const char *list, bool set[RT_RULE_COUNT])
{
	char id[64];
	const char *p = list;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (n == 0)
			return cli_usage_error("check", "%s needs rule IDs separated by commas, not '%s'", opt, list);
		int r = -1;
		if (n < sizeof id) {
			for (size_t i = 0; i < n; i++)
				id[i] = (char)toupper((unsigned char)p[i]);
			id[n] = '\0';
			r = rt_rule_find(id);
		}
		if (r < 0)
			return cli_usage_error("check", "%s: unknown rule ID '%.*s' ('rocetest check --list-rules' lists them)",
					       opt, (int)n, p);
		set[r] = true;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

static bool parse_positive(const char *s, double *out)
{
	return cli_parse_decimal(s, out) && *out > 0;
}

/* True when the directory a report would be created in (or the report itself) is writable. */
static bool can_write(const char *path)
{
	if (access(path, F_OK) == 0)
		return access(path, W_OK) == 0;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK | X_OK) == 0;
	if (slash == path)
		return access("/", W_OK | X_OK) == 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	return access(dir, W_OK | X_OK) == 0;
}

/* Checks the report paths before any work: at most one "-", none a capture or another report. */
static int check_report_paths(const struct check_opts *o, char **files, int nfiles)
{
	int to_stdout = 0;
	for (int k = 0; k < REPORT_KINDS; k++) {
		const char *p = o->report_path[k];
		if (!p)
			continue;
		if (strcmp(p, "-") == 0) {
			if (++to_stdout > 1)
				return cli_usage_error("check", "only one report can go to standard output (\"-\")");
			continue;
		}
		for (int j = 0; j < k; j++)
			if (o->report_path[j] && cli_same_file(p, o->report_path[j]))
				return cli_usage_error("check", "%s and %s name the same file (%s)", report_option[j],
						       report_option[k], p);
		for (int i = 0; i < nfiles; i++)
			if (cli_same_file(files[i], p))
				return cli_usage_error("check", "%s would overwrite the capture being checked (%s)",
						       report_option[k], p);
		if (!can_write(p)) {
			cli_error("cannot write the %s report %s: %s", report_name[k], p, strerror(errno));
			return RT_EXIT_INPUT;
		}
	}
	return RT_EXIT_OK;
}

static const struct option longopts[] = {
	{ "pmtu", required_argument, NULL, 'p' },
	{ "timeout-us", required_argument, NULL, 't' },
	{ "timeout-max-us", required_argument, NULL, 'T' },
	{ "in-flight-us", required_argument, NULL, 'I' },
	{ "retry-cnt", required_argument, NULL, 'r' },
	{ "rnr-retry", required_argument, NULL, 'R' },
	{ "rules", required_argument, NULL, 'o' },
	{ "skip", required_argument, NULL, 's' },
	{ "errors", required_argument, NULL, 'E' },
	{ "list-rules", no_argument, NULL, 'l' },
	{ "json", required_argument, NULL, 'J' },
	{ "junit", required_argument, NULL, 'U' },
	{ "junit-per-flow", no_argument, NULL, 'F' },
	{ "html", required_argument, NULL, 'H' },
	{ "max-report", required_argument, NULL, 'm' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "libpcap", no_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What the options mean together, once all are read; -1 to go on, or the exit code to stop with. */
static int combine_options(struct check_opts *o)
{
	bool any = false;
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		o->cfg.enabled[r] = (!o->only_given || o->only[r]) && !o->skip[r];
		any |= o->cfg.enabled[r];
	}
	if (!any)
		return cli_usage_error("check", "--rules and --skip leave no rule to check");
	if (o->cfg.timeout_max_us > 0 && (!o->cfg.have_timeout || o->cfg.timeout_max_us < o->cfg.timeout_us))
		return cli_usage_error("check", "--timeout-max-us bounds the local ACK timer from above: give --timeout-us "
				       "too, no larger than it");
	if (o->junit_per_flow && !o->report_path[REPORT_JUNIT])
		return cli_usage_error("check", "--junit-per-flow changes the --junit report: give --junit F too");
	o->cfg.ladder_flows = o->report_path[REPORT_HTML] ? HTML_LADDER_FLOWS : 0;
	return -1;
}

/* Fills o from the command line; returns -1 to go on, or the exit code to stop with. */
static int parse_options(int argc, char **argv, struct check_opts *o)
{
	uint64_t v;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!cli_parse_uint(optarg, UINT32_MAX, &v) || !rt_is_pmtu((uint32_t)v))
				return cli_usage_error("check", "--pmtu must be 256, 512, 1024, 2048 or 4096, not '%s'",
						       optarg);
			o->cfg.pmtu = (uint32_t)v;
			break;
		case 't':
			if (!parse_positive(optarg, &o->cfg.timeout_us))
				return cli_usage_error("check", "--timeout-us needs a positive number of microseconds, not '%s'",
						       optarg);
			o->cfg.have_timeout = true;
			break;
		case 'I':
			if (!parse_positive(optarg, &o->cfg.in_flight_us))
				return cli_usage_error("check", "--in-flight-us needs a positive number of microseconds, "
						       "not '%s'", optarg);
			break;
		case 'T':
			if (!parse_positive(optarg, &o->cfg.timeout_max_us))
				return cli_usage_error("check", "--timeout-max-us needs a positive number of microseconds, "
						       "not '%s'", optarg);
			break;
		case 'r':
		case 'R':
			if (!cli_parse_uint(optarg, 7, &v))
				return cli_usage_error("check", "%s must be 0-7, not '%s'",
						       c == 'r' ? "--retry-cnt" : "--rnr-retry", optarg);
			*(c == 'r' ? &o->cfg.retry_cnt : &o->cfg.rnr_retry) = (int)v;
			break;
		case 'o':
			o->only_given = true;
			if ((rc = parse_rule_list("--rules", optarg, o->only)) != 0)
				return rc;
			break;
		case 's':
			if ((rc = parse_rule_list("--skip", optarg, o->skip)) != 0)
				return rc;
			break;
		case 'E':
			if ((rc = parse_rule_list("--errors", optarg, o->cfg.as_error)) != 0)
				return rc;
			break;
		case 'l': o->list_rules = true; break;
		case 'J': o->report_path[REPORT_JSON] = optarg; break;
		case 'U': o->report_path[REPORT_JUNIT] = optarg; break;
		case 'F': o->junit_per_flow = true; break;
		case 'H': o->report_path[REPORT_HTML] = optarg; break;
		case 'm':
			if (!cli_parse_uint(optarg, UINT32_MAX, &o->max_report))
				return cli_usage_error("check", "--max-report needs a whole number, not '%s'", optarg);
			break;
		case 'q': o->quiet = true; break;
		case 'L': o->capture.libpcap_only = true; break;
		case 'h': fputs(check_help, stdout); return RT_EXIT_OK;
		case ':': return cli_usage_error("check", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("check", "unknown option '%s'", argv[optind - 1]);
		}
	}
	return combine_options(o);
}

/* ---- --list-rules ------------------------------------------------------------ */

static const struct {
	const char *prefix;
	const char *title;
} rule_groups[] = {
	{ "PKT", "PKT: one packet on its own" },
	{ "SEQ", "SEQ: one direction of one flow" },
	{ "RSP", "RSP: the responder's behaviour, seen from its answers" },
	{ "REQ", "REQ: the requester's behaviour, seen from its requests" },
	{ "CM", "CM: the out-of-band connection-manager frames" },
	{ "CC", "CC: congestion control (ECN marks, CNPs, the sender's reaction)" },
};
#define RULE_GROUPS (sizeof rule_groups / sizeof rule_groups[0])

static void list_rules(FILE *out)
{
	for (size_t g = 0; g < RULE_GROUPS; g++) {
		fprintf(out, "%s%s\n", g ? "\n" : "", rule_groups[g].title);
		for (int r = 0; r < RT_RULE_COUNT; r++) {
			if (strcmp(rt_rule_group((enum rt_rule)r), rule_groups[g].prefix) != 0)
				continue;
			const struct rt_rule_info *ri = rt_rule_info((enum rt_rule)r);
			fprintf(out, "  %-24s  %-7s  %-14s  %s\n", ri->id, rt_severity_name(ri->severity),
				ri->needs ? ri->needs : "-", ri->text);
		}
	}
}

/* ---- checking one capture --------------------------------------------------- */

static const char *plural(uint64_t n, const char *one, const char *many);

static void keep_violation(void *ctx, const struct rt_violation *v)
{
	struct file_run *run = ctx;
	if (v->severity == RT_SEV_ERROR && (unsigned)v->rule < RT_RULE_COUNT)
		run->errors_by_rule[v->rule]++;
	if (rt_violation_list_add(&run->violations, v) != 0)
		run->out_of_memory = true;
}

/* Runs the checker over one capture. False when it could not be opened. */
static bool check_capture(struct file_run *run, const struct check_opts *o)
{
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	struct rt_error err;
	struct rt_capture *cap = rt_capture_open_with(run->path, &o->capture, &err);
	if (!cap) {
		cli_error("%s", err.msg);
		return false;
	}
	struct rt_check_config cfg = o->cfg;
	cfg.on_violation = keep_violation;
	cfg.ctx = run;
	run->checker = rt_checker_new(&cfg, &err);
	if (!run->checker) {
		cli_error("%s: %s", run->path, err.msg);
		rt_capture_close(cap);
		return false;
	}
	enum rt_link link = rt_capture_link(cap);
	struct cli_progress progress;
	struct rt_frame fr;
	int rc;
	cli_progress_start(&progress, strcmp(run->path, "-") ? run->path : "standard input");
	while ((rc = rt_capture_next(cap, &fr, &err)) == 1) {
		run->frames_read = fr.number;
		if (progress.enabled)
			cli_progress_update(&progress, rt_capture_offset(cap), rt_capture_size(cap), fr.number);
		rt_checker_frame(run->checker, link, fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
	}
	cli_progress_finish(&progress);
	if (rc < 0) {
		/* The frames before the damage are still checked and reported; the verdict says it is partial. */
		cli_error("%s", err.msg);
		run->damaged = true;
		snprintf(run->incomplete, sizeof run->incomplete, "%s", err.msg);
	}
	rt_checker_finish(run->checker);
	/* RoCE packets were there, but none long enough to decode: no rule saw anything, which is no pass. */
	const struct rt_check_totals *t = rt_checker_totals(run->checker);
	if (!run->damaged && t->truncated && !t->roce_packets) {
		run->nothing_checked = true;
		snprintf(run->incomplete, sizeof run->incomplete,
			 "%s: nothing checked: all %" PRIu64 " RoCE %s cut by the snap length before the BTH",
			 run->path, t->truncated, plural(t->truncated, "packet is", "packets are"));
		cli_error("%s", run->incomplete);
	}
	rt_capture_close(cap);
	run->seconds = cli_elapsed(&start);
	return true;
}

/* ---- the human summary ------------------------------------------------------- */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_header(FILE *out, const struct file_run *run)
{
	const struct rt_check_totals *t = rt_checker_totals(run->checker);
	const struct rt_check_config *cfg = rt_checker_config(run->checker);
	size_t flows = rt_checker_flow_count(run->checker);
	fprintf(out, "%s: %" PRIu64 " frames, %" PRIu64 " RoCE packets, %zu %s, %.3f s, ", run->path, t->frames,
		t->roce_packets, flows, plural(flows, "flow", "flows"), run->seconds);
	if (cfg->pmtu)
		fprintf(out, "PMTU %" PRIu32 "\n", cfg->pmtu);
	else
		fprintf(out, "PMTU inferred per flow\n");
	/* What the counts above leave out, only when there is some. */
	if (t->not_roce || t->truncated || t->malformed || t->untracked) {
		fprintf(out, "  (%" PRIu64 " other frames skipped", t->not_roce);
		if (t->truncated)
			fprintf(out, ", %" PRIu64 " RoCE packets cut by the snap length", t->truncated);
		if (t->malformed)
			fprintf(out, ", %" PRIu64 " malformed", t->malformed);
		if (t->untracked)
			fprintf(out, ", %" PRIu64 " packets of flows beyond the %" PRIu32 " tracked (PKT rules only)",
				t->untracked, cfg->max_flows ? cfg->max_flows : RT_CHECK_DEFAULT_MAX_FLOWS);
		fprintf(out, ")\n");
	}
}

/* The option that gives what a rule needs, when the run lacks it; NULL when it has it or needs none. */
static const char *missing_option(const struct rt_check_config *cfg, enum rt_rule rule)
{
	const char *needs = rt_check_config_missing(cfg, rule);
	if (!needs)
		return NULL;
	if (!strcmp(needs, "PMTU"))
		return "--pmtu";
	if (!strcmp(needs, "timeout"))
		return "--timeout-us";
	if (!strcmp(needs, "retry_cnt"))
		return "--retry-cnt";
	if (!strcmp(needs, "rnr_retry"))
		return "--rnr-retry";
	return needs;
}

/* One rule's line; false when the rule had nothing to check (the caller counts those). */
static bool print_rule(FILE *out, const struct file_run *run, enum rt_rule r)
{
	const struct rt_rule_counts *n = &rt_checker_verdicts(run->checker)->total;
	const struct rt_rule_info *ri = rt_rule_info(r);
	const char *missing = missing_option(rt_checker_config(run->checker), r);
	uint64_t checked = n->checked[r], bad = n->violations[r], ne = n->not_evaluated[r];
	if (bad) {
		bool errors = run->errors_by_rule[r] != 0;
		fprintf(out, "  %-4s  %-24s  %" PRIu64 " %s of %" PRIu64 " checked", errors ? "FAIL" : "WARN", ri->id,
			bad, errors ? plural(bad, "violation", "violations") : plural(bad, "warning", "warnings"), checked);
	} else if (checked) {
		fprintf(out, "  PASS  %-24s  %" PRIu64 " checked", ri->id, checked);
	} else if (ne || (missing && strcmp(missing, "--pmtu") != 0)) {
		/* A rule that needs a setting never given is reported as such even with nothing to apply it to. */
		fprintf(out, "  N/E   %-24s  not evaluated", ri->id);
		if (!rt_rule_implemented(r))
			fputs(" (not implemented in this version)", out);
		else if (missing)
			fprintf(out, " (needs %s)", missing);
		else
			fprintf(out, " (%" PRIu64 " %s)", ne, plural(ne, "case", "cases"));
		fputc('\n', out);
		return true;
	} else {
		return false;
	}
	if (ne)
		fprintf(out, ", %" PRIu64 " not evaluated", ne);
	fputc('\n', out);
	return true;
}

static void print_rules(FILE *out, const struct file_run *run)
{
	const struct rt_check_config *cfg = rt_checker_config(run->checker);
	unsigned idle = 0, off = 0;
	for (size_t g = 0; g < RULE_GROUPS; g++) {
		for (int r = 0; r < RT_RULE_COUNT; r++) {
			if (strcmp(rt_rule_group((enum rt_rule)r), rule_groups[g].prefix) != 0)
				continue;
			if (!cfg->enabled[r])
				off++;
			else if (!print_rule(out, run, (enum rt_rule)r))
				idle++;
		}
	}
	if (idle)
		fprintf(out, "  %u %s had nothing to check\n", idle, plural(idle, "rule", "rules"));
	if (off)
		fprintf(out, "  %u %s not checked (--rules/--skip)\n", off, plural(off, "rule", "rules"));
}

static void format_side(const struct rt_flow_info *f, int s, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];
	const struct rt_flow_side *side = &f->side[s];
	rt_flow_format_ip(f, s, ip, sizeof ip);
	char v1[24] = "";
	if (side->rocev1)
		snprintf(v1, sizeof v1, " (%s)", rt_flow_side_versions(side));
	if (side->qp_known)
		snprintf(buf, size, "%s qp 0x%" PRIx32 "%s", ip, side->qp, v1);
	else
		snprintf(buf, size, "%s qp ?%s", ip, v1);
}

/* Flow notes, one line each, at most max of them: a capture of many QPs can have hundreds. */
static void print_flow_notes(FILE *out, const struct file_run *run, uint64_t max)
{
	uint64_t shown = 0, more = 0;
	size_t n = rt_checker_flow_count(run->checker);
	for (size_t i = 0; i < n; i++) {
		const struct rt_flow_info *f = rt_checker_flow(run->checker, i);
		uint32_t kept = f->note_count < RT_FLOW_MAX_NOTES ? f->note_count : RT_FLOW_MAX_NOTES;
		if (!kept && !f->notes_dropped)
			continue;
		char a[80], b[80];
		format_side(f, 0, a, sizeof a);
		format_side(f, 1, b, sizeof b);
		for (uint32_t k = 0; k < kept; k++) {
			if (shown++ < max)
				fprintf(out, "flow %" PRIu32 " (%s <-> %s): %s\n", f->id, a, b, f->notes[k]);
			else
				more++;
		}
		more += f->notes_dropped;
	}
	if (more)
		fprintf(out, "... and %" PRIu64 " more flow %s (--max-report; the reports list the flows)\n", more,
			plural(more, "note", "notes"));
}

static void print_violations(FILE *out, const struct file_run *run, uint64_t max)
{
	const struct rt_violation_list *l = &run->violations;
	for (size_t i = 0; i < l->count && i < max; i++) {
		const struct rt_report_violation *v = &l->items[i];
		fprintf(out, "frame %" PRIu64 ": %s (%s)", v->frame, rt_rule_info(v->rule)->id,
			rt_severity_name(v->severity));
		if (v->flow)
			fprintf(out, " flow %" PRIu32, v->flow);
		fprintf(out, ": %s\n", v->message);
	}
	uint64_t total = l->count + l->dropped;
	if (total > max)
		fprintf(out, "... and %" PRIu64 " more not listed (--max-report; the reports keep the first %zu)\n",
			total - max, l->count);
}

static const char *verdict(const struct file_run *run)
{
	if (!run->checker)
		return "UNUSABLE INPUT";
	if (run->damaged)
		return "INCOMPLETE (damaged capture)";
	if (run->nothing_checked)
		return "INCOMPLETE (nothing checked: every RoCE packet cut by the snap length)";
	return rt_checker_totals(run->checker)->errors ? "NOT CONFORMANT" : "CONFORMANT";
}

static void print_verdict(FILE *out, const struct file_run *run)
{
	if (!run->checker) {
		fprintf(out, "rocetest check: %s: not checked -> %s\n", run->path, verdict(run));
		return;
	}
	const struct rt_check_totals *t = rt_checker_totals(run->checker);
	fprintf(out, "rocetest check: %s: %" PRIu64 " %s, %" PRIu64 " %s", run->path, t->errors,
		plural(t->errors, "error", "errors"), t->warnings, plural(t->warnings, "warning", "warnings"));
	if (run->damaged)
		fprintf(out, " in the %" PRIu64 " frames before the damage", run->frames_read);
	fprintf(out, " -> %s\n", verdict(run));
}

static void print_summary(FILE *out, const struct file_run *run, const struct check_opts *o)
{
	if (!o->quiet && run->checker) {
		print_header(out, run);
		print_rules(out, run);
		print_flow_notes(out, run, o->max_report);
		print_violations(out, run, o->max_report);
	}
	print_verdict(out, run);
}

/* The line over all captures, when there are several. */
static void print_total(FILE *out, const struct file_run *runs, int n)
{
	uint64_t errors = 0, warnings = 0;
	int unusable = 0;
	for (int i = 0; i < n; i++) {
		if (!runs[i].checker || runs[i].damaged || runs[i].nothing_checked)
			unusable++;
		if (runs[i].checker) {
			errors += rt_checker_totals(runs[i].checker)->errors;
			warnings += rt_checker_totals(runs[i].checker)->warnings;
		}
	}
	fprintf(out, "rocetest check: %d captures: %" PRIu64 " %s, %" PRIu64 " %s", n, errors,
		plural(errors, "error", "errors"), warnings, plural(warnings, "warning", "warnings"));
	if (unusable)
		fprintf(out, ", %d unusable or damaged", unusable);
	fprintf(out, " -> %s\n", unusable ? "INCOMPLETE" : errors ? "NOT CONFORMANT" : "CONFORMANT");
}

/* ---- reports ------------------------------------------------------------------ */

typedef int (*report_writer)(const struct rt_report_file *files, size_t n, FILE *out);

struct report_job {
	report_writer writer;
	const struct rt_report_file *files;
	size_t n;
};

static int run_report_job(const void *ctx, FILE *out)
{
	const struct report_job *job = ctx;
	return job->writer(job->files, job->n, out);
}

/* Writes one report; 0, or -1 after saying why (the file named). */
static int write_report(const struct check_opts *o, enum report_kind k, const struct rt_report_file *files,
			size_t n)
{
	static const report_writer writers[REPORT_KINDS] = { rt_report_json, rt_report_junit, rt_report_html };
	struct report_job job = { .writer = k == REPORT_JUNIT && o->junit_per_flow ? rt_report_junit_per_flow : writers[k],
				  .files = files, .n = n };
	return cli_write_report(report_name[k], o->report_path[k], run_report_job, &job);
}

static int write_reports(const struct check_opts *o, const struct file_run *runs, int nruns)
{
	struct rt_report_file *files = calloc((size_t)nruns, sizeof *files);
	if (!files) {
		cli_error("out of memory preparing the reports");
		return -1;
	}
	size_t n = 0;
	/* Captures that could not be opened have nothing to report; the exit status says they failed. */
	for (int i = 0; i < nruns; i++)
		if (runs[i].checker)
			files[n++] = (struct rt_report_file){ .file = runs[i].path, .checker = runs[i].checker,
							      .violations = &runs[i].violations,
							      .seconds = runs[i].seconds,
							      .incomplete = runs[i].incomplete[0] ? runs[i].incomplete
												    : NULL };
	int rc = 0;
	for (int k = 0; k < REPORT_KINDS; k++)
		if (o->report_path[k] && n && write_report(o, (enum report_kind)k, files, n) != 0)
			rc = -1;
	free(files);
	return rc;
}

/* ---- the command ---------------------------------------------------------------- */

static int check_inputs(char **files, int n)
{
	if (n == 0)
		return cli_usage_error("check", "no capture file given");
	int dashes = 0;
	for (int i = 0; i < n; i++)
		dashes += strcmp(files[i], "-") == 0;
	if (dashes > 1)
		return cli_usage_error("check", "standard input (\"-\") can be read only once");
	return RT_EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { .max_report = 20 };
	rt_check_config_init(&o.cfg);
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.list_rules) {
		list_rules(stdout);
		return RT_EXIT_OK;
	}
	char **files = argv + optind;
	int nfiles = argc - optind;
	if ((rc = check_inputs(files, nfiles)) != RT_EXIT_OK)
		return rc;
	if ((rc = check_report_paths(&o, files, nfiles)) != RT_EXIT_OK)
		return rc;

	struct file_run *runs = calloc((size_t)nfiles, sizeof *runs);
	if (!runs) {
		cli_error("out of memory");
		return RT_EXIT_INPUT;
	}
	/* With a report on standard output, the summary must not mix into it. */
	bool report_on_stdout = false;
	for (int k = 0; k < REPORT_KINDS; k++)
		report_on_stdout |= o.report_path[k] && strcmp(o.report_path[k], "-") == 0;
	FILE *summary = report_on_stdout ? stderr : stdout;

	int exit_code = RT_EXIT_OK;
	for (int i = 0; i < nfiles; i++) {
		struct file_run *run = &runs[i];
		run->path = files[i];
		if (!check_capture(run, &o) || run->damaged || run->nothing_checked)
			exit_code = RT_EXIT_INPUT;
		if (run->out_of_memory) {
			cli_error("%s: out of memory keeping the violations; the lists are incomplete", run->path);
			exit_code = RT_EXIT_INPUT;
		}
		if (exit_code == RT_EXIT_OK && run->checker && rt_checker_totals(run->checker)->errors)
			exit_code = RT_EXIT_VIOLATIONS;
		print_summary(summary, run, &o);
	}
	if (nfiles > 1)
		print_total(summary, runs, nfiles);
	fflush(summary);
	if (write_reports(&o, runs, nfiles) != 0)
		exit_code = RT_EXIT_INPUT;

	for (int i = 0; i < nfiles; i++) {
		rt_checker_free(runs[i].checker);
		rt_violation_list_free(&runs[i].violations);
	}
	free(runs);
	return exit_code;
}
