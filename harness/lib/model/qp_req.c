/* SPDX-License-Identifier: MIT */
/*
 * The requester: a send queue of work requests and a cursor that walks their
 * packets. New packets take PSNs in order; a NAK, a timeout, an RNR NAK or a
 * lost READ response moves the cursor back to a PSN already sent (go-back-N),
 * and the packets from there are built again from the work request and the
 * memory, so a retransmission carries the same opcode and bytes.
 *
 * States, per QP: sending (cursor runs while the window allows), waiting
 * (window full, or READ/atomic limit), RNR wait (until the NAK's timer runs
 * out), error (after a fatal NAK or exhausted retries; every WQE flushed).
 */
#include <stdlib.h>
#include <string.h>

#include "qp.h"

#define WQE(r, i) (&(r)->wq[(i) % (r)->depth])

static bool is_rd_atomic(enum rt_wr_opcode op)
{
	return op == RT_WR_READ || op == RT_WR_CMP_SWAP || op == RT_WR_FETCH_ADD;
}

static bool reliable(const struct rt_qp *qp)
{
	return qp->cfg.transport == RT_TRANSPORT_RC;
}

int req_init(struct rt_qp *qp, struct rt_error *err)
{
	struct requester *r = &qp->req;
	r->depth = qp->cfg.sq_depth;
	r->wq = calloc(r->depth, sizeof *r->wq);
	if (!r->wq) {
		rt_error_set(err, "out of memory for a send queue of %u", r->depth);
		return -1;
	}
	r->next_new_psn = qp->cfg.sq_psn;
	r->max_sent = qp->cfg.sq_psn;
	r->una = qp->cfg.sq_psn;
	return 0;
}

void req_free(struct rt_qp *qp)
{
	free(qp->req.wq);
}

static uint32_t wqe_packets(const struct rt_qp *qp, const struct rt_send_wr *wr)
{
	if (wr->opcode == RT_WR_CMP_SWAP || wr->opcode == RT_WR_FETCH_ADD || wr->length == 0)
		return 1;
	return (uint32_t)(((uint64_t)wr->length + qp->cfg.pmtu - 1) / qp->cfg.pmtu);
}

static bool allowed(const struct rt_qp *qp, enum rt_wr_opcode op)
{
	switch (qp->cfg.transport) {
	case RT_TRANSPORT_UD:
		return op == RT_WR_SEND || op == RT_WR_SEND_IMM;
	case RT_TRANSPORT_UC:
		return op == RT_WR_SEND || op == RT_WR_SEND_IMM || op == RT_WR_WRITE || op == RT_WR_WRITE_IMM;
	default:
		return op != RT_WR_RECV;
	}
}

int req_post(struct rt_qp *qp, const struct rt_send_wr *wr, struct rt_error *err)
{
	struct requester *r = &qp->req;
	uint64_t local_len = (wr->opcode == RT_WR_CMP_SWAP || wr->opcode == RT_WR_FETCH_ADD) ? 8 : wr->length;
	if (qp->state == RT_QPS_ERROR) {
		rt_error_set(err, "work request %llu: the QP is in the error state", (unsigned long long)wr->wr_id);
		return -1;
	}
	if (!allowed(qp, wr->opcode)) {
		rt_error_set(err, "work request %llu: %s is not an operation of %s", (unsigned long long)wr->wr_id,
			     rt_wr_opcode_name(wr->opcode), rt_transport_name(qp->cfg.transport));
		return -1;
	}
	if (wr->length > (1u << 31) || wr->local_offset + local_len > qp->cfg.mem_size) {
		rt_error_set(err, "work request %llu: %llu bytes at offset %llu do not fit the QP's %u bytes of memory",
			     (unsigned long long)wr->wr_id, (unsigned long long)local_len,
			     (unsigned long long)wr->local_offset, qp->cfg.mem_size);
		return -1;
	}
	if (qp->cfg.transport == RT_TRANSPORT_UD && wr->length > qp->cfg.pmtu) {
		rt_error_set(err, "work request %llu: a UD message fits one packet (%u bytes > PMTU %u)",
			     (unsigned long long)wr->wr_id, wr->length, qp->cfg.pmtu);
		return -1;
	}
	if (r->tail - r->head == r->depth) {
		rt_error_set(err, "work request %llu: the send queue holds %u requests", (unsigned long long)wr->wr_id,
			     r->depth);
		return -1;
	}
	struct wqe *w = WQE(r, r->tail++);
	memset(w, 0, sizeof *w);
	w->wr = *wr;
	return 0;
}

