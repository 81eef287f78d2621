#!/bin/bash
# -p on a process whose main thread has exited (pthread_exit) while another
# thread runs: /proc shows the leader as a zombie with no mappings, yet the
# process lives. psrec records its live thread until the process exits,
# and the samples resolve through that thread's mappings (perf record -p
# records them too, but leaves them unresolved).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

cd "$TMP" || fail "cannot enter $TMP"
bg_start "$ZOMBIELEADER" 2.5
poll_until "grep -q '^State:.Z' /proc/$BG_PID/status 2>/dev/null" 30
grep -q '^State:.Z' "/proc/$BG_PID/status" || fail "the leader of $BG_PID did not exit"
[ ! -s "/proc/$BG_PID/maps" ] || echo "note: this kernel still shows the zombie leader's maps"

# -t names threads: the leader thread itself has nothing left to record.
code=0
"$PSREC" -q -e cpu-clock -t "$BG_PID" -o t.data 2>err.txt || code=$?
{ [ "$code" = 1 ] && grep -q "thread $BG_PID (zombieleader) is a zombie" err.txt; } ||
	fail "-t on the zombie leader: exit $code: $(cat err.txt)"

# No --duration: the recording ends when the last thread exits.
code=0
timeout 30 "$PSREC" -q -e cpu-clock -p "$BG_PID" -o zl.data 2>err.txt || code=$?
[ "$code" = 0 ] || fail "psrec -p on a process with a zombie leader: exit $code: $(cat err.txt)"
[ ! -s err.txt ] || fail "psrec -q printed: $(cat err.txt)"
txt=$(report -i zl.data --no-children --sort sym)
no_perf_warnings "zombie leader"
n=$(report_samples <<<"$txt")
[ "${n:-0}" -gt 500 ] || fail "only ${n:-0} samples of a thread burning CPU for 2 s"
pct=$(sym_pct zl_burn <<<"$txt")
[ -n "$pct" ] || fail "zl_burn not in the profile: $(grep -v '^#' <<<"$txt" | head -5)"
awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' || fail "zl_burn has $pct% of the samples, expected >= 90%"
"$PDCHECK" zl.data >/dev/null || fail "psrec's reader rejects the file"
echo "ok: a process whose leader exited is recorded through its live thread"
