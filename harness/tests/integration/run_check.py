# SPDX-License-Identifier: MIT
"""`rocetest run` against the FPGA endpoint's Verilator model, checked from outside.

usage: run_check.py run ROCETEST XSD OUTDIR
       run_check.py mutants ROCETEST TABLE

run: `rocetest run --dut sim --suite quick --seed 7 --report OUTDIR/run`
(rocetest finds the model beside itself, build/dut/w512/), then:
  summary   summary.json is strict JSON with the documented top-level keys
            (run_report_check.TOP), dut named, seed 7, failures 0, and
            exactly the tests `rocetest run --list` marks [quick].
  check     each test's capture, re-checked from the file by a separate
            `rocetest check <its checker.args> PCAP`: exit 0.
  tshark    tshark dissects every RoCE frame (UDP port 4791) as InfiniBand
            and finds nothing malformed and no expert error in any frame,
            but for the two Wireshark 4.0 quirks vectors_crosscheck.py
            documents (a heuristic payload dissector such as RPC-over-RDMA
            guessing at a short SEND, accepted only if the frame is clean
            with those heuristics disabled; the IPv6 UDP checksum 0).
  icrc      every RoCE frame's ICRC recomputed with zlib.crc32
            (vectors_crosscheck.icrc) matches; the capture holds
            frames_to_peer + frames_to_dut frames and its HTML report exists.
  junit     junit.xml validates against XSD (xmllint) and agrees with
            summary.json (run_report_check.junit_problems).
  determinism  `--suite psn --seed 7` again: the captures of the tests both
            runs have are byte-identical (simulated timestamps), and so are
            their summary entries but for the wall-clock time.
mutants: for each mutant of TABLE (dut/mutants/mutants.txt) the unmutated
model passes its suite (exit 0), and the mutant's model, built by `make
dut-mutants` into build/dut/mutants/NAME/ beside ROCETEST's build/bin/,
fails it (exit 1) printing every `expect` text of the table.

Prints "ok - ..." / "FAIL - ...: why" per check ("#" lines are details).
"""
import concurrent.futures
import json
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_report as cr  # noqa: E402  (the strict JSON reader)
import pcaputil  # noqa: E402
import run_report_check as rrc  # noqa: E402  (the documented keys, the JUnit comparison)
import vectors_crosscheck as vc  # noqa: E402  (the ICRC, tshark's rows and its quirks)

SEED = 7
TIMEOUT = 120
failed = 0


def report(ok, name, why=""):
    global failed
    if ok:
        print(f"ok - {name}")
    else:
        print(f"FAIL - {name}: {why}")
        failed += 1


def one_line(text, n=400):
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "..."


def run(cmd):
    """(exit status, stdout, stderr); a timeout or a missing program is exit status None."""
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT,
                           env=dict(os.environ, ROCETEST_NO_PROGRESS="1"))
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {TIMEOUT} s"
    except OSError as e:
        return None, "", str(e)


def listed_tests(rocetest, quick_only):
    """{(suite, name)} of `rocetest run --list` (only the [quick] ones with quick_only)."""
    rc, out, err = run([rocetest, "run", "--list"])
    if rc != 0:
        raise RuntimeError(f"rocetest run --list exited {rc}: {one_line(err)}")
    tests, suite = set(), None
    for line in out.splitlines():
        if line and not line[0].isspace():
            suite = line.strip()
            continue
        m = re.match(r"\s+(\S+)\s+(\[quick\])?", line)
        if m and suite and (m.group(2) or not quick_only):
            tests.add((suite, m.group(1)))
    return tests


# ------------------------------------------------------------------ run
def summary_problems(obj, quick):
    probs = []
    if list(obj) != rrc.TOP:
        probs.append(f"top-level keys {list(obj)}, expected {rrc.TOP}")
        return probs
    if not isinstance(obj["dut"], str) or "roce_endpoint" not in obj["dut"]:
        probs.append(f"dut is {obj['dut']!r}, not the model's name")
    if obj["seed"] != SEED:
        probs.append(f"seed {obj['seed']!r}, expected {SEED}")
    if obj["tests"] != len(quick):
        probs.append(f"tests {obj['tests']!r}, but --list marks {len(quick)} tests [quick]")
    if obj["failures"] != 0:
        probs.append(f"failures {obj['failures']!r}, expected 0")
    if not isinstance(obj["metrics"], dict):
        probs.append(f"metrics is {type(obj['metrics']).__name__}, not an object")
    if not isinstance(obj["suites"], list):
        probs.append(f"suites is {type(obj['suites']).__name__}, not a list")
        return probs
    cases = [(s["name"], c) for s in obj["suites"] for c in s["cases"]]
    got = {(s, c["name"]) for s, c in cases}
    if got != quick:
        probs.append(f"tests run {sorted(got)}, --list's quick ones {sorted(quick)}")
    for s, c in cases:
        if set(c) != rrc.CASE:
            probs.append(f"{s}/{c.get('name')}: keys {sorted(set(c) ^ rrc.CASE)} differ")
        elif not c["passed"] or c["seed"] != SEED:
            probs.append(f"{s}/{c['name']}: passed {c['passed']}, seed {c['seed']}, failure {c['failure']!r}")
    return probs


