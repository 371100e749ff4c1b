/* SPDX-License-Identifier: MIT */
/* Layer: run. */
/*
 * `rocetest peer`, the host side of a board on a real RDMA stack
 * (libibverbs), in the parts that need no RDMA device:
 *
 *   GID choice    which entry of a port's GID table the host's QP uses:
 *                 RoCE v2 with an IPv4-mapped address, since the board
 *                 speaks RoCE v2 over IPv4 only.
 *   CM exchange   OPEN_QP, SEND_QP_INFO, MODIFY_QP_RTS, txmeta start and
 *                 CLOSE_QP of cm-frame.md over any datagram transport (a
 *                 UDP socket in the front end), in that order, each with
 *                 timeouts, retries and its reply checked.
 *   QP attributes RESET -> INIT -> RTR -> RTS from the board's reply, in
 *                 numbers independent of verbs.h.
 *   generator     the messages the board's traffic generator sends
 *                 (roce_txgen) and the data it reads them from, and the
 *                 check of what arrived.
 *   rates         throughput and message rate.
 * The verbs calls themselves are the front end's (harness/cli/cmd_peer*.c).
 */
#ifndef ROCETEST_PEER_H
#define ROCETEST_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/cm.h"
#include "rocetest/error.h"

/* ---- GID choice ------------------------------------------------------- */

/* As verbs.h's enum ibv_gid_type. */
enum rt_gid_type { RT_GID_IB = 0, RT_GID_ROCE_V1 = 1, RT_GID_ROCE_V2 = 2 };

struct rt_gid_entry {
	unsigned index;
	enum rt_gid_type type;
	uint8_t gid[16];
	char netdev[32];	/* "" when unknown */
};

/* "IB", "RoCE v1", "RoCE v2". */
const char *rt_gid_type_name(enum rt_gid_type t);
/* True with *ip (host order) when gid is ::ffff:a.b.c.d. */
bool rt_gid_ipv4(const uint8_t gid[16], uint32_t *ip);
/* "fe80:0000:...:0001" into buf of at least 40 bytes. */
const char *rt_gid_format(const uint8_t gid[16], char *buf);

struct rt_gid_choice {
	unsigned index;		/* of the chosen entry */
	uint32_t ip;		/* its IPv4 address, host order */
	char why[256];		/* one sentence: why this entry */
};

/*
 * Chooses the entry of table (n entries, as the device lists them) the
 * host's QP sends from. force >= 0: that index, which must be a RoCE v2
 * entry with an IPv4-mapped address. Else the RoCE v2 IPv4-mapped entry
 * with address want_ip (host order; 0: the first such entry). 0, or -1
 * with err saying why none fits and listing the table (rt_gid_table_format).
 */
int rt_gid_choose(const struct rt_gid_entry *table, size_t n, int force, uint32_t want_ip,
		  struct rt_gid_choice *c, struct rt_error *err);
/* The table, one "  index  type  GID  [IPv4]  netdev" line per entry, into buf. */
void rt_gid_table_format(const struct rt_gid_entry *table, size_t n, char *buf, size_t size);

/* ---- The CM exchange ------------------------------------------------- */

/*
 * A datagram transport to the board's CM port. send: one 64-byte payload to
 * the board's port 0x4321 (0, or -1 with err). recv: waits up to timeout_ms
 * for one datagram: 1 with its payload, length, source IPv4 (host order) and
 * port; 0 on timeout; -1 with err.
 */
struct rt_peer_transport {
	void *ctx;
	int (*send)(void *ctx, const uint8_t payload[RT_CM_PAYLOAD_BYTES], struct rt_error *err);
	int (*recv)(void *ctx, uint8_t *buf, size_t size, size_t *len, uint32_t *src_ip, uint16_t *src_port,
		    unsigned timeout_ms, struct rt_error *err);
};

/* The host's QP as SEND_QP_INFO tells it to the board. */
struct rt_peer_host {
	uint32_t qpn, psn, rkey;
	uint64_t base;
	uint32_t ip;		/* host order */
	uint16_t port;		/* listening_port */
};

/* The board's QP as its OPEN_QP reply gives it. */
struct rt_peer_board {
	uint32_t ip;		/* host order: where replies must come from */
	uint32_t qpn, psn, rkey;
	uint64_t base;
};

/* What the board's traffic generator is asked to send (the txmeta fields). */
struct rt_peer_traffic {
	uint32_t count, length, frequency;
	bool write, imm;
};

enum rt_peer_step { RT_PEER_IDLE, RT_PEER_OPENED, RT_PEER_INFORMED, RT_PEER_RTS, RT_PEER_STARTED, RT_PEER_CLOSED };

struct rt_peer_cm {
	struct rt_peer_transport t;
	unsigned timeout_ms, attempts;	/* per attempt; 1 + retries */
	struct rt_peer_host host;
	struct rt_peer_board board;
	enum rt_peer_step step;
	unsigned last_attempt;		/* the attempt that got the last reply, from 1 */
	unsigned strays;		/* datagrams ignored: not a CM reply from the board */
	struct rt_cm_msg last_reply;
};

/* The outcome of one request. */
enum rt_peer_cm_result { RT_PEER_CM_ACK = 0, RT_PEER_CM_REFUSED = 1, RT_PEER_CM_NO_ANSWER = 2, RT_PEER_CM_FAILED = 3 };

