/* SPDX-License-Identifier: MIT */
/*
 * RSP rules (rules.md "RSP: the responder"): a model of what the responder
 * has received (the PSN it expects next, its messages, its outstanding
 * READs) and of what it owes for it (struct owed_response: a NAK sequence
 * error for a request ahead, a re-ACK for a duplicate, a NAK invalid
 * request, silence for a bad ICRC), held against the answers it sends.
 *
 * The model follows the responder's answers rather than insisting on its
 * own view: packets lost before the capture point reached the responder
 * all the same, so an answer ahead of the model moves the model.
 */
#include "check_flow.h"

/* RSP-ACK: an ACK still missing this long before the capture ends is owed, not cut off. */
#define ACK_GRACE_NS 100000000LL

/* ---- requests waiting for ACKs (RSP-ACK) -------------------------------------- */

static void ackreq_push(struct flow *f, struct stream *st, uint32_t psn, uint64_t frame, int64_t ts)
{
	if (st->ackreq_count == ACKREQ_SLOTS) {
		/* The oldest has waited long; it leaves unjudged. */
		st->ackreq_head = (st->ackreq_head + 1) % ACKREQ_SLOTS;
		st->ackreq_count--;
		flow_note(f, NOTE_WINDOW_EXCEEDED, frame, psn, 0);
	}
	st->ackreqs[(st->ackreq_head + st->ackreq_count) % ACKREQ_SLOTS] =
		(struct ackreq){ .psn = psn, .frame = frame, .ts_ns = ts };
	st->ackreq_count++;
}

void flow_rsp_acks_cover(struct checker_env *env, struct stream *st, uint32_t upto)
{
	while (st->ackreq_count && !psn_before(upto, st->ackreqs[st->ackreq_head].psn)) {
		PASS(env, RSP_ACK);
		st->ackreq_head = (st->ackreq_head + 1) % ACKREQ_SLOTS;
		st->ackreq_count--;
	}
}

/* ---- an answer covering PSNs up to upto ------------------------------------------ */

/*
 * True when the capture holds a request for every PSN from..upto. A READ
 * stands for the PSNs of its responses: as many as its length needs at the
 * smallest PMTU, since the PMTU may not be known.
 */
static bool held_by_capture(struct stream *st, uint32_t from, uint32_t upto)
{
	uint32_t read_end = from;
	for (uint32_t k = from, n = 0; !psn_before(upto, k); k = (k + 1) & PSN_MASK) {
		if (++n > PSN_WINDOW)
			return false;
		struct psn_slot *s = flow_window_slot(&st->sent, k, false);
		if (s && s->used && s->psn == k) {
			if (rt_opcode_info(s->opcode)->family == RT_FAMILY_READ_REQUEST)
				read_end = (k + (s->len ? (s->len + 255) / 256 : 1)) & PSN_MASK;
			continue;
		}
		if (!psn_in(k, from, read_end))
			return false;
	}
	return true;
}

/*
 * What an answer covering every PSN up to upto settles of what the
 * responder owes, and where it puts the model. Returns true when it shows
 * that the capture lacks packets of the stream.
 */
