/* SPDX-License-Identifier: MIT */
/*
 * SEQ rules and flow-level behaviour of the checker (checker.c,
 * check_flow.c, check_seq.c). For each rule: packet sequences that break
 * it, each reported at the exact frame with nothing else reported, and near
 * misses that look like a break but are legal. Then how flows are formed
 * and noted (pairing, PMTU inference, captures that start or end
 * mid-message, UD, CNP), and the shared real captures, which must give no
 * error.
 *
 * Sequences come from flow_seq.h: A (side 0, the requester unless a test says
 * otherwise) and B exchange built packets with valid ICRCs. Every Last/Only
 * SEND/WRITE on RC carries AckReq, so the REQ-ACKREQ warning stays silent,
 * and every AETH carries the MSN a conformant responder would send, so
 * SEQ-MSN stays silent unless the test is about it.
 */
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "flow_seq.h"
#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "suites.h"
#include "test_util.h"

/* AETH syndromes. */
enum {
	SYN_ACK = 0x1F,		/* ACK, credits not limited */
	SYN_ACK_CREDITS_5 = 0x05,	/* ACK with a real credit count, as ConnectX sends */
	SYN_RNR_14 = 0x2E,	/* RNR NAK, timer code 14 */
	SYN_NAK_SEQ = 0x60,
};

/* Options of one packet, as compound literals. */
#define AR (&(struct seq_opt){ .ack_req = true })
#define DMA(n) (&(struct seq_opt){ .dma_len = (n) })
#define DMA_AR(n) (&(struct seq_opt){ .dma_len = (n), .ack_req = true })
#define MSN(n) (&(struct seq_opt){ .msn = (n) })
#define AETH(syn, n) (&(struct seq_opt){ .syndrome = (syn), .msn = (n) })
#define ATOMIC_VA (&(struct seq_opt){ .va = 0x1000 })	/* 8-byte aligned: PKT-ATOMIC-ALIGN holds */

typedef unsigned long long ull;

/* The sequence broke `rule` once, at `frame`, and nothing else was reported (errors or warnings). */
#define ASSERT_ONLY(s, rule, frame)                                                                      \
	do {                                                                                             \
		if (!seq_has((s), (rule), (frame)) || seq_count((s), (rule)) != 1 || seq_others((s), (rule))) { \
			fprintf(stderr, "%s: wanted %s at frame %llu only; got:\n", __func__,            \
				rt_rule_info(rule)->id, (ull)(frame));                                   \
			seq_dump(s);                                                                     \
		}                                                                                        \
		ck_assert_msg(seq_has((s), (rule), (frame)), "%s not reported at frame %llu",             \
			      rt_rule_info(rule)->id, (ull)(frame));                                      \
		ck_assert_uint_eq(seq_count((s), (rule)), 1);                                             \
		ck_assert_uint_eq(seq_others((s), (rule)), 0);                                            \
	} while (0)

/* Nothing reported, and `rule` was actually judged (a silent rule that never ran proves nothing). */
#define ASSERT_CLEAN(s, rule)                                              \
	do {                                                               \
		if (seq_others((s), -1)) {                                 \
			fprintf(stderr, "%s: wanted no violation; got:\n", __func__); \
			seq_dump(s);                                       \
		}                                                          \
		ck_assert_uint_eq(seq_others((s), -1), 0);                 \
		ck_assert_uint_ge(seq_checked((s), (rule)), 1);            \
	} while (0)

static void start(struct seq *s, uint32_t pmtu)
{
	seq_init(s);
	s->cfg.pmtu = pmtu;
}

static const struct rt_flow_info *flow(const struct seq *s, size_t i)
{
	const struct rt_flow_info *f = rt_checker_flow(s->c, i);
	ck_assert_ptr_nonnull(f);
	return f;
}

static bool has_note(const struct rt_flow_info *f, const char *needle)
{
	for (uint32_t i = 0; i < f->note_count; i++)
		if (strstr(f->notes[i], needle))
			return true;
	return false;
}

static void dump_notes(const struct rt_flow_info *f)
{
	for (uint32_t i = 0; i < f->note_count; i++)
		fprintf(stderr, "  note: %s\n", f->notes[i]);
}

/* A CNP from B to A's QP (the one being throttled): BECN 1, PSN 0, 16 zero bytes (PKT-CNP holds). */
static uint64_t cnp_from_b(struct seq *s)
{
	ck_assert_ptr_nonnull(s->c);	/* a CNP is never the first packet of these tests */
	return seq_pkt(s, SEQ_B, CNP, 0, 16, &(struct seq_opt){ .becn = true, .zero_payload = true });
}

/* ==== SEQ-PSN ======================================================================== */

/* A skipped PSN that nothing explains (no NAK, never resent) is judged at the end: a skip. */
START_TEST(psn_gap_never_explained_is_seq_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t jump = seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);	/* PSN 2 never sent */
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PSN, jump);
	seq_free(&s);
}
END_TEST

/*
 * PSN 2 is skipped and the responder acknowledges past it, with no other
 * sign in the capture that it drops packets. check_flow.c's own policy says
 * "acknowledged though never sent" is a skip (gap_judge has a message for
 * exactly this case), so SEQ-PSN is due at the jump.
 */
START_TEST(psn_gap_acknowledged_is_seq_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t jump = seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(2));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PSN, jump);
	seq_free(&s);
}
END_TEST

/* A READ of 3000 bytes at PMTU 1024 takes PSNs 10..12: the next request must be 13, not 14. */
START_TEST(psn_gap_after_read_span_is_seq_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, MSN(1));
	uint64_t jump = seq_pkt(&s, SEQ_A, SEND_ONLY, 14, 16, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PSN, jump);
	seq_free(&s);
}
END_TEST

