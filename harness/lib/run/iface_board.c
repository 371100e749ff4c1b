/* SPDX-License-Identifier: MIT */
/*
 * The virtual board (board.h): a device on a live port, its clock paced
 * against the wall clock, and the control socket of iface_ctl.h.
 *
 * Pacing: device tick T is due at wall clock t0 + T / tick_hz * slowdown
 * (t0: the last reset). Each turn the board takes the frames that arrived
 * into the device's RX port, serves the control socket, runs the device up
 * to what is due (at most STEP_MAX ticks a turn, so that it serves its port
 * often), puts what the device sent on the wire and its completions on the
 * socket. Caught up, it sleeps until STEP_MIN more ticks are due or a frame
 * or a message comes. A device that cannot keep up falls behind: the lag
 * (due minus run, in its ns) is reported, and a harness fails a test in
 * which it grew too large.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "iface_ctl.h"
#include "rocetest/board.h"
#include "rocetest/iface.h"
#include "rocetest/peer.h"

#define STEP_MAX 64
#define STEP_MIN 4
#define MSGS_PER_TURN 4
#define MAX_FRAME 9600

struct board {
	struct rt_dut_ops *dev;
	const struct rt_board_config *c;
	struct rt_live *live;
	int listen_fd, client;
	double slowdown;
	double ticks_per_ns;		/* device ticks per ns of the board's time */
	int64_t t0;			/* the wall clock at the last reset */
	uint64_t tick0;			/* the device's time then */
	uint8_t harness_mac[6];
	/* Since the last reset. */
	uint64_t rx_from_harness, tx_frames, wrs;
	int64_t max_lag_ns;
	struct rt_live_stats base;
	struct rt_board_stats *st;
	uint8_t frame[MAX_FRAME];
	union ctl_msg msg;
};

void rt_board_own_config(struct rt_dut_config *c, const uint8_t mac[6], uint32_t ip, uint64_t mem_base)
{
	memset(c, 0, sizeof *c);
	memcpy(c->mac, mac, 6);
	c->ip = ip;
	c->rkey = 0x00001234;
	c->base_addr = mem_base;
	c->pmtu_code = 4;
	for (unsigned q = 0; q < RT_DUT_MAX_QP; q++) {
		c->timeout[q] = 14;
		c->retry_cnt[q] = 7;
		c->rnr_retry[q] = 7;
	}
}

/* ---- Reset and time --------------------------------------------------- */

/* Resets the device and starts its schedule anew; frames that came before are dropped. */
static int board_reset(struct board *b, const struct rt_dut_config *cfg, char *msg, size_t size)
{
	const uint8_t *f;
	uint32_t len;
	int64_t ts;
	struct rt_error e;
	while (rt_live_next(b->live, &f, &len, &ts, &e) > 0)
		;
	if (b->dev->reset(b->dev->ctx, cfg, msg, size))
		return -1;
	b->t0 = rt_wall_ns();
	b->tick0 = b->dev->now(b->dev->ctx);
	b->rx_from_harness = b->tx_frames = b->wrs = 0;
	b->max_lag_ns = 0;
	if (rt_live_stats(b->live, &b->base, &e)) {
		snprintf(msg, size, "%.200s", e.msg);
		return -1;
	}
	return 0;
}

static int reset_own(struct board *b, struct rt_error *err)
{
	struct rt_dut_config cfg;
	char msg[256];
	rt_board_own_config(&cfg, b->c->mac, b->c->ip, b->dev->info.mem_base);
	memset(b->harness_mac, 0, 6);
	if (board_reset(b, &cfg, msg, sizeof msg)) {
		rt_error_set(err, "resetting the device: %s", msg);
		return -1;
	}
	/* What its traffic generator sends to `rocetest peer`, which checks it. */
	rt_txgen_pattern(0, b->dev->memory(b->dev->ctx), b->dev->info.mem_size);
	return 0;
}

/* The device ticks due by wall clock w. */
static uint64_t due_at(const struct board *b, int64_t w)
{
	return b->tick0 + (uint64_t)((double)(w > b->t0 ? w - b->t0 : 0) / b->slowdown * b->ticks_per_ns);
}

