#!/usr/bin/env bash
# The README's promise, tested: on a fresh Debian 12 machine with a clone of
# this repository and ../shared beside it, the README's two commands do all
# the set-up themselves.
#
# usage: harness/scripts/fresh-check.sh [--keep] [--shared DIR] [--log FILE] [--then CMD]...
#                                       [--then-each 'CMD;CMD...']
#
# As root (make fresh-check):
#  1. bootstraps a minimal Debian 12 root (mmdebstrap --variant=apt bookworm)
#     from this machine's own apt sources, plus `make`, which the README asks
#     the user to have;
#  2. puts a clean clone of this repository's HEAD at /work/rocetest in it
#     and a copy of ../shared at /work/shared;
#  3. as an unprivileged user, runs the README's two commands, each of which
#     must stop before building anything, printing the exact apt-get line
#     for the packages it lacks;
#  4. as root, runs the README's two commands, in order, in a fresh clone:
#     each must pass;
#  5. as root, each --then CMD in the same tree, in order (CI's later steps:
#     they reuse what the README's commands built and installed, so nothing
#     is built twice); every one runs, and any failure fails the check. A
#     CMD of the form 'A & B' runs A and B at once (two single-threaded
#     steps on two cores), their lines told apart by their prefixes.
# It ends with a table of each step's seconds and, last, the closing line of
# the README's test command ("tests: N passed, N failed").
# /proc and /dev are mounted in the root for the chroot, and unmounted (and
# the root removed, unless --keep) on the way out, failure or not. The log of
# the whole run is written to build/fresh-check/fresh-check.log.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=$REPO/../shared
LOG=$REPO/build/fresh-check/fresh-check.log
KEEP=0
# The README's two commands, exactly.
README_COMMANDS=("make conformance" "make test")
THEN=()
SUITE=bookworm

while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=1; shift ;;
	--shared) SHARED=$2; shift 2 ;;
	--log) LOG=$2; shift 2 ;;
	--then) THEN+=("$2"); shift 2 ;;
	--then-each) IFS=';' read -r -a more <<<"$2"; THEN+=("${more[@]}"); shift 2 ;;
	-h|--help) sed -n '2,28p' "$0"; exit 0 ;;
	*) echo "fresh-check: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "fresh-check: must run as root (it bootstraps a Debian root with mmdebstrap and chroots into it)" >&2
	exit 2
fi
for tool in mmdebstrap git chroot mount; do
	command -v "$tool" >/dev/null || { echo "fresh-check: $tool is not installed (make fresh-check installs mmdebstrap)" >&2; exit 2; }
done
[ -d "$SHARED" ] || { echo "fresh-check: $SHARED is missing: the README's commands expect ../shared beside the clone" >&2; exit 2; }

# This machine's apt sources (deb822 .sources or one-line .list files), as
# they are: the fresh root gets its packages from where this machine does.
sources=()
[ -s /etc/apt/sources.list ] && sources+=(/etc/apt/sources.list)
for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
	[ -s "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || { echo "fresh-check: this machine has no apt sources in /etc/apt" >&2; exit 2; }

mkdir -p "$(dirname "$LOG")"
: >"$LOG"
WORK=$(mktemp -d /var/tmp/rocetest-fresh.XXXXXX)
ROOT=$WORK/root
STEP="setting up"

# in_root_pids: the processes whose root directory is the bootstrapped root.
in_root_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && echo "${p#/proc/}"
	done
	return 0
}

# The mount points in the root, and the root itself (stdin: findmnt's targets).
under_root() {
	awk -v r="$ROOT" '$0 == r || index($0, r "/") == 1'
}

mounted_under_root() {
	findmnt -rn -o TARGET | under_root | grep -q .
}

