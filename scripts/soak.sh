#!/bin/bash
# soak.sh - a long system-wide recording under churn: psrec -a -F max -g
# for SOAK_SECONDS (default 600) while a fork/exec-heavy workload runs on
# every CPU (shell loops running sh -c true, ls and /bin/true, plus
# tests/workloads/forker). psrec's RSS (VmRSS) and open fds are sampled
# 5 s in, every SOAK_INTERVAL s (default 30) and at the end, and printed as
# a table. Then psrec is stopped with SIGINT and the file is read back with
# perf report and psrec's reader (tests/tools/pdcheck).
#
# Fails (exit 1) if RSS grows by more than 10% or the fd count by more than
# 3 between the first and the last sample, if psrec dies or exits with
# anything but 0 or 130 (stopped by SIGINT), or if the file is invalid: perf
# report prints an error or a warning (other than its "lost N chunks" note
# for the samples that -F max loses), or shows no samples. Not run in CI.
#
# usage: [SOAK_SECONDS=600] [SOAK_INTERVAL=30] [B=build] scripts/soak.sh   (as root)
set -euo pipefail
cd "$(dirname "$0")/.."
SOAK_SECONDS=${SOAK_SECONDS:-600}
SOAK_INTERVAL=${SOAK_INTERVAL:-30}
[ "$SOAK_SECONDS" -ge 10 ] || { echo "soak.sh: SOAK_SECONDS must be >= 10" >&2; exit 2; }
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/forker tests/pdcheck >/dev/null
TMP=$(mktemp -d /var/tmp/psrec-soak.XXXXXX)
PID=""
WPID=""
cleanup() {
	[ -n "$WPID" ] && kill -KILL -- "-$WPID" 2>/dev/null
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true

NCPU=$(nproc)
FORKER=$(realpath "$B/tests/forker")
# The workload: one process group (setsid) holding one shell loop per CPU
# and a forker loop, killed as a group at the end.
# shellcheck disable=SC2016  # $(seq) and $_ are the inner shell's
setsid bash -c '
	for _ in $(seq '"$NCPU"'); do
		while :; do sh -c true; ls / >/dev/null; /bin/true; done &
	done
	while :; do "'"$FORKER"'" 200 >/dev/null 2>&1; done &
	wait' </dev/null &
WPID=$!
disown "$WPID"
sleep 0.5

# While -F max runs, the hrtimer interrupts leave the CPUs so little time
# that every fork takes a large fraction of a second, so the sampling below
# uses shell builtins only (no fork): it reads /proc, keeps time with
# EPOCHREALTIME and sleeps with a timed read from a FIFO.
mkfifo "$TMP/sleep.fifo"
exec 3<>"$TMP/sleep.fifo"
now() { NOW=${EPOCHREALTIME/[.,]/}; }   # microseconds
forks() { local k v _; while read -r k v _; do if [ "$k" = processes ]; then FORKS=$v; fi; done </proc/stat; }
machine_facts
echo "psrec -a -F max -g for $SOAK_SECONDS s (max = $(cat /proc/sys/kernel/perf_event_max_sample_rate) Hz), $NCPU CPUs, fork/exec workload"
forks
F0=$FORKS
"$B/psrec" -a -F max -g -o "$TMP/soak.data" 2>"$TMP/psrec.err" &
PID=$!
now
T0=$NOW

# sample: one table row; RSS and fds in $RSS, $FDS
sample() {
	kill -0 "$PID" 2>/dev/null || { cat "$TMP/psrec.err" >&2; echo "soak.sh: FAIL: psrec died" >&2; exit 1; }
	local k v _ hwm=0 wchar=0 fd
	while read -r k v _; do
		case $k in VmRSS:) RSS=$v ;; VmHWM:) hwm=$v ;; esac
	done <"/proc/$PID/status"
	while read -r k v _; do if [ "$k" = wchar: ]; then wchar=$v; fi; done <"/proc/$PID/io"
	fd=("/proc/$PID/fd"/*)
	FDS=${#fd[@]}
	forks
	now
	local t=$(((NOW - T0) / 100000))
	printf "%6d.%d %10s %10s %5s %10d %10d\n" $((t / 10)) $((t % 10)) "$RSS" "$hwm" "$FDS" $((wchar / 1000000)) $((FORKS - F0))
}
# sleep_until T: until T seconds after psrec started
sleep_until() {
	now
	local d=$((T0 + $1 * 1000000 - NOW)) us
	[ "$d" -gt 0 ] || return 0
	printf -v us %06d $((d % 1000000))
	read -r -t "$((d / 1000000)).$us" -u 3 _ || true
}

printf "%8s %10s %10s %5s %10s %10s\n" t_s rss_kb hwm_kb fds written_mb forks
sleep_until 5
sample
RSS0=$RSS
FDS0=$FDS
t=$SOAK_INTERVAL
while [ "$t" -lt "$SOAK_SECONDS" ]; do
	sleep_until "$t"
	sample
	t=$((t + SOAK_INTERVAL))
done
sleep_until "$SOAK_SECONDS"
sample
RSS1=$RSS
FDS1=$FDS

kill -INT "$PID"
code=0
wait "$PID" || code=$?
PID=""
kill -KILL -- "-$WPID" 2>/dev/null || true
WPID=""
cat "$TMP/psrec.err"

FAILED=0
bad() { echo "soak.sh: FAIL: $*" >&2; FAILED=1; }
[ "$code" = 0 ] || [ "$code" = 130 ] || bad "psrec exited $code after SIGINT"
awk -v a="$RSS0" -v b="$RSS1" 'BEGIN { exit !(b <= a * 1.10) }' ||
	bad "RSS grew from $RSS0 kB to $RSS1 kB (more than 10%)"
[ "$FDS1" -le $((FDS0 + 3)) ] || bad "fds grew from $FDS0 to $FDS1"
echo "RSS ${RSS0} -> ${RSS1} kB, fds $FDS0 -> $FDS1"

# The file: perf report over every sample (without call-chain building,
# which takes minutes on GBs), and call chains in perf script's first
# samples.
perf report -i "$TMP/soak.data" --stdio --no-children -g none --sort comm,dso \
	>"$TMP/report.txt" 2>"$TMP/report.err" || bad "perf report exited $?"
samples=$(sed -n 's/^# Samples: \([0-9.]*\)\([KMG]*\) *of event.*/\1 \2/p' "$TMP/report.txt" | head -1 |
	awk '{ n = $1; if ($2 == "K") n *= 1e3; if ($2 == "M") n *= 1e6; if ($2 == "G") n *= 1e9; printf "%d\n", n }')
