#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The reports of rocetest check and rocetest run: JSON shape, JUnit against
# junit.xsd, self-contained HTML rendered by Chromium; 4096 faulty QPs; a
# late-judged violation.
# tier: check
# takes: 20
. harness/tests/integration/lib.sh
# The reports and screenshots stay beside the binary's build directory for a person to look at
# (the screenshots: rxe-rdma_read_bw.pcap.png, rxe-lab-loss5_req_write_bw_s16384.pcap.png, ...).
REPORTS=$(dirname "$(dirname "$ROCETEST")")/test-reports
if needs "reports" captures python xmllint chromium cap:rxe/rdma_read_bw.pcap; then
	mkdir -p "$REPORTS" "$TMP/hostile"
	# A capture named like markup: every report must escape the name (JSON string, XML attribute, HTML text).
	hostile=$TMP/hostile/"<script>alert(1)&\"'.pcap"
	cp "$CAPDIR/rxe/rdma_read_bw.pcap" "$hostile"
	render=(--render "$CAPDIR/rxe/rdma_read_bw.pcap" --render "$hostile")
	[ -r "$CAPDIR/rxe-lab/loss5_req_write_bw_s16384.pcap" ] &&
		render+=(--render "$CAPDIR/rxe-lab/loss5_req_write_bw_s16384.pcap")
	# A violation to draw: a capture with one corrupted ICRC.
	src=$(cap rxe/rdma_write_bw.pcap) &&
		"$PY" "$HERE/craft.py" corrupt-icrc "$src" "$TMP/one-bad-icrc.pcap" >/dev/null 2>"$TMP/craft.err" &&
		render+=(--render "$TMP/one-bad-icrc.pcap")
	run_tap "reports" "$PY" "$HERE/check_report.py" "$ROCETEST" "$HERE/junit.xsd" "$REPORTS" "${render[@]}" \
		"${CAPTURES[@]}"
fi
# The reports of rocetest run, on the sample run of test_run_report.c (harness/report/run_*.c need no device):
# strict JSON, JUnit against junit.xsd, the page with its goodput plot rendered (test-reports/run-sample/).
if needs "run reports" python xmllint chromium unit; then
	run_tap "run reports" "$PY" "$HERE/run_report_check.py" "$UNIT_TESTS" "$HERE/junit.xsd" "$REPORTS/run-sample"
fi
# Big and odd captures: JUnit of 4096 faulty QPs (one case per rule; --junit-per-flow whole), and a page
# whose violation is judged long after its packet was folded (its own row, linked; late-judged.png).
if needs "report scale" python xmllint chromium; then
	run_tap "report scale" "$PY" "$HERE/check_report_scale.py" "$ROCETEST" "$HERE/junit.xsd" "$REPORTS/scale"
fi

summary
