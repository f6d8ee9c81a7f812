#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# --capture FILE.pcap: a 4 MiB --op write push captured on both sides.
# Each capture decodes, in rdmapush render --packets and in tshark's
# InfiniBand dissector, to the same sequence of opcodes, destination QPs
# and PSNs; every packet's destination QP is one of the session's (its
# --trace-json qp.create and RTR events); the RDMA WRITE packets carry
# the whole file, ending in a WRITE ... Last with Immediate, and the ACKs
# are there; each file is mode 0600 with no temporary left beside it.
# The trace tells the first messages on the wire, one line each.
# A ping alongside, captured too, shows in neither capture of the push,
# nor the push in its own. As nobody (no CAP_NET_RAW), --capture fails
# with one line and a hint, exit 2, before it connects: the receiver
# hears nothing.
. "$(dirname "$0")/lib.sh"

SIZE=$((4 << 20))
DST=/tmp/e2e-cap
OUT=$SHARE/e2e-capture
rm -rf "$OUT" && mkdir -p "$OUT" && chmod 777 "$OUT"
tmp=$(mktemp -d /tmp/e2e-capture.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/cap4m "$SIZE" >/dev/null
recv_bg cap "--once -o $DST --capture /tmp/e2e-cap-recv.pcap --trace-json /tmp/e2e-cap-recv.jsonl" ||
	{ fail "receiver start" "did not listen"; done_testing; }
# A ping between the same two hosts all along the push, with a capture
# of its own: each capture must hold its session's QPs only. The push
# starts once the ping's capture file is there (its QP is about to
# connect); 1500 round trips outlast a 4 MiB push several times.
PING_PORT=$((PORT + 1))
"$LAB" bg "$RCV" pings -- "exec $RP ping --server --once -p $PING_PORT"
on "$RCV" "for i in \$(seq 100); do ss -ltn | grep -q ':$PING_PORT ' && exit 0; sleep 0.1; done; exit 1" ||
	fail "ping server start" "did not listen"
"$LAB" bg "$SND" ping -- "exec $RP ping -p $PING_PORT -n 1500 --capture /tmp/e2e-cap-ping.pcap --trace-json /tmp/e2e-cap-ping.jsonl $RCV_IP"
await_on "$SND" 30 "ls /tmp/e2e-cap-ping.pcap.?????? >/dev/null 2>&1" ||
	fail "ping capture start" "no capture file after 30 s"
snd=$(on "$SND" "$RP send -p $PORT --op write --capture /tmp/e2e-cap-send.pcap --trace-json /tmp/e2e-cap-send.jsonl /tmp/e2e-src/cap4m $RCV_IP" 2>&1)
src=$?
rcv=$(recv_wait cap 2>&1)
rrc=$?
if [ $src -eq 0 ] && [ $rrc -eq 0 ] &&
	[ "$(digest "$SND" /tmp/e2e-src/cap4m)" = "$(digest "$RCV" "$DST/cap4m")" ]; then
	ok "4 MiB --op write push with --capture on both sides"
else
	fail "push with --capture" "sender $src, receiver $rrc: $snd $rcv"
fi
for side in send recv; do
	text=$([ $side = send ] && echo "$snd" || echo "$rcv")
	node=$([ $side = send ] && echo "$SND" || echo "$RCV")
	mode=$(on "$node" "stat -c %a /tmp/e2e-cap-$side.pcap; ls /tmp/e2e-cap-$side.pcap.* 2>/dev/null")
	if echo "$text" | grep -q "^rdmapush $side: capture: [0-9]* packets of this session in /tmp/e2e-cap-$side.pcap$" &&
		! echo "$text" | grep -q "dropped" && [ "$mode" = 600 ]; then
		ok "$side: one line says how many packets the capture holds, none dropped; mode 0600, no file left beside it"
	else
		fail "$side: capture line and file" "$text; mode and leftovers: $mode"
	fi
done

pingo=$("$LAB" wait "$SND" ping --timeout 120 2>&1)
prc=$?
"$LAB" wait "$RCV" pings --timeout 30 >/dev/null 2>&1
if [ $prc -eq 0 ] &&
	echo "$pingo" | grep -q "^rdmapush ping: capture: [0-9]* packets"; then
	ok "ping with --capture beside the push"
else
	fail "ping with --capture" "exit $prc: $pingo"
fi

# The captures and traces to the host, where the comparison runs.
on "$SND" "cp /tmp/e2e-cap-send.pcap /tmp/e2e-cap-send.jsonl /tmp/e2e-cap-ping.pcap /tmp/e2e-cap-ping.jsonl $OUT/"
on "$RCV" "cp /tmp/e2e-cap-recv.pcap /tmp/e2e-cap-recv.jsonl $OUT/"

# ours PCAP: "OPCODE QPN PSN" in decimal per packet, from render --packets.
ours() {
	"$RP" render --packets "$1" |
		sed -E 's/.*\(0x(..)\) qp 0x(......) psn 0x(......).*/\1 \2 \3/' |
		while read -r op qp psn; do
			printf '%d %d %d\n' "0x$op" "0x$qp" "0x$psn"
		done
}
# theirs PCAP: the same from tshark's fields.
theirs() {
	tshark -r "$1" -T fields -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e infiniband.bth.psn 2>/dev/null |
		while read -r op qp psn; do
			printf '%d %d %d\n' "$op" "$qp" "$psn"
		done
}

# span PCAP: the times of its first and last frame (the pcap record
# headers), to see that two captures of one node overlap.
span() {
	"$PYTHON3" - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, ts = 24, []
while off + 16 <= len(b):
    sec, usec, incl, _ = struct.unpack_from("<IIII", b, off)
    ts.append(sec + usec / 1e6)
    off += 16 + incl
print("%.6f %.6f" % (ts[0], ts[-1]) if ts else "0 0")
EOF
}
read -r p0 p1 <<<"$(span "$OUT/e2e-cap-ping.pcap")"
read -r s0 s1 <<<"$(span "$OUT/e2e-cap-send.pcap")"
if awk -v p0="$p0" -v p1="$p1" -v s0="$s0" -v s1="$s1" \
	'BEGIN { exit !(p0 < s0 && s1 < p1) }'; then
	ok "the ping's packets flowed all along the push's ($p0..$p1 around $s0..$s1)"
else
	fail "ping and push overlap" "ping $p0..$p1, push $s0..$s1"
fi

for side in send recv ping; do
	pcap=$OUT/e2e-cap-$side.pcap
	ours "$pcap" >"$tmp/$side.ours"
	theirs "$pcap" >"$tmp/$side.theirs"
	n=$(grep -c '' "$tmp/$side.ours")
	if [ "$n" -gt "$([ $side = ping ] && echo 4000 || echo 4096)" ] && cmp -s "$tmp/$side.ours" "$tmp/$side.theirs"; then
		ok "$side: $n packets, the same opcodes, QPs and PSNs in our decoder and tshark"
	else
		fail "$side: ours and tshark's" "$n packets; $(diff "$tmp/$side.ours" "$tmp/$side.theirs" | head -5 | tr '\n' ' ')"
	fi
	# The session's QPNs: ours at qp.create, the peer's at RTR.
	qpns=$(grep -oE '"(qpn|dest_qpn)":[0-9]+' "$OUT/e2e-cap-$side.jsonl" |
		cut -d: -f2 | sort -u | tr '\n' ' ')
	stray=$(cut -d' ' -f2 "$tmp/$side.ours" | sort -u | while read -r q; do
		case " $qpns" in *" $q "*) ;; *) echo "$q" ;; esac
	done)
	if [ -n "$qpns" ] && [ -z "$stray" ]; then
		ok "$side: every packet's destination QP is the session's ($qpns)"
	else
		fail "$side: destination QPs" "session's: '$qpns', others: $stray"
	fi
	[ $side = ping ] && continue
	# The file's bytes in WRITE packets (a retransmission counts twice:
	# at least SIZE), a Last with Immediate, and ACKs.
	"$RP" render --packets "$pcap" >"$tmp/$side.lines"
	bytes=$(grep ' RDMA WRITE ' "$tmp/$side.lines" |
		sed -E 's/.* data ([0-9]+)$/\1/' | awk '{ s += $1 } END { print s + 0 }')
	if [ "$bytes" -ge "$SIZE" ] &&
		grep -q ' RDMA WRITE Last with Immediate (0x09) .* A imm ' "$tmp/$side.lines" &&
		grep -q ' Acknowledge (0x11) .* aeth ACK ' "$tmp/$side.lines"; then
		ok "$side: RDMA WRITE packets carry $bytes bytes, Last with Immediate and ACKs decoded"
	else
		fail "$side: packet contents" "$bytes bytes of WRITE data"
	fi