def roce_frames(frames):
    """[(frame number, data, parsed)] of the RoCEv2 frames: Ethernet (VLAN tags allowed), IP, UDP port 4791.
    The layers are parsed by vectors_crosscheck.parse_frame; a RoCE frame it refuses gives parsed = the error."""
    out = []
    for n, (_, data, _) in enumerate(frames, 1):
        try:
            off, etype = 12, struct.unpack_from(">H", data, 12)[0]
            while etype in (0x8100, 0x88A8):
                off += 4
                etype = struct.unpack_from(">H", data, off)[0]
            off += 2
            if etype == 0x0800 and data[off + 9] == 17:
                udp = off + (data[off] & 0x0F) * 4
            elif etype == 0x86DD and data[off + 6] == 17:
                udp = off + 40
            else:
                continue
            sport, dport = struct.unpack_from(">HH", data, udp)
        except (struct.error, IndexError):
            continue
        if vc.ROCE_PORT not in (sport, dport):
            continue
        try:
            out.append((n, data, vc.parse_frame(data)))
        except (ValueError, struct.error, IndexError) as e:
            out.append((n, data, e))
    return out


def icrc_problems(roce):
    probs = []
    for n, data, p in roce:
        if isinstance(p, Exception):
            probs.append(f"frame {n}: cannot parse: {p}")
            continue
        crc, wire = vc.icrc(data, p)
        if crc != wire:
            probs.append(f"frame {n}: ICRC on the wire 0x{wire:08x}, recomputed 0x{crc:08x}")
    return probs


def tshark_problems(path, roce_numbers):
    """Problems of tshark's dissection of a capture, and detail lines."""
    rows = vc.tshark_rows(path)
    probs, details, heur = [], [], []
    ports = {str(vc.ROCE_PORT)}
    seen_roce = set()
    for r in rows:
        n = int(r["frame.number"])
        stack = r["frame.protocols"].split(":")
        is_roce = bool(ports & set(r["udp.srcport"].split("|") + r["udp.dstport"].split("|")))
        if is_roce:
            seen_roce.add(n)
            if "infiniband" not in stack or r["infiniband.bth.opcode"] == "":
                probs.append(f"frame {n}: UDP port 4791 but not dissected as InfiniBand with a BTH "
                             f"({r['frame.protocols']})")
                continue
        if r["_ws.malformed"]:
            # A heuristic payload dissector anywhere above InfiniBand (eth_over_ib: ethertype:lapbether).
            above = stack[stack.index("infiniband") + 1:] if "infiniband" in stack else []
            if is_roce and any(p in vc.PAYLOAD_HEURISTIC_PROTOS for p in above):
                heur.append(n)
            else:
                probs.append(f"frame {n}: malformed ({r['_ws.malformed']}; {r['frame.protocols']})")
        sev = [int(s, 0) for s in r["_ws.expert.severity"].split("|") if s]
        msgs = [m for m in r["_ws.expert.message"].split("|") if m]
        for s, m in zip(sev, msgs):
            if s < vc.EXPERT_ERROR or m.startswith("Malformed Packet"):
                continue
            if m == "Illegal checksum value (0)" and r["ipv6.src"]:
                continue        # the IPv6 UDP checksum 0 of RoCEv2: see vectors_crosscheck.py
            probs.append(f"frame {n}: tshark expert error {m!r}")
    if seen_roce != set(roce_numbers):
        probs.append(f"tshark sees UDP port 4791 in frames {sorted(seen_roce ^ set(roce_numbers))[:8]} "
                     f"where the pcap reader does not, or the other way round")
    if heur:
        again = vc.tshark_rows(path, vc.heuristics_off_args())
        bad = [r["frame.number"] for r in again if r["_ws.malformed"]]
        if bad:
            probs.append(f"frames {', '.join(bad[:8])}: malformed even with the heuristic payload dissectors disabled")
        else:
            details.append(f"# {len(heur)} frames (first {heur[0]}) malformed only in a heuristic payload dissector "
                           f"({rows[heur[0] - 1]['frame.protocols'].split(':')[-1]}); with the payload heuristics "
                           "disabled none is")
    return probs, details, len(rows)


