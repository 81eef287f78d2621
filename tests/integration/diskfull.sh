#!/bin/bash
# A full disk stops the recording with a clear message and exit 1; the file
# keeps every complete record that fit and perf reads it. With and without -z.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
mkdir "$TMP/small"
mount -t tmpfs -o size=2m tmpfs "$TMP/small" || skip "cannot mount a tmpfs"
trap 'umount "$TMP/small" 2>/dev/null; cleanup_bg' EXIT

# Compressed samples are tiny: -z fills the disk with DWARF stack copies.
for z in "" -z; do
	rm -f "$TMP/small/"*
	code=0
	if [ -z "$z" ]; then
		"$PSREC" -v -e cpu-clock -F 20000 -o "$TMP/small/full.data" -- "$SPIN" 20 2 2>"$TMP/err.txt" >/dev/null || code=$?
		sym=hot_a
	else
		mount -o remount,size=512k "$TMP/small" || fail "cannot shrink the tmpfs"
		"$PSREC" -v -z -e cpu-clock --call-graph dwarf -o "$TMP/small/full.data" -- "$NOFP" 20 2>"$TMP/err.txt" >/dev/null || code=$?
		sym=leaf
	fi
	# The recording stopped early, so psrec ended the command (SIGTERM).
	cmd_pid=$(sed -n 's/^psrec: recording .* (pid \([0-9]*\)).*/\1/p' "$TMP/err.txt")
	[ -n "$cmd_pid" ] || fail "$z: no pid in: $(cat "$TMP/err.txt")"
	if kill -0 "$cmd_pid" 2>/dev/null; then
		kill -KILL "$cmd_pid"
		fail "$z: the command outlived the recording"
	fi
	[ "$code" = 1 ] || fail "$z: exit $code after the disk filled: $(cat "$TMP/err.txt")"
	grep -Eq '^psrec: disk full after [0-9.]+ [KM]B; recording stopped, file is valid$' "$TMP/err.txt" ||
		fail "$z: message: $(cat "$TMP/err.txt")"
	txt=$(report -i "$TMP/small/full.data" --no-children --sort sym)
	no_perf_warnings "full disk $z"
	grep -q "$sym" <<<"$txt" || fail "$z: no samples in the file"
	"$PDCHECK" "$TMP/small/full.data" >"$TMP/pd.txt" || fail "$z: psrec's reader rejects the file"
	# The summary counts what the file holds, a partly written last pass
	# included (issue 10.9: it said 0 where perf counted 804).
	said=$(sed -n 's/^psrec: wrote .* (\([0-9]*\) samples.*/\1/p' "$TMP/err.txt")
	has=$(sed -n 's/^samples //p' "$TMP/pd.txt")
	{ [ -n "$said" ] && [ "$said" = "$has" ]; } ||
		fail "$z: the summary says ${said:-nothing} samples, the file holds $has"
done
echo "ok: full disk"
