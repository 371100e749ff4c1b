/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * The packet model: a parsed view of one captured frame. Parsing never
 * allocates and never copies the frame; it fills a struct rt_packet on the
 * caller's stack with field values and offsets into the frame. It never reads
 * past the captured length: a frame cut by the snap length is "truncated", a
 * frame whose own headers contradict it is "malformed" (with the field).
 */
#ifndef ROCETEST_PACKET_H
#define ROCETEST_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/opcode.h"

#define RT_ROCEV2_UDP_PORT 4791
#define RT_ETHERTYPE_ROCEV1 0x8915
#define RT_GRH_NEXT_HEADER_BTH 0x1B
#define RT_MAX_VLAN_TAGS 2

/* How the capture frames its packets (the libpcap link types we read). */
enum rt_link {
	RT_LINK_ETHERNET,
	RT_LINK_LINUX_SLL,	/* Linux cooked v1, 16-byte header */
	RT_LINK_LINUX_SLL2,	/* Linux cooked v2, 20-byte header */
	RT_LINK_RAW_IP,		/* IPv4 or IPv6 by the version nibble */
	RT_LINK_IPV4,
	RT_LINK_IPV6,
};
const char *rt_link_name(enum rt_link link);

enum rt_parse_status {
	RT_PARSE_ROCE,		/* a RoCE packet; BTH decoded (see .truncated) */
	RT_PARSE_NOT_ROCE,	/* some other protocol; .reason says which */
	RT_PARSE_TRUNCATED,	/* cut by the snap length before the BTH ends */
	RT_PARSE_MALFORMED,	/* a header contradicts the frame; .field and .reason */
};

enum rt_icrc_status {
	RT_ICRC_UNVERIFIED,	/* not computed (truncated, malformed, not RoCE) */
	RT_ICRC_OK,
	RT_ICRC_BAD,
};
const char *rt_icrc_status_name(enum rt_icrc_status s); /* "ok", "bad", "unverified" */

struct rt_bth {
	uint8_t opcode;
	bool se;
	bool migreq;
	uint8_t pad;		/* PadCnt 0-3 */
	uint8_t tver;
	uint16_t pkey;
	bool fecn;
	bool becn;
	uint8_t resv6;		/* the 6 reserved bits of byte 4 */
	uint32_t dest_qp;	/* 24 bits */
	bool ack_req;
	uint8_t resv7;		/* the 7 reserved bits of byte 8 */
	uint32_t psn;		/* 24 bits */
};

struct rt_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

struct rt_aeth {
	uint8_t syndrome;
	uint32_t msn;		/* 24 bits */
};

struct rt_atomiceth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

struct rt_deth {
	uint32_t qkey;
	uint8_t reserved;
	uint32_t src_qp;	/* 24 bits */
};

/* All extension headers; which are valid is said by rt_packet.ext. */
struct rt_ext {
	struct rt_deth deth;
	struct rt_reth reth;
	struct rt_atomiceth atomic;
	struct rt_aeth aeth;
	uint64_t atomic_ack_orig;
	uint32_t imm;		/* ImmDt, as the 32-bit big-endian value on the wire */
	uint32_t ieth_rkey;
};

/* AETH syndrome types (bits 6-5). */
enum rt_aeth_type {
	RT_AETH_ACK = 0,
	RT_AETH_RNR_NAK = 1,
	RT_AETH_RESERVED = 2,
	RT_AETH_NAK = 3,
};
static inline enum rt_aeth_type rt_aeth_type(uint8_t syndrome)
{
	return (enum rt_aeth_type)((syndrome >> 5) & 3);
}
static inline uint8_t rt_aeth_value(uint8_t syndrome)
{
	return syndrome & 0x1F;
}

struct rt_packet {
	enum rt_parse_status status;
	/* NOT_ROCE, TRUNCATED, MALFORMED: a static string for people. */
	const char *reason;
	/* MALFORMED and TRUNCATED: the field that could not be read. */
	const char *field;
	/* MALFORMED: the values that disagree, e.g. "UDP length 300, 200 bytes after the IP header". */
	char detail[96];

	/* The frame as captured. */
	const uint8_t *frame;
	uint32_t caplen;
	uint32_t wirelen;

	/* Link layer. */
	uint8_t vlan_count;
	uint16_t vlan_tpid[RT_MAX_VLAN_TAGS];
	uint16_t vlan_tci[RT_MAX_VLAN_TAGS];
	uint16_t ethertype;	/* after the tags; on raw-IP links, the one the IP version implies */

