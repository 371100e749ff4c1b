/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the frame parser and everything that reads a parsed
 * packet. Input: byte 0 picks the link type (enum rt_link, modulo the number
 * of link types), the rest is one frame. The frame goes into a malloc'd
 * buffer of exactly its size, so AddressSanitizer catches a read one byte
 * past the captured length.
 *
 * Each frame is parsed twice: as captured whole (caplen == wirelen) and as
 * cut by a snap length (wirelen > caplen), which takes the "truncated" paths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/describe.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"

#define LINK_COUNT (RT_LINK_IPV6 + 1)

/* Keeps the compiler from dropping calls whose results are otherwise unused. */
static volatile uint32_t sink;

/* Writes into a heap buffer of exactly `size` bytes, so an overflow by one is caught. */
static void describe_into(const struct rt_packet *p, size_t size)
{
	char *buf = malloc(size);
	if (!buf)
		return;
	rt_describe_opcode(p->bth.opcode, buf, size);
	sink += (uint8_t)buf[0];
	rt_describe_ext(p, buf, size);
	sink += (uint8_t)buf[0];
	rt_describe_aeth(p->ext.aeth.syndrome, buf, size);
	sink += (uint8_t)buf[0];
	rt_packet_format_ip(p, true, buf, size);
	sink += (uint8_t)buf[0];
	rt_packet_format_ip(p, false, buf, size);
	sink += (uint8_t)buf[0];
	free(buf);
}

static void check_packet(const struct rt_packet *p, uint32_t caplen)
{
	/* What every parse must guarantee, whatever the bytes. */
	if (p->status == RT_PARSE_ROCE) {
		if (p->bth_off + RT_BTH_BYTES > caplen)
			abort();	/* status ROCE promises a captured BTH */
		if (p->icrc_off < p->bth_off + RT_BTH_BYTES || p->roce_end != p->icrc_off + RT_ICRC_BYTES)
			abort();
		if (!p->truncated && p->roce_end > caplen)
			abort();
		if (p->payload_len > p->data_len)
			abort();
	}
	if ((p->status == RT_PARSE_MALFORMED || p->status == RT_PARSE_TRUNCATED) && !p->field)
		abort();
	if (p->status != RT_PARSE_ROCE && !p->reason)
		abort();
	if (!memchr(p->detail, '\0', sizeof p->detail))
		abort();

	enum rt_icrc_status icrc = rt_icrc_check(p);
	sink += (uint32_t)icrc;
	sink += (uint8_t)rt_icrc_status_name(icrc)[0];
	if (icrc != RT_ICRC_UNVERIFIED && (p->status != RT_PARSE_ROCE || p->truncated))
		abort();

	/* The callers' contract: a UDP checksum only for an untruncated RoCE v2 packet. */
	if (p->status == RT_PARSE_ROCE && !p->truncated && p->roce_version == 2)
		sink += rt_udp_checksum(p);
	if (p->status == RT_PARSE_ROCE && !p->truncated && p->ip_version == 4)
		sink += rt_ipv4_header_checksum(p->frame + p->l3_off, p->l3_hdr_len);

	/* The sizes the CLI uses, then tiny ones that force truncated output. */
	char op[64], ext[320], aeth[64], src[64], dst[64];
	rt_describe_opcode(p->bth.opcode, op, sizeof op);
	rt_describe_ext(p, ext, sizeof ext);
	rt_describe_aeth(p->ext.aeth.syndrome, aeth, sizeof aeth);
	rt_packet_format_ip(p, true, src, sizeof src);
	rt_packet_format_ip(p, false, dst, sizeof dst);
	sink += (uint8_t)op[0] + (uint8_t)ext[0] + (uint8_t)aeth[0] + (uint8_t)src[0] + (uint8_t)dst[0];
	describe_into(p, 1);
	describe_into(p, 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum rt_link link = (enum rt_link)(data[0] % LINK_COUNT);
	size_t len = size - 1;
	if (len > UINT32_MAX - 70000)
		return 0;
	/* Exactly len bytes; under ASan malloc(0) is a real zero-byte block, so any read is caught. */
	uint8_t *frame = malloc(len);
	if (!frame)
		return 0;
	if (len)
		memcpy(frame, data + 1, len);
	uint32_t caplen = (uint32_t)len;

	struct rt_packet p;
	/* Captured whole. */
	rt_parse(&p, link, frame, caplen, caplen);
	check_packet(&p, caplen);
	/* wirelen below caplen is treated as caplen. */
	rt_parse(&p, link, frame, caplen, caplen ? caplen - 1 : 0);
	check_packet(&p, caplen);
	/* Cut by the snap length: the wire frame was longer than what was captured. */
	uint32_t extra = 1 + (len ? frame[len - 1] : 0) * 257u;
	rt_parse(&p, link, frame, caplen, caplen + extra);
	check_packet(&p, caplen);
	rt_parse(&p, link, frame, caplen, caplen + 65536);
	check_packet(&p, caplen);
	/* The same bytes with the last byte cut off as if by the snap length. */
	if (len) {
		rt_parse(&p, link, frame, caplen - 1, caplen);
		check_packet(&p, caplen - 1);
	}
	free(frame);
	return 0;
}
