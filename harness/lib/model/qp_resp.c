/* SPDX-License-Identifier: MIT */
/*
 * The responder: takes requests in PSN order, places their data, and owes
 * answers (ACK, NAK, RNR NAK, READ responses, atomic ACKs) which it sends in
 * the order it incurred them.
 *
 * Per request, by its PSN against the expected PSN e:
 *   ahead     one NAK sequence error carrying e, then silence until e comes;
 *   behind    a duplicate: SEND/WRITE re-ACKed with e - 1, a READ answered
 *             again from its PSN, an atomic answered from the saved result;
 *   expected  checked (opcode sequence, lengths, R_Key and bounds, a receive
 *             buffer for SENDs), executed, and acknowledged when AckReq asks,
 *             every ack_every requests or after ack_delay_ns.
 * A request it cannot execute gets NAK invalid request or remote access error
 * and the QP enters the error state; a SEND without a receive buffer gets an
 * RNR NAK and is not consumed.
 */
#include <stdlib.h>
#include <string.h>

#include "qp.h"
#include "rocetest/check.h"

#define SYNDROME_ACK(credits) ((uint8_t)(credits))
#define SYNDROME_RNR(timer) ((uint8_t)(0x20 | (timer)))
#define SYNDROME_NAK(code) ((uint8_t)(0x60 | (code)))
enum nak_code { NAK_PSN_SEQUENCE = 0, NAK_INVALID_REQUEST = 1, NAK_REMOTE_ACCESS = 2, NAK_REMOTE_OPERATIONAL = 3 };

int resp_init(struct rt_qp *qp, struct rt_error *err)
{
	struct responder *s = &qp->resp;
	s->rq_ids = calloc(qp->cfg.rq_depth, sizeof *s->rq_ids);
	if (!s->rq_ids) {
		rt_error_set(err, "out of memory for a receive queue of %u", qp->cfg.rq_depth);
		return -1;
	}
	s->epsn = qp->cfg.rq_psn;
	s->msg_family = RT_FAMILY_OTHER;
	s->ack_deadline = QP_NO_DEADLINE;
	s->last_cnp = INT64_MIN / 2;
	return 0;
}

void resp_free(struct rt_qp *qp)
{
	free(qp->resp.rq_ids);
}

int resp_post_recv(struct rt_qp *qp, const struct rt_recv_wr *wr, struct rt_error *err)
{
	struct responder *s = &qp->resp;
	if (qp->state == RT_QPS_ERROR) {
		rt_error_set(err, "receive %llu: the QP is in the error state", (unsigned long long)wr->wr_id);
		return -1;
	}
	if (s->rq_tail - s->rq_head == qp->cfg.rq_depth) {
		rt_error_set(err, "receive %llu: the receive queue holds %u buffers", (unsigned long long)wr->wr_id,
			     qp->cfg.rq_depth);
		return -1;
	}
	s->rq_ids[s->rq_tail++ % qp->cfg.rq_depth] = wr->wr_id;
	return 0;
}

void resp_flush(struct rt_qp *qp)
{
	struct responder *s = &qp->resp;
	/* A buffer the open message was filling is flushed with the rest. */
	if (s->recv_taken)
		s->rq_head--;
	s->recv_taken = false;
	while (s->rq_head != s->rq_tail) {
		struct rt_wc wc = { .wr_id = s->rq_ids[s->rq_head++ % qp->cfg.rq_depth], .status = RT_WC_FLUSHED,
				    .opcode = RT_WR_RECV };
		qp_complete(qp, &wc);
	}
	s->ack_pending = 0;
	s->ack_deadline = QP_NO_DEADLINE;
}

