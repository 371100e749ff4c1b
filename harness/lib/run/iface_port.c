/* SPDX-License-Identifier: MIT */
/*
 * The live port of iface.h: libpcap on a network interface, and the small
 * things about interfaces and addresses that hardware mode needs.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rocetest/iface.h"

struct rt_live {
	pcap_t *pcap;
	int fd;
	char iface[IF_NAMESIZE + 1];
	char tstamp[32];
	uint64_t sent;
};

int64_t rt_wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The message for a missing privilege: what it is and the two ways to have it. */
static void perm_error(struct rt_error *err, const char *iface)
{
	char exe[PATH_MAX] = "rocetest";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0)
		exe[n] = 0;
	rt_error_set(err,
		     "%s: capturing and sending raw frames needs the CAP_NET_RAW capability (and CAP_NET_ADMIN for "
		     "the capture buffer and promiscuous mode), which this process lacks: run it as root, or grant "
		     "them to the program once with `sudo setcap cap_net_raw,cap_net_admin+ep %s`",
		     iface, exe);
}

/*
 * The best timestamps the interface offers: the adapter's clock synced to
 * the system's, else the host's. Unsynced adapter clocks are useless here:
 * the harness compares frame times with its own clock.
 */
static void choose_tstamp(struct rt_live *l)
{
	int *types = NULL;
	int n = pcap_list_tstamp_types(l->pcap, &types);
	int best = -1;
	for (int i = 0; i < n; i++)
		if (types[i] == PCAP_TSTAMP_ADAPTER)
			best = PCAP_TSTAMP_ADAPTER;
	if (n > 0)
		pcap_free_tstamp_types(types);
	if (best >= 0 && pcap_set_tstamp_type(l->pcap, best) == 0)
		snprintf(l->tstamp, sizeof l->tstamp, "adapter");
	else
		snprintf(l->tstamp, sizeof l->tstamp, "host");
	pcap_set_tstamp_precision(l->pcap, PCAP_TSTAMP_PRECISION_NANO);
}

/* pcap_activate's status as a sentence; 0 for success (warnings included). */
static int activate(struct rt_live *l, struct rt_error *err)
{
	int rc = pcap_activate(l->pcap);
	if (rc >= 0)
		return 0;
	switch (rc) {
	case PCAP_ERROR_PERM_DENIED:
		perm_error(err, l->iface);
		break;
	case PCAP_ERROR_NO_SUCH_DEVICE:
		rt_error_set(err, "%s: no such network interface (ip link shows them)", l->iface);
		break;
	case PCAP_ERROR_IFACE_NOT_UP:
		rt_error_set(err, "%s: the interface is down (ip link set %s up)", l->iface, l->iface);
		break;
	default:
		rt_error_set(err, "%s: %s", l->iface, pcap_geterr(l->pcap));
	}
	return -1;
}

static int configure(struct rt_live *l, const struct rt_live_config *c, struct rt_error *err)
{
	unsigned mib = c->buffer_mib ? c->buffer_mib : RT_LIVE_BUFFER_MIB;
	if (pcap_set_snaplen(l->pcap, RT_LIVE_SNAPLEN) || pcap_set_promisc(l->pcap, c->promisc) ||
	    pcap_set_immediate_mode(l->pcap, 1) || pcap_set_buffer_size(l->pcap, (int)(mib << 20))) {
		rt_error_set(err, "%s: cannot configure the capture: %s", l->iface, pcap_geterr(l->pcap));
		return -1;
	}
	choose_tstamp(l);
	if (activate(l, err))
		return -1;
	if (pcap_datalink(l->pcap) != DLT_EN10MB) {
		rt_error_set(err, "%s: not an Ethernet interface (link type %s)", l->iface,
			     pcap_datalink_val_to_name(pcap_datalink(l->pcap)));
		return -1;
	}
	/* Only what arrives: the harness knows what it sent. */
	if (pcap_setdirection(l->pcap, PCAP_D_IN) || pcap_setnonblock(l->pcap, 1, (char[PCAP_ERRBUF_SIZE]){ 0 })) {
		rt_error_set(err, "%s: %s", l->iface, pcap_geterr(l->pcap));
		return -1;
	}
	l->fd = pcap_get_selectable_fd(l->pcap);
	if (l->fd < 0) {
		rt_error_set(err, "%s: libpcap offers no descriptor to wait on", l->iface);
		return -1;
	}
	return c->filter ? rt_live_set_filter(l, c->filter, err) : 0;
}

struct rt_live *rt_live_open(const struct rt_live_config *c, struct rt_error *err)
{
	if (!c->iface || !*c->iface || strlen(c->iface) > IF_NAMESIZE) {
		rt_error_set(err, "'%s' is not an interface name", c->iface ? c->iface : "");
		return NULL;
	}
	struct rt_live *l = calloc(1, sizeof *l);
	if (!l) {
		rt_error_set(err, "out of memory");
		return NULL;
	}
	snprintf(l->iface, sizeof l->iface, "%s", c->iface);
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	l->pcap = pcap_create(c->iface, ebuf);
	if (!l->pcap) {
		rt_error_set(err, "%s: %s", c->iface, ebuf);
		free(l);
		return NULL;
	}
	if (configure(l, c, err)) {
		rt_live_close(l);
		return NULL;
	}
	return l;
}

