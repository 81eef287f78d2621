# shellcheck shell=bash
# lib.sh - shared helpers for psrec's integration tests (sourced by bash).
#
# Environment (set by meson): PSREC, SPIN, PDCHECK; optional PERF (default
# perf). PSREC_REQUIRE_PERF=1 turns every skip into a failure, so CI cannot
# pass by skipping.
set -u

PERF=${PERF:-perf}
TMP=$(mktemp -d /tmp/psrec-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() {
	echo "FAIL: $*" >&2
	# What perf said last, so a failure in CI explains itself.
	if [ -s "$TMP/perf.err" ]; then
		echo "perf's last diagnostics:" >&2
		head -n 20 "$TMP/perf.err" >&2
	fi
	exit 1
}

skip() {
	if [ "${PSREC_REQUIRE_PERF:-0}" = 1 ]; then
		echo "FAIL (PSREC_REQUIRE_PERF=1 forbids skipping): $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# Skip unless perf is installed and the kernel lets us sample.
need_perf() {
	command -v "$PERF" >/dev/null 2>&1 || skip "perf is not installed (Debian: apt-get install linux-perf)"
	local out
	if ! out=$("$PSREC" -q -e cpu-clock -o "$TMP/probe.data" -- true 2>&1); then
		case "$out" in
		*"not allowed"*|*"not supported"*|*"perf_event"*)
			skip "the kernel refuses perf_event_open: $out" ;;
		*)
			fail "psrec probe failed: $out" ;;
		esac
	fi
	rm -f "$TMP/probe.data"
}

# perf report's output on stdout, its diagnostics saved in $TMP/perf.err.
# perf report exits 0 even when it fails, so callers assert on the output.
report() {
	"$PERF" report --stdio "$@" 2>"$TMP/perf.err"
}

# True if a `perf report -g --no-children --sort sym` text shows call chains
# through rec_a/rec_b. perf starts a chain that every sample shares with
# "---rec_b", and one that forks right below the symbol with
# "|--99.95%--rec_b"; both count.
shows_rec_chain() {
	grep -Eq -- '--(-|[0-9.]+%--)rec_[ab]$'
}

# chain_stats FILE: for every sample,
# "<rec_a/rec_b frames> <1 if main> <1 if the sample is in leaf_burn>".
chain_stats() {
	"$PERF" script -i "$1" 2>"$TMP/perf.err" |
		awk '/cpu-clock/ { if (s) print n, m, l; s = 1; n = 0; m = 0; l = 0; k = 0; next }
		     NF >= 2 { if (++k == 1 && $2 ~ /^leaf_burn\+/) l = 1 }
		     /rec_a|rec_b/ { n++ } / main\+/ { m = 1 }
		     END { if (s) print n, m, l }'
}

# assert_deep_chains FILE WHAT: a deeprec recording (depth 50) whose
# leaf_burn samples carry >= 40 rec_a/rec_b frames ending in main, >= 90% of
# them. Only leaf samples count: the rest (exec, exit, and the leak scan an
# ASan build runs at exit) have short chains, and more of them under load.
assert_deep_chains() {
	chain_stats "$1" >"$TMP/chains.txt"
	no_perf_warnings "$2"
	local leaf deep
	leaf=$(awk '$3 == 1' "$TMP/chains.txt" | wc -l)
	deep=$(awk '$3 == 1 && $1 >= 40 && $2 == 1' "$TMP/chains.txt" | wc -l)
	[ "$leaf" -gt 1000 ] || fail "$2: only $leaf samples in leaf_burn"
	awk -v d="$deep" -v t="$leaf" 'BEGIN { exit !(d >= 0.9 * t) }' ||
		fail "$2: only $deep of $leaf leaf_burn samples have >= 40 rec_a/rec_b frames ending in main"
}

# Fail if perf printed a warning or an error while reading.
no_perf_warnings() {
	if grep -Eiq 'warning|error|out of order|unknown|failed|not owned|invalid' "$TMP/perf.err"; then
		cat "$TMP/perf.err" >&2
		fail "perf complained about the file: $*"
	fi
}

# assert_features_like_perf PSREC_HEADER PERF_HEADER WHAT: two
# `perf report --header-only` texts; psrec's lists no feature as missing
# that perf record's has.
header_missing() {
	sed -n 's/^# missing features: //p' "$1" | tr ' ' '\n' | grep . | sort
}
assert_features_like_perf() {
	local extra
	extra=$(comm -23 <(header_missing "$1") <(header_missing "$2"))
	[ -z "$extra" ] || fail "$3: perf record writes features psrec does not: $extra"
}

# Percentage of symbol $1 in a `perf report --no-children --sort sym` text.
sym_pct() {
	awk -v s="$1" '$0 !~ /^#/ && $NF == s { sub("%", "", $1); print $1; exit }'
}

