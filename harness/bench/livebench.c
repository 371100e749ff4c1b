/* SPDX-License-Identifier: MIT */
/*
 * The live path's speed (rocetest/iface.h), for `make bench`: one end
 * injects numbered frames as fast as pcap_inject takes them, the other
 * captures them with the harness's live port (immediate mode, its buffer,
 * a BPF filter) and counts what arrived, what pcap_stats says it dropped
 * and the frames/s from first to last.
 *
 *   rocetest-livebench send IFACE COUNT LEN     prints {"sent": N, "seconds": S, "frames_per_s": F}
 *   rocetest-livebench recv IFACE COUNT IDLE_S  prints {"received": N, "lost": N, "dropped": N,
 *                                               "if_dropped": N, "seconds": S, "frames_per_s": F}
 * recv stops at COUNT frames or after IDLE_S seconds without one.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/iface.h"

#define ETH_BENCH 0x88B6	/* IEEE local experimental 2 */
#define FILTER "ether proto 0x88b6"

static int usage(void)
{
	fprintf(stderr, "usage: rocetest-livebench send IFACE COUNT LEN | recv IFACE COUNT IDLE_S\n");
	return 2;
}

static int do_send(struct rt_live *l, const char *iface, uint64_t count, uint32_t len)
{
	uint8_t f[RT_LIVE_SNAPLEN] = { 0 };
	struct rt_error err;
	if (len < 60 || len > sizeof f || rt_iface_hwaddr(iface, f + 6, &err))
		return usage();
	memset(f, 0xFF, 6);
	f[12] = ETH_BENCH >> 8;
	f[13] = ETH_BENCH & 0xFF;
	int64_t t0 = rt_wall_ns();
	for (uint64_t n = 0; n < count; n++) {
		memcpy(f + 14, &n, sizeof n);
		if (rt_live_send(l, f, len, &err)) {
			fprintf(stderr, "livebench: %s\n", err.msg);
			return 1;
		}
	}
	double s = (double)(rt_wall_ns() - t0) * 1e-9;
	printf("{\"sent\": %" PRIu64 ", \"seconds\": %.6f, \"frames_per_s\": %.0f}\n", count, s, (double)count / s);
	return 0;
}

static int do_recv(struct rt_live *l, uint64_t count, unsigned idle_s)
{
	struct rt_error err;
	uint64_t got = 0, next = 0, lost = 0;
	int64_t first = 0, last = 0;
	while (got < count) {
		const uint8_t *f;
		uint32_t len;
		int64_t ts;
		int rc = rt_live_next(l, &f, &len, &ts, &err);
		if (rc < 0) {
			fprintf(stderr, "livebench: %s\n", err.msg);
			return 1;
		}
		if (rc == 0) {
			struct pollfd p = { .fd = rt_live_fd(l), .events = POLLIN };
			if (poll(&p, 1, (int)idle_s * 1000) == 0)
				break;
			continue;
		}
		uint64_t n;
		memcpy(&n, f + 14, sizeof n);
		lost += n > next ? n - next : 0;
		next = n + 1;
		first = got++ ? first : ts;
		last = ts;
	}
	struct rt_live_stats st = { 0 };
	rt_live_stats(l, &st, &err);
	double s = (double)(last - first) * 1e-9;
	printf("{\"received\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"if_dropped\": %" PRIu64
	       ", \"seconds\": %.6f, \"frames_per_s\": %.0f}\n", got, lost + (count - got), st.dropped, st.if_dropped, s,
	       s > 0 ? (double)(got - 1) / s : 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return usage();
	char *end;
	uint64_t count = strtoull(argv[3], &end, 10);
	unsigned long arg = strtoul(argv[4], NULL, 10);
	if (*end || !count)
		return usage();
	struct rt_error err;
	struct rt_live_config c = { .iface = argv[2], .filter = FILTER };
	struct rt_live *l = rt_live_open(&c, &err);
	if (!l) {
		fprintf(stderr, "livebench: %s\n", err.msg);
		return 2;
	}
	int rc = !strcmp(argv[1], "send")   ? do_send(l, argv[2], count, (uint32_t)arg)
		 : !strcmp(argv[1], "recv") ? do_recv(l, count, (unsigned)arg)
					    : usage();
	rt_live_close(l);
	return rc;
}
