/* SPDX-License-Identifier: MIT */
/* rocetest gen: run a scenario through the reference model and write the capture and its expected verdict. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rocetest/capture.h"
#include "rocetest/json.h"
#include "rocetest/scenario.h"

static const char gen_help[] =
	"usage: rocetest gen [-o OUT.pcap] [--expect OUT.json] [--seed N] [--quiet] SCENARIO\n"
	"\n"
	"Runs a scenario file (format: vectors/scenarios/README.md) through the\n"
	"reference RC/UC/UD model: two QPs on a simulated link, in virtual time, with\n"
	"the scenario's work requests, link faults and deliberate misbehaviour. Writes\n"
	"every frame the scenario's capture point sees, and prints what each end\n"
	"completed.\n"
	"\n"
	"  -o, --output OUT  the capture (classic pcap, nanosecond timestamps, Ethernet;\n"
	"                    \"-\" for standard output)\n"
	"  --expect OUT      the expected verdict as JSON: {\"scenario\", \"clean\",\n"
	"                    \"expected_violations\": [{\"rule\", \"frame\"}], \"check_options\",\n"
	"                    \"completions\"}; run `rocetest check` with check_options\n"
	"  --seed N          override the scenario's seed (memory contents)\n"
	"  -q, --quiet       no summary\n"
	"  -h, --help        this text\n"
	"\n"
	"Exit status: 0 written; 2 usage error, a malformed scenario (file:line: what\n"
	"is wrong), or a run that cannot be written.\n";

#define MAX_BUGS 8

struct gen_run {
	struct rt_capture_writer *out;
	uint64_t frames;
	uint64_t frames_dir[2];
	uint64_t bug_frame[RT_BUG_COUNT];	/* the first frame that carried each misbehaviour */
};

static int on_frame(void *ctx, const struct rt_tap_frame *f, struct rt_error *err)
{
	struct gen_run *run = ctx;
	run->frames++;
	run->frames_dir[f->dir]++;
	if (f->bug != RT_BUG_NONE && !run->bug_frame[f->bug])
		run->bug_frame[f->bug] = run->frames;
	if (run->out && rt_capture_write(run->out, RT_CAPTURE_EPOCH_NS + f->time_ns, f->data, f->len, f->len)) {
		rt_error_set(err, "cannot write frame %" PRIu64, run->frames);
		return -1;
	}
	return 0;
}

/* The frame each expectation names: given, or the one carrying the scenario's misbehaviour. */
static int resolve_expectations(const struct rt_scenario *sc, const struct gen_run *run, uint64_t *frames,
				struct rt_error *err)
{
	for (unsigned i = 0; i < sc->n_expect; i++) {
		frames[i] = sc->expect[i].frame;
		if (frames[i])
			continue;
		for (unsigned n = 0; n < 2 && !frames[i]; n++) {
			enum rt_qp_bug b = sc->sim.node[n].bug;
			if (b != RT_BUG_NONE)
				frames[i] = run->bug_frame[b];
		}
		if (!frames[i]) {
			rt_error_set(err, "%s: 'expect %s' names no frame and no misbehaviour of the scenario reached the "
					  "capture (give frame=N, or check the bug's at=)",
				     sc->name, rt_rule_info(sc->expect[i].rule)->id);
			return -1;
		}
	}
	return 0;
}

