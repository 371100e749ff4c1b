/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * A virtual board: a device (dut.h, e.g. the Verilator model of dut/)
 * attached to a network interface with libpcap (`rocetest board`). Frames
 * from the wire go into its RX port, frames it sends go out, in real time:
 * its clock is paced against the wall clock, slowed down by a constant
 * factor (a model that simulates ~340,000 cycles a second cannot keep a
 * 322 MHz clock; at slowdown K it keeps 1/K of it, and a harness that runs
 * on the board's time, iface.h, sees a device at full speed).
 *
 * Beside the wire it serves a control socket (a Unix socket path) through
 * which `rocetest run --dut iface:NAME --board-control PATH` resets and
 * configures it, posts work requests, writes its memory and reads its
 * completions, counters, QP states and port errors: what a real board's
 * management interface would offer. One harness at a time; when it
 * leaves, the device is reset to the board's own addresses, so that ARP
 * and the CM frames (`rocetest cm`) find it where its options put it.
 */
#ifndef ROCETEST_BOARD_H
#define ROCETEST_BOARD_H

#include <signal.h>
#include <stdint.h>

#include "rocetest/dut.h"
#include "rocetest/error.h"

/* The Verilator model keeps time at this slowdown with room to spare on a busy 2-core machine. */
#define RT_BOARD_SLOWDOWN 5000

struct rt_board_config {
	const char *iface;
	uint8_t mac[6];
	uint32_t ip;			/* host order */
	const char *control;		/* the control socket's path: created, removed on exit */
	double slowdown;		/* >= 1; 0: RT_BOARD_SLOWDOWN */
	unsigned buffer_mib;		/* the capture buffer; 0: RT_LIVE_BUFFER_MIB */
	volatile sig_atomic_t *stop;	/* the board stops when this becomes non-zero */
};

/* What the board did, for its report. */
struct rt_board_stats {
	uint64_t frames_in, frames_out;	/* from and to the wire */
	uint64_t ticks;			/* device time run, its ticks */
	double device_s;		/* wall clock spent running the device */
	double wall_s;
	int64_t max_lag_ns;		/* furthest behind its schedule, of its time */
	uint64_t live_dropped, live_if_dropped;	/* pcap_stats */
	uint64_t harnesses;		/* control connections served */
	char tstamp[32];
};

/*
 * The configuration the board gives its device when no harness has set
 * one: its MAC and IP, R_Key 0x00001234 for the memory at mem_base, first
 * PSN 0, PMTU 4096, local ACK timeout 14, retry_cnt and rnr_retry 7.
 */
void rt_board_own_config(struct rt_dut_config *c, const uint8_t mac[6], uint32_t ip, uint64_t mem_base);

/*
 * Runs the board until *stop: 0 then, with *st filled; -1 with err when
 * the interface or the control socket cannot be opened or fails.
 */
int rt_board_serve(struct rt_dut_ops *dev, const struct rt_board_config *c, struct rt_board_stats *st,
		   struct rt_error *err);

#endif
