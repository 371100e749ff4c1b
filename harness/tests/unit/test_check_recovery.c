/* SPDX-License-Identifier: MIT */
/*
 * The flow checker on recovery paths and imperfect captures, as real
 * traffic shows them (Linux rxe under loss, duplication and reordering;
 * ibdump and mirror captures; snap lengths): for each pattern a sequence
 * that must stay clean, and beside it the fault it must still catch.
 *
 * A is the requester, B the responder. MSNs are the responder's true
 * count of completed messages, except where a test is about the MSN.
 */
#include <check.h>
#include <string.h>

#include "flow_blocks.h"
#include "flow_seq.h"
#include "suites.h"

#define FAST_US 5.0	/* well inside any local ACK timeout */

static void with_timeout(struct seq *s, double us)
{
	s->cfg.have_timeout = true;
	s->cfg.timeout_us = us;
}

/* Flow 1 has a note containing needle. */
static bool has_note(const struct seq *s, const char *needle)
{
	const struct rt_flow_info *f = rt_checker_flow(s->c, 0);
	for (uint32_t i = 0; i < f->note_count; i++)
		if (strstr(f->notes[i], needle))
			return true;
	return false;
}

static uint64_t fetch_add(struct seq *s, uint32_t psn)
{
	return seq_pkt(s, SEQ_A, FETCH_ADD, psn, 0, &(struct seq_opt){ .ack_req = true, .va = 0x1000 });
}

static uint64_t atomic_ack(struct seq *s, uint32_t psn, uint32_t msn)
{
	return seq_pkt(s, SEQ_B, ATOMIC_ACK, psn, 0, &(struct seq_opt){ .msn = msn });
}

/* ==== atomics implicitly NAKed ================================================== */

/*
 * The Atomic ACK for PSN 0 is lost; the ACK for 1 passes over it. The
 * requester must ask for the atomic again at once (it needs the original
 * value) and go on from there; the responder answers from its saved result
 * with its current MSN.
 */
static void atomic_ack_lost(struct seq *s)
{
	with_timeout(s, 1000.0);
	fetch_add(s, 0);
	send_only(s, SEQ_A, 1);
	ack(s, 1, 2);
	seq_wait_us(s, FAST_US);
}

START_TEST(atomic_reissued_after_ack_beyond)
{
	struct seq s;
	seq_init(&s);
	atomic_ack_lost(&s);
	fetch_add(&s, 0);
	send_only(&s, SEQ_A, 1);
	atomic_ack(&s, 0, 2);
	ack(&s, 1, 2);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, SEQ_MSN);
	ASSERT_CHECKED(s, SEQ_ATOMIC_ACK);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_REQ_TIMEOUT), 0);
	seq_free(&s);
}
END_TEST

/* Without an answer beyond it, asking for the atomic again early is a retransmission by timeout, too early. */
START_TEST(atomic_reissued_without_ack_beyond_is_early)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 1000.0);
	fetch_add(&s, 0);
	seq_wait_us(&s, FAST_US);
	uint64_t again = fetch_add(&s, 0);
	atomic_ack(&s, 0, 1);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, again);
	seq_free(&s);
}
END_TEST

/* The SEND after the atomic, resent on its own though acknowledged, is still a violation. */
START_TEST(send_resent_past_ack_beside_atomic)
{
	struct seq s;
	seq_init(&s);
	atomic_ack_lost(&s);
	seq_wait_us(&s, 2000.0);
	uint64_t again = send_only(&s, SEQ_A, 1);
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_REQ_NO_RETRANSMIT_ACKED, again));
	seq_free(&s);
}
END_TEST

/* ==== answers to duplicates carry the responder's current MSN ======================= */

/*
 * The READ's response left the responder but never reached A; `sends`
 * SENDs complete (MSN 1 + sends) before A asks again, and the replay
 * carries that current MSN. Ends with the SEND after it, PSN sends + 1.
 */
