#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An independent ICRC implementation: scapy builds RC/UC/UD packets (UC WRITE,
# IETH, atomics, CNP 0x81, VLANs) that rocetest verifies, tshark dissects and show
# --json prints as valid NDJSON.
# tier: full
# takes: 4
. harness/tests/integration/lib.sh
SCAPY_PCAP=$TMP/scapy/scapy.pcap
mkdir -p "$TMP/scapy"
if needs "scapy cross-check" scapy; then
	run_tap "scapy cross-check" "$PY" "$HERE/scapy_crosscheck.py" "$ROCETEST" "$TMP/scapy" 400 4791
fi
# The generated packets cover opcodes the captures lack (UC WRITE, IETH, atomics, CNP 0x81, VLANs).
if needs "tshark cross-check of the scapy-generated capture" tshark scapy; then
	if [ -s "$SCAPY_PCAP" ]; then
		run_tap "tshark cross-check of the scapy-generated capture" \
			"$PY" "$HERE/tshark_crosscheck.py" "$ROCETEST" --require-icrc-ok --label-root "$TMP/scapy" "$SCAPY_PCAP"
	else
		fail "tshark cross-check of the scapy-generated capture" "the scapy cross-check wrote no $SCAPY_PCAP"
	fi
fi

# show --json over what scapy made.
generated=()
for f in "$SCAPY_PCAP" "$TMP/scapy/scapy-zeroed.pcap"; do
	[ -s "$f" ] && generated+=("$f")
done
if [ ${#generated[@]} -gt 0 ]; then
	run_tap "json: scapy-generated captures" \
		"$PY" "$HERE/json_check.py" "$ROCETEST" "json: show --json over ${#generated[@]} scapy-generated captures is valid NDJSON" "${generated[@]}"
elif needs "json: scapy-generated captures" scapy; then
	fail "json: scapy-generated captures" "the scapy cross-check wrote no capture"
fi

summary
