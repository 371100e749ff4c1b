/* SPDX-License-Identifier: MIT */
/*
 * SEQ, RSP and REQ rules (rules.md): one stream at a time. Stream s is what
 * side s sends as a requester and what side 1-s answers. This file takes
 * each packet through the rule families (check_seq.c, check_rsp.c,
 * check_req.c) in a fixed order, and holds what they share: the windows of
 * recent PSNs, the progress an answer makes, the end of the capture.
 *
 * The capture is the only witness, and it is imperfect: packets lost on the
 * wire before the capture point never appear, ibdump misses retransmissions,
 * a capture starts and ends anywhere. So a rule that needs a reason to blame
 * an endpoint waits for one: a PSN gap is judged only when the responder's
 * answer tells whether the packet was lost (a NAK for it, or it is sent
 * again) or skipped (acknowledged though never sent); what is still open
 * when the capture ends is a note on the flow, not a violation. Once a
 * stream shows loss before the capture point ("lossy"), rules that loss can
 * imitate resynchronise instead of failing.
 */
#include <stdlib.h>

#include "check_flow.h"

void flow_note(struct flow *f, enum flow_note kind, uint64_t frame, uint32_t psn, uint32_t detail)
{
	struct note_count *n = &f->notes[kind];
	if (n->count++ == 0) {
		n->frame = frame;
		n->psn = psn;
		n->detail = detail;
	}
}

uint32_t flow_side_pmtu(const struct checker_env *env, const struct flow *f, int side)
{
	return env->cfg->pmtu ? env->cfg->pmtu : f->info.side[side].pmtu;
}

/* ---- windows of recent PSNs ------------------------------------------- */

struct psn_slot *flow_window_slot(struct psn_slot **w, uint32_t psn, bool create)
{
	if (!*w) {
		if (!create)
			return NULL;
		*w = calloc(PSN_WINDOW, sizeof **w);
		if (!*w)
			return NULL;
	}
	return &(*w)[psn % PSN_WINDOW];
}

/* The capture lacks packets of this stream: rules that loss can imitate resynchronise from now on. */
void flow_capture_misses(struct stream *st)
{
	if (!st->miss_now)
		st->misses++;	/* one packet is one sign, however many checks it settles */
	st->miss_now = true;
	st->lossy = true;
}

/* Signs, in both directions, that the capture lacks packets the endpoints exchanged. */
uint32_t flow_misses(const struct flow *f)
{
	return f->stream[0].misses + f->stream[1].misses;
}

/* The responder has everything up to and including upto (an ACK, or implied by a NAK). */
void flow_ack_progress(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto,
		       const struct pkt_ctx *pc)
{
	if (!st->have_acked || psn_before(st->acked, upto)) {
		st->had_acked = st->have_acked;
		st->acked_before = st->acked;
		st->acked_ts = pc->ts_ns;
		/* An answer ahead of everything sent acknowledges at most what was sent (SEQ-ACK-AHEAD judges it). */
		st->acked = !st->started || psn_before(upto, st->frontier) ? upto : (st->frontier - 1) & PSN_MASK;
		st->have_acked = true;
		st->progress_ts = pc->ts_ns;
		st->retry_count = 0;
	}
	flow_rsp_acks_cover(env, st, upto);
	flow_read_implicit_nak(st, upto);
	/* One answer is one sign that the capture lacks packets, however many checks it settles. */
	bool missed = flow_seq_gaps_acked(st, upto);
	if (flow_req_go_back_proven(env, f, st, upto))
		missed = true;
	if (flow_rsp_answered(env, f, st, upto, pc))
		missed = true;
	if (missed)
		flow_capture_misses(st);
}

/* ---- a request ------------------------------------------------------------------- */