static void read_replayed_after_sends(struct seq *s, uint32_t sends)
{
	read_req(s, 0, 64);
	read_resp(s, READ_ONLY, 0, 64, 1, 0x11);
	for (uint32_t psn = 1; psn <= sends; psn++)
		send_only(s, SEQ_A, psn);
	ack(s, sends, sends + 1);
	seq_wait_us(s, TIMEOUT_WAIT_US);
	read_req(s, 0, 64);
	read_resp(s, READ_ONLY, 0, 64, sends + 1, 0x11);
	send_only(s, SEQ_A, sends + 1);
}

START_TEST(read_replay_carries_current_msn)
{
	struct seq s;
	seq_init(&s);
	read_replayed_after_sends(&s, 2);
	ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_ge(seq_checked(&s, RT_RULE_SEQ_MSN), 2);
	seq_free(&s);
}
END_TEST

/* The MSN after a replay is still judged: one that counts the duplicate as a message fails. */
START_TEST(msn_after_read_replay_still_judged)
{
	struct seq s;
	seq_init(&s);
	read_replayed_after_sends(&s, 1);
	uint64_t bad = ack(&s, 2, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_MSN, bad);
	seq_free(&s);
}
END_TEST

START_TEST(atomic_replay_carries_current_msn)
{
	struct seq s;
	seq_init(&s);
	fetch_add(&s, 0);
	atomic_ack(&s, 0, 1);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	seq_wait_us(&s, TIMEOUT_WAIT_US);
	fetch_add(&s, 0);
	atomic_ack(&s, 0, 2);
	send_only(&s, SEQ_A, 2);
	ack(&s, 2, 3);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, SEQ_MSN);
	seq_free(&s);
}
END_TEST

/* ==== several duplicate READs queued ============================================== */

/* A READ of 2048 bytes at PMTU 1024 (PSNs 10, 11), asked three times before any response comes back. */
static void read_asked_three_times(struct seq *s)
{
	s->cfg.pmtu = 1024;
	for (int i = 0; i < 3; i++) {
		seq_pkt(s, SEQ_A, READ_REQ, 10, 0, &(struct seq_opt){ .dma_len = 2048, .va = 0x1000 });
		seq_wait_us(s, TIMEOUT_WAIT_US);
	}
}

START_TEST(read_duplicates_queued_answered_in_passes)
{
	struct seq s;
	seq_init(&s);
	read_asked_three_times(&s);
	for (int pass = 0; pass < 3; pass++) {
		read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
		read_resp(&s, READ_LAST, 11, 1024, 1, 0x22);
	}
	send_only(&s, SEQ_A, 12);
	ack(&s, 12, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, SEQ_READ_RESPONSE);
	ck_assert_uint_eq(seq_checked(&s, RT_RULE_RSP_DUPLICATE_READ), 4);
	seq_free(&s);
}
END_TEST

/* The first pass loses its Last; the next pass (going back to 10) answers the first duplicate. */
START_TEST(read_duplicates_pass_cut_short)
{
	struct seq s;
	seq_init(&s);
	read_asked_three_times(&s);
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
	for (int pass = 0; pass < 2; pass++) {
		read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
		read_resp(&s, READ_LAST, 11, 1024, 1, 0x22);
	}
	seq_finish(&s);
	ASSERT_CLEAN(s);
	seq_free(&s);
}
END_TEST

/* The first pass loses its Last; the pass after it (going back to 10) answers a duplicate: its data is compared. */
START_TEST(read_duplicates_pass_after_cut_compared)
{
	struct seq s;
	seq_init(&s);
	read_asked_three_times(&s);
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
	uint64_t bad = read_resp(&s, READ_FIRST, 10, 1024, 1, 0x44);
	read_resp(&s, READ_LAST, 11, 1024, 1, 0x22);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE_READ, bad);
	seq_free(&s);
}
END_TEST

