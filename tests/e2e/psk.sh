#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# --psk: the right key pushes; a wrong or missing key on either side is
# refused (the sender exits 3; a --once receiver listens on), before the
# receiver creates a QP, registers memory or opens a file. rdmapush keygen makes a key that pushes; a key file
# others can read, or a short one, is refused with exit 2. A party in
# the path without the key, relaying a genuine AUTH, cannot forge the MR
# or the ACK: the sender exits 3 and nothing is committed.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-psk
for n in $SND $RCV; do
	on $n "rm -f /tmp/k-good /tmp/k-bad /tmp/k-gen /tmp/k-open /tmp/k-short; umask 077; printf 'correct horse battery staple, 32' > /tmp/k-good; printf 'wrong horse battery staple!! 32b' > /tmp/k-bad" >/dev/null
done
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/secret 100000 >/dev/null

recv_bg psk1 "--once -t --psk /tmp/k-good -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
send "--psk /tmp/k-good" /tmp/e2e-src/secret "$RCV_IP" >/dev/null 2>&1; src=$?
recv_wait psk1 >/dev/null; rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] &&
	[ "$(digest "$SND" /tmp/e2e-src/secret)" = "$(digest "$RCV" "$DST/secret")" ] &&
	ok "same key on both sides: pushed byte-identical" ||
	fail "same key" "sender $src, receiver $rrc"
on "$RCV" "rm -f $DST/secret" >/dev/null

refused() {	# refused LABEL SEND-OPTS RECV-OPTS EXPECTED-SENDER-TEXT
	local out rout src rrc listening
	recv_bg psk2 "--once -t $3 -o $DST" || { fail "$1" "receiver did not listen"; return; }
	out=$(send "$2" /tmp/e2e-src/secret "$RCV_IP" 2>&1); src=$?
	# --once counts only a push past its handshake: a refused one is
	# logged, and the receiver listens on until it is stopped.
	await_log "$RCV" psk2 "no push, ignored" 10 >/dev/null; logged=$?
	"$LAB" signal "$RCV" psk2 TERM
	rout=$(recv_wait psk2 30 2>&1); rrc=$?
	if [ $src -eq 3 ] && [ $logged -eq 0 ] && [ $rrc -eq 143 ] &&
	   echo "$out" | grep -q "$4"; then
		ok "$1: the sender exits 3 ('$4'); the --once receiver logs it, listens on, and stops at SIGTERM"
	else
		fail "$1" "sender $src, receiver $rrc (logged: $logged): $(echo "$out" | grep failed)"
	fi
	if echo "$rout" | grep -Eq 'QP .*created|MR registered|reg_mr'; then
		fail "$1: nothing allocated" "receiver created RDMA objects"
	else
		ok "$1: receiver created no QP and registered no memory"
	fi
	[ -z "$(entries "$RCV" "$DST")" ] && ok "$1: no file created" ||
		fail "$1: no file" "$(entries "$RCV" "$DST")"
}
refused "wrong key" "--psk /tmp/k-bad" "--psk /tmp/k-good" "pre-shared key"
refused "sender without key" "" "--psk /tmp/k-good" "authentication failed"
refused "receiver without key" "--psk /tmp/k-good" "" "authentication failed"

# keygen: 32 bytes, 0600, never replaced; the key pushes.
on "$SND" "$RP keygen /tmp/k-gen" >/dev/null 2>&1; krc=$?
kst=$(on "$SND" "stat -c '%a %s' /tmp/k-gen" 2>&1)
[ $krc -eq 0 ] && [ "$kst" = "600 32" ] &&
	ok "keygen: a 32-byte key, mode 0600" ||
	fail "keygen" "exit $krc, mode and size '$kst'"
out=$(on "$SND" "$RP keygen /tmp/k-gen" 2>&1); krc=$?
[ $krc -eq 2 ] && echo "$out" | grep -q "file exists" &&
	ok "keygen: an existing file is not replaced (exit 2)" ||
	fail "keygen over a key" "exit $krc: $out"
if [ "$SND" != "$RCV" ]; then
	b64=$(on "$SND" "base64 -w0 /tmp/k-gen")
	on "$RCV" "umask 077; echo $b64 | base64 -d > /tmp/k-gen" >/dev/null
