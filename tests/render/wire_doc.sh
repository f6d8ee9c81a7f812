#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/wire.md stays true, run by `make check`: every line of its
# ```packets FILE blocks is a line of `rdmapush render --packets
# tests/render/FILE` (our decoder, today), and each picture it shows is
# byte for byte what `rdmapush render` draws today from the fixtures it
# was drawn from (wire.svg from tests/render/wire.*, wire-loss.svg from
# tests/render/wireloss.*). After a deliberate change to the decoder or
# the picture, redraw them from the top of the source tree:
#   ./rdmapush render tests/render/wire.send.jsonl \
#       tests/render/wire.recv.jsonl tests/render/wire.pcap -o docs/wire.svg
#   (and the same for wireloss.* -> docs/wire-loss.svg)
#
# usage: tests/render/wire_doc.sh   (from make check: srcdir, ./rdmapush)
top=${srcdir:-$(dirname "$0")/../..}
bin=$(pwd)/rdmapush
doc=$top/docs/wire.md
[ -x "$bin" ] && [ -f "$doc" ] || { echo "wire_doc: $bin or $doc missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-wiredoc.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "wire_doc: ok $*"; }
bad() { echo "wire_doc: FAIL $*"; fail=1; }

# Each block as "FILE<TAB>LINE" lines.
awk '/^```packets / { f = $2; next } /^```/ { f = ""; next }
	f != "" { print f "\t" $0 }' "$doc" >"$tmp/quoted"
[ -s "$tmp/quoted" ] || bad "no \`\`\`packets block in $doc"
for f in $(cut -f1 "$tmp/quoted" | sort -u); do
	if ! "$bin" render --packets "$top/tests/render/$f" >"$tmp/$f.txt" 2>"$tmp/err"; then
		bad "render --packets $f: $(cat "$tmp/err")"
		continue
	fi
	n=0
	grep "^$f	" "$tmp/quoted" | cut -f2- >"$tmp/want"
	while IFS= read -r line; do
		n=$((n + 1))
		grep -qxF -- "$line" "$tmp/$f.txt" || bad "$f: not decoded today: $line"
	done <"$tmp/want"
	ok "$f: the $n packet lines quoted are our decoder's"
done

# The pictures: drawn from the top of the source tree, so that the
# paths they show are the same wherever the build is.
for pic in wire:wire wire-loss:wireloss; do
	svg=${pic%%:*} fx=${pic#*:}
	grep -q "($svg.svg)" "$doc" || bad "$doc does not show $svg.svg"
	(cd "$top" && "$bin" render "tests/render/$fx.send.jsonl" \
		"tests/render/$fx.recv.jsonl" "tests/render/$fx.pcap" \
		-o "$tmp/$svg.svg") 2>"$tmp/err" || { bad "render $fx: $(cat "$tmp/err")"; continue; }
	if cmp -s "$tmp/$svg.svg" "$top/docs/$svg.svg"; then
		ok "docs/$svg.svg is what render draws from tests/render/$fx.*"
	else
		bad "docs/$svg.svg is not what render draws today from tests/render/$fx.* (redraw it: see the top of this script)"
	fi
done
exit $fail
