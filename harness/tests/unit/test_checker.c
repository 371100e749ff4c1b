/* SPDX-License-Identifier: MIT */
/*
 * The checker's driver (checker.c): the flow table pairing a host that
 * sends RoCE v1 with a peer answering in RoCE v2, how such sides are named
 * in the reports, and the note that explains bad ICRCs by a rewritten field.
 * Packets are built with the library's builder and fed frame by frame.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/checker.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "rocetest/report.h"
#include "suites.h"
#include "test_util.h"
#include "util.h"

enum { QP_A = 0x11, QP_B = 0x22, SPORT = 0xC123, SEND_ONLY = 0x04, ACK = 0x11, ACK_SYNDROME = 0x1F };

/* How one end sends: RoCE v1 (GID) or v2 (IPv4), its address and UDP source port. */
struct end {
	uint8_t roce_version;
	uint8_t ipv4[4];
	bool gid_mapped;	/* v1: the GID is ::ffff:ipv4; otherwise fe80::ipv4 */
	uint16_t sport;
	uint32_t qp;		/* the QP this end owns */
};

struct run {
	struct rt_check_config cfg;
	struct rt_checker *c;
	uint64_t frame;
	int64_t ts_ns;
	unsigned errors, warnings;
	unsigned by_rule[RT_RULE_COUNT];
};

static void count(void *ctx, const struct rt_violation *v)
{
	struct run *r = ctx;
	if (v->severity == RT_SEV_ERROR)
		r->errors++;
	else
		r->warnings++;
	r->by_rule[v->rule]++;
}

static void run_init(struct run *r)
{
	memset(r, 0, sizeof *r);
	rt_check_config_init(&r->cfg);
	r->cfg.on_violation = count;
	r->cfg.ctx = r;
	r->cfg.pmtu = 1024;
	r->cfg.ladder_flows = 64;	/* the HTML page draws them */
	struct rt_error err;
	r->c = rt_checker_new(&r->cfg, &err);
	ck_assert_msg(r->c != NULL, "%s", err.msg);
	r->ts_ns = 1000000000LL;
}

/* An end's address in a packet of RoCE version v: its IPv4 address, or its GID. */
static void address(const struct end *e, uint8_t v, uint8_t out[16])
{
	memset(out, 0, 16);
	if (v == 2) {
		memcpy(out, e->ipv4, 4);
		return;
	}
	if (e->gid_mapped) {
		out[10] = out[11] = 0xFF;
	} else {
		out[0] = 0xFE;
		out[1] = 0x80;
	}
	memcpy(out + 12, e->ipv4, 4);
}

/* A frame from one end to the other, as the end's RoCE version lays it out. */
static size_t build(uint8_t *frame, size_t cap, const struct end *from, const struct end *to, uint8_t opcode,
		    uint32_t psn, uint32_t msn, uint32_t payload_len)
{
	static const uint8_t payload[256] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	ck_assert_uint_le(payload_len, sizeof payload);
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	s.roce_version = from->roce_version;
	s.ip_version = from->roce_version == 1 ? 6 : 4;
	address(from, from->roce_version, s.src_ip);
	address(to, from->roce_version, s.dst_ip);
	s.udp_sport = from->sport;
	s.bth.opcode = opcode;
	s.bth.dest_qp = to->qp;
	s.bth.psn = psn;
	s.bth.ack_req = opcode != ACK;
	s.ext.aeth.syndrome = ACK_SYNDROME;
	s.ext.aeth.msn = msn;
	s.payload = payload;
	s.payload_len = payload_len;
	size_t len = rt_build(&s, frame, cap);
	ck_assert_uint_gt(len, 0);
	return len;
}

static void feed(struct run *r, const uint8_t *frame, size_t len)
{
	rt_checker_frame(r->c, RT_LINK_ETHERNET, ++r->frame, r->ts_ns, frame, (uint32_t)len, (uint32_t)len);
	r->ts_ns += 1000;
}