/* UC has no retransmission: a PSN that goes back is wrong at once. */
START_TEST(uc_psn_going_back_is_seq_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UC | SEND_ONLY, 10, 16, NULL);
	uint64_t back = seq_pkt(&s, SEQ_A, UC | SEND_ONLY, 9, 16, NULL);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PSN, back);
	seq_free(&s);
}
END_TEST

/* 0xFFFFFF -> 0 is the next PSN, and one coalesced ACK for 0 covers both sides of the wrap. */
START_TEST(psn_wrap_is_not_a_gap)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0xFFFFFE, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 0xFFFFFE, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0xFFFFFF, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(4));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_PSN), 3);
	seq_free(&s);
}
END_TEST

/* After a READ of N responses the next request is p + N. */
START_TEST(psn_after_read_advances_by_response_count)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 13, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 13, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	seq_free(&s);
}
END_TEST

/*
 * The ACK of PSNs 1..2 is lost; after its local ACK timeout the requester
 * resends from 1. Going back is a retransmission, not a PSN error.
 */
START_TEST(psn_timeout_retransmission_is_not_a_gap)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_wait_us(&s, 20000);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	ck_assert_uint_eq(flow(&s, 0)->retransmissions, 2);
	seq_free(&s);
}
END_TEST

/*
 * PSN 2 lost before the capture point: the responder NAKs for it and the
 * requester goes back to it. Not a skip; the flow is noted instead.
 */
START_TEST(psn_gap_explained_by_nak_is_a_note)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, AETH(SYN_NAK_SEQ, 1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(3));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	const struct rt_flow_info *f = flow(&s, 0);
	if (!has_note(f, "lost before the capture point"))
		dump_notes(f);
	ck_assert(has_note(f, "lost before the capture point"));
	seq_free(&s);
}
END_TEST

/*
 * Two losses before the capture point already proved this capture drops
 * packets of the stream; a third gap that nothing explains is one more
 * drop, a note, not a skip.
 */
START_TEST(psn_gap_in_lossy_capture_is_a_note)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, AETH(SYN_NAK_SEQ, 1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(3));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 6, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 5, 0, AETH(SYN_NAK_SEQ, 4));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 5, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 6, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 6, 0, MSN(6));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 7, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 9, 16, AR);	/* PSN 8: third gap, capture ends */
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	ck_assert(has_note(flow(&s, 0), "acknowledged requests the capture does not hold"));
	seq_free(&s);
}
END_TEST

/* ==== SEQ-OPCODE ===================================================================== */

START_TEST(opcode_write_inside_send_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	uint64_t bad = seq_pkt(&s, SEQ_A, WRITE_ONLY, 2, 16, DMA_AR(16));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_OPCODE, bad);
	seq_free(&s);
}
END_TEST

START_TEST(opcode_read_inside_write_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 1, 1024, DMA(2048));
	uint64_t bad = seq_pkt(&s, SEQ_A, READ_REQ, 2, 0, DMA(100));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_OPCODE, bad);
	seq_free(&s);
}
END_TEST

/* A second First while the first message is open: the first one never ended. */
START_TEST(opcode_first_while_message_open)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_FIRST, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 3, 100, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_OPCODE, bad);
	seq_free(&s);
}
END_TEST

/* The Last of another family does not close a WRITE. */
START_TEST(opcode_send_last_closing_write)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 1, 1024, DMA(1124));
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_LAST, 2, 100, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_OPCODE, bad);
	seq_free(&s);
}
END_TEST

/* Every legal shape: First/Middle/Last with and without Immediate, Only forms, a READ between messages. */
START_TEST(opcode_legal_messages_of_every_shape)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST_IMM, 3, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(1));
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 4, 1024, DMA(2148));
	seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 5, 1024, NULL);
	seq_pkt(&s, SEQ_A, WRITE_LAST_IMM, 6, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 6, 0, MSN(2));
	seq_pkt(&s, SEQ_A, READ_REQ, 7, 0, DMA(8));
	seq_pkt(&s, SEQ_B, READ_ONLY, 7, 8, MSN(3));
	seq_pkt(&s, SEQ_A, SEND_ONLY_IMM, 8, 12, AR);
	seq_pkt(&s, SEQ_A, WRITE_ONLY_IMM, 9, 20, DMA_AR(20));
	seq_pkt(&s, SEQ_B, ACK, 9, 0, MSN(5));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_OPCODE);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-NO-FIRST =================================================================== */

/* A Middle after a completed message, in the middle of a capture (not at its start). */
START_TEST(no_first_middle_after_completed_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 3, 100, AR);	/* follows the orphan: not a second violation */
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_NO_FIRST, bad);
	seq_free(&s);
}
END_TEST

START_TEST(no_first_write_last_without_first)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, WRITE_ONLY, 1, 8, DMA_AR(8));
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_A, WRITE_LAST, 2, 100, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_NO_FIRST, bad);
	seq_free(&s);
}
END_TEST

/*
 * Go-back-N resumes a partly acknowledged message with its Middle and Last
 * (wire-facts.md): Middle PSN 3 was lost before the capture point, the
 * responder NAKs PSN 3, the requester resends Middle 3 and Last 4.
 */
START_TEST(no_first_go_back_n_resumes_mid_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 4, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, AETH(SYN_NAK_SEQ, 0));
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 3, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 4, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(1));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_NO_FIRST);
	ck_assert_uint_eq(seq_count(&s, RT_RULE_SEQ_PSN), 0);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-WRITE-LENGTH ================================================================ */

START_TEST(write_length_multi_packet_short)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 1, 1024, DMA(3000));
	seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 2, 1024, NULL);
	uint64_t last = seq_pkt(&s, SEQ_A, WRITE_LAST, 3, 900, AR);	/* 2948 of 3000 */
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_WRITE_LENGTH, last);
	seq_free(&s);
}
END_TEST

