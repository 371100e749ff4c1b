// SPDX-License-Identifier: MIT
//
// Test bench for dut/rtl/roce_endpoint.v, at frame level: the bench is the
// host, the C reference model (rt_qp, the responder) its RDMA side.
//
// Per test: reset, then over the MAC ports an ARP request for the DUT's IP
// (the reply is checked) and, per DUT QP used, the CM exchange of
// cm-frame.md (frames from the library's rocetest/cm.h): OPEN_QP (ACK,
// QPN 256 + i, PSN cfg_psn + i * 0x10000; the QP's PMTU is cfg_pmtu_code at
// that moment) ->
// SEND_QP_INFO (the model QP's QPN / PSN / R_Key / base / IP) -> ACK ->
// MODIFY_QP_RTS -> ACK. A model QP per DUT QP is then created (loc / rem
// swapped: its memory region is the base / R_Key the bench announced) and
// connected at frame level: every RoCE frame the DUT sends goes into
// rt_qp_receive (which verifies the ICRC itself), every frame from
// rt_qp_next_frame goes into the DUT's RX after a link delay. The DUT's
// application memory port is served from a byte array (random stalls), the
// MAC TX side takes beats with random tready.
//
// Work comes from the native WR port and from txmeta CM frames (the built-in
// traffic generator). Asserted per test: every completion (native WRs in WR
// order per QP, generator WRs by wr_id) with status success; the model's
// memory (WRITE) / receive buffers (SEND: bytes, length, immediate) equal the
// DUT's memory; and every frame of the run (both directions, as seen at the
// DUT's ports, frames lost on the link excluded) passes the conformance
// checker with 0 errors. All frames go to build/rtl/tb_roce_endpoint_wW.pcap;
// each test uses its own host IP, so the flows of different tests stay apart
// and `rocetest check` passes the whole file too.
//
// Tests: every PMTU (cfg_pmtu_code 0..4 across the QPs of two tests), all
// four opcodes, lengths 0, 1, 2, 3, 5, 7, PMTU-1, PMTU, PMTU+1, 2*PMTU+1,
// 3*PMTU+5, four QPs at once; txmeta-started transfers (SEND, SEND_IMM,
// WRITE, WRITE_IMM, a frequency divider) merged with native WRs; a dropped
// DUT frame (the model NAKs, the DUT goes back N); dropped ACKs (the DUT's
// local ACK timer); a random run with loss in both directions.
//
// One summary line; exits non-zero on failure.

#include <verilated.h>

#include "Vroce_endpoint.h"
#include "wr_tb.h"
#include "axis_tb.h"

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
#include "rocetest/capture.h"
#include "rocetest/checker.h"
#include "rocetest/cm.h"
#include "rocetest/model.h"
#include "rocetest/packet.h"
}

using tb::KEEP;

static const int NQ = 4;
static const uint32_t QPN_BASE = 256;
static const double CLK_HZ = 322266000.0;
static const double NS_PER_CYCLE = 1e9 / CLK_HZ;

static int fails;
static std::string cur_test;
#define FAIL(...)                                                    \
	do {                                                         \
		if (fails < 30) {                                    \
			std::printf("FAIL [%s] ", cur_test.c_str()); \
			std::printf(__VA_ARGS__);                    \
			std::printf("\n");                           \
		}                                                    \
		fails++;                                             \
	} while (0)

// ---------------------------------------------------------------------------
// Helpers

template <class T>
static void set_bits(T &v, int lo, int w, uint64_t x)
{
	uint64_t m = (w >= 64 ? ~0ull : (1ull << w) - 1) << lo;
	v = (T)(((uint64_t)v & ~m) | ((x << lo) & m));
}

// A MAC address as the 48-bit number the DUT's cfg_mac port and messages use.
static uint64_t mac48(const uint8_t *b)
{
	return (uint64_t)rt_get_be16(b) << 32 | rt_get_be32(b + 2);
}

// ---------------------------------------------------------------------------
// Addresses

static const uint8_t DUT_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint32_t DUT_IP = 0x0A000001;
static const uint8_t HOST_MAC[6] = { 0x02, 0x00, 0x00, 0x00, 0xAB, 0x00 };
static uint32_t HOST_IP = 0x0A000164;	// one per test: the flows of the capture stay apart
static const uint16_t HOST_CM_PORT = 0x4322;
static uint32_t host_qpn(int q) { return 0x1200 + 0x11 * q; }
static const uint32_t HOST_PSN = 0x4000;
static const uint64_t PEER_VA = 0x00007F0000001000ull;
static const uint32_t PEER_RKEY = 0x5EED0001;
static const uint32_t PEER_MEM = 1u << 20;
static const uint32_t NATIVE_OFF = 0x80000;	// native WRITEs from here, the generator's below
static const uint32_t RECV_SIZE = 16384;
static const uint32_t RQ_DEPTH = 96;
static const uint64_t LBASE = 0x0000000123400000ull;	// cfg_base_addr
static const uint32_t LMEM = 4u << 20;
static const uint32_t CFG_RKEY = 0xABCD0042;

