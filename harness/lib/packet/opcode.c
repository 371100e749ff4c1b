/* SPDX-License-Identifier: MIT */
/*
 * The opcode table (wire-facts.md "Opcodes"; IBA Vol 1 table 35; the same
 * facts rxe keeps in rxe_opcode.c). RC and UC share their SEND and WRITE
 * rows; the macros below write those rows once and stamp them per transport.
 */
#include "rocetest/opcode.h"

#include <stddef.h>

#define EXT_BYTES(ext)                                                      \
	((((ext) & RT_EXT_DETH) ? RT_DETH_BYTES : 0) +                      \
	 (((ext) & RT_EXT_RETH) ? RT_RETH_BYTES : 0) +                      \
	 (((ext) & RT_EXT_ATOMICETH) ? RT_ATOMICETH_BYTES : 0) +            \
	 (((ext) & RT_EXT_AETH) ? RT_AETH_BYTES : 0) +                      \
	 (((ext) & RT_EXT_ATOMICACKETH) ? RT_ATOMICACKETH_BYTES : 0) +      \
	 (((ext) & RT_EXT_IMMDT) ? RT_IMMDT_BYTES : 0) +                    \
	 (((ext) & RT_EXT_IETH) ? RT_IETH_BYTES : 0))

#define ROW(code, tr, nm, lbl, fam, pos, ext_, pay, resp)                   \
	[(code)] = {                                                        \
		.name = nm,                                                 \
		.label = lbl,                                               \
		.transport = (tr),                                          \
		.family = (fam),                                            \
		.position = (pos),                                          \
		.ext = (ext_),                                              \
		.ext_bytes = EXT_BYTES(ext_),                               \
		.payload = (pay),                                           \
		.immediate = ((ext_) & RT_EXT_IMMDT) != 0,                  \
		.invalidate = ((ext_) & RT_EXT_IETH) != 0,                  \
		.response = (resp),                                         \
		.supported = true,                                          \
	}

/* Named opcodes rocetest recognises but does not decode. */
#define UNSUPPORTED(code, tr, nm, lbl)                                      \
	[(code)] = {                                                        \
		.name = nm,                                                 \
		.label = lbl,                                               \
		.transport = (tr),                                          \
		.family = RT_FAMILY_OTHER,                                  \
		.position = RT_POS_NONE,                                    \
		.payload = true,                                            \
		.supported = false,                                         \
	}

/* SEND and RDMA WRITE, shared by RC (base 0x00) and UC (base 0x20). */
#define SEND_WRITE_ROWS(base, tr, T)                                                                   \
	ROW((base) + 0x00, tr, T "_SEND_FIRST", "SEND First", RT_FAMILY_SEND, RT_POS_FIRST, 0, true, false), \
	ROW((base) + 0x01, tr, T "_SEND_MIDDLE", "SEND Middle", RT_FAMILY_SEND, RT_POS_MIDDLE, 0, true, false), \
	ROW((base) + 0x02, tr, T "_SEND_LAST", "SEND Last", RT_FAMILY_SEND, RT_POS_LAST, 0, true, false), \
	ROW((base) + 0x03, tr, T "_SEND_LAST_WITH_IMMEDIATE", "SEND Last with Immediate", RT_FAMILY_SEND, \
	    RT_POS_LAST, RT_EXT_IMMDT, true, false),                                                   \
	ROW((base) + 0x04, tr, T "_SEND_ONLY", "SEND Only", RT_FAMILY_SEND, RT_POS_ONLY, 0, true, false), \
	ROW((base) + 0x05, tr, T "_SEND_ONLY_WITH_IMMEDIATE", "SEND Only with Immediate", RT_FAMILY_SEND, \
	    RT_POS_ONLY, RT_EXT_IMMDT, true, false),                                                   \
	ROW((base) + 0x06, tr, T "_RDMA_WRITE_FIRST", "RDMA WRITE First", RT_FAMILY_WRITE, RT_POS_FIRST, \
	    RT_EXT_RETH, true, false),                                                                 \
	ROW((base) + 0x07, tr, T "_RDMA_WRITE_MIDDLE", "RDMA WRITE Middle", RT_FAMILY_WRITE, RT_POS_MIDDLE, \
	    0, true, false),                                                                           \
	ROW((base) + 0x08, tr, T "_RDMA_WRITE_LAST", "RDMA WRITE Last", RT_FAMILY_WRITE, RT_POS_LAST, 0, \
	    true, false),                                                                              \
	ROW((base) + 0x09, tr, T "_RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA WRITE Last with Immediate",  \
	    RT_FAMILY_WRITE, RT_POS_LAST, RT_EXT_IMMDT, true, false),                                  \
	ROW((base) + 0x0A, tr, T "_RDMA_WRITE_ONLY", "RDMA WRITE Only", RT_FAMILY_WRITE, RT_POS_ONLY,  \
	    RT_EXT_RETH, true, false),                                                                 \
	ROW((base) + 0x0B, tr, T "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA WRITE Only with Immediate",  \
	    RT_FAMILY_WRITE, RT_POS_ONLY, RT_EXT_RETH | RT_EXT_IMMDT, true, false)

