/* SPDX-License-Identifier: MIT */
/*
 * Ladder rows for the HTML report. Every packet with something to show (a
 * NAK, a violation, a CNP, a bad ICRC) gets its own row; runs of ordinary
 * packets, and runs of retransmitted ones, keep their first two and last
 * two rows and fold the middle into one that counts them and gives each
 * direction's first and last PSN, so a flow of 100 000 packets draws in a
 * few hundred rows. Past ROW_LIMIT only rows with something to show are
 * added, up to ROW_HARD_LIMIT; the rest are counted in ladder_dropped.
 *
 * A rule may judge a packet long after it went by (ladder_mark), and a
 * packet it judges must never stay hidden in a fold. The run keeps its
 * latest RUN_TAIL packets whole: a packet marked among them is cut out of
 * the run and drawn as the row it was. A packet marked after it was folded
 * away (only frame and flags are known of it then) gets a row of its own
 * right after the fold that holds it (rt_ladder_event.folded).
 *
 * Memory is fixed per drawn flow: one block holds the rows (grown up to
 * ROW_HARD_LIMIT) and, behind them, the run. Nothing is allocated per packet.
 */
#include <stdlib.h>
#include <string.h>

#include "flow.h"

#define ROW_LIMIT 400u
#define ROW_HARD_LIMIT 600u
#define ROW_FIRST_CAP 64u
#define RUN_HEAD 2u	/* rows kept at each end of a folded run */
#define RUN_TAIL 64u	/* a run's latest packets, kept whole until the run ends */
#define CALL_ROWS 8u	/* most rows one call adds (a run's five and a marked row, rounded up) */

/* The run of foldable packets being collected: head rows, the fold so far, the latest packets. */
struct run {
	struct rt_ladder_event head[RUN_HEAD];
	struct rt_ladder_event hidden;	/* RT_LADDER_FOLD; while it holds one packet, that packet */
	struct rt_ladder_event tail[RUN_TAIL]; /* a ring, oldest at tail_start */
	uint32_t head_len, tail_start, tail_len;
	uint8_t flags;			/* its packets' flags: 0 or RT_LADDER_RETRANSMIT */
};

static struct run *run_of(struct flow *f)
{
	return (struct run *)(f->ladder + f->ladder_cap);
}

static struct rt_ladder_event *tail_at(struct run *r, uint32_t i)
{
	return &r->tail[(r->tail_start + i) % RUN_TAIL];
}

/* Room for cap rows; the run behind them moves along. False when memory runs out. */
static bool reserve(struct flow *f, uint32_t cap)
{
	size_t row = sizeof *f->ladder;
	struct rt_ladder_event *block = realloc(f->ladder, cap * row + sizeof(struct run));
	if (!block)
		return false;
	if (f->ladder)
		memmove(block + cap, block + f->ladder_cap, sizeof(struct run));
	else
		memset(block + cap, 0, sizeof(struct run));
	f->ladder = block;
	f->ladder_cap = cap;
	f->info.ladder = block;
	return true;
}

/*
 * The run, with room for the rows one call may add (the block grows only
 * here, so no pointer into it goes stale while a call works). NULL when the
 * flow has no block and none could be had.
 */
static struct run *prepare(struct flow *f)
{
	if (!f->ladder && !reserve(f, ROW_FIRST_CAP))
		return NULL;
	uint32_t want = f->info.ladder_count + CALL_ROWS;
	if (want > f->ladder_cap && f->ladder_cap < ROW_HARD_LIMIT) {
		uint32_t cap = f->ladder_cap * 2 > want ? f->ladder_cap * 2 : want;
		reserve(f, cap < ROW_HARD_LIMIT ? cap : ROW_HARD_LIMIT); /* else rows past the cap are dropped */
	}
	return run_of(f);
}

