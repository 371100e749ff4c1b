#!/usr/bin/env bash
# Runs the unit tests (Check), the integration tests and the FPGA endpoint's
# RTL test benches (each RTL_BENCH, built by dut/rtl.mk, after the Verilator
# lint), shows their output, and ends with one line "tests: N passed, N
# failed" over all of them (an RTL bench or the lint counts as one test).
# usage: run-all.sh [--tier check] [--filter PATTERN] [--jobs N] UNIT_BIN ROCETEST [RTL_BENCH...]
# --tier check (make check): the integration tests' quick tier, no RTL.
# --filter PATTERN (make test T=PATTERN): only the integration test files
#   whose names contain PATTERN (harness/tests/integration/run.sh --list);
#   no unit test and no RTL bench.
# --jobs N: integration test files run N at a time (default: the CPUs).
set -u
tier=() filter=() jobs=()
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=(--tier "$2"); shift 2 ;;
	--filter) [ -n "$2" ] && filter=(--filter "$2"); shift 2 ;;
	--jobs) jobs=(--jobs "$2"); shift 2 ;;
	*) break ;;
	esac
done
unit_bin=$1
rocetest=$2
shift 2
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

status=0
if [ ${#filter[@]} -gt 0 ]; then
	echo "# --filter ${filter[1]}: the integration test files it selects; no unit test, no RTL bench"
	set --
else
	"$unit_bin" 2>&1 | tee "$log/unit"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
bash harness/tests/integration/run.sh "${tier[@]}" "${filter[@]}" "${jobs[@]}" "$rocetest" 2>&1 | tee "$log/integration"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

r_pass=0 r_fail=0
if [ $# -gt 0 ]; then
	echo "# RTL: Verilator lint and $# test benches"
	if make -s rtl-lint >"$log/lint" 2>&1; then
		echo "ok - rtl: verilator --lint-only -Wall clean"
		r_pass=$((r_pass + 1))
	else
		echo "FAIL - rtl: verilator lint: $(tail -n 5 "$log/lint" | tr '\n' ' ')"
		r_fail=$((r_fail + 1))
	fi
	for bench in "$@"; do
		if out=$(timeout 600 "$bench" 2>&1); then
			echo "ok - rtl: $(basename "$(dirname "$bench")"): $(printf '%s\n' "$out" | tail -n 1)"
			r_pass=$((r_pass + 1))
		else
			echo "FAIL - rtl: $bench: $(printf '%s\n' "$out" | tail -n 5 | tr '\n' ' ')"
			r_fail=$((r_fail + 1))
		fi
	done
fi

# Check ends with "100%: Checks: 57, Failures: 0, Errors: 0".
read -r u_total u_fail u_err < <(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$log/unit" | tail -1)
# The integration runner ends with "integration: N passed, N failed".
read -r i_pass i_fail < <(sed -n 's/^integration: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$log/integration" | tail -1)
u_total=${u_total:-0} u_fail=${u_fail:-0} u_err=${u_err:-0} i_pass=${i_pass:-0} i_fail=${i_fail:-0}
if { [ "$u_total" -eq 0 ] && [ ${#filter[@]} -eq 0 ]; } || [ "$((i_pass + i_fail))" -eq 0 ]; then
	echo "run-all.sh: a test runner reported no tests (unit: $u_total, integration: $((i_pass + i_fail)))" >&2
	status=1
fi
failed=$((u_fail + u_err + i_fail + r_fail))
passed=$((u_total - u_fail - u_err + i_pass + r_pass))
[ "$failed" -eq 0 ] || status=1
echo
echo "tests: $passed passed, $failed failed"
exit $status
