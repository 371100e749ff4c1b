/* SPDX-License-Identifier: MIT */
/* rocetest peer: the host side of a board on an RDMA device (libibverbs), or its CM exchange alone. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cmd_peer.h"
#include "rocetest/iface.h"
#include "rocetest/json.h"

static const char peer_help[] =
	"usage: rocetest peer --dut-ip A [--device NAME] [--gid-index N] [OPTION]...\n"
	"       rocetest peer --cm-only --dut-ip A --local-ip B [OPTION]...\n"
	"\n"
	"The host side of a board on this machine's RDMA NIC (a ConnectX, or soft-RoCE):\n"
	"opens the device, chooses the GID, creates an RC QP and a memory region,\n"
	"exchanges the QP's parameters with the board over the CM frames of\n"
	"cm-frame.md (UDP to its port 0x4321), takes the QP to RTS, posts receives and\n"
	"starts the board's traffic generator (a txmeta frame), then takes its SENDs\n"
	"or WRITEs, checks every byte against the pattern the board's memory holds\n"
	"(32-bit little-endian words counting from 0, as the virtual board of\n"
	"`rocetest board` fills it) and each immediate, and reports throughput,\n"
	"message rate and completion errors. The QP is closed on both ends at the end.\n"
	"\n"
	"  --dut-ip A        the board's IPv4 address\n"
	"  --device NAME     the RDMA device (default: the first; ibv_devices lists them)\n"
	"  --ib-port N       its port (default 1)\n"
	"  --gid-index N     the GID table entry to send from (default: the RoCE v2 entry\n"
	"                    with the interface's IPv4-mapped address; printed with the table)\n"
	"  --local-ip B      choose the RoCE v2 GID of this address (when the interface has several)\n"
	"  --pmtu N          the board's PMTU, 256..4096 (default 4096, the virtual board's)\n"
	"  --count N, --length L, --write, --imm, --frequency F\n"
	"                    the traffic: N messages of L bytes (default 1000 of 4096),\n"
	"                    RDMA WRITE instead of SEND, with immediate, rate divider F\n"
	"  --repeat R        start the generator R times, each after the last message of the\n"
	"                    one before (the board reads message k at k x L of its memory:\n"
	"                    16 MiB on the virtual board; more takes several starts)\n"
	"  --rx-depth N      receives posted (default: the messages that need one, at most 1024;\n"
	"                    fewer provoke RNR NAKs)\n"
	"  --min-rnr-timer N the RNR NAK's timer code (default 1, 0.01 ms)\n"
	"  --poll busy|event busy-poll the completion queue (default) or sleep on its events\n"
	"  --cpu N           run on CPU N\n"
	"  --wait-s T        give each start's traffic T seconds (default 10 + 1 s per 100 MB)\n"
	"  --port P          listening_port, where the board's CM replies go (default 0x4322)\n"
	"  --timeout-ms T, --retries N\n"
	"                    per CM request: wait T ms (default 1000), send again N times (2)\n"
	"  --json F          also write the result as JSON to F\n"
	"  --cm-only         no RDMA device: the CM exchange and the start alone, for a host QPN\n"
	"                    --qpn (default 0x1200) at --local-ip; the QP is closed after --hold-ms\n"
	"                    (default 1000)\n"
	"  -h, --help        this text\n"
	"Numbers are decimal or 0x-prefixed hex.\n"
	"\n"
	"Exit status: 0 every message arrived with the right data, 1 a completion error,\n"
	"wrong data, a message missing or the board refused a request, 2 usage error, no\n"
	"RDMA device, no usable GID, or no answer from the board.\n";

enum { OPT_BASE = 256, OPT_DEVICE, OPT_IB_PORT, OPT_GID, OPT_DUT_IP, OPT_LOCAL_IP, OPT_PMTU, OPT_COUNT, OPT_LENGTH,
       OPT_WRITE, OPT_IMM, OPT_FREQ, OPT_RX_DEPTH, OPT_RNR, OPT_POLL, OPT_CPU, OPT_WAIT, OPT_PORT, OPT_TIMEOUT,
       OPT_RETRIES, OPT_JSON, OPT_CM_ONLY, OPT_HOLD, OPT_QPN, OPT_REPEAT };

/* The numeric options: their name, range and where they go. */
static int number_option(struct peer_opts *o, int c, const char *arg)
{
	static const struct {
		int c;
		const char *name;
		uint64_t min, max;
	} limits[] = {
		{ OPT_IB_PORT, "--ib-port", 1, 255 },	   { OPT_GID, "--gid-index", 0, 65535 },
		{ OPT_PMTU, "--pmtu", 256, 4096 },	   { OPT_COUNT, "--count", 1, 0xFFFFFFFF },
		{ OPT_LENGTH, "--length", 1, 1u << 30 },   { OPT_FREQ, "--frequency", 0, 0xFFFFFFFF },
		{ OPT_RX_DEPTH, "--rx-depth", 1, 65536 },  { OPT_RNR, "--min-rnr-timer", 0, 31 },
		{ OPT_CPU, "--cpu", 0, 4095 },		   { OPT_WAIT, "--wait-s", 1, 86400 },
		{ OPT_PORT, "--port", 1, 0xFFFF },	   { OPT_TIMEOUT, "--timeout-ms", 1, 3600000 },
		{ OPT_RETRIES, "--retries", 0, 100 },	   { OPT_HOLD, "--hold-ms", 0, 3600000 },
		{ OPT_QPN, "--qpn", 1, 0xFFFFFF },	   { OPT_REPEAT, "--repeat", 1, 1000000 },
	};
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		uint64_t v;
		if (limits[i].c != c)
			continue;
		if (!cli_parse_number(arg, limits[i].max, &v) || v < limits[i].min)
			return cli_usage_error("peer", "%s needs a number from %" PRIu64 " to %" PRIu64 ", not '%s'",
					       limits[i].name, limits[i].min, limits[i].max, arg);
		switch (c) {
		case OPT_IB_PORT: o->ib_port = (unsigned)v; break;
		case OPT_GID: o->gid_index = (int)v; break;
		case OPT_PMTU: o->pmtu = (uint32_t)v; break;
		case OPT_COUNT: o->traffic.count = (uint32_t)v; break;
		case OPT_LENGTH: o->traffic.length = (uint32_t)v; break;
		case OPT_FREQ: o->traffic.frequency = (uint32_t)v; break;
		case OPT_RX_DEPTH: o->rx_depth = (uint32_t)v; break;
		case OPT_RNR: o->min_rnr_timer = (unsigned)v; break;
		case OPT_CPU: o->cpu = (int)v; break;
		case OPT_WAIT: o->wait_s = (double)v; break;
		case OPT_PORT: o->cm_port = (uint16_t)v; break;
		case OPT_TIMEOUT: o->timeout_ms = (unsigned)v; break;
		case OPT_RETRIES: o->attempts = (unsigned)v + 1; break;
		case OPT_HOLD: o->hold_ms = (unsigned)v; break;
		case OPT_QPN: o->cm_only_qpn = (uint32_t)v; break;
		case OPT_REPEAT: o->repeat = (uint32_t)v; break;
		}
		return 0;
	}
	return -1;
}

