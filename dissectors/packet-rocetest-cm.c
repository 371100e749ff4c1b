/* SPDX-License-Identifier: MIT */
/*
 * "rocetest_cm": the out-of-band connection-manager frame of
 * ../shared/spec/cm-frame.md, the 64-byte UDP payload the FPGA endpoint
 * receives on port 0x4321 and answers from port 0x8765. The library's
 * rt_cm_decode() (harness/lib/packet/cm.c) reads the fields; this file only
 * says where each one sits, for the byte view, and names the values.
 */
#include <epan/expert.h>
#include <epan/packet.h>

#include "plugin.h"
#include "rocetest/cm.h"

static int proto_rocetest_cm = -1;

static int hf_qp_info_valid = -1, hf_req_type = -1, hf_ack_valid = -1, hf_ack_type = -1;
static int hf_loc_qpn = -1, hf_loc_psn = -1, hf_loc_rkey = -1, hf_loc_base = -1, hf_loc_ip = -1;
static int hf_rem_qpn = -1, hf_rem_psn = -1, hf_rem_rkey = -1, hf_rem_base = -1, hf_rem_ip = -1;
static int hf_listening_port = -1, hf_txmeta_valid = -1, hf_start = -1, hf_is_immediate = -1, hf_tx_type = -1;
static int hf_dma_length = -1, hf_n_transfers = -1, hf_frequency = -1, hf_reserved = -1;

static gint ett_cm = -1;
static expert_field ei_cm_length = EI_INIT;

/* The names of req_type and ack_type (3 bits each), filled from the library's at registration. */
static value_string req_type_names[9];
static value_string ack_type_names[9];

static void fill_names(void)
{
	for (unsigned i = 0; i < 8; i++) {
		req_type_names[i] = (value_string){ i, rt_cm_req_name(i) };
		ack_type_names[i] = (value_string){ i, rt_cm_ack_name(i) };
	}
}

static const true_false_string tx_type_names = { "WRITE", "SEND" };

/* Where cm-frame.md puts each field (offset, bytes): for the byte view only. */
enum { OFF_FLAGS = 0, OFF_LOC_QPN = 2, OFF_LOC_PSN = 6, OFF_LOC_RKEY = 9, OFF_LOC_BASE = 13, OFF_LOC_IP = 21,
       OFF_REM_QPN = 26, OFF_REM_PSN = 30, OFF_REM_RKEY = 33, OFF_REM_BASE = 37, OFF_REM_IP = 45, OFF_PORT = 49,
       OFF_TXMETA = 51, OFF_DMA_LENGTH = 52, OFF_N_TRANSFERS = 56, OFF_FREQUENCY = 60 };
/* The bytes cm-frame.md says are zero. */
static const int zero_bytes[] = { 1, 5, 25, 29 };

static void add_side(proto_tree *t, tvbuff_t *tvb, int off_qpn, uint32_t qpn, uint32_t psn, uint32_t rkey,
		     uint64_t base, uint32_t ip, const int *hf)
{
	int off_psn = off_qpn + 4, off_rkey = off_psn + 3, off_base = off_rkey + 4, off_ip = off_base + 8;
	proto_tree_add_uint(t, hf[0], tvb, off_qpn, 3, qpn);
	proto_tree_add_uint(t, hf[1], tvb, off_psn, 3, psn);
	proto_tree_add_uint(t, hf[2], tvb, off_rkey, 4, rkey);
	proto_tree_add_uint64(t, hf[3], tvb, off_base, 8, base);
	proto_tree_add_ipv4(t, hf[4], tvb, off_ip, 4, g_htonl(ip));
}

