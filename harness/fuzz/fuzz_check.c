/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the checker (parse, PKT rules, flow analysis, notes,
 * ladder). Two kinds of input:
 *   - a capture file (pcap magic first): every frame goes to the checker, as
 *     `rocetest check` would feed it; the capture seeds and their mutations
 *     bring hostile framing;
 *   - anything else: a script of packets between two endpoints, built with
 *     valid ICRCs so they reach the flow rules (opcodes, PSN jumps back and
 *     forth, NAKs, RNR NAKs, MSNs, lengths, time steps, bad ICRCs). Random
 *     bytes seldom make a RoCE flow; a script always does.
 * The first script byte also picks the configuration (PMTU given or
 * inferred, timeout, retry counts, which rules run).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/checker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void count_violation(void *ctx, const struct rt_violation *v)
{
	(void)ctx;
	sink += v->frame + strlen(v->message);
}

/* Reads every result the report writers would, so nothing the checker hands out goes untouched. */
static void drain(struct rt_checker *c)
{
	rt_checker_finish(c);
	for (size_t i = 0; i < rt_checker_flow_count(c); i++) {
		const struct rt_flow_info *f = rt_checker_flow(c, i);
		for (uint32_t n = 0; n < f->note_count; n++)
			sink += strlen(f->notes[n]);
		for (uint32_t k = 0; k < f->ladder_count; k++)
			sink += f->ladder[k].psn + f->ladder[k].fold_count;
	}
	sink += rt_checker_totals(c)->errors;
}

static void run_capture(const uint8_t *data, size_t size, const struct rt_check_config *cfg)
{
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return;
	struct rt_error err;
	struct rt_capture *cap = rt_capture_fopen(f, "fuzz", &err);
	if (!cap)
		return;
	struct rt_checker *c = rt_checker_new(cfg, &err);
	if (c) {
		struct rt_frame fr;
		while (rt_capture_next(cap, &fr, &err) == 1)
			rt_checker_frame(c, rt_capture_link(cap), fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
		drain(c);
		rt_checker_free(c);
	}
	rt_capture_close(cap);
}

/* Opcodes a script may use: the RC and UC tables' requests and responses, UD, CNP and one undefined. */
static const uint8_t script_opcodes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x20, 0x21, 0x22, 0x24, 0x26, 0x28, 0x2A, 0x64, 0x81,
};
static const uint8_t script_syndromes[] = { 0x1F, 0x00, 0x2C, 0x20, 0x60, 0x61, 0x62, 0x63, 0x3F, 0x64 };

enum { STEP_BYTES = 8 };

static void run_script(const uint8_t *data, size_t size, struct rt_check_config *cfg)
{
	static const uint32_t pmtus[] = { 0, 256, 1024, 4096 };
	uint8_t conf = data[0];
	cfg->pmtu = pmtus[conf & 3];
	cfg->have_timeout = conf & 4;
	cfg->timeout_us = 50;
	cfg->retry_cnt = conf & 8 ? 2 : -1;
	cfg->rnr_retry = conf & 16 ? 1 : -1;
	cfg->max_flows = conf & 32 ? 1 : 0;	/* a full table: later flows untracked */
	struct rt_error err;
	struct rt_checker *c = rt_checker_new(cfg, &err);
	if (!c)
		return;
	uint32_t psn[2] = { 0xFFFFF0, 100 }, msn[2] = { 0, 0 };
	int64_t ts = 0;
	uint8_t frame[4400], payload[4096];
	memset(payload, 0, sizeof payload);
	uint64_t n = 0;
	for (size_t off = 1; off + STEP_BYTES <= size; off += STEP_BYTES) {
		const uint8_t *s = data + off;
		int side = s[0] & 1;
		struct rt_build_spec b;
		rt_build_spec_init(&b);
		b.src_ip[0] = b.dst_ip[0] = 10;
		b.src_ip[3] = (uint8_t)(1 + side);
		b.dst_ip[3] = (uint8_t)(2 - side);
		b.ip_df = true;
		b.udp_sport = 0xC000;
		b.bth.opcode = script_opcodes[s[1] % sizeof script_opcodes];
		b.bth.pkey = 0xFFFF;
		b.bth.dest_qp = s[0] & 2 ? 0x33 : (side ? 0x11 : 0x22);
		b.bth.ack_req = s[0] & 4;
		/* PSN: mostly the next one, sometimes a jump either way (psn[] tracks each side's stream). */
		int16_t jump = (int16_t)(s[2] | s[3] << 8);
		psn[side] = (psn[side] + (s[0] & 8 ? (uint32_t)(int32_t)jump : 1)) & 0xFFFFFF;
		b.bth.psn = psn[side];
		b.ext.aeth.syndrome = script_syndromes[s[5] % sizeof script_syndromes];
		msn[side] = (msn[side] + (s[6] & 3)) & 0xFFFFFF;
		b.ext.aeth.msn = msn[side];
		b.payload_len = (uint32_t)s[4] * 17 % 4097;
		b.payload = payload;
		b.ext.reth.dma_len = s[0] & 16 ? b.payload_len : (uint32_t)s[6] << 6;
		b.ext.atomic.va = s[7];
		b.corrupt_icrc = (s[0] & 0xE0) == 0xE0;
		size_t len = rt_build(&b, frame, sizeof frame);
		if (!len)
			continue;
		ts += (int64_t)s[7] * (s[0] & 32 ? 100000 : 100);
		rt_checker_frame(c, RT_LINK_ETHERNET, ++n, ts, frame, (uint32_t)len, (uint32_t)len);
	}
	drain(c);
	rt_checker_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	cfg.on_violation = count_violation;
	cfg.ladder_flows = 2;
	if (size >= 4 && (!memcmp(data, "\xd4\xc3\xb2\xa1", 4) || !memcmp(data, "\xa1\xb2\xc3\xd4", 4) ||
			  !memcmp(data, "\x4d\x3c\xb2\xa1", 4) || !memcmp(data, "\x0a\x0d\x0d\x0a", 4)))
		run_capture(data, size, &cfg);
	else if (size > 0)
		run_script(data, size, &cfg);
	return 0;
}
