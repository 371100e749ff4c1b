/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * `rocetest run`: conformance suites against a device under test (dut.h).
 * The harness plays the remote side: ARP and the CM exchange of
 * cm-frame.md, then one reference-model QP (model.h, the responder) per DUT
 * QP, joined to the device by a simulated link (wire.h) that injects the
 * faults a test asks for. Per test it asserts that the capture passes the
 * conformance checker, that the peer's memory holds exactly what the device
 * sent, and that every completion carries the expected status.
 */
#ifndef ROCETEST_RUN_H
#define ROCETEST_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/checker.h"
#include "rocetest/dut.h"
#include "rocetest/error.h"
#include "rocetest/wire.h"

/* What one test did and found. */
struct rt_run_result {
	char suite[32];
	char name[64];
	char description[256];
	bool passed;
	char failure[1024];		/* why not: one finding per line (the first few) */
	uint64_t seed;

	uint64_t cycles;		/* simulated device cycles */
	double sim_us;			/* simulated time */
	double wall_s;

	uint32_t wrs;			/* work requests posted (native and generator) */
	uint32_t completions;
	uint32_t frames_to_peer;	/* frames the device sent */
	uint32_t frames_to_dut;		/* frames the harness sent (link-corrupted ones too; the capture leaves those out) */
	uint32_t retransmissions;	/* the device's counters over the test */
	uint32_t timeouts;
	uint32_t naks;
	uint32_t rnr_naks;
	uint64_t link_dropped;		/* link faults applied, both directions */
	uint64_t link_duplicated;
	uint64_t link_reordered;
	uint64_t link_corrupted;
	uint64_t checker_errors;
	uint64_t checker_warnings;
	uint64_t payload_bytes;		/* application bytes of the WRs that completed successfully */
	/* The device's surroundings in this test (a simulator's; rt_dut_config), and TX underruns seen. */
	uint32_t mem_latency;
	double p_stall;
	uint32_t underrun_cycles;
	uint32_t underrun_frames;

	char pcap[128];			/* the capture, relative to the run directory ("" if none) */
	char html[128];			/* its check report with the ladder diagrams ("" if none) */
	char check_args[512];		/* `rocetest check` options that reproduce the checker's verdict */
	/*
	 * The work as a scenario for `rocetest gen`, beside the capture
	 * (SUITE-NAME.scn; with several QPs one each, SUITE-NAME.qpN.scn), and
	 * what of the test the scenario language cannot say ("" if nothing).
	 */
	char scenario[128];
	char twin_gaps[512];

	/*
	 * Timing. The shortest timer the verdict rests on (the device's local
	 * ACK timeout, the peer's RNR timer, a goodput test's round trip), and
	 * the harness's slowest answer in the device's time: from the end of a
	 * frame of the device's to the harness taking it, plus from an answer
	 * being due to its going out. A simulator stands still while the
	 * harness works, so only the step between harness turns counts; a
	 * board's clock runs on (rocetest run --dut iface:). A test whose checks
	 * all passed but whose reaction_ns is over timer_ns / RT_RUN_TIMING_SHARE
	 * is untimed: it timed the harness as much as the device, so it is not a
	 * pass (passed false) and not a failure.
	 */
	uint64_t timer_ns;
	uint64_t reaction_ns;
	bool untimed;

	/* Throughput tests. */
	bool has_goodput;
	uint8_t opcode;			/* enum rt_dut_opcode */
	uint32_t msg_size;
	double goodput_gbps;		/* application payload over the time from first to last frame */
	double limit_gbps;		/* the line-rate limit for these messages (rt_goodput_limit_gbps) */
};

/* A whole run, for the report writers. */
/* What a live path (a board behind a network interface) saw during a run. */
struct rt_run_live {
	char iface[32];
	uint64_t frames_in, frames_out;	/* captured from the board, injected to it */
	uint64_t dropped, if_dropped;	/* pcap_stats: by the capture buffer, by the interface */
	double slowdown;		/* a virtual board's model runs this many times slower than real time */
	int64_t max_lag_ns;		/* the board's worst lag behind its schedule, its ns */
	char tstamp[32];		/* the capture's timestamp source */
};

