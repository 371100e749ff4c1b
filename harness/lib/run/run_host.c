/* SPDX-License-Identifier: MIT */
/*
 * The host side of a conformance test's setup (run_priv.h): the ARP request
 * for the device's IP and the CM exchange of cm-frame.md that opens each QP,
 * every reply checked field by field.
 */
#include <inttypes.h>
#include <string.h>

#include "run_priv.h"

void rt_run_addrs_default(struct rt_run_addrs *a)
{
	static const uint8_t host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0xAB, 0x00 };
	static const uint8_t dut_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	memcpy(a->host_mac, host_mac, 6);
	a->host_ip = 0x0A000164u;
	memcpy(a->dut_mac, dut_mac, 6);
	a->dut_ip = 0x0A000001u;
}

static void host_addr(struct rt_cm_addr *a, struct runner *r)
{
	memcpy(a->src_mac, r->addr.host_mac, 6);
	memcpy(a->dst_mac, r->addr.dut_mac, 6);
	a->src_ip = r->addr.host_ip;
	a->dst_ip = r->addr.dut_ip;
	a->src_port = HOST_CM_PORT;
	a->dst_port = RT_CM_UDP_PORT;
	a->ip_id = r->cm_ip_id++;
}

void run_send_cm(struct runner *r, const struct rt_cm_msg *m)
{
	uint8_t f[RT_CM_FRAME_BYTES];
	struct rt_cm_addr a;
	host_addr(&a, r);
	rt_cm_frame_build(f, &a, m);
	run_capture(r, r->now, f, sizeof f);
	run_push(r, f, sizeof f);
}

/* A CM reply addressed to the host: true, with the message. */
bool run_cm_reply(struct runner *r, const uint8_t *f, uint32_t len, struct rt_cm_msg *m)
{
	struct rt_cm_addr a;
	if (!rt_cm_frame_parse(f, len, &a, m) || a.src_port != RT_CM_REPLY_PORT)
		return false;
	if (memcmp(a.dst_mac, r->addr.host_mac, 6) || a.dst_ip != r->addr.host_ip || a.dst_port != HOST_CM_PORT ||
	    a.src_ip != r->addr.dut_ip || memcmp(a.src_mac, r->addr.dut_mac, 6))
		run_fail(r, "CM reply misaddressed (to %08x:%u from %08x)", a.dst_ip, a.dst_port, a.src_ip);
	return true;
}

bool run_cm_answer_is(struct runner *r, const struct rt_cm_msg *rep, uint8_t want, const char *what)
{
	if (rep->ack_valid && rep->ack_type == want)
		return true;
	run_fail(r, "%s: the reply says ack_valid %d, ack_type %s; expected %s", what, rep->ack_valid,
		 rt_cm_ack_name(rep->ack_type), rt_cm_ack_name(want));
	return false;
}

/* Sends a CM request and waits for its reply, which must carry ack type want. */
static int cm_exchange_expect(struct runner *r, const struct rt_cm_msg *req, struct rt_cm_msg *rep, uint8_t want,
			      const char *what)
{
	run_send_cm(r, req);
	for (uint64_t c = 0; c < SETUP_TICKS; c += CHUNK_TICKS) {
		run_ticks(r, CHUNK_TICKS);
		int64_t t;
		uint32_t len;
		while ((len = run_pull(r, &t)) > 0) {
			run_capture(r, t, r->buf, len);
			r->res->frames_to_peer++;
			if (run_cm_reply(r, r->buf, len, rep))
				return run_cm_answer_is(r, rep, want, what) && r->res->passed ? 0 : -1;
			run_fail(r, "%s: a frame of %u bytes that is not the CM reply", what, len);
			return -1;
		}
	}
	run_fail(r, "%s: no CM reply in %u device ticks", what, SETUP_TICKS);
	return -1;
}

static int cm_exchange(struct runner *r, const struct rt_cm_msg *req, struct rt_cm_msg *rep, const char *what)
{
	return cm_exchange_expect(r, req, rep, RT_CM_ACK, what);
}

int run_arp(struct runner *r)
{
	uint8_t f[RT_ARP_FRAME_BYTES];
	rt_arp_request_build(f, r->addr.host_mac, r->addr.host_ip, r->addr.dut_ip);
	run_capture(r, r->now, f, sizeof f);
	if (run_push(r, f, sizeof f))
		return -1;
	for (uint64_t c = 0; c < SETUP_TICKS; c += CHUNK_TICKS) {
		run_ticks(r, CHUNK_TICKS);
		int64_t t;
		uint32_t len = run_pull(r, &t);
		if (!len)
			continue;
		run_capture(r, t, r->buf, len);
		r->res->frames_to_peer++;
		uint8_t smac[6], tmac[6];
		uint32_t sip, tip;
		if (!rt_arp_reply_parse(r->buf, len, smac, &sip, tmac, &tip) || memcmp(smac, r->addr.dut_mac, 6) ||
		    sip != r->addr.dut_ip || memcmp(tmac, r->addr.host_mac, 6) || tip != r->addr.host_ip ||
		    memcmp(r->buf, r->addr.host_mac, 6)) {
			run_fail(r, "ARP: the answer to who-has %08x is not a reply from the device to the host", r->addr.dut_ip);
			return -1;
		}
		return 0;
	}
	run_fail(r, "ARP: no reply in %u device ticks", SETUP_TICKS);
	return -1;
}

