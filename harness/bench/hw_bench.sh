#!/usr/bin/env bash
# The hardware-mode rows of `make bench`, on a veth pair between two network
# namespaces (harness/scripts/hw-netns.sh; root):
#
#   live path     rocetest-livebench: one end injects numbered frames as fast
#                 as pcap_inject takes them, the other captures them with the
#                 harness's live port: frames/s each way, frames lost, and
#                 pcap_stats drops, at 1024-byte and 4170-byte frames
#   virtual board rocetest board at slowdown BENCH_HW_SLOWDOWN (default 5000)
#                 against rocetest run --dut iface: --suite throughput: the
#                 frames/s it put on the wire, its model's cycles/s while busy
#                 (and so the least slowdown it could keep), its worst lag, and
#                 the goodput of each test in the board's time beside the
#                 simulation's
#
# usage: hw_bench.sh ROCETEST LIVEBENCH OUTDIR   (writes OUTDIR/hw_results.json)
# Without root it prints why the rows were not measured and exits 0: the other
# bench rows do not need it.
set -euo pipefail

rocetest=$1
livebench=$2
out=$3
slowdown=${BENCH_HW_SLOWDOWN:-5000}
frames=${BENCH_HW_FRAMES:-200000}
here=$(dirname "$0")
# shellcheck source=harness/scripts/hw-netns.sh
. "$here/../scripts/hw-netns.sh"

why=$(hw_netns_missing)
if [ -n "$why" ]; then
	echo "bench: hardware-mode rows NOT measured: $why"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-hwbench.XXXXXX")
NS_H=""
cleanup() {
	hw_board_stop
	[ -z "$NS_H" ] || hw_netns_down
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
hw_netns_up "b$$" || { echo "bench: cannot set up the namespaces: $HW_NETNS_ERROR" >&2; exit 1; }
mkdir -p "$out"

# live LEN: the receiver on IF_H, the sender on IF_B; one JSON object.
live() {
	ip netns exec "$NS_H" "$livebench" recv "$IF_H" "$frames" 2 >"$work/recv.json" &
	local rpid=$!
	sleep 0.5
	ip netns exec "$NS_B" "$livebench" send "$IF_B" "$frames" "$1" >"$work/send.json"
	wait $rpid
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]));
print(json.dumps({"frame_bytes": int(sys.argv[3]), "send": s, "recv": r}))' "$work/send.json" "$work/recv.json" "$1"
}
echo "bench: live path: $frames frames each of 1024 and 4170 bytes through the veth pair"
{ live 1024; live 4170; } >"$work/live.jsonl"

echo "bench: virtual board at slowdown $slowdown: rocetest run --dut iface: --suite throughput"
hw_board_start "$rocetest" "$work/board.sock" "$work/board.log" 10.0.0.1 02:00:00:00:00:01 --slowdown "$slowdown" ||
	{ echo "bench: the board did not start: $(tail -n 3 "$work/board.log")" >&2; exit 1; }
t0=$(date +%s.%N)
ip netns exec "$NS_H" "$rocetest" run --dut "iface:$IF_H" --board-control "$work/board.sock" --dut-ip 10.0.0.1 \
	--suite throughput --quiet --report "$work/board" >"$work/run.out" 2>&1 || true
t1=$(date +%s.%N)
hw_board_stop
"$rocetest" run --dut sim --suite throughput --quiet --report "$work/sim" >/dev/null 2>&1 || true

python3 - "$work" "$out/hw_results.json" "$slowdown" "$t0" "$t1" <<'PY'
import json, re, sys
work, results, slowdown, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
live = [json.loads(l) for l in open(f"{work}/live.jsonl")]
board_log = open(f"{work}/board.log").read()
run_out = open(f"{work}/run.out").read()
m = re.search(r"(\d+) frames in, (\d+) out.*worst lag (-?\d+) ns", board_log)
speed = re.search(r"the model ran (\d+) cycles/s while busy: slowdown (\d+) at the least", board_log)
def cases(d):
    """{test: (its summary entry, its goodput entry of metrics)}"""
    try:
        o = json.load(open(f"{work}/{d}/summary.json"))
        g = {p["test"]: p for p in o["metrics"]["goodput"]}
        return {c["name"]: (c, g.get(c["name"], {})) for s in o["suites"] for c in s["cases"]}
    except (OSError, ValueError, KeyError):
        return {}
board, sim = cases("board"), cases("sim")
wall = t1 - t0
frames_out = int(m.group(2)) if m else 0
print()
print("live path (veth, one core each end)     frames/s sent  frames/s captured  lost  pcap drops")
for r in live:
    print("  %4d-byte frames                      %12.0f  %17.0f  %4d  %d + %d" % (
        r["frame_bytes"], r["send"]["frames_per_s"], r["recv"]["frames_per_s"], r["recv"]["lost"],
        r["recv"]["dropped"], r["recv"]["if_dropped"]))
print()
print("virtual board at slowdown %g: %d frames out in %.1f s = %.0f frames/s on the wire; its 100 Gb/s MAC at %.3f Gb/s"
      % (slowdown, frames_out, wall, frames_out / wall if wall else 0, 100 / slowdown))
if speed:
    print("  model: %s cycles/s while busy, so slowdown %s at the least; worst lag %s ns of its time"
          % (speed.group(1), speed.group(2), m.group(3) if m else "?"))
print("  %-12s %10s %12s %10s  %s" % ("test", "sim Gb/s", "board Gb/s", "limit", "passed"))
rows = []
for name, (c, g) in board.items():
    sg = sim.get(name, ({}, {}))[1]
    rows.append({"test": name, "passed": c["passed"], "board_gbps": g.get("gbps"), "sim_gbps": sg.get("gbps"),
                 "limit_gbps": g.get("limit_gbps"), "failure": c["failure"]})
    fmt = lambda v: "-" if v is None else "%.2f" % v
    print("  %-12s %10s %12s %10s  %s" % (name, fmt(sg.get("gbps")), fmt(g.get("gbps")), fmt(g.get("limit_gbps")),
                                           "yes" if c["passed"] else "NO: " + str(c["failure"])[:80]))
if not board:
    print("  no report: " + run_out[-400:])
json.dump({"live_path": live, "board": {"slowdown": slowdown, "frames_out": frames_out, "wall_s": wall,
           "frames_per_s": frames_out / wall if wall else 0,
           "model_cycles_per_s_busy": int(speed.group(1)) if speed else None,
           "least_slowdown": int(speed.group(2)) if speed else None,
           "worst_lag_ns": int(m.group(3)) if m else None, "throughput": rows}},
          open(results, "w"), indent=2)
print("\nbench: wrote %s" % results)
PY
