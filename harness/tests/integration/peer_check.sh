#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest peer up to the hardware boundary (this machine has no RDMA device
# and cannot load rdma_rxe; the verbs path runs in the interop lab).
#
#   cli     no RDMA device: the message naming `rdma link add`, exit 2 (with
#           any device of the machine hidden in a private mount namespace);
#           usage errors, exit 2
#   board   the peer's CM exchange (`--cm-only`, the library's CM client over
#           a UDP socket from a kernel address) against the virtual board on
#           a veth pair between two network namespaces: every reply ACK, the
#           board's QPN and the host's fields echoed; then the RoCE frames the
#           board sends on the txmeta start, captured by dumpcap on the host's
#           end: SENDs and WRITEs with immediate to the host's QPN, each
#           payload the pattern rt_txgen_pattern defines (checked here in
#           Python from its definition: 32-bit little-endian words counting
#           from 0), WRITE addresses and immediates as roce_txgen makes them,
#           and the capture clean for `rocetest check`; a board that does not
#           answer: exit 2
#
# usage: bash harness/tests/integration/peer_check.sh PATH/TO/rocetest cli|board
# PEER_SIM_LIB: another model for the board (default: beside rocetest).
# Prints "ok - NAME" / "FAIL - NAME: why" lines ("#" lines are details).
set -u

ROCETEST=$1
PART=$2
PY=/usr/bin/python3
BOARD_IP=10.0.0.1
BOARD_MAC=02:00:00:00:00:01
HOST_IP=10.0.0.2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-peer.XXXXXX")
NS_H="" CAP_PID=""

# shellcheck source=harness/scripts/hw-netns.sh
. harness/scripts/hw-netns.sh

