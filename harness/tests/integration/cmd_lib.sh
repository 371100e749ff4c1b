# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Sourced by the integration scripts that run rocetest commands and print
# their own "ok - NAME" / "FAIL - NAME: why" lines (gate_check.sh,
# diff_check.sh). Set WORK (a scratch directory) and PREFIX ("gate: ")
# before use.
#   run CMD...    runs it (stdin /dev/null, 120 s at most); sets rc, output in $WORK/out and $WORK/err
#   want_rc N, out_has S, out_lacks S, err_has S   collect problems
#   check NAME    prints ok or FAIL with the problems collected since the last check
probs=()
run() {
	timeout 120 "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
	rc=$?
}
want_rc() { [ "$rc" -eq "$1" ] || probs+=("exit status $rc, expected $1 (stderr: $(head -c 200 "$WORK/err"))"); }
out_has() { grep -qF -- "$1" "$WORK/out" || probs+=("stdout lacks '$1' (stdout: $(head -c 400 "$WORK/out" | tr '\n' ' '))"); }
out_lacks() { ! grep -qF -- "$1" "$WORK/out" || probs+=("stdout has '$1'"); }
err_has() { grep -qF -- "$1" "$WORK/err" || probs+=("stderr lacks '$1' (stderr: $(head -c 300 "$WORK/err" | tr '\n' ' '))"); }
check() {
	if [ ${#probs[@]} -eq 0 ]; then
		echo "ok - $PREFIX$1"
	else
		local IFS=';'
		echo "FAIL - $PREFIX$1: ${probs[*]}"
	fi
	probs=()
}
