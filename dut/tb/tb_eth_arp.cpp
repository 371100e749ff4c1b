// SPDX-License-Identifier: MIT
//
// Test bench for dut/rtl/eth_arp.v (ARP, RFC 826 over Ethernet / IPv4).
//
// The bench keeps its own model of the module (the cache with round-robin
// replacement and RFC 826's merge rule, the resolve in progress) and builds
// every frame it expects in C, byte by byte in the RFC 826 layout padded with
// zeros to 60 bytes. Every output frame is checked against it (bytes, tkeep,
// tlast, tuser, number of beats), every resolve answer (ip, mac, ok), the
// counters, and AXI stability (an output that is valid and not taken does not
// change). The bench plays the other hosts: when auto-answer is on, an ARP
// request of ours for a live host's IP is answered with that host's reply.
//
//   A. directed: a request for our IP -> one reply, and its sender learned;
//      a request for another IP -> nothing, nothing learned; resolve of an
//      uncached IP -> one broadcast request, answered -> ok with the MAC, then
//      a hit without a frame; the merge rule (requests for other IPs and
//      unsolicited replies update cached hosts, teach nothing new); a probe
//      (spa 0) is answered and not learned; oper 3 ignored; a request from
//      the IP being resolved answers the resolve.
//   T. no answer: REQUEST_RETRIES requests whose first beats are exactly
//      REQUEST_RETRY_CYCLES apart, then ok = 0 exactly REQUEST_RETRY_CYCLES
//      after the last (output always ready); again with random ready
//      (spacing at least REQUEST_RETRY_CYCLES).
//   R. after a reset: the cache full, then round-robin eviction, checked by
//      which resolves hit (no frame) and which miss (a request).
//   X. random back to back: ARP descriptors (requests for us and for others,
//      replies, probes, odd opers, hosts changing MAC) and resolves offered
//      with random valid, random ready on the frame and answer outputs.
//
// The module is built with its default parameters (the bench rule passes only
// DATA_WIDTH), so the time-outs run the real REQUEST_RETRY_CYCLES = 322266.
// Prints one summary line; exits non-zero on failure.

#include <verilated.h>

#include "Veth_arp.h"
#include "axis_tb.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <vector>

#ifndef DATA_WIDTH
#define DATA_WIDTH 64
#endif

// eth_arp's parameter defaults (the module is built with them)
static const uint64_t RETRY_CYCLES = 322266;
static const int RETRIES = 4;
static const int CACHE = 4;

static const int KW = DATA_WIDTH / 8;
static const int FRAME_BYTES = 60;
static const int FRAME_BEATS = (FRAME_BYTES + KW - 1) / KW;

static std::mt19937_64 rng(0xA4B0000u + DATA_WIDTH);
static uint64_t rnd(uint64_t n) { return n ? rng() % n : 0; }
static bool chance(double p) { return p >= 1.0 || std::uniform_real_distribution<double>(0, 1)(rng) < p; }

static const uint64_t BCAST = 0xFFFFFFFFFFFFull;
static const uint64_t MAC_MASK = 0xFFFFFFFFFFFFull;

static int failures = 0;
static uint64_t now = 0;

#define FAIL(...)                                                                          \
	do {                                                                               \
		printf("tb_eth_arp DATA_WIDTH=%d: FAIL at cycle %llu: ", DATA_WIDTH,       \
		       (unsigned long long)now);                                           \
		printf(__VA_ARGS__);                                                       \
		printf("\n");                                                              \
		if (++failures >= 10)                                                      \
			exit(1);                                                           \
	} while (0)

// ---------------------------------------------------------------------------
// Frames, RFC 826 over Ethernet II

