#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# rdmapush ping: for --op send and --op write the client reports the
# round trip's min <= median <= p99 <= max and a one-way estimate of half
# of each, and the server (--once) exits 0 having answered them all;
# --json prints one object with op, size, iterations, rtt_us and
# one_way_us; bad -n and -s are usage errors (exit 2) before connecting;
# a ping to a file receiver is refused with a clear reason (exit 3), and
# a push to a ping server too; a server killed mid-ping ends the client
# with the transport exit status (4) in bounded time, never a hang, and
# SIGINT stops a client's busy loop (130); --trace shows each side's QP
# driven RESET -> INIT -> RTR -> RTS and the plain RDMA Writes; --psk
# with the same key on both ends pings, with different keys is refused
# and does not end a --once server; two clients at once are both
# answered; idle connections ahead delay no one; a port probe does not
# end a --once server, and the ping that follows is its one.
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d /tmp/e2e-ping.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# server_bg JOB ARGS...: "rdmapush ping --server -p $PORT ARGS" on the
# receiver node, returning once it listens.
server_bg() {
	local job=$1
	shift
	"$LAB" bg "$RCV" "$job" -- "exec $RP ping --server -p $PORT $*"
	await_listen "$RCV"
}

# ping ARGS...: the client on the sender node.
ping() {
	on "$SND" "$RP ping -p $PORT $*"
}

