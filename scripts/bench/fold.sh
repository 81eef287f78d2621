#!/bin/bash
# fold.sh - psrec fold against perf script, alone and piped into a fold
# step, on the same recordings, same run.
#
# Frame-pointer rows (-g): two recordings of two tests/deeprec processes
# (DEPTH levels of recursion: DEPTH + 3 frames a sample, leaf_burn ...
# rec_a/rec_b ... main __libc_start_call_main), psrec -g -e cpu-clock
# -F FREQ attached (-p) to both: one with >= SMALL samples ("small"), one
# with >= LARGE ("large").
# DWARF rows (issue 14): two --call-graph dwarf recordings (8192-byte
# stack copies) of two processes built without frame pointers, psrec
# --call-graph dwarf -e cpu-clock -F DFREQ -m 8M -p, each with >= DWARF
# samples: "dwarf-deep", tests/deeprec_nofp at DEPTH (about DEPTH + 5
# frames a sample, _start and __libc_start_main included), and
# "dwarf-nofp", tests/nofp (main -> middle -> leaf, 3 frames under the C
# runtime's).
# Each duration is estimated, then corrected until the count (pdcheck's)
# is in [N, 1.25 N]. On each recording, ROUNDS rounds of
#   psrec fold      psrec fold -i FILE -o $TMP/out.folded (a file in the
#                   scratch dir, never a device)
#   perf script     perf script -i FILE > /dev/null (default fields; the
#                   call chains of a -g recording, unwound from the stack
#                   copies of a dwarf one)
#   psrec pprof     psrec pprof -i FILE -o $TMP/out.pb.gz (issue 15: the
#                   same samples as one gzipped pprof Profile)
#   perf script | awk fold   (-g rows only)
#                   bash -c 'perf script -i FILE | awk -f fold.awk', where
#                   fold.awk does what stackcollapse-perf.pl does with its
#                   defaults (comm;outer;...;inner COUNT, offsets stripped,
#                   [unknown] -> [dso], sorted by LC_ALL=C sort)
# each under tests/benchrun; tables show medians. CPU s is the exact time
# on CPU of the main thread (schedstat; every tool here is single-threaded);
# for the pipeline, the sum of perf script's and awk's, each stage run
# under its own benchrun inside the pipeline. Peak RSS is wait4's maxrss:
# for the pipeline, that of the outer benchrun's bash -c, which is the
# largest of the shell and its descendants (the stages' own figures are
# printed below the table). psrec fold's output and the awk fold's (for
# the dwarf rows, of one untimed perf script) must give the same top leaf
# functions' shares within 1 point, and on the dwarf rows the same
# hottest leaf with the same share (to 0.001 points: the same count of the
# same samples). psrec pprof must convert as many samples as psrec fold
# folds; its output's size is set against the folded text's.
#
# usage: scripts/bench/fold.sh [ROUNDS [SMALL [LARGE [DWARF]]]]   (as root;
#        B=BUILD_DIR; DEPTH=27 FREQ=50000 DFREQ=10000;
#        ROWS="small large dwarf-deep dwarf-nofp", or a subset;
#        TOOLS="psrec perf pipe pprof", or a subset: psrec fold always runs)
#        scripts/bench/fold.sh 1 250000 1000000 32000 with ROWS="dwarf-deep
#        dwarf-nofp" measures the dwarf rows alone
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
SMALL=${2:-250000}
LARGE=${3:-1000000}
DWARF=${4:-32000}
DEPTH=${DEPTH:-27}
FREQ=${FREQ:-50000}
DFREQ=${DFREQ:-10000}
ROWS=${ROWS:-small large dwarf-deep dwarf-nofp}
TOOLS=${TOOLS:-psrec perf pipe pprof}
. scripts/bench/lib.sh
ninja -C "$B" psrec tests/deeprec tests/deeprec_nofp tests/nofp tests/benchrun tests/pdcheck >/dev/null
bench_setup psrec-fold
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# The fold step: stackcollapse-perf.pl's defaults, in awk.
cat >"$TMP/fold.awk" <<'EOF'
function flush(  s, i) {
	if (n) {
		s = pname
		for (i = n; i >= 1; i--)
			s = s ";" st[i]
		count[s]++
	}
	n = 0
	pname = ""
}
/^#/ { next }
/^[ \t]*$/ { flush(); next }
# event header: "comm tid time: period event:" (comm may hold spaces; the
# first field of digits, or pid/tid, ends it)
/^[^ \t]/ {
	pname = $1
	for (i = 2; i <= NF && $i !~ /^[0-9]+(\/[0-9]+)?$/; i++)
		pname = pname "_" $i
	next
}
# chain line: "ADDR FUNC+0xOFF (DSO)", innermost first
{
	line = $0
	sub(/^[ \t]*[0-9a-zA-Z_]+[ \t]*/, "", line)
	if (!match(line, / \([^ ]*\)$/))
		next
	mod = substr(line, RSTART + 2, RLENGTH - 3)
	fn = substr(line, 1, RSTART - 1)
	sub(/\+0x[0-9a-f]+$/, "", fn)
	if (fn ~ /^\(/)
		next
	if (fn == "[unknown]" && mod != "[unknown]") {
		fn = mod
		sub(/.*\//, "", fn)
		fn = "[" fn "]"
	}
	gsub(/;/, ":", fn)
	if (fn !~ /\.\(.*\)\./)
		sub(/\(.*/, "", fn)
	gsub(/["']/, "", fn)
	st[++n] = fn
}
END {
	flush()
	for (s in count)
		print s, count[s] | "LC_ALL=C sort"
	close("LC_ALL=C sort")
}
EOF

# record NAME TARGET: $TMP/NAME.data with >= TARGET samples; appends
# "NAME samples lost bytes seconds" to $TMP/recordings
record() {
	local name=$1 target=$2 data="$TMP/$1.data" secs samples=0 w1 w2 try rate
	local work cg
	case $name in
	small | large) work=("$B/tests/deeprec" 36000 "$DEPTH"); cg=(-g -F "$FREQ" -m 2M); rate=40000 ;;
	dwarf-deep) work=("$B/tests/deeprec_nofp" 36000 "$DEPTH"); cg=(--call-graph dwarf -F "$DFREQ" -m 8M); rate=$((DFREQ * 2 * 4 / 5)) ;;
	dwarf-nofp) work=("$B/tests/nofp" 36000); cg=(--call-graph dwarf -F "$DFREQ" -m 8M); rate=$((DFREQ * 2 * 4 / 5)) ;;
	esac
	# about 40k samples/s get through at -F 50000 on two busy CPUs here (4/5
	# of the frequency, first guess for dwarf); the duration is then
	# corrected until the count is in [TARGET, 1.25 TARGET]
	secs=$(awk -v t="$target" -v r="$rate" 'BEGIN { printf "%.2f", t / r * 1.05 }')
	for try in 1 2 3 4 5; do
		"${work[@]}" &
		w1=$!
		"${work[@]}" &
		w2=$!
		BENCH_PIDS="$w1 $w2"
		sleep 0.3
		rm -f "$data"
		"$B/psrec" -q "${cg[@]}" -e cpu-clock -p "$w1,$w2" --duration "$secs" -o "$data" || true
		kill -KILL "$w1" "$w2" 2>/dev/null || true
		wait "$w1" "$w2" 2>/dev/null || true
		BENCH_PIDS=""
		samples=$(pd samples "$data")
		samples=${samples:-0}
		[ "$samples" -ge "$target" ] && { [ "$samples" -le $((target * 5 / 4)) ] || [ "$try" = 5 ]; } && break
		secs=$(awk -v s="$secs" -v t="$target" -v n="$samples" \
			'BEGIN { printf "%.2f", (n > 0 ? s * t / n : 2 * s) * 1.05 }')
	done
	if [ "$samples" -lt "$target" ]; then
		echo "fold.sh: $name: only $samples samples after 5 tries" >&2
		exit 1
	fi
	echo "$name $samples $(pd lost "$data") $(stat -c %s "$data") $secs ${work[*]##*/} ${cg[*]}" >>"$TMP/recordings"
}

# one NAME TOOL: one timed run on $TMP/NAME.data, appended to
# $TMP/NAME-TOOL.txt as "wall_s cpu_s maxrss_kb [perf_rss_kb awk_rss_kb]"
one() {
	local name=$1 tool=$2 data="$TMP/$1.data" c="$TMP/cost"
	rm -f "$c" "$c.perf" "$c.awk"
	case $tool in
	psrec) "$B/tests/benchrun" "$c" "$B/psrec" fold -i "$data" -o "$TMP/out.folded" 2>>"$TMP/log" ||
		echo "fold.sh: psrec fold failed on $name" >&2 ;;
	perf) "$B/tests/benchrun" "$c" perf script -i "$data" >/dev/null 2>>"$TMP/log" ||
		echo "fold.sh: perf script failed on $name" >&2 ;;
	pprof) "$B/tests/benchrun" "$c" "$B/psrec" pprof -i "$data" -o "$TMP/out.pb.gz" 2>>"$TMP/log" ||
		echo "fold.sh: psrec pprof failed on $name" >&2 ;;
	pipe)
		# shellcheck disable=SC2016
		"$B/tests/benchrun" "$c" bash -c '"$1" "$2.perf" perf script -i "$3" 2>/dev/null | "$1" "$2.awk" awk -f "$4" >"$5"' \
			_ "$B/tests/benchrun" "$c" "$data" "$TMP/fold.awk" "$TMP/$name.awk.folded" 2>>"$TMP/log" ||
			echo "fold.sh: perf script | awk failed on $name" >&2 ;;
	esac
	if [ "$tool" = pipe ]; then
		awk -v w="$(kv wall_s "$c")" -v r="$(kv maxrss_kb "$c")" \
			-v pc="$(kv run_s "$c.perf")" -v ac="$(kv run_s "$c.awk")" \
			-v pr="$(kv maxrss_kb "$c.perf")" -v ar="$(kv maxrss_kb "$c.awk")" \
			'BEGIN { printf "%.3f %.3f %d %d %d\n", w, pc + ac, r, pr, ar }'
	else
		awk -v w="$(kv wall_s "$c")" -v cpu="$(kv run_s "$c")" -v r="$(kv maxrss_kb "$c")" \
			'BEGIN { printf "%.3f %.3f %d\n", w, cpu, r }'
	fi >>"$TMP/$name-$tool.txt"
}

