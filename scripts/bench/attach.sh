#!/bin/bash
# attach.sh - attach latency of psrec -p versus perf record -p.
#
# A process with THREADS threads and MAPS executable file mappings
# (tests/workloads/manythreads) burns CPU in its main thread. Each recorder
# attaches for 1 s; attach latency = first sample time (both record with
# CLOCK_MONOTONIC) minus the moment the recorder was started. Alternates
# psrec / perf record / perf record lean (--no-buildid --no-bpf-event)
# ROUNDS times and prints medians, ratios, and recorder CPU.
#
# usage: scripts/bench/attach.sh [THREADS [MAPS [ROUNDS]]]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-1000}
MAPS=${2:-2000}
ROUNDS=${3:-5}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/manythreads tests/benchrun >/dev/null
bench_setup psrec-bench

ulimit -n 65536 2>/dev/null || true
"$B/tests/manythreads" "$THREADS" "$MAPS" 3600 >"$TMP/ready" &
WPID=$!
BENCH_PIDS=$WPID
for _ in $(seq 100); do grep -q ready "$TMP/ready" 2>/dev/null && break; sleep 0.1; done

# one NAME CMD...: run one recording, print "latency_ms cpu_s maxrss_kb"
# (cpu_s: the recorder's exact time on CPU, from its schedstat)
one() {
	local name=$1
	shift
	"$B/tests/benchrun" "$TMP/$name.cost" "$@" >/dev/null 2>&1 || true
	local start first
	start=$(sed -n 's/.*start_ns=\([0-9]*\).*/\1/p' "$TMP/$name.cost")
	perf script -i "$TMP/$name.data" -F time >"$TMP/$name.times" 2>/dev/null || true
	first=$(sed -n '1{s/[ :]//g;p}' "$TMP/$name.times")
	awk -v s="$start" -v f="$first" -v c="$(cat "$TMP/$name.cost")" 'BEGIN {
		split(c, kv, " "); for (i in kv) { split(kv[i], p, "="); v[p[1]] = p[2] }
		printf "%.1f %s %s\n", (f * 1e9 - s) / 1e6, v["run_s"], v["maxrss_kb"] }'
}

for _ in $(seq "$ROUNDS"); do
	one psrec "$B/psrec" -q -e cpu-clock -p "$WPID" --duration 1 -o "$TMP/psrec.data" >>"$TMP/psrec.txt"
	one perf perf record -q -k CLOCK_MONOTONIC -e cpu-clock -p "$WPID" -o "$TMP/perf.data" -- sleep 1 >>"$TMP/perf.txt"
	one lean perf record -q -k CLOCK_MONOTONIC -e cpu-clock --no-buildid --no-bpf-event -p "$WPID" -o "$TMP/lean.data" -- sleep 1 >>"$TMP/lean.txt"
done

acol() { col "$TMP/$1.txt" "$2"; }

echo "attach to $THREADS threads / $MAPS mappings on $(nproc) CPUs, $ROUNDS rounds, medians"
machine_facts
echo
printf '| %-22s | %12s | %14s | %12s |\n' recorder "attach (ms)" "CPU (s)" "max RSS (KB)"
printf '|%s|%s|%s|%s|\n' ------------------------ -------------- ---------------- --------------
for n in psrec perf lean; do
	printf '| %-22s | %12s | %14s | %12s |\n' "$n" "$(acol $n 1)" "$(acol $n 2)" "$(acol $n 3)"
done
echo
awk -v a="$(acol psrec 1)" -v b="$(acol perf 1)" -v c="$(acol lean 1)" \
	'BEGIN { printf "attach latency ratio psrec/perf: %.2f, psrec/perf lean: %.2f\n", a / b, a / c }'
