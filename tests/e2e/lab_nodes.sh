#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: three
# Proves the three-node lab (rdma-lab start --nodes 3 --egress RATE, as
# tests/e2e/run starts it for mode "three"): every node is up with its own
# address on the one switch, rdmapush pushes A->C, B->C and C->A arrive
# byte-identical, and each push is paced by its sender's egress cap: S
# bytes take at least S*8/RATE * 0.8 seconds, where the same push without
# the cap takes well under that (about 0.1 Gb/s under TCG).
. "$(dirname "$0")/lib.sh"

# 16 MiB: about 6.7 s at 20mbit, so the three pushes take ~25 s.
SIZE=$((16 * 1024 * 1024))
SRC=/tmp/e2e-nodes-src
DST=/tmp/e2e-nodes-dst

# rate_bps RATE: tc's bit rate (500kbit, 40mbit, 1gbit) in bits/s.
rate_bps() {
	local r=${1,,}
	case $r in
	*gbit) echo $((${r%gbit} * 1000000000)) ;;
	*mbit) echo $((${r%mbit} * 1000000)) ;;
	*kbit) echo $((${r%kbit} * 1000)) ;;
	*bit) echo "${r%bit}" ;;
	*) return 1 ;;
	esac
}

# --- the lab: three nodes, their addresses, their caps -------------------

status=$("$LAB" status 2>&1)
rate=$(sed -n 's/^A .*egress \([0-9a-z]*\).*/\1/p' <<<"$status")
if ! bps=$(rate_bps "$rate") || [ "$bps" -le 0 ]; then
	fail "lab" "node A has no egress cap (rdma-lab start --nodes 3 --egress RATE): $status"
	done_testing
fi
for n in A B C; do
	want=10.77.0.$(($(printf %d "'$n") - 64))
	if [ "$("$LAB" ip "$n")" != "$want" ]; then
		fail "node $n's address" "rdma-lab ip $n says $("$LAB" ip "$n"), not $want"
		continue
	fi
	# The address on eth0 and the cap's qdisc, as the guest has them.
	out=$(on "$n" "ip -4 -o addr show dev eth0; tc qdisc show dev eth0" 2>&1 | tr -s '\n\\ ' ' ')
	if ! grep -q "inet $want/24" <<<"$out"; then
		fail "node $n's eth0" "no $want/24 on it: $out"
	elif ! grep -q "qdisc netem .* rate [0-9]" <<<"$out"; then
		fail "node $n's egress cap" "no netem qdisc with a rate on eth0: $out"
	else
		ok "node $n: $want on eth0, egress capped at $rate"
	fi
done
# Each node knows the others by name (lab-a .. lab-d in /etc/hosts).
out=$(on A "getent hosts lab-c" 2>&1)
if grep -q "^10.77.0.3 .*lab-c" <<<"$out"; then
	ok "node A finds node C by name (lab-c)"
else
	fail "lab-c by name" "getent hosts lab-c on A: $out"
fi
# A fourth node is not part of this lab, and rdma-lab says so.
if out=$("$LAB" ip D 2>&1) || ! grep -q "no node D" <<<"$out"; then
	fail "node D refused" "rdma-lab ip D: $out"
else
	ok "rdma-lab refuses node D in a three-node lab"
fi

# --- pushes between nodes, each paced by its sender's cap ----------------

for n in A B C; do
	fresh_dir "$n" "$DST" >/dev/null
done
recv_bg_on() { # recv_bg_on NODE JOB
	"$LAB" bg "$1" "$2" -- "exec $RP recv -p $PORT -o $DST"
	await_listen "$1"
}
recv_bg_on C nodes-c || fail "receiver on C" "did not listen"
recv_bg_on A nodes-a || fail "receiver on A" "did not listen"

# min_ms: the least time S bytes take at RATE, with 20% slack.
min_ms=$((SIZE * 8 * 800 / bps))

# push FROM TO: push a fresh random file FROM -> TO, check its bytes and
# that it took at least min_ms.
push() {
	local from=$1 to=$2 name=$1-to-$2 out ms want got
	mkdata "$from" "$SRC/$name" "$SIZE" >/dev/null
	# Timed in the guest, around rdmapush alone.
	if ! out=$(on "$from" "t0=\$(date +%s%N); $RP send -q -p $PORT $SRC/$name $("$LAB" ip "$to") &&
		echo ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))" 2>&1); then
		fail "push $name" "sender failed: $(tail -2 <<<"$out")"
		return
	fi
	ms=$(sed -n 's/^ms=//p' <<<"$out")
	want=$(digest "$from" "$SRC/$name")
	got=$(digest "$to" "$DST/$name")
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		fail "push $name" "sha256 differs: $want vs $got"
	else
		ok "push $name ($SIZE bytes) byte-identical"
	fi
	if [ -n "$ms" ] && [ "$ms" -ge "$min_ms" ]; then
		ok "push $name paced by $from's cap: $ms ms >= $min_ms ms ($rate, -20%)"
	else
		fail "push $name paced by $from's cap" \
			"took ${ms:-?} ms, under $min_ms ms: $from's egress is not capped at $rate"
	fi
}

push A C
push B C
push C A

for n in C A; do
	"$LAB" signal "$n" "nodes-${n,}" TERM
	if out=$("$LAB" wait "$n" "nodes-${n,}" --timeout 30 2>&1); then
		ok "receiver on $n exited 0 on SIGTERM"
	else
		fail "receiver on $n" "status $?: $(tail -3 <<<"$out")"
	fi
done
on A "rm -rf $SRC $DST" >/dev/null
on B "rm -rf $SRC" >/dev/null
on C "rm -rf $SRC $DST" >/dev/null
done_testing
