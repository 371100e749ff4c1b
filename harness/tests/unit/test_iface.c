/* SPDX-License-Identifier: MIT */
/*
 * Hardware mode (rocetest/iface.h, board.h): addresses, the CM reply
 * filter, the live port, and the iface device against a virtual board
 * serving a fake device, the two joined by the loopback interface.
 *
 * The live port needs CAP_NET_RAW. Without it, the tests assert the one
 * message that says so (and how to grant it) instead; with it (root, as
 * CI runs them), the whole path: reset and configuration, memory, work
 * requests and completions, frames both ways with their times, quiet,
 * counters, port errors and the board's lag.
 */
#include <check.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rocetest/board.h"
#include "rocetest/iface.h"
#include "rocetest/run.h"
#include "suites.h"

/* ---- Addresses --------------------------------------------------------- */

START_TEST(mac_addresses)
{
	uint8_t m[6];
	char buf[18];
	ck_assert(rt_parse_mac("02:00:0a:Bc:fF:01", m));
	ck_assert_str_eq(rt_format_mac(m, buf), "02:00:0a:bc:ff:01");
	ck_assert(rt_parse_mac("02-00-00-00-00-09", m));
	ck_assert_uint_eq(m[5], 9);
	static const char *const bad[] = {
		"02:00:00:00:00",    "02:00:00:00:00:01:", "02:00:00-00:00:01", "02:00:00:00:00:0g",
		"2:00:00:00:00:01",  "0x:00:00:00:00:01",  "02.00.00.00.00.01", " 2:00:00:00:00:01",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!rt_parse_mac(bad[i], m), "'%s' accepted", bad[i]);
}
END_TEST

START_TEST(ipv4_addresses)
{
	uint32_t ip;
	char buf[16];
	ck_assert(rt_parse_ipv4("10.0.1.100", &ip));
	ck_assert_uint_eq(ip, 0x0A000164u);
	ck_assert_str_eq(rt_format_ipv4(0xC0A800FFu, buf), "192.168.0.255");
	ck_assert(!rt_parse_ipv4("10.0.1", &ip));
	ck_assert(!rt_parse_ipv4("10.0.1.256", &ip));
	ck_assert(!rt_parse_ipv4("fe80::1", &ip));
}
END_TEST

START_TEST(cm_names)
{
	ck_assert_str_eq(rt_cm_req_name(RT_CM_OPEN_QP), "OPEN_QP");
	ck_assert_str_eq(rt_cm_req_name(RT_CM_CLOSE_QP), "CLOSE_QP");
	ck_assert_str_eq(rt_cm_req_name(5), "reserved");
	ck_assert_str_eq(rt_cm_ack_name(RT_CM_NO_QP), "NO_QP");
	ck_assert_str_eq(rt_cm_ack_name(RT_CM_NAK), "NAK");
	ck_assert_str_eq(rt_cm_ack_name(4), "reserved");
}
END_TEST

/* The filter passes the board's replies to this host's port and nothing else: compiled by libpcap, run on frames. */
START_TEST(cm_reply_filter)
{
	struct rt_cm_ends e = { .host_mac = { 2, 0, 0, 0, 0xAB, 0 }, .host_ip = 0x0A000164, .host_port = 0x4322,
				.board_mac = { 2, 0, 0, 0, 0, 1 }, .board_ip = 0x0A000001 };
	char filter[160];
	rt_cm_reply_filter(&e, filter, sizeof filter);
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	struct bpf_program prog;
	ck_assert_int_eq(pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN), 0);
	struct rt_cm_msg m = { .ack_valid = true, .ack_type = RT_CM_ACK };
	struct {
		uint32_t src_ip, dst_ip;
		uint16_t src_port, dst_port;
		int pass;
	} cases[] = {
		{ 0x0A000001, 0x0A000164, RT_CM_REPLY_PORT, 0x4322, 1 },	/* the reply */
		{ 0x0A000164, 0x0A000001, 0x4322, RT_CM_UDP_PORT, 0 },	/* our request */
		{ 0x0A000001, 0x0A000164, RT_CM_REPLY_PORT, 0x4323, 0 },	/* to another port */
		{ 0x0A000002, 0x0A000164, RT_CM_REPLY_PORT, 0x4322, 0 },	/* from another board */
		{ 0x0A000001, 0x0A000165, RT_CM_REPLY_PORT, 0x4322, 0 },	/* to another host */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t f[RT_CM_FRAME_BYTES];
		struct rt_cm_addr a = { .src_ip = cases[i].src_ip, .dst_ip = cases[i].dst_ip,
					.src_port = cases[i].src_port, .dst_port = cases[i].dst_port };
		rt_cm_frame_build(f, &a, &m);
		struct pcap_pkthdr h = { .caplen = sizeof f, .len = sizeof f };
		ck_assert_msg((pcap_offline_filter(&prog, &h, f) != 0) == cases[i].pass, "case %zu", i);
	}
	pcap_freecode(&prog);
	pcap_close(p);
}
END_TEST

