# SPDX-License-Identifier: MIT
"""The in-place pcap reader (lib/pcap_records.c) against libpcap (--libpcap).

rocetest reads classic pcap files itself, for speed, and everything else with
libpcap. Both must see the same frames: for every real capture and for
damaged variants (other byte order, nanosecond magic, cut record header, cut
record data, an oversized record, trailing junk), `show --json` and `icrc`
must print the same output and exit the same way with and without --libpcap,
and a damaged file must be reported at the same frame by both.

usage: reader_crosscheck.py ROCETEST WORKDIR CAPTURE...
Prints "ok - ..." / "FAIL - ..." lines.
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402


def run(rocetest, *args):
    p = subprocess.run([rocetest, *args], capture_output=True, timeout=60,
                       env={**os.environ, "ROCETEST_NO_PROGRESS": "1"})
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def frame_named(stderr):
    m = re.search(r"frame (\d+): damaged capture record", stderr)
    return m.group(1) if m else None


def compare(rocetest, path, label, expect_damaged=None):
    """Returns a list of problems (empty when both readers agree)."""
    probs = []
    for cmd in (["show", "--json"], ["icrc"]):
        a = run(rocetest, *cmd, path)
        b = run(rocetest, *cmd, "--libpcap", path)
        if a[0] != b[0]:
            probs.append(f"{cmd[0]}: exit {a[0]} in place, {b[0]} with libpcap")
        if a[1] != b[1]:
            probs.append(f"{cmd[0]}: stdout differs ({len(a[1])} bytes in place, {len(b[1])} with libpcap)")
        fa, fb = frame_named(a[2]), frame_named(b[2])
        if fa != fb:
            probs.append(f"{cmd[0]}: damaged frame {fa} in place, {fb} with libpcap")
        if expect_damaged is not None:
            if a[0] != 2:
                probs.append(f"{cmd[0]}: exit {a[0]} on a damaged file, expected 2")
            if fa != str(expect_damaged):
                probs.append(f"{cmd[0]}: names frame {fa}, expected {expect_damaged} ({a[2].strip()[:160]})")
            if path not in a[2]:
                probs.append(f"{cmd[0]}: the message does not name the file: {a[2].strip()[:160]}")
    return probs


def write_raw(path, endian, magic, linktype, snaplen, records, tail=b""):
    """records: (sec, sub, caplen_field, wirelen, data)."""
    with open(path, "wb") as f:
        f.write(struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype))
        for sec, sub, caplen, wirelen, data in records:
            f.write(struct.pack(endian + "IIII", sec, sub, caplen, wirelen))
            f.write(data)
        f.write(tail)


def main():
    rocetest, work, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    results = []
    for path in captures:
        probs = compare(rocetest, path, path)
        results.append((f"reader: in place and libpcap agree on {os.path.basename(path)}", probs))

    # Variants of one real capture.
    src = next((c for c in captures if c.endswith("rdma_cm.pcap")), captures[0] if captures else None)
    if src is None:
        print("FAIL - reader: damaged variants: no capture to derive them from")
        return 1
    linktype, snaplen, frames = pcaputil.read_pcap(src)
    recs = [(ts // 10**9, (ts % 10**9) // 1000, len(d), w, d) for ts, d, w in frames]
    recs_ns = [(ts // 10**9, ts % 10**9, len(d), w, d) for ts, d, w in frames]
    n = len(recs)
    k = n // 2  # the damaged record, 0-based

    variants = {
        "big-endian": (lambda p: write_raw(p, ">", pcaputil.MAGIC_US, linktype, snaplen, recs), None),
        "nanosecond magic": (lambda p: write_raw(p, "<", pcaputil.MAGIC_NS, linktype, snaplen, recs_ns), None),
        "big-endian nanosecond": (lambda p: write_raw(p, ">", pcaputil.MAGIC_NS, linktype, snaplen, recs_ns), None),
        "record header cut": (lambda p: write_raw(p, "<", pcaputil.MAGIC_US, linktype, snaplen, recs,
                                                  tail=b"\x01\x02\x03\x04\x05"), n + 1),
        "record data cut": (lambda p: write_raw(p, "<", pcaputil.MAGIC_US, linktype, snaplen,
                                                recs[:k] + [recs[k][:4] + (recs[k][4][:10],)]), k + 1),
        "oversized record": (lambda p: write_raw(p, "<", pcaputil.MAGIC_US, linktype, snaplen,
                                                 recs[:k] + [(1, 2, 300000, 300000, b"\0" * 64)]), k + 1),
    }
    for name, (make, damaged) in variants.items():
        path = os.path.join(work, "reader-" + name.replace(" ", "-") + ".pcap")
        make(path)
        probs = compare(rocetest, path, name, expect_damaged=damaged)
        if damaged is None:
            # Same frames as the original, whatever the byte order or precision.
            ref = run(rocetest, "show", "--json", src)[1]
            got = run(rocetest, "show", "--json", path)[1]
            if ref != got:
                probs.append("show --json differs from the original capture's")
        results.append((f"reader: {name} variant of {os.path.basename(src)}", probs))

    failed = 0
    for name, probs in results:
        if probs:
            failed += 1
            print(f"FAIL - {name}: " + "; ".join(probs))
        else:
            print(f"ok - {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
