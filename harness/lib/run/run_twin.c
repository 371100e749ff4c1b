/* SPDX-License-Identifier: MIT */
/*
 * A test's twin: the work the test gave the device, written beside its
 * capture as a scenario (scenario.h), so that `rocetest gen` runs the same
 * work through the reference model, a model requester in the device's place,
 * and `rocetest diff` can hold the device's capture against the model's.
 *
 * The scenario carries the connection (addresses, QPNs, first PSNs, PMTU,
 * timers and retry counts, the harness's peer as run_peer_config makes it),
 * the link (delay, rate, faults, the capture at the device's port) and every
 * WR in posting order with its opcode, length, source offset, destination,
 * R_Key, immediate and wr_id. The payload bytes are the device's own: the
 * model fills node n's memory from the state seed * 2 + n, the device's was
 * filled from r->mem_state, so the device is node a when that state is even
 * and node b when it is odd, with seed = mem_state / 2.
 *
 * What a test does that the language cannot say is listed in the file and in
 * res->twin_gaps, never approximated silently.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/scenario.h"

#include "run_priv.h"

/* The device's QP q as the model requester that stands in for it. */
static void twin_device(const struct runner *r, unsigned q, struct rt_qp_config *c)
{
	const struct qp_side *side = &r->qp[q];
	struct rt_dut_config d;
	run_dut_config(r, &d, r->spec->pmtu_code[q]);
	rt_qp_config_init(c);
	memcpy(c->mac, d.mac, 6);
	for (int i = 0; i < 4; i++)
		c->ip[i] = (uint8_t)(d.ip >> (24 - 8 * i));
	c->qpn = side->dut_qpn;
	c->sq_psn = side->dut_psn;
	c->pmtu = side->pmtu;
	c->timeout = d.timeout[q];
	c->retry_cnt = d.retry_cnt[q];
	c->rnr_retry = d.rnr_retry[q];
	c->mem_va = d.base_addr;
	c->mem_size = r->dut->info.mem_size;
	c->rkey = d.rkey;
	c->send_cnp = false;
	/* The device picks its own source port (a cosmetic difference to the diff): the language's default for a. */
	c->udp_sport = 0xc011;
}

static enum rt_wr_opcode model_opcode(uint8_t op)
{
	switch (op) {
	case RT_DUT_SEND: return RT_WR_SEND;
	case RT_DUT_SEND_IMM: return RT_WR_SEND_IMM;
	case RT_DUT_WRITE_IMM: return RT_WR_WRITE_IMM;
	default: return RT_WR_WRITE;
	}
}

/*
 * The peer's receives: one per message that takes one, all posted at once
 * (when the harness starts posting: at once, or at recv_post_us), never
 * (RT_PEER_NO_RECV). The harness keeps a smaller ring full instead; with
 * credits unlimited the wire cannot tell the two apart.
 */
static uint32_t twin_receives(const struct runner *r, unsigned q, int64_t *at_ns)
{
	const struct qp_side *side = &r->qp[q];
	uint32_t n = 0;
	for (uint32_t i = 0; i < side->n_wrs; i++)
		n += run_consumes_receive(side->wrs[i].wr.opcode);
	*at_ns = r->spec->peer == RT_PEER_RNR ? (int64_t)r->spec->recv_post_us * 1000 : 0;
	return r->spec->peer == RT_PEER_NO_RECV ? 0 : n;
}

