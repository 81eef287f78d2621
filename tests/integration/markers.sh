#!/bin/bash
# markers.sh - user markers (issue 16): a program's psrec_mark calls land in
# the recording as samples of psrec:marker that stock perf shows.
#  - phases under psrec -g -F 4000: perf script shows every marker in time
#    order among the samples, >= 90% of hot_phase_N's samples between
#    "phase N begin" and "phase N end"; perf report lists the event with no
#    warning; the typed marker shows its type; hotspot's perfparser says
#    nothing of the file that it does not say of a --no-markers one; the
#    summary counts the markers; --no-markers writes none;
#  - the API without psrec: the same output, exit 0;
#  - -p attach mode delivers markers (markattach);
#  - a flood of 1M markers/s for 2 s: no call sleeps, written + dropped =
#    sent, no cpu-clock sample lost, flood_spin sampled as its CPU time
#    says (how fast the calls are is scripts/bench/markers.sh's: a test
#    must pass on a busy machine);
#  - bad payloads (markbad): escaped, cut ones flagged [truncated];
#  - -z, -o -, kill -9 (what the last checkpoint covered), --switch-output
#    chunks;
#  - psrec fold/flamegraph leave markers out unless asked, --between draws
#    one phase; psrec markers lists them, spans paired.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
for v in PHASES MARKFLOOD MARKBAD MARKATTACH; do
	[ -n "${!v:-}" ] || fail "\$$v is not set (tests/integration/meson.build)"
done

# mscript FILE [PERF SCRIPT OPTIONS]: perf script of FILE, one line an
# event: "TIME<TAB>EVENT<TAB>REST", REST a marker's text as perf prints it
# (after "psrec:marker: "), a sample's leaf symbol. Diagnostics in
# $TMP/perf.err.
mscript() {
	local f=$1
	shift
	"$PERF" script --ns -G -i "$f" "$@" -F trace:comm,tid,time,event,trace -F sw:comm,tid,time,event,ip,sym \
		2>"$TMP/perf.err" | awk '
		{ for (i = 1; i <= NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++) ; if (i > NF) next
		  t = $i; sub(/:$/, "", t)
		  r = substr($0, index($0, " " $i " ") + length($i) + 2); sub(/^ +/, "", r)
		  e = r; sub(/ .*/, "", e); r = substr(r, length(e) + 2); sub(/:$/, "", e)
		  if (e != "psrec:marker") { sub(/^ +/, "", r); n = split(r, w, " "); r = n >= 2 ? w[2] : "?" }
		  printf "%s\t%s\t%s\n", t, e, r }'
}
# markers_of SCRIPT: the marker texts of an mscript output, in order.
markers_of() {
	awk -F'\t' '$2 == "psrec:marker" { print $3 }' "$1"
}
# summary_markers ERRFILE: "written dropped truncated" from psrec's summary.
summary_markers() {
	sed -En 's/.*markers: ([0-9]+) written, ([0-9]+) dropped.*, ([0-9]+) truncated.*/\1 \2 \3/p' "$1" | tail -1
}
# expected_phases N: the texts phases N writes, in order.
expected_phases() {
	echo "begin: all"
	echo "[type 7]"
	for i in $(seq "$1"); do
		echo "phase $i begin"
		echo "phase $i end"
	done
	echo "end: all"
}
# same_markers WHAT SCRIPT N: the markers of SCRIPT are phases N's, in
# order (the typed one compared by its "[type 7]" prefix), and no event in
# SCRIPT goes back in time.
same_markers() {
	markers_of "$2" | sed -E 's/^(\[type 7\]).*/\1/' >"$TMP/got.txt"
	expected_phases "$3" >"$TMP/want.txt"
	diff "$TMP/want.txt" "$TMP/got.txt" >&2 || fail "$1: perf script shows other markers, or in another order"
	awk -F'\t' 'NR > 1 && $1 < p { bad++ } { p = $1 } END { exit bad > 0 }' "$2" ||
		fail "$1: perf script's times go back"
}
# flood_kv KEY: a value of markflood's report line.
flood_kv() {
	tr ' ' '\n' <"$TMP/fl.out" | sed -n "s/^$1=//p"
}

