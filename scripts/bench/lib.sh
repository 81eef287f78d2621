# shellcheck shell=bash
# lib.sh - helpers shared by the benchmarks (sourced).
#
# The recorder's own cost is measured with tests/benchrun (wait4 of the
# recorder process). Attach-mode runs are used where possible: the recorder
# has no children then, so its rusage is its own alone.

B=${B:-build}
PDCHECK="$B/tests/pdcheck"

# bench_setup PREFIX: a scratch dir in $TMP, removed at exit together with
# every workload whose pid was added to BENCH_PIDS.
BENCH_PIDS=""
bench_cleanup() {
	local p
	for p in $BENCH_PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
bench_setup() {
	TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	trap bench_cleanup EXIT
}

# median of the numbers on stdin
median() {
	sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# kv KEY FILE: the value of key=value in a benchrun report
kv() {
	sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$2"
}

# pd KEY FILE: a value from pdcheck's report on a perf.data (psrec's or perf's)
pd() {
	"$PDCHECK" "$2" 2>/dev/null | awk -v k="$1" '$1 == k { print $2; exit }'
}

machine_facts() {
	echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r), $(perf --version), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
}

# bench_run RESULT CMD...: one recording; the word @OUT@ in CMD becomes a
# fresh output file. Appends to RESULT one line:
#   bytes samples bytes/sample cpu_s lost maxrss_kb wall_s
# (cpu_s: the recorder's exact time on CPU, from its schedstat)
# (samples and lost read back with pdcheck, which reads perf's files too;
# lost = the larger of the LOST and LOST_SAMPLES counts).
bench_run() {
	local result=$1
	shift
	local data="$TMP/run.data"
	rm -f "$data"
	local args=()
	for a in "$@"; do [ "$a" = @OUT@ ] && args+=("$data") || args+=("$a"); done
	"$B/tests/benchrun" "$TMP/cost" "${args[@]}" >/dev/null 2>&1 || true
	local bytes samples lost ls
	bytes=$(stat -c %s "$data" 2>/dev/null || echo 0)
	samples=$(pd samples "$data")
	lost=$(pd lost "$data")
	ls=$(pd lost_samples "$data")
	[ "${ls:-0}" -gt "${lost:-0}" ] && lost=$ls
	awk -v b="$bytes" -v s="${samples:-0}" -v c="$(kv run_s "$TMP/cost")" \
		-v l="${lost:-0}" -v r="$(kv maxrss_kb "$TMP/cost")" -v w="$(kv wall_s "$TMP/cost")" \
		'BEGIN { printf "%d %d %.1f %.4f %d %d %.3f\n", b, s, s ? b / s : 0, c, l, r, w }' >>"$result"
}

# col FILE N: the median of column N of a bench_run result file
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