struct rt_run_summary {
	char dut[96];			/* rt_dut_info.name */
	const struct rt_run_live *live;	/* NULL: a simulator, no wire */
	char build_id[96];		/* rt_dut_info.build_id: what the device was built from ("" unknown) */
	uint64_t seed;
	char started[32];		/* UTC, ISO 8601 */
	const struct rt_run_result *tests;
	size_t n_tests;
	double wall_s;
	uint64_t cycles;		/* simulated, all tests */
	double cycles_per_s;		/* simulation speed */
	double clk_hz;
	double line_gbps;
	uint32_t pmtu;			/* of the throughput tests */
	/* rocetest run --shard I/N: this run is shard I of N (0 of 0: the whole selection). */
	unsigned shard, shards;
};

/*
 * Application goodput at the line-rate limit: messages of msg_size bytes of
 * opcode op, segmented at pmtu, sent back to back on a line_gbps Ethernet
 * link, every frame paying Ethernet/IPv4/UDP/BTH (+RETH on a WRITE's first,
 * +ImmDt on an *_IMM's last), pad, ICRC, FCS, preamble and inter-frame gap,
 * and the 64-byte minimum frame.
 */
double rt_goodput_limit_gbps(enum rt_dut_opcode op, uint32_t msg_size, uint32_t pmtu, double line_gbps);

/* ---- The tests ------------------------------------------------------ */

/* Message lengths of a test's WRs. */
enum rt_run_sizes {
	RT_SIZES_CLASSES,	/* 0, 1, 2, 3, 5, 7, PMTU-1, PMTU, PMTU+1, 2*PMTU+1, 3*PMTU+5, cycled */
	RT_SIZES_FIXED,		/* size */
	RT_SIZES_RANDOM,	/* 0 .. 3*PMTU+7, from the seed */
};

/* How the peer treats receive buffers (SENDs need one each). */
enum rt_run_peer {
	RT_PEER_READY,		/* enough receive buffers, reposted as they are used */
	RT_PEER_RNR,		/* none until recv_post_us, then enough: RNR NAKs, then success */
	RT_PEER_NO_RECV,	/* never any: RNR NAKs until rnr_retry runs out */
};

/* What a test does with the CM besides opening every QP. */
enum rt_run_cm_case {
	RT_CM_CASE_NONE,
	RT_CM_CASE_REOPEN,	/* close QP 0 and open it again before the work */
	RT_CM_CASE_REFUSALS,	/* requests the CM must refuse (NO_QP, NAK, silence), then the work */
};

#define RT_RUN_MAX_QP 4
#define RT_RUN_MAX_FAULTS 4

/* One test: the device's setup, the work, the peer, the link, what must come out. */
struct rt_run_spec {
	const char *suite;
	const char *name;
	const char *description;

	uint8_t n_qp;				/* QPs opened, 1..RT_RUN_MAX_QP */
	uint8_t pmtu_code[RT_RUN_MAX_QP];	/* 256 << code */
	uint32_t psn;				/* the device's first PSN (QP i: psn + i * 0x10000) */
	uint8_t timeout;			/* local ACK timeout code, every QP (0: 14) */
	uint8_t retry_cnt;
	uint8_t rnr_retry;

	uint8_t opcodes;			/* bit (1 << enum rt_dut_opcode) per opcode used, in turn */
	enum rt_run_sizes sizes;
	uint32_t size;				/* RT_SIZES_FIXED */
	uint32_t wrs_per_qp;			/* native WRs */
	uint32_t txmeta_n, txmeta_len;		/* > 0: the built-in generator too, on every QP */

	enum rt_run_cm_case cm_case;

	enum rt_run_peer peer;
	uint32_t recv_post_us;			/* RT_PEER_RNR */
	uint8_t rnr_timer;			/* the code the peer's RNR NAKs carry */
	uint32_t bad_rkey_wr;			/* QP 0's WR with this 1-based number has a wrong R_Key */
	uint32_t peer_recv_size;		/* > 0: QP 0's peer has receive buffers this small (a longer SEND: NAK
						   invalid request) */
	uint32_t peer_op_error_msg;		/* > 0: QP 0's peer fails its message of this number (NAK remote
						   operational error) */

