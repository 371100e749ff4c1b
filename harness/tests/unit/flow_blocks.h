/* SPDX-License-Identifier: MIT */
/*
 * Building blocks and assertions for the flow rule tests that follow one
 * requester (A) and its responder (B): packets as rxe sends them, and
 * "exactly this violation at this frame" checks that print what was
 * recorded when they fail.
 */
#ifndef ROCETEST_UNIT_FLOW_BLOCKS_H
#define ROCETEST_UNIT_FLOW_BLOCKS_H

#include <check.h>

#include "flow_seq.h"
#include "rocetest/checker.h"
#include "rocetest/rules.h"

/* AETH syndromes used below (opcodes: flow_seq.h). */
enum {
	SYN_NAK_SEQ = 0x60,
	SYN_NAK_INVALID = 0x61,
	SYN_NAK_ACCESS = 0x62,
	SYN_NAK_OPERATIONAL = 0x63,
};
#define SYN_RNR(code) ((uint8_t)(0x20 | (code)))

#define PAYLOAD 16u		/* SEND Only payload: well under any PMTU */
#define TIMEOUT_WAIT_US 1000.0	/* long enough to be a local ACK timeout when none is configured */

/* ---- building blocks ---------------------------------------------------- */

/* SEND Only with AckReq, as rxe sends it (REQ-ACKREQ stays quiet). */
static inline uint64_t send_only(struct seq *s, int from, uint32_t psn)
{
	return seq_pkt(s, from, SEND_ONLY, psn, PAYLOAD, &(struct seq_opt){ .ack_req = true });
}

static inline uint64_t send_fill(struct seq *s, uint32_t psn, uint8_t fill)
{
	return seq_pkt(s, SEQ_A, SEND_ONLY, psn, PAYLOAD, &(struct seq_opt){ .ack_req = true, .fill = fill });
}

/* B answers A: an AETH-only packet (ACK, NAK, RNR NAK). */
static inline uint64_t aeth(struct seq *s, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
	return seq_pkt(s, SEQ_B, ACK, psn, 0, &(struct seq_opt){ .syndrome = syndrome, .msn = msn });
}

static inline uint64_t ack(struct seq *s, uint32_t psn, uint32_t msn)
{
	return aeth(s, 0x1F, psn, msn);
}

static inline uint64_t read_req(struct seq *s, uint32_t psn, uint32_t len)
{
	return seq_pkt(s, SEQ_A, READ_REQ, psn, 0, &(struct seq_opt){ .dma_len = len, .va = 0x1000 });
}

static inline uint64_t read_resp(struct seq *s, uint8_t opcode, uint32_t psn, uint32_t len, uint32_t msn, uint8_t fill)
{
	return seq_pkt(s, SEQ_B, opcode, psn, len, &(struct seq_opt){ .msn = msn, .fill = fill });
}

/* ---- assertions ------------------------------------------------------------ */

/* Exactly one violation: `rule` at `frame`. The recorded list is printed when not. */
#define ASSERT_ONLY(s, rule, frame)                                                                  \
	do {                                                                                         \
		if (!seq_has(&(s), RT_RULE_##rule, frame) || seq_count(&(s), RT_RULE_##rule) != 1 || \
		    seq_others(&(s), RT_RULE_##rule) != 0)                                           \
			seq_dump(&(s));                                                              \
		ck_assert_msg(seq_has(&(s), RT_RULE_##rule, frame), #rule " not reported at frame %llu", \
			      (unsigned long long)(frame));                                          \
		ck_assert_uint_eq(seq_count(&(s), RT_RULE_##rule), 1);                               \
		ck_assert_uint_eq(seq_others(&(s), RT_RULE_##rule), 0);                              \
	} while (0)

/* Exactly two violations, where one fault of each side is unavoidable. */
#define ASSERT_TWO(s, rule1, frame1, rule2, frame2)                                                  \
	do {                                                                                         \
		if (!seq_has(&(s), RT_RULE_##rule1, frame1) || !seq_has(&(s), RT_RULE_##rule2, frame2) || \
		    seq_others(&(s), -1) != 2)                                                       \
			seq_dump(&(s));                                                              \
		ck_assert_msg(seq_has(&(s), RT_RULE_##rule1, frame1), #rule1 " not reported at frame %llu", \
			      (unsigned long long)(frame1));                                         \
		ck_assert_msg(seq_has(&(s), RT_RULE_##rule2, frame2), #rule2 " not reported at frame %llu", \
			      (unsigned long long)(frame2));                                         \
		ck_assert_uint_eq(seq_others(&(s), -1), 2);                                          \
	} while (0)

#define ASSERT_CLEAN(s)                                                     \
	do {                                                                \
		if (seq_others(&(s), -1))                                   \
			seq_dump(&(s));                                     \
		ck_assert_uint_eq(seq_others(&(s), -1), 0);                 \
	} while (0)

/* The rule was judged (passed) at least once: the near miss really reached it. */
#define ASSERT_CHECKED(s, rule) ck_assert_uint_ge(seq_checked(&(s), RT_RULE_##rule), 1)
#define ASSERT_NOT_EVALUATED(s, rule) ck_assert_uint_ge(seq_not_evaluated(&(s), RT_RULE_##rule), 1)

#endif
