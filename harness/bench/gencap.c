/* SPDX-License-Identifier: MIT */
/*
 * rocetest-gencap: writes a synthetic, deterministic capture of RoCEv2 RC
 * traffic with valid ICRCs, as large as asked. It feeds `make bench` (a
 * 1 GB capture) and `make demo` (a small one).
 *
 * Every frame is laid out by rt_build() into one static buffer and handed to
 * the capture writer: no allocation per packet, and the same options (seed
 * included) always give the same bytes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"
#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/error.h"
#include "rocetest/packet.h"

#define PROG "rocetest-gencap"

enum {
	EXIT_USAGE = 2,
	MAX_PAYLOAD = 4096,
	MAX_QPS = 4096,
	MAX_SEGMENTS = 65536,
	FRAME_CAP = 8192,
	PCAP_FILE_HEADER = 24,
	PCAP_RECORD_HEADER = 16,
	/* Payload bytes come from a pool of seeded random bytes at a random offset. */
	POOL_SPAN = 65536,
	/* Timestamps advance by the frame's time on a 100 Gb/s wire: 80 ps a byte,
	 * counting the FCS, preamble and inter-frame gap (24 bytes) as well. */
	PS_PER_BYTE = 80,
	WIRE_OVERHEAD = 24,
	AETH_ACK_UNLIMITED = 0x1F,	/* ACK, credit code 31: flow control not used */
};

/* 2023-11-14 22:13:20 UTC: a fixed start, so the file does not depend on the clock. */
static const int64_t START_NS = INT64_C(1700000000) * 1000000000;

static const char help[] =
	"usage: " PROG " -o FILE [--bytes N] [--payload N] [--pmtu N] [--segments N]\n"
	"                       [--qps N] [--ipv6] [--seed N]\n"
	"\n"
	"Writes a synthetic capture (classic pcap, Ethernet, nanosecond timestamps) of\n"
	"RoCEv2 Reliable Connected traffic in which every ICRC is valid. The same\n"
	"options always give the same bytes.\n"
	"\n"
	"The traffic: a requester (10.0.0.1, or fd00::1 with --ipv6) sends messages\n"
	"over one or more RC queue pairs to a responder (10.0.0.2 / fd00::2), which\n"
	"acknowledges each message with an ACK (AETH, MSN counting the messages). Of\n"
	"the messages, about three in four are RDMA WRITEs (First with RETH, Middle...,\n"
	"Last) and the rest SENDs (First, Middle..., Last); a message of one packet is\n"
	"a WRITE Only or SEND Only. PSNs count up per queue pair from a seeded start\n"
	"(wrapping at 2^24), the last packet of a message asks for an ACK, and the\n"
	"queue pairs take turns message by message. UDP checksums are 0.\n"
	"\n"
	"  -o, --output FILE  where to write the capture (\"-\": standard output)\n"
	"  --bytes N          size of the file: messages are added until it holds at\n"
	"                     least N bytes, so it ends a little above N (one message\n"
	"                     and its ACK at most). K, M and G multiply by 1024,\n"
	"                     1024^2 and 1024^3: 1G is 1073741824. Default 1M\n"
	"  --payload N        payload bytes of every data packet, 0-4096 (default 1024)\n"
	"  --pmtu N           path MTU: 256, 512, 1024, 2048 or 4096. Default: the\n"
	"                     smallest that holds --payload (1024 for the default)\n"
	"  --segments N       packets per message, 1-65536 (default 4: First, two\n"
	"                     Middle, Last). First and Middle packets carry exactly one\n"
	"                     PMTU, so with --payload below --pmtu every message is a\n"
	"                     single Only packet and --segments above 1 is refused\n"
	"  --qps N            queue pairs, 1-4096 (default 1)\n"
	"  --ipv6             RoCEv2 over IPv6 instead of IPv4\n"
	"  --seed N           seeds the initial PSNs, the WRITE/SEND choice, RETH\n"
	"                     addresses and payload bytes (default 1)\n"
	"  -h, --help         this text\n"
	"\n"
	"On standard error it ends with one line: the bytes, frames, messages, data\n"
	"packets and ACKs written.\n"
	"\n"
	"Exit status: 0 written; 2 bad option or the file could not be written.\n"
	"\n"
	"Example: " PROG " --bytes 1G -o build/bench/rc-1G.pcap\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help'.\n", stderr);
	return EXIT_USAGE;
}

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

struct qp {
	uint32_t req_qpn;	/* the requester's QP: ACKs go to it */
	uint32_t resp_qpn;	/* the responder's QP: requests go to it */
	uint32_t psn;		/* next request PSN */
	uint32_t msn;		/* messages completed (the responder's MSN) */
	uint64_t va;		/* next RDMA WRITE address */
	uint32_t rkey;
};

