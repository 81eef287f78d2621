#!/bin/bash
# compare.sh - psrec against perf record, side by side, same run.
#
# For every mode, rounds alternate: workload alone, psrec, perf record
# (default), perf record lean (--no-buildid --no-bpf-event, as perf users
# tune it). Medians of the rounds. Costs are the recorder's own: every
# recorder attaches (-p) to a running workload, or records system-wide
# (-a) while one runs, so the rusage wait4 reports for it (tests/benchrun)
# includes no workload CPU. Recorder CPU is the scheduler's exact count
# (/proc/PID/schedstat of the zombie, see tests/tools/benchrun.c): the
# kernel here charges user/sys time by 4 ms ticks, too coarse for a
# recorder that runs a few hundred microseconds at a time. The workloads
# report their own wall time
# (tests/workloads/benchstat.h) for the slowdown: throughput (work per
# second) alone / while recorded, measured after a delay long enough for
# any recorder to have attached. Every output file is
# read back with psrec's reader (samples, lost, which also checks it) and,
# in the first round, with perf report, which must show samples.
#
# usage: scripts/bench/compare.sh [--quick] [--rounds N] [--out FILE.md]   (as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
QUICK=0
ROUNDS=3
OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1 ;;
	--rounds) ROUNDS=$2; shift ;;
	--out) OUT=$2; shift ;;
	*) echo "usage: $0 [--quick] [--rounds N] [--out FILE.md]" >&2; exit 2 ;;
	esac
	shift
done
[ "$ROUNDS" -ge 3 ] || { echo "compare.sh: at least 3 rounds (pairs) are needed for medians" >&2; exit 2; }
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/spin tests/deeprec tests/nofp tests/forker tests/manythreads tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-compare
ulimit -n 65536 2>/dev/null || true
NCPU=$(nproc)
# Workloads wait this long before working, so every recorder has attached
# before the measured part starts (perf record takes ~150 ms).
export PSREC_BENCH_DELAY_MS=${PSREC_BENCH_DELAY_MS:-400}

if [ "$QUICK" = 1 ]; then
	MODES="F10000 p"
	SCALE=0.3
else
	MODES="F999 F10000 Fmax g dwarf z a p Fmax-m8 forkexec"
	SCALE=1
fi
scaled() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s }'; }
secs() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%.2f", n * s }'; }

# mode MODE: sets WORK (workload argv), KIND (attach | system | latency),
# PS (psrec options) and PF (perf record options) for it.
mode() {
	KIND=attach
	case "$1" in
	F999) WORK="$B/tests/spin $(secs 2) $NCPU"; PS="-F 999"; PF="-F 999" ;;
	F10000) WORK="$B/tests/spin $(secs 2) $NCPU"; PS="-F 10000"; PF="-F 10000" ;;
	Fmax) WORK="$B/tests/spin $(secs 2) $NCPU"; PS="-F max"; PF="-F max" ;;
	Fmax-m8) WORK="$B/tests/spin $(secs 2) $NCPU"; PS="-F max -m 8"; PF="-F max -m 8" ;;
	g) WORK="$B/tests/deeprec -n $(scaled 10000) 50"; PS="-g"; PF="-g" ;;
	dwarf) WORK="$B/tests/nofp -n $(scaled 10000)"; PS="--call-graph dwarf"; PF="--call-graph dwarf" ;;
	z) WORK="$B/tests/spin $(secs 2) $NCPU"; PS="-F 10000 -z"; PF="-F 10000 -z" ;;
	forkexec) WORK="$B/tests/forker $(scaled 600)"; PS="-F 10000"; PF="-F 10000" ;;
	a) WORK="$B/tests/spin $(secs 3) $NCPU"; PS="-a"; PF="-a"; KIND=system ;;
	p) WORK="$B/tests/manythreads 1000 2000 3600"; PS=""; PF=""; KIND=latency ;;
	esac
}

# first_sample_ms DATA START_NS: first sample time (CLOCK_MONOTONIC) - start
first_sample_ms() {
	perf script -i "$1" -F time >"$TMP/times" 2>/dev/null || true
	awk -v s="$2" 'NR == 1 { gsub(/[ :]/, ""); printf "%.1f\n", ($0 * 1e9 - s) / 1e6; exit }' "$TMP/times"
}

# The workload's throughput (work per second) from its stats file.
throughput() {
	awk -v w="$(kv work "$TMP/w.stats")" -v t="$(kv wall_s "$TMP/w.stats")" 'BEGIN { if (t > 0) printf "%.3f", w / t; else print 0 }'
}

