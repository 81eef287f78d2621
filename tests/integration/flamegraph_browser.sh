#!/bin/bash
# The flamegraph SVG in a real browser: headless Debian chromium, driven by
# puppeteer-core (flamegraph_browser.mjs), opens flamedemo's SVG from disk
# and checks that it renders, that a click zooms and Reset Zoom restores,
# and that searches report the matched share (nested matches counted once)
# and highlight, as a flame graph and as an icicle graph.
#
# puppeteer-core comes from npm, installed once into PSREC_NPM_DIR (default
# /var/cache/psrec-npm when writable, else ~/.cache/psrec-npm) and reused:
# the registry is asked again only when the pinned version is not there.
# Needs node and npm (nodesource's nodejs bundles npm, and conflicts with
# Debian's npm package) and chromium (scripts/deps.sh installs it).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# 24.x drives Chrome 156; pinned so that every run tests with the same one.
PUPPETEER_VERSION=24.43.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

command -v node >/dev/null 2>&1 || skip "node is not installed (Debian: apt-get install nodejs)"
[ -x "$CHROMIUM" ] || skip "$CHROMIUM is not there (Debian: apt-get install chromium)"
if [ -z "${PSREC_NPM_DIR:-}" ]; then
	if [ -w /var/cache ]; then
		PSREC_NPM_DIR=/var/cache/psrec-npm
	else
		PSREC_NPM_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/psrec-npm
	fi
fi
export PSREC_NPM_DIR

installed() {
	node -e 'console.log(require(process.argv[1]).version)' \
		"$PSREC_NPM_DIR/node_modules/puppeteer-core/package.json" 2>/dev/null
}
if [ "$(installed)" != "$PUPPETEER_VERSION" ]; then
	command -v npm >/dev/null 2>&1 ||
		skip "npm is not installed (nodesource's nodejs has it; Debian: apt-get install npm)"
	mkdir -p "$PSREC_NPM_DIR" || fail "cannot create $PSREC_NPM_DIR"
	# The lock: the plain and the ASan build may run this test at once.
	if ! flock "$PSREC_NPM_DIR/.lock" npm install --prefix "$PSREC_NPM_DIR" --no-audit --no-fund \
		--loglevel=error "puppeteer-core@$PUPPETEER_VERSION" >"$TMP/npm.log" 2>&1; then
		cat "$TMP/npm.log" >&2
		skip "npm install puppeteer-core@$PUPPETEER_VERSION into $PSREC_NPM_DIR failed"
	fi
	[ "$(installed)" = "$PUPPETEER_VERSION" ] || fail "npm installed no puppeteer-core $PUPPETEER_VERSION"
fi

MJS=$(dirname "$0")/flamegraph_browser.mjs
# flamedemo's profile: hot_a 60%, hot_b 30% (hot_b_helper within), hot_c
# 10%; write and ksys_write nest (15%); "operator<< <char>(" is no valid regex,
# so a plain substring search, and its frame's name needed escaping.
SEARCHES=(hot_ 100.00 hot_b 30.00 write 15.00 '^(inner_loop|memcpy)$' 60.00
	'operator<< <char>(' 1.00 no_such_frame 0.00)
# A click on hot_b, whose ancestors are full width already, and in the
# icicle on hot_b_helper, whose parent hot_b is not.
for mode in flame icicle; do
	flags=()
	click=hot_b
	[ "$mode" = icicle ] && flags=(--icicle) && click=hot_b_helper
	"$FLAMEDEMO" "$TMP/$mode.svg" "${flags[@]}" || fail "flamedemo $mode failed"
	node "$MJS" --screenshot="$TMP/$mode.png" "$TMP/$mode.svg" "$click" "${SEARCHES[@]}" >"$TMP/$mode.log" 2>&1 ||
		{ cat "$TMP/$mode.log" >&2; fail "$mode: the SVG does not work in $CHROMIUM (above)"; }
	grep -c '^ok:' "$TMP/$mode.log" | sed "s/^/$mode: checks passed: /"
done
echo "PASS: flamegraph in $("$CHROMIUM" --version 2>/dev/null) with puppeteer-core $PUPPETEER_VERSION"

# ---- psrec flamegraph of a real recording ---------------------------------

if [ -n "${PSREC:-}" ] && [ -n "${SPIN:-}" ]; then
	"$PSREC" -q -g -o "$TMP/spin.data" -- "$SPIN" 1 2 || fail "psrec -g spin failed"
	"$PSREC" flamegraph -i "$TMP/spin.data" -o "$TMP/spin.svg" 2>"$TMP/fg.err" || fail "psrec flamegraph failed: $(cat "$TMP/fg.err")"
	# What a search for hot_ must report: the share of samples under
	# outermost frames matching it, from the frames the SVG draws.
	want=$(python3 - "$TMP/spin.svg" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall(".//s:g[@class='f']", ns)
total = int(frames[0].get("data-samples"))
def rect(g):
    r = g.find("s:rect", ns)
    return float(r.get("x")), float(r.get("width")), float(r.get("y"))
spans = []
for g in frames:
    if re.search("hot_", g.get("data-name")):
        x, w, y = rect(g)
        spans.append((x, x + w, int(g.get("data-samples"))))
spans.sort()
got, end = 0, -1.0
for a, b, n in spans:
    if a >= end - 1e-6:
        got += n
        end = b
print("%.2f" % (100.0 * got / total))
PY
) || fail "the SVG of psrec flamegraph does not parse as XML"
	node "$MJS" --screenshot="$TMP/spin.png" "$TMP/spin.svg" hot_b hot_ "$want" >"$TMP/spin.log" 2>&1 ||
		{ cat "$TMP/spin.log" >&2; fail "psrec flamegraph's SVG does not work in $CHROMIUM (above)"; }
	echo "ok: psrec flamegraph of spin in $CHROMIUM: renders, hot_b zooms, hot_ matches $want%"
fi
