/* SPDX-License-Identifier: MIT */
/* The CM frame of cm-frame.md and the host's ARP request, byte by byte. */
#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/cm.h"

static void put_be(uint8_t *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

void rt_cm_encode(const struct rt_cm_msg *m, uint8_t p[RT_CM_PAYLOAD_BYTES])
{
	memset(p, 0, RT_CM_PAYLOAD_BYTES);
	p[0] = (uint8_t)(m->qp_info_valid | (m->req_type & 7) << 1 | m->ack_valid << 4 | (m->ack_type & 7) << 5);
	/* The 24-bit fields sit in 32 bits behind a zero byte. */
	put_be(p + 1, m->loc_qpn & 0xFFFFFF, 4);
	put_be(p + 5, m->loc_psn & 0xFFFFFF, 4);
	put_be(p + 9, m->loc_rkey, 4);
	put_be(p + 13, m->loc_base, 8);
	put_be(p + 21, m->loc_ip, 4);
	put_be(p + 25, m->rem_qpn & 0xFFFFFF, 4);
	put_be(p + 29, m->rem_psn & 0xFFFFFF, 4);
	put_be(p + 33, m->rem_rkey, 4);
	put_be(p + 37, m->rem_base, 8);
	put_be(p + 45, m->rem_ip, 4);
	put_be(p + 49, m->listening_port, 2);
	p[51] = (uint8_t)(m->txmeta_valid | m->start << 1 | m->is_immediate << 2 | m->tx_write << 3);
	put_be(p + 52, m->dma_length, 4);
	put_be(p + 56, m->n_transfers, 4);
	put_be(p + 60, m->frequency, 4);
}

void rt_cm_decode(const uint8_t p[RT_CM_PAYLOAD_BYTES], struct rt_cm_msg *m)
{
	*m = (struct rt_cm_msg){
		.qp_info_valid = p[0] & 1,
		.req_type = p[0] >> 1 & 7,
		.ack_valid = p[0] >> 4 & 1,
		.ack_type = p[0] >> 5 & 7,
		.loc_qpn = (uint32_t)get_be(p + 2, 3),
		.loc_psn = (uint32_t)get_be(p + 6, 3),
		.loc_rkey = (uint32_t)get_be(p + 9, 4),
		.loc_base = get_be(p + 13, 8),
		.loc_ip = (uint32_t)get_be(p + 21, 4),
		.rem_qpn = (uint32_t)get_be(p + 26, 3),
		.rem_psn = (uint32_t)get_be(p + 30, 3),
		.rem_rkey = (uint32_t)get_be(p + 33, 4),
		.rem_base = get_be(p + 37, 8),
		.rem_ip = (uint32_t)get_be(p + 45, 4),
		.listening_port = (uint16_t)get_be(p + 49, 2),
		.txmeta_valid = p[51] & 1,
		.start = p[51] >> 1 & 1,
		.is_immediate = p[51] >> 2 & 1,
		.tx_write = p[51] >> 3 & 1,
		.dma_length = (uint32_t)get_be(p + 52, 4),
		.n_transfers = (uint32_t)get_be(p + 56, 4),
		.frequency = (uint32_t)get_be(p + 60, 4),
	};
}

void rt_cm_frame_build(uint8_t f[RT_CM_FRAME_BYTES], const struct rt_cm_addr *a, const struct rt_cm_msg *m)
{
	memset(f, 0, RT_CM_FRAME_BYTES);
	memcpy(f, a->dst_mac, 6);
	memcpy(f + 6, a->src_mac, 6);
	put_be(f + 12, 0x0800, 2);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	put_be(ip + 2, RT_CM_FRAME_BYTES - 14, 2);
	put_be(ip + 4, a->ip_id, 2);
	put_be(ip + 6, 0x4000, 2);	/* DF */
	ip[8] = 64;
	ip[9] = 17;
	put_be(ip + 12, a->src_ip, 4);
	put_be(ip + 16, a->dst_ip, 4);
	put_be(ip + 10, rt_ipv4_header_checksum(ip, 20), 2);
	uint8_t *udp = f + 34;
	put_be(udp, a->src_port, 2);
	put_be(udp + 2, a->dst_port, 2);
	put_be(udp + 4, 8 + RT_CM_PAYLOAD_BYTES, 2);
	rt_cm_encode(m, f + 42);
}

bool rt_cm_frame_parse(const uint8_t *f, uint32_t len, struct rt_cm_addr *a, struct rt_cm_msg *m)
{
	if (len < RT_CM_FRAME_BYTES || get_be(f + 12, 2) != 0x0800 || f[14] != 0x45 || f[23] != 17 ||
	    get_be(f + 38, 2) != 8 + RT_CM_PAYLOAD_BYTES)
		return false;
	uint16_t sport = (uint16_t)get_be(f + 34, 2), dport = (uint16_t)get_be(f + 36, 2);
	if (sport != RT_CM_REPLY_PORT && dport != RT_CM_UDP_PORT)
		return false;
	memcpy(a->dst_mac, f, 6);
	memcpy(a->src_mac, f + 6, 6);
	a->src_ip = (uint32_t)get_be(f + 26, 4);
	a->dst_ip = (uint32_t)get_be(f + 30, 4);
	a->src_port = sport;
	a->dst_port = dport;
	a->ip_id = (uint16_t)get_be(f + 18, 2);
	rt_cm_decode(f + 42, m);
	return true;
}

void rt_arp_request_build(uint8_t f[RT_ARP_FRAME_BYTES], const uint8_t src_mac[6], uint32_t src_ip,
			  uint32_t target_ip)
{
	memset(f, 0, RT_ARP_FRAME_BYTES);
	memset(f, 0xFF, 6);
	memcpy(f + 6, src_mac, 6);
	put_be(f + 12, 0x0806, 2);
	put_be(f + 14, 1, 2);		/* Ethernet */
	put_be(f + 16, 0x0800, 2);	/* IPv4 */
	f[18] = 6;
	f[19] = 4;
	put_be(f + 20, 1, 2);		/* request */
	memcpy(f + 22, src_mac, 6);
	put_be(f + 28, src_ip, 4);
	put_be(f + 38, target_ip, 4);
}

bool rt_arp_reply_parse(const uint8_t *f, uint32_t len, uint8_t sender_mac[6], uint32_t *sender_ip,
			uint8_t target_mac[6], uint32_t *target_ip)
{
	if (len < 42 || get_be(f + 12, 2) != 0x0806 || get_be(f + 14, 2) != 1 || get_be(f + 16, 2) != 0x0800 ||
	    f[18] != 6 || f[19] != 4 || get_be(f + 20, 2) != 2)
		return false;
	memcpy(sender_mac, f + 22, 6);
	*sender_ip = (uint32_t)get_be(f + 28, 4);
	memcpy(target_mac, f + 32, 6);
	*target_ip = (uint32_t)get_be(f + 38, 4);
	return true;
}

const char *rt_cm_req_name(unsigned req)
{
	switch (req) {
	case RT_CM_REQ_NULL: return "NULL";
	case RT_CM_OPEN_QP: return "OPEN_QP";
	case RT_CM_SEND_QP_INFO: return "SEND_QP_INFO";
	case RT_CM_MODIFY_QP_RTS: return "MODIFY_QP_RTS";
	case RT_CM_CLOSE_QP: return "CLOSE_QP";
	case RT_CM_REQ_ERROR: return "ERROR";
	}
	return "reserved";
}

const char *rt_cm_ack_name(unsigned ack)
{
	switch (ack) {
	case RT_CM_ACK_NULL: return "NULL";
	case RT_CM_ACK: return "ACK";
	case RT_CM_NO_QP: return "NO_QP";
	case RT_CM_NAK: return "NAK";
	case RT_CM_ACK_ERROR: return "ERROR";
	}
	return "reserved";
}