/*
 * What a board's memory and MAC may do, so that the suites do not pass only
 * with the simulator's ideal ones: latencies of on-chip RAM to DRAM across a
 * bus, and random back-pressure on every port. The throughput tests keep the
 * device's default (their figures are the gate's).
 */
static const struct {
	uint32_t mem_latency;	/* cycles (the Verilator model: 20 by default) */
	double p_stall;
} BENCH_PROFILES[] = {
	{ 20, 0 }, { 2, 0 }, { 300, 0 }, { 20, 0.05 }, { 100, 0.2 }, { 600, 0.02 },
};

void run_bench_pick(struct runner *r)
{
	size_t n = sizeof BENCH_PROFILES / sizeof BENCH_PROFILES[0];
	/* From the seed and the name, not r->rng: the test's traffic stays what it was. */
	uint64_t h = r->opt->seed ^ 0xD1B54A32D192ED03ull;
	for (const char *p = r->spec->name; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
	size_t k = r->spec->throughput ? 0 : (size_t)((h ^ (h >> 29)) % n);
	r->mem_latency = BENCH_PROFILES[k].mem_latency;
	r->p_stall = BENCH_PROFILES[k].p_stall;
	r->res->mem_latency = r->mem_latency;
	r->res->p_stall = r->p_stall;
}

void run_dut_config(const struct runner *r, struct rt_dut_config *c, uint8_t pmtu_code)
{
	const struct rt_run_spec *s = r->spec;
	memset(c, 0, sizeof *c);
	memcpy(c->mac, r->addr.dut_mac, 6);
	c->ip = r->addr.dut_ip;
	c->rkey = DUT_RKEY;
	c->base_addr = r->dut->info.mem_base;
	c->psn = s->psn;
	c->pmtu_code = pmtu_code;
	c->mem_latency = r->mem_latency;
	c->p_stall = r->p_stall;
	for (unsigned q = 0; q < RT_DUT_MAX_QP; q++) {
		c->timeout[q] = run_timeout_code(s);
		c->retry_cnt[q] = s->retry_cnt;
		c->rnr_retry[q] = s->rnr_retry;
	}
}

/* Opens QP q: OPEN_QP, SEND_QP_INFO, MODIFY_QP_RTS. */
int run_open_qp(struct runner *r, unsigned q)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_dut_config c;
	char msg[256];
	run_dut_config(r, &c, s->pmtu_code[q]);
	if (r->dut->configure(r->dut->ctx, &c, msg, sizeof msg)) {
		run_fail(r, "configure: %s", msg);
		return -1;
	}
	struct rt_cm_msg rep, req = { .qp_info_valid = true, .req_type = RT_CM_OPEN_QP,
				      .listening_port = HOST_CM_PORT };
	if (cm_exchange(r, &req, &rep, "OPEN_QP"))
		return -1;
	uint32_t qpn = r->dut->info.qpn_base + q, psn = (s->psn + DUT_PSN_STRIDE * q) & 0xFFFFFF;
	if (rep.loc_qpn != qpn || rep.loc_psn != psn || rep.loc_rkey != DUT_RKEY ||
	    rep.loc_base != r->dut->info.mem_base || rep.loc_ip != r->addr.dut_ip) {
		run_fail(r, "OPEN_QP %u: the reply says QPN %06x PSN %06x R_Key %08x base %" PRIx64 ", expected %06x %06x %08x %" PRIx64,
		     q, rep.loc_qpn, rep.loc_psn, rep.loc_rkey, rep.loc_base, qpn, psn, DUT_RKEY, r->dut->info.mem_base);
		return -1;
	}
	r->qp[q].dut_qpn = qpn;
	r->qp[q].dut_psn = psn;
	r->qp[q].pmtu = 256u << s->pmtu_code[q];
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_SEND_QP_INFO, .loc_qpn = qpn,
				  .rem_qpn = 0x1200 + 0x11 * q, .rem_psn = HOST_PSN, .rem_rkey = PEER_RKEY,
				  .rem_base = PEER_VA, .rem_ip = r->addr.host_ip, .listening_port = HOST_CM_PORT };
	if (cm_exchange(r, &req, &rep, "SEND_QP_INFO"))
		return -1;
	if (rep.rem_qpn != req.rem_qpn || rep.rem_psn != HOST_PSN || rep.rem_rkey != PEER_RKEY ||
	    rep.rem_base != PEER_VA || rep.rem_ip != r->addr.host_ip)
		run_fail(r, "SEND_QP_INFO %u: the reply does not echo the host's QPN, PSN, R_Key, base and IP", q);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_MODIFY_QP_RTS, .loc_qpn = qpn,
				  .listening_port = HOST_CM_PORT };
	if (cm_exchange(r, &req, &rep, "MODIFY_QP_RTS"))
		return -1;
	unsigned st = r->dut->qp_state(r->dut->ctx, q);
	if (st != RT_DUT_QPS_RTS) {
		run_fail(r, "QP %u is in state %u after MODIFY_QP_RTS, not RTS (3)", q, st);
		return -1;
	}
	return 0;
}


