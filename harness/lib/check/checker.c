/* SPDX-License-Identifier: MIT */
/*
 * The checker's driver: parse each frame, find its flow, run the PKT rules
 * with the flow's PMTU, then the flow rules (check_flow.c: the SEQ, RSP
 * and REQ rules of check_seq.c, check_rsp.c, check_req.c), and draw the
 * ladder row. Also the flow table.
 *
 * Flows are found by "half" keys: (source IP, destination IP, destination
 * QP) names what one side sends. A packet's key says which QP it goes to
 * but not which QP sent it, so the two halves of a connection are matched
 * the first time the second half appears: it must go the other way between
 * the same two IPs, with the same transport, and (when several connections
 * could take it) answer a PSN that connection's requester has sent, or
 * share its UDP source port.
 */
#include "rocetest/checker.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "rocetest/check.h"
#include "rocetest/icrc.h"

struct half_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t qp;
	uint8_t ip_version;
};

struct half_slot {
	struct half_key key;
	uint32_t flow;		/* index + 1; 0: empty */
	uint8_t side;		/* the sending side */
};

/*
 * Per side of a flow: whether its bad ICRCs would all verify with one
 * covered field rewritten (rt_icrc_solve). Only bad ICRCs cost anything,
 * and only while no ICRC of the side has verified and some field still fits.
 */
struct icrc_watch {
	bool verified;		/* an ICRC of this side was right: nothing to explain */
	uint64_t bad;		/* bad ICRCs (until one verified) */
	uint64_t first_frame;
	uint8_t fits;		/* bit per enum rt_icrc_field: every bad ICRC verifies with some value of it */
	uint8_t same;		/* ... and with the same value */
	bool lengths_vary;	/* the bad packets are not all as long as the first */
	uint32_t first_len;
	uint32_t value[RT_ICRC_FIELDS];	   /* the value the first bad ICRC needs */
	uint32_t captured[RT_ICRC_FIELDS]; /* the field as that packet has it */
};
#define ICRC_FIELDS_ALL ((uint8_t)((1u << RT_ICRC_FIELDS) - 1))

/* A flow and what the driver keeps about it besides; flow comes first, so a struct flow * points to one. */
struct tracked_flow {
	struct flow flow;
	struct icrc_watch icrc[2];
};

static struct tracked_flow *tracked(struct flow *f)
{
	return (struct tracked_flow *)f;
}

struct rt_checker {
	struct rt_check_config cfg;
	struct rt_verdicts v;
	struct checker_env env;
	struct rt_check_totals totals;

	struct flow **flows;	/* stable pointers (to struct tracked_flow): a flow never moves */
	size_t flow_count, flow_cap;
	struct half_slot *table;	/* open addressing, power-of-two size */
	size_t table_size;

	/*
	 * The flows and sides of the last two half keys seen: consecutive
	 * packets mostly share one, and requests and their ACKs alternate
	 * between two.
	 */
	struct half_key recent_key[2];
	struct flow *recent_flow[2];
	int recent_side[2];
	unsigned recent_next;	/* the entry to replace next */

	/* The packet being checked, for the violation hook. */
	struct flow *cur_flow;
	struct pkt_ctx *cur_pc;
	bool finished;
	struct rt_icrc_solver icrc_solver;	/* for bad ICRCs only */
	struct rt_frame_result last;	/* rt_checker_last_frame() */
};

void rt_check_config_init(struct rt_check_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->retry_cnt = -1;
	cfg->rnr_retry = -1;
	for (int r = 0; r < RT_RULE_COUNT; r++)
		cfg->enabled[r] = true;
}

const char *rt_check_config_missing(const struct rt_check_config *cfg, enum rt_rule rule)
{
	const char *needs = rt_rule_info(rule)->needs;
	if (!needs)
		return NULL;
	/* The catalogue names what a rule needs; these are the settings that give it. */
	bool given = !strcmp(needs, "PMTU")	    ? cfg->pmtu != 0
		     : !strcmp(needs, "timeout")   ? cfg->have_timeout
		     : !strcmp(needs, "retry_cnt") ? cfg->retry_cnt >= 0
		     : !strcmp(needs, "rnr_retry") ? cfg->rnr_retry >= 0
		     : !strcmp(needs, "implementation") ? false
						   : true;
	return given ? NULL : needs;
}