START_TEST(interfaces)
{
	uint8_t mac[6] = { 1, 1, 1, 1, 1, 1 }, zero[6] = { 0 };
	struct rt_error err;
	ck_assert_int_eq(rt_iface_hwaddr("lo", mac, &err), 0);
	ck_assert_mem_eq(mac, zero, 6);
	ck_assert_int_eq(rt_iface_hwaddr("rtnosuch0", mac, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "rtnosuch0"));
	ck_assert(rt_iface_has_ipv4("lo", 0x7F000001));
	ck_assert(!rt_iface_has_ipv4("lo", 0x0A636302));
	int64_t a = rt_wall_ns();
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	ck_assert_int_le(a, (int64_t)t.tv_sec * 1000000000 + t.tv_nsec);
}
END_TEST

/* ---- The live port ----------------------------------------------------- */

static bool have_net_raw(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void assert_names_capability(const char *msg)
{
	ck_assert_msg(strstr(msg, "CAP_NET_RAW") && strstr(msg, "setcap cap_net_raw,cap_net_admin+ep"), "%s", msg);
}

/* Addresses of this process's own: tests running at once on the loopback must not see each other's frames. */
static void test_mac(uint8_t mac[6], uint8_t role)
{
	pid_t pid = getpid();
	uint8_t m[6] = { 0x02, role, (uint8_t)(pid >> 24), (uint8_t)(pid >> 16), (uint8_t)(pid >> 8), (uint8_t)pid };
	memcpy(mac, m, 6);
}

#define ETH_TEST 0x88B5	/* IEEE local experimental */

static uint32_t test_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint32_t len, uint8_t tag)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = ETH_TEST >> 8;
	f[13] = ETH_TEST & 0xFF;
	for (uint32_t i = 14; i < len; i++)
		f[i] = (uint8_t)(tag + i);
	return len;
}

