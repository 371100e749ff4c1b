/* SPDX-License-Identifier: MIT */
/*
 * Private to the flow rules, one file per rule family of rules.md:
 * check_seq.c (SEQ: the PSN and opcode sequence, messages, MSN),
 * check_read.c (READs and atomics: their answers, passes, implicit NAKs),
 * check_rsp.c (RSP: what the responder owes and how it answers)
 * and check_req.c (REQ: the requester's retransmissions, go-back-N, RNR
 * waits, timeouts, retry limits). check_flow.c drives them packet by packet
 * and holds what they share.
 *
 * The order in which the families run on one packet is fixed by
 * check_flow.c: violations are listed in the order they are found, and a
 * later rule may read state an earlier one updated.
 */
#ifndef ROCETEST_LIB_CHECK_FLOW_H
#define ROCETEST_LIB_CHECK_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "flow.h"
#include "rocetest/check.h"
#include "rocetest/describe.h"

#define PSN_MASK 0xFFFFFFu

#define FAIL(env, rule, frame, ...) \
	rt_verdict_fail((env)->v, RT_RULE_##rule, rt_rule_info(RT_RULE_##rule)->severity, frame, __VA_ARGS__)
#define PASS(env, rule) rt_verdict_pass((env)->v, RT_RULE_##rule)
#define NOT_EVALUATED(env, rule) rt_verdict_not_evaluated((env)->v, RT_RULE_##rule)

typedef unsigned long long ull;

static inline bool psn_before(uint32_t a, uint32_t b)
{
	return rt_psn_diff(a, b) < 0;
}

static inline bool psn_in(uint32_t psn, uint32_t from, uint32_t to)	/* from <= psn < to */
{
	return rt_psn_diff(psn, from) >= 0 && rt_psn_diff(psn, to) < 0;
}

static inline const char *label(const struct rt_packet *p)
{
	return p->op->label;
}

/* READ responses a length needs at a PMTU. */
static inline uint32_t responses_for(uint32_t len, uint32_t pmtu)
{
	return len == 0 ? 1 : (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu);
}

/* A READ cut before its RETH: the most PSNs it can take (2^31 bytes at PMTU 256), kept inside the PSN window. */
#define READ_SPAN_UNKNOWN 0x100000u

/* How a request's PSN follows the stream's previous request (flow_seq_psn). */
struct psn_step {
	bool resync;		/* where the message stands must be taken from this packet */
	bool retransmit;	/* the PSN was sent before */
	bool goes_back;		/* RC went back: a retransmission run starts here */
};

/* ---- check_flow.c: shared by the families ---- */
struct psn_slot *flow_window_slot(struct psn_slot **w, uint32_t psn, bool create);
void flow_capture_misses(struct stream *st);
uint32_t flow_misses(const struct flow *f);
void flow_ack_progress(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto,
		       const struct pkt_ctx *pc);

/* ---- check_seq.c ---- */
void flow_seq_message_done(struct stream *st, uint32_t last_psn);
int64_t flow_seq_messages_upto(const struct stream *st, uint32_t upto);
void flow_seq_msn(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto, uint32_t msn,
		  uint64_t frame, bool skip_rule);
void flow_seq_gaps_lost(struct checker_env *env, struct flow *f, struct stream *st, uint32_t psn);
bool flow_seq_gaps_acked(struct stream *st, uint32_t upto);
void flow_seq_ahead_decided(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
struct psn_step flow_seq_psn(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
			     bool uc);
bool flow_seq_message(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool resync);
void flow_seq_pmtu_consistent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_seq_sent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool retransmit, bool uc,
		   uint32_t n_lo, uint32_t n_hi);
void flow_seq_unsolicited(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_seq_ack_ahead(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_seq_read_span_known(struct checker_env *env, struct stream *st, const struct read_slot *r, uint32_t count);
void flow_seq_finish(struct checker_env *env, struct flow *f, struct stream *st);

/* ---- check_read.c ---- */
void flow_read_aeth(struct checker_env *env, const struct pkt_ctx *pc);
void flow_read_taken(struct stream *st, const struct pkt_ctx *pc, uint32_t n_lo, uint32_t n_hi);
void flow_read_duplicate(struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_read_span_known(struct stream *st, uint32_t psn, uint32_t n);
void flow_read_implicit_nak(struct stream *st, uint32_t upto);
bool flow_read_response(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
bool flow_read_atomic_ack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);

/* ---- check_rsp.c ---- */
void flow_rsp_acks_cover(struct checker_env *env, struct stream *st, uint32_t upto);
bool flow_rsp_answered(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto,
		       const struct pkt_ctx *pc);
void flow_rsp_receives(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
		       uint32_t span, uint32_t n_lo, uint32_t n_hi, bool broke);
bool flow_rsp_nak_sequence(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_rsp_nak_rnr(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_rsp_nak_fatal(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_rsp_answer_unknown(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
bool flow_rsp_reack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_rsp_duplicate_read(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool replay);
void flow_rsp_finish(struct checker_env *env, struct flow *f, struct stream *st);

/* ---- check_req.c ---- */
void flow_req_stop_after_fatal(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_req_retransmission_start(struct checker_env *env, struct flow *f, struct stream *st,
				   const struct pkt_ctx *pc);
void flow_req_resend_in_sequence(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_req_retransmit_same(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc);
void flow_req_go_back_skipped(struct stream *st, uint32_t psn);
bool flow_req_go_back_proven(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto);
void flow_req_sent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool retransmit, bool uc);
void flow_req_remember_sent(struct stream *st, const struct pkt_ctx *pc);
void flow_req_nak_seq_received(struct stream *st, const struct pkt_ctx *pc, uint32_t misses_before,
			       uint32_t misses_after);
void flow_req_rnr_received(struct stream *st, const struct pkt_ctx *pc);
void flow_req_fatal_received(const struct checker_env *env, struct stream *st, const struct pkt_ctx *pc);
void flow_req_finish(struct checker_env *env, struct flow *f, struct stream *st);

#endif
