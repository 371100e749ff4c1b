/* SPDX-License-Identifier: MIT */
/*
 * The scenario writer (harness/lib/model/scenario_write.c): what it writes
 * the parser reads back to the same workload (connection, actions in order,
 * faults, bugs, expectations), for every golden vector's scenario and for a
 * workload built here with no setting left at its default; and what the
 * language cannot say is named, not written as something else.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/opcode.h"
#include "rocetest/scenario.h"

#include "suites.h"

#define SCENARIOS_DIR "vectors/scenarios"

/* Writes sc to text (the caller frees it). */
static char *write_text(const struct rt_scenario *sc, const char *notes, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	ck_assert_ptr_nonnull(f);
	struct rt_error err;
	ck_assert_int_eq(rt_scenario_write(f, sc, notes, &err), 0);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/* Written, parsed back. */
static void round_trip(const struct rt_scenario *sc, const char *notes, struct rt_scenario *back)
{
	size_t len = 0;
	char *text = write_text(sc, notes, &len);
	struct rt_error err;
	if (rt_scenario_parse("written.scn", text, len, back, &err))
		ck_abort_msg("the written scenario does not parse: %s\n%s", err.msg, text);
	free(text);
}

static void same_action(const struct rt_sim_action *a, const struct rt_sim_action *b, unsigned i)
{
	ck_assert_msg(a->at_ns == b->at_ns && a->node == b->node && a->kind == b->kind,
		      "action %u: at %lld node %u kind %d, read back as at %lld node %u kind %d", i,
		      (long long)a->at_ns, a->node, a->kind, (long long)b->at_ns, b->node, b->kind);
	if (a->kind == RT_ACTION_RECV)
		ck_assert_uint_eq(a->recv_wr_id, b->recv_wr_id);
	if (a->kind != RT_ACTION_SEND)
		return;
	const struct rt_send_wr *x = &a->wr, *y = &b->wr;
	/* A SEND has no remote address or R_Key (the parser fills in a placeholder a SEND line cannot set). */
	bool send = x->opcode <= RT_WR_SEND_INV;
	ck_assert_msg(x->wr_id == y->wr_id && x->opcode == y->opcode && x->local_offset == y->local_offset &&
			      x->length == y->length && (send || (x->remote_va == y->remote_va && x->rkey == y->rkey)) &&
			      x->imm == y->imm && x->compare == y->compare && x->swap_add == y->swap_add,
		      "action %u: request id %llx op %d len %u imm %x read back as id %llx op %d len %u imm %x", i,
		      (unsigned long long)x->wr_id, x->opcode, x->length, x->imm, (unsigned long long)y->wr_id,
		      y->opcode, y->length, y->imm);
}

/* The same workload: every field of the connection, every action, expectation. */
static void same_workload(const struct rt_scenario *a, const struct rt_scenario *b)
{
	ck_assert_str_eq(a->description, b->description);
	for (unsigned n = 0; n < 2; n++)
		ck_assert_msg(!memcmp(&a->sim.node[n], &b->sim.node[n], sizeof a->sim.node[n]),
			      "node %c's configuration differs after the round trip", "ab"[n]);
	const struct rt_sim_config *x = &a->sim, *y = &b->sim;
	ck_assert(x->delay_ns == y->delay_ns && x->rate_bps == y->rate_bps && x->tap == y->tap &&
		  x->tap_skew_ns == y->tap_skew_ns && x->time_limit_ns == y->time_limit_ns && x->seed == y->seed);
	ck_assert_uint_eq(x->n_faults, y->n_faults);
	for (unsigned i = 0; i < x->n_faults; i++) {
		const struct rt_fault *f = &x->faults[i], *g = &y->faults[i];
		ck_assert_msg(f->kind == g->kind && f->dir == g->dir && f->by_psn == g->by_psn && f->first == g->first &&
				      f->last == g->last && f->psn == g->psn && f->count == g->count &&
				      f->delay_ns == g->delay_ns,
			      "fault %u differs after the round trip", i);
	}
	ck_assert_uint_eq(a->n_actions, b->n_actions);
	for (unsigned i = 0; i < a->n_actions; i++)
		same_action(&a->actions[i], &b->actions[i], i);
	ck_assert_uint_eq(a->n_expect, b->n_expect);
	for (unsigned i = 0; i < a->n_expect; i++)
		ck_assert(a->expect[i].rule == b->expect[i].rule && a->expect[i].frame == b->expect[i].frame);
}

START_TEST(every_vector_scenario_round_trips)
{
	DIR *d = opendir(SCENARIOS_DIR);
	ck_assert_ptr_nonnull(d);
	unsigned files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".scn"))
			continue;
		char path[512];
		snprintf(path, sizeof path, SCENARIOS_DIR "/%s", e->d_name);
		struct rt_scenario sc, back;
		struct rt_error err;
		ck_assert_msg(!rt_scenario_load(path, &sc, &err), "%s", err.msg);
		char gaps[256];
		ck_assert_msg(rt_scenario_gaps(&sc, gaps, sizeof gaps) == 0, "%s: %s", path, gaps);
		round_trip(&sc, NULL, &back);
		snprintf(back.name, sizeof back.name, "%s", sc.name);
		same_workload(&sc, &back);
		rt_scenario_free(&sc);
		rt_scenario_free(&back);
		files++;
	}
	closedir(d);
	ck_assert_uint_ge(files, 50);
}
END_TEST

