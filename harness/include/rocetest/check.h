/* SPDX-License-Identifier: MIT */
/* Layer: check. */
/* The checks: PKT rules on one packet (flow rules build on them). */
#ifndef ROCETEST_CHECK_H
#define ROCETEST_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "rocetest/packet.h"
#include "rocetest/rules.h"

/*
 * Evaluates every PKT rule on one parsed RoCE packet (status RT_PARSE_ROCE)
 * and reports into v. pmtu is the path MTU of the packet's flow, given or
 * inferred; 0 when unknown, and then the rules that need it are "not
 * evaluated" (or evaluated against the largest legal PMTU, 4096, where that
 * alone can prove a violation).
 */
void rt_check_packet(const struct rt_packet *p, uint64_t frame, uint32_t pmtu, struct rt_verdicts *v);

/*
 * For a frame the parser called malformed after recognising it as RoCE (UDP
 * port 4791 or Ethertype 0x8915): the rule its broken field belongs to
 * (PKT-UDP-LENGTH or PKT-IP-HEADER), or -1 when the frame could not be
 * recognised as RoCE at all.
 */
int rt_malformed_rule(const struct rt_packet *p);

/*
 * The length rules as one predicate, for code that must act on them rather
 * than report them (the model's responder NAKs what fails): PadCnt fits,
 * payload + pad a multiple of 4, PadCnt 0 on First/Middle, no payload where
 * the opcode carries none, and the payload its place in the message allows
 * at this PMTU (PKT-PAD, PKT-LEN-FIRST-MIDDLE, PKT-LEN-LAST, PKT-LEN-ONLY, PKT-LEN-NO-PAYLOAD).
 * pmtu 0: First/Middle not judged.
 */
bool rt_payload_fits(const struct rt_packet *p, uint32_t pmtu);

/* True if n is one of the five IB path MTUs (256, 512, 1024, 2048, 4096). */
static inline int rt_is_pmtu(uint32_t n)
{
	return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

#endif