/* The device's WRs of QP q in posting order at time 0, the peer's receives at theirs. */
static int twin_actions(const struct runner *r, unsigned q, unsigned dev, struct rt_scenario *sc,
			struct rt_error *err)
{
	const struct qp_side *side = &r->qp[q];
	int64_t recv_at;
	uint32_t n_recv = twin_receives(r, q, &recv_at);
	sc->actions = calloc((size_t)side->n_wrs + n_recv + 1, sizeof *sc->actions);
	if (!sc->actions) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	struct rt_sim_action *a = sc->actions;
	for (uint32_t k = 0; k < n_recv && !recv_at; k++)
		*a++ = (struct rt_sim_action){ .node = (uint8_t)(1 - dev), .kind = RT_ACTION_RECV, .recv_wr_id = k + 1 };
	for (uint32_t i = 0; i < side->n_wrs; i++) {
		const struct rt_dut_wr *w = &side->wrs[i].wr;
		*a++ = (struct rt_sim_action){ .node = (uint8_t)dev, .kind = RT_ACTION_SEND,
			.wr = { .wr_id = w->wr_id, .opcode = model_opcode(w->opcode),
				.local_offset = w->local_addr - r->dut->info.mem_base, .length = w->length,
				.remote_va = w->remote_va, .rkey = w->rkey, .imm = w->imm } };
	}
	for (uint32_t k = 0; k < n_recv && recv_at; k++)
		*a++ = (struct rt_sim_action){ .at_ns = recv_at, .node = (uint8_t)(1 - dev), .kind = RT_ACTION_RECV,
					       .recv_wr_id = k + 1 };
	sc->n_actions = (unsigned)(a - sc->actions);
	return 0;
}

/* The link's counter of each kind of fault (struct rt_link_stats). */
static const struct {
	size_t offset;
	enum rt_fault_kind kind;
} fault_counters[] = {
	{ offsetof(struct rt_link_stats, dropped), RT_FAULT_DROP },
	{ offsetof(struct rt_link_stats, duplicated), RT_FAULT_DUPLICATE },
	{ offsetof(struct rt_link_stats, reordered), RT_FAULT_REORDER },
	{ offsetof(struct rt_link_stats, delayed), RT_FAULT_DELAY },
	{ offsetof(struct rt_link_stats, corrupted), RT_FAULT_CORRUPT },
	{ offsetof(struct rt_link_stats, marked), RT_FAULT_MARK_CE },
	{ offsetof(struct rt_link_stats, missed), RT_FAULT_MISS },
};

static uint64_t counter(const struct rt_link_stats *ls, size_t offset)
{
	uint64_t v;
	memcpy(&v, (const char *)ls + offset, sizeof v);
	return v;
}

/* The link's counters tell whether a fault hit the frame just sent, and which. */
void run_twin_frame(struct runner *r, unsigned dir, unsigned q)
{
	const struct rt_link_stats *now = rt_wire_stats(r->wire, dir);
	struct rt_link_stats *seen = &r->link_seen[dir];
	uint32_t frame = ++r->qp_frames[q][dir];
	for (size_t i = 0; i < sizeof fault_counters / sizeof fault_counters[0]; i++) {
		if (counter(now, fault_counters[i].offset) == counter(seen, fault_counters[i].offset))
			continue;
		if (r->n_hits < MAX_FAULT_HITS)
			r->hits[r->n_hits] = (struct fault_hit){ .qp = (uint8_t)q, .dir = (uint8_t)dir,
								 .kind = fault_counters[i].kind, .frame = frame };
		r->n_hits++;
		break;
	}
	*seen = *now;
}

/* The delay of the run's first delay fault in dir (the link counts delays, not which fault made them). */
static int64_t delay_of(const struct rt_run_spec *s, unsigned dir)
{
	for (unsigned i = 0; i < s->n_faults; i++)
		if (s->faults[i].kind == RT_FAULT_DELAY && s->faults[i].dir == dir)
			return s->faults[i].delay_ns;
	return 0;
}

/*
 * The faults of QP q's twin. One QP: the test's own, which number the
 * frames of the link as the twin's link does. Several: the frames of this QP
 * that they hit, by its own numbering (they shared one link).
 */
static void twin_faults(const struct runner *r, unsigned q, unsigned dev, struct rt_sim_config *sim)
{
	const struct rt_run_spec *s = r->spec;
	sim->n_faults = 0;
	for (unsigned i = 0; s->n_qp == 1 && i < s->n_faults; i++) {
		sim->faults[sim->n_faults] = s->faults[i];
		sim->faults[sim->n_faults++].dir = (uint8_t)(s->faults[i].dir ^ dev);	/* the run's dir 0: device to peer */
	}
	for (uint32_t i = 0; s->n_qp > 1 && i < r->n_hits && i < MAX_FAULT_HITS; i++) {
		const struct fault_hit *h = &r->hits[i];
		if (h->qp != q || sim->n_faults == RT_SIM_MAX_FAULTS)
			continue;
		sim->faults[sim->n_faults++] = (struct rt_fault){ .kind = h->kind, .dir = (uint8_t)(h->dir ^ dev),
			.first = h->frame, .last = h->frame, .delay_ns = h->kind == RT_FAULT_DELAY ? delay_of(s, h->dir) : 0 };
	}
}