# one MODE WHO ROUND: one measured run, appended to $TMP/MODE-WHO.txt as
# "cpu_s rss_kb bytes samples lost wall_s latency_ms throughput"
one() {
	local m=$1 who=$2 round=$3 data="$TMP/out.data"
	rm -f "$data" "$TMP/w.stats"
	local rec=()
	# shellcheck disable=SC2206
	case $who in
	psrec) rec=("$B/psrec" -q -e cpu-clock $PS) ;;
	perf) rec=(perf record -q -k CLOCK_MONOTONIC -e cpu-clock $PF) ;;
	lean) rec=(perf record -q -k CLOCK_MONOTONIC -e cpu-clock --no-buildid --no-bpf-event $PF) ;;
	esac
	local wall_w=0 # the workload's throughput
	case $KIND in
	attach)
		if [ "$who" = alone ]; then
			PSREC_BENCH_STATS="$TMP/w.stats" $WORK >/dev/null
		else
			PSREC_BENCH_STATS="$TMP/w.stats" $WORK >/dev/null &
			local w=$!
			"$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$w" -o "$data" >/dev/null 2>&1 || true
			wait "$w" || true
		fi
		wall_w=$(throughput) ;;
	system)
		PSREC_BENCH_STATS="$TMP/w.stats" $WORK >/dev/null &
		local w=$!
		if [ "$who" != alone ]; then
			local secs
			secs=$(awk -v s="$SCALE" 'BEGIN { print 2 * s }')
			if [ "$who" = psrec ]; then
				"$B/tests/benchrun" "$TMP/cost" "${rec[@]}" --duration "$secs" -o "$data" >/dev/null 2>&1 || true
			else
				"$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -o "$data" -- sleep "$secs" >/dev/null 2>&1 || true
			fi
		fi
		wait "$w" || true
		wall_w=$(throughput) ;;
	latency)
		if [ "$who" = alone ]; then
			echo "0 0 0 0 0 0 0 0" >>"$TMP/$m-$who.txt"
			return 0
		fi
		if [ "$who" = psrec ]; then
			"$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$LATENCY_PID" --duration "$(secs 1)" -o "$data" >/dev/null 2>&1 || true
		else
			"$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$LATENCY_PID" -o "$data" -- sleep "$(secs 1)" >/dev/null 2>&1 || true
		fi ;;
	esac
	if [ "$who" = alone ]; then
		echo "0 0 0 0 0 0 0 $wall_w" >>"$TMP/$m-$who.txt"
		return 0
	fi
	local samples lost ls lat=0
	samples=$(pd samples "$data")
	lost=$(pd lost "$data")
	ls=$(pd lost_samples "$data")
	[ "${ls:-0}" -gt "${lost:-0}" ] && lost=$ls
	[ -n "$samples" ] || { echo "compare.sh: $m/$who: psrec's reader rejects the output" >&2; samples=0; }
	if [ "$round" = 1 ]; then
		perf report -i "$data" --stdio >"$TMP/report.txt" 2>/dev/null || true
	fi
	if [ "$round" = 1 ] && ! grep -q '^# Samples: [1-9]' "$TMP/report.txt"; then
		echo "compare.sh: $m/$who: perf report shows no samples" >&2
		echo "$m/$who" >>"$TMP/invalid"
	fi
	[ "$KIND" = latency ] && lat=$(first_sample_ms "$data" "$(kv start_ns "$TMP/cost")")
	echo "$(kv run_s "$TMP/cost") \
$(kv maxrss_kb "$TMP/cost") $(stat -c %s "$data") ${samples:-0} ${lost:-0} $(kv wall_s "$TMP/cost") ${lat:-0} $wall_w" >>"$TMP/$m-$who.txt"
}

start=$(date +%s)
for m in $MODES; do
	mode "$m"
	if [ "$KIND" = latency ]; then
		$WORK >"$TMP/ready" &
		LATENCY_PID=$!
		BENCH_PIDS="$BENCH_PIDS $LATENCY_PID"
		for _ in $(seq 100); do grep -q ready "$TMP/ready" 2>/dev/null && break; sleep 0.1; done
	fi
	for r in $(seq "$ROUNDS"); do
		for who in alone psrec perf lean; do
			one "$m" "$who" "$r"
		done
	done
	[ "$KIND" = latency ] && kill -KILL "$LATENCY_PID"
done
elapsed=$(( $(date +%s) - start ))

c() { col "$TMP/$1.txt" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else if (a == 0) printf "0 vs 0"; else printf "inf" }'; }
# microseconds of recorder CPU per sample
per_s() { awk -v c="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.3f", c / s * 1e6; else printf "nan" }'; }

