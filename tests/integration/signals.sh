#!/bin/bash
# SIGTERM/SIGINT/SIGHUP sent to psrec alone stop the recording, finish a
# valid file, then end the command with SIGTERM, as perf record does. A
# terminal Ctrl-C reaches the command; psrec keeps recording until the
# command exits.
. "$(dirname "$0")/lib.sh"
need_perf

# gone PID: true once PID has exited (waits up to 2 s; psrec reaps its
# child before it exits, so this only covers the test's own timing).
gone() {
	for _ in $(seq 20); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

for sig in TERM INT HUP; do
	out="$TMP/$sig.data"
	"$PSREC" -e cpu-clock -o "$out" -- "$SPIN" 4 1 2>"$TMP/psrec.err" &
	pid=$!
	sleep 1
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
"$PSREC" -e cpu-clock -o "$out" -- sh -c 'trap "" TERM; exec "$0" 30 1' "$SPIN" 2>"$TMP/psrec.err" &
pid=$!
sleep 1
child=$(pgrep -P "$pid" spin || true)
[ -n "$child" ] || fail "stubborn: no spin child under psrec"
kill -TERM "$pid"
for _ in $(seq 50); do grep -q 'still running' "$TMP/psrec.err" && break; sleep 0.1; done
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
start=$(date +%s.%N)
code=0
"$PSREC" -q -e cpu-clock --duration 0.5 -o "$out" -- "$SPIN" 29 1 || code=$?
end=$(date +%s.%N)
[ "$code" = 0 ] || fail "--duration with a command: exit $code"
awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 5) }' || fail "--duration 0.5 with a command did not end it"
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
out="$TMP/tty.data"
start=$(date +%s.%N)
(sleep 0.7; printf '\003'; sleep 3) |
	script -qec "\"$PSREC\" -q -e cpu-clock -o \"$out\" -- sh -c 'trap \"\" INT; exec \"$SPIN\" 2 1'; echo rc=\$?" /dev/null >"$TMP/tty.txt"
end=$(date +%s.%N)
grep -q 'rc=0' "$TMP/tty.txt" || fail "Ctrl-C at the terminal: $(cat "$TMP/tty.txt")"
awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s >= 1.9) }' || fail "psrec stopped before the command finished"
txt=$(report -i "$out" --no-children --sort sym)
no_perf_warnings "after terminal Ctrl-C"
n=$(sed -n "s/^# Samples: \([0-9]*\).* of event.*/\1/p" <<<"$txt")
[ "${n:-0}" -ge 5 ] || fail "Ctrl-C recording has too few samples: $n"

# And a command that does not ignore it dies; psrec exits 130 with a valid file.
out="$TMP/tty2.data"
(sleep 0.7; printf '\003'; sleep 2) |
	script -qec "\"$PSREC\" -q -e cpu-clock -o \"$out\" -- \"$SPIN\" 5 1; echo rc=\$?" /dev/null >"$TMP/tty.txt"
grep -q 'rc=130' "$TMP/tty.txt" || fail "Ctrl-C killing the command: $(cat "$TMP/tty.txt")"
report -i "$out" >/dev/null
no_perf_warnings "after Ctrl-C killed the command"
echo "ok: signals handled"
