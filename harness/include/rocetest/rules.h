/* SPDX-License-Identifier: MIT */
/* Layer: check. */
/*
 * The conformance rule catalogue (../shared/spec/rules.md) and the verdict
 * sink every check reports into. Rule IDs are stable: reports, JSON, JUnit
 * and the regression gate name rules by them.
 */
#ifndef ROCETEST_RULES_H
#define ROCETEST_RULES_H

#include <stdbool.h>
#include <stdint.h>

enum rt_severity {
	RT_SEV_ERROR,
	RT_SEV_WARNING,
};

/*
 * X(enum suffix, ID, default severity, what it needs, rule text). What a rule
 * needs is a setting ("PMTU", "timeout", "retry_cnt", "rnr_retry") or
 * "implementation": a rule of rules.md this version does not judge yet, so
 * every report says "not evaluated: not implemented yet", never "passed".
 */
#define RT_RULE_CATALOGUE(X)                                                                                   \
	X(PKT_IP_HEADER, "PKT-IP-HEADER", E, NULL,                                                             \
	  "IPv4: version 4, IHL 5, protocol 17, header checksum valid, not fragmented. IPv6: next header 17.") \
	X(PKT_IP_DF, "PKT-IP-DF", W, NULL, "IPv4 DF bit set.")                                                \
	X(PKT_UDP_LENGTH, "PKT-UDP-LENGTH", E, NULL,                                                           \
	  "UDP length equals the IP payload length and 8 + BTH + extension headers + payload + pad + 4.")      \
	X(PKT_UDP_CHECKSUM, "PKT-UDP-CHECKSUM", E, NULL, "UDP checksum is 0 or correct.")                      \
	X(PKT_UDP_SPORT, "PKT-UDP-SPORT", W, NULL, "UDP source port in 0xC000-0xFFFF.")                        \
	X(PKT_ICRC, "PKT-ICRC", E, NULL,                                                                       \
	  "ICRC matches. A packet cut short by the capture's snap length is \"not evaluated\".")               \
	X(PKT_TVER, "PKT-TVER", E, NULL, "BTH TVer is 0.")                                                     \
	X(PKT_OPCODE, "PKT-OPCODE", E, NULL,                                                                   \
	  "Opcode is defined (RC, UC, UD tables or CNP 0x81). RD/XRC/vendor opcodes: W \"unsupported\".")      \
	X(PKT_PAD, "PKT-PAD", E, NULL, "payload + pad is a multiple of 4 and First/Middle packets have PadCnt 0.") \
	X(PKT_PAD_ZERO, "PKT-PAD-ZERO", W, NULL, "pad bytes are zero.")                                        \
	X(PKT_LEN_FIRST_MIDDLE, "PKT-LEN-FIRST-MIDDLE", E, "PMTU",                                              \
	  "First/Middle payload equals the PMTU (needs PMTU, or inferred per flow).")                          \
	X(PKT_LEN_LAST, "PKT-LEN-LAST", E, NULL, "Last payload is 1..PMTU.")                                   \
	X(PKT_LEN_ONLY, "PKT-LEN-ONLY", E, NULL, "Only payload is 0..PMTU.")                                   \
	X(PKT_LEN_NO_PAYLOAD, "PKT-LEN-NO-PAYLOAD", E, NULL,                                                   \
	  "READ request, ACK, atomic ACK, Compare&Swap, Fetch&Add carry no payload and PadCnt 0.")             \
	X(PKT_RETH_DMALEN, "PKT-RETH-DMALEN", E, NULL, "RETH DMA length <= 2^31.")                             \
	X(PKT_ATOMIC_ALIGN, "PKT-ATOMIC-ALIGN", E, NULL, "AtomicETH virtual address is 8-byte aligned.")       \
	X(PKT_AETH_SYNDROME, "PKT-AETH-SYNDROME", E, NULL,                                                     \
	  "AETH bit 7 is 0, type is not 10b, NAK code is 0-3 on RC.")                                          \
	X(PKT_DESTQP, "PKT-DESTQP", E, NULL, "Destination QP is not 0; QP 1 only with UD opcodes.")            \
	X(PKT_PKEY, "PKT-PKEY", E, NULL, "low 15 bits of the P_Key are not 0.")                                \
	X(PKT_RESERVED, "PKT-RESERVED", W, NULL, "reserved BTH bits are 0; FECN 0; BECN set only on CNP.")     \
	X(PKT_ACKREQ_RESPONSE, "PKT-ACKREQ-RESPONSE", E, NULL, "responses (0x0D-0x12) and CNPs have AckReq 0.") \
	X(PKT_CNP, "PKT-CNP", E, NULL, "CNP: opcode 0x81, BECN 1, PSN 0, 16 zero bytes of payload, UDP length 40.") \
	X(PKT_UD_DETH, "PKT-UD-DETH", E, NULL, "UD opcodes carry a DETH whose reserved byte is 0.")            \
	X(SEQ_PSN, "SEQ-PSN", E, NULL,                                                                         \
	  "each new request's PSN is the previous request PSN + 1 (+N after a READ of N responses), modulo "   \
	  "2^24, unless it is a retransmission explained by a NAK or a timeout.")                              \
	X(SEQ_OPCODE, "SEQ-OPCODE", E, NULL,                                                                   \
	  "RC/UC requests follow First, Middle*, Last within one family (SEND or WRITE), with nothing else "   \
	  "between.")                                                                                          \
	X(SEQ_NO_FIRST, "SEQ-NO-FIRST", E, NULL, "no Middle or Last without an open First.")                   \
	X(SEQ_WRITE_LENGTH, "SEQ-WRITE-LENGTH", E, NULL,                                                       \
	  "the payloads of a WRITE message add up to the RETH DMA length of its First.")                       \
	X(SEQ_PMTU_CONSISTENT, "SEQ-PMTU-CONSISTENT", E, NULL,                                                 \
	  "all First/Middle packets of a flow have the same payload size, one of 256, 512, 1024, 2048, 4096.") \
	X(SEQ_READ_RESPONSE, "SEQ-READ-RESPONSE", E, NULL,                                                     \
	  "a READ of length L at PSN p gets max(1, ceil(L/PMTU)) responses with PSNs p.., opcodes Only or "    \
	  "First/Middle*/Last, total payload L.")                                                              \
	X(SEQ_READ_AETH, "SEQ-READ-AETH", E, NULL,                                                             \
	  "READ responses carry an AETH (of type ACK) exactly on First, Last and Only.")                       \
	X(SEQ_ATOMIC_ACK, "SEQ-ATOMIC-ACK", E, NULL, "an atomic ACK carries the PSN of its atomic request.")    \
	X(SEQ_ACK_AHEAD, "SEQ-ACK-AHEAD", E, NULL, "no ACK or NAK acknowledges a PSN that was never sent.")     \
	X(SEQ_MSN, "SEQ-MSN", E, NULL,                                                                         \
	  "the MSN in AETHs never goes backwards and advances by one per completed message.")                  \
	X(SEQ_WINDOW, "SEQ-WINDOW", E, NULL, "fewer than 2^23 PSNs are outstanding.")                          \
	X(SEQ_UC_ONLY_SENDS_WRITES, "SEQ-UC-ONLY-SENDS-WRITES", E, NULL, "UC flows carry no ACK, READ or atomic.") \
	X(RSP_ACK, "RSP-ACK", E, NULL,                                                                         \
	  "every in-order request with AckReq set is acknowledged (possibly coalesced) by a later "            \
	  "ACK/response whose PSN covers it, before the capture ends.")                                        \
	X(RSP_NAK_SEQ, "RSP-NAK-SEQ", E, NULL,                                                                 \
	  "a request ahead of the expected PSN gets one NAK sequence error carrying the expected PSN; no "      \
	  "second NAK until the expected PSN arrives.")                                                        \
	X(RSP_DUPLICATE, "RSP-DUPLICATE", E, NULL,                                                             \
	  "a duplicate SEND/WRITE is re-acknowledged with PSN expected - 1 and is not counted again in the "   \
	  "MSN.")                                                                                              \
	X(RSP_DUPLICATE_READ, "RSP-DUPLICATE-READ", E, NULL,                                                   \
	  "a duplicate READ is answered again from its PSN with the same data.")                               \
	X(RSP_NAK_INVALID, "RSP-NAK-INVALID", E, NULL,                                                         \
	  "an opcode-sequence or length violation is answered with NAK invalid request.")                      \
	X(RSP_RNR, "RSP-RNR", E, NULL, "an RNR NAK carries the PSN of the request it refuses and a timer code.") \
	X(RSP_SILENT_AFTER_FATAL, "RSP-SILENT-AFTER-FATAL", E, NULL,                                           \
	  "after a NAK invalid request / remote access / remote operational error the responder sends "        \
	  "nothing more on that QP.")                                                                          \
	X(RSP_ICRC_DROP, "RSP-ICRC-DROP", E, NULL,                                                             \
	  "a request with a bad ICRC is neither acknowledged nor NAKed (active tests).")                       \
	X(REQ_GO_BACK_N, "REQ-GO-BACK-N", E, NULL, "after NAK sequence error with PSN p, the next request sent has PSN p.") \
	X(REQ_RETRANSMIT_SAME, "REQ-RETRANSMIT-SAME", E, NULL,                                                 \
	  "a retransmitted PSN carries the same opcode and payload bytes as before (a READ may be "            \
	  "re-requested as a subset with adjusted RETH).")                                                     \
	X(REQ_NO_RETRANSMIT_ACKED, "REQ-NO-RETRANSMIT-ACKED", E, NULL,                                         \
	  "nothing at or before an acknowledged PSN is sent again (except READs implicitly NAKed).")           \
	X(REQ_TIMEOUT, "REQ-TIMEOUT", E, "timeout",                                                            \
	  "a retransmission without a NAK comes no earlier than the local ACK timeout and starts at the "      \
	  "oldest unacknowledged PSN (needs timeout).")                                                        \
	X(REQ_RETRY_LIMIT, "REQ-RETRY-LIMIT", E, "retry_cnt",                                                  \
	  "one PSN is retransmitted at most retry_cnt times (needs retry_cnt).")                               \
	X(REQ_RNR_WAIT, "REQ-RNR-WAIT", E, NULL,                                                               \
	  "after an RNR NAK the request is resent no earlier than the timer in the NAK allows.")               \
	X(REQ_RNR_LIMIT, "REQ-RNR-LIMIT", E, "rnr_retry",                                                      \
	  "at most rnr_retry resends after RNR NAKs, 7 meaning unlimited (needs rnr_retry).")                  \
	X(REQ_STOP_AFTER_FATAL, "REQ-STOP-AFTER-FATAL", E, NULL,                                               \
	  "after a fatal NAK the requester sends no new request on that QP.")                                  \
	X(REQ_ACKREQ, "REQ-ACKREQ", W, NULL, "AckReq is set on every Last/Only packet.")                       \
	X(CM_FRAME, "CM-FRAME", E, NULL,                                                                       \
	  "a CM frame on its UDP port is 64 bytes of payload, with valid request/ack types and zero pad bytes.") \
	X(CM_SEQUENCE, "CM-SEQUENCE", E, NULL,                                                                 \
	  "a QP is opened, given its peer info, moved to RTS and closed in that order; data before RTS is an " \
	  "error.")                                                                                            \
	X(CM_START_PSN, "CM-START-PSN", E, "implementation",                                                   \
	  "the first request on a QP set up by a captured connection exchange carries the starting PSN that "  \
	  "exchange set.")                                                                                     \
	X(CM_RKEY, "CM-RKEY", E, "implementation",                                                             \
	  "the R_Key in every RETH or AtomicETH on such a QP equals the R_Key the target announced in the "    \
	  "captured exchange.")                                                                                \
	X(CC_ECT, "CC-ECT", W, "implementation",                                                               \
	  "the data packets (requests, READ responses) of a flow are ECN-capable: IP ECN 01 or 10.")           \
	X(CC_CNP_ON_CE, "CC-CNP-ON-CE", E, "implementation",                                                   \
	  "the receiver of a CE-marked packet sends a CNP to the QP that sent it within one CNP interval, "    \
	  "unless it sent that QP a CNP within the interval before.")                                          \
	X(CC_CNP_INTERVAL, "CC-CNP-INTERVAL", E, "implementation",                                             \
	  "no two CNPs to one QP are closer than the CNP interval.")                                           \
	X(CC_CNP_SPURIOUS, "CC-CNP-SPURIOUS", E, "implementation",                                             \
	  "every CNP to a QP follows a CE-marked packet from that QP received since the previous CNP to it.")  \
	X(CC_RATE_REACT, "CC-RATE-REACT", W, "implementation",                                                 \
	  "a sender that keeps a QP sending across a CNP it received sends no faster in the rate-update "     \
	  "period after the CNP than in the same time before it.")

