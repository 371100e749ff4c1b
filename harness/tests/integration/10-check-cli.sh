#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command line of rocetest check: options, rule selection, several captures,
# reports to files and standard output, exit statuses.
# tier: check
# takes: 2
. harness/tests/integration/lib.sh
crafted_ok=
craft_rule_captures && crafted_ok=1
run "$ROCETEST" check --help
want_rc 0; out_has "usage: rocetest check"; err_empty
for o in --pmtu --timeout-us --retry-cnt --rnr-retry --rules --skip --list-rules --json --junit --html \
	--max-report --quiet --libpcap --help; do
	out_has "$o"
done
check "check --help: exit 0, every option described"

if needs "check --list-rules: the IDs of rules.md" python; then
	RULES_MD=../shared/spec/rules.md
	run "$ROCETEST" check --list-rules
	want_rc 0
	if [ -r "$RULES_MD" ]; then
		msg=$("$PY" - "$RULES_MD" "$OUT" <<'PYEOF'
import re, sys
md = {}
for line in open(sys.argv[1]):
    m = re.match(r"\|\s*([A-Z]+-[A-Z0-9-]+)\s*\|\s*([EW])\s*\|", line)
    if m:
        md[m.group(1)] = "error" if m.group(2) == "E" else "warning"
out = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+([A-Z]+-[A-Z0-9-]+)\s+(error|warning)\s", line)
    if m:
        out[m.group(1)] = m.group(2)
probs = []
if not md:
    probs.append("no rule IDs found in rules.md")
probs += [f"{i} missing" for i in sorted(set(md) - set(out))]
probs += [f"{i} not in rules.md" for i in sorted(set(out) - set(md))]
probs += [f"{i}: {out[i]}, rules.md says {md[i]}" for i in sorted(set(md) & set(out)) if md[i] != out[i]]
print("; ".join(probs) if probs else len(md))
sys.exit(1 if probs else 0)
PYEOF
		) || probs+=("$msg")
	else
		probs+=("$RULES_MD is missing")
	fi
	check "check --list-rules: the IDs and severities of rules.md (${msg:-?} rules)"
fi

for bad in "--pmtu 1000" "--pmtu 0" "--pmtu big" "--timeout-us 0" "--timeout-us -5" "--timeout-us 1us" \
	"--retry-cnt 8" "--rnr-retry -1" "--max-report many"; do
	run "$ROCETEST" check $bad "$HERE/run.sh"
	want_rc 2; err_has "${bad%% *}"; err_has "Try 'rocetest check --help'"
	check "check $bad: usage error, exit 2"
done
for opt in --rules --skip; do
	run "$ROCETEST" check $opt PKT-ICRC,PKT-BOGUS "$HERE/run.sh"
	want_rc 2; err_has "PKT-BOGUS"; err_has "--list-rules"
	check "check $opt with an unknown rule ID: exit 2 naming it and --list-rules"
done
run "$ROCETEST" check --json - --junit - "$HERE/run.sh"
want_rc 2; err_has "standard output"
check "check: two reports to standard output is a usage error"