/* Every violation passes here: counted per flow and capture, marked on the ladder, then handed on. */
static void on_violation(void *ctx, const struct rt_violation *viol)
{
	struct rt_checker *c = ctx;
	bool error = viol->severity == RT_SEV_ERROR;
	if (error)
		c->totals.errors++;
	else
		c->totals.warnings++;
	struct flow *f = viol->flow ? c->flows[viol->flow - 1] : NULL;
	if (f) {
		if (error)
			f->info.errors++;
		else
			f->info.warnings++;
		uint8_t flag = error ? RT_LADDER_VIOLATION : RT_LADDER_WARNING;
		if (c->cur_pc && c->cur_flow == f && c->cur_pc->frame == viol->frame)
			c->cur_pc->ladder_flags |= flag;
		else if (f->ladder || f->run_count)
			ladder_mark(f, viol->frame, flag);
	}
	if (c->cfg.on_violation)
		c->cfg.on_violation(c->cfg.ctx, viol);
}

struct rt_checker *rt_checker_new(const struct rt_check_config *cfg, struct rt_error *err)
{
	struct rt_checker *c = calloc(1, sizeof *c);
	if (!c) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	c->cfg = *cfg;
	if (!c->cfg.max_flows)
		c->cfg.max_flows = RT_CHECK_DEFAULT_MAX_FLOWS;
	rt_verdicts_init(&c->v);
	memcpy(c->v.enabled, c->cfg.enabled, sizeof c->v.enabled);
	memcpy(c->v.as_error, c->cfg.as_error, sizeof c->v.as_error);
	c->v.on_violation = on_violation;
	c->v.ctx = c;
	c->env = (struct checker_env){ .cfg = &c->cfg, .v = &c->v, .last_ts_ns = INT64_MIN, .ts_slack_ns = 1000,
				     .in_flight_ns = c->cfg.in_flight_us > 0 ? (int64_t)(c->cfg.in_flight_us * 1000.0)
									     : INTERLEAVE_NS };
	rt_icrc_solver_init(&c->icrc_solver);
	c->table_size = 256;
	c->table = calloc(c->table_size, sizeof *c->table);
	if (!c->table) {
		free(c);
		rt_error_set(err, "out of memory");
		return NULL;
	}
	return c;
}

void rt_checker_free(struct rt_checker *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->flow_count; i++) {
		flow_free_state(c->flows[i]);
		msg_track_free(c->flows[i]);
		free(c->flows[i]);
	}
	free(c->flows);
	free(c->table);
	free(c);
}

/* ---- the flow table ---------------------------------------------------- */

static uint64_t key_hash(const struct half_key *k)
{
	/* Multiply-xorshift over the key's 8-byte words; the key is zeroed first, so padding is 0. */
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	size_t i = 0;
	for (; i + 8 <= sizeof *k; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; i < sizeof *k; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static struct half_slot *table_find(struct rt_checker *c, const struct half_key *k)
{
	size_t mask = c->table_size - 1;
	for (size_t i = key_hash(k) & mask;; i = (i + 1) & mask) {
		struct half_slot *s = &c->table[i];
		if (!s->flow || !memcmp(&s->key, k, sizeof *k))
			return s;
	}
}

static bool table_grow(struct rt_checker *c)
{
	struct half_slot *old = c->table;
	size_t old_size = c->table_size;
	c->table_size *= 2;
	c->table = calloc(c->table_size, sizeof *c->table);
	if (!c->table) {
		c->table = old;
		c->table_size = old_size;
		return false;
	}
	for (size_t i = 0; i < old_size; i++)
		if (old[i].flow)
			*table_find(c, &old[i].key) = old[i];
	free(old);
	return true;
}

static bool table_insert(struct rt_checker *c, const struct half_key *k, size_t flow_index, int side)
{
	/* Half of the flows count is the most halves there can be; keep the load under one half. */
	if ((c->flow_count * 2 + 2) * 2 > c->table_size && !table_grow(c))
		return false;
	struct half_slot *s = table_find(c, k);
	s->key = *k;
	s->flow = (uint32_t)flow_index + 1;
	s->side = (uint8_t)side;
	return true;
}

/* A RoCE v1 GID of the form ::ffff:a.b.c.d (ten zero bytes, ff ff, the IPv4 address). */
static bool ipv4_mapped(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xFF, [11] = 0xFF };
	return !memcmp(gid, prefix, sizeof prefix);
}

/*
 * The packet's endpoints as flows name them (IPv4 in the first 4 bytes, the
 * rest zero): a RoCE v1 packet between IPv4-mapped GIDs by those IPv4
 * addresses, so that it meets the RoCE v2 packets of a peer answering in v2.
 */
static void make_key(struct half_key *k, const struct rt_packet *p)
{
	memset(k, 0, sizeof *k);
	if (p->roce_version == 1 && ipv4_mapped(p->src_ip) && ipv4_mapped(p->dst_ip)) {
		memcpy(k->src, p->src_ip + 12, 4);
		memcpy(k->dst, p->dst_ip + 12, 4);
		k->ip_version = 4;
	} else {
		memcpy(k->src, p->src_ip, 16);
		memcpy(k->dst, p->dst_ip, 16);
		k->ip_version = p->ip_version;
	}
	k->qp = p->bth.dest_qp;
}

static bool same_ip(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, 16);
}

