# SPDX-License-Identifier: MIT
"""Assertions of hw_veth.sh on what hardware mode produced.

usage: hw_check.py run ROCETEST IFACE_DIR SIM_DIR IFACE
       hw_check.py mutant TABLE NAME

run: IFACE_DIR is the --report of `rocetest run --dut iface:IFACE`, SIM_DIR
that of the same suites and seed against --dut sim.
  summary   strict JSON, the board named "... on IFACE", failures 0, the
            same tests as the simulation; every test passed, its WRs all
            completed, with the simulation's WRs, completions and payload
            bytes (the same seed gives the same work); the suites without
            timers or faults (messages, cm, pmtu) with the same frames each
            way as in simulation.
  captures  each test's capture (a live one: kernel timestamps, frames as
            the wire carried them) through run_check.check_pcap: a separate
            `rocetest check` with its checker.args exits 0, every ICRC
            matches zlib.crc32, the frame count is the summary's (less up to
            the frames the link corrupted: those on their way to the board
            are left out), tshark dissects every RoCE frame cleanly.
mutant: prints the suite of mutant NAME of TABLE (dut/mutants/mutants.txt),
then each text its failing run must print, one a line.

Prints "ok - ..." / "FAIL - ...: why" per check.
"""
import concurrent.futures
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_report as cr  # noqa: E402
import run_check  # noqa: E402  (check_pcap, report)
import run_report_check as rrc  # noqa: E402

# Suites whose frames do not depend on time: no timer, no fault, no RNR.
TIMELESS = {"messages", "cm", "pmtu"}


def cases(obj):
    return {(s["name"], c["name"]): c for s in obj["suites"] for c in s["cases"]}


# A board run's summary.json has the live path's totals after "failures".
LIVE_TOP = rrc.TOP[:rrc.TOP.index("suites")] + ["live"] + rrc.TOP[rrc.TOP.index("suites"):]
LIVE_KEYS = ["iface", "frames_from_board", "frames_to_board", "pcap_dropped", "if_dropped", "tstamp", "slowdown",
             "max_lag_ns"]


def live_problems(live, iface, board):
    """The live path's totals: its interface, no capture drops, and frame counts no smaller than the tests'."""
    if list(live) != LIVE_KEYS:
        return [f"live keys {list(live)}, expected {LIVE_KEYS}"]
    probs = []
    if live["iface"] != iface:
        probs.append(f"live.iface {live['iface']!r}, not {iface!r}")
    if live["pcap_dropped"] or live["if_dropped"]:
        probs.append(f"live path dropped {live['pcap_dropped']} + {live['if_dropped']} frames")
    # Every frame of the fault-free suites crossed the live path (ARP and CM between tests add some).
    clean = [c for (suite, _), c in cases(board).items() if suite in TIMELESS]
    to_peer, to_dut = sum(c["frames_to_peer"] for c in clean), sum(c["frames_to_dut"] for c in clean)
    if not clean or live["frames_from_board"] < to_peer or live["frames_to_board"] < to_dut:
        probs.append(f"live path carried {live['frames_from_board']} / {live['frames_to_board']} frames, "
                     f"fewer than the fault-free tests' {to_peer} / {to_dut}")
    if not live["slowdown"] > 1:
        probs.append(f"slowdown {live['slowdown']} for a virtual board")
    return probs


def summary_problems(board, sim, iface):
    probs = []
    if list(board) != LIVE_TOP:
        return [f"top-level keys {list(board)}, expected {LIVE_TOP}"]
    if "live" in sim:
        probs.append("the simulation's summary.json has a live block")
    probs += live_problems(board["live"], iface, board)
    if not board["dut"].endswith(f" on {iface}") or "roce_endpoint" not in board["dut"]:
        probs.append(f"dut is {board['dut']!r}, not the model's name on {iface}")
    if board["failures"] != 0:
        probs.append(f"failures {board['failures']}")
    b, s = cases(board), cases(sim)
    if set(b) != set(s):
        probs.append(f"tests differ from the simulation's: {sorted(set(b) ^ set(s))[:6]}")
    for key in sorted(set(b) & set(s)):
        c, ref = b[key], s[key]
        name = "/".join(key)
        if not c["passed"]:
            probs.append(f"{name}: failed: {c['failure']!r}")
        # The harness's reaction over the wire, in the board's time: measured, and within a tenth of the timers.
        if not 0 < c["reaction_ns"] * 10 <= c["timer_ns"]:
            probs.append(f"{name}: reaction {c['reaction_ns']} ns against a shortest timer of {c['timer_ns']} ns")
        if c["completions"] != c["wrs"]:
            probs.append(f"{name}: {c['completions']} completions for {c['wrs']} WRs")
        same = ["wrs", "completions", "payload_bytes"] + (["frames_to_peer", "frames_to_dut"] if key[0] in TIMELESS else [])
        diff = [f"{k} {c[k]} (simulation {ref[k]})" for k in same if c[k] != ref[k]]
        if diff:
            probs.append(f"{name}: " + ", ".join(diff))
    return probs


def cmd_run(rocetest, board_dir, sim_dir, iface):
    try:
        board = cr.strict_json(os.path.join(board_dir, "summary.json"))
        sim = cr.strict_json(os.path.join(sim_dir, "summary.json"))
    except (OSError, ValueError) as e:
        run_check.report(False, "hw: the reports of both runs", str(e))
        return
    probs = summary_problems(board, sim, iface)
    n = len(cases(board))
    run_check.report(not probs, f"hw: summary.json of the board run: {n} tests like the simulation's, all passed, "
                     "every WR completed, the same work (and frames, where no timer runs) as in simulation",
                     "; ".join(probs[:6]))
    if list(board) != LIVE_TOP:
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        # The link's corruption toward the board leaves frames out of a capture (both directions are counted).
        futs = [ex.submit(run_check.check_pcap, rocetest, board_dir, c, c["link"]["corrupted"])
                for c in cases(board).values()]
        bad, good = [], 0
        for fut in futs:
            try:
                lines, _ = fut.result()
            except Exception as e:  # a bug here must show as a failure, not a traceback
                lines = [(False, "a capture check", f"raised {type(e).__name__}: {e}")]
            for ok, name, why in lines:
                if ok:
                    good += 1
                else:
                    bad.append(f"{name}: {why}")
    run_check.report(not bad, f"hw: every live capture ({len(futs)}) re-checked: rocetest check exit 0, ICRCs by "
                     f"zlib.crc32, frame counts, tshark ({good} checks)", "; ".join(bad[:4]))


def cmd_mutant(table, name):
    sys.path.insert(0, os.path.dirname(os.path.abspath(table)))
    sys.dont_write_bytecode = True      # no __pycache__ in dut/mutants/
    import mutate
    for m in mutate.read_table(table):
        if m.name == name:
            print(m.suite)
            for e in m.expect:
                print(e)
            return 0
    print(f"no mutant {name} in {table}")
    return 1


def main(argv):
    if len(argv) == 6 and argv[1] == "run":
        cmd_run(*argv[2:])
        return 1 if run_check.failed else 0
    if len(argv) == 4 and argv[1] == "mutant":
        return cmd_mutant(*argv[2:])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
