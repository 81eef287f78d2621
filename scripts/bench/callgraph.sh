#!/bin/bash
# callgraph.sh - bytes per sample and recorder CPU with call graphs, psrec
# versus perf record (default and lean: --no-buildid --no-bpf-event), same
# run, alternating, medians.
#
# fp:    -g on tests/workloads/deeprec (50 frames of recursion, frame pointers)
# dwarf: --call-graph dwarf on tests/workloads/nofp (no frame pointers)
# Each recorder attaches (-p) to the running workload for SECONDS, so its
# rusage is its own.
#
# usage: scripts/bench/callgraph.sh [SECONDS [ROUNDS]]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_RUN=${1:-3}
ROUNDS=${2:-3}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/deeprec tests/nofp tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-bench

for mode in fp dwarf; do
	if [ $mode = fp ]; then
		"$B/tests/deeprec" 36000 50 &
		psrec_cg="-g"; perf_cg="-g"
	else
		"$B/tests/nofp" 36000 &
		psrec_cg="--call-graph dwarf"; perf_cg="--call-graph dwarf"
	fi
	W=$!
	BENCH_PIDS="$BENCH_PIDS $W"
	sleep 0.3
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086
		bench_run "$TMP/$mode-psrec.txt" "$B/psrec" -q -e cpu-clock $psrec_cg -p "$W" --duration "$SECONDS_PER_RUN" -o @OUT@
		# shellcheck disable=SC2086
		bench_run "$TMP/$mode-perf.txt" perf record -q -e cpu-clock $perf_cg -p "$W" -o @OUT@ -- sleep "$SECONDS_PER_RUN"
		# shellcheck disable=SC2086
		bench_run "$TMP/$mode-lean.txt" perf record -q -e cpu-clock $perf_cg --no-buildid --no-bpf-event -p "$W" -o @OUT@ -- sleep "$SECONDS_PER_RUN"
	done
	kill -KILL "$W"
done

echo "call graphs: ${SECONDS_PER_RUN} s attached to one busy thread at 4000 Hz, $ROUNDS rounds, medians"
machine_facts
echo
printf '| %-6s | %-10s | %10s | %8s | %12s | %9s | %6s | %10s |\n' mode recorder bytes samples bytes/sample "CPU (s)" lost "RSS (KB)"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------- ------------ ------------ ---------- -------------- ----------- -------- ------------
for mode in fp dwarf; do
	for n in psrec perf lean; do
		printf '| %-6s | %-10s | %10s | %8s | %12s | %9s | %6s | %10s |\n' $mode $n \
			"$(col "$TMP/$mode-$n.txt" 1)" "$(col "$TMP/$mode-$n.txt" 2)" "$(col "$TMP/$mode-$n.txt" 3)" "$(col "$TMP/$mode-$n.txt" 4)" "$(col "$TMP/$mode-$n.txt" 5)" "$(col "$TMP/$mode-$n.txt" 6)"
	done
done
echo
for mode in fp dwarf; do
	awk -v m=$mode -v bp="$(col "$TMP/$mode-psrec.txt" 3)" -v bq="$(col "$TMP/$mode-lean.txt" 3)" -v cp="$(col "$TMP/$mode-psrec.txt" 4)" -v cq="$(col "$TMP/$mode-lean.txt" 4)" \
		'BEGIN { printf "%s: bytes/sample psrec/perf-lean %.2f, recorder CPU psrec/perf-lean %.2f\n", m, bp / bq, cq ? cp / cq : 0 }'
done
