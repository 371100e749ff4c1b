/* SPDX-License-Identifier: MIT */
/*
 * The iface device (iface.h): a board behind a network interface, driven
 * through struct rt_dut_ops. Its frames are the wire's: what the harness
 * sends is injected on the interface, what the board sends is captured
 * there with the kernel's (or the adapter's) timestamp. Everything else
 * goes over the board's control socket (iface_ctl.h).
 *
 * Time is the board's (iface.h): its ns are the wall clock's divided by the
 * slowdown it declares, counted from the wall clock time its last reset
 * reported. advance(n) waits until the wall clock reaches that time,
 * taking frames and completions in meanwhile; now() is the time at which
 * the port was last emptied, so every frame stamped before it has been
 * taken.
 *
 * A frame's time is when its first bit reached this end: its timestamp
 * (taken when it was whole) less the time it takes on the wire at the
 * board's MAC rate, and never before the frame ahead of it ended. A
 * software path (veth, the virtual board's pacing) can hand frames over
 * closer together than a link could carry them; the harness's link model
 * would then let a short frame overtake a long one.
 *
 * The application memory is the harness's: it may write it at any time
 * through memory(), and the board gets every changed part before it next
 * runs, sends or takes work (the board only reads it).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "iface_ctl.h"
#include "rocetest/iface.h"

#define RX_SLOTS 512
/* How long the board may take to answer a request, of the wall clock. */
#define CTL_TIMEOUT_MS 10000
#define CTL_SOCKET_BYTES (4 << 20)

struct rx_slot {
	uint32_t len;
	int64_t ts;
	uint8_t data[RT_LIVE_SNAPLEN];
};

struct iface_dut {
	struct rt_live *live;
	int ctl;
	struct rt_dut_info info;
	double slowdown;
	struct rt_run_addrs addr;
	uint8_t filter_mac[6];		/* the live filter takes frames from this MAC */
	uint32_t max_lag_ns;
	int64_t t0;			/* the wall clock at the board's time 0 */
	int64_t sampled;		/* the wall clock when the port was last emptied */
	uint64_t wire_free_ps;		/* when the last frame handed out ended on the wire */
	struct rx_slot *rx;		/* frames from the board, oldest at rx_head */
	unsigned rx_head, rx_n;
	struct rt_dut_cpl *cpl;		/* completions, a ring that grows */
	size_t cpl_cap, cpl_head, cpl_n;
	uint8_t *mem, *mem_board;	/* the harness's memory, and what the board has */
	bool mem_dirty, board_mem_known;
	/* Since the last reset. */
	uint64_t injected, captured, wrs;
	struct rt_live_stats base;	/* the capture's counters at the last reset */
	struct ctl_status st;		/* the board's last status */
	char fault[640];		/* the first failure no call could return */
	char perr[768];
	struct rt_run_live totals;
	struct ctl_mem mem_msg;		/* a memory write being sent */
};

static void note_fault(struct iface_dut *d, const char *msg)
{
	if (!d->fault[0])
		snprintf(d->fault, sizeof d->fault, "%s", msg);
}

/* ---- The control socket --------------------------------------------- */

static int push_cpl(struct iface_dut *d, const struct rt_dut_cpl *c)
{
	if (d->cpl_n == d->cpl_cap) {
		size_t cap = d->cpl_cap ? 2 * d->cpl_cap : 1024;
		struct rt_dut_cpl *n = malloc(cap * sizeof *n);
		if (!n)
			return -1;
		for (size_t i = 0; i < d->cpl_n; i++)
			n[i] = d->cpl[(d->cpl_head + i) % d->cpl_cap];
		free(d->cpl);
		d->cpl = n;
		d->cpl_cap = cap;
		d->cpl_head = 0;
	}
	d->cpl[(d->cpl_head + d->cpl_n++) % d->cpl_cap] = *c;
	return 0;
}

/* A message nobody waits for: a completion, a fault, or one out of turn. */
static void take_msg(struct iface_dut *d, const union ctl_msg *m)
{
	char msg[CTL_TEXT + 64];
	switch (m->h.type) {
	case CTL_CPL:
		if (push_cpl(d, &m->cpl.cpl))
			note_fault(d, "out of memory for completions");
		return;
	case CTL_FAULT:
		snprintf(msg, sizeof msg, "the board refused a request: %s", m->fault.msg);
		note_fault(d, msg);
		return;
	default:
		snprintf(msg, sizeof msg, "the board sent a message of type %u out of turn", m->h.type);
		note_fault(d, msg);
	}
}

