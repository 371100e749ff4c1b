# SPDX-License-Identifier: MIT
"""An independent cross-check of every golden vector, using no rocetest code.

usage: vectors_crosscheck.py VECTORS_DIR

For each VECTORS_DIR/NAME.pcap with its NAME.json (the expectation) and
scenarios/NAME.scn (parsed here, with the defaults of scenarios/README.md):

  icrc      Every ICRC is recomputed with zlib.crc32 as wire-facts.md defines
            it (8 bytes 0xFF, the IP header with TOS/traffic class+flow label,
            TTL/hop limit and checksum masked, UDP with its checksum masked,
            the BTH with byte 4 masked, the rest up to the ICRC). The frames
            whose ICRC does not match must be exactly the PKT-ICRC frames of
            the expectation (one frame, when PKT-ICRC is expected; none
            otherwise). Ethernet with 0-2 VLAN tags, IPv4 and IPv6, and RoCE v1
            (a GRH over Ethertype 0x8915: the GRH masked as IPv6, no UDP). The
            IP total/payload length and the UDP length must agree with the frame.
  tshark    tshark dissects every frame as InfiniBand (BTH present; the RoCEv2
            CNP 0x81 is accepted as opcode 0x81 alone, since Wireshark 4.0
            has no name for it), with no malformed packet; the frame count is
            the expectation's.
  fields    the tshark fields against the scenario: frames from a's address
            go to b's address, b's QPN, from a's UDP source port, to 4791 (and
            the other way round); a node with `roce=1` sends RoCE v1, whose GRH
            carries its address as a GID (IPv4-mapped ::ffff:a.b.c.d in IPv4
            scenarios), and no UDP; the VLAN ID and priority are the scenario's
            (no tag without `vlan`); the IP version is the scenario's; no
            payload is larger than the PMTU; the first request each node sends
            carries that node's first PSN.
  payload   the SEND/WRITE payload bytes each node sends (each PSN counted
            once, so retransmissions count once) add up to the `len` of its
            send/write lines (times count=), unless `miss` faults leave packets
            out of the capture; PAYLOAD_SUM_SKIP names the other vectors where
            that legitimately differs, and why.

Wireshark 4.0 peculiarities, handled explicitly:
  * Heuristic payload dissectors: Wireshark offers an InfiniBand payload to
    heuristic upper-layer dissectors (RPC-over-RDMA, EoIB, SMB Direct, ...).
    The RPC-over-RDMA one reads its header without checking the payload length
    first, so a short SEND Only (0 to 8 payload bytes in send-only-0/1/3,
    neg-bad-pad, psn-wrap-read) shows as "[Malformed Packet: RPCoRDMA]"; the
    EoIB one takes 4 bytes of a UD payload as its header. Such a malformed
    mark is accepted only when the protocol stack ends in one of those payload
    dissectors, and then that vector is dissected again with all of them
    disabled, where it must show no malformed packet at all. Payload lengths come from udp.length minus the
    headers of the opcode (table below, from wire-facts.md), compared with
    data.len where tshark hands the payload to the plain data dissector.
  * UDP checksum 0 over IPv6: tshark flags it "Illegal checksum value (0)"
    (an expert error, not a malformed packet: RFC 8200 wants a UDP checksum
    over IPv6 unless RFC 6935/6936 applies). RoCEv2 peers (rxe, ConnectX) send
    0, as wire-facts.md says, so this one expert error is listed as a detail,
    not a failure; any other expert error fails.

Prints "ok - ..." / "FAIL - ...: why" lines (and "#" details) for run.sh.
"""
import concurrent.futures
import glob
import ipaddress
import json
import os
import re
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402

ROCE_PORT = 4791
CNP = 0x81

