# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The interop lab's test plan, sourced by /init (harness/interop/init.sh,
# whose helpers it uses) inside the VM. Every test asserts outcomes: the
# tools' exit status and completions, data where the tool verifies it, and
# `rocetest check` exit 0 on the capture of the traffic.
#
#   rxe     two soft-RoCE devices on a veth pair (rxe0 on la 10.0.0.1, rxe1 on
#           lb 10.0.0.2): ib_write_bw, ib_send_bw, ibv_rc_pingpong (its data
#           checked) captured on la, each capture checked; two ib_write_bw
#           runs diffed with `rocetest diff --profile rxe`
#   board   the virtual board (`rocetest board`, the Verilated FPGA endpoint) on
#           lb2 without a kernel address, soft-RoCE rxe2 on la2 10.0.1.1:
#           `rocetest peer` on rxe2 takes the board's WRITEs and SENDs (every
#           completion good, every byte checked), captured on la2 and checked;
#           then the same with frames dropped both ways (roce_loss), so that
#           the board's go-back-N recovers against a real stack

RXE_A=10.0.0.1
RXE_B=10.0.0.2
# tcpdump and soft-RoCE in an emulated VM: between the capture point and
# rxe's tasklets a frame may spend far longer than the 50 us of a hardware
# mirror port (resends crossing the ACK that made them needless were seen
# 50-100 us after it, under load); rocetest check allows this much.
IN_FLIGHT_US=5000

# checked SUITE NAME T0 CAPTURE FIGURES FACTS: the test passes when `rocetest
# check` finds the capture conformant (exit 0) with at least MIN_FRAMES RoCE
# frames. FIGURES: what the tool measured (results.tsv, init.sh).
checked() {
	log=$OUT/logs/$2.check.txt
	$ROCETEST check --in-flight-us "$IN_FLIGHT_US" --json "$OUT/logs/$2.check.json" "$OUT/$4" >"$log" 2>&1
	rc=$?
	frames=$($ROCETEST show --roce-only "$OUT/$4" 2>/dev/null | wc -l)
	if [ "$rc" -ne 0 ]; then
		result "$1" "$2" fail "$3" "$4" "$5" "rocetest check exit $rc: $(grep -m 3 -E 'error|verdict' "$log" | tr '\n' ' ')"
	elif [ "$frames" -lt "$MIN_FRAMES" ]; then
		result "$1" "$2" fail "$3" "$4" "$5" "the capture holds $frames RoCE frames, fewer than the $MIN_FRAMES the work needs"
	else
		result "$1" "$2" pass "$3" "$4" "$5" "$6; $frames RoCE frames, rocetest check: conformant"
	fi
}

# server_client NAME SERVER_CMD... -- CLIENT_CMD...: the server in the
# background until it listens, then the client; both must exit 0. The OOB
# exchange runs over 127.0.0.1, so the capture holds only RoCE.
server_client() {
	name=$1
	shift
	srv=""
	while [ "$1" != -- ]; do srv="$srv $1"; shift; done
	shift
	# shellcheck disable=SC2086 # the server's words, split on purpose
	$srv >"$OUT/logs/$name.server.txt" 2>&1 &
	spid=$!
	sleep 1
	n=0
	until "$@" >"$OUT/logs/$name.client.txt" 2>&1; do
		n=$((n + 1))
		if [ $n -ge 5 ] || ! kill -0 "$spid" 2>/dev/null; then
			kill "$spid" 2>/dev/null
			wait "$spid"
			return 1
		fi
		sleep 1
	done
	wait "$spid"
}

rxe_setup() {
	pair la lb && wire_pair la $RXE_A lb $RXE_B &&
		rdma link add rxe0 type rxe netdev la && rdma link add rxe1 type rxe netdev lb || return 1
	# rocetest.mutant=corrupt: the proof that the checks can fail. netem damages
	# 1% of rxe0's frames before the capture point; their ICRCs are then bad.
	if [ "$MUTANT" = corrupt ]; then tc qdisc add dev la root netem corrupt 1% || return 1; fi
	GID0=$(gid_index rxe0 $RXE_A) && GID1=$(gid_index rxe1 $RXE_B)
}

