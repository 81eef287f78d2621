#!/bin/bash
# A recording killed with SIGKILL still leaves a file perf reads: rings are
# drained every 250 ms and data.size is checkpointed every 500 ms.
. "$(dirname "$0")/lib.sh"
need_perf

out="$TMP/k.data"
"$PSREC" -q -e cpu-clock -F 1000 -o "$out" -- "$SPIN" 5 1 &
pid=$!
sleep 2
child=$(pgrep -P "$pid" spin || true)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
txt=$(report -i "$out" --no-children --sort sym)
if grep -q 'data size field is 0' "$TMP/perf.err"; then
	fail "killed file has data size 0"
fi
no_perf_warnings "killed recording"
n=$(sed -n "s/^# Samples: \([0-9.]*\)\(K*\) of event.*/\1\2/p" <<<"$txt")
n=${n/K/000}
# 2 s at 1000 Hz = 2000 samples; at least half must have made it.
[ "${n%.*}" -ge 1000 ] || fail "only $n samples survived 2 s of recording"
"$PDCHECK" "$out" >/dev/null || fail "psrec's reader rejects the killed file"
echo "ok: killed recording readable with $n samples"
