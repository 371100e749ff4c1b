#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# show --json over every real capture is valid NDJSON.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
if needs "json: show --json over every capture" captures python; then
	run_tap "json: show --json over every capture" \
		"$PY" "$HERE/json_check.py" "$ROCETEST" "json: show --json over every capture is valid NDJSON" "${CAPTURES[@]}"
fi

summary
