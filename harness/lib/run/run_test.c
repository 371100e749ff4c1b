/* SPDX-License-Identifier: MIT */
/*
 * One conformance test against a device (run.h). The harness is the remote
 * host: it answers nothing itself but runs one reference-model QP (the
 * responder) per device QP, joined to the device by a simulated link
 * (wire.h, dir 0 device -> peer, dir 1 peer -> device).
 *
 *   setup   reset with the test's configuration; ARP for the device's IP;
 *           per QP the CM exchange of cm-frame.md (OPEN_QP, SEND_QP_INFO,
 *           MODIFY_QP_RTS), and the test's CM case (run_host.c). Frames go
 *           straight to and from the device.
 *   work    the peer QPs are created; the native WRs are posted; txmeta
 *           frames start the built-in generator. The device's clock runs in
 *           chunks; after each, its frames go onto the link, the frames that
 *           arrived are delivered, the peer's timers act and its frames go
 *           onto the link, completions are collected.
 *   verdict every completion with its expected status, in WR order per QP;
 *           the peer's memory equal to what the successful WRITEs carried
 *           and nothing else; every successful SEND received whole, with its
 *           immediate; the capture conformant (the checker, 0 errors); the
 *           device's counters showing the recovery the faults demand; no
 *           port contract broken.
 *
 * The capture is taken at the device's port, as a tap on the FPGA's link
 * would see it: the device's frames as it sent them (frames the link then
 * loses are in it), the peer's as they reach the device (lost ones are not).
 * So every timestamp and every cause-and-effect is the device's own. Frames
 * the link corrupted on their way to the device are left out: the device
 * drops them at its ICRC check (its counter is asserted), and a bad ICRC
 * there is the link's doing, not the peer's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocetest/capture.h"
#include "rocetest/cm.h"
#include "rocetest/peer.h"
#include "rocetest/run.h"

#include "run_priv.h"
#include "rocetest/splitmix.h"

/* Most a device's local ACK timer may overrun twice its value (its timer's granularity), in us. */
#define TIMER_SLACK_US 2.0
/*
 * What a device may hold in its transmit path after deciding to send, in
 * us: the included endpoint's frame FIFO (8 KB) and descriptor queue take
 * about 5 us to drain at its narrowest width (64 bits, 20.6 Gb/s).
 */
#define DEVICE_IN_FLIGHT_US 10.0

/* ---- Results ------------------------------------------------------- */

void run_fail(struct runner *r, const char *fmt, ...)
{
	struct rt_run_result *res = r->res;
	static const char more[] = "(more findings left out)\n";
	size_t used = strlen(res->failure);
	res->passed = false;
	if (r->failure_full)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* Whole lines only; when the next does not fit, say so once. */
	if (used + strlen(line) + 1 + sizeof more > sizeof res->failure) {
		memcpy(res->failure + used, more, sizeof more);
		r->failure_full = true;
		return;
	}
	snprintf(res->failure + used, sizeof res->failure - used, "%s\n", line);
}

/* ---- Capture and checker ------------------------------------------- */

static void on_violation(void *ctx, const struct rt_violation *v)
{
	struct runner *r = ctx;
	if (v->severity == RT_SEV_ERROR && r->res->checker_errors < 3)
		run_fail(r, "checker: frame %" PRIu64 ": %s: %s", v->frame, rt_rule_info(v->rule)->id, v->message);
	if (v->severity == RT_SEV_ERROR)
		r->res->checker_errors++;
	else
		r->res->checker_warnings++;
	if (r->opt->on_violation)
		r->opt->on_violation(r->opt->ctx, v);
}

/* Every frame a receiver takes: into the capture and the checker. */
void run_capture(struct runner *r, int64_t t, const uint8_t *f, uint32_t len)
{
	r->frames++;
	if (r->cap)
		rt_capture_write(r->cap, RT_CAPTURE_EPOCH_NS + t, f, len, len);
	rt_checker_frame(r->chk, RT_LINK_ETHERNET, r->frames, t, f, len, len);
}

/* ---- The device's clock -------------------------------------------- */

void run_ticks(struct runner *r, uint64_t n)
{
	r->dut->advance(r->dut->ctx, n + r->host_delay_ticks);
	r->now = (int64_t)((double)r->dut->now(r->dut->ctx) * r->ns_per_tick);
}

/* The device's next frame (in r->buf) with the time it went on the wire; 0 when none. */
uint32_t run_pull(struct runner *r, int64_t *t)
{
	uint32_t len;
	uint64_t ps;
	int rc = r->dut->pull_tx(r->dut->ctx, r->buf, sizeof r->buf, &len, &ps);
	if (rc < 0) {
		run_fail(r, "the device sent a frame longer than %zu bytes", sizeof r->buf);
		return 0;
	}
	if (!rc)
		return 0;
	*t = (int64_t)(ps / 1000);
	return len;
}

int run_push(struct runner *r, const uint8_t *f, uint32_t len)
{
	char msg[256];
	if (r->dut->push_rx(r->dut->ctx, f, len, msg, sizeof msg)) {
		run_fail(r, "device RX: %s", msg);
		return -1;
	}
	r->res->frames_to_dut++;
	return 0;
}

/* ---- The peer ------------------------------------------------------ */

