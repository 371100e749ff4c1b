#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hardware mode end to end, with no hardware: two network namespaces joined by
# a veth pair (private test addresses only), the virtual board (`rocetest
# board`, the Verilator model of dut/) on one end, the harness on the other.
#
#   cm      rocetest cm against the board: connect (exit 0, each reply
#           field), refusals (exit 1: NAK, NO_QP), no answer (exit 2),
#           usage errors (exit 2)
#   run     rocetest run --dut iface: every suite but throughput: exit 0, no
#           pcap_stats drop, and (hw_check.py) every test passed with as
#           many completions as WRs and the same WRs, completions and payload
#           as --dut sim; the suites without timers with the same frames;
#           every capture re-checked by rocetest check, zlib and tshark
#   mutants a mutant model on the board (dut/mutants/mutants.txt) fails its
#           suite over the wire as it does in simulation
#   limits  a board that cannot keep its schedule fails the test saying so;
#           no control socket, no CAP_NET_RAW: exit 2 with what is missing
#
# The namespaces, the veth pair and the board are removed on exit, whatever
# happens. Needs root (ip netns), iproute2, capsh, python3, tshark, and the
# models `make dut-sim` and `make dut-mutants` build beside ROCETEST.
#
# usage: bash harness/tests/integration/hw_veth.sh PATH/TO/rocetest
# Prints "ok - NAME" / "FAIL - NAME: why" lines ("#" lines are details).
set -u

ROCETEST=$1
HERE=$(dirname "$0")
PY=/usr/bin/python3
BUILD=$(dirname "$(dirname "$ROCETEST")")
# The model keeps a clock this many times slower than 322 MHz: at 50000 a
# 50 ms stall of a busy 2-core machine is 1 us of the board's time, the most
# a test allows (the board also runs at nice -10: it sleeps most of the time,
# and must not wait behind compilers when its time comes).
SLOWDOWN=${HW_SLOWDOWN:-50000}
BOARD_IP=10.0.0.1
BOARD_MAC=02:00:00:00:00:01
SUITES=(messages cm pmtu psn loss link rnr timeout fatal)
# Left out over the wire: 0.5 to 2.7 ms of device time each, minutes at the
# board's slowdown; nothing in them depends on the wire that the others do not show.
SKIPS=(messages/write-over-16m rnr/rnr-code-9 rnr/rnr-code-14)

# shellcheck source=harness/scripts/hw-netns.sh
. harness/scripts/hw-netns.sh
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-hw.XXXXXX")
CTL=$TMP/board.sock
NS_H="" NS_B=""

