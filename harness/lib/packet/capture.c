/* SPDX-License-Identifier: MIT */
#include "rocetest/capture.h"

#include "pcap_records.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

/*
 * stdio buffer for reading. 128 KiB costs only 8 reads per MB and, with
 * libpcap's own packet buffer, stays in a core's L2 cache: the kernel copies
 * into a cache-hot buffer and libpcap copies out of one. 1 MiB was 10% slower
 * on a 1 GB capture (rocetest icrc: 0.33 s against 0.30 s; L2 is 1 MiB a core).
 */
#define READ_BUFFER_BYTES (1u << 17)

struct rt_capture {
	pcap_t *pcap;
	FILE *file;
	char *buffer;
	const char *path;
	enum rt_link link;
	int dlt;
	uint64_t size;
	uint64_t frames;
	bool direct;			/* classic pcap read by pcap_records, not libpcap */
	struct pcap_records records;
};

static bool link_from_dlt(int dlt, enum rt_link *link)
{
	switch (dlt) {
	case DLT_EN10MB: *link = RT_LINK_ETHERNET; return true;
	case DLT_LINUX_SLL: *link = RT_LINK_LINUX_SLL; return true;
	case DLT_LINUX_SLL2: *link = RT_LINK_LINUX_SLL2; return true;
	case DLT_RAW: *link = RT_LINK_RAW_IP; return true;
	case DLT_IPV4: *link = RT_LINK_IPV4; return true;
	case DLT_IPV6: *link = RT_LINK_IPV6; return true;
	default: return false;
	}
}

int rt_link_dlt(enum rt_link link)
{
	switch (link) {
	case RT_LINK_ETHERNET: return DLT_EN10MB;
	case RT_LINK_LINUX_SLL: return DLT_LINUX_SLL;
	case RT_LINK_LINUX_SLL2: return DLT_LINUX_SLL2;
	case RT_LINK_RAW_IP: return DLT_RAW;
	case RT_LINK_IPV4: return DLT_IPV4;
	case RT_LINK_IPV6: return DLT_IPV6;
	}
	return -1;
}

/* Turns libpcap's open errors into a sentence about the file. */
static void explain_open_failure(const char *path, FILE *f, const char *pcap_msg, struct rt_error *err)
{
	unsigned char magic[4] = { 0 };
	size_t got = 0;
	if (f && fseek(f, 0, SEEK_SET) == 0)
		got = fread(magic, 1, sizeof magic, f);
	if (strstr(pcap_msg, "unknown file format") || strstr(pcap_msg, "bad dump file format"))
		rt_error_set(err, "%s: not a pcap or pcapng capture (it starts with %02x %02x %02x %02x)", path,
			     magic[0], magic[1], magic[2], magic[3]);
	else if (strstr(pcap_msg, "truncated") && got < sizeof magic)
		rt_error_set(err, "%s: file too short to be a capture (%zu bytes)", path, got);
	else if (strstr(pcap_msg, "truncated"))
		rt_error_set(err, "%s: truncated capture file header (%s)", path, pcap_msg);
	else
		rt_error_set(err, "%s: cannot read as a capture: %s", path, pcap_msg);
}

static struct rt_capture *open_stream(FILE *f, const char *name, const struct rt_capture_options *opts,
				      struct rt_error *err);

struct rt_capture *rt_capture_open(const char *path, struct rt_error *err)
{
	return rt_capture_open_with(path, NULL, err);
}

struct rt_capture *rt_capture_open_with(const char *path, const struct rt_capture_options *opts,
					struct rt_error *err)
{
	if (strcmp(path, "-") == 0)
		return open_stream(stdin, path, opts, err);
	struct stat st;
	if (stat(path, &st) != 0) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		rt_error_set(err, "%s: is a directory, not a capture file", path);
		return NULL;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return open_stream(f, path, opts, err);
}

/* The size of a regular file or a memory stream; 0 when unknown (pipe, terminal). */
static uint64_t stream_size(FILE *f, bool *known)
{
	int fd = fileno(f);
	*known = false;
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
			return 0;
		*known = true;
		return (uint64_t)st.st_size;
	}
	/* No descriptor (fmemopen, fopencookie): measure it by seeking, if it can seek. */
	off_t here = ftello(f);
	if (here < 0 || fseeko(f, 0, SEEK_END) != 0)
		return 0;
	off_t end = ftello(f);
	if (fseeko(f, here, SEEK_SET) != 0 || end < 0)
		return 0;
	*known = true;
	return (uint64_t)end;
}

