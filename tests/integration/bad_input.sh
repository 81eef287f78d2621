#!/bin/bash
# Bad input to every subcommand, one case per line: the exit code (2 usage,
# 1 runtime, 126/127 the command cannot be run / is not found), exactly one
# line on stderr that names the bad thing, nothing on stdout, and the
# perf.data and perf.data.old already in the working directory unchanged
# (no rename, no rewrite) with no other file left behind.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

W="$TMP/w"
mkdir "$W" || fail "cannot create $W"
cd "$W" || fail "cannot enter $W"

# Fixtures. perf.data is not a perf.data (recover must refuse it unchanged).
head -c 6000 /dev/urandom >perf.data
head -c 4000 /dev/urandom >perf.data.old
mkdir adir
: >empty.data
printf '#!/bin/sh\n' >noexec.sh
chmod 644 noexec.sh
printf '#!/nonexistent/sh\necho never\n' >badinterp.sh
chmod 755 badinterp.sh
printf '#!%s\n' "$W/adir" >dirinterp.sh
chmod 755 dirinterp.sh
sha256sum perf.data perf.data.old >"$TMP/sums"
fixtures=$(find . -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)

# Values the table refers to (expanded by eval below).
# shellcheck disable=SC2034  # read through the table's eval
MAXRATE1=$(($(cat /proc/sys/kernel/perf_event_max_sample_rate) + 1))
# shellcheck disable=SC2034  # read through the table's eval
E65=$(for _ in $(seq 65); do printf -- '-e cpu-clock '; done)
bg_start sleep 60                       # a process with one thread...
# shellcheck disable=SC2034  # read through the table's eval
SLEEPER=$BG_PID
bg_start sh -c 'sleep 0 & exec sleep 60' # ...whose child exits unreaped
zombie_of() { ps -o pid=,stat= --ppid "$1" | awk '$2 ~ /^Z/ { print $1 }'; }
has_zombie() { [ -n "$(zombie_of "$1")" ]; }
poll_until "has_zombie $BG_PID" 30
ZOMBIE=$(zombie_of "$BG_PID")
[ -n "$ZOMBIE" ] || fail "could not make a zombie"
bg_start "$SPIN" 60 2                   # a process with threads
SPINNER=$BG_PID
THREAD=""
poll_until "tasks_at_least $SPINNER 2" 30
for t in "/proc/$SPINNER/task/"*; do
	[ "${t##*/}" = "$SPINNER" ] || { THREAD=${t##*/}; break; }
done
[ -n "$THREAD" ] || fail "spin started no thread"

# Rows that need perf_event_open run only where the kernel allows it.
have_perf() {
	"$PSREC" -q -e cpu-clock -o "$TMP/probe.data" -- true >/dev/null 2>&1
}
PERF_OK=0
have_perf && PERF_OK=1
rm -f "$TMP/probe.data"
# A machine without a hardware PMU refuses cycles (cli_errors.sh checks the same).
NOPMU=0
[ "$PERF_OK" = 1 ] && ! "$PERF" stat -e cycles -x, true 2>&1 | grep -q '^[0-9]' && NOPMU=1

# need | exit | stderr must contain (a fixed string, no '|'; $VARS expanded) | arguments
# need: - always, perf (perf_event_open allowed), nopmu (no hardware PMU).
cases=$(cat <<'EOF'
-     | 2   | unknown option '--bogus'                                 | --bogus true
-     | 2   | unknown option '-j'                                      | -j true
-     | 2   | option '-F' needs an argument                            | -F
-     | 2   | -F 'abc': expected a frequency                           | -F abc true
-     | 2   | -F '0'                                                   | -F 0 true
-     | 2   | -F $MAXRATE1 is above the kernel's maximum sample rate   | -F $MAXRATE1 true
-     | 2   | -F and -c both given                                     | -F 99 -c 1000 true
-     | 2   | -c 'x': expected a sample period                         | -c x true
-     | 2   | -c '0': expected a sample period                         | -c 0 true
-     | 2   | -c 18446744073709551615: sample period too large         | -c 18446744073709551615 true
-     | 2   | -c 9223372036854775808: sample period too large          | -c 9223372036854775808 true
-     | 2   | -c 99999999999999999999: sample period too large         | -c 99999999999999999999 true
-     | 2   | unknown event 'nosuchevent'                              | -e nosuchevent true
-     | 2   | unknown modifier 'q'                                     | -e cpu-clock:q true
-     | 2   | empty event name                                         | -e cpu-clock,,task-clock true
-     | 2   | too many events (65); psrec records at most 64           | $E65 true
-     | 2   | -m 3: the number of pages must be a power of two         | -m 3 true
-     | 2   | -m 'lots'                                                | -m lots true
-     | 2   | -m 2097152: too large                                    | -m 2097152 true
-     | 2   | -k 'sundial': unknown clock                              | -k sundial true
-     | 2   | -o: empty file name                                      | -o '' true
-     | 2   | -o: empty file name; give a file name, or - for standard output | fold -o ''
-     | 2   | -o: empty file name; give a file name, or - for standard output | flamegraph -o ''
-     | 2   | -o: empty file name; give a file name, or - for standard output | pprof -o ''
-     | 2   | -o: empty file name; give a file name, or - for standard output | archive -o ''
-     | 2   | -i: empty file name; give a recording, or - for standard input | fold -i ''
-     | 2   | -i: empty file name; give a recording, or - for standard input | flamegraph -i ''
-     | 2   | -i: empty file name; give a recording, or - for standard input | pprof -i ''
-     | 2   | -i: empty file name; give a recording, or - for standard input | archive -i ''
-     | 2   | -i: empty file name; give a recording, or - for standard input | markers -i ''
-     | 2   | --buildid-dir: empty directory name; give a directory    | fold --buildid-dir ''
-     | 2   | --symfs: empty directory name; give a directory          | fold --symfs=''
-     | 2   | --buildid-dir: empty directory name; give a directory    | flamegraph --buildid-dir ''
-     | 2   | --symfs: empty directory name; give a directory          | flamegraph --symfs=''
-     | 2   | --buildid-dir: empty directory name; give a directory    | pprof --buildid-dir ''
-     | 2   | --symfs: empty directory name; give a directory          | pprof --symfs=''
-     | 2   | flamegraph --diff: empty file name                       | flamegraph --diff '' perf.data
-     | 2   | recover takes one perf.data file                         | recover ''
-     | 2   | --duration '0x10': expected a decimal number             | --duration 0x10 true
-     | 2   | --duration 'inf'                                         | --duration inf true
-     | 2   | --duration 'nan'                                         | --duration nan true
-     | 2   | --duration '0'                                           | --duration 0 true
-     | 2   | --duration '-1'                                          | --duration -1 true
-     | 2   | --duration '2e9': too long                               | --duration 2e9 true
-     | 2   | --compression-level '23'                                 | --compression-level=23 true
-     | 2   | --compression-level 'fast'                               | --compression-level=fast true
-     | 2   | --call-graph dwarf,7: stack size too small               | --call-graph dwarf,7 true
-     | 2   | --call-graph 'nonsense'                                  | --call-graph nonsense true
-     | 2   | --max-stack limits call chains: add -g                   | --max-stack 5 true
-     | 2   | --max-stack '0'                                          | -g --max-stack 0 true
-     | 2   | -p 'abc'                                                 | -p abc
-     | 2   | -p '0': process ids start at 1                           | -p 0
-     | 2   | -p '1,': trailing comma                                  | -p 1,
-     | 2   | -p '2147483648': process id out of range                 | -p 2147483648
-     | 2   | -t 'x'                                                   | -t x
-     | 2   | -a records every process already; drop -p               | -a -p 1
-     | 2   | -p and a command cannot be combined                      | -p 1 true
-     | 2   | -C 'x': expected a CPU list                              | -a -C x
-     | 2   | -C 99999: CPU 99999 is not online                        | -a -C 99999
-     | 2   | no command given                                         | -e cpu-clock
-     | 2   | no command given                                         |
-     | 127 | nosuchcommand-psrec: command not found                   | nosuchcommand-psrec
-     | 127 | ./missing/binary: command not found                      | ./missing/binary
-     | 126 | ./noexec.sh: Permission denied                           | ./noexec.sh
-     | 126 | ./adir: Permission denied                                | ./adir
-     | 126 | ./badinterp.sh: bad interpreter /nonexistent/sh: No such file or directory | ./badinterp.sh
-     | 126 | dirinterp.sh: bad interpreter $W/adir: Permission denied | ./dirinterp.sh
-     | 1   | cannot create /nonexistent-dir/x.data: No such file or directory | -o /nonexistent-dir/x.data true
-     | 1   | cannot create perf.data.old/x: Not a directory           | -o perf.data.old/x true
-     | 1   | cannot write adir: it is a directory                     | -o adir true
-     | 1   | process 2147483647 does not exist                        | -p 2147483647
-     | 1   | thread 2147483647 does not exist                         | -t 2147483647
-     | 1   | process $ZOMBIE (sleep) is a zombie                      | -p $ZOMBIE
-     | 1   | process 2147483647 does not exist                        | -p $SLEEPER,2147483647
-     | 1   | $THREAD is a thread of process $SPINNER                  | -p $THREAD
-     | 2   | recover takes one perf.data file                         | recover
-     | 2   | recover takes one perf.data file                         | recover perf.data perf.data.old
-     | 2   | recover takes one perf.data file                         | recover -x
-     | 1   | cannot open nosuch.data: No such file or directory       | recover nosuch.data
-     | 1   | perf.data is not a perf.data file (bad magic or header size); nothing changed | recover perf.data
-     | 1   | perf.data.old is not a perf.data file                    | recover perf.data.old
-     | 1   | empty.data is not a perf.data file (shorter than a perf.data header) | recover empty.data
-     | 1   | cannot open adir: Is a directory                         | recover adir
-     | 1   | /dev/null is not a perf.data file (not a regular file)   | recover /dev/null
nopmu | 1   | event 'cycles' is not supported on this machine          | -e cycles true
nopmu | 1   | event 'instructions:u' is not supported                  | -e cpu-clock,instructions:u true
EOF
)

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

n=0 skipped=0
while IFS= read -r row; do
	IFS='|' read -r need code pattern args <<<"$row"
	need=$(trim "$need") code=$(trim "$code")
	pattern=$(eval "printf '%s' \"$(trim "$pattern")\"")
	case $need in
	perf|nopmu)
		if [ "$PERF_OK" != 1 ]; then
			[ "${PSREC_REQUIRE_PERF:-0}" = 1 ] && fail "PSREC_REQUIRE_PERF=1 but perf_event_open is refused"
			skipped=$((skipped + 1))
			continue
		fi
		if [ "$need" = nopmu ] && [ "$NOPMU" != 1 ]; then
			skipped=$((skipped + 1))
			continue
		fi ;;
	esac
	eval "set -- $args"
	got=0
	"$PSREC" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt" || got=$?
	what="psrec $(trim "$args")"
	err=$(cat "$TMP/err.txt")
	[ "$got" = "$code" ] || fail "$what: exit $got, expected $code ($err)"
	[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "$what: expected one line on stderr, got: $err"
	[[ $err == "psrec: "* ]] || fail "$what: stderr does not start with 'psrec: ': $err"
	[[ $err == *"$pattern"* ]] || fail "$what: message '$err' lacks '$pattern'"
	[ ! -s "$TMP/out.txt" ] || fail "$what: wrote to stdout: $(head -c 200 "$TMP/out.txt")"
	sha256sum --quiet -c "$TMP/sums" >/dev/null 2>&1 ||
		fail "$what: perf.data or perf.data.old changed: $(sha256sum --quiet -c "$TMP/sums" 2>&1)"
	left=$(find . -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
	[ "$left" = "$fixtures" ] || fail "$what: the directory changed: $(diff <(echo "$fixtures") <(echo "$left") | grep '^[<>]')"
	n=$((n + 1))
done <<<"$cases"

[ "$n" -ge 30 ] || fail "only $n cases ran"
echo "ok: $n bad inputs rejected cleanly ($skipped skipped: need perf_event_open or a machine without a PMU)"