/* Each end's peer fields are the other end's, as the parser makes them. */
static void connect_ends(struct rt_sim_config *sim)
{
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp_config *c = &sim->node[n];
		const struct rt_qp_config *p = &sim->node[1 - n];
		memcpy(c->peer_mac, p->mac, 6);
		memcpy(c->peer_ip, p->ip, 16);
		c->peer_qpn = p->qpn;
		c->rq_psn = p->sq_psn;
	}
}

/* Node n with no setting at the parser's default. */
static void odd_node(struct rt_qp_config *c, unsigned n)
{
	const uint8_t mac[6] = { 0x12, 0x34, 0x56, 0x78, 0x9a, (uint8_t)(0xb0 + n) };
	memcpy(c->mac, mac, 6);
	c->ip_version = 6;
	memset(c->ip, 0, 16);
	c->ip[0] = 0x20;
	c->ip[1] = 0x01;
	c->ip[15] = (uint8_t)(7 + n);
	c->roce_version = n ? 1 : 2;
	c->vlan = true;
	c->vlan_tci = 5u << 13 | 123;
	c->transport = RT_TRANSPORT_RC;
	c->tos = (uint8_t)(0x40 + n);
	c->udp_sport = (uint16_t)(0xd000 + n);
	c->qpn = 0xabcde0 + n;
	c->sq_psn = n ? 0xfffff0 : 0x123456;
	c->pmtu = 512;
	c->timeout = 9;
	c->retry_cnt = 3;
	c->rnr_retry = 5;
	c->min_rnr_timer = (uint8_t)(4 + n);
	c->ackreq_every = n ? RT_ACKREQ_LAST : 3;
	c->ack_every = 2 + n;
	c->ack_delay_ns = 4321;
	c->ack_credits = 17;
	c->window = 9;
	c->max_rd_atomic = 3;
	c->send_cnp = n;
	c->op_error_msg = 400 + n;	/* past the scenario's messages: read back, never met */
	c->mem_va = 0x7f0000001000ull + n;
	c->mem_size = 96 * 1024;
	c->rkey = 0x5eed0001u + n;
	c->qkey = 0x22222222u + n;
	c->rq_depth = 40;
	c->recv_size = 3000;
}

/* A request of node n: the remote address and R_Key a SEND line leaves to the parser are the peer's. */
static void request(struct rt_scenario *sc, unsigned i, uint8_t n, enum rt_wr_opcode op, uint32_t len)
{
	const struct rt_qp_config *peer = &sc->sim.node[1 - n];
	bool send = op <= RT_WR_SEND_INV;
	bool atomic = op == RT_WR_CMP_SWAP || op == RT_WR_FETCH_ADD;
	struct rt_sim_action *a = &sc->actions[i];
	memset(a, 0, sizeof *a);
	a->at_ns = 1000 * i;
	a->node = n;
	a->kind = RT_ACTION_SEND;
	a->wr = (struct rt_send_wr){ .wr_id = 0xf000000000000000ull | i, .opcode = op, .local_offset = 8 * i + 3,
				     .length = atomic ? 8 : len, .remote_va = send ? peer->mem_va : peer->mem_va + 64 * i,
				     .rkey = send ? peer->rkey : 0xdead00 + i,
				     .imm = op == RT_WR_SEND_IMM || op == RT_WR_WRITE_IMM || op == RT_WR_SEND_INV ? 0x80000000u + i : 0,
				     .compare = op == RT_WR_CMP_SWAP ? 0x1122334455667788ull : 0,
				     .swap_add = atomic ? 0x99aabbccddeeff00ull + i : 0 };
}

