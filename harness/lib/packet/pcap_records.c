/* SPDX-License-Identifier: MIT */
#include "pcap_records.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Reading alone (when no second thread can be started): 128 KiB stays in a
 * core's L2 cache, so the kernel copies into a cache-hot buffer and the CRC
 * reads from one (1 MiB measured 10% slower). It grows to hold a record
 * larger than itself, never shrinks.
 */
#define BLOCK_BYTES (128u * 1024u)

/*
 * Reading ahead. Copying a capture out of the page cache takes about as long
 * as checking it (256 MB: 35 ms of pread() in 78 ms of `rocetest check`), so
 * a second thread preads the next block while the caller decodes this one.
 * Its blocks are large: handing one over costs a thread wake-up, tens of
 * microseconds, and with 4 MiB blocks the check of 256 MB took 65 ms where
 * 1 MiB took 80 and 256 KiB 98 (one thread: 78 to 90). Each block
 * keeps TAIL_ROOM bytes before its data for the unread end of the block
 * before (a record the boundary cut): room for the largest record, so a
 * record is always contiguous.
 */
#define AHEAD_BYTES (4u * 1024u * 1024u)
#define TAIL_ROOM (PCAP_RECORD_HEADER_BYTES + PCAP_MAX_CAPLEN)

struct read_ahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int fd;
	uint8_t *block[2];	/* TAIL_ROOM + AHEAD_BYTES each */
	unsigned spare;		/* the block the thread reads into */
	uint64_t off;		/* from this file offset */
	bool requested;		/* a read is asked for and not begun */
	bool done;		/* the last read asked for has ended: got, err */
	bool quit;
	size_t got;
	int err;
};

