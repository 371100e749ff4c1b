/* SPDX-License-Identifier: MIT */
/*
 * The simulated link of link.h: per direction a transmitter (a frame holds it
 * for its time on the wire) and a propagation delay; frames in flight in a
 * pool of slots, a free list, and one min-heap by (arrival, sequence), so
 * frames that arrive at the same time keep the order they were sent in.
 */
#include <stdlib.h>
#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/wire.h"
#include "rocetest/packet.h"

/* Ethernet per frame besides the bytes captured: FCS 4, preamble and SFD 8, gap 12; 64 bytes at least. */
#define WIRE_OVERHEAD 24
#define MIN_FRAME_WITH_FCS 64
/* A frame held back for reordering goes out this long after it would have, if nothing follows it. */
#define REORDER_FALLBACK_NS 10000
#define SLOTS_PER_DIRECTION 1024

struct slot {
	int64_t arrive;
	uint64_t seq;		/* ties in arrival keep the order of sending */
	uint32_t len;
	uint8_t dir;
	bool faulted;
	bool missed;
	enum rt_qp_bug bug;
	uint8_t *data;
};

struct direction {
	int64_t tx_free;	/* the transmitter is busy until then */
	uint32_t sent;		/* frames sent so far: fault numbering */
	struct slot *held;	/* a frame waiting to be overtaken */
	struct slot *building;	/* the slot rt_wire_frame_buffer handed out */
	bool last_missed;	/* a miss fault hit the frame sent last */
	struct rt_link_stats stats;
	uint32_t hits[RT_SIM_MAX_FAULTS];
};

struct rt_wire {
	struct rt_wire_config cfg;
	struct direction dir[2];
	struct slot *slots;
	uint8_t *slot_data;
	struct slot **free_list;
	uint32_t n_free;
	struct slot **heap;
	uint32_t n_heap;
	uint32_t n_slots;
	struct slot *received;	/* handed out by rt_wire_receive; freed by the next call */
	uint64_t seq;
	uint8_t *scratch;
};

struct rt_wire *rt_wire_new(const struct rt_wire_config *cfg, struct rt_error *err)
{
	if (!cfg->max_frame || cfg->n_faults > RT_SIM_MAX_FAULTS) {
		rt_error_set(err, "link: max_frame must be > 0 and faults at most %d", RT_SIM_MAX_FAULTS);
		return NULL;
	}
	struct rt_wire *link = calloc(1, sizeof *link);
	if (!link) {
		rt_error_set(err, "out of memory for the link");
		return NULL;
	}
	link->cfg = *cfg;
	if (!link->cfg.rate_bps)
		link->cfg.rate_bps = 100000000000ull;
	link->n_slots = 2 * SLOTS_PER_DIRECTION;
	link->slots = calloc(link->n_slots, sizeof *link->slots);
	link->slot_data = malloc(link->n_slots * cfg->max_frame);
	link->free_list = calloc(link->n_slots, sizeof *link->free_list);
	link->heap = calloc(link->n_slots, sizeof *link->heap);
	link->scratch = malloc(cfg->max_frame);
	if (!link->slots || !link->slot_data || !link->free_list || !link->heap || !link->scratch) {
		rt_error_set(err, "out of memory for the link");
		rt_wire_free(link);
		return NULL;
	}
	for (uint32_t i = 0; i < link->n_slots; i++) {
		link->slots[i].data = link->slot_data + i * cfg->max_frame;
		link->free_list[link->n_free++] = &link->slots[i];
	}
	return link;
}

void rt_wire_free(struct rt_wire *link)
{
	if (!link)
		return;
	free(link->slots);
	free(link->slot_data);
	free(link->free_list);
	free(link->heap);
	free(link->scratch);
	free(link);
}

const struct rt_link_stats *rt_wire_stats(const struct rt_wire *link, unsigned dir)
{
	return &link->dir[dir & 1].stats;
}

bool rt_wire_last_missed(const struct rt_wire *link, unsigned dir)
{
	return link->dir[dir & 1].last_missed;
}

int64_t rt_wire_tx_free(const struct rt_wire *link, unsigned dir)
{
	return link->dir[dir & 1].tx_free;
}

/* Heap of slots in flight, earliest (arrive, seq) on top. */
static bool earlier(const struct slot *a, const struct slot *b)
{
	return a->arrive < b->arrive || (a->arrive == b->arrive && a->seq < b->seq);
}

static void heap_up(struct rt_wire *link, uint32_t i)
{
	while (i && earlier(link->heap[i], link->heap[(i - 1) / 2])) {
		struct slot *t = link->heap[i];
		link->heap[i] = link->heap[(i - 1) / 2];
		link->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_down(struct rt_wire *link, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < link->n_heap && earlier(link->heap[l], link->heap[m]))
			m = l;
		if (r < link->n_heap && earlier(link->heap[r], link->heap[m]))
			m = r;
		if (m == i)
			return;
		struct slot *t = link->heap[i];
		link->heap[i] = link->heap[m];
		link->heap[m] = t;
		i = m;
	}
}

