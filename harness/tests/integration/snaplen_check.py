# SPDX-License-Identifier: MIT
"""Captures cut by a snap length: no false errors, an exit status that says what was checked.

usage: snaplen_check.py ROCETEST OUTDIR VECTORS_DIR CAPTURE...

Every golden vector (VECTORS_DIR/NAME.pcap, checked with the check_options of
NAME.json) and every CAPTURE is cut with `editcap -s N` for N in 54, 64 and
128 and checked with `rocetest check --json -`; and once more whole, rewritten
as a classic pcap file, whose timestamps keep only microseconds (what
tcpdump writes): timer rules must allow for the truncation, so that pass too
must give no error but the expected ones. A field the snap length cut is
unknown, so the cut capture must give:
  errors       none, except that a negative vector may still report its own
               expected (rule, frame) pairs (a cut may hide them, or not);
  exit status  2 exactly when the capture had RoCE packets and every one of
               them lost part of its BTH to the cut (then the JSON verdict is
               "incomplete"); otherwise 1 if an (expected) error remains,
               else 0.
Which packets keep their whole BTH is computed here from the uncut capture's
bytes (Ethernet, 802.1Q tags, IPv4/IPv6/UDP 4791 or the RoCE v1 GRH), not
asked of rocetest. Prints one "ok - ..." / "FAIL - ..." line per capture and
snap length; a failure names each unexpected error by rule and frame.
"""
import glob
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402
from craft import roce_udp  # noqa: E402

SNAPLENS = (54, 64, 128)
ETHERNET = 1
VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)
BTH_BYTES = 12


def bth_end(frame):
    """Bytes a frame needs for its whole BTH, or None when it is not RoCE."""
    try:
        v2 = roce_udp(frame)
    except (IndexError, struct.error):
        return None
    if v2:
        return v2[0] + 8 + BTH_BYTES
    # RoCE v1: Ethertype 0x8915 after any tags, then the 40-byte GRH.
    off = 12
    while off + 2 <= len(frame) and struct.unpack(">H", frame[off:off + 2])[0] in VLAN_TPIDS:
        off += 4
    if off + 2 <= len(frame) and struct.unpack(">H", frame[off:off + 2])[0] == 0x8915:
        return off + 2 + 40 + BTH_BYTES
    return None


def expect_incomplete(path, snaplen):
    """True when the capture has RoCE packets and the cut leaves none its whole BTH."""
    linktype, _, frames = pcaputil.read_pcap(path)
    if linktype != ETHERNET:
        raise ValueError(f"{path}: link type {linktype}; this test reads Ethernet captures only")
    ends = [bth_end(data) for _, data, _ in frames]
    ends = [e for e in ends if e is not None]
    return bool(ends) and all(e > snaplen for e in ends)


def cases(vectors_dir, captures):
    """(label, path, check options, allowed errors) for every vector and capture."""
    for js in sorted(glob.glob(os.path.join(vectors_dir, "*.json"))):
        with open(js) as f:
            exp = json.load(f)
        allowed = {(v["rule"], v["frame"]) for v in exp["expected_violations"]}
        yield "vector " + os.path.basename(js)[:-5], js[:-5] + ".pcap", exp["check_options"], allowed
    for cap in captures:
        yield "capture " + "/".join(cap.split("/")[-2:]), cap, [], set()


def check_one(rocetest, outdir, label, src, options, allowed, snaplen):
    """snaplen None: the whole capture, with microsecond timestamps."""
    cut = os.path.join(outdir, f"{label.replace('/', '_').replace(' ', '_')}-s{snaplen or 'us'}.pcap")
    rewrite = ["-F", "pcap"] if snaplen is None else ["-F", "nseclibpcap", "-s", str(snaplen)]
    r = subprocess.run(["editcap"] + rewrite + [src, cut], capture_output=True, text=True)
    if r.returncode != 0:
        return [f"editcap failed: {r.stderr.strip()[:200]}"], []
    r = subprocess.run([rocetest, "check", "--json", "-"] + options + [cut], capture_output=True, text=True,
                       timeout=60)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        return [f"no JSON from rocetest check ({e}), exit {r.returncode}: {r.stderr.strip()[:200]}"], []
    errors = [(v["rule"], v["frame"], v["message"]) for v in doc["violations"] if v["severity"] == "error"]
    unexpected = [e for e in errors if (e[0], e[1]) not in allowed]
    incomplete = snaplen is not None and expect_incomplete(src, snaplen)
    want_rc = 2 if incomplete else 1 if errors else 0
    probs = []
    if unexpected:
        rules = {}
        for rule, frame, _ in unexpected:
            rules.setdefault(rule, []).append(frame)
        probs.append("%d unexpected error(s): %s" % (len(unexpected), "; ".join(
            "%s at frame%s %s" % (rule, "s" if len(fr) > 1 else "", ",".join(map(str, fr[:12])) +
                                  (",..." if len(fr) > 12 else "")) for rule, fr in sorted(rules.items()))))
    if doc.get("violations_dropped"):
        probs.append(f"{doc['violations_dropped']} violations not listed")
    if r.returncode != want_rc:
        probs.append(f"exit status {r.returncode}, expected {want_rc}" +
                     (" (every RoCE packet cut before its BTH ends)" if incomplete else ""))
    verdict = doc.get("summary", {}).get("verdict")
    if (verdict == "incomplete") != incomplete:
        probs.append(f"JSON verdict {verdict!r}, expected {'incomplete' if incomplete else 'not incomplete'}")
    return probs, unexpected


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    rocetest, outdir, vectors_dir, captures = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(outdir, exist_ok=True)
    all_cases = list(cases(vectors_dir, captures))
    if not all_cases:
        print(f"FAIL - snap length: no vectors in {vectors_dir} and no captures given")
        return 0
    for snaplen in SNAPLENS + (None,):
        for label, src, options, allowed in all_cases:
            probs, unexpected = check_one(rocetest, outdir, label, src, options, allowed, snaplen)
            name = f"snap length {snaplen}: {label}" if snaplen else f"microsecond timestamps: {label}"
            if probs:
                print(f"FAIL - {name}: " + "; ".join(probs))
                for rule, frame, message in unexpected[:5]:
                    print(f"#   frame {frame}: {rule}: {message}")
            else:
                print(f"ok - {name}: no false error, exit status as " +
                      ("the cut implies" if snaplen else "expected"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
