/* SPDX-License-Identifier: MIT */
/*
 * The diff's driver: two passes over both captures, a checker per capture
 * and pass. The first pass summarises each flow (diff_collect.c) and ends
 * in pairing (diff_pair.c); the second feeds each paired flow's messages
 * to the alignment (diff_compare.c), reading from the capture that is
 * behind, or from the other one when this one's queues are full.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

struct rt_diff {
	struct diff_state st;
	int pass;			/* 1, 2, then 3: done */
};

void rt_diff_options_init(struct rt_diff_options *o)
{
	memset(o, 0, sizeof *o);
	rt_diff_profile_builtin(&o->profile, "connectx");
}

/* Capture k's checker for a pass: the first summarises flows, the second hands over messages to align. */
static int new_checker(struct rt_diff *d, int k, int pass, struct rt_error *err)
{
	struct diff_capture *cap = &d->st.cap[k];
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	if (pass == 1) {
		cfg.on_packet = diff_on_packet;
		cfg.on_message = diff_summarize;
	} else {
		cfg.ladder_flows = d->st.opt.ladder_flows;
		cfg.on_message = diff_enqueue;
		cfg.message_payload = d->st.opt.payload;
	}
	cfg.ctx = cap;
	rt_checker_free(cap->checker);
	cap->checker = rt_checker_new(&cfg, err);
	cap->ended = false;
	cap->frames_read = 0;
	return cap->checker ? 0 : -1;
}

struct rt_diff *rt_diff_new(const struct rt_diff_options *o, struct rt_error *err)
{
	struct rt_diff *d = calloc(1, sizeof *d);
	if (!d) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	d->st.opt = *o;
	d->pass = 1;
	for (int k = 0; k < 2; k++) {
		d->st.cap[k].st = &d->st;
		d->st.cap[k].k = k;
		if (new_checker(d, k, 1, err)) {
			rt_diff_free(d);
			return NULL;
		}
	}
	return d;
}

void rt_diff_free(struct rt_diff *d)
{
	if (!d)
		return;
	for (size_t p = 0; d->st.dirs && p < d->st.res.n_pairs; p++)
		for (int s = 0; s < 2; s++)
			for (int k = 0; k < 2; k++) {
				free(d->st.dirs[p][s].q[k].ring);
				free(d->st.dirs[p][s].delays[k]);
			}
	free(d->st.dirs);
	for (int k = 0; k < 2; k++)
		diff_capture_free(&d->st.cap[k]);
	free(d->st.pairs);
	free(d->st.diffs);
	free(d);
}

void rt_diff_frame(struct rt_diff *d, int capture, enum rt_link link, uint64_t frame, int64_t ts_ns,
		   const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	struct diff_capture *cap = &d->st.cap[capture & 1];
	cap->frames_read++;
	rt_checker_frame(cap->checker, link, frame, ts_ns, data, caplen, wirelen);
}

/* Pairs flows, then sets up the second pass: the queues of each pair's directions, fresh checkers. */
static int start_second_pass(struct rt_diff *d, struct rt_error *err)
{
	struct diff_state *st = &d->st;
	if (diff_pair_flows(st, err))
		return -1;
	st->dirs = calloc(st->res.n_pairs + 1, sizeof *st->dirs);
	if (!st->dirs) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	for (size_t p = 0; p < st->res.n_pairs; p++) {
		struct rt_diff_pair *pair = &st->pairs[p];
		struct diff_flow *fa = &st->cap[0].flows[pair->flow_a - 1], *fb = &st->cap[1].flows[pair->flow_b - 1];
		fa->pair = fb->pair = (uint32_t)p + 1;
		for (int s = 0; s < 2; s++) {
			pair->messages_a[s] = st->dirs[p][s].q[0].total = fa->messages[s];
			pair->messages_b[s] = st->dirs[p][s].q[1].total = fb->messages[s ^ pair->swapped];
		}
	}
	d->pass = 2;
	for (int k = 0; k < 2; k++)
		if (new_checker(d, k, 2, err))
			return -1;
	return 0;
}

