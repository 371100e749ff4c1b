/* SPDX-License-Identifier: MIT */
/* Layer: model. */
/*
 * The reference model of one queue pair: an RC requester and an RC responder
 * (and the UC and UD senders and receivers), each an explicit state machine
 * following wire-facts.md. A QP speaks frames: rt_qp_receive() takes an
 * Ethernet frame from the wire, rt_qp_next_frame() gives the next frame to
 * send. Time is virtual (nanoseconds, supplied by the caller), so a run is
 * deterministic. The same QP serves as one end of a simulated connection
 * (sim.h) and as the live peer of a device under test.
 *
 * A QP owns its memory (an RDMA-accessible region at a virtual address with
 * an R_Key, and a ring of receive buffers), its work requests and its
 * completion queue. Everything is allocated by rt_qp_new(); nothing is
 * allocated per packet.
 */
#ifndef ROCETEST_MODEL_H
#define ROCETEST_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/build.h"
#include "rocetest/error.h"
#include "rocetest/packet.h"

/* What a work request asks for. */
enum rt_wr_opcode {
	RT_WR_SEND,
	RT_WR_SEND_IMM,
	RT_WR_SEND_INV,
	RT_WR_WRITE,
	RT_WR_WRITE_IMM,
	RT_WR_READ,
	RT_WR_CMP_SWAP,
	RT_WR_FETCH_ADD,
	RT_WR_RECV,	/* completions of receive buffers only */
};
const char *rt_wr_opcode_name(enum rt_wr_opcode op);

struct rt_send_wr {
	uint64_t wr_id;
	enum rt_wr_opcode opcode;
	uint64_t local_offset;	/* into this QP's memory: the source, or where READ/atomic results go */
	uint32_t length;	/* atomics: ignored (8) */
	uint64_t remote_va;
	uint32_t rkey;
	uint32_t imm;		/* immediate data (_IMM), or the R_Key to invalidate (SEND_INV) */
	uint64_t compare;	/* Compare&Swap */
	uint64_t swap_add;	/* Compare&Swap: swap; Fetch&Add: add */
};

struct rt_recv_wr {
	uint64_t wr_id;
};

enum rt_wc_status {
	RT_WC_SUCCESS,
	RT_WC_RETRY_EXCEEDED,		/* local ACK timeout retry_cnt times */
	RT_WC_RNR_RETRY_EXCEEDED,	/* RNR NAK more than rnr_retry times */
	RT_WC_REMOTE_INVALID_REQUEST,	/* NAK invalid request */
	RT_WC_REMOTE_ACCESS_ERROR,	/* NAK remote access error */
	RT_WC_REMOTE_OPERATIONAL_ERROR,	/* NAK remote operational error */
	RT_WC_FLUSHED,			/* the QP went to the error state first */
	RT_WC_LOCAL_LENGTH_ERROR,	/* a received message did not fit the receive buffer */
};
const char *rt_wc_status_name(enum rt_wc_status s);

struct rt_wc {
	uint64_t wr_id;
	enum rt_wc_status status;
	enum rt_wr_opcode opcode;
	uint32_t byte_len;	/* receives: bytes placed */
	uint64_t recv_offset;	/* receives: where in the receive ring the message landed */
	bool with_imm;
	uint32_t imm;
	bool with_inv;
	uint32_t inv_rkey;
	int64_t time_ns;
};

/*
 * Deliberate misbehaviour, for negative vectors: each breaks one rule of
 * rules.md once, at the bug_at-th opportunity (1 = the first). A correct
 * peer then reacts as the spec says.
 */
