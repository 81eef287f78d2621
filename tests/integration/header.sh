#!/bin/bash
# perf report --header-only shows the host facts and the event name.
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
echo "ok: header facts present"