# ------------------------------------------------------------------ opcodes
# Extension header bytes after the BTH per opcode (wire-facts.md tables), and
# whether the opcode carries payload. RC = 0x00 + op, UC = 0x20 + op.
RETH, AETH, IMM, IETH, ATOMIC, ATOMICACK, DETH = 16, 4, 4, 4, 28, 8, 8
_RC = {
    0x00: (0, True), 0x01: (0, True), 0x02: (0, True), 0x03: (IMM, True), 0x04: (0, True),
    0x05: (IMM, True), 0x06: (RETH, True), 0x07: (0, True), 0x08: (0, True), 0x09: (IMM, True),
    0x0A: (RETH, True), 0x0B: (RETH + IMM, True), 0x0C: (RETH, False),
    0x0D: (AETH, True), 0x0E: (0, True), 0x0F: (AETH, True), 0x10: (AETH, True),
    0x11: (AETH, False), 0x12: (AETH + ATOMICACK, False), 0x13: (ATOMIC, False), 0x14: (ATOMIC, False),
    0x16: (IETH, True), 0x17: (IETH, True),
}
OPCODES = dict(_RC)
OPCODES.update({0x20 + op: v for op, v in _RC.items() if op <= 0x0B})
OPCODES.update({0x64: (DETH, True), 0x65: (DETH + IMM, True), CNP: (16, False)})
# SEND and WRITE (the data the scenario's send/write lines carry), all services.
SEND_WRITE = {t + op for t in (0x00, 0x20) for op in range(0x0C)} | {0x16, 0x17, 0x64, 0x65}
# Requests: what a requester sends (SEND, WRITE, READ request, atomics).
REQUESTS = SEND_WRITE | {0x0C, 0x13, 0x14}

# Protocols of Wireshark's heuristic InfiniBand payload dissectors (tshark -G
# heuristic-decodes, table infiniband.payload); the ethertype one (eth_over_ib)
# is disabled as a heuristic since the Ethertype table itself is needed.
PAYLOAD_HEURISTIC_PROTOS = {"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser", "infiniband.eoib",
                            "infiniband_sdp", "fcoib", "drbd", "eoib", "sdp", "ethertype"}


# ------------------------------------------------------------------ scenario
def parse_num(s):
    return int(s, 0)


def parse_size(s):
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)([KM]?)", s)
    if not m:
        raise ValueError(f"bad size {s!r}")
    return parse_num(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]


class Scenario:
    def __init__(self, path):
        self.path = path
        self.transport, self.ipver, self.vlan, self.pcp, self.pmtu = "rc", 4, None, 0, 1024
        self.capture = "receiver"
        self.nodes = {"a": {"qpn": 0x11, "psn": 0x1000, "sport": 0xC011, "roce": 2},
                      "b": {"qpn": 0x12, "psn": 0x2000, "sport": 0xC012, "roce": 2}}
        self.node_ips = {"a": None, "b": None}
        self.work = []          # (kind, node, len, count)
        self.faults = []        # (direction, kind, attrs)
        self.bugs = []
        self.expects = []
        with open(path) as f:
            for ln, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                words = line.split()
                try:
                    self._directive(words)
                except (ValueError, KeyError, IndexError) as e:
                    raise ValueError(f"{path}:{ln}: {e}")
        default_ips = {4: ("10.0.0.1", "10.0.0.2"), 6: ("fd00::1", "fd00::2")}[self.ipver]
        for i, n in enumerate("ab"):
            self.nodes[n]["ip"] = ipaddress.ip_address(self.node_ips[n] or default_ips[i])

    def _directive(self, words):
        d, args = words[0], words[1:]
        kv = dict(a.split("=", 1) for a in args if "=" in a)
        pos = [a for a in args if "=" not in a]
        if d == "transport":
            self.transport = pos[0]
        elif d == "ip":
            self.ipver = parse_num(pos[0])
        elif d == "vlan":
            self.vlan, self.pcp = parse_num(pos[0]), parse_num(kv.get("pcp", "0"))
        elif d == "pmtu":
            self.pmtu = parse_num(pos[0])
        elif d == "capture":
            self.capture = pos[0]
        elif d == "node":
            n = pos[0]
            for k, v in kv.items():
                if k in ("qpn", "psn", "sport", "roce"):
                    self.nodes[n][k] = parse_num(v)
                elif k == "ip":
                    self.node_ips[n] = v
        elif d in ("send", "write"):
            self.work.append((d, pos[0], parse_size(kv["len"]), parse_num(kv.get("count", "1"))))
        elif d == "fault":
            self.faults.append((pos[0], pos[1], kv))
        elif d == "bug":
            self.bugs.append(pos[1])
        elif d == "expect":
            self.expects.append(pos[0])
        # description, seed, link, limit, read, cas, fadd, recv, cnp: nothing to cross-check here

    def peer(self, n):
        return "b" if n == "a" else "a"