START_TEST(write_length_only_mismatch)
{
	struct seq s;
	start(&s, 1024);
	uint64_t only = seq_pkt(&s, SEQ_A, WRITE_ONLY, 1, 64, DMA_AR(100));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_WRITE_LENGTH, only);
	seq_free(&s);
}
END_TEST

/* 1024 + 1024 + 952 = 3000; a zero-length WRITE Only with DMA length 0; WRITE Only with Immediate. */
START_TEST(write_length_matches)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 1, 1024, DMA(3000));
	seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, WRITE_LAST, 3, 952, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(1));
	seq_pkt(&s, SEQ_A, WRITE_ONLY, 4, 0, DMA_AR(0));
	seq_pkt(&s, SEQ_A, WRITE_ONLY_IMM, 5, 20, DMA_AR(20));
	seq_pkt(&s, SEQ_B, ACK, 5, 0, MSN(3));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_WRITE_LENGTH);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_WRITE_LENGTH), 3);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-PMTU-CONSISTENT ============================================================ */

/* No --pmtu: the first First infers 1024, a later message's First of 2048 contradicts it. */
START_TEST(pmtu_first_size_changes_between_messages)
{
	struct seq s;
	start(&s, 0);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 2, 10, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_FIRST, 3, 2048, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 4, 10, AR);
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(2));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PMTU_CONSISTENT, bad);
	seq_free(&s);
}
END_TEST

START_TEST(pmtu_middle_differs_within_message)
{
	struct seq s;
	start(&s, 0);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 1, 1024, DMA(1636));
	uint64_t bad = seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 2, 512, NULL);
	seq_pkt(&s, SEQ_A, WRITE_LAST, 3, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PMTU_CONSISTENT, bad);
	seq_free(&s);
}
END_TEST

/* 1000 bytes is no path MTU at all, even as the first First/Middle seen. */
START_TEST(pmtu_first_not_a_path_mtu)
{
	struct seq s;
	start(&s, 0);
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1000, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 2, 10, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PMTU_CONSISTENT, bad);
	seq_free(&s);
}
END_TEST

/*
 * The responder's READ responses are First/Middle packets of its direction
 * too: B answers one READ with 1024-byte Firsts and the next with a 2048-byte
 * First. Both READs are outstanding before any response, so with no --pmtu
 * both response counts are plausible and SEQ-READ-RESPONSE holds; only the
 * size change is wrong. checker.c skips PKT-LEN-FIRST-MIDDLE on such a packet
 * because "SEQ-PMTU-CONSISTENT reports the disagreement".
 */
START_TEST(pmtu_read_responses_change_size)
{
	struct seq s;
	start(&s, 0);
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(2048));
	seq_pkt(&s, SEQ_A, READ_REQ, 3, 0, DMA(2148));
	seq_pkt(&s, SEQ_B, READ_FIRST, 1, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_LAST, 2, 1024, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_FIRST, 3, 2048, MSN(2));
	seq_pkt(&s, SEQ_B, READ_LAST, 4, 100, MSN(2));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PMTU_CONSISTENT, bad);
	seq_free(&s);
}
END_TEST

/* SEQ rules are per direction (rules.md): A sends at 1024, B at 2048; Last/Only may be shorter. */
START_TEST(pmtu_each_direction_has_its_own)
{
	struct seq s;
	start(&s, 0);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 3, 10, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(1));
	seq_pkt(&s, SEQ_B, SEND_FIRST, 100, 2048, NULL);
	seq_pkt(&s, SEQ_B, SEND_LAST, 101, 2048, AR);
	seq_pkt(&s, SEQ_A, ACK, 101, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 700, AR);
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PMTU_CONSISTENT);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_PMTU_CONSISTENT), 3);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-READ-RESPONSE ============================================================== */

/* READ of 2500 at PMTU 1024 wants 1024 + 1024 + 452; it gets 3072 bytes. */
START_TEST(read_response_wrong_total)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(2500));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	uint64_t last = seq_pkt(&s, SEQ_B, READ_LAST, 12, 1024, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_RESPONSE, last);
	seq_free(&s);
}
END_TEST

START_TEST(read_response_starts_with_middle)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(2048));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_MIDDLE, 10, 1024, NULL);
	seq_pkt(&s, SEQ_B, READ_LAST, 11, 1024, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_RESPONSE, bad);
	seq_free(&s);
}
END_TEST

START_TEST(read_response_second_first)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_FIRST, 11, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_RESPONSE, bad);
	seq_free(&s);
}
END_TEST

/* A READ response for PSN 10, which was a SEND. */
START_TEST(read_response_without_read)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 10, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 10, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_ONLY, 10, 4, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_RESPONSE, bad);
	seq_free(&s);
}
END_TEST

/*
 * READ of 3000 at PMTU 1024 needs exactly 3 responses (PSNs 10..12); B
 * sends a Middle at 12, where the Last was due (already 3072 bytes of
 * 3000), and a Last at 13. The violation is certain at PSN 12; judging at
 * the stray Last is acceptable too. The Last at 13 also answers a PSN the
 * requester never sent, so SEQ-ACK-AHEAD may accompany it.
 */
START_TEST(read_response_too_many_packets)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	uint64_t middle = seq_pkt(&s, SEQ_B, READ_MIDDLE, 12, 1024, NULL);
	uint64_t last = seq_pkt(&s, SEQ_B, READ_LAST, 13, 100, MSN(1));
	seq_finish(&s);
	bool reported = seq_has(&s, RT_RULE_SEQ_READ_RESPONSE, middle) || seq_has(&s, RT_RULE_SEQ_READ_RESPONSE, last);
	unsigned others = seq_others(&s, RT_RULE_SEQ_READ_RESPONSE) - seq_count(&s, RT_RULE_SEQ_ACK_AHEAD);
	if (!reported || others) {
		fprintf(stderr, "%s: unexpected violations:\n", __func__);
		seq_dump(&s);
	}
	ck_assert_msg(reported, "SEQ-READ-RESPONSE not reported at frame %llu or %llu", (ull)middle, (ull)last);
	ck_assert_uint_eq(others, 0);
	seq_free(&s);
}
END_TEST

