#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CI examples of harness/ci-examples/, parsed and run.

usage: ci_examples_check.py ROCETEST REPO WORKDIR GITHUB_YML GITLAB_YML

For each file: the YAML parses; the shard jobs cover shards 1..N of one N,
each writing its own report directory, which the next stage receives; the
gate job needs the shard jobs, joins every shard with `rocetest report
--merge` and gates the joined run. Then the rocetest commands of the file
run as written, with the CI's variables filled in (build/bin/rocetest is
ROCETEST, reports/baseline is REPO's), in a scratch directory: every command
must succeed and the gate must find nothing changed against the committed
baseline (the shards joined are the unsharded run).

Prints "ok - ..." / "FAIL - ...: why" lines for run.sh to count.
"""
import os
import re
import subprocess
import sys

import yaml


def report(ok, name, why=""):
    print(f"ok - {name}" if ok else f"FAIL - {name}: {why}")
    sys.stdout.flush()


def rocetest_lines(script):
    """The lines of a job's script that run rocetest."""
    return [line for line in script if "rocetest" in line]


def github(path):
    """(N, the shard commands per shard, the gate commands, problems)."""
    doc = yaml.safe_load(open(path))
    jobs = doc["jobs"]
    shard, gate = jobs["shard"], jobs["gate"]
    shards = shard["strategy"]["matrix"]["shard"]
    runs = [s["run"] for s in shard["steps"] if "run" in s]
    run_line = next(r for r in runs if "rocetest run" in r)
    n = int(re.search(r"--shard \$\{\{ matrix\.shard \}\}/(\d+)", run_line).group(1))
    probs = []
    if sorted(shards) != list(range(1, n + 1)):
        probs.append(f"matrix shards {shards}, the run splits in {n}")
    uploads = [s["with"]["path"] for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    if uploads != ["out/shard-${{ matrix.shard }}"] or "--report out/shard-${{ matrix.shard }}" not in run_line:
        probs.append(f"the shard's report directory and its upload differ: {uploads}")
    if gate.get("needs") not in ("shard", ["shard"]):
        probs.append(f"the gate job needs {gate.get('needs')!r}, not the shard jobs")
    gate_runs = rocetest_lines([s["run"] for s in gate["steps"] if "run" in s])
    per_shard = {k: [run_line.replace("${{ matrix.shard }}", str(k))] for k in shards}
    return n, per_shard, gate_runs, probs


def gitlab(path):
    doc = yaml.safe_load(open(path))
    conf, gate = doc["conformance"], doc["gate"]
    n = conf["parallel"]
    lines = rocetest_lines(conf["script"])
    probs = []
    if not any("--shard $CI_NODE_INDEX/$CI_NODE_TOTAL" in line for line in lines):
        probs.append("no rocetest run --shard $CI_NODE_INDEX/$CI_NODE_TOTAL in the conformance job")
    if "out/" not in conf["artifacts"]["paths"] or conf["artifacts"].get("when") != "always":
        probs.append("the conformance jobs do not keep out/ always")
    if gate.get("needs") != ["conformance"] or doc["stages"].index(gate["stage"]) <= doc["stages"].index(conf["stage"]):
        probs.append("the gate job does not come after and need the conformance jobs")
    per_shard = {k: [line.replace("$CI_NODE_INDEX", str(k)).replace("$CI_NODE_TOTAL", str(n)) for line in lines]
                 for k in range(1, n + 1)}
    return n, per_shard, rocetest_lines(gate["script"]), probs


def run_all(rocetest, repo, work, per_shard, gate_runs):
    """Runs the commands as the CI would; the problems, and the gate's output."""
    os.makedirs(work, exist_ok=True)

    def fill(line):
        return line.replace("build/bin/rocetest", rocetest).replace("reports/baseline",
                                                                     os.path.join(repo, "reports/baseline"))

    probs, out = [], ""
    env = dict(os.environ, ROCETEST_NO_PROGRESS="1")
    for k, lines in sorted(per_shard.items()):
        for line in lines:
            p = subprocess.run(["bash", "-c", fill(line)], cwd=work, env=env, capture_output=True, text=True,
                               timeout=600)
            if p.returncode:
                probs.append(f"shard {k}: `{line}` exited {p.returncode}: {p.stderr.strip()[-200:]}")
    for line in gate_runs:
        p = subprocess.run(["bash", "-c", fill(line)], cwd=work, env=env, capture_output=True, text=True,
                           timeout=600)
        out += p.stdout
        if p.returncode:
            probs.append(f"`{line}` exited {p.returncode}: {(p.stdout + p.stderr).strip()[-300:]}")
    return probs, out


def main(argv):
    rocetest, repo, work, gh, gl = argv[1:6]
    for label, path, parse in (("GitHub Actions", gh, github), ("GitLab CI", gl, gitlab)):
        name = f"ci example: {label} ({os.path.basename(path)})"
        try:
            n, per_shard, gate_runs, probs = parse(path)
        except (OSError, yaml.YAMLError, KeyError, TypeError, StopIteration, AttributeError, ValueError) as e:
            report(False, f"{name} parses", f"{type(e).__name__}: {e}")
            continue
        if not any("report --merge" in g for g in gate_runs) or not any("rocetest gate" in g for g in gate_runs):
            probs.append(f"the gate job lacks rocetest report --merge or rocetest gate: {gate_runs}")
        report(not probs, f"{name}: {n} shard jobs cover shards 1..{n}, the gate job joins and gates them",
               "; ".join(probs))
        probs, out = run_all(rocetest, repo, os.path.join(work, label.split()[0].lower()), per_shard, gate_runs)
        if "PASS: nothing changed" not in out:
            probs.append(f"the gate did not find nothing changed: {out.strip()[-300:]}")
        report(not probs, f"{name}: its rocetest commands run as written; the {n} shards joined gate as the "
               "baseline run (nothing changed)", "; ".join(probs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
