/* SPDX-License-Identifier: MIT */
/*
 * Private to the checker: the per-flow state behind struct rt_flow_info.
 *
 * A flow (connection) has two sides. Each side may act as a requester; the
 * requests side s sends, and the responses side 1-s sends back for them,
 * form stream s (struct stream). Every SEQ/RSP/REQ rule reads and updates
 * one stream. Nothing here grows with the number of packets: the PSN
 * windows are fixed rings, pending checks are fixed slots.
 */
#ifndef ROCETEST_LIB_FLOW_H
#define ROCETEST_LIB_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/checker.h"

/* Recent requests by PSN, for REQ-RETRANSMIT-SAME and RSP-DUPLICATE-READ. */
#define PSN_WINDOW 256u
struct psn_slot {
	uint32_t psn;		/* 24-bit PSN; valid only when .used */
	uint32_t crc;		/* CRC-32 of the payload */
	uint32_t len;		/* payload bytes (READ request: RETH DMA length) */
	int64_t ts_ns;		/* when it was (last) sent */
	uint64_t frame;		/* where it was (last) sent */
	uint8_t opcode;
	bool used;
};

/*
 * An outstanding READ or atomic request, waiting for its responses. The
 * requester may ask again (a duplicate, whole or from a PSN inside the READ)
 * before the answers come back; the responder answers every request in
 * order, so the responses come in passes, one per request: each pass is
 * bound to the oldest request not yet answered (check_read.c).
 */
#define READ_SLOTS 16u
#define READ_ASKS 4u	/* duplicates of one READ waiting for their pass */
struct read_slot {
	bool used;
	bool atomic;
	bool broken;		/* a violation was reported: stop judging this READ */
	bool gap;		/* responses missing from the capture: not judged */
	bool complete;		/* a pass of responses (or an atomic ACK) ended */
	bool answered;		/* a pass for the original request began */
	bool len_unknown;	/* the capture cut the RETH: its length is not known */
	bool in_pass;		/* a pass of responses is under way */
	bool pass_replay;	/* it answers a duplicate (the responder's current MSN, not judged) */
	uint8_t asks;		/* duplicates waiting: ask_psn/ask_len[0..asks) */
	uint32_t psn;		/* the request's PSN */
	uint32_t len;		/* RETH DMA length */
	uint32_t n_lo, n_hi;	/* responses it needs (a range while the PMTU is unknown) */
	uint32_t n_next;	/* the span the requester's next request implies (0: none yet) */
	uint32_t pass_start;	/* the PSN the pass's request asked from */
	uint32_t next;		/* next response PSN expected in the pass */
	uint32_t bytes;		/* payload the pass brought so far */
	uint32_t ask_psn[READ_ASKS], ask_len[READ_ASKS];
	uint64_t frame;
};

/* A PSN range that the requester skipped: SEQ-PSN waits to learn why. */
#define GAP_SLOTS 4u
struct gap {
	uint32_t from, to;	/* missing PSNs from..to-1 */
	uint64_t frame;		/* the packet that jumped */
	uint32_t prev;		/* the PSN before the jump, for the message */
	bool acked;		/* the responder acknowledged PSNs in it */
	uint32_t acked_upto;
};

/* Requests with AckReq that wait for their ACK (RSP-ACK). */
#define ACKREQ_SLOTS 32u
struct ackreq {
	uint32_t psn;
	uint64_t frame;
	int64_t ts_ns;
};

/* Completed messages at the responder, for SEQ-MSN. */
#define DONE_SLOTS 64u
struct done {
	uint32_t last_psn;	/* PSN that completed the message */
	uint32_t count;		/* messages completed up to and including it */
};

enum nak_pending {
	NAK_NONE,
	NAK_SEQ,
};

/*
 * Something the responder owes for a request the capture shows: an answer
 * (a NAK, a re-ACK), or silence for a request it must drop. It stays owed
 * until an answer settles it, rightly or wrongly, or the capture ends.
 */
