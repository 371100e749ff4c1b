/* SPDX-License-Identifier: MIT */
/*
 * Capture files: the writer and reader round trip, pcap files written by
 * hand here (so the reader is checked against the file format, not against
 * our own writer), damaged and foreign files, and pcapng from tshark.
 * Every test works in its own mkdtemp directory under /tmp.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/icrc.h"
#include "suites.h"
#include "test_util.h"

/* The pcap file format's magic numbers and link types (tcpdump.org/linktypes.html). */
enum {
	PCAP_MAGIC_USEC = 0xA1B2C3D4,
	PCAP_MAGIC_NSEC = 0xA1B23C4D,
	LINKTYPE_ETHERNET = 1,
	LINKTYPE_RAW = 101,
	LINKTYPE_IEEE802_11 = 105,
	LINKTYPE_LINUX_SLL = 113,
	LINKTYPE_IPV4 = 228,
	LINKTYPE_IPV6 = 229,
	LINKTYPE_LINUX_SLL2 = 276,
};

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/rocetest-unit-XXXXXX");
	ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp failed");
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(tmpdir);
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

struct record {
	uint32_t ts_sec, ts_frac;	/* fraction in µs or ns by the magic */
	const uint8_t *data;
	uint32_t caplen, wirelen;
};

/* A classic pcap file in host byte order (readers swap by the magic). */
static void write_pcap(const char *path, uint32_t magic, uint32_t linktype, const struct record *r, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot create %s", path);
	uint32_t magic_v = magic, zone_sigfigs[2] = { 0, 0 }, snap_link[2] = { 65535, linktype };
	uint16_t version[2] = { 2, 4 };
	fwrite(&magic_v, 4, 1, f);
	fwrite(version, 2, 2, f);
	fwrite(zone_sigfigs, 4, 2, f);
	fwrite(snap_link, 4, 2, f);
	for (size_t i = 0; i < n; i++) {
		uint32_t hdr[4] = { r[i].ts_sec, r[i].ts_frac, r[i].caplen, r[i].wirelen };
		fwrite(hdr, 4, 4, f);
		fwrite(r[i].data, 1, r[i].caplen, f);
	}
	ck_assert_int_eq(fclose(f), 0);
}

static void expect_open_error(const char *path, const char *also)
{
	struct rt_error err = { "" };
	struct rt_capture *c = rt_capture_open(path, &err);
	if (c) {
		rt_capture_close(c);
		ck_abort_msg("%s opened as a capture", path);
	}
	ck_assert_msg(strstr(err.msg, path) != NULL, "error \"%s\" does not name %s", err.msg, path);
	if (also)
		ck_assert_msg(strstr(err.msg, also) != NULL, "error \"%s\" does not mention \"%s\"", err.msg, also);
}

/* A RoCE frame to store, different per index. */
static size_t sample_frame(unsigned index, uint8_t *buf, size_t cap)
{
	struct rt_build_spec s;
	spec_with_fields(&s, fact_opcodes[index % fact_opcode_count].opcode, 17 * index, (int)(index & 1));
	if (!fact_opcodes[index % fact_opcode_count].payload)
		s.payload_len = 0;
	return build_frame(&s, buf, cap);
}

START_TEST(writer_reader_round_trip)
{
	char path[256];
	tmp_path(path, sizeof path, "round.pcap");
	static const int64_t ts[] = { 1700000000123456789LL, 1700000000123456790LL, 5, 1000000000LL };
	uint8_t frames[4][TEST_FRAME_MAX];
	uint32_t len[4], caplen[4];
	struct rt_error err = { "" };
	struct rt_capture_writer *w = rt_capture_writer_open(path, rt_link_dlt(RT_LINK_ETHERNET), 65535, &err);
	ck_assert_msg(w != NULL, "%s", err.msg);
	for (unsigned i = 0; i < 4; i++) {
		len[i] = (uint32_t)sample_frame(i + 3, frames[i], sizeof frames[i]);
		caplen[i] = i == 2 ? 40 : len[i];	/* the third one as if cut by a snap length */
		ck_assert_int_eq(rt_capture_write(w, ts[i], frames[i], caplen[i], len[i]), 0);
	}
	ck_assert_int_eq(rt_capture_writer_close(w, &err), 0);

	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	ck_assert_int_eq(rt_capture_link(c), RT_LINK_ETHERNET);
	ck_assert_int_eq(rt_capture_dlt(c), LINKTYPE_ETHERNET);
	ck_assert_uint_eq(rt_capture_snaplen(c), 65535);
	ck_assert_str_eq(rt_capture_path(c), path);
	ck_assert_uint_eq(rt_capture_size(c), (uint64_t)st.st_size);
	struct rt_frame f;
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
		ck_assert_uint_eq(f.number, i + 1);
		ck_assert_int_eq(f.ts_ns, ts[i]);
		ck_assert_uint_eq(f.caplen, caplen[i]);
		ck_assert_uint_eq(f.wirelen, len[i]);
		ck_assert_mem_eq(f.data, frames[i], caplen[i]);
	}
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 0);
	ck_assert_uint_eq(rt_capture_offset(c), (uint64_t)st.st_size);
	rt_capture_close(c);
}
END_TEST