/* Takes every message waiting. */
static void drain_ctl(struct iface_dut *d)
{
	union ctl_msg m;
	struct rt_error e;
	int rc;
	while ((rc = ctl_recv(d->ctl, &m, 0, &e)) > 0)
		take_msg(d, &m);
	if (rc < 0)
		note_fault(d, e.msg);
}

/* Sends, taking what the board sends meanwhile: it may be waiting for room to send it. */
static int send_ctl(struct iface_dut *d, uint32_t type, void *msg, size_t len, struct rt_error *err)
{
	for (int64_t end = rt_wall_ns() + (int64_t)CTL_TIMEOUT_MS * 1000000;;) {
		int rc = ctl_send(d->ctl, type, msg, len, false, err);
		if (rc <= 0)
			return rc;
		if (rt_wall_ns() > end) {
			rt_error_set(err, "the board took nothing from its control socket in %d s", CTL_TIMEOUT_MS / 1000);
			return -1;
		}
		drain_ctl(d);
		struct pollfd p = { .fd = d->ctl, .events = POLLOUT | POLLIN };
		if (poll(&p, 1, 100) < 0 && errno != EINTR) {
			rt_error_set(err, "board control socket: poll: %s", strerror(errno));
			return -1;
		}
	}
}

/* The board's answer of type want, taking the messages before it. */
static int await_ctl(struct iface_dut *d, uint32_t want, union ctl_msg *m, struct rt_error *err)
{
	for (int64_t end = rt_wall_ns() + (int64_t)CTL_TIMEOUT_MS * 1000000; rt_wall_ns() < end;) {
		int rc = ctl_recv(d->ctl, m, 100, err);
		if (rc < 0)
			return -1;
		if (rc && m->h.type == want)
			return 0;
		if (rc)
			take_msg(d, m);
	}
	rt_error_set(err, "the board did not answer on its control socket in %d s", CTL_TIMEOUT_MS / 1000);
	return -1;
}

static int fetch_status(struct iface_dut *d)
{
	union ctl_msg m;
	struct rt_error e;
	struct ctl_hdr req;
	if (send_ctl(d, CTL_STATUS_REQ, &req, sizeof req, &e) || await_ctl(d, CTL_STATUS, &m, &e)) {
		note_fault(d, e.msg);
		return -1;
	}
	d->st = m.status;
	if (d->st.max_lag_ns > d->totals.max_lag_ns)
		d->totals.max_lag_ns = d->st.max_lag_ns;
	return 0;
}

/* Every part of the memory that changed since the board last got it. */
static int sync_memory(struct iface_dut *d, struct rt_error *err)
{
	if (!d->mem_dirty)
		return 0;
	struct ctl_mem *m = &d->mem_msg;
	for (uint32_t off = 0; off < d->info.mem_size; off += CTL_MEM_CHUNK) {
		uint32_t len = d->info.mem_size - off < CTL_MEM_CHUNK ? d->info.mem_size - off : CTL_MEM_CHUNK;
		if (d->board_mem_known && !memcmp(d->mem + off, d->mem_board + off, len))
			continue;
		m->offset = off;
		m->len = len;
		memcpy(m->data, d->mem + off, len);
		if (send_ctl(d, CTL_MEM_WRITE, m, offsetof(struct ctl_mem, data) + len, err))
			return -1;
		memcpy(d->mem_board + off, d->mem + off, len);
	}
	d->board_mem_known = true;
	d->mem_dirty = false;
	return 0;
}

/* ---- The port -------------------------------------------------------- */

/* The board's time (its ns since its reset) at wall clock w. */
static uint64_t board_ns(const struct iface_dut *d, int64_t w)
{
	return w > d->t0 ? (uint64_t)((double)(w - d->t0) / d->slowdown) : 0;
}

