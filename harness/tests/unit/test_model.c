/* SPDX-License-Identifier: MIT */
/*
 * The reference model (model.h: one QP; sim.h: two QPs on a simulated link)
 * against wire-facts.md ("Reliable-connection behaviour", "PSN arithmetic",
 * "AETH syndrome", "Opcodes", "Lengths and padding").
 *
 * Every test builds the same two-node connection (a: QPN 0x11, first PSN
 * 0x100, memory at 0x10000000; b: QPN 0x12, first PSN 0x2000, memory at
 * 0x20000000), changes the knobs it is about, runs it, and records every
 * frame the tap sees, parsed. It then asserts the outcome (memory,
 * completions, QP state) and the wire behaviour (opcodes, PSNs, AETH
 * syndromes, timing). Opcode and syndrome values are written out here from
 * wire-facts.md, not taken from the library.
 *
 * The tap is at a's port unless a test says otherwise: a's frames as sent
 * (dropped ones too, at their send time), b's as they arrive at a.
 *
 * MODEL_TEST_DUMP=1 in the environment prints every run's frames.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/icrc.h"
#include "rocetest/model.h"
#include "rocetest/packet.h"
#include "rocetest/sim.h"
#include "suites.h"

/* wire-facts.md "Opcodes" (RC; UC is 0x20 + the same low bits). */
enum {
	OP_SEND_FIRST = 0x00,
	OP_SEND_MIDDLE = 0x01,
	OP_SEND_LAST = 0x02,
	OP_SEND_LAST_IMM = 0x03,
	OP_SEND_ONLY = 0x04,
	OP_SEND_ONLY_IMM = 0x05,
	OP_WRITE_FIRST = 0x06,
	OP_WRITE_MIDDLE = 0x07,
	OP_WRITE_LAST = 0x08,
	OP_WRITE_LAST_IMM = 0x09,
	OP_WRITE_ONLY = 0x0A,
	OP_WRITE_ONLY_IMM = 0x0B,
	OP_READ_REQ = 0x0C,
	OP_READ_FIRST = 0x0D,
	OP_READ_MIDDLE = 0x0E,
	OP_READ_LAST = 0x0F,
	OP_READ_ONLY = 0x10,
	OP_ACK = 0x11,
	OP_ATOMIC_ACK = 0x12,
	OP_CMP_SWAP = 0x13,
	OP_FETCH_ADD = 0x14,
	OP_SEND_LAST_INV = 0x16,
	OP_SEND_ONLY_INV = 0x17,
	OP_UC = 0x20,
	OP_UD_SEND_ONLY = 0x64,
	OP_UD_SEND_ONLY_IMM = 0x65,
	OP_CNP = 0x81,
};

/* wire-facts.md "AETH syndrome". */
enum {
	SYN_ACK_UNLIMITED = 0x1F,
	SYN_RNR = 0x20,		/* | timer code */
	SYN_NAK_SEQ = 0x60,
	SYN_NAK_INVALID = 0x61,
	SYN_NAK_ACCESS = 0x62,
	SYN_NAK_OPERATIONAL = 0x63,
};

/* The standard connection. */
enum { A = 0, B = 1 };
#define QPN_A 0x11u
#define QPN_B 0x12u
#define PSN_A 0x000100u
#define PSN_B 0x002000u
#define VA_A 0x10000000ull
#define VA_B 0x20000000ull
#define RKEY_A 0xa001u
#define RKEY_B 0xb001u
#define MEM_SIZE (64u * 1024)
#define RECV_SIZE (16u * 1024)
#define PMTU 1024u

/* Local ACK timeout code 8: 4.096 us * 2^8 (wire-facts.md), short enough for quick runs. */
#define TIMEOUT_CODE 8
#define TIMEOUT_NS (4096ll * 256)

#define MAX_FRAMES 4096
#define FRAME_BYTES 4352	/* PMTU 4096 + every header, VLAN, IPv6, pad, ICRC */
#define MAX_WC 512

typedef unsigned long long ull;

/* One frame as the tap saw it, copied and parsed. */
struct rec {
	int64_t t;
	uint8_t dir;		/* 0: a to b */
	enum rt_qp_bug bug;
	bool faulted;
	bool roce;		/* a complete RoCE v2 packet with a known opcode */
	uint32_t len;
	struct rt_packet p;	/* its pointers point into data */
	uint8_t data[FRAME_BYTES];
};

struct run {
	struct rt_sim_config cfg;
	struct rt_sim *sim;
	struct rt_error err;
	enum rt_sim_end end;
	struct rec *f;
	unsigned n;
	struct rt_wc wc[2][MAX_WC];
	unsigned nwc[2];
	uint8_t *before[2];	/* each node's memory as the sim filled it, before the run */
};

/* Static, so whatever a failed test leaves allocated stays reachable (no leak reports). */
static struct run g_runs[2];

static int on_frame(void *ctx, const struct rt_tap_frame *f, struct rt_error *err)
{
	struct run *r = ctx;
	if (r->n == MAX_FRAMES || f->len > FRAME_BYTES) {
		rt_error_set(err, "test tap: frame %u of %u bytes does not fit the record", r->n + 1, f->len);
		return -1;
	}
	struct rec *x = &r->f[r->n++];
	x->t = f->time_ns;
	x->dir = f->dir;
	x->bug = f->bug;
	x->faulted = f->faulted;
	x->len = f->len;
	memcpy(x->data, f->data, f->len);
	x->roce = rt_parse(&x->p, RT_LINK_ETHERNET, x->data, f->len, f->len) == RT_PARSE_ROCE && !x->p.truncated &&
		  x->p.ext_complete && x->p.op && x->p.roce_version == 2;
	return 0;
}

static void node_defaults(struct rt_qp_config *q, unsigned i)
{
	uint8_t mac[6] = { 2, 0, 0, 0, 0, (uint8_t)(0xa + i) };
	memcpy(q->mac, mac, 6);
	mac[5] = (uint8_t)(0xa + (1 - i));
	memcpy(q->peer_mac, mac, 6);
	uint8_t ip[4] = { 10, 0, 0, (uint8_t)(1 + i) };
	memset(q->ip, 0, 16);
	memset(q->peer_ip, 0, 16);
	memcpy(q->ip, ip, 4);
	ip[3] = (uint8_t)(2 - i);
	memcpy(q->peer_ip, ip, 4);
	q->qpn = i ? QPN_B : QPN_A;
	q->peer_qpn = i ? QPN_A : QPN_B;
	q->sq_psn = i ? PSN_B : PSN_A;
	q->rq_psn = i ? PSN_A : PSN_B;
	q->udp_sport = (uint16_t)(0xc011 + i);
	q->mem_va = i ? VA_B : VA_A;
	q->mem_size = MEM_SIZE;
	q->rkey = i ? RKEY_B : RKEY_A;
	q->pmtu = PMTU;
	q->recv_size = RECV_SIZE;
}

static void finish(struct run *r);

/* The standard two-node configuration in run `which`; change r->cfg before start(). */
static struct run *setup_run(unsigned which)
{
	struct run *r = &g_runs[which];
	finish(r);	/* what a failed test left (without fork, a failure skips its finish()) */
	rt_sim_config_init(&r->cfg);
	for (unsigned i = 0; i < 2; i++)
		node_defaults(&r->cfg.node[i], i);
	r->cfg.tap = RT_TAP_A;
	r->f = calloc(MAX_FRAMES, sizeof *r->f);
	ck_assert_ptr_nonnull(r->f);
	return r;
}

static struct run *setup(void)
{
	return setup_run(0);
}

static void add_fault(struct run *r, enum rt_fault_kind kind, unsigned dir, uint32_t first, uint32_t last)
{
	ck_assert_uint_lt(r->cfg.n_faults, RT_SIM_MAX_FAULTS);
	r->cfg.faults[r->cfg.n_faults++] =
		(struct rt_fault){ .kind = kind, .dir = (uint8_t)dir, .first = first, .last = last };
}

static void start(struct run *r)
{
	r->sim = rt_sim_new(&r->cfg, &r->err);
	ck_assert_msg(r->sim != NULL, "rt_sim_new: %s", r->err.msg);
	for (unsigned i = 0; i < 2; i++) {
		r->before[i] = malloc(r->cfg.node[i].mem_size);
		ck_assert_ptr_nonnull(r->before[i]);
		memcpy(r->before[i], rt_qp_memory(rt_sim_qp(r->sim, i)), r->cfg.node[i].mem_size);
	}
}

static struct rt_qp *qp_of(struct run *r, unsigned node)
{
	return rt_sim_qp(r->sim, node);
}

static uint8_t *mem(struct run *r, unsigned node)
{
	return rt_qp_memory(qp_of(r, node));
}

/* Writes a 64-bit value into a node's memory the way the model keeps it (little-endian), before the run. */
static void poke_le64(struct run *r, unsigned node, uint32_t off, uint64_t v)
{
	for (int b = 0; b < 8; b++) {
		mem(r, node)[off + b] = (uint8_t)(v >> (8 * b));
		r->before[node][off + b] = (uint8_t)(v >> (8 * b));
	}
}

static uint64_t peek_le64(const uint8_t *m)
{
	uint64_t v = 0;
	for (int b = 7; b >= 0; b--)
		v = (v << 8) | m[b];
	return v;
}

static void post(struct run *r, unsigned node, int64_t at, struct rt_send_wr wr)
{
	struct rt_sim_action a = { .at_ns = at, .node = (uint8_t)node, .kind = RT_ACTION_SEND, .wr = wr };
	ck_assert_msg(rt_sim_schedule(r->sim, &a, &r->err) == 0, "schedule: %s", r->err.msg);
}

static void recv_at(struct run *r, unsigned node, int64_t at, uint64_t id)
{
	struct rt_sim_action a = { .at_ns = at, .node = (uint8_t)node, .kind = RT_ACTION_RECV, .recv_wr_id = id };
	ck_assert_msg(rt_sim_schedule(r->sim, &a, &r->err) == 0, "schedule: %s", r->err.msg);
}

static void cnp_at(struct run *r, unsigned node, int64_t at)
{
	struct rt_sim_action a = { .at_ns = at, .node = (uint8_t)node, .kind = RT_ACTION_CNP };
	ck_assert_msg(rt_sim_schedule(r->sim, &a, &r->err) == 0, "schedule: %s", r->err.msg);
}

static void dump(const struct run *r)
{
	fprintf(stderr, "--- %u frames, end %d\n", r->n, r->end);
	for (unsigned i = 0; i < r->n; i++) {
		const struct rec *x = &r->f[i];
		const struct rt_packet *p = &x->p;
		fprintf(stderr, "%4u %10lld %s op 0x%02x psn 0x%06x%s", i + 1, (long long)x->t, x->dir ? "b>a" : "a>b",
			p->bth.opcode, p->bth.psn, p->bth.ack_req ? " AR" : "");
		if (x->roce && (p->ext_present & RT_EXT_AETH))
			fprintf(stderr, " syn 0x%02x msn %u", p->ext.aeth.syndrome, p->ext.aeth.msn);
		if (x->roce && (p->ext_present & RT_EXT_RETH))
			fprintf(stderr, " reth 0x%llx/%u", (ull)p->ext.reth.va, p->ext.reth.dma_len);
		fprintf(stderr, " len %u%s%s%s\n", p->payload_len, x->bug ? " BUG " : "", x->bug ? rt_qp_bug_name(x->bug) : "",
			x->faulted ? " faulted" : "");
	}
	for (unsigned n = 0; n < 2; n++)
		for (unsigned i = 0; i < r->nwc[n]; i++)
			fprintf(stderr, "%c wc %llu %s %s len %u\n", 'a' + n, (ull)r->wc[n][i].wr_id,
				rt_wr_opcode_name(r->wc[n][i].opcode), rt_wc_status_name(r->wc[n][i].status),
				r->wc[n][i].byte_len);
}

/* Runs to the end and takes every completion of both nodes. */
static enum rt_sim_end go(struct run *r)
{
	r->end = rt_sim_run(r->sim, on_frame, r, &r->err);
	for (unsigned n = 0; n < 2; n++) {
		struct rt_wc wc;
		while (rt_qp_poll_cq(qp_of(r, n), &wc)) {
			ck_assert_uint_lt(r->nwc[n], MAX_WC);
			r->wc[n][r->nwc[n]++] = wc;
		}
	}
	if (getenv("MODEL_TEST_DUMP"))
		dump(r);
	return r->end;
}

static void finish(struct run *r)
{
	rt_sim_free(r->sim);
	free(r->f);
	free(r->before[0]);
	free(r->before[1]);
	memset(r, 0, sizeof *r);
}

/* ---- Looking at the frames ---- */

static uint32_t psn_add(uint32_t psn, int32_t n)
{
	return (psn + (uint32_t)n) & 0xFFFFFF;
}

static int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static uint8_t opc(const struct rec *x)
{
	return x->p.bth.opcode;
}

static bool has(const struct rec *x, enum rt_ext_header h)
{
	return (x->p.ext_present & h) != 0;
}

static uint8_t syn(const struct rec *x)
{
	return x->p.ext.aeth.syndrome;
}

static const uint8_t *payload(const struct rec *x)
{
	return x->data + x->p.payload_off;
}

static bool is_ack(const struct rec *x)
{
	return opc(x) == OP_ACK && (syn(x) & 0x60) == 0x00;
}

static bool is_rnr(const struct rec *x)
{
	return opc(x) == OP_ACK && (syn(x) & 0x60) == 0x20;
}

static bool is_nak(const struct rec *x, uint8_t syndrome)
{
	return opc(x) == OP_ACK && syn(x) == syndrome;
}

/* A request (SEND, WRITE, READ request, atomic) on any transport. */
static bool is_request(const struct rec *x)
{
	uint8_t o = opc(x);
	if (o == OP_CNP)
		return false;
	uint8_t low = o & 0x1F;
	return low <= OP_READ_REQ || low == OP_CMP_SWAP || low == OP_FETCH_ADD || low == OP_SEND_LAST_INV ||
	       low == OP_SEND_ONLY_INV;
}

/* The first frame of direction dir at index >= from (r->n if none). */
static unsigned next_dir(const struct run *r, unsigned from, unsigned dir)
{
	while (from < r->n && r->f[from].dir != dir)
		from++;
	return from;
}

static unsigned count_dir(const struct run *r, unsigned dir)
{
	unsigned c = 0;
	for (unsigned i = 0; i < r->n; i++)
		c += r->f[i].dir == dir;
	return c;
}

static unsigned count_nak(const struct run *r, uint8_t syndrome)
{
	unsigned c = 0;
	for (unsigned i = 0; i < r->n; i++)
		c += is_nak(&r->f[i], syndrome);
	return c;
}

static unsigned count_op(const struct run *r, unsigned dir, uint8_t op)
{
	unsigned c = 0;
	for (unsigned i = 0; i < r->n; i++)
		c += r->f[i].dir == dir && opc(&r->f[i]) == op;
	return c;
}

static unsigned count_psn(const struct run *r, unsigned dir, uint32_t psn)
{
	unsigned c = 0;
	for (unsigned i = 0; i < r->n; i++)
		c += r->f[i].dir == dir && r->f[i].p.bth.psn == psn && is_request(&r->f[i]);
	return c;
}

static unsigned count_bug(const struct run *r, enum rt_qp_bug b, unsigned *at)
{
	unsigned c = 0;
	for (unsigned i = 0; i < r->n; i++)
		if (r->f[i].bug == b) {
			if (!c && at)
				*at = i;
			c++;
		}
	return c;
}

static bool first_or_middle(uint8_t op)
{
	uint8_t low = op & 0x1F;
	return op < 0x40 && (low == OP_SEND_FIRST || low == OP_SEND_MIDDLE || low == OP_WRITE_FIRST ||
			     low == OP_WRITE_MIDDLE || (op == OP_READ_FIRST || op == OP_READ_MIDDLE));
}

/*
 * What every frame of a run without misbehaviour must be (frames a bug or a
 * link fault changed are skipped): complete RoCE v2, good ICRC, TVer 0,
 * P_Key 0xFFFF, UDP port 4791, to the peer's QP, PadCnt = (-payload) & 3 with
 * zero pad bytes, First/Middle exactly one PMTU, nothing longer than the PMTU,
 * no AckReq on responses, CNPs as wire-facts.md describes them.
 */
static void check_sane(const struct run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		const struct rec *x = &r->f[i];
		ck_assert_msg(x->roce, "frame %u: not a complete RoCE v2 packet", i + 1);
		if (x->bug != RT_BUG_NONE || x->faulted)
			continue;
		const struct rt_packet *p = &x->p;
		uint32_t pmtu = r->cfg.node[x->dir].pmtu;
		ck_assert_msg(rt_icrc_check(p) == RT_ICRC_OK, "frame %u: bad ICRC", i + 1);
		ck_assert_msg(p->bth.tver == 0, "frame %u: TVer %u", i + 1, p->bth.tver);
		ck_assert_uint_eq(p->bth.pkey, 0xFFFF);
		ck_assert_uint_eq(p->udp_dport, 4791);
		ck_assert_msg(p->bth.dest_qp == r->cfg.node[1 - x->dir].qpn, "frame %u: DestQP 0x%x", i + 1,
			      p->bth.dest_qp);
		if (opc(x) == OP_CNP) {
			ck_assert_uint_eq(p->bth.psn, 0);
			ck_assert(p->bth.becn);
			ck_assert(!p->bth.ack_req);
			continue;
		}
		ck_assert_msg(p->bth.pad == ((4 - p->payload_len % 4) % 4), "frame %u: PadCnt %u for %u bytes", i + 1,
			      p->bth.pad, p->payload_len);
		for (unsigned k = 0; k < p->bth.pad; k++)
			ck_assert_msg(x->data[p->payload_off + p->payload_len + k] == 0, "frame %u: pad byte %u not 0",
				      i + 1, k);
		ck_assert_msg(p->payload_len <= pmtu, "frame %u: %u bytes > PMTU", i + 1, p->payload_len);
		if (first_or_middle(opc(x)))
			ck_assert_msg(p->payload_len == pmtu, "frame %u: First/Middle with %u bytes", i + 1,
				      p->payload_len);
		if (p->op->response)
			ck_assert_msg(!p->bth.ack_req, "frame %u: a response with AckReq", i + 1);
	}
}

