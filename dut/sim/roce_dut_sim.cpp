// SPDX-License-Identifier: MIT
//
// The Verilator model of dut/rtl/roce_endpoint.v behind the C API of
// roce_dut_sim.h: one Vroce_endpoint (in its own VerilatedContext) per
// instance and, around it, what the bench tb_roce_endpoint.cpp drives by
// hand: an RX frame source, the WR queue, the completion sink, the
// application memory and a MAC that paces TX at the wire rate.
//
// Built per DATA_WIDTH (-DDATA_WIDTH=W, the width the RTL was Verilated at),
// with the RTL's N_QP, CLK_FREQ_HZ and QPN_BASE (-DDUT_SIM_N_QP, ...).

#include <verilated.h>

#include "Vroce_endpoint.h"
#include "axis_tb.h"
#include "wr_tb.h"

// Only the C API and the plugin entry leave the .so (everything else is
// built -fvisibility=hidden).
#pragma GCC visibility push(default)
#include "roce_dut_sim.h"
#pragma GCC visibility pop

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <random>
#include <vector>

#if !defined(DUT_SIM_N_QP) || !defined(DUT_SIM_CLK_HZ) || !defined(DUT_SIM_QPN_BASE)
#error "build with -DDUT_SIM_N_QP=N -DDUT_SIM_CLK_HZ=F -DDUT_SIM_QPN_BASE=Q (the values the RTL was Verilated with)"
#endif
// The SHA-256 of the RTL sources the model was Verilated from (dut/sim.mk).
#ifndef DUT_SIM_RTL_SHA256
#error "build with -DDUT_SIM_RTL_SHA256=\"hex\" (the hash of the RTL the model was Verilated from)"
#endif
static_assert(DUT_SIM_N_QP >= 2 && DUT_SIM_N_QP <= RT_DUT_MAX_QP, "N_QP: 2 .. RT_DUT_MAX_QP");
// cfg_timeout is 5 * N_QP bits: an IData or QData up to 12 QPs, which is what set_field handles.
static_assert(5 * DUT_SIM_N_QP <= 64, "cfg_timeout wider than 64 bits: set_field needs VlWide support");

using tb::KEEP;

namespace {

const unsigned N_QP = DUT_SIM_N_QP;
const double CLK_HZ = DUT_SIM_CLK_HZ;
const uint32_t QPN_BASE = DUT_SIM_QPN_BASE;
const uint32_t MAX_FRAME = 65535;	// RX frames we accept, TX frames we reassemble
const unsigned RESET_CYCLES = 4;
// Bytes a frame costs on the wire besides its own: preamble + SFD 8, FCS 4, IFG 12.
const unsigned WIRE_OVERHEAD = 24;
const unsigned MIN_FRAME = 60;		// without FCS: shorter frames are padded
// The ports must have been idle this long for quiet(): the RTL's pipelines
// (RX parse -> CM -> reply, WR accepted -> first memory read) hold work
// without showing it on any port, at most 7 cycles measured (at 64 and 512
// bits, in the smoke test's traffic); 256 leaves a wide margin.
const uint64_t QUIET_CYCLES = 256;

void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

// Sets bits [lo, lo + w) of an IData / QData port.
template <class T> void set_field(T &v, unsigned lo, unsigned w, uint64_t x)
{
	uint64_t m = (w >= 64 ? ~0ull : (1ull << w) - 1) << lo;
	v = (T)(((uint64_t)v & ~m) | ((x << lo) & m));
}

struct Frame {
	std::vector<uint8_t> bytes;
	uint64_t start_ps = 0;
};

// A FIFO of frames that keeps the buffers of popped frames for the next
// ones: no allocation per frame once it has grown to its working size.
class FrameQueue {
public:
	bool empty() const { return count_ == 0; }
	size_t size() const { return count_; }
	Frame &front() { return slots_[head_]; }
	// A new frame at the back, empty.
	Frame &push()
	{
		if (count_ == slots_.size())
			grow();
		Frame &f = slots_[(head_ + count_) % slots_.size()];
		count_++;
		f.bytes.clear();
		f.start_ps = 0;
		return f;
	}
	void pop()
	{
		head_ = (head_ + 1) % slots_.size();
		count_--;
	}
	void clear() { head_ = count_ = 0; }

private:
	std::vector<Frame> slots_;
	size_t head_ = 0, count_ = 0;

