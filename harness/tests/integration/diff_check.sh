#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rocetest diff through the command line, on the real captures of ../shared:
# each against a copy with every normalised field rewritten (nothing may
# differ), against copies with one change (exactly that difference, at its
# message), against copies with what real captures do (a retransmission the
# capture missed, a packet the capture missed, a start mid-message), a
# ConnectX connection against an rxe one (each difference in its class), a
# golden vector against its scenario run with another seed, the reports
# (JSON, HTML) and usage errors.
#
# usage: diff_check.sh ROCETEST WORKDIR   (from the repository root)
# Prints "ok - NAME" or "FAIL - NAME: why" per test.
set -u
ROCETEST=$1
WORK=$2
PY=/usr/bin/python3
HERE=harness/tests/integration
CAP=../shared/captures
mkdir -p "$WORK"

PREFIX="diff: "
# shellcheck source=harness/tests/integration/cmd_lib.sh
. harness/tests/integration/cmd_lib.sh

# rewrite MODE IN OUT [FRAME]: diff_rewrite.py, then every ICRC recomputed.
rewrite() {
	rm -f "$3"
	# icrc exits 1 on the stale ICRCs it fixes.
	"$PY" "$HERE/diff_rewrite.py" "$1" "$2" "$WORK/raw.pcap" ${4:+"$4"} >"$WORK/rw" 2>&1 &&
		{ "$ROCETEST" icrc --quiet --fix "$3" "$WORK/raw.pcap" >/dev/null 2>>"$WORK/rw"; [ -s "$3" ]; } ||
		probs+=("rewriting $2 failed: $(tail -n 2 "$WORK/rw" | tr '\n' ' ')")
}

# differences JSON EXPECT: the (class, field, message) triples of the report, sorted, must be EXPECT.
differences() {
	local got
	got=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s/%s/%d" % (x["class"], x["field"], x["message"]) for x in d["differences"])))' "$1" 2>&1)
	[ "$got" = "$2" ] || probs+=("differences: '$got', expected '$2'")
}

# ---- every normalised field rewritten: nothing differs
for f in connectx/write.pcap connectx/read2.pcap connectx/rocev2_test.pcap rxe/rdma_send_bw.pcap rxe/rdma_read_bw.pcap \
	rxe/rdma_atomic_bw.pcap rxe/pingpong_ud.pcap rxe-lab/loss5_req_write_bw_s16384.pcap \
	rxe-lab/rnr_send_bw_rx1_s4096.pcap rxe-lab/psnwrap_write_bw_s8192.pcap rxe-lab/rc_imm_send_write.pcap; do
	n=$(basename "$f" .pcap)
	rewrite normalise "$CAP/$f" "$WORK/$n.norm.pcap"
	cmp -s "$CAP/$f" "$WORK/$n.norm.pcap" && probs+=("the rewrite changed nothing")
	run "$ROCETEST" diff --payload --json "$WORK/$n.json" "$CAP/$f" "$WORK/$n.norm.pcap"
	want_rc 0
	out_has "diff: 0 semantic, 0 behaviour, 0 cosmetic difference(s)"
	"$PY" - "$WORK/$n.json" >"$WORK/py" 2>&1 <<'EOF' || probs+=("$(tail -n 2 "$WORK/py" | tr '\n' ' ')")
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pairs"], "no pair of flows"
assert not d["unpaired_a"] and not d["unpaired_b"], (d["unpaired_a"], d["unpaired_b"])
for p in d["pairs"]:
    assert p["messages_a"] == p["messages_b"] and p["flow_a"] == p["flow_b"] and not p["swapped"], p
    # Messages the capture holds only in part are noted, not aligned; every other one is aligned.
    partial = sum(int(n.split(" holds ")[1].split()[0]) for n in p["notes"] if n.split(": ")[1].startswith("A holds"))
    assert sum(p["aligned"]) == sum(p["messages_a"]) - partial, p
assert sum(sum(p["aligned"]) for p in d["pairs"]) > 0
EOF
	check "$f against itself with MACs, IPs, IP IDs, TTL, ports, QPNs, PSNs, addresses, R_Keys, times rewritten: no difference"
done

# ---- one change each: exactly that difference, at its message
rewrite merge "$CAP/rxe/rdma_send_bw.pcap" "$WORK/merge.pcap" 29
run "$ROCETEST" diff --json "$WORK/merge.json" "$CAP/rxe/rdma_send_bw.pcap" "$WORK/merge.pcap"
want_rc 1
out_has "semantic  segments       message 2: A splits 3000 B as First 1024 + 1 Middle + Last 952, B as First 2048 + Last 952: PMTU 1024 vs 2048"
differences "$WORK/merge.json" "semantic/segments/2"
check "a message cut into other packets (a Middle merged into its First): segments of message 2, nothing else"
# The diff reads each capture twice: one from standard input is kept for the second pass.
timeout 120 "$ROCETEST" diff --json "$WORK/stdin.json" - "$CAP/rxe/rdma_send_bw.pcap" <"$WORK/merge.pcap" \
	>"$WORK/out" 2>"$WORK/err"