/* wire-facts.md "Opcodes": packet k of n of a SEND or WRITE work request (RC values). */
static uint8_t want_opcode(enum rt_wr_opcode op, uint32_t k, uint32_t n)
{
	bool write = op == RT_WR_WRITE || op == RT_WR_WRITE_IMM;
	bool imm = op == RT_WR_SEND_IMM || op == RT_WR_WRITE_IMM;
	bool inv = op == RT_WR_SEND_INV;
	if (n == 1)
		return write ? (imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY)
			     : imm ? OP_SEND_ONLY_IMM : inv ? OP_SEND_ONLY_INV : OP_SEND_ONLY;
	if (k == 0)
		return write ? OP_WRITE_FIRST : OP_SEND_FIRST;
	if (k + 1 < n)
		return write ? OP_WRITE_MIDDLE : OP_SEND_MIDDLE;
	return write ? (imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST) : imm ? OP_SEND_LAST_IMM : inv ? OP_SEND_LAST_INV : OP_SEND_LAST;
}

static uint32_t packets(uint32_t len, uint32_t pmtu)
{
	return len ? (len + pmtu - 1) / pmtu : 1;
}

/*
 * The frames of one SEND or WRITE message from a, from index *i on, as
 * wire-facts.md lays them out: opcodes First, Middle..., Last or Only, PSNs in
 * order from psn0, payloads PMTU but the last, PadCnt, the bytes of a's
 * memory, AckReq on Last/Only (RC), RETH on First/Only of a WRITE only,
 * ImmDt and IETH on the last only. *i moves past the last packet.
 */
static void expect_message(const struct run *r, unsigned *i, uint32_t psn0, const struct rt_send_wr *wr)
{
	uint32_t pmtu = r->cfg.node[A].pmtu;
	uint8_t base = r->cfg.node[A].transport == RT_TRANSPORT_UC ? OP_UC : 0;
	uint32_t n = packets(wr->length, pmtu);
	bool write = wr->opcode == RT_WR_WRITE || wr->opcode == RT_WR_WRITE_IMM;
	bool imm = wr->opcode == RT_WR_SEND_IMM || wr->opcode == RT_WR_WRITE_IMM;
	bool inv = wr->opcode == RT_WR_SEND_INV;
	for (uint32_t k = 0; k < n; k++) {
		unsigned j = next_dir(r, *i, A);
		ck_assert_msg(j < r->n, "work request %llu: packet %u of %u never sent", (ull)wr->wr_id, k + 1, n);
		const struct rec *x = &r->f[j];
		const struct rt_packet *p = &x->p;
		uint8_t want = (uint8_t)(base | want_opcode(wr->opcode, k, n));
		ck_assert_msg(opc(x) == want, "frame %u: opcode 0x%02x, want 0x%02x", j + 1, opc(x), want);
		ck_assert_msg(p->bth.psn == psn_add(psn0, (int32_t)k), "frame %u: PSN 0x%06x, want 0x%06x", j + 1,
			      p->bth.psn, psn_add(psn0, (int32_t)k));
		uint32_t plen = k + 1 < n ? pmtu : wr->length - k * pmtu;
		ck_assert_msg(p->payload_len == plen, "frame %u: %u payload bytes, want %u", j + 1, p->payload_len, plen);
		ck_assert_uint_eq(p->bth.pad, (4 - plen % 4) % 4);
		if (plen)
			ck_assert_mem_eq(payload(x), r->before[A] + wr->local_offset + (uint64_t)k * pmtu, plen);
		bool last = k + 1 == n;
		if (last && !base)
			ck_assert_msg(p->bth.ack_req, "frame %u: Last/Only without AckReq", j + 1);
		bool reth = write && k == 0;
		ck_assert_msg(has(x, RT_EXT_RETH) == reth, "frame %u: RETH %s", j + 1, reth ? "missing" : "where it does not belong");
		if (reth) {
			ck_assert_uint_eq(p->ext.reth.va, wr->remote_va);
			ck_assert_uint_eq(p->ext.reth.rkey, wr->rkey);
			ck_assert_uint_eq(p->ext.reth.dma_len, wr->length);
		}
		ck_assert_int_eq(has(x, RT_EXT_IMMDT), imm && last);
		if (imm && last)
			ck_assert_uint_eq(p->ext.imm, wr->imm);
		ck_assert_int_eq(has(x, RT_EXT_IETH), inv && last);
		if (inv && last)
			ck_assert_uint_eq(p->ext.ieth_rkey, wr->imm);
		*i = j + 1;
	}
}

static const struct rt_wc *wc_of(const struct run *r, unsigned node, unsigned k)
{
	ck_assert_msg(k < r->nwc[node], "node %c has %u completions, wanted at least %u", 'a' + node, r->nwc[node],
		      k + 1);
	return &r->wc[node][k];
}

static void expect_wc(const struct run *r, unsigned node, unsigned k, uint64_t wr_id, enum rt_wc_status st)
{
	const struct rt_wc *wc = wc_of(r, node, k);
	ck_assert_msg(wc->wr_id == wr_id && wc->status == st, "node %c completion %u: wr %llu %s, want wr %llu %s",
		      'a' + node, k + 1, (ull)wc->wr_id, rt_wc_status_name(wc->status), (ull)wr_id,
		      rt_wc_status_name(st));
}

/* A receive completion: success, byte_len, and the bytes at recv_offset equal src. */
static void expect_recv(struct run *r, unsigned k, uint64_t wr_id, const uint8_t *src, uint32_t len)
{
	expect_wc(r, B, k, wr_id, RT_WC_SUCCESS);
	const struct rt_wc *wc = wc_of(r, B, k);
	ck_assert_int_eq(wc->opcode, RT_WR_RECV);
	ck_assert_uint_eq(wc->byte_len, len);
	ck_assert_uint_le(wc->recv_offset + len, (uint64_t)r->cfg.node[B].rq_depth * r->cfg.node[B].recv_size);
	if (len)
		ck_assert_mem_eq(rt_qp_recv_memory(qp_of(r, B)) + wc->recv_offset, src, len);
}

/* ---- 1. SEND ---- */

static const uint32_t send_lens[] = { 0, 1, 3, PMTU, PMTU + 1, 13 * 1024, 13001 };

START_TEST(send_sizes)
{
	uint32_t len = send_lens[_i];
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 500);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 100, .length = len };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);
	uint32_t n = packets(len, PMTU);
	ck_assert_uint_eq(count_dir(r, A), n);
	/* One ACK for the whole message: the Last's PSN, credits not limited, MSN 1. */
	ck_assert_uint_eq(count_dir(r, B), 1);
	const struct rec *ack = &r->f[next_dir(r, 0, B)];
	ck_assert(is_ack(ack));
	ck_assert_uint_eq(ack->p.bth.psn, psn_add(PSN_A, (int32_t)n - 1));
	ck_assert_uint_eq(syn(ack), SYN_ACK_UNLIMITED);
	ck_assert_uint_eq(ack->p.ext.aeth.msn, 1);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_int_eq(r->wc[A][0].opcode, RT_WR_SEND);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 500, r->before[A] + 100, len);
	ck_assert(!r->wc[B][0].with_imm);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_RTS);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_RTS);
	finish(r);
}
END_TEST

/* Every PMTU: First, Middle, Middle, Last of 5 bytes (PadCnt 3). */
static const uint32_t pmtus[] = { 256, 512, 1024, 2048, 4096 };

START_TEST(send_every_pmtu)
{
	uint32_t pmtu = pmtus[_i];
	struct run *r = setup();
	r->cfg.node[A].pmtu = r->cfg.node[B].pmtu = pmtu;
	start(r);
	recv_at(r, B, 0, 7);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 8, .length = 3 * pmtu + 5 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);
	ck_assert_uint_eq(count_dir(r, A), 4);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 7, r->before[A] + 8, wr.length);
	finish(r);
}
END_TEST

/* SEND with immediate and with invalidate: ImmDt / IETH on the Last only, the receive reports them. */
START_TEST(send_imm_and_inv)
{
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	recv_at(r, B, 0, 3);
	struct rt_send_wr w1 = { .wr_id = 11, .opcode = RT_WR_SEND_IMM, .local_offset = 0, .length = 2100, .imm = 0x12345678 };
	struct rt_send_wr w2 = { .wr_id = 12, .opcode = RT_WR_SEND_INV, .local_offset = 4000, .length = 10, .imm = 0xb001 };
	struct rt_send_wr w3 = { .wr_id = 13, .opcode = RT_WR_SEND_IMM, .local_offset = 8000, .length = 0, .imm = 0xcafe };
	post(r, A, 0, w1);
	post(r, A, 0, w2);
	post(r, A, 0, w3);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &w1);
	expect_message(r, &i, PSN_A + 3, &w2);
	expect_message(r, &i, PSN_A + 4, &w3);
	ck_assert_uint_eq(r->nwc[A], 3);
	for (unsigned k = 0; k < 3; k++)
		expect_wc(r, A, k, 11 + k, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 3);
	expect_recv(r, 0, 1, r->before[A], 2100);
	ck_assert(r->wc[B][0].with_imm);
	ck_assert_uint_eq(r->wc[B][0].imm, 0x12345678);
	expect_recv(r, 1, 2, r->before[A] + 4000, 10);
	ck_assert(r->wc[B][1].with_inv);
	ck_assert_uint_eq(r->wc[B][1].inv_rkey, 0xb001);
	ck_assert(!r->wc[B][1].with_imm);
	expect_recv(r, 2, 3, NULL, 0);
	ck_assert(r->wc[B][2].with_imm);
	ck_assert_uint_eq(r->wc[B][2].imm, 0xcafe);
	finish(r);
}
END_TEST

/* Two messages land in two receive buffers, in order; ACK MSNs count messages (1, 2). */
START_TEST(send_two_messages_msn)
{
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 21);
	recv_at(r, B, 0, 22);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 1500 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 2000, .length = 700 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	expect_recv(r, 0, 21, r->before[A], 1500);
	expect_recv(r, 1, 22, r->before[A] + 2000, 700);
	ck_assert_uint_ne(r->wc[B][0].recv_offset, r->wc[B][1].recv_offset);
	/* ACKs: PSN 0x101 with MSN 1, PSN 0x102 with MSN 2. */
	unsigned j = next_dir(r, 0, B);
	ck_assert(j < r->n && is_ack(&r->f[j]));
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(r->f[j].p.ext.aeth.msn, 1);
	j = next_dir(r, j + 1, B);
	ck_assert(j < r->n && is_ack(&r->f[j]));
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(r->f[j].p.ext.aeth.msn, 2);
	finish(r);
}
END_TEST

/* ---- 2. WRITE ---- */

struct write_case {
	enum rt_wr_opcode op;
	uint32_t len;
};
static const struct write_case write_cases[] = {
	{ RT_WR_WRITE, 2500 }, { RT_WR_WRITE, 300 }, { RT_WR_WRITE_IMM, 2500 }, { RT_WR_WRITE_IMM, 301 },
	{ RT_WR_WRITE, PMTU }, { RT_WR_WRITE_IMM, 0 },
};

START_TEST(write_lands_at_va)
{
	const struct write_case *c = &write_cases[_i];
	bool imm = c->op == RT_WR_WRITE_IMM;
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 77);
	struct rt_send_wr wr = { .wr_id = 5, .opcode = c->op, .local_offset = 0x300, .length = c->len,
				 .remote_va = VA_B + 0x1000, .rkey = RKEY_B, .imm = 0xdeadbeef };
	post(r, A, 0, wr);
	/* A SEND after it: without immediate, the WRITE consumed no receive, so this takes buffer 77. */
	struct rt_send_wr s = { .wr_id = 6, .opcode = RT_WR_SEND, .local_offset = 0x8000, .length = 10 };
	if (!imm)
		post(r, A, 0, s);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);
	/* The peer's memory holds the source at the RETH's VA, and nothing around it changed. */
	if (c->len)
		ck_assert_mem_eq(mem(r, B) + 0x1000, r->before[A] + 0x300, c->len);
	ck_assert_mem_eq(mem(r, B), r->before[B], 0x1000);
	ck_assert_mem_eq(mem(r, B) + 0x1000 + c->len, r->before[B] + 0x1000 + c->len, MEM_SIZE - 0x1000 - c->len);
	expect_wc(r, A, 0, 5, RT_WC_SUCCESS);
	ck_assert_int_eq(r->wc[A][0].opcode, c->op);
	ck_assert_uint_eq(r->nwc[B], 1);
	if (imm) {
		/* The immediate consumed the receive. */
		expect_wc(r, B, 0, 77, RT_WC_SUCCESS);
		ck_assert(r->wc[B][0].with_imm);
		ck_assert_uint_eq(r->wc[B][0].imm, 0xdeadbeef);
	} else {
		expect_wc(r, A, 1, 6, RT_WC_SUCCESS);
		expect_recv(r, 0, 77, r->before[A] + 0x8000, 10);
		ck_assert(!r->wc[B][0].with_imm);
	}
	finish(r);
}
END_TEST

/* ---- 3. READ ---- */

static const uint32_t read_lens[] = { 0, 1, PMTU, 5000 };

START_TEST(read_sizes)
{
	uint32_t len = read_lens[_i];
	uint32_t n = packets(len, PMTU);
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x2000, .length = len,
					   .remote_va = VA_B + 0x3000, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 8 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* The request: PSN p, RETH as posted. */
	unsigned q = next_dir(r, 0, A);
	ck_assert(q < r->n);
	const struct rec *req = &r->f[q];
	ck_assert_uint_eq(opc(req), OP_READ_REQ);
	ck_assert_uint_eq(req->p.bth.psn, PSN_A);
	ck_assert(has(req, RT_EXT_RETH));
	ck_assert_uint_eq(req->p.ext.reth.va, VA_B + 0x3000);
	ck_assert_uint_eq(req->p.ext.reth.rkey, RKEY_B);
	ck_assert_uint_eq(req->p.ext.reth.dma_len, len);
	ck_assert_uint_eq(req->p.payload_len, 0);
	/* The next request takes PSN p + N. */
	unsigned s = next_dir(r, q + 1, A);
	ck_assert(s < r->n);
	ck_assert_uint_eq(opc(&r->f[s]), OP_SEND_ONLY);
	ck_assert_uint_eq(r->f[s].p.bth.psn, PSN_A + n);
	ck_assert_uint_eq(count_dir(r, A), 2);
	/* Responses: PSNs p .. p+N-1, First/Middle/Last or Only, AETH on all but Middle, b's bytes. */
	unsigned k = 0;
	for (unsigned j = 0; j < r->n; j++) {
		const struct rec *x = &r->f[j];
		if (x->dir != B || opc(x) == OP_ACK)
			continue;
		uint8_t want = n == 1 ? OP_READ_ONLY : k == 0 ? OP_READ_FIRST : k + 1 < n ? OP_READ_MIDDLE : OP_READ_LAST;
		ck_assert_msg(opc(x) == want, "frame %u: opcode 0x%02x, want 0x%02x", j + 1, opc(x), want);
		ck_assert_uint_eq(x->p.bth.psn, PSN_A + k);
		ck_assert_int_eq(has(x, RT_EXT_AETH), want != OP_READ_MIDDLE);
		if (want != OP_READ_MIDDLE) {
			ck_assert_uint_eq(syn(x), SYN_ACK_UNLIMITED);
			ck_assert_uint_eq(x->p.ext.aeth.msn, 1);
		}
		uint32_t plen = k + 1 < n ? PMTU : len - k * PMTU;
		ck_assert_uint_eq(x->p.payload_len, plen);
		if (plen)
			ck_assert_mem_eq(payload(x), r->before[B] + 0x3000 + k * PMTU, plen);
		k++;
	}
	ck_assert_uint_eq(k, n);
	/* The SEND's ACK follows: PSN p+N, MSN 2. */
	const struct rec *last = &r->f[r->n - 1];
	ck_assert(is_ack(last));
	ck_assert_uint_eq(last->p.bth.psn, PSN_A + n);
	ck_assert_uint_eq(last->p.ext.aeth.msn, 2);
	/* Local memory got the peer's bytes; the peer's memory is unchanged. */
	if (len)
		ck_assert_mem_eq(mem(r, A) + 0x2000, r->before[B] + 0x3000, len);
	ck_assert_mem_eq(mem(r, B), r->before[B], MEM_SIZE);
	ck_assert_mem_eq(mem(r, A) + 0x2000 + len, r->before[A] + 0x2000 + len, 64);
	ck_assert_uint_eq(r->nwc[A], 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_int_eq(r->wc[A][0].opcode, RT_WR_READ);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ---- 4. Atomics ---- */

START_TEST(atomics)
{
	const uint64_t v0 = 0x1122334455667788ull, v1 = 0x0102030405060708ull, v2 = 0xFFFFFFFFFFFFFFF0ull;
	struct run *r = setup();
	start(r);
	poke_le64(r, B, 0x8000, v0);
	poke_le64(r, B, 0x8008, v1);
	poke_le64(r, B, 0x8010, v2);
	/* Compare equal: swapped. Compare not equal: unchanged. Fetch&Add: added (wrapping). */
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_CMP_SWAP, .local_offset = 0x4000,
					   .remote_va = VA_B + 0x8000, .rkey = RKEY_B, .compare = v0, .swap_add = 0x42 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_CMP_SWAP, .local_offset = 0x4008,
					   .remote_va = VA_B + 0x8008, .rkey = RKEY_B, .compare = v1 + 1, .swap_add = 0x43 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_FETCH_ADD, .local_offset = 0x4010,
					   .remote_va = VA_B + 0x8010, .rkey = RKEY_B, .swap_add = 0x25 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(peek_le64(mem(r, B) + 0x8000), 0x42);
	ck_assert_uint_eq(peek_le64(mem(r, B) + 0x8008), v1);
	ck_assert_uint_eq(peek_le64(mem(r, B) + 0x8010), v2 + 0x25);
	ck_assert_uint_eq(peek_le64(mem(r, A) + 0x4000), v0);
	ck_assert_uint_eq(peek_le64(mem(r, A) + 0x4008), v1);
	ck_assert_uint_eq(peek_le64(mem(r, A) + 0x4010), v2);
	/* Nothing else in b's memory moved. */
	ck_assert_mem_eq(mem(r, B), r->before[B], 0x8000);
	ck_assert_mem_eq(mem(r, B) + 0x8018, r->before[B] + 0x8018, MEM_SIZE - 0x8018);
	/* The wire: AtomicETH requests at p, p+1, p+2; Atomic ACKs with AETH and the original value. */
	static const uint8_t ops[3] = { OP_CMP_SWAP, OP_CMP_SWAP, OP_FETCH_ADD };
	const uint64_t orig[3] = { v0, v1, v2 };
	unsigned qa = 0, qb = 0;
	for (unsigned k = 0; k < 3; k++) {
		qa = next_dir(r, qa, A);
		ck_assert(qa < r->n);
		const struct rec *x = &r->f[qa++];
		ck_assert_uint_eq(opc(x), ops[k]);
		ck_assert_uint_eq(x->p.bth.psn, PSN_A + k);
		ck_assert(has(x, RT_EXT_ATOMICETH));
		ck_assert_uint_eq(x->p.ext.atomic.va, VA_B + 0x8000 + 8 * k);
		ck_assert_uint_eq(x->p.ext.atomic.rkey, RKEY_B);
		qb = next_dir(r, qb, B);
		ck_assert(qb < r->n);
		const struct rec *y = &r->f[qb++];
		ck_assert_uint_eq(opc(y), OP_ATOMIC_ACK);
		ck_assert_uint_eq(y->p.bth.psn, PSN_A + k);
		ck_assert(has(y, RT_EXT_AETH) && has(y, RT_EXT_ATOMICACKETH));
		ck_assert_uint_eq(syn(y), SYN_ACK_UNLIMITED);
		ck_assert_uint_eq(y->p.ext.aeth.msn, k + 1);
		ck_assert_uint_eq(y->p.ext.atomic_ack_orig, orig[k]);
	}
	ck_assert_uint_eq(r->f[0].p.ext.atomic.compare, v0);
	ck_assert_uint_eq(r->f[0].p.ext.atomic.swap_add, 0x42);
	ck_assert_uint_eq(r->nwc[A], 3);
	for (unsigned k = 0; k < 3; k++)
		expect_wc(r, A, k, k + 1, RT_WC_SUCCESS);
	ck_assert_int_eq(r->wc[A][0].opcode, RT_WR_CMP_SWAP);
	ck_assert_int_eq(r->wc[A][2].opcode, RT_WR_FETCH_ADD);
	finish(r);
}
END_TEST

/* ---- 5. PSN wrap ---- */

START_TEST(psn_wrap_send)
{
	struct run *r = setup();
	r->cfg.node[A].sq_psn = r->cfg.node[B].rq_psn = 0xFFFFFE;
	start(r);
	recv_at(r, B, 0, 1);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 64, .length = 5 * PMTU - 10 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	static const uint32_t want[5] = { 0xFFFFFE, 0xFFFFFF, 0, 1, 2 };
	unsigned k = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == A) {
			ck_assert_uint_lt(k, 5);
			ck_assert_uint_eq(r->f[j].p.bth.psn, want[k++]);
		}
	ck_assert_uint_eq(k, 5);
	unsigned i = 0;
	expect_message(r, &i, 0xFFFFFE, &wr);
	ck_assert(is_ack(&r->f[r->n - 1]));
	ck_assert_uint_eq(r->f[r->n - 1].p.bth.psn, 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A] + 64, wr.length);
	finish(r);
}
END_TEST

