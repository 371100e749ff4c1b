# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Command checks, sourced by every integration test file (through lib.sh) and
# by the helper scripts that print their own "ok - NAME" / "FAIL - NAME: why"
# lines (gate_check.sh, diff_check.sh, ...). Set WORK (a scratch directory)
# and, if wanted, PREFIX ("gate: ") before use; lib.sh replaces ok and fail
# by versions that count.
#   run CMD...    runs it (stdin /dev/null, RUN_TIMEOUT s at most, 120 unless set);
#                 sets rc, output in $OUT and $ERR ($WORK/out and $WORK/err unless set)
#   want_rc N, out_has S, out_lacks S, err_has S, err_empty   collect problems
#   check NAME    ok or FAIL with the problems collected since the last check
#   snippet FILE  its first 240 bytes on one line, for a message
#   tap_tally NAME RC OUT WHY   a script's results, counted (run.sh's files, lib.sh's run_tap)
probs=()
PREFIX=${PREFIX:-}
OUT=${OUT:-$WORK/out}
ERR=${ERR:-$WORK/err}
run() {
	timeout "${RUN_TIMEOUT:-120}" "$@" >"$OUT" 2>"$ERR" </dev/null
	rc=$?
}
snippet() { head -c 240 "$1" | tr '\n' ' '; }
want_rc() { [ "$rc" -eq "$1" ] || probs+=("exit status $rc, expected $1 (stderr: $(snippet "$ERR"))"); }
out_has() { grep -qF -- "$1" "$OUT" || probs+=("stdout lacks '$1' (stdout: $(snippet "$OUT"))"); }
out_lacks() { ! grep -qF -- "$1" "$OUT" || probs+=("stdout has '$1'"); }
err_has() { grep -qF -- "$1" "$ERR" || probs+=("stderr lacks '$1' (stderr: $(snippet "$ERR"))"); }
err_empty() { [ ! -s "$ERR" ] || probs+=("unexpected stderr: $(snippet "$ERR")"); }
ok() { echo "ok - $PREFIX$1"; }
fail() { echo "FAIL - $PREFIX$1: $2"; }
check() {
	if [ ${#probs[@]} -eq 0 ]; then
		ok "$1"
	else
		local IFS=';'
		fail "$1" "${probs[*]}"
	fi
	probs=()
}

# tap_tally NAME RC OUT WHY: echoes the result and "#" lines of OUT, the output
# of a script (NAME) that exited RC, and counts them in tap_ok, tap_fail and
# tap_deferred (its "# make test: " lines). One more FAIL line, counted, when
# the script ran past its time (RC 124), exited non-zero without a FAIL line,
# or reported nothing; the last lines of WHY (its error output) say why.
tap_tally() {
	local name=$1 rc=$2 out=$3 why=$4 line last
	tap_ok=0 tap_fail=0 tap_deferred=0
	while IFS= read -r line; do
		case $line in
		"ok - "*) echo "$line"; tap_ok=$((tap_ok + 1)) ;;
		"FAIL - "*) echo "$line"; tap_fail=$((tap_fail + 1)) ;;
		"# make test: "*) echo "$line"; tap_deferred=$((tap_deferred + 1)) ;;
		"#"*) echo "$line" ;;
		esac
	done <"$out"
	last=$(tail -n 3 "$why" | tr '\n' ' ')
	if [ "$rc" = 124 ]; then
		echo "FAIL - $name: ran past its time limit: $last"
	elif [ "$rc" -ne 0 ] && [ "$tap_fail" -eq 0 ]; then
		echo "FAIL - $name: exited $rc without reporting a failure: $last"
	elif [ $((tap_ok + tap_fail + tap_deferred)) -eq 0 ]; then
		echo "FAIL - $name: reported no results: $last"
	else
		return 0
	fi
	tap_fail=$((tap_fail + 1))
}