/* The pass that answers the original is still judged: 1024 + 500 bytes for a READ of 2048 fails at its Last. */
START_TEST(read_duplicates_first_pass_short)
{
	struct seq s;
	seq_init(&s);
	read_asked_three_times(&s);
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
	uint64_t bad = read_resp(&s, READ_LAST, 11, 500, 1, 0x22);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_READ_RESPONSE, bad);
	seq_free(&s);
}
END_TEST

/* A pass answering a duplicate with other bytes than the first pass: RSP-DUPLICATE-READ. */
START_TEST(read_duplicates_second_pass_other_data)
{
	struct seq s;
	seq_init(&s);
	read_asked_three_times(&s);
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
	read_resp(&s, READ_LAST, 11, 1024, 1, 0x22);
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x22);
	uint64_t bad = read_resp(&s, READ_LAST, 11, 1024, 1, 0x33);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE_READ, bad);
	seq_free(&s);
}
END_TEST

/* ==== answers that lag behind the requests ========================================== */

/*
 * Captured at the responder: PSN 2 was lost before it, so 3 drew a NAK
 * sequence error, which reaches the capture only after a timeout resend of 2
 * (accepted) and of 3, 4, and before the ACKs for those. The responder had
 * 2..4 when the NAK showed up; the requester's go-back for the NAK then
 * resends them as duplicates, each owed a re-ACK with PSN 4 and MSN 4.
 */
static void nak_lags_behind_timeout_resend(struct seq *s)
{
	send_only(s, SEQ_A, 1);
	ack(s, 1, 1);
	send_only(s, SEQ_A, 3);
	send_only(s, SEQ_A, 4);
	seq_wait_us(s, TIMEOUT_WAIT_US);
	for (uint32_t psn = 2; psn <= 4; psn++)
		send_only(s, SEQ_A, psn);
	aeth(s, SYN_NAK_SEQ, 2, 1);
	for (uint32_t psn = 2; psn <= 4; psn++)
		ack(s, psn, psn);
}

START_TEST(nak_lagging_behind_the_resend_it_asked_for)
{
	struct seq s;
	seq_init(&s);
	nak_lags_behind_timeout_resend(&s);
	for (uint32_t psn = 2; psn <= 4; psn++) {
		send_only(&s, SEQ_A, psn);
		ack(&s, 4, 4);
	}
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, RSP_DUPLICATE);
	ASSERT_CHECKED(s, RSP_NAK_SEQ);
	ASSERT_CHECKED(s, SEQ_MSN);
	seq_free(&s);
}
END_TEST

/* The same, but the duplicate is re-acknowledged with PSN 3: the responder had 4 already, so that is wrong. */
START_TEST(nak_lagging_duplicate_reacked_short)
{
	struct seq s;
	seq_init(&s);
	nak_lags_behind_timeout_resend(&s);
	send_only(&s, SEQ_A, 2);
	uint64_t bad = ack(&s, 3, 4);
	seq_finish(&s);
	ASSERT_ONLY(s, RSP_DUPLICATE, bad);
	seq_free(&s);
}
END_TEST

/* ==== gaps the responder's MSN proves were sent ===================================== */

/* 4-packet SENDs; the capture misses the whole second message, which the ACK's MSN counts. */
START_TEST(gap_of_whole_messages_proven_by_msn)
{
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 256;
	for (uint32_t m = 0; m < 3; m++) {
		if (m == 1)
			continue;	/* PSNs 4..7: the capture tool dropped them */
		seq_pkt(&s, SEQ_A, SEND_FIRST, 4 * m, 256, NULL);
		seq_pkt(&s, SEQ_A, SEND_MIDDLE, 4 * m + 1, 256, NULL);
		seq_pkt(&s, SEQ_A, SEND_MIDDLE, 4 * m + 2, 256, NULL);
		seq_pkt(&s, SEQ_A, SEND_LAST, 4 * m + 3, 100, &(struct seq_opt){ .ack_req = true });
		ack(&s, 4 * m + 3, m + 1);
	}
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_uint_eq(seq_count(&s, RT_RULE_SEQ_PSN), 0);
	seq_free(&s);
}
END_TEST

