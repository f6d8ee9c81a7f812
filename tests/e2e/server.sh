#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# The receiver's server against idle connections and its own limits: idle
# connections hold no transfer slot (a real --psk push gets through two of
# them on a -m 2 receiver) and are closed at the handshake deadline, not
# after --timeout; the per-address cap refuses at once; finished transfers
# leave no zombies; running out of descriptors does not stop the server;
# recv --once stopped before any transfer exits non-zero.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-server
KEY=/tmp/k-server
IDLE="python3 $TOP/tests/e2e/idle.py $RCV_IP $PORT"
SND_IP=$("$LAB" ip "$SND")
# The same random 32-byte key on both nodes, mode 0600.
b64=$(on "$SND" "head -c 32 /dev/urandom | base64 -w0")
for n in $SND $RCV; do
	on "$n" "umask 077; echo $b64 | base64 -d > $KEY; chmod 600 $KEY" >/dev/null
done
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/s1 $((1 << 20)) >/dev/null

# closed_after JOB I: whole seconds after which the receiver closed idle
# connection I of idle.py job JOB on the sender ("" if it has not). Once
# the job has been waited for, from its output saved in $JOB.out.
idle_out() {
	if [ -f "$TMP/$1.out" ]; then cat "$TMP/$1.out"; else "$LAB" log "$SND" "$1" 2>&1; fi
}
closed_after() {
	idle_out "$1" | sed -n "s/^closed $2 after \([0-9]*\)\..*/\1/p"
}
idle_wait() {
	"$LAB" wait "$SND" "$1" --timeout 60 >"$TMP/$1.out" 2>&1
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}
# push_ok LABEL SEND-OPTS: one push of s1 that must succeed, intact.
push_ok() {
	local out rc
	on "$RCV" "rm -f $DST/s1" >/dev/null
	out=$(send "$2" /tmp/e2e-src/s1 "$RCV_IP" 2>&1); rc=$?
	if [ $rc = 0 ] &&
		[ "$(digest "$SND" /tmp/e2e-src/s1)" = "$(digest "$RCV" "$DST/s1")" ]; then
		return 0
	fi
	fail "$1" "push exit $rc: $(echo "$out" | tail -2)"
	return 1
}

# --- Idle connections hold no slot; the handshake deadline closes them --
recv_bg idle "-m 2 -T 60 --psk $KEY -o $DST" ||
	{ fail "receiver start" "did not listen"; exit 1; }
"$LAB" bg "$SND" idle2 -- "exec $IDLE 2 30"
await_log "$SND" idle2 "connected 2 of 2" ||
	fail "two idle connections" "idle.py could not connect"
t0=$(date +%s%N)
if push_ok "push past two idle connections" "--psk $KEY"; then
	took=$(ms_since "$t0")
	# Served while both idle connections were still open (no slot free
	# for it under the old rule), and in seconds, far from --timeout 60.
	if [ -z "$(closed_after idle2 0)$(closed_after idle2 1)" ] &&
		[ "$took" -lt 10000 ]; then
		ok "two idle connections on a -m 2 --psk receiver: a --psk push succeeds in $took ms"
	else
		fail "push past two idle connections" "took $took ms; idle: $(idle_out idle2 | tr '\n' ' ')"
	fi
fi
idle_wait idle2
a=$(closed_after idle2 0)
b=$(closed_after idle2 1)
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -ge 4 ] && [ "$a" -le 7 ] &&
	[ "$b" -ge 4 ] && [ "$b" -le 7 ]; then
	ok "idle connections closed at the handshake deadline (after $a and $b s, --timeout 60)"
else
	fail "handshake deadline" "closed after '$a' and '$b' s"
fi
"$LAB" log "$RCV" idle 2>&1 | grep -q "no AUTH (pre-shared key) from $SND_IP:[0-9]* within 5 s of connecting; closing" &&
	ok "the receiver says which peer sent no AUTH in 5 s" ||
	fail "handshake deadline message" "$("$LAB" log "$RCV" idle 2>&1 | grep -m1 error)"
"$LAB" signal "$RCV" idle TERM
recv_wait idle 30 >/dev/null || fail "receiver exit" "status $?"

