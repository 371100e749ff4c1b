/* SPDX-License-Identifier: MIT */
/*
 * Two model QPs on a simulated link (wire.h), in virtual time.
 *
 * The loop: at the current time, start the work that is due, let the QPs'
 * timers act, deliver what has arrived, let each idle transmitter send; when
 * nothing more happens at this time, jump to the next time anything can.
 */
#include <stdlib.h>
#include <string.h>

#include "rocetest/sim.h"
#include "rocetest/splitmix.h"

struct rt_sim {
	struct rt_sim_config cfg;
	struct rt_qp *qp[2];
	struct rt_wire *link;
	/* Work at times, sorted before the run. */
	struct rt_sim_action *actions;
	unsigned n_actions, cap_actions, next_action;
	int64_t now;
};

struct rt_sim *rt_sim_new(const struct rt_sim_config *cfg, struct rt_error *err)
{
	struct rt_sim *sim = calloc(1, sizeof *sim);
	if (!sim) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	sim->cfg = *cfg;
	size_t max_frame = 0;
	if (!sim->cfg.rate_bps)
		sim->cfg.rate_bps = 100000000000ull;
	if (!sim->cfg.time_limit_ns)
		sim->cfg.time_limit_ns = 10000000000ll;
	for (unsigned i = 0; i < 2; i++) {
		struct rt_error qerr;
		sim->qp[i] = rt_qp_new(&cfg->node[i], &qerr);
		if (!sim->qp[i]) {
			rt_error_set(err, "node %c: %s", 'a' + i, qerr.msg);
			rt_sim_free(sim);
			return NULL;
		}
		/* Each end's memory starts with its own bytes, so data that moves can be told apart. */
		uint64_t state = cfg->seed * 2 + i;
		rt_fill_random(rt_qp_memory(sim->qp[i]), cfg->node[i].mem_size, &state);
		size_t m = rt_qp_max_frame(sim->qp[i]);
		if (m > max_frame)
			max_frame = m;
	}
	struct rt_wire_config lc = { .delay_ns = cfg->delay_ns, .rate_bps = sim->cfg.rate_bps, .max_frame = max_frame,
				     .n_faults = cfg->n_faults };
	memcpy(lc.faults, cfg->faults, sizeof lc.faults);
	sim->link = rt_wire_new(&lc, err);
	if (!sim->link) {
		rt_sim_free(sim);
		return NULL;
	}
	return sim;
}

void rt_sim_free(struct rt_sim *sim)
{
	if (!sim)
		return;
	rt_qp_free(sim->qp[0]);
	rt_qp_free(sim->qp[1]);
	rt_wire_free(sim->link);
	free(sim->actions);
	free(sim);
}

struct rt_qp *rt_sim_qp(struct rt_sim *sim, unsigned node)
{
	return node < 2 ? sim->qp[node] : NULL;
}

int64_t rt_sim_now(const struct rt_sim *sim)
{
	return sim->now;
}

const struct rt_link_stats *rt_sim_link_stats(const struct rt_sim *sim, unsigned dir)
{
	return rt_wire_stats(sim->link, dir);
}

int rt_sim_schedule(struct rt_sim *sim, const struct rt_sim_action *a, struct rt_error *err)
{
	if (a->node > 1 || a->at_ns < 0) {
		rt_error_set(err, "action for node %u at %lld ns: node must be 0 or 1, time >= 0", a->node,
			     (long long)a->at_ns);
		return -1;
	}
	if (sim->n_actions == sim->cap_actions) {
		unsigned cap = sim->cap_actions ? sim->cap_actions * 2 : 64;
		struct rt_sim_action *n = realloc(sim->actions, cap * sizeof *n);
		if (!n) {
			rt_error_set(err, "out of memory for %u actions", cap);
			return -1;
		}
		sim->actions = n;
		sim->cap_actions = cap;
	}
	sim->actions[sim->n_actions++] = *a;
	return 0;
}

static bool tap_at_sender(const struct rt_sim *sim, unsigned dir)
{
	return (sim->cfg.tap == RT_TAP_A && dir == 0) || (sim->cfg.tap == RT_TAP_B && dir == 1);
}

static int tap(rt_tap_fn fn, void *ctx, int64_t t, unsigned dir, const uint8_t *data,
	       uint32_t len, enum rt_qp_bug bug, bool faulted, struct rt_error *err)
{
	if (!fn)
		return 0;
	struct rt_tap_frame f = { .time_ns = t, .dir = (uint8_t)dir, .data = data, .len = len, .bug = bug,
				  .faulted = faulted };
	return fn(ctx, &f, err);
}

