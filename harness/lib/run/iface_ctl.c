/* SPDX-License-Identifier: MIT */
/* The board's control socket: sending and receiving its messages (iface_ctl.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "iface_ctl.h"

/* The size each type's message has; a memory write has at most this. */
static size_t ctl_size(uint32_t t)
{
	static const size_t sizes[CTL_TYPES] = {
		[CTL_HELLO] = sizeof(struct ctl_hello),	  [CTL_RESET] = sizeof(struct ctl_reset),
		[CTL_CONFIGURE] = sizeof(struct ctl_reset), [CTL_POST_WR] = sizeof(struct ctl_wr),
		[CTL_MEM_WRITE] = sizeof(struct ctl_mem),  [CTL_STATUS_REQ] = sizeof(struct ctl_hdr),
		[CTL_STATUS] = sizeof(struct ctl_status),  [CTL_REPLY] = sizeof(struct ctl_reply),
		[CTL_CPL] = sizeof(struct ctl_cpl),	  [CTL_FAULT] = sizeof(struct ctl_fault),
	};
	return t < CTL_TYPES ? sizes[t] : 0;
}

int ctl_send(int fd, uint32_t t, void *msg, size_t len, bool wait, struct rt_error *err)
{
	struct ctl_hdr *h = msg;
	h->type = t;
	h->version = CTL_VERSION;
	for (;;) {
		ssize_t n = send(fd, msg, len, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !wait && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		rt_error_set(err, "board control socket: %s", n < 0 ? strerror(errno) : "message cut short");
		return -1;
	}
}

/* Whether a message of n bytes is whole and what its header says it is. */
static bool well_formed(const union ctl_msg *m, size_t n)
{
	if (n < sizeof m->h || m->h.version != CTL_VERSION || !ctl_size(m->h.type))
		return false;
	if (m->h.type == CTL_MEM_WRITE)
		return n >= offsetof(struct ctl_mem, data) && m->mem.len <= CTL_MEM_CHUNK &&
		       n == offsetof(struct ctl_mem, data) + m->mem.len;
	return n == ctl_size(m->h.type);
}

int ctl_recv(int fd, union ctl_msg *m, int timeout_ms, struct rt_error *err)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc;
	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		rt_error_set(err, "board control socket: poll: %s", strerror(errno));
		return -1;
	}
	if (rc == 0)
		return 0;
	ssize_t n;
	do
		n = recv(fd, m, sizeof *m, MSG_DONTWAIT | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0) {
		rt_error_set(err, "board control socket: %s", strerror(errno));
		return -1;
	}
	if (n == 0) {
		rt_error_set(err, "board control socket: the other end closed it");
		return -1;
	}
	if ((size_t)n > sizeof *m || !well_formed(m, (size_t)n)) {
		rt_error_set(err, "board control socket: a malformed message (%zd bytes, type %u, version %u; this "
			     "end speaks version %u): are both ends the same rocetest?", n, m->h.type, m->h.version,
			     CTL_VERSION);
		return -1;
	}
	return 1;
}
