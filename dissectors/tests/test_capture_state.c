/* SPDX-License-Identifier: MIT */
/*
 * The plugin's per-capture memory (dissectors/capture_state.c) without
 * Wireshark: what it records per frame, and that each frame's violations are
 * exactly the ones the checker reported for it, in its order, including
 * those decided frames later or at the end. Prints "ok - " / "FAIL - "
 * lines (dissectors/tests/run.sh load); run from the repository root.
 *
 * usage: test-capture-state [VECTOR.pcap...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture_state.h"
#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/icrc.h"

static int failures;

static void report(bool good, const char *name, const char *why)
{
	if (good) {
		printf("ok - capture state: %s\n", name);
	} else {
		printf("FAIL - capture state: %s: %s\n", name, why);
		failures++;
	}
}

/* A packet between 10.0.0.1 (QP 0x11) and 10.0.0.2 (QP 0x12), parsed. */
struct built {
	uint8_t buf[256];
	struct rt_packet p;
};

static void build(struct built *b, bool from_a, uint8_t opcode, uint32_t psn, uint8_t tver, bool bad_icrc)
{
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	if (!from_a) {
		s.src_ip[3] = 2;
		s.dst_ip[3] = 1;
	}
	s.bth.opcode = opcode;
	s.bth.dest_qp = from_a ? 0x12 : 0x11;
	s.bth.psn = psn;
	s.bth.tver = tver;
	s.bth.ack_req = opcode == RT_OP_SEND_ONLY;
	s.ext.aeth = (struct rt_aeth){ .syndrome = 0x1F, .msn = 1 };
	s.payload_len = opcode == RT_OP_SEND_ONLY ? 8 : 0;
	s.corrupt_icrc = bad_icrc;
	size_t n = rt_build(&s, b->buf, sizeof b->buf);
	rt_parse(&b->p, RT_LINK_ETHERNET, b->buf, (uint32_t)n, (uint32_t)n);
}

static struct capture_state *fresh(void)
{
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	struct capture_state *cs = cs_new(&cfg);
	if (!cs) {
		fprintf(stderr, "test-capture-state: out of memory\n");
		exit(2);
	}
	return cs;
}

/* Frames go in once, in order, and none after the end. */
static void test_order(void)
{
	struct capture_state *cs = fresh();
	struct built b;
	build(&b, true, RT_OP_SEND_ONLY, 1, 0, false);
	bool first = cs_feed(cs, &b.p, RT_LINK_ETHERNET, 1, 0);
	bool again = cs_feed(cs, &b.p, RT_LINK_ETHERNET, 1, 0);
	bool gap = cs_feed(cs, &b.p, RT_LINK_ETHERNET, 3, 0);
	bool back = cs_feed(cs, &b.p, RT_LINK_ETHERNET, 2, 0);
	cs_finish(cs);
	bool late = cs_feed(cs, &b.p, RT_LINK_ETHERNET, 4, 0);
	bool fed = cs_frame_result(cs, 1).fed && cs_frame_result(cs, 3).fed;
	bool unfed = !cs_frame_result(cs, 2).fed && !cs_frame_result(cs, 4).fed && !cs_frame_result(cs, 0).fed &&
		     !cs_frame_result(cs, UINT64_MAX).fed;
	report(first && !again && gap && !back && !late && fed && unfed && cs_finished(cs),
	       "frames are taken once, in order, none after the end",
	       "a frame repeated, out of order or after cs_finish was taken, or a record is wrong");
	cs_free(cs);
}

/* The relative PSN counts from the stream's first PSN across the wrap; an ACK counts in its requests' stream. */
static void test_rel_psn(void)
{
	struct capture_state *cs = fresh();
	static const struct { bool from_a; uint8_t op; uint32_t psn; uint32_t rel; uint8_t side; } steps[] = {
		{ true, RT_OP_SEND_ONLY, 0xFFFFFE, 0, 0 }, { true, RT_OP_SEND_ONLY, 0xFFFFFF, 1, 0 },
		{ true, RT_OP_SEND_ONLY, 0, 2, 0 },	   { false, RT_OP_ACK, 0, 2, 1 },
	};
	char why[160] = "";
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		struct built b;
		build(&b, steps[i].from_a, steps[i].op, steps[i].psn, 0, false);
		cs_feed(cs, &b.p, RT_LINK_ETHERNET, i + 1, (int64_t)i * 1000);
		struct cs_frame fr = cs_frame_result(cs, i + 1);
		if (!*why && (fr.flow != 1 || fr.side != steps[i].side || !fr.has_rel_psn || fr.rel_psn != steps[i].rel))
			snprintf(why, sizeof why, "frame %zu: flow %u side %u rel_psn %u (valid %d), expected flow 1 side %u %u",
				 i + 1, fr.flow, fr.side, fr.rel_psn, fr.has_rel_psn, steps[i].side, steps[i].rel);
	}
	report(!*why, "flow, side and relative PSN across the PSN wrap, an ACK in its requests' stream", why);
	cs_free(cs);
}

