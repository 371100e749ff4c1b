/* SPDX-License-Identifier: MIT */
/*
 * RSP and REQ rules of the flow checker (check_rsp.c, check_req.c;
 * rules.md, wire-facts.md "Reliable-connection behaviour"): for each rule a
 * packet sequence that breaks it, asserted at the exact frame with nothing
 * else reported, and near misses that come close and must stay clean (or
 * "not evaluated" where the rule needs configuration or the capture ends
 * before the evidence).
 *
 * A is the requester (stream 0), B the responder, unless a test says so.
 * AETH MSNs in every sequence are the responder's true count of completed
 * messages, so SEQ-MSN stays quiet and cannot hide or add violations.
 */
#include <check.h>
#include <stdio.h>

#include "flow_blocks.h"
#include "flow_seq.h"
#include "rocetest/checker.h"
#include "rocetest/rules.h"
#include "suites.h"

/* ==== RSP-ACK ================================================================== */

START_TEST(rsp_ack_never_acknowledged)
{
	/* PSN 1 waits 200 ms while the requester goes on: long past any ACK in flight. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	uint64_t f = send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, 200000);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 2, 256, NULL);	/* keeps the capture going; First needs no AckReq */
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_ACK, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_ack_coalesced)
{
	/* One ACK for PSN 2 acknowledges 0 and 1 too. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_ACK), 3);
	ck_assert_uint_eq(seq_not_evaluated(&s, RT_RULE_RSP_ACK), 0);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_ack_covered_by_read_response)
{
	/* A READ response for a later PSN acknowledges the SEND before it. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	read_req(&s, 1, 64);
	read_resp(&s, READ_ONLY, 1, 64, 2, 0);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_ACK);
	ck_assert_uint_eq(seq_not_evaluated(&s, RT_RULE_RSP_ACK), 0);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_ack_capture_ends_first)
{
	/* The capture stops 1 us after the request: the ACK is cut off, not missing. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, RSP_ACK);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_ack_ack_in_flight_at_end)
{
	/*
	 * The ACK for PSN 0 comes 1 us after PSN 1 left: it crossed PSN 1 on the
	 * wire, and the ACK for PSN 1 is still on its way when the capture ends.
	 * That is a capture cut off, not an ACK the responder failed to send.
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, RSP_ACK);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_ack_lossy_stream_not_evaluated)
{
	/*
	 * PSN 1 was lost before the capture point (the NAK asks for it): in a
	 * stream that loses packets an ACK may be lost too, so the unanswered
	 * requests are not evaluated, even 200 ms later.
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	aeth(&s, SYN_NAK_SEQ, 1, 1);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	seq_wait_us(&s, 200000);
	seq_pkt(&s, SEQ_A, SEND_FIRST, 3, 256, NULL);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, RSP_ACK);
	seq_free(&s);
}
END_TEST

/* ==== RSP-NAK-SEQ ============================================================== */

START_TEST(rsp_nak_seq_second_nak)
{
	/* PSN 1 lost before the capture; the responder NAKs it twice before it comes. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	aeth(&s, SYN_NAK_SEQ, 1, 1);
	send_only(&s, SEQ_A, 3);	/* in flight when the NAK left: must be dropped silently */
	uint64_t f = aeth(&s, SYN_NAK_SEQ, 1, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_NAK_SEQ, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_seq_wrong_psn)
{
	/* The responder has PSN 0 and gets 2: it expects 1, yet its NAK asks for 0. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 2);
	uint64_t f = aeth(&s, SYN_NAK_SEQ, 0, 0);
	/* The requester obeys the NAK (go-back-N to 0) and everything completes. */
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_NAK_SEQ, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_seq_missing)
{
	/*
	 * The requester skips PSN 1 (its own fault, SEQ-PSN) and the responder,
	 * which answers again later, never NAKs the jump (RSP-NAK-SEQ): two faults.
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	uint64_t f = send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_TWO(s, RSP_NAK_SEQ, f, SEQ_PSN, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_seq_correct)
{
	/* One NAK with the expected PSN, new requests after it dropped silently, then go-back-N. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	aeth(&s, SYN_NAK_SEQ, 1, 1);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_NAK_SEQ);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_seq_second_nak_after_expected_arrived)
{
	/* A second NAK is fine once the PSN of the first arrived: it is a new loss (PSN 3). */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	aeth(&s, SYN_NAK_SEQ, 1, 1);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 4);
	aeth(&s, SYN_NAK_SEQ, 3, 3);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 4);
	ack(&s, 4, 5);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_NAK_SEQ), 2);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_seq_later_psn_in_clean_stream)
{
	/*
	 * The NAK asks for PSN 3 while the capture shows the responder missing 1.
	 * In a stream with no other sign of capture loss the capture is taken at
	 * its word (a gap then a NAK is loss on the wire): the NAK should have
	 * carried PSN 1, and the gap is not blamed on the requester.
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	aeth(&s, SYN_NAK_SEQ, 3, 3);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_NAK_SEQ, 5);
	seq_free(&s);
}
END_TEST

/* ==== RSP-DUPLICATE ============================================================ */

START_TEST(rsp_duplicate_counted_again)
{
	/* PSN 1 resent after a timeout reaches the responder twice; its re-ACK counts it twice (MSN 3). */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 1);
	uint64_t f = ack(&s, 1, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_duplicate_wrong_psn)
{
	/*
	 * The responder acknowledged 0 and 1; it re-ACKs the duplicate of 0 with
	 * PSN 0 instead of 1 (expected - 1). (Without that earlier ACK, an ACK
	 * for 0 could be the answer to the first 0, lagging behind.)
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t again = send_only(&s, SEQ_A, 0);
	uint64_t f = ack(&s, 0, 2);
	seq_finish(&s);
	ASSERT_TWO(s, REQ_NO_RETRANSMIT_ACKED, again, RSP_DUPLICATE, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_duplicate_reacked)
{
	/* Same duplicate, re-ACKed with PSN 1 and the unchanged MSN 2. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_DUPLICATE);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_duplicate_older_psn_reacked_with_expected_minus_one)
{
	/* A duplicate of PSN 0 when 1 was the last received: the re-ACK carries 1, not 0. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_DUPLICATE);
	seq_free(&s);
}
END_TEST

/* ==== RSP-DUPLICATE-READ ======================================================= */

START_TEST(rsp_duplicate_read_other_data)
{
	/* The READ is asked again and answered with different bytes. */
	struct seq s;
	seq_init(&s);
	read_req(&s, 0, 64);
	read_resp(&s, READ_ONLY, 0, 64, 1, 0x11);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	read_req(&s, 0, 64);
	uint64_t f = read_resp(&s, READ_ONLY, 0, 64, 1, 0x22);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE_READ, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_duplicate_read_same_data)
{
	struct seq s;
	seq_init(&s);
	read_req(&s, 0, 64);
	read_resp(&s, READ_ONLY, 0, 64, 1, 0x11);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	read_req(&s, 0, 64);
	read_resp(&s, READ_ONLY, 0, 64, 1, 0x11);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_DUPLICATE_READ);
	seq_free(&s);
}
END_TEST

/*
 * A 512-byte READ at PMTU 256 (PSNs 0 and 1), then re-requested from PSN 1
 * for its second half: a subset with adjusted RETH, answered from PSN 1.
 */
static void read_subset_again(struct seq *s, uint8_t replay_fill)
{
	s->cfg.pmtu = 256;
	read_req(s, 0, 512);
	read_resp(s, READ_FIRST, 0, 256, 1, 0x11);
	read_resp(s, READ_LAST, 1, 256, 1, 0x22);
	seq_wait_us(s, TIMEOUT_WAIT_US);
	seq_pkt(s, SEQ_A, READ_REQ, 1, 0, &(struct seq_opt){ .dma_len = 256, .va = 0x1100 });
	read_resp(s, READ_ONLY, 1, 256, 1, replay_fill);
}

START_TEST(rsp_duplicate_read_subset_same_data)
{
	struct seq s;
	seq_init(&s);
	read_subset_again(&s, 0x22);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_DUPLICATE_READ);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_duplicate_read_subset_other_data)
{
	/* The replay of PSN 1 carries the bytes of PSN 0. */
	struct seq s;
	seq_init(&s);
	read_subset_again(&s, 0x11);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE_READ, s.frame);
	seq_free(&s);
}
END_TEST

