#!/usr/bin/env bash
# The dependency step, which the Makefile runs before anything else: makes
# sure the Debian packages of each GROUP are installed (installing the missing
# ones when run as root; otherwise printing the exact apt-get line and
# stopping), then, with --config FILE, writes FILE: every value the build reads
# from an installed tool (compiler flags from pkg-config, Verilator's root, ...)
# and CONFIGURED_GROUPS, so that no makefile asks a tool anything while it is
# parsed. Beside it, one file per group (build/config-rtl.flags for
# build/config.mk) holds that group's values and is rewritten only when they
# change: objects depend on it, so configuring another group recompiles
# nothing.
#
# usage: deps.sh [--config FILE] GROUP...
#        deps.sh --list        the groups and their packages
# groups: build  compiler, libpcap, libdeflate, libibverbs (make, and everything)
#         check  Check, python3                       (make check: unit, CLI and vector tests)
#         test   tshark, clang with libFuzzer, zlib, scapy, PyYAML (the CI
#                examples), xmllint (JUnit schema), headless Chromium
#                (renders the HTML reports),
#                iproute2 and capsh (hardware mode over veth)
#                                                     (make test, fuzz, sanitize, bench)
#         rtl    Verilator, Yosys, g++, python3       (make conformance, rtl-test, synth-check, mutants)
#         doc    help2man, man-db                     (man pages: make man, install, test)
#         fresh  mmdebstrap                           (make fresh-check)
#         dissector  libwireshark-dev, GLib headers, tshark
#                                                     (make dissector, install-dissector, test)
#         gui    wireshark-qt, Xvfb, xwd, netpbm, xdotool (make dissector-screenshot)
#         interop  QEMU, busybox-static, kmod, cpio, the RDMA user space (libibverbs
#                providers, ibverbs-utils, perftest), tcpdump, iproute2; and Debian's
#                kernel (linux-image-amd64, with rdma_rxe) extracted, not installed,
#                beside FILE                          (make interop)
set -euo pipefail

declare -A GROUP_PACKAGES=(
	[build]="gcc make pkg-config libc6-dev libpcap-dev libdeflate-dev libibverbs-dev"
	[check]="check python3"
	[test]="tshark clang libclang-rt-dev zlib1g-dev python3-scapy python3-yaml time libxml2-utils chromium iproute2 libcap2-bin"
	[rtl]="g++ verilator yosys python3"
	[doc]="help2man man-db"
	[fresh]="mmdebstrap"
	[dissector]="libwireshark-dev libglib2.0-dev tshark"
	[gui]="wireshark-qt xvfb x11-apps netpbm xdotool"
	[interop]="qemu-system-x86 busybox-static kmod cpio ibverbs-providers ibverbs-utils perftest tcpdump iproute2"
)
GROUP_ORDER="build check test rtl doc fresh dissector gui interop"

config=""
groups=()
while [ $# -gt 0 ]; do
	case "$1" in
	--config)
		[ $# -ge 2 ] || { echo "deps.sh: --config needs a file name" >&2; exit 2; }
		config="$2"; shift 2 ;;
	--list)
		for g in $GROUP_ORDER; do printf '%-6s %s\n' "$g" "${GROUP_PACKAGES[$g]}"; done
		exit 0 ;;
	-h|--help) sed -n '2,29p' "$0"; exit 0 ;;
	*)
		if [ -z "${GROUP_PACKAGES[$1]+x}" ]; then
			echo "deps.sh: unknown group '$1' (known: $GROUP_ORDER)" >&2
			exit 2
		fi
		groups+=("$1"); shift ;;
	esac
done

wanted=()
for g in "${groups[@]}"; do
	# shellcheck disable=SC2206
	wanted+=(${GROUP_PACKAGES[$g]})
done

missing=()
for pkg in "${wanted[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done
# A package listed twice (two groups) is installed once.
if [ ${#missing[@]} -gt 0 ]; then
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
fi

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "rocetest needs these Debian packages: ${missing[*]}" >&2
		echo "Install them with:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
		echo "then run make again." >&2
		exit 1
	fi
	echo "rocetest: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# An old or empty package list makes installs fail; refresh it once.
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

[ -n "$config" ] || exit 0

# pc_var NAME MODULE: the make lines NAME_CFLAGS and NAME_LIBS from pkg-config.
pc_var() {
	if ! pkg-config --exists "$2"; then
		echo "rocetest: pkg-config does not know $2 although its -dev package is installed" >&2
		exit 1
	fi
	echo "$1_CFLAGS := $(pkg-config --cflags "$2")"
	echo "$1_LIBS := $(pkg-config --libs "$2")"
}

# on_path PROGRAM: stops unless PROGRAM can be run (its package may install it elsewhere).
on_path() {
	command -v "$1" >/dev/null || { echo "rocetest: $1 is not on PATH although its package is installed" >&2; exit 1; }
}

# group_config GROUP: what the makefiles need to know of that group's tools.
group_config() {
	case "$1" in
	build)
		pc_var PCAP libpcap
		pc_var DEFLATE libdeflate
		pc_var IBVERBS libibverbs ;;
	check)
		pc_var CHECK check ;;
	test)
		pc_var ZLIB zlib ;;
	rtl)
		on_path verilator
		on_path yosys
		local root
		root=$(verilator --getenv VERILATOR_ROOT)
		if [ ! -r "$root/include/verilated.h" ]; then
			echo "rocetest: verilator says its root is '$root', which has no include/verilated.h" >&2
			exit 1
		fi
		echo "VERILATOR_ROOT := $root" ;;
	doc)
		on_path help2man ;;
	fresh)
		on_path mmdebstrap ;;
	dissector)
		on_path tshark
		# -isystem: Wireshark's and GLib's headers are not held to our warning flags.
		pc_var WIRESHARK wireshark | sed 's/ -I/ -isystem /g'
		echo "WIRESHARK_PLUGINDIR := $(pkg-config --variable=plugindir wireshark)"
		echo "WIRESHARK_PREFIX := $(pkg-config --variable=prefix wireshark)" ;;
	gui)
		for t in wireshark Xvfb xwd xwdtopnm pnmtopng xdotool; do on_path "$t"; done ;;
	interop)
		on_path qemu-system-x86_64
		bash harness/interop/kernel.sh "$(dirname "$config")/interop-kernel" ;;
	esac
}

mkdir -p "$(dirname "$config")"
tmp="$config.tmp"
{
	echo "# Written by harness/scripts/deps.sh: the values the build reads from"
	echo "# installed tools. make rewrites it when a goal needs another group;"
	echo "# delete it to detect everything again."
	echo "CONFIGURED_GROUPS := ${groups[*]}"
} >"$tmp"
for g in $GROUP_ORDER; do
	for want in "${groups[@]}"; do
		[ "$want" = "$g" ] || continue
		flags="${config%.mk}-$g.flags"
		group_config "$g" >"$flags.tmp"
		if cmp -s "$flags.tmp" "$flags"; then
			rm -f "$flags.tmp"
		else
			mv "$flags.tmp" "$flags"
		fi
		{ echo "# $g ($flags)"; cat "$flags"; } >>"$tmp"
		break
	done
done
mv "$tmp" "$config"
