/* SPDX-License-Identifier: MIT */
/*
 * Smoke test of the Verilator model's C API (libroce_dut_sim.so), in plain C
 * and through dlopen, as the harness uses it:
 *   - the ABI, every exported function, parameter checks (a wrong
 *     data_width / n_qp / clk_hz is refused with the built value named);
 *   - after reset, an ARP request for the DUT's IP gets the right reply (two
 *     instances side by side, each with its own address);
 *   - configure (PMTU 4096 set live after reset at 256), then the CM
 *     exchange of cm-frame.md (OPEN_QP, SEND_QP_INFO, MODIFY_QP_RTS) gets
 *     ACKs and brings every QP to RTS;
 *   - the MAC pacing: 12 RDMA WRITEs of 64 KiB per QP at PMTU 4096, never
 *     ACKed (local ACK timeout 0: no retransmissions): consecutive frames
 *     start exactly (len + 24 bytes, at least 84) * 8 / 100 ns apart, the
 *     burst fills >= 99.9 % of 100 Gb/s, and the payloads are the
 *     application memory's bytes (the memory round trip);
 *   - a WR reading outside the memory is reported by port_error, its bytes
 *     answered as zeros;
 *   - pull_tx into a buffer too small, quiet() before and after.
 * It also measures how many cycles per second the model runs while the
 * burst flows. One summary line; exits 1 on failure.
 *
 * usage: test_roce_dut_sim [PATH.so]   (default: libroce_dut_sim.so next to it)
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "roce_dut_sim.h"
#include "rocetest/cm.h"

static int fails;
static const char *cur_test = "setup";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;
	if (fails++ >= 20)
		return;
	printf("FAIL [%s] ", cur_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define CHECK(cond, ...)                  \
	do {                              \
		if (!(cond))              \
			fail(__VA_ARGS__); \
	} while (0)

/* ------------------------------------------------------------------------ */
/* The API, resolved by dlsym */

static struct {
	int (*abi)(void);
	void (*params_init)(struct roce_dut_sim_params *);
	struct roce_dut_sim *(*create)(const struct roce_dut_sim_params *, char *, size_t);
	void (*ops)(struct roce_dut_sim *, struct rt_dut_ops *);
} api;

static const char *const exported[] = {
	"roce_dut_sim_abi", "roce_dut_sim_params_init", "roce_dut_sim_create", "roce_dut_sim_destroy",
	"roce_dut_sim_ops", "roce_dut_sim_reset", "roce_dut_sim_configure", "roce_dut_sim_push_rx",
	"roce_dut_sim_pull_tx", "roce_dut_sim_post_wr", "roce_dut_sim_poll_cpl", "roce_dut_sim_step", "roce_dut_sim_cycle",
	"roce_dut_sim_memory", "roce_dut_sim_counters", "roce_dut_sim_qp_state", "roce_dut_sim_quiet",
	"roce_dut_sim_port_error", "roce_dut_sim_info",
};

/* dlsym returns void *; a function pointer is converted through memcpy (ISO C). */
static void sym(void *lib, const char *name, void *fp, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fail("%s not exported", name);
		return;
	}
	memcpy(fp, &p, size);
}

static void *load(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("test_roce_dut_sim: FAIL: dlopen: %s\n", dlerror());
		exit(1);
	}
	for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++)
		CHECK(dlsym(lib, exported[i]), "%s not exported", exported[i]);
	sym(lib, "roce_dut_sim_abi", &api.abi, sizeof api.abi);
	sym(lib, "roce_dut_sim_params_init", &api.params_init, sizeof api.params_init);
	sym(lib, "roce_dut_sim_create", &api.create, sizeof api.create);
	sym(lib, "roce_dut_sim_ops", &api.ops, sizeof api.ops);
	if (fails) {
		printf("test_roce_dut_sim: FAIL: the .so lacks functions\n");
		exit(1);
	}
	return lib;
}

/* ------------------------------------------------------------------------ */
/* Frames */

static const uint8_t DUT_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint32_t DUT_IP = 0x0A000001;
static const uint8_t HOST_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0xAB, 0x00 };
static const uint32_t HOST_IP = 0x0A000164;
static const uint16_t HOST_CM_PORT = 0x4322;
static const uint32_t HOST_QPN = 0x1200;
static const uint32_t HOST_PSN = 0x4000;
static const uint64_t PEER_VA = 0x00007F0000001000ull;
static const uint32_t PEER_RKEY = 0x5EED0001;
static const uint32_t CFG_RKEY = 0xABCD0042;
static const uint32_t CFG_PSN = 0x100;
static const uint32_t QPN_BASE = 256;