/* ==== RSP-NAK-INVALID ========================================================== */

/* SEND First then SEND Only: the Only breaks SEQ-OPCODE (frame 2). Returns its frame. */
static uint64_t broken_send(struct seq *s)
{
	seq_pkt(s, SEQ_A, SEND_FIRST, 0, 256, NULL);
	return send_only(s, SEQ_A, 1);
}

START_TEST(rsp_nak_invalid_acked_instead)
{
	/*
	 * SEQ-OPCODE is switched off so that only the responder's fault shows:
	 * the checker must still see the request as broken.
	 */
	struct seq s;
	seq_init(&s);
	s.cfg.enabled[RT_RULE_SEQ_OPCODE] = false;
	broken_send(&s);
	uint64_t f = ack(&s, 1, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_NAK_INVALID, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_invalid_acked_instead_all_rules)
{
	/* Every rule on: the requester's SEQ-OPCODE and the responder's RSP-NAK-INVALID, nothing else. */
	struct seq s;
	seq_init(&s);
	uint64_t bad = broken_send(&s);
	uint64_t f = ack(&s, 1, 1);
	seq_finish(&s);
	ASSERT_TWO(s, SEQ_OPCODE, bad, RSP_NAK_INVALID, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_invalid_wrong_code)
{
	/* A SEND has no R_Key: a remote access error cannot be the answer to its opcode violation. */
	struct seq s;
	seq_init(&s);
	s.cfg.enabled[RT_RULE_SEQ_OPCODE] = false;
	broken_send(&s);
	uint64_t f = aeth(&s, SYN_NAK_ACCESS, 1, 0);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_NAK_INVALID, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_invalid_naked)
{
	struct seq s;
	seq_init(&s);
	uint64_t bad = broken_send(&s);
	aeth(&s, SYN_NAK_INVALID, 1, 0);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_OPCODE, bad);	/* the requester's fault only */
	ASSERT_CHECKED(s, RSP_NAK_INVALID);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_invalid_length_naked)
{
	/* A WRITE whose packets carry 272 bytes of a RETH length 300, NAKed invalid request. */
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 0, 256, &(struct seq_opt){ .dma_len = 300 });
	uint64_t bad = seq_pkt(&s, SEQ_A, WRITE_LAST, 1, 16, &(struct seq_opt){ .ack_req = true });
	aeth(&s, SYN_NAK_INVALID, 1, 0);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_WRITE_LENGTH, bad);
	ASSERT_CHECKED(s, RSP_NAK_INVALID);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_nak_invalid_capture_ends_first)
{
	struct seq s;
	seq_init(&s);
	uint64_t bad = broken_send(&s);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_OPCODE, bad);
	ASSERT_NOT_EVALUATED(s, RSP_NAK_INVALID);
	seq_free(&s);
}
END_TEST

/* ==== RSP-RNR ================================================================== */

