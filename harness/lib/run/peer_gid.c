/* SPDX-License-Identifier: MIT */
/*
 * The GID entry `rocetest peer` sends from. A port lists one entry per
 * address and RoCE version (rxe: index 0 RoCE v1 and 1 RoCE v2 of the
 * link-local IPv6 address, then a v1/v2 pair per IPv4 and IPv6 address; mlx5
 * the same, in the order the addresses came). The board speaks RoCE v2 over
 * IPv4 only, so only a v2 entry with an IPv4-mapped address can reach it, and
 * picking another one is the most common reason a host QP never connects.
 */
#include <stdio.h>
#include <string.h>

#include "rocetest/iface.h"
#include "rocetest/peer.h"

const char *rt_gid_type_name(enum rt_gid_type t)
{
	switch (t) {
	case RT_GID_IB: return "IB";
	case RT_GID_ROCE_V1: return "RoCE v1";
	case RT_GID_ROCE_V2: return "RoCE v2";
	}
	return "unknown";
}

bool rt_gid_ipv4(const uint8_t gid[16], uint32_t *ip)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
	if (memcmp(gid, prefix, sizeof prefix))
		return false;
	*ip = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 | gid[15];
	return true;
}

const char *rt_gid_format(const uint8_t gid[16], char *buf)
{
	for (int i = 0; i < 8; i++)
		sprintf(buf + 5 * i, "%02x%02x%s", gid[2 * i], gid[2 * i + 1], i < 7 ? ":" : "");
	return buf;
}

void rt_gid_table_format(const struct rt_gid_entry *t, size_t n, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		char g[40], ip[16] = "-";
		uint32_t a;
		if (rt_gid_ipv4(t[i].gid, &a))
			rt_format_ipv4(a, ip);
		int w = snprintf(buf + used, size - used, "  %3u  %-7s  %s  %-15s  %s\n", t[i].index,
				 rt_gid_type_name(t[i].type), rt_gid_format(t[i].gid, g), ip,
				 t[i].netdev[0] ? t[i].netdev : "-");
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static bool usable(const struct rt_gid_entry *e, uint32_t *ip)
{
	return e->type == RT_GID_ROCE_V2 && rt_gid_ipv4(e->gid, ip);
}

/* --gid-index N: the entry must exist and be usable. */
static int choose_forced(const struct rt_gid_entry *t, size_t n, unsigned force, struct rt_gid_choice *c,
			 struct rt_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].index != force)
			continue;
		if (!usable(&t[i], &c->ip)) {
			rt_error_set(err, "GID index %u is %s %s, not RoCE v2 with an IPv4-mapped address: the board "
				     "speaks RoCE v2 over IPv4 only", force, rt_gid_type_name(t[i].type),
				     rt_gid_ipv4(t[i].gid, &c->ip) ? "(IPv4-mapped)" : "with an IPv6 address");
			return -1;
		}
		c->index = force;
		snprintf(c->why, sizeof c->why, "as --gid-index asked");
		return 0;
	}
	rt_error_set(err, "GID index %u is not in the port's table", force);
	return -1;
}

int rt_gid_choose(const struct rt_gid_entry *t, size_t n, int force, uint32_t want_ip, struct rt_gid_choice *c,
		  struct rt_error *err)
{
	char ip[16];
	memset(c, 0, sizeof *c);
	if (force >= 0)
		return choose_forced(t, n, (unsigned)force, c, err);
	unsigned others = 0;
	const struct rt_gid_entry *pick = NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t a;
		if (!usable(&t[i], &a) || (want_ip && a != want_ip))
			continue;
		if (!pick) {
			pick = &t[i];
			c->ip = a;
		} else {
			others++;
		}
	}
	if (!pick) {
		if (want_ip)
			rt_error_set(err, "no RoCE v2 GID has the address %s (--local-ip): give the interface that "
				     "address or choose another", rt_format_ipv4(want_ip, ip));
		else
			rt_error_set(err, "no RoCE v2 GID with an IPv4-mapped address, and the board speaks RoCE v2 over "
				     "IPv4 only: give the RDMA device's interface an IPv4 address (ip addr add A/24 dev IF)");
		return -1;
	}
	c->index = pick->index;
	snprintf(c->why, sizeof c->why, "the %s RoCE v2 entry with an IPv4-mapped address%s%s%s",
		 others ? "first" : "only", want_ip ? " (" : "", want_ip ? rt_format_ipv4(want_ip, ip) : "",
		 want_ip ? ", --local-ip)" : "");
	if (others)
		snprintf(c->why + strlen(c->why), sizeof c->why - strlen(c->why), "; %u more: --gid-index picks one",
			 others);
	return 0;
}
