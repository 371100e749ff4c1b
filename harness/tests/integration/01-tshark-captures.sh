#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tshark's dissection of every frame of every real capture against rocetest show
# --json (fields, ICRC verdicts).
# tier: full
# takes: 4
. harness/tests/integration/lib.sh
if needs "tshark cross-check of the captures" tshark python captures; then
	run_tap "tshark cross-check of the captures" \
		"$PY" "$HERE/tshark_crosscheck.py" "$ROCETEST" --require-icrc-ok --label-root "$CAPDIR" "${CAPTURES[@]}"
fi

summary