	void grow()
	{
		std::rotate(slots_.begin(), slots_.begin() + (ptrdiff_t)head_, slots_.end());
		head_ = 0;
		slots_.resize(std::max<size_t>(8, 2 * slots_.size()));
	}
};

// One accepted memory read request.
struct MemRead {
	uint64_t addr;
	uint32_t len;		// bytes to answer (1 for a request of length 0)
	uint64_t due;		// the first cycle its first beat may go out
	bool bad;		// outside the memory: answered with zeros
};

} // namespace

struct roce_dut_sim {
	roce_dut_sim_params p;
	VerilatedContext *vctx = nullptr;
	Vroce_endpoint *top = nullptr;
	std::vector<uint8_t> mem;
	char name[sizeof(((rt_dut_info *)nullptr)->name)];
	// The surroundings reset applies: the config's, else the params'.
	uint32_t mem_latency = 0;
	double p_stall = 0;
	uint64_t garbage = 0;		// splitmix64 state of the bytes in unused memory lanes

	uint64_t cycle = 0;
	uint64_t idle = 0;		// cycles the ports have been idle (quiet)
	std::mt19937_64 rng;

	// RX source
	FrameQueue rxq;
	size_t rx_off = 0;
	bool rx_beat = false;
	// WR port and completions
	std::deque<rt_dut_wr> wrq;
	std::deque<rt_dut_cpl> cplq;
	// application memory responses
	std::deque<MemRead> memq;
	uint32_t mem_off = 0;
	bool mem_beat = false;
	// TX MAC
	double ps_per_byte = 0;		// 0: unpaced
	double cursor_ps = 0;		// when the wire is free for the next byte
	bool tx_in_frame = false;
	uint64_t tx_start_ps = 0;
	std::vector<uint8_t> tx_cur;	// the frame being received from the DUT
	FrameQueue txq;
	uint32_t tx_gap = 0;		// underrun cycles of the frame being received
	uint32_t underrun_cycles = 0, underrun_frames = 0;

	bool port_err_set = false;
	char port_err[256];

	roce_dut_sim() = default;
	roce_dut_sim(const roce_dut_sim &) = delete;
	roce_dut_sim &operator=(const roce_dut_sim &) = delete;
	~roce_dut_sim()
	{
		if (top)
			top->final();
		delete top;
		delete vctx;
	}
};

// ---------------------------------------------------------------------------
// The clock loop

