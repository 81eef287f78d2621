#!/bin/bash
# fold.sh - psrec fold against perf on the same files (issue 13):
#  - a psrec -g recording of spin: each innermost frame's share matches
#    perf report --no-children within 1 point, and for 100 samples the
#    folded stack is the call chain perf script prints (outer to inner);
#  - the same for perf record -g's own file, a -z file and a pipe stream
#    read from standard input;
#  - filters (--pid, --comm, --no-kernel, --period, --time) and --event;
#  - perf's and psrec's streams without EVENT_DESC: the names are their
#    EVENT_UPDATE records' (type NAME, not SCALE);
#  - bad input: missing, empty, truncated (10 cuts), random bytes: one line,
#    exit 1, never a crash.
. "$(dirname "$0")/lib.sh"
need_perf

fold() { "$PSREC" fold "$@"; }

# share FOLDED SYM: percent of the weight whose innermost frame is SYM.
share() {
	awk -v s="$2" '{ n = $NF; t += n; k = split($0, f, ";"); sub(/ [0-9]+$/, "", f[k]); if (f[k] == s) m += n }
		END { printf "%.2f", t ? 100 * m / t : 0 }' "$1"
}

# check_shares DATA FOLDED WHAT: hot_a/b/c as perf report counts them.
check_shares() {
	perf report -i "$1" --stdio --no-children --sort sym 2>/dev/null >"$TMP/report.txt"
	for s in hot_a hot_b hot_c; do
		local want got
		want=$(sym_pct "$s" <"$TMP/report.txt")
		got=$(share "$2" "$s")
		assert_near "$got" "${want:-0}" 1 "$3: $s share (fold $got, perf report ${want:-0})"
	done
}

# check_chains DATA WHAT: for 100 samples, psrec fold --time T,T gives the
# chain perf script prints for the sample at T.
check_chains() {
	perf script -i "$1" -F time,ip,sym --no-inline 2>/dev/null | awk '
		/^ *[0-9]+\.[0-9]+:/ { if (t != "") print t "\t" c; t = $1; sub(/:$/, "", t); c = ""; next }
		NF >= 2 { s = $0; sub(/^[ \t]*[0-9a-f]+ /, "", s); if (s == "[unknown]") s = "?"; c = (c == "") ? s : s ";" c }
		END { if (t != "") print t "\t" c }' >"$TMP/chains.txt"
	local n=0 bad=0 t want got
	# every 7th sample with a unique time, up to 100
	while IFS=$'\t' read -r t want; do
		[ "$(grep -c "^$t	" "$TMP/chains.txt")" = 1 ] || continue
		# perf script prints microseconds: the sample lies in [t, t + 1 us)
		# the reference is --no-inline's: the inlined frames fold adds
		# under their function are left out of the comparison
		got=$(fold -i "$1" --time "$t,$(awk -v t="$t" 'BEGIN { printf "%.6f", t + 0.0000009 }')" 2>/dev/null |
			sed 's/ [0-9]*$//; s/^[^;]*;//; s/;[^;]* (inlined)//g' | sed 's/\[unknown\]/?/g')
		if [ "$got" != "$want" ]; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "$2: sample at $t: fold '$got', perf script '$want'" >&2
		fi
		n=$((n + 1))
		[ $n -ge 100 ] && break
	done < <(awk 'NR % 7 == 0' "$TMP/chains.txt")
	[ $n -ge 50 ] || fail "$2: only $n samples to compare"
	[ $bad -eq 0 ] || fail "$2: $bad of $n folded stacks differ from perf script's chains"
	echo "ok: $2: $n folded stacks equal perf script's chains"
}

# ---- psrec -g, perf record -g, -z, pipe on stdin --------------------------

"$PSREC" -q -g -o "$TMP/g.data" -- "$SPIN" 1 2 || fail "psrec -g failed"
fold -i "$TMP/g.data" >"$TMP/g.folded" 2>"$TMP/g.err" || fail "psrec fold failed: $(cat "$TMP/g.err")"
[ -s "$TMP/g.folded" ] || fail "psrec fold printed nothing"
sort -c "$TMP/g.folded" 2>/dev/null || LC_ALL=C sort -c "$TMP/g.folded" || fail "folded lines are not sorted"
grep -q '^spin;.*main;.*hot_a [0-9]*$' "$TMP/g.folded" || fail "no spin;...;main;...;hot_a line: $(head -3 "$TMP/g.folded")"
check_shares "$TMP/g.data" "$TMP/g.folded" "psrec -g"
check_chains "$TMP/g.data" "psrec -g"

