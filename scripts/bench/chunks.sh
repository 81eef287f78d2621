#!/bin/bash
# chunks.sh - what recording in chunks costs the recorder: psrec -a
# --switch-output=1s against one psrec -a recording of the same duration
# (each cut re-reads /proc for every process, reads its chunk back for the
# build-ids and writes the features), with perf record -a alone and with
# --switch-output=1s in the same rounds for reference. Alternating rounds,
# medians; CPU is the recorder's own (its schedstat, tests/benchrun).
#
# The workload is spin with one busy thread per CPU, so that the rings
# carry samples at -F 4000 on every CPU.
#
# usage: scripts/bench/chunks.sh [SECONDS [ROUNDS]]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-10}
ROUNDS=${2:-5}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/spin tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-chunks
"$B/tests/spin" 36000 "$(nproc)" &
W=$!
BENCH_PIDS=$W
sleep 0.3

# one NAME CMD...: run CMD (its output prefix is $TMP/out.data) and append
# "cpu_s samples files" to $TMP/NAME.txt; the chunks are read back with
# pdcheck and removed.
one() {
	local name=$1
	shift
	rm -f "$TMP"/out.data*
	"$B/tests/benchrun" "$TMP/cost" "$@" >/dev/null 2>"$TMP/$name.err" || true
	# psrec -v: "N cuts took X ms of CPU, Y ms of it re-reading /proc"
	sed -n 's/^psrec: [0-9]* cuts took \([0-9.]*\) ms of CPU, \([0-9.]*\) ms of it.*/\1 \2/p' "$TMP/$name.err" >>"$TMP/$name.cuts"
	local n=0 s=0 f k
	for f in "$TMP"/out.data*; do
		[ -e "$f" ] || continue
		k=$(pd samples "$f")
		s=$((s + ${k:-0}))
		n=$((n + 1))
	done
	echo "$(kv run_s "$TMP/cost") $s $n" >>"$TMP/$name.txt"
	rm -f "$TMP"/out.data*
}

for _ in $(seq "$ROUNDS"); do
	one psrec "$B/psrec" -q -a -e cpu-clock --duration "$SECS" -o "$TMP/out.data"
	one psrec-chunks "$B/psrec" -v -a -e cpu-clock --duration "$SECS" --switch-output=1s -o "$TMP/out.data"
	one perf perf record -q -a -e cpu-clock -o "$TMP/out.data" -- sleep "$SECS"
	one perf-chunks perf record -q -a -e cpu-clock --switch-output=1s -o "$TMP/out.data" -- sleep "$SECS"
done

echo "-a -e cpu-clock (4000 Hz) for $SECS s on $(nproc) busy CPUs, $ROUNDS rounds, medians; $(find /proc -maxdepth 1 -name '[0-9]*' | wc -l) processes"
machine_facts
echo
printf '| %-13s | %8s | %8s | %6s |\n' recorder "CPU (s)" samples files
printf '|%s|%s|%s|%s|\n' --------------- ---------- ---------- --------
for n in psrec psrec-chunks perf perf-chunks; do
	f="$TMP/$n.txt"
	printf '| %-13s | %8.4f | %8s | %6s |\n' "$n" "$(col "$f" 1)" "$(col "$f" 2)" "$(col "$f" 3)"
done
echo
awk -v a="$(col "$TMP/psrec.txt" 1)" -v b="$(col "$TMP/psrec-chunks.txt" 1)" -v n="$(col "$TMP/psrec-chunks.txt" 3)" \
	-v cut="$(col "$TMP/psrec-chunks.cuts" 1)" -v syn="$(col "$TMP/psrec-chunks.cuts" 2)" \
	'BEGIN { printf "psrec with chunks / one file: %.2fx recorder CPU (%.2f ms more per cut, %d chunks)\n", b / a, 1000 * (b - a) / (n > 1 ? n - 1 : 1), n
		printf "psrec -v: the cuts took %.1f ms of CPU, %.1f%% of the recorder'"'"'s; re-reading /proc %.1f ms, %.1f%%\n", cut, 100 * cut / (1000 * b), syn, 100 * syn / (1000 * b) }'
