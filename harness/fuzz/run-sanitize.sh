#!/usr/bin/env bash
# Runs the ASan/UBSan builds (called by `make sanitize`).
#
# usage: run-sanitize.sh SAN_BUILD UNIT_TESTS|- [CAPTURE...]
#
# Runs UNIT_TESTS ("-": none built yet), then SAN_BUILD/bin/rocetest show,
# show --json, icrc and check on every CAPTURE (each must exit 0) and on malformed
# files made here (each must exit 2), every scenario through gen and check,
# and rocetest run (every suite) against the Verilator model named by the
# environment variable DUT_SIM_SO. Any sanitizer report fails the run,
# whatever the exit status. Prints one line per failure and a total.
set -uo pipefail

san=${1:?usage: run-sanitize.sh SAN_BUILD UNIT_TESTS|- [CAPTURE...]}
unit=${2:?usage: run-sanitize.sh SAN_BUILD UNIT_TESTS|- [CAPTURE...]}
shift 2
rocetest="$san/bin/rocetest"
work="$san/sanitize"
rm -rf "$work"
mkdir -p "$work/malformed"

# A sanitizer report exits 86, which neither rocetest (0, 1, 2) nor Check uses.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:symbolize=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
export ROCETEST_NO_PROGRESS=1
SAN_PATTERN='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)'

passed=0
failed=0
fail() {
	failed=$((failed + 1))
	echo "sanitize: FAIL: $*" >&2
}

# run EXPECTED_EXIT LABEL COMMAND...: stdout to a file, stderr checked for reports.
n=0
run() {
	local want=$1 label=$2
	shift 2
	n=$((n + 1))
	local out="$work/$n.out" err="$work/$n.err"
	"$@" >"$out" 2>"$err"
	local rc=$?
	if grep -qE "$SAN_PATTERN" "$err"; then
		fail "$label: sanitizer report (exit $rc), see $err:"
		grep -E "$SAN_PATTERN|^    #[0-9]" "$err" | head -n 20 >&2
	elif [ "$rc" -ne "$want" ]; then
		fail "$label: exit $rc, expected $want; stderr ($err):"
		head -n 5 "$err" >&2
	else
		passed=$((passed + 1))
		return 0
	fi
	return 1
}

echo "sanitize: $unit"
# Check forks per test; a child's sanitizer report shows up on our stderr all the same.
if run 0 "unit tests" "$unit"; then
	tail -n 3 "$work/$n.out"
else
	tail -n 20 "$work/$n.out" >&2
fi

# The real captures are part of the test; without them the run is incomplete, not green.
if [ $# -eq 0 ]; then
	fail "no shared captures (../shared/captures): the real-traffic half of the sanitizer run cannot run"
fi
for f in "$@"; do
	run 0 "show $f" "$rocetest" show "$f"
	run 0 "show --json $f" "$rocetest" show --json "$f"
	run 0 "icrc $f" "$rocetest" icrc "$f"
	run 0 "check $f" "$rocetest" check --max-report 1000 --json "$work/check.json" --junit "$work/check.xml" \
		--html "$work/check.html" "$f"
done
echo "sanitize: $# shared captures through show, show --json, icrc and check (with every report)"

# Malformed inputs, each must be refused with exit 2.
m="$work/malformed"
: >"$m/empty.pcap"
printf 'this is not a capture file\n' >"$m/text.pcap"
printf '\xd4\xc3' >"$m/short-header.pcap"
# A little-endian pcap header (v2.4, snaplen 65535, Ethernet) ...
pcap_header='\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00'
printf "$pcap_header" | head -c 20 >"$m/truncated-header.pcap"
# ... then a record claiming 100 captured bytes that holds 10,
printf "${pcap_header}"'\x00\x00\x00\x00\x00\x00\x00\x00\x64\x00\x00\x00\x64\x00\x00\x000123456789' >"$m/truncated-record.pcap"
# ... a record header cut short,
printf "${pcap_header}"'\x00\x00\x00\x00\x00\x00' >"$m/truncated-record-header.pcap"
# ... a record of 0xffffffff bytes,
printf "${pcap_header}"'\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff0123' >"$m/huge-record.pcap"
# ... and an unsupported link type (IEEE 802.11).
printf "$pcap_header" | head -c 20 >"$m/dlt-80211.pcap"
printf '\x69\x00\x00\x00' >>"$m/dlt-80211.pcap"
# A real capture cut in the middle of a record.
if [ $# -gt 0 ]; then
	head -c 100 "$1" >"$m/real-cut.pcap"
fi
mkdir -p "$m/directory.pcap"
for f in "$m"/*; do
	run 2 "show $f" "$rocetest" show "$f"
	run 2 "show --json $f" "$rocetest" show --json "$f"
	run 2 "icrc $f" "$rocetest" icrc "$f"
	run 2 "check $f" "$rocetest" check --json "$work/check.json" "$f"
	if [ -f "$f" ]; then
		run 2 "show - <$f" "$rocetest" show - <"$f"
	fi
done
run 2 "show (missing file)" "$rocetest" show "$m/does-not-exist.pcap"

# Every scenario through the model (gen) and the vector it makes through check.
nscn=0
for scn in vectors/scenarios/*.scn; do
	[ -e "$scn" ] || continue
	name=$(basename "$scn" .scn)
	if run 0 "gen $scn" "$rocetest" gen "$scn" -o "$work/$name.pcap" --expect "$work/$name.json"; then
		want=$(grep -q '"clean": true' "$work/$name.json" && echo 0 || echo 1)
		# The options the expectation names (--pmtu 1024 --timeout-us ...), one JSON line of strings.
		read -r -a opts <<<"$(sed -n 's/^ *"check_options": \[\(.*\)\],*$/\1/p' "$work/$name.json" | tr -d '",')"
		run "$want" "check $name.pcap" "$rocetest" check "${opts[@]}" --json "$work/check.json" "$work/$name.pcap"
	fi
	nscn=$((nscn + 1))
done
[ "$nscn" -gt 0 ] || fail "no scenarios in vectors/scenarios"
echo "sanitize: $nscn scenarios through gen and check"
# Malformed scenarios are refused with exit 2.
printf 'send a len=\n' >"$work/bad-value.scn"
printf 'node c qpn=5\n' >"$work/bad-node.scn"
printf 'pmtu 1000\n' >"$work/bad-pmtu.scn"
printf 'send a\0 len=1\n' >"$work/nul.scn"
for f in "$work"/bad-*.scn "$work/nul.scn" "$work/missing.scn"; do
	run 2 "gen $f" "$rocetest" gen "$f" -o "$work/bad.pcap"
done

# The conformance runner, every suite, against the Verilator model (itself not
# instrumented; the harness around it is). DUT_SIM_SO: the model `make dut-sim` built.
if [ -n "${DUT_SIM_SO:-}" ] && [ -f "$DUT_SIM_SO" ]; then
	run 0 "run --dut sim (every suite)" "$rocetest" run --dut sim --sim-lib "$DUT_SIM_SO" --quiet --report "$work/run"
	run 2 "run --dut sim with a missing model" "$rocetest" run --dut sim --sim-lib "$work/none.so"
	echo "sanitize: rocetest run, every suite"
else
	fail "no Verilator model (DUT_SIM_SO=${DUT_SIM_SO:-unset}) for rocetest run"
fi

echo "sanitize: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
