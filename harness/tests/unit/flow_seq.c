/* SPDX-License-Identifier: MIT */
#include "flow_seq.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/build.h"

static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
enum { QP_A = 0x11, QP_B = 0x22, SPORT = 0xC123 };

static void record(void *ctx, const struct rt_violation *v)
{
	struct seq *s = ctx;
	if (s->nv == SEQ_MAX_RECORDED)
		return;
	struct seq_violation *r = &s->v[s->nv++];
	r->rule = v->rule;
	r->frame = v->frame;
	r->flow = v->flow;
	snprintf(r->message, sizeof r->message, "%s", v->message);
}

void seq_init(struct seq *s)
{
	memset(s, 0, sizeof *s);
	rt_check_config_init(&s->cfg);
	s->cfg.on_violation = record;
	s->cfg.ctx = s;
	s->ts_ns = 1000000001LL;	/* not whole microseconds: the checker takes the timestamps as exact */
}

static void ensure_checker(struct seq *s)
{
	if (s->c)
		return;
	struct rt_error err;
	s->c = rt_checker_new(&s->cfg, &err);
	ck_assert_msg(s->c != NULL, "%s", err.msg);
}

uint64_t seq_pkt(struct seq *s, int from, uint8_t opcode, uint32_t psn, uint32_t payload_len, const struct seq_opt *opt)
{
	static const struct seq_opt none;
	if (!opt)
		opt = &none;
	ensure_checker(s);
	struct rt_build_spec b;
	rt_build_spec_init(&b);
	memcpy(b.src_ip, from == SEQ_A ? ip_a : ip_b, 4);
	memcpy(b.dst_ip, from == SEQ_A ? ip_b : ip_a, 4);
	b.ip_df = true;
	b.udp_sport = SPORT;
	b.bth.opcode = opcode;
	b.bth.pkey = 0xFFFF;
	b.bth.dest_qp = from == SEQ_A ? QP_B : QP_A;
	b.bth.psn = psn & 0xFFFFFF;
	b.bth.ack_req = opt->ack_req;
	b.bth.becn = opt->becn;
	if (opt->pad_count) {
		b.pad_explicit = true;
		b.bth.pad = opt->pad_count;
	}
	b.ext.aeth.syndrome = opt->syndrome ? opt->syndrome : 0x1F;
	b.ext.aeth.msn = opt->msn;
	b.ext.reth.dma_len = opt->dma_len;
	b.ext.reth.va = opt->va;
	b.ext.reth.rkey = 0x1234;
	b.ext.atomic.va = opt->va;
	b.ext.deth.qkey = 0x11111111;
	b.ext.deth.src_qp = from == SEQ_A ? QP_A : QP_B;
	static uint8_t payload[4096];
	memset(payload, opt->zero_payload ? 0 : opt->fill ? opt->fill : 0xA5, sizeof payload);
	ck_assert_uint_le(payload_len, sizeof payload);
	b.payload = payload;
	b.payload_len = payload_len;
	b.corrupt_icrc = opt->bad_icrc;
	uint8_t frame[4300];
	size_t len = rt_build(&b, frame, sizeof frame);
	ck_assert_uint_gt(len, 0);
	s->frame++;
	uint32_t caplen = opt->caplen && opt->caplen < len ? opt->caplen : (uint32_t)len;
	rt_checker_frame(s->c, RT_LINK_ETHERNET, s->frame, s->ts_ns, frame, caplen, (uint32_t)len);
	s->ts_ns += 1000;
	return s->frame;
}

void seq_wait_us(struct seq *s, double us)
{
	s->ts_ns += (int64_t)(us * 1000.0);
}

void seq_finish(struct seq *s)
{
	ensure_checker(s);
	rt_checker_finish(s->c);
}

unsigned seq_count(const struct seq *s, enum rt_rule rule)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nv; i++)
		n += s->v[i].rule == rule;
	return n;
}

bool seq_has(const struct seq *s, enum rt_rule rule, uint64_t frame)
{
	for (unsigned i = 0; i < s->nv; i++)
		if (s->v[i].rule == rule && s->v[i].frame == frame)
			return true;
	return false;
}

unsigned seq_others(const struct seq *s, int rule)
{
	unsigned n = 0;
	for (unsigned i = 0; i < s->nv; i++)
		n += (int)s->v[i].rule != rule;
	return n;
}

uint64_t seq_checked(const struct seq *s, enum rt_rule rule)
{
	return rt_checker_verdicts(s->c)->total.checked[rule];
}

uint64_t seq_not_evaluated(const struct seq *s, enum rt_rule rule)
{
	return rt_checker_verdicts(s->c)->total.not_evaluated[rule];
}

void seq_dump(const struct seq *s)
{
	for (unsigned i = 0; i < s->nv; i++)
		fprintf(stderr, "  frame %llu %s: %s\n", (unsigned long long)s->v[i].frame, rt_rule_info(s->v[i].rule)->id,
			s->v[i].message);
}

void seq_free(struct seq *s)
{
	rt_checker_free(s->c);
	s->c = NULL;
}
