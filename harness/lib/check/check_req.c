/* SPDX-License-Identifier: MIT */
/*
 * REQ rules (rules.md "REQ: the requester"): what the requester owes after
 * the responder's NAKs (go back to the NAKed PSN, wait out an RNR timer,
 * stop after a fatal NAK), what a retransmission must be (the same packet,
 * nothing acknowledged, started by a NAK or the local ACK timeout), how
 * often it may retry, and AckReq on the last packet of a message.
 *
 * A go-back that skips the NAKed PSN in a flow that shows no loss may still
 * be a capture that missed the resend: it waits for the responder's answer
 * (the skipped PSN acknowledged proves the resend happened).
 */
#include "check_flow.h"

void flow_req_stop_after_fatal(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	if (st->fatal_received && (!st->started || !psn_before(psn, st->frontier)) && pc->ts_ns > st->fatal_grace_ns)
		FAIL(env, REQ_STOP_AFTER_FATAL, pc->frame, "%s PSN %u sent after the fatal NAK at frame %llu", label(pc->p),
		     psn, (ull)st->fatal_frame);
}

/* ---- REQ-RETRANSMIT-SAME ---------------------------------------------------------- */

/*
 * A READ request re-requested from a PSN inside an earlier READ: compared
 * with what remained of that READ. False when no remembered READ holds it.
 */
static bool reread_within(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, uint32_t pmtu)
{
	const struct rt_packet *p = pc->p;
	for (uint32_t i = 0; i < PSN_WINDOW; i++) {
		struct psn_slot *r = &st->sent[i];
		if (!r->used || rt_opcode_info(r->opcode)->family != RT_FAMILY_READ_REQUEST)
			continue;
		uint32_t n = responses_for(r->len, pmtu);
		if (!psn_in(p->bth.psn, r->psn, (r->psn + n) & PSN_MASK))
			continue;
		uint32_t left = r->len - ((p->bth.psn - r->psn) & PSN_MASK) * pmtu;
		if (p->bth.opcode == r->opcode && p->ext.reth.dma_len <= left)
			PASS(env, REQ_RETRANSMIT_SAME);
		else
			FAIL(env, REQ_RETRANSMIT_SAME, pc->frame, "READ request PSN %u asks for %u bytes; %u remained of the READ at PSN %u",
			     p->bth.psn, p->ext.reth.dma_len, left, r->psn);
		return true;
	}
	return false;
}

void flow_req_retransmit_same(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	struct psn_slot *s = flow_window_slot(&st->sent, p->bth.psn, false);
	uint32_t pmtu = flow_side_pmtu(env, f, !pc->side);
	if ((!s || !s->used || s->psn != p->bth.psn) && st->sent && pmtu && p->op->family == RT_FAMILY_READ_REQUEST &&
	    !p->truncated && reread_within(env, st, pc, pmtu))
		return;
	if (!s || !s->used || s->psn != p->bth.psn || p->truncated) {
		NOT_EVALUATED(env, REQ_RETRANSMIT_SAME);
		return;
	}
	if (p->op->family == RT_FAMILY_READ_REQUEST) {
		/* A READ may be asked again for a part: the same opcode and no more than before. */
		if (s->opcode == p->bth.opcode && p->ext.reth.dma_len <= s->len)
			PASS(env, REQ_RETRANSMIT_SAME);
		else
			FAIL(env, REQ_RETRANSMIT_SAME, pc->frame,
			     "READ request PSN %u sent again as opcode 0x%02x length %u, first as 0x%02x length %u",
			     p->bth.psn, p->bth.opcode, p->ext.reth.dma_len, s->opcode, s->len);
		return;
	}
	if (s->opcode != p->bth.opcode)
		FAIL(env, REQ_RETRANSMIT_SAME, pc->frame, "PSN %u sent again as %s, first as %s", p->bth.psn, label(p),
		     rt_opcode_info(s->opcode) ? rt_opcode_info(s->opcode)->label : "?");
	else if (s->len != p->payload_len || s->crc != p->payload_crc)
		FAIL(env, REQ_RETRANSMIT_SAME, pc->frame, "%s PSN %u sent again with different payload (%u bytes, first %u)",
		     label(p), p->bth.psn, p->payload_len, s->len);
	else
		PASS(env, REQ_RETRANSMIT_SAME);
}

