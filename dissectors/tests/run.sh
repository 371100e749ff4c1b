#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark plugin's tests (harness/tests/integration/24-dissector.sh). One PART per call,
# so that each stays within run.sh's time limit per script:
#
#   load     capture_state.c's tests (test-capture-state); tshark loads the
#            plugin (protocols, every field the README lists); as root it
#            ignores WIRESHARK_PLUGIN_DIR, as the README says
#   fields   compare.py: the plugin's fields against rocetest show --json and
#            rocetest check --json on every golden vector and ../shared capture
#   icrc     one ICRC-covered byte flipped in a real capture: "bad" at that
#            frame and nowhere else
#   cm       the -V -O rocetest,rocetest_cm output of a CM exchange (built by
#            mkcm with the library) against dissectors/tests/cm-exchange.txt;
#            every display filter of the README's cookbook selects its frames
#   install  make install-dissector: the personal folder (a scratch HOME) and a
#            PREFIX/DESTDIR system install, uninstall-dissector
#   fuzz     compare.py on the fuzz seeds' captures of each link type; then
#            tshark -2 -V with the plugin on the fuzz corpus (harness/fuzz's
#            mkcorpus seeds, make fuzz's grown corpora when present) and on
#            randomly corrupted captures: no crash, no dissector bug
#
# usage: bash dissectors/tests/run.sh PART PATH/TO/rocetest
# (from the repository root; the plugin and the test programs come from the
# same build directory: BUILD/dissector/, BUILD/fuzz/bin/mkcorpus)
#
# tshark ignores WIRESHARK_PLUGIN_DIR and the personal plugin folder when run
# as root (Wireshark's started_with_special_privs()), and CI runs as root: so
# as root every tshark here runs as nobody (setpriv), with a scratch HOME and
# the plugin copied into a scratch plugin folder the user nobody can read.
#
# Prints "ok - NAME" or "FAIL - NAME: why" per test ("#" lines are details).
set -u

PART=${1:-}
case ${2:-} in
/*) ROCETEST=${2:-} ;;
*) ROCETEST=$PWD/${2:-} ;;
esac
HERE=dissectors/tests
BUILD=$(dirname "$(dirname "$ROCETEST")")
# DISSECTOR_PLUGIN: another build of the plugin (make sanitize's); DISSECTOR_SANITIZE=1: it was
# built with ASan and UBSan, whose runtimes tshark then preloads.
PLUGIN=${DISSECTOR_PLUGIN:-$BUILD/dissector/rocetest.so}
MKCM=$BUILD/dissector/mkcm
CAPDIR=../shared/captures

failed=0
ok() { echo "ok - $1"; }
fail() {
	echo "FAIL - $1: $2"
	failed=$((failed + 1))
}
finish() { [ "$failed" -eq 0 ]; exit $?; }

if [ ! -x "$ROCETEST" ] || [ ! -r "$PLUGIN" ]; then
	fail "dissector: $PART" "needs $ROCETEST and $PLUGIN (make BUILD=$BUILD dissector)"
	finish
fi

# A scratch folder the user nobody can read: the plugin folder, HOME, staged inputs.
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-dissector.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
chmod 755 "$SCRATCH"
ABI=$(tshark -G folders 2>/dev/null | sed -n 's|^Global Plugins:[[:space:]]*.*/||p')
mkdir -p "$SCRATCH/plugins/$ABI/epan" "$SCRATCH/home"
cp "$PLUGIN" "$SCRATCH/plugins/$ABI/epan/rocetest.so"
chmod -R a+rX "$SCRATCH"

# The tshark the tests call ($SCRATCH/tshark):
# the scratch plugin folder and HOME, UTC, and nobody when we are root.
preload=
if [ "${DISSECTOR_SANITIZE:-0}" = 1 ]; then
	preload="export LD_PRELOAD=$(cc -print-file-name=libasan.so):$(cc -print-file-name=libubsan.so)"
	preload="$preload ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
