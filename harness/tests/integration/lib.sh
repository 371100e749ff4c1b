# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The integration tests' shared library: sourced first by every test file
# (harness/tests/integration/NN-NAME.sh), which is then run from the
# repository root as
#
#   bash harness/tests/integration/NN-NAME.sh [--tier check] PATH/TO/rocetest
#
# either by run.sh (make test, make check) or by hand. It reads the
# arguments, finds the prerequisites once, makes the file's scratch
# directory $TMP (removed on exit), and gives the file:
#   ok NAME, fail NAME WHY     a result line, counted
#   needs NAME WHAT...         fails NAME (returns 1) if a prerequisite is missing;
#                              in the check tier, returns 1 for a make-test-only
#                              prerequisite, printing "# make test: NAME (needs WHAT)"
#   run_tap NAME CMD...        runs a script that prints its own result lines; counts them
#   cap NAME                   the path of a real capture, if it is there
#   jpy EXPR FILE              a Python expression over the JSON document d in FILE
#   summary                    the closing line "integration: N passed, M failed"; the status
# and the command checks of cmd_lib.sh (run, want_rc, out_has, err_has, check, ...).
# A test whose tools or inputs are missing FAILS saying what is missing;
# nothing is skipped.
set -u

TIER=full
if [ "${1:-}" = --tier ] && [ "${2:-}" = check ]; then
	TIER=check
	shift 2
fi
if [ $# -ne 1 ]; then
	echo "usage: bash $0 [--tier check] PATH/TO/rocetest   (from the repository root)" >&2
	echo "integration: 0 passed, 1 failed"
	exit 2
fi

HERE=harness/tests/integration
# A file of the full tier has nothing to run in the check tier: make test runs it.
if [ "$TIER" = check ] && grep -qx '# tier: full' "$0"; then
	echo "# make test: $(basename "$0" .sh) (a make test file: it needs tshark, scapy, Chromium or the Verilator model)"
	echo "integration: 0 passed, 0 failed"
	exit 0
fi
PY=/usr/bin/python3
CAPDIR=../shared/captures
case $1 in
/*) ROCETEST=$1 ;;
*) ROCETEST=$PWD/$1 ;;
esac
export ROCETEST_NO_PROGRESS=1

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$TMP"' EXIT
WORK=$TMP
OUT=$TMP/cmd.out
ERR=$TMP/cmd.err
# shellcheck source=harness/tests/integration/cmd_lib.sh
. "$HERE/cmd_lib.sh"

passed=0
failed=0
# Tests left to make test by --tier check.
deferred=0
ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL - $1: $2"
	failed=$((failed + 1))
}

# ---------------------------------------------------------------- prerequisites
missing_tshark='' missing_editcap='' missing_scapy='' missing_captures='' missing_rocetest=''
missing_xmllint='' missing_chromium='' scapy_asked=0
[ -x "$ROCETEST" ] || missing_rocetest="rocetest binary $ROCETEST not found or not executable (run make)"
command -v tshark >/dev/null 2>&1 || missing_tshark="tshark is not installed"
command -v editcap >/dev/null 2>&1 || missing_editcap="editcap (Wireshark) is not installed"
command -v xmllint >/dev/null 2>&1 || missing_xmllint="xmllint is not installed (libxml2-utils)"
command -v chromium >/dev/null 2>&1 || missing_chromium="chromium is not installed"
# The unit test binary beside rocetest writes the sample run whose reports 11-reports.sh checks.
UNIT_TESTS=$(dirname "$ROCETEST")/unit-tests
# rocetest run --dut sim loads the model from build/dut/w512/ beside build/bin/.
MODEL=$(dirname "$(dirname "$ROCETEST")")/dut/w512/libroce_dut_sim.so
# Asked only by a test that needs scapy: the import takes a while.
scapy_missing() {
	if [ ! -x "$PY" ]; then
		echo "$PY not found"
	elif ! "$PY" -c 'import scapy.contrib.roce' >/dev/null 2>&1; then
		echo "$PY cannot import scapy.contrib.roce (install python3-scapy)"
	fi
}
shopt -s nullglob
CAPTURES=("$CAPDIR"/*/*.pcap)
shopt -u nullglob
if [ ! -d "$CAPDIR" ]; then
	missing_captures="capture directory $CAPDIR is missing (run from the repository root; CI provides ../shared/captures)"
