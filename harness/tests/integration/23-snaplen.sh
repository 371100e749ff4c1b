#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest check on every vector and capture cut by editcap -s 54, 64 and 128: no
# false error, exit status as the cut implies.
# tier: full
# takes: 3
. harness/tests/integration/lib.sh
if needs "snap length" editcap python captures; then
	run_tap "snap length" "$PY" "$HERE/snaplen_check.py" "$ROCETEST" "$TMP/snaplen" vectors "${CAPTURES[@]}"
fi

summary
