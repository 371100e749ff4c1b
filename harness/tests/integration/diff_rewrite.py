# SPDX-License-Identifier: MIT
"""Rewrites a RoCE v2 capture (Ethernet, IPv4, classic pcap) for rocetest diff's tests.

usage: diff_rewrite.py MODE IN OUT [FRAME]
  normalise  every field the diff must not compare, rewritten consistently:
             MACs, IPs, IP IDs, TTL, UDP source ports (kept in their range and
             kept equal both ways where they were), QPNs, PSNs (an offset per
             requester, applied to its requests and to the answers to them),
             RETH addresses (an offset per requester), R_Keys, timestamps
  payload    flips one payload byte of frame FRAME
  imm        makes frame FRAME (a SEND or WRITE Only or Last) carry an ImmDt
  merge      merges frame FRAME (a Middle) into the packet before it (a First):
             one packet fewer, later PSNs of that requester one lower
  drop       leaves frame FRAME out
Frames are numbered from 1. ICRCs are left stale: run `rocetest icrc --fix` after.
Standard library only (pcaputil.py beside it).
"""
import struct
import sys

from pcaputil import read_pcap, write_pcap

RESPONSES = set(range(0x0D, 0x13))      # READ responses, ACK, atomic ACK
RETH_OPS = {0x06, 0x0A, 0x0B, 0x0C}     # WRITE First/Only(/Imm), READ request
IMM_OF = {0x04: 0x05, 0x02: 0x03, 0x0A: 0x0B, 0x08: 0x09}


def roce(data):
    """(ip_off, udp_off, bth_off) of an Ethernet/IPv4/UDP 4791 frame, else None."""
    if len(data) < 14 + 20 + 8 + 12 or data[12:14] != b"\x08\x00":
        return None
    ip = 14
    ihl = (data[ip] & 0x0F) * 4
    if data[ip + 9] != 17:
        return None
    udp = ip + ihl
    if struct.unpack(">H", data[udp + 2:udp + 4])[0] != 4791:
        return None
    return ip, udp, udp + 8


def ip_checksum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def fix_ip(data, ip):
    ihl = (data[ip] & 0x0F) * 4
    data[ip + 10:ip + 12] = b"\0\0"
    data[ip + 10:ip + 12] = struct.pack(">H", ip_checksum(data[ip:ip + ihl]))


def put(data, off, fmt, value):
    data[off:off + struct.calcsize(fmt)] = struct.pack(fmt, value)


def get(data, off, fmt):
    return struct.unpack(fmt, bytes(data[off:off + struct.calcsize(fmt)]))[0]


def requester_of(data, ip, bth):
    """The IP of the requester a packet belongs to: its sender for a request, its receiver for an answer."""
    return bytes(data[ip + 16:ip + 20]) if data[bth] in RESPONSES else bytes(data[ip + 12:ip + 16])


def normalise(frames):
    out = []
    offsets = {}
    for ts, data, wirelen in frames:
        data = bytearray(data)
        r = roce(data)
        if r:
            ip, udp, bth = r
            data[0:12] = bytes(b ^ 0x5A for b in data[0:12])
            req = requester_of(data, ip, bth)
            off = offsets.setdefault(req, 0x10000 * (len(offsets) + 1) + 0x345)
            for a in (ip + 12, ip + 16):                       # IPs: 10.x -> 172.16.x, one to one
                data[a] = data[a] ^ 0xA6
            put(data, ip + 4, ">H", (get(data, ip + 4, ">H") + 0x1234) & 0xFFFF)
            data[ip + 8] = (data[ip + 8] + 37) & 0xFF           # TTL
            put(data, udp, ">H", get(data, udp, ">H") ^ 0x0555)  # keeps 0xC000.. and equal ports equal
            qp = get(data, bth + 4, ">I")
            put(data, bth + 4, ">I", (qp & 0xFF000000) | ((qp & 0xFFFFFF) ^ 0x5A5A5A))
            psn = get(data, bth + 8, ">I")
            put(data, bth + 8, ">I", (psn & 0xFF000000) | (((psn & 0xFFFFFF) + off) & 0xFFFFFF))
            op = data[bth]
            if op in RETH_OPS:
                put(data, bth + 12, ">Q", (get(data, bth + 12, ">Q") + off * 0x1000) & (2**64 - 1))
                put(data, bth + 20, ">I", get(data, bth + 20, ">I") ^ 0x7E7E)
            if op == 0x64:                                      # UD: DETH source QP
                put(data, bth + 16, ">I", get(data, bth + 16, ">I") ^ 0x5A5A5A)
            fix_ip(data, ip)
        out.append((bytes(data), wirelen, ts + 1000 * 1_000_000_000))
    return out


