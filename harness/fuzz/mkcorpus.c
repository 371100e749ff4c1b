/* SPDX-License-Identifier: MIT */
/*
 * Seed corpora for the fuzz targets.
 *
 *   mkcorpus PARSE_DIR CAPTURE_DIR [CAPTURE...]
 *
 * PARSE_DIR (fuzz_parse; one frame per file, byte 0 the enum rt_link):
 *   - every frame of every CAPTURE given;
 *   - frames made with rt_build(): VLAN and QinQ, IPv6, RoCE v1, CNP, one of
 *     every extension-header layout, undefined and undecoded opcodes, bad
 *     ICRC, UDP checksum, and each one re-framed for every link type
 *     (Linux cooked v1/v2, raw IP, raw IPv4/IPv6).
 * CAPTURE_DIR (fuzz_capture; whole capture files, at most 64 KiB each):
 *   - the CAPTUREs no larger than 64 KiB;
 *   - truncated and corrupted variants of them (cut in the file header, in
 *     a record header, in record data; caplen beyond snaplen or the file, an
 *     unsupported link type, byte-swapped and nanosecond headers);
 *   - pcap files of the built frames for each link type, and pcapng files
 *     (whole and cut) that libpcap's pcapng reader takes.
 *
 * Output names are stable, so rerunning replaces the same files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/packet.h"

#define MAX_CAPTURE_SEED (64 * 1024)
#define MAX_FRAME 9100
#define PCAP_HEADER 24
#define PCAP_RECORD 16

static const char *parse_dir, *capture_dir;
static unsigned parse_files, capture_files;

static void die(const char *what)
{
	fprintf(stderr, "mkcorpus: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *dir, const char *name, const void *a, size_t alen, const void *b,
		       size_t blen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		die(path);
	if ((alen && fwrite(a, 1, alen, f) != alen) || (blen && fwrite(b, 1, blen, f) != blen) || fclose(f) != 0)
		die(path);
}

static void parse_seed(const char *name, enum rt_link link, const uint8_t *frame, size_t len)
{
	uint8_t l = (uint8_t)link;
	if (len > MAX_FRAME - 1)
		len = MAX_FRAME - 1;
	write_file(parse_dir, name, &l, 1, frame, len);
	parse_files++;
}

static void capture_seed(const char *name, const uint8_t *data, size_t len)
{
	if (len == 0 || len > MAX_CAPTURE_SEED)
		return;
	write_file(capture_dir, name, data, len, NULL, 0);
	capture_files++;
}

/* "../shared/captures/rxe/rping.pcap" -> "rxe_rping" */
static void short_name(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dir = path;
	size_t dirlen = 0;
	if (base != path) {
		const char *end = base - 1, *start = end;
		while (start > path && start[-1] != '/')
			start--;
		dir = start;
		dirlen = (size_t)(end - start);
	}
	snprintf(out, size, "%.*s%s%s", (int)dirlen, dir, dirlen ? "_" : "", base);
	char *dot = strrchr(out, '.');
	if (dot)
		*dot = '\0';
	for (char *c = out; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == '-'))
			*c = '_';
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path);
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf)
			die("malloc");
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	if (ferror(f))
		die(path);
	fclose(f);
	*len = n;
	return buf;
}

/* ---- pcap bytes by hand, for the corrupted variants ---- */

static void put_le32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
}
static void put_le16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8);
}
static uint32_t get_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static void swap32(uint8_t *b)
{
	uint8_t t = b[0];
	b[0] = b[3], b[3] = t, t = b[1], b[1] = b[2], b[2] = t;
}
static void swap16(uint8_t *b)
{
	uint8_t t = b[0];
	b[0] = b[1], b[1] = t;
}

