/* SPDX-License-Identifier: MIT */
/* The diff's driver: a checker per capture feeding diff_collect.c, then pairing and comparing. */
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

struct rt_diff {
	struct diff_state st;
	bool finished;
};

void rt_diff_options_init(struct rt_diff_options *o)
{
	memset(o, 0, sizeof *o);
	rt_diff_profile_builtin(&o->profile, "connectx");
}

struct rt_diff *rt_diff_new(const struct rt_diff_options *o, struct rt_error *err)
{
	struct rt_diff *d = calloc(1, sizeof *d);
	if (!d) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	d->st.opt = *o;
	for (int k = 0; k < 2; k++) {
		struct rt_check_config cfg;
		rt_check_config_init(&cfg);
		cfg.ladder_flows = o->ladder_flows;
		cfg.on_packet = diff_on_packet;
		cfg.ctx = &d->st.cap[k];
		d->st.cap[k].payload = o->payload;
		d->st.cap[k].checker = rt_checker_new(&cfg, err);
		if (!d->st.cap[k].checker) {
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
	for (int k = 0; k < 2; k++)
		diff_capture_free(&d->st.cap[k]);
	free(d->st.pairs);
	free(d->st.diffs);
	free(d);
}

void rt_diff_frame(struct rt_diff *d, int capture, enum rt_link link, uint64_t frame, int64_t ts_ns,
		   const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	rt_checker_frame(d->st.cap[capture & 1].checker, link, frame, ts_ns, data, caplen, wirelen);
}

int rt_diff_finish(struct rt_diff *d, struct rt_error *err)
{
	struct diff_state *st = &d->st;
	if (d->finished)
		return 0;
	d->finished = true;
	err->msg[0] = '\0';
	for (int k = 0; k < 2; k++) {
		rt_checker_finish(st->cap[k].checker);
		const struct rt_check_totals *t = rt_checker_totals(st->cap[k].checker);
		st->res.frames[k] = t->frames;
		st->res.packets[k] = t->roce_packets - t->untracked;
		st->failed |= st->cap[k].failed;
	}
	if (!st->failed && diff_pair_flows(st, err))
		return -1;
	for (size_t i = 0; i < st->res.n_pairs && !st->failed; i++)
		diff_compare_pair(st, &st->pairs[i]);
	if (st->failed) {
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
