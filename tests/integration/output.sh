#!/bin/bash
# The output file: mode 0600, an existing file becomes FILE.old, and under
# sudo it belongs to the user who ran sudo (or they need perf report -f).
. "$(dirname "$0")/lib.sh"
need_perf

out="$TMP/o.data"
echo old >"$out"
"$PSREC" -q -e cpu-clock -o "$out" -- true || fail "psrec true failed"
[ "$(cat "$out.old")" = old ] || fail "existing output not renamed to .old"
[ "$(stat -c %a "$out")" = 600 ] || fail "mode $(stat -c %a "$out"), expected 600"
"$PDCHECK" "$out" >/dev/null || fail "new output unreadable"

if [ "$(id -u)" = 0 ]; then
	SUDO_UID=65534 SUDO_GID=65534 "$PSREC" -q -e cpu-clock -o "$TMP/sudo.data" -- true ||
		fail "psrec under fake sudo failed"
	[ "$(stat -c %u:%g "$TMP/sudo.data")" = 65534:65534 ] ||
		fail "under sudo the file belongs to $(stat -c %u:%g "$TMP/sudo.data"), expected the sudo user"
fi
echo "ok: output file placement"
