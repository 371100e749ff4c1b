/* SPDX-License-Identifier: MIT */
/*
 * Frame parser: link layer -> IPv4/IPv6 (or the RoCE v1 GRH) -> UDP -> BTH ->
 * extension headers (as the opcode table lists them) -> payload, pad, ICRC.
 *
 * Lengths come from the packet's own headers, never from the frame length:
 * the RoCE packet ends where the UDP length (or the GRH payload length) says,
 * so Ethernet padding and a captured FCS are never mistaken for ICRC bytes.
 *
 * Every read is checked against the captured length first. When bytes the
 * packet needs lie beyond the captured length but within the frame's wire
 * length, the snap length cut them (truncated, not an error of the packet).
 * When the headers claim more bytes than the frame has on the wire, the
 * packet is malformed and the offending field is named.
 */
#include "rocetest/packet.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum {
	ETHERTYPE_IPV4 = 0x0800,
	ETHERTYPE_ARP = 0x0806,
	ETHERTYPE_VLAN = 0x8100,
	ETHERTYPE_IPV6 = 0x86DD,
	ETHERTYPE_QINQ = 0x88A8,
	ETHERTYPE_QINQ_OLD = 0x9100,
	IPPROTO_UDP_ = 17,
	ETH_HEADER_BYTES = 14,
	SLL_HEADER_BYTES = 16,
	SLL2_HEADER_BYTES = 20,
	IPV4_MIN_HEADER_BYTES = 20,
	IPV6_HEADER_BYTES = 40,
	UDP_HEADER_BYTES = 8,
};

const char *rt_link_name(enum rt_link link)
{
	switch (link) {
	case RT_LINK_ETHERNET: return "Ethernet";
	case RT_LINK_LINUX_SLL: return "Linux cooked (SLL)";
	case RT_LINK_LINUX_SLL2: return "Linux cooked v2 (SLL2)";
	case RT_LINK_RAW_IP: return "raw IP";
	case RT_LINK_IPV4: return "raw IPv4";
	case RT_LINK_IPV6: return "raw IPv6";
	}
	return "?";
}

const char *rt_icrc_status_name(enum rt_icrc_status s)
{
	switch (s) {
	case RT_ICRC_OK: return "ok";
	case RT_ICRC_BAD: return "bad";
	case RT_ICRC_UNVERIFIED: break;
	}
	return "unverified";
}

static enum rt_parse_status not_roce(struct rt_packet *p, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum rt_parse_status not_roce(struct rt_packet *p, const char *reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof p->detail, fmt, ap);
	va_end(ap);
	p->reason = reason;
	return p->status = RT_PARSE_NOT_ROCE;
}

static enum rt_parse_status malformed(struct rt_packet *p, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum rt_parse_status malformed(struct rt_packet *p, const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof p->detail, fmt, ap);
	va_end(ap);
	p->field = field;
	p->reason = "malformed";
	return p->status = RT_PARSE_MALFORMED;
}

/* need() when the bytes were not captured: truncated, or malformed if even the wire frame is too short. */
static bool not_captured(struct rt_packet *p, uint32_t off, uint32_t len, const char *field)
{
	uint64_t end = (uint64_t)off + len;
	if (end <= p->wirelen) {
		p->field = field;
		p->reason = "cut by the capture's snap length";
		snprintf(p->detail, sizeof p->detail, "%s needs bytes %u-%u, %u captured", field, off,
			 (unsigned)(end - 1), p->caplen);
		p->status = RT_PARSE_TRUNCATED;
	} else {
		malformed(p, field, "%s needs bytes %u-%u, the frame is %u bytes long", field, off,
			  (unsigned)(end - 1), p->wirelen);
	}
	return false;
}

/*
 * Bytes [off, off+len) are needed to read `field`. Returns true when they
 * were captured; otherwise sets the status (not_captured) and returns false.
 * Inline: every header of every packet asks.
 */
static inline bool need(struct rt_packet *p, uint32_t off, uint32_t len, const char *field)
{
	return (uint64_t)off + len <= p->caplen || not_captured(p, off, len, field);
}

static inline bool is_vlan_tpid(uint16_t ethertype)
{
	return ethertype == ETHERTYPE_VLAN || ethertype == ETHERTYPE_QINQ || ethertype == ETHERTYPE_QINQ_OLD;
}

