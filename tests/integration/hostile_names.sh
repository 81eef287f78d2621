#!/bin/bash
# hostile_names.sh - names a recording holds are a program's or a file's:
# a thread that renames itself (badcomm: ESC [ 2 J, BEL, "a;b", a tab, CSI
# and 0xff), a binary in a directory named with escapes, an input file
# named so. Nothing psrec prints passes their control bytes on (issue 22):
#  - psrec fold's lines hold no control byte but the newline, show the
#    name escaped, parse as FlameGraph's flamegraph.pl parses a line, and
#    are the same bytes on a second run;
#  - psrec flamegraph's SVG parses, holds no control byte XML forbids and
#    names the thread with Control Pictures;
#  - the messages (a warning naming a DSO, an error naming the input) are
#    escaped.
# (psrec pprof's comm label: pprof.sh; psrec markers: test_markers_list.)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

fold() { "$PSREC" fold "$@"; }

# badcomm renames itself (prctl) ESC [ 2 J, BEL, "a;b", a tab, CSI (U+009B)
# and 0xff. fold's lines must hold no control byte but the newline, show the
# name escaped (';' as ':', the rest \xNN), parse as FlameGraph's
# flamegraph.pl parses a line (the stack, blanks, a count; frames split at
# ';'; the root that name, or badcomm before the rename) and be the same
# bytes on a second run.
"$PSREC" -q -o "$TMP/bc.data" -- "$BADCOMM" 0.3 || fail "psrec of badcomm failed"
fold -i "$TMP/bc.data" >"$TMP/bc.folded" 2>"$TMP/bc.err" || fail "fold of badcomm failed: $(cat -v "$TMP/bc.err")"
perl -0777 -ne 'exit(/[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/ ? 1 : 0)' "$TMP/bc.folded" "$TMP/bc.err" ||
	fail "fold wrote control bytes: $(cat -v "$TMP/bc.folded" "$TMP/bc.err" | head -5)"
want='\x1b[2J\x07a:b\x09\xc2\x9b\xff'
grep -qF -- "$want;hot_badcomm " "$TMP/bc.folded" || fail "no line $want;hot_badcomm: $(head -3 "$TMP/bc.folded")"
perl -e '
	my $want = shift;
	while (<STDIN>) {
		chomp;
		my ($stack, $count) = /^(.*)\s+?(\d+(?:\.\d*)?)$/ or exit 1;
		my @f = split /;/, $stack;
		exit 2 if ($f[0] ne $want && $f[0] ne "badcomm") || @f < 2;
	}' "$want" <"$TMP/bc.folded" || fail "a badcomm line does not parse as flamegraph.pl reads it (root $want): $(head -3 "$TMP/bc.folded")"
fold -i "$TMP/bc.data" | cmp -s - "$TMP/bc.folded" || fail "a second fold of badcomm differs"
echo "ok: a thread name of terminal escapes folds escaped, parseable and stable"

# The same name is XML text in flamegraph's SVG: it parses, holds no control
# byte XML 1.0 forbids, and names the thread with Control Pictures and U+FFFD.
"$PSREC" flamegraph -i "$TMP/bc.data" -o "$TMP/bc.svg" 2>"$TMP/bc.err" || fail "flamegraph of badcomm failed: $(cat -v "$TMP/bc.err")"
perl -0777 -ne 'exit(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/ ? 1 : 0)' "$TMP/bc.svg" || fail "the badcomm SVG holds control bytes"
python3 - "$TMP/bc.svg" <<'PY' || fail "the badcomm SVG does not parse or does not name the thread with stand-ins"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
names = {g.get("data-name") for g in ET.parse(sys.argv[1]).getroot().findall(".//s:g[@class='f']", ns)}
sys.exit(0 if "\u241b[2J\u2407a;b\u2409\ufffd\ufffd" in names else 1)
PY
echo "ok: a thread name of terminal escapes is XML text in the SVG"

# Messages name files and DSOs, whose names are anyone's: a binary in a
# directory named ESC [ 2 J BEL, rebuilt after the recording, is named
# escaped in the warning; so is an input that is missing.
esc=$'\e[2J\a'
mkdir -p "$TMP/esc$esc" "$TMP/home"
cp "$SPIN" "$TMP/esc$esc/spin"
HOME=$TMP/home "$PSREC" -q -N -o "$TMP/esc.data" -- "$TMP/esc$esc/spin" 0.3 1 || fail "psrec of spin in an ESC directory failed"
cp "$DEEPREC" "$TMP/esc$esc/spin.new" && mv "$TMP/esc$esc/spin.new" "$TMP/esc$esc/spin"
HOME=$TMP/home fold -i "$TMP/esc.data" >/dev/null 2>"$TMP/esc.err" || fail "fold of esc.data failed: $(cat -v "$TMP/esc.err")"
grep -qF -- "frames not symbolized: $TMP/esc\x1b[2J\x07/spin" "$TMP/esc.err" ||
	fail "the warning does not name the binary escaped: $(cat -v "$TMP/esc.err")"
code=0
fold -i "$TMP/missing$esc.data" >/dev/null 2>>"$TMP/esc.err" || code=$?
[ "$code" = 1 ] || fail "a missing input: exit $code"
grep -qF -- "$TMP/missing\x1b[2J\x07.data" "$TMP/esc.err" || fail "the error does not name the input escaped: $(cat -v "$TMP/esc.err")"
perl -0777 -ne 'exit(/[\x00-\x09\x0b-\x1f\x7f]/ ? 1 : 0)' "$TMP/esc.err" || fail "a message holds control bytes: $(cat -v "$TMP/esc.err")"
echo "ok: messages name files and DSOs escaped"
