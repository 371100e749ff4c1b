/* SPDX-License-Identifier: MIT */
/*
 * rocetest diff's engine (harness/lib/check/diff*.c) on workloads built
 * here frame by frame: the same work with every normalised field changed
 * (nothing differs), then one change at a time (exactly that difference,
 * at its message, in its class), alignment around a missing message and a
 * capture gap, flow pairing and --map, profiles.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocetest/checker.h"
#include "rocetest/diff.h"
#include "rocetest/message.h"
#include "suites.h"
#include "test_util.h"

/* ---- workloads ------------------------------------------------------------- */

struct msg_spec {
	uint8_t family;		/* RT_FAMILY_SEND or RT_FAMILY_WRITE */
	uint32_t len;
	bool imm;
	uint8_t fill;		/* payload byte */
};

/* One connection's requests from side 0 and the ACKs from side 1, as one capture has them. */
struct workload {
	uint8_t ip_a, ip_b;	/* 10.0.0.ip_a -> 10.0.0.ip_b */
	uint32_t qp_a, qp_b, psn;
	uint16_t sport;
	uint32_t pmtu;
	uint8_t tos;
	bool ackreq_all;	/* AckReq on every packet (else on the last) */
	unsigned ack_every;	/* an ACK after every Nth message (0, 1: each) */
	int skip_message;	/* 1-based message not sent at all (PSNs go on), 0 none */
	int lose_message;	/* 1-based message whose packets the capture misses, 0 none */
	int resend_message;	/* 1-based message whose second packet is sent again (go-back-N from it), 0 none */
	bool resend_lost;	/* ... and the capture misses its first transmission (lost before the capture point) */
	uint64_t va;
};

/* A capture built in memory: the frames one after another, each with its length and time. */
struct recording {
	uint8_t *bytes;
	size_t len, cap;
	struct rec_frame { size_t off; uint32_t n; int64_t ts; } *frames;
	size_t n, cap_frames;
};

struct feeder {
	struct recording *rec;
	int64_t ts;
};

static void record(struct recording *r, const uint8_t *buf, size_t n, int64_t ts)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->bytes = realloc(r->bytes, r->cap);
		ck_assert_ptr_nonnull(r->bytes);
	}
	if (r->n == r->cap_frames) {
		r->cap_frames = r->cap_frames ? r->cap_frames * 2 : 64;
		r->frames = realloc(r->frames, r->cap_frames * sizeof *r->frames);
		ck_assert_ptr_nonnull(r->frames);
	}
	memcpy(r->bytes + r->len, buf, n);
	r->frames[r->n++] = (struct rec_frame){ r->len, (uint32_t)n, ts };
	r->len += n;
}

static void recording_free(struct recording *r)
{
	free(r->bytes);
	free(r->frames);
	memset(r, 0, sizeof *r);
}

static void feed_frame(struct rt_diff *d, int k, const struct recording *r, size_t i)
{
	const struct rec_frame *f = &r->frames[i];
	rt_diff_frame(d, k, RT_LINK_ETHERNET, i + 1, f->ts, r->bytes + f->off, f->n, f->n);
}

/* Both recordings to the diff, each as often and in the order it asks; rt_diff_finish()'s result. */
static int replay(struct rt_diff *d, struct recording rec[2], struct rt_error *err)
{
	size_t pos[2] = { 0, 0 };
	bool at_end[2] = { false, false };
	int k;
	while ((k = rt_diff_wants(d)) >= 0) {
		if (at_end[k]) {
			pos[k] = 0;
			at_end[k] = false;
		}
		if (pos[k] < rec[k].n) {
			feed_frame(d, k, &rec[k], pos[k]++);
		} else {
			at_end[k] = true;
			if (rt_diff_end(d, k, err))
				return -1;
		}
	}
	return rt_diff_finish(d, err);
}

static void base_workload(struct workload *w)
{
	memset(w, 0, sizeof *w);
	w->ip_a = 1;
	w->ip_b = 2;
	w->qp_a = 0x11;
	w->qp_b = 0x12;
	w->psn = 1000;
	w->sport = 0xC001;
	w->pmtu = 1024;
	w->va = 0x10000;
}

/* Another connection beside base_workload()'s: another responder, other QPs. */
static void second_connection(struct workload *w, uint32_t qp_b)
{
	base_workload(w);
	w->ip_b = 3;
	w->qp_a = 0x21;
	w->qp_b = qp_b;
}

