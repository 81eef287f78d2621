#!/bin/bash
# markers.sh - what user markers cost (issue 16), medians of ROUNDS:
#  - ns per marker call with no psrec (absent), with a reader listening,
#    and with the channel full (tests/markbench, linked static and shared);
#  - the recorder's CPU per marker written: psrec recording markflood at
#    RATE markers a second for SECONDS, less the same recording with
#    --no-markers, over the markers written; next to its CPU per sample:
#    psrec -p on a one-thread spin at -F 10000, less the same at -F 100,
#    over the extra samples (and both plain ratios, fixed costs included);
#  - psrec's peak RSS beside a hostile -p target (tests/markhostile, the
#    ABI by hand) that keeps its own channel of 4, 16, 64 and 1024 MiB
#    full of 4 KiB records of control bytes, twice over (psrec takes at
#    most 16 MiB from a program: the bigger ones are refused), against
#    psrec -p on a plain spin;
#  - side by side, an SDT probe (DTRACE_PROBE1(psrec, mark, msg) from
#    <sys/sdt.h>) untraced, and traced by perf record through a uprobe
#    that fetches the string (msg=+0(REG):ustring, REG from perf probe's
#    reading of the SDT note), ns per call. Needs root and the header
#    (Debian: apt-get install systemtap-sdt-dev); the row is skipped
#    without them. The uprobe is removed at exit.
#
# The recorder's CPU is its main thread's schedstat (tests/benchrun; psrec
# is single-threaded): in launch mode the workload's CPU is not in it.
#
# usage: scripts/bench/markers.sh [ROUNDS [RATE [SECONDS]]]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
RATE=${2:-200000}
SECS=${3:-5}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/markbench tests/markbench-shared tests/markflood tests/spin tests/benchrun tests/pdcheck \
	tests/markhostile >/dev/null
bench_setup psrec-bench
TRACEFS=/sys/kernel/tracing
[ -d "$TRACEFS/events" ] || TRACEFS=/sys/kernel/debug/tracing
UPROBE=""
cleanup() {
	if [ -n "$UPROBE" ]; then echo "-:$UPROBE" >>"$TRACEFS/uprobe_events" 2>/dev/null || true; fi
	bench_cleanup
}
trap cleanup EXIT

# ---- ns per call: markbench ---------------------------------------------

for _ in $(seq "$ROUNDS"); do
	for m in markbench markbench-shared; do
		"$B/tests/$m" >"$TMP/mb.txt" 2>"$TMP/mb.err"
		for k in absent listening full; do
			awk -v k=$k '$1 == k && $3 == "ns" { print $2 }' "$TMP/mb.txt" >>"$TMP/$m.$k"
		done
		# "markbench: listening: D of N markers dropped"
		sed -n 's/.*listening: \([0-9]*\) of \([0-9]*\) .*/\1 \2/p' "$TMP/mb.err" >>"$TMP/$m.drops"
	done
done

# ---- recorder CPU per marker, per sample ----------------------------------

# rec NAME CMD...: one recording by benchrun, its output @OUT@; appends
# "cpu_s written samples" to $TMP/NAME (written: the summary's markers).
rec() {
	local name=$1
	shift
	local args=() a
	for a in "$@"; do [ "$a" = @OUT@ ] && args+=("$TMP/run.data") || args+=("$a"); done
	rm -f "$TMP/run.data"
	"$B/tests/benchrun" "$TMP/cost" "${args[@]}" >"$TMP/run.out" 2>"$TMP/run.err" || true
	local w
	w=$(sed -En 's/.*markers: ([0-9]+) written.*/\1/p' "$TMP/run.err" | tail -1)
	echo "$(kv run_s "$TMP/cost") ${w:-0} $(pd samples "$TMP/run.data")" >>"$TMP/$name"
	grep -h 'sent=' "$TMP/run.out" "$TMP/run.err" >>"$TMP/$name.flood" || true
}
for _ in $(seq "$ROUNDS"); do
	rec mk "$B/psrec" -e cpu-clock -F 100 -o @OUT@ -- "$B/tests/markflood" "$RATE" "$SECS"
	rec nomk "$B/psrec" --no-markers -e cpu-clock -F 100 -o @OUT@ -- "$B/tests/markflood" "$RATE" "$SECS"
	"$B/tests/markflood" "$RATE" "$SECS" >>"$TMP/alone.flood"