// ---------------------------------------------------------------------------
// CM and ARP frames (cm-frame.md), built by the library

static uint16_t cm_ip_id;

// Ethernet / IPv4 / UDP 0x4322 -> 0x4321 / 64-byte payload: 106 bytes
static std::vector<uint8_t> cm_frame(const struct rt_cm_msg &m)
{
	struct rt_cm_addr a = {};
	memcpy(a.src_mac, HOST_MAC, 6);
	memcpy(a.dst_mac, DUT_MAC, 6);
	a.src_ip = HOST_IP;
	a.dst_ip = DUT_IP;
	a.src_port = HOST_CM_PORT;
	a.dst_port = RT_CM_UDP_PORT;
	a.ip_id = cm_ip_id++;
	std::vector<uint8_t> f(RT_CM_FRAME_BYTES);
	rt_cm_frame_build(f.data(), &a, &m);
	return f;
}

static std::vector<uint8_t> arp_request()
{
	std::vector<uint8_t> f(RT_ARP_FRAME_BYTES);
	rt_arp_request_build(f.data(), HOST_MAC, HOST_IP, DUT_IP);
	return f;
}

// ---------------------------------------------------------------------------
// Tests

struct TxMeta {
	int qp;
	int op;
	uint32_t len, n, freq;
};

struct Test {
	std::string name;
	int nqp = NQ;
	int pmtu_code[NQ] = { 2, 2, 2, 2 };
	int timeout = 3;
	uint32_t cfg_psn = 0x100;
	std::vector<Wr> wrs;
	std::vector<TxMeta> txm;
	int delay = 40;
	double p_tx_ready = 0.9, p_mem = 0.9, p_rd_ready = 0.9, p_cpl_ready = 0.8, p_rx_valid = 0.95;
	std::function<bool(int, uint32_t, int)> drop_req;	// (qp, psn, n-th transmission)
	std::function<bool(int, uint32_t, uint8_t)> drop_ack;	// (qp, psn, syndrome)
	double p_drop_req = 0, p_drop_ack = 0;
	int checker_timeout = -1;
	uint64_t max_cycles = 4000000;
};

struct Totals {
	uint64_t tests, wrs, tx_frames, rx_frames, retx, timeouts, naks, checked, cycles;
} tot;

// ---------------------------------------------------------------------------
// The bench's state

static Vroce_endpoint *top;
static uint64_t cycle;
static std::mt19937_64 rng(20240605);
static double urand() { return std::uniform_real_distribution<double>(0, 1)(rng); }
static std::vector<uint8_t> lmem;

static struct rt_capture_writer *pcap;
static struct rt_checker *chk;
static uint64_t chk_frame, chk_errors;

static void on_violation(void *, const struct rt_violation *v)
{
	if (v->severity != RT_SEV_ERROR)
		return;
	chk_errors++;
	if (chk_errors <= 5)
		std::printf("  checker [%s]: %s: frame %llu: %s\n", cur_test.c_str(), rt_rule_info(v->rule)->id,
			    (unsigned long long)v->frame, v->message);
}

static void capture(const std::vector<uint8_t> &f)
{
	int64_t ts = (int64_t)((double)cycle * NS_PER_CYCLE);
	if (pcap)
		rt_capture_write(pcap, ts, f.data(), (uint32_t)f.size(), (uint32_t)f.size());
	if (chk) {
		rt_checker_frame(chk, RT_LINK_ETHERNET, ++chk_frame, ts, f.data(), (uint32_t)f.size(),
				 (uint32_t)f.size());
		tot.checked++;
	}
}

struct Timed {
	uint64_t due;
	std::vector<uint8_t> frame;
	int qp;
};

// RX driver (into the DUT)
static std::deque<Timed> rx_q;
static size_t rx_off;
static bool rx_beat;
// TX monitor
static std::vector<uint8_t> tx_got;
// memory server
struct Rd {
	uint64_t addr;
	uint32_t len;
};
static std::deque<Rd> mem_q;
static uint32_t mem_off;
static bool mem_beat;
// WR driver
static std::deque<Wr> wr_q;
// link to the model
static std::deque<Timed> to_model;
static struct rt_qp *model[NQ];
static std::map<std::pair<int, uint32_t>, int> tx_count;
static std::deque<struct rt_cm_msg> cm_replies;
static int arp_replies;
static const Test *cur;

struct Cpl {
	int qp;
	uint64_t id;
	int status;
};
static std::deque<Cpl> cpls;

static int model_of(uint32_t host_qp)
{
	for (int q = 0; q < NQ; q++)
		if (host_qpn(q) == host_qp)
			return q;
	return -1;
}

