#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Linux cooked captures (SLL v1 and v2): the same RoCE fields as the Ethernet
# capture, and tshark agrees.
# tier: check
# takes: 2
. harness/tests/integration/lib.sh
# Linux cooked captures (SLL v1, link type 113; SLL v2, 276). editcap -T linux-sll
# only relabels the link type without rewriting the Ethernet header, so craft.py
# rewrites each frame. Same RoCE fields as the Ethernet capture (caplen/len differ
# by the header sizes), and tshark agrees on the SLL file as well.
for name in connectx/read2.pcap rxe/rdma_cm.pcap rxe-lab/ipv6_rc_pingpong_s10000.pcap; do
	for kind in sll sll2; do
		t="$kind: $name parses the same RoCE fields"
		needs "$t" captures python || continue
		src=$(cap "$name") || { fail "$t" "capture $name is missing"; continue; }
		f=$TMP/$kind-${name//\//-}
		if ! "$PY" "$HERE/craft.py" $kind "$src" "$f" 2>"$TMP/craft.err"; then
			fail "$t" "craft.py failed: $(snippet "$TMP/craft.err")"
			continue
		fi
		"$ROCETEST" show --json "$src" >"$TMP/a.json" 2>/dev/null
		run "$ROCETEST" show --json "$f"
		want_rc 0
		msg=$("$PY" "$HERE/compare_json.py" "$TMP/a.json" "$OUT" --ignore caplen,len) || probs+=("$msg")
		check "$t"
		if [ "$kind" = sll ] && needs "tshark cross-check of $kind $name" tshark; then
			run_tap "tshark cross-check of $kind $name" \
				"$PY" "$HERE/tshark_crosscheck.py" "$ROCETEST" --require-icrc-ok --label-root "$TMP" "$f"
		fi
	done
done

summary
