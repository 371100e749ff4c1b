/* SPDX-License-Identifier: MIT */
/* Layer: check. */
/*
 * The conformance checker: feed it the frames of one capture in order and it
 * evaluates every rule of the catalogue (rules.h) on them: PKT rules on each
 * RoCE packet, SEQ/RSP/REQ rules on the flows the packets belong to.
 *
 * One pass, streaming. State is kept per flow only (a fixed-size record per
 * connection plus a bounded window of recent PSNs), never per packet, so
 * memory does not grow with the capture's length. The number of flows
 * tracked is bounded too (max_flows); packets of flows beyond it still get
 * every PKT rule and are counted, and the run says so.
 */
#ifndef ROCETEST_CHECKER_H
#define ROCETEST_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/error.h"
#include "rocetest/opcode.h"
#include "rocetest/packet.h"
#include "rocetest/rules.h"

struct rt_frame_result;
struct rt_message;

struct rt_check_config {
	uint32_t pmtu;			/* --pmtu; 0: inferred per flow from First/Middle packets */
	bool have_timeout;		/* --timeout-us given */
	double timeout_us;		/* local ACK timeout */
	/*
	 * > 0: a retransmission the timer started must also come within this
	 * many us of the requester's last request or progress (--timeout-max-us).
	 * A device run knows the timer it configured; a capture rarely does.
	 */
	double timeout_max_us;
	/*
	 * How long a packet may be on its way between the capture point and the
	 * endpoint that acts on it, in us (--in-flight-us; 0: 50). Within it the
	 * order a capture shows need not be the order the endpoints saw; a
	 * capture inside a VM or at a distant mirror port needs more.
	 */
	double in_flight_us;
	int retry_cnt;			/* --retry-cnt 0-7; -1 unknown */
	int rnr_retry;			/* --rnr-retry 0-7 (7 unlimited); -1 unknown */
	bool enabled[RT_RULE_COUNT];	/* --rules / --skip */
	/*
	 * --errors: rules whose violations count as errors, for a setting where
	 * a warning is a bug (rocetest run: PKT-PAD-ZERO, as the device's own
	 * frames leak memory into the pad); a capture's default is the catalogue's.
	 */
	bool as_error[RT_RULE_COUNT];
	uint32_t max_flows;		/* connections tracked (0: RT_CHECK_DEFAULT_MAX_FLOWS) */
	uint32_t ladder_flows;		/* flows whose ladder events are kept (0: none) */
	/* Called for every violation, at once or when a deferred rule is decided. */
	void (*on_violation)(void *ctx, const struct rt_violation *v);
	/*
	 * Called for every packet of a tracked flow once the checker is done
	 * with it: the parsed packet (ICRC verified) and its flow, side and
	 * flags (rt_checker_last_frame()). For front ends that build on the
	 * flows (rocetest diff); NULL: none.
	 */
	void (*on_packet)(void *ctx, const struct rt_packet *p, const struct rt_frame_result *r, int64_t ts_ns);
	/*
	 * Called for every message of a tracked flow (rocetest/message.h),
	 * per direction in order, once the capture is RT_MESSAGE_WINDOW
	 * messages past it or has ended; NULL: messages are not followed.
	 * message_payload: hash the payload bytes into it.
	 */
	void (*on_message)(void *ctx, const struct rt_message *m);
	bool message_payload;
	void *ctx;		/* handed to all three */
};
#define RT_CHECK_DEFAULT_MAX_FLOWS 4096u

/* Every rule enabled, nothing configured, no ladders. */
void rt_check_config_init(struct rt_check_config *cfg);

/*
 * What a rule needs (rt_rule_info()->needs: "PMTU", "timeout", "retry_cnt",
 * "rnr_retry") when cfg does not give it; NULL when cfg gives it or the rule
 * needs nothing.
 */
const char *rt_check_config_missing(const struct rt_check_config *cfg, enum rt_rule rule);

/* ---- What the checker reports per flow ------------------------------- */

/*
 * A flow is one connection: two IP endpoints and their two QPs (RC, UC), or
 * one sender's packets to one QP (UD). Side 0 is the endpoint that sent the
 * flow's first packet in the capture. A RoCE v1 endpoint whose GID is
 * IPv4-mapped (::ffff:a.b.c.d) is named by that IPv4 address, so a host
 * sending RoCE v1 and a peer answering in RoCE v2 form one flow.
 */
#define RT_FLOW_MAX_NOTES 8
#define RT_FLOW_NOTE_BYTES 160

/* One row of a ladder diagram. */
enum rt_ladder_flags {
	RT_LADDER_NAK = 1u << 0,	  /* NAK (sequence, invalid, access, operational) */
	RT_LADDER_RNR = 1u << 1,	  /* RNR NAK */
	RT_LADDER_RETRANSMIT = 1u << 2, /* a PSN sent again */
	RT_LADDER_VIOLATION = 1u << 3,  /* a rule broke at this frame (error) */
	RT_LADDER_WARNING = 1u << 4,	  /* a warning at this frame */
	RT_LADDER_FOLD = 1u << 5,	  /* stands for fold_count ordinary (or retransmitted) packets */
	RT_LADDER_CNP = 1u << 6,
	RT_LADDER_BAD_ICRC = 1u << 7,
};