static struct resp_item *owe(struct rt_qp *qp, enum resp_item_kind kind, uint32_t psn)
{
	struct responder *s = &qp->resp;
	if (s->q_tail - s->q_head == RESP_QUEUE) {
		/* The requester's max_rd_atomic and window bound this; a full queue means a flood: drop. */
		qp->stats.dropped++;
		return NULL;
	}
	struct resp_item *it = &s->q[s->q_tail++ % RESP_QUEUE];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	it->psn = psn & 0xFFFFFF;
	it->msn = s->msn;
	it->bug = s->mark;
	s->mark = RT_BUG_NONE;
	return it;
}

static struct resp_item *owe_ack(struct rt_qp *qp, uint8_t syndrome, uint32_t psn)
{
	struct resp_item *it = owe(qp, RESP_ACK, psn);
	if (it)
		it->syndrome = syndrome;
	return it;
}

/* An ACK for everything received so far replaces the ones coalescing was holding back. */
static void flush_ack(struct rt_qp *qp)
{
	struct responder *s = &qp->resp;
	if (!s->ack_pending)
		return;
	s->ack_pending = 0;
	s->ack_deadline = QP_NO_DEADLINE;
	owe_ack(qp, SYNDROME_ACK(qp->cfg.ack_credits), rt_psn_add(s->epsn, -1));
}

/* A request the responder cannot execute: NAK it and stop. */
static void fatal(struct rt_qp *qp, enum nak_code code, uint32_t psn)
{
	flush_ack(qp);
	owe_ack(qp, SYNDROME_NAK(code), psn);
	qp->stats.naks_sent++;
	/* The NAK still goes out: the error state flushes work, not what the responder owes. */
	qp_enter_error(qp);
}

static bool in_memory(const struct rt_qp *qp, uint64_t va, uint32_t rkey, uint64_t len)
{
	const struct rt_qp_config *c = &qp->cfg;
	return rkey == c->rkey && va >= c->mem_va && va - c->mem_va <= c->mem_size && len <= c->mem_size - (va - c->mem_va);
}

static void duplicate(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	qp->stats.duplicates++;
	switch (p->op->family) {
	case RT_FAMILY_READ_REQUEST: {
		/* Answer again from the duplicate's PSN, for what its RETH asks (memory is unchanged). */
		const struct rt_reth *reth = &p->ext.reth;
		if (!in_memory(qp, reth->va, reth->rkey, reth->dma_len))
			return;
		struct resp_item *it = owe(qp, RESP_READ, p->bth.psn);
		if (!it)
			return;
		it->va = reth->va;
		it->len = reth->dma_len;
		it->npkts = reth->dma_len ? (reth->dma_len + qp->cfg.pmtu - 1) / qp->cfg.pmtu : 1;
		return;
	}
	case RT_FAMILY_ATOMIC:
		for (unsigned i = 0; i < ATOMIC_HISTORY; i++)
			if (s->atomics[i].valid && s->atomics[i].psn == p->bth.psn) {
				struct resp_item *it = owe(qp, RESP_ATOMIC, p->bth.psn);
				if (it)
					it->orig = s->atomics[i].orig;
				return;
			}
		return;
	default:
		/* SEND or WRITE: not executed again; the ACK says how far the responder is. */
		owe_ack(qp, SYNDROME_ACK(qp->cfg.ack_credits), rt_psn_add(s->epsn, -1));
	}
}

/* Ahead of the expected PSN: one NAK sequence error, then quiet until the expected PSN comes. */
static void ahead(struct rt_qp *qp)
{
	struct responder *s = &qp->resp;
	qp->stats.dropped++;
	bool repeat = s->nak_sent && qp_bug_now(qp, RT_BUG_NAK_REPEAT);
	if (s->nak_sent && !repeat)
		return;
	flush_ack(qp);
	struct resp_item *it = owe_ack(qp, SYNDROME_NAK(NAK_PSN_SEQUENCE), s->epsn);
	if (it && repeat)
		it->bug = RT_BUG_NAK_REPEAT;
	qp->stats.naks_sent++;
	s->nak_sent = true;
}