/* wire-facts.md: a READ of L at PSN p takes ceil(L / PMTU) PSNs; 3000 at 1024 is 1024 + 1024 + 952. */
START_TEST(read_3000_at_1024_first_middle_last)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, MSN(1));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_READ_RESPONSE);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_READ_RESPONSE), 1);
	seq_free(&s);
}
END_TEST

/* max(1, ceil(0 / PMTU)) = 1: a zero-length READ gets one empty Only. */
START_TEST(read_of_zero_bytes_gets_one_only)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(0));
	seq_pkt(&s, SEQ_B, READ_ONLY, 10, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 11, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 11, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_READ_RESPONSE);
	seq_free(&s);
}
END_TEST

/* Two READs and a SEND in flight at once, answered in order; the ACK of the SEND follows the READs. */
START_TEST(read_pipelined_reads)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, DMA(3000));
	seq_pkt(&s, SEQ_A, READ_REQ, 13, 0, DMA(100));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 14, 16, AR);
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, MSN(1));
	seq_pkt(&s, SEQ_B, READ_MIDDLE, 11, 1024, NULL);
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, MSN(1));
	seq_pkt(&s, SEQ_B, READ_ONLY, 13, 100, MSN(2));
	seq_pkt(&s, SEQ_B, ACK, 14, 0, MSN(3));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_READ_RESPONSE);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_READ_RESPONSE), 2);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-READ-AETH ================================================================== */

/*
 * The opcode table puts an AETH exactly on First, Last and Only, so a
 * missing or extra AETH cannot be built; what can break is its type.
 */
START_TEST(read_aeth_nak_on_only)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(100));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_ONLY, 1, 100, AETH(SYN_NAK_SEQ, 1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_AETH, bad);
	seq_free(&s);
}
END_TEST

START_TEST(read_aeth_rnr_on_first)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(2048));
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_FIRST, 1, 1024, AETH(SYN_RNR_14, 1));
	seq_pkt(&s, SEQ_B, READ_LAST, 2, 1024, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_AETH, bad);
	seq_free(&s);
}
END_TEST

/* Responses to a READ sent before the capture began are still checked for their AETH type. */
START_TEST(read_aeth_nak_on_response_to_uncaptured_read)
{
	struct seq s;
	start(&s, 1024);
	uint64_t bad = seq_pkt(&s, SEQ_B, READ_ONLY, 1, 100, AETH(SYN_NAK_SEQ, 1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_READ_AETH, bad);
	seq_free(&s);
}
END_TEST

/* An ACK-type AETH with a real credit count (ConnectX) is as good as 0x1F (rxe). */
START_TEST(read_aeth_ack_with_credit_count)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(2048));
	seq_pkt(&s, SEQ_B, READ_FIRST, 1, 1024, AETH(SYN_ACK_CREDITS_5, 1));
	seq_pkt(&s, SEQ_B, READ_LAST, 2, 1024, AETH(SYN_ACK, 1));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_READ_AETH);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_READ_AETH), 2);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-ATOMIC-ACK ================================================================= */

/* The atomic ACK names PSN 4 (a SEND), not 5 (the Compare&Swap). */
START_TEST(atomic_ack_wrong_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 16, AR);
	seq_pkt(&s, SEQ_A, CMP_SWAP, 5, 0, ATOMIC_VA);
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, ATOMIC_ACK, 4, 0, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ATOMIC_ACK, bad);
	seq_free(&s);
}
END_TEST

START_TEST(atomic_ack_matches_cmpswap_and_fetchadd)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 16, AR);
	seq_pkt(&s, SEQ_A, CMP_SWAP, 5, 0, ATOMIC_VA);
	seq_pkt(&s, SEQ_A, FETCH_ADD, 6, 0, ATOMIC_VA);
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(1));
	seq_pkt(&s, SEQ_B, ATOMIC_ACK, 5, 0, MSN(2));
	seq_pkt(&s, SEQ_B, ATOMIC_ACK, 6, 0, MSN(3));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_ATOMIC_ACK);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_ATOMIC_ACK), 2);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-ACK-AHEAD ================================================================== */

/* B acknowledges PSN 2 before A sends it: A's next new request (PSN 2) proves it. */
/*
 * PSN 2 is skipped; 3 and 4 come after the gap, and the responder (which
 * took them) acknowledges 3, then 4, its MSNs counting no message at PSN 2.
 * The ACK for 4 covers a request the capture holds, which is no second
 * sign of a capture that drops packets: the lone gap stays a skip.
 */
START_TEST(psn_gap_then_acks_for_held_requests_is_one_skip)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	uint64_t jump = seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);	/* PSN 2 never sent */
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(2));
	seq_pkt(&s, SEQ_B, ACK, 4, 0, MSN(3));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_PSN, jump);
	seq_free(&s);
}
END_TEST

/*
 * An ACK far ahead of everything sent, then a request the requester sends
 * after discarding it: the responder model does not jump past what was sent,
 * so the next request is in order, not a duplicate owed a re-ACK.
 */
START_TEST(ack_ahead_does_not_move_the_responder_past_the_requester)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 17, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(2));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ACK_AHEAD, bad);
	seq_free(&s);
}
END_TEST

START_TEST(ack_ahead_of_next_request)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	seq_wait_us(&s, 100.0);	/* past any capture-queue interleaving */
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ACK_AHEAD, bad);
	seq_free(&s);
}
END_TEST

/* The same, further ahead: ACK for PSN 5 when A has sent up to 1 and sends 2 next. */
START_TEST(ack_far_ahead_of_next_request)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 5, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ACK_AHEAD, bad);
	seq_free(&s);
}
END_TEST

