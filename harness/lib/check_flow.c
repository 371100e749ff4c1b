/* SPDX-License-Identifier: MIT */
/*
 * SEQ, RSP and REQ rules (rules.md): one stream at a time. Stream s is what
 * side s sends as a requester and what side 1-s answers.
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
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "rocetest/check.h"
#include "rocetest/describe.h"

#define PSN_MASK 0xFFFFFFu
/* RSP-ACK: an ACK still missing this long before the capture ends is owed, not cut off. */
#define ACK_GRACE_NS 100000000LL

#define FAIL(env, rule, frame, ...) \
	rt_verdict_fail((env)->v, RT_RULE_##rule, rt_rule_info(RT_RULE_##rule)->severity, frame, __VA_ARGS__)
#define PASS(env, rule) rt_verdict_pass((env)->v, RT_RULE_##rule)
#define NOT_EVALUATED(env, rule) rt_verdict_not_evaluated((env)->v, RT_RULE_##rule)

typedef unsigned long long ull;

static bool psn_before(uint32_t a, uint32_t b)
{
	return rt_psn_diff(a, b) < 0;
}

static bool psn_in(uint32_t psn, uint32_t from, uint32_t to)	/* from <= psn < to */
{
	return rt_psn_diff(psn, from) >= 0 && rt_psn_diff(psn, to) < 0;
}

static const char *label(const struct rt_packet *p)
{
	return p->op->label;
}

static const char *aeth_type_name(uint8_t syndrome)
{
	static const char *const names[] = { "ACK", "RNR NAK", "reserved", "NAK" };
	return names[rt_aeth_type(syndrome)];
}

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

static uint32_t responses_for(uint32_t len, uint32_t pmtu)
{
	return len == 0 ? 1 : (uint32_t)(((uint64_t)len + pmtu - 1) / pmtu);
}

/* ---- windows of recent PSNs ------------------------------------------- */

static struct psn_slot *window_slot(struct psn_slot **w, uint32_t psn, bool create)
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

static uint32_t payload_crc(const struct rt_packet *p)
{
	if (p->truncated || !p->payload_len)
		return 0;
	return (uint32_t)libdeflate_crc32(0, p->frame + p->payload_off, p->payload_len);
}

/* ---- the responder's message count (SEQ-MSN) -------------------------------- */

static void done_push(struct stream *st, uint32_t last_psn)
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
static int64_t done_upto(const struct stream *st, uint32_t upto)
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
static void check_msn(struct checker_env *env, struct stream *st, uint32_t upto, uint32_t msn, uint64_t frame,
		      bool skip_rule)
{
	int64_t count = done_upto(st, upto);
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

static void ackreq_cover(struct checker_env *env, struct stream *st, uint32_t upto)
{
	while (st->ackreq_count && !psn_before(upto, st->ackreqs[st->ackreq_head].psn)) {
		PASS(env, RSP_ACK);
		st->ackreq_head = (st->ackreq_head + 1) % ACKREQ_SLOTS;
		st->ackreq_count--;
	}
}

/* The capture lacks packets of this stream: rules that loss can imitate resynchronise from now on. */
static void capture_misses(struct stream *st)
{
	if (!st->miss_now)
		st->misses++;	/* one packet is one sign, however many checks it settles */
	st->miss_now = true;
	st->lossy = true;
}

/* ---- SEQ-PSN gaps ------------------------------------------------------------ */

static void gap_add(struct checker_env *env, struct flow *f, struct stream *st, uint32_t from, uint32_t to,
		    uint32_t prev, uint64_t frame)
{
	if (st->gap_count == GAP_SLOTS) {
		/* This many open gaps: the capture drops packets; the gap is noted, not judged. */
		NOT_EVALUATED(env, SEQ_PSN);
		capture_misses(st);
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
static void gaps_lost(struct checker_env *env, struct flow *f, struct stream *st, uint32_t psn)
{
	for (uint32_t i = 0; i < st->gap_count;) {
		struct gap *g = &st->gaps[i];
		if (psn_in(psn, g->from, g->to)) {
			PASS(env, SEQ_PSN);
			capture_misses(st);
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
static bool gaps_acked(struct stream *st, uint32_t upto)
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

/* ---- acknowledgements ---------------------------------------------------------- */

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
		struct psn_slot *s = window_slot(&st->sent, k, false);
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

/* The responder has everything up to and including upto (an ACK, or implied by a NAK). */
static void ack_progress(struct checker_env *env, struct flow *f, struct stream *st, uint32_t upto,
			 const struct pkt_ctx *pc)
{
	if (!st->have_acked || psn_before(st->acked, upto)) {
		/* An answer ahead of everything sent acknowledges at most what was sent (SEQ-ACK-AHEAD judges it). */
		st->acked = !st->started || psn_before(upto, st->frontier) ? upto : (st->frontier - 1) & PSN_MASK;
		st->have_acked = true;
		st->progress_ts = pc->ts_ns;
		st->retry_count = 0;
	}
	ackreq_cover(env, st, upto);
	/* One answer is one sign that the capture lacks packets, however many checks it settles. */
	bool missed = gaps_acked(st, upto);
	if (st->gbn_suspect && !psn_before(upto, st->gbn_p)) {
		/* p reached the responder: its retransmission happened, the capture lacks it. */
		PASS(env, REQ_GO_BACK_N);
		missed = true;
		flow_note(f, NOTE_MISSING_RETRANSMISSION, st->gbn_frame, st->gbn_p, 0);
		st->gbn_suspect = false;
	}
	if (st->icrc_due && !psn_before(upto, st->icrc_psn)) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "%s acknowledges PSN %u, whose request (frame %llu) had a bad ICRC",
		     label(pc->p), st->icrc_psn, (ull)st->icrc_frame);
		st->icrc_due = false;
	}
	if (st->invalid_due && !psn_before(upto, st->invalid_psn)) {
		FAIL(env, RSP_NAK_INVALID, pc->frame,
		     "%s acknowledges PSN %u, whose request (frame %llu) broke the opcode sequence or length rules; "
		     "a NAK invalid request was due",
		     label(pc->p), st->invalid_psn, (ull)st->invalid_frame);
		st->invalid_due = false;
	}
	if (st->nak_due && !psn_before(upto, st->nak_due_psn)) {
		/* The responder had the PSN it waited for: the capture missed it. */
		st->nak_due = false;
		missed = true;
		flow_note(f, NOTE_RESPONDER_AHEAD, pc->frame, st->nak_due_psn, 0);
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
	if (missed)
		capture_misses(st);
}

/* ---- the requester's side ------------------------------------------------------- */

static void check_retransmit_same(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	struct psn_slot *s = window_slot(&st->sent, p->bth.psn, false);
	uint32_t pmtu = flow_side_pmtu(env, f, !pc->side);
	if ((!s || !s->used || s->psn != p->bth.psn) && st->sent && pmtu && p->op->family == RT_FAMILY_READ_REQUEST) {
		/* Re-requested from a PSN inside an earlier READ: compare with what remained of it. */
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
			return;
		}
	}
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
	else if (s->len != p->payload_len || s->crc != payload_crc(p))
		FAIL(env, REQ_RETRANSMIT_SAME, pc->frame, "%s PSN %u sent again with different payload (%u bytes, first %u)",
		     label(p), p->bth.psn, p->payload_len, s->len);
	else
		PASS(env, REQ_RETRANSMIT_SAME);
}

static void remember_sent(struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	struct psn_slot *s = window_slot(&st->sent, p->bth.psn, true);
	if (!s)
		return;
	bool read = p->op->family == RT_FAMILY_READ_REQUEST;
	*s = (struct psn_slot){ .psn = p->bth.psn, .opcode = p->bth.opcode, .used = !p->truncated,
				.len = read ? p->ext.reth.dma_len : p->payload_len, .crc = read ? 0 : payload_crc(p),
				.ts_ns = pc->ts_ns };
}

/* The first packet of a run that goes back: which NAK, RNR NAK or timeout explains it, and is it right. */
static void retransmission_start(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	const struct rt_check_config *cfg = env->cfg;
	bool judged_go_back = false;
	bool by_nak = false, by_rnr = false;

	if (st->nak == NAK_SEQ && st->nak_prev && psn == st->nak_prev_psn && psn != st->nak_psn) {
		/* The answer to the older of two NAKs; the newer one is still to be answered. */
		PASS(env, REQ_GO_BACK_N);
		by_nak = true;
		judged_go_back = true;
		st->nak_prev = false;
	} else if (st->nak == NAK_SEQ) {
		uint32_t want = st->nak_psn;
		by_nak = true;
		st->nak_prev = false;
		if (psn == want) {
			PASS(env, REQ_GO_BACK_N);
		} else if (psn_before(psn, want)) {
			FAIL(env, REQ_GO_BACK_N, pc->frame,
			     "%s resends from PSN %u; the NAK sequence error at frame %llu asked for PSN %u", label(p), psn,
			     (ull)st->nak_frame, want);
			judged_go_back = true;
		} else if (st->lossy) {
			/* Its resend of `want` was lost before the capture point, as others were. */
			PASS(env, REQ_GO_BACK_N);
			flow_note(f, NOTE_MISSING_RETRANSMISSION, pc->frame, want, 0);
		} else {
			st->gbn_suspect = true;
			st->gbn_p = want;
			st->gbn_psn = psn;
			st->gbn_frame = pc->frame;
		}
		st->nak = NAK_NONE;
	}
	if (st->read_gap_due && p->op->family == RT_FAMILY_READ_REQUEST && psn == st->read_gap_psn) {
		/* Re-requested from a READ response missing in the sequence: no timeout is needed. */
		by_nak = true;
		st->read_gap_due = false;
	}
	if (st->rnr) {
		by_rnr = true;
		double waited_us = (double)(pc->ts_ns - st->rnr_ts) / 1000.0;
		double need_us = rt_rnr_timer_us(st->rnr_timer);
		if (waited_us + 1e-3 >= need_us)
			PASS(env, REQ_RNR_WAIT);
		else
			FAIL(env, REQ_RNR_WAIT, pc->frame,
			     "%s PSN %u resent %.2f us after the RNR NAK at frame %llu, whose timer (code %u) asks for %.2f us",
			     label(p), psn, waited_us, (ull)st->rnr_frame, st->rnr_timer, need_us);
		if (cfg->rnr_retry < 0)
			NOT_EVALUATED(env, REQ_RNR_LIMIT);
		else if (cfg->rnr_retry != 7 && st->rnr_count > (uint32_t)cfg->rnr_retry)
			FAIL(env, REQ_RNR_LIMIT, pc->frame, "PSN %u resent after %u RNR NAKs in a row; rnr_retry is %d",
			     psn, st->rnr_count, cfg->rnr_retry);
		else
			PASS(env, REQ_RNR_LIMIT);
		st->rnr = false;
	}

	if (st->have_acked && !judged_go_back && p->op->family != RT_FAMILY_READ_REQUEST) {
		if (!psn_before(st->acked, psn))
			FAIL(env, REQ_NO_RETRANSMIT_ACKED, pc->frame, "%s PSN %u sent again, but PSNs up to %u were acknowledged",
			     label(p), psn, st->acked);
		else
			PASS(env, REQ_NO_RETRANSMIT_ACKED);
	}

	if (!by_nak && !by_rnr) {
		/* Nothing asked for it: a local ACK timeout. */
		if (!cfg->have_timeout) {
			NOT_EVALUATED(env, REQ_TIMEOUT);
		} else {
			double waited_us = (double)(pc->ts_ns - st->progress_ts) / 1000.0;
			uint32_t oldest = st->have_acked ? (st->acked + 1) & PSN_MASK : st->first_psn;
			if (psn != oldest && !st->lossy && psn_before(oldest, psn))
				FAIL(env, REQ_TIMEOUT, pc->frame,
				     "retransmission starts at PSN %u; the oldest unacknowledged PSN is %u", psn, oldest);
			else if (waited_us < cfg->timeout_us)
				FAIL(env, REQ_TIMEOUT, pc->frame,
				     "%s PSN %u resent %.1f us after the last progress, before the local ACK timeout of %.1f us",
				     label(p), psn, waited_us, cfg->timeout_us);
			else
				PASS(env, REQ_TIMEOUT);
		}
	}
	if (by_nak || !by_rnr) {
		if (st->retry_count && st->retry_psn == psn)
			st->retry_count++;
		else
			st->retry_psn = psn, st->retry_count = 1;
		if (cfg->retry_cnt < 0)
			NOT_EVALUATED(env, REQ_RETRY_LIMIT);
		else if (st->retry_count > (uint32_t)cfg->retry_cnt)
			FAIL(env, REQ_RETRY_LIMIT, pc->frame, "PSN %u retransmitted %u times without progress; retry_cnt is %d",
			     psn, st->retry_count, cfg->retry_cnt);
		else
			PASS(env, REQ_RETRY_LIMIT);
	}
}

/* SEQ-OPCODE, SEQ-NO-FIRST, SEQ-WRITE-LENGTH; returns true when the packet broke one of them. */
static bool check_message(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
			  bool resync)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	bool broke = false;
	bool middle_or_last = op->position == RT_POS_MIDDLE || op->position == RT_POS_LAST;

	if (resync) {
		/* After a jump the capture cannot say where the message stands: take it from this packet. */
		st->msg_open = false;
		if (middle_or_last) {
			st->msg_open = true;
			st->msg_unknown_start = true;
			st->msg_family = op->family;
			st->msg_transport = op->transport;
			st->msg_frame = pc->frame;
		}
	} else if (st->msg_open) {
		if (middle_or_last && op->family == st->msg_family && op->transport == st->msg_transport) {
			PASS(env, SEQ_OPCODE);
			PASS(env, SEQ_NO_FIRST);
		} else {
			FAIL(env, SEQ_OPCODE, pc->frame, "%s while the %s message begun at frame %llu is still open",
			     label(p), rt_family_name(st->msg_family), (ull)st->msg_frame);
			broke = true;
			st->msg_open = false;
		}
	} else if (middle_or_last) {
		FAIL(env, SEQ_NO_FIRST, pc->frame, "%s PSN %u without a First", label(p), p->bth.psn);
		broke = true;
		/* Follow it as a message of unknown start, so its Middle and Last do not each fail again. */
		st->msg_open = true;
		st->msg_unknown_start = true;
		st->msg_family = op->family;
		st->msg_transport = op->transport;
		st->msg_frame = pc->frame;
	} else if (!resync) {
		PASS(env, SEQ_OPCODE);
	}

	switch (op->position) {
	case RT_POS_FIRST:
		st->msg_open = true;
		st->msg_unknown_start = false;
		st->msg_family = op->family;
		st->msg_transport = op->transport;
		st->msg_frame = pc->frame;
		st->msg_bytes = p->payload_len;
		st->msg_has_reth = p->ext_present & RT_EXT_RETH;
		st->msg_reth_len = p->ext.reth.dma_len;
		break;
	case RT_POS_MIDDLE:
		st->msg_bytes += p->payload_len;
		break;
	case RT_POS_LAST:
		st->msg_bytes += p->payload_len;
		if (op->family == RT_FAMILY_WRITE && st->msg_open && !st->msg_unknown_start && st->msg_has_reth) {
			if (st->msg_bytes == st->msg_reth_len) {
				PASS(env, SEQ_WRITE_LENGTH);
			} else {
				FAIL(env, SEQ_WRITE_LENGTH, pc->frame,
				     "WRITE begun at frame %llu carries %u bytes; its RETH DMA length is %u",
				     (ull)st->msg_frame, st->msg_bytes, st->msg_reth_len);
				broke = true;
			}
		} else if (op->family == RT_FAMILY_WRITE) {
			NOT_EVALUATED(env, SEQ_WRITE_LENGTH);
		}
		st->msg_open = false;
		break;
	case RT_POS_ONLY:
		if (op->family == RT_FAMILY_WRITE && (p->ext_present & RT_EXT_RETH)) {
			if (p->payload_len == p->ext.reth.dma_len) {
				PASS(env, SEQ_WRITE_LENGTH);
			} else {
				FAIL(env, SEQ_WRITE_LENGTH, pc->frame, "WRITE Only carries %u bytes; its RETH DMA length is %u",
				     p->payload_len, p->ext.reth.dma_len);
				broke = true;
			}
		}
		st->msg_open = false;
		break;
	case RT_POS_NONE:
		st->msg_open = false;
		break;
	}
	(void)f;
	return broke;
}

static void check_pmtu_consistent(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
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

static struct read_slot *read_slot_new(struct stream *st)
{
	struct read_slot *oldest = &st->reads[0];
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		if (!st->reads[i].used)
			return &st->reads[i];
		if (st->reads[i].frame < oldest->frame)
			oldest = &st->reads[i];
	}
	return oldest;	/* the oldest READ is forgotten */
}

/* The responder's view of a request: in order, ahead (a NAK is owed) or a duplicate. */
static void responder_receives(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
			       uint32_t span, uint32_t n_lo, uint32_t n_hi, bool broke)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	uint32_t psn = p->bth.psn;

	if (pc->icrc_bad) {
		/* The responder must drop it. It is owed nothing, and must not answer it. */
		if (!st->resp_sync || psn == st->epsn) {
			st->icrc_due = true;
			st->icrc_psn = psn;
			st->icrc_frame = pc->frame;
		}
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
		if (!st->nak_sent && !st->nak_due) {
			st->nak_due = true;
			st->nak_due_psn = st->epsn;
			st->nak_due_frame = pc->frame;
		}
		return;
	}
	if (d < 0) {
		if (op->family == RT_FAMILY_SEND || op->family == RT_FAMILY_WRITE) {
			if (!st->dup_due) {
				st->dup_due = true;
				st->dup_psn = (st->epsn - 1) & PSN_MASK;
				st->dup_frame = pc->frame;
			}
		} else if (op->family == RT_FAMILY_READ_REQUEST) {
			for (uint32_t i = 0; i < READ_SLOTS; i++) {
				struct read_slot *r = &st->reads[i];
				if (r->used && !r->atomic && psn_in(psn, r->psn, (r->psn + r->n_hi) & PSN_MASK)) {
					r->replay = true;
					r->replay_psn = psn;
					r->next = psn;
					r->bytes = 0;
				}
			}
		}
		return;
	}

	/* In order. */
	if (st->nak_sent && psn == st->nak_sent_psn)
		st->nak_sent = false;
	if (st->icrc_due && psn == st->icrc_psn) {
		PASS(env, RSP_ICRC_DROP);
		st->icrc_due = false;
	}
	st->epsn = (psn + span) & PSN_MASK;
	st->epsn_slack = n_hi - n_lo;
	if (broke && op->transport == RT_TRANSPORT_RC && !st->invalid_due) {
		st->invalid_due = true;
		st->invalid_psn = psn;
		st->invalid_frame = pc->frame;
	}
	switch (op->family) {
	case RT_FAMILY_SEND:
	case RT_FAMILY_WRITE:
		if (op->position == RT_POS_LAST || op->position == RT_POS_ONLY)
			done_push(st, psn);
		if (p->bth.ack_req)
			ackreq_push(f, st, psn, pc->frame, pc->ts_ns);
		break;
	case RT_FAMILY_READ_REQUEST:
	case RT_FAMILY_ATOMIC: {
		done_push(st, psn);
		struct read_slot *r = read_slot_new(st);
		*r = (struct read_slot){ .used = true, .atomic = op->family == RT_FAMILY_ATOMIC, .psn = psn,
					 .len = op->family == RT_FAMILY_ATOMIC ? 8 : p->ext.reth.dma_len,
					 .n_lo = n_lo, .n_hi = n_hi, .next = psn, .frame = pc->frame };
		break;
	}
	default:
		break;
	}
}

static void request(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc, bool uc)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	uint32_t psn = p->bth.psn;

	/* READ of L bytes uses N PSNs; N is a range while the responder's PMTU is unknown. */
	uint32_t n_lo = 1, n_hi = 1;
	if (op->family == RT_FAMILY_READ_REQUEST) {
		uint32_t pmtu = flow_side_pmtu(env, f, !pc->side);
		if (!pmtu)
			pmtu = flow_side_pmtu(env, f, pc->side);
		uint32_t len = p->ext.reth.dma_len;
		n_lo = responses_for(len, pmtu ? pmtu : 4096);
		n_hi = responses_for(len, pmtu ? pmtu : 256);
	}

	if (st->fatal_received && (!st->started || !psn_before(psn, st->frontier)) && pc->ts_ns > st->fatal_grace_ns)
		FAIL(env, REQ_STOP_AFTER_FATAL, pc->frame, "%s PSN %u sent after the fatal NAK at frame %llu", label(p), psn,
		     (ull)st->fatal_frame);

	if (st->ahead_due && st->started) {
		if (!psn_before(psn, st->frontier) && !psn_before(st->ahead_psn, psn))
			FAIL(env, SEQ_ACK_AHEAD, st->ahead_frame,
			     "answer for PSN %u before the requester sent it (frame %llu)", st->ahead_psn, (ull)pc->frame);
		else
			flow_note(f, NOTE_RESPONDER_AHEAD, st->ahead_frame, st->ahead_psn, 0);
		st->ahead_due = false;
	}
	bool resync = false, retransmit = false;
	if (!st->started) {
		st->started = true;
		st->first_psn = psn;
		st->frontier = psn;
		if (op->position == RT_POS_MIDDLE || op->position == RT_POS_LAST) {
			flow_note(f, NOTE_STARTS_MID_MESSAGE, pc->frame, psn, op->family);
			resync = true;
		}
	} else {
		uint32_t exp_lo = (st->prev_psn + st->prev_lo) & PSN_MASK;
		uint32_t range = st->prev_hi - st->prev_lo;
		int32_t d = rt_psn_diff(psn, exp_lo);
		if (d >= 0 && (uint32_t)d <= range) {
			if (range)
				st->frontier = psn;	/* the READ's true length is now known */
			retransmit = psn_before(psn, st->frontier);
			if (!retransmit || st->gap_count == 0)
				PASS(env, SEQ_PSN);
		} else if (d > 0) {
			/* Skipped PSNs: those sent before are a retransmission the capture lacks; new ones wait. */
			uint32_t exp_hi = (st->prev_psn + st->prev_hi) & PSN_MASK;
			if (psn_before(exp_hi, st->frontier)) {
				capture_misses(st);
				flow_note(f, NOTE_MISSING_RETRANSMISSION, pc->frame, exp_hi, 0);
			}
			if (psn_before(st->frontier, psn)) {
				uint32_t from = psn_before(st->frontier, exp_hi) ? exp_hi : st->frontier;
				gap_add(env, f, st, from, psn, st->prev_psn, pc->frame);
			} else {
				PASS(env, SEQ_PSN);
			}
			retransmit = psn_before(psn, st->frontier);
			resync = true;
		} else if (uc) {
			FAIL(env, SEQ_PSN, pc->frame, "UC %s PSN %u after PSN %u: UC never goes back", label(p), psn,
			     st->prev_psn);
			resync = true;
		} else {
			retransmit = true;
			resync = true;
			PASS(env, SEQ_PSN);
			retransmission_start(env, f, st, pc);
		}
	}

	if (retransmit) {
		f->info.retransmissions++;
		pc->ladder_flags |= RT_LADDER_RETRANSMIT;
		if (!uc)
			check_retransmit_same(env, f, st, pc);
	}
	gaps_lost(env, f, st, psn);
	if (st->gbn_suspect && psn == st->gbn_p) {
		FAIL(env, REQ_GO_BACK_N, st->gbn_frame,
		     "after the NAK sequence error for PSN %u the requester resent from PSN %u, skipping PSN %u",
		     st->gbn_p, st->gbn_psn, st->gbn_p);
		st->gbn_suspect = false;
	}

	bool broke = check_message(env, f, st, pc, resync);
	check_pmtu_consistent(env, st, pc);
	if (!uc && (op->position == RT_POS_LAST || op->position == RT_POS_ONLY) &&
	    (op->family == RT_FAMILY_SEND || op->family == RT_FAMILY_WRITE)) {
		if (p->bth.ack_req)
			PASS(env, REQ_ACKREQ);
		else
			FAIL(env, REQ_ACKREQ, pc->frame, "%s PSN %u without AckReq", label(p), psn);
	}

	if (!retransmit && (!st->have_acked ? psn == st->first_psn : ((st->acked + 1) & PSN_MASK) == psn))
		st->progress_ts = pc->ts_ns;	/* nothing was outstanding: the ACK timer starts with this request */
	st->prev_psn = psn;
	st->prev_lo = n_lo;
	st->prev_hi = n_hi;
	/* A new request moves the frontier, even by exactly 2^23 (which psn_before calls "behind"). */
	uint32_t end = (psn + n_hi) & PSN_MASK;
	if (!psn_before(end, st->frontier) || (!retransmit && ((end - st->frontier) & PSN_MASK) <= n_hi))
		st->frontier = end;
	if (!uc && !retransmit) {
		if (!st->have_acked)
			NOT_EVALUATED(env, SEQ_WINDOW);
		else if (((st->frontier - st->acked - 1) & PSN_MASK) >= 0x800000u)
			FAIL(env, SEQ_WINDOW, pc->frame, "%u PSNs outstanding (acknowledged up to %u, sent up to %u)",
			     (st->frontier - st->acked - 1) & PSN_MASK, st->acked, (st->frontier - 1) & PSN_MASK);
		else
			PASS(env, SEQ_WINDOW);
	}
	if (!uc)
		responder_receives(env, f, st, pc, n_lo, n_lo, n_hi, broke);
	if (!uc && !pc->icrc_bad)
		remember_sent(st, pc);
}

/* ---- the responder's answers ------------------------------------------------------ */

static void read_response(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	/* The responder's First/Middle sizes are its own PMTU, kept in its own stream. */
	check_pmtu_consistent(env, &f->stream[pc->side], pc);
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
	uint32_t psn = p->bth.psn;

	if (p->ext_present & RT_EXT_AETH) {
		if (rt_aeth_type(p->ext.aeth.syndrome) == RT_AETH_ACK)
			PASS(env, SEQ_READ_AETH);
		else
			FAIL(env, SEQ_READ_AETH, pc->frame, "%s PSN %u carries an AETH of type %s, not ACK", label(p), psn,
			     aeth_type_name(p->ext.aeth.syndrome));
	}

	struct read_slot *r = NULL;
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		struct read_slot *c = &st->reads[i];
		if (c->used && !c->atomic && psn_in(psn, c->psn, (c->psn + c->n_hi) & PSN_MASK))
			r = c;
	}
	if (!r) {
		if (st->lossy)
			NOT_EVALUATED(env, SEQ_READ_RESPONSE);
		else
			FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u answers no READ request", label(p), psn);
		return;
	}
	bool starts = op->position == RT_POS_FIRST || op->position == RT_POS_ONLY;
	uint32_t start = r->replay ? r->replay_psn : r->psn;
	if (psn != r->next) {
		if (psn_before(r->next, psn) && !(starts && psn == start)) {
			/* Responses missing from the capture: this READ cannot be judged. */
			r->gap = true;
			capture_misses(st);
			/* A requester that sees the gap asks again from it at once (an implicit NAK). */
			st->read_gap_due = true;
			st->read_gap_psn = r->next;
			flow_note(f, NOTE_LOST_BEFORE_CAPTURE, pc->frame, r->next, 0);
		} else if (starts && psn == start) {
			r->bytes = 0;
		}
		r->next = psn;
	}
	if (!r->broken && !r->gap) {
		bool at_start = psn == start;
		if (starts != at_start) {
			FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s at PSN %u; the READ at frame %llu (PSN %u) %s", label(p),
			     psn, (ull)r->frame, r->psn, at_start ? "must begin with First or Only" : "already began");
			r->broken = true;
		}
	}
	if (starts)
		r->bytes = 0;
	r->bytes += p->payload_len;
	r->next = (psn + 1) & PSN_MASK;
	if (!r->broken && !r->gap && !r->replay && r->bytes > r->len) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u brings the READ at frame %llu to %u bytes of %u",
		     label(p), psn, (ull)r->frame, r->bytes, r->len);
		r->broken = true;
	}

	/* Same data again for a duplicate READ (RSP-DUPLICATE-READ); remember it otherwise. */
	struct psn_slot *w = window_slot(&st->answered, psn, !r->replay);
	if (r->replay && w && w->used && w->psn == psn && !p->truncated) {
		if (w->crc == payload_crc(p) && w->len == p->payload_len)
			PASS(env, RSP_DUPLICATE_READ);
		else
			FAIL(env, RSP_DUPLICATE_READ, pc->frame, "%s PSN %u answers a duplicate READ with other data than before",
			     label(p), psn);
	} else if (!r->replay && w) {
		*w = (struct psn_slot){ .psn = psn, .opcode = p->bth.opcode, .len = p->payload_len,
					.crc = payload_crc(p), .used = !p->truncated };
	}

	if (op->position == RT_POS_LAST || op->position == RT_POS_ONLY) {
		uint32_t count = (psn - r->psn + 1) & PSN_MASK;
		if (r->broken || r->gap || r->replay) {
			NOT_EVALUATED(env, SEQ_READ_RESPONSE);
		} else if (r->bytes != r->len) {
			FAIL(env, SEQ_READ_RESPONSE, pc->frame, "READ of %u bytes at PSN %u (frame %llu) answered with %u bytes",
			     r->len, r->psn, (ull)r->frame, r->bytes);
		} else if (count < r->n_lo || count > r->n_hi) {
			FAIL(env, SEQ_READ_RESPONSE, pc->frame,
			     "READ of %u bytes at PSN %u (frame %llu) answered in %u responses; the PMTU asks for %u",
			     r->len, r->psn, (ull)r->frame, count, r->n_lo);
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
		r->n_lo = r->n_hi = count;	/* it is answered: its PSN range is now exact */
	}
}