# ------------------------------------------------------------------ ICRC
def parse_frame(data):
    """Ethernet frame -> dict with the offsets of the layers, or raises ValueError."""
    off = 12
    vlans = []
    etype = struct.unpack_from(">H", data, off)[0]
    off += 2
    while etype in (0x8100, 0x88A8):
        tci, etype = struct.unpack_from(">HH", data, off)
        vlans.append((tci & 0x0FFF, tci >> 13))
        off += 4
    ip_off = off
    if etype == 0x0800:
        ihl = (data[off] & 0x0F) * 4
        total = struct.unpack_from(">H", data, off + 2)[0]
        if data[off + 9] != 17:
            raise ValueError(f"IP protocol {data[off + 9]}, not UDP")
        ip_end = off + total
        udp_off = off + ihl
        version = 4
    elif etype == 0x8915:
        # RoCE v1: a GRH (the IPv6 layout, next header 0x1B) and the BTH right after it.
        plen = struct.unpack_from(">H", data, off + 4)[0]
        if data[off + 6] != 0x1B:
            raise ValueError(f"GRH next header {data[off + 6]}, not 0x1B (BTH)")
        if off + 40 + plen > len(data) or plen < 12 + 4:
            raise ValueError(f"GRH payload length {plen}, the frame has {len(data) - off - 40} bytes after the GRH")
        return {"vlans": vlans, "version": 6, "grh": True, "ip_off": ip_off, "udp_off": None, "bth_off": off + 40,
                "end": off + 40 + plen, "sport": None}
    elif etype == 0x86DD:
        plen = struct.unpack_from(">H", data, off + 4)[0]
        if data[off + 6] != 17:
            raise ValueError(f"IPv6 next header {data[off + 6]}, not UDP (extension headers are not expected)")
        udp_off = off + 40
        ip_end = udp_off + plen
        version = 6
    else:
        raise ValueError(f"Ethertype 0x{etype:04x}, not IPv4/IPv6")
    if ip_end > len(data):
        raise ValueError(f"IP length says {ip_end - ip_off} bytes, the frame has {len(data) - ip_off}")
    sport, dport, ulen = struct.unpack_from(">HHH", data, udp_off)
    if udp_off + ulen != ip_end:
        raise ValueError(f"UDP length {ulen} but the IP packet leaves {ip_end - udp_off}")
    if dport != ROCE_PORT:
        raise ValueError(f"UDP destination port {dport}")
    if ulen < 8 + 12 + 4:
        raise ValueError(f"UDP length {ulen}: no room for BTH and ICRC")
    return {"vlans": vlans, "version": version, "grh": False, "ip_off": ip_off, "udp_off": udp_off,
            "bth_off": udp_off + 8, "end": udp_off + ulen, "sport": sport}


