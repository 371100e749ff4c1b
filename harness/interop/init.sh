#!/bin/bash
# SPDX-License-Identifier: MIT
# /init of the interop lab's VM (harness/interop/initramfs.sh puts it there;
# harness/scripts/interop.sh boots it): Debian's kernel with soft-RoCE
# (rdma_rxe) on veth pairs, the test plan, then power off. Runs under
# bash (busybox provides the rest). Results go to the virtio-9p share mounted at /out:
#   results.tsv  one line per test in the format of `rocetest report`
#                (rocetest/run_results.h): SUITE NAME pass|fail SECONDS
#                CAPTURE (relative to /out, or -) FIGURES (KEY=VALUE words:
#                op, size, gbps, messages, bytes, cq_errors; or -) TEXT (why
#                it failed, or what it measured), tab-separated
#   logs/, captures/  every tool's output and every capture
#   done         written last: the plan ran to its end
# Kernel command line: rocetest.full=1 for the full-size runs (ci: the rxe
# runs full size, the board's volume runs a quarter),
# rocetest.mutant=NAME to make the lab prove it fails (see interop.sh).
#
# rdma_rxe of kernel 6.1 does not work inside a network namespace, so both
# ends of each veth pair stay in the initial namespace. For rxe-to-rxe
# traffic to cross the wire rather than the loopback device, the local
# routing table is consulted after two policy rules that send each address
# out through the other end.
PATH=/usr/sbin:/usr/bin:/opt/rocetest/bin
export PATH
OUT=/out
ROCETEST=rocetest
FULL=0
# The virtual board's clock, this many times slower than the wall clock (rocetest.slowdown=K).
SLOWDOWN=5000
MUTANT=
export ROCETEST_NO_PROGRESS=1

boot() {
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	# bash's process substitution reads /dev/fd/N, which devtmpfs lacks.
	ln -sfn /proc/self/fd /dev/fd
	mount -t tmpfs tmp /tmp
	modprobe -a virtio_pci 9pnet_virtio 9p || return 1
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$OUT" || return 1
	mkdir -p "$OUT/logs" "$OUT/captures"
	: >"$OUT/results.tsv"
	local arg
	# shellcheck disable=SC2013 # the kernel's arguments are words
	for arg in $(cat /proc/cmdline); do
		case $arg in
		rocetest.full=1) FULL=1 ;;
		rocetest.full=ci) FULL=ci ;;
		rocetest.mutant=*) MUTANT=${arg#rocetest.mutant=} ;;
		rocetest.slowdown=*) SLOWDOWN=${arg#rocetest.slowdown=} ;;
		esac
	done
	# The tools' out-of-band exchange (perftest, ibv_rc_pingpong) runs over 127.0.0.1.
	ip link set lo up && modprobe -a rdma_rxe ib_uverbs veth sch_netem sch_prio cls_u32 act_gact crypto-crc32
}

now() { cut -d' ' -f1 /proc/uptime; }

# result SUITE NAME pass|fail T0 CAPTURE FIGURES TEXT: one line of results.tsv
# (T0: /proc/uptime when the test began; TEXT on one line, cut to 1000 characters).
result() {
	local secs text
	secs=$(awk -v a="$4" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	text=$(printf '%s' "$7" | tr '\t\n' '  ' | cut -c 1-1000)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$secs" "$5" "$6" "$text" >>"$OUT/results.tsv"
	echo "interop: $3 $1/$2 ($secs s): $6 $text"
}

# pair A B: a veth pair, both ends up with jumbo frames (PMTU 4096 needs 4,174-byte frames).
pair() {
	ip link add "$1" mtu 9000 type veth peer name "$2" mtu 9000 &&
		ip link set "$1" up && ip link set "$2" up
}

# wire_pair A IP_A B IP_B: addresses on both ends, and routes that make each
# end reach the other through the pair, not through the loopback device.
wire_pair() {
	ip addr add "$2/24" dev "$1" && ip addr add "$4/24" dev "$3" || return 1
	for dev in all "$1" "$3"; do
		sysctl -qw "net.ipv4.conf.$dev.accept_local=1" "net.ipv4.conf.$dev.rp_filter=0" || return 1
	done
	ip rule add pref 100 iif lo to "$4" lookup 100 && ip route add "$4" dev "$1" src "$2" table 100 &&
		ip rule add pref 101 iif lo to "$2" lookup 101 && ip route add "$2" dev "$3" src "$4" table 101 &&
		ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local
}

# gid_index DEV IP: the index of DEV's RoCE v2 GID for IPv4 address IP.
gid_index() {
	want=$(echo "$2" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# wait_for FILE TEXT SECONDS: until FILE holds TEXT.
wait_for() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}

# capture_start IFACE FILE: tcpdump of the RoCE traffic on IFACE, whole
# frames, into the VM's memory ($CAP_TMP): writing through the 9p share
# under TCG is slow enough for the kernel to drop packets at full size.
# capture_stop moves it to FILE.
CAP_TMP=/tmp/capture.pcap
capture_start() {
	rm -f "$CAP_TMP"
	tcpdump -i "$1" -s 0 -U -B 65536 -Z root -w "$CAP_TMP" udp port 4791 >"$2.log" 2>&1 &
	CAP_PID=$!
	wait_for "$2.log" "listening on" 20
}

# capture_stop FILE: once tcpdump has written everything the kernel handed
# it (its file still for a second: under TCG it lags the traffic by seconds,
# and it drops what it has not read when interrupted), stop it and move the
# capture to FILE. Returns 1 when the kernel dropped packets (tcpdump's
# closing counts are in FILE.log) or the move failed.
capture_stop() {
	local file=$1 size=-1 n=0
	while [ "$(stat -c %s "$CAP_TMP")" != "$size" ] && [ $n -lt 60 ]; do
		size=$(stat -c %s "$CAP_TMP")
		n=$((n + 1))
		sleep 1
	done
	kill -INT "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	CAP_PID=
	mv "$CAP_TMP" "$file" || { echo "moving the capture to $file failed" >>"$file.log"; return 1; }
	grep -q '^0 packets dropped by kernel' "$file.log"
}

# shellcheck source=harness/interop/plan.sh
. /lib/rocetest-interop-plan.sh

main() {
	if ! boot; then
		echo "interop: the VM could not set itself up (modules or the 9p share)" >&2
		return
	fi
	echo "interop: kernel $(uname -r), $(nproc) CPUs, full=$FULL mutant=${MUTANT:-none}"
	plan
}

main
sync
echo finished >"$OUT/done" 2>/dev/null
sync
umount "$OUT" 2>/dev/null
poweroff -f
