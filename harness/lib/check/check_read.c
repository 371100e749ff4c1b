/* SPDX-License-Identifier: MIT */
/*
 * READs and atomics, from request to answer: the outstanding ones the
 * responder holds (struct read_slot), the passes of READ responses
 * (SEQ-READ-RESPONSE, SEQ-READ-AETH, RSP-DUPLICATE-READ), Atomic ACKs
 * (SEQ-ATOMIC-ACK), and the implicit NAK that answers beyond an unanswered
 * one are to the requester.
 *
 * A requester may ask for a READ again before its responses come back,
 * more than once. The responder answers each request in order, so the
 * responses come in passes: a pass begins with a First or Only (or with a
 * PSN that goes back) and is bound to the oldest request not yet answered
 * whose PSN it starts at. Only the pass that answers the original request
 * is judged for length and count; a pass answering a duplicate carries the
 * responder's current MSN, and its data must match what was sent before.
 */
#include <string.h>

#include "check_flow.h"

static const char *aeth_type_name(uint8_t syndrome)
{
	static const char *const names[] = { "ACK", "RNR NAK", "reserved", "NAK" };
	return names[rt_aeth_type(syndrome)];
}

/* SEQ-READ-AETH: a READ response's AETH (First, Last, Only) is an ACK. */
void flow_read_aeth(struct checker_env *env, const struct pkt_ctx *pc)
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

/* ---- what the responder holds --------------------------------------------------- */

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

/* A READ or atomic taken in order: the responder owes its answer. */
void flow_read_taken(struct stream *st, const struct pkt_ctx *pc, uint32_t n_lo, uint32_t n_hi)
{
	const struct rt_packet *p = pc->p;
	bool atomic = p->op->family == RT_FAMILY_ATOMIC;
	bool reth = p->ext_present & RT_EXT_RETH;
	struct read_slot *r = read_slot_new(st);
	*r = (struct read_slot){ .used = true, .atomic = atomic, .psn = p->bth.psn,
				 .len = atomic ? 8 : reth ? p->ext.reth.dma_len : 0, .len_unknown = !atomic && !reth,
				 .n_lo = n_lo, .n_hi = n_hi, .next = p->bth.psn, .frame = pc->frame };
}

/*
 * The request after the READ at psn came n PSNs later: the READ took n,
 * as far as the requester is right. Only its responses prove it, so this
 * bounds the implicit NAK alone, not which responses belong to the READ.
 */
