#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: bench_tree runs end to end on a tiny tree (1,203 files of
# 100 bytes: two subdirectories, a size that is no multiple of 8) on
# tmpfs and on disk, one run of rdmapush and of the tar ceiling each,
# every result checked by bench_tree itself; its JSON has one row per
# run and per median with the fields scripts and docs rely on. Nothing
# here looks at speed.
set -eu
fail() {
	cat tree-smoke.err >&2
	echo "bench_tree smoke: $*" >&2
	exit 1
}
out=$(./tests/bench/bench_tree --files 1203 --size 100 --runs 1 \
	--disk . --timeout 30 --json 2>tree-smoke.err) ||
	fail "bench_tree failed"
printf '%s\n' "$out" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
want = ("fs", "fs_type", "what", "files", "bytes", "seconds", "files_per_s",
        "mb_per_s", "ceiling_files_per_s", "cpu_s", "cpu_us_per_file",
        "median", "status")
seen = set()
for r in rows:
    missing = [k for k in want if k not in r]
    if missing:
        sys.exit("a row lacks %s: %s" % (missing, r))
    if r["status"] != "ok" or r["files"] != 1203 or r["bytes"] != 120300:
        sys.exit("a bad row: %s" % r)
    for k in ("seconds", "files_per_s", "mb_per_s", "ceiling_files_per_s"):
        if not r[k] > 0:
            sys.exit("%s not positive: %s" % (k, r))
    # seconds is printed to 0.1 ms: a run of a few ms is that coarse.
    tol = 2 + 1203 * 0.00006 / r["seconds"]
    if abs(r["files_per_s"] * r["seconds"] - 1203) > tol:
        sys.exit("files_per_s is not files / seconds: %s" % r)
    seen.add((r["fs"], r["what"], r["median"]))
full = {(f, w, m) for f in ("tmpfs", "disk") for w in ("rdmapush", "ceiling")
        for m in (False, True)}
if len(rows) != 8 or seen != full:
    sys.exit("want one run and one median of each side on each file "
             "system, got %d rows: %s" % (len(rows), sorted(seen)))
print("bench_tree smoke: 8 rows ok")
' || fail "bad JSON"
grep -q '^  rdmapush / ceiling, files/s: ' tree-smoke.err ||
	fail "no rdmapush / ceiling line in the table"
rm -f tree-smoke.err
