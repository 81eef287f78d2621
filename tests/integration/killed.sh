#!/bin/bash
# A recording killed with SIGKILL still leaves a file perf reads: rings are
# drained every 250 ms and data.size is checkpointed every 500 ms.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

# With and without compression (-z keeps its COMPRESSED feature live).
for z in "" -z; do
	out="$TMP/k$z.data"
	# shellcheck disable=SC2086
	"$PSREC" -q $z -e cpu-clock -F 1000 -o "$out" -- "$SPIN" 30 1 &
	pid=$!
	# Killed once the header covers 1000 samples (1 s of spin at 1000 Hz):
	# only the checkpoints can get them there while psrec runs.
	wait_until "has_samples $out 1000" 60 "1000 samples in the live $out"
	child=$(pgrep -P "$pid" spin || true)
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
	txt=$(report -i "$out" --no-children --sort sym)
	if grep -q 'data size field is 0' "$TMP/perf.err"; then
		fail "$z: killed file has data size 0"
	fi
	no_perf_warnings "killed recording $z"
	n=$(report_samples <<<"$txt")
	# What the header covered at the kill must all read.
	[ "${n:-0}" -ge 1000 ] || fail "$z: only ${n:-0} of the 1000 checkpointed samples survived the kill"
	"$PDCHECK" "$out" >/dev/null || fail "$z: psrec's reader rejects the killed file"
	echo "killed $z: $n samples"
done
# Killed at its first samples: the first pass that wrote samples is in the
# header at once, not at the first timed checkpoint (500 ms; issue 10.12:
# a recording killed before it was empty). perf must read them.
out="$TMP/early.data"
"$PSREC" -v -e cpu-clock -F 1000 -o "$out" -- "$SPIN" 5 1 2>"$TMP/early.err" &
pid=$!
wait_until "started $TMP/early.err" 30 "psrec's start line"
# The kill as soon as the header counts samples, which it does from the
# first pass that wrote any (without it, not before the 500 ms timer).
wait_until "has_samples $out 1" 30 "the first samples in the header"
child=$(pgrep -P "$pid" spin || true)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
txt=$(report -i "$out" --no-children --sort sym)
n=$(report_samples <<<"$txt")
[ "${n:-0}" -ge 1 ] || fail "killed at its first samples: ${n:-0} samples in the file"
echo "killed at its first samples: $n samples"
echo "ok: killed recordings readable"
