#!/bin/bash
# buildid.sh - what build-ids cost: psrec (default, -B, -N) against perf
# record (default, and lean: --no-buildid --no-bpf-event), and psrec
# archive against perf archive.
#
# Two workloads, each recorder attaching (-p) so its cost is its own
# (tests/benchrun: CPU from the zombie's schedstat, peak RSS from wait4):
#   manythreads  tests/manythreads 1000 2000 (1,000 threads, 2,000 file
#                mappings), recorders attached for 1 s at their default
#                frequency, as attach.sh does; attach latency = first sample
#                time - recorder start;
#   forker       tests/forker 600 (fork + exec /bin/true 600 times), the
#                recorders at -F 10000 attached until it exits, as
#                compare.sh's forkexec mode.
# Every recording gets a fresh HOME, so each default run fills a cold
# ~/.debug (psrec's cache and perf's alike); "psrec, warm cache" keeps one
# HOME filled by an untimed first run (a second recording on this kernel). Rounds alternate the five
# recorders; tables show medians. After each psrec default, psrec -N and
# perf default recording the archive tool runs on it, with the same HOME:
# psrec archive -i FILE -o FILE.tar.zst (from the cache, or from the DSOs'
# paths after -N) and perf archive FILE (FILE.tar.bz2, from the cache).
# "ids listed" = build-ids in the file's BUILD_ID feature (perf
# buildid-list, 0 when the feature is absent); "cache" = .build-id links
# the run left in its ~/.debug; listed / mapped / files read are psrec -v's
# own counts.
#
# usage: scripts/bench/buildid.sh [ROUNDS]   (as root; B=BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
THREADS=1000
MAPS=2000
FORKS=600
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/manythreads tests/forker tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-buildid
ulimit -n 65536 2>/dev/null || true
# Under sudo psrec would use the invoking user's ~/.debug, not $HOME's.
unset SUDO_UID SUDO_GID SUDO_USER
# forker waits this long before working, so every recorder has attached.
export PSREC_BENCH_DELAY_MS=${PSREC_BENCH_DELAY_MS:-400}
WHO="psrec psrecW psrecB psrecN perf lean"

# label WHO: the recorder's name in the tables
label() {
	case $1 in
	psrec) echo "psrec" ;;
	psrecW) echo "psrec, warm cache" ;;
	psrecB) echo "psrec -B" ;;
	psrecN) echo "psrec -N" ;;
	perf) echo "perf record" ;;
	lean) echo "perf record lean" ;;
	esac
}

# ids_listed DATA: build-ids in DATA's BUILD_ID feature (header feature 2)
ids_listed() {
	if "$PDCHECK" "$1" 2>/dev/null | awk '$1 == "feature" && $2 == 2 { f = 1 } END { exit !f }'; then
		perf buildid-list -i "$1" 2>/dev/null | grep -cE '^[0-9a-f]{40} ' || true
	else
		echo 0
	fi
}

# first_sample_ms DATA START_NS: first sample time (CLOCK_MONOTONIC) - start
first_sample_ms() {
	perf script -i "$1" -F time >"$TMP/times" 2>/dev/null || true
	awk -v s="$2" 'NR == 1 { gsub(/[ :]/, ""); printf "%.1f\n", ($0 * 1e9 - s) / 1e6; exit }' "$TMP/times"
}

# archive WL TOOL DATA HOME: time one archive of DATA, appended to
# $TMP/arch-WL-TOOL.txt as "wall_s cpu_s bytes members"
# (cpu_s: user + sys of the tool and the children it reaped, tick-sampled)
archive() {
	local wl=$1 tool=$2 data=$3 home=$4 out
	case $tool in
	perf) out=$data.tar.bz2
		rm -f "$out"
		HOME=$home "$B/tests/benchrun" "$TMP/acost" perf archive "$data" >/dev/null 2>&1 || true ;;
	*) out=$data.tar.zst
		rm -f "$out"
		HOME=$home "$B/tests/benchrun" "$TMP/acost" "$B/psrec" archive -i "$data" -o "$out" >/dev/null 2>&1 || true ;;
	esac
	local members=0 bytes=0
	if [ -s "$out" ]; then
		bytes=$(stat -c %s "$out")
		# files and links, not directories
		members=$(tar -tvf "$out" 2>/dev/null | grep -vc '^d' || true)
	fi
	awk -v w="$(kv wall_s "$TMP/acost")" -v u="$(kv user_s "$TMP/acost")" -v s="$(kv sys_s "$TMP/acost")" \
		-v b="$bytes" -v m="$members" 'BEGIN { printf "%.3f %.3f %d %d\n", w, u + s, b, m }' >>"$TMP/arch-$wl-$tool.txt"
}

