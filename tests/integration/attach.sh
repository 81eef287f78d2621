#!/bin/bash
# psrec -p on a running spin: perf attributes the samples to spin's binary
# and functions, names the comm, and the split is 60/30/10. -t records just
# the threads given.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

bg_start "$SPIN" 10 2
# spin 10 2 runs as 3 threads: main, its timekeeper and a second worker
wait_until "tasks_at_least $BG_PID 3 && runs $BG_PID spin" 30 "spin to start its threads"
out="$TMP/p.data"
# Two CPU seconds of spin's, however long the machine takes to give them.
record_cpu 200 "$BG_PID" "$TMP/psrec.err" -e cpu-clock -p "$BG_PID" -o "$out"
grep -q "^psrec: wrote .* to $out ([0-9]* samples, 0 lost)$" "$TMP/psrec.err" || fail "summary: $(cat "$TMP/psrec.err")"

dso=$(report -i "$out" --no-children --sort dso)
no_perf_warnings "perf report -p"
spin_pct=$(awk '$0 !~ /^#/ && $2 == "spin" { sub("%", "", $1); print $1 }' <<<"$dso")
awk -v p="${spin_pct:-0}" 'BEGIN { exit !(p >= 95) }' || fail "only ${spin_pct:-0}% of samples in spin's binary: $dso"
txt=$(report -i "$out" --no-children --sort sym)
assert_near "$(sym_pct hot_a <<<"$txt")" 60 5 "hot_a share (attached)"
assert_near "$(sym_pct hot_b <<<"$txt")" 30 5 "hot_b share (attached)"
assert_near "$(sym_pct hot_c <<<"$txt")" 10 5 "hot_c share (attached)"
comms=$("$PERF" script -i "$out" -F comm 2>/dev/null | sort -u | tr -d ' ')
[ "$comms" = spin ] || fail "comms in the recording: $comms"
n=$(report -i "$out" | report_samples)
[ "$n" -ge 4000 ] || fail "only $n samples in 2 s of spin's CPU at 4000 Hz"

# -t: one thread only.
tids=$(ls "/proc/$BG_PID/task")
one=$(echo "$tids" | tail -1)
record_cpu 50 "$BG_PID" "$TMP/t.err" -e cpu-clock -t "$one" -o "$TMP/t.data"
seen=$("$PERF" script -i "$TMP/t.data" -F tid 2>/dev/null | tr -d ' ' | sort -u)
[ "$seen" = "$one" ] || fail "-t $one recorded threads: $seen"
echo "ok: attach to a running process"
