/* SPDX-License-Identifier: MIT */
/*
 * The fast path for the commonest input: a classic pcap file on a regular
 * file. libpcap copies every record twice on its way in (kernel to stdio,
 * stdio to its packet buffer); measured on a 1 GB capture that capped
 * `rocetest icrc` at 2.8 GB/s. This reader reads large blocks with pread()
 * and hands out frames in place: one copy, from the page cache, made on a
 * second thread while the caller works on the block before.
 *
 * libpcap still opens and validates every file (header, magic, link type)
 * and reads everything else: pcapng, pipes, memory streams.
 */
#ifndef ROCETEST_PCAP_RECORDS_H
#define ROCETEST_PCAP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/capture.h"

enum {
	PCAP_FILE_HEADER_BYTES = 24,
	PCAP_RECORD_HEADER_BYTES = 16,
	/* libpcap's own ceiling on a record's captured length (MAXIMUM_SNAPLEN). */
	PCAP_MAX_CAPLEN = 262144,
};

struct pcap_records {
	int fd;
	bool swapped;		/* the file was written on a machine of the other byte order */
	bool nanosecond;	/* magic a1b23c4d: nanosecond timestamps */
	uint32_t snaplen;	/* frames are cut to this, as libpcap cuts them (set by the caller) */
	uint8_t *buf;
	size_t cap;		/* bytes allocated */
	size_t len;		/* bytes valid in buf */
	size_t pos;		/* next record header */
	uint64_t buf_off;	/* file offset of buf[0] */
	bool eof;
	struct read_ahead *ahead;	/* the reading thread; NULL: read here (buf is then its own allocation) */
};

/*
 * If the 24 bytes at the start of fd are a classic pcap 2.4 header (either
 * byte order, micro- or nanosecond magic), prepares r to read the records after it
 * and returns true. Returns false for anything else (pcapng, unknown magic,
 * allocation failure): the caller keeps using libpcap. The caller then sets
 * r->snaplen to the snap length libpcap settled on for the file. size is
 * the file's: a large one is read ahead on a second thread.
 */
bool pcap_records_open(struct pcap_records *r, int fd, uint64_t size);

/*
 * 1: a frame (frame->number is not touched); 0: clean end of file; -1: the
 * record is damaged, with a sentence in why (what is wrong, not where).
 */
int pcap_records_next(struct pcap_records *r, struct rt_frame *frame, char *why, size_t why_size);

/* File offset of the next record: for progress. */
static inline uint64_t pcap_records_offset(const struct pcap_records *r)
{
	return r->buf_off + r->pos;
}

void pcap_records_close(struct pcap_records *r);

#endif
