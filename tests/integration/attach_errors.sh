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

# A kernel thread (issue 22: -p 2 recorded 0 samples without a word): its
# samples can only be kernel ones, which psrec says; with every event :u
# there is nothing to record, which psrec refuses. (Without root, kernel
# samples are refused first: doctor.sh.)
if [ "$(id -u)" = 0 ]; then
	expect 1 "process 2 \\(kthreadd\\) is a kernel thread, and every event excludes the kernel \\(:u\\): nothing would be recorded; drop the u modifier" \
		-e cpu-clock:u -p 2 --duration 1 -o existing.data
	for opt in -p -t; do
		what=process
		[ "$opt" = -t ] && what=thread
		"$PSREC" -e cpu-clock "$opt" 2 --duration 0.3 -o "$TMP/k.data" 2>"$TMP/k.err" ||
			fail "psrec $opt 2: exit $?: $(cat "$TMP/k.err")"
		grep -qx "psrec: $what 2 (kthreadd) is a kernel thread: its samples are all kernel samples, taken only while it runs (an idle one records none)" \
			"$TMP/k.err" || fail "psrec $opt 2: no word that it is a kernel thread: $(cat "$TMP/k.err")"
		[ "$(grep -c 'kernel thread' "$TMP/k.err")" = 1 ] || fail "psrec $opt 2: said more than once: $(cat "$TMP/k.err")"
		# What it did record, if anything, is kernel code.
		"$PERF" script -i "$TMP/k.data" -F dso 2>"$TMP/perf.err" >"$TMP/k.txt"
		grep -v -e '^ *$' -e 'kernel\.kallsyms' "$TMP/k.txt" && fail "psrec $opt 2: a user-space sample of kthreadd"
	done
fi
echo "ok: bad attach targets rejected"
