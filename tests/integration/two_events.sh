#!/bin/bash
# Several events: each gets its own attr and ids; perf report shows both.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

for form in "-e cpu-clock -e task-clock" "-e cpu-clock,task-clock"; do
	out="$TMP/two.data"
	rm -f "$out"
	# shellcheck disable=SC2086
	"$PSREC" -q $form -o "$out" -- "$SPIN" 1 2 || fail "psrec $form failed"
	txt=$(report -i "$out" --no-children --sort sym)
	no_perf_warnings "perf report ($form)"
	for ev in cpu-clock task-clock; do
		n=$(sed -n "s/^# Samples: \([0-9.]*K*\) of event '$ev'$/\1/p" <<<"$txt")
		[ -n "$n" ] || fail "$form: no samples of $ev in perf report"
	done
	pd=$("$PDCHECK" "$out") || fail "pdcheck failed"
	[ "$(pd_value attrs "$pd")" = 2 ] || fail "$form: expected 2 attrs"
	[ "$(pd_value unmapped_samples "$pd")" = 0 ] || fail "$form: samples with unknown ids"
	"$PERF" script -i "$out" -F event 2>"$TMP/perf.err" | sort | uniq -c >"$TMP/ev.txt"
	no_perf_warnings "perf script ($form)"
	{ grep -q 'task-clock' "$TMP/ev.txt" && grep -q 'cpu-clock' "$TMP/ev.txt"; } || fail "$form: perf script lacks an event: $(cat "$TMP/ev.txt")"
done
echo "ok: two events recorded and told apart"
