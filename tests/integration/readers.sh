#!/bin/bash
# readers.sh MODE - the reader matrix: every reader of perf.data we know
# reads psrec's recording of spin (hot_a/b/c at 60/30/10) as well as it
# reads perf record's own recording of the same workload, recorded the
# same way in the same run.
#
# MODE: launch, g (-g), dwarf (--call-graph dwarf), z (-z), pipe (-o -),
# p (-p), t (-t), a (-a). Readers: perf report, perf script, perf report
# --header-only, perf inject (then read back), perf data convert --to-json
# and hotspot's perfparser. Each one's stderr may hold no line (numbers,
# file names and quoted values aside) that it does not also print for perf
# record's file.
# docs/readers.md says what each reader needs; this test keeps it true.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
mode=${1:?usage: readers.sh MODE}
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$HSPARSER" ] || skip "hotspot's perfparser is not installed (Debian: apt-get install hotspot)"
command -v jq >/dev/null || skip "jq is not installed (Debian: apt-get install jq)"

ps="$TMP/ps.data"
pr="$TMP/pr.data"
# psrec records with CLOCK_MONOTONIC; perf record's equal is -k monotonic.
# Its build-id cache of its own: perf 6.1's record aborts ("assertion
# failed at util/build-id.c:1010", then "stack smashing detected") when
# another recorder fills the shared ~/.debug at the same time (seen in CI).
PERF_REC=("$PERF" --buildid-dir "$TMP/perf-debug" record -q -k monotonic -F 999)
PSREC_REC=("$PSREC" -q -F 999)

# ---- recording ---------------------------------------------------------

launch_both() { # OPTIONS...: psrec and perf record launch spin the same way
	"${PSREC_REC[@]}" "$@" -o "$ps" -- "$SPIN" 1 2 2>"$TMP/psrec.err" ||
		fail "psrec $* failed: $(cat "$TMP/psrec.err")"
	"${PERF_REC[@]}" "$@" -o "$pr" -- "$SPIN" 1 2 >/dev/null 2>"$TMP/perf.err" ||
		fail "perf record $* failed"
}

attach_both() { # PSREC_TARGET PERF_TARGET: both attach to a running spin
	# psrec for 1.5 s of spin's CPU (record_cpu), however busy the machine:
	# with -t, of the main thread's own (the process's CPU is three
	# threads', of which the loaded machine may give the main one little)
	local who=$pid
	[ "$mode" != t ] || who=$pid/task/$pid
	# shellcheck disable=SC2086  # each target is an option and its value ("-p 123")
	record_cpu 150 "$who" "$TMP/psrec.err" -F 999 $1 -o "$ps"
	# shellcheck disable=SC2086  # as above
	"${PERF_REC[@]}" $2 -o "$pr" -- sleep 1 >/dev/null 2>"$TMP/perf.err" ||
		fail "perf record $2 failed"
}

pid=""
case $mode in
launch) launch_both ;;
g) launch_both -g ;;
dwarf) launch_both --call-graph dwarf ;;
z) launch_both -z ;;
pipe)
	"${PSREC_REC[@]}" -o - -- "$SPIN" 1 2 >"$ps" 2>"$TMP/psrec.err" ||
		fail "psrec -o - failed: $(cat "$TMP/psrec.err")"
	"${PERF_REC[@]}" -o - -- "$SPIN" 1 2 >"$pr" 2>"$TMP/perf.err" || fail "perf record -o - failed" ;;
p|t|a)
	bg_start "$SPIN" 30 2
	pid=$BG_PID
	# -a: a second process that existed before, of another binary.
	[ "$mode" = a ] && bg_start "$DEEPREC" 30
	# spin 30 2 runs as 3 threads: main, its timekeeper and a second worker
	wait_until "tasks_at_least $pid 3 && runs $pid spin && { [ $mode != a ] || runs $BG_PID deeprec; }" 30 \
		"the workloads to start"
	case $mode in
	# psrec's MMAP2 records carry build-ids: perf's do with --buildid-mmap.
	p) attach_both "-p $pid" "--buildid-mmap -p $pid" ;;
	t) attach_both "-t $pid" "--buildid-mmap -t $pid" ;;  # spin's main thread runs a worker
	a) attach_both "-a" "--buildid-mmap -a" ;;
	esac
	# recorded: they need not burn the CPU the readers want
	for p in $BG_PIDS; do kill "$p"; done ;;
*) fail "unknown mode $mode" ;;
esac
{ [ -s "$ps" ] && [ -s "$pr" ]; } || fail "$mode: a recording is empty"