cleanup() {
	[ -z "$CAP_PID" ] || kill "$CAP_PID" 2>/dev/null
	hw_board_stop
	[ -z "$NS_H" ] || hw_netns_down
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

WORK=$TMP
PREFIX="peer: "
# shellcheck source=harness/tests/integration/cmd_lib.sh
. harness/tests/integration/cmd_lib.sh

part_cli() {
	local devs=/sys/class/infiniband_verbs
	if [ -n "$(ls -A "$devs" 2>/dev/null)" ]; then
		# This machine has RDMA devices: hide them from libibverbs.
		# shellcheck disable=SC2016 # the inner shell expands them
		run unshare --mount sh -c 'mount -t tmpfs none "$0" && exec "$1" peer --dut-ip 10.0.0.1' "$devs" "$ROCETEST"
	else
		run "$ROCETEST" peer --dut-ip $BOARD_IP
	fi
	want_rc 2
	err_has "rocetest: no RDMA devices found; load a driver or create a soft-RoCE device with \`rdma link add rxe0 type rxe netdev IF\`"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || probs+=("more than that line on stderr (a libibverbs warning?)")
	[ -s "$WORK/out" ] && probs+=("stdout is not empty")
	check "no RDMA device: that message alone, exit 2"
	run "$ROCETEST" peer --dut-ip $BOARD_IP --json "$WORK/peer.json"
	want_rc 2
	"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if (r["exit"], r["messages"], r["expected"], r["gid_index"]) == (2, 0, 1000, -1) else r)' \
		"$WORK/peer.json" 2>>"$WORK/err" || probs+=("--json: $(tail -c 300 "$WORK/err")")
	check "no RDMA device with --json: the JSON says exit 2, no messages of 1000"
	run "$ROCETEST" peer
	want_rc 2; err_has "--dut-ip (the board's address) is required"
	check "no --dut-ip: usage error, exit 2"
	run "$ROCETEST" peer --dut-ip $BOARD_IP --poll spin
	want_rc 2; err_has "--poll is busy or event, not 'spin'"
	check "--poll spin: usage error, exit 2"
	run "$ROCETEST" peer --dut-ip $BOARD_IP --pmtu 1500
	want_rc 2; err_has "--pmtu is 256, 512, 1024, 2048 or 4096, not 1500"
	check "--pmtu 1500: usage error, exit 2"
	run "$ROCETEST" peer --dut-ip $BOARD_IP --count 0
	want_rc 2; err_has "--count needs a number from 1"
	check "--count 0: usage error, exit 2"
	run "$ROCETEST" peer --cm-only --dut-ip $BOARD_IP
	want_rc 2; err_has "--cm-only needs --local-ip"
	check "--cm-only without --local-ip: usage error, exit 2"
	run "$ROCETEST" peer --help
	want_rc 0; out_has "--gid-index N"; out_has "32-bit little-endian words"
	check "--help: exit 0, names --gid-index and the pattern"
}

# frames_ok PCAP QPN COUNT LENGTH KIND: the board's RoCE frames in PCAP as the generator must send them.
frames_ok() {
	"$PY" - "$@" <<'EOF'
import struct, sys
sys.path.insert(0, "harness/tests/integration")
from pcaputil import read_pcap
path, qpn, count, length, kind = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
HOST_VA, MTU = 0x7F0000001000, 4096
def pattern(off, n):  # rt_txgen_pattern by its definition: word i (offset 4i) holds i, little-endian
    first = off // 4
    words = b"".join(struct.pack("<I", (first + i) & 0xFFFFFFFF) for i in range(n // 4 + 2))
    return words[off % 4:off % 4 + n]
msgs, cur = [], None
for _, f, _ in read_pcap(path)[2]:
    if len(f) < 42 or f[12:14] != b"\x08\x00" or f[23] != 17 or struct.unpack(">H", f[36:38])[0] != 4791:
        continue
    ihl = (f[14] & 15) * 4
    bth = f[14 + ihl + 8:]
    op, pad = bth[0], (bth[1] >> 4) & 3
    dqp, psn = struct.unpack(">I", bth[4:8])[0] & 0xFFFFFF, struct.unpack(">I", bth[8:12])[0] & 0xFFFFFF
    if dqp != qpn:
        sys.exit(f"frame to QPN {dqp:#x}, not {qpn:#x}")
    body, ext = bth[12:len(bth) - 4 - pad], {}
    if op in (0x06, 0x0A, 0x0B):            # WRITE First / Only / Only with immediate: RETH
        ext["va"], ext["rkey"], ext["dlen"] = struct.unpack(">QII", body[:16])
        body = body[16:]
    if op in (0x05, 0x09, 0x0B, 0x03):      # ... with immediate
        ext["imm"] = struct.unpack(">I", body[:4])[0]
        body = body[4:]
    if cur is None:
        cur = {"ops": [], "data": b"", "psn": psn}
    cur["ops"].append(op)
    cur.update(ext)
    cur["data"] += body
    if op in (0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0A, 0x0B):   # Last / Only: the message is whole
        msgs.append(cur)
        cur = None
if len(msgs) != count:
    sys.exit(f"{len(msgs)} messages captured, {count} expected")
for k, m in enumerate(msgs):
    if m["data"] != pattern(k * length, length):
        bad = next(i for i, (a, b) in enumerate(zip(m["data"] + b"\0" * length, pattern(k * length, length))) if a != b)
        sys.exit(f"message {k}: {len(m['data'])} bytes, byte {bad} differs from the board's pattern")
    if kind == "write-imm":
        if m.get("va") != HOST_VA + k * length or m.get("rkey") != 0x5EED0001 or m.get("dlen") != length:
            sys.exit(f"message {k}: RETH VA {m.get('va', 0):#x} R_Key {m.get('rkey', 0):#x} length {m.get('dlen')}")
        if m.get("imm") != k or m["ops"][-1] not in (0x09, 0x0B):
            sys.exit(f"message {k}: immediate {m.get('imm')}, opcodes {m['ops']}")
    elif any(op > 0x05 for op in m["ops"]) or "imm" in m:
        sys.exit(f"message {k}: opcodes {m['ops']}, SENDs without immediate expected")
print(f"# {count} messages of {length} bytes ({kind}), {sum(len(m['ops']) for m in msgs)} frames, data as the pattern")
EOF
}

# cm_run NAME KIND COUNT LENGTH ARGS...: --cm-only with a capture on the host's end; checks replies, frames, checker.
cm_run() {
	local name=$1 kind=$2 count=$3 length=$4 cap=$TMP/$2.pcap why
	shift 4
	ip netns exec "$NS_H" dumpcap -q -P -i "$IF_H" -f "udp port 4791" -w "$cap" >"$TMP/dumpcap.log" 2>&1 &
	CAP_PID=$!
	for _ in $(seq 50); do [ -s "$cap" ] && break; sleep 0.1; done
	run ip netns exec "$NS_H" "$ROCETEST" peer --cm-only --dut-ip $BOARD_IP --local-ip $HOST_IP \
		--count "$count" --length "$length" --hold-ms 3000 "$@"
	sleep 0.5
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	CAP_PID=""
	want_rc 0
	for t in "OPEN_QP: ACK: board QPN 0x000100" "SEND_QP_INFO: ACK: host QPN 0x001200, PSN 0x004000 echoed" \
		"MODIFY_QP_RTS: ACK" "txmeta start: ACK: $count" "CLOSE_QP: ACK"; do
		out_has "$t"
	done
	check "--cm-only ($kind) against the board: every reply ACK, the host's fields echoed, exit 0"
	why=$(frames_ok "$cap" 0x1200 "$count" "$length" "$kind" 2>&1) || probs+=("$why")
	check "$name"
	echo "$why" | grep "^#"
	run "$ROCETEST" check "$cap"
	want_rc 0; out_has "0 errors"; out_has "-> CONFORMANT"; out_has "$cap: "
	check "the board's $kind frames pass rocetest check"
}

part_board() {
	local why sim=()
	why=$(hw_netns_missing)
	command -v dumpcap >/dev/null 2>&1 || why=${why:-"dumpcap is not installed (tshark)"}
	[ -n "${PEER_SIM_LIB:-}" ] && sim=(--sim-lib "$PEER_SIM_LIB")
	if [ -n "$why" ]; then
		fail "against the virtual board" "cannot run: $why"
		return
	fi
	if ! hw_netns_up "p$$"; then
		fail "against the virtual board" "cannot set up the namespaces: $HW_NETNS_ERROR"
		return
	fi
	ip netns exec "$NS_H" ip addr add $HOST_IP/24 dev "$IF_H"
	if ! HW_BOARD_NICE=-10 hw_board_start "$ROCETEST" "$TMP/board.sock" "$TMP/board.log" $BOARD_IP $BOARD_MAC "${sim[@]}"; then
		fail "rocetest board on a veth end" "no control socket after 10 s: $(tail -n 3 "$TMP/board.log" | tr '\n' ' ')"
		return
	fi
	cm_run "the board's SENDs to the host's QP carry the pattern" send 3 5000
	cm_run "the board's WRITEs with immediate: addresses, R_Key, immediates, the pattern" write-imm 2 3000 --write --imm
	run ip netns exec "$NS_H" "$ROCETEST" peer --cm-only --dut-ip 10.0.0.9 --local-ip $HOST_IP --timeout-ms 100 --retries 1
	want_rc 2; err_has "OPEN_QP: no reply from 10.0.0.9"; err_has "in 2 attempts of 100 ms"
	check "--cm-only to an address nobody answers: exit 2"
}

case $PART in
cli) part_cli ;;
board) part_board ;;
*) echo "usage: $0 ROCETEST cli|board" >&2; exit 2 ;;
esac