START_TEST(rsp_rnr_for_acknowledged_psn)
{
	/* PSN 0 was ACKed; an RNR NAK for it refuses nothing the responder holds. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 1);
	uint64_t f = aeth(&s, SYN_RNR(14), 0, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_RNR, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_rnr_refused_request)
{
	/* RNR NAK for the request, resend after the timer, ACK. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_RNR(14), 0, 0);
	seq_wait_us(&s, 1300);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_RNR);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_rnr_second_outstanding)
{
	/* Two requests out; the RNR NAK for the second implicitly acknowledges the first. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	aeth(&s, SYN_RNR(12), 1, 1);
	seq_wait_us(&s, 700);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_RNR);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_ACK), 2);
	seq_free(&s);
}
END_TEST

/* ==== RSP-SILENT-AFTER-FATAL =================================================== */

START_TEST(rsp_silent_after_fatal_new_request)
{
	/* B NAKs with a remote access error, then starts sending requests of its own on the QP. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_NAK_ACCESS, 0, 0);
	uint64_t f = send_only(&s, SEQ_B, 100);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_SILENT_AFTER_FATAL, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_silent_after_fatal_ack)
{
	/* B NAKs PSN 1 with a remote operational error, then ACKs PSN 0 after all. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	aeth(&s, SYN_NAK_OPERATIONAL, 1, 1);
	uint64_t f = ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_SILENT_AFTER_FATAL, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_silent_after_fatal_kept)
{
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	aeth(&s, SYN_NAK_OPERATIONAL, 1, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_SILENT_AFTER_FATAL);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_silent_nak_seq_is_not_fatal)
{
	/* A NAK sequence error does not end the QP: the responder keeps answering. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	send_only(&s, SEQ_A, 2);
	aeth(&s, SYN_NAK_SEQ, 1, 1);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	send_only(&s, SEQ_B, 100);	/* and may send requests of its own */
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_SILENT_AFTER_FATAL), 0);
	seq_free(&s);
}
END_TEST

/* ==== RSP-ICRC-DROP ============================================================ */

START_TEST(rsp_icrc_drop_acked)
{
	/* The responder ACKs a request whose ICRC is bad (PKT-ICRC reports the packet itself). */
	struct seq s;
	seq_init(&s);
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_ONLY, 0, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	uint64_t f = ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_TWO(s, PKT_ICRC, bad, RSP_ICRC_DROP, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_icrc_drop_acked_pkt_icrc_off)
{
	/* With PKT-ICRC switched off the checker still knows the ICRC is bad (the receiver drops it either way). */
	struct seq s;
	seq_init(&s);
	s.cfg.enabled[RT_RULE_PKT_ICRC] = false;
	seq_pkt(&s, SEQ_A, SEND_ONLY, 0, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	uint64_t f = ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_ICRC_DROP, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_icrc_drop_fatal_naked)
{
	/* The responder answers the bad-ICRC request with a NAK (remote operational error) carrying its PSN. */
	struct seq s;
	seq_init(&s);
	s.cfg.enabled[RT_RULE_PKT_ICRC] = false;
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	uint64_t f = aeth(&s, SYN_NAK_OPERATIONAL, 1, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_ICRC_DROP, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_icrc_drop_rnr_naked)
{
	/*
	 * An RNR NAK for the bad-ICRC request: the responder took the packet in
	 * (it looked for a receive buffer for it). Its PSN and timer are right,
	 * so RSP-RNR holds; what broke is the drop.
	 */
	struct seq s;
	seq_init(&s);
	s.cfg.enabled[RT_RULE_PKT_ICRC] = false;
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_pkt(&s, SEQ_A, SEND_ONLY, 1, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	uint64_t f = aeth(&s, SYN_RNR(1), 1, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_ICRC_DROP, f);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_icrc_drop_dropped_then_resent)
{
	/* Dropped silently; the requester's timeout resend arrives intact and is ACKed. */
	struct seq s;
	seq_init(&s);
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_ONLY, 0, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, PKT_ICRC, bad);
	ASSERT_CHECKED(s, RSP_ICRC_DROP);
	seq_free(&s);
}
END_TEST

START_TEST(rsp_icrc_drop_ack_stops_short)
{
	/* The ACK after the bad packet covers only the PSN before it. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	uint64_t bad = seq_pkt(&s, SEQ_A, SEND_ONLY, 1, PAYLOAD, &(struct seq_opt){ .ack_req = true, .bad_icrc = true });
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, PKT_ICRC, bad);
	ASSERT_CHECKED(s, RSP_ICRC_DROP);
	seq_free(&s);
}
END_TEST

/* ==== REQ-GO-BACK-N ============================================================ */

/* PSN 1 lost before the capture point: 0 ACKed, 2 arrives, NAK sequence error for 1. */
static void nak_for_one(struct seq *s)
{
	send_only(s, SEQ_A, 0);
	ack(s, 0, 1);
	send_only(s, SEQ_A, 2);
	aeth(s, SYN_NAK_SEQ, 1, 1);
}

START_TEST(req_go_back_n_too_far)
{
	/* The NAK asked for 1; the requester resends from 0, which was acknowledged. */
	struct seq s;
	seq_init(&s);
	nak_for_one(&s);
	uint64_t f = send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_GO_BACK_N, f);
	seq_free(&s);
}
END_TEST

/* Lossless capture: 0..3 sent, the NAK says 1 was lost after the capture point. */
static void nak_after_capture(struct seq *s)
{
	for (uint32_t psn = 0; psn < 4; psn++)
		send_only(s, SEQ_A, psn);
	aeth(s, SYN_NAK_SEQ, 1, 1);
}

START_TEST(req_go_back_n_skips_p)
{
	/* The requester resends from 2, and sends 1 only later: the resend at 2 was wrong. */
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	uint64_t f = send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_GO_BACK_N, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_exactly_p)
{
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_GO_BACK_N);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_new_psn_in_flight)
{
	/* PSN 3 left before the NAK arrived: new PSNs in flight are not a go-back. */
	struct seq s;
	seq_init(&s);
	nak_for_one(&s);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_GO_BACK_N);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_resend_from_p_plus_1_after_one_loss)
{
	/*
	 * PSN 1 was lost before the capture point, and nothing else in the
	 * flow shows packets missing: the resend that starts at 2 skipped 1,
	 * which is sent only later.
	 */
	struct seq s;
	seq_init(&s);
	nak_for_one(&s);
	uint64_t f = send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_GO_BACK_N, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_lossy_resend_from_p_plus_1)
{
	/*
	 * The stream lost PSN 1 before, and later PSN 4: its resend of 4 may
	 * have been lost as well, so a resend that seems to start at 5 is lenient.
	 */
	struct seq s;
	seq_init(&s);
	nak_for_one(&s);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	send_only(&s, SEQ_A, 5);
	aeth(&s, SYN_NAK_SEQ, 4, 4);
	send_only(&s, SEQ_A, 5);
	send_only(&s, SEQ_A, 4);
	send_only(&s, SEQ_A, 5);
	ack(&s, 5, 6);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_count(&s, RT_RULE_REQ_GO_BACK_N), 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_suspect_at_capture_end)
{
	/* Resend from 2 in a lossless stream and the capture ends: nothing suggests the capture lost the resend of 1. */
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	uint64_t f = send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_GO_BACK_N, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_go_back_n_suspect_cleared_by_ack)
{
	/* The responder then ACKs 3: PSN 1 reached it, so its resend happened uncaptured. */
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_GO_BACK_N);
	seq_free(&s);
}
END_TEST