/* The peer QP of device QP q as the harness runs it (its twin scenario's peer too, run_twin.c). */
void run_peer_config(const struct runner *r, unsigned q, struct rt_qp_config *cfg)
{
	const struct rt_run_spec *s = r->spec;
	const struct qp_side *side = &r->qp[q];
	struct rt_qp_config c;
	rt_qp_config_init(&c);
	memcpy(c.mac, r->addr.host_mac, 6);
	memcpy(c.peer_mac, r->addr.dut_mac, 6);
	c.ip_version = 4;
	for (int i = 0; i < 4; i++) {
		c.ip[i] = (uint8_t)(r->addr.host_ip >> (24 - 8 * i));
		c.peer_ip[i] = (uint8_t)(r->addr.dut_ip >> (24 - 8 * i));
	}
	c.udp_sport = (uint16_t)(0xC100 + q);
	c.qpn = peer_qpn(q);
	c.peer_qpn = side->dut_qpn;
	c.sq_psn = HOST_PSN;
	c.rq_psn = side->dut_psn;
	c.pmtu = side->pmtu;
	c.ack_every = 1;
	c.send_cnp = false;
	c.min_rnr_timer = s->rnr_timer;
	c.mem_va = PEER_VA;
	c.mem_size = side->mem_size;
	c.rkey = PEER_RKEY;
	c.rq_depth = side->rq_depth;
	c.recv_size = side->recv_size;
	c.op_error_msg = q == 0 ? s->peer_op_error_msg : 0;
	*cfg = c;
}

static int make_peer(struct runner *r, unsigned q, uint32_t max_send, struct rt_error *err)
{
	struct qp_side *side = &r->qp[q];
	struct rt_qp_config c;
	side->recv_size = max_send < 64 ? 64 : max_send;
	if (q == 0 && r->spec->peer_recv_size)
		side->recv_size = r->spec->peer_recv_size;
	side->rq_depth = side->recv_size > 65536 ? 16 : 32;
	run_peer_config(r, q, &c);
	side->peer = rt_qp_new(&c, err);
	if (!side->peer)
		return -1;
	rt_fill_random(rt_qp_memory(side->peer), side->mem_size, &r->rng);
	side->expect_mem = malloc(side->mem_size);
	if (!side->expect_mem) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	memcpy(side->expect_mem, rt_qp_memory(side->peer), side->mem_size);
	return 0;
}

/* Keeps the peer's receive ring full (while it posts at all). */
static void post_receives(struct runner *r, struct qp_side *side)
{
	if (!r->recv_posting)
		return;
	uint64_t used = side->next_recv;
	while (side->recv_posted < used + side->rq_depth) {
		struct rt_recv_wr rw = { .wr_id = side->recv_posted };
		struct rt_error e;
		if (rt_qp_post_recv(side->peer, &rw, &e))
			break;
		side->recv_posted++;
	}
}

bool run_consumes_receive(uint8_t op)
{
	return op == RT_DUT_SEND || op == RT_DUT_SEND_IMM || op == RT_DUT_WRITE_IMM;
}

/* This QP's next WR that consumes a receive buffer at the peer (they arrive in posting order). */
static struct wr_entry *next_receiving_wr(struct qp_side *side)
{
	while (side->recv_scan < side->n_wrs && !run_consumes_receive(side->wrs[side->recv_scan].wr.opcode))
		side->recv_scan++;
	return side->recv_scan < side->n_wrs ? &side->wrs[side->recv_scan++] : NULL;
}

/* A receive completion at the peer: the next SEND (or WRITE with immediate) of this QP, whole. */
static void peer_received(struct runner *r, unsigned q, const struct rt_wc *wc)
{
	struct qp_side *side = &r->qp[q];
	/* A peer QP in error flushes its receive ring: those buffers took no message. */
	if (wc->status != RT_WC_SUCCESS && rt_qp_state(side->peer) == RT_QPS_ERROR)
		return;
	struct wr_entry *e = next_receiving_wr(side);
	uint8_t *mem = r->dut->memory(r->dut->ctx);
	side->next_recv++;
	if (!e) {
		run_fail(r, "QP %u: the peer received message %u, but the device was given only %u that take a receive",
		     q, side->next_recv, side->next_recv - 1);
		return;
	}
	if (wc->status != RT_WC_SUCCESS) {
		run_fail(r, "QP %u: wr_id %" PRIx64 ": the peer's receive completed with status %d", q, e->wr.wr_id,
		     wc->status);
		return;
	}
	bool imm = e->wr.opcode == RT_DUT_SEND_IMM || e->wr.opcode == RT_DUT_WRITE_IMM;
	if (wc->with_imm != imm || (imm && wc->imm != e->wr.imm))
		run_fail(r, "QP %u: wr_id %" PRIx64 ": immediate %s%08x at the peer, expected %s%08x", q, e->wr.wr_id,
		     wc->with_imm ? "" : "none ", wc->imm, imm ? "" : "none ", e->wr.imm);
	if (e->wr.opcode != RT_DUT_WRITE_IMM) {
		const uint8_t *src = mem + (e->wr.local_addr - r->dut->info.mem_base);
		if (wc->byte_len != e->wr.length)
			run_fail(r, "QP %u: SEND wr_id %" PRIx64 ": the peer received %u bytes, not the %u posted", q,
				 e->wr.wr_id, wc->byte_len, e->wr.length);
		else if (memcmp(rt_qp_recv_memory(side->peer) + wc->recv_offset, src, e->wr.length))
			run_fail(r, "QP %u: SEND wr_id %" PRIx64 ": the %u bytes the peer received differ from the "
				 "device's memory", q, e->wr.wr_id, e->wr.length);
	}
	e->received = true;
	post_receives(r, side);
}

/* ---- Work ---------------------------------------------------------- */

static uint32_t wr_length(struct runner *r, uint32_t pmtu, uint32_t i)
{
	const struct rt_run_spec *s = r->spec;
	switch (s->sizes) {
	case RT_SIZES_FIXED:
		return s->size;
	case RT_SIZES_RANDOM:
		return (uint32_t)(rt_splitmix64(&r->rng) % (3 * pmtu + 8));
	case RT_SIZES_CLASSES:
		break;
	}
	const uint32_t cls[] = { 0, 1, 2, 3, 5, 7, pmtu - 1, pmtu, pmtu + 1, 2 * pmtu + 1, 3 * pmtu + 5 };
	return cls[i % (sizeof cls / sizeof cls[0])];
}

static uint8_t wr_opcode(const struct rt_run_spec *s, uint32_t i)
{
	uint8_t ops[4], n = 0;
	for (uint8_t op = 0; op < 4; op++)
		if (s->opcodes >> op & 1)
			ops[n++] = op;
	return n ? ops[i % n] : RT_DUT_WRITE;
}