/*
 * A connection this packet could be the second half of: the known half goes
 * the other way between the same IPs, the other half is still unknown.
 */
static struct flow *find_partner(struct rt_checker *c, const struct half_key *k, const struct rt_packet *p,
				 int *side)
{
	struct flow *best = NULL;
	int best_score = 0, candidates = 0;
	for (size_t i = 0; i < c->flow_count; i++) {
		struct flow *f = c->flows[i];
		/* A CNP (sent by the side being congested) may be the first packet of the return half. */
		if (f->info.paired || f->info.transport == RT_TRANSPORT_UD || f->info.ip_version != k->ip_version ||
		    (f->info.transport != p->op->transport && p->op->family != RT_FAMILY_CNP))
			continue;
		/* Side 0 sent the known half, to side 1; this packet must come from side 1 to side 0. */
		if (!same_ip(f->info.side[1].ip, k->src) || !same_ip(f->info.side[0].ip, k->dst))
			continue;
		candidates++;
		int score = 1;
		const struct stream *st = &f->stream[0];
		if (p->op->response && st->started && rt_psn_diff(p->bth.psn, st->first_psn) >= 0 &&
		    rt_psn_diff(p->bth.psn, st->frontier) < 0)
			score += 4;	/* answers a PSN this connection's requester sent */
		if (p->roce_version == 2 && f->info.side[0].rocev2 && p->udp_sport == f->info.side[0].udp_sport)
			score += 2;	/* rxe uses one source port both ways */
		if (score > best_score) {
			best = f;
			best_score = score;
		}
	}
	if (candidates > 1 && best_score == 1)
		return NULL;	/* nothing tells them apart: keep this half on its own */
	*side = 1;
	return best;
}

static struct flow *flow_new(struct rt_checker *c, const struct half_key *k, const struct rt_packet *p,
			     uint64_t frame, int64_t ts)
{
	if (c->flow_count >= c->cfg.max_flows)
		return NULL;
	if (c->flow_count == c->flow_cap) {
		size_t cap = c->flow_cap ? c->flow_cap * 2 : 64;
		struct flow **flows = realloc(c->flows, cap * sizeof *flows);
		if (!flows)
			return NULL;
		c->flows = flows;
		c->flow_cap = cap;
	}
	struct tracked_flow *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	struct flow *f = &t->flow;
	f->info.id = (uint32_t)c->flow_count + 1;
	f->info.transport = p->op->transport;
	f->info.ip_version = k->ip_version;
	memcpy(f->info.side[0].ip, k->src, 16);
	memcpy(f->info.side[1].ip, k->dst, 16);
	f->info.side[1].qp = p->bth.dest_qp;
	f->info.side[1].qp_known = true;
	if (p->op->transport == RT_TRANSPORT_UD && (p->ext_present & RT_EXT_DETH)) {
		f->info.side[0].qp = p->ext.deth.src_qp;
		f->info.side[0].qp_known = true;
	}
	f->info.side[0].udp_sport = p->udp_sport;
	f->info.first_frame = frame;
	f->info.first_ts_ns = ts;
	c->flows[c->flow_count++] = f;
	return f;
}