# --- Per-address cap, and a stop with connections in their handshake ------
recv_bg cap "--max-per-address 3 -T 60 -o $DST" ||
	{ fail "receiver start" "did not listen"; exit 1; }
"$LAB" bg "$SND" idle4 -- "exec $IDLE 4 30"
await_log "$SND" idle4 "closed 3 after" 30 >/dev/null
c=$(closed_after idle4 3)
if [ "$c" = 0 ] && idle_out idle4 | grep -q "^closed 3 after .*, [1-9][0-9]* bytes" &&
	[ -z "$(closed_after idle4 0)" ]; then
	ok "per-address cap: the 4th connection with --max-per-address 3 is refused at once (ERR)"
else
	fail "per-address cap" "$(idle_out idle4 | tr '\n' ' ')"
fi
"$LAB" log "$RCV" cap 2>&1 | grep -q "refusing $SND_IP:[0-9]*: 3 connections from $SND_IP (--max-per-address 3)" &&
	ok "the receiver says why: 3 connections from $SND_IP" ||
	fail "per-address cap message" "$("$LAB" log "$RCV" cap 2>&1 | tail -2)"
"$LAB" signal "$RCV" cap TERM
out=$(recv_wait cap 30 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q "stopping 3 connection" &&
	ok "SIGTERM with 3 connections in their handshake: they are stopped, exit 0" ||
	fail "stop while handshaking" "exit $rc: $(echo "$out" | tail -2)"
"$LAB" signal "$SND" idle4 TERM 2>/dev/null
idle_wait idle4

# --- No zombies between connections -----------------------------------
recv_bg zomb "-m 2 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
n_ok=0
for i in 1 2 3; do
	push_ok "push $i of 3" "" && n_ok=$((n_ok + 1))
done
# Each child is reaped when it exits, not at the next accept.
if [ $n_ok = 3 ] && await_on "$RCV" 5 "[ \$(pgrep -c -f 'rdmapush [r]ecv -p $PORT') = 1 ] && ! ps -eo stat=,comm= | grep -q '^Z.*rdmapush'"; then
	ok "three pushes, no defunct rdmapush left on the receiver"
else
	fail "no zombies" "$n_ok pushes; $(on "$RCV" "ps -eo pid,stat,comm | grep rdmapush" | tr '\n' ' ')"
fi
"$LAB" signal "$RCV" zomb TERM
recv_wait zomb 30 >/dev/null || fail "receiver exit" "status $?"

# --- Out of descriptors: keep serving ------------------------------------
"$LAB" bg "$RCV" emfile -- "ulimit -n 32; exec $RP recv -p $PORT --max-per-address 64 --max-pending-per-prefix 64 -T 60 -o $DST"
await_listen "$RCV" || { fail "receiver start" "did not listen"; exit 1; }
"$LAB" bg "$SND" idle48 -- "exec $IDLE 48 8"
if await_log "$RCV" emfile "Too many open files; new connections wait" 20; then
	ok "ulimit -n 32 and 48 idle connections: the receiver runs out of descriptors and says so"
else
	fail "out of descriptors" "no such line from the receiver"
fi
idle_wait idle48
n=$("$LAB" log "$RCV" emfile 2>&1 | grep -c "Too many open files")
if push_ok "push after running out of descriptors" "" &&
	"$LAB" log "$RCV" emfile 2>&1 | grep -q "accepting connections again"; then
	ok "once they close, it accepts again and a push succeeds (shortage told $n time(s))"
fi
"$LAB" signal "$RCV" emfile TERM
recv_wait emfile 30 >/dev/null || fail "receiver exit" "status $?"

# --- recv --once stopped before any transfer -----------------------------
for sig in INT TERM; do
	recv_bg once "--once -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
	"$LAB" signal "$RCV" once $sig
	out=$(recv_wait once 30 2>&1); rc=$?
	# 130/143 once main maps RP_EINTERRUPTED; any non-zero until then.
	[ $rc != 0 ] && [ $rc -lt 124 -o $rc -ge 128 ] &&
		ok "recv --once stopped by SIG$sig before any transfer exits non-zero ($rc)" ||
		fail "recv --once SIG$sig" "exit $rc: $(echo "$out" | tail -1)"
done
done_testing
