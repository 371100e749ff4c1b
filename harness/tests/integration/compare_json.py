# SPDX-License-Identifier: MIT
"""Compares two `rocetest show --json` outputs line by line.

usage: compare_json.py A.ndjson B.ndjson [--ignore KEY,KEY...]

Exits 0 when they hold the same frames with the same keys and values (the
ignored keys aside) and at least one RoCE packet; otherwise prints the first
differences and exits 1.
"""
import json
import sys


def main(argv):
    a_path, b_path = argv[1], argv[2]
    ignore = set()
    if len(argv) > 4 and argv[3] == "--ignore":
        ignore = set(argv[4].split(","))
    with open(a_path) as f:
        a = [json.loads(x) for x in f if x.strip()]
    with open(b_path) as f:
        b = [json.loads(x) for x in f if x.strip()]
    problems = []
    if len(a) != len(b):
        problems.append(f"{len(a)} lines vs {len(b)} lines")
    roce = 0
    for x, y in zip(a, b):
        x = {k: v for k, v in x.items() if k not in ignore}
        y = {k: v for k, v in y.items() if k not in ignore}
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k, "<absent>") != y.get(k, "<absent>"))
            problems.append(f"frame {x.get('frame')}: " + ", ".join(
                f"{k}: {x.get(k, '<absent>')!r} vs {y.get(k, '<absent>')!r}" for k in keys[:4]))
        roce += x.get("roce") is True
    if roce == 0:
        problems.append("no RoCE packet in the output: nothing was compared")
    if problems:
        print(f"{len(problems)} differences; " + "; ".join(problems[:3]))
        return 1
    print(f"{len(a)} frames ({roce} RoCE) identical")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