[ "${samples:-0}" -gt 0 ] || bad "perf report shows no samples"
if grep -Eiv '^Processed [0-9]+ events and lost [0-9]+ chunks!$|^Check IO/CPU overload!$|^Warning:$|^$' "$TMP/report.err" |
	grep -Eiq 'warning|error|out of order|unknown|failed|invalid|not owned'; then
	cat "$TMP/report.err" >&2
	bad "perf report complained about the file"
fi
chains=$(perf script -i "$TMP/soak.data" -F comm,ip 2>/dev/null | head -n 20000 | awk 'NF == 1 && $1 ~ /^[0-9a-f]+$/' | wc -l || true)
[ "$chains" -gt 0 ] || bad "perf script shows no call-chain frames"
"$PDCHECK" "$TMP/soak.data" >"$TMP/pd.txt" 2>&1 || { cat "$TMP/pd.txt" >&2; bad "pdcheck rejects the file"; }
echo "file: $(awk -v b="$(stat -c %s "$TMP/soak.data")" 'BEGIN { printf "%.1f MB", b / 1e6 }'), perf report: ${samples:-0} samples" \
	"($(grep -Eo 'lost [0-9]+ chunks' "$TMP/report.err" || echo 'no lost chunks')), pdcheck: $(awk '$1 == "samples" || $1 == "lost" { printf "%s %s ", $1, $2 }' "$TMP/pd.txt")"
echo "top commands:"
grep -v '^#' "$TMP/report.txt" | grep . | head -n 8 || true
if [ "$FAILED" = 0 ]; then
	echo "soak.sh: ok"
else
	exit 1
fi
