#!/bin/bash
# The permission and limits doctor, exercised as an unprivileged user
# (perf_event_paranoid 2): another user's process, -a, a kernel thread,
# a ring above the locked-memory limit, too few file descriptors.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

[ "$(id -u)" = 0 ] || skip "needs root to run psrec as another user"
command -v setpriv >/dev/null || skip "setpriv(1) is needed"
par=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$par" -lt 2 ]; then
	echo 2 >/proc/sys/kernel/perf_event_paranoid || skip "cannot set perf_event_paranoid"
	trap 'echo "$par" >/proc/sys/kernel/perf_event_paranoid; cleanup_bg' EXIT
fi
setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$PSREC" ||
	skip "the build directory is not accessible to user nobody"
chmod 777 "$TMP"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# expect CODE PATTERN ARGS... (as nobody)
expect() {
	local code=$1 pattern=$2
	shift 2
	local got=0
	as_nobody "$PSREC" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt" || got=$?
	[ "$got" = "$code" ] || fail "psrec $*: exit $got, expected $code ($(cat "$TMP/err.txt"))"
	grep -Eq "^psrec: .*$pattern" "$TMP/err.txt" || fail "psrec $*: '$(cat "$TMP/err.txt")' lacks '$pattern'"
	[ "$(wc -l <"$TMP/err.txt")" -le 2 ] || fail "psrec $*: more than two lines: $(cat "$TMP/err.txt")"
}

bg_start "$SPIN" 5 1
wait_until "runs $BG_PID spin" 30 "spin to start"
expect 1 "cannot attach to process $BG_PID \\(spin, owned by uid 0\\): sampling another user's process needs root or CAP_PERFMON" \
	-e cpu-clock -p "$BG_PID" -o "$TMP/x.data"
expect 1 "not allowed to sample all CPUs \\(-a needs perf_event_paranoid <= 0, it is [0-9]+\\)" -e cpu-clock -a -o "$TMP/x.data"
expect 1 "process 2 \\(kthreadd\\) is a kernel thread, and kernel samples are not allowed" -e cpu-clock -p 2 -o "$TMP/x.data"
[ ! -e "$TMP/x.data" ] || fail "a refused start left a file"

# A ring far above perf_event_mlock_kb + RLIMIT_MEMLOCK: psrec halves it
# until it maps, says so, and records.
as_nobody bash -c "ulimit -l 64; exec \"$PSREC\" -e cpu-clock -m 16M -o \"$TMP/m.data\" -- \"$SPIN\" 0.3 1" 2>"$TMP/err.txt" ||
	fail "psrec with a large -m failed: $(cat "$TMP/err.txt")"
grep -Eq '^psrec: a 16384 KiB ring per CPU exceeds the locked-memory limit .*; using [0-9]+ KiB$' "$TMP/err.txt" ||
	fail "no ring size notice: $(cat "$TMP/err.txt")"
grep -q hot_a <(as_nobody "$PERF" report -i "$TMP/m.data" --stdio --sort sym 2>/dev/null) || fail "shrunk-ring recording has no samples"

# Too few fds, and a hard limit the user cannot raise.
bg_start setpriv --reuid=nobody --regid=nogroup --clear-groups "$MANYTHREADS" 100 0 5
wait_until "runs $BG_PID manythreads && tasks_at_least $BG_PID 101" 30 "manythreads to start its 100 threads"
got=0
as_nobody bash -c "ulimit -n 64; exec \"$PSREC\" -e cpu-clock -p $BG_PID --duration 0.2 -o \"$TMP/f.data\"" 2>"$TMP/err.txt" || got=$?
[ "$got" = 1 ] || fail "fd shortage: exit $got ($(cat "$TMP/err.txt"))"
grep -Eq '^psrec: this recording needs [0-9]+ file descriptors \(CPUs x threads x events\) but the limit is 64: raise it with ulimit -n [0-9]+' "$TMP/err.txt" ||
	fail "fd shortage message: $(cat "$TMP/err.txt")"
# With a soft limit below but a hard limit above the need, psrec raises it.
as_nobody bash -c "ulimit -Hn 4096; ulimit -Sn 64; exec \"$PSREC\" -q -e cpu-clock -p $BG_PID --duration 0.2 -o \"$TMP/f2.data\"" 2>"$TMP/err.txt" ||
	fail "psrec did not raise its soft fd limit: $(cat "$TMP/err.txt")"
echo "ok: permission and limit problems explained"