/* A READ across the wrap: responses 0xFFFFFF, 0, 1; the next request takes PSN 2. */
START_TEST(psn_wrap_read)
{
	struct run *r = setup();
	r->cfg.node[A].sq_psn = r->cfg.node[B].rq_psn = 0xFFFFFF;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0, .length = 3 * PMTU,
					   .remote_va = VA_B, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x5000, .length = 4 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	static const uint32_t resp[3] = { 0xFFFFFF, 0, 1 };
	unsigned k = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B && opc(&r->f[j]) != OP_ACK)
			ck_assert_uint_eq(r->f[j].p.bth.psn, resp[k++]);
	ck_assert_uint_eq(k, 3);
	unsigned s = next_dir(r, next_dir(r, 0, A) + 1, A);
	ck_assert(s < r->n);
	ck_assert_uint_eq(r->f[s].p.bth.psn, 2);
	ck_assert_mem_eq(mem(r, A), r->before[B], 3 * PMTU);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A] + 0x5000, 4);
	finish(r);
}
END_TEST

/* ---- 6. Loss of a request: NAK sequence error and go-back-N ---- */

START_TEST(lost_middle_request)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, A, 3, 3);	/* the third packet: PSN p+2, a Middle */
	start(r);
	recv_at(r, B, 0, 9);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 4700 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);	/* the first transmission, as sent */
	/* Exactly one NAK sequence error, carrying the lost PSN. */
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(r->f[nak].p.ext.aeth.msn, 0);	/* no message complete yet */
	/* Go-back-N from the lost PSN; the partly acknowledged message resumes with Middle, Middle, Last. */
	static const uint8_t resume[3] = { OP_SEND_MIDDLE, OP_SEND_MIDDLE, OP_SEND_LAST };
	unsigned j = nak;
	for (unsigned k = 0; k < 3; k++) {
		j = next_dir(r, j + 1, A);
		ck_assert_msg(j < r->n, "resend %u missing", k + 1);
		ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2 + k);
		ck_assert_uint_eq(opc(&r->f[j]), resume[k]);
		ck_assert_mem_eq(payload(&r->f[j]), r->before[A] + (2 + k) * PMTU, r->f[j].p.payload_len);
	}
	ck_assert_uint_eq(next_dir(r, j + 1, A), r->n);	/* nothing else resent */
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 1);
	ck_assert_uint_eq(count_psn(r, A, PSN_A + 1), 1);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 9, r->before[A], 4700);
	finish(r);
}
END_TEST

/* The first packet of the second message lost: the resend starts that message with its First again. */
START_TEST(lost_first_of_second_message)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, A, 3, 3);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2000 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x4000, .length = 3000 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 2);
	unsigned j = next_dir(r, nak + 1, A);
	ck_assert(j < r->n);
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(opc(&r->f[j]), OP_SEND_FIRST);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 2000);
	expect_recv(r, 1, 2, r->before[A] + 0x4000, 3000);
	finish(r);
}
END_TEST

/* ---- 7. Lost ACK: local ACK timeout ---- */

START_TEST(lost_ack_timeout)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, B, 1, 1);
	start(r);
	recv_at(r, B, 0, 3);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2500 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_int_eq(rt_local_ack_timeout_ns(TIMEOUT_CODE), TIMEOUT_NS);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);
	int64_t last_send = r->f[i - 1].t;
	/* The retransmission: the whole message again, from the oldest unacknowledged PSN. */
	unsigned j = i;
	expect_message(r, &j, PSN_A, &wr);
	int64_t resend = r->f[next_dir(r, i, A)].t;
	ck_assert_msg(resend - last_send >= TIMEOUT_NS, "resent %lld ns after the last send, timeout %lld",
		      (long long)(resend - last_send), (long long)TIMEOUT_NS);
	ck_assert_msg(resend - last_send <= 4 * TIMEOUT_NS, "resent only after %lld ns", (long long)(resend - last_send));
	ck_assert_uint_eq(count_dir(r, A), 6);
	/* The responder re-ACKs the duplicates with expected PSN - 1 = p+2, whatever their own PSN. */
	unsigned acks = 0;
	for (unsigned k = 0; k < r->n; k++)
		if (r->f[k].dir == B) {
			ck_assert(is_ack(&r->f[k]));
			ck_assert_uint_eq(r->f[k].p.bth.psn, PSN_A + 2);
			acks++;
		}
	ck_assert_uint_ge(acks, 1);
	ck_assert_uint_ge(rt_qp_stats(qp_of(r, B))->duplicates, 3);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 1);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);	/* delivered once */
	expect_recv(r, 0, 3, r->before[A], 2500);
	finish(r);
}
END_TEST

/* ---- 8. retry_cnt exhausted ---- */

START_TEST(retry_exhausted)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	r->cfg.node[A].retry_cnt = 2;
	add_fault(r, RT_FAULT_DROP, B, 1, 1000);	/* nothing from b arrives */
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 200, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_WRITE, .local_offset = 200, .length = 100,
					   .remote_va = VA_B, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* The first PSN: sent, then exactly retry_cnt = 2 retransmissions, each a timeout after the last send. */
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 3);
	int64_t prev_last = -1;
	unsigned round = 0;
	for (unsigned j = 0; j < r->n; j++) {
		if (r->f[j].dir != A)
			continue;
		if (r->f[j].p.bth.psn == PSN_A) {
			if (round)
				ck_assert_int_ge(r->f[j].t - prev_last, TIMEOUT_NS);
			round++;
		}
		prev_last = r->f[j].t;
	}
	ck_assert_uint_eq(r->nwc[A], 3);
	expect_wc(r, A, 0, 1, RT_WC_RETRY_EXCEEDED);
	expect_wc(r, A, 1, 2, RT_WC_FLUSHED);
	expect_wc(r, A, 2, 3, RT_WC_FLUSHED);
	ck_assert_int_ge(r->wc[A][0].time_ns - prev_last, TIMEOUT_NS);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_RTS);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 3);
	/* The QP in error refuses more work, with a reason. */
	struct rt_error err = { { 0 } };
	struct rt_send_wr more = { .wr_id = 9, .opcode = RT_WR_SEND, .length = 1 };
	ck_assert_int_eq(rt_qp_post_send(qp_of(r, A), &more, &err), -1);
	ck_assert_str_ne(err.msg, "");
	finish(r);
}
END_TEST

/* retry_cnt 0: no retransmission at all. */
START_TEST(retry_zero)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	r->cfg.node[A].retry_cnt = 0;
	add_fault(r, RT_FAULT_DROP, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(count_dir(r, A), 1);
	ck_assert_uint_eq(count_dir(r, B), 0);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_RETRY_EXCEEDED);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	finish(r);
}
END_TEST

/* No timer (timeout 0) and the only request lost: nothing can move the work, the run stalls. */
START_TEST(no_timer_stalls)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = 0;
	add_fault(r, RT_FAULT_DROP, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_STALLED);
	ck_assert_uint_eq(r->nwc[A], 0);
	ck_assert_uint_eq(count_dir(r, A), 1);
	finish(r);
}
END_TEST

/* ---- 9. RNR ---- */

/* wire-facts.md "AETH syndrome": the RNR timer table, in ns. */
static const int64_t rnr_table_ns[32] = {
	655360000, 10000, 20000, 30000, 40000, 60000, 80000, 120000,
	160000, 240000, 320000, 480000, 640000, 960000, 1280000, 1920000,
	2560000, 3840000, 5120000, 7680000, 10240000, 15360000, 20480000, 30720000,
	40960000, 61440000, 81920000, 122880000, 163840000, 245760000, 327680000, 491520000,
};

START_TEST(timer_tables)
{
	for (unsigned c = 0; c < 32; c++)
		ck_assert_msg(rt_rnr_timer_ns((uint8_t)c) == rnr_table_ns[c], "RNR code %u: %lld ns, want %lld", c,
			      (long long)rt_rnr_timer_ns((uint8_t)c), (long long)rnr_table_ns[c]);
	ck_assert_int_eq(rt_local_ack_timeout_ns(0), 0);
	ck_assert_int_eq(rt_local_ack_timeout_ns(1), 8192);
	ck_assert_int_eq(rt_local_ack_timeout_ns(14), 4096ll << 14);
	ck_assert_int_eq(rt_local_ack_timeout_ns(31), 4096ll << 31);
}
END_TEST

START_TEST(rnr_then_success)
{
	const uint8_t code = 4;	/* 0.04 ms */
	struct run *r = setup();
	r->cfg.node[B].min_rnr_timer = code;
	start(r);
	recv_at(r, B, 100000, 42);	/* the receive comes at 100 us */
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 1500 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned rnrs = 0;
	for (unsigned j = 0; j < r->n; j++) {
		const struct rec *x = &r->f[j];
		if (x->dir != B || !is_rnr(x))
			continue;
		rnrs++;
		/* RNR NAK: syndrome 0x20 | timer, the SEND's PSN (its First). */
		ck_assert_uint_eq(syn(x), SYN_RNR | code);
		ck_assert_uint_eq(x->p.bth.psn, PSN_A);
		/* The resend comes no earlier than the timer, and starts the message again. */
		unsigned k = next_dir(r, j + 1, A);
		ck_assert_msg(k < r->n, "no resend after the RNR NAK at frame %u", j + 1);
		ck_assert_msg(r->f[k].t - x->t >= rnr_table_ns[code], "resent %lld ns after the RNR NAK",
			      (long long)(r->f[k].t - x->t));
		ck_assert_uint_eq(r->f[k].p.bth.psn, PSN_A);
		ck_assert_uint_eq(opc(&r->f[k]), OP_SEND_FIRST);
	}
	ck_assert_uint_ge(rnrs, 2);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 0);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 42, r->before[A], 1500);
	ck_assert_int_ge(r->wc[B][0].time_ns, 100000);
	finish(r);
}
END_TEST

START_TEST(rnr_retry_exhausted)
{
	struct run *r = setup();
	r->cfg.node[A].rnr_retry = 2;
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 100,
					   .remote_va = VA_B, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned rnrs = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B && is_rnr(&r->f[j])) {
			ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A);
			rnrs++;
		}
	ck_assert_uint_eq(rnrs, 3);	/* the first, then rnr_retry = 2 more */
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 3);
	ck_assert_uint_eq(r->nwc[A], 2);
	expect_wc(r, A, 0, 1, RT_WC_RNR_RETRY_EXCEEDED);
	expect_wc(r, A, 1, 2, RT_WC_FLUSHED);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_RTS);
	/* The WRITE behind the SEND never executed. */
	ck_assert_mem_eq(mem(r, B), r->before[B], MEM_SIZE);
	finish(r);
}
END_TEST

START_TEST(rnr_retry_forever)
{
	struct run *r = setup();
	r->cfg.node[A].rnr_retry = 7;
	r->cfg.node[B].min_rnr_timer = 1;	/* 10 us */
	r->cfg.time_limit_ns = 2000000;		/* 2 ms */
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_TIME_LIMIT);
	unsigned rnrs = 0;
	for (unsigned j = 0; j < r->n; j++)
		rnrs += r->f[j].dir == B && is_rnr(&r->f[j]);
	ck_assert_uint_ge(rnrs, 50);
	ck_assert_uint_eq(r->nwc[A], 0);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_RTS);
	ck_assert_int_eq(rt_sim_now(r->sim), 2000000);
	finish(r);
}
END_TEST

/* ---- 10. Duplicate READ ---- */

START_TEST(read_response_lost)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, B, 2, 2);	/* the second response, PSN p+1 */
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 4 * PMTU,
					   .remote_va = VA_B + 0x2000, .rkey = RKEY_B });
	/* Later, on its own: the next request takes PSN p+4. */
	post(r, A, 200000, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 16 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_READ_REQ), 2);
	unsigned q1 = next_dir(r, 0, A), q2 = next_dir(r, q1 + 1, A);
	ck_assert(q2 < r->n);
	const struct rec *re = &r->f[q2];
	/* Asked again from the missing PSN, the RETH moved by one PMTU. */
	ck_assert_uint_eq(opc(re), OP_READ_REQ);
	ck_assert_uint_eq(re->p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(re->p.ext.reth.va, VA_B + 0x2000 + PMTU);
	ck_assert_uint_eq(re->p.ext.reth.dma_len, 3 * PMTU);
	ck_assert_uint_eq(re->p.ext.reth.rkey, RKEY_B);
	/* Answered again from that PSN: First, Middle, Last with the same bytes. */
	static const uint8_t ops[3] = { OP_READ_FIRST, OP_READ_MIDDLE, OP_READ_LAST };
	unsigned j = q2, k = 0;
	while ((j = next_dir(r, j + 1, B)) < r->n && k < 3) {
		const struct rec *x = &r->f[j];
		if (x->p.bth.psn == PSN_A + 3 && opc(x) == OP_READ_LAST && k == 0)
			continue;	/* the first series' Last, still on its way */
		ck_assert_uint_eq(opc(x), ops[k]);
		ck_assert_uint_eq(x->p.bth.psn, PSN_A + 1 + k);
		ck_assert_uint_eq(x->p.payload_len, PMTU);
		ck_assert_mem_eq(payload(x), r->before[B] + 0x2000 + (1 + k) * PMTU, PMTU);
		k++;
	}
	ck_assert_uint_eq(k, 3);
	/* The first series' Middle (p+2) carried the same bytes as its replay. */
	for (unsigned a = 0; a < r->n; a++)
		for (unsigned b = a + 1; b < r->n; b++)
			if (r->f[a].dir == B && r->f[b].dir == B && opc(&r->f[a]) != OP_ACK &&
			    r->f[a].p.bth.psn == r->f[b].p.bth.psn && opc(&r->f[b]) != OP_ACK)
				ck_assert_mem_eq(payload(&r->f[a]), payload(&r->f[b]), PMTU);
	unsigned s = next_dir(r, q2 + 1, A);
	ck_assert(s < r->n);
	ck_assert_uint_eq(opc(&r->f[s]), OP_SEND_ONLY);
	ck_assert_uint_eq(r->f[s].p.bth.psn, PSN_A + 4);
	ck_assert_mem_eq(mem(r, A) + 0x1000, r->before[B] + 0x2000, 4 * PMTU);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* A whole READ request lost: the timer asks again, same PSN and RETH. */
START_TEST(read_request_lost)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, A, 1, 1);
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0, .length = 2000,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_READ_REQ), 2);
	unsigned q1 = next_dir(r, 0, A), q2 = next_dir(r, q1 + 1, A);
	ck_assert_uint_eq(r->f[q2].p.bth.psn, PSN_A);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.va, VA_B + 0x100);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.dma_len, 2000);
	ck_assert_int_ge(r->f[q2].t - r->f[q1].t, TIMEOUT_NS);
	ck_assert_mem_eq(mem(r, A), r->before[B] + 0x100, 2000);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* An atomic ACK lost: the atomic is resent, the responder answers from its saved result and does not add twice. */
