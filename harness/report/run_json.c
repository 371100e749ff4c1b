/* SPDX-License-Identifier: MIT */
/*
 * summary.json of a run: the run's facts, one object per suite with one
 * line per test case (parseable and greppable, like json.c's), then the
 * metrics a dashboard tracks across runs: simulation speed and goodput.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "rocetest/run_report.h"
#include "run_util.h"
#include "util.h"

static void key_str(FILE *out, const char *sep, const char *key, const char *value)
{
	fprintf(out, "%s\"%s\":", sep, key);
	rt_rep_json_str(out, value);
}

/* "" means none: null rather than an empty path a consumer might open. */
static void key_path(FILE *out, const char *sep, const char *key, const char *value)
{
	if (value[0])
		key_str(out, sep, key, value);
	else
		fprintf(out, "%s\"%s\":null", sep, key);
}

static void key_num(FILE *out, const char *sep, const char *key, double value)
{
	fprintf(out, "%s\"%s\":", sep, key);
	rt_rep_json_num(out, value);
}

static void write_case(FILE *out, const struct rt_run_result *r)
{
	key_str(out, "{", "name", r->name);
	key_str(out, ",", "description", r->description);
	fprintf(out, ",\"passed\":%s,\"untimed\":%s,\"failure\":", r->passed ? "true" : "false",
		r->untimed ? "true" : "false");
	if (r->passed)
		fputs("null", out);
	else
		rt_rep_json_str(out, r->failure);
	fprintf(out, ",\"seed\":%" PRIu64 ",\"cycles\":%" PRIu64, r->seed, r->cycles);
	fprintf(out, ",\"timer_ns\":%" PRIu64 ",\"reaction_ns\":%" PRIu64, r->timer_ns, r->reaction_ns);
	key_num(out, ",", "sim_us", r->sim_us);
	key_num(out, ",", "wall_s", r->wall_s);
	fprintf(out,
		",\"wrs\":%" PRIu32 ",\"completions\":%" PRIu32 ",\"frames_to_peer\":%" PRIu32
		",\"frames_to_dut\":%" PRIu32 ",\"retransmissions\":%" PRIu32 ",\"timeouts\":%" PRIu32
		",\"naks\":%" PRIu32 ",\"rnr_naks\":%" PRIu32,
		r->wrs, r->completions, r->frames_to_peer, r->frames_to_dut, r->retransmissions, r->timeouts, r->naks,
		r->rnr_naks);
	fprintf(out,
		",\"link\":{\"dropped\":%" PRIu64 ",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64
		",\"corrupted\":%" PRIu64 "}",
		r->link_dropped, r->link_duplicated, r->link_reordered, r->link_corrupted);
	fprintf(out, ",\"checker\":{\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64, r->checker_errors,
		r->checker_warnings);
	key_str(out, ",", "args", r->check_args);
	fprintf(out, "},\"payload_bytes\":%" PRIu64, r->payload_bytes);
	fprintf(out, ",\"bench\":{\"mem_latency\":%" PRIu32, r->mem_latency);
	key_num(out, ",", "p_stall", r->p_stall);
	fprintf(out, "},\"underrun_cycles\":%" PRIu32 ",\"underrun_frames\":%" PRIu32, r->underrun_cycles,
		r->underrun_frames);
	key_path(out, ",", "pcap", r->pcap);
	key_path(out, ",", "html", r->html);
	/* The work as a scenario (rocetest gen makes its twin), and what the scenario could not say. */
	key_path(out, ",", "scenario", r->scenario);
	key_path(out, ",", "twin_gaps", r->twin_gaps);
	fputc('}', out);
}

static void write_suites(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix)
{
	fputs("\"suites\":[", out);
	for (size_t k = 0; k < ix->n_suites; k++) {
		const struct rt_run_suite *su = &ix->suites[k];
		key_str(out, k ? ",\n{" : "\n{", "name", su->name);
		fprintf(out, ",\"tests\":%zu,\"failures\":%" PRIu64 ",\"untimed\":%" PRIu64 ",\"cases\":[",
			su->end - su->begin, su->failures, su->untimed);
		for (size_t i = su->begin; i < su->end; i++) {
			fputs(i > su->begin ? ",\n" : "\n", out);
			write_case(out, rt_run_at(s, ix, i));
		}
		fputs("]}", out);
	}
	fputs("],\n", out);
}