# captured NAME SERVER_CMD... -- CLIENT_CMD...: server_client between the
# two rxe devices, captured on la into captures/NAME.pcap ($CAP). Returns 0
# when both exited 0 and the capture is whole; otherwise the test's result
# is written and it returns 1.
captured() {
	local name=$1 rc
	CAP=captures/$name.pcap
	if ! capture_start la "$OUT/$CAP"; then
		result rxe "$name" fail "$T0" - - "tcpdump did not start: $(head -c 300 "$OUT/$CAP.log")"
		return 1
	fi
	server_client "$@"
	rc=$?
	if ! capture_stop "$OUT/$CAP"; then
		result rxe "$name" fail "$T0" "$CAP" - "the capture is not whole: $(tail -n 3 "$OUT/$CAP.log" | tr '\n' ' ')"
		return 1
	fi
	[ $rc -eq 0 ] && return 0
	result rxe "$name" fail "$T0" "$CAP" - "$(tail -n 3 "$OUT/logs/$name.client.txt" | tr '\n' ' ')"
	return 1
}

# perftest NAME TOOL OP SIZE ITERS: TOOL (whose messages are OP) between
# rxe1 (server) and rxe0.
perftest() {
	T0=$(now)
	captured "$1" "$2" -d rxe1 -x "$GID1" -s "$4" -n "$5" -F --report_gbits -- \
		"$2" -d rxe0 -x "$GID0" -s "$4" -n "$5" -F --report_gbits 127.0.0.1 || return
	# The report line: #bytes #iterations BW-peak BW-average MsgRate.
	local gbps mpps
	read -r gbps mpps < <(awk '$1 == '"$4"' && NF >= 5 { print $4, $5 }' "$OUT/logs/$1.client.txt")
	MIN_FRAMES=$(($5 * (($4 + 4095) / 4096)))
	checked rxe "$1" "$T0" "$CAP" "op=$3 size=$4 messages=$5 bytes=$(($4 * $5))${gbps:+ gbps=$gbps}" \
		"$2 -s $4 -n $5: ${mpps:-no bandwidth line} Mpps"
}

pingpong() {
	T0=$(now)
	# -c: each side checks the data it receives.
	captured rc-pingpong ibv_rc_pingpong -d rxe1 -g "$GID1" -s 4096 -n "$1" -c -- \
		ibv_rc_pingpong -d rxe0 -g "$GID0" -s 4096 -n "$1" -c 127.0.0.1 || return
	MIN_FRAMES=$(($1 * 2))
	# "N bytes in S seconds = R Mbit/sec", both directions' messages.
	local bytes gbps
	read -r bytes gbps < <(awk '/bytes in .* Mbit\/sec/ { print $1, $(NF - 1) / 1000 }' "$OUT/logs/rc-pingpong.client.txt")
	checked rxe rc-pingpong "$T0" "$CAP" "op=SEND size=4096 messages=$(($1 * 2))${bytes:+ bytes=$bytes gbps=$gbps}" \
		"ibv_rc_pingpong -s 4096 -n $1 -c: $(grep -m 1 'iters in' "$OUT/logs/rc-pingpong.client.txt")"
}