/* Takes the next receive buffer for a SEND (or the immediate of a WRITE); false: none posted. */
static bool take_recv(struct rt_qp *qp)
{
	struct responder *s = &qp->resp;
	if (s->recv_taken)
		return true;
	if (s->rq_head == s->rq_tail)
		return false;
	s->recv_taken = true;
	s->recv_slot = s->rq_head++ % qp->cfg.rq_depth;
	return true;
}

static void complete_recv(struct rt_qp *qp, const struct rt_packet *p, enum rt_wc_status status)
{
	struct responder *s = &qp->resp;
	struct rt_wc wc = {
		.wr_id = s->rq_ids[s->recv_slot],
		.status = status,
		.opcode = RT_WR_RECV,
		.byte_len = p->op->family == RT_FAMILY_SEND ? s->msg_bytes : 0,
		.recv_offset = (uint64_t)s->recv_slot * qp->cfg.recv_size,
		.with_imm = p->op->immediate,
		.imm = p->ext.imm,
		.with_inv = p->op->invalidate,
		.inv_rkey = p->ext.ieth_rkey,
	};
	qp_complete(qp, &wc);
	s->recv_taken = false;
}

/* Places a SEND's payload in its receive buffer; false if it does not fit. */
static bool place_send(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	if ((uint64_t)s->msg_bytes + p->payload_len > qp->cfg.recv_size)
		return false;
	memcpy(qp->recv_mem + (uint64_t)s->recv_slot * qp->cfg.recv_size + s->msg_bytes, p->frame + p->payload_off,
	       p->payload_len);
	return true;
}

static bool place_write(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	if ((uint64_t)s->msg_bytes + p->payload_len > s->write_len)
		return false;
	memcpy(qp->mem + (s->write_va - qp->cfg.mem_va) + s->msg_bytes, p->frame + p->payload_off, p->payload_len);
	return true;
}

/* A broken message: UC and UD drop it (the next First/Only starts afresh); RC NAKs it and stops. */
static bool reject_message(struct rt_qp *qp, const struct rt_packet *p)
{
	if (qp->cfg.transport != RT_TRANSPORT_RC)
		qp->resp.msg_family = RT_FAMILY_OTHER;
	else
		fatal(qp, NAK_INVALID_REQUEST, p->bth.psn);
	return false;
}

/*
 * Opcode sequence: a message opens with First/Only and goes on with
 * Middle/Last of its family; and a payload length its position allows.
 */
static bool in_sequence(const struct rt_qp *qp, const struct rt_packet *p, bool starts)
{
	const struct responder *s = &qp->resp;
	return starts == (s->msg_family == RT_FAMILY_OTHER) && (starts || p->op->family == s->msg_family) &&
	       rt_payload_fits(p, qp->cfg.pmtu);
}

/* A WRITE's First/Only: its RETH must name memory the QP has. Returns false if refused. */
static bool open_write(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	const struct rt_reth *reth = &p->ext.reth;
	if (!in_memory(qp, reth->va, reth->rkey, reth->dma_len) || reth->dma_len > (1u << 31)) {
		if (qp->cfg.transport == RT_TRANSPORT_RC)
			fatal(qp, NAK_REMOTE_ACCESS, p->bth.psn);
		return false;
	}
	s->write_va = reth->va;
	s->write_len = reth->dma_len;
	return true;
}

/* take_recv for a message; without a buffer, RC owes an RNR NAK. Returns false if refused. */
static bool recv_for_message(struct rt_qp *qp, const struct rt_packet *p)
{
	if (take_recv(qp))
		return true;
	if (qp->cfg.transport != RT_TRANSPORT_RC)
		return false;
	flush_ack(qp);
	owe_ack(qp, SYNDROME_RNR(qp->cfg.min_rnr_timer), p->bth.psn);
	qp->stats.rnr_naks_sent++;
	/* Later requests in flight are dropped quietly until this PSN comes again. */
	qp->resp.nak_sent = true;
	return false;
}