static void tx_frame_done(const std::vector<uint8_t> &f)
{
	tot.tx_frames++;
	uint16_t et = f.size() >= 14 ? rt_get_be16(&f[12]) : 0;
	if (et == 0x0806) {
		capture(f);
		uint8_t smac[6], tmac[6];
		uint32_t sip, tip;
		if (!rt_arp_reply_parse(f.data(), (uint32_t)f.size(), smac, &sip, tmac, &tip) ||
		    memcmp(&f[0], HOST_MAC, 6) || memcmp(smac, DUT_MAC, 6) || sip != DUT_IP ||
		    memcmp(tmac, HOST_MAC, 6) || tip != HOST_IP)
			FAIL("ARP frame from the DUT is not the reply expected");
		arp_replies++;
		return;
	}
	struct rt_packet p;
	enum rt_parse_status st = rt_parse(&p, RT_LINK_ETHERNET, f.data(), (uint32_t)f.size(), (uint32_t)f.size());
	if (et == 0x0800 && f.size() == RT_CM_FRAME_BYTES && rt_get_be16(&f[34]) == RT_CM_REPLY_PORT) {
		capture(f);
		if (memcmp(&f[0], HOST_MAC, 6) || rt_get_be16(&f[36]) != HOST_CM_PORT || rt_get_be32(&f[30]) != HOST_IP)
			FAIL("CM reply misaddressed");
		// rt_cm_decode keeps 24 bits of loc/rem QPN and PSN; the byte before each must be zero
		if (f[42 + 1] || f[42 + 5] || f[42 + 25] || f[42 + 29])
			FAIL("CM reply: nonzero byte before a 24-bit QPN / PSN field");
		struct rt_cm_msg m;
		rt_cm_decode(&f[42], &m);
		cm_replies.push_back(m);
		return;
	}
	if (st != RT_PARSE_ROCE) {
		capture(f);
		FAIL("DUT sent a frame that is neither ARP, CM nor RoCE (%zu bytes)", f.size());
		return;
	}
	int q = model_of(p.bth.dest_qp);
	if (q < 0 || !model[q]) {
		capture(f);
		FAIL("RoCE frame to unknown QP %06x", p.bth.dest_qp);
		return;
	}
	if (memcmp(&f[0], HOST_MAC, 6))
		FAIL("RoCE frame to MAC %012llx, not the CM sender's", (unsigned long long)mac48(&f[0]));
	int n = tx_count[{ q, p.bth.psn }]++;
	bool drop = (cur->drop_req && cur->drop_req(q, p.bth.psn, n)) ||
		    (cur->p_drop_req > 0 && urand() < cur->p_drop_req);
	if (drop)
		return;
	capture(f);
	to_model.push_back({ cycle + (uint64_t)cur->delay, f, q });
}

