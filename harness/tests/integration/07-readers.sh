#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The in-place pcap reader against libpcap: show and icrc with and without
# --libpcap agree.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
if needs "reader cross-check" captures python; then
	mkdir -p "$TMP/reader"
	run_tap "reader cross-check" "$PY" "$HERE/reader_crosscheck.py" "$ROCETEST" "$TMP/reader" "${CAPTURES[@]}"
fi

summary