done
"$B/tests/spin" 36000 1 &
W=$!
BENCH_PIDS=$W
sleep 0.3
for _ in $(seq "$ROUNDS"); do
	rec f10k "$B/psrec" -e cpu-clock -F 10000 -p "$W" --duration "$SECS" -o @OUT@
	rec f100 "$B/psrec" -e cpu-clock -F 100 -p "$W" --duration "$SECS" -o @OUT@
done
kill "$W"

# ---- a hostile -p target ---------------------------------------------------

# hostile MIB: psrec -p on markhostile; appends "maxrss_kb bytes written"
# to $TMP/hostile.MIB.
hostile() {
	local mib=$1 h
	rm -f "$TMP/ready" "$TMP/run.data"
	"$B/tests/markhostile" "$mib" 2 "$TMP/ready" >"$TMP/h.out" &
	h=$!
	BENCH_PIDS="$BENCH_PIDS $h"
	while [ ! -e "$TMP/ready" ]; do sleep 0.02; done
	"$B/tests/benchrun" "$TMP/cost" "$B/psrec" -e cpu-clock -F 999 -p "$h" -o "$TMP/run.data" 2>"$TMP/run.err" &
	local r=$!
	if [ "$mib" -gt 16 ]; then
		until grep -q 'marker channel' "$TMP/run.err"; do sleep 0.02; done
		kill -TERM "$h"
	fi
	wait "$h" || true
	wait "$r" || true
	local w
	w=$(sed -En 's/.*markers: ([0-9]+) written.*/\1/p' "$TMP/run.err" | tail -1)
	echo "$(kv maxrss_kb "$TMP/cost") $(stat -c %s "$TMP/run.data") ${w:-0}" >>"$TMP/hostile.$mib"
}
HOSTILE_MIB="4 16 64 1024"
for _ in $(seq "$ROUNDS"); do
	for mib in $HOSTILE_MIB; do hostile "$mib"; done
	"$B/tests/spin" 3 1 &
	W=$!
	sleep 0.3
	"$B/tests/benchrun" "$TMP/cost" "$B/psrec" -e cpu-clock -F 999 -p "$W" -o "$TMP/run.data" 2>/dev/null || true
	echo "$(kv maxrss_kb "$TMP/cost") $(stat -c %s "$TMP/run.data") 0" >>"$TMP/hostile.spin"
done

# ---- the SDT probe --------------------------------------------------------