static void atomic_ack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
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
static bool nak_sequence(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	bool wrong = false;
	if (st->nak_sent && st->nak_sent_psn == psn && st->epsn == psn) {
		FAIL(env, RSP_NAK_SEQ, pc->frame, "second NAK sequence error for PSN %u before PSN %u arrived (first at frame %llu)",
		     psn, psn, (ull)st->nak_frame);
	} else if (!st->nak_due) {
		; /* nothing in the capture prompted it (the trigger was not captured) */
	} else if (psn == st->nak_due_psn) {
		PASS(env, RSP_NAK_SEQ);
	} else if (st->lossy) {
		/* A stream that loses packets may have lost the one the responder got: cannot tell. */
		NOT_EVALUATED(env, RSP_NAK_SEQ);
	} else {
		FAIL(env, RSP_NAK_SEQ, pc->frame,
		     "NAK sequence error carries PSN %u; the responder expected PSN %u (frame %llu was ahead of it)", psn,
		     st->nak_due_psn, (ull)st->nak_due_frame);
		wrong = true;
	}
	if (st->nak_due) {
		/* The responder saw the gap the capture shows: those packets were lost, not skipped. */
		gaps_lost(env, f, st, st->nak_due_psn);
		st->nak_due = false;
	}
	gaps_lost(env, f, st, psn);
	ack_progress(env, f, st, (psn - 1) & PSN_MASK, pc);
	st->nak_sent = true;
	st->nak_sent_psn = psn;
	/* The requester obeys the NAK as sent; the responder model keeps what the capture shows. */
	if (!wrong)
		responder_rollback(st, psn);
	st->nak_prev = st->nak == NAK_SEQ;
	st->nak_prev_psn = st->nak_psn;
	st->nak = NAK_SEQ;
	st->nak_psn = psn;
	st->nak_frame = pc->frame;
	return wrong;
}

