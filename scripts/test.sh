#!/bin/bash
# test.sh - install dependencies, build psrec with -Werror, run every test
# (unit and integration), then all of them again under ASan+UBSan.
# Set PSREC_REQUIRE_PERF=1 to make tests that cannot sample fail instead of
# skipping (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
# shellcheck disable=SC2086  # word splitting: the lists are space-separated names
psrec_install_deps $PSREC_BUILD_DEPS $PSREC_TEST_DEPS $PSREC_FUZZ_DEPS
# Every shell script, clean under shellcheck (.shellcheckrc: source-path).
shellcheck -x scripts/*.sh scripts/bench/*.sh tests/integration/*.sh .ci/run

setup() { # setup DIR OPTIONS...
	local dir=$1
	shift
	if [ -d "$dir/meson-private" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
}

setup build -Dwerror=true -Dtests=enabled
ninja -C build
meson test -C build --print-errorlogs

setup build-asan -Dwerror=true -Dtests=enabled -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-asan
# The ASan pass runs beside two busy loops, one per CPU here: the suite
# must pass on a machine that is doing other work (no test may assert a
# wall-clock bound; speed is scripts/bench/'s). PSREC_TEST_BUSY=0: alone.
busy=()
stop_busy() {
	[ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true
	busy=()
}
trap stop_busy EXIT
if [ "${PSREC_TEST_BUSY:-1}" != 0 ]; then
	for _ in 1 2; do
		(while :; do :; done) &
		busy+=($!)
	done
	echo "psrec: the ASan pass runs beside ${#busy[@]} busy loops (PSREC_TEST_BUSY=0: without)" >&2
fi
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --print-errorlogs
stop_busy
# Each libFuzzer target for 60 s from its seed corpus (clang, build-fuzz).
scripts/fuzz.sh all 60
echo "psrec: all tests passed"
