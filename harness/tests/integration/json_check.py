# SPDX-License-Identifier: MIT
"""Checks that `rocetest show --json` writes valid NDJSON.

usage: json_check.py ROCETEST NAME [--allow-exit N] CAPTURE...

For every capture: every line parses with json.loads as an object; numeric
keys are JSON numbers (not strings, not booleans); flags are JSON booleans;
frame numbers run 1..N in order, N being the number of records in the file.
Prints one "ok - NAME ..." or "FAIL - NAME: why" line.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402

INTS = {"frame", "caplen", "len", "version", "sport", "dport", "opcode", "dest_qp", "psn", "pad", "pkey", "tver",
        "payload_len", "reth_va", "reth_rkey", "reth_len", "aeth_syndrome", "aeth_msn", "imm", "ieth_rkey",
        "deth_qkey", "deth_src_qp", "atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare",
        "atomic_ack_orig"}
BOOLS = {"roce", "ack_req", "se", "migreq", "fecn", "becn", "truncated"}
STRINGS = {"opcode_name", "icrc", "src", "dst", "status", "reason", "field"}
ROCE_REQUIRED = {"frame", "roce", "version", "opcode", "opcode_name", "dest_qp", "psn", "ack_req", "se", "migreq",
                 "pad", "pkey", "payload_len", "icrc"}


def check_file(rocetest, path, allowed_exits):
    problems = []
    r = subprocess.run([rocetest, "show", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode not in allowed_exits:
        problems.append(f"{path}: show --json exited {r.returncode}: {r.stderr.decode(errors='replace')[-200:]}")
    try:
        expected = len(pcaputil.read_pcap(path)[2])
    except ValueError:
        expected = None  # not classic pcap: the frame sequence is still checked
    try:
        text = r.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        return 0, problems + [f"{path}: output is not UTF-8: {e}"]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        problems.append(f"{path}: output does not end with a newline")
    for i, line in enumerate(lines, 1):
        where = f"{os.path.basename(path)} line {i}"
        try:
            j = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: invalid JSON ({e}): {line[:100]}")
            continue
        if not isinstance(j, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        if j.get("frame") != i:
            problems.append(f"{where}: frame {j.get('frame')!r}, expected {i}")
        for k, v in j.items():
            if k in INTS and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                problems.append(f"{where}: {k} = {v!r} is not a non-negative JSON integer")
            elif k in BOOLS and not isinstance(v, bool):
                problems.append(f"{where}: {k} = {v!r} is not a JSON boolean")
            elif k in STRINGS and not isinstance(v, str):
                problems.append(f"{where}: {k} = {v!r} is not a JSON string")
            elif k == "time" and (isinstance(v, bool) or not isinstance(v, (int, float))):
                problems.append(f"{where}: time = {v!r} is not a JSON number")
            elif k not in INTS | BOOLS | STRINGS | {"time"}:
                problems.append(f"{where}: unknown key {k!r}")
        if j.get("roce") is True:
            missing = ROCE_REQUIRED - set(j)
            if missing:
                problems.append(f"{where}: RoCE frame lacks {sorted(missing)}")
        elif "status" not in j or "reason" not in j:
            problems.append(f"{where}: non-RoCE frame without status and reason")
    if expected is not None and len(lines) != expected:
        problems.append(f"{path}: {len(lines)} JSON lines, the file has {expected} frames")
    return len(lines), problems


def main(argv):
    rocetest, name, args = argv[1], argv[2], argv[3:]
    allowed = {0}
    if args[:1] == ["--allow-exit"]:
        allowed.add(int(args[1]))
        args = args[2:]
    if not args:
        print(f"FAIL - {name}: no capture files given")
        return 1
    total, problems = 0, []
    for p in args:
        n, probs = check_file(rocetest, p, allowed)
        total += n
        problems += probs
    if total == 0:
        problems.append("no JSON lines at all")
    problems = [" ".join(p.split()) for p in problems]  # one line each: run.sh reads lines
    if problems:
        print(f"FAIL - {name}: {len(problems)} problems in {total} lines of {len(args)} files; first: {problems[0]}")
        for p in problems[1:10]:
            print(f"#   {p}")
        return 1
    print(f"ok - {name} ({total} lines of {len(args)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
