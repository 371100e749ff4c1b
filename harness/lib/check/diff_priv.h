/* SPDX-License-Identifier: MIT */
/*
 * Private to the diff (diff*.c): the messages each capture's flows carry,
 * as assembled from the checker's packets, and what the comparison shares.
 */
#ifndef ROCETEST_LIB_DIFF_PRIV_H
#define ROCETEST_LIB_DIFF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/diff.h"
#include "rocetest/grow.h"

/* Bits of struct diff_msg.flags. */
enum diff_msg_flags {
	MSG_PARTIAL = 1u << 0,		/* the capture starts inside it: its beginning is not known */
	MSG_INCOMPLETE = 1u << 1,	/* packets of it are missing from the capture, or it never ended */
	MSG_IMM = 1u << 2,		/* carries ImmDt */
	MSG_IETH = 1u << 3,		/* carries an IETH (SEND with invalidate) */
	MSG_SE = 1u << 4,		/* SE set on its last packet */
	MSG_ACKED = 1u << 5,		/* an ACK names its last PSN: acknowledged on its own */
	MSG_AFTER_GAP = 1u << 6,	/* PSNs before it are missing from the capture */
	MSG_TRUNCATED = 1u << 7,	/* a packet of it was cut by the snap length: no payload hash */
	MSG_RESP_DONE = 1u << 8,	/* a READ's responses (or an atomic's ACK) ended: later ones answer a duplicate */
};

/* One message of a requester, and what its responder answered. */
struct diff_msg {
	uint64_t start, end;		/* PSNs from the direction's first, extended past the 24-bit wrap; end inclusive */
	uint64_t first_frame, last_frame;
	int64_t last_ts;		/* its last packet's first transmission */
	int64_t ack_ns;			/* from last_ts to its own ACK (-1: none) */
	uint64_t va;			/* RETH / AtomicETH address */
	uint64_t atomic[2];		/* swap/add, compare */
	uint64_t payload_hash;		/* per packet FNV-1a of its position and payload, added up (any arrival order) */
	uint64_t resp_hash;		/* the same over a READ's response payload */
	uint32_t length;		/* payload bytes (READ: the RETH DMA length) */
	uint32_t packets;		/* first transmissions */
	uint32_t first_len, last_len;	/* payload of the first and the last packet */
	uint32_t seg_hash;		/* over every packet's position and length: any other cut differs */
	uint32_t imm;
	uint32_t ackreq;		/* packets (first transmissions) with AckReq */
	uint32_t ackreq_bits;		/* which of the first 32 */
	uint32_t resp_len, resp_packets, resp_first_len;
	uint16_t resent;		/* packets sent again */
	uint8_t naks, rnr_naks;
	uint8_t nak_syndrome;		/* the first NAK's AETH syndrome */
	uint8_t family;			/* enum rt_family */
	uint8_t transport;
	uint8_t pad;			/* PadCnt of its last packet */
	uint8_t last_ackreq;		/* its last packet asks for an ACK */
	uint8_t holes;			/* capture gaps inside it not (yet) filled by a resend */
	uint16_t flags;			/* enum diff_msg_flags */
};

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

#define DIFF_HOLES 8

/* One direction's requests (requester = side s) and the answers to them. */
struct diff_half {
	struct diff_msg *msgs;
	size_t n, cap;
	bool started;
	uint32_t next_psn;		/* the next new PSN (24-bit) */
	uint64_t next;			/* the same, extended */
	bool open;			/* msgs[n-1] still takes packets */
	bool read_span;			/* msgs[n-1] is a READ: the next request may jump past its responses */
	bool gap;			/* PSNs went missing before the next message */
	uint64_t gaps;			/* how often the capture jumped ahead */
	/*
	 * PSN ranges [from, to) the capture jumped over, most recent first: a
	 * resend that fills one from either end is that PSN's first appearance
	 * in this capture (lost before the capture point) and joins its message.
	 */
	struct { uint64_t from, to; } holes[DIFF_HOLES];
	uint32_t read_resp;		/* READ responses seen, for the message they answer */
};

struct diff_flow {
	bool used;
	uint8_t transport;
	struct diff_half half[2];
	struct diff_side_facts side[2];
	uint32_t id;
};

/* What one capture holds: its checker and the flows' messages by flow id. */
struct diff_capture {
	struct rt_checker *checker;
	struct diff_flow *flows;	/* index: flow id - 1 */
	size_t n_flows, cap_flows;
	bool payload;
	bool failed;			/* out of memory */
};

/* diff_collect.c: the checker's packet hook (ctx: struct diff_capture). */
void diff_on_packet(void *ctx, const struct rt_packet *p, const struct rt_frame_result *r, int64_t ts_ns);
void diff_capture_free(struct diff_capture *cap);

/* The diff while it is compared (diff_compare.c, diff_pair.c, diff.c). */
struct diff_state {
	struct rt_diff_options opt;
	struct diff_capture cap[2];
	struct rt_diff_result res;
	struct rt_diff_pair *pairs;
	size_t cap_pairs;
	struct rt_diff_difference *diffs;
	size_t cap_diffs;
	bool failed;
};

/* diff_pair.c: pairs the flows of the two captures into res.pairs. -1 with err (a --map QPN not found, memory). */
int diff_pair_flows(struct diff_state *st, struct rt_error *err);
/* diff_compare.c: aligns and compares the messages of one pair. */
void diff_compare_pair(struct diff_state *st, struct rt_diff_pair *pair);
/* The key messages are aligned by: operation and length. */
uint64_t diff_msg_key(const struct diff_msg *m);

#endif
