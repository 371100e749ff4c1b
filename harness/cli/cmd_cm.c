/* SPDX-License-Identifier: MIT */
/* rocetest cm: the CM frames of cm-frame.md to a board, each reply printed field by field. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rocetest/iface.h"

static const char cm_help[] =
	"usage: rocetest cm --iface NAME --dut-ip A [--dut-mac M] [--local-ip B] [OPTION]... ACTION [QP]\n"
	"\n"
	"Sends the connection manager frames of cm-frame.md (UDP to port 0x4321) to a\n"
	"board on interface NAME and prints each reply field by field. ACTION:\n"
	"  open              OPEN_QP: the board allocates a QP (no QP argument)\n"
	"  info QP           SEND_QP_INFO: the host's QPN, PSN, R_Key, base and IP\n"
	"  rts QP            MODIFY_QP_RTS\n"
	"  start QP          a txmeta frame: the board's traffic generator sends\n"
	"                    --count messages of --length bytes\n"
	"  close QP          CLOSE_QP\n"
	"  connect           open, info and rts on the QP the board allocated (and start,\n"
	"                    with --count)\n"
	"\n"
	"  --iface NAME      the interface (needs CAP_NET_RAW: root, or\n"
	"                    setcap cap_net_raw,cap_net_admin+ep)\n"
	"  --dut-ip A        the board's IPv4 address\n"
	"  --dut-mac M       its MAC (default: asked by ARP)\n"
	"  --local-ip B      this host's address in the frames (default 10.0.1.100;\n"
	"                    one the kernel does not have on NAME)\n"
	"  --local-mac M     this host's MAC (default: the interface's)\n"
	"  --port P          listening_port, where replies go (default 0x4322)\n"
	"  --timeout-ms T    wait per attempt (default 1000)\n"
	"  --retries N       attempts after the first (default 2); a retried OPEN_QP whose\n"
	"                    first reply was only late opens a second QP\n"
	"  --rem-qpn N, --rem-psn N, --rem-rkey N, --rem-base N, --rem-ip B\n"
	"                    info: the host's QP (defaults 0x1200, 0x4000, 0x5eed0001,\n"
	"                    0x7f0000001000, --local-ip)\n"
	"  --count N, --length L, --write, --imm, --frequency F\n"
	"                    start: N messages of L bytes (default 1 of 1024), RDMA\n"
	"                    WRITE instead of SEND, with immediate, rate divider F\n"
	"Numbers are decimal or 0x-prefixed hex.\n"
	"\n"
	"Exit status: 0 the board acknowledged (ACK) every request, 1 it refused one\n"
	"(NAK, NO_QP, ERROR), 2 no answer, usage error, or the interface failed.\n";

enum cm_action { ACT_OPEN, ACT_INFO, ACT_RTS, ACT_START, ACT_CLOSE, ACT_CONNECT };

struct cm_cli {
	const char *iface;
	struct rt_cm_ends ends;
	bool have_dut_ip, have_dut_mac, have_local_mac;
	struct rt_cm_wait wait;
	enum cm_action action;
	uint32_t qp;
	struct rt_cm_msg info;		/* the rem_* fields of SEND_QP_INFO */
	struct rt_cm_msg start;		/* the txmeta fields */
	bool start_after_connect;
};

static int number_option(struct cm_cli *o, int c, const char *arg)
{
	static const struct {
		int c;
		const char *name;
		uint64_t max;
	} limits[] = {
		{ 'p', "--port", 0xFFFF }, { 't', "--timeout-ms", 3600000 }, { 'r', "--retries", 100 },
		{ 'Q', "--rem-qpn", 0xFFFFFF }, { 'P', "--rem-psn", 0xFFFFFF }, { 'K', "--rem-rkey", 0xFFFFFFFF },
		{ 'B', "--rem-base", UINT64_MAX }, { 'n', "--count", 0xFFFFFFFF }, { 'l', "--length", 0xFFFFFFFF },
		{ 'f', "--frequency", 0xFFFFFFFF },
	};
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		uint64_t v;
		if (limits[i].c != c)
			continue;
		if (!cli_parse_number(arg, limits[i].max, &v) || (c == 't' && !v))
			return cli_usage_error("cm", "%s needs a number from %d to %" PRIu64 ", not '%s'", limits[i].name,
					       c == 't', limits[i].max, arg);
		switch (c) {
		case 'p': o->ends.host_port = (uint16_t)v; break;
		case 't': o->wait.timeout_ms = (unsigned)v; break;
		case 'r': o->wait.attempts = (unsigned)v + 1; break;
		case 'Q': o->info.rem_qpn = (uint32_t)v; break;
		case 'P': o->info.rem_psn = (uint32_t)v; break;
		case 'K': o->info.rem_rkey = (uint32_t)v; break;
		case 'B': o->info.rem_base = v; break;
		case 'n': o->start.n_transfers = (uint32_t)v; o->start_after_connect = true; break;
		case 'l': o->start.dma_length = (uint32_t)v; break;
		case 'f': o->start.frequency = (uint32_t)v; break;
		}
		return 0;
	}
	return -1;
}

