#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make install` and `make uninstall` (harness/install.mk) into temporary
# DESTDIRs, and what they install: the tree under PREFIX, rocetest.pc through
# pkg-config, a program built with exactly `pkg-config --cflags --libs
# rocetest` against the installed library and headers, every installed
# header compiling on its own, the man pages rendering without warnings, an
# uninstall that leaves no file behind, and another PREFIX in the .pc file.
#
# usage: bash harness/tests/integration/install_check.sh [REPO_ROOT]
#
# Prints "ok - NAME" or "FAIL - NAME: why" per check ("#" lines are details,
# the format run.sh's run_tap counts); exits 1 if any check failed. Needs no
# root. A missing help2man, pkg-config, man or groff is a failure, never a
# skip. make runs in the repository with its default build directory; set
# MAKE to use another make.
set -u

ROOT=$(cd "${1:-.}" && pwd) || { echo "FAIL - install: no repository at ${1:-.}"; exit 1; }
MAKE=${MAKE:-make}
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocetest-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "FAIL - $1: $2"; failed=$((failed + 1)); }
# detail FILE: its last lines as "#" lines.
detail() { tail -n "${2:-15}" "$1" | sed 's/^/#   /'; }
finish() {
	echo "# install: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# ------------------------------------------------------------ tools
missing=()
for tool in help2man pkg-config man groff "$CC" ar nm; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	fail "install tools" "not installed: ${missing[*]} (help2man comes with 'make man'/'make install' as root)"
	finish
fi
ok "install tools (help2man, pkg-config, man, groff, $CC)"

X=$TMP/x
Y=$TMP/y
P=$X/usr/local
# The make of a test that runs under make: no jobserver or goals of the caller.
unset MAKEFLAGS MAKELEVEL MFLAGS

# ------------------------------------------------------------ install
if ! "$MAKE" -C "$ROOT" --no-print-directory install DESTDIR="$X" >"$TMP/install.log" 2>&1; then
	fail "make install DESTDIR" "make install failed"
	detail "$TMP/install.log"
	finish
fi
# Everything under DESTDIR/PREFIX, nothing beside it.
outside=$(find "$X" -mindepth 1 \! -path "$X/usr" \! -path "$X/usr/local" \! -path "$P/*")
if [ -n "$outside" ]; then
	fail "make install DESTDIR puts everything under DESTDIR/usr/local" "also: $outside"
else
	ok "make install DESTDIR puts everything under DESTDIR/usr/local"
fi
find "$X" -type f | sed "s|^$X|#   |" | sort

# The files expected: the man pages of the commands the binary lists.
commands=$("$P/bin/rocetest" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
want=(bin/rocetest lib/librocetest.a lib/pkgconfig/rocetest.pc share/man/man1/rocetest.1)
for c in $commands; do want+=("share/man/man1/rocetest-$c.1"); done
for h in "$ROOT"/harness/include/rocetest/*.h; do
	want+=("include/rocetest/$(basename "$h")")
done
probs=()
[ -n "$commands" ] || probs+=("rocetest --help lists no commands")
for f in "${want[@]}"; do [ -f "$P/$f" ] || probs+=("no $f"); done
extra=$(cd "$P" && find . -type f | sed 's|^\./||' | sort | comm -23 - <(printf '%s\n' "${want[@]}" | sort))
[ -z "$extra" ] || probs+=("unexpected: $(echo "$extra" | tr '\n' ' ')")
[ -x "$P/bin/rocetest" ] || probs+=("bin/rocetest is not executable")
if [ ${#probs[@]} -eq 0 ]; then
	ok "installed files: rocetest, librocetest.a, $(find "$P/include/rocetest" -type f | wc -l) headers, rocetest.pc, $(find "$P/share/man/man1" -type f | wc -l) man pages"
else
	fail "installed files" "$(IFS=';'; echo "${probs[*]}")"
fi

# One archive holds the library and the report writers.
if nm -g --defined-only "$P/lib/librocetest.a" 2>/dev/null | grep -q ' T rt_icrc_compute$' &&
	nm -g --defined-only "$P/lib/librocetest.a" 2>/dev/null | grep -q ' T rt_report_json$' &&
	nm -g --defined-only "$P/lib/librocetest.a" 2>/dev/null | grep -q ' T rt_run_report_json$'; then
	ok "librocetest.a holds the library and the report writers"
else
	fail "librocetest.a holds the library and the report writers" "rt_icrc_compute, rt_report_json or rt_run_report_json is not defined in it"
fi

# ------------------------------------------------------------ pkg-config
export PKG_CONFIG_SYSROOT_DIR=$X PKG_CONFIG_PATH=$P/lib/pkgconfig
if flags=$(pkg-config --cflags --libs rocetest 2>"$TMP/pc.err"); then
	echo "#   pkg-config --cflags --libs rocetest: $flags"
	ok "pkg-config --cflags --libs rocetest"
else
	fail "pkg-config --cflags --libs rocetest" "$(head -c 300 "$TMP/pc.err")"
	flags=''
fi
version=$("$P/bin/rocetest" --version | sed -n '1s/^rocetest //p')
pcversion=$(pkg-config --modversion rocetest 2>/dev/null)
if [ -n "$version" ] && [ "$pcversion" = "$version" ]; then
	ok "rocetest.pc version is rocetest --version's ($version)"
else
	fail "rocetest.pc version is rocetest --version's" "pkg-config says '$pcversion', rocetest --version '$version'"
fi
unset PKG_CONFIG_SYSROOT_DIR

# A program using the parser, the builder, the ICRC, the opcode table, the
# capture writer and reader (libpcap) and the report writers, built with
# exactly pkg-config's flags.
cat >"$TMP/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>

#include <rocetest/build.h>
#include <rocetest/capture.h>
#include <rocetest/icrc.h>
#include <rocetest/opcode.h>
#include <rocetest/packet.h>
#include <rocetest/report.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	struct rt_build_spec s;
	rt_build_spec_init(&s);
	s.bth.opcode = 0x04; /* RC SEND Only */
	s.bth.dest_qp = 0x12;
	s.bth.psn = 100;
	s.payload_len = 37;
	uint8_t frame[256];
	size_t len = rt_build(&s, frame, sizeof frame);
	if (len == 0)
		return 3;

	struct rt_error err = { { 0 } };
	struct rt_capture_writer *w = rt_capture_writer_open(argv[1], rt_link_dlt(RT_LINK_ETHERNET), 65535, &err);
	if (!w || rt_capture_write(w, RT_CAPTURE_EPOCH_NS, frame, (uint32_t)len, (uint32_t)len) != 0 ||
	    rt_capture_writer_close(w, &err) != 0) {
		fprintf(stderr, "write: %s\n", err.msg);
		return 4;
	}
	struct rt_capture *c = rt_capture_open(argv[1], &err);
	struct rt_frame f;
	if (!c || rt_capture_next(c, &f, &err) != 1) {
		fprintf(stderr, "read: %s\n", err.msg);
		return 5;
	}
	struct rt_packet p;
	if (rt_parse(&p, rt_capture_link(c), f.data, f.caplen, f.wirelen) != RT_PARSE_ROCE)
		return 6;
	const struct rt_opcode_info *op = rt_opcode_info(p.bth.opcode);
	printf("%s psn %u payload %u icrc %08x %s\n", op ? op->name : "?", p.bth.psn, p.payload_len,
	       rt_icrc_compute(&p), rt_icrc_status_name(rt_icrc_check(&p)));
	int good = rt_icrc_check(&p) == RT_ICRC_OK && p.payload_len == 37 && op && !strcmp(op->name, "RC_SEND_ONLY");
	rt_capture_close(c);

	struct rt_violation_list l = { 0 };
	rt_violation_list_free(&l);
	return good ? 0 : 7;
}
EOF
# shellcheck disable=SC2086
if [ -n "$flags" ] && "$CC" -std=c11 -Wall -Wextra -Werror -o "$TMP/prog" "$TMP/prog.c" $flags >"$TMP/cc.log" 2>&1; then
	ok "a program compiles and links with exactly pkg-config's flags"
	if out=$("$TMP/prog" "$TMP/prog.pcap" 2>&1); then
		echo "#   $out"
		ok "the program runs: builds, writes, reads back, parses and verifies a packet"
	else
		fail "the program runs" "exit $?: $out"
	fi
else
	fail "a program compiles and links with exactly pkg-config's flags" "$(tr '\n' ' ' <"$TMP/cc.log" | head -c 400)"
fi
# Every member links: nothing in the archive needs a library rocetest.pc does not name.
echo 'int main(void) { return 0; }' >"$TMP/empty.c"
# shellcheck disable=SC2086
if [ -n "$flags" ] && "$CC" -o "$TMP/whole" "$TMP/empty.c" -Wl,--whole-archive "$P/lib/librocetest.a" \
	-Wl,--no-whole-archive $flags >"$TMP/wa.log" 2>&1; then
	ok "the whole archive links with pkg-config's libraries"
else
	fail "the whole archive links with pkg-config's libraries" "$(tr '\n' ' ' <"$TMP/wa.log" | head -c 400)"
fi

# Every installed header compiles on its own (twice: include guards), with
# only the installed include directory, outside the repository.
probs=()
for h in "$P"/include/rocetest/*.h; do
	name=rocetest/$(basename "$h")
	printf '#include <%s>\n#include <%s>\n' "$name" "$name" >"$TMP/hdr.c"
	(cd "$TMP" && "$CC" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$P/include" hdr.c) \
		>"$TMP/hdr.log" 2>&1 || probs+=("$name: $(head -n 2 "$TMP/hdr.log" | tr '\n' ' ')")
done
if [ ${#probs[@]} -eq 0 ]; then
	ok "every installed header compiles on its own ($(find "$P/include/rocetest" -name '*.h' | wc -l) headers)"
else
	fail "every installed header compiles on its own" "$(IFS=';'; echo "${probs[*]}")"
fi

# ------------------------------------------------------------ man pages
out=$(MANPATH=$P/share/man MANWIDTH=80 man -P cat rocetest-check 2>&1)
if echo "$out" | grep -q '^NAME' && echo "$out" | grep -q 'rocetest check' && echo "$out" | grep -q -- '--pmtu'; then
	ok "MANPATH=... man rocetest-check renders"
else
	fail "MANPATH=... man rocetest-check renders" "$(echo "$out" | head -n 3 | tr '\n' ' ')"
fi
probs=()
for page in "$P"/share/man/man1/*.1; do
	name=$(basename "$page" .1)
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l "$page" 2>&1 >"$TMP/page.txt")
	[ -z "$warn" ] || probs+=("$name: man: $warn")
	warn=$(groff -man -ww -Tutf8 -z "$page" 2>&1)
	[ -z "$warn" ] || probs+=("$name: groff: $warn")
	grep -q "^SYNOPSIS" "$TMP/page.txt" || probs+=("$name: no SYNOPSIS")
	grep -q "^SEE ALSO" "$TMP/page.txt" || probs+=("$name: no SEE ALSO")
	sub=()
	[ "$name" = rocetest ] || sub=("${name#rocetest-}")
	"$P/bin/rocetest" "${sub[@]}" --help >"$TMP/help.txt" 2>&1
	# The first option the command's --help lists is on its page.
	opt=$(grep -o -m 1 -- ' --[a-z][a-z-]*' "$TMP/help.txt" | tr -d ' ')
	[ -z "$opt" ] || grep -q -- "$opt" "$TMP/page.txt" || probs+=("$name: $opt of --help is not on the page")
done
whatis=$(MANPATH=$P/share/man lexgrog "$P"/share/man/man1/rocetest-icrc.1 2>&1)
echo "$whatis" | grep -q 'rocetest-icrc - verify' || probs+=("lexgrog: $whatis")
if [ ${#probs[@]} -eq 0 ]; then
	ok "man -l renders each page without warnings ($(echo "$P"/share/man/man1/*.1 | wc -w) pages)"
else
	fail "man -l renders each page without warnings" "$(IFS=';'; echo "${probs[*]}")"
fi

# ------------------------------------------------------------ uninstall
if ! "$MAKE" -C "$ROOT" --no-print-directory uninstall DESTDIR="$X" >"$TMP/uninstall.log" 2>&1; then
	fail "make uninstall DESTDIR" "make uninstall failed"
	detail "$TMP/uninstall.log"
else
	left=$(find "$X" \( -type f -o -type l \))
	if [ -n "$left" ]; then
		fail "make uninstall DESTDIR leaves no file behind" "left: $(echo "$left" | tr '\n' ' ')"
	elif [ -e "$P/include/rocetest" ]; then
		fail "make uninstall DESTDIR leaves no file behind" "$P/include/rocetest is still there"
	else
		ok "make uninstall DESTDIR leaves no file behind"
	fi
fi

# ------------------------------------------------------------ another PREFIX
if ! "$MAKE" -C "$ROOT" --no-print-directory install PREFIX=/opt/rt DESTDIR="$Y" >"$TMP/install2.log" 2>&1; then
	fail "make install PREFIX=/opt/rt" "make install failed"
	detail "$TMP/install2.log"
else
	pc=$Y/opt/rt/lib/pkgconfig/rocetest.pc
	if [ -f "$Y/opt/rt/bin/rocetest" ] && [ -f "$pc" ] && grep -qx 'prefix=/opt/rt' "$pc" &&
		[ "$(PKG_CONFIG_PATH=$Y/opt/rt/lib/pkgconfig pkg-config --variable=libdir rocetest)" = /opt/rt/lib ] &&
		[ -z "$(find "$Y" -mindepth 1 \! -path "$Y/opt" \! -path "$Y/opt/rt" \! -path "$Y/opt/rt/*")" ]; then
		ok "make install PREFIX=/opt/rt: files under /opt/rt, rocetest.pc says prefix=/opt/rt"
	else
		fail "make install PREFIX=/opt/rt" "$(find "$Y" -type f | head -n 3 | tr '\n' ' '); $(grep '^prefix=' "$pc" 2>&1)"
	fi
	if "$MAKE" -C "$ROOT" --no-print-directory uninstall PREFIX=/opt/rt DESTDIR="$Y" >"$TMP/uninstall2.log" 2>&1 &&
		[ -z "$(find "$Y" -type f)" ]; then
		ok "make uninstall PREFIX=/opt/rt leaves no file behind"
	else
		fail "make uninstall PREFIX=/opt/rt leaves no file behind" "$(find "$Y" -type f | head -n 3 | tr '\n' ' ')$(tail -n 2 "$TMP/uninstall2.log" | tr '\n' ' ')"
	fi
fi

finish
