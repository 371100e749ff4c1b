/* SPDX-License-Identifier: MIT */
/*
 * Ladder rows for the HTML report. Every packet with something to show (a
 * NAK, a violation, a CNP, a bad ICRC) gets its own row; runs of ordinary
 * packets, and runs of retransmitted ones, keep their first two and last
 * two rows and fold the middle into one, so a flow of 100 000 packets draws in a few hundred
 * rows. Past ROW_LIMIT only rows with something to show are added, up to
 * ROW_HARD_LIMIT; the rest are counted in ladder_dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "flow.h"

#define ROW_LIMIT 400u
#define ROW_HARD_LIMIT 600u
#define RUN_KEEP 2u	/* rows kept at each end of a folded run */

static void push(struct flow *f, const struct rt_ladder_event *e)
{
	bool notable = e->flags & ~(RT_LADDER_FOLD | RT_LADDER_RETRANSMIT);
	uint32_t limit = notable ? ROW_HARD_LIMIT : ROW_LIMIT;
	if (f->info.ladder_count >= limit) {
		f->info.ladder_dropped += e->flags & RT_LADDER_FOLD ? e->fold_count : 1;
		return;
	}
	if (f->info.ladder_count == f->ladder_cap) {
		uint32_t cap = f->ladder_cap ? f->ladder_cap * 2 : 64;
		if (cap > ROW_HARD_LIMIT)
			cap = ROW_HARD_LIMIT;
		struct rt_ladder_event *rows = realloc(f->ladder, cap * sizeof *rows);
		if (!rows) {
			f->info.ladder_dropped++;
			return;
		}
		f->ladder = rows;
		f->ladder_cap = cap;
		f->info.ladder = rows;
	}
	f->ladder[f->info.ladder_count++] = *e;
}

/* Emits the run of ordinary packets: all of it when short, else ends and a fold. */
void ladder_flush(struct flow *f)
{
	uint32_t n = f->run_count;
	if (n == 0)
		return;
	if (n <= 2 * RUN_KEEP) {
		for (uint32_t i = 0; i < n; i++)
			push(f, &f->run[i]);
	} else {
		push(f, &f->run[0]);
		push(f, &f->run[1]);
		if (n == 2 * RUN_KEEP + 1) {
			/* One packet between: draw it rather than a fold that stands for one. */
			push(f, &f->run_fold_first);
			push(f, &f->run[2]);
			push(f, &f->run[3]);
			f->run_count = 0;
			return;
		}
		/* The fold row starts where the kept head ends and remembers the last packet it hides. */
		struct rt_ladder_event fold = f->run_fold_first;
		fold.flags = RT_LADDER_FOLD | (f->run[0].flags & RT_LADDER_RETRANSMIT);
		fold.fold_count = n - 2 * RUN_KEEP;
		fold.fold_last_frame = f->run_fold_last.frame;
		fold.fold_last_psn = f->run_fold_last.psn;
		push(f, &fold);
		push(f, &f->run[2]);
		push(f, &f->run[3]);
	}
	f->run_count = 0;
}

void ladder_add(struct flow *f, const struct rt_ladder_event *e)
{
	/*
	 * Ordinary packets fold, and so do retransmissions (a go-back-N resend
	 * is a run of them): a run is packets with the same such flags.
	 */
	bool foldable = (e->flags & ~RT_LADDER_RETRANSMIT) == 0;
	if (!foldable || (f->run_count && f->run[0].flags != e->flags))
		ladder_flush(f);
	if (!foldable) {
		push(f, e);
		return;
	}
	/*
	 * run[0..1] are the run's first two; run[2] and run[3] slide so they
	 * always hold the last two. What slides out of run[2] is hidden by the
	 * fold: the first and the latest such are kept.
	 */
	if (f->run_count < 4) {
		f->run[f->run_count++] = *e;
		return;
	}
	if (f->run_count == 4)
		f->run_fold_first = f->run[2];
	f->run_fold_last = f->run[2];
	f->run[2] = f->run[3];
	f->run[3] = *e;
	f->run_count++;
}

void ladder_mark(struct flow *f, uint64_t frame, uint8_t flags)
{
	for (uint32_t i = f->info.ladder_count; i-- > 0;) {
		if (f->ladder[i].frame == frame) {
			f->ladder[i].flags |= flags;
			return;
		}
		if (f->ladder[i].frame && f->ladder[i].frame < frame)
			break;
	}
	for (uint32_t i = 0; i < f->run_count && i < 4; i++)
		if (f->run[i].frame == frame)
			f->run[i].flags |= flags;
}