static void nak_rnr(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	/* The refused request is one the responder took in and has not acknowledged: acked < psn < epsn. */
	bool unacked = !st->have_acked || psn_before(st->acked, psn);
	bool icrc = st->icrc_due && psn == st->icrc_psn;
	if (icrc) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "RNR NAK for PSN %u, whose request (frame %llu) had a bad ICRC", psn,
		     (ull)st->icrc_frame);
		st->icrc_due = false;
	}

	bool received = !st->resp_sync || psn_before(psn, st->epsn) || (st->lossy && psn == st->epsn);
	if (icrc)
		;
	else if (unacked && received)
		PASS(env, RSP_RNR);
	else
		FAIL(env, RSP_RNR, pc->frame, "RNR NAK carries PSN %u, which is not a request the responder holds unanswered "
		     "(acknowledged up to PSN %u, received up to PSN %u)", psn, st->acked, (st->epsn - 1) & PSN_MASK);
	/* Consecutive RNR NAKs for one PSN count towards rnr_retry; progress (ack_progress) resets. */
	st->rnr_count = st->rnr_count && st->rnr_psn == psn ? st->rnr_count + 1 : 1;
	st->rnr = true;
	st->rnr_psn = psn;
	st->rnr_frame = pc->frame;
	st->rnr_ts = pc->ts_ns;
	st->rnr_timer = rt_aeth_value(p->ext.aeth.syndrome);
	ack_progress(env, f, st, (psn - 1) & PSN_MASK, pc);
	if (unacked)
		responder_rollback(st, psn);
	st->nak_sent = false;
	st->nak_due = false;
}

