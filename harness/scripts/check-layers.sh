#!/usr/bin/env bash
# The library's layers depend only downwards (make check runs this):
#
#   packet < check < model < run      harness/lib/LAYER/, one archive each
#   report                            harness/report/: the report writers, on all four
#   front ends                        harness/cli, tests, fuzz, bench: on everything
#
# Each public header (harness/include/rocetest/*.h) names its layer in a line
# "Layer: NAME". For every #include "..." of every file under harness/:
#   - a header of a higher layer is an error;
#   - a private header (one beside the sources of a layer) is its layer's
#     alone: another directory including it is an error;
#   - anything from dut/ is an error: the device is a plugin the harness loads.
# With --archives DIR, also every rt_* symbol a layer's archive
# (DIR/librocetest-LAYER.a) uses must be defined in its own or a lower one.
#
# usage: check-layers.sh [--archives DIR] [ROOT]
# Exit status: 0 clean, 1 a violation (each printed as FILE:LINE: why), 2 usage.
set -euo pipefail

archives=""
while [ $# -gt 0 ]; do
	case $1 in
	--archives) archives=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "check-layers: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
root=${1:-.}
[ -d "$root/harness/include/rocetest" ] || { echo "check-layers: $root has no harness/include/rocetest" >&2; exit 2; }
cd "$root"

LAYERS="packet check model run"
# rank NAME: the layer's height; front ends sit above everything.
rank() {
	case $1 in
	packet) echo 1 ;; check) echo 2 ;; model) echo 3 ;; run) echo 4 ;;
	report) echo 5 ;; front) echo 6 ;; *) echo 0 ;;
	esac
}
# layer_of_dir DIR: the layer that owns the sources in DIR.
layer_of_dir() {
	case $1 in
	harness/lib/*) echo "${1#harness/lib/}" ;;
	harness/report) echo report ;;
	*) echo front ;;
	esac
}

violations=0
violation() {
	echo "$1: $2"
	violations=$((violations + 1))
}

# The layer of each public header, from its "Layer:" line.
declare -A public_layer=()
for h in harness/include/rocetest/*.h; do
	name=${h#harness/include/}
	l=$(sed -n 's/.*Layer: \([a-z]*\).*/\1/p' "$h" | head -n 1)
	if [ -z "$l" ] || [ "$(rank "$l")" -eq 0 ] || [ "$l" = front ]; then
		violation "$h:1" "names no layer (a line 'Layer: packet|check|model|run|report')"
		continue
	fi
	public_layer[$name]=$l
done

files=0 includes=0
while IFS= read -r f; do
	files=$((files + 1))
	dir=$(dirname "$f")
	mine=$(layer_of_dir "$dir")
	# A public header belongs to the layer it names, not to its directory.
	case $f in
	harness/include/rocetest/*.h) mine=${public_layer[${f#harness/include/}]:-front} ;;
	esac
	while IFS=: read -r line inc; do
		includes=$((includes + 1))
		case $inc in
		rocetest/*)
			l=${public_layer[$inc]:-}
			if [ -z "$l" ]; then
				[ -e "harness/include/$inc" ] || violation "$f:$line" "includes $inc, which is no public header"
			elif [ "$(rank "$l")" -gt "$(rank "$mine")" ]; then
				violation "$f:$line" "includes $inc of layer $l from layer $mine: a layer uses only its own and lower layers ($LAYERS, then report, then the front ends)"
			fi ;;
		*dut/*)
			violation "$f:$line" "includes $inc from dut/: the harness reaches the device only through rocetest/dut.h" ;;
		*)
			if [ -e "$dir/$inc" ]; then
				target=$(cd "$(dirname "$dir/$inc")" && pwd)
				owner=$(layer_of_dir "${target#"$PWD"/}")
				if [ "$target" != "$(cd "$dir" && pwd)" ] && [ "$owner" != front ]; then
					violation "$f:$line" "includes $inc, a private header of $owner: private headers are their own directory's"
				fi
			elif [ -n "$(find dut -name "$(basename "$inc")" -print -quit 2>/dev/null)" ]; then
				violation "$f:$line" "includes $inc, which is dut/'s: the harness reaches the device only through rocetest/dut.h"
			fi ;;
		esac
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done < <(find harness -name '*.c' -o -name '*.h' -o -name '*.cpp' | grep -v '/corpus' | sort)

# The archives: what each layer uses of ours must come from it or below.
if [ -n "$archives" ]; then
	below=""
	for l in $LAYERS; do
		a=$archives/librocetest-$l.a
		[ -r "$a" ] || { echo "check-layers: $a is missing" >&2; exit 2; }
		below="$below $a"
		defined=$(nm --defined-only -g $below 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
		while read -r sym; do
			[ -n "$sym" ] || continue
			violation "$a" "uses $sym, which no archive of layer $l or below defines"
		done < <(nm -u "$a" 2>/dev/null | awk '{ print $NF }' | grep '^rt_' | sort -u | comm -23 - <(printf '%s\n' "$defined"))
	done
fi

if [ "$violations" -gt 0 ]; then
	echo "check-layers: $violations violations in $files files" >&2
	exit 1
fi
echo "check-layers: $files files, $includes includes${archives:+, 4 archives}: every dependency points down ($LAYERS; report; front ends)"
