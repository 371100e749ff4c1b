/* SPDX-License-Identifier: MIT */
/*
 * The board's control socket (board.h), both ends' view: a Unix
 * SOCK_SEQPACKET socket, one message per packet, each a fixed C struct that
 * starts with struct ctl_hdr. Both ends are this library on this machine,
 * so the structs go as they are; the header's version and the hello's size
 * check catch a board and a harness from different builds.
 *
 * The board speaks first (CTL_HELLO). Requests that can fail are answered
 * in order (CTL_REPLY, CTL_STATUS); work requests and memory writes are not:
 * the board checks what it can and reports a refusal as CTL_FAULT.
 * Completions come as CTL_CPL the moment the device gives them out.
 */
#ifndef ROCETEST_IFACE_CTL_H
#define ROCETEST_IFACE_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/dut.h"
#include "rocetest/error.h"

#define CTL_VERSION 1
#define CTL_MEM_CHUNK 32768
#define CTL_TEXT 256

enum ctl_type {
	CTL_HELLO = 1,		/* board: what it is */
	CTL_RESET,		/* harness: reset with a configuration; CTL_REPLY */
	CTL_CONFIGURE,		/* harness: configure; CTL_REPLY */
	CTL_POST_WR,		/* harness: a work request */
	CTL_MEM_WRITE,		/* harness: bytes of the application memory */
	CTL_STATUS_REQ,		/* harness: CTL_STATUS, please */
	CTL_STATUS,		/* board: counters, QP states, quiet, its port's counts */
	CTL_REPLY,		/* board: the outcome of CTL_RESET or CTL_CONFIGURE */
	CTL_CPL,		/* board: a completion */
	CTL_FAULT,		/* board: a request it did not carry out */
	CTL_TYPES
};

struct ctl_hdr {
	uint32_t type;		/* enum ctl_type */
	uint32_t version;	/* CTL_VERSION */
};

struct ctl_hello {
	struct ctl_hdr h;
	struct rt_dut_info info;
	double slowdown;	/* its model runs this many times slower than the wall clock */
};

struct ctl_reset {
	struct ctl_hdr h;
	struct rt_dut_config cfg;
	uint8_t harness_mac[6];	/* frames from it are counted apart (quiet) */
};

struct ctl_wr {
	struct ctl_hdr h;
	struct rt_dut_wr wr;
};

struct ctl_mem {
	struct ctl_hdr h;
	uint32_t offset, len;
	uint8_t data[CTL_MEM_CHUNK];	/* len of them are sent */
};

struct ctl_status {
	struct ctl_hdr h;
	struct rt_dut_counters counters;
	uint8_t qp_state[RT_DUT_MAX_QP];
	bool quiet;
	/* Since the last reset. */
	uint64_t rx_from_harness;	/* frames from harness_mac it took off the wire */
	uint64_t tx_frames;		/* frames it put on the wire */
	uint64_t wrs;			/* CTL_POST_WRs it took */
	int64_t max_lag_ns;		/* furthest behind its schedule, its ns */
	uint64_t live_dropped, live_if_dropped;	/* its capture's pcap_stats */
	char port_error[CTL_TEXT];	/* the device's, "" for none */
};

struct ctl_reply {
	struct ctl_hdr h;
	int32_t rc;		/* 0 or -1 */
	int64_t t_reset_ns;	/* CTL_RESET: the wall clock (CLOCK_REALTIME) at its time 0 */
	char msg[CTL_TEXT];
};

struct ctl_cpl {
	struct ctl_hdr h;
	struct rt_dut_cpl cpl;
};

struct ctl_fault {
	struct ctl_hdr h;
	char msg[CTL_TEXT];
};

union ctl_msg {
	struct ctl_hdr h;
	struct ctl_hello hello;
	struct ctl_reset reset;
	struct ctl_wr wr;
	struct ctl_mem mem;
	struct ctl_status status;
	struct ctl_reply reply;
	struct ctl_cpl cpl;
	struct ctl_fault fault;
};

/*
 * Sends a message of type t whose struct is len bytes (the header is filled
 * in): 0 when sent; when the socket has no room, waits for it, or returns 1
 * if !wait; -1 with err.
 */
int ctl_send(int fd, uint32_t t, void *msg, size_t len, bool wait, struct rt_error *err);
/*
 * The next message: 1 when one came (checked: version, and the size its type
 * has), 0 when none came within timeout_ms (0: do not wait), -1 with err
 * when the other end closed, or sent something malformed.
 */
int ctl_recv(int fd, union ctl_msg *m, int timeout_ms, struct rt_error *err);

#endif
