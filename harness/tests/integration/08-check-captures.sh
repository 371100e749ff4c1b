#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest check on every real capture: conformant, every warning a property
# check_warnings.py verifies from the bytes.
# tier: check
# takes: 21
. harness/tests/integration/lib.sh
# Every real capture is conformant: exit 0, no error; each warning names a
# property of the capture that check_warnings.py verifies from the bytes.
if needs "check: real captures" captures scapy; then
	for src in "${CAPTURES[@]}"; do
		t="check: ${src#"$CAPDIR"/} is conformant, every warning verified"
		rep=$TMP/real.json
		rm -f "$rep"
		run "$ROCETEST" check --json "$rep" "$src"
		want_rc 0
		if [ -s "$rep" ]; then
			errs=$(jpy '"; ".join("frame " + str(v["frame"]) + " " + v["rule"] + ": " + v["message"] for v in d["violations"] if v["severity"] == "error")' "$rep")
			n=$(jpy 'd["summary"]["errors"]' "$rep")
			[ "$n" = 0 ] || probs+=("$n errors: $errs")
			wres=$("$PY" "$HERE/check_warnings.py" "$rep" "$src" 2>&1) || probs+=("unverified warnings: $(echo "$wres" | head -n 5 | tr '\n' ';')")
			[ ${#probs[@]} -eq 0 ] && t="$t ($wres)"
		else
			probs+=("no JSON report written (stderr: $(snippet "$ERR"))")
		fi
		check "$t"
	done
fi

summary
