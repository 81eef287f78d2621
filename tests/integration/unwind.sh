#!/bin/bash
# unwind.sh - psrec fold and flamegraph unwind --call-graph dwarf samples
# offline (issue 14), judged against perf on the same files:
#  - nofp (main -> middle -> leaf, -O2 -fomit-frame-pointer): >= 90% of the
#    leaf samples fold to ...;main;middle;leaf, the share perf report
#    --no-children -G gives that chain (within 3 points); for 100 samples
#    the folded stack is the chain perf script prints, kernel part and
#    inlined frames included; the flamegraph has leaf under middle under
#    main, as wide as the folded stacks say;
#  - the same through the program's own shared library (nofpso), and from
#    samples in its PLT stubs (nofpso -p), as perf unwinds them;
#  - perf record --call-graph dwarf's own file of nofp;
#  - deeprec_nofp, 40 levels: with a 256-byte stack copy the leaf samples
#    start with [truncated] and keep the frames perf finds in the copy;
#    with the default 8192 bytes they reach main;
#  - --call-graph=fp folds the recorded CALLCHAIN only (leaf, no middle),
#    =dwarf what the default picks, =bogus is refused in one line;
#  - a binary whose CFI is gone: its samples keep their leaf frame, and one
#    warning line says how many could not be unwound;
#  - bit flips in the registers and stack copies of every sample (several
#    seeds, tests/tools/sampleflip): exit 0 with well-formed lines, or one
#    line and exit 1; never a crash or a sanitizer report.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
for v in NOFP NOFPSO DEEPRECNOFP SAMPLEFLIP; do
	[ -n "${!v:-}" ] || fail "$v is not set (see tests/integration/meson.build)"
done

# no_sanitizer WHAT ERRFILE: fail on an ASan/UBSan report.
no_sanitizer() {
	if grep -Eq 'runtime error|Sanitizer|SUMMARY:' "$2"; then
		head -n 40 "$2" >&2
		fail "$1: a sanitizer report"
	fi
}

# fold_ok WHAT DATA OUT [ARGS...]: psrec fold -i DATA ARGS into OUT (its
# stderr in OUT.err); fail unless it exits 0, quietly for the sanitizers,
# with some output.
fold_ok() {
	local what=$1 data=$2 out=$3 code=0
	shift 3
	"$PSREC" fold -i "$data" "$@" >"$out" 2>"$out.err" || code=$?
	no_sanitizer "$what" "$out.err"
	[ "$code" = 0 ] || fail "$what: psrec fold exited $code: $(head -n 5 "$out.err")"
	[ -s "$out" ] || fail "$what: psrec fold printed nothing"
}

# Frames allowed above main: the C runtime's start.
START_RE='^(_start|__libc_start[A-Za-z0-9_@.]*)( \(inlined\))?$'

# chain_share LEAF SUFFIX < "CHAIN<TAB>COUNT" lines (outermost first, no
# comm): "LEAFS MATCHED PERCENT". A leaf sample is one whose innermost
# frame, once the inlined frames below it are dropped, is LEAF; it matches
# when its chain ends in SUFFIX (;-separated) with only START_RE frames
# above.
chain_share() {
	awk -F '\t' -v leaf="$1" -v suffix="$2" -v start="$START_RE" '
		{ n = split($1, f, ";"); while (n > 0 && f[n] ~ / \(inlined\)$/) n--
		  if (n == 0 || f[n] != leaf) next
		  t += $2; k = split(suffix, s, ";"); if (n < k) next
		  ok = 1
		  for (i = 1; i <= k; i++) if (f[n - k + i] != s[i]) ok = 0
		  for (i = 1; i <= n - k; i++) if (f[i] !~ start) ok = 0
		  if (ok) m += $2 }
		END { printf "%d %d %.2f\n", t, m, t ? 100 * m / t : 0 }'
}