/* The PSN the cursor stands on. */
static uint32_t cursor_psn(const struct requester *r)
{
	if (r->cur == r->tail)
		return r->next_new_psn;
	const struct wqe *w = WQE(r, r->cur);
	return w->started ? rt_psn_add(w->first_psn, (int32_t)r->cur_pkt) : r->next_new_psn;
}

/* Puts the cursor on psn (a PSN of a started WQE, or the next new one). */
static void rewind_to(struct requester *r, uint32_t psn)
{
	for (uint32_t i = r->head; i != r->tail; i++) {
		const struct wqe *w = WQE(r, i);
		if (!w->started)
			break;
		int32_t d = rt_psn_diff(psn, w->first_psn);
		if (d >= 0 && (uint32_t)d < w->npkts) {
			r->cur = i;
			r->cur_pkt = (uint32_t)d;
			return;
		}
	}
	/* Past everything started: the first WQE not started yet. */
	uint32_t i = r->head;
	while (i != r->tail && WQE(r, i)->started)
		i++;
	r->cur = i;
	r->cur_pkt = 0;
}

static void complete_head(struct rt_qp *qp)
{
	struct requester *r = &qp->req;
	while (r->head != r->tail && WQE(r, r->head)->acked) {
		const struct wqe *w = WQE(r, r->head++);
		struct rt_wc wc = { .wr_id = w->wr.wr_id, .status = w->status, .opcode = w->wr.opcode,
				    .byte_len = w->wr.length };
		qp_complete(qp, &wc);
	}
}

/* The oldest work request fails with status; the QP goes to the error state and flushes the rest. */
static void fail_head(struct rt_qp *qp, enum rt_wc_status status)
{
	struct requester *r = &qp->req;
	if (r->head != r->tail) {
		struct wqe *w = WQE(r, r->head);
		w->acked = true;
		w->status = status;
		complete_head(qp);
	}
	qp_enter_error(qp);
}

void req_flush(struct rt_qp *qp)
{
	struct requester *r = &qp->req;
	for (uint32_t i = r->head; i != r->tail; i++) {
		struct wqe *w = WQE(r, i);
		w->acked = true;
		w->status = RT_WC_FLUSHED;
	}
	complete_head(qp);
	r->cur = r->tail;
	r->rnr_wait = false;
}

/* The oldest unacknowledged PSN moved forward to new_una: the retry counts start again. */
static void progress(struct rt_qp *qp, uint32_t new_una)
{
	struct requester *r = &qp->req;
	if (rt_psn_diff(new_una, r->una) <= 0 || rt_psn_diff(new_una, r->max_sent) > 0)
		return;
	r->una = new_una;
	r->gone_back = false;
	r->retries = 0;
	r->rnr_retries = 0;
	r->last_activity = qp->now;
	/* A late acknowledgement can overtake a go-back: never resend what is acknowledged. */
	if (rt_psn_diff(cursor_psn(r), new_una) < 0)
		rewind_to(r, new_una);
}

/*
 * Everything up to and including PSN q is acknowledged. A READ or atomic that
 * q passes without its answer having come had its answer lost: the requester
 * asks again from the first missing response (an implicit NAK). Once gone
 * back, later ACKs past it change nothing until the answer comes (rxe starts
 * no second retry either), so the request is not sent once per such ACK.
 */
static void ack_through(struct rt_qp *qp, uint32_t q)
{
	struct requester *r = &qp->req;
	uint32_t una = rt_psn_add(q, 1);
	bool answer_lost = false;
	for (uint32_t i = r->head; i != r->tail; i++) {
		struct wqe *w = WQE(r, i);
		if (!w->started)
			break;
		uint32_t last = rt_psn_add(w->first_psn, (int32_t)w->npkts - 1);
		if (rt_psn_diff(last, q) > 0)
			break;	/* not acknowledged, or only part way */
		if (is_rd_atomic(w->wr.opcode) && !w->acked) {
			una = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
			answer_lost = true;
			break;
		}
		w->acked = true;
	}
	complete_head(qp);
	/* After progress, which starts a new round of retries when una moved. */
	progress(qp, una);
	if (answer_lost && !r->gone_back && rt_psn_diff(cursor_psn(r), una) > 0) {
		rewind_to(r, una);
		r->gone_back = true;
	}
}