START_TEST(hand_written_microsecond_pcap)
{
	char path[256];
	tmp_path(path, sizeof path, "usec.pcap");
	uint8_t frame[TEST_FRAME_MAX];
	uint32_t len = (uint32_t)sample_frame(4, frame, sizeof frame);
	struct record r[2] = {
		{ 1, 123456, frame, len, len },
		{ 1700000000, 999999, frame, len - 10, len },
	};
	write_pcap(path, PCAP_MAGIC_USEC, LINKTYPE_ETHERNET, r, 2);
	struct rt_error err = { "" };
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	struct rt_frame f;
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
	ck_assert_int_eq(f.ts_ns, 1123456000LL);	/* microseconds scaled, not taken as ns */
	ck_assert_uint_eq(f.caplen, len);
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
	ck_assert_uint_eq(f.number, 2);
	ck_assert_int_eq(f.ts_ns, 1700000000999999000LL);
	ck_assert_uint_eq(f.caplen, len - 10);
	ck_assert_uint_eq(f.wirelen, len);
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 0);
	rt_capture_close(c);
}
END_TEST

START_TEST(link_types)
{
	static const struct {
		uint32_t linktype;
		enum rt_link link;
		uint8_t ip_version;
	} cases[] = {
		{ LINKTYPE_ETHERNET, RT_LINK_ETHERNET, 4 }, { LINKTYPE_LINUX_SLL, RT_LINK_LINUX_SLL, 6 },
		{ LINKTYPE_LINUX_SLL2, RT_LINK_LINUX_SLL2, 4 }, { LINKTYPE_RAW, RT_LINK_RAW_IP, 6 },
		{ LINKTYPE_IPV4, RT_LINK_IPV4, 4 },       { LINKTYPE_IPV6, RT_LINK_IPV6, 6 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[256];
		char name[32];
		snprintf(name, sizeof name, "link%u.pcap", cases[i].linktype);
		tmp_path(path, sizeof path, name);
		struct rt_build_spec s;
		uint8_t eth[TEST_FRAME_MAX], frame[TEST_FRAME_MAX];
		spec_with_fields(&s, 0x0B, 21, 0);
		s.ip_version = cases[i].ip_version;
		uint32_t len = (uint32_t)reframe(eth, build_frame(&s, eth, sizeof eth), cases[i].link, frame,
						 sizeof frame);
		struct record r = { 10, 20, frame, len, len };
		write_pcap(path, PCAP_MAGIC_NSEC, cases[i].linktype, &r, 1);

		struct rt_error err = { "" };
		struct rt_capture *c = rt_capture_open(path, &err);
		ck_assert_msg(c != NULL, "link type %u: %s", cases[i].linktype, err.msg);
		ck_assert_int_eq(rt_capture_link(c), cases[i].link);
		struct rt_frame f;
		ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
		ck_assert_int_eq(f.ts_ns, 10000000020LL);
		struct rt_packet p;
		ck_assert_int_eq(rt_parse(&p, rt_capture_link(c), f.data, f.caplen, f.wirelen), RT_PARSE_ROCE);
		ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
		rt_capture_close(c);
		/* Our link types map back to the same numbers for the writer (DLT_RAW is 12 in libpcap's API). */
		if (cases[i].linktype != LINKTYPE_RAW)
			ck_assert_int_eq(rt_link_dlt(cases[i].link), (int)cases[i].linktype);
	}
}
END_TEST

START_TEST(unsupported_link_type)
{
	char path[256];
	tmp_path(path, sizeof path, "wifi.pcap");
	uint8_t junk[32] = { 0x08, 0x00 };
	struct record r = { 1, 2, junk, sizeof junk, sizeof junk };
	write_pcap(path, PCAP_MAGIC_USEC, LINKTYPE_IEEE802_11, &r, 1);
	expect_open_error(path, "105");
}
END_TEST

START_TEST(missing_empty_short_and_text_files)
{
	char path[256];
	tmp_path(path, sizeof path, "does-not-exist.pcap");
	expect_open_error(path, NULL);

	tmp_path(path, sizeof path, "empty.pcap");
	write_bytes(path, "", 0);
	expect_open_error(path, NULL);

	tmp_path(path, sizeof path, "three.pcap");
	write_bytes(path, "\xd4\xc3\xb2", 3);
	expect_open_error(path, NULL);

	tmp_path(path, sizeof path, "notes.txt");
	static const char text[] = "These are notes, not packets. RoCEv2 uses UDP port 4791.\n";
	write_bytes(path, text, sizeof text - 1);
	expect_open_error(path, NULL);

	/* Only the 24-byte file header: a capture with no frames, not an error. */
	tmp_path(path, sizeof path, "header-only.pcap");
	write_pcap(path, PCAP_MAGIC_USEC, LINKTYPE_ETHERNET, NULL, 0);
	struct rt_error err = { "" };
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	struct rt_frame f;
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 0);
	rt_capture_close(c);

	/* A directory is not a capture either. */
	expect_open_error(tmpdir, NULL);
}
END_TEST

