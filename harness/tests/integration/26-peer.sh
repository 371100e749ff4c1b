#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest peer: no RDMA device, usage errors; its CM exchange and the board's
# generator frames over veth.
# tier: full
# takes: 9
# serial: the virtual board keeps the device's time against the wall clock
. harness/tests/integration/lib.sh
run_tap "peer: without an RDMA device" bash "$HERE/peer_check.sh" "$ROCETEST" cli
if needs "peer: against the virtual board" model python tshark; then
	run_tap "peer: against the virtual board" bash "$HERE/peer_check.sh" "$ROCETEST" board
fi

summary