bool flow_rsp_answered(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto,
		       const struct pkt_ctx *pc)
{
	bool missed = false;
	if (owed_upto(&st->owes.silence, upto)) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "%s acknowledges PSN %u, whose request (frame %llu) had a bad ICRC",
		     label(pc->p), st->owes.silence.psn, (ull)st->owes.silence.frame);
		settle(&st->owes.silence);
	}
	if (owed_upto(&st->owes.nak_invalid, upto)) {
		FAIL(env, RSP_NAK_INVALID, pc->frame,
		     "%s acknowledges PSN %u, whose request (frame %llu) broke the opcode sequence or length rules; "
		     "a NAK invalid request was due",
		     label(pc->p), st->owes.nak_invalid.psn, (ull)st->owes.nak_invalid.frame);
		settle(&st->owes.nak_invalid);
	}
	if (owed_upto(&st->owes.nak_seq, upto)) {
		/* The responder had the PSN it waited for: the capture missed it. */
		settle(&st->owes.nak_seq);
		missed = true;
		flow_note(f, NOTE_RESPONDER_AHEAD, pc->frame, st->owes.nak_seq.psn, 0);
	}
	if (st->resp_sync && !psn_before(upto, (st->epsn + st->epsn_slack) & PSN_MASK)) {
		/*
		 * The responder has more than the model let it have. Requests the
		 * capture holds but the model took for dropped (they came after a
		 * gap) are no sign of a capture miss; PSNs it never saw are.
		 */
		if (!held_by_capture(st, st->epsn, upto)) {
			flow_note(f, NOTE_RESPONDER_AHEAD, pc->frame, upto, 0);
			missed = true;
		}
		/* Never past what the requester sent: an answer ahead of that is SEQ-ACK-AHEAD's business. */
		st->epsn = st->started && !psn_before(upto, st->frontier) ? st->frontier : (upto + 1) & PSN_MASK;
	}
	return missed;
}

/* ---- what the responder receives -------------------------------------------------------- */

/* A request behind epsn: a SEND/WRITE is owed a re-ACK, a READ or atomic is answered again. */
static void responder_duplicate(struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_opcode_info *op = pc->p->op;
	if (op->family == RT_FAMILY_SEND || op->family == RT_FAMILY_WRITE) {
		if (!is_owed(&st->owes.reack))
			owe(&st->owes.reack, (st->epsn - 1) & PSN_MASK, pc->frame);
		return;
	}
	flow_read_duplicate(f, st, pc);
}

/* What an in-order request leaves the responder with: a message done, an ACK owed, a READ to answer. */
static void responder_takes(struct flow *f, struct stream *st, const struct pkt_ctx *pc, uint32_t n_lo,
			    uint32_t n_hi)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	uint32_t psn = p->bth.psn;
	switch (op->family) {
	case RT_FAMILY_SEND:
	case RT_FAMILY_WRITE:
		if (op->position == RT_POS_LAST || op->position == RT_POS_ONLY)
			flow_seq_message_done(st, psn);
		if (p->bth.ack_req)
			ackreq_push(f, st, psn, pc->frame, pc->ts_ns);
		break;
	case RT_FAMILY_READ_REQUEST:
	case RT_FAMILY_ATOMIC:
		flow_seq_message_done(st, psn);
		flow_read_taken(st, pc, n_lo, n_hi);
		break;
	default:
		break;
	}
}

/*
 * The responder's view of a request: in order, ahead (a NAK is owed) or a
 * duplicate. span: the PSNs it takes; n_lo..n_hi: a READ's responses.
 * broke: it broke a SEQ rule, so an RC responder owes a NAK invalid request.
 */
void flow_rsp_receives(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
		       uint32_t span, uint32_t n_lo, uint32_t n_hi, bool broke)
{
	uint32_t psn = pc->p->bth.psn;
	if (pc->icrc_bad) {
		/* The responder must drop it. It is owed nothing, and must not answer it. */
		if (!st->resp_sync || psn == st->epsn)
			owe(&st->owes.silence, psn, pc->frame);
		return;
	}
	if (!st->resp_sync) {
		st->resp_sync = true;
		st->epsn = psn;
	}
	int32_t d = rt_psn_diff(psn, st->epsn);
	if (d > 0 && (uint32_t)d <= st->epsn_slack)
		d = 0;	/* the READ before it took d more PSNs than the smallest PMTU would have */
	if (d > 0) {
		if (!st->nak_sent && !is_owed(&st->owes.nak_seq))
			owe(&st->owes.nak_seq, st->epsn, pc->frame);
		return;
	}
	if (d < 0) {
		responder_duplicate(f, st, pc);
		return;
	}
	if (st->nak_sent && psn == st->nak_sent_psn)
		st->nak_sent = false;
	if (owed_for(&st->owes.silence, psn)) {
		PASS(env, RSP_ICRC_DROP);
		settle(&st->owes.silence);
	}
	st->epsn = (psn + span) & PSN_MASK;
	st->epsn_slack = n_hi - n_lo;
	if (broke && pc->p->op->transport == RT_TRANSPORT_RC && !is_owed(&st->owes.nak_invalid))
		owe(&st->owes.nak_invalid, psn, pc->frame);
	responder_takes(f, st, pc, n_lo, n_hi);
}

