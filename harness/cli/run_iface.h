/* SPDX-License-Identifier: MIT */
/* `rocetest run --dut iface:NAME`: its options, opening the board, the live path's report. */
#ifndef ROCETEST_RUN_IFACE_H
#define ROCETEST_RUN_IFACE_H

#include <stdbool.h>

#include "dut_load.h"
#include "rocetest/iface.h"
#include "rocetest/run.h"

struct run_iface {
	bool on;			/* --dut iface:NAME given */
	struct rt_iface_params p;
	bool have_dut_ip;
	struct rt_run_addrs addrs;	/* what the runner gives the board, once it is open */
};

/* The options of run's getopt_long table that are hardware mode's. */
#define RUN_IFACE_OPTIONS                                                                                        \
	{ "dut-ip", required_argument, NULL, 0x101 }, { "dut-mac", required_argument, NULL, 0x102 },            \
	{ "local-ip", required_argument, NULL, 0x103 }, { "local-mac", required_argument, NULL, 0x104 },        \
	{ "board-control", required_argument, NULL, 0x105 }, { "buffer-mib", required_argument, NULL, 0x106 }

/* The usage text's lines for them. */
extern const char run_iface_help[];

/* Takes "iface:NAME" of --dut (1 when it is one, 0 when not, 2 on a usage error). */
int run_iface_dut(struct run_iface *ri, const char *arg);
/* One of RUN_IFACE_OPTIONS: 0, or RT_EXIT_INPUT after a usage error; -1 when c is not one of them. */
int run_iface_option(struct run_iface *ri, int c, const char *arg);
/* After parsing: 0, or RT_EXIT_INPUT when hardware mode's options do not fit together. */
int run_iface_finish(struct run_iface *ri, bool sim_options);
/* Opens the board as dev (dev->handle stays NULL); 0 or -1 with msg. */
int run_iface_open(struct run_iface *ri, struct dut_device *dev, char *msg, size_t size);
/* One line on the live path: frames, pcap_stats drops, timestamps, the board's slowdown and lag. */
void run_iface_report(const struct rt_run_live *t);

#endif
