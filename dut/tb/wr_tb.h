// SPDX-License-Identifier: MIT
// A work request as the benches post it, and driving it onto the native WR
// port (s_wr_*) that roce_req and roce_endpoint share.
#ifndef ROCETEST_WR_TB_H
#define ROCETEST_WR_TB_H

#include <cstdint>

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
template <class Top> void drive_wr(Top *top, const Wr &w)
{
	top->s_wr_valid = 1;
	top->s_wr_qp = (uint8_t)w.qp;
	top->s_wr_opcode = (uint8_t)w.op;
	top->s_wr_local_addr = w.laddr;
	top->s_wr_length = w.len;
	top->s_wr_remote_va = w.rva;
	top->s_wr_rkey = w.rkey;
	top->s_wr_imm = w.imm;
	top->s_wr_wr_id = w.id;
}

#endif
