# SPDX-License-Identifier: MIT
"""The scapy side of the generation benchmark (`make bench`, bench.sh).

usage: /usr/bin/python3 gen_bench.py PCAP [--frames N] [--repeat R] [--json OUT]

Reads the first N frames (default 2000) of PCAP, a capture `rocetest gen`
wrote, parses each into its header fields (Ethernet, IPv4, UDP, BTH, RETH /
AETH / ImmDt where the opcode has them, payload), then builds the same frames
again with scapy: Ether / IP / UDP / BTH / [RETH | AETH | ImmDt] / Raw, the
BTH and AETH layers and the ICRC computation from scapy.contrib.roce (RETH and
ImmDt, which scapy has no layer for, as small scapy Packet classes here), and
bytes() of each. Only the building is timed (parsing the capture and
importing scapy are not), R times (default 3), the fastest run counting.
Every frame scapy built must equal the capture's frame byte for byte; a
difference fails (exit 1) naming the frame, so a benchmark cannot pass on
different work.

Prints one line for people and, with --json, writes
{"frames", "bytes", "seconds", "run_seconds", "packets_per_s", "mb_per_s",
 "verified", "opcodes", "scapy_version"} to OUT.
"""
import argparse
import collections
import json
import logging
import struct
import sys
import time

ROCE_PORT = 4791
# Opcodes of the RC/UC SEND/WRITE/ACK families this benchmark rebuilds, with
# their extension headers in wire order (wire-facts.md).
EXT = {}
for base in (0x00, 0x20):
    EXT.update({base + 0x00: (), base + 0x01: (), base + 0x02: (), base + 0x03: ("imm",), base + 0x04: (),
                base + 0x05: ("imm",), base + 0x06: ("reth",), base + 0x07: (), base + 0x08: (),
                base + 0x09: ("imm",), base + 0x0A: ("reth",), base + 0x0B: ("reth", "imm")})
EXT.update({0x11: ("aeth",)})
EXT_LEN = {"reth": 16, "aeth": 4, "imm": 4}


