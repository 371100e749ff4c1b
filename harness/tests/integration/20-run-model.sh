#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest run against the FPGA endpoint's Verilator model: reports, captures
# re-checked (rocetest check, tshark, zlib.crc32), determinism, DATA_WIDTH 64, a
# slow host (UNTIMED), usage errors.
# tier: full
# takes: 28
. harness/tests/integration/lib.sh
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

summary