/*
 * An ACK for PSN 3 when A has sent up to 1 and the capture then ends. No
 * other sign of capture loss: finish_stream's own "never sent" verdict is
 * due (it is what the deferral waits for).
 */
START_TEST(ack_ahead_at_capture_end)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ACK_AHEAD, bad);
	seq_free(&s);
}
END_TEST

/* A NAK sequence error for PSN 4 says "expected 4", yet 4 is sent only afterwards. */
START_TEST(ack_ahead_nak_for_unsent_psn)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 4, 0, AETH(SYN_NAK_SEQ, 3));
	seq_wait_us(&s, 100.0);	/* past any capture-queue interleaving */
	seq_pkt(&s, SEQ_A, SEND_ONLY, 4, 16, AR);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_ACK_AHEAD, bad);
	seq_free(&s);
}
END_TEST

/* One ACK for PSN 3 acknowledges 1..3: coalesced, not ahead. */
START_TEST(ack_coalesced_is_not_ahead)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(3));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_ACK_AHEAD);
	seq_free(&s);
}
END_TEST

/*
 * PSN 2 was sent but not captured: B's ACK for it comes first, and A's next
 * request (PSN 3) shows 2 had been sent. A note, not a violation.
 */
START_TEST(ack_for_uncaptured_request_is_a_note)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(2));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(3));
	seq_finish(&s);
	if (seq_others(&s, -1)) {
		fprintf(stderr, "%s: unexpected violations:\n", __func__);
		seq_dump(&s);
	}
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	ck_assert(has_note(flow(&s, 0), "acknowledged requests the capture does not hold"));
	seq_free(&s);
}
END_TEST

/* ==== SEQ-MSN ======================================================================== */

START_TEST(msn_goes_backwards)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(5));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(4));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_MSN, bad);
	seq_free(&s);
}
END_TEST

/* A completed SEND must move the MSN on by one. */
START_TEST(msn_stuck_after_completed_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(5));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(5));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_MSN, bad);
	seq_free(&s);
}
END_TEST

START_TEST(msn_advances_by_two_for_one_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(5));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(7));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_MSN, bad);
	seq_free(&s);
}
END_TEST

/* ACKs of a First and a Middle complete no message: the MSN stays; the Last moves it by one. */
START_TEST(msn_equal_on_ack_without_completed_message)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(5));
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 2, 1024, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(5));
	seq_pkt(&s, SEQ_A, SEND_LAST, 3, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(6));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_MSN);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_MSN), 2);	/* the first AETH sets the base */
	seq_free(&s);
}
END_TEST

/* A coalesced ACK counts every message it covers, and the 24-bit MSN wraps 0xFFFFFF -> 0. */
START_TEST(msn_coalesced_and_wrapping)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(0xFFFFFE));
	seq_pkt(&s, SEQ_A, WRITE_ONLY, 4, 16, DMA_AR(16));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 5, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 5, 0, MSN(0));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_MSN);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_MSN), 1);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-WINDOW ===================================================================== */

/* At PMTU 256 a READ of 2^31 bytes takes 2^23 PSNs: exactly 2^23 outstanding is too many. */
START_TEST(window_read_spans_2_23_psns)
{
	struct seq s;
	start(&s, 256);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 0, 0, MSN(1));
	uint64_t bad = seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(0x80000000u));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_WINDOW, bad);
	seq_free(&s);
}
END_TEST

/* Two READs of 2^30 bytes: each alone is fine, together they reach 2^23 outstanding. */
START_TEST(window_two_reads_reach_2_23_psns)
{
	struct seq s;
	start(&s, 256);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 0, 0, MSN(1));
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(0x40000000u));
	uint64_t bad = seq_pkt(&s, SEQ_A, READ_REQ, 0x400001, 0, DMA(0x40000000u));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_WINDOW, bad);
	seq_free(&s);
}
END_TEST

/* One PSN fewer: 2^23 - 1 outstanding is allowed. */
START_TEST(window_just_below_2_23_psns)
{
	struct seq s;
	start(&s, 256);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 0, 0, MSN(1));
	seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, DMA(0x80000000u - 256));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_WINDOW);
	seq_free(&s);
}
END_TEST

/* The window is counted modulo 2^24: requests past the wrap are few outstanding, not 2^24. */
START_TEST(window_across_psn_wrap)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0xFFFFFE, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 0xFFFFFE, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0xFFFFFF, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, 16, AR);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(4));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_WINDOW);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_WINDOW), 3);
	seq_free(&s);
}
END_TEST

/* ==== SEQ-UC-ONLY-SENDS-WRITES ======================================================= */

START_TEST(uc_flow_with_read_request)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UC | SEND_ONLY, 1, 16, NULL);
	uint64_t bad = seq_pkt(&s, SEQ_A, READ_REQ, 2, 0, DMA(64));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_UC_ONLY_SENDS_WRITES, bad);
	seq_free(&s);
}
END_TEST

START_TEST(uc_flow_with_atomic)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UC | SEND_ONLY, 1, 16, NULL);
	uint64_t bad = seq_pkt(&s, SEQ_A, FETCH_ADD, 2, 0, ATOMIC_VA);
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_UC_ONLY_SENDS_WRITES, bad);
	seq_free(&s);
}
END_TEST

/*
 * B's ACK in a UC connection. B has sent UC traffic to A's QP first, so the
 * ACK's half (B -> A's QP) already belongs to the UC flow. (An ACK before any
 * UC packet from B cannot be tied to the UC flow: a UC packet does not name
 * its sender's QP, so A's QP in that flow is unknown until B sends to it.)
 */
