// SPDX-License-Identifier: MIT
//
// Test bench for dut/rtl/roce_cm.v: a host model that speaks the CM frame of
// shared/spec/cm-frame.md to the connection manager.
//
// The host side builds every request payload byte by byte from the spec's
// table (QPN and PSN written as 32-bit big-endian values, as the host tools
// do) and a reference model of the CM (the rules documented at the top of
// roce_cm.v) says what must come back. Every reply frame is parsed byte by
// byte: Ethernet (to the request's source MAC, from cfg_mac, 0x0800), IPv4
// (0x45, TOS 0, length 92, ID counting replies, DF, TTL 64, UDP, source
// cfg_ip, destination the request's IP, header checksum checked both with
// rt_ipv4_header_checksum and by summing the header here to 0xFFFF), UDP
// (0x8765 -> listening_port or the source port, length 72, checksum 0) and
// the 64 payload bytes, compared whole with the expected reply (so every
// byte the spec leaves zero is checked) and field by field in the directed
// steps. tkeep / tlast / tuser are checked on every beat; tready is random.
// When the pipeline is idle the per-QP state vectors, the PMTU codes and the
// counters are compared with the model.
//
//   1. directed: OPEN -> SEND_QP_INFO -> MODIFY_QP_RTS -> txmeta start for
//      every QP, OPEN with all N_QP in use (NO_QP), invalid transitions,
//      unknown QPNs, non-zero pad bytes, NULL / 5 / 6 / ERROR requests
//      (NAK), request + txmeta (NAK), ack_valid frames (no answer),
//      listening_port 0, qp_error -> ERROR then CLOSE_QP, stale qp_error,
//      CLOSE and re-OPEN of the lowest free QP, the PMTU control port
//      (refused codes), a reset with a new configuration (cfg_pmtu_code > 4,
//      PSN wrap);
//   2. random requests (plausible flows and garbage) in bursts, several in
//      flight, random tvalid / tready on every port, qp_error and control
//      writes between bursts.
//
// Prints one summary line; exits non-zero on failure.

#include <verilated.h>

#include "Vroce_cm.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "rocetest/checksum.h"
}

#ifndef DATA_WIDTH
#error "build the bench with -DDATA_WIDTH=W"
#endif
#ifndef N_QP
#define N_QP 4
#endif
#ifndef QPN_BASE
#define QPN_BASE 256
#endif

static const int KW = DATA_WIDTH / 8;
static const int FRAME_BYTES = 106;

enum { ST_RESET = 0, ST_INIT = 1, ST_RTR = 2, ST_RTS = 3, ST_ERROR = 7 };
enum { REQ_NULL = 0, REQ_OPEN = 1, REQ_INFO = 2, REQ_RTS = 3, REQ_CLOSE = 4, REQ_ERROR = 7 };
enum { ACK_NONE = 0, ACK_ACK = 1, ACK_NO_QP = 2, ACK_NAK = 3 };

static int fails = 0;
static uint64_t checks = 0;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		checks++;                                                      \
		if (!(cond)) {                                                 \
			if (fails < 20) {                                      \
				std::printf("tb_roce_cm w%d: FAIL: ", DATA_WIDTH);   \
				std::printf(__VA_ARGS__);                      \
				std::printf("\n");                             \
			}                                                      \
			fails++;                                               \
		}                                                              \
	} while (0)

// ---------------------------------------------------------------------------
// Bit access on Verilator ports (CData .. QData up to 64 bits, VlWide above)

template <class T>
static uint64_t get_bits(const T &v, int lo, int w)
{
	uint64_t x = (uint64_t)v >> lo;
	return w >= 64 ? x : x & ((1ull << w) - 1);
}
template <std::size_t N>
static uint64_t get_bits(const VlWide<N> &v, int lo, int w)
{
	uint64_t x = 0;
	for (int b = 0; b < w; b++) {
		int p = lo + b;
		x |= (uint64_t)((v[p / 32] >> (p % 32)) & 1) << b;
	}
	return x;
}
template <class T>
static uint8_t get_byte(const T &v, int i)
{
	return (uint8_t)get_bits(v, 8 * i, 8);
}

