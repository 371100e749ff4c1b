#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The model's identity, TX underruns and pad bytes in `rocetest run`'s reports.

usage: dut_identity_check.py ROCETEST WORKDIR

Run from the repository's root. Prints "ok - ..." / "FAIL - ..." lines.
  - the model of dut/rtl/ names the SHA-256 of dut/rtl/*.v (concatenated in
    byte order of the names, computed here with hashlib) in its first output
    line, summary.json (build_id), junit.xml and index.html;
  - summary.json has underrun_cycles 0 in every test and in metrics, and each
    test's memory latency and back-pressure, which vary across the suite;
  - the mutant tx-underrun-header-early (make dut-mutants), loaded with
    --sim-lib, names the hash of its own RTL, not dut/rtl/'s, and fails with
    underrun cycles counted per test and in total;
  - the mutant pad-not-zeroed fails --suite messages on PKT-PAD-ZERO (an error
    in device runs), and `rocetest check` of its capture passes by default
    (the catalogue's warning) and fails with --errors PKT-PAD-ZERO.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys

MUTANT = "tx-underrun-header-early"
PAD_MUTANT = "pad-not-zeroed"


def report(ok, name, why=""):
    print(f"ok - {name}" if ok else f"FAIL - {name}: {why}")


def rtl_hash(rtl_dir):
    h = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(rtl_dir, "*.v")), key=os.fsencode):
        with open(path, "rb") as f:
            h.update(f.read())
    return "rtl sha256:" + h.hexdigest()


def run_report(rocetest, workdir, name, args):
    out_dir = os.path.join(workdir, name)
    p = subprocess.run([rocetest, "run", "--dut", "sim", "--report", out_dir] + args,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)
    try:
        with open(os.path.join(out_dir, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        summary = {"error": str(e)}
    pages = ""
    for page in ("index.html", "junit.xml"):
        try:
            with open(os.path.join(out_dir, page), encoding="utf-8") as f:
                pages += f.read()
        except OSError:
            pass
    return p, summary, pages


def cases(summary):
    return [c for s in summary.get("suites", []) for c in s["cases"]]


def check_identity(label, p, summary, pages, want):
    first = p.stdout.splitlines()[0] if p.stdout else ""
    probs = []
    if summary.get("build_id") != want:
        probs.append(f"summary.json build_id {summary.get('build_id')!r}")
    if want not in first:
        probs.append(f"first line {first!r}")
    if pages.count(want) < 2:
        probs.append("index.html or junit.xml does not name it")
    report(not probs, f"{label}: names its RTL as {want[:27]}... in its output, summary.json, "
           "junit.xml and index.html", "; ".join(probs))


def check_clean(rocetest, workdir, main_id):
    p, summary, pages = run_report(rocetest, workdir, "model", ["--suite", "messages"])
    report(p.returncode == 0, "the model of dut/rtl/ passes --suite messages",
           f"exit {p.returncode}: {p.stdout[-400:]}{p.stderr[-400:]}")
    check_identity("the model of dut/rtl/", p, summary, pages, main_id)
    cs = cases(summary)
    bad = [c["name"] for c in cs if c.get("underrun_cycles") != 0 or c.get("underrun_frames") != 0]
    total = summary.get("metrics", {}).get("underrun_cycles")
    report(cs and not bad and total == 0, "summary.json: underrun_cycles 0 in every test and in metrics",
           f"tests {bad}, metrics {total}")
    profiles = {(c["bench"]["mem_latency"], c["bench"]["p_stall"]) for c in cs if "bench" in c}
    report(len(profiles) >= 2 and all("bench" in c for c in cs),
           f"summary.json: each test's memory latency and back-pressure, varied ({sorted(profiles)})",
           f"{len(profiles)} profiles over {len(cs)} tests")


def mutant_so(rocetest, name):
    so = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(rocetest))), "dut", "mutants", name,
                      "libroce_dut_sim.so")
    if not os.path.exists(so):
        report(False, f"mutant {name}", f"its model {so} is not built (make dut-mutants)")
        return None
    return so


def check_pad_mutant(rocetest, workdir):
    so = mutant_so(rocetest, PAD_MUTANT)
    if not so:
        return
    p, summary, _ = run_report(rocetest, workdir, "pad", ["--sim-lib", so, "--suite", "messages"])
    bad = [c for c in cases(summary) if not c["passed"] and "PKT-PAD-ZERO" in (c["failure"] or "")]
    report(p.returncode == 1 and bad, f"mutant {PAD_MUTANT}: --suite messages fails on PKT-PAD-ZERO",
           f"exit {p.returncode}, {len(bad)} tests failing on it")
    if not bad or not bad[0]["pcap"]:
        return
    pcap = os.path.join(workdir, "pad", bad[0]["pcap"])
    runs = [subprocess.run([rocetest, "check"] + extra + [pcap], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120, check=False) for extra in ([], ["--errors", "PKT-PAD-ZERO"])]
    report(runs[0].returncode == 0 and "PKT-PAD-ZERO" in runs[0].stdout and runs[1].returncode == 1,
           "rocetest check of its capture: exit 0 with the warning by default, 1 with --errors PKT-PAD-ZERO",
           f"exits {runs[0].returncode} and {runs[1].returncode}")


def check_mutant(rocetest, workdir, main_id):
    so = mutant_so(rocetest, MUTANT)
    if not so:
        return
    p, summary, pages = run_report(rocetest, workdir, "mutant", ["--sim-lib", so, "--suite", "throughput"])
    want = rtl_hash(os.path.join(os.path.dirname(so), "rtl"))
    report(want != main_id, f"mutant {MUTANT}: its RTL hashes differently from dut/rtl/'s")
    check_identity(f"mutant {MUTANT} (--sim-lib)", p, summary, pages, want)
    cs = cases(summary)
    under = [c for c in cs if c.get("underrun_cycles", 0) > 0]
    total = summary.get("metrics", {}).get("underrun_cycles", 0)
    probs = [] if p.returncode == 1 else [f"exit {p.returncode}"]
    if not under or total != sum(c["underrun_cycles"] for c in cs):
        probs.append(f"{len(under)} tests with underruns, metrics total {total}")
    probs += [f"{c['name']} passed" for c in under if c["passed"] or "TX underrun" not in (c["failure"] or "")]
    report(not probs, f"mutant {MUTANT}: --suite throughput fails, underrun cycles per test and in total "
           f"({total} cycles in {len(under)} tests)", "; ".join(probs))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    rocetest, workdir = argv[1], argv[2]
    os.makedirs(workdir, exist_ok=True)
    main_id = rtl_hash("dut/rtl")
    check_clean(rocetest, workdir, main_id)
    check_mutant(rocetest, workdir, main_id)
    check_pad_mutant(rocetest, workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