enum rt_qp_bug {
	RT_BUG_NONE = 0,
	/* Field faults on the bug_at-th frame this QP sends (of the kind that can carry them). */
	RT_BUG_BAD_ICRC,	/* ICRC with its low bit flipped */
	RT_BUG_BAD_PAD,		/* a request with a payload not a multiple of 4 sent with PadCnt 0 */
	RT_BUG_TVER,		/* BTH TVer 1 */
	RT_BUG_RESPONSE_ACKREQ,	/* an ACK with AckReq set */
	RT_BUG_BAD_CNP,		/* a CNP with PSN 1 */
	/* Requester behaviour. */
	RT_BUG_SHORT_FIRST,	/* the First packet of a message carries PMTU/2 bytes */
	RT_BUG_NO_FIRST,	/* a multi-packet SEND starts with a Middle opcode */
	RT_BUG_INTERLEAVE,	/* a SEND Only goes out where a WRITE's Middle/Last belongs (same PSN and size) */
	RT_BUG_SKIP_PSN,	/* one PSN is never used */
	RT_BUG_RETH_LENGTH,	/* a WRITE's RETH says 4 bytes more than its payloads carry */
	RT_BUG_GO_BACK_WRONG,	/* after a NAK sequence error, resend from the PSN after the NAK's */
	RT_BUG_RNR_EARLY,	/* resend after an RNR NAK without waiting for its timer */
	RT_BUG_RETRANSMIT_ALTER,/* a retransmitted packet carries other payload bytes */
	RT_BUG_PSN_IN_READ,	/* the request after a READ of several responses takes the READ's PSN + 1 */
	/* Responder behaviour. */
	RT_BUG_ACCEPT_GAP,	/* take a request past a PSN gap as if it were expected */
	RT_BUG_ACK_AHEAD,	/* one ACK acknowledges 16 PSNs more than were received */
	RT_BUG_NAK_REPEAT,	/* a second NAK sequence error for the same expected PSN */
	RT_BUG_MSN_BACK,	/* one ACK carries an MSN one lower than the one before */
	RT_BUG_COUNT
};
const char *rt_qp_bug_name(enum rt_qp_bug b);	/* "bad-icrc" */
enum rt_qp_bug rt_qp_bug_by_name(const char *name);	/* RT_BUG_NONE if unknown */

#define RT_ACKREQ_LAST 0	/* ackreq_every: AckReq on Last/Only only */

struct rt_qp_config {
	/* Transport: RC, UC or UD (enum rt_transport). */
	uint8_t transport;

	/* Addressing of this end and of its peer. */
	uint8_t mac[6];
	uint8_t peer_mac[6];
	uint8_t ip_version;	/* 4 or 6 */
	uint8_t roce_version;	/* 2 (0 too): RoCE v2 (UDP); 1: RoCE v1 (a GRH, Ethertype 0x8915). Either is received. */
	uint8_t ip[16];
	uint8_t peer_ip[16];
	bool vlan;
	uint16_t vlan_tci;
	uint8_t tos;
	uint16_t udp_sport;

	/* The connection. */
	uint32_t qpn;
	uint32_t peer_qpn;
	uint32_t sq_psn;	/* first PSN this QP sends */
	uint32_t rq_psn;	/* first PSN it expects (the peer's sq_psn) */
	uint32_t pmtu;		/* 256..4096 */
	uint32_t qkey;		/* UD */

	/* Requester. */
	uint8_t timeout;	/* local ACK timeout code: 4.096 us * 2^timeout; 0 = no timer */
	uint8_t retry_cnt;	/* 0..7 */
	uint8_t rnr_retry;	/* 0..7, 7 = unlimited */
	uint32_t ackreq_every;	/* AckReq on Last/Only and every Nth packet (RT_ACKREQ_LAST: only Last/Only) */
	uint32_t window;	/* most packets outstanding (unacknowledged), >= 1 */
	uint32_t max_rd_atomic;	/* most READs and atomics outstanding, >= 1 */

	/* Responder. */
	uint8_t min_rnr_timer;	/* the timer code this QP's RNR NAKs carry */
	uint32_t ack_every;	/* ACK once per this many AckReq requests (coalescing), >= 1 */
	int64_t ack_delay_ns;	/* ... or when one has waited this long */
	uint8_t ack_credits;	/* credit code of ACKs (31: not limited) */
	bool send_cnp;		/* answer ECN-CE-marked packets with a CNP (at most one per 50 us) */
	/*
	 * > 0: the message of this number (1-based, in order) meets an internal
	 * failure: NAK remote operational error, QP to error. Not a bug of the
	 * responder: what a requester must survive (completion status, flush).
	 */
	uint32_t op_error_msg;

	/* Memory. */
	uint64_t mem_va;	/* the RDMA-accessible region: VA, size, R_Key */
	uint32_t mem_size;
	uint32_t rkey;
	uint32_t rq_depth;	/* receive buffers the ring holds */
	uint32_t recv_size;	/* bytes per receive buffer */

	/* Deliberate misbehaviour (negative vectors). */
	enum rt_qp_bug bug;
	uint32_t bug_at;	/* 1-based opportunity */