# folded_chains COMM < folded: "CHAIN<TAB>COUNT" of COMM's lines.
folded_chains() {
	awk -v comm="$1" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); i = index(s, ";")
		if (i == 0 || substr(s, 1, i - 1) != comm) next; print substr(s, i + 1) "\t" c }'
}

# perf_chains DATA: "CHAIN<TAB>COUNT" of every sample, as perf report
# --no-children -G folds them (caller first, inlined frames shown).
perf_chains() {
	"$PERF" report -i "$1" --no-children -G --stdio -g folded,0,caller,count --sort sym 2>"$TMP/perf.err" |
		awk '/^[0-9]+ / { c = $1; s = $0; sub(/^[0-9]+ /, "", s); print s "\t" c }'
}

# check_chain WHAT DATA FOLDED COMM LEAF SUFFIX: >= 90% of COMM's LEAF
# samples in FOLDED end in SUFFIX, the share perf report shows (3 points).
check_chain() {
	local what=$1 data=$2 folded=$3 comm=$4 leaf=$5 suffix=$6 n m share pn pm pshare
	read -r n m share <<<"$(folded_chains "$comm" <"$folded" | chain_share "$leaf" "$suffix")"
	read -r pn pm pshare <<<"$(perf_chains "$data" | chain_share "$leaf" "$suffix")"
	[ "$n" -ge 500 ] || fail "$what: only $n $leaf samples folded (perf report: $pn); $(head -n 5 "$folded")"
	[ "$pn" -ge 500 ] || fail "$what: perf report shows only $pn $leaf samples"
	awk -v s="$share" 'BEGIN { exit !(s >= 90) }' ||
		fail "$what: $m of $n $leaf samples ($share%) fold to ...;$suffix (perf report: $pshare%); the largest $leaf lines: $(leaf_lines "$leaf" "$folded")"
	assert_near "$share" "$pshare" 3 "$what: share of $leaf samples folding to ...;$suffix (psrec fold $share%, perf report $pshare%)"
	echo "ok: $what: $m of $n $leaf samples ($share%) fold to ...;$suffix; perf report: $pm of $pn ($pshare%)"
}

# leaf_lines LEAF FOLDED: the 3 heaviest lines whose innermost frame is LEAF
leaf_lines() {
	awk -v l="$1" '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); if (f[n] == l) print $NF "\t" $0 }' "$2" |
		sort -rn | head -n 3 | cut -f 2- | tr '\n' '|'
}

# inline_free CHAIN: without inlined frames, equal neighbours merged
inline_free() {
	awk -F ';' '{ o = ""; p = ""; for (i = 1; i <= NF; i++) { if ($i ~ / \(inlined\)$/ || $i == p) continue; o = o (o == "" ? "" : ";") $i; p = $i } print o }' <<<"$1"
}

# Workloads built under -Db_sanitize carry libasan, whose start-up samples
# have inlined frames perf and libdw name differently.
SANITIZED=0
ldd "$NOFP" 2>/dev/null | grep -q libasan && SANITIZED=1

# chains_equal GOT WANT: the same frames, where a frame perf could not
# name ("?", or "@plt": a PLT slot with no symbol, libc's IRELATIVE ones,
# once under ASan in CI) may be psrec's DSO+0xOFFSET (docs/fold.md: what
# cannot be named).
chains_equal() {
	[ "$1" = "$2" ] && return 0
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, ";"); if (split(b, y, ";") != n) exit 1
		for (i = 1; i <= n; i++) if (x[i] != y[i] && !((y[i] == "?" || y[i] == "@plt") && x[i] ~ /\+0x[0-9a-f]+$/)) exit 1 }'
}

