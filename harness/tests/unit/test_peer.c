/* SPDX-License-Identifier: MIT */
/*
 * rocetest peer's library side (harness/lib/run/peer_*.c): the GID choice on
 * tables shaped as rxe and mlx5 list them, the CM exchange against a
 * scripted board behind a fake transport, the QP attributes, the
 * generator's messages and data, the rates.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/peer.h"
#include "suites.h"

/* ---- GID choice ---------------------------------------------------------- */

#define IP_HOST 0x0A000002u	/* 10.0.0.2 */
#define IP_OTHER 0xC0A80105u	/* 192.168.1.5 */

static struct rt_gid_entry gid(unsigned index, enum rt_gid_type type, uint32_t ipv4)
{
	struct rt_gid_entry e = { .index = index, .type = type };
	if (ipv4) {
		e.gid[10] = e.gid[11] = 0xFF;
		for (int i = 0; i < 4; i++)
			e.gid[12 + i] = (uint8_t)(ipv4 >> (24 - 8 * i));
	} else {
		e.gid[0] = 0xFE;
		e.gid[1] = 0x80;
		e.gid[15] = 0x01;
	}
	snprintf(e.netdev, sizeof e.netdev, "veth0");
	return e;
}

/* rxe's table: the link-local address (v1, v2), then an IPv4 address (v1, v2). */
static void rxe_table(struct rt_gid_entry t[4])
{
	t[0] = gid(0, RT_GID_ROCE_V1, 0);
	t[1] = gid(1, RT_GID_ROCE_V2, 0);
	t[2] = gid(2, RT_GID_ROCE_V1, IP_HOST);
	t[3] = gid(3, RT_GID_ROCE_V2, IP_HOST);
}

START_TEST(gid_default_is_v2_ipv4)
{
	struct rt_gid_entry t[4];
	struct rt_gid_choice c;
	struct rt_error err;
	rxe_table(t);
	ck_assert_int_eq(rt_gid_choose(t, 4, -1, 0, &c, &err), 0);
	ck_assert_uint_eq(c.index, 3);
	ck_assert_uint_eq(c.ip, IP_HOST);
	ck_assert_ptr_nonnull(strstr(c.why, "only RoCE v2 entry with an IPv4-mapped address"));
	/* The entry wanted by address. */
	ck_assert_int_eq(rt_gid_choose(t, 4, -1, IP_HOST, &c, &err), 0);
	ck_assert_uint_eq(c.index, 3);
	ck_assert_int_eq(rt_gid_choose(t, 4, -1, IP_OTHER, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "192.168.1.5"));
}
END_TEST

START_TEST(gid_several_and_by_address)
{
	struct rt_gid_entry t[6];
	struct rt_gid_choice c;
	struct rt_error err;
	rxe_table(t);
	t[4] = gid(4, RT_GID_ROCE_V1, IP_OTHER);
	t[5] = gid(5, RT_GID_ROCE_V2, IP_OTHER);
	ck_assert_int_eq(rt_gid_choose(t, 6, -1, 0, &c, &err), 0);
	ck_assert_uint_eq(c.index, 3);
	ck_assert_ptr_nonnull(strstr(c.why, "first"));
	ck_assert_ptr_nonnull(strstr(c.why, "1 more"));
	ck_assert_int_eq(rt_gid_choose(t, 6, -1, IP_OTHER, &c, &err), 0);
	ck_assert_uint_eq(c.index, 5);
	ck_assert_uint_eq(c.ip, IP_OTHER);
}
END_TEST

