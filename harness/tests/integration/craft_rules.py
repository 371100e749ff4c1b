# SPDX-License-Identifier: MIT
"""Crafts RC/UC captures that each break one conformance rule, and near-miss twins.

usage: craft_rules.py OUTDIR

Writes OUTDIR/NAME.pcap for every case below and OUTDIR/manifest.json, a list
of {"name", "file", "args", "kind", "rule", "frames", "also", "why"}:
  kind "break": `rocetest check ARGS FILE` must report RULE at each of FRAMES
               and no error of any other rule except those in ALSO (each of
               which must then be reported at FRAMES too);
  kind "twin":  the near miss, conformant: no violation of RULE, no error at
               all, and RULE evaluated at least once.
check_rules.py runs them. OUTDIR/warnings.pcap holds one frame for each
warning check_warnings.py verifies and a clean frame (OUTDIR/warnings.json
says which), for testing that script. The packets are built with scapy (scapy.contrib.roce
computes every ICRC), the headers scapy has no layer for (RETH, AtomicETH,
AtomicAckETH) as bytes after the BTH; timestamps are exact nanoseconds.

Every capture is one connection between A (10.0.0.1, QP 0x11), the requester,
and B (10.0.0.2, QP 0x12), the responder, with everything else conformant:
UDP source port in 0xC000-0xFFFF, DF set, P_Key 0xFFFF, AckReq on every
Last/Only, pad bytes zero, ACKs with unlimited credits (syndrome 0x1F). Where
the break is the requester's own and a responder would have to react to it
(NAK invalid request...), the capture holds no responder at all, so that no
RSP rule can be blamed.
"""
import json
import logging
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaputil  # noqa: E402

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, UDP, Ether, Raw, raw  # noqa: E402
from scapy.contrib.roce import AETH, BTH  # noqa: E402

# RC opcodes (UC: + 0x20 for 0x00-0x0B).
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY = 0x06, 0x07, 0x08, 0x0A
READ_REQUEST = 0x0C
READ_FIRST, READ_MIDDLE, READ_LAST, READ_ONLY = 0x0D, 0x0E, 0x0F, 0x10
ACK, ATOMIC_ACK, FETCH_ADD = 0x11, 0x12, 0x14
UC = 0x20

ACK_SYNDROME = 0x1F  # ACK, credits unlimited (what rxe sends)
NAK_SEQ, NAK_REMOTE_ACCESS = 0x60, 0x62


def rnr_nak(timer_code):
    return 0x20 | timer_code


def reth(length, va=0x10000, rkey=0x1234):
    return struct.pack(">QII", va, rkey, length)


def atomic_eth(va=0x20000, rkey=0x1234, swap_add=1, compare=0):
    return struct.pack(">QIQQ", va, rkey, swap_add, compare)


def payload(n, psn):
    """Payload bytes that depend only on the PSN: a retransmission carries the same bytes."""
    return bytes((psn * 7 + i * 13) & 0xFF for i in range(n))


class Conn:
    """One connection A <-> B; frames are added in capture order, 1 us apart unless told."""

    T0 = 1_700_000_000_000_000_000
    ENDS = {"A": ("10.0.0.1", 0x11), "B": ("10.0.0.2", 0x12)}
    SPORT = 0xC123  # the same in both directions, as rxe does

    def __init__(self):
        self.frames = []  # (ts_ns, bytes)
        self.t = self.T0

    def add(self, frm, opcode, psn, data=b"", ext=b"", ackreq=False, aeth=None, dt_us=1.0, bad_icrc=False,
            sport=SPORT, df=True, resv7=0):
        """Adds one packet sent by frm ("A" or "B"); returns its 1-based frame number."""
        src, _ = self.ENDS[frm]
        dst, dqp = self.ENDS["B" if frm == "A" else "A"]
        pad = (-len(data)) & 3
        bth = BTH(opcode=opcode, padcount=pad, pkey=0xFFFF, dqpn=dqp, ackreq=int(ackreq), resv7=resv7,
                  psn=psn & 0xFFFFFF)
        layers = bth
        if aeth is not None:
            layers = layers / AETH(syndrome=aeth[0], msn=aeth[1] & 0xFFFFFF)
        layers = layers / Raw(ext + data + bytes(pad))
        pkt = (Ether(src="02:00:00:00:00:01" if frm == "A" else "02:00:00:00:00:02",
                     dst="02:00:00:00:00:02" if frm == "A" else "02:00:00:00:00:01")
               / IP(src=src, dst=dst, flags="DF" if df else 0, ttl=64, id=len(self.frames) + 1)
               / UDP(sport=sport, dport=4791, chksum=0) / layers)
        b = bytearray(raw(pkt))
        if bad_icrc:
            b[-1] ^= 0x01  # the ICRC's last byte: nothing else changes
        self.t += int(round(dt_us * 1000))
        self.frames.append((self.t, bytes(b)))
        return len(self.frames)

    # Shorthands for the common packets.
    def req(self, opcode, psn, n=0, ext=b"", ackreq=None, **kw):
        """A request from A; AckReq defaults to set on Last/Only (and READ/atomic), clear otherwise."""
        if ackreq is None:
            ackreq = (opcode & 0x1F) in (SEND_LAST, 0x03, SEND_ONLY, 0x05, WRITE_LAST, 0x09, WRITE_ONLY, 0x0B,
                                         READ_REQUEST, 0x13, FETCH_ADD)
        return self.add("A", opcode, psn, payload(n, psn), ext=ext, ackreq=ackreq, **kw)

    def ack(self, psn, msn, syndrome=ACK_SYNDROME, **kw):
        return self.add("B", ACK, psn, aeth=(syndrome, msn), **kw)

    def write(self, path):
        pcaputil.write_pcap(path, [(d, len(d), t) for t, d in self.frames], nano=True)