perf record -q -g -o "$TMP/pg.data" -- "$SPIN" 1 2 >/dev/null 2>&1 || fail "perf record -g failed"
fold -i "$TMP/pg.data" >"$TMP/pg.folded" 2>"$TMP/pg.err" || fail "psrec fold of perf's file failed: $(cat "$TMP/pg.err")"
check_shares "$TMP/pg.data" "$TMP/pg.folded" "perf record -g"
check_chains "$TMP/pg.data" "perf record -g"

"$PSREC" -q -g -z -o "$TMP/z.data" -- "$SPIN" 1 2 || fail "psrec -g -z failed"
fold -i "$TMP/z.data" >"$TMP/z.folded" || fail "psrec fold of a -z file failed"
check_shares "$TMP/z.data" "$TMP/z.folded" "-z"
check_chains "$TMP/z.data" "-z"

"$PSREC" -q -g -o - -- "$SPIN" 1 2 >"$TMP/pipe.data" || fail "psrec -o - failed"
# shellcheck disable=SC2002  # a pipe, not a file, on purpose
cat "$TMP/pipe.data" | fold -i - >"$TMP/pipe.folded" || fail "psrec fold -i - from a pipe failed"
check_shares "$TMP/pipe.data" "$TMP/pipe.folded" "pipe on stdin"
fold -i - <"$TMP/pipe.data" | cmp -s - "$TMP/pipe.folded" || fail "fold -i - < FILE differs from the same bytes through a pipe"
check_chains "$TMP/pipe.data" "pipe format"
echo "ok: shares match perf report for psrec -g, perf record -g, -z and a stream on stdin"

# ---- filters ---------------------------------------------------------------

pid=$(perf script -i "$TMP/g.data" -F pid 2>/dev/null | awk '{ print $1; exit }')
fold -i "$TMP/g.data" --pid "$pid" >"$TMP/p.folded" || fail "--pid failed"
[ -s "$TMP/p.folded" ] || fail "--pid $pid folded nothing"
[ -z "$(fold -i "$TMP/g.data" --pid 1)" ] || fail "--pid 1 kept samples of another process"
[ -z "$(fold -i "$TMP/g.data" --comm nosuchcomm 2>/dev/null)" ] || fail "--comm kept samples of another name"
fold -i "$TMP/g.data" --comm spin >"$TMP/c.folded" || fail "--comm spin failed"
[ -s "$TMP/c.folded" ] || fail "--comm spin folded nothing"
fold -i "$TMP/g.data" --no-kernel | grep -q '\[k\]\|_\[k\]\|entry_SYSCALL' && fail "--no-kernel kept kernel frames"
total=$(awk '{ t += $NF } END { print t }' "$TMP/g.folded")
ptotal=$(fold -i "$TMP/g.data" --period | awk '{ t += $NF } END { print t }')
[ "${ptotal:-0}" -gt $((total * 1000)) ] || fail "--period: total $ptotal is not in periods (samples $total)"
echo "ok: --pid, --comm, --no-kernel and --period"

"$PSREC" -q -e cpu-clock,page-faults -o "$TMP/two.data" -- "$SPIN" 0.5 || fail "psrec with two events failed"
fold -i "$TMP/two.data" >/dev/null 2>"$TMP/two.err" || fail "fold of two events failed"
grep -q "folding event cpu-clock" "$TMP/two.err" || fail "fold did not say which event it folded: $(cat "$TMP/two.err")"
fold -i "$TMP/two.data" --event page-faults >"$TMP/pf.folded" || fail "--event page-faults failed"
[ -s "$TMP/pf.folded" ] || fail "--event page-faults folded nothing"
fold -i "$TMP/two.data" --event nosuch 2>"$TMP/ev.err" && fail "--event nosuch succeeded"
grep -q "no event 'nosuch'; it has: cpu-clock" "$TMP/ev.err" || fail "--event nosuch: $(cat "$TMP/ev.err")"
echo "ok: the first sampling event is folded and named; --event picks another"