# one WL WHO ROUND: one recording, appended to $TMP/WL-WHO.txt as
#   latency_ms cpu_s maxrss_kb wall_s bytes samples lost bytes/sample
#   ids_listed cache_links listed mapped files_read
# (the last three from psrec -v, 0 for perf)
one() {
	local wl=$1 who=$2 round=$3
	local data="$TMP/$wl-$who.data" home="$TMP/home-$wl-$who-$round"
	# The warm-cache recorder keeps one HOME, filled by an untimed run
	# first: a user's second recording on this kernel.
	[ "$who" = psrecW ] && home="$TMP/home-$wl-warm"
	rm -f "$data"
	mkdir -p "$home"
	local rec=() freq=()
	[ "$wl" = forker ] && freq=(-F 10000)
	case $who in
	psrec | psrecW) rec=("$B/psrec" -v -e cpu-clock "${freq[@]}") ;;
	psrecB) rec=("$B/psrec" -v -e cpu-clock "${freq[@]}" -B) ;;
	psrecN) rec=("$B/psrec" -v -e cpu-clock "${freq[@]}" -N) ;;
	perf) rec=(perf record -q -k CLOCK_MONOTONIC -e cpu-clock "${freq[@]}") ;;
	lean) rec=(perf record -q -k CLOCK_MONOTONIC -e cpu-clock "${freq[@]}" --no-buildid --no-bpf-event) ;;
	esac
	if [ "$wl" = manythreads ]; then
		if [ "${who#psrec}" != "$who" ]; then
			HOME=$home "$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$WPID" --duration 1 -o "$data" >/dev/null 2>"$TMP/log" || true
		else
			HOME=$home "$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$WPID" -o "$data" -- sleep 1 >/dev/null 2>"$TMP/log" || true
		fi
	else
		"$B/tests/forker" "$FORKS" >/dev/null &
		local w=$!
		HOME=$home "$B/tests/benchrun" "$TMP/cost" "${rec[@]}" -p "$w" -o "$data" >/dev/null 2>"$TMP/log" || true
		wait "$w" || true
	fi
	local bytes samples lost ls lat=0 ids links listed=0 mapped=0 files=0
	bytes=$(stat -c %s "$data" 2>/dev/null || echo 0)
	samples=$(pd samples "$data")
	[ -n "$samples" ] || echo "buildid.sh: $wl/$who round $round: psrec's reader rejects the output" >&2
	lost=$(pd lost "$data")
	ls=$(pd lost_samples "$data")
	[ "${ls:-0}" -gt "${lost:-0}" ] && lost=$ls
	[ "$wl" = manythreads ] && lat=$(first_sample_ms "$data" "$(kv start_ns "$TMP/cost")")
	ids=$(ids_listed "$data")
	links=0
	[ -d "$home/.debug/.build-id" ] && links=$(find "$home/.debug/.build-id" -type l | wc -l)
	# "build-ids: N DSOs listed (of M mapped), ..., K files read"
	read -r listed mapped files < <(sed -n 's/.*build-ids: \([0-9]*\) DSOs listed (of \([0-9]*\) mapped).* \([0-9]*\) files read.*/\1 \2 \3/p' "$TMP/log" | tail -1) || true
	awk -v lat="${lat:-0}" -v c="$(kv run_s "$TMP/cost")" -v r="$(kv maxrss_kb "$TMP/cost")" -v w="$(kv wall_s "$TMP/cost")" \
		-v b="$bytes" -v s="${samples:-0}" -v l="${lost:-0}" -v i="$ids" -v k="$links" \
		-v n="${listed:-0}" -v m="${mapped:-0}" -v f="${files:-0}" \
		'BEGIN { printf "%s %.4f %d %.3f %d %d %d %.1f %d %d %d %d %d\n", lat, c, r, w, b, s, l, s ? b / s : 0, i, k, n, m, f }' \
		>>"$TMP/$wl-$who.txt"
	case $who in
	psrec | psrecN) archive "$wl" "$who" "$data" "$home" ;;
	perf) archive "$wl" perf "$data" "$home" ;;
	esac
	[ "$who" = psrecW ] || rm -rf "$home"
}