def check_pcap(rocetest, outdir, case, left_out_max=0):
    """The ok/FAIL lines of one test's capture; up to left_out_max frames of the summary's may be missing
    from it (frames the link corrupted on their way to the device are left out)."""
    lines = []
    name = case["pcap"]
    pcap = os.path.join(outdir, name)
    args = case["checker"]["args"].split()
    rc, out, err = run([rocetest, "check", *args, pcap])
    verdict = next((ln for ln in out.splitlines() if ln.startswith("rocetest check:")), "no verdict line")
    lines.append((rc == 0, f"run: {name}: rocetest check {case['checker']['args']} re-checks it: exit 0",
                  f"exit {rc}: {one_line(verdict)} {one_line(err, 200)}"))
    try:
        linktype, _, frames = pcaputil.read_pcap(pcap)
    except (OSError, ValueError) as e:
        lines.append((False, f"run: {name}: readable", str(e)))
        return lines, []
    roce = roce_frames(frames)
    probs = icrc_problems(roce)
    want = case["frames_to_peer"] + case["frames_to_dut"]
    if linktype != 1:
        probs.append(f"link type {linktype}, not Ethernet")
    if not want - left_out_max <= len(frames) <= want:
        probs.append(f"{len(frames)} frames, summary.json says {case['frames_to_peer']} to the peer + "
                     f"{case['frames_to_dut']} to the device = {want}")
    if not roce:
        probs.append("no RoCE frame")
    html = os.path.join(outdir, case["html"])
    if not os.path.isfile(html) or os.path.getsize(html) == 0:
        probs.append(f"its report {case['html']} is missing or empty")
    lines.append((not probs, f"run: {name}: all {len(roce)} RoCE ICRCs match zlib.crc32, {len(frames)} frames = "
                  f"frames_to_peer + frames_to_dut, {case['html']} written", "; ".join(probs[:5])))
    try:
        tprobs, details, nrows = tshark_problems(pcap, [n for n, _, _ in roce])
        if nrows != len(frames):
            tprobs.append(f"tshark reads {nrows} frames, the pcap reader {len(frames)}")
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        tprobs, details = [f"tshark: {one_line(str(e), 300)}"], []
    lines.append((not tprobs, f"run: {name}: tshark dissects its {len(roce)} RoCE frames as InfiniBand, nothing "
                  "malformed, no expert error", "; ".join(tprobs[:5])))
    return lines, details


