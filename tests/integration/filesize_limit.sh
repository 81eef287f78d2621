#!/bin/bash
# A file-size limit (ulimit -f) is a write error like a full disk, not a
# death by SIGXFSZ: exit 1, one line saying the file is valid, a file perf
# reads, and the command ended. The command itself keeps the default
# SIGXFSZ: past the limit it dies of it, as it would without psrec.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

cd "$TMP" || fail "cannot enter $TMP"

# The command writes its pid first, so we can tell whether it outlived psrec.
code=0
# shellcheck disable=SC2016  # $$ and $0 are for the inner sh
(ulimit -f 64; exec "$PSREC" -q -e cpu-clock -F 20000 -o f.data -- \
	sh -c 'echo $$ >cmd.pid; exec "$0" 20 2' "$SPIN") 2>err.txt >/dev/null || code=$?
pid=$(cat cmd.pid)
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid"
	fail "the command (pid $pid) outlived the recording (psrec exit $code: $(cat err.txt))"
fi
[ "$code" = 1 ] || fail "exit $code under ulimit -f 64 (153 = killed by SIGXFSZ): $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] || fail "expected one line on stderr, got: $(cat err.txt)"
grep -Eq '^psrec: writing f\.data failed after [0-9.]+ KB: File too large; recording stopped, file is valid$' err.txt ||
	fail "message: $(cat err.txt)"
size=$(stat -c %s f.data)
[ "$size" -le $((64 * 1024)) ] || fail "f.data is $size bytes, above the 64 KiB limit"
txt=$(report -i f.data --no-children --sort sym)
no_perf_warnings "ulimit -f"
n=$(report_samples <<<"$txt")
[ "${n:-0}" -gt 100 ] || fail "perf report counts ${n:-0} samples"
# No symbol check: which ring's records made it under the limit is luck,
# and the command's MMAP2 can be among those that did not.
"$PDCHECK" f.data >/dev/null || fail "psrec's reader rejects the file"

# Without -q the summary follows, and nothing else (no warning about the
# header features the limit left out: the first line said the file is valid).
code=0
(ulimit -f 64; exec "$PSREC" -e cpu-clock -F 20000 -o g.data -- "$SPIN" 20 2) 2>err.txt >/dev/null || code=$?
[ "$code" = 1 ] || fail "without -q: exit $code: $(cat err.txt)"
{ [ "$(wc -l <err.txt)" = 2 ] && grep -q '^psrec: wrote .* to g.data' err.txt; } ||
	fail "without -q, expected the error and the summary: $(cat err.txt)"

# The command past the limit dies of SIGXFSZ (128+25) while psrec, whose
# own file stays small, exits with the command's status. Had it inherited
# SIG_IGN, head would get EFBIG and exit 1.
code=0
(ulimit -f 64; exec "$PSREC" -q -e cpu-clock -o h.data -- sh -c 'exec head -c 200000 /dev/zero >big') \
	2>err.txt >/dev/null || code=$?
[ "$code" = 153 ] || fail "a command writing past the limit: exit $code, expected 153 (SIGXFSZ): $(cat err.txt)"
report -i h.data >/dev/null
no_perf_warnings "command killed by SIGXFSZ"
echo "ok: a file-size limit stops the recording cleanly"