static void emit(struct feeder *fd, struct rt_build_spec *s, bool captured)
{
	uint8_t buf[9216];
	size_t n = build_frame(s, buf, sizeof buf);
	fd->ts += 1000;
	if (captured)
		record(fd->rec, buf, n, fd->ts);
}

static void spec_for(struct rt_build_spec *s, const struct workload *w, bool request)
{
	rt_build_spec_init(s);
	uint8_t a[4] = { 10, 0, 0, w->ip_a }, b[4] = { 10, 0, 0, w->ip_b };
	memcpy(s->src_ip, request ? a : b, 4);
	memcpy(s->dst_ip, request ? b : a, 4);
	s->udp_sport = w->sport;
	s->tos = w->tos;
	s->bth.dest_qp = request ? w->qp_b : w->qp_a;
}

/* The opcode of packet k of n of a message (First/Middle/Last/Only, with immediate on the last). */
static uint8_t opcode_of(const struct msg_spec *m, uint32_t k, uint32_t n)
{
	bool write = m->family == RT_FAMILY_WRITE;
	if (n == 1)
		return write ? (m->imm ? RT_OP_WRITE_ONLY_IMM : RT_OP_WRITE_ONLY)
			     : (m->imm ? RT_OP_SEND_ONLY_IMM : RT_OP_SEND_ONLY);
	if (k == 0)
		return write ? RT_OP_WRITE_FIRST : RT_OP_SEND_FIRST;
	if (k + 1 < n)
		return write ? RT_OP_WRITE_MIDDLE : RT_OP_SEND_MIDDLE;
	return write ? (m->imm ? RT_OP_WRITE_LAST_IMM : RT_OP_WRITE_LAST) : (m->imm ? RT_OP_SEND_LAST_IMM : RT_OP_SEND_LAST);
}

static void send_packet(struct feeder *fd, const struct workload *w, const struct msg_spec *m, size_t index,
			uint32_t k, uint32_t n, uint32_t psn, bool captured)
{
	static uint8_t payload[8192];
	memset(payload, m->fill, sizeof payload);
	struct rt_build_spec s;
	spec_for(&s, w, true);
	s.bth.opcode = opcode_of(m, k, n);
	s.bth.psn = psn & 0xFFFFFF;
	s.bth.ack_req = w->ackreq_all || k + 1 == n;
	s.payload = payload;
	s.payload_len = k + 1 < n ? w->pmtu : m->len - k * w->pmtu;
	s.ext.reth = (struct rt_reth){ .va = w->va + 0x10000 * index, .rkey = 0x77, .dma_len = m->len };
	s.ext.imm = 0xC0FFEE;
	emit(fd, &s, captured);
}

static void send_message(struct feeder *fd, const struct workload *w, const struct msg_spec *m, size_t index,
			 uint32_t *psn, bool captured)
{
	uint32_t n = m->len ? (m->len + w->pmtu - 1) / w->pmtu : 1;
	bool resend = (int)index + 1 == w->resend_message && n > 1;
	for (uint32_t k = 0; k < n; k++)
		send_packet(fd, w, m, index, k, n, *psn + k, captured && !(resend && k == 1 && w->resend_lost));
	/* Go-back-N from the second packet. */
	for (uint32_t k = 1; resend && k < n; k++)
		send_packet(fd, w, m, index, k, n, *psn + k, captured);
	*psn = (*psn + n) & 0xFFFFFF;
}

static void send_ack(struct feeder *fd, const struct workload *w, uint32_t psn, uint32_t msn)
{
	struct rt_build_spec s;
	spec_for(&s, w, false);
	s.bth.opcode = RT_OP_ACK;
	s.bth.psn = psn;
	s.ext.aeth = (struct rt_aeth){ .syndrome = 0x1F, .msn = msn };
	emit(fd, &s, true);
}

static void run_workload(struct recording *rec, const struct workload *w, const struct msg_spec *msgs, size_t n)
{
	struct feeder fd = { .rec = rec, .ts = rec->n ? rec->frames[rec->n - 1].ts : 0 };
	uint32_t psn = w->psn, msn = 0;
	for (size_t i = 0; i < n; i++) {
		if ((int)i + 1 == w->skip_message)
			continue;
		send_message(&fd, w, &msgs[i], i, &psn, (int)i + 1 != w->lose_message);
		msn++;
		if (w->ack_every <= 1 || (i + 1) % w->ack_every == 0 || i + 1 == n)
			send_ack(&fd, w, (psn - 1) & 0xFFFFFF, msn);
	}
}

