#!/bin/bash
# markers_faults.sh - what a program's marker channel may not do to the
# recording (issue 22); psrec may be root, the program is anybody:
#  - a hostile -p target's own channel, full of 4 KiB records of control
#    bytes (4x their size once escaped): psrec's peak RSS stays under
#    64 MiB, its samples are all there; a 1 GiB channel is refused with a
#    line saying so, and the recording goes on;
#  - with -z, a burst of 8000 markers in one pass (their samples outgrow a
#    compressed span): all recorded, the summary counts what is in the file;
#  - a writer that dies between reserving a marker and publishing it: the
#    channel goes on for the others, the summary counts it abandoned.
. "$(dirname "$0")/lib.sh"
need_perf
for v in MARKHOSTILE MARKBURST MARKDIE BENCHRUN; do
	[ -x "${!v:-}" ] || fail "$v is not set to a built workload"
done

# summary_markers ERRFILE: "written dropped truncated" from psrec's summary.
summary_markers() {
	sed -En 's/.*markers: ([0-9]+) written, ([0-9]+) dropped.*, ([0-9]+) truncated.*/\1 \2 \3/p' "$1" | tail -1
}
# marker_lines FILE: the psrec:marker samples perf script finds.
marker_lines() {
	"$PERF" script -i "$1" -F trace:event,trace 2>"$TMP/perf.err" | grep -c 'psrec:marker'
}
# kv KEY FILE: a value of a workload's "key=value ..." line.
kv() {
	sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$2" | tail -1
}

# ---- a hostile -p target ----------------------------------------------------

# ASan's shadow and quarantine are not psrec's: they get their own bound.
rss_limit_kb=$((64 * 1024))
if ldd "$PSREC" | grep -q libasan; then
	rss_limit_kb=$((192 * 1024))
fi

hostile() { # hostile MIB ROUNDS NAME [REFUSAL]: psrec -p on markhostile
	local mib=$1 rounds=$2 name=$3 refusal=${4:-}
	rm -f "$TMP/ready"
	bg_start "$MARKHOSTILE" "$mib" "$rounds" "$TMP/ready" >"$TMP/$name.out"
	local hpid=$BG_PID
	wait_until "test -e $TMP/ready" 30 "markhostile to make its channel"
	"$BENCHRUN" "$TMP/$name.cost" "$PSREC" -e cpu-clock -F 999 -p "$hpid" -o "$TMP/$name.data" \
		2>"$TMP/$name.err" &
	local rpid=$!
	# refused: nobody will claim it, markhostile is told to stop
	if [ -n "$refusal" ]; then
		wait_until "grep -q '$refusal' $TMP/$name.err" 60 "psrec to refuse the $mib MiB channel"
		kill -TERM "$hpid"
	fi
	wait "$hpid" || fail "markhostile $mib $rounds exited $?: $(cat "$TMP/$name.out")"
	wait "$rpid" || fail "psrec -p on markhostile $mib exited $?: $(cat "$TMP/$name.err")"
	report -i "$TMP/$name.data" --sort sym >"$TMP/$name.report"
	no_perf_warnings "perf report of the hostile $mib MiB channel"
	grep -q 'hostile_spin' "$TMP/$name.report" || fail "perf report shows no hostile_spin samples ($mib MiB): $(head -30 "$TMP/$name.report")"
}

hostile 16 2 h16
sent=$(kv sent "$TMP/h16.out")
[ "$(kv claimed "$TMP/h16.out")" = 1 ] || fail "psrec did not take the 16 MiB channel: $(cat "$TMP/h16.err")"
[ "${sent:-0}" -gt 7000 ] || fail "markhostile sent only ${sent:-0} records: $(cat "$TMP/h16.out")"
read -r w d _ <<<"$(summary_markers "$TMP/h16.err")"
[ "${w:-}" = "$sent" ] || fail "the summary says ${w:-?} markers written, markhostile sent $sent: $(cat "$TMP/h16.err")"
got=$(marker_lines "$TMP/h16.data")
[ "$got" = "$sent" ] || fail "perf script shows $got markers, markhostile sent $sent"
rss=$(kv maxrss_kb "$TMP/h16.cost")
[ "$rss" -lt "$rss_limit_kb" ] || fail "psrec's peak RSS was $rss kB under a hostile 16 MiB channel (bound $rss_limit_kb kB)"
echo "ok: a hostile 16 MiB channel: $sent records of control bytes all recorded, psrec's peak RSS $rss kB"

hostile 1024 1 h1g "offers a 1024 MiB marker channel, more than the 16 MiB psrec reads from a program"
[ "$(kv claimed "$TMP/h1g.out")" = 0 ] || fail "psrec took a 1 GiB channel"
rss=$(kv maxrss_kb "$TMP/h1g.cost")
[ "$rss" -lt "$rss_limit_kb" ] || fail "psrec's peak RSS was $rss kB beside a 1 GiB channel"
echo "ok: a 1 GiB channel refused, said so, the samples recorded (peak RSS $rss kB)"

# ---- -z: a burst of markers in one pass -------------------------------------

"$PSREC" -z -e cpu-clock -o "$TMP/burst.data" -- "$MARKBURST" 8000 >"$TMP/burst.out" 2>"$TMP/burst.err" ||
	fail "psrec -z -- markburst 8000 exited $?: $(cat "$TMP/burst.err")"
[ "$(kv sent "$TMP/burst.out")" = 8000 ] || fail "markburst: $(cat "$TMP/burst.out")"
read -r w d _ <<<"$(summary_markers "$TMP/burst.err")"
[ $((${w:-0} + ${d:-0})) = 8000 ] || fail "-z burst: the summary says ${w:-?} written + ${d:-?} dropped of 8000: $(cat "$TMP/burst.err")"
got=$(marker_lines "$TMP/burst.data")
no_perf_warnings "perf script of the -z burst"
[ "$got" = "$w" ] || fail "-z burst: perf script shows $got markers, the summary says $w written"
report -i "$TMP/burst.data" --sort sym >"$TMP/burst.report"
no_perf_warnings "perf report of the -z burst"
grep -q 'burst_spin' "$TMP/burst.report" || fail "-z burst: no burst_spin samples: $(head -30 "$TMP/burst.report")"
echo "ok: -z: a burst of 8000 markers in one pass, $w in the file as the summary says, samples after it"

# ---- a writer that dies mid-marker ------------------------------------------

"$PSREC" -e cpu-clock -o "$TMP/die.data" -- "$MARKDIE" >"$TMP/die.out" 2>"$TMP/die.err" ||
	fail "psrec -- markdie exited $?: $(cat "$TMP/die.err")"
grep -Eq '^child=(killed|exited [1-9])' "$TMP/die.out" || fail "markdie's child did not die: $(cat "$TMP/die.out")"
"$PERF" script -i "$TMP/die.data" -F trace:trace 2>"$TMP/perf.err" | sed -n 's/^ *//; /^after the death [0-9]*$/p' >"$TMP/die.after"
no_perf_warnings "perf script of markdie"
[ "$(wc -l <"$TMP/die.after")" = 10 ] || fail "after the writer died, $(wc -l <"$TMP/die.after") of 10 markers recorded: $(cat "$TMP/die.err")"
grep -q 'markers: 11 written, 0 dropped (channel full), 0 truncated, 1 abandoned' "$TMP/die.err" ||
	fail "the summary does not count the dead writer's marker abandoned: $(cat "$TMP/die.err")"
echo "ok: a writer died mid-marker: the 10 markers after it recorded, 1 abandoned"