/* The generator's WRs, as roce_txgen makes them: from the bottom of both memories. */
static void plan_generator_wrs(struct runner *r, unsigned q, struct qp_side *side)
{
	const struct rt_run_spec *s = r->spec;
	const struct rt_dut_info *info = &r->dut->info;
	for (uint32_t k = 0; k < s->txmeta_n; k++) {
		struct wr_entry *e = &side->wrs[side->n_wrs++];
		uint8_t op = wr_opcode(s, q);
		struct rt_txgen_msg m;
		rt_txgen_message(q, s->txmeta_len, k, &m);
		e->wr = (struct rt_dut_wr){ .qp = q, .opcode = op, .local_addr = info->mem_base + m.local_offset,
					    .length = s->txmeta_len, .remote_va = PEER_VA + m.remote_offset,
					    .rkey = PEER_RKEY, .imm = m.imm, .wr_id = m.wr_id };
	}
}

/*
 * Native WRs: random sources; destinations above the generator's, laid out
 * one after another with random gaps, wrapping in the peer's memory.
 */
static void plan_native_wrs(struct runner *r, unsigned q, struct qp_side *side)
{
	const struct rt_run_spec *s = r->spec;
	const struct rt_dut_info *info = &r->dut->info;
	uint64_t dest = (uint64_t)s->txmeta_n * s->txmeta_len;
	for (uint32_t i = 0; i < s->wrs_per_qp; i++) {
		struct wr_entry *e = &side->wrs[side->n_wrs++];
		uint32_t len = wr_length(r, side->pmtu, i);
		if (dest + len > side->mem_size)
			dest = (uint64_t)s->txmeta_n * s->txmeta_len;
		/* Drawn one statement each: the order of the evaluations inside an
		 * initializer list is unspecified, and a seed must give the same run
		 * whatever the compiler. */
		uint64_t local_offset = rt_splitmix64(&r->rng) % (info->mem_size - len);
		uint32_t imm = (uint32_t)rt_splitmix64(&r->rng);
		e->wr = (struct rt_dut_wr){
			.qp = q,
			.opcode = wr_opcode(s, i),
			.local_addr = info->mem_base + local_offset,
			.length = len,
			.remote_va = PEER_VA + dest,
			.rkey = q == 0 && i + 1 == s->bad_rkey_wr ? PEER_RKEY ^ 0x100 : PEER_RKEY,
			.imm = imm,
			.wr_id = (uint64_t)q << 40 | (i + 1),
		};
		dest += len + rt_splitmix64(&r->rng) % 61;
	}
}

/*
 * Each WR's last PSN, in the order the device numbers them: its generator's
 * or its native WRs (a test gives a QP one kind).
 */
static void number_psns(struct qp_side *side)
{
	uint32_t next_psn = 0;
	for (uint32_t i = 0; i < side->n_wrs; i++) {
		struct wr_entry *e = &side->wrs[i];
		uint32_t pkts = e->wr.length ? (e->wr.length + side->pmtu - 1) / side->pmtu : 1;
		next_psn += pkts;
		e->last_psn = next_psn - 1;
	}
}

/* Every WR succeeds, but for fail_wr: QP 0's native WR of that number fails, the ones after it are flushed. */
static void expect_statuses(const struct rt_run_spec *s, unsigned q, struct qp_side *side)
{
	for (uint32_t i = 0; i < side->n_wrs; i++) {
		struct wr_entry *e = &side->wrs[i];
		uint32_t num = i + 1 - s->txmeta_n;	/* native WRs number from 1 */
		if (q == 0 && s->fail_wr && i >= s->txmeta_n)
			e->expect = num < s->fail_wr ? RT_DUT_SUCCESS
				  : num == s->fail_wr ? s->fail_status : RT_DUT_FLUSHED;
	}
}

/* The WRs of every QP and what each is expected to complete with. */
static int plan_work(struct runner *r, struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	if (s->sizes == RT_SIZES_FIXED && s->size >= r->dut->info.mem_size) {
		rt_error_set(err, "the device's memory (%u bytes) cannot hold this test's messages of %u bytes",
			     r->dut->info.mem_size, s->size);
		return -1;
	}
	for (unsigned q = 0; q < s->n_qp; q++) {
		struct qp_side *side = &r->qp[q];
		uint32_t n = s->wrs_per_qp + s->txmeta_n;
		side->wrs = calloc(n ? n : 1, sizeof *side->wrs);
		if (!side->wrs) {
			rt_error_set(err, "out of memory");
			return -1;
		}
		plan_generator_wrs(r, q, side);
		plan_native_wrs(r, q, side);
		number_psns(side);
		expect_statuses(s, q, side);
		r->n_wrs += side->n_wrs;
	}
	return 0;
}

static int start_work(struct runner *r)
{
	const struct rt_run_spec *s = r->spec;
	char msg[256];
	for (unsigned q = 0; q < s->n_qp; q++) {
		struct qp_side *side = &r->qp[q];
		if (s->txmeta_n) {
			uint8_t op = wr_opcode(s, q);
			struct rt_cm_msg m = { .loc_qpn = side->dut_qpn, .listening_port = HOST_CM_PORT,
					       .txmeta_valid = true, .start = true,
					       .is_immediate = op == RT_DUT_SEND_IMM || op == RT_DUT_WRITE_IMM,
					       .tx_write = op >= RT_DUT_WRITE, .dma_length = s->txmeta_len,
					       .n_transfers = s->txmeta_n };
			run_send_cm(r, &m);
			r->cm_pending++;
		}
	}
	/* Native WRs round robin over the QPs, as an application spreading its work would post them. */
	for (uint32_t i = s->txmeta_n;; i++) {
		bool any = false;
		for (unsigned q = 0; q < s->n_qp; q++) {
			struct qp_side *side = &r->qp[q];
			if (i >= side->n_wrs)
				continue;
			any = true;
			if (r->dut->post_wr(r->dut->ctx, &side->wrs[i].wr, msg, sizeof msg)) {
				run_fail(r, "posting QP %u's WR %u: %s", q, i + 1, msg);
				return -1;
			}
		}
		if (!any)
			return 0;
	}
}

