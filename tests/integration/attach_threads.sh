#!/bin/bash
# Threads a process starts after psrec attached are sampled under their
# own tids (inherit), and a process with 500 threads and 2000 mappings is
# attached without running out of fds: perf names its threads, and -v
# prints the attach time.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

# 3 threads start 1 s after the process, well after psrec attached.
bg_start "$MANYTHREADS" 0 0 2.5 3 1000
wait_until "runs $BG_PID manythreads" 30 "manythreads to start"
before=$(for t in "/proc/$BG_PID/task/"*; do echo "${t##*/}"; done | sort)
out="$TMP/late.data"
"$PSREC" -q -e cpu-clock -p "$BG_PID" -o "$out" || fail "psrec -p failed"
"$PERF" script -i "$out" -F comm,tid 2>"$TMP/perf.err" >"$TMP/script.txt"
no_perf_warnings "late threads"
late=$(awk '$1 ~ /^late-/ { print $2 }' "$TMP/script.txt" | sort -u)
[ "$(wc -w <<<"$late")" = 3 ] || fail "expected samples from 3 late threads, got tids: $late"
for t in $late; do
	grep -qx "$t" <<<"$before" && fail "tid $t existed before psrec attached"
done
grep -q 'late_work' <(report -i "$out" --no-children --sort sym) || fail "late_work not in the profile"

# 500 threads, 2000 executable mappings, and an fd limit below what that
# needs (2 CPUs x 500 threads): psrec raises its soft limit.
bg_start "$MANYTHREADS" 500 2000 4
wait_until "tasks_at_least $BG_PID 501" 60 "manythreads to start its 500 threads"
out="$TMP/many.data"
(ulimit -Sn 256; "$PSREC" -v -e cpu-clock -p "$BG_PID" --duration 1 -o "$out") 2>"$TMP/psrec.err" ||
	fail "psrec on 500 threads failed: $(cat "$TMP/psrec.err")"
grep -Eq '^psrec: attached to 50[1-9] threads of 1 processes .*attach time [0-9.]+ ms$' "$TMP/psrec.err" ||
	fail "no attach time line: $(cat "$TMP/psrec.err")"
"$PERF" script -i "$out" --show-task-events 2>"$TMP/perf.err" >"$TMP/tasks.txt"
no_perf_warnings "500 threads"
named=$(grep -c 'PERF_RECORD_COMM: idle-[0-9]*:' "$TMP/tasks.txt")
[ "$named" -ge 500 ] || fail "perf names only $named of 500 idle threads"
maps=$("$PERF" script -i "$out" --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2 .*manythreads')
[ "$maps" -ge 2000 ] || fail "only $maps mappings of manythreads synthesized"
txt=$(report -i "$out" --no-children --sort comm,sym)
grep -q 'busy_main' <<<"$txt" || fail "busy_main not resolved in the 500-thread recording"
echo "ok: new threads followed; 500 threads attached"