# rxe_diff: the two ib_write_bw runs did the same work: `rocetest diff
# --profile rxe` pairs their connection and finds no semantic difference.
rxe_diff() {
	t0=$(now)
	log=$OUT/logs/write-bw-diff.txt
	$ROCETEST diff --profile rxe --json "$OUT/logs/write-bw-diff.json" \
		"$OUT/captures/write-bw.pcap" "$OUT/captures/write-bw-2.pcap" >"$log" 2>&1
	rc=$?
	pairs=$(sed -n 's/.* in \([0-9]*\) pair(s) of flows.*/\1/p' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		result rxe write-bw-diff fail "$t0" - - "rocetest diff --profile rxe exit $rc: $(tail -n 3 "$log" | tr '\n' ' ')"
	elif [ "${pairs:-0}" -lt 1 ]; then
		result rxe write-bw-diff fail "$t0" - - "rocetest diff paired no connection of the two captures: $(tail -n 1 "$log")"
	else
		result rxe write-bw-diff pass "$t0" - - "$(tail -n 1 "$log")"
	fi
}

plan_rxe() {
	t0=$(now)
	if ! rxe_setup >"$OUT/logs/rxe-setup.txt" 2>&1; then
		result rxe setup fail "$t0" - - "two rxe devices on a veth pair: $(tail -n 3 "$OUT/logs/rxe-setup.txt" | tr '\n' ' ')"
		return
	fi
	result rxe setup pass "$t0" - - "rxe0 on la ($RXE_A, GID index $GID0), rxe1 on lb ($RXE_B, GID index $GID1)"
	iters=200
	[ "$FULL" = 0 ] || iters=2000
	perftest write-bw ib_write_bw WRITE 65536 $iters
	perftest write-bw-2 ib_write_bw WRITE 65536 $iters
	rxe_diff
	perftest send-bw ib_send_bw SEND 4096 $((iters * 4))
	pingpong $((iters * 2))
}

BOARD_IP=10.0.1.2
PEER_IP=10.0.1.1
BOARD_CTL=/tmp/board.sock

board_setup() {
	pair la2 lb2 && ip addr add $PEER_IP/24 dev la2 && rdma link add rxe2 type rxe netdev la2 || return 1
	$ROCETEST board --iface lb2 --ip $BOARD_IP --control $BOARD_CTL --slowdown "$SLOWDOWN" >"$OUT/logs/board.txt" 2>&1 &
	BOARD_PID=$!
	for _ in $(seq 100); do
		[ -S $BOARD_CTL ] && return 0
		sleep 0.2
	done
	return 1
}

# peer_wait COUNT LENGTH: the --wait-s of one generator start of COUNT
# messages of LENGTH bytes. The model is the bottleneck: under TCG it moved
# 0.4 to 0.6 MB of WRITEs and 1,600 SENDs a second (in a loaded machine);
# this allows an eighth of that rate, and a minute for the connection.
peer_wait() {
	echo $((60 + $1 * $2 / 50000 + $1 / 200))
}

# json_figure FILE KEY: KEY's number in rocetest peer's one-line JSON.
json_figure() {
	sed -n 's/.*"'"$2"'": \([0-9][0-9.]*\)[,}].*/\1/p' "$1" 2>/dev/null
}

# peer_figures NAME OP LENGTH: the FIGURES of a run of rocetest peer, from its --json.
peer_figures() {
	local json=$OUT/logs/$1.json figures="op=$2 size=$3" key value
	for key in messages bytes gbps completion_errors; do
		value=$(json_figure "$json" $key)
		[ -z "$value" ] || figures="$figures ${key/completion_errors/cq_errors}=$value"
	done
	echo "$figures"
}

# peer NAME OP COUNT LENGTH [ARGS...]: rocetest peer on rxe2 against the
# board, COUNT messages (OP WRITE or SEND) of LENGTH bytes per generator
# start, captured on la2.
peer() {
	local name=$1 op=$2 count=$3 length=$4 rc figures
	shift 4
	T0=$(now)
	CAP=captures/$name.pcap
	[ "$op" != WRITE ] || set -- --write "$@"
	set -- --count "$count" --length "$length" "$@" --wait-s "$(peer_wait "$count" "$length")"
	capture_start la2 "$OUT/$CAP" || { result board "$name" fail "$T0" - - "tcpdump did not start"; return; }
	$ROCETEST peer --device rxe2 --dut-ip $BOARD_IP --json "$OUT/logs/$name.json" "$@" >"$OUT/logs/$name.txt" 2>&1
	rc=$?
	figures=$(peer_figures "$name" "$op" "$length")
	if ! capture_stop "$OUT/$CAP"; then
		result board "$name" fail "$T0" "$CAP" "$figures" "the capture is not whole: $(tail -n 3 "$OUT/$CAP.log" | tr '\n' ' ')"
	elif [ $rc -ne 0 ]; then
		result board "$name" fail "$T0" "$CAP" "$figures" "rocetest peer exit $rc: $(tail -n 4 "$OUT/logs/$name.txt" | tr '\n' ' ')"
	elif ! grep -q "^rocetest peer: rxe2 port 1, GID index [0-9]* (RoCE v2, $PEER_IP): " "$OUT/logs/$name.txt"; then
		result board "$name" fail "$T0" "$CAP" "$figures" "rocetest peer did not say which GID it chose and why: $(head -n 1 "$OUT/logs/$name.txt")"
	else
		MIN_FRAMES=1
		checked board "$name" "$T0" "$CAP" "$figures" "rocetest peer $*: $(json_figure "$OUT/logs/$name.json" \
			messages_per_s) messages/s, $(json_figure "$OUT/logs/$name.json" mismatches) data mismatches, $(board_resends \
			"$name" RNR | cut -d' ' -f2) RNR NAKs"
	fi
}

# board_rxe_diff: the FPGA endpoint's WRITEs (the board's `write` run) against
# soft-RoCE doing the same work (the first ib_write_bw: 64 KiB WRITEs at PMTU
# 4096): `rocetest diff` with the rxe profile pairs the two connections and
# finds no semantic difference in the messages both hold. One field is set
# aside, in a profile file: the remote addresses, because ib_write_bw writes
# every message to one buffer and the board's generator moves on by the
# message length. The board's run is A, the reference B.
board_rxe_diff() {
	local t0 log json prof aligned
	t0=$(now)
	log=$OUT/logs/board-vs-rxe-diff.txt json=$OUT/logs/board-vs-rxe-diff.json prof=$OUT/logs/board-vs-rxe.profile
	printf 'profile rxe\naddress ignored\n' >"$prof"
	$ROCETEST diff --profile "$prof" --json "$json" "$OUT/captures/write.pcap" "$OUT/captures/write-bw.pcap" >"$log" 2>&1
	rc=$?
	# The messages of the board's side that were compared with rxe's.
	aligned=$(sed -n 's/.*"aligned": *\[\([0-9]*\),.*/\1/p' "$json" 2>/dev/null | head -n 1)
	if [ $rc -ne 0 ]; then
		result board board-vs-rxe-diff fail "$t0" - - "rocetest diff exit $rc: $(grep -m 3 semantic "$log" | tr '\n' ' ')"
	elif [ "${aligned:-0}" -lt "$1" ]; then
		result board board-vs-rxe-diff fail "$t0" - - "only ${aligned:-0} of the board's $1 WRITEs compared: $(tail -n 1 "$log")"
	else
		result board board-vs-rxe-diff pass "$t0" - - "$aligned WRITEs of 64 KiB compared with rxe's: $(tail -n 1 "$log")"
	fi
}

# board_resends NAME PATTERN: "RESENT ANSWERS": how many packets the board
# sent again in NAME's capture, and how many packets match PATTERN (NAK, RNR).
board_resends() {
	$ROCETEST show --roce-only "$OUT/captures/$1.pcap" | awk -v board="$BOARD_IP:" -v pattern="$2" '
		index($3, board) == 1 { for (i = 4; i <= NF; i++) if ($i ~ /^psn=/ && seen[$i]++) again++ }
		$0 ~ pattern { answers++ }
		END { print again + 0, answers + 0 }'
}

# peer_recovered NAME: the capture of a lossy run shows the board sending
# PSNs again (its go-back-N at work), and how many NAKs rxe sent.
peer_recovered() {
	T0=$(now)
	local counts
	counts=$(board_resends "$1" NAK)
	if [ "${counts% *}" -gt 0 ]; then
		result board "$1-recovery" pass "$T0" - - "the board resent ${counts% *} packets, rxe sent ${counts#* } NAKs"
	else
		result board "$1-recovery" fail "$T0" - - "the loss drove no retransmission (rxe sent ${counts#* } NAKs): nothing recovered"
	fi
}

# drop_frames DEV SELECTOR...: DEV drops the RoCE frames (UDP port 4791)
# that the u32 SELECTORs match, nothing else. The losses are deterministic,
# chosen by the IPv4 ID, which both ends count up per frame: one frame in
# 256 is lost, and a frame sent again has a new ID. With netem's random
# loss, a gap whose one NAK (rxe sends one per gap) or whose resent packet
# was lost too waited for the board's ACK timer, 67 ms of device time,
# minutes under TCG. The period is long: with one in 64, the board's
# resent packet came 64 frames after the lost one, was lost again and
# stalled the run the same way. The board's CM frames stay whole: its CM
# is not idempotent (dut/rtl/roce_cm.v: MODIFY_QP_RTS sent again after a
# lost ACK gets a NAK).
drop_frames() {
	local dev=$1
	shift
	tc qdisc add dev "$dev" root handle 1: prio &&
		tc filter add dev "$dev" parent 1: protocol ip u32 match ip dport 4791 0xffff "$@" action drop
}

# roce_loss: the board loses 1 in 256 of its requests (rxe NAKs each gap,
# the board goes back), rxe 1 in 256 of its ACKs (a later ACK covers them).
# BTH opcode at byte 28 of the IPv4 packet (0x11 Acknowledge), the AETH
# syndrome at byte 40 (bits 7-5: 0 ACK, 3 NAK).
roce_loss() {
	drop_frames lb2 match u16 0x0025 0x00ff at 4 &&
		drop_frames la2 match u16 0x0011 0x00ff at 4 match u8 0x11 0xff at 28 match u8 0x00 0xe0 at 40
}

plan_board() {
	T0=$(now)
	if ! board_setup >"$OUT/logs/board-setup.txt" 2>&1; then
		result board setup fail "$T0" - - "rxe2 and the virtual board: $(tail -n 3 "$OUT/logs/board-setup.txt" "$OUT/logs/board.txt" | tr '\n' ' ')"
		return
	fi
	result board setup pass "$T0" - - "rxe2 on la2 ($PEER_IP), the virtual board on lb2 ($BOARD_IP, slowdown $SLOWDOWN)"
	# Full size: 8 x 200 x 64 KiB = 105 MB of WRITEs (the board's memory holds
	# 16 MiB: --repeat starts the generator again), 100,000 SENDs; CI's size
	# a quarter of that (the generator still restarted). The lossy runs test
	# recovery, not volume: they keep their size.
	local writes=64 repeat=1 sends=2000
	case $FULL in
	1) writes=200 repeat=8 sends=100000 ;;
	ci) writes=200 repeat=2 sends=25000 ;;
	esac
	peer write WRITE $writes 65536 --repeat $repeat
	board_rxe_diff $((writes * repeat))
	peer send SEND $sends 64
	# Two receive buffers, completions by event, pinned to CPU 0: every SEND
	# still arrives whole. rxe answers with RNR NAKs only when the board
	# outpaces the reposting, which under TCG it may not (2 in one run, none
	# in another), so they are counted in the text, not asserted.
	peer send-rx2-event SEND 300 1024 --rx-depth 2 --poll event --cpu 0
	# Frames lost both ways; peer_recovered asserts both captures show the
	# board going back.
	if ! roce_loss >"$OUT/logs/loss-setup.txt" 2>&1; then
		result board loss-setup fail "$(now)" - - "dropping RoCE frames: $(tail -n 3 "$OUT/logs/loss-setup.txt" | tr '\n' ' ')"
	fi
	peer write-loss WRITE 32 65536
	peer_recovered write-loss
	peer send-loss SEND 1000 64
	peer_recovered send-loss
	tc qdisc del dev la2 root
	tc qdisc del dev lb2 root
	kill -TERM "$BOARD_PID" 2>/dev/null
	wait "$BOARD_PID" 2>/dev/null
}

plan() {
	plan_rxe
	plan_board
}