static int address_option(struct cm_cli *o, int c, const char *arg)
{
	bool ok = true;
	switch (c) {
	case 'a': ok = rt_parse_ipv4(arg, &o->ends.board_ip); o->have_dut_ip = true; break;
	case 'A': ok = rt_parse_mac(arg, o->ends.board_mac); o->have_dut_mac = true; break;
	case 'b': ok = rt_parse_ipv4(arg, &o->ends.host_ip); break;
	case 'M': ok = rt_parse_mac(arg, o->ends.host_mac); o->have_local_mac = true; break;
	case 'I': ok = rt_parse_ipv4(arg, &o->info.rem_ip); break;
	default: return -1;
	}
	if (!ok)
		return cli_usage_error("cm", "'%s' is not an address (IPv4 as 10.0.0.1, MAC as 02:00:00:00:00:01)", arg);
	return 0;
}

static int parse_action(struct cm_cli *o, int argc, char **argv)
{
	static const struct {
		const char *name;
		enum cm_action action;
		bool qp;
	} actions[] = {
		{ "open", ACT_OPEN, false }, { "info", ACT_INFO, true },   { "rts", ACT_RTS, true },
		{ "start", ACT_START, true }, { "close", ACT_CLOSE, true }, { "connect", ACT_CONNECT, false },
	};
	if (optind >= argc)
		return cli_usage_error("cm", "ACTION is missing (open, info, rts, start, close or connect)");
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
		if (strcmp(argv[optind], actions[i].name))
			continue;
		o->action = actions[i].action;
		int want = optind + 1 + actions[i].qp;
		uint64_t qp;
		if (actions[i].qp && (optind + 1 >= argc || !cli_parse_number(argv[optind + 1], 0xFFFFFF, &qp)))
			return cli_usage_error("cm", "%s needs the QP number (as OPEN_QP gave it, e.g. 256 or 0x100)",
					       actions[i].name);
		if (actions[i].qp)
			o->qp = (uint32_t)qp;
		if (argc > want)
			return cli_usage_error("cm", "unexpected argument '%s'", argv[want]);
		return 0;
	}
	return cli_usage_error("cm", "unknown ACTION '%s' (open, info, rts, start, close or connect)", argv[optind]);
}

