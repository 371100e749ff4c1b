# SPDX-License-Identifier: MIT
"""Verifies every warning of a `rocetest check --json` report against the capture itself.

usage: check_warnings.py REPORT.json CAPTURE

A warning must name a real property of the capture. For each warning in the
report, the frame it names is decoded here independently (scapy for the
IP and UDP headers, raw bytes for the BTH bits) and the property is
checked:
  PKT-UDP-SPORT  the UDP source port is below 0xC000
  PKT-IP-DF      IPv4 with the DF bit clear
  PKT-RESERVED   a reserved BTH bit set, FECN set, or BECN set on a non-CNP
  REQ-ACKREQ     a SEND/WRITE Last or Only (RC or UC) with AckReq clear
A warning of any other rule fails: its property is not verified here.
Prints one line per unverified warning and exits 1 if there is any; with
none, prints how many warnings were verified, by rule, and exits 0.
"""
import collections
import json
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import craft  # noqa: E402
import pcaputil  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, UDP, Ether  # noqa: E402

CNP = 0x81
# SEND Last, Last with Immediate, Only, Only with Immediate; WRITE Last, Last with
# Immediate, Only, Only with Immediate; SEND Last/Only with Invalidate (RC only).
LAST_ONLY = {0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0A, 0x0B, 0x16, 0x17}
UC_LAST_ONLY = {0x20 | op for op in LAST_ONLY if op < 0x0C}


def decode(frame):
    """(scapy packet, BTH offset in the frame) of an Ethernet frame holding RoCEv2, else (packet, None)."""
    pkt = Ether(frame)
    r = craft.roce_udp(frame)  # the UDP header's offset, found from the raw bytes (VLAN tags, IP options)
    if UDP not in pkt or r is None:
        return pkt, None
    return pkt, r[0] + 8


def verify(rule, frame):
    """None when the warning's property holds in the frame's bytes, else why not."""
    pkt, bth_off = decode(frame)
    if bth_off is None:
        return "the frame is not RoCEv2 (UDP port 4791)"
    bth = frame[bth_off:bth_off + 12]
    if len(bth) < 12:
        return "the frame ends inside the BTH"
    opcode, ackreq = bth[0], bool(bth[8] & 0x80)
    if rule == "PKT-UDP-SPORT":
        sport = pkt[UDP].sport
        return None if sport < 0xC000 else f"UDP source port 0x{sport:04x} is in 0xC000-0xFFFF"
    if rule == "PKT-IP-DF":
        if IP not in pkt:
            return "not IPv4: IPv6 has no DF bit"
        return None if not (int(pkt[IP].flags) & 0x2) else "the DF bit is set"
    if rule == "PKT-RESERVED":
        fecn, becn, resv6, resv7 = bth[4] & 0x80, bth[4] & 0x40, bth[4] & 0x3F, bth[8] & 0x7F
        if resv6 or resv7 or fecn or (becn and opcode != CNP):
            return None
        return f"BTH byte 4 0x{bth[4]:02x} and byte 8 0x{bth[8]:02x}: no reserved bit, FECN or stray BECN set"
    if rule == "REQ-ACKREQ":
        if opcode not in LAST_ONLY and opcode not in UC_LAST_ONLY:
            return f"opcode 0x{opcode:02x} is not a SEND/WRITE Last or Only"
        return None if not ackreq else "AckReq is set"
    return "no independent check of this rule's property exists (check_warnings.py): not verified"


def main(argv):
    report, capture = argv[1], argv[2]
    with open(report) as f:
        doc = json.load(f)
    linktype, _, frames = pcaputil.read_pcap(capture)
    warnings = [v for v in doc["violations"] if v["severity"] == "warning"]
    if doc.get("violations_dropped"):
        print(f"{doc['violations_dropped']} violations were not kept in the report: they cannot be verified")
        return 1
    bad, verified = 0, collections.Counter()
    for v in warnings:
        n = v["frame"]
        if linktype != 1:
            why = f"link type {linktype}: only Ethernet captures are decoded here"
        elif not 1 <= n <= len(frames):
            why = f"the capture has {len(frames)} frames"
        else:
            why = verify(v["rule"], frames[n - 1][1])
        if why:
            bad += 1
            print(f"frame {n}: {v['rule']} ({v['message']}): {why}")
        else:
            verified[v["rule"]] += 1
    if bad:
        return 1
    print(", ".join(f"{n} {r}" for r, n in sorted(verified.items())) or "no warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