/* The wall clock at which device tick t is due. */
static int64_t wall_of(const struct board *b, uint64_t t)
{
	return b->t0 + (int64_t)((double)(t - b->tick0) / b->ticks_per_ns * b->slowdown);
}

/* ---- The wire -------------------------------------------------------- */

static int take_frames(struct board *b, struct rt_error *err)
{
	const uint8_t *f;
	uint32_t len;
	int64_t ts;
	int rc;
	while ((rc = rt_live_next(b->live, &f, &len, &ts, err)) > 0) {
		char msg[256];
		if (b->dev->push_rx(b->dev->ctx, f, len, msg, sizeof msg)) {
			rt_error_set(err, "device RX: %s", msg);
			return -1;
		}
		b->st->frames_in++;
		if (len >= 12 && !memcmp(f + 6, b->harness_mac, 6))
			b->rx_from_harness++;
	}
	return rc;
}

static int send_frames(struct board *b, struct rt_error *err)
{
	uint32_t len;
	uint64_t ps;
	int rc;
	while ((rc = b->dev->pull_tx(b->dev->ctx, b->frame, sizeof b->frame, &len, &ps)) > 0) {
		if (rt_live_send(b->live, b->frame, len, err))
			return -1;
		b->st->frames_out++;
		b->tx_frames++;
	}
	if (rc < 0) {
		rt_error_set(err, "the device sent a frame of %u bytes, more than %d", len, MAX_FRAME);
		return -1;
	}
	return 0;
}

/* ---- The control socket ---------------------------------------------- */

/* A request refused: what, and why. */
static int fault(struct board *b, const char *what, const char *why)
{
	struct ctl_fault m;
	struct rt_error e;
	snprintf(m.msg, sizeof m.msg, "%.64s%.180s", what, why);
	return ctl_send(b->client, CTL_FAULT, &m, sizeof m, true, &e);
}

static int send_status(struct board *b)
{
	struct ctl_status *s = &b->msg.status;
	struct rt_live_stats ls = { 0 };
	struct rt_error e;
	memset(s, 0, sizeof *s);
	b->dev->counters(b->dev->ctx, &s->counters);
	for (unsigned q = 0; q < RT_DUT_MAX_QP; q++)
		s->qp_state[q] = (uint8_t)b->dev->qp_state(b->dev->ctx, q);
	s->quiet = b->dev->quiet(b->dev->ctx);
	s->rx_from_harness = b->rx_from_harness;
	s->tx_frames = b->tx_frames;
	s->wrs = b->wrs;
	s->max_lag_ns = b->max_lag_ns;
	if (!rt_live_stats(b->live, &ls, &e)) {
		s->live_dropped = ls.dropped - b->base.dropped;
		s->live_if_dropped = ls.if_dropped - b->base.if_dropped;
	}
	const char *perr = b->dev->port_error(b->dev->ctx);
	snprintf(s->port_error, sizeof s->port_error, "%s", perr ? perr : "");
	return ctl_send(b->client, CTL_STATUS, s, sizeof *s, true, &e);
}

/* CTL_RESET or CTL_CONFIGURE, answered. */
static int configure(struct board *b, const struct ctl_reset *m)
{
	struct ctl_reply r = { .rc = 0 };
	struct rt_error e;
	if (m->h.type == CTL_RESET) {
		memcpy(b->harness_mac, m->harness_mac, 6);
		r.rc = board_reset(b, &m->cfg, r.msg, sizeof r.msg);
		r.t_reset_ns = b->t0;
	} else {
		r.rc = b->dev->configure(b->dev->ctx, &m->cfg, r.msg, sizeof r.msg);
	}
	return ctl_send(b->client, CTL_REPLY, &r, sizeof r, true, &e);
}

static int write_memory(struct board *b, const struct ctl_mem *m)
{
	if (m->offset > b->dev->info.mem_size || m->len > b->dev->info.mem_size - m->offset)
		return fault(b, "a memory write past the end of the device's memory", "");
	memcpy(b->dev->memory(b->dev->ctx) + m->offset, m->data, m->len);
	return 0;
}