struct owed_response {
	bool owed;
	uint32_t psn;		/* the PSN the answer must carry, or must not cover */
	uint64_t frame;		/* the request that made it owed */
};

static inline bool is_owed(const struct owed_response *o)
{
	return o->owed;
}

/*
 * Owed from this request on, replacing what was owed. Where the first
 * request is the one to name (the first ahead of epsn, the first
 * duplicate), the caller tests is_owed() first.
 */
static inline void owe(struct owed_response *o, uint32_t psn, uint64_t frame)
{
	*o = (struct owed_response){ .owed = true, .psn = psn, .frame = frame };
}

static inline void settle(struct owed_response *o)
{
	o->owed = false;
}

/* Owed for exactly this PSN. */
static inline bool owed_for(const struct owed_response *o, uint32_t psn)
{
	return o->owed && o->psn == psn;
}

/* Owed for a PSN an answer covering every PSN up to `upto` reaches. */
static inline bool owed_upto(const struct owed_response *o, uint32_t upto)
{
	return o->owed && rt_psn_diff(upto, o->psn) >= 0;
}

/* Things a flow notes about the capture (not the endpoints), rendered at the end. */
enum flow_note {
	NOTE_STARTS_MID_MESSAGE,
	NOTE_ENDS_MID_MESSAGE,
	NOTE_LOST_BEFORE_CAPTURE,	/* a PSN first seen after later ones: lost on the wire before the capture point */
	NOTE_MISSING_RETRANSMISSION,	/* a retransmitted PSN the capture does not hold */
	NOTE_RESPONDER_AHEAD,		/* the responder acknowledged requests the capture does not hold */
	NOTE_RESPONSES_WITHOUT_REQUESTS,
	NOTE_ENDS_BEFORE_ACK,
	NOTE_ENDS_BEFORE_RESPONSE,
	NOTE_ENDS_BEFORE_NAK,
	NOTE_ONE_DIRECTION,
	NOTE_WINDOW_EXCEEDED,		/* more pending checks than slots: some not evaluated */
	NOTE_FIELDS_CUT,		/* headers a rule needs cut by the snap length (detail: rt_ext_header bits) */
	NOTE_INTERLEAVED,		/* an answer captured before the request it answers */
	NOTE_LATE_PACKET,		/* a resend of an earlier run captured after a newer NAK */
	NOTE_RESEND_AFTER_ACK,		/* a resend captured just after the answer that acknowledged it */
	NOTE_COUNT
};

struct note_count {
	uint64_t count;
	uint64_t frame;		/* the first frame it applies to */
	uint32_t psn;
	uint32_t detail;	/* kind-specific */
};

struct stream {
	bool started;		/* a request of this stream has been seen */
	bool any_response;	/* a response of this stream has been seen */
	uint64_t last_response_frame;

	/* --- requester side: what side s sends --- */
	uint32_t first_psn;
	uint32_t prev_psn;	/* PSN of the previous request */
	uint32_t prev_lo, prev_hi; /* PSNs the previous request used (READ: N of them, a range if N unknown) */
	uint32_t frontier;	/* one past the highest PSN ever sent (upper bound while READ spans are unknown) */
	bool frontier_unsure;	/* set by a new READ whose span is a range: the next request fixes it */
	bool lossy;		/* packets of this stream were lost or missed before the capture point */
	/*
	 * An implicit NAK: responses beyond an unanswered READ or atomic (or a
	 * READ response missing in the sequence) ask the requester to send it
	 * again from implicit_psn at once, with no timeout.
	 */
	bool implicit_due;
	uint32_t implicit_psn;
	uint32_t misses;	/* how many packets showed that the capture lacks packets of this stream */
	bool miss_now;		/* the packet at hand already counted one */
	/* SEQ-ACK-AHEAD: an answer for a PSN not (yet) seen sent; decided by the next request. */
	bool ahead_due;
	uint32_t ahead_psn;
	uint64_t ahead_frame;
	int64_t ahead_ts_ns;