/* CLOSE_QP: QP q back to RESET, its QPN free for the next OPEN_QP. */
static int close_qp(struct runner *r, unsigned q)
{
	struct rt_cm_msg rep, req = { .qp_info_valid = true, .req_type = RT_CM_CLOSE_QP,
				      .loc_qpn = r->qp[q].dut_qpn, .listening_port = HOST_CM_PORT };
	if (cm_exchange(r, &req, &rep, "CLOSE_QP"))
		return -1;
	unsigned st = r->dut->qp_state(r->dut->ctx, q);
	if (st != RT_DUT_QPS_RESET) {
		run_fail(r, "QP %u is in state %u after CLOSE_QP, not RESET (0)", q, st);
		return -1;
	}
	return 0;
}

/* A frame the device must not answer: nothing comes out for a while. */
static int expect_silence(struct runner *r, const struct rt_cm_msg *m, const char *what)
{
	run_send_cm(r, m);
	for (uint64_t c = 0; c < 5000; c += CHUNK_TICKS) {
		run_ticks(r, CHUNK_TICKS);
		int64_t t;
		uint32_t len = run_pull(r, &t);
		if (len) {
			run_capture(r, t, r->buf, len);
			r->res->frames_to_peer++;
			run_fail(r, "%s: the device answered (%u bytes); a CM reply must not be answered", what, len);
			return -1;
		}
	}
	return 0;
}

/* Requests the CM must refuse, each with the reply cm-frame.md gives it; nothing may change. */
static int cm_refusals(struct runner *r)
{
	const uint16_t port = HOST_CM_PORT;
	const uint32_t qpn0 = r->qp[0].dut_qpn;
	struct rt_cm_msg rep;
	struct rt_cm_msg open = { .qp_info_valid = true, .req_type = RT_CM_OPEN_QP, .listening_port = port };
	struct rt_cm_msg info = { .qp_info_valid = true, .req_type = RT_CM_SEND_QP_INFO, .loc_qpn = qpn0,
				  .rem_qpn = 0x777, .rem_psn = 0x123, .rem_rkey = 1, .rem_ip = r->addr.host_ip,
				  .listening_port = port };
	struct rt_cm_msg rts = { .qp_info_valid = true, .req_type = RT_CM_MODIFY_QP_RTS, .loc_qpn = qpn0,
				 .listening_port = port };
	struct rt_cm_msg close_none = { .qp_info_valid = true, .req_type = RT_CM_CLOSE_QP,
					.loc_qpn = r->dut->info.qpn_base + r->dut->info.n_qp, .listening_port = port };
	struct rt_cm_msg both = { .qp_info_valid = true, .req_type = RT_CM_MODIFY_QP_RTS, .loc_qpn = qpn0,
				  .txmeta_valid = true, .listening_port = port };
	struct rt_cm_msg reply = { .qp_info_valid = true, .req_type = RT_CM_OPEN_QP, .ack_valid = true,
				   .ack_type = RT_CM_ACK, .listening_port = port };
	if (cm_exchange_expect(r, &open, &rep, RT_CM_NO_QP, "OPEN_QP with every QP taken") ||
	    cm_exchange_expect(r, &info, &rep, RT_CM_NAK, "SEND_QP_INFO to a QP in RTS") ||
	    cm_exchange_expect(r, &rts, &rep, RT_CM_NAK, "a second MODIFY_QP_RTS") ||
	    cm_exchange_expect(r, &close_none, &rep, RT_CM_NAK, "CLOSE_QP of a QPN that is not ours") ||
	    cm_exchange_expect(r, &both, &rep, RT_CM_NAK, "a request with txmeta_valid set as well") ||
	    expect_silence(r, &reply, "a frame with ack_valid set"))
		return -1;
	struct rt_dut_counters c;
	r->dut->counters(r->dut->ctx, &c);
	if (c.cm_no_qp != 1 || c.cm_naks != 4)
		run_fail(r, "CM counters: %u NO_QP and %u NAK replies; 1 and 4 were sent", c.cm_no_qp, c.cm_naks);
	/* The refused SEND_QP_INFO changed nothing: the QP still sends to the host's QPN. */
	return r->res->passed ? 0 : -1;
}

int run_cm_case(struct runner *r)
{
	switch (r->spec->cm_case) {
	case RT_CM_CASE_NONE:
		return 0;
	case RT_CM_CASE_REOPEN:
		/* Closed and opened again: the lowest free QP, QPN and PSN as the first time. */
		return close_qp(r, 0) || run_open_qp(r, 0) ? -1 : 0;
	case RT_CM_CASE_REFUSALS:
		return cm_refusals(r);
	}
	return 0;
}