# check_chains WHAT DATA N: for N samples, psrec fold --time T,T gives the
# chain perf script prints for the sample at T, kernel part included:
# every 7th sample with a unique time, and every one with a kernel frame or
# an inlined frame. Names are perf script --no-inline's, and a frame that
# perf script (inlining on) expands into several gets the inlined ones
# below it as "NAME (inlined)". (Where perf only renames a frame, as
# __libc_start_main@@GLIBC_2.34 into "__libc_start_main_impl (inlined)",
# because the DWARF name differs from the symbol's, the symbol stays.)
check_chains() {
	"$PERF" script -i "$2" -F time,ip,sym --no-inline >"$TMP/chains.n" 2>/dev/null
	"$PERF" script -i "$2" -F time,ip,sym >"$TMP/chains.a" 2>/dev/null
	awk '
		function name(  s) { s = $0; sub(/^[ \t]*[0-9a-f]+ /, "", s); return s == "[unknown]" ? "?" : s }
		function flush(  c, i, j, k, sp) {
			if (t == "") return
			c = ""; sp = 0; j = 1
			for (i = 1; i <= na; i++) {
				for (k = i; k < na && aa[k + 1] == aa[i]; k++) ;
				# aa[i..k]: one address; all but the last are inlined frames
				for (; i < k; i++) { c = (c == "") ? am[i] : am[i] ";" c; sp = 1 }
				if (nad[ns2, j] == aa[k]) c = (c == "") ? nnm[ns2, j] : nnm[ns2, j] ";" c
				else c = (c == "") ? am[k] : am[k] ";" c
				if (aa[k] ~ /^ffffffff/) sp = 1
				j++
			}
			print t "\t" sp "\t" c
			t = ""
		}
		FNR == 1 { f++ }
		/^ *[0-9]+\.[0-9]+:/ {
			if (f == 1) { ns1++; nn = 0; next }
			flush(); t = $1; sub(/:$/, "", t); ns2++; na = 0; next }
		NF >= 2 {
			if (f == 1) { nad[ns1, ++nn] = $1; nnm[ns1, nn] = name() }
			else { aa[++na] = $1; am[na] = name() } }
		END { flush() }' "$TMP/chains.n" "$TMP/chains.a" >"$TMP/chains.txt"
	local n=0 bad=0 t want got
	while IFS=$'\t' read -r t _ want; do
		[ "$(grep -c "^$t	" "$TMP/chains.txt")" = 1 ] || continue
		# perf script prints microseconds: the sample lies in [t, t + 1 us)
		got=$("$PSREC" fold -i "$2" --time "$t,$(awk -v t="$t" 'BEGIN { printf "%.6f", t + 0.0000009 }')" 2>/dev/null |
			sed 's/ [0-9]*$//; s/^[^;]*;//' | sed 's/\[unknown\]/?/g')
		# LeakSanitizer's tracer (a clone sharing the process's memory,
		# on a stack of its own): once in CI psrec unwound one of its
		# samples to the leaf alone where perf went on; not reproduced in
		# three recordings since, so its samples are left out here
		if [ "$SANITIZED" = 1 ] && [[ $want == *__lsan::* || $want == *__sanitizer::internal_clone* ]]; then
			continue
		fi
		if [ "$SANITIZED" = 1 ]; then
			# libasan's own frames: perf (binutils' view of DWARF) names
			# some inlined C++ calls after the function they sit in, libdw
			# by the callee; the unwound chains are compared without them
			got=$(inline_free "$got")
			want=$(inline_free "$want")
		fi
		if ! chains_equal "$got" "$want"; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "$1: sample at $t: fold '$got', perf script '$want'" >&2
		fi
		n=$((n + 1))
		[ $n -ge "$3" ] && break
	done < <(awk -F '\t' '$2 == 1' "$TMP/chains.txt"; awk -F '\t' '$2 != 1 && NR % 7 == 0' "$TMP/chains.txt")
	[ $n -ge $(($3 / 2)) ] || fail "$1: only $n samples to compare"
	[ $bad -eq 0 ] || fail "$1: $bad of $n folded stacks differ from perf script's chains"
	echo "ok: $1: $n folded stacks equal perf script's chains"
}

