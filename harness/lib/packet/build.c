/* SPDX-License-Identifier: MIT */
#include "rocetest/build.h"

#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/icrc.h"

enum {
	ETH_HEADER_BYTES = 14,
	VLAN_TAG_BYTES = 4,
	IPV4_HEADER_BYTES = 20,
	IPV6_HEADER_BYTES = 40,
	UDP_HEADER_BYTES = 8,
};

void rt_build_spec_init(struct rt_build_spec *s)
{
	static const uint8_t dst_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	memset(s, 0, sizeof *s);
	memcpy(s->dst_mac, dst_mac, 6);
	memcpy(s->src_mac, src_mac, 6);
	s->roce_version = 2;
	s->ip_version = 4;
	s->src_ip[0] = 10, s->src_ip[3] = 1;
	s->dst_ip[0] = 10, s->dst_ip[3] = 2;
	s->ttl = 64;
	s->ip_df = true;
	s->udp_sport = 0xC000;
	s->udp_dport = RT_ROCEV2_UDP_PORT;
	s->bth.pkey = 0xFFFF;
}

static uint8_t ext_of(const struct rt_build_spec *s)
{
	const struct rt_opcode_info *op = rt_opcode_info(s->bth.opcode);
	return (op && op->supported) ? op->ext : 0;
}

static unsigned pad_of(const struct rt_build_spec *s)
{
	return s->pad_explicit ? s->bth.pad : (-s->payload_len) & 3u;
}

static unsigned l3_header_len(const struct rt_build_spec *s)
{
	return (s->roce_version == 1 || s->ip_version == 6) ? IPV6_HEADER_BYTES : IPV4_HEADER_BYTES;
}

size_t rt_build_frame_len(const struct rt_build_spec *s)
{
	const struct rt_opcode_info *op = rt_opcode_info(s->bth.opcode);
	size_t n = ETH_HEADER_BYTES + (size_t)s->vlan_count * VLAN_TAG_BYTES + l3_header_len(s);
	if (s->roce_version != 1)
		n += UDP_HEADER_BYTES;
	n += RT_BTH_BYTES + ((op && op->supported) ? op->ext_bytes : 0);
	return n + s->payload_len + pad_of(s) + RT_ICRC_BYTES;
}

static void write_bth(uint8_t *b, const struct rt_bth *t, unsigned pad)
{
	b[0] = t->opcode;
	b[1] = (uint8_t)((t->se ? 0x80 : 0) | (t->migreq ? 0x40 : 0) | ((pad & 3) << 4) | (t->tver & 0x0F));
	rt_put_be16(b + 2, t->pkey);
	b[4] = (uint8_t)((t->fecn ? 0x80 : 0) | (t->becn ? 0x40 : 0) | (t->resv6 & 0x3F));
	rt_put_be24(b + 5, t->dest_qp);
	b[8] = (uint8_t)((t->ack_req ? 0x80 : 0) | (t->resv7 & 0x7F));
	rt_put_be24(b + 9, t->psn);
}

static void write_ext(uint8_t *b, enum rt_ext_header h, const struct rt_ext *e)
{
	switch (h) {
	case RT_EXT_DETH:
		rt_put_be32(b, e->deth.qkey);
		b[4] = e->deth.reserved;
		rt_put_be24(b + 5, e->deth.src_qp);
		break;
	case RT_EXT_RETH:
		rt_put_be64(b, e->reth.va);
		rt_put_be32(b + 8, e->reth.rkey);
		rt_put_be32(b + 12, e->reth.dma_len);
		break;
	case RT_EXT_ATOMICETH:
		rt_put_be64(b, e->atomic.va);
		rt_put_be32(b + 8, e->atomic.rkey);
		rt_put_be64(b + 12, e->atomic.swap_add);
		rt_put_be64(b + 20, e->atomic.compare);
		break;
	case RT_EXT_AETH:
		b[0] = e->aeth.syndrome;
		rt_put_be24(b + 1, e->aeth.msn);
		break;
	case RT_EXT_ATOMICACKETH:
		rt_put_be64(b, e->atomic_ack_orig);
		break;
	case RT_EXT_IMMDT:
		rt_put_be32(b, e->imm);
		break;
	case RT_EXT_IETH:
		rt_put_be32(b, e->ieth_rkey);
		break;
	}
}

/* Ethernet header and VLAN tags; returns where the network header starts. */
static size_t write_ethernet(uint8_t *b, const struct rt_build_spec *s, bool v1, bool v6)
{
	memcpy(b, s->dst_mac, 6);
	memcpy(b + 6, s->src_mac, 6);
	size_t off = 12;
	for (unsigned i = 0; i < s->vlan_count && i < RT_MAX_VLAN_TAGS; i++) {
		uint16_t tpid = s->vlan_tpid[i];
		if (!tpid)
			tpid = (s->vlan_count == 2 && i == 0) ? 0x88A8 : 0x8100;
		rt_put_be16(b + off, tpid);
		rt_put_be16(b + off + 2, s->vlan_tci[i]);
		off += VLAN_TAG_BYTES;
	}
	rt_put_be16(b + off, v1 ? RT_ETHERTYPE_ROCEV1 : v6 ? 0x86DD : 0x0800);
	return off + 2;
}