START_TEST(gid_forced)
{
	struct rt_gid_entry t[4];
	struct rt_gid_choice c;
	struct rt_error err;
	rxe_table(t);
	ck_assert_int_eq(rt_gid_choose(t, 4, 3, 0, &c, &err), 0);
	ck_assert_uint_eq(c.index, 3);
	/* Index 0, rxe's first: RoCE v1, the most common wrong choice. */
	ck_assert_int_eq(rt_gid_choose(t, 4, 0, 0, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "GID index 0 is RoCE v1"));
	ck_assert_int_eq(rt_gid_choose(t, 4, 2, 0, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "RoCE v1"));
	ck_assert_int_eq(rt_gid_choose(t, 4, 1, 0, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "IPv6"));
	ck_assert_int_eq(rt_gid_choose(t, 4, 9, 0, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not in the port's table"));
}
END_TEST

START_TEST(gid_none_usable)
{
	struct rt_gid_entry t[4];
	struct rt_gid_choice c;
	struct rt_error err;
	rxe_table(t);	/* its first two, the link-local pair: the interface has no IPv4 address */
	ck_assert_int_eq(rt_gid_choose(t, 2, -1, 0, &c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "ip addr add"));
	ck_assert_int_eq(rt_gid_choose(t, 0, -1, 0, &c, &err), -1);
}
END_TEST

START_TEST(gid_format)
{
	struct rt_gid_entry t[4];
	char buf[512], g[40];
	uint32_t ip;
	rxe_table(t);
	ck_assert(rt_gid_ipv4(t[3].gid, &ip));
	ck_assert_uint_eq(ip, IP_HOST);
	ck_assert(!rt_gid_ipv4(t[1].gid, &ip));
	ck_assert_str_eq(rt_gid_format(t[3].gid, g), "0000:0000:0000:0000:0000:ffff:0a00:0002");
	rt_gid_table_format(t, 4, buf, sizeof buf);
	ck_assert_str_eq(buf, "    0  RoCE v1  fe80:0000:0000:0000:0000:0000:0000:0001  -                veth0\n"
			      "    1  RoCE v2  fe80:0000:0000:0000:0000:0000:0000:0001  -                veth0\n"
			      "    2  RoCE v1  0000:0000:0000:0000:0000:ffff:0a00:0002  10.0.0.2         veth0\n"
			      "    3  RoCE v2  0000:0000:0000:0000:0000:ffff:0a00:0002  10.0.0.2         veth0\n");
	rt_gid_table_format(t, 4, buf, 20);	/* cut, never overrun */
	ck_assert_uint_eq(strlen(buf), 19);
}
END_TEST

/* ---- The CM exchange, against a scripted board ------------------------------ */

#define BOARD_IP 0x0A000001u
#define MAX_SENT 16

struct fake_board {
	struct rt_cm_msg sent[MAX_SENT];	/* what the host sent */
	unsigned n_sent;
	unsigned drop;			/* requests to leave unanswered first */
	unsigned strays;		/* datagrams to deliver before each reply */
	uint8_t answer;			/* the ack_type of every reply */
	bool wrong_echo, no_qpn;
	bool pending;
	struct rt_cm_msg reply;
	unsigned stray_left;
};

static int fake_send(void *ctx, const uint8_t payload[RT_CM_PAYLOAD_BYTES], struct rt_error *err)
{
	struct fake_board *b = ctx;
	(void)err;
	struct rt_cm_msg m;
	rt_cm_decode(payload, &m);
	ck_assert_uint_lt(b->n_sent, MAX_SENT);
	b->sent[b->n_sent++] = m;
	if (b->drop) {
		b->drop--;
		return 0;
	}
	/* As roce_cm answers: the request echoed with ack fields, the board's QP in loc_*. */
	b->reply = m;
	b->reply.ack_valid = true;
	b->reply.ack_type = b->answer;
	if (m.req_type == RT_CM_OPEN_QP) {
		b->reply.loc_qpn = b->no_qpn ? 0 : 0x100;
		b->reply.loc_psn = 0xABCDEF;
		b->reply.loc_rkey = 0x1234;
		b->reply.loc_base = 0x123400000ull;
	}
	if (b->wrong_echo)
		b->reply.rem_psn ^= 1;
	b->pending = true;
	b->stray_left = b->strays;
	return 0;
}

static int fake_recv(void *ctx, uint8_t *buf, size_t size, size_t *len, uint32_t *src_ip, uint16_t *src_port,
		     unsigned timeout_ms, struct rt_error *err)
{
	struct fake_board *b = ctx;
	(void)timeout_ms;
	(void)err;
	ck_assert_uint_ge(size, RT_CM_PAYLOAD_BYTES);
	if (!b->pending)
		return 0;
	*src_ip = BOARD_IP;
	*src_port = RT_CM_REPLY_PORT;
	*len = RT_CM_PAYLOAD_BYTES;
	struct rt_cm_msg m = b->reply;
	if (b->stray_left) {
		/* One of each: another port, another host, a short datagram, a request (no ack_valid). */
		unsigned kind = b->stray_left-- % 4;
		*src_port = kind == 0 ? 0x4321 : RT_CM_REPLY_PORT;
		*src_ip = kind == 1 ? BOARD_IP + 1 : BOARD_IP;
		*len = kind == 2 ? 60 : RT_CM_PAYLOAD_BYTES;
		m.ack_valid = kind != 3;
		m.ack_type = RT_CM_ACK;
	} else {
		b->pending = false;
	}
	rt_cm_encode(&m, buf);
	return 1;
}

static const struct rt_peer_host HOST = { .qpn = 0x11, .psn = 0x222, .rkey = 0x33334444, .base = 0x7F0000001000ull,
					  .ip = IP_HOST, .port = 0x4322 };

static void fake_cm(struct rt_peer_cm *cm, struct fake_board *b, unsigned attempts)
{
	struct rt_peer_transport t = { .ctx = b, .send = fake_send, .recv = fake_recv };
	memset(b, 0, sizeof *b);
	b->answer = RT_CM_ACK;
	rt_peer_cm_init(cm, &t, BOARD_IP, &HOST, 10, attempts);
}

START_TEST(cm_whole_exchange)
{
	struct rt_peer_cm cm;
	struct fake_board b;
	struct rt_error err;
	fake_cm(&cm, &b, 3);
	b.strays = 4;
	const struct rt_peer_traffic tr = { .count = 7, .length = 3000, .write = true, .imm = true, .frequency = 9 };
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_uint_eq(cm.board.qpn, 0x100);
	ck_assert_uint_eq(cm.board.psn, 0xABCDEF);
	ck_assert_uint_eq(cm.board.rkey, 0x1234);
	ck_assert_uint_eq(cm.board.base, 0x123400000ull);
	ck_assert_int_eq(rt_peer_cm_info(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_int_eq(rt_peer_cm_rts(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_int_eq(rt_peer_cm_start(&cm, &tr, &err), RT_PEER_CM_ACK);
	ck_assert_int_eq(rt_peer_cm_start(&cm, &tr, &err), RT_PEER_CM_ACK);	/* the next batch */
	ck_assert_int_eq(rt_peer_cm_close(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_int_eq(rt_peer_cm_start(&cm, &tr, &err), RT_PEER_CM_FAILED);	/* closed */
	ck_assert_uint_eq(cm.strays, 6 * 4);
	ck_assert_uint_eq(b.n_sent, 6);
	/* What went out, field by field, as cm-frame.md wants each request. */
	const struct rt_cm_msg *s = b.sent;
	ck_assert(s[0].qp_info_valid && s[0].req_type == RT_CM_OPEN_QP && !s[0].txmeta_valid);
	ck_assert_uint_eq(s[0].listening_port, 0x4322);
	ck_assert(s[1].req_type == RT_CM_SEND_QP_INFO && s[1].loc_qpn == 0x100);
	ck_assert(s[1].rem_qpn == 0x11 && s[1].rem_psn == 0x222 && s[1].rem_rkey == 0x33334444);
	ck_assert(s[1].rem_base == 0x7F0000001000ull && s[1].rem_ip == IP_HOST);
	ck_assert(s[2].req_type == RT_CM_MODIFY_QP_RTS && s[2].loc_qpn == 0x100);
	ck_assert(!s[3].qp_info_valid && s[3].txmeta_valid && s[3].start && s[3].loc_qpn == 0x100);
	ck_assert(s[3].tx_write && s[3].is_immediate && s[3].dma_length == 3000 && s[3].n_transfers == 7);
	ck_assert_uint_eq(s[3].frequency, 9);
	ck_assert(s[4].txmeta_valid && s[4].start && s[4].n_transfers == 7);
	ck_assert(s[5].req_type == RT_CM_CLOSE_QP && s[5].loc_qpn == 0x100);
}
END_TEST

START_TEST(cm_order)
{
	struct rt_peer_cm cm;
	struct fake_board b;
	struct rt_error err;
	const struct rt_peer_traffic tr = { .count = 1, .length = 64 };
	fake_cm(&cm, &b, 3);
	ck_assert_int_eq(rt_peer_cm_info(&cm, &err), RT_PEER_CM_FAILED);
	ck_assert_ptr_nonnull(strstr(err.msg, "out of order"));
	ck_assert_int_eq(rt_peer_cm_start(&cm, &tr, &err), RT_PEER_CM_FAILED);
	ck_assert_int_eq(rt_peer_cm_close(&cm, &err), RT_PEER_CM_FAILED);
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_int_eq(rt_peer_cm_rts(&cm, &err), RT_PEER_CM_FAILED);
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_FAILED);
	ck_assert_uint_eq(b.n_sent, 1);
}
END_TEST

START_TEST(cm_retries_and_silence)
{
	struct rt_peer_cm cm;
	struct fake_board b;
	struct rt_error err;
	fake_cm(&cm, &b, 3);
	b.drop = 2;
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_ACK);
	ck_assert_uint_eq(cm.last_attempt, 3);
	ck_assert_uint_eq(b.n_sent, 3);
	fake_cm(&cm, &b, 2);
	b.drop = 5;
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_NO_ANSWER);
	ck_assert_uint_eq(b.n_sent, 2);
	ck_assert_ptr_nonnull(strstr(err.msg, "no reply from 10.0.0.1"));
	ck_assert_int_eq(cm.step, RT_PEER_IDLE);
}
END_TEST

START_TEST(cm_refusals)
{
	struct rt_peer_cm cm;
	struct fake_board b;
	struct rt_error err;
	fake_cm(&cm, &b, 1);
	b.answer = RT_CM_NO_QP;
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_REFUSED);
	ck_assert_ptr_nonnull(strstr(err.msg, "NO_QP"));
	fake_cm(&cm, &b, 1);
	b.no_qpn = true;
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_REFUSED);
	ck_assert_ptr_nonnull(strstr(err.msg, "without a QPN"));
	fake_cm(&cm, &b, 1);
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_ACK);
	b.wrong_echo = true;
	ck_assert_int_eq(rt_peer_cm_info(&cm, &err), RT_PEER_CM_REFUSED);
	ck_assert_ptr_nonnull(strstr(err.msg, "does not echo"));
	ck_assert_int_eq(cm.step, RT_PEER_OPENED);
	b.wrong_echo = false;
	b.answer = RT_CM_NAK;
	ck_assert_int_eq(rt_peer_cm_info(&cm, &err), RT_PEER_CM_REFUSED);
	ck_assert_ptr_nonnull(strstr(err.msg, "SEND_QP_INFO: the board answered NAK"));
}
END_TEST

/* ---- QP attributes ------------------------------------------------------ */

START_TEST(qp_attributes)
{
	struct rt_peer_cm cm;
	struct fake_board b;
	struct rt_error err;
	struct rt_peer_qp_attr a;
	fake_cm(&cm, &b, 1);
	ck_assert_int_eq(rt_peer_cm_open(&cm, &err), RT_PEER_CM_ACK);
	struct rt_peer_qp_params p = { .port = 1, .sgid_index = 3, .pmtu = 4096, .port_active_pmtu = 4096,
				       .min_rnr_timer = 12 };
	ck_assert_int_eq(rt_peer_qp_attr(&cm, &p, &a, &err), 0);
	ck_assert_uint_eq(a.path_mtu, 5);	/* IBV_MTU_4096 */
	ck_assert_uint_eq(a.dest_qpn, 0x100);
	ck_assert_uint_eq(a.rq_psn, 0xABCDEF);
	ck_assert_uint_eq(a.sq_psn, 0x222);
	ck_assert_uint_eq(a.sgid_index, 3);
	ck_assert_uint_eq(a.min_rnr_timer, 12);
	static const uint8_t dgid[16] = { [10] = 0xFF, [11] = 0xFF, [12] = 10, [13] = 0, [14] = 0, [15] = 1 };
	ck_assert_mem_eq(a.dgid, dgid, 16);
	ck_assert(a.remote_write && a.max_dest_rd_atomic >= 1 && a.retry_cnt == 7 && a.rnr_retry == 7);
	ck_assert_uint_eq(a.timeout, 14);
	p.pmtu = 1024;
	ck_assert_int_eq(rt_peer_qp_attr(&cm, &p, &a, &err), 0);
	ck_assert_uint_eq(a.path_mtu, 3);
	p.pmtu = 1000;
	ck_assert_int_eq(rt_peer_qp_attr(&cm, &p, &a, &err), -1);
	p.pmtu = 4096;
	p.port_active_pmtu = 1024;	/* rxe on an interface of MTU 1500 */
	ck_assert_int_eq(rt_peer_qp_attr(&cm, &p, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "exceeds the port's active MTU 1024"));
}
END_TEST

START_TEST(mtu_codes)
{
	static const uint32_t bytes[] = { 256, 512, 1024, 2048, 4096 };
	for (unsigned e = 1; e <= 5; e++) {
		ck_assert_uint_eq(rt_peer_mtu_enum(bytes[e - 1]), e);
		ck_assert_uint_eq(rt_peer_mtu_bytes(e), bytes[e - 1]);
	}
	ck_assert_uint_eq(rt_peer_mtu_enum(128), 0);
	ck_assert_uint_eq(rt_peer_mtu_enum(8192), 0);
	ck_assert_uint_eq(rt_peer_mtu_bytes(0), 0);
	ck_assert_uint_eq(rt_peer_mtu_bytes(6), 0);
}
END_TEST

/* ---- The generator ---------------------------------------------------- */

START_TEST(txgen_messages)
{
	struct rt_txgen_msg m;
	/* roce_txgen's header comment: message k from base + k * dma_length, imm k, wr_id {F0, q, 0, k}. */
	rt_txgen_message(2, 3000, 5, &m);
	ck_assert_uint_eq(m.local_offset, 15000);
	ck_assert_uint_eq(m.remote_offset, 15000);
	ck_assert_uint_eq(m.imm, 5);
	ck_assert_uint_eq(m.wr_id, 0xF002000000000005ull);
	rt_txgen_message(0, 0x40000000, 0xFFFFFFFF, &m);	/* no 32-bit overflow */
	ck_assert_uint_eq(m.local_offset, 0x3FFFFFFFC0000000ull);
}
END_TEST

START_TEST(txgen_pattern)
{
	uint8_t b[12];
	static const uint8_t first[12] = { 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0 };
	rt_txgen_pattern(0, b, sizeof b);
	ck_assert_mem_eq(b, first, 12);
	/* Word 0x01020304 at offset 0x04080C10, from its second byte. */
	static const uint8_t mid[4] = { 0x03, 0x02, 0x01, 0x05 };
	rt_txgen_pattern(0x04080C11, b, 4);
	ck_assert_mem_eq(b, mid, 4);
	uint8_t big[1000];
	rt_txgen_pattern(77, big, sizeof big);
	ck_assert_uint_eq(rt_txgen_pattern_mismatch(77, big, sizeof big), sizeof big);
	big[600] ^= 0x10;	/* past the 256-byte chunk */
	ck_assert_uint_eq(rt_txgen_pattern_mismatch(77, big, sizeof big), 600);
	ck_assert_uint_eq(rt_txgen_pattern_mismatch(81, big, sizeof big), 3);	/* word 20 where 21 belongs */
	big[3] ^= 1;
	ck_assert_uint_eq(rt_txgen_pattern_mismatch(77, big, sizeof big), 3);
}
END_TEST

/* ---- Rates ---------------------------------------------------------- */

START_TEST(rates)
{
	struct rt_peer_rate r;
	rt_peer_rate_init(&r, 1000000000);
	ck_assert(rt_peer_rate_gbps(&r) == 0 && rt_peer_rate_mps(&r) == 0);
	rt_peer_rate_add(&r, 1250000000, 125000000, true);
	rt_peer_rate_add(&r, 1500000000, 125000000, true);
	rt_peer_rate_add(&r, 1700000000, 0, false);	/* an error: counted, no bytes, not the end */
	ck_assert_uint_eq(r.messages, 2);
	ck_assert_uint_eq(r.errors, 1);
	ck_assert_uint_eq(r.bytes, 250000000);
	/* 2 Gbit in 0.5 s. */
	ck_assert_double_eq_tol(rt_peer_rate_gbps(&r), 4.0, 1e-9);
	ck_assert_double_eq_tol(rt_peer_rate_mps(&r), 4.0, 1e-9);
}
END_TEST

Suite *peer_suite(void)
{
	Suite *s = suite_create("peer");
	TCase *tc = tcase_create("peer");
	tcase_add_test(tc, gid_default_is_v2_ipv4);
	tcase_add_test(tc, gid_several_and_by_address);
	tcase_add_test(tc, gid_forced);
	tcase_add_test(tc, gid_none_usable);
	tcase_add_test(tc, gid_format);
	tcase_add_test(tc, cm_whole_exchange);
	tcase_add_test(tc, cm_order);
	tcase_add_test(tc, cm_retries_and_silence);
	tcase_add_test(tc, cm_refusals);
	tcase_add_test(tc, qp_attributes);
	tcase_add_test(tc, mtu_codes);
	tcase_add_test(tc, txgen_messages);
	tcase_add_test(tc, txgen_pattern);
	tcase_add_test(tc, rates);
	suite_add_tcase(s, tc);
	return s;
}