enum rt_rule {
#define RT_RULE_ENUM(sym, id, sev, needs, text) RT_RULE_##sym,
	RT_RULE_CATALOGUE(RT_RULE_ENUM)
#undef RT_RULE_ENUM
	RT_RULE_COUNT
};

struct rt_rule_info {
	const char *id;		/* "PKT-ICRC" */
	enum rt_severity severity;
	const char *needs;	/* configuration it needs ("PMTU"), or NULL */
	const char *text;
};

const struct rt_rule_info *rt_rule_info(enum rt_rule rule);
/* "PKT", "SEQ", "RSP", "REQ", "CM" or "CC": the ID's prefix. */
const char *rt_rule_group(enum rt_rule rule);
/* False for a rule of rules.md this version does not judge (it needs "implementation"). */
bool rt_rule_implemented(enum rt_rule rule);
/* The rule with this ID ("PKT-ICRC"), or -1. */
int rt_rule_find(const char *id);
const char *rt_severity_name(enum rt_severity s);	/* "error", "warning" */

/* One broken rule at one frame. */
struct rt_violation {
	enum rt_rule rule;
	enum rt_severity severity;
	uint64_t frame;		/* 1-based, as Wireshark numbers frames */
	uint32_t flow;		/* the flow's id (1-based), 0 when the packet belongs to none */
	const char *message;	/* valid during the callback only */
};

