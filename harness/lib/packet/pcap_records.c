/* SPDX-License-Identifier: MIT */
#include "pcap_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * 128 KiB stays in a core's L2 cache, so the kernel copies into a cache-hot
 * buffer and the CRC reads from one (1 MiB measured 10% slower). It grows to
 * hold a record larger than itself, never shrinks.
 */
#define BLOCK_BYTES (128u * 1024u)

enum {
	MAGIC_MICRO = 0xA1B2C3D4u,
	MAGIC_NANO = 0xA1B23C4Du,
};

static uint32_t load32(const uint8_t *b, bool swapped)
{
	uint32_t v = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
	return swapped ? __builtin_bswap32(v) : v;
}

bool pcap_records_open(struct pcap_records *r, int fd)
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
	r->buf = malloc(BLOCK_BYTES);
	if (!r->buf)
		return false;
	r->fd = fd;
	r->cap = BLOCK_BYTES;
	r->snaplen = PCAP_MAX_CAPLEN;
	r->buf_off = PCAP_FILE_HEADER_BYTES;
	return true;
}

/* Makes at least `need` bytes available at buf[pos]; false if the file ends first. */
static bool fill(struct pcap_records *r, size_t need, int *err)
{
	if (r->len - r->pos >= need)
		return true;
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
	free(r->buf);
	r->buf = NULL;
}