/* The connection, the link and the faults of QP q, the device as node dev. */
static void twin_config(const struct runner *r, unsigned q, unsigned dev, struct rt_scenario *sc)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_sim_config *sim = &sc->sim;
	rt_sim_config_init(sim);
	sim->seed = r->mem_state >> 1;
	twin_device(r, q, &sim->node[dev]);
	struct rt_qp_config *peer = &sim->node[1 - dev];
	run_peer_config(r, q, peer);
	int64_t recv_at;
	uint32_t n_recv = twin_receives(r, q, &recv_at);
	if (n_recv > peer->rq_depth)
		peer->rq_depth = n_recv;
	struct rt_qp_config *d = &sim->node[dev];
	memcpy(d->peer_mac, peer->mac, 6);
	memcpy(d->peer_ip, peer->ip, 16);
	d->peer_qpn = peer->qpn;
	d->rq_psn = peer->sq_psn;
	sim->delay_ns = run_one_way_ns(s);
	sim->rate_bps = (uint64_t)((r->dut->info.mac_gbps > 0 ? r->dut->info.mac_gbps : 100) * 1e9);
	/* The run's capture is the device's port: its frames as sent, the peer's as they arrive. */
	sim->tap = dev ? RT_TAP_B : RT_TAP_A;
	twin_faults(r, q, dev, sim);
	snprintf(sc->description, sizeof sc->description, "%s/%s: %s", s->suite, s->name, s->description);
}

static void add_gap(char *buf, size_t size, const char *text)
{
	size_t used = strlen(buf);
	if (!strstr(buf, text) && used + 2 < size)
		snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

/* What the test does that a scenario cannot say; appended to buf. */
static void test_gaps(const struct runner *r, char *buf, size_t size)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_qp_config def;
	rt_qp_config_init(&def);
	char t[160];
	if (s->n_qp > 1) {
		snprintf(t, sizeof t, "%u QPs at once: one scenario each, their interleaving on the link is not said",
			 s->n_qp);
		add_gap(buf, size, t);
	}
	if (s->throughput)
		add_gap(buf, size, "goodput: timing only, which the model requester does not reproduce");
	if (s->cm_case != RT_CM_CASE_NONE)
		add_gap(buf, size, "the CM exchange before the work (not RoCE traffic)");
	if (s->txmeta_n)
		add_gap(buf, size, "the generator's work started by CM txmeta frames: written as WRs posted at the start");
	for (unsigned i = 0; i < s->n_faults; i++)
		if (s->faults[i].dir == 1 && s->faults[i].kind == RT_FAULT_CORRUPT) {
			add_gap(buf, size, "frames the link corrupts toward the device: the run's capture leaves them "
					   "out, the twin's records them");
			break;
		}
	if (s->n_qp > 1 && r->n_hits > MAX_FAULT_HITS) {
		snprintf(t, sizeof t, "the link's faults hit %u frames; the twins carry the first %u", r->n_hits,
			 MAX_FAULT_HITS);
		add_gap(buf, size, t);
	}
	for (unsigned q = 0; q < s->n_qp; q++) {
		uint32_t n = 0;
		for (uint32_t i = 0; s->n_qp > 1 && i < r->n_hits && i < MAX_FAULT_HITS; i++)
			n += r->hits[i].qp == q;
		if (n > RT_SIM_MAX_FAULTS) {
			snprintf(t, sizeof t, "QP %u: %u frames hit by faults, a scenario holds %u", q, n, RT_SIM_MAX_FAULTS);
			add_gap(buf, size, t);
		}
	}
	for (unsigned q = 0; q < s->n_qp; q++)
		if (r->qp[q].n_wrs > def.sq_depth) {
			snprintf(t, sizeof t, "%u WRs posted at once on a QP, more than the model's send queue holds "
				 "(%u): gen refuses the twin", r->qp[q].n_wrs, def.sq_depth);
			add_gap(buf, size, t);
			break;
		}
}

