# SPDX-License-Identifier: MIT
"""Cross-checks `rocetest show --json` against tshark, field by field.

usage: tshark_crosscheck.py ROCETEST [--require-icrc-ok] [--label-root DIR] CAPTURE...

For every frame of every capture: the frame is RoCE for rocetest exactly when
tshark dissects it as InfiniBand, and for RoCE frames the BTH and extension
header fields agree. Prints one "ok - ..." or "FAIL - ...: why" line per
capture (and "#" lines with details); run.sh counts them. Exits 1 on any
failure.

Wireshark 4.0 differences, handled explicitly here and not hidden:
  * Wireshark 4.0 names opcode 0x80 "CNP" and shows the RoCEv2 CNP opcode 0x81
    as "Unknown (129)" with its 16 reserved bytes as vendor data. The opcode
    number itself still decodes as 129, so the numeric opcode and all BTH fields
    are compared as usual; rocetest calls 0x81 CNP (wire-facts.md) and 0x80
    UNDEFINED. Only the opcode *name* differs, and names are not compared.
  * Wireshark puts the AtomicETH virtual address and R_Key into the RETH fields
    (infiniband.reth.va / infiniband.reth.r_key); they are compared against
    rocetest's atomic_va / atomic_rkey.
  * Wireshark adds infiniband.immdt twice per packet (the header and the
    value), so every occurrence must be equal, then the value is compared.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

# (tshark field, rocetest JSON keys that may carry it, kind)
BTH_FIELDS = [
    ("infiniband.bth.opcode", ["opcode"], "int"),
    ("infiniband.bth.se", ["se"], "bool"),
    ("infiniband.bth.m", ["migreq"], "bool"),
    ("infiniband.bth.padcnt", ["pad"], "int"),
    ("infiniband.bth.tver", ["tver"], "int"),
    ("infiniband.bth.p_key", ["pkey"], "int"),
    ("infiniband.bth.destqp", ["dest_qp"], "int"),
    ("infiniband.bth.a", ["ack_req"], "bool"),
    ("infiniband.bth.psn", ["psn"], "int"),
]
EXT_FIELDS = [
    ("infiniband.reth.va", ["reth_va", "atomic_va"], "int"),
    ("infiniband.reth.r_key", ["reth_rkey", "atomic_rkey"], "int"),
    ("infiniband.reth.dmalen", ["reth_len"], "int"),
    ("infiniband.aeth.syndrome", ["aeth_syndrome"], "int"),
    ("infiniband.aeth.msn", ["aeth_msn"], "int"),
    ("infiniband.immdt", ["imm"], "hexbytes"),
    ("infiniband.ieth", ["ieth_rkey"], "hexbytes"),
    ("infiniband.deth.q_key", ["deth_qkey"], "int"),
    ("infiniband.deth.srcqp", ["deth_src_qp"], "int"),
    ("infiniband.atomiceth.swapdt", ["atomic_swap_add"], "int"),
    ("infiniband.atomiceth.cmpdt", ["atomic_compare"], "int"),
    ("infiniband.atomicacketh.origremdt", ["atomic_ack_orig"], "int"),
]
ALL_FIELDS = BTH_FIELDS + EXT_FIELDS
TSHARK_FIELDS = ["frame.number", "frame.protocols"] + [f for f, _, _ in ALL_FIELDS]
MAX_MISMATCH_LINES = 15


def tshark_values(raw, kind):
    """One tshark cell -> a single value, or raises ValueError if occurrences disagree."""
    vals = set()
    for v in raw.split(","):
        v = v.strip()
        if kind == "bool":
            # tshark 4.0 prints FT_BOOLEAN as 1/0 with -T fields; older ones print True/False.
            low = v.lower()
            if low in ("1", "true"):
                vals.add(True)
            elif low in ("0", "false"):
                vals.add(False)
            else:
                raise ValueError(f"boolean {v!r}")
        elif kind == "hexbytes":
            vals.add(int(v.replace(":", ""), 16))
        else:
            vals.add(int(v, 0))
    if len(vals) != 1:
        raise ValueError(f"occurrences disagree: {raw!r}")
    return vals.pop()


def run_tshark(path):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    # tshark prints "Running as user root ..." on stderr: stderr is ignored on success.
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"tshark exited {r.returncode}: {r.stderr.strip()[-300:]}")
    rows = {}
    for line in r.stdout.splitlines():
        cells = line.split("\t")
        cells += [""] * (len(TSHARK_FIELDS) - len(cells))
        rows[int(cells[0])] = dict(zip(TSHARK_FIELDS, cells))
    return rows


def run_rocetest(rocetest, path):
    r = subprocess.run([rocetest, "show", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"rocetest show --json exited {r.returncode}: {r.stderr.strip()[-300:]}")
    out = []
    for i, line in enumerate(r.stdout.splitlines(), 1):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise RuntimeError(f"line {i} of show --json is not JSON ({e}): {line[:120]}")
    return out


def compare(rocetest, path, require_icrc_ok):
    """Returns (frames, roce_frames, fields_compared, [problems])."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        ft = ex.submit(run_tshark, path)
        fr = ex.submit(run_rocetest, rocetest, path)
        ts_rows, rt_rows = ft.result(), fr.result()
    problems = []
    if len(ts_rows) != len(rt_rows):
        problems.append(f"tshark sees {len(ts_rows)} frames, rocetest {len(rt_rows)}")
    compared = 0
    roce = 0
    for j in rt_rows:
        n = j.get("frame")
        t = ts_rows.get(n)
        if t is None:
            problems.append(f"frame {n}: not in tshark output")
            continue
        ts_ib = "infiniband" in t["frame.protocols"].split(":")
        rt_ib = j.get("roce") is True
        if ts_ib != rt_ib:
            problems.append(f"frame {n}: tshark InfiniBand={ts_ib} ({t['frame.protocols']}), rocetest "
                            f"roce={j.get('roce')} ({j.get('status', '')}: {j.get('reason', '')})")
            continue
        if not rt_ib:
            continue
        roce += 1
        if require_icrc_ok and j.get("icrc") != "ok":
            problems.append(f"frame {n}: icrc is {j.get('icrc')!r}, expected \"ok\"")
        for field, keys, kind in ALL_FIELDS:
            raw = t[field]
            key = next((k for k in keys if k in j), None)
            if raw == "" and key is None:
                continue
            if raw == "":
                problems.append(f"frame {n}: rocetest has {key}={j[key]}, tshark has no {field}")
                continue
            if key is None:
                problems.append(f"frame {n}: tshark has {field}={raw}, rocetest has none of {keys}")
                continue
            try:
                tv = tshark_values(raw, kind)
            except ValueError as e:
                problems.append(f"frame {n}: cannot read tshark {field}: {e}")
                continue
            rv = j[key]
            if kind == "bool" and not isinstance(rv, bool):
                problems.append(f"frame {n}: rocetest {key} is {rv!r}, not a JSON boolean")
            elif kind != "bool" and (isinstance(rv, bool) or not isinstance(rv, int)):
                problems.append(f"frame {n}: rocetest {key} is {rv!r}, not a JSON integer")
            elif rv != tv:
                problems.append(f"frame {n}: {key}: rocetest {rv} (0x{int(rv):x}), tshark {field} {raw}")
            compared += 1
    return len(rt_rows), roce, compared, problems


