#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host two
# Failing early and clearly (issue 8, item 7). On the host, which has no
# RDMA device: a receiver exits at once naming the cause (and in JSON with
# --json), a sender fails before it connects, bind failures exit 7, a
# --once receiver stopped before any transfer exits 130, and a failure is
# one line plus at most a hint. In the lab: a receiver asked for a device
# that is not there exits at once, a sender with -d nosuch0 never
# reaches the receiver, a port in use exits 7, and a refused push says
# so once on each side.
. "$(dirname "$0")/lib.sh"

# lines TEXT: how many lines
lines() { printf '%s\n' "$1" | grep -c .; }

# one_error LABEL ROLE STDERR: the failure is "rdmapush ROLE: ... failed
# ...: cause", then at most a "hint:" line; no separate "error:" line.
one_error() {
	local n first second
	n=$(lines "$3")
	first=$(printf '%s\n' "$3" | sed -n 1p)
	second=$(printf '%s\n' "$3" | sed -n 2p)
	if [ "$n" -ge 1 ] && [ "$n" -le 2 ] &&
	   [[ $first == "rdmapush $2: "*" failed"*": "* ]] &&
	   { [ "$n" = 1 ] || [[ $second == "rdmapush $2: hint: "* ]]; }; then
		ok "$1: one error line${second:+ and a hint}"
	else
		fail "$1: one error line" "$n lines: $3"
	fi
}

# refused_entry LABEL ROLE OUTPUT: a session whose one entry was refused
# (version 3) says so in three lines: the session's counts, "... done,
# but 1 entry failed; the first: ..." and a hint.
refused_entry() {
	local l1 l2 l3
	l1=$(printf '%s\n' "$3" | sed -n 1p)
	l2=$(printf '%s\n' "$3" | sed -n 2p)
	l3=$(printf '%s\n' "$3" | sed -n 3p)
	if [ "$(lines "$3")" = 3 ] &&
	   [[ $l1 == "rdmapush $2: "*" 0 entries, "*"; 0 skipped, 1 failed" ]] &&
	   [[ $l2 == "rdmapush $2: "*" done, but 1 entry failed; the first: "* ]] &&
	   [[ $l3 == "rdmapush $2: hint: "* ]]; then
		ok "$1: the counts, one error line and a hint"
	else
		fail "$1: counts, error line, hint" "$(lines "$3") lines: $3"
	fi
}

host_cases() {
	local out rc t0 took json dir=/tmp/rdmapush-startup-$$
	mkdir -p "$dir"

	t0=$(date +%s%N)
	out=$(timeout 10 "$RP" recv -p "$PORT" -o "$dir" 2>&1); rc=$?
	took=$((($(date +%s%N) - t0) / 1000000))
	if [ $rc = 4 ] && [ $took -lt 2000 ] &&
	   echo "$out" | grep -q 'no RDMA device' &&
	   ! echo "$out" | grep -q listening; then
		ok "recv without an RDMA device: exit 4 in $took ms, 'no RDMA device', never 'listening'"
	else
		fail "recv without a device" "exit $rc after $took ms: $out"
	fi
	one_error "recv without a device" recv "$out"

	json=$(timeout 10 "$RP" recv --json -p "$PORT" -o "$dir" 2>/dev/null); rc=$?
	if [ $rc = 4 ] && python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["role"] == "recv" and o["status"] == "error", o
assert o["phase"] is None and o["exit_code"] == 4, o
assert o["error_code"] == "RP_ENODEV" and "no RDMA device" in o["error"], o
' "$json" 2>/dev/null && [ "$(lines "$json")" = 1 ]; then
		ok "recv --json without a device: one JSON object, phase null, exit_code 4"
	else
		fail "recv --json startup failure" "exit $rc: $json"
	fi

	# A sender without a device must not reach the receiver: a bare TCP
	# listener counts the connections it gets.
	python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(4)
print("listening", flush=True)
try:
    s.accept(); print("connected")
except socket.timeout:
    print("no connection")
' "$PORT" >"$dir/nc.out" &
	local nc=$!
	for _ in $(seq 50); do grep -q listening "$dir/nc.out" && break; sleep 0.1; done
	head -c 5000 /dev/urandom >"$dir/f"
	out=$(timeout 10 "$RP" send -p "$PORT" "$dir/f" 127.0.0.1 2>&1); rc=$?
	wait $nc
	if [ $rc = 4 ] && echo "$out" | grep -q 'no RDMA device' &&
	   grep -q 'no connection' "$dir/nc.out"; then
		ok "send without a device: exit 4, and no connection reached the listener"
	else
		fail "send without a device" "exit $rc, listener: $(tail -1 "$dir/nc.out"): $out"
	fi
	one_error "send without a device" send "$out"

	# Bind failures: exit 7. --no-device-check lets a receiver start here.
	out=$(timeout 10 "$RP" recv --no-device-check -b 192.0.2.1 -p "$PORT" -o "$dir" 2>&1); rc=$?
	[ $rc = 7 ] && echo "$out" | grep -q 'cannot listen on 192.0.2.1' &&
		ok "recv -b a foreign address: exit 7, 'cannot listen'" ||
		fail "recv -b foreign" "exit $rc: $out"

	"$RP" recv --no-device-check -p "$PORT" -o "$dir" >"$dir/r1.out" 2>&1 &
	local r1=$!
	for _ in $(seq 50); do grep -q listening "$dir/r1.out" && break; sleep 0.1; done
	out=$(timeout 10 "$RP" recv --no-device-check -p "$PORT" -o "$dir" 2>&1); rc=$?
	[ $rc = 7 ] && echo "$out" | grep -q 'Address already in use' &&
		ok "recv on a port in use: exit 7, 'Address already in use'" ||
		fail "recv port in use" "exit $rc: $out"
	one_error "recv on a port in use" recv "$out"
	kill -INT $r1
	wait $r1; rc=$?
	[ $rc = 0 ] && ok "a serving receiver stopped by SIGINT exits 0" ||
		fail "serving receiver SIGINT" "exit $rc: $(cat "$dir/r1.out")"

	"$RP" recv --once --no-device-check -p "$PORT" -o "$dir" >"$dir/r2.out" 2>&1 &
	local r2=$!
	for _ in $(seq 50); do grep -q listening "$dir/r2.out" && break; sleep 0.1; done
	kill -INT $r2
	wait $r2; rc=$?
	[ $rc = 130 ] && ok "recv --once stopped by SIGINT before any transfer: exit 130" ||
		fail "recv --once SIGINT" "exit $rc: $(cat "$dir/r2.out")"
	rm -rf "$dir"
}

