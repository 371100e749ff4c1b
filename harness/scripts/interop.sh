#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The interop lab (README "Interop lab", make interop): boots Debian's
# kernel under QEMU with the lab's initramfs (harness/interop/), whose /init
# runs the test plan against the kernel's soft-RoCE and powers off, then
# copies the captures and logs out to REPORTS/<UTC time>/ (REPORTS/latest
# points at it) with lab.txt (how it ran) and results.tsv (one line per
# test), prints every result, and has `rocetest report` write summary.json,
# junit.xml and index.html there, as for a conformance run. No network for
# the VM: results come back through a virtio-9p share.
#
# KVM when /dev/kvm boots a kernel within INTEROP_KVM_PROBE_S seconds (on
# some hosts KVM hangs at boot), else TCG (-accel tcg -cpu max); lab.txt
# says which. One vCPU: with two, veth delivers frames on both CPUs' queues
# and reorders them behind the capture point, which rxe answers with NAKs.
#
# usage: interop.sh KERNEL INITRD REPORTS ROCETEST [KERNEL_ARGS...]
#   ROCETEST     the host's rocetest (for its report command)
#   KERNEL_ARGS  e.g. rocetest.full=1 (the full-size runs)
# Environment: INTEROP_TIMEOUT_S (default 1500), INTEROP_ACCEL (auto, kvm, tcg),
#              INTEROP_KVM_PROBE_S (default 20).
# Exit status: 0 every test passed, 1 a test failed, 2 the lab could not run
# (no VM, timeout, a plan that did not finish).
set -uo pipefail

if [ $# -lt 4 ]; then
	sed -n '17,19p' "$0" >&2
	exit 2
fi
KERNEL=$1 INITRD=$2 REPORTS=$3 ROCETEST=$4
shift 4
TIMEOUT_S=${INTEROP_TIMEOUT_S:-1500}
PROBE_S=${INTEROP_KVM_PROBE_S:-20}
ACCEL=${INTEROP_ACCEL:-auto}

SHARE=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-interop.XXXXXX")
QEMU_PID=
cleanup() {
	[ -z "$QEMU_PID" ] || { kill -KILL "$QEMU_PID" 2>/dev/null; wait "$QEMU_PID" 2>/dev/null; }
	rm -rf "$SHARE"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

die() {
	echo "interop: $*" >&2
	exit 2
}

# qemu ACCEL SERIAL_LOG EXTRA...: QEMU in the background ($QEMU_PID), no display, no network.
qemu() {
	local accel=$1 log=$2 cpu=max
	shift 2
	[ "$accel" = kvm ] && cpu=host
	qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp 1 -m 2048 -nodefaults -no-user-config \
		-display none -no-reboot -serial "file:$log" -kernel "$KERNEL" "$@" &
	QEMU_PID=$!
}

# wait_qemu SECONDS: 0 when QEMU exited within SECONDS, 1 (and QEMU killed) when not.
wait_qemu() {
	local n=0
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		if [ $n -ge $(($1 * 10)) ]; then
			kill -KILL "$QEMU_PID" 2>/dev/null
			wait "$QEMU_PID" 2>/dev/null
			QEMU_PID=
			return 1
		fi
		n=$((n + 1))
		sleep 0.1
	done
	wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
}

# choose_accel: kvm when a kernel without an initramfs boots to its panic under KVM in time.
choose_accel() {
	[ "$ACCEL" = auto ] || { echo "$ACCEL (INTEROP_ACCEL)"; return; }
	if [ ! -w /dev/kvm ]; then
		echo "tcg (no usable /dev/kvm)"
		return
	fi
	qemu kvm "$SHARE/probe.log" -append "console=ttyS0 panic=-1"
	if wait_qemu "$PROBE_S" && grep -q 'Kernel panic' "$SHARE/probe.log"; then
		echo kvm
	else
		echo "tcg (KVM did not boot a kernel within $PROBE_S s)"
	fi
}

[ -r "$KERNEL" ] || die "no kernel $KERNEL (make interop fetches it)"
[ -r "$INITRD" ] || die "no initramfs $INITRD"
[ -x "$ROCETEST" ] || die "no rocetest $ROCETEST"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed (qemu-system-x86)"
accel=$(choose_accel)
mkdir -p "$SHARE/out"
echo "interop: booting $(basename "$KERNEL") under QEMU, accelerator ${accel}, timeout $TIMEOUT_S s"
start=$(date +%s) started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
qemu "${accel%% *}" "$SHARE/console.log" -initrd "$INITRD" -append "console=ttyS0 panic=-1 quiet $*" \
	-fsdev "local,id=out,path=$SHARE/out,security_model=none" -device virtio-9p-pci,fsdev=out,mount_tag=out
timed_out=0
wait_qemu "$TIMEOUT_S" || timed_out=1
secs=$(($(date +%s) - start))

stamp=$(date -u +%Y%m%dT%H%M%SZ)
run=$REPORTS/$stamp
mkdir -p "$run"
cp -r "$SHARE/out/." "$run/"
cp "$SHARE/console.log" "$run/console.log"
rm -f "$run/done"
{
	echo "kernel: $KERNEL"
	echo "initramfs: $INITRD"
	echo "accelerator: $accel"
	echo "kernel arguments: $*"
	echo "wall: $secs s"
} >"$run/lab.txt"
ln -sfn "$stamp" "$REPORTS/latest"

[ $timed_out -eq 0 ] || die "the VM did not finish within $TIMEOUT_S s and was killed; console log: $run/console.log"
[ -e "$SHARE/out/done" ] || die "the VM stopped before its test plan ended; console log: $run/console.log"
[ -s "$run/results.tsv" ] || die "the VM ran no test; console log: $run/console.log"
awk -F '\t' '{ printf "%s - %s/%s (%s s): %s %s\n", ($3 == "pass" ? "ok" : "FAIL"), $1, $2, $4, $6, $7 }' "$run/results.tsv"
"$ROCETEST" report --results "$run/results.tsv" --report "$run" --started "$started" --wall-s "$secs" \
	--title "interop lab: Linux soft-RoCE (rdma_rxe, $(basename "$KERNEL")) under QEMU ${accel%% *}${*:+, $*}"
rc=$?
[ $rc -le 1 ] || die "rocetest report could not read the results or write the report (exit $rc)"
passed=$(awk -F '\t' '$3 == "pass"' "$run/results.tsv" | wc -l)
failed=$(awk -F '\t' '$3 != "pass"' "$run/results.tsv" | wc -l)
echo "interop: report in $run/ (also $REPORTS/latest/), $secs s with $accel"
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ $rc -eq 0 ]
