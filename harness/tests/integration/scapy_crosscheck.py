# SPDX-License-Identifier: MIT
"""Cross-checks rocetest against scapy's independent ICRC implementation.

usage: scapy_crosscheck.py ROCETEST WORKDIR [COUNT] [SEED]

Builds COUNT (default 400) RoCEv2/IPv4 packets with scapy (scapy.contrib.roce
computes the ICRC; the extension headers scapy has no layer for are written
as raw bytes after the BTH), writes WORKDIR/scapy.pcap with scapy's wrpcap,
and checks:
  * rocetest icrc: exit 0, every packet ok;
  * rocetest show --json: reports the fields scapy set;
  * a copy with every ICRC zeroed: rocetest icrc exits 1 with every packet bad;
  * rocetest icrc --fix on that copy restores scapy's ICRC bytes exactly (and,
    since --fix recomputes non-zero UDP checksums, the whole frame).
Prints "ok - ..." / "FAIL - ...: why" lines for run.sh to count.
WORKDIR/scapy.pcap is left for the tshark cross-check of generated packets.
"""
import json
import os
import random
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402

import logging  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Dot1AD, Dot1Q, Ether, IP, IPOption, Raw, UDP, raw, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

DETH, RETH, ATOMIC, AETH, ATOMICACK, IMM, IETH = "DETH", "RETH", "ATOMIC", "AETH", "ATOMICACK", "IMM", "IETH"

# opcode -> (extension headers in wire order, carries payload, First/Middle (payload = PMTU))
OPCODES = {}
for base in (0x00, 0x20):  # RC and UC SEND / WRITE
    OPCODES.update({
        base + 0x00: ([], True, True), base + 0x01: ([], True, True), base + 0x02: ([], True, False),
        base + 0x03: ([IMM], True, False), base + 0x04: ([], True, False), base + 0x05: ([IMM], True, False),
        base + 0x06: ([RETH], True, True), base + 0x07: ([], True, True), base + 0x08: ([], True, False),
        base + 0x09: ([IMM], True, False), base + 0x0A: ([RETH], True, False),
        base + 0x0B: ([RETH, IMM], True, False),
    })
OPCODES.update({
    0x0C: ([RETH], False, False),
    0x0D: ([AETH], True, True), 0x0E: ([], True, True), 0x0F: ([AETH], True, False), 0x10: ([AETH], True, False),
    0x11: ([AETH], False, False), 0x12: ([AETH, ATOMICACK], False, False),
    0x13: ([ATOMIC], False, False), 0x14: ([ATOMIC], False, False),
    0x16: ([IETH], True, False), 0x17: ([IETH], True, False),
    0x64: ([DETH], True, False), 0x65: ([DETH, IMM], True, False),
})
CNP = 0x81
PMTU = 256


def ext_bytes(rng, hdrs, payload_len):
    """Random extension headers as bytes, and the JSON keys rocetest should report for them."""
    b, want = b"", {}
    for h in hdrs:
        if h == DETH:
            qkey, sqp = rng.getrandbits(32), rng.getrandbits(24)
            b += struct.pack(">IB", qkey, 0) + sqp.to_bytes(3, "big")
            want.update(deth_qkey=qkey, deth_src_qp=sqp)
        elif h == RETH:
            va, rkey = rng.getrandbits(64), rng.getrandbits(32)
            dlen = rng.choice([payload_len, rng.getrandbits(32), rng.randint(0, 1 << 20)])
            b += struct.pack(">QII", va, rkey, dlen)
            want.update(reth_va=va, reth_rkey=rkey, reth_len=dlen)
        elif h == ATOMIC:
            va, rkey, swap, cmp_ = rng.getrandbits(64), rng.getrandbits(32), rng.getrandbits(64), rng.getrandbits(64)
            b += struct.pack(">QIQQ", va, rkey, swap, cmp_)
            want.update(atomic_va=va, atomic_rkey=rkey, atomic_swap_add=swap, atomic_compare=cmp_)
        elif h == AETH:
            syn = rng.choice([0x1F, 0x00, 0x05, 0x20 | rng.randint(0, 31), 0x60, 0x61, 0x62, 0x63])
            msn = rng.getrandbits(24)
            b += bytes([syn]) + msn.to_bytes(3, "big")
            want.update(aeth_syndrome=syn, aeth_msn=msn)
        elif h == ATOMICACK:
            orig = rng.getrandbits(64)
            b += struct.pack(">Q", orig)
            want.update(atomic_ack_orig=orig)
        elif h == IMM:
            imm = rng.getrandbits(32)
            b += struct.pack(">I", imm)
            want.update(imm=imm)
        elif h == IETH:
            rk = rng.getrandbits(32)
            b += struct.pack(">I", rk)
            want.update(ieth_rkey=rk)
    return b, want


