/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * Hardware mode: a device behind a network interface of this machine.
 *
 *   live port   libpcap on an interface: live capture (immediate mode, a
 *               BPF filter, a kernel buffer sized for 100 Gb/s bursts,
 *               adapter timestamps where the interface has them, drop
 *               counters) and pcap_inject for what the harness sends.
 *   iface device  a board on the far end of an interface as a device of
 *               dut.h (`rocetest run --dut iface:NAME`): its frames are
 *               the live port's, everything else (reset, configuration,
 *               work requests, completions, its memory, counters, QP states)
 *               goes over the board's control socket (board.h), which the
 *               virtual board of `rocetest board` serves.
 *   CM client   ARP and the CM frame of cm-frame.md over a live port, with
 *               timeouts and retries (`rocetest cm`).
 *
 * Time: a board's tick is a nanosecond of its own time, which is the wall
 * clock divided by the slowdown the board declares (1 for real hardware; the
 * virtual board runs its model that many times slower than its clock says).
 * The harness's peer, link, timers and captures all run on that time, so a
 * slow model is timed as if it ran at speed.
 */
#ifndef ROCETEST_IFACE_H
#define ROCETEST_IFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/cm.h"
#include "rocetest/dut.h"
#include "rocetest/error.h"
#include "rocetest/run.h"

/* ---- The live port ---------------------------------------------------- */

/* A 100 Gb/s link fills this in about 5 ms. */
#define RT_LIVE_BUFFER_MIB 64
#define RT_LIVE_SNAPLEN 9600

struct rt_live_config {
	const char *iface;
	const char *filter;	/* BPF (tcpdump syntax); NULL: every frame */
	unsigned buffer_mib;	/* the kernel's capture buffer; 0: RT_LIVE_BUFFER_MIB */
	bool promisc;		/* also frames to other MAC addresses */
};

struct rt_live;

/*
 * Opens the interface for capture (incoming frames only) and injection.
 * Without the privilege, the message names CAP_NET_RAW and how to grant it.
 */
struct rt_live *rt_live_open(const struct rt_live_config *c, struct rt_error *err);
void rt_live_close(struct rt_live *l);
/* Replaces the BPF filter. */
int rt_live_set_filter(struct rt_live *l, const char *filter, struct rt_error *err);
/* A descriptor that becomes readable when frames wait (for poll). */
int rt_live_fd(const struct rt_live *l);
/*
 * The next captured frame without waiting: 1 with *frame (valid until the
 * next call), its length and its timestamp (ns, CLOCK_REALTIME); 0 when none
 * waits; -1 with err.
 */
int rt_live_next(struct rt_live *l, const uint8_t **frame, uint32_t *len, int64_t *ts_ns, struct rt_error *err);
int rt_live_send(struct rt_live *l, const uint8_t *frame, uint32_t len, struct rt_error *err);

struct rt_live_stats {
	uint64_t received;	/* frames the filter passed (pcap_stats ps_recv) */
	uint64_t dropped;	/* lost for lack of buffer (ps_drop) */
	uint64_t if_dropped;	/* dropped by the interface or its driver (ps_ifdrop) */
	uint64_t sent;		/* frames injected */
};
int rt_live_stats(struct rt_live *l, struct rt_live_stats *s, struct rt_error *err);
/* The timestamps' source: "adapter", "adapter (unsynced)", "host" ... */
const char *rt_live_tstamp(const struct rt_live *l);
const char *rt_live_iface(const struct rt_live *l);

/* The interface's MAC address. */
int rt_iface_hwaddr(const char *iface, uint8_t mac[6], struct rt_error *err);
/* Whether the kernel has ip (host order) on iface: then it would answer the board's frames itself. */
bool rt_iface_has_ipv4(const char *iface, uint32_t ip);
/* CLOCK_REALTIME in ns: the clock of libpcap's timestamps. */
int64_t rt_wall_ns(void);

