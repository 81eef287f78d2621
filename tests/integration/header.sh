#!/bin/bash
# perf report --header-only shows the host facts and the event name.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_perf

out="$TMP/h.data"
"$PSREC" -q -e cpu-clock -F 999 -o "$out" -- "$SPIN" 0.2 1 || fail "psrec failed"
hdr=$("$PERF" report -i "$out" --header-only 2>"$TMP/perf.err")
no_perf_warnings "perf report --header-only"
grep -qx "# hostname : $(uname -n)" <<<"$hdr" || fail "hostname missing: $hdr"
grep -qx "# os release : $(uname -r)" <<<"$hdr" || fail "os release missing"
grep -qx "# arch : $(uname -m)" <<<"$hdr" || fail "arch missing"
grep -qx "# nrcpus online : $(getconf _NPROCESSORS_ONLN)" <<<"$hdr" || fail "nrcpus online missing"
grep -q "^# nrcpus avail : [0-9]" <<<"$hdr" || fail "nrcpus avail missing"
grep -q "^# cmdline : .*psrec -q -e cpu-clock -F 999 -o $out -- $SPIN 0.2 1 *$" <<<"$hdr" || fail "cmdline missing: $(grep cmdline <<<"$hdr")"
grep -q "^# event : name = cpu-clock, .*sample_freq } = 999" <<<"$hdr" || fail "event name/frequency missing"
grep -q "^# total memory : [0-9]* kB" <<<"$hdr" || fail "total memory missing"
grep -q "^# time of first sample : [0-9]" <<<"$hdr" || fail "sample time missing"
grep -q "^# clockid: monotonic" <<<"$hdr" || fail "clockid missing"
grep -q "^# missing features: .*" <<<"$hdr" && grep -Eq "missing features:.*(HOSTNAME|OSRELEASE|CMDLINE|EVENT_DESC|NRCPUS)" <<<"$hdr" &&
	fail "a feature psrec writes is reported missing"

# Every feature perf record writes on this machine, psrec writes too
# (BUILD_ID included), and the machine facts read the same.
ref="$TMP/ref.data"
"$PERF" record -q -e cpu-clock -F 999 -o "$ref" -- "$SPIN" 0.2 1 2>"$TMP/perf.err" >/dev/null ||
	fail "perf record failed"
"$PERF" report -i "$ref" --header-only -I >"$TMP/ref.hdr" 2>/dev/null
"$PERF" report -i "$out" --header-only -I >"$TMP/ps.hdr" 2>"$TMP/perf.err"
no_perf_warnings "perf report --header-only -I"
assert_features_like_perf "$TMP/ps.hdr" "$TMP/ref.hdr" "perf report --header-only"
# Free memory moves between two reads; everything else is fixed.
facts() {
	sed -n '/^# sibling /p; /^# CPU [0-9]*:/p; /^# node[0-9]* cpu list/p; /^# pmu mappings/p;
		/^# CPU cache info/,/^# [a-z]/p; /^# memory nodes/p; /^#  *[0-9]* \[.*\]:/p' "$1" |
		grep -v '^# time of'
}
facts "$TMP/ref.hdr" >"$TMP/ref.facts"
facts "$TMP/ps.hdr" >"$TMP/ps.facts"
[ -s "$TMP/ref.facts" ] || fail "no machine facts in perf's own header"
diff "$TMP/ref.facts" "$TMP/ps.facts" >&2 || fail "machine facts differ from perf record's"
grep -q "^# node[0-9]* meminfo  : total = [0-9]* kB" "$TMP/ps.hdr" || fail "NUMA memory missing"
echo "ok: header facts present, the features perf record writes too"
