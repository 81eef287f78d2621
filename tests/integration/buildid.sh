#!/bin/bash
# buildid.sh - recordings that travel: build-ids taken at map time, the
# ~/.debug cache, and what perf report makes of them after the binary
# changed (issue 12).
#   1. spin recorded, then rebuilt at the same path: with psrec's cache
#      perf report names hot_a/hot_b/hot_c; with -N and an empty cache it
#      rejects the new binary (raw addresses), and the archive made before
#      the rebuild brings the names back through perf --buildid-dir.
#   2. the binary replaced while recording: psrec lists the id that ran,
#      perf record the new file's.
#   3. -p and -a list the kernel and the target's binaries with their ids.
#   4. -z recordings carry build-ids.
#   5. sudo: the invoking user's ~/.debug, owned by that user.
#   6. hotspot's perfparser resolves the symbols of these recordings.
. "$(dirname "$0")/lib.sh"
need_perf

HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$HSPARSER" ] || skip "hotspot's perfparser is not installed (Debian: apt-get install hotspot)"
unset SUDO_UID SUDO_GID SUDO_USER

# build_id FILE: the GNU build-id readelf reads from FILE.
build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}
# listed_id DATA NAME: the id perf buildid-list shows for DSO NAME.
listed_id() {
	perf buildid-list -i "$1" 2>/dev/null | awk -v n="$2" '$2 == n { print $1; exit }'
}
# shows_hot REPORT: perf report --sort sym names all three hot functions.
shows_hot() {
	grep -q '\] hot_a' "$1" && grep -q '\] hot_b' "$1" && grep -q '\] hot_c' "$1"
}

BIN=$TMP/app/spin
mkdir -p "$TMP/app" "$TMP/home1" "$TMP/home2"
cp "$SPIN" "$BIN"
old_id=$(build_id "$BIN")
[ -n "$old_id" ] || fail "the spin binary has no build-id (readelf -n $SPIN)"
# A different build at the same path: another workload, so no symbol of
# spin's could come from it.
NEW=$TMP/new-spin
cp "$DEEPREC" "$NEW"
new_id=$(build_id "$NEW")
[ "$new_id" != "$old_id" ] || fail "the replacement binary has the same build-id"
kernel_id=$(perf buildid-list -k 2>/dev/null)

# ---- 1. cache, -N, archive ---------------------------------------------

HOME=$TMP/home1 "$PSREC" -q -o "$TMP/c.data" -- "$BIN" 1 || fail "psrec (cache) failed"
HOME=$TMP/home2 "$PSREC" -q -N -o "$TMP/n.data" -- "$BIN" 1 || fail "psrec -N failed"
[ "$(listed_id "$TMP/c.data" "$BIN")" = "$old_id" ] || fail "BUILD_ID lacks $BIN $old_id: $(perf buildid-list -i "$TMP/c.data" 2>&1)"
[ -f "$TMP/home1/.debug$BIN/$old_id/elf" ] || fail "no cache entry $TMP/home1/.debug$BIN/$old_id/elf"
link=$(readlink "$TMP/home1/.debug/.build-id/${old_id:0:2}/${old_id:2}")
[ "$link" = "../../${BIN#/}/$old_id" ] || fail "cache link points at '$link'"
cmp -s "$TMP/home1/.debug$BIN/$old_id/elf" "$SPIN" || fail "the cached elf is not the binary that ran"
[ -z "$(ls -A "$TMP/home2")" ] || fail "-N wrote into the cache: $(find "$TMP/home2" | head -3)"
if [ -n "$kernel_id" ]; then
	[ "$(listed_id "$TMP/c.data" "[kernel.kallsyms]")" = "$kernel_id" ] || fail "BUILD_ID lacks the kernel's id $kernel_id"
