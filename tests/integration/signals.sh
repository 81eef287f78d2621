#!/bin/bash
# SIGTERM/SIGINT/SIGHUP sent to psrec alone stop the recording, finish a
# valid file, and leave the command running. A terminal Ctrl-C reaches the
# command; psrec keeps recording until the command exits.
. "$(dirname "$0")/lib.sh"
need_perf

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
	kill -0 "$child" 2>/dev/null || fail "SIG$sig: the command died with psrec"
	kill -KILL "$child" 2>/dev/null || true
	txt=$(report -i "$out" --no-children --sort sym)
	no_perf_warnings "after SIG$sig"
	grep -q 'hot_a' <<<"$txt" || fail "SIG$sig: file has no hot_a samples"
	grep -q '^psrec: wrote' "$TMP/psrec.err" || fail "SIG$sig: no summary"
done

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
