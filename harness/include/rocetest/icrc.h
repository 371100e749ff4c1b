/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * ICRC (wire-facts.md "ICRC"): reflected CRC-32 over 8 bytes of 0xFF, the IP
 * header, the UDP header, the BTH and everything after it up to the ICRC,
 * with the fields routers may change (TOS/traffic class, TTL/hop limit, flow
 * label, IPv4 header checksum, UDP checksum, BTH FECN/BECN/reserved byte)
 * replaced by ones. The result goes on the wire least significant byte first.
 */
#ifndef ROCETEST_ICRC_H
#define ROCETEST_ICRC_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/packet.h"

/* Where the covered regions of a frame are. */
struct rt_icrc_layout {
	uint32_t l3_off;	/* IPv4/IPv6 header or RoCE v1 GRH */
	uint32_t l3_hdr_len;	/* IPv4 IHL*4, or 40 */
	uint8_t ip_version;	/* 4 or 6 (GRH: 6) */
	uint8_t roce_version;	/* 2: a UDP header follows the IP header; 1: the BTH does */
	uint32_t bth_off;
	uint32_t icrc_off;	/* the covered region ends here */
};

/* The ICRC of a frame whose covered bytes [l3_off, icrc_off) are all present. */
uint32_t rt_icrc_compute_layout(const uint8_t *frame, const struct rt_icrc_layout *l);

/* The ICRC of a parsed, untruncated RoCE packet. */
uint32_t rt_icrc_compute(const struct rt_packet *p);

/* ok / bad for a parsed RoCE packet; unverified when it was truncated or not RoCE. */
enum rt_icrc_status rt_icrc_check(const struct rt_packet *p);

/*
 * rt_icrc_check() that also fills p->icrc_computed and p->payload_crc (the
 * payload's own CRC-32, which the checker compares retransmissions by) in
 * the same single pass over the payload; later rt_icrc_check() and
 * rt_icrc_compute() calls on p cost nothing.
 */
enum rt_icrc_status rt_icrc_verify(struct rt_packet *p);

/* Store an ICRC value at frame[icrc_off] in wire order. */
void rt_icrc_store(uint8_t *frame, uint32_t icrc_off, uint32_t icrc);

/*
 * Fields the ICRC covers (does not mask) that capture tools, anonymisers and
 * middleboxes rewrite: a packet whose ICRC fails may have been sent right
 * with another value there. Switches and mirror ports rewrite the UDP source
 * port, NAT and anonymisers the addresses, packet scrubbers (pf's scrub
 * random-id, no-df) the IPv4 identification and the DF flag.
 */
enum rt_icrc_field {
	RT_ICRC_FIELD_UDP_SPORT,	/* RoCE v2: 16 bits */
	RT_ICRC_FIELD_IPV4_ID,		/* RoCE v2 over IPv4: 16 bits */
	RT_ICRC_FIELD_IPV4_FLAGS,	/* flags and fragment offset: 16 bits */
	RT_ICRC_FIELD_IPV4_SRC,		/* 32 bits */
	RT_ICRC_FIELD_IPV4_DST,
	RT_ICRC_FIELDS
};

/* "UDP source port", "IPv4 identification", "IPv4 flags and fragment offset", "IPv4 source address", ... */
const char *rt_icrc_field_name(enum rt_icrc_field f);
/* The field's width in bytes (2 or 4). */
unsigned rt_icrc_field_bytes(enum rt_icrc_field f);
/* The field's value in p as captured; false when p has no such field (RoCE v1, IPv6). */
bool rt_icrc_field_value(const struct rt_packet *p, enum rt_icrc_field f, uint32_t *value);

/*
 * Solving a bad ICRC for one field. The CRC is linear: changing the field by
 * d changes the ICRC by a linear function of d, which depends only on the
 * field's width and on how many covered bytes follow it. So the one value
 * that makes the ICRC verify (every one of the 2^16 UDP source ports at
 * once) takes a reduction over at most 32 basis vectors, not a CRC per
 * candidate. The solver keeps that basis for the last distance seen per
 * field: packets of one length reuse it.
 */
struct rt_icrc_solver {
	struct rt_icrc_basis {
		bool valid;
		uint32_t distance;	/* covered bytes after the field */
		unsigned rank;
		uint32_t vec[32];	/* ICRC changes, in echelon form */
		uint32_t pivot[32];	/* the bit vec[i] is the first to have */
		uint32_t combo[32];	/* the field bits whose change makes vec[i] */
	} basis[RT_ICRC_FIELDS];
};

void rt_icrc_solver_init(struct rt_icrc_solver *s);

/*
 * For a parsed, untruncated packet whose ICRC as captured computes to
 * `computed` (rt_icrc_compute) and differs from p->icrc_wire: the value
 * field f must have had for the ICRC to verify. False when no value of the
 * field does, or p has no such field. A 16-bit field has a solution for a
 * random corruption once in 65536; a 32-bit field always has one, so only
 * the same solution across packets says something.
 */
bool rt_icrc_solve(struct rt_icrc_solver *s, const struct rt_packet *p, uint32_t computed, enum rt_icrc_field f,
		   uint32_t *value);

#endif