/* Reads VLAN tags starting at off (where an Ethertype was read as *ethertype). */
static bool read_vlan_tags(struct rt_packet *p, uint32_t *off, uint16_t *ethertype)
{
	while (is_vlan_tpid(*ethertype)) {
		if (p->vlan_count == RT_MAX_VLAN_TAGS) {
			not_roce(p, "more than 2 VLAN tags", "third VLAN tag (TPID 0x%04x) at byte %u", *ethertype,
				 *off - 2);
			return false;
		}
		if (!need(p, *off, 4, "VLAN tag"))
			return false;
		p->vlan_tpid[p->vlan_count] = *ethertype;
		p->vlan_tci[p->vlan_count] = rt_get_be16(p->frame + *off);
		p->vlan_count++;
		*ethertype = rt_get_be16(p->frame + *off + 2);
		*off += 4;
	}
	return true;
}

/* Untagged frames, the common case, skip the call. */
static inline bool parse_vlan_tags(struct rt_packet *p, uint32_t *off, uint16_t *ethertype)
{
	return !is_vlan_tpid(*ethertype) || read_vlan_tags(p, off, ethertype);
}

/* Link layer: finds where the network layer starts and what it is. */
static bool parse_link(struct rt_packet *p, enum rt_link link, uint32_t *off, uint16_t *ethertype)
{
	const uint8_t *f = p->frame;
	switch (link) {
	case RT_LINK_ETHERNET:
		if (!need(p, 0, ETH_HEADER_BYTES, "Ethernet header"))
			return false;
		*ethertype = rt_get_be16(f + 12);
		*off = ETH_HEADER_BYTES;
		return parse_vlan_tags(p, off, ethertype);
	case RT_LINK_LINUX_SLL:
		if (!need(p, 0, SLL_HEADER_BYTES, "Linux cooked header"))
			return false;
		*ethertype = rt_get_be16(f + 14);
		*off = SLL_HEADER_BYTES;
		return parse_vlan_tags(p, off, ethertype);
	case RT_LINK_LINUX_SLL2:
		if (!need(p, 0, SLL2_HEADER_BYTES, "Linux cooked v2 header"))
			return false;
		*ethertype = rt_get_be16(f);
		*off = SLL2_HEADER_BYTES;
		return parse_vlan_tags(p, off, ethertype);
	case RT_LINK_RAW_IP:
		if (!need(p, 0, 1, "IP version"))
			return false;
		*off = 0;
		if ((f[0] >> 4) == 4)
			*ethertype = ETHERTYPE_IPV4;
		else if ((f[0] >> 4) == 6)
			*ethertype = ETHERTYPE_IPV6;
		else {
			malformed(p, "IP version", "raw IP frame with IP version %u", f[0] >> 4);
			return false;
		}
		return true;
	case RT_LINK_IPV4:
		*off = 0;
		*ethertype = ETHERTYPE_IPV4;
		return true;
	case RT_LINK_IPV6:
		*off = 0;
		*ethertype = ETHERTYPE_IPV6;
		return true;
	}
	malformed(p, "link type", "unknown link type %d", (int)link);
	return false;
}

