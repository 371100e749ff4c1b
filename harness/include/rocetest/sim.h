/* SPDX-License-Identifier: MIT */
/* Layer: model. */
/*
 * Two model QPs joined by a simulated link, run in virtual time. The link
 * serialises frames at its rate, delays them, and applies the faults a test
 * asks for (drop, duplicate, reorder, delay, corrupt, ECN-mark) to chosen
 * frames. A tap reports every frame where a capture would see it, in the
 * order the capture records them; a frame a miss fault hits is left out.
 *
 * Deterministic: the same configuration, work and seed give the same frames
 * at the same times.
 */
#ifndef ROCETEST_SIM_H
#define ROCETEST_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/error.h"
#include "rocetest/wire.h"
#include "rocetest/model.h"

/* Where the capture is taken. */
enum rt_tap {
	RT_TAP_RECEIVER,	/* each frame as it arrives (lost frames are not seen) */
	RT_TAP_A,		/* at a's port: a's frames as sent, b's as they arrive */
	RT_TAP_B,		/* at b's port */
};

struct rt_sim_config {
	struct rt_qp_config node[2];
	int64_t delay_ns;	/* one-way propagation delay */
	uint64_t rate_bps;	/* link rate; 0: 100 Gb/s */
	enum rt_tap tap;
	/*
	 * RT_TAP_A/B only: the tapped node's own frames are recorded this long
	 * after they leave, as by a mirror port or ibdump that reads the port's
	 * sent frames from a queue lagging behind its received ones; 0: none.
	 */
	int64_t tap_skew_ns;
	int64_t time_limit_ns;	/* stop here even if work remains (0: 10 s) */
	uint64_t seed;		/* memory contents */
	struct rt_fault faults[RT_SIM_MAX_FAULTS];
	unsigned n_faults;
};
void rt_sim_config_init(struct rt_sim_config *cfg);

/* A frame at the tap. */
struct rt_tap_frame {
	int64_t time_ns;	/* when the capture records it */
	uint8_t dir;		/* 0: a to b */
	const uint8_t *data;
	uint32_t len;
	enum rt_qp_bug bug;	/* the misbehaviour the sender put into it */
	bool faulted;		/* a link fault changed it (corrupt, CE) */
};
typedef int (*rt_tap_fn)(void *ctx, const struct rt_tap_frame *f, struct rt_error *err);

struct rt_sim;

struct rt_sim *rt_sim_new(const struct rt_sim_config *cfg, struct rt_error *err);
void rt_sim_free(struct rt_sim *sim);
struct rt_qp *rt_sim_qp(struct rt_sim *sim, unsigned node);

/* Work at a virtual time (0: at the start). Actions with equal times keep their order. */
enum rt_sim_action_kind {
	RT_ACTION_SEND,
	RT_ACTION_RECV,
	RT_ACTION_CNP,
};
struct rt_sim_action {
	int64_t at_ns;
	uint8_t node;
	enum rt_sim_action_kind kind;
	struct rt_send_wr wr;		/* SEND */
	uint64_t recv_wr_id;		/* RECV */
};
int rt_sim_schedule(struct rt_sim *sim, const struct rt_sim_action *a, struct rt_error *err);

/* Why a run ended. */
enum rt_sim_end {
	RT_SIM_IDLE,		/* both QPs idle, nothing in flight or scheduled */
	RT_SIM_TIME_LIMIT,	/* time_limit_ns reached with work remaining */
	RT_SIM_STALLED,		/* work remains but nothing can move it (no timer, nothing in flight) */
	RT_SIM_ERROR,		/* a work request was refused or the tap failed (err says why) */
};

/* Runs until idle or the time limit, calling tap for every captured frame. */
enum rt_sim_end rt_sim_run(struct rt_sim *sim, rt_tap_fn tap, void *ctx, struct rt_error *err);
int64_t rt_sim_now(const struct rt_sim *sim);

const struct rt_link_stats *rt_sim_link_stats(const struct rt_sim *sim, unsigned dir);

#endif