/* count SEND Onlys from `req` to `resp`, each ACKed at once; PSNs from psn. */
static void exchange(struct run *r, const struct end *req, const struct end *resp, uint32_t psn, unsigned n)
{
	uint8_t frame[512];
	for (unsigned i = 0; i < n; i++) {
		feed(r, frame, build(frame, sizeof frame, req, resp, SEND_ONLY, psn + i, 0, 64));
		feed(r, frame, build(frame, sizeof frame, resp, req, ACK, psn + i, i + 1, 0));
	}
}

static bool has_note(const struct rt_flow_info *f, const char *part)
{
	for (uint32_t i = 0; i < f->note_count; i++)
		if (strstr(f->notes[i], part))
			return true;
	return false;
}

static void dump_notes(const struct rt_checker *c)
{
	for (size_t i = 0; i < rt_checker_flow_count(c); i++) {
		const struct rt_flow_info *f = rt_checker_flow(c, i);
		for (uint32_t k = 0; k < f->note_count; k++)
			fprintf(stderr, "  flow %u: %s\n", f->id, f->notes[k]);
	}
}

static const struct end v1_a = { .roce_version = 1, .ipv4 = { 10, 0, 0, 1 }, .gid_mapped = true, .qp = QP_A };
static const struct end v2_b = {
	.roce_version = 2, .ipv4 = { 10, 0, 0, 2 }, .gid_mapped = true, .sport = SPORT, .qp = QP_B,
};

/* One connection whose requester sends RoCE v1 and whose responder answers in v2 (or the other way). */
static void check_mixed_connection(const struct end *req, const struct end *resp)
{
	struct run r;
	run_init(&r);
	exchange(&r, req, resp, 100, 8);
	rt_checker_finish(r.c);
	if (rt_checker_flow_count(r.c) != 1 || r.errors)
		dump_notes(r.c);
	ck_assert_uint_eq(rt_checker_flow_count(r.c), 1);
	ck_assert_uint_eq(r.errors, 0);
	const struct rt_flow_info *f = rt_checker_flow(r.c, 0);
	ck_assert(f->paired);
	ck_assert(f->side[0].qp_known && f->side[1].qp_known);
	ck_assert_uint_eq(f->side[0].qp, req->qp);
	ck_assert_uint_eq(f->side[1].qp, resp->qp);
	/* Named by the IPv4 address the GID maps. */
	char ip[64];
	rt_flow_format_ip(f, req == &v1_a ? 0 : 1, ip, sizeof ip);
	ck_assert_str_eq(ip, "10.0.0.1");
	ck_assert_uint_eq(f->side[0].rocev1, req->roce_version == 1);
	ck_assert_uint_eq(f->side[0].rocev2, req->roce_version == 2);
	ck_assert_uint_eq(f->side[1].rocev1, resp->roce_version == 1);
	ck_assert_uint_eq(f->side[1].rocev2, resp->roce_version == 2);
	/* Every ACK reached its request: nothing left waiting, no answer without a question. */
	ck_assert_msg(!has_note(f, "capture ends before the ACK") && !has_note(f, "mid-conversation"),
		      "the ACKs did not meet their requests");
	char want[64];
	snprintf(want, sizeof want, "side 0 sends RoCE v%u, side 1 RoCE v%u", req->roce_version, resp->roce_version);
	ck_assert_msg(has_note(f, want), "no note '%s'", want);
	rt_checker_free(r.c);
}

START_TEST(v1_requester_v2_responder_is_one_flow)
{
	check_mixed_connection(&v1_a, &v2_b);
}
END_TEST

START_TEST(v2_requester_v1_responder_is_one_flow)
{
	struct end a = v1_a, b = v2_b;
	a.roce_version = 2;
	a.sport = SPORT;
	b.roce_version = 1;
	b.gid_mapped = true;
	check_mixed_connection(&b, &a);
}
END_TEST

