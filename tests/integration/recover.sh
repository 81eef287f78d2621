#!/bin/bash
# psrec recover: repairs a file perf record left when killed with -9
# (data.size 0), also compressed, never grows or shrinks it, refuses what
# is not perf.data, and leaves healthy files alone. A -z file whose zstd
# data claims 2 GiB a record (zbomb) costs a bounded amount of memory, in
# recover and in fold, markers and pprof, and loses only that data.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}

for z in "" -z; do
	out="$TMP/killed$z.data"
	# shellcheck disable=SC2086
	"$PERF" record $z -m 8 -e cpu-clock -o "$out" -- "$SPIN" 30 1 2>/dev/null &
	pid=$!
	# Killed once perf has written 24 KiB: ring data past the ~10 KiB of
	# header and synthesized records it starts with (-z: a few seconds).
	wait_until "size_at_least $out 24576" 60 "perf record to write 24 KiB to $out"
	child=$(pgrep -P "$pid" spin || true)
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
	size=$(stat -c %s "$out")
	dsize=$(od -An -tu8 -j48 -N8 "$out" | tr -d ' ')
	[ "$dsize" = 0 ] || fail "$z: perf record left data.size $dsize (the test expects 0)"
	"$PERF" report -i "$out" --stdio 2>&1 | grep -q 'data size field is 0' || fail "$z: perf did not complain before the repair"

	"$PSREC" recover "$out" 2>"$TMP/err.txt" || fail "$z: recover failed: $(cat "$TMP/err.txt")"
	grep -Eq "^psrec: recovered $out: kept [0-9]+ records" "$TMP/err.txt" || fail "$z: message: $(cat "$TMP/err.txt")"
	[ "$(stat -c %s "$out")" = "$size" ] || fail "$z: recover changed the file size"
	txt=$(report -i "$out" --no-children --sort sym)
	no_perf_warnings "recovered $z"
	grep -q hot_a <<<"$txt" || fail "$z: no hot_a after the repair"
	"$PDCHECK" "$out" >/dev/null || fail "$z: psrec's reader rejects the repaired file"
	# hotspot's perfparser too (it has no zstd: the plain file), within
	# 1 GB: it aborted on the cut record recover left after the data
	if [ -z "$z" ] && [ -x "$HSPARSER" ]; then
		(ulimit -v 1048576 && exec timeout 120 "$HSPARSER" --input "$out" --output "$out.pp") >/dev/null 2>"$TMP/hs.err" ||
			fail "hotspot-perfparser failed on the repaired file: $(grep -v '^QFile' "$TMP/hs.err" | tail -n 3 | paste -sd'|')"
		"$HSDECODE" --no-inline "$out.pp" | grep -q 'hot_a@' || fail "hotspot-perfparser finds no hot_a in the repaired file"
	fi

	# A second run finds nothing to do and changes nothing.
	sum=$(md5sum <"$out")
	"$PSREC" recover "$out" 2>"$TMP/err.txt" || fail "$z: second recover failed"
	grep -q 'needs no repair' "$TMP/err.txt" || fail "$z: second run: $(cat "$TMP/err.txt")"
	[ "$(md5sum <"$out")" = "$sum" ] || fail "$z: second recover modified the file"
done

# A file cut inside a record, its header as a kill leaves it (data.size 0,
# no feature bits), repaired: hotspot's perfparser read the cut record's
# bytes after the data as a table entry and aborted (std::bad_alloc).
if [ -x "$HSPARSER" ]; then
	cut="$TMP/cut.data"
	"$PSREC" -q -e cpu-clock -B -o "$cut" -- "$SPIN" 0.3 1 || fail "psrec for the cut file failed"
	doff=$(od -An -tu8 -j40 -N8 "$cut" | tr -d ' ')
	dsize=$(od -An -tu8 -j48 -N8 "$cut" | tr -d ' ')
	# inside a record: 3 bytes past the 8-aligned middle of the data
	truncate -s $((doff + dsize / 2 / 8 * 8 + 3)) "$cut"
	dd if=/dev/zero of="$cut" bs=1 seek=48 count=8 conv=notrunc status=none
	dd if=/dev/zero of="$cut" bs=1 seek=72 count=32 conv=notrunc status=none
	"$PSREC" recover "$cut" 2>"$TMP/err.txt" || fail "recover of the cut file failed: $(cat "$TMP/err.txt")"
	(ulimit -v 1048576 && exec timeout 120 "$HSPARSER" --input "$cut" --output "$cut.pp") >/dev/null 2>"$TMP/hs.err" ||
		fail "hotspot-perfparser failed on the repaired cut file: $(grep -v '^QFile' "$TMP/hs.err" | tail -n 3 | paste -sd'|')"
	"$HSDECODE" --no-inline "$cut.pp" | grep -q 'hot_a@' || fail "hotspot-perfparser finds no hot_a in the repaired cut file"
	echo "ok: a file cut inside a record, repaired, is read by hotspot's perfparser"
fi