/* IPv4 header at off. On success *l3_end is where the IP datagram ends. */
static bool parse_ipv4(struct rt_packet *p, uint32_t off, uint32_t *l3_end)
{
	const uint8_t *f = p->frame;
	if (!need(p, off, IPV4_MIN_HEADER_BYTES, "IPv4 header"))
		return false;
	const uint8_t *ip = f + off;
	if ((ip[0] >> 4) != 4) {
		malformed(p, "IPv4 version", "version field is %u in an IPv4 packet", ip[0] >> 4);
		return false;
	}
	unsigned ihl = (ip[0] & 0x0F) * 4u;
	if (ihl < IPV4_MIN_HEADER_BYTES) {
		malformed(p, "IPv4 IHL", "header length %u bytes is below the minimum of 20", ihl);
		return false;
	}
	p->ip_version = 4;
	p->l3_off = off;
	p->l3_hdr_len = ihl;
	p->tos = ip[1];
	p->ip_total_len = rt_get_be16(ip + 2);
	p->ip_id = rt_get_be16(ip + 4);
	uint16_t frag = rt_get_be16(ip + 6);
	p->ip_df = (frag & 0x4000) != 0;
	p->ip_mf = (frag & 0x2000) != 0;
	p->ip_frag_off = (uint16_t)((frag & 0x1FFF) * 8);
	p->ttl = ip[8];
	p->ip_proto = ip[9];
	p->ip_checksum = rt_get_be16(ip + 10);
	memcpy(p->src_ip, ip + 12, 4);
	memcpy(p->dst_ip, ip + 16, 4);
	if (p->ip_proto != IPPROTO_UDP_)
		return not_roce(p, "not UDP", "IPv4 protocol %u", p->ip_proto), false;
	if (p->ip_frag_off != 0)
		return not_roce(p, "IPv4 fragment", "IPv4 fragment at offset %u (not reassembled)", p->ip_frag_off),
		       false;
	if (p->ip_total_len < ihl + UDP_HEADER_BYTES) {
		malformed(p, "IPv4 total length", "total length %u is smaller than the IP and UDP headers (%u)",
			  p->ip_total_len, ihl + UDP_HEADER_BYTES);
		return false;
	}
	if ((uint64_t)off + p->ip_total_len > p->wirelen) {
		malformed(p, "IPv4 total length", "total length %u, but the frame has %u bytes after byte %u",
			  p->ip_total_len, p->wirelen - off, off);
		return false;
	}
	if (!need(p, off, ihl, "IPv4 options"))
		return false;
	*l3_end = off + p->ip_total_len;
	return true;
}

/* IPv6 header (or the RoCE v1 GRH, which has the same layout) at off. */
static bool parse_ipv6(struct rt_packet *p, uint32_t off, uint32_t *l3_end, bool grh)
{
	const char *hdr = grh ? "GRH" : "IPv6 header";
	if (!need(p, off, IPV6_HEADER_BYTES, hdr))
		return false;
	const uint8_t *ip = p->frame + off;
	if ((ip[0] >> 4) != 6) {
		malformed(p, grh ? "GRH IPVer" : "IPv6 version", "version field is %u, expected 6", ip[0] >> 4);
		return false;
	}
	uint16_t payload_len = rt_get_be16(ip + 4);
	p->ip_version = 6;
	p->l3_off = off;
	p->l3_hdr_len = IPV6_HEADER_BYTES;
	p->tos = (uint8_t)(((ip[0] & 0x0F) << 4) | (ip[1] >> 4));
	p->flow_label = ((uint32_t)(ip[1] & 0x0F) << 16) | rt_get_be16(ip + 2);
	p->ip_total_len = (uint16_t)(payload_len + IPV6_HEADER_BYTES > 0xFFFF ? 0xFFFF
									    : payload_len + IPV6_HEADER_BYTES);
	p->ip_proto = ip[6];
	p->ttl = ip[7];
	memcpy(p->src_ip, ip + 8, 16);
	memcpy(p->dst_ip, ip + 24, 16);
	if (grh) {
		if (p->ip_proto != RT_GRH_NEXT_HEADER_BTH) {
			malformed(p, "GRH next header", "next header 0x%02x, RoCE v1 needs 0x1B (BTH)", p->ip_proto);
			return false;
		}
	} else if (p->ip_proto != IPPROTO_UDP_) {
		return not_roce(p, "not UDP", "IPv6 next header %u", p->ip_proto), false;
	}
	if ((uint64_t)off + IPV6_HEADER_BYTES + payload_len > p->wirelen) {
		malformed(p, grh ? "GRH payload length" : "IPv6 payload length",
			  "payload length %u, but the frame has %u bytes after the %s", payload_len,
			  p->wirelen - off - IPV6_HEADER_BYTES, hdr);
		return false;
	}
	*l3_end = off + IPV6_HEADER_BYTES + payload_len;
	return true;
}