# svg_paths SVG: "PERCENT<TAB>PATH" for every frame drawn, PATH its names
# from the root down (;-separated), PERCENT its width over the root's.
# The frames come in pre-order, so a frame's parent is the last one drawn a
# level below it.
svg_paths() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall(".//s:g[@class='f']", ns)
ys = sorted({float(g.find("s:rect", ns).get("y")) for g in frames}, reverse=root.get("data-icicle") != "1")
level = {y: i for i, y in enumerate(ys)}
full = float(frames[0].find("s:rect", ns).get("width"))
path = []
for g in frames:
    r = g.find("s:rect", ns)
    d = level[float(r.get("y"))]
    del path[d:]
    path.append(g.get("data-name"))
    print("%.3f\t%s" % (100 * float(r.get("width")) / full, ";".join(path)))
PY
}

# ---- nofp: main -> middle -> leaf without frame pointers -------------------

"$PSREC" -q --call-graph dwarf -F 999 -o "$TMP/nofp.data" -- "$NOFP" 2 || fail "psrec --call-graph dwarf of nofp failed"
fold_ok "nofp" "$TMP/nofp.data" "$TMP/nofp.folded"
check_chain "psrec --call-graph dwarf, nofp" "$TMP/nofp.data" "$TMP/nofp.folded" nofp leaf "main;middle;leaf"
grep -q 'could not be unwound' "$TMP/nofp.folded.err" && echo "note: nofp: $(grep 'could not be unwound' "$TMP/nofp.folded.err")"
check_chains "psrec --call-graph dwarf, nofp" "$TMP/nofp.data" 100