lab_cases() {
	local out rc rout rrc t0 took DST=/tmp/e2e-startup
	fresh_dir "$RCV" "$DST" >/dev/null
	mkdata "$SND" /tmp/e2e-src/st 70000 >/dev/null

	t0=$(date +%s%N)
	out=$(on "$RCV" "$RP recv -d nosuch0 -p $PORT -o $DST" 2>&1); rc=$?
	took=$((($(date +%s%N) - t0) / 1000000))
	if [ $rc = 4 ] && echo "$out" | grep -q 'nosuch0.*not found.*rxe0' &&
	   ! echo "$out" | grep -q listening; then
		ok "recv -d nosuch0: exit 4 at once ($took ms with the lab's round trip), naming the devices there are"
	else
		fail "recv -d nosuch0" "exit $rc: $out"
	fi

	# A traced receiver logs every connection it accepts.
	recv_bg st1 "--once -t -o $DST" || { fail "receiver start" "did not listen"; return; }
	out=$(send "-d nosuch0 --as st1" /tmp/e2e-src/st "$RCV_IP" 2>&1); rc=$?
	sleep 1	# time for a connection, had there been one, to be logged
	if [ $rc = 4 ] && echo "$out" | grep -q 'nosuch0.*not found' &&
	   ! "$LAB" log "$RCV" st1 2>&1 | grep -q 'accepted control connection'; then
		ok "send -d nosuch0: exit 4 before connecting (the receiver saw no connection)"
	else
		fail "send -d nosuch0" "exit $rc: $out"
	fi
	"$LAB" signal "$RCV" st1 INT
	recv_wait st1 30 >/dev/null 2>&1; rrc=$?
	[ $rrc = 130 ] && ok "lab: recv --once stopped by SIGINT before any transfer: exit 130" ||
		fail "lab: recv --once SIGINT" "exit $rrc"

	recv_bg st2 "-o $DST" || { fail "receiver start" "did not listen"; return; }
	out=$(on "$RCV" "$RP recv -p $PORT -o $DST" 2>&1); rc=$?
	[ $rc = 7 ] && echo "$out" | grep -q 'Address already in use' &&
		ok "lab: recv on a port in use: exit 7" ||
		fail "lab: port in use" "exit $rc: $out"
	"$LAB" signal "$RCV" st2 TERM
	recv_wait st2 30 >/dev/null 2>&1

	# A refusal at runtime: the session's counts and one error line on
	# each side, naming the peer on the receiver's.
	on "$RCV" "echo taken > $DST/st3" >/dev/null
	recv_bg st3 "--once -o $DST" || { fail "receiver start" "did not listen"; return; }
	out=$(send "--as st3" /tmp/e2e-src/st "$RCV_IP" 2>&1 >/dev/null); rc=$?
	rout=$(recv_wait st3 2>&1); rrc=$?
	[ $rc = 6 ] && [ $rrc = 6 ] && echo "$out" | grep -q 'file exists' &&
		ok "existing file: both sides exit 6" ||
		fail "existing file" "sender $rc, receiver $rrc: $out"
	refused_entry "refused push, sender" send "$out"
	rout=$(printf '%s\n' "$rout" | grep -v 'listening on port')
	refused_entry "refused push, receiver" recv "$rout"
	echo "$rout" | grep -q "receive from $("$LAB" ip "$SND"):[0-9]* done, but" &&
		ok "the receiver's line names the sender" ||
		fail "receiver names the sender" "$rout"
}

if [ "$MODE" = host ]; then
	host_cases
else
	lab_cases
fi
done_testing
