#!/usr/bin/env bash
# Runs the fuzz targets at once for SECONDS each (called by `make fuzz`).
#
# usage: run-fuzz.sh FUZZ_DIR SECONDS
#
# FUZZ_DIR holds bin/fuzz_{parse,capture,check,scenario} and the seeds
# corpus-{parse,capture,check,scenario}; new inputs go to
# grown-{parse,capture,check,scenario} (kept between runs), crashes to
# artifacts/, libFuzzer's output to logs/. Exits 1 on any crash, leak, timeout,
# out-of-memory or sanitizer report, naming the reproducer.
set -uo pipefail

dir=${1:?usage: run-fuzz.sh FUZZ_DIR SECONDS}
seconds=${2:?usage: run-fuzz.sh FUZZ_DIR SECONDS}
case "$seconds" in ''|*[!0-9]*) echo "run-fuzz.sh: FUZZ_SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac

mkdir -p "$dir/logs" "$dir/artifacts" "$dir/grown-parse" "$dir/grown-capture" "$dir/grown-check" \
	"$dir/grown-scenario"
# LeakSanitizer on; the first UBSan report is fatal (also compiled in); stacks symbolized.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# name max_len (scenario: a few hundred lines of text are plenty)
targets=("parse 9100" "capture 65536" "check 65536" "scenario 8192")

run_one() {
	local name=$1 max_len=$2 extra=''
	# The checker also starts from the capture seeds: real flows, hostile framing.
	[ "$name" = check ] && extra="$dir/corpus-capture"
	"$dir/bin/fuzz_$name" \
		-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-" \
		"$dir/grown-$name" "$dir/corpus-$name" $extra >"$dir/logs/fuzz_$name.log" 2>&1
}

count() { find "$1" -type f | wc -l; }

pids=()
for t in "${targets[@]}"; do
	set -- $t
	echo "fuzz_$1: $(count "$dir/corpus-$1") seeds + $(count "$dir/grown-$1") grown inputs, ${seconds}s, -max_len=$2, log $dir/logs/fuzz_$1.log"
	run_one "$1" "$2" &
	pids+=($!)
done

status=0
i=0
for t in "${targets[@]}"; do
	set -- $t
	name=$1
	log="$dir/logs/fuzz_$name.log"
	wait "${pids[$i]}"
	rc=$?
	i=$((i + 1))
	# Sanitizer output counts even if the exit status somehow does not say so.
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer|==[0-9]+== ?ERROR' "$log"; then
		[ "$rc" -ne 0 ] || rc=1
	fi
	final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	[ -n "$final" ] || final=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov: \1 ft: \2/p' <<<"$final")
	inited=$(grep -E '^#[0-9]+[[:space:]]+INITED' "$log" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov: \1 ft: \2/p' | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "fuzz_$name: OK: ${runs:-?} runs, ${speed:-?} exec/s; seeds ${inited:-?} -> final ${cov:-?}; grown corpus $(count "$dir/grown-$name") files"
		echo "  $final"
	else
		status=1
		echo "fuzz_$name: FAILED (exit $rc); last lines of $log:" >&2
		grep -E 'ERROR|runtime error|SUMMARY|^    #[0-9]' "$log" | head -n 30 >&2
		repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		if [ -n "$repro" ]; then
			echo "fuzz_$name: reproducer: $repro" >&2
			echo "fuzz_$name: rerun with: $dir/bin/fuzz_$name $repro" >&2
		else
			tail -n 20 "$log" >&2
		fi
	fi
done
exit $status
