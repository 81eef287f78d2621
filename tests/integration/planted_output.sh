#!/bin/bash
# What another user plants at an output's name is never written through by
# psrec running as root (issue 22, part 1; util/outfile.h has the rule).
# The attack: nobody holds a root-owned file open read-only and plants
# NAME -> /proc/ITS_PID/fd/3 where root records; a writer that followed it
# would open the file anew for writing, with root's rights, and truncate it.
# Every writer of a name is tried: the recording (perf.data in the current
# directory, -o, --switch-output), fold -o, flamegraph -o, pprof -o and
# archive -o; in a sticky world-writable directory (refused for the link's
# owner) and in nobody's own directory (refused for leading into /proc).
# A link to a device, nobody's FIFO in the sticky directory: refused too,
# and never opened. Chunks: a link planted in place of the chunk being
# written is renamed at the cut, never written through. The legitimate
# outputs are output.sh's.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "planting as another user takes root"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
if ! { id nobody && getent group nogroup; } >/dev/null 2>&1; then
	skip "no user nobody or group nogroup"
fi
need_perf

# nobody's processes holding the decoy, ended with the test.
holders=()
cleanup() {
	local h
	for h in "${holders[@]}"; do
		kill "$h" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
}

# Directories nobody can reach: the decoy's (root's), a sticky one and
# nobody's own.
chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/root" "$TMP/home" "$TMP/devs"
mkdir -m 1777 "$TMP/sticky"
chown nobody:nogroup "$TMP/home"
decoy=$TMP/root/decoy
printf decoy >"$decoy"
chmod 0644 "$decoy"
"$PSREC" -q -e cpu-clock -o "$TMP/root/in.data" -- "$SPIN" 0.2 || fail "recording the input failed"
in=$TMP/root/in.data

# plant DIR NAME: nobody opens the decoy read-only as fd 3, links
# DIR/NAME to /proc/<its pid>/fd/3 and keeps the fd open.
plant() {
	# shellcheck disable=SC2016  # $1, $2 and $$ are the inner bash's
	# not through as_nobody: $! must be the holder itself (setpriv execs
	# bash, which execs sleep), not a subshell, for cleanup to end it
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		bash -c 'exec 3<"$1" && ln -s "/proc/$$/fd/3" "$2" && exec sleep 1000' plant "$decoy" "$1/$2" &
	local holder=$!
	holders+=("$holder")
	wait_until "[ -L '$1/$2' ] || ! kill -0 $holder 2>/dev/null" 60 "nobody's link $1/$2"
	[ -L "$1/$2" ] || fail "nobody could not plant $1/$2"
}

# refused WHAT WORDS CMD...: CMD, run as root, exits 1, its last line on
# stderr (fold and friends may say what they folded first) is the one
# refusal, naming WORDS and the fix; the decoy and the link are untouched.
refused() {
	local what=$1 words=$2 err rc line
	shift 2
	# -k: a recording blocks SIGTERM once its signals are set up
	err=$(timeout -k 5 60 "$@" 2>&1 >/dev/null)
	rc=$?
	line=$(tail -n 1 <<<"$err")
	[ "$rc" = 1 ] || fail "$what: exit $rc, expected 1 (refused): $err"
	[ "$(grep -c 'refusing to write' <<<"$err")" = 1 ] || fail "$what: not one refusal: $err"
	grep -qF -- "$words" <<<"$line" || fail "$what: '$line' does not say '$words'"
	grep -q '^psrec: refusing to write .*; remove it or give -o another name$' <<<"$line" ||
		fail "$what: '$line' is not one line naming the fix"
	[ "$(cat "$decoy")" = decoy ] || fail "$what: the root-owned decoy was overwritten: $(head -c 64 "$decoy" | od -c | head -2)"
	[ "$(stat -c %U:%a "$decoy")" = root:644 ] || fail "$what: the decoy became $(stat -c %U:%a "$decoy")"
}

# every_writer DIR NAME WORDS: each writer, aimed at DIR/NAME, is refused.
every_writer() {
	local dir=$1 name=$2 words=$3
	refused "psrec -o $dir/$name" "$words" "$PSREC" -q -e cpu-clock -o "$dir/$name" -- true
	refused "psrec --switch-output -o $dir/$name" "$words" \
		"$PSREC" -q -e cpu-clock --switch-output=1s -o "$dir/$name" -- true
	refused "fold -o $dir/$name" "$words" "$PSREC" fold -i "$in" -o "$dir/$name"
	refused "flamegraph -o $dir/$name" "$words" "$PSREC" flamegraph -i "$in" -o "$dir/$name"
	refused "pprof -o $dir/$name" "$words" "$PSREC" pprof -i "$in" -o "$dir/$name"
	refused "archive -o $dir/$name" "$words" "$PSREC" archive -i "$in" -o "$dir/$name"
	[ -L "$dir/$name" ] || fail "$dir/$name is no longer nobody's link"
	[ "$(stat -c %U "$dir/$name")" = nobody ] || fail "$dir/$name changed owner"
}