namespace {

double now_ps(const roce_dut_sim *s)
{
	return (double)s->cycle * 1e12 / s->p.clk_hz;
}

// True with probability p_stall (a stall on one port this cycle).
bool stall(roce_dut_sim *s)
{
	if (s->p_stall <= 0)
		return false;
	return (double)(s->rng() >> 11) * 0x1p-53 < s->p_stall;
}

void port_error(roce_dut_sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void port_error(roce_dut_sim *s, const char *fmt, ...)
{
	if (s->port_err_set)
		return;
	s->port_err_set = true;
	int n = snprintf(s->port_err, sizeof s->port_err, "cycle %llu: ", (unsigned long long)s->cycle);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->port_err + n, sizeof s->port_err - (size_t)n, fmt, ap);
	va_end(ap);
}

// s_axis: the front frame, one beat per cycle; bytes past its end are zero.
void drive_rx(roce_dut_sim *s)
{
	Vroce_endpoint *t = s->top;
	if (!s->rx_beat && !s->rxq.empty()) {
		const std::vector<uint8_t> &f = s->rxq.front().bytes;
		size_t n = std::min(KEEP, f.size() - s->rx_off);
		uint8_t beat[KEEP] = {};
		memcpy(beat, &f[s->rx_off], n);
		tb::put_bytes(t->s_axis_tdata, beat, KEEP);
		t->s_axis_tkeep = tb::keep_mask(n);
		t->s_axis_tlast = s->rx_off + n >= f.size();
		t->s_axis_tuser = 0;
		s->rx_beat = true;
	}
	t->s_axis_tvalid = s->rx_beat;
}

// Bytes for what the DUT must not use: a memory beat's lanes past tkeep
// (a real memory bus leaves them undefined, not zero).
uint8_t garbage_byte(roce_dut_sim *s)
{
	uint64_t z = (s->garbage += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint8_t)(z ^ (z >> 31));
}

// s_mem_axis: the front request's next beat once it is due; a beat offered
// stays until taken (a stall only delays offering the next one).
void drive_mem(roce_dut_sim *s)
{
	Vroce_endpoint *t = s->top;
	if (!s->mem_beat && !s->memq.empty() && s->memq.front().due <= s->cycle && !stall(s)) {
		const MemRead &r = s->memq.front();
		uint32_t n = std::min((uint32_t)KEEP, r.len - s->mem_off);
		uint8_t beat[KEEP] = {};
		for (size_t i = n; i < KEEP; i++)
			beat[i] = garbage_byte(s);
		if (!r.bad)
			memcpy(beat, &s->mem[r.addr - s->p.mem_base + s->mem_off], n);
		tb::put_bytes(t->s_mem_axis_tdata, beat, KEEP);
		t->s_mem_axis_tkeep = tb::keep_mask(n);
		t->s_mem_axis_tlast = s->mem_off + n >= r.len;
		t->s_mem_axis_tuser = 0;
		s->mem_beat = true;
	}
	t->s_mem_axis_tvalid = s->mem_beat;
}

void drive_wr(roce_dut_sim *s)
{
	Vroce_endpoint *t = s->top;
	if (s->wrq.empty()) {
		t->s_wr_valid = 0;
		return;
	}
	drive_wr(t, s->wrq.front());
}

// The MAC takes a beat when the wire will be free within one beat time: a
// one-beat FIFO, so a backlogged DUT loses no wire time to the clock.
bool mac_ready(roce_dut_sim *s)
{
	if (s->ps_per_byte <= 0)
		return true;
	return s->cursor_ps <= now_ps(s) + (double)KEEP * s->ps_per_byte;
}

void take_rx(roce_dut_sim *s)
{
	s->rx_beat = false;
	s->rx_off += KEEP;
	if (s->rx_off >= s->rxq.front().bytes.size()) {
		s->rx_off = 0;
		s->rxq.pop();
	}
}

void take_mem(roce_dut_sim *s)
{
	s->mem_beat = false;
	s->mem_off += (uint32_t)KEEP;
	if (s->mem_off >= s->memq.front().len) {
		s->mem_off = 0;
		s->memq.pop_front();
	}
}

// A read request: in the memory and 1..8192 bytes, or a port error.
void take_read_request(roce_dut_sim *s)
{
	uint64_t a = s->top->m_mem_rd_addr;
	uint32_t len = s->top->m_mem_rd_len;
	uint64_t off = a - s->p.mem_base;
	bool bad = len == 0 || a < s->p.mem_base || off > s->p.mem_size || len > s->p.mem_size - off;
	if (bad)
		port_error(s, "memory read of %u bytes at 0x%016llx outside the memory (0x%016llx, %u bytes)", len,
			   (unsigned long long)a, (unsigned long long)s->p.mem_base, s->p.mem_size);
	s->memq.push_back({ a, len ? len : 1, s->cycle + s->mem_latency, bad });
}

void take_cpl(roce_dut_sim *s)
{
	rt_dut_cpl c;
	c.qp = s->top->m_cpl_qp;
	c.wr_id = s->top->m_cpl_wr_id;
	c.status = s->top->m_cpl_status;
	c.tick = s->cycle;
	s->cplq.push_back(c);
}

// The wire time of a frame's last beat: its bytes, the padding to the
// minimum frame, preamble, FCS and IFG.
void mac_frame_end(roce_dut_sim *s, size_t len)
{
	size_t pad = len < MIN_FRAME ? MIN_FRAME - len : 0;
	s->cursor_ps += (double)(WIRE_OVERHEAD + pad) * s->ps_per_byte;
}

// A frame fully received from the DUT: queued for pull_tx unless marked bad.
void tx_frame_done(roce_dut_sim *s, bool user)
{
	s->tx_in_frame = false;
	if (s->ps_per_byte > 0)
		mac_frame_end(s, s->tx_cur.size());
	if (s->tx_gap) {
		s->underrun_frames++;
		port_error(s, "TX underrun: tvalid low in %u cycles inside a frame of %zu bytes while the MAC was ready "
			   "(a MAC corrupts such a frame)", s->tx_gap, s->tx_cur.size());
	}
	if (user) {
		port_error(s, "TX frame of %zu bytes marked bad (tuser): dropped", s->tx_cur.size());
		return;
	}
	if (s->tx_cur.size() > MAX_FRAME) {
		port_error(s, "TX frame of %zu bytes, longer than %u: dropped", s->tx_cur.size(), MAX_FRAME);
		return;
	}
	Frame &f = s->txq.push();
	f.bytes.swap(s->tx_cur);	// both keep their capacity
	f.start_ps = s->tx_start_ps;
}

// One TX beat taken: tkeep contiguous from lane 0, full unless tlast.
void take_tx(roce_dut_sim *s)
{
	Vroce_endpoint *t = s->top;
	uint64_t keep = (uint64_t)t->m_axis_tkeep;
	bool last = t->m_axis_tlast;
	size_t n = 0;
	while (n < KEEP && (keep >> n & 1))
		n++;
	if (keep != tb::keep_mask(n) || n == 0)
		port_error(s, "TX beat with tkeep 0x%llx: not contiguous from lane 0", (unsigned long long)keep);
	else if (!last && n != KEEP)
		port_error(s, "TX beat of %zu bytes before tlast", n);
	if (!s->tx_in_frame) {
		s->tx_in_frame = true;
		s->tx_gap = 0;
		s->tx_cur.clear();
		double now = now_ps(s);
		if (s->ps_per_byte > 0)
			s->cursor_ps = std::max(s->cursor_ps, now);
		s->tx_start_ps = (uint64_t)llround(s->ps_per_byte > 0 ? s->cursor_ps : now);
	}
	if (s->tx_cur.size() <= MAX_FRAME)
		for (size_t i = 0; i < n; i++)
			s->tx_cur.push_back(tb::get_byte(t->m_axis_tdata, i));
	else
		s->tx_cur.resize(s->tx_cur.size() + n);	// to report its length; dropped at its end
	if (s->ps_per_byte > 0)
		s->cursor_ps += (double)n * s->ps_per_byte;
	if (last)
		tx_frame_done(s, t->m_axis_tuser);
}

// The MAC wanted the next beat of a frame and there was none: the testbench
// MAC waits, a real one sends the frame broken.
void tx_underrun(roce_dut_sim *s)
{
	s->tx_gap++;
	s->underrun_cycles++;
}

// Nothing going into the device or in progress on its ports.
bool ports_idle(const roce_dut_sim *s)
{
	const Vroce_endpoint *t = s->top;
	return s->rxq.empty() && s->wrq.empty() && s->memq.empty() && !s->tx_in_frame && !t->m_axis_tvalid &&
	       !t->m_mem_rd_valid && !t->m_cpl_valid && !t->txgen_busy;
}

// One clock cycle: drive the inputs, settle, sample every handshake, rising edge.
void cycle_once(roce_dut_sim *s)
{
	Vroce_endpoint *t = s->top;
	drive_rx(s);
	drive_mem(s);
	drive_wr(s);
	t->m_axis_tready = mac_ready(s) && !stall(s);
	t->m_mem_rd_ready = !stall(s);
	t->m_cpl_ready = !stall(s);
	t->clk = 0;
	t->eval();

	if (t->s_axis_tvalid && t->s_axis_tready)
		take_rx(s);
	if (t->s_mem_axis_tvalid && t->s_mem_axis_tready)
		take_mem(s);
	if (t->s_wr_valid && t->s_wr_ready)
		s->wrq.pop_front();
	if (t->m_mem_rd_valid && t->m_mem_rd_ready)
		take_read_request(s);
	if (t->m_cpl_valid && t->m_cpl_ready)
		take_cpl(s);
	if (t->m_axis_tvalid && t->m_axis_tready)
		take_tx(s);
	else if (s->tx_in_frame && t->m_axis_tready)
		tx_underrun(s);

	t->clk = 1;
	t->eval();
	s->cycle++;
	s->idle = ports_idle(s) ? s->idle + 1 : 0;
}

// ---------------------------------------------------------------------------
// Configuration

bool check_config(const rt_dut_config *c, char *err, size_t errlen)
{
	if (c->pmtu_code > 4) {
		set_err(err, errlen, "pmtu_code %u: 0..4 (256 << code)", c->pmtu_code);
		return false;
	}
	if (c->psn > 0xFFFFFF) {
		set_err(err, errlen, "psn 0x%x: a PSN has 24 bits", c->psn);
		return false;
	}
	if (!(c->p_stall >= 0 && c->p_stall < 1)) {
		set_err(err, errlen, "p_stall %g: 0 <= p_stall < 1", c->p_stall);
		return false;
	}
	for (unsigned i = 0; i < N_QP; i++) {
		if (c->timeout[i] > 31 || c->retry_cnt[i] > 7 || c->rnr_retry[i] > 7) {
			set_err(err, errlen, "QP %u: timeout %u (0..31), retry_cnt %u (0..7), rnr_retry %u (0..7)", i,
				c->timeout[i], c->retry_cnt[i], c->rnr_retry[i]);
			return false;
		}
	}
	return true;
}

void apply_config(Vroce_endpoint *t, const rt_dut_config *c)
{
	uint64_t mac = 0;
	for (int i = 0; i < 6; i++)
		mac = mac << 8 | c->mac[i];
	t->cfg_mac = mac;
	t->cfg_ip = c->ip;
	t->cfg_rkey = c->rkey;
	t->cfg_base_addr = c->base_addr;
	t->cfg_psn = c->psn;
	t->cfg_pmtu_code = c->pmtu_code;
	for (unsigned i = 0; i < N_QP; i++) {
		set_field(t->cfg_timeout, 5 * i, 5, c->timeout[i]);
		set_field(t->cfg_retry_cnt, 3 * i, 3, c->retry_cnt[i]);
		set_field(t->cfg_rnr_retry, 3 * i, 3, c->rnr_retry[i]);
	}
}

// Empties every queue and the MAC; time restarts at 0.
void clear_state(roce_dut_sim *s)
{
	s->rxq.clear();
	s->rx_off = 0;
	s->rx_beat = false;
	s->wrq.clear();
	s->cplq.clear();
	s->memq.clear();
	s->mem_off = 0;
	s->mem_beat = false;
	s->cursor_ps = 0;
	s->tx_in_frame = false;
	s->tx_cur.clear();
	s->txq.clear();
	s->tx_gap = 0;
	s->underrun_cycles = s->underrun_frames = 0;
	s->garbage = s->p.seed ^ 0x6A09E667F3BCC908ull;
	s->port_err_set = false;
	s->port_err[0] = 0;
	s->rng.seed(s->p.seed);
	s->cycle = 0;
	s->idle = QUIET_CYCLES;		// nothing is in the device after a reset
}

void hold_reset(Vroce_endpoint *t)
{
	t->rst = 1;
	t->s_axis_tvalid = 0;
	t->s_mem_axis_tvalid = 0;
	t->s_wr_valid = 0;
	t->m_axis_tready = 0;
	t->m_mem_rd_ready = 0;
	t->m_cpl_ready = 0;
	for (unsigned i = 0; i < RESET_CYCLES; i++) {
		t->clk = 0;
		t->eval();
		t->clk = 1;
		t->eval();
	}
	t->rst = 0;
}

bool check_params(const roce_dut_sim_params *p, char *err, size_t errlen)
{
	if (p->data_width != DATA_WIDTH) {
		set_err(err, errlen,
			"data_width %u: this model was built with DATA_WIDTH %u (build/dut/w%u/libroce_dut_sim.so is "
			"built by make dut-sim DUT_SIM_WIDTHS=%u)",
			p->data_width, (unsigned)DATA_WIDTH, p->data_width, p->data_width);
		return false;
	}
	if (p->n_qp != N_QP) {
		set_err(err, errlen, "n_qp %u: this model was built with N_QP %u", p->n_qp, N_QP);
		return false;
	}
	if (p->clk_hz != 0 && std::fabs(p->clk_hz - CLK_HZ) >= 0.5) {
		set_err(err, errlen, "clk_hz %.0f: this model was built with CLK_FREQ_HZ %.0f (the RTL's timers count it)",
			p->clk_hz, CLK_HZ);
		return false;
	}
	if (p->mem_size == 0 || p->mem_base + p->mem_size < p->mem_base) {
		set_err(err, errlen, "mem_size %u at mem_base 0x%llx: empty or past 2^64", p->mem_size,
			(unsigned long long)p->mem_base);
		return false;
	}
	if (!(p->mac_gbps >= 0) || !std::isfinite(p->mac_gbps)) {
		set_err(err, errlen, "mac_gbps %g: >= 0", p->mac_gbps);
		return false;
	}
	if (!(p->p_stall >= 0 && p->p_stall < 1)) {
		set_err(err, errlen, "p_stall %g: 0 <= p_stall < 1", p->p_stall);
		return false;
	}
	return true;
}

// Memory holds what was there before, not zeros: a DUT that sends bytes
// past a message's length must not get away with it because they are 0.
void fill_garbage(roce_dut_sim *s)
{
	std::mt19937_64 g(s->p.seed ^ 0xBB67AE8584CAA73Bull);
	size_t n = s->mem.size() / 8 * 8;
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = g();
		memcpy(&s->mem[i], &v, 8);
	}
	for (size_t i = n; i < s->mem.size(); i++)
		s->mem[i] = (uint8_t)g();
}

