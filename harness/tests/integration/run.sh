#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration tests of the rocetest binary: tshark and scapy cross-checks over
# real and generated captures, CLI behaviour, JSON validity.
#
# usage (from the repository root):
#   bash harness/tests/integration/run.sh [--tier check] PATH/TO/rocetest
#
# Prints "ok - NAME" or "FAIL - NAME: why" per test ("#" lines are details)
# and ends with exactly "integration: N passed, M failed"; exits 1 if any
# test failed. A test whose tools or inputs are missing (tshark, editcap,
# scapy, ../shared/captures, the Verilator model of dut/ that `make dut-sim`
# and `make dut-mutants` build beside rocetest) FAILS saying what is missing;
# nothing is skipped.
#
# --tier check (make check) runs only what needs rocetest, python3 and the
# captures: the CLI tests, the check tests and the golden vectors. Tests that
# need tshark, editcap, scapy, xmllint, Chromium or the Verilator model are
# make test's: they are counted and named as such, never passed.
set -u

TIER=full
if [ "${1:-}" = --tier ] && [ "${2:-}" = check ]; then
	TIER=check
	shift 2
fi
if [ $# -ne 1 ]; then
	echo "usage: bash harness/tests/integration/run.sh [--tier check] PATH/TO/rocetest" >&2
	echo "integration: 0 passed, 1 failed"
	exit 2
fi

HERE=harness/tests/integration
PY=/usr/bin/python3
CAPDIR=../shared/captures
case $1 in
/*) ROCETEST=$1 ;;
*) ROCETEST=$PWD/$1 ;;
esac
export ROCETEST_NO_PROGRESS=1

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-integration.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

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
# Each is checked once; a test that needs a missing one fails with this text.
missing_tshark='' missing_editcap='' missing_scapy='' missing_captures='' missing_rocetest=''
missing_xmllint='' missing_chromium=''
[ -x "$ROCETEST" ] || missing_rocetest="rocetest binary $ROCETEST not found or not executable (run make)"
command -v tshark >/dev/null 2>&1 || missing_tshark="tshark is not installed"
command -v editcap >/dev/null 2>&1 || missing_editcap="editcap (Wireshark) is not installed"
command -v xmllint >/dev/null 2>&1 || missing_xmllint="xmllint is not installed (libxml2-utils)"
command -v chromium >/dev/null 2>&1 || missing_chromium="chromium is not installed"
# The unit test binary beside rocetest writes the sample run whose reports section 7 checks.
UNIT_TESTS=$(dirname "$ROCETEST")/unit-tests
# rocetest run --dut sim loads the model from build/dut/w512/ beside build/bin/ (section 11).
MODEL=$(dirname "$(dirname "$ROCETEST")")/dut/w512/libroce_dut_sim.so
if [ ! -x "$PY" ]; then
	missing_scapy="$PY not found"
elif ! "$PY" -c 'import scapy.contrib.roce' >/dev/null 2>&1; then
	missing_scapy="$PY cannot import scapy.contrib.roce (install python3-scapy)"
fi
shopt -s nullglob
CAPTURES=("$CAPDIR"/*/*.pcap)
shopt -u nullglob
if [ ! -d "$CAPDIR" ]; then
	missing_captures="capture directory $CAPDIR is missing (run from the repository root; CI provides ../shared/captures)"
elif [ ${#CAPTURES[@]} -eq 0 ]; then
	missing_captures="no captures match $CAPDIR/*/*.pcap"
fi
# cap NAME: the path of a real capture, for tests built on specific files.
cap() {
	local p=$CAPDIR/$1
	[ -r "$p" ] && echo "$p"
}

# Tools outside the check tier: a test that needs one is make test's.
FULL_TIER_TOOLS=" tshark editcap scapy xmllint chromium model doc "

# needs NAME WHAT...: fails NAME and returns 1 if a prerequisite is missing
# (in the check tier, returns 1 for a test of the full tier, counting it).
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
		scapy) why=${why:-$missing_scapy} ;;
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

# run_tap NAME CMD...: runs a script that prints its own ok/FAIL lines; counts them
# (RUN_TAP_TIMEOUT seconds at most, 120 unless set).
run_tap() {
	local name=$1 out=$TMP/tap.out rc line n_ok=0 n_fail=0
	shift
	timeout "${RUN_TAP_TIMEOUT:-120}" "$@" >"$out" 2>"$TMP/tap.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) echo "$line"; n_ok=$((n_ok + 1)) ;;
		"FAIL - "*) echo "$line"; n_fail=$((n_fail + 1)) ;;
		"#"*) echo "$line" ;;
		esac
	done <"$out"
	passed=$((passed + n_ok))
	failed=$((failed + n_fail))
	if [ $rc -ne 0 ] && [ $n_fail -eq 0 ]; then
		fail "$name" "exited $rc without reporting a failure: $(tail -n 3 "$TMP/tap.err" | tr '\n' ' ')"
	elif [ $((n_ok + n_fail)) -eq 0 ]; then
		fail "$name" "reported no results: $(tail -n 3 "$TMP/tap.err" | tr '\n' ' ')"
	fi
}

