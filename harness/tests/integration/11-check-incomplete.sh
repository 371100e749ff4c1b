#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A capture not checked to its end is no pass in any report (text, JSON, JUnit,
# HTML): a record cut mid-way, RoCE packets cut before the BTH.
# tier: check
# takes: 1
. harness/tests/integration/lib.sh
SRC=$(cap rxe/rdma_write_bw.pcap)
if needs "check reports: a cut capture is incomplete" captures python cap:rxe/rdma_write_bw.pcap; then
	mkdir -p "$TMP/inc"
	# incomplete_reports WHAT FILE ERRTEXT: exit 2, and each report says incomplete with the reason.
	incomplete_reports() {
		local what=$1 f=$2 why=$3
		run "$ROCETEST" check --json "$TMP/inc/r.json" --junit "$TMP/inc/r.xml" --html "$TMP/inc/r.html" "$f"
		want_rc 2; err_has "$why"; out_has "-> INCOMPLETE"
		msg=$("$PY" - "$TMP/inc/r.json" "$TMP/inc/r.xml" "$TMP/inc/r.html" "$f" "$why" <<'PYEOF'
import json, sys, xml.etree.ElementTree as ET
jpath, xpath, hpath, cap, why = sys.argv[1:6]
probs = []
s = json.load(open(jpath))["summary"]
if s.get("verdict") != "incomplete":
    probs.append(f"JSON verdict {s.get('verdict')!r}, expected 'incomplete'")
if why not in s.get("reason", "") or not s.get("reason", "").startswith(cap):
    probs.append(f"JSON reason {s.get('reason')!r} lacks the file or {why!r}")
root = ET.parse(xpath).getroot()
errs = [(tc, e) for tc in root.iter("testcase") for e in tc.findall("error")]
if len(errs) != 1 or errs[0][1].get("type") != "incomplete" or why not in errs[0][1].get("message", ""):
    probs.append(f"JUnit: {len(errs)} <error> cases, expected one of type incomplete naming {why!r}")
elif not errs[0][0].get("classname", "").endswith(".capture"):
    probs.append("JUnit: the <error> case is not of class rocetest.FILE.capture")
if root.get("errors") != "1" or root.find("testsuite").get("errors") != "1":
    probs.append(f"JUnit errors counts {root.get('errors')}/{root.find('testsuite').get('errors')}, expected 1/1")
html = open(hpath, encoding="utf-8").read()
if '<div class="verdict fail">INCOMPLETE<small>' not in html:
    probs.append("HTML has no red INCOMPLETE verdict box")
if why not in html:
    probs.append(f"HTML does not give the reason {why!r}")
if "CONFORMANT" in html or '<div class="verdict pass">' in html:
    probs.append("HTML says CONFORMANT or PASS")
print("; ".join(probs))
PYEOF
)
		[ -z "$msg" ] || probs+=("$msg")
		check "check reports: $what: exit 2, JSON verdict incomplete, a JUnit <error> case, HTML INCOMPLETE"
		if needs "check reports: $what: JUnit valid" xmllint; then
			xmllint --noout --schema "$HERE/junit.xsd" "$TMP/inc/r.xml" >/dev/null 2>"$TMP/inc/xsd.err" ||
				probs+=("JUnit does not validate against junit.xsd: $(snippet "$TMP/inc/xsd.err")")
			check "check reports: $what: the JUnit report validates against junit.xsd"
		fi
	}
	if cutframe=$("$PY" "$HERE/craft.py" cut "$SRC" "$TMP/inc/cut.pcap" 2>"$TMP/craft.err"); then
		incomplete_reports "pcap cut inside record $cutframe" "$TMP/inc/cut.pcap" "frame $cutframe: damaged capture record"
	else
		fail "check reports: a cut capture is incomplete" "craft.py failed: $(snippet "$TMP/craft.err")"
	fi
	# Every record cut to 0 bytes, then to 42 (Ethernet, IPv4, UDP: no BTH): nothing could be checked.
	for n in 0 42; do
		if "$PY" - "$SRC" "$TMP/inc/snap$n.pcap" "$n" "$HERE" <<'PYEOF' 2>"$TMP/craft.err"; then
import sys
sys.path.insert(0, sys.argv[4])
from pcaputil import read_pcap, write_pcap
lt, _, frames = read_pcap(sys.argv[1])
n = int(sys.argv[3])
write_pcap(sys.argv[2], [(d[:n], w, ts) for ts, d, w in frames], linktype=lt, snaplen=max(n, 1))
PYEOF
			incomplete_reports "every record cut to $n bytes by the snap length" "$TMP/inc/snap$n.pcap" \
				"nothing checked: all"
		else
			fail "check reports: snap length $n" "crafting failed: $(snippet "$TMP/craft.err")"
		fi
	done
	# Beside a whole capture: that one passes, the whole does not.
	run "$ROCETEST" check --json "$TMP/inc/r.json" "$TMP/inc/snap0.pcap" "$SRC"
	want_rc 2; out_has "1 unusable or damaged -> INCOMPLETE"
	got=$(jpy '[d["summary"]["verdict"], d["summary"].get("incomplete"), d["files"][1]["summary"]["verdict"]]' "$TMP/inc/r.json")
	[ "$got" = "incomplete 1 pass" ] || probs+=("JSON verdicts over both: $got, expected 'incomplete 1 pass'")
	check "check --json over an incomplete and a whole capture: the summary is incomplete, not conformant"
fi

summary