// The instance; throws std::bad_alloc. The model is reset with an all-zero
// configuration (the device answers nobody) until the caller's reset.
roce_dut_sim *create(const roce_dut_sim_params *p)
{
	std::unique_ptr<roce_dut_sim> s(new roce_dut_sim);
	s->p = *p;
	s->p.clk_hz = CLK_HZ;
	s->ps_per_byte = p->mac_gbps > 0 ? 8000.0 / p->mac_gbps : 0;
	s->mem.resize(p->mem_size);
	fill_garbage(s.get());
	s->tx_cur.reserve(16384);
	s->vctx = new VerilatedContext;
	s->top = new Vroce_endpoint(s->vctx, "roce_endpoint");
	snprintf(s->name, sizeof s->name, "roce_endpoint (Verilator %d.%03d, %u bits, N_QP %u, %.3f MHz)",
		 VERILATOR_VERSION_INTEGER / 1000000, VERILATOR_VERSION_INTEGER / 1000 % 1000, (unsigned)DATA_WIDTH,
		 N_QP, CLK_HZ / 1e6);
	rt_dut_config zero;
	memset(&zero, 0, sizeof zero);
	roce_dut_sim_reset(s.get(), &zero, nullptr, 0);
	return s.release();
}

} // namespace

// ---------------------------------------------------------------------------
// The C API

