/* SPDX-License-Identifier: MIT */
/* Names of the device interface's opcodes and completion statuses (dut.h). */
#include <stdio.h>

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