/* Variants of a little-endian classic pcap file (the shared captures all are). */
static void capture_variants(const char *name, const uint8_t *d, size_t len)
{
	char vname[512];
	if (len < PCAP_HEADER + PCAP_RECORD || get_le32(d) != 0xA1B2C3D4)
		return;
	/* Cut points: in the file header, in the first record header, in its data, in the second record. */
	uint32_t rec1 = get_le32(d + PCAP_HEADER + 8);
	size_t first_end = PCAP_HEADER + PCAP_RECORD + rec1;
	size_t cuts[] = { 3, 4, 10, 23, PCAP_HEADER, PCAP_HEADER + 7, PCAP_HEADER + PCAP_RECORD,
			  PCAP_HEADER + PCAP_RECORD + rec1 / 2, first_end - 1, first_end, first_end + 9,
			  first_end + PCAP_RECORD + 20, len - 1 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		if (cuts[i] == 0 || cuts[i] >= len)
			continue;
		snprintf(vname, sizeof vname, "%s-cut%zu", name, cuts[i]);
		capture_seed(vname, d, cuts[i]);
	}
	size_t n = len < 4096 ? len : 4096;	/* the variants need only the first records */
	uint8_t *v = malloc(n);
	if (!v)
		die("malloc");
	struct {
		const char *tag;
		size_t off;	/* where the 32-bit value goes */
		uint32_t value;
	} pokes[] = {
		{ "caplen-huge", PCAP_HEADER + 8, 0xFFFFFFFF },
		{ "caplen-over-snaplen", PCAP_HEADER + 8, 0x40001 },
		{ "caplen-zero", PCAP_HEADER + 8, 0 },
		{ "caplen-gt-len", PCAP_HEADER + 12, 1 },
		{ "len-huge", PCAP_HEADER + 12, 0xFFFFFFF0 },
		{ "snaplen-zero", 16, 0 },
		{ "snaplen-60", 16, 60 },
		{ "snaplen-huge", 16, 0xFFFFFFFF },
		{ "dlt-unsupported", 20, 105 },	/* IEEE 802.11 */
		{ "dlt-sll", 20, 113 },
		{ "dlt-sll2", 20, 276 },
		{ "dlt-raw", 20, 101 },
		{ "dlt-ipv4", 20, 228 },
		{ "dlt-ipv6", 20, 229 },
		{ "dlt-fcs-bits", 20, 1 | 0x10000000 | (4u << 28) },
		{ "magic-nsec", 0, 0xA1B23C4D },
		{ "magic-modified", 0, 0xA1B2CD34 },
		{ "version-9", 4, 9 },
		{ "usec-over", PCAP_HEADER + 4, 2000000 },
	};
	for (size_t i = 0; i < sizeof pokes / sizeof pokes[0]; i++) {
		memcpy(v, d, n);
		put_le32(v + pokes[i].off, pokes[i].value);
		snprintf(vname, sizeof vname, "%s-%s", name, pokes[i].tag);
		capture_seed(vname, v, n);
	}
	/* The same file big-endian: every header field byte-swapped. */
	memcpy(v, d, n);
	swap32(v), swap16(v + 4), swap16(v + 6), swap32(v + 8), swap32(v + 12), swap32(v + 16), swap32(v + 20);
	size_t off = PCAP_HEADER;
	while (off + PCAP_RECORD <= n) {
		uint32_t caplen = get_le32(v + off + 8);
		for (int k = 0; k < 4; k++)
			swap32(v + off + 4 * k);
		off += PCAP_RECORD + caplen;
	}
	snprintf(vname, sizeof vname, "%s-bigendian", name);
	capture_seed(vname, v, off <= n ? off : n);
	free(v);
}

/* ---- frames from rt_build() ---- */

struct built {
	const char *name;
	uint8_t frame[2048];
	size_t len;
	size_t l3_off;	/* where IP / the GRH starts */
	uint16_t ethertype;
};

#define MAX_BUILT 32
static struct built built[MAX_BUILT];
static size_t nbuilt;

