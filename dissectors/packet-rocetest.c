/* SPDX-License-Identifier: MIT */
/*
 * The "rocetest" post-dissector: after Wireshark has dissected a frame, the
 * frame's bytes go through the rocetest library, the same code as
 * `rocetest show` and `rocetest check`: rt_parse() and rt_icrc_check() for
 * the ICRC verdict, and the checker (rocetest/checker.h, held per capture
 * in capture_state.c) for the rule verdicts, the flow, retransmissions and
 * NAKs. Nothing here decides a verdict itself.
 *
 * The checker must see the frames in capture order, once: the first pass
 * (frames not yet visited) feeds it. Any later dissection reads what it
 * said, plus what it decided later about that frame; the first of those
 * declares the capture complete (rt_checker_finish), which is when the
 * rules waiting for the capture's end are decided. tshark's single pass
 * therefore shows the verdicts known at each frame; `tshark -2`, and the
 * GUI once the file is loaded, show all of them.
 *
 * Wireshark's dissector model keeps per-file state in statics (the state,
 * its preferences); they are the plugin's, not the library's.
 */
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <stdlib.h>
#include <string.h>
#include <wiretap/wtap.h>
#include <wsutil/report_message.h>

#include "capture_state.h"
#include "plugin.h"
#include "rocetest/capture.h"
#include "rocetest/checker.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"
#include "rocetest/rules.h"

static int proto_rocetest = -1;

static int hf_icrc_status = -1;
static int hf_icrc_expected = -1;
static int hf_cnp = -1;
static int hf_cnp_becn = -1;
static int hf_cnp_dest_qp = -1;
static int hf_rule = -1;
static int hf_rule_severity = -1;
static int hf_rule_message = -1;
static int hf_flow = -1;
static int hf_side = -1;
static int hf_rel_psn = -1;
static int hf_retransmission = -1;
static int hf_nak = -1;

static gint ett_rocetest = -1;
static gint ett_cnp = -1;
static gint ett_rule = -1;

/* Rule verdicts as expert infos: [group][severity]; the group from the rule's ID prefix. */
enum rule_group { GROUP_PKT, GROUP_FLOW, GROUP_CM, GROUP_COUNT };
static expert_field ei_rule[GROUP_COUNT][2] = { { EI_INIT, EI_INIT }, { EI_INIT, EI_INIT }, { EI_INIT, EI_INIT } };
static expert_field ei_icrc_bad = EI_INIT;
static expert_field ei_unchecked = EI_INIT;

/* Preferences: what `rocetest check` takes as options. */
static gint pref_pmtu = 0;
static const char *pref_timeout_us = "";
static gint pref_retry_cnt = -1;
static gint pref_rnr_retry = -1;
static const char *pref_rules = "";
static const char *pref_skip = "";

static struct capture_state *state;

/* ---- configuration ------------------------------------------------------------ */

/* Enables (on) or disables the rules of a comma-separated ID list; false on an unknown ID. */
static bool apply_rule_list(struct rt_check_config *cfg, const char *list, bool on, const char *pref)
{
	char **ids = g_strsplit(list, ",", -1);
	bool ok = true;
	for (char **id = ids; *id; id++) {
		char *name = g_strstrip(*id);
		if (!*name)
			continue;
		int r = rt_rule_find(name);
		if (r < 0) {
			report_failure("rocetest: preference rocetest.%s: no rule '%s' (see rocetest check --list-rules)",
				       pref, name);
			ok = false;
			continue;
		}
		cfg->enabled[r] = on;
	}
	g_strfreev(ids);
	return ok;
}

