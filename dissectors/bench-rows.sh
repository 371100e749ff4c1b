# shellcheck shell=bash
# shellcheck disable=SC2154 # work, cap, frames: bench.sh's
# SPDX-License-Identifier: MIT
# The Wireshark plugin's rows of `make bench`, sourced by harness/bench/bench.sh
# (which defines row, $cap, $frames, $work) when make passes
# BENCH_DISSECTOR_PLUGIN_DIR, the plugin folder of `make dissector`.
#
# Two runs of the same tshark over the bench capture, one plugin folder each:
# Wireshark's own plugins, and the same with the rocetest plugin beside them.
# The target (bench.sh's report): the second under 1.3 times the first.
# tshark ignores WIRESHARK_PLUGIN_DIR when run as root, so as root both run
# as nobody (the capture under build/ is world-readable).

dis_plugins=$work/dissector-plugins
dis_abi=$(basename "$(find "$BENCH_DISSECTOR_PLUGIN_DIR" -name rocetest.so -path '*/epan/*' | head -n 1 | xargs dirname | xargs dirname)")
dis_global=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Plugins:[[:space:]]*//p')
for dis_set in without with; do
	for dis_sub in epan codecs wiretap; do
		mkdir -p "$dis_plugins/$dis_set/$dis_abi/$dis_sub"
		find "$dis_global/$dis_sub" -maxdepth 1 -name '*.so' -exec ln -sf {} "$dis_plugins/$dis_set/$dis_abi/$dis_sub/" \;
	done
done
cp "$BENCH_DISSECTOR_PLUGIN_DIR/$dis_abi/epan/rocetest.so" "$dis_plugins/with/$dis_abi/epan/"
mkdir -p "$work/dissector-home"
chmod -R a+rX "$dis_plugins" "$work/dissector-home"
dis_user=()
[ "$(id -u)" -ne 0 ] || dis_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# Every frame: its PSN and, from the plugin, "good" (every ICRC of the bench capture is).
check_tshark_rocetest() {
	local lines good
	lines=$(wc -l <"$1")
	good=$(grep -c $'^[0-9][0-9]*\tgood$' "$1" || true)
	[ "$3" -eq 0 ] && [ "$lines" -eq "$frames" ] && [ "$good" -eq "$frames" ] && return 0
	echo "bench: expected exit 0 and $frames lines 'PSN<tab>good'; got exit $3, $lines lines, $good good" >&2
	return 1
}

row "Wireshark's plugins: tshark -e psn" check_tshark 2 env HOME="$work/dissector-home" \
	WIRESHARK_PLUGIN_DIR="$dis_plugins/without" "${dis_user[@]}" tshark -r "$cap" -T fields -e infiniband.bth.psn
row "with rocetest plugin: tshark -e psn -e rocetest.icrc.status" check_tshark_rocetest 2 \
	env HOME="$work/dissector-home" WIRESHARK_PLUGIN_DIR="$dis_plugins/with" "${dis_user[@]}" \
	tshark -r "$cap" -T fields -e infiniband.bth.psn -e rocetest.icrc.status