# leaves FOLDED: "leaf<TAB>share%<TAB>count" of a folded file, largest first
leaves() {
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, a, ";"); c[a[k]] += n; t += n }
		END { for (l in c) printf "%s\t%.3f\t%d\n", l, 100 * c[l] / t, c[l] }' "$1" | sort -t "$(printf '\t')" -k2,2nr -k1,1
}

# rss_split NAME: psrec fold on $TMP/NAME.data once more, untimed, its
# /proc status polled every 20 ms; prints "VmRSS RssAnon RssFile" (KB) of
# the poll with the largest VmRSS (the mapped recording's pages are in
# RssFile, with the binaries')
rss_split() {
	local p best="0 0 0" cur
	"$B/psrec" fold -i "$TMP/$1.data" -o "$TMP/out.folded" 2>>"$TMP/log" &
	p=$!
	while kill -0 "$p" 2>/dev/null; do
		cur=$(awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } $1 == "RssFile:" { f = $2 }
			END { if (r) print r, a, f }' "/proc/$p/status" 2>/dev/null) || true
		[ -n "$cur" ] && [ "${cur%% *}" -gt "${best%% *}" ] && best=$cur
		sleep 0.02
	done
	wait "$p" || true
	echo "$best"
}

has() { case " $ROWS " in *" $1 "*) return 0 ;; esac; return 1; }
tool() { [ "$1" = psrec ] && return 0; case " $TOOLS " in *" $1 "*) return 0 ;; esac; return 1; }
# tools NAME: the timed tools of a recording
tools() {
	local t out=""
	for t in psrec perf pipe pprof; do
		case $1:$t in small:pipe | large:pipe | *:psrec | *:perf | *:pprof) tool "$t" && out="$out $t" ;; esac
	done
	echo "$out"
}

