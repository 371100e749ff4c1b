/* SPDX-License-Identifier: MIT */
/*
 * The conformance suites of `rocetest run`: one table, one row per test.
 * Numbers worth knowing when reading it: frame numbers in faults count the
 * device's RoCE frames (dir 0) or the peer's (dir 1) from 1 in the work
 * phase; timeout code t is 4.096 us * 2^t; RNR timer code 1 is 10 us.
 */
#include <string.h>

#include "rocetest/model.h"
#include "rocetest/run.h"
#include "run_priv.h"

#define ALL_OPS 0x0F
#define OP(x) (1u << RT_DUT_##x)
#define PMTU4(c) { c, c, c, c }
#define EVERY (0xFFFFFFFFu)

/* A fault on frames first..last of a direction. */
#define FAULT(k, d, f, l) { .kind = RT_FAULT_##k, .dir = d, .first = f, .last = l }
/* ... on the first count frames that carry PSN p. */
#define FAULT_PSN(k, d, p, n) { .kind = RT_FAULT_##k, .dir = d, .by_psn = true, .psn = p, .count = n }

/*
 * Goodput: messages of one size and opcode on four QPs, about 4 MB in all (8
 * messages at least). 64 KB WRITEs must reach 97 Gb/s (the line-rate limit
 * with RoCEv2 headers is 98.01).
 */
#define THROUGHPUT_RTT(op, sz, nm, min, rtt_us)                                                             \
	{ .suite = "throughput", .name = nm, .n_qp = 4, .pmtu_code = PMTU4(4), .psn = 0x1000, .timeout = 14,  \
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(op), .sizes = RT_SIZES_FIXED, .size = sz,           \
	  .wrs_per_qp = (4u << 20) / (sz) / 4 > 2 ? (4u << 20) / (sz) / 4 : 2, .throughput = true,          \
	  .min_gbps = min, .one_way_ns = (rtt_us) * 500u,                                                   \
	  .description = #op " messages of " #sz " bytes, PMTU 4096, on 4 QPs back to back: goodput at "     \
			 "100 Gb/s with the peer's ACKs " #rtt_us " us round trip away" }
#define THROUGHPUT(op, sz, nm, min) THROUGHPUT_RTT(op, sz, nm, min, 2)

/*
 * RNR NAKs with timer code c (ms milliseconds by wire-facts.md's table) until
 * the peer posts receives at post_us: the device must wait out each code's
 * own timer, not one it assumed.
 */
#define RNR_CODE(c, ms, post_us)                                                                             \
	{ .suite = "rnr", .name = "rnr-code-" #c,                                                            \
	  .description = "RNR NAKs with timer code " #c " (" #ms " ms) until the peer posts receives at "   \
			 #post_us " us: the device waits at least that long before each resend",             \
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0xB80, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND), \
	  .sizes = RT_SIZES_FIXED, .size = 1500, .wrs_per_qp = 2, .peer = RT_PEER_RNR, .recv_post_us = post_us, \
	  .rnr_timer = c, .min_rnr_naks = 2, .min_retransmissions = 1 }

