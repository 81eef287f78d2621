#!/bin/bash
# psrec archive: the DSOs of a perf record recording (from the cache and
# from their paths) and its perf-PID.map files in a .tar.zst with relative
# members only; extracted into a directory given to perf --buildid-dir, it
# symbolizes the recording after the binary at the recorded path has been
# replaced, which the same perf cannot do without it. The summary's
# counts are those of the archive; recordings without build-ids are
# refused.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (scripts/deps.sh installs it)"
tar --zstd -cf /dev/null --files-from /dev/null 2>/dev/null || skip "this tar has no --zstd"

# perf record's ~/.debug, and psrec's, are in here.
export HOME="$TMP/home"
mkdir -p "$HOME" "$TMP/nohome"
# A copy, since the test puts another binary at its path.
prog="$TMP/spin"
cp "$SPIN" "$prog"
data="$TMP/perf.data"
"$PERF" record -e cpu-clock -o "$data" -- "$prog" 0.5 1 2>"$TMP/perf.err" >/dev/null || fail "perf record failed"
"$PERF" buildid-list -i "$data" >"$TMP/ids.txt" 2>"$TMP/perf.err" || fail "perf buildid-list failed"
hex=$(awk -v p="$prog" '$2 == p { print $1 }' "$TMP/ids.txt")
[ -n "$hex" ] || fail "perf listed no build-id for $prog: $(cat "$TMP/ids.txt")"
listed=$(wc -l <"$TMP/ids.txt")

# A JIT map of the recorded process, as a JIT would have left it.
pid=$("$PERF" script -i "$data" -F pid 2>/dev/null | awk 'NF { print $1; exit }')
map="/tmp/perf-$pid.map"
[ -n "$pid" ] || fail "perf script shows no pid"
[ -e "$map" ] && fail "$map exists already (pid reused?)"
trap 'rm -f "$map"; cleanup_bg' EXIT
echo "7f0000001000 40 jitted_fn" >"$map"

# check_archive OUT SHOWN ERRFILE WHAT: relative members only, link
# targets that stay inside, the recorded binary's elf, and a summary (that
# names the archive SHOWN) counting what the archive holds.
check_archive() {
	local out=$1 shown=$2 errf=$3 what=$4
	tar --zstd -tvf "$out" >"$TMP/list.txt" 2>"$TMP/tar.err" || fail "$what: tar cannot list $out: $(cat "$TMP/tar.err")"
	tar --zstd -tf "$out" >"$TMP/names.txt" || fail "$what: tar -t failed"
	if grep -Eq '^/|(^|/)\.\.(/|$)' "$TMP/names.txt"; then
		fail "$what: absolute or .. members: $(grep -E '^/|(^|/)\.\.(/|$)' "$TMP/names.txt")"
	fi
	local bad
	bad=$(sed -n 's/.* -> //p' "$TMP/list.txt" | grep -Ev '^\.\./\.\./[^/]' | head -1)
	[ -z "$bad" ] || fail "$what: a link target that does not start with ../../: $bad"
	bad=$(sed -n 's/.* -> \.\.\/\.\.\///p' "$TMP/list.txt" | grep -E '(^|/)\.\.(/|$)' | head -1)
	[ -z "$bad" ] || fail "$what: a link target that climbs out: $bad"
	grep -qx "${prog#/}/$hex/elf" "$TMP/names.txt" || fail "$what: no ${prog#/}/$hex/elf in $(cat "$TMP/names.txt")"
	grep -qx ".build-id/${hex:0:2}/${hex:2}" "$TMP/names.txt" || fail "$what: no .build-id link for $prog"
	grep -qx "tmp/perf-$pid.map" "$TMP/names.txt" || fail "$what: no tmp/perf-$pid.map"

	local summary dsos maps missing files
	summary=$(sed -n 's/^psrec: archived \([0-9]*\) DSOs* ([0-9.]* [KM]B) and \([0-9]*\) map files* into \(.*\) ([0-9.]* [KM]B)\(; \([0-9]*\) DSOs* not found (.*)\)*$/\1|\2|\5|\3/p' "$errf")
	[ -n "$summary" ] || fail "$what: no summary: $(cat "$errf")"
	local name
	IFS='|' read -r dsos maps missing name <<<"$summary"
	[ "$name" = "$shown" ] || fail "$what: the summary names $name, not $shown"
	grep -qxF "psrec: on the analysis machine: mkdir -p ~/.debug && tar --zstd -xf $shown -C ~/.debug" "$errf" ||
		fail "$what: no extraction hint: $(cat "$errf")"
	files=$(grep -Ec '/(elf|kallsyms|vdso)$' "$TMP/names.txt")
	[ "$dsos" = "$files" ] || fail "$what: the summary says $dsos DSOs, the archive has $files: $(cat "$errf")"
	[ "$dsos" = "$(grep -c '^\.build-id/' "$TMP/names.txt")" ] || fail "$what: not one link per DSO"
	[ "$maps" = 1 ] || fail "$what: the summary says $maps map files: $(cat "$errf")"
	[ $((dsos + ${missing:-0})) = "$listed" ] ||
		fail "$what: $dsos archived + ${missing:-0} missing, perf lists $listed: $(cat "$errf") $(cat "$TMP/ids.txt")"
}

