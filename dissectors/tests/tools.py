#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Helpers of dissectors/tests/run.sh, each printing "ok - "/"FAIL - " lines.

  tools.py corrupt TSHARK ROCETEST SCRATCH CAPTURE...
      flips one ICRC-covered byte of one frame of each capture: rocetest show
      and the plugin must call exactly that frame's ICRC bad; the copy goes on
      to compare.py (printed path list on the last line, "# corrupted: ...").
  tools.py cookbook TSHARK ROCETEST README CM_PCAP SCRATCH
      every display filter of the README's cookbook, on the capture the table
      here names, selects the frames an independent reading of that capture
      (rocetest show/check JSON, or the raw bytes) says it should.
  tools.py frames2pcap OUTDIR DIR...
      fuzz_parse inputs (byte 0 the enum rt_link, then one frame) from each DIR
      into one pcap per link type in OUTDIR; prints the files written.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "tests",
                                "integration"))
import pcaputil  # noqa: E402

# enum rt_link (rocetest/packet.h) -> pcap link type.
LINKTYPES = [1, 113, 276, 101, 228, 229]
MAX_FUZZ_FRAMES = 20000


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def show(rocetest, capture):
    _, out, _ = run([rocetest, "show", "--json", capture])
    return {o["frame"]: o for o in map(json.loads, out.splitlines())}


def stage(scratch, capture, name=None):
    dst = os.path.join(scratch, name or os.path.basename(capture))
    shutil.copyfile(capture, dst)
    os.chmod(dst, 0o644)
    return dst


def tshark_frames(tshark, capture, args):
    rc, out, err = run([tshark, "-r", capture, "-T", "fields", "-e", "frame.number"] + args)
    if rc != 0:
        raise RuntimeError("tshark exited %d: %s" % (rc, err.strip()[:200]))
    return [int(x) for x in out.split()]