static int write_file(const char *path, const struct rt_scenario *sc, const char *notes, struct rt_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct rt_error werr;
	int rc = rt_scenario_write(f, sc, notes, &werr);
	if (fclose(f) || rc) {
		rt_error_set(err, "%s: cannot write the scenario", path);
		return -1;
	}
	return 0;
}

/* The file's comments: where it comes from, how to use it, what it leaves out (gaps, "" for nothing). */
static void twin_notes(const struct runner *r, unsigned q, unsigned dev, const char *file, const char *gaps,
		       char *notes, size_t size)
{
	const struct rt_run_spec *s = r->spec;
	uint32_t qpn = r->qp[q].dut_qpn;
	char map[48] = "";
	if (s->n_qp > 1)
		snprintf(map, sizeof map, " --map 0x%06x=0x%06x", qpn, qpn);
	snprintf(notes, size,
		 "The work of `rocetest run` test %s/%s (seed %" PRIu64 "), device QP %u (QPN 0x%06x) of %u.\n"
		 "The device is node %c, the harness's peer node %c; the payload bytes are the device's (seed).\n"
		 "Its twin: rocetest gen -o TWIN.pcap %s; rocetest diff%s %s-%s.pcap TWIN.pcap\n"
		 "The model requester stands in for the device: its timing, UDP source port, AckReq policy\n"
		 "and send window are the model's.\n"
		 "Not said here: %s",
		 s->suite, s->name, r->opt->seed, q, qpn, s->n_qp, "ab"[dev], "ab"[1 - dev], file, map, s->suite, s->name,
		 gaps[0] ? gaps : "nothing the test did.");
}

/* QP q's file; test_gaps: what the test does that no file says; this file's own gaps go to the result too. */
static int write_qp(struct runner *r, unsigned q, const char *test_gaps, struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	unsigned dev = (unsigned)(r->mem_state & 1);
	char file[160], path[4096], notes[1400], gaps[sizeof r->res->twin_gaps], own[256];
	if (s->n_qp > 1)
		snprintf(file, sizeof file, "%s-%s.qp%u.scn", s->suite, s->name, q);
	else
		snprintf(file, sizeof file, "%s-%s.scn", s->suite, s->name);
	snprintf(path, sizeof path, "%s/%s", r->opt->dir, file);
	struct rt_scenario sc;
	memset(&sc, 0, sizeof sc);
	twin_config(r, q, dev, &sc);
	int rc = twin_actions(r, q, dev, &sc, err);
	snprintf(gaps, sizeof gaps, "%s", test_gaps);
	if (!rc && rt_scenario_gaps(&sc, own, sizeof own)) {
		char qp_gaps[300];
		snprintf(qp_gaps, sizeof qp_gaps, "QP %u's file: %s", q, own);
		add_gap(gaps, sizeof gaps, qp_gaps);
		add_gap(r->res->twin_gaps, sizeof r->res->twin_gaps, qp_gaps);
	}
	twin_notes(r, q, dev, file, gaps, notes, sizeof notes);
	if (!rc)
		rc = write_file(path, &sc, notes, err);
	rt_scenario_free(&sc);
	return rc;
}

int run_write_twin(struct runner *r, struct rt_error *err)
{
	const struct rt_run_spec *s = r->spec;
	struct rt_run_result *res = r->res;
	if (s->n_qp > 1)
		snprintf(res->scenario, sizeof res->scenario, "%s-%s.qp0..%u.scn", s->suite, s->name, s->n_qp - 1);
	else
		snprintf(res->scenario, sizeof res->scenario, "%s-%s.scn", s->suite, s->name);
	char common[sizeof res->twin_gaps] = "";
	test_gaps(r, common, sizeof common);
	snprintf(res->twin_gaps, sizeof res->twin_gaps, "%s", common);
	for (unsigned q = 0; q < s->n_qp; q++)
		if (write_qp(r, q, common, err))
			return -1;
	return 0;
}