# What existed before the recording: psrec describes the workload with the
# COMM and MMAP2 records perf record writes for it, in the same order, and
# no FORK (one naming the real parent makes hotspot resolve nothing).
if [ -n "$pid" ]; then
	synthesized() {
		"$PERF" script -i "$1" --show-task-events --show-mmap-events 2>/dev/null |
			grep -E " 0\.000000: PERF_RECORD_(COMM|MMAP2|FORK)" | grep -E "[ :(]${pid}[/:]" |
			sed -E 's/^.* 0\.000000: //'
	}
	synthesized "$ps" >"$TMP/ps.synth"
	synthesized "$pr" | grep -v PERF_RECORD_FORK >"$TMP/pr.synth"
	[ -s "$TMP/pr.synth" ] || fail "$mode: perf record describes no existing spin"
	! grep -q PERF_RECORD_FORK "$TMP/ps.synth" || fail "$mode: psrec synthesized a FORK: $(grep FORK "$TMP/ps.synth")"
	diff "$TMP/pr.synth" "$TMP/ps.synth" >&2 ||
		fail "$mode: psrec describes the running spin otherwise than perf record does"
fi

# ---- helpers -----------------------------------------------------------

# One line per distinct diagnostic, numbers, file names and quoted values
# (hotspot quotes the VERSION feature) blanked out.
normalize() {
	sed -E "s#$TMP/[A-Za-z0-9._-]*#FILE#g; s/\"[^\"]*\"/\"...\"/g; s/0x[0-9a-fA-F]+/HEX/g; s/[0-9]+/N/g" "$1" | sort -u
}

# same_stderr READER: psrec's file made READER say nothing new. A -z
# file starts its data with a HEADER_FEATURE record (COMPRESSED, so that a
# killed recording decompresses; docs/writer.md): perfparser 4.12 calls
# that type unhandled, as it does for the 19 that perf inject writes into
# a file made from a perf record stream.
same_stderr() {
	local extra
	extra=$(comm -23 <(normalize "$TMP/ps.err") <(normalize "$TMP/pr.err") |
		{ if [ "$mode" = z ]; then grep -v '^unhandled event type N *PERF_RECORD_HEADER_FEATURE$'; else cat; fi; })
	[ -z "$extra" ] || fail "$mode: $1 says, for psrec's file only: $extra"
}

# run_both NAME CMD...: CMD with FILE replaced by each recording; stdout
# in $TMP/{ps,pr}.NAME, stderr in $TMP/{ps,pr}.err.
run_both() {
	local name=$1 f which
	shift
	for which in ps pr; do
		f="$TMP/$which.data"
		"${@//FILE/$f}" >"$TMP/$which.$name" 2>"$TMP/$which.err"
	done
	cp "$TMP/ps.err" "$TMP/perf.err"   # for fail()'s diagnostics
}

# The sample filter: the spin process (perf's own exec and, with -a, the
# rest of the system are not the workload).
if [ -n "$pid" ]; then
	REPORT_FILTER=(--pid "$pid" --percentage relative)
else
	REPORT_FILTER=(--comm spin --percentage relative)
fi

# share_of SYM REPORT_TEXT: a --sort sym percentage, or 0.
share_of() {
	local v
	v=$(sym_pct "$1" <"$2")
	echo "${v:-0}"
}

# ---- perf report -------------------------------------------------------

run_both report "$PERF" report --stdio -i FILE --no-children --sort sym "${REPORT_FILTER[@]}"
same_stderr "perf report"
grep -q "^# Samples: " "$TMP/ps.report" || fail "$mode: perf report shows no samples"
for s in hot_a:60 hot_b:30 hot_c:10; do
	assert_near "$(share_of "${s%:*}" "$TMP/ps.report")" "${s#*:}" 5 "$mode: perf report ${s%:*}"
done

# ---- perf script -------------------------------------------------------

pd=$("$PDCHECK" "$ps") || fail "$mode: psrec's reader cannot read the file"
samples=$(pd_value samples "$pd")
[ "${samples:-0}" -gt 500 ] || fail "$mode: only ${samples:-0} samples"
run_both script "$PERF" script -i FILE -F comm,tid,ip,sym
same_stderr "perf script"
if [ "$mode" = g ] || [ "$mode" = dwarf ]; then
	# one line per frame, samples separated by blank lines
	n=$(awk 'BEGIN { RS = "" } END { print NR }' "$TMP/ps.script")
else
	n=$(wc -l <"$TMP/ps.script")
