/* SPDX-License-Identifier: MIT */
/*
 * PKT rules (rules.md "PKT: one packet on its own"). Each rule reads the
 * parsed packet and the opcode table; none re-parses bytes the parser has
 * already decoded. A rule that cannot be decided (bytes not captured, PMTU
 * unknown) is counted "not evaluated", never guessed.
 */
#include "rocetest/check.h"

#include <string.h>

#include "rocetest/checksum.h"
#include "rocetest/icrc.h"

#define MAX_PMTU 4096u

/* Passes `rule` when cond holds, else reports it at the rule's own severity. */
#define EXPECT(v, rule, cond, frame, ...)                                                          \
	do {                                                                                       \
		if (cond)                                                                          \
			rt_verdict_pass(v, rule);                                                  \
		else                                                                               \
			rt_verdict_fail(v, rule, rt_rule_info(rule)->severity, frame, __VA_ARGS__); \
	} while (0)

static const char *label(const struct rt_packet *p)
{
	return p->op ? p->op->name : "undefined opcode";
}

static void check_ip(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	if (p->roce_version != 2)
		return;
	if (p->ip_version == 4) {
		const uint8_t *ip = p->frame + p->l3_off;
		uint16_t want = rt_ipv4_header_checksum(ip, p->l3_hdr_len);
		if (p->l3_hdr_len != 20)
			rt_verdict_fail(v, RT_RULE_PKT_IP_HEADER, RT_SEV_ERROR, frame,
					"IPv4 header length %u bytes (IHL %u), RoCEv2 needs IHL 5", p->l3_hdr_len,
					p->l3_hdr_len / 4);
		else if (want != p->ip_checksum)
			rt_verdict_fail(v, RT_RULE_PKT_IP_HEADER, RT_SEV_ERROR, frame,
					"IPv4 header checksum 0x%04x, should be 0x%04x", p->ip_checksum, want);
		else
			rt_verdict_pass(v, RT_RULE_PKT_IP_HEADER);
		if (p->ip_df)
			rt_verdict_pass(v, RT_RULE_PKT_IP_DF);
		else
			rt_verdict_fail(v, RT_RULE_PKT_IP_DF, RT_SEV_WARNING, frame, "IPv4 DF bit not set");
	} else {
		/* The parser only calls an IPv6 packet RoCE when its next header is UDP. */
		rt_verdict_pass(v, RT_RULE_PKT_IP_HEADER);
	}

	uint32_t ip_payload = p->ip_version == 4 ? (uint32_t)p->ip_total_len - p->l3_hdr_len
						 : (uint32_t)p->ip_total_len - 40;
	EXPECT(v, RT_RULE_PKT_UDP_LENGTH, p->udp_len == ip_payload, frame, "%s: UDP length %u, IP payload %u",
	       label(p), p->udp_len, ip_payload);

	if (p->udp_checksum == 0)
		rt_verdict_pass(v, RT_RULE_PKT_UDP_CHECKSUM);
	else if (p->truncated)
		rt_verdict_not_evaluated(v, RT_RULE_PKT_UDP_CHECKSUM);
	else
		EXPECT(v, RT_RULE_PKT_UDP_CHECKSUM, rt_udp_checksum(p) == p->udp_checksum, frame,
		       "%s: UDP checksum 0x%04x, should be 0 or 0x%04x", label(p), p->udp_checksum,
		       rt_udp_checksum(p));

	EXPECT(v, RT_RULE_PKT_UDP_SPORT, p->udp_sport >= 0xC000, frame,
	       "%s: UDP source port %u (0x%04x) is outside 0xC000-0xFFFF", label(p), p->udp_sport, p->udp_sport);
}

static void check_opcode(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	enum rt_transport t = rt_opcode_transport(p->bth.opcode);
	if (p->op && p->op->supported)
		rt_verdict_pass(v, RT_RULE_PKT_OPCODE);
	else if (p->op || t == RT_TRANSPORT_RD || t == RT_TRANSPORT_XRC || t >= RT_TRANSPORT_VENDOR6)
		rt_verdict_fail(v, RT_RULE_PKT_OPCODE, RT_SEV_WARNING, frame, "opcode 0x%02x (%s) is unsupported",
				p->bth.opcode, p->op ? p->op->name : rt_transport_name(t));
	else
		rt_verdict_fail(v, RT_RULE_PKT_OPCODE, RT_SEV_ERROR, frame, "opcode 0x%02x is not defined",
				p->bth.opcode);
}

