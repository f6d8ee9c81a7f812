# SPDX-License-Identifier: MIT
# Shared helpers for end-to-end tests, sourced by each tests/e2e/*.sh.
# Each case prints "ok - NAME" or "not ok - NAME: reason"; tests/e2e/run
# counts those lines. Tests run against a lab that tests/e2e/run started:
# RP_E2E_MODE=two (sender on A, receiver on B) or one (both on A, rxe
# loopback).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB="$TOP/scripts/rdma-lab"
RP="$TOP/rdmapush"
MODE=${RP_E2E_MODE:-two}
SND=A
if [ "$MODE" = one ]; then RCV=A; else RCV=B; fi
RCV_IP=$("$LAB" ip "$RCV")
# Each test file gets its own port so a leftover receiver cannot answer.
PORT=${RP_E2E_PORT:-18600}
FAILED=0

ok() { echo "ok - $MODE: $1"; }
fail() {
	echo "not ok - $MODE: $1: $2"
	FAILED=$((FAILED + 1))
}

# on NODE CMD...: run a shell command on a node, its output on stdout.
on() {
	local node=$1
	shift
	"$LAB" run "$node" --timeout "${RP_E2E_TIMEOUT:-120}" -- "$*"
}

# await_listen NODE: return once something listens on TCP $PORT there
# (10 s at most, then fail).
await_listen() {
	on "$1" "for i in \$(seq 100); do ss -ltn | grep -q ':$PORT ' && exit 0; sleep 0.1; done; echo 'nothing listens on port $PORT' >&2; exit 1"
}

# await_log NODE JOB TEXT: wait (20 s at most) until a background job's
# output shows TEXT, e.g. a test peer reporting where it stopped.
await_log() {
	local i
	for i in $(seq 100); do
		"$LAB" log "$1" "$2" 2>/dev/null | grep -q "$3" && return 0
		sleep 0.2
	done
	return 1
}

# recv_bg JOB ARGS...: start "rdmapush recv -p $PORT ARGS" on the receiver
# node, and return once it listens.
recv_bg() {
	local job=$1
	shift
	"$LAB" bg "$RCV" "$job" -- "exec $RP recv -p $PORT $*"
	await_listen "$RCV"
}

# recv_wait JOB: wait for the receiver job; its output on stdout, its
# exit status as ours.
recv_wait() {
	"$LAB" wait "$RCV" "$1" --timeout "${2:-120}"
}

# send ARGS...: run "rdmapush send -p $PORT ARGS" on the sender node.
send() {
	on "$SND" "$RP send -p $PORT $*"
}

# mkdata NODE PATH BYTES: random file of that size on a node.
mkdata() {
	on "$1" "mkdir -p \$(dirname $2) && head -c $3 /dev/urandom > $2"
}

# digest NODE PATH: sha256 of a file on a node (computed by sha256sum,
# not by rdmapush).
digest() {
	on "$1" "sha256sum < $2" | cut -d' ' -f1
}

# fresh_dir NODE PATH: an empty directory.
fresh_dir() {
	on "$1" "rm -rf $2 && mkdir -p $2"
}

# entries NODE DIR: names in DIR, hidden ones included, one per line.
entries() {
	on "$1" "ls -A $2"
}