fi
"$PSREC" archive -i "$TMP/n.data" -o "$TMP/n.tar.zst" 2>"$TMP/archive.err" || fail "psrec archive failed: $(cat "$TMP/archive.err")"
bad=$(tar --zstd -tf "$TMP/n.tar.zst" | grep -E '^/|(^|/)\.\.(/|$)' || true)
[ -z "$bad" ] || fail "archive members with absolute paths or ..: $bad"

mv "$NEW" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"   # rebuilt in place, as make does
HOME=$TMP/home1 perf report -i "$TMP/c.data" --stdio --no-children --sort sym >"$TMP/c.report" 2>"$TMP/c.err"
shows_hot "$TMP/c.report" || fail "with the cache, perf report does not name hot_a/b/c: $(head -20 "$TMP/c.report")"
HOME=$TMP/home2 perf report -i "$TMP/n.data" --stdio --no-children --sort sym >"$TMP/n.report" 2>"$TMP/n.err"
grep -q '\] hot_' "$TMP/n.report" && fail "without cache perf report took the rebuilt binary's symbols"
grep -q '\] rec_\|\] leaf_burn' "$TMP/n.report" && fail "without cache perf report used the mismatching binary"
mkdir -p "$TMP/unpacked"
tar --zstd -xf "$TMP/n.tar.zst" -C "$TMP/unpacked" || fail "cannot unpack the archive"
HOME=$TMP/home2 perf --buildid-dir "$TMP/unpacked" report -i "$TMP/n.data" --stdio --no-children --sort sym \
	>"$TMP/u.report" 2>"$TMP/u.err"
shows_hot "$TMP/u.report" || fail "with the unpacked archive, perf report does not name hot_a/b/c: $(head -20 "$TMP/u.report")"
echo "ok: cache and archive survive a rebuild; without them perf rejects the new binary"

# ---- 2. replaced while recording ---------------------------------------

cp "$SPIN" "$BIN"
# replaced_while_recording OUT RECORDER...: record $BIN 1.5 with RECORDER,
# replace $BIN by the other build once the workload has run 0.3 s (its
# first samples are taken; perf's file shows none until it exits, so the
# workload's CPU time is the clock), wait for the end.
burned() {
	local p
	p=$(pgrep -P "$1" -x spin) && [ "$(cpu_ticks "$p")" -ge 30 ]
}
replaced_while_recording() { # OUT MAY_FAIL CMD...
	local out=$1 may_fail=$2; shift 2
	cp "$DEEPREC" "$TMP/next"
	cp "$SPIN" "$BIN"
	"$@" -o "$out" -- "$BIN" 1.5 >/dev/null 2>"$out.err" &
	local rec=$!
	wait_until "burned $rec" 60 "the workload of $* to run"
	mv "$TMP/next" "$BIN"
	wait "$rec" || [ "$may_fail" = 1 ] || fail "$* failed: $(cat "$out.err")"
}
replaced_while_recording "$TMP/r.data" 0 env HOME="$TMP/home3" "$PSREC" -q
got=$(listed_id "$TMP/r.data" "$BIN")
[ "$got" = "$old_id" ] || fail "binary replaced while recording: psrec lists $got, the binary that ran was $old_id"
# perf record for comparison only: it sometimes aborts on the replaced
# binary ("assertion failed at util/build-id.c:1010", perf 6.1)
replaced_while_recording "$TMP/rp.data" 1 env HOME="$TMP/home4" perf record -q
perf_got=$(listed_id "$TMP/rp.data" "$BIN" 2>/dev/null || true)
echo "ok: replaced while recording: psrec lists $got (ran), perf record lists ${perf_got:-nothing} (new file: $new_id)"

# ---- 3. -p and -a --------------------------------------------------------