// One clock cycle of everything.
static void step()
{
	int64_t now = (int64_t)((double)cycle * NS_PER_CYCLE);

	// inputs
	if (!rx_beat && !rx_q.empty() && rx_q.front().due <= cycle && urand() < cur->p_rx_valid) {
		const std::vector<uint8_t> &f = rx_q.front().frame;
		size_t n = std::min(KEEP, f.size() - rx_off);
		uint8_t beat[KEEP];
		for (size_t i = 0; i < KEEP; i++)
			beat[i] = i < n ? f[rx_off + i] : (uint8_t)rng();
		tb::put_bytes(top->s_axis_tdata, beat, KEEP);
		top->s_axis_tkeep = tb::keep_mask(n);
		top->s_axis_tlast = rx_off + n >= f.size();
		top->s_axis_tuser = 0;
		rx_beat = true;
	}
	top->s_axis_tvalid = rx_beat;
	if (!mem_beat && !mem_q.empty() && urand() < cur->p_mem) {
		const Rd &r = mem_q.front();
		uint32_t n = std::min((uint32_t)KEEP, r.len - mem_off);
		uint8_t beat[KEEP];
		for (size_t i = 0; i < KEEP; i++) {
			uint64_t a = r.addr + mem_off + i;
			beat[i] = (i < n && a >= LBASE && a < LBASE + LMEM) ? lmem[a - LBASE] : (uint8_t)rng();
		}
		tb::put_bytes(top->s_mem_axis_tdata, beat, KEEP);
		top->s_mem_axis_tkeep = tb::keep_mask(n);
		top->s_mem_axis_tlast = mem_off + n >= r.len;
		top->s_mem_axis_tuser = 0;
		mem_beat = true;
	}
	top->s_mem_axis_tvalid = mem_beat;
	if (!wr_q.empty()) {
		const Wr &w = wr_q.front();
		drive_wr(top, w);
	} else {
		top->s_wr_valid = 0;
	}
	top->m_axis_tready = urand() < cur->p_tx_ready;
	top->m_mem_rd_ready = urand() < cur->p_rd_ready;
	top->m_cpl_ready = urand() < cur->p_cpl_ready;
	top->clk = 0;
	top->eval();

	// handshakes
	if (top->s_axis_tvalid && top->s_axis_tready) {
		rx_beat = false;
		rx_off += KEEP;
		if (rx_off >= rx_q.front().frame.size()) {
			rx_off = 0;
			capture(rx_q.front().frame);
			rx_q.pop_front();
		}
	}
	if (top->s_mem_axis_tvalid && top->s_mem_axis_tready) {
		mem_beat = false;
		mem_off += KEEP;
		if (mem_off >= mem_q.front().len) {
			mem_off = 0;
			mem_q.pop_front();
		}
	}
	if (top->s_wr_valid && top->s_wr_ready)
		wr_q.pop_front();
	if (top->m_mem_rd_valid && top->m_mem_rd_ready) {
		uint32_t len = top->m_mem_rd_len;
		uint64_t a = top->m_mem_rd_addr;
		if (len == 0 || a < LBASE || a + len > LBASE + LMEM)
			FAIL("memory read of %u bytes at %llx outside the memory", len, (unsigned long long)a);
		mem_q.push_back({ a, len ? len : 1 });
	}
	if (top->m_cpl_valid && top->m_cpl_ready)
		cpls.push_back({ (int)top->m_cpl_qp, (uint64_t)top->m_cpl_wr_id, (int)top->m_cpl_status });
	bool tx_done = false;
	if (top->m_axis_tvalid && top->m_axis_tready) {
		uint64_t keep = (uint64_t)top->m_axis_tkeep;
		size_t n = 0;
		while (n < KEEP && (keep >> n & 1))
			n++;
		if (keep != tb::keep_mask(n) || n == 0 || (!top->m_axis_tlast && n != KEEP))
			FAIL("TX tkeep %llx not contiguous / short beat before tlast", (unsigned long long)keep);
		for (size_t i = 0; i < n; i++)
			tx_got.push_back(tb::get_byte(top->m_axis_tdata, i));
		if (top->m_axis_tlast) {
			if (top->m_axis_tuser)
				FAIL("TX frame with tuser set");
			tx_done = true;
		}
	}
	top->clk = 1;
	top->eval();
	cycle++;

	if (tx_done) {
		std::vector<uint8_t> f;
		f.swap(tx_got);
		tx_frame_done(f);
	}

	// link -> model; model -> link
	while (!to_model.empty() && to_model.front().due <= cycle) {
		Timed t = to_model.front();
		to_model.pop_front();
		rt_qp_receive(model[t.qp], now, t.frame.data(), (uint32_t)t.frame.size());
	}
	for (int q = 0; q < NQ; q++) {
		if (!model[q])
			continue;
		if (rt_qp_next_deadline(model[q]) <= now)
			rt_qp_advance(model[q], now);
		uint8_t buf[9200];
		enum rt_qp_bug bug;
		size_t n;
		while ((n = rt_qp_next_frame(model[q], now, buf, sizeof buf, &bug)) > 0) {
			struct rt_packet p;
			uint8_t syn = 0;
			uint32_t psn = 0;
			if (rt_parse(&p, RT_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n) == RT_PARSE_ROCE) {
				syn = p.ext.aeth.syndrome;
				psn = p.bth.psn;
			}
			if ((cur->drop_ack && cur->drop_ack(q, psn, syn)) ||
			    (cur->p_drop_ack > 0 && urand() < cur->p_drop_ack))
				continue;
			rx_q.push_back({ cycle + (uint64_t)cur->delay, std::vector<uint8_t>(buf, buf + n), q });
		}
	}
}

// Frames into the DUT are captured when their last beat is taken.
static void send_to_dut(const std::vector<uint8_t> &f)
{
	rx_q.push_back({ cycle, f, -1 });
}

// A CM request and its reply (blocking).
static bool cm_exchange(const struct rt_cm_msg &req, struct rt_cm_msg &rep, const char *what)
{
	send_to_dut(cm_frame(req));
	for (int i = 0; i < 20000; i++) {
		step();
		if (!cm_replies.empty()) {
			rep = cm_replies.front();
			cm_replies.pop_front();
			if (!rep.ack_valid || rep.ack_type != RT_CM_ACK) {
				FAIL("%s: reply ack_valid %d ack_type %d", what, rep.ack_valid, rep.ack_type);
				return false;
			}
			return true;
		}
	}
	FAIL("%s: no CM reply", what);
	return false;
}