/* ---- NAKs (RSP-NAK-SEQ, RSP-RNR, RSP-NAK-INVALID, RSP-ICRC-DROP) ------------------------ */

/*
 * The responder says it expects psn: what the model took in from psn on did
 * not count (an RNR NAK refused it, or it never reached the responder).
 */
static void responder_rollback(struct stream *st, uint32_t psn)
{
	while (st->done_count) {
		uint32_t last = (st->done_head + st->done_count - 1) % DONE_SLOTS;
		if (psn_before(st->done[last].last_psn, psn))
			break;
		st->done_count--;
		st->done_total--;
	}
	while (st->ackreq_count) {
		uint32_t last = (st->ackreq_head + st->ackreq_count - 1) % ACKREQ_SLOTS;
		if (psn_before(st->ackreqs[last].psn, psn))
			break;
		st->ackreq_count--;
	}
	for (uint32_t i = 0; i < READ_SLOTS; i++)
		if (st->reads[i].used && !st->reads[i].complete && !psn_before(st->reads[i].psn, psn))
			st->reads[i].used = false;
	st->epsn = psn;
	st->epsn_slack = 0;
	st->resp_sync = true;
}

/* Returns true when the NAK's PSN was judged wrong (its MSN then says nothing). */
bool flow_rsp_nak_sequence(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	const struct owed_response *due = &st->owes.nak_seq;
	uint32_t misses_before = flow_misses(f);
	bool wrong = false;
	if (st->nak_sent && st->nak_sent_psn == psn && st->epsn == psn) {
		FAIL(env, RSP_NAK_SEQ, pc->frame, "second NAK sequence error for PSN %u before PSN %u arrived (first at frame %llu)",
		     psn, psn, (ull)st->nak_frame);
	} else if (!is_owed(due)) {
		; /* nothing in the capture prompted it (the trigger was not captured) */
	} else if (psn == due->psn) {
		PASS(env, RSP_NAK_SEQ);
	} else if (st->lossy) {
		/* A stream that loses packets may have lost the one the responder got: cannot tell. */
		NOT_EVALUATED(env, RSP_NAK_SEQ);
	} else {
		FAIL(env, RSP_NAK_SEQ, pc->frame,
		     "NAK sequence error carries PSN %u; the responder expected PSN %u (frame %llu was ahead of it)", psn,
		     due->psn, (ull)due->frame);
		wrong = true;
	}
	if (is_owed(due)) {
		/* The responder saw the gap the capture shows: those packets were lost, not skipped. */
		flow_seq_gaps_lost(env, f, st, due->psn);
		settle(&st->owes.nak_seq);
	}
	flow_seq_gaps_lost(env, f, st, psn);
	flow_ack_progress(env, f, st, (psn - 1) & PSN_MASK, pc);
	st->nak_sent = true;
	st->nak_sent_psn = psn;
	/* The requester obeys the NAK as sent; the responder model keeps what the capture shows. */
	if (!wrong)
		responder_rollback(st, psn);
	flow_req_nak_seq_received(st, pc, misses_before, flow_misses(f));
	return wrong;
}

