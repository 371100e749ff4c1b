#!/usr/bin/env bash
# The `make bench` driver. Generates (or reuses) a capture of RC traffic with
# valid ICRCs, warms it into the page cache, runs every contender once on it,
# and prints one table: seconds (wall, monotonic clock), GB/s (10^9 bytes of
# the capture file per second), packets/s, peak RSS, and how many times faster
# `rocetest icrc` is than each row. A second table times `rocetest gen` on the
# scenarios harness/bench/gen-write-pmtu*.scn beside scapy building the same
# packets (gen_bench.py). The same goes to OUTDIR/results.json.
#
# usage: bench.sh ROCETEST GENCAP ZLIB_CRC32 OUTDIR
# environment:
#   BENCH_BYTES    capture size for rocetest-gencap --bytes (default 1G)
#   BENCH_STRICT   1: exit 1 when a target below is missed (default: report only)
#   BENCH_RSS_BYTES  size of the second capture for the `rocetest check`
#                  memory check (default 4G; empty: skip)
#   BENCH_SCAPY_FRAMES  frames scapy rebuilds per generation scenario
#                  (default 2000, about 2 s; empty or 0: no generation table)
#
# Adding a row: one `row` line in the "Contenders" section below, with a
# function that checks the contender's output (so a contender that silently
# did nothing cannot win).
set -euo pipefail

if [ $# -ne 4 ]; then
	sed -n '2,19p' "$0" >&2
	exit 2
fi
rocetest=$1
gencap=$2
zlib_crc32=$3
out=$4
bytes_spec=${BENCH_BYTES:-1G}
strict=${BENCH_STRICT:-0}

# Targets: rocetest icrc over the whole capture on one core.
TARGET_GBPS=4
TARGET_VS_TSHARK=100
REFERENCE="rocetest icrc"
# Target: `rocetest gen` at least 1000 times faster than scapy
# (packets per second, building the same packets).
TARGET_GEN_VS_SCAPY=1000
here=$(dirname "$0")
scapy_frames=${BENCH_SCAPY_FRAMES-2000}
# scapy.contrib.roce from Debian's python3-scapy, whatever python3 is first in PATH.
SCAPY_PY=/usr/bin/python3

for tool in python3 tshark /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench.sh: $tool not found (make deps-test installs it)" >&2; exit 2; }
done
case "$scapy_frames" in
"" | 0) scapy_frames=0 ;;
*[!0-9]*) echo "bench.sh: BENCH_SCAPY_FRAMES='$scapy_frames' is not a number" >&2; exit 2 ;;
*) "$SCAPY_PY" -c 'import scapy.contrib.roce' 2>/dev/null ||
	{ echo "bench.sh: $SCAPY_PY cannot import scapy.contrib.roce (make deps-test installs python3-scapy)" >&2; exit 2; } ;;
esac
mkdir -p "$out"
work="$out/run"
rm -rf "$work"
mkdir -p "$work"

# ---------------------------------------------------------------------------
# The capture: regenerated when missing or older than the generator.
# ---------------------------------------------------------------------------
case "$bytes_spec" in
*[!0-9kKmMgG]* | "") echo "bench.sh: BENCH_BYTES='$bytes_spec' is not a size like 1G, 100M or 1073741824" >&2; exit 2 ;;
esac
cap="$out/rc-$bytes_spec.pcap"
info="$cap.info"
if [ ! -s "$cap" ] || [ ! -s "$info" ] || [ "$gencap" -nt "$cap" ]; then
	echo "bench: generating $cap (--bytes $bytes_spec)"
	# The .info file (the generator's summary) is written last: without it the
	# capture counts as unfinished and is generated again.
	rm -f "$cap" "$info"
	t0=$(date +%s.%N)
	"$gencap" --bytes "$bytes_spec" -o "$cap" 2>"$info.tmp" || { cat "$info.tmp" >&2; exit 2; }
	mv "$info.tmp" "$info"
	# Flush it now, or the kernel writes the dirty gigabyte back in the middle of a run.
	sync "$cap"
	awk -v t0="$t0" -v t1="$(date +%s.%N)" '{ print "bench: " $0 } END { printf "bench: generated in %.1f s\n", t1 - t0 }' "$info"
else
	echo "bench: reusing $cap"
