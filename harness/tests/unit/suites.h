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
Suite *violation_list_suite(void);	/* test_violation_list.c: harness/report/violation_list.c */
Suite *capture_suite(void);
Suite *describe_suite(void);
Suite *check_packet_suite(void);	/* test_check_packet.c: the PKT rules */
Suite *checker_suite(void);		/* test_checker.c: the driver: RoCE v1/v2 flows, the rewritten-field ICRC note */
Suite *check_seq_suite(void);		/* test_check_seq.c: SEQ rules and flows */
Suite *check_rsp_req_suite(void);	/* test_check_rsp_req.c: RSP and REQ rules */
Suite *check_recovery_suite(void);	/* test_check_recovery.c: recovery paths and imperfect captures */
Suite *report_suite(void);		/* test_report.c: the JSON, JUnit and HTML writers */
Suite *scenario_suite(void);		/* test_scenario.c: the scenario file parser */
Suite *scenario_write_suite(void);	/* test_scenario_write.c: the scenario writer, round trips through the parser */
Suite *model_suite(void);		/* test_model.c: the reference model and the simulated link */
Suite *goodput_suite(void);		/* test_goodput.c: the line-rate limit of rocetest run */
Suite *run_report_suite(void);		/* test_run_report.c: the run's JSON, JUnit and HTML writers */
Suite *run_results_suite(void);		/* test_run_results.c: the results file of rocetest report */
Suite *cm_suite(void);			/* test_cm.c: the CM frame and ARP request of rocetest run */
Suite *iface_suite(void);		/* test_iface.c: hardware mode: the live port, the iface device, the board */
Suite *gate_suite(void);		/* test_gate.c: rocetest gate: the comparison, its files and reports, the JSON reader */
Suite *diff_suite(void);		/* test_diff.c: rocetest diff: alignment, every field class, pairing, profiles */
Suite *peer_suite(void);		/* test_peer.c: rocetest peer: GID choice, CM exchange, QP attributes, generator data */

#endif
