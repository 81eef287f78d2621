#!/bin/bash
# SIGTERM/SIGINT/SIGHUP sent to psrec alone stop the recording, finish a
# valid file, then end the command with SIGTERM, as perf record does. A
# terminal Ctrl-C reaches the command; psrec keeps recording until the
# command exits.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

# gone PID: true once PID has exited (waits up to 10 s; psrec reaps its
# child before it exits, so this only covers the test's own timing).
gone() {
	poll_until "! kill -0 $1 2>/dev/null" 10
}

for sig in TERM INT HUP; do
	out="$TMP/$sig.data"
	"$PSREC" -e cpu-clock -o "$out" -- "$SPIN" 30 1 2>"$TMP/psrec.err" &
	pid=$!
	# Signalled once spin runs under psrec and the file holds samples.
	wait_until "pgrep -P $pid spin >/dev/null && has_samples $out" 30 "samples in the live $out"
	child=$(pgrep -P "$pid" spin || true)
	[ -n "$child" ] || fail "SIG$sig: no spin child under psrec"
	kill -"$sig" "$pid"
	code=0
	wait "$pid" || code=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$code" = "$want" ] || fail "SIG$sig: psrec exited $code, expected $want"
	if ! gone "$child"; then
		kill -KILL "$child"
		fail "SIG$sig: the command outlived psrec"
	fi
	txt=$(report -i "$out" --no-children --sort sym)
	no_perf_warnings "after SIG$sig"
	grep -q 'hot_a' <<<"$txt" || fail "SIG$sig: file has no hot_a samples"
	grep -q '^psrec: wrote' "$TMP/psrec.err" || fail "SIG$sig: no summary"
done

# A command that ignores SIGTERM: psrec says it is waiting, and a second
# signal kills the command.
out="$TMP/stubborn.data"
# shellcheck disable=SC2016  # $0 is for the inner sh: spin's path
"$PSREC" -e cpu-clock -o "$out" -- sh -c 'trap "" TERM; exec "$0" 30 1' "$SPIN" 2>"$TMP/psrec.err" &
pid=$!
# sh sets its trap, then execs spin: a spin child means the trap is set.
poll_until "pgrep -P $pid spin >/dev/null" 30
child=$(pgrep -P "$pid" spin || true)
[ -n "$child" ] || fail "stubborn: no spin child under psrec"
kill -TERM "$pid"
poll_until "grep -q 'still running' $TMP/psrec.err" 30
grep -q "^psrec: sh (pid $child) is still running 1 s after SIGTERM; waiting for it (signal psrec again to kill it)$" "$TMP/psrec.err" ||
	{ kill -KILL "$child"; fail "stubborn: no waiting notice: $(cat "$TMP/psrec.err")"; }
kill -0 "$pid" 2>/dev/null || { kill -KILL "$child"; fail "stubborn: psrec did not wait for the command"; }
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[ "$code" = 143 ] || fail "stubborn: psrec exited $code, expected 143"
gone "$child" || { kill -KILL "$child"; fail "stubborn: the second signal did not kill the command"; }
report -i "$out" >/dev/null
no_perf_warnings "after the stubborn command"

# --duration with a command ends the command too; psrec exits 0.
out="$TMP/dur.data"
code=0
# The command would run 29 s; the timeout (124) only bounds a hang.
timeout 20 "$PSREC" -q -e cpu-clock --duration 0.5 -o "$out" -- "$SPIN" 29 1 || code=$?
[ "$code" != 124 ] || fail "--duration 0.5 with a command did not end it"
[ "$code" = 0 ] || fail "--duration with a command: exit $code"
pgrep -f "$SPIN 29 1" >/dev/null && { pkill -KILL -f "$SPIN 29 1"; fail "--duration: the command outlived psrec"; }
grep -q hot_a <<<"$(report -i "$out" --no-children --sort sym)" || fail "--duration: no hot_a samples"

# Ctrl-C typed at a terminal: the kernel sends SIGINT to the whole
# foreground group. The command here ignores it, so psrec must keep going
# until the command ends by itself (2 s), then exit with its status (0).
command -v script >/dev/null || skip "script(1) is needed to drive a terminal"
# script(1) runs its command with $SHELL. That shell is in the foreground
# group too; dash dies of the SIGINT before it can print psrec's status,
# bash waits for psrec and only dies if psrec did. CI has no SHELL set.
export SHELL=$BASH
# ctrl_c ERRFILE: once psrec (run with -v 2>ERRFILE) has started spin
# (a command that sets a trap first has set it once it runs spin), type
# Ctrl-C, then keep the terminal open until the command line printed rc=.
cmd_pid() { sed -n 's/^psrec: recording .* (pid \([0-9]*\)) on .*/\1/p' "$1"; }
ctrl_c() {
	wait_until "started $1" 30 "psrec's start line"
	wait_until "runs \"\$(cmd_pid $1)\" spin" 30 "spin to run under psrec"
	printf '\003'
	wait_until "grep -q rc= $TMP/tty.txt" 60 "the command line to finish"
}
out="$TMP/tty.data"
: >"$TMP/tty.txt"
: >"$TMP/tty.err"
ctrl_c "$TMP/tty.err" |
	script -qec "\"$PSREC\" -v -e cpu-clock -o \"$out\" -- sh -c 'trap \"\" INT; exec \"$SPIN\" 2 1' 2>\"$TMP/tty.err\"; echo rc=\$?" /dev/null >"$TMP/tty.txt"
grep -q 'rc=0' "$TMP/tty.txt" || fail "Ctrl-C at the terminal: $(cat "$TMP/tty.txt")"
# Recorded to the end: the command's exit is in the file.
"$PERF" script -i "$out" --show-task-events 2>/dev/null | grep -q 'PERF_RECORD_EXIT' ||
	fail "psrec stopped before the command finished"
txt=$(report -i "$out" --no-children --sort sym)
no_perf_warnings "after terminal Ctrl-C"
n=$(report_samples <<<"$txt") # ("3K of event" is 3000)
[ "${n:-0}" -ge 5 ] || fail "Ctrl-C recording has too few samples: $n"

# And a command that does not ignore it dies; psrec exits 130 with a valid file.
out="$TMP/tty2.data"
: >"$TMP/tty.txt"
: >"$TMP/tty2.err"
ctrl_c "$TMP/tty2.err" |
	script -qec "\"$PSREC\" -v -e cpu-clock -o \"$out\" -- \"$SPIN\" 5 1 2>\"$TMP/tty2.err\"; echo rc=\$?" /dev/null >"$TMP/tty.txt"
grep -q 'rc=130' "$TMP/tty.txt" || fail "Ctrl-C killing the command: $(cat "$TMP/tty.txt")"
report -i "$out" >/dev/null
no_perf_warnings "after Ctrl-C killed the command"
echo "ok: signals handled"
