/* SPDX-License-Identifier: MIT */
/* rocetest board: the Verilator model of dut/ as a virtual board on a network interface. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dut_load.h"
#include "rocetest/board.h"
#include "rocetest/iface.h"

static const char board_help[] =
	"usage: rocetest board --iface NAME --ip A [--mac M] [--control PATH] [--slowdown K] [--width W] [--sim-lib SO]\n"
	"\n"
	"Attaches the Verilator model of the included FPGA endpoint (dut/) to network\n"
	"interface NAME as a virtual board: frames from the wire go into its RX port,\n"
	"frames it sends go out, in real time, its clock paced against the wall clock\n"
	"K times slower than its 322.266 MHz (the model simulates a few hundred\n"
	"thousand cycles a second). It answers ARP for A and the CM frames of\n"
	"cm-frame.md (rocetest cm), and serves `rocetest run --dut iface:NAME\n"
	"--board-control PATH`, which drives it through the control socket PATH and\n"
	"runs on its time. Runs until interrupted (SIGINT, SIGTERM), then prints what\n"
	"it did.\n"
	"\n"
	"  --iface NAME      the interface (capturing and sending on it needs\n"
	"                    CAP_NET_RAW: root, or setcap cap_net_raw,cap_net_admin+ep)\n"
	"  --ip A            the board's IPv4 address\n"
	"  --mac M           its MAC address (default: the interface's; another one\n"
	"                    puts the interface in promiscuous mode)\n"
	"  --control PATH    its control socket (default /tmp/rocetest-board.NAME.sock)\n"
	"  --slowdown K      how many times slower than the wall clock its clock runs\n"
	"                    (default 5000; 1 or more)\n"
	"  --width W         the model's DATA_WIDTH (default 512)\n"
	"  --sim-lib SO      the model to load (default: build/dut/wW/libroce_dut_sim.so\n"
	"                    beside this rocetest)\n"
	"  --buffer-mib N    the capture buffer (default 64)\n"
	"  -h, --help        this text\n"
	"\n"
	"With no harness connected the model has the board's addresses, R_Key\n"
	"0x00001234 for its memory, first PSN 0, PMTU 4096, local ACK timeout 14,\n"
	"retry_cnt and rnr_retry 7.\n"
	"\n"
	"Exit status: 0 stopped by a signal, 2 usage error, or the interface, the\n"
	"model or the control socket could not be opened or failed.\n";

/* Set by SIGINT and SIGTERM: the board stops after its current turn. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct board_cli {
	struct rt_board_config c;
	bool have_ip, have_mac;
	unsigned width;
	const char *sim_lib;
	char control[108];
};

static int parse_value(struct board_cli *o, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 'i':
		o->c.iface = arg;
		return 0;
	case 'a':
		if (!rt_parse_ipv4(arg, &o->c.ip))
			return cli_usage_error("board", "--ip needs an IPv4 address such as 10.0.0.1, not '%s'", arg);
		o->have_ip = true;
		return 0;
	case 'm':
		if (!rt_parse_mac(arg, o->c.mac))
			return cli_usage_error("board", "--mac needs a MAC address such as 02:00:00:00:00:01, not '%s'",
					       arg);
		o->have_mac = true;
		return 0;
	case 'c':
		o->c.control = arg;
		return 0;
	case 'k':
		if (!cli_parse_uint(arg, 1000000000, &v) || v < 1)
			return cli_usage_error("board", "--slowdown needs a whole number of 1 or more, not '%s'", arg);
		o->c.slowdown = (double)v;
		return 0;
	case 'w':
		if (!cli_parse_width(arg, &o->width))
			return cli_usage_error("board", "--width must be " CLI_WIDTHS ", not '%s'", arg);
		return 0;
	case 'L':
		o->sim_lib = arg;
		return 0;
	case 'b':
		if (!cli_parse_uint(arg, 4096, &v) || v < 1)
			return cli_usage_error("board", "--buffer-mib needs 1 to 4096, not '%s'", arg);
		o->c.buffer_mib = (unsigned)v;
		return 0;
	}
	return cli_usage_error("board", "unknown option");
}

static int parse(int argc, char **argv, struct board_cli *o)
{
	static const struct option longopts[] = {
		{ "iface", required_argument, NULL, 'i' },    { "ip", required_argument, NULL, 'a' },
		{ "mac", required_argument, NULL, 'm' },      { "control", required_argument, NULL, 'c' },
		{ "slowdown", required_argument, NULL, 'k' }, { "width", required_argument, NULL, 'w' },
		{ "sim-lib", required_argument, NULL, 'L' },  { "buffer-mib", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },	      { NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(board_help, stdout);
			exit(RT_EXIT_OK);
		}
		int rc = parse_value(o, c, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error("board", "unexpected argument '%s'", argv[optind]);
	if (!o->c.iface || !o->have_ip)
		return cli_usage_error("board", "--iface and --ip are required");
	return 0;
}

static void print_stats(const struct board_cli *o, const struct rt_dut_info *info, const struct rt_board_stats *s)
{
	double slowdown = o->c.slowdown;
	double speed = s->device_s > 0 ? (double)s->ticks / s->device_s : 0;
	printf("rocetest board: %llu frames in, %llu out; %.1f us of device time in %.1f s; capture drops %llu "
	       "(buffer) %llu (interface); worst lag %lld ns; %llu harness connections\n",
	       (unsigned long long)s->frames_in, (unsigned long long)s->frames_out,
	       (double)s->ticks / info->tick_hz * 1e6, s->wall_s, (unsigned long long)s->live_dropped,
	       (unsigned long long)s->live_if_dropped, (long long)s->max_lag_ns, (unsigned long long)s->harnesses);
	printf("rocetest board: its %.3f MHz clock kept at 1/%g (%.1f kHz, its %g Gb/s MAC at %.3f Gb/s of the "
	       "wall clock); the model ran %.0f cycles/s while busy: slowdown %.0f at the least\n",
	       info->clk_hz / 1e6, slowdown, info->clk_hz / slowdown / 1e3, info->mac_gbps,
	       info->mac_gbps / slowdown, speed, speed > 0 ? info->clk_hz / speed : 0);
}

static int serve(struct board_cli *o, struct dut_device *dev)
{
	char mac[18], ip[16];
	struct rt_board_stats st;
	struct rt_error err;
	printf("rocetest board: %s on %s as %s %s, slowdown %g, control socket %s\n", dev->ops.info.name, o->c.iface,
	       rt_format_ipv4(o->c.ip, ip), rt_format_mac(o->c.mac, mac), o->c.slowdown, o->c.control);
	fflush(stdout);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o->c.stop = &stop_requested;
	if (rt_board_serve(&dev->ops, &o->c, &st, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	print_stats(o, &dev->ops.info, &st);
	return RT_EXIT_OK;
}

int cmd_board(int argc, char **argv)
{
	struct board_cli o = { .width = 512, .c.slowdown = RT_BOARD_SLOWDOWN };
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	struct rt_error err;
	if (!o.have_mac && rt_iface_hwaddr(o.c.iface, o.c.mac, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	if (!o.c.control) {
		snprintf(o.control, sizeof o.control, "/tmp/rocetest-board.%.60s.sock", o.c.iface);
		o.c.control = o.control;
	}
	struct dut_device dev;
	char msg[1024];
	struct dut_sim_request req = { .width = o.width, .lib = o.sim_lib, .seed = 1 };
	if (dut_sim_open(&req, &dev, msg, sizeof msg)) {
		cli_error("%s", msg);
		return RT_EXIT_INPUT;
	}
	rc = serve(&o, &dev);
	dut_device_close(&dev);
	return rc;
}