# From perf record's cache (HOME), to the default name.
(cd "$TMP" && "$PSREC" archive) 2>"$TMP/err.txt" || fail "psrec archive failed: $(cat "$TMP/err.txt")"
[ -s "$TMP/perf.data.tar.zst" ] || fail "no perf.data.tar.zst"
out="$TMP/perf.data.tar.zst"
check_archive "$out" perf.data.tar.zst "$TMP/err.txt" "from the cache"

# Without a cache: from the paths, /proc/kallsyms and psrec's vdso.
HOME="$TMP/nohome" "$PSREC" archive -i "$data" -o "$TMP/paths.tar.zst" 2>"$TMP/err2.txt" ||
	fail "psrec archive without a cache failed: $(cat "$TMP/err2.txt")"
check_archive "$TMP/paths.tar.zst" "$TMP/paths.tar.zst" "$TMP/err2.txt" "from the paths"
[ -z "$(ls -A "$TMP/nohome")" ] || fail "psrec archive wrote into the cache: $(ls -A "$TMP/nohome")"

# The binary at the recorded path changes: without a cache it is missing,
# named, and not replaced by the binary now there.
cp /bin/true "$prog"
HOME="$TMP/nohome" "$PSREC" archive -i "$data" -o "$TMP/gone.tar.zst" 2>"$TMP/err3.txt" ||
	fail "psrec archive with the binary replaced failed: $(cat "$TMP/err3.txt")"
grep -qF "; 1 DSO not found ($prog)" "$TMP/err3.txt" || fail "the replaced binary is not reported missing: $(cat "$TMP/err3.txt")"
tar --zstd -tf "$TMP/gone.tar.zst" | grep -q "^${prog#/}/" && fail "the replaced binary was archived"

# The archive still symbolizes the recording.
mkdir -p "$TMP/D" "$TMP/empty"
tar --zstd -xf "$out" -C "$TMP/D" || fail "extraction failed"
[ -L "$TMP/D/.build-id/${hex:0:2}/${hex:2}" ] || fail "no link after extraction"
cmp -s "$SPIN" "$TMP/D/${prog#/}/$hex/elf" || fail "the archived elf is not the recorded binary"
export HOME="$TMP/nohome"
# report_in DIR: perf report with DIR as the build-id cache.
report_in() {
	"$PERF" --buildid-dir "$1" report -i "$data" --stdio --no-children --sort sym 2>"$TMP/perf.err"
}
txt=$(report_in "$TMP/D")
for f in hot_a hot_b hot_c; do
	grep -q "$f" <<<"$txt" || fail "perf --buildid-dir (the archive) shows no $f: $txt"
done
txt=$(report_in "$TMP/empty")
grep -q hot_a <<<"$txt" && fail "perf symbolized the replaced binary without the archive (the test proves nothing)"

