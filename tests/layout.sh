#!/bin/sh
# SPDX-License-Identifier: MIT
# Layout rules of STYLE.md that a compiler does not check, run by
# `make check`: only the libibverbs backend (src/verbs*.c, but not the
# library's backend-independent src/verbs_common.c) includes
# <infiniband/verbs.h>, and no src/*.c grows past MAX_LINES lines.
# Prints one line per rule; exits 1 naming each offending file.
#
# usage: tests/layout.sh   (from make check; srcdir says where src/ is)

MAX_LINES=900
top=${srcdir:-$(dirname "$0")/..}
bad=0

if [ ! -f "$top/src/verbs.c" ]; then
	echo "layout: $top/src/verbs.c not found (set srcdir)" >&2
	exit 99	# a hard error to automake, not a failure of the rules
fi

# Rule 1: <infiniband/verbs.h> stays inside the backend.
n=0
for f in "$top"/src/*.c "$top"/src/*.h "$top"/include/rdmapush/*.h; do
	[ -f "$f" ] || continue
	case ${f##*/} in
	verbs_common.c) ;;
	verbs*.c | verbs_int.h) continue ;;
	esac
	n=$((n + 1))
	if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]infiniband/verbs\.h[>"]' "$f"; then
		echo "layout: FAIL ${f#"$top"/} includes <infiniband/verbs.h>; only src/verbs*.c (not verbs_common.c) may"
		bad=1
	fi
done
echo "layout: rule 1: <infiniband/verbs.h> only in src/verbs*.c, not verbs_common.c ($n other files checked)"

# Rule 2: no source file over MAX_LINES lines.
n=0
for f in "$top"/src/*.c; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	lines=$(wc -l <"$f")
	if [ "$lines" -gt "$MAX_LINES" ]; then
		echo "layout: FAIL ${f#"$top"/} has $lines lines (at most $MAX_LINES)"
		bad=1
	fi
done
echo "layout: rule 2: src/*.c at most $MAX_LINES lines ($n files checked)"

if [ $bad -ne 0 ]; then
	echo "layout: FAILED"
	exit 1
fi
echo "layout: ok"
exit 0