fi
cap_bytes=$(stat -c %s "$cap")
# "rocetest-gencap: wrote FILE: B bytes, F frames (...)"
frames=$(sed -n 's/.* bytes, \([0-9][0-9]*\) frames .*/\1/p' "$info")
[ -n "$frames" ] || { echo "bench: cannot read the frame count from $info" >&2; exit 2; }
echo "bench: capture $cap: $cap_bytes bytes, $frames frames"
echo "bench: warming the page cache (cat > /dev/null)"
cat "$cap" >/dev/null
# Other busy processes skew a one-run benchmark: say so (the load goes in the report too).
read -r load _ </proc/loadavg
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
	echo "bench: warning: load average $load: other processes are busy, the timings may be low" >&2
fi

# ---------------------------------------------------------------------------
# Measuring: python3 spawns `/usr/bin/time -f %M COMMAND` and waits for it with
# wait4(), so the wall time is a monotonic clock around that process alone
# (GNU time adds a fork and an exec, about a millisecond) and the CPU seconds
# come from its rusage. The peak RSS comes from GNU time: the rusage python
# sees would count python's own pages (the child starts as a copy of it).
# stdout and stderr go to files for the checks. A thread prints the elapsed
# time every 10 s for slow contenders.
# ---------------------------------------------------------------------------
read -r -d '' measure_py <<'PY' || true
import json, os, sys, threading, time
rows, name, repeat, stdout, stderr, *cmd = sys.argv[1:]
rss_file = stdout + ".rss"
real_cmd = cmd
cmd = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd
done = threading.Event()
def ticker(t0):
    while not done.wait(10):
        sys.stderr.write("bench:   ... %s: %.0f s, %d bytes of output so far\n"
                         % (name, time.monotonic() - t0, os.path.getsize(stdout)))
        sys.stderr.flush()
# A fast contender runs several times and counts its fastest run: a sub-second
# job is at the mercy of the scheduler, and the best run is the one least
# disturbed. Every run's time is kept in results.json.
runs = []
for i in range(int(repeat)):
    done.clear()
    with open(stdout, "wb") as o, open(stderr, "wb") as e:
        t0 = time.monotonic()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, o.fileno(), 1), (os.POSIX_SPAWN_DUP2, e.fileno(), 2)])
        threading.Thread(target=ticker, args=(t0,), daemon=True).start()
        _, status, ru = os.wait4(pid, 0)
        t1 = time.monotonic()
        done.set()
    rss = open(rss_file).read().split()
    runs.append({"seconds": t1 - t0, "cpu_seconds": ru.ru_utime + ru.ru_stime,
                 "peak_rss_kib": int(rss[-1]) if rss else 0, "exit": os.waitstatus_to_exitcode(status)})
    if runs[-1]["exit"] != 0:
        break
