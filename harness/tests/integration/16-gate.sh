#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest gate: the baseline against regressed copies, known failures,
# tolerances, reports, usage errors; the model's determinism.
# tier: check
# takes: 2
. harness/tests/integration/lib.sh
if needs "gate" python; then
	run_tap "gate" bash "$HERE/gate_check.sh" "$ROCETEST" "$TMP/gate" "$TIER"
fi

summary
