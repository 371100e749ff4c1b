/* SPDX-License-Identifier: MIT */
/* Layer: check. */
/*
 * A semantic diff of two captures of the same work (an endpoint under test
 * against a reference NIC): what each endpoint did, message by message, not
 * how the bytes differ.
 *
 * Each capture goes through its own checker (rocetest/checker.h), which
 * finds the flows, pairs their two directions, follows their messages and
 * handles what captures do (retransmissions, gaps, a start mid-message);
 * the diff takes the messages the checker hands over (rt_check_config.
 * on_message). Two passes: the first pairs flows of A with flows of B (by
 * transport and the messages they carry, or by --map) from a summary of a
 * fixed size per flow; the second reads both captures together and aligns
 * each pair's messages by content as they come (a message one capture
 * lacks shifts nothing else), comparing each pair of messages field by
 * field. Memory does not grow with the captures' length: per pair of flows
 * and direction about DIFF_WINDOW (64) messages of each capture wait; when
 * one capture runs that far ahead with nothing from the other for them,
 * they are passed over with a note ("resync"). What always differs is never compared: QPNs,
 * absolute PSNs (PSNs are relative to each direction's first), absolute
 * RETH addresses (relative to the first), R_Keys, UDP source ports, IP IDs,
 * TTL, MACs, IPs and timestamps. Every other field has a class, set by a
 * profile: ignored, cosmetic, behaviour or semantic.
 */
#ifndef ROCETEST_DIFF_H
#define ROCETEST_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/checker.h"
#include "rocetest/error.h"
#include "rocetest/packet.h"

enum rt_diff_class { RT_DIFF_IGNORED, RT_DIFF_COSMETIC, RT_DIFF_BEHAVIOUR, RT_DIFF_SEMANTIC, RT_DIFF_CLASSES };
/* "ignored", "cosmetic", "behaviour", "semantic". */
const char *rt_diff_class_name(enum rt_diff_class c);

/* What is compared; the first group per message, the rest per flow direction. */
enum rt_diff_field {
	RT_DIFF_MISSING,	/* a message one capture has and the other lacks, between messages both have */
	RT_DIFF_OPCODE,		/* the operation: SEND, WRITE, READ, atomic; with immediate or invalidate */
	RT_DIFF_LENGTH,		/* message length (a READ's: its DMA length) */
	RT_DIFF_SEGMENTS,	/* how the message is cut into packets: the PMTU */
	RT_DIFF_IMMEDIATE,	/* the ImmDt value */
	RT_DIFF_PADCNT,		/* the PadCnt of the last packet */
	RT_DIFF_SOLICITED,	/* the SE bit of the last packet */
	RT_DIFF_ADDRESS,	/* RETH or AtomicETH address relative to the direction's first */
	RT_DIFF_ATOMIC,		/* the atomic operands */
	RT_DIFF_PAYLOAD,	/* the payload bytes (compared with --payload only) */
	RT_DIFF_RESPONSE,	/* a READ's responses: their length and segmentation */
	RT_DIFF_NAK,		/* NAK and RNR NAK events for the message */
	RT_DIFF_ACKREQ,		/* which of its packets ask for an ACK */
	RT_DIFF_ACK_COALESCING,	/* acknowledged by an ACK of its own, or only by a later one */
	RT_DIFF_RETRANSMIT,	/* packets of it sent again */
	RT_DIFF_ACK_TIMING,	/* per direction: the median time from a message's last packet to its ACK */
	RT_DIFF_TOS,		/* per side: the IP TOS / traffic class (DSCP and ECN) */
	RT_DIFF_MIGREQ,		/* per side: the BTH MigReq bit */
	RT_DIFF_UDP_SPORT,	/* per flow: the UDP source-port policy (one port both ways, the 0xC000 range) */
	RT_DIFF_ACK_CREDIT,	/* per direction: the AETH credit codes of ACKs */
	RT_DIFF_TTL,		/* per side: IP TTL / hop limit */
	RT_DIFF_FIELDS
};
/* "missing", "opcode", "length", ... as profiles and reports spell them; -1 for an unknown name. */
const char *rt_diff_field_name(enum rt_diff_field f);
int rt_diff_field_by_name(const char *name);

/* ---- Profiles ---------------------------------------------------------------- */

/* The class of every field. */
struct rt_diff_profile {
	char name[64];
	enum rt_diff_class cls[RT_DIFF_FIELDS];
};

/*
 * A built-in profile: "connectx" (the default: the reference is a ConnectX
 * NIC; ACK policy and timing are behaviour, TOS, MigReq, the source-port
 * policy and ACK credits cosmetic), "rxe" (the reference is soft-RoCE:
 * also its fixed credit code 31 and its QPN-derived source port and its
 * software timing ignored), "strict" (everything compared is semantic).
 * -1 for another name.
 */