/* Both ends on RoCE v2, or both on v1: one flow and no note about versions. */
START_TEST(one_version_has_no_version_note)
{
	for (int v = 1; v <= 2; v++) {
		struct end a = v1_a, b = v2_b;
		a.roce_version = b.roce_version = (uint8_t)v;
		a.sport = SPORT;
		b.gid_mapped = true;
		struct run r;
		run_init(&r);
		exchange(&r, &a, &b, 7, 3);
		rt_checker_finish(r.c);
		ck_assert_uint_eq(rt_checker_flow_count(r.c), 1);
		const struct rt_flow_info *f = rt_checker_flow(r.c, 0);
		ck_assert(f->paired);
		ck_assert(!has_note(f, "RoCE v"));
		ck_assert_uint_eq(r.errors, 0);
		rt_checker_free(r.c);
	}
}
END_TEST

/*
 * Two RoCE v1 connections between the same two GIDs whose second halves
 * open with requests: nothing tells which connection each belongs to (v1
 * has no UDP source port to compare), so each stays a flow of its own.
 */
START_TEST(v1_halves_without_evidence_stay_apart)
{
	struct end a1 = v1_a, b1 = v2_b;
	b1.roce_version = 1;
	b1.gid_mapped = false;
	a1.gid_mapped = false;
	struct end a2 = a1, b2 = b1;
	a2.qp = 0x33;
	b2.qp = 0x44;
	struct run r;
	run_init(&r);
	uint8_t frame[512];
	feed(&r, frame, build(frame, sizeof frame, &a1, &b1, SEND_ONLY, 10, 0, 64));
	feed(&r, frame, build(frame, sizeof frame, &a2, &b2, SEND_ONLY, 500, 0, 64));
	feed(&r, frame, build(frame, sizeof frame, &b2, &a2, SEND_ONLY, 900, 0, 64));
	feed(&r, frame, build(frame, sizeof frame, &b1, &a1, SEND_ONLY, 300, 0, 64));
	rt_checker_finish(r.c);
	ck_assert_uint_eq(rt_checker_flow_count(r.c), 4);
	/* GIDs that are not IPv4-mapped stay IPv6 addresses. */
	char ip[64];
	rt_flow_format_ip(rt_checker_flow(r.c, 0), 0, ip, sizeof ip);
	ck_assert_str_eq(ip, "fe80::a00:1");
	rt_checker_free(r.c);
}
END_TEST

/* The reports name a RoCE v1 side as such: no UDP port 0, no "QP ?". */
START_TEST(reports_label_v1_sides)
{
	struct run r;
	run_init(&r);
	exchange(&r, &v1_a, &v2_b, 100, 2);
	rt_checker_finish(r.c);
	const struct rt_flow_info *f = rt_checker_flow(r.c, 0);
	char ep[96];
	rt_rep_endpoint(f, 0, ep, sizeof ep);
	ck_assert_str_eq(ep, "10.0.0.1 QP 0x000011 (RoCE v1)");
	rt_rep_endpoint(f, 1, ep, sizeof ep);
	ck_assert_str_eq(ep, "10.0.0.2 QP 0x000022");

	struct rt_violation_list none = { 0 };
	struct rt_report_file file = { .file = "mixed.pcap", .checker = r.c, .violations = &none };
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(rt_report_json(&file, 1, out), 0);
	fclose(out);
	ck_assert_msg(json_valid(text), "%s", text);
	text_assert_has(text, "\"qp\":17,\"udp_sport\":null,\"roce_versions\":[1],");
	text_assert_has(text, "\"qp\":34,\"udp_sport\":49443,\"roce_versions\":[2],");
	free(text);
	/* The page: the side's line and the ladder's head say RoCE v1; no UDP port 0 anywhere. */
	out = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(rt_report_html(&file, 1, out), 0);
	fclose(out);
	text_assert_has(text, "10.0.0.1 QP 0x000011 (RoCE v1): 2 packets");
	text_assert_has(text, "QP 0x000011, RoCE v1</text>");
	text_assert_has(text, "UDP source port 49443: 2 packets");
	text_assert_lacks(text, "UDP source port 0");
	free(text);
	rt_checker_free(r.c);
}
END_TEST

