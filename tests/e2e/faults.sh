#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ops: read send
# modes: two
# Faults: peers killed at each phase, signals, loss and an outage on the
# link. Each ends within the deadline with a clear error or completes
# byte-identical; never a partial final file or a leftover temporary
# file; the receiver keeps serving, its descriptors and the guest's
# registered memory back to baseline.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-faults
T=8			# --timeout on both sides
A_IP=$("$LAB" ip "$SND")
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/big $((48 << 20)) >/dev/null
mkdata "$SND" /tmp/e2e-src/small $((1 << 20)) >/dev/null
recv_bg faults "-T $T -o $DST" || { fail "receiver start" "did not listen"; exit 1; }

server_pid=$(on "$RCV" "pgrep -o -f 'rdmapush [r]ecv -p $PORT'")
fds() { on "$RCV" "ls /proc/$server_pid/fd | wc -l"; }
mrs() { on "$1" "rdma resource show mr 2>/dev/null | grep -c rkey"; }
base_fds=$(fds)

# settled LABEL: within T+5 s no transfer runs; then check what is left.
settled() {
	local label=$1 i n
	for i in $(seq $((T * 2 + 10))); do
		n=$(on "$RCV" "pgrep -c -f 'rdmapush [r]ecv -p $PORT'")
		[ "$n" = 1 ] && break
		sleep 0.5
	done
	[ "$n" = 1 ] && ok "$label: receiver's transfer ended within the deadline" ||
		fail "$label: transfer ended" "$n receiver processes still running"
	local left kept
	# What a --resume would continue: a kept partial and its journal,
	# hidden, at most one of each per file; never a temporary file.
	kept='^\..*\.rdmapush-(partial|journal)$'
	left=$(entries "$RCV" "$DST" | grep -v -x -E "${2:-^$}" |
		grep -v -E "$kept")
	[ -z "$left" ] && ok "$label: no temporary file, nothing but kept partials" ||
		fail "$label: nothing left" "found: $left"
	[ "$(fds)" = "$base_fds" ] && ok "$label: receiver descriptors back to baseline ($base_fds)" ||
		fail "$label: descriptors" "$(fds) open, baseline $base_fds"
	[ "$(mrs "$RCV")" = 0 ] && ok "$label: no memory registered on the receiver's node" ||
		fail "$label: registered memory" "$(mrs "$RCV") MRs remain"
}

# A python peer stopped at a protocol point, then SIGKILLed; then one
# that goes silent. peer.py speaks no data op, so these run once, with
# the default op.
peer_faults() {
	local point
	for point in before-hello after-mr after-fin; do
		"$LAB" bg "$SND" peer -- "exec python3 $TOP/tests/e2e/peer.py $RCV_IP $PORT $A_IP $point p-$point"
		await_log "$SND" peer stopped ||
			fail "sender killed $point: peer in place" "peer.py never reported 'stopped $point'"
		"$LAB" signal "$SND" peer KILL
		"$LAB" wait "$SND" peer >/dev/null 2>&1
		if [ $point = after-fin ]; then
			settled "sender killed $point" "p-after-fin"
			on "$RCV" "rm -rf $DST/p-after-fin" >/dev/null
		else
			settled "sender killed $point"
		fi
	done

	# A sender that goes silent after MR (alive, connection open): the
	# receiver gives up after its data-phase deadline.
	"$LAB" bg "$SND" peer -- "exec python3 $TOP/tests/e2e/peer.py $RCV_IP $PORT $A_IP after-mr silent"
	await_log "$SND" peer stopped ||
		fail "sender silent after MR: peer in place" "peer.py never reported 'stopped after-mr'"
	settled "sender silent after MR"
	"$LAB" log "$RCV" faults 2>&1 | grep -q "no data from .* for $T s" &&
		ok "sender silent after MR: receiver says 'no data for $T s'" ||
		fail "silent sender" "no data-phase timeout message in the receiver's log"
	"$LAB" signal "$SND" peer KILL
	"$LAB" wait "$SND" peer >/dev/null 2>&1
}
[ -n "$OP" ] || peer_faults

# MIDDATA: the sender's --trace line once the receiver has taken the
# first chunk (src/session_send.c, trace_milestone: "N/M chunks posted so
# far taken by the receiver" since version 3); 48 MiB in 256 KiB chunks
# is 192 of them, so data is then flowing and far from done.
MIDDATA="chunks posted so far taken by the receiver"

# push_bg AS LABEL: start a traced push of the big file (as AS) in the
# background, job "push", and return once it is mid-data; or fail LABEL
# and return 1 (the push killed) if no data line comes within 20 s.
push_bg() {
	local as=$1 label=$2
	"$LAB" bg "$SND" push -- "exec $RP send${OP:+ --op $OP} -t -T $T -p $PORT -c 256K --as $as /tmp/e2e-src/big $RCV_IP"
	await_log "$SND" push "$MIDDATA" 20 && return 0
	fail "$label: mid-data" "no '$MIDDATA' trace line from the sender within 20 s"
	"$LAB" signal "$SND" push KILL >/dev/null 2>&1
	"$LAB" wait "$SND" push >/dev/null 2>&1
	return 1
}

