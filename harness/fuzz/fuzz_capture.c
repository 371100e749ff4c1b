/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the capture reader: the input is a whole capture file
 * (pcap or pcapng), read through rt_capture_fopen() on an fmemopen() stream;
 * every frame libpcap hands out goes through rt_parse() and rt_icrc_check().
 * Each frame is copied into a malloc'd buffer of exactly its captured length
 * first: libpcap's own buffer is larger, so an over-read by the parser would
 * go unnoticed there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/capture.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen() refuses a zero-length buffer; rt_capture_open() says "empty file" before it gets here. */
	if (size == 0)
		return 0;
	/* Mode "r" never writes to the buffer. */
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	struct rt_error err = { { 0 } };
	struct rt_capture *cap = rt_capture_fopen(f, "fuzz.pcap", &err);	/* owns f from here */
	if (!cap) {
		if (!err.msg[0] || !memchr(err.msg, '\0', sizeof err.msg))
			abort();	/* a failed open must say why */
		return 0;
	}
	enum rt_link link = rt_capture_link(cap);
	sink += (uint64_t)rt_capture_dlt(cap) + rt_capture_snaplen(cap) + rt_capture_nanosecond(cap) +
		rt_capture_size(cap) + (uint8_t)rt_capture_path(cap)[0];
	if (rt_link_dlt(link) != rt_capture_dlt(cap))
		abort();

	struct rt_frame fr;
	struct rt_packet p;
	uint64_t expect = 1;
	int rc;
	while ((rc = rt_capture_next(cap, &fr, &err)) == 1) {
		if (fr.number != expect++)
			abort();
		sink += rt_capture_offset(cap) + (uint64_t)fr.ts_ns;
		uint8_t *copy = malloc(fr.caplen);
		if (!copy && fr.caplen)
			break;
		if (fr.caplen)
			memcpy(copy, fr.data, fr.caplen);
		rt_parse(&p, link, copy, fr.caplen, fr.wirelen);
		enum rt_icrc_status icrc = rt_icrc_check(&p);
		sink += (uint64_t)icrc;
		if (p.status == RT_PARSE_ROCE && !p.truncated && p.roce_version == 2)
			sink += rt_udp_checksum(&p);
		free(copy);
	}
	if (rc < 0 && !err.msg[0])
		abort();
	rt_capture_close(cap);
	return 0;
}