/* PSNs before psn are acknowledged (when psn is ahead of the oldest outstanding one). */
static void ack_before(struct rt_qp *qp, uint32_t psn)
{
	ack_through(qp, rt_psn_add(psn, -1));
}

static bool psn_was_sent(const struct requester *r, uint32_t psn)
{
	return r->any_sent && rt_psn_diff(psn, r->max_sent) < 0;
}

/* Timeouts and sequence NAKs share retry_cnt: each goes back, the limit ends the WQE. */
static bool retry_or_fail(struct rt_qp *qp, uint32_t from)
{
	struct requester *r = &qp->req;
	if (++r->retries > qp->cfg.retry_cnt) {
		fail_head(qp, RT_WC_RETRY_EXCEEDED);
		return false;
	}
	rewind_to(r, from);
	return true;
}

static void on_nak(struct rt_qp *qp, const struct rt_packet *p)
{
	struct requester *r = &qp->req;
	uint32_t psn = p->bth.psn;
	uint8_t code = rt_aeth_value(p->ext.aeth.syndrome);
	qp->stats.naks_received++;
	/* A NAK for a PSN already acknowledged is stale (it crossed a later ACK). */
	if (rt_psn_diff(psn, r->una) < 0)
		return;
	ack_before(qp, psn);
	if (code == 0) {
		/*
		 * While waiting out an RNR NAK for this PSN, or already gone back for
		 * a NAK with no progress since, another sequence NAK adds nothing
		 * (rxe ignores it the same way): going back again would send the
		 * same packets twice.
		 */
		if ((r->rnr_wait && r->rnr_psn == psn) || r->gone_back)
			return;
		uint32_t from = psn;
		if (qp_bug_now(qp, RT_BUG_GO_BACK_WRONG)) {
			from = rt_psn_add(psn, 1);
			r->mark = RT_BUG_GO_BACK_WRONG;
		}
		if (retry_or_fail(qp, from))
			r->gone_back = true;
		return;
	}
	static const enum rt_wc_status fatal[] = { RT_WC_SUCCESS, RT_WC_REMOTE_INVALID_REQUEST,
						   RT_WC_REMOTE_ACCESS_ERROR, RT_WC_REMOTE_OPERATIONAL_ERROR };
	fail_head(qp, code < 4 ? fatal[code] : RT_WC_REMOTE_INVALID_REQUEST);
}

static void on_rnr_nak(struct rt_qp *qp, int64_t now, const struct rt_packet *p)
{
	struct requester *r = &qp->req;
	uint32_t psn = p->bth.psn;
	qp->stats.rnr_naks_received++;
	if (rt_psn_diff(psn, r->una) < 0)
		return;
	ack_before(qp, psn);
	if (qp->cfg.rnr_retry != 7 && ++r->rnr_retries > qp->cfg.rnr_retry) {
		fail_head(qp, RT_WC_RNR_RETRY_EXCEEDED);
		return;
	}
	r->rnr_wait = true;
	r->rnr_psn = psn;
	r->rnr_until = now + rt_rnr_timer_ns(rt_aeth_value(p->ext.aeth.syndrome));
	if (qp_bug_now(qp, RT_BUG_RNR_EARLY)) {
		r->rnr_until = now;
		r->mark = RT_BUG_RNR_EARLY;
	}
	rewind_to(r, psn);
}

/* The oldest READ still waiting for responses. */
static struct wqe *oldest_read(struct requester *r)
{
	for (uint32_t i = r->head; i != r->tail; i++) {
		struct wqe *w = WQE(r, i);
		if (!w->started)
			return NULL;
		if (w->wr.opcode == RT_WR_READ && !w->acked)
			return w;
	}
	return NULL;
}

