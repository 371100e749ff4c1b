/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * The opcode table: one row per BTH opcode says which transport it belongs
 * to, which extension headers follow the BTH (and in which order), whether a
 * payload follows, and where the packet stands in its message. The parser,
 * the builder, the printers and the checker all read this table; nothing
 * else in rocetest hard-codes per-opcode knowledge.
 */
#ifndef ROCETEST_OPCODE_H
#define ROCETEST_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

/* BTH opcode bits 7-5. */
enum rt_transport {
	RT_TRANSPORT_RC = 0,
	RT_TRANSPORT_UC = 1,
	RT_TRANSPORT_RD = 2,
	RT_TRANSPORT_UD = 3,
	RT_TRANSPORT_CNP = 4,
	RT_TRANSPORT_XRC = 5,
	RT_TRANSPORT_VENDOR6 = 6,
	RT_TRANSPORT_VENDOR7 = 7,
};

/*
 * Extension headers, as bits. Their order on the wire is the order of the
 * bits (lowest first): DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 * That is the order IBA chapter 9 gives for every opcode that carries more
 * than one (UD SEND with Immediate: DETH then ImmDt; WRITE Only with
 * Immediate: RETH then ImmDt; Atomic ACK: AETH then AtomicAckETH).
 */
enum rt_ext_header {
	RT_EXT_DETH = 1u << 0,
	RT_EXT_RETH = 1u << 1,
	RT_EXT_ATOMICETH = 1u << 2,
	RT_EXT_AETH = 1u << 3,
	RT_EXT_ATOMICACKETH = 1u << 4,
	RT_EXT_IMMDT = 1u << 5,
	RT_EXT_IETH = 1u << 6,
};
#define RT_EXT_COUNT 7

enum rt_ext_size {
	RT_BTH_BYTES = 12,
	RT_DETH_BYTES = 8,
	RT_RETH_BYTES = 16,
	RT_ATOMICETH_BYTES = 28,
	RT_AETH_BYTES = 4,
	RT_ATOMICACKETH_BYTES = 8,
	RT_IMMDT_BYTES = 4,
	RT_IETH_BYTES = 4,
	RT_ICRC_BYTES = 4,
	/* The CNP carries 16 reserved bytes where other packets carry payload. */
	RT_CNP_RESERVED_BYTES = 16,
};

/* What a packet does, independent of its transport. */
enum rt_family {
	RT_FAMILY_SEND,
	RT_FAMILY_WRITE,
	RT_FAMILY_READ_REQUEST,
	RT_FAMILY_READ_RESPONSE,
	RT_FAMILY_ACK,
	RT_FAMILY_ATOMIC,	/* Compare&Swap, Fetch&Add */
	RT_FAMILY_ATOMIC_ACK,
	RT_FAMILY_CNP,
	RT_FAMILY_OTHER,	/* known opcode rocetest does not model */
};

/* Where a packet stands in a multi-packet message. */
enum rt_position {
	RT_POS_NONE,	/* single-packet operation without segmentation (ACK, READ request, atomic, CNP) */
	RT_POS_FIRST,
	RT_POS_MIDDLE,
	RT_POS_LAST,
	RT_POS_ONLY,
};

struct rt_opcode_info {
	const char *name;	/* stable machine name, e.g. "RC_SEND_FIRST" */
	const char *label;	/* for people, e.g. "SEND First" */
	uint8_t transport;	/* enum rt_transport */
	uint8_t family;		/* enum rt_family */
	uint8_t position;	/* enum rt_position */
	uint8_t ext;		/* enum rt_ext_header bits */
	uint8_t ext_bytes;	/* total bytes of the extension headers */
	bool payload;		/* a payload may follow the headers */
	bool immediate;		/* carries ImmDt */
	bool invalidate;	/* carries IETH */
	bool response;		/* sent by the responder (READ response, ACK, atomic ACK) */
	bool supported;		/* false: named, but rocetest does not decode it */
};

/* The row for an opcode, or NULL if the opcode is not defined. */
const struct rt_opcode_info *rt_opcode_info(uint8_t opcode);

static inline enum rt_transport rt_opcode_transport(uint8_t opcode)
{
	return (enum rt_transport)(opcode >> 5);
}

/* Size in bytes of one extension header (one bit of enum rt_ext_header). */
unsigned rt_ext_header_bytes(enum rt_ext_header h);
/* Short name of one extension header ("RETH"). */
const char *rt_ext_header_name(enum rt_ext_header h);
/* Offset of header h after the BTH for an opcode's header set (h must be in ext). */
unsigned rt_ext_header_offset(uint8_t ext, enum rt_ext_header h);

const char *rt_transport_name(enum rt_transport t);
const char *rt_family_name(enum rt_family f);
const char *rt_position_name(enum rt_position p);

#define RT_OPCODE_CNP 0x81

/*
 * Opcode values by name, for code that builds packets (generators, tests).
 * These are the RC values; a UC opcode is RT_OP_UC(the RC one) for SEND and
 * WRITE. What each opcode carries is the table's business, not these names'.
 */
enum rt_opcode_value {
	RT_OP_SEND_FIRST = 0x00,
	RT_OP_SEND_MIDDLE = 0x01,
	RT_OP_SEND_LAST = 0x02,
	RT_OP_SEND_LAST_IMM = 0x03,
	RT_OP_SEND_ONLY = 0x04,
	RT_OP_SEND_ONLY_IMM = 0x05,
	RT_OP_WRITE_FIRST = 0x06,
	RT_OP_WRITE_MIDDLE = 0x07,
	RT_OP_WRITE_LAST = 0x08,
	RT_OP_WRITE_LAST_IMM = 0x09,
	RT_OP_WRITE_ONLY = 0x0A,
	RT_OP_WRITE_ONLY_IMM = 0x0B,
	RT_OP_READ_REQUEST = 0x0C,
	RT_OP_READ_RESPONSE_FIRST = 0x0D,
	RT_OP_READ_RESPONSE_MIDDLE = 0x0E,
	RT_OP_READ_RESPONSE_LAST = 0x0F,
	RT_OP_READ_RESPONSE_ONLY = 0x10,
	RT_OP_ACK = 0x11,
	RT_OP_ATOMIC_ACK = 0x12,
	RT_OP_CMP_SWAP = 0x13,
	RT_OP_FETCH_ADD = 0x14,
	RT_OP_SEND_LAST_INV = 0x16,
	RT_OP_SEND_ONLY_INV = 0x17,
	RT_OP_UD_SEND_ONLY = 0x64,
	RT_OP_UD_SEND_ONLY_IMM = 0x65,
};
#define RT_OP_UC(rc_opcode) ((uint8_t)((RT_TRANSPORT_UC << 5) | (rc_opcode)))

#endif