def cmd_run(rocetest, xsd, outdir):
    try:
        quick = listed_tests(rocetest, True)
    except RuntimeError as e:
        report(False, "run: rocetest run --list", str(e))
        return
    if not quick:
        report(False, "run: rocetest run --list", "no test is marked [quick]")
        return
    rdir = os.path.join(outdir, "run")
    cmd = [rocetest, "run", "--dut", "sim", "--suite", "quick", "--seed", str(SEED), "--report", rdir]
    rc, out, err = run(cmd)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    fails = [ln for ln in out.splitlines() if ln.startswith("FAIL") or ln.startswith("    ")]
    report(rc == 0, f"run: rocetest run --dut sim --suite quick --seed {SEED} --report DIR exits 0 ({one_line(last)})",
           f"exit {rc}: {one_line(err) or one_line(' | '.join(fails[:6]))}")
    path = os.path.join(rdir, "summary.json")
    try:
        obj = cr.strict_json(path)
        probs = summary_problems(obj, quick)
    except (OSError, ValueError) as e:
        report(False, "run: summary.json", f"cannot read {path}: {e}")
        return
    report(not probs, f"run: summary.json is strict JSON: dut, seed {SEED}, the {len(quick)} [quick] tests of "
           "--list, failures 0, suites, metrics", "; ".join(probs[:6]))
    if list(obj) != rrc.TOP or not isinstance(obj["suites"], list):
        return
    probs = rrc.junit_problems(os.path.join(rdir, "junit.xml"), xsd, obj)
    report(not probs, "run: junit.xml validates against junit.xsd, its tests/failures those of summary.json",
           "; ".join(probs[:6]))

    cases = [c for s in obj["suites"] for c in s["cases"]]
    known = vc.check_known_vectors()
    if known.startswith("FAIL"):
        print(known)
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        futs = [ex.submit(check_pcap, rocetest, rdir, c) for c in cases if c.get("pcap")]
        missing = [c["name"] for c in cases if not c.get("pcap")]
        report(not missing, f"run: every test has a capture ({len(futs)})", f"no pcap for {missing}")
        for fut in futs:
            try:
                lines, details = fut.result()
            except Exception as e:  # a bug here must show as a failure, not a traceback
                lines, details = [(False, "run: a capture check", f"raised {type(e).__name__}: {e}")], []
            for d in details:
                print(d)
            for ok, name, why in lines:
                report(ok, name, why)

    # Determinism: the psn suite again, same seed.
    pdir = os.path.join(outdir, "psn")
    rc, out, err = run([rocetest, "run", "--dut", "sim", "--suite", "psn", "--seed", str(SEED), "--report", pdir])
    probs = [] if rc == 0 else [f"exit {rc}: {one_line(err)}"]
    same = []
    try:
        again = {c["name"]: c for s in cr.strict_json(os.path.join(pdir, "summary.json"))["suites"]
                 for c in s["cases"]}
    except (OSError, ValueError, KeyError) as e:
        again = {}
        probs.append(f"no summary.json of the second run: {e}")
    for c in cases:
        if c["name"] not in again or not c.get("pcap"):
            continue
        a, b = os.path.join(rdir, c["pcap"]), os.path.join(pdir, again[c["name"]]["pcap"])
        try:
            with open(a, "rb") as fa, open(b, "rb") as fb:
                if fa.read() != fb.read():
                    probs.append(f"{c['pcap']} differs")
        except OSError as e:
            probs.append(str(e))
        diff = sorted(k for k in rrc.CASE - {"wall_s"} if c.get(k) != again[c["name"]].get(k))
        if diff:
            probs.append(f"{c['name']}: summary entries differ in {diff}")
        same.append(c["pcap"])
    if not same and again:
        probs.append(f"no test in both runs (first: {[c['name'] for c in cases]}, second: {sorted(again)})")
    report(not probs, f"run: determinism: --suite psn --seed {SEED} again gives byte-identical captures "
           f"({', '.join(same) or 'none'}) and the same summary entries", "; ".join(probs[:5]))


# ------------------------------------------------------------------ mutants
def cmd_mutants(rocetest, table):
    sys.path.insert(0, os.path.dirname(os.path.abspath(table)))
    sys.dont_write_bytecode = True      # no __pycache__ in dut/mutants/
    try:
        import mutate
        mutants = mutate.read_table(table)
    except (ImportError, OSError) as e:
        report(False, "mutants: the table", f"cannot read {table} with its mutate.py: {e}")
        return
    except Exception as e:  # mutate.TableError
        report(False, "mutants: the table", str(e))
        return
    if not mutants:
        report(False, "mutants: the table", f"{table} lists no mutant")
        return
    build = os.path.dirname(os.path.dirname(os.path.abspath(rocetest)))
    base_ok = {}
    for suite in dict.fromkeys(m.suite for m in mutants):
        rc, out, err = run([rocetest, "run", "--dut", "sim", "--suite", suite, "--quiet"])
        last = out.strip().splitlines()[-1] if out.strip() else ""
        base_ok[suite] = rc == 0
        report(rc == 0, f"mutants: the unmutated model passes suite {suite} ({one_line(last)})",
               f"exit {rc}: {one_line(err) or one_line(out, 600)}")
    for m in mutants:
        so = os.path.join(build, "dut", "mutants", m.name, "libroce_dut_sim.so")
        name = f"mutant {m.name}: rocetest run --suite {m.suite} fails (exit 1) printing " + \
            " and ".join(f"'{e}'" for e in m.expect)
        if not os.path.exists(so):
            report(False, name, f"its model {so} is not built (make dut-mutants)")
            continue
        rc, out, err = run([rocetest, "run", "--dut", "sim", "--sim-lib", so, "--suite", m.suite, "--quiet"])
        text = out + err
        probs = [] if rc == 1 else [f"exit {rc}"]
        probs += [f"no '{e}' in the output" for e in m.expect if e not in text]
        if not base_ok[m.suite]:
            probs.append(f"not judged: the unmutated model fails suite {m.suite} too")
        print(f"# mutant {m.name}: {m.what}")
        report(not probs, name, "; ".join(probs) + f" (output: {one_line(err) or one_line(out, 600)})")


def main(argv):
    if len(argv) == 5 and argv[1] == "run":
        cmd_run(*argv[2:])
    elif len(argv) == 4 and argv[1] == "mutants":
        cmd_mutants(*argv[2:])
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
