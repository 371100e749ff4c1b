/* SPDX-License-Identifier: MIT */
/*
 * summary.json back into struct rt_run_summary and its tests (the inverse
 * of harness/report/run_json.c), and the shards of one run joined. Every
 * field is checked for its type; a wrong one is an error naming the file,
 * the line and the field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/grow.h"
#include "rocetest/json_read.h"
#include "rocetest/run_read.h"

/* A number member into *out, which must hold it exactly (a count or an ID). */
static int read_count(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		      double max, uint64_t *out)
{
	const struct rt_jv *m = rt_jv_need(rd, obj, what, key, RT_JV_NUMBER);
	if (!m)
		return -1;
	if (m->number < 0 || m->number > max || m->number != floor(m->number))
		return rt_jv_fail(rd, m, "%s: \"%s\" is %g, not a whole number from 0 to %g", what, key, m->number, max);
	*out = (uint64_t)m->number;
	return 0;
}

static int read_u32(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		    uint32_t *out)
{
	uint64_t v;
	if (read_count(rd, obj, what, key, UINT32_MAX, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int read_u64(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		    uint64_t *out)
{
	/* Doubles hold every whole number up to 2^53 exactly; our counts stay below. */
	return read_count(rd, obj, what, key, 9007199254740992.0, out);
}

/* A number that may be null (0 then: the writer writes null for what it could not measure). */
static int read_real(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     double *out)
{
	if (rt_jv_opt_number(rd, obj, what, key, out))
		return -1;
	if (isnan(*out))
		*out = 0;
	return 0;
}

/* A string (or null: "") into buf, which must hold it. */
static int read_text(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     char *buf, size_t size)
{
	const char *s;
	if (rt_jv_opt_string(rd, obj, what, key, &s))
		return -1;
	if (strlen(s) >= size)
		return rt_jv_fail(rd, rt_jv_get(obj, key), "%s: \"%s\" is longer than %zu bytes", what, key, size - 1);
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static int read_flag(const struct rt_jv_reader *rd, const struct rt_jv *obj, const char *what, const char *key,
		     bool *out)
{
	const struct rt_jv *m = rt_jv_need(rd, obj, what, key, RT_JV_BOOL);
	if (m)
		*out = m->boolean;
	return m ? 0 : -1;
}

static int read_case(const struct rt_jv_reader *rd, const char *suite, const struct rt_jv *c, struct rt_run_result *r)
{
	memset(r, 0, sizeof *r);
	char what[160];
	if (read_text(rd, c, "a test case", "name", r->name, sizeof r->name))
		return -1;
	snprintf(r->suite, sizeof r->suite, "%s", suite);
	snprintf(what, sizeof what, "test '%s/%s'", r->suite, r->name);
	const struct rt_jv *link = rt_jv_need(rd, c, what, "link", RT_JV_OBJECT);
	const struct rt_jv *checker = link ? rt_jv_need(rd, c, what, "checker", RT_JV_OBJECT) : NULL;
	const struct rt_jv *bench = checker ? rt_jv_need(rd, c, what, "bench", RT_JV_OBJECT) : NULL;
	if (!bench)
		return -1;
	int bad = read_text(rd, c, what, "description", r->description, sizeof r->description) ||
		  read_flag(rd, c, what, "passed", &r->passed) || read_flag(rd, c, what, "untimed", &r->untimed) ||
		  read_text(rd, c, what, "failure", r->failure, sizeof r->failure) ||
		  read_u64(rd, c, what, "seed", &r->seed) || read_u64(rd, c, what, "cycles", &r->cycles) ||
		  read_u64(rd, c, what, "timer_ns", &r->timer_ns) || read_u64(rd, c, what, "reaction_ns", &r->reaction_ns) ||
		  read_real(rd, c, what, "sim_us", &r->sim_us) || read_real(rd, c, what, "wall_s", &r->wall_s) ||
		  read_u32(rd, c, what, "wrs", &r->wrs) || read_u32(rd, c, what, "completions", &r->completions) ||
		  read_u32(rd, c, what, "frames_to_peer", &r->frames_to_peer) ||
		  read_u32(rd, c, what, "frames_to_dut", &r->frames_to_dut) ||
		  read_u32(rd, c, what, "retransmissions", &r->retransmissions) ||
		  read_u32(rd, c, what, "timeouts", &r->timeouts) || read_u32(rd, c, what, "naks", &r->naks) ||
		  read_u32(rd, c, what, "rnr_naks", &r->rnr_naks) ||
		  read_u64(rd, link, what, "dropped", &r->link_dropped) ||
		  read_u64(rd, link, what, "duplicated", &r->link_duplicated) ||
		  read_u64(rd, link, what, "reordered", &r->link_reordered) ||
		  read_u64(rd, link, what, "corrupted", &r->link_corrupted) ||
		  read_u64(rd, checker, what, "errors", &r->checker_errors) ||
		  read_u64(rd, checker, what, "warnings", &r->checker_warnings) ||
		  read_text(rd, checker, what, "args", r->check_args, sizeof r->check_args) ||
		  read_u64(rd, c, what, "payload_bytes", &r->payload_bytes) ||
		  read_u32(rd, bench, what, "mem_latency", &r->mem_latency) ||
		  read_real(rd, bench, what, "p_stall", &r->p_stall) ||
		  read_u32(rd, c, what, "underrun_cycles", &r->underrun_cycles) ||
		  read_u32(rd, c, what, "underrun_frames", &r->underrun_frames) ||
		  read_text(rd, c, what, "pcap", r->pcap, sizeof r->pcap) ||
		  read_text(rd, c, what, "html", r->html, sizeof r->html) ||
		  read_text(rd, c, what, "scenario", r->scenario, sizeof r->scenario) ||
		  read_text(rd, c, what, "twin_gaps", r->twin_gaps, sizeof r->twin_gaps);
	return bad ? -1 : 0;
}

static struct rt_run_result *find_test(struct rt_run_read *r, const char *suite, const char *name)
{
	for (size_t i = 0; i < r->sum.n_tests; i++)
		if (!strcmp(r->tests[i].suite, suite) && !strcmp(r->tests[i].name, name))
			return &r->tests[i];
	return NULL;
}

/* metrics.goodput: the throughput tests' opcode, size and figures, back onto their tests. */
static int read_goodput(const struct rt_jv_reader *rd, const struct rt_jv *metrics, struct rt_run_read *r)
{
	const struct rt_jv *goodput = rt_jv_need(rd, metrics, "metrics", "goodput", RT_JV_ARRAY);
	if (!goodput)
		return -1;
	for (const struct rt_jv *g = goodput->child; g; g = g->next) {
		const char *what = "a goodput measurement";
		const struct rt_jv *suite = rt_jv_need(rd, g, what, "suite", RT_JV_STRING);
		const struct rt_jv *test = suite ? rt_jv_need(rd, g, what, "test", RT_JV_STRING) : NULL;
		const struct rt_jv *op = test ? rt_jv_need(rd, g, what, "opcode", RT_JV_STRING) : NULL;
		if (!op)
			return -1;
		struct rt_run_result *t = find_test(r, suite->string, test->string);
		if (!t)
			return rt_jv_fail(rd, g, "%s of '%s/%s', which is no test of the run", what, suite->string,
					  test->string);
		enum rt_dut_opcode opcode;
		if (!rt_dut_opcode_parse(op->string, &opcode))
			return rt_jv_fail(rd, op, "%s: \"opcode\" '%s' is not SEND, SEND_IMM, WRITE or WRITE_IMM", what,
					  op->string);
		t->has_goodput = true;
		t->opcode = (uint8_t)opcode;
		if (read_u32(rd, g, what, "msg_size", &t->msg_size) || read_real(rd, g, what, "gbps", &t->goodput_gbps) ||
		    read_real(rd, g, what, "limit_gbps", &t->limit_gbps))
			return -1;
	}
	return 0;
}

static int read_suites(const struct rt_jv_reader *rd, const struct rt_jv *suites, struct rt_run_read *r)
{
	for (const struct rt_jv *s = suites->child; s; s = s->next) {
		const struct rt_jv *name = rt_jv_need(rd, s, "a suite", "name", RT_JV_STRING);
		const struct rt_jv *cases = name ? rt_jv_need(rd, s, "a suite", "cases", RT_JV_ARRAY) : NULL;
		if (!cases)
			return -1;
		for (const struct rt_jv *c = cases->child; c; c = c->next) {
			if (!rt_grow((void **)&r->tests, &r->cap, r->sum.n_tests, sizeof *r->tests))
				return rt_jv_fail(rd, NULL, "out of memory");
			if (read_case(rd, name->string, c, &r->tests[r->sum.n_tests]))
				return -1;
			r->sum.n_tests++;
		}
	}
	return 0;
}

static int read_run(const struct rt_jv_reader *rd, const struct rt_jv *root, struct rt_run_read *r)
{
	struct rt_run_summary *s = &r->sum;
	const char *what = "the run";
	if (rt_jv_get(root, "live"))
		return rt_jv_fail(rd, rt_jv_get(root, "live"), "a board's run (\"live\"): its live path's totals cannot "
				  "be joined with another run's");
	const struct rt_jv *suites = rt_jv_need(rd, root, what, "suites", RT_JV_ARRAY);
	const struct rt_jv *metrics = suites ? rt_jv_need(rd, root, what, "metrics", RT_JV_OBJECT) : NULL;
	if (!metrics || read_text(rd, root, what, "dut", s->dut, sizeof s->dut) ||
	    read_text(rd, root, what, "build_id", s->build_id, sizeof s->build_id) ||
	    read_u64(rd, root, what, "seed", &s->seed) ||
	    read_text(rd, root, what, "started", s->started, sizeof s->started) ||
	    read_real(rd, root, what, "wall_s", &s->wall_s) || read_u64(rd, metrics, "metrics", "sim_cycles", &s->cycles) ||
	    read_real(rd, metrics, "metrics", "sim_cycles_per_s", &s->cycles_per_s) ||
	    read_real(rd, metrics, "metrics", "clk_hz", &s->clk_hz) ||
	    read_real(rd, metrics, "metrics", "line_gbps", &s->line_gbps) ||
	    read_u32(rd, metrics, "metrics", "pmtu", &s->pmtu))
		return -1;
	const struct rt_jv *shard = rt_jv_get(root, "shard");
	if (shard) {
		uint32_t index, count;
		if (shard->type != RT_JV_OBJECT)
			return rt_jv_fail(rd, shard, "\"shard\" is %s, not an object", rt_jv_type_word(shard));
		if (read_u32(rd, shard, "\"shard\"", "index", &index) || read_u32(rd, shard, "\"shard\"", "count", &count))
			return -1;
		if (!count || !index || index > count)
			return rt_jv_fail(rd, shard, "\"shard\": %u of %u is no shard", index, count);
		s->shard = index;
		s->shards = count;
	}
	if (read_suites(rd, suites, r) || read_goodput(rd, metrics, r))
		return -1;
	s->tests = r->tests;
	return 0;
}

int rt_run_read_summary(struct rt_run_read *r, const char *path, struct rt_error *err)
{
	memset(r, 0, sizeof *r);
	struct rt_json_doc *doc = rt_json_load(path, err);
	if (!doc)
		return -1;
	struct rt_jv_reader rd = { .file = path, .err = err };
	const struct rt_jv *root = rt_json_root(doc);
	int rc = root->type == RT_JV_OBJECT ? read_run(&rd, root, r)
					    : rt_jv_fail(&rd, root, "not a summary.json of rocetest run (no object)");
	rt_json_free(doc);
	if (rc)
		rt_run_read_free(r);
	return rc;
}

void rt_run_read_free(struct rt_run_read *r)
{
	free(r->tests);
	memset(r, 0, sizeof *r);
}

/* ---- shards joined ---------------------------------------------------------- */

/* The shard of shards[] that is shard index (1-based), or NULL. */
static const struct rt_run_read *shard_at(const struct rt_run_read *shards, size_t n, unsigned index)
{
	for (size_t i = 0; i < n; i++)
		if (shards[i].sum.shard == index)
			return &shards[i];
	return NULL;
}

static int check_shards(const struct rt_run_read *shards, size_t n, const char *const *names, struct rt_error *err)
{
	const struct rt_run_summary *a = &shards[0].sum;
	for (size_t i = 0; i < n; i++) {
		const struct rt_run_summary *s = &shards[i].sum;
		if (!s->shards) {
			rt_error_set(err, "%s: not a shard (a run of rocetest run --shard I/N)", names[i]);
			return -1;
		}
		if (s->shards != a->shards) {
			rt_error_set(err, "%s is shard %u of %u, %s of %u: shards of different splits", names[i],
				     s->shard, s->shards, names[0], a->shards);
			return -1;
		}
		if (strcmp(s->dut, a->dut) || strcmp(s->build_id, a->build_id) || s->seed != a->seed ||
		    s->clk_hz != a->clk_hz) {
			rt_error_set(err, "%s and %s are not shards of one run: their device, build or seed differ",
				     names[0], names[i]);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (shards[j].sum.shard == s->shard) {
				rt_error_set(err, "%s and %s are both shard %u of %u", names[j], names[i], s->shard,
					     s->shards);
				return -1;
			}
	}
	for (unsigned k = 1; k <= a->shards; k++)
		if (!shard_at(shards, n, k)) {
			rt_error_set(err, "shard %u of %u is missing: the run is not whole without it", k, a->shards);
			return -1;
		}
	return 0;
}

int rt_run_merge(struct rt_run_read *out, const struct rt_run_read *shards, size_t n, const char *const *names,
		 struct rt_error *err)
{
	memset(out, 0, sizeof *out);
	if (!n) {
		rt_error_set(err, "no shard to join");
		return -1;
	}
	if (check_shards(shards, n, names, err))
		return -1;
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += shards[i].sum.n_tests;
	out->tests = calloc(total ? total : 1, sizeof *out->tests);
	if (!out->tests) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	out->cap = total;
	out->sum = shards[0].sum;
	out->sum.shard = out->sum.shards = 0;
	out->sum.wall_s = 0;
	out->sum.cycles = 0;
	/* The selection's test k went to shard k % N + 1, as its (k / N)-th test. */
	unsigned count = shards[0].sum.shards;
	double test_wall = 0;
	for (size_t k = 0; k < total; k++) {
		const struct rt_run_read *s = shard_at(shards, n, (unsigned)(k % count) + 1);
		size_t at = k / count;
		if (at >= s->sum.n_tests) {
			rt_error_set(err, "shard %u of %u holds %zu tests, where the split gives it test %zu: not "
				     "shards of one selection", s->sum.shard, count, s->sum.n_tests, at + 1);
			rt_run_read_free(out);
			return -1;
		}
		out->tests[k] = s->tests[at];
		test_wall += s->tests[at].wall_s;
		out->sum.cycles += s->tests[at].cycles;
	}
	for (size_t i = 0; i < n; i++) {
		out->sum.wall_s += shards[i].sum.wall_s;
		if (strcmp(shards[i].sum.started, out->sum.started) < 0)
			memcpy(out->sum.started, shards[i].sum.started, sizeof out->sum.started);
	}
	out->sum.cycles_per_s = test_wall > 0 ? (double)out->sum.cycles / test_wall : 0;
	out->sum.tests = out->tests;
	out->sum.n_tests = total;
	return 0;
}