/* The message's last packet is placed. A WRITE must have filled exactly what its RETH announced. */
static bool finish_message(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	if (p->op->family == RT_FAMILY_WRITE && s->msg_bytes != s->write_len)
		return reject_message(qp, p);
	if (s->recv_taken)
		complete_recv(qp, p, RT_WC_SUCCESS);
	s->msg_family = RT_FAMILY_OTHER;
	s->msn = (s->msn + 1) & 0xFFFFFF;
	return true;
}

/* A SEND or WRITE packet in order. Returns false if it was refused (NAK owed, nothing consumed). */
static bool message_packet(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	const struct rt_opcode_info *op = p->op;
	bool starts = op->position == RT_POS_FIRST || op->position == RT_POS_ONLY;
	bool ends = op->position == RT_POS_LAST || op->position == RT_POS_ONLY;

	if (!in_sequence(qp, p, starts))
		return reject_message(qp, p);
	if (starts && qp->cfg.transport == RT_TRANSPORT_RC && qp->cfg.op_error_msg &&
	    ((s->msn + 1) & 0xFFFFFF) == qp->cfg.op_error_msg) {
		fatal(qp, NAK_REMOTE_OPERATIONAL, p->bth.psn);
		return false;
	}
	if (starts && op->family == RT_FAMILY_WRITE && !open_write(qp, p))
		return false;
	/* A SEND, and the immediate of a WRITE, need a receive buffer. */
	bool needs_recv = (op->family == RT_FAMILY_SEND && starts) || (op->family == RT_FAMILY_WRITE && op->immediate);
	if (needs_recv && !recv_for_message(qp, p))
		return false;
	if (starts) {
		s->msg_family = op->family;
		s->msg_bytes = 0;
	}
	bool fits = op->family == RT_FAMILY_SEND ? place_send(qp, p) : place_write(qp, p);
	if (!fits) {
		if (qp->cfg.transport == RT_TRANSPORT_RC && s->recv_taken && op->family == RT_FAMILY_SEND)
			complete_recv(qp, p, RT_WC_LOCAL_LENGTH_ERROR);
		return reject_message(qp, p);
	}
	s->msg_bytes += p->payload_len;
	qp->stats.bytes_placed += p->payload_len;
	return ends ? finish_message(qp, p) : true;
}

static bool read_request(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	const struct rt_reth *reth = &p->ext.reth;
	if (s->msg_family != RT_FAMILY_OTHER) {
		fatal(qp, NAK_INVALID_REQUEST, p->bth.psn);
		return false;
	}
	if (!in_memory(qp, reth->va, reth->rkey, reth->dma_len) || reth->dma_len > (1u << 31)) {
		fatal(qp, NAK_REMOTE_ACCESS, p->bth.psn);
		return false;
	}
	/* Responses carry PSNs after the ones coalescing holds back: acknowledge those first. */
	flush_ack(qp);
	s->msn = (s->msn + 1) & 0xFFFFFF;
	struct resp_item *it = owe(qp, RESP_READ, p->bth.psn);
	if (!it)
		return false;
	it->va = reth->va;
	it->len = reth->dma_len;
	it->npkts = reth->dma_len ? (reth->dma_len + qp->cfg.pmtu - 1) / qp->cfg.pmtu : 1;
	s->epsn = rt_psn_add(s->epsn, (int32_t)it->npkts - 1);	/* the caller adds the last 1 */
	return true;
}