START_TEST(atomic_ack_lost)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, B, 1, 1);
	start(r);
	poke_le64(r, B, 0x100, 1000);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_FETCH_ADD, .local_offset = 0x40,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B, .swap_add = 7 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_FETCH_ADD), 2);
	ck_assert_uint_eq(peek_le64(mem(r, B) + 0x100), 1007);
	ck_assert_uint_eq(peek_le64(mem(r, A) + 0x40), 1000);
	unsigned j = next_dir(r, 0, B);
	ck_assert(j < r->n);
	ck_assert_uint_eq(opc(&r->f[j]), OP_ATOMIC_ACK);
	ck_assert_uint_eq(r->f[j].p.ext.atomic_ack_orig, 1000);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ---- 11. Link duplicate of a request ---- */

START_TEST(link_duplicate_request)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DUPLICATE, A, 1, 1);	/* the First of a 3-packet SEND arrives twice */
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2500 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(rt_sim_link_stats(r->sim, A)->duplicated, 1);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, B))->duplicates, 1);
	/* The duplicate First came when p+1 was expected: re-ACK with p; then the message's ACK, p+2. */
	unsigned j = next_dir(r, 0, B);
	ck_assert(j < r->n && is_ack(&r->f[j]));
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A);
	j = next_dir(r, j + 1, B);
	ck_assert(j < r->n && is_ack(&r->f[j]));
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(count_dir(r, B), 2);
	ck_assert_uint_eq(count_dir(r, A), 3);	/* nothing resent */
	ck_assert_uint_eq(r->nwc[B], 1);	/* not delivered twice */
	expect_recv(r, 0, 1, r->before[A], 2500);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* A duplicated WRITE Only: written once (the second copy would write the same bytes; the MSN tells). */
START_TEST(link_duplicate_write)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DUPLICATE, A, 1, 1);
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 64,
					   .remote_va = VA_B, .rkey = RKEY_B });
	post(r, A, 5000, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .local_offset = 64, .length = 64,
					      .remote_va = VA_B + 64, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* ACK p (MSN 1), re-ACK p for the duplicate (MSN still 1), ACK p+1 (MSN 2). */
	unsigned msn_max = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B) {
			ck_assert(is_ack(&r->f[j]));
			if (r->f[j].p.bth.psn == PSN_A)
				ck_assert_uint_eq(r->f[j].p.ext.aeth.msn, 1);
			if (r->f[j].p.ext.aeth.msn > msn_max)
				msn_max = r->f[j].p.ext.aeth.msn;
		}
	ck_assert_uint_eq(msn_max, 2);
	ck_assert_uint_eq(count_dir(r, B), 3);
	ck_assert_mem_eq(mem(r, B), r->before[A], 128);
	finish(r);
}
END_TEST

/* ---- 12. Reorder, delay, corrupt ---- */

START_TEST(reorder_request)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_B;	/* a's frames as they arrive at b, b's as sent */
	add_fault(r, RT_FAULT_REORDER, A, 2, 2);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 4 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* b saw p, p+2, p+1: the first out-of-order packet gets a NAK sequence error for p+1. */
	unsigned a1 = next_dir(r, 0, A), a2 = next_dir(r, a1 + 1, A), a3 = next_dir(r, a2 + 1, A);
	ck_assert_uint_eq(r->f[a1].p.bth.psn, PSN_A);
	ck_assert_uint_eq(r->f[a2].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(r->f[a3].p.bth.psn, PSN_A + 1);
	unsigned nak = next_dir(r, 0, B);
	ck_assert(nak < r->n && is_nak(&r->f[nak], SYN_NAK_SEQ));
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(rt_sim_link_stats(r->sim, A)->reordered, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 1, r->before[A], 4 * PMTU);
	finish(r);
}
END_TEST

START_TEST(delay_request)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_RECEIVER;
	r->cfg.faults[0] = (struct rt_fault){ .kind = RT_FAULT_DELAY, .dir = A, .first = 1, .last = 1, .delay_ns = 20000 };
	r->cfg.n_faults = 1;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_dir(r, A), 1);	/* well inside the ACK timeout: not resent */
	ck_assert_int_ge(r->f[0].t, 20000 + r->cfg.delay_ns);
	ck_assert_uint_eq(rt_sim_link_stats(r->sim, A)->delayed, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 100);
	finish(r);
}
END_TEST

/* Delaying the First past the rest of its message: NAK for p, go back, the message arrives whole. */
START_TEST(delay_first_past_rest)
{
	struct run *r = setup();
	r->cfg.faults[0] = (struct rt_fault){ .kind = RT_FAULT_DELAY, .dir = A, .first = 1, .last = 1, .delay_ns = 5000 };
	r->cfg.n_faults = 1;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_ge(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 1, r->before[A], 3 * PMTU);
	finish(r);
}
END_TEST

START_TEST(corrupt_request)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_B;
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_CORRUPT, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* The corrupted frame reached b with a bad ICRC ... */
	const struct rec *bad = &r->f[0];
	ck_assert_uint_eq(bad->dir, A);
	ck_assert(bad->faulted);
	ck_assert_int_eq(rt_icrc_check(&bad->p), RT_ICRC_BAD);
	/* ... and b said nothing until the retransmission came, a timeout later. */
	unsigned second = next_dir(r, 1, A);
	ck_assert(second < r->n);
	ck_assert_int_ge(r->f[second].t - bad->t, TIMEOUT_NS);
	unsigned first_b = next_dir(r, 0, B);
	ck_assert_uint_gt(first_b, second);
	ck_assert(is_ack(&r->f[first_b]));
	ck_assert_uint_eq(r->f[first_b].p.bth.psn, PSN_A);
	ck_assert_uint_eq(count_dir(r, B), 1);
	ck_assert_uint_ge(rt_qp_stats(qp_of(r, B))->dropped, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 1, r->before[A], 100);
	finish(r);
}
END_TEST

/* A corrupted Middle: dropped silently, so the Last is out of order and gets the NAK for the Middle's PSN. */
START_TEST(corrupt_middle_request)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_B;
	add_fault(r, RT_FAULT_CORRUPT, A, 2, 2);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = next_dir(r, 0, B);
	ck_assert(is_nak(&r->f[nak], SYN_NAK_SEQ));
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 1);
	/* No ACK covers p+1 before the good copy arrived. */
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B && is_ack(&r->f[j]))
			ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 3 * PMTU);
	finish(r);
}
END_TEST

/* ---- 13. Fatal NAKs ---- */

START_TEST(write_wrong_rkey)
{
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 100,
					   .remote_va = VA_B, .rkey = 0xbad });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 100,
					   .remote_va = VA_B, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_dir(r, B), 1);
	unsigned nak = next_dir(r, 0, B);
	ck_assert(is_nak(&r->f[nak], SYN_NAK_ACCESS));
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A);
	/* No request after the NAK. */
	ck_assert_uint_eq(next_dir(r, nak + 1, A), r->n);
	ck_assert_uint_eq(r->nwc[A], 3);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_ACCESS_ERROR);
	expect_wc(r, A, 1, 2, RT_WC_FLUSHED);
	expect_wc(r, A, 2, 3, RT_WC_FLUSHED);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_ERROR);
	/* b's receives flushed; its memory untouched. */
	ck_assert_uint_eq(r->nwc[B], 2);
	expect_wc(r, B, 0, 1, RT_WC_FLUSHED);
	expect_wc(r, B, 1, 2, RT_WC_FLUSHED);
	ck_assert_mem_eq(mem(r, B), r->before[B], MEM_SIZE);
	/* Both refuse new work now. */
	struct rt_error err = { { 0 } };
	struct rt_recv_wr rv = { .wr_id = 5 };
	ck_assert_int_eq(rt_qp_post_recv(qp_of(r, B), &rv, &err), -1);
	ck_assert_str_ne(err.msg, "");
	finish(r);
}
END_TEST

/* Out of bounds (WRITE past the region's end, READ with a wrong R_Key): NAK remote access error too. */
START_TEST(access_bounds)
{
	for (unsigned c = 0; c < 2; c++) {
		struct run *r = setup();
		start(r);
		struct rt_send_wr wr = c == 0 ? (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .length = 100,
								     .remote_va = VA_B + MEM_SIZE - 50, .rkey = RKEY_B }
					      : (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .length = 100,
								     .remote_va = VA_B, .rkey = RKEY_A };
		post(r, A, 0, wr);
		ck_assert_int_eq(go(r), RT_SIM_IDLE);
		check_sane(r);
		ck_assert_uint_eq(count_nak(r, SYN_NAK_ACCESS), 1);
		ck_assert_uint_eq(count_dir(r, B), 1);
		expect_wc(r, A, 0, 1, RT_WC_REMOTE_ACCESS_ERROR);
		ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
		ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_ERROR);
		ck_assert_mem_eq(mem(r, B), r->before[B], MEM_SIZE);
		finish(r);
	}
}
END_TEST

/*
 * op_error_msg 2: the responder's second message meets an internal failure:
 * NAK remote operational error with that message's first PSN; the first
 * WRITE is placed, the second and third are not.
 */
START_TEST(remote_operational_error)
{
	struct run *r = setup();
	r->cfg.node[B].op_error_msg = 2;
	start(r);
	for (uint64_t id = 1; id <= 3; id++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = id, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 100,
						   .remote_va = VA_B + (id - 1) * 100, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_OPERATIONAL), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_OPERATIONAL))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, (PSN_A + 1) & 0xFFFFFF);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_REMOTE_OPERATIONAL_ERROR);
	expect_wc(r, A, 2, 3, RT_WC_FLUSHED);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_ERROR);
	ck_assert_mem_eq(mem(r, B), mem(r, A), 100);
	ck_assert_mem_eq(mem(r, B) + 100, r->before[B] + 100, 200);
	finish(r);
}
END_TEST

/* A SEND bigger than the receive buffer: NAK invalid request, a local length error on the receive. */
START_TEST(send_too_long_for_buffer)
{
	struct run *r = setup();
	r->cfg.node[B].recv_size = 1024;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2000 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	expect_wc(r, B, 0, 1, RT_WC_LOCAL_LENGTH_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, A)), RT_QPS_ERROR);
	ck_assert_int_eq(rt_qp_state(qp_of(r, B)), RT_QPS_ERROR);
	finish(r);
}
END_TEST

/* ---- 14. UC and UD ---- */

START_TEST(uc_write)
{
	struct run *r = setup();
	r->cfg.node[A].transport = r->cfg.node[B].transport = RT_TRANSPORT_UC;
	start(r);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0x100, .length = 2500,
				 .remote_va = VA_B + 0x800, .rkey = RKEY_B };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);	/* 0x26, 0x27, 0x28 */
	ck_assert_uint_eq(count_dir(r, A), 3);
	ck_assert_uint_eq(count_dir(r, B), 0);	/* no ACKs at all */
	ck_assert_mem_eq(mem(r, B) + 0x800, r->before[A] + 0x100, 2500);
	ck_assert_uint_eq(r->nwc[A], 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	/* Completed on send: no later than the Last left a. */
	ck_assert_int_le(r->wc[A][0].time_ns, r->f[i - 1].t);
	finish(r);
}
END_TEST

/* UC: a lost packet loses its message (no retransmission); the next message arrives. */
START_TEST(uc_loss_drops_message)
{
	struct run *r = setup();
	r->cfg.node[A].transport = r->cfg.node[B].transport = RT_TRANSPORT_UC;
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x4000, .length = 200 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_dir(r, A), 4);
	ck_assert_uint_eq(count_dir(r, B), 0);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	ck_assert_uint_eq(r->wc[B][0].byte_len, 200);
	ck_assert_mem_eq(rt_qp_recv_memory(qp_of(r, B)) + r->wc[B][0].recv_offset, r->before[A] + 0x4000, 200);
	finish(r);
}
END_TEST

START_TEST(ud_send)
{
	struct run *r = setup();
	r->cfg.node[A].transport = r->cfg.node[B].transport = RT_TRANSPORT_UD;
	r->cfg.node[A].qkey = r->cfg.node[B].qkey = 0x22220001;
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0x10, .length = 200 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND_IMM, .local_offset = 0x400, .length = PMTU,
					   .imm = 0x0badf00d });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_dir(r, A), 2);
	ck_assert_uint_eq(count_dir(r, B), 0);
	static const uint8_t ops[2] = { OP_UD_SEND_ONLY, OP_UD_SEND_ONLY_IMM };
	static const uint32_t lens[2] = { 200, PMTU };
	for (unsigned k = 0; k < 2; k++) {
		const struct rec *x = &r->f[k];
		ck_assert_uint_eq(opc(x), ops[k]);
		ck_assert(has(x, RT_EXT_DETH));
		ck_assert_uint_eq(x->p.ext.deth.qkey, 0x22220001);
		ck_assert_uint_eq(x->p.ext.deth.src_qp, QPN_A);
		ck_assert_uint_eq(x->p.bth.dest_qp, QPN_B);
		ck_assert_uint_eq(x->p.payload_len, lens[k]);
	}
	ck_assert_uint_eq(r->f[1].p.ext.imm, 0x0badf00d);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 2);
	expect_recv(r, 0, 1, r->before[A] + 0x10, 200);
	expect_recv(r, 1, 2, r->before[A] + 0x400, PMTU);
	ck_assert(r->wc[B][1].with_imm);
	ck_assert_uint_eq(r->wc[B][1].imm, 0x0badf00d);
	finish(r);
}
END_TEST

/* UD: a wrong Q_Key, or no receive posted, loses the message silently. */
START_TEST(ud_wrong_qkey_or_no_buffer)
{
	struct run *r = setup();
	r->cfg.node[A].transport = r->cfg.node[B].transport = RT_TRANSPORT_UD;
	r->cfg.node[A].qkey = 0x1;
	r->cfg.node[B].qkey = 0x2;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 20 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(r->nwc[B], 0);
	ck_assert_uint_eq(count_dir(r, B), 0);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);

	r = setup();
	r->cfg.node[A].transport = r->cfg.node[B].transport = RT_TRANSPORT_UD;
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 20 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(r->nwc[B], 0);
	ck_assert_uint_eq(count_dir(r, B), 0);
	finish(r);
}
END_TEST

/* ---- 15. ACK coalescing ---- */

START_TEST(ack_coalescing)
{
	struct run *r = setup();
	r->cfg.node[A].ackreq_every = 1;
	r->cfg.node[B].ack_every = 4;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 10 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned reqs = 0, acks = 0;
	for (unsigned j = 0; j < r->n; j++) {
		const struct rec *x = &r->f[j];
		if (x->dir == A) {
			reqs++;
			ck_assert_msg(x->p.bth.ack_req, "frame %u: ackreq_every 1 but no AckReq", j + 1);
			/* Covered by a later ACK. */
			bool covered = false;
			for (unsigned k = j + 1; k < r->n && !covered; k++)
				covered = r->f[k].dir == B && is_ack(&r->f[k]) && psn_diff(r->f[k].p.bth.psn, x->p.bth.psn) >= 0;
			ck_assert_msg(covered, "frame %u (PSN 0x%x) never acknowledged", j + 1, x->p.bth.psn);
		} else {
			ck_assert(is_ack(x));
			acks++;
		}
	}
	ck_assert_uint_eq(reqs, 10);
	ck_assert_uint_ge(acks, 1);
	ck_assert_uint_lt(acks, reqs);
	ck_assert_uint_le(acks, 4);	/* 10 AckReqs, one ACK per 4 (and the rest after the delay) */
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 10 * PMTU);
	finish(r);
}
END_TEST

/* ackreq_every 3: AckReq on every third packet and on the Last. */
START_TEST(ackreq_every_n)
{
	struct run *r = setup();
	r->cfg.node[A].ackreq_every = 3;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 7 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned k = 0, with = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == A) {
			k++;
			with += r->f[j].p.bth.ack_req;
			if (k == 7)
				ck_assert(r->f[j].p.bth.ack_req);
		}
	ck_assert_uint_eq(k, 7);
	ck_assert_uint_ge(with, 3);	/* 3, 6 and the Last */
	ck_assert_uint_le(with, 4);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ---- 16. CNP ---- */

START_TEST(cnp_on_ce)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_B;	/* a's frames as they arrive (marked), b's as sent */
	add_fault(r, RT_FAULT_MARK_CE, A, 1, 3);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	/* Marked CE, the ICRC still good (it does not cover ECN). */
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == A) {
			ck_assert(r->f[j].faulted);
			ck_assert_uint_eq(r->f[j].p.tos & 3, 3);
			ck_assert_int_eq(rt_icrc_check(&r->f[j].p), RT_ICRC_OK);
		}
	/* One CNP (at most one per 50 us), to the sender's QP: 0x81, BECN, PSN 0, no AckReq, 16 zero bytes. */
	ck_assert_uint_eq(count_op(r, B, OP_CNP), 1);
	unsigned c = 0;
	while (c < r->n && opc(&r->f[c]) != OP_CNP)
		c++;
	const struct rec *x = &r->f[c];
	ck_assert_uint_eq(x->p.bth.dest_qp, QPN_A);
	ck_assert(x->p.bth.becn);
	ck_assert_uint_eq(x->p.bth.psn, 0);
	ck_assert(!x->p.bth.ack_req);
	ck_assert_uint_eq(x->p.payload_len, 16);
	ck_assert_uint_eq(x->p.udp_len, 40);
	static const uint8_t zeros[16];
	ck_assert_mem_eq(payload(x), zeros, 16);
	ck_assert_int_eq(rt_icrc_check(&x->p), RT_ICRC_OK);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->cnps_received, 1);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, B))->cnps_sent, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 3 * PMTU);
	finish(r);
}
END_TEST

