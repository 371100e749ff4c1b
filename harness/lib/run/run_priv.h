/* SPDX-License-Identifier: MIT */
/*
 * What the files of the conformance runner share (run.h is the public side):
 * the host the harness plays, one test's state, and the steps the files
 * call each other for. run_test.c runs a test; run_host.c is the host's
 * ARP and CM side of it.
 */
#ifndef ROCETEST_RUN_PRIV_H
#define ROCETEST_RUN_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/capture.h"
#include "rocetest/cm.h"
#include "rocetest/run.h"

/* The host the harness plays. */
#define HOST_CM_PORT 0x4322
#define HOST_PSN 0x4000u
#define PEER_VA 0x00007F0000001000ull
#define PEER_RKEY 0x5EED0001u
#define DUT_RKEY 0xABCD0042u
#define DUT_PSN_STRIDE 0x10000u

#define CHUNK_TICKS 16		/* device time that passes between harness steps */
#define SETUP_TICKS 50000	/* most an ARP or CM reply may take */
#define SETTLE_TICKS 400	/* quiet time that ends a test */
#define STALL_NS 2000000	/* nothing moved this long: the test is stuck */
#define MAX_FRAME 9600

/* One work request and what must come of it. */
struct wr_entry {
	struct rt_dut_wr wr;
	uint8_t expect;		/* enum rt_dut_status */
	uint32_t last_psn;	/* its last packet's PSN, counted from the QP's first (no wrap) */
	bool completed;
	uint8_t status;
	bool received;		/* a SEND the peer received whole */
};

struct qp_side {
	struct rt_qp *peer;
	uint32_t dut_qpn, dut_psn, pmtu;
	uint8_t *expect_mem;	/* what the peer's memory must hold at the end */
	uint32_t mem_size;
	struct wr_entry *wrs;	/* this QP's WRs, in posting order */
	uint32_t n_wrs, next_cpl, next_recv;
	uint32_t recv_scan;	/* where the search for the next receive-consuming WR goes on */
	bool acked_any;
	uint32_t acked;		/* PSNs the device has been told are acknowledged, counted like last_psn */
	uint32_t recv_size, rq_depth;
	uint64_t recv_posted;
};

/* A link fault that hit frame `frame` (1-based) of device QP qp in direction dir, for the QP's twin. */
struct fault_hit {
	uint8_t qp, dir;
	enum rt_fault_kind kind;
	uint32_t frame;
};
#define MAX_FAULT_HITS 64

struct runner {
	struct rt_dut_ops *dut;
	const struct rt_run_spec *spec;
	const struct rt_run_options *opt;
	struct rt_run_result *res;
	struct rt_run_addrs addr;
	uint64_t rng;
	uint64_t mem_state;	/* rng as it was when it filled the device's memory (the twin's seed) */
	double ns_per_tick;
	uint64_t host_delay_ticks;	/* rt_run_options.host_delay_ns */
	int64_t now;		/* ns since reset */
	struct rt_wire *wire;
	struct qp_side qp[RT_RUN_MAX_QP];
	uint32_t n_wrs, n_done;
	struct rt_checker *chk;
	struct rt_capture_writer *cap;
	uint64_t frames;
	int64_t last_activity;
	bool recv_posting;	/* the peer posts receive buffers (RT_PEER_RNR: from recv_post_us) */
	/* Throughput: the device's RoCE frames, first start to last end. */
	int64_t tx_first, tx_last_end;
	uint16_t cm_ip_id;
	uint32_t cm_pending;	/* CM requests waiting for their reply */
	bool failure_full;	/* res->failure holds all it can */
	bool port_checked;	/* the device's port_error was asked (and any reported) */
	/* Per QP and direction, the frames put on the link, and the faults that hit them (run_twin.c). */
	uint32_t qp_frames[RT_RUN_MAX_QP][2];
	struct fault_hit hits[MAX_FAULT_HITS];
	uint32_t n_hits;	/* may exceed MAX_FAULT_HITS: the twin then says so */
	struct rt_link_stats link_seen[2];	/* the link's counters after the frame before */
	/*
	 * The harness's reaction (rt_run_result.reaction_ns), the device's ns:
	 * the latest it took a device frame after the frame's end, and the
	 * latest it answered: how late the frames it pushed in a turn were due,
	 * plus that turn's length (they went out before the next turn began).
	 */
	int64_t late_take, late_answer, due_late;
	bool pushed;
	uint32_t mem_latency;	/* the device's surroundings in this test (run_bench_pick) */
	double p_stall;
	uint8_t buf[MAX_FRAME];
};

/* The device's local ACK timeout code in spec's test (0 there: 14, 67 ms). */
static inline uint8_t run_timeout_code(const struct rt_run_spec *spec)
{
	return spec->timeout ? spec->timeout : 14;
}

/* The link's delay each way in spec's test (0 there: 1 us, a 2 us round trip). */
static inline uint32_t run_one_way_ns(const struct rt_run_spec *spec)
{
	return spec->one_way_ns ? spec->one_way_ns : 1000;
}

/* The host QPN that is device QP q's peer. */
static inline uint32_t peer_qpn(unsigned q)
{
	return 0x1200 + 0x11 * q;
}

/* run_test.c: findings, the capture, the device's clock and ports. */
void run_fail(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void run_capture(struct runner *r, int64_t t, const uint8_t *f, uint32_t len);
void run_ticks(struct runner *r, uint64_t n);
uint32_t run_pull(struct runner *r, int64_t *t);
int run_push(struct runner *r, const uint8_t *f, uint32_t len);

/* The peer QP of device QP q (run_test.c), and the test's twin scenario beside its capture (run_twin.c). */
void run_peer_config(const struct runner *r, unsigned q, struct rt_qp_config *cfg);
/* Whether a WR of this enum rt_dut_opcode takes a receive buffer at the peer (run_test.c). */
bool run_consumes_receive(uint8_t op);
int run_write_twin(struct runner *r, struct rt_error *err);
/* After rt_wire_send put device QP q's frame on the link in dir: counts it, notes a fault that hit it. */
void run_twin_frame(struct runner *r, unsigned dir, unsigned q);

/* run_host.c: the host's side of the setup. */
void run_dut_config(const struct runner *r, struct rt_dut_config *c, uint8_t pmtu_code);
/* The memory latency and back-pressure of r's test: seeded per test, the device's defaults for throughput. */
void run_bench_pick(struct runner *r);
int run_arp(struct runner *r);
int run_open_qp(struct runner *r, unsigned q);
void run_send_cm(struct runner *r, const struct rt_cm_msg *m);
/* A CM reply addressed to the host: true, with the message (misaddressed ones are findings). */
bool run_cm_reply(struct runner *r, const uint8_t *f, uint32_t len, struct rt_cm_msg *m);
/* Whether a reply carries ack type want (a finding if not). */
bool run_cm_answer_is(struct runner *r, const struct rt_cm_msg *rep, uint8_t want, const char *what);
/* The test's CM case (rt_run_spec.cm_case), once every QP is open. */
int run_cm_case(struct runner *r);

#endif
