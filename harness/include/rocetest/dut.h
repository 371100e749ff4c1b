/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * A device under test as `rocetest run` drives it: an RoCEv2 requester
 * endpoint with an Ethernet port (frames without FCS), a work request port, a
 * completion port, an application memory it reads payloads from, and
 * counters. The included FPGA endpoint's Verilator model (dut/sim/) is one;
 * a board behind a network interface would be another. The runner knows the
 * device only through struct rt_dut_ops, and a front end gets one from a
 * plugin: a shared object exporting struct rt_dut_plugin under the name
 * RT_DUT_PLUGIN_SYMBOL, so that it includes nothing of the device's own.
 *
 * Time is the device's: ticks at info.tick_hz since its reset. A simulator's
 * tick is its clock cycle (advance runs the clock); a board's is a nanosecond
 * of the wall clock (advance waits, serving its port meanwhile).
 */
#ifndef ROCETEST_DUT_H
#define ROCETEST_DUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_DUT_MAX_QP 16

/* The opcodes of the native WR port (roce_endpoint s_wr_opcode). */
enum rt_dut_opcode {
	RT_DUT_SEND = 0,
	RT_DUT_SEND_IMM = 1,
	RT_DUT_WRITE = 2,
	RT_DUT_WRITE_IMM = 3,
};
const char *rt_dut_opcode_name(enum rt_dut_opcode op);	/* "WRITE_IMM" */
/* The opcode named s (any case); false when there is none. */
bool rt_dut_opcode_parse(const char *s, enum rt_dut_opcode *op);

/* Completion status (roce_endpoint m_cpl_status). */
enum rt_dut_status {
	RT_DUT_SUCCESS = 0,
	RT_DUT_RETRY_EXCEEDED = 1,
	RT_DUT_RNR_RETRY_EXCEEDED = 2,
	RT_DUT_REMOTE_INVALID = 3,
	RT_DUT_REMOTE_ACCESS = 4,
	RT_DUT_REMOTE_OP = 5,
	RT_DUT_FLUSHED = 6,
};
const char *rt_dut_status_name(unsigned status);	/* "rnr-retry-exceeded"; "status-N" past the list */

/* QP states as the connection manager keeps them (cm-frame.md). */
enum rt_dut_qp_state {
	RT_DUT_QPS_RESET = 0,
	RT_DUT_QPS_INIT = 1,
	RT_DUT_QPS_RTR = 2,
	RT_DUT_QPS_RTS = 3,
	RT_DUT_QPS_ERROR = 7,
};

struct rt_dut_wr {
	uint32_t qp;		/* index 0 .. n_qp-1 */
	uint8_t opcode;		/* enum rt_dut_opcode */
	uint64_t local_addr;	/* in the application memory */
	uint32_t length;
	uint64_t remote_va;
	uint32_t rkey;
	uint32_t imm;
	uint64_t wr_id;		/* bit 63 clear: set marks the built-in generator's WRs */
};

struct rt_dut_cpl {
	uint32_t qp;
	uint64_t wr_id;
	uint8_t status;		/* enum rt_dut_status */
	uint64_t tick;		/* when it came out */
};

/* Run-time configuration, applied by reset. */
struct rt_dut_config {
	uint8_t mac[6];
	uint32_t ip;			/* IPv4, host order */
	uint32_t rkey;			/* the R_Key the CM announces for our memory */
	uint64_t base_addr;		/* ... and its base address */
	uint32_t psn;			/* QP i starts at psn + i * 0x10000 */
	uint8_t pmtu_code;		/* 0..4: 256 << code, for QPs opened from now on */
	uint8_t timeout[RT_DUT_MAX_QP];	/* local ACK timeout code per QP */
	uint8_t retry_cnt[RT_DUT_MAX_QP];
	uint8_t rnr_retry[RT_DUT_MAX_QP];	/* 7: unlimited */
	/*
	 * A simulated device's surroundings, so that tests vary what a board's
	 * memory and MAC would do (a board ignores them): cycles from a read
	 * request to its first data beat, and the probability per cycle and
	 * port of back-pressure. 0: the device's own default.
	 */
	uint32_t mem_latency;
	double p_stall;
};

struct rt_dut_counters {
	uint32_t tx_pkts;		/* RoCE request packets sent, retransmissions included */
	uint32_t retransmissions;
	uint32_t timeouts;
	uint32_t naks;
	uint32_t rnr_naks;
	uint32_t rx_frames;
	uint32_t rx_ack;
	uint32_t rx_cm;
	uint32_t rx_arp;
	uint32_t rx_cnp;
	uint32_t rx_drop_bad_icrc;
	uint32_t rx_drop_not_for_us;
	uint32_t rx_drop_malformed;
	uint32_t rx_drop_unsupported;
	uint32_t cm_acks;
	uint32_t cm_naks;
	uint32_t cm_no_qp;
	uint32_t arp_replies_out;
	/*
	 * TX underruns the port check saw (not the device's own counters): cycles
	 * inside a frame when the MAC was ready for the next beat and tvalid was
	 * low, and the frames that had any. A real MAC (Xilinx CMAC: tx_unfout)
	 * corrupts such a frame, so any is a port-contract violation.
	 */
	uint32_t tx_underrun_cycles;
	uint32_t tx_underrun_frames;
};

