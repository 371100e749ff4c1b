/* SPDX-License-Identifier: MIT */
/*
 * The unit test binary. Run it from the repository root: the capture tests
 * read ../shared/captures. CK_NORMAL prints the failures and ends with
 * "100%: Checks: N, Failures: 0, Errors: 0", which harness/tests/run-all.sh reads.
 */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(opcode_suite());
	srunner_add_suite(sr, icrc_suite());
	srunner_add_suite(sr, parse_suite());
	srunner_add_suite(sr, build_suite());
	srunner_add_suite(sr, bitflip_suite());
	srunner_add_suite(sr, psn_suite());
	srunner_add_suite(sr, violation_list_suite());
	srunner_add_suite(sr, capture_suite());
	srunner_add_suite(sr, describe_suite());
	srunner_add_suite(sr, check_packet_suite());
	srunner_add_suite(sr, checker_suite());
	srunner_add_suite(sr, check_seq_suite());
	srunner_add_suite(sr, check_rsp_req_suite());
	srunner_add_suite(sr, check_recovery_suite());
	srunner_add_suite(sr, report_suite());
	srunner_add_suite(sr, scenario_suite());
	srunner_add_suite(sr, scenario_write_suite());
	srunner_add_suite(sr, model_suite());
	srunner_add_suite(sr, goodput_suite());
	srunner_add_suite(sr, run_report_suite());
	srunner_add_suite(sr, run_results_suite());
	srunner_add_suite(sr, cm_suite());
	srunner_add_suite(sr, iface_suite());
	srunner_add_suite(sr, gate_suite());
	srunner_add_suite(sr, diff_suite());
	srunner_add_suite(sr, peer_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