/* ==== REQ-RETRANSMIT-SAME ====================================================== */

START_TEST(req_retransmit_same_other_payload)
{
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	uint64_t f = send_fill(&s, 1, 0x5A);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRANSMIT_SAME, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_other_length)
{
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	uint64_t f = seq_pkt(&s, SEQ_A, SEND_ONLY, 1, PAYLOAD + 4, &(struct seq_opt){ .ack_req = true });
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRANSMIT_SAME, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_other_opcode)
{
	/* PSN 1 was a SEND Only; it comes back as a WRITE Only of the same bytes. */
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	uint64_t f = seq_pkt(&s, SEQ_A, WRITE_ONLY, 1, PAYLOAD, &(struct seq_opt){ .ack_req = true, .dma_len = PAYLOAD });
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRANSMIT_SAME, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_read_larger)
{
	/* A READ may be asked again for a part, never for more. */
	struct seq s;
	seq_init(&s);
	read_req(&s, 0, 64);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = read_req(&s, 0, 128);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRANSMIT_SAME, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_identical)
{
	struct seq s;
	seq_init(&s);
	nak_after_capture(&s);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_RETRANSMIT_SAME), 3);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_read_subset)
{
	struct seq s;
	seq_init(&s);
	read_subset_again(&s, 0x22);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_RETRANSMIT_SAME);
	seq_free(&s);
}
END_TEST

START_TEST(req_retransmit_same_read_subset_too_long)
{
	/*
	 * The 512-byte READ at PSN 0 (PSNs 0 and 1 at PMTU 256) is asked again
	 * from PSN 1, where 256 bytes of it remain, for 512 bytes: more than before.
	 */
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 256;
	read_req(&s, 0, 512);
	read_resp(&s, READ_FIRST, 0, 256, 1, 0x11);
	read_resp(&s, READ_LAST, 1, 256, 1, 0x22);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = seq_pkt(&s, SEQ_A, READ_REQ, 1, 0, &(struct seq_opt){ .dma_len = 512, .va = 0x1100 });
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRANSMIT_SAME, f);
	seq_free(&s);
}
END_TEST

/* ==== REQ-NO-RETRANSMIT-ACKED ================================================== */

START_TEST(req_no_retransmit_acked_resent)
{
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);	/* the responder re-ACKs the duplicate correctly */
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_NO_RETRANSMIT_ACKED, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_no_retransmit_acked_coalesced)
{
	/* The ACK for 1 covers 0 as well: resending 0 breaks the rule. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = send_only(&s, SEQ_A, 0);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_NO_RETRANSMIT_ACKED, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_no_retransmit_acked_oldest_unacked)
{
	/* 0 is ACKed, 1 is not: resending 1 is right. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 0, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_NO_RETRANSMIT_ACKED);
	seq_free(&s);
}
END_TEST

START_TEST(req_no_retransmit_acked_ack_crosses_resend)
{
	/* The ACK comes after the resend left: when the requester resent, nothing was acknowledged. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_count(&s, RT_RULE_REQ_NO_RETRANSMIT_ACKED), 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_no_retransmit_acked_read_implicitly_naked)
{
	/* An ACK for PSN 1 passes over the READ at 0 without its response: the READ may be asked again. */
	struct seq s;
	seq_init(&s);
	read_req(&s, 0, 64);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	read_req(&s, 0, 64);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	seq_free(&s);
}
END_TEST

/* ==== REQ-TIMEOUT ============================================================== */

static void with_timeout(struct seq *s, double us)
{
	s->cfg.have_timeout = true;
	s->cfg.timeout_us = us;
}

