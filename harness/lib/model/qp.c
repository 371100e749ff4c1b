/* SPDX-License-Identifier: MIT */
/*
 * A model QP: addressing, memory, completion queue, and the dispatch of
 * frames between the wire and the two state machines (requester, responder).
 */
#include <stdlib.h>
#include <string.h>

#include "qp.h"
#include "rocetest/check.h"
#include "rocetest/icrc.h"

/* DCQCN's notification point sends at most one CNP per QP in this interval. */
#define CNP_INTERVAL_NS 50000

static int validate(const struct rt_qp_config *c, struct rt_error *err)
{
	if (c->transport != RT_TRANSPORT_RC && c->transport != RT_TRANSPORT_UC && c->transport != RT_TRANSPORT_UD) {
		rt_error_set(err, "transport %u: the model speaks RC, UC and UD", c->transport);
		return -1;
	}
	if (c->ip_version != 4 && c->ip_version != 6) {
		rt_error_set(err, "IP version %u: 4 or 6", c->ip_version);
		return -1;
	}
	if (c->roce_version > 2) {
		rt_error_set(err, "RoCE version %u: 1 or 2", c->roce_version);
		return -1;
	}
	if (!rt_is_pmtu(c->pmtu)) {
		rt_error_set(err, "PMTU %u: one of 256, 512, 1024, 2048, 4096", c->pmtu);
		return -1;
	}
	if (c->qpn < 2 || c->qpn > 0xFFFFFF || c->peer_qpn < 2 || c->peer_qpn > 0xFFFFFF) {
		rt_error_set(err, "QPN 0x%x / peer QPN 0x%x: 24-bit and not 0 or 1", c->qpn, c->peer_qpn);
		return -1;
	}
	if (c->sq_psn > 0xFFFFFF || c->rq_psn > 0xFFFFFF) {
		rt_error_set(err, "PSN 0x%x / 0x%x: 24-bit", c->sq_psn, c->rq_psn);
		return -1;
	}
	if (c->retry_cnt > 7 || c->rnr_retry > 7 || c->timeout > 31 || c->min_rnr_timer > 31 || c->ack_credits > 31) {
		rt_error_set(err, "retry_cnt %u, rnr_retry %u (0..7), timeout %u, rnr_timer %u, credits %u (0..31)",
			     c->retry_cnt, c->rnr_retry, c->timeout, c->min_rnr_timer, c->ack_credits);
		return -1;
	}
	if (!c->window || !c->max_rd_atomic || !c->ack_every || !c->sq_depth || !c->rq_depth || !c->recv_size ||
	    !c->mem_size) {
		rt_error_set(err, "window, max_rd_atomic, ack_every, sq_depth, rq_depth, recv_size and memory must be >= 1");
		return -1;
	}
	if ((uint64_t)c->rq_depth * c->recv_size > (1ull << 31) || c->mem_size > (1u << 31)) {
		rt_error_set(err, "memory %u and receive ring %u x %u: at most 2 GiB each", c->mem_size, c->rq_depth,
			     c->recv_size);
		return -1;
	}
	return 0;
}

struct rt_qp *rt_qp_new(const struct rt_qp_config *cfg, struct rt_error *err)
{
	if (validate(cfg, err))
		return NULL;
	struct rt_qp *qp = calloc(1, sizeof *qp);
	if (!qp) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	qp->cfg = *cfg;
	qp->state = RT_QPS_RTS;
	/* Completions: every send and receive WQE can be completed before anyone polls. */
	qp->cq_depth = cfg->sq_depth + cfg->rq_depth;
	qp->mem = calloc(1, cfg->mem_size);
	qp->recv_mem = calloc(cfg->rq_depth, cfg->recv_size);
	qp->scratch = calloc(1, cfg->pmtu);
	qp->cq = calloc(qp->cq_depth, sizeof *qp->cq);
	if (!qp->mem || !qp->recv_mem || !qp->scratch || !qp->cq) {
		rt_error_set(err, "out of memory for the QP's %u + %u x %u bytes", cfg->mem_size, cfg->rq_depth,
			     cfg->recv_size);
		rt_qp_free(qp);
		return NULL;
	}
	if (req_init(qp, err) || resp_init(qp, err)) {
		rt_qp_free(qp);
		return NULL;
	}
	return qp;
}

void rt_qp_free(struct rt_qp *qp)
{
	if (!qp)
		return;
	req_free(qp);
	resp_free(qp);
	free(qp->mem);
	free(qp->recv_mem);
	free(qp->scratch);
	free(qp->cq);
	free(qp);
}

const struct rt_qp_config *rt_qp_config(const struct rt_qp *qp)
{
	return &qp->cfg;
}

int rt_qp_post_send(struct rt_qp *qp, const struct rt_send_wr *wr, struct rt_error *err)
{
	return req_post(qp, wr, err);
}

int rt_qp_post_recv(struct rt_qp *qp, const struct rt_recv_wr *wr, struct rt_error *err)
{
	return resp_post_recv(qp, wr, err);
}