/* The PSNs a request takes: a READ of L bytes uses N, a range while the responder's PMTU is unknown. */
static void request_span(const struct checker_env *env, const struct flow *f, const struct pkt_ctx *pc,
			 uint32_t *n_lo, uint32_t *n_hi)
{
	*n_lo = *n_hi = 1;
	if (pc->p->op->family != RT_FAMILY_READ_REQUEST)
		return;
	uint32_t pmtu = flow_side_pmtu(env, f, !pc->side);
	if (!pmtu)
		pmtu = flow_side_pmtu(env, f, pc->side);
	if (!(pc->p->ext_present & RT_EXT_RETH)) {
		/* Cut before its RETH: as few as one response, as many as the largest READ at the smallest PMTU. */
		*n_hi = READ_SPAN_UNKNOWN;
		return;
	}
	uint32_t len = pc->p->ext.reth.dma_len;
	*n_lo = responses_for(len, pmtu ? pmtu : 4096);
	*n_hi = responses_for(len, pmtu ? pmtu : 256);
}

static void request(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc, bool uc)
{
	uint32_t psn = pc->p->bth.psn;
	uint32_t n_lo, n_hi;
	request_span(env, f, pc, &n_lo, &n_hi);

	flow_req_stop_after_fatal(env, st, pc);
	flow_seq_ahead_decided(env, f, st, pc);
	struct psn_step step = flow_seq_psn(env, f, st, pc, uc);
	if (step.goes_back)
		flow_req_retransmission_start(env, f, st, pc);
	else if (step.retransmit)
		flow_req_resend_in_sequence(env, st, pc);
	if (step.retransmit) {
		f->info.retransmissions++;
		pc->ladder_flags |= RT_LADDER_RETRANSMIT;
		if (!uc)
			flow_req_retransmit_same(env, f, st, pc);
	}
	flow_seq_gaps_lost(env, f, st, psn);
	flow_req_go_back_skipped(st, psn);

	bool broke = flow_seq_message(env, st, pc, step.resync);
	flow_seq_pmtu_consistent(env, st, pc);
	flow_req_sent(env, st, pc, step.retransmit, uc);
	flow_seq_sent(env, st, pc, step.retransmit, uc, n_lo, n_hi);
	if (uc)
		return;	/* UC: the responder owes no answer, and nothing is resent to compare */
	flow_rsp_receives(env, f, st, pc, n_lo, n_lo, n_hi, broke);
	if (!pc->icrc_bad)
		flow_req_remember_sent(st, pc);
}

/* ---- an answer ------------------------------------------------------------------- */

/*
 * An ACK, NAK or RNR NAK. Sets *msn_upto to the PSN its MSN counts
 * messages up to; returns true when the MSN was judged already.
 */
static bool acknowledge(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc,
			enum rt_aeth_type type, uint32_t *msn_upto)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	switch (type) {
	case RT_AETH_NAK:
		*msn_upto = (psn - 1) & PSN_MASK;
		if (rt_aeth_value(p->ext.aeth.syndrome) == 0)
			return flow_rsp_nak_sequence(env, f, st, pc);
		flow_rsp_nak_fatal(env, f, st, pc);
		return false;
	case RT_AETH_RNR_NAK:
		*msn_upto = st->have_acked && !psn_before(st->acked, psn) ? st->acked : (psn - 1) & PSN_MASK;
		flow_rsp_nak_rnr(env, f, st, pc);
		return false;
	case RT_AETH_ACK: {
		bool judged = flow_rsp_reack(env, st, pc);
		flow_ack_progress(env, f, st, psn, pc);
		return judged;
	}
	case RT_AETH_RESERVED:
		break;
	}
	return false;
}

