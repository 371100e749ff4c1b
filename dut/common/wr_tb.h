// SPDX-License-Identifier: MIT
// A work request as the benches post it, and driving it onto the native WR
// port (s_wr_*) that roce_req and roce_endpoint share; the benches and the
// model of dut/sim use it (dut/common).
#ifndef ROCETEST_WR_TB_H
#define ROCETEST_WR_TB_H

#include <cstdint>

extern "C" {
#include "rocetest/dut.h"
}

struct Wr {
	int qp;
	int op;			// 0 SEND, 1 SEND_IMM, 2 WRITE, 3 WRITE_IMM
	uint64_t laddr;
	uint32_t len;
	uint64_t rva;
	uint32_t rkey;
	uint32_t imm;
	uint64_t id;
	int expect;		// completion status
};

// Presents w on the WR port (valid set); the caller clears s_wr_valid when it has none.
template <class Top> void drive_wr(Top *top, const rt_dut_wr &w)
{
	top->s_wr_valid = 1;
	top->s_wr_qp = (uint8_t)w.qp;
	top->s_wr_opcode = w.opcode;
	top->s_wr_local_addr = w.local_addr;
	top->s_wr_length = w.length;
	top->s_wr_remote_va = w.remote_va;
	top->s_wr_rkey = w.rkey;
	top->s_wr_imm = w.imm;
	top->s_wr_wr_id = w.wr_id;
}

template <class Top> void drive_wr(Top *top, const Wr &w)
{
	rt_dut_wr d = { (uint32_t)w.qp, (uint8_t)w.op, w.laddr, w.len, w.rva, w.rkey, w.imm, w.id };
	drive_wr(top, d);
}

#endif
