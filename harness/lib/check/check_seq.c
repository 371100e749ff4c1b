/* SPDX-License-Identifier: MIT */
/*
 * SEQ rules (rules.md "SEQ: the sequence on one connection"): PSNs and what
 * a skipped one means, the opcode sequence of messages, WRITE lengths, the
 * PMTU the First/Middle packets show, the responder's MSN, READ responses
 * and Atomic ACKs, answers ahead of what was sent, the PSN window.
 *
 * A PSN gap is judged only when the responder's answer tells whether the
 * packets were lost (a NAK for them, or they are sent again) or skipped
 * (acknowledged though never sent); one still open when the capture ends is
 * judged then, against the other signs that the capture drops packets.
 */
#include <stdio.h>

#include "check_flow.h"

/* ---- the responder's message count (SEQ-MSN) -------------------------------- */

void flow_seq_message_done(struct stream *st, uint32_t last_psn)
{
	st->done_total++;
	uint32_t i = (st->done_head + st->done_count) % DONE_SLOTS;
	if (st->done_count == DONE_SLOTS) {
		st->done_head = (st->done_head + 1) % DONE_SLOTS;
		st->done_count--;
	}
	st->done[i] = (struct done){ .last_psn = last_psn, .count = st->done_total };
	st->done_count++;
}

/* Messages completed by PSN `upto`; -1 when the ring no longer reaches back that far. */
int64_t flow_seq_messages_upto(const struct stream *st, uint32_t upto)
{
	for (uint32_t k = st->done_count; k-- > 0;) {
		const struct done *d = &st->done[(st->done_head + k) % DONE_SLOTS];
		if (!psn_before(upto, d->last_psn))
			return d->count;
	}
	/* Older than every entry: known only while the ring has never dropped one. */
	if (st->done_total > DONE_SLOTS)
		return -1;
	return st->done_count ? (int64_t)st->done[st->done_head].count - 1 : st->done_total;
}

static bool gaps_proven_sent(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto, uint32_t msn,
			     uint64_t frame);

/*
 * An AETH from the responder: its MSN counts the messages completed up to
 * PSN upto. skip_rule: the caller judges this MSN itself (a duplicate's re-ACK).
 */
void flow_seq_msn(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto, uint32_t msn,
		  uint64_t frame, bool skip_rule)
{
	int64_t count = flow_seq_messages_upto(st, upto);
	if (st->have_msn && rt_psn_diff(msn, st->last_msn) < 0) {
		if (!skip_rule)
			FAIL(env, SEQ_MSN, frame, "MSN goes backwards from %u to %u", st->last_msn, msn);
	} else if (count < 0 || !st->msn_sync) {
		if (!skip_rule)
			NOT_EVALUATED(env, SEQ_MSN);
	} else {
		uint32_t want = (uint32_t)(count + st->msn_offset) & PSN_MASK;
		if (skip_rule)
			;
		else if (gaps_proven_sent(env, f, st, upto, msn, frame))
			NOT_EVALUATED(env, SEQ_MSN);
		else if (msn == want)
			PASS(env, SEQ_MSN);
		else if (st->lossy)
			NOT_EVALUATED(env, SEQ_MSN);
		else
			FAIL(env, SEQ_MSN, frame, "MSN %u, expected %u (one more per message completed, up to PSN %u)",
			     msn, want, upto);
	}
	/* Whatever was judged, follow the responder from here, so one fault is one violation. */
	if (count >= 0) {
		st->msn_offset = (msn - (uint32_t)count) & PSN_MASK;
		st->msn_sync = true;
	}
	st->have_msn = true;
	st->last_msn = msn;
	st->last_msn_upto = upto;
}

/* ---- SEQ-PSN gaps ------------------------------------------------------------ */

static void gap_add(struct checker_env *env, struct flow *f, struct stream *st, uint32_t from, uint32_t to,
		    uint32_t prev, uint64_t frame)
{
	if (st->gap_count == GAP_SLOTS) {
		/* This many open gaps: the capture drops packets; the gap is noted, not judged. */
		NOT_EVALUATED(env, SEQ_PSN);
		flow_capture_misses(st);
		flow_note(f, NOTE_RESPONDER_AHEAD, frame, from, 0);
		return;
	}
	st->gaps[st->gap_count++] = (struct gap){ .from = from, .to = to, .frame = frame, .prev = prev };
}

