#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The golden vectors: regeneration is byte-identical, rocetest check agrees with
# every expectation; gen's errors and seeds.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
if needs "vectors" rocetest python; then
	if bash harness/scripts/make-vectors.sh "$ROCETEST" "$TMP/vectors" >"$TMP/mv.out" 2>&1; then
		diffs=()
		for f in vectors/*.pcap vectors/*.json; do
			cmp -s "$f" "$TMP/vectors/$(basename "$f")" || diffs+=("$(basename "$f")")
		done
		extra=$(cd "$TMP/vectors" && ls | while read -r f; do [ -e "$OLDPWD/vectors/$f" ] || echo "$f"; done)
		if [ ${#diffs[@]} -eq 0 ] && [ -z "$extra" ]; then
			ok "vectors: make vectors reproduces all $(ls vectors/*.pcap | wc -l) committed vectors byte for byte"
		else
			fail "vectors: regeneration" "differs: ${diffs[*]:-none}; not committed: ${extra:-none} (run make vectors)"
		fi
	else
		fail "vectors: regeneration" "make-vectors.sh failed: $(tail -n 3 "$TMP/mv.out" | tr '\n' ' ')"
	fi
	run_tap "vectors: check" "$PY" "$HERE/vectors_check.py" "$ROCETEST" vectors
	printf 'pmtu 1024\nsend a len=100\nfault a>b drop packet=x\n' >"$TMP/bad.scn"
	run "$ROCETEST" gen "$TMP/bad.scn" -o "$TMP/bad.pcap"
	want_rc 2; err_has "bad.scn:3: fault:"
	[ ! -e "$TMP/bad.pcap" ] || probs+=("a capture was written for a malformed scenario")
	check "gen: a malformed scenario is refused with file:line and exit 2, nothing written"
	run "$ROCETEST" gen vectors/scenarios/send-only-1.scn
	want_rc 2; err_has "nothing to write"
	check "gen: without -o or --expect is a usage error"
	run "$ROCETEST" gen --seed 7 vectors/scenarios/send-only-1.scn -o "$TMP/s7.pcap"
	want_rc 0; out_has "send-only-1: 2 frames"
	cmp -s "$TMP/s7.pcap" vectors/send-only-1.pcap && probs+=("--seed 7 gave the same bytes as the seed-1 vector")
	check "gen --seed: another seed gives other payload bytes"
fi

summary