/* ---- the rewritten-field note --------------------------------------------- */

enum damage { DAMAGE_NONE, DAMAGE_SPORT, DAMAGE_NAT, DAMAGE_BIT };

/*
 * Damage done to a built frame after its ICRC: the UDP source port set to
 * 0x1234; host 10.0.0.1 translated to 192.168.7.7 wherever it stands (a NAT,
 * which keeps the IPv4 checksum right); one bit flipped, `salt` choosing it.
 */
static void damage(uint8_t *frame, size_t len, enum damage how, unsigned salt)
{
	static const uint8_t host[4] = { 10, 0, 0, 1 }, nat[4] = { 192, 168, 7, 7 };
	struct rt_packet p;
	ck_assert_int_eq(rt_parse(&p, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len), RT_PARSE_ROCE);
	uint8_t *ip = frame + p.l3_off;
	switch (how) {
	case DAMAGE_SPORT: rt_put_be16(frame + p.udp_off, 0x1234); break;
	case DAMAGE_NAT:
		for (unsigned at = 12; at <= 16; at += 4)
			if (!memcmp(ip + at, host, 4))
				memcpy(ip + at, nat, 4);
		rt_put_be16(ip + 10, 0);
		rt_put_be16(ip + 10, rt_ipv4_header_checksum(ip, 20));
		break;
	case DAMAGE_BIT: frame[p.icrc_off - 1 - salt % 8] ^= (uint8_t)(1u << (salt % 7)); break;
	case DAMAGE_NONE: break;
	}
}

/*
 * A (10.0.0.1) sends `sends` SENDs, B ACKs each (unless the capture has only
 * A's direction). A's SENDs are damaged `how` (but the one numbered `good`),
 * B's ACKs only by the NAT. The SENDs carry 64 bytes, or 64 + 4 i when
 * lengths vary. Returns flow 1 after the end.
 */
static const struct rt_flow_info *damaged_capture(struct run *r, enum damage how, int good, unsigned sends, bool vary,
						     bool acks)
{
	struct end a = v2_b, b = v2_b;
	a.ipv4[3] = 1;
	a.qp = QP_A;
	uint8_t frame[512];
	run_init(r);
	for (unsigned i = 0; i < sends; i++) {
		size_t len = build(frame, sizeof frame, &a, &b, SEND_ONLY, 50 + i, 0, vary ? 64 + 4 * i : 64);
		damage(frame, len, (int)i == good ? DAMAGE_NONE : how, how == DAMAGE_BIT && !vary ? 3 : i);
		feed(r, frame, len);
		if (!acks)
			continue;
		len = build(frame, sizeof frame, &b, &a, ACK, 50 + i, i + 1, 0);
		damage(frame, len, how == DAMAGE_NAT ? how : DAMAGE_NONE, 0);
		feed(r, frame, len);
	}
	rt_checker_finish(r->c);
	if (rt_checker_flow_count(r->c) != 1)
		dump_notes(r->c);
	ck_assert_uint_eq(rt_checker_flow_count(r->c), 1);
	return rt_checker_flow(r->c, 0);
}

static const struct rt_flow_info *damaged_flow(struct run *r, enum damage how, int good, unsigned sends, bool vary)
{
	return damaged_capture(r, how, good, sends, vary, true);
}

START_TEST(rewritten_udp_source_port_is_named)
{
	struct run r;
	const struct rt_flow_info *f = damaged_flow(&r, DAMAGE_SPORT, -1, 8, false);
	/* The bytes are wrong: PKT-ICRC stays, once per packet. */
	ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 8);
	ck_assert_msg(has_note(f, "side 0: its 8 bad ICRCs verify if the UDP source port was 0xc123, not 0x1234: "
				  "the capture tool probably rewrote it"),
		      "no note naming the port");
	ck_assert(!has_note(f, "side 1:"));
	rt_checker_free(r.c);
}
END_TEST

