/* SPDX-License-Identifier: MIT */
/*
 * Comparing one pair of flows: per direction, the two captures' messages
 * are aligned by operation and length (a message one capture lacks is
 * skipped, found by looking a few messages ahead; two that differ where
 * nothing aligns better are compared as a substitution), then each aligned
 * pair field by field; then what each direction and side does throughout
 * (ACK timing and credits, TOS, MigReq, TTL, the UDP source-port policy).
 * Messages before the other capture's first aligned one, or after its
 * last, are coverage (one capture started later or stopped sooner), and a
 * message missing where the capture jumped over PSNs is the capture's gap:
 * notes on the pair, not differences of the endpoints.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_priv.h"

/* How far ahead alignment looks for a message one capture lacks. */
#define LOOKAHEAD 16

/* One direction of a pair being compared: A's requester side s, B's s ^ swapped. */
struct dir {
	struct diff_state *st;
	struct rt_diff_pair *pair;
	int side;
	struct diff_dir *q;	/* its queues and counts (NULL for a side's or the flow's fields) */
	uint64_t base_va[2];	/* the first address of each capture's direction */
	bool answers[2];	/* the responder answered anything in this direction */
};

/* ---- recording --------------------------------------------------------------- */

static void note(struct rt_diff_pair *pair, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct rt_diff_pair *pair, const char *fmt, ...)
{
	if (pair->n_notes >= sizeof pair->notes / sizeof pair->notes[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pair->notes[pair->n_notes++], sizeof pair->notes[0], fmt, ap);
	va_end(ap);
}

static struct rt_diff_difference *keep(struct diff_state *st)
{
	size_t max = st->opt.max_differences ? st->opt.max_differences : 100000;
	if (st->res.n_differences >= max) {
		st->res.dropped++;
		return NULL;
	}
	if (!rt_grow((void **)&st->diffs, &st->cap_diffs, st->res.n_differences, sizeof *st->diffs)) {
		st->failed = true;
		return NULL;
	}
	st->res.differences = st->diffs;
	return &st->diffs[st->res.n_differences++];
}

/* A difference in field, of message (0: of the direction or side), when the profile does not ignore it. */
static void differ(const struct dir *d, enum rt_diff_field field, uint64_t message, const struct rt_message *ma,
		   const struct rt_message *mb, const char *a, const char *b, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

static void differ(const struct dir *d, enum rt_diff_field field, uint64_t message, const struct rt_message *ma,
		   const struct rt_message *mb, const char *a, const char *b, const char *fmt, ...)
{
	enum rt_diff_class cls = d->st->opt.profile.cls[field];
	if (cls == RT_DIFF_IGNORED)
		return;
	d->st->res.count[cls]++;
	d->st->res.field_count[field]++;
	d->pair->differences[cls]++;
	struct rt_diff_difference *x = keep(d->st);
	if (!x)
		return;
	*x = (struct rt_diff_difference){ .cls = cls, .field = field, .pair = d->pair->id, .side = (uint8_t)d->side,
					  .message = message, .frame_a = ma ? ma->first_frame : 0,
					  .frame_b = mb ? mb->first_frame : 0, .order = d->st->seq++ };
	/* Each capture's ladder draws the message's first packet as a row of its own, to be marked and linked. */
	rt_checker_ladder_row(d->st->cap[0].checker, d->pair->flow_a, x->frame_a);
	rt_checker_ladder_row(d->st->cap[1].checker, d->pair->flow_b, x->frame_b);
	snprintf(x->a, sizeof x->a, "%s", a);
	snprintf(x->b, sizeof x->b, "%s", b);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->what, sizeof x->what, fmt, ap);
	va_end(ap);
}

/* ---- describing a message ---------------------------------------------------- */

static void op_name(const struct rt_message *m, char *buf, size_t size)
{
	const char *fam = m->family == RT_FAMILY_READ_REQUEST ? "READ" : rt_family_name((enum rt_family)m->family);
	snprintf(buf, size, "%s%s%s", fam, m->flags & RT_MSG_IMM ? " with immediate" : "",
		 m->flags & RT_MSG_IETH ? " with invalidate" : "");
}

/* "Only 1024", "First 4096 + Last 3072", "First 1024 + 5 Middle + Last 1024". */
static void segments(const struct rt_message *m, char *buf, size_t size)
{
	if (m->packets <= 1)
		snprintf(buf, size, "Only %u", m->length);
	else if (m->packets == 2)
		snprintf(buf, size, "First %u + Last %u", m->first_len, m->last_len);
	else
		snprintf(buf, size, "First %u + %u Middle + Last %u", m->first_len, m->packets - 2, m->last_len);
}

static bool whole(const struct rt_message *m)
{
	return !(m->flags & (RT_MSG_PARTIAL | RT_MSG_INCOMPLETE)) && !m->holes;
}

/* ---- per message ------------------------------------------------------------- */

static void compare_shape(const struct dir *d, uint64_t n, const struct rt_message *a, const struct rt_message *b)
{
	char x[80], y[80];
	op_name(a, x, sizeof x);
	op_name(b, y, sizeof y);
	if (strcmp(x, y))
		differ(d, RT_DIFF_OPCODE, n, a, b, x, y, "message %llu: A sends a %s, B a %s", (unsigned long long)n, x, y);
	if (!whole(a) || !whole(b))
		return;
	if (a->length != b->length) {
		snprintf(x, sizeof x, "%u", a->length);
		snprintf(y, sizeof y, "%u", b->length);
		differ(d, RT_DIFF_LENGTH, n, a, b, x, y, "message %llu: %u B in A, %u B in B", (unsigned long long)n,
		       a->length, b->length);
		return;
	}
	bool multi = a->family == RT_FAMILY_SEND || a->family == RT_FAMILY_WRITE;
	if (multi && (a->packets != b->packets || a->first_len != b->first_len || a->seg_hash != b->seg_hash)) {
		segments(a, x, sizeof x);
		segments(b, y, sizeof y);
		char pmtu[48] = "";
		if (a->packets > 1 && b->packets > 1 && a->first_len != b->first_len)
			snprintf(pmtu, sizeof pmtu, ": PMTU %u vs %u", a->first_len, b->first_len);
		differ(d, RT_DIFF_SEGMENTS, n, a, b, x, y, "message %llu: A splits %u B as %s, B as %s%s",
		       (unsigned long long)n, a->length, x, y, pmtu);
	} else if (a->pad != b->pad) {
		snprintf(x, sizeof x, "%u", a->pad);
		snprintf(y, sizeof y, "%u", b->pad);
		differ(d, RT_DIFF_PADCNT, n, a, b, x, y, "message %llu: PadCnt %u in A, %u in B for the same %u B",
		       (unsigned long long)n, a->pad, b->pad, a->length);
	}
}

static void compare_values(const struct dir *d, uint64_t n, const struct rt_message *a, const struct rt_message *b)
{
	char x[80], y[80];
	unsigned long long un = n;
	if ((a->flags & b->flags & RT_MSG_IMM) && a->imm != b->imm) {
		snprintf(x, sizeof x, "0x%08x", a->imm);
		snprintf(y, sizeof y, "0x%08x", b->imm);
		differ(d, RT_DIFF_IMMEDIATE, n, a, b, x, y, "message %llu: immediate data %s in A, %s in B", un, x, y);
	}
	if ((a->flags ^ b->flags) & RT_MSG_SE)
		differ(d, RT_DIFF_SOLICITED, n, a, b, a->flags & RT_MSG_SE ? "1" : "0", b->flags & RT_MSG_SE ? "1" : "0",
		       "message %llu: A %s the solicited event (SE), B %s", un, a->flags & RT_MSG_SE ? "sets" : "does not set",
		       b->flags & RT_MSG_SE ? "does" : "does not");
	bool addressed = a->family != RT_FAMILY_SEND && !(a->flags & RT_MSG_PARTIAL) && !(b->flags & RT_MSG_PARTIAL);
	uint64_t ra = a->va - d->base_va[0], rb = b->va - d->base_va[1];
	if (addressed && ra != rb) {
		snprintf(x, sizeof x, "first + 0x%llx", (unsigned long long)ra);
		snprintf(y, sizeof y, "first + 0x%llx", (unsigned long long)rb);
		differ(d, RT_DIFF_ADDRESS, n, a, b, x, y, "message %llu: remote address %s in A, %s in B", un, x, y);
	}
	if (a->family == RT_FAMILY_ATOMIC && (a->atomic[0] != b->atomic[0] || a->atomic[1] != b->atomic[1])) {
		snprintf(x, sizeof x, "0x%llx/0x%llx", (unsigned long long)a->atomic[0], (unsigned long long)a->atomic[1]);
		snprintf(y, sizeof y, "0x%llx/0x%llx", (unsigned long long)b->atomic[0], (unsigned long long)b->atomic[1]);
		differ(d, RT_DIFF_ATOMIC, n, a, b, x, y, "message %llu: atomic operands (swap or add / compare) %s in A, "
		       "%s in B", un, x, y);
	}
	bool comparable = whole(a) && whole(b) && !((a->flags | b->flags) & RT_MSG_TRUNCATED);
	if (d->st->opt.payload && comparable && a->length == b->length && a->payload_hash != b->payload_hash)
		differ(d, RT_DIFF_PAYLOAD, n, a, b, "", "", "message %llu: the %u payload bytes differ", un, a->length);
}

static void compare_response(const struct dir *d, uint64_t n, const struct rt_message *a, const struct rt_message *b)
{
	char x[80], y[80];
	if (!(a->flags & b->flags & RT_MSG_RESP_DONE))
		return;
	if (a->family == RT_FAMILY_READ_REQUEST &&
	    (a->resp_len != b->resp_len || a->resp_packets != b->resp_packets || a->resp_first_len != b->resp_first_len)) {
		snprintf(x, sizeof x, "%u B in %u", a->resp_len, a->resp_packets);
		snprintf(y, sizeof y, "%u B in %u", b->resp_len, b->resp_packets);
		differ(d, RT_DIFF_RESPONSE, n, a, b, x, y, "message %llu: the READ is answered with %s packet(s) "
		       "(first %u B) in A, %s (first %u B) in B", (unsigned long long)n, x, a->resp_first_len, y,
		       b->resp_first_len);
	} else if (d->st->opt.payload && a->resp_hash != b->resp_hash) {
		differ(d, RT_DIFF_RESPONSE, n, a, b, "", "", "message %llu: the %s differ", (unsigned long long)n,
		       a->family == RT_FAMILY_ATOMIC ? "atomic ACK's original values" : "READ response bytes");
	}
}

/* How a message cut into several packets asks for ACKs: 0 on none, 1 on the last only, 2 on all, 3 otherwise. */
static int ackreq_policy(const struct rt_message *m)
{
	if (!m->ackreq)
		return 0;
	if (m->ackreq == 1 && m->last_ackreq)
		return 1;
	return m->ackreq == m->packets ? 2 : 3;
}

static void compare_behaviour(const struct dir *d, uint64_t n, const struct rt_message *a, const struct rt_message *b)
{
	char x[80], y[80];
	unsigned long long un = n;
	if (a->naks != b->naks || a->rnr_naks != b->rnr_naks) {
		snprintf(x, sizeof x, "%u NAK, %u RNR NAK", a->naks, a->rnr_naks);
		snprintf(y, sizeof y, "%u NAK, %u RNR NAK", b->naks, b->rnr_naks);
		differ(d, RT_DIFF_NAK, n, a, b, x, y, "message %llu: the responder sends %s for it in A, %s in B", un, x, y);
	}
	bool same_cut = whole(a) && whole(b) && a->packets == b->packets;
	bool policies = whole(a) && whole(b) && a->packets > 1 && b->packets > 1;
	if (same_cut ? a->ackreq_bits != b->ackreq_bits || a->ackreq != b->ackreq
		     : policies ? ackreq_policy(a) != ackreq_policy(b) : a->last_ackreq != b->last_ackreq) {
		snprintf(x, sizeof x, "%u of %u", a->ackreq, a->packets);
		snprintf(y, sizeof y, "%u of %u", b->ackreq, b->packets);
		differ(d, RT_DIFF_ACKREQ, n, a, b, x, y, "message %llu: AckReq on %s packets in A (%s the last), %s in B "
		       "(%s the last)", un, x, a->last_ackreq ? "with" : "not", y, b->last_ackreq ? "with" : "not");
	}
	bool acked_both_ways = d->answers[0] && d->answers[1] && a->family != RT_FAMILY_READ_REQUEST;
	if (acked_both_ways && (a->flags ^ b->flags) & RT_MSG_ACKED)
		differ(d, RT_DIFF_ACK_COALESCING, n, a, b, a->flags & RT_MSG_ACKED ? "own ACK" : "coalesced",
		       b->flags & RT_MSG_ACKED ? "own ACK" : "coalesced",
		       "message %llu: acknowledged %s in A, %s in B", un,
		       a->flags & RT_MSG_ACKED ? "by an ACK of its own" : "only by a later ACK",
		       b->flags & RT_MSG_ACKED ? "by an ACK of its own" : "only by a later ACK");
	if (a->resent != b->resent) {
		snprintf(x, sizeof x, "%u", a->resent);
		snprintf(y, sizeof y, "%u", b->resent);
		differ(d, RT_DIFF_RETRANSMIT, n, a, b, x, y, "message %llu: %u packet(s) of it sent again in A, %u in B",
		       un, a->resent, b->resent);
	}
}

static void compare_messages(const struct dir *d, size_t i, const struct rt_message *a, const struct rt_message *b)
{
	uint64_t n = i + 1;
	compare_shape(d, n, a, b);
	compare_values(d, n, a, b);
	compare_response(d, n, a, b);
	compare_behaviour(d, n, a, b);
}

/* ---- alignment --------------------------------------------------------------- */

/* How far ahead alignment looks for a message one capture lacks. */
#define LOOKAHEAD 16
/* Messages a queue holds before a step is taken on it (unless its capture ended): every look ahead sees them. */
#define READY (2 * LOOKAHEAD + 1)

static const struct rt_message *msg_at(const struct diff_queue *q, uint64_t k)
{
	return diff_queue_at(q, k);
}

/* Takes count messages off capture k's queue. */
static void take(struct dir *d, int k, uint64_t count)
{
	struct diff_queue *q = &d->q->q[k];
	bool was_full = diff_queue_len(q) >= DIFF_WINDOW;
	diff_queue_pop(q, count);
	if (was_full && diff_queue_len(q) < DIFF_WINDOW)
		d->st->full[k]--;
}

/* How many messages after from the next whole one with key is; 0 when none within LOOKAHEAD. */
static uint64_t find_key(const struct diff_queue *q, uint64_t from, uint64_t key)
{
	for (uint64_t k = 1; k <= LOOKAHEAD && from + k < q->n; k++)
		if (whole(msg_at(q, from + k)) && diff_msg_key(msg_at(q, from + k)) == key)
			return k;
	return 0;
}

/*
 * Capture `lacks` has nothing for count messages of the other from index
 * from on; next is the lacking capture's message after the hole.
 */
static void lacking(struct dir *d, int lacks, uint64_t from, uint64_t count, const struct rt_message *next)
{
	int has = 1 - lacks;
	if (!d->q->matched) {
		d->q->skipped[has] += count;
		return;
	}
	if (next->flags & RT_MSG_AFTER_GAP) {
		d->q->gap_missing[lacks] += count;
		return;
	}
	for (uint64_t k = 0; k < count; k++) {
		const struct rt_message *m = msg_at(&d->q->q[has], from + k);
		char op[80], desc[120];
		op_name(m, op, sizeof op);
		snprintf(desc, sizeof desc, "%s of %u B", op, m->length);
		differ(d, RT_DIFF_MISSING, from + k + 1, has ? NULL : m, has ? m : NULL, has ? "" : desc, has ? desc : "",
		       "%s's message %llu (a %s, frame %llu) has no counterpart in %s", has ? "B" : "A",
		       (unsigned long long)(from + k + 1), desc, (unsigned long long)m->first_frame, has ? "A" : "B");
	}
}

/* How many messages of q from i on start before PSN upto (the ones another capture's hole covers). */
static uint64_t in_hole(const struct diff_queue *q, uint64_t i, uint64_t upto)
{
	uint64_t n = 0;
	while (i + n < q->n && msg_at(q, i + n)->start < upto)
		n++;
	return n;
}

/* How many of the next messages from i and j on agree in operation and length, up to LOOKAHEAD / 2. */
static uint64_t run_of_matches(const struct diff_queue *qa, uint64_t i, const struct diff_queue *qb, uint64_t j)
{
	uint64_t n = 0;
	for (uint64_t k = 0; k < LOOKAHEAD / 2 && i + k < qa->n && j + k < qb->n; k++)
		n += diff_msg_key(msg_at(qa, i + k)) == diff_msg_key(msg_at(qb, j + k));
	return n;
}

/* How far the two captures' remaining message counts (of the whole capture) are apart after an option. */
static uint64_t imbalance(const struct diff_queue *qa, uint64_t i, const struct diff_queue *qb, uint64_t j)
{
	uint64_t ra = i < qa->total ? qa->total - i : 0, rb = j < qb->total ? qb->total - j : 0;
	return ra > rb ? ra - rb : rb - ra;
}

/*
 * A[i] and B[j] differ in operation or length: one capture lacks messages
 * (skip that many of the other's: *skip_b of B's or *skip_a of A's), or
 * they are one message done differently (both 0). The option after which
 * more messages agree wins; on a tie, the one that leaves the two captures
 * with as many messages each, then the substitution (repeated identical
 * messages make every option agree).
 */
static void choose_skip(const struct diff_queue *qa, const struct diff_queue *qb, uint64_t *skip_a, uint64_t *skip_b)
{
	uint64_t i = qa->base, j = qb->base;
	uint64_t db = find_key(qb, j, diff_msg_key(msg_at(qa, i))), da = find_key(qa, i, diff_msg_key(msg_at(qb, j)));
	uint64_t best = run_of_matches(qa, i + 1, qb, j + 1), best_imb = imbalance(qa, i + 1, qb, j + 1);
	if (db) {
		uint64_t sc = run_of_matches(qa, i, qb, j + db), imb = imbalance(qa, i, qb, j + db);
		if (sc > best || (sc == best && imb < best_imb)) {
			best = sc;
			best_imb = imb;
			*skip_b = db;
		}
	}
	if (da) {
		uint64_t sc = run_of_matches(qa, i + da, qb, j), imb = imbalance(qa, i + da, qb, j);
		if (sc > best || (sc == best && imb < best_imb)) {
			*skip_b = 0;
			*skip_a = da;
		}
	}
}

static void aligned(struct dir *d, const struct rt_message *a, const struct rt_message *b)
{
	struct diff_dir *q = d->q;
	compare_messages(d, a->index - 1, a, b);
	q->next[0] = a->end + 1;
	q->next[1] = b->end + 1;
	if (a->flags & b->flags & RT_MSG_ACKED && q->n_delays < DIFF_DELAYS) {
		for (int k = 0; k < 2; k++)
			if (!q->delays[k] && !(q->delays[k] = malloc(DIFF_DELAYS * sizeof *q->delays[k])))
				d->st->failed = true;
		if (q->delays[0] && q->delays[1]) {
			q->delays[0][q->n_delays] = a->ack_ns;
			q->delays[1][q->n_delays++] = b->ack_ns;
		}
	}
	q->matched = true;
	d->pair->matched[d->side]++;
	take(d, 0, 1);
	take(d, 1, 1);
}

/* Both queues hold a message: one step of the alignment (a partial message, a hole, a skip or a pair). */
static void align_step(struct dir *d)
{
	struct diff_dir *q = d->q;
	struct diff_queue *qa = &q->q[0], *qb = &q->q[1];
	const struct rt_message *a = msg_at(qa, qa->base), *b = msg_at(qb, qb->base);
	if ((a->flags | b->flags) & RT_MSG_PARTIAL) {
		/* Its beginning is not in the capture: nothing to compare it with. */
		for (int k = 0; k < 2; k++)
			if ((k ? b : a)->flags & RT_MSG_PARTIAL) {
				q->partial[k]++;
				take(d, k, 1);
			}
		return;
	}
	uint64_t skip_b = 0, skip_a = 0;
	/* A capture that jumped over PSNs missed what the other has there. */
	if (q->matched && (b->flags & RT_MSG_AFTER_GAP))
		skip_a = in_hole(qa, qa->base, q->next[0] + (b->start - q->next[1]));
	if (q->matched && (a->flags & RT_MSG_AFTER_GAP) && !skip_a)
		skip_b = in_hole(qb, qb->base, q->next[1] + (a->start - q->next[0]));
	if (skip_a || skip_b) {
		q->gap_missing[skip_a ? 1 : 0] += skip_a + skip_b;
		take(d, 0, skip_a);
		take(d, 1, skip_b);
		return;
	}
	if (diff_msg_key(a) != diff_msg_key(b))
		choose_skip(qa, qb, &skip_a, &skip_b);
	if (skip_b) {
		lacking(d, 0, qb->base, skip_b, a);
		take(d, 1, skip_b);
	} else if (skip_a) {
		lacking(d, 1, qa->base, skip_a, b);
		take(d, 0, skip_a);
	} else {
		aligned(d, a, b);
	}
}

static struct dir dir_of(struct diff_state *st, size_t p, int s)
{
	struct rt_diff_pair *pair = &st->pairs[p];
	const struct diff_flow *fa = &st->cap[0].flows[pair->flow_a - 1], *fb = &st->cap[1].flows[pair->flow_b - 1];
	int sb = s ^ pair->swapped;
	return (struct dir){ .st = st, .pair = pair, .side = s, .q = &st->dirs[p][s],
			     .base_va = { fa->base_va[s], fb->base_va[sb] },
			     .answers = { fa->side[1 - s].credits != 0, fb->side[1 - sb].credits != 0 } };
}

/* One step if the queues allow it (force: whatever they hold); false when none was taken. */
static bool try_step(struct dir *d, bool force)
{
	struct diff_queue *q = d->q->q;
	bool ended[2] = { d->st->cap[0].ended, d->st->cap[1].ended };
	uint64_t len[2] = { diff_queue_len(&q[0]), diff_queue_len(&q[1]) };
	for (int k = 0; k < 2; k++) {
		/* The counterparts of messages passed over: passed over too, so that the two stay in step. */
		uint64_t owed = d->q->owed[k] < len[k] ? d->q->owed[k] : len[k];
		if (owed) {
			d->q->owed[k] -= owed;
			take(d, k, owed);
			return true;
		}
	}
	for (int k = 0; k < 2; k++) {
		if (len[k] || !len[1 - k])
			continue;
		if (ended[k]) {
			/* One capture has no more of this direction: the other's messages are after what it holds. */
			d->q->skipped[1 - k] += len[1 - k];
			take(d, 1 - k, len[1 - k]);
			return true;
		}
		if (!force || len[1 - k] < DIFF_WINDOW)
			return false;
		/* The other capture has nothing for a whole window of these: pass the oldest over, and say so. */
		d->q->resynced[1 - k]++;
		d->q->owed[k]++;
		take(d, 1 - k, 1);
		return true;
	}
	if (!len[0] || !len[1])
		return false;
	if (!force && ((len[0] < READY && !ended[0]) || (len[1] < READY && !ended[1])))
		return false;
	align_step(d);
	return true;
}

void diff_align(struct diff_state *st, size_t p, int s, bool force)
{
	struct dir d = dir_of(st, p, s);
	if (force) {
		try_step(&d, true);
		return;
	}
	while (try_step(&d, false))
		;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static void compare_timing(const struct dir *d)
{
	struct diff_dir *q = d->q;
	size_t n = q->n_delays;
	if (n < 3)
		return;
	qsort(q->delays[0], n, sizeof *q->delays[0], cmp_i64);
	qsort(q->delays[1], n, sizeof *q->delays[1], cmp_i64);
	int64_t a = q->delays[0][n / 2], b = q->delays[1][n / 2];
	int64_t lo = a < b ? a : b, hi = a < b ? b : a;
	/* Twice as long and a microsecond apart: capture points and clocks alone do not explain it. */
	if (hi - lo < 1000 || hi < 2 * lo)
		return;
	char x[48], y[48];
	snprintf(x, sizeof x, "%.3f us", (double)a / 1000);
	snprintf(y, sizeof y, "%.3f us", (double)b / 1000);
	differ(d, RT_DIFF_ACK_TIMING, 0, NULL, NULL, x, y,
	       "side %d's messages: median time from a message's last packet to its ACK %s in A, %s in B (%zu messages)",
	       d->side, x, y, n);
}

/* ---- per direction, side and flow -------------------------------------------- */

static void coverage_notes(struct dir *d)
{
	const struct diff_dir *q = d->q;
	for (int k = 0; k < 2; k++) {
		const char *me = k ? "B" : "A", *other = k ? "A" : "B";
		unsigned long long n = q->q[k].total;
		if (!q->q[1 - k].total && n) {
			note(d->pair, "side %d sends %llu message(s) in %s, none in %s", d->side, n, me, other);
			continue;
		}
		if (q->skipped[k])
			note(d->pair, "side %d: %llu message(s) of %s before or after what %s holds", d->side,
			     (unsigned long long)q->skipped[k], me, other);
		if (q->partial[k])
			note(d->pair, "side %d: %s holds %llu message(s) only in part (their beginning is not in the capture)",
			     d->side, me, (unsigned long long)q->partial[k]);
		if (q->gap_missing[k])
			note(d->pair, "side %d: %s's capture misses %llu message(s) (PSNs skipped by the capture)", d->side,
			     me, (unsigned long long)q->gap_missing[k]);
		if (q->resynced[k])
			note(d->pair, "side %d: %llu message(s) of each capture not compared: %s ran more than %u messages "
			     "ahead of %s (resync)", d->side, (unsigned long long)q->resynced[k], me, DIFF_WINDOW, other);
	}
}

/* "{0}", "{31}", "{0,2,5}": the credit codes a mask holds. */
static void credit_set(uint32_t mask, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "{");
	for (int c = 0; c < 32 && n < size; c++)
		if (mask >> c & 1)
			n += (size_t)snprintf(buf + n, size - n, "%s%d", n > 1 ? "," : "", c);
	if (n < size)
		snprintf(buf + n, size - n, "}");
}

static void finish_direction(struct diff_state *st, size_t p, int s)
{
	struct dir d = dir_of(st, p, s);
	struct rt_diff_pair *pair = d.pair;
	const struct diff_side_facts *ra = &st->cap[0].flows[pair->flow_a - 1].side[1 - s];
	const struct diff_side_facts *rb = &st->cap[1].flows[pair->flow_b - 1].side[1 - (s ^ pair->swapped)];
	while (try_step(&d, false))
		;
	compare_timing(&d);
	coverage_notes(&d);
	if (ra->credits && rb->credits && ra->credits != rb->credits) {
		char x[80], y[80];
		credit_set(ra->credits, x, sizeof x);
		credit_set(rb->credits, y, sizeof y);
		differ(&d, RT_DIFF_ACK_CREDIT, 0, NULL, NULL, x, y, "side %d's ACKs carry credit codes %s in A, %s in B",
		       1 - s, x, y);
	}
	for (int k = 0; k < 2; k++) {
		free(d.q->q[k].ring);
		free(d.q->delays[k]);
	}
	memset(d.q, 0, sizeof *d.q);
}

/* TOS, MigReq and TTL of A's side s and B's side s ^ swapped. */
static void compare_side(struct diff_state *st, struct rt_diff_pair *pair, int s)
{
	const struct diff_side_facts *a = &st->cap[0].flows[pair->flow_a - 1].side[s];
	const struct diff_side_facts *b = &st->cap[1].flows[pair->flow_b - 1].side[s ^ pair->swapped];
	struct dir d = { .st = st, .pair = pair, .side = s };
	char x[48], y[48];
	if (!a->seen || !b->seen)
		return;
	if (a->tos != b->tos || a->tos_varies != b->tos_varies) {
		snprintf(x, sizeof x, "0x%02x%s", a->tos, a->tos_varies ? " (varies)" : "");
		snprintf(y, sizeof y, "0x%02x%s", b->tos, b->tos_varies ? " (varies)" : "");
		differ(&d, RT_DIFF_TOS, 0, NULL, NULL, x, y, "side %d sends TOS %s (DSCP %u) in A, %s (DSCP %u) in B", s,
		       x, a->tos >> 2, y, b->tos >> 2);
	}
	if (a->migreq != b->migreq)
		differ(&d, RT_DIFF_MIGREQ, 0, NULL, NULL, a->migreq ? "1" : "0", b->migreq ? "1" : "0",
		       "side %d %s MigReq in A, %s in B", s, a->migreq ? "sets" : "never sets",
		       b->migreq ? "sets it" : "never does");
	if (a->ttl != b->ttl) {
		snprintf(x, sizeof x, "%u", a->ttl);
		snprintf(y, sizeof y, "%u", b->ttl);
		differ(&d, RT_DIFF_TTL, 0, NULL, NULL, x, y, "side %d sends TTL %s in A, %s in B", s, x, y);
	}
}

/* A flow's UDP source-port policy: "one port both ways", "a port per side", and whether in 0xC000-0xFFFF. */
static void sport_policy(const struct diff_flow *f, char *buf, size_t size)
{
	const struct diff_side_facts *a = &f->side[0], *b = &f->side[1];
	bool both = a->rocev2 && b->rocev2;
	bool ranged = (!a->rocev2 || a->sport >= 0xC000) && (!b->rocev2 || b->sport >= 0xC000);
	snprintf(buf, size, "%s%s, %s 0xC000-0xFFFF", !both ? "one side's port" : a->sport == b->sport ? "one port both ways"
		 : "a port per side", a->sport_varies || b->sport_varies ? " (varying)" : "", ranged ? "in" : "outside");
}

void diff_finish_pair(struct diff_state *st, size_t p)
{
	struct rt_diff_pair *pair = &st->pairs[p];
	for (int s = 0; s < 2; s++)
		finish_direction(st, p, s);
	for (int s = 0; s < 2; s++)
		compare_side(st, pair, s);
	char x[80], y[80];
	sport_policy(&st->cap[0].flows[pair->flow_a - 1], x, sizeof x);
	sport_policy(&st->cap[1].flows[pair->flow_b - 1], y, sizeof y);
	struct dir d = { .st = st, .pair = pair };
	if (strcmp(x, y))
		differ(&d, RT_DIFF_UDP_SPORT, 0, NULL, NULL, x, y, "UDP source ports: %s in A, %s in B", x, y);
}