	/* The message being sent. */
	bool msg_open;
	bool msg_unknown_start;	/* started before the capture, or resumed by a retransmission */
	uint8_t msg_family;
	uint8_t msg_transport;
	uint64_t msg_frame;
	uint32_t msg_bytes;
	uint32_t msg_reth_len;
	bool msg_has_reth;

	/* SEQ-PMTU-CONSISTENT: the first First/Middle payload size. */
	uint32_t fm_size;
	uint64_t fm_frame;

	/* What the responder has acknowledged, as the capture shows it. */
	bool have_acked;
	uint32_t acked;		/* every PSN up to and including this one */
	/* The answer that last moved acked, and what was acknowledged before it. */
	int64_t acked_ts;
	bool had_acked;
	uint32_t acked_before;
	int64_t progress_ts;	/* last time the requester's timer had reason to restart */
	int64_t last_req_ts;	/* the newest request: the latest the timer may have been restarted */

	/* Requester duties after NAKs. */
	enum nak_pending nak;	/* the newest NAK sequence error; its PSN, frame, time stay when answered */
	uint32_t nak_psn;
	uint64_t nak_frame;	/* 0: none yet */
	int64_t nak_ts_ns;
	/*
	 * A NAK sequence error still unanswered when a newer one came: a
	 * requester may already be going back for it (its pipeline did not
	 * see the newer NAK yet), so a resend from its PSN is no violation.
	 */
	bool nak_prev;
	uint32_t nak_prev_psn;
	/* flow_misses() before and after the NAK: signs of a lossy capture other than the NAK's own gap. */
	uint32_t nak_misses_before, nak_misses_after;
	bool rnr;
	uint32_t rnr_psn;
	uint64_t rnr_frame;
	int64_t rnr_ts;
	uint8_t rnr_timer;
	uint32_t rnr_count;	/* RNR NAKs in a row for rnr_psn */
	uint32_t retry_psn;	/* the PSN the last retransmission run started at */
	uint32_t retry_count;	/* runs in a row starting there without progress */
	bool answers_cut;	/* an answer cut before its AETH came: any run may be a NAK's */
	bool fatal_received;	/* a fatal NAK came for this stream: the requester must stop */
	uint64_t fatal_frame;
	int64_t fatal_grace_ns;	/* requests until then were in flight when the NAK was sent (one round trip) */

	struct gap gaps[GAP_SLOTS];
	uint32_t gap_count;

	/* REQ-GO-BACK-N in a flow without loss: a resend that skipped p waits for proof of loss. */
	bool gbn_suspect;
	bool gbn_skipped;	/* the skipped PSN was sent after the run went past it */
	uint32_t gbn_p, gbn_psn;
	uint64_t gbn_frame;

	/* --- responder model: what side 1-s has received and owes --- */
	bool resp_sync;
	uint32_t epsn;		/* the PSN the responder expects next */
	uint32_t epsn_slack;	/* after a READ of unknown PMTU: epsn may be up to this much later */
	bool nak_sent;		/* a NAK sequence error is out; silent until epsn arrives */
	uint32_t nak_sent_psn;
	/* What the responder owes; any of the four can be owed at once. */
	struct {
		struct owed_response nak_seq;	/* a request ahead of epsn arrived: a NAK sequence error for epsn */
		struct owed_response reack;	/* a duplicate SEND/WRITE arrived: a re-ACK with epsn - 1 */
		struct owed_response nak_invalid; /* an opcode or length violation: a NAK invalid request */
		struct owed_response silence;	/* a request with a bad ICRC: must be neither ACKed nor NAKed */
	} owes;

	struct ackreq ackreqs[ACKREQ_SLOTS];
	uint32_t ackreq_head, ackreq_count;

