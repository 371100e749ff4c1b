#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The integration tests: runs the test files harness/tests/integration/NN-NAME.sh
# (each sources lib.sh; each runs on its own too, see lib.sh) and totals them.
#
# usage (from the repository root):
#   bash harness/tests/integration/run.sh [--tier check] [--filter PATTERN] [--jobs N] PATH/TO/rocetest
#   bash harness/tests/integration/run.sh --list [--filter PATTERN]
#
# Prints every file's "ok - NAME" / "FAIL - NAME: why" lines ("#" lines are
# details) in the files' numeric order, then a line "# NN-NAME: N passed, M
# failed in S s" per file, and ends with exactly "integration: N passed, M
# failed"; exits 1 if any test failed. A file that exits non-zero without a
# FAIL line, prints no result, or runs past its time (FILE_TIMEOUT seconds,
# 1800 unless set) counts as one more failure.
#
# --filter PATTERN (make test T=PATTERN): only the files whose name (NN-NAME)
#   contains PATTERN; several patterns separated by commas select any of them.
# --jobs N: files run N at a time (default: the number of CPUs); the order of
#   the output does not depend on it. A file whose header has a "# serial:"
#   line runs alone, after the others (the line says why). Files start
#   longest first (their "# takes:" line, seconds on a 2-core machine).
# --tier check (make check): a file whose header says "# tier: full" only
#   says so ("# make test: ..."); within the other files, tests that need
#   tshark, editcap, scapy, xmllint, Chromium or the Verilator model are
#   named and counted as make test's, never passed.
set -u

HERE=harness/tests/integration
tier_args=() filter='' jobs='' list=0
while [ $# -gt 0 ]; do
	case $1 in
	--tier) [ "${2:-}" = check ] || { echo "run.sh: --tier takes 'check'" >&2; exit 2; }; tier_args=(--tier check); shift 2 ;;
	--filter) filter=${2-}; shift 2 ;;
	--jobs) jobs=${2-}; shift 2 ;;
	--list) list=1; shift ;;
	-h|--help) sed -n '3,26p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (try --help)" >&2; echo "integration: 0 passed, 1 failed"; exit 2 ;;
	*) break ;;
	esac
done
jobs=${jobs:-$(nproc 2>/dev/null || echo 1)}
case $jobs in ''|*[!0-9]*|0) echo "run.sh: --jobs needs a whole number from 1, not '$jobs'" >&2; exit 2 ;; esac

# header FILE KEY: the value of the file's "# KEY: value" line, if any.
header() { sed -n "s/^# $2: //p" "$1" | head -n 1; }
# selected NAME: whether --filter selects it.
selected() {
	local p
	[ -z "$filter" ] && return 0
	local IFS=,
	for p in $filter; do
		[ -n "$p" ] && case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}

files=()
for f in "$HERE"/[0-9][0-9]-*.sh; do
	selected "$(basename "$f" .sh)" && files+=("$f")
done

if [ "$list" = 1 ]; then
	for f in "${files[@]}"; do
		# The description: the comment lines between the licence line and the tier line.
		desc=$(sed -n '3,/^# tier:/p' "$f" | sed '$d' | sed 's/^# //' | tr '\n' ' ')
		printf '%-26s %-5s %5s s%s  %s\n' "$(basename "$f" .sh)" "$(header "$f" tier)" "$(header "$f" takes)" \
			"$([ -n "$(header "$f" serial)" ] && echo ', serial')" "$desc"
	done
	exit 0
fi

if [ $# -ne 1 ]; then
	echo "usage: bash harness/tests/integration/run.sh [--tier check] [--filter PATTERN] [--jobs N] PATH/TO/rocetest" >&2
	echo "integration: 0 passed, 1 failed"
	exit 2
fi
ROCETEST=$1
if [ ${#files[@]} -eq 0 ]; then
	echo "run.sh: no test file matches '$filter' (bash $0 --list)" >&2
	echo "integration: 0 passed, 1 failed"
	exit 2
fi

LOGS=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-run.XXXXXX")
trap 'rm -rf "$LOGS"' EXIT
WORK=$LOGS
# shellcheck source=harness/tests/integration/cmd_lib.sh
. "$HERE/cmd_lib.sh"	# tap_tally: a file's results counted as lib.sh's run_tap counts a script's

# The start order: the parallel files longest first, then the serial ones in
# numeric order. The output order is always numeric.
order=()
while read -r _ i; do order+=("$i"); done < <(
	for i in "${!files[@]}"; do
		t=$(header "${files[$i]}" takes | tr -cd 0-9)
		[ -z "$(header "${files[$i]}" serial)" ] && echo "${t:-0} $i"
	done | sort -k1,1nr -k2,2n)
for i in "${!files[@]}"; do
	[ -n "$(header "${files[$i]}" serial)" ] && order+=("$i")
done

passed=0 failed=0 deferred=0
declare -A pid_of_file=() file_of_pid=()
done_files=()
next_print=0

# account I: counts file I's result lines and prints its output (numeric order is the caller's).
account() {
	local i=$1 name
	name=$(basename "${files[$i]}" .sh)
	tap_tally "$name" "$(cat "$LOGS/$i.rc" 2>/dev/null || echo 125)" "$LOGS/$i.out" "$LOGS/$i.out"
	echo "# $name: $tap_ok passed, $tap_fail failed in $(cat "$LOGS/$i.secs") s"
	passed=$((passed + tap_ok))
	failed=$((failed + tap_fail))
	deferred=$((deferred + tap_deferred))
}

# print_ready: the finished files' output, in numeric order, as far as it goes.
print_ready() {
	while [ "$next_print" -lt ${#files[@]} ] && [ -n "${done_files[$next_print]:-}" ]; do
		account "$next_print"
		next_print=$((next_print + 1))
	done
}

# start I: runs file I in the background, its output, status and seconds in $LOGS.
start() {
	local i=$1
	(
		t0=$(date +%s)
		timeout "${FILE_TIMEOUT:-1800}" bash "${files[$i]}" "${tier_args[@]}" "$ROCETEST" >"$LOGS/$i.out" 2>&1 </dev/null
		echo $? >"$LOGS/$i.rc"
		echo $(($(date +%s) - t0)) >"$LOGS/$i.secs"
	) &
	pid_of_file[$i]=$!
	file_of_pid[$!]=$i
}

# reap: waits for any running file, marks it done.
reap() {
	local pid
	wait -n -p pid "${pid_of_file[@]}"
	done_files[${file_of_pid[$pid]}]=1
	unset "pid_of_file[${file_of_pid[$pid]}]"
	print_ready
}

for i in "${order[@]}"; do
	if [ -n "$(header "${files[$i]}" serial)" ]; then
		# Alone: wait for everything else first.
		while [ ${#pid_of_file[@]} -gt 0 ]; do reap; done
		start "$i"
		reap
	else
		while [ ${#pid_of_file[@]} -ge "$jobs" ]; do reap; done
		start "$i"
	fi
done
while [ ${#pid_of_file[@]} -gt 0 ]; do reap; done
print_ready

if [ ${#tier_args[@]} -gt 0 ]; then
	echo "# tier check: $deferred tests and files need tshark, editcap, scapy, xmllint, Chromium or the Verilator model; make test runs them"
fi
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