/* Node dir's next frame, if it has one now: built in place in the link, tapped, sent. */
static int transmit(struct rt_sim *sim, unsigned dir, bool *sent, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	enum rt_qp_bug bug;
	uint8_t *buf = rt_wire_frame_buffer(sim->link, dir);
	size_t len = rt_qp_next_frame(sim->qp[dir], sim->now, buf, rt_qp_max_frame(sim->qp[dir]), &bug);
	if (!len)
		return 0;
	*sent = true;
	if (tap_at_sender(sim, dir) && tap(fn, ctx, sim->now, dir, buf, (uint32_t)len, bug, false, err))
		return -1;
	rt_wire_send(sim->link, dir, sim->now, buf, (uint32_t)len, bug);
	return 0;
}

static int deliver(struct rt_sim *sim, const struct rt_wire_frame *f, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	if (!tap_at_sender(sim, f->dir) && tap(fn, ctx, f->arrive, f->dir, f->data, f->len, f->bug, f->faulted, err))
		return -1;
	/*
	 * The receiving QP need not verify an ICRC the builder computed and
	 * nothing changed since; a frame the link altered or whose sender
	 * broke its ICRC on purpose is verified like any other.
	 */
	bool intact = !f->faulted && f->bug != RT_BUG_BAD_ICRC;
	rt_qp_receive_frame(sim->qp[1 - f->dir], f->arrive, f->data, f->len, intact);
	return 0;
}

static int apply_action(struct rt_sim *sim, const struct rt_sim_action *a, struct rt_error *err)
{
	struct rt_qp *qp = sim->qp[a->node];
	struct rt_error qerr;
	int rc = 0;
	switch (a->kind) {
	case RT_ACTION_SEND:
		rc = rt_qp_post_send(qp, &a->wr, &qerr);
		break;
	case RT_ACTION_RECV: {
		struct rt_recv_wr r = { .wr_id = a->recv_wr_id };
		rc = rt_qp_post_recv(qp, &r, &qerr);
		break;
	}
	case RT_ACTION_CNP:
		rt_qp_request_cnp(qp);
		break;
	}
	if (rc)
		rt_error_set(err, "node %c at %lld ns: %s", 'a' + a->node, (long long)a->at_ns, qerr.msg);
	return rc;
}

static void sort_actions(struct rt_sim *sim)
{
	/* Stable order by time: sort (time, original index) pairs. */
	unsigned n = sim->n_actions - sim->next_action;
	struct rt_sim_action *base = sim->actions + sim->next_action;
	bool sorted = true;
	for (unsigned i = 1; i < n && sorted; i++)
		sorted = base[i - 1].at_ns <= base[i].at_ns;
	if (sorted)
		return;
	/* Insertion sort keeps equal times in order; scenario files hold few timed lines. */
	for (unsigned i = 1; i < n; i++) {
		struct rt_sim_action a = base[i];
		unsigned j = i;
		while (j && base[j - 1].at_ns > a.at_ns) {
			base[j] = base[j - 1];
			j--;
		}
		base[j] = a;
	}
}

enum rt_sim_end rt_sim_run(struct rt_sim *sim, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	sort_actions(sim);
	for (;;) {
		bool busy = false;
		while (sim->next_action < sim->n_actions && sim->actions[sim->next_action].at_ns <= sim->now) {
			if (apply_action(sim, &sim->actions[sim->next_action++], err))
				return RT_SIM_ERROR;
			busy = true;
		}
		for (unsigned i = 0; i < 2; i++)
			if (rt_qp_next_deadline(sim->qp[i]) <= sim->now)
				rt_qp_advance(sim->qp[i], sim->now);
		struct rt_wire_frame f;
		while (rt_wire_receive(sim->link, sim->now, &f)) {
			if (deliver(sim, &f, fn, ctx, err))
				return RT_SIM_ERROR;
			busy = true;
		}
		for (unsigned i = 0; i < 2; i++)
			if (rt_wire_tx_free(sim->link, i) <= sim->now && transmit(sim, i, &busy, fn, ctx, err))
				return RT_SIM_ERROR;
		if (busy)
			continue;

		/* Nothing more at this time: the next time anything can happen. */
		int64_t next = INT64_MAX;
		if (sim->next_action < sim->n_actions)
			next = sim->actions[sim->next_action].at_ns;
		if (rt_wire_next_arrival(sim->link) < next)
			next = rt_wire_next_arrival(sim->link);
		for (unsigned i = 0; i < 2; i++) {
			int64_t t = rt_qp_next_deadline(sim->qp[i]);
			if (t < next)
				next = t;
			int64_t free_at = rt_wire_tx_free(sim->link, i);
			if (free_at > sim->now && free_at < next && !rt_qp_idle(sim->qp[i]))
				next = free_at;
		}
		if (next == INT64_MAX)
			return rt_qp_idle(sim->qp[0]) && rt_qp_idle(sim->qp[1]) ? RT_SIM_IDLE : RT_SIM_STALLED;
		if (next > sim->cfg.time_limit_ns) {
			sim->now = sim->cfg.time_limit_ns;
			return RT_SIM_TIME_LIMIT;
		}
		/* A deadline that did not act (it cannot happen) must not stall the clock. */
		sim->now = next > sim->now ? next : sim->now + 1;
	}
}