# The flamegraph: leaf under middle under main, as wide as the folded
# stacks through main;middle;leaf are.
"$PSREC" flamegraph -i "$TMP/nofp.data" -o "$TMP/nofp.svg" 2>"$TMP/fg.err" || fail "psrec flamegraph failed: $(cat "$TMP/fg.err")"
no_sanitizer "flamegraph" "$TMP/fg.err"
svg_paths "$TMP/nofp.svg" >"$TMP/nofp.paths" || fail "the flamegraph of nofp does not parse"
width=$(awk -F '\t' '$2 ~ /;main;middle;leaf$/ { w += $1 } END { printf "%.2f", w }' "$TMP/nofp.paths")
want=$(awk '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s); if (index(s ";", ";main;middle;leaf;")) m += n }
	END { printf "%.2f", t ? 100 * m / t : 0 }' "$TMP/nofp.folded")
awk -v w="$width" 'BEGIN { exit !(w >= 80) }' ||
	fail "flamegraph: leaf under middle under main is $width% wide (folded: $want%); frames: $(grep -c . "$TMP/nofp.paths")"
assert_near "$width" "$want" 1 "flamegraph: width of main;middle;leaf (svg $width%, folded $want%)"
echo "ok: the flamegraph draws leaf under middle under main, $width% wide"

# ---- --call-graph=fp|dwarf|bogus on fold -----------------------------------

fold_ok "--call-graph=fp" "$TMP/nofp.data" "$TMP/fp.folded" --call-graph=fp
# the recorded CALLCHAIN of a dwarf recording has no user part: leaf alone
awk '{ s = $0; sub(/ [0-9]+$/, "", s); if (s ~ /;(main|middle)(;|$)/) { print; exit 1 } }' "$TMP/fp.folded" >"$TMP/fp.bad" ||
	fail "--call-graph=fp unwound anyway: $(cat "$TMP/fp.bad")"
fpleaf=$(folded_chains nofp <"$TMP/fp.folded" | chain_share leaf leaf)
read -r fpn fpm _ <<<"$fpleaf"
{ [ "$fpn" -ge 500 ] && [ "$fpm" = "$fpn" ]; } || fail "--call-graph=fp: $fpm of $fpn leaf samples are nofp;leaf: $(head -n 3 "$TMP/fp.folded")"
total=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/nofp.folded")
fptotal=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/fp.folded")
[ "$fptotal" = "$total" ] || fail "--call-graph=fp folded $fptotal samples, the default $total"
fold_ok "--call-graph=dwarf" "$TMP/nofp.data" "$TMP/dw.folded" --call-graph=dwarf
cmp -s "$TMP/dw.folded" "$TMP/nofp.folded" || fail "--call-graph=dwarf differs from the default on a dwarf recording: $(diff "$TMP/dw.folded" "$TMP/nofp.folded" | head -n 5)"
code=0
"$PSREC" fold -i "$TMP/nofp.data" --call-graph=bogus -o "$TMP/bogus.folded" 2>"$TMP/bogus.err" || code=$?
no_sanitizer "--call-graph=bogus" "$TMP/bogus.err"
{ [ "$code" != 0 ] && [ "$code" -lt 126 ]; } || fail "--call-graph=bogus: exit $code"
{ [ "$(wc -l <"$TMP/bogus.err")" = 1 ] && grep -q bogus "$TMP/bogus.err"; } || fail "--call-graph=bogus: not one line naming it: $(cat "$TMP/bogus.err")"
[ ! -e "$TMP/bogus.folded" ] || fail "--call-graph=bogus wrote an output file"
echo "ok: --call-graph=fp folds the recorded chain ($fpn leaf samples, leaf alone), =dwarf the default, =bogus refused: $(cat "$TMP/bogus.err")"

# ---- through a shared library without frame pointers -----------------------

"$PSREC" -q --call-graph dwarf -F 999 -o "$TMP/so.data" -- "$NOFPSO" 2 || fail "psrec --call-graph dwarf of nofpso failed"
perf_chains "$TMP/so.data" | grep -q 'libnofpso\|so_leaf' || fail "perf does not see so_leaf in nofpso's recording"
fold_ok "nofpso" "$TMP/so.data" "$TMP/so.folded"
check_chain "psrec --call-graph dwarf, nofpso (libnofpso.so)" "$TMP/so.data" "$TMP/so.folded" nofpso so_leaf "main;so_middle;so_leaf"

# Samples in a PLT stub (whose CFI is a DWARF expression): nofpso -p has
# so_leaf call so_tiny through libnofpso.so's PLT in a loop. Each sample
# perf script puts in so_tiny@plt folds (psrec fold --time) to a chain
# through main;so_middle;so_leaf with the stub below so_leaf, as perf
# unwinds it (its name aside). 4 s: the stub holds about 1% of the
# samples, 16 of 2 s in one CI run, and 10 are enough to judge.
"$PSREC" -q --call-graph dwarf -F 999 -o "$TMP/plt.data" -- "$NOFPSO" -p 4 || fail "psrec --call-graph dwarf of nofpso -p failed"
"$PERF" script -i "$TMP/plt.data" -F time,ip,sym --no-inline 2>/dev/null | awk '
	/^ *[0-9]+\.[0-9]+:/ { t = $1; sub(/:$/, "", t); k = 0; next }
	NF >= 2 && ++k == 1 && $2 == "so_tiny@plt" { print t }' | uniq -u >"$TMP/plt.times"
[ "$(wc -l <"$TMP/plt.times")" -ge 10 ] || fail "nofpso -p: perf script puts only $(wc -l <"$TMP/plt.times") samples in so_tiny@plt"
n=0 good=0
while read -r t; do
	got=$("$PSREC" fold -i "$TMP/plt.data" --time "$t,$(awk -v t="$t" 'BEGIN { printf "%.6f", t + 0.0000009 }')" 2>/dev/null | sed 's/ [0-9]*$//')
	if [[ "$got" =~ ^nofpso\;(.*\;)?main\;so_middle\;so_leaf\;[^\;]+$ ]]; then
		good=$((good + 1))
	elif [ $((n - good)) -lt 3 ]; then
		echo "PLT sample at $t: fold '$got', perf script: ...;main;so_middle;so_leaf;so_tiny@plt" >&2
	fi
	n=$((n + 1))
	[ $n -ge 40 ] && break
done <"$TMP/plt.times"
[ "$good" -ge $((n * 9 / 10)) ] || fail "nofpso -p: only $good of $n samples in so_tiny@plt unwind to ...;main;so_middle;so_leaf;STUB"
echo "ok: nofpso -p: $good of $n samples in a PLT stub unwind through main;so_middle;so_leaf"

# ---- perf record's own file ----------------------------------------------------

"$PERF" record -q --call-graph dwarf -F 999 -o "$TMP/perf.data" -- "$NOFP" 2 >/dev/null 2>"$TMP/perf.err" ||
	fail "perf record --call-graph dwarf failed"
fold_ok "perf record's file" "$TMP/perf.data" "$TMP/perf.folded"
check_chain "perf record --call-graph dwarf, nofp" "$TMP/perf.data" "$TMP/perf.folded" nofp leaf "main;middle;leaf"
check_chains "perf record --call-graph dwarf, nofp" "$TMP/perf.data" 50

# ---- 40 levels of recursion: a copy too small, then the default ------------

# rec_counts COMM < folded: for COMM's leaf_burn samples, one line
# "TRUNCATED RECS MAIN COUNT" per folded line: 1 if it starts with
# [truncated] and has nothing but rec_a/rec_b between that and leaf_burn
# (or, without it, only START_RE frames and main above the recursion),
# the number of rec_a/rec_b frames, 1 if main is in it.
rec_counts() {
	folded_chains "$1" | awk -F '\t' -v start="$START_RE" '
		{ n = split($1, f, ";"); while (n > 0 && f[n] ~ / \(inlined\)$/) n--
		  if (n == 0 || f[n] != "leaf_burn") next
		  tr = f[1] == "[truncated]"; r = 0; m = 0; ok = 1; seen = 0
		  for (i = tr ? 2 : 1; i < n; i++) {
			if (f[i] == "rec_a" || f[i] == "rec_b") { r++; seen = 1 }
			else if (f[i] == "main" && !seen && !tr) m = 1
			else if (f[i] !~ start || seen || m || tr) ok = 0 }
		  print (ok ? tr : -1), r, m, $2 }'
}

"$PSREC" -q --call-graph dwarf,256 -F 999 -o "$TMP/tr.data" -- "$DEEPRECNOFP" 2 40 ||
	fail "psrec --call-graph dwarf,256 of deeprec_nofp failed"
fold_ok "dwarf,256" "$TMP/tr.data" "$TMP/tr.folded"
rec_counts deeprec_nofp <"$TMP/tr.folded" >"$TMP/tr.counts"
# perf's frames in the same copies: the most common number of rec frames
perfrecs=$(perf_chains "$TMP/tr.data" | awk -F '\t' '$1 ~ /leaf_burn(;[^;]* \(inlined\))*$/ { n = split($1, f, ";"); r = 0
		for (i = 1; i <= n; i++) if (f[i] == "rec_a" || f[i] == "rec_b") r++; c[r] += $2 }
	END { for (r in c) if (c[r] > b) { b = c[r]; m = r } print m + 0 }')
read -r leafs trunc mode <<<"$(awk '{ t += $4; if ($1 == 1) { n += $4; c[$2] += $4 } }
	END { for (r in c) if (c[r] > b) { b = c[r]; m = r } print t + 0, n + 0, m + 0 }' "$TMP/tr.counts")"
[ "$leafs" -ge 500 ] || fail "dwarf,256: only $leafs leaf_burn samples folded: $(head -n 3 "$TMP/tr.folded")"
awk -v n="$trunc" -v t="$leafs" 'BEGIN { exit !(n >= 0.9 * t) }' ||
	fail "dwarf,256: only $trunc of $leafs leaf_burn samples are deeprec_nofp;[truncated];rec_*...;leaf_burn: $(leaf_lines leaf_burn "$TMP/tr.folded")"
[ "$perfrecs" -ge 5 ] || fail "dwarf,256: perf finds only $perfrecs rec frames in the copies"
[ "$mode" -ge $((perfrecs - 1)) ] ||
	fail "dwarf,256: the truncated stacks keep $mode rec_a/rec_b frames, perf finds $perfrecs in the same copies"
echo "ok: dwarf,256: $trunc of $leafs leaf_burn samples start with [truncated], $mode rec frames (perf: $perfrecs)"

"$PSREC" -q --call-graph dwarf -F 999 -o "$TMP/deep.data" -- "$DEEPRECNOFP" 2 40 ||
	fail "psrec --call-graph dwarf of deeprec_nofp failed"
fold_ok "dwarf, 40 levels" "$TMP/deep.data" "$TMP/deep.folded"
rec_counts deeprec_nofp <"$TMP/deep.folded" >"$TMP/deep.counts"
read -r leafs full <<<"$(awk '{ t += $4; if ($1 == 0 && $2 == 40 && $3 == 1) n += $4 } END { print t + 0, n + 0 }' "$TMP/deep.counts")"
[ "$leafs" -ge 500 ] || fail "dwarf, 40 levels: only $leafs leaf_burn samples folded: $(head -n 3 "$TMP/deep.folded")"
awk -v n="$full" -v t="$leafs" 'BEGIN { exit !(n >= 0.9 * t) }' ||
	fail "dwarf, 40 levels: only $full of $leafs leaf_burn samples fold to ...;main;40 x rec_a/rec_b;leaf_burn: $(leaf_lines leaf_burn "$TMP/deep.folded" | cut -c 1-600)"
perfdeep=$(perf_chains "$TMP/deep.data" | chain_share leaf_burn "main;$(printf 'rec_a;rec_b;%.0s' $(seq 20))leaf_burn")
read -r pn pm ps <<<"$perfdeep"
{ [ "$pn" -ge 500 ] && awk -v s="$ps" 'BEGIN { exit !(s >= 90) }'; } || fail "perf does not unwind deeprec_nofp to main: $perfdeep"
echo "ok: dwarf, 40 levels: $full of $leafs leaf_burn samples reach main through 40 rec frames (perf: $pm of $pn)"

# ---- a binary whose CFI is gone: leaf frames and one warning ----------------

# A copy of nofp, recorded, then its .eh_frame and .eh_frame_hdr zeroed in
# place (the same build-id, so it is still the recorded binary; HOME and -N
# keep ~/.debug's intact copy out of it).
mkdir -p "$TMP/app" "$TMP/home"
cp "$NOFP" "$TMP/app/nofp"
HOME=$TMP/home "$PSREC" -q -N --call-graph dwarf -F 999 -o "$TMP/cfi.data" -- "$TMP/app/nofp" 2 || fail "psrec of a copy of nofp failed"
readelf -SW "$TMP/app/nofp" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".eh_frame" || $1 == ".eh_frame_hdr" || $1 == ".debug_frame" { print $4, $5 }' >"$TMP/cfi.sections"
[ "$(wc -l <"$TMP/cfi.sections")" -ge 2 ] || fail "no .eh_frame in nofp: $(readelf -SW "$TMP/app/nofp" | grep frame)"
while read -r off size; do
	dd if=/dev/zero of="$TMP/app/nofp" bs=1 seek=$((16#$off)) count=$((16#$size)) conv=notrunc status=none || fail "dd failed"
done <"$TMP/cfi.sections"
HOME=$TMP/home fold_ok "no CFI" "$TMP/cfi.data" "$TMP/cfi.folded"
read -r cn cm _ <<<"$(folded_chains nofp <"$TMP/cfi.folded" | chain_share leaf leaf)"
# (perf falls back to frame pointers here, which gives leaf;[unknown] in a
# binary without them, or a real chain where they survive, as in a
# sanitized build: it is not the judge of this part)
! readelf --debug-dump=frames "$TMP/app/nofp" 2>/dev/null | grep -q 'FDE' || fail "no CFI: FDEs are left in the zeroed copy of nofp"
read -r pcn pcm _ <<<"$(HOME=$TMP/home perf_chains "$TMP/cfi.data" | chain_share leaf leaf)"
[ "$cn" -ge 300 ] || fail "no CFI: only $cn leaf samples kept their leaf frame: $(head -n 5 "$TMP/cfi.folded")"
[ "$cm" -ge $((cn * 9 / 10)) ] || fail "no CFI: only $cm of $cn leaf samples fold to nofp;leaf: $(leaf_lines leaf "$TMP/cfi.folded")"
[ "$(grep -c 'could not be unwound' "$TMP/cfi.folded.err")" = 1 ] ||
	fail "no CFI: not one warning line saying samples could not be unwound: $(head -n 5 "$TMP/cfi.folded.err")"
echo "ok: no CFI: $cm of $cn leaf samples keep their leaf frame (perf: $pcm of $pcn); $(grep 'could not be unwound' "$TMP/cfi.folded.err")"

# ---- bit flips in the samples' registers and stack copies -----------------

# flip WHAT DATA SEED FLIPS BASE_TOTAL
flip() {
	local what="$1 (seed $3, $4 flips per sample)" code=0
	"$SAMPLEFLIP" "$2" "$TMP/flip.data" "$3" "$4" >"$TMP/flip.txt" || fail "$what: sampleflip failed"
	"$PSREC" fold -i "$TMP/flip.data" -o "$TMP/flip.folded" 2>"$TMP/flip.err" || code=$?
	no_sanitizer "$what" "$TMP/flip.err"
	case $code in
	0)
		awk '!/^[^;]+(;[^;]+)* [0-9]+$/ { print; exit 1 }' "$TMP/flip.folded" >"$TMP/flip.bad" ||
			fail "$what: a malformed line: $(cut -c 1-300 "$TMP/flip.bad")"
		local t
		t=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/flip.folded")
		[ "$t" -ge $(($5 * 9 / 10)) ] || fail "$what: $t samples folded of $5"
		[ "$(grep -c 'could not be unwound' "$TMP/flip.err")" -le 1 ] || fail "$what: more than one unwinding warning: $(head -n 5 "$TMP/flip.err")"
		echo "  $what: exit 0, $t of $5 samples; $(grep -c . "$TMP/flip.err") stderr lines" ;;
	1)
		[ "$(wc -l <"$TMP/flip.err")" = 1 ] || fail "$what: exit 1, not one line: $(head -n 5 "$TMP/flip.err")"
		echo "  $what: exit 1: $(cat "$TMP/flip.err")" ;;
	*)
		fail "$what: psrec fold exited $code: $(head -n 5 "$TMP/flip.err")" ;;
	esac
}
ntotal=$(awk '{ t += $NF } END { print t + 0 }' "$TMP/nofp.folded")
for seed in ${UNWIND_SEEDS:-1 2 3 4 5 6}; do
	flip "psrec's nofp" "$TMP/nofp.data" "$seed" 4 "$ntotal"
done
for seed in 7 8; do
	flip "psrec's nofp" "$TMP/nofp.data" "$seed" 64 "$ntotal"
done
flip "perf's nofp" "$TMP/perf.data" 9 4 "$(awk '{ t += $NF } END { print t + 0 }' "$TMP/perf.folded")"
flip "dwarf,256 deeprec_nofp" "$TMP/tr.data" 10 8 "$(awk '{ t += $NF } END { print t + 0 }' "$TMP/tr.folded")"
flip "deeprec_nofp" "$TMP/deep.data" 11 16 "$(awk '{ t += $NF } END { print t + 0 }' "$TMP/deep.folded")"
echo "ok: bit flips in the samples: no crash, no sanitizer report"