def main(argv):
    if len(argv) < 2:
        print("usage: tshark_crosscheck.py ROCETEST [--require-icrc-ok] [--label-root DIR] CAPTURE...",
              file=sys.stderr)
        return 2
    rocetest = argv[1]
    args = argv[2:]
    require_icrc_ok = False
    root = None
    while args and args[0].startswith("--"):
        if args[0] == "--require-icrc-ok":
            require_icrc_ok = True
            args = args[1:]
        elif args[0] == "--label-root":
            root, args = args[1], args[2:]
        else:
            print(f"unknown option {args[0]}", file=sys.stderr)
            return 2
    failed = 0
    totals = [0, 0, 0]
    if not args:
        print("FAIL - tshark cross-check: no capture files given")
        return 1

    def label(p):
        return os.path.relpath(p, root) if root else p

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        futures = [(p, ex.submit(compare, rocetest, p, require_icrc_ok)) for p in args]
        for path, fut in futures:
            name = f"tshark cross-check {label(path)}"
            try:
                frames, roce, compared, problems = fut.result()
            except Exception as e:  # a tool failed: that is a test failure, not a skip
                print(f"FAIL - {name}: {' '.join(str(e).split())}")
                failed += 1
                continue
            totals[0] += frames
            totals[1] += roce
            totals[2] += compared
            summary = f"{frames} frames, {roce} RoCE, {compared} fields compared"
            if compared == 0:
                problems.append("zero fields compared")
            if problems:
                failed += 1
                print(f"FAIL - {name}: {len(problems)} mismatches ({summary})")
                for p in problems[:MAX_MISMATCH_LINES]:
                    print(f"#   {p}")
                if len(problems) > MAX_MISMATCH_LINES:
                    print(f"#   ... and {len(problems) - MAX_MISMATCH_LINES} more")
            else:
                print(f"ok - {name} ({summary})")
    print(f"# tshark cross-check total: {len(args)} captures, {totals[0]} frames, {totals[1]} RoCE packets, "
          f"{totals[2]} fields compared")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
