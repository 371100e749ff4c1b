/* SPDX-License-Identifier: MIT */
/*
 * What the Wireshark plugin remembers of one capture file: the rocetest
 * checker (rocetest/checker.h) fed with every frame of the first pass in
 * order, and what it said, so that any later dissection of a frame (the
 * GUI's clicks, tshark's second pass) shows the same verdicts, including
 * those decided at later frames or at the end of the capture.
 *
 * Plain C without Wireshark types: the plugin (packet-rocetest.c) holds one
 * of these per open file. Nothing here judges a packet: the checker does.
 */
#ifndef ROCETEST_DISSECTOR_CAPTURE_STATE_H
#define ROCETEST_DISSECTOR_CAPTURE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/checker.h"

/* What the checker said of one frame when it was fed. */
struct cs_frame {
	uint32_t flow;		/* 0: no flow (not RoCE, malformed, untracked) */
	uint32_t rel_psn;	/* PSN - the first PSN of its stream (valid when has_rel_psn) */
	uint32_t first_violation;	/* index + 1 of its first violation; 0: none */
	uint8_t side;		/* the flow's side that sent it */
	uint8_t flags;		/* enum rt_ladder_flags */
	bool has_rel_psn;
	bool fed;		/* false: the frame never reached the checker */
};

/* One violation, its message kept in the state's string arena. */
struct cs_violation {
	uint64_t frame;
	uint32_t flow;
	uint32_t next;		/* index + 1 of the frame's next violation; 0: the last */
	uint16_t rule;		/* enum rt_rule */
	uint8_t severity;	/* enum rt_severity */
	size_t message;		/* offset into the arena (cs_message()) */
};

struct capture_state;

/* A state with a fresh checker configured by cfg (its on_violation is the state's own); NULL on no memory. */
struct capture_state *cs_new(const struct rt_check_config *cfg);
void cs_free(struct capture_state *cs);

/*
 * Feeds one frame of the first pass (frames in capture order, numbered from
 * 1): p is rt_parse()'s result for it (its bytes, lengths and, for the
 * relative PSN, opcode and PSN). Returns false when the frame cannot be
 * fed: the capture was declared finished (cs_finish) before it came, or it
 * does not come after the last frame fed.
 */
bool cs_feed(struct capture_state *cs, const struct rt_packet *p, enum rt_link link, uint64_t frame, int64_t ts_ns);

/* The capture's end: the checker decides what waited for later packets. Idempotent. */
void cs_finish(struct capture_state *cs);
bool cs_finished(const struct capture_state *cs);

/* What was recorded for a frame; a zeroed record (fed false) for a frame never fed. */
struct cs_frame cs_frame_result(const struct capture_state *cs, uint64_t frame);

/*
 * The violations the checker reported against a frame so far, in the order
 * it reported them: the first (NULL: none), then each one's next. Valid until
 * the next cs_feed() or cs_finish().
 */
const struct cs_violation *cs_first_violation(const struct capture_state *cs, uint64_t frame);
const struct cs_violation *cs_next_violation(const struct capture_state *cs, const struct cs_violation *v);
const char *cs_message(const struct capture_state *cs, const struct cs_violation *v);

/* Set when memory ran out: some violations or frame records were lost. */
bool cs_out_of_memory(const struct capture_state *cs);

#endif