static void push(struct flow *f, const struct rt_ladder_event *e)
{
	bool notable = e->flags & ~(RT_LADDER_FOLD | RT_LADDER_RETRANSMIT);
	uint32_t limit = notable ? ROW_HARD_LIMIT : ROW_LIMIT;
	if (f->info.ladder_count >= limit || f->info.ladder_count >= f->ladder_cap) {
		/* A folded packet's row adds no packet: its fold counts it. */
		f->info.ladder_dropped += e->folded ? 0 : e->flags & RT_LADDER_FOLD ? e->fold_count : 1;
		return;
	}
	f->ladder[f->info.ladder_count++] = *e;
}

/* Adds e to the fold; the first packet folded is kept whole. */
static void hide(struct run *r, const struct rt_ladder_event *e)
{
	struct rt_ladder_event *h = &r->hidden;
	if (!h->fold_count)
		*h = *e;
	h->fold_count++;
	h->fold_last_frame = e->frame;
	struct rt_ladder_dir *d = &h->fold_dir[e->from_side & 1];
	if (!d->count)
		d->first_psn = e->psn;
	d->last_psn = e->psn;
	d->count++;
}

/* The fold as a row: a fold of one packet is that packet. */
static void push_hidden(struct flow *f, struct run *r)
{
	struct rt_ladder_event h = r->hidden;
	if (!h.fold_count)
		return;
	if (h.fold_count == 1) {
		memset(h.fold_dir, 0, sizeof h.fold_dir);
		h.fold_count = 0;
		h.fold_last_frame = 0;
	} else {
		h.flags = RT_LADDER_FOLD | r->flags;
	}
	push(f, &h);
}

/*
 * Ends the part of the run made of its head, its fold and its first n tail
 * packets: the head rows, then all but the last two of those n folded, then
 * those two as rows.
 */
static void emit_part(struct flow *f, struct run *r, uint32_t n)
{
	for (uint32_t i = 0; i < r->head_len; i++)
		push(f, &r->head[i]);
	uint32_t keep = n < RUN_HEAD ? n : RUN_HEAD;
	for (uint32_t i = 0; i + keep < n; i++)
		hide(r, tail_at(r, i));
	push_hidden(f, r);
	for (uint32_t i = n - keep; i < n; i++)
		push(f, tail_at(r, i));
}

/* Starts the run again with the len tail packets from ring index `from` on, still in the ring. */
static void rerun(struct flow *f, struct run *r, uint32_t from, uint32_t len)
{
	uint8_t flags = r->flags;
	r->head_len = 0;
	memset(&r->hidden, 0, sizeof r->hidden);
	for (; len && r->head_len < RUN_HEAD; len--, from = (from + 1) % RUN_TAIL)
		r->head[r->head_len++] = r->tail[from];
	r->tail_start = from;
	r->tail_len = len;
	r->flags = flags;
	f->run_count = r->head_len + len;
}

/* Emits the run of ordinary packets: all of it when short, else ends and a fold. */
static void end_run(struct flow *f, struct run *r)
{
	emit_part(f, r, r->tail_len);
	rerun(f, r, 0, 0);
}

void ladder_flush(struct flow *f)
{
	if (f->run_count)
		end_run(f, prepare(f));
}

static void run_append(struct flow *f, struct run *r, const struct rt_ladder_event *e)
{
	if (!f->run_count)
		r->flags = e->flags;
	if (r->head_len < RUN_HEAD) {
		r->head[r->head_len++] = *e;
	} else {
		if (r->tail_len == RUN_TAIL) {
			hide(r, tail_at(r, 0));
			r->tail_start = (r->tail_start + 1) % RUN_TAIL;
			r->tail_len--;
		}
		*tail_at(r, r->tail_len++) = *e;
	}
	f->run_count++;
}