static void config_from_prefs(struct rt_check_config *cfg)
{
	rt_check_config_init(cfg);
	cfg->pmtu = (uint32_t)pref_pmtu;
	cfg->retry_cnt = pref_retry_cnt;
	cfg->rnr_retry = pref_rnr_retry;
	if (pref_timeout_us && *pref_timeout_us) {
		char *end;
		double us = g_ascii_strtod(pref_timeout_us, &end);
		if (*end || !(us > 0))
			report_failure("rocetest: preference rocetest.timeout_us: '%s' is not a positive number of "
				       "microseconds", pref_timeout_us);
		else {
			cfg->have_timeout = true;
			cfg->timeout_us = us;
		}
	}
	/* --rules: only those (all of them when the list names an unknown rule); --skip: all but those. */
	if (pref_rules && *pref_rules) {
		for (int r = 0; r < RT_RULE_COUNT; r++)
			cfg->enabled[r] = false;
		if (!apply_rule_list(cfg, pref_rules, true, "rules"))
			for (int r = 0; r < RT_RULE_COUNT; r++)
				cfg->enabled[r] = true;
	}
	if (pref_skip && *pref_skip)
		apply_rule_list(cfg, pref_skip, false, "skip");
}

/* A new file (or a re-dissection after a preference changed): a fresh checker. */
static void rocetest_init(void)
{
	struct rt_check_config cfg;
	cs_free(state);
	config_from_prefs(&cfg);
	state = cs_new(&cfg);
	if (!state)
		report_failure("rocetest: out of memory: no rule verdicts for this file");
}

static void rocetest_cleanup(void)
{
	cs_free(state);
	state = NULL;
}

/* ---- one frame ----------------------------------------------------------------- */

/* The rocetest link type of a frame's record; false for records rocetest does not read. */
static bool link_of(const packet_info *pinfo, enum rt_link *link)
{
	if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return false;
	switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
	case WTAP_ENCAP_ETHERNET: *link = RT_LINK_ETHERNET; return true;
	case WTAP_ENCAP_SLL: *link = RT_LINK_LINUX_SLL; return true;
	case WTAP_ENCAP_SLL2: *link = RT_LINK_LINUX_SLL2; return true;
	case WTAP_ENCAP_RAW_IP: *link = RT_LINK_RAW_IP; return true;
	case WTAP_ENCAP_RAW_IP4: *link = RT_LINK_IPV4; return true;
	case WTAP_ENCAP_RAW_IP6: *link = RT_LINK_IPV6; return true;
	default: return false;
	}
}

/* The first pass feeds the checker; a later one means the whole file was read. */
static void remember(packet_info *pinfo, const struct rt_packet *p, enum rt_link link)
{
	if (!state)
		return;
	if (PINFO_FD_VISITED(pinfo)) {
		cs_finish(state);
		return;
	}
	cs_feed(state, p, link, pinfo->num, rt_ts_ns((int64_t)pinfo->abs_ts.secs, pinfo->abs_ts.nsecs));
}

static const char *icrc_word(enum rt_icrc_status s)
{
	return s == RT_ICRC_OK ? "good" : s == RT_ICRC_BAD ? "bad" : "unverified";
}

/*
 * rocetest.icrc.expected is what Wireshark shows as infiniband.invariant.crc:
 * the four bytes in wire order read as one number (rocetest's own messages
 * print the CRC's value, the reverse order); the texts list the bytes.
 */
static void add_icrc(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct rt_packet *p)
{
	enum rt_icrc_status s = rt_icrc_check(p);
	bool whole = !p->truncated;
	proto_item *it = proto_tree_add_string(tree, hf_icrc_status, tvb, whole ? (gint)p->icrc_off : 0,
					       whole ? RT_ICRC_BYTES : 0, icrc_word(s));
	proto_item_set_generated(it);
	if (s != RT_ICRC_BAD)
		return;
	uint32_t wire = GUINT32_SWAP_LE_BE(p->icrc_wire), expected = GUINT32_SWAP_LE_BE(rt_icrc_compute(p));
	/* Byte by byte in the texts: no doubt about the order. */
	char w[12], x[12];
	g_snprintf(w, sizeof w, "%02x %02x %02x %02x", wire >> 24, wire >> 16 & 0xFF, wire >> 8 & 0xFF, wire & 0xFF);
	g_snprintf(x, sizeof x, "%02x %02x %02x %02x", expected >> 24, expected >> 16 & 0xFF, expected >> 8 & 0xFF,
		   expected & 0xFF);
	proto_item_append_text(it, " (bytes %s on the wire, %s expected)", w, x);
	proto_item *e = proto_tree_add_uint(tree, hf_icrc_expected, tvb, (gint)p->icrc_off, RT_ICRC_BYTES, expected);
	proto_item_set_generated(e);
	expert_add_info_format(pinfo, it, &ei_icrc_bad, "Bad ICRC: bytes %s on the wire, %s expected", w, x);
	col_append_str(pinfo->cinfo, COL_INFO, " [bad ICRC]");
}

