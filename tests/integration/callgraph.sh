#!/bin/bash
# Call graphs: frame-pointer chains through 50 levels of recursion, DWARF
# chains through a binary without frame pointers, both when attaching and
# system-wide; perf report -g needs no extra flags.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

# -g: frame pointers, depth 50.
"$PSREC" -q -e cpu-clock -g -o "$TMP/fp.data" -- "$DEEPREC" 1 50 || fail "psrec -g failed"
assert_deep_chains "$TMP/fp.data" "-g"
txt=$(report -i "$TMP/fp.data" --no-children --sort sym)
shows_rec_chain <<<"$txt" || fail "perf report does not show call chains without -g"
grep -q 'rec_a' <<<"$txt" || fail "perf report chains lack rec_a"

# --max-stack 20 caps the chain.
"$PSREC" -q -e cpu-clock -g --max-stack 20 -o "$TMP/ms.data" -- "$DEEPREC" 0.5 50 || fail "--max-stack failed"
max=$(chain_stats "$TMP/ms.data" | sort -n | tail -1 | cut -d' ' -f1)
[ "${max:-99}" -le 20 ] || fail "--max-stack 20 still gives $max rec frames"

# dwarf: no frame pointers in the binary; leaf <- middle <- main.
"$PSREC" -q -e cpu-clock --call-graph dwarf -o "$TMP/dw.data" -- "$NOFP" 1 || fail "--call-graph dwarf failed"
"$PERF" script -i "$TMP/dw.data" 2>"$TMP/perf.err" >"$TMP/dw.txt"
no_perf_warnings "dwarf"
leaf=$(grep -c '^[[:space:]]*[0-9a-f]* leaf+' "$TMP/dw.txt")
full=$(awk '/cpu-clock/ { getline a; getline b; getline c; if (a ~ / leaf\+/ && b ~ / middle\+/ && c ~ / main\+/) n++ } END { print n + 0 }' "$TMP/dw.txt")
[ "$leaf" -gt 1000 ] || fail "only $leaf leaf samples"
awk -v f="$full" -v l="$leaf" 'BEGIN { exit !(f >= 0.8 * l) }' || fail "only $full of $leaf leaf samples unwind to middle and main"
# frame pointers alone cannot see middle in this binary (the test means something)
"$PSREC" -q -e cpu-clock -g -o "$TMP/nofp-fp.data" -- "$NOFP" 0.5 || fail "psrec -g on nofp failed"
fpfull=$("$PERF" script -i "$TMP/nofp-fp.data" 2>/dev/null | awk '/cpu-clock/ { getline a; getline b; if (a ~ / leaf\+/ && b ~ / middle\+/) n++ } END { print n + 0 }')
[ "$fpfull" -lt "$full" ] || echo "note: frame pointers also found middle ($fpfull)"

# -g with -p, and dwarf with -p (needs the read-only mappings synthesized).
# Each recording: half a second of the target's CPU, however busy the machine.
bg_start "$DEEPREC" 60 50
dpid=$BG_PID
wait_until "runs $dpid deeprec" 30 "deeprec to start"
record_cpu 50 "$dpid" "$TMP/pfp.err" -e cpu-clock -g -p "$dpid" -o "$TMP/pfp.data"
chain_stats "$TMP/pfp.data" >"$TMP/pfp.txt"
no_perf_warnings "-g -p"
awk '$1 >= 40 && $2 == 1 { n++ } END { exit !(n > 100) }' "$TMP/pfp.txt" || fail "-g -p: no deep chains"
bg_start "$NOFP" 60
npid=$BG_PID
wait_until "runs $npid nofp" 30 "nofp to start"
record_cpu 50 "$npid" "$TMP/pdw.err" -e cpu-clock --call-graph dwarf,16384 -p "$npid" -o "$TMP/pdw.data"
n=$("$PERF" script -i "$TMP/pdw.data" 2>/dev/null | awk '/cpu-clock/ { getline a; getline b; getline c; if (a ~ / leaf\+/ && b ~ / middle\+/ && c ~ / main\+/) n++ } END { print n + 0 }')
[ "$n" -gt 500 ] || fail "dwarf -p: only $n full chains"

# -g with -a.
record_cpu 50 "$dpid" "$TMP/a.err" -e cpu-clock -g -a -o "$TMP/a.data"
chain_stats "$TMP/a.data" >"$TMP/a.txt"
no_perf_warnings "-g -a"
awk '$1 >= 40 && $2 == 1 { n++ } END { exit !(n > 100) }' "$TMP/a.txt" || fail "-g -a: no deep chains from deeprec"
kill "$dpid" "$npid"
"$PDCHECK" "$TMP/a.data" >/dev/null || fail "psrec's reader rejects the -g -a file"
"$PDCHECK" "$TMP/dw.data" >/dev/null || fail "psrec's reader rejects the dwarf file"

# Bad call graph arguments: one line, exit 2.
for bad in "lbr" "dwarf,7" "dwarf,999999" "nonsense" "dwarf,abc" "fp,10"; do
	code=0
	"$PSREC" -e cpu-clock --call-graph "$bad" -o "$TMP/bad.data" true 2>"$TMP/err.txt" || code=$?
	if [ "$bad" = lbr ] && [ -r /sys/bus/event_source/devices/cpu/caps/branches ]; then
		continue # this CPU has LBR
	fi
	[ "$code" = 2 ] || fail "--call-graph $bad: exit $code"
	[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "--call-graph $bad: $(cat "$TMP/err.txt")"
	grep -q "^psrec: --call-graph" "$TMP/err.txt" || fail "--call-graph $bad: $(cat "$TMP/err.txt")"
	[ ! -e "$TMP/bad.data" ] || fail "--call-graph $bad left a file"
done
grep -q "no last branch records" <("$PSREC" --call-graph lbr true 2>&1) ||
	[ -r /sys/bus/event_source/devices/cpu/caps/branches ] || fail "lbr message"
code=0
"$PSREC" --max-stack 5 true 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 2 ] && grep -q 'add -g' "$TMP/err.txt"; } || fail "--max-stack without -g: $code $(cat "$TMP/err.txt")"
echo "ok: call graphs"