# ---- the attack, as the issue tells it: psrec -- true where perf.data is planted
plant "$TMP/sticky" perf.data
target=$(readlink "$TMP/sticky/perf.data")
# shellcheck disable=SC2016  # $1 and $2 are the inner bash's
refused "psrec -- true in the sticky directory" \
	"refusing to write perf.data: it is a link (-> $target) owned by uid 65534 in a sticky, world-writable directory of uid 0" \
	bash -c 'cd "$1" && exec "$2" -q -e cpu-clock -- true' _ "$TMP/sticky" "$PSREC"
every_writer "$TMP/sticky" perf.data "owned by uid 65534 in a sticky, world-writable directory of uid 0"
[ "$(find "$TMP/sticky" -mindepth 1 -printf '%f\n')" = perf.data ] ||
	fail "the refusals left files in the sticky directory: $(ls -A "$TMP/sticky")"
echo "ok: nobody's link into /proc in a sticky directory refused by every writer; the decoy is intact"

# ---- nobody's own directory: the owner is the directory's, /proc is still refused
plant "$TMP/home" perf.data
# shellcheck disable=SC2016  # $1 and $2 are the inner bash's
refused "psrec -- true in nobody's directory" "refusing to write perf.data: it is a link into /proc (-> /proc/" \
	bash -c 'cd "$1" && exec "$2" -q -e cpu-clock -- true' _ "$TMP/home" "$PSREC"
every_writer "$TMP/home" perf.data "a link into /proc (-> /proc/"
# a link to a link into /proc, relative
as_nobody ln -s perf.data "$TMP/home/hop"
every_writer "$TMP/home" hop "a link into /proc (-> perf.data)"
echo "ok: nobody's link into /proc in nobody's own directory refused at any hop; the decoy is intact"

# ---- a link to a device (a private null device: a regression must not
# write the machine's). Refused wherever it is, even to /dev/null itself.
mknod -m 0666 "$TMP/devs/null" c 1 3 || skip "mknod is not allowed here"
as_nobody ln -s "$TMP/devs/null" "$TMP/home/dev.out"
every_writer "$TMP/home" dev.out "a link to a device (-> $TMP/devs/null) owned by uid 65534"
[ "$(stat -c %F:%t:%T "$TMP/devs/null")" = "character special file:1:3" ] || fail "the device node was replaced"
as_nobody ln -s /dev/null "$TMP/home/null.out"
every_writer "$TMP/home" null.out "a link to a device (-> /dev/null)"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
echo "ok: links to a device refused, never opened"

# ---- nobody's FIFO in the sticky directory: psrec would block in its
# open, then hand nobody the profile. Refused without opening (timeout:
# a regression blocks).
as_nobody mkfifo -m 0666 "$TMP/sticky/fifo"
refused "psrec -o nobody's FIFO" "a FIFO owned by uid 65534 in a sticky, world-writable directory" \
	"$PSREC" -q -e cpu-clock -o "$TMP/sticky/fifo" -- true
refused "fold -o nobody's FIFO" "a FIFO owned by uid 65534" "$PSREC" fold -i "$in" -o "$TMP/sticky/fifo"
[ -p "$TMP/sticky/fifo" ] || fail "nobody's FIFO was replaced"
echo "ok: nobody's FIFO in a sticky directory refused, never opened"

# ---- chunks: in nobody's own directory nobody may rename the chunk being
# written and plant a link at its name. The cut renames whatever is at the
# name (a rename moves a link, never follows it) and creates the next chunk
# afresh; the end likewise. The data stay in the files nobody moved.
cout=$TMP/home/c.data
"$PSREC" -v -e cpu-clock --switch-output -o "$cout" -- "$SPIN" 30 1 2>"$TMP/c.err" &
rec=$!
holders+=("$rec")
wait_until "started $TMP/c.err && has_samples $cout 50" 20 "psrec to record"
as_nobody mv "$cout" "$TMP/home/c.first"
plant "$TMP/home" c.data
kill -USR2 "$rec"
wait_until "grep -q '^psrec: chunk ' $TMP/c.err && [ -f $cout ] && [ ! -L $cout ]" 20 "the cut"
as_nobody mv "$cout" "$TMP/home/c.second"
plant "$TMP/home" c.data
kill -INT "$rec"
wait "$rec"
rc=$?
# waited for: its pid is no longer ours to kill
keep=()
for h in "${holders[@]}"; do
	[ "$h" = "$rec" ] || keep+=("$h")
done
holders=("${keep[@]}")
[ "$rc" = 130 ] || fail "psrec --switch-output stopped by SIGINT exited $rc: $(cat "$TMP/c.err")"
[ "$(cat "$decoy")" = decoy ] || fail "a chunk was written through nobody's link: the decoy is $(head -c 64 "$decoy" | od -c | head -2)"
mapfile -t cfiles < <(find "$TMP/home" -maxdepth 1 -name 'c.data.*' | sort)
[ "${#cfiles[@]}" = 2 ] || fail "a cut and an end made ${#cfiles[@]} chunk names: ${cfiles[*]}"
for f in "${cfiles[@]}"; do
	{ [ -L "$f" ] && [ "$(stat -c %U "$f")" = nobody ]; } || fail "$f is not nobody's link, renamed as it was"
done
for f in c.first c.second; do
	"$PDCHECK" "$TMP/home/$f" >/dev/null || fail "the chunk nobody moved to $f is unreadable"
done
echo "ok: chunks rename a planted link, never write through it; the decoy is intact"