done

# With a trace on, the capture tells the first messages it saw, one
# line each: the first 1 MiB Write is 1,024 packets of the lab's 1,024
# byte MTU, from the PSN its first packet has in the capture.
wire=$(grep '"kind":"wire.msg"' "$OUT/e2e-cap-send.jsonl" | head -n 1)
psn=$(awk '$1 == 6 { print $3; exit }' "$tmp/send.ours")
if echo "$wire" | grep -Eq '"text":"RDMA WRITE First\.\.\.Last with Immediate, 1,024 packets, PSN 0x[0-9a-f]{6}-0x[0-9a-f]{6}, QP 0x[0-9a-f]{6}, [0-9]+ ACKs"' &&
	echo "$wire" | grep -q "\"psn_first\":$psn," &&
	grep -q '"kind":"wire.more"' "$OUT/e2e-cap-send.jsonl"; then
	ok "the trace tells the first messages on the wire: the first Write is 1,024 packets from PSN $psn"
else
	fail "wire lines in the trace" "first PSN $psn; $wire"
fi

# Without CAP_NET_RAW: as nobody, against a receiver that must hear
# nothing.
recv_bg nocap "--once -t -o $DST --force" ||
	{ fail "receiver start" "did not listen"; done_testing; }
err=$(on "$SND" "setpriv --reuid nobody --regid nogroup --clear-groups --inh-caps=-all $RP send -p $PORT --capture /tmp/e2e-nocap.pcap /tmp/e2e-src/cap4m $RCV_IP 2>&1 >/dev/null; echo rc=\$?")
"$LAB" signal "$RCV" nocap TERM >/dev/null 2>&1
log=$(recv_wait nocap 2>&1)
if echo "$err" | grep -q "^rdmapush send: push failed: --capture needs CAP_NET_RAW" &&
	echo "$err" | grep -q "^rdmapush send: hint: .*setcap cap_net_raw+ep" &&
	[ "$(echo "$err" | grep -c '^rdmapush')" = 2 ] &&
	echo "$err" | grep -q '^rc=2$' && ! echo "$log" | grep -q 'HELLO'; then
	ok "without CAP_NET_RAW: one line and a hint, exit 2, nothing sent to the receiver"
else
	fail "without CAP_NET_RAW" "$err / receiver: $(echo "$log" | tail -3)"
fi
rm -rf "$OUT"
done_testing