void flow_read_span_known(struct stream *st, uint32_t psn, uint32_t n)
{
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		struct read_slot *r = &st->reads[i];
		if (r->used && !r->atomic && r->psn == psn && n >= r->n_lo && n <= r->n_hi)
			r->n_next = n;
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

static struct read_slot *atomic_of(struct stream *st, uint32_t psn)
{
	for (uint32_t i = 0; i < READ_SLOTS; i++)
		if (st->reads[i].used && st->reads[i].atomic && st->reads[i].psn == psn)
			return &st->reads[i];
	return NULL;
}

/* A READ or atomic asked again (behind the expected PSN): it waits for its own pass of answers. */
void flow_read_duplicate(struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	bool atomic = p->op->family == RT_FAMILY_ATOMIC;
	struct read_slot *r = atomic ? atomic_of(st, p->bth.psn) : read_of(st, p->bth.psn);
	if (!r)
		return;
	if (r->asks == READ_ASKS) {
		/* More duplicates queued than slots: the oldest is forgotten, its pass not told apart. */
		memmove(r->ask_psn, r->ask_psn + 1, sizeof r->ask_psn - sizeof r->ask_psn[0]);
		memmove(r->ask_len, r->ask_len + 1, sizeof r->ask_len - sizeof r->ask_len[0]);
		r->asks--;
		flow_note(f, NOTE_WINDOW_EXCEEDED, pc->frame, p->bth.psn, 0);
	}
	r->ask_psn[r->asks] = p->bth.psn;
	r->ask_len[r->asks] = !atomic && (p->ext_present & RT_EXT_RETH) ? p->ext.reth.dma_len : r->len;
	r->asks++;
}

/* ---- the implicit NAK ------------------------------------------------------------- */

/*
 * The responder answered PSNs up to upto. An unanswered READ or atomic
 * before them had its answer lost: the requester asks again from its first
 * missing response at once (an implicit NAK).
 */
void flow_read_implicit_nak(struct stream *st, uint32_t upto)
{
	for (uint32_t i = 0; i < READ_SLOTS; i++) {
		const struct read_slot *r = &st->reads[i];
		uint32_t span = r->n_next ? r->n_next : r->n_hi;
		if (!r->used || r->complete || !psn_before(r->psn, upto) || psn_in(upto, r->psn, (r->psn + span) & PSN_MASK))
			continue;
		uint32_t from = r->in_pass ? r->next : r->psn;
		if (!st->implicit_due || psn_before(from, st->implicit_psn)) {
			st->implicit_due = true;
			st->implicit_psn = from;
		}
	}
}

/* ---- passes of READ responses ------------------------------------------------------- */

static bool starts_message(const struct rt_packet *p)
{
	return p->op->position == RT_POS_FIRST || p->op->position == RT_POS_ONLY;
}

/* The oldest queued duplicate asking from psn, or -1. */
static int ask_from(const struct read_slot *r, uint32_t psn)
{
	for (int k = 0; k < r->asks; k++)
		if (r->ask_psn[k] == psn)
			return k;
	return -1;
}

/* Drops the duplicates before k and binds the pass to duplicate k. */
static void bind_ask(struct read_slot *r, int k)
{
	r->pass_start = r->ask_psn[k];
	r->asks -= (uint8_t)(k + 1);
	memmove(r->ask_psn, r->ask_psn + k + 1, r->asks * sizeof r->ask_psn[0]);
	memmove(r->ask_len, r->ask_len + k + 1, r->asks * sizeof r->ask_len[0]);
	r->pass_replay = true;
}

/* Responses the capture lacks: this pass cannot be judged, and the requester may ask again from `from`. */
static void pass_gap(struct flow *f, struct stream *st, struct read_slot *r, const struct pkt_ctx *pc, uint32_t from)
{
	if (!r->pass_replay)
		r->gap = true;
	flow_capture_misses(st);
	if (!st->implicit_due) {
		st->implicit_due = true;
		st->implicit_psn = from;
	}
	flow_note(f, NOTE_LOST_BEFORE_CAPTURE, pc->frame, from, 0);
}

/*
 * A response that opens a pass: bound to the original request while it is
 * unanswered, else to the oldest duplicate that asked from this PSN. A
 * pass no captured request asked for (a duplicate the capture lacks) is a
 * replay too.
 */
static void pass_begin(struct flow *f, struct stream *st, struct read_slot *r, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	int k = ask_from(r, psn);
	r->in_pass = true;
	r->bytes = 0;
	r->next = psn;
	if (!r->answered && (psn == r->psn || k < 0)) {
		r->answered = true;
		r->pass_replay = false;
		r->pass_start = r->psn;
	} else if (k >= 0) {
		r->answered = true;
		bind_ask(r, k);
	} else {
		r->pass_replay = true;
		r->pass_start = starts_message(pc->p) ? psn : r->psn;
	}
	if (!starts_message(pc->p) && psn != r->pass_start)
		pass_gap(f, st, r, pc, r->pass_start);
}

/* Does the response open a new pass of the READ? */
static bool pass_opens(const struct read_slot *r, const struct rt_packet *p)
{
	uint32_t psn = p->bth.psn;
	if (!r->in_pass)
		return true;
	if (psn_before(psn, r->next))
		return true;	/* goes back: the pass before lost its tail */
	/* A First where the pass goes on: a duplicate's pass, if one asked from here. */
	return starts_message(p) && psn == r->next && ask_from(r, psn) >= 0;
}

/* Where the response stands in its pass: a PSN past the next expected one means responses the capture lacks. */
static void read_response_place(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc,
				struct read_slot *r)
{
	const struct rt_packet *p = pc->p;
	uint32_t psn = p->bth.psn;
	bool starts = starts_message(p);
	if (pass_opens(r, p)) {
		if (r->in_pass && !r->pass_replay)
			r->gap = true;	/* the original's pass ended early: not judged */
		pass_begin(f, st, r, pc);
	} else if (psn != r->next) {
		pass_gap(f, st, r, pc, r->next);
	}
	bool judged = !r->broken && !r->gap && !r->pass_replay && !r->len_unknown;
	if (judged && starts != (psn == r->pass_start)) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s at PSN %u; the READ at frame %llu (PSN %u) %s", label(p), psn,
		     (ull)r->frame, r->psn, psn == r->pass_start ? "must begin with First or Only" : "already began");
		r->broken = true;
	}
	r->bytes += p->payload_len;
	r->next = (psn + 1) & PSN_MASK;
	if (judged && !r->broken && r->bytes > r->len) {
		FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u brings the READ at frame %llu to %u bytes of %u", label(p),
		     psn, (ull)r->frame, r->bytes, r->len);
		r->broken = true;
	}
}