static void nak_fatal(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	uint32_t code = rt_aeth_value(p->ext.aeth.syndrome);
	if (st->icrc_due && p->bth.psn == st->icrc_psn) {
		FAIL(env, RSP_ICRC_DROP, pc->frame, "NAK for PSN %u, whose request (frame %llu) had a bad ICRC", p->bth.psn,
		     (ull)st->icrc_frame);
		st->icrc_due = false;
	}
	if (code == 1 && st->invalid_due)
		PASS(env, RSP_NAK_INVALID);
	else if (st->invalid_due && p->bth.psn == st->invalid_psn)
		FAIL(env, RSP_NAK_INVALID, pc->frame, "NAK code %u for PSN %u, whose request broke the opcode sequence or "
		     "length rules; a NAK invalid request was due", code, p->bth.psn);
	st->invalid_due = false;
	ack_progress(env, f, st, (p->bth.psn - 1) & PSN_MASK, pc);
	st->fatal_received = true;
	st->fatal_frame = pc->frame;
	/* The NAKed request's round trip: requests sent within it after the NAK crossed it on the wire. */
	struct psn_slot *w = window_slot(&st->sent, p->bth.psn, false);
	int64_t rtt = w && w->used && w->psn == p->bth.psn ? pc->ts_ns - w->ts_ns : 0;
	st->fatal_grace_ns = pc->ts_ns + (rtt > 0 ? rtt : 0);
	f->side_fatal[pc->side] = true;
	f->side_fatal_frame[pc->side] = pc->frame;
}