static const struct rt_run_spec specs[] = {
	/* ---- messages: every opcode and length class ---- */
	{ .suite = "messages", .name = "send", .quick = true,
	  .description = "SEND of every length class (0, 1, 2, 3, 5, 7, PMTU-1, PMTU, PMTU+1, 2 PMTU+1, 3 PMTU+5): "
			 "First/Middle/Last/Only, PadCnt and zero pad",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x100, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 22 },
	{ .suite = "messages", .name = "send-imm",
	  .description = "SEND with immediate of every length class: ImmDt on the Last/Only packet",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x100, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND_IMM),
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 22 },
	{ .suite = "messages", .name = "write", .quick = true,
	  .description = "RDMA WRITE of every length class: RETH on First/Only with the whole DMA length",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x100, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 22 },
	{ .suite = "messages", .name = "write-imm",
	  .description = "RDMA WRITE with immediate of every length class: RETH first, ImmDt last, a receive "
			 "consumed per message",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x100, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE_IMM),
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 22 },
	{ .suite = "messages", .name = "mixed-4qp",
	  .description = "all four opcodes interleaved on four QPs at once, random lengths up to 3 PMTU+7",
	  .n_qp = 4, .pmtu_code = { 0, 1, 2, 3 }, .psn = 0x2000, .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS,
	  .sizes = RT_SIZES_RANDOM, .wrs_per_qp = 40 },
	{ .suite = "messages", .name = "write-over-16m",
	  .description = "a WRITE and a WRITE with immediate of 16 MiB + 4099 bytes each (4097 packets at PMTU 4096): "
			 "lengths, PSNs and the RETH's DMA length past 24 bits",
	  .n_qp = 1, .pmtu_code = PMTU4(4), .psn = 0x400, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE) | OP(WRITE_IMM), .sizes = RT_SIZES_FIXED, .size = (16u << 20) + 4099, .wrs_per_qp = 2 },
	{ .suite = "messages", .name = "generator",
	  .description = "the built-in traffic generator started by CM txmeta frames: SEND, SEND with immediate, "
			 "WRITE and WRITE with immediate on QPs 0..3, 6 messages of 3000 bytes each",
	  .n_qp = 4, .pmtu_code = PMTU4(2), .psn = 0x300, .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS,
	  .sizes = RT_SIZES_FIXED, .size = 3000, .txmeta_n = 6, .txmeta_len = 3000 },

	/* ---- cm: the connection manager of cm-frame.md ---- */
	{ .suite = "cm", .name = "close-reopen",
	  .description = "QP 0 closed (CLOSE_QP: ACK, state RESET) and opened again (the lowest free QP: QPN 256, "
			 "its PSN again), then WRITEs and SENDs on both QPs",
	  .n_qp = 2, .pmtu_code = PMTU4(2), .psn = 0x600, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE) | OP(SEND), .sizes = RT_SIZES_FIXED, .size = 2100, .wrs_per_qp = 4,
	  .cm_case = RT_CM_CASE_REOPEN },
	{ .suite = "cm", .name = "refusals",
	  .description = "with all 4 QPs open: OPEN_QP gets NO_QP; SEND_QP_INFO to a QP in RTS, a second "
			 "MODIFY_QP_RTS, CLOSE_QP of a QPN not ours and a request with txmeta set get NAK; a frame "
			 "with ack_valid set gets no answer; the QPs then work as before",
	  .n_qp = 4, .pmtu_code = PMTU4(1), .psn = 0x700, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 900, .wrs_per_qp = 3, .cm_case = RT_CM_CASE_REFUSALS },

	/* ---- pmtu: segmentation at every PMTU ---- */
	{ .suite = "pmtu", .name = "pmtu-256",
	  .description = "PMTU 256: every opcode and length class", .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x10,
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS, .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },
	{ .suite = "pmtu", .name = "pmtu-512",
	  .description = "PMTU 512: every opcode and length class", .n_qp = 1, .pmtu_code = PMTU4(1), .psn = 0x10,
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS, .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },
	{ .suite = "pmtu", .name = "pmtu-1024",
	  .description = "PMTU 1024: every opcode and length class", .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x10,
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS, .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },
	{ .suite = "pmtu", .name = "pmtu-2048",
	  .description = "PMTU 2048: every opcode and length class", .n_qp = 1, .pmtu_code = PMTU4(3), .psn = 0x10,
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS, .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },
	{ .suite = "pmtu", .name = "pmtu-4096",
	  .description = "PMTU 4096: every opcode and length class", .n_qp = 1, .pmtu_code = PMTU4(4), .psn = 0x10,
	  .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS, .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },

	/* ---- psn: wrap at 2^24 ---- */
	{ .suite = "psn", .name = "psn-wrap", .quick = true,
	  .description = "first PSN 0xFFFFF0: QP 0's PSNs wrap to 0 inside multi-packet messages",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0xFFFFF0, .retry_cnt = 7, .rnr_retry = 7, .opcodes = ALL_OPS,
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 44 },
	{ .suite = "psn", .name = "psn-wrap-loss",
	  .description = "first PSN 0xFFFFFD, the request at PSN 0 lost: NAK and go-back-N across the wrap",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0xFFFFFD, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 2000, .wrs_per_qp = 4,
	  .faults = { FAULT_PSN(DROP, 0, 0, 1) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 1 },

	/* ---- loss: requests and ACKs lost on the link ---- */
	{ .suite = "loss", .name = "single-loss", .quick = true,
	  .description = "the device's 3rd request lost: the peer NAKs (sequence error), the device goes back N "
			 "from the NAK's PSN, resuming the message with Middle/Last",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x500, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE) | OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 5 * 256 + 13, .wrs_per_qp = 6,
	  .faults = { FAULT(DROP, 0, 3, 3) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 1 },
	{ .suite = "loss", .name = "burst-loss",
	  .description = "8 requests in a row lost (frames 5..12): one NAK, go-back-N",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x500, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 4000, .wrs_per_qp = 6,
	  .faults = { FAULT(DROP, 0, 5, 12) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 8 },
	{ .suite = "loss", .name = "tail-loss",
	  .description = "the last request of the run lost: no later packet shows the gap, so the device's local "
			 "ACK timer (code 3, 32.8 us) must resend it",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x700, .timeout = 3, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 3000, .wrs_per_qp = 3,
	  .faults = { FAULT(DROP, 0, 9, 9) }, .n_faults = 1, .min_timeouts = 1, .min_retransmissions = 1 },
	{ .suite = "loss", .name = "ack-loss",
	  .description = "the peer's first 3 ACKs lost: later ACKs are cumulative and cover them",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x700, .timeout = 8, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 3000, .wrs_per_qp = 8,
	  .faults = { FAULT(DROP, 1, 1, 3) }, .n_faults = 1 },
	{ .suite = "loss", .name = "all-acks-lost",
	  .description = "every ACK of the first message lost: the device's local ACK timer (code 2, 16.4 us) "
			 "resends, the peer answers the duplicate",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x700, .timeout = 2, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 3000, .wrs_per_qp = 1,
	  .faults = { FAULT(DROP, 1, 1, 2) }, .n_faults = 1, .min_timeouts = 1, .min_retransmissions = 1 },
	{ .suite = "loss", .name = "random-4qp",
	  .description = "four QPs, every PMTU, random lengths and opcodes, requests 7, 19, 31, 55 and ACKs 4, 9 lost",
	  .n_qp = 4, .pmtu_code = { 0, 2, 4, 1 }, .psn = 0xFFFF00, .timeout = 3, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = ALL_OPS, .sizes = RT_SIZES_RANDOM, .wrs_per_qp = 30,
	  .faults = { FAULT(DROP, 0, 7, 7), FAULT(DROP, 0, 19, 19), FAULT(DROP, 0, 31, 31), FAULT(DROP, 1, 4, 4) },
	  .n_faults = 4, .min_retransmissions = 3 },
	{ .suite = "loss", .name = "retry-reload",
	  .description = "retry_cnt 1, and three recoveries one after another: PSNs 0x781, 0x7A8 and 0x7D0 of 96 "
			 "lost once each, 40 packets apart (13 us of sending, far more than the 2 us round trip), so "
			 "each loss comes after the last NAK was obeyed. Each NAK costs the one retry and the "
			 "progress it brings gives it back: every WR completes",
	  .n_qp = 1, .pmtu_code = PMTU4(4), .psn = 0x780, .retry_cnt = 1, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 65536, .wrs_per_qp = 6,
	  .faults = { FAULT_PSN(DROP, 0, 0x781, 1), FAULT_PSN(DROP, 0, 0x7A8, 1), FAULT_PSN(DROP, 0, 0x7D0, 1) },
	  .n_faults = 3, .min_naks = 3, .min_retransmissions = 3 },
	{ .suite = "loss", .name = "single-loss-10us",
	  .description = "single-loss with the peer a 10 us round trip away: far more requests in flight when the "
			 "NAK comes; the device goes back N to the NAK's PSN all the same",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x500, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE) | OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 5 * 256 + 13, .wrs_per_qp = 12, .one_way_ns = 5000,
	  .faults = { FAULT(DROP, 0, 3, 3) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 1 },

	/* ---- dup, reorder, corrupt ---- */
	{ .suite = "link", .name = "duplicate-ack",
	  .description = "the peer's ACKs 2..4 arrive twice: the device ignores the stale copies",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x900, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 2500, .wrs_per_qp = 6,
	  .faults = { FAULT(DUPLICATE, 1, 2, 4) }, .n_faults = 1 },
	{ .suite = "link", .name = "duplicate-request",
	  .description = "the device's requests 3..5 arrive twice at the peer: it answers the copies as duplicates, "
			 "the device ignores the stale ACKs",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x900, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 1500, .wrs_per_qp = 4,
	  .faults = { FAULT(DUPLICATE, 0, 3, 5) }, .n_faults = 1 },
	{ .suite = "link", .name = "reorder-request",
	  .description = "the device's 4th request overtaken by the 5th: the peer NAKs the gap, the device goes back N",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0x900, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 1500, .wrs_per_qp = 4,
	  .faults = { FAULT(REORDER, 0, 4, 4) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 1 },
	{ .suite = "link", .name = "reorder-ack",
	  .description = "the peer's 2nd ACK overtaken by the 3rd: the older, cumulative ACK is stale and ignored "
			 "(SEQ-MSN left out: the link, not the peer, puts the MSNs out of order)",
	  .skip_rules = "SEQ-MSN",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0x900, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 1000, .wrs_per_qp = 6,
	  .faults = { FAULT(REORDER, 1, 2, 2) }, .n_faults = 1 },
	{ .suite = "link", .name = "corrupt-request", .quick = true,
	  .description = "the ICRC of the device's 3rd request broken on the link: the peer drops it, NAKs the "
			 "gap, the device goes back N",
	  .n_qp = 1, .pmtu_code = PMTU4(0), .psn = 0xA00, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE_IMM),
	  .sizes = RT_SIZES_FIXED, .size = 1100, .wrs_per_qp = 4,
	  .faults = { FAULT(CORRUPT, 0, 3, 3) }, .n_faults = 1, .min_naks = 1, .min_retransmissions = 1 },
	{ .suite = "link", .name = "corrupt-ack",
	  .description = "the ICRC of the peer's 1st and 2nd ACKs broken: the device drops both (bad-ICRC counter) "
			 "and completes on the later cumulative ACKs",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0xA00, .timeout = 4, .retry_cnt = 7, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 1000, .wrs_per_qp = 5,
	  .faults = { FAULT(CORRUPT, 1, 1, 2) }, .n_faults = 1 },

	/* ---- rnr ---- */
	{ .suite = "rnr", .name = "rnr-wait", .quick = true,
	  .description = "no receive buffer at the peer for the first 60 us: RNR NAKs with timer code 1 (10 us); "
			 "the device waits the timer each time, then resends and completes",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0xB00, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 2500, .wrs_per_qp = 3, .peer = RT_PEER_RNR, .recv_post_us = 60,
	  .rnr_timer = 1, .min_rnr_naks = 2, .min_retransmissions = 1 },
	{ .suite = "rnr", .name = "rnr-retry-exhausted",
	  .description = "no receive buffer ever: RNR NAK, wait, resend, 4 times; with rnr_retry 3 the first SEND "
			 "completes rnr-retry-exceeded and the rest are flushed",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0xB00, .retry_cnt = 7, .rnr_retry = 3, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_FIXED, .size = 700, .wrs_per_qp = 3, .peer = RT_PEER_NO_RECV, .rnr_timer = 1,
	  .fail_wr = 1, .fail_status = RT_DUT_RNR_RETRY_EXCEEDED, .min_rnr_naks = 4 },
	RNR_CODE(4, 0.04, 100),
	RNR_CODE(9, 0.24, 300),
	RNR_CODE(14, 1.28, 1400),

	/* ---- timeout ---- */
	{ .suite = "timeout", .name = "retry-exhausted",
	  .description = "every ACK lost: the device resends on its local ACK timer (code 2) retry_cnt 3 times, "
			 "then completes the first WR retry-exceeded and flushes the rest",
	  .n_qp = 1, .pmtu_code = PMTU4(2), .psn = 0xC00, .timeout = 2, .retry_cnt = 3, .rnr_retry = 7,
	  .opcodes = OP(WRITE), .sizes = RT_SIZES_FIXED, .size = 2000, .wrs_per_qp = 3,
	  .faults = { FAULT(DROP, 1, 1, EVERY) }, .n_faults = 1,
	  .fail_wr = 1, .fail_status = RT_DUT_RETRY_EXCEEDED, .min_timeouts = 4, .min_retransmissions = 3 },

	/* ---- fatal NAK ---- */
	{ .suite = "fatal", .name = "remote-access-error", .quick = true,
	  .description = "QP 0's 3rd WRITE carries a wrong R_Key: the peer answers NAK remote access error; that "
			 "WR completes remote-access-error, the later ones flushed, the QP goes to ERROR; QP 1 is "
			 "not disturbed",
	  .n_qp = 2, .pmtu_code = PMTU4(2), .psn = 0xD00, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 1500, .wrs_per_qp = 5, .bad_rkey_wr = 3,
	  .fail_wr = 3, .fail_status = RT_DUT_REMOTE_ACCESS, .min_naks = 1 },
	{ .suite = "fatal", .name = "invalid-request",
	  .description = "QP 0's 9th SEND (PMTU + 1 bytes) is longer than the peer's receive buffers (PMTU bytes): NAK "
			 "invalid request; that WR completes remote-invalid-request, the later ones flushed, the QP "
			 "goes to ERROR; QP 1 is not disturbed",
	  .n_qp = 2, .pmtu_code = PMTU4(2), .psn = 0xD80, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(SEND),
	  .sizes = RT_SIZES_CLASSES, .wrs_per_qp = 11, .peer_recv_size = 1024,
	  .fail_wr = 9, .fail_status = RT_DUT_REMOTE_INVALID, .min_naks = 1 },
	{ .suite = "fatal", .name = "remote-operational-error",
	  .description = "the peer fails QP 0's 3rd WRITE with an internal error: NAK remote operational error; that WR "
			 "completes remote-operational-error, the later ones flushed, the QP goes to ERROR; QP 1 is "
			 "not disturbed",
	  .n_qp = 2, .pmtu_code = PMTU4(2), .psn = 0xE00, .retry_cnt = 7, .rnr_retry = 7, .opcodes = OP(WRITE),
	  .sizes = RT_SIZES_FIXED, .size = 1500, .wrs_per_qp = 5, .peer_op_error_msg = 3,
	  .fail_wr = 3, .fail_status = RT_DUT_REMOTE_OP, .min_naks = 1 },

	/* ---- throughput ---- */
	THROUGHPUT(WRITE, 256, "write-256", 71.0),
	THROUGHPUT(WRITE, 1024, "write-1k", 0),
	THROUGHPUT(WRITE, 4096, "write-4k", 0),
	/* the work queues, not the window, bound a long round trip: 4 QPs x WQ_DEPTH WRs in flight */
	THROUGHPUT_RTT(WRITE, 4096, "write-4k-10us", 97.6, 10),
	THROUGHPUT(WRITE, 5120, "write-5k", 0),
	THROUGHPUT(WRITE, 16384, "write-16k", 0),
	THROUGHPUT(WRITE, 65536, "write-64k", 97.9),
	THROUGHPUT(WRITE, 1048576, "write-1m", 0),
	THROUGHPUT(SEND, 256, "send-256", 0),
	THROUGHPUT(SEND, 1024, "send-1k", 0),
	THROUGHPUT(SEND, 4096, "send-4k", 0),
	THROUGHPUT(SEND, 5120, "send-5k", 0),
	THROUGHPUT(SEND, 16384, "send-16k", 0),
	THROUGHPUT(SEND, 65536, "send-64k", 0),
	THROUGHPUT(SEND, 1048576, "send-1m", 0),
};

static const char *const suite_names[] = {
	"messages", "cm", "pmtu", "psn", "loss", "link", "rnr", "timeout", "fatal", "throughput",
};

const struct rt_run_spec *rt_run_specs(size_t *n)
{
	*n = sizeof specs / sizeof specs[0];
	return specs;
}

const char *const *rt_run_suite_names(size_t *n)
{
	*n = sizeof suite_names / sizeof suite_names[0];
	return suite_names;
}

bool rt_run_in_suite(const struct rt_run_spec *spec, const char *suite)
{
	return !strcmp(suite, "all") || !strcmp(suite, spec->suite) || (!strcmp(suite, "quick") && spec->quick) ||
	       (!strcmp(suite, "functional") && !spec->throughput);
}

uint64_t rt_run_timer_ns(const struct rt_run_spec *spec)
{
	uint64_t t = (uint64_t)rt_local_ack_timeout_ns(run_timeout_code(spec));
	if (spec->peer != RT_PEER_READY && (uint64_t)rt_rnr_timer_ns(spec->rnr_timer) < t)
		t = (uint64_t)rt_rnr_timer_ns(spec->rnr_timer);
	uint64_t rtt = 2ull * run_one_way_ns(spec);
	if (spec->throughput && rtt < t)
		t = rtt;
	return t;
}