/* One message from the harness; -1 when the connection is to be dropped. */
static int handle(struct board *b, union ctl_msg *m)
{
	char msg[CTL_TEXT];
	switch (m->h.type) {
	case CTL_RESET:
	case CTL_CONFIGURE:
		return configure(b, &m->reset);
	case CTL_POST_WR:
		if (b->dev->post_wr(b->dev->ctx, &m->wr.wr, msg, sizeof msg))
			return fault(b, "posting a WR: ", msg);
		b->wrs++;
		return 0;
	case CTL_MEM_WRITE:
		return write_memory(b, &m->mem);
	case CTL_STATUS_REQ:
		return send_status(b);
	default:
		snprintf(msg, sizeof msg, "%u, which a harness does not send", m->h.type);
		return fault(b, "a message of type ", msg);
	}
}

static void drop_client(struct board *b)
{
	close(b->client);
	b->client = -1;
}

/*
 * A few of the messages waiting (a memory write takes a while: the device
 * must not wait for 16 MiB of them); a harness that leaves leaves the
 * device as the board's own.
 */
static int serve_client(struct board *b, struct rt_error *err)
{
	for (int n = 0; n < MSGS_PER_TURN && b->client >= 0; n++) {
		struct rt_error e;
		int rc = ctl_recv(b->client, &b->msg, 0, &e);
		if (rc == 0)
			return 0;
		if (rc < 0 || handle(b, &b->msg)) {
			drop_client(b);
			return reset_own(b, err);
		}
	}
	return 0;
}

static int accept_client(struct board *b)
{
	struct rt_error e;
	int fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return 0;
	if (b->client >= 0) {
		close(fd);	/* one harness at a time */
		return 0;
	}
	int bytes = 4 << 20;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
	b->client = fd;
	b->st->harnesses++;
	struct ctl_hello h = { .info = b->dev->info, .slowdown = b->slowdown };
	if (ctl_send(fd, CTL_HELLO, &h, sizeof h, true, &e))
		drop_client(b);
	return 0;
}

/* Completions to the harness as they come out (nobody's when no harness is there). */
static int send_completions(struct board *b, struct rt_error *err)
{
	struct ctl_cpl m;
	struct rt_error e;
	while (b->dev->poll_cpl(b->dev->ctx, &m.cpl)) {
		if (b->client >= 0 && ctl_send(b->client, CTL_CPL, &m, sizeof m, true, &e)) {
			drop_client(b);
			return reset_own(b, err);
		}
	}
	return 0;
}

/* ---- The loop -------------------------------------------------------- */

/* Runs the device towards what is due: one step. */
static void run_device(struct board *b)
{
	uint64_t due = due_at(b, rt_wall_ns()), now = b->dev->now(b->dev->ctx);
	if (now >= due)
		return;
	uint64_t step = due - now < STEP_MAX ? due - now : STEP_MAX;
	int64_t t = rt_wall_ns();
	b->dev->advance(b->dev->ctx, step);
	b->st->device_s += (double)(rt_wall_ns() - t) * 1e-9;
	int64_t lag = (int64_t)((double)(due - now - step) / b->ticks_per_ns);
	if (lag > b->max_lag_ns)
		b->max_lag_ns = lag;
	if (lag > b->st->max_lag_ns)
		b->st->max_lag_ns = lag;
}

/* Caught up: sleeps until STEP_MIN ticks are due, a frame comes or the harness speaks. */
static void idle(struct board *b)
{
	uint64_t now = b->dev->now(b->dev->ctx);
	int64_t left = wall_of(b, now + STEP_MIN) - rt_wall_ns();
	if (left <= 0)
		return;
	if (left > 50000000)
		left = 50000000;
	struct pollfd p[3] = { { .fd = rt_live_fd(b->live), .events = POLLIN },
			       { .fd = b->listen_fd, .events = POLLIN },
			       { .fd = b->client, .events = POLLIN } };
	struct timespec ts = { .tv_sec = 0, .tv_nsec = left };
	ppoll(p, b->client >= 0 ? 3 : 2, &ts, NULL);
}

