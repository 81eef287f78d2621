#!/bin/bash
# Bad attach targets: one clear line, exit 2 (usage) or 1 (runtime), no new
# output file, an existing one untouched.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

mkdir "$TMP/run"
cd "$TMP/run" || fail "cd"
echo keep >existing.data

# expect CODE PATTERN ARGS...
expect() {
	local code=$1 pattern=$2
	shift 2
	local got=0
	"$PSREC" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt" || got=$?
	[ "$got" = "$code" ] || fail "psrec $*: exit $got, expected $code ($(cat "$TMP/err.txt"))"
	[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "psrec $*: expected one line, got: $(cat "$TMP/err.txt")"
	grep -Eq "^psrec: .*$pattern" "$TMP/err.txt" || fail "psrec $*: '$(cat "$TMP/err.txt")' lacks '$pattern'"
	[ "$(ls -A)" = existing.data ] || fail "psrec $*: left files: $(ls -A)"
	[ "$(cat existing.data)" = keep ] || fail "psrec $*: changed the existing output"
}

gone=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e "/proc/$gone" ]; do gone=$((gone - 1)); done
expect 1 "process $gone does not exist" -p "$gone" -o existing.data
expect 1 "thread $gone does not exist" -t "$gone" -o existing.data
expect 2 "-p '0': process ids start at 1" -p 0 -o existing.data
expect 2 "-p 'abc': expected process ids" -p abc -o existing.data
expect 2 "-p '-5': expected process ids" -p -5 -o existing.data
expect 2 "-p: empty list" -p "" -o existing.data
expect 2 "-p '1,': trailing comma" -p 1, -o existing.data
expect 2 "-C 99: CPU 99 is not online" -a -C 99 -o existing.data
expect 2 "-C 'x': expected a CPU list" -a -C x -o existing.data
expect 2 "-p and a command cannot be combined" -p 1 -o existing.data -- true
expect 2 "-a and a command cannot be combined" -a -o existing.data true
expect 2 "-a records every process already; drop -p" -a -p 1 -o existing.data
expect 2 "--duration 'soon'" --duration soon -p 1 -o existing.data
expect 2 "--duration '0'" --duration 0 -p 1 -o existing.data
expect 2 "no command given" -o existing.data

# A zombie: a child that exited and whose parent (now sleep) never reaps it.
# (The child's 0.1 s and the parent's 30 s are how long each lives.)
bg_start sh -c 'sleep 0.1 & exec sleep 30'
zombie_of() { ps -o pid=,stat= --ppid "$1" | awk '$2 ~ /^Z/ { print $1 }'; }
has_zombie() { [ -n "$(zombie_of "$1")" ]; }
wait_until "has_zombie $BG_PID" 30 "a zombie child of $BG_PID"
zombie=$(zombie_of "$BG_PID")
[ -n "$zombie" ] || fail "could not make a zombie"
expect 1 "process $zombie \\(sleep\\) is a zombie" -p "$zombie" -o existing.data

# A thread id given to -p.
bg_start "$SPIN" 5 2
wait_until "tasks_at_least $BG_PID 2" 30 "spin to start a thread"
thread=""
for t in "/proc/$BG_PID/task/"*; do
	[ "${t##*/}" = "$BG_PID" ] || { thread=${t##*/}; break; }
done
expect 1 "$thread is a thread of process $BG_PID: use -p $BG_PID" -p "$thread" -o existing.data
echo "ok: bad attach targets rejected"