static uint64_t get_be(const uint8_t *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* The host's ARP request for target_ip (the library's, rocetest/cm.h). */
static uint32_t arp_request(uint8_t *f, uint32_t target_ip)
{
	rt_arp_request_build(f, HOST_MAC, HOST_IP, target_ip);
	return RT_ARP_FRAME_BYTES;
}

static bool is_arp_reply(const uint8_t *f, uint32_t len, const uint8_t *dut_mac, uint32_t dut_ip)
{
	uint8_t smac[6], tmac[6];
	uint32_t sip, tip;
	return rt_arp_reply_parse(f, len, smac, &sip, tmac, &tip) && !memcmp(f, HOST_MAC, 6) &&
	       !memcmp(f + 6, dut_mac, 6) && !memcmp(smac, dut_mac, 6) && sip == dut_ip && !memcmp(tmac, HOST_MAC, 6) &&
	       tip == HOST_IP;
}

/* A CM request from the host (UDP 0x4322 -> 0x4321). */
static uint32_t cm_frame(uint8_t *f, struct rt_cm_msg *m)
{
	static uint16_t ip_id;
	struct rt_cm_addr a = { .src_ip = HOST_IP, .dst_ip = DUT_IP, .src_port = HOST_CM_PORT,
				.dst_port = RT_CM_UDP_PORT, .ip_id = ip_id++ };
	memcpy(a.src_mac, HOST_MAC, 6);
	memcpy(a.dst_mac, DUT_MAC, 6);
	m->qp_info_valid = true;
	m->listening_port = HOST_CM_PORT;
	rt_cm_frame_build(f, &a, m);
	return RT_CM_FRAME_BYTES;
}

/* A CM reply from the DUT (UDP 0x8765 -> the listening port), or false. */
static bool cm_reply(const uint8_t *f, uint32_t len, struct rt_cm_msg *m)
{
	struct rt_cm_addr a;
	if (!rt_cm_frame_parse(f, len, &a, m) || a.src_port != RT_CM_REPLY_PORT)
		return false;
	CHECK(!memcmp(a.dst_mac, HOST_MAC, 6) && a.dst_ip == HOST_IP && a.dst_port == HOST_CM_PORT,
	      "CM reply misaddressed");
	return true;
}

/* ------------------------------------------------------------------------ */
/* Driving the device */

static uint8_t frame[16384];

static void config(struct rt_dut_config *c, const struct rt_dut_info *info, const uint8_t *mac, uint32_t ip)
{
	memset(c, 0, sizeof *c);
	memcpy(c->mac, mac, 6);
	c->ip = ip;
	c->rkey = CFG_RKEY;
	c->base_addr = info->mem_base;
	c->psn = CFG_PSN;
	c->pmtu_code = 0;	/* 256; test_cm configures 4096 before opening the QPs */
	for (unsigned i = 0; i < info->n_qp; i++) {
		c->timeout[i] = 0;	/* no local ACK timer: the WRITEs below are never ACKed */
		c->retry_cnt[i] = 7;
		c->rnr_retry[i] = 7;
	}
}

/* Steps until a frame comes out (1, its length in *len) or max cycles pass (0). */
static int next_frame(struct rt_dut_ops *d, uint32_t *len, uint64_t *start_ps, uint64_t max)
{
	for (uint64_t i = 0; i < max; i += 8) {
		int r = d->pull_tx(d->ctx, frame, sizeof frame, len, start_ps);
		if (r != 0)
			return r;
		d->advance(d->ctx, 8);
	}
	return 0;
}

static bool arp(struct rt_dut_ops *d, const uint8_t *mac, uint32_t ip)
{
	char err[256];
	uint32_t len;
	uint64_t t;
	if (d->push_rx(d->ctx, frame, arp_request(frame, ip), err, sizeof err)) {
		fail("push_rx: %s", err);
		return false;
	}
	if (next_frame(d, &len, &t, 2000) != 1) {
		fail("no reply to an ARP request for the DUT's IP");
		return false;
	}
	CHECK(is_arp_reply(frame, len, mac, ip), "the ARP reply (%u bytes) is not the one expected", len);
	return true;
}

