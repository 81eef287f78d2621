#!/bin/bash
# switch_output.sh - recording in chunks (--switch-output): each chunk is a
# complete perf.data named OUTPUT.YYYYmmddHHMMSScc that perf report and
# hotspot's perfparser read on their own, with its own side band; together
# they hold every sample once; --switch-max-files keeps the newest;
# SIGUSR2 cuts with "signal"; the command runs once per chunk; a
# fork/exec workload leaves no sample without a comm in any chunk.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}

# chunks PREFIX: the chunk names of PREFIX, oldest first, one a line.
chunks() {
	find "$(dirname "$1")" -maxdepth 1 -name "$(basename "$1").*" -printf '%p\n' | sort
}
# hs_normalize FILE: perfparser's diagnostics, one of a kind a line:
# numbers, quoted values and the feature that perfparser 4.12 reads past
# its end (which one varies from file to file, perf record's too) blanked.
hs_normalize() {
	sed -E 's/"[^"]*"/"..."/g; s/PerfHeader::[A-Z_]+/PerfHeader::F/g; s/[0-9]+/N/g' "$1" | sort -u
}
# each_resolves_hot_a WHAT FILE...: perf report reads each FILE alone, with
# no warning, and resolves hot_a in it.
each_resolves_hot_a() {
	local what=$1 f txt
	shift
	for f in "$@"; do
		txt=$(report -i "$f" --no-children --sort sym)
		no_perf_warnings "perf report of $what $f"
		[ -n "$(sym_pct hot_a <<<"$txt")" ] || fail "$what $f resolves no hot_a"
	done
}
# script_samples FILE: samples perf script prints (one line each).
script_samples() {
	"$PERF" script --ns -i "$1" -F comm,tid,time,ip 2>"$TMP/perf.err"
}

# ---- 1 s chunks over a 5 s spin, against one 5 s recording -------------

# cpu_s STATSFILE: the CPU seconds the workload used (benchstat.h).
cpu_s() {
	tr ' ' '\n' <"$1" | awk -F= '$1 == "user_s" || $1 == "sys_s" { t += $2 } END { print t + 0 }'
}

out="$TMP/sw.data"
PSREC_BENCH_STATS="$TMP/sw.stats" "$PSREC" -e cpu-clock --switch-output=1s -o "$out" -- "$SPIN" 5 1 2>"$TMP/sw.err" ||
	fail "psrec --switch-output=1s exited $?: $(cat "$TMP/sw.err")"
mapfile -t files < <(chunks "$out")
[ "${#files[@]}" -ge 4 ] || fail "5 s in 1 s chunks made ${#files[@]} chunks: ${files[*]}"
[ ! -e "$out" ] || fail "$out is still there: the last chunk was not named"
summary=$(sed -n 's/^psrec: wrote .* in \([0-9]*\) chunks .*(\([0-9]*\) samples, 0 lost)$/\1 \2/p' "$TMP/sw.err")
[ "${summary%% *}" = "${#files[@]}" ] || fail "summary names ${summary%% *} chunks, ${#files[@]} exist: $(cat "$TMP/sw.err")"
total=0 shared=0
: >"$TMP/all.txt"
for f in "${files[@]}"; do
	[[ $f =~ /sw\.data\.[0-9]{16}$ ]] || fail "chunk name $f is not OUTPUT.YYYYmmddHHMMSScc (16 digits, as perf names them)"
	grep -q "^psrec: chunk $f (" "$TMP/sw.err" || fail "psrec did not announce $f"
	# A cut just before spin exits leaves a last chunk of its exit
	# records alone (once, under ASan in CI): valid, and perf says only
	# that it has no samples.
	if [ "$f" = "${files[-1]}" ] && ! has_samples "$f" 1; then
		report -i "$f" >/dev/null || true
		grep -q 'has no samples' "$TMP/perf.err" || fail "the empty last chunk $f: $(cat "$TMP/perf.err")"
		grep -q "^psrec: chunk $f (0 samples" "$TMP/sw.err" || fail "psrec did not say $f is empty"
		continue
	fi
	txt=$(report -i "$f" --no-children --sort sym)
	no_perf_warnings "perf report of chunk $f"
	# Symbols resolve in every chunk: its side band is its own. The share
	# is measured where there are samples enough for it (under ASan a
	# last chunk held no hot_a sample).
	share=$(sym_pct hot_a <<<"$txt")
	# (a small last chunk may hold only spin's exit, in the kernel)
	if [ "$(report_samples <<<"$txt")" -ge 200 ]; then
		assert_near "${share:-0}" 60 8 "hot_a in chunk $f"
		shared=$((shared + 1))
	fi
	"$PERF" report -i "$f" --header-only >"$TMP/hdr.txt" 2>"$TMP/perf.err"
	no_perf_warnings "perf report --header-only of chunk $f"
	grep -q '^# build id' "$TMP/hdr.txt" || grep -q 'build_id' "$TMP/hdr.txt" ||
		fail "chunk $f has no BUILD_ID feature"
	grep -q "^# sample duration" "$TMP/hdr.txt" || fail "chunk $f has no SAMPLE_TIME"
	script_samples "$f" >"$TMP/chunk.txt"
	no_perf_warnings "perf script of chunk $f"
	grep -q '^ *spin ' "$TMP/chunk.txt" || fail "chunk $f has no sample of comm spin"
	n=$(wc -l <"$TMP/chunk.txt")
	[ "$n" -gt 0 ] || fail "chunk $f holds no sample"
	total=$((total + n))
	cat "$TMP/chunk.txt" >>"$TMP/all.txt"