if [ -n "$crafted_ok" ]; then
	PSN=$CR/seq-psn.pcap ICRC=$CR/pkt-icrc.pcap
	run "$ROCETEST" check "$PSN"
	want_rc 1; out_has "frame 3: SEQ-PSN (error) flow 1:"; out_has "FAIL  SEQ-PSN"
	out_has "rocetest check: $PSN: 1 error, 0 warnings -> NOT CONFORMANT"; out_has "PMTU inferred per flow"
	out_has "N/E   REQ-TIMEOUT"; out_has "needs --timeout-us"; out_has "had nothing to check"
	check "check: a crafted SEQ-PSN break exits 1, lists the frame and the verdict"
	run "$ROCETEST" check --pmtu 1024 --timeout-us 40.96 --retry-cnt 7 --rnr-retry 7 "$PSN"
	want_rc 1; out_has "PMTU 1024"
	grep -q "needs --" "$OUT" && probs+=("a 'needs --' line although every setting was given: $(grep 'needs --' "$OUT" | head -n 2 | tr '\n' ' ')")
	check "check: with --pmtu, --timeout-us, --retry-cnt, --rnr-retry no rule waits for a setting"
	run "$ROCETEST" check "$CR/seq-psn-twin.pcap"
	want_rc 0; out_has "-> CONFORMANT"; out_has "PASS  SEQ-PSN"
	check "check: the conformant twin exits 0"
	run "$ROCETEST" check "$CR/req-ackreq.pcap"
	want_rc 0; out_has "WARN  REQ-ACKREQ"; out_has "0 errors, 1 warning -> CONFORMANT"
	check "check: a warning alone exits 0"
	run "$ROCETEST" check --quiet "$PSN"
	want_rc 1; err_empty
	[ "$(wc -l <"$OUT")" -eq 1 ] || probs+=("$(wc -l <"$OUT") lines on stdout, expected 1")
	out_has "rocetest check: $PSN: 1 error, 0 warnings -> NOT CONFORMANT"
	check "check --quiet: one verdict line"
	run "$ROCETEST" check --json - "$PSN"
	want_rc 1; err_has "-> NOT CONFORMANT"
	got=$(jpy '[d["file"], d["summary"]["errors"], [(v["rule"], v["frame"]) for v in d["violations"]]]' "$OUT")
	[ "$got" = "$PSN 1 [('SEQ-PSN', 3)]" ] || probs+=("JSON on stdout: $got")
	check "check --json -: the JSON report on stdout, the summary on stderr"
	run "$ROCETEST" check --rules PKT-ICRC --json "$TMP/only.json" "$ICRC"
	want_rc 1
	got=$(jpy '[[r["id"] for r in d["rules"]], sorted({v["rule"] for v in d["violations"]})]' "$TMP/only.json")
	[ "$got" = "['PKT-ICRC'] ['PKT-ICRC']" ] || probs+=("rules and violated rules: $got")
	check "check --rules PKT-ICRC: only that rule is checked and reported"
	run "$ROCETEST" check --rules pkt-icrc "$PSN"
	want_rc 0; out_has "PASS  PKT-ICRC"; out_has "not checked (--rules/--skip)"
	check "check --rules PKT-ICRC on a SEQ-PSN break: exit 0 (rule IDs in any case)"
	run "$ROCETEST" check --skip SEQ-PSN --skip PKT-ICRC,PKT-TVER --json "$TMP/skip.json" "$PSN"
	want_rc 0
	got=$(jpy '[r for r in ("SEQ-PSN", "PKT-ICRC", "PKT-TVER", "PKT-OPCODE") if r in [x["id"] for x in d["rules"]]] + [v["rule"] for v in d["violations"]]' "$TMP/skip.json")
	[ "$got" = "PKT-OPCODE" ] || probs+=("rules left / violations: '$got', expected only PKT-OPCODE left")
	check "check --skip (repeated, lists): the skipped rules are neither checked nor reported"
	run "$ROCETEST" check --max-report 1 "$CR/rsp-nak-seq-twice.pcap" "$PSN" "$CR/seq-opcode.pcap"
	want_rc 1
	[ "$(grep -c '^frame ' "$OUT")" -eq 3 ] || probs+=("$(grep -c '^frame ' "$OUT") violation lines, expected 1 per capture")
	out_has "rocetest check: 3 captures: "; out_has "-> NOT CONFORMANT"
	check "check: several captures, --max-report 1 per capture, a total verdict line"
	run "$ROCETEST" check --json "$TMP/two.json" "$PSN" "$CR/seq-psn-twin.pcap"
	want_rc 1
	got=$(jpy '[len(d["files"]), d["summary"]["errors"]]' "$TMP/two.json")
	[ "$got" = "2 1" ] || probs+=("files and errors in the JSON: $got")
	check "check --json over two captures: one document with both"
	run "$ROCETEST" check "$PSN" "$TMP/no-such-file.pcap"
	want_rc 2; err_has "$TMP/no-such-file.pcap"; out_has "rocetest check: $PSN: 1 error"
	check "check: a missing file among others exits 2 naming it, the others still checked"
	timeout 60 "$ROCETEST" check --quiet - <"$PSN" >"$OUT" 2>"$ERR"
	rc=$?
	want_rc 1; out_has "rocetest check: -: 1 error"
	check "check -: reads standard input"
	run "$ROCETEST" check --json "$PSN" "$PSN"
	want_rc 2; err_has "overwrite"
	check "check --json refuses to overwrite the capture"
	run "$ROCETEST" check --json "$TMP/no-such-dir/r.json" "$PSN"
	want_rc 2; err_has "$TMP/no-such-dir/r.json"
	check "check --json into a missing directory exits 2 naming the file"
	if [ -w /dev/full ]; then
		run "$ROCETEST" check --junit /dev/full "$PSN"
		want_rc 2; err_has "/dev/full"
		check "check --junit to a full device exits 2 naming it"
	fi
	run "$ROCETEST" check --junit "$TMP/r.xml" --html "$TMP/r.html" "$CR/req-go-back-n.pcap"
	want_rc 1
	"$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/r.xml" 2>"$TMP/xml.err" ||
		probs+=("JUnit is not XML: $(snippet "$TMP/xml.err")")
	grep -q "REQ-GO-BACK-N" "$TMP/r.xml" || probs+=("JUnit does not name REQ-GO-BACK-N")
	grep -qi "<svg" "$TMP/r.html" || probs+=("HTML has no SVG ladder")
	check "check --junit --html: well-formed XML naming the failed rule, HTML with a ladder"
	run "$ROCETEST" check "$CR/seq-no-first-mid-capture-twin.pcap"
	want_rc 0; out_has "flow 1 (10.0.0.1 qp 0x11 <-> 10.0.0.2 qp 0x12): capture starts mid-message"
	check "check: a capture starting mid-message is a flow note, not a violation"
fi

summary
