#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual keeps up with the program, run by `make check`: every long
# option that `rdmapush send|recv|ping --help` lists is described in
# man/rdmapush.1, and every exit status the program can return (0 to 7,
# 130 and 143; see include/rdmapush/err.h) is in the manual's EXIT
# STATUS and in README's "Exit codes". A copy of the manual with one
# option taken out must fail the same check (so it can fail).
#
# usage: tests/docs.sh   (from make check; srcdir and the built
# ./rdmapush in the current directory)

top=${srcdir:-$(dirname "$0")/..}
man=$top/man/rdmapush.1
readme=$top/README
bin=$(pwd)/rdmapush
[ -f "$man" ] && [ -f "$readme" ] && [ -x "$bin" ] ||
	{ echo "docs: $man, $readme or $bin missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-docs.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

options() {
	{ "$bin" send --help; "$bin" recv --help; "$bin" devices --help;
	  "$bin" ping --help; } |
		grep -oE -- '--[a-z][a-z-]+' | sort -u
}

# missing MANPAGE: the options the manual does not describe (troff
# writes a dash as "\-").
missing() {
	for opt in $(options); do
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc\\b" "$1" || echo "$opt"
	done
}

m=$(missing "$man")
if [ -z "$m" ]; then
	echo "docs: ok every long option of --help is in the manual ($(options | wc -l))"
else
	echo "docs: FAIL not in man/rdmapush.1:" $m; fail=1
fi
grep -v 'max\\-per\\-address' "$man" >"$tmp/cut.1"
if [ "$(missing "$tmp/cut.1")" = "--max-per-address" ]; then
	echo "docs: ok a manual without --max-per-address is caught"
else
	echo "docs: FAIL a manual without --max-per-address went unnoticed"; fail=1
fi

# The exit statuses: the manual's EXIT STATUS section, README's table.
section=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$man")
table=$(sed -n '/^Exit codes/,/^[A-Z][a-z].*[a-z]$/p' "$readme")
for code in 0 1 2 3 4 5 6 7 130 143; do
	printf '%s\n' "$section" | grep -qE "^\.BR? (.* )?\"?$code\"?( |\$)" ||
		{ echo "docs: FAIL exit status $code not in the manual's EXIT STATUS"; fail=1; }
	printf '%s\n' "$table" | grep -qE "(^| )$code[ ,]" ||
		{ echo "docs: FAIL exit status $code not in README's Exit codes"; fail=1; }
done
[ $fail = 0 ] && echo "docs: ok exit statuses 0-7, 130, 143 in the manual and README"
exit $fail