{
echo "# psrec vs perf record"
echo
echo "$(machine_facts | sed 's/^machine: //')."
echo "Run: $(date -u +%Y-%m-%dT%H:%MZ), ${ROUNDS} rounds per mode (alone / psrec / perf / perf lean, alternating), medians; ${elapsed} s. Lean = \`perf record --no-buildid --no-bpf-event\`. Recorders attach with \`-p\` (or \`-a\`) so their costs are theirs alone; CPU = time on CPU of the recorder's main thread from /proc/PID/schedstat (exact; rusage here is sampled by 4 ms ticks); peak RSS from wait4; \`-e cpu-clock\` everywhere (no hardware PMU here). Workloads start working 400 ms after they start, once every recorder has attached; slowdown = throughput alone / throughput while recorded. Attach latency (mode p only) = first sample time - recorder start, 1,000 threads and 2,000 mappings."
[ "$QUICK" = 1 ] && echo "**Quick mode** (--quick): fewer modes, shorter workloads; not for quoting."
echo
echo "## Absolute medians"
echo
echo "| mode | recorder | CPU s | CPU us / sample | wall s | peak RSS KB | bytes | samples | lost | bytes/sample | workload slowdown | attach ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for m in $MODES; do
	mode "$m"
	alone=$(c "$m-alone" 8)
	for who in psrec perf lean; do
		f="$m-$who"
		slow="-"
		[ "$KIND" != latency ] && slow=$(awk -v w="$(c "$f" 8)" -v a="$alone" 'BEGIN { if (w > 0) printf "%.3f", a / w; else print "-" }')
		lat="-"
		[ "$KIND" = latency ] && lat=$(c "$f" 7)
		echo "| $m | $who | $(c "$f" 1) | $(per_s "$(c "$f" 1)" "$(c "$f" 4)") | $(c "$f" 6) | $(c "$f" 2) | $(c "$f" 3) | $(c "$f" 4) | $(c "$f" 5) | $(awk -v b="$(c "$f" 3)" -v s="$(c "$f" 4)" 'BEGIN { if (s > 0) printf "%.1f", b / s; else print "-" }') | $slow | $lat |"
	done
done
echo
echo "## Ratios psrec / perf lean (psrec / perf default in parentheses)"
echo
echo "Targets: recorder CPU <= 0.2, peak RSS <= 0.3, lost at -F max -m 8 <= 0.5, attach latency <= 0.5, bytes/sample <= 1.0, -z bytes/sample <= 1.0 (ratio >= perf's)."
echo
echo "| mode | CPU per sample | peak RSS | lost | bytes/sample | attach latency |"
echo "|---|---|---|---|---|---|"
for m in $MODES; do
	mode "$m"
	row="| $m"
	for k in cpu rss lost bps lat; do
		v=""
		for ref in lean perf; do
			case $k in
			cpu) x=$(ratio "$(per_s "$(c "$m-psrec" 1)" "$(c "$m-psrec" 4)")" "$(per_s "$(c "$m-$ref" 1)" "$(c "$m-$ref" 4)")") ;;
			rss) x=$(ratio "$(c "$m-psrec" 2)" "$(c "$m-$ref" 2)") ;;
			lost) x=$(ratio "$(c "$m-psrec" 5)" "$(c "$m-$ref" 5)") ;;
			bps) x=$(ratio "$(awk -v b="$(c "$m-psrec" 3)" -v s="$(c "$m-psrec" 4)" 'BEGIN { print s ? b / s : 0 }')" \
				"$(awk -v b="$(c "$m-$ref" 3)" -v s="$(c "$m-$ref" 4)" 'BEGIN { print s ? b / s : 0 }')") ;;
			lat) if [ "$KIND" != latency ]; then x="-"; else x=$(ratio "$(c "$m-psrec" 7)" "$(c "$m-$ref" 7)"); fi ;;
			esac
			if [ "$ref" = lean ]; then v="$x"; else v="$v ($x)"; fi
		done
		row="$row | $v"
	done
	echo "$row |"
done
echo
for m in $MODES; do
	case $m in Fmax-m8)
		echo "Lost fraction at -F max -m 8 (lost / (samples + lost)): psrec $(awk -v l="$(c "$m-psrec" 5)" -v s="$(c "$m-psrec" 4)" 'BEGIN { printf "%.3f%%", 100 * l / (l + s) }'), perf $(awk -v l="$(c "$m-perf" 5)" -v s="$(c "$m-perf" 4)" 'BEGIN { printf "%.3f%%", 100 * l / (l + s) }'), perf lean $(awk -v l="$(c "$m-lean" 5)" -v s="$(c "$m-lean" 4)" 'BEGIN { printf "%.3f%%", 100 * l / (l + s) }')." ;;
	esac
done
if [ -s "$TMP/invalid" ]; then
	echo
	echo "**Invalid outputs** (perf report showed no samples): $(tr '\n' ' ' <"$TMP/invalid")"
fi
} >"$TMP/report.md"
cat "$TMP/report.md"
[ -n "$OUT" ] && cp "$TMP/report.md" "$OUT"
[ ! -s "$TMP/invalid" ]
