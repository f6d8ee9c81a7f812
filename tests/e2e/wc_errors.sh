#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Failed completions explain themselves on a real rxe pair: a sender
# forced onto a GID the peer cannot answer (-g), and RoCE's UDP port
# 4791 dropped on the receiver mid-push, both sides with --retry-for 0
# (a lost link is otherwise ridden out with fresh QPs). Each push ends
# within seconds with exit 4, an error line naming "transport retry
# counter exceeded" and a hint line with its usual causes (the GID, UDP
# 4791); the receiver keeps serving. A link-local GID (-g) is refused
# at the receiver's move to RTR, whose hint says so.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-wc
T=8			# --timeout on both sides
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/wc-small $((1 << 20)) >/dev/null
mkdata "$SND" /tmp/e2e-src/wc-big $((48 << 20)) >/dev/null
recv_bg wcerr "-T $T --retry-for 0 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }

# A wrong GID index: the sender's QP takes (-g) the GID of an address
# the receiver routes to a neighbour that is not there (a static entry
# with a MAC nobody has), so the sender's packets arrive and the
# receiver's ACKs never come back. (The link-local GID is refused
# earlier, by the receiver's move to RTR.) --retry-for 0: no riding out.
WRONG=10.99.0.1
wrong_off() {
	on "$SND" "ip addr del $WRONG/32 dev eth0 2>/dev/null; true" >/dev/null
	on "$RCV" "ip neigh del $WRONG dev eth0 2>/dev/null; ip route del $WRONG/32 2>/dev/null; true" >/dev/null
}
on "$SND" "ip addr add $WRONG/32 dev eth0" >/dev/null
on "$RCV" "ip route add $WRONG/32 dev eth0 && ip neigh replace $WRONG lladdr 02:00:00:00:00:99 dev eth0 nud permanent" >/dev/null
# rxe adds the address's GID to its table at once; rdmapush lists it.
idx=
for i in $(seq 20); do
	idx=$(on "$SND" "$RP devices --json" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
for d in o["devices"]:
    for p in d["ports"]:
        for g in p["gids"]:
            if g["gid"] == "::ffff:" + sys.argv[1]:
                print(g["index"])
' "$WRONG")
	[ -n "$idx" ] && break
	sleep 0.2
done
if [ -z "$idx" ]; then
	fail "wrong GID index" "no GID ::ffff:$WRONG in 'rdmapush devices --json' on $SND"
else
	t0=$SECONDS
	out=$(send "-T $T --retry-for 0 -g $idx --as wrong-gid" /tmp/e2e-src/wc-small "$RCV_IP" 2>&1)
	rc=$?
	took=$((SECONDS - t0))
	if [ $rc = 4 ] && [ $took -le $((T * 2)) ] &&
	   echo "$out" | grep -q "^rdmapush send: push failed.*work completion failed: transport retry counter exceeded (status 12," &&
	   echo "$out" | grep -q "^rdmapush send: hint: usually .*GID index (-g)"; then
		ok "-g $idx (a GID the receiver cannot answer): exit 4 in $took s, retry exceeded, hint names the GID"
	else
		fail "-g $idx (a GID the receiver cannot answer)" "exit $rc in $took s: $out"
	fi
fi
wrong_off

# UDP 4791 dropped on the receiver's way out (its ACKs) once data
# flows: both sides run out of retries. The sender says so
# with the hint, or, when the receiver's word came first, the receiver
# does (its transfer's verdict in its log).
MIDDATA="chunks posted so far taken by the receiver"
drop_off() { on "$RCV" "tc qdisc del dev eth0 root 2>/dev/null; true" >/dev/null; }
"$LAB" bg "$SND" push -- "exec $RP send${OP:+ --op $OP} -t -T $T --retry-for 0 -p $PORT -c 256K --as udp-dropped /tmp/e2e-src/wc-big $RCV_IP"
if await_log "$SND" push "$MIDDATA" 30; then
	if on "$RCV" "modprobe -a sch_prio cls_u32 act_gact 2>/dev/null; tc qdisc add dev eth0 root handle 1: prio && tc filter add dev eth0 parent 1: protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop" >/dev/null; then
		t0=$SECONDS
		out=$("$LAB" wait "$SND" push --timeout $((T * 3)) 2>&1)
		rc=$?
		took=$((SECONDS - t0))
		drop_off
		hint="hint: usually .*UDP port 4791 blocked"
		if [ $rc = 4 ] && [ $took -le $((T * 2)) ] &&
		   echo "$out" | grep -q "^rdmapush send: push failed.*transport retry counter exceeded" &&
		   { echo "$out" | grep -q "^rdmapush send: $hint" ||
		     "$LAB" log "$RCV" wcerr 2>&1 | grep -q "^rdmapush recv: $hint"; }; then
			ok "UDP 4791 dropped mid-push: exit 4 in $took s, retry exceeded, hint names UDP 4791"
		else
			fail "UDP 4791 dropped mid-push" "exit $rc in $took s: $(echo "$out" | grep -v '^\[' | tail -4) / receiver: $("$LAB" log "$RCV" wcerr 2>&1 | tail -3)"
		fi
	else
		fail "UDP 4791 dropped" "tc filter could not be set on $RCV"
		"$LAB" signal "$SND" push KILL >/dev/null 2>&1
		"$LAB" wait "$SND" push >/dev/null 2>&1
		drop_off
	fi
else
	fail "UDP 4791 dropped: mid-data" "no '$MIDDATA' trace line from the sender"
	"$LAB" signal "$SND" push KILL >/dev/null 2>&1
	"$LAB" wait "$SND" push >/dev/null 2>&1
fi

# A link-local GID (-g): the receiver's move to RTR refuses its address
# at once (EINVAL); the receiver's hint says why, not a generic one.
ll=$(on "$SND" "$RP devices --json" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
for d in o["devices"]:
    for p in d["ports"]:
        for g in p["gids"]:
            if g["gid"].startswith("fe80:"):
                print(g["index"]); sys.exit()
')
if [ -z "$ll" ]; then
	fail "link-local GID" "no fe80:: GID in 'rdmapush devices --json' on $SND"
else
	out=$(send "-T $T --retry-for 0 -g $ll --as link-local" /tmp/e2e-src/wc-small "$RCV_IP" 2>&1)
	rc=$?
	log=$("$LAB" log "$RCV" wcerr 2>&1)
	if [ $rc != 0 ] &&
	   echo "$log" | grep -q "ibv_modify_qp(.*RTR): Invalid argument" &&
	   echo "$log" | grep -q "^rdmapush recv: hint: the peer's GID is link-local (fe80::)"; then
		ok "-g $ll (link-local): exit $rc; the receiver's hint says the peer's GID is link-local"
	else
		fail "-g $ll (link-local)" "exit $rc: $out / receiver: $(echo "$log" | tail -3)"
	fi
fi

# The filter gone, the receiver still serves.
if send "-T $T --as after" /tmp/e2e-src/wc-small "$RCV_IP" >/dev/null 2>&1 &&
   [ "$(digest "$SND" /tmp/e2e-src/wc-small)" = "$(digest "$RCV" "$DST/after")" ]; then
	ok "receiver still serves after the failed completions"
else
	fail "receiver still serves" "push failed"
fi

"$LAB" signal "$RCV" wcerr TERM
recv_wait wcerr 30 >/dev/null && ok "receiver exits 0 on SIGTERM" ||
	fail "receiver exit" "status $?"
done_testing
