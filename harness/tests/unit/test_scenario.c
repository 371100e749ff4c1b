/* SPDX-License-Identifier: MIT */
/*
 * The scenario parser against vectors/scenarios/README.md: every directive
 * and key lands in the field it names, the README's defaults, the settings
 * that are resolved only after the last line (IP defaults after `ip 6`, the
 * peer's VA and R_Key, memory sizes for the offset cursor, psn=+N), the
 * expansion of count=, and one malformed input per error, each checked for
 * the "file:line: directive:" it must start with and what it must say.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocetest/opcode.h"
#include "rocetest/scenario.h"
#include "suites.h"

/* Messages name the file as given; sc->name drops the directory and ".scn". */
#define NAME "dir/t.scn"

static void parse_ok(const char *text, struct rt_scenario *sc)
{
	struct rt_error err = { .msg = "" };
	int rc = rt_scenario_parse(NAME, text, strlen(text), sc, &err);
	ck_assert_msg(rc == 0, "parse failed: %s\n--- input:\n%s", err.msg, text);
}

/* Parses text that must fail; returns the message. */
static void parse_fails(const char *text, size_t len, struct rt_error *err)
{
	struct rt_scenario sc;
	snprintf(err->msg, sizeof err->msg, "(not set)");
	int rc = rt_scenario_parse(NAME, text, len, &sc, err);
	ck_assert_msg(rc == -1, "parse accepted:\n%s", text);
	ck_assert_ptr_null(sc.actions);
	ck_assert_uint_eq(sc.n_actions, 0);
	rt_scenario_free(&sc);
}

static void assert_ip4(const uint8_t *ip, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const uint8_t want[16] = { a, b, c, d };
	ck_assert_mem_eq(ip, want, 16);
}

static void assert_mac(const uint8_t *mac, const uint8_t want[6])
{
	ck_assert_mem_eq(mac, want, 6);
}

static const struct rt_send_wr *send_wr(const struct rt_scenario *sc, unsigned i, uint8_t node)
{
	ck_assert_uint_lt(i, sc->n_actions);
	ck_assert_int_eq(sc->actions[i].kind, RT_ACTION_SEND);
	ck_assert_uint_eq(sc->actions[i].node, node);
	return &sc->actions[i].wr;
}

static void assert_recv(const struct rt_scenario *sc, unsigned i, uint8_t node, uint64_t id, int64_t at_ns)
{
	ck_assert_uint_lt(i, sc->n_actions);
	ck_assert_int_eq(sc->actions[i].kind, RT_ACTION_RECV);
	ck_assert_uint_eq(sc->actions[i].node, node);
	ck_assert_uint_eq(sc->actions[i].recv_wr_id, id);
	ck_assert_int_eq(sc->actions[i].at_ns, at_ns);
}

START_TEST(empty_file_has_the_readme_defaults)
{
	struct rt_scenario sc;
	parse_ok("", &sc);
	ck_assert_str_eq(sc.name, "t");
	ck_assert_str_eq(sc.description, "");
	ck_assert_int_eq(sc.sim.delay_ns, 1000);
	ck_assert_uint_eq(sc.sim.rate_bps, 100000000000ull);
	ck_assert_int_eq(sc.sim.tap, RT_TAP_RECEIVER);
	ck_assert_int_eq(sc.sim.time_limit_ns, 10000000000ll);
	ck_assert_uint_eq(sc.sim.seed, 1);
	ck_assert_uint_eq(sc.sim.n_faults, 0);
	ck_assert_uint_eq(sc.n_expect, 0);

	static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0x0a }, mac_b[6] = { 2, 0, 0, 0, 0, 0x0b };
	const struct rt_qp_config *a = &sc.sim.node[0], *b = &sc.sim.node[1];
	assert_mac(a->mac, mac_a);
	assert_mac(b->mac, mac_b);
	assert_mac(a->peer_mac, mac_b);
	assert_mac(b->peer_mac, mac_a);
	assert_ip4(a->ip, 10, 0, 0, 1);
	assert_ip4(b->ip, 10, 0, 0, 2);
	assert_ip4(a->peer_ip, 10, 0, 0, 2);
	assert_ip4(b->peer_ip, 10, 0, 0, 1);
	ck_assert_uint_eq(a->qpn, 0x11);
	ck_assert_uint_eq(b->qpn, 0x12);
	ck_assert_uint_eq(a->peer_qpn, 0x12);
	ck_assert_uint_eq(b->peer_qpn, 0x11);
	ck_assert_uint_eq(a->sq_psn, 0x1000);
	ck_assert_uint_eq(b->sq_psn, 0x2000);
	ck_assert_uint_eq(a->rq_psn, 0x2000);
	ck_assert_uint_eq(b->rq_psn, 0x1000);
	ck_assert_uint_eq(a->udp_sport, 0xc011);
	ck_assert_uint_eq(b->udp_sport, 0xc012);
	ck_assert_uint_eq(a->mem_va, 0x10000000);
	ck_assert_uint_eq(b->mem_va, 0x20000000);
	ck_assert_uint_eq(a->rkey, 0xa001);
	ck_assert_uint_eq(b->rkey, 0xb001);
	for (int n = 0; n < 2; n++) {
		const struct rt_qp_config *c = &sc.sim.node[n];
		ck_assert_uint_eq(c->transport, RT_TRANSPORT_RC);
		ck_assert_uint_eq(c->ip_version, 4);
		ck_assert(!c->vlan);
		ck_assert_uint_eq(c->pmtu, 1024);
		ck_assert_uint_eq(c->tos, 0);
		ck_assert_uint_eq(c->mem_size, 65536);
		ck_assert_uint_eq(c->qkey, 0x11111111);
		ck_assert_uint_eq(c->timeout, 14);
		ck_assert_uint_eq(c->retry_cnt, 7);
		ck_assert_uint_eq(c->rnr_retry, 7);
		ck_assert_uint_eq(c->min_rnr_timer, 1);
		ck_assert_uint_eq(c->ackreq_every, 64);
		ck_assert_uint_eq(c->ack_every, 1);
		ck_assert_int_eq(c->ack_delay_ns, 10000);
		ck_assert_uint_eq(c->ack_credits, 31);
		ck_assert_uint_eq(c->window, 128);
		ck_assert_uint_eq(c->max_rd_atomic, 16);
		ck_assert_uint_eq(c->rq_depth, 64);
		ck_assert_uint_eq(c->recv_size, 16384);
		ck_assert(c->send_cnp);
		ck_assert_int_eq(c->bug, RT_BUG_NONE);
	}
	/* 16 receives posted at the start by each node, a's first. */
	ck_assert_uint_eq(sc.n_actions, 32);
	for (unsigned i = 0; i < 32; i++)
		assert_recv(&sc, i, (uint8_t)(i / 16), i % 16 + 1, 0);
	rt_scenario_free(&sc);
}
END_TEST

