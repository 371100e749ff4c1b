#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest diff: real captures rewritten (timestamps, MACs, QPNs, PSN bases) and
# changed, profiles, reports.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
if needs "diff" python captures; then
	run_tap "diff" bash "$HERE/diff_check.sh" "$ROCETEST" "$TMP/diff"
fi

summary