# ---- without psrec: the same output, exit 0 ---------------------------

"$PHASES" 3 100 >"$TMP/plain.out" 2>"$TMP/plain.err" || fail "phases without psrec exited $?: $(cat "$TMP/plain.err")"
printf 'phase 1 done\nphase 2 done\nphase 3 done\ndone\n' | diff - "$TMP/plain.out" >&2 ||
	fail "phases without psrec printed something else"
[ ! -s "$TMP/plain.err" ] || fail "phases without psrec wrote to stderr: $(cat "$TMP/plain.err")"
"$MARKBAD" || fail "markbad without psrec exited $?"
echo "ok: without psrec, phases prints its lines and exits 0"

# ---- phases under psrec -g -F 4000 ----------------------------------------

ph="$TMP/ph.data"
"$PSREC" -g -e cpu-clock -F 4000 -o "$ph" -- "$PHASES" 3 400 >"$TMP/ph.out" 2>"$TMP/ph.err" ||
	fail "psrec -- phases exited $?: $(cat "$TMP/ph.err")"
# (psrec -- CMD sends the command's stdout to its own)
grep -v '^psrec: ' "$TMP/ph.out" | diff "$TMP/plain.out" - >&2 || fail "phases printed otherwise under psrec"
read -r w d t <<<"$(summary_markers "$TMP/ph.err")"
{ [ "${w:-}" = 9 ] && [ "$d" = 0 ] && [ "$t" = 0 ]; } ||
	fail "summary: wanted 9 markers written, 0 dropped, 0 truncated: $(cat "$TMP/ph.err")"
grep -Eq '^psrec: wrote .*, 0 lost\)' "$TMP/ph.err" || fail "summary: samples lost: $(cat "$TMP/ph.err")"

mscript "$ph" >"$TMP/ph.txt"
no_perf_warnings "perf script of phases"
same_markers "phases" "$TMP/ph.txt" 3
grep -Eq $'\tpsrec:marker\t\\[type 7\\] .*de ?ad ?be ?ef' "$TMP/ph.txt" ||
	fail "the typed marker does not show type 7 and its bytes: $(grep -F '[type' "$TMP/ph.txt")"
# hot_phase_N's samples lie between phase N's markers
for n in 1 2 3; do
	read -r inside total <<<"$(awk -F'\t' -v n="$n" '
		$2 == "psrec:marker" && $3 == "phase " n " begin" { b = $1 }
		$2 == "psrec:marker" && $3 == "phase " n " end" { e = $1 }
		$2 == "cpu-clock" && $3 == "hot_phase_" n { t[++k] = $1 }
		END { for (i = 1; i <= k; i++) if (t[i] >= b && t[i] <= e) m++; print m + 0, k + 0 }' "$TMP/ph.txt")"
	[ "$total" -ge 200 ] || fail "only $total samples of hot_phase_$n (400 ms at 4000 Hz)"
	awk -v i="$inside" -v t="$total" 'BEGIN { exit !(i >= 0.9 * t) }' ||
		fail "only $inside of $total samples of hot_phase_$n lie between its markers"
	echo "ok: $inside of $total hot_phase_$n samples between phase $n begin and end"
done

txt=$(report -i "$ph")
no_perf_warnings "perf report of phases"
grep -Eq "^# Samples: 9 +of event 'psrec:marker'" <<<"$txt" ||
	fail "perf report does not list 9 samples of psrec:marker: $(grep '^# Samples' <<<"$txt")"
grep -Eq "^# Samples: .* of event 'cpu-clock'" <<<"$txt" || fail "perf report lists no cpu-clock"
"$PERF" report --stdio -i "$ph" --header-only >"$TMP/hdr.txt" 2>"$TMP/perf.err"
no_perf_warnings "perf report --header-only of phases"
grep -q 'psrec:marker' "$TMP/hdr.txt" || fail "the header names no psrec:marker event"
echo "ok: perf script shows the 9 markers in order, perf report lists psrec:marker"