static const char full_scenario[] =
	"# a comment line\n"
	"description  RC traffic with faults   # and a comment\n"
	"seed 0x2a\n"
	"transport rc\n"
	"vlan 100 pcp=5\n"
	"pmtu 4096\n"
	"link delay=1.5us rate=25G\n"
	"capture a\n"
	"limit 2ms\n"
	"node a mac=02:aa:bb:cc:dd:EE ip=192.168.1.10 qpn=0x123456 psn=0xabcdef sport=49200 tos=0x60 "
	"memory=1M va=0x7000 rkey=0x1234 qkey=7 timeout=18 retry_cnt=3 rnr_retry=6 rnr_timer=12 "
	"ackreq=last ack_every=4 ack_delay=20us credits=5 window=32 max_rd_atomic=4 rq_depth=128 "
	"recv_size=4K recv=2 cnp=off\n"
	"node b recv=1 ackreq=8\n"
	"node a tos=0x61         # later keys override earlier ones\n"
	"send a len=100 imm=0xdeadbeef\n"
	"send b len=4K inv=0x55 at=10us id=77\n"
	"write a len=2K va=+0x100 rkey=0x99\n"
	"read a len=512 va=0x30000000 offset=0x800\n"
	"cas a compare=1 swap=2\n"
	"fadd b add=0x10 va=+8\n"
	"recv b count=2\n"
	"cnp a at=1ms\n"
	"fault a>b drop packet=3\n"
	"fault b>a delay psn=+2 count=2 by=5us\n"
	"fault a>b ce packet=5-7\n"
	"bug b ack-ahead at=2\n"
	"expect SEQ-ACK-AHEAD\n"
	"expect RSP-ACK frame=9\n";

