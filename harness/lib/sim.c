/* SPDX-License-Identifier: MIT */
/*
 * Two model QPs on a simulated link, in virtual time. Each direction has a
 * transmitter (a frame occupies it for its time on the wire, preamble and
 * inter-frame gap included) and a propagation delay; frames in flight wait
 * in one heap ordered by arrival. Faults act on a frame as it is sent.
 *
 * The loop: at the current time, start the work that is due, let the QPs'
 * timers act, deliver what has arrived, let each idle transmitter send; when
 * nothing more happens at this time, jump to the next time anything can.
 */
#include <stdlib.h>
#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/sim.h"

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
	enum rt_qp_bug bug;
	uint8_t *data;
};

struct direction {
	int64_t tx_free;	/* the transmitter is busy until then */
	uint32_t sent;		/* frames sent so far: fault numbering */
	struct slot *held;	/* a frame waiting to be overtaken */
	struct rt_link_stats stats;
	uint32_t hits[RT_SIM_MAX_FAULTS];
};

struct rt_sim {
	struct rt_sim_config cfg;
	struct rt_qp *qp[2];
	struct direction dir[2];
	/* Frames in flight: a pool of slots, a free list, and a min-heap by (arrive, seq). */
	struct slot *slots;
	uint8_t *slot_data;
	size_t slot_size;
	struct slot **free_list;
	uint32_t n_free;
	struct slot **heap;
	uint32_t n_heap;
	uint32_t n_slots;
	/* Work at times, sorted before the run. */
	struct rt_sim_action *actions;
	unsigned n_actions, cap_actions, next_action;
	int64_t now;
	uint64_t seq;
	uint8_t *txbuf;
};

/* splitmix64: a fixed, well-mixed sequence from the seed, for memory contents. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void fill_memory(uint8_t *mem, uint32_t size, uint64_t seed)
{
	uint64_t state = seed;
	for (uint32_t i = 0; i < size; i += 8) {
		uint64_t v = splitmix64(&state);
		for (uint32_t b = 0; b < 8 && i + b < size; b++)
			mem[i + b] = (uint8_t)(v >> (8 * b));
	}
}

struct rt_sim *rt_sim_new(const struct rt_sim_config *cfg, struct rt_error *err)
{
	struct rt_sim *sim = calloc(1, sizeof *sim);
	if (!sim) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	sim->cfg = *cfg;
	if (!sim->cfg.rate_bps)
		sim->cfg.rate_bps = 100000000000ull;
	if (!sim->cfg.time_limit_ns)
		sim->cfg.time_limit_ns = 10000000000ll;
	for (unsigned i = 0; i < 2; i++) {
		struct rt_error qerr;
		sim->qp[i] = rt_qp_new(&cfg->node[i], &qerr);
		if (!sim->qp[i]) {
			rt_error_set(err, "node %c: %s", 'a' + i, qerr.msg);
			rt_sim_free(sim);
			return NULL;
		}
		/* Each end's memory starts with its own bytes, so data that moves can be told apart. */
		fill_memory(rt_qp_memory(sim->qp[i]), cfg->node[i].mem_size, cfg->seed * 2 + i);
		size_t m = rt_qp_max_frame(sim->qp[i]);
		if (m > sim->slot_size)
			sim->slot_size = m;
	}
	sim->n_slots = 2 * SLOTS_PER_DIRECTION;
	sim->slots = calloc(sim->n_slots, sizeof *sim->slots);
	sim->slot_data = malloc(sim->n_slots * sim->slot_size);
	sim->free_list = calloc(sim->n_slots, sizeof *sim->free_list);
	sim->heap = calloc(sim->n_slots, sizeof *sim->heap);
	sim->txbuf = malloc(sim->slot_size);
	if (!sim->slots || !sim->slot_data || !sim->free_list || !sim->heap || !sim->txbuf) {
		rt_error_set(err, "out of memory for the link");
		rt_sim_free(sim);
		return NULL;
	}
	for (uint32_t i = 0; i < sim->n_slots; i++) {
		sim->slots[i].data = sim->slot_data + i * sim->slot_size;
		sim->free_list[sim->n_free++] = &sim->slots[i];
	}
	return sim;
}

void rt_sim_free(struct rt_sim *sim)
{
	if (!sim)
		return;
	rt_qp_free(sim->qp[0]);
	rt_qp_free(sim->qp[1]);
	free(sim->slots);
	free(sim->slot_data);
	free(sim->free_list);
	free(sim->heap);
	free(sim->actions);
	free(sim->txbuf);
	free(sim);
}