/*
 * A NAT in front of A: A's packets have their source rewritten, B's their
 * destination. Both directions give A's real address: both are named.
 */
START_TEST(translated_address_is_named)
{
	struct run r;
	const struct rt_flow_info *f = damaged_flow(&r, DAMAGE_NAT, -1, 3, true);
	ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 6);
	if (f->note_count < 2)
		dump_notes(r.c);
	ck_assert(has_note(f, "side 0: its 3 bad ICRCs verify if the IPv4 source address was 10.0.0.1, not 192.168.7.7"));
	ck_assert(has_note(f, "side 1: its 3 bad ICRCs verify if the IPv4 destination address was 10.0.0.1, "
			      "not 192.168.7.7"));
	rt_checker_free(r.c);
}
END_TEST

/*
 * What is not enough for an address: packets all of one length (any change
 * at a fixed place in the headers fits each address with one value), one
 * packet each way, or one direction alone (nothing to agree with).
 */
START_TEST(address_needs_both_directions_and_lengths)
{
	struct run r;
	const struct rt_flow_info *f = damaged_flow(&r, DAMAGE_NAT, -1, 4, false);
	ck_assert(!has_note(f, "ICRC"));
	rt_checker_free(r.c);
	f = damaged_flow(&r, DAMAGE_NAT, -1, 1, true);
	ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 2);
	ck_assert(!has_note(f, "ICRC"));
	rt_checker_free(r.c);
	f = damaged_capture(&r, DAMAGE_NAT, -1, 5, true, false);
	ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 5);
	ck_assert(!has_note(f, "ICRC"));
	rt_checker_free(r.c);
}
END_TEST

START_TEST(corrupted_packets_get_no_note)
{
	for (int vary = 0; vary < 2; vary++) {
		struct run r;
		/* vary 0: the same bit of packets of one length, which fits one address in all of them. */
		const struct rt_flow_info *f = damaged_flow(&r, DAMAGE_BIT, -1, 8, vary);
		ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 8);
		if (has_note(f, "ICRC"))
			dump_notes(r.c);
		ck_assert(!has_note(f, "ICRC"));
		rt_checker_free(r.c);
	}
}
END_TEST

/* A side with one good ICRC was not rewritten wholesale: no note, even if the others fit. */
START_TEST(one_good_icrc_means_no_note)
{
	struct run r;
	const struct rt_flow_info *f = damaged_flow(&r, DAMAGE_SPORT, 5, 8, false);
	ck_assert_uint_eq(r.by_rule[RT_RULE_PKT_ICRC], 7);
	ck_assert(!has_note(f, "ICRC"));
	rt_checker_free(r.c);
}
END_TEST

Suite *checker_suite(void)
{
	Suite *s = suite_create("checker");
	TCase *t = tcase_create("rocev1_rocev2");
	tcase_add_test(t, v1_requester_v2_responder_is_one_flow);
	tcase_add_test(t, v2_requester_v1_responder_is_one_flow);
	tcase_add_test(t, one_version_has_no_version_note);
	tcase_add_test(t, v1_halves_without_evidence_stay_apart);
	tcase_add_test(t, reports_label_v1_sides);
	suite_add_tcase(s, t);
	TCase *n = tcase_create("icrc_note");
	tcase_add_test(n, rewritten_udp_source_port_is_named);
	tcase_add_test(n, translated_address_is_named);
	tcase_add_test(n, address_needs_both_directions_and_lengths);
	tcase_add_test(n, corrupted_packets_get_no_note);
	tcase_add_test(n, one_good_icrc_means_no_note);
	suite_add_tcase(s, n);
	return s;
}
