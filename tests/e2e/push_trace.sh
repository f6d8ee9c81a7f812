#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: one two
# --trace shows the QP driven RESET->INIT->RTR->RTS on both sides and the
# control messages HELLO, MR, FILE, FEND, FACK, FIN, ACK in order; --json
# is one valid JSON object per line: the entry's, then the session's. The
# checksum both sides report is protocol version 4's, as tests/e2e/wire.py
# computes it on the host from the same bytes.
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
	if why=$(in_order "$t" 'QP .*created' '-> INIT' '-> RTR' \
		'RTR -> RTS: .*timeout=17 \(537 ms per try\)'); then
		ok "$side trace: QP RESET->INIT->RTR->RTS in order, a transfer's ACK timeout (537 ms)"
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
		# A small file waits for a batch's sync, which may come
		# after FIN: its FACK is between its FEND and ACK.
		why=$(in_order "$t" '<- HELLO' '-> MR' '<- FILE id=0 ' \
			'<- FEND id=0 ' '<- FIN files=1 ' '-> ACK') &&
			why=$(in_order "$t" '<- FEND id=0 ' '-> FACK id=0 ' '-> ACK')
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
assert len(d["xxh3_128"]) == 32 and d["local_qpn"] > 0, d
assert 0 < d["data_seconds"] <= d["seconds"], d' 2>&1; then
		ok "$side --json: the entry object, then the session object with counts, checksum, QPNs, data_seconds within seconds"
	else
		fail "$side --json" "not the expected object: $json"
	fi
done
echo "$snd" | grep -E 'verbs|ctrl' | head -60 >/tmp/rdmapush-last-trace.txt

# The file checksum, end to end: three whole 256 KiB chunks and a short
# one. Both sides' --json xxh3_128 must be wire.py's file_csum of the
# source's bytes at the agreed chunk, computed on the host from a copy
# in the lab's shared directory.
CHUNK=262144
SIZE=$((3 * CHUNK + 1000))
COPY=$SHARE/push_trace.$$.chunked
mkdata "$SND" /tmp/e2e-src/chunked $SIZE >/dev/null &&
	on "$SND" "cp /tmp/e2e-src/chunked $COPY" >/dev/null ||
	fail "checksum: source" "could not make it or copy it to $COPY"
want=$("$PYTHON3" -c 'import sys
sys.path.insert(0, sys.argv[1])
import wire
print(wire.file_csum(open(sys.argv[2], "rb").read(), int(sys.argv[3])).hex())' \
	"$TOP/tests/e2e" "$COPY" $CHUNK 2>&1)
# Version 3's checksum (the bytes as one stream), only to name it if it
# comes back. xxhsum's progress line goes to stderr.
stream=$(xxhsum -H2 "$COPY" 2>/dev/null | cut -d' ' -f1)
rm -f "$COPY"
recv_bg csum "--once -J -o $DST >/tmp/e2e-recv-csum.json" || { fail "checksum: receiver start" "did not listen"; done_testing; }
send "-J -c 256K" /tmp/e2e-src/chunked "$RCV_IP" ">/tmp/e2e-send-csum.json" >/dev/null 2>&1
src=$?
recv_wait csum >/dev/null 2>&1
rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] && ok "checksum: push of $SIZE bytes in ${CHUNK}-byte chunks succeeded" ||
	fail "checksum: push" "sender $src, receiver $rrc"
for side in send recv; do
	json=$(on "$([ $side = send ] && echo "$SND" || echo "$RCV")" "cat /tmp/e2e-$side-csum.json")
	# The session object: the agreed chunk, and its one file's checksum.
	got=$(echo "$json" | python3 -c '
import json, sys
d = [json.loads(l) for l in sys.stdin.read().splitlines()][-1]
assert d["type"] == "session" and d["bytes"] == int(sys.argv[1]), d
print(d["chunk"], d.get("xxh3_128"))' $SIZE 2>&1)
	if [ "$got" = "$CHUNK $want" ]; then
		ok "$side --json: xxh3_128 is the version 4 checksum (XXH3-128 of the chunks' XXH3-128s), as wire.py computes it"
	elif [ "$got" = "$CHUNK $stream" ]; then
		fail "$side --json: version 4 checksum" "xxh3_128 $stream is the XXH3-128 of the bytes as one stream (version 3), not $want"
	else
		fail "$side --json: version 4 checksum" "chunk and xxh3_128 '$got', want '$CHUNK $want'"
	fi
done
done_testing