static bool parse_udp(struct rt_packet *p, uint32_t off, uint32_t l3_end)
{
	if (l3_end - off < UDP_HEADER_BYTES) {
		malformed(p, "UDP header", "%u bytes after the IP header, UDP needs 8", l3_end - off);
		return false;
	}
	if (!need(p, off, UDP_HEADER_BYTES, "UDP header"))
		return false;
	const uint8_t *u = p->frame + off;
	p->udp_off = off;
	p->udp_sport = rt_get_be16(u);
	p->udp_dport = rt_get_be16(u + 2);
	p->udp_len = rt_get_be16(u + 4);
	p->udp_checksum = rt_get_be16(u + 6);
	if (p->udp_dport != RT_ROCEV2_UDP_PORT)
		return not_roce(p, "UDP, not RoCEv2", "UDP %u -> %u", p->udp_sport, p->udp_dport), false;
	if (p->ip_mf) {
		malformed(p, "IPv4 flags", "RoCEv2 packet is IP-fragmented (MF set); its ICRC cannot be checked");
		return false;
	}
	if (p->udp_len < UDP_HEADER_BYTES + RT_BTH_BYTES + RT_ICRC_BYTES) {
		malformed(p, "UDP length", "UDP length %u cannot hold UDP, BTH and ICRC (24 bytes)", p->udp_len);
		return false;
	}
	if ((uint64_t)off + p->udp_len > l3_end) {
		malformed(p, "UDP length", "UDP length %u exceeds the %u bytes the IP header leaves for UDP",
			  p->udp_len, l3_end - off);
		return false;
	}
	p->roce_end = off + p->udp_len;
	p->bth_off = off + UDP_HEADER_BYTES;
	return true;
}

static void decode_bth(struct rt_bth *b, const uint8_t *h)
{
	b->opcode = h[0];
	b->se = (h[1] & 0x80) != 0;
	b->migreq = (h[1] & 0x40) != 0;
	b->pad = (h[1] >> 4) & 3;
	b->tver = h[1] & 0x0F;
	b->pkey = rt_get_be16(h + 2);
	b->fecn = (h[4] & 0x80) != 0;
	b->becn = (h[4] & 0x40) != 0;
	b->resv6 = h[4] & 0x3F;
	b->dest_qp = rt_get_be24(h + 5);
	b->ack_req = (h[8] & 0x80) != 0;
	b->resv7 = h[8] & 0x7F;
	b->psn = rt_get_be24(h + 9);
}

static void decode_ext(struct rt_ext *e, enum rt_ext_header h, const uint8_t *b)
{
	switch (h) {
	case RT_EXT_DETH:
		e->deth.qkey = rt_get_be32(b);
		e->deth.reserved = b[4];
		e->deth.src_qp = rt_get_be24(b + 5);
		break;
	case RT_EXT_RETH:
		e->reth.va = rt_get_be64(b);
		e->reth.rkey = rt_get_be32(b + 8);
		e->reth.dma_len = rt_get_be32(b + 12);
		break;
	case RT_EXT_ATOMICETH:
		e->atomic.va = rt_get_be64(b);
		e->atomic.rkey = rt_get_be32(b + 8);
		e->atomic.swap_add = rt_get_be64(b + 12);
		e->atomic.compare = rt_get_be64(b + 20);
		break;
	case RT_EXT_AETH:
		e->aeth.syndrome = b[0];
		e->aeth.msn = rt_get_be24(b + 1);
		break;
	case RT_EXT_ATOMICACKETH:
		e->atomic_ack_orig = rt_get_be64(b);
		break;
	case RT_EXT_IMMDT:
		e->imm = rt_get_be32(b);
		break;
	case RT_EXT_IETH:
		e->ieth_rkey = rt_get_be32(b);
		break;
	}
}

/* BTH, extension headers, payload and ICRC position; p->roce_end is known. */
static enum rt_parse_status parse_transport(struct rt_packet *p)
{
	const char *len_field = p->roce_version == 2 ? "UDP length" : "GRH payload length";
	if (!need(p, p->bth_off, RT_BTH_BYTES, "BTH"))
		return p->status;
	decode_bth(&p->bth, p->frame + p->bth_off);
	p->op = rt_opcode_info(p->bth.opcode);

