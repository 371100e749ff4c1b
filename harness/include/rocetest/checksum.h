/* SPDX-License-Identifier: MIT */
/* Layer: packet. */
/* Internet checksums (RFC 1071) for the IPv4 header and UDP over IPv4/IPv6. */
#ifndef ROCETEST_CHECKSUM_H
#define ROCETEST_CHECKSUM_H

#include <stdint.h>

#include "rocetest/packet.h"

/* The IPv4 header checksum of ip[0, hdr_len) computed with the checksum field as zero. */
uint16_t rt_ipv4_header_checksum(const uint8_t *ip, unsigned hdr_len);

/*
 * The UDP checksum of a parsed RoCEv2 packet (IPv4 or IPv6 pseudo-header),
 * computed with the checksum field as zero, over the UDP length. A result of
 * 0 is sent as 0xFFFF (RFC 768). Needs the whole UDP datagram captured.
 * Returns 0 (never a valid result) for a packet without a UDP header.
 */
uint16_t rt_udp_checksum(const struct rt_packet *p);

#endif