cleanup() {
	local rc=$? pids
	# Nothing may go on running inside the root (an interrupted make, apt).
	pids=$(in_root_pids)
	if [ -n "$pids" ]; then
		kill $pids 2>/dev/null || true
		sleep 2
		pids=$(in_root_pids)
		[ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
	fi
	# Everything mounted below the root, deepest first, whatever the step;
	# again for a few seconds while an interrupted mmdebstrap tears down its own.
	local _
	# The root's own bind mount sorts last, after everything below it.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		mounted_under_root || break
		findmnt -rn -o TARGET | under_root | sort -r | while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
		sleep 1
	done
	if mounted_under_root; then
		echo "fresh-check: could not unmount everything under $ROOT; left in place" >&2
	elif [ "$KEEP" -eq 1 ]; then
		echo "fresh-check: root kept in $ROOT (--keep)"
	else
		rm -rf "$WORK"
	fi
	if [ $rc -ne 0 ]; then
		echo "fresh-check: FAILED while $STEP (exit $rc); log: $LOG" >&2
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# say TEXT: a progress line, on the terminal and in the log.
say() { echo "fresh-check: $*" | tee -a "$LOG"; }
# timed STEP START: a row of the closing table of times.
TIMES=()
timed() { TIMES+=("$(printf '%6d s  %s' $(($(date +%s) - $2)) "$1")"); }
print_times() {
	local row
	say "seconds per step:"
	for row in "${TIMES[@]}"; do say "$row"; done
}
# logged CMD...: runs CMD with its output on the terminal and in the log,
# each line prefixed by the step (so a long run shows where it is). In the
# background with a wait, so that an INT or TERM is acted on at once; with
# pipefail the wait returns CMD's status (perl and tee do not fail). The
# prefix goes through the environment: a step may hold any character.
logged() {
	"$@" 2>&1 | STEP_PREFIX="  [$STEP] " perl -ne '$| = 1; print "$ENV{STEP_PREFIX}$_"' | tee -a "$LOG" &
	wait $!
}

STEP="bootstrapping"
say "bootstrapping a minimal Debian 12 root in $ROOT (sources: ${sources[*]})"
start=$(date +%s)
logged mmdebstrap --variant=apt --include=make "$SUITE" "$ROOT" "${sources[@]}" </dev/null
say "bootstrapped in $(($(date +%s) - start)) s: $(chroot "$ROOT" dpkg-query -W -f='.\n' | wc -l) packages"
timed "bootstrap (mmdebstrap)" "$start"
# Name resolution for apt inside the root, as on this machine.
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# The root is a mount point of its own: `ip netns exec` (the hardware-mode
# test's namespaces) remounts / inside the chroot, which needs / to be one.
mount --bind "$ROOT" "$ROOT"
mount --make-private "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --rbind /dev "$ROOT/dev"
mount --make-rslave "$ROOT/dev"

# The repository as a fresh clone has it: HEAD, nothing uncommitted, no build/.
STEP="copying the clone"
mkdir -p "$ROOT/work"
git clone --quiet --no-hardlinks "$REPO" "$WORK/clone"
say "clean clone of $(git -C "$WORK/clone" log -1 --format='%h %s' | cut -c1-72)"
cp -a "$SHARED" "$ROOT/work/shared"
cp -a "$WORK/clone" "$ROOT/work/rocetest"

# in_root USER DIR CMD: runs CMD with a login-like clean environment.
in_root() {
	local user=$1 dir=$2 home=/root
	[ "$user" = root ] || home=/home/$user
	chroot --userspec="$user:$user" "$ROOT" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="$home" USER="$user" LANG=C.UTF-8 TERM=dumb \
		/bin/bash -c "cd $dir && $3" </dev/null
}

# ---------------------------------------------------------------- unprivileged
# Before root installs anything: the user is told exactly what to install.
STEP="running as an unprivileged user"
echo "builder:x:1000:1000:rocetest fresh-check:/home/builder:/bin/bash" >>"$ROOT/etc/passwd"
echo "builder:x:1000:" >>"$ROOT/etc/group"
mkdir -p "$ROOT/home/builder"
cp -a "$WORK/clone" "$ROOT/home/builder/rocetest"
cp -a "$SHARED" "$ROOT/home/builder/shared"
chown -R 1000:1000 "$ROOT/home/builder"
# The packages each command's groups list (deps.sh --list) that the root lacks.
expected_missing() {
	local groups=$1 pkg list=()
	for pkg in $(bash "$REPO/harness/scripts/deps.sh" --list | awk -v g=" $groups " 'index(g, " " $1 " ") { $1 = ""; print }'); do
		chroot "$ROOT" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || list+=("$pkg")
	done
	printf '%s\n' "${list[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}
unpriv_failures=0
start=$(date +%s)
for i in 0 1; do
	cmd=${README_COMMANDS[$i]}
	# The groups the Makefile maps the command's goal to (make dep-groups).
	groups=$(make -s --no-print-directory -C "$REPO" dep-groups FOR="${cmd#make }")
	want="  sudo apt-get update && sudo apt-get install -y --no-install-recommends $(expected_missing "$groups")"
	set +e
	out=$(in_root builder /home/builder/rocetest "$cmd" 2>&1)
	rc=$?
	set -e
	printf '%s\n' "$out" | sed "s/^/  [builder: $cmd] /" | tee -a "$LOG"
	probs=()
	[ $rc -ne 0 ] || probs+=("exit status 0, expected a stop")
	printf '%s\n' "$out" | grep -qxF -- "$want" || probs+=("no line '$want'")
	[ ! -e "$ROOT/home/builder/rocetest/build/obj" ] || probs+=("it compiled something (build/obj exists)")
	if printf '%s\n' "$out" | grep -qiE 'segmentation|traceback|command not found'; then
		probs+=("it crashed or ran a missing tool")
	fi
	if [ ${#probs[@]} -eq 0 ]; then
		say "ok - unprivileged '$cmd': exit $rc, printed the exact apt-get line, built nothing"
	else
		say "FAIL - unprivileged '$cmd': ${probs[*]}"
		unpriv_failures=$((unpriv_failures + 1))
	fi
done
timed "the README's commands as an unprivileged user" "$start"
[ "$unpriv_failures" -eq 0 ] || exit 1

# ----------------------------------------------------------------------- root
# as_root CMD [HOW]: runs CMD as root in the root's clone; says how it went ("passed HOW") and how long it took.
as_root() {
	local cmd=$1 how=${2:-} start
	STEP="root: $cmd"
	say "running '$cmd' as root in /work/rocetest"
	start=$(date +%s)
	if logged in_root root /work/rocetest "$cmd"; then
		say "ok - '$cmd' as root passed${how:+ $how} in $(($(date +%s) - start)) s"
		timed "$cmd" "$start"
		return 0
	fi
	say "FAIL - '$cmd' as root failed after $(($(date +%s) - start)) s"
	timed "$cmd (FAILED)" "$start"
	return 1
}
for cmd in "${README_COMMANDS[@]}"; do
	as_root "$cmd" "on the first try" || { print_times; exit 1; }
done
installed=$(grep -c '^  \[root: make [a-z]*\] Setting up ' "$LOG" || true)
say "the project installed $installed packages itself; the README's two commands passed on a fresh Debian 12 root"

# ----------------------------------------------------------------- then
then_failed=()
for item in "${THEN[@]}"; do
	if [[ $item != *" & "* ]]; then
		as_root "$item" || then_failed+=("$item")
		continue
	fi
	# At once: each in a subshell, its row of the times and its failure written to a file.
	cmds=() pids=()
	rest=$item
	while [[ $rest == *" & "* ]]; do cmds+=("${rest%% & *}"); rest=${rest#* & }; done
	cmds+=("$rest")
	for i in "${!cmds[@]}"; do
		( if as_root "${cmds[$i]}"; then rc=0; else rc=1; fi
		  printf '%s\n' "${TIMES[-1]}" >"$WORK/then-$i.time"; exit $rc ) &
		pids+=($!)
	done
	for i in "${!cmds[@]}"; do
		wait "${pids[$i]}" || then_failed+=("${cmds[$i]}")
		TIMES+=("$(cat "$WORK/then-$i.time")")
	done
done
print_times
# The README's test command's verdict, alone on the last line.
grep -o 'tests: [0-9]* passed, [0-9]* failed$' "$LOG" | tail -n 1
if [ ${#then_failed[@]} -gt 0 ]; then
	STEP="the steps after the README's commands"
	say "FAIL - ${#then_failed[@]} of ${#THEN[@]} later steps failed: ${then_failed[*]}"
	exit 1
fi
