#!/bin/sh
# SPDX-License-Identifier: MIT
# The layout rules of HACKING that a compiler does not check, run by
# `make check` after the build: layers point one way (includes and, from
# `nm` of the objects, calls), no cycle between modules, the rp_ prefix on
# every global symbol, <infiniband/verbs.h> only in the verbs backend, and
# a warning for long files. The layer table and the rules are in
# tests/layout.py; known violations being fixed elsewhere in
# tests/layout.allow. Prints one line per rule, one FAIL line per
# violation; exits 1 if a rule fails.
#
# usage: tests/layout.sh              (from the build directory; srcdir
#                                      says where the sources are)
#        tests/layout.sh --selftest   plants violations in a copy of the
#                                      sources and checks each one fails

top=${srcdir:-$(dirname "$0")/..}

if [ ! -f "$top/tests/layout.py" ] || [ ! -d "$top/src" ]; then
	echo "layout: $top/tests/layout.py or $top/src not found (set srcdir)" >&2
	exit 99	# a hard error to automake, not a failure of the rules
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "layout: python3 not found" >&2
	exit 99
fi

exec python3 "$top/tests/layout.py" --top "$top" --build . "$@"
