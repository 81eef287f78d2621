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

# -o FIFO with no reader yet (issue 22): psrec says once that it waits for
# one, as perf record waits, and a stop signal still ends it at once, with
# a line saying so and the signal's exit status; no command ran, nothing is
# left beside the FIFO.
mkdir "$TMP/ff"
fifo="$TMP/ff/fifo"
mkfifo "$fifo"
# waiting ERRFILE: psrec said it waits for a reader.
waiting() {
	grep -q "^psrec: waiting for a reader of the FIFO $fifo " "$1"
}
for sig in TERM INT; do
	bg_start "$PSREC" -e cpu-clock -o "$fifo" -- "$SPIN" 30 1 2>"$TMP/fifo-$sig.err"
	pid=$BG_PID
	wait_until "waiting $TMP/fifo-$sig.err" 30 "psrec to wait for a reader of $fifo"
	kill -"$sig" "$pid"
	# Only bounds a hang: a psrec deaf to the signal fails here.
	poll_until "! kill -0 $pid 2>/dev/null" 30 || fail "-o FIFO, no reader: psrec ignored SIG$sig"
	code=0
	wait "$pid" || code=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$code" = "$want" ] || fail "-o FIFO, SIG$sig while waiting: exit $code, expected $want"
	grep -q "^psrec: SIG$sig while waiting for a reader of $fifo; nothing was recorded$" "$TMP/fifo-$sig.err" ||
		fail "-o FIFO, SIG$sig while waiting: $(cat "$TMP/fifo-$sig.err")"
	[ "$(grep -c "waiting for a reader of the FIFO" "$TMP/fifo-$sig.err")" = 1 ] || fail "the wait was announced more than once"
	grep -q hot_ "$TMP/fifo-$sig.err" && fail "the command ran before the FIFO had a reader"
	[ -p "$fifo" ] || fail "the FIFO was replaced"
	[ "$(ls -A "$TMP/ff")" = fifo ] || fail "left beside the FIFO: $(ls -A "$TMP/ff")"
done
# The reader comes later (mkfifo f; psrec -o f -- cmd & perf report -i - <f):
# the recording starts once it is there.
bg_start "$PSREC" -e cpu-clock -o "$fifo" -- "$SPIN" 1.5 2 2>"$TMP/fifo.err"
pid=$BG_PID
wait_until "waiting $TMP/fifo.err" 30 "psrec to wait for a reader of $fifo"
report -i - --no-children --sort sym <"$fifo" >"$TMP/fifo.txt"
code=0
wait "$pid" || code=$?
[ "$code" = 0 ] || fail "-o FIFO, reader later: exit $code: $(cat "$TMP/fifo.err")"
no_perf_warnings "perf report -i - <FIFO"
assert_near "$(sym_pct hot_a <"$TMP/fifo.txt")" 60 5 "hot_a share (FIFO, reader later)"
grep -q "^psrec: wrote .* to $fifo (" "$TMP/fifo.err" || fail "FIFO summary: $(cat "$TMP/fifo.err")"
[ "$(grep -c "waiting for a reader of the FIFO" "$TMP/fifo.err")" = 1 ] || fail "the wait was announced more than once"
echo "ok: pipe output"