static const struct msg_spec work[] = {
	{ RT_FAMILY_SEND, 100, false, 1 },  { RT_FAMILY_WRITE, 7168, false, 2 }, { RT_FAMILY_SEND, 3000, false, 3 },
	{ RT_FAMILY_WRITE, 64, false, 4 },  { RT_FAMILY_SEND, 2048, false, 5 },  { RT_FAMILY_WRITE, 5000, false, 6 },
};
#define N_WORK (sizeof work / sizeof work[0])

/* A against B, each with its workload and messages; returns the finished diff (free it). */
static struct rt_diff *diff_of(const struct rt_diff_options *o, const struct workload *wa, const struct msg_spec *ma,
			       size_t na, const struct workload *wb, const struct msg_spec *mb, size_t nb)
{
	struct rt_diff_options def;
	struct rt_error err;
	rt_diff_options_init(&def);
	struct rt_diff *d = rt_diff_new(o ? o : &def, &err);
	ck_assert_ptr_nonnull(d);
	struct recording rec[2] = { { 0 }, { 0 } };
	run_workload(&rec[0], wa, ma, na);
	run_workload(&rec[1], wb, mb, nb);
	ck_assert_msg(replay(d, rec, &err) == 0, "%s", err.msg);
	recording_free(&rec[0]);
	recording_free(&rec[1]);
	return d;
}

/* The only difference kept; fails unless there is exactly one. */
static const struct rt_diff_difference *only_difference(const struct rt_diff *d)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	for (size_t i = 0; r->n_differences != 1 && i < r->n_differences; i++)
		fprintf(stderr, "  %s %s: %s\n", rt_diff_class_name(r->differences[i].cls),
			rt_diff_field_name(r->differences[i].field), r->differences[i].what);
	ck_assert_uint_eq(r->n_differences, 1);
	return &r->differences[0];
}

/* ---- the same work -------------------------------------------------------- */

START_TEST(normalised_fields_do_not_differ)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.ip_a = 7;
	b.ip_b = 9;
	b.qp_a = 0x4242;
	b.qp_b = 0x777;
	b.psn = 0xFFFFFA;	/* and across the 24-bit wrap */
	b.sport = 0xD00D;
	b.va = 0x7F0000000000ull;
	struct rt_diff_options o;
	rt_diff_options_init(&o);
	o.payload = true;
	struct rt_diff *d = diff_of(&o, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_pairs, 1);
	ck_assert_uint_eq(r->pairs[0].matched[0], N_WORK);
	ck_assert_uint_eq(r->pairs[0].messages_a[0], N_WORK);
	ck_assert_uint_eq(r->n_differences, 0);
	ck_assert_uint_eq(r->count[RT_DIFF_SEMANTIC] + r->count[RT_DIFF_BEHAVIOUR] + r->count[RT_DIFF_COSMETIC], 0);
	rt_diff_free(d);
}
END_TEST

/* ---- one change each ------------------------------------------------------- */

START_TEST(pmtu_changes_segmentation)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	a.pmtu = 4096;
	static const struct msg_spec one[] = { { RT_FAMILY_WRITE, 7168, false, 2 } };
	struct rt_diff *d = diff_of(NULL, &a, one, 1, &b, one, 1);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->cls, RT_DIFF_SEMANTIC);
	ck_assert_int_eq(x->field, RT_DIFF_SEGMENTS);
	ck_assert_uint_eq(x->message, 1);
	ck_assert_str_eq(x->what, "message 1: A splits 7168 B as First 4096 + Last 3072, B as First 1024 + 5 Middle + "
				  "Last 1024: PMTU 4096 vs 1024");
	ck_assert_uint_eq(x->frame_a, 1);
	ck_assert_uint_eq(x->frame_b, 1);
	rt_diff_free(d);
}
END_TEST

START_TEST(one_opcode_change)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	struct msg_spec changed[N_WORK];
	memcpy(changed, work, sizeof changed);
	changed[3].imm = true;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, changed, N_WORK);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->field, RT_DIFF_OPCODE);
	ck_assert_int_eq(x->cls, RT_DIFF_SEMANTIC);
	ck_assert_uint_eq(x->message, 4);
	ck_assert_str_eq(x->a, "WRITE");
	ck_assert_str_eq(x->b, "WRITE with immediate");
	ck_assert_uint_eq(rt_diff_result(d)->pairs[0].matched[0], N_WORK);
	rt_diff_free(d);
}
END_TEST