static void gap_remove(struct stream *st, uint32_t i)
{
	st->gaps[i] = st->gaps[--st->gap_count];
}

/* A PSN of a gap was sent after all, or the responder NAKed for it: it was lost before the capture point. */
void flow_seq_gaps_lost(struct checker_env *env, struct flow *f, struct stream *st, uint32_t psn)
{
	for (uint32_t i = 0; i < st->gap_count;) {
		struct gap *g = &st->gaps[i];
		if (psn_in(psn, g->from, g->to)) {
			PASS(env, SEQ_PSN);
			flow_capture_misses(st);
			flow_note(f, NOTE_LOST_BEFORE_CAPTURE, g->frame, g->from, rt_psn_diff(g->to, g->from));
			gap_remove(st, i);
		} else {
			i++;
		}
	}
}

/*
 * The responder acknowledged PSNs of a gap. Either the requester skipped
 * them or the capture dropped them; which, the end of the capture decides
 * (a capture that lacks other packets of the stream too dropped these).
 */
bool flow_seq_gaps_acked(struct stream *st, uint32_t upto)
{
	bool any = false;
	for (uint32_t i = 0; i < st->gap_count; i++) {
		struct gap *g = &st->gaps[i];
		if (!g->acked && !psn_before(upto, g->from)) {
			g->acked = true;
			g->acked_upto = upto;
			any = true;
		}
	}
	return any;
}

/* Messages the capture shows sent with PSNs from..upto (a Last, an Only, a READ, an atomic); -1 past the window. */
static int64_t messages_sent(const struct stream *st, uint32_t from, uint32_t upto)
{
	if (!st->sent || rt_psn_diff(upto, from) >= (int32_t)PSN_WINDOW)
		return -1;
	int64_t n = 0;
	for (uint32_t k = from; !psn_before(upto, k); k = (k + 1) & PSN_MASK) {
		const struct psn_slot *s = &st->sent[k % PSN_WINDOW];
		const struct rt_opcode_info *op = s->used && s->psn == k ? rt_opcode_info(s->opcode) : NULL;
		n += op && (op->position == RT_POS_LAST || op->position == RT_POS_ONLY || op->position == RT_POS_NONE);
	}
	return n;
}

/*
 * An ACK acknowledged a gap, and its MSN counts more messages since the
 * previous MSN than the capture shows sent: the gap's packets reached the
 * responder, so they were sent and the capture lacks them. True when a
 * gap was proven so (the MSN then says nothing more).
 */
static bool gaps_proven_sent(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto, uint32_t msn,
			     uint64_t frame)
{
	if (!st->gap_count || !st->have_msn)
		return false;
	int64_t shown = messages_sent(st, (st->last_msn_upto + 1) & PSN_MASK, upto);
	if (shown < 0 || ((msn - st->last_msn) & PSN_MASK) <= shown)
		return false;
	bool any = false;
	for (uint32_t i = 0; i < st->gap_count;) {
		struct gap *g = &st->gaps[i];
		if (!psn_before(upto, g->from) && psn_before(st->last_msn_upto, g->from)) {
			PASS(env, SEQ_PSN);
			flow_note(f, NOTE_RESPONDER_AHEAD, frame, g->from, 0);
			gap_remove(st, i);
			any = true;
		} else {
			i++;
		}
	}
	return any;
}