static bool cm_exchange(struct rt_dut_ops *d, struct rt_cm_msg *req, struct rt_cm_msg *rep, const char *what)
{
	char err[256];
	uint32_t len;
	uint64_t t;
	if (d->push_rx(d->ctx, frame, cm_frame(frame, req), err, sizeof err)) {
		fail("push_rx: %s", err);
		return false;
	}
	if (next_frame(d, &len, &t, 5000) != 1 || !cm_reply(frame, len, rep)) {
		fail("%s: no CM reply", what);
		return false;
	}
	if (!rep->ack_valid || rep->ack_type != 1) {
		fail("%s: reply ack_valid %d ack_type %d, not ACK", what, rep->ack_valid, rep->ack_type);
		return false;
	}
	return true;
}

/* OPEN_QP, SEND_QP_INFO, MODIFY_QP_RTS: the DUT allocates QP q (QPN 256 + q). */
static bool open_qp(struct rt_dut_ops *d, unsigned q)
{
	struct rt_cm_msg req, rep;
	memset(&req, 0, sizeof req);
	req.req_type = 1;
	if (!cm_exchange(d, &req, &rep, "OPEN_QP"))
		return false;
	CHECK(rep.req_type == 1 && rep.loc_qpn == QPN_BASE + q && rep.loc_psn == CFG_PSN + 0x10000 * q &&
		      rep.loc_rkey == CFG_RKEY && rep.loc_base == d->info.mem_base && rep.loc_ip == DUT_IP,
	      "OPEN_QP reply: QPN %x PSN %x rkey %x base %llx ip %x", rep.loc_qpn, rep.loc_psn, rep.loc_rkey,
	      (unsigned long long)rep.loc_base, rep.loc_ip);
	CHECK(d->qp_state(d->ctx, q) != RT_DUT_QPS_RESET, "QP %u still in RESET after OPEN_QP", q);
	memset(&req, 0, sizeof req);
	req.req_type = 2;
	req.loc_qpn = rep.loc_qpn;
	req.rem_qpn = HOST_QPN + q;
	req.rem_psn = HOST_PSN;
	req.rem_rkey = PEER_RKEY;
	req.rem_base = PEER_VA;
	req.rem_ip = HOST_IP;
	if (!cm_exchange(d, &req, &rep, "SEND_QP_INFO"))
		return false;
	CHECK(rep.rem_qpn == HOST_QPN + q && rep.rem_psn == HOST_PSN && rep.rem_rkey == PEER_RKEY &&
		      rep.rem_base == PEER_VA && rep.rem_ip == HOST_IP,
	      "SEND_QP_INFO reply does not echo the host's values");
	memset(&req, 0, sizeof req);
	req.req_type = 3;
	req.loc_qpn = QPN_BASE + q;
	if (!cm_exchange(d, &req, &rep, "MODIFY_QP_RTS"))
		return false;
	CHECK(d->qp_state(d->ctx, q) == RT_DUT_QPS_RTS, "QP %u in state %u after MODIFY_QP_RTS, not RTS", q,
	      d->qp_state(d->ctx, q));
	return true;
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* Tests */

static void test_params(const struct roce_dut_sim_params *built)
{
	static const char *const names[] = { "data_width", "n_qp", "clk_hz" };
	char err[256], want[32];
	cur_test = "params";
	for (int i = 0; i < 3; i++) {
		struct roce_dut_sim_params p = *built;
		switch (i) {
		case 0:
			p.data_width = built->data_width == 64 ? 512 : 64;
			snprintf(want, sizeof want, "%u", built->data_width);
			break;
		case 1:
			p.n_qp = built->n_qp + 1;
			snprintf(want, sizeof want, "%u", built->n_qp);
			break;
		default:
			p.clk_hz = 156.25e6;
			snprintf(want, sizeof want, "%.0f", built->clk_hz);
			break;
		}
		err[0] = 0;
		struct roce_dut_sim *s = api.create(&p, err, sizeof err);
		CHECK(!s, "a wrong %s was accepted", names[i]);
		CHECK(strstr(err, names[i]) && strstr(err, want), "a wrong %s: message \"%s\" names neither it nor %s",
		      names[i], err, want);
		if (s) {
			struct rt_dut_ops o;
			api.ops(s, &o);
			o.destroy(o.ctx);
		}
	}
}

static struct rt_dut_ops make(const struct roce_dut_sim_params *p)
{
	char err[256];
	struct rt_dut_ops o;
	struct roce_dut_sim *s = api.create(p, err, sizeof err);
	if (!s) {
		printf("test_roce_dut_sim: FAIL: create: %s\n", err);
		exit(1);
	}
	api.ops(s, &o);
	return o;
}

/* Two instances side by side, each answering ARP for its own address. */
static void test_arp(struct rt_dut_ops *d, struct rt_dut_ops *d2)
{
	static const uint8_t MAC2[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	char err[256];
	struct rt_dut_config c;
	struct rt_dut_counters k;
	cur_test = "arp";
	config(&c, &d2->info, MAC2, DUT_IP + 1);
	if (d2->reset(d2->ctx, &c, err, sizeof err))
		fail("reset: %s", err);
	config(&c, &d->info, DUT_MAC, DUT_IP);
	if (d->reset(d->ctx, &c, err, sizeof err))
		fail("reset: %s", err);
	CHECK(d->now(d->ctx) == 0 && d->quiet(d->ctx), "after reset: cycle %llu, quiet %d",
	      (unsigned long long)d->now(d->ctx), d->quiet(d->ctx));
	d2->push_rx(d2->ctx, frame, arp_request(frame, DUT_IP + 1), err, sizeof err);
	d2->advance(d2->ctx, 10);	/* the second instance mid-frame while the first runs */
	arp(d, DUT_MAC, DUT_IP);
	arp(d2, MAC2, DUT_IP + 1);
	d->counters(d->ctx, &k);
	CHECK(k.rx_arp == 1 && k.arp_replies_out == 1 && k.rx_frames == 1, "counters: rx_arp %u replies %u frames %u",
	      k.rx_arp, k.arp_replies_out, k.rx_frames);
	/* an ARP request for another IP goes unanswered */
	d->push_rx(d->ctx, frame, arp_request(frame, DUT_IP + 7), err, sizeof err);
	CHECK(!d->quiet(d->ctx), "quiet with an RX frame queued");
	uint32_t len;
	uint64_t t;
	CHECK(next_frame(d, &len, &t, 2000) == 0, "a reply to an ARP request for another IP");
	CHECK(d->quiet(d->ctx), "not quiet 2000 cycles after an ARP request");
}

static void test_cm(struct rt_dut_ops *d)
{
	struct rt_dut_counters k;
	struct rt_dut_config c;
	char err[256];
	cur_test = "cm";
	/* configure (no reset): a bad value refused, then PMTU 4096 for the QPs opened next */
	config(&c, &d->info, DUT_MAC, DUT_IP);
	c.pmtu_code = 5;
	CHECK(d->configure(d->ctx, &c, err, sizeof err) == -1 && strstr(err, "pmtu_code"), "pmtu_code 5 accepted");
	c.pmtu_code = 4;
	if (d->configure(d->ctx, &c, err, sizeof err))
		fail("configure: %s", err);
	for (unsigned q = 0; q < d->info.n_qp; q++)
		if (!open_qp(d, q))
			return;
	d->counters(d->ctx, &k);
	CHECK(k.rx_cm == 3 * d->info.n_qp && k.cm_acks == 3 * d->info.n_qp && k.cm_naks == 0,
	      "counters: rx_cm %u cm_acks %u cm_naks %u", k.rx_cm, k.cm_acks, k.cm_naks);
}

/* What the pacing test measured. */
struct burst {
	unsigned frames, bad_gaps;
	double wire_ps, span_ps, rate_gbps, cycles_per_s;
};

/* The wire time of a frame of len bytes (no FCS) at 100 Gb/s, in ps. */
static double wire_ps(uint32_t len)
{
	uint32_t bytes = len + 24 < 84 ? 84 : len + 24;
	return bytes * 80.0;
}

/* A RoCE frame from the DUT: checks its payload against the memory at its
 * QP's offset (off[q]). */
static void check_payload(const uint8_t *f, uint32_t len, const uint8_t *mem, uint64_t *off, unsigned n_qp)
{
	uint32_t q = (uint32_t)get_be(f + 47, 3) - HOST_QPN;	/* BTH DestQP */
	if (q >= n_qp) {
		fail("a RoCE frame to QPN %x, not one of the host's", q + HOST_QPN);
		return;
	}
	uint64_t *at = &off[q];
	uint8_t op = f[42];
	uint32_t hdr = 42 + 12 + (op == 0x06 || op == 0x0A ? 16 : 0);
	uint32_t pad = f[43] >> 4 & 3;
	if (len < hdr + pad + 4) {
		fail("RoCE frame of %u bytes, opcode %02x: too short", len, op);
		return;
	}
	uint32_t n = len - hdr - pad - 4;
	if (memcmp(f + hdr, mem + *at, n))
		fail("payload of the frame at memory offset %llu differs from the memory", (unsigned long long)*at);
	*at += n;
}

/*
 * N_WR WRITEs of 64 KiB on every QP (12 of the 16 WQ entries: the port
 * error test adds one; 192 PSNs of the 1024 window), PMTU 4096, never ACKed.
 */
static struct burst test_pacing(struct rt_dut_ops *d)
{
	enum { N_WR = 12, WR_LEN = 65536, PMTU = 4096 };
	const unsigned n_qp = d->info.n_qp, want = n_qp * N_WR * (WR_LEN / PMTU);
	const uint64_t per_qp = (uint64_t)N_WR * WR_LEN;
	struct burst b;
	char err[256];
	uint8_t *mem = d->memory(d->ctx);
	memset(&b, 0, sizeof b);
	cur_test = "pacing";

	uint32_t x = 12345;
	for (uint64_t i = 0; i < n_qp * per_qp; i++) {
		x = x * 1103515245u + 12345u;
		mem[i] = (uint8_t)(x >> 16);
	}
	for (unsigned k = 0; k < N_WR; k++)
		for (unsigned q = 0; q < n_qp; q++) {
			uint64_t at = q * per_qp + (uint64_t)k * WR_LEN;
			struct rt_dut_wr w = { q, RT_DUT_WRITE, d->info.mem_base + at, WR_LEN, PEER_VA + at, PEER_RKEY, 0,
					       0x100 + k };
			if (d->post_wr(d->ctx, &w, err, sizeof err))
				fail("post_wr: %s", err);
		}
	uint64_t off[RT_DUT_MAX_QP], c0 = d->now(d->ctx);
	for (unsigned q = 0; q < n_qp; q++)
		off[q] = q * per_qp;
	double t0 = seconds(), first = 0, prev = 0, last_wire = 0;
	uint32_t len, prev_len = 0;
	uint64_t start;
	while (b.frames < want && d->now(d->ctx) - c0 < 1000000) {
		d->advance(d->ctx, 64);
		while (d->pull_tx(d->ctx, frame, sizeof frame, &len, &start) == 1) {
			if (len < 58 || get_be(frame + 12, 2) != 0x0800 || get_be(frame + 36, 2) != 4791) {
				fail("a frame that is not RoCE (%u bytes) during the burst", len);
				continue;
			}
			check_payload(frame, len, mem, off, n_qp);
			double s = (double)start;
			if (b.frames == 0) {
				first = s;
			} else if (fabs(s - prev - wire_ps(prev_len)) > 1.0) {
				if (b.bad_gaps++ < 5)
					fail("frame %u starts %.0f ps after the previous one (%u bytes), not %.0f",
					     b.frames, s - prev, prev_len, wire_ps(prev_len));
			}
			prev = s;
			prev_len = len;
			last_wire = wire_ps(len);
			b.wire_ps += last_wire;
			b.frames++;
		}
	}
	double dt = seconds() - t0;
	b.cycles_per_s = (double)(d->now(d->ctx) - c0) / dt;
	CHECK(b.frames == want, "%u RoCE frames, expected %u", b.frames, want);
	for (unsigned q = 0; q < n_qp; q++)
		CHECK(off[q] == (q + 1) * per_qp, "QP %u: %llu payload bytes, expected %llu", q,
		      (unsigned long long)(off[q] - q * per_qp), (unsigned long long)per_qp);
	b.span_ps = prev + last_wire - first;
	b.rate_gbps = b.span_ps > 0 ? b.wire_ps / b.span_ps * 100.0 : 0;
	CHECK(b.rate_gbps >= 99.9, "the burst filled %.3f Gb/s of 100", b.rate_gbps);

	struct rt_dut_counters k;
	struct rt_dut_cpl cpl;
	d->counters(d->ctx, &k);
	CHECK(k.tx_pkts == want && k.retransmissions == 0 && k.timeouts == 0, "counters: tx_pkts %u retx %u timeouts %u",
	      k.tx_pkts, k.retransmissions, k.timeouts);
	CHECK(d->poll_cpl(d->ctx, &cpl) == 0, "a completion for a WRITE nobody ACKed");
	CHECK(!d->port_error(d->ctx), "port error: %s", d->port_error(d->ctx));
	return b;
}

/* A WRITE reading past the end of the memory: a port error, the bytes zeros. */
static void test_port_error(struct rt_dut_ops *d)
{
	char err[256];
	uint32_t len;
	uint64_t t;
	cur_test = "port-error";
	struct rt_dut_wr w = { 0, RT_DUT_WRITE, d->info.mem_base + d->info.mem_size - 10, 100, PEER_VA, PEER_RKEY,
			       0, 0x999 };
	if (d->post_wr(d->ctx, &w, err, sizeof err))
		fail("post_wr: %s", err);
	w.qp = 99;
	CHECK(d->post_wr(d->ctx, &w, err, sizeof err) == -1 && strstr(err, "QP"), "a WR on QP 99 was accepted");
	if (next_frame(d, &len, &t, 5000) != 1) {
		fail("no frame for the WR reading past the memory");
		return;
	}
	/* WRITE Only: headers 42 + BTH 12 + RETH 16, 100 bytes, ICRC 4 */
	static const uint8_t zeros[100];
	CHECK(len == 174 && frame[42] == 0x0A && !memcmp(frame + 70, zeros, 100),
	      "the frame reading past the memory: %u bytes, opcode %02x, payload not zeros", len, frame[42]);
	const char *pe = d->port_error(d->ctx);
	CHECK(pe && strstr(pe, "outside the memory"), "port_error: %s", pe ? pe : "(none)");
}

/* pull_tx into a buffer too small: -1 with the length, and the frame stays. */
static void test_pull_small(struct rt_dut_ops *d)
{
	char err[256];
	uint8_t small[8];
	uint32_t need = 0, len = 0;
	uint64_t t;
	cur_test = "pull-small";
	if (d->push_rx(d->ctx, frame, arp_request(frame, DUT_IP), err, sizeof err))
		fail("push_rx: %s", err);
	d->advance(d->ctx, 500);
	CHECK(d->pull_tx(d->ctx, small, sizeof small, &need, &t) == -1 && need >= 42, "pull_tx into 8 bytes");
	CHECK(d->pull_tx(d->ctx, frame, sizeof frame, &len, &t) == 1 && len == need &&
		      is_arp_reply(frame, len, DUT_MAC, DUT_IP),
	      "pull_tx after a buffer too small: not the frame");
	CHECK(d->quiet(d->ctx), "not quiet at the end");
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], exe[PATH_MAX];
	if (argc > 1) {
		snprintf(path, sizeof path, "%s", argv[1]);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		snprintf(path, sizeof path, "%s/libroce_dut_sim.so", dirname(exe));
	}
	void *lib = load(path);
	CHECK(api.abi() == ROCE_DUT_SIM_ABI, "ABI %d, this test is for %d", api.abi(), ROCE_DUT_SIM_ABI);

	struct roce_dut_sim_params p;
	api.params_init(&p);
	test_params(&p);
	struct rt_dut_ops d = make(&p), d2 = make(&p);
	cur_test = "info";
	CHECK(d.info.qpn_base == QPN_BASE && d.info.data_width == p.data_width && d.info.n_qp == p.n_qp &&
		      d.info.mem_size == 32u << 20 && d.info.mac_gbps == 100 && strstr(d.info.name, "roce_endpoint"),
	      "info: %s, qpn_base %u", d.info.name, d.info.qpn_base);

	test_arp(&d, &d2);
	d2.destroy(d2.ctx);
	test_cm(&d);
	struct burst b = { 0, 0, 0, 0, 0, 0 };
	if (!fails) {
		b = test_pacing(&d);
		test_port_error(&d);
		test_pull_small(&d);
	}
	d.destroy(d.ctx);
	dlclose(lib);

	printf("test_roce_dut_sim (%s): ARP, CM to RTS, %u frames paced at %.3f Gb/s (%u bad gaps), "
	       "%.0f cycles/s: %s\n",
	       d.info.name, b.frames, b.rate_gbps, b.bad_gaps, b.cycles_per_s, fails ? "FAILED" : "all passed");
	return fails ? 1 : 0;
}