# A 130 KB killed -z file (zbomb): 100 samples, then two COMPRESSED records
# whose zstd data goes on in RLE blocks, 2 GiB each. recover held 1.07 GB;
# now its memory is bounded, it says where and why it dropped the data,
# and perf reads the 100 samples kept.
maxrss() { sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$1"; }
# about 8 MB, 70 MB under ASan: the claim is gigabytes
RSS_KB=262144
"$ZBOMB" "$TMP/bomb.data" || fail "zbomb failed"
size=$(stat -c %s "$TMP/bomb.data")
"$BENCHRUN" "$TMP/cost" "$PSREC" recover "$TMP/bomb.data" 2>"$TMP/err.txt" || fail "recover of the bomb failed: $(cat "$TMP/err.txt")"
rss=$(maxrss "$TMP/cost")
{ [ "${rss:-0}" -gt 0 ] && [ "$rss" -lt $RSS_KB ]; } || fail "recover of a 130 KB file held ${rss:-?} KB"
grep -Eq "^psrec: recovered $TMP/bomb.data: kept 101 records \(100 samples\), .*a COMPRESSED feature added \(mmap_len 4000\); dropped the data from offset [0-9]+ on: COMPRESSED record at offset [0-9]+ decompresses to more than 1073741824 bytes" "$TMP/err.txt" ||
	fail "recover of the bomb: $(cat "$TMP/err.txt")"
[ "$(wc -l <"$TMP/err.txt")" = 1 ] || fail "recover of the bomb: not one line: $(cat "$TMP/err.txt")"
[ "$(stat -c %s "$TMP/bomb.data")" = "$size" ] || fail "recover changed the bomb's size"
report -i "$TMP/bomb.data" >"$TMP/bomb.txt"
grep -q "^# Samples: 100 " "$TMP/bomb.txt" || fail "perf report of the recovered bomb: $(head -20 "$TMP/bomb.txt") $(cat "$TMP/perf.err")"
grep -q "zbomb" "$TMP/bomb.txt" || fail "perf report of the recovered bomb has no zbomb samples"
grep -Eiq 'error|failed|decompress' "$TMP/perf.err" && fail "perf complained about the recovered bomb: $(cat "$TMP/perf.err")"
"$PDCHECK" "$TMP/bomb.data" >/dev/null || fail "psrec's reader rejects the recovered bomb"
echo "ok: recover of a decompression bomb: ${rss} KB, the bomb dropped with its reason, perf reads the 100 samples"

# The same bomb finished, its COMPRESSED feature saying mmap_len 1 GiB:
# fold, markers and pprof each read with a bounded memory and stop at it
# with one line naming the record (they held 1 GiB).
"$ZBOMB" -m 1073741824 "$TMP/fbomb.data" || fail "zbomb -m failed"
for cmd in "fold -i $TMP/fbomb.data" "markers -i $TMP/fbomb.data" "pprof -i $TMP/fbomb.data -o $TMP/fbomb.pb.gz"; do
	code=0
	# shellcheck disable=SC2086  # the command's words
	"$BENCHRUN" "$TMP/cost" "$PSREC" $cmd >/dev/null 2>"$TMP/err.txt" || code=$?
	rss=$(maxrss "$TMP/cost")
	{ [ "${rss:-0}" -gt 0 ] && [ "$rss" -lt $RSS_KB ]; } || fail "psrec $cmd held ${rss:-?} KB"
	[ "$code" = 1 ] || fail "psrec $cmd: exit $code: $(cat "$TMP/err.txt")"
	{ [ "$(wc -l <"$TMP/err.txt")" = 1 ] && grep -q "COMPRESSED record at offset [0-9]* decompresses to more than" "$TMP/err.txt"; } ||
		fail "psrec $cmd: $(cat "$TMP/err.txt")"
done
[ -e "$TMP/fbomb.pb.gz" ] && fail "pprof left a profile of the bomb"
echo "ok: fold, markers and pprof read a decompression bomb in bounded memory and name the record"

# A finished psrec file is left alone.
"$PSREC" -q -e cpu-clock -o "$TMP/ok.data" -- "$SPIN" 0.3 1 || fail "psrec failed"
sum=$(md5sum <"$TMP/ok.data")
"$PSREC" recover "$TMP/ok.data" 2>/dev/null || fail "recover on a good file failed"
[ "$(md5sum <"$TMP/ok.data")" = "$sum" ] || fail "recover modified a good file"

# Not perf.data: clean error, exit 1, file untouched; usage errors exit 2.
printf 'just some text, certainly not a perf.data file at all, long enough to have a header size......................................\n' >"$TMP/text"
sum=$(md5sum <"$TMP/text")
code=0
"$PSREC" recover "$TMP/text" 2>"$TMP/err.txt" || code=$?
[ "$code" = 1 ] || fail "recover on text: exit $code"
grep -q 'is not a perf.data file' "$TMP/err.txt" || fail "recover on text: $(cat "$TMP/err.txt")"
[ "$(md5sum <"$TMP/text")" = "$sum" ] || fail "recover modified a text file"
"$PSREC" -q -e cpu-clock -o - -- true >"$TMP/stream.data"
code=0
"$PSREC" recover "$TMP/stream.data" 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 1 ] && grep -q 'pipe-format stream' "$TMP/err.txt"; } || fail "recover on a stream: $code $(cat "$TMP/err.txt")"
code=0
"$PSREC" recover "$TMP/missing.data" 2>"$TMP/err.txt" || code=$?
{ [ "$code" = 1 ] && grep -q 'cannot open' "$TMP/err.txt"; } || fail "recover on a missing file: $code"
code=0
"$PSREC" recover 2>"$TMP/err.txt" || code=$?
[ "$code" = 2 ] || fail "recover without a file: exit $code"
echo "ok: recover"