START_TEST(cnp_requested)
{
	struct run *r = setup();
	start(r);
	cnp_at(r, A, 0);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(r->n, 1);
	const struct rec *x = &r->f[0];
	ck_assert_uint_eq(x->dir, A);
	ck_assert_uint_eq(opc(x), OP_CNP);
	ck_assert_uint_eq(x->p.bth.dest_qp, QPN_B);
	ck_assert(x->p.bth.becn);
	ck_assert_uint_eq(x->p.bth.psn, 0);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, B))->cnps_received, 1);
	ck_assert_uint_eq(r->nwc[A] + r->nwc[B], 0);
	finish(r);
}
END_TEST

START_TEST(cnp_disabled)
{
	struct run *r = setup();
	r->cfg.node[B].send_cnp = false;
	add_fault(r, RT_FAULT_MARK_CE, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(count_op(r, B, OP_CNP), 0);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ---- 17. Determinism ---- */

static void busy_run(struct run *r)
{
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	add_fault(r, RT_FAULT_DUPLICATE, B, 1, 1);
	add_fault(r, RT_FAULT_REORDER, A, 6, 6);
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	poke_le64(r, B, 0x100, 5);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 5000 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .local_offset = 0x2000, .length = 3000,
					   .remote_va = VA_B + 0x4000, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_READ, .local_offset = 0x6000, .length = 4000,
					   .remote_va = VA_B + 0x8000, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 4, .opcode = RT_WR_FETCH_ADD, .local_offset = 0x9000,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B, .swap_add = 1 });
	post(r, B, 0, (struct rt_send_wr){ .wr_id = 5, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 2000,
					   .remote_va = VA_A + 0xA000, .rkey = RKEY_A });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
}

START_TEST(deterministic)
{
	struct run *r1 = setup_run(0);
	busy_run(r1);
	struct run *r2 = setup_run(1);
	busy_run(r2);
	ck_assert_uint_gt(r1->n, 10);
	ck_assert_uint_eq(r1->n, r2->n);
	for (unsigned j = 0; j < r1->n; j++) {
		ck_assert_msg(r1->f[j].t == r2->f[j].t, "frame %u: time %lld vs %lld", j + 1, (long long)r1->f[j].t,
			      (long long)r2->f[j].t);
		ck_assert_uint_eq(r1->f[j].dir, r2->f[j].dir);
		ck_assert_uint_eq(r1->f[j].len, r2->f[j].len);
		ck_assert_mem_eq(r1->f[j].data, r2->f[j].data, r1->f[j].len);
	}
	ck_assert_uint_eq(r1->nwc[A], r2->nwc[A]);
	ck_assert_uint_eq(r1->nwc[B], r2->nwc[B]);
	for (unsigned n = 0; n < 2; n++)
		for (unsigned k = 0; k < r1->nwc[n]; k++) {
			ck_assert_uint_eq(r1->wc[n][k].wr_id, r2->wc[n][k].wr_id);
			ck_assert_int_eq(r1->wc[n][k].status, r2->wc[n][k].status);
			ck_assert_int_eq(r1->wc[n][k].time_ns, r2->wc[n][k].time_ns);
		}
	/* And everything worked despite the faults. */
	for (unsigned k = 0; k < r1->nwc[A]; k++)
		ck_assert_int_eq(r1->wc[A][k].status, RT_WC_SUCCESS);
	ck_assert_uint_eq(r1->nwc[A], 4);
	ck_assert_mem_eq(mem(r1, B) + 0x4000, r1->before[A] + 0x2000, 3000);
	ck_assert_mem_eq(mem(r1, A) + 0x6000, r1->before[B] + 0x8000, 4000);
	ck_assert_mem_eq(mem(r1, A) + 0xA000, r1->before[B], 2000);
	ck_assert_uint_eq(peek_le64(mem(r1, B) + 0x100), 6);
	finish(r1);
	finish(r2);
}
END_TEST

/* A different seed fills memory differently (so frames carry other bytes), same timing. */
START_TEST(seed_changes_bytes_only)
{
	struct run *r1 = setup_run(0);
	start(r1);
	recv_at(r1, B, 0, 1);
	post(r1, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r1), RT_SIM_IDLE);
	struct run *r2 = setup_run(1);
	r2->cfg.seed = 99;
	start(r2);
	recv_at(r2, B, 0, 1);
	post(r2, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r2), RT_SIM_IDLE);
	ck_assert_uint_eq(r1->n, r2->n);
	ck_assert_int_eq(r1->f[0].t, r2->f[0].t);
	ck_assert(memcmp(payload(&r1->f[0]), payload(&r2->f[0]), 64) != 0);
	finish(r1);
	finish(r2);
}
END_TEST

/* ---- Other addressing: IPv6 and a VLAN tag ---- */

START_TEST(ipv6_vlan)
{
	struct run *r = setup();
	for (unsigned i = 0; i < 2; i++) {
		struct rt_qp_config *q = &r->cfg.node[i];
		static const uint8_t ip6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
		q->ip_version = 6;
		memcpy(q->ip, ip6, 16);
		memcpy(q->peer_ip, ip6, 16);
		q->ip[15] = (uint8_t)(1 + i);
		q->peer_ip[15] = (uint8_t)(2 - i);
		q->vlan = true;
		q->vlan_tci = 100;
	}
	start(r);
	recv_at(r, B, 0, 1);
	struct rt_send_wr wr = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2000 };
	post(r, A, 0, wr);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	for (unsigned j = 0; j < r->n; j++) {
		ck_assert_uint_eq(r->f[j].p.ip_version, 6);
		ck_assert_uint_eq(r->f[j].p.vlan_count, 1);
		ck_assert_uint_eq(r->f[j].p.vlan_tci[0] & 0xFFF, 100);
	}
	unsigned i = 0;
	expect_message(r, &i, PSN_A, &wr);
	expect_recv(r, 0, 1, r->before[A], 2000);
	finish(r);
}
END_TEST

/* Both directions at once: each end is requester and responder. */
START_TEST(bidirectional)
{
	struct run *r = setup();
	start(r);
	recv_at(r, A, 0, 100);
	recv_at(r, B, 0, 200);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3000 });
	post(r, B, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x100, .length = 2500 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(r->nwc[A], 2);
	ck_assert_uint_eq(r->nwc[B], 2);
	/* PSN spaces are separate: b's requests start at its own sq_psn. */
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B && is_request(&r->f[j]))
			ck_assert_int_ge(psn_diff(r->f[j].p.bth.psn, PSN_B), 0);
	for (unsigned k = 0; k < 2; k++) {
		const struct rt_wc *wa = &r->wc[A][k], *wb = &r->wc[B][k];
		ck_assert_int_eq(wa->status, RT_WC_SUCCESS);
		ck_assert_int_eq(wb->status, RT_WC_SUCCESS);
		if (wa->opcode == RT_WR_RECV)
			ck_assert_mem_eq(rt_qp_recv_memory(qp_of(r, A)) + wa->recv_offset, r->before[B] + 0x100, 2500);
		if (wb->opcode == RT_WR_RECV)
			ck_assert_mem_eq(rt_qp_recv_memory(qp_of(r, B)) + wb->recv_offset, r->before[A], 3000);
	}
	finish(r);
}
END_TEST

/* ---- More recovery and flow control ---- */

/*
 * window 2: never more than 2 request PSNs sent and not yet acknowledged,
 * between the packets of one message too, not only between messages.
 */
START_TEST(window_limits_new_packets_within_a_message)
{
	struct run *r = setup();
	r->cfg.node[A].window = 2;
	r->cfg.node[A].ackreq_every = 1;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 8 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	uint32_t una = PSN_A;	/* oldest PSN not acknowledged, as a sees it */
	for (unsigned j = 0; j < r->n; j++) {
		const struct rec *x = &r->f[j];
		if (x->dir == B && is_ack(x) && psn_diff(psn_add(x->p.bth.psn, 1), una) > 0)
			una = psn_add(x->p.bth.psn, 1);
		if (x->dir == A)
			ck_assert_msg(psn_diff(x->p.bth.psn, una) < 2, "frame %u: PSN 0x%x sent with 0x%x unacknowledged",
				      j + 1, x->p.bth.psn, una);
	}
	ck_assert_uint_eq(count_dir(r, A), 8);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 8 * PMTU);
	finish(r);
}
END_TEST

/* max_rd_atomic 1: the second READ waits until the first has all its responses. */
START_TEST(max_rd_atomic_one)
{
	struct run *r = setup();
	r->cfg.node[A].max_rd_atomic = 1;
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0, .length = 3 * PMTU,
					   .remote_va = VA_B, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_READ, .local_offset = 0x4000, .length = 2 * PMTU,
					   .remote_va = VA_B + 0x4000, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned q1 = next_dir(r, 0, A), q2 = next_dir(r, q1 + 1, A);
	ck_assert(q2 < r->n);
	ck_assert_uint_eq(r->f[q2].p.bth.psn, PSN_A + 3);
	unsigned last = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B && opc(&r->f[j]) == OP_READ_LAST && r->f[j].p.bth.psn == PSN_A + 2)
			last = j;
	ck_assert_uint_gt(q2, last);
	ck_assert_mem_eq(mem(r, A), r->before[B], 3 * PMTU);
	ck_assert_mem_eq(mem(r, A) + 0x4000, r->before[B] + 0x4000, 2 * PMTU);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* Two READs back to back: PSNs p (2 responses) and p+2 (3 responses). */
START_TEST(two_reads_pipelined)
{
	struct run *r = setup();
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0, .length = 2 * PMTU,
					   .remote_va = VA_B, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_READ, .local_offset = 0x4000, .length = 3 * PMTU - 7,
					   .remote_va = VA_B + 0x4000, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned q1 = next_dir(r, 0, A), q2 = next_dir(r, q1 + 1, A);
	ck_assert_uint_eq(r->f[q1].p.bth.psn, PSN_A);
	ck_assert_uint_eq(r->f[q2].p.bth.psn, PSN_A + 2);
	static const uint8_t ops[5] = { OP_READ_FIRST, OP_READ_LAST, OP_READ_FIRST, OP_READ_MIDDLE, OP_READ_LAST };
	unsigned k = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == B) {
			ck_assert_uint_lt(k, 5);
			ck_assert_uint_eq(opc(&r->f[j]), ops[k]);
			ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + k);
			k++;
		}
	ck_assert_uint_eq(k, 5);
	ck_assert_mem_eq(mem(r, A), r->before[B], 2 * PMTU);
	ck_assert_mem_eq(mem(r, A) + 0x4000, r->before[B] + 0x4000, 3 * PMTU - 7);
	finish(r);
}
END_TEST

/* A lost READ response with a SEND behind the READ: whatever is asked again, the outcome is right. */
START_TEST(read_response_lost_send_behind)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, B, 2, 2);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 4 * PMTU,
					   .remote_va = VA_B + 0x2000, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 16 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned rereq = 0;
	for (unsigned j = next_dir(r, 0, A) + 1; j < r->n; j++)
		if (r->f[j].dir == A && opc(&r->f[j]) == OP_READ_REQ) {
			/* From the missing response, RETH moved along. */
			ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 1);
			ck_assert_uint_eq(r->f[j].p.ext.reth.va, VA_B + 0x2000 + PMTU);
			ck_assert_uint_eq(r->f[j].p.ext.reth.dma_len, 3 * PMTU);
			rereq++;
		}
	ck_assert_uint_ge(rereq, 1);
	ck_assert_mem_eq(mem(r, A) + 0x1000, r->before[B] + 0x2000, 4 * PMTU);
	ck_assert_uint_eq(r->nwc[A], 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 1, r->before[A], 16);
	finish(r);
}
END_TEST

/* The NAK itself lost: the requester's timer recovers. */
START_TEST(lost_nak)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	add_fault(r, RT_FAULT_DROP, B, 1, 1);	/* b's first frame: the NAK */
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 1);
	expect_recv(r, 0, 1, r->before[A], 3 * PMTU);
	finish(r);
}
END_TEST

/* A loss right after the PSN wrap: the NAK carries PSN 0 and the resend starts there. */
START_TEST(psn_wrap_nak)
{
	struct run *r = setup();
	r->cfg.node[A].sq_psn = r->cfg.node[B].rq_psn = 0xFFFFFE;
	add_fault(r, RT_FAULT_DROP, A, 3, 3);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 5 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, 0);
	unsigned j = next_dir(r, nak + 1, A);
	ck_assert(j < r->n);
	ck_assert_uint_eq(r->f[j].p.bth.psn, 0);
	ck_assert_uint_eq(opc(&r->f[j]), OP_SEND_MIDDLE);
	ck_assert_uint_eq(count_psn(r, A, 0xFFFFFE), 1);
	ck_assert_uint_eq(count_psn(r, A, 0xFFFFFF), 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 5 * PMTU);
	finish(r);
}
END_TEST

/* Coalescing holds an ACK back at most ack_delay_ns. */
START_TEST(ack_delay)
{
	struct run *r = setup();
	r->cfg.tap = RT_TAP_B;
	r->cfg.node[B].ack_every = 4;
	r->cfg.node[B].ack_delay_ns = 30000;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(r->n, 2);
	ck_assert(is_ack(&r->f[1]));
	ck_assert_int_eq(r->f[1].t - r->f[0].t, 30000);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ACKs carry the configured credit code. */
START_TEST(ack_credits)
{
	struct run *r = setup();
	r->cfg.node[B].ack_credits = 5;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert(is_ack(&r->f[r->n - 1]));
	ck_assert_uint_eq(syn(&r->f[r->n - 1]), 0x05);
	finish(r);
}
END_TEST

/* RNR on a WRITE with immediate (it needs a receive); a second message queued behind waits its turn. */
START_TEST(rnr_write_imm_and_queue)
{
	struct run *r = setup();
	r->cfg.node[B].min_rnr_timer = 2;	/* 20 us */
	start(r);
	recv_at(r, B, 50000, 1);
	recv_at(r, B, 50000, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE_IMM, .local_offset = 0, .length = 2 * PMTU,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B, .imm = 9 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x3000, .length = 300 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned rnrs = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (is_rnr(&r->f[j])) {
			ck_assert_uint_eq(syn(&r->f[j]), SYN_RNR | 2);
			rnrs++;
		}
	ck_assert_uint_ge(rnrs, 1);
	ck_assert_mem_eq(mem(r, B) + 0x100, r->before[A], 2 * PMTU);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 2);
	expect_wc(r, B, 0, 1, RT_WC_SUCCESS);
	ck_assert(r->wc[B][0].with_imm);
	ck_assert_uint_eq(r->wc[B][0].imm, 9);
	expect_recv(r, 1, 2, r->before[A] + 0x3000, 300);
	finish(r);
}
END_TEST

/* The retry count starts again after progress: two separate losses with retry_cnt 1 both recover. */
START_TEST(retry_count_resets)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	r->cfg.node[A].retry_cnt = 1;
	add_fault(r, RT_FAULT_DROP, A, 1, 1);
	add_fault(r, RT_FAULT_DROP, A, 3, 3);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 5 * TIMEOUT_NS, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 2);
	finish(r);
}
END_TEST

/* The rings wrap: 2 receive buffers and a send queue of 3 carry 6 messages in turns. */
START_TEST(rings_wrap)
{
	struct run *r = setup();
	r->cfg.node[B].rq_depth = 2;
	r->cfg.node[B].recv_size = 2048;
	r->cfg.node[A].sq_depth = 3;
	start(r);
	for (unsigned k = 0; k < 6; k++) {
		int64_t at = (int64_t)(k / 2) * 100000;
		recv_at(r, B, at, 10 + k);
		post(r, A, at, (struct rt_send_wr){ .wr_id = 1 + k, .opcode = RT_WR_SEND, .local_offset = 1000 * k,
						    .length = 1500 + k });
	}
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(r->nwc[A], 6);
	ck_assert_uint_eq(r->nwc[B], 6);
	for (unsigned k = 0; k < 6; k++) {
		expect_wc(r, A, k, 1 + k, RT_WC_SUCCESS);
		expect_wc(r, B, k, 10 + k, RT_WC_SUCCESS);
		ck_assert_uint_eq(r->wc[B][k].byte_len, 1500 + k);
		/* Buffers are taken in ring order: slot 0, 1, 0, 1, ... */
		ck_assert_uint_eq(r->wc[B][k].recv_offset, (k % 2) * 2048);
	}
	/* The last two messages are still in the ring (the earlier ones were overwritten by design). */
	expect_recv(r, 4, 14, r->before[A] + 4000, 1504);
	expect_recv(r, 5, 15, r->before[A] + 5000, 1505);
	finish(r);
}
END_TEST