static int parse(int argc, char **argv, struct cm_cli *o)
{
	static const struct option longopts[] = {
		{ "iface", required_argument, NULL, 'i' },	{ "dut-ip", required_argument, NULL, 'a' },
		{ "dut-mac", required_argument, NULL, 'A' },	{ "local-ip", required_argument, NULL, 'b' },
		{ "local-mac", required_argument, NULL, 'M' },	{ "port", required_argument, NULL, 'p' },
		{ "timeout-ms", required_argument, NULL, 't' }, { "retries", required_argument, NULL, 'r' },
		{ "rem-qpn", required_argument, NULL, 'Q' },	{ "rem-psn", required_argument, NULL, 'P' },
		{ "rem-rkey", required_argument, NULL, 'K' },	{ "rem-base", required_argument, NULL, 'B' },
		{ "rem-ip", required_argument, NULL, 'I' },	{ "count", required_argument, NULL, 'n' },
		{ "length", required_argument, NULL, 'l' },	{ "frequency", required_argument, NULL, 'f' },
		{ "write", no_argument, NULL, 'W' },		{ "imm", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int rc = -1;
		if (c == 'h') {
			fputs(cm_help, stdout);
			exit(RT_EXIT_OK);
		} else if (c == 'i') {
			o->iface = optarg;
			rc = 0;
		} else if (c == 'W' || c == 'J') {
			*(c == 'W' ? &o->start.tx_write : &o->start.is_immediate) = true;
			rc = 0;
		} else if (c != '?' && (rc = number_option(o, c, optarg)) < 0) {
			rc = address_option(o, c, optarg);
		}
		if (rc)
			return rc < 0 ? cli_usage_error("cm", "unknown option") : rc;
	}
	if (!o->iface || !o->have_dut_ip)
		return cli_usage_error("cm", "--iface and --dut-ip are required");
	if (!o->info.rem_ip)
		o->info.rem_ip = o->ends.host_ip;
	return parse_action(o, argc, argv);
}

/* ---- The exchange ----------------------------------------------------- */

static void print_msg(const struct rt_cm_msg *m)
{
	char ip[16];
	printf("  qp_info_valid   %u\n  req_type        %s (%u)\n  ack_valid       %u\n  ack_type        %s (%u)\n",
	       m->qp_info_valid, rt_cm_req_name(m->req_type), m->req_type, m->ack_valid, rt_cm_ack_name(m->ack_type),
	       m->ack_type);
	printf("  loc_qpn         0x%06x (%u)\n  loc_psn         0x%06x\n  loc_rkey        0x%08x\n"
	       "  loc_base_addr   0x%016" PRIx64 "\n  loc_ip          %s\n",
	       m->loc_qpn, m->loc_qpn, m->loc_psn, m->loc_rkey, m->loc_base, rt_format_ipv4(m->loc_ip, ip));
	printf("  rem_qpn         0x%06x (%u)\n  rem_psn         0x%06x\n  rem_rkey        0x%08x\n"
	       "  rem_base_addr   0x%016" PRIx64 "\n  rem_ip          %s\n",
	       m->rem_qpn, m->rem_qpn, m->rem_psn, m->rem_rkey, m->rem_base, rt_format_ipv4(m->rem_ip, ip));
	printf("  listening_port  0x%04x (%u)\n  txmeta_valid    %u\n  start           %u\n  is_immediate    %u\n"
	       "  tx_type         %s\n  dma_length      %u\n  n_transfers     %u\n  frequency       %u\n",
	       m->listening_port, m->listening_port, m->txmeta_valid, m->start, m->is_immediate,
	       m->tx_write ? "WRITE (1)" : "SEND (0)", m->dma_length, m->n_transfers, m->frequency);
}

/* One request and its reply: 0 ACK, 1 refused, 2 no answer or a failed port. */
static int exchange(struct rt_live *l, const struct cm_cli *o, const struct rt_cm_msg *req, const char *what,
		    struct rt_cm_msg *rep)
{
	struct rt_error err;
	unsigned attempt = 0;
	char ip[16];
	int64_t t0 = rt_wall_ns();
	int rc = rt_cm_transact(l, &o->ends, req, &o->wait, rep, &attempt, &err);
	if (rc < 0) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	if (!rc) {
		printf("%s: no reply from %s in %u attempts of %u ms\n", what, rt_format_ipv4(o->ends.board_ip, ip),
		       o->wait.attempts, o->wait.timeout_ms);
		return RT_EXIT_INPUT;
	}
	bool acked = rep->ack_valid && rep->ack_type == RT_CM_ACK;
	printf("%s: %s (attempt %u of %u, %.1f ms)\n", what, rep->ack_valid ? rt_cm_ack_name(rep->ack_type) :
	       "a reply without ack_valid", attempt, o->wait.attempts, (double)(rt_wall_ns() - t0) / 1e6);
	print_msg(rep);
	fflush(stdout);
	return acked ? RT_EXIT_OK : RT_EXIT_VIOLATIONS;
}

static struct rt_cm_msg request(const struct cm_cli *o, enum cm_action a, uint32_t qp)
{
	struct rt_cm_msg m = { .qp_info_valid = true, .loc_qpn = qp, .listening_port = o->ends.host_port };
	switch (a) {
	case ACT_OPEN:
	case ACT_CONNECT:
		m.req_type = RT_CM_OPEN_QP;
		m.loc_qpn = 0;
		break;
	case ACT_INFO:
		m.req_type = RT_CM_SEND_QP_INFO;
		m.rem_qpn = o->info.rem_qpn;
		m.rem_psn = o->info.rem_psn;
		m.rem_rkey = o->info.rem_rkey;
		m.rem_base = o->info.rem_base;
		m.rem_ip = o->info.rem_ip;
		break;
	case ACT_RTS:
		m.req_type = RT_CM_MODIFY_QP_RTS;
		break;
	case ACT_CLOSE:
		m.req_type = RT_CM_CLOSE_QP;
		break;
	case ACT_START:
		m = o->start;
		m.loc_qpn = qp;
		m.listening_port = o->ends.host_port;
		m.txmeta_valid = m.start = true;
		break;
	}
	return m;
}

static const char *const action_names[] = {
	[ACT_OPEN] = "OPEN_QP", [ACT_INFO] = "SEND_QP_INFO", [ACT_RTS] = "MODIFY_QP_RTS",
	[ACT_START] = "txmeta start", [ACT_CLOSE] = "CLOSE_QP", [ACT_CONNECT] = "OPEN_QP",
};

/* connect: OPEN_QP, then the rest on the QP it gave; stops at the first request not acknowledged. */
static int connect_qp(struct rt_live *l, const struct cm_cli *o)
{
	struct rt_cm_msg rep = { 0 }, req = request(o, ACT_OPEN, 0);
	int rc = exchange(l, o, &req, "OPEN_QP", &rep);
	const enum cm_action rest[] = { ACT_INFO, ACT_RTS, ACT_START };
	uint32_t qp = rep.loc_qpn;
	for (size_t i = 0; !rc && i < sizeof rest / sizeof rest[0]; i++) {
		if (rest[i] == ACT_START && !o->start_after_connect)
			break;
		req = request(o, rest[i], qp);
		rc = exchange(l, o, &req, action_names[rest[i]], &rep);
	}
	return rc;
}

/* The live port, the board's MAC (by ARP unless given), and a filter for its replies. */
static struct rt_live *open_port(struct cm_cli *o)
{
	struct rt_error err;
	uint8_t own[6];
	char ip[16], filter[160];
	if (rt_iface_hwaddr(o->iface, own, &err)) {
		cli_error("%s", err.msg);
		return NULL;
	}
	if (!o->have_local_mac)
		memcpy(o->ends.host_mac, own, 6);
	if (rt_iface_has_ipv4(o->iface, o->ends.host_ip)) {
		cli_error("%s has %s, the --local-ip: the kernel would answer the board's replies itself (ICMP port "
			  "unreachable); choose an address it does not have", o->iface, rt_format_ipv4(o->ends.host_ip, ip));
		return NULL;
	}
	struct rt_live_config lc = { .iface = o->iface, .promisc = memcmp(own, o->ends.host_mac, 6) != 0 };
	struct rt_live *l = rt_live_open(&lc, &err);
	rt_cm_reply_filter(&o->ends, filter, sizeof filter);
	if (!l || (!o->have_dut_mac && rt_live_arp_resolve(l, &o->ends, &o->wait, &err)) ||
	    rt_live_set_filter(l, filter, &err)) {
		cli_error("%s", err.msg);
		rt_live_close(l);
		return NULL;
	}
	return l;
}

int cmd_cm(int argc, char **argv)
{
	struct cm_cli o = {
		.ends = { .host_port = 0x4322 },
		.wait = { .timeout_ms = 1000, .attempts = 3 },
		.info = { .rem_qpn = 0x1200, .rem_psn = 0x4000, .rem_rkey = 0x5EED0001, .rem_base = 0x7F0000001000ull },
		.start = { .n_transfers = 1, .dma_length = 1024 },
	};
	struct rt_run_addrs defaults;
	rt_run_addrs_default(&defaults);
	o.ends.host_ip = defaults.host_ip;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	struct rt_live *l = open_port(&o);
	if (!l)
		return RT_EXIT_INPUT;
	if (o.action == ACT_CONNECT) {
		rc = connect_qp(l, &o);
	} else {
		struct rt_cm_msg rep, req = request(&o, o.action, o.qp);
		rc = exchange(l, &o, &req, action_names[o.action], &rep);
	}
	rt_live_close(l);
	return rc;
}