/* The RoCEv2 CNP (opcode 0x81), which Wireshark 4.0's InfiniBand dissector does not know. */
static void add_cnp(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct rt_packet *p)
{
	proto_item *it = proto_tree_add_item(tree, hf_cnp, tvb, (gint)p->bth_off, RT_BTH_BYTES, ENC_NA);
	proto_item_append_text(it, ": BECN %u, DestQP 0x%06x", p->bth.becn, p->bth.dest_qp);
	proto_tree *t = proto_item_add_subtree(it, ett_cnp);
	proto_tree_add_boolean(t, hf_cnp_becn, tvb, (gint)p->bth_off + 4, 1, p->bth.becn);
	proto_tree_add_uint(t, hf_cnp_dest_qp, tvb, (gint)p->bth_off + 5, 3, p->bth.dest_qp);
	col_add_fstr(pinfo->cinfo, COL_INFO, "CNP (congestion notification) QP=0x%06x BECN=%u", p->bth.dest_qp,
		     p->bth.becn);
}

/* Flow, relative PSN, retransmission and NAK, as the checker judged them. */
static void add_flow(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct rt_packet *p,
		     const struct cs_frame *fr)
{
	proto_item_set_generated(proto_tree_add_uint(tree, hf_flow, tvb, 0, 0, fr->flow));
	proto_item_set_generated(proto_tree_add_uint(tree, hf_side, tvb, 0, 0, fr->side));
	if (fr->has_rel_psn)
		proto_item_set_generated(proto_tree_add_uint(tree, hf_rel_psn, tvb, 0, 0, fr->rel_psn));
	bool request = p->op && !p->op->response && p->op->family != RT_FAMILY_CNP;
	if (request) {
		bool again = fr->flags & RT_LADDER_RETRANSMIT;
		proto_item_set_generated(proto_tree_add_boolean(tree, hf_retransmission, tvb, 0, 0, again));
		if (again)
			col_append_str(pinfo->cinfo, COL_INFO, " [retransmission]");
	}
	const char *nak = fr->flags & RT_LADDER_RNR ? "RNR NAK" : fr->flags & RT_LADDER_NAK ? "NAK" : NULL;
	if (nak)
		proto_item_set_generated(proto_tree_add_string(tree, hf_nak, tvb, 0, 0, nak));
}

static expert_field *rule_expert(const struct cs_violation *v)
{
	const char *group = rt_rule_group((enum rt_rule)v->rule);
	enum rule_group g = !strcmp(group, "PKT") ? GROUP_PKT : !strcmp(group, "CM") ? GROUP_CM : GROUP_FLOW;
	return &ei_rule[g][v->severity == RT_SEV_ERROR ? 0 : 1];
}

static void add_rules(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct cs_violation *v)
{
	for (; v; v = cs_next_violation(state, v)) {
		const char *id = rt_rule_info((enum rt_rule)v->rule)->id;
		const char *sev = rt_severity_name((enum rt_severity)v->severity);
		const char *msg = cs_message(state, v);
		proto_item *it = proto_tree_add_string_format_value(tree, hf_rule, tvb, 0, 0, id, "%s (%s): %s", id, sev, msg);
		proto_item_set_generated(it);
		proto_tree *t = proto_item_add_subtree(it, ett_rule);
		proto_item_set_generated(proto_tree_add_string(t, hf_rule_severity, tvb, 0, 0, sev));
		proto_item_set_generated(proto_tree_add_string(t, hf_rule_message, tvb, 0, 0, msg));
		/* A bad ICRC has its checksum expert info already (add_icrc). */
		if (v->rule != RT_RULE_PKT_ICRC)
			expert_add_info_format(pinfo, it, rule_expert(v), "%s (%s): %s", id, sev, msg);
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%s]", id);
	}
}

