# lib.sh - helpers shared by the benchmarks (sourced).
#
# The recorder's own cost is measured with tests/benchrun (wait4 of the
# recorder process). Attach-mode runs are used where possible: the recorder
# has no children then, so its rusage is its own alone.

B=${B:-build}
PDCHECK="$B/tests/pdcheck"

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
