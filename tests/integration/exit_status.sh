#!/bin/bash
# psrec exits with the command's status (128+N for signal N) and records it.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

code=0
"$PSREC" -q -e cpu-clock -o "$TMP/a.data" -- sh -c 'exit 3' || code=$?
[ "$code" = 3 ] || fail "exit status $code, expected 3"
[ -s "$TMP/a.data" ] || fail "no file for a failing command"
report -i "$TMP/a.data" >/dev/null
no_perf_warnings "file of a command that exited 3"

code=0
"$PSREC" -q -e cpu-clock -o "$TMP/b.data" -- sh -c 'kill -TERM $$' || code=$?
[ "$code" = 143 ] || fail "exit status $code, expected 143 (SIGTERM)"

code=0
"$PSREC" -q -e cpu-clock -o "$TMP/c.data" -- true || code=$?
[ "$code" = 0 ] || fail "exit status $code for true"

echo "ok: exit statuses passed through"
