#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark/tshark plugin: its fields against rocetest show/check, a corrupted
# ICRC, the CM snapshot, the filter cookbook, install, fuzz.
# tier: full
# takes: 77
. harness/tests/integration/lib.sh
if needs "dissector" tshark editcap python captures; then
	for part in load fields icrc cm install fuzz; do
		run_tap "dissector: $part" bash dissectors/tests/run.sh "$part" "$ROCETEST"
	done
fi

summary
