#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: bench_mem still runs end to end on a tiny file (the
# synthetic peers must keep up with the control protocol), on two
# threads, and a tiny sweep writes its table and gnuplot script (odd
# thread counts: uneven shares of the chunks). Every JSON row carries
# each side's CPU per GiB (every thread of the side: a real side on 2
# threads counts 3, its driving thread and 2 workers) and "valid"; a
# push over its ceiling is marked invalid in the JSON and the table.
# Nothing here looks at speed, nor runs gnuplot.
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

# The fields of every row, by what the row measures: a number where the
# row has that side (or that ratio), null where it has not; valid a
# boolean, and false exactly where the push beat its ceiling's run of
# that round (or, for medians, where any run or the medians did).
check_json() {
	printf '%s\n' "$1" | python3 -c '
import json, sys

threads = int(sys.argv[1])
over = 1 + int(sys.argv[2]) / 100
bad = []
runs = {}
rows = [json.loads(line) for line in sys.stdin if line.strip()]
sides = {
    "xxh3": (), "memcpy": (),
    "ceiling-send": ("send",), "ceiling-recv": ("recv",),
    "ceiling-recv-nocopy": ("recv",),
    "both": ("send", "recv"), "send": ("send", "recv"),
    "recv": ("send", "recv"),
}
real = {"both": ("send", "recv"), "send": ("send",), "recv": ("recv",)}


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


for o in rows:
    name = "%s %s %s" % (o["fs"], o["side"],
                         "median" if o["median"] else "run %s" % o["run"])
    for k in ("send_cpu_s_per_GiB", "recv_cpu_s_per_GiB", "valid",
              "cpu_vs_ceiling", "send_cpu_vs_ceiling",
              "recv_cpu_vs_ceiling"):
        if k not in o:
            bad.append("%s: no %s" % (name, k))
    if bad:
        break
    if not isinstance(o["valid"], bool):
        bad.append("%s: valid is %r" % (name, o["valid"]))
    for side in ("send", "recv"):
        x = o[side + "_cpu_s_per_GiB"]
        want = side in sides[o["side"]]
        if want != num(x) or (not want and x is not None):
            bad.append("%s: %s_cpu_s_per_GiB is %r" % (name, side, x))
        if want and not o["median"] and o["%s_threads" % side] != (
                1 if (o["side"], side) in (("send", "recv"),
                                           ("recv", "send"))
                else threads + 1):
            bad.append("%s: %s_threads is %r" % (name, side,
                                                 o[side + "_threads"]))
        r = o[side + "_cpu_vs_ceiling"]
        if (side in real.get(o["side"], ())) != num(r):
            bad.append("%s: %s_cpu_vs_ceiling is %r" % (name, side, r))
    if (o["side"] in real) != num(o["cpu_vs_ceiling"]):
        bad.append("%s: cpu_vs_ceiling is %r" % (name, o["cpu_vs_ceiling"]))
    if o["side"] in real:
        ok = o["ratio"] <= over
        if o["median"]:
            ok = ok and runs.get((o["fs"], o["side"]), True)
        else:
            runs[(o["fs"], o["side"])] = runs.get(
                (o["fs"], o["side"]), True) and ok
        if o["valid"] != ok:
            bad.append("%s: valid is %r at ratio %r" % (name, o["valid"],
                                                        o["ratio"]))
    elif o["valid"] is not True:
        bad.append("%s: valid is %r" % (name, o["valid"]))
for b in bad[:10]:
    print("bench_mem smoke: " + b)
sys.exit(1 if bad else 0)
' "$2" "$3"
}
check_json "$out" 2 5 || fail "bad JSON fields"

# Every push run over its ceiling: each is marked, in JSON and table.
out=$(./tests/bench/bench_mem --size 2M --chunk 64K --window 4 --runs 2 \
	--warmup 0 --threads 2 --fs tmpfs --timeout 30 --max-over -100 \
	--only ceiling-send,ceiling-recv,both,send,recv --json 2>smoke.err) ||
	fail "bench_mem --max-over -100 failed"
check_json "$out" 2 -100 || fail "--max-over -100: bad JSON fields"
invalid=$(printf '%s\n' "$out" | grep -c '"valid":false' || true)
[ "$invalid" = 9 ] || fail "--max-over -100: $invalid of 9 rows invalid"
grep -q '^invalid: tmpfs recv run 2: ' smoke.err ||
	fail "--max-over -100: no invalid line in the table"
grep -q '^validity: 6 of 6 push runs beat' smoke.err ||
	fail "--max-over -100: no validity count"
echo "bench_mem smoke: every push marked invalid with --max-over -100"

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
