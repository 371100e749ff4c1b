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
	uint64_t sum = sum16(0, ip, 10);
	sum = sum16(sum, ip + 12, hdr_len - 12);
	return fold(sum);
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