start=$(date +%s)
NAMES=""
for name in small large dwarf-deep dwarf-nofp; do
	has "$name" || continue
	case $name in
	small) record small "$SMALL" ;;
	large) record large "$LARGE" ;;
	*) record "$name" "$DWARF" ;;
	esac
	NAMES="$NAMES $name"
done
[ -n "$NAMES" ] || { echo "fold.sh: ROWS names no known row (small large dwarf-deep dwarf-nofp)" >&2; exit 2; }
for name in $NAMES; do
	# untimed: the output to compare (and the binaries into the page cache)
	"$B/psrec" fold -i "$TMP/$name.data" -o "$TMP/$name.psrec.folded" 2>"$TMP/$name.psrec.err" || true
	cat "$TMP/$name.psrec.err" >>"$TMP/log"
	if [ ! -s "$TMP/$name.psrec.folded" ]; then
		echo "fold.sh: psrec fold failed on $name: $(head -n 3 "$TMP/$name.psrec.err")" >&2
		exit 1
	fi
	# the dwarf rows' perf script | awk fold, untimed: what the leaf split is checked against
	case $name in
	dwarf-*) tool perf && perf script -i "$TMP/$name.data" 2>>"$TMP/log" | awk -f "$TMP/fold.awk" >"$TMP/$name.awk.folded" ;;
	esac
	# the pprof, untimed: its size, and the samples it says it converted
	if tool pprof; then
		"$B/psrec" pprof -i "$TMP/$name.data" -o "$TMP/$name.pb.gz" 2>"$TMP/$name.pprof.err" ||
			{ echo "fold.sh: psrec pprof failed on $name: $(head -n 3 "$TMP/$name.pprof.err")" >&2; exit 1; }
		cat "$TMP/$name.pprof.err" >>"$TMP/log"
	fi