# ---- the cases ------------------------------------------------------------------
# Each returns (Conn, expectation dict). The frame numbers come from the calls
# that add the offending packets, never from counting by hand.

def seq_psn(twin):
    c = Conn()
    if twin:  # the 24-bit wrap 0xFFFFFE, 0xFFFFFF, 0, 1 is in order
        for psn in (0xFFFFFE, 0xFFFFFF, 0, 1):
            c.req(SEND_ONLY, psn, 64)
        return c, dict(why="PSN 0xFFFFFE, 0xFFFFFF, 0, 1: the wrap is in order")
    c.req(SEND_ONLY, 100, 64)
    c.req(SEND_ONLY, 101, 64)
    f = c.req(SEND_ONLY, 103, 64)
    return c, dict(frames=[f], why="PSN 100, 101, 103 with no responder: 102 never sent and no NAK explains it")


def seq_opcode(twin):
    c = Conn()
    c.req(SEND_FIRST, 200, 1024)
    if twin:
        c.req(SEND_MIDDLE, 201, 1024)
        c.req(SEND_LAST, 202, 100)
        return c, dict(why="SEND First, Middle, Last")
    f = c.req(WRITE_MIDDLE, 201, 1024)
    return c, dict(frames=[f], why="SEND First followed by WRITE Middle (a First of another family is open)")


def seq_no_first(twin):
    c = Conn()
    c.req(SEND_FIRST, 300, 1024)
    c.req(SEND_LAST, 301, 100)
    if twin:
        c.req(SEND_FIRST, 302, 1024)
        c.req(SEND_MIDDLE, 303, 1024)
        c.req(SEND_LAST, 304, 100)
        return c, dict(why="SEND First, Last, First, Middle, Last")
    f = c.req(SEND_MIDDLE, 302, 1024)
    return c, dict(frames=[f], why="SEND Middle right after a SEND Last: no First open")


def seq_no_first_mid_capture(twin):
    """Only a twin: a capture that starts inside a message is the capture's property, not a violation."""
    c = Conn()
    c.req(SEND_MIDDLE, 400, 1024)
    c.req(SEND_LAST, 401, 100)
    c.req(SEND_FIRST, 402, 1024)
    c.req(SEND_LAST, 403, 100)
    c.ack(403, 2)
    return c, dict(why="the capture starts with a SEND Middle (mid-message), then a whole message, all ACKed")


def seq_write_length(twin):
    c = Conn()
    if twin:
        c.req(WRITE_FIRST, 500, 1024, ext=reth(3000))
        c.req(WRITE_MIDDLE, 501, 1024)
        c.req(WRITE_LAST, 502, 952)
        return c, dict(why="RETH length 3000 = 1024 + 1024 + 952")
    c.req(WRITE_FIRST, 500, 1024, ext=reth(4096))
    c.req(WRITE_MIDDLE, 501, 1024)
    f = c.req(WRITE_LAST, 502, 1024)
    return c, dict(frames=[f], why="RETH length 4096, payloads 1024 + 1024 + 1024 (Last): 3072 bytes")