static void run(const Test &t)
{
	cur = &t;
	cur_test = t.name;
	HOST_IP = 0x0A000164 + (uint32_t)tot.tests;
	tot.tests++;
	uint64_t start = cycle;

	// checker for this test
	struct rt_check_config cc;
	rt_check_config_init(&cc);
	cc.on_violation = on_violation;
	if (t.checker_timeout >= 0) {
		cc.have_timeout = true;
		cc.timeout_us = 4.096 * (double)(1u << t.checker_timeout);
	}
	if (t.drop_req || t.p_drop_req > 0)
		for (int i = 0; i < RT_RULE_COUNT; i++)
			if (!strncmp(rt_rule_info((enum rt_rule)i)->id, "RSP-", 4))
				cc.enabled[i] = false;
	struct rt_error cerr;
	chk = rt_checker_new(&cc, &cerr);
	chk_frame = chk_errors = 0;

	// reset and configuration
	rx_q.clear();
	rx_off = 0;
	rx_beat = false;
	mem_q.clear();
	mem_off = 0;
	mem_beat = false;
	wr_q.clear();
	to_model.clear();
	tx_got.clear();
	tx_count.clear();
	cm_replies.clear();
	cpls.clear();
	arp_replies = 0;
	top->rst = 1;
	top->s_axis_tvalid = 0;
	top->s_mem_axis_tvalid = 0;
	top->s_wr_valid = 0;
	top->cfg_mac = mac48(DUT_MAC);
	top->cfg_ip = DUT_IP;
	top->cfg_rkey = CFG_RKEY;
	top->cfg_base_addr = LBASE;
	top->cfg_psn = t.cfg_psn;
	top->cfg_pmtu_code = 2;
	for (int q = 0; q < NQ; q++) {
		set_bits(top->cfg_timeout, 5 * q, 5, (uint64_t)t.timeout);
		set_bits(top->cfg_retry_cnt, 3 * q, 3, 7);
		set_bits(top->cfg_rnr_retry, 3 * q, 3, 7);
	}
	for (int i = 0; i < 4; i++) {
		top->clk = 0;
		top->eval();
		top->clk = 1;
		top->eval();
		cycle++;
	}
	top->rst = 0;
	uint32_t tmo0 = top->stat_timeouts, nak0 = top->stat_naks, retx0 = top->stat_retransmissions;

	// ARP
	send_to_dut(arp_request());
	for (int i = 0; i < 2000 && !arp_replies; i++)
		step();
	if (arp_replies != 1)
		FAIL("%d ARP replies to one request", arp_replies);

	// CM: open every QP
	uint32_t loc_psn[NQ] = {};
	for (int q = 0; q < t.nqp; q++) {
		top->cfg_pmtu_code = (uint8_t)t.pmtu_code[q];
		struct rt_cm_msg r = {}, rep;
		r.qp_info_valid = true;
		r.req_type = RT_CM_OPEN_QP;
		r.listening_port = HOST_CM_PORT;
		if (!cm_exchange(r, rep, "OPEN_QP"))
			return;
		if (rep.req_type != RT_CM_OPEN_QP || rep.loc_qpn != QPN_BASE + (uint32_t)q ||
		    rep.loc_psn != ((t.cfg_psn + 0x10000u * q) & 0xFFFFFF) || rep.loc_rkey != CFG_RKEY ||
		    rep.loc_base != LBASE || rep.loc_ip != DUT_IP)
			FAIL("OPEN_QP reply: QPN %x PSN %x rkey %x base %llx", rep.loc_qpn, rep.loc_psn, rep.loc_rkey,
			     (unsigned long long)rep.loc_base);
		loc_psn[q] = rep.loc_psn;
		struct rt_cm_msg info = {};
		info.qp_info_valid = true;
		info.req_type = RT_CM_SEND_QP_INFO;
		info.loc_qpn = rep.loc_qpn;
		info.rem_qpn = host_qpn(q);
		info.rem_psn = HOST_PSN;
		info.rem_rkey = PEER_RKEY;
		info.rem_base = PEER_VA;
		info.rem_ip = HOST_IP;
		info.listening_port = HOST_CM_PORT;
		if (!cm_exchange(info, rep, "SEND_QP_INFO"))
			return;
		if (rep.rem_qpn != host_qpn(q) || rep.rem_psn != HOST_PSN || rep.rem_rkey != PEER_RKEY ||
		    rep.rem_base != PEER_VA || rep.rem_ip != HOST_IP)
			FAIL("SEND_QP_INFO reply does not echo the host's values");
		struct rt_cm_msg rts = {};
		rts.qp_info_valid = true;
		rts.req_type = RT_CM_MODIFY_QP_RTS;
		rts.loc_qpn = rep.loc_qpn;
		rts.listening_port = HOST_CM_PORT;
		if (!cm_exchange(rts, rep, "MODIFY_QP_RTS"))
			return;
		if (((top->qp_state >> (3 * q)) & 7) != 3)
			FAIL("QP %d not in RTS after MODIFY_QP_RTS", q);
	}
	top->cfg_pmtu_code = 2;

	// the model QPs: loc/rem swapped
	for (int q = 0; q < t.nqp; q++) {
		struct rt_qp_config c;
		rt_qp_config_init(&c);
		memcpy(c.mac, HOST_MAC, 6);
		memcpy(c.peer_mac, DUT_MAC, 6);
		c.ip_version = 4;
		rt_put_be32(c.ip, HOST_IP);
		rt_put_be32(c.peer_ip, DUT_IP);
		c.udp_sport = (uint16_t)(0xC100 + q);
		c.qpn = host_qpn(q);
		c.peer_qpn = QPN_BASE + q;
		c.sq_psn = HOST_PSN;
		c.rq_psn = loc_psn[q];
		c.pmtu = 256u << t.pmtu_code[q];
		c.timeout = (uint8_t)t.timeout;
		c.ack_every = 1;
		c.send_cnp = false;
		c.mem_va = PEER_VA;
		c.mem_size = PEER_MEM;
		c.rkey = PEER_RKEY;
		c.rq_depth = RQ_DEPTH;
		c.recv_size = RECV_SIZE;
		struct rt_error err;
		model[q] = rt_qp_new(&c, &err);
		if (!model[q]) {
			std::fprintf(stderr, "rt_qp_new: %s\n", err.msg);
			std::exit(2);
		}
		for (uint32_t i = 0; i < RQ_DEPTH; i++) {
			struct rt_recv_wr rw = { 0x9000 + i };
			rt_qp_post_recv(model[q], &rw, &err);
		}
	}

	// work: native WRs, txmeta frames
	std::vector<std::deque<Wr>> expect(NQ);
	std::map<uint64_t, Wr> gen_expect;
	size_t n_wr = t.wrs.size();
	for (auto &w : t.wrs) {
		wr_q.push_back(w);
		expect[w.qp].push_back(w);
	}
	for (auto &m : t.txm) {
		struct rt_cm_msg r = {}, rep;
		r.loc_qpn = QPN_BASE + m.qp;
		r.listening_port = HOST_CM_PORT;
		r.txmeta_valid = r.start = true;
		r.is_immediate = m.op & 1;
		r.tx_write = m.op >> 1;
		r.dma_length = m.len;
		r.n_transfers = m.n;
		r.frequency = m.freq;
		if (!cm_exchange(r, rep, "txmeta"))
			return;
		for (uint32_t k = 0; k < m.n; k++) {
			Wr w;
			w.qp = m.qp;
			w.op = m.op;
			w.len = m.len;
			w.laddr = LBASE + (uint64_t)k * m.len;
			w.rva = PEER_VA + (uint64_t)k * m.len;
			w.rkey = PEER_RKEY;
			w.imm = k;
			w.id = 0xF0ull << 56 | (uint64_t)m.qp << 48 | k;
			w.expect = 0;
			gen_expect[w.id] = w;
		}
		n_wr += m.n;
	}

	// run until every completion is in and the link is quiet
	std::vector<Wr> successes[NQ];
	size_t done = 0;
	uint64_t idle = 0;
	while (cycle - start < t.max_cycles) {
		step();
		while (!cpls.empty()) {
			Cpl c = cpls.front();
			cpls.pop_front();
			done++;
			Wr w;
			if (c.id >> 63) {
				auto it = gen_expect.find(c.id);
				if (it == gen_expect.end() || it->second.qp != c.qp) {
					FAIL("completion of an unknown generator wr_id %llx", (unsigned long long)c.id);
					continue;
				}
				w = it->second;
				gen_expect.erase(it);
			} else {
				if (c.qp < 0 || c.qp >= NQ || expect[c.qp].empty()) {
					FAIL("QP %d: completion wr_id %llx with no WR outstanding", c.qp,
					     (unsigned long long)c.id);
					continue;
				}
				w = expect[c.qp].front();
				expect[c.qp].pop_front();
				if (w.id != c.id) {
					FAIL("QP %d: completion wr_id %llx, expected %llx", c.qp, (unsigned long long)c.id,
					     (unsigned long long)w.id);
					continue;
				}
			}
			if (c.status != w.expect)
				FAIL("QP %d: wr_id %llx status %d, expected %d", c.qp, (unsigned long long)c.id, c.status,
				     w.expect);
			else if (c.status == 0)
				successes[c.qp].push_back(w);
		}
		bool quiet = done >= n_wr && rx_q.empty() && to_model.empty() && mem_q.empty() && !top->m_axis_tvalid;
		idle = quiet ? idle + 1 : 0;
		if (idle > 300)
			break;
	}
	if (done != n_wr)
		FAIL("%zu of %zu completions after %llu cycles", done, n_wr, (unsigned long long)(cycle - start));
	if (top->txgen_busy)
		FAIL("traffic generator still busy");

	// the model got exactly what the DUT sent
	for (int q = 0; q < t.nqp; q++) {
		uint8_t *pm = rt_qp_memory(model[q]);
		uint8_t *rm = rt_qp_recv_memory(model[q]);
		std::deque<struct rt_wc> recvs;
		struct rt_wc wc;
		while (rt_qp_poll_cq(model[q], &wc))
			if (wc.opcode == RT_WR_RECV && wc.status == RT_WC_SUCCESS)
				recvs.push_back(wc);
		for (const Wr &w : successes[q]) {
			const uint8_t *src = &lmem[w.laddr - LBASE];
			if (w.op >= 2 && memcmp(pm + (w.rva - PEER_VA), src, w.len))
				FAIL("QP %d: WRITE wr_id %llx (%u bytes): model memory differs", q,
				     (unsigned long long)w.id, w.len);
			if (w.op != 2) {
				if (recvs.empty()) {
					FAIL("QP %d: wr_id %llx: no receive completion at the model", q,
					     (unsigned long long)w.id);
					continue;
				}
				wc = recvs.front();
				recvs.pop_front();
				bool imm = w.op & 1;
				if (wc.with_imm != imm || (imm && wc.imm != w.imm))
					FAIL("QP %d: wr_id %llx: immediate wrong at the model", q, (unsigned long long)w.id);
				if (w.op < 2 && (wc.byte_len != w.len || memcmp(rm + wc.recv_offset, src, w.len)))
					FAIL("QP %d: SEND wr_id %llx: receive buffer differs (%u bytes, want %u)", q,
					     (unsigned long long)w.id, wc.byte_len, w.len);
			}
		}
		if (!recvs.empty())
			FAIL("QP %d: %zu receive completions more than SENDs", q, recvs.size());
		rt_qp_free(model[q]);
		model[q] = nullptr;
	}
	if (top->stat_rx_drop_bad_icrc || top->stat_rx_drop_malformed || top->stat_rx_drop_unsupported ||
	    top->stat_rx_drop_not_for_us)
		FAIL("RX drops: bad ICRC %u, malformed %u, unsupported %u, not for us %u", top->stat_rx_drop_bad_icrc,
		     top->stat_rx_drop_malformed, top->stat_rx_drop_unsupported, top->stat_rx_drop_not_for_us);

	rt_checker_finish(chk);
	if (chk_errors)
		FAIL("checker: %llu errors", (unsigned long long)chk_errors);
	rt_checker_free(chk);
	chk = nullptr;

	uint32_t tmo = top->stat_timeouts - tmo0, nak = top->stat_naks - nak0, retx = top->stat_retransmissions - retx0;
	if (getenv("TB_VERBOSE"))
		std::printf("  %-24s %8llu cycles %4zu WRs %5u pkts %3u retx %2u tmo %2u nak\n", t.name.c_str(),
			    (unsigned long long)(cycle - start), n_wr, top->stat_tx_pkts, retx, tmo, nak);
	tot.wrs += n_wr;
	tot.rx_frames += top->stat_rx_frames;
	tot.retx += retx;
	tot.timeouts += tmo;
	tot.naks += nak;
	tot.cycles += cycle - start;
	if (t.name.rfind("nak", 0) == 0 && (nak == 0 || retx == 0))
		FAIL("no NAK / go-back-N (%u NAKs, %u retransmissions)", nak, retx);
	if (t.name.rfind("timeout", 0) == 0 && tmo == 0)
		FAIL("no timeout");
	if ((t.name.rfind("pmtu", 0) == 0 || t.name.rfind("txgen", 0) == 0) && (retx || tmo || nak))
		FAIL("clean run with %u retransmissions, %u timeouts, %u NAKs", retx, tmo, nak);
}