rc=$?
want_rc 1
differences "$WORK/stdin.json" "semantic/segments/2"
check "the same copy as capture A from standard input: the same difference"

rewrite imm "$CAP/rxe/pingpong_rc.pcap" "$WORK/imm.pcap" 16
run "$ROCETEST" diff --json "$WORK/imm.json" "$CAP/rxe/pingpong_rc.pcap" "$WORK/imm.pcap"
want_rc 1
out_has "message 2: A sends a SEND, B a SEND with immediate"
differences "$WORK/imm.json" "semantic/opcode/2"
check "an opcode changed (SEND Only to SEND Only with Immediate): the opcode of message 2, nothing else"

rewrite payload "$CAP/rxe/pingpong_rc.pcap" "$WORK/payload.pcap" 16
run "$ROCETEST" diff --json "$WORK/p0.json" "$CAP/rxe/pingpong_rc.pcap" "$WORK/payload.pcap"
want_rc 0
differences "$WORK/p0.json" ""
run "$ROCETEST" diff --payload --json "$WORK/p1.json" "$CAP/rxe/pingpong_rc.pcap" "$WORK/payload.pcap"
want_rc 1
differences "$WORK/p1.json" "semantic/payload/2"
check "a payload byte changed: nothing without --payload, the payload of message 2 with it"

rewrite payload "$CAP/rxe/rdma_read_bw.pcap" "$WORK/read.pcap" 28
run "$ROCETEST" diff --payload --json "$WORK/read.json" "$CAP/rxe/rdma_read_bw.pcap" "$WORK/read.pcap"
want_rc 1
out_has "message 1: the READ response bytes differ"
differences "$WORK/read.json" "semantic/response/1"
check "a byte of a READ response changed: the response of message 1 (the READ), with --payload"

# ---- what real captures do
"$PY" "$HERE/diff_rewrite.py" drop "$CAP/rxe-lab/loss5_req_write_bw_s16384.pcap" "$WORK/noretx.pcap" 150
run "$ROCETEST" diff --json "$WORK/noretx.json" "$CAP/rxe-lab/loss5_req_write_bw_s16384.pcap" "$WORK/noretx.pcap"
want_rc 0
differences "$WORK/noretx.json" "behaviour/retransmit/2"
check "a capture that missed a retransmitted packet (as ibdump does): one behaviour difference, no semantic one"

"$PY" "$HERE/diff_rewrite.py" drop "$CAP/rxe/pingpong_rc.pcap" "$WORK/gap.pcap" 16
run "$ROCETEST" diff --json "$WORK/gap.json" "$CAP/rxe/pingpong_rc.pcap" "$WORK/gap.pcap"
want_rc 0
out_has "B's capture misses 1 message(s)"
differences "$WORK/gap.json" ""
check "a capture that missed a whole message among equal ones: a note, no difference, the rest aligned"

"$PY" - "$CAP/rxe/rdma_send_bw.pcap" "$WORK/mid.pcap" <<'EOF'
import sys
sys.path.insert(0, "harness/tests/integration")
from pcaputil import read_pcap, write_pcap
_, _, frames = read_pcap(sys.argv[1])
write_pcap(sys.argv[2], [(d, w, t) for t, d, w in frames[24:]], nano=True)
EOF
run "$ROCETEST" diff --json "$WORK/mid.json" "$CAP/rxe/rdma_send_bw.pcap" "$WORK/mid.pcap"
want_rc 0
out_has "B holds 1 message(s) only in part (their beginning is not in the capture)"
differences "$WORK/mid.json" ""
check "a capture that starts mid-message: a note, no difference"

# ---- a ConnectX connection against an rxe one doing SENDs of other sizes: each difference in its class
run "$ROCETEST" diff --map 0x147=0x23 --json "$WORK/cx.json" "$CAP/connectx/rocev2_test.pcap" "$CAP/rxe/rdma_send_bw.pcap"
want_rc 1
"$PY" - "$WORK/cx.json" >"$WORK/py" 2>&1 <<'EOF' || probs+=("$(tail -n 2 "$WORK/py" | tr '\n' ' ')")
import json, sys
d = json.load(open(sys.argv[1]))
by = {}
for x in d["differences"]:
    by.setdefault(x["field"], set()).add(x["class"])