/* What a resend of this PSN is compared with. */
void flow_req_remember_sent(struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	struct psn_slot *s = flow_window_slot(&st->sent, p->bth.psn, true);
	if (!s)
		return;
	bool read = p->op->family == RT_FAMILY_READ_REQUEST;
	*s = (struct psn_slot){ .psn = p->bth.psn, .opcode = p->bth.opcode, .used = !p->truncated,
				.len = read ? p->ext.reth.dma_len : p->payload_len, .crc = read ? 0 : p->payload_crc,
				.ts_ns = pc->ts_ns, .frame = pc->frame };
}

/* ---- what starts a retransmission run ------------------------------------------------ */

/*
 * Does anything but the NAK's own gap show that the capture lacks packets
 * of this flow? Then a resend the capture does not hold may have happened.
 */
static bool capture_drops(const struct flow *f, const struct stream *st)
{
	return st->nak_misses_before > 0 || flow_misses(f) > st->nak_misses_after;
}

/*
 * REQ-GO-BACK-N: the run answers the NAK sequence error, if one is owed.
 * Returns true when a NAK explains the run; *judged when its PSN was judged
 * against the NAK (REQ-NO-RETRANSMIT-ACKED then leaves it alone).
 */
static bool go_back_for_nak(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
			    bool *judged)
{
	uint32_t psn = pc->p->bth.psn;
	if (st->nak != NAK_SEQ)
		return false;
	if (st->nak_prev && psn == st->nak_prev_psn && psn != st->nak_psn) {
		/* The answer to the older of two NAKs; the newer one is still to be answered. */
		PASS(env, REQ_GO_BACK_N);
		*judged = true;
		st->nak_prev = false;
		return true;
	}
	uint32_t want = st->nak_psn;
	st->nak_prev = false;
	if (psn == want) {
		/* Obeying the NAK as sent is right, whatever ACKs crossed it on the wire. */
		PASS(env, REQ_GO_BACK_N);
		*judged = true;
	} else if (psn_before(psn, want)) {
		FAIL(env, REQ_GO_BACK_N, pc->frame, "%s resends from PSN %u; the NAK sequence error at frame %llu asked for PSN %u",
		     label(pc->p), psn, (ull)st->nak_frame, want);
		*judged = true;
	} else if (capture_drops(f, st)) {
		/* Its resend of `want` was lost before the capture point, as others were. */
		PASS(env, REQ_GO_BACK_N);
		flow_note(f, NOTE_MISSING_RETRANSMISSION, pc->frame, want, 0);
	} else {
		st->gbn_suspect = true;
		st->gbn_skipped = false;
		st->gbn_p = want;
		st->gbn_psn = psn;
		st->gbn_frame = pc->frame;
	}
	st->nak = NAK_NONE;
	return true;
}

/* A READ or atomic asked again where an implicit NAK (check_read.c) pointed: no timeout is needed. */
static bool implicit_nak_answered(struct stream *st, const struct pkt_ctx *pc)
{
	uint8_t family = pc->p->op->family;
	if (!st->implicit_due || (family != RT_FAMILY_READ_REQUEST && family != RT_FAMILY_ATOMIC) ||
	    pc->p->bth.psn != st->implicit_psn)
		return false;
	st->implicit_due = false;
	return true;
}

/* REQ-RNR-WAIT, REQ-RNR-LIMIT: the run answers an RNR NAK, if one came. Returns true when one did. */
static bool rnr_wait(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_check_config *cfg = env->cfg;
	uint32_t psn = pc->p->bth.psn;
	if (!st->rnr)
		return false;
	double waited_us = (double)(pc->ts_ns - st->rnr_ts) / 1000.0;
	double need_us = rt_rnr_timer_us(st->rnr_timer);
	if (waited_us + (double)env->ts_slack_ns / 1000.0 + 1e-3 >= need_us)
		PASS(env, REQ_RNR_WAIT);
	else
		FAIL(env, REQ_RNR_WAIT, pc->frame,
		     "%s PSN %u resent %.2f us after the RNR NAK at frame %llu, whose timer (code %u) asks for %.2f us",
		     label(pc->p), psn, waited_us, (ull)st->rnr_frame, st->rnr_timer, need_us);
	if (cfg->rnr_retry < 0)
		NOT_EVALUATED(env, REQ_RNR_LIMIT);
	else if (cfg->rnr_retry != 7 && st->rnr_count > (uint32_t)cfg->rnr_retry)
		FAIL(env, REQ_RNR_LIMIT, pc->frame, "PSN %u resent after %u RNR NAKs in a row; rnr_retry is %d", psn,
		     st->rnr_count, cfg->rnr_retry);
	else
		PASS(env, REQ_RNR_LIMIT);
	st->rnr = false;
	return true;
}