/* ---- The run ------------------------------------------------------- */

/* The QP a device frame belongs to: it is addressed to that QP's peer. */
static int peer_of(const struct runner *r, uint32_t dest_qpn)
{
	for (unsigned q = 0; q < r->spec->n_qp; q++)
		if (peer_qpn(q) == dest_qpn)
			return (int)q;
	return -1;
}

/* Ethernet bytes on the wire per frame: preamble 8 + frame + FCS 4 + gap 12, 64 at least. */
static int64_t wire_ns(uint32_t len, double gbps)
{
	uint32_t l = len + 4 < 64 ? 64 : len + 4;
	return (int64_t)llround((l + 20) * 8.0 / gbps);
}

static void arrivals(struct runner *r, int64_t t);

/*
 * The device's frames: RoCE onto the link, CM replies straight to the host.
 * What arrived before each is delivered first, so the capture is in time order.
 */
static void from_device(struct runner *r)
{
	int64_t t;
	uint32_t len;
	while ((len = run_pull(r, &t)) > 0) {
		arrivals(r, t);
		r->res->frames_to_peer++;
		r->last_activity = r->now;
		struct rt_cm_msg m;
		if (run_cm_reply(r, r->buf, len, &m)) {
			run_capture(r, t, r->buf, len);
			run_cm_answer_is(r, &m, RT_CM_ACK, "txmeta");
			if (r->cm_pending)
				r->cm_pending--;
			else
				run_fail(r, "a CM reply nobody asked for");
			continue;
		}
		struct rt_packet p;
		int q = -1;
		if (rt_parse(&p, RT_LINK_ETHERNET, r->buf, len, len) != RT_PARSE_ROCE || (q = peer_of(r, p.bth.dest_qp)) < 0) {
			run_capture(r, t, r->buf, len);
			run_fail(r, "the device sent a frame of %u bytes that is neither a CM reply nor RoCE to an open QP", len);
			continue;
		}
		run_capture(r, t, r->buf, len);
		if (memcmp(r->buf, r->addr.host_mac, 6))
			run_fail(r, "RoCE frame to a MAC address other than the host's");
		if (r->tx_first < 0)
			r->tx_first = t;
		r->tx_last_end = t + wire_ns(len, r->dut->info.mac_gbps > 0 ? r->dut->info.mac_gbps : 100);
		if (r->now - r->tx_last_end > r->late_take)
			r->late_take = r->now - r->tx_last_end;
		/* Sent at t, before r->now: the link's delay keeps its arrival ahead of the clock. */
		uint8_t *slot = rt_wire_frame_buffer(r->wire, 0);
		memcpy(slot, r->buf, len);
		rt_wire_send(r->wire, 0, t, slot, len, RT_BUG_NONE);
		run_twin_frame(r, 0, (unsigned)q);
	}
}

/*
 * What an ACK, NAK or RNR NAK on its way into the device acknowledges: an
 * ACK its PSN, a NAK everything before its PSN. A success completion must
 * not come before the device was told its last PSN is acknowledged.
 */
static void note_ack(struct runner *r, const uint8_t *frame, uint32_t len)
{
	struct rt_packet p;
	if (rt_parse(&p, RT_LINK_ETHERNET, frame, len, len) != RT_PARSE_ROCE || !p.op ||
	    !(p.op->ext & RT_EXT_AETH))
		return;
	for (unsigned q = 0; q < r->spec->n_qp; q++) {
		struct qp_side *side = &r->qp[q];
		if (side->dut_qpn != p.bth.dest_qp)
			continue;
		bool ack = rt_aeth_type(p.ext.aeth.syndrome) == RT_AETH_ACK;
		uint32_t n = (p.bth.psn - side->dut_psn) & 0xFFFFFF;
		if (!ack) {
			if (!n)
				return;	/* nothing before the first PSN */
			n--;
		}
		if (n < 0x800000 && (!side->acked_any || n > side->acked)) {
			side->acked = n;
			side->acked_any = true;
		}
	}
}

/* Frames that arrived by time t: the peer's into the device (and the capture), the device's to the peer. */
static void arrivals(struct runner *r, int64_t t)
{
	struct rt_wire_frame f;
	while (rt_wire_receive(r->wire, t, &f)) {
		r->last_activity = r->now;
		if (f.dir == 1) {
			if (!f.faulted) {
				run_capture(r, f.arrive, f.data, f.len);
				note_ack(r, f.data, f.len);
			}
			run_push(r, f.data, f.len);
			if (r->now - f.arrive > r->due_late)
				r->due_late = r->now - f.arrive;
			r->pushed = true;
			continue;
		}
		struct rt_packet p;
		if (rt_parse(&p, RT_LINK_ETHERNET, f.data, f.len, f.len) != RT_PARSE_ROCE)
			continue;	/* a corrupted header: nobody's */
		int q = peer_of(r, p.bth.dest_qp);
		if (q >= 0)
			rt_qp_receive(r->qp[q].peer, f.arrive, f.data, f.len);
	}
}

