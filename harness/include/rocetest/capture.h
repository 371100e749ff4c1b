/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * Capture files: pcap and pcapng in, pcap out. libpcap opens and validates
 * every file, reads pcapng and streams, and writes. Classic pcap in a regular
 * file, the bulk of large captures, is read by a record reader of our own
 * (lib/pcap_records.c) that hands out frames in place: libpcap's two copies
 * per frame halved ICRC throughput. Frames come one at a time, with no
 * allocation per frame, numbered from 1 as Wireshark numbers them.
 */
#ifndef ROCETEST_CAPTURE_H
#define ROCETEST_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rocetest/error.h"
#include "rocetest/packet.h"

struct rt_frame {
	uint64_t number;	/* 1-based */
	int64_t ts_ns;		/* nanoseconds since the epoch */
	uint32_t caplen;
	uint32_t wirelen;
	const uint8_t *data;	/* valid until the next rt_capture_next() */
};

/*
 * Seconds and nanoseconds as nanoseconds since the epoch. 64-bit capture
 * times (pcapng, Wireshark's) can lie beyond what that holds (after 2262,
 * before 1678): saturated, never overflowed.
 */
static inline int64_t rt_ts_ns(int64_t sec, int64_t nsec)
{
	int64_t ns;
	if (__builtin_mul_overflow(sec, (int64_t)1000000000, &ns) || __builtin_add_overflow(ns, nsec, &ns))
		return sec < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

struct rt_capture;

/*
 * Open a capture file ("-" reads standard input). On failure returns NULL and
 * says why in err ("FILE: empty file (0 bytes), not a capture").
 */
struct rt_capture *rt_capture_open(const char *path, struct rt_error *err);

struct rt_capture_options {
	/* Read every file through libpcap, never the in-place reader: for cross-checks. */
	bool libpcap_only;
};
/* rt_capture_open() with options (NULL: the defaults). */
struct rt_capture *rt_capture_open_with(const char *path, const struct rt_capture_options *opts,
					struct rt_error *err);

/*
 * Read a capture from a stream that has not been read from yet (a file,
 * stdin, or an fmemopen() buffer). name stands for the stream in messages
 * and must outlive the capture. The capture owns f from here on: it is closed
 * by rt_capture_close(), or at once if this fails (except stdin on failure).
 * rt_capture_open() is this plus fopen() and the checks on the path.
 */
struct rt_capture *rt_capture_fopen(FILE *f, const char *name, struct rt_error *err);

/* 1: a frame; 0: end of file; -1: the file is damaged at this frame (err says where). */
int rt_capture_next(struct rt_capture *c, struct rt_frame *frame, struct rt_error *err);

enum rt_link rt_capture_link(const struct rt_capture *c);
int rt_capture_dlt(const struct rt_capture *c);	/* the libpcap link type */
uint32_t rt_capture_snaplen(const struct rt_capture *c);
const char *rt_capture_path(const struct rt_capture *c);
/* Bytes of the file read so far and its size (0 when unknown, e.g. a pipe): for progress. */
uint64_t rt_capture_offset(const struct rt_capture *c);
uint64_t rt_capture_size(const struct rt_capture *c);
void rt_capture_close(struct rt_capture *c);

/* Time 0 of a simulated run in the captures we write: 2026-01-01T00:00:00Z (deterministic, and not 1970). */
#define RT_CAPTURE_EPOCH_NS (1767225600ll * 1000000000ll)

/* Writes classic pcap with nanosecond timestamps. */
struct rt_capture_writer;

struct rt_capture_writer *rt_capture_writer_open(const char *path, int dlt, uint32_t snaplen,
						 struct rt_error *err);
/* Link type number (libpcap DLT) for one of ours; -1 if none. */
int rt_link_dlt(enum rt_link link);
int rt_capture_write(struct rt_capture_writer *w, int64_t ts_ns, const uint8_t *data, uint32_t caplen,
		     uint32_t wirelen);
/* Flushes and closes; -1 with err set when anything failed to reach the file. */
int rt_capture_writer_close(struct rt_capture_writer *w, struct rt_error *err);

#endif
