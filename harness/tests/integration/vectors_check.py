# SPDX-License-Identifier: MIT
"""Every golden vector against `rocetest check` and against its expectation.

usage: vectors_check.py ROCETEST VECTORS_DIR

For each VECTORS_DIR/NAME.json (written by `rocetest gen --expect`), runs
`rocetest check --json - CHECK_OPTIONS NAME.pcap` and checks:
  clean vectors:    no error, exit status 0;
  negative vectors: the errors reported are exactly the expected (rule, frame)
                    pairs, no other error, exit status 1.
Warnings are listed as details but do not fail a vector: the vectors follow the
rxe conventions, which the warning rules accept.
Also checks that every scenario has its vector and every vector its scenario.
Prints "ok - ..." / "FAIL - ...: why" lines for run.sh to count.
"""
import glob
import json
import os
import subprocess
import sys


def main():
    rocetest, vdir = sys.argv[1], sys.argv[2]
    scenarios = {os.path.basename(p)[:-4] for p in glob.glob(os.path.join(vdir, "scenarios", "*.scn"))}
    vectors = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(vdir, "*.json"))}
    if not scenarios:
        print(f"FAIL - vectors: no scenarios in {vdir}/scenarios")
        return
    if scenarios == vectors:
        print(f"ok - vectors: each of the {len(scenarios)} scenarios has its vector and no vector lacks one")
    else:
        print(f"FAIL - vectors: scenarios without vector {sorted(scenarios - vectors)}, "
              f"vectors without scenario {sorted(vectors - scenarios)}")
    for name in sorted(vectors):
        with open(os.path.join(vdir, name + ".json")) as f:
            exp = json.load(f)
        pcap = os.path.join(vdir, name + ".pcap")
        cmd = [rocetest, "check", "--json", "-"] + exp["check_options"] + [pcap]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        try:
            doc = json.loads(r.stdout)
        except ValueError as e:
            print(f"FAIL - vector {name}: no JSON from rocetest check ({e}); exit {r.returncode}; {r.stderr[-300:]}")
            continue
        errors = sorted((v["rule"], v["frame"]) for v in doc["violations"] if v["severity"] == "error")
        warnings = sorted({v["rule"] for v in doc["violations"] if v["severity"] != "error"})
        want = sorted((v["rule"], v["frame"]) for v in exp["expected_violations"])
        want_rc = 0 if exp["clean"] else 1
        probs = []
        if exp["clean"] != (not want):
            probs.append(f"expectation says clean={exp['clean']} with {len(want)} expected violations")
        if errors != want:
            probs.append(f"errors {errors}, expected {want}")
        if r.returncode != want_rc:
            probs.append(f"exit status {r.returncode}, expected {want_rc}")
        if doc.get("violations_dropped"):
            probs.append(f"{doc['violations_dropped']} violations not listed")
        if warnings:
            print(f"# vector {name}: warnings {warnings}")
        if probs:
            print(f"FAIL - vector {name}: " + "; ".join(probs))
        else:
            what = "clean" if exp["clean"] else " ".join(f"{r_}@{f_}" for r_, f_ in want)
            print(f"ok - vector {name}: rocetest check agrees ({what})")


if __name__ == "__main__":
    main()
