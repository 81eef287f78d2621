#!/bin/bash
# Ways an attached recording ends: the target exits (psrec notices via
# pidfd and finishes by itself), --duration, and -a for a while with two
# workloads running (both show up).
. "$(dirname "$0")/lib.sh"
need_perf

bg_start "$SPIN" 1 1
out="$TMP/exit.data"
start=$(date +%s.%N)
timeout 10 "$PSREC" -q -e cpu-clock -p "$BG_PID" -o "$out" || fail "psrec -p exited $? when the target ended"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 3) }' || fail "psrec took $(awk -v s="$start" -v e="$end" 'BEGIN{print e-s}') s to notice the exit"
grep -q hot_a <(report -i "$out" --no-children --sort sym) || fail "no samples before the target exited"
no_perf_warnings "target exited"

# --duration 1 ends after about a second (loose bound: not a benchmark).
bg_start "$SPIN" 10 1
start=$(date +%s.%N)
"$PSREC" -q -e cpu-clock -p "$BG_PID" --duration 1 -o "$TMP/d.data" || fail "--duration run failed"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { d = e - s; exit !(d >= 0.9 && d < 3) }' ||
	fail "--duration 1 took $(awk -v s="$start" -v e="$end" 'BEGIN{print e-s}') s"
kill -0 "$BG_PID" 2>/dev/null || fail "the target died with the recording"
report -i "$TMP/d.data" >/dev/null
no_perf_warnings "--duration"

# --duration with a command: stops recording, the command goes on.
start=$(date +%s.%N)
"$PSREC" -q -e cpu-clock --duration 0.5 -o "$TMP/dc.data" -- "$SPIN" 3 1 || fail "--duration with a command failed"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 2) }' || fail "--duration 0.5 with a command did not stop early"

# -a: every process, while two different workloads run.
bg_start "$SPIN" 3 1
bg_start "$MANYTHREADS" 0 0 3
sleep 0.2
"$PSREC" -q -e cpu-clock -a --duration 1 -o "$TMP/a.data" || fail "psrec -a failed"
txt=$(report -i "$TMP/a.data" --no-children --sort comm,sym)
no_perf_warnings "-a"
grep -q 'spin .*hot_a' <<<"$txt" || fail "-a: no spin samples"
grep -q 'manythreads .*busy_main' <<<"$txt" || fail "-a: no manythreads samples"
"$PDCHECK" "$TMP/a.data" >/dev/null || fail "psrec's reader rejects the -a file"

# -C: only the listed CPU.
"$PSREC" -q -e cpu-clock -a -C 0 --duration 0.5 -o "$TMP/c.data" || fail "psrec -a -C 0 failed"
cpus=$("$PERF" script -i "$TMP/c.data" -F cpu 2>/dev/null | tr -d ' []' | sort -u)
[ "$cpus" = 000 ] || fail "-C 0 recorded CPUs: $cpus"
echo "ok: attached recordings end cleanly"