/* The flow of a RoCE packet with a known opcode, and which side sent it; NULL when the table is full. */
static struct flow *flow_of(struct rt_checker *c, const struct rt_packet *p, uint64_t frame, int64_t ts, int *side)
{
	struct half_key k;
	make_key(&k, p);
	for (unsigned i = 0; i < 2; i++) {
		if (c->recent_flow[i] && !memcmp(&k, &c->recent_key[i], sizeof k)) {
			*side = c->recent_side[i];
			return c->recent_flow[i];
		}
	}
	struct half_slot *s = table_find(c, &k);
	struct flow *f;
	if (s->flow) {
		f = c->flows[s->flow - 1];
		*side = s->side;
	} else {
		f = NULL;
		if (p->op->transport != RT_TRANSPORT_UD)
			f = find_partner(c, &k, p, side);
		if (f) {
			f->info.paired = true;
			f->info.side[0].qp = p->bth.dest_qp;
			f->info.side[0].qp_known = true;
			f->info.side[1].udp_sport = p->udp_sport;
		} else {
			f = flow_new(c, &k, p, frame, ts);
			*side = 0;
			if (!f)
				return NULL;
		}
		if (!table_insert(c, &k, f->info.id - 1, *side))
			return NULL;
	}
	unsigned r = c->recent_next;
	c->recent_next ^= 1;
	c->recent_key[r] = k;
	c->recent_flow[r] = f;
	c->recent_side[r] = *side;
	return f;
}

/* ---- per packet ------------------------------------------------------------ */

/* PMTU inference: the first First/Middle payload that is a legal PMTU sets the side's PMTU. */
static uint32_t packet_pmtu(struct rt_checker *c, struct flow *f, int side, const struct rt_packet *p,
			    uint64_t frame)
{
	if (c->cfg.pmtu)
		return c->cfg.pmtu;
	struct rt_flow_side *fs = &f->info.side[side];
	bool first_middle = p->op->position == RT_POS_FIRST || p->op->position == RT_POS_MIDDLE;
	if (first_middle && !fs->pmtu && rt_is_pmtu(p->payload_len) && !p->truncated) {
		fs->pmtu = p->payload_len;
		fs->pmtu_inferred = true;
		fs->pmtu_frame = frame;
	}
	/*
	 * A First/Middle that disagrees with the inferred PMTU: which one is
	 * right only --pmtu can say, so PKT-LEN-FIRST-MIDDLE is not evaluated
	 * and SEQ-PMTU-CONSISTENT reports the disagreement.
	 */
	if (first_middle && fs->pmtu && p->payload_len != fs->pmtu)
		return 0;
	return fs->pmtu;
}

static void record_ladder(struct flow *f, const struct pkt_ctx *pc)
{
	const struct rt_packet *p = pc->p;
	struct rt_ladder_event e = {
		.frame = pc->frame, .ts_ns = pc->ts_ns, .from_side = (uint8_t)pc->side, .opcode = p->bth.opcode,
		.flags = pc->ladder_flags, .psn = p->bth.psn, .payload_len = p->payload_len,
		.syndrome = (p->ext_present & RT_EXT_AETH) ? p->ext.aeth.syndrome : 0,
	};
	ladder_add(f, &e);
}

/* Parses the frame; true for a RoCE packet, else it is counted (and a malformed one reported) here. */
static bool parse_roce(struct rt_checker *c, struct rt_packet *p, enum rt_link link, uint64_t frame,
		       const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	switch (rt_parse(p, link, data, caplen, wirelen)) {
	case RT_PARSE_NOT_ROCE:
		c->totals.not_roce++;
		return false;
	case RT_PARSE_TRUNCATED:
		c->totals.truncated++;
		return false;
	case RT_PARSE_MALFORMED: {
		c->totals.malformed++;
		int rule = rt_malformed_rule(p);
		if (rule >= 0)
			rt_verdict_fail(&c->v, (enum rt_rule)rule, RT_SEV_ERROR, frame, "%s: %s%s%s", p->field, p->reason,
					p->detail[0] ? ": " : "", p->detail);
		return false;
	}
	case RT_PARSE_ROCE:
		break;
	}
	c->totals.roce_packets++;
	if (p->truncated)
		c->totals.truncated++;
	return true;
}

