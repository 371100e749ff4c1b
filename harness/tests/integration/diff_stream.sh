#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest diff streams: two pairs of generated captures of the same work
# (every normalised field different between A and B), one ten times longer
# than the other, the longer pair over a million packets (520,000 each). Both must come
# out the same (no difference, every message aligned), and the peak RSS of
# the long diff must stay within DIFF_RSS_SLACK_KIB (4 MiB) of the short
# one's: memory does not grow with the captures.
#
# usage: diff_stream.sh ROCETEST WORKDIR [LINES]   (LINES: batches of 1000 WRITEs in the long pair; default 130)
# Prints "ok - NAME" or "FAIL - NAME: why" per test.
set -u
ROCETEST=$1
WORK=$2
LONG=${3:-130}
SLACK_KIB=${DIFF_RSS_SLACK_KIB:-4096}
mkdir -p "$WORK"

PREFIX="diff: "
# shellcheck source=harness/tests/integration/cmd_lib.sh
. harness/tests/integration/cmd_lib.sh

# scenario FILE LINES NODE_A: LINES batches of 1000 WRITEs of three packets and their ACKs, 1 ms apart.
scenario() {
	{
		echo "description diff_stream: $2 x 1000 WRITEs of 768 B"
		echo "pmtu 256"
		echo "node a $3"
		echo "node b memory=1M"
		for ((i = 0; i < $2; i++)); do
			echo "write a len=768 count=1000 va=+0 at=${i}ms"
		done
	} >"$1"
}

# pair NAME LINES: captures NAME-a.pcap and NAME-b.pcap of the same work, QPNs, PSNs, ports, IPs, MACs, TOS apart.
pair() {
	scenario "$WORK/$1-a.scn" "$2" "psn=100"
	scenario "$WORK/$1-b.scn" "$2" "qpn=0x4242 psn=0xfff000 sport=0xd00d ip=10.9.9.9 mac=02:00:00:00:09:09"
	for s in a b; do
		"$ROCETEST" gen --quiet -o "$WORK/$1-$s.pcap" "$WORK/$1-$s.scn" >"$WORK/gen.out" 2>&1 ||
			{ probs+=("rocetest gen $1-$s failed: $(tail -n 2 "$WORK/gen.out")"); return 1; }
	done
}

# measure NAME: the diff of pair NAME, its peak RSS (KiB) in $WORK/NAME.rss, the JSON in $WORK/NAME.json.
measure() {
	/usr/bin/time -f %M -o "$WORK/$1.rss" "$ROCETEST" diff --quiet --json "$WORK/$1.json" \
		"$WORK/$1-a.pcap" "$WORK/$1-b.pcap" >"$WORK/$1.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || probs+=("diff of $1: exit $rc: $(tail -n 2 "$WORK/$1.out")")
}

# same NAME MESSAGES: the JSON says: one pair, every message aligned, no difference, no note.
same() {
	/usr/bin/python3 - "$WORK/$1.json" "$2" <<'PY' || probs+=("$1: $(cat "$WORK/py.err")")
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
p = d["pairs"]
err = []
if len(p) != 1: err.append("%d pairs" % len(p))
elif p[0]["aligned"][0] != n: err.append("%s aligned, not %d" % (p[0]["aligned"], n))
if d["differences"] or p and p[0]["notes"]: err.append("differences %s notes %s" % (d["differences"][:2], p and p[0]["notes"]))
if err:
    open(sys.argv[1].rsplit("/", 1)[0] + "/py.err", "w").write("; ".join(err))
    sys.exit(1)
PY
}

command -v /usr/bin/time >/dev/null || { echo "FAIL - ${PREFIX}streaming: /usr/bin/time not found"; exit 0; }
probs=()
short=$((LONG / 10))
pair short "$short" && pair long "$LONG"
frames=$("$ROCETEST" show "$WORK/long-a.pcap" 2>/dev/null | wc -l)
[ $((frames * 2)) -ge 1000000 ] || probs+=("the long pair has $((frames * 2)) frames, not a million")
if [ ${#probs[@]} -eq 0 ]; then
	measure short
	measure long
	same short $((short * 1000))
	same long $((LONG * 1000))
fi
if [ ${#probs[@]} -eq 0 ]; then
	rs=$(tail -n 1 "$WORK/short.rss") rl=$(tail -n 1 "$WORK/long.rss")
	[ "$rl" -le $((rs + SLACK_KIB)) ] ||
		probs+=("peak RSS $rl KiB for $frames frames against $rs KiB for a tenth: memory grows with the capture")
	echo "# diff: peak RSS $rs KiB ($short x 1000 messages a side), $rl KiB ($LONG x 1000 messages, $frames frames a side)"
fi
check "streams: a pair of captures of $frames frames each in the memory of a pair ten times shorter (peak RSS within $SLACK_KIB KiB), same work found the same"

# The page on a capture of ~100,000 packets: B is the short pair's B with its last message 512 B
# instead of 768. The page folds what agrees; the differing message's first packet, long folded
# away when the diff finds it, still gets a row of its own in each ladder, marked, and the
# table's links lead to it.
probs=()
if [ -r "$WORK/short-b.scn" ]; then
	last=$((short - 1))
	sed "\$d" "$WORK/short-b.scn" >"$WORK/late-b.scn"
	{
		echo "write a len=768 count=999 va=+0 at=${last}ms"
		echo "write a len=512 count=1 va=+0 at=${last}ms"
	} >>"$WORK/late-b.scn"
	"$ROCETEST" gen --quiet -o "$WORK/late-b.pcap" "$WORK/late-b.scn" >"$WORK/gen.out" 2>&1 ||
		probs+=("rocetest gen late-b failed: $(tail -n 2 "$WORK/gen.out")")
	run "$ROCETEST" diff --quiet --html "$WORK/late.html" --json "$WORK/late.json" "$WORK/short-a.pcap" "$WORK/late-b.pcap"
	want_rc 1
	/usr/bin/python3 - "$WORK/late.json" "$WORK/late.html" "$short" >"$WORK/py.err" 2>&1 <<'PY' || probs+=("$(tail -n 2 "$WORK/py.err" | tr '\n' ' ')")
import json, re, sys
d = json.load(open(sys.argv[1])); html = open(sys.argv[2]).read(); n = int(sys.argv[3]) * 1000
fields = {(x["field"], x["message"]) for x in d["differences"]}
assert ("length", n) in fields and all(m == n for _, m in fields), fields
fa, fb = d["differences"][0]["frame_a"], d["differences"][0]["frame_b"]
assert len(html) < 200_000, "page of %d bytes" % len(html)
rows = re.findall(r'<tr id="[ab]-fr', html)
assert len(rows) < 100, "%d ladder rows" % len(rows)
for side, fr in (("a", fa), ("b", fb)):
    assert 'href="#%s-fr%d"' % (side, fr) in html, "no link to %s frame %d" % (side, fr)
    assert re.search(r'<tr id="%s-fr%d" class="differs' % (side, fr), html), "no marked row for %s frame %d" % (side, fr)
assert " packets (frames " in html, "nothing folded"
PY
fi
check "--html on two captures of $((short * 4000)) packets each: a page under 200 KB, what agrees folded, the one differing message's rows marked and linked"
rm -f "$WORK"/*.pcap
