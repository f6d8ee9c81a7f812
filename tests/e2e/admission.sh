#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Admission against a crowd, and recv --once against probes. 64 idle
# connections from 8 addresses of one /24 (127.0.0.2-9, on the receiver's
# node), reopened as soon as they are closed, do not stop a --psk push
# from the sender's node: with the default caps (the /24 holds at most 16
# handshakes), and with the caps raised so that the crowd fills the table
# (a newcomer from another prefix evicts the crowd's oldest). A port check (connect and close)
# against recv --once leaves it listening, and the push that follows
# succeeds and ends it with status 0.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-admission
KEY=/tmp/k-admission
CROWD="python3 $TOP/tests/e2e/crowd.py 127.0.0.1 $PORT 64 40 $(echo 127.0.0.{2..9})"
b64=$(on "$SND" "head -c 32 /dev/urandom | base64 -w0")
for n in $SND $RCV; do
	on "$n" "umask 077; echo $b64 | base64 -d > $KEY; chmod 600 $KEY" >/dev/null
done
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/a1 $((1 << 20)) >/dev/null

# push_ok LABEL: one --psk push of a1 that must succeed, intact; says how
# long it took.
push_ok() {
	local out rc t0=$SECONDS
	on "$RCV" "rm -f $DST/a1" >/dev/null
	out=$(send "--psk $KEY" /tmp/e2e-src/a1 "$RCV_IP" 2>&1); rc=$?
	if [ $rc = 0 ] &&
		[ "$(digest "$SND" /tmp/e2e-src/a1)" = "$(digest "$RCV" "$DST/a1")" ]; then
		ok "$1 (in about $((SECONDS - t0)) s)"
		return 0
	fi
	fail "$1" "push exit $rc: $(echo "$out" | tail -2)"
	return 1
}

# crowd_case LABEL RECV-OPTS: the crowd, then a push, against a receiver.
crowd_case() {
	RLOG=
	recv_bg crowd "--psk $KEY -o $DST $2" ||
		{ fail "$1" "receiver did not listen"; return; }
	"$LAB" bg "$RCV" crowd64 -- "exec $CROWD"
	await_log "$RCV" crowd64 "connected" ||
		fail "$1: crowd" "crowd.py did not start"
	# The crowd in place, and reopening what the deadline closes.
	sleep 6
	push_ok "$1"
	"$LAB" signal "$RCV" crowd64 TERM
	"$LAB" wait "$RCV" crowd64 --timeout 30 >/dev/null 2>&1
	"$LAB" signal "$RCV" crowd TERM
	RLOG=$(recv_wait crowd 30 2>&1) ||
		fail "$1: receiver exit" "status $?"
}

crowd_case "64 idle connections from 127.0.0.2-9, default caps: a --psk push succeeds" ""
echo "$RLOG" | grep -q "still in their handshake (--max-pending-per-prefix 16)" &&
	ok "the crowd's /24 was capped at 16 handshakes" ||
	fail "prefix cap" "$(echo "$RLOG" | grep -m1 refusing)"

crowd_case "64 idle connections filling the table: a --psk push succeeds" \
	"-t --max-pending-per-prefix 64 --max-per-address 16"
# The crowd churns (the deadline closes its connections, it reopens
# them), so whether the push found the table full is a matter of timing
# (each address may hold 16; with -t every refusal is said, not only
# the first of each window):
# that the crowd did fill it is checked here, the eviction itself by
# tests/admit.sh in make check.
echo "$RLOG" | grep -q -e "ending it for" \
	-e "64 connections still in their handshake (at most 64)" &&
	ok "the crowd filled the table of handshakes" ||
	fail "a full table" "the crowd never filled it: $(echo "$RLOG" | grep -m1 refusing)"

# --- recv --once and a port check ----------------------------------------
recv_bg once "--once --psk $KEY -o $DST" ||
	fail "--once" "receiver did not listen"
# What nc -z does: connect, then close at once.
on "$SND" "python3 -c 'import socket; socket.create_connection((\"$RCV_IP\", $PORT), timeout=5).close()'" >/dev/null 2>&1 ||
	fail "port check" "could not connect"
sleep 1
if on "$RCV" "ss -ltn | grep -q ':$PORT '"; then
	ok "a port check against recv --once leaves it listening"
else
	fail "port check" "recv --once stopped listening"
fi
push_ok "recv --once: the push after a port check succeeds"
out=$(recv_wait once 60 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q "no push, ignored" &&
	ok "recv --once ends with the push's status 0, the probe said once" ||
	fail "recv --once exit" "status $rc: $(echo "$out" | tail -3)"

done_testing