	/* Capacity: work requests queued at once. */
	uint32_t sq_depth;
};

/* Defaults: RC, IPv4, PMTU 1024, timeout 14, retry 7/7, 64 KiB memory, ... */
void rt_qp_config_init(struct rt_qp_config *cfg);
/* Local ACK timeout in ns for a timeout code (0: none). */
int64_t rt_local_ack_timeout_ns(uint8_t code);
/* RNR NAK timer in ns for a code (the table in wire-facts.md). */
int64_t rt_rnr_timer_ns(uint8_t code);

enum rt_qp_state {
	RT_QPS_RTS,
	RT_QPS_ERROR,
};

/* What a QP did, for tests and reports. */
struct rt_qp_stats {
	uint64_t frames_sent;
	uint64_t frames_received;
	uint64_t requests_sent;
	uint64_t retransmissions;	/* request packets sent again */
	uint64_t timeouts;		/* local ACK timer expiries */
	uint64_t naks_received;
	uint64_t rnr_naks_received;
	uint64_t acks_sent;
	uint64_t naks_sent;
	uint64_t rnr_naks_sent;
	uint64_t duplicates;		/* duplicate requests seen by the responder */
	uint64_t dropped;		/* frames dropped on receipt (bad ICRC, not ours, out of order) */
	uint64_t cnps_sent;
	uint64_t cnps_received;
	uint64_t bytes_placed;		/* payload bytes written into this QP's memory */
	uint64_t cq_overflow;		/* completions lost: no memory to keep them */
};

struct rt_qp;

/* Allocates a QP and its memory; NULL with err set if the config is unusable. */
struct rt_qp *rt_qp_new(const struct rt_qp_config *cfg, struct rt_error *err);
void rt_qp_free(struct rt_qp *qp);
const struct rt_qp_config *rt_qp_config(const struct rt_qp *qp);

/* Queues work. 0, or -1 with err set (queue full, bad length, QP in error). */
int rt_qp_post_send(struct rt_qp *qp, const struct rt_send_wr *wr, struct rt_error *err);
int rt_qp_post_recv(struct rt_qp *qp, const struct rt_recv_wr *wr, struct rt_error *err);
/* Sends one CNP to the peer QP at the next rt_qp_next_frame(). */
void rt_qp_request_cnp(struct rt_qp *qp);

/* Takes one frame from the wire at time now (frames not for this QP are dropped and counted). */
void rt_qp_receive(struct rt_qp *qp, int64_t now, const uint8_t *frame, uint32_t len);
/*
 * The same, for a caller that vouches for the ICRC: a simulated link passing
 * on a frame another model QP built, unchanged. The ICRC is then not
 * recomputed (it is the builder's own); everything else is checked.
 */
void rt_qp_receive_frame(struct rt_qp *qp, int64_t now, const uint8_t *frame, uint32_t len, bool icrc_known_good);

/*
 * The next frame to send at time now, built into buf; returns its length, or
 * 0 when there is nothing to send now. *bug is set to the misbehaviour this
 * frame carries (RT_BUG_NONE mostly), so a generator can name its frame.
 */
size_t rt_qp_next_frame(struct rt_qp *qp, int64_t now, uint8_t *buf, size_t cap, enum rt_qp_bug *bug);

/* The earliest time a timer of this QP runs out (INT64_MAX: none). */
int64_t rt_qp_next_deadline(const struct rt_qp *qp);
/* Lets the timers that ran out by now act (retransmission, RNR resend, delayed ACK). */
void rt_qp_advance(struct rt_qp *qp, int64_t now);

/* True when nothing is queued, outstanding or owed: the QP has nothing more to do. */
bool rt_qp_idle(const struct rt_qp *qp);

/* Takes the oldest completion; false when there is none. */
bool rt_qp_poll_cq(struct rt_qp *qp, struct rt_wc *wc);

enum rt_qp_state rt_qp_state(const struct rt_qp *qp);
const struct rt_qp_stats *rt_qp_stats(const struct rt_qp *qp);
/* The RDMA region (mem_size bytes at mem_va) and the receive ring (rq_depth * recv_size). */
uint8_t *rt_qp_memory(struct rt_qp *qp);
uint8_t *rt_qp_recv_memory(struct rt_qp *qp);
/* Largest frame this QP can send. */
size_t rt_qp_max_frame(const struct rt_qp *qp);

#endif