static void receives(struct rt_scenario *sc, unsigned i, unsigned count, uint8_t n, int64_t at, uint64_t *id)
{
	for (unsigned k = 0; k < count; k++) {
		struct rt_sim_action *a = &sc->actions[i + k];
		memset(a, 0, sizeof *a);
		*a = (struct rt_sim_action){ .at_ns = at, .node = n, .kind = RT_ACTION_RECV, .recv_wr_id = (*id)++ };
	}
}

/* Every setting off its default, every opcode, receive runs, a CNP, every fault kind, a bug, expectations. */
static void odd_scenario(struct rt_scenario *sc)
{
	memset(sc, 0, sizeof *sc);
	rt_sim_config_init(&sc->sim);
	snprintf(sc->description, sizeof sc->description, "every field, away from its default");
	struct rt_sim_config *sim = &sc->sim;
	for (unsigned n = 0; n < 2; n++)
		odd_node(&sim->node[n], n);
	connect_ends(sim);
	sim->seed = 0xfedcba9876543210ull;
	sim->delay_ns = 2345;
	sim->rate_bps = 25000000000ull;
	sim->tap = RT_TAP_B;
	sim->tap_skew_ns = 777;
	sim->time_limit_ns = 123456789;
	const enum rt_fault_kind kinds[] = { RT_FAULT_DROP, RT_FAULT_DUPLICATE, RT_FAULT_REORDER, RT_FAULT_DELAY,
					     RT_FAULT_CORRUPT, RT_FAULT_MARK_CE, RT_FAULT_MISS };
	for (unsigned k = 0; k < 7; k++)
		sim->faults[sim->n_faults++] = (struct rt_fault){ .kind = kinds[k], .dir = (uint8_t)(k & 1),
			.by_psn = k % 3 == 0, .first = k + 1, .last = k % 3 == 0 ? 0 : 2 * k + 1, .psn = k % 3 == 0 ? 0xfffff0 + k : 0,
			.count = k % 3 == 0 ? k + 1 : 0, .delay_ns = kinds[k] == RT_FAULT_DELAY ? 5555 : 0 };
	for (unsigned k = 0; k < 7; k++)
		if (sim->faults[k].by_psn)
			sim->faults[k].first = 0;
	sim->node[1].bug = RT_BUG_ACK_AHEAD;
	sim->node[1].bug_at = 3;
	sc->actions = calloc(16, sizeof *sc->actions);
	ck_assert_ptr_nonnull(sc->actions);
	uint64_t recv_id[2] = { 1, 1 };
	receives(sc, 0, 3, 1, 0, &recv_id[1]);
	const enum rt_wr_opcode ops[] = { RT_WR_SEND, RT_WR_SEND_IMM, RT_WR_SEND_INV, RT_WR_WRITE,
					  RT_WR_WRITE_IMM, RT_WR_READ, RT_WR_CMP_SWAP, RT_WR_FETCH_ADD };
	for (unsigned k = 0; k < 8; k++)
		request(sc, 3 + k, (uint8_t)(k == 5), ops[k], 700 + k);
	receives(sc, 11, 2, 0, 40000, &recv_id[0]);
	receives(sc, 13, 1, 1, 40000, &recv_id[1]);
	sc->actions[14] = (struct rt_sim_action){ .at_ns = 50000, .node = 0, .kind = RT_ACTION_CNP };
	sc->n_actions = 15;
	sc->expect[0] = (struct rt_scenario_expect){ .rule = RT_RULE_SEQ_PSN, .frame = 0 };
	sc->expect[1] = (struct rt_scenario_expect){ .rule = RT_RULE_PKT_ICRC, .frame = 42 };
	sc->n_expect = 2;
}

START_TEST(a_workload_off_every_default_round_trips)
{
	struct rt_scenario sc, back;
	odd_scenario(&sc);
	char gaps[256];
	ck_assert_msg(rt_scenario_gaps(&sc, gaps, sizeof gaps) == 0, "%s", gaps);
	round_trip(&sc, "made by a test\nsecond line of notes", &back);
	same_workload(&sc, &back);
	rt_scenario_free(&sc);
	rt_scenario_free(&back);
}
END_TEST

