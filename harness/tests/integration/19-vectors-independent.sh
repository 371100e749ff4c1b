#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The golden vectors without rocetest: ICRCs by zlib.crc32, tshark's dissection
# and fields against each scenario.
# tier: full
# takes: 18
. harness/tests/integration/lib.sh
if needs "vectors: independent cross-check" tshark python; then
	run_tap "vectors: independent cross-check" "$PY" "$HERE/vectors_crosscheck.py" vectors
fi

summary