static void on_read_response(struct rt_qp *qp, const struct rt_packet *p)
{
	struct requester *r = &qp->req;
	struct wqe *w = oldest_read(r);
	if (!w) {
		qp->stats.dropped++;
		return;
	}
	uint32_t expected = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
	int32_t d = rt_psn_diff(p->bth.psn, expected);
	if (d != 0) {
		qp->stats.dropped++;
		/* A response went missing: ask again from it, once per gap. */
		if (d > 0 && !(r->read_gap && r->read_gap_psn == expected)) {
			r->read_gap = true;
			r->read_gap_psn = expected;
			retry_or_fail(qp, expected);
		}
		return;
	}
	uint32_t off = w->read_pkts * qp->cfg.pmtu;
	uint32_t want = w->wr.length - off < qp->cfg.pmtu ? w->wr.length - off : qp->cfg.pmtu;
	if (p->payload_len != want) {
		qp->stats.dropped++;
		return;
	}
	r->read_gap = false;
	if (p->ext_present & RT_EXT_AETH)
		ack_before(qp, p->bth.psn);
	memcpy(qp->mem + w->wr.local_offset + off, p->frame + p->payload_off, want);
	qp->stats.bytes_placed += want;
	if (++w->read_pkts == w->npkts) {
		w->acked = true;
		r->rd_atomic_out--;
	}
	complete_head(qp);
	progress(qp, rt_psn_add(p->bth.psn, 1));
}

static void on_atomic_ack(struct rt_qp *qp, const struct rt_packet *p)
{
	struct requester *r = &qp->req;
	for (uint32_t i = r->head; i != r->tail; i++) {
		struct wqe *w = WQE(r, i);
		if (!w->started)
			break;
		if (w->first_psn != p->bth.psn)
			continue;
		if (w->acked || (w->wr.opcode != RT_WR_CMP_SWAP && w->wr.opcode != RT_WR_FETCH_ADD))
			break;
		ack_before(qp, p->bth.psn);
		/* The original value lands in local memory in the host's order (little-endian). */
		uint64_t v = p->ext.atomic_ack_orig;
		for (int b = 0; b < 8; b++)
			qp->mem[w->wr.local_offset + b] = (uint8_t)(v >> (8 * b));
		w->acked = true;
		r->rd_atomic_out--;
		complete_head(qp);
		progress(qp, rt_psn_add(p->bth.psn, 1));
		return;
	}
	qp->stats.dropped++;
}

void req_receive(struct rt_qp *qp, int64_t now, const struct rt_packet *p)
{
	struct requester *r = &qp->req;
	if (qp->state == RT_QPS_ERROR || !reliable(qp)) {
		qp->stats.dropped++;
		return;
	}
	/* Answers for PSNs never sent are not ours to act on. */
	if (!psn_was_sent(r, p->bth.psn)) {
		qp->stats.dropped++;
		return;
	}
	switch (p->op->family) {
	case RT_FAMILY_ACK:
		switch (rt_aeth_type(p->ext.aeth.syndrome)) {
		case RT_AETH_ACK:
			/*
			 * An ACK below the oldest outstanding PSN (a duplicate's
			 * re-ACK) moves nothing on, but it still completes a message
			 * it covers that lies below that PSN, where only the
			 * psn-in-read misbehaviour puts one (inside a READ's PSNs).
			 */
			ack_through(qp, p->bth.psn);
			break;
		case RT_AETH_NAK:
			on_nak(qp, p);
			break;
		case RT_AETH_RNR_NAK:
			on_rnr_nak(qp, now, p);
			break;
		default:
			qp->stats.dropped++;
		}
		break;
	case RT_FAMILY_READ_RESPONSE:
		on_read_response(qp, p);
		break;
	case RT_FAMILY_ATOMIC_ACK:
		on_atomic_ack(qp, p);
		break;
	default:
		qp->stats.dropped++;
	}
}

/* Opcode of packet idx of n for a SEND or WRITE message. */
static uint8_t message_opcode(enum rt_wr_opcode op, uint32_t idx, uint32_t n)
{
	bool write = op == RT_WR_WRITE || op == RT_WR_WRITE_IMM;
	bool imm = op == RT_WR_SEND_IMM || op == RT_WR_WRITE_IMM;
	bool inv = op == RT_WR_SEND_INV;
	if (n == 1) {
		if (write)
			return imm ? RT_OP_WRITE_ONLY_IMM : RT_OP_WRITE_ONLY;
		return imm ? RT_OP_SEND_ONLY_IMM : inv ? RT_OP_SEND_ONLY_INV : RT_OP_SEND_ONLY;
	}
	if (idx == 0)
		return write ? RT_OP_WRITE_FIRST : RT_OP_SEND_FIRST;
	if (idx + 1 < n)
		return write ? RT_OP_WRITE_MIDDLE : RT_OP_SEND_MIDDLE;
	if (write)
		return imm ? RT_OP_WRITE_LAST_IMM : RT_OP_WRITE_LAST;
	return imm ? RT_OP_SEND_LAST_IMM : inv ? RT_OP_SEND_LAST_INV : RT_OP_SEND_LAST;
}

