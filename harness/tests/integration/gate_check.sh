#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest gate through the command line: the committed baseline against
# itself and against copies with one regression each (a failed test, goodput,
# retransmissions, cycles per message, a missing test, a new violation), known
# failures and tolerance files, check --json results, its JSON and JUnit
# reports, usage errors. In the full tier also: JUnit against junit.xsd, and
# two runs of the model with the same seed gate as identical (the baseline's
# determinism).
#
# usage: gate_check.sh ROCETEST WORKDIR TIER   (TIER: check or full; from the repository root)
# Prints "ok - NAME" or "FAIL - NAME: why" per test.
set -u
ROCETEST=$1
WORK=$2
TIER=${3:-check}
PY=/usr/bin/python3
BASE=reports/baseline
mkdir -p "$WORK"

PREFIX="gate: "
# shellcheck source=harness/tests/integration/cmd_lib.sh
. harness/tests/integration/cmd_lib.sh

# mutate DIR PYTHON: a candidate run directory whose summary.json is the baseline's changed by PYTHON (on `s`).
mutate() {
	mkdir -p "$1"
	"$PY" - "$BASE/summary.json" "$1/summary.json" "$2" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
def case(suite, name):
    return next(c for su in s["suites"] if su["name"] == suite for c in su["cases"] if c["name"] == name)
def goodput(test):
    return next(g for g in s["metrics"]["goodput"] if g["test"] == test)
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
EOF
}

# ---- the committed baseline against itself
# Its test count (the suites grow; the counts below follow the baseline).
N=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["tests"])' "$BASE/summary.json")
run "$ROCETEST" gate "$BASE" "$BASE"
want_rc 0
out_has "gate: PASS: nothing changed ($N tests, "
check "the committed baseline against itself: PASS, nothing changed"

# ---- one regression of each kind
# A failed test, a retransmission more, 3 % more cycles per message, a warning, 2 % less goodput.
FIVE='
c = case("loss", "tail-loss"); c["passed"] = False; c["failure"] = "WR 2: status RETRY_EXC_ERR, expected SUCCESS\nmore"
case("loss", "burst-loss")["retransmissions"] += 1
c = case("pmtu", "pmtu-256"); c["cycles"] = round(c["cycles"] * 1.03)
case("messages", "send-imm")["checker"]["warnings"] = 1
g = goodput("write-64k"); g["gbps"] = g["gbps"] * 0.98
'
C=$WORK/regressed
mutate "$C" "$FIVE"'
for su in s["suites"]:
    su["cases"] = [c for c in su["cases"] if c["name"] != "refusals"]
'
run "$ROCETEST" gate --json "$WORK/g.json" --junit "$WORK/g.xml" "$BASE" "$C"
want_rc 1
out_has "REGRESSION     loss/tail-loss"
out_has "passed in the baseline, fails: WR 2: status RETRY_EXC_ERR, expected SUCCESS [$C/tests/loss-tail-loss.html]"
out_has "cm/refusals"
out_has "in the baseline, not in the candidate"
out_has "retransmissions:loss/burst-loss"
out_has "(+1), worse by more than the tolerance of 0 [$C/tests/loss-burst-loss.html]"
out_has "goodput:throughput/write-64k"
out_has "(-2.00 %), worse by more than the tolerance of 1 % [$C/tests/throughput-write-64k.html]"
out_has "cycles_per_message:pmtu/pmtu-256"
out_has "violations:messages/send-imm      violations 0 -> 1 (+1)"
out_has "gate: FAIL: regression 6 ($((N - 1)) tests, "
out_has "candidate $C against baseline $BASE"
check "one regression of each kind: exit 1, each named with how much and the candidate's report page"

# The JSON report says the same; the JUnit report fails those five tests (the sixth is absent: its own case).
"$PY" - "$WORK/g.json" "$WORK/g.xml" "$N" >"$WORK/py.out" 2>&1 <<'EOF' || probs+=("$(tail -n 3 "$WORK/py.out" | tr '\n' ' ')")
import json, sys, xml.etree.ElementTree as ET
g = json.load(open(sys.argv[1]))
assert g["verdict"] == "fail", g["verdict"]
assert g["summary"]["regression"] == 6, g["summary"]
ids = sorted(c["id"] for c in g["changes"])
want = sorted(["loss/tail-loss", "cm/refusals", "retransmissions:loss/burst-loss", "goodput:throughput/write-64k",
               "cycles_per_message:pmtu/pmtu-256", "violations:messages/send-imm"])
assert ids == want, ids
gp = next(c for c in g["changes"] if c["metric"] == "goodput")
assert abs(gp["change"] + 0.02) < 1e-9 and gp["relative"] and gp["tolerance"] == 0.01, gp
suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
assert suite.get("tests") == sys.argv[3] and suite.get("failures") == "6", suite.attrib
failed = sorted(tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None)
assert failed == sorted(["loss/tail-loss", "cm/refusals", "loss/burst-loss", "throughput/write-64k", "pmtu/pmtu-256",
                         "messages/send-imm"]), failed
EOF
check "--json and --junit: the six regressions, with the numbers, in both"

if [ "$TIER" = full ]; then
	xmllint --noout --schema harness/tests/integration/junit.xsd "$WORK/g.xml" >"$WORK/xl" 2>&1 ||
		probs+=("$(tail -n 3 "$WORK/xl" | tr '\n' ' ')")
	check "--junit validates against junit.xsd"
fi

