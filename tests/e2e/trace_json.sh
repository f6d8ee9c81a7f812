#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# --trace-json FILE (docs/trace.md): a push over 2 QPs with --trace and
# --trace-json on both sides leaves two files whose every line is one
# JSON object of schema 1; the verbs life cycle (device.open, pd, cq, mr,
# each QP created, RESET->INIT->RTR->RTS, read back, to ERROR,
# destroyed), the control messages (the k-th out of a type is the peer's
# k-th in, same fields) and data.summary are there with typed fields, and
# there is one event per --trace line, its text the line's (tests/e2e/
# trace_json.py checks all that on the host). --trace-json alone writes
# the events and prints no trace; a file that cannot be opened is exit
# status 5 naming it, an empty name a usage error (2).
. "$(dirname "$0")/lib.sh"

SRC=/tmp/e2e-tj-src/data
DST=/tmp/e2e-tj
SIZE=300001
QPS=2
TMP=$(mktemp -d /tmp/e2e-tj.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

mkdata "$SND" "$SRC" $SIZE >/dev/null
fresh_dir "$RCV" "$DST" >/dev/null
on "$SND" "rm -f /tmp/e2e-tj-send.jsonl" >/dev/null
on "$RCV" "rm -f /tmp/e2e-tj-recv.jsonl" >/dev/null
recv_bg tj "--once -t --trace-json /tmp/e2e-tj-recv.jsonl -o $DST" ||
	{ fail "receiver start" "did not listen"; done_testing; }
send "-t --trace-json /tmp/e2e-tj-send.jsonl --qps $QPS -c 64K" "$SRC" \
	"$RCV_IP" >"$TMP/send.trace" 2>&1
src=$?
recv_wait tj >"$TMP/recv.trace" 2>&1
rrc=$?
if [ $src = 0 ] && [ $rrc = 0 ] &&
	[ "$(digest "$RCV" "$DST/data")" = "$(digest "$SND" "$SRC")" ]; then
	ok "push with --trace and --trace-json on both sides: the file arrives (sha256)"
else
	fail "push with --trace-json" "sender $src, receiver $rrc: $(tail -2 "$TMP/send.trace") / $(tail -2 "$TMP/recv.trace")"
fi
on "$SND" "cat /tmp/e2e-tj-send.jsonl" >"$TMP/send.jsonl"
on "$RCV" "cat /tmp/e2e-tj-recv.jsonl" >"$TMP/recv.jsonl"
relay "trace_json.py" "$PYTHON3" "$TOP/tests/e2e/trace_json.py" "$MODE" \
	"$TMP/send.jsonl" "$TMP/recv.jsonl" "$TMP/send.trace" \
	"$TMP/recv.trace" $QPS $SIZE
# For a look by hand after a run: the sender's first events.
head -40 "$TMP/send.jsonl" >/tmp/rdmapush-last-trace.jsonl

# --trace-json alone (here with -q): no trace on stderr, the same kinds
# of events in the file; the file is truncated, not appended to.
fresh_dir "$RCV" "$DST" >/dev/null
recv_bg tj2 "--once -q -o $DST" || { fail "receiver start (2)" "did not listen"; done_testing; }
out=$(send "-q --trace-json /tmp/e2e-tj-send.jsonl -c 64K" "$SRC" "$RCV_IP" 2>&1)
src=$?
recv_wait tj2 >/dev/null 2>&1
got=$(on "$SND" "cat /tmp/e2e-tj-send.jsonl" | "$PYTHON3" -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
k = {e["kind"] for e in ev}
need = {"device.open", "qp.create", "qp.modify", "msg", "data.summary", "qp.destroy"}
assert need <= k, need - k
assert len({e["pid"] for e in ev}) == 1, "lines of an earlier run"
print("ok")' 2>&1)
if [ $src = 0 ] && [ -z "$out" ] && [ "$got" = ok ]; then
	ok "--trace-json without --trace, with -q: nothing on stderr, the events in the file (truncated first)"
else
	fail "--trace-json alone" "exit $src, stderr '$out', check: $got"
fi

# A file that cannot be opened: exit 5 (a local file error), naming it,
# before any connection; an empty name: a usage error.
out=$(send "--trace-json /nonexistent/dir/t.jsonl" "$SRC" "$RCV_IP" 2>&1)
rc=$?
if [ $rc = 5 ] && echo "$out" | grep -q -- '--trace-json /nonexistent/dir/t.jsonl: open: No such file or directory'; then
	ok "--trace-json into a missing directory: exit 5, the path and the error named"
else
	fail "--trace-json open failure" "exit $rc: $out"
fi
out=$(send "--trace-json ''" "$SRC" "$RCV_IP" 2>&1)
rc=$?
[ $rc = 2 ] && ok "--trace-json '': usage error (exit 2)" ||
	fail "--trace-json ''" "exit $rc: $out"
done_testing