/* The same gap with an MSN that counts no message in it: PSNs 4..7 were skipped. */
START_TEST(gap_the_msn_does_not_count_is_a_skip)
{
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 256;
	uint64_t jump = 0;
	for (uint32_t m = 0; m < 3; m++) {
		if (m == 1)
			continue;
		uint64_t first = seq_pkt(&s, SEQ_A, SEND_FIRST, 4 * m, 256, NULL);
		if (m == 2)
			jump = first;
		seq_pkt(&s, SEQ_A, SEND_MIDDLE, 4 * m + 1, 256, NULL);
		seq_pkt(&s, SEQ_A, SEND_MIDDLE, 4 * m + 2, 256, NULL);
		seq_pkt(&s, SEQ_A, SEND_LAST, 4 * m + 3, 100, &(struct seq_opt){ .ack_req = true });
		ack(&s, 4 * m + 3, m ? m : 1);
	}
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_PSN, jump);
	seq_free(&s);
}
END_TEST

/* ==== a PSN inside the range a READ took ============================================ */

/* PMTU 1024: the READ of 3000 bytes at 102 takes 102..104; the SEND after it at 103 reuses a PSN. */
START_TEST(request_inside_read_range_pmtu_known)
{
	struct seq s;
	seq_init(&s);
	s.cfg.pmtu = 1024;
	read_req(&s, 102, 3000);
	uint64_t bad = send_only(&s, SEQ_A, 103);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_PSN, bad);
	seq_free(&s);
}
END_TEST

/* PMTU unknown when the SEND goes out: the READ's three responses show it later. */
START_TEST(request_inside_read_range_pmtu_learnt)
{
	struct seq s;
	seq_init(&s);
	read_req(&s, 102, 3000);
	uint64_t bad = send_only(&s, SEQ_A, 103);
	read_resp(&s, READ_FIRST, 102, 1024, 1, 0x11);
	read_resp(&s, READ_MIDDLE, 103, 1024, 1, 0x11);
	read_resp(&s, READ_LAST, 104, 952, 1, 0x11);
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_SEQ_PSN, bad));
	ck_assert_uint_eq(seq_count(&s, RT_RULE_SEQ_WINDOW), 0);
	seq_free(&s);
}
END_TEST

/* The right next PSN after that READ is 105: clean. */
START_TEST(request_after_read_range)
{
	struct seq s;
	seq_init(&s);
	read_req(&s, 102, 3000);
	send_only(&s, SEQ_A, 105);
	read_resp(&s, READ_FIRST, 102, 1024, 1, 0x11);
	read_resp(&s, READ_MIDDLE, 103, 1024, 1, 0x11);
	read_resp(&s, READ_LAST, 104, 952, 1, 0x11);
	ack(&s, 105, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, SEQ_PSN);
	seq_free(&s);
}
END_TEST

/* ==== packets cut by the snap length ================================================= */

/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 = 54: every extension header is cut. */
#define SNAP_BTH 54u

START_TEST(nak_cut_before_aeth_is_no_ack)
{
	/* A NAK sequence error cut to 54 bytes must not count as an ACK of PSN 2. */
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 1000.0);
	send_only(&s, SEQ_A, 1);
	send_only(&s, SEQ_A, 3);
	seq_pkt(&s, SEQ_B, ACK, 2, 0, &(struct seq_opt){ .syndrome = SYN_NAK_SEQ, .msn = 1, .caplen = SNAP_BTH });
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	seq_pkt(&s, SEQ_B, ACK, 3, 0, &(struct seq_opt){ .msn = 3, .caplen = SNAP_BTH });
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert_msg(has_note(&s, "cut before their AETH"), "no note on the cut AETH");
	seq_free(&s);
}
END_TEST

