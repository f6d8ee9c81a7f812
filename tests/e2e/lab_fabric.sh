#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Proves the lab itself, before any rdmapush test relies on it: rxe0 is
# PORT_ACTIVE on both nodes, an RC ping-pong crosses the wire (B serves,
# A connects), and RDMA Writes A->B move data at a plausible rate.
# Needs the two-node lab up (scripts/rdma-lab start). Prints the plan
# "1..4" up front, "ok - ..." per check (as tests/e2e/run counts them) and
# a one-line result; on the first failure prints "not ok - ...", a
# one-line reason on stderr, and exits 1 (the checks it did not reach
# then count as missing against the plan).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$TOP/scripts/rdma-lab
MODE=${RP_E2E_MODE:-two}
PORT=${RP_E2E_PORT:-18700}
PP_PORT=$PORT
BW_PORT=$((PORT + 1))
# 1 MiB RDMA Writes; the count keeps the run short at TCG speeds.
BW_SIZE=1048576
BW_ITERS=${RP_LAB_FABRIC_ITERS:-64}
# Job names unique to this run, so a concurrent run cannot collide.
JOB_PP=fabric-pp-$$
JOB_BW=fabric-bw-$$
JOBS=()

ok() { echo "ok - $MODE: lab: $1"; }
fail() {
	echo "not ok - $MODE: lab: $1: $2"
	echo "lab_fabric: FAIL: $1: $2" >&2
	exit 1
}

# Leave no server behind, whatever happened.
cleanup() {
	local j
	for j in "${JOBS[@]+"${JOBS[@]}"}"; do
		"$LAB" signal B "$j" KILL >/dev/null 2>&1
		"$LAB" wait B "$j" --timeout 10 >/dev/null 2>&1
	done
}
trap cleanup EXIT

on() { # on NODE TIMEOUT CMD...
	local node=$1 t=$2
	shift 2
	"$LAB" run "$node" --timeout "$t" -- "$*"
}

# serve JOB PORT CMD...: start a server on B, return once it listens on
# TCP PORT (where perftest tools exchange QP details).
serve() {
	local job=$1 port=$2 out
	shift 2
	"$LAB" bg B "$job" -- "$*" || fail "start $job on B" "rdma-lab bg failed"
	JOBS+=("$job")
	if ! on B 30 "for i in \$(seq 150); do ss -Hltn 'sport = :$port' | grep -q . && exit 0; sleep 0.1; done; exit 1" >/dev/null 2>&1; then
		out=$("$LAB" wait B "$job" --timeout 5 2>&1 | tail -3 | tr '\n' ' ')
		fail "server $job on B" "never listened on port $port: $out"
	fi
}

# collect JOB: wait for B's server; its output on stdout, its status ours.
collect() {
	local job=$1 st=0
	"$LAB" wait B "$job" --timeout 60 || st=$?
	local k
	for k in "${!JOBS[@]}"; do [ "${JOBS[$k]}" = "$job" ] && unset 'JOBS[k]'; done
	return $st
}

# --- preconditions ----------------------------------------------------

echo "1..4"	# rxe0 on A, rxe0 on B, ping-pong, bandwidth

[ -x "$LAB" ] || fail "setup" "$LAB not found"
"$LAB" status >/dev/null 2>&1 || fail "setup" "the lab is not running (scripts/rdma-lab start)"
IP_B=$("$LAB" ip B) || fail "setup" "rdma-lab ip B failed"

# --- 1. rxe0 on both nodes ----------------------------------------------

for n in A B; do
	out=$(on "$n" 60 ibv_devinfo -d rxe0 2>&1) ||
		fail "ibv_devinfo on $n" "exit $?: $(echo "$out" | tail -1)"
	grep -q 'state:.*PORT_ACTIVE' <<<"$out" ||
		fail "ibv_devinfo on $n" "rxe0 port is not PORT_ACTIVE: $(grep 'state:' <<<"$out" | tr -s ' \t' ' ')"
	grep -q 'link_layer:.*Ethernet' <<<"$out" ||
		fail "ibv_devinfo on $n" "rxe0 is not a RoCE (Ethernet) device"
	ok "rxe0 PORT_ACTIVE on node $n"
