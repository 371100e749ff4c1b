#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GUI with the plugin, photographed (make dissector-screenshot):
# dissectors/screenshot.scn through `rocetest gen` (a lost packet with its
# NAK and go-back-N, a corrupted ICRC, a CNP), opened in Wireshark under Xvfb
# with the scenario's checker options as preferences, the bad-ICRC frame
# selected and its rocetest subtree expanded; xwd and netpbm write the PNG.
#
# usage: screenshot.sh ROCETEST PLUGIN_DIR OUT.png
# PLUGIN_DIR is a folder for WIRESHARK_PLUGIN_DIR (make dissector's
# build/dissector/plugins). As root, Wireshark runs as nobody: it loads no
# WIRESHARK_PLUGIN_DIR when root.
set -euo pipefail

if [ $# -ne 3 ]; then
	sed -n '2,12p' "$0" >&2
	exit 2
fi
rocetest=$1
plugins=$2
out=$3
here=$(dirname "$0")
# The frame to show, and the window.
FRAME=5
WIDTH=1280
HEIGHT=960

scratch=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-screenshot.XXXXXX")
xvfb_pid='' ws_pid=''
cleanup() {
	[ -z "$ws_pid" ] || kill "$ws_pid" 2>/dev/null || true
	[ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT
chmod 755 "$scratch"

"$rocetest" gen "$here/screenshot.scn" -o "$scratch/screenshot.pcap" --expect "$scratch/screenshot.json" >/dev/null
# The scenario's `rocetest check` options, as the plugin's preferences.
mapfile -t prefs < <(python3 - "$scratch/screenshot.json" <<'PY'
import json, sys
opts = json.load(open(sys.argv[1]))["check_options"]
names = {"--pmtu": "pmtu", "--timeout-us": "timeout_us", "--retry-cnt": "retry_cnt", "--rnr-retry": "rnr_retry"}
for o, v in zip(opts[::2], opts[1::2]):
    print("-o")
    print("rocetest.%s:%s" % (names[o], v))
PY
)
mkdir -p "$scratch/home" "$scratch/plugins"
cp -r "$plugins"/. "$scratch/plugins/"
chmod -R a+rX "$scratch"
user=()
if [ "$(id -u)" -eq 0 ]; then
	chown -R 65534:65534 "$scratch/home"
	user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
chmod 700 "$scratch/home"

# Xvfb picks a free display and writes its number to fd 3.
exec 3>"$scratch/display"
Xvfb -displayfd 3 -screen 0 "${WIDTH}x${HEIGHT}x24" -ac -nolisten tcp >"$scratch/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do
	[ -s "$scratch/display" ] && break
	sleep 0.1
done
exec 3>&-
[ -s "$scratch/display" ] || { echo "screenshot.sh: Xvfb did not start: $(cat "$scratch/xvfb.log")" >&2; exit 1; }
DISPLAY=:$(cat "$scratch/display")
export DISPLAY

# RPCoRDMA is off: Wireshark 4.0's own RPC-over-RDMA heuristic writes "Dissector bug" into some RoCE rows.
env HOME="$scratch/home" XDG_RUNTIME_DIR="$scratch/home" WIRESHARK_PLUGIN_DIR="$scratch/plugins" "${user[@]}" \
	wireshark -r "$scratch/screenshot.pcap" --disable-protocol rpcordma -o gui.layout_content_3:NONE "${prefs[@]}" \
	-g "$FRAME" >"$scratch/wireshark.log" 2>&1 &
ws_pid=$!
win=$(timeout 60 xdotool search --sync --name 'screenshot\.pcap' | head -n 1) ||
	{ echo "screenshot.sh: no Wireshark window: $(tail -n 5 "$scratch/wireshark.log")" >&2; exit 1; }
xdotool windowsize "$win" "$WIDTH" "$HEIGHT" windowmove "$win" 0 0
sleep 2
# A click into the packet details pane (below its rows), then the last item (rocetest) and all its subtrees.
xdotool mousemove $((WIDTH / 2)) $((HEIGHT - 60)) click 1
sleep 0.5
xdotool key End key shift+Right
sleep 1
xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$scratch/screenshot.png"
mv "$scratch/screenshot.png" "$out"
echo "screenshot.sh: wrote $out"
