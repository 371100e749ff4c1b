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

/* Store an ICRC value at frame[icrc_off] in wire order. */
void rt_icrc_store(uint8_t *frame, uint32_t icrc_off, uint32_t icrc);

#endif
