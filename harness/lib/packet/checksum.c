/* SPDX-License-Identifier: MIT */
#include "rocetest/checksum.h"

/* One's-complement sum of 16-bit big-endian words; an odd tail byte is padded with zero. */
static uint64_t sum16(uint64_t sum, const uint8_t *b, uint32_t len)
{
	while (len >= 2) {
		sum += rt_get_be16(b);
		b += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)b[0] << 8;
	return sum;
}

static uint16_t fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t rt_ipv4_header_checksum(const uint8_t *ip, unsigned hdr_len)
{
	/*
	 * 32-bit words, the checksum field (bytes 10-11) as zero: the sum of
	 * 32-bit words folds to the sum of 16-bit words (RFC 1071), in a fifth
	 * of the steps. The checker checks one header per packet.
	 */
	uint64_t sum = (uint64_t)rt_get_be32(ip) + rt_get_be32(ip + 4) + (rt_get_be32(ip + 8) & 0xFFFF0000u);
	for (unsigned i = 12; i + 4 <= hdr_len; i += 4)
		sum += rt_get_be32(ip + i);
	sum = sum16(sum, ip + (hdr_len & ~3u), hdr_len % 4);
	sum = (sum & 0xFFFFFFFF) + (sum >> 32);
	return fold((sum & 0xFFFF) + (sum >> 16));
}

uint16_t rt_udp_checksum(const struct rt_packet *p)
{
	/* Only a RoCE v2 packet has a UDP header; the length below would underflow otherwise. */
	if (p->roce_version != 2 || p->udp_len < 8)
		return 0;
	uint64_t sum = 0;
	unsigned alen = p->ip_version == 4 ? 4 : 16;
	sum = sum16(sum, p->src_ip, alen);
	sum = sum16(sum, p->dst_ip, alen);
	sum += 17;		/* protocol */
	sum += p->udp_len;	/* UDP length (IPv6: upper-layer length, the same here) */
	const uint8_t *u = p->frame + p->udp_off;
	sum = sum16(sum, u, 6);			/* ports, length; checksum as zero */
	sum = sum16(sum, u + 8, (uint32_t)p->udp_len - 8);
	uint16_t c = fold(sum);
	return c == 0 ? 0xFFFF : c;
}
