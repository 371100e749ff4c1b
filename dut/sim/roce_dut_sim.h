/* SPDX-License-Identifier: MIT */
/*
 * The FPGA endpoint (dut/rtl/roce_endpoint.v) as a Verilator model behind a
 * C API: build/dut/wW/libroce_dut_sim.so (make dut-sim), one per DATA_WIDTH.
 * It is a device plugin (rocetest/dut.h): `rocetest run` loads it by its
 * one entry, rt_dut_plugin_v1, and drives it through struct rt_dut_ops. The
 * C API below (the smoke test's) is exported too: roce_dut_sim_ops fills the
 * same ops from a model made with chosen parameters.
 *
 * The model is the endpoint plus what a board would put around it:
 *   - RX: frames queued by push_rx go into the MAC RX stream one beat per
 *     cycle (tkeep contiguous, tlast on the last beat, tuser 0).
 *   - WR port: a queue in front of s_wr_*; completions are taken as they
 *     come out and queued with their cycle.
 *   - Application memory: mem_size bytes at mem_base, read requests answered
 *     in order after mem_latency cycles, one beat per cycle. A read outside
 *     it (or of length 0) is a port error and is answered with zeros. The
 *     memory starts as seeded garbage, and a beat's lanes past tkeep carry
 *     garbage too (the DUT must mask them).
 *   - TX MAC: takes beats at mac_gbps on the wire (preamble 8 + FCS 4 +
 *     IFG 12 bytes per frame, 64-byte minimum frame) with a one-beat FIFO,
 *     stamps each frame with the picosecond its first bit goes out, checks
 *     tkeep and drops (and reports) frames marked bad with tuser. A cycle
 *     inside a frame when it is ready and tvalid is low is an underrun (a
 *     real MAC sends the frame broken): counted, and a port error.
 * p_stall adds random back-pressure on the memory response and TX ports
 * (and the memory request and completion ports), reproducibly from seed.
 *
 * An instance owns everything it uses: instances are independent (one
 * thread at a time per instance).
 */
#ifndef ROCE_DUT_SIM_H
#define ROCE_DUT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/dut.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when this header changes incompatibly. */
#define ROCE_DUT_SIM_ABI 1

struct roce_dut_sim_params {
	unsigned data_width;	/* must be the width this model was built with */
	unsigned n_qp;		/* must equal the built N_QP */
	double clk_hz;		/* must equal the built CLK_FREQ_HZ (the RTL's timers are compiled from it); 0 = the built one */
	uint64_t mem_base;	/* application memory: mem_size bytes at mem_base */
	uint32_t mem_size;
	double mac_gbps;	/* TX MAC rate on the wire; 0 = tready always high (frames stamped with their first beat's cycle) */
	uint32_t mem_latency;	/* cycles from an accepted read request to its first data beat (a reset's
				   rt_dut_config.mem_latency, when not 0, replaces it) */
	double p_stall;		/* probability per cycle and port of random back-pressure (0..1); 0 = none
				   (likewise rt_dut_config.p_stall) */
	uint64_t seed;		/* of the stalls; re-applied by every reset */
};

struct roce_dut_sim;

/* ROCE_DUT_SIM_ABI as the .so was built. */
int roce_dut_sim_abi(void);
/* The built width / N_QP / clock, mem_base 0x0000000123400000, mem_size
 * 32 MiB, mac_gbps 100, mem_latency 20, p_stall 0, seed 1. */
void roce_dut_sim_params_init(struct roce_dut_sim_params *p);
/* A new model (memory filled with seeded garbage; reset with an all-zero rt_dut_config, so it
 * answers nobody until roce_dut_sim_reset), or NULL with a message in err
 * naming the parameter at fault and the value the model was built with. */
struct roce_dut_sim *roce_dut_sim_create(const struct roce_dut_sim_params *p, char *err, size_t errlen);
void roce_dut_sim_destroy(struct roce_dut_sim *s);
/* Fills ops (ctx = s) so the harness drives the model through struct rt_dut_ops. */
void roce_dut_sim_ops(struct roce_dut_sim *s, struct rt_dut_ops *ops);

/* The functions behind the ops (see rocetest/dut.h for each). */
int roce_dut_sim_reset(struct roce_dut_sim *s, const struct rt_dut_config *cfg, char *err, size_t errlen);
int roce_dut_sim_configure(struct roce_dut_sim *s, const struct rt_dut_config *cfg, char *err, size_t errlen);
int roce_dut_sim_push_rx(struct roce_dut_sim *s, const uint8_t *frame, uint32_t len, char *err, size_t errlen);
/* -1 when the frame does not fit in cap: it stays queued, *len says how big it is. */
int roce_dut_sim_pull_tx(struct roce_dut_sim *s, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps);
int roce_dut_sim_post_wr(struct roce_dut_sim *s, const struct rt_dut_wr *wr, char *err, size_t errlen);
int roce_dut_sim_poll_cpl(struct roce_dut_sim *s, struct rt_dut_cpl *cpl);
void roce_dut_sim_step(struct roce_dut_sim *s, uint64_t n);
uint64_t roce_dut_sim_cycle(struct roce_dut_sim *s);
uint8_t *roce_dut_sim_memory(struct roce_dut_sim *s);
void roce_dut_sim_counters(struct roce_dut_sim *s, struct rt_dut_counters *c);
/* RT_DUT_QPS_RESET for qp >= n_qp. */
unsigned roce_dut_sim_qp_state(struct roce_dut_sim *s, unsigned qp);
bool roce_dut_sim_quiet(struct roce_dut_sim *s);
const char *roce_dut_sim_port_error(struct roce_dut_sim *s);
void roce_dut_sim_info(struct roce_dut_sim *s, struct rt_dut_info *info);

#ifdef __cplusplus
}
#endif

#endif