fi
cat >"$SCRATCH/tshark" <<EOF
#!/bin/sh
export HOME=$SCRATCH/home XDG_CONFIG_HOME=$SCRATCH/home/.config WIRESHARK_PLUGIN_DIR=$SCRATCH/plugins
export TZ=UTC LC_ALL=C
$preload
if [ "\$(id -u)" = 0 ]; then
	exec setpriv --reuid=65534 --regid=65534 --clear-groups tshark "\$@"
fi
exec tshark "\$@"
EOF
chmod 755 "$SCRATCH/tshark"
TSHARK=$SCRATCH/tshark

# ---------------------------------------------------------------- load
part_load() {
	local prot fields f missing=() extra=()
	# capture_state.c on its own (test_capture_state.c), with vectors whose violations are decided later.
	"$BUILD/dissector/test-capture-state" vectors/neg-psn-gap.pcap vectors/neg-ack-ahead.pcap \
		vectors/neg-go-back-wrong.pcap vectors/neg-bad-icrc.pcap vectors/neg-second-nak.pcap ||
		failed=$((failed + 1))
	prot=$("$TSHARK" -G protocols 2>&1)
	if grep -qP '\trocetest$' <<<"$prot" && grep -qP '\trocetest_cm$' <<<"$prot"; then
		ok "load: tshark registers the protocols rocetest and rocetest_cm"
	else
		fail "load" "tshark -G protocols lacks rocetest or rocetest_cm: $(head -c 300 <<<"$prot")"
	fi
	# The README's field table and the registered fields: the same names.
	fields=$("$TSHARK" -G fields 2>/dev/null | awk -F '\t' '$1 == "F" && $3 ~ /^rocetest(_cm)?\./ { print $3 }' | sort -u)
	# (the names in backquotes of its section "What it shows").
	# shellcheck disable=SC2016 # the backquotes are the README's, not the shell's
	for f in $(sed -n '/^## What it shows/,/^### Preferences/p' dissectors/README.md |
		grep -o '`rocetest[a-z_]*\.[a-z_.]*`' | tr -d '`' | sort -u); do
		grep -qx "$f" <<<"$fields" || missing+=("$f")
	done
	for f in $fields; do
		grep -q "\`$f\`" dissectors/README.md || extra+=("$f")
	done
	if [ ${#missing[@]} -eq 0 ] && [ ${#extra[@]} -eq 0 ] && [ -n "$fields" ]; then
		ok "load: the $(wc -l <<<"$fields") fields registered are the README's"
	else
		fail "load: fields" "in the README but not registered: ${missing[*]:-none}; registered but not in the README: ${extra[*]:-none}"
	fi
	# Preferences tshark cannot use are named, and change nothing: every rule stays on.
	cp vectors/neg-bad-icrc.pcap "$SCRATCH/prefs.pcap" && chmod 644 "$SCRATCH/prefs.pcap"
	prot=$("$TSHARK" -r "$SCRATCH/prefs.pcap" -o rocetest.rules:SEQ-PSN,NOPE -o rocetest.timeout_us:abc \
		-T fields -e rocetest.rule 2>&1)
	if grep -q "rocetest.rules: no rule 'NOPE'" <<<"$prot" && grep -q "rocetest.timeout_us: 'abc' is not" <<<"$prot" &&
		grep -qx PKT-ICRC <<<"$prot"; then
		ok "load: a bad rules or timeout_us preference is named on stderr, and the rules stay on"
	else
		fail "load: preferences" "tshark -o rocetest.rules:SEQ-PSN,NOPE -o rocetest.timeout_us:abc said: $(head -c 300 <<<"$prot")"
	fi
	if [ "$(id -u)" -eq 0 ]; then
		# What the README says about root, shown: the same folder, tshark as root, no plugin.
		if WIRESHARK_PLUGIN_DIR=$SCRATCH/plugins HOME=$SCRATCH/home tshark -G protocols 2>/dev/null |
			grep -qP '\trocetest$'; then
			fail "load: root" "tshark run as root loaded the plugin from WIRESHARK_PLUGIN_DIR: the README and these tests are wrong"
		else
			ok "load: tshark run as root ignores WIRESHARK_PLUGIN_DIR (so the tests run it as nobody)"
		fi
	else
		ok "load: not root: WIRESHARK_PLUGIN_DIR is honoured without switching users"
	fi
}

# ---------------------------------------------------------------- fields
part_fields() {
	shopt -s nullglob
	local caps=(vectors/*.pcap "$CAPDIR"/*/*.pcap)
	shopt -u nullglob
	[ -d "$CAPDIR" ] || fail "fields: captures" "$CAPDIR is missing"
	# Each preference changes a verdict: options that make check report, or drop, violations.
	caps+=(vectors/timeout-retransmit.pcap@--timeout-us=1000000000 vectors/retry-exhausted.pcap@--retry-cnt=0
		vectors/rnr-retry-exhausted.pcap@--rnr-retry=0 vectors/send-fml-pmtu1024.pcap@--pmtu=2048
		vectors/neg-bad-icrc.pcap@--skip=PKT-ICRC vectors/neg-bad-icrc.pcap@--rules=SEQ-PSN
		vectors/neg-psn-gap.pcap@--rules=SEQ-PSN)
	python3 "$HERE/compare.py" "$TSHARK" "$ROCETEST" "$SCRATCH" "${caps[@]}" || failed=$((failed + 1))
}

# ---------------------------------------------------------------- icrc
part_icrc() {
	local caps=("$CAPDIR/rxe/rdma_write_bw.pcap" "$CAPDIR/rxe-lab/ipv6_rc_pingpong_s10000.pcap" vectors/vlan.pcap)
	local out corrupted
	out=$(python3 "$HERE/tools.py" corrupt "$TSHARK" "$ROCETEST" "$SCRATCH" "${caps[@]}")
	grep -v '^# corrupted: ' <<<"$out"
	read -r -a corrupted <<<"$(sed -n 's/^# corrupted: //p' <<<"$out")"
	# The same captures through the whole comparison: PKT-ICRC there, check's expected value, the flows.
	python3 "$HERE/compare.py" "$TSHARK" "$ROCETEST" "$SCRATCH" "${corrupted[@]}" || failed=$((failed + 1))
}

# ---------------------------------------------------------------- cm
part_cm() {
	local cap=$SCRATCH/cm.pcap out=$SCRATCH/cm.txt want=$HERE/cm-exchange.txt
	if ! "$MKCM" "$cap"; then
		fail "cm: mkcm" "$MKCM could not write $cap"
		return
	fi
	chmod 644 "$cap"
	"$TSHARK" -r "$cap" -V -O rocetest,rocetest_cm >"$out" 2>"$SCRATCH/cm.err"
	if [ "${DISSECTOR_UPDATE_SNAPSHOT:-0}" = 1 ]; then
		cp "$out" "$want"
		echo "# cm: wrote $want"
	fi
	if grep -q rocetest "$SCRATCH/cm.err"; then
		fail "cm: tshark" "$(grep -m 2 rocetest "$SCRATCH/cm.err" | tr '\n' ' ')"
	fi
	if cmp -s "$out" "$want"; then
		ok "cm: tshark -V -O rocetest,rocetest_cm of a CM exchange equals $want ($(wc -l <"$want") lines)"
	else
		fail "cm: snapshot" "differs from $want (DISSECTOR_UPDATE_SNAPSHOT=1 rewrites it): $(diff "$want" "$out" | head -n 8 | tr '\n' ' ')"
	fi
	python3 "$HERE/tools.py" cookbook "$TSHARK" "$ROCETEST" dissectors/README.md "$cap" "$SCRATCH"
}

# ---------------------------------------------------------------- install
# make_install TARGET VAR=VALUE...: the repository's make, as a test under make runs it.
make_install() {
	(unset MAKEFLAGS MAKELEVEL MFLAGS; make -s --no-print-directory BUILD="$BUILD" "$@") >"$SCRATCH/make.log" 2>&1
}

# loads_from PLUGIN_DIR HOME: tshark (nobody when root) with that plugin folder (may be empty) and HOME registers rocetest.
loads_from() {
	local env=(HOME="$2")
	[ -n "$1" ] && env+=(WIRESHARK_PLUGIN_DIR="$1")
	if [ "$(id -u)" -eq 0 ]; then
		env "${env[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups tshark -G protocols 2>/dev/null
	else
		env "${env[@]}" tshark -G protocols 2>/dev/null
	fi | grep -qP '\trocetest$'
}

part_install() {
	local home=$SCRATCH/user stage=$SCRATCH/stage so files tprefix global want
	mkdir -p "$home" && chmod 755 "$home"
	if ! HOME=$home make_install install-dissector; then
		fail "install: personal" "make install-dissector failed: $(tail -n 3 "$SCRATCH/make.log" | tr '\n' ' ')"
		return
	fi
	so=$home/.local/lib/wireshark/plugins/$ABI/epan/rocetest.so
	chmod -R a+rX "$home"
	if cmp -s "$so" "$PLUGIN" && loads_from "" "$home"; then
		ok "install: install-dissector puts the plugin in the personal folder tshark names ($so), and tshark loads it"
	else
		fail "install: personal" "$so is not the plugin, or tshark with HOME=$home does not load it: $(cat "$SCRATCH/make.log")"
	fi
	HOME=$home make_install uninstall-dissector
	if [ ! -e "$so" ]; then
		ok "install: uninstall-dissector removes it"
	else
		fail "install: uninstall" "$so is still there"
	fi

	if ! make_install install-dissector DESTDIR="$stage" PREFIX=/opt/rt; then
		fail "install: PREFIX" "make install-dissector DESTDIR PREFIX failed: $(tail -n 3 "$SCRATCH/make.log" | tr '\n' ' ')"
		return
	fi
	files=$(cd "$stage" && find . -type f)
	# Where it belongs: tshark's own global plugin folder with tshark's prefix replaced by PREFIX.
	tprefix=$(dirname "$(dirname "$(command -v tshark)")")
	global=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Plugins:[[:space:]]*//p')
	want=./opt/rt${global#"$tprefix"}/epan/rocetest.so
	chmod -R a+rX "$stage"
	# WIRESHARK_PLUGIN_DIR names the folder above VERSION/epan.
	if [ "$files" = "$want" ] && loads_from "$stage/${want%/*/*/*}" "$SCRATCH/home"; then
		ok "install: PREFIX=/opt/rt DESTDIR: only ${files#./} under DESTDIR, and tshark loads it from there"
	else
		fail "install: PREFIX" "installed [$files], expected [$want] (or tshark does not load it from there)"
	fi
	make_install uninstall-dissector DESTDIR="$stage" PREFIX=/opt/rt
	if [ -z "$(find "$stage" -type f)" ]; then
		ok "install: uninstall-dissector with the same PREFIX and DESTDIR leaves no file"
	else
		fail "install: PREFIX uninstall" "left $(find "$stage" -type f)"
	fi
}

# ---------------------------------------------------------------- fuzz
# survives FILE: tshark -2 -V with the plugin over FILE ends without a signal
# or a timeout and without a dissector bug in rocetest; prints how many
# rocetest trees it showed. (Wireshark's own dissectors may report bugs on
# these inputs: RPCoRDMA does; those are not ours.)
survives() {
	local out=$SCRATCH/fuzz.out err=$SCRATCH/fuzz.err rc
	timeout 100 "$TSHARK" -2 -V -r "$1" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -ge 124 ] || grep -qE 'protocol rocetest|rocetest\.so|rocetest:|AddressSanitizer|runtime error' "$err" ||
		grep -qE 'Dissector bug, protocol rocetest|Malformed Packet: rocetest' "$out"; then
		echo "tshark exit $rc on $(basename "$1"): $(grep -h -m 2 -E 'protocol rocetest|rocetest:|AddressSanitizer|runtime error' "$err" "$out" | tr '\n' ' ')"
		return 1
	fi
	grep -c '^RoCE conformance (rocetest)' "$out"
}

# fuzz_one NAME FILE: survives FILE, counted into trees/inputs, or its failure into bad.
fuzz_one() {
	local out
	if out=$(survives "$2"); then
		trees=$((trees + out))
		inputs=$((inputs + 1))
	else
		bad+=("$1: $out")
	fi
}

part_fuzz() {
	local mk=$BUILD/fuzz/bin/mkcorpus dirs=() f n i=0 unread=0 frames=0 trees=0 inputs=0 bad=()
	local fz=$SCRATCH/fuzz under=''
	[ "${DISSECTOR_SANITIZE:-0}" = 1 ] && under=" (built with ASan and UBSan)"
	mkdir -p "$fz/parse" "$fz/capture" "$fz/conv"
	if ! "$mk" "$fz/parse" "$fz/capture" "$CAPDIR"/*/*.pcap >/dev/null 2>"$SCRATCH/mk.err"; then
		fail "fuzz: seeds" "$mk failed: $(head -c 200 "$SCRATCH/mk.err") (make BUILD=$BUILD fuzz-build builds it)"
		return
	fi
	# First the seeds' captures of built frames, one per link type (Ethernet, Linux cooked v1 and
	# v2, raw IP, raw IPv4, raw IPv6), through the whole field comparison.
	python3 "$HERE/compare.py" "$TSHARK" "$ROCETEST" "$SCRATCH" "$fz"/capture/built_*.pcap || failed=$((failed + 1))
	# Frame inputs (fuzz_parse's seeds, and what make fuzz grew, when it ran before as in CI): one pcap per link type.
	dirs=("$fz/parse")
	[ -d "$BUILD/fuzz/grown-parse" ] && dirs+=("$BUILD/fuzz/grown-parse")
	while read -r f n; do
		fuzz_one "$(basename "$f")" "$f"
		frames=$((frames + n))
	done < <(python3 "$HERE/tools.py" frames2pcap "$fz" "${dirs[@]}")
	# Capture files (cut, corrupted, odd headers and link types; make fuzz's grown ones): what
	# Wireshark reads of each, gathered into one pcapng by editcap and mergecap (a tshark start
	# per file would take minutes). Files Wireshark cannot read at all are the reader's business.
	for f in "$fz"/capture/* "$BUILD"/fuzz/grown-capture/* "$BUILD"/fuzz/grown-check/*; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		editcap -F pcapng "$f" "$fz/conv/$i.pcapng" >/dev/null 2>&1 || unread=$((unread + 1))
	done
	if ! mergecap -a -F pcapng -w "$fz/captures.pcapng" "$fz"/conv/* 2>"$SCRATCH/merge.err"; then
		bad+=("mergecap: $(head -c 200 "$SCRATCH/merge.err")")
	fi
	chmod 644 "$fz"/*.pcap*
	fuzz_one "$i capture files" "$fz/captures.pcapng"
	# Random byte errors (editcap -E) over every golden vector and real capture, three seeds.
	mergecap -a -F pcap -w "$fz/all.pcap" vectors/*.pcap "$CAPDIR"/*/*.pcap 2>/dev/null
	for n in 1 2 3; do
		editcap -E 0.02 --seed "$n" "$fz/all.pcap" "$fz/mut.pcap" >/dev/null 2>&1 && chmod 644 "$fz/mut.pcap"
		fuzz_one "editcap -E 0.02 --seed $n" "$fz/mut.pcap"
	done
	if [ ${#bad[@]} -eq 0 ] && [ "$trees" -gt 0 ]; then
		ok "fuzz: tshark -2 -V with the plugin$under survives $frames frame inputs, $i capture files ($unread of them unreadable by Wireshark) and 3 randomly corrupted captures: $trees rocetest trees shown"
	else
		fail "fuzz" "${#bad[@]} inputs broke it ($trees trees shown): ${bad[*]:0:3}"
	fi
}

case $PART in
load) part_load ;;
fields) part_fields ;;
icrc) part_icrc ;;
cm) part_cm ;;
install) part_install ;;
fuzz) part_fuzz ;;
*) fail "dissector" "unknown part '$PART' (load, fields, icrc, cm, install, fuzz)" ;;
esac
finish
