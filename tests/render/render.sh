#!/bin/sh
# SPDX-License-Identifier: MIT
# rdmapush render, run by `make check`: each fixture pair of tests/render
# (hand-made after docs/trace.md: 1-QP push, 2-QP and 8-QP pushes, a
# failed session with ERR, 400 files, a push interrupted after 308
# chunks; and three pairs from the lab) renders to well-formed XML
# holding both lifelines, the QP state bands of both sides, the message
# arrows with their QPN, PSN and rkey, the data block and the object
# markers; a peer's path with <script> and & stays escaped; 1200
# FILE/FEND/FACK become one block. The data block sits where the first
# chunk left, above FEND, FIN, FACK and the teardown, with the figures
# of data.summary; without one it says what it knows, and an interrupted
# push says so. Bad input gets its documented exit status and names the
# file (and line) in one line: 5 unreadable or unwritable, 3 not JSON /
# no v or kind / schema version 2 / no HELLO / two traces that are not
# one session (one side twice, a ping against a push, 1 QP against 2,
# another HELLO), 2 usage; a failed render leaves the old output whole.
# A chain's three traces (the middle one a relay's, both its sessions in
# one file) draw three lifelines, each pair's arrows, data block and QP
# bands between its two; two of them draw that pair alone; a chain out
# of order, a middle trace without a relay session (or none in the pid
# drawn) and more than 8 traces are refused.
#
# usage: tests/render/render.sh   (from make check: srcdir, ./rdmapush)

top=${srcdir:-$(dirname "$0")/../..}
fx=$top/tests/render
bin=$(pwd)/rdmapush
[ -x "$bin" ] && [ -f "$fx/push1.send.jsonl" ] ||
	{ echo "render: $bin or $fx/push1.send.jsonl missing" >&2; exit 99; }