/* Frame 2 of a two-frame file cut `cut` bytes short. */
static void expect_damaged_second_frame(const char *name, long cut_from_end_of_frame2)
{
	char path[256];
	tmp_path(path, sizeof path, name);
	uint8_t a[TEST_FRAME_MAX], b[TEST_FRAME_MAX];
	uint32_t la = (uint32_t)sample_frame(1, a, sizeof a), lb = (uint32_t)sample_frame(2, b, sizeof b);
	struct record r[2] = { { 1, 0, a, la, la }, { 2, 0, b, lb, lb } };
	write_pcap(path, PCAP_MAGIC_NSEC, LINKTYPE_ETHERNET, r, 2);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size - cut_from_end_of_frame2), 0);

	struct rt_error err = { "" };
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	struct rt_frame f;
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
	ck_assert_mem_eq(f.data, a, la);
	ck_assert_int_eq(rt_capture_next(c, &f, &err), -1);
	ck_assert_msg(strstr(err.msg, path) != NULL, "error \"%s\" does not name the file", err.msg);
	ck_assert_msg(strstr(err.msg, "frame 2") != NULL, "error \"%s\" does not name frame 2", err.msg);
	rt_capture_close(c);
}

START_TEST(last_record_cut_short)
{
	/* Inside the frame's data, and inside its 16-byte record header. */
	expect_damaged_second_frame("cut-data.pcap", 10);
	uint8_t b[TEST_FRAME_MAX];
	long lb = (long)sample_frame(2, b, sizeof b);
	expect_damaged_second_frame("cut-header.pcap", lb + 10);
}
END_TEST