/* Per-rule counters of one scope (a whole capture, or one flow). */
struct rt_rule_counts {
	uint64_t checked[RT_RULE_COUNT];
	uint64_t violations[RT_RULE_COUNT];
	uint64_t not_evaluated[RT_RULE_COUNT];
};

/*
 * Where checks report. Per rule: how many times it was evaluated, how often
 * it failed, how often it could not be evaluated; each failure also goes to
 * on_violation. Rules not enabled are neither counted nor reported.
 */
struct rt_verdicts {
	struct rt_rule_counts total;
	bool enabled[RT_RULE_COUNT];
	bool as_error[RT_RULE_COUNT];	/* reported as errors whatever their own severity */
	void (*on_violation)(void *ctx, const struct rt_violation *v);
	void *ctx;
	/*
	 * The flow the checks now running belong to: its id goes into each
	 * violation and, when flow_counts is set, its own counters are kept
	 * beside the totals. The flow checker sets both before it reports.
	 */
	uint32_t flow;
	struct rt_rule_counts *flow_counts;
};

/* All rules enabled, counters zero, no callback. */
void rt_verdicts_init(struct rt_verdicts *v);

/* A rule held (counted as checked). Inline: every packet passes a dozen or more. */
static inline void rt_verdict_pass(struct rt_verdicts *v, enum rt_rule rule)
{
	if (!v->enabled[rule])
		return;
	v->total.checked[rule]++;
	if (v->flow_counts)
		v->flow_counts->checked[rule]++;
}
/* A rule could not be evaluated for this packet or flow. */
void rt_verdict_not_evaluated(struct rt_verdicts *v, enum rt_rule rule);
/* A rule broke: counted as checked and violated; the message is formatted only here. */
void rt_verdict_fail(struct rt_verdicts *v, enum rt_rule rule, enum rt_severity severity, uint64_t frame,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "pass", "fail" or "not_evaluated" (never checked) for one rule of a scope. */
const char *rt_rule_status(const struct rt_rule_counts *counts, enum rt_rule rule);

#endif