def seq_pmtu_consistent(twin):
    """Without --pmtu, a First of 1024 and a Middle of 512 contradict each other but neither can be
    called the wrong one: only SEQ-PMTU-CONSISTENT applies (PKT-LEN-FIRST-MIDDLE would need the
    PMTU). seq_pmtu_consistent_given has the same packets with --pmtu 1024."""
    c = Conn()
    if twin:
        c.req(SEND_FIRST, 600, 512)
        c.req(SEND_MIDDLE, 601, 512)
        c.req(SEND_LAST, 602, 100)
        c.req(WRITE_FIRST, 603, 512, ext=reth(1124))
        c.req(WRITE_MIDDLE, 604, 512)
        c.req(WRITE_LAST, 605, 100)
        return c, dict(why="every First/Middle of the flow carries 512 bytes")
    c.req(SEND_FIRST, 600, 1024)
    f = c.req(SEND_MIDDLE, 601, 512)
    c.req(SEND_LAST, 602, 100)
    return c, dict(frames=[f], why="SEND First of 1024 bytes, Middle of 512, no --pmtu")


def seq_pmtu_consistent_given(twin):
    """With --pmtu 1024 the Middle of 512 is the wrong one: it breaks PKT-LEN-FIRST-MIDDLE as well,
    and both are expected at it. No packet can break SEQ-PMTU-CONSISTENT alone once the PMTU is
    given. (Break only: the twin would repeat seq_pmtu_consistent's.)"""
    c, exp = seq_pmtu_consistent(False)
    exp.update(args=["--pmtu", "1024"], also=["PKT-LEN-FIRST-MIDDLE"],
               why="--pmtu 1024, SEND First of 1024 bytes, Middle of 512 (also PKT-LEN-FIRST-MIDDLE)")
    return c, exp


def pkt_icrc(twin):
    c = Conn()
    c.req(SEND_ONLY, 700, 64)
    c.req(SEND_ONLY, 701, 64)
    # The damaged packet is the flow's last, so that whether the checker keeps it in the
    # flow's PSN sequence or not, no SEQ rule sees a gap.
    f = c.req(SEND_ONLY, 702, 64, bad_icrc=not twin)
    if twin:
        return c, dict(why="three SEND Only with valid ICRCs")
    return c, dict(frames=[f], why="one bit of the last packet's ICRC flipped")


def pkt_len_only(twin):
    c = Conn()
    n = 1024 if twin else 2048
    f = c.req(SEND_ONLY, 800, n)
    c.ack(800, 1)
    if twin:
        return c, dict(args=["--pmtu", "1024"], why="--pmtu 1024 and a SEND Only of 1024 bytes")
    return c, dict(args=["--pmtu", "1024"], frames=[f], why="--pmtu 1024 and a SEND Only of 2048 bytes")


def rsp_nak_seq(twin):
    c = Conn()
    c.req(SEND_ONLY, 900, 64)
    c.ack(900, 1)
    c.req(SEND_ONLY, 902, 64)  # 901 was lost before the capture point
    if twin:
        c.ack(901, 1, syndrome=NAK_SEQ)
        c.req(SEND_ONLY, 901, 64)
        c.req(SEND_ONLY, 902, 64)
        c.ack(902, 3)
        return c, dict(why="901 lost: NAK sequence error with the expected PSN 901, go-back-N, ACK 902")
    f = c.ack(902, 1, syndrome=NAK_SEQ)
    return c, dict(frames=[f],
                   why="901 lost: the NAK sequence error carries 902, the received PSN, not the expected 901")


def rsp_nak_seq_twice(twin):
    c = Conn()
    c.req(SEND_ONLY, 900, 64)
    c.ack(900, 1)
    c.req(SEND_ONLY, 902, 64)  # 901 was lost before the capture point
    c.req(SEND_ONLY, 903, 64)
    c.ack(901, 1, syndrome=NAK_SEQ)
    f = None if twin else c.ack(901, 1, syndrome=NAK_SEQ)
    c.req(SEND_ONLY, 901, 64)
    c.req(SEND_ONLY, 902, 64)
    c.req(SEND_ONLY, 903, 64)
    c.ack(903, 4)
    if twin:
        return c, dict(why="902 and 903 ahead of the lost 901 draw one NAK sequence error; go-back-N; ACK 903")
    return c, dict(frames=[f], why="902 and 903 ahead of the lost 901 draw two NAK sequence errors before 901 arrives")


def seq_ack_ahead(twin):
    c = Conn()
    c.req(SEND_ONLY, 1000, 64)
    if twin:
        c.req(SEND_ONLY, 1001, 64)
        c.req(SEND_ONLY, 1002, 64)
        c.ack(1002, 3)
        return c, dict(why="three requests, one coalesced ACK for the last")
    c.ack(1000, 1)
    c.req(SEND_ONLY, 1001, 64)
    f = c.ack(1005, 2)
    # 1002 sent as new after the ACK for 1005 proves 1002-1005 had not been sent (not a capture gap).
    c.req(SEND_FIRST, 1002, 1024)
    return c, dict(frames=[f],
                   why="ACK for PSN 1005 when 1001 was the last sent; 1002 is sent for the first time after it")