/* The original's pass ended: judge the whole READ; its PSN range is now exact. */
static void read_judge(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, struct read_slot *r)
{
	uint32_t psn = pc->p->bth.psn;
	uint32_t count = (psn - r->psn + 1) & PSN_MASK;
	if (r->broken || r->gap || r->len_unknown) {
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
	flow_seq_read_span_known(env, st, r, count);
	/* Its last response fixes how many PSNs it took: the responder's next expected PSN follows. */
	if (st->epsn_slack && psn_before(st->epsn, (psn + 1) & PSN_MASK) &&
	    !psn_before((st->epsn + st->epsn_slack) & PSN_MASK, psn)) {
		st->epsn = (psn + 1) & PSN_MASK;
		st->epsn_slack = 0;
	}
	r->n_lo = r->n_hi = count;
}

static void pass_end(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc, struct read_slot *r)
{
	if (r->pass_replay)
		NOT_EVALUATED(env, SEQ_READ_RESPONSE);
	else
		read_judge(env, st, pc, r);
	r->complete = true;
	r->in_pass = false;
	r->broken = false;
	r->gap = false;
}

/* A READ response; true when it may answer a duplicate (its MSN is then the responder's current one). */
bool flow_read_response(struct checker_env *env, struct flow *f, struct stream *st, const struct pkt_ctx *pc)
{
	/* The responder's First/Middle sizes are its own PMTU, kept in its own stream. */
	flow_seq_pmtu_consistent(env, &f->stream[pc->side], pc);
	flow_read_aeth(env, pc);
	const struct rt_packet *p = pc->p;
	struct read_slot *r = read_of(st, p->bth.psn);
	if (r)
		PASS(env, SEQ_ACK_AHEAD);	/* a READ asked for it, however far its span reaches */
	else
		flow_seq_ack_ahead(env, st, pc);
	if (!r) {
		if (st->lossy)
			NOT_EVALUATED(env, SEQ_READ_RESPONSE);
		else
			FAIL(env, SEQ_READ_RESPONSE, pc->frame, "%s PSN %u answers no READ request", label(p), p->bth.psn);
		return false;
	}
	read_response_place(env, f, st, pc, r);
	bool replay = r->pass_replay || r->asks;
	flow_rsp_duplicate_read(env, st, pc, r->pass_replay);
	if (p->op->position == RT_POS_LAST || p->op->position == RT_POS_ONLY)
		pass_end(env, st, pc, r);
	return replay;
}

/* An Atomic ACK; true when it may answer a duplicate (its MSN is then the responder's current one). */
bool flow_read_atomic_ack(struct checker_env *env, struct stream *st, const struct pkt_ctx *pc)
{
	uint32_t psn = pc->p->bth.psn;
	struct read_slot *r = atomic_of(st, psn);
	if (!r) {
		if (st->lossy)
			NOT_EVALUATED(env, SEQ_ATOMIC_ACK);
		else
			FAIL(env, SEQ_ATOMIC_ACK, pc->frame, "Atomic Acknowledge PSN %u matches no Compare&Swap or Fetch&Add",
			     psn);
		return false;
	}
	PASS(env, SEQ_ATOMIC_ACK);
	bool replay = r->complete || r->asks;
	if (r->complete && r->asks)
		r->asks--;
	r->complete = true;
	return replay;
}