static void count_packet(struct rt_flow_info *fi, int side, const struct rt_packet *p, uint64_t frame, int64_t ts_ns)
{
	struct rt_flow_side *fs = &fi->side[side];
	fi->packets++;
	fs->packets++;
	if (p->roce_version == 1) {
		fs->rocev1 = true;
	} else {
		fs->rocev2 = true;
		if (!fs->udp_sport)
			fs->udp_sport = p->udp_sport;
	}
	fi->last_frame = frame;
	fi->last_ts_ns = ts_ns;
	if (p->op->response)
		fs->responses++;
	else if (p->op->family != RT_FAMILY_CNP)
		fs->requests++;
}

/* A bad ICRC of a side that has had no good one: which fields, rewritten, would make it verify. */
static void watch_bad_icrc(struct rt_checker *c, struct icrc_watch *w, const struct rt_packet *p, uint64_t frame)
{
	if (w->verified)
		return;
	uint32_t len = p->icrc_off - p->l3_off;
	if (w->bad++ == 0) {
		w->fits = w->same = ICRC_FIELDS_ALL;
		w->first_frame = frame;
		w->first_len = len;
	}
	w->lengths_vary |= len != w->first_len;
	if (!w->fits)
		return;
	uint32_t computed = rt_icrc_compute(p);
	for (unsigned i = 0; i < RT_ICRC_FIELDS; i++) {
		enum rt_icrc_field field = (enum rt_icrc_field)i;
		uint8_t bit = (uint8_t)(1u << i);
		uint32_t v;
		if (!(w->fits & bit))
			continue;
		if (!rt_icrc_solve(&c->icrc_solver, p, computed, field, &v)) {
			w->fits &= (uint8_t)~bit;
		} else if (w->bad == 1) {
			w->value[i] = v;
			rt_icrc_field_value(p, field, &w->captured[i]);
		} else if (v != w->value[i]) {
			w->same &= (uint8_t)~bit;
			/* Every ICRC has a 32-bit solution: only one shared by all packets says anything. */
			if (rt_icrc_field_bytes(field) == 4)
				w->fits &= (uint8_t)~bit;
		}
	}
}

/* A packet of a flow: the PKT rules with the flow's PMTU, then the flow rules, then its ladder row. */
static void check_in_flow(struct rt_checker *c, struct flow *f, int side, const struct rt_packet *p, uint64_t frame,
			  int64_t ts_ns)
{
	struct rt_flow_info *fi = &f->info;
	struct pkt_ctx pc = { .p = p, .frame = frame, .ts_ns = ts_ns, .side = side };
	/* Violations found meanwhile are the flow's, and mark this packet's ladder row (on_violation). */
	c->v.flow = fi->id;
	c->v.flow_counts = &fi->rules;
	c->cur_flow = f;
	c->cur_pc = &pc;

	uint64_t icrc_bad_before = c->v.total.violations[RT_RULE_PKT_ICRC];
	rt_check_packet(p, frame, packet_pmtu(c, f, side, p, frame), &c->v);
	/* A bad ICRC counts whether or not PKT-ICRC is enabled: the receiver drops the packet either way. */
	pc.icrc_bad = c->v.enabled[RT_RULE_PKT_ICRC] ? c->v.total.violations[RT_RULE_PKT_ICRC] > icrc_bad_before
						      : rt_icrc_check(p) == RT_ICRC_BAD;
	if (pc.icrc_bad) {
		fi->bad_icrc++;
		pc.ladder_flags |= RT_LADDER_BAD_ICRC;
		watch_bad_icrc(c, &tracked(f)->icrc[side], p, frame);
	} else if (!p->truncated) {
		tracked(f)->icrc[side].verified = true;
	}
	if (p->op->family == RT_FAMILY_CNP) {
		fi->cnps++;
		pc.ladder_flags |= RT_LADDER_CNP;
	}
	flow_check_packet(&c->env, f, &pc);
	if (f->info.id <= c->cfg.ladder_flows)
		record_ladder(f, &pc);
	c->last.flow = fi->id;
	c->last.side = (uint8_t)side;
	c->last.flags = pc.ladder_flags;
	if (c->cfg.on_packet)
		c->cfg.on_packet(c->cfg.ctx, p, &c->last, ts_ns);
	if (c->cfg.on_message)
		msg_track_packet(&c->cfg, f, p, side, frame, ts_ns);

	c->cur_flow = NULL;
	c->cur_pc = NULL;
	c->v.flow = 0;
	c->v.flow_counts = NULL;
}