elif [ ${#CAPTURES[@]} -eq 0 ]; then
	missing_captures="no captures match $CAPDIR/*/*.pcap"
fi
cap() {
	local p=$CAPDIR/$1
	[ -r "$p" ] && echo "$p"
}

# Tools outside the check tier: a test that needs one is make test's.
FULL_TIER_TOOLS=" tshark editcap scapy xmllint chromium model doc "

needs() {
	local name=$1 m why=
	shift
	if [ "$TIER" = check ]; then
		for m in "$@"; do
			case $FULL_TIER_TOOLS in
			*" $m "*)
				echo "# make test: $name (needs $m)"
				deferred=$((deferred + 1))
				return 1 ;;
			esac
		done
	fi
	for m in "$@"; do
		case $m in
		rocetest) why=${why:-$missing_rocetest} ;;
		tshark) why=${why:-$missing_tshark} ;;
		editcap) why=${why:-$missing_editcap} ;;
		scapy)
			[ "$scapy_asked" = 1 ] || { missing_scapy=$(scapy_missing); scapy_asked=1; }
			why=${why:-$missing_scapy} ;;
		xmllint) why=${why:-$missing_xmllint} ;;
		chromium) why=${why:-$missing_chromium} ;;
		captures) why=${why:-$missing_captures} ;;
		python) [ -x "$PY" ] || why=${why:-"$PY not found"} ;;
		unit) [ -x "$UNIT_TESTS" ] || why=${why:-"unit test binary $UNIT_TESTS not found (make unit)"} ;;
		doc) for t in help2man man groff pkg-config; do
			command -v $t >/dev/null 2>&1 || why=${why:-"$t is not installed (the doc group: make deps)"}
		done ;;
		model) [ -r "$MODEL" ] || why=${why:-"the Verilator model of dut/ $MODEL is not built (make dut-sim)"} ;;
		cap:*) [ -n "$missing_captures" ] || [ -r "$CAPDIR/${m#cap:}" ] || why=${why:-"capture $CAPDIR/${m#cap:} is missing"} ;;
		esac
	done
	if [ -n "$why" ]; then
		fail "$name" "cannot run: $why"
		return 1
	fi
	return 0
}

# run_tap NAME CMD...: RUN_TAP_TIMEOUT seconds at most, 120 unless set.
run_tap() {
	local name=$1 rc
	shift
	timeout "${RUN_TAP_TIMEOUT:-120}" "$@" >"$TMP/tap.out" 2>"$TMP/tap.err"
	rc=$?
	tap_tally "$name" "$rc" "$TMP/tap.out" "$TMP/tap.err"
	passed=$((passed + tap_ok))
	failed=$((failed + tap_fail))
	deferred=$((deferred + tap_deferred))
}

jpy() {
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[2])); r = eval(sys.argv[1]); print(" ".join(map(str, r)) if isinstance(r, (list, set, tuple)) else r)' "$1" "$2" 2>&1
}

# craft_rule_captures: craft_rules.py's captures, each breaking one rule, and their
# twins in $CR; returns 1 (a failure counted, or deferred in the check tier) if none.
craft_rule_captures() {
	CR=$TMP/rules
	mkdir -p "$CR"
	needs "check: crafting rule captures" scapy || return 1
	"$PY" "$HERE/craft_rules.py" "$CR" >"$TMP/craft_rules.out" 2>&1 && return 0
	fail "check: crafting rule captures" "craft_rules.py failed: $(tail -n 3 "$TMP/craft_rules.out" | tr '\n' ' ')"
	return 1
}

summary() {
	echo "integration: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

if [ -n "$missing_rocetest" ]; then
	fail "rocetest binary" "$missing_rocetest"
	summary
	exit 1
fi