static struct rt_build_spec spec(uint8_t opcode, uint32_t payload_len)
{
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	s.bth.opcode = opcode;
	s.bth.dest_qp = 0x000123;
	s.bth.psn = 0xFFFFFE;
	s.bth.ack_req = true;
	s.payload_len = payload_len;
	s.udp_sport = 0xC123;
	s.ext.reth.va = 0x7F0000001000;
	s.ext.reth.rkey = 0x1234;
	s.ext.reth.dma_len = payload_len;
	s.ext.aeth.syndrome = 0x1F;
	s.ext.aeth.msn = 7;
	s.ext.atomic.va = 0x1000;
	s.ext.atomic.rkey = 0x55;
	s.ext.atomic.swap_add = 1;
	s.ext.atomic.compare = 2;
	s.ext.atomic_ack_orig = 0x1122334455667788;
	s.ext.imm = 0xDEADBEEF;
	s.ext.ieth_rkey = 0x4321;
	s.ext.deth.qkey = 0x80010000;
	s.ext.deth.src_qp = 0x1;
	return s;
}

/* IPv6 (and the GRH) get fd00::1 -> fd00::2 instead of the IPv4 defaults. */
static void v6_addresses(struct rt_build_spec *s)
{
	memset(s->src_ip, 0, 16);
	memset(s->dst_ip, 0, 16);
	s->src_ip[0] = s->dst_ip[0] = 0xFD;
	s->src_ip[15] = 1;
	s->dst_ip[15] = 2;
}

static void add_built(const char *name, const struct rt_build_spec *s)
{
	if (nbuilt == MAX_BUILT) {
		fprintf(stderr, "mkcorpus: more than %d built frames\n", MAX_BUILT);
		exit(1);
	}
	struct built *b = &built[nbuilt];
	b->name = name;
	b->len = rt_build(s, b->frame, sizeof b->frame);
	if (!b->len) {
		fprintf(stderr, "mkcorpus: rt_build failed for %s\n", name);
		exit(1);
	}
	b->l3_off = 14 + 4u * s->vlan_count;
	b->ethertype = rt_get_be16(b->frame + b->l3_off - 2);
	nbuilt++;
}

