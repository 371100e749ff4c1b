/* SPDX-License-Identifier: MIT */
#include "rocetest/icrc.h"

#include <libdeflate.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

enum {
	LRH_STANDIN_BYTES = 8,
	IPV4_MAX_HEADER_BYTES = 60,
	UDP_HEADER_BYTES = 8,
};

/* The CRC-32 of the LRH stand-in and the masked IP, UDP and BTH headers: where every ICRC begins. */
static uint32_t masked_headers_crc(const uint8_t *frame, const struct rt_icrc_layout *l)
{
	/*
	 * The masked headers go through a small copy on the stack; the rest of
	 * the packet (usually nearly all of it) is CRCed in place, so the cost
	 * per packet is one short copy plus libdeflate's folded CRC-32.
	 */
	uint8_t hdr[LRH_STANDIN_BYTES + IPV4_MAX_HEADER_BYTES + UDP_HEADER_BYTES + RT_BTH_BYTES];
	size_t n = 0;

	memset(hdr, 0xFF, LRH_STANDIN_BYTES);
	n += LRH_STANDIN_BYTES;

	uint8_t *ip = hdr + n;
	/* The common sizes as constants, so the copies compile to a few moves, not a call. */
	if (l->l3_hdr_len == 20)
		memcpy(ip, frame + l->l3_off, 20);
	else if (l->l3_hdr_len == 40)
		memcpy(ip, frame + l->l3_off, 40);
	else
		memcpy(ip, frame + l->l3_off, l->l3_hdr_len);
	if (l->ip_version == 4) {
		ip[1] = 0xFF;			/* TOS: DSCP and ECN */
		ip[8] = 0xFF;			/* TTL */
		ip[10] = ip[11] = 0xFF;		/* header checksum */
	} else {
		ip[0] |= 0x0F;			/* traffic class, high nibble */
		ip[1] = ip[2] = ip[3] = 0xFF;	/* traffic class, flow label */
		ip[7] = 0xFF;			/* hop limit */
	}
	n += l->l3_hdr_len;

	if (l->roce_version == 2) {
		uint8_t *udp = hdr + n;
		memcpy(udp, frame + l->l3_off + l->l3_hdr_len, UDP_HEADER_BYTES);
		udp[6] = udp[7] = 0xFF;		/* UDP checksum */
		n += UDP_HEADER_BYTES;
	}

	uint8_t *bth = hdr + n;
	memcpy(bth, frame + l->bth_off, RT_BTH_BYTES);
	bth[4] = 0xFF;				/* FECN, BECN, 6 reserved bits */
	n += RT_BTH_BYTES;

	return (uint32_t)libdeflate_crc32(0, hdr, n);
}

uint32_t rt_icrc_compute_layout(const uint8_t *frame, const struct rt_icrc_layout *l)
{
	uint32_t rest = l->bth_off + RT_BTH_BYTES;
	return (uint32_t)libdeflate_crc32(masked_headers_crc(frame, l), frame + rest, l->icrc_off - rest);
}

static struct rt_icrc_layout layout_of(const struct rt_packet *p)
{
	return (struct rt_icrc_layout){
		.l3_off = p->l3_off,
		.l3_hdr_len = p->l3_hdr_len,
		.ip_version = p->ip_version,
		.roce_version = p->roce_version,
		.bth_off = p->bth_off,
		.icrc_off = p->icrc_off,
	};
}

uint32_t rt_icrc_compute(const struct rt_packet *p)
{
	if (p->icrc_done)
		return p->icrc_computed;
	struct rt_icrc_layout l = layout_of(p);
	return rt_icrc_compute_layout(p->frame, &l);
}

enum rt_icrc_status rt_icrc_check(const struct rt_packet *p)
{
	if (p->status != RT_PARSE_ROCE || p->truncated)
		return RT_ICRC_UNVERIFIED;
	return rt_icrc_compute(p) == p->icrc_wire ? RT_ICRC_OK : RT_ICRC_BAD;
}

void rt_icrc_store(uint8_t *frame, uint32_t icrc_off, uint32_t icrc)
{
	frame[icrc_off] = (uint8_t)icrc;
	frame[icrc_off + 1] = (uint8_t)(icrc >> 8);
	frame[icrc_off + 2] = (uint8_t)(icrc >> 16);
	frame[icrc_off + 3] = (uint8_t)(icrc >> 24);
}

/* ---- CRC arithmetic: the ICRC with the payload's own CRC, and bad ICRCs solved for a field ---- */

/*
 * CRC-32 arithmetic in zlib's reflected representation: bit 31 is x^0, the
 * polynomial is 0xEDB88320. With crc(A) the CRC-32 of A (init and final
 * xor included), crc(A B) = x^(8|B|) * crc(A) + crc(B) mod P (zlib's
 * crc32_combine), and crc is affine: crc(A ^ D) = crc(A) ^ crc(D) ^ crc(0).
 */
#define CRC32_POLY_REFLECTED 0xEDB88320u
#define GF2_ONE (1u << 31)