static void gap_judge(struct checker_env *env, struct flow *f, const struct gap *g)
{
	uint32_t last = (g->to - 1) & PSN_MASK;
	char range[32];
	if (g->from == last)
		snprintf(range, sizeof range, "PSN %u", g->from);
	else
		snprintf(range, sizeof range, "PSNs %u..%u", g->from, last);
	/* A gap alone is a skip; among other signs of a capture that drops packets it is one more drop. */
	if (flow_misses(f) >= 2) {
		PASS(env, SEQ_PSN);
		flow_note(f, NOTE_RESPONDER_AHEAD, g->frame, g->from, 0);
	} else if (g->acked) {
		FAIL(env, SEQ_PSN, g->frame, "PSN jumps from %u to %u: %s never sent, yet acknowledged (up to PSN %u)",
		     g->prev, g->to, range, g->acked_upto);
	} else {
		FAIL(env, SEQ_PSN, g->frame, "PSN jumps from %u to %u: %s never sent", g->prev, g->to, range);
	}
}

/* ---- the request's PSN (SEQ-PSN, SEQ-ACK-AHEAD, SEQ-WINDOW) ------------------------------ */

/* An answer for a PSN not seen sent waited for this request: was that PSN ever sent? */
void flow_seq_ahead_decided(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	if (!st->ahead_due || !st->started)
		return;
	uint32_t psn = pc->p->bth.psn;
	bool fresh = !psn_before(psn, st->frontier);
	if (fresh && pc->ts_ns - st->ahead_ts_ns <= env->in_flight_ns) {
		/* A capture point that merges two queues can show an answer just before its request. */
		if (psn_before(psn, st->ahead_psn))
			return;	/* the requests up to the answered one may follow */
		flow_note(f, NOTE_INTERLEAVED, st->ahead_frame, st->ahead_psn, 0);
	} else if (fresh && !psn_before(st->ahead_psn, psn)) {
		FAIL(env, SEQ_ACK_AHEAD, st->ahead_frame, "answer for PSN %u before the requester sent it (frame %llu)",
		     st->ahead_psn, (ull)pc->frame);
	} else {
		flow_note(f, NOTE_RESPONDER_AHEAD, st->ahead_frame, st->ahead_psn, 0);
	}
	st->ahead_due = false;
}

/* The stream's first request in the capture; true when it is no message's start. */
static bool stream_starts(struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_opcode_info *op = pc->p->op;
	uint32_t psn = pc->p->bth.psn;
	st->started = true;
	st->first_psn = psn;
	st->frontier = psn;
	if (op->position != RT_POS_MIDDLE && op->position != RT_POS_LAST)
		return false;
	flow_note(f, NOTE_STARTS_MID_MESSAGE, pc->frame, psn, op->family);
	return true;
}

/* The PSN jumps past the expected one: those sent before are a retransmission the capture lacks; new ones wait. */
static void psn_skipped(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	uint32_t exp_hi = (st->prev_psn + st->prev_hi) & PSN_MASK;
	/* Old PSNs skipped; those already acknowledged need no resend (a READ asked again alone). */
	uint32_t old_end = psn_before(psn, st->frontier) ? psn : st->frontier;
	bool all_acked = st->have_acked && !psn_before(st->acked, (old_end - 1) & PSN_MASK);
	if (psn_before(exp_hi, st->frontier) && !all_acked) {
		flow_capture_misses(st);
		flow_note(f, NOTE_MISSING_RETRANSMISSION, pc->frame, exp_hi, 0);
	}
	if (psn_before(st->frontier, psn)) {
		uint32_t from = psn_before(st->frontier, exp_hi) ? exp_hi : st->frontier;
		gap_add(env, f, st, from, psn, st->prev_psn, pc->frame);
	} else {
		PASS(env, SEQ_PSN);
	}
}

/*
 * A request that goes back into the PSNs the READ just before it took
 * (known exactly once the PMTU is), with a PSN never sent: not a
 * retransmission but a PSN used twice. A READ asked again from inside
 * itself is a retransmission (REQ-RETRANSMIT-SAME judges it).
 */
static bool inside_previous_read(struct stream *st, const struct rt_packet *p)
{
	uint32_t psn = p->bth.psn;
	if (st->prev_lo < 2 || st->prev_lo != st->prev_hi || p->op->family == RT_FAMILY_READ_REQUEST ||
	    !psn_in(psn, (st->prev_psn + 1) & PSN_MASK, (st->prev_psn + st->prev_lo) & PSN_MASK))
		return false;
	struct psn_slot *s = flow_window_slot(&st->sent, psn, false);
	return !s || !s->used || s->psn != psn;
}