/*
 * REQ-TIMEOUT's upper bound, when configured: a timer restarted by anything
 * the requester did or heard ran out no later than timeout_max_us after the
 * last of them (a timer eight times too long passes the lower bound alone).
 */
static bool timer_too_late(struct checker_env *env, const struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_check_config *cfg = env->cfg;
	if (cfg->timeout_max_us <= 0)
		return false;
	int64_t since = st->last_req_ts > st->progress_ts ? st->last_req_ts : st->progress_ts;
	double idle_us = (double)(pc->ts_ns - since) / 1000.0;
	if (idle_us - (double)env->ts_slack_ns / 1000.0 <= cfg->timeout_max_us)
		return false;
	FAIL(env, REQ_TIMEOUT, pc->frame,
	     "%s PSN %u resent %.1f us after the last request or progress, later than the bound of %.1f us "
	     "for a local ACK timeout of %.1f us",
	     label(pc->p), pc->p->bth.psn, idle_us, cfg->timeout_max_us, cfg->timeout_us);
	return true;
}

/* REQ-TIMEOUT: nothing asked for the run, so only the local ACK timeout can have started it. */
static void timeout_wait(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_check_config *cfg = env->cfg;
	uint32_t psn = pc->p->bth.psn;
	if (!cfg->have_timeout) {
		NOT_EVALUATED(env, REQ_TIMEOUT);
		return;
	}
	double waited_us = (double)(pc->ts_ns - st->progress_ts) / 1000.0;
	uint32_t oldest = st->have_acked ? (st->acked + 1) & PSN_MASK : st->first_psn;
	if (psn != oldest && !st->lossy && psn_before(oldest, psn))
		FAIL(env, REQ_TIMEOUT, pc->frame, "retransmission starts at PSN %u; the oldest unacknowledged PSN is %u", psn,
		     oldest);
	else if (waited_us + (double)env->ts_slack_ns / 1000.0 < cfg->timeout_us)
		FAIL(env, REQ_TIMEOUT, pc->frame,
		     "%s PSN %u resent %.1f us after the last progress, before the local ACK timeout of %.1f us",
		     label(pc->p), psn, waited_us, cfg->timeout_us);
	else if (!timer_too_late(env, st, pc))
		PASS(env, REQ_TIMEOUT);
}

/* REQ-RETRY-LIMIT: runs in a row from one PSN without progress (flow_ack_progress resets the count). */
static void retry_limit(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_check_config *cfg = env->cfg;
	uint32_t psn = pc->p->bth.psn;
	if (st->retry_count && st->retry_psn == psn)
		st->retry_count++;
	else
		st->retry_psn = psn, st->retry_count = 1;
	if (cfg->retry_cnt < 0)
		NOT_EVALUATED(env, REQ_RETRY_LIMIT);
	else if (st->retry_count > (uint32_t)cfg->retry_cnt)
		FAIL(env, REQ_RETRY_LIMIT, pc->frame, "PSN %u retransmitted %u times without progress; retry_cnt is %d", psn,
		     st->retry_count, cfg->retry_cnt);
	else
		PASS(env, REQ_RETRY_LIMIT);
}

/*
 * A resend below the newest NAK's PSN, captured just after that NAK was
 * obeyed: a packet of the run before it, which a capture point merging two
 * queues put late. Nothing started a run here.
 */
