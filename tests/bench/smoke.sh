#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: bench_mem still runs end to end on a tiny file (the
# synthetic peers must keep up with the control protocol), on two
# threads, and a tiny sweep writes its table and gnuplot script (odd
# thread counts: uneven shares of the chunks). Nothing here looks at
# speed, nor runs gnuplot.
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

rm -f smoke-sweep.gp
out=$(./tests/bench/bench_mem --sweep --size 1M --sweep-threads 1,3 \
	--sweep-chunks 64K,128K --window 4 --runs 1 --warmup 0 --timeout 30 \
	--json --plot smoke-sweep 2>smoke.err) || fail "bench_mem --sweep failed"
medians=$(printf '%s\n' "$out" | grep -c '"median":true' || true)
ok=$(printf '%s\n' "$out" | grep '"median":true' | grep -c '"status":"ok"' || true)
echo "bench_mem smoke: sweep: $ok of $medians medians ok (expected 16)"
[ "$medians" = 16 ] && [ "$ok" = 16 ] || fail "sweep: expected 16 of 16"
grep -q '^threads  *chunk  *ceiling-send  *send  */ceiling' smoke.err ||
	fail "sweep: no table"
grep -q '^\$tmpfs_t3 << EOD' smoke-sweep.gp || fail "sweep: no plot data"
rm -f smoke.err smoke-sweep.gp
