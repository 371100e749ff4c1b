/* SPDX-License-Identifier: MIT */
/*
 * The device interface (dut.h): the names of its opcodes and completion
 * statuses, and the check that a plugin's device has every function.
 */
#include <stdio.h>
#include <strings.h>

#include "rocetest/dut.h"

const char *rt_dut_opcode_name(enum rt_dut_opcode op)
{
	switch (op) {
	case RT_DUT_SEND: return "SEND";
	case RT_DUT_SEND_IMM: return "SEND_IMM";
	case RT_DUT_WRITE: return "WRITE";
	case RT_DUT_WRITE_IMM: return "WRITE_IMM";
	}
	return "?";
}

bool rt_dut_opcode_parse(const char *s, enum rt_dut_opcode *op)
{
	for (int k = RT_DUT_SEND; k <= RT_DUT_WRITE_IMM; k++)
		if (!strcasecmp(s, rt_dut_opcode_name((enum rt_dut_opcode)k))) {
			*op = (enum rt_dut_opcode)k;
			return true;
		}
	return false;
}

const char *rt_dut_status_name(unsigned status)
{
	static const char *const names[] = {
		[RT_DUT_SUCCESS] = "success",
		[RT_DUT_RETRY_EXCEEDED] = "retry-exceeded",
		[RT_DUT_RNR_RETRY_EXCEEDED] = "rnr-retry-exceeded",
		[RT_DUT_REMOTE_INVALID] = "remote-invalid-request",
		[RT_DUT_REMOTE_ACCESS] = "remote-access-error",
		[RT_DUT_REMOTE_OP] = "remote-operational-error",
		[RT_DUT_FLUSHED] = "flushed",
	};
	return status < sizeof names / sizeof names[0] ? names[status] : "unknown-status";
}

int rt_dut_ops_check(const struct rt_dut_ops *o, char *err, size_t errlen)
{
	const struct {
		const char *name;
		bool set;
	} fns[] = {
		{ "reset", o->reset }, { "configure", o->configure }, { "push_rx", o->push_rx },
		{ "pull_tx", o->pull_tx }, { "post_wr", o->post_wr }, { "poll_cpl", o->poll_cpl },
		{ "advance", o->advance }, { "now", o->now }, { "memory", o->memory },
		{ "counters", o->counters }, { "qp_state", o->qp_state }, { "quiet", o->quiet },
		{ "port_error", o->port_error }, { "destroy", o->destroy },
	};
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if (!fns[i].set) {
			snprintf(err, errlen, "the device leaves its %s function unset", fns[i].name);
			return -1;
		}
	}
	return 0;
}
