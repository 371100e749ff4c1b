/* SPDX-License-Identifier: MIT */
/*
 * Scenario files written from a struct rt_scenario (the parser's result), so
 * that a workload run elsewhere (`rocetest run` against a device) can be run
 * again by the reference model: `rocetest gen FILE` makes its twin capture.
 *
 * Every setting is written, defaults included, and every request carries its
 * offset=, id=, va= and rkey=: the file then means the same whatever the
 * parser's defaults become. Initial receives are written as `recv` lines
 * (each node's `recv=0`), in the order the actions hold them.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/opcode.h"
#include "rocetest/scenario.h"

#define RECV_LINE_MAX 65536u	/* the parser's largest count= */

static const char node_name[2] = { 'a', 'b' };

static const char *transport_word(uint8_t t)
{
	return t == RT_TRANSPORT_UC ? "uc" : t == RT_TRANSPORT_UD ? "ud" : "rc";
}

/* ---- what the language cannot say ---- */

struct gaps {
	char *buf;
	size_t size, used;
	unsigned n;
};

static void gap(struct gaps *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gap(struct gaps *g, const char *fmt, ...)
{
	g->n++;
	if (g->used + 1 >= g->size)
		return;
	if (g->used)
		g->used += (size_t)snprintf(g->buf + g->used, g->size - g->used, "; ");
	if (g->used + 1 >= g->size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(g->buf + g->used, g->size - g->used, fmt, ap);
	va_end(ap);
	g->used = n < 0 ? g->used : g->used + (size_t)n;
	if (g->used >= g->size)
		g->used = g->size - 1;
}

/* Settings both ends share in the language, and what each end takes from the other. */
static void node_gaps(const struct rt_sim_config *sim, struct gaps *g)
{
	const struct rt_qp_config *a = &sim->node[0], *b = &sim->node[1];
	struct rt_qp_config def;
	rt_qp_config_init(&def);
	if (a->transport != b->transport || a->ip_version != b->ip_version || a->pmtu != b->pmtu ||
	    a->vlan != b->vlan || (a->vlan && a->vlan_tci != b->vlan_tci))
		gap(g, "the ends differ in transport, IP version, PMTU or VLAN (one setting for both)");
	if (a->vlan && ((a->vlan_tci & 0xfff) == 0 || (a->vlan_tci & 0xfff) == 0xfff || a->vlan_tci & 0x1000))
		gap(g, "VLAN TCI 0x%04x (VLAN IDs 1..4094, no DEI)", a->vlan_tci);
	for (unsigned n = 0; n < 2; n++) {
		const struct rt_qp_config *c = &sim->node[n], *peer = &sim->node[1 - n];
		if (memcmp(c->peer_mac, peer->mac, 6) || memcmp(c->peer_ip, peer->ip, 16) ||
		    c->peer_qpn != peer->qpn || c->rq_psn != peer->sq_psn)
			gap(g, "node %c's peer address, QPN or expected PSN is not node %c's own", node_name[n],
			    node_name[1 - n]);
		if (c->sq_depth != def.sq_depth)
			gap(g, "node %c's send queue depth %u (no key: the model's is %u)", node_name[n], c->sq_depth,
			    def.sq_depth);
	}
	if (sim->tap == RT_TAP_RECEIVER && sim->tap_skew_ns)
		gap(g, "a capture skew without a capturing node");
}

/* Receives number 1, 2, 3... per node in the language. */
static void action_gaps(const struct rt_scenario *sc, struct gaps *g)
{
	uint64_t next[2] = { 1, 1 };
	bool bad_recv = false, bad_op = false;
	for (unsigned i = 0; i < sc->n_actions; i++) {
		const struct rt_sim_action *a = &sc->actions[i];
		if (a->node > 1 || a->at_ns < 0) {
			bad_op = true;
			continue;
		}
		if (a->kind == RT_ACTION_RECV && a->recv_wr_id != next[a->node]++)
			bad_recv = true;
		if (a->kind == RT_ACTION_SEND && a->wr.opcode == RT_WR_RECV)
			bad_op = true;
	}
	if (bad_recv)
		gap(g, "receive wr_ids other than 1, 2, 3... per node");
	if (bad_op)
		gap(g, "actions with a node other than a or b, a negative time or a RECV opcode on the send queue");
}

/*
 * Whether node n's configuration holds a setting the file does not carry,
 * besides those node_gaps names: written, read back and compared, so that a
 * field the model gains before the language does is not lost unnoticed.
 */
static bool node_unsaid(const struct rt_qp_config *orig, const struct rt_qp_config *back)
{
	struct rt_qp_config o = *orig;
	o.sq_depth = back->sq_depth;
	o.transport = back->transport;
	o.ip_version = back->ip_version;
	o.pmtu = back->pmtu;
	o.vlan = back->vlan;
	o.vlan_tci = back->vlan_tci;
	memcpy(o.peer_mac, back->peer_mac, sizeof o.peer_mac);
	memcpy(o.peer_ip, back->peer_ip, sizeof o.peer_ip);
	o.peer_qpn = back->peer_qpn;
	o.rq_psn = back->rq_psn;
	return memcmp(&o, back, sizeof o) != 0;
}

static void round_trip_gaps(const struct rt_scenario *sc, struct gaps *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct rt_error err;
	struct rt_scenario back;
	int bad = !f;
	if (f) {
		bad = rt_scenario_write(f, sc, NULL, &err);
		bad |= fclose(f);
	}
	if (bad) {
		gap(g, "the file could not be written in memory to check it");
	} else if (rt_scenario_parse("written", text, len, &back, &err)) {
		gap(g, "the file does not read back: %s", err.msg);
	} else {
		for (unsigned n = 0; n < 2; n++)
			if (node_unsaid(&sc->sim.node[n], &back.sim.node[n]))
				gap(g, "node %c has a setting the language has no key for (the file leaves the model's default)",
				    node_name[n]);
		rt_scenario_free(&back);
	}
	free(text);
}

unsigned rt_scenario_gaps(const struct rt_scenario *sc, char *buf, size_t size)
{
	struct gaps g = { .buf = buf, .size = size };
	if (size)
		buf[0] = '\0';
	node_gaps(&sc->sim, &g);
	action_gaps(sc, &g);
	if (strpbrk(sc->description, "#\n\r"))
		gap(&g, "'#' and line breaks in the description (written as blanks)");
	round_trip_gaps(sc, &g);
	return g.n;
}

/* ---- the file ---- */

static void write_notes(FILE *f, const char *notes)
{
	for (const char *p = notes; p && *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(f, "# %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static void write_connection(FILE *f, const struct rt_scenario *sc)
{
	const struct rt_sim_config *sim = &sc->sim;
	const struct rt_qp_config *a = &sim->node[0];
	if (sc->description[0]) {
		char d[sizeof sc->description];
		snprintf(d, sizeof d, "%s", sc->description);
		for (char *c = d; (c = strpbrk(c, "#\n\r"));)
			*c = ' ';
		fprintf(f, "description %s\n", d);
	}
	fprintf(f, "seed %" PRIu64 "\ntransport %s\nip %u\n", sim->seed, transport_word(a->transport),
		a->ip_version);
	if (a->vlan)
		fprintf(f, "vlan %u pcp=%u\n", a->vlan_tci & 0xfff, a->vlan_tci >> 13);
	fprintf(f, "pmtu %u\nlink delay=%" PRId64 "ns rate=%" PRIu64 "\n", a->pmtu, sim->delay_ns,
		sim->rate_bps ? sim->rate_bps : (uint64_t)100000000000ull);
	if (sim->tap == RT_TAP_RECEIVER)
		fprintf(f, "capture receiver\n");
	else
		fprintf(f, "capture %c skew=%" PRId64 "ns\n", sim->tap == RT_TAP_A ? 'a' : 'b', sim->tap_skew_ns);
	if (sim->time_limit_ns > 0)
		fprintf(f, "limit %" PRId64 "ns\n", sim->time_limit_ns);
}

static void write_node(FILE *f, const struct rt_qp_config *c, char name)
{
	char ip[INET6_ADDRSTRLEN] = "";
	inet_ntop(c->ip_version == 6 ? AF_INET6 : AF_INET, c->ip, ip, sizeof ip);
	fprintf(f, "node %c mac=%02x:%02x:%02x:%02x:%02x:%02x ip=%s roce=%u qpn=0x%06x psn=0x%06x sport=0x%04x tos=%u\n",
		name, c->mac[0], c->mac[1], c->mac[2], c->mac[3], c->mac[4], c->mac[5], ip,
		c->roce_version == 1 ? 1 : 2, c->qpn, c->sq_psn, c->udp_sport, c->tos);
	fprintf(f, "node %c memory=%u va=0x%" PRIx64 " rkey=0x%x qkey=0x%x rq_depth=%u recv_size=%u recv=0\n", name,
		c->mem_size, c->mem_va, c->rkey, c->qkey, c->rq_depth, c->recv_size);
	fprintf(f, "node %c timeout=%u retry_cnt=%u rnr_retry=%u rnr_timer=%u window=%u max_rd_atomic=%u", name,
		c->timeout, c->retry_cnt, c->rnr_retry, c->min_rnr_timer, c->window, c->max_rd_atomic);
	if (c->ackreq_every == RT_ACKREQ_LAST)
		fprintf(f, " ackreq=last");
	else
		fprintf(f, " ackreq=%u", c->ackreq_every);
	fprintf(f, " ack_every=%u ack_delay=%" PRId64 "ns credits=%u cnp=%s", c->ack_every, c->ack_delay_ns,
		c->ack_credits, c->send_cnp ? "on" : "off");
	if (c->op_error_msg)
		fprintf(f, " op_error=%u", c->op_error_msg);
	fputc('\n', f);
}

/* One request: the directive its opcode takes, with every key spelled out. */
static void write_request(FILE *f, const struct rt_sim_action *a)
{
	const struct rt_send_wr *w = &a->wr;
	static const char *const word[] = {
		[RT_WR_SEND] = "send", [RT_WR_SEND_IMM] = "send", [RT_WR_SEND_INV] = "send",
		[RT_WR_WRITE] = "write", [RT_WR_WRITE_IMM] = "write", [RT_WR_READ] = "read",
		[RT_WR_CMP_SWAP] = "cas", [RT_WR_FETCH_ADD] = "fadd",
	};
	bool atomic = w->opcode == RT_WR_CMP_SWAP || w->opcode == RT_WR_FETCH_ADD;
	bool send = w->opcode <= RT_WR_SEND_INV;
	fprintf(f, "%s %c", word[w->opcode], node_name[a->node]);
	if (!atomic)
		fprintf(f, " len=%u", w->length);
	if (!send)
		fprintf(f, " va=0x%" PRIx64 " rkey=0x%x", w->remote_va, w->rkey);
	if (w->opcode == RT_WR_SEND_IMM || w->opcode == RT_WR_WRITE_IMM)
		fprintf(f, " imm=0x%08x", w->imm);
	if (w->opcode == RT_WR_SEND_INV)
		fprintf(f, " inv=0x%x", w->imm);
	if (w->opcode == RT_WR_CMP_SWAP)
		fprintf(f, " compare=0x%" PRIx64 " swap=0x%" PRIx64, w->compare, w->swap_add);
	if (w->opcode == RT_WR_FETCH_ADD)
		fprintf(f, " add=0x%" PRIx64, w->swap_add);
	fprintf(f, " offset=%" PRIu64 " id=0x%" PRIx64 " at=%" PRId64 "ns\n", w->local_offset, w->wr_id, a->at_ns);
}

/* Actions in order; a run of receives of one node at one time is one line. */
static void write_actions(FILE *f, const struct rt_scenario *sc)
{
	for (unsigned i = 0; i < sc->n_actions;) {
		const struct rt_sim_action *a = &sc->actions[i];
		if (a->node > 1 || a->at_ns < 0 || (a->kind == RT_ACTION_SEND && a->wr.opcode == RT_WR_RECV)) {
			i++;	/* rt_scenario_gaps names these */
			continue;
		}
		if (a->kind == RT_ACTION_SEND) {
			write_request(f, a);
			i++;
		} else if (a->kind == RT_ACTION_CNP) {
			fprintf(f, "cnp %c at=%" PRId64 "ns\n", node_name[a->node], a->at_ns);
			i++;
		} else {
			unsigned n = 1;
			while (i + n < sc->n_actions && n < RECV_LINE_MAX && sc->actions[i + n].kind == RT_ACTION_RECV &&
			       sc->actions[i + n].node == a->node && sc->actions[i + n].at_ns == a->at_ns)
				n++;
			fprintf(f, "recv %c count=%u at=%" PRId64 "ns\n", node_name[a->node], n, a->at_ns);
			i += n;
		}
	}
}

static void write_faults(FILE *f, const struct rt_sim_config *sim)
{
	for (unsigned i = 0; i < sim->n_faults; i++) {
		const struct rt_fault *ft = &sim->faults[i];
		fprintf(f, "fault %s %s", ft->dir ? "b>a" : "a>b", rt_fault_kind_name(ft->kind));
		if (ft->by_psn)
			fprintf(f, " psn=0x%06x count=%u", ft->psn, ft->count ? ft->count : 1);
		else
			fprintf(f, " packet=%u-%u", ft->first, ft->last);
		if (ft->kind == RT_FAULT_DELAY)
			fprintf(f, " by=%" PRId64 "ns", ft->delay_ns);
		fputc('\n', f);
	}
}

static void write_expectations(FILE *f, const struct rt_scenario *sc)
{
	for (unsigned n = 0; n < 2; n++)
		if (sc->sim.node[n].bug != RT_BUG_NONE)
			fprintf(f, "bug %c %s at=%u\n", node_name[n], rt_qp_bug_name(sc->sim.node[n].bug),
				sc->sim.node[n].bug_at ? sc->sim.node[n].bug_at : 1);
	if (!sc->n_expect)
		fprintf(f, "expect clean\n");
	for (unsigned i = 0; i < sc->n_expect; i++) {
		fprintf(f, "expect %s", rt_rule_info(sc->expect[i].rule)->id);
		if (sc->expect[i].frame)
			fprintf(f, " frame=%" PRIu64, sc->expect[i].frame);
		fputc('\n', f);
	}
}

int rt_scenario_write(FILE *f, const struct rt_scenario *sc, const char *notes, struct rt_error *err)
{
	write_notes(f, notes);
	write_connection(f, sc);
	for (unsigned n = 0; n < 2; n++)
		write_node(f, &sc->sim.node[n], node_name[n]);
	write_faults(f, &sc->sim);
	write_actions(f, sc);
	write_expectations(f, sc);
	if (fflush(f) || ferror(f)) {
		rt_error_set(err, "cannot write the scenario");
		return -1;
	}
	return 0;
}
