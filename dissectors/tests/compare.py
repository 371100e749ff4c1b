#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The plugin's fields against `rocetest show --json` and `rocetest check --json`, frame by frame.

usage: compare.py TSHARK ROCETEST SCRATCH CAPTURE[@--OPTION=VALUE,...]...

TSHARK runs tshark with the plugin loaded (run.sh writes it). The options
after @, or for a capture NAME.pcap with a NAME.json beside it (a golden
vector) its check_options, go to both rocetest check and the plugin's
preferences. Per capture, one
"ok - " or "FAIL - " line (the format run.sh's run_tap counts):

  - rocetest.icrc.status on exactly the frames show calls RoCE, good/bad/
    unverified where show says ok/bad/unverified; rocetest.icrc.expected on the
    bad ones only, the value check's PKT-ICRC message computed (bytes in wire
    order);
  - tshark -2: rocetest.rule at each frame exactly the violations check lists
    there, and the frame's rocetest.flow the violation's flow;
  - single pass: every PKT rule at its frame, nothing the second pass lacks;
  - per flow: packets, first and last frame, retransmissions, NAKs and RNR
    NAKs counted from the fields equal check's flow record, and each frame's
    rocetest.side names the endpoint (IP) that sent it;
  - rocetest.rel_psn: the PSN minus the first PSN of its stream, computed
    here from show's PSNs and opcodes.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

FIELDS = ["frame.number", "rocetest.icrc.status", "rocetest.icrc.expected", "rocetest.flow", "rocetest.side",
          "rocetest.rel_psn", "rocetest.retransmission", "rocetest.nak", "rocetest.rule"]
ICRC_WORD = {"ok": "good", "bad": "bad", "unverified": "unverified"}
# tshark -o name:value for each `rocetest check` option.
PREFS = {"--pmtu": "rocetest.pmtu", "--timeout-us": "rocetest.timeout_us", "--retry-cnt": "rocetest.retry_cnt",
         "--rnr-retry": "rocetest.rnr_retry", "--rules": "rocetest.rules", "--skip": "rocetest.skip"}


def check_options(capture):
    """PATH@--opt=value,... gives the options; else a golden vector's JSON does; else none."""
    if "@" in capture:
        path, opts = capture.split("@", 1)
        return path, [x for o in opts.split(",") if o for x in o.split("=", 1)]
    meta = os.path.splitext(capture)[0] + ".json"
    if not os.path.exists(meta):
        return capture, []
    return capture, json.load(open(meta)).get("check_options", [])


def tshark_prefs(opts):
    out = []
    for opt, value in zip(opts[::2], opts[1::2]):
        out += ["-o", "%s:%s" % (PREFS[opt], value)]
    return out