static void add_fields(proto_tree *t, tvbuff_t *tvb, const struct rt_cm_msg *m, const uint8_t *b)
{
	proto_tree_add_boolean(t, hf_qp_info_valid, tvb, OFF_FLAGS, 1, m->qp_info_valid);
	proto_tree_add_uint(t, hf_req_type, tvb, OFF_FLAGS, 1, m->req_type);
	proto_tree_add_boolean(t, hf_ack_valid, tvb, OFF_FLAGS, 1, m->ack_valid);
	proto_tree_add_uint(t, hf_ack_type, tvb, OFF_FLAGS, 1, m->ack_type);
	const int loc[] = { hf_loc_qpn, hf_loc_psn, hf_loc_rkey, hf_loc_base, hf_loc_ip };
	const int rem[] = { hf_rem_qpn, hf_rem_psn, hf_rem_rkey, hf_rem_base, hf_rem_ip };
	add_side(t, tvb, OFF_LOC_QPN, m->loc_qpn, m->loc_psn, m->loc_rkey, m->loc_base, m->loc_ip, loc);
	add_side(t, tvb, OFF_REM_QPN, m->rem_qpn, m->rem_psn, m->rem_rkey, m->rem_base, m->rem_ip, rem);
	proto_tree_add_uint(t, hf_listening_port, tvb, OFF_PORT, 2, m->listening_port);
	proto_tree_add_boolean(t, hf_txmeta_valid, tvb, OFF_TXMETA, 1, m->txmeta_valid);
	proto_tree_add_boolean(t, hf_start, tvb, OFF_TXMETA, 1, m->start);
	proto_tree_add_boolean(t, hf_is_immediate, tvb, OFF_TXMETA, 1, m->is_immediate);
	proto_tree_add_boolean(t, hf_tx_type, tvb, OFF_TXMETA, 1, m->tx_write);
	proto_tree_add_uint(t, hf_dma_length, tvb, OFF_DMA_LENGTH, 4, m->dma_length);
	proto_tree_add_uint(t, hf_n_transfers, tvb, OFF_N_TRANSFERS, 4, m->n_transfers);
	proto_tree_add_uint(t, hf_frequency, tvb, OFF_FREQUENCY, 4, m->frequency);
	/* The zero bytes, and byte 51's high nibble, which no field of rt_cm_msg holds. */
	for (size_t i = 0; i < G_N_ELEMENTS(zero_bytes); i++)
		proto_tree_add_uint_format_value(t, hf_reserved, tvb, zero_bytes[i], 1, b[zero_bytes[i]], "0x%02x (byte %d)",
						 b[zero_bytes[i]], zero_bytes[i]);
	proto_tree_add_uint_format_value(t, hf_reserved, tvb, OFF_TXMETA, 1, b[OFF_TXMETA] >> 4,
					 "0x%x (byte %d, bits 7-4)", b[OFF_TXMETA] >> 4, OFF_TXMETA);
}

static void set_info(packet_info *pinfo, const struct rt_cm_msg *m)
{
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RoCE CM");
	if (m->ack_valid)
		col_add_fstr(pinfo->cinfo, COL_INFO, "CM %s to %s, QPN %u", rt_cm_ack_name(m->ack_type),
			     rt_cm_req_name(m->req_type), m->loc_qpn);
	else if (m->txmeta_valid)
		col_add_fstr(pinfo->cinfo, COL_INFO, "CM txmeta%s, QPN %u: %u x %u-byte %s%s", m->start ? " start" : "",
			     m->loc_qpn, m->n_transfers, m->dma_length, m->tx_write ? "WRITE" : "SEND",
			     m->is_immediate ? " with immediate" : "");
	else if (m->loc_qpn)
		col_add_fstr(pinfo->cinfo, COL_INFO, "CM %s, QPN %u", rt_cm_req_name(m->req_type), m->loc_qpn);
	else
		col_add_fstr(pinfo->cinfo, COL_INFO, "CM %s", rt_cm_req_name(m->req_type));
}

static int dissect_rocetest_cm(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	guint len = tvb_captured_length(tvb);
	proto_item *ti = proto_tree_add_item(tree, proto_rocetest_cm, tvb, 0, -1, ENC_NA);
	if (tvb_reported_length(tvb) != RT_CM_PAYLOAD_BYTES || len < RT_CM_PAYLOAD_BYTES) {
		col_set_str(pinfo->cinfo, COL_PROTOCOL, "RoCE CM");
		col_add_fstr(pinfo->cinfo, COL_INFO, "CM payload of %u bytes (64 expected)", tvb_reported_length(tvb));
		expert_add_info_format(pinfo, ti, &ei_cm_length, "A CM payload is 64 bytes; this one is %u (%u captured)",
				       tvb_reported_length(tvb), len);
		return (int)len;
	}
	const uint8_t *b = tvb_get_ptr(tvb, 0, RT_CM_PAYLOAD_BYTES);
	struct rt_cm_msg m;
	rt_cm_decode(b, &m);
	set_info(pinfo, &m);
	proto_item_append_text(ti, ", %s%s%s", rt_cm_req_name(m.req_type),
			       m.ack_valid ? ", " : "", m.ack_valid ? rt_cm_ack_name(m.ack_type) : "");
	add_fields(proto_item_add_subtree(ti, ett_cm), tvb, &m, b);
	return RT_CM_PAYLOAD_BYTES;
}

#define CM_UINT(hf, name, abbrev, type, base, blurb) \
	{ &hf, { name, "rocetest_cm." abbrev, type, base, NULL, 0x0, blurb, HFILL } }
