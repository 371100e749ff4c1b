/* SPDX-License-Identifier: MIT */
/* rocetest: a RoCEv2 packet-level conformance and interop test harness. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef ROCETEST_VERSION
#define ROCETEST_VERSION "dev"
#endif

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "show", cmd_show, "print every packet of a capture, one line (or JSON object) per frame" },
	{ "icrc", cmd_icrc, "verify (or recompute with --fix) the ICRC of every RoCE packet" },
	{ "check", cmd_check, "check captures against the conformance rules; summary and JSON/JUnit/HTML reports" },
	{ "gen", cmd_gen, "run a scenario through the reference model: golden capture and expected verdict" },
	{ "run", cmd_run, "run the conformance suites against a device (--dut sim: the model of dut/; --dut iface:NAME: a board)" },
	{ "board", cmd_board, "the Verilator model of dut/ as a virtual board on a network interface" },
	{ "cm", cmd_cm, "send the CM frames of cm-frame.md to a board and print its replies" },
	{ "peer", cmd_peer, "the host side of a board on an RDMA NIC (libibverbs): connect, take its traffic, check it" },
	{ "diff", cmd_diff, "semantic diff of two captures of the same work: messages, not bytes" },
	{ "gate", cmd_gate, "compare a run or check result with a baseline: fails on regressions (release gate)" },
	{ "report", cmd_report, "the reports of a conformance run (JSON, JUnit, HTML) for a results file (the interop lab's)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: rocetest COMMAND [OPTIONS] [ARGS]\n\n"
		     "RoCEv2 packet-level conformance and interop test harness.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'rocetest COMMAND --help' describes one command.\n\n"
		     "Exit status: 0 conformant, 1 violations found, 2 usage or input error.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RT_EXIT_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return RT_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("rocetest %s\n", ROCETEST_VERSION);
		return RT_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error("unknown command '%s'", cmd);
	usage(stderr);
	return RT_EXIT_INPUT;
}