void rt_checker_frame(struct rt_checker *c, enum rt_link link, uint64_t frame, int64_t ts_ns, const uint8_t *data,
		      uint32_t caplen, uint32_t wirelen)
{
	struct rt_packet p;
	c->totals.frames++;
	c->last = (struct rt_frame_result){ .frame = frame };
	if (ts_ns > c->env.last_ts_ns)
		c->env.last_ts_ns = ts_ns;
	/* Whole microseconds so far: a capture format that keeps no finer time (pcap's usual one). */
	if (c->env.ts_slack_ns && ts_ns % 1000)
		c->env.ts_slack_ns = 0;
	c->v.flow = 0;
	c->v.flow_counts = NULL;
	if (!parse_roce(c, &p, link, frame, data, caplen, wirelen))
		return;
	/* Once, for the PKT and flow rules alike: the ICRC, and the payload's CRC from the same pass. */
	rt_icrc_verify(&p);

	int side = 0;
	struct flow *f = p.op && p.op->supported ? flow_of(c, &p, frame, ts_ns, &side) : NULL;
	if (!f) {
		/* An unsupported opcode, or the flow table is full: the packet is judged on its own. */
		if (p.op && p.op->supported)
			c->totals.untracked++;
		rt_check_packet(&p, frame, c->cfg.pmtu, &c->v);
		return;
	}
	count_packet(&f->info, side, &p, frame, ts_ns);
	check_in_flow(c, f, side, &p, frame, ts_ns);
}

/* ---- the end ------------------------------------------------------------------ */

static const char *family_word(uint32_t family)
{
	return rt_family_name((enum rt_family)family);
}

/* The sentence a flow note ends as; the first occurrence gives its frame and PSN, the count how often. */
static void note_text(char *out, size_t size, enum flow_note kind, const struct note_count *n)
{
	unsigned long long frame = n->frame, count = n->count;
	switch (kind) {
	case NOTE_STARTS_MID_MESSAGE:
		snprintf(out, size, "capture starts mid-message (frame %llu: a %s message's Middle/Last at PSN %u)", frame,
			 family_word(n->detail), n->psn);
		break;
	case NOTE_ENDS_MID_MESSAGE:
		snprintf(out, size, "capture ends mid-message (the %s message begun at frame %llu has no Last)",
			 family_word(n->detail), frame);
		break;
	case NOTE_LOST_BEFORE_CAPTURE:
		snprintf(out, size,
			 "packets lost before the capture point: %llu time(s), first PSN %u at frame %llu "
			 "(the responder NAKed it or it was sent again)",
			 count, n->psn, frame);
		break;
	case NOTE_MISSING_RETRANSMISSION:
		snprintf(out, size, "capture misses retransmitted packets: %llu time(s), first PSN %u near frame %llu", count,
			 n->psn, frame);
		break;
	case NOTE_RESPONDER_AHEAD:
		snprintf(out, size,
			 "the responder acknowledged requests the capture does not hold: %llu time(s), first at frame %llu",
			 count, frame);
		break;
	case NOTE_RESPONSES_WITHOUT_REQUESTS:
		snprintf(out, size,
			 "capture starts mid-conversation: %llu response(s) to requests sent before it, first at frame %llu",
			 count, frame);
		break;
	case NOTE_ENDS_BEFORE_ACK:
		snprintf(out, size, "capture ends before the ACK of %llu request(s), first PSN %u at frame %llu", count,
			 n->psn, frame);
		break;
	case NOTE_ENDS_BEFORE_RESPONSE:
		snprintf(out, size, "capture ends before all responses of %llu READ(s) arrived, first at frame %llu",
			 count, frame);
		break;
	case NOTE_ENDS_BEFORE_NAK:
		snprintf(out, size, "capture ends before the NAK for PSN %u (request ahead at frame %llu)", n->psn, frame);
		break;
	case NOTE_ONE_DIRECTION:
		snprintf(out, size, "only one direction captured: no ACKs or responses, responder rules not evaluated");
		break;
	case NOTE_WINDOW_EXCEEDED:
		snprintf(out, size, "more pending checks than the checker keeps: %llu left not evaluated, first at frame %llu",
			 count, frame);
		break;
	case NOTE_FIELDS_CUT:
		snprintf(out, size, "%llu packet(s) cut before their %s (snap length), first at frame %llu: rules needing it "
			 "not evaluated", count, rt_ext_header_name((enum rt_ext_header)n->detail), frame);
		break;
	case NOTE_INTERLEAVED:
		snprintf(out, size, "capture order is not send order: %llu answer(s) captured before their request, "
			 "first at frame %llu", count, frame);
		break;
	case NOTE_LATE_PACKET:
		snprintf(out, size, "capture order is not send order: %llu resend(s) captured after a newer NAK, "
			 "first PSN %u at frame %llu", count, n->psn, frame);
		break;
	case NOTE_RESEND_AFTER_ACK:
		snprintf(out, size, "capture order is not send order: %llu resend(s) captured just after the answer "
			 "that acknowledged them, first PSN %u at frame %llu", count, n->psn, frame);
		break;
	case NOTE_COUNT:
		break;
	}
}