static inline uint64_t be(const uint8_t *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}
static inline void put_be(uint8_t *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

// ---------------------------------------------------------------------------
// The CM payload (cm-frame.md), written and read the way the host tools do

struct CmMsg {
	bool qp_info_valid = false;
	int req_type = 0;
	bool ack_valid = false;
	int ack_type = 0;
	uint32_t loc_qpn = 0, loc_psn = 0, loc_rkey = 0;	// QPN / PSN as 32-bit BE
	uint64_t loc_base = 0;
	uint32_t loc_ip = 0;
	uint32_t rem_qpn = 0, rem_psn = 0, rem_rkey = 0;
	uint64_t rem_base = 0;
	uint32_t rem_ip = 0;
	uint16_t lport = 0;
	bool txm_valid = false, start = false, imm = false, tx_type = false;
	int txm_high = 0;					// bits 7-4 of byte 51
	uint32_t dma_len = 0, n_xfers = 0, freq = 0;
};

static void encode(const CmMsg &m, uint8_t *p)
{
	memset(p, 0, 64);
	p[0] = (uint8_t)((m.qp_info_valid ? 1 : 0) | (m.req_type & 7) << 1 | (m.ack_valid ? 1 : 0) << 4 |
			 (m.ack_type & 7) << 5);
	put_be(p + 1, m.loc_qpn, 4);	// zero byte + 24-bit loc_qpn
	put_be(p + 5, m.loc_psn, 4);	// zero byte + 24-bit loc_psn
	put_be(p + 9, m.loc_rkey, 4);
	put_be(p + 13, m.loc_base, 8);
	put_be(p + 21, m.loc_ip, 4);
	put_be(p + 25, m.rem_qpn, 4);	// zero byte + 24-bit rem_qpn
	put_be(p + 29, m.rem_psn, 4);	// zero byte + 24-bit rem_psn
	put_be(p + 33, m.rem_rkey, 4);
	put_be(p + 37, m.rem_base, 8);
	put_be(p + 45, m.rem_ip, 4);
	put_be(p + 49, m.lport, 2);
	p[51] = (uint8_t)((m.txm_valid ? 1 : 0) | (m.start ? 2 : 0) | (m.imm ? 4 : 0) | (m.tx_type ? 8 : 0) |
			  (m.txm_high & 15) << 4);
	put_be(p + 52, m.dma_len, 4);
	put_be(p + 56, m.n_xfers, 4);
	put_be(p + 60, m.freq, 4);
}

static CmMsg decode(const uint8_t *p)
{
	CmMsg m;
	m.qp_info_valid = p[0] & 1;
	m.req_type = p[0] >> 1 & 7;
	m.ack_valid = p[0] >> 4 & 1;
	m.ack_type = p[0] >> 5 & 7;
	m.loc_qpn = (uint32_t)be(p + 1, 4);
	m.loc_psn = (uint32_t)be(p + 5, 4);
	m.loc_rkey = (uint32_t)be(p + 9, 4);
	m.loc_base = be(p + 13, 8);
	m.loc_ip = (uint32_t)be(p + 21, 4);
	m.rem_qpn = (uint32_t)be(p + 25, 4);
	m.rem_psn = (uint32_t)be(p + 29, 4);
	m.rem_rkey = (uint32_t)be(p + 33, 4);
	m.rem_base = be(p + 37, 8);
	m.rem_ip = (uint32_t)be(p + 45, 4);
	m.lport = (uint16_t)be(p + 49, 2);
	m.txm_valid = p[51] & 1;
	m.start = p[51] >> 1 & 1;
	m.imm = p[51] >> 2 & 1;
	m.tx_type = p[51] >> 3 & 1;
	m.txm_high = p[51] >> 4;
	m.dma_len = (uint32_t)be(p + 52, 4);
	m.n_xfers = (uint32_t)be(p + 56, 4);
	m.freq = (uint32_t)be(p + 60, 4);
	return m;
}

struct Request {
	uint64_t src_mac;
	uint32_t src_ip;
	uint16_t src_port;
	CmMsg msg;
	std::string what;
};

struct TxMeta {
	int qp;
	bool imm, tx_type;
	uint32_t dma_len, n_xfers, freq;
};

struct Config {
	uint64_t mac;
	uint32_t ip, rkey;
	uint64_t base;
	uint32_t psn;
	int pmtu;
};

// ---------------------------------------------------------------------------
// Reference model of the CM

struct QpModel {
	int st = ST_RESET;
	uint32_t rem_qpn = 0, rem_psn = 0, rem_rkey = 0, rem_ip = 0, loc_psn = 0;
	uint64_t rem_base = 0, rem_mac = 0;
	int pmtu = 0;
};

struct Expect {
	uint64_t dst_mac;
	uint32_t dst_ip;
	uint16_t dst_port;
	uint16_t ip_id;
	uint8_t payload[64];
	std::string what;
};

struct Model {
	Config cfg;
	QpModel qp[N_QP];
	uint32_t frames = 0, acks = 0, naks = 0, no_qp = 0;
	uint16_t ip_id = 0;

	void reset()
	{
		for (auto &q : qp)
			q = QpModel();
		frames = acks = naks = no_qp = 0;
		ip_id = 0;
	}

	uint32_t psn_of(int i) const { return (cfg.psn + (uint32_t)i * 0x10000u) & 0xFFFFFF; }

	// The named QP: index, or -1 when the QPN is not one of ours
	static int index_of(uint32_t qpn)
	{
		if (qpn < (uint32_t)QPN_BASE || qpn - (uint32_t)QPN_BASE >= (uint32_t)N_QP)
			return -1;
		return (int)(qpn - QPN_BASE);
	}

	// Process one request; fills the expected reply / txmeta. Returns whether a reply comes.
	bool process(const Request &r, Expect &e, bool &txm, TxMeta &t)
	{
		const CmMsg &m = r.msg;
		frames++;
		txm = false;
		if (m.ack_valid)
			return false;
		bool is_req = m.qp_info_valid && m.req_type >= REQ_OPEN && m.req_type <= REQ_CLOSE;
		int idx = index_of(m.loc_qpn);
		bool alloc = idx >= 0 && qp[idx].st != ST_RESET;
		int ack = ACK_NAK;
		int rq = alloc ? idx : -1;	// QP the reply reports
		QpModel before = rq >= 0 ? qp[rq] : QpModel();

		if (is_req && m.txm_valid) {
			ack = ACK_NAK;
		} else if (is_req) {
			switch (m.req_type) {
			case REQ_OPEN: {
				int f = -1;
				for (int i = 0; i < N_QP && f < 0; i++)
					if (qp[i].st == ST_RESET)
						f = i;
				if (f >= 0) {
					ack = ACK_ACK;
					qp[f] = QpModel();
					qp[f].st = ST_INIT;
					qp[f].loc_psn = psn_of(f);
					qp[f].pmtu = cfg.pmtu > 4 ? 4 : cfg.pmtu;
					rq = f;
					before = qp[f];
				} else {
					ack = ACK_NO_QP;
					rq = -1;
				}
				break;
			}
			case REQ_INFO:
				if (alloc && qp[idx].st == ST_INIT && m.rem_qpn <= 0xFFFFFF && m.rem_psn <= 0xFFFFFF) {
					ack = ACK_ACK;
					QpModel &q = qp[idx];
					q.st = ST_RTR;
					q.rem_qpn = m.rem_qpn;
					q.rem_psn = m.rem_psn;
					q.rem_rkey = m.rem_rkey;
					q.rem_base = m.rem_base;
					q.rem_ip = m.rem_ip;
					q.rem_mac = r.src_mac;
					before = q;
				}
				break;
			case REQ_RTS:
				if (alloc && qp[idx].st == ST_RTR) {
					ack = ACK_ACK;
					qp[idx].st = ST_RTS;
				}
				break;
			case REQ_CLOSE:
				if (alloc) {
					ack = ACK_ACK;
					int pmtu = qp[idx].pmtu;
					qp[idx] = QpModel();
					qp[idx].pmtu = pmtu;
				}
				break;
			}
		} else if (m.txm_valid) {
			if (alloc && qp[idx].st == ST_RTS) {
				ack = ACK_ACK;
				if (m.start) {
					txm = true;
					t = TxMeta{idx, m.imm, m.tx_type, m.dma_len, m.n_xfers, m.freq};
				}
			}
		}

		if (ack == ACK_ACK)
			acks++;
		else if (ack == ACK_NAK)
			naks++;
		else
			no_qp++;

		CmMsg rep;
		rep.qp_info_valid = true;
		rep.req_type = is_req ? m.req_type : 0;
		rep.ack_valid = true;
		rep.ack_type = ack;
		rep.loc_rkey = cfg.rkey;
		rep.loc_base = cfg.base;
		rep.loc_ip = cfg.ip;
		if (rq >= 0) {
			rep.loc_qpn = QPN_BASE + rq;
			rep.loc_psn = before.loc_psn;
			rep.rem_qpn = before.rem_qpn;
			rep.rem_psn = before.rem_psn;
			rep.rem_rkey = before.rem_rkey;
			rep.rem_base = before.rem_base;
			rep.rem_ip = before.rem_ip;
		}
		encode(rep, e.payload);
		e.dst_mac = r.src_mac;
		e.dst_ip = r.src_ip;
		e.dst_port = m.lport ? m.lport : r.src_port;
		e.ip_id = ip_id++;
		e.what = r.what;
		return true;
	}

	void error(int i)
	{
		if (qp[i].st != ST_RESET)
			qp[i].st = ST_ERROR;
	}
};

// ---------------------------------------------------------------------------
// The simulation: drives the DUT, checks every reply and txmeta against the model

static std::mt19937_64 rng;
static uint64_t rnd(uint64_t n) { return n ? rng() % n : 0; }
static bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

static uint16_t ones_sum_ok(const uint8_t *h, int n)
{
	uint32_t s = 0;
	for (int i = 0; i < n; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

struct Sim {
	Vroce_cm *top;
	Model model;
	std::deque<Request> to_send;
	std::deque<Expect> replies;
	std::deque<TxMeta> txms;
	std::vector<CmMsg> received;		// decoded payloads of the replies, in order
	std::vector<uint8_t> got;
	int beat = 0;
	bool src_valid = false;
	double pv = 1.0, pr = 1.0, pt = 1.0;
	uint64_t cycles = 0, n_requests = 0, n_replies = 0, n_txm = 0, n_acks = 0, n_naks = 0, n_noqp = 0;
	uint32_t error_pulse = 0;	// qp_error bits for the next cycle
	uint32_t race_mask = 0;		// qp_error bits for the cycle after the next request is taken
	bool race_armed = false;
	uint64_t first_accept = 0, first_reply = 0;
	bool timing = false;

	explicit Sim(Vroce_cm *t) : top(t) {}

	void set_cfg(const Config &c)
	{
		model.cfg = c;
		top->cfg_mac = c.mac;
		top->cfg_ip = c.ip;
		top->cfg_rkey = c.rkey;
		top->cfg_base_addr = c.base;
		top->cfg_psn = c.psn;
		top->cfg_pmtu_code = c.pmtu;
	}

	void tick()
	{
		top->clk = 1;
		top->eval();
		top->clk = 0;
		top->eval();
		cycles++;
	}

	void reset()
	{
		top->rst = 1;
		top->s_cm_valid = 0;
		top->m_axis_tready = 0;
		top->m_txmeta_ready = 0;
		top->ctrl_valid = 0;
		top->qp_error = 0;
		for (int i = 0; i < 3; i++)
			tick();
		top->rst = 0;
		tick();
		model.reset();
		to_send.clear();
		replies.clear();
		txms.clear();
		got.clear();
		beat = 0;
		src_valid = false;
	}

	void submit(const Request &r)
	{
		Expect e;
		TxMeta t;
		bool txm;
		n_requests++;
		if (model.process(r, e, txm, t))
			replies.push_back(e);
		if (txm)
			txms.push_back(t);
		to_send.push_back(r);
	}

	void load_payload(const uint8_t *p)
	{
		// payload byte n in bits [511-8n -: 8]
		for (int w = 0; w < 16; w++) {
			uint32_t v = 0;
			for (int b = 0; b < 4; b++) {
				int n = 63 - (4 * w + b);
				v |= (uint32_t)p[n] << (8 * b);
			}
			top->s_cm_payload[w] = v;
		}
	}

	void drive_source()
	{
		if (!src_valid && !to_send.empty() && (pv >= 1.0 || chance(pv))) {
			const Request &r = to_send.front();
			uint8_t p[64];
			encode(r.msg, p);
			load_payload(p);
			top->s_cm_src_mac = r.src_mac;
			top->s_cm_src_ip = r.src_ip;
			top->s_cm_src_port = r.src_port;
			src_valid = true;
		} else if (!src_valid) {
			// garbage while not valid
			uint8_t p[64];
			for (auto &b : p)
				b = (uint8_t)rng();
			load_payload(p);
			top->s_cm_src_mac = rng() & 0xFFFFFFFFFFFFull;
			top->s_cm_src_ip = (uint32_t)rng();
			top->s_cm_src_port = (uint16_t)rng();
		}
		top->s_cm_valid = src_valid;
	}

	void fail_frame(const Expect &e, const char *msg)
	{
		CHECK(false, "reply for '%s': %s", e.what.c_str(), msg);
	}

	void check_frame()
	{
		if (replies.empty()) {
			CHECK(false, "a reply frame nobody expected (%zu bytes)", got.size());
			return;
		}
		Expect e = replies.front();
		replies.pop_front();
		n_replies++;
		const uint8_t *f = got.data();
		char m[160];
		if (got.size() != (size_t)FRAME_BYTES) {
			std::snprintf(m, sizeof m, "length %zu, expected %d", got.size(), FRAME_BYTES);
			fail_frame(e, m);
			return;
		}
		// Ethernet
		CHECK(be(f, 6) == e.dst_mac, "'%s': Ethernet destination %012llx, expected %012llx", e.what.c_str(),
		      (unsigned long long)be(f, 6), (unsigned long long)e.dst_mac);
		CHECK(be(f + 6, 6) == model.cfg.mac, "'%s': Ethernet source %012llx", e.what.c_str(),
		      (unsigned long long)be(f + 6, 6));
		CHECK(be(f + 12, 2) == 0x0800, "'%s': EtherType %04llx", e.what.c_str(), (unsigned long long)be(f + 12, 2));
		// IPv4
		const uint8_t *ip = f + 14;
		CHECK(ip[0] == 0x45, "'%s': version/IHL %02x", e.what.c_str(), ip[0]);
		CHECK(ip[1] == 0, "'%s': TOS %02x", e.what.c_str(), ip[1]);
		CHECK(be(ip + 2, 2) == 92, "'%s': IPv4 total length %llu", e.what.c_str(), (unsigned long long)be(ip + 2, 2));
		CHECK(be(ip + 4, 2) == e.ip_id, "'%s': IPv4 ID %llu, expected %u", e.what.c_str(),
		      (unsigned long long)be(ip + 4, 2), e.ip_id);
		CHECK(be(ip + 6, 2) == 0x4000, "'%s': flags/fragment %04llx, expected DF", e.what.c_str(),
		      (unsigned long long)be(ip + 6, 2));
		CHECK(ip[8] == 64, "'%s': TTL %u", e.what.c_str(), ip[8]);
		CHECK(ip[9] == 17, "'%s': protocol %u", e.what.c_str(), ip[9]);
		uint16_t want_csum = rt_ipv4_header_checksum(ip, 20);
		CHECK(be(ip + 10, 2) == want_csum, "'%s': IPv4 checksum %04llx, rt_ipv4_header_checksum says %04x",
		      e.what.c_str(), (unsigned long long)be(ip + 10, 2), want_csum);
		CHECK(ones_sum_ok(ip, 20) == 0xFFFF, "'%s': IPv4 header does not sum to 0xFFFF", e.what.c_str());
		CHECK(be(ip + 12, 4) == model.cfg.ip, "'%s': IPv4 source %08llx", e.what.c_str(),
		      (unsigned long long)be(ip + 12, 4));
		CHECK(be(ip + 16, 4) == e.dst_ip, "'%s': IPv4 destination %08llx, expected %08x", e.what.c_str(),
		      (unsigned long long)be(ip + 16, 4), e.dst_ip);
		// UDP
		const uint8_t *udp = f + 34;
		CHECK(be(udp, 2) == 0x8765, "'%s': UDP source port %04llx", e.what.c_str(), (unsigned long long)be(udp, 2));
		CHECK(be(udp + 2, 2) == e.dst_port, "'%s': UDP destination port %04llx, expected %04x", e.what.c_str(),
		      (unsigned long long)be(udp + 2, 2), e.dst_port);
		CHECK(be(udp + 4, 2) == 72, "'%s': UDP length %llu", e.what.c_str(), (unsigned long long)be(udp + 4, 2));
		CHECK(be(udp + 6, 2) == 0, "'%s': UDP checksum %04llx", e.what.c_str(), (unsigned long long)be(udp + 6, 2));
		// payload, every byte
		const uint8_t *p = f + 42;
		for (int i = 0; i < 64; i++) {
			if (p[i] != e.payload[i]) {
				std::snprintf(m, sizeof m, "payload byte %d is %02x, expected %02x", i, p[i], e.payload[i]);
				fail_frame(e, m);
				break;
			}
			checks++;
		}
		CmMsg r = decode(p);
		if (r.ack_type == ACK_ACK)
			n_acks++;
		else if (r.ack_type == ACK_NAK)
			n_naks++;
		else if (r.ack_type == ACK_NO_QP)
			n_noqp++;
		received.push_back(r);
	}

	void monitor_axis()
	{
		uint64_t keep = get_bits(top->m_axis_tkeep, 0, KW);
		bool last = top->m_axis_tlast;
		int n = 0;
		while (n < KW && (keep >> n & 1))
			n++;
		uint64_t want = n >= 64 ? ~0ull : (1ull << n) - 1;
		CHECK(keep == want && n > 0, "tkeep %llx not contiguous from lane 0", (unsigned long long)keep);
		CHECK(last || n == KW, "tkeep not all ones on a beat without tlast");
		CHECK(!top->m_axis_tuser, "tuser set");
		for (int i = 0; i < n; i++)
			got.push_back(get_byte(top->m_axis_tdata, i));
		beat++;
		if (got.size() > (size_t)FRAME_BYTES && !last) {
			CHECK(false, "reply longer than %d bytes without tlast", FRAME_BYTES);
			got.clear();
			beat = 0;
		}
		if (last) {
			CHECK(beat == (FRAME_BYTES + KW - 1) / KW, "reply in %d beats", beat);
			check_frame();
			got.clear();
			beat = 0;
		}
	}

	void monitor_txmeta()
	{
		if (txms.empty()) {
			CHECK(false, "a txmeta descriptor nobody expected (qp %d)", (int)top->m_txmeta_qp);
			return;
		}
		TxMeta t = txms.front();
		txms.pop_front();
		n_txm++;
		CHECK((int)top->m_txmeta_qp == t.qp, "txmeta qp %d, expected %d", (int)top->m_txmeta_qp, t.qp);
		CHECK((bool)top->m_txmeta_is_immediate == t.imm, "txmeta is_immediate %d", (int)top->m_txmeta_is_immediate);
		CHECK((bool)top->m_txmeta_tx_type == t.tx_type, "txmeta tx_type %d", (int)top->m_txmeta_tx_type);
		CHECK(top->m_txmeta_dma_length == t.dma_len, "txmeta dma_length %u, expected %u",
		      (unsigned)top->m_txmeta_dma_length, t.dma_len);
		CHECK(top->m_txmeta_n_transfers == t.n_xfers, "txmeta n_transfers %u, expected %u",
		      (unsigned)top->m_txmeta_n_transfers, t.n_xfers);
		CHECK(top->m_txmeta_frequency == t.freq, "txmeta frequency %u, expected %u",
		      (unsigned)top->m_txmeta_frequency, t.freq);
	}

	void cycle()
	{
		drive_source();
		top->m_axis_tready = pr >= 1.0 || chance(pr);
		top->m_txmeta_ready = pt >= 1.0 || chance(pt);
		top->qp_error = error_pulse;
		error_pulse = 0;
		top->eval();

		bool s_fire = top->s_cm_valid && top->s_cm_ready;
		bool m_fire = top->m_axis_tvalid && top->m_axis_tready;
		bool t_fire = top->m_txmeta_valid && top->m_txmeta_ready;
		if (s_fire) {
			if (timing && !first_accept)
				first_accept = cycles;
			to_send.pop_front();
			src_valid = false;
			if (race_armed) {
				error_pulse = race_mask;
				race_armed = false;
			}
		}
		if (m_fire) {
			if (timing && !first_reply)
				first_reply = cycles;
			monitor_axis();
		}
		if (t_fire)
			monitor_txmeta();
		tick();
		top->qp_error = 0;
	}

	// Run until every request is in and every reply and txmeta is out
	void drain()
	{
		uint64_t idle = 0;
		while ((!to_send.empty() || !replies.empty() || !txms.empty()) && idle < 20000) {
			uint64_t before = n_replies + n_txm + to_send.size();
			cycle();
			idle = (n_replies + n_txm + to_send.size()) != before ? 0 : idle + 1;
		}
		CHECK(to_send.empty() && replies.empty() && txms.empty(),
		      "stuck: %zu requests unsent, %zu replies and %zu txmeta outstanding", to_send.size(),
		      replies.size(), txms.size());
		to_send.clear();
		replies.clear();
		txms.clear();
		// a few more cycles: nothing else may come out
		double opr = pr, opt = pt;
		pr = pt = 1.0;
		for (int i = 0; i < 8; i++)
			cycle();
		pr = opr;
		pt = opt;
		CHECK(!top->m_axis_tvalid && !top->m_txmeta_valid && top->s_cm_ready, "not idle after draining");
	}

	// The state vectors and the counters against the model (only when drained)
	void check_state(const char *where)
	{
		for (int i = 0; i < N_QP; i++) {
			const QpModel &q = model.qp[i];
			int st = (int)get_bits(top->qp_state, 3 * i, 3);
			CHECK(st == q.st, "%s: QP %d state %d, expected %d", where, i, st, q.st);
			CHECK(get_bits(top->qp_rem_qpn, 24 * i, 24) == q.rem_qpn, "%s: QP %d rem_qpn %06llx, expected %06x",
			      where, i, (unsigned long long)get_bits(top->qp_rem_qpn, 24 * i, 24), q.rem_qpn);
			CHECK(get_bits(top->qp_rem_psn, 24 * i, 24) == q.rem_psn, "%s: QP %d rem_psn", where, i);
			CHECK(get_bits(top->qp_rem_rkey, 32 * i, 32) == q.rem_rkey, "%s: QP %d rem_rkey", where, i);
			CHECK(get_bits(top->qp_rem_base_addr, 64 * i, 64) == q.rem_base, "%s: QP %d rem_base_addr", where, i);
			CHECK(get_bits(top->qp_rem_ip, 32 * i, 32) == q.rem_ip, "%s: QP %d rem_ip", where, i);
			CHECK(get_bits(top->qp_rem_mac, 48 * i, 48) == q.rem_mac, "%s: QP %d rem_mac %012llx, expected %012llx",
			      where, i, (unsigned long long)get_bits(top->qp_rem_mac, 48 * i, 48),
			      (unsigned long long)q.rem_mac);
			CHECK(get_bits(top->qp_loc_psn, 24 * i, 24) == q.loc_psn, "%s: QP %d loc_psn %06llx, expected %06x",
			      where, i, (unsigned long long)get_bits(top->qp_loc_psn, 24 * i, 24), q.loc_psn);
			CHECK((int)get_bits(top->qp_pmtu_code, 3 * i, 3) == q.pmtu, "%s: QP %d pmtu code %d, expected %d",
			      where, i, (int)get_bits(top->qp_pmtu_code, 3 * i, 3), q.pmtu);
		}
		CHECK(top->cm_frames == model.frames, "%s: cm_frames %u, expected %u", where, (unsigned)top->cm_frames,
		      model.frames);
		CHECK(top->cm_acks == model.acks, "%s: cm_acks %u, expected %u", where, (unsigned)top->cm_acks, model.acks);
		CHECK(top->cm_naks == model.naks, "%s: cm_naks %u, expected %u", where, (unsigned)top->cm_naks, model.naks);
		CHECK(top->cm_no_qp == model.no_qp, "%s: cm_no_qp %u, expected %u", where, (unsigned)top->cm_no_qp,
		      model.no_qp);
	}

	// qp_error pulse on the QPs in mask (one cycle), when drained
	void pulse_error(uint32_t mask)
	{
		error_pulse = mask;
		cycle();
		for (int i = 0; i < N_QP; i++)
			if (mask >> i & 1)
				model.error(i);
	}

	// One control write; returns whether it was refused
	bool ctrl(int qp, int code)
	{
		top->ctrl_valid = 1;
		top->ctrl_qp = qp;
		top->ctrl_pmtu_code = code;
		cycle();
		top->ctrl_valid = 0;
		bool refused = top->ctrl_refused;
		cycle();
		CHECK(!top->ctrl_refused, "ctrl_refused longer than one cycle");
		bool ok = qp < N_QP && code <= 4;
		if (ok)
			model.qp[qp].pmtu = code;
		CHECK(refused == !ok, "control write qp %d code %d: refused %d", qp, code, (int)refused);
		return refused;
	}

	// One request, drained; the decoded reply (or nullptr when none came)
	const CmMsg *transact(const Request &r)
	{
		size_t n = received.size();
		submit(r);
		drain();
		return received.size() > n ? &received.back() : nullptr;
	}
};

// ---------------------------------------------------------------------------
// Requests

static uint64_t host_mac = 0x02AABBCCDD01ull;
static uint32_t host_ip = 0x0A000002;

static Request req(int type, uint32_t loc_qpn, const char *what)
{
	Request r;
	r.src_mac = host_mac;
	r.src_ip = host_ip;
	r.src_port = 0xC000 | (uint16_t)rnd(0x4000);
	r.msg.qp_info_valid = true;
	r.msg.req_type = type;
	r.msg.loc_qpn = loc_qpn;
	r.msg.lport = 0x4322;
	r.what = what;
	return r;
}

struct HostQp {
	uint32_t qpn, psn, rkey, ip;
	uint64_t base;
};

static HostQp random_host_qp()
{
	return HostQp{(uint32_t)rnd(0xFFFFFF) + 1, (uint32_t)rnd(0x1000000), (uint32_t)rng(), (uint32_t)rng(), rng()};
}

static Request info_req(uint32_t loc_qpn, const HostQp &h, const char *what)
{
	Request r = req(REQ_INFO, loc_qpn, what);
	r.msg.rem_qpn = h.qpn;
	r.msg.rem_psn = h.psn;
	r.msg.rem_rkey = h.rkey;
	r.msg.rem_base = h.base;
	r.msg.rem_ip = h.ip;
	return r;
}

// The host tool's txmeta frame: qp_info_valid 0, REQ_NULL, listening port 0
static Request txm_req(uint32_t loc_qpn, bool start, bool imm, bool wr, uint32_t len, uint32_t n, uint32_t freq,
		       const char *what)
{
	Request r = req(REQ_NULL, loc_qpn, what);
	r.msg.qp_info_valid = false;
	r.msg.lport = 0;
	r.msg.txm_valid = true;
	r.msg.start = start;
	r.msg.imm = imm;
	r.msg.tx_type = wr;
	r.msg.dma_len = len;
	r.msg.n_xfers = n;
	r.msg.freq = freq;
	return r;
}

static void expect_reply(const CmMsg *r, int ack, uint32_t qpn, const char *what)
{
	CHECK(r != nullptr, "%s: no reply", what);
	if (!r)
		return;
	CHECK(r->qp_info_valid && r->ack_valid, "%s: qp_info_valid %d ack_valid %d", what, r->qp_info_valid,
	      r->ack_valid);
	CHECK(r->ack_type == ack, "%s: ack_type %d, expected %d", what, r->ack_type, ack);
	CHECK(r->loc_qpn == qpn, "%s: loc_qpn %08x, expected %08x", what, r->loc_qpn, qpn);
}

// ---------------------------------------------------------------------------
// Directed

static void directed(Sim &s)
{
	const Config &c = s.model.cfg;
	HostQp host[N_QP];
	char w[96];

	s.check_state("after reset");

	// open every QP: the lowest free one each time
	for (int i = 0; i < N_QP; i++) {
		std::snprintf(w, sizeof w, "OPEN_QP #%d", i);
		Request r = req(REQ_OPEN, 0x12, w);	// the host tool's default loc_qpn, ignored
		const CmMsg *m = s.transact(r);
		expect_reply(m, ACK_ACK, QPN_BASE + i, w);
		if (m) {
			CHECK(m->req_type == REQ_OPEN, "%s: req_type %d echoed", w, m->req_type);
			CHECK(m->loc_psn == ((c.psn + 0x10000u * i) & 0xFFFFFF), "%s: loc_psn %08x", w, m->loc_psn);
			CHECK(m->loc_rkey == c.rkey && m->loc_base == c.base && m->loc_ip == c.ip,
			      "%s: loc_rkey / loc_base_addr / loc_ip not the configuration", w);
			CHECK(m->rem_qpn == 0 && m->rem_psn == 0 && m->rem_rkey == 0 && m->rem_base == 0 &&
				      m->rem_ip == 0,
			      "%s: rem_* not zero", w);
		}
		CHECK((int)get_bits(s.top->qp_state, 3 * i, 3) == ST_INIT, "%s: state not INIT", w);
	}
	s.check_state("all open");

	// all in use
	expect_reply(s.transact(req(REQ_OPEN, 0, "OPEN_QP, all in use")), ACK_NO_QP, 0, "OPEN_QP, all in use");
	CHECK(s.top->cm_no_qp == 1, "cm_no_qp %u", (unsigned)s.top->cm_no_qp);

	// MODIFY_QP_RTS before SEND_QP_INFO: NAK, state stays INIT
	expect_reply(s.transact(req(REQ_RTS, QPN_BASE, "MODIFY_QP_RTS in INIT")), ACK_NAK, QPN_BASE,
		     "MODIFY_QP_RTS in INIT");
	// txmeta in INIT: NAK, no descriptor
	expect_reply(s.transact(txm_req(QPN_BASE, true, false, true, 64, 1, 0, "txmeta in INIT")), ACK_NAK, QPN_BASE,
		     "txmeta in INIT");

	// SEND_QP_INFO with a non-zero zero-byte before rem_qpn / rem_psn: NAK
	{
		HostQp h = random_host_qp();
		Request r = info_req(QPN_BASE, h, "SEND_QP_INFO, rem_qpn pad byte set");
		r.msg.rem_qpn |= 0x01000000;
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE, r.what.c_str());
		r = info_req(QPN_BASE, h, "SEND_QP_INFO, rem_psn pad byte set");
		r.msg.rem_psn |= 0x80000000;
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE, r.what.c_str());
		// loc_qpn's zero byte set: no such QP
		r = info_req(QPN_BASE | 0x01000000, h, "SEND_QP_INFO, loc_qpn pad byte set");
		expect_reply(s.transact(r), ACK_NAK, 0, r.what.c_str());
		CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_INIT, "QP 0 left INIT on a refused SEND_QP_INFO");
	}

	// SEND_QP_INFO for each QP (from a different host MAC per QP)
	for (int i = 0; i < N_QP; i++) {
		host[i] = random_host_qp();
		if (i == 0)
			host[i].qpn = 0xFFFFFF, host[i].psn = 0xFFFFFF;	// the largest 24-bit values
		std::snprintf(w, sizeof w, "SEND_QP_INFO QP %d", i);
		Request r = info_req(QPN_BASE + i, host[i], w);
		r.src_mac = host_mac + 0x100 * i;
		r.src_ip = host_ip + i;
		const CmMsg *m = s.transact(r);
		expect_reply(m, ACK_ACK, QPN_BASE + i, w);
		if (m) {
			CHECK(m->rem_qpn == host[i].qpn && m->rem_psn == host[i].psn && m->rem_rkey == host[i].rkey &&
				      m->rem_base == host[i].base && m->rem_ip == host[i].ip,
			      "%s: rem_* not echoed as stored", w);
		}
		CHECK((int)get_bits(s.top->qp_state, 3 * i, 3) == ST_RTR, "%s: state not RTR", w);
		CHECK(get_bits(s.top->qp_rem_qpn, 24 * i, 24) == host[i].qpn, "%s: qp_rem_qpn", w);
		CHECK(get_bits(s.top->qp_rem_mac, 48 * i, 48) == host_mac + 0x100 * i, "%s: qp_rem_mac", w);
		CHECK(get_bits(s.top->qp_rem_ip, 32 * i, 32) == host[i].ip, "%s: qp_rem_ip", w);
	}
	// a second SEND_QP_INFO: NAK, nothing stored
	{
		HostQp h = random_host_qp();
		expect_reply(s.transact(info_req(QPN_BASE + 1, h, "SEND_QP_INFO in RTR")), ACK_NAK, QPN_BASE + 1,
			     "SEND_QP_INFO in RTR");
		CHECK(get_bits(s.top->qp_rem_qpn, 24, 24) == host[1].qpn, "a refused SEND_QP_INFO changed rem_qpn");
	}
	s.check_state("all RTR");

	// MODIFY_QP_RTS for each
	for (int i = 0; i < N_QP; i++) {
		std::snprintf(w, sizeof w, "MODIFY_QP_RTS QP %d", i);
		const CmMsg *m = s.transact(req(REQ_RTS, QPN_BASE + i, w));
		expect_reply(m, ACK_ACK, QPN_BASE + i, w);
		if (m)
			CHECK(m->rem_qpn == host[i].qpn && m->loc_psn == ((c.psn + 0x10000u * i) & 0xFFFFFF),
			      "%s: QP fields in the reply", w);
		CHECK((int)get_bits(s.top->qp_state, 3 * i, 3) == ST_RTS, "%s: state not RTS", w);
	}
	expect_reply(s.transact(req(REQ_RTS, QPN_BASE, "MODIFY_QP_RTS in RTS")), ACK_NAK, QPN_BASE,
		     "MODIFY_QP_RTS in RTS");
	expect_reply(s.transact(info_req(QPN_BASE, host[0], "SEND_QP_INFO in RTS")), ACK_NAK, QPN_BASE,
		     "SEND_QP_INFO in RTS");
	s.check_state("all RTS");

	// txmeta start on every QP (in one burst: the descriptors queue up), and without start
	s.pt = 0.3;
	uint64_t txm_before = s.n_txm;
	for (int i = 0; i < N_QP; i++) {
		std::snprintf(w, sizeof w, "txmeta start QP %d", i);
		s.submit(txm_req(QPN_BASE + i, true, i & 1, i & 2, 64u << i, 1 + i, 1000 * i, w));
	}
	s.drain();
	s.pt = 1.0;
	CHECK(s.n_txm - txm_before == (uint64_t)N_QP, "%llu txmeta descriptors, expected %d",
	      (unsigned long long)(s.n_txm - txm_before), N_QP);
	{
		size_t n = s.received.size();
		for (size_t k = n - N_QP; k < n; k++) {
			CHECK(s.received[k].ack_type == ACK_ACK, "txmeta start: ack %d", s.received[k].ack_type);
			CHECK(s.received[k].req_type == 0, "txmeta start: req_type %d in reply", s.received[k].req_type);
		}
	}
	uint64_t t0 = s.n_txm;
	expect_reply(s.transact(txm_req(QPN_BASE + 2, false, true, true, 4096, 7, 3, "txmeta without start")), ACK_ACK,
		     QPN_BASE + 2, "txmeta without start");
	CHECK(s.n_txm == t0, "txmeta without start made a descriptor");
	// txmeta with a listening port: the reply goes there
	{
		Request r = txm_req(QPN_BASE + 3, true, false, false, 1, 0xFFFFFFFF, 0xFFFFFFFF, "txmeta, listening port");
		r.msg.lport = 0x1234;
		r.msg.txm_high = 0xF;	// bits 7-4: not read
		expect_reply(s.transact(r), ACK_ACK, QPN_BASE + 3, r.what.c_str());
	}

	// requests that are not requests
	{
		Request r = req(REQ_NULL, QPN_BASE, "REQ_NULL");
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE, "REQ_NULL");
		for (int t = 5; t <= 7; t++) {
			std::snprintf(w, sizeof w, "req_type %d", t);
			r = req(t, QPN_BASE + 1, w);
			const CmMsg *m = s.transact(r);
			expect_reply(m, ACK_NAK, QPN_BASE + 1, w);
			if (m)
				CHECK(m->req_type == 0, "%s: req_type %d echoed", w, m->req_type);
		}
		r = req(REQ_CLOSE, QPN_BASE, "CLOSE_QP with qp_info_valid clear");
		r.msg.qp_info_valid = false;
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE, r.what.c_str());
		r = req(REQ_RTS, QPN_BASE + 1, "MODIFY_QP_RTS with txmeta");
		r.msg.txm_valid = r.msg.start = true;
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE + 1, r.what.c_str());
		r = req(REQ_ERROR, QPN_BASE + 1, "REQ_ERROR with txmeta start");
		r.msg.txm_valid = r.msg.start = true;
		r.msg.dma_len = 256;
		r.msg.n_xfers = 2;
		t0 = s.n_txm;
		expect_reply(s.transact(r), ACK_ACK, QPN_BASE + 1, r.what.c_str());
		CHECK(s.n_txm == t0 + 1, "REQ_ERROR with txmeta start: no descriptor");
		// ack_valid: a reply, never answered
		size_t n = s.received.size();
		r = req(REQ_OPEN, 0, "a looped-back ACK");
		r.msg.ack_valid = true;
		r.msg.ack_type = ACK_ACK;
		CHECK(s.transact(r) == nullptr, "an ack_valid frame was answered");
		r = req(REQ_CLOSE, QPN_BASE, "a looped-back NAK for CLOSE_QP");
		r.msg.ack_valid = true;
		r.msg.ack_type = ACK_NAK;
		CHECK(s.transact(r) == nullptr, "an ack_valid frame was answered");
		CHECK(s.received.size() == n, "replies to ack_valid frames");
		CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_RTS, "an ack_valid CLOSE_QP closed QP 0");
	}

	// unknown QPNs
	{
		const uint32_t bad[] = {0, 1, QPN_BASE - 1, QPN_BASE + N_QP, QPN_BASE + N_QP + 1, 0xFFFFFF,
					0xFFFFFFFF, 0x80000000u + QPN_BASE};
		for (uint32_t q : bad) {
			std::snprintf(w, sizeof w, "MODIFY_QP_RTS for QPN %08x", q);
			const CmMsg *m = s.transact(req(REQ_RTS, q, w));
			expect_reply(m, ACK_NAK, 0, w);
			if (m)
				CHECK(m->loc_psn == 0 && m->rem_qpn == 0 && m->rem_base == 0, "%s: QP fields not zero", w);
			std::snprintf(w, sizeof w, "CLOSE_QP for QPN %08x", q);
			expect_reply(s.transact(req(REQ_CLOSE, q, w)), ACK_NAK, 0, w);
		}
	}
	s.check_state("after the NAKs");

	// listening port 0: the reply goes to the source port (checked in check_frame)
	{
		Request r = req(REQ_RTS, QPN_BASE + 1, "listening_port 0");
		r.msg.lport = 0;
		r.src_port = 0x9999;
		expect_reply(s.transact(r), ACK_NAK, QPN_BASE + 1, r.what.c_str());
	}

	// qp_error: QP 2 -> ERROR; txmeta / MODIFY / SEND_QP_INFO refused; CLOSE frees it
	{
		int e = 2;
		s.pulse_error(1u << e);
		s.check_state("after qp_error");
		CHECK((int)get_bits(s.top->qp_state, 3 * e, 3) == ST_ERROR, "qp_error: QP %d not in ERROR", e);
		expect_reply(s.transact(txm_req(QPN_BASE + e, true, false, true, 64, 1, 0, "txmeta in ERROR")), ACK_NAK,
			     QPN_BASE + e, "txmeta in ERROR");
		expect_reply(s.transact(req(REQ_RTS, QPN_BASE + e, "MODIFY_QP_RTS in ERROR")), ACK_NAK, QPN_BASE + e,
			     "MODIFY_QP_RTS in ERROR");
		expect_reply(s.transact(info_req(QPN_BASE + e, host[e], "SEND_QP_INFO in ERROR")), ACK_NAK,
			     QPN_BASE + e, "SEND_QP_INFO in ERROR");
		expect_reply(s.transact(req(REQ_OPEN, 0, "OPEN_QP, all in use (one in ERROR)")), ACK_NO_QP, 0,
			     "OPEN_QP, all in use (one in ERROR)");
		const CmMsg *m = s.transact(req(REQ_CLOSE, QPN_BASE + e, "CLOSE_QP in ERROR"));
		expect_reply(m, ACK_ACK, QPN_BASE + e, "CLOSE_QP in ERROR");
		if (m)
			CHECK(m->rem_qpn == host[e].qpn && m->rem_rkey == host[e].rkey,
			      "CLOSE_QP: the reply does not show the closed QP's values");
		CHECK((int)get_bits(s.top->qp_state, 3 * e, 3) == ST_RESET, "CLOSE_QP in ERROR: not RESET");
		CHECK(get_bits(s.top->qp_rem_qpn, 24 * e, 24) == 0 && get_bits(s.top->qp_rem_mac, 48 * e, 48) == 0,
		      "CLOSE_QP: rem fields not cleared");
		// a stale error on a free QP is ignored; errors on several QPs at once
		s.pulse_error(1u << e | 1u << 0 | 1u << 3);
		s.check_state("after stale qp_error");
		CHECK((int)get_bits(s.top->qp_state, 3 * e, 3) == ST_RESET, "qp_error on a free QP changed it");
		CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_ERROR, "qp_error on QP 0 ignored");
		expect_reply(s.transact(req(REQ_CLOSE, QPN_BASE + e, "CLOSE_QP on a free QP")), ACK_NAK, 0,
			     "CLOSE_QP on a free QP");
	}

	// CLOSE QP 1 (RTS) and QP 3 (ERROR); OPEN gets 1, then 2, then 3
	expect_reply(s.transact(req(REQ_CLOSE, QPN_BASE + 1, "CLOSE_QP in RTS")), ACK_ACK, QPN_BASE + 1,
		     "CLOSE_QP in RTS");
	expect_reply(s.transact(req(REQ_CLOSE, QPN_BASE + 3, "CLOSE_QP QP 3")), ACK_ACK, QPN_BASE + 3, "CLOSE_QP QP 3");
	s.check_state("after the closes");

	// PMTU control
	CHECK(!s.ctrl(1, 2), "PMTU code 2 on QP 1 refused");
	CHECK(s.ctrl(1, 5), "PMTU code 5 accepted");
	CHECK(s.ctrl(0, 7), "PMTU code 7 accepted");
	CHECK(!s.ctrl(0, 4), "PMTU code 4 refused");
	CHECK(!s.ctrl(N_QP - 1, 0), "PMTU code 0 refused");
	if ((N_QP & (N_QP - 1)) != 0)
		CHECK(s.ctrl(N_QP, 1), "PMTU for QP index N_QP accepted");
	s.check_state("after the PMTU writes");
	CHECK(get_bits(s.top->qp_pmtu_code, 3, 3) == 2 && get_bits(s.top->qp_pmtu_code, 0, 3) == 4,
	      "qp_pmtu_code not as written");

	for (int want : {1, 2, 3}) {
		std::snprintf(w, sizeof w, "re-OPEN, QP %d", want);
		const CmMsg *m = s.transact(req(REQ_OPEN, 0, w));
		expect_reply(m, ACK_ACK, QPN_BASE + want, w);
		if (m)
			CHECK(m->rem_qpn == 0 && m->rem_ip == 0 &&
				      m->loc_psn == ((c.psn + 0x10000u * want) & 0xFFFFFF),
			      "%s: stale fields", w);
	}
	CHECK((int)get_bits(s.top->qp_pmtu_code, 3, 3) == (c.pmtu > 4 ? 4 : c.pmtu),
	      "OPEN did not reset the PMTU code to cfg_pmtu_code");
	s.check_state("after re-OPEN");

	// a full cycle on the re-opened QP 1, in one burst with random stalls
	s.pv = 0.5;
	s.pr = 0.4;
	s.pt = 0.5;
	{
		HostQp h = random_host_qp();
		s.submit(info_req(QPN_BASE + 1, h, "burst SEND_QP_INFO"));
		s.submit(req(REQ_RTS, QPN_BASE + 1, "burst MODIFY_QP_RTS"));
		s.submit(txm_req(QPN_BASE + 1, true, true, false, 1000, 3, 9, "burst txmeta start"));
		s.submit(txm_req(QPN_BASE + 1, true, false, true, 2000, 4, 0, "burst txmeta start 2"));
		s.submit(req(REQ_CLOSE, QPN_BASE + 1, "burst CLOSE_QP"));
		s.submit(txm_req(QPN_BASE + 1, true, false, true, 2000, 4, 0, "burst txmeta after close"));
		s.drain();
	}
	s.pv = s.pr = s.pt = 1.0;
	s.check_state("after the burst");
}