static void heap_push(struct rt_wire *link, struct slot *s)
{
	link->heap[link->n_heap] = s;
	heap_up(link, link->n_heap++);
}

static struct slot *heap_pop(struct rt_wire *link)
{
	struct slot *top = link->heap[0];
	link->heap[0] = link->heap[--link->n_heap];
	heap_down(link, 0);
	return top;
}

/* A held frame's arrival changed: find it and restore the heap order. */
static void heap_fix(struct rt_wire *link, struct slot *s)
{
	for (uint32_t i = 0; i < link->n_heap; i++)
		if (link->heap[i] == s) {
			heap_up(link, i);
			heap_down(link, i);
			return;
		}
}

/* A free slot, or NULL when every slot is in flight. */
static struct slot *take_slot(struct rt_wire *link)
{
	return link->n_free ? link->free_list[--link->n_free] : NULL;
}

static void release_slot(struct rt_wire *link, struct slot *s)
{
	link->free_list[link->n_free++] = s;
}

/* The frame rt_wire_receive handed out is no longer needed once the caller comes back. */
static void release_received(struct rt_wire *link)
{
	if (link->received) {
		release_slot(link, link->received);
		link->received = NULL;
	}
}

uint8_t *rt_wire_frame_buffer(struct rt_wire *link, unsigned dir)
{
	struct direction *d = &link->dir[dir & 1];
	release_received(link);
	if (!d->building)
		d->building = take_slot(link);
	return d->building ? d->building->data : link->scratch;
}

static bool fault_hits(struct rt_wire *link, unsigned dir, unsigned i, const struct rt_packet *p, bool roce)
{
	const struct rt_fault *f = &link->cfg.faults[i];
	struct direction *d = &link->dir[dir];
	if (f->dir != dir)
		return false;
	if (!f->by_psn)
		return d->sent >= f->first && d->sent <= f->last;
	if (!roce || p->bth.psn != f->psn || d->hits[i] >= f->count)
		return false;
	d->hits[i]++;
	return true;
}

/* ECN Congestion Experienced, as a switch marks it: the IPv4 checksum follows; the ICRC does not cover it. */
static void mark_ce(uint8_t *frame, const struct rt_packet *p)
{
	uint8_t *ip = frame + p->l3_off;
	if (p->ip_version == 4) {
		ip[1] |= 3;
		ip[10] = ip[11] = 0;
		uint16_t sum = rt_ipv4_header_checksum(ip, p->l3_hdr_len);
		ip[10] = (uint8_t)(sum >> 8);
		ip[11] = (uint8_t)sum;
	} else {
		ip[1] |= 0x30;	/* traffic class bits 1-0 sit in byte 1, bits 5-4 */
	}
}

/* Puts a filled slot in flight. */
static void enqueue(struct rt_wire *link, unsigned dir, struct slot *s, int64_t arrive, uint32_t len,
		    enum rt_qp_bug bug, bool faulted)
{
	struct direction *d = &link->dir[dir];
	s->arrive = arrive;
	s->seq = link->seq++;
	s->len = len;
	s->dir = (uint8_t)dir;
	s->bug = bug;
	s->faulted = faulted;
	s->missed = d->last_missed;	/* enqueue runs inside rt_wire_send: this is its frame or a copy */
	heap_push(link, s);
	/* A frame held for reordering arrives right after this one. */
	if (d->held) {
		d->held->arrive = arrive;
		d->held->seq = link->seq++;
		heap_fix(link, d->held);
		d->held = NULL;
	}
}

/* The slot frame lies in: the one handed out for building, or a fresh one it is copied into. */
static struct slot *slot_for(struct rt_wire *link, struct direction *d, const uint8_t *frame, uint32_t len)
{
	struct slot *s = d->building;
	if (s && s->data == frame) {
		d->building = NULL;
		return s;
	}
	if (frame == link->scratch)
		return NULL;	/* built while every slot was in flight */
	s = take_slot(link);
	if (s)
		memcpy(s->data, frame, len);
	return s;
}

/* How long the frame holds the transmitter: its bytes on the wire at the link's rate, rounded up. */
static int64_t serialization_ns(const struct rt_wire *link, uint32_t len)
{
	uint64_t wire = (len + 4 < MIN_FRAME_WITH_FCS ? MIN_FRAME_WITH_FCS : len + 4) + WIRE_OVERHEAD - 4;
	return (int64_t)((wire * 8 * 1000000000ull + link->cfg.rate_bps - 1) / link->cfg.rate_bps);
}

