/* SPDX-License-Identifier: MIT */
/*
 * Bench for roce_icrc_check against rt_icrc_compute_layout. For every
 * payload length 1..9000 (after the 12-byte BTH), frames of random bytes
 * (Ethernet 14 / IPv4 20 / UDP 8 / BTH 12 / payload / ICRC 4):
 *   - good: the reference ICRC; must pass (tuser 0);
 *   - one random bit flipped in a covered, unmasked byte (offset 14 up to
 *     the ICRC, not TOS/TTL/IP checksum/UDP checksum/BTH byte 4): must fail;
 *   - one random bit flipped in a masked byte (15, 22, 24, 25, 40, 41, 46):
 *     must pass, that is what the masks are for;
 *   - odd lengths: a bit flipped in the Ethernet header (not covered): must
 *     pass; even lengths: a bit flipped in the ICRC itself: must fail.
 * Plus frames too short for the headers and the ICRC (1..57 bytes): fail;
 * the shortest good frame (58 bytes, no payload): pass; and s_axis_tuser set
 * on a good frame: passed through.
 *   phase 1: all of these with random tvalid gaps and tready backpressure;
 *   phase 2: good and bad frames of every length back to back with no
 *            stalls: each frame must take exactly ceil(len/KEEP) cycles.
 * The output bytes, tkeep and tlast must equal the input's.
 * Run with +seed=N for another random sequence.
 */
#include <memory>

#include "Vroce_icrc_check.h"
#include "axis_tb.h"

extern "C" {
#include "rocetest/icrc.h"
}

using tb::Frame;
using tb::KEEP;

static const char *NAME = "roce_icrc_check";
enum { HDR_BYTES = 14 + 20 + 8 + 12, MAX_PAYLOAD = 9000 };
static const size_t MASKED[] = {15, 22, 24, 25, 40, 41, 46};

static bool is_masked(size_t off)
{
	for (size_t m : MASKED)
		if (m == off)
			return true;
	return false;
}

/* A random frame with `payload` bytes after the BTH and its reference ICRC. */
static std::vector<uint8_t> make(std::mt19937_64 &rng, size_t payload)
{
	std::vector<uint8_t> f(HDR_BYTES + payload + 4);
	for (auto &b : f)
		b = (uint8_t)rng();
	struct rt_icrc_layout l = {};
	l.l3_off = 14;
	l.l3_hdr_len = 20;
	l.ip_version = 4;
	l.roce_version = 2;
	l.bth_off = 14 + 20 + 8;
	l.icrc_off = (uint32_t)(f.size() - 4);
	rt_icrc_store(f.data(), l.icrc_off, rt_icrc_compute_layout(f.data(), &l));
	return f;
}

static void flip(std::mt19937_64 &rng, std::vector<uint8_t> &f, size_t off)
{
	f[off] ^= (uint8_t)(1u << (rng() % 8));
}

/* Queue a frame; out is the same bytes with tuser = bad. */
static void push(tb::Harness<Vroce_icrc_check> &h, std::vector<uint8_t> bytes, bool user_in,
		 bool bad, const std::string &what)
{
	Frame in, out;
	in.bytes = std::move(bytes);
	in.user = user_in;
	in.what = what;
	out = in;
	out.user = bad || user_in;
	h.push(in, out);
}

int main(int argc, char **argv)
{
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vroce_icrc_check>(ctx.get());
	uint64_t seed = tb::seed_from(argc, argv);
	std::mt19937_64 rng(seed);
	char name[64];
	std::snprintf(name, sizeof name, "%s w%d", NAME, DATA_WIDTH);

	tb::Harness<Vroce_icrc_check> h(top.get(), rng, name);
	int fails = 0;
	uint64_t frames = 0, bad_frames = 0;

	/* Phase 1: random stalls on both sides. */
	for (size_t n = 1; n < HDR_BYTES + 4; n++) {	/* too short */
		std::vector<uint8_t> f(n);
		for (auto &b : f)
			b = (uint8_t)rng();
		push(h, f, false, true, "short " + std::to_string(n));
		bad_frames++;
	}
	{
		std::vector<uint8_t> f = make(rng, 0);
		push(h, f, false, false, "payload 0 good");
		flip(rng, f, 14 + 2);	/* IPv4 total length */
		push(h, f, false, true, "payload 0 flipped");
		bad_frames++;
	}
	for (size_t p = 1; p <= MAX_PAYLOAD; p++) {
		std::string what = "payload " + std::to_string(p);
		std::vector<uint8_t> good = make(rng, p);
		size_t icrc_off = good.size() - 4;

		push(h, good, false, false, what + " good");

		std::vector<uint8_t> f = good;
		size_t off;
		do
			off = 14 + rng() % (icrc_off - 14);
		while (is_masked(off));
		flip(rng, f, off);
		push(h, f, false, true, what + " flip at " + std::to_string(off));
		bad_frames++;

		f = good;
		off = MASKED[rng() % 7];
		flip(rng, f, off);
		push(h, f, false, false, what + " masked flip at " + std::to_string(off));

		f = good;
		if (p % 2) {
			off = rng() % 14;
			flip(rng, f, off);
			push(h, f, false, false, what + " Ethernet flip at " + std::to_string(off));
		} else {
			off = icrc_off + rng() % 4;
			flip(rng, f, off);
			push(h, f, false, true, what + " ICRC flip at " + std::to_string(off));
			bad_frames++;
		}

		if (p % 97 == 0)
			push(h, good, true, false, what + " tuser in");

		if (p % 64 == 0 || p == MAX_PAYLOAD) {	/* keep the queues short */
			if (!h.run(1.0, 1.0, true))
				break;
		}
	}
	frames += h.received;
	fails += h.errors;

	/* Phase 2: every length again, good and bad alternating, at full rate. */
	uint64_t rate_fails = 0;
	if (!fails) {
		h.run(1.0, 1.0, false);
		h.reset_stats();
		uint64_t before = h.received;
		std::vector<uint64_t> want;
		for (size_t p = 1; p <= MAX_PAYLOAD; p++) {
			std::vector<uint8_t> f = make(rng, p);
			bool bad = p % 2 == 0;
			if (bad) {
				size_t off;
				do
					off = 14 + rng() % (f.size() - 14);
				while (is_masked(off));
				flip(rng, f, off);
				bad_frames++;
			}
			want.push_back(tb::beats(f.size()));
			push(h, f, false, bad, "full rate payload " + std::to_string(p));
		}
		h.run(1.0, 1.0, false);
		fails += h.errors;
		frames += h.received - before;
		rate_fails += tb::check_rate(name, "input", h.in_start, want);
		rate_fails += tb::check_rate(name, "output", h.out_start, want);
		if (h.in_stalls) {
			std::printf("%s: FAIL: input held %llu cycles at full rate\n", name,
				    (unsigned long long)h.in_stalls);
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
	std::printf("%s: %d frames OK, %llu bubbles (payload 1..%d: %llu frames with random stalls and "
		    "at full rate, %llu of them bad; seed %llu)\n",
		    name, MAX_PAYLOAD, (unsigned long long)(h.out_gaps + h.in_stalls), MAX_PAYLOAD,
		    (unsigned long long)frames, (unsigned long long)bad_frames, (unsigned long long)seed);
	return 0;
}