START_TEST(read_cut_before_reth_has_unknown_length)
{
	/* READ request cut to 54 bytes: its responses (any number) are not held against a length of 0. */
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, &(struct seq_opt){ .dma_len = 3000, .va = 0x1000, .caplen = SNAP_BTH });
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x11);
	read_resp(&s, READ_MIDDLE, 11, 1024, 1, 0x11);
	read_resp(&s, READ_LAST, 12, 952, 1, 0x11);
	send_only(&s, SEQ_A, 13);
	ack(&s, 13, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_NOT_EVALUATED(s, SEQ_READ_RESPONSE);
	seq_free(&s);
}
END_TEST

START_TEST(write_length_checked_when_captured)
{
	/* The same READ captured whole, answered short: SEQ-READ-RESPONSE stands (the cut one is not lenient by accident). */
	struct seq s;
	seq_init(&s);
	seq_pkt(&s, SEQ_A, READ_REQ, 10, 0, &(struct seq_opt){ .dma_len = 3000, .va = 0x1000 });
	read_resp(&s, READ_FIRST, 10, 1024, 1, 0x11);
	read_resp(&s, READ_MIDDLE, 11, 1024, 1, 0x11);
	uint64_t bad = read_resp(&s, READ_LAST, 12, 900, 1, 0x11);
	seq_finish(&s);
	ASSERT_ONLY(s, SEQ_READ_RESPONSE, bad);
	seq_free(&s);
}
END_TEST

/* ==== capture order is not send order ================================================ */

/* A mirror capture shows the ACK for 3 a microsecond before requests 2 and 3 themselves. */
START_TEST(ack_captured_just_before_its_requests)
{
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 1);
	ack(&s, 3, 3);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 4);
	ack(&s, 4, 4);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert(has_note(&s, "captured before their request"));
	seq_free(&s);
}
END_TEST

/* The same ACK with the request only 200 us later: the responder answered ahead (SEQ-ACK-AHEAD). */
START_TEST(ack_long_before_its_request_is_ahead)
{
	struct seq s;
	seq_init(&s);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 1);
	uint64_t bad = ack(&s, 2, 2);
	seq_wait_us(&s, 200.0);
	send_only(&s, SEQ_A, 2);
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_SEQ_ACK_AHEAD, bad));
	seq_free(&s);
}
END_TEST

/*
 * 0..4 out; NAK for 1; the run resends 1, 2; a NAK for 3 (lost again) is
 * obeyed by 3 following on. Timeout configured.
 */
static void newer_nak_obeyed_in_sequence(struct seq *s)
{
	with_timeout(s, 1000.0);
	for (uint32_t psn = 0; psn < 5; psn++)
		send_only(s, SEQ_A, psn);
	aeth(s, SYN_NAK_SEQ, 1, 1);
	send_only(s, SEQ_A, 1);
	send_only(s, SEQ_A, 2);
	aeth(s, SYN_NAK_SEQ, 3, 3);
	send_only(s, SEQ_A, 3);
}

/* A mirror capture then shows a packet of the first run (2) late: not a timeout, not a go-back. */
START_TEST(resend_of_earlier_run_captured_after_newer_nak)
{
	struct seq s;
	seq_init(&s);
	newer_nak_obeyed_in_sequence(&s);
	send_only(&s, SEQ_A, 2);
	send_only(&s, SEQ_A, 3);
	send_only(&s, SEQ_A, 4);
	ack(&s, 4, 5);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert(has_note(&s, "after a newer NAK"));
	ck_assert_uint_ge(seq_checked(&s, RT_RULE_REQ_GO_BACK_N), 2);
	seq_free(&s);
}
END_TEST

/* Long after the NAK was obeyed, the same resend of 2 is a retransmission by timeout, too early here. */
START_TEST(resend_long_after_newer_nak_is_judged)
{
	struct seq s;
	seq_init(&s);
	newer_nak_obeyed_in_sequence(&s);
	seq_wait_us(&s, 100.0);
	uint64_t bad = send_only(&s, SEQ_A, 2);
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_REQ_TIMEOUT, bad));
	seq_free(&s);
}
END_TEST

