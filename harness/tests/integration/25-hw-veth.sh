#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hardware mode: the virtual board on a veth pair between two network namespaces;
# rocetest cm; rocetest run --dut iface: against simulation; mutants; limits.
# tier: full
# takes: 103
# serial: the virtual board keeps the device's time against the wall clock
. harness/tests/integration/lib.sh
if needs "hw: the virtual board over veth" model python tshark; then
	RUN_TAP_TIMEOUT=300 run_tap "hw: the virtual board over veth" bash "$HERE/hw_veth.sh" "$ROCETEST"
fi

summary