done
[ "$shared" -ge 3 ] || fail "only $shared chunks held 200 samples to measure hot_a's share in"
[ "$total" = "${summary#* }" ] || fail "the chunks hold $total samples, psrec's summary says ${summary#* }"
# Nothing counted twice at a switch: no (thread, time) repeats.
dups=$(sort "$TMP/all.txt" | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "$dups samples appear in two chunks"
# The perf build-id list of the first chunk names spin.
"$PERF" buildid-list -i "${files[0]}" 2>"$TMP/perf.err" | grep -q "$(basename "$SPIN")\$" ||
	fail "perf buildid-list of ${files[0]} does not list spin"

# Against one recording of the same 5 s: the same samples per CPU second
# of spin (cpu-clock samples its CPU time; the machine may be busy, so
# the totals alone would compare the load, not the recorders). Within 5%:
# beside a whole suite on 2 CPUs the two rates were seen 3.2% apart, as
# the kernel's cpu-clock timer slips under load; a chunk lost or counted
# twice is a whole second, 20% of them.
PSREC_BENCH_STATS="$TMP/one.stats" "$PSREC" -e cpu-clock -o "$TMP/one.data" -- "$SPIN" 5 1 2>"$TMP/one.err" ||
	fail "psrec exited $?: $(cat "$TMP/one.err")"
one=$(script_samples "$TMP/one.data" | wc -l)
rates=$(awk -v a="$total" -v ca="$(cpu_s "$TMP/sw.stats")" -v b="$one" -v cb="$(cpu_s "$TMP/one.stats")" \
	'BEGIN { printf "%.0f %.0f", a / ca, b / cb }')
awk -v r="$rates" 'BEGIN { split(r, x, " "); d = x[1] - x[2]; if (d < 0) d = -d; exit !(x[2] > 1000 && d <= 0.05 * x[2]) }' ||
	fail "the chunks hold $total samples, one recording $one: per CPU second of spin $rates (more than 5% apart)"
echo "ok: ${#files[@]} chunks, $total samples, each chunk read alone; per CPU second of spin $rates (chunks, one file)"

# hotspot's perfparser reads every chunk alone, and resolves spin in each;
# it says of each what it says of one recording (readers.sh compares that
# one with perf record's).
if [ -x "$HSPARSER" ]; then
	"$HSPARSER" --input "$TMP/one.data" --output "$TMP/one.pp" 2>"$TMP/hs.one.err" ||
		fail "hotspot-perfparser failed on one recording: $(cat "$TMP/hs.one.err")"
	resolved=0
	for f in "${files[@]}"; do
		"$HSPARSER" --input "$f" --output "$f.pp" 2>"$TMP/hs.err" || fail "hotspot-perfparser failed on $f: $(cat "$TMP/hs.err")"
		extra=$(comm -23 <(hs_normalize "$TMP/hs.err") <(hs_normalize "$TMP/hs.one.err"))
		[ -z "$extra" ] || fail "hotspot-perfparser says of $f, not of one recording: $extra"
		"$HSDECODE" --no-inline "$f.pp" >"$TMP/hs.txt" || fail "cannot decode hotspot's output for $f"
		res=$(awk -F'\t' '$1 ~ /^sample / { n++; if ($2 ~ /^hot_[abc]@/) h++ } END { printf "%d %d", h, n }' "$TMP/hs.txt")
		# The share is measured where there are samples enough (a last
		# chunk of spin's exit held 15, none in hot_*, under ASan in CI)
		if [ "${res#* }" -gt 100 ]; then
			awk -v c="$res" 'BEGIN { split(c, x, " "); exit !(x[1] >= 0.9 * x[2]) }' ||
				fail "hotspot resolves hot_* in only $res samples of chunk $f"
			resolved=$((resolved + 1))
		fi
		rm -f "$f.pp"
	done
	[ "$resolved" -ge 3 ] || fail "only $resolved chunks held 100 samples for hotspot to resolve"
	echo "ok: hotspot's perfparser reads every chunk and resolves spin in the $resolved chunks of 100 samples or more"
fi

# ---- -z: every chunk decodes alone --------------------------------------

zout="$TMP/z.data"
"$PSREC" -z -e cpu-clock --switch-output=1s -o "$zout" -- "$SPIN" 2.5 1 2>"$TMP/z.err" ||
	fail "psrec -z --switch-output exited $?: $(cat "$TMP/z.err")"
mapfile -t zfiles < <(chunks "$zout")
[ "${#zfiles[@]}" -ge 2 ] || fail "-z: ${#zfiles[@]} chunks"
each_resolves_hot_a "-z chunk" "${zfiles[@]}"
echo "ok: ${#zfiles[@]} compressed chunks, each decoded alone"

# ---- a size: a chunk is cut once its file reaches it --------------------

bout="$TMP/size.data"
"$PSREC" -e cpu-clock --switch-output=64K -o "$bout" -- "$SPIN" 2 1 2>"$TMP/size.err" ||
	fail "psrec --switch-output=64K exited $?: $(cat "$TMP/size.err")"
mapfile -t bfiles < <(chunks "$bout")
[ "${#bfiles[@]}" -ge 3 ] || fail "--switch-output=64K over 2 s made ${#bfiles[@]} chunks"
for f in "${bfiles[@]:0:${#bfiles[@]}-1}"; do
	# Cut after the pass that reached 64 KiB: at least that, and not a
	# whole ring (512 KiB) more.
	sz=$(stat -c %s "$f")
	if [ "$sz" -lt 65536 ] || [ "$sz" -ge $((65536 + 524288 + 65536)) ]; then
		fail "chunk $f of --switch-output=64K holds $sz bytes"
	fi
done
# (the last chunk may hold spin's exit records alone, as in the 1 s case)
each_resolves_hot_a "size chunk" "${bfiles[@]:0:${#bfiles[@]}-1}"
if has_samples "${bfiles[-1]}" 1; then
	each_resolves_hot_a "last size chunk" "${bfiles[-1]}"
fi
echo "ok: --switch-output=64K cut ${#bfiles[@]} chunks of 64 KiB or a pass more"

# ---- --switch-max-files=2 keeps the newest two --------------------------

mout="$TMP/max.data"
"$PSREC" -e cpu-clock --switch-output=1s --switch-max-files=2 -o "$mout" -- "$SPIN" 4.5 1 2>"$TMP/max.err" ||
	fail "psrec --switch-max-files exited $?: $(cat "$TMP/max.err")"
mapfile -t announced < <(sed -n 's/^psrec: chunk \(.*\) (.*/\1/p' "$TMP/max.err")
mapfile -t kept < <(chunks "$mout")
[ "${#announced[@]}" -ge 4 ] || fail "--switch-max-files: only ${#announced[@]} chunks were made"
[ "${#kept[@]}" = 2 ] || fail "--switch-max-files=2 left ${#kept[@]} chunks: ${kept[*]}"
[ "${kept[*]}" = "${announced[*]: -2}" ] || fail "kept ${kept[*]}, not the newest two of ${announced[*]}"
echo "ok: --switch-max-files=2 kept the newest 2 of ${#announced[@]}"

# ---- signal: SIGUSR2 cuts; time does not ---------------------------------

sout="$TMP/sig.data"
"$PSREC" -v -e cpu-clock --switch-output -o "$sout" -- "$SPIN" 30 1 2>"$TMP/sig.err" &
pid=$!
BG_PIDS="$BG_PIDS $pid"
wait_until "started $TMP/sig.err && has_samples $sout 100" 20 "psrec to record"
sleep 1.2 # longer than any time trigger would be: no chunk may come of it
[ -z "$(chunks "$sout")" ] || fail "a chunk appeared without SIGUSR2: $(chunks "$sout")"
kill -USR2 "$pid"
wait_until "[ \"\$(chunks $sout | wc -l)\" = 1 ]" 10 "the chunk SIGUSR2 cuts"
wait_until "has_samples $sout 100" 20 "samples in the next chunk"
kill -USR2 "$pid"
wait_until "[ \"\$(chunks $sout | wc -l)\" = 2 ]" 10 "the second chunk"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || fail "psrec stopped by SIGINT exited $rc: $(cat "$TMP/sig.err")"
mapfile -t sfiles < <(chunks "$sout")
[ "${#sfiles[@]}" = 3 ] || fail "two SIGUSR2 and an end made ${#sfiles[@]} chunks: ${sfiles[*]}"
each_resolves_hot_a "signal chunk" "${sfiles[@]}"
echo "ok: SIGUSR2 cut 2 chunks, the end a third"

# ---- --switch-output-command: once per chunk, never waited for ----------

cat >"$TMP/ship.sh" <<'SHIP'
#!/bin/sh
# Slow on purpose: psrec must not wait for it while recording.
sleep 0.5
printf '%s\n' "$1" >>"${SHIPPED:?}"
SHIP
chmod +x "$TMP/ship.sh"
cout="$TMP/cmd data"
SHIPPED="$TMP/shipped.txt" "$PSREC" -e cpu-clock --switch-output=1s --switch-output-command "$TMP/ship.sh" \
	-o "$cout" -- "$SPIN" 3.5 1 2>"$TMP/cmd.err" || fail "psrec --switch-output-command exited $?: $(cat "$TMP/cmd.err")"
mapfile -t cfiles < <(chunks "$cout")
[ "${#cfiles[@]}" -ge 3 ] || fail "--switch-output-command: ${#cfiles[@]} chunks"
[ "$(sort "$TMP/shipped.txt")" = "$(printf '%s\n' "${cfiles[@]}")" ] ||
	fail "the command was run for $(paste -sd, "$TMP/shipped.txt"), the chunks are ${cfiles[*]}"
! grep -q "failed" "$TMP/cmd.err" || fail "psrec reports a failed command: $(cat "$TMP/cmd.err")"
# A command that fails is reported, once, at the end.
"$PSREC" -e cpu-clock --switch-output=1s --switch-output-command false -o "$TMP/f.data" -- "$SPIN" 1.5 1 \
	2>"$TMP/f.err" || fail "psrec with a failing command exited $?"
# (as many chunks as seconds it took: 2, or more on a busy machine)
mapfile -t ffiles < <(chunks "$TMP/f.data")
n=${#ffiles[@]}
{ [ "$n" -ge 2 ] && grep -q "^psrec: --switch-output-command failed for $n of $n chunks\$" "$TMP/f.err"; } ||
	fail "a failing command is not reported for each of the $n chunks: $(cat "$TMP/f.err")"
echo "ok: the command ran once for each of ${#cfiles[@]} chunks"

# ---- a fork/exec workload: every sample of every chunk has its comm ------

fout="$TMP/fork.data"
"$PSREC" -e cpu-clock -F 999 --switch-output=1s -o "$fout" -- "$FORKER" 2500 2>"$TMP/fork.err" ||
	fail "psrec on forker exited $?: $(cat "$TMP/fork.err")"
mapfile -t ffiles < <(chunks "$fout")
[ "${#ffiles[@]}" -ge 2 ] || fail "forker: ${#ffiles[@]} chunks (forker ran too briefly?)"
# Children's samples: in most chunks, not necessarily all. The last chunk
# is the tail after the last cut, a few milliseconds, and on a machine
# busy with other work a whole 1 s chunk of ~100 forker samples has been
# seen with none of the ~100 children's (not understood yet): what is
# asserted is that every sample has its comm, and the children are
# sampled in most chunks.
with_true=0
for f in "${ffiles[@]}"; do
	"$PERF" script -i "$f" -F comm,pid 2>"$TMP/perf.err" >"$TMP/fc.txt"
	no_perf_warnings "perf script of forker chunk $f"
	bad=$(awk '$1 !~ /^(forker|true)$/' "$TMP/fc.txt" | sort | uniq -c | head -5)
	[ -z "$bad" ] || fail "samples of chunk $f without their comm: $bad"
	if [ "$(grep -c '^ *true ' "$TMP/fc.txt")" -gt 0 ]; then
		with_true=$((with_true + 1))
	else
		echo "note: chunk $f has no sample of the exec'd children: $(awk '{ print $1 "/" $2 }' "$TMP/fc.txt" | sort | uniq -c | sort -rn | head -3 | paste -sd, -)" >&2
	fi
done
[ $((2 * with_true)) -ge "${#ffiles[@]}" ] ||
	fail "the exec'd children are sampled in only $with_true of ${#ffiles[@]} chunks"
echo "ok: ${#ffiles[@]} chunks of a fork/exec workload, every sample with its comm"

# ---- -a: a process that ran before the recording, named in every chunk --
# (later chunks re-read /proc only for processes whose side band changed:
# spin's comes from the cache of the first cut, sidecache.h)

bg_start "$SPIN" 30 1
wait_until "runs $BG_PID spin" 10 "spin to start"
aout="$TMP/all.data"
"$PSREC" -a -e cpu-clock --switch-output=1s --duration 3.5 -o "$aout" 2>"$TMP/all.err" ||
	fail "psrec -a --switch-output exited $?: $(cat "$TMP/all.err")"
kill -KILL "$BG_PID"
mapfile -t afiles < <(chunks "$aout")
[ "${#afiles[@]}" -ge 3 ] || fail "-a: ${#afiles[@]} chunks"
# A chunk where spin got too little CPU to have a shape (the tail after
# the last cut, or a machine busy with other work) is named, not judged;
# every chunk of 100 spin samples or more must show hot_a's share.
judged=0
for f in "${afiles[@]}"; do
	txt=$(report -i "$f" --no-children --pid "$BG_PID" --percentage relative --sort sym)
	no_perf_warnings "perf report of -a chunk $f"
	n=$(report_samples <<<"$txt")
	if [ "${n:-0}" -lt 100 ]; then
		echo "note: -a chunk $f: only ${n:-0} samples of spin" >&2
		continue
	fi
	judged=$((judged + 1))
	assert_near "$(sym_pct hot_a <<<"$txt")" 60 8 "-a chunk $f ($n samples of spin): hot_a of the spin that ran before"
done
[ "$judged" -ge 2 ] || fail "-a: only $judged of ${#afiles[@]} chunks hold 100 samples of spin"
echo "ok: -a in ${#afiles[@]} chunks, a process older than the recording resolved in each"

# ---- refusals -----------------------------------------------------------

"$PSREC" --switch-output=1s -o - -- true 2>"$TMP/pipe.err" | cat >"$TMP/pipe.out"
rc=${PIPESTATUS[0]}
err=$(cat "$TMP/pipe.err")
if ! { [ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q -- '-o FILE' <<<"$err" && [ ! -s "$TMP/pipe.out" ]; }; then
	fail "-o - with --switch-output: exit $rc, '$err'"
fi
mkfifo "$TMP/fifo"
err=$("$PSREC" --switch-output=1s -o "$TMP/fifo" -- true 2>&1)
rc=$?
if ! { [ "$rc" = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q 'give -o FILE' <<<"$err"; }; then
	fail "a FIFO with --switch-output: exit $rc, '$err'"
fi
for bad in 10 1.5s 0s 10x 100m5; do
	err=$("$PSREC" --switch-output="$bad" -- true 2>&1)
	rc=$?
	if ! { [ "$rc" = 2 ] && grep -q "^psrec: --switch-output '$bad'" <<<"$err"; }; then
		fail "--switch-output=$bad: exit $rc, '$err'"
	fi
done
echo "ok: streams, FIFOs and bad triggers refused in one line"