struct rt_capture *rt_capture_fopen(FILE *f, const char *name, struct rt_error *err)
{
	return open_stream(f, name, NULL, err);
}

/* How the frames will be read, chosen before libpcap opens the stream. */
static void choose_reader(struct rt_capture *c, const struct rt_capture_options *opts)
{
	int fd = fileno(c->file);
	/*
	 * A classic pcap in a regular file is read by pcap_records (no copy per
	 * frame); libpcap still opens it, to validate the header.
	 */
	bool libpcap_only = opts && opts->libpcap_only;
	if (!libpcap_only && c->size && fd >= 0)
		c->direct = pcap_records_open(&c->records, fd, c->size);

	/* A bigger stdio buffer only pays off for a stream backed by a descriptor libpcap reads. */
	if (!c->direct && fd >= 0) {
		c->buffer = malloc(READ_BUFFER_BYTES);
		if (c->buffer)
			setvbuf(c->file, c->buffer, _IOFBF, READ_BUFFER_BYTES);
		/*
		 * A fresh stream does not know its file offset, and glibc's ftello()
		 * then asks the kernel (lseek) on every call: one syscall per frame
		 * through rt_capture_offset(). One seek that does not move makes
		 * stdio track the offset itself. Regular files only (pipes cannot seek).
		 */
		if (c->size)
			fseeko(c->file, 0, SEEK_CUR);
	}
}

/* libpcap opens the stream (validating its header) and names the link type, which must be one we decode. */
static int open_libpcap(struct rt_capture *c, bool is_stdin, struct rt_error *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	c->pcap = pcap_fopen_offline_with_tstamp_precision(c->file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!c->pcap) {
		explain_open_failure(c->path, is_stdin ? NULL : c->file, errbuf, err);
		return -1;
	}
	/* pcap_close() closes the FILE now; stdin included, which is what we want. */
	c->dlt = pcap_datalink(c->pcap);
	if (!link_from_dlt(c->dlt, &c->link)) {
		const char *dlt_name = pcap_datalink_val_to_name(c->dlt);
		rt_error_set(err, "%s: link type %d (%s) is not supported; rocetest reads Ethernet, Linux cooked "
			     "(SLL, SLL2) and raw IP captures", c->path, c->dlt, dlt_name ? dlt_name : "unknown");
		return -1;
	}
	if (c->direct)
		c->records.snaplen = (uint32_t)pcap_snapshot(c->pcap);
	return 0;
}

static struct rt_capture *open_stream(FILE *f, const char *name, const struct rt_capture_options *opts,
				      struct rt_error *err)
{
	bool is_stdin = f == stdin;
	struct rt_capture *c = calloc(1, sizeof *c);
	if (!c) {
		rt_error_set(err, "%s: out of memory", name);
		if (!is_stdin)
			fclose(f);
		return NULL;
	}
	c->path = name;
	c->file = f;
	if (!is_stdin) {
		bool known;
		c->size = stream_size(f, &known);
		if (known && c->size == 0) {
			rt_error_set(err, "%s: empty file (0 bytes), not a capture", name);
			goto fail;
		}
	}
	choose_reader(c, opts);
	if (open_libpcap(c, is_stdin, err))
		goto fail;
	return c;
fail:
	rt_capture_close(c);
	return NULL;
}

int rt_capture_next(struct rt_capture *c, struct rt_frame *frame, struct rt_error *err)
{
	if (c->direct) {
		char why[160];
		int rc = pcap_records_next(&c->records, frame, why, sizeof why);
		if (rc < 0)
			rt_error_set(err, "%s: frame %llu: damaged capture record: %s", c->path,
				     (unsigned long long)c->frames + 1, why);
		if (rc == 1)
			frame->number = ++c->frames;
		return rc;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(c->pcap, &h, &data);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		rt_error_set(err, "%s: frame %llu: damaged capture record: %s", c->path,
			     (unsigned long long)c->frames + 1, pcap_geterr(c->pcap));
		return -1;
	}
	c->frames++;
	frame->number = c->frames;
	/*
	 * libpcap reads classic pcap's 32-bit seconds as signed; the format and
	 * Wireshark read them as unsigned (so times after 2038 stay right), and
	 * so does pcap_records. With nanosecond precision requested, libpcap puts
	 * nanoseconds in tv_usec.
	 */
	int64_t sec = h->ts.tv_sec < 0 ? (int64_t)h->ts.tv_sec + ((int64_t)1 << 32) : (int64_t)h->ts.tv_sec;
	frame->ts_ns = rt_ts_ns(sec, (int64_t)h->ts.tv_usec);
	frame->caplen = h->caplen;
	frame->wirelen = h->len;
	frame->data = data;
	return 1;
}

