#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# The library's examples over Soft-RoCE, built against the tree's
# librdmapush.so (make builds examples/push and examples/recv): recv on
# the receiver node, push on the sender node. Two files into recv -1,
# byte-identical, each entry reported on both sides through the entry
# callback and the push's entry list; then the data of a pipe (an fd
# source with a name) into a receiver serving until its SIGALRM handler
# calls rp_recv_stop() (each transfer in a child process, as rdmapush
# recv). The test sends that SIGALRM once the push is over; the alarm
# itself is only a backstop, as a slow lab can take it to push.
. "$(dirname "$0")/lib.sh"

EX="$TOP/examples"
SRC=/tmp/e2e-ex-src
DST=/tmp/e2e-ex-dst
BIG=$((5 * 1024 * 1024 + 7))

[ -x "$EX/push" ] && [ -x "$EX/recv" ] ||
	{ fail "examples built" "run make first"; done_testing; }
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" "$SRC/big" $BIG >/dev/null
mkdata "$SND" "$SRC/small" 100 >/dev/null

"$LAB" bg "$RCV" exrecv -- "exec $EX/recv -p $PORT -1 $DST"
if ! await_listen "$RCV"; then
	fail "examples/recv -1" "did not listen"
	done_testing
fi
if out=$(on "$SND" "$EX/push -p $PORT $RCV_IP $SRC/big $SRC/small" 2>&1) &&
	grep -qx "big $BIG ok" <<<"$out" && grep -qx "small 100 ok" <<<"$out"; then
	ok "examples/push sent two files, each listed as stored"
else
	fail "examples/push" "$(tail -3 <<<"$out")"
fi
if rout=$(recv_wait exrecv 60) && grep -qx "big $BIG ok" <<<"$rout"; then
	ok "examples/recv -1 stored them (entry callback) and exited 0"
else
	fail "examples/recv -1" "status $?: $(tail -3 <<<"$rout")"
fi
for f in big small; do
	want=$(digest "$SND" "$SRC/$f")
	got=$(digest "$RCV" "$DST/$f")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "$f byte-identical (sha256)"
	else
		fail "$f byte-identical" "sha256 $want vs $got"
	fi
done

# An fd source, into a receiver that serves until stopped.
"$LAB" bg "$RCV" exrecv2 -- "exec $EX/recv -p $PORT -t 300 $DST"
await_listen "$RCV" || fail "examples/recv -t 300" "did not listen"
if out=$(on "$SND" "head -c 3000000 /dev/urandom | tee $SRC/piped |
	$EX/push -p $PORT -n piped $RCV_IP -" 2>&1) &&
	grep -qx "piped 3000000 ok" <<<"$out"; then
	ok "examples/push sent a pipe's data as 'piped' (rp_push_add_fd)"
else
	fail "examples/push of a pipe" "$(tail -3 <<<"$out")"
fi
want=$(digest "$SND" "$SRC/piped")
got=$(digest "$RCV" "$DST/piped")
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok "piped byte-identical (sha256)"
else
	fail "piped byte-identical" "sha256 $want vs $got"
fi
"$LAB" signal "$RCV" exrecv2 ALRM
if rout=$(recv_wait exrecv2 60); then
	ok "examples/recv stopped by rp_recv_stop() from its SIGALRM handler, status 0"
else
	fail "examples/recv on SIGALRM" "status $?: $(tail -3 <<<"$rout")"
fi
done_testing
