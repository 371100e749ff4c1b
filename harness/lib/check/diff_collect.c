/* SPDX-License-Identifier: MIT */
/*
 * The diff's view of one capture: every packet the checker tracked, with
 * its flow and side, becomes part of a requester's message or an answer to
 * one. Messages are numbered by PSN from the direction's first: a packet
 * whose PSN the direction has passed is sent again: it counts for the
 * message it belongs to and starts nothing; a jump ahead is
 * a capture gap (a hole a later resend may fill: the packet was lost
 * before the capture point), except after a READ, whose responses take
 * PSNs.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

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
	struct diff_flow *f = &cap->flows[id - 1];
	f->id = id;
	return f;
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
}

/* The message whose PSNs hold ext; a READ still open to responses holds every PSN from its own on. */
static struct diff_msg *find_msg(struct diff_half *h, uint64_t ext)
{
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->msgs[mid].start <= ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	struct diff_msg *m = &h->msgs[lo - 1];
	bool last_read = lo == h->n && h->read_span;
	return ext <= m->end || last_read ? m : NULL;
}

static struct diff_msg *new_msg(struct diff_capture *cap, struct diff_half *h, const struct rt_packet *p,
				uint64_t frame)
{
	if (!rt_grow((void **)&h->msgs, &h->cap, h->n, sizeof *h->msgs)) {
		cap->failed = true;
		return NULL;
	}
	struct diff_msg *m = &h->msgs[h->n++];
	memset(m, 0, sizeof *m);
	m->start = m->end = h->next;
	m->first_frame = frame;
	m->ack_ns = -1;
	m->family = p->op->family;
	m->transport = p->op->transport;
	m->first_len = p->payload_len;
	m->resp_hash = FNV_OFFSET;
	if (h->gap)
		m->flags |= MSG_AFTER_GAP;
	h->gap = false;
	return m;
}

/* What the first packet of a message says of the whole: its address, a READ's length, the atomic operands. */
static void message_header(struct diff_msg *m, const struct rt_packet *p)
{
	if (p->ext_present & RT_EXT_RETH) {
		m->va = p->ext.reth.va;
		if (m->family == RT_FAMILY_READ_REQUEST)
			m->length = p->ext.reth.dma_len;
	}
	if (p->ext_present & RT_EXT_ATOMICETH) {
		m->va = p->ext.atomic.va;
		m->atomic[0] = p->ext.atomic.swap_add;
		m->atomic[1] = p->ext.atomic.compare;
		m->length = 8;
	}
}

/* A packet of m in this capture for the first time, at ext (in order, or filling a hole). */
static void add_packet(struct diff_capture *cap, struct diff_msg *m, const struct rt_packet *p, uint64_t ext,
		       uint64_t frame, int64_t ts_ns)
{
	uint64_t pos = ext - m->start;
	if (pos < 32 && p->bth.ack_req)
		m->ackreq_bits |= 1u << pos;
	m->packets++;
	m->ackreq += p->bth.ack_req;
	if (m->family != RT_FAMILY_READ_REQUEST && m->family != RT_FAMILY_ATOMIC)
		m->length += p->payload_len;
	if (pos == 0)
		m->first_len = p->payload_len;
	/* Added up, so that a packet that fills a hole later counts as if it had come in order. */
	m->seg_hash += ((uint32_t)pos * 0x9E3779B1u) ^ (p->payload_len * 0x85EBCA77u);
	if (p->truncated)
		m->flags |= MSG_TRUNCATED;
	else if (cap->payload)
		m->payload_hash += fnv(FNV_OFFSET ^ pos * FNV_PRIME, p->frame + p->payload_off, p->payload_len);
	if (ext < m->end)
		return;
	/* The furthest packet so far: the message's end, as its last packet says. */
	m->end = ext;
	m->last_len = p->payload_len;
	m->last_frame = frame;
	m->last_ts = ts_ns;
	m->last_ackreq = p->bth.ack_req;
	m->pad = p->bth.pad;
	m->flags = (uint16_t)((m->flags & ~MSG_SE) | (p->bth.se ? MSG_SE : 0));
	if (p->ext_present & RT_EXT_IMMDT) {
		m->flags |= MSG_IMM;
		m->imm = p->ext.imm;
	}
	if (p->op->invalidate)
		m->flags |= MSG_IETH;
}

