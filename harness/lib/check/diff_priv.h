/* SPDX-License-Identifier: MIT */
/*
 * Private to the diff (diff*.c). Two passes over the captures: the first
 * keeps per flow only what pairing needs (a summary of a fixed size), the
 * second reads both captures together and aligns each pair's messages as
 * the checkers hand them over (rt_check_config.on_message), through queues
 * of about DIFF_WINDOW messages per capture and direction.
 */
#ifndef ROCETEST_LIB_DIFF_PRIV_H
#define ROCETEST_LIB_DIFF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/diff.h"
#include "rocetest/grow.h"
#include "rocetest/message.h"

/* Messages a direction of one capture may run ahead of the other's before that capture waits. */
#define DIFF_WINDOW 64u
/* The first complete messages of a direction whose keys pair flows. */
#define SIGNATURE_MESSAGES 64
/* ACK delays kept per direction for the median (the first ones). */
#define DIFF_DELAYS 512

/* Per side of a flow: what its packets carry besides the messages. */
struct diff_side_facts {
	bool seen;
	uint8_t tos, ttl;
	bool tos_varies, ttl_varies;
	bool migreq;			/* some packet had MigReq set */
	bool rocev2;
	uint16_t sport;
	bool sport_varies;
	uint32_t credits;		/* bit per AETH credit code its ACKs carried */
};

struct diff_signature {
	uint64_t key[SIGNATURE_MESSAGES];
	unsigned n;
};

/* What the first pass learns of a flow. */
struct diff_flow {
	bool used;
	uint8_t transport;
	uint32_t pair;			/* second pass: the index + 1 of its pair in diff_state.pairs (0: none) */
	uint64_t messages[2];		/* requests of side s */
	struct diff_signature sig[2];
	uint64_t base_va[2];		/* the first address side s's messages carry */
	bool have_va[2];
	struct diff_side_facts side[2];
};

struct diff_state;

/* What one capture holds: its checker (of the pass under way) and its flows by id. */
struct diff_capture {
	struct rt_checker *checker;
	struct diff_flow *flows;	/* index: flow id - 1 */
	size_t n_flows, cap_flows;
	uint64_t frames_total;		/* frames in the capture (first pass) */
	uint64_t frames_read;		/* in the pass under way */
	bool ended;			/* this pass read it to its end */
	bool failed;			/* out of memory */
	struct diff_state *st;
	int k;				/* 0: A, 1: B */
};

/* One capture's messages of a direction not yet aligned: a ring, grown past DIFF_WINDOW only at the end. */
struct diff_queue {
	struct rt_message *ring;
	size_t cap, head;		/* ring[head] is message number base (0-based) */
	uint64_t base, n;		/* aligned so far; handed over so far */
	uint64_t total;			/* in the whole capture (first pass) */
};

/* One direction of a pair being aligned: A's requester side s, B's s ^ swapped. */
struct diff_dir {
	struct diff_queue q[2];
	bool matched;			/* some message aligned */
	uint64_t next[2];		/* each capture's PSN after the last aligned message */
	uint64_t skipped[2];		/* coverage: whole messages before or after the other's */
	uint64_t partial[2];		/* messages the capture holds only in part */
	uint64_t gap_missing[2];
	uint64_t resynced[2];		/* passed over: the other capture had nothing within the window */
	uint64_t owed[2];		/* messages still to pass over: the other capture's were, in their stead */
	int64_t *delays[2];		/* ACK delays of aligned messages both acknowledged on their own */
	size_t n_delays;
};

struct diff_state {
	struct rt_diff_options opt;
	struct diff_capture cap[2];
	struct rt_diff_result res;
	struct rt_diff_pair *pairs;
	size_t cap_pairs;
	struct diff_dir (*dirs)[2];	/* per pair (second pass) */
	uint64_t full[2];		/* queues of capture k holding DIFF_WINDOW or more */
	struct rt_diff_difference *diffs;
	size_t cap_diffs;
	uint64_t seq;			/* differences found so far, for their order */
	bool failed;
};

/* diff_collect.c: the checkers' hooks (ctx: struct diff_capture). */
void diff_on_packet(void *ctx, const struct rt_packet *p, const struct rt_frame_result *r, int64_t ts_ns);
void diff_summarize(void *ctx, const struct rt_message *m);
void diff_enqueue(void *ctx, const struct rt_message *m);
void diff_capture_free(struct diff_capture *cap);

/* diff_pair.c: pairs the flows of the two captures into res.pairs. -1 with err (a --map QPN not found, memory). */
int diff_pair_flows(struct diff_state *st, struct rt_error *err);
/* The key messages are aligned by: operation and length. */
uint64_t diff_msg_key(const struct rt_message *m);

/* diff_compare.c */
/* Aligns what the queues of pair p's direction s allow; force: capture k waits on it, so step anyway. */
void diff_align(struct diff_state *st, size_t p, int s, bool force);
/* Both captures ended: the rest of each direction, then what each direction, side and flow does throughout. */
void diff_finish_pair(struct diff_state *st, size_t p);
/* diff_collect.c: a queue of messages. */
bool diff_queue_push(struct diff_queue *q, const struct rt_message *m);
const struct rt_message *diff_queue_at(const struct diff_queue *q, uint64_t k);
void diff_queue_pop(struct diff_queue *q, uint64_t count);
uint64_t diff_queue_len(const struct diff_queue *q);

#endif
