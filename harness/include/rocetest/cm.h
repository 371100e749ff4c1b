/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/*
 * The out-of-band connection manager frame of ../shared/spec/cm-frame.md
 * (UDP 0x4321, a 64-byte payload) that sets up the FPGA endpoint's QPs, and
 * the ARP request a host sends first. "loc" is the FPGA side, "rem" the host.
 */
#ifndef ROCETEST_CM_H
#define ROCETEST_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_CM_UDP_PORT 0x4321		/* the endpoint listens here */
#define RT_CM_REPLY_PORT 0x8765		/* ... and replies from here */
#define RT_CM_PAYLOAD_BYTES 64
#define RT_CM_FRAME_BYTES 106		/* Ethernet 14 + IPv4 20 + UDP 8 + 64 */
#define RT_ARP_FRAME_BYTES 60		/* padded to the Ethernet minimum (no FCS) */

enum rt_cm_req {
	RT_CM_REQ_NULL = 0,
	RT_CM_OPEN_QP = 1,
	RT_CM_SEND_QP_INFO = 2,
	RT_CM_MODIFY_QP_RTS = 3,
	RT_CM_CLOSE_QP = 4,
	RT_CM_REQ_ERROR = 7,
};

enum rt_cm_ack {
	RT_CM_ACK_NULL = 0,
	RT_CM_ACK = 1,
	RT_CM_NO_QP = 2,
	RT_CM_NAK = 3,
	RT_CM_ACK_ERROR = 7,
};

struct rt_cm_msg {
	bool qp_info_valid;
	uint8_t req_type;	/* enum rt_cm_req */
	bool ack_valid;
	uint8_t ack_type;	/* enum rt_cm_ack */
	uint32_t loc_qpn, loc_psn, loc_rkey;
	uint64_t loc_base;
	uint32_t loc_ip;
	uint32_t rem_qpn, rem_psn, rem_rkey;
	uint64_t rem_base;
	uint32_t rem_ip;
	uint16_t listening_port;
	bool txmeta_valid, start, is_immediate, tx_write;
	uint32_t dma_length, n_transfers, frequency;
};

/* The names of req_type and ack_type values ("OPEN_QP", "NO_QP"; "reserved" for codes cm-frame.md leaves open). */
const char *rt_cm_req_name(unsigned req);
const char *rt_cm_ack_name(unsigned ack);

/* The 64-byte payload and back (24-bit fields keep only their 24 bits). */
void rt_cm_encode(const struct rt_cm_msg *m, uint8_t payload[RT_CM_PAYLOAD_BYTES]);
void rt_cm_decode(const uint8_t payload[RT_CM_PAYLOAD_BYTES], struct rt_cm_msg *m);

/* Addresses of a CM or ARP frame (IPv4, host order). */
struct rt_cm_addr {
	uint8_t src_mac[6], dst_mac[6];
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
	uint16_t ip_id;
};

/* A CM frame (RT_CM_FRAME_BYTES) into buf: IPv4 DF, TTL 64, header checksum, UDP checksum 0. */
void rt_cm_frame_build(uint8_t buf[RT_CM_FRAME_BYTES], const struct rt_cm_addr *a, const struct rt_cm_msg *m);
/* True when frame is an IPv4/UDP frame of a CM's length from or to port 0x4321/0x8765; fills a and m. */
bool rt_cm_frame_parse(const uint8_t *frame, uint32_t len, struct rt_cm_addr *a, struct rt_cm_msg *m);

/* An ARP request (broadcast, who has target_ip) from src_mac/src_ip into buf (RT_ARP_FRAME_BYTES). */
void rt_arp_request_build(uint8_t buf[RT_ARP_FRAME_BYTES], const uint8_t src_mac[6], uint32_t src_ip,
			  uint32_t target_ip);
/* True when frame is an ARP reply; fills the sender's MAC and IP and the target's. */
bool rt_arp_reply_parse(const uint8_t *frame, uint32_t len, uint8_t sender_mac[6], uint32_t *sender_ip,
			uint8_t target_mac[6], uint32_t *target_ip);

#endif