static void build_frames(void)
{
	struct rt_build_spec s;

	s = spec(0x04, 5);		/* RC SEND Only, pad 3 */
	add_built("rc_send_only", &s);
	s = spec(0x06, 256);		/* RC WRITE First: RETH; one VLAN tag */
	s.vlan_count = 1, s.vlan_tci[0] = 0x6064;
	add_built("vlan_rc_write_first", &s);
	s = spec(0x0C, 0);		/* RC READ Request behind QinQ */
	s.vlan_count = 2, s.vlan_tci[0] = 100, s.vlan_tci[1] = 200;
	add_built("qinq_rc_read_request", &s);
	s = spec(0x0B, 64);		/* WRITE Only with Immediate: RETH + ImmDt, over IPv6 */
	s.ip_version = 6, s.flow_label = 0xABCDE, s.tos = 0x62;
	v6_addresses(&s);
	s.src_ip[0] = s.dst_ip[0] = 0xFE, s.src_ip[1] = s.dst_ip[1] = 0x80;	/* link-local */
	add_built("ipv6_rc_write_only_imm", &s);
	s = spec(0x05, 3);		/* SEND Only with Immediate over IPv6 with UDP checksum */
	s.ip_version = 6, s.udp_checksum = true;
	v6_addresses(&s);
	add_built("ipv6_rc_send_only_imm_udpsum", &s);
	s = spec(0x11, 0);		/* RoCE v1 ACK */
	s.roce_version = 1;
	v6_addresses(&s);
	add_built("rocev1_rc_ack", &s);
	s = spec(0x04, 10);		/* RoCE v1 SEND Only with VLAN */
	s.roce_version = 1, s.vlan_count = 1, s.vlan_tci[0] = 3;
	v6_addresses(&s);
	add_built("rocev1_vlan_rc_send_only", &s);
	s = spec(RT_OPCODE_CNP, RT_CNP_RESERVED_BYTES);	/* CNP: 16 reserved bytes */
	s.bth.ack_req = false, s.bth.psn = 0, s.bth.becn = true, s.tos = 0x03;
	add_built("cnp", &s);
	s = spec(RT_OPCODE_CNP, RT_CNP_RESERVED_BYTES);
	s.ip_version = 6, s.bth.becn = true;
	v6_addresses(&s);
	add_built("ipv6_cnp", &s);
	s = spec(0x11, 0);		/* NAK PSN sequence error */
	s.ext.aeth.syndrome = 0x60;
	add_built("rc_nak_seq", &s);
	s = spec(0x11, 0);		/* RNR NAK with reserved bit 7 */
	s.ext.aeth.syndrome = 0x80 | 0x20 | 14;
	add_built("rc_rnr_nak_resv", &s);
	s = spec(0x11, 0);		/* reserved syndrome type */
	s.ext.aeth.syndrome = 0x4A;
	add_built("rc_aeth_reserved", &s);
	s = spec(0x13, 0);		/* Compare&Swap: AtomicETH */
	add_built("rc_compare_swap", &s);
	s = spec(0x12, 0);		/* Atomic ACK: AETH + AtomicAckETH */
	add_built("rc_atomic_ack", &s);
	s = spec(0x65, 7);		/* UD SEND Only with Immediate: DETH + ImmDt */
	add_built("ud_send_only_imm", &s);
	s = spec(0x17, 8);		/* SEND Only with Invalidate: IETH */
	add_built("rc_send_only_inv", &s);
	s = spec(0x10, 1024);		/* READ Response Only: AETH + payload */
	s.udp_checksum = true;
	add_built("rc_read_resp_only_udpsum", &s);
	s = spec(0x2A, 33);		/* UC WRITE Only */
	s.bth.se = true, s.bth.migreq = true;
	add_built("uc_write_only", &s);
	s = spec(0x04, 0);		/* bad ICRC */
	s.corrupt_icrc = true;
	add_built("rc_send_only_bad_icrc", &s);
	s = spec(0x04, 4);		/* pad count larger than the payload */
	s.pad_explicit = true, s.bth.pad = 3, s.pad_byte = 0xAA;
	add_built("rc_send_pad_explicit", &s);
	s = spec(0x1F, 12);		/* undefined opcode */
	add_built("rc_undefined_opcode", &s);
	s = spec(0x1C, 20);		/* FLUSH: named, not decoded */
	add_built("rc_flush_undecoded", &s);
	s = spec(0xC0, 8);		/* vendor-specific */
	add_built("vendor_opcode", &s);
	s = spec(0x04, 0);		/* UDP to another port: not RoCE */
	s.udp_dport = 4789;
	add_built("udp_vxlan_port", &s);
}

/* Re-frames a built Ethernet frame for another link type; returns the length. */
static size_t reframe(const struct built *b, enum rt_link link, uint8_t *out, size_t cap)
{
	size_t ip_len = b->len - b->l3_off;
	size_t hdr = 0;
	switch (link) {
	case RT_LINK_ETHERNET:
		memcpy(out, b->frame, b->len);
		return b->len;
	case RT_LINK_LINUX_SLL:	/* packet type, ARPHRD, address length, address (8), protocol */
		hdr = 16;
		memset(out, 0, hdr);
		out[1] = 4;	/* sent by us */
		out[3] = 1;	/* ARPHRD_ETHER */
		out[5] = 6;
		memcpy(out + 6, b->frame + 6, 6);
		rt_put_be16(out + 14, b->ethertype);
		break;
	case RT_LINK_LINUX_SLL2:	/* protocol, reserved, ifindex, ARPHRD, packet type, address length, address */
		hdr = 20;
		memset(out, 0, hdr);
		rt_put_be16(out, b->ethertype);
		out[7] = 2;
		out[9] = 1;
		out[11] = 6;
		memcpy(out + 12, b->frame + 6, 6);
		break;
	case RT_LINK_RAW_IP:
	case RT_LINK_IPV4:
	case RT_LINK_IPV6:
		if (b->ethertype == RT_ETHERTYPE_ROCEV1)
			return 0;	/* a GRH is not an IP packet */
		if ((link == RT_LINK_IPV4 && b->ethertype != 0x0800) ||
		    (link == RT_LINK_IPV6 && b->ethertype != 0x86DD))
			return 0;
		hdr = 0;
		break;
	}
	if (hdr + ip_len > cap)
		return 0;
	memcpy(out + hdr, b->frame + b->l3_off, ip_len);
	return hdr + ip_len;
}

