#!/bin/bash
# Bad command lines: exactly one line on stderr naming the problem, exit 2
# (usage) or 1 (runtime) or 127 (no such command), and no file left behind.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

mkdir "$TMP/run" "$TMP/fix"
cd "$TMP/run" || fail "cannot enter $TMP/run"

# expect CODE PATTERN ARGS...
expect() {
	local code=$1 pattern=$2
	shift 2
	local got=0
	"$PSREC" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt" || got=$?
	[ "$got" = "$code" ] || fail "psrec $*: exit $got, expected $code ($(cat "$TMP/err.txt"))"
	[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "psrec $*: expected one line on stderr, got: $(cat "$TMP/err.txt")"
	grep -Eq "^psrec: .*$pattern" "$TMP/err.txt" || fail "psrec $*: message '$(cat "$TMP/err.txt")' lacks '$pattern'"
	[ ! -s "$TMP/out.txt" ] || fail "psrec $*: wrote to stdout"
	local left
	left=$(find "$TMP/run" "$TMP/fix" -mindepth 1 -maxdepth 1 \
		! -path "$TMP/fix/noexec.sh" ! -path "$TMP/fix/perf.data" -printf '%f\n')
	[ -z "$left" ] || fail "psrec $*: left files behind: $left"
}

expect 2 "unknown option '--bogus'" --bogus true
expect 2 "unknown option '-j'" -j true
expect 2 "option '-F' needs an argument" -F
expect 2 "-F 'abc'.*Hz" -F abc true
expect 2 "-F '0'" -F 0 true
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
expect 2 "above the kernel's maximum sample rate $max" -F $((max + 1)) true
expect 2 "-F and -c" -F 99 -c 1000 true
expect 2 "-c 'x'" -c x true
expect 2 "unknown event 'nosuchevent'; known events: cpu-clock" -e nosuchevent true
expect 2 "unknown modifier 'q'" -e cpu-clock:q true
expect 2 "empty event name" -e cpu-clock,,task-clock true
expect 2 "power of two" -m 3 true
expect 2 "-m 'lots'" -m lots true
expect 2 "unknown clock" -k sundial true
# -z's level is attached: "-z 23 -- true" must not run a command named 23.
expect 2 "-z 23: the level is written -z23 or --compression-level=23 \(a command named 23 goes after --\)" -z 23 -- true
expect 2 "-z 5: the level is written -z5" -z 5 ./prog
expect 2 "--compression-level '23': expected a zstd level from 1 to 22" -z23 true
expect 2 "no command given" -e cpu-clock
expect 2 "no command given"
expect 127 "nosuchcommand-psrec: command not found" nosuchcommand-psrec
expect 127 "command not found" ./missing/binary
printf '#!/bin/sh\n' >"$TMP/fix/noexec.sh"
chmod 644 "$TMP/fix/noexec.sh"
expect 126 "Permission denied" "$TMP/fix/noexec.sh"
expect 1 "cannot create /nonexistent-dir/x.data: No such file or directory" -o /nonexistent-dir/x.data true
expect 1 "is a directory" -o "$TMP/fix" true

# An existing output file is left untouched by a failed start.
echo keep >"$TMP/fix/perf.data"
expect 2 "unknown event" -e nosuchevent -o "$TMP/fix/perf.data" true
expect 127 "command not found" -o "$TMP/fix/perf.data" nosuchcommand-psrec
[ "$(cat "$TMP/fix/perf.data")" = keep ] || fail "a failed start changed the existing output"

# A hardware event on a machine without a PMU: one line suggesting cpu-clock.
if ! "$PERF" stat -e cycles -x, true 2>&1 | grep -q '^[0-9]'; then
	expect 1 "event 'cycles' is not supported on this machine.*use -e cpu-clock" -e cycles true
	expect 1 "event 'instructions:u' is not supported.*use -e cpu-clock" -e instructions:u true
	expect 1 "event 'cycles' is not supported" -e cpu-clock,cycles -o "$TMP/fix/perf.data" true
	echo "checked: hardware event without a PMU"
fi

# --help and --version go to stdout and exit 0.
"$PSREC" --help | grep -q '^usage: psrec' || fail "--help"
"$PSREC" --version | grep -q '^psrec [0-9]' || fail "--version"
echo "ok: bad input rejected cleanly"
