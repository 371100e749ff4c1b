/* SPDX-License-Identifier: MIT */
/*
 * Bench for sync_fifo (DATA_WIDTH as built, DEPTH 16, so 17 words with the
 * output register): random words of DATA_WIDTH bits against a queue model.
 *   phase 1: 200 000 words with random s_valid / m_ready (rates re-drawn
 *            every few hundred cycles, from always to rarely): every word
 *            comes out once, in order, unchanged; every cycle the handshake
 *            signals must agree with the model's occupancy n: s_ready low
 *            only with n >= DEPTH, high only with n <= DEPTH; m_valid high
 *            iff n >= 1, except in the cycle after a word went into an empty
 *            FIFO (it is in the memory, not yet in the output register);
 *   phase 2: the edges: fill with m_ready low (exactly DEPTH + 1 words taken,
 *            then s_ready stays low), drain (one word per cycle, then m_valid
 *            low), one word at a time through the empty FIFO (out in the
 *            second cycle after it went in), full rate from empty and from full (one word
 *            per cycle both ways once the pipeline is primed), and a reset
 *            with words inside (they are gone: nothing comes out).
 * Run with +seed=N for another random sequence.
 */
#include <memory>

#include "Vsync_fifo.h"
#include "axis_tb.h"

using tb::KEEP;

static const char *NAME = "sync_fifo";
enum { DEPTH = 16, CAP = DEPTH + 1, WORDS = 200000 };

typedef std::vector<uint8_t> Word;

struct Bench {
	Vsync_fifo *top;
	std::mt19937_64 &rng;
	char name[64];
	std::deque<Word> model;		/* the words inside, oldest first */
	uint64_t cycle = 0;
	uint64_t in = 0, out = 0;	/* words taken / given */
	uint64_t head_in_cycle = 0;	/* the cycle the oldest word went in */
	int errors = 0;

	Bench(Vsync_fifo *t, std::mt19937_64 &r) : top(t), rng(r)
	{
		std::snprintf(name, sizeof name, "%s w%d", NAME, DATA_WIDTH);
		top->clk = 0;
		top->s_valid = 0;
		top->m_ready = 0;
		reset();
	}

	void fail(const char *msg)
	{
		if (errors < 10)
			std::printf("%s: FAIL: %s (cycle %llu, %llu words in, %llu out, %zu inside)\n", name, msg,
				    (unsigned long long)cycle, (unsigned long long)in, (unsigned long long)out,
				    model.size());
		errors++;
	}

	void tick()
	{
		top->clk = 1;
		top->eval();
		top->clk = 0;
		top->eval();
		cycle++;
	}

	void reset()
	{
		top->rst = 1;
		top->s_valid = 0;
		top->m_ready = 0;
		for (int i = 0; i < 3; i++)
			tick();
		top->rst = 0;
		top->eval();
		model.clear();
	}

	/* Take everything out (a bounded number of cycles). */
	void drain(const Word &w)
	{
		for (int i = 0; i < 100 && !model.empty(); i++)
			step(false, w, true);
		if (!model.empty())
			fail("drain: words left inside");
	}

	Word random_word()
	{
		Word w(KEEP);
		for (auto &b : w)
			b = (uint8_t)rng();
		return w;
	}

	/*
	 * One clock: offer w (when valid), set m_ready, check the outputs against
	 * the model, then the rising edge. Returns the handshakes as bits: 1 a
	 * word went in, 2 one came out.
	 */
	int step(bool valid, const Word &w, bool ready)
	{
		top->s_valid = valid;
		if (valid)
			tb::put_bytes(top->s_data, w.data(), KEEP);
		else {
			Word junk = random_word();	/* ignored while s_valid is low */
			tb::put_bytes(top->s_data, junk.data(), KEEP);
		}
		top->m_ready = ready;
		top->eval();

		size_t n = model.size();
		bool s_ready = top->s_ready, m_valid = top->m_valid;
		if (!s_ready && n < DEPTH)
			fail("s_ready low with room in the memory");
		if (s_ready && n > DEPTH)
			fail("s_ready high with DEPTH + 1 words inside");
		if (m_valid && n == 0)
			fail("m_valid high with the FIFO empty");
		if (!m_valid && n > 0 && !(n == 1 && head_in_cycle + 1 == cycle))
			fail("m_valid low with a word inside for more than a cycle");

		int fired = 0;
		if (m_valid && ready) {
			if (!model.empty()) {
				const Word &e = model.front();
				for (size_t i = 0; i < KEEP; i++) {
					if (tb::get_byte(top->m_data, i) != e[i]) {
						char m[96];
						std::snprintf(m, sizeof m, "word %llu byte %zu is %02x, expected %02x",
							      (unsigned long long)out, i,
							      tb::get_byte(top->m_data, i), e[i]);
						fail(m);
						break;
					}
				}
				model.pop_front();
				/* the next one has been inside since it went in; only its cycle matters when it is alone */
				head_in_cycle = 0;
			}
			out++;
			fired |= 2;
		}
		if (valid && s_ready) {
			if (model.empty())
				head_in_cycle = cycle;
			model.push_back(w);
			in++;
			fired |= 1;
		}
		tick();
		return fired;
	}
};