def tshark_fields(tshark, capture, prefs, two_pass):
    cmd = [tshark, "-r", capture, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|"] + prefs
    for f in FIELDS:
        cmd += ["-e", f]
    if two_pass:
        cmd.insert(1, "-2")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("tshark exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
    # Wireshark's own dissectors may complain (RPCoRDMA does on some RoCE payloads); ours must not.
    ours = [l for l in r.stderr.splitlines() if re.search(r"protocol rocetest|rocetest\.so|rocetest:", l)]
    if ours:
        raise RuntimeError("tshark said: %s" % " ".join(ours)[:300])
    rows = {}
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        row = dict(zip(FIELDS, cols))
        row["rules"] = [x for x in row["rocetest.rule"].split("|") if x]
        rows[int(row["frame.number"])] = row
    return rows


def rocetest_show(rocetest, capture):
    r = subprocess.run([rocetest, "show", "--json", capture], capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 2) or not r.stdout:
        raise RuntimeError("rocetest show exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
    return {o["frame"]: o for o in map(json.loads, r.stdout.splitlines())}


def rocetest_check(rocetest, capture, opts, out):
    r = subprocess.run([rocetest, "check", "--quiet", "--max-report", "100000000", "--json", out] + opts + [capture],
                       capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 1, 2) or not os.path.exists(out):
        raise RuntimeError("rocetest check exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
    report = json.load(open(out))
    if report.get("violations_dropped"):
        raise RuntimeError("rocetest check dropped %d violations: cannot compare" % report["violations_dropped"])
    return report


def is_response(opcode):
    return opcode >> 5 == 0 and 0x0D <= opcode <= 0x12


def compare_icrc(show, rows, report, probs):
    computed = {}
    for v in report["violations"]:
        m = re.search(r"computed 0x([0-9a-f]{8})", v["message"])
        if v["rule"] == "PKT-ICRC" and m:
            computed[v["frame"]] = int.from_bytes(int(m.group(1), 16).to_bytes(4, "little"), "big")
    for n, s in show.items():
        row = rows.get(n)
        if row is None:
            probs.append("frame %d: missing from tshark's output" % n)
            continue
        want = ICRC_WORD[s["icrc"]] if s["roce"] else ""
        if row["rocetest.icrc.status"] != want:
            probs.append("frame %d: rocetest.icrc.status '%s', show says %s" % (n, row["rocetest.icrc.status"],
                                                                             s.get("icrc", "not RoCE")))
        exp = row["rocetest.icrc.expected"]
        want_exp = "0x%08x" % computed[n] if want == "bad" and n in computed else ""
        # A bad ICRC with PKT-ICRC not checked (--skip) has no message to take the value from.
        if want == "bad" and n not in computed and re.fullmatch(r"0x[0-9a-f]{8}", exp):
            want_exp = exp
        if exp != want_exp:
            probs.append("frame %d: rocetest.icrc.expected '%s', check computed '%s'" % (n, exp, want_exp))
    if len(rows) != len(show):
        probs.append("tshark read %d frames, show %d" % (len(rows), len(show)))


def compare_rules(rows, single, report, probs):
    want = collections.Counter((v["frame"], v["rule"]) for v in report["violations"])
    got = collections.Counter((n, r) for n, row in rows.items() for r in row["rules"])
    for key in sorted((want - got).keys()):
        probs.append("frame %d: %s in rocetest check, not in tshark -2" % key)
    for key in sorted((got - want).keys()):
        probs.append("frame %d: %s in tshark -2, not in rocetest check" % key)
    for v in report["violations"]:
        flow = rows.get(v["frame"], {}).get("rocetest.flow", "")
        if v["flow"] and flow != str(v["flow"]):
            probs.append("frame %d: %s of flow %d, but rocetest.flow is '%s'" % (v["frame"], v["rule"], v["flow"], flow))
    once = collections.Counter((n, r) for n, row in single.items() for r in row["rules"])
    for key in sorted((once - got).keys()):
        probs.append("frame %d: %s in the single pass, not in tshark -2" % key)
    for key in sorted(k for k in want if k[1].startswith("PKT-") and k not in once):
        probs.append("frame %d: %s (a PKT rule) missing from the single pass" % key)
    return sum(want.values()), sum(once.values())


def same_ip(a, b):
    """Equal addresses, an IPv4-mapped IPv6 address (RoCE v1's GID) matching its IPv4 one."""
    strip = lambda x: x[7:] if x and x.startswith("::ffff:") and "." in x else x
    return strip(a) == strip(b)


def compare_flows(show, rows, report, probs):
    frames = collections.defaultdict(list)
    for n, row in sorted(rows.items()):
        if row["rocetest.flow"]:
            frames[int(row["rocetest.flow"])].append(n)
    ids = sorted(f["id"] for f in report["flows"])
    if sorted(frames) != ids:
        probs.append("flows in tshark %s, in rocetest check %s" % (sorted(frames), ids))
    for f in report["flows"]:
        mine = frames.get(f["id"], [])
        count = lambda field, value: sum(1 for n in mine if rows[n][field] == value)
        seen = {"packets": len(mine), "first_frame": mine[0] if mine else None, "last_frame": mine[-1] if mine else None,
                "retransmissions": count("rocetest.retransmission", "1"), "naks": count("rocetest.nak", "NAK"),
                "rnr_naks": count("rocetest.nak", "RNR NAK")}
        for key, value in seen.items():
            if f[key] != value:
                probs.append("flow %d: %s %s from the fields, %s in rocetest check" % (f["id"], key, value, f[key]))
        for n in mine:
            side = int(rows[n]["rocetest.side"])
            if not same_ip(show[n].get("src"), f["endpoints"][side]["ip"]):
                probs.append("frame %d: side %d of flow %d is %s, but the frame comes from %s" % (
                    n, side, f["id"], f["endpoints"][side]["ip"], show[n].get("src")))
    return len(ids)


def compare_rel_psn(show, rows, probs):
    first = {}
    for n, row in sorted(rows.items()):
        s = show[n]
        if not row["rocetest.flow"] or s["opcode"] == 0x81:
            if row["rocetest.rel_psn"]:
                probs.append("frame %d: rocetest.rel_psn on a packet without a PSN stream" % n)
            continue
        side = int(row["rocetest.side"])
        stream = (int(row["rocetest.flow"]), 1 - side if is_response(s["opcode"]) else side)
        base = first.setdefault(stream, s["psn"])
        want = str((s["psn"] - base) & 0xFFFFFF)
        if row["rocetest.rel_psn"] != want:
            probs.append("frame %d: rocetest.rel_psn '%s', expected %s" % (n, row["rocetest.rel_psn"], want))


def compare_one(tshark, rocetest, scratch, index, arg):
    capture, opts = check_options(arg)
    staged = os.path.join(scratch, "in-%d%s" % (index, os.path.splitext(capture)[1]))
    shutil.copyfile(capture, staged)
    os.chmod(staged, 0o644)
    prefs = tshark_prefs(opts)
    show = rocetest_show(rocetest, capture)
    report = rocetest_check(rocetest, capture, opts, os.path.join(scratch, "check-%d.json" % index))
    rows = tshark_fields(tshark, staged, prefs, True)
    single = tshark_fields(tshark, staged, prefs, False)
    os.unlink(staged)
    probs = []
    compare_icrc(show, rows, report, probs)
    nviol, nonce = compare_rules(rows, single, report, probs)
    nflows = compare_flows(show, rows, report, probs)
    compare_rel_psn(show, rows, probs)
    what = "%d frames, %d flows, %d violations (%d in the single pass)" % (len(show), nflows, nviol, nonce)
    return probs, what


def main():
    tshark, rocetest, scratch = sys.argv[1:4]
    failed = 0
    for i, capture in enumerate(sys.argv[4:]):
        name = "fields: %s" % (os.path.basename(capture) if capture.startswith(scratch) else capture)
        name = name.replace("@", " with ").replace("=", " ")
        try:
            probs, what = compare_one(tshark, rocetest, scratch, i, capture)
        except (RuntimeError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
            probs, what = ["%s: %s" % (type(e).__name__, e)], ""
        if probs:
            failed += 1
            print("FAIL - %s: %s%s" % (name, "; ".join(probs[:5]), " (+%d more)" % (len(probs) - 5) if len(probs) > 5 else ""))
        else:
            print("ok - %s: %s" % (name, what))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