START_TEST(one_length_change)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	struct msg_spec changed[N_WORK];
	memcpy(changed, work, sizeof changed);
	changed[4].len = 2040;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, changed, N_WORK);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->field, RT_DIFF_LENGTH);
	ck_assert_uint_eq(x->message, 5);
	ck_assert_str_eq(x->what, "message 5: 2048 B in A, 2040 B in B");
	rt_diff_free(d);
}
END_TEST

START_TEST(payload_only_with_the_option)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	struct msg_spec changed[N_WORK];
	memcpy(changed, work, sizeof changed);
	changed[2].fill = 0x33;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, changed, N_WORK);
	ck_assert_uint_eq(rt_diff_result(d)->n_differences, 0);
	rt_diff_free(d);
	struct rt_diff_options o;
	rt_diff_options_init(&o);
	o.payload = true;
	d = diff_of(&o, &a, work, N_WORK, &b, changed, N_WORK);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->field, RT_DIFF_PAYLOAD);
	ck_assert_int_eq(x->cls, RT_DIFF_SEMANTIC);
	ck_assert_uint_eq(x->message, 3);
	rt_diff_free(d);
}
END_TEST

START_TEST(ack_policy_is_behaviour)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.ack_every = 2;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	/* Messages 1, 3 and 5 are acknowledged only with the next one in B. */
	ck_assert_uint_eq(r->n_differences, 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(r->differences[i].field, RT_DIFF_ACK_COALESCING);
		ck_assert_int_eq(r->differences[i].cls, RT_DIFF_BEHAVIOUR);
		ck_assert_uint_eq(r->differences[i].message, 2 * i + 1);
	}
	ck_assert_uint_eq(r->count[RT_DIFF_SEMANTIC], 0);
	rt_diff_free(d);

	base_workload(&b);
	b.ackreq_all = true;
	d = diff_of(NULL, &a, work, N_WORK, &b, work, N_WORK);
	r = rt_diff_result(d);
	/* Every multi-packet message: 2, 3, 5, 6. */
	ck_assert_uint_eq(r->field_count[RT_DIFF_ACKREQ], 4);
	ck_assert_uint_eq(r->count[RT_DIFF_BEHAVIOUR], 4);
	ck_assert_str_eq(r->differences[0].what, "message 2: AckReq on 1 of 7 packets in A (with the last), 7 of 7 in B "
						  "(with the last)");
	rt_diff_free(d);
}
END_TEST

START_TEST(tos_is_cosmetic_and_strict_makes_it_semantic)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.tos = 0x68;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	/* Both sides send with the TOS: one difference each. */
	ck_assert_uint_eq(r->count[RT_DIFF_COSMETIC], 2);
	ck_assert_int_eq(r->differences[0].field, RT_DIFF_TOS);
	ck_assert_uint_eq(r->count[RT_DIFF_SEMANTIC], 0);
	rt_diff_free(d);
	struct rt_diff_options o;
	rt_diff_options_init(&o);
	ck_assert_int_eq(rt_diff_profile_builtin(&o.profile, "strict"), 0);
	d = diff_of(&o, &a, work, N_WORK, &b, work, N_WORK);
	ck_assert_uint_eq(rt_diff_result(d)->count[RT_DIFF_SEMANTIC], 2);
	rt_diff_free(d);
}
END_TEST

/* ---- alignment ----------------------------------------------------------- */

START_TEST(a_missing_message_shifts_nothing)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.skip_message = 3;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->field, RT_DIFF_MISSING);
	ck_assert_int_eq(x->cls, RT_DIFF_SEMANTIC);
	ck_assert_uint_eq(x->message, 3);
	ck_assert_uint_eq(x->frame_b, 0);
	ck_assert_uint_eq(rt_diff_result(d)->pairs[0].matched[0], N_WORK - 1);
	rt_diff_free(d);
}
END_TEST

