#!/bin/bash
# fuzz.sh TARGET|all SECONDS - run a libFuzzer target (reader, recover, fold,
# options, markers; all: each in turn) for SECONDS, starting from its seed corpus in
# tests/fuzz/corpus/TARGET. Builds build-fuzz (clang, -Dfuzz=enabled) when
# needed. The seeds are copied into a scratch corpus, so what the fuzzer
# adds never lands in git; PSREC_FUZZ_WORK keeps that scratch dir (default:
# a new one under /tmp, removed when nothing was found). Exits 1 when a
# target crashes, leaks, trips a sanitizer or times out, naming the input
# that does it. Extra libFuzzer flags go in PSREC_FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ] || ! [[ $2 =~ ^[0-9]+$ ]]; then
	echo "usage: scripts/fuzz.sh reader|recover|options|fold|markers|all SECONDS" >&2
	exit 2
fi
TARGETS=$1
[ "$TARGETS" = all ] && TARGETS="reader recover options fold markers"
SECONDS_EACH=$2
B=build-fuzz
for t in $TARGETS; do
	case $t in
	reader|recover|options|fold|markers) ;;
	*) echo "fuzz.sh: unknown target '$t' (reader, recover, options, fold, markers or all)" >&2; exit 2 ;;
	esac
done

if [ ! -d "$B/meson-private" ]; then
	CC=clang meson setup "$B" -Dfuzz=enabled -Dtests=disabled -Dwerror=true >/dev/null
fi
ninja -C "$B" tests/fuzz/fuzz_reader tests/fuzz/fuzz_recover tests/fuzz/fuzz_options tests/fuzz/fuzz_fold tests/fuzz/fuzz_markers >/dev/null

WORK=${PSREC_FUZZ_WORK:-$(mktemp -d /tmp/psrec-fuzz-XXXXXX)}
mkdir -p "$WORK"
failed=0
for t in $TARGETS; do
	corpus=$WORK/$t/corpus
	mkdir -p "$corpus" "$WORK/$t/crashes"
	# fold explores the reader's seeds: both take recordings
	seeds=$t
	[ "$t" = fold ] && seeds=reader
	cp tests/fuzz/corpus/"$seeds"/* "$corpus"/
	case $t in
	options) max_len=4096 ;;
	markers) max_len=65536 ;;
	*) max_len=262144 ;;
	esac
	log=$WORK/$t/fuzz.log
	echo "fuzz.sh: $t for ${SECONDS_EACH}s (log $log)" >&2
	# A timeout of 10 s per input: every input is tiny, so a slow one is
	# a hang (an endless loop), not bad luck. rss_limit: a decompression
	# bomb must hit the reader's own limits, not the machine's memory.
	# shellcheck disable=SC2086
	if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	   UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	   "$B/tests/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -max_len=$max_len \
		-timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="$WORK/$t/crashes/" ${PSREC_FUZZ_FLAGS:-} "$corpus" >"$log" 2>&1; then
		grep -E "^(#[0-9]+[[:space:]]+DONE|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb))" "$log" | sed "s/^/fuzz.sh: $t: /" >&2 || true
	else
		failed=1
		grep -E 'ERROR|SUMMARY|fuzz_recover:|Test unit written' "$log" | sed "s/^/fuzz.sh: $t: /" >&2 || true
		for f in "$WORK/$t/crashes"/*; do
			[ -e "$f" ] && echo "fuzz.sh: $t: reproducer $f (replay: $B/tests/fuzz/fuzz_$t $f)" >&2
		done
	fi
done
if [ $failed = 0 ] && [ -z "${PSREC_FUZZ_WORK:-}" ]; then
	rm -rf "$WORK"
	echo "fuzz.sh: nothing found" >&2
fi
exit $failed