int rt_diff_profile_builtin(struct rt_diff_profile *p, const char *name);
/*
 * A profile file: lines "FIELD CLASS" ("ack_coalescing semantic"), '#'
 * comments, and optionally first "profile NAME" for the built-in profile it
 * starts from (default connectx). -1 with err "FILE:LINE: what".
 */
int rt_diff_profile_load(struct rt_diff_profile *p, const char *path, struct rt_error *err);

/* ---- Running it -------------------------------------------------------------- */

#define RT_DIFF_MAX_MAP 16

struct rt_diff_options {
	struct rt_diff_profile profile;
	bool payload;			/* compare payload bytes (RT_DIFF_PAYLOAD) */
	/* --map A_QPN=B_QPN: the flows holding these QPs are paired, those sides with each other. */
	struct { uint32_t qp_a, qp_b; } map[RT_DIFF_MAX_MAP];
	unsigned n_map;
	size_t max_differences;		/* kept for the reports (0: 100000); all are counted */
	uint32_t ladder_flows;		/* flows whose ladder rows each checker keeps (for the HTML page) */
};
/* The connectx profile, no payload, no map. */
void rt_diff_options_init(struct rt_diff_options *o);

struct rt_diff;

/* NULL with err when memory runs out. */
struct rt_diff *rt_diff_new(const struct rt_diff_options *o, struct rt_error *err);
void rt_diff_free(struct rt_diff *d);
/*
 * Driving it: the diff reads each capture twice. Ask rt_diff_wants()
 * which capture to give the next frame of (rt_diff_frame()); at that
 * capture's end call rt_diff_end(). When a capture that ended is asked for
 * again, give its frames once more from the first. -1 from rt_diff_wants():
 * both passes are done.
 *
 *	while ((k = rt_diff_wants(d)) >= 0)
 *		if (next frame of k) rt_diff_frame(d, k, ...); else if (rt_diff_end(d, k, err)) fail;
 */
int rt_diff_wants(struct rt_diff *d);
/* One frame of capture 0 (A) or 1 (B), in capture order, numbered from 1 per capture. */
void rt_diff_frame(struct rt_diff *d, int capture, enum rt_link link, uint64_t frame, int64_t ts_ns,
		   const uint8_t *data, uint32_t caplen, uint32_t wirelen);
/* The capture has no more frames in this pass. -1 with err: a --map QPN no flow has, or no memory. */
int rt_diff_end(struct rt_diff *d, int capture, struct rt_error *err);
/* After both passes: 0; -1 with err when they are not done or memory ran out. */
int rt_diff_finish(struct rt_diff *d, struct rt_error *err);

/* ---- The result ------------------------------------------------------------------ */

/* A pair of flows, A's side s playing B's side s ^ swapped. */
struct rt_diff_pair {
	uint32_t id;			/* 1-based */
	uint32_t flow_a, flow_b;	/* the checkers' flow ids */
	bool swapped;
	bool mapped;			/* by --map */
	uint64_t messages_a[2], messages_b[2];	/* requests of A's side s, of B's side s ^ swapped */
	uint64_t matched[2];		/* messages aligned with one of the other capture */
	uint64_t differences[RT_DIFF_CLASSES];
	char notes[4][160];		/* coverage: one capture starts later or ends sooner, misses packets */
	unsigned n_notes;
};

struct rt_diff_difference {
	enum rt_diff_class cls;
	enum rt_diff_field field;
	uint32_t pair;			/* rt_diff_pair.id */
	uint8_t side;			/* the requester (A's side) the message is of, or the side the field is of */
	uint64_t message;		/* 1-based in that direction (A's count); 0 for a per-direction field */
	char a[80], b[80];		/* the values as each capture has them ("" when it has none) */
	uint64_t frame_a, frame_b;	/* the message's first frame (0 when that capture lacks it) */
	char what[256];			/* the sentence: what differs and how */
	uint64_t order;			/* found as the order-th (pairs are compared side by side) */
};

struct rt_diff_result {
	const struct rt_diff_pair *pairs;
	size_t n_pairs;
	const struct rt_diff_difference *differences;	/* in pair, direction and message order */
	size_t n_differences;
	uint64_t dropped;				/* past max_differences: counted, not kept */
	uint64_t count[RT_DIFF_CLASSES];		/* every difference, kept or not */
	uint64_t field_count[RT_DIFF_FIELDS];
	uint32_t unpaired_a[64], unpaired_b[64];	/* flows of one capture with no partner (the first 64) */
	size_t n_unpaired_a, n_unpaired_b;
	uint64_t packets[2], frames[2];			/* RoCE packets in tracked flows; frames read */
};
const struct rt_diff_result *rt_diff_result(const struct rt_diff *d);
/* The checker that read capture 0 or 1: its flows (endpoints, QPs, ladders) for the reports. */
const struct rt_checker *rt_diff_checker(const struct rt_diff *d, int capture);
const struct rt_diff_options *rt_diff_options(const struct rt_diff *d);

#endif