START_TEST(a_capture_gap_among_equal_messages)
{
	/* Five SENDs of one length: only the PSNs say which one B's capture missed. */
	static const struct msg_spec same[] = { { RT_FAMILY_SEND, 64, false, 1 }, { RT_FAMILY_SEND, 64, false, 2 },
						{ RT_FAMILY_SEND, 64, false, 3 }, { RT_FAMILY_SEND, 64, false, 4 },
						{ RT_FAMILY_SEND, 64, false, 5 } };
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.lose_message = 3;
	struct rt_diff_options o;
	rt_diff_options_init(&o);
	o.payload = true;
	struct rt_diff *d = diff_of(&o, &a, same, 5, &b, same, 5);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_differences, 0);
	ck_assert_uint_eq(r->pairs[0].matched[0], 4);
	text_assert_has(r->pairs[0].notes[0], "B's capture misses 1 message(s)");
	rt_diff_free(d);
}
END_TEST

START_TEST(a_capture_gap_is_a_note)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.lose_message = 3;
	struct rt_diff *d = diff_of(NULL, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_differences, 0);
	ck_assert_uint_eq(r->pairs[0].matched[0], N_WORK - 1);
	ck_assert_uint_ge(r->pairs[0].n_notes, 1);
	text_assert_has(r->pairs[0].notes[0], "B's capture misses 1 message(s)");
	rt_diff_free(d);
}
END_TEST

START_TEST(a_packet_lost_before_one_capture)
{
	/* A captured at the sender (the packet and its resend), B behind the loss (the resend only). */
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	a.resend_message = b.resend_message = 2;
	b.resend_lost = true;
	/* Message 2 crosses the PSN wrap, and so does the resend. */
	a.psn = b.psn = 0xFFFFFC;
	struct rt_diff_options o;
	rt_diff_options_init(&o);
	o.payload = true;
	struct rt_diff *d = diff_of(&o, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->pairs[0].matched[0], N_WORK);
	ck_assert_uint_eq(r->n_differences, 0);
	rt_diff_free(d);
	/* The resend completes B's message: its payload is compared, and a changed byte shows. */
	struct msg_spec changed[N_WORK];
	memcpy(changed, work, sizeof changed);
	changed[1].fill = 0x55;
	d = diff_of(&o, &a, work, N_WORK, &b, changed, N_WORK);
	const struct rt_diff_difference *p = only_difference(d);
	ck_assert_int_eq(p->field, RT_DIFF_PAYLOAD);
	ck_assert_uint_eq(p->message, 2);
	rt_diff_free(d);
	/* Without the resend in B at all: the packets sent again are behaviour, and the only difference. */
	b.resend_message = 0;
	b.resend_lost = false;
	d = diff_of(&o, &a, work, N_WORK, &b, work, N_WORK);
	const struct rt_diff_difference *x = only_difference(d);
	ck_assert_int_eq(x->field, RT_DIFF_RETRANSMIT);
	ck_assert_int_eq(x->cls, RT_DIFF_BEHAVIOUR);
	ck_assert_uint_eq(x->message, 2);
	ck_assert_str_eq(x->what, "message 2: 6 packet(s) of it sent again in A, 0 in B");
	rt_diff_free(d);
}
END_TEST

/* ---- streaming ------------------------------------------------------------------- */

#define LONG_WORK 1500

/* LONG_WORK messages: the six of work[] over and over. */
static struct msg_spec *long_work(void)
{
	struct msg_spec *m = malloc(LONG_WORK * sizeof *m);
	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < LONG_WORK; i++)
		m[i] = work[i % N_WORK];
	return m;
}

struct seen {
	uint64_t n, next_index;
	uint64_t lengths;
	bool in_order;
};

static void count_message(void *ctx, const struct rt_message *m)
{
	struct seen *s = ctx;
	s->in_order &= m->index == s->next_index++ && m->side == 0 && m->flow == 1;
	s->lengths += m->length;
	s->n++;
}

/* The checker hands over each message once the capture is RT_MESSAGE_WINDOW messages past it, in order. */
START_TEST(the_checker_hands_over_messages_in_a_bounded_window)
{
	struct workload w;
	base_workload(&w);
	struct msg_spec *msgs = long_work();
	struct recording rec = { 0 };
	run_workload(&rec, &w, msgs, 200);
	struct seen seen = { .next_index = 1, .in_order = true };
	struct rt_check_config cfg;
	rt_check_config_init(&cfg);
	cfg.on_message = count_message;
	cfg.ctx = &seen;
	struct rt_error err;
	struct rt_checker *c = rt_checker_new(&cfg, &err);
	ck_assert_ptr_nonnull(c);
	uint64_t expected_bytes = 0, half_frames = 0;
	for (size_t i = 0; i < rec.n; i++) {
		const struct rec_frame *f = &rec.frames[i];
		rt_checker_frame(c, RT_LINK_ETHERNET, i + 1, f->ts, rec.bytes + f->off, f->n, f->n);
		if (!half_frames && seen.n)
			half_frames = i + 1;
	}
	/* 200 messages fed: all but the last RT_MESSAGE_WINDOW are out before the capture ends. */
	ck_assert_uint_eq(seen.n, 200 - RT_MESSAGE_WINDOW);
	rt_checker_finish(c);
	ck_assert_uint_eq(seen.n, 200);
	ck_assert(seen.in_order);
	for (size_t i = 0; i < 200; i++)
		expected_bytes += msgs[i].len;
	ck_assert_uint_eq(seen.lengths, expected_bytes);
	ck_assert_uint_gt(half_frames, 0);
	rt_checker_free(c);
	recording_free(&rec);
	free(msgs);
}
END_TEST