START_TEST(pcapng_reads_like_pcap)
{
	const char *pcap = CAPTURES_DIR "/rxe/rping.pcap";
	char ng[256], cmd[768];
	tmp_path(ng, sizeof ng, "rping.pcapng");
	snprintf(cmd, sizeof cmd, "tshark -r '%s' -F pcapng -w '%s' >/dev/null 2>&1", pcap, ng);
	ck_assert_msg(system(cmd) == 0, "tshark could not convert %s to pcapng", pcap);
	/* Be sure it really is pcapng: a Section Header Block comes first. */
	FILE *fp = fopen(ng, "rb");
	ck_assert_ptr_nonnull(fp);
	uint8_t magic[4] = { 0 };
	ck_assert_uint_eq(fread(magic, 1, 4, fp), 4);
	fclose(fp);
	ck_assert_mem_eq(magic, "\x0a\x0d\x0d\x0a", 4);

	struct rt_error err = { "" };
	struct rt_capture *a = rt_capture_open(pcap, &err);
	ck_assert_msg(a != NULL, "%s", err.msg);
	struct rt_capture *b = rt_capture_open(ng, &err);
	ck_assert_msg(b != NULL, "%s", err.msg);
	ck_assert_int_eq(rt_capture_link(a), rt_capture_link(b));
	struct rt_frame fa, fb;
	uint64_t frames = 0, roce = 0;
	int ra;
	while ((ra = rt_capture_next(a, &fa, &err)) == 1) {
		ck_assert_int_eq(rt_capture_next(b, &fb, &err), 1);
		ck_assert_uint_eq(fa.number, fb.number);
		ck_assert_int_eq(fa.ts_ns, fb.ts_ns);
		ck_assert_uint_eq(fa.caplen, fb.caplen);
		ck_assert_uint_eq(fa.wirelen, fb.wirelen);
		ck_assert_mem_eq(fa.data, fb.data, fa.caplen);
		struct rt_packet p;
		if (rt_parse(&p, rt_capture_link(b), fb.data, fb.caplen, fb.wirelen) == RT_PARSE_ROCE) {
			roce++;
			/* The captures README: every RoCE packet in them has a valid ICRC. */
			ck_assert_int_eq(rt_icrc_check(&p), RT_ICRC_OK);
		}
		frames++;
	}
	ck_assert_int_eq(ra, 0);
	ck_assert_int_eq(rt_capture_next(b, &fb, &err), 0);
	ck_assert_uint_eq(frames, 65);	/* capinfos: rping.pcap holds 65 packets */
	ck_assert_uint_gt(roce, 0);
	rt_capture_close(a);
	rt_capture_close(b);
}
END_TEST

/*
 * pcapng stores 64-bit timestamps; one beyond 2262 does not fit in int64
 * nanoseconds. Found by the capture fuzzer as a signed overflow (UB); the
 * reader now saturates such a time. A hand-built SHB + IDB (Ethernet,
 * default microsecond resolution) + one EPB with the largest timestamp.
 */
static void put32le(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
}

START_TEST(pcapng_time_beyond_int64_nanoseconds)
{
	uint8_t file[28 + 20 + 32 + 64];
	uint8_t *shb = file, *idb = file + 28, *epb = file + 48;
	memset(file, 0, sizeof file);
	put32le(shb, 0x0A0D0D0A), put32le(shb + 4, 28), put32le(shb + 8, 0x1A2B3C4D);
	shb[12] = 1;				/* version 1.0 */
	memset(shb + 16, 0xFF, 8);		/* section length unknown */
	put32le(shb + 24, 28);
	put32le(idb, 1), put32le(idb + 4, 20);
	idb[8] = 1;				/* LINKTYPE_ETHERNET */
	put32le(idb + 12, 65535), put32le(idb + 16, 20);
	put32le(epb, 6), put32le(epb + 4, 32 + 64);
	put32le(epb + 12, 0xFFFFFFFF), put32le(epb + 16, 0xFFFFFFFF);	/* timestamp high, low */
	put32le(epb + 20, 64), put32le(epb + 24, 64);
	put32le(epb + 28 + 64, 32 + 64);
	char path[256];
	tmp_path(path, sizeof path, "far-future.pcapng");
	write_bytes(path, file, sizeof file);

	struct rt_error err = { "" };
	struct rt_capture *c = rt_capture_open(path, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	struct rt_frame f;
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 1);
	ck_assert_uint_eq(f.caplen, 64);
	ck_assert_int_eq(f.ts_ns, INT64_MAX);
	ck_assert_int_eq(rt_capture_next(c, &f, &err), 0);
	rt_capture_close(c);
}
END_TEST

/* Record i of the block test: its length, and its bytes (a pattern of i and the position). */
static uint32_t block_test_len(unsigned i)
{
	static const uint32_t small[] = { 60, 1514, 9000, 4000, 333, 1, 70000 };
	static const uint32_t large[] = { 131072, 131073, 200000, 262144 };
	if (i >= 600 && i < 604)
		return large[i - 600];
	if (i % 13 == 0)
		return 262144 - i;	/* records near the largest all along */
	return small[i % 7];
}

