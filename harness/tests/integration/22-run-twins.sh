#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest run's captures against the reference model's twins of the same work
# (gen, then diff); the model's identity and TX underruns in the reports.
# tier: full
# takes: 32
. harness/tests/integration/lib.sh
if needs "twin: run captures against the model's twins" model python; then
	run_tap "twin: run captures against the model's twins" bash "$HERE/twin_check.sh" "$ROCETEST" "$TMP/twin" "$MODEL" \
		"$(dirname "$(dirname "$MODEL")")/mutants/padcnt-zero/libroce_dut_sim.so"
fi

# The model's identity (a hash of its RTL) and TX underruns in the reports, the mutant's too.
if needs "run: the model's identity and TX underruns" model python; then
	run_tap "run: the model's identity and TX underruns" "$PY" "$HERE/dut_identity_check.py" "$ROCETEST" "$TMP/identity"
fi

summary