int roce_dut_sim_abi(void)
{
	return ROCE_DUT_SIM_ABI;
}

void roce_dut_sim_params_init(struct roce_dut_sim_params *p)
{
	memset(p, 0, sizeof *p);
	p->data_width = DATA_WIDTH;
	p->n_qp = N_QP;
	p->clk_hz = CLK_HZ;
	p->mem_base = 0x0000000123400000ull;
	/* Room for a message over 16 MiB (a 24-bit length counter is a firmware bug to catch). */
	p->mem_size = 32u << 20;
	p->mac_gbps = 100;
	p->mem_latency = 20;
	p->p_stall = 0;
	p->seed = 1;
}

struct roce_dut_sim *roce_dut_sim_create(const struct roce_dut_sim_params *p, char *err, size_t errlen)
{
	if (!check_params(p, err, errlen))
		return nullptr;
	try {
		return create(p);
	} catch (const std::bad_alloc &) {
		set_err(err, errlen, "out of memory (mem_size %u)", p->mem_size);
		return nullptr;
	}
}

void roce_dut_sim_destroy(struct roce_dut_sim *s)
{
	delete s;
}

int roce_dut_sim_reset(struct roce_dut_sim *s, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	if (!check_config(cfg, err, errlen))
		return -1;
	apply_config(s->top, cfg);
	s->mem_latency = cfg->mem_latency ? cfg->mem_latency : s->p.mem_latency;
	s->p_stall = cfg->p_stall > 0 ? cfg->p_stall : s->p.p_stall;
	hold_reset(s->top);
	clear_state(s);
	return 0;
}