/* IPv6: CE is in the traffic class; the CNP still comes. */
START_TEST(cnp_ipv6)
{
	struct run *r = setup();
	for (unsigned i = 0; i < 2; i++) {
		struct rt_qp_config *q = &r->cfg.node[i];
		q->ip_version = 6;
		memset(q->ip, 0, 16);
		memset(q->peer_ip, 0, 16);
		q->ip[0] = q->peer_ip[0] = 0xfd;
		q->ip[15] = (uint8_t)(1 + i);
		q->peer_ip[15] = (uint8_t)(2 - i);
	}
	r->cfg.tap = RT_TAP_B;
	add_fault(r, RT_FAULT_MARK_CE, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(r->f[0].p.tos & 3, 3);
	ck_assert_int_eq(rt_icrc_check(&r->f[0].p), RT_ICRC_OK);
	ck_assert_uint_eq(count_op(r, B, OP_CNP), 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* A NAK sequence error acknowledges everything before its PSN: the first message completes on it. */
START_TEST(nak_acknowledges_before)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, B, 1, 1);	/* the first message's ACK */
	add_fault(r, RT_FAULT_DROP, A, 2, 2);	/* the second message's only packet */
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	recv_at(r, B, 0, 3);
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert(nak < r->n);
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(r->f[nak].p.ext.aeth.msn, 1);	/* one message done */
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	ck_assert_int_eq(r->wc[A][0].time_ns, r->f[nak].t);
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 1);	/* not resent */
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	expect_wc(r, A, 2, 3, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 3);
	finish(r);
}
END_TEST

/*
 * More completions than sq_depth + rq_depth pile up unpolled (rt_sim_run
 * gives nobody a chance to poll before it ends): all are kept, in order.
 */
START_TEST(completions_kept_until_polled)
{
	struct run *r = setup();
	r->cfg.node[A].sq_depth = 2;
	r->cfg.node[A].rq_depth = 1;
	r->cfg.node[B].sq_depth = 1;
	r->cfg.node[B].rq_depth = 2;
	start(r);
	for (unsigned k = 0; k < 5; k++) {
		recv_at(r, B, (int64_t)k * 50000, 100 + k);
		post(r, A, (int64_t)k * 50000, (struct rt_send_wr){ .wr_id = 1 + k, .opcode = RT_WR_SEND, .local_offset = 0,
								    .length = 10 });
	}
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(r->nwc[A], 5);
	ck_assert_uint_eq(r->nwc[B], 5);
	for (unsigned k = 0; k < 5; k++) {
		expect_wc(r, A, k, 1 + k, RT_WC_SUCCESS);
		expect_wc(r, B, k, 100 + k, RT_WC_SUCCESS);
	}
	finish(r);
}
END_TEST

/* The link: a frame occupies the transmitter for its wire time (FCS, preamble, gap), then the delay. */
START_TEST(link_rate_and_delay)
{
	struct run *r = setup();
	r->cfg.rate_bps = 10000000000ull;	/* 10 Gb/s */
	r->cfg.delay_ns = 5000;
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2 * PMTU });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(r->n, 3);
	/* (frame + FCS 4 + preamble 8 + gap 12) bits at 10 Gb/s, rounded up. */
	int64_t ser0 = ((int64_t)(r->f[0].len + 24) * 8 * 1000000000ll + 9999999999ll) / 10000000000ll;
	ck_assert_int_eq(r->f[1].t - r->f[0].t, ser0);
	int64_t ser1 = ((int64_t)(r->f[1].len + 24) * 8 * 1000000000ll + 9999999999ll) / 10000000000ll;
	/* The ACK left b when the Last had arrived (send + wire time + delay) and took as long again. */
	uint32_t ack_wire = (r->f[2].len + 4 < 64 ? 64 : r->f[2].len + 4) + 20;	/* at least 64 bytes with FCS */
	int64_t ack_ser = ((int64_t)ack_wire * 8 * 1000000000ll + 9999999999ll) / 10000000000ll;
	ck_assert_int_eq(r->f[2].t, r->f[1].t + ser1 + 5000 + ack_ser + 5000);
	finish(r);
}
END_TEST

/* Default ackreq_every (64): a 100-packet WRITE has AckReq at least every 64 packets and on its Last. */
START_TEST(ackreq_at_least_every_64)
{
	struct run *r = setup();
	r->cfg.node[A].pmtu = r->cfg.node[B].pmtu = 256;
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 100 * 256,
					   .remote_va = VA_B, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned since = 0, k = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == A) {
			k++;
			since++;
			if (r->f[j].p.bth.ack_req)
				since = 0;
			ck_assert_msg(since < 64, "frame %u: 64 packets without AckReq", j + 1);
		}
	ck_assert_uint_eq(k, 100);
	ck_assert_uint_eq(since, 0);	/* the Last */
	ck_assert_mem_eq(mem(r, B), r->before[A], 100 * 256);
	finish(r);
}
END_TEST

/* The last READ response lost: the timer asks again for just that one, answered with a READ Response Only. */
START_TEST(read_last_response_lost)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, B, 4, 4);
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 4 * PMTU - 100,
					   .remote_va = VA_B + 0x2000, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_READ_REQ), 2);
	unsigned q1 = next_dir(r, 0, A), q2 = next_dir(r, q1 + 1, A);
	ck_assert_uint_eq(r->f[q2].p.bth.psn, PSN_A + 3);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.va, VA_B + 0x2000 + 3 * PMTU);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.dma_len, PMTU - 100);
	unsigned x = next_dir(r, q2 + 1, B);
	ck_assert(x < r->n);
	ck_assert_uint_eq(opc(&r->f[x]), OP_READ_ONLY);
	ck_assert_uint_eq(r->f[x].p.bth.psn, PSN_A + 3);
	ck_assert_uint_eq(r->f[x].p.payload_len, PMTU - 100);
	ck_assert_mem_eq(mem(r, A) + 0x1000, r->before[B] + 0x2000, 4 * PMTU - 100);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* The RNR NAK lost: the timer resends, the next RNR NAK (or the ACK once a receive is there) follows. */
START_TEST(lost_rnr_nak)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, B, 1, 1);
	start(r);
	recv_at(r, B, 100000, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 100);
	finish(r);
}
END_TEST

/* An ACK delayed past the timeout: a spurious retransmission, re-ACKed, delivered once; the late ACK is harmless. */
START_TEST(ack_delayed_past_timeout)
{
	struct run *r = setup();
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	r->cfg.faults[0] = (struct rt_fault){ .kind = RT_FAULT_DELAY, .dir = B, .first = 1, .last = 1,
					      .delay_ns = 2 * TIMEOUT_NS };
	r->cfg.n_faults = 1;
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 2 * PMTU });
	post(r, A, 3 * TIMEOUT_NS, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0x3000, .length = 50 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 2);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, B))->duplicates, 2);
	ck_assert_uint_eq(r->nwc[A], 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	/* The second message went out at PSN p+2 as a new request, after the late ACK. */
	ck_assert_uint_eq(count_psn(r, A, PSN_A + 2), 1);
	ck_assert_uint_eq(r->nwc[B], 2);
	expect_recv(r, 0, 1, r->before[A], 2 * PMTU);
	expect_recv(r, 1, 2, r->before[A] + 0x3000, 50);
	finish(r);
}
END_TEST

/* ---- 18. Deliberate misbehaviour ---- */

/* The bug fired exactly once, on a frame of node `node`; returns that frame's index. */
static unsigned the_bug_frame(const struct run *r, enum rt_qp_bug b, unsigned node)
{
	unsigned at = 0;
	unsigned c = count_bug(r, b, &at);
	ck_assert_msg(c == 1, "%s: %u frames carry the misbehaviour, want exactly 1", rt_qp_bug_name(b), c);
	for (unsigned j = 0; j < r->n; j++)
		ck_assert_msg(r->f[j].bug == RT_BUG_NONE || r->f[j].bug == b, "frame %u: unexpected %s", j + 1,
			      rt_qp_bug_name(r->f[j].bug));
	ck_assert_uint_eq(r->f[at].dir, node);
	return at;
}

static struct run *bug_setup(unsigned node, enum rt_qp_bug b, uint32_t at)
{
	struct run *r = setup();
	r->cfg.node[node].bug = b;
	r->cfg.node[node].bug_at = at;
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	r->cfg.time_limit_ns = 100000000;
	return r;
}

START_TEST(bug_bad_icrc)
{
	struct run *r = bug_setup(A, RT_BUG_BAD_ICRC, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_BAD_ICRC, A);
	ck_assert_uint_eq(at, 0);
	ck_assert_int_eq(rt_icrc_check(&r->f[at].p), RT_ICRC_BAD);
	/* Only that bit: the ICRC the frame should have had differs in bit 0. */
	ck_assert_uint_eq(r->f[at].p.icrc_wire ^ rt_icrc_compute(&r->f[at].p), 1);
	/* The correct peer drops it silently; the timer resends. */
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

START_TEST(bug_bad_pad)
{
	struct run *r = bug_setup(A, RT_BUG_BAD_PAD, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_BAD_PAD, A);
	const struct rec *x = &r->f[at];
	ck_assert_uint_eq(x->p.bth.pad, 0);
	ck_assert_uint_ne(x->p.data_len % 4, 0);
	ck_assert_int_eq(rt_icrc_check(&x->p), RT_ICRC_OK);
	/* Length violation: NAK invalid request. */
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	finish(r);
}
END_TEST

START_TEST(bug_tver)
{
	struct run *r = bug_setup(A, RT_BUG_TVER, 2);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_TVER, A);
	ck_assert_uint_eq(r->f[at].p.bth.tver, 1);
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A + 1);	/* the second frame */
	ck_assert_int_eq(rt_icrc_check(&r->f[at].p), RT_ICRC_OK);
	unsigned tver1 = 0;
	for (unsigned j = 0; j < r->n; j++)
		tver1 += r->f[j].p.bth.tver != 0;
	ck_assert_uint_eq(tver1, 1);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

START_TEST(bug_response_ackreq)
{
	struct run *r = bug_setup(B, RT_BUG_RESPONSE_ACKREQ, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_RESPONSE_ACKREQ, B);
	ck_assert(is_ack(&r->f[at]));
	ck_assert(r->f[at].p.bth.ack_req);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

START_TEST(bug_bad_cnp)
{
	struct run *r = bug_setup(A, RT_BUG_BAD_CNP, 1);
	start(r);
	cnp_at(r, A, 0);
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_BAD_CNP, A);
	ck_assert_uint_eq(opc(&r->f[at]), OP_CNP);
	ck_assert_uint_eq(r->f[at].p.bth.psn, 1);
	finish(r);
}
END_TEST

START_TEST(bug_short_first)
{
	struct run *r = bug_setup(A, RT_BUG_SHORT_FIRST, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_SHORT_FIRST, A);
	ck_assert_uint_eq(opc(&r->f[at]), OP_SEND_FIRST);
	ck_assert_uint_eq(r->f[at].p.payload_len, PMTU / 2);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	finish(r);
}
END_TEST

START_TEST(bug_no_first)
{
	struct run *r = bug_setup(A, RT_BUG_NO_FIRST, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 3 * PMTU });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_NO_FIRST, A);
	ck_assert_uint_eq(at, 0);
	ck_assert_uint_eq(opc(&r->f[at]), OP_SEND_MIDDLE);
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A);	/* where the message starts */
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	finish(r);
}
END_TEST

START_TEST(bug_interleave)
{
	struct run *r = bug_setup(A, RT_BUG_INTERLEAVE, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 3 * PMTU,
					   .remote_va = VA_B, .rkey = RKEY_B });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_INTERLEAVE, A);
	/* A SEND between the WRITE's First and its Last. */
	ck_assert_uint_le(opc(&r->f[at]), OP_SEND_ONLY_IMM);
	ck_assert_uint_gt(at, 0);
	ck_assert_uint_eq(opc(&r->f[at - 1]), OP_WRITE_FIRST);
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A + 1);
	unsigned nx = next_dir(r, at + 1, A);
	ck_assert(nx < r->n);
	ck_assert_uint_eq(opc(&r->f[nx]), OP_WRITE_LAST);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	finish(r);
}
END_TEST

START_TEST(bug_skip_psn)
{
	struct run *r = bug_setup(A, RT_BUG_SKIP_PSN, 2);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_SKIP_PSN, A);
	ck_assert_uint_eq(at, 1);
	ck_assert_uint_eq(r->f[0].p.bth.psn, PSN_A);
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A + 2);	/* a jump of 2 */
	/* The correct peer: NAK sequence error for the PSN never used. */
	ck_assert_uint_ge(count_nak(r, SYN_NAK_SEQ), 1);
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 1);
	finish(r);
}
END_TEST

START_TEST(bug_reth_length)
{
	struct run *r = bug_setup(A, RT_BUG_RETH_LENGTH, 1);
	start(r);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_WRITE, .local_offset = 0, .length = 2500,
					   .remote_va = VA_B, .rkey = RKEY_B });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_RETH_LENGTH, A);
	ck_assert_uint_eq(opc(&r->f[at]), OP_WRITE_FIRST);
	uint32_t sum = 0;
	for (unsigned j = 0; j < r->n; j++)
		if (r->f[j].dir == A && (opc(&r->f[j]) == OP_WRITE_FIRST || opc(&r->f[j]) == OP_WRITE_MIDDLE ||
					 opc(&r->f[j]) == OP_WRITE_LAST) && r->f[j].p.bth.psn - PSN_A < 3)
			sum += r->f[j].p.payload_len;
	ck_assert_uint_eq(sum, 2500);
	ck_assert_uint_eq(r->f[at].p.ext.reth.dma_len, sum + 4);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_INVALID), 1);
	expect_wc(r, A, 0, 1, RT_WC_REMOTE_INVALID_REQUEST);
	finish(r);
}
END_TEST

/*
 * Behavioural misbehaviours (go-back-wrong, rnr-early, accept-gap,
 * nak-repeat) must also mark the frame that shows them: model.h says
 * rt_qp_next_frame sets *bug "to the misbehaviour this frame carries, so a
 * generator can name its frame" (cmd_gen.c resolves expectations to it).
 */
START_TEST(bug_go_back_wrong)
{
	struct run *r = bug_setup(A, RT_BUG_GO_BACK_WRONG, 1);
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	start(r);
	for (unsigned k = 0; k < 4; k++)
		recv_at(r, B, 0, k + 1);
	for (unsigned k = 0; k < 4; k++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = k + 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	/* The behaviour: after the NAK for p+1, the first resend is p+2 (wire-facts.md: resend from p). */
	unsigned nak = 0;
	while (nak < r->n && !is_nak(&r->f[nak], SYN_NAK_SEQ))
		nak++;
	ck_assert(nak < r->n);
	ck_assert_uint_eq(r->f[nak].p.bth.psn, PSN_A + 1);
	unsigned j = next_dir(r, nak + 1, A);
	ck_assert(j < r->n);
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A + 2);
	/* The mark: that resend carries the misbehaviour. */
	unsigned at = the_bug_frame(r, RT_BUG_GO_BACK_WRONG, A);
	ck_assert_uint_eq(at, j);
	finish(r);
}
END_TEST