done
for _ in $(seq "$ROUNDS"); do
	for name in $NAMES; do
		for tool in $(tools "$name"); do one "$name" "$tool"; done
	done
done
for name in $NAMES; do echo "$name $(rss_split "$name")"; done >"$TMP/rss-split"
elapsed=$(( $(date +%s) - start ))

c() { col "$TMP/$1.txt" "$2"; }
# total NAME: the samples psrec fold folded
total() { awk '{ t += $NF } END { print t + 0 }' "$TMP/$1.psrec.folded"; }
# walls NAME-TOOL: the rounds' wall times
walls() { awk '{ printf "%s%s", (NR > 1 ? " / " : ""), $1 }' "$TMP/$1.txt"; }
rec() { awk -v n="$1" -v k="$2" '$1 == n { print $k }' "$TMP/recordings"; }
# how NAME: the recording's workload and call-graph options
how() { awk -v n="$1" '$1 == n { s = ""; for (i = 6; i <= NF; i++) s = s (i > 6 ? " " : "") $i; print s }' "$TMP/recordings"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "inf" }'; }
label() {
	case $1 in
	psrec) echo "psrec fold" ;;
	perf) echo "perf script > /dev/null" ;;
	pprof) echo "psrec pprof" ;;
	pipe) echo "perf script \\| awk fold" ;;
	esac
}