struct rt_dut_info {
	char name[96];		/* "roce_endpoint (Verilator 5.006, 512 bits, N_QP 4, 322.266 MHz)" */
	/*
	 * What the device was built from, so a report cannot be taken for a run
	 * of other hardware: the Verilator model's is "rtl sha256:" and the
	 * SHA-256 of the RTL it was built from (the .v files of dut/rtl/, or a
	 * mutant's copy, concatenated in name order); "" when the device cannot say.
	 */
	char build_id[96];
	unsigned data_width;
	unsigned n_qp;
	uint32_t qpn_base;	/* QP i has QPN qpn_base + i */
	double clk_hz;		/* the device's logic clock (informative) */
	double tick_hz;		/* the unit of advance and now: clk_hz for a simulator, 1e9 for a board */
	uint64_t mem_base;	/* the application memory the device reads */
	uint32_t mem_size;
	double mac_gbps;	/* the rate its MAC puts frames on the wire (0: unpaced) */
};

/*
 * The device. Every function returns 0 or -1 with a message in err (size
 * errlen) unless said otherwise.
 */
struct rt_dut_ops {
	void *ctx;
	struct rt_dut_info info;
	/* Applies cfg and resets the device (QPs RESET, queues and counters cleared). */
	int (*reset)(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen);
	/* Applies cfg without a reset: cfg_* are read live (a QP takes pmtu_code when it is opened). */
	int (*configure)(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen);
	/* Queues one frame for the device's RX port; it goes in as soon as the port takes it. */
	int (*push_rx)(void *ctx, const uint8_t *frame, uint32_t len, char *err, size_t errlen);
	/*
	 * The oldest frame the device sent: 1 with *len and *start_ps (when its
	 * first bit went on the wire, in ps since reset), 0 when there is none.
	 * -1 when it does not fit in cap.
	 */
	int (*pull_tx)(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps);
	/* Queues a work request for the WR port. */
	int (*post_wr)(void *ctx, const struct rt_dut_wr *wr, char *err, size_t errlen);
	/* The oldest completion: 1, or 0 when there is none. */
	int (*poll_cpl)(void *ctx, struct rt_dut_cpl *cpl);
	/* Lets n ticks of device time pass; now() counts them since reset. */
	void (*advance)(void *ctx, uint64_t n);
	uint64_t (*now)(void *ctx);
	/* The application memory: info.mem_size bytes at info.mem_base. */
	uint8_t *(*memory)(void *ctx);
	void (*counters)(void *ctx, struct rt_dut_counters *c);
	unsigned (*qp_state)(void *ctx, unsigned qp);	/* enum rt_dut_qp_state */
	/*
	 * True when nothing is on its way into the device (RX frames, WRs), no
	 * memory read, TX frame or completion is in progress on its ports, and
	 * the ports have been idle for a while (the Verilator model: 256 cycles,
	 * so that its pipelines have brought out what they held). Frames and
	 * completions already waiting for pull_tx / poll_cpl do not count; a
	 * device waiting for the peer (an ACK) or for its ACK timer is quiet.
	 */
	bool (*quiet)(void *ctx);
	/*
	 * The first breach of its port contracts the harness saw (a memory read
	 * outside the memory, a TX beat with a gap in tkeep, a frame marked bad),
	 * or NULL.
	 */
	const char *(*port_error)(void *ctx);
	void (*destroy)(void *ctx);
};


/* Bumped when struct rt_dut_plugin, rt_dut_ops or what they pass changes incompatibly. */
#define RT_DUT_PLUGIN_ABI 2
/* The one symbol a device plugin exports: a const struct rt_dut_plugin. */
#define RT_DUT_PLUGIN_SYMBOL "rt_dut_plugin_v1"

/* What a front end asks of the device it opens. */
struct rt_dut_open_params {
	unsigned data_width;	/* the stream width the device must have; 0: whatever it has */
	uint64_t seed;		/* of what the device randomises (back-pressure), for reproducible runs */
};

struct rt_dut_plugin {
	int abi;		/* RT_DUT_PLUGIN_ABI as the plugin was built */
	const char *name;	/* what it drives, e.g. "the Verilator model of roce_endpoint" */
	/*
	 * Opens a device: fills *ops (ctx, info and every function; destroy
	 * closes it), or returns -1 with a message in err that names the
	 * parameter at fault.
	 */
	int (*open)(const struct rt_dut_open_params *p, struct rt_dut_ops *ops, char *err, size_t errlen);
};

/* 0 when every function of ops is set; else -1 naming the first missing one in err. */
int rt_dut_ops_check(const struct rt_dut_ops *ops, char *err, size_t errlen);

#endif