void flow_rsp_nak_rnr(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	/* The refused request is one the responder took in and has not acknowledged: acked < psn < epsn. */
	bool unacked = !st->have_acked || psn_before(st->acked, psn);
	bool icrc = owed_for(&st->owes.silence, psn);
	if (icrc) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "RNR NAK for PSN %u, whose request (frame %llu) had a bad ICRC", psn,
		     (ull)st->owes.silence.frame);
		settle(&st->owes.silence);
	}

	bool received = !st->resp_sync || psn_before(psn, st->epsn) || (st->lossy && psn == st->epsn);
	if (icrc)
		;
	else if (unacked && received)
		PASS(env, RSP_RNR);
	else
		FAIL(env, RSP_RNR, pc->frame, "RNR NAK carries PSN %u, which is not a request the responder holds unanswered "
		     "(acknowledged up to PSN %u, received up to PSN %u)", psn, st->acked, (st->epsn - 1) & PSN_MASK);
	flow_req_rnr_received(st, pc);
	flow_ack_progress(env, f, st, (psn - 1) & PSN_MASK, pc);
	if (unacked)
		responder_rollback(st, psn);
	st->nak_sent = false;
	settle(&st->owes.nak_seq);
}

void flow_rsp_nak_fatal(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint32_t code = rt_aeth_value(p->ext.aeth.syndrome);
	if (owed_for(&st->owes.silence, p->bth.psn)) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "NAK for PSN %u, whose request (frame %llu) had a bad ICRC", p->bth.psn,
		     (ull)st->owes.silence.frame);
		settle(&st->owes.silence);
	}
	if (code == 1 && is_owed(&st->owes.nak_invalid))
		PASS(env, RSP_NAK_INVALID);
	else if (owed_for(&st->owes.nak_invalid, p->bth.psn))
		FAIL(env, RSP_NAK_INVALID, pc->frame, "NAK code %u for PSN %u, whose request broke the opcode sequence or "
		     "length rules; a NAK invalid request was due", code, p->bth.psn);
	settle(&st->owes.nak_invalid);
	flow_ack_progress(env, f, st, (p->bth.psn - 1) & PSN_MASK, pc);
	flow_req_fatal_received(env, st, pc);
	/* From now on this side must be silent (RSP-SILENT-AFTER-FATAL). */
	f->side_fatal[pc->side] = true;
	f->side_fatal_frame[pc->side] = pc->frame;
}

/*
 * An answer whose AETH the capture cut: an ACK, a NAK or an RNR NAK. Any of
 * them says the responder has every PSN before its own; what else it
 * settles is unknown, so what it may have settled is not evaluated, and the
 * requester may act on it (check_req.c: answers_cut).
 */
void flow_rsp_answer_unknown(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	flow_ack_progress(env, f, st, (psn - 1) & PSN_MASK, pc);
	while (st->ackreq_count && st->ackreqs[st->ackreq_head].psn == psn) {
		NOT_EVALUATED(env, RSP_ACK);
		st->ackreq_head = (st->ackreq_head + 1) % ACKREQ_SLOTS;
		st->ackreq_count--;
	}
	if (is_owed(&st->owes.nak_seq))
		NOT_EVALUATED(env, RSP_NAK_SEQ);
	if (is_owed(&st->owes.reack))
		NOT_EVALUATED(env, RSP_DUPLICATE);
	if (is_owed(&st->owes.nak_invalid))
		NOT_EVALUATED(env, RSP_NAK_INVALID);
	settle(&st->owes.nak_seq);
	settle(&st->owes.reack);
	settle(&st->owes.nak_invalid);
	NOT_EVALUATED(env, SEQ_MSN);
	st->answers_cut = true;	/* REQ: any run may now be this answer's */
}

/* ---- duplicates (RSP-DUPLICATE, RSP-DUPLICATE-READ) ----------------------------------- */

