#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the interop lab's initramfs (README "Interop lab"): a gzip'd newc
# cpio with busybox-static, the kernel modules soft-RoCE needs (and what they
# depend on, as modprobe resolves it from the kernel package's depmod
# tables), the RDMA user space (libibverbs with the rxe provider and its
# /etc/libibverbs.d entry, perftest, ibv_rc_pingpong), tcpdump, iproute2 (ip,
# tc, rdma), kmod, the project's rocetest and the Verilated model the virtual
# board loads, every ELF with the shared libraries ldd resolves for it, and
# the lab's init.sh as /init with its plan.sh beside it.
#
# usage: initramfs.sh OUT KERNEL_ROOT KVER LAB_DIR ROCETEST MODEL_SO
#   KERNEL_ROOT  the extracted kernel package (KERNEL_ROOT/lib/modules/KVER)
#   LAB_DIR      harness/interop (init.sh, plan.sh)
# Host files keep their paths in the image (the host is Debian 12 as well,
# merged /usr); rocetest goes to /opt/rocetest/bin and the model to
# /opt/rocetest/dut/w512, where rocetest looks for it beside its binary.
set -euo pipefail

if [ $# -ne 6 ]; then
	sed -n '12,14p' "$0" >&2
	exit 2
fi
OUT=$1 KVER=$3 LAB=$4 ROCETEST=$5 MODEL=$6
# Absolute, as modprobe prints the paths it resolves.
KROOT=$(cd "$2" && pwd)

# The modules the lab loads by name; modprobe brings in the rest (ib_core,
# ib_uverbs, udp_tunnel, ip6_udp_tunnel, virtio, netfs, ...). rxe asks the
# crypto API for "crc32" (its ICRC) when a device is added, a dependency no
# symbol shows: the alias crypto-crc32 names the modules that provide it.
MODULES=(rdma_rxe ib_uverbs veth sch_netem sch_prio cls_u32 act_gact crypto-crc32 9p 9pnet_virtio virtio_pci)
# Programs from Debian packages, by name on the host's PATH. The scripts run
# under bash: busybox sh would run its own applets (ip, modprobe) before them.
PROGRAMS=(bash ip tc rdma tcpdump kmod ib_write_bw ib_send_bw ibv_rc_pingpong ibv_devices ibv_devinfo)
MULTIARCH=/usr/lib/x86_64-linux-gnu
RXE_PROVIDER=$MULTIARCH/libibverbs/librxe-rdmav34.so

STAGE=$(mktemp -d "$OUT.stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

die() {
	echo "initramfs: $*" >&2
	exit 2
}

# put SRC [DEST]: copies host file SRC into the image at DEST (default: the same path).
put() {
	local dest=$STAGE${2:-$1}
	mkdir -p "$(dirname "$dest")"
	cp -L "$1" "$dest"
}

# put_elf SRC [DEST]: SRC and every shared library ldd resolves for it.
put_elf() {
	put "$@"
	local lib
	while read -r lib; do
		[ -e "$STAGE$lib" ] || put "$lib"
	done < <(ldd "$1" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*\) (.*|\1|p')
}

skeleton() {
	mkdir -p "$STAGE"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,run,out,opt/rocetest/bin}
	local d
	for d in bin sbin lib lib64; do ln -s "usr/$d" "$STAGE/$d"; done
	printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:100:100::/nonexistent:/bin/false\n' >"$STAGE/etc/passwd"
	printf 'root:x:0:\ntcpdump:x:100:\n' >"$STAGE/etc/group"
}

modules() {
	local kmods=$KROOT/lib/modules/$KVER m path
	[ -d "$kmods" ] || die "no $kmods (the kernel package is not extracted)"
	[ -s "$kmods/modules.dep" ] || depmod -b "$KROOT" "$KVER"
	for m in "${MODULES[@]}"; do
		modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" >"$STAGE/deps" ||
			die "modprobe cannot resolve module $m in $kmods"
		while read -r _ path _; do
			[ -e "$STAGE${path#"$KROOT"}" ] || put "$path" "${path#"$KROOT"}"
		done < <(grep '^insmod ' "$STAGE/deps")
	done
	rm -f "$STAGE/deps"
	for m in modules.order modules.builtin modules.builtin.modinfo; do
		put "$kmods/$m" "/lib/modules/$KVER/$m"
	done
	depmod -b "$STAGE" "$KVER"
}

programs() {
	local p path
	for p in "${PROGRAMS[@]}"; do
		path=$(command -v "$p") || die "$p is not installed (make interop's dependency group installs it)"
		put_elf "$path"
	done
	for p in modprobe insmod lsmod rmmod modinfo; do ln -sf ../bin/kmod "$STAGE/usr/sbin/$p"; done
	[ -r "$RXE_PROVIDER" ] || die "no $RXE_PROVIDER (ibverbs-providers)"
	put_elf "$RXE_PROVIDER"
	put /etc/libibverbs.d/rxe.driver
	put_elf "$ROCETEST" /opt/rocetest/bin/rocetest
	put_elf "$MODEL" /opt/rocetest/dut/w512/libroce_dut_sim.so
	# busybox for everything else (sh, mount, poweroff, ...), never over a real tool.
	put /bin/busybox /usr/bin/busybox
	while read -r p; do
		[ -e "$STAGE/$p" ] || [ -L "$STAGE/$p" ] || ln -s /usr/bin/busybox "$STAGE/$p"
	done < <(/bin/busybox --list-full)
}

skeleton
modules
programs
install -m 0755 "$LAB/init.sh" "$STAGE/init"
install -m 0644 "$LAB/plan.sh" "$STAGE/lib/rocetest-interop-plan.sh"
# Sorted names, root-owned, fixed times: the same inputs give the same image.
find "$STAGE" -exec touch -h -d @0 {} +
(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible) |
	gzip -n -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "initramfs: $OUT ($(du -h "$OUT" | cut -f1), kernel $KVER, modules: ${MODULES[*]} and their dependencies)"
