# SPDX-License-Identifier: MIT
"""Bad ICRCs explained by a rewritten field: the note of `rocetest check`, checked from outside.

usage: icrc_rewrite_check.py ROCETEST OUTDIR CAPTURE...

Each CAPTURE (RoCE v2 over IPv4, every ICRC right) is damaged three ways with
the standard library, the ICRC bytes left as they were:
  sport    every UDP source port set to 0x1234 (as a capture tool or switch
           rewriting it would): each flow side that sent packets must get
           the note "side S: its N bad ICRCs verify if the UDP source port
           was 0xPPPP, not 0x1234: ...", with N and 0xPPPP taken here from
           the uncut capture, and PKT-ICRC must still fail on every packet;
  address  every IPv4 source address set to 192.0.2.1 (IPv4 header checksum
           recomputed, as an anonymiser does): each side with two packets or
           more must get the note naming its real source address;
  corrupt  one payload or header bit flipped per packet, a different one
           each time: no such note at all.
The value each note claims is then written back into every packet of its side
and the ICRCs recomputed with zlib.crc32 (vectors_crosscheck.icrc): all must
verify. Prints "ok - ..." / "FAIL - ..." lines.
"""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402
from vectors_crosscheck import icrc, parse_frame  # noqa: E402

NEW_PORT = 0x1234
NAT_ADDR = bytes([192, 0, 2, 1])
FIELDS = {"UDP source port": ("udp", 0, 2), "IPv4 source address": ("ip", 12, 4),
          "IPv4 destination address": ("ip", 16, 4)}
NOTE = re.compile(r"^side (\d): its (\d+) bad ICRCs? verif(?:y|ies) if the (%s) was (\S+), not (\S+): "
                  r"the capture tool probably rewrote it$" % "|".join(FIELDS))


def roce_v4(data):
    """The layers of a complete RoCE v2 IPv4 frame, or None."""
    try:
        p = parse_frame(data)
    except (ValueError, struct.error):
        return None
    return p if p["version"] == 4 and p["end"] <= len(data) else None