/* The next free note line of a flow; NULL, counted as dropped, when it has RT_FLOW_MAX_NOTES. */
static char *next_note(struct flow *f)
{
	if (f->info.note_count == RT_FLOW_MAX_NOTES) {
		f->info.notes_dropped++;
		return NULL;
	}
	return f->info.notes[f->info.note_count++];
}

static void render_note(struct flow *f, enum flow_note kind)
{
	const struct note_count *n = &f->notes[kind];
	char *note = n->count ? next_note(f) : NULL;
	if (note)
		note_text(note, RT_FLOW_NOTE_BYTES, kind, n);
}

static void render_pmtu_notes(struct flow *f)
{
	for (int s = 0; s < 2; s++) {
		const struct rt_flow_side *fs = &f->info.side[s];
		char *note = fs->pmtu_inferred ? next_note(f) : NULL;
		if (note)
			snprintf(note, RT_FLOW_NOTE_BYTES,
				 "PMTU %u inferred for side %d from its First/Middle packets (frame %llu); give --pmtu to check it",
				 fs->pmtu, s, (unsigned long long)fs->pmtu_frame);
	}
}

/* Both RoCE versions on one connection: the ends were set up with different GID types, which no rule forbids. */
static void render_version_note(struct flow *f)
{
	const struct rt_flow_side *a = &f->info.side[0], *b = &f->info.side[1];
	char *note = (a->rocev1 || b->rocev1) && (a->rocev2 || b->rocev2) ? next_note(f) : NULL;
	if (note)
		snprintf(note, RT_FLOW_NOTE_BYTES,
			 "side 0 sends %s, side 1 %s: the ends use different GID types, a configuration oddity, "
			 "not a rule violation", rt_flow_side_versions(a), rt_flow_side_versions(b));
}

static void format_field(char *buf, size_t size, enum rt_icrc_field field, uint32_t v)
{
	if (rt_icrc_field_bytes(field) == 2)
		snprintf(buf, size, "0x%04x", v);
	else
		snprintf(buf, size, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF);
}

/* Every bad ICRC of the side verifies with one value of field i. */
static bool one_value_fits(const struct icrc_watch *w, int i)
{
	return !w->verified && w->bad && ((w->fits & w->same) >> i) & 1;
}

/*
 * A 16-bit field that explains every bad ICRC of a side: with one value
 * (one_value), or a value per packet. A random fault fits one in 65536 times.
 */
static int narrow_field(const struct icrc_watch *w, bool one_value)
{
	for (int i = 0; i < RT_ICRC_FIELDS; i++)
		if (rt_icrc_field_bytes((enum rt_icrc_field)i) == 2 &&
		    (one_value ? one_value_fits(w, i) : !w->verified && w->bad && ((w->fits >> i) & 1)))
			return i;
	return -1;
}

/*
 * An IPv4 address that explains every bad ICRC of side s. Any fault fits a
 * 32-bit field, and a change anywhere at a fixed place in the headers (the
 * other address, say) fits each address field with one value whatever the
 * packet's length. So the claim needs the other direction to agree: an
 * endpoint's address is side s's source and the other side's destination
 * (a NAT rewrites both), and both must give the same value, over packets of
 * several lengths in one direction at least.
 */
