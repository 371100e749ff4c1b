// SPDX-License-Identifier: MIT
//
// Test bench for dut/rtl/roce_tx_frame.v against rt_build().
//
// Every frame: a random descriptor (opcode from RC/UC SEND and RDMA WRITE
// 0x00-0x0B / 0x20-0x2B, random header fields) and a random payload; the
// expected frame is rt_build() of the same spec with the UDP checksum off,
// minus its last 4 bytes (the ICRC). Every output beat is checked: bytes in
// the kept lanes, tkeep, tlast, tuser.
//
//   1. directed: every opcode with the lengths its position allows (0 for
//      Only, 1-4, every PMTU), and a sweep of short lengths for each header
//      size (54, 58, 70, 74 bytes) across the first beat boundaries;
//   2. random frames with random tvalid gaps on the descriptor and payload and
//      random tready on the output (the stall pattern changes every few
//      hundred cycles), garbage in the payload's unused lanes, and a few
//      frames with a broken payload stream (tuser, tlast or tkeep wrong),
//      which must come out with the same bytes and tuser set on the last beat;
//   3. a run without stalls, measuring cycles per frame against
//      ceil(frame_len / KEEP_WIDTH).
// Throughout, m_axis_tvalid must not drop inside a frame while the output is
// ready, however the payload stalls (a MAC would send the frame broken).
// Frames go out whole (store and forward): in 3 the output spacing follows
// each frame's own length, so the bound is on the whole run's cycles.
//
// Prints one summary line; exits non-zero on the first mismatch.

#include <verilated.h>

#include "Vroce_tx_frame.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "rocetest/build.h"
#include "rocetest/opcode.h"
}

#ifndef DATA_WIDTH
#define DATA_WIDTH 64
#endif

static const int KW = DATA_WIDTH / 8;

// ---------------------------------------------------------------------------
// Bus access for both port types Verilator uses (QData up to 64 bits, VlWide above)