static void peer_turn(struct runner *r)
{
	const struct rt_run_spec *s = r->spec;
	if (!r->recv_posting && s->peer == RT_PEER_RNR && r->now >= (int64_t)s->recv_post_us * 1000) {
		r->recv_posting = true;
		for (unsigned q = 0; q < s->n_qp; q++)
			post_receives(r, &r->qp[q]);
	}
	for (unsigned q = 0; q < s->n_qp; q++) {
		struct qp_side *side = &r->qp[q];
		if (rt_qp_next_deadline(side->peer) <= r->now)
			rt_qp_advance(side->peer, r->now);
		struct rt_wc wc;
		while (rt_qp_poll_cq(side->peer, &wc))
			if (wc.opcode == RT_WR_RECV)
				peer_received(r, q, &wc);
		/*
		 * The peer's NIC queues what its QP hands it and sends back to
		 * back: a frame goes out when the one before it is on the wire,
		 * even if that is after this step's time.
		 */
		for (;;) {
			enum rt_qp_bug bug;
			uint8_t *buf = rt_wire_frame_buffer(r->wire, 1);
			size_t n = rt_qp_next_frame(side->peer, r->now, buf, MAX_FRAME, &bug);
			if (!n)
				break;
			int64_t t = rt_wire_tx_free(r->wire, 1) > r->now ? rt_wire_tx_free(r->wire, 1) : r->now;
			rt_wire_send(r->wire, 1, t, buf, (uint32_t)n, bug);
			run_twin_frame(r, 1, q);
			r->last_activity = r->now;
		}
	}
}

static struct wr_entry *find_generator_wr(struct qp_side *side, uint64_t wr_id)
{
	for (uint32_t i = 0; i < side->n_wrs; i++)
		if (side->wrs[i].wr.wr_id == wr_id && !side->wrs[i].completed)
			return &side->wrs[i];
	return NULL;
}

static void completions(struct runner *r)
{
	struct rt_dut_cpl c;
	while (r->dut->poll_cpl(r->dut->ctx, &c)) {
		r->last_activity = r->now;
		r->res->completions++;
		if (c.qp >= r->spec->n_qp) {
			run_fail(r, "a completion for QP %u, which was not opened", c.qp);
			continue;
		}
		struct qp_side *side = &r->qp[c.qp];
		struct wr_entry *e;
		if (c.wr_id >> 63) {
			e = find_generator_wr(side, c.wr_id);
			if (!e) {
				run_fail(r, "QP %u: a completion for generator wr_id %" PRIx64 " that is not due", c.qp, c.wr_id);
				continue;
			}
		} else {
			/* Native WRs complete in posting order. */
			while (side->next_cpl < side->n_wrs && side->wrs[side->next_cpl].wr.wr_id >> 63)
				side->next_cpl++;
			if (side->next_cpl >= side->n_wrs) {
				run_fail(r, "QP %u: completion wr_id %" PRIx64 " with no WR outstanding", c.qp, c.wr_id);
				continue;
			}
			e = &side->wrs[side->next_cpl++];
			if (e->wr.wr_id != c.wr_id) {
				run_fail(r, "QP %u: completion for wr_id %" PRIx64 " where %" PRIx64 " was due", c.qp, c.wr_id,
				     e->wr.wr_id);
				continue;
			}
		}
		e->completed = true;
		e->status = c.status;
		r->n_done++;
		if (c.status == RT_DUT_SUCCESS && (!side->acked_any || side->acked < e->last_psn))
			run_fail(r, "QP %u: wr_id %" PRIx64 " completed before the device was told its last PSN %06x was "
			     "acknowledged", c.qp, c.wr_id, (side->dut_psn + e->last_psn) & 0xFFFFFF);
		if (c.status != e->expect)
			run_fail(r, "QP %u: wr_id %" PRIx64 " (%s, %u bytes) completed %s, expected %s", c.qp, c.wr_id,
			     rt_dut_opcode_name(e->wr.opcode), e->wr.length, rt_dut_status_name(c.status),
			     rt_dut_status_name(e->expect));
	}
}

static bool all_quiet(struct runner *r)
{
	if (r->n_done < r->n_wrs || r->cm_pending || rt_wire_next_arrival(r->wire) != INT64_MAX ||
	    !r->dut->quiet(r->dut->ctx))
		return false;
	for (unsigned q = 0; q < r->spec->n_qp; q++)
		if (!rt_qp_idle(r->qp[q].peer))
			return false;
	return true;
}

/* The frames the harness pushed in the turn that just took turn_ns went out within it. */
static void note_answers(struct runner *r, int64_t turn_ns)
{
	if (r->pushed && r->due_late + turn_ns > r->late_answer)
		r->late_answer = r->due_late + turn_ns;
	r->pushed = false;
	r->due_late = 0;
}

static void run_work(struct runner *r)
{
	uint64_t quiet = 0, last_report = 0;
	uint64_t limit = (uint64_t)(0.2 / (r->ns_per_tick * 1e-9));	/* 200 ms of device time */
	r->last_activity = r->now;
	for (uint64_t start = r->dut->now(r->dut->ctx);;) {
		int64_t turn_start = r->now;
		run_ticks(r, CHUNK_TICKS);
		note_answers(r, r->now - turn_start);
		from_device(r);
		arrivals(r, r->now);
		peer_turn(r);
		completions(r);
		if (r->opt->on_progress && r->n_done != last_report && r->n_wrs) {
			last_report = r->n_done;
			r->opt->on_progress(r->opt->ctx, r->spec, (double)r->n_done / r->n_wrs);
		}
		quiet = all_quiet(r) ? quiet + CHUNK_TICKS : 0;
		if (quiet >= SETTLE_TICKS)
			return;
		if (r->now - r->last_activity > STALL_NS) {
			run_fail(r, "stuck: nothing moved for %d us (%u of %u completions)", STALL_NS / 1000, r->n_done,
			     r->n_wrs);
			return;
		}
		if (r->dut->now(r->dut->ctx) - start > limit) {
			run_fail(r, "not done after 200 ms of device time (%u of %u completions)", r->n_done, r->n_wrs);
			return;
		}
	}
}

/* ---- The verdict --------------------------------------------------- */

/*
 * Every WR of QP q completed, and was received if it takes a receive; what
 * its successful WRITEs carried goes into the peer's expected memory. mem is
 * the device's memory.
 */
