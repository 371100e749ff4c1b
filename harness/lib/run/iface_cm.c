/* SPDX-License-Identifier: MIT */
/*
 * ARP and the CM frame of cm-frame.md over a live port (iface.h): the
 * host's side of a board's setup, one request and its reply at a time, with
 * timeouts and retries.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "rocetest/iface.h"

void rt_cm_reply_filter(const struct rt_cm_ends *e, char *buf, size_t size)
{
	char board[16], host[16];
	snprintf(buf, size, "ip src %s and ip dst %s and udp src port %u and udp dst port %u",
		 rt_format_ipv4(e->board_ip, board), rt_format_ipv4(e->host_ip, host), RT_CM_REPLY_PORT,
		 e->host_port);
}

/* Waits until the port has frames or deadline (wall ns) passes: 1, 0 on timeout, -1 on error. */
static int wait_port(struct rt_live *l, int64_t deadline, struct rt_error *err)
{
	int64_t left = deadline - rt_wall_ns();
	if (left <= 0)
		return 0;
	struct pollfd p = { .fd = rt_live_fd(l), .events = POLLIN };
	int ms = (int)((left + 999999) / 1000000);
	if (poll(&p, 1, ms) < 0) {
		rt_error_set(err, "%s: poll: %m", rt_live_iface(l));
		return -1;
	}
	return 1;
}

/* The first frame until deadline that match() accepts: 1, 0 on timeout, -1 on error. */
static int await(struct rt_live *l, int64_t deadline, bool (*match)(const uint8_t *f, uint32_t len, void *ctx),
		 void *ctx, struct rt_error *err)
{
	for (;;) {
		const uint8_t *f;
		uint32_t len;
		int64_t ts;
		int rc = rt_live_next(l, &f, &len, &ts, err);
		if (rc < 0)
			return -1;
		if (rc && match(f, len, ctx))
			return 1;
		if (rc)
			continue;
		rc = wait_port(l, deadline, err);
		if (rc <= 0)
			return rc;
	}
}

struct arp_wait {
	struct rt_cm_ends *ends;
};

static bool is_arp_reply(const uint8_t *f, uint32_t len, void *ctx)
{
	struct arp_wait *w = ctx;
	uint8_t smac[6], tmac[6];
	uint32_t sip, tip;
	if (!rt_arp_reply_parse(f, len, smac, &sip, tmac, &tip) || sip != w->ends->board_ip)
		return false;
	memcpy(w->ends->board_mac, smac, 6);
	return true;
}

int rt_live_arp_resolve(struct rt_live *l, struct rt_cm_ends *ends, const struct rt_cm_wait *w,
			struct rt_error *err)
{
	char ip[16];
	if (rt_live_set_filter(l, "arp", err))
		return -1;
	uint8_t f[RT_ARP_FRAME_BYTES];
	rt_arp_request_build(f, ends->host_mac, ends->host_ip, ends->board_ip);
	struct arp_wait aw = { .ends = ends };
	for (unsigned a = 0; a < w->attempts; a++) {
		if (rt_live_send(l, f, sizeof f, err))
			return -1;
		int rc = await(l, rt_wall_ns() + (int64_t)w->timeout_ms * 1000000, is_arp_reply, &aw, err);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	rt_error_set(err, "%s: no ARP reply from %s in %u attempts of %u ms: is the board up, cabled to %s, at that "
		     "address? (--dut-mac skips ARP)", rt_live_iface(l), rt_format_ipv4(ends->board_ip, ip), w->attempts,
		     w->timeout_ms, rt_live_iface(l));
	return -1;
}

struct cm_wait {
	const struct rt_cm_ends *ends;
	struct rt_cm_msg *rep;
};

static bool is_cm_reply(const uint8_t *f, uint32_t len, void *ctx)
{
	struct cm_wait *w = ctx;
	struct rt_cm_addr a;
	return rt_cm_frame_parse(f, len, &a, w->rep) && a.src_port == RT_CM_REPLY_PORT &&
	       a.dst_port == w->ends->host_port && a.src_ip == w->ends->board_ip && a.dst_ip == w->ends->host_ip;
}

int rt_cm_transact(struct rt_live *l, const struct rt_cm_ends *ends, const struct rt_cm_msg *req,
		   const struct rt_cm_wait *w, struct rt_cm_msg *rep, unsigned *attempt, struct rt_error *err)
{
	struct rt_cm_addr a = { .src_ip = ends->host_ip, .dst_ip = ends->board_ip, .src_port = ends->host_port,
				.dst_port = RT_CM_UDP_PORT };
	memcpy(a.src_mac, ends->host_mac, 6);
	memcpy(a.dst_mac, ends->board_mac, 6);
	struct cm_wait cw = { .ends = ends, .rep = rep };
	for (unsigned n = 1; n <= w->attempts; n++) {
		uint8_t f[RT_CM_FRAME_BYTES];
		a.ip_id = (uint16_t)n;
		rt_cm_frame_build(f, &a, req);
		if (rt_live_send(l, f, sizeof f, err))
			return -1;
		int rc = await(l, rt_wall_ns() + (int64_t)w->timeout_ms * 1000000, is_cm_reply, &cw, err);
		if (rc) {
			*attempt = n;
			return rc;
		}
	}
	return 0;
}