// The cfg_* inputs change from the next cycle on; the RTL reads them live.
int roce_dut_sim_configure(struct roce_dut_sim *s, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	if (!check_config(cfg, err, errlen))
		return -1;
	apply_config(s->top, cfg);
	return 0;
}

int roce_dut_sim_push_rx(struct roce_dut_sim *s, const uint8_t *frame, uint32_t len, char *err, size_t errlen)
{
	if (len == 0 || len > MAX_FRAME) {
		set_err(err, errlen, "RX frame of %u bytes: 1..%u", len, MAX_FRAME);
		return -1;
	}
	Frame &f = s->rxq.push();
	f.bytes.assign(frame, frame + len);
	return 0;
}

int roce_dut_sim_pull_tx(struct roce_dut_sim *s, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps)
{
	if (s->txq.empty())
		return 0;
	const Frame &f = s->txq.front();
	*len = (uint32_t)f.bytes.size();
	if (f.bytes.size() > cap)
		return -1;
	memcpy(buf, f.bytes.data(), f.bytes.size());
	if (start_ps)
		*start_ps = f.start_ps;
	s->txq.pop();
	return 1;
}

int roce_dut_sim_post_wr(struct roce_dut_sim *s, const struct rt_dut_wr *wr, char *err, size_t errlen)
{
	if (wr->qp >= N_QP) {
		set_err(err, errlen, "WR on QP %u: the device has %u QPs", wr->qp, N_QP);
		return -1;
	}
	if (wr->opcode > RT_DUT_WRITE_IMM) {
		set_err(err, errlen, "WR opcode %u: 0..3 (SEND, SEND_IMM, WRITE, WRITE_IMM)", wr->opcode);
		return -1;
	}
	s->wrq.push_back(*wr);
	return 0;
}

