#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: one two
# `rdmapush devices` on the sender node's rxe0: it lists ::ffff:<its
# address> as a RoCE v2 GID on the interface that has the address;
# --for the receiver's address marks that GID and says why; --json says
# the same, and the marked index is, in sysfs (read apart from
# rdmapush), a RoCE v2 GID of that address; nothing fits a loopback
# peer, a host that does not resolve, or -d naming no device: each is a
# clear error with exit status 4. With --trace, the selection's steps
# are the ones a transfer traces.
. "$(dirname "$0")/lib.sh"

A_IP=$("$LAB" ip "$SND")
IFACE=$(on "$SND" "ip -o -4 addr show | awk '\$4 ~ /^$A_IP\\// { print \$2 }'")
GID="::ffff:$A_IP"

# dev ARGS...: "rdmapush devices ARGS" on the sender node; stdout in
# $out, stderr in $err, exit status in $rc.
dev() {
	out=$(on "$SND" "$RP devices $* 2>/tmp/e2e-devices.err")
	rc=$?
	err=$(on "$SND" "cat /tmp/e2e-devices.err")
}

# gid_line: the GID table's line of $GID in $out.
gid_line() {
	echo "$out" | grep -E "^    [ *] +[0-9]+  RoCE v[12]  $GID "
}

dev
line=$(gid_line)
if [ $rc = 0 ] && echo "$out" | grep -q '^rxe0: node GUID [0-9a-f:]*, firmware' &&
   echo "$out" | grep -qE '^  port 1: PORT_ACTIVE, Ethernet \(RoCE\), MTU [0-9]+ \(max [0-9]+\)$' &&
   echo "$line" | grep -qE "^      +[0-9]+  RoCE v2  $GID +$IFACE\$"; then
	ok "devices: rxe0, port 1 ACTIVE on Ethernet, $GID as RoCE v2 on $IFACE"
else
	fail "devices" "status $rc, GID line '$line' (netdev $IFACE), output: $out $err"
fi
echo "$out" | grep -q '<- for' && fail "devices" "a GID is marked without --for" ||
	ok "devices: no GID marked without --for"

dev --for "$RCV_IP"
line=$(gid_line)
idx=$(echo "$line" | awk '{ print $2 }')
if [ $rc = 0 ] && echo "$line" | grep -qE "^    \* +[0-9]+  RoCE v2  $GID +$IFACE +<- for $RCV_IP\$" &&
   [ "$(echo "$out" | grep -c '<- for')" = 1 ] &&
   echo "$out" | grep -qxF "  why: RoCE v2 GID $GID = the local address $A_IP the kernel routes $RCV_IP through" &&
   echo "$out" | grep -qxF "  rdmapush would use: rxe0 port 1 GID $idx $GID (RoCE v2), marked *"; then
	ok "devices --for $RCV_IP: GID $idx $GID marked, with why"
else
	fail "devices --for $RCV_IP" "status $rc, GID line '$line', output: $out $err"
fi

# The marked index as the kernel's sysfs shows it, not as rdmapush does.
sys=$(on "$SND" "cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$idx /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/$idx /sys/class/infiniband/rxe0/ports/1/gids/$idx")
want_hex=$(printf '%02x%02x:%02x%02x' $(echo "$A_IP" | tr . ' '))
if [ "$(echo "$sys" | sed -n 1p)" = "RoCE v2" ] && [ "$(echo "$sys" | sed -n 2p)" = "$IFACE" ] &&
   [ "$(echo "$sys" | sed -n 3p)" = "0000:0000:0000:0000:0000:ffff:$want_hex" ]; then
	ok "sysfs agrees: GID $idx of rxe0 port 1 is RoCE v2 ::ffff:$want_hex on $IFACE"
else
	fail "sysfs GID $idx" "$(echo $sys)"
fi

dev --json --for "$RCV_IP"
if [ $rc = 0 ] && echo "$out" | python3 -c '
import json, sys
gid, iface, idx, peer, a_ip = sys.argv[1:6]
o = json.loads(sys.stdin.read())
assert o["type"] == "devices" and o["status"] == "ok", o
d = [d for d in o["devices"] if d["name"] == "rxe0"]
assert len(d) == 1, o["devices"]
d = d[0]
assert d["max_qp"] > 0 and d["max_mr_size"] > 0 and d["max_qp_rd_atom"] > 0, d
p = d["ports"][0]
assert p["port"] == 1 and p["state"] == "PORT_ACTIVE" and p["link_layer"] == "Ethernet", p
g = [g for g in p["gids"] if g["gid"] == gid and g["type"] == "RoCE v2"]
assert len(g) == 1 and g[0]["netdev"] == iface and g[0]["chosen"], p["gids"]
assert g[0]["index"] == int(idx), (g, idx)
assert sum(x["chosen"] for x in p["gids"]) == 1, p["gids"]
c = o["chosen"]
assert (c["device"], c["port"], c["gid_index"], c["gid"], c["type"]) == ("rxe0", 1, int(idx), gid, "RoCE v2"), c
assert o["for"] == peer and o["local_address"] == a_ip, o
assert c["reason"] == f"RoCE v2 GID {gid} = the local address {a_ip} the kernel routes {peer} through", c
' "$GID" "$IFACE" "$idx" "$RCV_IP" "$A_IP" 2>&1; then
	ok "devices --json --for $RCV_IP: the same devices, GID $idx chosen, reason"
else
	fail "devices --json --for" "status $rc: $out"
fi

# --trace shows the session's own selection steps (verbs_select.c's
# trace lines) choosing that same GID.
dev -t --for "$RCV_IP"
if [ $rc = 0 ] && echo "$err" | grep -qF "rxe0 port 1 GID[$idx] $GID (RoCE v2)  <- chosen"; then
	ok "devices -t --for $RCV_IP: the session's trace chooses GID $idx too"
else
	fail "devices -t --for $RCV_IP" "status $rc, trace: $err"
fi

# Loopback has no GID: the session's own report, with its hint.
dev --for 127.0.0.1
if [ $rc = 4 ] && echo "$out" | grep -q '^  no GID would be used: no RoCE v2 GID equals' &&
   echo "$err" | grep -q 'hint: the control connection runs over loopback' &&
   ! echo "$out" | grep -q '<- for'; then
	ok "devices --for 127.0.0.1: no GID, why and what to do, exit 4"
else
	fail "devices --for 127.0.0.1" "status $rc, out: $out, err: $err"
fi

dev --for nosuch.invalid
if [ $rc = 4 ] && echo "$err" | grep -q '^rdmapush devices: error: cannot resolve nosuch.invalid' &&
   echo "$err" | grep -q '^rdmapush devices: hint: check the host name'; then
	ok "devices --for nosuch.invalid: cannot resolve, exit 4"
else
	fail "devices --for nosuch.invalid" "status $rc, err: $err"
fi

dev -d nosuchdev
if [ $rc = 4 ] && [ -z "$out" ] &&
   echo "$err" | grep -q '^rdmapush devices: error: RDMA device "nosuchdev" not found; devices: rxe0'; then
	ok "devices -d nosuchdev: not found, the devices there are, exit 4"
else
	fail "devices -d nosuchdev" "status $rc, out: $out, err: $err"
fi
done_testing