/* Reads AHEAD_BYTES (fewer at the end of the file) into `to` from file offset off; 0 or an errno. */
static int read_block(int fd, uint8_t *to, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < AHEAD_BYTES) {
		ssize_t n = pread(fd, to + *got, AHEAD_BYTES - *got, (off_t)(off + *got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

static void *read_ahead_main(void *arg)
{
	struct read_ahead *a = arg;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->requested && !a->quit)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->quit)
			break;
		a->requested = false;
		uint8_t *to = a->block[a->spare] + TAIL_ROOM;
		uint64_t off = a->off;
		pthread_mutex_unlock(&a->lock);
		size_t got;
		int err = read_block(a->fd, to, off, &got);
		pthread_mutex_lock(&a->lock);
		a->got = got;
		a->err = err;
		a->done = true;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* The thread reads the spare block from file offset off. */
static void ahead_request(struct read_ahead *a, uint64_t off)
{
	pthread_mutex_lock(&a->lock);
	a->off = off;
	a->requested = true;
	a->done = false;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

static void ahead_wait(struct read_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	while (!a->done)
		pthread_cond_wait(&a->cond, &a->lock);
	pthread_mutex_unlock(&a->lock);
}

static void ahead_free(struct read_ahead *a)
{
	free(a->block[0]);
	free(a->block[1]);
	free(a);
}

/* Starts the thread on the records from file offset off; NULL when it cannot (then the caller reads alone). */
static struct read_ahead *ahead_start(int fd, uint64_t off)
{
	struct read_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->fd = fd;
	a->block[0] = malloc(TAIL_ROOM + AHEAD_BYTES);
	a->block[1] = malloc(TAIL_ROOM + AHEAD_BYTES);
	if (!a->block[0] || !a->block[1] || pthread_mutex_init(&a->lock, NULL) != 0) {
		ahead_free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->cond, NULL) != 0 || pthread_create(&a->thread, NULL, read_ahead_main, a) != 0) {
		pthread_cond_destroy(&a->cond);
		pthread_mutex_destroy(&a->lock);
		ahead_free(a);
		return NULL;
	}
	ahead_request(a, off);
	return a;
}

/* Ends the thread (after the read under way, if any) and frees it with its blocks. */
static void ahead_stop(struct read_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	a->quit = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	ahead_free(a);
}

enum {
	MAGIC_MICRO = 0xA1B2C3D4u,
	MAGIC_NANO = 0xA1B23C4Du,
};

static uint32_t load32(const uint8_t *b, bool swapped)
{
	uint32_t v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
	return swapped ? __builtin_bswap32(v) : v;
}

bool pcap_records_open(struct pcap_records *r, int fd, uint64_t size)
{
	uint8_t hdr[PCAP_FILE_HEADER_BYTES];
	memset(r, 0, sizeof *r);
	if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
		return false;
	uint32_t magic = load32(hdr, false);
	if (magic == MAGIC_MICRO || magic == MAGIC_NANO) {
		r->swapped = false;
	} else if (__builtin_bswap32(magic) == MAGIC_MICRO || __builtin_bswap32(magic) == MAGIC_NANO) {
		r->swapped = true;
		magic = __builtin_bswap32(magic);
	} else {
		return false;
	}
	/*
	 * Version 2.4 only: what every current writer produces. Older files (whose
	 * caplen and len libpcap may swap) go to libpcap with their quirks.
	 */
	uint16_t major = (uint16_t)(hdr[4] | (hdr[5] << 8)), minor = (uint16_t)(hdr[6] | (hdr[7] << 8));
	if (r->swapped) {
		major = __builtin_bswap16(major);
		minor = __builtin_bswap16(minor);
	}
	if (major != 2 || minor != 4)
		return false;
	r->nanosecond = magic == MAGIC_NANO;
	r->fd = fd;
	r->snaplen = PCAP_MAX_CAPLEN;
	r->buf_off = PCAP_FILE_HEADER_BYTES;
	/* A file one block holds gains nothing from a thread. */
	r->ahead = size > AHEAD_BYTES ? ahead_start(fd, PCAP_FILE_HEADER_BYTES) : NULL;
	if (r->ahead) {
		/* Nothing yet in this block; the first records arrive in the other. */
		r->buf = r->ahead->block[1] + TAIL_ROOM;
		return true;
	}
	r->buf = malloc(BLOCK_BYTES);
	if (!r->buf)
		return false;
	r->cap = BLOCK_BYTES;
	return true;
}

/* The block the thread read becomes the current one, behind the unread end of this one; the thread reads on. */
static bool next_block(struct pcap_records *r, size_t need, int *err)
{
	struct read_ahead *a = r->ahead;
	if (r->eof)
		return false;
	ahead_wait(a);
	if (a->err) {
		*err = a->err;
		return false;
	}
	size_t tail = r->len - r->pos;
	uint8_t *data = a->block[a->spare] + TAIL_ROOM;
	memcpy(data - tail, r->buf + r->pos, tail);
	r->buf_off += r->pos;
	r->buf = data - tail;
	r->len = tail + a->got;
	r->pos = 0;
	r->eof = a->got < AHEAD_BYTES;
	a->spare ^= 1;
	if (!r->eof)
		ahead_request(a, r->buf_off + r->len);
	return r->len >= need;
}

/* Makes at least `need` bytes available at buf[pos]; false if the file ends first. */
static bool refill(struct pcap_records *r, size_t need, int *err)
{
	/* need is at most a record's header and PCAP_MAX_CAPLEN bytes: TAIL_ROOM holds it. */
	if (r->ahead)
		return next_block(r, need, err);
	/* Move the unread tail to the front; grow only for a record larger than the block. */
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->buf_off += r->pos;
	r->len -= r->pos;
	r->pos = 0;
	if (need > r->cap) {
		uint8_t *nb = realloc(r->buf, need);
		if (!nb) {
			*err = ENOMEM;
			return false;
		}
		r->buf = nb;
		r->cap = need;
	}
	while (r->len < need && !r->eof) {
		ssize_t n = pread(r->fd, r->buf + r->len, r->cap - r->len, (off_t)(r->buf_off + r->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			return false;
		}
		if (n == 0)
			r->eof = true;
		r->len += (size_t)n;
	}
	return r->len >= need;
}

/* Nearly every record is already in the block: that test inline, the reading out of line. */
static inline bool fill(struct pcap_records *r, size_t need, int *err)
{
	return r->len - r->pos >= need || refill(r, need, err);
}

int pcap_records_next(struct pcap_records *r, struct rt_frame *frame, char *why, size_t why_size)
{
	int err = 0;
	if (!fill(r, PCAP_RECORD_HEADER_BYTES, &err)) {
		size_t have = r->len - r->pos;
		if (err)
			snprintf(why, why_size, "read error: %s", strerror(err));
		else if (have == 0)
			return 0;
		else
			snprintf(why, why_size, "truncated record header: %zu of %u bytes before the end of the file", have,
				 PCAP_RECORD_HEADER_BYTES);
		return -1;
	}
	const uint8_t *h = r->buf + r->pos;
	uint32_t sec = load32(h, r->swapped);
	uint32_t frac = load32(h + 4, r->swapped);
	uint32_t caplen = load32(h + 8, r->swapped);
	uint32_t wirelen = load32(h + 12, r->swapped);
	if (caplen > PCAP_MAX_CAPLEN) {
		snprintf(why, why_size, "record claims %u captured bytes, more than the maximum %u", caplen,
			 PCAP_MAX_CAPLEN);
		return -1;
	}
	if (!fill(r, PCAP_RECORD_HEADER_BYTES + (size_t)caplen, &err)) {
		if (err)
			snprintf(why, why_size, "read error: %s", strerror(err));
		else
			snprintf(why, why_size, "truncated record: %u captured bytes announced, %zu before the end of "
				 "the file", caplen, r->len - r->pos - PCAP_RECORD_HEADER_BYTES);
		return -1;
	}
	/*
	 * Seconds are unsigned, as the format and Wireshark read them. A valid
	 * fraction is below 10^6 (10^9 with the nanosecond magic); an invalid one
	 * is read as libpcap 1.10 reads it (signed from a file in this machine's
	 * byte order, unsigned from a byte-swapped one), so both readers give the
	 * same, meaningless, time.
	 */
	int64_t fraction = r->swapped ? (int64_t)frac : (int64_t)(int32_t)frac;
	if (!r->nanosecond)
		fraction *= 1000;
	frame->ts_ns = (int64_t)sec * 1000000000 + fraction;
	/* A record longer than the file's snap length is cut to it, as libpcap does. */
	frame->caplen = caplen > r->snaplen ? r->snaplen : caplen;
	frame->wirelen = wirelen;
	frame->data = r->buf + r->pos + PCAP_RECORD_HEADER_BYTES;
	r->pos += PCAP_RECORD_HEADER_BYTES + caplen;
	return 1;
}

void pcap_records_close(struct pcap_records *r)
{
	if (r->ahead)
		ahead_stop(r->ahead);
	else
		free(r->buf);
	r->ahead = NULL;
	r->buf = NULL;
}