	/* SEQ-MSN. */
	bool msn_sync;
	uint32_t msn_offset;	/* MSN = completed messages + offset (mod 2^24) */
	uint32_t done_total;	/* messages completed (as the capture shows them) */
	struct done done[DONE_SLOTS];
	uint32_t done_head, done_count;
	bool have_msn;
	uint32_t last_msn;
	uint32_t last_msn_upto;	/* the PSN last_msn counted messages up to */

	struct read_slot reads[READ_SLOTS];

	struct psn_slot *sent;	/* PSN_WINDOW requests, allocated on first use */
	struct psn_slot *answered; /* PSN_WINDOW READ responses by PSN */
};

struct flow {
	struct rt_flow_info info;
	struct stream stream[2];	/* stream[s]: requests from side s */
	bool side_fatal[2];		/* side sent a fatal NAK: must be silent from then on */
	uint64_t side_fatal_frame[2];
	struct note_count notes[NOTE_COUNT];
	/*
	 * Ladder rows (NULL when not drawn); the same block holds, after
	 * ladder_cap rows, the run of ordinary packets being folded (ladder.c).
	 */
	struct rt_ladder_event *ladder;
	uint32_t ladder_cap;
	uint32_t run_count;	/* packets in that run */
	struct msg_track *msgs;	/* check_msg.c, only with on_message */
};

/* Everything a stream rule needs about the packet at hand. */
struct pkt_ctx {
	const struct rt_packet *p;
	uint64_t frame;
	int64_t ts_ns;
	int side;		/* sender's side in the flow */
	bool icrc_bad;
	uint8_t ladder_flags;	/* rules add RT_LADDER_* here */
};

/*
 * How far a capture point that merges a port's two queues (a mirror port,
 * ibdump) may misplace a packet: an answer this much before its request,
 * or a resend this much after a newer NAK, is capture order, not send order.
 * The default of checker_env.in_flight_ns (rt_check_config.in_flight_us).
 */
#define INTERLEAVE_NS 50000LL

struct checker_env {
	const struct rt_check_config *cfg;
	struct rt_verdicts *v;
	int64_t last_ts_ns;	/* newest timestamp in the capture so far */
	/*
	 * How far a timestamp may be from the true time: 1 us while every
	 * timestamp is a whole microsecond (truncated by the capture format),
	 * else 0. Timer rules allow it at both ends of what they measure.
	 */
	int64_t ts_slack_ns;
	/*
	 * How long a packet may be between the capture point and the endpoint
	 * that acts on it (INTERLEAVE_NS unless configured): within it, capture
	 * order need not be the order the endpoints saw.
	 */
	int64_t in_flight_ns;
};

/* check_flow.c: the SEQ/RSP/REQ rules (check_seq.c, check_rsp.c, check_req.c; check_flow.h). */
void flow_check_packet(struct checker_env *env, struct flow *f, struct pkt_ctx *pc);
void flow_finish(struct checker_env *env, struct flow *f);
void flow_note(struct flow *f, enum flow_note kind, uint64_t frame, uint32_t psn, uint32_t detail);
void flow_free_state(struct flow *f);
/* The PMTU that governs what `side` sends: given, inferred, or 0. */
uint32_t flow_side_pmtu(const struct checker_env *env, const struct flow *f, int side);

/* check_msg.c: the messages for rt_check_config.on_message. */
void msg_track_packet(const struct rt_check_config *cfg, struct flow *f, const struct rt_packet *p, int side,
		      uint64_t frame, int64_t ts_ns);
void msg_track_finish(const struct rt_check_config *cfg, struct flow *f);
void msg_track_free(struct flow *f);

/* ladder.c */
void ladder_add(struct flow *f, const struct rt_ladder_event *e);
void ladder_flush(struct flow *f);
void ladder_mark(struct flow *f, uint64_t frame, uint8_t flags);

#endif
