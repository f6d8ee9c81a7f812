#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# --psk: the right key pushes; a wrong or missing key on either side is
# refused with exit 3, before the receiver creates a QP, registers memory
# or opens a file.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-psk
for n in $SND $RCV; do
	on $n "printf 'correct horse battery staple' > /tmp/k-good; printf 'wrong horse battery staple!!' > /tmp/k-bad" >/dev/null
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
	local out rout src rrc
	recv_bg psk2 "--once -t $3 -o $DST" || { fail "$1" "receiver did not listen"; return; }
	out=$(send "$2" /tmp/e2e-src/secret "$RCV_IP" 2>&1); src=$?
	rout=$(recv_wait psk2 2>&1); rrc=$?
	if [ $src -eq 3 ] && [ $rrc -eq 3 ] && echo "$out" | grep -q "$4"; then
		ok "$1: both sides exit 3 ('$4')"
	else
		fail "$1" "sender $src, receiver $rrc: $(echo "$out" | grep error)"
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
done_testing