void rt_qp_request_cnp(struct rt_qp *qp)
{
	qp->cnp_requested = true;
}

uint8_t qp_opcode(const struct rt_qp *qp, uint8_t rc_opcode)
{
	return qp->cfg.transport == RT_TRANSPORT_UC ? RT_OP_UC(rc_opcode) : rc_opcode;
}

/* The GID of an address: an IPv6 address itself, an IPv4 one mapped (::ffff:a.b.c.d, wire-facts.md). */
static void gid_of(const uint8_t ip[16], uint8_t ip_version, uint8_t gid[16])
{
	if (ip_version == 6) {
		memcpy(gid, ip, 16);
		return;
	}
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xFF;
	memcpy(gid + 12, ip, 4);
}

/* Everything a frame from this QP to its peer has in common. */
void qp_frame_init(const struct rt_qp *qp, struct qp_frame *f, uint8_t opcode, uint32_t psn)
{
	const struct rt_qp_config *c = &qp->cfg;
	struct rt_build_spec *s = &f->spec;
	rt_build_spec_init(s);
	f->bug = RT_BUG_NONE;
	memcpy(s->dst_mac, c->peer_mac, 6);
	memcpy(s->src_mac, c->mac, 6);
	if (c->vlan) {
		s->vlan_count = 1;
		s->vlan_tci[0] = c->vlan_tci;
	}
	s->ip_version = c->ip_version;
	if (c->roce_version == 1) {
		/* The GRH carries GIDs where RoCE v2 has IP addresses. */
		s->roce_version = 1;
		gid_of(c->ip, c->ip_version, s->src_ip);
		gid_of(c->peer_ip, c->ip_version, s->dst_ip);
	} else {
		memcpy(s->src_ip, c->ip, 16);
		memcpy(s->dst_ip, c->peer_ip, 16);
	}
	s->tos = c->tos;
	s->ip_id = qp->ip_id;
	s->ip_df = true;
	s->udp_sport = c->udp_sport;
	s->bth.opcode = opcode;
	s->bth.pkey = 0xFFFF;
	s->bth.dest_qp = c->peer_qpn;
	s->bth.psn = psn & 0xFFFFFF;
}

/* True once: at the bug_at-th opportunity for the configured misbehaviour. */
bool qp_bug_now(struct rt_qp *qp, enum rt_qp_bug bug)
{
	if (qp->cfg.bug != bug || qp->bug_fired)
		return false;
	if (++qp->bug_seen < qp->cfg.bug_at)
		return false;
	qp->bug_fired = true;
	return true;
}

/* Doubles the completion ring, keeping its order; completions come per work request, not per packet. */
static bool cq_grow(struct rt_qp *qp)
{
	uint32_t n = qp->cq_tail - qp->cq_head;
	struct rt_wc *cq = malloc(2 * (size_t)qp->cq_depth * sizeof *cq);
	if (!cq)
		return false;
	for (uint32_t i = 0; i < n; i++)
		cq[i] = qp->cq[(qp->cq_head + i) % qp->cq_depth];
	free(qp->cq);
	qp->cq = cq;
	qp->cq_depth *= 2;
	qp->cq_head = 0;
	qp->cq_tail = n;
	return true;
}

void qp_complete(struct rt_qp *qp, const struct rt_wc *wc)
{
	/* Completions wait until polled, however many: a run may poll only at its end. */
	if (qp->cq_tail - qp->cq_head == qp->cq_depth && !cq_grow(qp)) {
		qp->stats.cq_overflow++;
		return;
	}
	struct rt_wc *slot = &qp->cq[qp->cq_tail++ % qp->cq_depth];
	*slot = *wc;
	slot->time_ns = qp->now;
}

void qp_enter_error(struct rt_qp *qp)
{
	if (qp->state == RT_QPS_ERROR)
		return;
	qp->state = RT_QPS_ERROR;
	req_flush(qp);
	resp_flush(qp);
}

/*
 * A RoCE device holds a GID of each type for its address, so either version
 * reaches the QP: RoCE v2 by IP address and UDP port, RoCE v1 by the GRH's
 * destination GID.
 */
static bool addressed_to_me(const struct rt_qp *qp, const struct rt_packet *p)
{
	if (p->bth.dest_qp != qp->cfg.qpn)
		return false;
	if (p->roce_version == 1) {
		uint8_t gid[16];
		gid_of(qp->cfg.ip, qp->cfg.ip_version, gid);
		return !memcmp(p->dst_ip, gid, sizeof gid);
	}
	size_t ip_len = qp->cfg.ip_version == 4 ? 4 : 16;
	return p->ip_version == qp->cfg.ip_version && !memcmp(p->dst_ip, qp->cfg.ip, ip_len) &&
	       p->udp_dport == RT_ROCEV2_UDP_PORT;
}