# ---------------------------------------------------------------- corrupt
def corrupt(tshark, rocetest, scratch, captures):
    made = []
    for cap in captures:
        name = "icrc: one flipped byte in %s" % cap
        frames = show(rocetest, cap)
        good = [n for n, f in sorted(frames.items()) if f["roce"] and f["icrc"] == "ok" and f["payload_len"] > 0]
        if not good:
            print("FAIL - %s: no RoCE frame with a payload and a good ICRC to corrupt" % name)
            continue
        k = good[len(good) // 2]
        linktype, snaplen, recs = pcaputil.read_pcap(cap)
        ts, data, wirelen = recs[k - 1]
        data = bytearray(data)
        data[len(data) - 5] ^= 0x01  # the last payload or pad byte, just before the ICRC
        recs[k - 1] = (ts, bytes(data), wirelen)
        out = os.path.join(scratch, "corrupt-" + os.path.basename(cap))
        pcaputil.write_pcap(out, [(d, w, t) for t, d, w in recs], linktype=linktype, snaplen=snaplen, nano=True)
        os.chmod(out, 0o644)
        after = show(rocetest, out)
        bad_show = [n for n, f in after.items() if f.get("icrc") == "bad"]
        rc, fields, err = run([tshark, "-r", out, "-T", "fields", "-e", "frame.number", "-e", "rocetest.icrc.status"])
        status = dict(line.split("\t") for line in fields.splitlines())
        bad_plugin = [int(n) for n, s in status.items() if s == "bad"]
        before = {n: ("good" if f["icrc"] == "ok" else f["icrc"]) if f["roce"] else "" for n, f in frames.items()}
        changed = [n for n in before if n != k and status.get(str(n), None) != before[n]]
        if bad_show != [k]:
            print("FAIL - %s: rocetest show calls frames %s bad, expected only %d" % (name, bad_show, k))
        elif rc != 0 or bad_plugin != [k] or changed:
            print("FAIL - %s: tshark (exit %d) says bad at %s, expected only %d; other frames changed: %s" % (
                name, rc, bad_plugin, k, changed[:5]))
        else:
            print("ok - %s: frame %d bad, the other %d frames as before" % (name, k, len(before) - 1))
        made.append(out)
    print("# corrupted: " + " ".join(made))


# ---------------------------------------------------------------- cookbook
def aeth_type(f):
    return f["aeth_syndrome"] >> 5 if "aeth_syndrome" in f else None


def oracle_violations(rule=None):
    def frames(ctx):
        return {v["frame"] for v in ctx["check"]["violations"] if rule is None or v["rule"] == rule}
    return frames


def oracle_resent(ctx):
    """Requests that go back: a PSN at or behind the highest one sent before the same way to the same QP."""
    top, out = {}, set()
    for n, f in sorted(ctx["show"].items()):
        if not f["roce"] or 0x0D <= f["opcode"] <= 0x12 or f["opcode"] == 0x81:
            continue
        key = (f["src"], f["dst"], f["dest_qp"])
        if key in top and ((f["psn"] - top[key]) & 0xFFFFFF) >= 0x800000 or top.get(key) == f["psn"]:
            out.add(n)
        else:
            top[key] = f["psn"]
    return out


def oracle_show(pred):
    return lambda ctx: {n for n, f in ctx["show"].items() if f["roce"] and pred(f)}


def oracle_cm(pred):
    """CM frames (UDP to 0x4321 or from 0x8765, a 64-byte payload) whose first payload byte passes pred."""
    def frames(ctx):
        out = set()
        for n, (_, d, _) in enumerate(ctx["records"], 1):
            if len(d) == 42 + 64 and d[12:14] == b"\x08\x00" and d[23] == 17 and \
                    (d[36:38] == b"\x43\x21" or d[34:36] == b"\x87\x65"):
                if pred(d[42]):
                    out.add(n)
        return out
    return frames


# The captures each cookbook filter is tried on, and who says which frames it must select.
# "cm" is the CM exchange mkcm builds; the rest are golden vectors (their check_options apply).
COOKBOOK = {
    'rocetest.icrc.status == "bad"': ("cm", oracle_show(lambda f: f["icrc"] == "bad")),
    "rocetest.rule": ("vectors/neg-second-nak.pcap", oracle_violations()),
    'rocetest.rule == "SEQ-PSN"': ("vectors/neg-psn-gap.pcap", oracle_violations("SEQ-PSN")),
    "rocetest.retransmission == 1": ("vectors/nak-go-back-n.pcap", oracle_resent),
    "rocetest.flow == 1 && rocetest.nak": ("vectors/nak-go-back-n.pcap", oracle_show(lambda f: aeth_type(f) in (1, 3))),
    'rocetest.nak == "RNR NAK"': ("vectors/rnr-resend.pcap", oracle_show(lambda f: aeth_type(f) == 1)),
    "rocetest.cnp": ("vectors/cnp.pcap", oracle_show(lambda f: f["opcode"] == 0x81)),
    "rocetest_cm.ack_valid == 0": ("cm", oracle_cm(lambda b0: not b0 & 0x10)),
    "rocetest_cm.ack_type == NAK || rocetest_cm.ack_type == NO_QP": ("cm", oracle_cm(
        lambda b0: b0 & 0x10 and b0 >> 5 in (2, 3))),
}


def cookbook_filters(readme):
    """The backquoted filters of the table between <!-- cookbook --> and <!-- /cookbook -->."""
    text = open(readme).read()
    m = re.search(r"<!-- cookbook -->(.*?)<!-- /cookbook -->", text, re.S)
    if not m:
        return None
    filters = []
    for line in m.group(1).splitlines():
        cells = line.replace("\\|", "\0").split("|")  # "\|" is a | inside a cell
        if len(cells) > 3:
            filters += [f.replace("\0", "|") for f in re.findall(r"`([^`]+)`", cells[2])]
    return filters


def cookbook(tshark, rocetest, readme, cm_pcap, scratch):
    filters = cookbook_filters(readme)
    if not filters:
        print("FAIL - cookbook: %s has no <!-- cookbook --> table of filters" % readme)
        return
    for f in filters:
        name = "cookbook: %s" % f
        if f not in COOKBOOK:
            print("FAIL - %s: the README's filter has no capture and oracle in tools.py COOKBOOK" % name)
            continue
        cap, oracle = COOKBOOK[f]
        path = cm_pcap if cap == "cm" else cap
        meta = os.path.splitext(path)[0] + ".json"
        opts = json.load(open(meta)).get("check_options", []) if os.path.exists(meta) else []
        report = os.path.join(scratch, "cookbook.json")
        run([rocetest, "check", "--quiet", "--max-report", "100000", "--json", report] + opts + [path])
        ctx = {"show": show(rocetest, path), "check": json.load(open(report)), "records": pcaputil.read_pcap(path)[2]}
        prefs = []
        keys = {"--pmtu": "pmtu", "--timeout-us": "timeout_us", "--retry-cnt": "retry_cnt", "--rnr-retry": "rnr_retry"}
        for o, v in zip(opts[::2], opts[1::2]):
            prefs += ["-o", "rocetest.%s:%s" % (keys[o], v)]
        try:
            got = tshark_frames(tshark, stage(scratch, path, "cookbook.pcap"), ["-2", "-Y", f] + prefs)
        except RuntimeError as e:
            print("FAIL - %s: %s" % (name, e))
            continue
        want = sorted(oracle(ctx))
        if got == want and want:
            print("ok - %s: frames %s of %s" % (name, ",".join(map(str, got)), cap))
        else:
            print("FAIL - %s: selects %s of %s, expected %s" % (name, got, cap, want))
    missing = sorted(set(COOKBOOK) - set(filters))
    if missing:
        print("FAIL - cookbook: filters tested here but gone from the README: %s" % missing)


# ---------------------------------------------------------------- fuzz inputs
def frames2pcap(outdir, dirs):
    by_link = collections.defaultdict(list)
    for d in dirs:
        for name in sorted(os.listdir(d)):
            blob = open(os.path.join(d, name), "rb").read()
            if len(blob) >= 2 and blob[0] < len(LINKTYPES) and len(by_link[blob[0]]) < MAX_FUZZ_FRAMES:
                by_link[blob[0]].append(blob[1:65536])
    for link, frames in sorted(by_link.items()):
        out = os.path.join(outdir, "frames-link%d.pcap" % link)
        pcaputil.write_pcap(out, frames, linktype=LINKTYPES[link])
        os.chmod(out, 0o644)
        print("%s %d" % (out, len(frames)))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "corrupt":
        corrupt(args[0], args[1], args[2], args[3:])
    elif cmd == "cookbook":
        cookbook(*args)
    elif cmd == "frames2pcap":
        frames2pcap(args[0], args[1:])
    else:
        sys.exit("tools.py: unknown command %s" % cmd)


if __name__ == "__main__":
    main()