/* Opcode and headers of a SEND or WRITE packet (UD: a SEND Only and its DETH); returns the opcode's info. */
static const struct rt_opcode_info *message_headers(struct rt_qp *qp, const struct wqe *w, uint32_t idx, uint32_t psn,
						    bool resend, struct qp_frame *f)
{
	const struct rt_send_wr *wr = &w->wr;
	if (qp->cfg.transport == RT_TRANSPORT_UD) {
		qp_frame_init(qp, f, wr->opcode == RT_WR_SEND_IMM ? RT_OP_UD_SEND_ONLY_IMM : RT_OP_UD_SEND_ONLY, psn);
		f->spec.ext.deth.qkey = qp->cfg.qkey;
		f->spec.ext.deth.src_qp = qp->cfg.qpn;
	} else {
		qp_frame_init(qp, f, qp_opcode(qp, message_opcode(wr->opcode, idx, w->npkts)), psn);
	}
	const struct rt_opcode_info *info = rt_opcode_info(f->spec.bth.opcode);
	struct rt_ext *ext = &f->spec.ext;
	ext->imm = wr->imm;
	ext->ieth_rkey = wr->imm;
	if (info->ext & RT_EXT_RETH) {
		ext->reth.va = wr->remote_va;
		ext->reth.rkey = wr->rkey;
		ext->reth.dma_len = wr->length;
		if (!resend && qp_bug_now(qp, RT_BUG_RETH_LENGTH)) {
			ext->reth.dma_len += 4;
			f->bug = RT_BUG_RETH_LENGTH;
		}
	}
	return info;
}

/*
 * The misbehaviours of a packet's opcode sequence, in its first transmission
 * only: a short First, a Middle where a SEND's First belongs, a SEND inside a
 * WRITE. info is the opcode's before them. Returns the payload length.
 */
static uint32_t sequence_bugs(struct rt_qp *qp, const struct rt_opcode_info *info, uint32_t len, struct qp_frame *f)
{
	if (info->position == RT_POS_FIRST) {
		if (qp_bug_now(qp, RT_BUG_SHORT_FIRST)) {
			len = qp->cfg.pmtu / 2;
			f->bug = RT_BUG_SHORT_FIRST;
		} else if (info->family == RT_FAMILY_SEND && qp_bug_now(qp, RT_BUG_NO_FIRST)) {
			f->spec.bth.opcode = qp_opcode(qp, RT_OP_SEND_MIDDLE);
			f->bug = RT_BUG_NO_FIRST;
		}
	}
	if (info->family == RT_FAMILY_WRITE && (info->position == RT_POS_MIDDLE || info->position == RT_POS_LAST) &&
	    qp_bug_now(qp, RT_BUG_INTERLEAVE)) {
		/* A SEND Only goes out where the WRITE's next packet belongs. */
		f->spec.bth.opcode = qp_opcode(qp, RT_OP_SEND_ONLY);
		f->bug = RT_BUG_INTERLEAVE;
	}
	return len;
}

/* A SEND or WRITE packet (RC, UC) or a UD SEND, with the bugs that belong to such packets. */
static void build_message_packet(struct rt_qp *qp, const struct wqe *w, uint32_t idx, uint32_t psn, bool resend,
				 struct qp_frame *f)
{
	const struct rt_send_wr *wr = &w->wr;
	uint32_t pmtu = qp->cfg.pmtu;
	uint32_t off = idx * pmtu;
	uint32_t len = wr->length ? (wr->length - off < pmtu ? wr->length - off : pmtu) : 0;
	const struct rt_opcode_info *info = message_headers(qp, w, idx, psn, resend, f);
	const uint8_t *data = qp->mem + wr->local_offset + off;
	if (!resend)
		len = sequence_bugs(qp, info, len, f);
	if (resend && len && qp_bug_now(qp, RT_BUG_RETRANSMIT_ALTER)) {
		memcpy(qp->scratch, data, len);
		qp->scratch[0] ^= 0xFF;
		data = qp->scratch;
		f->bug = RT_BUG_RETRANSMIT_ALTER;
	}
	if (len % 4 && qp_bug_now(qp, RT_BUG_BAD_PAD)) {
		/* No pad: payload + pad is no longer a multiple of 4. */
		f->spec.pad_explicit = true;
		f->spec.bth.pad = 0;
		f->bug = RT_BUG_BAD_PAD;
	}
	f->spec.payload = data;
	f->spec.payload_len = len;
}

