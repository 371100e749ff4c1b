/* SPDX-License-Identifier: MIT */
/*
 * mkcm OUT.pcap: a capture of one connection-manager exchange
 * (../shared/spec/cm-frame.md) followed by RoCE traffic on the QP it set
 * up, built with the library (rt_cm_frame_build, rt_build), for the
 * plugin's snapshot test (dissectors/tests/run.sh). The same bytes every
 * run: fixed addresses, values and timestamps.
 *
 *   1-6  OPEN_QP, ACK; SEND_QP_INFO, ACK; MODIFY_QP_RTS, ACK
 *   7    a txmeta frame starting 2 WRITEs with immediate of 4096 bytes
 *   8-9  WRITE Only from the FPGA QP, the host's ACK
 *   10   a CNP from the host to the FPGA QP
 *   11   a WRITE Only whose ICRC is wrong
 *   12-13 CM requests with a 60-byte and a 68-byte payload (the endpoint accepts only 64)
 *   14-15 CLOSE_QP, ACK
 *   16-19 refusals: OPEN_QP answered NO_QP, MODIFY_QP_RTS of the closed QP answered NAK
 */
#include <stdio.h>
#include <string.h>

#include "rocetest/build.h"
#include "rocetest/capture.h"
#include "rocetest/checksum.h"
#include "rocetest/cm.h"
#include "rocetest/error.h"
#include "rocetest/opcode.h"

#define HOST_IP 0x0A000001u	/* 10.0.0.1 */
#define FPGA_IP 0x0A000002u	/* 10.0.0.2 */
#define HOST_PORT 0x4322
#define FPGA_QPN 256
#define FPGA_PSN 0x1000
#define HOST_QPN 0x1200
#define HOST_PSN 0x2000

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t fpga_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

struct out {
	struct rt_capture_writer *w;
	int64_t ts_ns;
	uint16_t ip_id;
	int failed;
};

static void emit(struct out *o, const uint8_t *f, size_t len)
{
	o->ts_ns += 1000;	/* 1 us apart */
	if (rt_capture_write(o->w, o->ts_ns, f, (uint32_t)len, (uint32_t)len))
		o->failed = 1;
}

/* A CM frame from the host (request) or the FPGA (reply). */
static void cm(struct out *o, bool from_host, const struct rt_cm_msg *m)
{
	struct rt_cm_addr a = { .src_ip = from_host ? HOST_IP : FPGA_IP, .dst_ip = from_host ? FPGA_IP : HOST_IP,
				.src_port = from_host ? HOST_PORT : RT_CM_REPLY_PORT,
				.dst_port = from_host ? RT_CM_UDP_PORT : HOST_PORT, .ip_id = o->ip_id++ };
	memcpy(a.src_mac, from_host ? host_mac : fpga_mac, 6);
	memcpy(a.dst_mac, from_host ? fpga_mac : host_mac, 6);
	uint8_t f[RT_CM_FRAME_BYTES];
	rt_cm_frame_build(f, &a, m);
	emit(o, f, sizeof f);
}

/* A request and its reply: the request echoed with the ACK bits and the FPGA's side filled in. */
static void exchange_answer(struct out *o, struct rt_cm_msg req, uint8_t ack_type)
{
	cm(o, true, &req);
	struct rt_cm_msg rep = req;
	rep.ack_valid = true;
	rep.ack_type = ack_type;
	rep.loc_qpn = FPGA_QPN;
	rep.loc_psn = FPGA_PSN;
	rep.loc_rkey = 0xB001;
	rep.loc_base = 0x20000000;
	rep.loc_ip = FPGA_IP;
	cm(o, false, &rep);
}

static void exchange(struct out *o, struct rt_cm_msg req)
{
	exchange_answer(o, req, RT_CM_ACK);
}

static void put_ip(uint8_t ip[16], uint32_t v)
{
	ip[0] = (uint8_t)(v >> 24);
	ip[1] = (uint8_t)(v >> 16);
	ip[2] = (uint8_t)(v >> 8);
	ip[3] = (uint8_t)v;
}