# --no-markers: none written, the same output
ph0="$TMP/ph0.data"
"$PSREC" --no-markers -g -e cpu-clock -F 4000 -o "$ph0" -- "$PHASES" 3 100 >"$TMP/ph0.out" 2>"$TMP/ph0.err" ||
	fail "psrec --no-markers exited $?: $(cat "$TMP/ph0.err")"
grep -v '^psrec: ' "$TMP/ph0.out" | diff "$TMP/plain.out" - >&2 || fail "phases printed otherwise under --no-markers"
mscript "$ph0" >"$TMP/ph0.txt"
no_perf_warnings "perf script of a --no-markers recording"
[ -z "$(markers_of "$TMP/ph0.txt")" ] || fail "--no-markers wrote markers"
grep -q 'markers:' "$TMP/ph0.err" && fail "--no-markers still reports markers: $(cat "$TMP/ph0.err")"
echo "ok: --no-markers writes none"

# hotspot's perfparser: nothing it does not say of the file without markers
if [ -x "$HSPARSER" ]; then
	# (numbers and quoted values blanked; "invalid callchain context" is
	# of the workload's stacks: the kernel's frame-pointer walk of a
	# sanitized phases once ended in a return address of -1)
	hs_normalize() {
		grep -v 'invalid callchain context' "$1" |
			sed -E 's/"[^"]*"/"..."/g; s/PerfHeader::[A-Z_]+/PerfHeader::F/g; s/[0-9]+/N/g' | sort -u
	}
	"$HSPARSER" --input "$ph0" --output "$TMP/ph0.pp" 2>"$TMP/hs0.err" || fail "hotspot-perfparser failed on --no-markers: $(cat "$TMP/hs0.err")"
	"$HSPARSER" --input "$ph" --output "$TMP/ph.pp" 2>"$TMP/hs.err" || fail "hotspot-perfparser failed on markers: $(cat "$TMP/hs.err")"
	extra=$(comm -23 <(hs_normalize "$TMP/hs.err") <(hs_normalize "$TMP/hs0.err"))
	[ -z "$extra" ] || fail "hotspot-perfparser says of the markers' file: $extra"
	"$HSDECODE" --no-inline "$TMP/ph.pp" >"$TMP/ph.hs" || fail "cannot decode hotspot's output"
	! grep -q '^error ' "$TMP/ph.hs" || fail "hotspot-perfparser reports errors: $(grep '^error ' "$TMP/ph.hs" | head -3)"
	hot=$(awk -F'\t' '$1 ~ /^sample / && $2 ~ /^hot_phase_[123]@/ { n++ } END { print n + 0 }' "$TMP/ph.hs")
	[ "$hot" -ge 600 ] || fail "hotspot resolves hot_phase_* in only $hot samples"
	echo "ok: hotspot's perfparser reads it ($hot hot_phase samples)"
else
	echo "note: hotspot's perfparser is not installed, not checked"
fi

# ---- psrec markers, fold, flamegraph --------------------------------------

"$PSREC" markers -i "$ph" >"$TMP/list.txt" 2>"$TMP/list.err" || fail "psrec markers failed: $(cat "$TMP/list.err")"
for m in "phase 1 begin" "phase 1 end" "phase 2 begin" "phase 3 end" "[type 7]"; do
	grep -qF "$m" "$TMP/list.txt" || fail "psrec markers does not list '$m': $(cat "$TMP/list.txt")"