static void put_be(std::vector<uint8_t> &b, size_t off, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[off + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static std::vector<uint8_t> arp_frame(uint64_t eth_dst, uint64_t eth_src, uint16_t oper, uint64_t sha,
				      uint32_t spa, uint64_t tha, uint32_t tpa)
{
	std::vector<uint8_t> f(FRAME_BYTES, 0);  // bytes 42..59: zero pad
	put_be(f, 0, eth_dst, 6);
	put_be(f, 6, eth_src, 6);
	put_be(f, 12, 0x0806, 2);  // ethertype ARP
	put_be(f, 14, 1, 2);       // ar$hrd: Ethernet
	put_be(f, 16, 0x0800, 2);  // ar$pro: IPv4
	f[18] = 6;                 // ar$hln
	f[19] = 4;                 // ar$pln
	put_be(f, 20, oper, 2);    // ar$op
	put_be(f, 22, sha, 6);     // ar$sha
	put_be(f, 28, spa, 4);     // ar$spa
	put_be(f, 32, tha, 6);     // ar$tha
	put_be(f, 38, tpa, 4);     // ar$tpa
	return f;
}

static std::string ip_str(uint32_t ip)
{
	char b[20];
	snprintf(b, sizeof b, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
	return b;
}

// ---------------------------------------------------------------------------
// Model

struct ArpDesc {
	uint16_t oper;
	uint64_t sha;
	uint32_t spa;
	uint64_t tha;
	uint32_t tpa;
};

struct Resp {
	uint32_t ip;
	uint64_t mac;
	bool ok;
};

struct ExpFrame {
	std::vector<uint8_t> bytes;
	bool optional;  // a request the module may drop: answered before it was loaded
};

struct Model {
	uint64_t cfg_mac = 0;
	uint32_t cfg_ip = 0;
	struct Entry {
		bool valid;
		uint32_t ip;
		uint64_t mac;
	} e[CACHE];
	int rr = 0;
	bool pending = false;
	uint32_t pend_ip = 0;
	std::set<uint32_t> dead;  // hosts that never answer

	std::deque<ExpFrame> replies, requests;
	std::deque<Resp> resps;
	uint64_t req_in = 0, hits = 0, misses = 0, completions = 0, timeouts = 0;

	void reset()
	{
		for (auto &x : e)
			x = Entry{false, 0, 0};
		rr = 0;
		pending = false;
		replies.clear();
		requests.clear();
		resps.clear();
		req_in = 0;
	}

	int find(uint32_t ip) const
	{
		for (int i = 0; i < CACHE; i++)
			if (e[i].valid && e[i].ip == ip)
				return i;
		return -1;
	}

	// one accepted descriptor; returns whether it taught us spa -> sha
	bool arp(const ArpDesc &d)
	{
		bool is_req = d.oper == 1, is_rep = d.oper == 2;
		bool learnable = (is_req || is_rep) && d.spa != 0 && d.spa != cfg_ip;
		bool for_us = d.tpa == cfg_ip && cfg_ip != 0;
		bool pend = pending && d.spa == pend_ip;
		bool learned = false;
		if (is_req)
			req_in++;
		if (learnable) {
			int k = find(d.spa);
			if (k >= 0) {
				e[k].mac = d.sha;  // merge
				learned = true;
			} else if (pend || (is_req && for_us)) {
				e[rr] = Entry{true, d.spa, d.sha};
				rr = (rr + 1) % CACHE;
				learned = true;
			}
			if (pend) {
				pending = false;
				completions++;
				resps.push_back(Resp{pend_ip, d.sha, true});
				// a request not yet seen may or may not go out now
				for (auto &f : requests)
					f.optional = true;
			}
		}
		if (is_req && for_us)
			replies.push_back(ExpFrame{arp_frame(d.sha, cfg_mac, 2, cfg_mac, cfg_ip, d.sha, d.spa), false});
		return learned;
	}

	// one cycle: a descriptor and / or a resolve accepted together
	void step(const ArpDesc *d, const uint32_t *ip)
	{
		Entry before[CACHE];
		std::copy(e, e + CACHE, before);
		bool learned = d ? arp(*d) : false;
		if (!ip)
			return;
		uint64_t mac = 0;
		bool hit = false;
		if (learned && d->spa == *ip) {
			hit = true;
			mac = d->sha;
		} else {
			for (auto &x : before)
				if (x.valid && x.ip == *ip) {
					hit = true;
					mac = x.mac;
				}
		}
		if (hit) {
			hits++;
			resps.push_back(Resp{*ip, mac, true});
			return;
		}
		misses++;
		std::vector<uint8_t> req = arp_frame(BCAST, cfg_mac, 1, cfg_mac, cfg_ip, 0, *ip);
		if (dead.count(*ip)) {
			for (int i = 0; i < RETRIES; i++)
				requests.push_back(ExpFrame{req, false});
			resps.push_back(Resp{*ip, 0, false});
			timeouts++;
		} else {
			requests.push_back(ExpFrame{req, false});
			pending = true;
			pend_ip = *ip;
		}
	}

	bool idle() const
	{
		if (!replies.empty() || !resps.empty() || pending)
			return false;
		for (auto &f : requests)
			if (!f.optional)
				return false;
		return true;
	}
};

// ---------------------------------------------------------------------------
// Simulation

struct Sim {
	Veth_arp *top;
	Model m;

	// stimulus
	std::deque<ArpDesc> arp_q;
	std::deque<uint32_t> res_q;
	bool arp_on = false, res_on = false;
	double p_arp = 1, p_res = 1, p_frame = 1, p_resp = 1;
	bool auto_answer = true;
	std::map<uint32_t, uint64_t> hosts;  // live hosts: ip -> mac

	// checking
	std::vector<uint8_t> got;
	int beat = 0;
	uint64_t frame_first = 0;
	std::vector<uint64_t> req_first;  // cycle of each request frame's first beat
	std::vector<uint64_t> resp_at;    // cycle of each answer taken
	std::vector<uint64_t> res_at;     // cycle of each resolve accepted
	uint64_t replies_rx = 0, requests_rx = 0, ok_rx = 0, fail_rx = 0, arp_in = 0, res_in = 0;
	uint64_t arp_b2b = 0, arp_stalls = 0, frame_stalls = 0;
	bool prev_arp_fire = false;

	// AXI stability
	bool f_held = false, r_held = false;
	std::vector<uint8_t> f_prev;
	uint64_t f_prev_keep = 0;
	bool f_prev_last = false;
	Resp r_prev{};

	explicit Sim(Veth_arp *t) : top(t)
	{
		top->clk = 0;
		top->s_arp_valid = 0;
		top->s_resolve_valid = 0;
		top->m_axis_tready = 0;
		top->m_resolve_ready = 0;
	}

	void set_cfg(uint64_t mac, uint32_t ip)
	{
		m.cfg_mac = mac;
		m.cfg_ip = ip;
		top->cfg_mac = mac;
		top->cfg_ip = ip;
	}

	void tick()
	{
		top->clk = 1;
		top->eval();
		top->clk = 0;
		top->eval();
		now++;
	}

	void reset()
	{
		top->rst = 1;
		top->s_arp_valid = 0;
		top->s_resolve_valid = 0;
		arp_on = res_on = false;
		for (int i = 0; i < 4; i++)
			tick();
		top->rst = 0;
		tick();
		m.reset();
		got.clear();
		beat = 0;
		f_held = r_held = false;
		replies_rx = requests_rx = ok_rx = fail_rx = 0;
	}

	void drive_arp(const ArpDesc &d)
	{
		top->s_arp_oper = d.oper;
		top->s_arp_sha = d.sha;
		top->s_arp_spa = d.spa;
		top->s_arp_tha = d.tha;
		top->s_arp_tpa = d.tpa;
	}

	void cycle()
	{
		// inputs (garbage on the fields while not valid)
		if (!arp_on && !arp_q.empty() && chance(p_arp))
			arp_on = true;
		if (arp_on)
			drive_arp(arp_q.front());
		else
			drive_arp(ArpDesc{(uint16_t)rng(), rng() & MAC_MASK, (uint32_t)rng(), rng() & MAC_MASK,
					  (uint32_t)rng()});
		top->s_arp_valid = arp_on;
		if (!res_on && !res_q.empty() && chance(p_res))
			res_on = true;
		top->s_resolve_ip = res_on ? res_q.front() : (uint32_t)rng();
		top->s_resolve_valid = res_on;
		top->m_axis_tready = chance(p_frame);
		top->m_resolve_ready = chance(p_resp);
		top->eval();

		bool af = top->s_arp_valid && top->s_arp_ready;
		bool rf = top->s_resolve_valid && top->s_resolve_ready;
		bool ff = top->m_axis_tvalid && top->m_axis_tready;
		bool pf = top->m_resolve_valid && top->m_resolve_ready;

		check_stable();
		if (arp_on && !af)
			arp_stalls++;
		if (top->m_axis_tvalid && !top->m_axis_tready)
			frame_stalls++;
		if (af && prev_arp_fire)
			arp_b2b++;
		prev_arp_fire = af;

		if (ff)
			frame_beat();
		if (pf)
			answer();
		ArpDesc d{};
		uint32_t ip = 0;
		if (af) {
			d = arp_q.front();
			arp_q.pop_front();
			arp_on = false;
			arp_in++;
		}
		if (rf) {
			ip = res_q.front();
			res_q.pop_front();
			res_on = false;
			res_in++;
			res_at.push_back(now);
		}
		if (af || rf)
			m.step(af ? &d : nullptr, rf ? &ip : nullptr);
		tick();
	}

	void check_stable()
	{
		if (f_held) {
			bool same = top->m_axis_tvalid && (uint64_t)top->m_axis_tkeep == f_prev_keep &&
				    (bool)top->m_axis_tlast == f_prev_last;
			for (int i = 0; same && i < KW; i++)
				same = tb::get_byte(top->m_axis_tdata, i) == f_prev[i];
			if (!same)
				FAIL("m_axis changed while valid and not ready");
		}
		f_held = top->m_axis_tvalid && !top->m_axis_tready;
		if (f_held) {
			f_prev.resize(KW);
			for (int i = 0; i < KW; i++)
				f_prev[i] = tb::get_byte(top->m_axis_tdata, i);
			f_prev_keep = (uint64_t)top->m_axis_tkeep;
			f_prev_last = top->m_axis_tlast;
		}
		if (r_held && !(top->m_resolve_valid && top->m_resolve_ip == r_prev.ip &&
				(uint64_t)top->m_resolve_mac == r_prev.mac && (bool)top->m_resolve_ok == r_prev.ok))
			FAIL("m_resolve changed while valid and not ready");
		r_held = top->m_resolve_valid && !top->m_resolve_ready;
		r_prev = Resp{top->m_resolve_ip, (uint64_t)top->m_resolve_mac, (bool)top->m_resolve_ok};
	}

	void frame_beat()
	{
		if (beat == 0)
			frame_first = now;
		bool last = top->m_axis_tlast;
		uint64_t keep = (uint64_t)top->m_axis_tkeep;
		int n = beat == FRAME_BEATS - 1 ? FRAME_BYTES - (FRAME_BEATS - 1) * KW : KW;
		if (keep != tb::keep_mask(n))
			FAIL("beat %d: tkeep %llx, expected %llx", beat, (unsigned long long)keep,
			     (unsigned long long)tb::keep_mask(n));
		if (last != (beat == FRAME_BEATS - 1))
			FAIL("beat %d: tlast %d", beat, (int)last);
		if (top->m_axis_tuser)
			FAIL("beat %d: tuser set", beat);
		for (int i = 0; i < n; i++)
			got.push_back(tb::get_byte(top->m_axis_tdata, i));
		beat++;
		if (!last)
			return;
		beat = 0;
		std::vector<uint8_t> f;
		f.swap(got);
		if (f.size() != (size_t)FRAME_BYTES) {
			FAIL("frame of %zu bytes", f.size());
			return;
		}
		uint16_t oper = (uint16_t)(f[20] << 8 | f[21]);
		std::deque<ExpFrame> &q = oper == 2 ? m.replies : m.requests;
		if (oper == 1) {
			requests_rx++;
			req_first.push_back(frame_first);
		} else {
			replies_rx++;
		}
		// optional requests (answered before they went out) may be missing
		while (!q.empty() && q.front().optional && q.front().bytes != f)
			q.pop_front();
		if (q.empty()) {
			FAIL("a frame nobody expected (oper %u, tpa %s)", oper,
			     ip_str((uint32_t)(f[38] << 24 | f[39] << 16 | f[40] << 8 | f[41])).c_str());
			return;
		}
		const std::vector<uint8_t> &e = q.front().bytes;
		for (int i = 0; i < FRAME_BYTES; i++)
			if (f[i] != e[i]) {
				FAIL("%s frame byte %d is %02x, expected %02x", oper == 1 ? "request" : "reply", i,
				     f[i], e[i]);
				break;
			}
		q.pop_front();

		// the other hosts answer our requests
		uint32_t tpa = (uint32_t)(f[38] << 24 | f[39] << 16 | f[40] << 8 | f[41]);
		if (oper == 1 && auto_answer && hosts.count(tpa))
			arp_q.push_back(ArpDesc{2, hosts[tpa], tpa, m.cfg_mac, m.cfg_ip});
	}

	void answer()
	{
		Resp r{top->m_resolve_ip, (uint64_t)top->m_resolve_mac, (bool)top->m_resolve_ok};
		resp_at.push_back(now);
		(r.ok ? ok_rx : fail_rx)++;
		if (m.resps.empty()) {
			FAIL("an answer nobody expected (%s)", ip_str(r.ip).c_str());
			return;
		}
		const Resp &e = m.resps.front();
		if (r.ip != e.ip || r.ok != e.ok || (e.ok && r.mac != e.mac))
			FAIL("answer %s %012llx ok %d, expected %s %012llx ok %d", ip_str(r.ip).c_str(),
			     (unsigned long long)r.mac, r.ok, ip_str(e.ip).c_str(), (unsigned long long)e.mac, e.ok);
		m.resps.pop_front();
	}

	bool busy() const { return !arp_q.empty() || !res_q.empty() || arp_on || res_on || !m.idle(); }

	// run until everything expected has come out, then a while longer (nothing more may come)
	void drain(const char *what, uint64_t quiet = 200)
	{
		uint64_t limit = now + (uint64_t)(RETRIES + 2) * RETRY_CYCLES + 100000;
		while (busy() && now < limit)
			cycle();
		if (busy())
			FAIL("%s: stuck (%zu replies, %zu requests, %zu answers still expected)", what,
			     m.replies.size(), m.requests.size(), m.resps.size());
		for (uint64_t i = 0; i < quiet; i++)
			cycle();
		while (!m.requests.empty() && m.requests.front().optional)
			m.requests.pop_front();
		if (beat != 0)
			FAIL("%s: a frame left half sent", what);
	}

	void check_counters(const char *what)
	{
		struct {
			const char *name;
			uint32_t dut;
			uint64_t want;
		} c[] = {
			{"arp_requests_in", top->arp_requests_in, m.req_in},
			{"arp_replies_out", top->arp_replies_out, replies_rx},
			{"arp_requests_out", top->arp_requests_out, requests_rx},
			{"resolve_ok", top->resolve_ok, ok_rx},
			{"resolve_fail", top->resolve_fail, fail_rx},
		};
		for (auto &x : c)
			if (x.dut != (uint32_t)x.want)
				FAIL("%s: counter %s is %u, expected %llu", what, x.name, x.dut,
				     (unsigned long long)x.want);
	}

	// directed helpers
	void send(const ArpDesc &d, const char *what, int replies, int requests = 0)
	{
		uint64_t r0 = replies_rx, q0 = requests_rx;
		arp_q.push_back(d);
		drain(what);
		if ((int)(replies_rx - r0) != replies || (int)(requests_rx - q0) != requests)
			FAIL("%s: %llu replies and %llu requests out, expected %d and %d", what,
			     (unsigned long long)(replies_rx - r0), (unsigned long long)(requests_rx - q0), replies,
			     requests);
	}

	// a resolve; hit: answered in the next cycle with no frame; else one request (answered)
	void resolve(uint32_t ip, bool hit, const char *what)
	{
		uint64_t q0 = requests_rx, a0 = resp_at.size(), s0 = res_at.size();
		res_q.push_back(ip);
		drain(what);
		if ((int)(requests_rx - q0) != (hit ? 0 : 1))
			FAIL("%s: resolve of %s sent %llu requests, expected %d", what, ip_str(ip).c_str(),
			     (unsigned long long)(requests_rx - q0), hit ? 0 : 1);
		if (hit && resp_at.size() == a0 + 1 && res_at.size() == s0 + 1 && p_resp >= 1.0 &&
		    resp_at.back() != res_at.back() + 1)
			FAIL("%s: hit answered %llu cycles after the request, expected 1", what,
			     (unsigned long long)(resp_at.back() - res_at.back()));
	}
};

// ---------------------------------------------------------------------------

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	rng.seed(tb::seed_from(argc, argv) * 0x9E3779B97F4A7C15ull + DATA_WIDTH);
	Veth_arp *top = new Veth_arp;
	Sim s(top);

	const uint64_t OUR_MAC = 0x02AA00000001ull;
	const uint32_t OUR_IP = 0x0A000001;  // 10.0.0.1
	s.set_cfg(OUR_MAC, OUR_IP);
	s.reset();

	// ---------------------------------------------------------------- A
	const uint32_t A = 0x0A000002, B = 0x0A000003, D = 0x0A000004, F = 0x0A000005;
	const uint32_t OTHER = 0x0A000063;
	const uint64_t MA = 0x001122334401ull, MA2 = 0x001122334411ull;
	const uint64_t MB = 0x001122334402ull, MB2 = 0x001122334412ull;
	const uint64_t MD = 0x001122334404ull, MF = 0x001122334405ull, ME = 0x00112233440Eull;

	// a request for our IP: exactly one reply, byte for byte (the model's frame), and A learned
	s.send({1, MA, A, 0, OUR_IP}, "request for our IP", 1);
	s.resolve(A, true, "resolve A after its request");

	// a request for another IP from an unknown host: nothing out, nothing learned
	s.hosts[B] = MB;
	s.send({1, MB, B, 0, OTHER}, "request for another IP", 0);
	// resolve B: a broadcast request, B answers, ok; then a hit without a frame
	s.resolve(B, false, "resolve B (uncached)");
	s.resolve(B, true, "resolve B again");

	// merge rule: A asks for someone else with a new MAC, B sends an unsolicited reply
	s.send({1, MA2, A, 0, OTHER}, "request for another IP from cached A", 0);
	s.send({2, MB2, B, OUR_MAC, OUR_IP}, "unsolicited reply from cached B", 0);
	s.hosts[B] = MB2;
	s.resolve(A, true, "resolve A after the merge");
	s.resolve(B, true, "resolve B after the merge");

	// an unsolicited reply from an unknown host teaches nothing
	s.hosts[D] = MD;
	s.send({2, MD, D, OUR_MAC, OUR_IP}, "unsolicited reply from unknown D", 0);
	s.resolve(D, false, "resolve D (not learned from the unsolicited reply)");

	// a probe (spa 0) for our IP is answered (to its sha, tpa 0) and not learned; oper 3 ignored
	s.send({1, ME, 0, 0, OUR_IP}, "probe for our IP", 1);
	s.send({3, ME, 0x0A000006, 0, OUR_IP}, "oper 3", 0);
	s.send({1, ME, OUR_IP, 0, OUR_IP}, "request claiming our IP", 1);

	// a request from the IP being resolved answers the resolve
	s.auto_answer = false;
	s.hosts[F] = MF;
	{
		uint64_t q0 = s.requests_rx;
		s.res_q.push_back(F);
		while (s.requests_rx == q0 && now < 1000000)
			s.cycle();
		s.arp_q.push_back({1, MF, F, 0, OTHER});
		s.drain("request from the IP being resolved");
		if (s.m.completions == 0 || s.requests_rx != q0 + 1)
			FAIL("resolve of F not answered by F's request");
	}
	s.auto_answer = true;
	s.resolve(F, true, "resolve F after its request answered it");
	s.check_counters("directed");
	uint64_t n_directed_frames = s.replies_rx + s.requests_rx;

	// ---------------------------------------------------------------- T
	const uint32_t G = 0x0A0000F0, H = 0x0A0000F1;
	s.m.dead.insert(G);
	s.m.dead.insert(H);
	uint64_t max_spacing = 0;
	for (int pass = 0; pass < 2; pass++) {
		bool exact = pass == 0;
		s.p_frame = s.p_resp = exact ? 1.0 : 0.5;
		size_t q0 = s.req_first.size(), a0 = s.resp_at.size(), r0 = s.res_at.size();
		uint64_t f0 = s.fail_rx;
		s.res_q.push_back(exact ? G : H);
		s.drain(exact ? "time-out" : "time-out with random ready");
		if (s.req_first.size() - q0 != (size_t)RETRIES || s.fail_rx != f0 + 1 || s.resp_at.size() != a0 + 1) {
			FAIL("time-out: %zu requests and %llu failures, expected %d and 1", s.req_first.size() - q0,
			     (unsigned long long)(s.fail_rx - f0), RETRIES);
			continue;
		}
		if (exact && s.req_first[q0] != s.res_at[r0] + 2)
			FAIL("first request %llu cycles after the resolve, expected 2",
			     (unsigned long long)(s.req_first[q0] - s.res_at[r0]));
		std::vector<uint64_t> gaps;
		for (int i = 1; i < RETRIES; i++)
			gaps.push_back(s.req_first[q0 + i] - s.req_first[q0 + i - 1]);
		gaps.push_back(s.resp_at[a0] - s.req_first[q0 + RETRIES - 1]);  // to the failure
		for (uint64_t g : gaps) {
			max_spacing = std::max(max_spacing, g);
			if (exact ? g != RETRY_CYCLES : (g < RETRY_CYCLES || g > RETRY_CYCLES + 200))
				FAIL("time-out spacing %llu cycles, expected %s%llu", (unsigned long long)g,
				     exact ? "" : "at least ", (unsigned long long)RETRY_CYCLES);
		}
	}
	s.p_frame = s.p_resp = 1.0;
	s.check_counters("time-out");

	// ---------------------------------------------------------------- R
	s.reset();
	s.check_counters("after reset");
	uint32_t HI[CACHE + 1];
	for (int i = 0; i <= CACHE; i++) {
		HI[i] = 0x0A000100 + (uint32_t)i;
		s.hosts[HI[i]] = 0x00AB00000000ull + (uint64_t)i;
	}
	for (int i = 0; i < CACHE; i++)
		s.send({1, s.hosts[HI[i]], HI[i], 0, OUR_IP}, "fill the cache", 1);
	for (int i = 0; i < CACHE; i++)
		s.resolve(HI[i], true, "full cache");
	// one more host: evicts the first
	s.send({1, s.hosts[HI[CACHE]], HI[CACHE], 0, OUR_IP}, "one more host", 1);
	for (int i = 1; i <= CACHE; i++)
		s.resolve(HI[i], true, "after the eviction");
	s.resolve(HI[0], false, "the evicted host");            // comes back in slot 1, evicting HI[1]
	s.resolve(HI[1], false, "the next one evicted");        // slot 2, evicting HI[2]
	for (int i : {3, 4, 0, 1})
		s.resolve(HI[i], true, "round robin");
	s.resolve(HI[2], false, "round robin, third eviction"); // slot 3, evicting HI[3]
	s.resolve(HI[3], false, "round robin, fourth eviction"); // slot 0, evicting HI[4]
	s.resolve(HI[4], false, "round robin wraps");           // slot 1, evicting HI[0]
	for (int i : {1, 2, 3, 4})
		s.resolve(HI[i], true, "round robin after the wrap");
	s.check_counters("round robin");
	uint64_t n_rr_frames = s.replies_rx + s.requests_rx;

	// ---------------------------------------------------------------- X
	s.reset();
	s.hosts.clear();
	uint64_t cfg_mac = (rng() & MAC_MASK & ~0x010000000000ull) | 0x020000000000ull;
	uint32_t cfg_ip = 0xC0A80000u | (uint32_t)(1 + rnd(250));
	s.set_cfg(cfg_mac, cfg_ip);
	std::vector<uint32_t> pool;
	while (pool.size() < 10) {
		uint32_t ip = 0xC0A80000u | (uint32_t)(1 + rnd(254));
		if (ip != cfg_ip && !s.hosts.count(ip)) {
			pool.push_back(ip);
			s.hosts[ip] = rng() & MAC_MASK & ~0x010000000000ull;
		}
	}
	auto pick_ip = [&]() { return pool[rnd(pool.size())]; };
	static const double rates[] = {1.0, 1.0, 0.9, 0.5, 0.2};
	const uint64_t X_CYCLES = 400000;
	uint64_t x_end = now + X_CYCLES, x_start = now;
	uint64_t x_res = 0;
	const uint64_t x_in0 = s.arp_in, x_b2b0 = s.arp_b2b, x_st0 = s.arp_stalls, x_fs0 = s.frame_stalls;
	const uint64_t x_hits0 = s.m.hits, x_comp0 = s.m.completions;
	while (now < x_end && failures == 0) {
		if ((now - x_start) % 256 == 0) {
			s.p_arp = rates[rnd(5)];
			s.p_res = rates[rnd(5)];
			s.p_frame = rates[rnd(5)];
			s.p_resp = rates[rnd(5)];
		}
		if (s.arp_q.size() < 2) {
			uint32_t ip = pick_ip();
			if (chance(0.02))
				s.hosts[ip] = rng() & MAC_MASK & ~0x010000000000ull;  // a host changes its MAC
			uint64_t mac = s.hosts[ip];
			ArpDesc d;
			switch (rnd(20)) {
			case 0: case 1: case 2: case 3: case 4: case 5: case 6:
				d = {1, mac, ip, 0, cfg_ip};  // for us
				break;
			case 7: case 8: case 9: case 10: case 11:
				d = {1, mac, ip, 0, chance(0.5) ? pick_ip() : (uint32_t)rng()};  // for others
				break;
			case 12: case 13: case 14:
				d = {2, mac, ip, cfg_mac, cfg_ip};  // unsolicited reply to us
				break;
			case 15:
				d = {2, mac, ip, rng() & MAC_MASK, pick_ip()};  // reply to someone else
				break;
			case 16:
				d = {1, mac, 0, 0, chance(0.5) ? cfg_ip : pick_ip()};  // probe
				break;
			case 17:
				d = {(uint16_t)(chance(0.5) ? 3 : rng()), mac, ip, 0, cfg_ip};  // odd oper
				break;
			default:
				d = {1, rng() & MAC_MASK, (uint32_t)rng(), 0, chance(0.3) ? cfg_ip : (uint32_t)rng()};
				break;
			}
			s.arp_q.push_back(d);
		}
		if (s.res_q.empty() && chance(0.3)) {
			s.res_q.push_back(chance(0.95) ? pick_ip() : (uint32_t)rng() | 1);
			if (!s.hosts.count(s.res_q.back()))
				s.hosts[s.res_q.back()] = rng() & MAC_MASK;  // anyone asked for answers
			x_res++;
		}
		s.cycle();
	}
	s.p_arp = s.p_res = s.p_frame = s.p_resp = 1.0;
	s.drain("random");
	s.check_counters("random");

	if (failures) {
		printf("tb_eth_arp DATA_WIDTH=%d: FAIL (%d failures)\n", DATA_WIDTH, failures);
		return 1;
	}
	printf("tb_eth_arp DATA_WIDTH=%d: PASS directed (%llu frames), time-outs (%d requests %llu cycles apart, "
	       "max %llu with random ready), round robin (%llu frames), random %llu cycles: %llu descriptors "
	       "(%llu back to back, %llu stalled cycles), %llu replies + %llu requests out (%llu stalled "
	       "cycles), %llu resolves (%llu hits, %llu misses answered), %llu cycles in all\n",
	       DATA_WIDTH, (unsigned long long)n_directed_frames, RETRIES, (unsigned long long)RETRY_CYCLES,
	       (unsigned long long)max_spacing, (unsigned long long)n_rr_frames, (unsigned long long)X_CYCLES,
	       (unsigned long long)(s.arp_in - x_in0), (unsigned long long)(s.arp_b2b - x_b2b0),
	       (unsigned long long)(s.arp_stalls - x_st0), (unsigned long long)s.replies_rx,
	       (unsigned long long)s.requests_rx, (unsigned long long)(s.frame_stalls - x_fs0),
	       (unsigned long long)x_res, (unsigned long long)(s.m.hits - x_hits0),
	       (unsigned long long)(s.m.completions - x_comp0), (unsigned long long)now);
	top->final();
	delete top;
	return 0;
}
