#!/bin/bash
# fuzz-seeds.sh - regenerate the seed corpus of the fuzz targets in
# tests/fuzz/corpus/<target>/: small real recordings by psrec and by
# perf record (file and pipe format, -z, -g, --call-graph dwarf), copies of
# them cut the way a killed recorder leaves them (for recover), and a few
# command lines (for options). Needs root (or a permissive
# perf_event_paranoid) and perf; builds psrec in build-fz (plain gcc) when
# it is not built yet. Recordings are short and at 200 Hz so every seed
# stays small: libFuzzer mutates better, and the corpus lives in git.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${PSREC_SEED_BUILD:-build-fz}
OUT=tests/fuzz/corpus
if [ ! -x "$B/psrec" ] || [ ! -x "$B/tests/spin" ] || [ ! -x "$B/tests/zbomb" ]; then
	[ -d "$B/meson-private" ] || meson setup "$B" -Dtests=enabled >/dev/null
	ninja -C "$B" >/dev/null
fi
PSREC=$B/psrec
SPIN=("$B/tests/spin" 0.1 1)
TMP=$(mktemp -d /tmp/psrec-seeds-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

rm -rf "$OUT/reader" "$OUT/recover" "$OUT/options"
mkdir -p "$OUT/reader" "$OUT/recover" "$OUT/options"

# record NAME RECORDER ARGS...: a file recording (or, with -o -, a stream)
# into $TMP/NAME.
record() {
	local name=$1 who=$2
	shift 2
	local args=(-F 200 -e cpu-clock "$@") out=(-o "$TMP/$name") stdout=/dev/null
	# -o - among the arguments: the stream is standard output.
	if [[ " $* " == *" -o - "* ]]; then
		out=()
		stdout=$TMP/$name
	fi
	if [ "$who" = psrec ]; then
		"$PSREC" -q "${args[@]}" "${out[@]}" -- "${SPIN[@]}" >"$stdout"
	else
		perf record -q "${args[@]}" "${out[@]}" -- "${SPIN[@]}" >"$stdout" 2>/dev/null
	fi
}

for who in psrec perf; do
	record "$who-plain" $who
	record "$who-z" $who -z
	record "$who-g" $who -g
	record "$who-dwarf" $who --call-graph dwarf,512
	record "$who-pipe" $who -o -
	record "$who-pipe-z" $who -o - -z
	record "$who-pipe-g" $who -o - -g
done
# Two events: samples are told apart by id.
record psrec-2ev psrec -e page-faults
record perf-2ev perf -e page-faults

# What a killed recorder leaves: data.size 0 (offset 48) and the file cut
# inside the data, so the last record is incomplete and any feature table
# is gone. cut_seed NAME BYTES SUFFIX.
cut_seed() {
	local src=$1 keep=$2 dst=$1-killed-$3
	head -c "$keep" "$TMP/$src" >"$TMP/$dst"
	dd if=/dev/zero of="$TMP/$dst" bs=1 seek=48 count=8 conv=notrunc status=none
}
for f in psrec-plain perf-plain psrec-z perf-z psrec-dwarf; do
	size=$(stat -c %s "$TMP/$f")
	cut_seed $f $((size / 2)) half
	cut_seed $f $((size * 3 / 4 + 3)) 3q
done
# -z data that claims far more than it holds (tests/tools/zbomb.h): 20
# samples, then a COMPRESSED record of 64 RLE blocks, 8 MiB of records
# of 2056 bytes; killed (for recover), and finished with mmap_len 1 GiB.
"$B/tests/zbomb" -b 1 -k 64 -s 20 "$TMP/zbomb-killed"
"$B/tests/zbomb" -m 1073741824 -b 1 -k 64 -s 20 "$TMP/zbomb-finished"
# data.size 0, nothing cut (killed between the last record and the table).
cp "$TMP/perf-g" "$TMP/perf-g-nosize"
dd if=/dev/zero of="$TMP/perf-g-nosize" bs=1 seek=48 count=8 conv=notrunc status=none

for f in "$TMP"/*; do
	n=$(basename "$f")
	cp "$f" "$OUT/reader/$n"
	case $n in
	*pipe-z) cp "$f" "$OUT/recover/$n" ;;  # one refusal
	*pipe*) ;;
	*) cp "$f" "$OUT/recover/$n" ;;
	esac
done

# options: NUL-separated arguments after "psrec".
opt() { # NAME ARGS...
	local name=$1
	shift
	printf '%s\0' "$@" | head -c -1 >"$OUT/options/$name"
}
opt cmd -- ./myprog --flag
opt freq -F 999 -o run.data ./myprog
opt events -e cpu-clock,page-faults:u -e task-clock:k -c 100000 make -j2
opt attach -p 1234,5678 -t 42 --duration 2.5 -m 2M -k monotonic_raw
opt system -a -C 0 -z 3 --compression-level=5 -q -v
opt callgraph --call-graph dwarf,512 --max-stack 64 -m 16 true
opt callgraph2 -g --call-graph=fp --call-graph lbr true
opt bad --freq=max -F 0 -x --nope -c
opt help -h
opt clock --clockid CLOCK_BOOTTIME -k 7 -o - true

du -sh "$OUT"
find "$OUT" -type f -size +64k -printf 'large seed: %p %s\n'
