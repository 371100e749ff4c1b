/* SPDX-License-Identifier: MIT */
/*
 * Two model QPs on a simulated link (wire.h), in virtual time.
 *
 * The loop: at the current time, start the work that is due, let the QPs'
 * timers act, deliver what has arrived, let each idle transmitter send; when
 * nothing more happens at this time, jump to the next time anything can.
 *
 * The capture: each frame the tap sees is held, copied, until it is
 * recorded, per direction in order. Without a skew it is recorded at once;
 * with one, the tapped node's frames wait and the two directions merge by
 * recording time. A frame is held even then, because a capture at its
 * sender sees it before the link's faults say whether it is missed.
 */
#include <stdlib.h>
#include <string.h>

#include "rocetest/sim.h"
#include "rocetest/splitmix.h"

/* Most frames a skewed capture holds back at once. */
#define TAP_HELD_MAX 4096

/* A frame the capture has seen and records at `at`. */
struct held {
	int64_t at;
	uint64_t seq;		/* ties in recording time keep the order of seeing */
	uint32_t len;
	enum rt_qp_bug bug;
	bool faulted;
	bool missed;
	uint8_t *data;
};

/* One direction's frames waiting to be recorded, oldest first: a ring of cap. */
struct tap_queue {
	struct held *q;
	uint8_t *data;	/* cap frames of max_frame bytes */
	unsigned cap, head, n;
};

struct rt_sim {
	struct rt_sim_config cfg;
	struct rt_qp *qp[2];
	struct rt_wire *link;
	/* Work at times, sorted before the run. */
	struct rt_sim_action *actions;
	unsigned n_actions, cap_actions, next_action;
	int64_t now;
	size_t max_frame;
	struct tap_queue tapq[2];
	uint64_t tap_seq;
};

static bool tap_at_sender(const struct rt_sim_config *cfg, unsigned dir)
{
	return (cfg->tap == RT_TAP_A && dir == 0) || (cfg->tap == RT_TAP_B && dir == 1);
}

/* The tap's queues: the skewed direction holds up to TAP_HELD_MAX frames, the other one. */
static int tap_init(struct rt_sim *sim, struct rt_error *err)
{
	const struct rt_sim_config *c = &sim->cfg;
	if (c->tap_skew_ns < 0 || (c->tap_skew_ns && c->tap != RT_TAP_A && c->tap != RT_TAP_B)) {
		rt_error_set(err, "capture skew %lld ns: needs a capture at a node's port, and >= 0",
			     (long long)c->tap_skew_ns);
		return -1;
	}
	for (unsigned d = 0; d < 2; d++) {
		struct tap_queue *t = &sim->tapq[d];
		t->cap = c->tap_skew_ns && tap_at_sender(c, d) ? TAP_HELD_MAX : 1;
		t->q = calloc(t->cap, sizeof *t->q);
		t->data = malloc(t->cap * sim->max_frame);
		if (!t->q || !t->data) {
			rt_error_set(err, "out of memory for the capture's %u frames", t->cap);
			return -1;
		}
	}
	return 0;
}

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
	sim->max_frame = max_frame;
	sim->link = rt_wire_new(&lc, err);
	if (!sim->link || tap_init(sim, err)) {
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
	for (unsigned d = 0; d < 2; d++) {
		free(sim->tapq[d].q);
		free(sim->tapq[d].data);
	}
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

/* A copy of a frame the tap sees, to be recorded at `at`; NULL with err set when the queue is full. */
static struct held *tap_hold(struct rt_sim *sim, unsigned dir, int64_t at, const uint8_t *data, uint32_t len,
			     enum rt_qp_bug bug, bool faulted, struct rt_error *err)
{
	struct tap_queue *t = &sim->tapq[dir];
	if (t->n == t->cap) {
		rt_error_set(err, "capture: more than %u frames of %s wait to be recorded (a skew of %lld ns is too long)",
			     t->cap, dir ? "b" : "a", (long long)sim->cfg.tap_skew_ns);
		return NULL;
	}
	unsigned i = (t->head + t->n++) % t->cap;
	struct held *h = &t->q[i];
	*h = (struct held){ .at = at, .seq = sim->tap_seq++, .len = len, .bug = bug, .faulted = faulted,
			    .data = t->data + i * sim->max_frame };
	memcpy(h->data, data, len);
	return h;
}

/* The earlier of the two queues' oldest frames, if it is due by now (any, with flush); -1: none. */
static int tap_due(const struct rt_sim *sim, int64_t now, bool flush)
{
	const struct held *h[2] = { NULL, NULL };
	for (unsigned d = 0; d < 2; d++) {
		const struct tap_queue *t = &sim->tapq[d];
		if (t->n && (flush || t->q[t->head].at <= now))
			h[d] = &t->q[t->head];
	}
	if (!h[0] && !h[1])
		return -1;
	if (!h[0] || !h[1])
		return h[1] != NULL;
	return h[1]->at < h[0]->at || (h[1]->at == h[0]->at && h[1]->seq < h[0]->seq);
}

/* Records, in order, the held frames due by now (all of them with flush); missed ones are dropped. */
static int tap_release(struct rt_sim *sim, bool flush, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	int d;
	while ((d = tap_due(sim, sim->now, flush)) >= 0) {
		struct tap_queue *t = &sim->tapq[d];
		const struct held *h = &t->q[t->head];
		t->head = (t->head + 1) % t->cap;
		t->n--;
		if (h->missed)
			continue;
		struct rt_tap_frame f = { .time_ns = h->at, .dir = (uint8_t)d, .data = h->data, .len = h->len,
					  .bug = h->bug, .faulted = h->faulted };
		if (fn(ctx, &f, err))
			return -1;
	}
	return 0;
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
	struct held *h = NULL;
	/* As sent: held before the link's faults change the bytes. */
	if (fn && tap_at_sender(&sim->cfg, dir) &&
	    !(h = tap_hold(sim, dir, sim->now + sim->cfg.tap_skew_ns, buf, (uint32_t)len, bug, false, err)))
		return -1;
	rt_wire_send(sim->link, dir, sim->now, buf, (uint32_t)len, bug);
	if (!h)
		return 0;
	h->missed = rt_wire_last_missed(sim->link, dir);
	return tap_release(sim, false, fn, ctx, err);
}

static int deliver(struct rt_sim *sim, const struct rt_wire_frame *f, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	if (fn && !tap_at_sender(&sim->cfg, f->dir)) {
		struct held *h = tap_hold(sim, f->dir, f->arrive, f->data, f->len, f->bug, f->faulted, err);
		if (!h)
			return -1;
		h->missed = f->missed;
		if (tap_release(sim, false, fn, ctx, err))
			return -1;
	}
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

static enum rt_sim_end run_loop(struct rt_sim *sim, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
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

enum rt_sim_end rt_sim_run(struct rt_sim *sim, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	sort_actions(sim);
	enum rt_sim_end end = run_loop(sim, fn, ctx, err);
	/* What a skewed capture still holds is recorded after the last event. */
	if (end != RT_SIM_ERROR && fn && tap_release(sim, true, fn, ctx, err))
		return RT_SIM_ERROR;
	return end;
}