static void verify_wrs(struct runner *r, unsigned q, const uint8_t *mem)
{
	struct rt_run_result *res = r->res;
	struct qp_side *side = &r->qp[q];
	uint32_t missing = 0;
	for (uint32_t i = 0; i < side->n_wrs; i++) {
		struct wr_entry *e = &side->wrs[i];
		uint64_t off = e->wr.remote_va - PEER_VA;
		if (!e->completed) {
			if (!missing++)
				run_fail(r, "QP %u: wr_id %" PRIx64 " never completed", q, e->wr.wr_id);
			continue;
		}
		bool write = e->wr.opcode >= RT_DUT_WRITE;
		if (e->status == RT_DUT_SUCCESS) {
			res->payload_bytes += e->wr.length;
			if (write)
				memcpy(side->expect_mem + off, mem + (e->wr.local_addr - r->dut->info.mem_base),
				       e->wr.length);
			bool needs_recv = e->wr.opcode != RT_DUT_WRITE;
			if (needs_recv && !e->received)
				run_fail(r, "QP %u: wr_id %" PRIx64 " completed, but the peer never received it", q,
				     e->wr.wr_id);
		} else if (write) {
			/* A WRITE that failed may have placed some of its bytes: not judged. */
			memcpy(side->expect_mem + off, rt_qp_memory(side->peer) + off, e->wr.length);
		}
	}
	if (missing > 1)
		run_fail(r, "QP %u: %u WRs in all never completed", q, missing);
}

static void verify_peer_memory(struct runner *r, unsigned q)
{
	const struct qp_side *side = &r->qp[q];
	const uint8_t *got = rt_qp_memory(side->peer);
	if (memcmp(got, side->expect_mem, side->mem_size)) {
		uint32_t at = 0;
		while (got[at] == side->expect_mem[at])
			at++;
		run_fail(r, "QP %u: the peer's memory differs from what the WRITEs carried, first at VA %" PRIx64, q,
		     (uint64_t)(PEER_VA + at));
	}
}

/* The device's counters: the recovery the faults demand, drops for the link's corruption only. */
static void verify_counters(struct runner *r)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_run_result *res = r->res;
	struct rt_dut_counters c;
	r->dut->counters(r->dut->ctx, &c);
	res->retransmissions = c.retransmissions;
	res->timeouts = c.timeouts;
	res->naks = c.naks;
	res->rnr_naks = c.rnr_naks;
	if (c.retransmissions < s->min_retransmissions || c.timeouts < s->min_timeouts || c.naks < s->min_naks ||
	    c.rnr_naks < s->min_rnr_naks)
		run_fail(r, "the device recovered less than the faults demand: %u retransmissions, %u timeouts, %u NAKs, "
		     "%u RNR NAKs; at least %u, %u, %u, %u expected", c.retransmissions, c.timeouts, c.naks,
		     c.rnr_naks, s->min_retransmissions, s->min_timeouts, s->min_naks, s->min_rnr_naks);
	res->underrun_cycles = c.tx_underrun_cycles;
	res->underrun_frames = c.tx_underrun_frames;
	if (c.tx_underrun_cycles)
		run_fail(r, "TX underrun: tvalid low in %u cycles inside %u frames while the MAC was ready "
		     "(memory latency %u, back-pressure %.2f)", c.tx_underrun_cycles, c.tx_underrun_frames,
		     r->mem_latency, r->p_stall);
	const struct rt_link_stats *back = rt_wire_stats(r->wire, 1);
	if (c.rx_drop_bad_icrc != back->corrupted)
		run_fail(r, "the device dropped %u frames for a bad ICRC; the link corrupted %" PRIu64, c.rx_drop_bad_icrc,
		     back->corrupted);
	if (c.rx_drop_malformed || c.rx_drop_unsupported || c.rx_drop_not_for_us)
		run_fail(r, "the device dropped good frames: malformed %u, unsupported %u, not for it %u",
		     c.rx_drop_malformed, c.rx_drop_unsupported, c.rx_drop_not_for_us);
}

/* The device's ports: the first breach of their contract it saw, as a finding. */
static void check_port(struct runner *r)
{
	const char *perr = r->dut->port_error(r->dut->ctx);
	r->port_checked = true;
	if (perr)
		run_fail(r, "port contract: %s", perr);
}

/* The port contract kept, and every QP in the state the test leaves it in. */
static void verify_device_state(struct runner *r)
{
	const struct rt_run_spec *s = r->spec;
	check_port(r);
	for (unsigned q = 0; q < s->n_qp; q++) {
		unsigned st = r->dut->qp_state(r->dut->ctx, q);
		unsigned want = q == 0 && s->fail_wr ? RT_DUT_QPS_ERROR : RT_DUT_QPS_RTS;
		if (st != want)
			run_fail(r, "QP %u ends in state %u, expected %u", q, st, want);
	}
}

static void add_link_stats(struct runner *r)
{
	struct rt_run_result *res = r->res;
	for (unsigned d = 0; d < 2; d++) {
		const struct rt_link_stats *ls = rt_wire_stats(r->wire, d);
		res->link_dropped += ls->dropped;
		res->link_duplicated += ls->duplicated;
		res->link_reordered += ls->reordered;
		res->link_corrupted += ls->corrupted;
	}
}

/* Goodput from the device's first frame to the end of its last, against its limit and the test's minimum. */
static void verify_goodput(struct runner *r)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_run_result *res = r->res;
	if (s->throughput && r->tx_first >= 0 && r->tx_last_end > r->tx_first) {
		res->has_goodput = true;
		res->opcode = wr_opcode(s, 0);
		res->msg_size = s->size;
		res->goodput_gbps = (double)res->payload_bytes * 8 / (double)(r->tx_last_end - r->tx_first);
		res->limit_gbps = rt_goodput_limit_gbps(res->opcode, s->size, r->qp[0].pmtu,
							 r->dut->info.mac_gbps > 0 ? r->dut->info.mac_gbps : 100);
	}
	if (s->min_gbps > 0 && !(res->goodput_gbps >= s->min_gbps))
		run_fail(r, "goodput %.2f Gb/s, below the %.1f Gb/s this test requires", res->goodput_gbps, s->min_gbps);
}

