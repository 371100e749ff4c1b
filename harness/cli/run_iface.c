/* SPDX-License-Identifier: MIT */
/* `rocetest run --dut iface:NAME`: a board behind a network interface (rocetest/iface.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "run_iface.h"

const char run_iface_help[] =
	"  --dut iface:NAME  a board behind network interface NAME: the harness is its\n"
	"                    peer there (libpcap capture and injection; needs\n"
	"                    CAP_NET_RAW: root, or setcap cap_net_raw,cap_net_admin+ep)\n"
	"  --board-control PATH  the board's control socket (rocetest board --control):\n"
	"                    reset, work requests, completions, memory, counters\n"
	"  --dut-ip A        the board's IPv4 address (required with iface:)\n"
	"  --dut-mac M       its MAC address (default: asked by ARP)\n"
	"  --local-ip B      the harness's address on the interface (default 10.0.1.100;\n"
	"                    one the kernel does not have there)\n"
	"  --local-mac M     the harness's MAC (default: the interface's)\n"
	"  --buffer-mib N    the capture buffer (default 64)\n";

int run_iface_dut(struct run_iface *ri, const char *arg)
{
	if (strncmp(arg, "iface:", 6))
		return 0;
	if (!arg[6]) {
		cli_usage_error("run", "--dut iface: needs an interface name (iface:eth1)");
		return 2;
	}
	ri->on = true;
	ri->p.iface = arg + 6;
	return 1;
}

int run_iface_option(struct run_iface *ri, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 0x101:
		if (!rt_parse_ipv4(arg, &ri->p.dut_ip))
			return cli_usage_error("run", "--dut-ip needs an IPv4 address, not '%s'", arg);
		ri->have_dut_ip = true;
		return 0;
	case 0x102:
		if (!rt_parse_mac(arg, ri->p.dut_mac))
			return cli_usage_error("run", "--dut-mac needs a MAC address such as 02:00:00:00:00:01, not '%s'", arg);
		ri->p.have_dut_mac = true;
		return 0;
	case 0x103:
		if (!rt_parse_ipv4(arg, &ri->p.local_ip))
			return cli_usage_error("run", "--local-ip needs an IPv4 address, not '%s'", arg);
		return 0;
	case 0x104:
		if (!rt_parse_mac(arg, ri->p.local_mac))
			return cli_usage_error("run", "--local-mac needs a MAC address such as 02:00:00:00:ab:00, not '%s'",
					       arg);
		ri->p.have_local_mac = true;
		return 0;
	case 0x105:
		ri->p.control = arg;
		return 0;
	case 0x106:
		if (!cli_parse_uint(arg, 4096, &v) || v < 1)
			return cli_usage_error("run", "--buffer-mib needs 1 to 4096, not '%s'", arg);
		ri->p.buffer_mib = (unsigned)v;
		return 0;
	}
	return -1;
}

int run_iface_finish(struct run_iface *ri, bool sim_options)
{
	bool any = ri->have_dut_ip || ri->p.have_dut_mac || ri->p.local_ip || ri->p.have_local_mac || ri->p.control ||
		   ri->p.buffer_mib;
	if (!ri->on)
		return any ? cli_usage_error("run", "--dut-ip, --dut-mac, --local-ip, --local-mac, --board-control and "
						    "--buffer-mib are for --dut iface:NAME") : 0;
	if (sim_options)
		return cli_usage_error("run", "--width and --sim-lib are for --dut sim; a board is what it is");
	if (!ri->have_dut_ip)
		return cli_usage_error("run", "--dut iface:%s needs --dut-ip (the board's address)", ri->p.iface);
	if (!ri->p.control)
		return cli_usage_error("run", "--dut iface:%s needs --board-control PATH: the runner posts work, reads "
				       "completions and the board's memory through it (rocetest board serves one; "
				       "a board without one can be driven with rocetest cm and its captures checked "
				       "with rocetest check)", ri->p.iface);
	if (!ri->p.local_ip) {
		struct rt_run_addrs d;
		rt_run_addrs_default(&d);
		ri->p.local_ip = d.host_ip;
	}
	return 0;
}

int run_iface_open(struct run_iface *ri, struct dut_device *dev, char *msg, size_t size)
{
	struct rt_error err;
	memset(dev, 0, sizeof *dev);
	if (rt_iface_dut_open(&ri->p, &dev->ops, &err)) {
		snprintf(msg, size, "%s", err.msg);
		return -1;
	}
	snprintf(dev->path, sizeof dev->path, "iface:%s", ri->p.iface);
	rt_iface_dut_addrs(&dev->ops, &ri->addrs);
	return 0;
}

void run_iface_report(const struct rt_run_live *t)
{
	printf("rocetest run: live path %s: %llu frames from the board, %llu to it; pcap_stats drops %llu (buffer), "
	       "%llu (interface); %s timestamps; board slowdown %g, worst lag %lld ns of its time\n",
	       t->iface, (unsigned long long)t->frames_in, (unsigned long long)t->frames_out,
	       (unsigned long long)t->dropped, (unsigned long long)t->if_dropped, t->tstamp, t->slowdown,
	       (long long)t->max_lag_ns);
}