static uint64_t load_le64(const uint8_t *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

static void store_le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static bool atomic_request(struct rt_qp *qp, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	const struct rt_atomiceth *a = &p->ext.atomic;
	if (s->msg_family != RT_FAMILY_OTHER || (a->va & 7)) {
		fatal(qp, NAK_INVALID_REQUEST, p->bth.psn);
		return false;
	}
	if (!in_memory(qp, a->va, a->rkey, 8)) {
		fatal(qp, NAK_REMOTE_ACCESS, p->bth.psn);
		return false;
	}
	flush_ack(qp);
	/* Memory holds 64-bit values in the host's order (little-endian), as on the hosts RoCE NICs sit in. */
	uint8_t *m = qp->mem + (a->va - qp->cfg.mem_va);
	uint64_t orig = load_le64(m);
	if (p->bth.opcode == RT_OP_FETCH_ADD)
		store_le64(m, orig + a->swap_add);
	else if (orig == a->compare)
		store_le64(m, a->swap_add);
	s->atomics[s->atomic_next].valid = true;
	s->atomics[s->atomic_next].psn = p->bth.psn;
	s->atomics[s->atomic_next].orig = orig;
	s->atomic_next = (s->atomic_next + 1) % ATOMIC_HISTORY;
	s->msn = (s->msn + 1) & 0xFFFFFF;
	struct resp_item *it = owe(qp, RESP_ATOMIC, p->bth.psn);
	if (it)
		it->orig = orig;
	return true;
}

/* AckReq asks for an answer: now, or once ack_every of them are held or ack_delay_ns has passed. */
static void want_ack(struct rt_qp *qp, int64_t now)
{
	struct responder *s = &qp->resp;
	if (++s->ack_pending >= qp->cfg.ack_every) {
		flush_ack(qp);
		return;
	}
	if (s->ack_deadline == QP_NO_DEADLINE)
		s->ack_deadline = now + qp->cfg.ack_delay_ns;
}

void resp_receive(struct rt_qp *qp, int64_t now, const struct rt_packet *p)
{
	struct responder *s = &qp->resp;
	if (qp->state == RT_QPS_ERROR) {
		qp->stats.dropped++;
		return;
	}
	if (qp->cfg.transport == RT_TRANSPORT_UD) {
		/* UD: one packet a message, no PSN order, no answers; no buffer means the message is lost. */
		s->msg_family = RT_FAMILY_OTHER;
		if (p->ext.deth.qkey != qp->cfg.qkey || !take_recv(qp) || !message_packet(qp, p))
			qp->stats.dropped++;
		return;
	}
	int32_t d = rt_psn_diff(p->bth.psn, s->epsn);
	if (qp->cfg.transport == RT_TRANSPORT_UC) {
		/* UC: a gap loses the open message; the next First/Only starts afresh. */
		if (d != 0)
			s->msg_family = RT_FAMILY_OTHER;
		s->epsn = rt_psn_add(p->bth.psn, 1);
		if (!message_packet(qp, p))
			qp->stats.dropped++;
		return;
	}
	if (d > 0) {
		if (!qp_bug_now(qp, RT_BUG_ACCEPT_GAP)) {
			ahead(qp);
			return;
		}
		s->mark = RT_BUG_ACCEPT_GAP;	/* the answer to this request shows it */
	}
	if (d < 0) {
		duplicate(qp, p);
		return;
	}
	s->epsn = p->bth.psn;
	s->nak_sent = false;
	bool accepted;
	switch (p->op->family) {
	case RT_FAMILY_SEND:
	case RT_FAMILY_WRITE:
		accepted = message_packet(qp, p);
		break;
	case RT_FAMILY_READ_REQUEST:
		accepted = read_request(qp, p);
		break;
	case RT_FAMILY_ATOMIC:
		accepted = atomic_request(qp, p);
		break;
	default:
		/* An opcode a requester does not send (UC or UD on an RC QP was filtered before). */
		fatal(qp, NAK_INVALID_REQUEST, p->bth.psn);
		accepted = false;
	}
	if (!accepted)
		return;
	s->epsn = rt_psn_add(s->epsn, 1);
	if (p->bth.ack_req && p->op->family != RT_FAMILY_READ_REQUEST && p->op->family != RT_FAMILY_ATOMIC)
		want_ack(qp, now);
}

static void build_ack(struct rt_qp *qp, struct resp_item *it, struct qp_frame *f)
{
	struct responder *s = &qp->resp;
	uint32_t psn = it->psn, msn = it->msn;
	bool plain_ack = rt_aeth_type(it->syndrome) == RT_AETH_ACK;
	enum rt_qp_bug bug = it->bug;
	if (plain_ack && qp_bug_now(qp, RT_BUG_ACK_AHEAD)) {
		psn = rt_psn_add(psn, 16);
		bug = RT_BUG_ACK_AHEAD;
	} else if (plain_ack && s->last_msn_sent && qp_bug_now(qp, RT_BUG_MSN_BACK)) {
		msn = (s->last_msn_sent - 1) & 0xFFFFFF;
		bug = RT_BUG_MSN_BACK;
	}
	qp_frame_init(qp, f, RT_OP_ACK, psn);
	f->spec.ext.aeth.syndrome = it->syndrome;
	f->spec.ext.aeth.msn = msn;
	if (plain_ack && qp_bug_now(qp, RT_BUG_RESPONSE_ACKREQ)) {
		f->spec.bth.ack_req = true;
		bug = RT_BUG_RESPONSE_ACKREQ;
	}
	f->bug = bug;
	s->last_msn_sent = msn;
	if (plain_ack)
		qp->stats.acks_sent++;
}

/* The next response of a READ: First/Middle/Last or Only, AETH on all but Middle. */
static bool build_read_response(struct rt_qp *qp, struct resp_item *it, struct qp_frame *f)
{
	uint32_t pmtu = qp->cfg.pmtu;
	uint32_t len = it->len < pmtu ? it->len : pmtu;
	uint8_t op;
	if (it->npkts == 1)
		op = RT_OP_READ_RESPONSE_ONLY;
	else if (it->pkt == 0)
		op = RT_OP_READ_RESPONSE_FIRST;
	else if (it->pkt + 1 < it->npkts)
		op = RT_OP_READ_RESPONSE_MIDDLE;
	else
		op = RT_OP_READ_RESPONSE_LAST;
	qp_frame_init(qp, f, op, rt_psn_add(it->psn, (int32_t)it->pkt));
	f->spec.ext.aeth.syndrome = SYNDROME_ACK(qp->cfg.ack_credits);
	f->spec.ext.aeth.msn = it->msn;
	f->spec.payload = qp->mem + (it->va - qp->cfg.mem_va);
	f->spec.payload_len = len;
	it->va += len;
	it->len -= len;
	return ++it->pkt == it->npkts;
}

bool resp_next(struct rt_qp *qp, int64_t now, struct qp_frame *f)
{
	struct responder *s = &qp->resp;
	(void)now;
	if (s->q_head == s->q_tail)
		return false;
	struct resp_item *it = &s->q[s->q_head % RESP_QUEUE];
	bool done = true;
	switch (it->kind) {
	case RESP_ACK:
		build_ack(qp, it, f);
		break;
	case RESP_READ:
		done = build_read_response(qp, it, f);
		break;
	case RESP_ATOMIC:
		qp_frame_init(qp, f, RT_OP_ATOMIC_ACK, it->psn);
		f->spec.ext.aeth.syndrome = SYNDROME_ACK(qp->cfg.ack_credits);
		f->spec.ext.aeth.msn = it->msn;
		f->spec.ext.atomic_ack_orig = it->orig;
		break;
	}
	if (done)
		s->q_head++;
	return true;
}

int64_t resp_deadline(const struct rt_qp *qp)
{
	return qp->resp.ack_deadline;
}

void resp_advance(struct rt_qp *qp, int64_t now)
{
	if (now >= qp->resp.ack_deadline)
		flush_ack(qp);
}

bool resp_idle(const struct rt_qp *qp)
{
	const struct responder *s = &qp->resp;
	return s->q_head == s->q_tail && !s->ack_pending;
}