static int cmp_differences(const void *x, const void *y)
{
	const struct rt_diff_difference *p = x, *q = y;
	/* Per pair: each direction's fields, then each side's, then the flow's; in each, as found. */
	int gp = p->field == RT_DIFF_UDP_SPORT ? 4 : p->field >= RT_DIFF_TOS && p->field != RT_DIFF_ACK_CREDIT ? 2 + p->side
										       : p->side;
	int gq = q->field == RT_DIFF_UDP_SPORT ? 4 : q->field >= RT_DIFF_TOS && q->field != RT_DIFF_ACK_CREDIT ? 2 + q->side
										       : q->side;
	if (p->pair != q->pair)
		return p->pair < q->pair ? -1 : 1;
	if (gp != gq)
		return gp < gq ? -1 : 1;
	return (p->order > q->order) - (p->order < q->order);
}

static void finish_second_pass(struct rt_diff *d)
{
	struct diff_state *st = &d->st;
	for (size_t p = 0; p < st->res.n_pairs; p++)
		diff_finish_pair(st, p);
	for (int k = 0; k < 2; k++) {
		const struct rt_check_totals *t = rt_checker_totals(st->cap[k].checker);
		st->res.frames[k] = t->frames;
		st->res.packets[k] = t->roce_packets - t->untracked;
		st->failed |= st->cap[k].failed;
	}
	if (st->res.n_differences)
		qsort(st->diffs, st->res.n_differences, sizeof *st->diffs, cmp_differences);
	d->pass = 3;
}

int rt_diff_end(struct rt_diff *d, int capture, struct rt_error *err)
{
	struct diff_state *st = &d->st;
	struct diff_capture *cap = &st->cap[capture & 1];
	err->msg[0] = '\0';
	if (cap->ended || d->pass > 2)
		return 0;
	rt_checker_finish(cap->checker);
	cap->ended = true;
	if (d->pass == 1) {
		cap->frames_total = cap->frames_read;
		if (st->cap[0].ended && st->cap[1].ended && start_second_pass(d, err))
			return -1;
		return 0;
	}
	/* What waited for more of this capture: it has no more. */
	for (size_t p = 0; p < st->res.n_pairs; p++)
		for (int s = 0; s < 2; s++)
			diff_align(st, p, s, false);
	if (st->cap[0].ended && st->cap[1].ended)
		finish_second_pass(d);
	if (st->failed) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	return 0;
}

/* Both captures wait on the other: a direction with a full queue steps anyway. False: none is full. */
static bool unblock(struct diff_state *st)
{
	for (size_t p = 0; p < st->res.n_pairs; p++)
		for (int s = 0; s < 2; s++)
			for (int k = 0; k < 2; k++)
				if (diff_queue_len(&st->dirs[p][s].q[k]) >= DIFF_WINDOW) {
					diff_align(st, p, s, true);
					diff_align(st, p, s, false);
					return true;
				}
	return false;
}

int rt_diff_wants(struct rt_diff *d)
{
	struct diff_state *st = &d->st;
	if (d->pass == 1)
		return !st->cap[0].ended ? 0 : 1;
	if (d->pass > 2)
		return -1;
	if (st->cap[0].ended || st->cap[1].ended)
		return st->cap[0].ended ? 1 : 0;
	while (st->full[0] && st->full[1] && unblock(st))
		;
	if (st->full[0] || st->full[1])
		return st->full[0] ? 1 : 0;
	/* The capture further behind, by the share of its frames read. */
	const struct diff_capture *a = &st->cap[0], *b = &st->cap[1];
	return (double)a->frames_read * (double)b->frames_total <= (double)b->frames_read * (double)a->frames_total ? 0 : 1;
}

int rt_diff_finish(struct rt_diff *d, struct rt_error *err)
{
	if (d->pass < 3) {
		rt_error_set(err, "the diff has not read both captures twice");
		return -1;
	}
	if (d->st.failed) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	return 0;
}

const struct rt_diff_result *rt_diff_result(const struct rt_diff *d)
{
	return &d->st.res;
}

const struct rt_checker *rt_diff_checker(const struct rt_diff *d, int capture)
{
	return d->st.cap[capture & 1].checker;
}

const struct rt_diff_options *rt_diff_options(const struct rt_diff *d)
{
	return &d->st.opt;
}
