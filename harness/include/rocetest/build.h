/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * Frame builder: the inverse of rt_parse(). The caller fills a spec; the
 * builder lays out Ethernet (0-2 VLAN tags), IPv4/IPv6 or the RoCE v1 GRH,
 * UDP, the BTH, the extension headers the opcode table lists for the opcode,
 * the payload and pad, and then computes lengths, checksums and the ICRC.
 * Every computed field can be forced to a wrong value for negative tests.
 */
#ifndef ROCETEST_BUILD_H
#define ROCETEST_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/packet.h"

struct rt_build_spec {
	/* Ethernet. */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint8_t vlan_count;			/* 0..2 */
	uint16_t vlan_tpid[RT_MAX_VLAN_TAGS];	/* 0: 0x8100 (outer 0x88A8 when two tags) */
	uint16_t vlan_tci[RT_MAX_VLAN_TAGS];

	/* Network: RoCE v2 over IPv4 (the default) or IPv6, or RoCE v1 (GRH). */
	uint8_t roce_version;	/* 0 or 2: RoCE v2; 1: RoCE v1 */
	uint8_t ip_version;	/* 0 or 4: IPv4; 6: IPv6 (RoCE v1 is always 6) */
	uint8_t src_ip[16];	/* IPv4 in the first 4 bytes */
	uint8_t dst_ip[16];
	uint8_t tos;		/* IPv4 TOS or IPv6 traffic class */
	uint8_t ttl;		/* 0 means 64 */
	uint16_t ip_id;
	bool ip_df;
	uint32_t flow_label;

	/* UDP. */
	uint16_t udp_sport;
	uint16_t udp_dport;	/* 0 means 4791 */
	bool udp_checksum;	/* compute it; otherwise send 0 */

	/* InfiniBand transport. bth.pad is computed unless pad_explicit. */
	struct rt_bth bth;
	bool pad_explicit;	/* write bth.pad and that many pad bytes as given */
	uint8_t pad_byte;	/* value of the pad bytes (0 is right) */
	struct rt_ext ext;	/* the headers the opcode carries are written from here */
	const uint8_t *payload;	/* NULL: zeros */
	uint32_t payload_len;

	/* Deliberate faults. */
	bool corrupt_icrc;	/* write the correct ICRC with its low bit flipped */
	bool corrupt_ip_checksum;
};

/* Fills the spec with sane defaults: MACs, 10.0.0.1 -> 10.0.0.2, DF, TTL 64, P_Key 0xFFFF. */
void rt_build_spec_init(struct rt_build_spec *s);

/* Bytes rt_build() will write for this spec. */
size_t rt_build_frame_len(const struct rt_build_spec *s);

/* Writes the frame into buf; returns its length, or 0 if cap is too small. */
size_t rt_build(const struct rt_build_spec *s, uint8_t *buf, size_t cap);

#endif