command -v python3 >/dev/null || { echo "render: python3 missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-render.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "render: ok $*"; }
bad() { echo "render: FAIL $*"; fail=1; }

# check SVG WHAT...: python3 asserts on the parsed SVG (see below).
check() {
	svg=$1
	shift
	if python3 "$fx/check_svg.py" "$svg" "$@" >"$tmp/check.out" 2>&1; then
		ok "$(basename "$svg"): $*"
	else
		bad "$(basename "$svg"): $(cat "$tmp/check.out")"
	fi
}

for n in push1 push2 push8 failed many interrupted lab-qps2 lab-exists \
	lab-ping; do
	if "$bin" render "$fx/$n.send.jsonl" "$fx/$n.recv.jsonl" \
		-o "$tmp/$n.svg" 2>"$tmp/$n.err"; then
		ok "$n renders"
	else
		bad "$n: exit $?: $(cat "$tmp/$n.err")"
	fi
done
check "$tmp/push1.svg" lifelines bands:send:0:RESET,INIT,RTR,RTS,ERROR \
	bands:recv:0:RESET,INIT,RTR,RTS,ERROR arrows:HELLO,MR,FILE,FEND,FACK,FIN,ACK \
	"text:HELLO  qpn 0x11  psn 0x5a3f21" "text:MR  rkey 0x1a2c  qpn 0x22  psn 0xc0ffee" \
	"text:addr 0x7f3a5c000000 · len 8.0 MiB" "text:dest_qpn 0x22 · rq_psn 0xc0ffee" \
	"text:DATA PHASE (RDMA)" "text:10.0 MiB in 10 chunks" \
	"text:10 credits received" "text:10 credits sent" \
	"objs:send:pd,mr,cq,qp,device" "objs:recv:pd,mr,cq,qp,device" \
	"text:MR registered: rkey 0x1a2c" "text:LOCAL_WRITE|REMOTE_WRITE" \
	"text:CQ created, cqe 17" "text:QP0 created: qpn 0x11, RESET" \
	"text:FIN  1 file, 10.0 MiB" "text:ACK status 0 (OK), 10.0 MiB" \
	"text:ended with ACK: status 0 (OK)" "text:qps 1 · total 10." \
	datapos:FILE:FEND,FACK,FIN,ACK,band:ERROR
check "$tmp/push2.svg" lifelines bands:send:1:RESET,INIT,RTR,RTS \
	bands:recv:1:RESET,INIT,RTR,RTS "text:HELLO  qpn 0x11,0x12  psn 0x5a3f21,0x5a5032" \
	"text:MR  rkey 0x1a2c  qpn 0x22,0x32  psn 0xc0ffee,0x..." \
	"text:QP0–1 INIT → RTR" "text:QP0: dest_qpn 0x22" \
	"text:QP0–1 created: qpn 0x11…0x12, RESET" "text:QP0–1 destroyed (qpn 0x22…0x32)"
check "$tmp/push8.svg" lifelines bands:send:7:RESET,INIT,RTR,RTS,ERROR \
	bands:recv:7:RESET,INIT,RTR,RTS,ERROR "text:QP0–7 RTR → RTS" \
	"text:QP0–7 created: qpn 0x11…0x18, RESET" "text:MR registered: rkey 0x1a2b, lkey 0x1a2b"
check "$tmp/failed.svg" lifelines arrows:HELLO,MR,FILE,ERR \
	bands:send:0:RTS,ERROR bands:recv:0:RTS,ERROR \
	"text:ERR status 6 (EXIST), 0 B" "text:ended with ERR: status 6 (EXIST)" \
	"text:in/<script>alert('x')</script> & <b>bold</b>.txt" \
	"text:error: refusing in/<script>alert('x')</script>" noscript
check "$tmp/many.svg" "text:FILE/FEND/FACK × 1200" \
	"text:400 acknowledged, 0 failed" noarrow:FILE arrows:FIN,ACK \
	"text:first tree/d01/f0001.txt · last tree/d09/f0400.txt" maxbytes:200000
# Real traces, written by rdmapush --trace-json in the lab (two guests,
# Soft-RoCE): a push over 2 QPs, and one the receiver refused (file
# exists, FACK status 1).
check "$tmp/lab-qps2.svg" lifelines bands:send:1:RESET,INIT,RTR,RTS,ERROR \
	bands:recv:1:RESET,INIT,RTR,RTS,ERROR arrows:HELLO,MR,FILE,FEND,FACK,FIN,ACK \
	"text:HELLO  qpn 0x11,0x12  psn 0xdbec69,0xae29fe" "text:MR  rkey 0x203  qpn 0x11,0x12" \
	"text:293.0 KiB in 5 chunks" "text:sender: 5 chunks, 1 file," "text:receiver: 5 chunks" \
	"objs:send:pd,mr,cq,qp,device" "objs:recv:pd,mr,cq,qp,device" \
	"text:QP0–1 → ERROR (flushes their work)" "text:ended with ACK: status 0 (ok)" \
	datapos:FILE:FEND,FIN,FACK,ACK,band:ERROR
check "$tmp/lab-exists.svg" lifelines "text:FACK status 1 (file exists), 0 B" \
	"text:but a FACK refused 1 file" "text:error: data: file exists (use --force on the"
# A ping's two traces (rdmapush ping --op write -n 20, --trace-json at
# both ends, one guest): client and server, its round trips' block.
check "$tmp/lab-ping.svg" lifelines bands:send:0:RESET,INIT,RTR,RTS,ERROR \
	bands:recv:0:RESET,INIT,RTR,RTS,ERROR arrows:HELLO,MR,FIN,ACK \
	"text:rdmapush ping: the client times round trips, the server answers" \
	"text:CLIENT" "text:SERVER" "text:ROUND TRIPS (RDMA)" \
	"text:20 round trips of 2 B, --op write" "text:FIN  20 round trips" \
	"text:ACK  20 round trips answered" "text:ended with ACK: status 0 (ok)" \
	"text:window 1 · qps 1 · 20 round trips" "notext:total 20 B" \
	datapos:MR:FIN,ACK,band:ERROR
# Stopped by a signal after 308 chunks (4 of each work request traced,
# no data.summary): the block says so, with datapath.summary's count,
# where the first chunk left, not below the ERR and the teardown.
check "$tmp/interrupted.svg" lifelines arrows:HELLO,MR,FILE,ERR \
	"text:DATA PHASE (RDMA), INTERRUPTED" "text:interrupted after 308 chunks posted" \
	"text:at least 256 credited by the receiver" \
	"text:no data.summary (a push cut short has none): no rate" \
	"notext:0 B in 4 chunks" datapos:FILE:ERR,band:ERROR
grep -v '"datapath.summary"' "$fx/interrupted.send.jsonl" >"$tmp/nd.send.jsonl"
"$bin" render "$tmp/nd.send.jsonl" "$fx/interrupted.recv.jsonl" -o "$tmp/nd.svg" \
	2>/dev/null || bad "interrupted, no datapath.summary: exit $?"
check "$tmp/nd.svg" "text:interrupted after at least 264 chunks posted" \
	"text:chunks: data.progress · credits: data.progress"

# -o - and the sides given the other way round: the same picture.
"$bin" render "$fx/push1.send.jsonl" "$fx/push1.recv.jsonl" -o - \
	>"$tmp/stdout.svg" 2>/dev/null && cmp -s "$tmp/stdout.svg" "$tmp/push1.svg" &&
	ok "-o - writes the same SVG to stdout" || bad "-o - differs"
"$bin" render "$fx/push1.recv.jsonl" "$fx/push1.send.jsonl" -o "$tmp/sw.svg" \
	2>/dev/null && cmp -s "$tmp/sw.svg" "$tmp/push1.svg" &&
	ok "receiver's trace first: the sender still on the left" ||
	bad "receiver's trace first gives another picture"
# No data.summary, but a push that finished: FIN's bytes, the traced
# posts (at least), no rate.
grep -v '"data.summary"' "$fx/push1.send.jsonl" >"$tmp/ns.send.jsonl"
grep -v '"data.summary"' "$fx/push1.recv.jsonl" >"$tmp/ns.recv.jsonl"
"$bin" render "$tmp/ns.send.jsonl" "$tmp/ns.recv.jsonl" -o "$tmp/ns.svg" 2>/dev/null ||
	bad "no data.summary: exit $?"
check "$tmp/ns.svg" "text:DATA PHASE (RDMA)" "text:10.0 MiB in at least 10 chunks posted" \
	"text:no data.summary in the traces: no rate" notext:INTERRUPTED \
	datapos:FILE:FEND,FIN,ACK

# A receiver's file with two transfers (children 6000, then 5151): the
# one whose HELLO came from the sender's QPN is drawn, not the first.
python3 - "$fx" "$tmp/two.recv.jsonl" <<'EOF'
import json, sys
out = open(sys.argv[2], "w")
for line in open(sys.argv[1] + "/failed.recv.jsonl"):
    o = json.loads(line)
    o["pid"] = 6000
    if o["kind"] == "msg" and o["f"]["type"] == "HELLO" and o["f"]["dir"] == "in":
        o["f"]["qpn"] = 0x99
    out.write(json.dumps(o) + "\n")
out.write(open(sys.argv[1] + "/push1.recv.jsonl").read())
EOF
if "$bin" render "$fx/push1.send.jsonl" "$tmp/two.recv.jsonl" -o "$tmp/two.svg" \
	2>"$tmp/two.err" && grep -q "holds 2 transfers; drawing pid 5151, whose HELLO came from QPN 0x11" "$tmp/two.err"; then
	check "$tmp/two.svg" arrows:FEND,FACK,FIN,ACK noarrow:ERR "text:10.0 MiB in 10 chunks"
else
	bad "two transfers: $(cat "$tmp/two.err")"
fi

# A receiver's trace cut short (it died): its messages are missing, so the
# sender's FEND, FIN... are drawn as stubs, and saying so.
head -n 30 "$fx/push1.recv.jsonl" >"$tmp/cut.recv.jsonl"
"$bin" render "$fx/push1.send.jsonl" "$tmp/cut.recv.jsonl" -o "$tmp/cut.svg" \
	2>/dev/null || bad "a cut trace: exit $?"
check "$tmp/cut.svg" lifelines arrows:HELLO,MR,FILE,FEND,FIN "text:ended with ACK" \
	"text:(no matching receipt in the other trace)" \
	"text:(no matching send in the other trace)"

# A chain a -> b -> c: b's file holds its receipt from a (side "recv")
# and its push on to c (side "relay"), in one pid, on one clock.
A=$fx/chain.a.jsonl B=$fx/chain.b.jsonl C=$fx/chain.c.jsonl
if "$bin" render "$A" "$B" "$C" -o "$tmp/chain.svg" 2>"$tmp/chain.err"; then
	ok "a chain of 3 renders"
	check "$tmp/chain.svg" chain:3 noscript "text:SENDER" "text:RELAY 1" \
		"text:RECEIVER 2" 'text:sides "recv", "relay" · pid 5151' \
		"text:HELLO  qpn 0x11  psn 0x5a3f21" "text:HELLO  qpn 0x41  psn 0x777777" \
		"text:MR  rkey 0x1a2c  qpn 0x52  psn 0xabcdef" \
		"text:1 → 2: $A pushes to $B" "text:2 → 3: $B pushes to $C"
else
	bad "a chain of 3: exit $?: $(cat "$tmp/chain.err")"
fi
# Two of them: the pair as any two traces, the relay's other session
# left out.
"$bin" render "$A" "$B" -o "$tmp/ab.svg" 2>/dev/null || bad "chain a b: exit $?"
check "$tmp/ab.svg" lifelines arrows:HELLO,MR,FILE,FEND,FACK,FIN,ACK \
	"text:HELLO  qpn 0x11" "notext:HELLO  qpn 0x41" 'text:side "recv" · pid 5151'
"$bin" render "$B" "$C" -o "$tmp/bc.svg" 2>/dev/null || bad "chain b c: exit $?"
check "$tmp/bc.svg" lifelines arrows:HELLO,MR,FILE,FEND,FACK,FIN,ACK \
	"text:HELLO  qpn 0x41" "notext:HELLO  qpn 0x11" 'text:side "relay" · pid 5151'

# expect CODE PATTERN ARGS...: exit CODE, stderr matching PATTERN (one
# line but for usage errors), and the output written before (good.svg)
# left as it was, no temp file.
cp "$tmp/push1.svg" "$tmp/good.svg"
expect() {
	code=$1 pat=$2
	shift 2
	"$bin" render "$@" 2>"$tmp/err" >/dev/null
	rc=$?
	if [ $rc -ne "$code" ]; then
		bad "render $*: exit $rc, want $code ($(cat "$tmp/err"))"
	elif ! grep -q -- "$pat" "$tmp/err"; then
		bad "render $*: stderr '$(cat "$tmp/err")' lacks '$pat'"
	elif [ "$code" -ne 2 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		bad "render $*: not one line: $(cat "$tmp/err")"
	elif ! cmp -s "$tmp/good.svg" "$tmp/push1.svg" ||
		ls "$tmp"/good.svg.* >/dev/null 2>&1; then
		bad "render $*: the old output changed or a temp file stayed"
	else
		ok "exit $code: $(head -n1 "$tmp/err")"
	fi
}
S=$fx/push1.send.jsonl R=$fx/push1.recv.jsonl O=$tmp/good.svg
expect 5 "cannot open $tmp/nope.jsonl: No such file or directory" \
	"$tmp/nope.jsonl" "$R" -o "$O"
expect 5 "cannot read $tmp: Is a directory" "$tmp" "$R" -o "$O"
expect 5 "cannot write $tmp/no/dir/x.svg: No such file or directory" \
	"$S" "$R" -o "$tmp/no/dir/x.svg"
{ head -n 2 "$R"; echo '{"v": 1, "kind": "msg", oops}'; } >"$tmp/nj.jsonl"
expect 3 "$tmp/nj.jsonl:3: not JSON" "$S" "$tmp/nj.jsonl" -o "$O"
{ head -n 1 "$R"; echo '{"v": 1, "kind": "msg"} trailing'; } >"$tmp/tr.jsonl"
expect 3 "$tmp/tr.jsonl:2: not one JSON object per line" "$S" "$tmp/tr.jsonl" -o "$O"
{ head -n 3 "$S"; echo '{"kind": "msg", "t": 1.0}'; } >"$tmp/nov.jsonl"
expect 3 "$tmp/nov.jsonl:4: no schema version" "$tmp/nov.jsonl" "$R" -o "$O"
{ echo '{"v": 1, "t": 1.0, "side": "send"}'; } >"$tmp/nok.jsonl"
expect 3 "$tmp/nok.jsonl:1: no \"kind\"" "$tmp/nok.jsonl" "$R" -o "$O"
sed '5s/"v": 1/"v": 2/' "$S" >"$tmp/v2.jsonl"
expect 3 "$tmp/v2.jsonl:5: trace schema version 2; this rdmapush reads version 1" \
	"$tmp/v2.jsonl" "$R" -o "$O"
grep -v '"HELLO"' "$R" >"$tmp/nohello.jsonl"
expect 3 "$tmp/nohello.jsonl: no HELLO message" "$S" "$tmp/nohello.jsonl" -o "$O"
expect 3 "are both from the send side" "$S" "$S" -o "$O"
# Traces that are not one session, from the fixtures: the side, the QPs,
# the HELLO as sent against the HELLO as received.
expect 3 "are both from the recv side" "$R" "$fx/push2.recv.jsonl" -o "$O"
expect 3 "$fx/lab-ping.send.jsonl is a ping client's trace and $R is a file receiver's trace: not the two ends of one session" \
	"$fx/lab-ping.send.jsonl" "$R" -o "$O"
expect 3 "$S is a push sender's trace and $fx/lab-ping.recv.jsonl is a ping server's trace" \
	"$S" "$fx/lab-ping.recv.jsonl" -o "$O"
expect 3 "$S sent a HELLO for 1 QP, $fx/push2.recv.jsonl received one for 2 QPs: not one session" \
	"$S" "$fx/push2.recv.jsonl" -o "$O"
expect 3 "$fx/push2.send.jsonl sent a HELLO for 2 QPs, $R received one for 1 QP" \
	"$R" "$fx/push2.send.jsonl" -o "$O"
expect 3 "the HELLO $S sent is not the one $fx/lab-exists.recv.jsonl received (qpn 0x11 vs 0x13, psn 0x5a3f21 vs 0x858e65, " \
	"$S" "$fx/lab-exists.recv.jsonl" -o "$O"
expect 3 "the HELLO $fx/many.send.jsonl sent is not the one $fx/failed.recv.jsonl received (total 1200000 vs 4096): not one session" \
	"$fx/many.send.jsonl" "$fx/failed.recv.jsonl" -o "$O"
# QP1's address (msg.qps) counts too; a field one side lacks is named.
sed '/"msg.qps"/s/"qp1.psn": [0-9]*/"qp1.psn": 7/' "$fx/push2.recv.jsonl" >"$tmp/q1.jsonl"
expect 3 "(qp1.psn 0x5a5032 vs 0x7)" "$fx/push2.send.jsonl" "$tmp/q1.jsonl" -o "$O"
sed '/"HELLO"/s/"qps": 1/"qps": 1, "ping": true/' "$R" >"$tmp/pf.jsonl"
expect 3 "(ping (none) vs true)" "$S" "$tmp/pf.jsonl" -o "$O"
# A receiver's file of two transfers, neither from this sender's QPN.
expect 3 "none of the 2 transfers in $tmp/two.recv.jsonl received the HELLO $fx/lab-exists.send.jsonl sent (qpn 0x13): not one session" \
	"$fx/lab-exists.send.jsonl" "$tmp/two.recv.jsonl" -o "$O"
# A side name is the file's text: shown escaped, never raw.
sed 's/"side": *"send"/"side":"s\\u001b[31m"/' "$S" >"$tmp/esc.jsonl"
expect 3 'both from the s\\u{001b}\[31m side' "$tmp/esc.jsonl" "$tmp/esc.jsonl" -o "$O"
if grep -q "$(printf '\033')" "$tmp/err"; then
	bad "a side name's escape character reached stderr raw"
else
	ok "a side name's escape character is shown as \\u{001b}"
fi
: >"$tmp/empty.jsonl"
expect 3 "$tmp/empty.jsonl: no events" "$S" "$tmp/empty.jsonl" -o "$O"
# A chain: a middle trace without a relay session, out of order, the
# relay's push on in another process than the receipt drawn, a
# receiver's trace before its sender's, more than 8.
expect 3 "$C: no relay session (side \"relay\"): a trace between two others is a relaying receiver's (recv --relay), in chain order" \
	"$A" "$C" "$B" -o "$O"
expect 3 "$C and $B are both from the recv side" "$C" "$B" "$A" -o "$O"
sed '/"side": "relay"/s/"pid": 5151/"pid": 7000/' "$B" >"$tmp/pid.jsonl"
expect 3 "$tmp/pid.jsonl: no relay session in pid 5151, the receipt drawn" \
	"$A" "$tmp/pid.jsonl" "$C" -o "$O"
{ cat "$A"; grep '"side": "relay"' "$B"; } >"$tmp/sr.jsonl"
expect 3 "$C comes before $tmp/sr.jsonl, the trace of its sender: give the traces in chain order" \
	"$C" "$tmp/sr.jsonl" "$C" -o "$O"
expect 2 "more than 8 traces: a chain of at most 8 hosts" \
	"$A" "$B" "$B" "$B" "$B" "$B" "$B" "$B" "$C" -o "$O"
# A capture beside the traces: the packet lane (wire.*: one lab push
# of 40,000 bytes in 4 KiB chunks, --capture on the sender). Each of
# the first four Writes is tied to its post and its completion.
W1=$fx/wire.send.jsonl W2=$fx/wire.recv.jsonl P=$fx/wire.pcap
if "$bin" render "$W1" "$W2" "$P" -o "$tmp/wire.svg" 2>"$tmp/wire.err"; then
	check "$tmp/wire.svg" lifelines wire:56 wirefold noscript \
		"text:... 1 more message folded: 1 packet, 0 B of data, 2 ACKs" \
		"text:On the wire: 56 RoCE v2 packets of this session" \
		"text:RDMA WRITE First...Last with Immediate: 4 packets" \
		"text:PSN 0x445b78-0x445b7b, to QP 0x000012, 1 ACK, 4.0 KiB of data" \
		"text:post RDMA_WRITE_WITH_IMM wr_id=0 (QP 0), 4.0 KiB" \
		"text:posted at 439.993 ms, completed at 450.948 ms" \
		"text:post RDMA_WRITE_WITH_IMM wr_id=3 (QP 0), 4.0 KiB" \
		"text:ACK, PSN 0x445b7b, to QP 0x000012, MSN 1" \
		"wirerow:SEND Only with Immediate|post SEND_WITH_IMM wr_id=1 (QP 0)" \
		"wirerow:SEND Only with Immediate|post SEND_WITH_IMM wr_id=10 (QP 0)" \
		"notext:post RDMA_WRITE_WITH_IMM wr_id=4"
else
	bad "wire: exit $?: $(cat "$tmp/wire.err")"
fi
"$bin" render "$P" "$W2" "$W1" -o "$tmp/wire2.svg" 2>"$tmp/wire.err" &&
	check "$tmp/wire2.svg" wire:56 ||
	bad "wire, the capture first: $(cat "$tmp/wire.err")"
check "$tmp/push1.svg" nowire
# wireloss.*: 32 KiB in 8 KiB chunks with 5% of the sender's packets
# dropped (netem), captured on the receiver: a message cut by a lost
# packet, the NAK, the rest of that message (no post of its own), the
# requester going back; each post is tied to its first sending only.
L1=$fx/wireloss.send.jsonl L2=$fx/wireloss.recv.jsonl LP=$fx/wireloss.pcap
if "$bin" render "$L1" "$L2" "$LP" -o "$tmp/loss.svg" 2>"$tmp/wire.err"; then
	check "$tmp/loss.svg" wire:48 \
		"wirerow:RDMA WRITE First...Middle: 5 packets|cut short|post RDMA_WRITE_WITH_IMM wr_id=1 (QP 0)" \
		"wirerow:NAK: PSN sequence error, PSN 0xf80fef" \
		"wirerow:PSN 0xf80fef-0xf80ff1, to QP 0x000015, 1 ACK, retransmitted" \
		"wirerow:PSN 0xf80ff2-0xf80ff9, to QP 0x000015, 1 ACK, retransmitted" \
		"wirerow:PSN 0xf80ffa-0xf81001|post RDMA_WRITE_WITH_IMM wr_id=3 (QP 0)" \
		"wirerow:SEND Only with Immediate|post SEND_WITH_IMM wr_id=4 (QP 0)"
else
	bad "wireloss: exit $?: $(cat "$tmp/wire.err")"
fi
expect 2 "$P and $P are both captures: give one, beside the two traces of its session" \
	"$W1" "$W2" "$P" "$P" -o "$O"
expect 2 "$P: a capture goes beside the two traces of its session (a sender's and its receiver's), not 3" \
	"$A" "$B" "$C" "$P" -o "$O"
expect 3 "$P: none of its packets goes between the two traces' GIDs (::ffff:10.0.2.15 and ::ffff:10.0.2.16): a capture of another session?" \
	"$S" "$R" "$P" -o "$O"
head -c 100 "$P" >"$tmp/cut.pcap"
expect 3 "$tmp/cut.pcap: truncated dump file" "$W1" "$W2" "$tmp/cut.pcap" -o "$O"
# A pcap of no RoCE v2 packet: its header alone.
head -c 24 "$P" >"$tmp/none.pcap"
expect 3 "$tmp/none.pcap: no RoCE v2 packet in it (UDP port 4791)" \
	"$W1" "$W2" "$tmp/none.pcap" -o "$O"
expect 2 "missing -o FILE.svg" "$S" "$R"
expect 2 "missing RECEIVER.jsonl" "$S" -o "$O"
expect 2 "unknown option '--bogus'" "$S" "$R" -o "$O" --bogus
"$bin" render --help | grep -q "Usage: rdmapush render SENDER.jsonl" &&
	ok "render --help" || bad "render --help"
exit $fail
