# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Sourced by the hardware-mode test and bench (harness/tests/integration/hw_veth.sh,
# harness/bench/hw_bench.sh): two network namespaces joined by a veth pair, for a
# virtual board on one end and the harness on the other. Needs root.
#
#   hw_netns_up TAG     creates namespaces rthw-TAG-h and rthw-TAG-b with ends
#                       rthTAG-h and rthTAG-b (jumbo MTU for PMTU 4096, IPv6 off so
#                       that the kernel sends nothing, no addresses); sets NS_H,
#                       NS_B, IF_H, IF_B; on failure returns 1 with the reason in
#                       HW_NETNS_ERROR
#   hw_netns_down       deletes both namespaces (and with them the pair)
#   hw_netns_missing    prints what this machine lacks for them (nothing: ready)

hw_netns_missing() {
	if [ "$(id -u)" != 0 ]; then
		echo "needs root (ip netns, CAP_NET_RAW)"
		return
	fi
	local t
	for t in ip timeout; do
		command -v "$t" >/dev/null 2>&1 || { echo "$t is not installed"; return; }
	done
}

hw_netns_up() {
	NS_H=rthw-$1-h NS_B=rthw-$1-b IF_H=rth$1-h IF_B=rth$1-b
	local n
	HW_NETNS_ERROR=$({ ip netns add "$NS_H" && ip netns add "$NS_B" &&
		ip link add "$IF_H" netns "$NS_H" mtu 9000 type veth peer name "$IF_B" netns "$NS_B" mtu 9000 &&
		for n in "$NS_H:$IF_H" "$NS_B:$IF_B"; do
			ip netns exec "${n%%:*}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
				ip netns exec "${n%%:*}" ip link set "${n#*:}" up || exit 1
		done; } 2>&1) && return 0
	HW_NETNS_ERROR=$(tr '\n' ' ' <<<"$HW_NETNS_ERROR")
	return 1
}

hw_netns_down() {
	ip netns del "$NS_H" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
}

# hw_board_start ROCETEST CONTROL LOG BOARD_IP BOARD_MAC [OPTIONS...]: rocetest board
# on IF_B (at niceness HW_BOARD_NICE, default 0), its PID in HW_BOARD_PID;
# returns 1 if its control socket does not appear within 10 s. Not through a
# shell function of ours: $! must be the board itself (ip netns exec and nice
# exec it), to be stopped by its PID.
hw_board_start() {
	local rocetest=$1 control=$2 log=$3 ip=$4 mac=$5
	shift 5
	rm -f "$control"
	ip netns exec "$NS_B" nice -n "${HW_BOARD_NICE:-0}" "$rocetest" board --iface "$IF_B" --ip "$ip" --mac "$mac" \
		--control "$control" "$@" >"$log" 2>&1 &
	HW_BOARD_PID=$!
	for _ in $(seq 100); do
		[ -S "$control" ] && return 0
		kill -0 "$HW_BOARD_PID" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# SIGTERM: a command started with & in a script ignores SIGINT.
hw_board_stop() {
	[ -n "${HW_BOARD_PID:-}" ] || return 0
	kill -TERM "$HW_BOARD_PID" 2>/dev/null
	wait "$HW_BOARD_PID" 2>/dev/null
	HW_BOARD_PID=
}