static void verify(struct runner *r)
{
	const uint8_t *mem = r->dut->memory(r->dut->ctx);
	for (unsigned q = 0; q < r->spec->n_qp; q++) {
		verify_wrs(r, q, mem);
		verify_peer_memory(r, q);
	}
	verify_counters(r);
	verify_device_state(r);
	add_link_stats(r);
	verify_goodput(r);
}

/* ---- The test ------------------------------------------------------ */

static int open_capture(struct runner *r, struct rt_error *err)
{
	if (!r->opt->dir)
		return 0;
	snprintf(r->res->pcap, sizeof r->res->pcap, "%s-%s.pcap", r->spec->suite, r->spec->name);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", r->opt->dir, r->res->pcap);
	r->cap = rt_capture_writer_open(path, rt_link_dlt(RT_LINK_ETHERNET), 65535, err);
	return r->cap ? 0 : -1;
}

/* The rules this test leaves out (rt_run_spec.skip_rules), as cfg and as a --skip option. */
static int skip_rules(const struct runner *r, struct rt_check_config *cfg, char *opt, size_t size,
		      struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	bool request_faults = false;
	for (unsigned i = 0; i < s->n_faults; i++)
		request_faults |= s->faults[i].dir == 0;
	for (int i = 0; i < RT_RULE_COUNT; i++)
		if (request_faults && !strcmp(rt_rule_group((enum rt_rule)i), "RSP"))
			cfg->enabled[i] = false;
	for (const char *p = s->skip_rules; p && *p;) {
		size_t n = strcspn(p, ",");
		char id[64];
		snprintf(id, sizeof id, "%.*s", (int)n, p);
		int rule = rt_rule_find(id);
		if (rule < 0) {
			rt_error_set(err, "test %s: skip_rules names an unknown rule '%s'", s->name, id);
			return -1;
		}
		cfg->enabled[rule] = false;
		p += n + (p[n] == ',');
	}
	size_t used = 0;
	for (int i = 0; i < RT_RULE_COUNT; i++)
		if (!cfg->enabled[i] && used + 40 < size)
			used += (size_t)snprintf(opt + used, size - used, "%s%s", used ? "," : " --skip ",
						 rt_rule_info((enum rt_rule)i)->id);
	return 0;
}

static int setup_checker(struct runner *r, struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_check_config cc;
	rt_check_config_init(&cc);
	uint8_t t = s->timeout ? s->timeout : 14;
	cc.have_timeout = true;
	cc.timeout_us = 4.096 * (double)(1u << t);
	/* The device's timer must run out: twice its value, and a little for the model's timer granularity. */
	cc.timeout_max_us = 2 * cc.timeout_us + TIMER_SLACK_US;
	/* The capture is at the device's port: only its own transmit queue stands between them. */
	cc.in_flight_us = DEVICE_IN_FLIGHT_US;
	cc.retry_cnt = s->retry_cnt;
	cc.rnr_retry = s->rnr_retry;
	cc.ladder_flows = r->opt->ladder_flows;
	cc.on_violation = on_violation;
	cc.ctx = r;
	char *args = r->res->check_args;
	size_t size = sizeof r->res->check_args;
	/* The device's own memory must not leak into its pad bytes (the checker's default: a warning). */
	cc.as_error[RT_RULE_PKT_PAD_ZERO] = true;
	int n = snprintf(args, size,
			 "--timeout-us %.3f --timeout-max-us %.3f --retry-cnt %u --rnr-retry %u --in-flight-us %g "
			 "--errors PKT-PAD-ZERO",
			 cc.timeout_us, cc.timeout_max_us, s->retry_cnt, s->rnr_retry, cc.in_flight_us);
	if (skip_rules(r, &cc, args + n, size - (size_t)n, err))
		return -1;
	r->chk = rt_checker_new(&cc, err);
	return r->chk ? 0 : -1;
}

static void cleanup(struct runner *r)
{
	for (unsigned q = 0; q < RT_RUN_MAX_QP; q++) {
		rt_qp_free(r->qp[q].peer);
		free(r->qp[q].expect_mem);
		free(r->qp[q].wrs);
	}
	rt_wire_free(r->wire);
	rt_checker_free(r->chk);
}

static uint32_t largest_send(const struct qp_side *side)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < side->n_wrs; i++)
		if (side->wrs[i].wr.opcode <= RT_DUT_SEND_IMM && side->wrs[i].wr.length > m)
			m = side->wrs[i].wr.length;
	return m;
}

static int prepare(struct runner *r, struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_dut_config c;
	char msg[256];
	run_dut_config(r, &c, s->pmtu_code[0]);
	if (r->dut->reset(r->dut->ctx, &c, msg, sizeof msg)) {
		rt_error_set(err, "device reset: %s", msg);
		return -1;
	}
	r->mem_state = r->rng;
	rt_fill_random(r->dut->memory(r->dut->ctx), r->dut->info.mem_size, &r->rng);
	r->now = 0;
	if (open_capture(r, err) || setup_checker(r, err))
		return -1;
	struct rt_wire_config wc = { .delay_ns = run_one_way_ns(s),
				     .rate_bps = (uint64_t)((r->dut->info.mac_gbps > 0 ? r->dut->info.mac_gbps : 100) * 1e9),
				     .max_frame = MAX_FRAME, .n_faults = s->n_faults };
	memcpy(wc.faults, s->faults, sizeof s->faults);
	r->wire = rt_wire_new(&wc, err);
	return r->wire ? 0 : -1;
}

static void init_result(struct rt_run_result *res, const struct rt_run_spec *spec, const struct rt_run_options *opt)
{
	memset(res, 0, sizeof *res);
	snprintf(res->suite, sizeof res->suite, "%s", spec->suite);
	snprintf(res->name, sizeof res->name, "%s", spec->name);
	snprintf(res->description, sizeof res->description, "%s", spec->description);
	res->seed = opt->seed;
	res->passed = true;
}