# 1. Both ops, a few sizes: the text report, its order, and the server.
for op_size in "send 2" "send 4096" "write 2" "write 4096"; do
	read -r op size <<<"$op_size"
	label="--op $op -s $size"
	if ! server_bg "srv-$op-$size" --once; then
		fail "$label" "the ping server did not listen"
		continue
	fi
	out=$(ping "--op $op -s $size -n 100" "$RCV_IP" 2>&1)
	rc=$?
	srv=$(recv_wait "srv-$op-$size" 60 2>&1)
	src=$?
	if [ $rc != 0 ] || [ $src != 0 ]; then
		fail "$label" "client exited $rc, server $src: $(echo "$out" | tail -2) / $(echo "$srv" | tail -2)"
		continue
	fi
	if why=$(echo "$out" | python3 -c '
import re, sys
out = sys.stdin.read()
op, size = sys.argv[1], int(sys.argv[2])
m = re.search(r"(\d+) round trips of (\d+) bytes \(--op (\w+)\)", out)
assert m and (int(m[1]), int(m[2]), m[3]) == (100, size, op), out
num = r"([0-9.]+)"
rt = re.search(rf"round trip \(us\): +min {num} +median {num} +p99 {num} +max {num}", out)
ow = re.search(rf"one way, estimated RTT/2: +min {num} +median {num} +p99 {num} +max {num}", out)
assert rt and ow, out
rt = [float(x) for x in rt.groups()]
ow = [float(x) for x in ow.groups()]
assert 0 < rt[0] <= rt[1] <= rt[2] <= rt[3], rt
assert all(abs(o - r / 2) <= 0.01 for o, r in zip(ow, rt)), (ow, rt)
' "$op" "$size" 2>&1); then
		ok "$label: 100 round trips, min <= median <= p99 <= max (us), one way = RTT/2; the server answered all and exited 0"
		echo "# $label:$(echo "$out" | grep -o 'round trip (us):.*' | cut -d: -f2-)"
	else
		fail "$label" "report: $why"
	fi
	if ! echo "$srv" | grep -q "answered 100 $op round trips of $size bytes"; then
		fail "$label: the server's line" "$(echo "$srv" | tail -2)"
	fi
done

# 2. --json: one object with the documented fields.
for op in send write; do
	if ! server_bg "srv-json-$op" --once; then
		fail "--json --op $op" "the ping server did not listen"
		continue
	fi
	json=$(ping "-J --op $op -s 64 -n 50" "$RCV_IP" 2>"$TMP/err")
	rc=$?
	recv_wait "srv-json-$op" 60 >/dev/null 2>&1
	if [ $rc = 0 ] && why=$(echo "$json" | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert (o["type"], o["op"], o["size"], o["iterations"]) == ("ping", sys.argv[1], 64, 50), o
r, w = o["rtt_us"], o["one_way_us"]
keys = ["min", "median", "p99", "max"]
assert sorted(r) == sorted(keys) and sorted(w) == sorted(keys), o
assert 0 < r["min"] <= r["median"] <= r["p99"] <= r["max"], r
assert all(isinstance(v, int) for v in list(r.values()) + list(w.values())), o
assert all(abs(w[k] - r[k] / 2) <= 0.75 for k in keys), o' "$op" 2>&1); then
		ok "--json --op $op: one object, op, size 64, iterations 50, rtt_us and one_way_us {min,median,p99,max} ordered, whole microseconds, one way = RTT/2"
	else
		fail "--json --op $op" "exit $rc: $json $why $(tail -2 "$TMP/err")"
	fi
done

# 3. Bad -n and -s: usage errors before anything connects (nothing
# listens on $PORT now).
for bad in "-n 0" "-n 1000001" "-s 0" "-s 2M" "--op read"; do
	out=$(ping "$bad" "$RCV_IP" 2>&1)
	refused_locally "ping $bad" $? "$out" "^rdmapush ping: invalid"
done

# 4. A ping to a file receiver, and a push to a ping server: each is
# refused, saying what the server is; exit 3 (refused).
on "$RCV" "rm -rf $TMP/in && mkdir -p $TMP/in" >/dev/null
if recv_bg recv-ping "--once -o $TMP/in"; then
	out=$(ping "-n 10" "$RCV_IP" 2>&1)
	rc=$?
	# A refused session is not --once's one: it goes on listening.
	"$LAB" signal "$RCV" recv-ping TERM >/dev/null 2>&1
	rcv=$(recv_wait recv-ping 60 2>&1)
	if [ $rc = 3 ] && echo "$out" | grep -q "this is an rdmapush file receiver, not a ping server"; then
		ok "ping to a file receiver: refused (exit 3): 'this is an rdmapush file receiver, not a ping server'"
	else
		fail "ping to a file receiver" "exit $rc, want 3 and the reason: $out / $(echo "$rcv" | tail -1)"
	fi
else
	fail "ping to a file receiver" "the receiver did not listen"
fi
mkdata "$SND" "$TMP/src/f" 1000 >/dev/null
if server_bg srv-push --once; then
	out=$(send "" "$TMP/src/f" "$RCV_IP" 2>&1)
	rc=$?
	# No ping: --once goes on listening until stopped.
	await_log "$RCV" srv-push "no ping:" 10 >/dev/null
	"$LAB" signal "$RCV" srv-push INT >/dev/null 2>&1
	srv=$(recv_wait srv-push 60 2>&1)
	if [ $rc = 3 ] && echo "$out" | grep -q "this is an rdmapush ping server, not a file receiver"; then
		ok "push to a ping server: refused (exit 3): 'this is an rdmapush ping server, not a file receiver'"
	else
		fail "push to a ping server" "exit $rc, want 3 and the reason: $out / $(echo "$srv" | tail -1)"
	fi
else
	fail "push to a ping server" "the ping server did not listen"
fi

# 5. --trace on both sides (--op write): each side drives its QP
# RESET -> INIT -> RTR -> RTS once, registers its buffer with
# REMOTE_WRITE, and posts plain RDMA Writes; a HELLO marked "ping" and
# the MR cross.
J=$SHARE/e2e-ping
rm -rf "$J" && mkdir -p "$J"
if server_bg srv-trace "--once -t --trace-json $J/srv.jsonl"; then
	ping "-t --trace-json $J/cli.jsonl --op write -n 20" "$RCV_IP" >"$TMP/cli" 2>&1
	rc=$?
	recv_wait srv-trace 60 >"$TMP/srv" 2>&1
	src=$?
	bad=""
	for side in cli srv; do
		for step in "RESET -> INIT:" "INIT -> RTR:" "RTR -> RTS:" \
			"post RDMA_WRITE wr_id=0" "MR registered: .*REMOTE_WRITE" \
			"RTR -> RTS: .*timeout=14 \(67 ms per try\)"; do
			n=$(grep -cE "$step" "$TMP/$side")
			[ "$n" = 1 ] || bad="$bad $side '$step' ${n}x;"
		done
	done
	grep -qE -- "-> HELLO qpn=.* op=write ping$" "$TMP/cli" || bad="$bad no '-> HELLO ... ping';"
	grep -qE -- "<- HELLO qpn=.* op=write ping$" "$TMP/srv" || bad="$bad no '<- HELLO ... ping';"
	grep -qE -- "<- MR qpn=.* rkey=0x0*[1-9a-f]" "$TMP/cli" || bad="$bad no '<- MR' with an rkey;"
	if [ $rc = 0 ] && [ $src = 0 ] && [ -z "$bad" ]; then
		ok "--trace --op write: each side RESET -> INIT -> RTR -> RTS once (a ping's ACK timeout, 67 ms), its buffer REMOTE_WRITE, plain RDMA Writes; a HELLO marked ping and an MR with an rkey cross"
	else
		fail "--trace --op write" "client $rc, server $src:$bad"
	fi
	# --trace-json: every text line an event, the QP's steps as fields.
	for side in cli srv; do
		role=ping
		[ $side = srv ] && role=ping-server
		if why=$("$PYTHON3" - "$J/$side.jsonl" "$TMP/$side" "$role" <<'PY' 2>&1
import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
role = sys.argv[3]
text = [l for l in open(sys.argv[2]) if re.match(r"^\[ *[0-9.]+\] %s " % role, l)]
assert len(ev) == len(text), f"{len(ev)} events, {len(text)} trace lines"
assert all(e["v"] == 1 and e["side"] == role for e in ev), "v or side"
steps = [(e["f"]["from"], e["f"]["to"]) for e in ev if e["kind"] == "qp.modify"]
assert steps == [("RESET", "INIT"), ("INIT", "RTR"), ("RTR", "RTS")], steps
hello = [e for e in ev if e["kind"] == "msg" and e["f"]["type"] == "HELLO"]
assert len(hello) == 1 and hello[0]["f"]["ping"] is True, hello
PY
		); then
			ok "--trace-json ($side): one event per --trace line, side $role, RESET->INIT->RTR->RTS as fields, the HELLO marked ping"
		else
			fail "--trace-json ($side)" "$why"
		fi
	done
	# The picture of a ping: the server's trace given first, the client
	# still on the left; both QPs' bands, the messages, the ping's title.
	if why=$("$RP" render "$J/srv.jsonl" "$J/cli.jsonl" -o "$J/ping.svg" 2>&1 &&
		"$PYTHON3" - "$J/ping.svg" <<'PY' 2>&1
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
joined = "\n".join(texts)
assert any(t.startswith("rdmapush ping:") for t in texts), "no ping title"
heads = [t for t in texts if t in ("CLIENT", "SERVER")]
assert heads[:2] == ["CLIENT", "SERVER"], heads
for m in ("HELLO", "MR", "FIN  20 round trips", "ACK  20 round trips answered",
          "RESET → INIT", "INIT → RTR", "RTR → RTS", "ROUND TRIPS (RDMA)",
          "20 round trips of 2 B, --op write", "ended with ACK: status 0 (ok)"):
    assert m in joined, f"no {m!r}"
PY
	); then
		ok "render of a ping's two traces: CLIENT left of SERVER, the ping's title, HELLO/MR/FIN/ACK in round trips, the QP steps, the round trips' block, ACK ok"
	else
		fail "render of a ping" "$why"
	fi
else
	fail "--trace --op write" "the ping server did not listen"
fi

# 6. SIGINT to the client mid-ping: it stops its busy loop, exit 130,
# and the server (--once) learns it and exits too.
if server_bg srv-int --once; then
	"$LAB" bg "$SND" cli-int -- "exec $RP ping -t -p $PORT -n 1000000 $RCV_IP"
	if await_log "$SND" cli-int "post SEND_WITH_IMM" 30 >/dev/null; then
		sleep 1
		"$LAB" signal "$SND" cli-int INT >/dev/null 2>&1
		"$LAB" wait "$SND" cli-int --timeout 30 >/dev/null 2>&1
		rc=$?
		recv_wait srv-int 30 >/dev/null 2>&1
		src=$?
		if [ $rc = 130 ] && [ $src != 0 ] && [ $src != 124 ]; then
			ok "SIGINT mid-ping: the client exits 130, the server ($src) stops too"
		else
			fail "SIGINT mid-ping" "client exit $rc (want 130), server $src"
		fi
	else
		fail "SIGINT mid-ping" "the client never started its round trips"
		"$LAB" signal "$SND" cli-int KILL >/dev/null 2>&1
	fi
else
	fail "SIGINT mid-ping" "the ping server did not listen"
fi

# 7. The server killed (SIGKILL) mid-ping: the client ends with exit 4
# (transport) long before its --timeout of 60 s, and says why.
if server_bg srv-kill; then
	"$LAB" bg "$SND" cli-kill -- "exec $RP ping -t -p $PORT -n 1000000 -T 60 $RCV_IP"
	if await_log "$SND" cli-kill "post SEND_WITH_IMM" 30 >/dev/null; then
		sleep 1
		"$LAB" signal "$RCV" srv-kill KILL >/dev/null 2>&1
		start=$SECONDS
		out=$("$LAB" wait "$SND" cli-kill --timeout 90 2>&1)
		rc=$?
		took=$((SECONDS - start))
		if [ $rc = 4 ] && [ $took -lt 30 ] &&
			echo "$out" | grep -q "closed the control connection\|work completion failed"; then
			ok "server killed mid-ping: the client exits 4 (transport) within $took s, naming the cause"
		else
			fail "server killed mid-ping" "client exit $rc after $took s, want 4 within 30 s: $(echo "$out" | grep -v '^\[' | tail -3)"
		fi
	else
		fail "server killed mid-ping" "the client never started its round trips"
		"$LAB" signal "$SND" cli-kill KILL >/dev/null 2>&1
	fi
	recv_wait srv-kill 10 >/dev/null 2>&1
else
	fail "server killed mid-ping" "the ping server did not listen"
fi
# 8. --psk on both ends: the same key pings after each side proved it
# (the server's --trace says so); a different key is refused on both
# sides with exit 3.
for n in $SND $RCV; do
	on $n "rm -f /tmp/k-ping /tmp/k-ping-bad; umask 077; printf 'correct horse battery staple, 32' > /tmp/k-ping; printf 'wrong horse battery staple!! 32b' > /tmp/k-ping-bad" >/dev/null
done
if server_bg srv-psk --once -t --psk /tmp/k-ping; then
	out=$(ping "--psk /tmp/k-ping -n 20" "$RCV_IP" 2>&1)
	rc=$?
	srv=$(recv_wait srv-psk 60 2>&1)
	src=$?
	if [ $rc = 0 ] && [ $src = 0 ] &&
		echo "$srv" | grep -q "the sender proved the pre-shared key" &&
		echo "$srv" | grep -q "session key derived"; then
		ok "--psk, the same key: 20 round trips after AUTH, both exit 0"
	else
		fail "--psk, the same key" "client $rc, server $src: $(echo "$out" | tail -2) / $(echo "$srv" | grep -v '^\[' | tail -2)"
	fi
else
	fail "--psk, the same key" "the ping server did not listen"
fi
if server_bg srv-psk-bad --once --psk /tmp/k-ping-bad; then
	out=$(ping "--psk /tmp/k-ping -n 20" "$RCV_IP" 2>&1)
	rc=$?
	# A failed handshake is no ping: logged, and --once goes on.
	await_log "$RCV" srv-psk-bad "no ping:" 10 >/dev/null
	logged=$?
	"$LAB" signal "$RCV" srv-psk-bad INT >/dev/null 2>&1
	srv=$(recv_wait srv-psk-bad 60 2>&1)
	src=$?
	if [ $rc = 3 ] && [ $logged = 0 ] && [ $src = 130 ] &&
		echo "$out" | grep -q "does not know our pre-shared key"; then
		ok "--psk, different keys: the client is refused (exit 3); the --once server logs it, goes on listening, and stops at SIGINT (130)"
	else
		fail "--psk, different keys" "client $rc (want 3), logged $logged, server $src (want 130): $(echo "$out" | tail -2) / $(echo "$srv" | grep -v '^\[' | tail -2)"
	fi
else
	fail "--psk, different keys" "the ping server did not listen"
fi
# 9. Two clients at once are both answered: a second client pings while
# the first is mid-ping (a server of one client at a time would leave it
# waiting past its -T 5).
if server_bg srv-two; then
	"$LAB" bg "$SND" cli-long -- "exec $RP ping -t -p $PORT -n 1000000 $RCV_IP"
	if await_log "$SND" cli-long "post SEND_WITH_IMM" 30 >/dev/null; then
		out=$(ping "-T 5 -n 100" "$RCV_IP" 2>&1)
		rc=$?
		"$LAB" signal "$SND" cli-long INT >/dev/null 2>&1
		"$LAB" wait "$SND" cli-long --timeout 30 >/dev/null 2>&1
		lrc=$?
		if [ $rc = 0 ] && [ $lrc = 130 ] &&
			echo "$out" | grep -q "100 round trips of 2 bytes"; then
			ok "two clients at once: the second's 100 round trips answered while the first was still pinging (then stopped: 130)"
		else
			fail "two clients at once" "second client $rc (want 0), first $lrc (want 130, still running): $(echo "$out" | tail -2)"
		fi
	else
		fail "two clients at once" "the first client never started its round trips"
		"$LAB" signal "$SND" cli-long KILL >/dev/null 2>&1
	fi
	# 10. Idle connections ahead delay no one: three connections that
	# say nothing, then a ping, answered long before their 5 s
	# handshake deadlines would have let it through one by one.
	"$LAB" bg "$SND" idle3 -- "exec python3 $TOP/tests/e2e/idle.py $RCV_IP $PORT 3 30"
	if await_log "$SND" idle3 "connected 3 of 3" 15 >/dev/null; then
		start=$SECONDS
		out=$(ping "-n 10" "$RCV_IP" 2>&1)
		rc=$?
		took=$((SECONDS - start))
		if [ $rc = 0 ] && [ $took -lt 10 ]; then
			ok "three idle connections ahead: a ping answered in $took s, not after their deadlines (15 s)"
		else
			fail "idle connections ahead" "exit $rc after $took s, want 0 within 10 s: $(echo "$out" | tail -2)"
		fi
	else
		fail "idle connections ahead" "idle.py could not connect"
	fi
	"$LAB" signal "$SND" idle3 TERM >/dev/null 2>&1
	"$LAB" wait "$SND" idle3 --timeout 30 >/dev/null 2>&1
	"$LAB" signal "$RCV" srv-two INT >/dev/null 2>&1
	recv_wait srv-two 60 >/dev/null 2>&1
	src=$?
	[ $src = 0 ] || fail "the server of two clients" "exit $src at SIGINT, want 0"
else
	fail "two clients at once" "the ping server did not listen"
fi

# 11. --once and a port probe (connect and close): no ping, so logged,
# and the server goes on listening; the ping that follows is its one.
if server_bg srv-probe --once; then
	on "$SND" "python3 -c 'import socket; socket.create_connection((\"$RCV_IP\", $PORT), timeout=3).close()'" >/dev/null 2>&1
	await_log "$RCV" srv-probe "no ping:" 10 >/dev/null
	out=$(ping "-n 20" "$RCV_IP" 2>&1)
	rc=$?
	srv=$(recv_wait srv-probe 60 2>&1)
	src=$?
	if [ $rc = 0 ] && [ $src = 0 ] &&
		echo "$srv" | grep -q "no ping: .*closed the control connection" &&
		echo "$srv" | grep -q "answered 20 send round trips"; then
		ok "--once and a port probe: the probe logged as no ping, the ping after it answered, then the server exits 0"
	else
		fail "--once and a port probe" "client $rc, server $src, want 0 and 0: $(echo "$out" | tail -2) / $(echo "$srv" | grep -v '^\[' | tail -3)"
	fi
else
	fail "--once and a port probe" "the ping server did not listen"
fi
done_testing
