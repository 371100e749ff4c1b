/* SPDX-License-Identifier: MIT */
/*
 * Inside a model QP: the requester (qp_req.c) and the responder (qp_resp.c)
 * are two state machines that share the QP's addressing, memory and
 * completion queue (qp.c). Private to the library.
 */
#ifndef ROCETEST_QP_H
#define ROCETEST_QP_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/build.h"
#include "rocetest/model.h"
#include "rocetest/packet.h"

#define QP_NO_DEADLINE INT64_MAX

/* A send work request and where it stands on the wire. */
struct wqe {
	struct rt_send_wr wr;
	bool started;		/* PSNs assigned (first transmission began) */
	uint32_t first_psn;
	uint32_t npkts;		/* PSNs it occupies (READ: its responses) */
	uint32_t read_pkts;	/* READ: responses received in order */
	bool acked;		/* SEND/WRITE acknowledged; READ/atomic answered */
	enum rt_wc_status status;
};

/* The requester: a send queue walked by a cursor that can go back. */
struct requester {
	struct wqe *wq;
	uint32_t depth;
	uint32_t head;		/* oldest WQE not yet completed (counters run free, index mod depth) */
	uint32_t tail;		/* one past the newest */
	uint32_t cur;		/* the WQE the cursor is in */
	uint32_t cur_pkt;	/* the packet of it sent next */
	uint32_t next_new_psn;	/* PSN the next never-sent WQE gets */
	uint32_t max_sent;	/* one past the highest PSN sent so far (retransmission test) */
	uint32_t una;		/* oldest PSN not acknowledged */
	bool any_sent;
	uint32_t rd_atomic_out;	/* READs and atomics started and not answered */
	uint32_t retries;	/* timeouts and sequence NAKs since the last progress */
	uint32_t rnr_retries;	/* RNR NAKs since the last progress */
	bool rnr_wait;
	int64_t rnr_until;
	uint32_t rnr_psn;
	int64_t last_activity;	/* last send or acknowledged progress: the ACK timer runs from here */
	uint32_t pkts_since_ackreq;
	uint32_t read_gap_psn;	/* a READ re-requested from here after a lost response */
	bool read_gap;
	bool gone_back;		/* gone back for a NAK or implicit NAK: more are ignored until progress (as rxe does) */
	enum rt_qp_bug mark;	/* a misbehaviour that shows in the next request sent */
};

enum resp_item_kind {
	RESP_ACK,	/* ACK, NAK or RNR NAK: syndrome, psn, msn */
	RESP_READ,	/* READ response packets psn.., from va */
	RESP_ATOMIC,	/* atomic ACK */
};

struct resp_item {
	enum resp_item_kind kind;
	uint8_t syndrome;
	uint32_t psn;
	uint32_t msn;
	uint64_t va;		/* READ: where the next response's data starts */
	uint32_t len;		/* READ: bytes still to send */
	uint32_t pkt;		/* READ: responses sent so far */
	uint32_t npkts;		/* READ: responses in all */
	uint64_t orig;		/* atomic: the value before */
	enum rt_qp_bug bug;	/* the misbehaviour that made this answer */
};

#define RESP_QUEUE 256
#define ATOMIC_HISTORY 16

/* The responder: expected PSN, the open message, the receive ring, what it owes. */
struct responder {
	uint32_t epsn;
	uint32_t msn;
	bool nak_sent;		/* a NAK (sequence or RNR) for epsn is out: stay quiet until it comes */
	uint8_t msg_family;	/* RT_FAMILY_SEND, RT_FAMILY_WRITE, or RT_FAMILY_OTHER: none open */
	uint32_t msg_bytes;
	uint64_t write_va;
	uint32_t write_len;
	bool recv_taken;	/* the open SEND (or WRITE with immediate) holds a receive buffer */
	uint32_t recv_slot;
	/* The receive ring: posted buffers in order. */
	uint64_t *rq_ids;
	uint32_t rq_head;	/* next buffer to fill (counters run free) */
	uint32_t rq_tail;
	/* What it owes, in order. */
	struct resp_item q[RESP_QUEUE];
	uint32_t q_head, q_tail;
	uint32_t ack_pending;	/* AckReq requests not yet answered (coalescing) */
	int64_t ack_deadline;
	uint32_t last_msn_sent;
	struct {
		bool valid;
		uint32_t psn;
		uint64_t orig;
	} atomics[ATOMIC_HISTORY];
	uint32_t atomic_next;
	bool cnp_owed;
	int64_t last_cnp;
	enum rt_qp_bug mark;	/* a misbehaviour that shows in the next answer owed */
};

struct rt_qp {
	struct rt_qp_config cfg;
	enum rt_qp_state state;
	uint8_t *mem;
	uint8_t *recv_mem;
	uint8_t *scratch;	/* one PMTU, for payloads the bugs alter */
	struct requester req;
	struct responder resp;
	struct rt_wc *cq;
	uint32_t cq_depth, cq_head, cq_tail;
	bool cnp_requested;
	uint16_t ip_id;
	struct rt_qp_stats stats;
	uint32_t bug_seen;
	bool bug_fired;
	int64_t now;
};

/* A frame being put together: the spec the builder reads, and its misbehaviour. */
struct qp_frame {
	struct rt_build_spec spec;
	enum rt_qp_bug bug;
};

/* qp.c */
void qp_frame_init(const struct rt_qp *qp, struct qp_frame *f, uint8_t opcode, uint32_t psn);
bool qp_bug_now(struct rt_qp *qp, enum rt_qp_bug bug);
void qp_complete(struct rt_qp *qp, const struct rt_wc *wc);
void qp_enter_error(struct rt_qp *qp);
uint8_t qp_opcode(const struct rt_qp *qp, uint8_t rc_opcode);

/* qp_req.c */
int req_init(struct rt_qp *qp, struct rt_error *err);
void req_free(struct rt_qp *qp);
int req_post(struct rt_qp *qp, const struct rt_send_wr *wr, struct rt_error *err);
bool req_next(struct rt_qp *qp, int64_t now, struct qp_frame *f);
void req_receive(struct rt_qp *qp, int64_t now, const struct rt_packet *p);
int64_t req_deadline(const struct rt_qp *qp);
void req_advance(struct rt_qp *qp, int64_t now);
bool req_idle(const struct rt_qp *qp);
void req_flush(struct rt_qp *qp);

/* qp_resp.c */
int resp_init(struct rt_qp *qp, struct rt_error *err);
void resp_free(struct rt_qp *qp);
int resp_post_recv(struct rt_qp *qp, const struct rt_recv_wr *wr, struct rt_error *err);
bool resp_next(struct rt_qp *qp, int64_t now, struct qp_frame *f);
void resp_receive(struct rt_qp *qp, int64_t now, const struct rt_packet *p);
int64_t resp_deadline(const struct rt_qp *qp);
void resp_advance(struct rt_qp *qp, int64_t now);
bool resp_idle(const struct rt_qp *qp);
void resp_flush(struct rt_qp *qp);

#endif