done
# The span "all" paired: in the spans section, under a header
# "START DURATION UNIT ...", a line for it lasting about the 1.2 s it did.
dur=$(awk '/^# spans/ { s = 1; next }
	s && /^#/ && /DURATION/ { for (i = 2; i <= NF; i++) if ($i == "DURATION") { c = i - 1; u = $(i + 1) }; next }
	s && c && $NF == "all" { print $c * (u == "s" ? 1000 : u == "us" ? 0.001 : 1); exit }' "$TMP/list.txt")
[ -n "$dur" ] || fail "psrec markers shows the span all with no duration: $(cat "$TMP/list.txt")"
awk -v d="$dur" 'BEGIN { exit !(d >= 1150 && d <= 2500) }' || fail "the span all lasted ${dur} ms, phases ran 1200 ms"
echo "ok: psrec markers lists them, the span all paired (${dur} ms)"

"$PSREC" fold -i "$ph" >"$TMP/ph.folded" 2>"$TMP/fold.err" || fail "psrec fold failed: $(cat "$TMP/fold.err")"
cpu=$(awk -F'\t' '$2 == "cpu-clock"' "$TMP/ph.txt" | wc -l)
folded=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/ph.folded")
[ "$folded" = "$cpu" ] || fail "psrec fold folded $folded samples, the file has $cpu of cpu-clock"
"$PSREC" fold --event psrec:marker -i "$ph" >"$TMP/mk.folded" 2>"$TMP/fold.err" ||
	fail "psrec fold --event psrec:marker failed: $(cat "$TMP/fold.err")"
[ "$(awk '{ t += $NF } END { print t + 0 }' "$TMP/mk.folded")" = 9 ] ||
	fail "psrec fold --event psrec:marker: $(cat "$TMP/mk.folded")"
"$PSREC" flamegraph -i "$ph" -o "$TMP/ph.svg" 2>"$TMP/fg.err" || fail "psrec flamegraph failed: $(cat "$TMP/fg.err")"
for n in 1 2 3; do grep -q "<title>hot_phase_$n " "$TMP/ph.svg" || fail "the flamegraph draws no hot_phase_$n"; done
root=$(grep -o 'data-samples="[0-9]*"' "$TMP/ph.svg" | head -1 | tr -dc 0-9)
[ "$root" = "$cpu" ] || fail "the flamegraph draws $root samples, the file has $cpu of cpu-clock"
echo "ok: fold and flamegraph leave the markers out ($cpu samples), fold --event psrec:marker folds the 9"

"$PSREC" flamegraph --between 'phase 2 begin','phase 2 end' -i "$ph" -o "$TMP/p2.svg" 2>"$TMP/fg.err" ||
	fail "psrec flamegraph --between failed: $(cat "$TMP/fg.err")"
grep -q '<title>hot_phase_2 ' "$TMP/p2.svg" || fail "flamegraph --between phase 2 does not draw hot_phase_2"
! grep -q '<title>hot_phase_[13] ' "$TMP/p2.svg" || fail "flamegraph --between phase 2 draws hot_phase_1 or 3"
# user space only: on a busy machine the scheduler's kernel samples in
# the window grow
"$PSREC" fold --no-kernel --between 'phase 2 begin','phase 2 end' -i "$ph" >"$TMP/p2.folded" 2>"$TMP/fold.err" ||
	fail "psrec fold --between failed: $(cat "$TMP/fold.err")"
share=$(awk '{ n = $NF; t += n; if ($0 ~ /;hot_phase_2 [0-9]+$/) h += n } END { printf "%.1f", t ? 100 * h / t : 0 }' "$TMP/p2.folded")
awk -v s="$share" 'BEGIN { exit !(s >= 95) }' || fail "fold --between phase 2: hot_phase_2 is only $share%"
echo "ok: --between 'phase 2 begin','phase 2 end' draws hot_phase_2 alone ($share%)"

# ---- -p: attach, then markers ----------------------------------------------

rm -f "$TMP/ready"
bg_start "$MARKATTACH" "$TMP/ready" 2 >"$TMP/att.out"
apid=$BG_PID
wait_until "runs $apid markattach" 10 "markattach to start"
"$PSREC" -v -e cpu-clock -p "$apid" --duration 30 -o "$TMP/att.data" 2>"$TMP/att.err" &
rpid=$!
wait_until "started $TMP/att.err" 30 "psrec -p to attach"
touch "$TMP/ready"
wait "$apid" || fail "markattach exited $?"
wait "$rpid" || fail "psrec -p exited $?: $(cat "$TMP/att.err")"
ticks=$(sed -n 's/.*ticks \([0-9]*\).*/\1/p' "$TMP/att.out")
mscript "$TMP/att.data" >"$TMP/att.txt"
no_perf_warnings "perf script of the -p recording"
got=$(markers_of "$TMP/att.txt" | grep -c '^attach tick [0-9]*$')
last=$(markers_of "$TMP/att.txt" | sed -n 's/^attach tick //p' | sort -n | tail -1)
[ "$got" -ge 10 ] || fail "psrec -p recorded $got markers of markattach (2 s, one each 10 ms of CPU): $(cat "$TMP/att.err")"
read -r w d _ <<<"$(summary_markers "$TMP/att.err")"
{ [ "${w:-}" = "$got" ] && [ "$d" = 0 ]; } || fail "psrec -p: the summary says ${w:-?} written, ${d:-?} dropped; the file holds $got"
{ [ "$got" = "$ticks" ] && [ "$last" = "$ticks" ]; } ||
	fail "psrec -p recorded $got markers up to tick $last, markattach sent $ticks: $(cat "$TMP/att.out")"
echo "ok: -p attach delivered all $got markers"

# ---- flood: 1M markers/s for 2 s ---------------------------------------------

"$PSREC" -e cpu-clock -F 4000 -o "$TMP/fl.data" -- "$MARKFLOOD" 1000000 2 >"$TMP/fl.out" 2>"$TMP/fl.err" ||
	fail "psrec -- markflood exited $?: $(cat "$TMP/fl.err")"
grep -v '^psrec: ' "$TMP/fl.out" >"$TMP/fl.line"
mv "$TMP/fl.line" "$TMP/fl.out"
sent=$(flood_kv sent)
[ -n "$sent" ] || fail "markflood printed no report: $(cat "$TMP/fl.out")"
echo "markflood: $(cat "$TMP/fl.out")"
# Not blocked: no call slept (voluntary switches besides its own pacing
# sleeps; a preemption is not one). Its pace and its calls' latency are
# the benchmark's (p50, p99.9, max in scripts/bench/markers.sh): on a busy
# machine a preemption inside a call takes as long as the scheduler says.
[ "$(flood_kv slept)" -le 5 ] || fail "markflood: $(flood_kv slept) calls slept"
read -r w d _ <<<"$(summary_markers "$TMP/fl.err")"
[ -n "${w:-}" ] || fail "the summary does not count the markers: $(cat "$TMP/fl.err")"
[ $((w + d)) = "$sent" ] || fail "the summary says $w written + $d dropped, markflood sent $sent"
grep -Eq '^psrec: wrote .*, 0 lost\)' "$TMP/fl.err" || fail "samples lost in the flood: $(cat "$TMP/fl.err")"
# flood_spin sampled as its CPU time says: 4000 a CPU second
"$PERF" report --stdio -n --no-children --sort sym -i "$TMP/fl.data" 2>"$TMP/perf.err" >"$TMP/fl.report"
no_perf_warnings "perf report of the flood"
spin=$(awk '/of event .cpu-clock./ { c = 1 } /of event .psrec:marker./ { c = 0 } c && $NF == "flood_spin" { print $2; exit }' "$TMP/fl.report")
marks=$("$PERF" script -i "$TMP/fl.data" -F trace:event -F sw:event 2>"$TMP/perf.err" | grep -c 'psrec:marker')
no_perf_warnings "perf script of the flood"
[ "$marks" = "$w" ] || fail "the file holds $marks markers, the summary says $w written"
want=$(awk -v c="$(flood_kv spin_cpu_s)" 'BEGIN { printf "%d", c * 4000 }')
awk -v s="${spin:-0}" -v w="$want" 'BEGIN { exit !(s >= 0.9 * w) }' ||
	fail "flood_spin: ${spin:-0} samples, its $(flood_kv spin_cpu_s) s of CPU make $want"
echo "ok: flood: $sent sent, $w written, $d dropped; flood_spin $spin samples of $want expected, none lost"

# ---- bad payloads --------------------------------------------------------------

"$PSREC" -e cpu-clock -o "$TMP/bad.data" -- "$MARKBAD" 2>"$TMP/bad.err" || fail "psrec -- markbad exited $?: $(cat "$TMP/bad.err")"
read -r w d t <<<"$(summary_markers "$TMP/bad.err")"
{ [ "${w:-}" = 8 ] && [ "$d" = 0 ] && [ "$t" = 3 ]; } ||
	fail "markbad: wanted 8 written, 0 dropped, 3 truncated: $(cat "$TMP/bad.err")"
mscript "$TMP/bad.data" >"$TMP/bad.txt"
no_perf_warnings "perf script of markbad"
markers_of "$TMP/bad.txt" >"$TMP/bad.m"
[ "$(wc -l <"$TMP/bad.m")" = 8 ] || fail "perf script shows $(wc -l <"$TMP/bad.m") of markbad's 8 markers: $(cut -c1-80 "$TMP/bad.m")"
# (one a line, in order; the long ones by their length and their end)
big=$(sed -n 1p "$TMP/bad.m")
{ [ "${big:0:14}" = "bad:big ijklmn" ] && [ "${big% \[truncated\]}" != "$big" ]; } ||
	fail "the 64 KiB text: ${big:0:40} ... ${big: -40}"
[ "${#big}" = $((4096 + 12)) ] || fail "the 64 KiB text shows ${#big} characters, not 4096 and ' [truncated]'"
[ "$(sed -n 2p "$TMP/bad.m")" = 'bad:nul a\x00b\x00c' ] || fail "NULs: $(sed -n 2p "$TMP/bad.m")"
[ "$(sed -n 3p "$TMP/bad.m")" = 'bad:utf8 \xff\xfe abc \xc3' ] || fail "bad UTF-8: $(sed -n 3p "$TMP/bad.m")"
[ -z "$(sed -n 4p "$TMP/bad.m")" ] || fail "the empty text: $(sed -n 4p "$TMP/bad.m")"
[ "$(sed -n 5p "$TMP/bad.m")" = 'bad:ctl one\x0atwo\x09three' ] || fail "control characters: $(sed -n 5p "$TMP/bad.m")"
bytes=$(sed -n 6p "$TMP/bad.m")
[ "${bytes:0:17}" = "[type 9] 00010203" ] || [ "${bytes:0:20}" = "[type 9] 00 01 02 03" ] || fail "4097 bytes of type 9: ${bytes:0:40}"
[ "${bytes% \[truncated\]}" != "$bytes" ] || fail "4097 bytes of type 9 not marked [truncated]: ... ${bytes: -40}"
fmt=$(sed -n 7p "$TMP/bad.m")
{ [ "${fmt:0:12}" = "bad:fmt xxxx" ] && [ "${fmt% \[truncated\]}" != "$fmt" ]; } || fail "a long %s: ${fmt:0:20} ... ${fmt: -20}"
[ "$(sed -n 8p "$TMP/bad.m")" = "bad:last" ] || fail "the last marker: $(sed -n 8p "$TMP/bad.m")"
report -i "$TMP/bad.data" >/dev/null
no_perf_warnings "perf report of markbad"
"$PSREC" markers -i "$TMP/bad.data" >"$TMP/badlist.txt" 2>"$TMP/list.err" || fail "psrec markers of markbad failed: $(cat "$TMP/list.err")"
for m in bad:big bad:nul bad:utf8 bad:ctl bad:fmt bad:last; do
	grep -qF "$m" "$TMP/badlist.txt" || fail "psrec markers does not list $m"
done
[ "$(grep -c . "$TMP/badlist.txt")" -ge 8 ] || fail "psrec markers lists fewer than 8 lines: $(cut -c1-100 "$TMP/badlist.txt")"
echo "ok: bad payloads escaped, the cut ones flagged, psrec markers lists them"

# ---- -z, -o -, kill -9, --switch-output ------------------------------------

"$PSREC" -z -e cpu-clock -o "$TMP/z.data" -- "$PHASES" 2 100 >/dev/null 2>"$TMP/z.err" || fail "psrec -z exited $?: $(cat "$TMP/z.err")"
mscript "$TMP/z.data" >"$TMP/z.txt"
no_perf_warnings "perf script of -z"
same_markers "-z" "$TMP/z.txt" 2
echo "ok: -z keeps the markers"

"$PSREC" -e cpu-clock -o - -- "$PHASES" 2 100 >"$TMP/pipe.data" 2>"$TMP/pipe.err" || fail "psrec -o - exited $?: $(cat "$TMP/pipe.err")"
"$PERF" script --ns -G -i - -F trace:comm,tid,time,event,trace -F sw:comm,tid,time,event,ip,sym <"$TMP/pipe.data" \
	2>"$TMP/perf.err" >"$TMP/pipe.raw"
no_perf_warnings "perf script -i - of -o -"
mscript "$TMP/pipe.data" >"$TMP/pipe.txt"
no_perf_warnings "perf script -i of -o -"
same_markers "-o -" "$TMP/pipe.txt" 2
grep -q 'psrec:marker: phase 2 end' "$TMP/pipe.raw" || fail "perf script -i - (from a pipe) shows no marker"
echo "ok: -o - keeps the markers, read from a pipe and from the file"

# kill -9 after phase 2 began: what the last checkpoint covered reads back
kd="$TMP/k.data"
"$PSREC" -e cpu-clock -F 1000 -o "$kd" -- "$PHASES" 6 1000 >/dev/null 2>"$TMP/k.err" &
kpid=$!
# 1800 samples in the live header (about 1000 a second of phases's CPU):
# a checkpoint well after phase 2 began (at 1 s); the markers until then
# were drained in or before it
wait_until "has_samples $kd 1800" 60 "1800 samples in the live $kd"
child=$(pgrep -P "$kpid" phases || true)
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
mscript "$kd" >"$TMP/k.txt"
no_perf_warnings "perf script of the killed recording"
# A killed file has no TRACING_DATA (features come at the end), so its
# marker event is still the bpf-output form perf reads without it
# (marker/tp.h): perf script shows those events' bytes, psrec markers
# their texts.
nk=$(awk -F'\t' '$2 !~ /^cpu-clock/' "$TMP/k.txt" | wc -l)
[ "$nk" -ge 5 ] || fail "perf script shows $nk marker events in the killed recording, not 5: $(head -3 "$TMP/k.txt")"
"$PSREC" markers -i "$kd" >"$TMP/k.list" 2>"$TMP/k.lerr" || fail "psrec markers of the killed file failed: $(cat "$TMP/k.lerr")"
awk '/^# spans/ { exit } !/^#/ { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' "$TMP/k.list" |
	sed -E 's/^(\[type 7\]).*/\1/' >"$TMP/k.m"
expected_phases 6 | head -5 | diff - <(head -5 "$TMP/k.m") >&2 ||
	fail "killed after 1.8 s of samples: the markers up to phase 2 begin are not all there"
echo "ok: kill -9: $(wc -l <"$TMP/k.m") markers survived, up to '$(tail -1 "$TMP/k.m")'"

sw="$TMP/sw.data"
"$PSREC" -e cpu-clock --switch-output=1s -o "$sw" -- "$PHASES" 3 1000 >/dev/null 2>"$TMP/sw.err" ||
	fail "psrec --switch-output=1s exited $?: $(cat "$TMP/sw.err")"
mapfile -t files < <(find "$TMP" -maxdepth 1 -name 'sw.data.*' -printf '%p\n' | sort)
[ "${#files[@]}" -ge 3 ] || fail "3 s in 1 s chunks made ${#files[@]} chunks"
: >"$TMP/sw.all"
with=0
for f in "${files[@]}"; do
	mscript "$f" >"$TMP/chunk.txt"
	no_perf_warnings "perf script of chunk $f"
	markers_of "$TMP/chunk.txt" >"$TMP/chunk.m"
	[ -s "$TMP/chunk.m" ] && with=$((with + 1))
	cat "$TMP/chunk.txt" >>"$TMP/sw.all"
done
same_markers "--switch-output chunks" "$TMP/sw.all" 3
[ "$with" -ge 2 ] || fail "only $with chunks hold markers"
read -r w _ <<<"$(summary_markers "$TMP/sw.err")"
[ "${w:-}" = 9 ] || fail "--switch-output: the summary says ${w:-?} markers written: $(cat "$TMP/sw.err")"
echo "ok: --switch-output: ${#files[@]} chunks, $with with markers, all 9 once, in order"

echo "ok: markers"