struct rt_qp *rt_sim_qp(struct rt_sim *sim, unsigned node)
{
	return node < 2 ? sim->qp[node] : NULL;
}

int64_t rt_sim_now(const struct rt_sim *sim)
{
	return sim->now;
}

const struct rt_link_stats *rt_sim_link_stats(const struct rt_sim *sim, unsigned dir)
{
	return &sim->dir[dir & 1].stats;
}

int rt_sim_schedule(struct rt_sim *sim, const struct rt_sim_action *a, struct rt_error *err)
{
	if (a->node > 1 || a->at_ns < 0) {
		rt_error_set(err, "action for node %u at %lld ns: node must be 0 or 1, time >= 0", a->node,
			     (long long)a->at_ns);
		return -1;
	}
	if (sim->n_actions == sim->cap_actions) {
		unsigned cap = sim->cap_actions ? sim->cap_actions * 2 : 64;
		struct rt_sim_action *n = realloc(sim->actions, cap * sizeof *n);
		if (!n) {
			rt_error_set(err, "out of memory for %u actions", cap);
			return -1;
		}
		sim->actions = n;
		sim->cap_actions = cap;
	}
	sim->actions[sim->n_actions++] = *a;
	return 0;
}

/* Heap of slots in flight, earliest (arrive, seq) on top. */
static bool earlier(const struct slot *a, const struct slot *b)
{
	return a->arrive < b->arrive || (a->arrive == b->arrive && a->seq < b->seq);
}

static void heap_up(struct rt_sim *sim, uint32_t i)
{
	while (i && earlier(sim->heap[i], sim->heap[(i - 1) / 2])) {
		struct slot *t = sim->heap[i];
		sim->heap[i] = sim->heap[(i - 1) / 2];
		sim->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_down(struct rt_sim *sim, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < sim->n_heap && earlier(sim->heap[l], sim->heap[m]))
			m = l;
		if (r < sim->n_heap && earlier(sim->heap[r], sim->heap[m]))
			m = r;
		if (m == i)
			return;
		struct slot *t = sim->heap[i];
		sim->heap[i] = sim->heap[m];
		sim->heap[m] = t;
		i = m;
	}
}

static void heap_push(struct rt_sim *sim, struct slot *s)
{
	sim->heap[sim->n_heap] = s;
	heap_up(sim, sim->n_heap++);
}

static struct slot *heap_pop(struct rt_sim *sim)
{
	struct slot *top = sim->heap[0];
	sim->heap[0] = sim->heap[--sim->n_heap];
	heap_down(sim, 0);
	return top;
}

/* A held frame's arrival changed: find it and restore the heap order. */
static void heap_fix(struct rt_sim *sim, struct slot *s)
{
	for (uint32_t i = 0; i < sim->n_heap; i++)
		if (sim->heap[i] == s) {
			heap_up(sim, i);
			heap_down(sim, i);
			return;
		}
}

static bool tap_at_sender(const struct rt_sim *sim, unsigned dir)
{
	return (sim->cfg.tap == RT_TAP_A && dir == 0) || (sim->cfg.tap == RT_TAP_B && dir == 1);
}

static int tap(rt_tap_fn fn, void *ctx, int64_t t, unsigned dir, const uint8_t *data,
	       uint32_t len, enum rt_qp_bug bug, bool faulted, struct rt_error *err)
{
	if (!fn)
		return 0;
	struct rt_tap_frame f = { .time_ns = t, .dir = (uint8_t)dir, .data = data, .len = len, .bug = bug,
				  .faulted = faulted };
	return fn(ctx, &f, err);
}