enum rt_link rt_capture_link(const struct rt_capture *c)
{
	return c->link;
}

int rt_capture_dlt(const struct rt_capture *c)
{
	return c->dlt;
}

uint32_t rt_capture_snaplen(const struct rt_capture *c)
{
	return (uint32_t)pcap_snapshot(c->pcap);
}

const char *rt_capture_path(const struct rt_capture *c)
{
	return c->path;
}

uint64_t rt_capture_offset(const struct rt_capture *c)
{
	if (c->direct)
		return pcap_records_offset(&c->records);
	if (!c->size)
		return 0;
	off_t off = ftello(c->file);
	return off < 0 ? 0 : (uint64_t)off;
}

uint64_t rt_capture_size(const struct rt_capture *c)
{
	return c->size;
}

void rt_capture_close(struct rt_capture *c)
{
	if (!c)
		return;
	if (c->pcap)
		pcap_close(c->pcap);	/* closes c->file */
	else if (c->file && c->file != stdin)
		fclose(c->file);
	if (c->direct)
		pcap_records_close(&c->records);
	free(c->buffer);
	free(c);
}

/* Writes go through a large buffer: a 4 KB frame per write(2) would make the kernel the bottleneck. */
#define WRITE_BUFFER_BYTES (1u << 20)

struct rt_capture_writer {
	pcap_t *dead;
	pcap_dumper_t *dumper;
	const char *path;
	char *buffer;		/* the FILE's buffer: freed only after the FILE is closed */
};

struct rt_capture_writer *rt_capture_writer_open(const char *path, int dlt, uint32_t snaplen, struct rt_error *err)
{
	struct rt_capture_writer *w = calloc(1, sizeof *w);
	if (!w) {
		rt_error_set(err, "%s: out of memory", path);
		return NULL;
	}
	w->path = path;
	w->dead = pcap_open_dead_with_tstamp_precision(dlt, (int)snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead) {
		rt_error_set(err, "%s: libpcap cannot write link type %d", path, dlt);
		free(w);
		return NULL;
	}
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!f) {
		rt_error_set(err, "%s: cannot write: %s", path, strerror(errno));
		pcap_close(w->dead);
		free(w);
		return NULL;
	}
	/* Standard output may have been written to already: its buffer is not ours to change. */
	w->buffer = f != stdout ? malloc(WRITE_BUFFER_BYTES) : NULL;
	if (w->buffer)
		setvbuf(f, w->buffer, _IOFBF, WRITE_BUFFER_BYTES);
	w->dumper = pcap_dump_fopen(w->dead, f);
	if (!w->dumper) {
		rt_error_set(err, "%s: cannot write: %s", path, pcap_geterr(w->dead));
		if (f != stdout)
			fclose(f);
		pcap_close(w->dead);
		free(w->buffer);
		free(w);
		return NULL;
	}
	return w;
}

int rt_capture_write(struct rt_capture_writer *w, int64_t ts_ns, const uint8_t *data, uint32_t caplen,
		     uint32_t wirelen)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(ts_ns / 1000000000), .tv_usec = (suseconds_t)(ts_ns % 1000000000) },
		.caplen = caplen,
		.len = wirelen < caplen ? caplen : wirelen,
	};
	pcap_dump((u_char *)w->dumper, &h, data);
	return 0;
}

int rt_capture_writer_close(struct rt_capture_writer *w, struct rt_error *err)
{
	if (!w)
		return 0;
	int rc = 0;
	if (pcap_dump_flush(w->dumper) != 0 || ferror(pcap_dump_file(w->dumper))) {
		rt_error_set(err, "%s: write failed: %s", w->path, strerror(errno));
		rc = -1;
	}
	pcap_dump_close(w->dumper);	/* closes the FILE: its buffer is free after this */
	pcap_close(w->dead);
	free(w->buffer);
	free(w);
	return rc;
}
