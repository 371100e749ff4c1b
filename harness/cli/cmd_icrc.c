/* SPDX-License-Identifier: MIT */
/* rocetest icrc: verify every ICRC of a capture, or write a copy with every ICRC recomputed. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rocetest/capture.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"

static const char icrc_help[] =
	"usage: rocetest icrc [--fix OUT] [--max-report N] [--quiet] [--libpcap] FILE\n"
	"\n"
	"Verifies the ICRC of every RoCE packet (v2 over IPv4 and IPv6, and v1) in a\n"
	"pcap or pcapng capture (\"-\" reads standard input) and prints a summary and the\n"
	"first bad packets. Packets cut by the capture's snap length cannot be verified\n"
	"and are counted as unverified, not as bad.\n"
	"\n"
	"  --fix OUT        write a copy of the capture (classic pcap, nanosecond\n"
	"                   timestamps; \"-\" for standard output) in which every\n"
	"                   verifiable RoCE packet carries a recomputed ICRC; a UDP\n"
	"                   checksum that was not 0 is recomputed too, since it covers\n"
	"                   the ICRC. A tool for crafting test captures.\n"
	"  --max-report N   list at most N bad or malformed packets (default 20)\n"
	"  -q, --quiet      print only problems, no summary\n"
	"  --libpcap        read the capture with libpcap only (classic pcap files\n"
	"                   are otherwise read in place, faster); for cross-checks\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 every verifiable ICRC is good; 1 at least one is bad;\n"
	"2 unreadable input, or a RoCE frame too malformed to verify.\n";

struct icrc_counts {
	uint64_t frames, roce, ok, bad, unverified, malformed, skipped, fixed;
};

/* A growable copy of the current frame for --fix; grows, never shrinks, so no per-frame allocation. */
struct frame_copy {
	uint8_t *buf;
	size_t cap;
};

static uint8_t *frame_copy(struct frame_copy *fc, const struct rt_frame *fr)
{
	if (fr->caplen > fc->cap) {
		size_t cap = fr->caplen < 65536 ? 65536 : fr->caplen;
		uint8_t *nb = realloc(fc->buf, cap);
		if (!nb)
			return NULL;
		fc->buf = nb;
		fc->cap = cap;
	}
	memcpy(fc->buf, fr->data, fr->caplen);
	return fc->buf;
}

/* Rewrites the ICRC (and a non-zero UDP checksum) of the parsed packet in place. */
static bool fix_packet(struct rt_packet *p, uint8_t *copy)
{
	/* The parse describes the copy as well as the original: same bytes, same offsets. */
	const uint8_t *orig = p->frame;
	p->frame = copy;
	uint32_t icrc = rt_icrc_compute(p);
	bool changed = icrc != p->icrc_wire;
	rt_icrc_store(copy, p->icrc_off, icrc);
	if (p->roce_version == 2 && p->udp_checksum != 0) {
		uint16_t c = rt_udp_checksum(p);
		changed |= c != p->udp_checksum;
		rt_put_be16(copy + p->udp_off + 6, c);
	}
	p->frame = orig;
	return changed;
}