static bool fault_hits(struct rt_sim *sim, unsigned dir, unsigned i, const struct rt_packet *p, bool roce)
{
	const struct rt_fault *f = &sim->cfg.faults[i];
	struct direction *d = &sim->dir[dir];
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

/* A free slot to build a frame in, or NULL when every slot is in flight. */
static struct slot *take_slot(struct rt_sim *sim)
{
	return sim->n_free ? sim->free_list[--sim->n_free] : NULL;
}

static void release_slot(struct rt_sim *sim, struct slot *s)
{
	sim->free_list[sim->n_free++] = s;
}

/* Puts a filled slot in flight. */
static void enqueue(struct rt_sim *sim, unsigned dir, struct slot *s, int64_t arrive, uint32_t len,
		    enum rt_qp_bug bug, bool faulted)
{
	struct direction *d = &sim->dir[dir];
	s->arrive = arrive;
	s->seq = sim->seq++;
	s->len = len;
	s->dir = (uint8_t)dir;
	s->bug = bug;
	s->faulted = faulted;
	heap_push(sim, s);
	/* A frame held for reordering arrives right after this one. */
	if (d->held) {
		d->held->arrive = arrive;
		d->held->seq = sim->seq++;
		heap_fix(sim, d->held);
		d->held = NULL;
	}
}

/*
 * Puts a frame on the wire: slot holds it (built in place, so a frame is
 * never copied), or is NULL when the link had no room (the frame is lost and
 * counted as an overflow).
 */
static int transmit(struct rt_sim *sim, unsigned dir, struct slot *slot, uint8_t *frame, uint32_t len,
		    enum rt_qp_bug bug, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	struct direction *d = &sim->dir[dir];
	uint64_t wire = (len + 4 < MIN_FRAME_WITH_FCS ? MIN_FRAME_WITH_FCS : len + 4) + WIRE_OVERHEAD - 4;
	int64_t ser = (int64_t)((wire * 8 * 1000000000ull + sim->cfg.rate_bps - 1) / sim->cfg.rate_bps);
	int64_t arrive = sim->now + ser + sim->cfg.delay_ns;
	d->tx_free = sim->now + ser;
	d->sent++;
	d->stats.frames++;
	if (tap_at_sender(sim, dir) && tap(fn, ctx, sim->now, dir, frame, len, bug, false, err)) {
		if (slot)
			release_slot(sim, slot);
		return -1;
	}

	bool drop = !slot, dup = false, reorder = false, faulted = false;
	if (!slot)
		d->stats.overflow++;
	if (sim->cfg.n_faults) {
		struct rt_packet p;
		bool roce = rt_parse(&p, RT_LINK_ETHERNET, frame, len, len) == RT_PARSE_ROCE && !p.truncated;
		for (unsigned i = 0; i < sim->cfg.n_faults; i++) {
			if (!fault_hits(sim, dir, i, &p, roce))
				continue;
			switch (sim->cfg.faults[i].kind) {
			case RT_FAULT_DROP:
				drop = true;
				break;
			case RT_FAULT_DUPLICATE:
				dup = true;
				break;
			case RT_FAULT_REORDER:
				reorder = true;
				break;
			case RT_FAULT_DELAY:
				arrive += sim->cfg.faults[i].delay_ns;
				d->stats.delayed++;
				break;
			case RT_FAULT_CORRUPT:
				/* The last byte before the ICRC: payload or pad, or a header when there is none. */
				frame[(roce ? p.icrc_off : len) - 1] ^= 0x01;
				faulted = true;
				d->stats.corrupted++;
				break;
			case RT_FAULT_MARK_CE:
				if (roce) {
					mark_ce(frame, &p);
					faulted = true;
					d->stats.marked++;
				}
				break;
			}
		}
	}
	if (drop) {
		if (slot) {
			d->stats.dropped++;
			release_slot(sim, slot);
		}
		return 0;
	}
	enqueue(sim, dir, slot, arrive, len, bug, faulted);
	if (reorder) {
		/* Held until the next frame of this direction is queued; arrives after it. */
		if (d->held)
			d->held->arrive -= REORDER_FALLBACK_NS;	/* two in a row: release the first in order */
		slot->arrive = arrive + REORDER_FALLBACK_NS;
		heap_fix(sim, slot);
		d->held = slot;
		d->stats.reordered++;
	}
	struct slot *copy = dup ? take_slot(sim) : NULL;
	if (copy) {
		memcpy(copy->data, frame, len);
		enqueue(sim, dir, copy, arrive + ser, len, bug, faulted);
		d->stats.duplicated++;
	} else if (dup) {
		d->stats.overflow++;
	}
	return 0;
}

static int deliver(struct rt_sim *sim, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	struct slot *s = heap_pop(sim);
	unsigned dir = s->dir;
	if (sim->dir[dir].held == s)
		sim->dir[dir].held = NULL;
	int rc = 0;
	if (!tap_at_sender(sim, dir))
		rc = tap(fn, ctx, s->arrive, dir, s->data, s->len, s->bug, s->faulted, err);
	/*
	 * The receiving QP need not verify an ICRC the builder computed and
	 * nothing changed since; a frame the link altered or whose sender
	 * broke its ICRC on purpose is verified like any other.
	 */
	bool intact = !s->faulted && s->bug != RT_BUG_BAD_ICRC;
	if (!rc)
		rt_qp_receive_frame(sim->qp[1 - dir], s->arrive, s->data, s->len, intact);
	release_slot(sim, s);
	return rc;
}

static int apply_action(struct rt_sim *sim, const struct rt_sim_action *a, struct rt_error *err)
{
	struct rt_qp *qp = sim->qp[a->node];
	struct rt_error qerr;
	int rc = 0;
	switch (a->kind) {
	case RT_ACTION_SEND:
		rc = rt_qp_post_send(qp, &a->wr, &qerr);
		break;
	case RT_ACTION_RECV: {
		struct rt_recv_wr r = { .wr_id = a->recv_wr_id };
		rc = rt_qp_post_recv(qp, &r, &qerr);
		break;
	}
	case RT_ACTION_CNP:
		rt_qp_request_cnp(qp);
		break;
	}
	if (rc)
		rt_error_set(err, "node %c at %lld ns: %s", 'a' + a->node, (long long)a->at_ns, qerr.msg);
	return rc;
}

static void sort_actions(struct rt_sim *sim)
{
	/* Stable order by time: sort (time, original index) pairs. */
	unsigned n = sim->n_actions - sim->next_action;
	struct rt_sim_action *base = sim->actions + sim->next_action;
	bool sorted = true;
	for (unsigned i = 1; i < n && sorted; i++)
		sorted = base[i - 1].at_ns <= base[i].at_ns;
	if (sorted)
		return;
	/* Insertion sort keeps equal times in order; scenario files hold few timed lines. */
	for (unsigned i = 1; i < n; i++) {
		struct rt_sim_action a = base[i];
		unsigned j = i;
		while (j && base[j - 1].at_ns > a.at_ns) {
			base[j] = base[j - 1];
			j--;
		}
		base[j] = a;
	}
}

enum rt_sim_end rt_sim_run(struct rt_sim *sim, rt_tap_fn fn, void *ctx, struct rt_error *err)
{
	sort_actions(sim);
	for (;;) {
		bool busy = false;
		while (sim->next_action < sim->n_actions && sim->actions[sim->next_action].at_ns <= sim->now) {
			if (apply_action(sim, &sim->actions[sim->next_action++], err))
				return RT_SIM_ERROR;
			busy = true;
		}
		for (unsigned i = 0; i < 2; i++)
			if (rt_qp_next_deadline(sim->qp[i]) <= sim->now)
				rt_qp_advance(sim->qp[i], sim->now);
		while (sim->n_heap && sim->heap[0]->arrive <= sim->now) {
			if (deliver(sim, fn, ctx, err))
				return RT_SIM_ERROR;
			busy = true;
		}
		for (unsigned i = 0; i < 2; i++) {
			if (sim->dir[i].tx_free > sim->now)
				continue;
			enum rt_qp_bug bug;
			struct slot *slot = take_slot(sim);
			uint8_t *buf = slot ? slot->data : sim->txbuf;
			size_t len = rt_qp_next_frame(sim->qp[i], sim->now, buf, sim->slot_size, &bug);
			if (!len) {
				if (slot)
					release_slot(sim, slot);
				continue;
			}
			if (transmit(sim, i, slot, buf, (uint32_t)len, bug, fn, ctx, err))
				return RT_SIM_ERROR;
			busy = true;
		}
		if (busy)
			continue;

		/* Nothing more at this time: the next time anything can happen. */
		int64_t next = INT64_MAX;
		if (sim->next_action < sim->n_actions)
			next = sim->actions[sim->next_action].at_ns;
		if (sim->n_heap && sim->heap[0]->arrive < next)
			next = sim->heap[0]->arrive;
		for (unsigned i = 0; i < 2; i++) {
			int64_t t = rt_qp_next_deadline(sim->qp[i]);
			if (t < next)
				next = t;
			if (sim->dir[i].tx_free > sim->now && sim->dir[i].tx_free < next && !rt_qp_idle(sim->qp[i]))
				next = sim->dir[i].tx_free;
		}
		if (next == INT64_MAX)
			return rt_qp_idle(sim->qp[0]) && rt_qp_idle(sim->qp[1]) ? RT_SIM_IDLE : RT_SIM_STALLED;
		if (next > sim->cfg.time_limit_ns) {
			sim->now = sim->cfg.time_limit_ns;
			return RT_SIM_TIME_LIMIT;
		}
		/* A deadline that did not act (it cannot happen) must not stall the clock. */
		sim->now = next > sim->now ? next : sim->now + 1;
	}
}
