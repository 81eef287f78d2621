#!/bin/bash
# The live status line appears on a terminal only; lost samples are counted,
# reported, and answered with a suggestion.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

# Not a terminal: no status text at all.
"$PSREC" -e cpu-clock -o "$TMP/n.data" -- "$SPIN" 1.2 1 2>"$TMP/err.txt" || fail "psrec failed"
grep -q $'\r' "$TMP/err.txt" && fail "status line written to a non-terminal"
[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "unexpected output: $(cat "$TMP/err.txt")"

# A terminal: a refreshed status line, erased before the summary.
command -v script >/dev/null || skip "script(1) is needed for the terminal test"
# script(1) runs its command with $SHELL, which may be unset or empty.
export SHELL=$BASH
script -qec "\"$PSREC\" -e cpu-clock -o \"$TMP/t.data\" -- \"$SPIN\" 1.6 1" /dev/null >"$TMP/tty.txt" </dev/null
grep -Eq $'\rpsrec: [0-9]+\\.[0-9] s, [0-9]+ samples, [0-9.]+ [KM]B, 0 lost' "$TMP/tty.txt" ||
	fail "no status line on the terminal: $(od -c "$TMP/tty.txt" | head)"
grep -q $'\r\033\[Kpsrec: wrote' "$TMP/tty.txt" || fail "status line not erased before the summary"

# Loss: freeze psrec while a tiny ring overflows, then let it finish.
out="$TMP/l.data"
"$PSREC" -e cpu-clock -F 20000 -m 1 -o "$out" -- "$SPIN" 2 2 2>"$TMP/err.txt" &
pid=$!
wait_until "pgrep -P $pid spin >/dev/null && has_samples $out" 30 "samples in the live $out"
child=$(pgrep -P "$pid" spin)
kill -STOP "$pid"
# Frozen while spin burns 0.2 s of CPU (20 ticks at 100 Hz): at 20000 Hz
# that is some 4000 samples, and a one-page ring holds about 100.
t0=$(cpu_ticks "$child")
poll_until "[ \$(cpu_ticks $child) -ge $((t0 + 20)) ]" 60 ||
	{ kill -CONT "$pid"; fail "spin did not run while psrec was stopped"; }
kill -CONT "$pid"
wait "$pid" || fail "psrec failed after SIGSTOP/SIGCONT: $(cat "$TMP/err.txt")"
lost=$(sed -n 's/^psrec: wrote .* samples, \([0-9]*\) lost)$/\1/p' "$TMP/err.txt")
[ "${lost:-0}" -gt 0 ] || fail "no loss reported: $(cat "$TMP/err.txt")"
grep -q '^psrec: samples were lost: use a larger ring (-m 4) or a lower frequency (-F)$' "$TMP/err.txt" ||
	fail "no advice after loss: $(cat "$TMP/err.txt")"
# perf reports the kernel's LOST records as lost chunks.
report -i "$out" --no-children --sort sym | grep -q hot_a || fail "no samples around the loss"
grep -Eq 'Processed [0-9]+ events and lost [1-9][0-9]* chunks' "$TMP/perf.err" || fail "perf sees no loss: $(cat "$TMP/perf.err")"
echo "ok: status line and loss reporting ($lost lost)"