echo "# Fold: psrec fold vs perf script"
echo
machine_facts
echo "awk: $(readlink -f "$(command -v awk)"); psrec at $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "run: $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds, medians; ${elapsed} s; load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "recordings: two processes each, psrec -e cpu-clock -p PID1,PID2 and:"
for name in $NAMES; do
	awk -v n="$name" -v s="$(rec "$name" 2)" -v l="$(rec "$name" 3)" -v b="$(rec "$name" 4)" -v d="$(rec "$name" 5)" \
		-v h="$(how "$name")" \
		'BEGIN { printf "  %s (%s): %d samples, %d lost, %.1f MB (%.0f bytes/sample), %s s", n, h, s, l, b / 1e6, b / s, d }'
	awk '{ n = $NF; k = split($0, a, ";"); f += n * (k - 1); t += n }
		END { printf ", %.1f frames/sample\n", t ? f / t : 0 }' "$TMP/$name.psrec.folded"
done
echo
echo "| file | samples | tool | wall s | CPU s | peak RSS KB | wall s per round |"
echo "|---|---|---|---|---|---|---|"
for name in $NAMES; do
	for tool in $(tools "$name"); do
		f="$name-$tool"
		echo "| $name | $(rec "$name" 2) | $(label "$tool") | $(c "$f" 1) | $(c "$f" 2) | $(c "$f" 3) | $(walls "$f") |"
	done
done
echo
for name in $NAMES; do
	[ -s "$TMP/$name-pipe.txt" ] || continue
	echo "pipeline stages' peak RSS ($name): perf script $(c "$name-pipe" 4) KB, awk $(c "$name-pipe" 5) KB"
done
echo
if tool pprof; then
	echo "psrec pprof against psrec fold on the same file (issue 15): time, peak RSS, and output size"
	echo "(the gzipped Profile against the folded text; the Profile's protobuf before gzip in brackets):"
	echo
	echo "| file | pprof / fold, wall | CPU | peak RSS | profile.pb.gz bytes | folded bytes | pb.gz / folded | samples converted / folded |"
	echo "|---|---|---|---|---|---|---|---|"
	for name in $NAMES; do
		pb=$(stat -c %s "$TMP/$name.pb.gz") fb=$(stat -c %s "$TMP/$name.psrec.folded")
		raw=$(gzip -dc "$TMP/$name.pb.gz" | wc -c)
		conv=$(sed -n 's/.*wrote .* (\([0-9]*\) samples as.*/\1/p' "$TMP/$name.pprof.err")
		echo "| $name | $(ratio "$(c "$name-pprof" 1)" "$(c "$name-psrec" 1)") | $(ratio "$(c "$name-pprof" 2)" "$(c "$name-psrec" 2)") \
| $(ratio "$(c "$name-pprof" 3)" "$(c "$name-psrec" 3)") | $pb ($raw) | $fb | $(ratio "$pb" "$fb") | ${conv:-?} / $(total "$name") |"
	done
	echo
	for name in $NAMES; do
		conv=$(sed -n 's/.*wrote .* (\([0-9]*\) samples as.*/\1/p' "$TMP/$name.pprof.err")
		if [ "${conv:-x}" != "$(total "$name")" ]; then
			echo "fold.sh: $name: psrec pprof converted ${conv:-?} samples, psrec fold folded $(total "$name")" >&2
			exit 1
		fi
	done
fi
if ! tool perf || ! tool pipe; then
	echo "(perf script and the pipeline not both timed: TOOLS=\"$TOOLS\"; their comparisons are left out)"
	exit 0
