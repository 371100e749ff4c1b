/* SPDX-License-Identifier: MIT */
/*
 * The goodput a perfect RoCEv2 requester reaches on an Ethernet line: what
 * `rocetest run` holds a device's throughput tests against, and the dashed
 * curves of the run report's goodput plot.
 */
#include <math.h>

#include "rocetest/run.h"

/*
 * Bytes one frame occupies on the wire, IPv4 without VLAN. The ICRC covers
 * the padded payload, so the pad counts; the 64-byte minimum is of the
 * Ethernet frame (header to FCS), before preamble and gap are added.
 */
enum {
	WIRE_PREAMBLE_SFD = 8,
	WIRE_ETH = 14,
	WIRE_IPV4 = 20,
	WIRE_UDP = 8,
	WIRE_BTH = 12,
	WIRE_RETH = 16,
	WIRE_IMMDT = 4,
	WIRE_ICRC = 4,
	WIRE_FCS = 4,
	WIRE_IFG = 12,
	WIRE_MIN_FRAME = 64,
};

static uint64_t frame_wire_bytes(uint64_t payload, bool reth, bool immdt)
{
	uint64_t pad = (4 - payload % 4) % 4;
	uint64_t frame = WIRE_ETH + WIRE_IPV4 + WIRE_UDP + WIRE_BTH + (reth ? WIRE_RETH : 0) +
			 (immdt ? WIRE_IMMDT : 0) + payload + pad + WIRE_ICRC + WIRE_FCS;
	if (frame < WIRE_MIN_FRAME)
		frame = WIRE_MIN_FRAME;
	return WIRE_PREAMBLE_SFD + frame + WIRE_IFG;
}

double rt_goodput_limit_gbps(enum rt_dut_opcode op, uint32_t msg_size, uint32_t pmtu, double line_gbps)
{
	/* No payload, no segmentation rule or no line: no goodput to speak of (and no division by zero). */
	if (!msg_size || !pmtu || !isfinite(line_gbps) || line_gbps <= 0)
		return 0;
	bool write = op == RT_DUT_WRITE || op == RT_DUT_WRITE_IMM;
	bool imm = op == RT_DUT_SEND_IMM || op == RT_DUT_WRITE_IMM;
	uint64_t packets = ((uint64_t)msg_size + pmtu - 1) / pmtu;
	uint64_t last_payload = msg_size - (packets - 1) * pmtu;
	uint64_t wire;
	if (packets == 1) {
		wire = frame_wire_bytes(msg_size, write, imm);
	} else {
		/* Closed form: a 4 GiB message at PMTU 256 is 16 M packets, all but two of them alike. */
		wire = frame_wire_bytes(pmtu, write, false) + (packets - 2) * frame_wire_bytes(pmtu, false, false) +
		       frame_wire_bytes(last_payload, false, imm);
	}
	return (double)msg_size / (double)wire * line_gbps;
}