/* r * x mod P. */
static uint32_t gf2_times_x(uint32_t r)
{
	return r & 1 ? (r >> 1) ^ CRC32_POLY_REFLECTED : r >> 1;
}

/* r * x^4 mod P is (r >> 4) ^ times_x4[r & 15]: the four coefficients shifted past x^31, reduced. */
static const uint32_t times_x4[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/* r * x^32 mod P: eight steps of four bits. */
static uint32_t gf2_times_x32(uint32_t r)
{
	for (int i = 0; i < 8; i++)
		r = (r >> 4) ^ times_x4[r & 15];
	return r;
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * The carry-less product of two reflected values is their reflected 63-bit
 * product: shifted left once, bit 63 is x^0. Its high half is x^0..x^31,
 * its low half x^32..x^63, which times x^32 folds back under x^32.
 */
__attribute__((target("pclmul"))) static uint32_t gf2_mulmod_clmul(uint32_t a, uint32_t b)
{
	__m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b), 0);
	uint64_t q = (uint64_t)_mm_cvtsi128_si64(p) << 1;
	return gf2_times_x32((uint32_t)q) ^ (uint32_t)(q >> 32);
}
#endif

/*
 * a * b mod P. The checker does one per packet (rt_icrc_verify), so the
 * carry-less multiply where the CPU has it (some 40 instructions), else four
 * bits of a at a time (Horner from x^28..x^31 down to x^0..x^3).
 */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("pclmul"))
		return gf2_mulmod_clmul(a, b);
#endif
	/* multiple[n]: b times the nibble n, whose bit 3 is x^0 and bit 0 is x^3. */
	uint32_t bx[4] = { b, gf2_times_x(b), 0, 0 }, multiple[16] = { 0 };
	bx[2] = gf2_times_x(bx[1]);
	bx[3] = gf2_times_x(bx[2]);
	for (unsigned n = 1; n < 16; n++)
		multiple[n] = multiple[n & (n - 1)] ^ bx[3 - __builtin_ctz(n)];
	uint32_t r = 0;
	for (int shift = 0; shift <= 28; shift += 4)
		r = ((r >> 4) ^ times_x4[r & 15]) ^ multiple[(a >> shift) & 15];
	return r;
}

/* x^(8 * 2^k) mod P: x^8, then each the square of the one before. */
static const uint32_t x8_pow2[32] = {
	0x00800000, 0x00008000, 0xedb88320, 0xb1e6b092, 0xa06a2517, 0xed627dae, 0x88d14467, 0xd7bbfe6a,
	0xec447f11, 0x8e7ea170, 0x6427800e, 0x4d47bae0, 0x09fe548f, 0x83852d0f, 0x30362f1a, 0x7b5a9cc3,
	0x31fec169, 0x9fec022a, 0x6c8dedc4, 0x15d6874d, 0x5fde7a4e, 0xbad90e37, 0x2e4e5eef, 0x4eaba214,
	0xa8a472c0, 0x429a969e, 0x148d302a, 0xc40ba6d0, 0xc4e22c3c, 0x40000000, 0x20000000, 0x08000000,
};

/* x^(8n) mod P: what n bytes after a change do to its effect on the CRC (one product per bit of n). */
static uint32_t gf2_shift_bytes(uint32_t n)
{
	uint32_t p = GF2_ONE;
	for (; n; n &= n - 1) {
		uint32_t k = x8_pow2[__builtin_ctz(n)];
		p = p == GF2_ONE ? k : gf2_mulmod(k, p);
	}
	return p;
}

enum rt_icrc_status rt_icrc_verify(struct rt_packet *p)
{
	if (p->status != RT_PARSE_ROCE || p->truncated) {
		p->icrc_done = true;
		p->icrc_computed = p->payload_crc = 0;
		return RT_ICRC_UNVERIFIED;
	}
	/*
	 * Headers, the payload on its own, then the pad: the payload's CRC is
	 * what the checker fingerprints retransmissions with, and it joins the
	 * headers' by crc(A B) = x^(8|B|) crc(A) + crc(B), so one pass over the
	 * payload gives both.
	 */
	struct rt_icrc_layout l = layout_of(p);
	uint32_t ext = p->bth_off + RT_BTH_BYTES, pad = p->payload_off + p->payload_len, payload = 0;
	uint32_t crc = masked_headers_crc(p->frame, &l);
	if (p->payload_off > ext)
		crc = (uint32_t)libdeflate_crc32(crc, p->frame + ext, p->payload_off - ext);
	if (p->payload_len) {
		payload = (uint32_t)libdeflate_crc32(0, p->frame + p->payload_off, p->payload_len);
		crc = gf2_mulmod(gf2_shift_bytes(p->payload_len), crc) ^ payload;
	}
	if (p->icrc_off > pad)
		crc = (uint32_t)libdeflate_crc32(crc, p->frame + pad, p->icrc_off - pad);
	p->icrc_computed = crc;
	p->payload_crc = payload;
	p->icrc_done = true;
	return p->icrc_computed == p->icrc_wire ? RT_ICRC_OK : RT_ICRC_BAD;
}