/* A RoCE packet between the two QPs. */
static void roce(struct out *o, bool from_host, uint8_t opcode, uint32_t psn, uint32_t len, bool bad_icrc)
{
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	memcpy(s.src_mac, from_host ? host_mac : fpga_mac, 6);
	memcpy(s.dst_mac, from_host ? fpga_mac : host_mac, 6);
	put_ip(s.src_ip, from_host ? HOST_IP : FPGA_IP);
	put_ip(s.dst_ip, from_host ? FPGA_IP : HOST_IP);
	s.udp_sport = 0xC000 + (from_host ? 1 : 2);
	s.bth.opcode = opcode;
	s.bth.pkey = 0xFFFF;
	s.bth.dest_qp = from_host ? FPGA_QPN : HOST_QPN;
	s.bth.psn = psn;
	s.bth.ack_req = opcode == RT_OP_WRITE_ONLY;
	s.bth.becn = opcode == RT_OPCODE_CNP;
	s.ext.reth = (struct rt_reth){ .va = 0x30000000, .rkey = 0xA001, .dma_len = len };
	s.ext.aeth = (struct rt_aeth){ .syndrome = 0x1F, .msn = 1 };
	s.payload_len = len;
	s.corrupt_icrc = bad_icrc;
	uint8_t f[2048];
	size_t n = rt_build(&s, f, sizeof f);
	if (!n)
		o->failed = 1;
	emit(o, f, n);
}

/* A CM request whose UDP payload is 64 + delta bytes (zeros added or bytes cut), its lengths and checksum agreeing. */
static void odd_cm(struct out *o, int delta)
{
	struct rt_cm_msg m = { .qp_info_valid = true, .req_type = RT_CM_OPEN_QP, .listening_port = HOST_PORT };
	struct rt_cm_addr a = { .src_ip = HOST_IP, .dst_ip = FPGA_IP, .src_port = HOST_PORT,
				.dst_port = RT_CM_UDP_PORT, .ip_id = o->ip_id++ };
	memcpy(a.src_mac, host_mac, 6);
	memcpy(a.dst_mac, fpga_mac, 6);
	uint8_t f[RT_CM_FRAME_BYTES + 16] = { 0 };
	rt_cm_frame_build(f, &a, &m);
	rt_put_be16(f + 16, (uint16_t)(RT_CM_FRAME_BYTES - 14 + delta));
	rt_put_be16(f + 24, 0);
	rt_put_be16(f + 24, rt_ipv4_header_checksum(f + 14, 20));
	rt_put_be16(f + 38, (uint16_t)(8 + RT_CM_PAYLOAD_BYTES + delta));
	emit(o, f, (size_t)(RT_CM_FRAME_BYTES + delta));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkcm OUT.pcap\n");
		return 2;
	}
	struct rt_error err;
	struct out o = { .ts_ns = RT_CAPTURE_EPOCH_NS, .ip_id = 1 };
	o.w = rt_capture_writer_open(argv[1], rt_link_dlt(RT_LINK_ETHERNET), 65535, &err);
	if (!o.w) {
		fprintf(stderr, "mkcm: %s\n", err.msg);
		return 2;
	}
	struct rt_cm_msg req = { .qp_info_valid = true, .req_type = RT_CM_OPEN_QP, .listening_port = HOST_PORT };
	exchange(&o, req);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_SEND_QP_INFO, .loc_qpn = FPGA_QPN,
				  .rem_qpn = HOST_QPN, .rem_psn = HOST_PSN, .rem_rkey = 0xA001, .rem_base = 0x30000000,
				  .rem_ip = HOST_IP, .listening_port = HOST_PORT };
	exchange(&o, req);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_MODIFY_QP_RTS, .loc_qpn = FPGA_QPN,
				  .listening_port = HOST_PORT };
	exchange(&o, req);
	req = (struct rt_cm_msg){ .txmeta_valid = true, .start = true, .is_immediate = true, .tx_write = true,
				  .loc_qpn = FPGA_QPN, .dma_length = 4096, .n_transfers = 2, .listening_port = HOST_PORT };
	cm(&o, true, &req);
	roce(&o, false, RT_OP_WRITE_ONLY, FPGA_PSN, 64, false);
	roce(&o, true, RT_OP_ACK, FPGA_PSN, 0, false);
	roce(&o, true, RT_OPCODE_CNP, 0, 16, false);
	roce(&o, false, RT_OP_WRITE_ONLY, FPGA_PSN + 1, 64, true);
	odd_cm(&o, -4);
	odd_cm(&o, 4);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_CLOSE_QP, .loc_qpn = FPGA_QPN,
				  .listening_port = HOST_PORT };
	exchange(&o, req);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_OPEN_QP, .listening_port = HOST_PORT };
	exchange_answer(&o, req, RT_CM_NO_QP);
	req = (struct rt_cm_msg){ .qp_info_valid = true, .req_type = RT_CM_MODIFY_QP_RTS, .loc_qpn = FPGA_QPN,
				  .listening_port = HOST_PORT };
	exchange_answer(&o, req, RT_CM_NAK);
	if (rt_capture_writer_close(o.w, &err) || o.failed) {
		fprintf(stderr, "mkcm: %s: %s\n", argv[1], o.failed ? "a frame could not be built or written" : err.msg);
		return 2;
	}
	return 0;
}
