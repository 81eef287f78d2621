#!/bin/bash
# Record the spin workload; perf must attribute 60/30/10 to hot_a/b/c,
# name the comm "spin", and read the file without a warning; psrec's own
# reader must count exactly the samples psrec reported.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

out="$TMP/spin.data"
"$PSREC" -e cpu-clock -o "$out" -- "$SPIN" 2 2 2>"$TMP/psrec.err" || fail "psrec exited $?: $(cat "$TMP/psrec.err")"
grep -Eq "^psrec: wrote [0-9.]+ [KM]B to $out \([0-9]+ samples, 0 lost\)$" "$TMP/psrec.err" ||
	fail "unexpected summary: $(cat "$TMP/psrec.err")"
[ "$(stat -c %a "$out")" = 600 ] || fail "output mode is $(stat -c %a "$out"), expected 600"

txt=$(report -i "$out" --no-children --sort sym)
no_perf_warnings "perf report"
grep -q "^# Samples: .* of event 'cpu-clock'" <<<"$txt" || fail "no cpu-clock samples in perf report: $txt"
assert_near "$(sym_pct hot_a <<<"$txt")" 60 5 "hot_a share"
assert_near "$(sym_pct hot_b <<<"$txt")" 30 5 "hot_b share"
assert_near "$(sym_pct hot_c <<<"$txt")" 10 5 "hot_c share"

"$PERF" script -i "$out" >"$TMP/script.txt" 2>"$TMP/perf.err"
no_perf_warnings "perf script"
n=$(awk '$1 == "spin"' "$TMP/script.txt" | wc -l)
[ "$n" -gt 1000 ] || fail "perf script shows only $n samples with comm spin"
grep -q 'hot_a' "$TMP/script.txt" || fail "perf script does not resolve hot_a"

# psrec's reader agrees with psrec's summary and with perf script.
pd=$("$PDCHECK" "$out") || fail "pdcheck could not read the file"
summary=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' "$TMP/psrec.err")
[ "$(pd_value samples "$pd")" = "$summary" ] || fail "reader counts $(pd_value samples "$pd") samples, summary says $summary"
[ "$(wc -l <"$TMP/script.txt")" = "$summary" ] || fail "perf script prints $(wc -l <"$TMP/script.txt") samples, summary says $summary"
[ "$(pd_value unmapped_samples "$pd")" = 0 ] || fail "samples with unknown ids"
[ "$(pd_value rounds "$pd")" -ge 1 ] || fail "no FINISHED_ROUND records"
echo "ok: hot_a/b/c split and comm verified"
