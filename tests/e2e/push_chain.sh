#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: three
# A chain push in the three-node lab, each guest's egress capped (tests/e2e
# run's mode "three"): A pushes one file to B and C as "B,C"; B relays
# (recv --relay) and C receives. Both copies are byte-identical, the
# sender sent the bytes once (--json data_bytes), and the chain takes
# well under the time of two pushes A -> B (each byte crosses each capped
# link once, and B forwards as it receives): at most 1.6 times one push
# here, as 16 MiB does not amortise B's second session's set-up (about a
# second under TCG) the way a large push does. B killed at half-way:
# A goes on to C directly, C's copy is whole, and A exits 4 naming B. A
# relay that is not one (B without --relay) refuses the chain: the sender
# exits 6 and names why. Times are the guests' own, around rdmapush alone.
# A chain push traced on each host (--trace-json; B's file holds its
# receipt and its push on) renders into one SVG with a lifeline per
# host, each pair's arrows between its two (check_svg.py chain:3).
. "$(dirname "$0")/lib.sh"

# 16 MiB: about 6.7 s at 20mbit per link.
SIZE=$((16 * 1024 * 1024))
SRC=/tmp/e2e-chain-src
DST=/tmp/e2e-chain-dst
B_IP=$("$LAB" ip B)
C_IP=$("$LAB" ip C)

recv_bg_on() { # recv_bg_on NODE JOB [OPTION...]
	local node=$1 job=$2
	shift 2
	"$LAB" bg "$node" "$job" -- "exec $RP recv -p $PORT -o $DST $*"
	await_listen "$node"
}

stop_recv_on() { # stop_recv_on NODE JOB
	"$LAB" signal "$1" "$2" TERM
	if out=$("$LAB" wait "$1" "$2" --timeout 30 2>&1); then
		ok "receiver on $1 exited 0 on SIGTERM"
	else
		fail "receiver on $1" "status $?: $(tail -3 <<<"$out")"
	fi
}

# timed_send NAME HOSTS: push $SRC/NAME from A; prints ms=... and the
# JSON session line.
timed_send() {
	on A "t0=\$(date +%s%N); $RP send -q --json -p $PORT $SRC/$1 $2 &&
		echo ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))"
}

for n in B C; do
	fresh_dir "$n" "$DST" >/dev/null
done
mkdata A "$SRC/one.bin" "$SIZE" >/dev/null
mkdata A "$SRC/chain.bin" "$SIZE" >/dev/null
want_one=$(digest A "$SRC/one.bin")
want_chain=$(digest A "$SRC/chain.bin")

# --- one push A -> B, then the chain A -> B -> C -------------------------

recv_bg_on B chain-b --relay || fail "receiver on B" "did not listen"
recv_bg_on C chain-c || fail "receiver on C" "did not listen"

one_ms=
if out=$(timed_send one.bin "$B_IP" 2>&1); then
	one_ms=$(sed -n 's/^ms=//p' <<<"$out")
	if [ "$(digest B "$DST/one.bin")" = "$want_one" ]; then
		ok "one push A -> B byte-identical ($one_ms ms)"
	else
		fail "one push A -> B" "sha256 differs"
	fi
else
	fail "one push A -> B" "sender failed: $(tail -2 <<<"$out")"
fi

chain_ms=
if out=$(timed_send chain.bin "$B_IP,$C_IP" 2>&1); then
	chain_ms=$(sed -n 's/^ms=//p' <<<"$out")
	for n in B C; do
		if [ "$(digest "$n" "$DST/chain.bin")" = "$want_chain" ]; then
			ok "chain A -> B -> C: $n's copy byte-identical"
		else
			fail "chain A -> B -> C: $n's copy" "sha256 differs or missing"
		fi
	done
	sent=$(grep '"type": *"session"' <<<"$out" | sed -n 's/.*"data_bytes": *\([0-9]*\).*/\1/p')
	if [ "$sent" = "$SIZE" ]; then
		ok "the sender sent the data once ($sent bytes), not once per host"
	else
		fail "bytes sent once" "data_bytes ${sent:-?}, want $SIZE: $out"
	fi
else
	fail "chain A -> B -> C" "sender failed: $(tail -3 <<<"$out")"
fi

# Each link is capped alike: two hops pipelined cost about one push
# and a set-up, where one after the other would cost two.
if [ -n "$one_ms" ] && [ -n "$chain_ms" ]; then
	ratio=$(awk -v c="$chain_ms" -v o="$one_ms" 'BEGIN { printf "%.2f", c / o }')
	if awk -v r="$ratio" 'BEGIN { exit !(r <= 1.6) }'; then
		ok "chain to 2 hosts took $ratio x one push ($chain_ms vs $one_ms ms, at most 1.6)"
	else
		fail "chain time" "$ratio x one push ($chain_ms vs $one_ms ms), over 1.6"
	fi
fi
stop_recv_on B chain-b
stop_recv_on C chain-c

# --- B killed at about half-way: C still gets the file -------------------
# A's trace marks the chunks B has taken (data.progress doubles them);
# at 16 of 32, B is killed (SIGKILL). A then pushes to C directly with
# --resume: C goes on from what B had relayed to it, and its copy is
# whole. B is the one host reported failed, and A exits 4 naming it.

BIG=$((32 * 1024 * 1024))
mkdata A "$SRC/killed.bin" "$BIG" >/dev/null
want_killed=$(digest A "$SRC/killed.bin")
for n in B C; do
	fresh_dir "$n" "$DST" >/dev/null
