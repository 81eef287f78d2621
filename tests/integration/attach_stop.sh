#!/bin/bash
# Ways an attached recording ends: the target exits (psrec notices via
# pidfd and finishes by itself), --duration, and -a for a while with two
# workloads running (both show up).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

bg_start "$SPIN" 1 1
out="$TMP/exit.data"
# No --duration: only noticing the exit ends it (124: the timeout did).
code=0
timeout 60 "$PSREC" -q -e cpu-clock -p "$BG_PID" -o "$out" || code=$?
[ "$code" != 124 ] || fail "psrec did not notice the exit of the target within 60 s"
[ "$code" = 0 ] || fail "psrec -p exited $code when the target ended"
grep -q hot_a <(report -i "$out" --no-children --sort sym) || fail "no samples before the target exited"
no_perf_warnings "target exited"

# --duration 1 ends the recording, not the target (which runs 30 s; the
# timeout only bounds a hang).
bg_start "$SPIN" 30 1
code=0
timeout 60 "$PSREC" -q -e cpu-clock -p "$BG_PID" --duration 1 -o "$TMP/d.data" || code=$?
[ "$code" = 0 ] || fail "--duration run failed (exit $code; 124: it did not end)"
kill -0 "$BG_PID" 2>/dev/null || fail "the target died with the recording"
# What it recorded is at most about a second of one thread at 4000 Hz
# (CPU time, so a loaded machine only lowers it): not the whole run.
n=$(report -i "$TMP/d.data" | report_samples)
awk -v n="${n:-0}" 'BEGIN { exit !(n > 0 && n < 8000) }' || fail "--duration 1 recorded ${n:-0} samples"
report -i "$TMP/d.data" >/dev/null
no_perf_warnings "--duration"

# --duration with a command: stops recording, the command goes on.
code=0
timeout 60 "$PSREC" -q -e cpu-clock --duration 0.5 -o "$TMP/dc.data" -- "$SPIN" 3 1 || code=$?
[ "$code" = 0 ] || fail "--duration with a command failed (exit $code)"
# Stopped early: at most about 0.5 s of samples, where the whole 3 s
# command would give 12000 (CPU time: load only lowers the count).
n=$(report -i "$TMP/dc.data" | report_samples)
awk -v n="${n:-0}" 'BEGIN { exit !(n > 0 && n < 6000) }' ||
	fail "--duration 0.5 with a command did not stop early: ${n:-0} samples"

# -a: every process, while two different workloads run.
bg_start "$SPIN" 3 1
spin_pid=$BG_PID
bg_start "$MANYTHREADS" 0 0 3
wait_until "runs $spin_pid spin && runs $BG_PID manythreads" 30 "spin and manythreads to start"
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
