#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# `rdmapush doctor HOST` on the sender node, with a receiver and a ping
# server on the receiver node: a healthy pair exits 0 with a round trip
# of each op; then each fault in turn, restored after each, makes it
# exit 4 with an error line naming the cause and its fix: the rxe device
# removed, the receiver's interface MTU lowered (the two RoCE MTUs then
# differ), `ulimit -l 64` for an unprivileged user (root, not bound by
# it, is told so and passes), UDP 4791 dropped on the receiver node
# (found within seconds), and no receiver on the port. A receiver
# without a ping server passes, with a note that RDMA was not tried.
. "$(dirname "$0")/lib.sh"

PING_PORT=$((PORT + 1))
IFACE=eth0

# Whatever a failed case left behind, undone.
restore() {
	on "$SND" "rdma link | grep -q '^link rxe0/' || rdma link add rxe0 type rxe netdev $IFACE" >/dev/null 2>&1
	on "$RCV" "ip link set dev $IFACE mtu 1500; tc qdisc del dev $IFACE root 2>/dev/null; true" >/dev/null 2>&1
}
trap 'restore; "$LAB" signal "$RCV" doc-recv TERM >/dev/null 2>&1; "$LAB" signal "$RCV" doc-ping TERM >/dev/null 2>&1' EXIT

# doc [PREFIX]: "rdmapush doctor" of the receiver node from the sender
# node (after the shell words PREFIX); stdout in $out, stderr in $err,
# exit status in $rc, seconds taken in $secs.
doc() {
	local t0=$SECONDS
	out=$(on "$SND" "$1 $RP doctor -p $PORT $RCV_IP 2>/tmp/e2e-doctor.err")
	rc=$?
	secs=$((SECONDS - t0))
	err=$(on "$SND" "cat /tmp/e2e-doctor.err")
}

# expect LABEL PATTERN FIX: exit 4, an error line matching PATTERN whose
# fix matches FIX, and stderr's one line and hint.
expect() {
	if [ "$rc" = 4 ] && echo "$out" | grep -q -- "^error   .*$2.*; fix: .*$3" &&
	   [ "$(echo "$err" | wc -l)" = 2 ] &&
	   echo "$err" | grep -q "^rdmapush doctor: [0-9]* problems\? found; the first: " &&
	   echo "$err" | grep -q "^rdmapush doctor: hint: "; then
		ok "$1: exit 4, the cause and its fix ($secs s)"
		echo "# $(echo "$out" | grep -m1 '^error')"
	else
		fail "$1" "status $rc, want 4 and an error line /$2/ with fix /$3/: $out / $err"
	fi
}

ping_srv() {
	"$LAB" bg "$RCV" doc-ping -- "exec $RP ping --server -p $PING_PORT"
	on "$RCV" "for i in \$(seq 100); do ss -ltn | grep -q ':$PING_PORT ' && exit 0; sleep 0.1; done; exit 1"
}

if ! recv_bg doc-recv -o /tmp || ! ping_srv; then
	fail "setup" "the receiver or the ping server did not listen"
	done_testing
fi

# 1. Healthy: exit 0, both ops' round trips, the peer's MTU.
doc
if [ "$rc" = 0 ] && ! echo "$out" | grep -q '^error' &&
   echo "$out" | grep -q "^ok      --op send: one RDMA round trip with $RCV_IP" &&
   echo "$out" | grep -q "^ok      --op write: one RDMA round trip with $RCV_IP" &&
   echo "$out" | grep -q "^ok      $RCV_IP: GID ::ffff:$RCV_IP, RoCE MTU 1024" &&
   [ -z "$err" ]; then
	ok "healthy pair: exit 0, a round trip of each op, the peer's GID and MTU"
else
	fail "healthy pair" "status $rc: $out / $err"
fi
on "$SND" "$RP doctor --json -p $PORT $RCV_IP" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert o["status"] == "ok" and o["exit_code"] == 0 and o["errors"] == 0, o
checks = [f["check"] for f in o["findings"]]
assert checks.count("rdma") == 2 and "peer" in checks, checks
' && ok "--json: status ok, two round trips, the peer" ||
	fail "--json" "not the healthy object"

# 2. The rxe device removed.
on "$SND" "rdma link delete rxe0"
doc
expect "rxe0 removed" "no RDMA device" "rdma link add rxe0 type rxe netdev $IFACE"
restore
await_on "$SND" 20 "rdma link | grep -q '^link rxe0/1 state ACTIVE'" ||
	fail "rxe0 back" "not active again"

# 3. The receiver's interface MTU below its RoCE MTU's need: rxe drops
# to 512 there, ours stays 1024.
on "$RCV" "ip link set dev $IFACE mtu 1000"
await_on "$RCV" 10 "ibv_devinfo -d rxe0 | grep -q 'active_mtu:.*512'"
doc
expect "$RCV's MTU 1000" "RoCE MTU differs: ours 1024, $RCV_IP's 512" "on $RCV_IP: ip link set dev IFACE mtu 1500"
restore
await_on "$RCV" 10 "ibv_devinfo -d rxe0 | grep -q 'active_mtu:.*1024'"

# 4. ulimit -l 64: an unprivileged user is bound by it; root is not.
doc "ulimit -l 64; setpriv --reuid=65534 --regid=65534 --clear-groups"
expect "ulimit -l 64 (uid 65534)" "locked memory: ulimit -l is 64 KiB, less than the 8 MiB ring" "ulimit -l unlimited"
doc "ulimit -l 64;"
if [ "$rc" = 0 ] && echo "$out" | grep -q "^ok      locked memory: ulimit -l is 64 KiB, but this process has CAP_IPC_LOCK"; then
	ok "ulimit -l 64 as root: not bound by it, and said so"
else
	fail "ulimit -l 64 as root" "status $rc: $(echo "$out" | grep memory)"
fi

# 5. UDP 4791 dropped on the receiver node's way out: found in seconds.
on "$RCV" "tc qdisc add dev $IFACE root handle 1: prio && tc filter add dev $IFACE parent 1: protocol ip u32 match ip dport 4791 0xffff action drop"
doc
expect "UDP 4791 dropped" "--op send: the handshake passed but no RDMA round trip" "-p udp --dport 4791 -j ACCEPT"
[ "$secs" -lt 30 ] && ok "UDP 4791 dropped: found in $secs s" ||
	fail "UDP 4791 dropped" "took $secs s"
restore

# 6. No receiver on the port (the ping server still answers).
"$LAB" signal "$RCV" doc-recv TERM
"$LAB" wait "$RCV" doc-recv >/dev/null 2>&1
doc
expect "no receiver" "$RCV_IP:$PORT: no rdmapush receiver" "on $RCV_IP: rdmapush recv -p $PORT"

# 7. A receiver alone: all well, but RDMA untried, and a note says so.
"$LAB" signal "$RCV" doc-ping TERM
"$LAB" wait "$RCV" doc-ping >/dev/null 2>&1
if recv_bg doc-recv -o /tmp; then
	doc
	if [ "$rc" = 0 ] && echo "$out" | grep -q "^note    $RCV_IP:$PING_PORT: no rdmapush ping server: .*was not tried.*; fix: on $RCV_IP: rdmapush ping --server -p $PING_PORT"; then
		ok "a receiver alone: exit 0, a note that RDMA was not tried"
	else
		fail "a receiver alone" "status $rc: $out"
	fi
else
	fail "a receiver alone" "the receiver did not listen"
fi

done_testing
