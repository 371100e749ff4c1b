/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/* Words for people about packets: AETH syndromes, RNR timers, header summaries. */
#ifndef ROCETEST_DESCRIBE_H
#define ROCETEST_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "rocetest/packet.h"

/* "ACK (credits 31: unlimited)", "NAK PSN sequence error", "RNR NAK (timer 14: 1.28 ms)". */
void rt_describe_aeth(uint8_t syndrome, char *buf, size_t size);

/* The minimum RNR wait in microseconds for a 5-bit timer code (wire-facts.md table). */
double rt_rnr_timer_us(uint8_t code);

/* "NAK PSN sequence error" style name of a NAK code 0-4, or NULL if reserved. */
const char *rt_nak_code_name(uint8_t code);

/* "SEND First" with transport, e.g. "RC SEND First"; "opcode 0x1f (undefined)". */
void rt_describe_opcode(uint8_t opcode, char *buf, size_t size);

/* The extension headers present, e.g. "RETH va=0x1000 rkey=0x12 len=4096". */
void rt_describe_ext(const struct rt_packet *p, char *buf, size_t size);

#endif