static int dissect_rocetest(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	enum rt_link link;
	if (!link_of(pinfo, &link))
		return 0;
	uint32_t caplen = tvb_captured_length(tvb);
	struct rt_packet p;
	rt_parse(&p, link, caplen ? tvb_get_ptr(tvb, 0, (gint)caplen) : NULL, caplen, tvb_reported_length(tvb));
	remember(pinfo, &p, link);

	struct cs_frame fr = state ? cs_frame_result(state, pinfo->num) : (struct cs_frame){ 0 };
	const struct cs_violation *viol = state ? cs_first_violation(state, pinfo->num) : NULL;
	bool roce = p.status == RT_PARSE_ROCE;
	if (!roce && !viol)
		return 0;

	gint start = roce ? (gint)p.bth_off : 0;
	gint len = roce ? (gint)(MIN(p.roce_end, caplen) - p.bth_off) : 0;
	proto_item *ti = proto_tree_add_item(tree, proto_rocetest, tvb, start, len, ENC_NA);
	proto_tree *t = proto_item_add_subtree(ti, ett_rocetest);
	if (roce)
		add_icrc(t, tvb, pinfo, &p);
	if (roce && p.bth.opcode == RT_OPCODE_CNP)
		add_cnp(t, tvb, pinfo, &p);
	if (fr.flow)
		add_flow(t, tvb, pinfo, &p, &fr);
	add_rules(t, tvb, pinfo, viol);
	if (state && !fr.fed)
		expert_add_info(pinfo, ti, &ei_unchecked);
	return (gint)caplen;
}

/* ---- registration ---------------------------------------------------------------- */

static const enum_val_t pmtu_values[] = {
	{ "inferred", "Inferred per flow from its First/Middle packets", 0 },
	{ "256", "256", 256 },
	{ "512", "512", 512 },
	{ "1024", "1024", 1024 },
	{ "2048", "2048", 2048 },
	{ "4096", "4096", 4096 },
	{ NULL, NULL, 0 },
};

static const enum_val_t count_values[] = {
	{ "unknown", "Unknown (the rules that need it are not evaluated)", -1 },
	{ "0", "0", 0 }, { "1", "1", 1 }, { "2", "2", 2 }, { "3", "3", 3 },
	{ "4", "4", 4 }, { "5", "5", 5 }, { "6", "6", 6 }, { "7", "7", 7 },
	{ NULL, NULL, 0 },
};

static void register_prefs(void)
{
	module_t *m = prefs_register_protocol(proto_rocetest, NULL);
	prefs_register_enum_preference(m, "pmtu", "PMTU", "rocetest check --pmtu: the path MTU of every flow",
				       &pref_pmtu, pmtu_values, FALSE);
	prefs_register_string_preference(m, "timeout_us", "Local ACK timeout (us)",
					  "rocetest check --timeout-us (empty: unknown)", &pref_timeout_us);
	prefs_register_enum_preference(m, "retry_cnt", "retry_cnt", "rocetest check --retry-cnt", &pref_retry_cnt,
				       count_values, FALSE);
	prefs_register_enum_preference(m, "rnr_retry", "rnr_retry", "rocetest check --rnr-retry (7: unlimited)",
				       &pref_rnr_retry, count_values, FALSE);
	prefs_register_string_preference(m, "rules", "Only these rules",
					  "rocetest check --rules: comma-separated rule IDs (empty: every rule)",
					  &pref_rules);
	prefs_register_string_preference(m, "skip", "Skip these rules",
					  "rocetest check --skip: comma-separated rule IDs", &pref_skip);
}

