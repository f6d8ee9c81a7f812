#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: bench_mem still runs end to end on a tiny file (the
# synthetic peers must keep up with the control protocol). Nothing here
# looks at speed.
set -eu
out=$(./tests/bench/bench_mem --size 2M --chunk 64K --window 4 --runs 1 \
	--warmup 0 --disk . --timeout 30 --json 2>smoke.err) || {
	cat smoke.err >&2
	echo "bench_mem failed" >&2
	exit 1
}
medians=$(printf '%s\n' "$out" | grep -c '"median":true' || true)
ok=$(printf '%s\n' "$out" | grep '"median":true' | grep -c '"status":"ok"' || true)
echo "bench_mem smoke: $ok of $medians medians ok (expected 14)"
rm -f smoke.err
[ "$medians" = 14 ] && [ "$ok" = 14 ]