fi
[ "$n" = "$samples" ] || fail "$mode: perf script shows $n samples, psrec's reader $samples"
grep -q "hot_a" "$TMP/ps.script" || fail "$mode: perf script does not resolve hot_a"
# Call chains: a hot_* sample's chain reaches its thread's entry, main or
# start_thread (frame pointers skip worker, gcc's leaf-frame quirk; dwarf
# shows it).
chained() { # FILE: "reaching total" over the hot_* samples
	awk 'BEGIN { RS = "" } { split($0, l, "\n"); if (l[2] !~ / hot_[abc]/) next
		n++; if ($0 ~ / (main|start_thread)(\+0x[0-9a-f]+)?(\n|$)/) c++ }
		END { printf "%d %d", c, n }' "$1"
}
if [ "$mode" = g ] || [ "$mode" = dwarf ]; then
	c=$(chained "$TMP/ps.script")
	awk -v c="$c" 'BEGIN { split(c, x, " "); exit !(x[2] > 500 && x[1] >= 0.9 * x[2]) }' ||
		fail "$mode: perf script shows chains to main or start_thread for only $c hot_* samples"
fi

# ---- perf report --header-only ----------------------------------------

run_both header "$PERF" report --header-only -i FILE
same_stderr "perf report --header-only"
grep -qx "# hostname : $(uname -n)" "$TMP/ps.header" || fail "$mode: --header-only shows no hostname"
if [ "$mode" != pipe ]; then
	assert_features_like_perf "$TMP/ps.header" "$TMP/pr.header" "$mode"
fi

# ---- perf inject, then read back ---------------------------------------

if [ "$mode" = pipe ]; then
	# A pipe stream is injected from stdin (perf 6.1's inject -i FILE of
	# a pipe stream writes an unreadable file, from perf's own stream
	# too); -o FILE turns the stream into a file.
	for which in ps pr; do
		"$PERF" inject -o "$TMP/$which.data.inj" <"$TMP/$which.data" 2>"$TMP/$which.err"
	done
else
	run_both inject "$PERF" inject -i FILE -o FILE.inj
fi
same_stderr "perf inject"
"$PERF" report --stdio -i "$ps.inj" --no-children --sort sym "${REPORT_FILTER[@]}" >"$TMP/ps.inj.report" 2>"$TMP/perf.err"
no_perf_warnings "$mode: perf report of perf inject's output"
for s in hot_a hot_b hot_c; do
	[ "$(share_of $s "$TMP/ps.inj.report")" = "$(share_of $s "$TMP/ps.report")" ] ||
		fail "$mode: $s is $(share_of $s "$TMP/ps.inj.report")% after perf inject, $(share_of $s "$TMP/ps.report")% before"
done

# ---- perf data convert --to-json ---------------------------------------

if [ "$mode" = pipe ]; then
	# perf 6.1's converter crashes (SIGSEGV) on a pipe stream and on the
	# file perf inject makes of one, perf record's as well as psrec's:
	# both must fail alike.
	for which in ps pr; do
		for f in "$TMP/$which.data" "$TMP/$which.data.inj"; do
			"$PERF" data convert --to-json "$f.json" -i "$f" >/dev/null
			echo $?
		done >"$TMP/$which.rc" 2>/dev/null
	done
	cmp -s "$TMP/ps.rc" "$TMP/pr.rc" ||
		fail "$mode: perf data convert exits $(paste -sd' ' "$TMP/ps.rc") on psrec's stream, $(paste -sd' ' "$TMP/pr.rc") on perf's"
else
	run_both json "$PERF" data convert --to-json FILE.json -i FILE
	same_stderr "perf data convert --to-json"
	jq -e . "$ps.json" >/dev/null 2>&1 || fail "$mode: perf data convert --to-json wrote invalid JSON"
	js=$(jq '.samples | length' "$ps.json")
	[ "$js" = "$samples" ] || fail "$mode: the JSON holds $js samples, psrec's reader $samples"
	if [ "$mode" = dwarf ]; then
		# The converter does not unwind: a dwarf sample's chain is the
		# kernel part only, for perf record's file too.
		n_spin=$(jq '[.samples[] | select(.comm == "spin")] | length' "$ps.json")
		[ "$n_spin" -ge $((samples * 9 / 10)) ] || fail "$mode: only $n_spin of $samples JSON samples have comm spin"
	else
		hot=$(jq '[.samples[] | select(.callchain[0].symbol == "hot_a")] | length' "$ps.json")
		[ "$hot" -gt 0 ] || fail "$mode: no hot_a sample in the JSON"
	fi
fi

# ---- hotspot's perfparser ----------------------------------------------

run_both hs "$HSPARSER" --input FILE --output FILE.pp
same_stderr "hotspot-perfparser"
if [ "$mode" = z ]; then
	# Debian's perfparser 4.12 is built without zstd: it refuses -z
	# files, perf record's as well as psrec's, with this message.
	grep -q "zstd decompression support not available" "$TMP/ps.err" ||
		fail "$mode: hotspot did not refuse the compressed file as expected: $(cat "$TMP/ps.err")"
	echo "ok: $mode read by every reader as perf record's file is (hotspot: refused, as it refuses perf's)"
	exit 0