	uint32_t hdr_end = p->bth_off + RT_BTH_BYTES;
	uint8_t ext = (p->op && p->op->supported) ? p->op->ext : 0;
	if (ext) {
		hdr_end += p->op->ext_bytes;
		if ((uint64_t)hdr_end + RT_ICRC_BYTES > p->roce_end)
			return malformed(p, len_field, "%s %u leaves %u bytes after the BTH; %s needs %u for its "
				"headers and the ICRC", len_field, p->roce_version == 2 ? p->udp_len
				: p->roce_end - p->l3_off - IPV6_HEADER_BYTES, p->roce_end - p->bth_off - RT_BTH_BYTES,
				p->op->name, p->op->ext_bytes + RT_ICRC_BYTES);
		uint32_t off = p->bth_off + RT_BTH_BYTES;
		/* The headers in bit order, which is their order on the wire. */
		for (unsigned left = ext; left; left &= left - 1) {
			enum rt_ext_header h = (enum rt_ext_header)(left & -left);
			unsigned n = rt_ext_header_bytes(h);
			if (off + n > p->caplen)
				break;
			decode_ext(&p->ext, h, p->frame + off);
			p->ext_present |= h;
			off += n;
		}
	}
	p->ext_complete = p->ext_present == ext;
	p->payload_off = hdr_end;
	p->icrc_off = p->roce_end - RT_ICRC_BYTES;
	p->data_len = p->icrc_off - hdr_end;
	p->payload_len = p->data_len >= p->bth.pad ? p->data_len - p->bth.pad : 0;
	p->truncated = p->roce_end > p->caplen;
	if (!p->truncated) {
		const uint8_t *c = p->frame + p->icrc_off;
		p->icrc_wire = (uint32_t)c[0] | ((uint32_t)c[1] << 8) | ((uint32_t)c[2] << 16) |
			       ((uint32_t)c[3] << 24);
	}
	return p->status = RT_PARSE_ROCE;
}

enum rt_parse_status rt_parse(struct rt_packet *p, enum rt_link link, const uint8_t *frame, uint32_t caplen,
			      uint32_t wirelen)
{
	/* Everything zero but the message text, 96 of the 400 bytes, which only an error writes. */
	size_t text_end = offsetof(struct rt_packet, detail) + sizeof p->detail;
	memset(p, 0, offsetof(struct rt_packet, detail));
	p->detail[0] = '\0';
	memset((char *)p + text_end, 0, sizeof *p - text_end);
	p->frame = frame;
	p->caplen = caplen;
	p->wirelen = wirelen < caplen ? caplen : wirelen;

	uint32_t off = 0, l3_end = 0;
	uint16_t ethertype = 0;
	if (!parse_link(p, link, &off, &ethertype))
		return p->status;
	p->ethertype = ethertype;

	switch (ethertype) {
	case ETHERTYPE_IPV4:
		if (!parse_ipv4(p, off, &l3_end))
			return p->status;
		break;
	case ETHERTYPE_IPV6:
		if (!parse_ipv6(p, off, &l3_end, false))
			return p->status;
		break;
	case RT_ETHERTYPE_ROCEV1:
		if (!parse_ipv6(p, off, &l3_end, true))
			return p->status;
		p->roce_version = 1;
		if (l3_end - off < IPV6_HEADER_BYTES + RT_BTH_BYTES + RT_ICRC_BYTES)
			return malformed(p, "GRH payload length", "payload length %u cannot hold BTH and ICRC",
					 l3_end - off - IPV6_HEADER_BYTES);
		p->bth_off = off + IPV6_HEADER_BYTES;
		p->roce_end = l3_end;
		return parse_transport(p);
	case ETHERTYPE_ARP:
		return not_roce(p, "ARP", "ARP");
	default:
		return not_roce(p, "not IP", "Ethertype 0x%04x", ethertype);
	}
	p->roce_version = 2;
	if (!parse_udp(p, off + p->l3_hdr_len, l3_end))
		return p->status;
	return parse_transport(p);
}

void rt_packet_format_ip(const struct rt_packet *p, bool source, char *buf, size_t size)
{
	const uint8_t *a = source ? p->src_ip : p->dst_ip;
	if (size == 0)
		return;
	buf[0] = '\0';
	if (p->ip_version == 4)
		inet_ntop(AF_INET, a, buf, (socklen_t)size);
	else if (p->ip_version == 6)
		inet_ntop(AF_INET6, a, buf, (socklen_t)size);
}