void rt_qp_receive(struct rt_qp *qp, int64_t now, const uint8_t *frame, uint32_t len)
{
	rt_qp_receive_frame(qp, now, frame, len, false);
}

void rt_qp_receive_frame(struct rt_qp *qp, int64_t now, const uint8_t *frame, uint32_t len, bool icrc_known_good)
{
	struct rt_packet p;
	qp->now = now;
	qp->stats.frames_received++;
	/* What a channel adapter drops silently: not RoCE, not for this QP, bad ICRC, TVer not 0. */
	if (rt_parse(&p, RT_LINK_ETHERNET, frame, len, len) != RT_PARSE_ROCE || p.truncated || !p.op ||
	    !p.ext_complete || !addressed_to_me(qp, &p) || (!icrc_known_good && rt_icrc_check(&p) != RT_ICRC_OK) ||
	    p.bth.tver != 0) {
		qp->stats.dropped++;
		return;
	}
	if (p.op->family == RT_FAMILY_CNP) {
		qp->stats.cnps_received++;
		return;
	}
	/* ECN Congestion Experienced: the notification point answers with a CNP. */
	if ((p.tos & 3) == 3 && qp->cfg.send_cnp && now - qp->resp.last_cnp >= CNP_INTERVAL_NS)
		qp->resp.cnp_owed = true;
	if (p.op->transport != qp->cfg.transport) {
		qp->stats.dropped++;
		return;
	}
	if (p.op->response)
		req_receive(qp, now, &p);
	else
		resp_receive(qp, now, &p);
}

static bool cnp_next(struct rt_qp *qp, int64_t now, struct qp_frame *f)
{
	if (!qp->cnp_requested && !qp->resp.cnp_owed)
		return false;
	qp->cnp_requested = false;
	qp->resp.cnp_owed = false;
	qp->resp.last_cnp = now;
	qp_frame_init(qp, f, RT_OPCODE_CNP, 0);
	f->spec.bth.becn = true;
	/* The 16 reserved bytes of a CNP are zero: the builder writes zeros for a NULL payload. */
	f->spec.payload_len = RT_CNP_RESERVED_BYTES;
	if (qp_bug_now(qp, RT_BUG_BAD_CNP)) {
		f->spec.bth.psn = 1;
		f->bug = RT_BUG_BAD_CNP;
	}
	qp->stats.cnps_sent++;
	return true;
}

size_t rt_qp_next_frame(struct rt_qp *qp, int64_t now, uint8_t *buf, size_t cap, enum rt_qp_bug *bug)
{
	struct qp_frame f;
	qp->now = now;
	/* Congestion notices first, then what the responder owes, then new or resent requests. */
	if (!cnp_next(qp, now, &f) && !resp_next(qp, now, &f) && !req_next(qp, now, &f))
		return 0;
	if (qp_bug_now(qp, RT_BUG_BAD_ICRC)) {
		f.spec.corrupt_icrc = true;
		f.bug = RT_BUG_BAD_ICRC;
	} else if (qp_bug_now(qp, RT_BUG_TVER)) {
		f.spec.bth.tver = 1;
		f.bug = RT_BUG_TVER;
	}
	size_t n = rt_build(&f.spec, buf, cap);
	if (n) {
		qp->ip_id++;
		qp->stats.frames_sent++;
	}
	if (bug)
		*bug = f.bug;
	return n;
}

int64_t rt_qp_next_deadline(const struct rt_qp *qp)
{
	int64_t a = req_deadline(qp), b = resp_deadline(qp);
	return a < b ? a : b;
}

void rt_qp_advance(struct rt_qp *qp, int64_t now)
{
	qp->now = now;
	req_advance(qp, now);
	resp_advance(qp, now);
}

bool rt_qp_idle(const struct rt_qp *qp)
{
	return !qp->cnp_requested && !qp->resp.cnp_owed && req_idle(qp) && resp_idle(qp);
}

bool rt_qp_poll_cq(struct rt_qp *qp, struct rt_wc *wc)
{
	if (qp->cq_head == qp->cq_tail)
		return false;
	*wc = qp->cq[qp->cq_head++ % qp->cq_depth];
	return true;
}

enum rt_qp_state rt_qp_state(const struct rt_qp *qp)
{
	return qp->state;
}

const struct rt_qp_stats *rt_qp_stats(const struct rt_qp *qp)
{
	return &qp->stats;
}

uint8_t *rt_qp_memory(struct rt_qp *qp)
{
	return qp->mem;
}

uint8_t *rt_qp_recv_memory(struct rt_qp *qp)
{
	return qp->recv_mem;
}

size_t rt_qp_max_frame(const struct rt_qp *qp)
{
	/* Ethernet + one tag, IPv6, UDP, BTH, the largest header set, PMTU, pad, ICRC. */
	return 14 + 4 + 40 + 8 + RT_BTH_BYTES + RT_ATOMICETH_BYTES + RT_DETH_BYTES + qp->cfg.pmtu + 3 +
	       RT_ICRC_BYTES;
}
