#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The RTL mutants of dut/mutants/mutants.txt: each makes its suite fail with the
# table's text, the unmutated model passes it.
# tier: full
# takes: 55
. harness/tests/integration/lib.sh
# Mutants (dut/mutants/mutants.txt, built by make dut-mutants): each makes its suite fail.
if needs "mutants: the suites catch a broken endpoint" model python; then
	run_tap "mutants: the suites catch a broken endpoint" "$PY" "$HERE/run_check.py" mutants "$ROCETEST" dut/mutants/mutants.txt
fi

summary