int cmd_icrc(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fix", required_argument, NULL, 'f' },
		{ "max-report", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "libpcap", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fix_path = NULL;
	uint64_t max_report = 20;
	bool quiet = false;
	struct rt_capture_options capture_opts = { 0 };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': fix_path = optarg; break;
		case 'm':
			if (!cli_parse_uint(optarg, UINT32_MAX, &max_report))
				return cli_usage_error("icrc", "--max-report needs a whole number, not '%s'", optarg);
			break;
		case 'q': quiet = true; break;
		case 'L': capture_opts.libpcap_only = true; break;
		case 'h': fputs(icrc_help, stdout); return RT_EXIT_OK;
		case ':': return cli_usage_error("icrc", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("icrc", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("icrc", argc == optind ? "no capture file given" : "one capture file at a time");
	const char *path = argv[optind];
	if (fix_path && cli_same_file(path, fix_path))
		return cli_usage_error("icrc", "--fix would overwrite the file being read (%s)", path);

	struct rt_error err;
	struct rt_capture *cap = rt_capture_open_with(path, &capture_opts, &err);
	if (!cap) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	struct rt_capture_writer *out = NULL;
	if (fix_path) {
		out = rt_capture_writer_open(fix_path, rt_capture_dlt(cap), rt_capture_snaplen(cap), &err);
		if (!out) {
			cli_error("%s", err.msg);
			rt_capture_close(cap);
			return RT_EXIT_INPUT;
		}
	}
	/* With --fix writing to standard output, the report goes to standard error. */
	FILE *report = (fix_path && strcmp(fix_path, "-") == 0) ? stderr : stdout;

	enum rt_link link = rt_capture_link(cap);
	struct icrc_counts n = { 0 };
	struct frame_copy fc = { 0 };
	struct cli_progress progress;
	struct rt_frame fr;
	struct rt_packet p;
	uint64_t reported = 0;
	int rc, exit_code = RT_EXIT_OK;
	cli_progress_start(&progress, "icrc");
	while ((rc = rt_capture_next(cap, &fr, &err)) == 1) {
		n.frames++;
		if (progress.enabled)
			cli_progress_update(&progress, rt_capture_offset(cap), rt_capture_size(cap), n.frames);
		rt_parse(&p, link, fr.data, fr.caplen, fr.wirelen);
		const uint8_t *data = fr.data;
		switch (p.status) {
		case RT_PARSE_NOT_ROCE:
			n.skipped++;
			break;
		case RT_PARSE_TRUNCATED:
			n.roce++;
			n.unverified++;
			break;
		case RT_PARSE_MALFORMED:
			n.malformed++;
			if (reported++ < max_report) {
				cli_progress_finish(&progress);
				fprintf(report, "%s: frame %" PRIu64 ": %s: %s (ICRC not checked)\n", path, fr.number,
					p.field, p.detail);
			}
			break;
		case RT_PARSE_ROCE:
			n.roce++;
			if (p.truncated) {
				n.unverified++;
				break;
			}
			uint32_t want = rt_icrc_compute(&p);
			if (want == p.icrc_wire) {
				n.ok++;
			} else {
				n.bad++;
				if (reported++ < max_report) {
					cli_progress_finish(&progress);
					fprintf(report, "%s: frame %" PRIu64 ": ICRC BAD: on the wire 0x%08" PRIx32
						", computed 0x%08" PRIx32 " (PSN %" PRIu32 ", DestQP 0x%06" PRIx32 ")\n",
						path, fr.number, p.icrc_wire, want, p.bth.psn, p.bth.dest_qp);
				}
			}
			if (out) {
				uint8_t *copy = frame_copy(&fc, &fr);
				if (!copy) {
					cli_error("out of memory copying frame %" PRIu64, fr.number);
					exit_code = RT_EXIT_INPUT;
					goto done;
				}
				if (fix_packet(&p, copy))
					n.fixed++;
				data = copy;
			}
			break;
		}
		if (out)
			rt_capture_write(out, fr.ts_ns, data, fr.caplen, fr.wirelen);
	}
	cli_progress_finish(&progress);
	if (rc < 0) {
		cli_error("%s", err.msg);
		exit_code = RT_EXIT_INPUT;
	}
done:
	if (out && rt_capture_writer_close(out, &err) != 0) {
		cli_error("%s", err.msg);
		exit_code = RT_EXIT_INPUT;
	}
	free(fc.buf);
	rt_capture_close(cap);
	if (reported > max_report)
		fprintf(report, "%s: ... and %" PRIu64 " more not listed (--max-report)\n", path, reported - max_report);
	if (!quiet) {
		fprintf(report, "%s: %" PRIu64 " frames, %" PRIu64 " RoCE packets: %" PRIu64 " ICRC ok, %" PRIu64
			" bad, %" PRIu64 " unverified (cut by snap length)", path, n.frames, n.roce, n.ok, n.bad,
			n.unverified);
		if (n.malformed)
			fprintf(report, ", %" PRIu64 " malformed", n.malformed);
		fprintf(report, "; %" PRIu64 " other frames skipped\n", n.skipped);
		if (fix_path)
			fprintf(report, "%s: wrote %" PRIu64 " frames, %" PRIu64 " with a changed ICRC or UDP checksum\n",
				fix_path, n.frames, n.fixed);
	}
	if (exit_code == RT_EXIT_OK && n.malformed)
		exit_code = RT_EXIT_INPUT;
	if (exit_code == RT_EXIT_OK && n.bad)
		exit_code = RT_EXIT_VIOLATIONS;
	return exit_code;
}
