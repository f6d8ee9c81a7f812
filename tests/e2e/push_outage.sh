#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ops: read send
# modes: two
# A link outage rides out within the session (--retry-for, default 60):
# during a 64 MiB push the sender's guest drops every packet on its wire
# for 6 s (netem loss 100%), past the QPs' retries (about 3.8 s, after
# which a request fails "retry exceeded"), while the TCP control
# connection waits it out. With the default op the outage lasts 20 s,
# long enough for TCP's backed-off retransmissions to outlast --timeout
# (30 s by default) after the data they carry was first sent, and the
# sender forgets the receiver's Ethernet address as it begins (ip neigh
# flush): should the receiver's RECONNECT get through first (it may or
# may not, by timing), RTR on the sender's fresh QPs finds no ARP answer
# and is tried again (the trace says "the link is still down"; counted
# below, not asserted). The push completes and the
# file is byte-identical (sha256sum on both nodes); each side's --json
# counts one reconnect (one outage, however many attempts it took: the
# receiver's RECONNECT gets through while the sender's packets are still
# dropped, so the first fresh QPs may fail too); the sender's trace says
# "link down, reconnecting (attempt n)" and drives QPs RTR -> RTS again.
# With each data op (write, read, send).
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-outage
SRC=/tmp/e2e-src/outage
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" "$SRC" $((64 << 20)) >/dev/null
recv_bg outage-recv "-1 -J -o $DST" || { fail "receiver start" "did not listen"; exit 1; }

# Mid-data: the sender's --trace line once the receiver has taken the
# first chunk (trace_milestone); 64 MiB in 256 KiB chunks is 256 of them.
MIDDATA="chunks posted so far taken by the receiver"
"$LAB" bg "$SND" push -- "exec $RP send${OP:+ --op $OP} -t -J -p $PORT -c 256K $SRC $RCV_IP"
if ! await_log "$SND" push "$MIDDATA" 30; then
	fail "outage: mid-data" "no '$MIDDATA' trace line from the sender within 30 s"
	"$LAB" signal "$SND" push KILL >/dev/null 2>&1
	done_testing
fi
on "$SND" "modprobe sch_netem 2>/dev/null; tc qdisc add dev eth0 root netem loss 100%" >/dev/null ||
	fail "outage: netem" "tc qdisc add ... netem loss 100% failed on $SND"
OUTAGE=6
if [ -z "$OP" ]; then
	OUTAGE=20
	on "$SND" "ip neigh flush dev eth0" >/dev/null ||
		fail "outage: neighbours" "ip neigh flush failed on $SND"
fi
# A push acknowledged already would make the case vacuous.
"$LAB" log "$SND" push 2>&1 | grep -q -e '<- ACK' &&
	fail "outage: mid-data" "the push was acknowledged before the link went down"
sleep $OUTAGE	# the outage itself: time, not a wait for an event
on "$SND" "tc qdisc del dev eth0 root" >/dev/null ||
	fail "outage: netem off" "tc qdisc del failed on $SND"

out=$("$LAB" wait "$SND" push --timeout 120 2>&1)
rc=$?
if [ $rc = 0 ]; then
	ok "outage: the push completed (exit 0) after a $OUTAGE s outage"
else
	fail "outage: the push" "exit $rc: $(echo "$out" | grep -v '^rdmapush.*: \[' | tail -2)"
fi
if [ "$(digest "$SND" "$SRC")" = "$(digest "$RCV" "$DST/outage")" ]; then
	ok "outage: the file is byte-identical (sha256)"
else
	fail "outage: byte-identical" "sha256 differs or the file is missing"
fi
n=$(echo "$out" | grep -c 'link down, reconnecting (attempt')
if [ "$n" -ge 1 ]; then
	ok "outage: the sender's trace says 'link down, reconnecting' ($n)"
else
	fail "outage: trace" "no 'link down, reconnecting' line from the sender"
fi
if [ -z "$OP" ]; then
	echo "# RTR found no ARP answer and was tried again" \
		"$(echo "$out" | grep -c 'INIT -> RTR: .*: the link is still down') times"
fi
n=$(echo "$out" | grep -c 'RTR -> RTS')
if [ "$n" -ge 2 ]; then
	ok "outage: the trace drives QPs RTR -> RTS again ($n times)"
else
	fail "outage: second QP life cycle" "RTR -> RTS $n time(s) in the sender's trace"
fi
if echo "$out" | grep '"type":"session"' | grep -q '"reconnects":1,'; then
	ok "outage: the sender's --json counts one reconnect"
else
	fail "outage: sender --json" "no \"reconnects\" in: $(echo "$out" | grep -m1 '"type":"session"' | cut -c1-200)"
fi
rout=$(recv_wait outage-recv 60)
if echo "$rout" | grep '"type":"session"' | grep -q '"reconnects":1,'; then
	ok "outage: the receiver's --json counts one reconnect"
else
	fail "outage: receiver --json" "no \"reconnects\" in: $(echo "$rout" | grep -m1 '"type":"session"' | cut -c1-200)"
fi
on "$RCV" "rm -rf $DST" >/dev/null
on "$SND" "rm -f $SRC" >/dev/null
done_testing
