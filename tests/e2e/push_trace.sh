#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: one two
# --trace shows the QP driven RESET->INIT->RTR->RTS on both sides and the
# control messages HELLO, MR, FILE, FEND, FACK, FIN, ACK in order; --json
# is one valid JSON object per line: the entry's, then the session's.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-trace
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/traced 200000 >/dev/null
recv_bg trace "--once -t -J -o $DST >/tmp/e2e-recv.json" || { fail "receiver start" "did not listen"; exit 1; }
snd=$(send "-t -J -c 64K" /tmp/e2e-src/traced "$RCV_IP" ">/tmp/e2e-send.json" 2>&1)
src=$?
rcv=$(recv_wait trace 2>&1)
rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] && ok "traced push succeeded" ||
	fail "traced push" "sender $src, receiver $rrc"

# in_order TEXT PATTERN...: each pattern matches a later line than the last.
in_order() {
	local text=$1 line=0 n
	shift
	for p in "$@"; do
		n=$(echo "$text" | grep -n -E -e "$p" | cut -d: -f1 |
			awk -v after="$line" '$1 > after { print; exit }')
		[ -n "$n" ] || { echo "missing after line $line: $p"; return 1; }
		line=$n
	done
}

for side in send recv; do
	if [ $side = send ]; then t=$snd; else t=$rcv; fi
	if why=$(in_order "$t" 'QP .*created' '-> INIT' '-> RTR' '-> RTS'); then
		ok "$side trace: QP RESET->INIT->RTR->RTS in order"
	else
		fail "$side trace: QP transitions" "$why"
	fi
	if why=$(in_order "$t" 'state now INIT' 'state now RTR' 'state now RTS'); then
		ok "$side trace: each state read back with ibv_query_qp"
	else
		fail "$side trace: state read back" "$why"
	fi
	# The sender does not wait for a FACK before its FIN (pipelined).
	if [ $side = send ]; then
		why=$(in_order "$t" '-> HELLO' '<- MR' '-> FILE id=0 ' \
			'-> FEND id=0 ' '-> FIN files=1 ' '<- ACK') &&
			why=$(in_order "$t" '-> FEND id=0 ' '<- FACK id=0 ' '<- ACK')
	else
		why=$(in_order "$t" '<- HELLO' '-> MR' '<- FILE id=0 ' \
			'<- FEND id=0 ' '-> FACK id=0 ' '<- FIN files=1 ' '-> ACK')
	fi
	[ $? -eq 0 ] && ok "$side trace: HELLO, MR, FILE, FEND, FACK, FIN, ACK in order" ||
		fail "$side trace: control messages" "$why"
	# stdout went to a file of its own, apart from the trace on stderr.
	json=$(on "$([ $side = send ] && echo "$SND" || echo "$RCV")" "cat /tmp/e2e-$side.json")
	if echo "$json" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert len(objs) == 2, f"{len(objs)} objects, want 2"
e, d = objs
assert e["type"] == "entry" and e["path"] == "traced" and e["status"] == "ok" and e["bytes"] == 200000, e
assert d["type"] == "session" and d["status"] == "ok" and d["bytes"] == 200000, d
assert (d["files"], d["failed"], d["skipped"]) == (1, 0, 0), d
assert len(d["xxh3_128"]) == 32 and d["local_qpn"] > 0, d' 2>&1; then
		ok "$side --json: the entry object, then the session object with counts, checksum, QPNs"
	else
		fail "$side --json" "not the expected object: $json"
	fi
done
echo "$snd" | grep -E 'verbs|ctrl' | head -60 >/tmp/rdmapush-last-trace.txt
done_testing