/* What the faults that hit a frame do besides changing its bytes; by value, so it stays in registers. */
struct fault_effect {
	int64_t delay_ns;
	bool drop, dup, reorder, faulted, missed;
};

/* Every fault that hits the frame in data acts: on its bytes (corrupt, mark CE), or through the result. */
static struct fault_effect apply_faults(struct rt_wire *link, unsigned dir, uint8_t *data, uint32_t len)
{
	struct direction *d = &link->dir[dir];
	struct fault_effect fx = { 0 };
	struct rt_packet p;
	bool roce = rt_parse(&p, RT_LINK_ETHERNET, data, len, len) == RT_PARSE_ROCE && !p.truncated;
	for (unsigned i = 0; i < link->cfg.n_faults; i++) {
		if (!fault_hits(link, dir, i, &p, roce))
			continue;
		switch (link->cfg.faults[i].kind) {
		case RT_FAULT_DROP:
			fx.drop = true;
			break;
		case RT_FAULT_DUPLICATE:
			fx.dup = true;
			break;
		case RT_FAULT_REORDER:
			fx.reorder = true;
			break;
		case RT_FAULT_DELAY:
			fx.delay_ns += link->cfg.faults[i].delay_ns;
			d->stats.delayed++;
			break;
		case RT_FAULT_CORRUPT:
			/* The last byte before the ICRC: payload or pad, or a header when there is none. */
			data[(roce ? p.icrc_off : len) - 1] ^= 0x01;
			fx.faulted = true;
			d->stats.corrupted++;
			break;
		case RT_FAULT_MARK_CE:
			if (roce) {
				mark_ce(data, &p);
				fx.faulted = true;
				d->stats.marked++;
			}
			break;
		case RT_FAULT_MISS:
			fx.missed = true;
			d->stats.missed++;
			break;
		}
	}
	return fx;
}

/* Held until the next frame of this direction is queued, so that it arrives after it. */
static void hold_back(struct rt_wire *link, struct direction *d, struct slot *s, int64_t arrive)
{
	/* enqueue has just released any frame held before: one is held at a time. */
	s->arrive = arrive + REORDER_FALLBACK_NS;
	heap_fix(link, s);
	d->held = s;
	d->stats.reordered++;
}

/* A second copy of the queued frame s, arriving at arrive; lost when every slot is in flight. */
static void duplicate(struct rt_wire *link, unsigned dir, const struct slot *s, int64_t arrive)
{
	struct direction *d = &link->dir[dir];
	struct slot *copy = take_slot(link);
	if (!copy) {
		d->stats.overflow++;
		return;
	}
	memcpy(copy->data, s->data, s->len);
	enqueue(link, dir, copy, arrive, s->len, s->bug, s->faulted);
	d->stats.duplicated++;
}

int64_t rt_wire_send(struct rt_wire *link, unsigned dir, int64_t now, uint8_t *frame, uint32_t len,
		     enum rt_qp_bug bug)
{
	dir &= 1;
	release_received(link);
	struct direction *d = &link->dir[dir];
	struct slot *slot = len <= link->cfg.max_frame ? slot_for(link, d, frame, len) : NULL;
	int64_t ser = serialization_ns(link, len);
	d->tx_free = now + ser;
	d->sent++;
	d->stats.frames++;
	d->last_missed = false;
	if (!slot) {
		d->stats.overflow++;
		return ser;
	}
	struct fault_effect fx = { 0 };
	if (link->cfg.n_faults)
		fx = apply_faults(link, dir, slot->data, len);
	d->last_missed = fx.missed;
	int64_t arrive = now + ser + link->cfg.delay_ns + fx.delay_ns;
	if (fx.drop) {
		d->stats.dropped++;
		release_slot(link, slot);
		return ser;
	}
	enqueue(link, dir, slot, arrive, len, bug, fx.faulted);
	if (fx.reorder)
		hold_back(link, d, slot, arrive);
	if (fx.dup)
		duplicate(link, dir, slot, arrive + ser);
	return ser;
}

int64_t rt_wire_next_arrival(const struct rt_wire *link)
{
	return link->n_heap ? link->heap[0]->arrive : INT64_MAX;
}

bool rt_wire_receive(struct rt_wire *link, int64_t now, struct rt_wire_frame *f)
{
	release_received(link);
	if (!link->n_heap || link->heap[0]->arrive > now)
		return false;
	struct slot *s = heap_pop(link);
	if (link->dir[s->dir].held == s)
		link->dir[s->dir].held = NULL;
	link->received = s;
	*f = (struct rt_wire_frame){ .arrive = s->arrive, .dir = s->dir, .data = s->data, .len = s->len,
				     .bug = s->bug, .faulted = s->faulted, .missed = s->missed };
	return true;
}