	/* Network layer; IPv4 addresses sit in the first 4 bytes. */
	uint8_t roce_version;	/* 1 (GRH over Ethertype 0x8915) or 2 (UDP) */
	uint8_t ip_version;	/* 4 or 6 (RoCE v1's GRH counts as 6) */
	uint32_t l3_off;
	uint32_t l3_hdr_len;	/* IPv4 IHL*4, 40 for IPv6 and GRH */
	uint8_t src_ip[16];
	uint8_t dst_ip[16];
	uint8_t tos;		/* IPv4 TOS or IPv6 traffic class */
	uint8_t ttl;		/* IPv4 TTL or IPv6 hop limit */
	uint8_t ip_proto;	/* IPv4 protocol / IPv6 next header */
	uint16_t ip_total_len;	/* IPv4 total length; IPv6 payload length + 40 */
	uint16_t ip_id;
	uint16_t ip_checksum;
	bool ip_df;
	bool ip_mf;
	uint16_t ip_frag_off;
	uint32_t flow_label;

	/* UDP (RoCE v2 only). */
	uint32_t udp_off;
	uint16_t udp_sport;
	uint16_t udp_dport;
	uint16_t udp_len;
	uint16_t udp_checksum;

	/* InfiniBand transport. */
	uint32_t bth_off;
	struct rt_bth bth;
	const struct rt_opcode_info *op;	/* NULL: opcode undefined */
	uint8_t ext_present;	/* rt_ext_header bits decoded into .ext */
	bool ext_complete;	/* every header the opcode carries was captured */
	struct rt_ext ext;
	uint32_t payload_off;
	uint32_t data_len;	/* payload + pad bytes, as the frame lays them out */
	uint32_t payload_len;	/* data_len - PadCnt (0 when PadCnt exceeds data_len) */
	uint32_t icrc_off;	/* where the 4 ICRC bytes stand */
	uint32_t roce_end;	/* one past the ICRC: the end of the RoCE packet */
	bool truncated;		/* caplen < roce_end: part of the packet was not captured */
	uint32_t icrc_wire;	/* the ICRC as sent (valid when !truncated) */

	/*
	 * Set by rt_icrc_verify() (icrc.h), which the checker calls once per
	 * packet; rt_parse() leaves them 0. Every later ICRC question about the
	 * packet is answered from here.
	 */
	bool icrc_done;
	uint32_t icrc_computed;	/* the ICRC the bytes call for (0 when truncated) */
	uint32_t payload_crc;	/* CRC-32 of the payload alone (0 when truncated or empty) */
};

/*
 * Parse one frame. Returns p->status. Never reads outside frame[0, caplen).
 * wirelen is the frame's original length (>= caplen).
 */
enum rt_parse_status rt_parse(struct rt_packet *p, enum rt_link link, const uint8_t *frame,
			      uint32_t caplen, uint32_t wirelen);

/* The printable address of the source or destination IP ("10.0.0.1", "fe80::1"). */
void rt_packet_format_ip(const struct rt_packet *p, bool source, char *buf, size_t size);

/* PSN arithmetic (24-bit, wrapping): a - b as a signed distance in -2^23..2^23-1. */
static inline int32_t rt_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}
static inline uint32_t rt_psn_add(uint32_t psn, int32_t n)
{
	return (psn + (uint32_t)n) & 0xFFFFFF;
}

/* Big-endian loads and stores used by the parser and the builder. */
static inline uint16_t rt_get_be16(const uint8_t *b)
{
	return (uint16_t)((b[0] << 8) | b[1]);
}
static inline uint32_t rt_get_be24(const uint8_t *b)
{
	return ((uint32_t)b[0] << 16) | ((uint32_t)b[1] << 8) | b[2];
}
static inline uint32_t rt_get_be32(const uint8_t *b)
{
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}
static inline uint64_t rt_get_be64(const uint8_t *b)
{
	return ((uint64_t)rt_get_be32(b) << 32) | rt_get_be32(b + 4);
}
static inline void rt_put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}
static inline void rt_put_be24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}
static inline void rt_put_be32(uint8_t *b, uint32_t v)
{
	rt_put_be16(b, (uint16_t)(v >> 16));
	rt_put_be16(b + 2, (uint16_t)v);
}
static inline void rt_put_be64(uint8_t *b, uint64_t v)
{
	rt_put_be32(b, (uint32_t)(v >> 32));
	rt_put_be32(b + 4, (uint32_t)v);
}

#endif
