/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the unit test suites: hex vectors, frames built with
 * every field set to a recognisable value, the opcode facts of
 * wire-facts.md written out independently of harness/lib/packet/opcode.c, frames
 * re-wrapped in other link layers, real captures loaded into memory, and
 * the RFC 1071 sum done here rather than by the library under test.
 */
#ifndef ROCETEST_TEST_UTIL_H
#define ROCETEST_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/build.h"
#include "rocetest/packet.h"

/* The real captures live beside the checkout (CI has them there too). */
#define CAPTURES_DIR "../shared/captures"

/* Generous room for any frame the tests build (the largest is under 2 KB). */
#define TEST_FRAME_MAX 4096

/* Header sizes from the wire-facts.md "Extension headers" table. */
enum {
	FACT_BTH_BYTES = 12,
	FACT_RETH_BYTES = 16,
	FACT_AETH_BYTES = 4,
	FACT_IMMDT_BYTES = 4,
	FACT_IETH_BYTES = 4,
	FACT_ATOMICETH_BYTES = 28,
	FACT_ATOMICACKETH_BYTES = 8,
	FACT_DETH_BYTES = 8,
	FACT_ICRC_BYTES = 4,
};

/* One row of the wire-facts.md "Opcodes" table. */
struct fact_opcode {
	uint8_t opcode;
	uint8_t ext;		/* enum rt_ext_header bits of the headers listed after the BTH */
	unsigned ext_bytes;	/* their sizes added up from the table above */
	bool payload;		/* the table's "payload" column */
};
extern const struct fact_opcode fact_opcodes[];
extern const size_t fact_opcode_count;

/* Hex digits to bytes, ignoring white space; aborts the test on a bad digit or overflow. */
size_t hex_to_bytes(const char *hex, uint8_t *out, size_t cap);

/*
 * A spec for the opcode with every BTH and extension-header field set to a
 * value that uses its whole width; variant 1 complements them all so that a
 * field read from the wrong bits cannot pass both. Payload bytes follow a
 * pattern (payload_pattern) and padding is computed.
 */
void spec_with_fields(struct rt_build_spec *s, uint8_t opcode, uint32_t payload_len, int variant);
uint8_t payload_pattern(uint32_t i);

/* rt_build into buf, failing the test if the builder refuses. */
size_t build_frame(const struct rt_build_spec *s, uint8_t *buf, size_t cap);

/*
 * Re-frames an untagged Ethernet frame for another link type (Linux cooked
 * v1/v2 headers, or the bare IP packet). Returns the new length.
 */
size_t reframe(const uint8_t *eth, size_t len, enum rt_link link, uint8_t *out, size_t cap);
/* Bytes the link header takes before the network layer (for an untagged frame). */
unsigned link_header_bytes(enum rt_link link);

/* RFC 1071 one's-complement sum of big-endian 16-bit words, folded to 16 bits (not inverted). */
uint16_t ones_sum16(uint32_t initial, const uint8_t *b, size_t len);

/* Frames of a real capture, copied out of libpcap's buffer. */
struct loaded_frame {
	uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t number;
};
struct loaded_capture {
	enum rt_link link;
	size_t count;
	struct loaded_frame frames[64];
};
/* Loads up to max frames that parse as RoCE (max <= 64); fails the test if the file cannot be read. */
void load_roce_frames(const char *path, size_t max, struct loaded_capture *out);
void free_loaded_capture(struct loaded_capture *c);

/*
 * JSON, checked strictly (RFC 8259: no NaN, no trailing comma, no raw
 * control characters, valid UTF-8) and walked without building a tree.
 * Each returns a pointer into the text: the start of a value, from which
 * the others go on.
 */
/* True if text is exactly one JSON value (white space around it allowed). */
bool json_valid(const char *text);
/* Past the one value at s (white space before it allowed), or NULL when it is not one. */
const char *json_skip(const char *s);
/* The value of key in the object at object (keys compared as written, escapes not decoded), or NULL. */
const char *json_member(const char *object, const char *key);
/* Element i of the array at array, or NULL. */
const char *json_element(const char *array, size_t i);
/* Members of the object or elements of the array at value; (size_t)-1 when it is neither, or malformed. */
size_t json_length(const char *value);

/* Report text: how often part occurs (not overlapping); that it does or does not occur (a test failure if not). */
size_t text_count(const char *text, const char *part);
void text_assert_has(const char *text, const char *part);
void text_assert_lacks(const char *text, const char *part);

#endif