def build(rng, i):
    """One random packet: (scapy packet, expected show --json fields, trailer bytes after the ICRC)."""
    opcode = CNP if i % 25 == 7 else rng.choice(sorted(OPCODES))
    if opcode == CNP:
        hdrs, has_payload, pmtu = [], False, False
    else:
        hdrs, has_payload, pmtu = OPCODES[opcode]
    if opcode == CNP:
        payload_len = 16  # the CNP's 16 reserved bytes are what rocetest reports as its payload
        payload = bytes(16)
    elif pmtu:
        payload_len = PMTU
        payload = bytes(rng.getrandbits(8) for _ in range(payload_len))
    elif has_payload:
        payload_len = rng.choice([0, 1, 2, 3, 4, rng.randint(0, 300), rng.randint(0, 300), 300])
        payload = bytes(rng.getrandbits(8) for _ in range(payload_len))
    else:
        payload_len, payload = 0, b""
    pad = (-payload_len) & 3
    ext, want = ext_bytes(rng, hdrs, payload_len)
    bth = dict(
        opcode=opcode, solicited=rng.getrandbits(1), migreq=rng.getrandbits(1), padcount=pad,
        pkey=rng.choice([0xFFFF, 0x7FFF, rng.getrandbits(16)]), fecn=rng.getrandbits(1), becn=rng.getrandbits(1),
        dqpn=rng.getrandbits(24), ackreq=rng.getrandbits(1), psn=rng.getrandbits(24),
    )
    if opcode == CNP:
        bth.update(solicited=0, migreq=0, becn=1, ackreq=0, psn=0)
    udp_zero = rng.random() < 0.5
    # Source ports in the RoCEv2 range: a well-known source port (53, ...) would make
    # tshark pick another dissector in the generated-capture cross-check.
    udp = UDP(sport=rng.randint(0xC000, 0xFFFF), dport=4791)
    if udp_zero:
        udp.chksum = 0
    ip = IP(src=f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            dst=f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}", tos=rng.getrandbits(8),
            ttl=rng.randint(1, 255), id=rng.getrandbits(16), flags=rng.choice(["DF", 0]))
    if rng.random() < 0.05:
        ip.options = [IPOption(b"\x01\x01\x01\x01")]  # four NOPs: IHL 6, covered by the ICRC
    l2 = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    r = rng.random()
    vlans = []
    if r < 0.25:
        vid = rng.randint(1, 4094)
        l2 = l2 / Dot1Q(vlan=vid, prio=rng.randint(0, 7))
        vlans = [vid]
    elif r < 0.30:
        outer, inner = rng.randint(1, 4094), rng.randint(1, 4094)
        l2 = l2 / Dot1AD(vlan=outer) / Dot1Q(vlan=inner)
        vlans = [outer, inner]
    pkt = l2 / ip / udp / BTH(**bth) / Raw(ext + payload + bytes(pad))
    # Some frames carry 4 bytes after the RoCE packet (a captured FCS, or Ethernet
    # padding): the parser must take the ICRC from where the UDP length says.
    trailer = bytes(rng.getrandbits(8) for _ in range(4)) if rng.random() < 0.1 else b""
    want.update(
        roce=True, version=2, opcode=opcode, dest_qp=bth["dqpn"], psn=bth["psn"], ack_req=bool(bth["ackreq"]),
        se=bool(bth["solicited"]), migreq=bool(bth["migreq"]), pad=pad, pkey=bth["pkey"], tver=0,
        fecn=bool(bth["fecn"]), becn=bool(bth["becn"]), payload_len=payload_len, icrc="ok", truncated=False,
        sport=udp.sport, dport=4791, src=ip.src, dst=ip.dst,
    )
    return pkt, want, trailer, {"vlans": len(vlans), "udp_zero": udp_zero, "ip_options": bool(ip.options),
                                "trailer": bool(trailer)}


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


