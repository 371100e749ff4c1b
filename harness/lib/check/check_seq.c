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

static const char *aeth_type_name(uint8_t syndrome)
{
	static const char *const names[] = { "ACK", "RNR NAK", "reserved", "NAK" };
	return names[rt_aeth_type(syndrome)];
}

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

/*
 * An AETH from the responder: its MSN counts the messages completed up to
 * PSN upto. skip_rule: the caller judges this MSN itself (a duplicate's re-ACK).
 */
void flow_seq_msn(struct checker_env *env, struct stream *st, uint32_t upto, uint32_t msn, uint64_t frame,
		  bool skip_rule)
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

static void gap_judge(struct checker_env *env, struct flow *f, struct stream *st, const struct gap *g)
{
	uint32_t last = (g->to - 1) & PSN_MASK;
	char range[32];
	if (g->from == last)
		snprintf(range, sizeof range, "PSN %u", g->from);
	else
		snprintf(range, sizeof range, "PSNs %u..%u", g->from, last);
	/* A gap alone is a skip; among other signs of a capture that drops packets it is one more drop. */
	if (st->misses >= 2) {
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
	if (!psn_before(psn, st->frontier) && !psn_before(st->ahead_psn, psn))
		FAIL(env, SEQ_ACK_AHEAD, st->ahead_frame, "answer for PSN %u before the requester sent it (frame %llu)",
		     st->ahead_psn, (ull)pc->frame);
	else
		flow_note(f, NOTE_RESPONDER_AHEAD, st->ahead_frame, st->ahead_psn, 0);
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
	if (psn_before(exp_hi, st->frontier)) {
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
		if (range)
			st->frontier = psn;	/* the READ's true length is now known */
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
	/* A new request moves the frontier, even by exactly 2^23 (which psn_before calls "behind"). */
	uint32_t end = (psn + n_hi) & PSN_MASK;
	if (!psn_before(end, st->frontier) || (!retransmit && ((end - st->frontier) & PSN_MASK) <= n_hi))
		st->frontier = end;
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

/* ---- answers (SEQ-ACK-AHEAD, SEQ-READ-AETH, SEQ-READ-RESPONSE, SEQ-ATOMIC-ACK) ---------- */

static void check_read_aeth(struct checker_env *env, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	if (!(p->ext_present & RT_EXT_AETH))
		return;
	if (rt_aeth_type(p->ext.aeth.syndrome) == RT_AETH_ACK)
		PASS(env, SEQ_READ_AETH);
	else
		FAIL(env, SEQ_READ_AETH, pc->frame, "%s PSN %u carries an AETH of type %s, not ACK", label(p), p->bth.psn,
		     aeth_type_name(p->ext.aeth.syndrome));
}

/* Answers to requests sent before the capture began: nothing to hold them against but their own fields. */
void flow_seq_unsolicited(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	flow_note(f, NOTE_RESPONSES_WITHOUT_REQUESTS, pc->frame, p->bth.psn, 0);
	if (p->op->family == RT_FAMILY_READ_RESPONSE)
		check_read_aeth(env, pc);
	if (p->ext_present & RT_EXT_AETH)
		flow_seq_msn(env, st, p->bth.psn, p->ext.aeth.msn, pc->frame, true);
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
	}
}

/* The outstanding READ whose PSN range holds psn (the newest such), or NULL. */
static struct read_slot *read_of(struct stream *st, uint32_t psn)
{
	struct read_slot *r = NULL;
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		struct read_slot *c = &st->reads[i];
		if (c->used && !c->atomic && psn_in(psn, c->psn, (c->psn + c->n_hi) & PSN_MASK))
			r = c;
	}
	return r;
}

/* Where the response stands in its READ: a PSN past the next expected one means responses the capture lacks. */
static void read_response_place(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
				struct read_slot *r)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	bool starts = p->op->position == RT_POS_FIRST || p->op->position == RT_POS_ONLY;
	uint32_t start = r->replay ? r->replay_psn : r->psn;
	if (psn != r->next) {
		if (psn_before(r->next, psn) && !(starts && psn == start)) {
			/* Responses missing from the capture: this READ cannot be judged. */
			r->gap = true;
			flow_capture_misses(st);
			/* A requester that sees the gap asks again from it at once (an implicit NAK). */
			st->read_gap_due = true;
			st->read_gap_psn = r->next;
			flow_note(f, NOTE_LOST_BEFORE_CAPTURE, pc->frame, r->next, 0);
		} else if (starts && psn == start) {
			r->bytes = 0;
		}
		r->next = psn;
	}
	if (!r->broken && !r->gap && starts != (psn == start)) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s at PSN %u; the READ at frame %llu (PSN %u) %s", label(p), psn,
		     (ull)r->frame, r->psn, psn == start ? "must begin with First or Only" : "already began");
		r->broken = true;
	}
	if (starts)
		r->bytes = 0;
	r->bytes += p->payload_len;
	r->next = (psn + 1) & PSN_MASK;
	if (!r->broken && !r->gap && !r->replay && r->bytes > r->len) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u brings the READ at frame %llu to %u bytes of %u", label(p),
		     psn, (ull)r->frame, r->bytes, r->len);
		r->broken = true;
	}
}