static void write_metrics(FILE *out, const struct rt_run_summary *s, const struct rt_run_index *ix,
			  const struct rt_run_point *points, size_t n_points)
{
	uint64_t underrun_cycles = 0, underrun_frames = 0;
	for (size_t i = 0; s->tests && i < s->n_tests; i++) {
		underrun_cycles += s->tests[i].underrun_cycles;
		underrun_frames += s->tests[i].underrun_frames;
	}
	fprintf(out, "\"metrics\":{\"sim_cycles\":%" PRIu64, s->cycles);
	fprintf(out, ",\"underrun_cycles\":%" PRIu64 ",\"underrun_frames\":%" PRIu64, underrun_cycles,
		underrun_frames);
	/* The wall time the tests took (not the run's, which includes setting up). */
	key_num(out, ",", "sim_wall_s", ix->wall_s);
	key_num(out, ",", "sim_cycles_per_s", s->cycles_per_s);
	key_num(out, ",", "clk_hz", s->clk_hz);
	key_num(out, ",", "line_gbps", s->line_gbps);
	fprintf(out, ",\"pmtu\":%" PRIu32 ",\"goodput\":[", s->pmtu);
	char op[32];
	for (size_t i = 0; i < n_points; i++) {
		const struct rt_run_point *p = &points[i];
		rt_run_opcode_name(p->r->opcode, op, sizeof op);
		key_str(out, i ? ",\n{" : "\n{", "opcode", op);
		fprintf(out, ",\"msg_size\":%" PRIu32, p->r->msg_size);
		key_num(out, ",", "gbps", p->gbps);
		key_num(out, ",", "limit_gbps", p->limit);
		key_str(out, ",", "suite", p->r->suite);
		key_str(out, ",", "test", p->r->name);
		fputc('}', out);
	}
	fputs("],\n", out);
	key_num(out, "", "goodput_write_64k_gbps", rt_run_write_64k(points, n_points));
	fputs("}}\n", out);
}

/* A board behind an interface: what its live path carried and lost. */
static void write_live(FILE *out, const struct rt_run_live *l)
{
	key_str(out, "\"live\":{", "iface", l->iface);
	fprintf(out, ",\"frames_from_board\":%" PRIu64 ",\"frames_to_board\":%" PRIu64, l->frames_in, l->frames_out);
	fprintf(out, ",\"pcap_dropped\":%" PRIu64 ",\"if_dropped\":%" PRIu64, l->dropped, l->if_dropped);
	key_str(out, ",", "tstamp", l->tstamp);
	key_num(out, ",", "slowdown", l->slowdown);
	fprintf(out, ",\"max_lag_ns\":%" PRId64 "},\n", l->max_lag_ns);
}

int rt_run_report_json(const struct rt_run_summary *s, FILE *out)
{
	struct rt_run_view v;
	if (rt_run_view_build(&v, s))
		return -1;
	key_str(out, "{", "dut", s->dut);
	key_path(out, ",", "build_id", s->build_id);
	fprintf(out, ",\"seed\":%" PRIu64, s->seed);
	if (s->shards)
		fprintf(out, ",\"shard\":{\"index\":%u,\"count\":%u}", s->shard, s->shards);
	key_str(out, ",", "started", s->started);
	key_num(out, ",", "wall_s", s->wall_s);
	fprintf(out, ",\"tests\":%zu,\"failures\":%" PRIu64 ",\"untimed\":%" PRIu64 ",\n", s->tests ? s->n_tests : 0,
		v.ix.failures, v.ix.untimed);
	if (s->live)
		write_live(out, s->live);
	write_suites(out, s, &v.ix);
	write_metrics(out, s, &v.ix, v.points, v.n_points);
	rt_run_view_free(&v);
	return rt_rep_finish(out);
}
