/* SPDX-License-Identifier: MIT */
/*
 * rocetest peer on an RDMA device: the libibverbs calls (the hardware
 * boundary). The GID choice, the CM exchange, the QP attributes, the
 * generator's messages and data and the rates are the library's (peer.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmd_peer.h"
#include "rocetest/iface.h"

#define MAX_GIDS 256
#define CQ_BATCH 32

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t region;		/* the WRITE region at buf (count * length), 0 for SENDs */
	size_t slots;		/* receive slots after it, length bytes each (SEND only) */
	uint32_t port_pmtu;	/* the port's active MTU in bytes */
	unsigned gid_index;
	uint32_t host_ip;
};

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int open_device(const struct peer_opts *o, struct verbs *v, struct peer_result *res)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		cli_error("no RDMA devices found; load a driver or create a soft-RoCE device with "
			  "`rdma link add rxe0 type rxe netdev IF`");
		if (list)
			ibv_free_device_list(list);
		return -1;
	}
	struct ibv_device *dev = NULL;
	for (int i = 0; i < n && !dev; i++)
		if (!o->device || !strcmp(ibv_get_device_name(list[i]), o->device))
			dev = list[i];
	if (!dev) {
		cli_error("no RDMA device '%s'; there are:", o->device);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  %s\n", ibv_get_device_name(list[i]));
	} else {
		snprintf(res->device, sizeof res->device, "%s", ibv_get_device_name(dev));
		v->ctx = ibv_open_device(dev);
		if (!v->ctx)
			cli_error("%s: cannot open: %s", res->device, strerror(errno));
	}
	ibv_free_device_list(list);
	return v->ctx ? 0 : -1;
}

