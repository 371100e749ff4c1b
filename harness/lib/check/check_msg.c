/* SPDX-License-Identifier: MIT */
/*
 * The messages of each flow for rt_check_config.on_message (rocetest/
 * message.h): every packet the checker tracked, with its flow and side,
 * becomes part of a requester's message or an answer to one. Messages are
 * numbered by PSN from the direction's first: a packet whose PSN the
 * direction has passed is sent again: it counts for the message it belongs
 * to and starts nothing; a jump ahead is a capture gap (a hole a later
 * resend may fill: the packet was lost before the capture point), except
 * after a READ, whose responses take PSNs. Each direction keeps its last
 * RT_MESSAGE_WINDOW messages; older ones are handed over and forgotten.
 * Runs only when on_message is set.
 */
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "rocetest/message.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define MSG_HOLES 8

/* One direction's requests (requester = side s), the last RT_MESSAGE_WINDOW of them in a ring. */
struct msg_half {
	struct rt_message *ring;
	size_t cap;			/* grows to RT_MESSAGE_WINDOW */
	uint64_t base, n;		/* messages handed over; messages begun */
	bool started;
	uint32_t next_psn;		/* the next new PSN (24-bit) */
	uint64_t next;			/* the same, extended */
	bool open;			/* the newest message still takes packets */
	bool read_span;			/* the newest is a READ: the next request may jump past its responses */
	bool gap;			/* PSNs went missing before the next message */
	/* PSN ranges [from, to) the capture jumped over, most recent first: a resend may fill one from either end. */
	struct { uint64_t from, to; } holes[MSG_HOLES];
};

struct msg_track {
	struct msg_half half[2];
};

struct msg_env {
	const struct rt_check_config *cfg;
	struct flow *f;
};

