/* SPDX-License-Identifier: MIT */
/* Layer: model. */
/*
 * A simulated Ethernet link with two directions (0 and 1), in virtual time
 * (ns). Each direction serialises a frame at the link rate (preamble, FCS and
 * inter-frame gap included) and delays it; frames in flight wait in one heap
 * ordered by arrival. Faults act on a frame as it is sent. The reference
 * model's two-QP simulation (sim.h) and `rocetest run` (a device against a
 * model QP, run.h) both use it, so a fault means the same in both.
 *
 * Frames live in preallocated slots: a sender builds its frame in place in
 * the buffer rt_wire_frame_buffer gives, so nothing is allocated or copied
 * per frame.
 */
#ifndef ROCETEST_WIRE_H
#define ROCETEST_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/error.h"
#include "rocetest/model.h"

enum rt_fault_kind {
	RT_FAULT_DROP,		/* the frame never arrives */
	RT_FAULT_DUPLICATE,	/* it arrives twice */
	RT_FAULT_REORDER,	/* it arrives after the frame sent next */
	RT_FAULT_DELAY,		/* it arrives delay_ns later than it would */
	RT_FAULT_CORRUPT,	/* one payload (or header) byte flipped: the ICRC no longer matches */
	RT_FAULT_MARK_CE,	/* IP ECN set to CE (the ICRC does not cover it) */
	RT_FAULT_MISS,		/* it arrives as sent, but the simulation's tap (sim.h) leaves it out, as ibdump drops packets */
};
const char *rt_fault_kind_name(enum rt_fault_kind k);

/* A fault hits frames of one direction chosen by number or by PSN. */
struct rt_fault {
	enum rt_fault_kind kind;
	uint8_t dir;		/* 0: a to b, 1: b to a */
	bool by_psn;
	uint32_t first, last;	/* !by_psn: frame numbers in that direction, 1-based, inclusive */
	uint32_t psn;		/* by_psn: the BTH PSN ... */
	uint32_t count;		/* ... of the first count frames that carry it */
	int64_t delay_ns;	/* DELAY */
};

#define RT_SIM_MAX_FAULTS 16

struct rt_wire_config {
	int64_t delay_ns;	/* one-way propagation delay */
	uint64_t rate_bps;	/* 0: 100 Gb/s */
	size_t max_frame;	/* largest frame either side sends */
	struct rt_fault faults[RT_SIM_MAX_FAULTS];
	unsigned n_faults;
};

/* Counters of the link, per direction. */
struct rt_link_stats {
	uint64_t frames;
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t delayed;
	uint64_t corrupted;
	uint64_t marked;
	uint64_t missed;	/* marked to be left out of a capture */
	uint64_t overflow;	/* dropped because the in-flight queue was full */
};
/* A frame that has arrived. data stays valid until the next call on the link. */
struct rt_wire_frame {
	int64_t arrive;
	uint8_t dir;
	const uint8_t *data;
	uint32_t len;
	enum rt_qp_bug bug;	/* the misbehaviour its sender put into it */
	bool faulted;		/* a fault altered it (corrupt, CE) */
	bool missed;		/* a miss fault hit it: a capture leaves it out */
};

struct rt_wire;

struct rt_wire *rt_wire_new(const struct rt_wire_config *cfg, struct rt_error *err);
void rt_wire_free(struct rt_wire *link);

/*
 * Where to build the next frame of direction dir (max_frame bytes). When
 * every slot is in flight it is a scratch buffer, and the frame sent from it
 * is lost (counted as an overflow).
 */
uint8_t *rt_wire_frame_buffer(struct rt_wire *link, unsigned dir);
/*
 * Puts a frame on the wire of dir at time now and applies the faults that hit
 * it. frame is the buffer from rt_wire_frame_buffer (no copy) or any other
 * (copied). The frame may be altered in place (corrupt, CE). Returns its
 * serialisation time in ns.
 */
int64_t rt_wire_send(struct rt_wire *link, unsigned dir, int64_t now, uint8_t *frame, uint32_t len,
		     enum rt_qp_bug bug);
/* Whether a miss fault hit the frame rt_wire_send last put on dir (a capture at the sender leaves it out). */
bool rt_wire_last_missed(const struct rt_wire *link, unsigned dir);
/* When the transmitter of dir is free again. */
int64_t rt_wire_tx_free(const struct rt_wire *link, unsigned dir);
/* The earliest arrival in flight (INT64_MAX: none). */
int64_t rt_wire_next_arrival(const struct rt_wire *link);
/* Takes the earliest frame that has arrived by now: true and *f, or false. */
bool rt_wire_receive(struct rt_wire *link, int64_t now, struct rt_wire_frame *f);
const struct rt_link_stats *rt_wire_stats(const struct rt_wire *link, unsigned dir);

#endif
