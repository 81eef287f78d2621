#!/bin/bash
# pprof.sh - psrec pprof judged by go tool pprof (issue 15, part 1):
#  - a psrec -g recording of spin: -top gives hot_a/hot_b/hot_c the shares
#    psrec fold gives them (within 1 point), by samples and by period, and
#    the same total; -traces shows main in the stacks; the sample types,
#    the period, wall time and the labels are as written; the build-id of
#    spin's mapping is readelf's;
#  - manythreads (threads named late-N): -tagfocus=comm=late-0 keeps that
#    thread's samples alone, as many as psrec fold --comm late-0 counts;
#    badcomm's name of terminal escapes is an escaped comm label;
#  - perf record's own file, a -z file, a stream on standard input (its
#    CLOCK_DATA a feature record) and a --call-graph dwarf file of nofp
#    decode, with the expected leaf (and main;middle;leaf unwound); a call
#    fold shows inlined is a location's first line of several;
#  - the default output name, -o -, a device written through, errors.
. "$(dirname "$0")/lib.sh"
need_perf
command -v go >/dev/null 2>&1 || skip "go is not installed (Debian: apt-get install golang-go)"

# go tool pprof on a local file needs no network; its caches go to $TMP.
mkdir -p "$TMP/gohome" "$TMP/gocache"
gopprof() {
	HOME=$TMP/gohome GOCACHE=$TMP/gocache GOPATH=$TMP/gohome/go GOFLAGS="" PPROF_TMPDIR=$TMP/gohome \
		go tool pprof -symbolize=none "$@" 2>"$TMP/go.err"
}