/* A frame's time on the wire at the board's MAC rate: preamble, FCS, gap, the 64-byte minimum. */
static uint64_t wire_time_ps(const struct iface_dut *d, uint32_t len)
{
	uint32_t bytes = (len + 4 < 64 ? 64 : len + 4) + 20;
	double gbps = d->info.mac_gbps > 0 ? d->info.mac_gbps : 100;
	return (uint64_t)((double)bytes * 8 / gbps * 1000);
}

/* Takes every frame the capture holds (while there is room for them). */
static void drain_port(struct iface_dut *d)
{
	struct rt_error e;
	while (d->rx_n < RX_SLOTS) {
		const uint8_t *f;
		uint32_t len;
		int64_t ts;
		int rc = rt_live_next(d->live, &f, &len, &ts, &e);
		if (rc < 0)
			note_fault(d, e.msg);
		if (rc <= 0)
			return;
		struct rx_slot *s = &d->rx[(d->rx_head + d->rx_n++) % RX_SLOTS];
		s->len = len;
		s->ts = ts;
		memcpy(s->data, f, len);
		d->captured++;
		d->totals.frames_in++;
	}
}

/* Waits for the port or the control socket until wall clock deadline. */
static void wait_until(struct iface_dut *d, int64_t deadline)
{
	int64_t left = deadline - rt_wall_ns();
	if (left <= 0)
		return;
	if (left > 5000000)
		left = 5000000;
	struct pollfd p[2] = { { .fd = rt_live_fd(d->live), .events = POLLIN }, { .fd = d->ctl, .events = POLLIN } };
	struct timespec ts = { .tv_sec = 0, .tv_nsec = left };
	/* A full ring leaves the capture readable: then only time and the socket wake us. */
	ppoll(d->rx_n < RX_SLOTS ? p : p + 1, d->rx_n < RX_SLOTS ? 2 : 1, &ts, NULL);
}

/* ---- The device ------------------------------------------------------ */

static uint64_t op_now(void *ctx)
{
	struct iface_dut *d = ctx;
	return board_ns(d, d->sampled);
}

static void op_advance(void *ctx, uint64_t n)
{
	struct iface_dut *d = ctx;
	struct rt_error e;
	if (sync_memory(d, &e))
		note_fault(d, e.msg);
	int64_t target = d->t0 + (int64_t)((double)(op_now(d) + n) * d->slowdown);
	for (;;) {
		/* The clock first: a frame stamped before it is in the capture when it is emptied. */
		int64_t w = rt_wall_ns();
		d->sampled = w;
		drain_port(d);
		drain_ctl(d);
		if (w >= target)
			return;
		wait_until(d, target);
	}
}