static int turn(struct board *b, struct rt_error *err)
{
	if (take_frames(b, err) < 0)
		return -1;
	accept_client(b);
	if (serve_client(b, err))
		return -1;
	run_device(b);
	if (send_frames(b, err) || send_completions(b, err))
		return -1;
	if (b->dev->now(b->dev->ctx) >= due_at(b, rt_wall_ns()))
		idle(b);
	return 0;
}

/*
 * The control socket appears at path only once it listens (bound under
 * another name, then renamed): a harness that finds it can connect.
 */
static int listen_on(struct board *b, const char *path, struct rt_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat sb;
	if (!path || strlen(path) + 5 >= sizeof a.sun_path) {
		rt_error_set(err, "--control needs a path of 1..%zu characters", sizeof a.sun_path - 6);
		return -1;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s.new", path);
	/* Sockets left behind by a board that was killed; never anything else. */
	if (!lstat(path, &sb) && S_ISSOCK(sb.st_mode))
		unlink(path);
	if (!lstat(a.sun_path, &sb) && S_ISSOCK(sb.st_mode))
		unlink(a.sun_path);
	b->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (b->listen_fd < 0 || bind(b->listen_fd, (struct sockaddr *)&a, sizeof a) || listen(b->listen_fd, 1) ||
	    rename(a.sun_path, path)) {
		rt_error_set(err, "control socket %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_board(struct board *b, struct rt_error *err)
{
	char filter[128], mac[18];
	b->slowdown = b->c->slowdown > 0 ? b->c->slowdown : RT_BOARD_SLOWDOWN;
	b->ticks_per_ns = b->dev->info.tick_hz / 1e9;
	if (!(b->slowdown >= 1) || !(b->ticks_per_ns > 0)) {
		rt_error_set(err, "slowdown %g: it must be 1 or more", b->slowdown);
		return -1;
	}
	/* Its own frames, and broadcasts (ARP). */
	snprintf(filter, sizeof filter, "ether dst %s or ether broadcast", rt_format_mac(b->c->mac, mac));
	uint8_t own[6];
	if (rt_iface_hwaddr(b->c->iface, own, err))
		return -1;
	struct rt_live_config lc = { .iface = b->c->iface, .filter = filter, .buffer_mib = b->c->buffer_mib,
				     .promisc = memcmp(own, b->c->mac, 6) != 0 };
	b->live = rt_live_open(&lc, err);
	if (!b->live || listen_on(b, b->c->control, err))
		return -1;
	snprintf(b->st->tstamp, sizeof b->st->tstamp, "%s", rt_live_tstamp(b->live));
	return reset_own(b, err);
}

static void close_board(struct board *b)
{
	if (b->client >= 0)
		close(b->client);
	if (b->listen_fd >= 0) {
		close(b->listen_fd);
		unlink(b->c->control);
	}
	rt_live_close(b->live);
}

int rt_board_serve(struct rt_dut_ops *dev, const struct rt_board_config *c, struct rt_board_stats *st,
		   struct rt_error *err)
{
	struct board *b = calloc(1, sizeof *b);
	if (!b) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	memset(st, 0, sizeof *st);
	*b = (struct board){ .dev = dev, .c = c, .listen_fd = -1, .client = -1, .st = st };
	int64_t start = rt_wall_ns();
	uint64_t ticks = 0;
	int rc = open_board(b, err);
	while (!rc && !*c->stop) {
		uint64_t before = dev->now(dev->ctx);
		rc = turn(b, err);
		uint64_t after = dev->now(dev->ctx);
		ticks += after >= before ? after - before : after;	/* a reset starts again from 0 */
	}
	struct rt_live_stats ls;
	struct rt_error e;
	if (b->live && !rt_live_stats(b->live, &ls, &e)) {
		st->live_dropped = ls.dropped;
		st->live_if_dropped = ls.if_dropped;
	}
	st->ticks = ticks;
	st->wall_s = (double)(rt_wall_ns() - start) * 1e-9;
	close_board(b);
	free(b);
	return rc;
}