/*
 * A READ of 3000 bytes at PMTU 1024: response 1 (PSN 11) is lost before the
 * capture point; seeing 12 after 10, the requester asks again from PSN 11 at
 * once, with the RETH moved along. That is an implicit NAK, not a timeout:
 * REQ-TIMEOUT must not fail however short the wait.
 */
START_TEST(read_rerequest_after_response_gap_needs_no_timeout)
{
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 1024;
	with_timeout(&s, 1000.0);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, &(struct seq_opt){ .ack_req = true, .dma_len = 3000 });
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, &(struct seq_opt){ .msn = 1 });
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, &(struct seq_opt){ .msn = 1 });
	uint64_t again = seq_pkt(&s, SEQ_A, READ_REQ, 11, 0, &(struct seq_opt){ .ack_req = true, .dma_len = 1976 });
	seq_pkt(&s, SEQ_B, READ_FIRST, 11, 1024, &(struct seq_opt){ .msn = 1 });
	seq_pkt(&s, SEQ_B, READ_LAST, 12, 952, &(struct seq_opt){ .msn = 1 });
	seq_finish(&s);
	if (seq_others(&s, -1))
		seq_dump(&s);
	ck_assert_uint_eq(seq_count(&s, RT_RULE_REQ_TIMEOUT), 0);
	ck_assert_uint_eq(seq_others(&s, -1), 0);
	ck_assert_uint_gt(again, 0);
	seq_free(&s);
}
END_TEST

/* The same re-request with no gap in the responses before it is a retransmission by timeout: too early here. */
START_TEST(read_rerequest_without_gap_is_a_timeout)
{
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 1024;
	with_timeout(&s, 1000.0);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, &(struct seq_opt){ .ack_req = true, .dma_len = 3000 });
	seq_pkt(&s, SEQ_B, READ_FIRST, 10, 1024, &(struct seq_opt){ .msn = 1 });
	uint64_t again = seq_pkt(&s, SEQ_A, READ_REQ, 11, 0, &(struct seq_opt){ .ack_req = true, .dma_len = 1976 });
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_REQ_TIMEOUT, again));
	seq_free(&s);
}
END_TEST

/*
 * 0 and 1 out, the ACK for 0 restarts the timer with 1 outstanding; 1 is
 * resent `after_us` after that ACK. Returns the resend's frame.
 */
static uint64_t resend_after_progress(struct seq *s, double after_us)
{
	send_only(s, SEQ_A, 0);
	send_only(s, SEQ_A, 1);
	ack(s, 0, 1);
	seq_wait_us(s, after_us - 1.0);	/* the ACK itself took 1 us */
	uint64_t f = send_only(s, SEQ_A, 1);
	ack(s, 1, 2);
	return f;
}

START_TEST(req_timeout_early)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	uint64_t f = resend_after_progress(&s, 100);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_one_us_early)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	uint64_t f = resend_after_progress(&s, 499);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_exactly)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	resend_after_progress(&s, 500);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_TIMEOUT);
	seq_free(&s);
}
END_TEST

/* With an upper bound (a device run's 2x timeout + slack): a timer 8x too long fails, one within passes. */
START_TEST(req_timeout_too_late)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	s.cfg.timeout_max_us = 1002;
	uint64_t f = resend_after_progress(&s, 8 * 500);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_within_bound)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	s.cfg.timeout_max_us = 1002;
	resend_after_progress(&s, 1000);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_TIMEOUT);
	seq_free(&s);
}
END_TEST

/*
 * The bound counts from the last request, not only the last progress: a
 * requester that restarts its timer with each request it sends is right to
 * resend late after the progress, early after its last request.
 */
START_TEST(req_timeout_bound_from_last_request)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	s.cfg.timeout_max_us = 1002;
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 0, 1);
	seq_wait_us(&s, 900);
	send_only(&s, SEQ_A, 2);
	seq_wait_us(&s, 900);
	send_only(&s, SEQ_A, 1);	/* 1801 us after the progress, 901 after request 2 */
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_TIMEOUT);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_early_without_any_ack)
{
	/* Nothing ever acknowledged: the timer started when PSN 0 was sent, 100 us before its resend. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	send_only(&s, SEQ_A, 0);
	seq_wait_us(&s, 99);
	uint64_t f = send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_early_after_idle)
{
	/*
	 * Everything ACKed, 10 ms idle, then PSN 1 is sent and resent 100 us
	 * later: the timer started with PSN 1, not with the old ACK.
	 */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_wait_us(&s, 10000);
	send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, 99);
	uint64_t f = send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_not_oldest)
{
	/* 0 ACKed, 1 and 2 outstanding: the timeout resend starts at 2, skipping 1. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 0, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_not_oldest_without_any_ack)
{
	/* Nothing acknowledged yet: the oldest unacknowledged PSN is 0, and the resend starts at 1. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	uint64_t f = send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_nak_resend_is_not_a_timeout)
{
	/* A go-back-N 1 us after the NAK is not held to the ACK timer. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	nak_for_one(&s);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_TIMEOUT), 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_rnr_resend_is_not_a_timeout)
{
	/* An RNR resend after its 10 us timer is not held to the 500 us ACK timer. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 500);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_RNR(1), 0, 0);
	seq_wait_us(&s, 20);
	send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_TIMEOUT), 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_timeout_needs_timeout)
{
	/* The early resend of req_timeout_early, with no --timeout-us: not evaluated. */
	struct seq s;
	seq_init(&s);
	resend_after_progress(&s, 100);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, REQ_TIMEOUT);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_TIMEOUT), 0);
	seq_free(&s);
}
END_TEST

/* ==== REQ-RETRY-LIMIT ========================================================== */