/* The port's GID table in the library's terms. */
static int read_gids(const struct peer_opts *o, struct verbs *v, struct rt_gid_entry *t, size_t *n)
{
	struct ibv_gid_entry e[MAX_GIDS];
	ssize_t got = ibv_query_gid_table(v->ctx, e, MAX_GIDS, 0);
	if (got < 0) {
		cli_error("reading the GID table: %s", strerror((int)-got));
		return -1;
	}
	*n = 0;
	for (ssize_t i = 0; i < got; i++) {
		if (e[i].port_num != o->ib_port)
			continue;
		struct rt_gid_entry *g = &t[(*n)++];
		g->index = e[i].gid_index;
		g->type = e[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? RT_GID_ROCE_V2 :
			  e[i].gid_type == IBV_GID_TYPE_ROCE_V1 ? RT_GID_ROCE_V1 : RT_GID_IB;
		memcpy(g->gid, e[i].gid.raw, 16);
		g->netdev[0] = '\0';
		if (e[i].ndev_ifindex && !if_indextoname(e[i].ndev_ifindex, g->netdev))
			g->netdev[0] = '\0';
	}
	return 0;
}

static int choose_gid(const struct peer_opts *o, struct verbs *v, struct peer_result *res)
{
	struct ibv_port_attr pa;
	if (ibv_query_port(v->ctx, (uint8_t)o->ib_port, &pa)) {
		cli_error("%s: port %u: %s", res->device, o->ib_port, strerror(errno));
		return -1;
	}
	if (pa.state != IBV_PORT_ACTIVE)
		fprintf(stderr, "rocetest: %s port %u is %s, not ACTIVE: is its interface up?\n", res->device, o->ib_port,
			ibv_port_state_str(pa.state));
	v->port_pmtu = rt_peer_mtu_bytes(pa.active_mtu);
	struct rt_gid_entry table[MAX_GIDS];
	size_t n;
	char text[MAX_GIDS * 100], ip[16];
	struct rt_error err;
	if (read_gids(o, v, table, &n))
		return -1;
	rt_gid_table_format(table, n, text, sizeof text);
	if (rt_gid_choose(table, n, o->gid_index, o->local_ip, &res->gid, &err)) {
		cli_error("%s port %u: %s. Its GID table (index, type, GID, IPv4, interface):\n%s", res->device,
			  o->ib_port, err.msg, text);
		return -1;
	}
	res->have_gid = true;
	v->gid_index = res->gid.index;
	v->host_ip = res->gid.ip;
	printf("rocetest peer: %s port %u, GID index %u (RoCE v2, %s): %s; override with --gid-index\n%s",
	       res->device, o->ib_port, res->gid.index, rt_format_ipv4(res->gid.ip, ip), res->gid.why, text);
	return 0;
}

/* The complement of what the board writes into the WRITE region, so that a byte never written shows. */
static void fill_region(struct verbs *v)
{
	for (size_t i = 0; i < v->region; i += 4096) {
		size_t part = v->region - i < 4096 ? v->region - i : 4096;
		rt_txgen_pattern(i, v->buf + i, part);
		for (size_t j = 0; j < part; j++)
			v->buf[i + j] ^= 0xFF;
	}
}

static uint32_t rx_depth(const struct peer_opts *o)
{
	bool needs_recv = !o->traffic.write || o->traffic.imm;
	if (!needs_recv)
		return 1;
	if (o->rx_depth)
		return o->rx_depth;
	return o->traffic.count < 1024 ? o->traffic.count : 1024;
}

static int create_resources(const struct peer_opts *o, struct verbs *v)
{
	uint32_t depth = rx_depth(o);
	v->region = o->traffic.write ? (size_t)o->traffic.count * o->traffic.length : 0;
	v->slots = o->traffic.write ? 0 : depth;
	size_t size = v->region + v->slots * o->traffic.length;
	if (posix_memalign((void **)&v->buf, 4096, size ? size : 4096)) {
		cli_error("cannot allocate %zu bytes for the memory region (--count x --length)", size);
		return -1;
	}
	fill_region(v);
	v->pd = ibv_alloc_pd(v->ctx);
	v->channel = o->busy_poll ? NULL : ibv_create_comp_channel(v->ctx);
	v->cq = v->pd && (o->busy_poll || v->channel) ? ibv_create_cq(v->ctx, (int)depth + 16, NULL, v->channel, 0) : NULL;
	v->mr = v->cq ? ibv_reg_mr(v->pd, v->buf, size ? size : 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_qp_init_attr qa = { .send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 1, .max_recv_wr = depth, .max_send_sge = 1, .max_recv_sge = 1 } };
	v->qp = v->mr ? ibv_create_qp(v->pd, &qa) : NULL;
	if (!v->qp) {
		cli_error("creating the %s failed: %s", !v->pd ? "protection domain" : !v->cq ? "completion queue" :
			  !v->mr ? "memory region" : "RC QP", strerror(errno));
		return -1;
	}
	return 0;
}

static int modify_qp(struct verbs *v, const struct rt_peer_qp_attr *a)
{
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .pkey_index = (uint16_t)a->pkey_index,
				    .port_num = (uint8_t)a->port,
				    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | (a->remote_write ? IBV_ACCESS_REMOTE_WRITE : 0) };
	struct ibv_qp_attr rtr = { .qp_state = IBV_QPS_RTR, .path_mtu = (enum ibv_mtu)a->path_mtu,
				   .dest_qp_num = a->dest_qpn, .rq_psn = a->rq_psn,
				   .max_dest_rd_atomic = (uint8_t)a->max_dest_rd_atomic, .min_rnr_timer = (uint8_t)a->min_rnr_timer,
				   .ah_attr = { .is_global = 1, .port_num = (uint8_t)a->port,
						.grh = { .sgid_index = (uint8_t)a->sgid_index, .hop_limit = (uint8_t)a->hop_limit } } };
	memcpy(rtr.ah_attr.grh.dgid.raw, a->dgid, 16);
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .sq_psn = a->sq_psn, .timeout = (uint8_t)a->timeout,
				   .retry_cnt = (uint8_t)a->retry_cnt, .rnr_retry = (uint8_t)a->rnr_retry,
				   .max_rd_atomic = (uint8_t)a->max_rd_atomic };
	const char *step = "INIT";
	int rc = ibv_modify_qp(v->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!rc && (step = "RTR"))
		rc = ibv_modify_qp(v->qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (!rc && (step = "RTS"))
		rc = ibv_modify_qp(v->qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		cli_error("moving the QP to %s: %s", step, strerror(rc > 0 ? rc : errno));
	return rc ? -1 : 0;
}

static int post_recv(struct verbs *v, uint32_t slot, uint32_t length)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(v->buf + v->region + (size_t)slot * length), .length = length,
			       .lkey = v->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = v->slots ? 1 : 0 }, *bad;
	int rc = ibv_post_recv(v->qp, &wr, &bad);
	if (rc)
		cli_error("posting a receive: %s", strerror(rc));
	return rc ? -1 : 0;
}