/* ==== timestamps in whole microseconds ============================================== */

/*
 * A pcap file keeps microseconds: a resend 4194.3 us after the last
 * progress may be stamped 4194.0 us after it. Against a timeout of
 * 4194.304 us that is no early resend; 2 us short still is.
 */
static uint64_t resend_after_us(struct seq *s, double wait_us)
{
	s->ts_ns = 2000000000LL;	/* whole microseconds from here on */
	with_timeout(s, 4194.304);
	send_only(s, SEQ_A, 0);
	seq_wait_us(s, wait_us - 1.0);	/* the SEND itself took 1 us */
	return send_only(s, SEQ_A, 0);
}

START_TEST(timeout_within_microsecond_truncation)
{
	struct seq s;
	seq_init(&s);
	resend_after_us(&s, 4194.0);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ASSERT_CHECKED(s, REQ_TIMEOUT);
	seq_free(&s);
}
END_TEST

START_TEST(timeout_early_beyond_microsecond_truncation)
{
	struct seq s;
	seq_init(&s);
	uint64_t bad = resend_after_us(&s, 4192.0);
	seq_finish(&s);
	ASSERT_ONLY(s, REQ_TIMEOUT, bad);
	seq_free(&s);
}
END_TEST

/*
 * 0 and 1 out, the ACK for both comes late; after_us after the capture shows
 * it, it shows the timer's resend of 0, which the requester sent before that
 * ACK reached it. Timeout configured. Returns the resend.
 */
static uint64_t resend_after_its_ack(struct seq *s, double after_us, double in_flight_us)
{
	with_timeout(s, 100.0);
	s->cfg.in_flight_us = in_flight_us;
	send_only(s, SEQ_A, 0);
	send_only(s, SEQ_A, 1);
	seq_wait_us(s, 200.0);
	ack(s, 1, 2);
	seq_wait_us(s, after_us - 1.0);	/* the resend itself takes 1 us */
	return send_only(s, SEQ_A, 0);
}

/* The resend after_us after its ACK is capture order: clean, with the note. */
static void resend_after_its_ack_is_noted(double after_us, double in_flight_us)
{
	struct seq s;
	seq_init(&s);
	resend_after_its_ack(&s, after_us, in_flight_us);
	ack(&s, 1, 2);
	seq_finish(&s);
	ASSERT_CLEAN(s);
	ck_assert(has_note(&s, "after the answer that acknowledged them"));
	seq_free(&s);
}

/* A soft-RoCE requester inside a VM: its resend of 0 crossed the ACK for 1 on the way. */
START_TEST(resend_crossing_its_ack_is_capture_order)
{
	resend_after_its_ack_is_noted(20.0, 0);
}
END_TEST

/* Beyond the in-flight time the requester had the ACK: the resend breaks the rule. */
START_TEST(resend_long_after_its_ack_is_judged)
{
	struct seq s;
	seq_init(&s);
	uint64_t bad = resend_after_its_ack(&s, 80.0, 0);
	ack(&s, 1, 2);
	seq_finish(&s);
	/* Judged for its timer too: 80 us after the ACK, under the timeout of 100. */
	ASSERT_TWO(s, REQ_NO_RETRANSMIT_ACKED, bad, REQ_TIMEOUT, bad);
	seq_free(&s);
}
END_TEST

/* --in-flight-us 500 (a capture in a VM): the same 80 us is capture order again. */
START_TEST(resend_after_its_ack_within_configured_in_flight)
{
	resend_after_its_ack_is_noted(80.0, 500.0);
}
END_TEST