/* Far more messages than the window: a missing message and a change, each at its message, the rest aligned. */
START_TEST(a_long_capture_streams)
{
	struct workload a, b;
	base_workload(&a);
	base_workload(&b);
	b.psn = 0xFFFF00;	/* and B's PSNs wrap */
	b.skip_message = 700;	/* a message B lacks: found by looking ahead in the queues */
	struct msg_spec *ma = long_work(), *mb = long_work();
	mb[1200].imm = true;
	struct rt_diff *d = diff_of(NULL, &a, ma, LONG_WORK, &b, mb, LONG_WORK);
	const struct rt_diff_result *r = rt_diff_result(d);
	for (size_t i = 0; r->n_differences != 2 && i < r->n_differences && i < 8; i++)
		fprintf(stderr, "  %s\n", r->differences[i].what);
	ck_assert_uint_eq(r->n_differences, 2);
	ck_assert_int_eq(r->differences[0].field, RT_DIFF_MISSING);
	ck_assert_uint_eq(r->differences[0].message, 700);
	ck_assert_int_eq(r->differences[1].field, RT_DIFF_OPCODE);
	ck_assert_uint_eq(r->differences[1].message, 1201);
	ck_assert_uint_eq(r->pairs[0].matched[0], LONG_WORK - 1);
	ck_assert_uint_eq(r->pairs[0].n_notes, 0);
	rt_diff_free(d);
	free(ma);
	free(mb);
}
END_TEST

/* Two recordings' frames merged by time into dst, as one capture of both connections would hold them. */
static void interleave(struct recording *dst, const struct recording *x, const struct recording *y)
{
	size_t i = 0, j = 0;
	while (i < x->n || j < y->n) {
		bool from_x = j == y->n || (i < x->n && x->frames[i].ts <= y->frames[j].ts);
		const struct recording *r = from_x ? x : y;
		const struct rec_frame *f = &r->frames[from_x ? i++ : j++];
		record(dst, r->bytes + f->off, f->n, f->ts);
	}
}

/* Two connections side by side, a change in each: found as they come, reported pair by pair. */
START_TEST(interleaved_connections_stream_and_report_in_order)
{
	struct workload w1, w2;
	base_workload(&w1);
	second_connection(&w2, 0x22);
	struct msg_spec *m1 = long_work(), *m2 = long_work();
	struct recording one = { 0 }, two = { 0 }, rec[2] = { { 0 }, { 0 } };
	run_workload(&one, &w1, m1, 400);
	run_workload(&two, &w2, m2, 400);
	interleave(&rec[0], &one, &two);
	recording_free(&one);
	recording_free(&two);
	m1[300].imm = true;
	m2[100].imm = true;
	run_workload(&one, &w1, m1, 400);
	run_workload(&two, &w2, m2, 400);
	interleave(&rec[1], &one, &two);
	struct rt_diff_options o;
	struct rt_error err;
	rt_diff_options_init(&o);
	struct rt_diff *d = rt_diff_new(&o, &err);
	ck_assert_int_eq(replay(d, rec, &err), 0);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_pairs, 2);
	ck_assert_uint_eq(r->n_differences, 2);
	ck_assert_uint_eq(r->differences[0].pair, 1);
	ck_assert_uint_eq(r->differences[0].message, 301);
	ck_assert_uint_eq(r->differences[1].pair, 2);
	ck_assert_uint_eq(r->differences[1].message, 101);
	ck_assert_uint_eq(r->pairs[0].matched[0] + r->pairs[1].matched[0], 800);
	rt_diff_free(d);
	for (int k = 0; k < 2; k++)
		recording_free(&rec[k]);
	recording_free(&one);
	recording_free(&two);
	free(m1);
	free(m2);
}
END_TEST

