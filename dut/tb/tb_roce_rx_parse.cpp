/* SPDX-License-Identifier: MIT */
/*
 * Bench for roce_rx_parse. Frames come from rt_build (RC ACK / NAK / RNR NAK
 * with random fields and AETH syndromes, CNPs, SEND / WRITE / READ response /
 * atomic ACK / UD / UC and random opcodes that must be dropped, VLAN tags,
 * IPv6, RoCE v1, other UDP ports, bad ICRCs, long payloads) and from small
 * builders here (ARP requests and replies, CM frames, raw UDP), then some are
 * damaged on purpose (wrong MAC / IP, IHL, fragments, IP and UDP lengths,
 * protocol, truncation, runts, random bytes, random byte flips).
 *
 * Expected results:
 *   - the class of every frame comes from model() below, a C transcription of
 *     the classification table in roce_rx_parse.v, which is cross-checked
 *     against rt_parse in both directions for ACKs and CNPs, and against what
 *     the generator meant to build (when it meant something definite);
 *   - ACK and CNP fields come from rt_parse; ARP and CM fields from the bytes;
 *   - tuser on the last beat is what roce_icrc_check would say: the ICRC
 *     verdict of rt_icrc_check for a RoCE packet rt_parse decodes, with an
 *     occasional extra bad mark (a bad FCS from the MAC); random for other
 *     frames, where it is meaningless and must be ignored.
 * Checked every cycle: each frame bumps rx_frames and exactly one class
 * counter, in frame order, with the expected class; cnp_pulse comes exactly
 * with an rx_cnp increment and carries the right QP; each descriptor port
 * delivers the expected descriptors in order and holds valid and its fields
 * stable until ready. At the end the counters must add up.
 *
 *   phase 1: random mix, random tvalid gaps and random ready per port
 *            (rates re-drawn every few frames, including long stalls);
 *   phase 2: full rate, every port ready: the input must never stall;
 *   phase 3: every port stalled for a long time, then released: the input
 *            stalls and nothing is lost;
 *   phase 4: a few huge frames (> 2^17 bytes, the length counter saturates).
 * Run with +seed=N for another sequence, +frames=N for more or fewer.
 */
#include <array>
#include <cstring>
#include <memory>

#include "Vroce_rx_parse.h"
#include "axis_tb.h"

extern "C" {
#include "rocetest/build.h"
#include "rocetest/checksum.h"
#include "rocetest/icrc.h"
#include "rocetest/packet.h"
}

using tb::KEEP;

static const char *NAME = "roce_rx_parse";

enum Cls { ARP, CM, ACK, CNP, BAD_ICRC, NOT_FOR_US, MALFORMED, UNSUPPORTED, NCLS, ANY = -1 };
static const char *const CLS_NAME[NCLS] = { "ARP",	   "CM",	 "ACK",	      "CNP",
					    "bad ICRC", "not for us", "malformed", "unsupported" };

/* What one frame must produce. */
struct Exp {
	int cls = MALFORMED;
	std::string what;
	uint64_t n = 0;
	/* ARP */
	uint16_t oper = 0;
	uint64_t sha = 0, tha = 0;
	uint32_t spa = 0, tpa = 0;
	/* CM */
	uint64_t src_mac = 0;
	uint16_t src_port = 0;
	std::array<uint8_t, 64> payload{};
	/* CM, ACK */
	uint32_t src_ip = 0;
	/* ACK, CNP */
	uint32_t dest_qp = 0, psn = 0, msn = 0;
	uint8_t syndrome = 0;
};

struct Item {
	std::vector<uint8_t> f;
	bool user = false;
	int intent = ANY;
	int force_user = -1;	/* 0 or 1: tuser as given, not as the ICRC says */
	std::string what;
};

static uint64_t be48(const uint8_t *b)
{
	return ((uint64_t)rt_get_be16(b) << 32) | rt_get_be32(b + 2);
}

/* ------------------------------------------------------------------------- */
/* The reference: the classification table of roce_rx_parse.v, in C.        */

static uint8_t cfg_mac[6];
static uint8_t cfg_ip[4];
static int bench_errors;