/* PSN 0 sent and then resent `resends` times after timeouts, never answered. Returns the last frame. */
static uint64_t timeout_resends(struct seq *s, int resends)
{
	uint64_t f = send_only(s, SEQ_A, 0);
	for (int i = 0; i < resends; i++) {
		seq_wait_us(s, TIMEOUT_WAIT_US);
		f = send_only(s, SEQ_A, 0);
	}
	return f;
}

START_TEST(req_retry_limit_exceeded)
{
	struct seq s;
	seq_init(&s);
	s.cfg.retry_cnt = 2;
	uint64_t f = timeout_resends(&s, 3);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRY_LIMIT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retry_limit_exactly)
{
	struct seq s;
	seq_init(&s);
	s.cfg.retry_cnt = 2;
	timeout_resends(&s, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_RETRY_LIMIT), 2);
	seq_free(&s);
}
END_TEST

START_TEST(req_retry_limit_zero)
{
	/* retry_cnt 0: the first retransmission is already one too many. */
	struct seq s;
	seq_init(&s);
	s.cfg.retry_cnt = 0;
	uint64_t f = timeout_resends(&s, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RETRY_LIMIT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_retry_limit_needs_retry_cnt)
{
	struct seq s;
	seq_init(&s);
	timeout_resends(&s, 5);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, REQ_RETRY_LIMIT);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_RETRY_LIMIT), 0);
	seq_free(&s);
}
END_TEST

/* ==== REQ-RNR-WAIT ============================================================= */

/* SEND 0, RNR NAK with timer `code`, resend `waited_us` after the NAK, ACK. Returns the resend's frame. */
static uint64_t rnr_resend(struct seq *s, uint8_t code, double waited_us)
{
	send_only(s, SEQ_A, 0);
	aeth(s, SYN_RNR(code), 0, 0);
	seq_wait_us(s, waited_us - 1.0);	/* the NAK itself took 1 us */
	uint64_t f = send_only(s, SEQ_A, 0);
	ack(s, 0, 1);
	return f;
}

START_TEST(req_rnr_wait_one_us_early)
{
	/* Code 14 asks for 1.28 ms; the resend comes at 1.279 ms. */
	struct seq s;
	seq_init(&s);
	uint64_t f = rnr_resend(&s, 14, 1279);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RNR_WAIT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_wait_exactly)
{
	struct seq s;
	seq_init(&s);
	rnr_resend(&s, 14, 1280);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_RNR_WAIT);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_wait_code_12)
{
	/* Code 12 is 0.64 ms: a resend at 0.7 ms is in time. */
	struct seq s;
	seq_init(&s);
	rnr_resend(&s, 12, 700);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_RNR_WAIT);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_wait_latest_timer)
{
	/* The second RNR NAK asks for 1.28 ms; 20 us suited the first one's 10 us, not this one. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_RNR(1), 0, 0);
	seq_wait_us(&s, 20);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_RNR(14), 0, 0);
	seq_wait_us(&s, 20);
	uint64_t f = send_only(&s, SEQ_A, 0);
	ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RNR_WAIT, f);
	seq_free(&s);
}
END_TEST

/* ==== REQ-RNR-LIMIT ============================================================ */

/* `naks` rounds of RNR NAK (10 us timer) and resend after 20 us, then an ACK. Returns the last resend. */
static uint64_t rnr_rounds(struct seq *s, int naks)
{
	send_only(s, SEQ_A, 0);
	uint64_t f = 0;
	for (int i = 0; i < naks; i++) {
		aeth(s, SYN_RNR(1), 0, 0);
		seq_wait_us(s, 20);
		f = send_only(s, SEQ_A, 0);
	}
	ack(s, 0, 1);
	return f;
}

START_TEST(req_rnr_limit_exceeded)
{
	struct seq s;
	seq_init(&s);
	s.cfg.rnr_retry = 1;
	uint64_t f = rnr_rounds(&s, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RNR_LIMIT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_limit_zero)
{
	/* rnr_retry 0: no resend at all after an RNR NAK. */
	struct seq s;
	seq_init(&s);
	s.cfg.rnr_retry = 0;
	uint64_t f = rnr_rounds(&s, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_RNR_LIMIT, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_limit_exactly)
{
	struct seq s;
	seq_init(&s);
	s.cfg.rnr_retry = 1;
	rnr_rounds(&s, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_RNR_LIMIT);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_limit_seven_is_unlimited)
{
	struct seq s;
	seq_init(&s);
	s.cfg.rnr_retry = 7;
	rnr_rounds(&s, 9);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_RNR_LIMIT), 9);
	seq_free(&s);
}
END_TEST

START_TEST(req_rnr_limit_needs_rnr_retry)
{
	struct seq s;
	seq_init(&s);
	rnr_rounds(&s, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, REQ_RNR_LIMIT);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_RNR_LIMIT), 0);
	seq_free(&s);
}
END_TEST

/* ==== REQ-STOP-AFTER-FATAL ===================================================== */

START_TEST(req_stop_after_fatal_new_request)
{
	/* 10 ms after the remote access error the requester starts a new request. */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_NAK_ACCESS, 0, 0);
	seq_wait_us(&s, 10000);
	uint64_t f = send_only(&s, SEQ_A, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_STOP_AFTER_FATAL, f);
	seq_free(&s);
}
END_TEST

/*
 * A request 30 us after the fatal NAK whose round trip was 1 us: within the
 * in-flight time it was still in the requester's transmit queue (default
 * 50 us: clean); a device run that allows 10 us fails it.
 */
static uint64_t request_30us_after_fatal(struct seq *s, double in_flight_us)
{
	s->cfg.in_flight_us = in_flight_us;
	send_only(s, SEQ_A, 0);
	aeth(s, SYN_NAK_ACCESS, 0, 0);
	seq_wait_us(s, 29);
	return send_only(s, SEQ_A, 1);
}