static bool late_resend(const struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	if (st->nak == NAK_SEQ || !st->nak_frame || pc->ts_ns - st->nak_ts_ns > env->in_flight_ns ||
	    !psn_before(psn, st->nak_psn))
		return false;
	flow_note(f, NOTE_LATE_PACKET, pc->frame, psn, 0);
	return true;
}

/*
 * A go-back to the newest NAK's PSN, within the in-flight time of the NAK, after
 * the NAK was taken as answered: what answered it (a resend at its PSN in
 * sequence) was the run before, captured late, and this is the answer.
 */
static bool nak_answered_again(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	if (st->nak == NAK_SEQ || !st->nak_frame || pc->p->bth.psn != st->nak_psn ||
	    pc->ts_ns - st->nak_ts_ns > env->in_flight_ns)
		return false;
	PASS(env, REQ_GO_BACK_N);
	return true;
}

/* A NAK sequence error answered by a resend at its PSN that follows on without going back (a run under way). */
void flow_req_resend_in_sequence(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	if (st->nak != NAK_SEQ || pc->p->bth.psn != st->nak_psn)
		return;
	PASS(env, REQ_GO_BACK_N);
	st->nak = NAK_NONE;
	st->nak_prev = false;
}

/*
 * A resend of a PSN that only the newest answer acknowledged, within the
 * in-flight time of that answer: the requester sent it before the answer
 * reached it, and the capture point saw them the other way round.
 */
static bool acked_in_flight(const struct checker_env *env, const struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	return !psn_before(st->acked, psn) && pc->ts_ns - st->acked_ts <= env->in_flight_ns &&
	       (!st->had_acked || psn_before(st->acked_before, psn));
}

/* The first packet of a run that goes back: which NAK, RNR NAK or timeout explains it, and is it right. */
void flow_req_retransmission_start(struct checker_env *env, struct flow *f, struct stream *st,
				   const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	bool judged_go_back = false;
	bool by_nak = nak_answered_again(env, st, pc);
	if (by_nak)
		judged_go_back = true;
	else if (late_resend(env, f, st, pc))
		return;
	else
		by_nak = go_back_for_nak(env, f, st, pc, &judged_go_back);
	if (implicit_nak_answered(st, pc))
		by_nak = true;
	bool by_rnr = rnr_wait(env, st, pc);

	/* READs and atomics are asked again past an ACK when their answers were lost (an implicit NAK). */
	bool rd_atomic = p->op->family == RT_FAMILY_READ_REQUEST || p->op->family == RT_FAMILY_ATOMIC;
	/* Sent before the newest answer reached the requester: neither that answer nor its timing applies. */
	bool before_answer = st->have_acked && !judged_go_back && !rd_atomic && acked_in_flight(env, st, pc);
	if (before_answer)
		flow_note(f, NOTE_RESEND_AFTER_ACK, pc->frame, p->bth.psn, 0);
	if (st->answers_cut) {
		/* Answers of unknown kind came: what this run obeys is unknown. */
		NOT_EVALUATED(env, REQ_NO_RETRANSMIT_ACKED);
	} else if (st->have_acked && !judged_go_back && !rd_atomic && !before_answer) {
		if (!psn_before(st->acked, p->bth.psn))
			FAIL(env, REQ_NO_RETRANSMIT_ACKED, pc->frame, "%s PSN %u sent again, but PSNs up to %u were acknowledged",
			     label(p), p->bth.psn, st->acked);
		else
			PASS(env, REQ_NO_RETRANSMIT_ACKED);
	}
	if (st->answers_cut || before_answer) {
		/* An answer the capture cut may have been the NAK or RNR NAK that started this run. */
		NOT_EVALUATED(env, REQ_TIMEOUT);
	} else if (!by_nak && !by_rnr) {
		timeout_wait(env, st, pc);
	}
	/* An RNR NAK's resends count towards rnr_retry instead. */
	if (by_nak || !by_rnr)
		retry_limit(env, st, pc);
}

/* ---- REQ-GO-BACK-N without a resend in the capture ------------------------------------- */

/*
 * The skipped PSN is sent only now, after the run went past it: the skip
 * is real, unless the capture lost its resend (flow_req_finish decides,
 * with every sign the capture gives by then).
 */
void flow_req_go_back_skipped(struct stream *st, uint32_t psn)
{
	if (st->gbn_suspect && psn == st->gbn_p)
		st->gbn_skipped = true;
}