done

# --- 2. RC ping-pong B <- A ------------------------------------------------

serve "$JOB_PP" "$PP_PORT" ibv_rc_pingpong -d rxe0 -g 1 -p "$PP_PORT" -n 200
cli=$(on A 120 ibv_rc_pingpong -d rxe0 -g 1 -p "$PP_PORT" -n 200 "$IP_B" 2>&1)
cst=$?
srv=$(collect "$JOB_PP" 2>&1)
sst=$?
[ $cst -eq 0 ] || fail "ibv_rc_pingpong A->B" "client exit $cst: $(echo "$cli" | tail -2 | tr '\n' ' ')"
[ $sst -eq 0 ] || fail "ibv_rc_pingpong A->B" "server exit $sst: $(echo "$srv" | tail -2 | tr '\n' ' ')"
# "200 iters in 0.70 seconds = 3481.28 usec/iter"
pp_usec=$(awk '/iters in .* usec\/iter/ { print $(NF - 1) }' <<<"$cli")
[ -n "$pp_usec" ] || fail "ibv_rc_pingpong A->B" "no 'usec/iter' result in the client's output"
ok "ibv_rc_pingpong -g 1 A->B: 200 round trips, $pp_usec usec/iter"

# --- 3. RDMA Write bandwidth A -> B --------------------------------------

bw_args="-d rxe0 -x 1 -p $BW_PORT -s $BW_SIZE -n $BW_ITERS"
# perftest first times the CPU's cycle counter and gives up ("Correlation
# coefficient r^2 ... Can't produce a report") when that timing is noisy, as
# it can be in an emulator on a busy host: that one failure is retried.
for attempt in 1 2 3; do
	# shellcheck disable=SC2086 # bw_args is a word list on purpose
	serve "$JOB_BW" "$BW_PORT" ib_write_bw $bw_args
	cli=$(on A 300 ib_write_bw "$bw_args" "$IP_B" 2>&1)
	cst=$?
	srv=$(collect "$JOB_BW" 2>&1)
	sst=$?
	grep -q "Can't produce a report" <<<"$cli$srv" || break
	echo "# ib_write_bw could not time the emulated CPU's clock (attempt $attempt), retrying"
done
[ $cst -eq 0 ] || fail "ib_write_bw A->B" "client exit $cst: $(echo "$cli" | tail -2 | tr '\n' ' ')"
[ $sst -eq 0 ] || fail "ib_write_bw A->B" "server exit $sst: $(echo "$srv" | tail -2 | tr '\n' ' ')"
# The result row: "#bytes #iterations BW-peak BW-average MsgRate", MB/s.
bw=$(awk -v s="$BW_SIZE" '$1 == s && NF >= 4 { print $4; exit }' <<<"$cli")
[ -n "$bw" ] || fail "ib_write_bw A->B" "no result row for $BW_SIZE-byte messages in the client's output"
# Plausible: more than 0.1 MB/s (something moved) and less than 100 GB/s.
awk -v b="$bw" 'BEGIN { exit !(b + 0 > 0.1 && b + 0 < 100000) }' ||
	fail "ib_write_bw A->B" "implausible average bandwidth '$bw' MB/s"
gbps=$(awk -v b="$bw" 'BEGIN { printf "%.3f", b * 8 * 1048576 / 1e9 }')
ok "ib_write_bw -x 1 A->B: $BW_ITERS x 1 MiB, $bw MB/s"

echo "lab_fabric: rxe0 PORT_ACTIVE on A and B; rc_pingpong $pp_usec usec/iter;" \
	"ib_write_bw A->B $bw MB/s (= $gbps Gb/s)"
