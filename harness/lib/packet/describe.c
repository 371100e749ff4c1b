/* SPDX-License-Identifier: MIT */
#include "rocetest/describe.h"

#include <inttypes.h>
#include <stdio.h>

/* wire-facts.md "AETH syndrome": minimum RNR wait per timer code, in microseconds. */
static const double rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

double rt_rnr_timer_us(uint8_t code)
{
	return rnr_timer_us[code & 0x1F];
}

const char *rt_nak_code_name(uint8_t code)
{
	switch (code) {
	case 0: return "PSN sequence error";
	case 1: return "invalid request";
	case 2: return "remote access error";
	case 3: return "remote operational error";
	case 4: return "invalid RD request";
	default: return NULL;
	}
}

void rt_describe_aeth(uint8_t syndrome, char *buf, size_t size)
{
	uint8_t v = rt_aeth_value(syndrome);
	const char *nak;
	switch (rt_aeth_type(syndrome)) {
	case RT_AETH_ACK:
		if (v == 31)
			snprintf(buf, size, "ACK (credits unlimited)");
		else
			snprintf(buf, size, "ACK (credit code %u)", v);
		break;
	case RT_AETH_RNR_NAK:
		snprintf(buf, size, "RNR NAK (timer %u: %g ms)", v, rnr_timer_us[v] / 1000.0);
		break;
	case RT_AETH_NAK:
		nak = rt_nak_code_name(v);
		if (nak)
			snprintf(buf, size, "NAK %s", nak);
		else
			snprintf(buf, size, "NAK reserved code %u", v);
		break;
	case RT_AETH_RESERVED:
		snprintf(buf, size, "reserved syndrome type (0x%02x)", syndrome);
		break;
	}
	if (syndrome & 0x80) {
		size_t n = 0;
		while (n < size && buf[n])
			n++;
		snprintf(buf + n, size - n, ", reserved bit 7 set");
	}
}

void rt_describe_opcode(uint8_t opcode, char *buf, size_t size)
{
	const struct rt_opcode_info *op = rt_opcode_info(opcode);
	if (!op)
		snprintf(buf, size, "%s opcode 0x%02x (undefined)", rt_transport_name(rt_opcode_transport(opcode)),
			 opcode);
	else if (op->transport == RT_TRANSPORT_CNP)
		snprintf(buf, size, "CNP");
	else
		snprintf(buf, size, "%s %s%s", rt_transport_name((enum rt_transport)op->transport), op->label,
			 op->supported ? "" : " (not decoded)");
}

void rt_describe_ext(const struct rt_packet *p, char *buf, size_t size)
{
	size_t n = 0;
	char aeth[64];
	buf[0] = '\0';
#define ADD(...)                                                                  \
	do {                                                                      \
		if (n < size) {                                                   \
			int w = snprintf(buf + n, size - n, __VA_ARGS__);         \
			n += w > 0 ? (size_t)w : 0;                               \
		}                                                                 \
	} while (0)
	const struct rt_ext *e = &p->ext;
	if (p->ext_present & RT_EXT_DETH)
		ADD(" DETH qkey=0x%08" PRIx32 " srcqp=0x%06" PRIx32, e->deth.qkey, e->deth.src_qp);
	if (p->ext_present & RT_EXT_RETH)
		ADD(" RETH va=0x%" PRIx64 " rkey=0x%08" PRIx32 " len=%" PRIu32, e->reth.va, e->reth.rkey,
		    e->reth.dma_len);
	if (p->ext_present & RT_EXT_ATOMICETH)
		ADD(" AtomicETH va=0x%" PRIx64 " rkey=0x%08" PRIx32 " swap_add=0x%" PRIx64 " compare=0x%" PRIx64,
		    e->atomic.va, e->atomic.rkey, e->atomic.swap_add, e->atomic.compare);
	if (p->ext_present & RT_EXT_AETH) {
		rt_describe_aeth(e->aeth.syndrome, aeth, sizeof aeth);
		ADD(" AETH %s msn=%" PRIu32, aeth, e->aeth.msn);
	}
	if (p->ext_present & RT_EXT_ATOMICACKETH)
		ADD(" AtomicAckETH orig=0x%" PRIx64, e->atomic_ack_orig);
	if (p->ext_present & RT_EXT_IMMDT)
		ADD(" ImmDt=0x%08" PRIx32, e->imm);
	if (p->ext_present & RT_EXT_IETH)
		ADD(" IETH rkey=0x%08" PRIx32, e->ieth_rkey);
	if (!p->ext_complete)
		ADD(" (headers cut by snap length)");
#undef ADD
}