/* A PSN ahead of the next one: a gap in the capture, or the PSNs a READ's responses took. */
static void jump_ahead(struct diff_half *h, int32_t d)
{
	if (h->read_span && h->n) {
		h->msgs[h->n - 1].end = h->next + (uint64_t)d - 1;
	} else {
		h->gap = !h->open;
		h->gaps++;
		memmove(&h->holes[1], &h->holes[0], (DIFF_HOLES - 1) * sizeof h->holes[0]);
		h->holes[0].from = h->next;
		h->holes[0].to = h->next + (uint64_t)d;
		/* The message goes on past the hole; a resend may fill it. */
		if (h->open)
			h->msgs[h->n - 1].holes++;
	}
	h->next += (uint64_t)d;
}

/* ext fills a hole at one of its ends (narrowing it; *closed when that was its last PSN); false: no missing PSN. */
static bool fill_hole(struct diff_half *h, uint64_t ext, bool *closed)
{
	for (unsigned k = 0; k < DIFF_HOLES; k++) {
		uint64_t *from = &h->holes[k].from, *to = &h->holes[k].to;
		if (*from >= *to || (ext != *from && ext + 1 != *to))
			continue;
		if (ext == *from)
			(*from)++;
		else
			(*to)--;
		*closed = *from == *to;
		return true;
	}
	return false;
}

/* A lost First resent: the message the capture began as partial after the hole gets its beginning. */
static struct diff_msg *prepend(struct diff_half *h, uint64_t ext, const struct rt_packet *p)
{
	struct diff_msg *next = find_msg(h, ext + 1);
	if (!next || next->start != ext + 1 || !(next->flags & MSG_PARTIAL) || p->op->position != RT_POS_FIRST ||
	    next->family != p->op->family)
		return NULL;
	next->start = ext;
	next->flags &= (uint16_t)~MSG_PARTIAL;
	/* Positions were counted from the old start: only the cut is known again, not the hash's terms. */
	next->flags |= MSG_INCOMPLETE;
	return next;
}

/* A packet whose PSN the capture has passed: sent again, or the first sight of a PSN lost before the capture. */
static void resent(struct diff_capture *cap, struct diff_half *h, const struct rt_packet *p, uint64_t ext,
		   uint64_t frame, int64_t ts_ns)
{
	struct diff_msg *m = find_msg(h, ext);
	bool closed = false;
	if (fill_hole(h, ext, &closed)) {
		if (!m)
			m = prepend(h, ext, p);
		if (m) {
			add_packet(cap, m, p, ext, frame, ts_ns);
			if (closed && m->holes)
				m->holes--;
			if (m->start == ext)
				message_header(m, p);
		}
	}
	if (m)
		m->resent++;
}

static void request(struct diff_capture *cap, struct diff_half *h, const struct rt_packet *p,
		    const struct rt_frame_result *r, int64_t ts_ns)
{
	if (!h->started) {
		h->started = true;
		h->next_psn = p->bth.psn;
	}
	int32_t d = rt_psn_diff(p->bth.psn, h->next_psn);
	if (d < 0) {
		resent(cap, h, p, h->next + (uint64_t)(int64_t)d, r->frame, ts_ns);
		return;
	}
	if (d > 0)
		jump_ahead(h, d);
	h->read_span = false;
	uint8_t pos = p->op->position;
	struct diff_msg *m = h->n ? &h->msgs[h->n - 1] : NULL;
	bool starts = pos == RT_POS_FIRST || pos == RT_POS_ONLY || pos == RT_POS_NONE;
	if (starts || !h->open || m->family != p->op->family) {
		if (h->open)
			m->flags |= MSG_INCOMPLETE;
		if (!(m = new_msg(cap, h, p, r->frame)))
			return;
		if (starts)
			message_header(m, p);
		else
			m->flags |= MSG_PARTIAL;
	}
	add_packet(cap, m, p, h->next, r->frame, ts_ns);
	h->open = pos == RT_POS_FIRST || pos == RT_POS_MIDDLE;
	h->read_span = m->family == RT_FAMILY_READ_REQUEST;
	h->next++;
	h->next_psn = (p->bth.psn + 1) & 0xFFFFFF;
}