#define RC RT_TRANSPORT_RC
#define UC RT_TRANSPORT_UC
#define UD RT_TRANSPORT_UD

static const struct rt_opcode_info opcode_table[256] = {
	SEND_WRITE_ROWS(0x00, RC, "RC"),
	ROW(0x0C, RC, "RC_RDMA_READ_REQUEST", "RDMA READ Request", RT_FAMILY_READ_REQUEST, RT_POS_NONE,
	    RT_EXT_RETH, false, false),
	ROW(0x0D, RC, "RC_RDMA_READ_RESPONSE_FIRST", "RDMA READ Response First", RT_FAMILY_READ_RESPONSE,
	    RT_POS_FIRST, RT_EXT_AETH, true, true),
	ROW(0x0E, RC, "RC_RDMA_READ_RESPONSE_MIDDLE", "RDMA READ Response Middle", RT_FAMILY_READ_RESPONSE,
	    RT_POS_MIDDLE, 0, true, true),
	ROW(0x0F, RC, "RC_RDMA_READ_RESPONSE_LAST", "RDMA READ Response Last", RT_FAMILY_READ_RESPONSE,
	    RT_POS_LAST, RT_EXT_AETH, true, true),
	ROW(0x10, RC, "RC_RDMA_READ_RESPONSE_ONLY", "RDMA READ Response Only", RT_FAMILY_READ_RESPONSE,
	    RT_POS_ONLY, RT_EXT_AETH, true, true),
	ROW(0x11, RC, "RC_ACKNOWLEDGE", "Acknowledge", RT_FAMILY_ACK, RT_POS_NONE, RT_EXT_AETH, false, true),
	ROW(0x12, RC, "RC_ATOMIC_ACKNOWLEDGE", "Atomic Acknowledge", RT_FAMILY_ATOMIC_ACK, RT_POS_NONE,
	    RT_EXT_AETH | RT_EXT_ATOMICACKETH, false, true),
	ROW(0x13, RC, "RC_COMPARE_SWAP", "Compare&Swap", RT_FAMILY_ATOMIC, RT_POS_NONE, RT_EXT_ATOMICETH,
	    false, false),
	ROW(0x14, RC, "RC_FETCH_ADD", "Fetch&Add", RT_FAMILY_ATOMIC, RT_POS_NONE, RT_EXT_ATOMICETH, false,
	    false),
	ROW(0x16, RC, "RC_SEND_LAST_WITH_INVALIDATE", "SEND Last with Invalidate", RT_FAMILY_SEND,
	    RT_POS_LAST, RT_EXT_IETH, true, false),
	ROW(0x17, RC, "RC_SEND_ONLY_WITH_INVALIDATE", "SEND Only with Invalidate", RT_FAMILY_SEND,
	    RT_POS_ONLY, RT_EXT_IETH, true, false),
	/* IBTA 1.5 additions (rxe knows them); outside the rule catalogue. */
	UNSUPPORTED(0x1C, RC, "RC_FLUSH", "FLUSH"),
	UNSUPPORTED(0x1D, RC, "RC_ATOMIC_WRITE", "ATOMIC WRITE"),

	SEND_WRITE_ROWS(0x20, UC, "UC"),

	ROW(0x64, UD, "UD_SEND_ONLY", "SEND Only", RT_FAMILY_SEND, RT_POS_ONLY, RT_EXT_DETH, true, false),
	ROW(0x65, UD, "UD_SEND_ONLY_WITH_IMMEDIATE", "SEND Only with Immediate", RT_FAMILY_SEND, RT_POS_ONLY,
	    RT_EXT_DETH | RT_EXT_IMMDT, true, false),

	ROW(RT_OPCODE_CNP, RT_TRANSPORT_CNP, "CNP", "Congestion Notification", RT_FAMILY_CNP, RT_POS_NONE, 0,
	    true, false),
};

