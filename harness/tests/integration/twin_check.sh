#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The FPGA endpoint's conformance-run captures against the reference model's
# twins of the same work: `rocetest run --report` writes each test's work as a
# scenario beside its capture, `rocetest gen` runs it through the model, and
# `rocetest diff --payload` (profile connectx: AckReq policy, ACK coalescing,
# retransmission counts and timing are behaviour, the UDP source port
# cosmetic) must find no semantic difference, with every message paired.
# Then what must differ does: the twin of a damaged scenario (its immediates
# dropped, as a writer that forgot them would) and an RTL mutant that sends
# PadCnt 0 with the pad (dut/mutants/mutants.txt padcnt-zero) are reported as
# exactly those differences, at exactly the messages they touch.
#
# usage: twin_check.sh ROCETEST WORKDIR MODEL_SO MUTANT_SO   (from the repository root)
# Prints "ok - NAME" or "FAIL - NAME: why" per test.
set -u
ROCETEST=$1
WORK=$2
MODEL=$3
MUTANT=$4
PY=/usr/bin/python3
mkdir -p "$WORK"

PREFIX="twin: "
rc=0
# shellcheck source=harness/tests/integration/cmd_lib.sh
. harness/tests/integration/cmd_lib.sh

# twin RUNDIR SCN: the model's twin of RUNDIR/tests/SCN.scn, diffed with the
# run's capture into $WORK/SCN.json (a QP's own scenario: --map its QPN).
twin() {
	local dir=$1/tests scn=$2 test=${2%.qp*} map=()
	[ "$scn" != "$test" ] && map=(--map "$(qpn_of "$dir/$scn.scn")=$(qpn_of "$dir/$scn.scn")")
	run "$ROCETEST" gen -o "$WORK/$scn.twin.pcap" "$dir/$scn.scn"
	[ "$rc" -eq 0 ] || probs+=("gen $scn.scn: exit $rc: $(head -c 300 "$WORK/err")")
	run "$ROCETEST" diff --payload "${map[@]}" --json "$WORK/$scn.json" "$dir/$test.pcap" "$WORK/$scn.twin.pcap"
}
qpn_of() { sed -n 's/^# .*device QP [0-9]* (QPN \(0x[0-9a-f]*\)).*/\1/p' "$1"; }
# requests SCN: the work requests a scenario posts.
requests() { grep -cE '^(send|write|read|cas|fadd) ' "$1"; }

# verdict JSON WANT...: runs the Python check WANT on the diff report (see below).
verdict() {
	"$PY" - "$@" >"$WORK/py" 2>&1 <<'EOF' || probs+=("$(tail -n 3 "$WORK/py" | tr '\n' ' ')")
import json, sys
path, want = sys.argv[1], sys.argv[2]
d = json.load(open(path))
sem = [x for x in d["differences"] if x["class"] == "semantic"]
assert len(d["pairs"]) == 1, "pairs of flows: %d, expected 1" % len(d["pairs"])
p = d["pairs"][0]
if want == "same":
    n, mapped = int(sys.argv[3]), sys.argv[4] == "mapped"
    assert d["summary"]["semantic"] == 0 and not sem, "semantic: %s" % [x["what"] for x in sem[:3]]
    assert d["summary"]["verdict"] == "same", d["summary"]
    assert p["mapped"] == mapped, p
    assert p["aligned"][0] == n and p["messages_a"][0] == n and p["messages_b"][0] == n, \
        "messages: %s in A, %s in B, %s aligned; the scenario posts %d" % (p["messages_a"], p["messages_b"], p["aligned"], n)
    assert not d["unpaired_b"], d["unpaired_b"]
    assert mapped or not d["unpaired_a"], d["unpaired_a"]
elif want == "opcode":
    # Every WRITE with immediate became a WRITE: an opcode difference at each message, nothing else semantic.
    n = int(sys.argv[3])
    got = sorted((x["field"], x["message"]) for x in sem)
    assert got == [("opcode", m) for m in range(1, n + 1)], got
    assert all(x["a"].endswith("with immediate") or "immediate" in x["what"] for x in sem), sem[0]
elif want == "padcnt":
    # The pad taken as payload: each message whose length is not a multiple of 4 is longer in A by its
    # pad, and nothing else differs but the NAKs of the SENDs this makes too long for their buffer.
    lengths, recv_size = [int(v) for v in sys.argv[3].split(",")], int(sys.argv[4])
    padded = {i + 1: -n % 4 for i, n in enumerate(lengths) if n % 4}
    got = {x["message"]: x for x in sem if x["field"] == "length"}
    assert sorted(got) == sorted(padded), "length differences at %s, pads at %s" % (sorted(got), sorted(padded))
    for m, x in got.items():
        b = lengths[m - 1]
        assert (x["a"], x["b"]) == (str(b + padded[m]), str(b)), (m, x["a"], x["b"])
    other = [x for x in sem if x["field"] != "length"]
    assert all(x["field"] == "nak" and lengths[x["message"] - 1] + padded.get(x["message"], 0) > recv_size
               for x in other), [x["what"] for x in other]
print("ok")
EOF
}