static int op_push_rx(void *ctx, const uint8_t *frame, uint32_t len, char *err, size_t errlen)
{
	struct iface_dut *d = ctx;
	struct rt_error e;
	if (sync_memory(d, &e) || rt_live_send(d->live, frame, len, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	d->injected++;
	d->totals.frames_out++;
	return 0;
}

static int op_pull_tx(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *start_ps)
{
	struct iface_dut *d = ctx;
	if (!d->rx_n)
		return 0;
	struct rx_slot *s = &d->rx[d->rx_head];
	*len = s->len;
	if (s->len > cap)
		return -1;
	memcpy(buf, s->data, s->len);
	uint64_t end_ps = board_ns(d, s->ts) * 1000, wire_ps = wire_time_ps(d, s->len);
	*start_ps = end_ps > wire_ps ? end_ps - wire_ps : 0;
	if (*start_ps < d->wire_free_ps)
		*start_ps = d->wire_free_ps;
	d->wire_free_ps = *start_ps + wire_ps;
	d->rx_head = (d->rx_head + 1) % RX_SLOTS;
	d->rx_n--;
	return 1;
}

static int op_post_wr(void *ctx, const struct rt_dut_wr *wr, char *err, size_t errlen)
{
	struct iface_dut *d = ctx;
	if (wr->qp >= d->info.n_qp || wr->opcode > RT_DUT_WRITE_IMM) {
		snprintf(err, errlen, "WR on QP %u with opcode %u: the board has %u QPs and opcodes 0..3", wr->qp,
			 wr->opcode, d->info.n_qp);
		return -1;
	}
	struct rt_error e;
	struct ctl_wr m = { .wr = *wr };
	if (sync_memory(d, &e) || send_ctl(d, CTL_POST_WR, &m, sizeof m, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	d->wrs++;
	return 0;
}

static int op_poll_cpl(void *ctx, struct rt_dut_cpl *cpl)
{
	struct iface_dut *d = ctx;
	drain_ctl(d);
	if (!d->cpl_n)
		return 0;
	*cpl = d->cpl[d->cpl_head];
	d->cpl_head = (d->cpl_head + 1) % d->cpl_cap;
	d->cpl_n--;
	return 1;
}

static uint8_t *op_memory(void *ctx)
{
	struct iface_dut *d = ctx;
	d->mem_dirty = true;	/* the caller may write it */
	return d->mem;
}

static void op_counters(void *ctx, struct rt_dut_counters *c)
{
	struct iface_dut *d = ctx;
	if (fetch_status(d))
		memset(&d->st.counters, 0, sizeof d->st.counters);
	*c = d->st.counters;
}

static unsigned op_qp_state(void *ctx, unsigned qp)
{
	struct iface_dut *d = ctx;
	if (qp >= RT_DUT_MAX_QP || fetch_status(d))
		return RT_DUT_QPS_RESET;
	return d->st.qp_state[qp];
}

/*
 * Quiet when the board says its device is, and it has taken every frame and
 * WR the harness sent and the harness every frame it sent. The status
 * comes before the port is emptied: a frame it counts has been captured.
 */
static bool op_quiet(void *ctx)
{
	struct iface_dut *d = ctx;
	if (fetch_status(d))
		return false;
	drain_port(d);
	return d->st.quiet && d->st.rx_from_harness == d->injected && d->st.tx_frames == d->captured &&
	       d->st.wrs == d->wrs;
}

/* The first thing that makes this board's test unsound, as one sentence; NULL when none. */
static const char *op_port_error(void *ctx)
{
	struct iface_dut *d = ctx;
	struct rt_live_stats s = { 0 };
	struct rt_error e;
	if (!d->fault[0] && rt_live_stats(d->live, &s, &e))
		note_fault(d, e.msg);
	if (!d->fault[0])
		fetch_status(d);
	if (d->fault[0])
		snprintf(d->perr, sizeof d->perr, "%s", d->fault);
	else if (d->st.port_error[0])
		snprintf(d->perr, sizeof d->perr, "%s", d->st.port_error);
	else if (s.dropped > d->base.dropped || s.if_dropped > d->base.if_dropped)
		snprintf(d->perr, sizeof d->perr, "the live capture on %s lost frames (pcap_stats: %llu for lack of "
			 "buffer, %llu by the interface): the capture and the test are incomplete",
			 rt_live_iface(d->live), (unsigned long long)(s.dropped - d->base.dropped),
			 (unsigned long long)(s.if_dropped - d->base.if_dropped));
	else if (d->st.live_dropped || d->st.live_if_dropped)
		snprintf(d->perr, sizeof d->perr, "the board's live capture lost frames (pcap_stats: %llu for lack of "
			 "buffer, %llu by the interface)", (unsigned long long)d->st.live_dropped,
			 (unsigned long long)d->st.live_if_dropped);
	else if (d->st.max_lag_ns > (int64_t)d->max_lag_ns)
		snprintf(d->perr, sizeof d->perr, "the virtual board fell %lld ns of its time behind its schedule "
			 "(at most %u allowed): at slowdown %g its model cannot keep time; give it a larger "
			 "--slowdown", (long long)d->st.max_lag_ns, d->max_lag_ns, d->slowdown);
	else
		return NULL;
	return d->perr;
}

static int request(struct iface_dut *d, uint32_t type, const struct rt_dut_config *cfg, struct ctl_reply *rep,
		   char *err, size_t errlen)
{
	struct ctl_reset m = { .cfg = *cfg };
	memcpy(m.harness_mac, d->addr.host_mac, 6);
	union ctl_msg r;
	struct rt_error e;
	if (send_ctl(d, type, &m, sizeof m, &e) || await_ctl(d, CTL_REPLY, &r, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	*rep = r.reply;
	if (rep->rc) {
		snprintf(err, errlen, "the board: %s", rep->msg);
		return -1;
	}
	return 0;
}

/* Frames from mac only, from here on. */
static int follow_mac(struct iface_dut *d, const uint8_t mac[6], struct rt_error *err)
{
	char filter[64], m[18];
	snprintf(filter, sizeof filter, "ether src %s", rt_format_mac(mac, m));
	if (rt_live_set_filter(d->live, filter, err))
		return -1;
	memcpy(d->filter_mac, mac, 6);
	return 0;
}

/* Forgets what came before a reset: frames, completions, counts, faults. */
static int forget_past(struct iface_dut *d, struct rt_error *err)
{
	/* What the board sent before its reset may still be on the wire: let it arrive, then drop it. */
	usleep(1000);
	d->rx_head = d->rx_n = 0;
	drain_port(d);
	drain_ctl(d);
	d->rx_head = d->rx_n = 0;
	d->cpl_head = d->cpl_n = 0;
	d->injected = d->captured = d->wrs = 0;
	d->wire_free_ps = 0;
	d->fault[0] = 0;
	memset(&d->st, 0, sizeof d->st);
	d->sampled = rt_wall_ns();
	return rt_live_stats(d->live, &d->base, err);
}

static int op_reset(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	struct iface_dut *d = ctx;
	struct ctl_reply rep;
	struct rt_error e;
	if (request(d, CTL_RESET, cfg, &rep, err, errlen))
		return -1;
	d->t0 = rep.t_reset_ns;
	if ((memcmp(cfg->mac, d->filter_mac, 6) && follow_mac(d, cfg->mac, &e)) || forget_past(d, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	return 0;
}

static int op_configure(void *ctx, const struct rt_dut_config *cfg, char *err, size_t errlen)
{
	struct iface_dut *d = ctx;
	struct ctl_reply rep;
	return request(d, CTL_CONFIGURE, cfg, &rep, err, errlen);
}

static void op_destroy(void *ctx)
{
	struct iface_dut *d = ctx;
	if (d->ctl >= 0)
		close(d->ctl);
	rt_live_close(d->live);
	free(d->rx);
	free(d->cpl);
	free(d->mem);
	free(d->mem_board);
	free(d);
}

/* ---- Opening --------------------------------------------------------- */

static int connect_board(struct iface_dut *d, const char *path, struct rt_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (!path || strlen(path) >= sizeof a.sun_path) {
		rt_error_set(err, "the board's control socket needs a path of 1..%zu characters", sizeof a.sun_path - 1);
		return -1;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	d->ctl = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (d->ctl < 0 || connect(d->ctl, (struct sockaddr *)&a, sizeof a)) {
		rt_error_set(err, "cannot reach the board's control socket %s: %s (start the board first: rocetest "
			     "board --iface IFACE --ip A --control %s)", path, strerror(errno), path);
		return -1;
	}
	int bytes = CTL_SOCKET_BYTES;
	setsockopt(d->ctl, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
	setsockopt(d->ctl, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
	union ctl_msg m;
	if (ctl_recv(d->ctl, &m, CTL_TIMEOUT_MS, err) <= 0 || m.h.type != CTL_HELLO) {
		rt_error_set(err, "the board at %s did not introduce itself on its control socket", path);
		return -1;
	}
	d->info = m.hello.info;
	d->slowdown = m.hello.slowdown;
	if (!(d->slowdown >= 1) || !d->info.mem_size || !d->info.n_qp) {
		rt_error_set(err, "the board at %s describes itself inconsistently (slowdown %g, %u QPs, %u bytes of "
			     "memory)", path, d->slowdown, d->info.n_qp, d->info.mem_size);
		return -1;
	}
	return 0;
}

/* Our addresses: the interface's MAC unless another is given; an IP the kernel does not answer for. */
static int local_addrs(struct iface_dut *d, const struct rt_iface_params *p, bool *promisc, struct rt_error *err)
{
	uint8_t own[6];
	char ip[16];
	if (rt_iface_hwaddr(p->iface, own, err))
		return -1;
	memcpy(d->addr.host_mac, p->have_local_mac ? p->local_mac : own, 6);
	*promisc = memcmp(d->addr.host_mac, own, 6) != 0;
	d->addr.host_ip = p->local_ip;
	d->addr.dut_ip = p->dut_ip;
	if (rt_iface_has_ipv4(p->iface, p->local_ip)) {
		rt_error_set(err, "%s has %s, the harness's --local-ip: the kernel would answer the board's frames "
			     "itself (ICMP port unreachable); choose an address it does not have", p->iface,
			     rt_format_ipv4(p->local_ip, ip));
		return -1;
	}
	return 0;
}

static int open_port(struct iface_dut *d, const struct rt_iface_params *p, struct rt_error *err)
{
	bool promisc;
	if (local_addrs(d, p, &promisc, err))
		return -1;
	struct rt_live_config lc = { .iface = p->iface, .buffer_mib = p->buffer_mib, .promisc = promisc };
	d->live = rt_live_open(&lc, err);
	if (!d->live)
		return -1;
	if (p->have_dut_mac) {
		memcpy(d->addr.dut_mac, p->dut_mac, 6);
	} else {
		struct rt_cm_ends ends = { .host_ip = d->addr.host_ip, .board_ip = d->addr.dut_ip };
		memcpy(ends.host_mac, d->addr.host_mac, 6);
		struct rt_cm_wait w = { .timeout_ms = 1000, .attempts = 3 };
		if (rt_live_arp_resolve(d->live, &ends, &w, err))
			return -1;
		memcpy(d->addr.dut_mac, ends.board_mac, 6);
	}
	return follow_mac(d, d->addr.dut_mac, err);
}

static int allocate(struct iface_dut *d, struct rt_error *err)
{
	d->rx = malloc(RX_SLOTS * sizeof *d->rx);
	d->mem = calloc(1, d->info.mem_size);
	d->mem_board = calloc(1, d->info.mem_size);
	if (!d->rx || !d->mem || !d->mem_board) {
		rt_error_set(err, "out of memory (the board's memory is %u bytes)", d->info.mem_size);
		return -1;
	}
	/* The board's memory is unknown until the first write sends all of it. */
	d->mem_dirty = true;
	return 0;
}

static void fill_ops(struct iface_dut *d, struct rt_dut_ops *ops, const char *iface)
{
	char name[sizeof d->info.name];
	snprintf(name, sizeof name, "%s", d->info.name);
	snprintf(d->info.name, sizeof d->info.name, "%.*s on %s", (int)(sizeof name - 4 - strlen(iface)), name,
		 iface);
	d->info.tick_hz = 1e9;	/* a tick is a ns of the board's time */
	*ops = (struct rt_dut_ops){
		.ctx = d, .info = d->info, .reset = op_reset, .configure = op_configure, .push_rx = op_push_rx,
		.pull_tx = op_pull_tx, .post_wr = op_post_wr, .poll_cpl = op_poll_cpl, .advance = op_advance,
		.now = op_now, .memory = op_memory, .counters = op_counters, .qp_state = op_qp_state,
		.quiet = op_quiet, .port_error = op_port_error, .destroy = op_destroy,
	};
}

int rt_iface_dut_open(const struct rt_iface_params *p, struct rt_dut_ops *ops, struct rt_error *err)
{
	struct iface_dut *d = calloc(1, sizeof *d);
	if (!d) {
		rt_error_set(err, "out of memory");
		return -1;
	}
	d->ctl = -1;
	d->max_lag_ns = p->max_lag_ns ? p->max_lag_ns : RT_IFACE_MAX_LAG_NS;
	if (connect_board(d, p->control, err) || open_port(d, p, err) || allocate(d, err)) {
		op_destroy(d);
		return -1;
	}
	d->sampled = d->t0 = rt_wall_ns();
	d->totals.slowdown = d->slowdown;
	snprintf(d->totals.iface, sizeof d->totals.iface, "%s", p->iface);
	snprintf(d->totals.tstamp, sizeof d->totals.tstamp, "%s", rt_live_tstamp(d->live));
	fill_ops(d, ops, p->iface);
	return 0;
}

void rt_iface_dut_addrs(const struct rt_dut_ops *ops, struct rt_run_addrs *a)
{
	const struct iface_dut *d = ops->ctx;
	*a = d->addr;
}

void rt_iface_dut_totals(const struct rt_dut_ops *ops, struct rt_run_live *t)
{
	struct iface_dut *d = ops->ctx;
	struct rt_live_stats s;
	struct rt_error e;
	*t = d->totals;
	if (!rt_live_stats(d->live, &s, &e)) {
		t->dropped = s.dropped;
		t->if_dropped = s.if_dropped;
	}
}
