/* SPDX-License-Identifier: MIT */
/* rocetest show: one line (or one JSON object) per frame of a capture. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rocetest/capture.h"
#include "rocetest/describe.h"
#include "rocetest/icrc.h"
#include "rocetest/json.h"
#include "rocetest/packet.h"

static const char show_help[] =
	"usage: rocetest show [--json] [--roce-only] [--libpcap] FILE\n"
	"\n"
	"Prints every frame of a pcap or pcapng capture (\"-\" reads standard input):\n"
	"frame number, time since the first frame, addresses and UDP ports, opcode,\n"
	"DestQP, PSN, AckReq (A), PadCnt, payload length, ICRC (ok, BAD or unverified)\n"
	"and the extension-header fields. Frames that are not RoCE are shown as skipped,\n"
	"with the reason.\n"
	"\n"
	"  --json        one JSON object per frame (NDJSON). Keys: frame (1-based, as in\n"
	"                Wireshark), time, roce, and for RoCE packets version, opcode,\n"
	"                opcode_name, dest_qp, psn, ack_req, se, migreq, pad, pkey, tver,\n"
	"                fecn, becn, payload_len, icrc (\"ok\"/\"bad\"/\"unverified\") and,\n"
	"                where present, reth_va, reth_rkey, reth_len, aeth_syndrome,\n"
	"                aeth_msn, imm, ieth_rkey, deth_qkey, deth_src_qp, atomic_*.\n"
	"  --roce-only   leave out frames that are not RoCE\n"
	"  --libpcap     read the capture with libpcap only (classic pcap files are\n"
	"                otherwise read in place, faster); for cross-checking readers\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0 all frames read; 2 the file is unusable or a RoCE frame is\n"
	"malformed (the message names the file, frame and field).\n";

struct show_opts {
	bool json;
	bool roce_only;
};

static void print_text(const struct rt_frame *fr, const struct rt_packet *p, enum rt_icrc_status icrc,
		       double rel)
{
	char src[64], dst[64], op[64], ext[320];
	printf("%6" PRIu64 " %12.9f ", fr->number, rel);
	if (p->status == RT_PARSE_NOT_ROCE) {
		printf("skipped: %s (%s)\n", p->reason, p->detail);
		return;
	}
	if (p->status == RT_PARSE_MALFORMED) {
		printf("MALFORMED %s: %s\n", p->field, p->detail);
		return;
	}
	if (p->status == RT_PARSE_TRUNCATED) {
		printf("truncated: %s\n", p->detail);
		return;
	}
	rt_packet_format_ip(p, true, src, sizeof src);
	rt_packet_format_ip(p, false, dst, sizeof dst);
	if (p->roce_version == 2 && p->ip_version == 6)
		printf("[%s]:%u -> [%s]:%u ", src, p->udp_sport, dst, p->udp_dport);
	else if (p->roce_version == 2)
		printf("%s:%u -> %s:%u ", src, p->udp_sport, dst, p->udp_dport);
	else
		printf("RoCEv1 %s -> %s ", src, dst);
	rt_describe_opcode(p->bth.opcode, op, sizeof op);
	rt_describe_ext(p, ext, sizeof ext);
	printf("%s qp=0x%06" PRIx32 " psn=%" PRIu32 "%s pad=%u len=%" PRIu32 " icrc=%s%s%s\n", op, p->bth.dest_qp,
	       p->bth.psn, p->bth.ack_req ? " A" : "", p->bth.pad, p->payload_len,
	       icrc == RT_ICRC_BAD ? "BAD" : rt_icrc_status_name(icrc), p->truncated ? " (truncated)" : "", ext);
}

static void json_ext(const struct rt_packet *p)
{
	const struct rt_ext *e = &p->ext;
	if (p->ext_present & RT_EXT_RETH)
		printf(",\"reth_va\":%" PRIu64 ",\"reth_rkey\":%" PRIu32 ",\"reth_len\":%" PRIu32, e->reth.va,
		       e->reth.rkey, e->reth.dma_len);
	if (p->ext_present & RT_EXT_AETH)
		printf(",\"aeth_syndrome\":%u,\"aeth_msn\":%" PRIu32, e->aeth.syndrome, e->aeth.msn);
	if (p->ext_present & RT_EXT_IMMDT)
		printf(",\"imm\":%" PRIu32, e->imm);
	if (p->ext_present & RT_EXT_IETH)
		printf(",\"ieth_rkey\":%" PRIu32, e->ieth_rkey);
	if (p->ext_present & RT_EXT_DETH)
		printf(",\"deth_qkey\":%" PRIu32 ",\"deth_src_qp\":%" PRIu32, e->deth.qkey, e->deth.src_qp);
	if (p->ext_present & RT_EXT_ATOMICETH)
		printf(",\"atomic_va\":%" PRIu64 ",\"atomic_rkey\":%" PRIu32 ",\"atomic_swap_add\":%" PRIu64
		       ",\"atomic_compare\":%" PRIu64,
		       e->atomic.va, e->atomic.rkey, e->atomic.swap_add, e->atomic.compare);
	if (p->ext_present & RT_EXT_ATOMICACKETH)
		printf(",\"atomic_ack_orig\":%" PRIu64, e->atomic_ack_orig);
}

static void print_json(const struct rt_frame *fr, const struct rt_packet *p, enum rt_icrc_status icrc)
{
	/* Seconds with 9 decimals, printed from integers so no precision is lost; the sign on its own. */
	uint64_t mag = fr->ts_ns < 0 ? 0 - (uint64_t)fr->ts_ns : (uint64_t)fr->ts_ns;
	printf("{\"frame\":%" PRIu64 ",\"time\":%s%" PRIu64 ".%09" PRIu64 ",\"caplen\":%u,\"len\":%u,\"roce\":%s",
	       fr->number, fr->ts_ns < 0 ? "-" : "", mag / 1000000000, mag % 1000000000, fr->caplen, fr->wirelen,
	       p->status == RT_PARSE_ROCE ? "true" : "false");
	if (p->status != RT_PARSE_ROCE) {
		const char *kind = p->status == RT_PARSE_NOT_ROCE ? "skipped"
				   : p->status == RT_PARSE_TRUNCATED ? "truncated" : "malformed";
		printf(",\"status\":\"%s\",\"reason\":", kind);
		rt_json_string(stdout, p->status == RT_PARSE_NOT_ROCE ? p->reason : p->detail);
		if (p->field) {
			printf(",\"field\":");
			rt_json_string(stdout, p->field);
		}
		printf("}\n");
		return;
	}
	char src[64], dst[64];
	rt_packet_format_ip(p, true, src, sizeof src);
	rt_packet_format_ip(p, false, dst, sizeof dst);
	const struct rt_bth *b = &p->bth;
	printf(",\"version\":%u,\"src\":\"%s\",\"dst\":\"%s\"", p->roce_version, src, dst);
	if (p->roce_version == 2)
		printf(",\"sport\":%u,\"dport\":%u", p->udp_sport, p->udp_dport);
	printf(",\"opcode\":%u,\"opcode_name\":\"%s\",\"dest_qp\":%" PRIu32 ",\"psn\":%" PRIu32
	       ",\"ack_req\":%s,\"se\":%s,\"migreq\":%s,\"pad\":%u,\"pkey\":%u,\"tver\":%u,\"fecn\":%s,\"becn\":%s"
	       ",\"payload_len\":%" PRIu32 ",\"truncated\":%s,\"icrc\":\"%s\"",
	       b->opcode, p->op ? p->op->name : "UNDEFINED", b->dest_qp, b->psn, b->ack_req ? "true" : "false",
	       b->se ? "true" : "false", b->migreq ? "true" : "false", b->pad, b->pkey, b->tver,
	       b->fecn ? "true" : "false", b->becn ? "true" : "false", p->payload_len,
	       p->truncated ? "true" : "false", rt_icrc_status_name(icrc));
	json_ext(p);
	printf("}\n");
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "roce-only", no_argument, NULL, 'r' },
		{ "libpcap", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct show_opts o = { 0 };
	struct rt_capture_options capture_opts = { 0 };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 'r': o.roce_only = true; break;
		case 'L': capture_opts.libpcap_only = true; break;
		case 'h': fputs(show_help, stdout); return RT_EXIT_OK;
		default: return cli_usage_error("show", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("show", argc == optind ? "no capture file given" : "one capture file at a time");
	const char *path = argv[optind];

	struct rt_error err;
	struct rt_capture *cap = rt_capture_open_with(path, &capture_opts, &err);
	if (!cap) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	enum rt_link link = rt_capture_link(cap);
	struct rt_frame fr;
	struct rt_packet p;
	int64_t t0 = 0;
	uint64_t malformed = 0;
	int rc, exit_code = RT_EXIT_OK;
	while ((rc = rt_capture_next(cap, &fr, &err)) == 1) {
		if (fr.number == 1)
			t0 = fr.ts_ns;
		rt_parse(&p, link, fr.data, fr.caplen, fr.wirelen);
		if (p.status == RT_PARSE_MALFORMED) {
			malformed++;
			fflush(stdout);
			cli_error("%s: frame %" PRIu64 ": %s: %s", path, fr.number, p.field, p.detail);
		}
		if (o.roce_only && p.status == RT_PARSE_NOT_ROCE)
			continue;
		enum rt_icrc_status icrc = rt_icrc_check(&p);
		if (o.json)
			print_json(&fr, &p, icrc);
		else
			print_text(&fr, &p, icrc, (double)(fr.ts_ns - t0) * 1e-9);
	}
	fflush(stdout);
	if (rc < 0) {
		cli_error("%s", err.msg);
		exit_code = RT_EXIT_INPUT;
	}
	if (malformed)
		exit_code = RT_EXIT_INPUT;
	rt_capture_close(cap);
	if (ferror(stdout)) {
		cli_error("error writing standard output");
		return RT_EXIT_INPUT;
	}
	return exit_code;
}