static void response(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	bool aeth = p->ext_present & RT_EXT_AETH;
	enum rt_aeth_type type = aeth ? rt_aeth_type(p->ext.aeth.syndrome) : RT_AETH_ACK;

	st->any_response = true;
	st->last_response_frame = pc->frame;
	if (aeth && type == RT_AETH_NAK) {
		f->info.naks++;
		pc->ladder_flags |= RT_LADDER_NAK;
	} else if (aeth && type == RT_AETH_RNR_NAK) {
		f->info.rnr_naks++;
		pc->ladder_flags |= RT_LADDER_RNR;
	}
	if (pc->icrc_bad)
		return;	/* the requester drops it */
	if (!st->started) {
		flow_seq_unsolicited(env, f, st, pc);
		return;
	}
	if (p->op->family != RT_FAMILY_READ_RESPONSE)
		flow_seq_ack_ahead(env, st, pc);	/* READ responses: flow_read_response */

	uint32_t msn_upto = psn;
	bool msn_judged = false;
	bool replay = false;	/* an answer to a duplicate carries the responder's current MSN */
	switch (p->op->family) {
	case RT_FAMILY_READ_RESPONSE:
		replay = flow_read_response(env, f, st, pc);
		flow_ack_progress(env, f, st, psn, pc);
		break;
	case RT_FAMILY_ATOMIC_ACK:
		replay = flow_read_atomic_ack(env, st, pc);
		flow_ack_progress(env, f, st, psn, pc);
		break;
	case RT_FAMILY_ACK:
		if (!aeth) {
			/* Cut before its AETH: an ACK, NAK or RNR NAK, nobody can say which. */
			flow_rsp_answer_unknown(env, f, st, pc);
			return;
		}
		msn_judged = acknowledge(env, f, st, pc, type, &msn_upto);
		break;
	default:
		break;
	}
	if (!aeth || type == RT_AETH_RESERVED)
		return;
	if (replay)
		NOT_EVALUATED(env, SEQ_MSN);
	else
		flow_seq_msn(env, f, st, msn_upto, p->ext.aeth.msn, pc->frame, msn_judged);
}

/* ---- entry points ------------------------------------------------------------------ */

/* Headers the opcode carries that the snap length cut: the rules that read them skip this packet. */
static void note_cut_fields(struct flow *f, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint8_t cut = p->op->ext & (uint8_t)~p->ext_present & (RT_EXT_AETH | RT_EXT_RETH);
	if (cut)
		flow_note(f, NOTE_FIELDS_CUT, pc->frame, p->bth.psn, cut & RT_EXT_AETH ? RT_EXT_AETH : RT_EXT_RETH);
}

void flow_check_packet(struct checker_env *env, struct flow *f, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	int s = pc->side;
	f->stream[0].miss_now = f->stream[1].miss_now = false;

	if (f->side_fatal[s])
		FAIL(env, RSP_SILENT_AFTER_FATAL, pc->frame, "%s PSN %u sent after this side's fatal NAK at frame %llu",
		     op ? label(p) : "packet", p->bth.psn, (ull)f->side_fatal_frame[s]);
	if (!op || !op->supported || op->family == RT_FAMILY_CNP)
		return;
	if (f->info.transport == RT_TRANSPORT_UD || op->transport == RT_TRANSPORT_UD)
		return;	/* UD: each packet stands alone (PKT rules) */

	if (p->truncated)
		note_cut_fields(f, pc);
	bool uc = f->info.transport == RT_TRANSPORT_UC;
	if (uc) {
		if (op->transport != RT_TRANSPORT_UC ||
		    (op->family != RT_FAMILY_SEND && op->family != RT_FAMILY_WRITE)) {
			FAIL(env, SEQ_UC_ONLY_SENDS_WRITES, pc->frame, "%s (%s) in a UC flow", label(p), p->op->name);
			return;
		}
		PASS(env, SEQ_UC_ONLY_SENDS_WRITES);
	}
	if (op->response)
		response(env, f, &f->stream[!s], pc);
	else if (op->family == RT_FAMILY_SEND || op->family == RT_FAMILY_WRITE || op->family == RT_FAMILY_READ_REQUEST ||
		 op->family == RT_FAMILY_ATOMIC)
		request(env, f, &f->stream[s], pc, uc);
}

static void finish_stream(struct checker_env *env, struct flow *f, struct stream *st, int s)
{
	flow_seq_finish(env, f, st);
	flow_rsp_finish(env, f, st);
	if (st->started && !f->stream[!s].any_response && !st->any_response && f->info.transport == RT_TRANSPORT_RC)
		flow_note(f, NOTE_ONE_DIRECTION, f->info.first_frame, 0, 0);
	flow_req_finish(env, f, st);
}

void flow_finish(struct checker_env *env, struct flow *f)
{
	for (int s = 0; s < 2; s++)
		finish_stream(env, f, &f->stream[s], s);
	for (int s = 0; s < 2; s++)
		if (f->side_fatal[s])
			PASS(env, RSP_SILENT_AFTER_FATAL);
}

void flow_free_state(struct flow *f)
{
	for (int s = 0; s < 2; s++) {
		free(f->stream[s].sent);
		free(f->stream[s].answered);
	}
	free(f->ladder);
}