static void build_rd_atomic(const struct rt_qp *qp, const struct wqe *w, uint32_t idx, uint32_t psn,
			    struct qp_frame *f)
{
	const struct rt_send_wr *wr = &w->wr;
	if (wr->opcode == RT_WR_READ) {
		/* Asking again from response idx: the rest of the READ, with the RETH moved along. */
		uint32_t off = idx * qp->cfg.pmtu;
		qp_frame_init(qp, f, RT_OP_READ_REQUEST, psn);
		f->spec.ext.reth.va = wr->remote_va + off;
		f->spec.ext.reth.rkey = wr->rkey;
		f->spec.ext.reth.dma_len = wr->length - off;
		return;
	}
	qp_frame_init(qp, f, wr->opcode == RT_WR_CMP_SWAP ? RT_OP_CMP_SWAP : RT_OP_FETCH_ADD, psn);
	f->spec.ext.atomic.va = wr->remote_va;
	f->spec.ext.atomic.rkey = wr->rkey;
	f->spec.ext.atomic.swap_add = wr->swap_add;
	f->spec.ext.atomic.compare = wr->compare;
}

/* AckReq on every Last/Only (and READ, atomic) and at least every ackreq_every packets. */
static bool wants_ack(struct rt_qp *qp, uint8_t opcode)
{
	struct requester *r = &qp->req;
	const struct rt_opcode_info *info = rt_opcode_info(opcode);
	bool ends = info->position == RT_POS_LAST || info->position == RT_POS_ONLY || info->position == RT_POS_NONE;
	r->pkts_since_ackreq++;
	if (ends || (qp->cfg.ackreq_every && r->pkts_since_ackreq >= qp->cfg.ackreq_every)) {
		r->pkts_since_ackreq = 0;
		return true;
	}
	return false;
}

/* New PSNs wait for room in the window, and a new READ or atomic for max_rd_atomic; a resend does not. */
static bool room_for(const struct rt_qp *qp, const struct wqe *w, uint32_t psn, bool rd_atomic)
{
	const struct requester *r = &qp->req;
	if (!reliable(qp) || psn_was_sent(r, psn))
		return true;
	uint32_t in_flight = (uint32_t)rt_psn_diff(r->max_sent, r->una);
	if (in_flight >= qp->cfg.window)
		return false;
	return w->started || !rd_atomic || r->rd_atomic_out < qp->cfg.max_rd_atomic;
}

/* True when the WQE at idx is the first after a READ of several responses that took the PSNs just before psn. */
static bool follows_long_read(const struct requester *r, uint32_t idx, uint32_t psn)
{
	const struct wqe *prev = WQE(r, idx - 1);
	return prev->started && prev->wr.opcode == RT_WR_READ && prev->npkts > 1 &&
	       rt_psn_add(prev->first_psn, (int32_t)prev->npkts) == psn;
}

/*
 * The WQE's first transmission gives it its PSNs, from psn. Returns the
 * misbehaviour that moved them: skip-psn (one on), psn-in-read (back into
 * the READ before it, to the READ's PSN + 1), or RT_BUG_NONE.
 */
static enum rt_qp_bug start_wqe(struct rt_qp *qp, struct wqe *w, uint32_t psn, bool rd_atomic)
{
	struct requester *r = &qp->req;
	enum rt_qp_bug bug = RT_BUG_NONE;
	if (reliable(qp) && qp_bug_now(qp, RT_BUG_SKIP_PSN)) {
		psn = rt_psn_add(psn, 1);
		bug = RT_BUG_SKIP_PSN;
	} else if (reliable(qp) && follows_long_read(r, r->cur, psn) && qp_bug_now(qp, RT_BUG_PSN_IN_READ)) {
		psn = rt_psn_add(WQE(r, r->cur - 1)->first_psn, 1);
		bug = RT_BUG_PSN_IN_READ;
	}
	w->started = true;
	w->first_psn = psn;
	w->npkts = qp->cfg.transport == RT_TRANSPORT_UD ? 1 : wqe_packets(qp, &w->wr);
	r->next_new_psn = rt_psn_add(psn, (int32_t)w->npkts);
	if (rd_atomic)
		r->rd_atomic_out++;
	return bug;
}

