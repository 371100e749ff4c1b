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
