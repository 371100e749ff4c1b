#!/usr/bin/env bash
# Renders the man pages of rocetest from its own --help texts (make man), so
# they never drift from the binary: rocetest.1, and rocetest-COMMAND.1 for
# each command the "Commands:" paragraph of `rocetest --help` lists (its
# one-line summary becomes the page's NAME line).
#
# usage: make-man.sh ROCETEST OUTDIR [HELP2MAN]
#
# help2man renders each page from a wrapper in OUTDIR/src/ that prints the
# command's --help (captured first, so a failing --help stops here) without
# its "usage:" lines: those become the SYNOPSIS, which help2man would only
# find after a capitalised "Usage:".
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: make-man.sh ROCETEST OUTDIR [HELP2MAN]" >&2
	exit 2
fi
rt=$1
out=$2
help2man=${3:-help2man}
rm -rf "$out"
mkdir -p "$out/src"
src=$(cd "$out/src" && pwd)

version=$("$rt" --version | sed -n '1s/^rocetest //p')
[ -n "$version" ] || { echo "man: $rt --version printed no version" >&2; exit 1; }

# commands_of: "NAME SUMMARY" for each command of `rocetest --help` (stdin).
commands_of() { sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  *\(.*\)/\1 \2/p'; }

# synopsis_of USAGE CMD: the usage lines as roff, each ".B CMD" and its arguments,
# upper-case words (FILE, OUT) in italics.
synopsis_of() {
	sed -e "s/^$2 *//" -e 's/\\/\\e/g' -e 's/-/\\-/g' -e 's/\([A-Z][A-Z0-9_]*\)/\\fI\1\\fR/g' \
		-e "s/^[.']/\\\\\&&/" "$1" |
		awk -v cmd="$2" 'NR > 1 { print ".br" } { print ".B \"" cmd "\""; if ($0 != "") print }'
}

# page NAME SUMMARY SEEALSO [COMMAND]: renders OUTDIR/NAME.1.
page() {
	local name=$1 summary=$2 seealso=$3 cmd
	shift 3
	"$rt" "$@" --help >"$src/$name.help" || { echo "man: $rt $* --help failed" >&2; exit 1; }
	cmd=$(echo rocetest "$@")
	sed -n '/^usage: /,/^$/{s/^usage: *//;s/^ *//;/./p;}' "$src/$name.help" >"$src/$name.usage"
	if [ ! -s "$src/$name.usage" ] || grep -v "^$cmd\( \|$\)" "$src/$name.usage" >&2; then
		echo "man: the usage lines of '$rt $* --help' do not start with '$cmd'" >&2
		exit 1
	fi
	sed '/^usage: /,/^$/d' "$src/$name.help" >"$src/$name.txt"
	printf '#!/bin/sh\nexec cat "%s"\n' "$src/$name.txt" >"$src/$name"
	chmod +x "$src/$name"
	{
		echo '[SYNOPSIS]'
		synopsis_of "$src/$name.usage" "$cmd"
		echo
		echo '[SEE ALSO]'
		printf '%s\n' "$seealso"
	} >"$src/$name.h2m"
	LC_ALL=C "$help2man" --no-info --section=1 --version-string="$version" \
		--source="rocetest $version" --name="$(printf '%s' "$summary" | sed 's/-/\\-/g')" \
		--include="$src/$name.h2m" --output="$out/$name.1" "$src/$name"
}

"$rt" --help | commands_of >"$src/commands"
[ -s "$src/commands" ] || { echo "man: '$rt --help' lists no commands" >&2; exit 1; }
see=$(sed -e 's/^\([^ ]*\) .*/.BR rocetest\\-\1 (1),/' -e '$s/,$//' "$src/commands")
summary=$("$rt" --help | sed '/^usage: /,/^$/d' | sed -n '/./{s/\.$//;p;q;}')
[ -n "$summary" ] || { echo "man: '$rt --help' has no summary line after its usage" >&2; exit 1; }
page rocetest "$summary" "$see"
while read -r c summary; do
	page "rocetest-$c" "$summary" '.BR rocetest (1)' "$c"
done <"$src/commands"
echo "man: $(cd "$out" && ls -- *.1 | tr '\n' ' ')in $out/"