# ---- the run writes its work beside each capture
RUN=$WORK/run
run "$ROCETEST" run --dut sim --sim-lib "$MODEL" --suite messages --suite psn --suite loss --suite link --suite rnr \
	--report "$RUN"
# Whether the device passes is 20-run-model.sh's question; here the run must finish and write its work.
[ "$rc" -le 1 ] || probs+=("exit status $rc (stderr: $(head -c 300 "$WORK/err"))")
out_has "rocetest run: the work of each test as a scenario in $RUN/tests/*.scn"
out_has "twin tests/loss-random-4qp.qp0..3.scn leaves out: 4 QPs at once"
out_has "twin tests/link-corrupt-ack.scn leaves out: frames the link corrupts toward the device"
for pcap in "$RUN"/tests/*.pcap; do
	t=$(basename "$pcap" .pcap)
	[ -s "$RUN/tests/$t.scn" ] || [ -s "$RUN/tests/$t.qp0.scn" ] || probs+=("no scenario beside $t.pcap")
done
check "run --report writes SUITE-NAME.scn (.qpN.scn per QP) beside every capture, and says what a twin leaves out"

# ---- single-QP tests: segmentation, immediates, PSN wrap, loss, NAK, go-back-N, timeouts, duplicates,
# reordering, corruption, RNR retries running out
for t in messages-send messages-write messages-send-imm messages-write-imm psn-psn-wrap psn-psn-wrap-loss \
	loss-single-loss loss-burst-loss loss-tail-loss loss-ack-loss loss-all-acks-lost link-duplicate-ack \
	link-duplicate-request link-reorder-request link-reorder-ack link-corrupt-request link-corrupt-ack \
	rnr-rnr-retry-exhausted; do
	twin "$RUN" "$t"
	want_rc 0
	out_has "-> SAME (no semantic difference)"
	gap="Not said here: nothing the test did."
	[ "$t" = link-corrupt-ack ] && gap="Not said here: frames the link corrupts toward the device"
	grep -qF "$gap" "$RUN/tests/$t.scn" || probs+=("$t.scn lacks '$gap'")
	verdict "$WORK/$t.json" same "$(requests "$RUN/tests/$t.scn")" single
	check "$t: the run's capture against the model's twin: no semantic difference, every message paired"
done

# ---- several QPs: one scenario per QP, paired with --map
for t in messages-mixed-4qp messages-generator loss-random-4qp; do
	for q in 0 1 2 3; do
		twin "$RUN" "$t.qp$q"
		want_rc 0
		verdict "$WORK/$t.qp$q.json" same "$(requests "$RUN/tests/$t.qp$q.scn")" mapped
	done
	grep -qF "4 QPs at once" "$RUN/tests/$t.qp0.scn" || probs+=("$t.qp0.scn does not say it is one QP of 4")
	check "$t: each QP's capture against its own twin (--map, the faults on its own frames): no semantic difference, every message paired"
done

# ---- a twin that lost its immediates is told apart
sed 's/ imm=0x[0-9a-f]*//' "$RUN/tests/messages-write-imm.scn" >"$WORK/no-imm.scn"
cmp -s "$WORK/no-imm.scn" "$RUN/tests/messages-write-imm.scn" && probs+=("no imm= to drop")
mkdir -p "$WORK/damaged/tests"
cp "$WORK/no-imm.scn" "$WORK/damaged/tests/messages-write-imm.scn"
cp "$RUN/tests/messages-write-imm.pcap" "$WORK/damaged/tests/"
twin "$WORK/damaged" messages-write-imm
want_rc 1
verdict "$WORK/messages-write-imm.json" opcode "$(requests "$WORK/no-imm.scn")"
check "a scenario without its immediates: its twin differs in the opcode of every message, nothing else"

# ---- an RTL mutant: PadCnt 0 with the pad still sent (the pad taken as payload)
if [ -r "$MUTANT" ]; then
	MRUN=$WORK/mutant
	run "$ROCETEST" run --dut sim --sim-lib "$MUTANT" --suite messages --quiet --report "$MRUN"
	want_rc 1
	cmp -s "$MRUN/tests/messages-send.scn" "$RUN/tests/messages-send.scn" ||
		probs+=("the mutant's run wrote other work than the model's")
	twin "$MRUN" messages-send
	want_rc 1
	lengths=$(sed -n 's/^send [ab] len=\([0-9]*\) .*/\1/p' "$MRUN/tests/messages-send.scn" | paste -sd,)
	peer=$(sed -n "s/^# The device is node [ab], the harness's peer node \([ab]\);.*/\1/p" "$MRUN/tests/messages-send.scn")
	recv_size=$(sed -n "s/^node ${peer:-?} .*recv_size=\([0-9]*\) recv=0\$/\1/p" "$MRUN/tests/messages-send.scn")
	verdict "$WORK/messages-send.json" padcnt "$lengths" "$recv_size"
	check "RTL mutant padcnt-zero: the diff against the twin shows each padded message longer by its pad, nothing else"
else
	echo "FAIL - ${PREFIX}RTL mutant padcnt-zero: its model $MUTANT is not built (make dut-mutants)"
fi