static void edges(Bench &b, const Word &w)
{
	/* Phase 2a: fill with m_ready low: exactly DEPTH + 1 words. */
	for (int i = 0; i < 3 * CAP; i++)
		b.step(true, b.random_word(), false);
	if (b.model.size() != CAP)
		b.fail("fill: the FIFO did not take exactly DEPTH + 1 words");
	/* Phase 2b: drain: one word per cycle, then empty. */
	for (int i = 0; i < CAP; i++)
		if (!(b.step(false, w, true) & 2))
			b.fail("drain: no word out in a cycle");
	for (int i = 0; i < 3; i++)
		if (b.step(false, w, true) & 2)
			b.fail("drain: a word out of an empty FIFO");
	/* Phase 2c: one word at a time through the empty FIFO: out in the second cycle after it went in. */
	for (int i = 0; i < 50; i++) {
		if (b.step(true, b.random_word(), i & 1) != 1)
			b.fail("single: the empty FIFO did not take a word, or gave one");
		if (b.step(false, w, true) != 0)
			b.fail("single: the word was out the cycle after it went in, before the output register");
		if (b.step(false, w, true) != 2)
			b.fail("single: the word was not out the second cycle after it went in");
	}
	/* Phase 2d: full rate from empty: after two cycles of latency, one word per cycle both ways. */
	uint64_t o0 = b.out, i0 = b.in;
	for (int i = 0; i < 1000; i++)
		b.step(true, b.random_word(), true);
	if (b.in - i0 != 1000 || b.out - o0 != 998)
		b.fail("full rate from empty: not one word per cycle");
	/* ... and from full. */
	for (int i = 0; i < 100 && b.model.size() < CAP; i++)
		b.step(true, b.random_word(), false);
	if (b.model.size() != CAP)
		b.fail("refill: the FIFO did not fill up");
	o0 = b.out;
	i0 = b.in;
	for (int i = 0; i < 1000; i++)
		b.step(true, b.random_word(), true);
	if (b.out - o0 != 1000 || b.in - i0 < 998)
		b.fail("full rate from full: not one word per cycle");
	b.drain(w);
	/* Phase 2e: reset with words inside: they are gone. */
	for (int i = 0; i < 10; i++)
		b.step(true, b.random_word(), false);
	b.reset();
	for (int i = 0; i < 20; i++)
		if (b.step(false, w, true) & 2)
			b.fail("reset: a word came out after the reset");
	for (int i = 0; i < 5; i++)
		b.step(true, b.random_word(), true);
	b.drain(w);
}

int main(int argc, char **argv)
{
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vsync_fifo>(ctx.get());
	uint64_t seed = tb::seed_from(argc, argv);
	std::mt19937_64 rng(seed);
	Bench b(top.get(), rng);
	std::uniform_real_distribution<double> u(0.0, 1.0);

	/* Phase 1: random valid / ready. */
	static const double rates[] = {1.0, 1.0, 0.95, 0.8, 0.5, 0.2, 0.05};
	std::uniform_int_distribution<int> pick(0, 6), span(50, 600);
	double pv = 1.0, pr = 1.0;
	int left = 0;
	Word w = b.random_word();
	bool offering = false;
	uint64_t full_cycles = 0, empty_cycles = 0, idle = 0;
	while (b.out < WORDS && b.errors < 10) {
		if (left-- <= 0) {
			pv = rates[pick(rng)];
			pr = rates[pick(rng)];
			left = span(rng);
		}
		/* a word offered stays offered until taken (AXI rule) */
		if (!offering && b.in < WORDS && u(rng) < pv)
			offering = true;
		full_cycles += b.model.size() == CAP;
		empty_cycles += b.model.empty();
		int f = b.step(offering, w, u(rng) < pr);
		if (f & 1) {
			offering = false;
			w = b.random_word();
		}
		idle = f ? 0 : idle + 1;
		if (idle > 10000) {
			b.fail("stuck: nothing moved for 10000 cycles");
			break;
		}
	}
	if (b.in != WORDS || b.out != WORDS || !b.model.empty())
		b.fail("word count");
	if (!full_cycles || !empty_cycles)
		b.fail("phase 1 never reached full or never empty: the rates do not cover the edges");

	if (!b.errors)
		edges(b, w);

	top->final();
	if (b.errors) {
		std::printf("%s: FAILED (%d failures, seed %llu)\n", b.name, b.errors, (unsigned long long)seed);
		return 1;
	}
	std::printf("%s: %d words OK with random valid/ready (%llu cycles full, %llu empty), then fill to "
		    "%d, drain, single words, full rate, reset; seed %llu\n",
		    b.name, WORDS, (unsigned long long)full_cycles, (unsigned long long)empty_cycles, CAP,
		    (unsigned long long)seed);
	return 0;
}