int roce_dut_sim_poll_cpl(struct roce_dut_sim *s, struct rt_dut_cpl *cpl)
{
	if (s->cplq.empty())
		return 0;
	*cpl = s->cplq.front();
	s->cplq.pop_front();
	return 1;
}

void roce_dut_sim_step(struct roce_dut_sim *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		cycle_once(s);
}

uint64_t roce_dut_sim_cycle(struct roce_dut_sim *s)
{
	return s->cycle;
}

uint8_t *roce_dut_sim_memory(struct roce_dut_sim *s)
{
	return s->mem.data();
}

void roce_dut_sim_counters(struct roce_dut_sim *s, struct rt_dut_counters *c)
{
	const Vroce_endpoint *t = s->top;
	c->tx_pkts = t->stat_tx_pkts;
	c->retransmissions = t->stat_retransmissions;
	c->timeouts = t->stat_timeouts;
	c->naks = t->stat_naks;
	c->rnr_naks = t->stat_rnr_naks;
	c->rx_frames = t->stat_rx_frames;
	c->rx_ack = t->stat_rx_ack;
	c->rx_cm = t->stat_rx_cm;
	c->rx_arp = t->stat_rx_arp;
	c->rx_cnp = t->stat_rx_cnp;
	c->rx_drop_bad_icrc = t->stat_rx_drop_bad_icrc;
	c->rx_drop_not_for_us = t->stat_rx_drop_not_for_us;
	c->rx_drop_malformed = t->stat_rx_drop_malformed;
	c->rx_drop_unsupported = t->stat_rx_drop_unsupported;
	c->cm_acks = t->stat_cm_acks;
	c->cm_naks = t->stat_cm_naks;
	c->cm_no_qp = t->stat_cm_no_qp;
	c->arp_replies_out = t->stat_arp_replies_out;
	c->tx_underrun_cycles = s->underrun_cycles;
	c->tx_underrun_frames = s->underrun_frames;
}

unsigned roce_dut_sim_qp_state(struct roce_dut_sim *s, unsigned qp)
{
	if (qp >= N_QP)
		return RT_DUT_QPS_RESET;
	return (unsigned)(((uint64_t)s->top->qp_state >> (3 * qp)) & 7);
}

bool roce_dut_sim_quiet(struct roce_dut_sim *s)
{
	return s->idle >= QUIET_CYCLES;
}

const char *roce_dut_sim_port_error(struct roce_dut_sim *s)
{
	return s->port_err_set ? s->port_err : nullptr;
}

void roce_dut_sim_info(struct roce_dut_sim *s, struct rt_dut_info *info)
{
	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", s->name);
	snprintf(info->build_id, sizeof info->build_id, "rtl sha256:%s", DUT_SIM_RTL_SHA256);
	info->data_width = DATA_WIDTH;
	info->n_qp = N_QP;
	info->qpn_base = QPN_BASE;
	info->clk_hz = s->p.clk_hz;
	info->tick_hz = s->p.clk_hz;	/* a tick is a clock cycle */
	info->mem_base = s->p.mem_base;
	info->mem_size = s->p.mem_size;
	info->mac_gbps = s->p.mac_gbps;
}

