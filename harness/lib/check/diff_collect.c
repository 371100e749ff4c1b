/* SPDX-License-Identifier: MIT */
/*
 * The diff's view of one capture, from its checker's hooks. First pass:
 * per flow, what its sides' packets carry besides the messages (TOS, TTL,
 * MigReq, UDP source ports, ACK credit codes) and a summary of its
 * messages for pairing. Second pass: each message of a paired flow joins
 * the queue of its pair's direction and is aligned as soon as the other
 * capture's queue allows.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

static struct diff_flow *flow_at(struct diff_capture *cap, uint32_t id)
{
	if (id > cap->cap_flows) {
		size_t n = cap->cap_flows ? cap->cap_flows : 16;
		while (n < id)
			n *= 2;
		struct diff_flow *f = realloc(cap->flows, n * sizeof *f);
		if (!f) {
			cap->failed = true;
			return NULL;
		}
		memset(f + cap->cap_flows, 0, (n - cap->cap_flows) * sizeof *f);
		cap->flows = f;
		cap->cap_flows = n;
	}
	if (id > cap->n_flows)
		cap->n_flows = id;
	return &cap->flows[id - 1];
}

static void side_facts(struct diff_side_facts *sf, const struct rt_packet *p)
{
	if (!sf->seen) {
		sf->seen = true;
		sf->tos = p->tos;
		sf->ttl = p->ttl;
		sf->sport = p->udp_sport;
	}
	sf->tos_varies |= p->tos != sf->tos;
	sf->ttl_varies |= p->ttl != sf->ttl;
	sf->migreq |= p->bth.migreq;
	if (p->roce_version == 2) {
		sf->sport_varies |= sf->rocev2 && p->udp_sport != sf->sport;
		if (!sf->rocev2)
			sf->sport = p->udp_sport;
		sf->rocev2 = true;
	}
	bool acks = p->op->family == RT_FAMILY_ACK || p->op->family == RT_FAMILY_ATOMIC_ACK;
	if (acks && (p->ext_present & RT_EXT_AETH) && rt_aeth_type(p->ext.aeth.syndrome) == RT_AETH_ACK)
		sf->credits |= 1u << rt_aeth_value(p->ext.aeth.syndrome);
}

void diff_on_packet(void *ctx, const struct rt_packet *p, const struct rt_frame_result *r, int64_t ts_ns)
{
	(void)ts_ns;
	struct diff_capture *cap = ctx;
	struct diff_flow *f = r->flow ? flow_at(cap, r->flow) : NULL;
	if (!f || !p->op || p->op->family == RT_FAMILY_CNP || p->op->family == RT_FAMILY_OTHER)
		return;
	if (!f->used) {
		f->used = true;
		f->transport = p->op->transport;
	}
	side_facts(&f->side[r->side & 1], p);
}

void diff_summarize(void *ctx, const struct rt_message *m)
{
	struct diff_capture *cap = ctx;
	struct diff_flow *f = flow_at(cap, m->flow);
	if (!f)
		return;
	int s = m->side & 1;
	f->messages[s]++;
	struct diff_signature *sig = &f->sig[s];
	if (!(m->flags & (RT_MSG_PARTIAL | RT_MSG_INCOMPLETE)) && sig->n < SIGNATURE_MESSAGES)
		sig->key[sig->n++] = diff_msg_key(m);
	/* The first address a non-SEND message carries: addresses are compared relative to it. */
	if (m->family != RT_FAMILY_SEND && !(m->flags & RT_MSG_PARTIAL) && !f->have_va[s]) {
		f->have_va[s] = true;
		f->base_va[s] = m->va;
	}
}

void diff_enqueue(void *ctx, const struct rt_message *m)
{
	struct diff_capture *cap = ctx;
	struct diff_state *st = cap->st;
	if (m->flow > cap->n_flows || !cap->flows[m->flow - 1].pair)
		return;
	size_t p = cap->flows[m->flow - 1].pair - 1;
	int s = (m->side & 1) ^ (cap->k && st->pairs[p].swapped);
	struct diff_queue *q = &st->dirs[p][s].q[cap->k];
	if (!diff_queue_push(q, m)) {
		st->failed = true;
		return;
	}
	if (diff_queue_len(q) == DIFF_WINDOW)
		st->full[cap->k]++;
	diff_align(st, p, s, false);
}

void diff_capture_free(struct diff_capture *cap)
{
	free(cap->flows);
	rt_checker_free(cap->checker);
	memset(cap, 0, sizeof *cap);
}

/* ---- a queue of messages ---------------------------------------------------- */

uint64_t diff_queue_len(const struct diff_queue *q)
{
	return q->n - q->base;
}

const struct rt_message *diff_queue_at(const struct diff_queue *q, uint64_t k)
{
	return &q->ring[(q->head + (k - q->base)) % q->cap];
}

bool diff_queue_push(struct diff_queue *q, const struct rt_message *m)
{
	uint64_t len = diff_queue_len(q);
	if (len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;
		struct rt_message *r = malloc(cap * sizeof *r);
		if (!r)
			return false;
		for (uint64_t k = 0; k < len; k++)
			r[k] = *diff_queue_at(q, q->base + k);
		free(q->ring);
		q->ring = r;
		q->cap = cap;
		q->head = 0;
	}
	q->ring[(q->head + len) % q->cap] = *m;
	q->n++;
	return true;
}

void diff_queue_pop(struct diff_queue *q, uint64_t count)
{
	q->base += count;
	q->head = (q->head + count) % (q->cap ? q->cap : 1);
}