/* The responder acknowledged the skipped PSN before it was sent again: its resend happened uncaptured. True then. */
bool flow_req_go_back_proven(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto)
{
	if (!st->gbn_suspect || st->gbn_skipped || psn_before(upto, st->gbn_p))
		return false;
	PASS(env, REQ_GO_BACK_N);
	flow_note(f, NOTE_MISSING_RETRANSMISSION, st->gbn_frame, st->gbn_p, 0);
	st->gbn_suspect = false;
	return true;
}

/* ---- every request -------------------------------------------------------------------- */

/* REQ-ACKREQ, and the ACK timer: it starts with a request sent when nothing was outstanding. */
void flow_req_sent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool retransmit, bool uc)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	uint32_t psn = p->bth.psn;
	if (!uc && (op->position == RT_POS_LAST || op->position == RT_POS_ONLY) &&
	    (op->family == RT_FAMILY_SEND || op->family == RT_FAMILY_WRITE)) {
		if (p->bth.ack_req)
			PASS(env, REQ_ACKREQ);
		else
			FAIL(env, REQ_ACKREQ, pc->frame, "%s PSN %u without AckReq", label(p), psn);
	}
	if (!retransmit && (!st->have_acked ? psn == st->first_psn : ((st->acked + 1) & PSN_MASK) == psn))
		st->progress_ts = pc->ts_ns;
	st->last_req_ts = pc->ts_ns;
}

/* ---- what the responder's NAKs ask of the requester ------------------------------------ */

void flow_req_nak_seq_received(struct stream *st, const struct pkt_ctx *pc, uint32_t misses_before,
			       uint32_t misses_after)
{
	st->nak_misses_before = misses_before;
	st->nak_misses_after = misses_after;
	st->nak_prev = st->nak == NAK_SEQ;
	st->nak_prev_psn = st->nak_psn;
	st->nak = NAK_SEQ;
	st->nak_psn = pc->p->bth.psn;
	st->nak_frame = pc->frame;
	st->nak_ts_ns = pc->ts_ns;
}

void flow_req_rnr_received(struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	/* Consecutive RNR NAKs for one PSN count towards rnr_retry; progress (flow_ack_progress) resets. */
	st->rnr_count = st->rnr_count && st->rnr_psn == psn ? st->rnr_count + 1 : 1;
	st->rnr = true;
	st->rnr_psn = psn;
	st->rnr_frame = pc->frame;
	st->rnr_ts = pc->ts_ns;
	st->rnr_timer = rt_aeth_value(pc->p->ext.aeth.syndrome);
}

void flow_req_fatal_received(const struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	st->fatal_received = true;
	st->fatal_frame = pc->frame;
	/*
	 * Requests sent within the NAKed request's round trip after the NAK
	 * crossed it on the wire; those within the in-flight time were on their
	 * way between the requester and the capture point (its transmit queue)
	 * when the NAK reached it.
	 */
	struct psn_slot *w = flow_window_slot(&st->sent, psn, false);
	int64_t rtt = w && w->used && w->psn == psn ? pc->ts_ns - w->ts_ns : 0;
	st->fatal_grace_ns = pc->ts_ns + (rtt > env->in_flight_ns ? rtt : env->in_flight_ns);
}

/* ---- the end of the capture -------------------------------------------------------- */

void flow_req_finish(struct checker_env *env, struct flow *f, struct stream *st)
{
	if (st->gbn_suspect && capture_drops(f, st)) {
		NOT_EVALUATED(env, REQ_GO_BACK_N);
		flow_note(f, NOTE_MISSING_RETRANSMISSION, st->gbn_frame, st->gbn_p, 0);
	} else if (st->gbn_suspect) {
		FAIL(env, REQ_GO_BACK_N, st->gbn_frame,
		     "after the NAK sequence error for PSN %u the requester resent from PSN %u, skipping PSN %u%s", st->gbn_p,
		     st->gbn_psn, st->gbn_p, st->gbn_skipped ? " (sent only later)" : "");
	}
	if (st->fatal_received)
		PASS(env, REQ_STOP_AFTER_FATAL);
}