START_TEST(uc_flow_with_ack_from_peer)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UC | SEND_ONLY, 1, 16, NULL);
	seq_pkt(&s, SEQ_B, UC | SEND_ONLY, 50, 16, NULL);
	uint64_t bad = seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	seq_finish(&s);
	ASSERT_ONLY(&s, RT_RULE_SEQ_UC_ONLY_SENDS_WRITES, bad);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	seq_free(&s);
}
END_TEST

/* UC SEND and WRITE messages both ways, no AckReq and no ACK: legal, no warning, no one-direction note. */
START_TEST(uc_sends_and_writes_without_acks)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UC | SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, UC | SEND_MIDDLE, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, UC | SEND_LAST, 3, 10, NULL);
	seq_pkt(&s, SEQ_A, UC | WRITE_ONLY, 4, 16, DMA(16));
	seq_pkt(&s, SEQ_A, UC | WRITE_FIRST, 5, 1024, DMA(1100));
	seq_pkt(&s, SEQ_A, UC | WRITE_LAST, 6, 76, NULL);
	seq_pkt(&s, SEQ_A, UC | WRITE_ONLY_IMM, 7, 8, DMA(8));
	seq_pkt(&s, SEQ_B, UC | SEND_ONLY, 50, 16, NULL);
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_UC_ONLY_SENDS_WRITES);
	ck_assert_uint_ge(seq_checked(&s, RT_RULE_SEQ_PSN), 6);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_WRITE_LENGTH), 3);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	ck_assert(!has_note(flow(&s, 0), "only one direction"));
	seq_free(&s);
}
END_TEST

/* ==== flows ========================================================================== */

/* A's requests and B's answers are one flow: side 0 is A (QP 0x11), side 1 is B (QP 0x22). */
START_TEST(flow_pairs_both_directions)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	const struct rt_flow_info *f = flow(&s, 0);
	ck_assert(f->paired);
	ck_assert_uint_eq(f->transport, RT_TRANSPORT_RC);
	ck_assert(f->side[0].qp_known && f->side[1].qp_known);
	ck_assert_uint_eq(f->side[0].qp, 0x11);
	ck_assert_uint_eq(f->side[1].qp, 0x22);
	ck_assert_uint_eq(f->side[0].requests, 1);
	ck_assert_uint_eq(f->side[1].responses, 1);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_ACK), 1);	/* the ACK was held against A's request */
	seq_free(&s);
}
END_TEST

/* Both sides send requests in one connection: two streams, each with its own PSNs, one flow. */
START_TEST(flow_bidirectional_requests_keep_separate_psns)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, SEND_ONLY, 100, 16, AR);
	seq_pkt(&s, SEQ_A, ACK, 100, 0, MSN(1));
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_B, SEND_ONLY, 101, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(2));
	seq_pkt(&s, SEQ_A, ACK, 101, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_SEQ_PSN);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_PSN), 2);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	const struct rt_flow_info *f = flow(&s, 0);
	ck_assert(f->paired);
	ck_assert_uint_eq(f->side[0].requests, 2);
	ck_assert_uint_eq(f->side[0].responses, 2);
	ck_assert_uint_eq(f->side[1].requests, 2);
	ck_assert_uint_eq(f->side[1].responses, 2);
	seq_free(&s);
}
END_TEST

/* Without --pmtu the flow says what it inferred, from which frame, and that --pmtu would check it. */
START_TEST(flow_pmtu_inferred_note)
{
	struct seq s;
	start(&s, 0);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	uint64_t first = seq_pkt(&s, SEQ_A, SEND_FIRST, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 3, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(2));
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	const struct rt_flow_info *f = flow(&s, 0);
	ck_assert_uint_eq(f->side[0].pmtu, 1024);
	ck_assert(f->side[0].pmtu_inferred);
	ck_assert_uint_eq(f->side[0].pmtu_frame, first);
	ck_assert_uint_eq(f->side[1].pmtu, 0);	/* B sent no First/Middle */
	char want[80];
	snprintf(want, sizeof want, "PMTU 1024 inferred for side 0 from its First/Middle packets (frame %llu)",
		 (ull)first);
	if (!has_note(f, want))
		dump_notes(f);
	ck_assert(has_note(f, want));
	ck_assert(!has_note(f, "inferred for side 1"));
	seq_free(&s);
}
END_TEST

/* With --pmtu nothing is inferred and nothing noted. */
START_TEST(flow_pmtu_given_is_not_noted)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 2, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	const struct rt_flow_info *f = flow(&s, 0);
	ck_assert(!f->side[0].pmtu_inferred);
	ck_assert(!has_note(f, "inferred"));
	seq_free(&s);
}
END_TEST

/* A capture that begins with a WRITE Middle: a note, not SEQ-NO-FIRST; its length cannot be judged. */
START_TEST(flow_starts_mid_message_note)
{
	struct seq s;
	start(&s, 1024);
	uint64_t middle = seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 5, 1024, NULL);
	seq_pkt(&s, SEQ_A, WRITE_LAST, 6, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 6, 0, MSN(1));
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	ck_assert_uint_eq(seq_not_evaluated(&s, RT_RULE_SEQ_WRITE_LENGTH), 1);
	const struct rt_flow_info *f = flow(&s, 0);
	char want[96];
	snprintf(want, sizeof want, "capture starts mid-message (frame %llu", (ull)middle);
	if (!has_note(f, want))
		dump_notes(f);
	ck_assert(has_note(f, want));
	seq_free(&s);
}
END_TEST

/* A capture that ends after a First and a Middle: a note, not a violation. */
START_TEST(flow_ends_mid_message_note)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	uint64_t first = seq_pkt(&s, SEQ_A, SEND_FIRST, 2, 1024, NULL);
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 3, 1024, NULL);
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	const struct rt_flow_info *f = flow(&s, 0);
	char want[96];
	snprintf(want, sizeof want, "capture ends mid-message (the SEND message begun at frame %llu", (ull)first);
	if (!has_note(f, want))
		dump_notes(f);
	ck_assert(has_note(f, want));
	seq_free(&s);
}
END_TEST

