#!/bin/sh
# SPDX-License-Identifier: MIT
# What librdmapush.so exports, run by `make check`: exactly the symbols
# checked in, tests/lib/symbols.txt (the public API: each declared
# RP_EXPORT in include/rdmapush.h), every one with the rp_ prefix and
# in the synopsis of man/rdmapush.3. A symbol added to
# or gone from the library without its list changing fails, naming it.

top=${srcdir:-.}
so=.libs/librdmapush.so
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp-sym.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$so" ]; then
	echo "symbols: $so not built (./configure --disable-shared?)"
	exit 77	# skipped
fi
nm -D --defined-only "$so" | awk '{ print $3 }' | sort >"$tmp/got"
sort -u "$top/tests/lib/symbols.txt" >"$tmp/want"
if diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
	echo "symbols: ok: $(wc -l <"$tmp/got") exported, as listed"
else
	echo "symbols: FAIL: exports differ from the lists (- listed, + exported):"
	sed -n '3,$p' "$tmp/diff" | grep '^[-+]'
	fail=1
fi
if grep -v '^rp_' "$tmp/got" >"$tmp/stray"; then
	echo "symbols: FAIL: exported without the rp_ prefix:"
	cat "$tmp/stray"
	fail=1
fi
while read -r s; do
	grep -Eq "^RP_EXPORT .*[ *]$s\(" "$top/include/rdmapush.h" ||
		{ echo "symbols: FAIL: $s is not declared RP_EXPORT in rdmapush.h"; fail=1; }
done <"$top/tests/lib/symbols.txt"
# The manual lists every public function (troff writes _ as is).
while read -r s; do
	grep -q "^\.BI\? .*[ *]$s(" "$top/man/rdmapush.3" ||
		{ echo "symbols: FAIL: $s is not in man/rdmapush.3's synopsis"; fail=1; }
done <"$top/tests/lib/symbols.txt"
[ $fail = 0 ] || exit 1
echo "symbols: passed"