struct rt_ladder_event {
	uint64_t frame;
	int64_t ts_ns;
	uint8_t from_side;	/* 0 or 1 */
	uint8_t opcode;
	uint8_t flags;		/* enum rt_ladder_flags */
	uint8_t syndrome;	/* AETH syndrome when the packet has an AETH */
	uint32_t psn;
	uint32_t payload_len;
	/*
	 * RT_LADDER_FOLD: how many packets (frame is the first one's), the last
	 * one's frame, and per sending side how many and their first and last PSN.
	 */
	uint32_t fold_count;
	uint64_t fold_last_frame;
	struct rt_ladder_dir {
		uint32_t count, first_psn, last_psn;
	} fold_dir[2];
	/*
	 * A packet of the fold drawn before it that a rule judged only after it
	 * was folded: the row keeps frame and flags; the packet's own fields are
	 * not known. Rows stay in frame order (a fold sorts by its first frame).
	 */
	bool folded;
};

struct rt_flow_side {
	uint8_t ip[16];
	uint32_t qp;		/* this side's QP number */
	bool qp_known;		/* seen as the destination QP of a packet */
	uint16_t udp_sport;	/* first UDP source port this side used (RoCE v2 packets only) */
	bool rocev1;		/* sent RoCE v1 packets (GRH, no UDP header) */
	bool rocev2;		/* sent RoCE v2 packets (UDP) */
	uint64_t packets;
	uint64_t requests;
	uint64_t responses;
	uint32_t pmtu;		/* the PMTU of what this side sends (0 unknown) */
	bool pmtu_inferred;	/* from its First/Middle packets, not from --pmtu */
	uint64_t pmtu_frame;	/* the frame it was inferred from */
};

struct rt_flow_info {
	uint32_t id;		/* 1-based, in order of first packet */
	uint8_t transport;	/* enum rt_transport of its first packet */
	uint8_t ip_version;	/* 4 or 6 */
	bool paired;		/* both directions seen and matched */
	struct rt_flow_side side[2];
	uint64_t packets;
	uint64_t first_frame, last_frame;
	int64_t first_ts_ns, last_ts_ns;
	uint64_t naks, rnr_naks, retransmissions, cnps, bad_icrc;
	uint64_t errors, warnings;	/* violations in this flow */
	struct rt_rule_counts rules;
	/* Properties of the capture, not of the endpoints ("capture starts mid-message"). */
	char notes[RT_FLOW_MAX_NOTES][RT_FLOW_NOTE_BYTES];
	uint32_t note_count;
	uint32_t notes_dropped;
	/* Ladder rows, when this flow is among the first ladder_flows flows. */
	const struct rt_ladder_event *ladder;
	uint32_t ladder_count;
	uint64_t ladder_dropped;	/* packets past the row limit, not drawn */
};

/* ---- Running it ----------------------------------------------------------- */

struct rt_checker;

/* NULL with err set when memory runs out. cfg is copied. */
struct rt_checker *rt_checker_new(const struct rt_check_config *cfg, struct rt_error *err);
void rt_checker_free(struct rt_checker *c);

/* One captured frame, in capture order, numbered from 1. Non-RoCE frames are counted and skipped. */
void rt_checker_frame(struct rt_checker *c, enum rt_link link, uint64_t frame, int64_t ts_ns,
		      const uint8_t *data, uint32_t caplen, uint32_t wirelen);

/*
 * What the checker made of the frame rt_checker_frame() was last given, for
 * front ends that annotate each packet (the Wireshark plugin): its flow (0
 * when it belongs to none: not RoCE, malformed, an unsupported opcode, the
 * flow table full), the side that sent it, and its enum rt_ladder_flags
 * (NAK, RNR, RETRANSMIT, CNP, BAD_ICRC; VIOLATION and WARNING only for rules
 * decided at this frame: later decisions reach on_violation alone).
 */
struct rt_frame_result {
	uint64_t frame;
	uint32_t flow;
	uint8_t side;
	uint8_t flags;
};
const struct rt_frame_result *rt_checker_last_frame(const struct rt_checker *c);

/* The capture ended: decides the rules that waited for later packets. Call once. */
void rt_checker_finish(struct rt_checker *c);

struct rt_check_totals {
	uint64_t frames;
	uint64_t roce_packets;
	uint64_t not_roce;
	uint64_t truncated;	/* RoCE frames cut by the snap length */
	uint64_t malformed;	/* frames recognised as RoCE whose headers contradict the frame */
	uint64_t untracked;	/* RoCE packets of flows beyond max_flows */
	uint64_t errors, warnings;
};
const struct rt_check_totals *rt_checker_totals(const struct rt_checker *c);
const struct rt_verdicts *rt_checker_verdicts(const struct rt_checker *c);
const struct rt_check_config *rt_checker_config(const struct rt_checker *c);
size_t rt_checker_flow_count(const struct rt_checker *c);
/* Flow i, 0-based (its id is i + 1). */
const struct rt_flow_info *rt_checker_flow(const struct rt_checker *c, size_t i);
/*
 * Gives a packet a ladder row of its own, as a violation at it would: a
 * front end's finding about an earlier frame of flow (its id), such as a
 * difference `rocetest diff` found, must not stay hidden in a fold. A
 * packet already folded away gets a row after its fold (rt_ladder_event.folded).
 * No effect on a flow without ladder rows, or past their limit.
 */
void rt_checker_ladder_row(struct rt_checker *c, uint32_t flow, uint64_t frame);

/* The printable IP address of one side of a flow ("10.0.0.1", "fe80::1"). */
void rt_flow_format_ip(const struct rt_flow_info *f, int side, char *buf, size_t size);

/* What a side sent: "RoCE v1", "RoCE v2", "RoCE v1 and v2" or "nothing". */
const char *rt_flow_side_versions(const struct rt_flow_side *s);

#endif
