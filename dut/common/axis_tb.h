/* SPDX-License-Identifier: MIT */
/*
 * A small AXI-Stream harness for the Verilator benches of dut/rtl and the
 * model of dut/sim (so in dut/common, which both use): a frame
 * source with random tvalid gaps, a sink with random tready, and a monitor
 * that reassembles the output frames and checks tkeep / tlast / tuser. The
 * model V has the usual ports: clk, rst, s_axis_{tdata,tkeep,tvalid,tready,
 * tlast,tuser}, m_axis_{tdata,tkeep,tvalid,tready,tlast,tuser}.
 *
 * The bench is built with -DDATA_WIDTH=W, the width the RTL was verilated at.
 */
#ifndef DUT_COMMON_AXIS_TB_H
#define DUT_COMMON_AXIS_TB_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "verilated.h"

#ifndef DATA_WIDTH
#error "build the bench with -DDATA_WIDTH=W"
#endif

namespace tb {

constexpr size_t KEEP = DATA_WIDTH / 8;

/* tdata of 64 bits is a QData, wider ones a VlWide; byte i is bits 8i+7..8i. */
inline void put_bytes(QData &s, const uint8_t *b, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	s = v;
}

template <std::size_t W>
inline void put_bytes(VlWide<W> &s, const uint8_t *b, size_t n)
{
	for (size_t w = 0; w < W; w++)
		s[w] = 0;
	for (size_t i = 0; i < n; i++)
		s[i / 4] |= (uint32_t)b[i] << (8 * (i % 4));
}

inline uint8_t get_byte(const QData &s, size_t i)
{
	return (uint8_t)(s >> (8 * i));
}

template <std::size_t W>
inline uint8_t get_byte(const VlWide<W> &s, size_t i)
{
	return (uint8_t)(s[i / 4] >> (8 * (i % 4)));
}

inline uint64_t keep_mask(size_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

struct Frame {
	std::vector<uint8_t> bytes;
	bool user = false;		/* tuser on the last beat */
	std::string what;		/* for failure messages */
};

/* Beats of a frame of n bytes. */
inline uint64_t beats(size_t n)
{
	return (n + KEEP - 1) / KEEP;
}

template <class V>
class Harness {
public:
	Harness(V *top, std::mt19937_64 &rng, const char *name) : top(top), rng(rng), name(name)
	{
		top->clk = 0;
		top->rst = 1;
		top->s_axis_tvalid = 0;
		top->m_axis_tready = 0;
		for (int i = 0; i < 4; i++)
			tick();
		top->rst = 0;
		tick();
	}

	/* Queue a frame to send, and what the sink must receive for it. */
	void push(const Frame &in, const Frame &out)
	{
		src.push_back(in);
		expect.push_back(out);
	}

	/*
	 * Run until every queued frame has come out (or a time-out). p_valid and
	 * p_ready: the chance per cycle that the source offers a beat / the sink
	 * takes one; when random_rates is set they are re-drawn for every frame.
	 */
	bool run(double p_valid, double p_ready, bool random_rates)
	{
		pv = p_valid;
		pr = p_ready;
		randomize = random_rates;
		uint64_t idle = 0;
		while (!expect.empty() && errors < 10) {
			uint64_t before = received;
			cycle();
			idle = received != before ? 0 : idle + 1;
			if (idle > 100000) {
				std::printf("%s: FAIL: stuck, %zu frames still expected\n", name, expect.size());
				errors++;
				return false;
			}
		}
		return errors == 0;
	}

	/* One clock: drive the inputs, sample both handshakes, rising edge. */
	void cycle()
	{
		std::uniform_real_distribution<double> u(0.0, 1.0);

		if (!src_valid && !src.empty() && (pv >= 1.0 || u(rng) < pv))
			load_beat();
		top->s_axis_tvalid = src_valid;
		top->m_axis_tready = pr >= 1.0 || u(rng) < pr;
		top->eval();

		bool s_fire = top->s_axis_tvalid && top->s_axis_tready;
		bool m_fire = top->m_axis_tvalid && top->m_axis_tready;

		if (src_valid && !top->s_axis_tready)
			in_stalls++;
		if (out_started && !top->m_axis_tvalid)
			out_gaps_pending++;
		if (m_fire)
			monitor();
		if (s_fire) {
			if (src_off == 0)
				in_start.push_back(cycles);
			src_off += KEEP;
			src_valid = false;
			if (src_off >= src.front().bytes.size()) {
				src.pop_front();
				src_off = 0;
				if (randomize)
					new_rates();
			}
		}
		tick();
	}

	/* Cycle counts at which each frame's first beat went in / came out. */
	std::vector<uint64_t> in_start, out_start;
	uint64_t cycles = 0;
	uint64_t received = 0;
	uint64_t in_stalls = 0;		/* cycles a beat was offered and not taken */
	uint64_t out_gaps = 0;		/* cycles without output between the first and last beat out */
	int errors = 0;

	void reset_stats()
	{
		in_start.clear();
		out_start.clear();
		in_stalls = out_gaps = out_gaps_pending = 0;
		out_started = false;
	}

private:
	V *top;
	std::mt19937_64 &rng;
	const char *name;
	std::deque<Frame> src, expect;
	size_t src_off = 0;
	bool src_valid = false;
	double pv = 1.0, pr = 1.0;
	bool randomize = false;
	std::vector<uint8_t> got;
	uint64_t out_beat = 0;
	bool out_started = false;
	uint64_t out_gaps_pending = 0;

	void tick()
	{
		top->clk = 1;
		top->eval();
		top->clk = 0;
		top->eval();
		cycles++;
	}

	void new_rates()
	{
		static const double rates[] = {1.0, 1.0, 0.95, 0.8, 0.5, 0.2};
		std::uniform_int_distribution<int> pick(0, 5);
		pv = rates[pick(rng)];
		pr = rates[pick(rng)];
	}

	void load_beat()
	{
		const Frame &f = src.front();
		size_t n = std::min(KEEP, f.bytes.size() - src_off);
		uint8_t beat[KEEP];
		/* The lanes tkeep leaves out carry garbage: the RTL must ignore them. */
		for (size_t i = 0; i < KEEP; i++)
			beat[i] = i < n ? f.bytes[src_off + i] : (uint8_t)rng();
		put_bytes(top->s_axis_tdata, beat, KEEP);
		top->s_axis_tkeep = keep_mask(n);
		bool last = src_off + n >= f.bytes.size();
		top->s_axis_tlast = last;
		top->s_axis_tuser = last && f.user;
		src_valid = true;
	}

	void fail(const char *msg)
	{
		const Frame *f = expect.empty() ? nullptr : &expect.front();
		std::printf("%s: FAIL: %s (frame %llu, %s, %zu bytes expected, beat %llu, cycle %llu)\n",
			    name, msg, (unsigned long long)received, f ? f->what.c_str() : "-",
			    f ? f->bytes.size() : (size_t)0, (unsigned long long)out_beat,
			    (unsigned long long)cycles);
		errors++;
	}

	void monitor()
	{
		if (!out_started) {
			out_started = true;
			out_gaps_pending = 0;
		}
		out_gaps += out_gaps_pending;
		out_gaps_pending = 0;
		if (out_beat == 0)
			out_start.push_back(cycles);
		if (expect.empty()) {
			fail("a beat nobody expected");
			return;
		}

		uint64_t keep = (uint64_t)top->m_axis_tkeep;
		bool last = top->m_axis_tlast;
		size_t n = 0;
		while (n < KEEP && (keep >> n & 1))
			n++;
		if (keep != keep_mask(n) || n == 0)
			fail("tkeep not contiguous from lane 0");
		else if (!last && n != KEEP)
			fail("tkeep not all ones on a beat without tlast");
		if (!last && top->m_axis_tuser)
			fail("tuser set before the last beat");
		for (size_t i = 0; i < n; i++)
			got.push_back(get_byte(top->m_axis_tdata, i));
		out_beat++;

		const Frame &f = expect.front();
		if (got.size() > f.bytes.size() && !last) {
			fail("frame longer than expected, no tlast");
		} else if (last) {
			if (got.size() != f.bytes.size()) {
				char m[96];
				std::snprintf(m, sizeof m, "length %zu, expected %zu", got.size(), f.bytes.size());
				fail(m);
			} else {
				for (size_t i = 0; i < got.size(); i++) {
					if (got[i] != f.bytes[i]) {
						char m[96];
						std::snprintf(m, sizeof m, "byte %zu is %02x, expected %02x",
							      i, got[i], f.bytes[i]);
						fail(m);
						break;
					}
				}
			}
			if ((bool)top->m_axis_tuser != f.user)
				fail(f.user ? "tuser clear on the last beat, expected set"
					    : "tuser set on the last beat, expected clear");
			if (out_beat != beats(f.bytes.size()))
				fail("wrong number of beats");
			expect.pop_front();
			got.clear();
			out_beat = 0;
			received++;
		}
	}
};

/*
 * Back-to-back frames at full rate: frame i must take exactly want[i]
 * cycles, measured between the first beats of consecutive frames, at the
 * input and at the output. Returns the number of mismatches (printing the
 * first few).
 */
inline int check_rate(const char *name, const char *side, const std::vector<uint64_t> &start,
		      const std::vector<uint64_t> &want)
{
	int bad = 0;
	if (start.size() != want.size()) {
		std::printf("%s: FAIL: %s saw %zu frames, expected %zu\n", name, side,
			    start.size(), want.size());
		return 1;
	}
	for (size_t i = 0; i + 1 < start.size(); i++) {
		uint64_t took = start[i + 1] - start[i];
		if (took != want[i]) {
			if (bad < 5)
				std::printf("%s: FAIL: %s frame %zu took %llu cycles, expected %llu\n",
					    name, side, i, (unsigned long long)took,
					    (unsigned long long)want[i]);
			bad++;
		}
	}
	return bad;
}

inline uint64_t seed_from(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a.rfind("+seed=", 0) == 0)
			return std::stoull(a.substr(6));
	}
	return 1;
}

} // namespace tb

#endif
