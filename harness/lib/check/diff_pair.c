/* SPDX-License-Identifier: MIT */
/*
 * Which flow of B did the work of which flow of A. --map pairs by QPN;
 * the rest are paired by what they carry: for each candidate pair (same
 * transport) and orientation (A's side s as B's side s or 1 - s), how many
 * of the first messages of each direction have a message of the same
 * operation and length in the other capture's direction. Best scores pair
 * first; flows left over pair in order of appearance when the transport
 * agrees, so two captures of one connection always pair.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

/* Beyond this many candidate pairs, flows pair in order of appearance only. */
#define MAX_CANDIDATES (1u << 20)

uint64_t diff_msg_key(const struct rt_message *m)
{
	uint64_t ops = (uint64_t)m->family << 8 | (m->flags & RT_MSG_IMM ? 1u : 0) | (m->flags & RT_MSG_IETH ? 2u : 0);
	return ops << 32 | m->length;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The keys of a direction's first complete messages, sorted. */
static void signature_of(const struct diff_signature *from, struct diff_signature *s)
{
	*s = *from;
	qsort(s->key, s->n, sizeof s->key[0], cmp_u64);
}

/* Keys both sorted lists hold (as multisets). */
static unsigned overlap(const struct diff_signature *a, const struct diff_signature *b)
{
	unsigned i = 0, j = 0, n = 0;
	while (i < a->n && j < b->n) {
		if (a->key[i] == b->key[j]) {
			n++;
			i++;
			j++;
		} else if (a->key[i] < b->key[j]) {
			i++;
		} else {
			j++;
		}
	}
	return n;
}

struct candidate {
	uint32_t a, b;		/* flow ids */
	bool swapped;
	unsigned score;
};

static int cmp_candidates(const void *x, const void *y)
{
	const struct candidate *p = x, *q = y;
	if (p->score != q->score)
		return p->score > q->score ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (int)p->swapped - (int)q->swapped;
}

static int cmp_pairs(const void *x, const void *y)
{
	const struct rt_diff_pair *p = x, *q = y;
	return (p->flow_a > q->flow_a) - (p->flow_a < q->flow_a);
}

static struct rt_diff_pair *add_pair(struct diff_state *st, uint32_t a, uint32_t b, bool swapped, bool mapped)
{
	if (!rt_grow((void **)&st->pairs, &st->cap_pairs, st->res.n_pairs, sizeof *st->pairs)) {
		st->failed = true;
		return NULL;
	}
	st->res.pairs = st->pairs;
	struct rt_diff_pair *p = &st->pairs[st->res.n_pairs++];
	memset(p, 0, sizeof *p);
	p->id = (uint32_t)st->res.n_pairs;
	p->flow_a = a;
	p->flow_b = b;
	p->swapped = swapped;
	p->mapped = mapped;
	return p;
}

/* The flow of a capture with a side whose QP is qp, and that side; NULL when none. */
static const struct rt_flow_info *flow_with_qp(const struct diff_capture *cap, uint32_t qp, int *side)
{
	size_t n = rt_checker_flow_count(cap->checker);
	for (size_t i = 0; i < n; i++) {
		const struct rt_flow_info *f = rt_checker_flow(cap->checker, i);
		for (int s = 0; s < 2; s++) {
			if (f->side[s].qp_known && f->side[s].qp == qp && i < cap->n_flows && cap->flows[i].used) {
				*side = s;
				return f;
			}
		}
	}
	return NULL;
}

static int pair_mapped(struct diff_state *st, bool *taken_a, bool *taken_b, struct rt_error *err)
{
	for (unsigned k = 0; k < st->opt.n_map; k++) {
		int sa, sb;
		uint32_t qa = st->opt.map[k].qp_a, qb = st->opt.map[k].qp_b;
		const struct rt_flow_info *fa = flow_with_qp(&st->cap[0], qa, &sa);
		const struct rt_flow_info *fb = flow_with_qp(&st->cap[1], qb, &sb);
		if (!fa || !fb) {
			rt_error_set(err, "--map 0x%x=0x%x: capture %s has no flow with QP 0x%x", qa, qb, fa ? "B" : "A",
				     fa ? qb : qa);
			return -1;
		}
		if (taken_a[fa->id - 1] || taken_b[fb->id - 1]) {
			rt_error_set(err, "--map 0x%x=0x%x: that flow is paired already by another --map", qa, qb);
			return -1;
		}
		taken_a[fa->id - 1] = taken_b[fb->id - 1] = true;
		if (!add_pair(st, fa->id, fb->id, sa != sb, true))
			return -1;
	}
	return 0;
}

static unsigned score(const struct diff_signature sa[2], const struct diff_signature sb[2], bool swapped)
{
	return overlap(&sa[0], &sb[swapped]) + overlap(&sa[1], &sb[!swapped]);
}

/* Every candidate of flows not yet taken, best first; NULL with *n 0 when there are too many or memory runs out. */
static struct candidate *candidates(const struct diff_state *st, const bool *taken_a, const bool *taken_b, size_t *n)
{
	const struct diff_capture *A = &st->cap[0], *B = &st->cap[1];
	*n = 0;
	if ((uint64_t)A->n_flows * B->n_flows > MAX_CANDIDATES / 2)
		return NULL;
	struct candidate *c = malloc((2 * A->n_flows * B->n_flows + 1) * sizeof *c);
	struct diff_signature(*sig)[2] = malloc((A->n_flows + B->n_flows + 1) * sizeof *sig);
	for (size_t i = 0; c && sig && i < A->n_flows + B->n_flows; i++) {
		const struct diff_flow *f = i < A->n_flows ? &A->flows[i] : &B->flows[i - A->n_flows];
		signature_of(&f->sig[0], &sig[i][0]);
		signature_of(&f->sig[1], &sig[i][1]);
	}
	for (size_t i = 0; c && sig && i < A->n_flows; i++) {
		for (size_t j = 0; j < B->n_flows; j++) {
			const struct diff_flow *fa = &A->flows[i], *fb = &B->flows[j];
			if (taken_a[i] || taken_b[j] || !fa->used || !fb->used || fa->transport != fb->transport)
				continue;
			for (int sw = 0; sw < 2; sw++)
				c[(*n)++] = (struct candidate){ (uint32_t)i + 1, (uint32_t)j + 1, sw,
								score(sig[i], sig[A->n_flows + j], sw) };
		}
	}
	free(sig);
	if (c)
		qsort(c, *n, sizeof *c, cmp_candidates);
	return c;
}

/* Requests of a flow's side: which side plays the requester's part most. */
static uint64_t requests(const struct diff_flow *f, int side)
{
	return f->messages[side];
}

/* Flows left over: in order of appearance, the side that sent more requests as the other's. */
static void pair_in_order(struct diff_state *st, bool *taken_a, bool *taken_b)
{
	const struct diff_capture *A = &st->cap[0], *B = &st->cap[1];
	for (size_t i = 0; i < A->n_flows; i++) {
		const struct diff_flow *fa = &A->flows[i];
		for (size_t j = 0; j < B->n_flows && !taken_a[i] && fa->used; j++) {
			const struct diff_flow *fb = &B->flows[j];
			if (taken_b[j] || !fb->used || fa->transport != fb->transport)
				continue;
			bool swapped = (requests(fa, 0) >= requests(fa, 1)) != (requests(fb, 0) >= requests(fb, 1));
			taken_a[i] = taken_b[j] = true;
			add_pair(st, (uint32_t)i + 1, (uint32_t)j + 1, swapped, false);
		}
	}
}

static void list_unpaired(struct diff_state *st, const bool *taken_a, const bool *taken_b)
{
	for (size_t i = 0; i < st->cap[0].n_flows; i++)
		if (!taken_a[i] && st->cap[0].flows[i].used && st->res.n_unpaired_a < 64)
			st->res.unpaired_a[st->res.n_unpaired_a++] = (uint32_t)i + 1;
	for (size_t j = 0; j < st->cap[1].n_flows; j++)
		if (!taken_b[j] && st->cap[1].flows[j].used && st->res.n_unpaired_b < 64)
			st->res.unpaired_b[st->res.n_unpaired_b++] = (uint32_t)j + 1;
}

int diff_pair_flows(struct diff_state *st, struct rt_error *err)
{
	bool *taken_a = calloc(st->cap[0].n_flows + 1, 1), *taken_b = calloc(st->cap[1].n_flows + 1, 1);
	int rc = taken_a && taken_b ? pair_mapped(st, taken_a, taken_b, err) : -1;
	if (!rc) {
		size_t n;
		struct candidate *c = candidates(st, taken_a, taken_b, &n);
		for (size_t k = 0; k < n; k++) {
			if (c[k].score == 0)
				break;
			if (taken_a[c[k].a - 1] || taken_b[c[k].b - 1])
				continue;
			taken_a[c[k].a - 1] = taken_b[c[k].b - 1] = true;
			add_pair(st, c[k].a, c[k].b, c[k].swapped, false);
		}
		free(c);
		pair_in_order(st, taken_a, taken_b);
		list_unpaired(st, taken_a, taken_b);
	}
	free(taken_a);
	free(taken_b);
	/* Reported in the order of A's flows. */
	if (st->res.n_pairs)
		qsort(st->pairs, st->res.n_pairs, sizeof *st->pairs, cmp_pairs);
	for (size_t i = 0; i < st->res.n_pairs; i++)
		st->pairs[i].id = (uint32_t)i + 1;
	if (!rc && st->failed)
		rc = -1;
	if (rc && !err->msg[0])
		rt_error_set(err, "out of memory");
	return rc;
}
