# shellcheck shell=bash
# deps.sh - install what building and testing psrec needs, when missing.
# Sourced by demo.sh and test.sh. Debian packages only.
# shellcheck disable=SC2034  # the lists are read by the scripts that source this

# protobuf-c (the library and protoc-c, which generates C from
# src/pprof/profile.proto at build time) and zlib: psrec pprof.
PSREC_BUILD_DEPS="gcc libc6-dev meson ninja-build pkg-config libelf-dev libzstd-dev libcmocka-dev libarchive-dev libiberty-dev libdw-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev"
# perf itself (the judge of every file), script(1) for terminal tests,
# pgrep for the signal tests, hotspot (its hotspot-perfparser is the second
# judge of every file), jq (checks perf data convert --to-json) and valgrind
# (memcheck over -a and recover).
# The shellcheck linter, run over every shell script by test.sh. zstd for
# tar --zstd (psrec archive tests); libc6-dbg so the build-id tests see a
# stripped library with a separate debug file. chromium and nodejs for the
# flamegraph browser test; not npm: nodesource's nodejs bundles it and
# conflicts with Debian's npm package. golang-go for go tool pprof, the
# judge of psrec pprof's profiles.
PSREC_TEST_DEPS="linux-perf bsdutils procps hotspot jq valgrind shellcheck zstd libc6-dbg chromium nodejs golang-go"
# clang and libFuzzer for the fuzz targets (scripts/fuzz.sh).
PSREC_FUZZ_DEPS="clang libclang-rt-14-dev"

psrec_install_deps() {
	local missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "psrec: missing packages:$missing; install them (apt-get install$missing) or run as root" >&2
		return 1
	fi
	echo "psrec: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >&2
}
