#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# A hostile receiver (tests/e2e/fake_receiver.py): an MR reply shorter
# than promised, longer than an MR, with a length over the maximum,
# offering more than was asked, garbage, silence, a hang-up, an ERR whose
# text tries to rewrite the terminal (it must arrive escaped), or no ACK
# after FIN. The sender
# refuses each with a clear error and the documented exit code, in time.
. "$(dirname "$0")/lib.sh"

B_IP=$("$LAB" ip "$RCV")
mkdata "$SND" /tmp/e2e-src/h 100000 >/dev/null
T=5
check() {	# check MODE WANT-EXIT WANT-TEXT [FILE]
	local out rc t0 took file=${4:-/tmp/e2e-src/h}
	"$LAB" bg "$RCV" fake -- "exec python3 $TOP/tests/e2e/fake_receiver.py $PORT $B_IP $1"
	await_log "$RCV" fake listening ||
		fail "receiver sends $1: fake in place" "fake_receiver.py never said 'listening'"
	t0=$(date +%s)
	out=$(send "-T $T -c 64K -w 4" "$file" "$RCV_IP" 2>&1); rc=$?
	took=$(( $(date +%s) - t0 ))
	"$LAB" signal "$RCV" fake KILL >/dev/null 2>&1
	"$LAB" wait "$RCV" fake >/dev/null 2>&1
	# Whatever the peer said, no raw ESC reaches our terminal.
	if [ $rc = "$2" ] && echo "$out" | grep -q -- "$3" &&
	   ! printf '%s' "$out" | grep -q $'\x1b' && [ $took -le $((T + 5)) ]; then
		ok "receiver sends $1: sender exit $rc in $took s ('$3')"
	else
		fail "receiver sends $1" "exit $rc after $took s: $(echo "$out" | tail -2 | tr '\n' ' ')"
	fi
}
check short-mr 4 "timed out"
check long-mr 3 "malformed MR"
check overflow-len 3 "bad control message header from .*: payload too long"
check bigger-window 3 "outside the requested"
check garbage 3 "is not an rdmapush peer (it sent: HTTP/1.1 200)"
check silent 4 "timed out after $T s waiting for MR"
check close 4 "closed the control connection"
check escape-err 3 '\\u{001b}\[2J\\u{001b}\[32mall good\\u{000d}\\u{000a}rdmapush send: sent h\\u{000a}\\u{202e}evil\\x9b'
# A directory needs no RDMA Write (an empty file is one zero-length
# Write, which the fake's MR cannot take), so the fake's MR is enough to
# reach FIN; then it never acknowledges.
on "$SND" "mkdir -p /tmp/e2e-src/emptydir" >/dev/null
check no-ack 4 "push failed in FIN: no credit or answer from .* for $T s" "-r /tmp/e2e-src/emptydir"
done_testing
