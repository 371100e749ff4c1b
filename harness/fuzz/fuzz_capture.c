/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the capture readers: the input is a whole capture file
 * (pcap or pcapng). It is read twice in lockstep: through libpcap (an
 * fmemopen() stream has no descriptor, so rt_capture_fopen() hands it to
 * libpcap) and through the in-place classic-pcap reader (the same bytes in a
 * memfd, a regular file). Both must hand out the same frames and fail at the
 * same frame; a difference aborts. Every frame also goes through rt_parse()
 * and rt_icrc_check(), from a malloc'd copy of exactly its captured length so
 * that an over-read by the parser is caught (the readers' buffers are larger).
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/capture.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same bytes as a regular file, so rt_capture_fopen() may read them in place. */
static FILE *memfd_stream(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.pcap", 0);
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

static void parse_frame(const struct rt_frame *fr, enum rt_link link)
{
	struct rt_packet p;
	uint8_t *copy = malloc(fr->caplen ? fr->caplen : 1);
	if (!copy)
		return;
	memcpy(copy, fr->data, fr->caplen);
	rt_parse(&p, link, copy, fr->caplen, fr->wirelen);
	sink += (uint64_t)rt_icrc_check(&p);
	if (p.status == RT_PARSE_ROCE && !p.truncated)
		sink += rt_udp_checksum(&p);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen() refuses a zero-length buffer; rt_capture_open() says "empty file" before it gets here. */
	if (size == 0)
		return 0;
	/* Mode "r" never writes to the buffer. */
	FILE *f = fmemopen((void *)data, size, "rb");
	FILE *g = memfd_stream(data, size);
	if (!f || !g) {
		if (f)
			fclose(f);
		if (g)
			fclose(g);
		return 0;
	}
	struct rt_error err = { { 0 } }, err2 = { { 0 } };
	struct rt_capture *cap = rt_capture_fopen(f, "fuzz.pcap", &err);	/* owns f from here */
	struct rt_capture *cap2 = rt_capture_fopen(g, "fuzz.pcap", &err2);	/* owns g */
	if (!cap != !cap2)
		abort();	/* both readers open through libpcap: same verdict */
	if (!cap) {
		if (!err.msg[0] || !memchr(err.msg, '\0', sizeof err.msg) || strcmp(err.msg, err2.msg) != 0)
			abort();	/* a failed open must say why, the same way */
		return 0;
	}
	enum rt_link link = rt_capture_link(cap);
	sink += (uint64_t)rt_capture_dlt(cap) + rt_capture_snaplen(cap) +
		rt_capture_size(cap) + (uint8_t)rt_capture_path(cap)[0];
	if (rt_link_dlt(link) != rt_capture_dlt(cap) || rt_capture_link(cap2) != link)
		abort();

	struct rt_frame fr, fr2;
	uint64_t expect = 1;
	int rc, rc2;
	for (;;) {
		rc = rt_capture_next(cap, &fr, &err);
		rc2 = rt_capture_next(cap2, &fr2, &err2);
		if (rc != rc2)
			abort();	/* one reader saw a frame, an end or damage where the other did not */
		if (rc != 1)
			break;
		if (fr.number != expect++ || fr2.number != fr.number || fr.caplen != fr2.caplen ||
		    fr.wirelen != fr2.wirelen || fr.ts_ns != fr2.ts_ns || memcmp(fr.data, fr2.data, fr.caplen) != 0)
			abort();
		sink += rt_capture_offset(cap) + rt_capture_offset(cap2);
		parse_frame(&fr, link);
	}
	if (rc < 0 && (!err.msg[0] || !err2.msg[0]))
		abort();
	rt_capture_close(cap);
	rt_capture_close(cap2);
	return 0;
}