START_TEST(notes_are_comments_and_the_description_one_line)
{
	struct rt_scenario sc, back;
	odd_scenario(&sc);
	snprintf(sc.description, sizeof sc.description, "a # in it\nand a line break");
	size_t len = 0;
	char *text = write_text(&sc, "note one\nnote two", &len);
	ck_assert_msg(!strncmp(text, "# note one\n# note two\ndescription a   in it and a line break\n", 60), "%s",
		      text);
	free(text);
	char gaps[256];
	ck_assert_uint_eq(rt_scenario_gaps(&sc, gaps, sizeof gaps), 1);
	ck_assert_ptr_nonnull(strstr(gaps, "description"));
	round_trip(&sc, NULL, &back);
	ck_assert_str_eq(back.description, "a   in it and a line break");
	rt_scenario_free(&sc);
	rt_scenario_free(&back);
}
END_TEST

START_TEST(what_cannot_be_said_is_named)
{
	struct rt_scenario sc;
	odd_scenario(&sc);
	char gaps[512];
	sc.sim.node[0].sq_depth = 4096;
	sc.actions[1].recv_wr_id = 9;
	sc.sim.node[1].pmtu = 1024;
	sc.sim.node[0].peer_qpn ^= 1;
	ck_assert_uint_eq(rt_scenario_gaps(&sc, gaps, sizeof gaps), 4);
	ck_assert_msg(strstr(gaps, "send queue depth 4096") && strstr(gaps, "receive wr_ids") &&
			      strstr(gaps, "PMTU") && strstr(gaps, "node a's peer"),
		      "%s", gaps);
	/* A short buffer holds whole text up to its end, and the count is still all of them. */
	char small[16];
	ck_assert_uint_eq(rt_scenario_gaps(&sc, small, sizeof small), 4);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	rt_scenario_free(&sc);
}
END_TEST

/* What no check names by itself is still found: the file is read back and compared. */
START_TEST(a_setting_without_a_key_or_a_file_that_does_not_read_back_is_named)
{
	struct rt_scenario sc;
	odd_scenario(&sc);
	char gaps[512];
	for (unsigned n = 0; n < 2; n++) {
		struct rt_qp_config *c = &sc.sim.node[n];
		c->ip_version = 4;
		memset(c->ip, 0, sizeof c->ip);
		c->ip[0] = 10;
		c->ip[3] = (uint8_t)(n + 1);
	}
	sc.sim.node[1].ip[9] = 0x5a;	/* past the 4 bytes of an IPv4 address the file writes */
	memcpy(sc.sim.node[0].peer_ip, sc.sim.node[1].ip, 16);
	memcpy(sc.sim.node[1].peer_ip, sc.sim.node[0].ip, 16);
	ck_assert_msg(rt_scenario_gaps(&sc, gaps, sizeof gaps) == 1, "%s", gaps);
	ck_assert_msg(strstr(gaps, "node b has a setting the language has no key for"), "%s", gaps);
	sc.sim.node[1].ip[9] = sc.sim.node[0].peer_ip[9] = 0;
	ck_assert_msg(rt_scenario_gaps(&sc, gaps, sizeof gaps) == 0, "%s", gaps);
	sc.actions[5].wr.length = 1u << 20;	/* more than node a's memory */
	ck_assert_msg(rt_scenario_gaps(&sc, gaps, sizeof gaps) == 1, "%s", gaps);
	ck_assert_msg(strstr(gaps, "the file does not read back: written:") && strstr(gaps, "memory"), "%s", gaps);
	rt_scenario_free(&sc);
}
END_TEST

Suite *scenario_write_suite(void)
{
	Suite *s = suite_create("scenario_write");
	TCase *t = tcase_create("round_trip");
	tcase_add_test(t, every_vector_scenario_round_trips);
	tcase_add_test(t, a_workload_off_every_default_round_trips);
	tcase_add_test(t, notes_are_comments_and_the_description_one_line);
	tcase_add_test(t, what_cannot_be_said_is_named);
	tcase_add_test(t, a_setting_without_a_key_or_a_file_that_does_not_read_back_is_named);
	suite_add_tcase(s, t);
	return s;
}
