#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Capture oddities the notes explain: bad ICRCs from a rewritten field (UDP source
# port, NAT), RoCE v1 beside v2.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
if needs "ICRC note" python cap:rxe/rdma_write_bw.pcap cap:connectx/rocev2_test.pcap cap:rxe/rping.pcap; then
	run_tap "ICRC note" "$PY" "$HERE/icrc_rewrite_check.py" "$ROCETEST" "$TMP/icrc-note" \
		"$CAPDIR/rxe/rdma_write_bw.pcap" "$CAPDIR/connectx/rocev2_test.pcap" "$CAPDIR/rxe/rping.pcap"
fi
run "$ROCETEST" check vectors/v1-v2-mixed.pcap
want_rc 0; out_has "flow 1 (10.0.0.1 qp 0x11 (RoCE v1) <-> 10.0.0.2 qp 0x12): side 0 sends RoCE v1, side 1 RoCE v2"
check "check: a RoCE v1 side answered in v2 is one flow, named as RoCE v1, with a note"

summary