/* PKT-PAD, the part that makes a packet unusable: PadCnt fits and payload + pad is a multiple of 4. */
static bool pad_fits(const struct rt_packet *p)
{
	return p->bth.pad <= p->data_len && p->data_len % 4 == 0;
}

/* PKT-LEN-FIRST-MIDDLE, -LAST, -ONLY: the payload its place in the message allows (pmtu 0: unknown). */
static bool length_fits(enum rt_position position, uint32_t len, uint32_t pmtu)
{
	uint32_t limit = pmtu ? pmtu : MAX_PMTU;
	switch (position) {
	case RT_POS_FIRST:
	case RT_POS_MIDDLE:
		return !pmtu || len == pmtu;
	case RT_POS_LAST:
		return len >= 1 && len <= limit;
	case RT_POS_ONLY:
		return len <= limit;
	case RT_POS_NONE:
		break;
	}
	return true;
}

bool rt_payload_fits(const struct rt_packet *p, uint32_t pmtu)
{
	const struct rt_opcode_info *op = p->op;
	if (!pad_fits(p) || ((op->position == RT_POS_FIRST || op->position == RT_POS_MIDDLE) && p->bth.pad))
		return false;
	if (!op->payload)
		return p->data_len == 0;
	return op->family == RT_FAMILY_CNP || length_fits(op->position, p->payload_len, pmtu);
}

/* PKT-PAD, PKT-PAD-ZERO. */
static void check_pad(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	const struct rt_opcode_info *op = p->op;
	if (!pad_fits(p))
		rt_verdict_fail(v, RT_RULE_PKT_PAD, RT_SEV_ERROR, frame,
				"%s: PadCnt %u with %u bytes of payload and pad (not a multiple of 4)", label(p),
				p->bth.pad, p->data_len);
	else if ((op->position == RT_POS_FIRST || op->position == RT_POS_MIDDLE) && p->bth.pad != 0)
		rt_verdict_fail(v, RT_RULE_PKT_PAD, RT_SEV_ERROR, frame, "%s: PadCnt %u, First/Middle need 0",
				label(p), p->bth.pad);
	else
		rt_verdict_pass(v, RT_RULE_PKT_PAD);

	if (p->bth.pad && p->bth.pad <= p->data_len && !p->truncated) {
		const uint8_t *pad = p->frame + p->payload_off + p->payload_len;
		bool zero = true;
		for (unsigned i = 0; i < p->bth.pad; i++)
			zero &= pad[i] == 0;
		EXPECT(v, RT_RULE_PKT_PAD_ZERO, zero, frame, "%s: pad bytes are not zero", label(p));
	} else if (p->bth.pad && p->truncated) {
		rt_verdict_not_evaluated(v, RT_RULE_PKT_PAD_ZERO);
	}
}

/* PKT-LEN-NO-PAYLOAD, PKT-LEN-FIRST-MIDDLE, -LAST, -ONLY (pmtu 0: unknown). */
static void check_lengths(const struct rt_packet *p, uint64_t frame, uint32_t pmtu, struct rt_verdicts *v)
{
	const struct rt_opcode_info *op = p->op;
	uint32_t len = p->payload_len;
	if (!op->payload) {
		bool ok = p->data_len == 0 && p->bth.pad == 0;
		if (ok)
			rt_verdict_pass(v, RT_RULE_PKT_LEN_NO_PAYLOAD);
		else
			rt_verdict_fail(v, RT_RULE_PKT_LEN_NO_PAYLOAD, RT_SEV_ERROR, frame,
					"%s carries %u bytes after its headers and PadCnt %u; it must carry none",
					label(p), p->data_len, p->bth.pad);
		return;
	}
	if (op->family == RT_FAMILY_CNP)
		return;	/* the CNP's 16 reserved bytes are PKT-CNP's business */

	uint32_t limit = pmtu ? pmtu : MAX_PMTU;
	bool fits = length_fits(op->position, len, pmtu);
	switch (op->position) {
	case RT_POS_FIRST:
	case RT_POS_MIDDLE:
		if (!pmtu)
			rt_verdict_not_evaluated(v, RT_RULE_PKT_LEN_FIRST_MIDDLE);
		else
			EXPECT(v, RT_RULE_PKT_LEN_FIRST_MIDDLE, fits, frame,
			       "%s payload %u bytes, PMTU is %u", label(p), len, pmtu);
		break;
	case RT_POS_LAST:
	case RT_POS_ONLY: {
		/* Last carries 1..PMTU bytes, Only 0..PMTU: one check, two rules. */
		bool last = op->position == RT_POS_LAST;
		uint32_t least = last ? 1 : 0;
		EXPECT(v, last ? RT_RULE_PKT_LEN_LAST : RT_RULE_PKT_LEN_ONLY, fits, frame,
		       "%s payload %u bytes, must be %u..%u%s", label(p), len, least, limit,
		       pmtu ? " (the PMTU)" : " (the largest PMTU)");
		break;
	}
	case RT_POS_NONE:
		break;
	}
}

