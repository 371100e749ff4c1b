/* SPDX-License-Identifier: MIT */
#include "rocetest/icrc.h"

#include <libdeflate.h>
#include <string.h>

enum {
	LRH_STANDIN_BYTES = 8,
	IPV4_MAX_HEADER_BYTES = 60,
	UDP_HEADER_BYTES = 8,
};

uint32_t rt_icrc_compute_layout(const uint8_t *frame, const struct rt_icrc_layout *l)
{
	/*
	 * The masked headers go through a small copy on the stack; the rest of
	 * the packet (usually nearly all of it) is CRCed in place, so the cost
	 * per packet is one short copy plus libdeflate's folded CRC-32.
	 */
	uint8_t hdr[LRH_STANDIN_BYTES + IPV4_MAX_HEADER_BYTES + UDP_HEADER_BYTES + RT_BTH_BYTES];
	size_t n = 0;

	memset(hdr, 0xFF, LRH_STANDIN_BYTES);
	n += LRH_STANDIN_BYTES;

	uint8_t *ip = hdr + n;
	/* The common sizes as constants, so the copies compile to a few moves, not a call. */
	if (l->l3_hdr_len == 20)
		memcpy(ip, frame + l->l3_off, 20);
	else if (l->l3_hdr_len == 40)
		memcpy(ip, frame + l->l3_off, 40);
	else
		memcpy(ip, frame + l->l3_off, l->l3_hdr_len);
	if (l->ip_version == 4) {
		ip[1] = 0xFF;			/* TOS: DSCP and ECN */
		ip[8] = 0xFF;			/* TTL */
		ip[10] = ip[11] = 0xFF;		/* header checksum */
	} else {
		ip[0] |= 0x0F;			/* traffic class, high nibble */
		ip[1] = ip[2] = ip[3] = 0xFF;	/* traffic class, flow label */
		ip[7] = 0xFF;			/* hop limit */
	}
	n += l->l3_hdr_len;

	if (l->roce_version == 2) {
		uint8_t *udp = hdr + n;
		memcpy(udp, frame + l->l3_off + l->l3_hdr_len, UDP_HEADER_BYTES);
		udp[6] = udp[7] = 0xFF;		/* UDP checksum */
		n += UDP_HEADER_BYTES;
	}

	uint8_t *bth = hdr + n;
	memcpy(bth, frame + l->bth_off, RT_BTH_BYTES);
	bth[4] = 0xFF;				/* FECN, BECN, 6 reserved bits */
	n += RT_BTH_BYTES;

	uint32_t crc = libdeflate_crc32(0, hdr, n);
	uint32_t rest = l->bth_off + RT_BTH_BYTES;
	return libdeflate_crc32(crc, frame + rest, l->icrc_off - rest);
}

uint32_t rt_icrc_compute(const struct rt_packet *p)
{
	struct rt_icrc_layout l = {
		.l3_off = p->l3_off,
		.l3_hdr_len = p->l3_hdr_len,
		.ip_version = p->ip_version,
		.roce_version = p->roce_version,
		.bth_off = p->bth_off,
		.icrc_off = p->icrc_off,
	};
	return rt_icrc_compute_layout(p->frame, &l);
}

enum rt_icrc_status rt_icrc_check(const struct rt_packet *p)
{
	if (p->status != RT_PARSE_ROCE || p->truncated)
		return RT_ICRC_UNVERIFIED;
	return rt_icrc_compute(p) == p->icrc_wire ? RT_ICRC_OK : RT_ICRC_BAD;
}

void rt_icrc_store(uint8_t *frame, uint32_t icrc_off, uint32_t icrc)
{
	frame[icrc_off] = (uint8_t)icrc;
	frame[icrc_off + 1] = (uint8_t)(icrc >> 8);
	frame[icrc_off + 2] = (uint8_t)(icrc >> 16);
	frame[icrc_off + 3] = (uint8_t)(icrc >> 24);
}