cp "$SPIN" "$BIN"
libc=$(awk '$6 ~ /libc\.so/ { print $6; exit }' /proc/self/maps)
libc_id=$(build_id "$libc")
for mode in p a; do
	bg_start "$BIN" 30
	pid=$BG_PID
	wait_until "runs $pid spin" 10 "spin to start"
	wait_until "[ \$(cpu_ticks $pid) -gt 5 ]" 10 "spin to burn CPU"
	if [ $mode = p ]; then
		HOME=$TMP/home5 record_cpu 100 "$pid" "$TMP/$mode.err" -g -p "$pid" -o "$TMP/$mode.data"
	else
		HOME=$TMP/home5 record_cpu 100 "$pid" "$TMP/$mode.err" -a -o "$TMP/$mode.data"
	fi
	kill "$pid"
	[ "$(listed_id "$TMP/$mode.data" "$BIN")" = "$old_id" ] || fail "-$mode: BUILD_ID lacks $BIN $old_id: $(perf buildid-list -i "$TMP/$mode.data" 2>&1 | head)"
	if [ -n "$kernel_id" ] && [ "$(perf report -i "$TMP/$mode.data" --stdio --sort dso 2>/dev/null | grep -c kernel.kallsyms)" -gt 0 ]; then
		[ "$(listed_id "$TMP/$mode.data" "[kernel.kallsyms]")" = "$kernel_id" ] || fail "-$mode: kernel id missing or wrong"
	fi
	# The MMAP2 records psrec synthesized carry the ids too.
	perf script -i "$TMP/$mode.data" --show-mmap-events 2>/dev/null | grep -F "$BIN" | grep -q "<$old_id>" ||
		fail "-$mode: the synthesized MMAP2 of $BIN carries no id"
	if [ $mode = p ] && [ -n "$libc_id" ]; then
		# With -g the chains run through libc (start_thread, clone): hit.
		got=$(listed_id "$TMP/p.data" "$libc")
		[ "$got" = "$libc_id" ] || fail "-p -g: libc ($libc $libc_id) not listed (got '$got')"
		# libc is stripped: its separate debug file (libc6-dbg) goes
		# beside it in the cache, where perf report looks for it.
		if [ -f "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
			cmp -s "$TMP/home5/.debug$libc/$libc_id/debug" "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ||
				fail "-p -g: libc's debug file is not in the cache"
			"$PSREC" archive -i "$TMP/p.data" -o "$TMP/p.tar.zst" 2>/dev/null || fail "psrec archive of p.data failed"
			tar --zstd -tf "$TMP/p.tar.zst" | grep -qx "${libc#/}/$libc_id/debug" ||
				fail "-p -g: the archive lacks libc's debug file"
		fi
	fi
done
echo "ok: -p and -a list the target, libc and the kernel with their ids"

# ---- 4. -z ---------------------------------------------------------------

HOME=$TMP/home6 "$PSREC" -q -z -o "$TMP/z.data" -- "$BIN" 0.5 || fail "psrec -z failed"
[ "$(listed_id "$TMP/z.data" "$BIN")" = "$old_id" ] || fail "-z: no build-id for $BIN"
[ -f "$TMP/home6/.debug$BIN/$old_id/elf" ] || fail "-z: no cache entry"
HOME=$TMP/home7 perf record -q -z -o "$TMP/zp.data" -- "$BIN" 0.5 >/dev/null 2>&1
echo "ok: -z lists $(perf buildid-list -i "$TMP/z.data" 2>/dev/null | grep -cE '^[0-9a-f]{40} ') build-ids; perf record -z lists $(perf buildid-list -i "$TMP/zp.data" 2>/dev/null | grep -cE '^[0-9a-f]{40} ')"

# ---- a kernel before 5.12 (attr.build_id refused) ------------------------

if [ -n "${OLDKERNEL:-}" ] && [ -f "$OLDKERNEL" ]; then
	# (an ASan build wants its runtime first; the shim can come after it)
	HOME=$TMP/home9 LD_PRELOAD=$OLDKERNEL ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$PSREC" -v -N -o "$TMP/old.data" -- "$BIN" 0.3 2>"$TMP/old.err" ||
		fail "psrec on an 'old kernel' failed: $(cat "$TMP/old.err")"
	grep -q "predates attr.build_id" "$TMP/old.err" || fail "the attr.build_id fallback was not taken: $(cat "$TMP/old.err")"
	perf script -i "$TMP/old.data" --show-mmap-events 2>/dev/null | grep -F "$BIN" | grep -q '<' &&
		fail "old kernel: MMAP2 records with build-ids"
	[ "$(listed_id "$TMP/old.data" "$BIN")" = "$old_id" ] ||
		fail "old kernel: BUILD_ID lacks $BIN $old_id (read from the file at the end)"
	echo "ok: without attr.build_id the MMAP2 records are classic and the ids are read from the mapped files"
else
	fail "OLDKERNEL (the LD_PRELOAD shim tests/tools/oldkernel.c) is not built"
fi

# ---- -B and --buildid-all ----------------------------------------------

HOME=$TMP/home8 "$PSREC" -q -B -o "$TMP/b.data" -- "$BIN" 0.3 || fail "psrec -B failed"
perf buildid-list -i "$TMP/b.data" 2>/dev/null | grep -qE '^[0-9a-f]{40} ' && fail "-B: the file lists build-ids"
perf script -i "$TMP/b.data" --show-mmap-events 2>/dev/null | grep MMAP2 | grep -q '<' && fail "-B: MMAP2 records carry build-ids"
[ ! -e "$TMP/home8/.debug" ] || fail "-B: wrote a build-id cache"
HOME=$TMP/home8 "$PSREC" -q -N --buildid-all -o "$TMP/all.data" -- "$BIN" 0.3 || fail "psrec --buildid-all failed"
[ -n "$(listed_id "$TMP/all.data" "$libc")" ] || fail "--buildid-all: libc (mapped, never hit) is not listed"
echo "ok: -B writes no build-ids anywhere; --buildid-all lists libc, mapped but rarely hit"

# ---- 5. sudo --------------------------------------------------------------

user=psrect$$
if useradd -M -d "$TMP/uhome" "$user" 2>/dev/null; then
	trap 'userdel "$user" 2>/dev/null; cleanup_bg' EXIT
	mkdir -p "$TMP/uhome"
	chmod 711 "$TMP"   # the user reaches their home, as under a real sudo
	uid=$(id -u "$user")
	gid=$(id -g "$user")
	chown "$uid:$gid" "$TMP/uhome"
	HOME=/root SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=$user "$PSREC" -q -o "$TMP/s.data" -- "$BIN" 0.3 ||
		fail "psrec under sudo failed"
	[ -f "$TMP/uhome/.debug$BIN/$old_id/elf" ] || fail "sudo: nothing in the invoking user's ~/.debug"
	wrong=$(find "$TMP/uhome/.debug" \( ! -uid "$uid" -o ! -gid "$gid" \) -print | head -3)
	[ -z "$wrong" ] || fail "sudo: not owned by $user: $wrong"
	[ ! -e "/root/.debug$BIN" ] || fail "sudo: wrote into root's ~/.debug"
	userdel "$user"
	trap cleanup_bg EXIT
	echo "ok: under sudo the cache goes to the invoking user's home, owned by them"
else
	echo "note: useradd unavailable, sudo case not run"
fi

# ---- 6. hotspot's perfparser ---------------------------------------------

for f in c r p a; do
	HOME=$TMP/home1 "$HSPARSER" --input "$TMP/$f.data" --output "$TMP/$f.pp" 2>"$TMP/$f.hs.err" ||
		fail "perfparser failed on $f.data: $(cat "$TMP/$f.hs.err")"
	"$HSDECODE" --no-inline "$TMP/$f.pp" >"$TMP/$f.hs" || fail "cannot decode perfparser's output for $f.data"
	for s in hot_a hot_b hot_c; do
		grep -q "	$s@" "$TMP/$f.hs" || fail "perfparser resolves no $s in $f.data"
	done
done
echo "ok: hotspot's perfparser resolves hot_a/b/c in the cache, replaced-binary, -p and -a recordings"
