#!/bin/bash
# The output file: mode 0600, an existing file becomes FILE.old, and under
# sudo it belongs to the user who ran sudo (or they need perf report -f).
# Devices, FIFOs and the names of inherited descriptors (/dev/stdout,
# /dev/fd/N) are written through, never replaced; the user's own link to a
# regular file is replaced, not followed; a failed start leaves FILE and
# FILE.old as they were; nothing is left behind by a kill during setup
# (issue 10.1, 10.5, 10.10, 22). What another user may have planted:
# planted_output.sh.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

out="$TMP/o.data"
echo old >"$out"
"$PSREC" -q -e cpu-clock -o "$out" -- true || fail "psrec true failed"
[ "$(cat "$out.old")" = old ] || fail "existing output not renamed to .old"
[ "$(stat -c %a "$out")" = 600 ] || fail "mode $(stat -c %a "$out"), expected 600"
"$PDCHECK" "$out" >/dev/null || fail "new output unreadable"

if [ "$(id -u)" = 0 ]; then
	SUDO_UID=65534 SUDO_GID=65534 "$PSREC" -q -e cpu-clock -o "$TMP/sudo.data" -- true ||
		fail "psrec under fake sudo failed"
	[ "$(stat -c %u:%g "$TMP/sudo.data")" = 65534:65534 ] ||
		fail "under sudo the file belongs to $(stat -c %u:%g "$TMP/sudo.data"), expected the sudo user"
fi
# Special files are written, not replaced (as root, /dev/null would have
# become a regular file). A private null device, so that a regression
# cannot break the machine's.
if [ "$(id -u)" = 0 ] && mknod -m 666 "$TMP/null" c 1 3 2>/dev/null; then
	"$PSREC" -q -e cpu-clock -o "$TMP/null" -- "$SPIN" 0.2 || fail "-o a null device failed"
	[ -c "$TMP/null" ] || fail "-o replaced a character device with a regular file"
fi
mkfifo "$TMP/fifo"
"$PERF" report -i - --stdio --sort comm <"$TMP/fifo" >"$TMP/fifo.txt" 2>"$TMP/perf.err" &
reader=$!
"$PSREC" -q -e cpu-clock -o "$TMP/fifo" -- "$SPIN" 0.3 || fail "-o FIFO failed"
wait "$reader"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
n=$(report_samples <"$TMP/fifo.txt")
[ "${n:-0}" -gt 50 ] || fail "perf read ${n:-0} samples through the FIFO"
"$PSREC" -q -e cpu-clock -o /dev/stdout -- "$SPIN" 0.3 | "$PERF" report -i - --stdio --sort comm >"$TMP/stdout.txt" 2>"$TMP/perf.err"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a symlink"
n=$(report_samples <"$TMP/stdout.txt")
[ "${n:-0}" -gt 50 ] || fail "perf read ${n:-0} samples through -o /dev/stdout"
"$PSREC" -q -e cpu-clock -o /dev/stdout -- "$SPIN" 0.2 >"$TMP/redirected.data" || fail "-o /dev/stdout > file failed"
"$PDCHECK" "$TMP/redirected.data" >/dev/null || fail "-o /dev/stdout into a file is unreadable"

# The other names of an inherited descriptor: /dev/fd/N (bash's >(...) and
# 3>FILE) is written through, a regular file behind it truncated first.
echo "an old and longer content than a header" >"$TMP/fd3.data"
"$PSREC" -q -e cpu-clock -o /dev/fd/3 -- "$SPIN" 0.2 3>"$TMP/fd3.data" || fail "-o /dev/fd/3 failed"
"$PDCHECK" "$TMP/fd3.data" >/dev/null || fail "-o /dev/fd/3 into a file is unreadable"
# The offline writers take /dev/stdout and - alike.
"$PSREC" fold -i "$out" -o /dev/stdout 2>/dev/null >"$TMP/fold.txt" || fail "fold -o /dev/stdout failed"
grep -q 'true' "$TMP/fold.txt" || fail "fold -o /dev/stdout wrote no stack of true: $(head -3 "$TMP/fold.txt")"
"$PSREC" pprof -i "$out" -o - 2>/dev/null | gzip -t || fail "pprof -o - is not one gzip stream"

# A link the user made to a regular file elsewhere is replaced by the new
# file, as perf record's rename would, never written through; in a sticky
# directory too, when the link is psrec's user's (util/outfile.h). Its
# target keeps its content.
mkdir "$TMP/mine" "$TMP/elsewhere"
echo kept >"$TMP/elsewhere/file"
ln -s "$TMP/elsewhere/file" "$TMP/mine/link.data"
mkdir -m 1777 "$TMP/sticky"
ln -s "$TMP/elsewhere/file" "$TMP/sticky/link.data"
for link in "$TMP/mine/link.data" "$TMP/sticky/link.data"; do
	"$PSREC" -q -e cpu-clock -o "$link" -- true || fail "-o $link (the user's own link) failed"
	{ [ -f "$link" ] && [ ! -L "$link" ]; } || fail "$link was not replaced by the recording"
	"$PDCHECK" "$link" >/dev/null || fail "the recording that replaced $link is unreadable"
	[ "$(cat "$TMP/elsewhere/file")" = kept ] || fail "-o $link wrote through to the link's target"
done
ln -s "$TMP/elsewhere/file" "$TMP/mine/link.folded"
"$PSREC" fold -i "$out" -o "$TMP/mine/link.folded" || fail "fold -o the user's own link failed"
{ [ ! -L "$TMP/mine/link.folded" ] && grep -q true "$TMP/mine/link.folded"; } ||
	fail "fold did not replace the user's link"
[ "$(cat "$TMP/elsewhere/file")" = kept ] || fail "fold -o wrote through the user's link"
echo "ok: /dev/fd/N written through; the user's own links replaced, their targets kept"

# A start that fails after the file got its name (126: the kernel refuses
# the executable) puts back FILE and FILE.old, both.
printf '\177ELF\002\001\001garbage' >"$TMP/notexec"
chmod +x "$TMP/notexec"
echo first >"$TMP/keep.data"
echo older >"$TMP/keep.data.old"
"$PSREC" -q -e cpu-clock -o "$TMP/keep.data" -- "$TMP/notexec" 2>"$TMP/err.txt"
rc=$?
[ "$rc" = 126 ] || fail "exec failure exited $rc, expected 126"
[ "$(cat "$TMP/keep.data")" = first ] || fail "FILE changed by a failed start"
[ "$(cat "$TMP/keep.data.old")" = older ] || fail "FILE.old lost by a failed start"

# No temporary name derived from the output: a 240-byte name works, and
# names another user could pre-create do not matter.
long=$(printf 'l%.0s' $(seq 240))
touch "$TMP/$long.psrec-1.tmp" "$TMP/.psrec-000000"
"$PSREC" -q -e cpu-clock -o "$TMP/$long" -- true || fail "a 240-byte output name failed"
"$PDCHECK" "$TMP/$long" >/dev/null || fail "the 240-byte output is unreadable"

# Killed during setup (before the file has a name): nothing left behind.
mkdir "$TMP/setup"
for delay in 0.001 0.005 0.02; do
	"$PSREC" -q -e cpu-clock -o "$TMP/setup/s.data" -- "$SPIN" 0.2 &
	pid=$!
	sleep "$delay" # the workload: when to kill (during setup)
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	left=$(find "$TMP/setup" -mindepth 1 -maxdepth 1 ! -name s.data -printf '%f\n')
	[ -z "$left" ] || fail "a kill after ${delay}s left $left behind"
	rm -f "$TMP/setup/s.data"
done
echo "ok: output file placement"