def seq_msn(twin):
    c = Conn()
    c.req(SEND_ONLY, 1100, 64)
    if twin:  # the 24-bit MSN wraps too
        c.ack(1100, 0xFFFFFF)
        c.req(SEND_ONLY, 1101, 64)
        c.ack(1101, 0)
        return c, dict(why="MSN 0xFFFFFF then 0 for the next message: the wrap advances by one")
    c.ack(1100, 5)
    c.req(SEND_ONLY, 1101, 64)
    f = c.ack(1101, 4)
    return c, dict(frames=[f], why="MSN 5 then 4 for the next completed message")


def rsp_silent_after_fatal(twin):
    c = Conn()
    c.req(SEND_ONLY, 1200, 64)
    c.ack(1200, 1)
    c.req(WRITE_ONLY, 1201, 64, ext=reth(64))
    c.ack(1201, 1, syndrome=NAK_REMOTE_ACCESS)
    if twin:
        return c, dict(why="NAK remote access error, then nothing more from the responder")
    f = c.ack(1201, 1, syndrome=NAK_REMOTE_ACCESS)
    return c, dict(frames=[f], why="the responder sends its NAK remote access error (0x62) a second time")


def req_go_back_n(twin):
    c = Conn()
    # The capture point is before the loss: every PSN the requester sends is in the capture.
    c.req(SEND_ONLY, 1300, 64)
    c.req(SEND_ONLY, 1301, 64)
    c.req(SEND_ONLY, 1302, 64)
    c.ack(1300, 1)
    c.ack(1301, 1, syndrome=NAK_SEQ)
    if twin:
        c.req(SEND_ONLY, 1301, 64)
        c.req(SEND_ONLY, 1302, 64)
        c.ack(1302, 3)
        return c, dict(why="NAK sequence error 1301: the requester resends from 1301")
    f = c.req(SEND_ONLY, 1302, 64)
    # A timeout later it sends 1301 and 1302 after all; everything is then acknowledged.
    c.req(SEND_ONLY, 1301, 64, dt_us=20000)
    c.req(SEND_ONLY, 1302, 64)
    c.ack(1302, 3)
    return c, dict(frames=[f],
                   why="NAK sequence error 1301 in a capture that holds every PSN: the requester resends from 1302")


def req_rnr_wait(twin):
    c = Conn()
    c.req(SEND_ONLY, 1400, 64)
    c.ack(1400, 0, syndrome=rnr_nak(14), dt_us=5)  # timer 14: 1.28 ms
    f = c.req(SEND_ONLY, 1400, 64, dt_us=1300 if twin else 10)
    c.ack(1400, 1, dt_us=5)
    if twin:
        return c, dict(why="RNR NAK timer 14 (1.28 ms), resent 1.3 ms later")
    return c, dict(frames=[f], why="RNR NAK timer 14 (1.28 ms), resent 10 us later")


def seq_read_response(twin):
    c = Conn()
    c.req(READ_REQUEST, 1500, 0, ext=reth(3000))
    c.add("B", READ_FIRST, 1500, payload(1024, 1), aeth=(ACK_SYNDROME, 1))
    c.add("B", READ_MIDDLE, 1501, payload(1024, 2))
    f = c.add("B", READ_LAST, 1502, payload(952 if twin else 900, 3), aeth=(ACK_SYNDROME, 1))
    c.req(SEND_ONLY, 1503, 64)
    c.ack(1503, 2)
    if twin:
        return c, dict(args=["--pmtu", "1024"], why="READ of 3000 at PMTU 1024: First 1024, Middle 1024, Last 952")
    return c, dict(args=["--pmtu", "1024"], frames=[f],
                   why="READ of 3000 at PMTU 1024: First 1024, Middle 1024, Last 900 (2948 bytes; every packet legal)")


def seq_atomic_ack(twin):
    c = Conn()
    c.req(SEND_ONLY, 1600, 64)
    c.ack(1600, 1)
    c.req(FETCH_ADD, 1601, 0, ext=atomic_eth())
    # The broken ACK repeats the previous ACK's PSN and MSN, so its MSN is consistent with its PSN
    # and only the PSN is wrong.
    f = c.add("B", ATOMIC_ACK, 1601 if twin else 1600, aeth=(ACK_SYNDROME, 2 if twin else 1),
              ext=struct.pack(">Q", 5))
    c.req(SEND_ONLY, 1602, 64)
    c.ack(1602, 3)
    if twin:
        return c, dict(why="Fetch&Add at PSN 1601 answered by an atomic ACK with PSN 1601")
    return c, dict(frames=[f], why="Fetch&Add at PSN 1601 answered by an atomic ACK with PSN 1600 (MSN 1)")