static const char *const link_tag[] = { "eth", "sll", "sll2", "rawip", "ipv4", "ipv6" };

static void built_seeds(void)
{
	uint8_t buf[2100];
	char name[256];
	for (size_t i = 0; i < nbuilt; i++) {
		for (int link = RT_LINK_ETHERNET; link <= RT_LINK_IPV6; link++) {
			size_t n = reframe(&built[i], (enum rt_link)link, buf, sizeof buf);
			if (!n)
				continue;
			snprintf(name, sizeof name, "built_%s_%s", built[i].name, link_tag[link]);
			parse_seed(name, (enum rt_link)link, buf, n);
		}
	}
	/* The first frame cut inside each header, as a snap length would. */
	const struct built *b = &built[1];
	size_t cuts[] = { 10, 16, 20, 30, 40, 50, 54, 60, 70 };
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		snprintf(name, sizeof name, "built_%s_cut%zu", b->name, cuts[i]);
		parse_seed(name, RT_LINK_ETHERNET, b->frame, cuts[i]);
	}
}

/* A pcap file per link type holding every built frame that fits it, via the library's writer. */
static void built_captures(void)
{
	uint8_t buf[2100];
	char path[4096];
	char name[64];
	for (int link = RT_LINK_ETHERNET; link <= RT_LINK_IPV6; link++) {
		snprintf(name, sizeof name, "built_%s.pcap", link_tag[link]);
		snprintf(path, sizeof path, "%s/%s", capture_dir, name);
		struct rt_error err;
		uint32_t snaplen = link == RT_LINK_ETHERNET ? 96 : 262144;	/* Ethernet: cut frames too */
		struct rt_capture_writer *w = rt_capture_writer_open(path, rt_link_dlt((enum rt_link)link), snaplen,
								     &err);
		if (!w) {
			fprintf(stderr, "mkcorpus: %s\n", err.msg);
			exit(1);
		}
		int64_t ts = 1700000000123456789;
		for (size_t i = 0; i < nbuilt; i++) {
			size_t n = reframe(&built[i], (enum rt_link)link, buf, sizeof buf);
			if (!n)
				continue;
			uint32_t caplen = (uint32_t)(n < snaplen ? n : snaplen);
			rt_capture_write(w, ts, buf, caplen, (uint32_t)n);
			ts += 1000;
		}
		if (rt_capture_writer_close(w, &err) != 0) {
			fprintf(stderr, "mkcorpus: %s\n", err.msg);
			exit(1);
		}
		capture_files++;
	}
}

/* ---- pcapng by hand: section header, interface description, enhanced packets ---- */

static size_t pcapng_block(uint8_t *out, uint32_t type, const uint8_t *body, size_t body_len)
{
	size_t total = 12 + ((body_len + 3) & ~(size_t)3);
	put_le32(out, type);
	put_le32(out + 4, (uint32_t)total);
	memset(out + 8, 0, total - 12);
	memcpy(out + 8, body, body_len);
	put_le32(out + total - 4, (uint32_t)total);
	return total;
}