done
recv_bg_on B chain-b --relay || fail "receiver on B" "did not listen"
recv_bg_on C chain-c || fail "receiver on C" "did not listen"
"$LAB" bg A chain-kill -- "exec $RP send -t -c 1M -p $PORT $SRC/killed.bin $B_IP,$C_IP"
if await_log A chain-kill ' \(1[6-9]\|2[0-9]\)/[0-9]* chunks posted' 120; then
	"$LAB" signal B chain-b KILL
	"$LAB" wait B chain-b --timeout 30 >/dev/null 2>&1
	out=$("$LAB" wait A chain-kill --timeout 300 2>&1)
	rc=$?
	if [ "$(digest C "$DST/killed.bin")" = "$want_killed" ]; then
		ok "B killed mid-push: C's copy is byte-identical"
	else
		fail "B killed mid-push: C's copy" "sha256 differs or missing: $(tail -4 <<<"$out")"
	fi
	if grep -q "the chain broke at $B_IP:$PORT: pushing to $C_IP:$PORT directly" <<<"$out" &&
	   grep -q 'killed.bin: the receiver holds the first [1-9][0-9]* bytes, verified; sending the rest' <<<"$out"; then
		ok "A went on to C directly, from where C's copy had stopped"
	else
		fail "A's reroute" "$(grep -v '^\[' <<<"$out" | tail -5)"
	fi
	if [ "$rc" = 4 ] && grep -q "failed on 1 of 2 hosts: $B_IP:$PORT\$" <<<"$out" &&
	   grep -q "$C_IP:$PORT: ok" <<<"$out"; then
		ok "A exits 4, B reported failed and named, C ok"
	else
		fail "A's verdict" "exit $rc: $(grep -v '^\[' <<<"$out" | tail -5)"
	fi
else
	fail "B killed mid-push" "A's trace never said half the chunks were taken"
	"$LAB" signal A chain-kill KILL
	"$LAB" wait A chain-kill --timeout 30 >/dev/null 2>&1
	stop_recv_on B chain-b
fi
stop_recv_on C chain-c

# --- the chain's traces, one lifeline per host -----------------------------

TMP=$(mktemp -d /tmp/e2e-chain.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdata A "$SRC/traced.bin" $((1024 * 1024)) >/dev/null
for n in A B C; do
	on "$n" "rm -f /tmp/e2e-chain-$n.jsonl" >/dev/null
done
for n in B C; do
	fresh_dir "$n" "$DST" >/dev/null
done
recv_bg_on B chain-b --relay --trace-json /tmp/e2e-chain-B.jsonl ||
	fail "receiver on B" "did not listen"
recv_bg_on C chain-c --trace-json /tmp/e2e-chain-C.jsonl ||
	fail "receiver on C" "did not listen"
if out=$(on A "$RP send -q --trace-json /tmp/e2e-chain-A.jsonl -p $PORT \
	$SRC/traced.bin $B_IP,$C_IP" 2>&1); then
	ok "chain push traced on each host"
else
	fail "traced chain push" "$(tail -3 <<<"$out")"
fi
stop_recv_on B chain-b
stop_recv_on C chain-c
for n in A B C; do
	on "$n" "cat /tmp/e2e-chain-$n.jsonl" >"$TMP/$n.jsonl"
done
if grep -q '"side":"relay"' "$TMP/B.jsonl" &&
	grep -q '"side":"recv"' "$TMP/B.jsonl"; then
	ok "B's trace holds its receipt (side recv) and its push on (side relay)"
else
	fail "B's trace" "no side relay, or no side recv"
fi
if "$RP" render "$TMP/A.jsonl" "$TMP/B.jsonl" "$TMP/C.jsonl" \
	-o "$TMP/chain.svg" 2>"$TMP/render.err"; then
	ok "rdmapush render draws the chain's three traces"
else
	fail "rdmapush render of the chain" "$(cat "$TMP/render.err")"
fi
if why=$("$PYTHON3" "$TOP/tests/render/check_svg.py" "$TMP/chain.svg" \
	chain:3 arrows:HELLO,MR,FIN,ACK "text:RELAY 1" "text:RECEIVER 2" \
	"text:DATA PHASE (RDMA)" 2>&1); then
	ok "the SVG: 3 lifelines, each pair's arrows and data block between its two"
else
	fail "the chain's SVG" "$why"
fi

# --- a receiver without --relay refuses the chain ------------------------

fresh_dir B "$DST" >/dev/null
recv_bg_on B chain-b || fail "receiver on B" "did not listen"
out=$(on A "$RP send -p $PORT $SRC/chain.bin $B_IP,$C_IP; echo rc=\$?" 2>&1)
if grep -q '^rc=6$' <<<"$out" &&
   grep -q 'does not relay a chain (start it with rdmapush recv --relay)' <<<"$out"; then
	ok "B without --relay refuses the chain: exit 6, and why"
else
	fail "B without --relay" "$out"
fi
if [ -z "$(on B "ls -A $DST")" ]; then
	ok "nothing written on B after the refusal"
else
	fail "refusal wrote something" "$(on B "ls -A $DST")"
fi
stop_recv_on B chain-b

on A "rm -rf $SRC" >/dev/null
for n in B C; do
	on "$n" "rm -rf $DST" >/dev/null
done
done_testing