#define CM_BOOL(hf, name, abbrev, blurb) \
	{ &hf, { name, "rocetest_cm." abbrev, FT_BOOLEAN, BASE_NONE, NULL, 0x0, blurb, HFILL } }

void proto_register_rocetest_cm(void)
{
	static hf_register_info hf[] = {
		CM_BOOL(hf_qp_info_valid, "QP info valid", "qp_info_valid", "Byte 0 bit 0"),
		{ &hf_req_type, { "Request type", "rocetest_cm.req_type", FT_UINT8, BASE_DEC, VALS(req_type_names), 0x0,
				  "Byte 0 bits 3-1", HFILL } },
		CM_BOOL(hf_ack_valid, "ACK valid", "ack_valid", "Byte 0 bit 4"),
		{ &hf_ack_type, { "ACK type", "rocetest_cm.ack_type", FT_UINT8, BASE_DEC, VALS(ack_type_names), 0x0,
				  "Byte 0 bits 7-5", HFILL } },
		CM_UINT(hf_loc_qpn, "Local (FPGA) QPN", "loc_qpn", FT_UINT24, BASE_DEC_HEX, NULL),
		CM_UINT(hf_loc_psn, "Local PSN", "loc_psn", FT_UINT24, BASE_DEC_HEX, NULL),
		CM_UINT(hf_loc_rkey, "Local R_Key", "loc_rkey", FT_UINT32, BASE_HEX, NULL),
		CM_UINT(hf_loc_base, "Local base address", "loc_base_addr", FT_UINT64, BASE_HEX, NULL),
		CM_UINT(hf_loc_ip, "Local IP", "loc_ip", FT_IPv4, BASE_NONE, NULL),
		CM_UINT(hf_rem_qpn, "Remote (host) QPN", "rem_qpn", FT_UINT24, BASE_DEC_HEX, NULL),
		CM_UINT(hf_rem_psn, "Remote PSN", "rem_psn", FT_UINT24, BASE_DEC_HEX, NULL),
		CM_UINT(hf_rem_rkey, "Remote R_Key", "rem_rkey", FT_UINT32, BASE_HEX, NULL),
		CM_UINT(hf_rem_base, "Remote base address", "rem_base_addr", FT_UINT64, BASE_HEX, NULL),
		CM_UINT(hf_rem_ip, "Remote IP", "rem_ip", FT_IPv4, BASE_NONE, NULL),
		CM_UINT(hf_listening_port, "Listening port", "listening_port", FT_UINT16, BASE_DEC,
			"The UDP port replies go to"),
		CM_BOOL(hf_txmeta_valid, "txmeta valid", "txmeta_valid", "Byte 51 bit 0"),
		CM_BOOL(hf_start, "Start", "start", "Byte 51 bit 1: start the transfer"),
		CM_BOOL(hf_is_immediate, "With immediate", "is_immediate", "Byte 51 bit 2"),
		{ &hf_tx_type, { "Transfer type", "rocetest_cm.tx_type", FT_BOOLEAN, BASE_NONE, TFS(&tx_type_names), 0x0,
				 "Byte 51 bit 3: 0 SEND, 1 WRITE", HFILL } },
		CM_UINT(hf_dma_length, "DMA length", "dma_length", FT_UINT32, BASE_DEC, "Bytes per transfer"),
		CM_UINT(hf_n_transfers, "Transfers", "n_transfers", FT_UINT32, BASE_DEC, NULL),
		CM_UINT(hf_frequency, "Frequency divider", "frequency", FT_UINT32, BASE_DEC,
			"Message rate divider (0: as fast as possible)"),
		CM_UINT(hf_reserved, "Zero", "zero", FT_UINT8, BASE_HEX, "Bytes 1, 5, 25, 29 and byte 51's bits 7-4"),
	};
	static gint *ett[] = { &ett_cm };
	static ei_register_info ei[] = {
		{ &ei_cm_length, { "rocetest_cm.length", PI_MALFORMED, PI_ERROR, "A CM payload is 64 bytes", EXPFILL } },
	};
	fill_names();
	proto_rocetest_cm = proto_register_protocol("RoCE connection manager (rocetest)", "RoCE CM", "rocetest_cm");
	proto_register_field_array(proto_rocetest_cm, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto_rocetest_cm), ei, array_length(ei));
}

void proto_reg_handoff_rocetest_cm(void)
{
	dissector_handle_t h = create_dissector_handle(dissect_rocetest_cm, proto_rocetest_cm);
	dissector_add_uint_with_preference("udp.port", RT_CM_UDP_PORT, h);
	dissector_add_uint("udp.port", RT_CM_REPLY_PORT, h);
}
