# SPDX-License-Identifier: MIT
"""The reports of `rocetest check` on big and odd captures: thousands of QPs,
and a violation judged long after its packet went by.

usage: check_report_scale.py ROCETEST XSD OUTDIR [QPS]

Writes OUTDIR/many-qps.pcap: QPS (default 4096) RC connections between
10.0.0.1 (QP 0x10000 + i) and 10.0.0.2 (QP 0x20000 + i), each four SEND Only
requests of 64 bytes, every one acknowledged. Built here with struct and
zlib.crc32 (the ICRC as wire-facts.md defines it, vectors_crosscheck.icrc),
with faults in every connection: the first request's ICRC is wrong (and the
responder acknowledges it all the same), every fourth connection's second
request has PadCnt 1 on a 64-byte payload, every eighth connection's third
request comes from UDP source port 4000, below the range RoCEv2 uses (a
warning, PKT-UDP-SPORT). Fewer than 10 000
violations: the report lists them all, so the JUnit can be held to them.

Then `rocetest check --json --junit` and `--junit-per-flow` on it:
  default        validates against XSD; one case per enabled rule; the failing
                 ones are the rules with errors, each listing the JSON's
                 violations in order (the first 100, then "... and N more");
                 the file stays under 64 KiB (its size is printed)
  per flow       validates; one failing case per (flow, rule) with errors;
                 more than QPS cases (the count and size are printed)
The same rules fail in both. Only the default JUnit is kept in OUTDIR
(many-qps.xml); the capture, its JSON and the per-flow JUnit (12 MB) go.

Then OUTDIR/late-judged.pcap: one connection, SEND Only 100..149 each
acknowledged, then 151..350 never answered: PSN 150 is skipped, which the
checker can only judge at the end of the capture, 200 packets after the
packet of PSN 151 was folded into "N ordinary packets". Its reports are
checked as check_report.py checks any (Chromium renders late-judged.png),
and: the violation is listed before the ladder, its frame links to the id of
a row of its own in the ladder, and that row is in the page Chromium renders.

Prints "ok - ..." / "FAIL - ..." per check.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402
import pcaputil  # noqa: E402
import vectors_crosscheck as vc  # noqa: E402

SEND_ONLY, ACK = 0x04, 0x11
DEFAULT_SIZE_LIMIT = 64 * 1024
SPORT, LOW_SPORT = 0xC000, 4000


def frame(src, dst, sport, opcode, dqp, psn, ackreq=False, aeth=None, payload=b"", pad=None):
    """An Ethernet/IPv4/UDP RoCEv2 frame with its ICRC computed here."""
    pad = (-len(payload)) & 3 if pad is None else pad
    bth = struct.pack(">BBHII", opcode, (pad & 3) << 4, 0xFFFF, dqp & 0xFFFFFF,
                      (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))
    body = bth + (struct.pack(">I", aeth[0] << 24 | aeth[1]) if aeth else b"") + payload + bytes(pad)
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(body) + 4, 0)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(body) + 4, 0, 0x4000, 64, 17, 0,
                               bytes(src), bytes(dst)))
    csum = sum(struct.unpack(">10H", ip))
    csum = (csum & 0xFFFF) + (csum >> 16)
    struct.pack_into(">H", ip, 10, ~((csum & 0xFFFF) + (csum >> 16)) & 0xFFFF)
    data = bytes(6) + bytes(6) + b"\x08\x00" + bytes(ip) + udp + body + bytes(4)
    crc, _ = vc.icrc(data, vc.parse_frame(data))
    return data[:-4] + struct.pack("<I", crc)


def build(path, qps):
    a, b = (10, 0, 0, 1), (10, 0, 0, 2)
    frames = []
    for msg in range(4):
        for i in range(qps):
            qa, qb, psn = 0x10000 + i, 0x20000 + i, (i * 977) & 0xFFFFFF
            sport = LOW_SPORT if msg == 2 and i % 8 == 0 else SPORT
            req = frame(a, b, sport, SEND_ONLY, qb, psn + msg, ackreq=True, payload=bytes(range(64)),
                        pad=1 if msg == 1 and i % 4 == 0 else None)
            if msg == 0:
                req = req[:-1] + bytes([req[-1] ^ 1])
            frames.append(req)
            frames.append(frame(b, a, SPORT, ACK, qa, psn + msg, aeth=(0x1F, msg + 1)))
    t0 = 1_700_000_000_000_000_000
    pcaputil.write_pcap(path, [(d, len(d), t0 + k * 100) for k, d in enumerate(frames)], nano=True)
    return len(frames)


def check_many_qps(rocetest, xsd, outdir, work, qps):
    cap = os.path.join(work, "many-qps.pcap")
    paths = {k: os.path.join(work, f"many-qps.{k}") for k in ("json", "flows.xml")}
    paths["xml"] = os.path.join(outdir, "many-qps.xml")
    n = build(cap, qps)
    run = subprocess.run([rocetest, "check", "-q", "--json", paths["json"], "--junit", paths["xml"], cap],
                         capture_output=True, text=True, timeout=300)
    obj = cr.strict_json(paths["json"]) if run.returncode == 1 else None
    probs = [f"exit {run.returncode}: {run.stderr[-300:]}"] if obj is None else cr.file_problems(obj)
    if obj and not probs:
        if len(obj["flows"]) != qps or obj["violations_dropped"]:
            probs.append(f"{len(obj['flows'])} flows, {obj['violations_dropped']} violations not listed")
        for rule, want in (("PKT-ICRC", qps), ("PKT-PAD", (qps + 3) // 4), ("PKT-UDP-SPORT", (qps + 7) // 8)):
            got = sum(1 for v in obj["violations"] if v["rule"] == rule)
            if got != want:
                probs.append(f"{got} {rule} violations, {want} made")
    cr.report(not probs, f"report scale: {qps} QPs, {n} frames: exit 1, every flow and violation in the JSON",
              "; ".join(probs[:4]))
    if probs:
        return
    size = os.path.getsize(paths["xml"])
    probs = cr.junit_problems(paths["xml"], xsd, [obj])
    if size > DEFAULT_SIZE_LIMIT:
        probs.append(f"{size} bytes, over {DEFAULT_SIZE_LIMIT}")
    failing = {v["rule"] for v in obj["violations"] if v["severity"] == "error"}
    cr.report(not probs, f"report scale: --junit: {size} bytes, {len(obj['rules'])} cases (one per rule), "
              f"{len(failing)} failing, each listing its violations", "; ".join(probs[:4]))

    run = subprocess.run([rocetest, "check", "-q", "--junit-per-flow", "--junit", paths["flows.xml"], cap],
                         capture_output=True, text=True, timeout=300)
    probs = [f"exit {run.returncode}"] if run.returncode != 1 else \
        cr.junit_problems(paths["flows.xml"], xsd, [obj], per_flow=True)
    text = open(paths["flows.xml"], encoding="utf-8").read()
    cases = text.count("<testcase ")
    rules = {line.split('type="', 1)[1].split('"', 1)[0] for line in text.splitlines() if "<failure " in line}
    if cases <= qps:
        probs.append(f"{cases} cases for {qps} flows")
    if rules != failing:
        probs.append(f"failing rules {sorted(rules)} per flow, {sorted(failing)} per rule")
    cr.report(not probs, f"report scale: --junit-per-flow: {os.path.getsize(paths['flows.xml'])} bytes, {cases} cases, "
              "one failing per (flow, rule) with errors, the same rules", "; ".join(probs[:4]))
    run = subprocess.run([rocetest, "check", "--junit-per-flow", cap], capture_output=True, text=True, timeout=60)
    cr.report(run.returncode == 2 and "--junit-per-flow" in run.stderr and not run.stdout,
              "report scale: --junit-per-flow without --junit is a usage error (exit 2)",
              f"exit {run.returncode}, stderr {run.stderr[-200:]!r}")


def build_late(path):
    """The connection that skips PSN 150; returns the frame of PSN 151."""
    a, b = (10, 0, 0, 1), (10, 0, 0, 2)
    frames, skip = [], None
    for psn in range(100, 351):
        if psn == 150:
            continue
        frames.append(frame(a, b, SPORT, SEND_ONLY, 0x12, psn, ackreq=True, payload=bytes(64)))
        skip = skip or (len(frames) if psn == 151 else None)
        if psn < 150:
            frames.append(frame(b, a, SPORT, ACK, 0x11, psn, aeth=(0x1F, psn - 99)))
    t0 = 1_700_000_000_000_000_000
    pcaputil.write_pcap(path, [(d, len(d), t0 + k * 1000) for k, d in enumerate(frames)], nano=True)
    return skip


def check_late(rocetest, xsd, outdir):
    cap = os.path.join(outdir, "late-judged.pcap")
    skip = build_late(cap)
    cr.check_reports(rocetest, xsd, outdir, "late-judged", [cap], True)
    stem = os.path.join(outdir, "late-judged")
    probs = []
    obj = cr.strict_json(stem + ".json")
    if [(v["rule"], v["frame"]) for v in obj["violations"]] != [("SEQ-PSN", skip)]:
        probs.append(f"violations {[(v['rule'], v['frame']) for v in obj['violations']]}, expected SEQ-PSN at {skip}")
    html = open(stem + ".html", encoding="utf-8").read()
    link, row = f'<a href="#f1-fr{skip}" ', f'<g id="f1-fr{skip}">'
    if link not in html or html.count(row) != 1:
        probs.append(f"no link {link!r} or not one row {row!r}")
    elif not html.index(link) < html.index('<h3 id="f1-rules">') < html.index('<svg class="ladder"'):
        probs.append("the violations are not listed before the rule table and the ladder")
    elif "in the fold above (judged after it was folded)" not in html[html.index(row):].split("</g>", 1)[0]:
        probs.append("the row is not the folded packet's")
    browser = cr.chromium()
    dom = cr.run_chromium(browser, ["--dump-dom", "file://" + os.path.abspath(stem + ".html")]).stdout if browser \
        else ""
    if f'id="f1-fr{skip}"' not in dom:
        probs.append("the row is not in the DOM Chromium rendered")
    cr.report(not probs, f"report scale: late-judged: SEQ-PSN at frame {skip}, decided at the end, listed first "
              "and linked to a row of its own after the fold", "; ".join(probs[:4]))


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rocetest, xsd, outdir = argv[1:4]
    qps = int(argv[4]) if len(argv) == 5 else 4096
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rocetest-scale-") as work:
        check_many_qps(rocetest, xsd, outdir, work, qps)
    check_late(rocetest, xsd, outdir)
    return 0 if all(cr.results) and cr.results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
