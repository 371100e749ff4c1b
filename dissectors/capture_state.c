/* SPDX-License-Identifier: MIT */
/*
 * The plugin's memory of one capture (capture_state.h). Three growable
 * arrays, none of them allocated per packet: one record per frame (indexed
 * by frame number), the violations (each frame's chained through
 * first_violation/next, so a violation decided long after its frame still
 * joins it), and one string arena for their messages. Per flow, the first
 * PSN of each of its two streams, for the relative PSN.
 */
#include "capture_state.h"

#include <stdlib.h>
#include <string.h>

/* The PSNs of one flow's two streams: stream s is side s's requests and the other side's answers. */
struct stream_bases {
	uint32_t first_psn[2];
	bool have[2];
};

struct capture_state {
	struct rt_checker *checker;
	struct cs_frame *frames;	/* [frame]; frame 0 unused */
	size_t frame_cap;
	uint64_t last_frame;
	struct stream_bases *flows;	/* [flow id - 1] */
	size_t flow_cap;
	struct cs_violation *viol;
	size_t viol_count, viol_cap;
	char *arena;
	size_t arena_len, arena_cap;
	bool finished;
	bool oom;
};

/* Grows *array (elem bytes each, *cap of them) to hold at least need; false when memory runs out. */
static bool grow(void **array, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 1024;
	while (n < need)
		n *= 2;
	void *p = realloc(*array, n * elem);
	if (!p)
		return false;
	/* New records read as zero: a frame never fed, a flow not yet seen. */
	memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
	*array = p;
	*cap = n;
	return true;
}

static size_t arena_add(struct capture_state *cs, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t cap = cs->arena_cap;
	if (!grow((void **)&cs->arena, &cap, cs->arena_len + n, 1)) {
		cs->oom = true;
		return SIZE_MAX;
	}
	cs->arena_cap = cap;
	memcpy(cs->arena + cs->arena_len, s, n);
	cs->arena_len += n;
	return cs->arena_len - n;
}

/* The checker's violation hook: the violation joins its frame's chain. */
static void on_violation(void *ctx, const struct rt_violation *v)
{
	struct capture_state *cs = ctx;
	/* The checker names only frames it was given: anything else would be its bug, and is dropped. */
	if (v->frame == 0 || v->frame > cs->last_frame || !cs->frames[v->frame].fed)
		return;
	if (!grow((void **)&cs->viol, &cs->viol_cap, cs->viol_count + 1, sizeof *cs->viol)) {
		cs->oom = true;
		return;
	}
	size_t msg = arena_add(cs, v->message ? v->message : "");
	if (msg == SIZE_MAX)
		return;
	struct cs_violation *nv = &cs->viol[cs->viol_count++];
	*nv = (struct cs_violation){ .frame = v->frame, .flow = v->flow, .rule = (uint16_t)v->rule,
				     .severity = (uint8_t)v->severity, .message = msg };
	uint32_t *link = &cs->frames[v->frame].first_violation;
	while (*link)
		link = &cs->viol[*link - 1].next;
	*link = (uint32_t)cs->viol_count;
}

struct capture_state *cs_new(const struct rt_check_config *cfg)
{
	struct capture_state *cs = calloc(1, sizeof *cs);
	if (!cs)
		return NULL;
	struct rt_check_config c = *cfg;
	c.on_violation = on_violation;
	c.ctx = cs;
	c.ladder_flows = 0;
	struct rt_error err;
	cs->checker = rt_checker_new(&c, &err);
	if (!cs->checker) {
		free(cs);
		return NULL;
	}
	return cs;
}

void cs_free(struct capture_state *cs)
{
	if (!cs)
		return;
	rt_checker_free(cs->checker);
	free(cs->frames);
	free(cs->flows);
	free(cs->viol);
	free(cs->arena);
	free(cs);
}

/* The PSN relative to the first of its stream: side s's requests and the answers to them. */
static void record_rel_psn(struct capture_state *cs, struct cs_frame *fr, const struct rt_packet *p)
{
	if (!fr->flow || !p->op || p->op->family == RT_FAMILY_CNP)
		return;
	if (!grow((void **)&cs->flows, &cs->flow_cap, fr->flow, sizeof *cs->flows)) {
		cs->oom = true;
		return;
	}
	struct stream_bases *b = &cs->flows[fr->flow - 1];
	int stream = p->op->response ? !fr->side : fr->side;
	if (!b->have[stream]) {
		b->have[stream] = true;
		b->first_psn[stream] = p->bth.psn;
	}
	fr->rel_psn = (p->bth.psn - b->first_psn[stream]) & 0xFFFFFF;
	fr->has_rel_psn = true;
}

bool cs_feed(struct capture_state *cs, const struct rt_packet *p, enum rt_link link, uint64_t frame, int64_t ts_ns)
{
	if (cs->finished || frame <= cs->last_frame)
		return false;
	if (!grow((void **)&cs->frames, &cs->frame_cap, frame + 1, sizeof *cs->frames)) {
		cs->oom = true;
		return false;
	}
	/* Marked fed first: violations the checker finds at this frame join it at once. */
	cs->last_frame = frame;
	cs->frames[frame].fed = true;
	rt_checker_frame(cs->checker, link, frame, ts_ns, p->frame, p->caplen, p->wirelen);
	const struct rt_frame_result *r = rt_checker_last_frame(cs->checker);
	struct cs_frame *fr = &cs->frames[frame];
	if (r->frame == frame && r->flow) {
		fr->flow = r->flow;
		fr->side = r->side;
		fr->flags = r->flags;
		record_rel_psn(cs, fr, p);
	}
	return true;
}

void cs_finish(struct capture_state *cs)
{
	if (cs->finished)
		return;
	cs->finished = true;
	rt_checker_finish(cs->checker);
}

bool cs_finished(const struct capture_state *cs)
{
	return cs->finished;
}

struct cs_frame cs_frame_result(const struct capture_state *cs, uint64_t frame)
{
	if (frame == 0 || frame > cs->last_frame)
		return (struct cs_frame){ 0 };
	return cs->frames[frame];
}

const struct cs_violation *cs_first_violation(const struct capture_state *cs, uint64_t frame)
{
	if (frame == 0 || frame > cs->last_frame || !cs->frames[frame].first_violation)
		return NULL;
	return &cs->viol[cs->frames[frame].first_violation - 1];
}

const struct cs_violation *cs_next_violation(const struct capture_state *cs, const struct cs_violation *v)
{
	return v->next ? &cs->viol[v->next - 1] : NULL;
}

const char *cs_message(const struct capture_state *cs, const struct cs_violation *v)
{
	return cs->arena + v->message;
}

bool cs_out_of_memory(const struct capture_state *cs)
{
	return cs->oom;
}