/*
 * A READ's responses showed how many PSNs it took, which was not known when
 * the requests after it went out: one sent inside that range used a PSN twice.
 */
void flow_seq_read_span_known(struct checker_env *env, struct stream *st, const struct read_slot *r, uint32_t count)
{
	/* The READ's PSNs were all taken, whatever the requests after it claimed. */
	uint32_t end = (r->psn + count) & PSN_MASK;
	if (psn_before(st->frontier, end))
		st->frontier = end;
	if (r->n_lo == r->n_hi || !st->sent)
		return;
	for (uint32_t k = 1; k < count && k < PSN_WINDOW; k++) {
		uint32_t psn = (r->psn + k) & PSN_MASK;
		const struct psn_slot *s = flow_window_slot(&st->sent, psn, false);
		if (s->used && s->psn == psn && s->frame > r->frame &&
		    rt_opcode_info(s->opcode)->family != RT_FAMILY_READ_REQUEST) {
			FAIL(env, SEQ_PSN, s->frame, "%s PSN %u falls inside PSNs %u..%u, which the READ at frame %llu took",
			     rt_opcode_info(s->opcode)->label, psn, r->psn, (r->psn + count - 1) & PSN_MASK, (ull)r->frame);
			return;
		}
	}
}

struct psn_step flow_seq_psn(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
			     bool uc)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	struct psn_step step = { 0 };
	if (!st->started) {
		step.resync = stream_starts(f, st, pc);
		return step;
	}
	uint32_t exp_lo = (st->prev_psn + st->prev_lo) & PSN_MASK;
	uint32_t range = st->prev_hi - st->prev_lo;
	int32_t d = rt_psn_diff(psn, exp_lo);
	if (d >= 0 && (uint32_t)d <= range) {
		if (range && st->frontier_unsure) {
			st->frontier = psn;	/* the new READ's true length is now known */
			flow_read_span_known(st, st->prev_psn, (psn - st->prev_psn) & PSN_MASK);
		}
		step.retransmit = psn_before(psn, st->frontier);
		if (!step.retransmit || st->gap_count == 0)
			PASS(env, SEQ_PSN);
	} else if (d > 0) {
		psn_skipped(env, f, st, pc);
		step.retransmit = psn_before(psn, st->frontier);
		step.resync = true;
	} else if (uc) {
		FAIL(env, SEQ_PSN, pc->frame, "UC %s PSN %u after PSN %u: UC never goes back", label(p), psn, st->prev_psn);
		step.resync = true;
	} else if (inside_previous_read(st, p)) {
		FAIL(env, SEQ_PSN, pc->frame, "%s PSN %u falls inside PSNs %u..%u, which the READ before it took", label(p),
		     psn, st->prev_psn, (exp_lo - 1) & PSN_MASK);
		step.resync = true;
	} else {
		step.retransmit = true;
		step.resync = true;
		step.goes_back = true;
		PASS(env, SEQ_PSN);
	}
	return step;
}

/* The request is now the stream's latest: the next one is held against it. */
void flow_seq_sent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool retransmit, bool uc,
		   uint32_t n_lo, uint32_t n_hi)
{
	uint32_t psn = pc->p->bth.psn;
	st->prev_psn = psn;
	st->prev_lo = n_lo;
	st->prev_hi = n_hi;
	/*
	 * A new request moves the frontier, even by exactly 2^23 (which
	 * psn_before calls "behind"); a new READ of unknown span moves it as far
	 * as it may reach, until the next request tells. A resend moves it only
	 * by what it surely takes.
	 */
	uint32_t end = (psn + (retransmit ? n_lo : n_hi)) & PSN_MASK;
	if (!psn_before(end, st->frontier) || (!retransmit && ((end - st->frontier) & PSN_MASK) <= n_hi)) {
		st->frontier = end;
		st->frontier_unsure = !retransmit && n_lo != n_hi;
	}
	if (uc || retransmit)
		return;
	if (!st->have_acked)
		NOT_EVALUATED(env, SEQ_WINDOW);
	else if (((st->frontier - st->acked - 1) & PSN_MASK) >= 0x800000u)
		FAIL(env, SEQ_WINDOW, pc->frame, "%u PSNs outstanding (acknowledged up to %u, sent up to %u)",
		     (st->frontier - st->acked - 1) & PSN_MASK, st->acked, (st->frontier - 1) & PSN_MASK);
	else
		PASS(env, SEQ_WINDOW);
}