void ladder_add(struct flow *f, const struct rt_ladder_event *e)
{
	struct run *r = prepare(f);
	if (!r) {
		f->info.ladder_dropped++;
		return;
	}
	/*
	 * Ordinary packets fold, and so do retransmissions (a go-back-N resend
	 * is a run of them): a run is packets with the same such flags.
	 */
	bool foldable = (e->flags & ~RT_LADDER_RETRANSMIT) == 0;
	if (f->run_count && (!foldable || r->flags != e->flags))
		end_run(f, r);
	if (foldable)
		run_append(f, r, e);
	else
		push(f, e);
}

/* ---- Marks decided later ------------------------------------------------------- */

/* A row for a packet the fold before it holds: only its frame and flags are known. */
static struct rt_ladder_event folded_row(uint64_t frame, uint8_t flags)
{
	return (struct rt_ladder_event){ .frame = frame, .flags = flags, .folded = true };
}

/* The run holds the frame: true when it was marked there (the run split around it as needed). */
static bool mark_in_run(struct flow *f, struct run *r, uint64_t frame, uint8_t flags)
{
	for (uint32_t i = 0; i < r->head_len; i++) {
		if (r->head[i].frame == frame) {
			r->head[i].flags |= flags;	/* head packets are rows anyway */
			return true;
		}
	}
	for (uint32_t i = 0; i < r->tail_len; i++) {
		struct rt_ladder_event *e = tail_at(r, i);
		if (e->frame != frame)
			continue;
		/* No longer ordinary: the run ends before it, it is a row, a new run starts after it. */
		struct rt_ladder_event marked = *e;
		marked.flags |= flags;
		emit_part(f, r, i);
		push(f, &marked);
		rerun(f, r, (r->tail_start + i + 1) % RUN_TAIL, r->tail_len - i - 1);
		return true;
	}
	struct rt_ladder_event *h = &r->hidden;
	if (!h->fold_count || frame < h->frame || frame > h->fold_last_frame)
		return false;
	/* Folded away: the run ends with its fold, the packet's row follows, a new run starts. */
	bool one = h->fold_count == 1;
	if (one)
		h->flags |= flags;	/* a fold of one is drawn as the packet it keeps whole */
	emit_part(f, r, 0);
	if (!one) {
		struct rt_ladder_event row = folded_row(frame, flags);
		push(f, &row);
	}
	rerun(f, r, r->tail_start, r->tail_len);
	return true;
}

/* Index of the last row whose frame is not above frame; count when none is. */
static uint32_t row_at_or_before(const struct flow *f, uint64_t frame)
{
	uint32_t lo = 0, hi = f->info.ladder_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->ladder[mid].frame <= frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : f->info.ladder_count;
}

/* The rows hold the frame (as a row, or inside a fold): marks it, adding a row after the fold if need be. */
static void mark_in_rows(struct flow *f, uint64_t frame, uint8_t flags)
{
	uint32_t at = row_at_or_before(f, frame);
	if (at == f->info.ladder_count)
		return;
	struct rt_ladder_event *row = &f->ladder[at];
	if (row->frame == frame && !(row->flags & RT_LADDER_FOLD)) {
		row->flags |= flags;
		return;
	}
	/* Rows added after a fold for its packets sort between it and the next row. */
	uint32_t fold = at;
	while (fold > 0 && f->ladder[fold].folded)
		fold--;
	const struct rt_ladder_event *fr = &f->ladder[fold];
	if (!(fr->flags & RT_LADDER_FOLD) || frame > fr->fold_last_frame || f->info.ladder_count >= f->ladder_cap)
		return;	/* not drawn (past the row limits) */
	memmove(&f->ladder[at + 2], &f->ladder[at + 1], (f->info.ladder_count - at - 1) * sizeof *f->ladder);
	f->ladder[at + 1] = folded_row(frame, flags);
	f->info.ladder_count++;
}

void ladder_mark(struct flow *f, uint64_t frame, uint8_t flags)
{
	struct run *r = f->ladder ? prepare(f) : NULL;
	if (!r)
		return;
	if (!f->run_count || !mark_in_run(f, r, frame, flags))
		mark_in_rows(f, frame, flags);
}