fi
"$HSDECODE" --no-inline "$ps.pp" >"$TMP/ps.hs" || fail "$mode: cannot decode hotspot's output"
# Samples of the workload: its pid (attach), else comm spin's pids.
if [ -n "$pid" ]; then
	want="^$pid\$"
else
	want=$(awk '$1 == "command" && $4 == "spin" { print "^" $2 "$" }' "$TMP/ps.hs" | sort -u | paste -sd'|')
	[ -n "$want" ] || fail "$mode: hotspot names no process spin"
fi
awk -F'\t' -v want="$want" '
	$1 ~ /^sample / { split($1, f, " "); if (f[2] !~ want) next
		n++; split($2, leaf, "@"); if (leaf[2] != "?") bin++; sym[leaf[1]]++ }
	END { printf "total %d\nbinary %d\n", n, bin; for (s in sym) printf "sym %s %d\n", s, sym[s] }' \
	"$TMP/ps.hs" >"$TMP/ps.hs.sum"
total=$(awk '$1 == "total" { print $2 }' "$TMP/ps.hs.sum")
binary=$(awk '$1 == "binary" { print $2 }' "$TMP/ps.hs.sum")
[ "${total:-0}" -gt 500 ] || fail "$mode: hotspot decoded only ${total:-0} samples of spin"
awk -v b="$binary" -v t="$total" 'BEGIN { exit !(b >= 0.95 * t) }' ||
	fail "$mode: hotspot ties only $binary of $total spin samples to a binary"
for s in hot_a hot_b hot_c; do
	hs=$(awk -v s=$s -v t="$total" '$1 == "sym" && $2 == s { printf "%.2f", 100 * $3 / t }' "$TMP/ps.hs.sum")
	assert_near "${hs:-0}" "$(share_of $s "$TMP/ps.report")" 2 "$mode: hotspot's $s against perf report's"
done
if [ "$mode" = g ] || [ "$mode" = dwarf ]; then
	chains=$(awk -F'\t' -v want="$want" '$1 ~ /^sample / { split($1, f, " "); if (f[2] !~ want) next
		if ($2 !~ /^hot_[abc]@/) next
		n++; if ($0 ~ /\t(main|start_thread)@/) m++ } END { printf "%d %d", m, n }' "$TMP/ps.hs")
	awk -v c="$chains" 'BEGIN { split(c, x, " "); exit !(x[2] > 500 && x[1] >= 0.9 * x[2]) }' ||
		fail "$mode: hotspot unwinds to main or start_thread for only $chains hot_* samples"
fi
if [ "$mode" = a ]; then
	# Every process that existed before: hotspot leaves no more samples
	# unresolved than perf report does (perf record's own -a file resolves
	# nothing of them in hotspot when its first flush holds a sample).
	hs_unres=$(awk -F'\t' '$1 ~ /^sample / { n++; if ($2 ~ /^\?@/) u++ } END { print u + 0 }' "$TMP/ps.hs")
	hs_n=$(awk '$1 == "samples" { print $2 }' "$TMP/ps.hs")
	# perf's [unknown] symbols, and [vdso], which hotspot never reads
	pf_unres=$("$PERF" script -i "$ps" -F ip,sym,dso 2>/dev/null | grep -c '\[unknown\]\|(\[vdso\])')
	if ! awk -v h="$hs_unres" -v p="$pf_unres" -v n="$hs_n" 'BEGIN { exit !(h <= p + 0.01 * n) }'; then
		awk -F'\t' '$1 ~ /^command / { split($1, f, " "); c[f[2]] = f[4] }
			$1 ~ /^sample / && $2 ~ /^\?@/ { split($1, f, " "); u[f[2]]++ }
			END { for (p in u) print "unresolved in hotspot:", u[p], "samples of pid", p, c[p] }' "$TMP/ps.hs" >&2
		fail "$mode: hotspot leaves $hs_unres of $hs_n samples unresolved, perf $pf_unres"
	fi
	# of its user-space samples (a kernel symbol is "name@?": on a busy
	# machine the scheduler's share of its samples grows)
	dr=$(awk -F'\t' -v p="$BG_PID" '$1 ~ "^sample " p " " && !($2 ~ /@\?$/ && $2 !~ /^\?@/) {
			n++; if ($2 ~ /^(leaf_burn|rec_[ab])@/) k++ }
		END { printf "%d %d", k, n }' "$TMP/ps.hs")
	awk -v c="$dr" 'BEGIN { split(c, x, " "); exit !(x[2] > 200 && x[1] >= 0.95 * x[2]) }' ||
		fail "$mode: hotspot resolves deeprec (started before the recording) in only $dr samples"
fi
echo "ok: $mode read by every reader as perf record's file is; hotspot resolves $binary of $total samples"