/*
 * Two connections in opposite order in the two captures: each capture's
 * first connection runs a window ahead of the other's. What cannot wait is
 * passed over with a note, never silently.
 */
START_TEST(a_capture_too_far_ahead_resyncs_with_a_note)
{
	struct workload w1, w2;
	base_workload(&w1);
	second_connection(&w2, 0x22);
	struct msg_spec *m = long_work();
	struct recording rec[2] = { { 0 }, { 0 } };
	run_workload(&rec[0], &w1, m, 300);
	run_workload(&rec[0], &w2, m + 1, 300);
	run_workload(&rec[1], &w2, m + 1, 300);
	run_workload(&rec[1], &w1, m, 300);
	struct rt_diff_options o;
	struct rt_error err;
	rt_diff_options_init(&o);
	struct rt_diff *d = rt_diff_new(&o, &err);
	ck_assert_int_eq(replay(d, rec, &err), 0);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_pairs, 2);
	ck_assert_uint_eq(r->count[RT_DIFF_SEMANTIC], 0);
	bool noted = false;
	uint64_t matched = 0;
	for (size_t p = 0; p < r->n_pairs; p++) {
		const struct rt_diff_pair *pair = &r->pairs[p];
		for (unsigned k = 0; k < pair->n_notes; k++)
			noted |= strstr(pair->notes[k], "message(s) of each capture not compared") &&
				 strstr(pair->notes[k], "(resync)");
		matched += pair->matched[0];
	}
	ck_assert_msg(noted, "no resync note");
	ck_assert_uint_lt(matched, 600);
	ck_assert_uint_gt(matched, 300);
	rt_diff_free(d);
	recording_free(&rec[0]);
	recording_free(&rec[1]);
	free(m);
}
END_TEST

/* ---- pairing ----------------------------------------------------------------- */

static const struct msg_spec small[] = { { RT_FAMILY_SEND, 16, false, 1 }, { RT_FAMILY_SEND, 16, false, 1 } };
static const struct msg_spec big[] = { { RT_FAMILY_WRITE, 4096, false, 1 }, { RT_FAMILY_WRITE, 4096, false, 1 } };

/* Capture k holds two connections: one carrying small SENDs, one big WRITEs, in the order given. */
static void two_flows(struct recording *rec, int k, bool big_first)
{
	struct workload w1, w2;
	base_workload(&w1);
	second_connection(&w2, 0x22 + (uint32_t)k);
	run_workload(rec, &w1, big_first ? big : small, 2);
	run_workload(rec, &w2, big_first ? small : big, 2);
}

START_TEST(flows_pair_by_content_and_by_map)
{
	struct rt_diff_options o;
	struct rt_error err;
	rt_diff_options_init(&o);
	struct recording rec[2] = { { 0 }, { 0 } };
	two_flows(&rec[0], 0, false);
	two_flows(&rec[1], 1, true);
	struct rt_diff *d = rt_diff_new(&o, &err);
	ck_assert_int_eq(replay(d, rec, &err), 0);
	const struct rt_diff_result *r = rt_diff_result(d);
	ck_assert_uint_eq(r->n_pairs, 2);
	/* By content: A's first flow (small SENDs) with B's second. */
	ck_assert_uint_eq(r->pairs[0].flow_a, 1);
	ck_assert_uint_eq(r->pairs[0].flow_b, 2);
	ck_assert_uint_eq(r->n_differences, 0);
	rt_diff_free(d);

	/* --map overrules: A's QP 0x12 (small SENDs) with B's QP 0x12 (the WRITE flow): every message differs. */
	o.map[0].qp_a = 0x12;
	o.map[0].qp_b = 0x12;
	o.n_map = 1;
	d = rt_diff_new(&o, &err);
	ck_assert_int_eq(replay(d, rec, &err), 0);
	r = rt_diff_result(d);
	ck_assert(r->pairs[0].mapped);
	ck_assert_uint_eq(r->pairs[0].flow_a, 1);
	ck_assert_uint_eq(r->pairs[0].flow_b, 1);
	ck_assert(!r->pairs[0].swapped);
	ck_assert_uint_gt(r->count[RT_DIFF_SEMANTIC], 0);
	/* Found as the two pairs came, reported pair by pair, each in message order. */
	for (size_t i = 1; i < r->n_differences; i++) {
		const struct rt_diff_difference *p = &r->differences[i - 1], *q = &r->differences[i];
		ck_assert_uint_le(p->pair, q->pair);
		ck_assert(p->pair != q->pair || p->side != q->side || !q->message || p->message <= q->message);
	}
	ck_assert_uint_gt(r->differences[r->n_differences - 1].pair, 1);
	rt_diff_free(d);

	o.map[0].qp_b = 0x999;
	d = rt_diff_new(&o, &err);
	ck_assert_int_eq(replay(d, rec, &err), -1);
	ck_assert_str_eq(err.msg, "--map 0x12=0x999: capture B has no flow with QP 0x999");
	rt_diff_free(d);
	recording_free(&rec[0]);
	recording_free(&rec[1]);
}
END_TEST