/* ---- Taking the traffic ------------------------------------------------- */

struct rx {
	const struct peer_opts *o;
	struct verbs *v;
	struct peer_result *res;
	uint32_t next_k;	/* the message the next completion is for */
	uint32_t round;		/* of --repeat, from 0 */
	uint64_t posted;	/* receives posted so far, of count x repeat */
	size_t verified;	/* plain WRITEs: the region's bytes found as the board sent them */
	bool qp_failed;
};

static void note(struct peer_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct peer_result *res, const char *fmt, ...)
{
	if (res->first_error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->first_error, sizeof res->first_error, fmt, ap);
	va_end(ap);
}

/* The data and immediate of message k against what the generator sent. */
static bool message_ok(struct rx *s, const struct ibv_wc *wc, uint32_t k)
{
	const struct rt_peer_traffic *tr = &s->o->traffic;
	struct rt_txgen_msg m;
	rt_txgen_message(0, tr->length, k, &m);
	bool want_write = tr->write;
	if ((wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) != want_write) {
		note(s->res, "message %u: completion opcode %d, expected %s", k, wc->opcode,
		     want_write ? "RECV_RDMA_WITH_IMM" : "RECV");
		return false;
	}
	if (tr->imm != !!(wc->wc_flags & IBV_WC_WITH_IMM) || (tr->imm && ntohl(wc->imm_data) != m.imm)) {
		note(s->res, "message %u: immediate %s0x%08x, expected %s0x%08x", k,
		     wc->wc_flags & IBV_WC_WITH_IMM ? "" : "none, not ", ntohl(wc->imm_data), tr->imm ? "" : "none, not ", m.imm);
		return false;
	}
	if (!want_write && wc->byte_len != tr->length) {
		note(s->res, "message %u: %u bytes arrived, expected %u", k, wc->byte_len, tr->length);
		return false;
	}
	const uint8_t *data = want_write ? s->v->buf + m.remote_offset
					 : s->v->buf + s->v->region + (size_t)wc->wr_id * tr->length;
	size_t bad = rt_txgen_pattern_mismatch(m.local_offset, data, tr->length);
	if (bad < tr->length) {
		uint8_t want;
		rt_txgen_pattern(m.local_offset + bad, &want, 1);
		note(s->res, "message %u: byte %zu is 0x%02x, the board's memory at 0x%" PRIx64 " holds 0x%02x", k, bad,
		     data[bad], m.local_offset + bad, want);
		return false;
	}
	return true;
}

static int take_completion(struct rx *s, const struct ibv_wc *wc)
{
	uint32_t k = s->next_k++;
	if (wc->status != IBV_WC_SUCCESS) {
		rt_peer_rate_add(&s->res->rate, now_ns(), 0, false);
		note(s->res, "message %u: completion error %s (status %d, vendor error 0x%x)", k,
		     ibv_wc_status_str(wc->status), wc->status, wc->vendor_err);
		s->qp_failed = true;
		return 0;
	}
	bool ok = message_ok(s, wc, k);
	s->res->mismatches += !ok;
	rt_peer_rate_add(&s->res->rate, now_ns(), ok ? s->o->traffic.length : 0, true);
	if (s->posted < (uint64_t)s->o->traffic.count * s->o->repeat) {
		s->posted++;
		return post_recv(s->v, (uint32_t)wc->wr_id, s->o->traffic.length);
	}
	return 0;
}