// qp_error in the very cycle the CM decides on a request for the same QP (an
// idle CM decides the cycle after it takes the descriptor): an OPEN_QP wins
// over the stale error of the QP it allocates, CLOSE_QP wins, any other
// transition is followed by ERROR.
static void races(Sim &s)
{
	s.reset();
	s.race_mask = 1;
	s.race_armed = true;
	expect_reply(s.transact(req(REQ_OPEN, 0, "OPEN_QP racing qp_error")), ACK_ACK, QPN_BASE,
		     "OPEN_QP racing qp_error");
	CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_INIT, "OPEN_QP racing qp_error: state %d",
	      (int)get_bits(s.top->qp_state, 0, 3));
	s.check_state("OPEN_QP racing qp_error");

	s.race_armed = true;
	expect_reply(s.transact(info_req(QPN_BASE, random_host_qp(), "SEND_QP_INFO racing qp_error")), ACK_ACK,
		     QPN_BASE, "SEND_QP_INFO racing qp_error");
	s.model.error(0);
	CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_ERROR, "SEND_QP_INFO racing qp_error: state %d",
	      (int)get_bits(s.top->qp_state, 0, 3));
	s.check_state("SEND_QP_INFO racing qp_error");

	s.race_armed = true;
	expect_reply(s.transact(req(REQ_CLOSE, QPN_BASE, "CLOSE_QP racing qp_error")), ACK_ACK, QPN_BASE,
		     "CLOSE_QP racing qp_error");
	CHECK((int)get_bits(s.top->qp_state, 0, 3) == ST_RESET, "CLOSE_QP racing qp_error: state %d",
	      (int)get_bits(s.top->qp_state, 0, 3));
	s.check_state("CLOSE_QP racing qp_error");
}