/* ---- profiles ------------------------------------------------------------------ */

static const char *profile_error(const char *text)
{
	static struct rt_error err;
	char path[] = "/tmp/rocetest-diff-profile.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct rt_diff_profile p;
	int rc = rt_diff_profile_load(&p, path, &err);
	unlink(path);
	if (!rc)
		return p.cls[RT_DIFF_ACK_COALESCING] == RT_DIFF_SEMANTIC && p.cls[RT_DIFF_UDP_SPORT] == RT_DIFF_IGNORED
			       ? "rxe, coalescing semantic"
			       : "loaded";
	return strchr(err.msg, ':') + 1;
}

START_TEST(profiles)
{
	struct rt_diff_profile p;
	ck_assert_int_eq(rt_diff_profile_builtin(&p, "connectx"), 0);
	ck_assert_int_eq(p.cls[RT_DIFF_ACK_COALESCING], RT_DIFF_BEHAVIOUR);
	ck_assert_int_eq(p.cls[RT_DIFF_ACK_CREDIT], RT_DIFF_COSMETIC);
	ck_assert_int_eq(p.cls[RT_DIFF_SEGMENTS], RT_DIFF_SEMANTIC);
	ck_assert_int_eq(rt_diff_profile_builtin(&p, "rxe"), 0);
	ck_assert_int_eq(p.cls[RT_DIFF_ACK_CREDIT], RT_DIFF_IGNORED);
	ck_assert_int_eq(rt_diff_profile_builtin(&p, "nic"), -1);
	ck_assert_str_eq(profile_error("profile rxe\n# comment\nack_coalescing semantic\n"), "rxe, coalescing semantic");
	ck_assert_str_eq(profile_error("tos ignored\nprofile rxe\n"), "2: 'profile rxe' must be the first entry");
	ck_assert_str_eq(profile_error("speed semantic\n"), "1: unknown field 'speed' (rocetest diff --list-fields)");
	ck_assert_str_eq(profile_error("tos loud\n"), "1: unknown class 'loud' (ignored, cosmetic, behaviour, semantic)");
	ck_assert_str_eq(profile_error("tos\n"), "1: expected FIELD CLASS (or 'profile NAME' first)");
	for (int f = 0; f < RT_DIFF_FIELDS; f++)
		ck_assert_int_eq(rt_diff_field_by_name(rt_diff_field_name((enum rt_diff_field)f)), f);
}
END_TEST

Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("diff");
	tcase_add_test(tc, normalised_fields_do_not_differ);
	tcase_add_test(tc, pmtu_changes_segmentation);
	tcase_add_test(tc, one_opcode_change);
	tcase_add_test(tc, one_length_change);
	tcase_add_test(tc, payload_only_with_the_option);
	tcase_add_test(tc, ack_policy_is_behaviour);
	tcase_add_test(tc, tos_is_cosmetic_and_strict_makes_it_semantic);
	tcase_add_test(tc, a_missing_message_shifts_nothing);
	tcase_add_test(tc, a_capture_gap_is_a_note);
	tcase_add_test(tc, a_capture_gap_among_equal_messages);
	tcase_add_test(tc, a_packet_lost_before_one_capture);
	tcase_add_test(tc, flows_pair_by_content_and_by_map);
	tcase_add_test(tc, profiles);
	tcase_add_test(tc, the_checker_hands_over_messages_in_a_bounded_window);
	tcase_add_test(tc, a_long_capture_streams);
	tcase_add_test(tc, a_capture_too_far_ahead_resyncs_with_a_note);
	tcase_add_test(tc, interleaved_connections_stream_and_report_in_order);
	suite_add_tcase(s, tc);
	return s;
}
