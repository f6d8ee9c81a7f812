#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Two senders at once: served side by side, each file intact (no mix-up);
# over the cap (-m 1), the second sender is told clearly the receiver is
# busy, and nothing hangs.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-conc
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/c1 $((8 << 20)) >/dev/null
mkdata "$SND" /tmp/e2e-src/c2 $((8 << 20)) >/dev/null

recv_bg conc "-o $DST" || { fail "receiver start" "did not listen"; exit 1; }
"$LAB" bg "$SND" c1 -- "exec $RP send -p $PORT -c 256K /tmp/e2e-src/c1 $RCV_IP"
"$LAB" bg "$SND" c2 -- "exec $RP send -p $PORT -c 256K /tmp/e2e-src/c2 $RCV_IP"
"$LAB" wait "$SND" c1 --timeout 120 >/dev/null 2>&1; r1=$?
"$LAB" wait "$SND" c2 --timeout 120 >/dev/null 2>&1; r2=$?
if [ $r1 = 0 ] && [ $r2 = 0 ] &&
	[ "$(digest "$SND" /tmp/e2e-src/c1)" = "$(digest "$RCV" "$DST/c1")" ] &&
	[ "$(digest "$SND" /tmp/e2e-src/c2)" = "$(digest "$RCV" "$DST/c2")" ]; then
	ok "two simultaneous senders both served, each file byte-identical"
else
	fail "two simultaneous senders" "exits $r1 $r2"
fi
"$LAB" signal "$RCV" conc TERM
recv_wait conc 30 >/dev/null || fail "receiver exit" "status $?"

# Over the cap: a first client past its handshake (HELLO, MR) holds the
# only slot. (One still in its handshake holds none: see server.sh.)
fresh_dir "$RCV" "$DST" >/dev/null
recv_bg busy "-m 1 -T 20 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
A_IP=$("$LAB" ip "$SND")
"$LAB" bg "$SND" hold -- "exec python3 $TOP/tests/e2e/peer.py $RCV_IP $PORT $A_IP after-mr held"
await_log "$SND" hold stopped ||
	fail "first client holds the slot" "peer.py never reported 'stopped after-mr'"
t0=$(date +%s)
out=$(send "-c 256K" /tmp/e2e-src/c1 "$RCV_IP" 2>&1); rc=$?
took=$(( $(date +%s) - t0 ))
if [ $rc = 3 ] && echo "$out" | grep -q 'receiver busy' && [ $took -lt 10 ]; then
	ok "over the cap: the second sender is told 'receiver busy' (exit 3) in $took s"
else
	fail "over the cap" "exit $rc after $took s: $(echo "$out" | tail -2)"
fi
"$LAB" signal "$SND" hold KILL
"$LAB" wait "$SND" hold >/dev/null 2>&1
# The slot is free once the holder's transfer process has ended (only the
# server is left): the server reaps it at once.
await_on "$RCV" 20 "[ \$(pgrep -c -f 'rdmapush [r]ecv -p $PORT') = 1 ]" ||
	fail "slot freed" "the held transfer's process still runs 20 s after its sender was killed"
if send "-c 256K" /tmp/e2e-src/c1 "$RCV_IP" >/dev/null 2>&1 &&
	[ "$(digest "$SND" /tmp/e2e-src/c1)" = "$(digest "$RCV" "$DST/c1")" ]; then
	ok "once the slot is free, the next sender is served"
else
	fail "served after the slot frees" "push failed"
fi
"$LAB" signal "$RCV" busy TERM
recv_wait busy 30 >/dev/null && ok "receiver exits 0 on SIGTERM" || fail "receiver exit" "status $?"
done_testing