# ---- a stream's event names: its EVENT_UPDATE records -----------------------

# perf and psrec send a stream's names twice: in EVENT_DESC (a HEADER_FEATURE
# record) and in EVENT_UPDATE records of type NAME, which perf puts beside
# UNIT and SCALE ones. A stream without EVENT_DESC (an older perf's) is named
# by the EVENT_UPDATEs alone. no_event_desc IN OUT copies the stream without
# its EVENT_DESC and prints "DROPPED NAMES": the EVENT_DESC records dropped
# and the EVENT_UPDATE NAME records kept.
no_event_desc() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
src = open(sys.argv[1], 'rb').read()
out, pos, dropped, names = [src[:16]], 16, 0, 0
while pos + 8 <= len(src):
    t, _, size = struct.unpack_from('<IHH', src, pos)
    if size < 8 or t == 66:  # tracing data would be followed by its payload
        sys.exit('record of type %d, size %d at %d: not handled' % (t, size, pos))
    rec = src[pos:pos + size]
    kind = struct.unpack_from('<Q', rec, 8)[0] if size >= 16 else None
    if t == 80 and kind == 12:
        dropped += 1
    else:
        out.append(rec)
    names += t == 78 and kind == 2
    pos += size
open(sys.argv[2], 'wb').write(b''.join(out))
print(dropped, names)
PY
}
"$PSREC" -q -e cpu-clock:u,task-clock -o - -- "$SPIN" 0.5 >"$TMP/ev-psrec.data" || fail "psrec -o - with two events failed"
perf record -q -e cpu-clock:u,task-clock -o - -- "$SPIN" 0.5 >"$TMP/ev-perf.data" 2>/dev/null ||
	fail "perf record -o - with two events failed"
for who in psrec perf; do
	counts=$(no_event_desc "$TMP/ev-$who.data" "$TMP/ev-$who-nodesc.data") || fail "$who: cannot strip EVENT_DESC"
	[ "$counts" = "1 2" ] || fail "$who -o -: expected one EVENT_DESC and two EVENT_UPDATE names, got: $counts"
	fold -i - <"$TMP/ev-$who-nodesc.data" >/dev/null 2>"$TMP/ev.err" || fail "$who: fold of the stream failed: $(cat "$TMP/ev.err")"
	# "cpu-clock:u" is in no attr: only the EVENT_UPDATE can have named it
	grep -q "folding event cpu-clock:u " "$TMP/ev.err" || fail "$who: fold did not name the event cpu-clock:u: $(cat -v "$TMP/ev.err")"
	fold -i - --event task-clock <"$TMP/ev-$who-nodesc.data" >"$TMP/tc.folded" || fail "$who: --event task-clock failed"
	grep -q 'hot_a' "$TMP/tc.folded" || fail "$who: --event task-clock folded no hot_a"
	fold -i - --event nosuch <"$TMP/ev-$who-nodesc.data" 2>"$TMP/ev.err" && fail "$who: --event nosuch succeeded"
	grep -q "it has: cpu-clock:u, task-clock$" "$TMP/ev.err" || fail "$who: --event nosuch: $(cat -v "$TMP/ev.err")"
done
echo "ok: a stream without EVENT_DESC is named by its EVENT_UPDATE name records (psrec's and perf's)"

# ---- a replaced binary is refused, with one warning ------------------------

mkdir -p "$TMP/app" "$TMP/home"
cp "$SPIN" "$TMP/app/spin"
HOME=$TMP/home "$PSREC" -q -N -o "$TMP/r.data" -- "$TMP/app/spin" 0.5 || fail "psrec of a copy of spin failed"
HOME=$TMP/home fold -i "$TMP/r.data" >"$TMP/r1.folded" 2>/dev/null || fail "fold of r.data failed"
grep -q 'hot_a' "$TMP/r1.folded" || fail "fold does not name hot_a while the binary is in place"
cp "$DEEPREC" "$TMP/app/spin.new" && mv "$TMP/app/spin.new" "$TMP/app/spin"
HOME=$TMP/home fold -i "$TMP/r.data" >"$TMP/r2.folded" 2>"$TMP/r2.err" || fail "fold after the rebuild failed"
grep -q 'hot_\|rec_a\|leaf_burn' "$TMP/r2.folded" && fail "fold used the rebuilt binary's symbols: $(head -3 "$TMP/r2.folded")"
grep -q 'spin+0x' "$TMP/r2.folded" || fail "the refused binary's frames are not spin+0xOFF: $(head -3 "$TMP/r2.folded")"
{ [ "$(grep -c 'frames not symbolized' "$TMP/r2.err")" = 1 ] && grep -q "$TMP/app/spin" "$TMP/r2.err"; } ||
	fail "no single warning naming the refused binary: $(cat "$TMP/r2.err")"
