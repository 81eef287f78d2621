#!/bin/bash
# -z: the same profile as without it, a much smaller file, and psrec's
# reader agrees with perf on what is inside.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

"$PSREC" -e cpu-clock -o "$TMP/plain.data" -- "$SPIN" 2 2 2>"$TMP/plain.err" || fail "psrec failed"
"$PSREC" -e cpu-clock -z -o "$TMP/z.data" -- "$SPIN" 2 2 2>"$TMP/z.err" || fail "psrec -z failed"
txt=$(report -i "$TMP/z.data" --no-children --sort sym)
no_perf_warnings "-z"
assert_near "$(sym_pct hot_a <<<"$txt")" 60 5 "hot_a share (-z)"
assert_near "$(sym_pct hot_b <<<"$txt")" 30 5 "hot_b share (-z)"
assert_near "$(sym_pct hot_c <<<"$txt")" 10 5 "hot_c share (-z)"
plain=$(stat -c %s "$TMP/plain.data")
z=$(stat -c %s "$TMP/z.data")
[ $((z * 4)) -le "$plain" ] || fail "-z file is $z bytes, plain $plain: not 4x smaller"
hdr=$("$PERF" report -i "$TMP/z.data" --header-only 2>/dev/null)
grep -q '^# compressed : Zstd, level = 1, ratio = [0-9]' <<<"$hdr" || fail "no COMPRESSED feature in the header"

pd=$("$PDCHECK" "$TMP/z.data") || fail "psrec's reader rejects the -z file"
summary=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' "$TMP/z.err")
[ "$(pd_value samples "$pd")" = "$summary" ] || fail "reader counts $(pd_value samples "$pd") samples, summary says $summary"
n=$("$PERF" script -i "$TMP/z.data" 2>/dev/null | wc -l)
[ "$n" = "$summary" ] || fail "perf script prints $n samples, summary says $summary"

# A higher level, and with call chains.
"$PSREC" -q -e cpu-clock --compression-level=9 -g -o "$TMP/z9.data" -- "$DEEPREC" 1 50 || fail "-z 9 -g failed"
assert_deep_chains "$TMP/z9.data" "-z 9 -g"
report -i "$TMP/z9.data" --no-children --sort sym | shows_rec_chain || fail "-z -g: perf report shows no call chains"
no_perf_warnings "-z 9 -g (report)"
grep -q 'level = 9' <("$PERF" report -i "$TMP/z9.data" --header-only 2>/dev/null) || fail "level 9 not recorded"
# The short form takes its level attached, as perf's does (issue 22);
# "-z -- CMD" is a bare -z and a command.
"$PSREC" -q -e cpu-clock -z3 -o "$TMP/z3.data" -- "$SPIN" 0.3 1 || fail "-z3 failed"
grep -q 'level = 3' <("$PERF" report -i "$TMP/z3.data" --header-only 2>/dev/null) || fail "-z3: level 3 not recorded"
"$PSREC" -q -e cpu-clock -z -o "$TMP/zdd.data" -- "$SPIN" 0.3 1 || fail "-z -- CMD failed"
grep -q 'level = 1' <("$PERF" report -i "$TMP/zdd.data" --header-only 2>/dev/null) || fail "-z -- CMD: level 1 not recorded"
grep -q hot_a <(report -i "$TMP/zdd.data" --no-children --sort sym) || fail "-z -- CMD: no hot_a"
# Stack copies of random bytes do not compress: every COMPRESSED record
# must still decode on its own (issue 10.2: perf aborted with "Couldn't
# decompress data"), at the largest stack size too.
for cg in dwarf dwarf,65528; do
	for f in 1000 4000; do
		"$PSREC" -q -z -e cpu-clock -F "$f" --call-graph "$cg" -o "$TMP/noisy.data" -- "$NOISYSTACK" 1 ||
			fail "-z --call-graph $cg -F $f failed"
		txt=$(report -i "$TMP/noisy.data" --no-children --sort sym)
		# 64 KiB a sample at 4 kHz is more than a ring keeps up with: a
		# LOST record is no format error.
		sed -i '/^Warning:$/d; /lost [0-9]* chunks/d; /Check IO\/CPU overload/d; /^$/d' "$TMP/perf.err"
		no_perf_warnings "-z --call-graph $cg -F $f"
		n=$(report_samples <<<"$txt")
		[ "${n:-0}" -ge 300 ] || fail "-z --call-graph $cg -F $f: perf reads ${n:-0} samples"
		"$PDCHECK" "$TMP/noisy.data" >/dev/null || fail "-z --call-graph $cg -F $f: psrec's reader rejects it"
	done
done
echo "ok: -z (plain $plain bytes, -z $z bytes)"
