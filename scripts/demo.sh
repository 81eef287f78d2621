#!/bin/bash
# demo.sh - install dependencies (and perf) when missing, build psrec,
# record the bundled demo workload (tests/workloads/spin: three functions
# burning 60/30/10% of the CPU) with call chains, print perf report of it,
# and draw its flamegraph with psrec flamegraph (no perf needed for that);
# then a program that marks its phases with psrec_mark (tests/workloads/
# phases): its markers in perf script and psrec markers, and the
# flamegraph of its second phase alone.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
# shellcheck disable=SC2086  # word splitting: the lists are space-separated names
psrec_install_deps $PSREC_BUILD_DEPS linux-perf

if [ -d build/meson-private ]; then
	meson setup --reconfigure build >/dev/null
else
	meson setup build >/dev/null
fi
ninja -C build psrec tests/spin tests/phases >/dev/null

out=${PSREC_DEMO_OUT:-demo.data}
svg=${out%.data}.svg
echo "== psrec -g -o $out -- build/tests/spin 2 2"
build/psrec -g -o "$out" -- build/tests/spin 2 2
echo
echo "== perf report -i $out --stdio --no-children -g none --sort comm,dso,sym"
perf report -i "$out" --stdio --no-children -g none --sort comm,dso,sym 2>/dev/null | grep -v '^$' | head -20
echo
echo "== psrec flamegraph -i $out -o $svg"
build/psrec flamegraph -i "$out" -o "$svg"
echo "open $(realpath "$svg") in a browser (hover, click to zoom, search)"

mk=${out%.data}-phases.data
echo
echo "== psrec -o $mk -- build/tests/phases   (it marks each phase with psrec_mark)"
build/psrec -o "$mk" -- build/tests/phases >/dev/null
echo
echo "== perf script -i $mk | grep psrec:marker"
perf script -i "$mk" 2>/dev/null | grep 'psrec:marker'
echo
echo "== psrec markers -i $mk"
build/psrec markers -i "$mk"
echo
echo "== psrec flamegraph --between 'phase 2 begin','phase 2 end' -i $mk -o ${mk%.data}-2.svg"
build/psrec flamegraph --between 'phase 2 begin','phase 2 end' -i "$mk" -o "${mk%.data}-2.svg"
