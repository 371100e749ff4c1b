/* SPDX-License-Identifier: MIT */
/*
 * The host's side of the CM exchange of cm-frame.md over a datagram
 * transport: each request sent until a reply comes, the reply checked, the
 * requests held to the order the board needs them in.
 */
#include <stdio.h>
#include <string.h>

#include "rocetest/iface.h"
#include "rocetest/peer.h"

void rt_peer_cm_init(struct rt_peer_cm *cm, const struct rt_peer_transport *t, uint32_t board_ip,
		     const struct rt_peer_host *host, unsigned timeout_ms, unsigned attempts)
{
	memset(cm, 0, sizeof *cm);
	cm->t = *t;
	cm->board.ip = board_ip;
	cm->host = *host;
	cm->timeout_ms = timeout_ms;
	cm->attempts = attempts ? attempts : 1;
}

/* The next datagram that is a CM reply from the board to us: 1, 0 on timeout, -1 on error. */
static int await_reply(struct rt_peer_cm *cm, struct rt_cm_msg *rep, struct rt_error *err)
{
	for (;;) {
		uint8_t buf[2 * RT_CM_PAYLOAD_BYTES];
		size_t len;
		uint32_t ip;
		uint16_t port;
		int rc = cm->t.recv(cm->t.ctx, buf, sizeof buf, &len, &ip, &port, cm->timeout_ms, err);
		if (rc <= 0)
			return rc;
		if (len != RT_CM_PAYLOAD_BYTES || ip != cm->board.ip || port != RT_CM_REPLY_PORT) {
			cm->strays++;
			continue;
		}
		rt_cm_decode(buf, rep);
		if (!rep->ack_valid) {
			cm->strays++;	/* a request (our own, looped back), not a reply */
			continue;
		}
		return 1;
	}
}

/* req to the board until a reply comes: ACK, REFUSED (the reply says why), NO_ANSWER or FAILED. */
static enum rt_peer_cm_result transact(struct rt_peer_cm *cm, const struct rt_cm_msg *req, const char *what,
				       struct rt_error *err)
{
	uint8_t p[RT_CM_PAYLOAD_BYTES];
	char ip[16];
	rt_cm_encode(req, p);
	for (unsigned n = 1; n <= cm->attempts; n++) {
		if (cm->t.send(cm->t.ctx, p, err))
			return RT_PEER_CM_FAILED;
		int rc = await_reply(cm, &cm->last_reply, err);
		if (rc < 0)
			return RT_PEER_CM_FAILED;
		if (!rc)
			continue;
		cm->last_attempt = n;
		if (cm->last_reply.ack_type == RT_CM_ACK)
			return RT_PEER_CM_ACK;
		rt_error_set(err, "%s: the board answered %s (%u)", what, rt_cm_ack_name(cm->last_reply.ack_type),
			     cm->last_reply.ack_type);
		return RT_PEER_CM_REFUSED;
	}
	rt_error_set(err, "%s: no reply from %s (UDP port 0x%04x, replies from 0x%04x to 0x%04x) in %u attempts of %u ms",
		     what, rt_format_ipv4(cm->board.ip, ip), RT_CM_UDP_PORT, RT_CM_REPLY_PORT, cm->host.port,
		     cm->attempts, cm->timeout_ms);
	return RT_PEER_CM_NO_ANSWER;
}

static bool in_step(const struct rt_peer_cm *cm, enum rt_peer_step want, const char *what, struct rt_error *err)
{
	if (cm->step == want)
		return true;
	rt_error_set(err, "%s out of order (the exchange is at step %d, %s needs step %d)", what, (int)cm->step, what,
		     (int)want);
	return false;
}

static struct rt_cm_msg base_req(const struct rt_peer_cm *cm, enum rt_cm_req type)
{
	return (struct rt_cm_msg){ .qp_info_valid = true, .req_type = (uint8_t)type, .loc_qpn = cm->board.qpn,
				   .listening_port = cm->host.port };
}

