/* SPDX-License-Identifier: MIT */
/*
 * Packet sequences for the flow rule tests: two endpoints A (10.0.0.1,
 * QP 0x11) and B (10.0.0.2, QP 0x22) exchange built packets with valid
 * ICRCs, fed to a real checker frame by frame; every violation is recorded
 * with its rule and frame.
 */
#ifndef ROCETEST_UNIT_FLOW_SEQ_H
#define ROCETEST_UNIT_FLOW_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/checker.h"

enum { SEQ_A = 0, SEQ_B = 1 };	/* who sends: A->B or B->A */

/* Opcodes written out from wire-facts.md, not taken from the library under test. */
enum {
	SEND_FIRST = 0x00,
	SEND_MIDDLE = 0x01,
	SEND_LAST = 0x02,
	SEND_LAST_IMM = 0x03,
	SEND_ONLY = 0x04,
	SEND_ONLY_IMM = 0x05,
	WRITE_FIRST = 0x06,
	WRITE_MIDDLE = 0x07,
	WRITE_LAST = 0x08,
	WRITE_LAST_IMM = 0x09,
	WRITE_ONLY = 0x0A,
	WRITE_ONLY_IMM = 0x0B,
	READ_REQ = 0x0C,
	READ_FIRST = 0x0D,
	READ_MIDDLE = 0x0E,
	READ_LAST = 0x0F,
	READ_ONLY = 0x10,
	ACK = 0x11,
	ATOMIC_ACK = 0x12,
	CMP_SWAP = 0x13,
	FETCH_ADD = 0x14,
	UC = 0x20,		/* UC opcode = UC + the RC low bits */
	UD_SEND_ONLY = 0x64,
	CNP = 0x81,
};


#define SEQ_MAX_RECORDED 64

struct seq_violation {
	enum rt_rule rule;
	uint64_t frame;
	uint32_t flow;
	char message[256];
};

struct seq {
	struct rt_check_config cfg;	/* set options before the first packet */
	struct rt_checker *c;
	uint64_t frame;			/* frame number of the last packet sent */
	int64_t ts_ns;			/* time of the next packet; seq_pkt adds 1 us after each */
	struct seq_violation v[SEQ_MAX_RECORDED];
	unsigned nv;
};

/* Extra fields of one packet; all zero means: no AckReq, AETH ACK 0x1F MSN 0, payload of 0xA5 bytes. */
struct seq_opt {
	bool ack_req;
	uint8_t syndrome;	/* AETH syndrome (0 means 0x1F, an ACK with unlimited credits) */
	uint32_t msn;
	uint32_t dma_len;	/* RETH DMA length */
	uint64_t va;		/* RETH / AtomicETH virtual address */
	bool bad_icrc;
	uint8_t fill;		/* payload byte (0 means 0xA5) */
	uint8_t pad_count;	/* 0: computed */
	bool becn;		/* BTH BECN (a CNP sets it) */
	bool zero_payload;	/* payload bytes 0 instead of fill (a CNP's 16 reserved bytes) */
	uint32_t caplen;	/* bytes captured (a snap length); 0: the whole frame */
};

void seq_init(struct seq *s);
/* Sends one packet; opt may be NULL. Returns its frame number. */
uint64_t seq_pkt(struct seq *s, int from, uint8_t opcode, uint32_t psn, uint32_t payload_len, const struct seq_opt *opt);
/* Advances the clock by us microseconds. */
void seq_wait_us(struct seq *s, double us);
/* Ends the capture (rt_checker_finish). */
void seq_finish(struct seq *s);
/* Violations of rule recorded so far, and whether one is at frame. */
unsigned seq_count(const struct seq *s, enum rt_rule rule);
bool seq_has(const struct seq *s, enum rt_rule rule, uint64_t frame);
/* Violations of any rule other than `rule` (-1: all). */
unsigned seq_others(const struct seq *s, int rule);
/* Times rule was checked (passed or failed) and not evaluated. */
uint64_t seq_checked(const struct seq *s, enum rt_rule rule);
uint64_t seq_not_evaluated(const struct seq *s, enum rt_rule rule);
/* Prints the recorded violations (for failing tests). */
void seq_dump(const struct seq *s);
void seq_free(struct seq *s);

#endif