/* The IPv6 header (RoCE v1's GRH too); l3_len counts from it to the ICRC's end. */
static void write_ipv6(uint8_t *ip, const struct rt_build_spec *s, size_t l3_len, bool v1)
{
	ip[0] = (uint8_t)(0x60 | (s->tos >> 4));
	ip[1] = (uint8_t)((s->tos << 4) | ((s->flow_label >> 16) & 0x0F));
	rt_put_be16(ip + 2, (uint16_t)s->flow_label);
	rt_put_be16(ip + 4, (uint16_t)(l3_len - IPV6_HEADER_BYTES));
	ip[6] = v1 ? RT_GRH_NEXT_HEADER_BTH : 17;
	ip[7] = s->ttl;
	memcpy(ip + 8, s->src_ip, 16);
	memcpy(ip + 24, s->dst_ip, 16);
}

static void write_ipv4(uint8_t *ip, const struct rt_build_spec *s, size_t l3_len)
{
	ip[0] = 0x45;
	ip[1] = s->tos;
	rt_put_be16(ip + 2, (uint16_t)l3_len);
	rt_put_be16(ip + 4, s->ip_id);
	rt_put_be16(ip + 6, s->ip_df ? 0x4000 : 0);
	ip[8] = s->ttl;
	ip[9] = 17;
	ip[10] = ip[11] = 0;
	memcpy(ip + 12, s->src_ip, 4);
	memcpy(ip + 16, s->dst_ip, 4);
	uint16_t c = rt_ipv4_header_checksum(ip, IPV4_HEADER_BYTES);
	rt_put_be16(ip + 10, s->corrupt_ip_checksum ? (uint16_t)~c : c);
}

/* Checksum 0: none, unless rt_build fills it in at the end (it covers the ICRC). */
static void write_udp(uint8_t *u, const struct rt_build_spec *s, size_t udp_len)
{
	rt_put_be16(u, s->udp_sport);
	rt_put_be16(u + 2, s->udp_dport ? s->udp_dport : RT_ROCEV2_UDP_PORT);
	rt_put_be16(u + 4, (uint16_t)udp_len);
	rt_put_be16(u + 6, 0);
}

/* BTH and the extension headers, in the table's order; returns the bytes written. */
static size_t write_transport_headers(uint8_t *b, const struct rt_build_spec *s, unsigned pad)
{
	write_bth(b, &s->bth, pad);
	size_t off = RT_BTH_BYTES;
	uint8_t ext = ext_of(s);
	for (unsigned i = 0; i < RT_EXT_COUNT; i++) {
		enum rt_ext_header h = (enum rt_ext_header)(1u << i);
		if (ext & h) {
			write_ext(b + off, h, &s->ext);
			off += rt_ext_header_bytes(h);
		}
	}
	return off;
}

/* Payload (zeros without one) and pad; returns the bytes written. */
static size_t write_payload(uint8_t *b, const struct rt_build_spec *s, unsigned pad)
{
	if (s->payload)
		memcpy(b, s->payload, s->payload_len);
	else
		memset(b, 0, s->payload_len);
	memset(b + s->payload_len, s->pad_byte, pad);
	return s->payload_len + pad;
}

static void write_icrc(uint8_t *b, const struct rt_build_spec *s, size_t l3_off, size_t bth_off, size_t icrc_off,
		       bool v1, bool v6)
{
	struct rt_icrc_layout layout = {
		.l3_off = (uint32_t)l3_off,
		.l3_hdr_len = v6 ? IPV6_HEADER_BYTES : IPV4_HEADER_BYTES,
		.ip_version = v6 ? 6 : 4,
		.roce_version = v1 ? 1 : 2,
		.bth_off = (uint32_t)bth_off,
		.icrc_off = (uint32_t)icrc_off,
	};
	uint32_t icrc = rt_icrc_compute_layout(b, &layout);
	rt_icrc_store(b, (uint32_t)icrc_off, s->corrupt_icrc ? icrc ^ 1u : icrc);
}

static void write_udp_checksum(uint8_t *b, size_t len, size_t udp_off)
{
	struct rt_packet p;
	if (rt_parse(&p, RT_LINK_ETHERNET, b, (uint32_t)len, (uint32_t)len) == RT_PARSE_ROCE)
		rt_put_be16(b + udp_off + 6, rt_udp_checksum(&p));
}

size_t rt_build(const struct rt_build_spec *s, uint8_t *buf, size_t cap)
{
	size_t len = rt_build_frame_len(s);
	if (len > cap || len > 0xFFFF + ETH_HEADER_BYTES)
		return 0;
	bool v1 = s->roce_version == 1;
	bool v6 = v1 || s->ip_version == 6;

	/* The network header's and UDP's lengths count from their start to the ICRC's end. */
	size_t l3_off = write_ethernet(buf, s, v1, v6);
	if (v6)
		write_ipv6(buf + l3_off, s, len - l3_off, v1);
	else
		write_ipv4(buf + l3_off, s, len - l3_off);
	size_t udp_off = l3_off + (v6 ? IPV6_HEADER_BYTES : IPV4_HEADER_BYTES);
	size_t bth_off = udp_off;
	if (!v1) {
		write_udp(buf + udp_off, s, len - udp_off);
		bth_off += UDP_HEADER_BYTES;
	}
	unsigned pad = pad_of(s);
	size_t payload_off = bth_off + write_transport_headers(buf + bth_off, s, pad);
	size_t icrc_off = payload_off + write_payload(buf + payload_off, s, pad);
	write_icrc(buf, s, l3_off, bth_off, icrc_off, v1, v6);

	/* The UDP checksum covers the ICRC bytes, so it comes last. */
	if (!v1 && s->udp_checksum)
		write_udp_checksum(buf, len, udp_off);
	return len;
}