static int classify(const std::vector<uint8_t> &fr, bool user)
{
	const uint8_t *f = fr.data();
	size_t L = fr.size();
	if (L < 14)
		return MALFORMED;
	bool ours = std::memcmp(f, cfg_mac, 6) == 0;
	static const uint8_t bc[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	bool bcast = std::memcmp(f, bc, 6) == 0;
	if (!ours && !bcast)
		return NOT_FOR_US;
	uint16_t et = rt_get_be16(f + 12);
	if (et == 0x0806) {
		if (L < 42)
			return MALFORMED;
		uint16_t oper = rt_get_be16(f + 20);
		if (rt_get_be16(f + 14) != 1 || rt_get_be16(f + 16) != 0x0800 || f[18] != 6 || f[19] != 4 ||
		    (oper != 1 && oper != 2))
			return UNSUPPORTED;
		return ARP;
	}
	if (et != 0x0800)
		return UNSUPPORTED;
	if (L < 34)
		return MALFORMED;
	const uint8_t *ip = f + 14;
	if (ip[0] != 0x45)
		return MALFORMED;
	if (rt_get_be16(ip + 6) & 0x3FFF)
		return MALFORMED;
	unsigned total = rt_get_be16(ip + 2);
	if (total < 28 || 14 + total > L)
		return MALFORMED;
	if (!ours || std::memcmp(ip + 16, cfg_ip, 4) != 0)
		return NOT_FOR_US;
	if (ip[9] != 17)
		return UNSUPPORTED;
	const uint8_t *udp = ip + 20;
	unsigned ulen = rt_get_be16(udp + 4), dport = rt_get_be16(udp + 2);
	if (ulen != total - 20)
		return MALFORMED;
	if (dport == 17185)
		return ulen == 72 ? CM : MALFORMED;
	if (dport != 4791)
		return UNSUPPORTED;
	if (ulen < 24)
		return MALFORMED;
	if (user)
		return BAD_ICRC;
	const uint8_t *bth = udp + 8;
	if (bth[1] & 0x0F)
		return UNSUPPORTED;
	if (bth[0] == 0x11)
		return ulen < 28 ? MALFORMED : ACK;
	if (bth[0] == 0x81)
		return CNP;
	return UNSUPPORTED;
}

static void bench_fail(const std::string &what, const char *msg)
{
	if (bench_errors < 10)
		std::printf("%s w%d: BENCH: %s (%s)\n", NAME, DATA_WIDTH, msg, what.c_str());
	bench_errors++;
}

/* The expected result of a frame with its tuser, fields included. */
static Exp model(const Item &it)
{
	Exp e;
	e.what = it.what;
	e.cls = classify(it.f, it.user);
	const uint8_t *f = it.f.data();
	uint32_t L = (uint32_t)it.f.size();

	struct rt_packet p;
	rt_parse(&p, RT_LINK_ETHERNET, f, L, L);

	/* rt_parse must agree on what is a good RC Acknowledge or CNP for us. */
	bool parse_good = p.status == RT_PARSE_ROCE && p.roce_version == 2 && p.vlan_count == 0 &&
			  p.ethertype == 0x0800 && p.ip_version == 4 && p.l3_hdr_len == 20 && !p.ip_mf &&
			  p.ip_frag_off == 0 && std::memcmp(f, cfg_mac, 6) == 0 &&
			  std::memcmp(p.dst_ip, cfg_ip, 4) == 0 && p.udp_len == p.ip_total_len - 20 &&
			  !it.user && p.bth.tver == 0;
	bool parse_ack = parse_good && p.bth.opcode == 0x11 && p.op && p.ext_complete &&
			 (p.ext_present & RT_EXT_AETH);
	bool parse_cnp = parse_good && p.bth.opcode == 0x81;
	if ((e.cls == ACK) != parse_ack)
		bench_fail(it.what, "model and rt_parse disagree on an ACK");
	if ((e.cls == CNP) != parse_cnp)
		bench_fail(it.what, "model and rt_parse disagree on a CNP");
	if (it.intent != ANY && it.intent != e.cls) {
		char m[96];
		std::snprintf(m, sizeof m, "generator meant %s, model says %s", CLS_NAME[it.intent],
			      CLS_NAME[e.cls]);
		bench_fail(it.what, m);
	}

	switch (e.cls) {
	case ARP:
		e.oper = rt_get_be16(f + 20);
		e.sha = be48(f + 22);
		e.spa = rt_get_be32(f + 28);
		e.tha = be48(f + 32);
		e.tpa = rt_get_be32(f + 38);
		break;
	case CM:
		e.src_mac = be48(f + 6);
		e.src_ip = rt_get_be32(f + 26);
		e.src_port = rt_get_be16(f + 34);
		std::memcpy(e.payload.data(), f + 42, 64);
		break;
	case ACK:
		e.src_ip = rt_get_be32(p.src_ip);
		e.dest_qp = p.bth.dest_qp;
		e.psn = p.bth.psn;
		e.syndrome = p.ext.aeth.syndrome;
		e.msn = p.ext.aeth.msn;
		break;
	case CNP:
		e.dest_qp = p.bth.dest_qp;
		break;
	default:
		break;
	}
	return e;
}

/* ------------------------------------------------------------------------- */
/* Frame generators                                                          */

class Gen {
public:
	explicit Gen(std::mt19937_64 &rng) : rng(rng) {}

	uint32_t r32() { return (uint32_t)rng(); }
	uint32_t below(uint32_t n) { return (uint32_t)(rng() % n); }
	bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

	void rand_bytes(uint8_t *b, size_t n)
	{
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rng();
	}

	void unicast_mac(uint8_t *m)
	{
		do {
			rand_bytes(m, 6);
			m[0] &= 0xFE;
		} while (std::memcmp(m, cfg_mac, 6) == 0);
	}

	/* a destination MAC that is neither ours nor broadcast */
	void other_mac(uint8_t *m)
	{
		static const uint8_t bc[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
		switch (below(4)) {
		case 0: /* ours with one bit flipped */
			std::memcpy(m, cfg_mac, 6);
			m[below(6)] ^= (uint8_t)(1u << below(8));
			break;
		case 1: /* IPv4 multicast */
			m[0] = 0x01, m[1] = 0x00, m[2] = 0x5E;
			rand_bytes(m + 3, 3);
			m[3] &= 0x7F;
			break;
		default:
			rand_bytes(m, 6);
			break;
		}
		if (std::memcmp(m, cfg_mac, 6) == 0 || std::memcmp(m, bc, 6) == 0)
			other_mac(m);
	}

	void other_ip(uint8_t *ip)
	{
		do {
			if (chance(0.5)) {
				std::memcpy(ip, cfg_ip, 4);
				ip[below(4)] ^= (uint8_t)(1u << below(8));
			} else {
				rand_bytes(ip, 4);
			}
		} while (std::memcmp(ip, cfg_ip, 4) == 0);
	}

	uint8_t syndrome()
	{
		switch (below(5)) {
		case 0: return 0x1F;				/* ACK, unlimited credits */
		case 1: return (uint8_t)below(0x20);		/* ACK, credit code */
		case 2: return (uint8_t)(0x20 | below(0x20));	/* RNR NAK */
		case 3: return (uint8_t)(0x60 | below(4));	/* NAK */
		default: return (uint8_t)rng();			/* anything */
		}
	}

	/* A RoCEv2 spec to us with random fields. */
	void roce_spec(struct rt_build_spec &s, uint8_t opcode)
	{
		rt_build_spec_init(&s);
		std::memcpy(s.dst_mac, cfg_mac, 6);
		unicast_mac(s.src_mac);
		rand_bytes(s.src_ip, 4);
		std::memcpy(s.dst_ip, cfg_ip, 4);
		s.tos = (uint8_t)(chance(0.5) ? 0 : rng());
		s.ttl = (uint8_t)(1 + below(255));
		s.ip_id = (uint16_t)rng();
		s.ip_df = chance(0.8);
		s.udp_sport = (uint16_t)(chance(0.8) ? 0xC000 | below(0x4000) : rng());
		s.udp_checksum = chance(0.3);
		s.bth.opcode = opcode;
		s.bth.se = chance(0.2);
		s.bth.migreq = chance(0.5);
		s.bth.pkey = (uint16_t)(chance(0.8) ? 0xFFFF : rng());
		s.bth.fecn = chance(0.1);
		s.bth.becn = opcode == 0x81 || chance(0.1);
		s.bth.dest_qp = r32() & 0xFFFFFF;
		s.bth.ack_req = chance(0.5);
		s.bth.psn = opcode == 0x81 ? 0 : r32() & 0xFFFFFF;
		s.ext.aeth.syndrome = syndrome();
		s.ext.aeth.msn = r32() & 0xFFFFFF;
		s.ext.reth.va = ((uint64_t)r32() << 32) | r32();
		s.ext.reth.rkey = r32();
		s.ext.reth.dma_len = r32();
		s.ext.imm = r32();
		s.ext.deth.qkey = r32();
		s.ext.deth.src_qp = r32() & 0xFFFFFF;
		s.ext.atomic_ack_orig = ((uint64_t)r32() << 32) | r32();
		s.payload = nullptr;
		s.payload_len = opcode == 0x81 ? 16 : 0;
	}

	std::vector<uint8_t> build(const struct rt_build_spec &s)
	{
		std::vector<uint8_t> f(rt_build_frame_len(&s));
		size_t n = rt_build(&s, f.data(), f.size());
		if (n != f.size())
			bench_fail("rt_build", "rt_build failed");
		return f;
	}

	/* A RoCE frame with some payload from the random buffer. */
	std::vector<uint8_t> roce(uint8_t opcode, uint32_t payload_len, bool corrupt_icrc = false)
	{
		struct rt_build_spec s;
		roce_spec(s, opcode);
		set_payload(s, payload_len);
		s.corrupt_icrc = corrupt_icrc;
		return build(s);
	}

	void set_payload(struct rt_build_spec &s, uint32_t len)
	{
		if (payload_buf.size() < len)
			payload_buf.resize(len);
		rand_bytes(payload_buf.data(), len);
		s.payload = payload_buf.data();
		s.payload_len = len;
	}

	/* Ethernet / IPv4 (no options) / UDP with the given payload; correct lengths. */
	std::vector<uint8_t> udp(const uint8_t *dst_mac, const uint8_t *dst_ip, uint16_t sport, uint16_t dport,
				 const std::vector<uint8_t> &payload)
	{
		std::vector<uint8_t> f(42 + payload.size());
		uint8_t *b = f.data();
		std::memcpy(b, dst_mac, 6);
		unicast_mac(b + 6);
		rt_put_be16(b + 12, 0x0800);
		uint8_t *ip = b + 14;
		ip[0] = 0x45;
		ip[1] = (uint8_t)(chance(0.5) ? 0 : rng());
		rt_put_be16(ip + 2, (uint16_t)(20 + 8 + payload.size()));
		rt_put_be16(ip + 4, (uint16_t)rng());
		rt_put_be16(ip + 6, chance(0.8) ? 0x4000 : 0);
		ip[8] = 64;
		ip[9] = 17;
		rand_bytes(ip + 12, 4);
		std::memcpy(ip + 16, dst_ip, 4);
		rt_put_be16(ip + 10, rt_ipv4_header_checksum(ip, 20));
		uint8_t *u = ip + 20;
		rt_put_be16(u, sport);
		rt_put_be16(u + 2, dport);
		rt_put_be16(u + 4, (uint16_t)(8 + payload.size()));
		rt_put_be16(u + 6, (uint16_t)(chance(0.5) ? 0 : rng()));
		if (!payload.empty())
			std::memcpy(u + 8, payload.data(), payload.size());
		return f;
	}

	std::vector<uint8_t> cm(const uint8_t *dst_mac, const uint8_t *dst_ip, size_t payload_len = 64)
	{
		std::vector<uint8_t> pl(payload_len);
		rand_bytes(pl.data(), pl.size());
		uint16_t sport = (uint16_t)(chance(0.5) ? 0x4322 : rng());
		return udp(dst_mac, dst_ip, sport, 17185, pl);
	}

	std::vector<uint8_t> arp(const uint8_t *dst_mac, uint16_t oper)
	{
		std::vector<uint8_t> f(42);
		uint8_t *b = f.data();
		std::memcpy(b, dst_mac, 6);
		unicast_mac(b + 6);
		rt_put_be16(b + 12, 0x0806);
		rt_put_be16(b + 14, 1);
		rt_put_be16(b + 16, 0x0800);
		b[18] = 6;
		b[19] = 4;
		rt_put_be16(b + 20, oper);
		std::memcpy(b + 22, b + 6, 6);		/* sha */
		rand_bytes(b + 28, 4);			/* spa */
		if (oper == 1 && chance(0.7))
			std::memset(b + 32, 0, 6);	/* tha unknown */
		else
			rand_bytes(b + 32, 6);
		if (chance(0.8))
			std::memcpy(b + 38, cfg_ip, 4);	/* tpa */
		else
			rand_bytes(b + 38, 4);
		return f;
	}

	/* Ethernet padding (or trailing junk) up to at least n bytes. */
	void pad_to(std::vector<uint8_t> &f, size_t n, bool zero)
	{
		while (f.size() < n)
			f.push_back(zero ? 0 : (uint8_t)rng());
	}

	std::vector<uint8_t> random_frame(size_t len)
	{
		std::vector<uint8_t> f(len);
		rand_bytes(f.data(), len);
		if (len >= 6 && chance(0.6))
			std::memcpy(f.data(), chance(0.8) ? cfg_mac : (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 6);
		if (len >= 14 && chance(0.6))
			rt_put_be16(f.data() + 12, chance(0.8) ? 0x0800 : 0x0806);
		if (len >= 15 && chance(0.6))
			f[14] = 0x45;
		if (len >= 18 && chance(0.5))
			rt_put_be16(f.data() + 16, (uint16_t)(len - 14 - below(3)));
		if (len >= 22 && chance(0.6))
			f[20] = f[21] = 0;
		if (len >= 24 && chance(0.6))
			f[23] = 17;
		if (len >= 34 && chance(0.6))
			std::memcpy(f.data() + 30, cfg_ip, 4);
		if (len >= 38 && chance(0.6))
			rt_put_be16(f.data() + 36, chance(0.7) ? 4791 : 17185);
		if (len >= 40 && chance(0.5))
			rt_put_be16(f.data() + 38, (uint16_t)(len - 34 - below(3)));
		if (len >= 44 && chance(0.5))
			f[42] = chance(0.5) ? 0x11 : 0x81, f[43] &= 0xF0;
		return f;
	}

	/* Some valid frame for us (ACK, CNP, CM, ARP), as a base to damage. */
	std::vector<uint8_t> valid_base()
	{
		switch (below(4)) {
		case 0: return roce(0x11, 0);
		case 1: return roce(0x81, 16);
		case 2: return cm(cfg_mac, cfg_ip);
		default: return arp(chance(0.5) ? cfg_mac : (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 1);
		}
	}

	/*
	 * tuser as roce_icrc_check would mark the frame: the ICRC verdict for a
	 * RoCE packet, now and then bad anyway (*extra: a bad FCS from the MAC).
	 */
	bool icrc_user(const std::vector<uint8_t> &f, bool *extra)
	{
		struct rt_packet p;
		uint32_t L = (uint32_t)f.size();
		*extra = false;
		if (rt_parse(&p, RT_LINK_ETHERNET, f.data(), L, L) == RT_PARSE_ROCE && !p.truncated) {
			if (rt_icrc_check(&p) != RT_ICRC_OK)
				return true;
			*extra = chance(0.02);
			return *extra;
		}
		return chance(0.5);	/* meaningless for non-RoCE frames */
	}

	Item next();

private:
	std::mt19937_64 &rng;
	std::vector<uint8_t> payload_buf;
};

static const uint8_t OTHER_OPCODES[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
	0x0F, 0x10, 0x12, 0x13, 0x14, 0x16, 0x17, 0x24, 0x2A, 0x64, 0x65, 0x80, 0x91, 0xA4, 0xFF,
};

Item Gen::next()
{
	Item it;
	uint32_t pick = below(1000);
	static const uint8_t BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

	if (pick < 150) {			/* RC Acknowledge: ACK / RNR NAK / NAK */
		it.f = roce(0x11, 0);
		it.intent = ACK;
		it.what = "ACK";
		if (chance(0.2))
			pad_to(it.f, 60 + below(40), chance(0.5));	/* Ethernet padding */
	} else if (pick < 230) {		/* CNP */
		it.f = roce(0x81, 16);
		it.intent = CNP;
		it.what = "CNP";
	} else if (pick < 330) {		/* other opcodes: dropped */
		uint8_t op = OTHER_OPCODES[below(sizeof OTHER_OPCODES)];
		if (chance(0.2))
			do
				op = (uint8_t)rng();
			while (op == 0x11 || op == 0x81);
		uint32_t plen = below(4) == 0 ? 0 : below(chance(0.1) ? 4096 : 300);
		it.f = roce(op, plen);
		it.intent = UNSUPPORTED;
		it.what = "opcode " + std::to_string(op);
	} else if (pick < 400) {		/* bad ICRC */
		static const uint8_t ops[] = { 0x11, 0x11, 0x81, 0x04, 0x10 };
		uint8_t op = ops[below(sizeof ops)];
		it.f = roce(op, op == 0x81 ? 16 : op == 0x11 ? 0 : below(200), true);
		it.intent = BAD_ICRC;
		it.what = "bad ICRC, opcode " + std::to_string(op);
	} else if (pick < 420) {		/* TVer != 0 */
		struct rt_build_spec s;
		roce_spec(s, chance(0.5) ? 0x11 : 0x81);
		s.bth.tver = (uint8_t)(1 + below(15));
		it.f = build(s);
		it.intent = UNSUPPORTED;
		it.what = "TVer " + std::to_string(s.bth.tver);
	} else if (pick < 500) {		/* ARP */
		uint16_t oper = chance(0.5) ? 1 : 2;
		it.f = arp(oper == 1 && chance(0.7) ? BCAST : cfg_mac, oper);
		if (chance(0.7))
			pad_to(it.f, 60, chance(0.5));
		it.intent = ARP;
		it.what = oper == 1 ? "ARP request" : "ARP reply";
	} else if (pick < 520) {		/* ARP with fields we do not take */
		it.f = arp(BCAST, 1);
		switch (below(5)) {
		case 0: rt_put_be16(it.f.data() + 14, (uint16_t)(chance(0.5) ? 6 : rng())); break;
		case 1: rt_put_be16(it.f.data() + 16, (uint16_t)(chance(0.5) ? 0x86DD : rng())); break;
		case 2: it.f[18] = (uint8_t)(chance(0.5) ? 8 : rng()); break;
		case 3: it.f[19] = (uint8_t)(chance(0.5) ? 16 : rng()); break;
		default: rt_put_be16(it.f.data() + 20, (uint16_t)(chance(0.5) ? below(10) : rng())); break;
		}
		pad_to(it.f, 60, true);
		it.what = "ARP odd field";
		it.intent = classify(it.f, false) == ARP ? ARP : UNSUPPORTED;	/* oper 1/2 again */
	} else if (pick < 580) {		/* CM */
		it.f = cm(cfg_mac, cfg_ip);
		if (chance(0.2))
			pad_to(it.f, it.f.size() + 1 + below(100), false);
		it.intent = CM;
		it.what = "CM";
	} else if (pick < 600) {		/* CM port with another UDP length */
		size_t n;
		do
			n = below(chance(0.1) ? 1500 : 140);
		while (n == 64);
		it.f = cm(cfg_mac, cfg_ip, n);
		if (chance(0.3))
			pad_to(it.f, 60, true);
		it.intent = MALFORMED;
		it.what = "CM payload " + std::to_string(n);
	} else if (pick < 660) {		/* not for us: MAC or IP */
		uint8_t m[6], ip[4];
		switch (below(6)) {
		case 0:
			other_mac(m);
			it.f = roce(0x11, 0);
			std::memcpy(it.f.data(), m, 6);
			it.what = "ACK to another MAC";
			break;
		case 1:
			it.f = roce(chance(0.5) ? 0x11 : 0x81, 0);
			std::memcpy(it.f.data(), BCAST, 6);
			it.what = "RoCE to broadcast MAC";
			break;
		case 2: {
			struct rt_build_spec s;
			roce_spec(s, chance(0.5) ? 0x11 : 0x81);
			other_ip(s.dst_ip);
			it.f = build(s);
			it.what = "RoCE to another IP";
			break;
		}
		case 3:
			other_ip(ip);
			it.f = cm(chance(0.5) ? cfg_mac : BCAST, ip);
			it.what = "CM to another IP";
			break;
		case 4:
			other_mac(m);
			it.f = arp(m, chance(0.5) ? 1 : 2);
			pad_to(it.f, 60, true);
			it.what = "ARP to another MAC";
			break;
		default:
			other_mac(m);
			it.f = cm(m, cfg_ip);
			it.what = "CM to another MAC";
			break;
		}
		it.intent = NOT_FOR_US;
	} else if (pick < 700) {		/* VLAN, IPv6, RoCE v1, other Ethertypes */
		struct rt_build_spec s;
		roce_spec(s, chance(0.5) ? 0x11 : 0x81);
		switch (below(5)) {
		case 0:
		case 1:
			s.vlan_count = (uint8_t)(1 + below(2));
			s.vlan_tci[0] = (uint16_t)rng();
			s.vlan_tci[1] = (uint16_t)rng();
			if (chance(0.2))
				s.vlan_tpid[0] = 0x9100;
			it.f = build(s);
			it.what = "VLAN-tagged RoCE";
			break;
		case 2:
			s.ip_version = 6;
			rand_bytes(s.src_ip, 16);
			rand_bytes(s.dst_ip, 16);
			it.f = build(s);
			it.what = "RoCE over IPv6";
			break;
		case 3:
			s.roce_version = 1;
			it.f = build(s);
			it.what = "RoCE v1";
			break;
		default:
			it.f = random_frame(60 + below(100));
			std::memcpy(it.f.data(), cfg_mac, 6);
			do
				rt_put_be16(it.f.data() + 12, (uint16_t)rng());
			while (rt_get_be16(it.f.data() + 12) == 0x0800 || rt_get_be16(it.f.data() + 12) == 0x0806);
			it.what = "Ethertype " + std::to_string(rt_get_be16(it.f.data() + 12));
			break;
		}
		it.intent = UNSUPPORTED;
	} else if (pick < 730) {		/* UDP to other ports, other protocols */
		if (chance(0.6)) {
			struct rt_build_spec s;
			roce_spec(s, 0x11);
			static const uint16_t ports[] = { 4790, 4792, 17184, 17186, 53, 0x4322 };
			do
				s.udp_dport = chance(0.5) ? ports[below(6)] : (uint16_t)rng();
			while (s.udp_dport == 0 || s.udp_dport == 4791 || s.udp_dport == 17185);
			it.f = build(s);
			it.what = "UDP port " + std::to_string(s.udp_dport);
		} else {
			it.f = chance(0.5) ? roce(0x11, 0) : cm(cfg_mac, cfg_ip);
			do
				it.f[23] = (uint8_t)rng();
			while (it.f[23] == 17);
			it.what = "IP protocol " + std::to_string(it.f[23]);
		}
		it.intent = UNSUPPORTED;
	} else if (pick < 800) {		/* malformed IPv4 / UDP headers */
		if (chance(0.7))
			it.f = chance(0.5) ? roce(0x11, 0) : roce(0x81, 16);
		else
			it.f = cm(cfg_mac, cfg_ip);
		uint8_t *ip = it.f.data() + 14;
		switch (below(9)) {
		case 0: /* IHL not 5 (options, or below the minimum) */
			do
				ip[0] = (uint8_t)(0x40 | below(16));
			while (ip[0] == 0x45);
			it.what = "IHL " + std::to_string(ip[0] & 15);
			break;
		case 1: /* version not 4 */
			do
				ip[0] = (uint8_t)((below(16) << 4) | 5);
			while (ip[0] == 0x45);
			it.what = "IP version " + std::to_string(ip[0] >> 4);
			break;
		case 2: /* fragment: MF */
			ip[6] |= 0x20;
			it.what = "IP MF";
			break;
		case 3: { /* fragment: offset */
			uint16_t off = (uint16_t)(1 + below(0x1FFF));
			rt_put_be16(ip + 6, (uint16_t)((rt_get_be16(ip + 6) & 0xE000) | off));
			it.what = "IP fragment offset";
			break;
		}
		case 4: /* total length beyond the frame */
			rt_put_be16(ip + 2, (uint16_t)(rt_get_be16(ip + 2) + 1 + below(chance(0.5) ? 4 : 60000)));
			it.what = "IP total length too long";
			break;
		case 5: /* total length below IP + UDP */
			rt_put_be16(ip + 2, (uint16_t)below(28));
			it.what = "IP total length too short";
			break;
		case 6: { /* UDP length longer than IP says */
			uint16_t u = rt_get_be16(ip + 24);
			rt_put_be16(ip + 24, (uint16_t)(u + 1 + below(chance(0.5) ? 4 : 1000)));
			it.what = "UDP length too long";
			break;
		}
		case 7: { /* UDP length shorter than IP says */
			uint16_t u = rt_get_be16(ip + 24);
			rt_put_be16(ip + 24, (uint16_t)below(u));
			it.what = "UDP length too short";
			break;
		}
		default: { /* RoCE: both lengths consistent but too short for BTH (+ AETH) */
			it.f = roce(0x11, 0);
			ip = it.f.data() + 14;
			unsigned ulen = 8 + below(20);	/* 8..27 */
			rt_put_be16(ip + 2, (uint16_t)(20 + ulen));
			rt_put_be16(ip + 24, (uint16_t)ulen);
			if (chance(0.5))
				it.f.resize(34 + ulen);	/* the frame ends there too */
			if (it.f.size() < 60 && chance(0.5))
				pad_to(it.f, 60, true);
			it.what = "RoCE UDP length " + std::to_string(ulen);
			/* 24..27: the BTH fits, the AETH does not; with a good ICRC mark */
			it.force_user = 0;
			break;
		}
		}
		it.intent = MALFORMED;
	} else if (pick < 850) {		/* truncated frames and runts */
		if (chance(0.3)) {
			it.f = random_frame(1 + below(13));
			it.what = "runt " + std::to_string(it.f.size());
			it.intent = MALFORMED;
		} else {
			it.f = valid_base();
			it.f.resize(1 + below((uint32_t)it.f.size() - 1));
			it.what = "truncated to " + std::to_string(it.f.size());
			it.intent = ANY;
		}
	} else if (pick < 880) {		/* long frames */
		switch (below(4)) {
		case 0:
			it.f = roce(chance(0.5) ? 0x04 : 0x0A, 1000 + below(8200));
			it.intent = UNSUPPORTED;
			it.what = "long SEND/WRITE";
			break;
		case 1:
			it.f = roce((uint8_t)(0x0D + below(4)), chance(0.5) ? 4096 : 1 + below(9000));
			it.intent = UNSUPPORTED;
			it.what = "long READ response";
			break;
		case 2: {
			std::vector<uint8_t> pl(1000 + below(8500));
			rand_bytes(pl.data(), pl.size());
			it.f = udp(cfg_mac, cfg_ip, (uint16_t)rng(), chance(0.5) ? 17185 : 9999, pl);
			it.intent = ANY;	/* CM port: malformed; other port: unsupported */
			it.what = "long UDP";
			break;
		}
		default:
			it.f = roce(0x11, 0);
			pad_to(it.f, 1000 + below(8600), false);
			it.intent = ACK;
			it.what = "ACK with long trailer";
			break;
		}
	} else if (pick < 940) {		/* random bytes */
		it.f = random_frame(1 + below(chance(0.9) ? 130 : 2000));
		it.intent = ANY;
		it.what = "random " + std::to_string(it.f.size());
	} else {				/* random damage to a valid frame */
		it.f = valid_base();
		unsigned n = 1 + below(3);
		for (unsigned i = 0; i < n; i++)
			it.f[below((uint32_t)std::min<size_t>(it.f.size(), 64))] ^= (uint8_t)(1u << below(8));
		it.intent = ANY;
		it.what = "bit flips";
	}
	bool extra;
	it.user = icrc_user(it.f, &extra);
	if (extra)
		it.intent = ANY;	/* a RoCE frame marked bad after all */
	if (it.force_user >= 0)
		it.user = it.force_user != 0;
	return it;
}

/* ------------------------------------------------------------------------- */
/* The driver                                                                */

class Driver {
public:
	Driver(Vroce_rx_parse *top, std::mt19937_64 &rng, const char *name) : top(top), rng(rng), name(name)
	{
		top->clk = 0;
		top->rst = 1;
		top->s_axis_tvalid = 0;
		top->m_arp_ready = 0;
		top->m_cm_ready = 0;
		top->m_ack_ready = 0;
		top->cfg_mac = be48(cfg_mac);
		top->cfg_ip = rt_get_be32(cfg_ip);
		for (int i = 0; i < 4; i++)
			tick();
		top->rst = 0;
		tick();
	}

	void push(const Item &it)
	{
		Exp e = model(it);
		e.n = pushed++;
		count[e.cls]++;
		src.push_back(it);
		expect.push_back(e);
	}

	/* Run until every frame is classified and every descriptor delivered. */
	bool run()
	{
		uint64_t idle = 0;
		while ((!expect.empty() || !q_arp.empty() || !q_cm.empty() || !q_ack.empty()) && errors < 10) {
			uint64_t before = events;
			cycle();
			idle = events != before ? 0 : idle + 1;
			if (idle > 200000 && idle > 200000 + 2 * max_beats()) {
				std::printf("%s: FAIL: stuck, %zu frames still expected\n", name, expect.size());
				errors++;
				return false;
			}
		}
		return errors == 0;
	}

	/* Run for n cycles (with the current rates). */
	void run_for(uint64_t n)
	{
		for (uint64_t i = 0; i < n && errors < 10; i++)
			cycle();
	}

	double pv = 1.0;
	double pr[3] = { 1.0, 1.0, 1.0 };	/* ARP, CM, ACK */
	bool redraw = false;			/* new rates every few frames */
	uint64_t in_stalls = 0;			/* cycles a beat was offered and not taken */
	uint64_t pushed = 0, classified = 0, descriptors = 0, cnps = 0, events = 0, cycles = 0;
	uint64_t count[NCLS] = {};
	int errors = 0;

	void new_rates()
	{
		/* (ready 0 for good would hang: phase 3 does that on purpose) */
		static const double rates[] = { 1.0, 1.0, 0.9, 0.7, 0.5, 0.2, 0.05, 0.01 };
		std::uniform_int_distribution<int> pick(0, 7);
		pv = rates[pick(rng)];
		for (double &r : pr)
			r = rates[pick(rng)];
	}

	/* The counters as the RTL shows them. */
	void counters(uint32_t c[NCLS + 1]) const
	{
		c[ARP] = top->rx_arp;
		c[CM] = top->rx_cm;
		c[ACK] = top->rx_ack;
		c[CNP] = top->rx_cnp;
		c[BAD_ICRC] = top->drop_bad_icrc;
		c[NOT_FOR_US] = top->drop_not_for_us;
		c[MALFORMED] = top->drop_malformed;
		c[UNSUPPORTED] = top->drop_unsupported;
		c[NCLS] = top->rx_frames;
	}

private:
	Vroce_rx_parse *top;
	std::mt19937_64 &rng;
	const char *name;
	std::deque<Item> src;
	std::deque<Exp> expect;
	std::deque<Exp> q_arp, q_cm, q_ack;
	size_t src_off = 0;
	bool src_valid = false;
	uint32_t prev[NCLS + 1] = {};
	uint64_t since_redraw = 0;
	/* a descriptor offered and not taken last cycle: it must stay */
	bool hold_arp = false, hold_cm = false, hold_ack = false;
	Exp held_arp, held_cm, held_ack;

	uint64_t max_beats() const
	{
		uint64_t m = 0;
		for (const Item &it : src)
			m = std::max<uint64_t>(m, tb::beats(it.f.size()));
		return m;
	}

	void tick()
	{
		top->clk = 1;
		top->eval();
		top->clk = 0;
		top->eval();
		cycles++;
	}

	void fail(const Exp *e, const char *msg)
	{
		if (errors < 10)
			std::printf("%s: FAIL: %s (frame %llu, %s, cycle %llu)\n", name, msg,
				    e ? (unsigned long long)e->n : 0ull, e ? e->what.c_str() : "-",
				    (unsigned long long)cycles);
		errors++;
	}

	void load_beat()
	{
		const Item &it = src.front();
		size_t n = std::min(KEEP, it.f.size() - src_off);
		uint8_t beat[KEEP];
		/* The lanes tkeep leaves out carry garbage: the RTL must ignore them. */
		for (size_t i = 0; i < KEEP; i++)
			beat[i] = i < n ? it.f[src_off + i] : (uint8_t)rng();
		tb::put_bytes(top->s_axis_tdata, beat, KEEP);
		top->s_axis_tkeep = tb::keep_mask(n);
		bool last = src_off + n >= it.f.size();
		top->s_axis_tlast = last;
		top->s_axis_tuser = last ? it.user : (rng() & 1);	/* tuser counts only on the last beat */
		src_valid = true;
	}

	static Exp read_arp(Vroce_rx_parse *t)
	{
		Exp g;
		g.oper = t->m_arp_oper;
		g.sha = t->m_arp_sha;
		g.spa = t->m_arp_spa;
		g.tha = t->m_arp_tha;
		g.tpa = t->m_arp_tpa;
		return g;
	}
	static Exp read_cm(Vroce_rx_parse *t)
	{
		Exp g;
		g.src_mac = t->m_cm_src_mac;
		g.src_ip = t->m_cm_src_ip;
		g.src_port = t->m_cm_src_port;
		/* payload byte i sits in bits [511-8i -: 8] */
		for (size_t i = 0; i < 64; i++)
			g.payload[i] = tb::get_byte(t->m_cm_payload, 63 - i);
		return g;
	}
	static Exp read_ack(Vroce_rx_parse *t)
	{
		Exp g;
		g.src_ip = t->m_ack_src_ip;
		g.dest_qp = t->m_ack_dest_qp;
		g.psn = t->m_ack_psn;
		g.syndrome = t->m_ack_syndrome;
		g.msn = t->m_ack_msn;
		return g;
	}
	static bool same_arp(const Exp &a, const Exp &b)
	{
		return a.oper == b.oper && a.sha == b.sha && a.spa == b.spa && a.tha == b.tha && a.tpa == b.tpa;
	}
	static bool same_cm(const Exp &a, const Exp &b)
	{
		return a.src_mac == b.src_mac && a.src_ip == b.src_ip && a.src_port == b.src_port &&
		       a.payload == b.payload;
	}
	static bool same_ack(const Exp &a, const Exp &b)
	{
		return a.src_ip == b.src_ip && a.dest_qp == b.dest_qp && a.psn == b.psn &&
		       a.syndrome == b.syndrome && a.msn == b.msn;
	}

	void cycle()
	{
		std::uniform_real_distribution<double> u(0.0, 1.0);

		if (!src_valid && !src.empty() && (pv >= 1.0 || u(rng) < pv))
			load_beat();
		top->s_axis_tvalid = src_valid;
		top->m_arp_ready = pr[0] >= 1.0 || u(rng) < pr[0];
		top->m_cm_ready = pr[1] >= 1.0 || u(rng) < pr[1];
		top->m_ack_ready = pr[2] >= 1.0 || u(rng) < pr[2];
		top->eval();

		check_counters();
		check_ports();

		bool s_fire = top->s_axis_tvalid && top->s_axis_tready;
		if (src_valid && !top->s_axis_tready)
			in_stalls++;
		if (s_fire) {
			events++;
			src_off += KEEP;
			src_valid = false;
			if (src_off >= src.front().f.size()) {
				src.pop_front();
				src_off = 0;
				if (redraw && ++since_redraw >= 4) {
					since_redraw = 0;
					new_rates();
				}
			}
		}
		tick();
	}

	/* Counter increments: one frame at a time, in order, of the expected class. */
	void check_counters()
	{
		uint32_t c[NCLS + 1];
		counters(c);
		uint32_t d_frames = c[NCLS] - prev[NCLS];
		int moved = -1, n_moved = 0;
		for (int k = 0; k < NCLS; k++) {
			uint32_t d = c[k] - prev[k];
			if (d > 1)
				fail(nullptr, "a class counter moved by more than 1");
			if (d) {
				moved = k;
				n_moved++;
			}
		}
		bool pulse = top->cnp_pulse;
		if (d_frames > 1 || (uint32_t)n_moved != d_frames) {
			fail(expect.empty() ? nullptr : &expect.front(),
			     "rx_frames and the class counters do not move together");
		} else if (d_frames == 1) {
			events++;
			if (expect.empty()) {
				fail(nullptr, "a frame classified that nobody sent");
			} else {
				Exp e = expect.front();
				expect.pop_front();
				classified++;
				if (moved != e.cls) {
					char m[96];
					std::snprintf(m, sizeof m, "classified %s, expected %s", CLS_NAME[moved],
						      CLS_NAME[e.cls]);
					fail(&e, m);
				} else if (e.cls == ARP) {
					q_arp.push_back(e);
				} else if (e.cls == CM) {
					q_cm.push_back(e);
				} else if (e.cls == ACK) {
					q_ack.push_back(e);
				} else if (e.cls == CNP) {
					cnps++;
					if (!pulse)
						fail(&e, "rx_cnp moved without cnp_pulse");
					else if (top->cnp_qp != e.dest_qp)
						fail(&e, "cnp_qp wrong");
				}
			}
		}
		if (pulse && !(d_frames == 1 && moved == CNP))
			fail(nullptr, "cnp_pulse without a CNP");
		std::memcpy(prev, c, sizeof prev);
	}

	/* Descriptor handshakes and AXI stability. */
	void check_ports()
	{
		bool v, r;

		v = top->m_arp_valid, r = top->m_arp_ready;
		if (hold_arp && (!v || !same_arp(read_arp(top), held_arp)))
			fail(nullptr, "ARP descriptor changed or dropped before ready");
		hold_arp = v && !r;
		if (hold_arp)
			held_arp = read_arp(top);
		if (v && r) {
			events++;
			descriptors++;
			if (q_arp.empty()) {
				fail(nullptr, "an ARP descriptor nobody expected");
			} else {
				Exp e = q_arp.front();
				q_arp.pop_front();
				if (!same_arp(read_arp(top), e))
					fail(&e, "ARP descriptor fields wrong");
			}
		}

		v = top->m_cm_valid, r = top->m_cm_ready;
		if (hold_cm && (!v || !same_cm(read_cm(top), held_cm)))
			fail(nullptr, "CM descriptor changed or dropped before ready");
		hold_cm = v && !r;
		if (hold_cm)
			held_cm = read_cm(top);
		if (v && r) {
			events++;
			descriptors++;
			if (q_cm.empty()) {
				fail(nullptr, "a CM descriptor nobody expected");
			} else {
				Exp e = q_cm.front();
				q_cm.pop_front();
				if (!same_cm(read_cm(top), e))
					fail(&e, "CM descriptor fields wrong");
			}
		}

		v = top->m_ack_valid, r = top->m_ack_ready;
		if (hold_ack && (!v || !same_ack(read_ack(top), held_ack)))
			fail(nullptr, "ACK descriptor changed or dropped before ready");
		hold_ack = v && !r;
		if (hold_ack)
			held_ack = read_ack(top);
		if (v && r) {
			events++;
			descriptors++;
			if (q_ack.empty()) {
				fail(nullptr, "an ACK descriptor nobody expected");
			} else {
				Exp e = q_ack.front();
				q_ack.pop_front();
				if (!same_ack(read_ack(top), e)) {
					char m[160];
					Exp g = read_ack(top);
					std::snprintf(m, sizeof m,
						      "ACK fields wrong: got ip %08x qp %06x psn %06x syn %02x msn %06x, "
						      "expected %08x %06x %06x %02x %06x",
						      g.src_ip, g.dest_qp, g.psn, g.syndrome, g.msn, e.src_ip,
						      e.dest_qp, e.psn, e.syndrome, e.msn);
					fail(&e, m);
				}
			}
		}
	}
};

static uint64_t arg_u64(int argc, char **argv, const char *key, uint64_t dflt)
{
	std::string k = std::string("+") + key + "=";
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a.rfind(k, 0) == 0)
			return std::stoull(a.substr(k.size()));
	}
	return dflt;
}

int main(int argc, char **argv)
{
	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vroce_rx_parse>(ctx.get());
	uint64_t seed = tb::seed_from(argc, argv);
	uint64_t n_frames = arg_u64(argc, argv, "frames", 20000);
	std::mt19937_64 rng(seed);
	char name[64];
	std::snprintf(name, sizeof name, "%s w%d", NAME, DATA_WIDTH);

	Gen g(rng);
	g.rand_bytes(cfg_mac, 6);
	cfg_mac[0] = (uint8_t)((cfg_mac[0] & 0xFE) | 0x02);	/* unicast, locally administered */
	do
		g.rand_bytes(cfg_ip, 4);
	while (cfg_ip[0] == 0);

	Driver d(top.get(), rng, name);
	int fails = 0;

	/* Phase 1: random mix, random gaps and backpressure. */
	d.redraw = true;
	d.new_rates();
	for (uint64_t i = 0; i < n_frames && !d.errors; i++) {
		d.push(g.next());
		if (i % 256 == 255 && !d.run())
			break;
	}
	d.run();
	uint64_t phase1 = d.classified;

	/* Phase 2: full rate, every port ready: the input never stalls. */
	uint64_t full_rate_stalls = 0;
	if (!d.errors) {
		d.redraw = false;
		d.pv = 1.0;
		d.pr[0] = d.pr[1] = d.pr[2] = 1.0;
		d.run();
		d.in_stalls = 0;
		for (int i = 0; i < 4000; i++) {
			Item it = g.next();
			if (it.f.size() > 600)	/* short frames stress the per-frame path most */
				continue;
			d.push(it);
		}
		d.run();
		full_rate_stalls = d.in_stalls;
		if (full_rate_stalls) {
			std::printf("%s: FAIL: input stalled %llu cycles at full rate with every port ready\n",
				    name, (unsigned long long)full_rate_stalls);
			fails++;
		}
	}

	/* Phase 3: every port stalled, then released: the input must stall, nothing lost. */
	uint64_t stalled = 0;
	if (!d.errors) {
		d.pr[0] = d.pr[1] = d.pr[2] = 0.0;
		d.in_stalls = 0;
		for (int i = 0; i < 300; i++) {
			Item it = g.next();
			if (i % 3 == 0) {	/* plenty of frames that need a descriptor */
				it.f = (i % 9 == 0) ? g.arp(cfg_mac, 2) : (i % 9 == 3) ? g.cm(cfg_mac, cfg_ip)
										  : g.roce(0x11, 0);
				it.user = false;
				it.intent = (i % 9 == 0) ? ARP : (i % 9 == 3) ? CM : ACK;
				it.what = "stalled port";
			}
			d.push(it);
		}
		d.run_for(20000);
		stalled = d.in_stalls;
		if (!stalled) {
			std::printf("%s: FAIL: input never stalled with every descriptor port stalled\n", name);
			fails++;
		}
		d.pr[0] = d.pr[1] = d.pr[2] = 0.5;
		d.pv = 0.7;
		d.run();
	}

	/* Phase 4: frames longer than the length counter (2^17 bytes); it saturates. */
	if (!d.errors) {
		d.pv = 1.0;
		d.pr[0] = d.pr[1] = d.pr[2] = 1.0;
		for (int i = 0; i < 3; i++) {
			Item it;
			it.f = g.roce(0x11, 0);	/* 62 bytes: a wrapping counter would call it a runt */
			g.pad_to(it.f, (1u << 17) + (size_t)i * 30 + 1, false);
			it.user = false;
			it.intent = ACK;
			it.what = "ACK in a " + std::to_string(it.f.size()) + "-byte frame";
			d.push(it);
			it.f = g.cm(cfg_mac, cfg_ip);
			g.pad_to(it.f, (1u << 17) + 70000, false);
			it.intent = CM;
			it.what = "CM in a " + std::to_string(it.f.size()) + "-byte frame";
			d.push(it);
		}
		d.run();
	}

	/* The counters must add up. */
	uint32_t c[NCLS + 1];
	d.counters(c);
	uint64_t sum = 0;
	for (int k = 0; k < NCLS; k++) {
		sum += c[k];
		if (c[k] != (uint32_t)d.count[k]) {
			std::printf("%s: FAIL: %s counter %u, expected %llu\n", name, CLS_NAME[k], c[k],
				    (unsigned long long)d.count[k]);
			fails++;
		}
	}
	if (c[NCLS] != d.pushed || sum != c[NCLS]) {
		std::printf("%s: FAIL: rx_frames %u, classes add up to %llu, %llu frames sent\n", name, c[NCLS],
			    (unsigned long long)sum, (unsigned long long)d.pushed);
		fails++;
	}
	/* Coverage: every class seen a fair number of times. */
	for (int k = 0; k < NCLS; k++) {
		if (d.count[k] < d.pushed / 200) {
			std::printf("%s: FAIL: only %llu %s frames\n", name, (unsigned long long)d.count[k],
				    CLS_NAME[k]);
			fails++;
		}
	}

	fails += d.errors + bench_errors;
	top->final();
	if (fails) {
		std::printf("%s: FAILED (%d failures, %llu of %llu frames classified, seed %llu)\n", name, fails,
			    (unsigned long long)d.classified, (unsigned long long)d.pushed,
			    (unsigned long long)seed);
		return 1;
	}
	std::printf("%s: %llu frames OK (ARP %llu, CM %llu, ACK %llu, CNP %llu, bad ICRC %llu, not for us "
		    "%llu, malformed %llu, unsupported %llu; %llu descriptors; %llu with random stalls, "
		    "full rate 0 stalls, stalled ports %llu cycles held; seed %llu)\n",
		    name, (unsigned long long)d.pushed, (unsigned long long)d.count[ARP],
		    (unsigned long long)d.count[CM], (unsigned long long)d.count[ACK],
		    (unsigned long long)d.count[CNP], (unsigned long long)d.count[BAD_ICRC],
		    (unsigned long long)d.count[NOT_FOR_US], (unsigned long long)d.count[MALFORMED],
		    (unsigned long long)d.count[UNSUPPORTED], (unsigned long long)d.descriptors,
		    (unsigned long long)phase1, (unsigned long long)stalled, (unsigned long long)seed);
	return 0;
}
