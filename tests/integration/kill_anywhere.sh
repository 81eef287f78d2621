#!/bin/bash
# kill_anywhere.sh MODE - kill psrec at each of its first KILL_CALLS writes
# (strace fault injection: SIGKILL on entry to the N-th pwrite64, then the
# N-th pwritev; pipe mode: write, writev), then at random times, and check
# that every file left behind is readable by perf report as it is, or
# becomes so with psrec recover, which keeps every complete sample.
# Files (not pipe streams) must also be read by hotspot's perfparser, under
# a memory limit, as they are: every sample the header covers (-z: Debian's
# perfparser has no zstd, so only without a crash).
# MODE: plain, z, g, pipe. Checks the writer invariants W1-W4 of
# docs/writer.md.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
command -v strace >/dev/null || skip "strace is not installed (Debian: apt-get install strace)"

mode=${1:?usage: kill_anywhere.sh plain|z|g|pipe}
calls=${KILL_CALLS:-60}
randoms=${KILL_RANDOM:-10}
case "$mode" in
plain) opts=(); syscalls=(pwrite64 pwritev) ;;
z) opts=(-z); syscalls=(pwrite64 pwritev) ;;
g) opts=(-g); syscalls=(pwrite64 pwritev) ;;
pipe) opts=(); syscalls=(write writev) ;;
*) fail "unknown mode $mode" ;;
esac
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
hotspot=false
if [ "$mode" != pipe ]; then
	if [ -x "$HSPARSER" ]; then
		hotspot=true
	elif [ "${PSREC_REQUIRE_PERF:-0}" = 1 ]; then
		fail "hotspot's perfparser is not installed (Debian: apt-get install hotspot)"
	else
		echo "note: hotspot's perfparser is not installed, not checked"
	fi
fi
# A small ring at a high rate: a pass every few ms, so the first writes
# cover setup, many passes, and the finish.
rec=(-q "${opts[@]}" -m 1 -F 4000 -e cpu-clock)
out=$TMP/k.data

record() { # record [strace args...]: one recording into $out
	rm -f "$out" "$out.old" "$out".*
	if [ "$mode" = pipe ]; then
		"$@" "$PSREC" "${rec[@]}" -o - -- "$SPIN" 0.4 >"$out" 2>"$TMP/psrec.err"
	else
		"$@" "$PSREC" "${rec[@]}" -o "$out" -- "$SPIN" 0.4 2>"$TMP/psrec.err"
	fi
}

# What perf says about the file: "ok N" (N samples, no complaint) or "bad".
perf_verdict() {
	local txt
	txt=$("$PERF" report -i "$1" --stdio --sort comm 2>"$TMP/perf.err")
	# A file killed before its first samples is valid, and empty.
	if grep -q 'data has no samples' "$TMP/perf.err"; then
		echo "ok 0"
		return
	fi
	if grep -Eiq "couldn't|failed|error|invalid|not a perf|cannot|can't" "$TMP/perf.err"; then
		echo bad
		return
	fi
	echo "ok $(report_samples <<<"$txt")"
}

# hotspot_reads WHAT: hotspot's perfparser reads the file as it is (W1):
# it exits 0 within a memory limit (a killed file's header has no feature
# bits, and perfparser reads a section entry after the data all the same),
# and finds every sample the header covers.
hotspot_reads() {
	$hotspot || return 0
	local rc=0 covered got
	(ulimit -v 1048576 && exec timeout 120 "$HSPARSER" --input "$out" --output "$TMP/k.pp") \
		2>"$TMP/hs.err" || rc=$?
	[ "$rc" = 0 ] || fail "$1: hotspot-perfparser exited $rc: $(grep -v '^QFile' "$TMP/hs.err" | tail -n 3 | paste -sd'|')"
	[ "$mode" = z ] && return 0
	covered=$("$PDCHECK" "$out" | sed -n 's/^samples //p')
	got=$("$HSDECODE" "$TMP/k.pp" | sed -n 's/^samples //p') || fail "$1: cannot decode hotspot-perfparser's output"
	[ "$got" = "$covered" ] || fail "$1: hotspot reads ${got:-no} samples, the header covers $covered"
}

readable=0 recovered=0 absent=0 total=0
check() { # check WHAT: the file left by a killed recording
	total=$((total + 1))
	# W1: no file, or a file perf reads (or the repair makes readable).
	if [ ! -e "$out" ]; then
		absent=$((absent + 1))
		# W5: nothing left behind either.
		find "$TMP" -mindepth 1 -maxdepth 1 ! -name '.*' \( -name 'k.data?*' -o -name '*.tmp' \) -printf '%f\n' |
			grep . && fail "$1: litter left behind"
		return 0
	fi
	[ -s "$out" ] || { absent=$((absent + 1)); return 0; }
	local v
	v=$(perf_verdict "$out")
	if [ "$v" != bad ]; then
		readable=$((readable + 1))
		"$PDCHECK" "$out" >/dev/null 2>"$TMP/pdcheck.err" || {
			cat "$TMP/pdcheck.err" >&2
			fail "$1: perf reads the file, psrec's reader does not"
		}
		hotspot_reads "$1"
		return 0
	fi
	[ "$mode" = pipe ] && { cat "$TMP/perf.err" >&2; fail "$1: pipe stream unreadable"; }
	# W4: the repair makes it readable, keeping every complete sample.
	local before
	before=$("$PDCHECK" --to-eof "$out" 2>/dev/null | sed -n 's/^samples //p')
	"$PSREC" recover "$out" >"$TMP/recover.out" 2>&1 || {
		cat "$TMP/recover.out" >&2
		fail "$1: perf cannot read the file and psrec recover fails"
	}
	v=$(perf_verdict "$out")
	[ "$v" != bad ] || { cat "$TMP/perf.err" >&2; fail "$1: unreadable even after psrec recover"; }
	if [ -n "$before" ] && [ "${v#ok }" -lt "$before" ]; then
		fail "$1: recover kept ${v#ok } samples of the $before complete ones"
	fi
	recovered=$((recovered + 1))
	echo "$1: needed psrec recover: $(head -c 300 "$TMP/recover.out")"
}

total_made=0
# How many calls of each kind a whole recording makes: killing past the
# last one would only repeat a normal recording.
record strace -f -qq -o "$TMP/calls.txt" -e trace="$(IFS=,; echo "${syscalls[*]}")"
for sc in "${syscalls[@]}"; do
	made=$(grep -c "^[0-9]* *$sc(" "$TMP/calls.txt" || true)
	total_made=$((total_made + made))
	last=$((made < calls ? made : calls))
	for n in $(seq 1 "$last"); do
		record strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc:signal=KILL:when=$n"
		check "$mode: killed at $sc #$n of $made"
	done
done
[ "$total_made" -gt 0 ] || fail "$mode: a recording made none of these calls: ${syscalls[*]}"
for _ in $(seq 1 "$randoms"); do
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", rand() * 0.5 }')
	rm -f "$out"
	if [ "$mode" = pipe ]; then
		"$PSREC" "${rec[@]}" -o - -- "$SPIN" 0.4 >"$out" 2>"$TMP/psrec.err" &
	else
		"$PSREC" "${rec[@]}" -o "$out" -- "$SPIN" 0.4 2>"$TMP/psrec.err" &
	fi
	pid=$!
	sleep "$delay" # the workload: a random moment to kill at
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	check "$mode: killed after ${delay}s"
done
echo "ok: $mode: $total kills: $readable readable as they were, $recovered after psrec recover, $absent left no file"
