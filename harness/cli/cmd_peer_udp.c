/* SPDX-License-Identifier: MIT */
/*
 * The CM frames of `rocetest peer` over a plain UDP socket: the host has a
 * kernel IP address (its RDMA device's), so no raw socket and no
 * CAP_NET_RAW. The socket is bound to listening_port, where the board's
 * replies come (from its port 0x8765).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_peer.h"
#include "rocetest/iface.h"

int peer_udp_open(struct peer_udp *u, uint32_t local_ip, uint16_t port, uint32_t board_ip)
{
	char ip[16];
	u->board_ip = board_ip;
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		cli_error("UDP socket: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(local_ip) };
	if (bind(u->fd, (struct sockaddr *)&a, sizeof a)) {
		cli_error("binding UDP %s:%u (listening_port, where the board's CM replies go): %s",
			  rt_format_ipv4(local_ip, ip), port, strerror(errno));
		close(u->fd);
		u->fd = -1;
		return -1;
	}
	return 0;
}

static int udp_send(void *ctx, const uint8_t payload[RT_CM_PAYLOAD_BYTES], struct rt_error *err)
{
	struct peer_udp *u = ctx;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(RT_CM_UDP_PORT),
				  .sin_addr.s_addr = htonl(u->board_ip) };
	if (sendto(u->fd, payload, RT_CM_PAYLOAD_BYTES, 0, (struct sockaddr *)&to, sizeof to) != RT_CM_PAYLOAD_BYTES) {
		char ip[16];
		rt_error_set(err, "sending the CM frame to %s: %m", rt_format_ipv4(u->board_ip, ip));
		return -1;
	}
	return 0;
}

static int udp_recv(void *ctx, uint8_t *buf, size_t size, size_t *len, uint32_t *src_ip, uint16_t *src_port,
		    unsigned timeout_ms, struct rt_error *err)
{
	struct peer_udp *u = ctx;
	struct pollfd p = { .fd = u->fd, .events = POLLIN };
	int rc = poll(&p, 1, (int)timeout_ms);
	if (rc < 0 && errno != EINTR) {
		rt_error_set(err, "waiting for the board's CM reply: %m");
		return -1;
	}
	if (rc <= 0)
		return 0;
	struct sockaddr_in from;
	socklen_t fl = sizeof from;
	ssize_t n = recvfrom(u->fd, buf, size, MSG_TRUNC, (struct sockaddr *)&from, &fl);
	if (n < 0) {
		/* An ICMP error of an earlier send (port unreachable) surfaces here: no answer from there. */
		if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == EAGAIN)
			return 0;
		rt_error_set(err, "receiving the board's CM reply: %m");
		return -1;
	}
	*len = (size_t)n;
	*src_ip = ntohl(from.sin_addr.s_addr);
	*src_port = ntohs(from.sin_port);
	return 1;
}

void peer_udp_transport(struct peer_udp *u, struct rt_peer_transport *t)
{
	*t = (struct rt_peer_transport){ .ctx = u, .send = udp_send, .recv = udp_recv };
}

void peer_udp_close(struct peer_udp *u)
{
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}