static void response(struct checker_env *env, struct flow *f, struct stream *st, struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	const struct rt_opcode_info *op = p->op;
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
		/* Answers to requests sent before the capture began: nothing to hold them against. */
		flow_note(f, NOTE_RESPONSES_WITHOUT_REQUESTS, pc->frame, psn, 0);
		if (op->family == RT_FAMILY_READ_RESPONSE && aeth) {
			if (type == RT_AETH_ACK)
				PASS(env, SEQ_READ_AETH);
			else
				FAIL(env, SEQ_READ_AETH, pc->frame, "%s PSN %u carries an AETH of type %s, not ACK", label(p),
				     psn, aeth_type_name(p->ext.aeth.syndrome));
		}
		if (aeth)
			check_msn(env, st, psn, p->ext.aeth.msn, pc->frame, true);
		return;
	}

	if (!psn_before(psn, st->frontier)) {
		/* Never sent, or sent but not captured: the requester's next request tells (ack_progress counts the miss). */
		if (!st->ahead_due) {
			st->ahead_due = true;
			st->ahead_psn = psn;
			st->ahead_frame = pc->frame;
		}
	} else {
		PASS(env, SEQ_ACK_AHEAD);
	}

	uint32_t msn_upto = psn;
	bool msn_judged = false;
	switch (op->family) {
	case RT_FAMILY_READ_RESPONSE:
		read_response(env, f, st, pc);
		ack_progress(env, f, st, psn, pc);
		break;
	case RT_FAMILY_ATOMIC_ACK:
		atomic_ack(env, st, pc);
		ack_progress(env, f, st, psn, pc);
		break;
	case RT_FAMILY_ACK:
		if (type == RT_AETH_NAK) {
			msn_upto = (psn - 1) & PSN_MASK;
			if (rt_aeth_value(p->ext.aeth.syndrome) == 0)
				msn_judged = nak_sequence(env, f, st, pc);
			else
				nak_fatal(env, f, st, pc);
		} else if (type == RT_AETH_RNR_NAK) {
			msn_upto = st->have_acked && !psn_before(st->acked, psn) ? st->acked : (psn - 1) & PSN_MASK;
			nak_rnr(env, f, st, pc);
		} else if (type == RT_AETH_ACK) {
			if (st->dup_due) {
				st->dup_due = false;
				if (psn_before(psn, st->dup_psn)) {
					FAIL(env, RSP_DUPLICATE, pc->frame,
					     "duplicate at frame %llu re-acknowledged with PSN %u; expected PSN %u (the expected PSN - 1)",
					     (ull)st->dup_frame, psn, st->dup_psn);
				} else if (psn == st->dup_psn && st->msn_sync && st->have_msn) {
					int64_t count = done_upto(st, psn);
					uint32_t want = (uint32_t)(count + st->msn_offset) & PSN_MASK;
					if (count >= 0 && p->ext.aeth.msn != want && !st->lossy)
						FAIL(env, RSP_DUPLICATE, pc->frame,
						     "duplicate at frame %llu counted again: re-ACK MSN %u, expected %u",
						     (ull)st->dup_frame, p->ext.aeth.msn, want);
					else
						PASS(env, RSP_DUPLICATE);
					msn_judged = true;
				} else {
					PASS(env, RSP_DUPLICATE);
				}
			}
			ack_progress(env, f, st, psn, pc);
		}
		break;
	default:
		break;
	}
	if (aeth && type != RT_AETH_RESERVED)
		check_msn(env, st, msn_upto, p->ext.aeth.msn, pc->frame, msn_judged);
}