// ---------------------------------------------------------------------------
// Random

static Request random_request(const Model &m)
{
	Request r = req(REQ_NULL, 0, "random");
	r.src_mac = rng() & 0xFFFFFFFFFFFFull;
	r.src_ip = (uint32_t)rng();
	r.src_port = (uint16_t)rng();
	int qi = (int)rnd(N_QP);
	uint32_t qpn = QPN_BASE + qi;
	int kind = (int)rnd(100);
	if (kind < 15) {
		r = req(REQ_OPEN, (uint32_t)rng(), "random OPEN_QP");
	} else if (kind < 55) {
		// the plausible next step for a random QP
		switch (m.qp[qi].st) {
		case ST_RESET:
			r = req(REQ_OPEN, 0, "random OPEN_QP");
			break;
		case ST_INIT:
			r = info_req(qpn, random_host_qp(), "random SEND_QP_INFO");
			break;
		case ST_RTR:
			r = req(REQ_RTS, qpn, "random MODIFY_QP_RTS");
			break;
		case ST_RTS:
			if (chance(0.85)) {
				r = txm_req(qpn, chance(0.8), chance(0.5), chance(0.5), (uint32_t)rng(), (uint32_t)rng(),
					    (uint32_t)rng(), "random txmeta");
				if (chance(0.5))
					r.msg.lport = (uint16_t)rng();
			} else {
				r = req(REQ_CLOSE, qpn, "random CLOSE_QP");
			}
			break;
		default:
			r = req(REQ_CLOSE, qpn, "random CLOSE_QP");
			break;
		}
	} else if (kind < 65) {
		r = req((int)rnd(5), qpn, "random request, any QP state");
		if (r.msg.req_type == REQ_INFO)
			r = info_req(qpn, random_host_qp(), "random SEND_QP_INFO, any state");
	} else {
		// garbage: every field random, the QPN near ours
		uint8_t p[64];
		for (auto &b : p)
			b = (uint8_t)rng();
		r.msg = decode(p);
		r.what = "random garbage";
		if (chance(0.7))
			r.msg.ack_valid = chance(0.2);
		if (chance(0.8))
			r.msg.loc_qpn = QPN_BASE - 2 + (uint32_t)rnd(N_QP + 4);
		if (chance(0.5))
			r.msg.rem_qpn &= 0xFFFFFF, r.msg.rem_psn &= 0xFFFFFF;
		if (chance(0.3))
			r.msg.lport = 0;
	}
	if (chance(0.2)) {
		r.src_mac = rng() & 0xFFFFFFFFFFFFull;
		r.src_ip = (uint32_t)rng();
	}
	return r;
}