/* "10.0.0.1" and "02:00:00:00:00:01" (or "02-00-..") to host order / bytes; false when malformed. */
bool rt_parse_ipv4(const char *s, uint32_t *ip);
bool rt_parse_mac(const char *s, uint8_t mac[6]);
/* Into buf of at least 18 bytes; returns buf. */
const char *rt_format_mac(const uint8_t mac[6], char *buf);
const char *rt_format_ipv4(uint32_t ip, char *buf);	/* at least 16 bytes */

/* ---- The CM client -------------------------------------------------- */

/* The two ends of a CM exchange: this machine (host) and the board. */
struct rt_cm_ends {
	uint8_t host_mac[6];
	uint32_t host_ip;
	uint16_t host_port;	/* listening_port: where replies go */
	uint8_t board_mac[6];
	uint32_t board_ip;
};

struct rt_cm_wait {
	unsigned timeout_ms;	/* per attempt, of the wall clock */
	unsigned attempts;	/* 1 + retries */
};

/*
 * Asks who has ends->board_ip (ARP) and fills ends->board_mac from the
 * reply. The live port's filter is left on ARP.
 */
int rt_live_arp_resolve(struct rt_live *l, struct rt_cm_ends *ends, const struct rt_cm_wait *w,
			struct rt_error *err);

/* The filter for a board's CM replies to the host: "udp src port 0x8765 and ..." into buf. */
void rt_cm_reply_filter(const struct rt_cm_ends *ends, char *buf, size_t size);

/*
 * Sends req to the board and waits for its reply (a CM frame from port
 * 0x8765 to ends->host_port), resending after each timeout. 1 with *rep
 * and the attempt that got it (from 1); 0 when no attempt got an answer;
 * -1 with err when the port failed. The live port's filter must pass the
 * replies (rt_cm_reply_filter). The frame carries no transaction number: a
 * reply that was only late answers the next attempt, and an OPEN_QP sent
 * twice may open two QPs.
 */
int rt_cm_transact(struct rt_live *l, const struct rt_cm_ends *ends, const struct rt_cm_msg *req,
		   const struct rt_cm_wait *w, struct rt_cm_msg *rep, unsigned *attempt, struct rt_error *err);

/* ---- The iface device ---------------------------------------------- */

struct rt_iface_params {
	const char *iface;
	const char *control;		/* the board's control socket (board.h) */
	uint32_t dut_ip;
	bool have_dut_mac;		/* else ARP finds it */
	uint8_t dut_mac[6];
	uint32_t local_ip;
	bool have_local_mac;		/* else the interface's own */
	uint8_t local_mac[6];
	unsigned buffer_mib;		/* 0: RT_LIVE_BUFFER_MIB */
	/* Most a virtual board may fall behind its schedule, in its ns (0: RT_IFACE_MAX_LAG_NS). */
	uint32_t max_lag_ns;
};

/*
 * A virtual board behind schedule delays everything it does by its lag, and
 * when it catches up the harness's capture shows its waits shortened by it:
 * one RNR timer (10 us at code 1) must stay far above that.
 */
#define RT_IFACE_MAX_LAG_NS 1000

/*
 * Opens the board: connects to its control socket, opens the live port
 * (filter: frames from the board's MAC), resolves that MAC by ARP unless
 * given. Refuses a local IP the kernel has on the interface (it would answer
 * the board's frames itself).
 */
int rt_iface_dut_open(const struct rt_iface_params *p, struct rt_dut_ops *ops, struct rt_error *err);
/* The addresses the runner must give the board (ops from rt_iface_dut_open). */
void rt_iface_dut_addrs(const struct rt_dut_ops *ops, struct rt_run_addrs *a);

/* What the live path saw since the device was opened (struct rt_run_live, run.h). */
/* ops must come from rt_iface_dut_open. */
void rt_iface_dut_totals(const struct rt_dut_ops *ops, struct rt_run_live *t);

#endif