/* A client for the board at board_ip; host filled but for qpn (the QP does not exist yet). */
void rt_peer_cm_init(struct rt_peer_cm *cm, const struct rt_peer_transport *t, uint32_t board_ip,
		     const struct rt_peer_host *host, unsigned timeout_ms, unsigned attempts);

/*
 * The requests, in this order (a request out of order fails with err):
 * open (fills cm->board), info (host->qpn must be set by now), rts, start
 * (again for another batch once the board has sent the last), and close at
 * any point after open. Each is resent after each timeout;
 * every reply is checked (from the board's IP and port 0x8765, 64 bytes,
 * ack_valid, and what the request needs: OPEN_QP a QPN, SEND_QP_INFO the
 * host's fields echoed). err says what went wrong for anything but ACK.
 */
enum rt_peer_cm_result rt_peer_cm_open(struct rt_peer_cm *cm, struct rt_error *err);
enum rt_peer_cm_result rt_peer_cm_info(struct rt_peer_cm *cm, struct rt_error *err);
enum rt_peer_cm_result rt_peer_cm_rts(struct rt_peer_cm *cm, struct rt_error *err);
enum rt_peer_cm_result rt_peer_cm_start(struct rt_peer_cm *cm, const struct rt_peer_traffic *tr, struct rt_error *err);
enum rt_peer_cm_result rt_peer_cm_close(struct rt_peer_cm *cm, struct rt_error *err);

/* ---- QP attributes ----------------------------------------------------- */

/* verbs.h's enum ibv_mtu (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5) of a PMTU in bytes; 0 when it is none. */
unsigned rt_peer_mtu_enum(uint32_t pmtu);
/* The PMTU in bytes of an ibv_mtu value; 0 when it is none. */
uint32_t rt_peer_mtu_bytes(unsigned mtu_enum);

/* Everything RESET -> INIT -> RTR -> RTS sets on the host's RC QP, in verbs' units. */
struct rt_peer_qp_attr {
	unsigned port;			/* INIT */
	unsigned pkey_index;
	bool remote_write;		/* IBV_ACCESS_REMOTE_WRITE, for the board's WRITEs */
	unsigned path_mtu;		/* RTR: enum ibv_mtu */
	uint32_t dest_qpn, rq_psn;	/* the board's QPN and first PSN */
	unsigned max_dest_rd_atomic;	/* READs the board may have outstanding (it sends none) */
	unsigned min_rnr_timer;		/* the RNR NAK's timer code */
	uint8_t dgid[16];		/* ::ffff:board IP */
	unsigned sgid_index, hop_limit;
	uint32_t sq_psn;		/* RTS: the PSN SEND_QP_INFO gave the board */
	unsigned timeout, retry_cnt, rnr_retry, max_rd_atomic;
};

struct rt_peer_qp_params {
	unsigned port;
	unsigned sgid_index;
	uint32_t pmtu;			/* the board's PMTU in bytes */
	uint32_t port_active_pmtu;	/* the port's active MTU in bytes (0: unknown) */
	unsigned min_rnr_timer;
};

/* The attributes from the exchange; -1 with err when the PMTU is impossible (not 256..4096, above the port's). */
int rt_peer_qp_attr(const struct rt_peer_cm *cm, const struct rt_peer_qp_params *p, struct rt_peer_qp_attr *a,
		    struct rt_error *err);

/* ---- The generator's messages and data ------------------------------- */

/*
 * Message k of a txmeta start as roce_txgen posts it: read from the board's
 * memory at local_offset (from its base), written to remote_offset (from
 * rem_base_addr), immediate k, wr_id with bit 63 set. length is dma_length.
 */
struct rt_txgen_msg {
	uint64_t local_offset, remote_offset;
	uint32_t imm;
	uint64_t wr_id;
};
void rt_txgen_message(unsigned qp_index, uint32_t length, uint32_t k, struct rt_txgen_msg *m);

/*
 * The board's memory as the virtual board fills it when it serves no
 * harness (and as the peer expects it): little-endian 32-bit words, word i
 * (offset 4i) holding i. n bytes from offset into buf.
 */
void rt_txgen_pattern(uint64_t offset, uint8_t *buf, size_t n);
/*
 * The first byte of got (n bytes, read from board offset offset) that is
 * not the pattern: its index, or n when all are.
 */
size_t rt_txgen_pattern_mismatch(uint64_t offset, const uint8_t *got, size_t n);

/* ---- Rates ----------------------------------------------------------- */

/* Messages received since the start (the txmeta frame), counted as they complete. */
struct rt_peer_rate {
	uint64_t messages, bytes, errors;
	int64_t start_ns, last_ns;	/* the start; the last message (start_ns before any) */
};
void rt_peer_rate_init(struct rt_peer_rate *r, int64_t start_ns);
/* One message of bytes at now_ns; ok false counts an error (its bytes are not counted). */
void rt_peer_rate_add(struct rt_peer_rate *r, int64_t now_ns, uint32_t bytes, bool ok);
/* From the start to the last message (0 before any): Gb/s of payload and messages per second. */
double rt_peer_rate_gbps(const struct rt_peer_rate *r);
double rt_peer_rate_mps(const struct rt_peer_rate *r);

#endif