SUMMARY = re.compile(r": (\d+) frames, (\d+) RoCE packets: (\d+) ICRC ok, (\d+) bad, (\d+) unverified")


def summary(out):
    for line in out.splitlines():
        m = SUMMARY.search(line)
        if m:
            return tuple(int(x) for x in m.groups())
    return None


class Report:
    def __init__(self):
        self.failed = 0

    def check(self, name, problems):
        problems = [" ".join(str(p).split()) for p in problems]  # one line each: run.sh reads lines
        if problems:
            self.failed += 1
            print(f"FAIL - {name}: {problems[0]}")
            for p in problems[1:12]:
                print(f"#   {p}")
            if len(problems) > 12:
                print(f"#   ... and {len(problems) - 12} more")
        else:
            print(f"ok - {name}")


def main(argv):
    rocetest, work = argv[1], argv[2]
    count = int(argv[3]) if len(argv) > 3 else 400
    seed = int(argv[4]) if len(argv) > 4 else 4791
    rng = random.Random(seed)
    rep = Report()
    print(f"# scapy cross-check: {count} packets, seed {seed}")

    pkts, wants, frames, icrc_off = [], [], [], []
    stats = {"1 VLAN tag": 0, "2 VLAN tags": 0, "UDP checksum 0": 0, "IP options": 0, "bytes after the ICRC": 0}
    for i in range(count):
        pkt, want, trailer, meta = build(rng, i)
        stats["1 VLAN tag"] += meta["vlans"] == 1
        stats["2 VLAN tags"] += meta["vlans"] == 2
        stats["UDP checksum 0"] += meta["udp_zero"]
        stats["IP options"] += meta["ip_options"]
        stats["bytes after the ICRC"] += meta["trailer"]
        b = raw(pkt)
        pkt_full = Ether(b + trailer) if trailer else pkt
        pkt_full.time = 1_700_000_000 + i / 1000
        pkts.append(pkt_full)
        wants.append(want)
        frames.append(b + trailer)
        icrc_off.append(len(b) - 4)
    orig = os.path.join(work, "scapy.pcap")
    wrpcap(orig, pkts)
    _, _, written = pcaputil.read_pcap(orig)
    if [d for _, d, _ in written] != frames:
        rep.check("scapy wrote the frames it built", ["wrpcap output differs from the built frames"])
        return 1
    opcodes = sorted({w["opcode"] for w in wants})
    print("# " + ", ".join(f"{v} with {k}" for k, v in stats.items()))
    print(f"# {len(opcodes)} distinct opcodes: {' '.join(f'0x{o:02x}' for o in opcodes)}")

    # 1. Every ICRC scapy computed verifies.
    r = run([rocetest, "icrc", orig])
    s = summary(r.stdout)
    probs = []
    if r.returncode != 0:
        probs.append(f"rocetest icrc exited {r.returncode}: {(r.stdout + r.stderr).strip()[-400:]}")
    if s != (count, count, count, 0, 0):
        probs.append(f"summary {s}, expected ({count} frames, {count} RoCE, {count} ok, 0 bad, 0 unverified)")
    rep.check(f"scapy: rocetest icrc accepts all {count} scapy ICRCs", probs)

    # 2. show --json reports what scapy set.
    r = run([rocetest, "show", "--json", orig])
    probs, compared = [], 0
    if r.returncode != 0:
        probs.append(f"rocetest show --json exited {r.returncode}: {r.stderr.strip()[-300:]}")
    lines = r.stdout.splitlines()
    if len(lines) != count:
        probs.append(f"{len(lines)} JSON lines for {count} frames")
    ext_keys = {"reth_va", "reth_rkey", "reth_len", "aeth_syndrome", "aeth_msn", "imm", "ieth_rkey", "deth_qkey",
                "deth_src_qp", "atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare", "atomic_ack_orig"}
    for i, (line, want) in enumerate(zip(lines, wants), 1):
        try:
            j = json.loads(line)
        except json.JSONDecodeError as e:
            probs.append(f"frame {i}: not JSON: {e}")
            continue
        if j.get("frame") != i:
            probs.append(f"line {i}: frame {j.get('frame')}")
        for k, v in want.items():
            compared += 1
            if k not in j:
                probs.append(f"frame {i} (opcode 0x{want['opcode']:02x}): no key {k}, scapy set {v}")
            elif j[k] != v or type(j[k]) is not type(v):
                probs.append(f"frame {i} (opcode 0x{want['opcode']:02x}): {k} = {j[k]!r}, scapy set {v!r}")
        extra = (set(j) & ext_keys) - set(want)
        if extra:
            probs.append(f"frame {i} (opcode 0x{want['opcode']:02x}): unexpected keys {sorted(extra)}")
    print(f"# scapy: {compared} fields of {count} packets compared with show --json")
    rep.check("scapy: show --json reports the fields scapy set", probs)

    # 3. ICRCs zeroed: every one bad, exit 1.
    zeroed = [f[:o] + b"\0\0\0\0" + f[o + 4:] for f, o in zip(frames, icrc_off)]
    zpath = os.path.join(work, "scapy-zeroed.pcap")
    pcaputil.write_pcap(zpath, [(f, len(f), int(p.time * 1e9)) for f, p in zip(zeroed, pkts)])
    r = run([rocetest, "icrc", "--max-report", "1000", zpath])
    s = summary(r.stdout)
    probs = []
    if r.returncode != 1:
        probs.append(f"rocetest icrc exited {r.returncode}, expected 1")
    if s != (count, count, 0, count, 0):
        probs.append(f"summary {s}, expected ({count} frames, {count} RoCE, 0 ok, {count} bad, 0 unverified)")
    bad_frames = {int(m) for m in re.findall(r": frame (\d+): ICRC BAD", r.stdout)}
    if bad_frames != set(range(1, count + 1)):
        probs.append(f"{len(bad_frames)} frames reported ICRC BAD, expected all {count}")
    rep.check("scapy: zeroed ICRCs -> rocetest icrc exits 1, every packet bad", probs)

    # 4. --fix restores scapy's ICRC bytes exactly.
    fixed = os.path.join(work, "scapy-fixed.pcap")
    r = run([rocetest, "icrc", "--quiet", "--max-report", "0", "--fix", fixed, zpath])
    probs = []
    if r.returncode != 1:
        probs.append(f"rocetest icrc --fix exited {r.returncode} (expected 1: the input has bad ICRCs): "
                     f"{r.stderr.strip()[-300:]}")
    try:
        _, _, out = pcaputil.read_pcap(fixed)
    except (OSError, ValueError) as e:
        out = []
        probs.append(f"cannot read the --fix output: {e}")
    if out and len(out) != count:
        probs.append(f"--fix wrote {len(out)} frames, expected {count}")
    icrc_diff = frame_diff = 0
    for i, ((_, got, _), want, o) in enumerate(zip(out, frames, icrc_off), 1):
        if got[o:o + 4] != want[o:o + 4]:
            icrc_diff += 1
            if icrc_diff <= 5:
                probs.append(f"frame {i}: ICRC bytes {got[o:o + 4].hex()}, scapy {want[o:o + 4].hex()}")
        elif got != want:
            frame_diff += 1
            if frame_diff <= 5:
                k = next(x for x in range(min(len(got), len(want))) if got[x] != want[x]) \
                    if len(got) == len(want) else -1
                probs.append(f"frame {i}: ICRC right but the frame differs from scapy's (first at byte {k}; "
                             f"a UDP checksum not recomputed?)")
    if icrc_diff:
        probs.insert(0, f"{icrc_diff} of {count} ICRCs differ from scapy's after --fix")
    if frame_diff:
        probs.insert(0, f"{frame_diff} of {count} frames differ from scapy's after --fix")
    rep.check("scapy: icrc --fix restores scapy's ICRC bytes (and whole frames) byte for byte", probs)

    r = run([rocetest, "icrc", fixed])
    s = summary(r.stdout)
    rep.check("scapy: the --fix output verifies (exit 0)",
              [] if r.returncode == 0 and s == (count, count, count, 0, 0)
              else [f"exit {r.returncode}, summary {s}"])
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
