# SPDX-License-Identifier: MIT
"""Crafts damaged or unusual captures for the CLI tests (stdlib only).

usage: craft.py KIND ARGS...
  linktype105 OUT              a valid pcap header with link type 105 (IEEE 802.11) and one frame
  cut SRC OUT                  SRC cut in the middle of the data of a record; prints that frame's number
  udp-too-long SRC OUT         SRC with the UDP length of one RoCE frame 100 more than the IP
                               payload; prints that frame's number
  corrupt-icrc SRC OUT         SRC with one bit of one RoCE ICRC flipped; prints that frame's number
  sll SRC OUT                  SRC (Ethernet) rewritten as Linux cooked v1 (link type 113)
  sll2 SRC OUT                 SRC (Ethernet) rewritten as Linux cooked v2 (link type 276)
  count-roce-over SRC SNAP     how many RoCEv2 frames of SRC are longer than SNAP bytes
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402


def roce_udp(frame):
    """For an Ethernet frame carrying RoCEv2: (offset of the UDP header, UDP length); else None."""
    off = 12
    etype = struct.unpack(">H", frame[off:off + 2])[0]
    off += 2
    while etype in (0x8100, 0x88A8, 0x9100):
        etype = struct.unpack(">H", frame[off + 2:off + 4])[0]
        off += 4
    if etype == 0x0800:
        if frame[off + 9] != 17:
            return None
        udp = off + (frame[off] & 0x0F) * 4
    elif etype == 0x86DD:
        if frame[off + 6] != 17:
            return None
        udp = off + 40
    else:
        return None
    if len(frame) < udp + 8 or struct.unpack(">H", frame[udp + 2:udp + 4])[0] != 4791:
        return None
    return udp, struct.unpack(">H", frame[udp + 4:udp + 6])[0]


def load_ethernet(src):
    link, snap, frames = pcaputil.read_pcap(src)
    if link != 1:
        sys.exit(f"{src}: link type {link}, need Ethernet")
    return snap, frames


def pick_roce(frames, nth=2):
    """The index of the nth (1-based) complete RoCEv2 frame."""
    seen = 0
    for i, (_, data, wirelen) in enumerate(frames):
        r = roce_udp(data)
        if r and len(data) == wirelen and r[0] + r[1] <= len(data):
            seen += 1
            if seen == nth:
                return i
    sys.exit("no suitable RoCEv2 frame")


def save(out, snap, frames, linktype=1):
    pcaputil.write_pcap(out, [(d, w, t) for t, d, w in frames], linktype=linktype, snaplen=snap, nano=True)


def main(argv):
    kind = argv[1]
    if kind == "linktype105":
        pcaputil.write_pcap(argv[2], [bytes(64)], linktype=105)
    elif kind == "cut":
        src, out = argv[2], argv[3]
        _, _, frames = pcaputil.read_pcap(src)
        offs = pcaputil.record_offsets(src)
        k = len(frames) // 2  # 0-based index of the record to cut
        cut_at = offs[k] + 16 + len(frames[k][1]) // 2
        with open(src, "rb") as f:
            blob = f.read(cut_at)
        with open(out, "wb") as f:
            f.write(blob)
        print(k + 1)
    elif kind in ("udp-too-long", "corrupt-icrc"):
        src, out = argv[2], argv[3]
        snap, frames = load_ethernet(src)
        i = pick_roce(frames)
        ts, data, wirelen = frames[i]
        data = bytearray(data)
        udp, ulen = roce_udp(bytes(data))
        if kind == "udp-too-long":
            struct.pack_into(">H", data, udp + 4, ulen + 100)
        else:
            data[udp + ulen - 4] ^= 0x01  # the first ICRC byte (its least significant bit)
        frames[i] = (ts, bytes(data), wirelen)
        save(out, snap, frames)
        print(i + 1)
    elif kind in ("sll", "sll2"):
        src, out = argv[2], argv[3]
        snap, frames = load_ethernet(src)
        conv = []
        for ts, data, wirelen in frames:
            mac_src, proto, rest = data[6:12], data[12:14], data[14:]
            if kind == "sll":
                # packet type 0 (to us), ARPHRD_ETHER, address length 6, address padded to 8, protocol
                hdr = struct.pack(">HHH", 0, 1, 6) + mac_src + b"\0\0" + proto
            else:
                # protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address
                hdr = proto + b"\0\0" + struct.pack(">IHBB", 2, 1, 0, 6) + mac_src + b"\0\0"
            conv.append((ts, hdr + rest, wirelen - 14 + len(hdr)))
        save(out, snap + 6, conv, linktype=113 if kind == "sll" else 276)
    elif kind == "count-roce-over":
        _, frames = load_ethernet(argv[2])
        snap = int(argv[3])
        print(sum(1 for _, d, w in frames if roce_udp(d) and w > snap))
    else:
        sys.exit(f"unknown kind {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
