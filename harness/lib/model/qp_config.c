/* SPDX-License-Identifier: MIT */
/* Model QP configuration: defaults, timer tables and names. */
#include <string.h>

#include "rocetest/model.h"
#include "rocetest/sim.h"

void rt_qp_config_init(struct rt_qp_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->transport = RT_TRANSPORT_RC;
	cfg->ip_version = 4;
	cfg->roce_version = 2;
	cfg->pmtu = 1024;
	cfg->qkey = 0x11111111;
	cfg->timeout = 14;
	cfg->retry_cnt = 7;
	cfg->rnr_retry = 7;
	cfg->ackreq_every = 64;
	cfg->window = 128;
	cfg->max_rd_atomic = 16;
	cfg->min_rnr_timer = 1;
	cfg->ack_every = 1;
	cfg->ack_delay_ns = 10000;
	cfg->ack_credits = 31;
	cfg->send_cnp = true;
	cfg->mem_size = 64 * 1024;
	cfg->rq_depth = 64;
	cfg->recv_size = 16 * 1024;
	cfg->bug_at = 1;
	cfg->sq_depth = 1024;
}

void rt_sim_config_init(struct rt_sim_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	rt_qp_config_init(&cfg->node[0]);
	rt_qp_config_init(&cfg->node[1]);
	cfg->delay_ns = 1000;
	cfg->rate_bps = 100000000000ull;
	cfg->tap = RT_TAP_RECEIVER;
	cfg->time_limit_ns = 10000000000ll;
	cfg->seed = 1;
}

int64_t rt_local_ack_timeout_ns(uint8_t code)
{
	/* 4.096 us * 2^code; codes above 31 are not defined (0 means no timer). */
	if (code == 0 || code > 31)
		return 0;
	return 4096ll << code;
}

int64_t rt_rnr_timer_ns(uint8_t code)
{
	/* IBA table 45, in units of 10 ns (code 0 is the longest, 655.36 ms). */
	static const uint32_t tens_of_ns[32] = {
		65536000, 1000, 2000, 3000, 4000, 6000, 8000, 12000,
		16000, 24000, 32000, 48000, 64000, 96000, 128000, 192000,
		256000, 384000, 512000, 768000, 1024000, 1536000, 2048000, 3072000,
		4096000, 6144000, 8192000, 12288000, 16384000, 24576000, 32768000, 49152000,
	};
	return (int64_t)tens_of_ns[code & 31] * 10;
}

const char *rt_wr_opcode_name(enum rt_wr_opcode op)
{
	switch (op) {
	case RT_WR_SEND: return "SEND";
	case RT_WR_SEND_IMM: return "SEND_WITH_IMM";
	case RT_WR_SEND_INV: return "SEND_WITH_INV";
	case RT_WR_WRITE: return "RDMA_WRITE";
	case RT_WR_WRITE_IMM: return "RDMA_WRITE_WITH_IMM";
	case RT_WR_READ: return "RDMA_READ";
	case RT_WR_CMP_SWAP: return "ATOMIC_CMP_AND_SWP";
	case RT_WR_FETCH_ADD: return "ATOMIC_FETCH_AND_ADD";
	case RT_WR_RECV: return "RECV";
	}
	return "?";
}

const char *rt_wc_status_name(enum rt_wc_status s)
{
	switch (s) {
	case RT_WC_SUCCESS: return "success";
	case RT_WC_RETRY_EXCEEDED: return "retry exceeded";
	case RT_WC_RNR_RETRY_EXCEEDED: return "RNR retry exceeded";
	case RT_WC_REMOTE_INVALID_REQUEST: return "remote invalid request";
	case RT_WC_REMOTE_ACCESS_ERROR: return "remote access error";
	case RT_WC_REMOTE_OPERATIONAL_ERROR: return "remote operational error";
	case RT_WC_FLUSHED: return "flushed";
	case RT_WC_LOCAL_LENGTH_ERROR: return "local length error";
	}
	return "?";
}

static const char *const bug_names[RT_BUG_COUNT] = {
	[RT_BUG_NONE] = "none",
	[RT_BUG_BAD_ICRC] = "bad-icrc",
	[RT_BUG_BAD_PAD] = "bad-pad",
	[RT_BUG_TVER] = "tver",
	[RT_BUG_RESPONSE_ACKREQ] = "response-ackreq",
	[RT_BUG_BAD_CNP] = "bad-cnp",
	[RT_BUG_SHORT_FIRST] = "short-first",
	[RT_BUG_NO_FIRST] = "no-first",
	[RT_BUG_INTERLEAVE] = "interleave",
	[RT_BUG_SKIP_PSN] = "skip-psn",
	[RT_BUG_RETH_LENGTH] = "reth-length",
	[RT_BUG_GO_BACK_WRONG] = "go-back-wrong",
	[RT_BUG_RNR_EARLY] = "rnr-early",
	[RT_BUG_RETRANSMIT_ALTER] = "retransmit-alter",
	[RT_BUG_PSN_IN_READ] = "psn-in-read",
	[RT_BUG_ACCEPT_GAP] = "accept-gap",
	[RT_BUG_ACK_AHEAD] = "ack-ahead",
	[RT_BUG_NAK_REPEAT] = "nak-repeat",
	[RT_BUG_MSN_BACK] = "msn-back",
};

const char *rt_qp_bug_name(enum rt_qp_bug b)
{
	return (unsigned)b < RT_BUG_COUNT ? bug_names[b] : "?";
}

enum rt_qp_bug rt_qp_bug_by_name(const char *name)
{
	for (unsigned b = 1; b < RT_BUG_COUNT; b++)
		if (!strcmp(bug_names[b], name))
			return (enum rt_qp_bug)b;
	return RT_BUG_NONE;
}

const char *rt_fault_kind_name(enum rt_fault_kind k)
{
	switch (k) {
	case RT_FAULT_DROP: return "drop";
	case RT_FAULT_DUPLICATE: return "dup";
	case RT_FAULT_REORDER: return "reorder";
	case RT_FAULT_DELAY: return "delay";
	case RT_FAULT_CORRUPT: return "corrupt";
	case RT_FAULT_MARK_CE: return "ce";
	case RT_FAULT_MISS: return "miss";
	}
	return "?";
}