/* The PKT rule that reads each extension header's contents. */
static const struct {
	enum rt_ext_header header;
	enum rt_rule rule;
} ext_rules[] = {
	{ RT_EXT_RETH, RT_RULE_PKT_RETH_DMALEN },
	{ RT_EXT_ATOMICETH, RT_RULE_PKT_ATOMIC_ALIGN },
	{ RT_EXT_AETH, RT_RULE_PKT_AETH_SYNDROME },
	{ RT_EXT_DETH, RT_RULE_PKT_UD_DETH },
};

static void check_ext(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	const struct rt_ext *e = &p->ext;
	/* A header the snap length cut is unknown: its rule is not evaluated for this packet. */
	uint8_t cut = (uint8_t)(p->op->ext & ~p->ext_present);
	for (size_t i = 0; cut && i < sizeof ext_rules / sizeof ext_rules[0]; i++)
		if (cut & ext_rules[i].header)
			rt_verdict_not_evaluated(v, ext_rules[i].rule);
	if (p->ext_present & RT_EXT_RETH)
		EXPECT(v, RT_RULE_PKT_RETH_DMALEN, e->reth.dma_len <= 0x80000000u, frame,
		       "%s: RETH DMA length %u exceeds 2^31", label(p), e->reth.dma_len);
	if (p->ext_present & RT_EXT_ATOMICETH)
		EXPECT(v, RT_RULE_PKT_ATOMIC_ALIGN, (e->atomic.va & 7) == 0, frame,
		       "%s: AtomicETH virtual address 0x%llx is not 8-byte aligned", label(p),
		       (unsigned long long)e->atomic.va);
	if (p->ext_present & RT_EXT_AETH) {
		uint8_t s = e->aeth.syndrome;
		enum rt_aeth_type type = rt_aeth_type(s);
		if (s & 0x80)
			rt_verdict_fail(v, RT_RULE_PKT_AETH_SYNDROME, RT_SEV_ERROR, frame,
					"%s: AETH syndrome 0x%02x has reserved bit 7 set", label(p), s);
		else if (type == RT_AETH_RESERVED)
			rt_verdict_fail(v, RT_RULE_PKT_AETH_SYNDROME, RT_SEV_ERROR, frame,
					"%s: AETH syndrome 0x%02x has the reserved type 10b", label(p), s);
		else if (type == RT_AETH_NAK && rt_aeth_value(s) > 3)
			rt_verdict_fail(v, RT_RULE_PKT_AETH_SYNDROME, RT_SEV_ERROR, frame,
					"%s: AETH NAK code %u is not defined for RC (0-3)", label(p), rt_aeth_value(s));
		else
			rt_verdict_pass(v, RT_RULE_PKT_AETH_SYNDROME);
	}
	if (p->ext_present & RT_EXT_DETH)
		EXPECT(v, RT_RULE_PKT_UD_DETH, e->deth.reserved == 0, frame, "%s: DETH reserved byte is 0x%02x",
		       label(p), e->deth.reserved);
}