/* UD packets stand alone: PSNs out of order both ways, no SEQ rule runs; one flow per sender. */
START_TEST(flow_ud_untouched_by_seq_rules)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, UD_SEND_ONLY, 5, 32, NULL);
	seq_pkt(&s, SEQ_A, UD_SEND_ONLY, 3, 32, NULL);
	seq_pkt(&s, SEQ_A, UD_SEND_ONLY, 1000, 32, NULL);
	seq_pkt(&s, SEQ_B, UD_SEND_ONLY, 0, 32, NULL);
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	for (int r = RT_RULE_SEQ_PSN; r <= RT_RULE_SEQ_UC_ONLY_SENDS_WRITES; r++) {
		ck_assert_uint_eq(seq_checked(&s, (enum rt_rule)r), 0);
		ck_assert_uint_eq(seq_not_evaluated(&s, (enum rt_rule)r), 0);
	}
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 2);
	ck_assert_uint_eq(flow(&s, 0)->transport, RT_TRANSPORT_UD);
	ck_assert_uint_eq(flow(&s, 0)->packets, 3);
	ck_assert(!flow(&s, 0)->paired);
	seq_free(&s);
}
END_TEST

/* A CNP inside a connection is counted on it and leaves the PSN and MSN tracking alone. */
START_TEST(flow_cnp_inside_connection)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 1, 0, MSN(1));
	cnp_from_b(&s);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 2, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(2));
	seq_finish(&s);
	ASSERT_CLEAN(&s, RT_RULE_PKT_CNP);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_SEQ_MSN), 1);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	ck_assert_uint_eq(flow(&s, 0)->cnps, 1);
	seq_free(&s);
}
END_TEST

/*
 * ECN marks reach the responder before it has anything to acknowledge, so a
 * CNP often precedes its first ACK. The CNP goes to A's QP from B, the same
 * half of the connection as B's ACKs: it must not keep the ACK from pairing
 * with A's requests.
 */
START_TEST(flow_cnp_before_first_response_keeps_pairing)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	cnp_from_b(&s);
	seq_pkt(&s, SEQ_A, SEND_LAST, 2, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	seq_finish(&s);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	const struct rt_flow_info *f = flow(&s, 0);
	ck_assert_msg(f->paired, "B's ACK was not paired with A's requests (%zu flows)", rt_checker_flow_count(s.c));
	ck_assert_uint_eq(f->side[1].responses, 1);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_ACK), 1);
	ck_assert_uint_eq(rt_checker_flow_count(s.c), 1);
	ck_assert_uint_eq(f->cnps, 1);
	seq_free(&s);
}
END_TEST

/*
 * The user-visible side of the same: B's ACK lands in the CNP's flow, so A's
 * request looks unanswered, and the capture going on for 200 ms more turns
 * that into an RSP-ACK error against a responder that did acknowledge.
 */
START_TEST(flow_cnp_before_first_response_no_false_rsp_ack)
{
	struct seq s;
	start(&s, 1024);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 1, 1024, NULL);
	cnp_from_b(&s);
	seq_pkt(&s, SEQ_A, SEND_LAST, 2, 100, AR);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, MSN(1));
	seq_wait_us(&s, 200000);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 3, 16, AR);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, MSN(2));
	seq_finish(&s);
	if (seq_others(&s, -1)) {
		fprintf(stderr, "%s: unexpected violations:\n", __func__);
		seq_dump(&s);
	}
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	seq_free(&s);
}
END_TEST

/* ==== real captures ================================================================== */

struct error_log {
	uint64_t errors;
	const char *file;
};

static void count_errors(void *ctx, const struct rt_violation *v)
{
	struct error_log *log = ctx;
	if (v->severity != RT_SEV_ERROR)
		return;
	if (log->errors++ < 20)
		fprintf(stderr, "unexpected: %s frame %llu %s: %s\n", log->file, (ull)v->frame, rt_rule_info(v->rule)->id,
			v->message);
}

