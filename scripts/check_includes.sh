#!/bin/sh
# check_includes.sh - the include edges between psrec's modules and the
# circles among them (style: "no include circles between modules").
#
# A module is a folder under src/; an edge A -> B is a line
# '#include "B/x.h"' in a file of src/A/. Includes within a module, of
# include/psrec/ and of src/'s own top-level files are not edges. Every
# elementary circle (A -> B -> A, or longer) is printed, with one include
# line for each of its edges.
#
# Usage: check_includes.sh [SRC_DIR [ALLOW_FILE]]
#   (defaults: the src/ and scripts/include_circles.allow beside this script)
# ALLOW_FILE: a circle per line, its modules in any order ("fold marker"),
# '#' comments; those are circles someone is removing, printed but not
# failed on. Exit 0 when every circle is allowed, 1 when one is not, 2 on a
# usage error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../src}
allow=${2:-$here/include_circles.allow}
if [ $# -gt 2 ] || [ ! -d "$src" ]; then
	echo "usage: check_includes.sh [SRC_DIR [ALLOW_FILE]]" >&2
	exit 2
fi
if [ ! -f "$allow" ]; then
	# the default list may be gone once it is empty; a named one may not
	if [ $# -eq 2 ]; then
		echo "check_includes.sh: no allow-list $allow" >&2
		exit 2
	fi
	allow=/dev/null
fi

modules=
for d in "$src"/*/; do
	[ -d "$d" ] || continue
	d=${d%/}
	modules="$modules ${d##*/}"
done

# file:line:text of every include of a "dir/file" header, in a stable order.
find "$src" -type f \( -name '*.c' -o -name '*.h' \) \
	-exec grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/[^"]*"' {} + |
	LC_ALL=C sort -t: -k1,1 -k2,2n |
	awk -v src="$src/" -v modules="$modules" -v allowfile="$allow" '
function sorted_set(list,    n, a, i, j, t, out) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	out = ""
	for (i = 1; i <= n; i++)
		out = out (i > 1 ? " " : "") a[i]
	return out
}
# Circles through start whose other modules all sort after it: each
# elementary circle is found once, from its smallest module.
function walk(start, at, depth,    i, to, k, names) {
	for (i = 1; i <= nout[at]; i++) {
		to = out[at, i]
		if (to == start) {
			found(depth)
		} else if (to > start && !onpath[to]) {
			onpath[to] = 1
			path[depth + 1] = to
			walk(start, to, depth + 1)
			onpath[to] = 0
		}
	}
}
function found(depth,    k, line, names, ok) {
	line = path[1]
	names = path[1]
	for (k = 2; k <= depth; k++) {
		line = line " -> " path[k]
		names = names " " path[k]
	}
	line = line " -> " path[1]
	ok = (sorted_set(names) in allowed)
	ncircles++
	if (!ok)
		nbad++
	printf "circle: %s%s\n", line, ok ? " (allowed: being removed)" : ""
	for (k = 1; k <= depth; k++)
		printf "  %s\n", where[path[k], path[k % depth + 1]]
}
BEGIN {
	n = split(modules, m, " ")
	for (i = 1; i <= n; i++)
		ismod[m[i]] = 1
	while ((getline l < allowfile) > 0) {
		sub(/#.*/, "", l)
		if (l ~ /[^[:space:]]/)
			allowed[sorted_set(l)] = 1
	}
}
{
	file = $0
	sub(/:[0-9]+:.*/, "", file)
	rest = substr($0, length(file) + 2)
	if (index(file, src) != 1)
		next
	rel = substr(file, length(src) + 1)
	if (index(rel, "/") == 0)
		next
	from = substr(rel, 1, index(rel, "/") - 1)
	inc = rest
	sub(/^[^"]*"/, "", inc)
	to = substr(inc, 1, index(inc, "/") - 1)
	if (!(to in ismod) || !(from in ismod) || to == from)
		next
	if (!((from, to) in count)) {
		nout[from]++
		out[from, nout[from]] = to
		line = rest
		sub(/:.*/, "", line)
		text = rest
		sub(/^[0-9]+:[[:space:]]*/, "", text)
		where[from, to] = from " -> " to ": src/" rel ":" line ": " text
		edges[++nedges] = from SUBSEP to
	}
	count[from, to]++
}
END {
	print "module include edges (includes):"
	for (i = 2; i <= nedges; i++)
		for (j = i; j > 1 && edges[j - 1] > edges[j]; j--) {
			t = edges[j]; edges[j] = edges[j - 1]; edges[j - 1] = t
		}
	for (i = 1; i <= nedges; i++) {
		split(edges[i], e, SUBSEP)
		printf "  %s -> %s (%d)\n", e[1], e[2], count[e[1], e[2]]
	}
	for (i = 1; i <= n; i++) {
		path[1] = m[i]
		onpath[m[i]] = 1
		walk(m[i], m[i], 1)
		onpath[m[i]] = 0
	}
	printf "%d circles between modules, %d not in the allow-list\n", ncircles, nbad
	exit (nbad > 0)
}'
