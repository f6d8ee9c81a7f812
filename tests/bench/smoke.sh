#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: bench_mem still runs end to end on a tiny file (the
# synthetic peers must keep up with the control protocol), on two
# threads. Nothing here looks at speed.
set -eu
fail() {
	cat smoke.err >&2
	echo "bench_mem smoke: $*" >&2
	exit 1
}
out=$(./tests/bench/bench_mem --size 2M --chunk 64K --window 4 --runs 1 \
	--warmup 0 --threads 2 --disk . --timeout 30 --json 2>smoke.err) ||
	fail "bench_mem --threads 2 failed"
medians=$(printf '%s\n' "$out" | grep -c '"median":true' || true)
ok=$(printf '%s\n' "$out" | grep '"median":true' | grep '"threads":2,' |
	grep -c '"status":"ok"' || true)
echo "bench_mem smoke: $ok of $medians medians ok on 2 threads (expected 14)"
[ "$medians" = 14 ] && [ "$ok" = 14 ] || fail "expected 14 of 14"

rm -f smoke.err
