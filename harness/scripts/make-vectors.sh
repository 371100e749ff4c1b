#!/usr/bin/env bash
# Regenerates the golden vectors: every vectors/scenarios/NAME.scn becomes
# OUT/NAME.pcap (the capture) and OUT/NAME.json (its expected verdict).
# Vectors whose scenario is gone are removed, so OUT mirrors the scenarios.
#
#   make-vectors.sh ROCETEST [OUT]    (OUT defaults to vectors/)
set -euo pipefail
rocetest=${1:?usage: make-vectors.sh ROCETEST [OUT]}
out=${2:-vectors}
scenarios=vectors/scenarios
mkdir -p "$out"
n=0
for scn in "$scenarios"/*.scn; do
	name=$(basename "$scn" .scn)
	"$rocetest" gen --quiet "$scn" -o "$out/$name.pcap" --expect "$out/$name.json"
	n=$((n + 1))
done
for old in "$out"/*.pcap; do
	[ -e "$old" ] || continue
	name=$(basename "$old" .pcap)
	if [ ! -e "$scenarios/$name.scn" ]; then
		echo "make-vectors: removing $name (its scenario is gone)"
		rm -f "$out/$name.pcap" "$out/$name.json"
	fi
done
echo "make-vectors: $n vectors in $out/"