// ---------------------------------------------------------------------------
// Work request helpers

static uint64_t next_id = 1;
static uint64_t rva_next[NQ];

static void reset_rva()
{
	for (int q = 0; q < NQ; q++)
		rva_next[q] = NATIVE_OFF;
}

static Wr mkwr(int q, int op, uint32_t len)
{
	Wr w;
	w.qp = q;
	w.op = op;
	w.len = len;
	w.laddr = LBASE + (rng() % (LMEM - len - 1));
	if (rva_next[q] + len + 64 > PEER_MEM)
		rva_next[q] = NATIVE_OFF;
	w.rva = PEER_VA + rva_next[q];
	rva_next[q] += len + 1 + (rng() % 61);
	w.rkey = PEER_RKEY;
	w.imm = (uint32_t)rng();
	w.id = next_id++ | (uint64_t)q << 40;
	w.expect = 0;
	return w;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	rng.seed(tb::seed_from(argc, argv) * 7919 + 1);
	top = new Vroce_endpoint;
	lmem.resize(LMEM);
	for (auto &b : lmem)
		b = (uint8_t)rng();
	top->clk = 0;
	top->eval();

	char path[256];
	std::snprintf(path, sizeof path, "build/rtl/tb_roce_endpoint_w%d.pcap", DATA_WIDTH);
	struct rt_error perr;
	pcap = rt_capture_writer_open(path, rt_link_dlt(RT_LINK_ETHERNET), 65535, &perr);
	if (!pcap)
		std::printf("tb_roce_endpoint: note: no capture file (%s)\n", perr.msg);

	// 1, 2. every PMTU, all opcodes and length classes, four QPs at once
	for (int pass = 0; pass < 2; pass++) {
		Test t;
		t.name = pass ? "pmtu-4096-2048-1024-512" : "pmtu-256-512-1024-2048";
		t.cfg_psn = pass ? 0xFFFFF0 : 0x123;	// QP 0 wraps its PSN in pass 2
		reset_rva();
		for (int q = 0; q < NQ; q++)
			t.pmtu_code[q] = pass ? 4 - q : q;
		for (int op = 0; op < 4; op++)
			for (int q = 0; q < NQ; q++) {
				uint32_t pm = 256u << t.pmtu_code[q];
				for (uint32_t len : { 0u, 1u, 2u, 3u, 5u, 7u, pm - 1, pm, pm + 1, 2 * pm + 1, 3 * pm + 5 })
					t.wrs.push_back(mkwr(q, op, len));
			}
		std::shuffle(t.wrs.begin(), t.wrs.end(), rng);
		run(t);
	}

	// 3. the traffic generator (txmeta), with native WRs on QP 0 at the same time
	{
		Test t;
		t.name = "txgen";
		reset_rva();
		t.pmtu_code[0] = 2;
		t.pmtu_code[1] = 0;
		t.pmtu_code[2] = 4;
		t.pmtu_code[3] = 1;
		t.txm.push_back({ 0, 2, 1000, 12, 0 });		// WRITE
		t.txm.push_back({ 1, 1, 301, 6, 200 });		// SEND_IMM, frequency 200
		t.txm.push_back({ 2, 3, 5003, 5, 0 });		// WRITE_IMM
		t.txm.push_back({ 3, 0, 777, 7, 0 });		// SEND
		for (int i = 0; i < 12; i++)
			t.wrs.push_back(mkwr(0, i % 4, 100 + 97 * (uint32_t)i));
		run(t);
	}

	// 4. a dropped DUT frame: the model NAKs (sequence error), the DUT goes back N
	{
		Test t;
		t.name = "nak-go-back-n";
		reset_rva();
		t.nqp = 2;
		t.pmtu_code[0] = 0;
		t.pmtu_code[1] = 2;
		t.cfg_psn = 0x500;
		for (int q = 0; q < 2; q++)
			for (int i = 0; i < 6; i++)
				t.wrs.push_back(mkwr(q, i % 4, 5 * (256u << t.pmtu_code[q]) + 13));
		uint32_t base[2] = { 0x500, 0x10500 };
		t.drop_req = [base](int q, uint32_t psn, int n) {
			uint32_t off = (psn - base[q]) & 0xFFFFFF;
			return n == 0 && (off == 2 || off == 15);
		};
		run(t);
	}

	// 5. dropped ACKs: the DUT's local ACK timer resends
	{
		Test t;
		t.name = "timeout-lost-acks";
		reset_rva();
		t.nqp = 2;
		t.timeout = 1;
		t.checker_timeout = 1;
		t.wrs.push_back(mkwr(0, 2, 3000));
		t.wrs.push_back(mkwr(1, 1, 700));
		int drops = 0;
		t.drop_ack = [&drops](int q, uint32_t, uint8_t) { return q == 0 && drops++ < 2; };
		run(t);
	}

	// 6. random: four QPs, random sizes and opcodes, loss both ways
	for (int pass = 0; pass < 2; pass++) {
		Test t;
		t.name = "random-loss-" + std::to_string(pass + 1);
		reset_rva();
		t.timeout = 2;
		t.p_drop_req = 0.02;
		t.p_drop_ack = 0.03;
		// ... and one certain loss: the random ones may, by the luck of a timing, all hit ACKs
		int firsts = 0;
		t.drop_req = [&firsts](int, uint32_t, int n) { return n == 0 && ++firsts == 10; };
		t.delay = 20 + (int)(rng() % 200);
		t.cfg_psn = (uint32_t)(0xFFFFFF - rng() % 300);
		for (int q = 0; q < NQ; q++)
			t.pmtu_code[q] = (int)(rng() % 5);
		for (int i = 0; i < 150; i++) {
			int q = (int)(rng() % NQ);
			uint32_t pm = 256u << t.pmtu_code[q];
			t.wrs.push_back(mkwr(q, (int)(rng() % 4), (uint32_t)(rng() % (3 * pm + 8))));
		}
		uint64_t retx0 = tot.retx;
		run(t);
		if (tot.retx == retx0)
			FAIL("no retransmission in a lossy run");
	}

	if (pcap && rt_capture_writer_close(pcap, &perr))
		FAIL("capture file: %s", perr.msg);

	std::printf("tb_roce_endpoint (DATA_WIDTH %d): %llu tests, %llu WRs, %llu TX frames, %llu retransmissions, "
		    "%llu timeouts, %llu NAKs, %llu frames checked, %llu cycles: %s\n",
		    DATA_WIDTH, (unsigned long long)tot.tests, (unsigned long long)tot.wrs,
		    (unsigned long long)tot.tx_frames, (unsigned long long)tot.retx, (unsigned long long)tot.timeouts,
		    (unsigned long long)tot.naks, (unsigned long long)tot.checked, (unsigned long long)tot.cycles,
		    fails ? "FAILED" : "all passed");
	top->final();
	delete top;
	return fails ? 1 : 0;
}