static uint64_t fnv(uint64_t h, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

static struct rt_message *at(const struct msg_half *h, uint64_t k)
{
	return &h->ring[k % h->cap];
}

static void hand_over(const struct msg_env *e, struct msg_half *h)
{
	e->cfg->on_message(e->cfg->ctx, at(h, h->base));
	h->base++;
}

/* The message whose PSNs hold ext; a READ still open to responses holds every PSN from its own on. */
static struct rt_message *find_msg(const struct msg_half *h, uint64_t ext)
{
	uint64_t lo = h->base, hi = h->n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (at(h, mid)->start <= ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->base)
		return NULL;
	struct rt_message *m = at(h, lo - 1);
	bool last_read = lo == h->n && h->read_span;
	return ext <= m->end || last_read ? m : NULL;
}

/*
 * Room for one more message: the ring grows while it has never wrapped,
 * else (or when memory runs out) its oldest is handed over. False only when
 * not even the first slot can be had.
 */
static bool make_room(const struct msg_env *e, struct msg_half *h)
{
	if (h->n - h->base < h->cap)
		return true;
	if (h->cap < RT_MESSAGE_WINDOW) {
		size_t cap = h->cap ? h->cap * 2 : 4;
		struct rt_message *r = realloc(h->ring, cap * sizeof *r);
		if (r) {
			h->ring = r;
			h->cap = cap;
			return true;
		}
		if (!h->cap)
			return false;
	}
	hand_over(e, h);
	return true;
}

static struct rt_message *new_msg(const struct msg_env *e, struct msg_track *t, int side, const struct rt_packet *p,
				  uint64_t frame)
{
	struct msg_half *h = &t->half[side];
	if (!make_room(e, h))
		return NULL;
	struct rt_message *m = at(h, h->n++);
	memset(m, 0, sizeof *m);
	m->flow = e->f->info.id;
	m->side = (uint8_t)side;
	m->index = h->n;
	m->start = m->end = h->next;
	m->first_frame = frame;
	m->ack_ns = -1;
	m->family = p->op->family;
	m->transport = p->op->transport;
	m->first_len = p->payload_len;
	m->resp_hash = FNV_OFFSET;
	if (h->gap)
		m->flags |= RT_MSG_AFTER_GAP;
	h->gap = false;
	return m;
}

/* What the first packet of a message says of the whole: its address, a READ's length, the atomic operands. */
static void message_header(struct rt_message *m, const struct rt_packet *p)
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

/* The furthest packet of m so far: the message's end, as its last packet says. */
static void message_end(struct rt_message *m, const struct rt_packet *p, uint64_t ext, uint64_t frame, int64_t ts_ns)
{
	m->end = ext;
	m->last_len = p->payload_len;
	m->last_frame = frame;
	m->last_ts = ts_ns;
	m->last_ackreq = p->bth.ack_req;
	m->pad = p->bth.pad;
	m->flags = (uint16_t)((m->flags & ~RT_MSG_SE) | (p->bth.se ? RT_MSG_SE : 0));
	if (p->ext_present & RT_EXT_IMMDT) {
		m->flags |= RT_MSG_IMM;
		m->imm = p->ext.imm;
	}
	if (p->op->invalidate)
		m->flags |= RT_MSG_IETH;
}

/* A packet of m in this capture for the first time, at ext (in order, or filling a hole). */
static void add_packet(const struct msg_env *e, struct rt_message *m, const struct rt_packet *p, uint64_t ext,
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
		m->flags |= RT_MSG_TRUNCATED;
	else if (e->cfg->message_payload)
		m->payload_hash += fnv(FNV_OFFSET ^ pos * FNV_PRIME, p->frame + p->payload_off, p->payload_len);
	if (ext >= m->end)
		message_end(m, p, ext, frame, ts_ns);
}

/* A PSN ahead of the next one: a gap in the capture, or the PSNs a READ's responses took. */
static void jump_ahead(struct msg_half *h, int32_t d)
{
	if (h->read_span && h->n > h->base) {
		at(h, h->n - 1)->end = h->next + (uint64_t)d - 1;
	} else {
		h->gap = !h->open;
		memmove(&h->holes[1], &h->holes[0], (MSG_HOLES - 1) * sizeof h->holes[0]);
		h->holes[0].from = h->next;
		h->holes[0].to = h->next + (uint64_t)d;
		/* The message goes on past the hole; a resend may fill it. */
		if (h->open && h->n > h->base)
			at(h, h->n - 1)->holes++;
	}
	h->next += (uint64_t)d;
}

/* ext fills a hole at one of its ends (narrowing it; *closed when that was its last PSN); false: no missing PSN. */
static bool fill_hole(struct msg_half *h, uint64_t ext, bool *closed)
{
	for (unsigned k = 0; k < MSG_HOLES; k++) {
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
static struct rt_message *prepend(struct msg_half *h, uint64_t ext, const struct rt_packet *p)
{
	struct rt_message *next = find_msg(h, ext + 1);
	if (!next || next->start != ext + 1 || !(next->flags & RT_MSG_PARTIAL) || p->op->position != RT_POS_FIRST ||
	    next->family != p->op->family)
		return NULL;
	next->start = ext;
	next->flags &= (uint16_t)~RT_MSG_PARTIAL;
	/* Positions were counted from the old start: only the cut is known again, not the hash's terms. */
	next->flags |= RT_MSG_INCOMPLETE;
	return next;
}

/* A packet whose PSN the capture has passed: sent again, or the first sight of a PSN lost before the capture. */
static void resent(const struct msg_env *e, struct msg_half *h, const struct rt_packet *p, uint64_t ext,
		   uint64_t frame, int64_t ts_ns)
{
	struct rt_message *m = find_msg(h, ext);
	bool closed = false;
	if (fill_hole(h, ext, &closed)) {
		if (!m)
			m = prepend(h, ext, p);
		if (m) {
			add_packet(e, m, p, ext, frame, ts_ns);
			if (closed && m->holes)
				m->holes--;
			if (m->start == ext)
				message_header(m, p);
		}
	}
	if (m)
		m->resent++;
}

static void request(const struct msg_env *e, struct msg_track *t, int side, const struct rt_packet *p,
		    uint64_t frame, int64_t ts_ns)
{
	struct msg_half *h = &t->half[side];
	if (!h->started) {
		h->started = true;
		h->next_psn = p->bth.psn;
	}
	int32_t d = rt_psn_diff(p->bth.psn, h->next_psn);
	if (d < 0) {
		resent(e, h, p, h->next + (uint64_t)(int64_t)d, frame, ts_ns);
		return;
	}
	if (d > 0)
		jump_ahead(h, d);
	h->read_span = false;
	uint8_t pos = p->op->position;
	struct rt_message *m = h->n > h->base ? at(h, h->n - 1) : NULL;
	bool starts = pos == RT_POS_FIRST || pos == RT_POS_ONLY || pos == RT_POS_NONE;
	if (starts || !h->open || !m || m->family != p->op->family) {
		if (h->open && m)
			m->flags |= RT_MSG_INCOMPLETE;
		if (!(m = new_msg(e, t, side, p, frame)))
			return;
		if (starts)
			message_header(m, p);
		else
			m->flags |= RT_MSG_PARTIAL;
	}
	add_packet(e, m, p, h->next, frame, ts_ns);
	h->open = pos == RT_POS_FIRST || pos == RT_POS_MIDDLE;
	h->read_span = m->family == RT_FAMILY_READ_REQUEST;
	h->next++;
	h->next_psn = (p->bth.psn + 1) & 0xFFFFFF;
}

static void ack(struct rt_message *m, uint64_t ext, const struct rt_packet *p, int64_t ts_ns)
{
	uint8_t syn = p->ext.aeth.syndrome;
	switch (rt_aeth_type(syn)) {
	case RT_AETH_ACK:
		if (m && ext == m->end && !(m->flags & RT_MSG_ACKED) && m->family != RT_FAMILY_READ_REQUEST) {
			m->flags |= RT_MSG_ACKED;
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
static void read_response(const struct msg_env *e, struct rt_message *m, const struct rt_packet *p)
{
	if (!m || (m->flags & RT_MSG_RESP_DONE))
		return;
	uint8_t pos = p->op->position;
	if (p->op->family == RT_FAMILY_ATOMIC_ACK) {
		m->resp_hash = p->ext.atomic_ack_orig;
		m->resp_packets = 1;
		m->flags |= RT_MSG_RESP_DONE;
		return;
	}
	if (pos == RT_POS_FIRST || pos == RT_POS_ONLY)
		m->resp_first_len = p->payload_len;
	m->resp_packets++;
	m->resp_len += p->payload_len;
	if (e->cfg->message_payload && !p->truncated)
		m->resp_hash = fnv(m->resp_hash, p->frame + p->payload_off, p->payload_len);
	if (pos == RT_POS_LAST || pos == RT_POS_ONLY)
		m->flags |= RT_MSG_RESP_DONE;
}

static void response(const struct msg_env *e, struct msg_track *t, int side, const struct rt_packet *p,
		     int64_t ts_ns)
{
	struct msg_half *h = &t->half[1 - side];
	/* Answers to requests sent before the capture began: nothing to attach them to. */
	if (!h->started)
		return;
	uint64_t ext = h->next + (uint64_t)(int64_t)rt_psn_diff(p->bth.psn, h->next_psn);
	struct rt_message *m = find_msg(h, ext);
	if ((p->op->family == RT_FAMILY_ACK || p->op->family == RT_FAMILY_ATOMIC_ACK) && (p->ext_present & RT_EXT_AETH))
		ack(m, ext, p, ts_ns);
	if (p->op->family == RT_FAMILY_READ_RESPONSE || p->op->family == RT_FAMILY_ATOMIC_ACK)
		read_response(e, m, p);
}

void msg_track_packet(const struct rt_check_config *cfg, struct flow *f, const struct rt_packet *p, int side,
		      uint64_t frame, int64_t ts_ns)
{
	if (!p->op || p->op->family == RT_FAMILY_CNP || p->op->family == RT_FAMILY_OTHER)
		return;
	if (!f->msgs && !(f->msgs = calloc(1, sizeof *f->msgs)))
		return;
	struct msg_env e = { cfg, f };
	if (p->op->response)
		response(&e, f->msgs, side & 1, p, ts_ns);
	else
		request(&e, f->msgs, side & 1, p, frame, ts_ns);
}

void msg_track_finish(const struct rt_check_config *cfg, struct flow *f)
{
	if (!f->msgs)
		return;
	struct msg_env e = { cfg, f };
	for (int s = 0; s < 2; s++) {
		struct msg_half *h = &f->msgs->half[s];
		while (h->base < h->n)
			hand_over(&e, h);
	}
}

void msg_track_free(struct flow *f)
{
	if (!f->msgs)
		return;
	for (int s = 0; s < 2; s++)
		free(f->msgs->half[s].ring);
	free(f->msgs);
	f->msgs = NULL;
}