def flip_payload(frames, n):
    ts, data, wirelen = frames[n - 1]
    data = bytearray(data)
    # The last payload byte: 4 ICRC bytes before the end, past any pad.
    pad = (data[roce(data)[2] + 1] >> 4) & 3
    data[len(data) - 5 - pad] ^= 0xFF
    frames[n - 1] = (ts, bytes(data), wirelen)
    return frames


def add_imm(frames, n):
    ts, data, wirelen = frames[n - 1]
    data = bytearray(data)
    ip, udp, bth = roce(data)
    op = data[bth]
    if op not in IMM_OF:
        raise SystemExit(f"frame {n}: opcode 0x{op:02x} takes no immediate here")
    data[bth] = IMM_OF[op]
    at = bth + 12 + (16 if op == 0x0A else 0)
    data[at:at] = b"\xde\xad\xbe\xef"
    put(data, ip + 2, ">H", get(data, ip + 2, ">H") + 4)
    put(data, udp + 4, ">H", get(data, udp + 4, ">H") + 4)
    fix_ip(data, ip)
    frames[n - 1] = (ts, bytes(data), wirelen + 4)
    return frames


def merge(frames, n):
    """Frame n (a Middle) into frame n-1 (its First): payloads joined, later PSNs of that requester one lower."""
    _, mid, _ = frames[n - 1]
    ts, first, wirelen = frames[n - 2]
    ip, udp, bth = roce(first)
    mi, mu, mb = roce(mid)
    extra = mid[mb + 12:len(mid) - 4]
    body = bytearray(first)
    body[len(body) - 4:len(body) - 4] = extra
    for off, fmt in ((ip + 2, ">H"), (udp + 4, ">H")):
        put(body, off, fmt, get(body, off, fmt) + len(extra))
    fix_ip(body, ip)
    req = bytes(mid[mi + 12:mi + 16])
    gone = get(mid, mb + 8, ">I") & 0xFFFFFF
    out = frames[:n - 2] + [(ts, bytes(body), wirelen + len(extra))]
    for t, data, w in frames[n:]:
        data = bytearray(data)
        r = roce(data)
        if r and requester_of(data, r[0], r[2]) == req:
            psn = get(data, r[2] + 8, ">I")
            p = psn & 0xFFFFFF
            if ((p - gone) & 0xFFFFFF) < 0x800000 and p != gone:
                put(data, r[2] + 8, ">I", (psn & 0xFF000000) | ((p - 1) & 0xFFFFFF))
        out.append((t, bytes(data), w))
    return out


def main():
    mode, src, dst = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    linktype, snaplen, frames = read_pcap(src)
    if linktype != 1:
        raise SystemExit(f"{src}: link type {linktype}, not Ethernet")
    frames = [(ts, data, wl) for ts, data, wl in frames]
    if mode == "normalise":
        out = normalise(frames)
    else:
        edit = {"payload": flip_payload, "imm": add_imm, "merge": merge,
                "drop": lambda f, k: f[:k - 1] + f[k:]}[mode]
        out = [(d, w, t) for t, d, w in edit(frames, n)]
    write_pcap(dst, out, linktype=linktype, snaplen=max(snaplen, 65535), nano=True)


if __name__ == "__main__":
    main()