def icrc(data, p):
    """(computed, on the wire) ICRC of a parsed frame, as wire-facts.md defines it."""
    ip = bytearray(data[p["ip_off"]:p["bth_off"] - (0 if p["grh"] else 8)])
    if p["version"] == 4:
        ip[1] = 0xFF                  # TOS (DSCP + ECN)
        ip[8] = 0xFF                  # TTL
        ip[10:12] = b"\xff\xff"       # header checksum
    else:
        ip[0] |= 0x0F                 # traffic class + flow label: 6f ff ff ff
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF                  # hop limit
    udp = b""                         # RoCE v1 has no UDP header
    if not p["grh"]:
        udp = bytearray(data[p["udp_off"]:p["udp_off"] + 8])
        udp[6:8] = b"\xff\xff"        # UDP checksum
    bth = bytearray(data[p["bth_off"]:p["bth_off"] + 12])
    bth[4] = 0xFF                     # FECN, BECN, reserved
    rest = data[p["bth_off"] + 12:p["end"] - 4]
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + rest) & 0xFFFFFFFF
    wire = struct.unpack("<I", data[p["end"] - 4:p["end"]])[0]
    return crc, wire


# wire-facts.md's public vectors: the ICRC code must reproduce them before it judges anything.
# 1. scapy roce.uts UC SEND ONLY (built from the listed fields); 2. a ConnectX-4 Lx CNP (full frame).
KNOWN_VECTORS = [
    ("scapy roce.uts UC SEND Only",
     bytes.fromhex("248a07a8fa22" "248a07a8fa22" "0800")
     + struct.pack(">BBHHHBBH4s4s", 0x45, 0x01, 64, 1144, 0x4000, 64, 17, 0xB4D5,
                   bytes([192, 168, 0, 7]), bytes([192, 168, 0, 7]))
     + struct.pack(">HHHH", 49152, ROCE_PORT, 44, 0xACA2)
     + bytes([0x24, 0x40 | 0x20, 0xFF, 0xFF, 0]) + (211).to_bytes(3, "big") + bytes([0]) + (13571856).to_bytes(3, "big")
     + bytes.fromhex("4630818be28935d90e9a95505401be885e500000") + bytes.fromhex("78f353f3")),
    ("ConnectX-4 Lx CNP",
     bytes.fromhex("e41d2dab2bc2" "7cfe90643b32" "0800" "45c2003c718c400040119161" "0a001101" "0a001201"
                   "000012b700280000" "8100ffff4000011800000000" "00000000000000000000000000000000" "82fd002a")),
]


def check_known_vectors():
    probs = []
    for what, frame in KNOWN_VECTORS:
        try:
            crc, wire = icrc(frame, parse_frame(frame))
        except (ValueError, struct.error, IndexError) as e:
            probs.append(f"{what}: cannot parse: {e}")
            continue
        if crc != wire:
            probs.append(f"{what}: recomputed 0x{crc:08x}, published 0x{wire:08x}")
    if probs:
        return "FAIL - vectors cross-check: the ICRC code does not reproduce wire-facts.md's vectors: " + "; ".join(probs)
    return f"ok - vectors cross-check: the ICRC code reproduces the {len(KNOWN_VECTORS)} public vectors of wire-facts.md"


def check_icrc(name, frames, exp):
    want_bad = sorted(v["frame"] for v in exp["expected_violations"] if v["rule"] == "PKT-ICRC")
    probs, bad = [], []
    vlan_frames = v6_frames = v1_frames = 0
    for n, (_, data, _) in enumerate(frames, 1):
        try:
            p = parse_frame(data)
        except (ValueError, struct.error, IndexError) as e:
            probs.append(f"frame {n}: cannot parse: {e}")
            continue
        vlan_frames += bool(p["vlans"])
        v6_frames += p["version"] == 6 and not p["grh"]
        v1_frames += p["grh"]
        crc, wire = icrc(data, p)
        if crc != wire:
            bad.append(n)
            if n not in want_bad:
                probs.append(f"frame {n}: ICRC on the wire 0x{wire:08x}, recomputed 0x{crc:08x}")
    if len(want_bad) > 1:
        probs.append(f"the expectation has PKT-ICRC at {len(want_bad)} frames {want_bad}, expected at most one")
    for n in want_bad:
        if n not in bad:
            probs.append(f"frame {n}: expected a bad ICRC (PKT-ICRC), but it recomputes equal")
    if probs:
        return f"FAIL - vector {name}: independent ICRC: " + "; ".join(probs[:5])
    what = f"frame {want_bad[0]} bad as expected, the other {len(frames) - 1} match" if want_bad else \
        f"all {len(frames)} match"
    extra = "".join([f", {vlan_frames} VLAN-tagged" if vlan_frames else "", f", {v6_frames} IPv6" if v6_frames else "",
                     f", {v1_frames} RoCE v1" if v1_frames else ""])
    return f"ok - vector {name}: independent ICRC (zlib.crc32): {what}{extra}"