void rt_live_close(struct rt_live *l)
{
	if (!l)
		return;
	if (l->pcap)
		pcap_close(l->pcap);
	free(l);
}

int rt_live_set_filter(struct rt_live *l, const char *filter, struct rt_error *err)
{
	struct bpf_program prog;
	if (pcap_compile(l->pcap, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		rt_error_set(err, "%s: filter '%s': %s", l->iface, filter, pcap_geterr(l->pcap));
		return -1;
	}
	int rc = pcap_setfilter(l->pcap, &prog);
	pcap_freecode(&prog);
	if (rc) {
		rt_error_set(err, "%s: filter '%s': %s", l->iface, filter, pcap_geterr(l->pcap));
		return -1;
	}
	return 0;
}

int rt_live_fd(const struct rt_live *l)
{
	return l->fd;
}

int rt_live_next(struct rt_live *l, const uint8_t **frame, uint32_t *len, int64_t *ts_ns, struct rt_error *err)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(l->pcap, &h, &data);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		rt_error_set(err, "%s: capture: %s", l->iface, pcap_geterr(l->pcap));
		return -1;
	}
	*frame = data;
	*len = h->caplen;
	/* With nanosecond precision tv_usec holds nanoseconds. */
	*ts_ns = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
	return 1;
}

int rt_live_send(struct rt_live *l, const uint8_t *frame, uint32_t len, struct rt_error *err)
{
	for (int tries = 0; tries < 1000; tries++) {
		int n = pcap_inject(l->pcap, frame, len);
		if (n == (int)len) {
			l->sent++;
			return 0;
		}
		/* A full transmit queue empties by itself; anything else is final. */
		if (n >= 0 || (errno != ENOBUFS && errno != EAGAIN))
			break;
		usleep(10);
	}
	rt_error_set(err, "%s: sending a frame of %u bytes: %s", l->iface, len, pcap_geterr(l->pcap));
	return -1;
}

int rt_live_stats(struct rt_live *l, struct rt_live_stats *s, struct rt_error *err)
{
	struct pcap_stat ps;
	if (pcap_stats(l->pcap, &ps)) {
		rt_error_set(err, "%s: pcap_stats: %s", l->iface, pcap_geterr(l->pcap));
		return -1;
	}
	s->received = ps.ps_recv;
	s->dropped = ps.ps_drop;
	s->if_dropped = ps.ps_ifdrop;
	s->sent = l->sent;
	return 0;
}

const char *rt_live_tstamp(const struct rt_live *l)
{
	return l->tstamp;
}

const char *rt_live_iface(const struct rt_live *l)
{
	return l->iface;
}

/* ---- Interfaces and addresses --------------------------------------- */

int rt_iface_hwaddr(const char *iface, uint8_t mac[6], struct rt_error *err)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	if (strlen(iface) >= sizeof ifr.ifr_name) {
		rt_error_set(err, "'%s' is not an interface name", iface);
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", iface);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int rc = fd < 0 ? -1 : ioctl(fd, SIOCGIFHWADDR, &ifr);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (rc) {
		rt_error_set(err, "%s: cannot read its MAC address: %s", iface, strerror(e));
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

bool rt_iface_has_ipv4(const char *iface, uint32_t ip)
{
	struct ifaddrs *all;
	bool found = false;
	if (getifaddrs(&all))
		return false;
	for (struct ifaddrs *a = all; a; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && !strcmp(a->ifa_name, iface) &&
		    ntohl(((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr.s_addr) == ip)
			found = true;
	freeifaddrs(all);
	return found;
}

bool rt_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;
	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	*ip = ntohl(a.s_addr);
	return true;
}

/* Exactly six pairs of hex digits, separated all by ':' or all by '-'. */
bool rt_parse_mac(const char *s, uint8_t mac[6])
{
	if (strlen(s) != 17 || (s[2] != ':' && s[2] != '-'))
		return false;
	for (int i = 0; i < 6; i++) {
		char pair[3] = { s[3 * i], s[3 * i + 1], 0 };
		if (!isxdigit((unsigned char)pair[0]) || !isxdigit((unsigned char)pair[1]) ||
		    (i < 5 && s[3 * i + 2] != s[2]))
			return false;
		mac[i] = (uint8_t)strtoul(pair, NULL, 16);
	}
	return true;
}

const char *rt_format_mac(const uint8_t m[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

const char *rt_format_ipv4(uint32_t ip, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 0xFF, ip >> 8 & 0xFF, ip & 0xFF);
	return buf;
}