static void pcapng_seeds(void)
{
	static uint8_t file[MAX_CAPTURE_SEED];
	uint8_t body[2200];
	size_t n = 0;
	/* SHB: byte-order magic, version 1.0, section length unknown. */
	put_le32(body, 0x1A2B3C4D);
	put_le16(body + 4, 1), put_le16(body + 6, 0);
	memset(body + 8, 0xFF, 8);
	n += pcapng_block(file + n, 0x0A0D0D0A, body, 16);
	/* IDB: Ethernet, snaplen 0 (none); option if_tsresol = 9 (nanoseconds). */
	memset(body, 0, sizeof body);
	put_le16(body, 1);
	put_le32(body + 4, 0);
	put_le16(body + 8, 9), put_le16(body + 10, 1), body[12] = 9;	/* if_tsresol */
	put_le16(body + 16, 0), put_le16(body + 18, 0);			/* opt_endofopt */
	n += pcapng_block(file + n, 1, body, 20);
	size_t after_idb = n;
	uint64_t ts = 1700000000000000000ull;
	for (size_t i = 0; i < nbuilt && n < sizeof file - 2300; i++) {
		const struct built *b = &built[i];
		memset(body, 0, sizeof body);
		put_le32(body, 0);				/* interface 0 */
		put_le32(body + 4, (uint32_t)(ts >> 32));
		put_le32(body + 8, (uint32_t)ts);
		put_le32(body + 12, (uint32_t)b->len);		/* captured */
		put_le32(body + 16, (uint32_t)b->len + (i & 1));	/* on the wire */
		memcpy(body + 20, b->frame, b->len);
		n += pcapng_block(file + n, 6, body, 20 + ((b->len + 3) & ~(size_t)3));
		ts += 1000;
	}
	capture_seed("built_eth.pcapng", file, n);
	size_t cuts[] = { 4, 12, 28, after_idb - 3, after_idb, after_idb + 10, after_idb + 40, n - 2 };
	char name[64];
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		snprintf(name, sizeof name, "built_eth-cut%zu.pcapng", cuts[i]);
		capture_seed(name, file, cuts[i]);
	}
	/* Block length that disagrees with its trailer, and a huge one. */
	uint8_t *v = malloc(n);
	if (!v)
		die("malloc");
	memcpy(v, file, n);
	put_le32(v + after_idb + 4, get_le32(v + after_idb + 4) + 4);
	capture_seed("built_eth-badlen.pcapng", v, n);
	memcpy(v, file, n);
	put_le32(v + after_idb + 4, 0x7FFFFFF0);
	capture_seed("built_eth-hugelen.pcapng", v, n);
	memcpy(v, file, n);
	put_le32(v + after_idb + 8, 3);	/* packet on an interface that does not exist */
	capture_seed("built_eth-badif.pcapng", v, n);
	free(v);
}

/* ---- the real captures ---- */

static void capture_frames(const char *path)
{
	char base[256], name[300];
	short_name(path, base, sizeof base);
	struct rt_error err;
	struct rt_capture *c = rt_capture_open(path, &err);
	if (!c) {
		fprintf(stderr, "mkcorpus: %s\n", err.msg);
		exit(1);
	}
	enum rt_link link = rt_capture_link(c);
	struct rt_frame fr;
	int rc;
	while ((rc = rt_capture_next(c, &fr, &err)) == 1) {
		snprintf(name, sizeof name, "%s-%06llu", base, (unsigned long long)fr.number);
		parse_seed(name, link, fr.data, fr.caplen);
	}
	if (rc < 0) {
		fprintf(stderr, "mkcorpus: %s\n", err.msg);
		exit(1);
	}
	rt_capture_close(c);

	size_t len;
	uint8_t *d = read_all(path, &len);
	snprintf(name, sizeof name, "%s.pcap", base);
	capture_seed(name, d, len);	/* only when no larger than 64 KiB */
	capture_variants(base, d, len);	/* these use the first 4 KiB of any file */
	free(d);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mkcorpus PARSE_DIR CAPTURE_DIR [CAPTURE...]\n");
		return 2;
	}
	parse_dir = argv[1];
	capture_dir = argv[2];
	build_frames();
	built_seeds();
	built_captures();
	pcapng_seeds();
	for (int i = 3; i < argc; i++)
		capture_frames(argv[i]);
	printf("mkcorpus: %u frame seeds in %s, %u capture seeds in %s\n", parse_files, parse_dir, capture_files,
	       capture_dir);
	return 0;
}