	uint32_t one_way_ns;			/* link delay each way (0: 1000, a 2 us round trip) */
	struct rt_fault faults[RT_RUN_MAX_FAULTS];	/* dir 0: device to peer, 1: peer to device */
	uint8_t n_faults;

	/* Expected: QP 0's WR number fail_wr completes with fail_status, its later WRs flushed. */
	uint32_t fail_wr;
	uint8_t fail_status;			/* enum rt_dut_status */
	/* ... and the device's counters reach at least these. */
	uint32_t min_retransmissions, min_timeouts, min_naks, min_rnr_naks;
	/*
	 * Rules the checker leaves out, comma-separated IDs, for what a link
	 * fault makes the capture show (say why in the description). Faults on
	 * the device's frames leave out every RSP rule by themselves: the
	 * capture is taken at the device's port, and the peer answered what
	 * arrived, not what the capture shows was sent.
	 */
	const char *skip_rules;

	bool throughput;			/* a goodput measurement */
	double min_gbps;			/* ... that fails below this (0: none) */
	bool quick;				/* also in the "quick" suite */
};

/* The harness may take this share of a test's shortest timer to answer (rt_run_result.untimed). */
#define RT_RUN_TIMING_SHARE 10

/*
 * The shortest timer a test's verdict rests on, ns: the device's local ACK
 * timeout (the harness must answer inside it, or the device resends for
 * nothing), the RNR timer of the peer's RNR NAKs when it sends them, and
 * the link's round trip for a goodput measurement.
 */
uint64_t rt_run_timer_ns(const struct rt_run_spec *spec);

/* A test neither passed nor untimed. */
static inline bool rt_run_failed(const struct rt_run_result *r)
{
	return !r->passed && !r->untimed;
}

/* Every test, grouped by suite in run order. */
const struct rt_run_spec *rt_run_specs(size_t *n);
/* The suites' names in run order; "quick" is a cross-section for `make test`. */
const char *const *rt_run_suite_names(size_t *n);
/* Whether spec belongs to suite, or to "all", "quick" (the cross-section) or "functional" (all but throughput). */
bool rt_run_in_suite(const struct rt_run_spec *spec, const char *suite);

/* The two ends' Ethernet and IPv4 (host order) addresses: the host the harness plays and the device. */
struct rt_run_addrs {
	uint8_t host_mac[6];
	uint32_t host_ip;
	uint8_t dut_mac[6];
	uint32_t dut_ip;
};
/* Host 02:00:00:00:ab:00 10.0.1.100, device 02:00:00:00:00:01 10.0.0.1 (a simulated device's). */
void rt_run_addrs_default(struct rt_run_addrs *a);

struct rt_run_options {
	uint64_t seed;
	const struct rt_run_addrs *addrs;	/* NULL: rt_run_addrs_default */
	const char *dir;		/* captures go to DIR/SUITE-NAME.pcap (NULL: none) */
	uint32_t ladder_flows;		/* flows with ladder rows kept for the report */
	/*
	 * A slow host: each turn of the harness takes this many ns more of
	 * the device's time, as on a board whose clock runs while the harness
	 * works. Which tests a host that slow would leave untimed (0: none).
	 */
	uint32_t host_delay_ns;
	/* Each violation the checker finds, and the finished checker before it is freed. */
	void (*on_violation)(void *ctx, const struct rt_violation *v);
	void (*on_checked)(void *ctx, const struct rt_run_result *r, const struct rt_checker *c);
	/* Progress within a test, 0..1 (NULL: none). */
	void (*on_progress)(void *ctx, const struct rt_run_spec *spec, double done);
	void *ctx;
};

/*
 * Runs one test on the device and fills res (res->passed and res->untimed are the verdict).
 * -1 with err when the harness itself could not run it (the device refused
 * its configuration, the capture could not be written).
 */
int rt_run_test(struct rt_dut_ops *dut, const struct rt_run_spec *spec, const struct rt_run_options *opt,
		struct rt_run_result *res, struct rt_error *err);

#endif