def ipv4_checksum(hdr):
    hdr = bytearray(hdr)
    hdr[10:12] = b"\0\0"
    s = sum(struct.unpack(">%dH" % (len(hdr) // 2), bytes(hdr)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return struct.pack(">H", ~s & 0xFFFF)


def field_at(p, field):
    """(offset, width) of a field in a parsed frame."""
    layer, off, width = FIELDS[field]
    return p["udp_off" if layer == "udp" else "ip_off"] + off, width


def encode(field, value):
    return struct.pack(">H", int(value, 16)) if field == "UDP source port" else bytes(map(int, value.split(".")))


def damage(frames, how):
    """The frames with every RoCE v2 IPv4 packet damaged `how`, and the host the NAT translated."""
    host = next((d[p["ip_off"] + 12:p["ip_off"] + 16] for _, d, _ in frames for p in [roce_v4(d)] if p), None)
    out, n = [], 0
    for ts, data, wirelen in frames:
        p = roce_v4(data)
        if p:
            data = bytearray(data)
            udp, ip = p["udp_off"], p["ip_off"]
            if how == "sport":
                data[udp:udp + 2] = struct.pack(">H", NEW_PORT)
            elif how == "nat":
                for at in (ip + 12, ip + 16):
                    if data[at:at + 4] == host:
                        data[at:at + 4] = NAT_ADDR
                data[ip + 10:ip + 12] = ipv4_checksum(data[ip:udp])
            else:
                pos = udp + 8 + (n * 7) % (p["end"] - 4 - udp - 8)
                if pos == udp + 8 + 4:      # BTH byte 4 is masked: a flip there changes nothing
                    pos += 1
                data[pos] ^= 1 << (n % 8)
            n += 1
            data = bytes(data)
        out.append((ts, data, wirelen))
    return out, host


def side_packets(frames, endpoints, side):
    """The RoCE frames a flow's side sent: from its address to the other side's address and QP."""
    me, peer = endpoints[side], endpoints[1 - side]
    src, dst = bytes(map(int, me["ip"].split("."))), bytes(map(int, peer["ip"].split(".")))
    out = []
    for _, data, _ in frames:
        p = roce_v4(data)
        if p and data[p["ip_off"] + 12:p["ip_off"] + 20] == src + dst and \
                int.from_bytes(data[p["udp_off"] + 13:p["udp_off"] + 16], "big") == peer["qp"]:
            out.append((data, p))
    return out


def check(rocetest, path):
    r = subprocess.run([rocetest, "check", "--json", "-", path], capture_output=True, text=True, timeout=60)
    try:
        return json.loads(r.stdout), r.returncode
    except ValueError:
        return None, r.returncode


def expected_notes(original, damaged_doc, how, host):
    """{(flow id, side): note fields} for every side the note must name."""
    want = {}
    nat, real = ".".join(map(str, NAT_ADDR)), ".".join(map(str, host))
    for flow in damaged_doc["flows"]:
        eps = flow["endpoints"]
        if len(eps) != 2:
            continue
        orig = [dict(e, ip=real if how == "nat" and e["ip"] == nat else e["ip"]) for e in eps]
        # A UD flow is one sender's packets: the other side's own packets are another flow.
        sent = [side_packets(original, orig, side) if eps[side]["packets"] else [] for side in (0, 1)]
        for side in (0, 1):
            if len(sent[side]) != eps[side]["packets"]:
                raise ValueError(f"flow {flow['id']} side {side}: {len(sent[side])} packets found, the JSON says "
                                 f"{eps[side]['packets']}")
        if how == "sport":
            for side in (0, 1):
                ports = {p["sport"] for _, p in sent[side]}
                if len(ports) == 1:
                    want[(flow["id"], side)] = (len(sent[side]), "0x%04x" % ports.pop(), "0x%04x" % NEW_PORT)
            continue
        # The NAT: both directions must give the host's address, over packets of several lengths in one at least.
        lengths = [len({p["end"] - p["ip_off"] for _, p in sent[side]}) for side in (0, 1)]
        if not all(sent) or max(lengths) < 2 or real not in (orig[0]["ip"], orig[1]["ip"]):
            continue
        for side in (0, 1):
            field = "IPv4 source address" if orig[side]["ip"] == real else "IPv4 destination address"
            want[(flow["id"], side)] = (len(sent[side]), field, real, nat)
    return want


def verify_claim(damaged, flow, side, field, value):
    """Writes the claimed value back into the side's packets; True when zlib then verifies every ICRC."""
    sent = side_packets(damaged, flow["endpoints"], side)
    for data, p in sent:
        data = bytearray(data)
        off, width = field_at(p, field)
        data[off:off + width] = encode(field, value)
        computed, wire = icrc(bytes(data), p)
        if computed != wire:
            return False
    return bool(sent)


def one(rocetest, outdir, src, how):
    _, snap, original = pcaputil.read_pcap(src)
    damaged, host = damage(original, how)
    out = os.path.join(outdir, f"{os.path.basename(src)}-{how}.pcap")
    pcaputil.write_pcap(out, [(d, w, t) for t, d, w in damaged], snaplen=snap, nano=True)
    got, rc = check(rocetest, out)
    if got is None:
        return [f"no JSON from rocetest check {out} (exit {rc})"]
    probs = []
    roce = sum(1 for _, d, _ in original if roce_v4(d))
    icrc_errors = sum(1 for v in got["violations"] if v["rule"] == "PKT-ICRC")
    if icrc_errors != roce or rc != 1:
        probs.append(f"{icrc_errors} PKT-ICRC errors of {roce} packets, exit {rc} (expected every one, exit 1)")
    notes = {}
    for flow in got["flows"]:
        for text in flow["notes"]:
            if "bad ICRC" not in text:
                continue
            m = NOTE.match(text)
            if not m:
                probs.append(f"flow {flow['id']}: unexpected ICRC note '{text}'")
                continue
            side = int(m[1])
            field = m[3]
            notes[(flow["id"], side)] = (int(m[2]), m[4], m[5]) if how != "nat" else (int(m[2]), field, m[4], m[5])
            if not verify_claim(damaged, flow, side, field, m[4]):
                probs.append(f"flow {flow['id']} side {side}: zlib does not verify its ICRCs with the {field} {m[4]}")
    try:
        want = {} if how == "corrupt" else expected_notes(original, got, how, host)
    except ValueError as e:
        return probs + [str(e)]
    if notes != want:
        probs.append(f"notes {sorted(notes.items())}, expected {sorted(want.items())}")
    if how != "corrupt" and not want:
        probs.append("no flow side to expect a note for: the capture does not suit this test")
    return probs


DESCRIBE = {"sport": ("every UDP source port set to 0x1234", "each side's note names its port"),
            "nat": ("one host translated by a NAT", "each side's note with packets of several lengths names "
                                                    "the address"),
            "corrupt": ("a bit flipped per packet", "no note")}


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    rocetest, outdir, captures = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    for src in captures:
        for how in ("sport", "nat", "corrupt"):
            probs = one(rocetest, outdir, src, how)
            what, result = DESCRIBE[how]
            name = f"ICRC note: {'/'.join(src.split('/')[-2:])} with {what}"
            if probs:
                print(f"FAIL - {name}: " + "; ".join(probs))
            else:
                print(f"ok - {name}: {result}, zlib agrees with every value claimed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