static void check_bth(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	const struct rt_bth *b = &p->bth;
	EXPECT(v, RT_RULE_PKT_TVER, b->tver == 0, frame, "%s: BTH TVer is %u, must be 0", label(p), b->tver);
	EXPECT(v, RT_RULE_PKT_PKEY, (b->pkey & 0x7FFF) != 0, frame, "%s: P_Key 0x%04x has its low 15 bits zero",
	       label(p), b->pkey);

	bool ud = p->op && p->op->transport == RT_TRANSPORT_UD;
	if (b->dest_qp == 0)
		rt_verdict_fail(v, RT_RULE_PKT_DESTQP, RT_SEV_ERROR, frame, "%s: destination QP 0", label(p));
	else if (b->dest_qp == 1 && p->op && !ud)
		rt_verdict_fail(v, RT_RULE_PKT_DESTQP, RT_SEV_ERROR, frame,
				"%s: destination QP 1 is for UD (GSI) only", label(p));
	else
		rt_verdict_pass(v, RT_RULE_PKT_DESTQP);

	bool cnp = b->opcode == RT_OPCODE_CNP;
	if (b->resv6 || b->resv7)
		rt_verdict_fail(v, RT_RULE_PKT_RESERVED, RT_SEV_WARNING, frame,
				"%s: reserved BTH bits set (byte 4: 0x%02x, byte 8: 0x%02x)", label(p), b->resv6, b->resv7);
	else if (b->fecn)
		rt_verdict_fail(v, RT_RULE_PKT_RESERVED, RT_SEV_WARNING, frame, "%s: FECN set", label(p));
	else if (b->becn && !cnp)
		rt_verdict_fail(v, RT_RULE_PKT_RESERVED, RT_SEV_WARNING, frame, "%s: BECN set on a packet that is not a CNP",
				label(p));
	else
		rt_verdict_pass(v, RT_RULE_PKT_RESERVED);

	if (p->op && (p->op->response || cnp))
		EXPECT(v, RT_RULE_PKT_ACKREQ_RESPONSE, !b->ack_req, frame, "%s has AckReq set", label(p));
}

static void check_cnp(const struct rt_packet *p, uint64_t frame, struct rt_verdicts *v)
{
	const struct rt_bth *b = &p->bth;
	if (!b->becn) {
		rt_verdict_fail(v, RT_RULE_PKT_CNP, RT_SEV_ERROR, frame, "CNP without BECN");
		return;
	}
	if (b->psn != 0) {
		rt_verdict_fail(v, RT_RULE_PKT_CNP, RT_SEV_ERROR, frame, "CNP with PSN %u, must be 0", b->psn);
		return;
	}
	if (p->data_len != RT_CNP_RESERVED_BYTES || (p->roce_version == 2 && p->udp_len != 40)) {
		rt_verdict_fail(v, RT_RULE_PKT_CNP, RT_SEV_ERROR, frame,
				"CNP with %u bytes after the BTH (UDP length %u); needs 16 (UDP length 40)", p->data_len,
				p->udp_len);
		return;
	}
	if (p->truncated) {
		rt_verdict_not_evaluated(v, RT_RULE_PKT_CNP);
		return;
	}
	static const uint8_t zeros[RT_CNP_RESERVED_BYTES];
	if (memcmp(p->frame + p->payload_off, zeros, sizeof zeros) != 0)
		rt_verdict_fail(v, RT_RULE_PKT_CNP, RT_SEV_ERROR, frame, "CNP reserved bytes are not zero");
	else
		rt_verdict_pass(v, RT_RULE_PKT_CNP);
}

void rt_check_packet(const struct rt_packet *p, uint64_t frame, uint32_t pmtu, struct rt_verdicts *v)
{
	if (p->status != RT_PARSE_ROCE)
		return;
	check_ip(p, frame, v);

	switch (rt_icrc_check(p)) {
	case RT_ICRC_OK: rt_verdict_pass(v, RT_RULE_PKT_ICRC); break;
	case RT_ICRC_BAD:
		rt_verdict_fail(v, RT_RULE_PKT_ICRC, RT_SEV_ERROR, frame,
				"%s: ICRC 0x%08x on the wire, computed 0x%08x", label(p), p->icrc_wire, rt_icrc_compute(p));
		break;
	case RT_ICRC_UNVERIFIED: rt_verdict_not_evaluated(v, RT_RULE_PKT_ICRC); break;
	}

	check_opcode(p, frame, v);
	check_bth(p, frame, v);
	if (!p->op || !p->op->supported)
		return;	/* without the table row the headers and lengths are unknown */
	check_pad(p, frame, v);
	check_lengths(p, frame, pmtu, v);
	check_ext(p, frame, v);
	if (p->bth.opcode == RT_OPCODE_CNP)
		check_cnp(p, frame, v);
}

int rt_malformed_rule(const struct rt_packet *p)
{
	if (p->status != RT_PARSE_MALFORMED || !p->field)
		return -1;
	if (!strncmp(p->field, "UDP length", 10) || !strncmp(p->field, "GRH payload length", 18))
		return RT_RULE_PKT_UDP_LENGTH;
	if (!strncmp(p->field, "IPv4", 4) || !strncmp(p->field, "IPv6", 4) || !strncmp(p->field, "GRH", 3))
		return RT_RULE_PKT_IP_HEADER;
	return -1;
}