/* ---- messages (SEQ-OPCODE, SEQ-NO-FIRST, SEQ-WRITE-LENGTH, SEQ-PMTU-CONSISTENT) ---------- */

/* Follows a message whose First the capture does not show, so its Middle and Last do not each fail again. */
static void message_of_unknown_start(struct stream *st, const struct pkt_ctx *pc)
{
	st->msg_open = true;
	st->msg_unknown_start = true;
	st->msg_family = pc->p->op->family;
	st->msg_transport = pc->p->op->transport;
	st->msg_frame = pc->frame;
}

/* SEQ-OPCODE, SEQ-NO-FIRST: does the packet continue the open message, or begin one? True when it broke one. */
static bool message_follows(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool resync)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	bool middle_or_last = op->position == RT_POS_MIDDLE || op->position == RT_POS_LAST;

	if (resync) {
		/* After a jump the capture cannot say where the message stands: take it from this packet. */
		st->msg_open = false;
		if (middle_or_last)
			message_of_unknown_start(st, pc);
	} else if (st->msg_open) {
		if (middle_or_last && op->family == st->msg_family && op->transport == st->msg_transport) {
			PASS(env, SEQ_OPCODE);
			PASS(env, SEQ_NO_FIRST);
		} else {
			FAIL(env, SEQ_OPCODE, pc->frame, "%s while the %s message begun at frame %llu is still open",
			     label(p), rt_family_name(st->msg_family), (ull)st->msg_frame);
			st->msg_open = false;
			return true;
		}
	} else if (middle_or_last) {
		FAIL(env, SEQ_NO_FIRST, pc->frame, "%s PSN %u without a First", label(p), p->bth.psn);
		message_of_unknown_start(st, pc);
		return true;
	} else {
		PASS(env, SEQ_OPCODE);
	}
	return false;
}

static void message_begins(struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	st->msg_open = true;
	st->msg_unknown_start = false;
	st->msg_family = p->op->family;
	st->msg_transport = p->op->transport;
	st->msg_frame = pc->frame;
	st->msg_bytes = p->payload_len;
	st->msg_has_reth = p->ext_present & RT_EXT_RETH;
	st->msg_reth_len = p->ext.reth.dma_len;
}

/* SEQ-WRITE-LENGTH at a Last: the message's bytes against its First's RETH. True when broken. */
static bool write_length_last(struct checker_env *env, const struct stream *st, const struct pkt_ctx *pc)
{
	if (pc->p->op->family != RT_FAMILY_WRITE)
		return false;
	if (!st->msg_open || st->msg_unknown_start || !st->msg_has_reth) {
		NOT_EVALUATED(env, SEQ_WRITE_LENGTH);
		return false;
	}
	if (st->msg_bytes == st->msg_reth_len) {
		PASS(env, SEQ_WRITE_LENGTH);
		return false;
	}
	FAIL(env, SEQ_WRITE_LENGTH, pc->frame, "WRITE begun at frame %llu carries %u bytes; its RETH DMA length is %u",
	     (ull)st->msg_frame, st->msg_bytes, st->msg_reth_len);
	return true;
}

/* SEQ-WRITE-LENGTH of a WRITE Only: its payload against its own RETH. True when broken. */
static bool write_length_only(struct checker_env *env, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	if (p->op->family != RT_FAMILY_WRITE || !(p->ext_present & RT_EXT_RETH))
		return false;
	if (p->payload_len == p->ext.reth.dma_len) {
		PASS(env, SEQ_WRITE_LENGTH);
		return false;
	}
	FAIL(env, SEQ_WRITE_LENGTH, pc->frame, "WRITE Only carries %u bytes; its RETH DMA length is %u", p->payload_len,
	     p->ext.reth.dma_len);
	return true;
}

