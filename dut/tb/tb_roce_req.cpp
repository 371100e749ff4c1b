// SPDX-License-Identifier: MIT
//
// Test bench for dut/rtl/roce_req.v: the C reference model is the peer.
//
// Every descriptor the RTL emits becomes a frame built in C with rt_build()
// from the descriptor's fields, its payload read from the bench's application
// memory at the address of the matching memory read request (requests are
// paired with the descriptors that have a payload, in order, and their length
// must equal payload_len), exactly as the top will. The frame crosses a link
// with a one-way delay (cycles) to a model QP (rt_qp_new, the responder) per
// RTL QP; the model's answers (rt_qp_next_frame) are parsed with rt_parse and
// fed back, after the same delay, as ACK descriptors. Faults: chosen request
// frames dropped, ACKs dropped, a responder without receive buffers (RNR),
// a wrong R_Key (fatal NAK). Frames as seen at the RTL's side (requests when
// sent, answers when delivered; frames lost on the link are not captured)
// go through the conformance checker.
//
// Per test, asserted: every completion in WR order per QP with the expected
// status; for each successful WR, the peer's memory (WRITE) or its receive
// buffer (SEND, byte count and immediate) equals the bench's memory; the
// checker reports 0 errors; and what the test is about (go-back-N after a
// NAK, timeouts, the RNR wait against the table, retry limits, qp_error).
//
// Tests: every PMTU, lengths 0 .. 3*PMTU + odd, all four opcodes, four QPs at
// once, PSN wrap (start 0xFFFFF0), WQ full backpressure, random output
// stalls; a window test (long delay, the window fills and is never exceeded);
// dropped requests (NAK go-back-N resuming Middle/Last); timeout
// retransmission (lost last packet, lost ACKs); retry exceeded; RNR wait and
// resend; RNR retry exceeded; fatal NAK (remote access error) with flush and
// qp_error; a WR to a QP not in RTS (flushed); a random run with loss.
//
// One summary line; exits non-zero on failure.

#include <verilated.h>

#include "Vroce_req.h"
#include "wr_tb.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "rocetest/build.h"
#include "rocetest/checker.h"
#include "rocetest/model.h"
#include "rocetest/packet.h"
}

#ifndef DATA_WIDTH
#define DATA_WIDTH 64
#endif

static const int NQ = 4;
static const uint32_t QPN_BASE = 256;
static const uint32_t WINDOW = 1024;
static const double CLK_HZ = 322266000.0;
static const double NS_PER_CYCLE = 1e9 / CLK_HZ;

static int fails;
#define FAIL(...)                                                    \
	do {                                                         \
		if (fails < 30) {                                    \
			std::printf("FAIL [%s] ", cur_test.c_str()); \
			std::printf(__VA_ARGS__);                    \
			std::printf("\n");                           \
		}                                                    \
		fails++;                                             \
	} while (0)
static std::string cur_test;

// ---------------------------------------------------------------------------
// Bits of Verilator ports

template <class T>
static void set_bits(T &v, int lo, int w, uint64_t x)
{
	uint64_t m = (w >= 64 ? ~0ull : (1ull << w) - 1) << lo;
	v = (T)(((uint64_t)v & ~m) | ((x << lo) & m));
}
template <std::size_t N>
static void set_bits(VlWide<N> &v, int lo, int w, uint64_t x)
{
	for (int b = 0; b < w; b++) {
		int p = lo + b;
		uint32_t bit = 1u << (p % 32);
		if ((x >> b) & 1)
			v[p / 32] |= bit;
		else
			v[p / 32] &= ~bit;
	}
}