START_TEST(bug_rnr_early)
{
	const uint8_t code = 4;
	struct run *r = bug_setup(A, RT_BUG_RNR_EARLY, 1);
	r->cfg.node[B].min_rnr_timer = code;
	start(r);
	recv_at(r, B, 100000, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned rnr = 0;
	while (rnr < r->n && !is_rnr(&r->f[rnr]))
		rnr++;
	ck_assert(rnr < r->n);
	unsigned j = next_dir(r, rnr + 1, A);
	ck_assert(j < r->n);
	ck_assert_int_lt(r->f[j].t - r->f[rnr].t, rnr_table_ns[code]);	/* resent too early */
	/* Only once: the next RNR NAK is waited out. */
	unsigned rnr2 = rnr + 1;
	while (rnr2 < r->n && !is_rnr(&r->f[rnr2]))
		rnr2++;
	if (rnr2 < r->n) {
		unsigned k = next_dir(r, rnr2 + 1, A);
		ck_assert(k < r->n);
		ck_assert_int_ge(r->f[k].t - r->f[rnr2].t, rnr_table_ns[code]);
	}
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	unsigned at = the_bug_frame(r, RT_BUG_RNR_EARLY, A);
	ck_assert_uint_eq(at, j);
	finish(r);
}
END_TEST

START_TEST(bug_retransmit_alter)
{
	struct run *r = bug_setup(A, RT_BUG_RETRANSMIT_ALTER, 1);
	add_fault(r, RT_FAULT_DROP, A, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_RETRANSMIT_ALTER, A);
	ck_assert_uint_eq(at, 1);
	const struct rec *o = &r->f[0], *x = &r->f[at];
	ck_assert_uint_eq(x->p.bth.psn, o->p.bth.psn);
	ck_assert_uint_eq(opc(x), opc(o));
	ck_assert_uint_eq(x->p.payload_len, o->p.payload_len);
	ck_assert(memcmp(payload(x), payload(o), 100) != 0);
	ck_assert_mem_eq(payload(o), r->before[A], 100);
	ck_assert_int_eq(rt_icrc_check(&x->p), RT_ICRC_OK);
	finish(r);
}
END_TEST

/* accept-gap: the mark goes on the ACK that acknowledges past the gap. */
START_TEST(bug_accept_gap)
{
	struct run *r = bug_setup(B, RT_BUG_ACCEPT_GAP, 1);
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	start(r);
	for (unsigned k = 0; k < 3; k++)
		recv_at(r, B, 0, k + 1);
	for (unsigned k = 0; k < 3; k++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = k + 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	/* The behaviour: no NAK; an ACK for p+2 though p+1 never arrived. */
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 0);
	unsigned ack = 0;
	while (ack < r->n && !(is_ack(&r->f[ack]) && r->f[ack].p.bth.psn == PSN_A + 2))
		ack++;
	ck_assert(ack < r->n);
	ck_assert_uint_eq(r->nwc[B], 2);	/* two messages delivered of three */
	unsigned at = the_bug_frame(r, RT_BUG_ACCEPT_GAP, B);
	ck_assert_uint_eq(at, ack);
	finish(r);
}
END_TEST

START_TEST(bug_ack_ahead)
{
	struct run *r = bug_setup(B, RT_BUG_ACK_AHEAD, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_ACK_AHEAD, B);
	ck_assert(is_ack(&r->f[at]));
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A + 16);
	/* The correct requester ignores an ACK for PSNs never sent; the timer resends, the re-ACK completes. */
	ck_assert_uint_eq(count_psn(r, A, PSN_A), 2);
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

START_TEST(bug_nak_repeat)
{
	struct run *r = bug_setup(B, RT_BUG_NAK_REPEAT, 1);
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	start(r);
	for (unsigned k = 0; k < 4; k++)
		recv_at(r, B, 0, k + 1);
	for (unsigned k = 0; k < 4; k++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = k + 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	/* The behaviour: two NAK sequence errors for p+1 before p+1 arrived again. */
	unsigned n1 = 0;
	while (n1 < r->n && !is_nak(&r->f[n1], SYN_NAK_SEQ))
		n1++;
	unsigned n2 = n1 + 1;
	while (n2 < r->n && !is_nak(&r->f[n2], SYN_NAK_SEQ))
		n2++;
	ck_assert(n2 < r->n);
	ck_assert_uint_eq(r->f[n1].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(r->f[n2].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 2);
	unsigned at = the_bug_frame(r, RT_BUG_NAK_REPEAT, B);
	ck_assert_uint_eq(at, n2);
	finish(r);
}
END_TEST

START_TEST(bug_msn_back)
{
	struct run *r = bug_setup(B, RT_BUG_MSN_BACK, 1);
	start(r);
	for (unsigned k = 0; k < 3; k++)
		recv_at(r, B, 0, k + 1);
	for (unsigned k = 0; k < 3; k++)
		post(r, A, (int64_t)k * 5000, (struct rt_send_wr){ .wr_id = k + 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 100 });
	go(r);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_MSN_BACK, B);
	ck_assert(is_ack(&r->f[at]));
	unsigned prev = r->n;
	for (unsigned j = 0; j < at; j++)
		if (r->f[j].dir == B && is_ack(&r->f[j]))
			prev = j;
	ck_assert_msg(prev < r->n, "no ACK before the one with the misbehaviour");
	ck_assert_uint_eq(r->f[at].p.ext.aeth.msn, r->f[prev].p.ext.aeth.msn - 1);
	finish(r);
}
END_TEST

/*
 * The request after a READ of 3 responses at p takes p + 1, inside the READ's
 * PSNs. The correct peer takes it for a duplicate and re-ACKs p + 2 (its
 * expected PSN - 1); nothing else goes wrong. A READ of one response gives
 * the misbehaviour no opportunity.
 */
START_TEST(bug_psn_in_read)
{
	struct run *r = bug_setup(A, RT_BUG_PSN_IN_READ, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 3000,
					   .remote_va = VA_B + 0x400, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	unsigned at = the_bug_frame(r, RT_BUG_PSN_IN_READ, A);
	ck_assert_uint_eq(opc(&r->f[at]), OP_SEND_ONLY);
	ck_assert_uint_eq(r->f[at].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(count_op(r, A, OP_SEND_ONLY), 1);
	ck_assert_uint_eq(count_op(r, A, OP_READ_REQ), 1);
	unsigned ack = next_dir(r, at + 1, B);
	while (ack < r->n && opc(&r->f[ack]) != OP_ACK)
		ack = next_dir(r, ack + 1, B);
	ck_assert(ack < r->n && is_ack(&r->f[ack]));
	ck_assert_uint_eq(r->f[ack].p.bth.psn, PSN_A + 2);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 0);
	ck_assert_uint_eq(r->nwc[B], 0);	/* the SEND was never delivered */
	expect_wc(r, A, 0, 1, RT_WC_SUCCESS);
	expect_wc(r, A, 1, 2, RT_WC_SUCCESS);
	ck_assert_uint_eq(rt_qp_stats(qp_of(r, A))->timeouts, 0);
	finish(r);

	r = bug_setup(A, RT_BUG_PSN_IN_READ, 1);
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = PMTU,
					   .remote_va = VA_B + 0x400, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	ck_assert_uint_eq(count_bug(r, RT_BUG_PSN_IN_READ, NULL), 0);
	ck_assert_uint_eq(count_psn(r, A, PSN_A + 1), 1);
	ck_assert_uint_eq(r->nwc[B], 1);
	finish(r);
}
END_TEST

/* Every misbehaviour has a name and the names map back. */
START_TEST(bug_names)
{
	ck_assert_str_eq(rt_qp_bug_name(RT_BUG_BAD_ICRC), "bad-icrc");
	for (unsigned b = 1; b < RT_BUG_COUNT; b++) {
		const char *n = rt_qp_bug_name((enum rt_qp_bug)b);
		ck_assert_ptr_nonnull(n);
		ck_assert_str_ne(n, "?");
		ck_assert_int_eq(rt_qp_bug_by_name(n), b);
	}
	ck_assert_int_eq(rt_qp_bug_by_name("no-such-bug"), RT_BUG_NONE);
}
END_TEST

/* ---- Error paths ---- */

static struct rt_qp_config good_node(void)
{
	struct rt_qp_config c;
	rt_qp_config_init(&c);
	node_defaults(&c, 0);
	return c;
}

static void expect_bad_config(const struct rt_qp_config *c, const char *what, const char *in_msg)
{
	struct rt_error err = { { 0 } };
	struct rt_qp *qp = rt_qp_new(c, &err);
	ck_assert_msg(qp == NULL, "%s: accepted", what);
	ck_assert_msg(err.msg[0] != 0, "%s: no message", what);
	if (in_msg)
		ck_assert_msg(strstr(err.msg, in_msg) != NULL, "%s: message '%s' does not say '%s'", what, err.msg, in_msg);
}

START_TEST(qp_new_errors)
{
	struct rt_error err = { { 0 } };
	struct rt_qp_config c = good_node();
	struct rt_qp *qp = rt_qp_new(&c, &err);
	ck_assert_msg(qp != NULL, "%s", err.msg);
	rt_qp_free(qp);

	c = good_node(); c.pmtu = 1000; expect_bad_config(&c, "PMTU 1000", "1000");
	c = good_node(); c.pmtu = 8192; expect_bad_config(&c, "PMTU 8192", "8192");
	c = good_node(); c.pmtu = 0; expect_bad_config(&c, "PMTU 0", NULL);
	c = good_node(); c.qpn = 0; expect_bad_config(&c, "QPN 0", NULL);
	c = good_node(); c.qpn = 1; expect_bad_config(&c, "QPN 1", NULL);
	c = good_node(); c.qpn = 0x1000000; expect_bad_config(&c, "QPN 2^24", NULL);
	c = good_node(); c.peer_qpn = 0; expect_bad_config(&c, "peer QPN 0", NULL);
	c = good_node(); c.sq_psn = 0x1000000; expect_bad_config(&c, "PSN 2^24", NULL);
	c = good_node(); c.rq_psn = 0x1000000; expect_bad_config(&c, "rq PSN 2^24", NULL);
	c = good_node(); c.retry_cnt = 8; expect_bad_config(&c, "retry_cnt 8", NULL);
	c = good_node(); c.rnr_retry = 8; expect_bad_config(&c, "rnr_retry 8", NULL);
	c = good_node(); c.timeout = 32; expect_bad_config(&c, "timeout 32", NULL);
	c = good_node(); c.transport = RT_TRANSPORT_RD; expect_bad_config(&c, "RD", NULL);
	c = good_node(); c.ip_version = 5; expect_bad_config(&c, "IP version 5", NULL);
	c = good_node(); c.roce_version = 3; expect_bad_config(&c, "RoCE version 3", "RoCE version 3");
	c = good_node(); c.window = 0; expect_bad_config(&c, "window 0", NULL);
	c = good_node(); c.ack_every = 0; expect_bad_config(&c, "ack_every 0", NULL);
	c = good_node(); c.mem_size = 0; expect_bad_config(&c, "memory 0", NULL);
	c = good_node(); c.sq_depth = 0; expect_bad_config(&c, "sq_depth 0", NULL);
}
END_TEST

START_TEST(sim_new_error)
{
	struct rt_sim_config c;
	rt_sim_config_init(&c);
	node_defaults(&c.node[0], 0);
	node_defaults(&c.node[1], 1);
	c.node[1].pmtu = 333;
	struct rt_error err = { { 0 } };
	ck_assert_ptr_null(rt_sim_new(&c, &err));
	ck_assert_msg(strstr(err.msg, "333") != NULL, "message: %s", err.msg);
}
END_TEST

START_TEST(post_errors)
{
	struct rt_error err = { { 0 } };
	struct rt_qp_config c = good_node();
	c.sq_depth = 2;
	c.rq_depth = 2;
	struct rt_qp *qp = rt_qp_new(&c, &err);
	ck_assert_ptr_nonnull(qp);
	/* local_offset + length beyond the memory. */
	struct rt_send_wr w = { .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = MEM_SIZE - 10, .length = 11 };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	w = (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = MEM_SIZE, .length = 1,
				 .remote_va = VA_B, .rkey = RKEY_B };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	w = (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_FETCH_ADD, .local_offset = MEM_SIZE - 4, .remote_va = VA_B,
				 .rkey = RKEY_B };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	/* Exactly to the end is fine. */
	w = (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = MEM_SIZE - 10, .length = 10 };
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), 0);
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), 0);
	/* Queue full. */
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	struct rt_recv_wr rv = { .wr_id = 1 };
	ck_assert_int_eq(rt_qp_post_recv(qp, &rv, &err), 0);
	ck_assert_int_eq(rt_qp_post_recv(qp, &rv, &err), 0);
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_recv(qp, &rv, &err), -1);
	ck_assert_str_ne(err.msg, "");
	rt_qp_free(qp);

	/* UD: a message fits one packet. */
	c = good_node();
	c.transport = RT_TRANSPORT_UD;
	qp = rt_qp_new(&c, &err);
	ck_assert_ptr_nonnull(qp);
	w = (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .length = PMTU + 1 };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	w.length = PMTU;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), 0);
	/* UD has no WRITE or READ. */
	w = (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .length = 4, .remote_va = VA_B, .rkey = RKEY_B };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	rt_qp_free(qp);

	/* UC has no READ or atomics. */
	c = good_node();
	c.transport = RT_TRANSPORT_UC;
	qp = rt_qp_new(&c, &err);
	ck_assert_ptr_nonnull(qp);
	w = (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .length = 4, .remote_va = VA_B, .rkey = RKEY_B };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_qp_post_send(qp, &w, &err), -1);
	ck_assert_str_ne(err.msg, "");
	rt_qp_free(qp);
}
END_TEST

START_TEST(schedule_errors)
{
	struct run *r = setup();
	start(r);
	struct rt_error err = { { 0 } };
	struct rt_sim_action a = { .at_ns = 0, .node = 2, .kind = RT_ACTION_RECV };
	ck_assert_int_eq(rt_sim_schedule(r->sim, &a, &err), -1);
	ck_assert_str_ne(err.msg, "");
	a = (struct rt_sim_action){ .at_ns = -5, .node = 0, .kind = RT_ACTION_RECV };
	err.msg[0] = 0;
	ck_assert_int_eq(rt_sim_schedule(r->sim, &a, &err), -1);
	ck_assert_str_ne(err.msg, "");
	/* A work request the QP refuses ends the run with RT_SIM_ERROR and the reason. */
	post(r, A, 1000, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = MEM_SIZE, .length = 1 });
	ck_assert_int_eq(go(r), RT_SIM_ERROR);
	ck_assert_str_ne(r->err.msg, "");
	finish(r);
}
END_TEST

/* The tap failing ends the run with RT_SIM_ERROR. */
static int failing_tap(void *ctx, const struct rt_tap_frame *f, struct rt_error *err)
{
	(void)ctx;
	(void)f;
	rt_error_set(err, "tap says no");
	return -1;
}

START_TEST(tap_error)
{
	struct run *r = setup();
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 10 });
	ck_assert_int_eq(rt_sim_run(r->sim, failing_tap, NULL, &r->err), RT_SIM_ERROR);
	ck_assert_str_eq(r->err.msg, "tap says no");
	finish(r);
}
END_TEST

/* ---- Answers replayed after an implicit NAK ---- */

/*
 * A READ's Response Last is lost and two SENDs follow it: the first ACK past
 * the READ makes the requester ask again from the missing response (an
 * implicit NAK) and go back; the second ACK past it changes nothing (rxe
 * starts no second retry), so the READ is asked for again once. The replay
 * carries the responder's current MSN (READ, SEND, SEND: 3), not the MSN of
 * the lost original (1).
 */
START_TEST(implicit_nak_goes_back_once)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, B, 2, 2);
	start(r);
	recv_at(r, B, 0, 1);
	recv_at(r, B, 0, 2);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 2 * PMTU,
					   .remote_va = VA_B + 0x400, .rkey = RKEY_B });
	for (unsigned k = 0; k < 2; k++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = 2 + k, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_READ_REQ), 2);
	unsigned q1 = next_dir(r, 0, A), q2 = q1 + 1;
	while (q2 < r->n && !(r->f[q2].dir == A && opc(&r->f[q2]) == OP_READ_REQ))
		q2++;
	ck_assert_uint_eq(r->f[q2].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.va, VA_B + 0x400 + PMTU);
	ck_assert_uint_eq(r->f[q2].p.ext.reth.dma_len, PMTU);
	/* Gone back once: each SEND sent twice, not once per ACK past the READ. */
	ck_assert_uint_eq(count_psn(r, A, PSN_A + 2), 2);
	ck_assert_uint_eq(count_psn(r, A, PSN_A + 3), 2);
	unsigned first = next_dir(r, 0, B), replay = q2 + 1;
	ck_assert_uint_eq(opc(&r->f[first]), OP_READ_FIRST);
	ck_assert_uint_eq(r->f[first].p.ext.aeth.msn, 1);
	while (replay < r->n && opc(&r->f[replay]) != OP_READ_ONLY)
		replay++;
	ck_assert(replay < r->n);
	ck_assert_uint_eq(count_op(r, B, OP_READ_ONLY), 1);
	ck_assert_uint_eq(r->f[replay].p.bth.psn, PSN_A + 1);
	ck_assert_uint_eq(r->f[replay].p.ext.aeth.msn, 3);
	ck_assert_mem_eq(mem(r, A) + 0x1000, r->before[B] + 0x400, 2 * PMTU);
	ck_assert_uint_eq(r->nwc[A], 3);
	for (unsigned k = 0; k < 3; k++)
		expect_wc(r, A, k, k + 1, RT_WC_SUCCESS);
	ck_assert_uint_eq(r->nwc[B], 2);
	finish(r);
}
END_TEST

/*
 * An Atomic ACK lost, a WRITE and a SEND completed after it: the requester
 * re-issues the atomic; the responder answers from its saved result (not
 * adding again) with its current MSN (3), not the original's (1).
 */
START_TEST(atomic_replay_current_msn)
{
	struct run *r = setup();
	add_fault(r, RT_FAULT_DROP, B, 1, 1);
	start(r);
	recv_at(r, B, 0, 1);
	poke_le64(r, B, 0x100, 1000);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_FETCH_ADD, .local_offset = 0x40,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B, .swap_add = 7 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .local_offset = 0x80, .length = 64,
					   .remote_va = VA_B + 0x800, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_SEND, .local_offset = 0, .length = 64 });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	check_sane(r);
	ck_assert_uint_eq(count_op(r, A, OP_FETCH_ADD), 2);
	ck_assert_uint_eq(count_op(r, B, OP_ATOMIC_ACK), 1);	/* the first one was lost before a's port */
	unsigned j = 0;
	while (j < r->n && opc(&r->f[j]) != OP_ATOMIC_ACK)
		j++;
	ck_assert_uint_eq(r->f[j].p.bth.psn, PSN_A);
	ck_assert_uint_eq(r->f[j].p.ext.atomic_ack_orig, 1000);
	ck_assert_uint_eq(r->f[j].p.ext.aeth.msn, 3);
	ck_assert_uint_eq(peek_le64(mem(r, B) + 0x100), 1007);
	ck_assert_uint_eq(peek_le64(mem(r, A) + 0x40), 1000);
	for (unsigned k = 0; k < 3; k++)
		expect_wc(r, A, k, k + 1, RT_WC_SUCCESS);
	finish(r);
}
END_TEST

/* ---- RoCE v1 ---- */

/* ::ffff:a.b.c.d, the GID of an IPv4 address (wire-facts.md). */
static void mapped_gid(uint8_t gid[16], uint8_t last)
{
	static const uint8_t prefix[12] = { [10] = 0xFF, [11] = 0xFF };
	memcpy(gid, prefix, 12);
	gid[12] = 10, gid[13] = 0, gid[14] = 0, gid[15] = last;
}

/*
 * a sends RoCE v1 (a GRH carrying the IPv4-mapped GIDs, Ethertype 0x8915), b
 * answers in RoCE v2: every frame verifies, and SEND, WRITE and READ work.
 */
START_TEST(roce_v1_to_v2)
{
	struct run *r = setup();
	r->cfg.node[A].roce_version = 1;
	add_fault(r, RT_FAULT_DROP, A, 2, 2);	/* and the recovery crosses versions too */
	start(r);
	recv_at(r, B, 0, 1);
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = 1500 });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 2, .opcode = RT_WR_WRITE, .local_offset = 0x800, .length = 100,
					   .remote_va = VA_B + 0x100, .rkey = RKEY_B });
	post(r, A, 0, (struct rt_send_wr){ .wr_id = 3, .opcode = RT_WR_READ, .local_offset = 0x1000, .length = 2000,
					   .remote_va = VA_B + 0x400, .rkey = RKEY_B });
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
	uint8_t gid_a[16], gid_b[16];
	mapped_gid(gid_a, 1);
	mapped_gid(gid_b, 2);
	unsigned v1 = 0;
	for (unsigned j = 0; j < r->n; j++) {
		const struct rt_packet *p = &r->f[j].p;
		ck_assert_msg(p->status == RT_PARSE_ROCE && !p->truncated, "frame %u: not RoCE", j + 1);
		ck_assert_msg(rt_icrc_check(p) == RT_ICRC_OK, "frame %u: bad ICRC", j + 1);
		if (r->f[j].dir == B) {
			ck_assert_uint_eq(p->roce_version, 2);
			ck_assert_uint_eq(p->ip_version, 4);
			ck_assert_uint_eq(p->udp_dport, 4791);
			continue;
		}
		ck_assert_uint_eq(p->roce_version, 1);
		ck_assert_uint_eq(p->ethertype, 0x8915);
		ck_assert_mem_eq(p->src_ip, gid_a, 16);
		ck_assert_mem_eq(p->dst_ip, gid_b, 16);
		ck_assert_uint_eq(p->bth.dest_qp, QPN_B);
		v1++;
	}
	ck_assert_uint_ge(v1, 5);
	ck_assert_uint_eq(count_nak(r, SYN_NAK_SEQ), 1);
	for (unsigned k = 0; k < 3; k++)
		expect_wc(r, A, k, k + 1, RT_WC_SUCCESS);
	expect_recv(r, 0, 1, r->before[A], 1500);
	ck_assert_mem_eq(mem(r, B) + 0x100, r->before[A] + 0x800, 100);
	ck_assert_mem_eq(mem(r, A) + 0x1000, r->before[B] + 0x400, 2000);
	finish(r);
}
END_TEST