/* Plain WRITEs complete nothing on this side: their data shows in the region, in order. */
static void take_writes(struct rx *s)
{
	size_t len = s->o->traffic.length, before = s->verified / len;
	s->verified += rt_txgen_pattern_mismatch(s->verified, s->v->buf + s->verified, s->v->region - s->verified);
	for (size_t k = before; k < s->verified / len; k++)
		rt_peer_rate_add(&s->res->rate, now_ns(), (uint32_t)len, true);
	s->next_k = (uint32_t)(s->verified / len);
}

/* Waits for the completion channel up to 100 ms; 0, or -1 after saying why. */
static int wait_event(struct verbs *v)
{
	struct pollfd p = { .fd = v->channel->fd, .events = POLLIN };
	if (poll(&p, 1, 100) <= 0)
		return 0;
	struct ibv_cq *cq;
	void *ctx;
	if (ibv_get_cq_event(v->channel, &cq, &ctx)) {
		cli_error("reading a completion event: %s", strerror(errno));
		return -1;
	}
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(v->cq, 0)) {
		cli_error("arming the completion queue: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* One turn: every completion waiting (or the region's progress); 0, or -1 after saying why. */
static int rx_turn(struct rx *s)
{
	if (s->o->traffic.write && !s->o->traffic.imm) {
		take_writes(s);
		if (!s->o->busy_poll) {
			struct timespec t = { .tv_nsec = 1000000 };
			nanosleep(&t, NULL);
		}
		return 0;
	}
	struct ibv_wc wc[CQ_BATCH];
	int n = ibv_poll_cq(s->v->cq, CQ_BATCH, wc);
	if (n < 0) {
		cli_error("polling the completion queue failed");
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (take_completion(s, &wc[i]))
			return -1;
	return n || s->o->busy_poll ? 0 : wait_event(s->v);
}

/* Why the traffic ended short, for a plain WRITE: the first byte not as sent. */
static void explain_writes(struct rx *s)
{
	if (s->verified >= s->v->region)
		return;
	uint8_t want;
	rt_txgen_pattern(s->verified, &want, 1);
	uint8_t got = s->v->buf[s->verified], fill = (uint8_t)~want;
	note(s->res, "WRITE region byte 0x%zx (message %zu) is 0x%02x, expected 0x%02x%s", s->verified,
	     s->verified / s->o->traffic.length, got, want, got == fill ? ": never written" : "");
	if (got != fill)
		s->res->mismatches++;
}

/* One round: the txmeta start's count messages. */
static int take_round(struct rx *st)
{
	const struct peer_opts *o = st->o;
	struct peer_result *res = st->res;
	struct rx s = *st;
	s.next_k = 0;
	s.verified = 0;
	double wait_s = o->wait_s ? o->wait_s : 10 + (double)o->traffic.count * o->traffic.length / 1e8;
	int64_t deadline = now_ns() + (int64_t)(wait_s * 1e9);
	while (s.next_k < o->traffic.count && !s.qp_failed) {
		if (rx_turn(&s))
			return RT_EXIT_INPUT;
		if (now_ns() > deadline)
			break;
	}
	if (o->traffic.write && !o->traffic.imm)
		explain_writes(&s);
	if (s.next_k < o->traffic.count)
		note(res, "round %u: %u of %u messages arrived in %.0f s", s.round + 1, s.next_k, o->traffic.count, wait_s);
	st->posted = s.posted;
	st->qp_failed = s.qp_failed;
	return s.next_k < o->traffic.count || res->mismatches || res->rate.errors ? RT_EXIT_VIOLATIONS : RT_EXIT_OK;
}

/* ---- The run ------------------------------------------------------------ */

static int cm_fail(enum rt_peer_cm_result r, const struct rt_error *err)
{
	cli_error("%s", err->msg);
	return r == RT_PEER_CM_REFUSED ? RT_EXIT_VIOLATIONS : RT_EXIT_INPUT;
}

/* OPEN_QP and SEND_QP_INFO, the host QP to RTS, MODIFY_QP_RTS, the receives: 0 or an exit code. */
static int connect_qp(const struct peer_opts *o, struct verbs *v, struct rt_peer_cm *cm)
{
	struct rt_error err;
	enum rt_peer_cm_result r = rt_peer_cm_open(cm, &err);
	if (r == RT_PEER_CM_ACK)
		r = rt_peer_cm_info(cm, &err);
	if (r != RT_PEER_CM_ACK)
		return cm_fail(r, &err);
	printf("rocetest peer: board QP 0x%06x (PSN 0x%06x), host QP 0x%06x (PSN 0x%06x)\n", cm->board.qpn,
	       cm->board.psn, cm->host.qpn, cm->host.psn);
	struct rt_peer_qp_params p = { .port = o->ib_port, .sgid_index = v->gid_index, .pmtu = o->pmtu,
				       .port_active_pmtu = v->port_pmtu, .min_rnr_timer = o->min_rnr_timer };
	struct rt_peer_qp_attr a;
	if (rt_peer_qp_attr(cm, &p, &a, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	if (modify_qp(v, &a))
		return RT_EXIT_INPUT;
	if ((r = rt_peer_cm_rts(cm, &err)) != RT_PEER_CM_ACK)
		return cm_fail(r, &err);
	for (uint32_t i = 0; i < rx_depth(o); i++)
		if (post_recv(v, v->slots ? i : 0, o->traffic.length))
			return RT_EXIT_INPUT;
	if (!o->busy_poll && ibv_req_notify_cq(v->cq, 0)) {
		cli_error("arming the completion queue: %s", strerror(errno));
		return RT_EXIT_INPUT;
	}
	return 0;
}

static int exchange_and_take(const struct peer_opts *o, struct verbs *v, struct peer_result *res)
{
	struct peer_udp u;
	if (peer_udp_open(&u, v->host_ip, o->cm_port, o->dut_ip))
		return RT_EXIT_INPUT;
	struct rt_peer_transport t;
	peer_udp_transport(&u, &t);
	struct rt_peer_host host = { .qpn = v->qp->qp_num, .psn = (uint32_t)now_ns() & 0xFFFFFF, .rkey = v->mr->rkey,
				     .base = (uintptr_t)v->buf, .ip = v->host_ip, .port = o->cm_port };
	struct rt_peer_cm cm;
	struct rt_error err;
	rt_peer_cm_init(&cm, &t, o->dut_ip, &host, o->timeout_ms, o->attempts);
	res->host_qpn = host.qpn;
	int rc = connect_qp(o, v, &cm);
	res->board_qpn = cm.board.qpn;
	rt_peer_rate_init(&res->rate, now_ns());
	struct rx s = { .o = o, .v = v, .res = res, .posted = rx_depth(o) };
	for (; !rc && s.round < o->repeat; s.round++) {
		if (s.round)
			fill_region(v);
		enum rt_peer_cm_result r = rt_peer_cm_start(&cm, &o->traffic, &err);
		rc = r == RT_PEER_CM_ACK ? take_round(&s) : cm_fail(r, &err);
	}
	if (cm.step != RT_PEER_IDLE && rt_peer_cm_close(&cm, &err) != RT_PEER_CM_ACK)
		fprintf(stderr, "rocetest: closing the board's QP: %s\n", err.msg);
	peer_udp_close(&u);
	return rc;
}

static void teardown(struct verbs *v)
{
	if (v->qp)
		ibv_destroy_qp(v->qp);
	if (v->mr)
		ibv_dereg_mr(v->mr);
	if (v->cq)
		ibv_destroy_cq(v->cq);
	if (v->channel)
		ibv_destroy_comp_channel(v->channel);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	free(v->buf);
}

int peer_verbs_run(const struct peer_opts *o, struct peer_result *res)
{
	if (o->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set)) {
			cli_error("--cpu %d: %s", o->cpu, strerror(errno));
			return RT_EXIT_INPUT;
		}
	}
	struct verbs v = { 0 };
	int rc = RT_EXIT_INPUT;
	if (!open_device(o, &v, res) && !choose_gid(o, &v, res) && !create_resources(o, &v))
		rc = exchange_and_take(o, &v, res);
	teardown(&v);
	return rc;
}