/* An older answer had acknowledged 0 already: resending 0 just after the next ACK is still wrong. */
START_TEST(resend_acked_by_an_older_answer_is_judged)
{
	struct seq s;
	seq_init(&s);
	with_timeout(&s, 100.0);
	send_only(&s, SEQ_A, 0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 0, 1);
	seq_wait_us(&s, 200.0);
	send_only(&s, SEQ_A, 1);
	ack(&s, 1, 2);
	uint64_t bad = send_only(&s, SEQ_A, 0);
	seq_finish(&s);
	ck_assert(seq_has(&s, RT_RULE_REQ_NO_RETRANSMIT_ACKED, bad));
	seq_free(&s);
}
END_TEST

Suite *check_recovery_suite(void)
{
	Suite *suite = suite_create("check_recovery");
	TCase *atomics = tcase_create("atomic_implicit_nak");
	tcase_add_test(atomics, atomic_reissued_after_ack_beyond);
	tcase_add_test(atomics, atomic_reissued_without_ack_beyond_is_early);
	tcase_add_test(atomics, send_resent_past_ack_beside_atomic);
	suite_add_tcase(suite, atomics);
	TCase *replay = tcase_create("replay_msn");
	tcase_add_test(replay, read_replay_carries_current_msn);
	tcase_add_test(replay, msn_after_read_replay_still_judged);
	tcase_add_test(replay, atomic_replay_carries_current_msn);
	suite_add_tcase(suite, replay);
	TCase *passes = tcase_create("read_passes");
	tcase_add_test(passes, read_duplicates_queued_answered_in_passes);
	tcase_add_test(passes, read_duplicates_pass_cut_short);
	tcase_add_test(passes, read_duplicates_pass_after_cut_compared);
	tcase_add_test(passes, read_duplicates_first_pass_short);
	tcase_add_test(passes, read_duplicates_second_pass_other_data);
	suite_add_tcase(suite, passes);
	TCase *lag = tcase_create("lagging_answers");
	tcase_add_test(lag, nak_lagging_behind_the_resend_it_asked_for);
	tcase_add_test(lag, nak_lagging_duplicate_reacked_short);
	suite_add_tcase(suite, lag);
	TCase *gaps = tcase_create("gaps_and_msn");
	tcase_add_test(gaps, gap_of_whole_messages_proven_by_msn);
	tcase_add_test(gaps, gap_the_msn_does_not_count_is_a_skip);
	suite_add_tcase(suite, gaps);
	TCase *inside = tcase_create("psn_inside_read");
	tcase_add_test(inside, request_inside_read_range_pmtu_known);
	tcase_add_test(inside, request_inside_read_range_pmtu_learnt);
	tcase_add_test(inside, request_after_read_range);
	suite_add_tcase(suite, inside);
	TCase *order = tcase_create("capture_order");
	tcase_add_test(order, ack_captured_just_before_its_requests);
	tcase_add_test(order, ack_long_before_its_request_is_ahead);
	tcase_add_test(order, resend_of_earlier_run_captured_after_newer_nak);
	tcase_add_test(order, resend_long_after_newer_nak_is_judged);
	tcase_add_test(order, resend_crossing_its_ack_is_capture_order);
	tcase_add_test(order, resend_long_after_its_ack_is_judged);
	tcase_add_test(order, resend_after_its_ack_within_configured_in_flight);
	tcase_add_test(order, resend_acked_by_an_older_answer_is_judged);
	suite_add_tcase(suite, order);
	TCase *us = tcase_create("microsecond_timestamps");
	tcase_add_test(us, timeout_within_microsecond_truncation);
	tcase_add_test(us, timeout_early_beyond_microsecond_truncation);
	suite_add_tcase(suite, us);
	TCase *cut = tcase_create("snap_length");
	tcase_add_test(cut, nak_cut_before_aeth_is_no_ack);
	tcase_add_test(cut, read_cut_before_reth_has_unknown_length);
	tcase_add_test(cut, write_length_checked_when_captured);
	suite_add_tcase(suite, cut);
	return suite;
}