/* A RoCE v1 SEND Only from b's address to QP a, with dgid as its destination GID. */
static size_t v1_send(uint8_t *buf, size_t cap, const uint8_t dgid[16])
{
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	s.roce_version = 1;
	mapped_gid(s.src_ip, 2);
	memcpy(s.dst_ip, dgid, 16);
	s.bth.opcode = OP_SEND_ONLY;
	s.bth.dest_qp = QPN_A;
	s.bth.psn = PSN_B;
	s.bth.ack_req = true;
	s.payload_len = 8;
	return rt_build(&s, buf, cap);
}

/* A QP takes RoCE v1 addressed to its GID (an IPv4 address mapped), and only that. */
START_TEST(roce_v1_addressing)
{
	struct rt_error err = { { 0 } };
	struct rt_qp_config c = good_node();	/* 10.0.0.1, QPN 0x11, expects PSN_B */
	struct rt_qp *qp = rt_qp_new(&c, &err);
	ck_assert_ptr_nonnull(qp);
	struct rt_recv_wr rv = { .wr_id = 1 };
	ck_assert_int_eq(rt_qp_post_recv(qp, &rv, &err), 0);
	uint8_t frame[256], out[256], gid[16];
	mapped_gid(gid, 9);	/* someone else's */
	size_t n = v1_send(frame, sizeof frame, gid);
	ck_assert_uint_gt(n, 0);
	rt_qp_receive(qp, 0, frame, (uint32_t)n);
	ck_assert_uint_eq(rt_qp_stats(qp)->dropped, 1);
	static const uint8_t plain[16] = { 10, 0, 0, 1 };	/* the IPv4 address unmapped is no GID */
	n = v1_send(frame, sizeof frame, plain);
	rt_qp_receive(qp, 0, frame, (uint32_t)n);
	ck_assert_uint_eq(rt_qp_stats(qp)->dropped, 2);
	ck_assert_uint_eq(rt_qp_next_frame(qp, 0, out, sizeof out, NULL), 0);
	mapped_gid(gid, 1);
	n = v1_send(frame, sizeof frame, gid);
	rt_qp_receive(qp, 0, frame, (uint32_t)n);
	ck_assert_uint_eq(rt_qp_stats(qp)->dropped, 2);
	/* Taken: the ACK goes out, in the QP's own RoCE v2. */
	size_t m = rt_qp_next_frame(qp, 0, out, sizeof out, NULL);
	ck_assert_uint_gt(m, 0);
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, out, (uint32_t)m, (uint32_t)m), RT_PARSE_ROCE);
	ck_assert_uint_eq(p.roce_version, 2);
	ck_assert_uint_eq(p.bth.opcode, OP_ACK);
	ck_assert_uint_eq(p.bth.psn, PSN_B);
	struct rt_wc wc;
	ck_assert(rt_qp_poll_cq(qp, &wc));
	ck_assert_int_eq(wc.status, RT_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 8);
	rt_qp_free(qp);
}
END_TEST

/* ---- The capture: skew and misses ---- */

/* Four 1 KB SENDs, the second lost: a NAK, a go-back, ACKs. */
static void capture_workload(struct run *r)
{
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	start(r);
	for (unsigned k = 0; k < 4; k++) {
		recv_at(r, B, 0, k + 1);
		post(r, A, 0, (struct rt_send_wr){ .wr_id = k + 1, .opcode = RT_WR_SEND, .local_offset = 0, .length = PMTU });
	}
	ck_assert_int_eq(go(r), RT_SIM_IDLE);
}

/* The index of the k-th frame (from 0) of direction dir; r->n if there is none. */
static unsigned nth_dir(const struct run *r, unsigned dir, unsigned k)
{
	unsigned j = next_dir(r, 0, dir);
	while (k-- && j < r->n)
		j = next_dir(r, j + 1, dir);
	return j;
}

/*
 * At a's port with a 3 us skew: the same frames, a's recorded 3 us later, b's
 * unchanged, the capture in recording order; the ACK of the first SEND is
 * recorded before the SEND itself, and the NAK before the lost packet.
 */
START_TEST(capture_skew_delays_the_tapped_nodes_frames)
{
	const int64_t skew = 3000;
	struct run *r0 = setup_run(0);
	capture_workload(r0);
	struct run *r1 = setup_run(1);
	r1->cfg.tap_skew_ns = skew;
	capture_workload(r1);
	ck_assert_uint_eq(r1->n, r0->n);
	for (unsigned dir = 0; dir < 2; dir++)
		for (unsigned k = 0;; k++) {
			unsigned i0 = nth_dir(r0, dir, k), i1 = nth_dir(r1, dir, k);
			ck_assert_int_eq(i0 < r0->n, i1 < r1->n);
			if (i0 == r0->n)
				break;
			ck_assert_int_eq(r1->f[i1].t, r0->f[i0].t + (dir == A ? skew : 0));
			ck_assert_uint_eq(r1->f[i1].len, r0->f[i0].len);
			ck_assert_mem_eq(r1->f[i1].data, r0->f[i0].data, r0->f[i0].len);
		}
	for (unsigned j = 1; j < r1->n; j++)
		ck_assert_msg(r1->f[j].t >= r1->f[j - 1].t, "frame %u recorded before frame %u", j + 1, j);
	/* Without the skew every request comes before its answer; with it the order turns. */
	ck_assert(opc(&r0->f[0]) == OP_SEND_ONLY && r0->f[0].dir == A);
	ck_assert(is_ack(&r1->f[0]) && r1->f[0].p.bth.psn == PSN_A);
	ck_assert(is_nak(&r1->f[1], SYN_NAK_SEQ) && r1->f[1].p.bth.psn == PSN_A + 1);
	ck_assert(r1->f[2].dir == A && r1->f[2].p.bth.psn == PSN_A);
	finish(r0);
	finish(r1);
}
END_TEST

START_TEST(capture_skew_errors)
{
	struct rt_sim_config c;
	rt_sim_config_init(&c);
	node_defaults(&c.node[0], 0);
	node_defaults(&c.node[1], 1);
	struct rt_error err = { { 0 } };
	c.tap_skew_ns = 1000;	/* with the receiver-side capture (the default) */
	ck_assert_ptr_null(rt_sim_new(&c, &err));
	ck_assert_msg(strstr(err.msg, "skew") != NULL, "message: %s", err.msg);
	c.tap = RT_TAP_B;
	c.tap_skew_ns = -1;
	err.msg[0] = 0;
	ck_assert_ptr_null(rt_sim_new(&c, &err));
	ck_assert_msg(strstr(err.msg, "skew") != NULL, "message: %s", err.msg);

	/* More frames within the skew than the capture holds: the run stops and says why. */
	struct run *r = setup();
	r->cfg.tap_skew_ns = 1000000000;
	r->cfg.node[A].sq_depth = 5000;
	start(r);
	for (unsigned k = 0; k < 5000; k++)
		post(r, A, 0, (struct rt_send_wr){ .wr_id = k, .opcode = RT_WR_WRITE, .remote_va = VA_B, .rkey = RKEY_B });
	/* rt_sim_run, not go(): thousands of completions would not fit the run's record. */
	ck_assert_int_eq(rt_sim_run(r->sim, on_frame, r, &r->err), RT_SIM_ERROR);
	ck_assert_msg(strstr(r->err.msg, "more than 4096 frames of a wait to be recorded") != NULL, "message: %s",
		      r->err.msg);
	finish(r);
}
END_TEST

/* r1 holds r0's frames but those at the indices in gone (ascending), in order, at the same times. */
static void expect_frames_but(const struct run *r0, const struct run *r1, const unsigned *gone, unsigned n_gone)
{
	ck_assert_uint_eq(r1->n + n_gone, r0->n);
	unsigned j1 = 0, g = 0;
	for (unsigned j0 = 0; j0 < r0->n; j0++) {
		if (g < n_gone && gone[g] == j0) {
			g++;
			continue;
		}
		ck_assert_msg(r1->f[j1].t == r0->f[j0].t && r1->f[j1].dir == r0->f[j0].dir &&
				      r1->f[j1].len == r0->f[j0].len &&
				      !memcmp(r1->f[j1].data, r0->f[j0].data, r0->f[j0].len),
			      "frame %u of the capture with misses is not frame %u of the one without", j1 + 1, j0 + 1);
		j1++;
	}
}

static void miss_workload(struct run *r, bool miss)
{
	r->cfg.node[A].timeout = TIMEOUT_CODE;
	add_fault(r, RT_FAULT_DROP, A, 2, 2);
	if (miss) {
		add_fault(r, RT_FAULT_MISS, A, 2, 3);	/* a's 2nd (dropped too) and 3rd, as sent */
		add_fault(r, RT_FAULT_MISS, B, 1, 1);	/* b's 1st, as it arrives */
	}
	capture_workload(r);
}

/*
 * A miss fault leaves frames out of the capture and nothing else: the ends do
 * exactly what they do without it. At a's port a's frames are missed as
 * sent (a dropped one too), b's as they arrive.
 */
START_TEST(miss_leaves_frames_out_of_the_capture)
{
	struct run *r0 = setup_run(0);
	miss_workload(r0, false);
	struct run *r1 = setup_run(1);
	miss_workload(r1, true);
	unsigned gone[3] = { nth_dir(r0, A, 1), nth_dir(r0, A, 2), nth_dir(r0, B, 0) };
	if (gone[2] < gone[0]) {
		unsigned t = gone[2];
		gone[2] = gone[1], gone[1] = gone[0], gone[0] = t;
	}
	ck_assert(gone[0] < gone[1] && gone[1] < gone[2] && gone[2] < r0->n);
	expect_frames_but(r0, r1, gone, 3);
	ck_assert_uint_eq(rt_sim_link_stats(r1->sim, A)->missed, 2);
	ck_assert_uint_eq(rt_sim_link_stats(r1->sim, B)->missed, 1);
	ck_assert_uint_eq(r1->nwc[A], r0->nwc[A]);
	for (unsigned k = 0; k < r0->nwc[A]; k++)
		ck_assert_int_eq(r1->wc[A][k].time_ns, r0->wc[A][k].time_ns);
	finish(r0);
	finish(r1);
}
END_TEST

/* At the receiver: a frame the link duplicates and a miss fault hits is missed twice. */
START_TEST(miss_takes_both_copies_of_a_duplicate)
{
	struct run *r[2];
	for (unsigned w = 0; w < 2; w++) {
		r[w] = setup_run(w);
		r[w]->cfg.tap = RT_TAP_RECEIVER;
		add_fault(r[w], RT_FAULT_DUPLICATE, A, 3, 3);
		if (w)
			add_fault(r[w], RT_FAULT_MISS, A, 3, 3);
		capture_workload(r[w]);
	}
	unsigned gone[2] = { nth_dir(r[0], A, 1), nth_dir(r[0], A, 2) };	/* the 3rd frame and its copy (the 2nd is lost) */
	ck_assert_uint_eq(r[0]->f[gone[0]].p.bth.psn, r[0]->f[gone[1]].p.bth.psn);
	expect_frames_but(r[0], r[1], gone, 2);
	finish(r[0]);
	finish(r[1]);
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");

	TCase *tc = tcase_create("operations");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, send_sizes, 0, (int)(sizeof send_lens / sizeof send_lens[0]));
	tcase_add_loop_test(tc, send_every_pmtu, 0, (int)(sizeof pmtus / sizeof pmtus[0]));
	tcase_add_test(tc, send_imm_and_inv);
	tcase_add_test(tc, send_two_messages_msn);
	tcase_add_loop_test(tc, write_lands_at_va, 0, (int)(sizeof write_cases / sizeof write_cases[0]));
	tcase_add_loop_test(tc, read_sizes, 0, (int)(sizeof read_lens / sizeof read_lens[0]));
	tcase_add_test(tc, atomics);
	tcase_add_test(tc, psn_wrap_send);
	tcase_add_test(tc, psn_wrap_read);
	tcase_add_test(tc, ipv6_vlan);
	tcase_add_test(tc, bidirectional);
	suite_add_tcase(s, tc);

	tc = tcase_create("recovery");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, timer_tables);
	tcase_add_test(tc, lost_middle_request);
	tcase_add_test(tc, lost_first_of_second_message);
	tcase_add_test(tc, lost_ack_timeout);
	tcase_add_test(tc, retry_exhausted);
	tcase_add_test(tc, retry_zero);
	tcase_add_test(tc, no_timer_stalls);
	tcase_add_test(tc, rnr_then_success);
	tcase_add_test(tc, rnr_retry_exhausted);
	tcase_add_test(tc, rnr_retry_forever);
	tcase_add_test(tc, read_response_lost);
	tcase_add_test(tc, read_request_lost);
	tcase_add_test(tc, atomic_ack_lost);
	tcase_add_test(tc, implicit_nak_goes_back_once);
	tcase_add_test(tc, atomic_replay_current_msn);
	tcase_add_test(tc, link_duplicate_request);
	tcase_add_test(tc, link_duplicate_write);
	tcase_add_test(tc, reorder_request);
	tcase_add_test(tc, delay_request);
	tcase_add_test(tc, delay_first_past_rest);
	tcase_add_test(tc, corrupt_request);
	tcase_add_test(tc, corrupt_middle_request);
	tcase_add_test(tc, window_limits_new_packets_within_a_message);
	tcase_add_test(tc, max_rd_atomic_one);
	tcase_add_test(tc, two_reads_pipelined);
	tcase_add_test(tc, read_response_lost_send_behind);
	tcase_add_test(tc, lost_nak);
	tcase_add_test(tc, psn_wrap_nak);
	tcase_add_test(tc, ack_delay);
	tcase_add_test(tc, ack_credits);
	tcase_add_test(tc, rnr_write_imm_and_queue);
	tcase_add_test(tc, retry_count_resets);
	tcase_add_test(tc, rings_wrap);
	tcase_add_test(tc, cnp_ipv6);
	tcase_add_test(tc, nak_acknowledges_before);
	tcase_add_test(tc, completions_kept_until_polled);
	tcase_add_test(tc, link_rate_and_delay);
	tcase_add_test(tc, ackreq_at_least_every_64);
	tcase_add_test(tc, read_last_response_lost);
	tcase_add_test(tc, lost_rnr_nak);
	tcase_add_test(tc, ack_delayed_past_timeout);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, write_wrong_rkey);
	tcase_add_test(tc, access_bounds);
	tcase_add_test(tc, send_too_long_for_buffer);
	tcase_add_test(tc, remote_operational_error);
	tcase_add_test(tc, qp_new_errors);
	tcase_add_test(tc, sim_new_error);
	tcase_add_test(tc, post_errors);
	tcase_add_test(tc, schedule_errors);
	tcase_add_test(tc, tap_error);
	tcase_add_test(tc, capture_skew_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, capture_skew_delays_the_tapped_nodes_frames);
	tcase_add_test(tc, miss_leaves_frames_out_of_the_capture);
	tcase_add_test(tc, miss_takes_both_copies_of_a_duplicate);
	suite_add_tcase(s, tc);

	tc = tcase_create("services");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, uc_write);
	tcase_add_test(tc, uc_loss_drops_message);
	tcase_add_test(tc, ud_send);
	tcase_add_test(tc, ud_wrong_qkey_or_no_buffer);
	tcase_add_test(tc, ack_coalescing);
	tcase_add_test(tc, ackreq_every_n);
	tcase_add_test(tc, cnp_on_ce);
	tcase_add_test(tc, cnp_requested);
	tcase_add_test(tc, cnp_disabled);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, seed_changes_bytes_only);
	tcase_add_test(tc, roce_v1_to_v2);
	tcase_add_test(tc, roce_v1_addressing);
	suite_add_tcase(s, tc);

	tc = tcase_create("misbehaviour");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bug_names);
	tcase_add_test(tc, bug_bad_icrc);
	tcase_add_test(tc, bug_bad_pad);
	tcase_add_test(tc, bug_tver);
	tcase_add_test(tc, bug_response_ackreq);
	tcase_add_test(tc, bug_bad_cnp);
	tcase_add_test(tc, bug_short_first);
	tcase_add_test(tc, bug_no_first);
	tcase_add_test(tc, bug_interleave);
	tcase_add_test(tc, bug_skip_psn);
	tcase_add_test(tc, bug_reth_length);
	tcase_add_test(tc, bug_go_back_wrong);
	tcase_add_test(tc, bug_rnr_early);
	tcase_add_test(tc, bug_retransmit_alter);
	tcase_add_test(tc, bug_accept_gap);
	tcase_add_test(tc, bug_ack_ahead);
	tcase_add_test(tc, bug_nak_repeat);
	tcase_add_test(tc, bug_msn_back);
	tcase_add_test(tc, bug_psn_in_read);
	suite_add_tcase(s, tc);
	return s;
}