struct gen {
	struct rt_capture_writer *w;
	struct rt_build_spec req;	/* requester -> responder */
	struct rt_build_spec resp;	/* responder -> requester */
	uint8_t frame[FRAME_CAP];
	int64_t ts_ps;			/* picoseconds since START_NS */
	uint64_t bytes, frames, data_packets, acks, messages;
};

static uint8_t pool[POOL_SPAN + MAX_PAYLOAD];

static int emit(struct gen *g, const struct rt_build_spec *s)
{
	size_t len = rt_build(s, g->frame, sizeof g->frame);
	if (!len) {
		fprintf(stderr, PROG ": internal error: rt_build refused opcode 0x%02x\n", s->bth.opcode);
		return -1;
	}
	rt_capture_write(g->w, START_NS + g->ts_ps / 1000, g->frame, (uint32_t)len, (uint32_t)len);
	g->ts_ps += (int64_t)(len + WIRE_OVERHEAD) * PS_PER_BYTE;
	g->bytes += PCAP_RECORD_HEADER + len;
	g->frames++;
	return 0;
}

/* One message of `segments` packets on queue pair q, then the responder's ACK. */
static int message(struct gen *g, struct qp *q, bool write, uint32_t segments, uint32_t payload,
		   uint64_t *rng)
{
	struct rt_build_spec *s = &g->req;
	s->bth.dest_qp = q->resp_qpn;
	s->udp_sport = (uint16_t)(0xC000 | (q->req_qpn & 0x3FFF));
	uint32_t last_psn = 0;
	for (uint32_t i = 0; i < segments; i++) {
		bool first = i == 0, last = i == segments - 1;
		if (segments == 1)
			s->bth.opcode = write ? RT_OP_WRITE_ONLY : RT_OP_SEND_ONLY;
		else if (first)
			s->bth.opcode = write ? RT_OP_WRITE_FIRST : RT_OP_SEND_FIRST;
		else if (last)
			s->bth.opcode = write ? RT_OP_WRITE_LAST : RT_OP_SEND_LAST;
		else
			s->bth.opcode = write ? RT_OP_WRITE_MIDDLE : RT_OP_SEND_MIDDLE;
		if (write && first) {
			s->ext.reth.va = q->va;
			s->ext.reth.rkey = q->rkey;
			s->ext.reth.dma_len = segments * payload;
			q->va += (uint64_t)segments * payload;
		}
		s->bth.ack_req = last;
		s->bth.psn = q->psn;
		last_psn = q->psn;
		q->psn = rt_psn_add(q->psn, 1);
		s->payload = pool + next_random(rng) % POOL_SPAN;
		s->payload_len = payload;
		s->ip_id++;
		if (emit(g, s) != 0)
			return -1;
		g->data_packets++;
	}
	q->msn = (q->msn + 1) & 0xFFFFFF;

	struct rt_build_spec *a = &g->resp;
	a->bth.opcode = RT_OP_ACK;
	a->bth.dest_qp = q->req_qpn;
	a->bth.psn = last_psn;
	a->udp_sport = (uint16_t)(0xC000 | (q->resp_qpn & 0x3FFF));
	a->ext.aeth.syndrome = AETH_ACK_UNLIMITED;
	a->ext.aeth.msn = q->msn;
	a->ip_id++;
	if (emit(g, a) != 0)
		return -1;
	g->acks++;
	g->messages++;
	return 0;
}

