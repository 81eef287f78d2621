#!/bin/bash
# compress.sh - -z at -F max on every CPU: lost samples and recorder CPU
# with and without compression, and the compression ratio against
# perf record -z at the same level. Same run, alternating, medians.
#
# Each recorder attaches (-p) for SECONDS to a spin workload with one busy
# thread per CPU, so its rusage is its own.
#
# usage: scripts/bench/compress.sh [SECONDS [ROUNDS [LEVEL]]]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-3}
ROUNDS=${2:-3}
LEVEL=${3:-1}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/spin tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-bench
"$B/tests/spin" 36000 "$(nproc)" &
W=$!
BENCH_PIDS=$W
sleep 0.3
MAX=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

for _ in $(seq "$ROUNDS"); do
	bench_run "$TMP/psrec.txt" "$B/psrec" -q -e cpu-clock -F max -p "$W" --duration "$SECS" -o @OUT@
	bench_run "$TMP/psrec-z.txt" "$B/psrec" -q -e cpu-clock -F max --compression-level="$LEVEL" -p "$W" --duration "$SECS" -o @OUT@
	bench_run "$TMP/lean.txt" perf record -q -e cpu-clock -F max --no-buildid --no-bpf-event -p "$W" -o @OUT@ -- sleep "$SECS"
	bench_run "$TMP/lean-z.txt" perf record -q -e cpu-clock -F max --no-buildid --no-bpf-event --compression-level="$LEVEL" -p "$W" -o @OUT@ -- sleep "$SECS"
	bench_run "$TMP/perf-z.txt" perf record -q -e cpu-clock -F max --compression-level="$LEVEL" -p "$W" -o @OUT@ -- sleep "$SECS"
done

echo "-F max ($MAX Hz) on $(nproc) busy CPUs, ${SECS} s attached, zstd level $LEVEL, $ROUNDS rounds, medians"
machine_facts
echo
printf '| %-16s | %10s | %8s | %7s | %12s | %8s | %9s |\n' recorder bytes samples lost bytes/sample "CPU (s)" "RSS (KB)"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ------------------ ------------ ---------- --------- -------------- ---------- -----------
for n in psrec psrec-z lean lean-z perf-z; do
	f="$TMP/$n.txt"
	printf '| %-16s | %10s | %8s | %7s | %12s | %8s | %9s |\n' "$n" "$(col "$f" 1)" "$(col "$f" 2)" "$(col "$f" 5)" "$(col "$f" 3)" "$(col "$f" 4)" "$(col "$f" 6)"
done
echo
awk -v a="$(col "$TMP/psrec.txt" 3)" -v b="$(col "$TMP/psrec-z.txt" 3)" -v c="$(col "$TMP/lean.txt" 3)" -v d="$(col "$TMP/lean-z.txt" 3)" \
	-v cp="$(col "$TMP/psrec-z.txt" 4)" -v cq="$(col "$TMP/lean-z.txt" 4)" \
	'BEGIN { printf "compression ratio (bytes/sample plain / -z): psrec %.1f, perf %.1f; psrec -z bytes/sample vs perf -z: %.2f; recorder CPU with -z psrec/perf-lean: %.2f\n", a / b, c / d, b / d, cq ? cp / cq : 0 }'