# ------------------------------------------------------------------ tshark
FIELDS = ["frame.number", "frame.protocols", "_ws.malformed", "_ws.expert.severity", "_ws.expert.message",
          "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.padcnt",
          "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "vlan.id", "vlan.priority", "udp.srcport", "udp.dstport",
          "udp.length", "data.len", "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.grh.paylen"]
EXPERT_ERROR = 8388608      # _ws.expert.severity of PI_ERROR (0x00800000)


def tshark_rows(path, extra_args=()):
    cmd = ["tshark", "-n", *extra_args, "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
           "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"tshark exited {r.returncode}: {r.stderr.strip()[-300:]}")
    rows = []
    for line in r.stdout.splitlines():
        cells = line.split("\t")
        cells += [""] * (len(FIELDS) - len(cells))
        rows.append(dict(zip(FIELDS, cells)))
    return rows


_heur_args = None


def heuristics_off_args():
    """tshark arguments that disable every heuristic InfiniBand payload dissector this tshark has."""
    global _heur_args
    if _heur_args is None:
        r = subprocess.run(["tshark", "-G", "heuristic-decodes"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        protos = [ln.split("\t")[1] for ln in r.stdout.splitlines()
                  if ln.startswith("infiniband.payload\t") and len(ln.split("\t")) > 1]
        args = []
        for p in protos:
            if p == "ethertype":
                args += ["--disable-heuristic", "eth_over_ib"]
            else:
                args += ["--disable-protocol", p]
        _heur_args = args
    return _heur_args


def one(cell, conv=lambda s: int(s, 0)):
    """The single value of a tshark cell; ValueError if it has several different ones."""
    vals = {v for v in cell.split("|") if v != ""}
    if len(vals) != 1:
        raise ValueError(f"{len(vals)} values {cell!r}")
    return conv(vals.pop())


def dissect(name, path, exp):
    """Returns (rows, [dissection problems], [details])."""
    rows = tshark_rows(path)
    probs, details = [], []
    if len(rows) != exp["frames"]:
        probs.append(f"tshark sees {len(rows)} frames, the expectation says {exp['frames']}")
    heur_malformed = []
    for r in rows:
        n = r["frame.number"]
        stack = r["frame.protocols"].split(":")
        if "infiniband" not in stack or r["infiniband.bth.opcode"] == "":
            probs.append(f"frame {n}: not dissected as InfiniBand with a BTH ({r['frame.protocols']})")
            continue
        if r["_ws.malformed"]:
            if stack[-1] in PAYLOAD_HEURISTIC_PROTOS and stack.index("infiniband") < len(stack) - 1:
                heur_malformed.append(n)
            else:
                probs.append(f"frame {n}: malformed ({r['_ws.malformed']}; {r['frame.protocols']})")
        sev = [int(s, 0) for s in r["_ws.expert.severity"].split("|") if s]
        msgs = [m for m in r["_ws.expert.message"].split("|") if m]
        errs = [m for s, m in zip(sev, msgs) if s >= EXPERT_ERROR and not m.startswith("Malformed Packet")]
        for m in errs:
            if m == "Illegal checksum value (0)" and r["ipv6.src"]:
                continue        # IPv6 UDP checksum 0: see the module docstring
            probs.append(f"frame {n}: tshark expert error {m!r}")
        op = int(r["infiniband.bth.opcode"], 0)
        if op not in OPCODES:
            probs.append(f"frame {n}: opcode 0x{op:02x} is no RoCEv2 opcode")
    if any(r["ipv6.src"] for r in rows):
        details.append(f"# vector {name}: tshark flags the IPv6 UDP checksum 0 as 'Illegal checksum value (0)' "
                       "(accepted: RoCEv2 peers send 0)")
    if heur_malformed:
        # Again with the payload heuristics off: the RoCE layers themselves must be fine.
        again = tshark_rows(path, heuristics_off_args())
        bad = [r["frame.number"] for r in again if r["_ws.malformed"]]
        if bad:
            probs.append(f"frame {', '.join(bad)}: malformed even with the heuristic payload dissectors disabled")
        else:
            details.append(f"# vector {name}: frame {', '.join(heur_malformed)}: only a heuristic payload dissector "
                           f"({rows[int(heur_malformed[0]) - 1]['frame.protocols'].split(':')[-1]}) marks it "
                           "malformed; with the payload heuristics disabled nothing is")
        rows = again
    return rows, probs, details


def frame_addresses(r, sc):
    """(source, destination, RoCE v1?) of a row: IP addresses, or a GRH's GIDs (IPv4-mapped ones as IPv4)."""
    if r["infiniband.grh.sgid"]:
        gids = [ipaddress.IPv6Address(one(r[f"infiniband.grh.{g}"], str)) for g in ("sgid", "dgid")]
        if sc.ipver == 4:
            if any(g.ipv4_mapped is None for g in gids):
                raise ValueError(f"GIDs {gids[0]} -> {gids[1]} are not IPv4-mapped in an IPv4 scenario")
            gids = [g.ipv4_mapped for g in gids]
        return str(gids[0]), str(gids[1]), True
    if sc.ipver == 4:
        if not r["ip.src"] or r["ipv6.src"]:
            raise ValueError(f"not IPv4 ({r['frame.protocols']})")
        return one(r["ip.src"], str), one(r["ip.dst"], str), False
    if not r["ipv6.src"] or r["ip.src"]:
        raise ValueError(f"not IPv6 ({r['frame.protocols']})")
    return str(ipaddress.ip_address(one(r["ipv6.src"], str))), str(ipaddress.ip_address(one(r["ipv6.dst"], str))), False


def check_fields(name, rows, sc):
    """Fields against the scenario. Returns ([problems], per-node {psn: payload bytes} of SEND/WRITE)."""
    probs = []
    by_ip = {str(sc.nodes[n]["ip"]): n for n in "ab"}
    first_req = {}
    req_psns = {"a": [], "b": []}
    sw_bytes = {"a": {}, "b": {}}
    max_payload = 0
    for r in rows:
        n = r["frame.number"]
        if r["infiniband.bth.opcode"] == "":
            continue
        try:
            src, dst, v1 = frame_addresses(r, sc)
            node = by_ip.get(src)
            if node is None:
                raise ValueError(f"source {src} is neither a ({sc.nodes['a']['ip']}) nor b ({sc.nodes['b']['ip']})")
            peer = sc.peer(node)
            op, dqp, psn = one(r["infiniband.bth.opcode"]), one(r["infiniband.bth.destqp"]), one(r["infiniband.bth.psn"])
            # RoCE v1: the GRH payload length stands in for the UDP length (which is 8 more).
            pad = one(r["infiniband.bth.padcnt"])
            ulen = one(r["infiniband.grh.paylen"]) + 8 if v1 else one(r["udp.length"])
            sport, dport = (None, None) if v1 else (one(r["udp.srcport"]), one(r["udp.dstport"]))
        except ValueError as e:
            probs.append(f"frame {n}: {e}")
            continue
        if dst != str(sc.nodes[peer]["ip"]):
            probs.append(f"frame {n}: from {node} ({src}) to {dst}, expected {peer}'s {sc.nodes[peer]['ip']}")
        if dqp != sc.nodes[peer]["qpn"]:
            probs.append(f"frame {n}: from {node}: DestQP 0x{dqp:06x}, expected {peer}'s QPN 0x{sc.nodes[peer]['qpn']:06x}")
        if v1 != (sc.nodes[node]["roce"] == 1):
            probs.append(f"frame {n}: from {node}: RoCE v{1 if v1 else 2}, expected v{sc.nodes[node]['roce']}")
        elif not v1 and (sport != sc.nodes[node]["sport"] or dport != ROCE_PORT):
            probs.append(f"frame {n}: UDP ports {sport} -> {dport}, expected {sc.nodes[node]['sport']} -> {ROCE_PORT}")
        vids = [int(v) for v in r["vlan.id"].split("|") if v]
        pcps = [int(v) for v in r["vlan.priority"].split("|") if v]
        want_vids = [sc.vlan] if sc.vlan is not None else []
        if vids != want_vids or (sc.vlan is not None and pcps != [sc.pcp]):
            probs.append(f"frame {n}: VLAN {vids or 'none'} priority {pcps or 'none'}, expected "
                         f"{want_vids or 'none'}{' priority %d' % sc.pcp if sc.vlan is not None else ''}")
        hdr, has_payload = OPCODES.get(op, (0, False))
        payload = ulen - 8 - 12 - hdr - 4 - pad
        if not has_payload:
            if payload + pad != 0:
                probs.append(f"frame {n}: opcode 0x{op:02x} carries no payload, but UDP length {ulen} leaves "
                             f"{payload + pad} bytes")
            payload = 0
        elif payload < 0:
            probs.append(f"frame {n}: UDP length {ulen} too short for opcode 0x{op:02x} with PadCnt {pad}")
            continue
        stack = r["frame.protocols"].split(":")
        if r["data.len"] and stack[-2:] == ["infiniband", "data"] and one(r["data.len"]) != payload + pad:
            probs.append(f"frame {n}: tshark data.len {r['data.len']}, but UDP length {ulen} minus the headers of "
                         f"opcode 0x{op:02x} leaves {payload + pad} (payload + pad)")
        max_payload = max(max_payload, payload)
        if payload > sc.pmtu:
            probs.append(f"frame {n}: payload {payload} bytes exceeds the PMTU {sc.pmtu}")
        if op in REQUESTS:
            first_req.setdefault(node, (n, psn))
            req_psns[node].append(psn)
        if op in SEND_WRITE:
            sw_bytes[node].setdefault(psn, payload)
    for node, (n, psn) in first_req.items():
        want = sc.nodes[node]["psn"]
        if psn != want:
            # The first request may be dropped before a receiver-side capture;
            # then its retransmission must still carry the first PSN.
            dropped = any(d == f"{node}>{sc.peer(node)}" and k == "drop" and
                          kv.get("packet", "").split("-")[0] == "1" for d, k, kv in sc.faults)
            if not (dropped and sc.capture == "receiver" and want in req_psns[node]):
                probs.append(f"frame {n}: {node}'s first request has PSN 0x{psn:06x}, expected its first PSN "
                             f"0x{want:06x}")
    return probs, sw_bytes, max_payload, first_req


# Vectors whose SEND/WRITE payload sum legitimately differs from the
# scenario's send/write lengths. Every other vector is compared, clean or
# negative, faults or not: an RC packet dropped before a receiver-side capture
# comes again as a retransmission, and each PSN counts once.
PAYLOAD_SUM_SKIP = {
    # bug short-first: the First carries PMTU/2 (512) bytes and the Last the
    # bytes after the PMTU (476): 512 bytes of the 1500 are never sent, and the
    # responder's NAK invalid request ends the message.
    "neg-short-first": "its First packet is cut to PMTU/2 (the bug), so 512 of the 1500 bytes are never sent",
}


def check_payload_sum(name, sc, sw_bytes):
    if name in PAYLOAD_SUM_SKIP:
        return None, PAYLOAD_SUM_SKIP[name]
    if sc.transport != "rc" and any(k == "drop" for _, k, _ in sc.faults):
        return None, f"{sc.transport.upper()} with dropped packets: they are never resent"
    if any(k == "miss" for _, k, _ in sc.faults):
        return None, "the capture misses packets on purpose (miss faults)"
    probs, parts = [], []
    for node in "ab":
        want = sum(ln * c for kind, nd, ln, c in sc.work if nd == node)
        got = sum(sw_bytes[node].values())
        if want or got:
            parts.append(f"{node}: {got} bytes in {len(sw_bytes[node])} PSN{'s' if len(sw_bytes[node]) != 1 else ''}")
        if got != want:
            probs.append(f"{node} sent {got} SEND/WRITE payload bytes (each PSN once), its send/write lines "
                         f"add up to {want}")
    return probs, ", ".join(parts) or "no SEND/WRITE"


def tshark_checks(name, path, sc, exp):
    out = []
    try:
        rows, dprobs, details = dissect(name, path, exp)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return [f"FAIL - vector {name}: tshark: {' '.join(str(e).split())}"]
    out += details
    if dprobs:
        out.append(f"FAIL - vector {name}: tshark dissection: " + "; ".join(dprobs[:5]))
    else:
        out.append(f"ok - vector {name}: tshark dissects all {len(rows)} frames as InfiniBand, none malformed")
    fprobs, sw_bytes, max_payload, first_req = check_fields(name, rows, sc)
    if fprobs:
        out.append(f"FAIL - vector {name}: tshark fields vs scenario: " + "; ".join(fprobs[:5]))
    else:
        reqs = ", ".join(f"{n} first PSN 0x{p:06x}" for n, (_, p) in sorted(first_req.items()))
        out.append(f"ok - vector {name}: tshark fields match the scenario (IPv{sc.ipver}, "
                   f"{'VLAN %d' % sc.vlan if sc.vlan is not None else 'untagged'}, QPNs, ports, "
                   f"largest payload {max_payload} <= PMTU {sc.pmtu}{', ' + reqs if reqs else ''})")
    sprobs, what = check_payload_sum(name, sc, sw_bytes)
    if sprobs is None:
        out.append(f"# vector {name}: payload sum not compared: {what}")
    elif sprobs:
        out.append(f"FAIL - vector {name}: SEND/WRITE payload vs scenario: " + "; ".join(sprobs))
    else:
        out.append(f"ok - vector {name}: SEND/WRITE payload bytes equal the scenario's lengths ({what})")
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: vectors_crosscheck.py VECTORS_DIR", file=sys.stderr)
        return 2
    vdir = argv[1]
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(vdir, "*.pcap")))
    if not names:
        print(f"FAIL - vectors cross-check: no vectors in {vdir}")
        return 1
    known = check_known_vectors()
    print(known)
    if known.startswith("FAIL"):
        return 1
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        for name in names:
            pcap = os.path.join(vdir, name + ".pcap")
            try:
                with open(os.path.join(vdir, name + ".json")) as f:
                    exp = json.load(f)
                sc = Scenario(os.path.join(vdir, "scenarios", name + ".scn"))
                linktype, _, frames = pcaputil.read_pcap(pcap)
            except (OSError, ValueError, KeyError) as e:
                jobs.append((name, None, None, str(e)))
                continue
            if linktype != 1:
                jobs.append((name, None, None, f"link type {linktype}, expected 1 (Ethernet)"))
                continue
            jobs.append((name, (frames, exp), ex.submit(tshark_checks, name, pcap, sc, exp), None))
        failed = 0
        for name, icrc_args, fut, err in jobs:
            if err:
                print(f"FAIL - vector {name}: cannot read the vector: {err}")
                failed += 1
                continue
            lines = [check_icrc(name, *icrc_args)]
            try:
                lines += fut.result()
            except Exception as e:  # a bug here must show as a failure, not a traceback
                lines.append(f"FAIL - vector {name}: tshark checks raised {type(e).__name__}: {e}")
            for ln in lines:
                print(ln)
                failed += ln.startswith("FAIL - ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