enum rt_peer_cm_result rt_peer_cm_open(struct rt_peer_cm *cm, struct rt_error *err)
{
	if (!in_step(cm, RT_PEER_IDLE, "OPEN_QP", err))
		return RT_PEER_CM_FAILED;
	struct rt_cm_msg req = base_req(cm, RT_CM_OPEN_QP);
	enum rt_peer_cm_result r = transact(cm, &req, "OPEN_QP", err);
	if (r != RT_PEER_CM_ACK)
		return r;
	const struct rt_cm_msg *m = &cm->last_reply;
	if (!m->loc_qpn) {
		rt_error_set(err, "OPEN_QP: the board acknowledged without a QPN (loc_qpn 0)");
		return RT_PEER_CM_REFUSED;
	}
	cm->board.qpn = m->loc_qpn;
	cm->board.psn = m->loc_psn;
	cm->board.rkey = m->loc_rkey;
	cm->board.base = m->loc_base;
	cm->step = RT_PEER_OPENED;
	return RT_PEER_CM_ACK;
}

enum rt_peer_cm_result rt_peer_cm_info(struct rt_peer_cm *cm, struct rt_error *err)
{
	if (!in_step(cm, RT_PEER_OPENED, "SEND_QP_INFO", err))
		return RT_PEER_CM_FAILED;
	struct rt_cm_msg req = base_req(cm, RT_CM_SEND_QP_INFO);
	req.rem_qpn = cm->host.qpn;
	req.rem_psn = cm->host.psn;
	req.rem_rkey = cm->host.rkey;
	req.rem_base = cm->host.base;
	req.rem_ip = cm->host.ip;
	enum rt_peer_cm_result r = transact(cm, &req, "SEND_QP_INFO", err);
	if (r != RT_PEER_CM_ACK)
		return r;
	const struct rt_cm_msg *m = &cm->last_reply;
	if (m->rem_qpn != (req.rem_qpn & 0xFFFFFF) || m->rem_psn != (req.rem_psn & 0xFFFFFF) ||
	    m->rem_rkey != req.rem_rkey || m->rem_base != req.rem_base || m->rem_ip != req.rem_ip) {
		rt_error_set(err, "SEND_QP_INFO: the reply does not echo the host's QPN, PSN, R_Key, base and IP "
			     "(QPN 0x%06x, PSN 0x%06x, R_Key 0x%08x sent; 0x%06x, 0x%06x, 0x%08x came back)",
			     req.rem_qpn, req.rem_psn, req.rem_rkey, m->rem_qpn, m->rem_psn, m->rem_rkey);
		return RT_PEER_CM_REFUSED;
	}
	cm->step = RT_PEER_INFORMED;
	return RT_PEER_CM_ACK;
}

enum rt_peer_cm_result rt_peer_cm_rts(struct rt_peer_cm *cm, struct rt_error *err)
{
	if (!in_step(cm, RT_PEER_INFORMED, "MODIFY_QP_RTS", err))
		return RT_PEER_CM_FAILED;
	struct rt_cm_msg req = base_req(cm, RT_CM_MODIFY_QP_RTS);
	enum rt_peer_cm_result r = transact(cm, &req, "MODIFY_QP_RTS", err);
	if (r == RT_PEER_CM_ACK)
		cm->step = RT_PEER_RTS;
	return r;
}

enum rt_peer_cm_result rt_peer_cm_start(struct rt_peer_cm *cm, const struct rt_peer_traffic *tr, struct rt_error *err)
{
	if (cm->step != RT_PEER_STARTED && !in_step(cm, RT_PEER_RTS, "txmeta start", err))
		return RT_PEER_CM_FAILED;
	struct rt_cm_msg req = { .loc_qpn = cm->board.qpn, .listening_port = cm->host.port, .txmeta_valid = true,
				 .start = true, .is_immediate = tr->imm, .tx_write = tr->write,
				 .dma_length = tr->length, .n_transfers = tr->count, .frequency = tr->frequency };
	enum rt_peer_cm_result r = transact(cm, &req, "txmeta start", err);
	if (r == RT_PEER_CM_ACK)
		cm->step = RT_PEER_STARTED;
	return r;
}

enum rt_peer_cm_result rt_peer_cm_close(struct rt_peer_cm *cm, struct rt_error *err)
{
	if (cm->step == RT_PEER_IDLE || cm->step == RT_PEER_CLOSED) {
		rt_error_set(err, "CLOSE_QP: no QP is open");
		return RT_PEER_CM_FAILED;
	}
	struct rt_cm_msg req = base_req(cm, RT_CM_CLOSE_QP);
	enum rt_peer_cm_result r = transact(cm, &req, "CLOSE_QP", err);
	if (r == RT_PEER_CM_ACK)
		cm->step = RT_PEER_CLOSED;
	return r;
}