static void write_completions(FILE *out, struct rt_qp *qp)
{
	struct rt_wc wc;
	bool first = true;
	fputc('[', out);
	while (rt_qp_poll_cq(qp, &wc)) {
		fprintf(out, "%s{\"wr_id\": %" PRIu64 ", \"opcode\": \"%s\", \"status\": \"%s\"", first ? "" : ", ",
			wc.wr_id, rt_wr_opcode_name(wc.opcode), rt_wc_status_name(wc.status));
		if (wc.opcode == RT_WR_RECV && wc.status == RT_WC_SUCCESS)
			fprintf(out, ", \"byte_len\": %u", wc.byte_len);
		if (wc.with_imm)
			fprintf(out, ", \"imm\": %u", wc.imm);
		if (wc.with_inv)
			fprintf(out, ", \"invalidated_rkey\": %u", wc.inv_rkey);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

/* The options `rocetest check` needs to judge this vector as the model ran it (node a requests). */
static void write_check_options(FILE *out, const struct rt_scenario *sc)
{
	const struct rt_qp_config *a = &sc->sim.node[0];
	fprintf(out, "[\"--pmtu\", \"%u\"", a->pmtu);
	if (a->transport == RT_TRANSPORT_RC) {
		int64_t t = rt_local_ack_timeout_ns(a->timeout);
		if (t)
			fprintf(out, ", \"--timeout-us\", \"%.3f\"", (double)t / 1000.0);
		fprintf(out, ", \"--retry-cnt\", \"%u\", \"--rnr-retry\", \"%u\"", a->retry_cnt, a->rnr_retry);
	}
	fputc(']', out);
}

static int write_expectation(const char *path, const struct rt_scenario *sc, const uint64_t *frames,
			     struct rt_sim *sim, const struct gen_run *run)
{
	FILE *out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		cli_error("%s: cannot write: %m", path);
		return -1;
	}
	fputs("{\n  \"scenario\": ", out);
	rt_json_string(out, sc->name);
	fputs(",\n  \"description\": ", out);
	rt_json_string(out, sc->description);
	fprintf(out, ",\n  \"clean\": %s,\n  \"expected_violations\": [", sc->n_expect ? "false" : "true");
	for (unsigned i = 0; i < sc->n_expect; i++)
		fprintf(out, "%s{\"rule\": \"%s\", \"frame\": %" PRIu64 "}", i ? ", " : "",
			rt_rule_info(sc->expect[i].rule)->id, frames[i]);
	fputs("],\n  \"check_options\": ", out);
	write_check_options(out, sc);
	fprintf(out, ",\n  \"frames\": %" PRIu64 ",\n  \"completions\": {\"a\": ", run->frames);
	write_completions(out, rt_sim_qp(sim, 0));
	fputs(", \"b\": ", out);
	write_completions(out, rt_sim_qp(sim, 1));
	fputs("}\n}\n", out);
	if (out != stdout ? fclose(out) : fflush(out)) {
		cli_error("%s: cannot write: %m", path);
		return -1;
	}
	return 0;
}

static const char *end_text(enum rt_sim_end end)
{
	switch (end) {
	case RT_SIM_IDLE: return "both ends idle";
	case RT_SIM_TIME_LIMIT: return "stopped at the scenario's time limit with work outstanding";
	case RT_SIM_STALLED: return "stalled: work outstanding and no timer to move it (timeout 0?)";
	case RT_SIM_ERROR: return "error";
	}
	return "?";
}

static void print_summary(FILE *out, const struct rt_scenario *sc, struct rt_sim *sim, const struct gen_run *run,
			  enum rt_sim_end end)
{
	fprintf(out, "%s: %" PRIu64 " frames (a>b %" PRIu64 ", b>a %" PRIu64 "), %.3f us of virtual time, %s\n",
		sc->name, run->frames, run->frames_dir[0], run->frames_dir[1], (double)rt_sim_now(sim) / 1000.0,
		end_text(end));
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp *qp = rt_sim_qp(sim, n);
		const struct rt_qp_stats *st = rt_qp_stats(qp);
		fprintf(out,
			"  %c: %s, %" PRIu64 " requests sent (%" PRIu64 " again), %" PRIu64 " timeouts, NAKs %" PRIu64
			" in / %" PRIu64 " out, RNR NAKs %" PRIu64 " in / %" PRIu64 " out, %" PRIu64 " bytes placed\n",
			'a' + n, rt_qp_state(qp) == RT_QPS_RTS ? "RTS" : "ERROR", st->requests_sent, st->retransmissions,
			st->timeouts, st->naks_received, st->naks_sent, st->rnr_naks_received, st->rnr_naks_sent,
			st->bytes_placed);
	}
}

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *expect_path = NULL;
	bool quiet = false, have_seed = false;
	uint64_t seed = 0;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'e': expect_path = optarg; break;
		case 's':
			if (!cli_parse_uint(optarg, UINT64_MAX, &seed))
				return cli_usage_error("gen", "--seed needs a whole number, not '%s'", optarg);
			have_seed = true;
			break;
		case 'q': quiet = true; break;
		case 'h': fputs(gen_help, stdout); return RT_EXIT_OK;
		case ':': return cli_usage_error("gen", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("gen", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("gen", argc == optind ? "no scenario file given" : "one scenario at a time");
	if (!out_path && !expect_path)
		return cli_usage_error("gen", "nothing to write: give -o OUT.pcap and/or --expect OUT.json");
	if (out_path && expect_path && !strcmp(out_path, "-") && !strcmp(expect_path, "-"))
		return cli_usage_error("gen", "-o and --expect cannot both be standard output");
	const char *path = argv[optind];

	struct rt_error err;
	struct rt_scenario sc;
	if (rt_scenario_load(path, &sc, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	if (have_seed)
		sc.sim.seed = seed;
	int rc = RT_EXIT_INPUT;
	struct gen_run run = { 0 };
	struct rt_sim *sim = rt_scenario_sim(&sc, &err);
	if (!sim) {
		cli_error("%s: %s", path, err.msg);
		goto out;
	}
	if (out_path) {
		run.out = rt_capture_writer_open(out_path, rt_link_dlt(RT_LINK_ETHERNET), 65535, &err);
		if (!run.out) {
			cli_error("%s", err.msg);
			goto out;
		}
	}
	enum rt_sim_end end = rt_sim_run(sim, on_frame, &run, &err);
	if (end == RT_SIM_ERROR) {
		cli_error("%s: %s", path, err.msg);
		goto out;
	}
	if (run.out) {
		struct rt_capture_writer *w = run.out;
		run.out = NULL;
		if (rt_capture_writer_close(w, &err)) {
			cli_error("%s", err.msg);
			goto out;
		}
	}
	uint64_t frames[RT_SCENARIO_MAX_EXPECT];
	if (resolve_expectations(&sc, &run, frames, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	/* With the capture on standard output, the summary goes to standard error. */
	FILE *report = (out_path && !strcmp(out_path, "-")) || (expect_path && !strcmp(expect_path, "-")) ? stderr
													     : stdout;
	if (!quiet)
		print_summary(report, &sc, sim, &run, end);
	if (expect_path && write_expectation(expect_path, &sc, frames, sim, &run))
		goto out;
	rc = RT_EXIT_OK;
out:
	if (run.out)
		rt_capture_writer_close(run.out, &err);
	rt_sim_free(sim);
	rt_scenario_free(&sc);
	return rc;
}