cleanup() {
	hw_board_stop
	[ -z "$NS_H" ] || hw_netns_down
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL - $1: $2"; }
ok() { echo "ok - $1"; }
in_h() { ip netns exec "$NS_H" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }
start_board() {
	local log=$1
	shift
	HW_BOARD_NICE=-10 hw_board_start "$ROCETEST" "$CTL" "$log" $BOARD_IP $BOARD_MAC "$@"
}

# ------------------------------------------------------------------ setup
why=$(hw_netns_missing)
command -v capsh >/dev/null 2>&1 || why=${why:-"capsh is not installed (libcap2-bin)"}
[ -x "$ROCETEST" ] || why=${why:-"$ROCETEST is not executable"}
[ -r "$BUILD/dut/w512/libroce_dut_sim.so" ] || why=${why:-"the model $BUILD/dut/w512/libroce_dut_sim.so is not built (make dut-sim)"}
if [ -n "$why" ]; then
	fail "hw: the veth pair and the virtual board" "cannot run: $why"
	exit 1
fi
if ! hw_netns_up $$; then
	fail "hw: the veth pair and the virtual board" "cannot set up the namespaces: $HW_NETNS_ERROR"
	exit 1
fi

if ! start_board "$TMP/board.log" --slowdown "$SLOWDOWN"; then
	fail "hw: rocetest board on a veth end" "no control socket after 10 s: $(tail -n 3 "$TMP/board.log" | tr '\n' ' ')"
	exit 1
fi
ok "hw: rocetest board on a veth end ($NS_B/$IF_B, slowdown $SLOWDOWN) serves its control socket"

# ------------------------------------------------------------------ cm
# expect NAME WANT_RC FILE TEXT...: ok when the last command ($rc) exited WANT_RC and FILE has every TEXT.
rc=0
expect() {
	local name=$1 want=$2 file=$3 t
	shift 3
	for t in "$@"; do
		grep -qF -- "$t" "$file" || {
			fail "$name" "exit $rc (want $want), no '$t' in: $(head -c 600 "$file" | tr '\n' ' ')"
			return
		}
	done
	if [ "$rc" -eq "$want" ]; then ok "$name"; else fail "$name" "exit $rc, want $want: $(head -c 600 "$file" | tr '\n' ' ')"; fi
}
# cm ARGS...: rocetest cm from the harness's end; its output in $TMP/cm.out.
cm() {
	in_h timeout 60 "$ROCETEST" cm --iface "$IF_H" --dut-ip $BOARD_IP "$@" >"$TMP/cm.out" 2>&1
	rc=$?
}
check_cm() {
	local name=$1 want=$2
	shift 2
	expect "$name" "$want" "$TMP/cm.out" "$@"
}
# without_net_raw NS ARGS...: rocetest ARGS in namespace NS, as root without CAP_NET_RAW; output in $TMP/cap.out.
without_net_raw() {
	local ns=$1
	shift
	# shellcheck disable=SC2016 # the inner shell expands them: rocetest and its arguments, quoted
	ip netns exec "$ns" capsh --drop=cap_net_raw -- -c 'exec "$0" "$@"' "$ROCETEST" "$@" >"$TMP/cap.out" 2>&1
	rc=$?
}

cm connect --count 2 --length 3000 --write
check_cm "hw: cm connect (ARP for the board, OPEN_QP, SEND_QP_INFO, MODIFY_QP_RTS, txmeta start): exit 0, every reply ACK field by field" 0 \
	"OPEN_QP: ACK" "loc_qpn         0x000100 (256)" "loc_rkey        0x00001234" "loc_ip          10.0.0.1" \
	"SEND_QP_INFO: ACK" "rem_qpn         0x001200 (4608)" "rem_ip          10.0.1.100" "MODIFY_QP_RTS: ACK" \
	"txmeta start: ACK"
cm --dut-mac $BOARD_MAC rts 0x100
check_cm "hw: cm rts on a QP already in RTS: NAK, exit 1" 1 "MODIFY_QP_RTS: NAK" "ack_type        NAK (3)"
cm --dut-mac $BOARD_MAC close 256
check_cm "hw: cm close 256: ACK, exit 0" 0 "CLOSE_QP: ACK" "req_type        CLOSE_QP (4)"
for _ in 1 2 3 4 5; do
	cm --dut-mac $BOARD_MAC open
	[ $rc -eq 0 ] || break
done
check_cm "hw: cm open with all 4 QPs open: NO_QP, exit 1" 1 "OPEN_QP: NO_QP" "ack_type        NO_QP (2)"
cm --dut-mac 02:00:00:00:00:99 --timeout-ms 100 --retries 1 open
check_cm "hw: cm to a MAC nobody has: no reply, exit 2" 2 "OPEN_QP: no reply from 10.0.0.1 in 2 attempts of 100 ms"
cm --dut-ip 10.0.0.77 --timeout-ms 100 --retries 0 open
check_cm "hw: cm to an IP nobody has: no ARP reply, exit 2 naming --dut-mac" 2 "no ARP reply from 10.0.0.77" "--dut-mac"
cm bogus 1
check_cm "hw: cm with an unknown ACTION: usage error, exit 2" 2 "unknown ACTION 'bogus'"
cm info
check_cm "hw: cm info without a QP: usage error, exit 2" 2 "info needs the QP number"
# Without CAP_NET_RAW (root with it dropped from every set).
without_net_raw "$NS_H" cm --iface "$IF_H" --dut-ip $BOARD_IP open
expect "hw: cm without CAP_NET_RAW: exit 2, the message names the capability and setcap" 2 "$TMP/cap.out" \
	"CAP_NET_RAW" "setcap cap_net_raw,cap_net_admin+ep"

# ------------------------------------------------------------------ run
suite_args=()
for s in "${SUITES[@]}"; do
	suite_args+=(--suite "$s")
done
for t in "${SKIPS[@]}"; do
	suite_args+=(--skip "$t")
done
t0=$(date +%s)
in_h timeout 600 "$ROCETEST" run --dut "iface:$IF_H" --board-control "$CTL" --dut-ip $BOARD_IP \
	"${suite_args[@]}" --seed 7 --quiet --report "$TMP/iface" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
live=$(grep "live path" "$TMP/run.out")
if [ $rc -eq 0 ] && grep -q "pcap_stats drops 0 (buffer), 0 (interface)" <<<"$live"; then
	ok "hw: rocetest run --dut iface:$IF_H, every suite but throughput: exit 0 in $(($(date +%s) - t0)) s, no capture drop ($live)"
else
	fail "hw: rocetest run --dut iface:$IF_H, every suite but throughput" \
		"exit $rc: $(grep -E '^(FAIL|    )' "$TMP/run.out" | head -n 6 | tr '\n' ' ') $(tail -n 2 "$TMP/run.err" | tr '\n' ' ') $live"
fi
"$ROCETEST" run --dut sim "${suite_args[@]}" --seed 7 --quiet --report "$TMP/sim" >"$TMP/sim.out" 2>&1 ||
	fail "hw: the same suites against --dut sim, for comparison" "$(tail -n 3 "$TMP/sim.out" | tr '\n' ' ')"
"$PY" "$HERE/hw_check.py" run "$ROCETEST" "$TMP/iface" "$TMP/sim" "$IF_H"

# ------------------------------------------------------------------ mutants
hw_board_stop
for m in rnr-no-wait icrc-udp-checksum-unmasked; do
	so=$BUILD/dut/mutants/$m/libroce_dut_sim.so
	spec=$("$PY" "$HERE/hw_check.py" mutant dut/mutants/mutants.txt "$m") || {
		fail "hw: mutant $m on the board" "not in dut/mutants/mutants.txt: $spec"
		continue
	}
	suite=${spec%%$'\n'*}
	name="hw: mutant $m on the board: rocetest run --dut iface: --suite $suite fails (exit 1) as in simulation"
	if [ ! -r "$so" ]; then
		fail "$name" "its model $so is not built (make dut-mutants)"
		continue
	fi
	# Slowdown 5000: a mutant that stalls is stuck after 2 ms of its time, 10 s here; its
	# failure must name what its table says, which no lag can print.
	if ! start_board "$TMP/board-$m.log" --slowdown 5000 --sim-lib "$so"; then
		fail "$name" "the board did not start: $(tail -n 3 "$TMP/board-$m.log" | tr '\n' ' ')"
		continue
	fi
	in_h timeout 300 "$ROCETEST" run --dut "iface:$IF_H" --board-control "$CTL" --dut-ip $BOARD_IP \
		--suite "$suite" --quiet >"$TMP/mut.out" 2>&1
	rc=$?
	hw_board_stop
	probs=
	[ $rc -eq 1 ] || probs="exit $rc"
	while IFS= read -r e; do
		grep -qF -- "$e" "$TMP/mut.out" || probs="$probs; no '$e' in the output"
	done < <(tail -n +2 <<<"$spec")
	if [ -z "$probs" ]; then ok "$name"; else fail "$name" "$probs: $(head -c 500 "$TMP/mut.out" | tr '\n' ' ')"; fi
done

# ------------------------------------------------------------------ limits
# Slowdown 1: the model (a few hundred thousand cycles a second) cannot keep a 322 MHz clock.
if start_board "$TMP/board-fast.log" --slowdown 1; then
	in_h timeout 120 "$ROCETEST" run --dut "iface:$IF_H" --board-control "$CTL" --dut-ip $BOARD_IP \
		--suite fatal >"$TMP/fast.out" 2>&1
	rc=$?
	expect "hw: a board that cannot keep its schedule (slowdown 1) fails the test saying so and naming --slowdown" 1 \
		"$TMP/fast.out" "port contract: the virtual board fell" "behind its schedule" "--slowdown"
	without_net_raw "$NS_H" run --dut "iface:$IF_H" --board-control "$CTL" --dut-ip $BOARD_IP --suite fatal
	expect "hw: run --dut iface: without CAP_NET_RAW: exit 2 naming the capability and setcap" 2 "$TMP/cap.out" \
		"CAP_NET_RAW" "setcap cap_net_raw,cap_net_admin+ep"
	hw_board_stop
else
	fail "hw: a board at slowdown 1" "did not start: $(tail -n 3 "$TMP/board-fast.log" | tr '\n' ' ')"
fi
in_h "$ROCETEST" run --dut "iface:$IF_H" --board-control "$TMP/none.sock" --dut-ip $BOARD_IP --suite fatal >"$TMP/none.out" 2>&1
rc=$?
expect "hw: run --dut iface: with no board at --board-control: exit 2 naming the socket" 2 "$TMP/none.out" \
	"cannot reach the board's control socket $TMP/none.sock"
without_net_raw "$NS_B" board --iface "$IF_B" --ip $BOARD_IP --control "$TMP/x.sock"
expect "hw: board without CAP_NET_RAW: exit 2 naming the capability" 2 "$TMP/cap.out" "CAP_NET_RAW"