static void init_endpoints(struct gen *g, bool ipv6)
{
	rt_build_spec_init(&g->req);
	if (ipv6) {
		static const uint8_t a[16] = { 0xfd, [15] = 1 }, b[16] = { 0xfd, [15] = 2 };
		g->req.ip_version = 6;
		memcpy(g->req.src_ip, a, 16);
		memcpy(g->req.dst_ip, b, 16);
	}
	/* The responder's spec is the requester's with addresses swapped. */
	g->resp = g->req;
	memcpy(g->resp.src_mac, g->req.dst_mac, 6);
	memcpy(g->resp.dst_mac, g->req.src_mac, 6);
	memcpy(g->resp.src_ip, g->req.dst_ip, 16);
	memcpy(g->resp.dst_ip, g->req.src_ip, 16);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "payload", required_argument, NULL, 'p' },
		{ "pmtu", required_argument, NULL, 'm' },
		{ "segments", required_argument, NULL, 's' },
		{ "qps", required_argument, NULL, 'q' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	uint64_t target = UINT64_C(1) << 20, payload = 1024, pmtu = 0, segments = 4, qps = 1, seed = 1;
	bool segments_given = false, ipv6 = false;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': path = optarg; break;
		case 'b':
			if (!cli_parse_size(optarg, UINT64_C(1) << 50, &target) || target == 0)
				return usage_error("--bytes needs a size above 0 such as 1073741824, 100M or 1G, not '%s'",
						   optarg);
			break;
		case 'p':
			if (!cli_parse_uint(optarg, MAX_PAYLOAD, &payload))
				return usage_error("--payload needs a whole number from 0 to %d, not '%s'", MAX_PAYLOAD,
						   optarg);
			break;
		case 'm':
			if (!cli_parse_uint(optarg, MAX_PAYLOAD, &pmtu) ||
			    (pmtu != 256 && pmtu != 512 && pmtu != 1024 && pmtu != 2048 && pmtu != 4096))
				return usage_error("--pmtu must be 256, 512, 1024, 2048 or 4096, not '%s'", optarg);
			break;
		case 's':
			if (!cli_parse_uint(optarg, MAX_SEGMENTS, &segments) || segments == 0)
				return usage_error("--segments needs a whole number from 1 to %d, not '%s'", MAX_SEGMENTS,
						   optarg);
			segments_given = true;
			break;
		case 'q':
			if (!cli_parse_uint(optarg, MAX_QPS, &qps) || qps == 0)
				return usage_error("--qps needs a whole number from 1 to %d, not '%s'", MAX_QPS, optarg);
			break;
		case '6': ipv6 = true; break;
		case 'S':
			if (!cli_parse_uint(optarg, UINT64_MAX, &seed))
				return usage_error("--seed needs a whole number, not '%s'", optarg);
			break;
		case 'h': fputs(help, stdout); return 0;
		case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (the output goes after -o)", argv[optind]);
	if (!path)
		return usage_error("no output file: give -o FILE");
	if (pmtu == 0) {
		pmtu = 256;
		while (pmtu < payload)
			pmtu *= 2;
	} else if (payload > pmtu) {
		return usage_error("--payload %" PRIu64 " does not fit in --pmtu %" PRIu64, payload, pmtu);
	}
	if (payload < pmtu) {
		if (segments_given && segments > 1)
			return usage_error("--segments %" PRIu64 " needs --payload equal to --pmtu (%" PRIu64
					   "): First and Middle packets carry exactly one PMTU", segments, pmtu);
		segments = 1;
	}

	/* Everything random comes from the seed: pool, initial PSNs, keys, message kinds. */
	uint64_t rng = seed;
	for (size_t i = 0; i < sizeof pool; i += 8) {
		uint64_t r = next_random(&rng);
		memcpy(pool + i, &r, sizeof pool - i < 8 ? sizeof pool - i : 8);
	}
	static struct qp qp_table[MAX_QPS];
	for (uint64_t i = 0; i < qps; i++) {
		struct qp *q = &qp_table[i];
		q->req_qpn = (uint32_t)(0x001000 + i);
		q->resp_qpn = (uint32_t)(0x002000 + i);
		q->psn = (uint32_t)next_random(&rng) & 0xFFFFFF;
		q->msn = 0;
		q->va = (next_random(&rng) & UINT64_C(0x00007FFF00000000)) | UINT64_C(0x10000000);
		q->rkey = (uint32_t)next_random(&rng);
	}

	static struct gen g;
	init_endpoints(&g, ipv6);
	struct rt_error err;
	g.w = rt_capture_writer_open(path, rt_link_dlt(RT_LINK_ETHERNET), 65535, &err);
	if (!g.w) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return EXIT_USAGE;
	}
	g.bytes = PCAP_FILE_HEADER;
	int rc = 0;
	for (uint64_t m = 0; g.bytes < target; m++) {
		bool write = (next_random(&rng) & 3) != 0;
		if (message(&g, &qp_table[m % qps], write, (uint32_t)segments, (uint32_t)payload, &rng) != 0) {
			rc = EXIT_USAGE;
			break;
		}
	}
	if (rt_capture_writer_close(g.w, &err) != 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (rc)
		return rc;
	fprintf(stderr,
		PROG ": wrote %s: %" PRIu64 " bytes, %" PRIu64 " frames (%" PRIu64 " messages: %" PRIu64
		" data packets of %" PRIu64 " payload bytes, PMTU %" PRIu64 ", and %" PRIu64 " ACKs)\n",
		path, g.bytes, g.frames, g.messages, g.data_packets, payload, pmtu, g.acks);
	return 0;
}