/* The READ's last response: judge the whole READ, then it is answered and its PSN range exact. */
static void read_response_last(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc,
			       struct read_slot *r)
{
	uint32_t psn = pc->p->bth.psn;
	uint32_t count = (psn - r->psn + 1) & PSN_MASK;
	if (r->broken || r->gap || r->replay) {
		NOT_EVALUATED(env, SEQ_READ_RESPONSE);
	} else if (r->bytes != r->len) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "READ of %u bytes at PSN %u (frame %llu) answered with %u bytes",
		     r->len, r->psn, (ull)r->frame, r->bytes);
	} else if (count < r->n_lo || count > r->n_hi) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame,
		     "READ of %u bytes at PSN %u (frame %llu) answered in %u responses; the PMTU asks for %u", r->len,
		     r->psn, (ull)r->frame, count, r->n_lo);
	} else {
		PASS(env, SEQ_READ_RESPONSE);
	}
	r->complete = true;
	r->replay = false;
	/* Its last response fixes how many PSNs it took: the responder's next expected PSN follows. */
	if (st->epsn_slack && psn_before(st->epsn, (psn + 1) & PSN_MASK) &&
	    !psn_before((st->epsn + st->epsn_slack) & PSN_MASK, psn)) {
		st->epsn = (psn + 1) & PSN_MASK;
		st->epsn_slack = 0;
	}
	r->broken = false;
	r->gap = false;
	r->n_lo = r->n_hi = count;
}

void flow_seq_read_response(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	/* The responder's First/Middle sizes are its own PMTU, kept in its own stream. */
	flow_seq_pmtu_consistent(env, &f->stream[pc->side], pc);
	check_read_aeth(env, pc);
	const struct rt_packet *p = pc->p;
	struct read_slot *r = read_of(st, p->bth.psn);
	if (!r) {
		if (st->lossy)
			NOT_EVALUATED(env, SEQ_READ_RESPONSE);
		else
			FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u answers no READ request", label(p), p->bth.psn);
		return;
	}
	read_response_place(env, f, st, pc, r);
	flow_rsp_duplicate_read(env, st, pc, r->replay);
	if (p->op->position == RT_POS_LAST || p->op->position == RT_POS_ONLY)
		read_response_last(env, st, pc, r);
}

void flow_seq_atomic_ack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		if (st->reads[i].used && st->reads[i].atomic && st->reads[i].psn == psn) {
			st->reads[i].complete = true;
			PASS(env, SEQ_ATOMIC_ACK);
			return;
		}
	}
	if (st->lossy)
		NOT_EVALUATED(env, SEQ_ATOMIC_ACK);
	else
		FAIL(env, SEQ_ATOMIC_ACK, pc->frame, "Atomic Acknowledge PSN %u matches no Compare&Swap or Fetch&Add", psn);
}

/* ---- the end of the capture -------------------------------------------------------- */

void flow_seq_finish(struct checker_env *env, struct flow *f, struct stream *st)
{
	for (uint32_t i = 0; i < st->gap_count; i++)
		gap_judge(env, f, st, &st->gaps[i]);
	st->gap_count = 0;
	if (st->ahead_due) {
		if (st->misses >= 2) {
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