static const struct {
	const char *name;
	uint8_t bytes;
} field_info[RT_ICRC_FIELDS] = {
	[RT_ICRC_FIELD_UDP_SPORT] = { "UDP source port", 2 },
	[RT_ICRC_FIELD_IPV4_ID] = { "IPv4 identification", 2 },
	[RT_ICRC_FIELD_IPV4_FLAGS] = { "IPv4 flags and fragment offset", 2 },
	[RT_ICRC_FIELD_IPV4_SRC] = { "IPv4 source address", 4 },
	[RT_ICRC_FIELD_IPV4_DST] = { "IPv4 destination address", 4 },
};

const char *rt_icrc_field_name(enum rt_icrc_field f)
{
	return (unsigned)f < RT_ICRC_FIELDS ? field_info[f].name : "?";
}

unsigned rt_icrc_field_bytes(enum rt_icrc_field f)
{
	return (unsigned)f < RT_ICRC_FIELDS ? field_info[f].bytes : 0;
}

/* Where field f stands in p's frame; false when p has no such field. */
static bool field_offset(const struct rt_packet *p, enum rt_icrc_field f, uint32_t *off)
{
	if (p->status != RT_PARSE_ROCE || p->roce_version != 2)
		return false;
	switch (f) {
	case RT_ICRC_FIELD_UDP_SPORT: *off = p->udp_off; return true;
	case RT_ICRC_FIELD_IPV4_ID: *off = p->l3_off + 4; return p->ip_version == 4;
	case RT_ICRC_FIELD_IPV4_FLAGS: *off = p->l3_off + 6; return p->ip_version == 4;
	case RT_ICRC_FIELD_IPV4_SRC: *off = p->l3_off + 12; return p->ip_version == 4;
	case RT_ICRC_FIELD_IPV4_DST: *off = p->l3_off + 16; return p->ip_version == 4;
	case RT_ICRC_FIELDS: break;
	}
	return false;
}

bool rt_icrc_field_value(const struct rt_packet *p, enum rt_icrc_field f, uint32_t *value)
{
	uint32_t off;
	if (!field_offset(p, f, &off))
		return false;
	*value = field_info[f].bytes == 2 ? rt_get_be16(p->frame + off) : rt_get_be32(p->frame + off);
	return true;
}

void rt_icrc_solver_init(struct rt_icrc_solver *s)
{
	memset(s, 0, sizeof *s);
}

/* The ICRC change that flipping bit `bit` (0: least significant) of a big-endian field makes. */
static uint32_t bit_effect(unsigned bytes, unsigned bit, uint32_t shift)
{
	uint8_t delta[4] = { 0 }, zero[4] = { 0 };
	delta[bytes - 1 - bit / 8] = (uint8_t)(1u << (bit % 8));
	uint32_t local = (uint32_t)libdeflate_crc32(0, delta, bytes) ^ (uint32_t)libdeflate_crc32(0, zero, bytes);
	return gf2_mulmod(shift, local);
}

/* The echelon basis of the ICRC changes a field `bytes` wide with `distance` covered bytes after it can make. */
static void basis_build(struct rt_icrc_basis *b, unsigned bytes, uint32_t distance)
{
	uint32_t shift = gf2_shift_bytes(distance);
	b->rank = 0;
	for (unsigned bit = 0; bit < bytes * 8; bit++) {
		uint32_t v = bit_effect(bytes, bit, shift), combo = 1u << bit;
		for (unsigned i = 0; i < b->rank; i++) {
			if (v & b->pivot[i]) {
				v ^= b->vec[i];
				combo ^= b->combo[i];
			}
		}
		if (!v)
			continue;
		b->vec[b->rank] = v;
		b->pivot[b->rank] = 1u << (31 - __builtin_clz(v));
		b->combo[b->rank] = combo;
		b->rank++;
	}
	b->distance = distance;
	b->valid = true;
}

bool rt_icrc_solve(struct rt_icrc_solver *s, const struct rt_packet *p, uint32_t computed, enum rt_icrc_field f,
		   uint32_t *value)
{
	uint32_t off = 0, captured;
	if (p->truncated || !field_offset(p, f, &off) || !rt_icrc_field_value(p, f, &captured))
		return false;
	unsigned bytes = field_info[f].bytes;
	uint32_t distance = p->icrc_off - off - bytes;
	struct rt_icrc_basis *b = &s->basis[f];
	if (!b->valid || b->distance != distance)
		basis_build(b, bytes, distance);
	/* The change the ICRC needs, written in the basis; every vector after vec[i] lacks pivot[i]. */
	uint32_t need = computed ^ p->icrc_wire, combo = 0;
	for (unsigned i = 0; i < b->rank; i++) {
		if (need & b->pivot[i]) {
			need ^= b->vec[i];
			combo ^= b->combo[i];
		}
	}
	if (need)
		return false;
	*value = captured ^ combo;
	return true;
}