fi
recv_bg psk3 "--once --psk /tmp/k-gen -o $DST" || fail "keygen push" "receiver did not listen"
send "--psk /tmp/k-gen" /tmp/e2e-src/secret "$RCV_IP" >/dev/null 2>&1; src=$?
recv_wait psk3 >/dev/null; rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] &&
	[ "$(digest "$SND" /tmp/e2e-src/secret)" = "$(digest "$RCV" "$DST/secret")" ] &&
	ok "keygen's key on both sides: pushed byte-identical" ||
	fail "keygen's key" "sender $src, receiver $rrc"
on "$RCV" "rm -f $DST/secret" >/dev/null

# Key files others can read, or too short: exit 2, before connecting.
on "$SND" "umask 077; cp /tmp/k-good /tmp/k-open; chmod 644 /tmp/k-open; head -c 31 /tmp/k-good > /tmp/k-short" >/dev/null
out=$(send "--psk /tmp/k-open" /tmp/e2e-src/secret "$RCV_IP" 2>&1); src=$?
[ $src -eq 2 ] && echo "$out" | grep -q "permissions 0644 are too open; chmod 600 /tmp/k-open" &&
	ok "a 0644 key file is refused (exit 2)" || fail "0644 key" "exit $src: $out"
out=$(send "--psk /tmp/k-short" /tmp/e2e-src/secret "$RCV_IP" 2>&1); src=$?
[ $src -eq 2 ] && echo "$out" | grep -q "31 bytes; a key needs at least 32" &&
	ok "a 31-byte key is refused (exit 2)" || fail "short key" "exit $src: $out"

# A party in the path (fake_receiver.py on $PORT) in front of the real
# receiver (on $PORT + 1): it relays AUTH, then forges.
UP=$((PORT + 1))
# The receiver's side: with mitm-mr its handshake never ends (the
# party withholds the HELLO), which is no push to a --once receiver: it
# says so and goes on listening; with mitm-ack the push was its one, and
# fails.
mitm() {	# mitm MODE WANT-SENDER-TEXT fails|listens
	local out rout src rrc listening
	"$LAB" bg "$RCV" real -- "exec $RP recv -p $UP -T 5 --once --psk /tmp/k-good -o $DST"
	await_on "$RCV" 10 "ss -ltn | grep -q ':$UP '" ||
		{ fail "$1" "the real receiver did not listen"; return; }
	"$LAB" bg "$RCV" fake -- "exec python3 $TOP/tests/e2e/fake_receiver.py $PORT $RCV_IP $1 $UP"
	await_log "$RCV" fake listening || { fail "$1" "no fake"; return; }
	out=$(send "-T 5 --psk /tmp/k-good" /tmp/e2e-src/secret "$RCV_IP" 2>&1); src=$?
	if [ "$3" = listens ]; then
		await_log "$RCV" real "no push, ignored" 20 >/dev/null
		listening=$(on "$RCV" "ss -ltn | grep -c ':$UP '")
		"$LAB" signal "$RCV" real TERM >/dev/null 2>&1
	fi
	rout=$("$LAB" wait "$RCV" real --timeout 30 2>&1); rrc=$?
	"$LAB" signal "$RCV" fake KILL >/dev/null 2>&1
	"$LAB" wait "$RCV" fake >/dev/null 2>&1
	if [ $src -eq 3 ] && echo "$out" | grep -q "$2"; then
		ok "$1: the sender exits 3 ('$2')"
	else
		fail "$1" "sender $src: $(echo "$out" | grep error)"
	fi
	if [ "$3" = listens ]; then
		[ "$listening" = 1 ] && echo "$rout" | grep -q "no push, ignored" &&
			[ -z "$(entries "$RCV" "$DST")" ] &&
			ok "$1: the receiver says the handshake was no push, listens on, commits nothing" ||
			fail "$1: receiver" "listening: $listening, files: $(entries "$RCV" "$DST"): $(echo "$rout" | tail -2)"
		return
	fi
	[ $rrc -ne 0 ] && [ $rrc -ne 124 ] && [ -z "$(entries "$RCV" "$DST")" ] &&
		ok "$1: the receiver fails (exit $rrc) and commits nothing" ||
		fail "$1: receiver" "exit $rrc, files: $(entries "$RCV" "$DST")"
}
mitm mitm-mr "failed its integrity check (altered, replayed or reordered): MR" listens
mitm mitm-ack "failed its integrity check (altered, replayed or reordered): ACK" fails
done_testing
