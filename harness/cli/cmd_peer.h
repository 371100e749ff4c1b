/* SPDX-License-Identifier: MIT */
/* rocetest peer: what its option parsing, CM transport and verbs side share. */
#ifndef ROCETEST_CMD_PEER_H
#define ROCETEST_CMD_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/peer.h"

struct peer_opts {
	const char *device;		/* NULL: the first */
	unsigned ib_port;
	int gid_index;			/* -1: chosen */
	uint32_t dut_ip, local_ip;	/* local_ip 0: the GID's */
	uint16_t cm_port;		/* listening_port */
	unsigned timeout_ms, attempts;
	struct rt_peer_traffic traffic;
	uint32_t repeat;		/* txmeta starts, each of traffic.count messages */
	uint32_t pmtu;
	uint32_t rx_depth;		/* 0: min(count, 1024) */
	unsigned min_rnr_timer;
	bool busy_poll;
	int cpu;			/* -1: any */
	double wait_s;			/* for the traffic; 0: from its size */
	const char *json;
	bool cm_only;
	unsigned hold_ms;		/* --cm-only: between start and CLOSE_QP */
	uint32_t cm_only_qpn;		/* --cm-only: the QPN told to the board */
};

/* What a run found, for the summary and --json. */
struct peer_result {
	char device[64];
	struct rt_gid_choice gid;
	bool have_gid;
	uint32_t host_qpn, board_qpn;
	struct rt_peer_rate rate;
	uint64_t mismatches;		/* messages whose data or immediate was wrong */
	char first_error[256];		/* the first completion error or mismatch */
	uint64_t expected;
	int exit_code;
};

/* A UDP socket to the board's CM port, as an rt_peer_transport: 0, or -1 after saying why. */
struct peer_udp {
	int fd;
	uint32_t board_ip;
};
int peer_udp_open(struct peer_udp *u, uint32_t local_ip, uint16_t port, uint32_t board_ip);
void peer_udp_transport(struct peer_udp *u, struct rt_peer_transport *t);
void peer_udp_close(struct peer_udp *u);

/* The whole run on an RDMA device: an exit code, res filled. */
int peer_verbs_run(const struct peer_opts *o, struct peer_result *res);

#endif