/* What a plain checker reports, in order: the reference for the state's chains. */
struct seen {
	struct rt_violation v[64];
	char msg[64][RT_FLOW_NOTE_BYTES];
	size_t n;
};

static void collect(void *ctx, const struct rt_violation *v)
{
	struct seen *s = ctx;
	if (s->n < 64) {
		s->v[s->n] = *v;
		snprintf(s->msg[s->n++], RT_FLOW_NOTE_BYTES, "%s", v->message);
	}
}

/* A plain checker that collects into ref: the reference. */
static struct rt_checker *reference_checker(struct seen *ref)
{
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	ref->n = 0;
	cfg.on_violation = collect;
	cfg.ctx = ref;
	struct rt_error err;
	struct rt_checker *c = rt_checker_new(&cfg, &err);
	if (!c) {
		fprintf(stderr, "test-capture-state: %s\n", err.msg);
		exit(2);
	}
	return c;
}

/* Every frame's chain holds exactly the checker's violations of that frame, in the checker's order. */
static bool chains_match(struct capture_state *cs, const struct seen *ref, uint64_t frames, char *why, size_t size)
{
	size_t matched = 0;
	for (uint64_t f = 1; f <= frames; f++) {
		size_t i = 0;
		for (const struct cs_violation *v = cs_first_violation(cs, f); v; v = cs_next_violation(cs, v)) {
			while (i < ref->n && ref->v[i].frame != f)
				i++;
			if (i == ref->n || (enum rt_rule)v->rule != ref->v[i].rule || v->flow != ref->v[i].flow ||
			    strncmp(cs_message(cs, v), ref->msg[i], RT_FLOW_NOTE_BYTES - 1)) {
				snprintf(why, size, "frame %llu: %s is not the checker's next violation there",
					 (unsigned long long)f, rt_rule_info((enum rt_rule)v->rule)->id);
				return false;
			}
			i++;
			matched++;
		}
	}
	if (matched != ref->n)
		snprintf(why, size, "%zu violations in the chains, the checker reported %zu", matched, ref->n);
	return matched == ref->n;
}

/* Two violations at one frame (TVer 1 and a bad ICRC), kept in the order found. */
static void test_two_at_once(void)
{
	struct capture_state *cs = fresh();
	static struct seen ref;
	struct rt_checker *c = reference_checker(&ref);
	struct built b;
	build(&b, true, RT_OP_SEND_ONLY, 5, 1, true);
	cs_feed(cs, &b.p, RT_LINK_ETHERNET, 1, 0);
	rt_checker_frame(c, RT_LINK_ETHERNET, 1, 0, b.p.frame, b.p.caplen, b.p.wirelen);
	char why[200] = "fewer than two violations at frame 1";
	bool good = ref.n >= 2 && chains_match(cs, &ref, 1, why, sizeof why);
	report(good, "two violations at one frame, in the checker's order, with its messages", why);
	rt_checker_free(c);
	cs_free(cs);
}

/* A capture through the state and through a plain checker: the same violations at the same frames. */
static void test_capture(const char *path)
{
	struct rt_error err;
	struct rt_capture *cap = rt_capture_open(path, &err);
	char name[300], why[300] = "";
	snprintf(name, sizeof name, "%s: each frame's violations are the checker's, those decided later too", path);
	if (!cap) {
		report(false, name, err.msg);
		return;
	}
	struct capture_state *cs = fresh();
	static struct seen ref;
	struct rt_checker *c = reference_checker(&ref);
	struct rt_frame fr;
	uint64_t frames = 0;
	while (rt_capture_next(cap, &fr, &err) == 1) {
		struct rt_packet p;
		rt_parse(&p, rt_capture_link(cap), fr.data, fr.caplen, fr.wirelen);
		cs_feed(cs, &p, rt_capture_link(cap), fr.number, fr.ts_ns);
		rt_checker_frame(c, rt_capture_link(cap), fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
		frames = fr.number;
	}
	cs_finish(cs);
	rt_checker_finish(c);
	bool good = chains_match(cs, &ref, frames, why, sizeof why);
	if (good && ref.n == 0) {
		good = false;
		snprintf(why, sizeof why, "the capture has no violation to compare");
	}
	report(good, name, why);
	rt_checker_free(c);
	cs_free(cs);
	rt_capture_close(cap);
}

int main(int argc, char **argv)
{
	test_order();
	test_rel_psn();
	test_two_at_once();
	for (int i = 1; i < argc; i++)
		test_capture(argv[i]);
	return failures ? 1 : 0;
}
