#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest diff streams: a pair of 520,000-frame captures in the peak RSS of one
# ten times shorter.
# tier: full
# takes: 5
. harness/tests/integration/lib.sh
if needs "diff streaming" python; then
	run_tap "diff streaming" bash "$HERE/diff_stream.sh" "$ROCETEST" "$TMP/diff-stream"
fi

summary