static void register_fields(void)
{
	static hf_register_info hf[] = {
		{ &hf_icrc_status, { "ICRC", "rocetest.icrc.status", FT_STRING, BASE_NONE, NULL, 0x0,
				     "good, bad or unverified (cut by the snap length)", HFILL } },
		{ &hf_icrc_expected, { "Expected ICRC", "rocetest.icrc.expected", FT_UINT32, BASE_HEX, NULL, 0x0,
				       "The ICRC this packet should carry, its bytes in wire order as in "
				       "infiniband.invariant.crc", HFILL } },
		{ &hf_cnp, { "CNP", "rocetest.cnp", FT_NONE, BASE_NONE, NULL, 0x0,
			     "RoCEv2 congestion notification packet (opcode 0x81)", HFILL } },
		{ &hf_cnp_becn, { "BECN", "rocetest.cnp.becn", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_cnp_dest_qp, { "DestQP", "rocetest.cnp.dest_qp", FT_UINT24, BASE_HEX, NULL, 0x0,
				     "The QP whose traffic met congestion", HFILL } },
		{ &hf_rule, { "Rule", "rocetest.rule", FT_STRING, BASE_NONE, NULL, 0x0,
			      "A rule of the conformance catalogue this packet violates", HFILL } },
		{ &hf_rule_severity, { "Severity", "rocetest.rule.severity", FT_STRING, BASE_NONE, NULL, 0x0, NULL,
				       HFILL } },
		{ &hf_rule_message, { "Message", "rocetest.rule.message", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_flow, { "Flow", "rocetest.flow", FT_UINT32, BASE_DEC, NULL, 0x0,
			      "The connection (both QPs, both directions), numbered as rocetest check does", HFILL } },
		{ &hf_side, { "Side", "rocetest.side", FT_UINT8, BASE_DEC, NULL, 0x0,
			      "The flow's side that sent it (0: the sender of the flow's first packet)", HFILL } },
		{ &hf_rel_psn, { "Relative PSN", "rocetest.rel_psn", FT_UINT32, BASE_DEC, NULL, 0x0,
				 "PSN minus the first PSN of its stream (the requests and their answers)", HFILL } },
		{ &hf_retransmission, { "Retransmission", "rocetest.retransmission", FT_BOOLEAN, BASE_NONE, NULL, 0x0,
					"The PSN was sent before", HFILL } },
		{ &hf_nak, { "NAK", "rocetest.nak", FT_STRING, BASE_NONE, NULL, 0x0, "NAK or RNR NAK", HFILL } },
	};
	static gint *ett[] = { &ett_rocetest, &ett_cnp, &ett_rule };
	proto_register_field_array(proto_rocetest, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
}

static void register_experts(void)
{
	static ei_register_info ei[] = {
		{ &ei_icrc_bad, { "rocetest.icrc.bad", PI_CHECKSUM, PI_ERROR, "Bad ICRC", EXPFILL } },
		{ &ei_rule[GROUP_PKT][0], { "rocetest.expert.pkt.error", PI_MALFORMED, PI_ERROR, "PKT rule violated", EXPFILL } },
		{ &ei_rule[GROUP_PKT][1], { "rocetest.expert.pkt.warning", PI_MALFORMED, PI_WARN, "PKT rule warning", EXPFILL } },
		{ &ei_rule[GROUP_FLOW][0], { "rocetest.expert.seq.error", PI_SEQUENCE, PI_ERROR, "SEQ/RSP/REQ rule violated",
					      EXPFILL } },
		{ &ei_rule[GROUP_FLOW][1], { "rocetest.expert.seq.warning", PI_SEQUENCE, PI_WARN, "SEQ/RSP/REQ rule warning",
					      EXPFILL } },
		{ &ei_rule[GROUP_CM][0], { "rocetest.expert.cm.error", PI_PROTOCOL, PI_ERROR, "CM rule violated", EXPFILL } },
		{ &ei_rule[GROUP_CM][1], { "rocetest.expert.cm.warning", PI_PROTOCOL, PI_WARN, "CM rule warning", EXPFILL } },
		{ &ei_unchecked, { "rocetest.unchecked", PI_UNDECODED, PI_NOTE,
				   "Not checked: the frame came after the capture was taken as complete (a live "
				   "capture); reload the file for rule verdicts",
				   EXPFILL } },
	};
	expert_module_t *m = expert_register_protocol(proto_rocetest);
	expert_register_field_array(m, ei, array_length(ei));
}

void proto_register_rocetest(void)
{
	proto_rocetest = proto_register_protocol("RoCE conformance (rocetest)", "rocetest", "rocetest");
	register_fields();
	register_experts();
	register_prefs();
	register_init_routine(rocetest_init);
	register_cleanup_routine(rocetest_cleanup);
}

void proto_reg_handoff_rocetest(void)
{
	register_postdissector(create_dissector_handle(dissect_rocetest, proto_rocetest));
}