# Recordings without build-ids: exit 1 and the reason.
code=0
"$PSREC" archive -i "$TMP/none.data" -o "$TMP/x.tar.zst" 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 1 ] && grep -q 'cannot open' "$TMP/err.txt"; } || fail "a missing recording: exit $code $(cat "$TMP/err.txt")"
cp "$SPIN" "$prog"

# psrec's own recordings: the BUILD_ID feature of a file, the MMAP2 ids
# of a stream.
export HOME="$TMP/home"
for o in "$TMP/ps.data" -; do
	"$PSREC" -q -e cpu-clock -o "$o" -- "$prog" 0.2 1 >"$TMP/ps.stream" || fail "psrec -o $o failed"
	[ "$o" = - ] && o="$TMP/ps.stream"
	"$PSREC" archive -i "$o" -o "$TMP/ps.tar.zst" 2>"$TMP/err.txt" || fail "psrec archive of psrec's $o: $(cat "$TMP/err.txt")"
	tar --zstd -tf "$TMP/ps.tar.zst" | grep -qx "${prog#/}/$hex/elf" || fail "psrec's $o: no elf for $prog"
	grep -q '^psrec: archived [1-9][0-9]* DSOs* .* into .*ps.tar.zst (.*)$' "$TMP/err.txt" || fail "psrec's $o: $(cat "$TMP/err.txt")"
done

"$PERF" record -B -e cpu-clock -o "$TMP/B.data" -- "$prog" 0.1 1 2>"$TMP/perf.err" >/dev/null || fail "perf record -B failed"
code=0
"$PSREC" archive -i "$TMP/B.data" -o "$TMP/B.tar.zst" 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 1 ] && grep -q 'no build-ids (recorded with -B?)' "$TMP/err.txt"; } ||
	fail "perf record -B: exit $code $(cat "$TMP/err.txt")"
[ -e "$TMP/B.tar.zst" ] && fail "an archive was left after the error"
"$PERF" record -e cpu-clock -o - -- "$prog" 0.1 1 2>"$TMP/perf.err" >"$TMP/stream.data" || fail "perf record -o - failed"
code=0
"$PSREC" archive -i "$TMP/stream.data" -o "$TMP/s.tar.zst" 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 1 ] && grep -q 'perf record -o - leaves them out' "$TMP/err.txt"; } ||
	fail "perf record -o -: exit $code $(cat "$TMP/err.txt")"

# A stream with the ids in its MMAP2 records: those are taken.
"$PERF" record --buildid-mmap -e cpu-clock -o - -- "$prog" 0.1 1 2>"$TMP/perf.err" >"$TMP/stream.data" ||
	fail "perf record --buildid-mmap -o - failed"
"$PSREC" archive -i "$TMP/stream.data" -o - 2>"$TMP/err.txt" >"$TMP/s.tar.zst" ||
	fail "psrec archive of a --buildid-mmap stream: $(cat "$TMP/err.txt")"
tar --zstd -tf "$TMP/s.tar.zst" | grep -qx "${prog#/}/$hex/elf" || fail "--buildid-mmap stream: no elf for $prog"
grep -q 'into standard output' "$TMP/err.txt" || fail "-o -: $(cat "$TMP/err.txt")"
leftover=$(find "$TMP" -maxdepth 1 -name '.psrec-archive-*')
[ -z "$leftover" ] || fail "temporaries left: $leftover"

# Usage errors exit 2.
for args in "-x" "extra" "-o"; do
	code=0
	# shellcheck disable=SC2086
	"$PSREC" archive $args 2>"$TMP/err.txt" || code=$?
	[ "$code" = 2 ] || fail "psrec archive $args: exit $code $(cat "$TMP/err.txt")"
	[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "psrec archive $args: not one line: $(cat "$TMP/err.txt")"
done
"$PSREC" archive --help | grep -q '^usage: psrec archive' || fail "psrec archive --help"
echo "ok: archive"
