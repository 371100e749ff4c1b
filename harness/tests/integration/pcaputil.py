# SPDX-License-Identifier: MIT
"""Classic pcap reading and writing with the standard library only.

The integration tests use this to craft captures scapy cannot (odd link
types, hand-damaged frames) and to compare frame bytes exactly.
"""
import struct

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D


def write_pcap(path, frames, linktype=1, snaplen=65535, nano=False):
    """frames: list of bytes, or of (bytes, wirelen) / (bytes, wirelen, ts_ns)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", MAGIC_NS if nano else MAGIC_US, 2, 4, 0, 0, snaplen, linktype))
        for i, fr in enumerate(frames):
            if isinstance(fr, (bytes, bytearray)):
                data, wirelen, ts = bytes(fr), len(fr), 1_700_000_000_000_000_000 + i * 1000
            else:
                data, wirelen = bytes(fr[0]), fr[1]
                ts = fr[2] if len(fr) > 2 else 1_700_000_000_000_000_000 + i * 1000
            sec, sub = divmod(ts, 1_000_000_000)
            if not nano:
                sub //= 1000
            f.write(struct.pack("<IIII", sec, sub, len(data), wirelen))
            f.write(data)


def read_pcap(path):
    """Returns (linktype, snaplen, [(ts_ns, data, wirelen), ...]) of a classic pcap."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 24:
        raise ValueError(f"{path}: {len(blob)} bytes, too short for a pcap header")
    magic_le = struct.unpack("<I", blob[:4])[0]
    magic_be = struct.unpack(">I", blob[:4])[0]
    if magic_le in (MAGIC_US, MAGIC_NS):
        e, magic = "<", magic_le
    elif magic_be in (MAGIC_US, MAGIC_NS):
        e, magic = ">", magic_be
    else:
        raise ValueError(f"{path}: not a classic pcap (magic {blob[:4].hex()})")
    _, _, _, _, snaplen, linktype = struct.unpack(e + "HHiIII", blob[4:24])
    scale = 1 if magic == MAGIC_NS else 1000
    off, frames = 24, []
    while off < len(blob):
        if off + 16 > len(blob):
            raise ValueError(f"{path}: record header cut at byte {off}")
        sec, sub, caplen, wirelen = struct.unpack(e + "IIII", blob[off:off + 16])
        off += 16
        if off + caplen > len(blob):
            raise ValueError(f"{path}: record data cut at byte {off}")
        frames.append((sec * 1_000_000_000 + sub * scale, blob[off:off + caplen], wirelen))
        off += caplen
    return linktype, snaplen, frames


def record_offsets(path):
    """Byte offsets of each record header of a classic little- or big-endian pcap."""
    _, _, frames = read_pcap(path)
    offs, off = [], 24
    for _, data, _ in frames:
        offs.append(off)
        off += 16 + len(data)
    return offs
