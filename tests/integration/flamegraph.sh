#!/bin/bash
# flamegraph.sh - psrec flamegraph's SVG (issue 13): it parses as XML, its
# hot_a/hot_b/hot_c widths are their shares of the samples as perf report
# counts them (within 2 points), and --diff of two recordings where a
# function's share grows colors that frame as growth (red) and the
# shrinking ones blue. The browser half is flamegraph_browser.sh.
. "$(dirname "$0")/lib.sh"
need_perf

# widths SVG: "name share" for every name, its frames' widths summed over
# the root's width, in percent; then "delta NAME D" and "fill NAME #rrggbb"
# of each name's widest frame.
widths() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall(".//s:g[@class='f']", ns)
full = float(frames[0].find("s:rect", ns).get("width"))
share, widest = {}, {}
for g in frames[1:]:
    name, r = g.get("data-name"), g.find("s:rect", ns)
    w = float(r.get("width"))
    share[name] = share.get(name, 0.0) + w
    if w > widest.get(name, (0, None))[0]:
        widest[name] = (w, g)
for name, w in share.items():
    print("share %s %.2f" % (name, 100 * w / full))
    g = widest[name][1]
    print("fill %s %s" % (name, g.find("s:rect", ns).get("fill")))
    if g.get("data-delta") is not None:
        print("delta %s %s" % (name, g.get("data-delta")))
PY
}
val() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3; exit }' "$3"; }

"$PSREC" -q -g -o "$TMP/spin.data" -- "$SPIN" 1 2 || fail "psrec -g failed"
"$PSREC" flamegraph -i "$TMP/spin.data" -o "$TMP/spin.svg" --title "spin <test> & more" 2>"$TMP/fg.err" ||
	fail "psrec flamegraph failed: $(cat "$TMP/fg.err")"
grep -q "wrote $TMP/spin.svg" "$TMP/fg.err" || fail "flamegraph did not say where it wrote: $(cat "$TMP/fg.err")"
widths "$TMP/spin.svg" >"$TMP/spin.w" || fail "the SVG does not parse as XML"
grep -q 'spin &lt;test&gt; &amp; more' "$TMP/spin.svg" || fail "the title is not escaped"
! grep -q 'http://\|https://' <(grep -v 'xmlns\|w3.org' "$TMP/spin.svg") || fail "the SVG refers to the network"
perf report -i "$TMP/spin.data" --stdio --no-children --sort sym 2>/dev/null >"$TMP/report.txt"
for s in hot_a hot_b hot_c; do
	assert_near "$(val share "$s" "$TMP/spin.w")" "$(sym_pct "$s" <"$TMP/report.txt")" 2 "width of $s"
done
echo "ok: the SVG parses; hot_a/b/c widths match perf report's shares"

# --icicle and stdin input
"$PSREC" flamegraph -i - --icicle -o "$TMP/ice.svg" <"$TMP/spin.data" 2>/dev/null || fail "flamegraph -i - --icicle failed"
grep -q 'data-icicle="1"' "$TMP/ice.svg" || fail "--icicle did not draw an icicle graph"

# --diff: NEW adds a deeprec beside spin, so deeprec's frames grow from 0
# and spin's shrink.
"$PSREC" -q -g -o "$TMP/base.data" -- "$SPIN" 1 1 || fail "psrec (base) failed"
"$PSREC" -q -g -o "$TMP/new.data" -- sh -c "\"$SPIN\" 1 1 & \"$DEEPREC\" 1 20; wait" || fail "psrec (new) failed"
"$PSREC" flamegraph --diff "$TMP/base.data" "$TMP/new.data" -o "$TMP/diff.svg" 2>"$TMP/diff.err" ||
	fail "flamegraph --diff failed: $(cat "$TMP/diff.err")"
grep -q 'data-diff="1"' "$TMP/diff.svg" || fail "--diff did not draw a differential graph"
widths "$TMP/diff.svg" >"$TMP/diff.w" || fail "the diff SVG does not parse"
red_or_blue() { # FILL: "red" when red dominates, "blue" when blue does
	local f=${1#\#}
	local r=$((16#${f:0:2})) b=$((16#${f:4:2}))
	if [ $r -gt $((b + 40)) ]; then echo red; elif [ $b -gt $((r + 40)) ]; then echo blue; else echo neutral; fi
}
d=$(val delta leaf_burn "$TMP/diff.w")
awk -v d="$d" 'BEGIN { exit !(d + 0 > 5) }' || fail "leaf_burn grew, but its delta is '$d'"
[ "$(red_or_blue "$(val fill leaf_burn "$TMP/diff.w")")" = red ] || fail "leaf_burn grew but is not red: $(val fill leaf_burn "$TMP/diff.w")"
d=$(val delta hot_a "$TMP/diff.w")
awk -v d="$d" 'BEGIN { exit !(d + 0 < -5) }' || fail "hot_a shrank, but its delta is '$d'"
[ "$(red_or_blue "$(val fill hot_a "$TMP/diff.w")")" = blue ] || fail "hot_a shrank but is not blue: $(val fill hot_a "$TMP/diff.w")"
echo "ok: --diff colors the frame that grew red (leaf_burn $(val delta leaf_burn "$TMP/diff.w") points) and the ones that shrank blue"