# Assert that number $1 (a percentage) is within $3 points of $2.
assert_near() {
	local got=$1 want=$2 tol=$3 what=$4
	[ -n "$got" ] || fail "$what: not found"
	awk -v g="$got" -v w="$want" -v t="$tol" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }' ||
		fail "$what: $got%, expected $want% +- $tol"
}

# Value of key $1 in pdcheck output $2.
pd_value() {
	awk -v k="$1" '$1 == k { print $2; exit }' <<<"$2"
}

# Start a workload in the background; its pid in $BG_PID. Killed at exit.
BG_PIDS=""
bg_start() {
	"$@" &
	BG_PID=$!
	BG_PIDS="$BG_PIDS $BG_PID"
}
cleanup_bg() {
	for p in $BG_PIDS; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup_bg EXIT

# Number of samples perf report counted ("# Samples: 16K of event" -> 16000).
report_samples() {
	sed -n "s/^# Samples: \([0-9.]*\)\(K*\) *of event.*/\1 \2/p" | head -1 |
		awk '{ n = $1; if ($2 == "K") n *= 1000; printf "%d\n", n }'
}

# ---- waiting for a condition instead of sleeping -----------------------

# poll_until CONDITION TIMEOUT: run CONDITION (a shell command string, or a
# function name with its arguments; eval'd) every 20 ms until it succeeds
# (return 0) or TIMEOUT seconds (fractions allowed) have passed (return 1).
poll_until() {
	local cond=$1 limit start
	limit=$(awk -v t="$2" 'BEGIN { printf "%d", t * 1000000 }')
	start=${EPOCHREALTIME/[.,]/}
	until eval "$cond"; do
		[ $(( ${EPOCHREALTIME/[.,]/} - start )) -lt "$limit" ] || return 1
		sleep 0.02 # the poll interval
	done
}

# wait_until CONDITION TIMEOUT [WHAT]: poll_until, and fail (naming WHAT,
# default CONDITION) if TIMEOUT seconds pass first. Timeouts only bound a
# hang, they are not a measurement: none is shorter than 60 s, for a
# machine busy with other work (CI runs the ASan pass beside two busy
# loops).
wait_until() {
	local t=$2
	awk -v t="$t" 'BEGIN { exit !(t < 60) }' && t=60
	poll_until "$1" "$t" || fail "waited ${t} s for ${3:-$1}"
}

# Conditions for wait_until.
# tasks_at_least PID N: PID exists and has at least N threads.
tasks_at_least() {
	local t=("/proc/$1/task/"*)
	[ -d "/proc/$1/task" ] && [ "${#t[@]}" -ge "$2" ]
}
# runs PID NAME: PID has exec'd NAME (its comm, as perf will show it).
runs() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}
# has_samples FILE [N]: the recording FILE, as it stands (a live one too),
# holds at least N (default 1) samples that psrec's reader can read.
has_samples() {
	local n
	n=$(pd_value samples "$("$PDCHECK" "$1" 2>/dev/null)")
	[ "${n:-0}" -ge "${2:-1}" ]
}
# started ERRFILE: psrec -v printed that recording started (or attached,
# or began -a).
started() {
	grep -Eq '^psrec: (recording .* started in|attached to|recording all processes on) ' "$1"
}
# record_cpu TICKS PID ERRFILE PSREC_ARGS...: psrec -v PSREC_ARGS (an
# attaching recording: -p, -t or -a), its stderr in ERRFILE, stopped with
# SIGINT once PID has had TICKS more clock ticks of CPU (1/100 s each)
# since psrec attached: a recording of a fixed amount of the target's CPU,
# not of the wall clock, so that it holds as many samples on a busy
# machine. Fails unless psrec exits 0 or 130 (stopped by SIGINT).
record_cpu() {
	local ticks=$1 pid=$2 err=$3 rpid t0 rc
	shift 3
	"$PSREC" -v "$@" 2>"$err" &
	rpid=$!
	wait_until "started $err || ! kill -0 $rpid 2>/dev/null" 60 "psrec $* to attach"
	t0=$(cpu_ticks "$pid")
	poll_until "[ \$(cpu_ticks $pid) -ge $((t0 + ticks)) ] || ! kill -0 $rpid 2>/dev/null" 120 ||
		fail "process $pid did not get $ticks ticks of CPU in 120 s"
	kill -INT "$rpid" 2>/dev/null
	wait "$rpid"
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 130 ] || fail "psrec $* exited $rc: $(cat "$err")"
}
# size_at_least FILE BYTES: FILE exists and holds at least BYTES bytes.
size_at_least() {
	[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ]
}
# cpu_ticks PID: user + system CPU time of PID so far (of its threads;
# PID/task/TID: of the thread TID alone), in clock ticks.
cpu_ticks() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	# the fields after "(comm)": state is 3, utime 14, stime 15
	awk '{ print $12 + $13 }' <<<"${stat##*) }"
}
