#!/bin/bash
# The command words: psrec --help lists every command with its summary,
# psrec help CMD and psrec CMD --help print the same generated text, a
# typo of a command's name is named as one, and "record" is psrec itself.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TMP" || fail "cannot enter $TMP"
commands="record fold flamegraph pprof markers archive recover help"

"$PSREC" --help >top.txt 2>err.txt || fail "psrec --help failed: $(cat err.txt)"
[ ! -s err.txt ] || fail "psrec --help wrote to stderr: $(cat err.txt)"
for c in $commands; do
	grep -Eq "^  $c +[a-z]" top.txt || fail "psrec --help does not list $c with a summary: $(cat top.txt)"
done
grep -q -- "--call-graph=MODE" top.txt || fail "psrec --help lost record's options"
long=$(awk 'length > 80' top.txt)
[ -z "$long" ] || fail "psrec --help has lines over 80 columns: $long"
"$PSREC" help >help.txt || fail "psrec help failed"
cmp -s top.txt help.txt || fail "psrec help differs from psrec --help"

for c in record fold flamegraph pprof markers archive recover; do
	"$PSREC" help "$c" >a.txt || fail "psrec help $c failed"
	"$PSREC" "$c" --help >b.txt || fail "psrec $c --help failed"
	cmp -s a.txt b.txt || fail "psrec help $c differs from psrec $c --help"
	grep -q "^usage: psrec " a.txt || fail "psrec help $c has no usage line: $(head -3 a.txt)"
	long=$(awk 'length > 80' a.txt)
	[ -z "$long" ] || fail "psrec help $c has lines over 80 columns: $long"
done
grep -q -- "--between=A,B" <("$PSREC" help fold) || fail "psrec help fold does not list --between"
grep -q -- "--diff" <("$PSREC" help flamegraph) || fail "psrec help flamegraph does not list --diff"
grep -q -- "--json" <("$PSREC" help markers) || fail "psrec help markers does not list --json"

# A typo: exit 127 (not found, as a shell would) with the hint, one line.
for typo in flamgraph flamegrpah fodl ppfor markrs; do
	got=0
	"$PSREC" "$typo" -i x.data >out.txt 2>err.txt || got=$?
	[ "$got" = 127 ] || fail "psrec $typo: exit $got, expected 127 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" = 1 ] || fail "psrec $typo: expected one line: $(cat err.txt)"
	grep -Eq "^psrec: $typo: command not found; did you mean \`psrec (flamegraph|fold|pprof|markers)\`\?$" err.txt ||
		fail "psrec $typo: no hint: $(cat err.txt)"
done
grep -q "psrec markers" err.txt || fail "markrs should suggest markers: $(cat err.txt)"
got=0
"$PSREC" help flamgraph >out.txt 2>err.txt || got=$?
if [ "$got" != 2 ] || ! grep -q "did you mean \`psrec help flamegraph\`" err.txt; then
	fail "psrec help flamgraph: exit $got: $(cat err.txt)"
fi
# Far from every command: plain "command not found".
got=0
"$PSREC" nosuchprogramxyz >out.txt 2>err.txt || got=$?
if [ "$got" != 127 ] || ! grep -q "^psrec: nosuchprogramxyz: command not found$" err.txt; then
	fail "psrec nosuchprogramxyz: exit $got: $(cat err.txt)"
fi
need_perf
# A program that exists is recorded even when its name is close to a
# command's (a script "fodl" in PATH).
mkdir bin
printf '#!/bin/sh\nexit 3\n' >bin/fodl
chmod +x bin/fodl
got=0
PATH="$TMP/bin:$PATH" "$PSREC" -q -o fodl.data fodl 2>err.txt || got=$?
[ "$got" = 3 ] || fail "psrec fodl (a program in PATH): exit $got, expected its 3: $(cat err.txt)"
[ -s fodl.data ] || fail "psrec fodl did not record"

# psrec record is psrec.
"$PSREC" record -q -o rec.data -- "$SPIN" 0.3 || fail "psrec record failed"
report -i rec.data >rep.txt
grep -q "hot_a" rep.txt || fail "psrec record: perf report has no hot_a: $(head -20 rep.txt)"