static void ack(struct diff_side_facts *responder, struct diff_msg *m, uint64_t ext, const struct rt_packet *p,
		int64_t ts_ns)
{
	uint8_t syn = p->ext.aeth.syndrome;
	switch (rt_aeth_type(syn)) {
	case RT_AETH_ACK:
		responder->credits |= 1u << rt_aeth_value(syn);
		if (m && ext == m->end && !(m->flags & MSG_ACKED) && m->family != RT_FAMILY_READ_REQUEST) {
			m->flags |= MSG_ACKED;
			m->ack_ns = ts_ns - m->last_ts;
		}
		break;
	case RT_AETH_NAK:
		if (m && !m->naks++)
			m->nak_syndrome = syn;
		break;
	case RT_AETH_RNR_NAK:
		if (m)
			m->rnr_naks++;
		break;
	case RT_AETH_RESERVED:
		break;
	}
}

/* A READ response or an atomic ACK: the first pass only (later ones answer duplicates). */
static void read_response(struct diff_capture *cap, struct diff_msg *m, const struct rt_packet *p)
{
	if (!m || (m->flags & MSG_RESP_DONE))
		return;
	uint8_t pos = p->op->position;
	if (p->op->family == RT_FAMILY_ATOMIC_ACK) {
		m->resp_hash = p->ext.atomic_ack_orig;
		m->resp_packets = 1;
		m->flags |= MSG_RESP_DONE;
		return;
	}
	if (pos == RT_POS_FIRST || pos == RT_POS_ONLY)
		m->resp_first_len = p->payload_len;
	m->resp_packets++;
	m->resp_len += p->payload_len;
	if (cap->payload && !p->truncated)
		m->resp_hash = fnv(m->resp_hash, p->frame + p->payload_off, p->payload_len);
	if (pos == RT_POS_LAST || pos == RT_POS_ONLY)
		m->flags |= MSG_RESP_DONE;
}

static void response(struct diff_capture *cap, struct diff_flow *f, int side, const struct rt_packet *p,
		     int64_t ts_ns)
{
	struct diff_half *h = &f->half[1 - side];
	/* Answers to requests sent before the capture began: nothing to attach them to. */
	if (!h->started)
		return;
	uint64_t ext = h->next + (uint64_t)(int64_t)rt_psn_diff(p->bth.psn, h->next_psn);
	struct diff_msg *m = find_msg(h, ext);
	if (p->op->family == RT_FAMILY_ACK || p->op->family == RT_FAMILY_ATOMIC_ACK) {
		if (p->ext_present & RT_EXT_AETH)
			ack(&f->side[side], m, ext, p, ts_ns);
	}
	if (p->op->family == RT_FAMILY_READ_RESPONSE || p->op->family == RT_FAMILY_ATOMIC_ACK)
		read_response(cap, m, p);
}

void diff_on_packet(void *ctx, const struct rt_packet *p, const struct rt_frame_result *r, int64_t ts_ns)
{
	struct diff_capture *cap = ctx;
	struct diff_flow *f = r->flow ? flow_at(cap, r->flow) : NULL;
	if (!f || !p->op || p->op->family == RT_FAMILY_CNP || p->op->family == RT_FAMILY_OTHER)
		return;
	int side = r->side & 1;
	if (!f->used) {
		f->used = true;
		f->transport = p->op->transport;
	}
	side_facts(&f->side[side], p);
	if (p->op->response)
		response(cap, f, side, p, ts_ns);
	else
		request(cap, &f->half[side], p, r, ts_ns);
}

void diff_capture_free(struct diff_capture *cap)
{
	for (size_t i = 0; i < cap->n_flows; i++)
		for (int s = 0; s < 2; s++)
			free(cap->flows[i].half[s].msgs);
	free(cap->flows);
	rt_checker_free(cap->checker);
	memset(cap, 0, sizeof *cap);
}