static inline void bus_put(uint64_t &w, int i, uint8_t v)
{
	w = (w & ~(0xFFull << (8 * i))) | ((uint64_t)v << (8 * i));
}
template <std::size_t N>
static inline void bus_put(VlWide<N> &w, int i, uint8_t v)
{
	uint32_t &e = w[i / 4];
	e = (e & ~(0xFFu << (8 * (i % 4)))) | ((uint32_t)v << (8 * (i % 4)));
}
static inline uint8_t bus_get(const uint64_t &w, int i)
{
	return (uint8_t)(w >> (8 * i));
}
template <std::size_t N>
static inline uint8_t bus_get(const VlWide<N> &w, int i)
{
	return (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

static uint64_t lane_mask(int n)
{
	if (n <= 0)
		return 0;
	if (n >= 64)
		return ~0ull;
	return (1ull << n) - 1;
}

// ---------------------------------------------------------------------------
// Frames

struct Desc {
	uint64_t dst_mac, src_mac;
	uint32_t src_ip, dst_ip;
	uint16_t ip_id;
	uint8_t tos;
	uint16_t udp_sport;
	uint8_t opcode;
	bool se, ack_req;
	uint32_t dest_qp, psn;
	uint64_t va;
	uint32_t rkey, dma_len, imm;
	uint32_t payload_len;
};

enum Fault { FAULT_NONE, FAULT_TUSER, FAULT_NO_TLAST, FAULT_EARLY_TLAST, FAULT_TKEEP, FAULT_COUNT };

struct Beat {
	std::vector<uint8_t> data;  // KW bytes
	uint64_t keep;
	bool last, user;
};

struct Frame {
	Desc d;
	std::vector<uint8_t> payload;
	std::vector<uint8_t> expected;
	std::vector<Beat> beats;  // the payload stream
	Fault fault;
};

static std::mt19937_64 rng(0x5EED0000u + DATA_WIDTH);

static uint64_t rnd(uint64_t n) { return n ? rng() % n : 0; }
static bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

static const uint8_t OPCODES[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B,
};
static const int N_OPCODES = sizeof OPCODES;
static const uint32_t PMTUS[] = { 256, 512, 1024, 2048, 4096 };

static int position_of(uint8_t op)
{
	const struct rt_opcode_info *i = rt_opcode_info(op);
	return i ? i->position : RT_POS_NONE;
}

static void put_be(uint8_t *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static std::vector<uint8_t> reference(const Desc &d, const std::vector<uint8_t> &payload)
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
	s.udp_sport = d.udp_sport;
	s.udp_dport = 4791;
	s.udp_checksum = false;
	s.bth.opcode = d.opcode;
	s.bth.se = d.se;
	s.bth.migreq = false;
	s.bth.pkey = 0xFFFF;
	s.bth.dest_qp = d.dest_qp;
	s.bth.ack_req = d.ack_req;
	s.bth.psn = d.psn;
	s.ext.reth.va = d.va;
	s.ext.reth.rkey = d.rkey;
	s.ext.reth.dma_len = d.dma_len;
	s.ext.imm = d.imm;
	s.payload = payload.data();
	s.payload_len = d.payload_len;
	std::vector<uint8_t> buf(rt_build_frame_len(&s));
	size_t n = rt_build(&s, buf.data(), buf.size());
	if (n < 4 || n != buf.size()) {
		fprintf(stderr, "rt_build failed for opcode 0x%02x len %u\n", d.opcode, d.payload_len);
		exit(2);
	}
	buf.resize(n - 4);  // without the ICRC
	return buf;
}

static Frame make_frame(uint8_t opcode, uint32_t len, Fault fault)
{
	Frame f;
	Desc &d = f.d;
	d.dst_mac = rng() & 0xFFFFFFFFFFFFull;
	d.src_mac = rng() & 0xFFFFFFFFFFFFull;
	d.src_ip = (uint32_t)rng();
	d.dst_ip = (uint32_t)rng();
	d.ip_id = (uint16_t)rng();
	d.tos = (uint8_t)rng();
	d.udp_sport = (uint16_t)rng();
	d.opcode = opcode;
	d.se = rng() & 1;
	d.ack_req = rng() & 1;
	d.dest_qp = (uint32_t)rng() & 0xFFFFFF;
	d.psn = (uint32_t)rng() & 0xFFFFFF;
	d.va = rng();
	d.rkey = (uint32_t)rng();
	d.dma_len = (uint32_t)rng();
	d.imm = (uint32_t)rng();
	d.payload_len = len;
	f.payload.resize(len);
	for (auto &b : f.payload)
		b = (uint8_t)rng();
	f.expected = reference(d, f.payload);
	if (len == 0)
		fault = FAULT_NONE;
	int nbeats = (int)((len + KW - 1) / KW);
	if (fault == FAULT_EARLY_TLAST && nbeats < 2)
		fault = FAULT_TUSER;
	f.fault = fault;

	// the payload stream, garbage in the unused lanes
	for (int i = 0; i < nbeats; i++) {
		Beat b;
		b.data.resize(KW);
		int n = std::min<int>(KW, (int)len - i * KW);
		for (int j = 0; j < KW; j++)
			b.data[j] = j < n ? f.payload[i * KW + j] : (uint8_t)rng();
		b.keep = lane_mask(n);
		b.last = i == nbeats - 1;
		b.user = false;
		f.beats.push_back(b);
	}
	switch (fault) {
	case FAULT_TUSER:
		f.beats[rnd(nbeats)].user = true;
		break;
	case FAULT_NO_TLAST:
		f.beats[nbeats - 1].last = false;
		break;
	case FAULT_EARLY_TLAST:
		f.beats[rnd(nbeats - 1)].last = true;
		break;
	case FAULT_TKEEP: {
		Beat &b = f.beats[nbeats - 1];
		b.keep = b.keep == lane_mask(KW) ? lane_mask(KW - 1) : lane_mask(KW);
		break;
	}
	default:
		break;
	}
	return f;
}

// a length for opcode op: First/Middle a PMTU, Last 1..PMTU, Only 0..PMTU
static uint32_t random_len(uint8_t op)
{
	uint32_t pmtu = PMTUS[rnd(5)];
	int pos = position_of(op);
	if (pos == RT_POS_FIRST || pos == RT_POS_MIDDLE)
		return pmtu;
	uint32_t min = pos == RT_POS_ONLY ? 0 : 1;
	switch (rnd(6)) {
	case 0:
		return min + (uint32_t)rnd(5 - min);  // 0/1 .. 4
	case 1:
		return pmtu;
	case 2:
	case 3:
		return min + (uint32_t)rnd(3 * KW + 8);  // around the first beats
	default:
		return 1 + (uint32_t)rnd(pmtu);
	}
}

// ---------------------------------------------------------------------------
// Simulation

struct Sim {
	Vroce_tx_frame *top;
	uint64_t cycle = 0;

	// stimulus
	std::vector<Frame> *frames = nullptr;
	size_t desc_next = 0;  // next descriptor to present
	bool desc_on = false;
	size_t pay_frame = 0, pay_beat = 0;  // next payload beat to present
	bool pay_on = false;
	double p_desc = 1, p_pay = 1, p_ready = 1;

	// checking
	size_t out_frame = 0;
	int out_beat = 0;
	std::vector<uint64_t> first_beat_cycle;
	bool prev_stalled = false;
	std::vector<uint8_t> prev_data;
	uint64_t prev_keep = 0;
	bool prev_last = false, prev_user = false;
	uint64_t frames_bad_flagged = 0;

	explicit Sim(Vroce_tx_frame *t) : top(t) {}

	void fail(const char *what)
	{
		const Frame &f = (*frames)[out_frame];
		fprintf(stderr,
			"tb_roce_tx_frame DATA_WIDTH=%d: FAIL at cycle %llu, frame %zu (opcode 0x%02x, payload %u, "
			"frame %zu bytes, fault %d), beat %d: %s\n",
			DATA_WIDTH, (unsigned long long)cycle, out_frame, f.d.opcode, f.d.payload_len,
			f.expected.size(), (int)f.fault, out_beat, what);
		exit(1);
	}

	void drive_desc(const Desc &d)
	{
		top->s_desc_dst_mac = d.dst_mac;
		top->s_desc_src_mac = d.src_mac;
		top->s_desc_src_ip = d.src_ip;
		top->s_desc_dst_ip = d.dst_ip;
		top->s_desc_ip_id = d.ip_id;
		top->s_desc_tos = d.tos;
		top->s_desc_udp_sport = d.udp_sport;
		top->s_desc_opcode = d.opcode;
		top->s_desc_solicited = d.se;
		top->s_desc_ack_req = d.ack_req;
		top->s_desc_dest_qp = d.dest_qp;
		top->s_desc_psn = d.psn;
		top->s_desc_reth_va = d.va;
		top->s_desc_reth_rkey = d.rkey;
		top->s_desc_reth_len = d.dma_len;
		top->s_desc_imm = d.imm;
		top->s_desc_payload_len = d.payload_len;
	}

	void drive_garbage_desc()
	{
		Desc d;
		memset(&d, 0, sizeof d);
		d.dst_mac = rng() & 0xFFFFFFFFFFFFull;
		d.opcode = (uint8_t)rng();
		d.payload_len = (uint32_t)rng() & 0x1FFF;
		drive_desc(d);
	}

	// advance the payload cursor past frames without payload
	void skip_empty()
	{
		while (pay_frame < frames->size() && pay_beat >= (*frames)[pay_frame].beats.size()) {
			pay_frame++;
			pay_beat = 0;
		}
	}

	void step()
	{
		// inputs: valid may rise at random, and stays up (same data) until taken
		if (!desc_on && desc_next < frames->size() && chance(p_desc)) {
			desc_on = true;
			drive_desc((*frames)[desc_next].d);
		}
		if (!desc_on)
			drive_garbage_desc();
		top->s_desc_valid = desc_on;

		skip_empty();
		if (!pay_on && pay_frame < frames->size() && chance(p_pay))
			pay_on = true;
		if (pay_on) {
			const Beat &b = (*frames)[pay_frame].beats[pay_beat];
			for (int i = 0; i < KW; i++)
				bus_put(top->s_axis_tdata, i, b.data[i]);
			top->s_axis_tkeep = b.keep;
			top->s_axis_tlast = b.last;
			top->s_axis_tuser = b.user;
		} else {
			for (int i = 0; i < KW; i++)
				bus_put(top->s_axis_tdata, i, (uint8_t)rng());
			top->s_axis_tkeep = rng();
			top->s_axis_tlast = rng() & 1;
			top->s_axis_tuser = rng() & 1;
		}
		top->s_axis_tvalid = pay_on;
		top->m_axis_tready = chance(p_ready);

		top->clk = 0;
		top->eval();

		bool desc_hs = top->s_desc_valid && top->s_desc_ready;
		bool pay_hs = top->s_axis_tvalid && top->s_axis_tready;
		if (top->m_axis_tvalid)
			check_output();
		else if (prev_stalled)
			fail("tvalid dropped before the beat was taken");
		else if (out_beat > 0 && top->m_axis_tready)
			fail("tvalid low inside a frame while the output was ready (a MAC underrun)");

		top->clk = 1;
		top->eval();
		cycle++;

		if (desc_hs) {
			desc_on = false;
			desc_next++;
		}
		if (pay_hs) {
			pay_on = false;
			pay_beat++;
		}
	}

	void check_output()
	{
		// AXI-Stream: a beat not taken stays as it was
		std::vector<uint8_t> data(KW);
		for (int i = 0; i < KW; i++)
			data[i] = bus_get(top->m_axis_tdata, i);
		uint64_t keep = (uint64_t)top->m_axis_tkeep;
		bool last = top->m_axis_tlast, user = top->m_axis_tuser;
		if (prev_stalled && (data != prev_data || keep != prev_keep || last != prev_last || user != prev_user))
			fail("output beat changed while stalled");
		prev_stalled = !top->m_axis_tready;
		prev_data = data, prev_keep = keep, prev_last = last, prev_user = user;
		if (!top->m_axis_tready)
			return;

		if (out_frame >= frames->size())
			fail("output beat after the last frame");
		const Frame &f = (*frames)[out_frame];
		const std::vector<uint8_t> &e = f.expected;
		int nbeats = (int)((e.size() + KW - 1) / KW);
		int base = out_beat * KW;
		int n = std::min<int>(KW, (int)e.size() - base);
		bool exp_last = out_beat == nbeats - 1;
		if (out_beat == 0)
			first_beat_cycle.push_back(cycle);
		if (keep != lane_mask(n)) {
			char msg[96];
			snprintf(msg, sizeof msg, "tkeep %016llx, expected %016llx", (unsigned long long)keep,
				 (unsigned long long)lane_mask(n));
			fail(msg);
		}
		if (last != exp_last)
			fail(last ? "tlast early" : "tlast missing");
		for (int i = 0; i < n; i++) {
			if (data[i] != e[base + i]) {
				char msg[96];
				snprintf(msg, sizeof msg, "frame byte %d is %02x, expected %02x", base + i, data[i],
					 e[base + i]);
				fail(msg);
			}
		}
		bool exp_user = exp_last && f.fault != FAULT_NONE;
		if (user != exp_user)
			fail(user ? "tuser set on a good frame/beat" : "tuser not set on a broken payload stream");
		if (exp_last) {
			frames_bad_flagged += user;
			out_frame++;
			out_beat = 0;
		} else {
			out_beat++;
		}
	}

	void run(std::vector<Frame> &fr, bool stalls)
	{
		frames = &fr;
		desc_next = 0, pay_frame = 0, pay_beat = 0, out_frame = 0, out_beat = 0;
		desc_on = pay_on = false;
		first_beat_cycle.clear();
		static const double P[] = { 1.0, 0.95, 0.8, 0.5, 0.2, 0.05 };
		p_desc = p_pay = p_ready = 1.0;
		uint64_t limit = cycle + 200000 + 50ull * fr.size() * (4200 / KW + 4);
		while (out_frame < fr.size()) {
			if (stalls && cycle % 300 == 0) {
				p_desc = P[rnd(6)];
				p_pay = P[rnd(6)];
				p_ready = P[rnd(6)];
			}
			step();
			if (cycle > limit) {
				fprintf(stderr,
					"tb_roce_tx_frame DATA_WIDTH=%d: FAIL timeout: %zu of %zu frames out, "
					"descriptors taken %zu, payload at frame %zu beat %zu\n",
					DATA_WIDTH, out_frame, fr.size(), desc_next, pay_frame, pay_beat);
				exit(1);
			}
		}
		skip_empty();
		if (desc_next != fr.size() || pay_frame != fr.size())
			fail("frames out but descriptors or payload beats left");
		// nothing more comes out
		p_desc = p_pay = 0;
		p_ready = 1;
		for (int i = 0; i < 20; i++) {
			step();
			if (top->m_axis_tvalid)
				fail("extra output beat");
		}
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Vroce_tx_frame *top = new Vroce_tx_frame;
	Sim sim(top);

	top->rst = 1;
	top->s_desc_valid = 0;
	top->s_axis_tvalid = 0;
	top->m_axis_tready = 0;
	for (int i = 0; i < 4; i++) {
		top->clk = 0;
		top->eval();
		top->clk = 1;
		top->eval();
	}
	top->rst = 0;

	// 1. directed
	std::vector<Frame> frames;
	for (int k = 0; k < N_OPCODES; k++) {
		uint8_t op = OPCODES[k];
		int pos = position_of(op);
		if (pos == RT_POS_LAST || pos == RT_POS_ONLY)
			for (uint32_t len = pos == RT_POS_ONLY ? 0 : 1; len <= 4; len++)
				frames.push_back(make_frame(op, len, FAULT_NONE));
		for (uint32_t pmtu : PMTUS)
			frames.push_back(make_frame(op, pmtu, FAULT_NONE));
	}
	// every header size (SEND Only 54, SEND Only Imm 58, WRITE Only 70, WRITE Only Imm 74)
	// over the first beat boundaries
	static const uint8_t KINDS[] = { 0x04, 0x25, 0x0A, 0x2B };
	for (uint8_t op : KINDS)
		for (uint32_t len = 0; len <= (uint32_t)(2 * KW + 8); len++)
			frames.push_back(make_frame(op, len, FAULT_NONE));
	size_t n_directed = frames.size();

	// 2. random, with stalls and some broken payload streams
	const size_t N_RANDOM = 4000;
	size_t n_faults = 0;
	for (size_t i = 0; i < N_RANDOM; i++) {
		uint8_t op = OPCODES[rnd(N_OPCODES)];
		Fault fault = chance(0.03) ? (Fault)(1 + rnd(FAULT_COUNT - 1)) : FAULT_NONE;
		frames.push_back(make_frame(op, random_len(op), fault));
		n_faults += frames.back().fault != FAULT_NONE;
	}
	sim.run(frames, true);
	size_t n_stall = frames.size();
	uint64_t bytes = 0;
	for (const Frame &f : frames)
		bytes += f.expected.size();
	if (sim.frames_bad_flagged != n_faults)
		sim.fail("bad-frame count");

	// 3. no stalls: cycles per frame
	std::vector<Frame> fast;
	const size_t N_FAST = 2000;
	for (size_t i = 0; i < N_FAST; i++) {
		uint8_t op = OPCODES[rnd(N_OPCODES)];
		uint32_t len = chance(0.3) ? (position_of(op) == RT_POS_ONLY ? 0u : 1u) + (uint32_t)rnd(KW)
					   : random_len(op);
		fast.push_back(make_frame(op, len, FAULT_NONE));
	}
	sim.run(fast, false);
	uint64_t beats = 0, extra_total = 0, extra_max = 0, one_beat = 0;
	for (size_t i = 0; i < fast.size(); i++) {
		uint64_t nb = (fast[i].expected.size() + KW - 1) / KW;
		beats += nb;
		one_beat += nb == 1;
		if (i + 1 < fast.size()) {
			uint64_t took = sim.first_beat_cycle[i + 1] - sim.first_beat_cycle[i];
			uint64_t extra = took - nb;
			extra_total += extra;
			extra_max = std::max(extra_max, extra);
		}
		bytes += fast[i].expected.size();
	}
	uint64_t span = sim.first_beat_cycle.back() - sim.first_beat_cycle.front() +
			(fast.back().expected.size() + KW - 1) / KW;
	// line rate: at most one idle cycle per frame, plus the frame FIFO's
	// store-and-forward delay of its longest frame (4170 bytes) and 2 cycles
	uint64_t fifo_delay = (4170 + KW - 1) / KW + 2;
	if (span > beats + fast.size() + fifo_delay)
		sim.fail("more than one idle cycle per frame without stalls");

	printf("tb_roce_tx_frame DATA_WIDTH=%d: PASS %zu frames (%zu directed, %zu random with stalls incl. %zu "
	       "broken payload streams flagged, %zu without stalls), %llu bytes; no stalls: %llu beats in %llu "
	       "cycles, max %llu extra cycles between two frames (%zu one-beat frames)\n",
	       DATA_WIDTH, n_stall + fast.size(), n_directed, N_RANDOM, n_faults, fast.size(),
	       (unsigned long long)bytes, (unsigned long long)beats, (unsigned long long)span,
	       (unsigned long long)extra_max, (size_t)one_beat);
	(void)extra_total;
	top->final();
	delete top;
	return 0;
}
