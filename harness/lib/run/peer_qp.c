/* SPDX-License-Identifier: MIT */
/*
 * The host QP's attributes from the CM exchange, the messages of the
 * board's traffic generator and the data they carry, and the rates.
 */
#include <stdio.h>
#include <string.h>

#include "rocetest/peer.h"

/* The host's timers and retries: the board's own defaults (rt_board_own_config), so both ends wait alike. */
enum { HOST_TIMEOUT = 14, HOST_RETRY_CNT = 7, HOST_RNR_RETRY = 7, HOST_HOP_LIMIT = 64 };

unsigned rt_peer_mtu_enum(uint32_t pmtu)
{
	for (unsigned e = 1; e <= 5; e++)
		if (pmtu == 128u << e)
			return e;
	return 0;
}

uint32_t rt_peer_mtu_bytes(unsigned mtu_enum)
{
	return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 0;
}

int rt_peer_qp_attr(const struct rt_peer_cm *cm, const struct rt_peer_qp_params *p, struct rt_peer_qp_attr *a,
		    struct rt_error *err)
{
	memset(a, 0, sizeof *a);
	a->path_mtu = rt_peer_mtu_enum(p->pmtu);
	if (!a->path_mtu) {
		rt_error_set(err, "PMTU %u: the board's PMTU is 256, 512, 1024, 2048 or 4096 bytes", p->pmtu);
		return -1;
	}
	if (p->port_active_pmtu && p->pmtu > p->port_active_pmtu) {
		rt_error_set(err, "the board's PMTU %u exceeds the port's active MTU %u: raise the interface's MTU "
			     "(ip link set IF mtu 9000 carries 4096) or lower --pmtu to the board's", p->pmtu,
			     p->port_active_pmtu);
		return -1;
	}
	a->port = p->port;
	a->remote_write = true;
	a->dest_qpn = cm->board.qpn;
	a->rq_psn = cm->board.psn;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = p->min_rnr_timer;
	a->dgid[10] = a->dgid[11] = 0xFF;
	for (int i = 0; i < 4; i++)
		a->dgid[12 + i] = (uint8_t)(cm->board.ip >> (24 - 8 * i));
	a->sgid_index = p->sgid_index;
	a->hop_limit = HOST_HOP_LIMIT;
	a->sq_psn = cm->host.psn & 0xFFFFFF;
	a->timeout = HOST_TIMEOUT;
	a->retry_cnt = HOST_RETRY_CNT;
	a->rnr_retry = HOST_RNR_RETRY;
	a->max_rd_atomic = 1;
	return 0;
}

void rt_txgen_message(unsigned qp_index, uint32_t length, uint32_t k, struct rt_txgen_msg *m)
{
	m->local_offset = (uint64_t)k * length;
	m->remote_offset = (uint64_t)k * length;
	m->imm = k;
	m->wr_id = 0xF0ull << 56 | (uint64_t)(qp_index & 0xFF) << 48 | k;
}

void rt_txgen_pattern(uint64_t offset, uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t o = offset + i;
		buf[i] = (uint8_t)((o >> 2) >> (8 * (o & 3)));
	}
}

size_t rt_txgen_pattern_mismatch(uint64_t offset, const uint8_t *got, size_t n)
{
	uint8_t want[256];
	for (size_t done = 0; done < n;) {
		size_t part = n - done < sizeof want ? n - done : sizeof want;
		rt_txgen_pattern(offset + done, want, part);
		if (memcmp(want, got + done, part))
			for (size_t i = 0; i < part; i++)
				if (want[i] != got[done + i])
					return done + i;
		done += part;
	}
	return n;
}

void rt_peer_rate_init(struct rt_peer_rate *r, int64_t start_ns)
{
	memset(r, 0, sizeof *r);
	r->start_ns = r->last_ns = start_ns;
}

void rt_peer_rate_add(struct rt_peer_rate *r, int64_t now_ns, uint32_t bytes, bool ok)
{
	if (!ok) {
		r->errors++;
		return;
	}
	r->messages++;
	r->bytes += bytes;
	r->last_ns = now_ns;
}

static double span_s(const struct rt_peer_rate *r)
{
	return r->messages && r->last_ns > r->start_ns ? (double)(r->last_ns - r->start_ns) / 1e9 : 0;
}

double rt_peer_rate_gbps(const struct rt_peer_rate *r)
{
	double s = span_s(r);
	return s > 0 ? (double)r->bytes * 8 / s / 1e9 : 0;
}

double rt_peer_rate_mps(const struct rt_peer_rate *r)
{
	double s = span_s(r);
	return s > 0 ? (double)r->messages / s : 0;
}