START_TEST(full_scenario_sets_every_field)
{
	struct rt_scenario sc;
	parse_ok(full_scenario, &sc);
	ck_assert_str_eq(sc.name, "t");
	ck_assert_str_eq(sc.description, "RC traffic with faults");
	ck_assert_uint_eq(sc.sim.seed, 42);
	ck_assert_int_eq(sc.sim.delay_ns, 1500);
	ck_assert_uint_eq(sc.sim.rate_bps, 25000000000ull);
	ck_assert_int_eq(sc.sim.tap, RT_TAP_A);
	ck_assert_int_eq(sc.sim.time_limit_ns, 2000000);

	const struct rt_qp_config *a = &sc.sim.node[0], *b = &sc.sim.node[1];
	static const uint8_t mac_a[6] = { 2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }, mac_b[6] = { 2, 0, 0, 0, 0, 0x0b };
	assert_mac(a->mac, mac_a);
	assert_mac(b->peer_mac, mac_a);
	assert_mac(a->peer_mac, mac_b);
	assert_ip4(a->ip, 192, 168, 1, 10);
	assert_ip4(b->peer_ip, 192, 168, 1, 10);
	assert_ip4(b->ip, 10, 0, 0, 2);
	ck_assert_uint_eq(a->qpn, 0x123456);
	ck_assert_uint_eq(b->peer_qpn, 0x123456);
	ck_assert_uint_eq(a->sq_psn, 0xabcdef);
	ck_assert_uint_eq(b->rq_psn, 0xabcdef);
	ck_assert_uint_eq(a->rq_psn, 0x2000);
	ck_assert_uint_eq(a->udp_sport, 49200);
	ck_assert_uint_eq(a->tos, 0x61);
	ck_assert_uint_eq(a->mem_size, 1048576);
	ck_assert_uint_eq(a->mem_va, 0x7000);
	ck_assert_uint_eq(a->rkey, 0x1234);
	ck_assert_uint_eq(a->qkey, 7);
	ck_assert_uint_eq(a->timeout, 18);
	ck_assert_uint_eq(a->retry_cnt, 3);
	ck_assert_uint_eq(a->rnr_retry, 6);
	ck_assert_uint_eq(a->min_rnr_timer, 12);
	ck_assert_uint_eq(a->ackreq_every, RT_ACKREQ_LAST);
	ck_assert_uint_eq(b->ackreq_every, 8);
	ck_assert_uint_eq(a->ack_every, 4);
	ck_assert_int_eq(a->ack_delay_ns, 20000);
	ck_assert_uint_eq(a->ack_credits, 5);
	ck_assert_uint_eq(a->window, 32);
	ck_assert_uint_eq(a->max_rd_atomic, 4);
	ck_assert_uint_eq(a->rq_depth, 128);
	ck_assert_uint_eq(a->recv_size, 4096);
	ck_assert(!a->send_cnp);
	ck_assert(b->send_cnp);
	for (int n = 0; n < 2; n++) {
		ck_assert_uint_eq(sc.sim.node[n].transport, RT_TRANSPORT_RC);
		ck_assert(sc.sim.node[n].vlan);
		ck_assert_uint_eq(sc.sim.node[n].vlan_tci, 100 | 5 << 13);
		ck_assert_uint_eq(sc.sim.node[n].pmtu, 4096);
	}
	ck_assert_int_eq(a->bug, RT_BUG_NONE);
	ck_assert_int_eq(b->bug, RT_BUG_ACK_AHEAD);
	ck_assert_uint_eq(b->bug_at, 2);

	/* recv=2 on a, recv=1 on b, then the work in file order. */
	ck_assert_uint_eq(sc.n_actions, 12);
	assert_recv(&sc, 0, 0, 1, 0);
	assert_recv(&sc, 1, 0, 2, 0);
	assert_recv(&sc, 2, 1, 1, 0);

	const struct rt_send_wr *w = send_wr(&sc, 3, 0);
	ck_assert_int_eq(sc.actions[3].at_ns, 0);
	ck_assert_uint_eq(w->wr_id, 1);
	ck_assert_int_eq(w->opcode, RT_WR_SEND_IMM);
	ck_assert_uint_eq(w->length, 100);
	ck_assert_uint_eq(w->local_offset, 0);
	ck_assert_uint_eq(w->imm, 0xdeadbeef);

	w = send_wr(&sc, 4, 1);
	ck_assert_int_eq(sc.actions[4].at_ns, 10000);
	ck_assert_uint_eq(w->wr_id, 77);
	ck_assert_int_eq(w->opcode, RT_WR_SEND_INV);
	ck_assert_uint_eq(w->imm, 0x55);
	ck_assert_uint_eq(w->length, 4096);
	ck_assert_uint_eq(w->local_offset, 0);

	w = send_wr(&sc, 5, 0);
	ck_assert_uint_eq(w->wr_id, 2);
	ck_assert_int_eq(w->opcode, RT_WR_WRITE);
	ck_assert_uint_eq(w->length, 2048);
	ck_assert_uint_eq(w->local_offset, 100);	/* after the SEND's 100 bytes */
	ck_assert_uint_eq(w->remote_va, 0x20000100);
	ck_assert_uint_eq(w->rkey, 0x99);

	w = send_wr(&sc, 6, 0);
	ck_assert_uint_eq(w->wr_id, 3);
	ck_assert_int_eq(w->opcode, RT_WR_READ);
	ck_assert_uint_eq(w->length, 512);
	ck_assert_uint_eq(w->local_offset, 0x800);
	ck_assert_uint_eq(w->remote_va, 0x30000000);
	ck_assert_uint_eq(w->rkey, 0xb001);

	w = send_wr(&sc, 7, 0);
	ck_assert_uint_eq(w->wr_id, 4);
	ck_assert_int_eq(w->opcode, RT_WR_CMP_SWAP);
	ck_assert_uint_eq(w->length, 8);
	ck_assert_uint_eq(w->local_offset, 2148);	/* the READ's explicit offset left the cursor alone */
	ck_assert_uint_eq(w->remote_va, 0x20000000);
	ck_assert_uint_eq(w->rkey, 0xb001);
	ck_assert_uint_eq(w->compare, 1);
	ck_assert_uint_eq(w->swap_add, 2);

	w = send_wr(&sc, 8, 1);
	ck_assert_uint_eq(w->wr_id, 2);
	ck_assert_int_eq(w->opcode, RT_WR_FETCH_ADD);
	ck_assert_uint_eq(w->length, 8);
	ck_assert_uint_eq(w->local_offset, 4096);
	ck_assert_uint_eq(w->remote_va, 0x7008);
	ck_assert_uint_eq(w->rkey, 0x1234);
	ck_assert_uint_eq(w->swap_add, 0x10);

	assert_recv(&sc, 9, 1, 2, 0);
	assert_recv(&sc, 10, 1, 3, 0);
	ck_assert_int_eq(sc.actions[11].kind, RT_ACTION_CNP);
	ck_assert_uint_eq(sc.actions[11].node, 0);
	ck_assert_int_eq(sc.actions[11].at_ns, 1000000);

	ck_assert_uint_eq(sc.sim.n_faults, 3);
	const struct rt_fault *f = sc.sim.faults;
	ck_assert_int_eq(f[0].kind, RT_FAULT_DROP);
	ck_assert_uint_eq(f[0].dir, 0);
	ck_assert(!f[0].by_psn);
	ck_assert_uint_eq(f[0].first, 3);
	ck_assert_uint_eq(f[0].last, 3);
	ck_assert_int_eq(f[1].kind, RT_FAULT_DELAY);
	ck_assert_uint_eq(f[1].dir, 1);
	ck_assert(f[1].by_psn);
	ck_assert_uint_eq(f[1].psn, 0x2002);	/* b sends from 0x2000 */
	ck_assert_uint_eq(f[1].count, 2);
	ck_assert_int_eq(f[1].delay_ns, 5000);
	ck_assert_int_eq(f[2].kind, RT_FAULT_MARK_CE);
	ck_assert_uint_eq(f[2].first, 5);
	ck_assert_uint_eq(f[2].last, 7);

	ck_assert_uint_eq(sc.n_expect, 2);
	ck_assert_int_eq(sc.expect[0].rule, RT_RULE_SEQ_ACK_AHEAD);
	ck_assert_uint_eq(sc.expect[0].frame, 0);
	ck_assert_int_eq(sc.expect[1].rule, RT_RULE_RSP_ACK);
	ck_assert_uint_eq(sc.expect[1].frame, 9);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(ipv6_defaults_follow_a_late_ip_line)
{
	struct rt_scenario sc;
	/* The node line comes before `ip 6`: its address default is still IPv6. */
	parse_ok("node a psn=5\nnode b ip=fd00::99\nip 6\n", &sc);
	static const uint8_t a_ip[16] = { 0xfd, [15] = 1 }, b_ip[16] = { 0xfd, [14] = 0, [15] = 0x99 };
	for (int n = 0; n < 2; n++)
		ck_assert_uint_eq(sc.sim.node[n].ip_version, 6);
	ck_assert_mem_eq(sc.sim.node[0].ip, a_ip, 16);
	ck_assert_mem_eq(sc.sim.node[1].ip, b_ip, 16);
	ck_assert_mem_eq(sc.sim.node[0].peer_ip, b_ip, 16);
	ck_assert_mem_eq(sc.sim.node[1].peer_ip, a_ip, 16);
	ck_assert_uint_eq(sc.sim.node[1].rq_psn, 5);
	rt_scenario_free(&sc);

	static const uint8_t b_default[16] = { 0xfd, [15] = 2 };
	parse_ok("ip 6\n", &sc);
	ck_assert_mem_eq(sc.sim.node[1].ip, b_default, 16);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(va_relative_absolute_and_resolved_late)
{
	struct rt_scenario sc;
	parse_ok("write a len=16 va=+4K\n"
		 "write a len=16 va=0x5\n"
		 "write a len=16\n"
		 "read b len=16 va=+16\n"
		 "node a va=0x900000 rkey=0x77\n",	/* after the lines that use them */
		 &sc);
	ck_assert_uint_eq(sc.n_actions, 32 + 4);
	ck_assert_uint_eq(send_wr(&sc, 32, 0)->remote_va, 0x20001000);
	ck_assert_uint_eq(send_wr(&sc, 32, 0)->rkey, 0xb001);
	ck_assert_uint_eq(send_wr(&sc, 33, 0)->remote_va, 5);
	ck_assert_uint_eq(send_wr(&sc, 34, 0)->remote_va, 0x20000000);
	ck_assert_uint_eq(send_wr(&sc, 35, 1)->remote_va, 0x900010);
	ck_assert_uint_eq(send_wr(&sc, 35, 1)->rkey, 0x77);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(count_expands_and_advances)
{
	struct rt_scenario sc;
	parse_ok("node a memory=4K recv=0\nnode b recv=0\n"
		 "write a len=1K count=5 va=+0x10 id=100 at=3us\n"
		 "send a len=10\n"
		 "fadd a add=1 count=2\n"
		 "read a len=64 offset=128 count=2\n",
		 &sc);
	ck_assert_uint_eq(sc.n_actions, 10);
	for (unsigned k = 0; k < 5; k++) {
		const struct rt_send_wr *w = send_wr(&sc, k, 0);
		ck_assert_int_eq(sc.actions[k].at_ns, 3000);
		ck_assert_int_eq(w->opcode, RT_WR_WRITE);
		ck_assert_uint_eq(w->wr_id, 100 + k);
		ck_assert_uint_eq(w->remote_va, 0x20000010 + 1024 * k);
		/* 4 KiB of memory: the fifth KiB wraps to 0. */
		ck_assert_uint_eq(w->local_offset, (1024 * k) % 4096);
	}
	/* Five requests took wr_ids 1..5 (the explicit ones count too). */
	ck_assert_uint_eq(send_wr(&sc, 5, 0)->wr_id, 6);
	ck_assert_uint_eq(send_wr(&sc, 5, 0)->local_offset, 1024);
	/* Atomics advance remote and local addresses by 8. */
	ck_assert_uint_eq(send_wr(&sc, 6, 0)->remote_va, 0x20000000);
	ck_assert_uint_eq(send_wr(&sc, 7, 0)->remote_va, 0x20000008);
	ck_assert_uint_eq(send_wr(&sc, 6, 0)->local_offset, 1034);
	ck_assert_uint_eq(send_wr(&sc, 7, 0)->local_offset, 1042);
	ck_assert_uint_eq(send_wr(&sc, 7, 0)->wr_id, 8);
	/* An explicit offset is the same for every copy; the remote address still advances. */
	ck_assert_uint_eq(send_wr(&sc, 8, 0)->local_offset, 128);
	ck_assert_uint_eq(send_wr(&sc, 9, 0)->local_offset, 128);
	ck_assert_uint_eq(send_wr(&sc, 9, 0)->remote_va, 0x20000040);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(offset_cursor_wraps_with_the_final_memory_size)
{
	struct rt_scenario sc;
	/* memory= comes after the work: the cursor uses the final size. */
	parse_ok("send a len=3K\nsend a len=2K\nsend a len=1K\nsend a len=1K\nsend a len=4K\nsend b len=4K\n"
		 "node a memory=4K recv=0\nnode b recv=0\n",
		 &sc);
	static const uint64_t want[] = { 0, 0, 2048, 3072, 0 };
	ck_assert_uint_eq(sc.n_actions, 6);
	for (unsigned i = 0; i < 5; i++)
		ck_assert_uint_eq(send_wr(&sc, i, 0)->local_offset, want[i]);
	/* Each node has its own cursor. */
	ck_assert_uint_eq(send_wr(&sc, 5, 1)->local_offset, 0);
	ck_assert_uint_eq(send_wr(&sc, 5, 1)->wr_id, 1);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(psn_relative_wraps_past_2_to_the_24)
{
	struct rt_scenario sc;
	parse_ok("node a psn=0xfffff0\n"
		 "fault a>b drop psn=+0x20\n"
		 "fault b>a dup psn=+3\n"
		 "fault a>b corrupt psn=0x123 count=4\n"
		 "fault b>a reorder packet=2\n"
		 "node b psn=0xffffff\n",
		 &sc);
	ck_assert_uint_eq(sc.sim.n_faults, 4);
	ck_assert(sc.sim.faults[0].by_psn);
	ck_assert_uint_eq(sc.sim.faults[0].psn, 0x10);
	ck_assert_uint_eq(sc.sim.faults[0].count, 1);
	ck_assert_int_eq(sc.sim.faults[1].kind, RT_FAULT_DUPLICATE);
	ck_assert_uint_eq(sc.sim.faults[1].psn, 2);
	ck_assert_int_eq(sc.sim.faults[2].kind, RT_FAULT_CORRUPT);
	ck_assert_uint_eq(sc.sim.faults[2].psn, 0x123);
	ck_assert_uint_eq(sc.sim.faults[2].count, 4);
	ck_assert_int_eq(sc.sim.faults[3].kind, RT_FAULT_REORDER);
	ck_assert_uint_eq(sc.sim.faults[3].first, 2);
	ck_assert_uint_eq(sc.sim.faults[3].last, 2);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(receives_count_on_from_the_initial_ones)
{
	struct rt_scenario sc;
	parse_ok("node a recv=0\nnode b recv=3\nrecv a count=2 at=5us\nrecv b\ncnp b\n", &sc);
	ck_assert_uint_eq(sc.n_actions, 7);
	assert_recv(&sc, 0, 1, 1, 0);
	assert_recv(&sc, 1, 1, 2, 0);
	assert_recv(&sc, 2, 1, 3, 0);
	assert_recv(&sc, 3, 0, 1, 5000);
	assert_recv(&sc, 4, 0, 2, 5000);
	assert_recv(&sc, 5, 1, 4, 0);
	ck_assert_int_eq(sc.actions[6].kind, RT_ACTION_CNP);
	ck_assert_uint_eq(sc.actions[6].node, 1);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(numbers_sizes_times_and_rates)
{
	struct rt_scenario sc;
	parse_ok("link delay=0.5ms rate=2.5G\nlimit 3s\nseed 0\n"
		 "node a ack_delay=250ns memory=2M recv_size=0x10K qpn=010 ackreq=1\n"
		 "node b ack_delay=1.000000000000000000000000s\n",
		 &sc);
	ck_assert_int_eq(sc.sim.delay_ns, 500000);
	ck_assert_uint_eq(sc.sim.rate_bps, 2500000000ull);
	ck_assert_int_eq(sc.sim.time_limit_ns, 3000000000ll);
	ck_assert_uint_eq(sc.sim.seed, 0);
	ck_assert_int_eq(sc.sim.node[0].ack_delay_ns, 250);
	ck_assert_uint_eq(sc.sim.node[0].mem_size, 2097152);
	ck_assert_uint_eq(sc.sim.node[0].recv_size, 16 * 1024);
	ck_assert_uint_eq(sc.sim.node[0].qpn, 10);	/* a leading zero is not octal */
	ck_assert_uint_eq(sc.sim.node[0].ackreq_every, 1);
	ck_assert_int_eq(sc.sim.node[1].ack_delay_ns, 1000000000);
	rt_scenario_free(&sc);

	parse_ok("link rate=500K\n", &sc);
	ck_assert_uint_eq(sc.sim.rate_bps, 500000);
	rt_scenario_free(&sc);
	parse_ok("link rate=100M\n", &sc);
	ck_assert_uint_eq(sc.sim.rate_bps, 100000000ull);
	ck_assert_int_eq(sc.sim.delay_ns, 1000);
	rt_scenario_free(&sc);
	parse_ok("link rate=1000\ntransport uc\n", &sc);
	ck_assert_uint_eq(sc.sim.rate_bps, 1000);
	ck_assert_uint_eq(sc.sim.node[1].transport, RT_TRANSPORT_UC);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(crlf_comments_blank_lines_and_long_lines)
{
	struct rt_scenario sc;
	parse_ok("description hi there\r\n\r\n   \t\r\nseed 5\r\n# send a len=x\r\nsend a len=8 # count=oops\r\n"
		 "send b len=1",	/* no newline at the end */
		 &sc);
	ck_assert_str_eq(sc.description, "hi there");
	ck_assert_uint_eq(sc.sim.seed, 5);
	ck_assert_uint_eq(sc.n_actions, 34);
	rt_scenario_free(&sc);

	/* A line far longer than any fixed buffer. */
	size_t blanks = 100000;
	char *text = malloc(blanks + 64);
	ck_assert_ptr_nonnull(text);
	memset(text, ' ', blanks);
	strcpy(text + blanks, "seed 3\t\t\n");
	parse_ok(text, &sc);
	ck_assert_uint_eq(sc.sim.seed, 3);
	rt_scenario_free(&sc);

	/* The description holds 255 characters. */
	char desc[300] = "description ";
	memset(desc + strlen(desc), 'x', 255);
	parse_ok(desc, &sc);
	ck_assert_uint_eq(strlen(sc.description), 255);
	rt_scenario_free(&sc);
	strcat(desc, "y");
	struct rt_error err;
	parse_fails(desc, strlen(desc), &err);
	ck_assert_str_eq(err.msg, NAME ":1: description: longer than 255 characters");
	free(text);
}
END_TEST

START_TEST(text_need_not_end_in_nul_and_nul_bytes_are_refused)
{
	struct rt_scenario sc;
	struct rt_error err;
	/* Only the first 6 bytes count: "seed 4", not "seed 42". */
	ck_assert_int_eq(rt_scenario_parse(NAME, "seed 42", 6, &sc, &err), 0);
	ck_assert_uint_eq(sc.sim.seed, 4);
	rt_scenario_free(&sc);

	static const char with_nul[] = "seed 1\nse\0ed 2\n";
	parse_fails(with_nul, sizeof with_nul - 1, &err);
	ck_assert_str_eq(err.msg, NAME ":2: NUL byte: not a text file");
}
END_TEST

START_TEST(free_is_safe_on_zeroed_failed_and_freed)
{
	struct rt_scenario sc;
	memset(&sc, 0, sizeof sc);
	rt_scenario_free(&sc);
	rt_scenario_free(NULL);
	struct rt_error err;
	ck_assert_int_eq(rt_scenario_parse(NAME, "send a len=1\nbogus", 18, &sc, &err), -1);
	rt_scenario_free(&sc);
	parse_ok("send a len=1\n", &sc);
	rt_scenario_free(&sc);
	rt_scenario_free(&sc);
	ck_assert_ptr_null(sc.actions);
}
END_TEST

START_TEST(name_drops_directory_and_extension)
{
	struct rt_scenario sc;
	struct rt_error err;
	ck_assert_int_eq(rt_scenario_parse("a/b/send-only.scn", "", 0, &sc, &err), 0);
	ck_assert_str_eq(sc.name, "send-only");
	rt_scenario_free(&sc);
	ck_assert_int_eq(rt_scenario_parse("plain", "", 0, &sc, &err), 0);
	ck_assert_str_eq(sc.name, "plain");
	rt_scenario_free(&sc);
	ck_assert_int_eq(rt_scenario_parse(".scn", "", 0, &sc, &err), 0);
	ck_assert_str_eq(sc.name, ".scn");
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(load_reads_a_file)
{
	char path[] = "/tmp/rocetest-scenario-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	/* Bigger than the first read buffer, so the reader has to grow it. */
	FILE *f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "# padding line %d to make the file longer than one read\n", i);
	fprintf(f, "description loaded\nsend a len=64\nbogus line\n");
	fclose(f);

	struct rt_scenario sc;
	struct rt_error err;
	ck_assert_int_eq(rt_scenario_load(path, &sc, &err), -1);
	char want[128];
	snprintf(want, sizeof want, "%s:1003: unknown directive 'bogus'", path);
	ck_assert_msg(!strncmp(err.msg, want, strlen(want)), "got: %s", err.msg);
	rt_scenario_free(&sc);

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "description loaded\nsend a len=64\n");
	fclose(f);
	ck_assert_int_eq(rt_scenario_load(path, &sc, &err), 0);
	ck_assert_str_eq(sc.name, strrchr(path, '/') + 1);
	ck_assert_str_eq(sc.description, "loaded");
	ck_assert_uint_eq(sc.n_actions, 33);
	rt_scenario_free(&sc);
	unlink(path);

	ck_assert_int_eq(rt_scenario_load(path, &sc, &err), -1);
	snprintf(want, sizeof want, "%s: cannot read: %s", path, strerror(ENOENT));
	ck_assert_str_eq(err.msg, want);
	rt_scenario_free(&sc);
	ck_assert_int_eq(rt_scenario_load("/tmp", &sc, &err), -1);
	snprintf(want, sizeof want, "/tmp: cannot read: %s", strerror(EISDIR));
	ck_assert_str_eq(err.msg, want);
	rt_scenario_free(&sc);
}
END_TEST

/* One malformed input: the message must start with prefix and contain phrase. */
struct bad {
	const char *text;
	const char *prefix;
	const char *phrase;
};

#define L1 NAME ":1: "
#define L2 NAME ":2: "
static const struct bad bad_inputs[] = {
	{ "frobnicate 1", L1 "unknown directive 'frobnicate'", "(directives: description, seed," },
	{ "\n\nsend a lenght=5", NAME ":3: send: unknown key 'lenght' (keys: len, imm, inv, offset, at, count, id)", "" },
	{ "send a len=1 va=5", L1 "send: unknown key 'va'", "(keys: len, imm, inv," },
	{ "pmtu 1024 x=1", L1 "pmtu: unknown key 'x'", "(pmtu takes no keys)" },
	{ "node a qpm=5", L1 "node: unknown key 'qpm'", "keys: mac, ip, roce, qpn, psn," },
	{ "send a len=5 len=6", L1 "send: ", "key 'len' appears twice" },
	{ "send a", L1 "send: ", "missing len=" },
	{ "write b va=+0", L1 "write: ", "missing len=" },
	{ "read a", L1 "read: ", "missing len=" },
	{ "cas a compare=1", L1 "cas: ", "missing swap=" },
	{ "cas a swap=1", L1 "cas: ", "missing compare=" },
	{ "fadd a", L1 "fadd: ", "missing add=" },
	{ "send", L1 "send: ", "missing node (a or b)" },
	{ "send len=4", L1 "send: ", "missing node (a or b)" },
	{ "send c len=1", L1 "send: ", "'c' is not a node (a or b)" },
	{ "node", L1 "node: ", "missing node" },
	{ "send a len=5 6", L1 "send: ", "unexpected word '6'" },
	{ "send a len", L1 "send: ", "'len' needs a value (len=...)" },
	{ "send a len=", L1 "send: len: ", "missing value" },
	{ "pmtu", L1 "pmtu: ", "missing value" },
	{ "seed", L1 "seed: ", "missing value" },
	{ "description   # just a comment", L1 "description: ", "missing text" },
	{ "fault a>b", L1 "fault: ", "missing kind" },
	{ "bug a", L1 "bug: ", "missing bug name" },
	{ "expect", L1 "expect: ", "missing 'clean' or a rule ID" },
	{ "pmtu 1000", L1 "pmtu: ", "1000 is not 256, 512, 1024, 2048 or 4096" },
	{ "pmtu 8192", L1 "pmtu: ", "is not 256" },
	{ "pmtu 128", L1 "pmtu: ", "is not 256" },
	{ "pmtu x", L1 "pmtu: ", "bad number 'x'" },
	{ "seed -1", L1 "seed: ", "bad number '-1'" },
	{ "seed 0x", L1 "seed: ", "bad number '0x'" },
	{ "seed 99999999999999999999", L1 "seed: ", "99999999999999999999 out of range" },
	{ "seed 1\nseed 2", L2 "seed: ", "repeated (first on line 1)" },
	{ "transport rc\n#\ntransport rc", NAME ":3: transport: ", "repeated (first on line 1)" },
	{ "link\nlink", L2 "link: ", "repeated" },
	{ "transport ib", L1 "transport: ", "'ib' is not rc, uc or ud" },
	{ "ip 5", L1 "ip: ", "'5' is not 4 or 6" },
	{ "capture c", L1 "capture: ", "'c' is not receiver, a or b" },
	{ "vlan 0", L1 "vlan: ", "0 out of range (1..4094)" },
	{ "vlan 4095", L1 "vlan: ", "4095 out of range (1..4094)" },
	{ "vlan 5 pcp=8", L1 "vlan: pcp: ", "8 out of range (0..7)" },
	{ "node a qpn=1", L1 "node: qpn: ", "1 out of range (2..0xffffff)" },
	{ "node a qpn=0", L1 "node: qpn: ", "out of range" },
	{ "node b qpn=0x1000000", L1 "node: qpn: ", "0x1000000 out of range (2..0xffffff)" },
	{ "node a psn=0x1000000", L1 "node: psn: ", "out of range (0..0xffffff)" },
	{ "node a timeout=32", L1 "node: timeout: ", "32 out of range (0..31)" },
	{ "node b rnr_timer=32", L1 "node: rnr_timer: ", "out of range (0..31)" },
	{ "node a retry_cnt=8", L1 "node: retry_cnt: ", "8 out of range (0..7)" },
	{ "node a rnr_retry=8", L1 "node: rnr_retry: ", "out of range (0..7)" },
	{ "node a credits=32", L1 "node: credits: ", "out of range (0..31)" },
	{ "node a tos=256", L1 "node: tos: ", "out of range (0..255)" },
	{ "node a sport=0x10000", L1 "node: sport: ", "out of range (0..65535)" },
	{ "node a qkey=0x100000000", L1 "node: qkey: ", "out of range (0..0xffffffff)" },
	{ "node a window=0", L1 "node: window: ", "0 out of range (1..0xffffffff)" },
	{ "node a ack_every=0", L1 "node: ack_every: ", "out of range (1..0xffffffff)" },
	{ "node a max_rd_atomic=0", L1 "node: max_rd_atomic: ", "out of range" },
	{ "node a ackreq=0", L1 "node: ackreq: ", "0 out of range (1..0xffffffff)" },
	{ "node a ackreq=first", L1 "node: ackreq: ", "bad number 'first'" },
	{ "node a memory=4096M", L1 "node: memory: ", "4096M out of range (0..0xffffffff)" },
	{ "node a memory=64k", L1 "node: memory: ", "bad size '64k' (a number with an optional K or M suffix)" },
	{ "node a cnp=maybe", L1 "node: cnp: ", "'maybe' is not on or off" },
	{ "node a recv=65", NAME ":1: node: ", "node a: recv 65 > rq_depth 64" },
	{ "node b recv=10\nnode b rq_depth=8", L2 "node: ", "node b: recv 10 > rq_depth 8" },
	{ "node a mac=02:00:00:00:00", L1 "node: mac: ", "bad MAC address '02:00:00:00:00' (xx:xx:xx:xx:xx:xx)" },
	{ "node a mac=02:00:00:00:00:0g", L1 "node: mac: ", "bad MAC address" },
	{ "node a mac=02:00:00:00:00:000", L1 "node: mac: ", "bad MAC address" },
	{ "node a mac=02-00-00-00-00-00", L1 "node: mac: ", "bad MAC address" },
	{ "node a ip=10.0.0.256", L1 "node: ip: ", "bad IP address '10.0.0.256'" },
	{ "node a ip=fd00::1", L1 "node: ip: ", "an IPv6 address, but the scenario is IPv4" },
	{ "ip 6\nnode b ip=10.0.0.9", L2 "node: ip: ", "an IPv4 address, but the scenario is IPv6" },
	{ "link delay=5", L1 "link: delay: ", "time '5' needs a unit (ns, us, ms or s)" },
	{ "link delay=5xs", L1 "link: delay: ", "bad time '5xs'" },
	{ "link delay=us", L1 "link: delay: ", "bad time 'us'" },
	{ "link delay=.5us", L1 "link: delay: ", "bad time" },
	{ "link delay=5.us", L1 "link: delay: ", "bad time" },
	{ "link delay=1.5ns", L1 "link: delay: ", "time '1.5ns' is finer than 1 ns" },
	{ "link delay=10000000000s", L1 "link: delay: ", "out of range" },
	{ "link delay=100000000000s", L1 "link: delay: ", "out of range" },
	{ "link delay=123456789012345678901234ns", L1 "link: delay: ", "out of range" },
	{ "link delay=1.0000000001s", L1 "link: delay: ", "finer than 1 ns" },
	{ "node a ack_delay=5", L1 "node: ack_delay: ", "needs a unit" },
	{ "node c qpn=5", L1 "node: ", "'c' is not a node (a or b)" },
	{ "node a mac=0", L1 "node: mac: ", "bad MAC address '0'" },
	{ "node a mac=g2:00:00:00:00:00", L1 "node: mac: ", "bad MAC address" },
	{ "recv c", L1 "recv: ", "'c' is not a node" },
	{ "cnp a at=x", L1 "cnp: at: ", "bad time 'x'" },
	{ "cnp a count=2", L1 "cnp: ", "unknown key 'count' (keys: at)" },
	{ "write a len=8 va=+0x40000000000000K", L1 "write: va: ", "out of range" },
	{ "link rate=fast", L1 "link: rate: ", "bad rate 'fast'" },
	{ "link rate=0G", L1 "link: rate: ", "out of range" },
	{ "link rate=1.5", L1 "link: rate: ", "finer than 1 bit/s" },
	{ "limit 0s", L1 "limit: ", "must be more than 0" },
	{ "limit 10", L1 "limit: ", "needs a unit" },
	{ "send a len=8 at=5", L1 "send: at: ", "time '5' needs a unit" },
	{ "send a len=5 imm=1 inv=2", L1 "send: ", "imm= and inv= exclude each other" },
	{ "send a len=2049M", L1 "send: len: ", "2049M out of range (0..0x80000000)" },
	{ "send a len=3G", L1 "send: len: ", "bad size '3G'" },
	{ "send a len=8 count=0", L1 "send: count: ", "0 out of range (1..0x10000)" },
	{ "recv a count=70000", L1 "recv: count: ", "out of range" },
	{ "write a len=8 rkey=0x100000000", L1 "write: rkey: ", "out of range (0..0xffffffff)" },
	{ "write a len=8 va=+x", L1 "write: va: ", "bad size 'x'" },
	{ "send a len=8 imm=0x100000000", L1 "send: imm: ", "out of range" },
	{ "send a len=8 id=x", L1 "send: id: ", "bad number 'x'" },
	{ "node a memory=1K\nsend a len=2K", L2 "send: ", "len 2048 > memory 1024 of node a" },
	{ "write b len=1K offset=64K", L1 "write: ", "offset 65536 + len 1024 > memory 65536 of node b" },
	{ "cas a compare=1 swap=2\nnode a memory=4", L1 "cas: ", "len 8 > memory 4 of node a" },
	{ "transport ud\nsend a len=2000", NAME ":2: send: UD messages fit one packet: len 2000 > pmtu 1024", "" },
	{ "send a len=600\npmtu 512\ntransport ud", L1 "send: ", "UD messages fit one packet: len 600 > pmtu 512" },
	{ "transport ud\nwrite a len=8", L2 "write: ", "UD carries SEND only" },
	{ "transport ud\ncas a compare=1 swap=1", L2 "cas: ", "UD carries SEND only" },
	{ "transport uc\nread a len=8", L2 "read: ", "UC carries SEND and WRITE only" },
	{ "transport uc\nfadd b add=1", L2 "fadd: ", "UC carries SEND and WRITE only" },
	{ "transport uc\nsend a len=8 inv=1", L2 "send: ", "SEND with invalidate is RC only" },
	{ "fault a>b drop", L1 "fault: ", "missing packet= or psn=" },
	{ "fault a>b drop packet=1 psn=1", L1 "fault: ", "packet= and psn= exclude each other" },
	{ "fault a>b delay packet=1", L1 "fault: ", "delay needs by=T" },
	{ "fault a>b drop packet=1 by=1us", L1 "fault: ", "by= goes with delay only" },
	{ "fault a>b delay packet=1 by=1", L1 "fault: by: ", "needs a unit" },
	{ "fault a>b drop packet=1 count=2", L1 "fault: ", "count= goes with psn=" },
	{ "fault a>c drop packet=1", L1 "fault: ", "'a>c' is not a direction (a>b or b>a)" },
	{ "fault a>b smash packet=1", L1 "fault: ", "'smash' is not a fault (drop, dup, reorder, delay, corrupt, ce or miss)" },
	{ "fault a>b miss", L1 "fault: ", "missing packet= or psn=" },
	{ "fault b>a miss packet=2 by=1us", L1 "fault: ", "by= goes with delay only" },
	{ "capture a skew=5", L1 "capture: skew: ", "time '5' needs a unit" },
	{ "capture b skew=x", L1 "capture: skew: ", "bad time 'x'" },
	{ "\ncapture receiver skew=1us", L2 "capture: skew: ", "needs a capture at a node's port (capture a or capture b)" },
	{ "capture a lag=1us", L1 "capture: ", "unknown key 'lag' (keys: skew)" },
	{ "node a roce=3", L1 "node: roce: ", "3 out of range (1..2)" },
	{ "node b roce=0", L1 "node: roce: ", "0 out of range (1..2)" },
	{ "node a roce=v1", L1 "node: roce: ", "bad number 'v1'" },
	{ "bug a psn-in-read\nbug a skip-psn", L2 "bug: ", "node a already has a bug (line 1)" },
	{ "fault a>b drop packet=0", L1 "fault: packet: ", "0 out of range" },
	{ "fault a>b drop packet=5-3", L1 "fault: packet: ", "5-3 out of range" },
	{ "fault a>b drop packet=1-0x100000000", L1 "fault: packet: ", "out of range" },
	{ "fault a>b drop packet=x-3", L1 "fault: packet: ", "bad frame range 'x-3' (N or N-M)" },
	{ "fault a>b drop packet=3-", L1 "fault: packet: ", "bad frame range" },
	{ "fault a>b drop psn=0x1000000", L1 "fault: psn: ", "out of range (0..0xffffff)" },
	{ "fault a>b drop psn=+x", L1 "fault: psn: ", "bad number 'x'" },
	{ "fault a>b drop psn=1 count=0", L1 "fault: count: ", "out of range" },
	{ "expect clean\nexpect PKT-ICRC frame=1", L2 "expect: ", "a violation, but line 1 expects clean" },
	{ "expect PKT-ICRC frame=1\nexpect clean", L2 "expect: ", "clean, but line 1 expects a violation" },
	{ "expect clean frame=2", L1 "expect: ", "frame= goes with a rule ID" },
	{ "expect XYZ-ICRC", L1 "expect: ", "unknown rule 'XYZ-ICRC'" },
	{ "expect PKT-ICRC frame=0", L1 "expect: frame: ", "out of range" },
	{ "expect PKT-ICRC", L1 "expect: ", "PKT-ICRC without frame= names the frame carrying the bug, but there is no bug line" },
	{ "bug a frobnicate", L1 "bug: ", "unknown bug 'frobnicate' (bugs: bad-icrc, bad-pad, tver," },
	{ "bug a none", L1 "bug: ", "unknown bug 'none'" },
	{ "bug a bad-icrc\nbug a tver", L2 "bug: ", "node a already has a bug (line 1)" },
	{ "bug c tver", L1 "bug: ", "'c' is not a node (a or b)" },
	{ "bug a bad-icrc at=0", L1 "bug: at: ", "0 out of range" },
	{ "node a recv=300000 rq_depth=300000", NAME ": 300016 actions", "at most 262144" },
};

START_TEST(malformed_input_is_reported_with_its_line)
{
	const struct bad *b = &bad_inputs[_i];
	struct rt_error err;
	parse_fails(b->text, strlen(b->text), &err);
	ck_assert_msg(!strncmp(err.msg, b->prefix, strlen(b->prefix)), "input:\n%s\nwant prefix: %s\ngot: %s", b->text,
		      b->prefix, err.msg);
	ck_assert_msg(strstr(err.msg, b->phrase) != NULL, "input:\n%s\nwant phrase: %s\ngot: %s", b->text, b->phrase,
		      err.msg);
}
END_TEST

/* Builds n copies of line into a heap string. */
static char *repeat(const char *line, unsigned n)
{
	size_t len = strlen(line);
	char *text = malloc(len * n + 1);
	ck_assert_ptr_nonnull(text);
	for (unsigned i = 0; i < n; i++)
		memcpy(text + i * len, line, len);
	text[len * n] = '\0';
	return text;
}

START_TEST(limits_on_faults_expectations_and_work)
{
	struct rt_scenario sc;
	struct rt_error err;
	char *text = repeat("fault a>b drop packet=1\n", RT_SIM_MAX_FAULTS);
	parse_ok(text, &sc);
	ck_assert_uint_eq(sc.sim.n_faults, RT_SIM_MAX_FAULTS);
	rt_scenario_free(&sc);
	free(text);
	text = repeat("fault a>b drop packet=1\n", RT_SIM_MAX_FAULTS + 1);
	parse_fails(text, strlen(text), &err);
	ck_assert_str_eq(err.msg, NAME ":17: fault: more than 16 faults");
	free(text);

	text = repeat("expect PKT-ICRC frame=3\n", RT_SCENARIO_MAX_EXPECT);
	parse_ok(text, &sc);
	ck_assert_uint_eq(sc.n_expect, RT_SCENARIO_MAX_EXPECT);
	ck_assert_uint_eq(sc.expect[7].frame, 3);
	rt_scenario_free(&sc);
	free(text);
	text = repeat("expect PKT-ICRC frame=3\n", RT_SCENARIO_MAX_EXPECT + 1);
	parse_fails(text, strlen(text), &err);
	ck_assert_str_eq(err.msg, NAME ":9: expect: more than 8 expected violations");
	free(text);

	/* Four lines of 65536 are the most; the fifth is refused on its own line. */
	text = repeat("send a len=0 count=65536\n", 5);
	parse_fails(text, strlen(text), &err);
	ck_assert_str_eq(err.msg, NAME ":5: send: more than 262144 work requests in one scenario");
	free(text);
}
END_TEST

START_TEST(ud_and_uc_take_what_they_carry)
{
	struct rt_scenario sc;
	parse_ok("transport ud\nnode a recv=0\nnode b recv=0\nsend a len=1024 imm=7\nsend b len=0\n", &sc);
	ck_assert_uint_eq(sc.n_actions, 2);
	ck_assert_int_eq(send_wr(&sc, 0, 0)->opcode, RT_WR_SEND_IMM);
	ck_assert_uint_eq(send_wr(&sc, 0, 0)->length, 1024);
	ck_assert_int_eq(send_wr(&sc, 1, 1)->opcode, RT_WR_SEND);
	ck_assert_uint_eq(sc.sim.node[0].transport, RT_TRANSPORT_UD);
	rt_scenario_free(&sc);
	parse_ok("transport uc\nnode a recv=0\nnode b recv=0\nwrite a len=8K imm=1\nsend b len=5K\n", &sc);
	ck_assert_int_eq(send_wr(&sc, 0, 0)->opcode, RT_WR_WRITE_IMM);
	ck_assert_int_eq(send_wr(&sc, 1, 1)->opcode, RT_WR_SEND);
	rt_scenario_free(&sc);
}
END_TEST

/* The capture's skew, RoCE v1 ends, miss faults and the psn-in-read misbehaviour land where they belong. */
START_TEST(capture_skew_roce_miss_and_psn_in_read)
{
	struct rt_scenario sc;
	parse_ok("", &sc);
	ck_assert_int_eq(sc.sim.tap_skew_ns, 0);
	ck_assert_uint_eq(sc.sim.node[0].roce_version, 2);
	ck_assert_uint_eq(sc.sim.node[1].roce_version, 2);
	rt_scenario_free(&sc);
	parse_ok("capture b skew=2.5us\n"
		 "node a roce=1\n"
		 "node b roce=2\n"
		 "fault b>a miss packet=3-4\n"
		 "fault a>b miss psn=+2 count=2\n"
		 "bug a psn-in-read at=2\n",
		 &sc);
	ck_assert_int_eq(sc.sim.tap, RT_TAP_B);
	ck_assert_int_eq(sc.sim.tap_skew_ns, 2500);
	ck_assert_uint_eq(sc.sim.node[0].roce_version, 1);
	ck_assert_uint_eq(sc.sim.node[1].roce_version, 2);
	ck_assert_uint_eq(sc.sim.n_faults, 2);
	ck_assert_int_eq(sc.sim.faults[0].kind, RT_FAULT_MISS);
	ck_assert_uint_eq(sc.sim.faults[0].dir, 1);
	ck_assert_uint_eq(sc.sim.faults[0].first, 3);
	ck_assert_uint_eq(sc.sim.faults[0].last, 4);
	ck_assert_int_eq(sc.sim.faults[1].kind, RT_FAULT_MISS);
	ck_assert(sc.sim.faults[1].by_psn);
	ck_assert_uint_eq(sc.sim.faults[1].psn, 0x1002);
	ck_assert_uint_eq(sc.sim.faults[1].count, 2);
	ck_assert_int_eq(sc.sim.node[0].bug, RT_BUG_PSN_IN_READ);
	ck_assert_uint_eq(sc.sim.node[0].bug_at, 2);
	rt_scenario_free(&sc);
	/* A skew of 0 is no skew. */
	parse_ok("capture a skew=0ns\n", &sc);
	ck_assert_int_eq(sc.sim.tap_skew_ns, 0);
	rt_scenario_free(&sc);
}
END_TEST

START_TEST(expectation_without_frame_takes_the_bug)
{
	struct rt_scenario sc;
	parse_ok("expect PKT-TVER\nbug a tver\n", &sc);
	ck_assert_uint_eq(sc.n_expect, 1);
	ck_assert_int_eq(sc.expect[0].rule, RT_RULE_PKT_TVER);
	ck_assert_uint_eq(sc.expect[0].frame, 0);
	ck_assert_int_eq(sc.sim.node[0].bug, RT_BUG_TVER);
	ck_assert_uint_eq(sc.sim.node[0].bug_at, 1);
	rt_scenario_free(&sc);
	parse_ok("expect clean\nexpect clean\n", &sc);
	ck_assert_uint_eq(sc.n_expect, 0);
	rt_scenario_free(&sc);
}
END_TEST

Suite *scenario_suite(void)
{
	Suite *s = suite_create("scenario");
	TCase *ok = tcase_create("parse");
	tcase_add_test(ok, empty_file_has_the_readme_defaults);
	tcase_add_test(ok, full_scenario_sets_every_field);
	tcase_add_test(ok, ipv6_defaults_follow_a_late_ip_line);
	tcase_add_test(ok, va_relative_absolute_and_resolved_late);
	tcase_add_test(ok, count_expands_and_advances);
	tcase_add_test(ok, offset_cursor_wraps_with_the_final_memory_size);
	tcase_add_test(ok, psn_relative_wraps_past_2_to_the_24);
	tcase_add_test(ok, receives_count_on_from_the_initial_ones);
	tcase_add_test(ok, numbers_sizes_times_and_rates);
	tcase_add_test(ok, crlf_comments_blank_lines_and_long_lines);
	tcase_add_test(ok, text_need_not_end_in_nul_and_nul_bytes_are_refused);
	tcase_add_test(ok, free_is_safe_on_zeroed_failed_and_freed);
	tcase_add_test(ok, name_drops_directory_and_extension);
	tcase_add_test(ok, load_reads_a_file);
	tcase_add_test(ok, ud_and_uc_take_what_they_carry);
	tcase_add_test(ok, expectation_without_frame_takes_the_bug);
	tcase_add_test(ok, capture_skew_roce_miss_and_psn_in_read);
	suite_add_tcase(s, ok);

	TCase *bad = tcase_create("errors");
	tcase_add_loop_test(bad, malformed_input_is_reported_with_its_line, 0,
			    (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
	tcase_add_test(bad, limits_on_faults_expectations_and_work);
	suite_add_tcase(s, bad);
	return s;
}