START_TEST(req_stop_after_fatal_queued_in_the_requester)
{
	struct seq s;
	seq_init(&s);
	request_30us_after_fatal(&s, 0);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_STOP_AFTER_FATAL);
	seq_free(&s);
}
END_TEST

START_TEST(req_stop_after_fatal_beyond_in_flight)
{
	struct seq s;
	seq_init(&s);
	uint64_t f = request_30us_after_fatal(&s, 10);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_STOP_AFTER_FATAL, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_stop_after_fatal_stopped)
{
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	aeth(&s, SYN_NAK_INVALID, 1, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_STOP_AFTER_FATAL);
	seq_free(&s);
}
END_TEST

START_TEST(req_stop_after_fatal_request_in_flight)
{
	/*
	 * PSN 1 shows up 1 us after the NAK: it was on the wire before the NAK
	 * reached the requester (as new PSNs after a NAK sequence error are for
	 * REQ-GO-BACK-N), so it is not a request sent after the fatal NAK.
	 */
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 0);
	aeth(&s, SYN_NAK_ACCESS, 0, 0);
	send_only(&s, SEQ_A, 1);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	seq_free(&s);
}
END_TEST

/* ==== REQ-ACKREQ (warning) ===================================================== */

START_TEST(req_ackreq_send_only_without)
{
	struct seq s;
	seq_init(&s);
	uint64_t f = seq_pkt(&s, SEQ_A, SEND_ONLY, 0, PAYLOAD, NULL);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_ACKREQ, f);
	/* A warning, not an error. */
	ck_assert_uint_eq(rt_checker_totals(s.c)->warnings, 1);
	ck_assert_uint_eq(rt_checker_totals(s.c)->errors, 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_ackreq_write_last_without)
{
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 0, 256, &(struct seq_opt){ .dma_len = 256 + PAYLOAD });
	uint64_t f = seq_pkt(&s, SEQ_A, WRITE_LAST, 1, PAYLOAD, NULL);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 2);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_ACKREQ, f);
	seq_free(&s);
}
END_TEST

START_TEST(req_ackreq_first_middle_need_none)
{
	/* AckReq only on the Last of a First/Middle/Last WRITE. */
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, WRITE_FIRST, 0, 256, &(struct seq_opt){ .dma_len = 512 + PAYLOAD });
	seq_pkt(&s, SEQ_A, WRITE_MIDDLE, 1, 256, NULL);
	seq_pkt(&s, SEQ_A, WRITE_LAST, 2, PAYLOAD, &(struct seq_opt){ .ack_req = true });
	seq_pkt(&s, SEQ_A, SEND_FIRST, 3, 256, NULL);
	seq_pkt(&s, SEQ_A, SEND_MIDDLE, 4, 256, NULL);
	seq_pkt(&s, SEQ_A, SEND_LAST, 5, PAYLOAD, &(struct seq_opt){ .ack_req = true });
	ack(&s, 5, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_ACKREQ), 2);
	seq_free(&s);
}
END_TEST

START_TEST(req_ackreq_read_needs_none)
{
	/* A READ request is answered by its response, not by an ACK. */
	struct seq s;
	seq_init(&s);
	read_req(&s, 0, 64);
	read_resp(&s, READ_ONLY, 0, 64, 1, 0);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_ACKREQ), 0);
	seq_free(&s);
}
END_TEST

START_TEST(req_ackreq_uc_needs_none)
{
	/* UC has no ACKs: AckReq means nothing there. */
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, (UC | SEND_ONLY), 7, PAYLOAD, NULL);
	seq_pkt(&s, SEQ_A, (UC | SEND_ONLY), 8, PAYLOAD, NULL);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_ACKREQ), 0);
	seq_free(&s);
}
END_TEST