echo "ok: a rebuilt binary is refused (spin+0xOFF frames) with one warning naming it"

# ---- outputs that are not regular files ---------------------------------

# A private null device (never /dev/null itself: an old build replaced it).
if mknod "$TMP/null" c 1 3 2>/dev/null; then
	fold -i "$TMP/g.data" -o "$TMP/null" || fail "fold -o a device failed"
	"$PSREC" flamegraph -i "$TMP/g.data" -o "$TMP/null" 2>/dev/null || fail "flamegraph -o a device failed"
	[ -c "$TMP/null" ] || fail "fold or flamegraph replaced the device it was told to write"
	[ -z "$(find "$TMP" -maxdepth 1 -name 'null.*' -o -name '.psrec-*')" ] || fail "a temporary was left beside the device"
	echo "ok: -o a device writes through it, never replaces it"
fi
# The name of an inherited descriptor, written as such, is written through
# (/proc/self/fd/1: what /dev/stdout leads to, which no regression can
# replace); a link to one is not the name and is refused in one line, the
# link left as it was (util/outfile.h; planted_output.sh plays the attack).
fold -i "$TMP/g.data" -o /proc/self/fd/1 >"$TMP/through.folded" || fail "fold -o /proc/self/fd/1 failed"
cmp -s "$TMP/through.folded" "$TMP/g.folded" || fail "fold -o /proc/self/fd/1 did not write through it"
ln -s /proc/self/fd/1 "$TMP/stdout"
code=0
err=$(fold -i "$TMP/g.data" -o "$TMP/stdout" 2>&1 >"$TMP/through2.folded") || code=$?
if ! { [ "$code" = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] &&
	grep -qF "refusing to write $TMP/stdout: it is a link into /proc (-> /proc/self/fd/1)" <<<"$err"; }; then
	fail "fold -o a link into /proc/self/fd: exit $code, '$err'"
fi
[ ! -s "$TMP/through2.folded" ] || fail "fold wrote through a link into /proc/self/fd"
[ -L "$TMP/stdout" ] || fail "fold replaced the /proc/self/fd link it refused"
echo "ok: -o /proc/self/fd/1 writes through it; a link to it is refused"

# ---- bad input ---------------------------------------------------------------

# one_error CMD...: exit 1 and exactly one line on stderr.
one_error() {
	local code=0
	"$@" >/dev/null 2>"$TMP/bad.err" || code=$?
	[ "$code" = 1 ] || fail "$*: exit $code, not 1: $(cat "$TMP/bad.err")"
	[ "$(wc -l <"$TMP/bad.err")" = 1 ] || fail "$*: not one line: $(cat "$TMP/bad.err")"
}
one_error fold -i "$TMP/missing.data"
grep -q "missing.data" "$TMP/bad.err" || fail "missing file: the message does not name it"
: >"$TMP/empty.data"
one_error fold -i "$TMP/empty.data"
head -c 100000 /dev/urandom >"$TMP/random.data"
one_error fold -i "$TMP/random.data"
size=$(stat -c %s "$TMP/g.data")
for i in 1 2 3 4 5 6 7 8 9 10; do
	cut=$((size * i / 11))
	head -c "$cut" "$TMP/g.data" >"$TMP/cut.data"
	code=0
	fold -i "$TMP/cut.data" >/dev/null 2>"$TMP/cut.err" || code=$?
	# a cut inside the data: an error naming the offset; a cut after the
	# data (in the features): the samples fold
	if [ "$code" != 0 ]; then
		{ [ "$code" = 1 ] && [ "$(wc -l <"$TMP/cut.err")" = 1 ]; } || fail "cut at $cut: exit $code: $(cat "$TMP/cut.err")"
	fi
done
echo "ok: missing, empty, random and truncated inputs: one line, exit 1"
