#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest check on crafted captures that break one rule each and their near-miss
# twins; check_warnings.py refuses what a frame does not show.
# tier: check
# takes: 2
. harness/tests/integration/lib.sh
crafted_ok=
if craft_rule_captures; then
	crafted_ok=1
	ok "check: craft_rules.py wrote $(head -n 1 "$TMP/craft_rules.out")"
fi
# check_warnings.py itself: it verifies real properties and refuses the rest.
if [ -n "$crafted_ok" ]; then
	run "$ROCETEST" check --json "$TMP/w.json" "$CR/warnings.pcap"
	want_rc 0
	got=$(jpy 'sorted((v["rule"], v["frame"]) for v in d["violations"])' "$TMP/w.json")
	want=$(jpy 'sorted(d["warnings"].items())' "$CR/warnings.json")
	[ "$got" = "$want" ] || probs+=("warnings reported: $got; crafted: $want")
	res=$("$PY" "$HERE/check_warnings.py" "$TMP/w.json" "$CR/warnings.pcap" 2>&1) || probs+=("check_warnings.py refused: $res")
	check "check: one crafted frame per warning rule: each reported, each verified by check_warnings.py"
	# The same report with every warning moved to the clean frame, plus a rule it cannot verify.
	"$PY" - "$TMP/w.json" "$CR/warnings.json" "$TMP/w-moved.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
clean = json.load(open(sys.argv[2]))["clean"]
for v in d["violations"]:
    v["frame"] = clean
d["violations"].append({"rule": "PKT-PAD-ZERO", "severity": "warning", "frame": clean, "flow": 1, "message": "made up"})
json.dump(d, open(sys.argv[3], "w"))
PYEOF
	res=$("$PY" "$HERE/check_warnings.py" "$TMP/w-moved.json" "$CR/warnings.pcap" 2>&1)
	[ $? -eq 1 ] || probs+=("check_warnings.py accepted warnings at a clean frame: $res")
	for r in PKT-UDP-SPORT PKT-IP-DF PKT-RESERVED REQ-ACKREQ PKT-PAD-ZERO; do
		grep -q "$r" <<<"$res" || probs+=("check_warnings.py did not refuse $r at the clean frame: $res")
	done
	grep -q "not verified" <<<"$res" || probs+=("no 'not verified' for a rule without a check: $res")
	check "check: check_warnings.py refuses warnings whose property the frame lacks, and unknown warning rules"
fi

# Crafted captures that break one rule each, and their near-miss twins.
if [ -n "$crafted_ok" ]; then
	run_tap "check: crafted rule captures" "$PY" "$HERE/check_rules.py" "$ROCETEST" "$CR"
fi

summary
