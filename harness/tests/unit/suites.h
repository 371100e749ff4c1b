/* SPDX-License-Identifier: MIT */
/* One Check suite per concern; main.c runs them all. */
#ifndef ROCETEST_UNIT_SUITES_H
#define ROCETEST_UNIT_SUITES_H

#include <check.h>

Suite *opcode_suite(void);
Suite *icrc_suite(void);
Suite *parse_suite(void);
Suite *build_suite(void);
Suite *bitflip_suite(void);
Suite *psn_suite(void);
Suite *capture_suite(void);
Suite *describe_suite(void);
Suite *check_packet_suite(void);	/* test_check_packet.c: the PKT rules */

#endif