/* Its random numbers come from the seed and the test's name: the same run after run, different per test. */
static struct runner *new_runner(struct rt_dut_ops *dut, const struct rt_run_spec *spec,
				 const struct rt_run_options *opt, struct rt_run_result *res)
{
	struct runner *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->dut = dut;
	r->spec = spec;
	r->opt = opt;
	r->res = res;
	if (opt->addrs)
		r->addr = *opt->addrs;
	else
		rt_run_addrs_default(&r->addr);
	r->tx_first = -1;
	r->ns_per_tick = 1e9 / dut->info.tick_hz;
	r->host_delay_ticks = (uint64_t)((double)opt->host_delay_ns / r->ns_per_tick + 0.5);
	r->rng = opt->seed * 0x9E3779B97F4A7C15ull;
	for (const char *p = spec->name; *p; p++)
		r->rng = (r->rng ^ (uint8_t)*p) * 0x100000001B3ull;
	r->recv_posting = spec->peer == RT_PEER_READY;
	run_bench_pick(r);
	return r;
}

/*
 * ARP, the CM exchange per QP, the work and the verdict. What the device
 * gets wrong is in the result; -1 only for the harness's own errors (err).
 */
static int run_phases(struct runner *r, struct rt_error *err)
{
	const struct rt_run_spec *spec = r->spec;
	if (run_arp(r))
		return 0;
	for (unsigned q = 0; q < spec->n_qp; q++) {
		uint32_t room = spec->throughput ? 4u << 20 : 2u << 20;
		/* A fixed size above that gets its message and a little more. */
		if (spec->sizes == RT_SIZES_FIXED && spec->size > room - (64u << 10))
			room = spec->size + (1u << 20);
		r->qp[q].mem_size = room;
	}
	for (unsigned q = 0; q < spec->n_qp; q++)
		if (run_open_qp(r, q))
			return 0;
	if (run_cm_case(r))
		return 0;
	int rc = plan_work(r, err);
	for (unsigned q = 0; !rc && q < spec->n_qp; q++)
		rc = make_peer(r, q, largest_send(&r->qp[q]), err);
	if (rc)
		return rc;
	for (unsigned q = 0; q < spec->n_qp; q++)
		post_receives(r, &r->qp[q]);
	if (!start_work(r)) {
		run_work(r);
		verify(r);
	}
	/* After the work: with several QPs on the link, which of their frames the faults hit is known now. */
	return r->opt->dir ? run_write_twin(r, err) : 0;
}

/* "the harness took up to X us of the device's time to answer, more than a 10th of WHAT (Y us)" */
static void slow_harness(const struct rt_run_result *res, const char *what, uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size,
		 "the harness took up to %.2f us of the device's time to answer, more than a %dth of %s (%.2f us)",
		 (double)res->reaction_ns / 1000, RT_RUN_TIMING_SHARE, what, (double)ns / 1000);
}

/*
 * Whether the harness answered fast enough for the test's timers to time
 * the device: if not, a test that passed every check is untimed. A failed
 * test says the harness may be why when it was that slow for the timers
 * or for the link's round trip, which sets how much is in flight when an
 * answer comes (and so how many NAKs some faults cause).
 */
static void judge_timing(struct runner *r)
{
	struct rt_run_result *res = r->res;
	res->timer_ns = rt_run_timer_ns(r->spec);
	res->reaction_ns = (uint64_t)(r->late_take + r->late_answer);
	uint64_t rtt = 2ull * run_one_way_ns(r->spec);
	char why[200];
	if (res->passed && res->reaction_ns * RT_RUN_TIMING_SHARE > res->timer_ns) {
		slow_harness(res, "the test's shortest timer", res->timer_ns, why, sizeof why);
		res->passed = false;
		res->untimed = true;
		snprintf(res->failure, sizeof res->failure, "untimed: %s: it timed the harness as much as the device\n",
			 why);
	} else if (!res->passed && res->reaction_ns * RT_RUN_TIMING_SHARE > (rtt < res->timer_ns ? rtt : res->timer_ns)) {
		if (rtt < res->timer_ns)
			slow_harness(res, "the link's round trip", rtt, why, sizeof why);
		else
			slow_harness(res, "the test's shortest timer", res->timer_ns, why, sizeof why);
		run_fail(r, "%s: the harness's delay may be why", why);
	}
}

/* The checker's end-of-capture rules and what the run measured; rc: the run's status so far. */
static void finish_check(struct runner *r, int rc)
{
	struct rt_run_result *res = r->res;
	if (!r->chk)
		return;
	rt_checker_finish(r->chk);
	judge_timing(r);
	res->cycles = r->dut->now(r->dut->ctx);
	res->sim_us = (double)res->cycles * r->ns_per_tick / 1000;
	res->wrs = r->n_wrs;
	if (r->opt->on_checked && !rc)
		r->opt->on_checked(r->opt->ctx, res, r->chk);
}

int rt_run_test(struct rt_dut_ops *dut, const struct rt_run_spec *spec, const struct rt_run_options *opt,
		struct rt_run_result *res, struct rt_error *err)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	init_result(res, spec, opt);
	if (spec->n_qp < 1 || spec->n_qp > RT_RUN_MAX_QP || spec->n_qp > dut->info.n_qp) {
		rt_error_set(err, "test %s: %u QPs, the device has %u", spec->name, spec->n_qp, dut->info.n_qp);
		return -1;
	}
	struct runner *r = new_runner(dut, spec, opt, res);
	if (!r) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	int rc = prepare(r, err);
	if (!rc)
		rc = run_phases(r, err);
	/* A test stopped in its setup: a broken port may be why. */
	if (!rc && !r->port_checked)
		check_port(r);
	finish_check(r, rc);
	struct rt_error cerr;
	if (r->cap && rt_capture_writer_close(r->cap, &cerr) && !rc) {
		*err = cerr;
		rc = -1;
	}
	cleanup(r);
	free(r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rc;
}