# ------------------------------------------------------------ command checks
# run CMD...: runs with stdin from /dev/null; sets rc, $OUT and $ERR files.
OUT=$TMP/cmd.out
ERR=$TMP/cmd.err
probs=()
run() {
	timeout 60 "$@" >"$OUT" 2>"$ERR" </dev/null
	rc=$?
}
want_rc() { [ "$rc" -eq "$1" ] || probs+=("exit status $rc, expected $1"); }
snippet() { head -c 240 "$1" | tr '\n' ' '; }
err_has() { grep -qF -- "$1" "$ERR" || probs+=("stderr lacks '$1' (stderr: $(snippet "$ERR"))"); }
out_has() { grep -qF -- "$1" "$OUT" || probs+=("stdout lacks '$1' (stdout: $(snippet "$OUT"))"); }
err_empty() { [ ! -s "$ERR" ] || probs+=("unexpected stderr: $(snippet "$ERR")"); }
check() {
	if [ ${#probs[@]} -eq 0 ]; then
		ok "$1"
	else
		local IFS=';'
		fail "$1" "${probs[*]}"
	fi
	probs=()
}

if [ -n "$missing_rocetest" ]; then
	fail "rocetest binary" "$missing_rocetest"
	echo "integration: $passed passed, $failed failed"
	exit 1
fi

# summary: the closing line (and, in the check tier, what was left to make test).
summary() {
	if [ "$TIER" = check ]; then
		echo "# tier check: $deferred tests and sections 1, 2, 10, 11, 13 and 18 need tshark, editcap, scapy, xmllint, Chromium or the Verilator model; make test runs them"
	fi
	echo "integration: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# ======================================================= 1. tshark cross-check
echo "# 1. tshark cross-check of every frame of every capture in $CAPDIR"
SCAPY_PCAP=$TMP/scapy/scapy.pcap
mkdir -p "$TMP/scapy"
if [ "$TIER" = check ]; then
	echo "# make test: sections 1 and 2 (tshark and scapy cross-checks)"
elif needs "tshark cross-check of the captures" tshark python captures; then
	run_tap "tshark cross-check of the captures" \
		"$PY" "$HERE/tshark_crosscheck.py" "$ROCETEST" --require-icrc-ok --label-root "$CAPDIR" "${CAPTURES[@]}"
fi

# ==================================================== 2. scapy cross-check
[ "$TIER" = check ] || echo "# 2. scapy cross-check (independent ICRC implementation)"
if [ "$TIER" = check ]; then
	:
elif needs "scapy cross-check" scapy; then
	run_tap "scapy cross-check" "$PY" "$HERE/scapy_crosscheck.py" "$ROCETEST" "$TMP/scapy" 400 4791
fi
# The generated packets cover opcodes the captures lack (UC WRITE, IETH, atomics, CNP 0x81, VLANs).
if [ "$TIER" = check ]; then
	:
elif needs "tshark cross-check of the scapy-generated capture" tshark scapy; then
	if [ -s "$SCAPY_PCAP" ]; then
		run_tap "tshark cross-check of the scapy-generated capture" \
			"$PY" "$HERE/tshark_crosscheck.py" "$ROCETEST" --require-icrc-ok --label-root "$TMP/scapy" "$SCAPY_PCAP"
	else
		fail "tshark cross-check of the scapy-generated capture" "the scapy cross-check wrote no $SCAPY_PCAP"
	fi
fi

# ==================================================== 3. CLI behaviour
echo "# 3. CLI behaviour"
run "$ROCETEST" --help
want_rc 0; out_has "usage: rocetest COMMAND"; out_has "show"; out_has "icrc"; out_has "check"; err_empty
check "cli: rocetest --help exits 0 with usage"
run "$ROCETEST" show --help
want_rc 0; out_has "usage: rocetest show"; out_has "--json"; err_empty
check "cli: rocetest show --help exits 0 with usage"
run "$ROCETEST" icrc --help
want_rc 0; out_has "usage: rocetest icrc"; out_has "--fix OUT"; err_empty
check "cli: rocetest icrc --help exits 0 with usage"
run "$ROCETEST"
want_rc 2; err_has "usage: rocetest"
check "cli: no arguments exits 2 with usage on stderr"
run "$ROCETEST" frobnicate
want_rc 2; err_has "unknown command 'frobnicate'"
check "cli: unknown command exits 2"
run "$ROCETEST" --bogus
want_rc 2; err_has "--bogus"
check "cli: unknown top-level option exits 2"
for c in show icrc check; do
	run "$ROCETEST" $c --bogus "$HERE/run.sh"
	want_rc 2; err_has "unknown option '--bogus'"
	check "cli: $c with an unknown option exits 2"
	run "$ROCETEST" $c
	want_rc 2; err_has "no capture file given"
	check "cli: $c without a file exits 2"
done
run "$ROCETEST" icrc --max-report many "$HERE/run.sh"
want_rc 2; err_has "--max-report"
check "cli: icrc --max-report with a non-number exits 2"

# Unusable inputs: exit 2, the file named on stderr (show and icrc alike).
# The text file is the repository's README.md, or this script where there is none.
TEXT=README.md
[ -f "$TEXT" ] || TEXT=$HERE/run.sh
BAD=$TMP/bad
mkdir -p "$BAD"
: >"$BAD/empty.pcap"
printf 'abc' >"$BAD/three-bytes.pcap"
mkdir -p "$BAD/a-directory.pcap"
"$PY" "$HERE/craft.py" linktype105 "$BAD/linktype105.pcap" 2>"$TMP/craft.err" || true
bad_inputs=("$BAD/no-such-file.pcap:a missing file:No such file"
	"$BAD/empty.pcap:an empty file:empty"
	"$BAD/three-bytes.pcap:a 3-byte file:too short"
	"$TEXT:a text file ($TEXT):not a pcap"
	"$BAD/a-directory.pcap:a directory:directory"
	"$BAD/linktype105.pcap:a pcap with link type 105:link type 105")
for c in show icrc check; do
	for entry in "${bad_inputs[@]}"; do
		IFS=: read -r f what word <<<"$entry"
		if [ ! -e "$f" ] && [ "$what" != "a missing file" ]; then
			fail "input: $c on $what" "could not create $f: $(snippet "$TMP/craft.err")"
			continue
		fi
		run "$ROCETEST" $c "$f"
		want_rc 2; err_has "$f"; err_has "$word"
		check "input: $c on $what exits 2 naming the file"
	done
done

# A pcap cut in the middle of a record: the frame number is named too.
SRC=$(cap rxe/rdma_write_bw.pcap)
if needs "input: pcap cut in the middle of a record" captures python cap:rxe/rdma_write_bw.pcap; then
	if cutframe=$("$PY" "$HERE/craft.py" cut "$SRC" "$BAD/cut.pcap" 2>"$TMP/craft.err"); then
		for c in show icrc check; do
			run "$ROCETEST" $c "$BAD/cut.pcap"
			want_rc 2; err_has "$BAD/cut.pcap"; err_has "frame $cutframe"
			check "input: $c on a pcap cut inside record $cutframe exits 2 naming file and frame"
		done
	else
		fail "input: pcap cut in the middle of a record" "craft.py failed: $(snippet "$TMP/craft.err")"
	fi
fi

# A RoCE frame whose UDP length exceeds the IP payload: file, frame and field named.
if needs "malformed: UDP length larger than the IP payload" captures python cap:rxe/rdma_write_bw.pcap; then
	if mframe=$("$PY" "$HERE/craft.py" udp-too-long "$SRC" "$BAD/udp-too-long.pcap" 2>"$TMP/craft.err"); then
		run "$ROCETEST" show "$BAD/udp-too-long.pcap"
		want_rc 2; err_has "$BAD/udp-too-long.pcap: frame $mframe: UDP length"; out_has "MALFORMED UDP length"
		check "malformed: show names file, frame $mframe and the UDP length field, exits 2"
		run "$ROCETEST" show --json "$BAD/udp-too-long.pcap"
		want_rc 2; err_has "$BAD/udp-too-long.pcap: frame $mframe: UDP length"
		out_has "{\"frame\":$mframe,"; out_has '"status":"malformed"'; out_has '"field":"UDP length"'
		check "malformed: show --json marks frame $mframe malformed, exits 2"
		run "$ROCETEST" icrc "$BAD/udp-too-long.pcap"
		want_rc 2; out_has "$BAD/udp-too-long.pcap: frame $mframe: UDP length"; out_has "1 malformed"
		check "malformed: icrc names the frame and exits 2"
	else
		fail "malformed: UDP length larger than the IP payload" "craft.py failed: $(snippet "$TMP/craft.err")"
	fi
fi

# Snap length cut: RoCE packets unverified (icrc exit 0) and marked truncated by show.
for name in rxe/rdma_write_bw.pcap connectx/rocev2_test.pcap rxe-lab/ipv6_rc_pingpong_s10000.pcap; do
	t="snaplen: editcap -s 60 $name"
	needs "$t" captures editcap python || continue
	src=$(cap "$name") || { fail "$t" "capture $name is missing"; continue; }
	snap=$BAD/snap60-${name//\//-}
	if ! editcap -s 60 "$src" "$snap" >/dev/null 2>"$TMP/editcap.err"; then
		fail "$t" "editcap failed: $(snippet "$TMP/editcap.err")"
		continue
	fi
	cut=$("$PY" "$HERE/craft.py" count-roce-over "$src" 60)
	run "$ROCETEST" icrc "$snap"
	want_rc 0; out_has "0 ICRC ok, 0 bad, $cut unverified"
	[ "$cut" -gt 0 ] || probs+=("no RoCE packet longer than 60 bytes in $name: nothing was cut")
	check "$t: icrc exits 0 with $cut packets unverified"
	run "$ROCETEST" show --json "$snap"
	want_rc 0
	got=$("$PY" -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j["len"] > 60 and (j.get("truncated") is True and j.get("icrc") == "unverified"
                          or j.get("status") == "truncated"):
        n += 1
print(n)' "$OUT" 2>&1)
	[ "$got" = "$cut" ] || probs+=("show --json marks $got frames truncated, expected $cut")
	check "$t: show --json marks the $cut cut packets truncated"
	run "$ROCETEST" show "$snap"
	want_rc 0
	got=$(grep -cE '\(truncated\)|truncated:' "$OUT")
	[ "$got" = "$cut" ] || probs+=("text output marks $got frames truncated, expected $cut")
	check "$t: show marks the $cut cut packets truncated"
done

# One corrupted ICRC: exit 1, that frame named, the others still ok.
if needs "icrc: one corrupted ICRC" captures python cap:rxe/rdma_write_bw.pcap; then
	if bframe=$("$PY" "$HERE/craft.py" corrupt-icrc "$SRC" "$BAD/one-bad-icrc.pcap" 2>"$TMP/craft.err"); then
		run "$ROCETEST" icrc "$BAD/one-bad-icrc.pcap"
		want_rc 1; out_has "$BAD/one-bad-icrc.pcap: frame $bframe: ICRC BAD"; out_has "19 ICRC ok, 1 bad"
		[ "$(grep -c 'ICRC BAD' "$OUT")" = 1 ] || probs+=("$(grep -c 'ICRC BAD' "$OUT") ICRC BAD lines, expected 1")
		check "icrc: one corrupted ICRC exits 1 and names frame $bframe"
		run "$ROCETEST" show --json "$BAD/one-bad-icrc.pcap"
		want_rc 0
		bad=$(grep '"icrc":"bad"' "$OUT" | sed -n 's/^{"frame":\([0-9]*\),.*/\1/p' | tr '\n' ' ')
		[ "$bad" = "$bframe " ] || probs+=("frames with icrc bad: '$bad', expected '$bframe'")
		check "icrc: show --json reports icrc bad on frame $bframe only"
	else
		fail "icrc: one corrupted ICRC" "craft.py failed: $(snippet "$TMP/craft.err")"
	fi
fi

# --fix refuses to overwrite its input, under any name for it.
if needs "icrc --fix refuses to overwrite its input" captures cap:rxe/rdma_write_bw.pcap; then
	cp "$SRC" "$TMP/in.pcap" && chmod u+w "$TMP/in.pcap"
	ln -sf in.pcap "$TMP/link-to-in.pcap"
	sum_before=$(cksum <"$TMP/in.pcap")
	for out in "$TMP/in.pcap" "$TMP/./in.pcap" "$TMP/link-to-in.pcap"; do
		run "$ROCETEST" icrc --fix "$out" "$TMP/in.pcap"
		want_rc 2; err_has "overwrite"
		[ "$(cksum <"$TMP/in.pcap")" = "$sum_before" ] || probs+=("the input file was changed")
		check "icrc: --fix ${out#"$TMP"/} refuses to overwrite the input (exit 2, file intact)"
	done
	run "$ROCETEST" icrc --fix "$TMP/fixed.pcap" "$TMP/in.pcap"
	want_rc 0
	[ -s "$TMP/fixed.pcap" ] || probs+=("no output written")
	check "icrc: --fix to another file exits 0 and writes it"
fi

# pcapng input gives the same show --json as the pcap.
if needs "pcapng: show --json equals the pcap's" captures editcap python; then
	n=0 diffs=()
	for src in "${CAPTURES[@]}"; do
		ng=$TMP/ng.pcapng
		if ! editcap -F pcapng "$src" "$ng" >/dev/null 2>"$TMP/editcap.err"; then
			diffs+=("editcap failed on $src: $(snippet "$TMP/editcap.err")")
			continue
		fi
		"$ROCETEST" show --json "$src" >"$TMP/a.json" 2>/dev/null
		"$ROCETEST" show --json "$ng" >"$TMP/b.json" 2>"$TMP/b.err" || diffs+=("show $src (pcapng) failed: $(snippet "$TMP/b.err")")
		if ! msg=$("$PY" "$HERE/compare_json.py" "$TMP/a.json" "$TMP/b.json"); then
			diffs+=("${src#"$CAPDIR"/}: $msg")
		fi
		n=$((n + 1))
	done
	probs=("${diffs[@]}")
	[ $n -gt 0 ] || probs+=("no capture compared")
	check "pcapng: show --json identical to the pcap's for $n captures"
fi

# Standard input ("-"): redirected file, pipe, pcapng through a pipe.
SRC2=$(cap connectx/read2.pcap)
if needs "stdin: show --json -" captures python cap:connectx/read2.pcap; then
	"$ROCETEST" show --json "$SRC2" >"$TMP/file.json" 2>/dev/null
	timeout 60 "$ROCETEST" show --json - <"$SRC2" >"$TMP/stdin.json" 2>"$ERR"
	rc=$?
	want_rc 0
	msg=$("$PY" "$HERE/compare_json.py" "$TMP/file.json" "$TMP/stdin.json") || probs+=("$msg")
	check "stdin: show --json - < FILE equals show --json FILE"
	cat "$SRC2" | timeout 60 "$ROCETEST" show --json - >"$TMP/pipe.json" 2>"$ERR"
	rc=${PIPESTATUS[1]}
	want_rc 0
	msg=$("$PY" "$HERE/compare_json.py" "$TMP/file.json" "$TMP/pipe.json") || probs+=("$msg")
	check "stdin: cat FILE | show --json - equals show --json FILE"
	cat "$SRC2" | timeout 60 "$ROCETEST" icrc - >"$OUT" 2>"$ERR"
	rc=${PIPESTATUS[1]}
	want_rc 0; out_has "-: 16 frames, 13 RoCE packets: 13 ICRC ok, 0 bad"
	check "stdin: cat FILE | icrc - verifies every ICRC"
	if [ "$TIER" = check ]; then
		echo "# make test: stdin: pcapng through a pipe equals the pcap (needs editcap)"
		deferred=$((deferred + 1))
	elif [ -z "$missing_editcap" ]; then
		editcap -F pcapng "$SRC2" "$TMP/stdin.pcapng" >/dev/null 2>&1
		cat "$TMP/stdin.pcapng" | timeout 60 "$ROCETEST" show --json - >"$TMP/pipe-ng.json" 2>"$ERR"
		rc=${PIPESTATUS[1]}
		want_rc 0
		msg=$("$PY" "$HERE/compare_json.py" "$TMP/file.json" "$TMP/pipe-ng.json") || probs+=("$msg")
		check "stdin: pcapng through a pipe equals the pcap"
	else
		fail "stdin: pcapng through a pipe equals the pcap" "cannot run: $missing_editcap"
	fi
	timeout 60 "$ROCETEST" show - <"$BAD/empty.pcap" >"$OUT" 2>"$ERR"
	rc=$?
	want_rc 2; err_has "-:"
	check "stdin: an empty standard input exits 2"
fi

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

# make install and uninstall (harness/install.mk) into temporary DESTDIRs: the
# files, pkg-config, a program linked against the installed library, the man pages.
if needs "install" doc; then
	run_tap "install" bash "$HERE/install_check.sh" .
fi

# ==================================================== 4. JSON validity
echo "# 4. JSON validity of show --json"
if needs "json: show --json over every capture" captures python; then
	run_tap "json: show --json over every capture" \
		"$PY" "$HERE/json_check.py" "$ROCETEST" "json: show --json over every capture is valid NDJSON" "${CAPTURES[@]}"
fi
crafted=()
for f in "$BAD"/snap60-* "$BAD/one-bad-icrc.pcap" "$SCAPY_PCAP" "$TMP/scapy/scapy-zeroed.pcap"; do
	[ -s "$f" ] && crafted+=("$f")
done
if [ ${#crafted[@]} -gt 0 ]; then
	run_tap "json: crafted captures" \
		"$PY" "$HERE/json_check.py" "$ROCETEST" "json: show --json over ${#crafted[@]} crafted captures (cut, bad ICRC, generated) is valid NDJSON" "${crafted[@]}"
else
	fail "json: crafted captures" "no crafted capture was made (see the failures above)"
fi
if [ -s "$BAD/udp-too-long.pcap" ]; then
	run_tap "json: malformed capture" \
		"$PY" "$HERE/json_check.py" "$ROCETEST" "json: show --json over a capture with a malformed frame is valid NDJSON" \
		--allow-exit 2 "$BAD/udp-too-long.pcap"
fi

# ==================================================== 5. the two capture readers
echo "# 5. in-place pcap reader against libpcap (show and icrc with and without --libpcap)"
if needs "reader cross-check" captures python; then
	mkdir -p "$TMP/reader"
	run_tap "reader cross-check" "$PY" "$HERE/reader_crosscheck.py" "$ROCETEST" "$TMP/reader" "${CAPTURES[@]}"
fi

# ==================================================== 6. rocetest check
echo "# 6. rocetest check: real captures, crafted rule breaks, CLI"
# jpy EXPR FILE: prints the Python expression EXPR over the JSON document d in FILE.
jpy() {
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[2])); r = eval(sys.argv[1]); print(" ".join(map(str, r)) if isinstance(r, (list, set, tuple)) else r)' "$1" "$2" 2>&1
}

# 6a. Every real capture is conformant: exit 0, no error; each warning names a
# property of the capture that check_warnings.py verifies from the bytes.
if needs "check: real captures" captures scapy; then
	for src in "${CAPTURES[@]}"; do
		t="check: ${src#"$CAPDIR"/} is conformant, every warning verified"
		rep=$TMP/real.json
		rm -f "$rep"
		run "$ROCETEST" check --json "$rep" "$src"
		want_rc 0
		if [ -s "$rep" ]; then
			errs=$(jpy '"; ".join("frame " + str(v["frame"]) + " " + v["rule"] + ": " + v["message"] for v in d["violations"] if v["severity"] == "error")' "$rep")
			n=$(jpy 'd["summary"]["errors"]' "$rep")
			[ "$n" = 0 ] || probs+=("$n errors: $errs")
			wres=$("$PY" "$HERE/check_warnings.py" "$rep" "$src" 2>&1) || probs+=("unverified warnings: $(echo "$wres" | head -n 5 | tr '\n' ';')")
			[ ${#probs[@]} -eq 0 ] && t="$t ($wres)"
		else
			probs+=("no JSON report written (stderr: $(snippet "$ERR"))")
		fi
		check "$t"
	done
fi

# check_warnings.py itself: it verifies real properties and refuses the rest.
CR=$TMP/rules
mkdir -p "$CR"
crafted_ok=
if needs "check: crafting rule captures" scapy; then
	if "$PY" "$HERE/craft_rules.py" "$CR" >"$TMP/craft_rules.out" 2>&1; then
		crafted_ok=1
		ok "check: craft_rules.py wrote $(head -n 1 "$TMP/craft_rules.out")"
	else
		fail "check: crafting rule captures" "craft_rules.py failed: $(tail -n 3 "$TMP/craft_rules.out" | tr '\n' ' ')"
	fi
fi
if [ -n "$crafted_ok" ]; then
	run "$ROCETEST" check --json "$TMP/w.json" "$CR/warnings.pcap"
	want_rc 0
	got=$(jpy 'sorted((v["rule"], v["frame"]) for v in d["violations"])' "$TMP/w.json")
	want=$(jpy 'sorted(d["warnings"].items())' "$CR/warnings.json")
	[ "$got" = "$want" ] || probs+=("warnings reported: $got; crafted: $want")
	res=$("$PY" "$HERE/check_warnings.py" "$TMP/w.json" "$CR/warnings.pcap" 2>&1) || probs+=("check_warnings.py refused: $res")
	check "check: one crafted frame per warning rule: each reported, each verified by check_warnings.py"
	# The same report with every warning moved to the clean frame, plus a rule it cannot verify.
	"$PY" - "$TMP/w.json" "$CR/warnings.json" "$TMP/w-moved.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
clean = json.load(open(sys.argv[2]))["clean"]
for v in d["violations"]:
    v["frame"] = clean
d["violations"].append({"rule": "PKT-PAD-ZERO", "severity": "warning", "frame": clean, "flow": 1, "message": "made up"})
json.dump(d, open(sys.argv[3], "w"))
PYEOF
	res=$("$PY" "$HERE/check_warnings.py" "$TMP/w-moved.json" "$CR/warnings.pcap" 2>&1)
	[ $? -eq 1 ] || probs+=("check_warnings.py accepted warnings at a clean frame: $res")
	for r in PKT-UDP-SPORT PKT-IP-DF PKT-RESERVED REQ-ACKREQ PKT-PAD-ZERO; do
		grep -q "$r" <<<"$res" || probs+=("check_warnings.py did not refuse $r at the clean frame: $res")
	done
	grep -q "not verified" <<<"$res" || probs+=("no 'not verified' for a rule without a check: $res")
	check "check: check_warnings.py refuses warnings whose property the frame lacks, and unknown warning rules"
fi

# 6b. Crafted captures that break one rule each, and their near-miss twins.
if [ -n "$crafted_ok" ]; then
	run_tap "check: crafted rule captures" "$PY" "$HERE/check_rules.py" "$ROCETEST" "$CR"
fi

# 6c. The command line of check.
run "$ROCETEST" check --help
want_rc 0; out_has "usage: rocetest check"; err_empty
for o in --pmtu --timeout-us --retry-cnt --rnr-retry --rules --skip --list-rules --json --junit --html \
	--max-report --quiet --libpcap --help; do
	out_has "$o"
done
check "check --help: exit 0, every option described"

if needs "check --list-rules: the IDs of rules.md" python; then
	RULES_MD=../shared/spec/rules.md
	run "$ROCETEST" check --list-rules
	want_rc 0
	if [ -r "$RULES_MD" ]; then
		msg=$("$PY" - "$RULES_MD" "$OUT" <<'PYEOF'
import re, sys
md = {}
for line in open(sys.argv[1]):
    m = re.match(r"\|\s*([A-Z]+-[A-Z0-9-]+)\s*\|\s*([EW])\s*\|", line)
    if m:
        md[m.group(1)] = "error" if m.group(2) == "E" else "warning"
out = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+([A-Z]+-[A-Z0-9-]+)\s+(error|warning)\s", line)
    if m:
        out[m.group(1)] = m.group(2)
probs = []
if not md:
    probs.append("no rule IDs found in rules.md")
probs += [f"{i} missing" for i in sorted(set(md) - set(out))]
probs += [f"{i} not in rules.md" for i in sorted(set(out) - set(md))]
probs += [f"{i}: {out[i]}, rules.md says {md[i]}" for i in sorted(set(md) & set(out)) if md[i] != out[i]]
print("; ".join(probs) if probs else len(md))
sys.exit(1 if probs else 0)
PYEOF
		) || probs+=("$msg")
	else
		probs+=("$RULES_MD is missing")
	fi
	check "check --list-rules: the IDs and severities of rules.md (${msg:-?} rules)"
fi

for bad in "--pmtu 1000" "--pmtu 0" "--pmtu big" "--timeout-us 0" "--timeout-us -5" "--timeout-us 1us" \
	"--retry-cnt 8" "--rnr-retry -1" "--max-report many"; do
	run "$ROCETEST" check $bad "$HERE/run.sh"
	want_rc 2; err_has "${bad%% *}"; err_has "Try 'rocetest check --help'"
	check "check $bad: usage error, exit 2"
done
for opt in --rules --skip; do
	run "$ROCETEST" check $opt PKT-ICRC,PKT-BOGUS "$HERE/run.sh"
	want_rc 2; err_has "PKT-BOGUS"; err_has "--list-rules"
	check "check $opt with an unknown rule ID: exit 2 naming it and --list-rules"
done
run "$ROCETEST" check --json - --junit - "$HERE/run.sh"
want_rc 2; err_has "standard output"
check "check: two reports to standard output is a usage error"

if [ -n "$crafted_ok" ]; then
	PSN=$CR/seq-psn.pcap ICRC=$CR/pkt-icrc.pcap
	run "$ROCETEST" check "$PSN"
	want_rc 1; out_has "frame 3: SEQ-PSN (error) flow 1:"; out_has "FAIL  SEQ-PSN"
	out_has "rocetest check: $PSN: 1 error, 0 warnings -> NOT CONFORMANT"; out_has "PMTU inferred per flow"
	out_has "N/E   REQ-TIMEOUT"; out_has "needs --timeout-us"; out_has "had nothing to check"
	check "check: a crafted SEQ-PSN break exits 1, lists the frame and the verdict"
	run "$ROCETEST" check --pmtu 1024 --timeout-us 40.96 --retry-cnt 7 --rnr-retry 7 "$PSN"
	want_rc 1; out_has "PMTU 1024"
	grep -q "needs --" "$OUT" && probs+=("a 'needs --' line although every setting was given: $(grep 'needs --' "$OUT" | head -n 2 | tr '\n' ' ')")
	check "check: with --pmtu, --timeout-us, --retry-cnt, --rnr-retry no rule waits for a setting"
	run "$ROCETEST" check "$CR/seq-psn-twin.pcap"
	want_rc 0; out_has "-> CONFORMANT"; out_has "PASS  SEQ-PSN"
	check "check: the conformant twin exits 0"
	run "$ROCETEST" check "$CR/req-ackreq.pcap"
	want_rc 0; out_has "WARN  REQ-ACKREQ"; out_has "0 errors, 1 warning -> CONFORMANT"
	check "check: a warning alone exits 0"
	run "$ROCETEST" check --quiet "$PSN"
	want_rc 1; err_empty
	[ "$(wc -l <"$OUT")" -eq 1 ] || probs+=("$(wc -l <"$OUT") lines on stdout, expected 1")
	out_has "rocetest check: $PSN: 1 error, 0 warnings -> NOT CONFORMANT"
	check "check --quiet: one verdict line"
	run "$ROCETEST" check --json - "$PSN"
	want_rc 1; err_has "-> NOT CONFORMANT"
	got=$(jpy '[d["file"], d["summary"]["errors"], [(v["rule"], v["frame"]) for v in d["violations"]]]' "$OUT")
	[ "$got" = "$PSN 1 [('SEQ-PSN', 3)]" ] || probs+=("JSON on stdout: $got")
	check "check --json -: the JSON report on stdout, the summary on stderr"
	run "$ROCETEST" check --rules PKT-ICRC --json "$TMP/only.json" "$ICRC"
	want_rc 1
	got=$(jpy '[[r["id"] for r in d["rules"]], sorted({v["rule"] for v in d["violations"]})]' "$TMP/only.json")
	[ "$got" = "['PKT-ICRC'] ['PKT-ICRC']" ] || probs+=("rules and violated rules: $got")
	check "check --rules PKT-ICRC: only that rule is checked and reported"
	run "$ROCETEST" check --rules pkt-icrc "$PSN"
	want_rc 0; out_has "PASS  PKT-ICRC"; out_has "not checked (--rules/--skip)"
	check "check --rules PKT-ICRC on a SEQ-PSN break: exit 0 (rule IDs in any case)"
	run "$ROCETEST" check --skip SEQ-PSN --skip PKT-ICRC,PKT-TVER --json "$TMP/skip.json" "$PSN"
	want_rc 0
	got=$(jpy '[r for r in ("SEQ-PSN", "PKT-ICRC", "PKT-TVER", "PKT-OPCODE") if r in [x["id"] for x in d["rules"]]] + [v["rule"] for v in d["violations"]]' "$TMP/skip.json")
	[ "$got" = "PKT-OPCODE" ] || probs+=("rules left / violations: '$got', expected only PKT-OPCODE left")
	check "check --skip (repeated, lists): the skipped rules are neither checked nor reported"
	run "$ROCETEST" check --max-report 1 "$CR/rsp-nak-seq-twice.pcap" "$PSN" "$CR/seq-opcode.pcap"
	want_rc 1
	[ "$(grep -c '^frame ' "$OUT")" -eq 3 ] || probs+=("$(grep -c '^frame ' "$OUT") violation lines, expected 1 per capture")
	out_has "rocetest check: 3 captures: "; out_has "-> NOT CONFORMANT"
	check "check: several captures, --max-report 1 per capture, a total verdict line"
	run "$ROCETEST" check --json "$TMP/two.json" "$PSN" "$CR/seq-psn-twin.pcap"
	want_rc 1
	got=$(jpy '[len(d["files"]), d["summary"]["errors"]]' "$TMP/two.json")
	[ "$got" = "2 1" ] || probs+=("files and errors in the JSON: $got")
	check "check --json over two captures: one document with both"
	run "$ROCETEST" check "$PSN" "$BAD/no-such-file.pcap"
	want_rc 2; err_has "$BAD/no-such-file.pcap"; out_has "rocetest check: $PSN: 1 error"
	check "check: a missing file among others exits 2 naming it, the others still checked"
	timeout 60 "$ROCETEST" check --quiet - <"$PSN" >"$OUT" 2>"$ERR"
	rc=$?
	want_rc 1; out_has "rocetest check: -: 1 error"
	check "check -: reads standard input"
	run "$ROCETEST" check --json "$PSN" "$PSN"
	want_rc 2; err_has "overwrite"
	check "check --json refuses to overwrite the capture"
	run "$ROCETEST" check --json "$TMP/no-such-dir/r.json" "$PSN"
	want_rc 2; err_has "$TMP/no-such-dir/r.json"
	check "check --json into a missing directory exits 2 naming the file"
	if [ -w /dev/full ]; then
		run "$ROCETEST" check --junit /dev/full "$PSN"
		want_rc 2; err_has "/dev/full"
		check "check --junit to a full device exits 2 naming it"
	fi
	run "$ROCETEST" check --junit "$TMP/r.xml" --html "$TMP/r.html" "$CR/req-go-back-n.pcap"
	want_rc 1
	"$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/r.xml" 2>"$TMP/xml.err" ||
		probs+=("JUnit is not XML: $(snippet "$TMP/xml.err")")
	grep -q "REQ-GO-BACK-N" "$TMP/r.xml" || probs+=("JUnit does not name REQ-GO-BACK-N")
	grep -qi "<svg" "$TMP/r.html" || probs+=("HTML has no SVG ladder")
	check "check --junit --html: well-formed XML naming the failed rule, HTML with a ladder"
	run "$ROCETEST" check "$CR/seq-no-first-mid-capture-twin.pcap"
	want_rc 0; out_has "flow 1 (10.0.0.1 qp 0x11 <-> 10.0.0.2 qp 0x12): capture starts mid-message"
	check "check: a capture starting mid-message is a flow note, not a violation"
fi

# 6d. A capture not checked to its end is no pass in any report: a record cut
# mid-way, and a capture whose RoCE packets the snap length cut before the BTH (nothing checked).
SRC=$(cap rxe/rdma_write_bw.pcap)
if needs "check reports: a cut capture is incomplete" captures python cap:rxe/rdma_write_bw.pcap; then
	mkdir -p "$TMP/inc"
	# incomplete_reports WHAT FILE ERRTEXT: exit 2, and each report says incomplete with the reason.
	incomplete_reports() {
		local what=$1 f=$2 why=$3
		run "$ROCETEST" check --json "$TMP/inc/r.json" --junit "$TMP/inc/r.xml" --html "$TMP/inc/r.html" "$f"
		want_rc 2; err_has "$why"; out_has "-> INCOMPLETE"
		msg=$("$PY" - "$TMP/inc/r.json" "$TMP/inc/r.xml" "$TMP/inc/r.html" "$f" "$why" <<'PYEOF'
import json, sys, xml.etree.ElementTree as ET
jpath, xpath, hpath, cap, why = sys.argv[1:6]
probs = []
s = json.load(open(jpath))["summary"]
if s.get("verdict") != "incomplete":
    probs.append(f"JSON verdict {s.get('verdict')!r}, expected 'incomplete'")
if why not in s.get("reason", "") or not s.get("reason", "").startswith(cap):
    probs.append(f"JSON reason {s.get('reason')!r} lacks the file or {why!r}")
root = ET.parse(xpath).getroot()
errs = [(tc, e) for tc in root.iter("testcase") for e in tc.findall("error")]
if len(errs) != 1 or errs[0][1].get("type") != "incomplete" or why not in errs[0][1].get("message", ""):
    probs.append(f"JUnit: {len(errs)} <error> cases, expected one of type incomplete naming {why!r}")
elif not errs[0][0].get("classname", "").endswith(".capture"):
    probs.append("JUnit: the <error> case is not of class rocetest.FILE.capture")
if root.get("errors") != "1" or root.find("testsuite").get("errors") != "1":
    probs.append(f"JUnit errors counts {root.get('errors')}/{root.find('testsuite').get('errors')}, expected 1/1")
html = open(hpath, encoding="utf-8").read()
if '<div class="verdict fail">INCOMPLETE<small>' not in html:
    probs.append("HTML has no red INCOMPLETE verdict box")
if why not in html:
    probs.append(f"HTML does not give the reason {why!r}")
if "CONFORMANT" in html or '<div class="verdict pass">' in html:
    probs.append("HTML says CONFORMANT or PASS")
print("; ".join(probs))
PYEOF
)
		[ -z "$msg" ] || probs+=("$msg")
		check "check reports: $what: exit 2, JSON verdict incomplete, a JUnit <error> case, HTML INCOMPLETE"
		if needs "check reports: $what: JUnit valid" xmllint; then
			xmllint --noout --schema "$HERE/junit.xsd" "$TMP/inc/r.xml" >/dev/null 2>"$TMP/inc/xsd.err" ||
				probs+=("JUnit does not validate against junit.xsd: $(snippet "$TMP/inc/xsd.err")")
			check "check reports: $what: the JUnit report validates against junit.xsd"
		fi
	}
	if cutframe=$("$PY" "$HERE/craft.py" cut "$SRC" "$TMP/inc/cut.pcap" 2>"$TMP/craft.err"); then
		incomplete_reports "pcap cut inside record $cutframe" "$TMP/inc/cut.pcap" "frame $cutframe: damaged capture record"
	else
		fail "check reports: a cut capture is incomplete" "craft.py failed: $(snippet "$TMP/craft.err")"
	fi
	# Every record cut to 0 bytes, then to 42 (Ethernet, IPv4, UDP: no BTH): nothing could be checked.
	for n in 0 42; do
		if "$PY" - "$SRC" "$TMP/inc/snap$n.pcap" "$n" "$HERE" <<'PYEOF' 2>"$TMP/craft.err"; then
import sys
sys.path.insert(0, sys.argv[4])
from pcaputil import read_pcap, write_pcap
lt, _, frames = read_pcap(sys.argv[1])
n = int(sys.argv[3])
write_pcap(sys.argv[2], [(d[:n], w, ts) for ts, d, w in frames], linktype=lt, snaplen=max(n, 1))
PYEOF
			incomplete_reports "every record cut to $n bytes by the snap length" "$TMP/inc/snap$n.pcap" \
				"nothing checked: all"
		else
			fail "check reports: snap length $n" "crafting failed: $(snippet "$TMP/craft.err")"
		fi
	done
	# Beside a whole capture: that one passes, the whole does not.
	run "$ROCETEST" check --json "$TMP/inc/r.json" "$TMP/inc/snap0.pcap" "$SRC"
	want_rc 2; out_has "1 unusable or damaged -> INCOMPLETE"
	got=$(jpy '[d["summary"]["verdict"], d["summary"].get("incomplete"), d["files"][1]["summary"]["verdict"]]' "$TMP/inc/r.json")
	[ "$got" = "incomplete 1 pass" ] || probs+=("JSON verdicts over both: $got, expected 'incomplete 1 pass'")
	check "check --json over an incomplete and a whole capture: the summary is incomplete, not conformant"
fi

# ==================================================== 7. reports of rocetest check
echo "# 7. rocetest check and rocetest run reports: JSON shape, JUnit against junit.xsd, self-contained HTML rendered by Chromium"
# The reports and screenshots stay beside the binary's build directory for a person to look at
# (the screenshots: rxe-rdma_read_bw.pcap.png, rxe-lab-loss5_req_write_bw_s16384.pcap.png, ...).
REPORTS=$(dirname "$(dirname "$ROCETEST")")/test-reports
if needs "reports" captures python xmllint chromium cap:rxe/rdma_read_bw.pcap; then
	mkdir -p "$REPORTS" "$TMP/hostile"
	# A capture named like markup: every report must escape the name (JSON string, XML attribute, HTML text).
	hostile=$TMP/hostile/"<script>alert(1)&\"'.pcap"
	cp "$CAPDIR/rxe/rdma_read_bw.pcap" "$hostile"
	render=(--render "$CAPDIR/rxe/rdma_read_bw.pcap" --render "$hostile")
	[ -r "$CAPDIR/rxe-lab/loss5_req_write_bw_s16384.pcap" ] &&
		render+=(--render "$CAPDIR/rxe-lab/loss5_req_write_bw_s16384.pcap")
	# A violation to draw: the capture with one corrupted ICRC made in section 3.
	[ -s "$BAD/one-bad-icrc.pcap" ] && render+=(--render "$BAD/one-bad-icrc.pcap")
	run_tap "reports" "$PY" "$HERE/check_report.py" "$ROCETEST" "$HERE/junit.xsd" "$REPORTS" "${render[@]}" \
		"${CAPTURES[@]}"
fi
# The reports of rocetest run, on the sample run of test_run_report.c (harness/report/run_*.c need no device):
# strict JSON, JUnit against junit.xsd, the page with its goodput plot rendered (test-reports/run-sample/).
if needs "run reports" python xmllint chromium unit; then
	run_tap "run reports" "$PY" "$HERE/run_report_check.py" "$UNIT_TESTS" "$HERE/junit.xsd" "$REPORTS/run-sample"
fi
# 7b. Big and odd captures: JUnit of 4096 faulty QPs (one case per rule; --junit-per-flow whole), and a page
# whose violation is judged long after its packet was folded (its own row, linked; late-judged.png).
if needs "report scale" python xmllint chromium; then
	run_tap "report scale" "$PY" "$HERE/check_report_scale.py" "$ROCETEST" "$HERE/junit.xsd" "$REPORTS/scale"
fi

# ==================================================== 8. the library's layers
echo "# 8. the library's layers depend only downwards: harness/scripts/check-layers.sh on this tree and on broken copies"
LAYERS_CHECK=harness/scripts/check-layers.sh
LIBDIR=$(dirname "$(dirname "$ROCETEST")")/lib
run bash "$LAYERS_CHECK" --archives "$LIBDIR" .
want_rc 0; out_has "every dependency points down"
check "layers: this tree, its includes and its archives"
# layered_copy DIR: the sources the check reads, in DIR.
layered_copy() {
	rm -rf "$1" && mkdir -p "$1/dut" && cp -r harness "$1/" && cp -r dut/sim "$1/dut/"
}
layered_copy "$TMP/layers-up"
sed -i '0,/^#include "rocetest\/packet.h"/s//#include "rocetest\/packet.h"\n#include "rocetest\/run.h"/' "$TMP/layers-up/harness/lib/packet/parse.c"
run bash "$LAYERS_CHECK" "$TMP/layers-up"
want_rc 1; out_has "harness/lib/packet/parse.c:"; out_has "includes rocetest/run.h of layer run from layer packet"
check "layers: a packet file including a run header fails, naming the file, line and layers"
layered_copy "$TMP/layers-header"
sed -i '0,/^#include "rocetest\/opcode.h"/s//#include "rocetest\/opcode.h"\n#include "rocetest\/run.h"/' "$TMP/layers-header/harness/include/rocetest/packet.h"
run bash "$LAYERS_CHECK" "$TMP/layers-header"
want_rc 1; out_has "harness/include/rocetest/packet.h:"; out_has "includes rocetest/run.h of layer run from layer packet"
check "layers: a public header of the packet layer including a run header fails (a header is judged by its Layer: line)"
layered_copy "$TMP/layers-private"
printf '#include "../check/flow.h"\n' >>"$TMP/layers-private/harness/lib/model/sim.c"
run bash "$LAYERS_CHECK" "$TMP/layers-private"
want_rc 1; out_has "harness/lib/model/sim.c:"; out_has "a private header of check"
check "layers: a model file including the checker's private header fails"
layered_copy "$TMP/layers-dut"
printf '#include "roce_dut_sim.h"\n' >>"$TMP/layers-dut/harness/cli/cmd_run.c"
run bash "$LAYERS_CHECK" "$TMP/layers-dut"
want_rc 1; out_has "harness/cli/cmd_run.c:"; out_has "which is dut/'s"
check "layers: the CLI including a header of dut/ fails"
# An archive of a lower layer that calls into a higher one: the symbol check.
mkdir -p "$TMP/layers-ar" && cp "$LIBDIR"/librocetest-*.a "$TMP/layers-ar/"
printf 'int rt_run_test(void);\nint rt_layer_up(void) { return rt_run_test(); }\n' >"$TMP/layers-ar/up.c"
if cc -c -o "$TMP/layers-ar/up.o" "$TMP/layers-ar/up.c" 2>"$ERR" && ar r "$TMP/layers-ar/librocetest-check.a" "$TMP/layers-ar/up.o" 2>>"$ERR"; then
	run bash "$LAYERS_CHECK" --archives "$TMP/layers-ar" .
	want_rc 1; out_has "librocetest-check.a: uses rt_run_test"
else
	probs+=("could not build the broken archive: $(snippet "$ERR")")
fi
check "layers: a check archive using a run symbol fails"

# ==================================================== 9. golden vectors
echo "# 9. golden vectors: regeneration is byte-identical; rocetest check agrees with every expectation"
if needs "vectors" rocetest python; then
	if bash harness/scripts/make-vectors.sh "$ROCETEST" "$TMP/vectors" >"$TMP/mv.out" 2>&1; then
		diffs=()
		for f in vectors/*.pcap vectors/*.json; do
			cmp -s "$f" "$TMP/vectors/$(basename "$f")" || diffs+=("$(basename "$f")")
		done
		extra=$(cd "$TMP/vectors" && ls | while read -r f; do [ -e "$OLDPWD/vectors/$f" ] || echo "$f"; done)
		if [ ${#diffs[@]} -eq 0 ] && [ -z "$extra" ]; then
			ok "vectors: make vectors reproduces all $(ls vectors/*.pcap | wc -l) committed vectors byte for byte"
		else
			fail "vectors: regeneration" "differs: ${diffs[*]:-none}; not committed: ${extra:-none} (run make vectors)"
		fi
	else
		fail "vectors: regeneration" "make-vectors.sh failed: $(tail -n 3 "$TMP/mv.out" | tr '\n' ' ')"
	fi
	run_tap "vectors: check" "$PY" "$HERE/vectors_check.py" "$ROCETEST" vectors
	printf 'pmtu 1024\nsend a len=100\nfault a>b drop packet=x\n' >"$TMP/bad.scn"
	run "$ROCETEST" gen "$TMP/bad.scn" -o "$TMP/bad.pcap"
	want_rc 2; err_has "bad.scn:3: fault:"
	[ ! -e "$TMP/bad.pcap" ] || probs+=("a capture was written for a malformed scenario")
	check "gen: a malformed scenario is refused with file:line and exit 2, nothing written"
	run "$ROCETEST" gen vectors/scenarios/send-only-1.scn
	want_rc 2; err_has "nothing to write"
	check "gen: without -o or --expect is a usage error"
	run "$ROCETEST" gen --seed 7 vectors/scenarios/send-only-1.scn -o "$TMP/s7.pcap"
	want_rc 0; out_has "send-only-1: 2 frames"
	cmp -s "$TMP/s7.pcap" vectors/send-only-1.pcap && probs+=("--seed 7 gave the same bytes as the seed-1 vector")
	check "gen --seed: another seed gives other payload bytes"
fi

# ==================================================== 12. capture oddities the notes explain
echo "# 12. rocetest check: bad ICRCs explained by a rewritten field (UDP source port, a NAT), not by corruption; RoCE v1 beside v2"
if needs "ICRC note" python cap:rxe/rdma_write_bw.pcap cap:connectx/rocev2_test.pcap cap:rxe/rping.pcap; then
	run_tap "ICRC note" "$PY" "$HERE/icrc_rewrite_check.py" "$ROCETEST" "$TMP/icrc-note" \
		"$CAPDIR/rxe/rdma_write_bw.pcap" "$CAPDIR/connectx/rocev2_test.pcap" "$CAPDIR/rxe/rping.pcap"
fi
run "$ROCETEST" check vectors/v1-v2-mixed.pcap
want_rc 0; out_has "flow 1 (10.0.0.1 qp 0x11 (RoCE v1) <-> 10.0.0.2 qp 0x12): side 0 sends RoCE v1, side 1 RoCE v2"
check "check: a RoCE v1 side answered in v2 is one flow, named as RoCE v1, with a note"

# ==================================================== 15. rocetest gate and rocetest diff
echo "# 15. rocetest gate (regressed copies of the baseline, known failures, tolerances) and diff (real captures rewritten and changed)"
if needs "gate" python; then
	run_tap "gate" bash "$HERE/gate_check.sh" "$ROCETEST" "$TMP/gate" "$TIER"
fi
if needs "diff" python captures; then
	run_tap "diff" bash "$HERE/diff_check.sh" "$ROCETEST" "$TMP/diff"
fi

[ "$TIER" = check ] && { summary; exit; }

# ==================================================== 15s. rocetest diff in bounded memory (GNU time: the test group)
echo "# 15s. rocetest diff streams: a pair of 520,000-frame captures in the peak RSS of one ten times shorter"
if needs "diff streaming" python; then
	run_tap "diff streaming" bash "$HERE/diff_stream.sh" "$ROCETEST" "$TMP/diff-stream"
fi

# ==================================================== 10. golden vectors, independently
echo "# 10. golden vectors without rocetest: ICRCs by zlib.crc32, tshark's dissection and fields against each scenario"
if needs "vectors: independent cross-check" tshark python; then
	run_tap "vectors: independent cross-check" "$PY" "$HERE/vectors_crosscheck.py" vectors
fi

# ==================================================== 11. rocetest run against the model
echo "# 11. rocetest run against the FPGA endpoint's Verilator model: reports, captures re-checked (rocetest check, tshark, zlib.crc32), determinism, usage errors, mutants"
# run_check.py: the quick suite with --report; summary.json, junit.xml, every capture; the psn suite again.
if needs "run: rocetest run --dut sim --suite quick" model python tshark xmllint; then
	run_tap "run: rocetest run --dut sim --suite quick" "$PY" "$HERE/run_check.py" run "$ROCETEST" "$HERE/junit.xsd" "$TMP/run"
fi

# DATA_WIDTH 64 must work too: every suite but throughput (64 bits at 322 MHz carry 20.6 Gb/s, not 100).
# How many that is: every test --list shows outside the throughput suite.
nf=$("$ROCETEST" run --list | awk '/^[^ ]/ { s = $1 } /^  / && s != "throughput" { n++ } END { print n + 0 }')
run "$ROCETEST" run --dut sim --width 64 --quiet --suite functional
want_rc 0; out_has "rocetest run: $nf tests, 0 failed"
check "run --width 64: the 64-bit model passes every suite but throughput ($nf tests)"

# A slow host (as a board's harness, whose clock does not wait for it): the tests
# whose shortest timer is under ten times the harness's reaction are UNTIMED, not
# passed and not failed, in the output, summary.json and JUnit; the others pass.
if needs "run: --host-delay-us makes the short-timer tests untimed" model python; then
	run "$ROCETEST" run --dut sim --suite rnr --skip rnr/rnr-code-14 --host-delay-us 2 --report "$TMP/run-untimed"
	want_rc 0
	out_has "UNTIMED rnr/rnr-wait: "; out_has "UNTIMED rnr/rnr-code-4: "; out_has "PASS rnr/rnr-code-9: "
	out_has "untimed: the harness took up to "; out_has "more than a 10th of the test's shortest timer (10.00 us)"
	out_has "rocetest run: 4 tests, 0 failed, 3 untimed"
	"$PY" - "$TMP/run-untimed" >"$TMP/untimed.txt" 2>&1 <<'PYEOF' || probs+=("$(tail -c 400 "$TMP/untimed.txt")")
import json, sys
from xml.etree import ElementTree
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
cases = {c["name"]: c for su in s["suites"] for c in su["cases"]}
want = {"rnr-wait": True, "rnr-retry-exhausted": True, "rnr-code-4": True, "rnr-code-9": False}
for name, untimed in want.items():
    c = cases[name]
    assert c["untimed"] == untimed and c["passed"] == (not untimed), (name, c["untimed"], c["passed"])
    # The verdict follows the figures: untimed exactly when the reaction is over a tenth of the timer.
    assert (c["reaction_ns"] * 10 > c["timer_ns"]) == untimed, (name, c["reaction_ns"], c["timer_ns"])
    assert c["reaction_ns"] >= 2000, (name, c["reaction_ns"])
    assert (c["failure"] or "").startswith("untimed: ") == untimed, (name, c["failure"])
assert (s["failures"], s["untimed"]) == (0, 3), (s["failures"], s["untimed"])
skipped = [t.get("name") for t in ElementTree.parse(d + "/junit.xml").getroot().iter("testcase")
           if t.find("skipped") is not None]
assert sorted(skipped) == ["rnr-code-4", "rnr-retry-exhausted", "rnr-wait"], skipped
assert not [t for t in ElementTree.parse(d + "/junit.xml").getroot().iter("failure")]
page = open(d + "/index.html").read()
assert "3 untimed" in page and page.count(">untimed</span>") >= 3, "index.html"
PYEOF
	check "run --host-delay-us 2: the rnr tests with timers up to 40 us UNTIMED (summary.json, JUnit skipped, the page), rnr-code-9 (90 us) passes, exit 0"
	# The host of the simulation answers within a step: nothing is untimed, and the reactions are reported.
	run "$ROCETEST" run --dut sim --suite rnr --skip rnr/rnr-code-14 --report "$TMP/run-timed"
	want_rc 0; out_has "rocetest run: 4 tests, 0 failed, seed"; ! grep -q UNTIMED "$OUT" || probs+=("a test UNTIMED without a host delay")
	"$PY" -c '
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
cs = [c for su in s["suites"] for c in su["cases"]]
assert s["untimed"] == 0 and all(0 < c["reaction_ns"] * 10 <= c["timer_ns"] for c in cs), [(c["reaction_ns"], c["timer_ns"]) for c in cs]
' "$TMP/run-timed" >"$TMP/untimed.txt" 2>&1 || probs+=("$(tail -c 400 "$TMP/untimed.txt")")
	check "run without a host delay: no test untimed, every reaction reported and under a tenth of its timer"
	# Slower still (20 us a turn): tests fail, and a failure says the harness may be why.
	run "$ROCETEST" run --dut sim --suite loss --host-delay-us 20 --quiet
	want_rc 1; out_has "FAIL loss/retry-reload: "
	out_has "more than a 10th of the link's round trip (2.00 us): the harness's delay may be why"
	check "run --host-delay-us 20: loss tests fail, each failure saying the harness's delay may be why, exit 1"
	run "$ROCETEST" run --dut sim --host-delay-us -1
	want_rc 2; err_has "--host-delay-us needs microseconds from 0 to 1000000, not '-1'"
	check "run --host-delay-us -1: usage error, exit 2"
fi

run "$ROCETEST" run --help
want_rc 0; out_has "usage: rocetest run"; out_has "--suite"; out_has "--seed"; out_has "--report"; err_empty
check "run --help: exit 0, --suite, --seed and --report described"
run "$ROCETEST" run
want_rc 2; err_has "--dut is required"; err_has "Try 'rocetest run --help'"
check "run without --dut: usage error, exit 2"
run "$ROCETEST" run --dut board
want_rc 2; err_has "--dut must be 'sim'"; err_has "'board'"
check "run --dut board: usage error naming it, exit 2"
run "$ROCETEST" run --dut sim --suite nosuch
want_rc 2; err_has "no suite 'nosuch'"; err_has "--list"
check "run --suite nosuch: usage error naming it and --list, exit 2"
run "$ROCETEST" run --dut sim --width 100
want_rc 2; err_has "--width"; err_has "'100'"
check "run --width 100: usage error (not a multiple of 64), exit 2"
run "$ROCETEST" run --dut sim --width 576
want_rc 2; err_has "--width must be 64 to 512, a multiple of 64"; err_has "'576'"
check "run --width 576: usage error (roce_endpoint takes 64 to 512 bits), exit 2"
# A width whose model is not built: a copy of rocetest with no models beside it
# (make conformance-matrix builds every width beside the real one).
# --suite psn: should a model load after all, the run is short.
mkdir -p "$TMP/lone/bin" && cp "$ROCETEST" "$TMP/lone/bin/rocetest"
run "$TMP/lone/bin/rocetest" run --dut sim --width 128 --suite psn
want_rc 2; err_has "DATA_WIDTH 128 is not built"; err_has "make dut-sim"
check "run --width 128 (no such model built): exit 2, the message says make dut-sim"
run "$ROCETEST" run --dut sim --sim-lib /nonexistent.so --suite psn
want_rc 2; err_has "/nonexistent.so"
check "run --sim-lib /nonexistent.so: exit 2 naming the path"
# A shared object that is not a model: zlib, or else the C library rocetest runs with.
notmodel=/usr/lib/x86_64-linux-gnu/libz.so.1
[ -r "$notmodel" ] || notmodel=$(ldd "$ROCETEST" | sed -n 's/.*libc\.so[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
run "$ROCETEST" run --dut sim --sim-lib "$notmodel" --suite psn
want_rc 2; err_has "$notmodel is not a rocetest device model"
check "run --sim-lib $notmodel: exit 2, not a rocetest device model"
run "$ROCETEST" run --dut sim --suite quick --report /proc/x
want_rc 2; err_has "/proc/x"
check "run --report /proc/x (unwritable): exit 2 naming it"

# Mutants (dut/mutants/mutants.txt, built by make dut-mutants): each makes its suite fail.
if needs "mutants: the suites catch a broken endpoint" model python; then
	run_tap "mutants: the suites catch a broken endpoint" "$PY" "$HERE/run_check.py" mutants "$ROCETEST" dut/mutants/mutants.txt
fi

# ==================================================== 18. run captures against the model's twins
echo "# 18. rocetest run's captures against the reference model's twins of the same work (the scenarios run writes, through gen, then diff); an RTL mutant"
if needs "twin: run captures against the model's twins" model python; then
	run_tap "twin: run captures against the model's twins" bash "$HERE/twin_check.sh" "$ROCETEST" "$TMP/twin" "$MODEL" \
		"$(dirname "$(dirname "$MODEL")")/mutants/padcnt-zero/libroce_dut_sim.so"
fi

# The model's identity (a hash of its RTL) and TX underruns in the reports, the mutant's too.
if needs "run: the model's identity and TX underruns" model python; then
	run_tap "run: the model's identity and TX underruns" "$PY" "$HERE/dut_identity_check.py" "$ROCETEST" "$TMP/identity"
fi

# ==================================================== 13. snap lengths
echo "# 13. rocetest check on every vector and capture cut by editcap -s 54, 64 and 128: no false error, exit status as the cut implies"
if needs "snap length" editcap python captures; then
	run_tap "snap length" "$PY" "$HERE/snaplen_check.py" "$ROCETEST" "$TMP/snaplen" vectors "${CAPTURES[@]}"
fi

# ==================================================== 14. the Wireshark plugin (dissectors/)
echo "# 14. the Wireshark/tshark plugin: its fields against rocetest show/check, a corrupted ICRC, the CM snapshot, the filter cookbook, install, fuzz"
if needs "dissector" tshark editcap python captures; then
	for part in load fields icrc cm install fuzz; do
		run_tap "dissector: $part" bash dissectors/tests/run.sh "$part" "$ROCETEST"
	done
fi

# ==================================================== 16. hardware mode over veth
echo "# 16. hardware mode: the virtual board on a veth pair between two network namespaces; rocetest cm; rocetest run --dut iface: against simulation; mutants; limits"
if needs "hw: the virtual board over veth" model python tshark; then
	RUN_TAP_TIMEOUT=300 run_tap "hw: the virtual board over veth" bash "$HERE/hw_veth.sh" "$ROCETEST"
fi

# ==================================================== 17. rocetest peer (no RDMA device here)
echo "# 17. rocetest peer: no RDMA device, usage errors; its CM exchange and the board's generator frames over veth"
run_tap "peer: without an RDMA device" bash "$HERE/peer_check.sh" "$ROCETEST" cli
if needs "peer: against the virtual board" model python tshark; then
	run_tap "peer: against the virtual board" bash "$HERE/peer_check.sh" "$ROCETEST" board
fi

# ==================================================== 19. rocetest report (the interop lab's reports)
echo "# 19. rocetest report: a results file like the interop lab's as a conformance run's summary.json, JUnit and page; bad lines"
if needs "report: a results file as a run's reports" python unit xmllint; then
	run_tap "report: a results file as a run's reports" "$PY" "$HERE/report_check.py" "$ROCETEST" "$UNIT_TESTS" \
		"$HERE/junit.xsd" "$TMP/report"
fi

summary
