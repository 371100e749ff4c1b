#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest run --shard I/N and rocetest report --merge: three shards of the quick
# suite joined are the unsharded run (the same summary.json but for wall times,
# the gate finds nothing changed, JUnit valid, every test's files there); a
# failing shard fails the whole; shards that are not one whole run, and bad
# --shard values, are refused with exit 2.
# tier: full
# takes: 8
. harness/tests/integration/lib.sh

if needs "shard: three shards joined are the whole run" model python xmllint; then
	for s in whole 1/3 2/3 3/3; do
		dir=$TMP/${s/\//-of-}
		args=()
		[ "$s" = whole ] || args=(--shard "$s")
		run "$ROCETEST" run --dut sim --suite quick "${args[@]}" --report "$dir" --quiet
		[ "$rc" -eq 0 ] || probs+=("run ${args[*]}: exit $rc ($(snippet "$ERR"))")
	done
	check "shard: the quick suite whole and as shards 1/3, 2/3, 3/3 pass"
	# The shards hold every third test: 7 tests as 3, 2 and 2.
	got=$(for s in 1 2 3; do jpy 'sum(len(su["cases"]) for su in d["suites"])' "$TMP/$s-of-3/summary.json"; done | tr '\n' ' ')
	[ "$got" = "3 2 2 " ] || probs+=("tests per shard: $got, expected 3 2 2")
	got=$(jpy '[d["shard"]["index"], d["shard"]["count"]]' "$TMP/2-of-3/summary.json")
	[ "$got" = "2 3" ] || probs+=("shard 2's summary.json says shard $got")
	check "shard: --shard I/N takes every Nth selected test, and summary.json says which shard"

	# In any order on the command line.
	run "$ROCETEST" report --merge --report "$TMP/merged" "$TMP/3-of-3" "$TMP/1-of-3" "$TMP/2-of-3"
	want_rc 0; out_has "3 shards joined: 7 tests, 0 failed"
	msg=$("$PY" - "$TMP/whole/summary.json" "$TMP/merged/summary.json" <<'PYEOF' 2>&1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for k in ("wall_s", "started"):
        d.pop(k)
    for k in ("sim_wall_s", "sim_cycles_per_s"):
        d["metrics"].pop(k)
    for su in d["suites"]:
        for c in su["cases"]:
            c.pop("wall_s")
if a != b:
    print("the merged summary.json differs from the whole run's beyond its wall times")
    sys.exit(1)
PYEOF
	) || probs+=("$msg")
	check "merge: the joined summary.json is the whole run's but for wall times, in the run's test order"
	run "$ROCETEST" gate "$TMP/whole" "$TMP/merged"
	want_rc 0; out_has "PASS: nothing changed (7 tests"
	check "merge: rocetest gate with the whole run as baseline finds nothing changed in the joined shards"
	xmllint --noout --schema "$HERE/junit.xsd" "$TMP/merged/junit.xml" >/dev/null 2>"$TMP/xsd.err" ||
		probs+=("junit.xml does not validate: $(snippet "$TMP/xsd.err")")
	got=$(grep -c '<testcase ' "$TMP/merged/junit.xml")
	[ "$got" = 7 ] || probs+=("$got JUnit cases, expected 7")
	# A test of several QPs names its scenarios as NAME.qpA..B.scn: one file each.
	missing=$("$PY" -c '
import json, os, re, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
for su in s["suites"]:
    for c in su["cases"]:
        for k in ("pcap", "html", "scenario"):
            m = re.fullmatch(r"(.*\.qp)(\d+)\.\.(\d+)(\.scn)", c[k] or "")
            files = [m[1] + str(q) + m[4] for q in range(int(m[2]), int(m[3]) + 1)] if m else [c[k]] if c[k] else []
            for f in files:
                if not os.path.isfile(os.path.join(d, f)):
                    print(f)
' "$TMP/merged")
	[ -z "$missing" ] || probs+=("files the joined report names are missing: $(echo "$missing" | tr '\n' ' ')")
	for t in $(jpy '[su["name"] + "/" + c["name"] for su in d["suites"] for c in su["cases"]]' "$TMP/whole/summary.json"); do
		grep -qF "${t#*/}" "$TMP/merged/index.html" || probs+=("index.html lacks $t")
	done
	check "merge: JUnit valid with 7 cases, every capture, page and scenario named there, every test on the page"

	# Refused: a shard missing, one given twice, a run that is no shard, another seed, no report.
	run "$ROCETEST" report --merge --report "$TMP/m2" "$TMP/1-of-3" "$TMP/2-of-3"
	want_rc 2; err_has "shard 3 of 3 is missing"
	check "merge: a missing shard is refused (exit 2)"
	run "$ROCETEST" report --merge --report "$TMP/m3" "$TMP/1-of-3" "$TMP/2-of-3" "$TMP/2-of-3" "$TMP/3-of-3"
	want_rc 2; err_has "are both shard 2 of 3"
	check "merge: a shard given twice is refused (exit 2)"
	run "$ROCETEST" report --merge --report "$TMP/m4" "$TMP/whole"
	want_rc 2; err_has "$TMP/whole: not a shard"
	check "merge: a run that is no shard is refused (exit 2)"
	run "$ROCETEST" run --dut sim --suite quick --shard 2/3 --seed 9 --report "$TMP/seed9" --quiet
	run "$ROCETEST" report --merge --report "$TMP/m5" "$TMP/1-of-3" "$TMP/seed9" "$TMP/3-of-3"
	want_rc 2; err_has "not shards of one run"
	check "merge: a shard of another seed is refused (exit 2)"
	run "$ROCETEST" run --dut sim --suite quick --shard 2/2 --report "$TMP/2-of-2" --quiet
	run "$ROCETEST" report --merge --report "$TMP/m8" "$TMP/1-of-3" "$TMP/2-of-2" "$TMP/3-of-3"
	want_rc 2; err_has "$TMP/2-of-2 is shard 2 of 2"; err_has "shards of different splits"
	check "merge: shards of different splits are refused (exit 2)"
	run "$ROCETEST" report --merge --report "$TMP/m6" "$TMP/no-such-run"
	want_rc 2; err_has "$TMP/no-such-run/summary.json"
	check "merge: a directory without summary.json is refused naming it (exit 2)"
	# A shard whose summary.json has a test's "passed" as a string.
	mkdir -p "$TMP/bad"
	"$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["suites"][0]["cases"][0]["passed"] = "yes"
json.dump(s, open(sys.argv[2], "w"), indent=1)
' "$TMP/1-of-3/summary.json" "$TMP/bad/summary.json"
	first=$(jpy 'd["suites"][0]["name"] + "/" + d["suites"][0]["cases"][0]["name"]' "$TMP/1-of-3/summary.json")
	run "$ROCETEST" report --merge --report "$TMP/m7" "$TMP/bad" "$TMP/2-of-3" "$TMP/3-of-3"
	want_rc 2; err_has "$TMP/bad/summary.json: line "; err_has "test '$first': \"passed\" is a string, not true or false"
	check "merge: a summary.json with a field of the wrong type is refused naming file, line, test and field (exit 2)"
fi

# A failing shard fails the joined run: the padcnt-zero mutant fails the messages suite.
MUTANT=$(dirname "$(dirname "$MODEL")")/mutants/padcnt-zero/libroce_dut_sim.so
if needs "merge: a failing shard fails the whole" model python; then
	for s in 1/2 2/2; do
		run "$ROCETEST" run --dut sim --sim-lib "$MUTANT" --suite messages --shard "$s" --report "$TMP/mut-${s%/*}" --quiet
	done
	run "$ROCETEST" report --merge --report "$TMP/mut" "$TMP/mut-1" "$TMP/mut-2"
	want_rc 1
	got=$(jpy 'd["failures"] > 0 and d["failures"] == sum(not c["passed"] for su in d["suites"] for c in su["cases"])' "$TMP/mut/summary.json")
	[ "$got" = True ] || probs+=("the joined summary.json's failures do not count its failed tests: $got")
	check "merge: shards of a mutant that fails: the joined run fails (exit 1), its failures counted"
fi

for bad in 0/2 3/2 2 1/0 a/b 1/2000; do
	run "$ROCETEST" run --dut sim --suite quick --shard "$bad"
	want_rc 2; err_has "--shard needs I/N"
	check "run --shard $bad: usage error, exit 2"
done
run "$ROCETEST" report --merge --report "$TMP/x"
want_rc 2; err_has "--merge needs --report DIR and the shards' directories"
check "report --merge without shards: usage error, exit 2"
run "$ROCETEST" report --merge --report "$TMP/./1-of-3" "$TMP/1-of-3" "$TMP/2-of-3" "$TMP/3-of-3"
want_rc 2; err_has "is shard $TMP/1-of-3 itself"
[ "$(jpy '[d["shard"]["index"]]' "$TMP/1-of-3/summary.json")" = 1 ] || probs+=("the shard's summary.json was overwritten")
check "report --merge into one of the shards: usage error, exit 2, the shard intact"
run "$ROCETEST" report --merge --results "$TMP/r.tsv" --report "$TMP/x" "$TMP/1-of-3"
want_rc 2; err_has "--merge takes the shards' directories"
check "report --merge with --results: usage error, exit 2"

summary