def seq_uc_only_sends_writes(twin):
    c = Conn()
    c.req(UC | SEND_ONLY, 1700, 64, ackreq=False)
    c.req(UC | WRITE_ONLY, 1701, 64, ext=reth(64), ackreq=False)
    if twin:
        c.req(UC | SEND_FIRST, 1702, 1024, ackreq=False)
        c.req(UC | SEND_LAST, 1703, 10, ackreq=False)
        return c, dict(why="UC SEND Only, WRITE Only, SEND First, Last")
    f = c.req(READ_REQUEST, 1702, 0, ext=reth(64))
    return c, dict(frames=[f], why="a UC flow (SEND Only, WRITE Only) then a READ request to the same QP")


def req_ackreq(twin):
    c = Conn()
    c.req(SEND_FIRST, 1800, 1024)
    f = c.req(SEND_LAST, 1801, 100, ackreq=twin)
    c.req(SEND_ONLY, 1802, 64)
    c.ack(1802, 2)
    if twin:
        return c, dict(why="SEND Last with AckReq")
    return c, dict(frames=[f], why="SEND Last without AckReq (a warning); a later ACK covers it")


def warnings_capture():
    """One frame per warning rule check_warnings.py verifies, then a clean one: for testing that script.
    Returns the Conn and {rule: frame}, and the clean frame."""
    c = Conn()
    frames = {
        "PKT-UDP-SPORT": c.req(SEND_ONLY, 1900, 64, sport=0x1234),
        "PKT-IP-DF": c.req(SEND_ONLY, 1901, 64, df=False),
        "PKT-RESERVED": c.req(SEND_ONLY, 1902, 64, resv7=0x01),
        "REQ-ACKREQ": c.req(SEND_ONLY, 1903, 64, ackreq=False),
    }
    clean = c.req(SEND_ONLY, 1904, 64)
    c.ack(1904, 5)
    return c, frames, clean


CASES = [
    ("SEQ-PSN", seq_psn), ("SEQ-OPCODE", seq_opcode), ("SEQ-NO-FIRST", seq_no_first),
    ("SEQ-NO-FIRST", seq_no_first_mid_capture), ("SEQ-WRITE-LENGTH", seq_write_length),
    ("SEQ-PMTU-CONSISTENT", seq_pmtu_consistent), ("SEQ-PMTU-CONSISTENT", seq_pmtu_consistent_given),
    ("PKT-ICRC", pkt_icrc), ("PKT-LEN-ONLY", pkt_len_only),
    ("RSP-NAK-SEQ", rsp_nak_seq), ("RSP-NAK-SEQ", rsp_nak_seq_twice), ("SEQ-ACK-AHEAD", seq_ack_ahead),
    ("SEQ-MSN", seq_msn), ("RSP-SILENT-AFTER-FATAL", rsp_silent_after_fatal), ("REQ-GO-BACK-N", req_go_back_n),
    ("REQ-RNR-WAIT", req_rnr_wait), ("SEQ-READ-RESPONSE", seq_read_response), ("SEQ-ATOMIC-ACK", seq_atomic_ack),
    ("SEQ-UC-ONLY-SENDS-WRITES", seq_uc_only_sends_writes), ("REQ-ACKREQ", req_ackreq),
]
TWIN_ONLY = {seq_no_first_mid_capture}
BREAK_ONLY = {seq_pmtu_consistent_given}


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = []
    for rule, fn in CASES:
        for twin in (False, True):
            if (fn in TWIN_ONLY and not twin) or (fn in BREAK_ONLY and twin):
                continue
            conn, exp = fn(twin)
            name = fn.__name__.replace("_", "-") + ("-twin" if twin else "")
            path = os.path.join(out, name + ".pcap")
            conn.write(path)
            manifest.append({
                "name": name, "file": path, "args": exp.get("args", []), "kind": "twin" if twin else "break",
                "rule": rule, "frames": exp.get("frames", []), "also": exp.get("also", []),
                "evaluated": exp.get("evaluated", True), "why": exp["why"],
            })
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    conn, frames, clean = warnings_capture()
    conn.write(os.path.join(out, "warnings.pcap"))
    with open(os.path.join(out, "warnings.json"), "w") as f:
        json.dump({"warnings": frames, "clean": clean}, f)
    print(f"{len(manifest)} captures in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
