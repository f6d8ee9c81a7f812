#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual keeps up with the program, run by `make check`: every long
# option that `rdmapush send|recv|ping --help` lists is described in
# man/rdmapush.1, and every exit status the program can return (0 to 7,
# 130 and 143; see include/rdmapush/err.h) is in the manual's EXIT
# STATUS and in README's "Exit codes". A copy of the manual with one
# option taken out must fail the same check (so it can fail).
# README stays a front page: at most README_MAX lines, the rest in docs/.
# No text a user reads (README, docs/*.md, the manual) speaks of how the
# work was organised: no issue numbers of this project ("issue 11",
# "issues 8 and 9", "#11" standing alone) and no "previous day", "first
# step", "this round" (a "this round trip" is fine). A cited issue of
# another project keeps its owner/repo#N or URL form, which is not
# flagged. Each of these two checks also runs on a copy made to fail.
# Both manuals pass `mandoc -T lint` with no message at all (mandoc comes
# from scripts/deps), and no alternating-font line (.BR, .IR, ...) glues
# two words together, as ".BR \-\-max\-size ). Space is" prints
# "--max-size).Spaceis": each has a copy made to fail too.
#
# usage: tests/docs.sh   (from make check; srcdir and the built
# ./rdmapush in the current directory)

top=${srcdir:-$(dirname "$0")/..}
man=$top/man/rdmapush.1
man3=$top/man/rdmapush.3
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

# README's length.
README_MAX=300
too_long() { [ "$(wc -l <"$1")" -gt $README_MAX ]; }
if too_long "$readme"; then
	echo "docs: FAIL README has $(wc -l <"$readme") lines, more than $README_MAX (move the rest to docs/)"
	fail=1
else
	echo "docs: ok README has $(wc -l <"$readme") lines (at most $README_MAX)"
fi
{ cat "$readme"; seq $((README_MAX + 1)); } >"$tmp/README.long"
if too_long "$tmp/README.long"; then
	echo "docs: ok a README of more than $README_MAX lines is caught"
else
	echo "docs: FAIL a README of more than $README_MAX lines went unnoticed"; fail=1
fi

# history FILE...: the lines that speak of issue numbers or of how the
# work went, as FILE:LINE:TEXT.
history_lines() {
	grep -nE -e '[Ii]ssues? #?[0-9]+' -e '(^|[[:space:](])#[0-9]+\b' \
		-e '[Pp]revious day' -e '([Ff]irst|[Ss]econd|[Tt]hird) step' \
		-e '[Tt]his round' "$@" | grep -vE '[Tt]his round[- ]trip'
}
docs=$(ls "$top"/docs/*.md)
h=$(history_lines "$readme" $docs "$man")
if [ -z "$h" ]; then
	echo "docs: ok no issue numbers or history in README, docs/*.md, the manual"
else
	echo "docs: FAIL issue numbers or history in what users read:"
	printf '%s\n' "$h"; fail=1
fi
printf '%s\n' 'the ratio (issue 10) is met' 'unlike the previous day' \
	'see #11.' 'the first step of it' 'in this round, 0.9' >"$tmp/bad.md"
printf '%s\n' 'rdma-core#1234 and https://github.com/a/b/issues/5' \
	'each round trip; this round-trip time' 'step 1, the sender' >"$tmp/good.md"
if [ "$(history_lines "$tmp/bad.md" | wc -l)" = 5 ] && [ -z "$(history_lines "$tmp/good.md")" ]; then
	echo "docs: ok each kind of history wording is caught, cited prior art is not"
else
	echo "docs: FAIL the history check missed a line or flagged prior art:"
	history_lines "$tmp/bad.md" "$tmp/good.md"; fail=1
fi
# The manuals render cleanly: mandoc's linter says nothing (-W style:
# warnings, errors and style notes alike).
lint() { mandoc -T lint -W style "$@" 2>&1; }
if ! command -v mandoc >/dev/null; then
	echo "docs: FAIL mandoc is not installed (scripts/deps build installs it)"
	fail=1
else
	l=$(lint "$man" "$man3")
	if [ -z "$l" ]; then
		echo "docs: ok mandoc -T lint has nothing to say about the manuals"
	else
		echo "docs: FAIL mandoc -T lint:"; printf '%s\n' "$l"; fail=1
	fi
	sed 's/^\.TH \(.*\) "[^"]*" "rdmapush/.TH \1 "someday" "rdmapush/' \
		"$man" >"$tmp/date.1"
	if [ -n "$(lint "$tmp/date.1")" ]; then
		echo "docs: ok a manual with an unparsable date is caught"
	else
		echo "docs: FAIL a manual with an unparsable date went unnoticed"; fail=1
	fi
fi

# glued FILE...: the alternating-font lines (.BR, .RB, .IR, .RI, .BI,
# .IB) with two plain words in a row; troff prints them without the
# space ("Spaceis"). A one-letter word may take a suffix (".IR N th").
glued() {
	awk '/^\.(BR|RB|IR|RI|BI|IB)[ \t]/ {
		line = $0; sub(/^\.[A-Z][A-Z][ \t]+/, "", line)
		n = 0; prev = ""
		while (length(line) > 0) {
			if (substr(line, 1, 1) == "\"") {
				line = substr(line, 2); i = index(line, "\"")
				if (i == 0) { arg = line; line = "" }
				else { arg = substr(line, 1, i - 1); line = substr(line, i + 1) }
			} else {
				i = match(line, /[ \t]/)
				if (i == 0) { arg = line; line = "" }
				else { arg = substr(line, 1, i - 1); line = substr(line, i) }
			}
			sub(/^[ \t]+/, "", line)
			n++
			if (n > 1 && prev ~ /^[A-Za-z][A-Za-z]+$/ &&
			    arg ~ /^[A-Za-z][A-Za-z]+$/) {
				printf "%s:%d: %s\n", FILENAME, FNR, $0
				break
			}
			prev = arg
		}
	}' "$@"
}
g=$(glued "$man" "$man3")
if [ -z "$g" ]; then
	echo "docs: ok no font macro runs two words together in the manuals"
else
	echo "docs: FAIL words run together (put the text on its own line):"
	printf '%s\n' "$g"; fail=1
fi
printf '%s\n' '.BR \-\-max\-size ). Space is then reserved' >"$tmp/glued.1"
printf '%s\n' '.IR N th' '.RI . name .rdmapush\- XXXXXX' \
	'.BR "\-\-op send" .' >"$tmp/apart.1"
if [ -n "$(glued "$tmp/glued.1")" ] && [ -z "$(glued "$tmp/apart.1")" ]; then
	echo "docs: ok \".BR \\-\\-max\\-size ). Space is\" is caught, \".IR N th\" is not"
else
	echo "docs: FAIL the glued-words check missed a line or flagged a good one"
	fail=1
fi
exit $fail