fi
echo "| file | perf script / psrec fold, wall (goal >= 10) | CPU | peak RSS | perf script \\| awk / psrec fold, wall | CPU |"
echo "|---|---|---|---|---|---|"
for name in $NAMES; do
	if [ -s "$TMP/$name-pipe.txt" ]; then
		pw=$(ratio "$(c "$name-pipe" 1)" "$(c "$name-psrec" 1)") pc=$(ratio "$(c "$name-pipe" 2)" "$(c "$name-psrec" 2)")
	else
		pw=- pc=-
	fi
	echo "| $name | $(ratio "$(c "$name-perf" 1)" "$(c "$name-psrec" 1)") | $(ratio "$(c "$name-perf" 2)" "$(c "$name-psrec" 2)") \
| $(ratio "$(c "$name-perf" 3)" "$(c "$name-psrec" 3)") | $pw | $pc |"
done
echo
for name in $NAMES; do
	awk -v n="$name" '$1 == n { printf "psrec fold at its largest VmRSS (%s, polled every 20 ms): %d KB = anon %d + file %d (the mapped recording and the binaries)\n", n, $2, $3, $4 }' "$TMP/rss-split"
done
if has small && has large; then
	echo "psrec fold peak RSS large / small: $(ratio "$(c large-psrec 3)" "$(c small-psrec 3)") ($(c large-psrec 3) / $(c small-psrec 3) KB) for $(ratio "$(rec large 2)" "$(rec small 2)")x the samples;" \
		"perf script: $(ratio "$(c large-perf 3)" "$(c small-perf 3)")"
fi
for name in $NAMES; do
	grep -h 'could not be unwound' "$TMP/$name.psrec.err" | sed "s|^|$name: |; s|$TMP/||" || true
done
echo
echo "top leaf functions, share of samples (psrec fold's and the awk fold's top 5):"
echo
echo "| file | leaf | psrec fold % | perf script \\| awk % | difference (points) |"
echo "|---|---|---|---|---|"
bad=0
for name in $NAMES; do
	leaves "$TMP/$name.psrec.folded" >"$TMP/$name.psrec.leaves"
	leaves "$TMP/$name.awk.folded" >"$TMP/$name.awk.leaves"
	awk -F '\t' -v n="$name" 'FNR == 1 { f++ } { s[f, $1] = $2; if (FNR <= 5 && !($1 in seen)) { seen[$1] = 1; o[++k] = $1 } }
		END { for (i = 1; i <= k; i++) { p = s[1, o[i]] + 0; q = s[2, o[i]] + 0; d = p - q
			printf "| %s | %s | %.3f | %.3f | %+.3f |\n", n, o[i], p, q, d; if (d > 1 || d < -1) bad++ }
			exit (bad > 0) }' "$TMP/$name.psrec.leaves" "$TMP/$name.awk.leaves" || bad=1
done
echo
for name in $NAMES; do
	awk -v n="$name" -v s="$(rec "$name" 2)" 'FNR == 1 { f++ } { t[f] += $NF; if (f == 1) p++; else q++ }
		END { printf "%s: samples folded: psrec fold %d, awk %d (pdcheck %d); distinct stacks %d / %d\n", n, t[1], t[2], s, p, q }' \
		"$TMP/$name.psrec.folded" "$TMP/$name.awk.folded"
done
# the dwarf rows: the same hottest leaf, with the same share
split_bad=0
for name in $NAMES; do
	case $name in dwarf-*) ;; *) continue ;; esac
	p=$(head -n 1 "$TMP/$name.psrec.leaves")
	q=$(head -n 1 "$TMP/$name.awk.leaves")
	if [ "$(cut -f 1-2 <<<"$p")" = "$(cut -f 1-2 <<<"$q")" ]; then
		echo "$name: leaf split identical: $(cut -f 1 <<<"$p") $(cut -f 2 <<<"$p")% ($(cut -f 3 <<<"$p") samples; perf script: $(cut -f 3 <<<"$q"))"
	else
		echo "$name: leaf split differs: psrec fold $(tr '\t' ' ' <<<"$p"), perf script | awk $(tr '\t' ' ' <<<"$q")"
		split_bad=1
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "fold.sh: psrec fold and the awk fold of perf script disagree by more than 1 point" >&2
	exit 1
fi
if [ "$split_bad" -ne 0 ]; then
	echo "fold.sh: a dwarf row's hottest leaf or its share differs between psrec fold and perf script" >&2
	exit 1
fi
