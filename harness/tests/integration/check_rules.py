# SPDX-License-Identifier: MIT
"""Runs `rocetest check` on the captures craft_rules.py wrote and checks the verdicts.

usage: check_rules.py ROCETEST DIR

For each case of DIR/manifest.json, runs `rocetest check --json DIR/NAME.json
ARGS DIR/NAME.pcap` and checks:
  break: the rule is reported at each expected frame and at no other (the
         rules in "also" likewise); no other rule reports an error; exit status 1
         for an error rule, 0 for a warning rule;
  twin:  no violation of the rule, no error at all, exit status 0, and the
         rule was evaluated (checked at least once).
Prints "ok - ..." / "FAIL - ...: why" lines for run.sh to count.
"""
import json
import os
import subprocess
import sys


def run_check(rocetest, case, out_json):
    cmd = [rocetest, "check", "--json", out_json] + case["args"] + [case["file"]]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    doc, err = None, None
    try:
        with open(out_json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        err = f"no JSON report ({e}); exit {r.returncode}; stderr: {r.stderr.strip()[-300:]}"
    return r, doc, err


def describe(v):
    return f"{v['rule']} ({v['severity']}) at frame {v['frame']}: {v['message']}"


def check_break(case, r, doc, severity):
    probs = []
    rule, frames, also = case["rule"], case["frames"], case["also"]
    viols = doc["violations"]
    for want in [rule] + also:
        got = sorted({v["frame"] for v in viols if v["rule"] == want})
        for f in frames:
            if f not in got:
                probs.append(f"{want} not reported at frame {f} (reported at: {got or 'none'})")
    for v in viols:
        if v["severity"] == "error" and v["rule"] not in [rule] + also:
            probs.append(f"another error: {describe(v)}")
        elif v["rule"] in [rule] + also and v["frame"] not in frames:
            probs.append(f"also at another frame: {describe(v)}")
    want_rc = 1 if severity == "error" or also else 0
    if r.returncode != want_rc:
        probs.append(f"exit status {r.returncode}, expected {want_rc}")
    return probs


def check_twin(case, r, doc):
    probs = []
    rule = case["rule"]
    for v in doc["violations"]:
        if v["rule"] == rule or v["severity"] == "error":
            probs.append(describe(v))
    row = next((x for x in doc["rules"] if x["id"] == rule), None)
    if row is None:
        probs.append(f"{rule} missing from the JSON rules")
    elif case.get("evaluated", True) and row["checked"] == 0:
        probs.append(f"{rule} was never evaluated (checked 0, not_evaluated {row['not_evaluated']}): the near miss "
                     "proves nothing")
    if r.returncode != 0:
        probs.append(f"exit status {r.returncode}, expected 0")
    return probs


def main(argv):
    rocetest, work = argv[1], argv[2]
    with open(os.path.join(work, "manifest.json")) as f:
        cases = json.load(f)
    failed = 0
    for case in cases:
        out_json = os.path.join(work, case["name"] + ".json")
        r, doc, err = run_check(rocetest, case, out_json)
        args = " ".join(case["args"])
        if case["kind"] == "break":
            where = ", ".join(str(f) for f in case["frames"])
            name = f"check rules: {case['name']}{' ' + args if args else ''}: {case['rule']} at frame {where}"
            if case["also"]:
                name += f" (with {', '.join(case['also'])})"
        else:
            name = f"check rules: {case['name']}{' ' + args if args else ''}: no {case['rule']}, no error"
        if err:
            probs = [err]
        else:
            severity = next((x["severity"] for x in doc["rules"] if x["id"] == case["rule"]), "error")
            probs = check_break(case, r, doc, severity) if case["kind"] == "break" else check_twin(case, r, doc)
        if probs:
            failed += 1
            print(f"FAIL - {name}: {' '.join(probs[0].split())}")
            print(f"#   case: {case['why']}")
            for p in probs[1:8]:
                print(f"#   {' '.join(p.split())}")
        else:
            print(f"ok - {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
