#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's kernel for the interop lab (deps.sh runs it for the group
# interop): the package linux-image-amd64 depends on, from the apt
# archive, extracted into DIR/PACKAGE_VERSION/ rather than installed (an
# install would run the host's kernel hooks and build an initramfs of the
# host), with depmod's tables made for it. Prints the make lines the lab
# reads: INTEROP_KERNEL_ROOT, INTEROP_KVER, INTEROP_VMLINUZ. A kernel
# already extracted is reused; a new one in the archive is fetched.
#
# usage: kernel.sh DIR
set -euo pipefail

[ $# -eq 1 ] || { sed -n '11p' "$0" >&2; exit 2; }
dir=$1
pkg=$(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null |
	sed -n 's/^Depends: \(linux-image-[0-9][^ ,]*\).*/\1/p' | head -n 1)
[ -n "$pkg" ] || { echo "interop: apt knows no linux-image-amd64 (run apt-get update)" >&2; exit 1; }
ver=$(apt-cache show --no-all-versions "$pkg" | sed -n 's/^Version: //p' | head -n 1)
kver=${pkg#linux-image-}
root=$dir/${pkg}_$ver

if [ ! -r "$root/lib/modules/$kver/modules.dep" ]; then
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "interop: fetching $pkg $ver from the Debian archive (extracted, not installed)" >&2
	(cd "$tmp" && apt-get download -q "$pkg=$ver" >&2)
	dpkg-deb -x "$tmp"/*.deb "$tmp/root"
	depmod -b "$tmp/root" "$kver"
	rm -rf "$root"
	mv "$tmp/root" "$root"
fi
[ -r "$root/boot/vmlinuz-$kver" ] || { echo "interop: $root has no boot/vmlinuz-$kver" >&2; exit 1; }
echo "INTEROP_KERNEL_ROOT := $(cd "$root" && pwd)"
echo "INTEROP_KVER := $kver"
echo "INTEROP_VMLINUZ := $(cd "$root" && pwd)/boot/vmlinuz-$kver"
