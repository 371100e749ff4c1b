/* SPDX-License-Identifier: MIT */
/* The opcode table against the wire-facts.md "Opcodes" and "Extension headers" tables. */
#include <check.h>

#include "rocetest/opcode.h"
#include "suites.h"
#include "test_util.h"

/* One loop iteration per row of the facts table: each opcode fails on its own. */
START_TEST(defined_opcode_has_the_listed_headers)
{
	const struct fact_opcode *fact = &fact_opcodes[_i];
	const struct rt_opcode_info *op = rt_opcode_info(fact->opcode);
	ck_assert_msg(op != NULL, "opcode 0x%02x is defined in wire-facts.md but has no row", fact->opcode);
	ck_assert_msg(op->supported, "opcode 0x%02x is in the catalogue but marked unsupported", fact->opcode);
	ck_assert_msg(op->ext == fact->ext, "opcode 0x%02x (%s): headers 0x%02x, wire-facts lists 0x%02x",
		      fact->opcode, op->name, op->ext, fact->ext);
	ck_assert_msg(op->ext_bytes == fact->ext_bytes, "opcode 0x%02x (%s): ext_bytes %u, headers add up to %u",
		      fact->opcode, op->name, op->ext_bytes, fact->ext_bytes);
	ck_assert_msg(op->payload == fact->payload, "opcode 0x%02x (%s): payload flag %d, wire-facts says %d",
		      fact->opcode, op->name, op->payload, fact->payload);
	/* Bits 7-5 of the opcode are the transport. */
	ck_assert_uint_eq(op->transport, fact->opcode >> 5);
	ck_assert_int_eq(op->immediate, (fact->ext & RT_EXT_IMMDT) != 0);
	ck_assert_int_eq(op->invalidate, (fact->ext & RT_EXT_IETH) != 0);
	ck_assert_ptr_nonnull(op->name);
	ck_assert_ptr_nonnull(op->label);
}
END_TEST

static bool in_facts(unsigned opcode)
{
	for (size_t i = 0; i < fact_opcode_count; i++)
		if (fact_opcodes[i].opcode == opcode)
			return true;
	return false;
}

START_TEST(undefined_opcodes_have_no_row)
{
	static const uint8_t undefined[] = { 0x15, 0x18, 0x1F, 0x2C, 0x3F, 0x40, 0x63, 0x66, 0x80, 0x82, 0xFF };
	for (size_t i = 0; i < sizeof undefined; i++)
		ck_assert_msg(rt_opcode_info(undefined[i]) == NULL, "opcode 0x%02x is undefined but has a row",
			      undefined[i]);

	/*
	 * Across all 256 values the only rows outside wire-facts.md may be the
	 * IBTA 1.5 FLUSH (0x1C) and ATOMIC WRITE (0x1D), which the library names
	 * but must not claim to decode.
	 */
	for (unsigned opcode = 0; opcode < 256; opcode++) {
		const struct rt_opcode_info *op = rt_opcode_info((uint8_t)opcode);
		if (in_facts(opcode))
			continue;
		if (opcode == 0x1C || opcode == 0x1D) {
			ck_assert_msg(op != NULL && !op->supported, "opcode 0x%02x should be named, not decoded",
				      opcode);
			continue;
		}
		ck_assert_msg(op == NULL, "opcode 0x%02x is not in wire-facts.md but has row %s", opcode, op->name);
	}
}
END_TEST

START_TEST(extension_header_sizes_match_the_facts)
{
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_RETH), FACT_RETH_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_AETH), FACT_AETH_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_IMMDT), FACT_IMMDT_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_IETH), FACT_IETH_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_ATOMICETH), FACT_ATOMICETH_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_ATOMICACKETH), FACT_ATOMICACKETH_BYTES);
	ck_assert_uint_eq(rt_ext_header_bytes(RT_EXT_DETH), FACT_DETH_BYTES);
}
END_TEST

START_TEST(extension_header_order)
{
	/* WRITE Only with Immediate: RETH then ImmDt. */
	const struct rt_opcode_info *op = rt_opcode_info(0x0B);
	ck_assert_ptr_nonnull(op);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_RETH), 0);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_IMMDT), FACT_RETH_BYTES);

	/* Atomic Acknowledge: AETH then AtomicAckETH. */
	op = rt_opcode_info(0x12);
	ck_assert_ptr_nonnull(op);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_AETH), 0);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_ATOMICACKETH), FACT_AETH_BYTES);

	/* UD SEND Only with Immediate: DETH then ImmDt. */
	op = rt_opcode_info(0x65);
	ck_assert_ptr_nonnull(op);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_DETH), 0);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_IMMDT), FACT_DETH_BYTES);

	/* UC WRITE Only with Immediate shares the RC layout. */
	op = rt_opcode_info(0x2B);
	ck_assert_ptr_nonnull(op);
	ck_assert_uint_eq(rt_ext_header_offset(op->ext, RT_EXT_IMMDT), FACT_RETH_BYTES);
}
END_TEST

START_TEST(positions_and_families)
{
	/* First/Middle/Last/Only and the operation, spot-checked against the opcode names in wire-facts.md. */
	ck_assert_uint_eq(rt_opcode_info(0x00)->position, RT_POS_FIRST);
	ck_assert_uint_eq(rt_opcode_info(0x01)->position, RT_POS_MIDDLE);
	ck_assert_uint_eq(rt_opcode_info(0x02)->position, RT_POS_LAST);
	ck_assert_uint_eq(rt_opcode_info(0x04)->position, RT_POS_ONLY);
	ck_assert_uint_eq(rt_opcode_info(0x0E)->position, RT_POS_MIDDLE);
	ck_assert_uint_eq(rt_opcode_info(0x06)->family, RT_FAMILY_WRITE);
	ck_assert_uint_eq(rt_opcode_info(0x0C)->family, RT_FAMILY_READ_REQUEST);
	ck_assert_uint_eq(rt_opcode_info(0x10)->family, RT_FAMILY_READ_RESPONSE);
	ck_assert_uint_eq(rt_opcode_info(0x11)->family, RT_FAMILY_ACK);
	ck_assert_uint_eq(rt_opcode_info(0x14)->family, RT_FAMILY_ATOMIC);
	ck_assert_uint_eq(rt_opcode_info(RT_OPCODE_CNP)->family, RT_FAMILY_CNP);
	ck_assert_uint_eq(rt_opcode_info(0x64)->transport, RT_TRANSPORT_UD);
	/* Responses come from the responder: READ responses and both ACKs, nothing else. */
	for (size_t i = 0; i < fact_opcode_count; i++) {
		uint8_t code = fact_opcodes[i].opcode;
		bool response = code >= 0x0D && code <= 0x12;
		ck_assert_msg(rt_opcode_info(code)->response == response, "opcode 0x%02x response flag", code);
	}
}
END_TEST

Suite *opcode_suite(void)
{
	Suite *s = suite_create("opcode");
	TCase *tc = tcase_create("table");
	tcase_add_loop_test(tc, defined_opcode_has_the_listed_headers, 0, (int)fact_opcode_count);
	tcase_add_test(tc, undefined_opcodes_have_no_row);
	tcase_add_test(tc, extension_header_sizes_match_the_facts);
	tcase_add_test(tc, extension_header_order);
	tcase_add_test(tc, positions_and_families);
	suite_add_tcase(s, tc);
	return s;
}