static int other_option(struct peer_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_DEVICE: o->device = arg; return 0;
	case OPT_WRITE: o->traffic.write = true; return 0;
	case OPT_IMM: o->traffic.imm = true; return 0;
	case OPT_JSON: o->json = arg; return 0;
	case OPT_CM_ONLY: o->cm_only = true; return 0;
	case OPT_DUT_IP:
	case OPT_LOCAL_IP:
		if (!rt_parse_ipv4(arg, c == OPT_DUT_IP ? &o->dut_ip : &o->local_ip))
			return cli_usage_error("peer", "'%s' is not an IPv4 address such as 10.0.0.1", arg);
		return 0;
	case OPT_POLL:
		if (strcmp(arg, "busy") && strcmp(arg, "event"))
			return cli_usage_error("peer", "--poll is busy or event, not '%s'", arg);
		o->busy_poll = !strcmp(arg, "busy");
		return 0;
	}
	return cli_usage_error("peer", "unknown option");
}

static int parse(int argc, char **argv, struct peer_opts *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, OPT_DEVICE },   { "ib-port", required_argument, NULL, OPT_IB_PORT },
		{ "gid-index", required_argument, NULL, OPT_GID },   { "dut-ip", required_argument, NULL, OPT_DUT_IP },
		{ "local-ip", required_argument, NULL, OPT_LOCAL_IP }, { "pmtu", required_argument, NULL, OPT_PMTU },
		{ "count", required_argument, NULL, OPT_COUNT },     { "length", required_argument, NULL, OPT_LENGTH },
		{ "write", no_argument, NULL, OPT_WRITE },	     { "imm", no_argument, NULL, OPT_IMM },
		{ "frequency", required_argument, NULL, OPT_FREQ },  { "rx-depth", required_argument, NULL, OPT_RX_DEPTH },
		{ "min-rnr-timer", required_argument, NULL, OPT_RNR }, { "poll", required_argument, NULL, OPT_POLL },
		{ "cpu", required_argument, NULL, OPT_CPU },	     { "wait-s", required_argument, NULL, OPT_WAIT },
		{ "port", required_argument, NULL, OPT_PORT },	     { "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
		{ "retries", required_argument, NULL, OPT_RETRIES }, { "json", required_argument, NULL, OPT_JSON },
		{ "cm-only", no_argument, NULL, OPT_CM_ONLY },	     { "hold-ms", required_argument, NULL, OPT_HOLD },
		{ "qpn", required_argument, NULL, OPT_QPN },	     { "repeat", required_argument, NULL, OPT_REPEAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(peer_help, stdout);
			exit(RT_EXIT_OK);
		}
		int rc = c == '?' ? cli_usage_error("peer", "unknown option") : number_option(o, c, optarg);
		if (rc < 0)
			rc = other_option(o, c, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error("peer", "unexpected argument '%s'", argv[optind]);
	if (!o->dut_ip)
		return cli_usage_error("peer", "--dut-ip (the board's address) is required");
	if (!rt_peer_mtu_enum(o->pmtu))
		return cli_usage_error("peer", "--pmtu is 256, 512, 1024, 2048 or 4096, not %u", o->pmtu);
	if (o->cm_only && !o->local_ip)
		return cli_usage_error("peer", "--cm-only needs --local-ip (this host's address, a kernel one)");
	return 0;
}

/* ---- --cm-only ---------------------------------------------------------- */

static void sleep_ms(unsigned ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	while (nanosleep(&t, &t))
		;
}

static int cm_exit(enum rt_peer_cm_result r, const struct rt_error *err)
{
	if (r == RT_PEER_CM_ACK)
		return RT_EXIT_OK;
	cli_error("%s", err->msg);
	return r == RT_PEER_CM_REFUSED ? RT_EXIT_VIOLATIONS : RT_EXIT_INPUT;
}

/* The exchange for a host QP that does not exist: what a test of the board's CM needs without an RDMA NIC. */
static int run_cm_only(const struct peer_opts *o)
{
	struct peer_udp u;
	if (peer_udp_open(&u, o->local_ip, o->cm_port, o->dut_ip))
		return RT_EXIT_INPUT;
	struct rt_peer_transport t;
	peer_udp_transport(&u, &t);
	struct rt_peer_host host = { .qpn = o->cm_only_qpn, .psn = 0x4000, .rkey = 0x5EED0001, .base = 0x7F0000001000ull,
				     .ip = o->local_ip, .port = o->cm_port };
	struct rt_peer_cm cm;
	struct rt_error err;
	rt_peer_cm_init(&cm, &t, o->dut_ip, &host, o->timeout_ms, o->attempts);
	enum rt_peer_cm_result r = rt_peer_cm_open(&cm, &err);
	if (r == RT_PEER_CM_ACK) {
		printf("OPEN_QP: ACK: board QPN 0x%06x, PSN 0x%06x, R_Key 0x%08x, base 0x%016" PRIx64 "\n", cm.board.qpn,
		       cm.board.psn, cm.board.rkey, cm.board.base);
		r = rt_peer_cm_info(&cm, &err);
	}
	if (r == RT_PEER_CM_ACK) {
		printf("SEND_QP_INFO: ACK: host QPN 0x%06x, PSN 0x%06x echoed\n", host.qpn, host.psn);
		r = rt_peer_cm_rts(&cm, &err);
	}
	if (r == RT_PEER_CM_ACK) {
		printf("MODIFY_QP_RTS: ACK\n");
		r = rt_peer_cm_start(&cm, &o->traffic, &err);
	}
	if (r == RT_PEER_CM_ACK) {
		printf("txmeta start: ACK: %u %s%s of %u bytes\n", o->traffic.count, o->traffic.write ? "WRITE" : "SEND",
		       o->traffic.imm ? " with immediate" : "", o->traffic.length);
		fflush(stdout);
		sleep_ms(o->hold_ms);
	}
	int rc = cm_exit(r, &err);
	if (cm.step != RT_PEER_IDLE) {
		struct rt_error e2;
		enum rt_peer_cm_result rc2 = rt_peer_cm_close(&cm, &e2);
		if (rc2 == RT_PEER_CM_ACK)
			printf("CLOSE_QP: ACK\n");
		else if (!rc)
			rc = cm_exit(rc2, &e2);
	}
	if (cm.strays)
		printf("%u datagrams ignored (not a CM reply from the board)\n", cm.strays);
	peer_udp_close(&u);
	return rc;
}

/* ---- The report ----------------------------------------------------------- */

static void print_result(const struct peer_result *r)
{
	const struct rt_peer_rate *s = &r->rate;
	printf("rocetest peer: %" PRIu64 " of %" PRIu64 " messages, %" PRIu64 " bytes, %.3f Gb/s, %.0f messages/s; "
	       "%" PRIu64 " completion errors, %" PRIu64 " data mismatches\n",
	       s->messages, r->expected, s->bytes, rt_peer_rate_gbps(s), rt_peer_rate_mps(s), s->errors, r->mismatches);
	if (r->first_error[0])
		printf("rocetest peer: first problem: %s\n", r->first_error);
}

static int write_json(const char *path, const struct peer_result *r)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		cli_error("%s: cannot write: %m", path);
		return -1;
	}
	const struct rt_peer_rate *s = &r->rate;
	fprintf(f, "{\"device\": ");
	rt_json_string(f, r->device);
	fprintf(f, ", \"gid_index\": %d, \"host_qpn\": %u, \"board_qpn\": %u, \"expected\": %" PRIu64
		   ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"seconds\": %.6f, \"gbps\": %.6f"
		   ", \"messages_per_s\": %.1f, \"completion_errors\": %" PRIu64 ", \"mismatches\": %" PRIu64
		   ", \"first_error\": ",
		r->have_gid ? (int)r->gid.index : -1, r->host_qpn, r->board_qpn, r->expected, s->messages, s->bytes,
		(double)(s->last_ns - s->start_ns) / 1e9, rt_peer_rate_gbps(s), rt_peer_rate_mps(s), s->errors,
		r->mismatches);
	rt_json_string(f, r->first_error);
	fprintf(f, ", \"exit\": %d}\n", r->exit_code);
	if (fclose(f)) {
		cli_error("%s: cannot write: %m", path);
		return -1;
	}
	return 0;
}

int cmd_peer(int argc, char **argv)
{
	struct peer_opts o = { .ib_port = 1, .gid_index = -1, .cm_port = 0x4322, .timeout_ms = 1000, .attempts = 3,
			       .traffic = { .count = 1000, .length = 4096 }, .pmtu = 4096, .min_rnr_timer = 1,
			       .busy_poll = true, .cpu = -1, .hold_ms = 1000, .cm_only_qpn = 0x1200, .repeat = 1 };
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	if (o.cm_only)
		return run_cm_only(&o);
	struct peer_result res = { .expected = (uint64_t)o.traffic.count * o.repeat };
	rc = peer_verbs_run(&o, &res);
	res.exit_code = rc;
	if (rc != RT_EXIT_INPUT || res.rate.messages || res.rate.errors)
		print_result(&res);
	if (o.json && write_json(o.json, &res))
		return RT_EXIT_INPUT;
	return rc;
}
