# shellcheck shell=bash
# shellcheck disable=SC2154 # rocetest, work, cap, frames: bench.sh's
# SPDX-License-Identifier: MIT
# The rows of `rocetest diff` in `make bench`, sourced by harness/bench/bench.sh
# (which defines row, $rocetest, $cap, $frames, $work).
#
# The pair: the bench capture as A and as B (the same work in both, so both
# contenders must find nothing). rocetest diff reads each capture twice (its
# first pass pairs the connections, the second aligns their messages). What
# users do without it: a `tshark -T fields` export of both captures, with the
# header fields the diff compares, and a text diff of the two exports. The
# target (bench.sh's report): rocetest diff at least 10 times faster.

DIFF_TSHARK_FIELDS=(-e infiniband.bth.opcode -e infiniband.bth.se -e infiniband.bth.m -e infiniband.bth.padcnt
	-e infiniband.bth.a -e infiniband.bth.psn -e infiniband.reth.dmalen -e infiniband.aeth.syndrome
	-e ip.dsfield -e udp.length)

check_rocetest_diff() {
	[ "$3" -eq 0 ] && grep -q -- '-> SAME' "$1" && return 0
	echo "bench: expected exit 0 and '-> SAME'; got exit $3: $(head -c 300 "$1" "$2")" >&2
	return 1
}

# Both exports hold a line per frame and diff found them equal.
check_tshark_diff() {
	local a b
	a=$(wc -l <"$work/diff-a.txt")
	b=$(wc -l <"$work/diff-b.txt")
	[ "$3" -eq 0 ] && [ "$a" -eq "$frames" ] && [ "$b" -eq "$frames" ] && [ ! -s "$1" ] && return 0
	echo "bench: expected exit 0, $frames lines in each export and no difference; got exit $3, $a and $b lines," \
		"$(wc -c <"$1") bytes of diff output" >&2
	return 1
}

row "rocetest diff (A and B)" check_rocetest_diff 3 "$rocetest" diff --quiet "$cap" "$cap"
# shellcheck disable=SC2016 # expanded by the inner bash
row "tshark -T fields (A and B) + diff" check_tshark_diff 1 bash -c \
	'tshark -r "$1" -T fields "${@:3}" >"$2/diff-a.txt" && tshark -r "$1" -T fields "${@:3}" >"$2/diff-b.txt" && diff "$2/diff-a.txt" "$2/diff-b.txt"' \
	diff-export "$cap" "$work" "${DIFF_TSHARK_FIELDS[@]}"
rm -f "$work/diff-a.txt" "$work/diff-b.txt"