static uint8_t block_test_byte(unsigned i, uint32_t j)
{
	return (uint8_t)(i * 31u + j * 7u + (j >> 8));
}

/*
 * The in-place reader across its blocks: `records` records of every size up
 * to the largest libpcap takes, cut by block boundaries anywhere, some
 * larger than a block, read as libpcap reads them, byte for byte, and as
 * they were written.
 */
static void reader_matches_libpcap(unsigned records)
{
	enum { LARGEST = 262144 };
	char path[512];
	tmp_path(path, sizeof path, "blocks.pcap");
	struct rt_error err;
	struct rt_capture_writer *w = rt_capture_writer_open(path, LINKTYPE_ETHERNET, LARGEST, &err);
	ck_assert_msg(w != NULL, "%s", err.msg);
	uint8_t *buf = malloc(LARGEST);
	ck_assert_ptr_nonnull(buf);
	for (unsigned i = 0; i < records; i++) {
		uint32_t len = block_test_len(i);
		for (uint32_t j = 0; j < len; j++)
			buf[j] = block_test_byte(i, j);
		rt_capture_write(w, 1000000000LL * i + i, buf, len, len + i % 3);
	}
	ck_assert_int_eq(rt_capture_writer_close(w, &err), 0);
	free(buf);

	struct rt_capture_options libpcap = { .libpcap_only = true };
	struct rt_capture *direct = rt_capture_open(path, &err), *ref = rt_capture_open_with(path, &libpcap, &err);
	ck_assert_msg(direct && ref, "%s", err.msg);
	uint64_t last_offset = 0;
	for (unsigned i = 0;; i++) {
		struct rt_frame a, b;
		int ra = rt_capture_next(direct, &a, &err), rb = rt_capture_next(ref, &b, &err);
		ck_assert_int_eq(ra, rb);
		if (ra != 1) {
			ck_assert_int_eq(ra, 0);
			ck_assert_uint_eq(i, records);
			break;
		}
		ck_assert_uint_eq(a.number, i + 1);
		ck_assert_uint_eq(a.caplen, block_test_len(i));
		ck_assert_uint_eq(a.caplen, b.caplen);
		ck_assert_uint_eq(a.wirelen, b.wirelen);
		ck_assert_int_eq(a.ts_ns, b.ts_ns);
		ck_assert_msg(!memcmp(a.data, b.data, a.caplen), "record %u differs from libpcap's", i + 1);
		for (uint32_t j = 0; j < a.caplen; j += 997)
			ck_assert_uint_eq(a.data[j], block_test_byte(i, j));
		ck_assert_uint_ge(rt_capture_offset(direct), last_offset);
		last_offset = rt_capture_offset(direct);
	}
	ck_assert_uint_eq(last_offset, rt_capture_size(direct));
	rt_capture_close(direct);
	rt_capture_close(ref);
}

/* Some 31 MB, read ahead on a thread: its 4 MiB blocks cut it 7 times, 6 of them inside a record of 255-256 KiB. */
START_TEST(reader_ahead_matches_libpcap)
{
	reader_matches_libpcap(1000);
}
END_TEST

/* Some 3 MB, one block of the thread: read alone, 128 KiB at a time, growing for the records larger than that. */
START_TEST(reader_alone_matches_libpcap)
{
	reader_matches_libpcap(100);
}
END_TEST

Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("files");
	tcase_add_checked_fixture(tc, make_tmpdir, remove_tmpdir);
	tcase_set_timeout(tc, 60);	/* tshark's start-up is slow */
	tcase_add_test(tc, writer_reader_round_trip);
	tcase_add_test(tc, hand_written_microsecond_pcap);
	tcase_add_test(tc, link_types);
	tcase_add_test(tc, unsupported_link_type);
	tcase_add_test(tc, missing_empty_short_and_text_files);
	tcase_add_test(tc, last_record_cut_short);
	tcase_add_test(tc, pcapng_reads_like_pcap);
	tcase_add_test(tc, pcapng_time_beyond_int64_nanoseconds);
	tcase_add_test(tc, reader_ahead_matches_libpcap);
	tcase_add_test(tc, reader_alone_matches_libpcap);
	suite_add_tcase(s, tc);
	return s;
}