static void random_phase(Sim &s, int bursts)
{
	static const double rates[] = {1.0, 1.0, 0.9, 0.6, 0.3, 0.1};
	for (int b = 0; b < bursts && fails == 0; b++) {
		s.pv = rates[rnd(6)];
		s.pr = rates[rnd(6)];
		s.pt = rates[rnd(6)];
		int n = 1 + (int)rnd(10);
		for (int k = 0; k < n; k++)
			s.submit(random_request(s.model));
		s.drain();
		s.check_state("random");
		if (chance(0.1)) {
			uint32_t mask = (uint32_t)rng() & ((1u << N_QP) - 1);
			s.pulse_error(mask);
		}
		if (chance(0.1))
			s.ctrl((int)rnd(N_QP), (int)rnd(8));
	}
	s.pv = s.pr = s.pt = 1.0;
}

// ---------------------------------------------------------------------------

static uint64_t seed_from(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a.rfind("+seed=", 0) == 0)
			return std::stoull(a.substr(6));
	}
	return 1;
}

int main(int argc, char **argv)
{
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vroce_cm>(ctx.get());
	uint64_t seed = seed_from(argc, argv);
	rng.seed(seed * 1000003u + DATA_WIDTH);

	Sim s(top.get());
	top->clk = 0;

	// configuration 1: PSNs wrap past 0xFFFFFF from QP 1 on
	Config c1{0x021122334455ull, 0x0A000001, 0xCAFEF00D, 0x0000123456789ABCull, 0xFF8123, 3};
	s.set_cfg(c1);
	s.reset();
	directed(s);
	s.check_state("end of directed 1");

	// latency of one request at full rate
	s.timing = true;
	s.first_accept = s.first_reply = 0;
	s.transact(req(REQ_OPEN, 0, "timed OPEN_QP"));
	s.timing = false;
	uint64_t latency = s.first_reply - s.first_accept;

	random_phase(s, 400);
	races(s);

	// reset with a new configuration: cfg_pmtu_code 7 is taken as 4
	Config c2{0x02DEADBEEF00ull, 0xC0A80101, 0x00000001, 0xFFFFFFFFFFFFF000ull, 0x000000, 7};
	s.set_cfg(c2);
	s.reset();
	s.check_state("after the second reset");
	host_mac = 0x0277665544ABull;
	host_ip = 0xC0A80102;
	directed(s);
	random_phase(s, 400);
	s.check_state("end");

	if (fails) {
		std::printf("tb_roce_cm w%d: FAILED (%d failures, %llu requests, seed %llu)\n", DATA_WIDTH, fails,
			    (unsigned long long)s.n_requests, (unsigned long long)seed);
		return 1;
	}
	std::printf("tb_roce_cm w%d N_QP %d: %llu requests, %llu replies (%llu ACK, %llu NAK, %llu NO_QP), %llu txmeta, "
		    "%llu checks OK, reply latency %llu cycles (seed %llu)\n",
		    DATA_WIDTH, N_QP, (unsigned long long)s.n_requests, (unsigned long long)s.n_replies,
		    (unsigned long long)s.n_acks, (unsigned long long)s.n_naks, (unsigned long long)s.n_noqp,
		    (unsigned long long)s.n_txm, (unsigned long long)checks, (unsigned long long)latency,
		    (unsigned long long)seed);
	return 0;
}