// ---------------------------------------------------------------------------
// struct rt_dut_ops: thunks from void *ctx

namespace {

roce_dut_sim *sim(void *ctx)
{
	return static_cast<roce_dut_sim *>(ctx);
}

int op_reset(void *ctx, const rt_dut_config *cfg, char *err, size_t errlen)
{
	return roce_dut_sim_reset(sim(ctx), cfg, err, errlen);
}

int op_configure(void *ctx, const rt_dut_config *cfg, char *err, size_t errlen)
{
	return roce_dut_sim_configure(sim(ctx), cfg, err, errlen);
}

int op_push_rx(void *ctx, const uint8_t *frame, uint32_t len, char *err, size_t errlen)
{
	return roce_dut_sim_push_rx(sim(ctx), frame, len, err, errlen);
}

int op_pull_tx(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps)
{
	return roce_dut_sim_pull_tx(sim(ctx), buf, cap, len, start_ps);
}

int op_post_wr(void *ctx, const rt_dut_wr *wr, char *err, size_t errlen)
{
	return roce_dut_sim_post_wr(sim(ctx), wr, err, errlen);
}

int op_poll_cpl(void *ctx, rt_dut_cpl *cpl)
{
	return roce_dut_sim_poll_cpl(sim(ctx), cpl);
}

void op_advance(void *ctx, uint64_t n)
{
	roce_dut_sim_step(sim(ctx), n);
}

uint64_t op_now(void *ctx)
{
	return roce_dut_sim_cycle(sim(ctx));
}

uint8_t *op_memory(void *ctx)
{
	return roce_dut_sim_memory(sim(ctx));
}

void op_counters(void *ctx, rt_dut_counters *c)
{
	roce_dut_sim_counters(sim(ctx), c);
}

unsigned op_qp_state(void *ctx, unsigned qp)
{
	return roce_dut_sim_qp_state(sim(ctx), qp);
}

bool op_quiet(void *ctx)
{
	return roce_dut_sim_quiet(sim(ctx));
}

const char *op_port_error(void *ctx)
{
	return roce_dut_sim_port_error(sim(ctx));
}

void op_destroy(void *ctx)
{
	roce_dut_sim_destroy(sim(ctx));
}

} // namespace

void roce_dut_sim_ops(struct roce_dut_sim *s, struct rt_dut_ops *ops)
{
	memset(ops, 0, sizeof *ops);
	ops->ctx = s;
	roce_dut_sim_info(s, &ops->info);
	ops->reset = op_reset;
	ops->configure = op_configure;
	ops->push_rx = op_push_rx;
	ops->pull_tx = op_pull_tx;
	ops->post_wr = op_post_wr;
	ops->poll_cpl = op_poll_cpl;
	ops->advance = op_advance;
	ops->now = op_now;
	ops->memory = op_memory;
	ops->counters = op_counters;
	ops->qp_state = op_qp_state;
	ops->quiet = op_quiet;
	ops->port_error = op_port_error;
	ops->destroy = op_destroy;
}

namespace {

// The plugin entry (rocetest/dut.h): the width the front end asks for is
// checked against the built one by roce_dut_sim_create, the seed drives the
// random back-pressure; everything else is roce_dut_sim_params_init's.
int plugin_open(const struct rt_dut_open_params *p, struct rt_dut_ops *ops, char *err, size_t errlen)
{
	struct roce_dut_sim_params params;
	roce_dut_sim_params_init(&params);
	if (p->data_width)
		params.data_width = p->data_width;
	params.seed = p->seed;
	struct roce_dut_sim *s = roce_dut_sim_create(&params, err, errlen);
	if (!s)
		return -1;
	roce_dut_sim_ops(s, ops);
	return 0;
}

} // namespace

// The one symbol a front end looks up (rocetest/dut.h), exported like the C API.
extern "C" __attribute__((visibility("default"))) const struct rt_dut_plugin rt_dut_plugin_v1 = {
	RT_DUT_PLUGIN_ABI,
	"the Verilator model of roce_endpoint (dut/rtl/)",
	plugin_open,
};
