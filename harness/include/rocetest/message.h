/* SPDX-License-Identifier: MIT */
/* Layer: check. */
/*
 * The messages the checker follows (rt_check_config.on_message): per flow
 * and requester side, each message with what its packets and the
 * responder's answers to it showed. A message is handed over once the
 * capture has moved RT_MESSAGE_WINDOW messages past it in its direction
 * (late ACKs, resends and READ responses still count for it until then),
 * or when the capture ends, so the checker's memory stays bounded.
 */
#ifndef ROCETEST_MESSAGE_H
#define ROCETEST_MESSAGE_H

#include <stdint.h>

#define RT_MESSAGE_WINDOW 64u

/* Bits of struct rt_message.flags. */
enum rt_message_flags {
	RT_MSG_PARTIAL = 1u << 0,	/* the capture starts inside it: its beginning is not known */
	RT_MSG_INCOMPLETE = 1u << 1,	/* packets of it are missing from the capture, or it never ended */
	RT_MSG_IMM = 1u << 2,		/* carries ImmDt */
	RT_MSG_IETH = 1u << 3,		/* carries an IETH (SEND with invalidate) */
	RT_MSG_SE = 1u << 4,		/* SE set on its last packet */
	RT_MSG_ACKED = 1u << 5,		/* an ACK names its last PSN: acknowledged on its own */
	RT_MSG_AFTER_GAP = 1u << 6,	/* PSNs before it are missing from the capture */
	RT_MSG_TRUNCATED = 1u << 7,	/* a packet of it was cut by the snap length: no payload hash */
	RT_MSG_RESP_DONE = 1u << 8,	/* a READ's responses (or an atomic's ACK) ended */
};

/* One message of a requester, and what its responder answered. */
struct rt_message {
	uint32_t flow;			/* the flow's id */
	uint8_t side;			/* the requester's side */
	uint8_t family;			/* enum rt_family */
	uint8_t transport;		/* enum rt_transport */
	uint64_t index;			/* 1-based in its direction */
	uint64_t start, end;		/* PSNs from the direction's first, extended past the 24-bit wrap; end inclusive */
	uint64_t first_frame, last_frame;
	int64_t last_ts;		/* its last packet's first transmission */
	int64_t ack_ns;			/* from last_ts to its own ACK (-1: none) */
	uint64_t va;			/* RETH / AtomicETH address */
	uint64_t atomic[2];		/* swap/add, compare */
	/* With rt_check_config.message_payload: per packet FNV-1a of its position and payload, added up. */
	uint64_t payload_hash;
	uint64_t resp_hash;		/* FNV-1a of a READ's response payload; an atomic ACK's original value */
	uint32_t length;		/* payload bytes (READ: the RETH DMA length) */
	uint32_t packets;		/* first transmissions */
	uint32_t first_len, last_len;	/* payload of the first and the last packet */
	uint32_t seg_hash;		/* over every packet's position and length: any other cut differs */
	uint32_t imm;
	uint32_t ackreq;		/* packets (first transmissions) with AckReq */
	uint32_t ackreq_bits;		/* which of the first 32 */
	uint32_t resp_len, resp_packets, resp_first_len;
	uint16_t resent;		/* packets sent again */
	uint8_t naks, rnr_naks;
	uint8_t nak_syndrome;		/* the first NAK's AETH syndrome */
	uint8_t pad;			/* PadCnt of its last packet */
	uint8_t last_ackreq;		/* its last packet asks for an ACK */
	uint8_t holes;			/* capture gaps inside it not filled by a resend */
	uint16_t flags;			/* enum rt_message_flags */
};

#endif