const struct rt_opcode_info *rt_opcode_info(uint8_t opcode)
{
	const struct rt_opcode_info *info = &opcode_table[opcode];
	return info->name ? info : NULL;
}

static const struct {
	enum rt_ext_header bit;
	const char *name;
	unsigned bytes;
} ext_headers[RT_EXT_COUNT] = {
	{ RT_EXT_DETH, "DETH", RT_DETH_BYTES },
	{ RT_EXT_RETH, "RETH", RT_RETH_BYTES },
	{ RT_EXT_ATOMICETH, "AtomicETH", RT_ATOMICETH_BYTES },
	{ RT_EXT_AETH, "AETH", RT_AETH_BYTES },
	{ RT_EXT_ATOMICACKETH, "AtomicAckETH", RT_ATOMICACKETH_BYTES },
	{ RT_EXT_IMMDT, "ImmDt", RT_IMMDT_BYTES },
	{ RT_EXT_IETH, "IETH", RT_IETH_BYTES },
};

unsigned rt_ext_header_bytes(enum rt_ext_header h)
{
	/* The table is in bit order; the parser asks once per header of every packet. */
	unsigned i = h ? (unsigned)__builtin_ctz((unsigned)h) : RT_EXT_COUNT;
	return i < RT_EXT_COUNT && ext_headers[i].bit == h ? ext_headers[i].bytes : 0;
}

const char *rt_ext_header_name(enum rt_ext_header h)
{
	for (unsigned i = 0; i < RT_EXT_COUNT; i++)
		if (ext_headers[i].bit == h)
			return ext_headers[i].name;
	return "?";
}

unsigned rt_ext_header_offset(uint8_t ext, enum rt_ext_header h)
{
	unsigned off = 0;
	for (unsigned i = 0; i < RT_EXT_COUNT && ext_headers[i].bit != h; i++)
		if (ext & ext_headers[i].bit)
			off += ext_headers[i].bytes;
	return off;
}

const char *rt_transport_name(enum rt_transport t)
{
	static const char *const names[8] = { "RC", "UC", "RD", "UD", "CNP", "XRC", "vendor", "vendor" };
	return names[t & 7];
}

const char *rt_family_name(enum rt_family f)
{
	switch (f) {
	case RT_FAMILY_SEND: return "SEND";
	case RT_FAMILY_WRITE: return "WRITE";
	case RT_FAMILY_READ_REQUEST: return "READ request";
	case RT_FAMILY_READ_RESPONSE: return "READ response";
	case RT_FAMILY_ACK: return "ACK";
	case RT_FAMILY_ATOMIC: return "atomic";
	case RT_FAMILY_ATOMIC_ACK: return "atomic ACK";
	case RT_FAMILY_CNP: return "CNP";
	case RT_FAMILY_OTHER: break;
	}
	return "other";
}

const char *rt_position_name(enum rt_position p)
{
	switch (p) {
	case RT_POS_FIRST: return "First";
	case RT_POS_MIDDLE: return "Middle";
	case RT_POS_LAST: return "Last";
	case RT_POS_ONLY: return "Only";
	case RT_POS_NONE: break;
	}
	return "";
}