/* Moves the cursor past the packet just sent at psn: a READ request stands for all its responses' PSNs. */
static void advance_cursor(struct rt_qp *qp, struct wqe *w, uint32_t psn, bool rd_atomic)
{
	struct requester *r = &qp->req;
	uint32_t span = rd_atomic ? w->npkts - r->cur_pkt : 1;
	uint32_t end = rt_psn_add(psn, (int32_t)span);
	if (!r->any_sent || rt_psn_diff(end, r->max_sent) > 0)
		r->max_sent = end;
	r->any_sent = true;
	if (rd_atomic || ++r->cur_pkt == w->npkts) {
		r->cur++;
		r->cur_pkt = 0;
		/* Unreliable services complete a message once it is on the wire. */
		if (!reliable(qp)) {
			w->acked = true;
			complete_head(qp);
		}
	}
}

bool req_next(struct rt_qp *qp, int64_t now, struct qp_frame *f)
{
	struct requester *r = &qp->req;
	if (qp->state == RT_QPS_ERROR || r->rnr_wait || r->cur == r->tail)
		return false;
	struct wqe *w = WQE(r, r->cur);
	bool rd_atomic = is_rd_atomic(w->wr.opcode);
	uint32_t psn = cursor_psn(r);
	if (!room_for(qp, w, psn, rd_atomic))
		return false;
	enum rt_qp_bug moved = RT_BUG_NONE;
	bool resend = w->started && psn_was_sent(r, psn);
	if (!w->started) {
		moved = start_wqe(qp, w, psn, rd_atomic);
		psn = w->first_psn;
	}
	uint32_t idx = r->cur_pkt;
	if (rd_atomic)
		build_rd_atomic(qp, w, idx, psn, f);
	else
		build_message_packet(qp, w, idx, psn, resend, f);
	if (moved != RT_BUG_NONE)
		f->bug = moved;
	if (r->mark != RT_BUG_NONE) {
		f->bug = r->mark;
		r->mark = RT_BUG_NONE;
	}
	if (reliable(qp))
		f->spec.bth.ack_req = wants_ack(qp, f->spec.bth.opcode);
	advance_cursor(qp, w, psn, rd_atomic);
	r->last_activity = now;
	qp->stats.requests_sent++;
	if (resend)
		qp->stats.retransmissions++;
	return true;
}

static bool outstanding(const struct rt_qp *qp)
{
	const struct requester *r = &qp->req;
	return reliable(qp) && r->head != r->tail && WQE(r, r->head)->started;
}

int64_t req_deadline(const struct rt_qp *qp)
{
	const struct requester *r = &qp->req;
	if (qp->state == RT_QPS_ERROR)
		return QP_NO_DEADLINE;
	if (r->rnr_wait)
		return r->rnr_until;
	int64_t t = rt_local_ack_timeout_ns(qp->cfg.timeout);
	if (!t || !outstanding(qp))
		return QP_NO_DEADLINE;
	return r->last_activity + t;
}

void req_advance(struct rt_qp *qp, int64_t now)
{
	struct requester *r = &qp->req;
	if (qp->state == RT_QPS_ERROR)
		return;
	if (r->rnr_wait) {
		if (now >= r->rnr_until) {
			r->rnr_wait = false;
			r->last_activity = now;
		}
		return;
	}
	int64_t t = rt_local_ack_timeout_ns(qp->cfg.timeout);
	if (!t || !outstanding(qp) || now < r->last_activity + t)
		return;
	/* Local ACK timeout: resend from the oldest unacknowledged PSN. */
	qp->stats.timeouts++;
	r->last_activity = now;
	retry_or_fail(qp, r->una);
}

bool req_idle(const struct rt_qp *qp)
{
	return qp->req.head == qp->req.tail;
}
