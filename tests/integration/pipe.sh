#!/bin/bash
# -o -: a perf.data stream on stdout that perf report and perf script read
# from a pipe; the command's own output and psrec's messages go to stderr.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

"$PSREC" -e cpu-clock -o - -- "$SPIN" 1.5 2 2>"$TMP/err1.txt" | report -i - --no-children --sort sym >"$TMP/r.txt"
no_perf_warnings "perf report -i -"
assert_near "$(sym_pct hot_a <"$TMP/r.txt")" 60 5 "hot_a share (pipe)"
grep -q '^psrec: wrote .* to standard output (' "$TMP/err1.txt" || fail "summary: $(cat "$TMP/err1.txt")"

# shellcheck disable=SC2016  # $((...)) and $0 are for the inner sh
"$PSREC" -q -e cpu-clock -o - -- sh -c 'echo HELLO$((6 * 7)); exec "$0" 1 1' "$SPIN" 2>"$TMP/err2.txt" >"$TMP/stream.data" ||
	fail "psrec -o - failed"
# (the command line, which the stream records, says HELLO$((6 * 7)), not HELLO42)
grep -q HELLO42 "$TMP/err2.txt" || fail "the command's stdout did not go to stderr"
grep -q HELLO42 "$TMP/stream.data" && fail "the command's output is mixed into the stream"
[ "$(head -c 8 "$TMP/stream.data")" = PERFILE2 ] || fail "stream does not start with the magic"
"$PERF" script -i - <"$TMP/stream.data" 2>"$TMP/perf.err" >"$TMP/script.txt"
no_perf_warnings "perf script -i -"
grep -q 'hot_a' "$TMP/script.txt" || fail "perf script -i - shows no hot_a"
"$PERF" report -i - --header-only <"$TMP/stream.data" 2>/dev/null | grep -q "^# hostname : $(uname -n)" ||
	fail "pipe header features missing"
pd=$("$PDCHECK" - <"$TMP/stream.data") || fail "psrec's reader rejects the stream"
[ "$(pd_value samples "$pd")" = "$(wc -l <"$TMP/script.txt")" ] || fail "reader and perf script disagree on the sample count"

# Compressed and piped; and two events, named through the pipe.
"$PSREC" -q -z -e cpu-clock -e task-clock -o - -- "$SPIN" 1 2 | report -i - --no-children --sort sym >"$TMP/r2.txt"
no_perf_warnings "-z -o -"
grep -q "of event 'task-clock'" "$TMP/r2.txt" || fail "event names lost in the pipe"
grep -q hot_a "$TMP/r2.txt" || fail "-z -o -: no hot_a"

# A reader that goes away: psrec stops with a clear message, exit 1.
"$PSREC" -e cpu-clock -F 10000 -o - -- "$SPIN" 3 2 2>"$TMP/err3.txt" | head -c 1000 >/dev/null || true
grep -q '^psrec: the reader of standard output went away' "$TMP/err3.txt" || fail "no message when the pipe closes: $(cat "$TMP/err3.txt")"
echo "ok: pipe output"
