/* SPDX-License-Identifier: MIT */
/*
 * Bench for roce_icrc_insert against rt_icrc_compute_layout: for every
 * payload length 1..9000 (after the 12-byte BTH) one frame of random bytes
 * (Ethernet 14 / IPv4 20 / UDP 8 / BTH 12 / payload), which must come out
 * with its 4 ICRC bytes appended LSB first.
 *   phase 1: random tvalid gaps and tready backpressure (rates re-drawn
 *            per frame), s_axis_tuser set on some frames;
 *   phase 2: the same lengths back to back with the source and sink never
 *            stalling: each frame must take ceil(len/KEEP) cycles, +1 when
 *            the ICRC spills into an extra beat, with no gaps at the output
 *            (at the input that one cycle holds the next frame's second beat).
 * Run with +seed=N for another random sequence.
 */
#include <memory>

#include "Vroce_icrc_insert.h"
#include "axis_tb.h"

extern "C" {
#include "rocetest/icrc.h"
}

using tb::Frame;
using tb::KEEP;

static const char *NAME = "roce_icrc_insert";
enum { HDR_BYTES = 14 + 20 + 8 + 12, MAX_PAYLOAD = 9000 };

static uint32_t reference_icrc(const std::vector<uint8_t> &f)
{
	struct rt_icrc_layout l = {};
	l.l3_off = 14;
	l.l3_hdr_len = 20;
	l.ip_version = 4;
	l.roce_version = 2;
	l.bth_off = 14 + 20 + 8;
	l.icrc_off = (uint32_t)f.size();
	return rt_icrc_compute_layout(f.data(), &l);
}

/* A random frame with `payload` bytes after the BTH, and the same with its ICRC. */
static void make(std::mt19937_64 &rng, size_t payload, bool user, Frame &in, Frame &out)
{
	in.bytes.resize(HDR_BYTES + payload);
	for (auto &b : in.bytes)
		b = (uint8_t)rng();
	in.user = user;
	in.what = "payload " + std::to_string(payload);
	out = in;
	uint32_t icrc = reference_icrc(in.bytes);
	out.bytes.resize(in.bytes.size() + 4);
	rt_icrc_store(out.bytes.data(), (uint32_t)in.bytes.size(), icrc);
}

int main(int argc, char **argv)
{
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vroce_icrc_insert>(ctx.get());
	uint64_t seed = tb::seed_from(argc, argv);
	std::mt19937_64 rng(seed);
	char name[64];
	std::snprintf(name, sizeof name, "%s w%d", NAME, DATA_WIDTH);

	tb::Harness<Vroce_icrc_insert> h(top.get(), rng, name);
	int fails = 0;
	uint64_t frames = 0;

	/* Phase 1: every length, random stalls on both sides. */
	for (size_t p = 1; p <= MAX_PAYLOAD; p++) {
		Frame in, out;
		make(rng, p, rng() % 16 == 0, in, out);
		h.push(in, out);
		if (p % 256 == 0 || p == MAX_PAYLOAD) {	/* keep the queues short */
			if (!h.run(1.0, 1.0, true))
				break;
		}
	}
	frames += h.received;
	fails += h.errors;

	/* Phase 2: every length again, at full rate. */
	uint64_t spills = 0, held = 0, rate_fails = 0;
	bool prev_spill = false;
	std::vector<uint64_t> want_in, want_out;
	if (!fails) {
		h.run(1.0, 1.0, false);	/* drained already; sets the rates */
		h.reset_stats();
		uint64_t before = h.received;
		for (size_t p = 1; p <= MAX_PAYLOAD; p++) {
			Frame in, out;
			make(rng, p, false, in, out);
			bool spill = tb::beats(out.bytes.size()) > tb::beats(in.bytes.size());
			/*
			 * The output must carry the frame and its extra beat back
			 * to back. The input is held for one cycle while the extra
			 * beat goes out, which is while the next frame's first beat
			 * waits in the pipeline: the cycle lands on the next frame
			 * at the input (and on none after the last frame).
			 */
			want_in.push_back(tb::beats(in.bytes.size()) + prev_spill);
			want_out.push_back(tb::beats(out.bytes.size()));
			spills += spill;
			held += prev_spill;
			prev_spill = spill;
			h.push(in, out);
		}
		h.run(1.0, 1.0, false);
		fails += h.errors;
		frames += h.received - before;
		rate_fails += tb::check_rate(name, "input", h.in_start, want_in);
		rate_fails += tb::check_rate(name, "output", h.out_start, want_out);
		if (h.in_stalls != held) {
			std::printf("%s: FAIL: input held %llu cycles at full rate, expected %llu (one per spill)\n",
				    name, (unsigned long long)h.in_stalls, (unsigned long long)held);
			rate_fails++;
		}
		if (h.out_gaps) {
			std::printf("%s: FAIL: %llu cycles without output at full rate\n", name,
				    (unsigned long long)h.out_gaps);
			rate_fails++;
		}
	}
	fails += (int)rate_fails;

	top->final();
	if (fails) {
		std::printf("%s: FAILED (%d failures, %llu frames received, seed %llu)\n", name, fails,
			    (unsigned long long)frames, (unsigned long long)seed);
		return 1;
	}
	std::printf("%s: %d frames OK, %llu bubbles (payload 1..%d with random stalls, then again at full "
		    "rate: %llu frames with an extra ICRC beat, %llu cycles; seed %llu)\n",
		    name, MAX_PAYLOAD, (unsigned long long)h.out_gaps, MAX_PAYLOAD,
		    (unsigned long long)spills, (unsigned long long)h.cycles, (unsigned long long)seed);
	return 0;
}