/* ---- entry points ------------------------------------------------------------------ */

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
	if (st->gbn_suspect) {
		NOT_EVALUATED(env, REQ_GO_BACK_N);
		flow_note(f, NOTE_MISSING_RETRANSMISSION, st->gbn_frame, st->gbn_p, 0);
	}
	if (st->msg_open)
		flow_note(f, NOTE_ENDS_MID_MESSAGE, st->msg_frame, 0, st->msg_family);
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
	if (st->nak_due) {
		bool answered_later = st->any_response && st->last_response_frame > st->nak_due_frame;
		if (answered_later && !st->lossy)
			FAIL(env, RSP_NAK_SEQ, st->nak_due_frame,
			     "request ahead of the expected PSN %u got no NAK sequence error", st->nak_due_psn);
		else
			flow_note(f, NOTE_ENDS_BEFORE_NAK, st->nak_due_frame, st->nak_due_psn, 0);
	}
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		struct read_slot *r = &st->reads[i];
		if (r->used && !r->complete)
			flow_note(f, NOTE_ENDS_BEFORE_RESPONSE, r->frame, r->psn, 0);
	}
	if (st->icrc_due)
		PASS(env, RSP_ICRC_DROP);
	if (st->invalid_due)
		NOT_EVALUATED(env, RSP_NAK_INVALID);
	if (st->started && !f->stream[!s].any_response && !st->any_response && f->info.transport == RT_TRANSPORT_RC)
		flow_note(f, NOTE_ONE_DIRECTION, f->info.first_frame, 0, 0);
	if (st->fatal_received)
		PASS(env, REQ_STOP_AFTER_FATAL);
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
