#!/bin/bash
# killed_hotspot.sh - hotspot's perfparser reads a -g or --call-graph
# dwarf recording killed with SIGKILL as it is, without psrec recover:
# killed once the header covers 50, 300 and 1000 samples, each time with
# records already written past the data it covers.
#
# A header without feature bits (a killed file's) makes perfparser 4.12
# read a feature section entry at data.offset + data.size all the same;
# before psrec's end mark (docs/writer.md, W1) it took the next record for
# one and allocated until std::bad_alloc, 23 GB without a limit. So the
# parser runs under a memory limit here, and a timeout.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
HSPARSER=${HSPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$HSPARSER" ] || skip "hotspot's perfparser is not installed (Debian: apt-get install hotspot)"
# perfparser needs under 50 MB of it for these files.
HS_LIMIT_KB=1048576

# data_end FILE: data.offset + data.size of FILE's header as it stands.
data_end() {
	od -An -t u8 -j 40 -N 16 "$1" | awk 'NF == 2 { print $1 + $2 }'
}
# written_past FILE: something follows the covered data and its 16-byte
# end mark: the records of a drain pass after the last checkpoint.
written_past() {
	local end
	end=$(data_end "$1")
	[ -n "$end" ] && size_at_least "$1" $((end + 16 + 8))
}

with_tail=0
for mode in g dwarf; do
	case $mode in
	g) opts=(-g) ;;
	dwarf) opts=(--call-graph dwarf) ;;
	esac
	for n in 50 300 1000; do
		what="-$mode killed after $n checkpointed samples"
		out="$TMP/k-$mode-$n.data"
		"$PSREC" -q "${opts[@]}" -e cpu-clock -F 1000 -o "$out" -- "$SPIN" 30 1 &
		pid=$!
		wait_until "has_samples $out $n && written_past $out" 60 "$n samples in the live $out's header, and records past them"
		child=$(pgrep -P "$pid" spin || true)
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		[ -n "$child" ] && kill -KILL "$child" 2>/dev/null

		# What the header covers is what every reader must read.
		pd=$("$PDCHECK" "$out") || fail "$what: psrec's reader rejects the file"
		covered=$(pd_value samples "$pd")
		[ "${covered:-0}" -ge "$n" ] || fail "$what: the header covers only ${covered:-0} samples"
		tail=$(( $(stat -c %s "$out") - $(data_end "$out") ))
		[ "$tail" -gt 16 ] && with_tail=$((with_tail + 1))

		# perf, as before: no word about the file.
		report -i "$out" --no-children --sort sym >/dev/null
		no_perf_warnings "$what"

		# hotspot's perfparser, bounded in memory and time.
		rc=0
		(ulimit -v "$HS_LIMIT_KB" && exec timeout 120 "$HSPARSER" --input "$out" --output "$out.pp") \
			2>"$TMP/hs.err" || rc=$?
		[ "$rc" = 0 ] ||
			fail "$what: hotspot-perfparser exited $rc (134: aborted, e.g. std::bad_alloc under the $HS_LIMIT_KB KB limit; 124: timed out): $(grep -v '^QFile' "$TMP/hs.err" | tail -n 3 | paste -sd'|')"
		"$HSDECODE" --no-inline "$out.pp" >"$TMP/hs.txt" || fail "$what: cannot decode hotspot-perfparser's output"
		got=$(awk '$1 == "samples" { print $2 }' "$TMP/hs.txt")
		[ "$got" = "$covered" ] || fail "$what: hotspot reads ${got:-no} samples, the header covers $covered"
		# spin's hot_a/b/c take 60/30/10% of its work; their chains
		# reach main (frame pointers skip worker, dwarf shows it).
		read -r hot hot_a chained < <(awk -F'\t' '$1 ~ /^sample / && $2 ~ /^hot_[abc]@/ { h++
				if ($2 ~ /^hot_a@/) a++; if ($0 ~ /\tmain@/) m++ }
			END { printf "%d %d %d\n", h, a, m }' "$TMP/hs.txt")
		[ "$hot" -ge $((covered / 2)) ] || fail "$what: hotspot resolves only $hot of $covered samples to hot_a/b/c"
		[ "$hot_a" -ge $((hot * 3 / 10)) ] || fail "$what: hot_a has only $hot_a of $hot hot samples in hotspot"
		[ "$chained" -ge $((hot * 9 / 10)) ] || fail "$what: hotspot unwinds only $chained of $hot hot samples to main"
		echo "$what: hotspot reads all $got samples ($hot_a of $hot hot ones in hot_a, $chained reach main), $tail bytes past the covered data"
	done
done
# The kills are not synchronized with the checkpoints: one can land
# right after one, with nothing past it. Not every one.
[ "$with_tail" -ge 1 ] || fail "no kill left records past the covered data: the case hotspot failed on was not tried"
echo "ok: hotspot's perfparser reads killed -g and --call-graph dwarf recordings ($with_tail of 6 with records past the covered data)"
