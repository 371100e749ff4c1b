#!/usr/bin/env bash
# Makes sure the Debian packages rocetest needs are installed, installing the
# missing ones when run as root (otherwise it prints the exact apt-get line and
# stops), then (with --config FILE) writes the compiler flags pkg-config gives.
#
# usage: deps.sh [--config FILE] GROUP...
# groups: build  compiler, libpcap, libdeflate (everything `make` needs)
#         test   Check, tshark, clang with libFuzzer, zlib, scapy, xmllint (JUnit
#                schema), headless Chromium (renders the HTML report) (`make test`,
#                `make fuzz`, `make bench`)
#         rtl    Verilator (RTL simulation and lint), Yosys (synthesis check), g++
#                (Verilator's C++ output) (`make conformance`, `make synth-check`)
set -euo pipefail

declare -A GROUP_PACKAGES=(
	[build]="gcc make pkg-config libc6-dev libpcap-dev libdeflate-dev"
	[test]="check tshark clang libclang-rt-dev zlib1g-dev python3 python3-scapy time libxml2-utils chromium"
	[rtl]="g++ verilator yosys"
)

config=""
groups=()
while [ $# -gt 0 ]; do
	case "$1" in
	--config) config="$2"; shift 2 ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*)
		if [ -z "${GROUP_PACKAGES[$1]+x}" ]; then
			echo "deps.sh: unknown group '$1' (known: ${!GROUP_PACKAGES[*]})" >&2
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

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "rocetest needs these Debian packages: ${missing[*]}" >&2
		echo "Install them with:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	echo "rocetest: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# An old or empty package list makes installs fail; refresh it once.
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

if [ -n "$config" ]; then
	for pc in libpcap libdeflate; do
		if ! pkg-config --exists "$pc"; then
			echo "rocetest: pkg-config does not know $pc although its -dev package is installed" >&2
			exit 1
		fi
	done
	mkdir -p "$(dirname "$config")"
	tmp="$config.tmp"
	{
		echo "# written by harness/scripts/deps.sh; delete to re-detect"
		echo "PCAP_CFLAGS := $(pkg-config --cflags libpcap)"
		echo "PCAP_LIBS := $(pkg-config --libs libpcap)"
		echo "DEFLATE_CFLAGS := $(pkg-config --cflags libdeflate)"
		echo "DEFLATE_LIBS := $(pkg-config --libs libdeflate)"
	} >"$tmp"
	mv "$tmp" "$config"
fi