# kill_mid WHO SIG LABEL EXPECT-SENDER-RC: start a big push, signal WHO
# (the sender, or the receiver's transfer process) once data flows.
kill_mid() {
	local who=$1 sig=$2 label=$3 want=$4 out rc
	if push_bg "mid-$who-$sig" "$label"; then
		if [ "$who" = sender ]; then
			"$LAB" signal "$SND" push "$sig"
		else
			# The transfer's own process: the server's child.
			on "$RCV" "pkill -$sig -P $server_pid" >/dev/null
		fi
		out=$("$LAB" wait "$SND" push --timeout $((T * 3)) 2>&1)
		rc=$?
		if [ "$rc" = "$want" ]; then
			ok "$label: sender exit $rc ($(echo "$out" | grep -m1 -o 'push failed.*' | cut -c1-70))"
		else
			fail "$label: sender exit" "$rc, wanted $want: $(echo "$out" | tail -2)"
		fi
	fi
	settled "$label"
}
kill_mid sender KILL "sender SIGKILLed mid-data" 137
kill_mid receiver KILL "receiver transfer SIGKILLed mid-data" 4
# Stopped by a signal: the shell's 128 + signal, nothing left behind.
# The signal's path (a flag the session's waits see) is the same for
# every op: once, with the default op.
if [ -z "$OP" ]; then
	kill_mid sender INT "sender SIGINT mid-data" 130
	kill_mid sender TERM "sender SIGTERM mid-data" 143
	kill_mid receiver TERM "receiver transfer SIGTERMed mid-data" 4
fi

# Still serving after all that.
if send "-T $T -c 64K" /tmp/e2e-src/small "$RCV_IP" >/dev/null 2>&1 &&
	[ "$(digest "$SND" /tmp/e2e-src/small)" = "$(digest "$RCV" "$DST/small")" ]; then
	ok "receiver still serves after the faults"
else
	fail "receiver still serves" "push failed"
fi
on "$RCV" "rm -f $DST/small" >/dev/null

# Loss on the wire, both directions: the transfer completes byte-identical,
# or (rxe's retry counter, capped at 6, runs out) both sides fail cleanly
# with exit 4 and leave nothing behind.
netem() { for n in $SND $RCV; do on $n "modprobe sch_netem 2>/dev/null; tc qdisc replace dev eth0 root netem $*" >/dev/null; done; }
netem_off() { for n in $SND $RCV; do on $n "tc qdisc del dev eth0 root 2>/dev/null; true" >/dev/null; done; }
# 5% once, with the default op: each op's own retransmission shows at 1%.
losses="1 5"
[ -z "$OP" ] || losses=1
for loss in $losses; do
	netem loss ${loss}%
	t0=$(date +%s)
	out=$(send "-T 30 -c 64K --as loss$loss" /tmp/e2e-src/small "$RCV_IP" 2>&1)
	rc=$?
	took=$(( $(date +%s) - t0 ))
	netem_off
	if [ $rc = 0 ] && [ "$(digest "$SND" /tmp/e2e-src/small)" = "$(digest "$RCV" "$DST/loss$loss")" ]; then
		ok "${loss}% loss: 1 MiB pushed byte-identical in $took s"
	elif [ $rc = 4 ] && [ $loss = 5 ]; then
		ok "${loss}% loss: failed cleanly in $took s, exit 4 ($(echo "$out" | grep -m1 -o 'push failed.*' | cut -c1-60))"
	else
		fail "${loss}% loss" "exit $rc: $(echo "$out" | tail -2)"
	fi
	settled "after ${loss}% loss" "loss$loss"
	on "$RCV" "rm -f $DST/loss$loss" >/dev/null
done

# An outage: every packet dropped for 4 s mid-transfer (from the first
# chunk the receiver took), then the link comes back. Either it
# completes byte-identical or both sides fail cleanly within the deadline.
if push_bg outage "4 s outage"; then
	netem loss 100%
	# A push already acknowledged would make the case vacuous.
	"$LAB" log "$SND" push 2>&1 | grep -q -e '<- ACK' &&
		fail "4 s outage: mid-data" "the push was acknowledged before the link went down"
	sleep 4		# the outage itself: time, not a wait for an event
	netem_off
	out=$("$LAB" wait "$SND" push --timeout $((T * 4)) 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		[ "$(digest "$SND" /tmp/e2e-src/big)" = "$(digest "$RCV" "$DST/outage")" ] &&
			ok "4 s outage: transfer completed byte-identical" ||
			fail "4 s outage" "completed but the file differs"
		on "$RCV" "rm -f $DST/outage" >/dev/null
	elif [ $rc = 4 ]; then
		ok "4 s outage: sender failed cleanly, exit 4 ($(echo "$out" | grep -m1 -o 'push failed.*' | cut -c1-70))"
	else
		fail "4 s outage" "sender exit $rc: $(echo "$out" | tail -2)"
	fi
fi
settled "after the outage"

"$LAB" signal "$RCV" faults TERM
recv_wait faults 30 >/dev/null && ok "receiver exits 0 on SIGTERM after the faults" ||
	fail "receiver exit after faults" "status $?"
done_testing