# ConnectX asks for an ACK on every packet and coalesces ACKs; rxe asks on the last and ACKs each message.
assert by.get("ackreq") == {"behaviour"}, by
assert by.get("ack_coalescing") == {"behaviour"}, by
# DSCP 26 and MigReq set by the ConnectX host, not by rxe.
assert by.get("tos") == {"cosmetic"} and by.get("migreq") == {"cosmetic"}, by
# The workloads differ in message size (4096 and 1024 B against 3000 B): that is semantic, and all that is.
semantic = {f for f, c in by.items() if "semantic" in c}
assert semantic <= {"length", "segments"} and semantic, by
assert d["pairs"][0]["mapped"], d["pairs"][0]
EOF
check "ConnectX (rocev2_test) against rxe (rdma_send_bw), --map: AckReq and coalescing behaviour, TOS and MigReq cosmetic, sizes semantic"

# ---- the reference model against itself with another seed (other payload bytes, same work)
"$ROCETEST" gen --seed 7 vectors/scenarios/nak-go-back-n.scn -o "$WORK/seed7.pcap" >/dev/null 2>&1 ||
	probs+=("rocetest gen failed")
run "$ROCETEST" diff vectors/nak-go-back-n.pcap "$WORK/seed7.pcap"
want_rc 0
out_has "diff: 0 semantic, 0 behaviour, 0 cosmetic"
run "$ROCETEST" diff --payload --json "$WORK/seed.json" vectors/nak-go-back-n.pcap "$WORK/seed7.pcap"
want_rc 1
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); f={x["field"] for x in d["differences"]}; assert f=={"payload"}, f' \
	"$WORK/seed.json" 2>"$WORK/py" || probs+=("$(tail -n 1 "$WORK/py")")
check "a golden vector against its scenario with another seed: same work; with --payload only payloads differ"

# ---- reports
run "$ROCETEST" diff --html "$WORK/d.html" --json - "$CAP/rxe/rdma_send_bw.pcap" "$WORK/merge.pcap"
want_rc 1
"$PY" - "$WORK/out" "$WORK/d.html" >"$WORK/py" 2>&1 <<'EOF' || probs+=("$(tail -n 2 "$WORK/py" | tr '\n' ' ')")
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"pairs", "differences", "summary"}, set(d)
x = d["differences"][0]
assert set(x) >= {"class", "flow", "message", "field", "a", "b", "frame_a", "frame_b"}, set(x)
assert d["summary"]["semantic"] == 1 and d["summary"]["verdict"] == "different", d["summary"]
html = open(sys.argv[2]).read()
assert "DIFFERENT" in html and html.count('class="differs') >= 2, "no marked rows"
assert 'href="#a-fr%d"' % x["frame_a"] in html and 'id="b-fr%d"' % x["frame_b"] in html
assert "http://" not in html and "https://" not in html
EOF
check "--json (the issue's keys) and --html (verdict, both ladders, differing rows marked and linked)"

# ---- usage and input errors
run "$ROCETEST" diff --help
want_rc 0
out_has "usage: rocetest diff"
check "--help"
run "$ROCETEST" diff --list-fields
want_rc 0
out_has "ack_coalescing   behaviour  behaviour  semantic"
check "--list-fields: every field's class per profile"
run "$ROCETEST" diff "$CAP/rxe/rping.pcap"
want_rc 2
err_has "expected two captures A and B"
check "one capture: usage error"
run "$ROCETEST" diff "$CAP/rxe/rping.pcap" "$WORK/nonexistent.pcap"
want_rc 2
err_has "nonexistent.pcap"
check "a missing capture: exit 2 naming it"
run "$ROCETEST" diff --map 0x11 "$CAP/rxe/rping.pcap" "$CAP/rxe/rping.pcap"
want_rc 2
err_has "--map needs A_QPN=B_QPN"
check "--map without '=': usage error"
run "$ROCETEST" diff --map 0x999=0x2b "$CAP/rxe/rping.pcap" "$CAP/rxe/rping.pcap"
want_rc 2
err_has "--map 0x999=0x2b: capture A has no flow with QP 0x999"
check "--map of a QP no flow has: exit 2 naming it"
run "$ROCETEST" diff --profile nic "$CAP/rxe/rping.pcap" "$CAP/rxe/rping.pcap"
want_rc 2
err_has "no profile 'nic'"
check "an unknown profile: usage error"
printf 'ack_coalescing loud\n' >"$WORK/bad.profile"
run "$ROCETEST" diff --profile "$WORK/bad.profile" "$CAP/rxe/rping.pcap" "$CAP/rxe/rping.pcap"
want_rc 2
err_has "$WORK/bad.profile:1: unknown class 'loud'"
check "a profile file with an unknown class: exit 2 naming file and line"
head -c 3000 "$CAP/rxe/rdma_send_bw.pcap" >"$WORK/cut.pcap"
run "$ROCETEST" diff "$CAP/rxe/rdma_send_bw.pcap" "$WORK/cut.pcap"
want_rc 2
err_has "cut.pcap"
err_has "the diff needs both captures whole"
check "a capture cut mid-record: exit 2 naming it"
