#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds the RTL of one mutant of the FPGA endpoint (dut/mutants/mutants.txt).

usage: mutate.py TABLE NAME SRC_DIR OUT_DIR

Copies every SRC_DIR/*.v to OUT_DIR (and removes other .v files there), then
applies NAME's replacements. Each original text must occur exactly once in
its file, else this fails naming the table line: an RTL edit must not
silently disable a mutant. A file is rewritten only when its content changes,
so make rebuilds only the mutants whose RTL did. The mutation must change the
RTL. Exit status 0 done, 1 an error (printed on stderr).

As a module (run_check.py): read_table(path) -> [Mutant].
"""
import glob
import os
import sys

KEYS = ("mutant", "what", "file", "find", "replace", "suite", "expect")


class Mutant:
    def __init__(self, name, line):
        self.name = name
        self.line = line        # where its "mutant" line is
        self.what = ""
        self.suite = None
        self.expect = []        # substrings of the failing run's output, all required
        self.edits = []         # [file, find, replace, line of find]


class TableError(Exception):
    pass


def read_table(path):
    """The mutants of the table, in order; TableError on a malformed table."""
    mutants, cur = [], None
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, val = line.partition(" ")
            val = val.strip()
            where = f"{path}:{ln}"
            if key not in KEYS:
                raise TableError(f"{where}: unknown key '{key}' (keys: {', '.join(KEYS)})")
            if not val:
                raise TableError(f"{where}: '{key}' without a value")
            if key == "mutant":
                if any(m.name == val for m in mutants):
                    raise TableError(f"{where}: mutant '{val}' defined twice")
                if not val.replace("-", "").isalnum():
                    raise TableError(f"{where}: mutant name '{val}': letters, digits and '-' only")
                cur = Mutant(val, ln)
                mutants.append(cur)
                continue
            if cur is None:
                raise TableError(f"{where}: '{key}' before the first 'mutant' line")
            if key == "what":
                cur.what = (cur.what + " " + val).strip()
            elif key == "suite":
                cur.suite = val
            elif key == "expect":
                cur.expect.append(val)
            elif key == "file":
                cur.edits.append([val, None, None, ln])
            elif key == "find":
                if not cur.edits or cur.edits[-1][1] is not None:
                    raise TableError(f"{where}: 'find' without a 'file' line before it")
                cur.edits[-1][1], cur.edits[-1][3] = val, ln
            elif key == "replace":
                if not cur.edits or cur.edits[-1][1] is None or cur.edits[-1][2] is not None:
                    raise TableError(f"{where}: 'replace' without a 'find' line before it")
                cur.edits[-1][2] = val
    for m in mutants:
        where = f"{path}:{m.line}: mutant {m.name}"
        if not m.edits:
            raise TableError(f"{where}: no file/find/replace")
        if any(e[1] is None or e[2] is None for e in m.edits):
            raise TableError(f"{where}: a 'file' without its 'find' and 'replace'")
        if any(e[1] == e[2] for e in m.edits):
            raise TableError(f"{where}: a replacement equal to its original text")
        if not m.suite or not m.expect or not m.what:
            raise TableError(f"{where}: needs 'what', 'suite' and 'expect'")
    return mutants


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 5:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    table, name, src, out = argv[1:]
    try:
        mutants = read_table(table)
    except (OSError, TableError) as e:
        print(f"mutate.py: {e}", file=sys.stderr)
        return 1
    m = next((m for m in mutants if m.name == name), None)
    if m is None:
        print(f"mutate.py: {table}: no mutant '{name}'", file=sys.stderr)
        return 1
    files = {}
    for p in sorted(glob.glob(os.path.join(src, "*.v"))):
        with open(p, encoding="utf-8") as f:
            files[os.path.basename(p)] = f.read()
    for fname, find, repl, ln in m.edits:
        where = f"{table}:{ln}: mutant {name}"
        if fname not in files:
            print(f"mutate.py: {where}: {src}/{fname} does not exist: update the table to the RTL", file=sys.stderr)
            return 1
        n = files[fname].count(find)
        if n != 1:
            print(f"mutate.py: {where}: the original text occurs {n} times in {src}/{fname}, not exactly once: "
                  f"update the table to the RTL\n    find: {find}", file=sys.stderr)
            return 1
        files[fname] = files[fname].replace(find, repl)
    os.makedirs(out, exist_ok=True)
    for p in glob.glob(os.path.join(out, "*.v")):
        if os.path.basename(p) not in files:
            os.unlink(p)
    for fname, text in files.items():
        write_if_changed(os.path.join(out, fname), text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