best = min(runs, key=lambda r: r["seconds"])
times = sorted(r["seconds"] for r in runs)
row = {"tool": name, "command": " ".join(real_cmd), "runs": len(runs), "run_seconds": [r["seconds"] for r in runs],
       "median_seconds": times[len(times) // 2], **best,
       "peak_rss_kib": max(r["peak_rss_kib"] for r in runs), "exit": runs[-1]["exit"]}
with open(rows, "a") as f:
    f.write(json.dumps(row) + "\n")
print("bench:   %.3f s (best of %d, median %.3f s), exit %d, peak RSS %.1f MiB" % (
    row["seconds"], row["runs"], row["median_seconds"], row["exit"], row["peak_rss_kib"] / 1024))
PY

nrows=0
# The rows go to $rows_file: the capture rows to rows.jsonl, the generation rows
# (other captures, other units) to gen_rows.jsonl.
rows_file="$work/rows.jsonl"
# row LABEL CHECK_FUNCTION RUNS COMMAND [ARG...]: runs one contender RUNS times
# and records its fastest run.
# CHECK_FUNCTION gets the stdout file, the stderr file and the exit status and
# returns non-zero (saying why) when the output is not what a full pass gives.
row() {
	local label=$1 check=$2 runs=$3
	shift 3
	nrows=$((nrows + 1))
	local o="$work/$nrows.out" e="$work/$nrows.err"
	echo "bench: [$nrows] $label: $*"
	python3 -c "$measure_py" "$rows_file" "$label" "$runs" "$o" "$e" "$@"
	local status
	status=$(tail -1 "$rows_file" | sed 's/.*"exit": \(-*[0-9]*\).*/\1/')
	if ! "$check" "$o" "$e" "$status"; then
		echo "bench: [$nrows] $label: output check failed (stdout $o, stderr $e)" >&2
		sed -n '1,5p' "$e" >&2
		exit 1
	fi
}

check_rocetest_icrc() {
	local want="$frames frames, $frames RoCE packets: $frames ICRC ok, 0 bad, 0 unverified"
	[ "$3" -eq 0 ] && grep -qF "$want" "$1" && return 0
	echo "bench: expected exit 0 and '$want'; got exit $3: $(head -c 300 "$1")" >&2
	return 1
}

check_rocetest_check() {
	# A full pass over conformant traffic: exit 0 and the verdict line.
	[ "$3" -eq 0 ] && grep -q ': 0 errors, 0 warnings -> CONFORMANT' "$1" && return 0
	echo "bench: expected exit 0 and '0 errors, 0 warnings -> CONFORMANT'; got exit $3: $(head -c 300 "$1")" >&2
	return 1
}

check_tshark() {
	# One PSN per frame, every one of them a number.
	local lines numbers
	lines=$(wc -l <"$1")
	numbers=$(grep -c '^[0-9][0-9]*$' "$1" || true)
	[ "$3" -eq 0 ] && [ "$lines" -eq "$frames" ] && [ "$numbers" -eq "$frames" ] && return 0
	echo "bench: expected exit 0 and $frames PSN lines; got exit $3, $lines lines, $numbers numeric" >&2
	return 1
}

check_zlib() {
	[ "$3" -eq 0 ] && grep -q "^$cap_bytes bytes " "$1" && return 0
	echo "bench: expected exit 0 and '$cap_bytes bytes ...'; got exit $3: $(head -c 200 "$1")" >&2
	return 1
}

# ---------------------------------------------------------------------------
# Contenders. The first row must be the reference ($REFERENCE); every row is
# compared against it.
# ---------------------------------------------------------------------------
row "$REFERENCE" check_rocetest_icrc 5 "$rocetest" icrc "$cap"
row "rocetest check" check_rocetest_check 3 "$rocetest" check --quiet "$cap"
row "tshark -e infiniband.bth.psn" check_tshark 1 tshark -r "$cap" -T fields -e infiniband.bth.psn
row "zlib crc32 (whole file)" check_zlib 5 "$zlib_crc32" "$cap"
# The Wireshark plugin (dissectors/): tshark with and without it, when make passes its folder.
# shellcheck source=SCRIPTDIR/../../dissectors/bench-rows.sh
[ -z "${BENCH_DISSECTOR_PLUGIN_DIR:-}" ] || . "$here/../../dissectors/bench-rows.sh"
# rocetest diff against a tshark export of both captures and a text diff.
# shellcheck source=harness/bench/diff_bench.sh
. "$here/diff_bench.sh"

# ---------------------------------------------------------------------------
# Generation: `rocetest gen` on each harness/bench/gen-write-pmtu*.scn (a
# stream of 64 KiB WRITEs and their ACKs), once into a file (checked: every
# ICRC ok, the frame count the scenario implies) and once into /dev/null (the
# model and the frame building without the page cache: scapy's time below
# does not store its packets either). Then gen_bench.py has scapy build the
# first BENCH_SCAPY_FRAMES frames of that file again from their parsed header
# fields, times the building alone (best of 3) and fails unless every frame
# equals the file's byte for byte. The ratio is packets/s against packets/s.
# ---------------------------------------------------------------------------
gen_scapy="$work/gen_scapy.jsonl"
: >"$gen_scapy"
gen_summary= gen_frames=
: >"$work/gen_rows.jsonl"
# The data packets a scenario implies: its write lines, len / PMTU packets each.
gen_want_data() {
	python3 - "$1" <<'PY'
import re, sys
pmtu, n = 1024, 0
for line in open(sys.argv[1]):
    w = line.split("#")[0].split()
    if w[:1] == ["pmtu"]:
        pmtu = int(w[1])
    elif w[:1] == ["write"]:
        kv = dict(x.split("=", 1) for x in w[2:] if "=" in x)
        m = re.fullmatch(r"(\d+)([KM]?)", kv["len"])
        ln = int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]
        n += -(-ln // pmtu) * int(kv.get("count", "1"))
print(n)
PY
}
# gen_line OUT ERR: gen's summary line "NAME: F frames (a>b D, b>a A), ..." (stdout, or stderr with -o -).
gen_line() { cat "$1" "$2" | grep -m 1 '^[^ ]*: [0-9][0-9]* frames (a>b '; }
check_gen_file() {
	# The summary says the data packets the scenario implies, and every ICRC is ok.
	local line f d
	line=$(gen_line "$1" "$2")
	f=$(sed -n 's/^[^ ]*: \([0-9][0-9]*\) frames (a>b .*/\1/p' <<<"$line")
	d=$(sed -n 's/^[^ ]*: [0-9]* frames (a>b \([0-9][0-9]*\),.*/\1/p' <<<"$line")
	if [ "$3" -ne 0 ] || [ -z "$f" ] || [ "$d" != "$gen_want" ]; then
		echo "bench: expected exit 0 and $gen_want data packets; got exit $3: $(cat "$1" "$2" | head -c 300)" >&2
		return 1
	fi
	local want="$f frames, $f RoCE packets: $f ICRC ok, 0 bad, 0 unverified"
	if ! "$rocetest" icrc "$gen_cap" | grep -qF "$want"; then
		echo "bench: rocetest icrc $gen_cap does not say '$want'" >&2
		return 1
	fi
	gen_summary=$line
	gen_frames=$f
}
check_gen_null() {
	# The same run as the file's: the same summary line.
	[ "$3" -eq 0 ] && [ "$(gen_line "$1" "$2")" = "$gen_summary" ] && return 0
	echo "bench: expected exit 0 and '$gen_summary'; got exit $3: $(cat "$1" "$2" | head -c 300)" >&2
	return 1
}
if [ "$scapy_frames" -gt 0 ]; then
	rows_file="$work/gen_rows.jsonl"
	for scn in "$here"/gen-write-pmtu4096.scn "$here"/gen-write-pmtu1024.scn; do
		name=$(basename "$scn" .scn)
		gen_cap="$work/$name.pcap"
		gen_want=$(gen_want_data "$scn")
		row "rocetest gen $name > file" check_gen_file 3 "$rocetest" gen "$scn" -o "$gen_cap"
		row "rocetest gen $name > /dev/null" check_gen_null 5 "$rocetest" gen "$scn" -o /dev/null
		echo "bench: [scapy] $SCAPY_PY $here/gen_bench.py $gen_cap --frames $scapy_frames"
		"$SCAPY_PY" "$here/gen_bench.py" "$gen_cap" --frames "$scapy_frames" --repeat 3 --json "$work/scapy.json" ||
			{ echo "bench: gen_bench.py failed on $gen_cap" >&2; exit 1; }
		python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r.update(scenario=sys.argv[2], gen_file_bytes=int(sys.argv[3]), gen_frames=int(sys.argv[4])); open(sys.argv[5], "a").write(json.dumps(r) + "\n")' \
			"$work/scapy.json" "$name" "$(stat -c %s "$gen_cap")" "$gen_frames" "$gen_scapy"
		rm -f "$gen_cap"
	done
	rows_file="$work/rows.jsonl"
fi

# ---------------------------------------------------------------------------
# Memory does not grow with the capture: `rocetest check` once more on a
# capture BENCH_RSS_BYTES long (default 4G; empty skips it), peak RSS only.
# ---------------------------------------------------------------------------
rss_bytes=${BENCH_RSS_BYTES-4G}
rss_json="$work/rss.json"
echo '[]' >"$rss_json"
if [ -n "$rss_bytes" ]; then
	big="$out/rc-$rss_bytes.pcap"
	if [ ! -s "$big" ] || [ "$gencap" -nt "$big" ]; then
		echo "bench: generating $big (--bytes $rss_bytes) for the memory check"
		"$gencap" --bytes "$rss_bytes" -o "$big" 2>/dev/null || { echo "bench: cannot generate $big" >&2; exit 2; }
	fi
	for f in "$cap" "$big"; do
		/usr/bin/time -f %M -o "$work/rss.txt" "$rocetest" check --quiet "$f" >"$work/rss.out" 2>&1 ||
			{ echo "bench: rocetest check $f failed: $(cat "$work/rss.out")" >&2; exit 1; }
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r.append({"capture": sys.argv[2], "bytes": int(sys.argv[3]), "peak_rss_kib": int(open(sys.argv[4]).read().split()[-1])}); json.dump(r, open(sys.argv[1], "w"))' \
			"$rss_json" "$f" "$(stat -c %s "$f")" "$work/rss.txt"
	done
fi

# ---------------------------------------------------------------------------
# Report: the table on stdout, the same numbers in results.json.
# ---------------------------------------------------------------------------
read -r -d '' report_py <<'PY' || true
import datetime, json, os, platform, sys
(rows_file, results, cap, cap_bytes, frames, info, reference, t_gbps, t_tshark, strict, load, rss_file,
 gen_rows_file, gen_scapy_file, t_gen_scapy) = sys.argv[1:]
rss = json.load(open(rss_file))
cap_bytes, frames = int(cap_bytes), int(frames)
rows = [json.loads(l) for l in open(rows_file)]
ref = next(r for r in rows if r["tool"] == reference)
for r in rows:
    r["gb_per_s"] = cap_bytes / r["seconds"] / 1e9
    r["packets_per_s"] = frames / r["seconds"]
    r["rocetest_icrc_speedup"] = r["seconds"] / ref["seconds"]
cpu = "unknown"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
tshark = next((r for r in rows if r["tool"].startswith("tshark")), None)
targets = [{"target": "%s >= %s GB/s" % (reference, t_gbps), "value": ref["gb_per_s"],
            "pass": ref["gb_per_s"] >= float(t_gbps)}]
if tshark:
    targets.append({"target": "%s >= %sx faster than tshark" % (reference, t_tshark),
                    "value": tshark["rocetest_icrc_speedup"],
                    "pass": tshark["rocetest_icrc_speedup"] >= float(t_tshark)})
# `rocetest check`: 1 GB/s, 50x tshark, under 64 MiB whatever the size.
check = next((r for r in rows if r["tool"] == "rocetest check"), None)
if check:
    targets.append({"target": "rocetest check >= 1 GB/s", "value": check["gb_per_s"], "pass": check["gb_per_s"] >= 1})
    if tshark:
        x = tshark["seconds"] / check["seconds"]
        targets.append({"target": "rocetest check >= 50x faster than tshark", "value": x, "pass": x >= 50})
# rocetest diff (diff_bench.sh): 10x the tshark export of both captures and a text diff.
diff_rows = [next((r for r in rows if r["tool"].startswith(p)), None) for p in ("rocetest diff", "tshark -T fields (A and B)")]
if all(diff_rows):
    x = diff_rows[1]["seconds"] / diff_rows[0]["seconds"]
    targets.append({"target": "rocetest diff >= 10x tshark fields + diff", "value": x, "pass": x >= 10})
# The Wireshark plugin (dissectors/bench-rows.sh): tshark with it under 1.3x tshark without.
plugin = [next((r for r in rows if r["tool"].startswith(p)), None) for p in ("Wireshark's plugins:", "with rocetest plugin:")]
if all(plugin):
    x = plugin[1]["seconds"] / plugin[0]["seconds"]
    targets.append({"target": "tshark with the rocetest plugin < 1.3x without", "value": x, "pass": x < 1.3})
for m in rss:
    mib = m["peak_rss_kib"] / 1024
    targets.append({"target": "rocetest check peak RSS < 64 MiB (%.1f GB capture)" % (m["bytes"] / 1e9),
                    "value": mib, "pass": mib < 64})
# Generation (`rocetest gen` >= 1000x scapy building the same packets), per scenario:
# the rows of `rocetest gen` into a file and into /dev/null, and scapy's rebuild of the first frames.
gen_rows = [json.loads(l) for l in open(gen_rows_file)]
gen_scapy = [json.loads(l) for l in open(gen_scapy_file)]
generation = []
for sc in gen_scapy:
    g = {"scenario": sc["scenario"], "frames": sc["gen_frames"], "file_bytes": sc["gen_file_bytes"],
         "scapy": sc, "rows": []}
    for r in gen_rows:
        if r["tool"].startswith("rocetest gen %s " % sc["scenario"]):
            r["packets_per_s"] = sc["gen_frames"] / r["seconds"]
            r["mb_per_s"] = sc["gen_file_bytes"] / r["seconds"] / 1e6
            r["vs_scapy"] = r["packets_per_s"] / sc["packets_per_s"]
            g["rows"].append(r)
    generation.append(g)
    null = next((r for r in g["rows"] if r["tool"].endswith("/dev/null")), None)
    if null:
        targets.append({"target": "rocetest gen >= %sx scapy (%s)" % (t_gen_scapy, sc["scenario"].replace("gen-", "")),
                        "value": null["vs_scapy"], "pass": null["vs_scapy"] >= float(t_gen_scapy)})

w = max(len(r["tool"]) for r in rows)
print()
print("Capture: %s: %d bytes (%.2f GB), %d frames" % (cap, cap_bytes, cap_bytes / 1e9, frames))
print("         %s" % info)
print("Machine: %s, %d cores, load average %.2f before the runs; file in page cache; "
      "seconds: the fastest of the runs (median in results.json)"
      % (cpu, os.cpu_count(), float(load)))
print()
head = "%-*s  %8s  %7s  %10s  %8s  %8s  %s" % (w, "tool", "seconds", "GB/s", "packets/s", "CPU s", "RSS MiB",
                                              "icrc speedup")
print(head)
print("-" * len(head))
for r in rows:
    print("%-*s  %8.3f  %7.3f  %10.0f  %8.3f  %8.1f  %s" % (
        w, r["tool"], r["seconds"], r["gb_per_s"], r["packets_per_s"], r["cpu_seconds"],
        r["peak_rss_kib"] / 1024,
        "(reference)" if r is ref else "%.1fx" % r["rocetest_icrc_speedup"]))
print("(icrc speedup: the row's seconds / %s's seconds; GB = 1e9 bytes of the capture file)" % reference)
print()
if generation:
    gw = max(len(r["tool"]) for g in generation for r in g["rows"] + [{"tool": "scapy (first 00000 frames)"}])
    print("Generation: rocetest gen on each scenario, scapy %s (python3-scapy) building the first frames of the "
          "same capture" % generation[0]["scapy"].get("scapy_version", ""))
    head = "%-*s  %8s  %8s  %10s  %8s  %8s  %8s  %s" % (gw, "tool", "seconds", "frames", "packets/s", "MB/s",
                                                      "CPU s", "RSS MiB", "vs scapy")
    print(head)
    print("-" * len(head))
    for g in generation:
        sc = g["scapy"]
        for r in g["rows"]:
            print("%-*s  %8.3f  %8d  %10.0f  %8.1f  %8.3f  %8.1f  %.0fx" % (
                gw, r["tool"], r["seconds"], g["frames"], r["packets_per_s"], r["mb_per_s"], r["cpu_seconds"],
                r["peak_rss_kib"] / 1024, r["vs_scapy"]))
        print("%-*s  %8.3f  %8d  %10.0f  %8.1f  %8s  %8s  %s" % (
            gw, "scapy (first %d frames)" % sc["frames"], sc["seconds"], sc["frames"], sc["packets_per_s"],
            sc["mb_per_s"], "", "", "(reference)"))
    print("(vs scapy: packets/s of the row / scapy's; scapy's seconds: building the frames alone (bytes() of each,")
    print(" best of its runs), every one byte-equal to rocetest's; MB/s: bytes of the pcap written per second;")
    print(" the targets use the /dev/null rows, which like scapy do not store the packets)")
    print()
for t in targets:
    print("target %-45s %8.2f  %s" % (t["target"] + ":", t["value"], "PASS" if t["pass"] else "MISS"))
json.dump({
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                "load_average_before": float(load)},
    "capture": {"path": cap, "bytes": cap_bytes, "frames": frames, "generator": info},
    "units": {"seconds": "wall, monotonic clock, whole process", "gb_per_s": "1e9 bytes of the capture file per second",
              "peak_rss_kib": "ru_maxrss", "rocetest_icrc_speedup": "seconds of the row / seconds of " + reference},
    "reference": reference,
    "rows": rows,
    "targets": targets,
    "check_memory": rss,
    "generation": generation,
}, open(results, "w"), indent=2)
open(results, "a").write("\n")
print("\nbench: wrote %s" % results)
sys.exit(1 if strict == "1" and not all(t["pass"] for t in targets) else 0)
PY

python3 -c "$report_py" "$work/rows.jsonl" "$out/results.json" "$cap" "$cap_bytes" "$frames" \
	"$(sed 's/^rocetest-gencap: wrote [^:]*: //' "$info")" "$REFERENCE" "$TARGET_GBPS" "$TARGET_VS_TSHARK" "$strict" \
	"$load" "$rss_json" "$work/gen_rows.jsonl" "$gen_scapy" "$TARGET_GEN_VS_SCAPY"