sdt=""
if [ "$(id -u)" = 0 ] && printf '#include <sys/sdt.h>\n' | cc -E -x c - >/dev/null 2>&1; then
	cat >"$TMP/sdtbench.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *msg = "request 42 start";
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		DTRACE_PROBE1(psrec, mark, msg);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("sdt %.2f ns\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
EOF
	cc -O2 -g -o "$TMP/sdtbench" "$TMP/sdtbench.c"
	# perf probe reads the SDT note (where, and which register holds
	# msg); it fetches only the pointer, so the uprobe is redefined with
	# the string fetched, under a group of this run's own.
	perf probe -q -x "$TMP/sdtbench" sdt_psrec:mark
	line=$(grep 'sdt_psrec/mark ' "$TRACEFS/uprobe_events")
	perf probe -q -d sdt_psrec:mark
	loc=$(awk '{ print $2 }' <<<"$line")
	reg=$(sed -n 's/.*arg1=\(%[a-z0-9]*\).*/\1/p' <<<"$line")
	group="psrec_bench_$$"
	echo "p:$group/mark $loc msg=+0($reg):ustring" >>"$TRACEFS/uprobe_events"
	UPROBE="$group/mark"
	for _ in $(seq "$ROUNDS"); do
		"$TMP/sdtbench" 100000000 | awk '{ print $2 }' >>"$TMP/sdt.off"
		perf record -q -e "$group:mark" -o "$TMP/sdt.data" -- "$TMP/sdtbench" 300000 2>/dev/null |
			awk '{ print $2 }' >>"$TMP/sdt.on"
	done
	{ perf script -i "$TMP/sdt.data" 2>/dev/null || true; } | head -1 >"$TMP/sdt.first"
	grep -q 'msg="request 42 start"' "$TMP/sdt.first" ||
		echo "warning: the traced SDT probe did not record its string: $(cat "$TMP/sdt.first")" >&2
	sdt=1
fi

# ---- report -------------------------------------------------------------------------

med() { median <"$1"; }
echo "user markers, $ROUNDS rounds, medians"
machine_facts
echo
printf '| %-56s | %12s |\n' "marker call" "ns per call"
printf '|%s|%s|\n' ---------------------------------------------------------- --------------
for m in markbench markbench-shared; do
	l=static
	[ $m = markbench ] || l=shared
	drop=$(awk '{ printf "%.0f\n", 100 * $1 / $2 }' "$TMP/$m.drops" | median)
	printf '| %-56s | %12s |\n' "psrec_mark_str ($l), no psrec (absent)" "$(med "$TMP/$m.absent")"
	printf '| %-56s | %12s |\n' "psrec_mark_str ($l), listening (${drop}% dropped)" "$(med "$TMP/$m.listening")"
	printf '| %-56s | %12s |\n' "psrec_mark_str ($l), channel full (dropped)" "$(med "$TMP/$m.full")"
done
if [ -n "$sdt" ]; then
	printf '| %-56s | %12s |\n' "SDT probe, untraced" "$(med "$TMP/sdt.off")"
	printf '| %-56s | %12s |\n' "SDT probe traced by perf record (uprobe)" "$(med "$TMP/sdt.on")"
else
	echo "(SDT rows skipped: not root, or no <sys/sdt.h>: apt-get install systemtap-sdt-dev)"
fi
echo
c() { col "$TMP/$1" "$2"; }
awk -v mc="$(c mk 1)" -v mw="$(c mk 2)" -v nc="$(c nomk 1)" \
	-v hc="$(c f10k 1)" -v hs="$(c f10k 3)" -v lc="$(c f100 1)" -v ls="$(c f100 3)" \
	-v rate="$RATE" -v secs="$SECS" 'BEGIN {
	printf "recorder CPU: markflood %d/s for %d s: %.4f s with markers (%d written), %.4f s with --no-markers\n", rate, secs, mc, mw, nc
	printf "  per marker written: %.0f ns (difference), %.0f ns (plain ratio)\n", mw ? (mc - nc) / mw * 1e9 : 0, mw ? mc / mw * 1e9 : 0
	printf "recorder CPU: spin -p %d s: %.4f s at -F 10000 (%d samples), %.4f s at -F 100 (%d samples)\n", secs, hc, hs, lc, ls
	printf "  per sample: %.0f ns (difference), %.0f ns (plain ratio at -F 10000)\n", (hs > ls ? (hc - lc) / (hs - ls) * 1e9 : 0), hs ? hc / hs * 1e9 : 0
}'
echo "psrec -p beside a hostile channel full of 4 KiB control-byte records, twice over (peak RSS, file, markers written):"
for mib in spin $HOSTILE_MIB; do
	what="a $mib MiB channel"
	[ "$mib" = spin ] && what="a plain spin (no channel)"
	printf '  %-28s peak RSS %6.1f MB, %8.1f MB written, %6d markers\n' "$what" \
		"$(awk '{ print $1 / 1000 }' "$TMP/hostile.$mib" | median)" \
		"$(awk '{ print $2 / 1e6 }' "$TMP/hostile.$mib" | median)" "$(col "$TMP/hostile.$mib" 3)"
done
# fk FILE KEY: the median of KEY=value over markflood's lines in FILE
fk() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | median; }
echo "markflood's calls at $RATE/s, one clock read included: alone (absent) mean $(fk "$TMP/alone.flood" mean_ns) ns," \
	"p50 $(fk "$TMP/alone.flood" p50_ns) ns; under psrec mean $(fk "$TMP/mk.flood" mean_ns) ns, p50 $(fk "$TMP/mk.flood" p50_ns) ns," \
	"p99.9 $(fk "$TMP/mk.flood" p999_ns) ns, max $(fk "$TMP/mk.flood" max_ns) ns, $(fk "$TMP/mk.flood" slept) calls slept"