# ---- known failures and tolerances
printf '# known\nloss/tail-loss  JIRA-12: one retry too few in 2.1\ngoodput:throughput/write-64k  accepted: DMA engine change\n' >"$WORK/xfail.txt"
printf 'retransmissions loss/* 1\ncycles_per_message 5%%\nviolations messages/* 1\n' >"$WORK/tol.txt"
mutate "$WORK/known" "$FIVE"
run "$ROCETEST" gate --xfail "$WORK/xfail.txt" --tolerances "$WORK/tol.txt" "$BASE" "$WORK/known"
want_rc 0
out_has "XFAIL          loss/tail-loss"
out_has "a known failure ($WORK/xfail.txt:2: JIRA-12: one retry too few in 2.1): WR 2: status RETRY_EXC_ERR"
out_has "XFAIL          goodput:throughput/write-64k"
out_has "CHANGED        retransmissions:loss/burst-loss"
out_has "within the tolerance of 5 %"
out_has "gate: PASS: xfail 2, changed 3"
check "known failures and looser tolerances: exit 0, each change still listed"

# The same list against the unchanged baseline: both entries pass now.
run "$ROCETEST" gate --xfail "$WORK/xfail.txt" "$BASE" "$BASE"
want_rc 0
out_has "XPASS          loss/tail-loss"
out_has "take it off the list"
check "a known failure that passes is reported (XPASS), exit 0"
run "$ROCETEST" gate --strict-xfail --quiet --xfail "$WORK/xfail.txt" "$BASE" "$BASE"
want_rc 1
out_has "gate: FAIL: xpass 2"
check "--strict-xfail: an XPASS fails the gate"

# A baseline directory's own xfail.txt and tolerances.txt apply without options.
mkdir -p "$WORK/basedir"
cp "$BASE/summary.json" "$WORK/basedir/"
cp "$WORK/xfail.txt" "$WORK/basedir/xfail.txt"
cp "$WORK/tol.txt" "$WORK/basedir/tolerances.txt"
run "$ROCETEST" gate "$WORK/basedir" "$WORK/known"
want_rc 0
out_has "$WORK/basedir/xfail.txt:2: JIRA-12"
check "the baseline directory's xfail.txt and tolerances.txt are read by default"

printf 'loss/tail-loss\n' >"$WORK/noreason.txt"
run "$ROCETEST" gate --xfail "$WORK/noreason.txt" "$BASE" "$BASE"
want_rc 2
err_has "$WORK/noreason.txt:1: 'loss/tail-loss' has no reason"
check "an xfail entry without a reason: exit 2 naming file and line"
printf 'goodput 1%%\nspeed 3%%\n' >"$WORK/badtol.txt"
run "$ROCETEST" gate --tolerances "$WORK/badtol.txt" "$BASE" "$BASE"
want_rc 2
err_has "$WORK/badtol.txt:2: unknown metric 'speed'"
check "a tolerance file with an unknown metric: exit 2 naming file and line"

# ---- check --json results: a capture whose rule broke
mkdir -p "$WORK/cb" "$WORK/cc"
cp vectors/send-only-1.pcap vectors/nak-go-back-n.pcap "$WORK/cb/"
cp vectors/send-only-1.pcap "$WORK/cc/"
cp vectors/neg-go-back-wrong.pcap "$WORK/cc/nak-go-back-n.pcap"
(cd "$WORK/cb" && "$ROCETEST" check --quiet --json ../cb.json send-only-1.pcap nak-go-back-n.pcap >/dev/null)
(cd "$WORK/cc" && "$ROCETEST" check --quiet --json ../cc.json send-only-1.pcap nak-go-back-n.pcap >/dev/null)
run "$ROCETEST" gate "$WORK/cb.json" "$WORK/cb.json"
want_rc 0
out_has "gate: PASS: nothing changed"
check "check --json against itself: PASS"
run "$ROCETEST" gate "$WORK/cb.json" "$WORK/cc.json"
want_rc 1
out_has "REGRESSION     nak-go-back-n.pcap:REQ-GO-BACK-N"
out_has "passed in the baseline, fails: frame 7: "
out_lacks "violations:nak-go-back-n.pcap:REQ-GO-BACK-N"
out_has "gate: FAIL: regression 1"
check "check --json: the rule that broke, at its frame, once"

# ---- usage and input errors
run "$ROCETEST" gate --help
want_rc 0
out_has "usage: rocetest gate"
out_has "--xfail"
check "--help"
run "$ROCETEST" gate "$BASE"
want_rc 2
err_has "expected BASELINE and CANDIDATE"
check "one argument: usage error"
run "$ROCETEST" gate "$BASE" "$WORK/cb.json"
want_rc 2
err_has "compare like with like"
check "a run against a check result: exit 2"
run "$ROCETEST" gate "$BASE" "$WORK/nonexistent"
want_rc 2
err_has "candidate $WORK/nonexistent: No such file or directory"
check "a missing candidate: exit 2 naming it"
printf '{"dut":"x","seed":1,"suites":[{"name":"s","cases":[\n{"name":"t","passed":"yes"}]}],"metrics":{}}' >"$WORK/bad.json"
run "$ROCETEST" gate "$BASE" "$WORK/bad.json"
want_rc 2
err_has "$WORK/bad.json: line 2: test 's/t': \"passed\" is a string, not true or false"
check "a summary with a field of the wrong type: exit 2 naming file, line and field"

# ---- the model twice with one seed: identical (the baseline is reproducible)
if [ "$TIER" = full ]; then
	for i in 1 2; do
		"$ROCETEST" run --dut sim --suite quick --suite loss --quiet --report "$WORK/det$i" >/dev/null 2>&1
	done
	run "$ROCETEST" gate "$WORK/det1" "$WORK/det2"
	want_rc 0
	out_has "gate: PASS: nothing changed"
	check "two runs of the model with seed 1: nothing changed (deterministic)"
fi