/* An ACK: the re-ACK a duplicate was owed, if one was. Returns true when it judged the MSN itself. */
bool flow_rsp_reack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	const struct owed_response *due = &st->owes.reack;
	uint32_t psn = p->bth.psn;
	if (!is_owed(due))
		return false;
	if (psn_before(psn, due->psn)) {
		/*
		 * Short of what the responder had when the duplicate came. Answers
		 * lag behind requests: this may answer an earlier request, unless
		 * the responder already acknowledged up to the re-ACK's PSN.
		 */
		if (!st->have_acked || psn_before(st->acked, due->psn))
			return false;
		FAIL(env, RSP_DUPLICATE, pc->frame,
		     "duplicate at frame %llu re-acknowledged with PSN %u; expected PSN %u (the expected PSN - 1)",
		     (ull)due->frame, psn, due->psn);
		settle(&st->owes.reack);
		return true;	/* one fault: its MSN says nothing more */
	}
	settle(&st->owes.reack);
	if (psn != due->psn || !st->msn_sync || !st->have_msn) {
		PASS(env, RSP_DUPLICATE);
		return false;
	}
	/* The re-ACK must not count the duplicate as one more message. */
	int64_t count = flow_seq_messages_upto(st, psn);
	uint32_t want = (uint32_t)(count + st->msn_offset) & PSN_MASK;
	if (count >= 0 && p->ext.aeth.msn != want && !st->lossy)
		FAIL(env, RSP_DUPLICATE, pc->frame, "duplicate at frame %llu counted again: re-ACK MSN %u, expected %u",
		     (ull)due->frame, p->ext.aeth.msn, want);
	else
		PASS(env, RSP_DUPLICATE);
	return true;
}

/* A READ response: for a duplicate READ the same data as before; otherwise remembered for one. */
void flow_rsp_duplicate_read(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool replay)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	struct psn_slot *w = flow_window_slot(&st->answered, psn, !replay);
	if (replay && w && w->used && w->psn == psn && !p->truncated) {
		if (w->crc == p->payload_crc && w->len == p->payload_len)
			PASS(env, RSP_DUPLICATE_READ);
		else
			FAIL(env, RSP_DUPLICATE_READ, pc->frame, "%s PSN %u answers a duplicate READ with other data than before",
			     label(p), psn);
	} else if (!replay && w) {
		*w = (struct psn_slot){ .psn = psn, .opcode = p->bth.opcode, .len = p->payload_len,
					.crc = p->payload_crc, .used = !p->truncated };
	}
}

/* ---- the end of the capture -------------------------------------------------------- */

void flow_rsp_finish(struct checker_env *env, struct flow *f, struct stream *st)
{
	for (uint32_t k = 0; k < st->ackreq_count; k++) {
		const struct ackreq *a = &st->ackreqs[(st->ackreq_head + k) % ACKREQ_SLOTS];
		/* Only time tells a missing ACK from one still on its way when the capture stopped. */
		if (st->fatal_received || st->lossy) {
			NOT_EVALUATED(env, RSP_ACK);
		} else if (env->last_ts_ns - a->ts_ns > ACK_GRACE_NS) {
			FAIL(env, RSP_ACK, a->frame, "request PSN %u with AckReq is never acknowledged", a->psn);
		} else {
			NOT_EVALUATED(env, RSP_ACK);
			flow_note(f, NOTE_ENDS_BEFORE_ACK, a->frame, a->psn, 0);
		}
	}
	st->ackreq_count = 0;
	const struct owed_response *nak = &st->owes.nak_seq;
	if (is_owed(nak)) {
		bool answered_later = st->any_response && st->last_response_frame > nak->frame;
		if (answered_later && !st->lossy)
			FAIL(env, RSP_NAK_SEQ, nak->frame, "request ahead of the expected PSN %u got no NAK sequence error",
			     nak->psn);
		else
			flow_note(f, NOTE_ENDS_BEFORE_NAK, nak->frame, nak->psn, 0);
	}
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		struct read_slot *r = &st->reads[i];
		if (r->used && !r->complete)
			flow_note(f, NOTE_ENDS_BEFORE_RESPONSE, r->frame, r->psn, 0);
	}
	if (is_owed(&st->owes.silence))
		PASS(env, RSP_ICRC_DROP);
	if (is_owed(&st->owes.nak_invalid))
		NOT_EVALUATED(env, RSP_NAK_INVALID);
}