Suite *check_rsp_req_suite(void)
{
	Suite *s = suite_create("check_rsp_req");

	TCase *rsp = tcase_create("rsp_rules");
	tcase_add_test(rsp, rsp_ack_never_acknowledged);
	tcase_add_test(rsp, rsp_ack_coalesced);
	tcase_add_test(rsp, rsp_ack_covered_by_read_response);
	tcase_add_test(rsp, rsp_ack_capture_ends_first);
	tcase_add_test(rsp, rsp_ack_ack_in_flight_at_end);
	tcase_add_test(rsp, rsp_ack_lossy_stream_not_evaluated);
	tcase_add_test(rsp, rsp_nak_seq_second_nak);
	tcase_add_test(rsp, rsp_nak_seq_wrong_psn);
	tcase_add_test(rsp, rsp_nak_seq_missing);
	tcase_add_test(rsp, rsp_nak_seq_correct);
	tcase_add_test(rsp, rsp_nak_seq_second_nak_after_expected_arrived);
	tcase_add_test(rsp, rsp_nak_seq_later_psn_in_clean_stream);
	tcase_add_test(rsp, rsp_duplicate_counted_again);
	tcase_add_test(rsp, rsp_duplicate_wrong_psn);
	tcase_add_test(rsp, rsp_duplicate_reacked);
	tcase_add_test(rsp, rsp_duplicate_older_psn_reacked_with_expected_minus_one);
	tcase_add_test(rsp, rsp_duplicate_read_other_data);
	tcase_add_test(rsp, rsp_duplicate_read_same_data);
	tcase_add_test(rsp, rsp_duplicate_read_subset_same_data);
	tcase_add_test(rsp, rsp_duplicate_read_subset_other_data);
	tcase_add_test(rsp, rsp_nak_invalid_acked_instead);
	tcase_add_test(rsp, rsp_nak_invalid_acked_instead_all_rules);
	tcase_add_test(rsp, rsp_nak_invalid_wrong_code);
	tcase_add_test(rsp, rsp_nak_invalid_naked);
	tcase_add_test(rsp, rsp_nak_invalid_length_naked);
	tcase_add_test(rsp, rsp_nak_invalid_capture_ends_first);
	tcase_add_test(rsp, rsp_rnr_for_acknowledged_psn);
	tcase_add_test(rsp, rsp_rnr_refused_request);
	tcase_add_test(rsp, rsp_rnr_second_outstanding);
	tcase_add_test(rsp, rsp_silent_after_fatal_new_request);
	tcase_add_test(rsp, rsp_silent_after_fatal_ack);
	tcase_add_test(rsp, rsp_silent_after_fatal_kept);
	tcase_add_test(rsp, rsp_silent_nak_seq_is_not_fatal);
	tcase_add_test(rsp, rsp_icrc_drop_acked);
	tcase_add_test(rsp, rsp_icrc_drop_acked_pkt_icrc_off);
	tcase_add_test(rsp, rsp_icrc_drop_fatal_naked);
	tcase_add_test(rsp, rsp_icrc_drop_rnr_naked);
	tcase_add_test(rsp, rsp_icrc_drop_dropped_then_resent);
	tcase_add_test(rsp, rsp_icrc_drop_ack_stops_short);
	suite_add_tcase(s, rsp);

	TCase *req = tcase_create("req_rules");
	tcase_add_test(req, req_go_back_n_too_far);
	tcase_add_test(req, req_go_back_n_skips_p);
	tcase_add_test(req, req_go_back_n_exactly_p);
	tcase_add_test(req, req_go_back_n_new_psn_in_flight);
	tcase_add_test(req, req_go_back_n_resend_from_p_plus_1_after_one_loss);
	tcase_add_test(req, req_go_back_n_lossy_resend_from_p_plus_1);
	tcase_add_test(req, req_go_back_n_suspect_at_capture_end);
	tcase_add_test(req, req_go_back_n_suspect_cleared_by_ack);
	tcase_add_test(req, req_retransmit_same_other_payload);
	tcase_add_test(req, req_retransmit_same_other_length);
	tcase_add_test(req, req_retransmit_same_other_opcode);
	tcase_add_test(req, req_retransmit_same_read_larger);
	tcase_add_test(req, req_retransmit_same_identical);
	tcase_add_test(req, req_retransmit_same_read_subset);
	tcase_add_test(req, req_retransmit_same_read_subset_too_long);
	tcase_add_test(req, req_no_retransmit_acked_resent);
	tcase_add_test(req, req_no_retransmit_acked_coalesced);
	tcase_add_test(req, req_no_retransmit_acked_oldest_unacked);
	tcase_add_test(req, req_no_retransmit_acked_ack_crosses_resend);
	tcase_add_test(req, req_no_retransmit_acked_read_implicitly_naked);
	tcase_add_test(req, req_timeout_early);
	tcase_add_test(req, read_rerequest_after_response_gap_needs_no_timeout);
	tcase_add_test(req, read_rerequest_without_gap_is_a_timeout);
	tcase_add_test(req, req_timeout_one_us_early);
	tcase_add_test(req, req_timeout_exactly);
	tcase_add_test(req, req_timeout_too_late);
	tcase_add_test(req, req_timeout_within_bound);
	tcase_add_test(req, req_timeout_bound_from_last_request);
	tcase_add_test(req, req_timeout_early_without_any_ack);
	tcase_add_test(req, req_timeout_early_after_idle);
	tcase_add_test(req, req_timeout_not_oldest);
	tcase_add_test(req, req_timeout_not_oldest_without_any_ack);
	tcase_add_test(req, req_timeout_nak_resend_is_not_a_timeout);
	tcase_add_test(req, req_timeout_rnr_resend_is_not_a_timeout);
	tcase_add_test(req, req_timeout_needs_timeout);
	tcase_add_test(req, req_retry_limit_exceeded);
	tcase_add_test(req, req_retry_limit_exactly);
	tcase_add_test(req, req_retry_limit_zero);
	tcase_add_test(req, req_retry_limit_needs_retry_cnt);
	tcase_add_test(req, req_rnr_wait_one_us_early);
	tcase_add_test(req, req_rnr_wait_exactly);
	tcase_add_test(req, req_rnr_wait_code_12);
	tcase_add_test(req, req_rnr_wait_latest_timer);
	tcase_add_test(req, req_rnr_limit_exceeded);
	tcase_add_test(req, req_rnr_limit_zero);
	tcase_add_test(req, req_rnr_limit_exactly);
	tcase_add_test(req, req_rnr_limit_seven_is_unlimited);
	tcase_add_test(req, req_rnr_limit_needs_rnr_retry);
	tcase_add_test(req, req_stop_after_fatal_new_request);
	tcase_add_test(req, req_stop_after_fatal_stopped);
	tcase_add_test(req, req_stop_after_fatal_queued_in_the_requester);
	tcase_add_test(req, req_stop_after_fatal_beyond_in_flight);
	tcase_add_test(req, req_stop_after_fatal_request_in_flight);
	tcase_add_test(req, req_ackreq_send_only_without);
	tcase_add_test(req, req_ackreq_write_last_without);
	tcase_add_test(req, req_ackreq_first_middle_need_none);
	tcase_add_test(req, req_ackreq_read_needs_none);
	tcase_add_test(req, req_ackreq_uc_needs_none);
	suite_add_tcase(s, req);
	return s;
}