# share FOLDED SYM: percent of the weight whose innermost frame is SYM.
share() {
	awk -v s="$2" '{ n = $NF; t += n; k = split($0, f, ";"); sub(/ [0-9]+$/, "", f[k]); if (f[k] == s) m += n }
		END { printf "%.2f", t ? 100 * m / t : 0 }' "$1"
}
# flat TOP SYM: SYM's flat% in a go tool pprof -top text.
flat() {
	awk -v s="$2" '$NF == s && $2 ~ /%$/ { sub("%", "", $2); print $2; exit }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }

# ---- spin, psrec -g ------------------------------------------------------------

"$PSREC" -q -g -e cpu-clock -o "$TMP/g.data" -- "$SPIN" 1 2 || fail "psrec -g failed"
"$PSREC" pprof -i "$TMP/g.data" -o "$TMP/g.pb.gz" 2>"$TMP/pprof.err" || fail "psrec pprof failed: $(cat "$TMP/pprof.err")"
grep -q "wrote $TMP/g.pb.gz" "$TMP/pprof.err" || fail "psrec pprof did not say what it wrote: $(cat "$TMP/pprof.err")"
gzip -t "$TMP/g.pb.gz" || fail "the profile is not gzip"
"$PSREC" fold -i "$TMP/g.data" >"$TMP/g.folded" || fail "psrec fold failed"
"$PSREC" fold --period -i "$TMP/g.data" >"$TMP/gp.folded" || fail "psrec fold --period failed"

gopprof -top -nodefraction=0 "$TMP/g.pb.gz" >"$TMP/top.txt" || fail "go tool pprof -top failed: $(cat "$TMP/go.err")"
gopprof -top -nodefraction=0 -sample_index=cpu "$TMP/g.pb.gz" >"$TMP/topcpu.txt" ||
	fail "go tool pprof -top -sample_index=cpu failed: $(cat "$TMP/go.err")"
for s in hot_a hot_b hot_c; do
	assert_near "$(flat "$TMP/top.txt" "$s")" "$(share "$TMP/g.folded" "$s")" 1 "pprof -top samples: $s"
	assert_near "$(flat "$TMP/topcpu.txt" "$s")" "$(share "$TMP/gp.folded" "$s")" 1 "pprof -top cpu: $s"
done
assert_near "$(flat "$TMP/top.txt" hot_a)" 60 5 "pprof -top: hot_a near spin's 60%"
want=$(total "$TMP/g.folded")
grep -q "Total samples = $want\$\|Total samples = $want " "$TMP/top.txt" ||
	fail "pprof -top total is not fold's $want: $(grep Total "$TMP/top.txt")"
echo "ok: go tool pprof -top: hot_a $(flat "$TMP/top.txt" hot_a)% hot_b $(flat "$TMP/top.txt" hot_b)% hot_c $(flat "$TMP/top.txt" hot_c)%, as psrec fold ($want samples)"

gopprof -traces "$TMP/g.pb.gz" >"$TMP/traces.txt" || fail "go tool pprof -traces failed: $(cat "$TMP/go.err")"
# a trace whose leaf is hot_a and that goes down to main
awk '/^-+\+-+$/ { if (leaf == "hot_a" && m) ok = 1; leaf = ""; m = 0; next }
     /^ +[0-9]+ +[^ ]/ && leaf == "" { leaf = $2; next }
     leaf != "" && $1 == "main" { m = 1 }
     END { if (leaf == "hot_a" && m) ok = 1; exit !ok }' "$TMP/traces.txt" ||
	fail "no -traces stack from hot_a down to main: $(head -20 "$TMP/traces.txt")"
echo "ok: go tool pprof -traces: hot_a ... main"

gopprof -raw "$TMP/g.pb.gz" >"$TMP/raw.txt" || fail "go tool pprof -raw failed: $(cat "$TMP/go.err")"
grep -q '^samples/count\[dflt\] cpu/nanoseconds$' "$TMP/raw.txt" ||
	fail "sample types are not samples/count, cpu/nanoseconds: $(grep -A1 '^Samples' "$TMP/raw.txt")"
grep -q '^PeriodType: cpu nanoseconds$' "$TMP/raw.txt" || fail "period type: $(grep PeriodType "$TMP/raw.txt")"
# cpu-clock at 4000 Hz: 250 us per sample
period=$(awk '$1 == "Period:" { print $2 }' "$TMP/raw.txt")
assert_near "$(awk -v p="$period" 'BEGIN { print p / 1000 }')" 250 25 "period (us)"
# psrec writes CLOCK_DATA: the profile's time is wall time, this year's
grep -q "^Time: $(date -u +%Y)-" "$TMP/raw.txt" || fail "time_nanos is not wall time: $(grep '^Time' "$TMP/raw.txt")"
pid=$(perf script -i "$TMP/g.data" -F pid 2>/dev/null | awk '{ print $1; exit }')
grep -q "pid:\[$pid\]" "$TMP/raw.txt" || fail "no pid:[$pid] label: $(grep -m3 'pid:' "$TMP/raw.txt")"
grep -q "comm:\[spin\] event:\[cpu-clock\]" "$TMP/raw.txt" || fail "no comm and event labels: $(grep -m3 'comm' "$TMP/raw.txt")"
# every sample has all four labels
awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
     s && /^ +[0-9]+ +[0-9]+: / { n++ } s && /comm:\[/ && /event:\[/ { c++ } s && /pid:\[/ && /tid:\[/ { p++ }
     END { exit !(n > 0 && c == n && p == n) }' "$TMP/raw.txt" || fail "a sample lacks a label"
# spin's mapping carries its build-id
bid=$(readelf -n "$SPIN" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "readelf found no build-id in $SPIN"
awk -v f="$SPIN" -v b="$bid" '/^Mappings/ { m = 1; next } m && $3 == f && $4 == b { ok = 1 } END { exit !ok }' "$TMP/raw.txt" ||
	fail "spin's mapping lacks build-id $bid: $(sed -n '/^Mappings/,$p' "$TMP/raw.txt")"
grep -q ' \[kernel.kallsyms\] ' "$TMP/raw.txt" || echo "note: no kernel frames in this recording"
# spin is built with -g: hot_a's source file (absolute) and line
awk '$3 ~ /^M=/ && $4 == "hot_a" && $5 ~ /^\/.*\/tests\/workloads\/spin\.c:[1-9][0-9]*$/ { ok = 1 } END { exit !ok }' "$TMP/raw.txt" ||
	fail "hot_a's locations lack spin.c and a line: $(grep -m3 ' hot_a ' "$TMP/raw.txt")"
grep -q '^File: spin$' "$TMP/top.txt" || fail "the first mapping is not spin's: $(head -2 "$TMP/top.txt")"
echo "ok: sample types, period $period, wall time, labels, spin's build-id $bid"

# ---- threads by name: -tagfocus ------------------------------------------------

"$PSREC" -q -g -e cpu-clock -o "$TMP/m.data" -- "$MANYTHREADS" 0 0 1.5 2 300 >/dev/null || fail "psrec of manythreads failed"
"$PSREC" pprof -q -i "$TMP/m.data" -o "$TMP/m.pb.gz" 2>/dev/null && fail "psrec pprof took an unknown option -q"
"$PSREC" pprof -i "$TMP/m.data" -o "$TMP/m.pb.gz" 2>/dev/null || fail "psrec pprof of manythreads failed"
late=$("$PSREC" fold -i "$TMP/m.data" --comm late-0 | awk '{ t += $NF } END { print t + 0 }')
[ "$late" -gt 50 ] || fail "only $late samples of thread late-0"
# with no node dropped, the nodes shown account for every sample kept
gopprof -top -nodefraction=0 -tagfocus=comm=late-0 "$TMP/m.pb.gz" >"$TMP/late.txt" ||
	fail "-tagfocus=comm=late-0 failed: $(cat "$TMP/go.err")"
grep -q "^Showing nodes accounting for $late, " "$TMP/late.txt" ||
	fail "-tagfocus=comm=late-0 does not keep fold --comm late-0's $late samples: $(grep -i total "$TMP/late.txt")"
grep -q ' late_work$' "$TMP/late.txt" || fail "late-0 has no late_work: $(head -12 "$TMP/late.txt")"
grep -q ' busy_main$' "$TMP/late.txt" && fail "-tagfocus=comm=late-0 kept the main thread's busy_main"
# (a late thread runs as "manythreads" until its creator renames it: not
# only busy_main has that name)
main=$("$PSREC" fold -i "$TMP/m.data" --comm manythreads | awk '{ t += $NF } END { print t + 0 }')
gopprof -top -nodefraction=0 -tagfocus=comm=manythreads "$TMP/m.pb.gz" >"$TMP/main.txt" ||
	fail "-tagfocus=comm=manythreads failed"
grep -q "^Showing nodes accounting for $main, " "$TMP/main.txt" ||
	fail "-tagfocus=comm=manythreads does not keep fold --comm manythreads' $main samples: $(grep -i total "$TMP/main.txt")"
grep -q ' busy_main$' "$TMP/main.txt" || fail "the main thread has no busy_main: $(head -12 "$TMP/main.txt")"
echo "ok: -tagfocus=comm=late-0 keeps that thread alone ($late samples, no busy_main), comm=manythreads fold's $main"

# A thread name of terminal escapes (badcomm: ESC [ 2 J, BEL, "a;b", tab,
# CSI, 0xff): the comm label is stored as psrec fold prints it (UTF-8, as
# a proto3 string must be; ';' kept), and go tool pprof prints no control
# byte of it.
"$PSREC" -q -e cpu-clock -o "$TMP/bc.data" -- "$BADCOMM" 0.3 || fail "psrec of badcomm failed"
"$PSREC" pprof -i "$TMP/bc.data" -o "$TMP/bc.pb.gz" 2>/dev/null || fail "psrec pprof of badcomm failed"
gopprof -tags "$TMP/bc.pb.gz" >"$TMP/bc.tags" || fail "go tool pprof -tags failed: $(cat "$TMP/go.err")"
grep -qF -- '): \x1b[2J\x07a;b\x09\xc2\x9b\xff' "$TMP/bc.tags" || fail "no escaped comm label: $(cat -v "$TMP/bc.tags")"
perl -0777 -ne 'exit(/[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/ ? 1 : 0)' "$TMP/bc.tags" ||
	fail "go tool pprof printed control bytes of the profile: $(cat -v "$TMP/bc.tags")"
echo "ok: a thread name of terminal escapes is an escaped, UTF-8 comm label"

# ---- perf record's file, -z, --call-graph dwarf ------------------------------

# perf record 6.1 here dies at exit ("assertion failed at
# util/build-id.c:1010", then stack smashing) every time with the
# MALLOC_PERTURB_ meson sets for tests, and now and then without it,
# whatever psrec does: without it, a few tries, its diagnostics kept
for try in 1 2 3; do
	env -u MALLOC_PERTURB_ perf record -q -g -e cpu-clock -o "$TMP/pg.data" -- "$SPIN" 1 2 >/dev/null 2>"$TMP/perf.err" && break
	[ "$try" = 3 ] && fail "perf record -g failed 3 times"
done
"$PSREC" pprof -i "$TMP/pg.data" -o "$TMP/pg.pb.gz" 2>/dev/null || fail "psrec pprof of perf record's file failed"
gopprof -top "$TMP/pg.pb.gz" >"$TMP/pg.txt" || fail "go tool pprof of perf's file failed: $(cat "$TMP/go.err")"
assert_near "$(flat "$TMP/pg.txt" hot_a)" 60 5 "perf record's file: hot_a"

"$PSREC" -q -g -z -e cpu-clock -o "$TMP/z.data" -- "$SPIN" 1 2 || fail "psrec -z failed"
"$PSREC" pprof -i "$TMP/z.data" -o "$TMP/z.pb.gz" 2>/dev/null || fail "psrec pprof of a -z file failed"
gopprof -top "$TMP/z.pb.gz" >"$TMP/z.txt" || fail "go tool pprof of the -z file failed: $(cat "$TMP/go.err")"
assert_near "$(flat "$TMP/z.txt" hot_a)" 60 5 "-z file: hot_a"

# 1 s as the others: in half a second under ASan the program's start
# weighed enough to bring hot_a to 54% once (CI), while fold agreed
"$PSREC" -q -g -e cpu-clock -o - -- "$SPIN" 1 2 >"$TMP/pipe.data" || fail "psrec -o - failed"
# shellcheck disable=SC2002  # a pipe, not a file, on purpose
cat "$TMP/pipe.data" | "$PSREC" pprof -i - -o "$TMP/pipe.pb.gz" 2>/dev/null || fail "psrec pprof -i - from a pipe failed"
gopprof -raw "$TMP/pipe.pb.gz" >"$TMP/pipe.txt" || fail "go tool pprof of the stream's profile failed: $(cat "$TMP/go.err")"
grep -q "^Time: $(date -u +%Y)-" "$TMP/pipe.txt" || fail "a stream's profile lacks its wall time: $(grep '^Time' "$TMP/pipe.txt")"
gopprof -top "$TMP/pipe.pb.gz" >"$TMP/pipetop.txt" || fail "go tool pprof -top of the stream's profile failed"
"$PSREC" fold -i "$TMP/pipe.data" >"$TMP/pipe.folded" || fail "psrec fold of the stream failed"
assert_near "$(flat "$TMP/pipetop.txt" hot_a)" "$(share "$TMP/pipe.folded" hot_a)" 1 "a stream on stdin: hot_a against psrec fold"
assert_near "$(flat "$TMP/pipetop.txt" hot_a)" 60 6 "a stream on stdin: hot_a near spin's 60%"

"$PSREC" -q --call-graph dwarf -e cpu-clock -o "$TMP/d.data" -- "$NOFP" 1 || fail "psrec --call-graph dwarf failed"
"$PSREC" pprof -i "$TMP/d.data" -o "$TMP/d.pb.gz" 2>/dev/null || fail "psrec pprof of a dwarf file failed"
gopprof -top "$TMP/d.pb.gz" >"$TMP/d.txt" || fail "go tool pprof of the dwarf file failed: $(cat "$TMP/go.err")"
[ "$(awk '$1 ~ /^[0-9]/ && $2 ~ /%$/ { print $NF; exit }' "$TMP/d.txt")" = leaf ] || fail "dwarf: the top leaf is not leaf: $(head -12 "$TMP/d.txt")"
gopprof -traces "$TMP/d.pb.gz" >"$TMP/dt.txt" || fail "go tool pprof -traces of the dwarf file failed"
awk '/^-+\+-+$/ { if (a == 3) ok = 1; a = 0; next }
     /^ +[0-9]+ +leaf$/ { a = 1; next } a == 1 && $1 == "middle" { a = 2; next } a == 2 && $1 == "main" { a = 3 }
     END { if (a == 3) ok = 1; exit !ok }' "$TMP/dt.txt" || fail "dwarf: no leaf <- middle <- main trace: $(head -20 "$TMP/dt.txt")"
# a call fold shows inlined is the first of several lines of a location
# (-raw prints the further lines indented under it)
"$PSREC" fold -i "$TMP/d.data" >"$TMP/d.folded" || fail "psrec fold of the dwarf file failed"
inl=$(grep -o '[^;]* (inlined)' "$TMP/d.folded" | sed 's/ (inlined)$//' | grep -v ' ' | sort -u | head -n 1)
if [ -n "$inl" ]; then
	gopprof -raw "$TMP/d.pb.gz" >"$TMP/draw.txt" || fail "go tool pprof -raw of the dwarf file failed"
	awk -v n="$inl" '$3 ~ /^M=/ { cur = $4; next } /^             [^ ]/ && cur == n { ok = 1 } { cur = "" }
		END { exit !ok }' "$TMP/draw.txt" || fail "the inlined $inl is no location's first line of several"
	echo "ok: $inl, inlined in the dwarf recording, is a location's innermost line"
fi
echo "ok: perf record's file, a -z file, a stream and a dwarf file decode (hot_a, hot_a, hot_a, leaf <- middle <- main)"

# ---- outputs and errors --------------------------------------------------------

mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$PSREC" pprof -i "$TMP/g.data" 2>/dev/null) || fail "psrec pprof with the default output failed"
cmp -s "$TMP/cwd/profile.pb.gz" "$TMP/g.pb.gz" || fail "the default output is not profile.pb.gz, or differs from -o's"
"$PSREC" pprof -i "$TMP/g.data" -o - 2>/dev/null | cat >"$TMP/stdout.pb.gz"
cmp -s "$TMP/stdout.pb.gz" "$TMP/g.pb.gz" || fail "-o - (a pipe) differs from -o FILE"
if mknod "$TMP/null" c 1 3 2>/dev/null; then
	"$PSREC" pprof -i "$TMP/g.data" -o "$TMP/null" 2>/dev/null || fail "pprof -o a device failed"
	[ -c "$TMP/null" ] || fail "pprof replaced the device it was told to write"
fi
code=0
"$PSREC" pprof -i "$TMP/missing.data" -o "$TMP/missing.pb.gz" 2>"$TMP/bad.err" || code=$?
[ "$code" = 1 ] || fail "missing input: exit $code, not 1"
[ "$(wc -l <"$TMP/bad.err")" = 1 ] || fail "missing input: not one line: $(cat "$TMP/bad.err")"
[ -e "$TMP/missing.pb.gz" ] && fail "a failed pprof left its output"
code=0
"$PSREC" pprof --width 300 -i "$TMP/g.data" 2>"$TMP/bad.err" || code=$?
[ "$code" = 2 ] || fail "a flamegraph option: exit $code, not 2"
grep -q "pprof: unknown option '--width'" "$TMP/bad.err" || fail "a flamegraph option: $(cat "$TMP/bad.err")"
"$PSREC" pprof --help | grep -q '^usage: psrec pprof' || fail "psrec pprof --help"
echo "ok: default output, -o -, -o a device, a missing input, a usage error"