start=$(date +%s)
"$B/tests/manythreads" "$THREADS" "$MAPS" 3600 >"$TMP/ready" &
WPID=$!
BENCH_PIDS=$WPID
for _ in $(seq 100); do grep -q ready "$TMP/ready" 2>/dev/null && break; sleep 0.1; done
one manythreads psrecW 0 && rm -f "$TMP/manythreads-psrecW.txt"
for r in $(seq "$ROUNDS"); do
	for who in $WHO; do one manythreads "$who" "$r"; done
done
{ kill -KILL "$WPID" && wait "$WPID"; } 2>/dev/null || true
BENCH_PIDS=""
one forker psrecW 0 && rm -f "$TMP/forker-psrecW.txt"
for r in $(seq "$ROUNDS"); do
	for who in $WHO; do one forker "$who" "$r"; done
done
elapsed=$(( $(date +%s) - start ))

c() { col "$TMP/$1.txt" "$2"; }
a() { col "$TMP/arch-$1.txt" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "inf" }'; }
ms_diff() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f ms", (a - b) * 1000 }'; }

echo "# Build-ids: psrec vs perf record"
echo
machine_facts
echo "run: $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds (recorders alternating), medians; ${elapsed} s"
for wl in manythreads forker; do
	echo
	if [ "$wl" = manythreads ]; then
		echo "## manythreads $THREADS threads / $MAPS mappings, -p for 1 s"
	else
		echo "## forker $FORKS (fork + exec /bin/true), -p -F 10000 until it exits"
	fi
	echo
	echo "| recorder | attach ms | CPU s | wall s | peak RSS KB | bytes | samples | lost | bytes/sample | ids listed | cache | psrec listed / mapped / files read |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for who in $WHO; do
		f="$wl-$who"
		lat="-"
		[ "$wl" = manythreads ] && lat=$(c "$f" 1)
		ps="-"
		case $who in psrec | psrecW | psrecN) ps="$(c "$f" 11) / $(c "$f" 12) / $(c "$f" 13)" ;; esac
		echo "| $(label "$who") | $lat | $(c "$f" 2) | $(c "$f" 4) | $(c "$f" 3) | $(c "$f" 5) | $(c "$f" 6) | $(c "$f" 7) | $(c "$f" 8) | $(c "$f" 9) | $(c "$f" 10) | $ps |"
	done
done
echo
echo "## Archive (of the recordings above, same HOME)"
echo
echo "| workload | tool (recording) | wall s | CPU s (user+sys) | bytes | members |"
echo "|---|---|---|---|---|---|"
for wl in manythreads forker; do
	for t in psrec psrecN perf; do
		case $t in
		psrec) n="psrec archive (psrec, from ~/.debug)" ;;
		psrecN) n="psrec archive (psrec -N, from the paths)" ;;
		perf) n="perf archive (perf record)" ;;
		esac
		echo "| $wl | $n | $(a "$wl-$t" 1) | $(a "$wl-$t" 2) | $(a "$wl-$t" 3) | $(a "$wl-$t" 4) |"
	done
done
echo
echo "## Ratios"
echo
echo "| workload | psrec CPU / lean perf (goal <= 0.2) | psrec warm cache / lean | psrec -B / lean | build-ids (default - -B) | cache (default - -N) | lost default / -B / -N | archive wall psrec / perf |"
echo "|---|---|---|---|---|---|---|---|"
for wl in manythreads forker; do
	echo "| $wl | $(ratio "$(c "$wl-psrec" 2)" "$(c "$wl-lean" 2)") | $(ratio "$(c "$wl-psrecW" 2)" "$(c "$wl-lean" 2)") | $(ratio "$(c "$wl-psrecB" 2)" "$(c "$wl-lean" 2)") \
| $(ms_diff "$(c "$wl-psrec" 2)" "$(c "$wl-psrecB" 2)") | $(ms_diff "$(c "$wl-psrec" 2)" "$(c "$wl-psrecN" 2)") \
| $(c "$wl-psrec" 7) / $(c "$wl-psrecB" 7) / $(c "$wl-psrecN" 7) | $(ratio "$(a "$wl-psrec" 1)" "$(a "$wl-perf" 1)") |"
done
echo
echo "Lost samples: a run where psrec default lost more than psrec -B in its round would show a build-id cost:"
for wl in manythreads forker; do
	paste -d ' ' "$TMP/$wl-psrec.txt" "$TMP/$wl-psrecB.txt" |
		awk -v wl="$wl" '{ d = $7; b = $20; if (d > b) bad++; s = s sprintf(" %d/%d", d, b) }
			END { printf "%s: default/-B per round%s: %s\n", wl, s, bad ? bad " rounds with more lost by default" : "none" }'
done