static void put_be(uint8_t *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

// ---------------------------------------------------------------------------
// Configuration of a test

static const uint64_t CFG_MAC = 0x020000000001ull;
static const uint32_t CFG_IP = 0x0A000001;
static uint64_t peer_mac(int q) { return 0x020000000100ull + q; }
static uint32_t peer_ip(int q) { return 0x0A000100 + q; }
static uint32_t peer_qpn(int q) { return 0x1200 + 0x11 * q; }
static const uint64_t PEER_VA = 0x00007F0000001000ull;
static const uint32_t PEER_RKEY = 0x5EED0001;
static const uint32_t PEER_MEM = 1u << 20;
static const uint32_t RECV_SIZE = 16384;
static const uint32_t RQ_DEPTH = 96;
static const uint64_t LBASE = 0x0000000123400000ull;
static const uint32_t LMEM = 4u << 20;

struct QpCfg {
	int state = 3;			// qp_state: RTS
	int pmtu_code = 2;
	uint32_t loc_psn = 0;
	int timeout = 3;		// 32.8 us
	int retry = 7;
	int rnr = 7;
	// peer
	uint32_t recv_posted = RQ_DEPTH;	// receive buffers posted at the start
	int min_rnr_timer = 1;
	int post_after_rnr = -1;	// post RQ_DEPTH buffers once this many RNR NAKs were sent
};

struct Test {
	std::string name;
	QpCfg q[NQ];
	std::vector<Wr> wrs;
	int delay = 40;
	double p_desc_ready = 0.85, p_rd_ready = 0.85, p_cpl_ready = 0.7;
	double p_desc_ready_after_timeout = -1;	// >= 0: the output slows down after the first timeout
	// faults: drop the n-th (0-based) transmission of (qp, psn)
	std::function<bool(int, uint32_t, int)> drop_req;
	std::function<bool(int, uint32_t, uint8_t)> drop_ack;
	double p_drop_req = 0, p_drop_ack = 0;
	bool checker = true;
	bool measure_timeouts = false;
	bool strict_goback = false;
	bool rsp_rules = true;		// check the responder rules (see run())	// every NAK sequence error goes back at once	// no NAKs in the test: every resend of una is a timeout
	int checker_timeout = -1;	// timeout code for REQ-TIMEOUT (same on all QPs)
	int checker_retry = -1, checker_rnr = -1;
	uint64_t max_cycles = 3000000;
};

// ---------------------------------------------------------------------------
// The run

static Vroce_req *top;
static uint64_t cycle;
static std::vector<uint8_t> lmem;
static std::mt19937_64 rng(12345);
static double urand() { return std::uniform_real_distribution<double>(0, 1)(rng); }

struct Desc {
	uint64_t dst_mac, src_mac;
	uint32_t src_ip, dst_ip;
	uint16_t ip_id;
	uint8_t tos;
	uint16_t sport;
	uint8_t opcode;
	bool se, ack_req;
	uint32_t dest_qp, psn;
	uint64_t va;
	uint32_t rkey, dma_len, imm;
	uint32_t plen;
	uint64_t seen;		// cycle it first showed
};

struct Rd {
	uint64_t addr;
	uint32_t len;
};

struct InFlight {
	uint64_t due;
	int qp;
	std::vector<uint8_t> frame;
};

struct AckIn {
	uint64_t due;
	uint32_t dest_qp, psn, msn;
	uint8_t syn;
	std::vector<uint8_t> frame;
};

struct Totals {
	uint64_t tests, packets, retx, timeouts, naks, rnr_naks, cycles, checked_frames;
} tot;

static struct rt_checker *chk;
static uint64_t chk_frame;
static uint64_t chk_errors;

static void on_violation(void *, const struct rt_violation *v)
{
	if (v->severity != RT_SEV_ERROR)
		return;
	chk_errors++;
	if (chk_errors <= 5)
		std::printf("  checker [%s]: %s: frame %llu: %s\n", cur_test.c_str(), rt_rule_info(v->rule)->id,
			    (unsigned long long)v->frame, v->message);
}

static void tick()
{
	top->clk = 0;
	top->eval();
	top->clk = 1;
	top->eval();
	cycle++;
}

static std::vector<uint8_t> build(const Desc &d, const uint8_t *payload)
{
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	put_be(s.dst_mac, d.dst_mac, 6);
	put_be(s.src_mac, d.src_mac, 6);
	memset(s.src_ip, 0, sizeof s.src_ip);
	memset(s.dst_ip, 0, sizeof s.dst_ip);
	put_be(s.src_ip, d.src_ip, 4);
	put_be(s.dst_ip, d.dst_ip, 4);
	s.tos = d.tos;
	s.ttl = 64;
	s.ip_id = d.ip_id;
	s.ip_df = true;
	s.udp_sport = d.sport;
	s.udp_dport = 4791;
	s.udp_checksum = false;
	s.bth.opcode = d.opcode;
	s.bth.se = d.se;
	s.bth.pkey = 0xFFFF;
	s.bth.dest_qp = d.dest_qp;
	s.bth.ack_req = d.ack_req;
	s.bth.psn = d.psn;
	s.ext.reth.va = d.va;
	s.ext.reth.rkey = d.rkey;
	s.ext.reth.dma_len = d.dma_len;
	s.ext.imm = d.imm;
	s.payload = payload;
	s.payload_len = d.plen;
	std::vector<uint8_t> buf(rt_build_frame_len(&s));
	size_t n = rt_build(&s, buf.data(), buf.size());
	if (n != buf.size()) {
		std::fprintf(stderr, "rt_build failed\n");
		std::exit(2);
	}
	return buf;
}

// The capture at the RTL's edge: a request at the clock edge that emitted its
// descriptor, an answer at the edge that processed it (one after it was
// taken); requests first at equal times. Sorted and fed to the checker at the end.
struct Captured {
	uint64_t at;
	int kind;	// 0 request, 1 answer
	uint64_t seq;
	std::vector<uint8_t> frame;
};
static std::vector<Captured> capture;

static void capture_frame(uint64_t at, int kind, const std::vector<uint8_t> &f)
{
	capture.push_back({ at, kind, capture.size(), f });
}

static void checker_feed()
{
	std::sort(capture.begin(), capture.end(), [](const Captured &a, const Captured &b) {
		if (a.at != b.at)
			return a.at < b.at;
		if (a.kind != b.kind)
			return a.kind < b.kind;
		return a.seq < b.seq;
	});
	for (auto &c : capture) {
		rt_checker_frame(chk, RT_LINK_ETHERNET, ++chk_frame, (int64_t)(c.at * NS_PER_CYCLE), c.frame.data(),
				 (uint32_t)c.frame.size(), (uint32_t)c.frame.size());
		tot.checked_frames++;
	}
	capture.clear();
}

struct Result {
	uint64_t timeouts = 0, naks = 0, rnr_naks = 0, retx = 0, sent = 0;
	int qp_error[NQ] = {};
	std::vector<double> rnr_waits_ns;	// NAK accepted -> resend of its PSN shown, minus the table time
	std::vector<double> timeout_gaps_ns;	// last send -> resend without NAK, minus the timeout
	uint32_t max_outstanding[NQ] = {};
	std::map<std::pair<int, uint32_t>, int> tx_count;
	std::map<int, std::vector<uint8_t>> opcodes_after_nak;
};

static Result run(Test &t)
{
	Result r;
	cur_test = t.name;
	tot.tests++;

	// the peers
	struct rt_qp *peer[NQ];
	for (int q = 0; q < NQ; q++) {
		struct rt_qp_config c;
		rt_qp_config_init(&c);
		put_be(c.mac, peer_mac(q), 6);
		put_be(c.peer_mac, CFG_MAC, 6);
		c.ip_version = 4;
		put_be(c.ip, peer_ip(q), 4);
		put_be(c.peer_ip, CFG_IP, 4);
		c.udp_sport = 0xC000 + q;
		c.qpn = peer_qpn(q);
		c.peer_qpn = QPN_BASE + q;
		c.sq_psn = 0x4000;
		c.rq_psn = t.q[q].loc_psn;
		c.pmtu = 256u << t.q[q].pmtu_code;
		c.timeout = (uint8_t)t.q[q].timeout;
		c.retry_cnt = (uint8_t)t.q[q].retry;
		c.rnr_retry = (uint8_t)t.q[q].rnr;
		c.min_rnr_timer = (uint8_t)t.q[q].min_rnr_timer;
		c.ack_every = 1;
		c.send_cnp = false;
		c.mem_va = PEER_VA;
		c.mem_size = PEER_MEM;
		c.rkey = PEER_RKEY;
		c.rq_depth = RQ_DEPTH;
		c.recv_size = RECV_SIZE;
		struct rt_error err;
		peer[q] = rt_qp_new(&c, &err);
		if (!peer[q]) {
			std::fprintf(stderr, "rt_qp_new: %s\n", err.msg);
			std::exit(2);
		}
		for (uint32_t i = 0; i < t.q[q].recv_posted; i++) {
			struct rt_recv_wr rw = { 0x9000 + i };
			rt_qp_post_recv(peer[q], &rw, &err);
		}
	}
	bool posted_late[NQ] = {};

	// the checker
	struct rt_check_config cc;
	rt_check_config_init(&cc);
	cc.on_violation = on_violation;
	if (t.checker_timeout >= 0) {
		cc.have_timeout = true;
		cc.timeout_us = 4.096 * (double)(1u << t.checker_timeout);
	}
	// With loss on the link, a tap at the requester cannot tell what the responder
	// had received when it answered: the responder rules (the peer is the model
	// itself, not under test) are checked in the runs without request loss (and
	// without spurious timeouts) only.
	if (t.drop_req || t.p_drop_req > 0 || !t.rsp_rules)
		for (int i = 0; i < RT_RULE_COUNT; i++)
			if (!strncmp(rt_rule_info((enum rt_rule)i)->id, "RSP-", 4))
				cc.enabled[i] = false;
	cc.retry_cnt = t.checker_retry;
	cc.rnr_retry = t.checker_rnr;
	struct rt_error cerr;
	chk = t.checker ? rt_checker_new(&cc, &cerr) : nullptr;
	chk_frame = 0;
	chk_errors = 0;

	// the RTL: reset, configuration
	top->rst = 1;
	top->s_wr_valid = 0;
	top->s_ack_valid = 0;
	top->m_desc_ready = 0;
	top->m_rd_ready = 0;
	top->m_cpl_ready = 0;
	top->cfg_mac = CFG_MAC;
	top->cfg_ip = CFG_IP;
	for (int q = 0; q < NQ; q++) {
		set_bits(top->qp_state, 3 * q, 3, 0);
		set_bits(top->qp_rem_qpn, 24 * q, 24, peer_qpn(q));
		set_bits(top->qp_rem_ip, 32 * q, 32, peer_ip(q));
		set_bits(top->qp_rem_mac, 48 * q, 48, peer_mac(q));
		set_bits(top->qp_loc_psn, 24 * q, 24, t.q[q].loc_psn);
		set_bits(top->qp_pmtu_code, 3 * q, 3, (uint64_t)t.q[q].pmtu_code);
		set_bits(top->cfg_timeout, 5 * q, 5, (uint64_t)t.q[q].timeout);
		set_bits(top->cfg_retry_cnt, 3 * q, 3, (uint64_t)t.q[q].retry);
		set_bits(top->cfg_rnr_retry, 3 * q, 3, (uint64_t)t.q[q].rnr);
	}
	for (int i = 0; i < 4; i++)
		tick();
	top->rst = 0;
	tick();
	uint32_t cnt0_sent = top->stat_pkts_sent, cnt0_retx = top->stat_retransmissions,
		 cnt0_tmo = top->stat_timeouts, cnt0_nak = top->stat_naks, cnt0_rnr = top->stat_rnr_naks;
	for (int q = 0; q < NQ; q++)
		set_bits(top->qp_state, 3 * q, 3, (uint64_t)t.q[q].state);
	tick();

	std::deque<Wr> to_post(t.wrs.begin(), t.wrs.end());
	std::vector<std::deque<Wr>> expect(NQ);
	for (auto &w : t.wrs)
		expect[w.qp].push_back(w);
	size_t completions = 0;
	std::deque<Desc> descs;	// waiting for their read request
	std::deque<Rd> rds;
	std::deque<InFlight> link;
	std::deque<AckIn> acks;
	bool desc_shown = false;
	uint64_t desc_seen = 0;
	// per QP: highest PSN sent + 1, highest acked, last RNR NAK accepted, last send
	bool any_sent[NQ] = {};
	uint32_t hi[NQ] = {}, una[NQ];
	bool rnr_pending[NQ] = {};
	uint64_t rnr_at[NQ] = {};
	uint32_t rnr_psn[NQ] = {};
	int rnr_code[NQ] = {};
	bool nak_pending[NQ] = {};
	uint32_t nak_psn[NQ] = {};
	uint64_t nak_at[NQ] = {};
	std::deque<std::pair<uint64_t, uint32_t>> una_hist[NQ];	// (cycle taken, una after it)
	bool goback_due[NQ] = {};
	uint64_t last_send[NQ] = {};
	std::vector<Wr> successes[NQ];
	for (int q = 0; q < NQ; q++)
		una[q] = t.q[q].loc_psn;
	uint64_t idle = 0;
	uint64_t start = cycle;

	while (cycle - start < t.max_cycles) {
		int64_t now = (int64_t)(cycle * NS_PER_CYCLE);

		// inputs for this cycle
		if (!to_post.empty() && urand() < 0.8) {
			const Wr &w = to_post.front();
			drive_wr(top, w);
		} else {
			top->s_wr_valid = 0;
		}
		if (!acks.empty() && acks.front().due <= cycle) {
			const AckIn &a = acks.front();
			top->s_ack_valid = 1;
			top->s_ack_dest_qp = a.dest_qp;
			top->s_ack_psn = a.psn;
			top->s_ack_syndrome = a.syn;
			top->s_ack_msn = a.msn;
		} else {
			top->s_ack_valid = 0;
		}
		double p_ready = t.p_desc_ready;
		if (t.p_desc_ready_after_timeout >= 0 && top->stat_timeouts != cnt0_tmo)
			p_ready = t.p_desc_ready_after_timeout;
		top->m_desc_ready = urand() < p_ready;
		top->m_rd_ready = urand() < t.p_rd_ready;
		top->m_cpl_ready = urand() < t.p_cpl_ready;
		top->clk = 0;
		top->eval();

		// handshakes at this edge
		bool progress = false;
		if (top->s_wr_valid && top->s_wr_ready) {
			to_post.pop_front();
			progress = true;
		}
		if (top->s_ack_valid && top->s_ack_ready) {
			AckIn a = acks.front();
			acks.pop_front();
			if (chk)
				capture_frame(cycle + 1, 1, a.frame);
			int q = (int)(a.dest_qp - QPN_BASE);
			int type = (a.syn >> 5) & 3;
			if (type == 1 && q >= 0 && q < NQ) {
				rnr_pending[q] = true;
				rnr_at[q] = cycle;
				rnr_psn[q] = a.psn;
				rnr_code[q] = a.syn & 31;
			}
			if (type == 3 && (a.syn & 31) == 0 && q >= 0 && q < NQ) {
				nak_pending[q] = true;
				nak_psn[q] = a.psn;
				nak_at[q] = cycle;
				goback_due[q] = t.strict_goback;
			}
			if (type == 0 && q >= 0 && q < NQ && rt_psn_diff(a.psn + 1, una[q]) > 0 &&
			    rt_psn_diff(a.psn, hi[q]) < 0) {
				una[q] = (a.psn + 1) & 0xFFFFFF;
				una_hist[q].push_back({ cycle, una[q] });
			}
			if (type != 0 && q >= 0 && q < NQ && rt_psn_diff(a.psn, una[q]) > 0 && rt_psn_diff(a.psn, hi[q]) < 0) {
				una[q] = a.psn;
				una_hist[q].push_back({ cycle, una[q] });
			}
			progress = true;
		}
		if (top->m_desc_valid && !desc_shown) {
			desc_shown = true;
			desc_seen = cycle;
		}
		if (top->m_desc_valid && top->m_desc_ready) {
			Desc d;
			d.dst_mac = top->m_desc_dst_mac;
			d.src_mac = top->m_desc_src_mac;
			d.src_ip = top->m_desc_src_ip;
			d.dst_ip = top->m_desc_dst_ip;
			d.ip_id = top->m_desc_ip_id;
			d.tos = top->m_desc_tos;
			d.sport = top->m_desc_udp_sport;
			d.opcode = top->m_desc_opcode;
			d.se = top->m_desc_solicited;
			d.ack_req = top->m_desc_ack_req;
			d.dest_qp = top->m_desc_dest_qp;
			d.psn = top->m_desc_psn;
			d.va = top->m_desc_reth_va;
			d.rkey = top->m_desc_reth_rkey;
			d.dma_len = top->m_desc_reth_len;
			d.imm = top->m_desc_imm;
			d.plen = top->m_desc_payload_len;
			d.seen = desc_seen;
			desc_shown = false;
			descs.push_back(d);
			progress = true;
		}
		if (top->m_rd_valid && top->m_rd_ready) {
			rds.push_back({ top->m_rd_addr, top->m_rd_len });
			progress = true;
		}
		if (top->m_cpl_valid && top->m_cpl_ready) {
			int q = top->m_cpl_qp;
			uint64_t id = top->m_cpl_wr_id;
			int st = top->m_cpl_status;
			if (expect[q].empty()) {
				FAIL("QP %d: completion wr_id %llx status %d with no WR outstanding", q,
				     (unsigned long long)id, st);
			} else {
				Wr w = expect[q].front();
				expect[q].pop_front();
				if (w.id != id || w.expect != st)
					FAIL("QP %d: completion wr_id %llx status %d, expected wr_id %llx status %d", q,
					     (unsigned long long)id, st, (unsigned long long)w.id, w.expect);
				else if (st == 0)
					successes[q].push_back(w);
			}
			completions++;
			progress = true;
		}
		for (int q = 0; q < NQ; q++)
			if ((top->qp_error >> q) & 1) {
				r.qp_error[q]++;
				set_bits(top->qp_state, 3 * q, 3, 7);	// roce_cm: ERROR
			}
		top->clk = 1;
		top->eval();
		cycle++;

		// descriptors paired with their read requests -> frames
		while (!descs.empty() && (descs.front().plen == 0 || !rds.empty())) {
			Desc d = descs.front();
			descs.pop_front();
			const uint8_t *payload = nullptr;
			std::vector<uint8_t> zero;
			if (d.plen) {
				Rd rd = rds.front();
				rds.pop_front();
				if (rd.len != d.plen)
					FAIL("read request of %u bytes for a descriptor of %u", rd.len, d.plen);
				if (rd.addr < LBASE || rd.addr + rd.len > LBASE + LMEM) {
					FAIL("read request outside memory: %llx", (unsigned long long)rd.addr);
					zero.assign(d.plen, 0);
					payload = zero.data();
				} else {
					payload = &lmem[rd.addr - LBASE];
				}
			}
			int q = -1;
			for (int i = 0; i < NQ; i++)
				if (d.dest_qp == peer_qpn(i))
					q = i;
			if (q < 0) {
				FAIL("descriptor for unknown QP %06x", d.dest_qp);
				continue;
			}
			if (d.dst_mac != peer_mac(q) || d.dst_ip != peer_ip(q) || d.src_mac != CFG_MAC ||
			    d.src_ip != CFG_IP || d.tos != 0 || d.se || d.sport < 0xC000)
				FAIL("QP %d: descriptor addressing wrong", q);
			std::vector<uint8_t> f = build(d, payload);
			r.sent++;
			int n = r.tx_count[{ q, d.psn }]++;
			// the RNR wait: from the RNR NAK to its PSN shown again
			if (rnr_pending[q] && d.psn == rnr_psn[q]) {
				rnr_pending[q] = false;
				r.rnr_waits_ns.push_back((double)(d.seen - rnr_at[q]) * NS_PER_CYCLE -
							 (double)rt_rnr_timer_ns((uint8_t)rnr_code[q]));
			}
			// taken at edge c, processed at c + 1: a descriptor emitted from edge c + 2 on
			// (shown from c + 3) is sent after the go-back
			if (goback_due[q] && d.seen >= nak_at[q] + 3) {
				goback_due[q] = false;
				if (d.psn != nak_psn[q])
					FAIL("QP %d: first packet after the NAK sequence error for PSN %06x has PSN %06x", q,
					     nak_psn[q], d.psn);
			}
			// never an acknowledged PSN: una as the RTL knew it when it emitted this one
			while (una_hist[q].size() > 1 && una_hist[q][1].first + 3 <= d.seen)
				una_hist[q].pop_front();
			if (!una_hist[q].empty() && una_hist[q][0].first + 3 <= d.seen &&
			    rt_psn_diff(d.psn, una_hist[q][0].second) < 0)
				FAIL("QP %d: PSN %06x sent again after it was acknowledged (una %06x)", q, d.psn,
				     una_hist[q][0].second);
			// the first resend of a NAK's PSN
			if (nak_pending[q] && d.psn == nak_psn[q]) {
				nak_pending[q] = false;
				r.opcodes_after_nak[q].push_back(d.opcode);
			}
			// (timeout test only) a resend of the oldest unacknowledged PSN: a timeout
			if (t.measure_timeouts && n > 0 && d.psn == una[q]) {
				double gap = (double)(d.seen - last_send[q]) * NS_PER_CYCLE;
				r.timeout_gaps_ns.push_back(gap - (double)rt_local_ack_timeout_ns((uint8_t)t.q[q].timeout));
			}
			last_send[q] = d.seen;
			if (!any_sent[q] || rt_psn_diff(d.psn + 1, hi[q]) > 0)
				hi[q] = (d.psn + 1) & 0xFFFFFF;
			any_sent[q] = true;
			uint32_t out = (hi[q] - una[q]) & 0xFFFFFF;
			if (out > r.max_outstanding[q])
				r.max_outstanding[q] = out;
			bool drop = (t.drop_req && t.drop_req(q, d.psn, n)) || (t.p_drop_req > 0 && urand() < t.p_drop_req);
			// the tap is after the loss (as at a receiver): a lost frame is not captured
			if (!drop) {
				if (chk)
					capture_frame(d.seen - 1, 0, f);
				link.push_back({ cycle + t.delay, q, f });
			}
		}

		// the link to the peers, and their answers
		while (!link.empty() && link.front().due <= cycle) {
			InFlight fl = link.front();
			link.pop_front();
			rt_qp_receive(peer[fl.qp], now, fl.frame.data(), (uint32_t)fl.frame.size());
		}
		for (int q = 0; q < NQ; q++) {
			if (t.q[q].post_after_rnr >= 0 && !posted_late[q] &&
			    rt_qp_stats(peer[q])->rnr_naks_sent >= (uint64_t)t.q[q].post_after_rnr) {
				posted_late[q] = true;
				struct rt_error err;
				for (uint32_t i = 0; i < RQ_DEPTH; i++) {
					struct rt_recv_wr rw = { 0x9000 + i };
					rt_qp_post_recv(peer[q], &rw, &err);
				}
			}
			if (rt_qp_next_deadline(peer[q]) <= now)
				rt_qp_advance(peer[q], now);
			uint8_t buf[9200];
			enum rt_qp_bug bug;
			size_t n;
			while ((n = rt_qp_next_frame(peer[q], now, buf, sizeof buf, &bug)) > 0) {
				struct rt_packet p;
				if (rt_parse(&p, RT_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n) != RT_PARSE_ROCE ||
				    p.bth.opcode != 0x11) {
					FAIL("peer %d sent something other than an ACK", q);
					continue;
				}
				if ((t.drop_ack && t.drop_ack(q, p.bth.psn, p.ext.aeth.syndrome)) ||
				    (t.p_drop_ack > 0 && urand() < t.p_drop_ack))
					continue;
				AckIn a;
				a.due = cycle + t.delay;
				a.dest_qp = p.bth.dest_qp;
				a.psn = p.bth.psn;
				a.syn = p.ext.aeth.syndrome;
				a.msn = p.ext.aeth.msn;
				a.frame.assign(buf, buf + n);
				acks.push_back(a);
			}
		}

		if (!progress && to_post.empty() && completions == t.wrs.size() && link.empty() && acks.empty() &&
		    descs.empty()) {
			if (++idle > 200)
				break;
		} else {
			idle = 0;
		}
	}

	if (completions != t.wrs.size())
		FAIL("%zu of %zu completions after %llu cycles", completions, t.wrs.size(),
		     (unsigned long long)(cycle - start));
	if (!rds.empty())
		FAIL("%zu read requests without a descriptor", rds.size());

	// the peer got exactly what was sent
	for (int q = 0; q < NQ; q++) {
		uint8_t *pm = rt_qp_memory(peer[q]);
		uint8_t *rm = rt_qp_recv_memory(peer[q]);
		std::deque<struct rt_wc> recvs;
		struct rt_wc wc;
		while (rt_qp_poll_cq(peer[q], &wc))
			if (wc.opcode == RT_WR_RECV && wc.status == RT_WC_SUCCESS)
				recvs.push_back(wc);
		for (const Wr &w : successes[q]) {
			const uint8_t *src = &lmem[w.laddr - LBASE];
			if (w.op >= 2) {
				if (memcmp(pm + (w.rva - PEER_VA), src, w.len))
					FAIL("QP %d: WRITE wr_id %llx: peer memory differs", q, (unsigned long long)w.id);
			}
			if (w.op != 2) {
				if (recvs.empty()) {
					FAIL("QP %d: wr_id %llx: no receive completion at the peer", q,
					     (unsigned long long)w.id);
					continue;
				}
				wc = recvs.front();
				recvs.pop_front();
				bool imm = w.op & 1;
				if (wc.with_imm != imm || (imm && wc.imm != w.imm))
					FAIL("QP %d: wr_id %llx: immediate wrong at the peer", q, (unsigned long long)w.id);
				if (w.op < 2) {
					if (wc.byte_len != w.len || memcmp(rm + wc.recv_offset, src, w.len))
						FAIL("QP %d: SEND wr_id %llx: receive buffer differs (%u bytes, want %u)", q,
						     (unsigned long long)w.id, wc.byte_len, w.len);
				}
			}
		}
		if (!recvs.empty())
			FAIL("QP %d: %zu receive completions more than SENDs", q, recvs.size());
		rt_qp_free(peer[q]);
	}

	if (chk) {
		checker_feed();
		rt_checker_finish(chk);
		if (chk_errors)
			FAIL("checker: %llu errors", (unsigned long long)chk_errors);
		rt_checker_free(chk);
		chk = nullptr;
	}

	r.timeouts = top->stat_timeouts - cnt0_tmo;
	r.naks = top->stat_naks - cnt0_nak;
	r.rnr_naks = top->stat_rnr_naks - cnt0_rnr;
	r.retx = top->stat_retransmissions - cnt0_retx;
	if (top->stat_pkts_sent - cnt0_sent != r.sent)
		FAIL("stat_pkts_sent %u, bench saw %llu", top->stat_pkts_sent - cnt0_sent, (unsigned long long)r.sent);
	for (auto &rw : r.rnr_waits_ns)
		if (rw < 0)
			FAIL("resend %.0f ns before the RNR timer ran out", -rw);
	for (auto &g : r.timeout_gaps_ns)
		if (g < 0)
			FAIL("timeout resend %.0f ns early", -g);
	if (getenv("TB_VERBOSE")) {
		double rmin = 1e18, tmin = 1e18;
		for (auto &x : r.rnr_waits_ns)
			rmin = std::min(rmin, x);
		for (auto &x : r.timeout_gaps_ns)
			tmin = std::min(tmin, x);
		std::printf("  %-28s %6llu cycles %5llu pkts %4llu retx %2llu tmo %2llu nak %2llu rnr, out max %u/%u/%u/%u, "
			    "rnr waits %zu (min slack %.0f ns), timeout resends %zu (min slack %.0f ns)\n",
			    t.name.c_str(), (unsigned long long)(cycle - start), (unsigned long long)r.sent,
			    (unsigned long long)r.retx, (unsigned long long)r.timeouts, (unsigned long long)r.naks,
			    (unsigned long long)r.rnr_naks, r.max_outstanding[0], r.max_outstanding[1], r.max_outstanding[2],
			    r.max_outstanding[3], r.rnr_waits_ns.size(), r.rnr_waits_ns.empty() ? 0.0 : rmin,
			    r.timeout_gaps_ns.size(), r.timeout_gaps_ns.empty() ? 0.0 : tmin);
	}
	tot.packets += r.sent;
	tot.retx += r.retx;
	tot.timeouts += r.timeouts;
	tot.naks += r.naks;
	tot.rnr_naks += r.rnr_naks;
	tot.cycles += cycle - start;
	return r;
}

// ---------------------------------------------------------------------------
// Work request helpers

static uint64_t next_id = 1;
static uint64_t rva_next[NQ];

static Wr mkwr(int q, int op, uint32_t len, int expect = 0)
{
	Wr w;
	w.qp = q;
	w.op = op;
	w.len = len;
	w.laddr = LBASE + (rng() % (LMEM - len - 1));
	if (rva_next[q] + len + 64 > PEER_MEM)
		rva_next[q] = 0;
	w.rva = PEER_VA + rva_next[q];
	rva_next[q] += len + 1 + (rng() % 61);
	w.rkey = PEER_RKEY;
	w.imm = (uint32_t)rng();
	w.id = next_id++ | (uint64_t)q << 56;
	w.expect = expect;
	return w;
}

static void reset_rva()
{
	for (int q = 0; q < NQ; q++)
		rva_next[q] = 0;
}

static std::vector<uint32_t> lengths(uint32_t pmtu)
{
	return { 0, 1, 2, 3, 4, 5, 7, pmtu - 1, pmtu, pmtu + 1, 2 * pmtu - 3, 2 * pmtu, 2 * pmtu + 1, 3 * pmtu + 5,
		 3 * pmtu + 7 };
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	top = new Vroce_req;
	lmem.resize(LMEM);
	for (auto &b : lmem)
		b = (uint8_t)rng();

	// 1, 2. every PMTU, every length class, all opcodes, four QPs at once, PSN wrap
	for (int pass = 0; pass < 2; pass++) {
		Test t;
		t.name = pass ? "pmtu-4096-2048-1024-512" : "pmtu-256-512-1024-2048-wrap";
		reset_rva();
		for (int q = 0; q < NQ; q++) {
			t.q[q].pmtu_code = pass ? 4 - q : q;
			t.q[q].loc_psn = (q == 0) ? 0xFFFFF0 : 0x10000 * (q + 1) + 0x123;
		}
		for (int op = 0; op < 4; op++)
			for (int q = 0; q < NQ; q++)
				for (uint32_t len : lengths(256u << t.q[q].pmtu_code))
					t.wrs.push_back(mkwr(q, op, len));
		// interleave QPs
		std::shuffle(t.wrs.begin(), t.wrs.end(), rng);
		Result r = run(t);
		if (r.retx || r.timeouts || r.naks)
			FAIL("clean run with %llu retransmissions", (unsigned long long)r.retx);
	}

	// 3. window: a long round trip, many small packets
	{
		Test t;
		t.name = "window";
		reset_rva();
		t.delay = 1500;
		t.p_desc_ready = t.p_rd_ready = 1.0;
		t.q[0].pmtu_code = 0;
		t.q[0].loc_psn = 0xFFFE00;
		t.q[0].timeout = 6;
		for (int i = 0; i < 8; i++)
			t.wrs.push_back(mkwr(0, 2, 65536));
		Result r = run(t);
		if (r.max_outstanding[0] != WINDOW)
			FAIL("most PSNs outstanding %u, window %u", r.max_outstanding[0], WINDOW);
	}

	// 4. dropped requests: NAK sequence error, go-back-N resuming Middle/Last
	{
		Test t;
		t.name = "nak-go-back-n";
		reset_rva();
		for (int q = 0; q < NQ; q++) {
			t.q[q].pmtu_code = q;
			t.q[q].loc_psn = q == 1 ? 0xFFFFFE : 0x2000 * q;
		}
		for (int q = 0; q < NQ; q++)
			for (int i = 0; i < 6; i++)
				t.wrs.push_back(mkwr(q, i % 4, 5 * (256u << q) + 13));
		// lose the 3rd packet of each QP's first message (a Middle) and one in a later message, once
		uint32_t base[NQ];
		for (int q = 0; q < NQ; q++)
			base[q] = t.q[q].loc_psn;
		t.drop_req = [base](int q, uint32_t psn, int n) {
			uint32_t off = (psn - base[q]) & 0xFFFFFF;
			return n == 0 && (off == 2 || off == 13 || off == 14);
		};
		t.checker_retry = 7;
		t.strict_goback = true;
		Result r = run(t);
		if (r.timeouts)
			FAIL("%llu timeouts: the NAKs should have done it", (unsigned long long)r.timeouts);
		if (r.naks < 4 || r.retx == 0)
			FAIL("%llu NAKs, %llu retransmissions", (unsigned long long)r.naks, (unsigned long long)r.retx);
		for (int q = 0; q < NQ; q++) {
			auto &v = r.opcodes_after_nak[q];
			if (v.empty())
				FAIL("QP %d: no resend after a NAK", q);
			else if (v[0] != 0x01 && v[0] != 0x07)
				FAIL("QP %d: resend after NAK opens with opcode 0x%02x, not Middle", q, v[0]);
		}
	}

	// 5. timeout: the last packet lost; then ACKs lost
	{
		Test t;
		t.name = "timeout";
		reset_rva();
		for (int q = 0; q < NQ; q++) {
			t.q[q].timeout = 1;
			t.q[q].loc_psn = 0xFFFFF8 + q;
		}
		t.measure_timeouts = true;
		t.checker_timeout = 1;
		t.q[0].pmtu_code = 1;
		t.wrs.push_back(mkwr(0, 2, 3 * 512 + 9));	// PSNs +0..+3: lose +3 (Last)
		t.wrs.push_back(mkwr(1, 0, 1000));	// lose the ACKs of QP 1 twice
		t.wrs.push_back(mkwr(2, 3, 100));
		t.wrs.push_back(mkwr(3, 1, 5000));
		uint32_t b0 = t.q[0].loc_psn;
		t.drop_req = [b0](int q, uint32_t psn, int n) { return q == 0 && psn == ((b0 + 3) & 0xFFFFFF) && n == 0; };
		int acks1 = 0;
		t.drop_ack = [&acks1](int q, uint32_t, uint8_t) { return q == 1 && acks1++ < 2; };
		Result r = run(t);
		if (r.timeouts < 2)
			FAIL("%llu timeouts, expected at least 2", (unsigned long long)r.timeouts);
		for (auto &x : r.timeout_gaps_ns)
			if (x > 2 * 4096)
				FAIL("timeout resend %.0f ns after the timeout (more than two 4.096 us ticks)", x);
		if (r.timeout_gaps_ns.size() < 2)
			FAIL("%zu timeout resends seen", r.timeout_gaps_ns.size());
	}

	// 5b. late ACKs overtake a go-back: a round trip longer than the timeout, slow output
	{
		Test t;
		t.name = "late-ack-overtakes";
		reset_rva();
		t.delay = 3000;
		t.p_desc_ready = t.p_rd_ready = 1.0;
		t.p_desc_ready_after_timeout = 0.02;
		t.rsp_rules = false;
		t.q[0].pmtu_code = 0;
		t.q[0].timeout = 1;
		t.q[0].loc_psn = 0xFFFFC0;
		t.wrs.push_back(mkwr(0, 2, 100 * 256));
		t.wrs.push_back(mkwr(0, 1, 40 * 256 - 3));
		t.checker_timeout = 1;
		Result r = run(t);
		// one timeout; the late ACKs then move the resend past what they acknowledge
		if (r.timeouts != 1)
			FAIL("%llu timeouts, expected 1", (unsigned long long)r.timeouts);
	}

	// 6. retry exceeded: QP 0 loses everything; retry_cnt 2
	{
		Test t;
		t.name = "retry-exceeded";
		reset_rva();
		for (int q = 0; q < NQ; q++) {
			t.q[q].timeout = 1;
			t.q[q].retry = 2;
		}
		t.wrs.push_back(mkwr(0, 2, 3000, 1));
		t.wrs.push_back(mkwr(0, 0, 10, 6));
		t.wrs.push_back(mkwr(0, 3, 0, 6));
		t.wrs.push_back(mkwr(1, 2, 3000));
		t.drop_req = [](int q, uint32_t, int) { return q == 0; };
		t.checker_timeout = 1;
		t.checker_retry = 2;
		Result r = run(t);
		if (r.timeouts != 3)
			FAIL("%llu timeouts, expected 3 (retry_cnt 2)", (unsigned long long)r.timeouts);
		if (r.qp_error[0] != 1 || r.qp_error[1] || r.qp_error[2] || r.qp_error[3])
			FAIL("qp_error pulses %d %d %d %d", r.qp_error[0], r.qp_error[1], r.qp_error[2], r.qp_error[3]);
		int first_tx = r.tx_count[{ 0, 0 }];
		if (first_tx != 3)
			FAIL("PSN 0 sent %d times, expected 3", first_tx);
	}

	// 7. RNR: no receive buffers until the 2nd RNR NAK; timer codes 2 and 4
	{
		Test t;
		t.name = "rnr-wait";
		reset_rva();
		for (int q = 0; q < NQ; q++) {
			t.q[q].recv_posted = 0;
			t.q[q].post_after_rnr = 2;
			t.q[q].min_rnr_timer = q % 2 ? 4 : 2;
			t.q[q].rnr = q == 0 ? 7 : 3;
			t.q[q].timeout = 4;
			t.q[q].loc_psn = 0xFFFFFF - q;
		}
		for (int q = 0; q < NQ; q++) {
			t.wrs.push_back(mkwr(q, 0, 3000));
			t.wrs.push_back(mkwr(q, 3, 700));
			t.wrs.push_back(mkwr(q, 1, 5));
		}
		t.checker_rnr = 3;
		Result r = run(t);
		if (r.timeouts)
			FAIL("%llu timeouts during RNR waits", (unsigned long long)r.timeouts);
		for (auto &x : r.rnr_waits_ns)
			if (x > 20000)
				FAIL("resend %.0f ns after the RNR timer ran out (more than two 10 us ticks)", x);
		if (r.rnr_naks < 8 || r.rnr_waits_ns.size() < 8)
			FAIL("%llu RNR NAKs, %zu RNR resends", (unsigned long long)r.rnr_naks, r.rnr_waits_ns.size());
	}

	// 8. RNR retry exceeded: never a buffer; rnr_retry 1
	{
		Test t;
		t.name = "rnr-exceeded";
		reset_rva();
		t.q[0].recv_posted = 0;
		t.q[0].rnr = 1;
		t.q[0].min_rnr_timer = 1;
		t.wrs.push_back(mkwr(0, 2, 600));	// a WRITE goes through
		t.wrs.push_back(mkwr(0, 0, 2000, 2));
		t.wrs.push_back(mkwr(0, 2, 50, 6));
		t.wrs.push_back(mkwr(2, 0, 2000));
		t.checker_rnr = 1;
		Result r = run(t);
		if (r.rnr_naks != 2)
			FAIL("%llu RNR NAKs, expected 2 (rnr_retry 1)", (unsigned long long)r.rnr_naks);
		if (r.qp_error[0] != 1)
			FAIL("qp_error on QP 0: %d pulses", r.qp_error[0]);
	}

	// 9. fatal NAK: a wrong R_Key (remote access error); a WR to a QP not in RTS
	{
		Test t;
		t.name = "fatal-nak";
		reset_rva();
		t.q[3].state = 1;	// INIT
		t.wrs.push_back(mkwr(0, 2, 2000));
		t.wrs.push_back(mkwr(0, 0, 100));
		Wr bad = mkwr(0, 3, 3000, 4);
		bad.rkey ^= 0x100;
		t.wrs.push_back(bad);
		t.wrs.push_back(mkwr(0, 0, 100, 6));
		t.wrs.push_back(mkwr(0, 2, 1, 6));
		t.wrs.push_back(mkwr(1, 2, 4000));
		t.wrs.push_back(mkwr(3, 0, 10, 6));
		Result r = run(t);
		if (r.qp_error[0] != 1 || r.qp_error[3])
			FAIL("qp_error pulses: QP 0 %d, QP 3 %d", r.qp_error[0], r.qp_error[3]);
		if (r.naks != 1)
			FAIL("%llu NAKs, expected 1", (unsigned long long)r.naks);
	}

	// 10. random: four QPs, random sizes and opcodes, random loss of requests and ACKs; the last
	// passes with a round trip close to the timeout (spurious timeouts, late ACKs overtaking go-back)
	for (int pass = 0; pass < 6; pass++) {
		Test t;
		t.name = "random-loss-" + std::to_string(pass + 1);
		reset_rva();
		t.delay = pass < 4 ? 20 + (int)(rng() % 200) : 1350 + (int)(rng() % 300);
		t.p_drop_req = pass == 3 ? 0.0 : 0.01 + 0.01 * (pass % 3);
		t.p_drop_ack = pass == 2 ? 0.0 : 0.03;
		for (int q = 0; q < NQ; q++) {
			t.q[q].pmtu_code = (int)(rng() % 5);
			t.q[q].loc_psn = (uint32_t)(0xFFFFFF - rng() % 300);
			t.q[q].timeout = pass < 4 ? 2 : 1;
		}
		for (int i = 0; i < 160; i++) {
			int q = (int)(rng() % NQ);
			uint32_t pmtu = 256u << t.q[q].pmtu_code;
			uint32_t len = (rng() % 8 == 0) ? (uint32_t)(rng() % 14000) : (uint32_t)(rng() % (3 * pmtu + 8));
			t.wrs.push_back(mkwr(q, (int)(rng() % 4), len));
		}
		t.checker_retry = 7;
		Result r = run(t);
		if (r.retx == 0 && t.p_drop_req > 0)
			FAIL("no retransmission in a lossy run");
	}

	std::printf("tb_roce_req (DATA_WIDTH %d): %llu tests, %llu packets, %llu retransmissions, %llu timeouts, "
		    "%llu NAKs, %llu RNR NAKs, %llu frames checked, %llu cycles: %s\n",
		    DATA_WIDTH, (unsigned long long)tot.tests, (unsigned long long)tot.packets,
		    (unsigned long long)tot.retx, (unsigned long long)tot.timeouts, (unsigned long long)tot.naks,
		    (unsigned long long)tot.rnr_naks, (unsigned long long)tot.checked_frames,
		    (unsigned long long)tot.cycles, fails ? "FAILED" : "all passed");
	top->final();
	delete top;
	return fails ? 1 : 0;
}