static int agreed_address(const struct icrc_watch w[2], int s)
{
	static const int own[2][2] = { { RT_ICRC_FIELD_IPV4_SRC, RT_ICRC_FIELD_IPV4_DST },
				       { RT_ICRC_FIELD_IPV4_DST, RT_ICRC_FIELD_IPV4_SRC } };
	const struct icrc_watch *mine = &w[s], *theirs = &w[1 - s];
	for (int e = 0; e < 2; e++) {
		int a = own[e][0], b = own[e][1];
		if (one_value_fits(mine, a) && one_value_fits(theirs, b) && mine->value[a] == theirs->value[b] &&
		    (mine->lengths_vary || theirs->lengths_vary))
			return a;
	}
	return -1;
}

static void render_icrc_note(struct flow *f, int side)
{
	const struct icrc_watch *w = &tracked(f)->icrc[side];
	int i = narrow_field(w, true);
	if (i < 0)
		i = agreed_address(tracked(f)->icrc, side);
	bool same = i >= 0;
	if (i < 0)
		i = narrow_field(w, false);
	char *note = i >= 0 ? next_note(f) : NULL;
	if (!note)
		return;
	enum rt_icrc_field field = (enum rt_icrc_field)i;
	char was[20], captured[20];
	format_field(was, sizeof was, field, w->value[i]);
	format_field(captured, sizeof captured, field, w->captured[i]);
	unsigned long long n = w->bad, frame = w->first_frame;
	if (same)
		snprintf(note, RT_FLOW_NOTE_BYTES, "side %d: its %llu bad ICRC%s verif%s if the %s was %s, not %s: "
			 "the capture tool probably rewrote it", side, n, n == 1 ? "" : "s", n == 1 ? "ies" : "y",
			 rt_icrc_field_name(field), was, captured);
	else
		snprintf(note, RT_FLOW_NOTE_BYTES, "side %d: its %llu bad ICRCs each verify with another %s "
			 "(frame %llu: %s, not %s): the capture tool probably rewrote it", side, n,
			 rt_icrc_field_name(field), frame, was, captured);
}

void rt_checker_finish(struct rt_checker *c)
{
	if (c->finished)
		return;
	c->finished = true;
	for (size_t i = 0; i < c->flow_count; i++) {
		struct flow *f = c->flows[i];
		c->v.flow = f->info.id;
		c->v.flow_counts = &f->info.rules;
		flow_finish(&c->env, f);
		if (c->cfg.on_message)
			msg_track_finish(&c->cfg, f);
		ladder_flush(f);
		f->info.ladder = f->ladder;
		render_version_note(f);
		render_icrc_note(f, 0);
		render_icrc_note(f, 1);
		render_pmtu_notes(f);
		for (int k = 0; k < NOTE_COUNT; k++)
			render_note(f, (enum flow_note)k);
	}
	c->v.flow = 0;
	c->v.flow_counts = NULL;
}

const struct rt_check_totals *rt_checker_totals(const struct rt_checker *c)
{
	return &c->totals;
}

const struct rt_verdicts *rt_checker_verdicts(const struct rt_checker *c)
{
	return &c->v;
}

const struct rt_frame_result *rt_checker_last_frame(const struct rt_checker *c)
{
	return &c->last;
}

const struct rt_check_config *rt_checker_config(const struct rt_checker *c)
{
	return &c->cfg;
}

size_t rt_checker_flow_count(const struct rt_checker *c)
{
	return c->flow_count;
}

const struct rt_flow_info *rt_checker_flow(const struct rt_checker *c, size_t i)
{
	return i < c->flow_count ? &c->flows[i]->info : NULL;
}

void rt_checker_ladder_row(struct rt_checker *c, uint32_t flow, uint64_t frame)
{
	struct flow *f = flow && flow <= c->flow_count ? c->flows[flow - 1] : NULL;
	if (f && frame && (f->ladder || f->run_count))
		ladder_mark(f, frame, 0);
}

const char *rt_flow_side_versions(const struct rt_flow_side *s)
{
	return s->rocev1 && s->rocev2 ? "RoCE v1 and v2" : s->rocev1 ? "RoCE v1" : s->rocev2 ? "RoCE v2" : "nothing";
}

void rt_flow_format_ip(const struct rt_flow_info *f, int side, char *buf, size_t size)
{
	if (size == 0)
		return;
	/* IPv4 addresses sit in the first 4 bytes, as in struct rt_packet. */
	if (!inet_ntop(f->ip_version == 6 ? AF_INET6 : AF_INET, f->side[side].ip, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}