def read_frames(path, n):
    """The first n frames of a classic pcap (streamed: the capture may be large)."""
    frames = []
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            raise ValueError(f"{path}: too short for a pcap header")
        magic = struct.unpack("<I", head[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            e = "<"
        elif struct.unpack(">I", head[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D):
            e = ">"
        else:
            raise ValueError(f"{path}: not a classic pcap")
        if struct.unpack(e + "I", head[20:24])[0] != 1:
            raise ValueError(f"{path}: not an Ethernet capture")
        while len(frames) < n:
            rec = f.read(16)
            if len(rec) < 16:
                break
            _, _, caplen, wirelen = struct.unpack(e + "IIII", rec)
            data = f.read(caplen)
            if len(data) != caplen or caplen != wirelen:
                raise ValueError(f"{path}: frame {len(frames) + 1} cut")
            frames.append(data)
    return frames


def parse(n, data):
    """One frame -> the field values scapy needs to build it again."""
    etype = struct.unpack_from(">H", data, 12)[0]
    if etype != 0x0800:
        raise ValueError(f"frame {n}: Ethertype 0x{etype:04x}: this benchmark rebuilds IPv4 frames only")
    ver_ihl, tos, tot, ipid, frag, ttl, proto, _, ipsrc, ipdst = struct.unpack_from(">BBHHHBBH4s4s", data, 14)
    if ver_ihl != 0x45 or proto != 17:
        raise ValueError(f"frame {n}: IPv4 with options or not UDP")
    sport, dport, ulen, csum = struct.unpack_from(">HHHH", data, 34)
    b = 42
    op, flags, pkey, becn_byte, dqpn_hi, dqpn_lo, ack_byte, psn_hi, psn_lo = struct.unpack_from(">BBHBBHBBH", data, b)
    if op not in EXT:
        raise ValueError(f"frame {n}: opcode 0x{op:02x}: not one this benchmark rebuilds")
    f = {"dst": data[0:6].hex(":"), "src": data[6:12].hex(":"), "tos": tos, "id": ipid, "flags": frag >> 13,
         "frag": frag & 0x1FFF, "ttl": ttl, "ipsrc": ".".join(map(str, ipsrc)), "ipdst": ".".join(map(str, ipdst)),
         "sport": sport, "dport": dport, "udp_csum": csum, "opcode": op, "se": flags >> 7, "m": (flags >> 6) & 1,
         "pad": (flags >> 4) & 3, "tver": flags & 15, "pkey": pkey, "fecn": becn_byte >> 7, "becn": (becn_byte >> 6) & 1,
         "resv6": becn_byte & 0x3F, "dqpn": (dqpn_hi << 16) | dqpn_lo, "ackreq": ack_byte >> 7,
         "resv7": ack_byte & 0x7F, "psn": (psn_hi << 16) | psn_lo, "ext": []}
    off = b + 12
    for h in EXT[op]:
        if h == "reth":
            f["ext"].append(("reth",) + struct.unpack_from(">QII", data, off))
        elif h == "aeth":
            syn, msn_hi, msn_lo = struct.unpack_from(">BBH", data, off)
            f["ext"].append(("aeth", syn, (msn_hi << 16) | msn_lo))
        else:
            f["ext"].append(("imm",) + struct.unpack_from(">I", data, off))
        off += EXT_LEN[h]
    end = 34 + ulen - 4                 # the ICRC is the last 4 bytes of the UDP payload
    f["payload"] = data[off:end]        # payload and pad bytes, as scapy would be given them
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()

    frames = read_frames(a.pcap, a.frames)
    if not frames:
        print(f"gen_bench: {a.pcap}: no frames", file=sys.stderr)
        return 2
    specs = [parse(i, d) for i, d in enumerate(frames, 1)]

    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.fields import IntField, XIntField, XLongField
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Packet, Raw
    from scapy.contrib.roce import AETH, BTH
    import scapy

    class RETH(Packet):
        name = "RETH"
        fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]

    class ImmDt(Packet):
        name = "ImmDt"
        fields_desc = [XIntField("imm", 0)]

    def build(s):
        p = (Ether(dst=s["dst"], src=s["src"])
             / IP(tos=s["tos"], id=s["id"], flags=s["flags"], frag=s["frag"], ttl=s["ttl"], src=s["ipsrc"],
                  dst=s["ipdst"])
             / UDP(sport=s["sport"], dport=s["dport"], chksum=s["udp_csum"])
             / BTH(opcode=s["opcode"], solicited=s["se"], migreq=s["m"], padcount=s["pad"], version=s["tver"],
                   pkey=s["pkey"], fecn=s["fecn"], becn=s["becn"], resv6=s["resv6"], dqpn=s["dqpn"],
                   ackreq=s["ackreq"], resv7=s["resv7"], psn=s["psn"]))
        for h in s["ext"]:
            if h[0] == "reth":
                p = p / RETH(va=h[1], rkey=h[2], dlen=h[3])
            elif h[0] == "aeth":
                p = p / AETH(syndrome=h[1], msn=h[2])
            else:
                p = p / ImmDt(imm=h[1])
        if s["payload"]:
            p = p / Raw(s["payload"])
        return bytes(p)

    runs, built = [], None
    for _ in range(max(1, a.repeat)):
        t0 = time.perf_counter()
        out = [build(s) for s in specs]
        runs.append(time.perf_counter() - t0)
        built = out

    bad = [i for i, (x, y) in enumerate(zip(built, frames), 1) if x != y]
    if bad:
        i = bad[0]
        x, y = built[i - 1], frames[i - 1]
        at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
        print(f"gen_bench: {len(bad)} of {len(frames)} frames scapy built differ from {a.pcap}; first: frame {i} "
              f"(opcode 0x{specs[i - 1]['opcode']:02x}), {len(x)} vs {len(y)} bytes, first difference at byte {at}: "
              f"scapy {x[at:at + 8].hex()} capture {y[at:at + 8].hex()}", file=sys.stderr)
        return 1

    best = min(runs)
    nbytes = sum(len(f) for f in frames)
    ops = collections.Counter(f"0x{s['opcode']:02x}" for s in specs)
    res = {"frames": len(frames), "bytes": nbytes, "seconds": best, "run_seconds": runs,
           "packets_per_s": len(frames) / best, "mb_per_s": nbytes / best / 1e6, "verified": len(frames),
           "opcodes": dict(sorted(ops.items())), "scapy_version": scapy.__version__}
    print(f"gen_bench: scapy built {len(frames)} frames ({nbytes} bytes; opcodes {res['opcodes']}) in {best:.3f} s "
          f"(best of {len(runs)}): {res['packets_per_s']:.0f} packets/s, {res['mb_per_s']:.1f} MB/s; "
          f"all {len(frames)} equal to the capture's bytes")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