/* The shared captures are real, conformant traffic (with capture loss): the whole checker finds no error. */
START_TEST(real_captures_have_no_errors)
{
	glob_t g;
	ck_assert_int_eq(glob(CAPTURES_DIR "/*/*.pcap", 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 20);
	struct error_log log = { 0 };
	uint64_t seq_checks = 0, flows = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct rt_error err;
		struct rt_capture *cap = rt_capture_open(g.gl_pathv[i], &err);
		ck_assert_msg(cap != NULL, "%s", err.msg);
		struct rt_check_config cfg;
		rt_check_config_init(&cfg);
		cfg.on_violation = count_errors;
		cfg.ctx = &log;
		log.file = g.gl_pathv[i];
		struct rt_checker *c = rt_checker_new(&cfg, &err);
		ck_assert_msg(c != NULL, "%s", err.msg);
		struct rt_frame fr;
		int rc;
		while ((rc = rt_capture_next(cap, &fr, &err)) == 1)
			rt_checker_frame(c, rt_capture_link(cap), fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
		ck_assert_msg(rc == 0, "%s", err.msg);
		rt_checker_finish(c);
		for (int r = RT_RULE_SEQ_PSN; r <= RT_RULE_SEQ_UC_ONLY_SENDS_WRITES; r++)
			seq_checks += rt_checker_verdicts(c)->total.checked[r];
		flows += rt_checker_flow_count(c);
		ck_assert_uint_eq(rt_checker_totals(c)->errors, 0);
		rt_checker_free(c);
		rt_capture_close(cap);
	}
	globfree(&g);
	ck_assert_uint_eq(log.errors, 0);
	/* The SEQ rules actually ran on them: thousands of checks over many flows. */
	ck_assert_uint_ge(seq_checks, 1000);
	ck_assert_uint_ge(flows, 20);
}
END_TEST

Suite *check_seq_suite(void)
{
	Suite *s = suite_create("check_seq");

	TCase *psn = tcase_create("seq_psn");
	tcase_add_test(psn, psn_gap_never_explained_is_seq_psn);
	tcase_add_test(psn, psn_gap_acknowledged_is_seq_psn);
	tcase_add_test(psn, psn_gap_then_acks_for_held_requests_is_one_skip);
	tcase_add_test(psn, psn_gap_after_read_span_is_seq_psn);
	tcase_add_test(psn, uc_psn_going_back_is_seq_psn);
	tcase_add_test(psn, psn_wrap_is_not_a_gap);
	tcase_add_test(psn, psn_after_read_advances_by_response_count);
	tcase_add_test(psn, psn_timeout_retransmission_is_not_a_gap);
	tcase_add_test(psn, psn_gap_explained_by_nak_is_a_note);
	tcase_add_test(psn, psn_gap_in_lossy_capture_is_a_note);
	suite_add_tcase(s, psn);

	TCase *msg = tcase_create("seq_message");
	tcase_add_test(msg, opcode_write_inside_send_message);
	tcase_add_test(msg, opcode_read_inside_write_message);
	tcase_add_test(msg, opcode_first_while_message_open);
	tcase_add_test(msg, opcode_send_last_closing_write);
	tcase_add_test(msg, opcode_legal_messages_of_every_shape);
	tcase_add_test(msg, no_first_middle_after_completed_message);
	tcase_add_test(msg, no_first_write_last_without_first);
	tcase_add_test(msg, no_first_go_back_n_resumes_mid_message);
	tcase_add_test(msg, write_length_multi_packet_short);
	tcase_add_test(msg, write_length_only_mismatch);
	tcase_add_test(msg, write_length_matches);
	tcase_add_test(msg, pmtu_first_size_changes_between_messages);
	tcase_add_test(msg, pmtu_middle_differs_within_message);
	tcase_add_test(msg, pmtu_first_not_a_path_mtu);
	tcase_add_test(msg, pmtu_read_responses_change_size);
	tcase_add_test(msg, pmtu_each_direction_has_its_own);
	suite_add_tcase(s, msg);

	TCase *rsp = tcase_create("seq_responses");
	tcase_add_test(rsp, read_response_wrong_total);
	tcase_add_test(rsp, read_response_starts_with_middle);
	tcase_add_test(rsp, read_response_second_first);
	tcase_add_test(rsp, read_response_without_read);
	tcase_add_test(rsp, read_response_too_many_packets);
	tcase_add_test(rsp, read_3000_at_1024_first_middle_last);
	tcase_add_test(rsp, read_of_zero_bytes_gets_one_only);
	tcase_add_test(rsp, read_pipelined_reads);
	tcase_add_test(rsp, read_aeth_nak_on_only);
	tcase_add_test(rsp, read_aeth_rnr_on_first);
	tcase_add_test(rsp, read_aeth_nak_on_response_to_uncaptured_read);
	tcase_add_test(rsp, read_aeth_ack_with_credit_count);
	tcase_add_test(rsp, atomic_ack_wrong_psn);
	tcase_add_test(rsp, atomic_ack_matches_cmpswap_and_fetchadd);
	tcase_add_test(rsp, ack_ahead_of_next_request);
	tcase_add_test(rsp, ack_ahead_does_not_move_the_responder_past_the_requester);
	tcase_add_test(rsp, ack_far_ahead_of_next_request);
	tcase_add_test(rsp, ack_ahead_at_capture_end);
	tcase_add_test(rsp, ack_ahead_nak_for_unsent_psn);
	tcase_add_test(rsp, ack_coalesced_is_not_ahead);
	tcase_add_test(rsp, ack_for_uncaptured_request_is_a_note);
	tcase_add_test(rsp, msn_goes_backwards);
	tcase_add_test(rsp, msn_stuck_after_completed_message);
	tcase_add_test(rsp, msn_advances_by_two_for_one_message);
	tcase_add_test(rsp, msn_equal_on_ack_without_completed_message);
	tcase_add_test(rsp, msn_coalesced_and_wrapping);
	suite_add_tcase(s, rsp);

	TCase *win = tcase_create("seq_window_uc");
	tcase_add_test(win, window_read_spans_2_23_psns);
	tcase_add_test(win, window_two_reads_reach_2_23_psns);
	tcase_add_test(win, window_just_below_2_23_psns);
	tcase_add_test(win, window_across_psn_wrap);
	tcase_add_test(win, uc_flow_with_read_request);
	tcase_add_test(win, uc_flow_with_atomic);
	tcase_add_test(win, uc_flow_with_ack_from_peer);
	tcase_add_test(win, uc_sends_and_writes_without_acks);
	suite_add_tcase(s, win);

	TCase *fl = tcase_create("flows");
	tcase_add_test(fl, flow_pairs_both_directions);
	tcase_add_test(fl, flow_bidirectional_requests_keep_separate_psns);
	tcase_add_test(fl, flow_pmtu_inferred_note);
	tcase_add_test(fl, flow_pmtu_given_is_not_noted);
	tcase_add_test(fl, flow_starts_mid_message_note);
	tcase_add_test(fl, flow_ends_mid_message_note);
	tcase_add_test(fl, flow_ud_untouched_by_seq_rules);
	tcase_add_test(fl, flow_cnp_inside_connection);
	tcase_add_test(fl, flow_cnp_before_first_response_keeps_pairing);
	tcase_add_test(fl, flow_cnp_before_first_response_no_false_rsp_ack);
	suite_add_tcase(s, fl);

	TCase *real = tcase_create("real_captures");
	tcase_set_timeout(real, 60);
	tcase_add_test(real, real_captures_have_no_errors);
	suite_add_tcase(s, real);
	return s;
}
