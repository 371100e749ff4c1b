#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest report: a results file like the interop lab's as a conformance run's
# summary.json, JUnit and page; bad lines.
# tier: full
# takes: 1
. harness/tests/integration/lib.sh
if needs "report: a results file as a run's reports" python unit xmllint; then
	run_tap "report: a results file as a run's reports" "$PY" "$HERE/report_check.py" "$ROCETEST" "$UNIT_TESTS" \
		"$HERE/junit.xsd" "$TMP/report"
fi

summary