START_TEST(live_port_loopback)
{
	struct rt_error err;
	uint8_t a[6], b[6], f[1000];
	char filter[64], mac[18];
	test_mac(a, 0xA1);
	test_mac(b, 0xB1);
	snprintf(filter, sizeof filter, "ether src %s", rt_format_mac(a, mac));
	struct rt_live_config c = { .iface = "lo", .filter = filter, .buffer_mib = 4 };
	struct rt_live *l = rt_live_open(&c, &err);
	if (!have_net_raw()) {
		ck_assert_ptr_null(l);
		assert_names_capability(err.msg);
		return;
	}
	ck_assert_msg(l != NULL, "%s", err.msg);
	ck_assert_str_eq(rt_live_iface(l), "lo");
	ck_assert(!strcmp(rt_live_tstamp(l), "host") || !strcmp(rt_live_tstamp(l), "adapter"));
	int64_t before = rt_wall_ns();
	ck_assert_int_eq(rt_live_send(l, f, test_frame(f, b, b, 200, 1), &err), 0);	/* filtered out */
	ck_assert_int_eq(rt_live_send(l, f, test_frame(f, b, a, 600, 2), &err), 0);
	const uint8_t *got = NULL;
	uint32_t len = 0;
	int64_t ts = 0;
	int rc = 0;
	for (int i = 0; i < 1000 && rc == 0; i++) {
		rc = rt_live_next(l, &got, &len, &ts, &err);
		if (!rc)
			usleep(1000);
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_uint_eq(len, 600);
	ck_assert_mem_eq(got, f, 600);
	ck_assert_int_ge(ts, before);
	ck_assert_int_le(ts, rt_wall_ns());
	ck_assert_int_eq(rt_live_next(l, &got, &len, &ts, &err), 0);
	struct rt_live_stats s;
	ck_assert_int_eq(rt_live_stats(l, &s, &err), 0);
	ck_assert_uint_eq(s.sent, 2);
	ck_assert_uint_eq(s.dropped, 0);
	ck_assert_int_eq(rt_live_set_filter(l, "no such filter words", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no such filter words"));
	rt_live_close(l);
	c.iface = "rtnosuch0";
	ck_assert_ptr_null(rt_live_open(&c, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "rtnosuch0"));
}
END_TEST

/* ---- A fake device on a virtual board ---------------------------------- */

/*
 * Echoes every test frame back to its sender: it starts 50 ticks after the
 * frame came in and, as from a 100 Gb/s MAC, is handed out once its last
 * byte is out. Completes every WR 200 ticks after it was posted, and can be told to be
 * slow (every advance sleeps) or to report a port error. A tick is a ns.
 */
#define FAKE_MEM (256 * 1024)
#define FAKE_Q 16

struct fake {
	pthread_mutex_t mu;
	struct rt_dut_config cfg;
	uint64_t now;
	uint8_t mem[FAKE_MEM];
	struct { uint8_t data[1500]; uint32_t len; uint64_t due; } tx[FAKE_Q];
	unsigned n_tx;
	struct { struct rt_dut_wr wr; uint64_t due; } wr[FAKE_Q];
	unsigned n_wr;
	struct rt_dut_cpl cpl[FAKE_Q];
	unsigned n_cpl;
	struct { uint8_t data[1500]; uint32_t len; uint64_t ps; } out[FAKE_Q];
	unsigned n_out;
	uint32_t rx_frames;
	const char *perr;
	unsigned slow_ms;
};

static int fake_reset(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)err;
	(void)errlen;
	pthread_mutex_lock(&f->mu);
	f->cfg = *cfg;
	f->now = 0;
	f->n_tx = f->n_wr = f->n_cpl = f->n_out = 0;
	f->rx_frames = 0;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int fake_configure(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	struct fake *f = ctx;
	if (cfg->pmtu_code > 4) {
		snprintf(err, errlen, "pmtu_code %u", cfg->pmtu_code);
		return -1;
	}
	pthread_mutex_lock(&f->mu);
	f->cfg = *cfg;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int fake_push_rx(void *ctx, const uint8_t *frame, uint32_t len, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)err;
	(void)errlen;
	pthread_mutex_lock(&f->mu);
	f->rx_frames++;
	if (len >= 14 && len <= sizeof f->tx[0].data && (frame[12] << 8 | frame[13]) == ETH_TEST && f->n_tx < FAKE_Q) {
		uint8_t *d = f->tx[f->n_tx].data;
		memcpy(d, frame, len);
		memcpy(d, frame + 6, 6);
		memcpy(d + 6, f->cfg.mac, 6);
		f->tx[f->n_tx].len = len;
		f->tx[f->n_tx++].due = f->now + 50;
	}
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int fake_pull_tx(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	int rc = f->n_out > 0;
	if (rc) {
		*len = f->out[0].len;
		*start_ps = f->out[0].ps;
		rc = *len <= cap ? 1 : -1;
		if (rc > 0) {
			memcpy(buf, f->out[0].data, *len);
			memmove(f->out, f->out + 1, --f->n_out * sizeof f->out[0]);
		}
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

static int fake_post_wr(void *ctx, const struct rt_dut_wr *wr, char *err, size_t errlen)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	int rc = f->n_wr < FAKE_Q ? 0 : -1;
	if (!rc) {
		f->wr[f->n_wr].wr = *wr;
		f->wr[f->n_wr++].due = f->now + 200;
	} else {
		snprintf(err, errlen, "the fake's WR queue is full");
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

static int fake_poll_cpl(void *ctx, struct rt_dut_cpl *cpl)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	int rc = f->n_cpl > 0;
	if (rc) {
		*cpl = f->cpl[0];
		memmove(f->cpl, f->cpl + 1, --f->n_cpl * sizeof f->cpl[0]);
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

/* A frame's ns on a 100 Gb/s wire: preamble, FCS and gap included. */
static uint64_t fake_wire_ns(uint32_t len)
{
	return (len + 24) * 8 / 100;
}

/* What is due by now: echoes sent whole, WRs completed. */
static void fake_due(struct fake *f)
{
	while (f->n_tx && f->tx[0].due + fake_wire_ns(f->tx[0].len) <= f->now && f->n_out < FAKE_Q) {
		memcpy(f->out[f->n_out].data, f->tx[0].data, f->tx[0].len);
		f->out[f->n_out].len = f->tx[0].len;
		f->out[f->n_out++].ps = f->tx[0].due * 1000;
		memmove(f->tx, f->tx + 1, --f->n_tx * sizeof f->tx[0]);
	}
	while (f->n_wr && f->wr[0].due <= f->now && f->n_cpl < FAKE_Q) {
		f->cpl[f->n_cpl++] = (struct rt_dut_cpl){ .qp = f->wr[0].wr.qp, .wr_id = f->wr[0].wr.wr_id,
							  .status = RT_DUT_SUCCESS, .tick = f->now };
		memmove(f->wr, f->wr + 1, --f->n_wr * sizeof f->wr[0]);
	}
}

static void fake_advance(void *ctx, uint64_t n)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	unsigned slow = f->slow_ms;
	f->now += n;
	fake_due(f);
	pthread_mutex_unlock(&f->mu);
	if (slow)
		usleep(slow * 1000);
}

static uint64_t fake_now(void *ctx)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	uint64_t n = f->now;
	pthread_mutex_unlock(&f->mu);
	return n;
}

static uint8_t *fake_memory(void *ctx)
{
	return ((struct fake *)ctx)->mem;
}

static void fake_counters(void *ctx, struct rt_dut_counters *c)
{
	struct fake *f = ctx;
	memset(c, 0, sizeof *c);
	pthread_mutex_lock(&f->mu);
	c->rx_frames = f->rx_frames;
	c->cm_naks = 77;
	pthread_mutex_unlock(&f->mu);
}

static unsigned fake_qp_state(void *ctx, unsigned qp)
{
	(void)ctx;
	return qp == 1 ? RT_DUT_QPS_RTS : RT_DUT_QPS_RESET;
}

static bool fake_quiet(void *ctx)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	bool q = !f->n_tx && !f->n_wr;
	pthread_mutex_unlock(&f->mu);
	return q;
}

static const char *fake_port_error(void *ctx)
{
	return ((struct fake *)ctx)->perr;
}

static void fake_destroy(void *ctx)
{
	(void)ctx;
}

static void fake_ops(struct fake *f, struct rt_dut_ops *ops)
{
	*ops = (struct rt_dut_ops){
		.ctx = f, .reset = fake_reset, .configure = fake_configure, .push_rx = fake_push_rx,
		.pull_tx = fake_pull_tx, .post_wr = fake_post_wr, .poll_cpl = fake_poll_cpl, .advance = fake_advance,
		.now = fake_now, .memory = fake_memory, .counters = fake_counters, .qp_state = fake_qp_state,
		.quiet = fake_quiet, .port_error = fake_port_error, .destroy = fake_destroy,
	};
	snprintf(ops->info.name, sizeof ops->info.name, "the fake");
	ops->info.n_qp = 2;
	ops->info.qpn_base = 256;
	ops->info.clk_hz = ops->info.tick_hz = 1e9;
	ops->info.mem_base = 0x1000;
	ops->info.mem_size = FAKE_MEM;
	ops->info.mac_gbps = 100;
}

/*
 * A test that stops in its setup still asks the device for its port error:
 * a board that could not keep time is why it got no ARP reply.
 */
START_TEST(runner_setup_port_error)
{
	struct fake *f = calloc(1, sizeof *f);
	ck_assert_ptr_nonnull(f);
	pthread_mutex_init(&f->mu, NULL);
	struct rt_dut_ops ops;
	fake_ops(f, &ops);
	ops.info.n_qp = 4;
	f->perr = "the virtual board fell 2000 ns of its time behind its schedule";
	size_t n;
	const struct rt_run_spec *spec = rt_run_specs(&n);
	struct rt_run_options opt = { .seed = 1 };
	struct rt_run_result res;
	struct rt_error err;
	ck_assert_int_eq(rt_run_test(&ops, &spec[0], &opt, &res, &err), 0);
	ck_assert(!res.passed);
	ck_assert_ptr_nonnull(strstr(res.failure, "ARP: no reply"));
	ck_assert_ptr_nonnull(strstr(res.failure, "port contract: the virtual board fell 2000 ns"));
	free(f);
}
END_TEST

/* ---- The iface device against the board ------------------------------- */

/*
 * A board ns is 100 us of the wall clock: the fake's 200-tick WRs take 20
 * ms, and the 1 us of lag a test allows is 100 ms of a busy machine.
 */
#define SLOWDOWN 100000

struct bench {
	struct fake fake;
	struct rt_dut_ops dev;		/* the fake, served by the board */
	struct rt_board_config bc;
	struct rt_board_stats stats;
	struct rt_error board_err;
	int board_rc;
	volatile sig_atomic_t stop;
	pthread_t thread;
	char dir[64], control[96];
	uint8_t board_mac[6], host_mac[6];
	struct rt_dut_ops ops;		/* the iface device */
	bool open;
};

static struct bench *B;

static void *board_thread(void *arg)
{
	struct bench *b = arg;
	b->board_rc = rt_board_serve(&b->dev, &b->bc, &b->stats, &b->board_err);
	return NULL;
}

static void bench_setup(void)
{
	B = calloc(1, sizeof *B);
	ck_assert_ptr_nonnull(B);
	pthread_mutex_init(&B->fake.mu, NULL);
	fake_ops(&B->fake, &B->dev);
	test_mac(B->board_mac, 0xB2);
	test_mac(B->host_mac, 0xA2);
	snprintf(B->dir, sizeof B->dir, "/tmp/rocetest-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(B->dir));
	snprintf(B->control, sizeof B->control, "%s/board.sock", B->dir);
	B->bc = (struct rt_board_config){ .iface = "lo", .ip = 0x0A636301, .control = B->control,
					  .slowdown = SLOWDOWN, .buffer_mib = 4, .stop = &B->stop };
	memcpy(B->bc.mac, B->board_mac, 6);
	ck_assert_int_eq(pthread_create(&B->thread, NULL, board_thread, B), 0);
}

static void bench_teardown(void)
{
	if (B->open)
		B->ops.destroy(B->ops.ctx);
	B->stop = 1;
	pthread_join(B->thread, NULL);
	rmdir(B->dir);
	free(B);
}

/* Opens the iface device on the board; false (having asserted why) without CAP_NET_RAW. */
static bool open_board(void)
{
	if (!have_net_raw()) {
		pthread_join(B->thread, NULL);
		B->stop = 1;
		ck_assert_int_eq(B->board_rc, -1);
		assert_names_capability(B->board_err.msg);
		return false;
	}
	struct stat st;
	for (int i = 0; i < 500 && stat(B->control, &st); i++)
		usleep(2000);
	struct rt_iface_params p = { .iface = "lo", .control = B->control, .dut_ip = 0x0A636301,
				     .have_dut_mac = true, .local_ip = 0x0A636302, .have_local_mac = true };
	memcpy(p.dut_mac, B->board_mac, 6);
	memcpy(p.local_mac, B->host_mac, 6);
	struct rt_error err;
	ck_assert_msg(rt_iface_dut_open(&p, &B->ops, &err) == 0, "%s", err.msg);
	B->open = true;
	ck_assert_ptr_nonnull(strstr(B->ops.info.name, "the fake on lo"));
	ck_assert_double_eq(B->ops.info.tick_hz, 1e9);
	ck_assert_uint_eq(B->ops.info.mem_size, FAKE_MEM);
	struct rt_dut_config c = { .ip = 0x0A636301, .pmtu_code = 3 };
	memcpy(c.mac, B->board_mac, 6);
	char msg[256];
	ck_assert_msg(B->ops.reset(B->ops.ctx, &c, msg, sizeof msg) == 0, "%s", msg);
	return true;
}

/* Advances the board's time until done() or 200,000 of its ns (20 s) have passed. */
static bool advance_until(bool (*done)(void *), void *ctx)
{
	for (int i = 0; i < 1000; i++) {
		if (done(ctx))
			return true;
		B->ops.advance(B->ops.ctx, 200);
	}
	return done(ctx);
}

START_TEST(board_reset_and_configure)
{
	if (!open_board())
		return;
	pthread_mutex_lock(&B->fake.mu);
	ck_assert_uint_eq(B->fake.cfg.ip, 0x0A636301);
	ck_assert_uint_eq(B->fake.cfg.pmtu_code, 3);
	pthread_mutex_unlock(&B->fake.mu);
	ck_assert_uint_lt(B->ops.now(B->ops.ctx), 1000);
	struct rt_dut_config c = B->fake.cfg;
	char msg[256];
	c.pmtu_code = 2;
	ck_assert_int_eq(B->ops.configure(B->ops.ctx, &c, msg, sizeof msg), 0);
	ck_assert_uint_eq(B->fake.cfg.pmtu_code, 2);
	c.pmtu_code = 9;
	ck_assert_int_eq(B->ops.configure(B->ops.ctx, &c, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "pmtu_code 9"));
	/*
	 * Time passes at the board's pace: 200 of its ns are 20 ms of the wall
	 * clock (counted from when the last advance looked at the clock, just
	 * before it returned).
	 */
	B->ops.advance(B->ops.ctx, 1);
	int64_t w = rt_wall_ns();
	uint64_t t = B->ops.now(B->ops.ctx);
	B->ops.advance(B->ops.ctx, 200);
	ck_assert_uint_ge(B->ops.now(B->ops.ctx), t + 200);
	ck_assert_int_ge(rt_wall_ns() - w, 200 * SLOWDOWN - 100000);
	ck_assert_int_lt(rt_wall_ns() - w, 200 * SLOWDOWN + 50000000);
}
END_TEST

/* Every part of the memory the harness changed reaches the board before it runs again. */
START_TEST(board_memory)
{
	if (!open_board())
		return;
	uint8_t *mem = B->ops.memory(B->ops.ctx);
	for (uint32_t i = 0; i < FAKE_MEM; i++)
		mem[i] = (uint8_t)(i * 7 + 3);
	B->ops.advance(B->ops.ctx, 10);
	B->ops.quiet(B->ops.ctx);	/* a status round trip: the writes before it are done */
	ck_assert_mem_eq(B->fake.mem, mem, FAKE_MEM);
	mem = B->ops.memory(B->ops.ctx);
	mem[FAKE_MEM - 1] ^= 0xFF;
	mem[40000] ^= 0x55;
	B->ops.advance(B->ops.ctx, 10);
	B->ops.quiet(B->ops.ctx);
	ck_assert_mem_eq(B->fake.mem, mem, FAKE_MEM);
}
END_TEST

struct cpl_wait {
	struct rt_dut_cpl got[8];
	unsigned n, want;
};

static bool have_cpls(void *ctx)
{
	struct cpl_wait *w = ctx;
	while (w->n < 8 && B->ops.poll_cpl(B->ops.ctx, &w->got[w->n]))
		w->n++;
	return w->n >= w->want;
}

static bool is_quiet(void *ctx)
{
	(void)ctx;
	return B->ops.quiet(B->ops.ctx);
}

START_TEST(board_work)
{
	if (!open_board())
		return;
	char msg[256];
	for (uint64_t i = 1; i <= 3; i++) {
		struct rt_dut_wr wr = { .qp = 1, .opcode = RT_DUT_WRITE, .length = 64, .wr_id = 0x500 + i };
		ck_assert_int_eq(B->ops.post_wr(B->ops.ctx, &wr, msg, sizeof msg), 0);
	}
	/* Posted, not done: not quiet. */
	ck_assert(!B->ops.quiet(B->ops.ctx));
	struct cpl_wait w = { .want = 3 };
	ck_assert(advance_until(have_cpls, &w));
	ck_assert_uint_eq(w.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(w.got[i].wr_id, 0x501 + i);
		ck_assert_uint_eq(w.got[i].qp, 1);
		ck_assert_uint_eq(w.got[i].status, RT_DUT_SUCCESS);
	}
	ck_assert(advance_until(is_quiet, NULL));
	struct rt_dut_wr bad = { .qp = 2, .opcode = RT_DUT_SEND };
	ck_assert_int_eq(B->ops.post_wr(B->ops.ctx, &bad, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "2 QPs"));
	ck_assert_uint_eq(B->ops.qp_state(B->ops.ctx, 1), RT_DUT_QPS_RTS);
	ck_assert_uint_eq(B->ops.qp_state(B->ops.ctx, 0), RT_DUT_QPS_RESET);
	ck_assert_ptr_null(B->ops.port_error(B->ops.ctx));
}
END_TEST

struct frame_wait {
	uint8_t buf[2][1500];
	uint32_t len[2];
	uint64_t ps[2];
	unsigned n;
};

static bool have_frames(void *ctx)
{
	struct frame_wait *w = ctx;
	while (w->n < 2 && B->ops.pull_tx(B->ops.ctx, w->buf[w->n], sizeof w->buf[0], &w->len[w->n], &w->ps[w->n]) > 0)
		w->n++;
	return w->n == 2;
}

/*
 * Frames both ways: what the harness sends reaches the device, what the
 * device sends comes back with its time; two frames never overlap on the
 * wire (the second starts no sooner than the first's 1000 bytes took at
 * 100 Gb/s: 8 + 1000 + 4 + 12 bytes, 81.6 ns).
 */
START_TEST(board_frames)
{
	if (!open_board())
		return;
	uint8_t f1[1000], f2[100];
	char msg[256];
	uint64_t before = B->ops.now(B->ops.ctx);
	test_frame(f1, B->board_mac, B->host_mac, sizeof f1, 1);
	test_frame(f2, B->board_mac, B->host_mac, sizeof f2, 2);
	ck_assert_int_eq(B->ops.push_rx(B->ops.ctx, f1, sizeof f1, msg, sizeof msg), 0);
	ck_assert_int_eq(B->ops.push_rx(B->ops.ctx, f2, sizeof f2, msg, sizeof msg), 0);
	struct frame_wait w = { .n = 0 };
	ck_assert(advance_until(have_frames, &w));
	ck_assert_uint_eq(w.len[0], sizeof f1);
	ck_assert_uint_eq(w.len[1], sizeof f2);
	ck_assert_mem_eq(w.buf[0], B->host_mac, 6);	/* echoed to us */
	ck_assert_mem_eq(w.buf[0] + 6, B->board_mac, 6);
	ck_assert_mem_eq(w.buf[0] + 12, f1 + 12, sizeof f1 - 12);
	ck_assert_mem_eq(w.buf[1] + 12, f2 + 12, sizeof f2 - 12);
	/* Not before it was asked for, but for the lag a busy machine may give the board. */
	ck_assert_uint_ge(w.ps[0] + RT_IFACE_MAX_LAG_NS * 1000, before * 1000);
	ck_assert_uint_le(w.ps[0], B->ops.now(B->ops.ctx) * 1000);
	ck_assert_uint_ge(w.ps[1], w.ps[0] + 81600);
	/* A broadcast from another station reaches the device but is not the harness's to wait for. */
	struct rt_error err;
	struct rt_live_config lc = { .iface = "lo", .filter = "ether proto 0xffff", .buffer_mib = 1 };
	struct rt_live *other = rt_live_open(&lc, &err);
	ck_assert_msg(other != NULL, "%s", err.msg);
	uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }, stranger[6] = { 0x02, 0xEE, 0, 0, 0, 2 };
	ck_assert_int_eq(rt_live_send(other, f2, test_frame(f2, bcast, stranger, 60, 4), &err), 0);
	rt_live_close(other);
	ck_assert(advance_until(is_quiet, NULL));
	struct rt_dut_counters c;
	B->ops.counters(B->ops.ctx, &c);
	ck_assert_uint_eq(c.rx_frames, 3);
	ck_assert_uint_eq(c.cm_naks, 77);
	struct rt_run_live t;
	rt_iface_dut_totals(&B->ops, &t);
	ck_assert_uint_eq(t.frames_in, 3);	/* the stranger's broadcast echoed too */
	ck_assert_uint_eq(t.frames_out, 2);
	ck_assert_uint_eq(t.dropped, 0);
	ck_assert_double_eq(t.slowdown, SLOWDOWN);
	/* A frame the board never took (to a MAC not its own): the device is quiet, the test is not. */
	uint8_t stray[6] = { 0x02, 0xEE, 0, 0, 0, 1 };
	test_frame(f2, stray, B->host_mac, sizeof f2, 3);
	ck_assert_int_eq(B->ops.push_rx(B->ops.ctx, f2, sizeof f2, msg, sizeof msg), 0);
	for (int i = 0; i < 5; i++)
		B->ops.advance(B->ops.ctx, 100);
	ck_assert(!B->ops.quiet(B->ops.ctx));
}
END_TEST

/* The device's port error, and a board that falls behind its schedule, fail the test; a reset starts afresh. */
START_TEST(board_port_errors)
{
	if (!open_board())
		return;
	ck_assert_ptr_null(B->ops.port_error(B->ops.ctx));
	B->fake.perr = "a TX beat with a gap in tkeep";
	const char *e = B->ops.port_error(B->ops.ctx);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e, "a TX beat with a gap in tkeep"));
	B->fake.perr = NULL;
	/* 150 ms a step is 1500 of its ns: RT_IFACE_MAX_LAG_NS is 1000. */
	pthread_mutex_lock(&B->fake.mu);
	B->fake.slow_ms = 150;
	pthread_mutex_unlock(&B->fake.mu);
	for (int i = 0; i < 10; i++)
		B->ops.advance(B->ops.ctx, 500);
	e = B->ops.port_error(B->ops.ctx);
	ck_assert_ptr_nonnull(e);
	ck_assert_msg(strstr(e, "behind its schedule") && strstr(e, "--slowdown"), "%s", e);
	pthread_mutex_lock(&B->fake.mu);
	B->fake.slow_ms = 0;
	pthread_mutex_unlock(&B->fake.mu);
	struct rt_dut_config c = B->fake.cfg;
	char msg[256];
	ck_assert_int_eq(B->ops.reset(B->ops.ctx, &c, msg, sizeof msg), 0);
	B->ops.advance(B->ops.ctx, 100);
	ck_assert_ptr_null(B->ops.port_error(B->ops.ctx));
	/* The board gone: every call says so, none hangs. */
	B->stop = 1;
	pthread_join(B->thread, NULL);
	ck_assert(!B->ops.quiet(B->ops.ctx));
	e = B->ops.port_error(B->ops.ctx);
	ck_assert_ptr_nonnull(e);
	ck_assert_msg(strstr(e, "control socket"), "%s", e);
	ck_assert_int_eq(B->board_rc, 0);
	ck_assert_uint_ge(B->stats.harnesses, 1);
}
END_TEST

Suite *iface_suite(void)
{
	Suite *s = suite_create("iface");
	TCase *tc = tcase_create("addresses");
	tcase_add_test(tc, mac_addresses);
	tcase_add_test(tc, ipv4_addresses);
	tcase_add_test(tc, cm_names);
	tcase_add_test(tc, cm_reply_filter);
	tcase_add_test(tc, interfaces);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, live_port_loopback);
	tcase_add_test(tc, runner_setup_port_error);
	suite_add_tcase(s, tc);
	tc = tcase_create("board");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, bench_setup, bench_teardown);
	tcase_add_test(tc, board_reset_and_configure);
	tcase_add_test(tc, board_memory);
	tcase_add_test(tc, board_work);
	tcase_add_test(tc, board_frames);
	tcase_add_test(tc, board_port_errors);
	suite_add_tcase(s, tc);
	return s;
}
