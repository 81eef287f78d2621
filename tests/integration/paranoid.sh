#!/bin/bash
# An unprivileged user under perf_event_paranoid 2 may not sample the
# kernel: psrec says so in one line and records user space only (events
# get ":u"), and perf reads the result.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

[ "$(id -u)" = 0 ] || skip "needs root to run psrec as another user"
command -v setpriv >/dev/null || skip "setpriv(1) is needed"
par=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$par" -lt 2 ]; then
	echo 2 >/proc/sys/kernel/perf_event_paranoid || skip "cannot set perf_event_paranoid"
	trap 'echo "$par" >/proc/sys/kernel/perf_event_paranoid; rm -rf "$TMP"' EXIT
fi
# The build tree must be reachable by nobody.
setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$PSREC" ||
	skip "the build directory is not accessible to user nobody"

chmod 777 "$TMP"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
as_nobody "$PSREC" -e cpu-clock -o "$TMP/u.data" -- "$SPIN" 1 1 2>"$TMP/psrec.err" ||
	fail "psrec as nobody failed: $(cat "$TMP/psrec.err")"
grep -q '^psrec: kernel samples not permitted (perf_event_paranoid is [2-9]); recording user space only$' "$TMP/psrec.err" ||
	fail "no fallback notice: $(cat "$TMP/psrec.err")"
[ "$(grep -c 'not permitted' "$TMP/psrec.err")" = 1 ] || fail "notice repeated"
txt=$(as_nobody "$PERF" report -i "$TMP/u.data" --stdio --no-children --sort sym 2>"$TMP/perf.err")
no_perf_warnings "user-only recording"
grep -q "of event 'cpu-clock:u'" <<<"$txt" || fail "event is not named cpu-clock:u"
grep -q '\[k\]' <<<"$txt" && fail "kernel samples in a user-only recording"
assert_near "$(sym_pct hot_a <<<"$txt")" 60 5 "hot_a share (user only)"

# An explicit kernel-only event is not silently changed: it is refused.
code=0
as_nobody "$PSREC" -e cpu-clock:k -o "$TMP/k.data" -- true 2>"$TMP/psrec.err" || code=$?
[ "$code" = 1 ] || fail "cpu-clock:k as nobody: exit $code"
grep -q "not allowed to sample 'cpu-clock:k' in kernel mode (perf_event_paranoid is [0-9]*): use :u" "$TMP/psrec.err" ||
	fail "unclear refusal: $(cat "$TMP/psrec.err")"
[ ! -e "$TMP/k.data" ] || fail "file left behind after a refused start"
echo "ok: user-space fallback"