/* SEQ-OPCODE, SEQ-NO-FIRST, SEQ-WRITE-LENGTH; returns true when the packet broke one of them. */
bool flow_seq_message(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, bool resync)
{
	const struct rt_packet *p = pc->p;
	bool broke = message_follows(env, st, pc, resync);
	switch (p->op->position) {
	case RT_POS_FIRST:
		message_begins(st, pc);
		break;
	case RT_POS_MIDDLE:
		st->msg_bytes += p->payload_len;
		break;
	case RT_POS_LAST:
		st->msg_bytes += p->payload_len;
		if (write_length_last(env, st, pc))
			broke = true;
		st->msg_open = false;
		break;
	case RT_POS_ONLY:
		if (write_length_only(env, pc))
			broke = true;
		st->msg_open = false;
		break;
	case RT_POS_NONE:
		st->msg_open = false;
		break;
	}
	return broke;
}

void flow_seq_pmtu_consistent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	if (p->op->position != RT_POS_FIRST && p->op->position != RT_POS_MIDDLE)
		return;
	uint32_t n = p->payload_len;
	if (!rt_is_pmtu(n)) {
		FAIL(env, SEQ_PMTU_CONSISTENT, pc->frame, "%s payload %u bytes is not a path MTU (256, 512, 1024, 2048, 4096)",
		     label(p), n);
		return;
	}
	if (!st->fm_size) {
		st->fm_size = n;
		st->fm_frame = pc->frame;
		PASS(env, SEQ_PMTU_CONSISTENT);
	} else if (n != st->fm_size) {
		FAIL(env, SEQ_PMTU_CONSISTENT, pc->frame, "%s payload %u bytes; First/Middle packets of this flow carried %u (frame %llu)",
		     label(p), n, st->fm_size, (ull)st->fm_frame);
	} else {
		PASS(env, SEQ_PMTU_CONSISTENT);
	}
}

/* ---- answers (SEQ-ACK-AHEAD; READ responses and Atomic ACKs: check_read.c) ---------- */

/* Answers to requests sent before the capture began: nothing to hold them against but their own fields. */
void flow_seq_unsolicited(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	flow_note(f, NOTE_RESPONSES_WITHOUT_REQUESTS, pc->frame, p->bth.psn, 0);
	if (p->op->family == RT_FAMILY_READ_RESPONSE)
		flow_read_aeth(env, pc);
	if (p->ext_present & RT_EXT_AETH)
		flow_seq_msn(env, f, st, p->bth.psn, p->ext.aeth.msn, pc->frame, true);
}

void flow_seq_ack_ahead(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	if (psn_before(psn, st->frontier)) {
		PASS(env, SEQ_ACK_AHEAD);
	} else if (!st->ahead_due) {
		/* Never sent, or sent but not captured: the requester's next request tells (flow_ack_progress counts the miss). */
		st->ahead_due = true;
		st->ahead_psn = psn;
		st->ahead_frame = pc->frame;
		st->ahead_ts_ns = pc->ts_ns;
	}
}

/* ---- the end of the capture -------------------------------------------------------- */

void flow_seq_finish(struct checker_env *env, struct flow *f, struct stream *st)
{
	for (uint32_t i = 0; i < st->gap_count; i++)
		gap_judge(env, f, &st->gaps[i]);
	st->gap_count = 0;
	if (st->ahead_due) {
		if (flow_misses(f) >= 2) {
			NOT_EVALUATED(env, SEQ_ACK_AHEAD);
			flow_note(f, NOTE_RESPONDER_AHEAD, st->ahead_frame, st->ahead_psn, 0);
		} else {
			FAIL(env, SEQ_ACK_AHEAD, st->ahead_frame, "answer for PSN %u, which the requester never sent",
			     st->ahead_psn);
		}
	}
	if (st->msg_open)
		flow_note(f, NOTE_ENDS_MID_MESSAGE, st->msg_frame, 0, st->msg_family);
}
