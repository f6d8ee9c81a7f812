# SPDX-License-Identifier: MIT
# Shared helpers for end-to-end tests, sourced by each tests/e2e/*.sh.
# Each case prints "ok - NAME" or "not ok - NAME: reason" (ok, fail, or
# relay for a helper program's own lines), and the script ends with
# done_testing, which prints the plan "1..N" and exits non-zero if a case
# failed. tests/e2e/run counts the lines, and counts the script as failed
# if it exits non-zero unexplained or stops before done_testing. Tests run
# against a lab that tests/e2e/run started: RP_E2E_MODE=two (sender on A,
# receiver on B) or one (both on A, rxe loopback).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB="$TOP/scripts/rdma-lab"
RP="$TOP/rdmapush"
MODE=${RP_E2E_MODE:-two}
SND=A
if [ "$MODE" = one ]; then RCV=A; else RCV=B; fi
RCV_IP=$("$LAB" ip "$RCV")
# Each test file gets its own port so a leftover receiver cannot answer.
PORT=${RP_E2E_PORT:-18600}
# The data op every send() uses (tests/e2e/run sets it for the tests that
# declare "# ops:"); empty: rdmapush's default, write.
OP=${RP_E2E_OP:-}
OP_LABEL=${OP:+ --op $OP}
# The directory the host and both guests see at this same path
# (scripts/rdma-lab's share/, in its lab dir): a file a guest copies there
# can be checked on the host.
SHARE=${RP_LAB_DIR:-/tmp/rdmapush-lab-$(id -u)}/share
# The python3 that has Debian's modules (python3-xxhash, for wire.py's
# file_csum; scripts/deps installs it): one found first in PATH (pyenv, a
# venv) does not see them.
PYTHON3=${RP_E2E_PYTHON3:-/usr/bin/python3}
PASSED=0
FAILED=0
# A case that took longer than this many seconds (since the previous one)
# says so in a comment line after it: where a run's time goes.
SLOW=${RP_E2E_SLOW:-20}
CASE_T0=$SECONDS
# The script's own output, for notes from helpers whose stdout a caller
# captures.
exec 9>&1

slow_note() {
	local took=$((SECONDS - CASE_T0))
	[ "$took" -le "$SLOW" ] || echo "# that case took $took s"
	CASE_T0=$SECONDS
}
ok() {
	echo "ok - $MODE$OP_LABEL: $1"
	PASSED=$((PASSED + 1))
	slow_note
}
fail() {
	echo "not ok - $MODE$OP_LABEL: $1: $2"
	FAILED=$((FAILED + 1))
	slow_note
}

# done_testing: the script's last line. Prints the plan "1..N" (the cases
# reported so far) and exits 1 if any failed, else 0. tests/e2e/run
# counts a script that never gets here as failed.
done_testing() {
	echo "1..$((PASSED + FAILED))"
	[ "$FAILED" -eq 0 ]
	exit
}

# relay LABEL CMD...: run CMD (e.g. a python peer that reports its own
# cases), its output (stdout and stderr) to our stdout, counting its
# "ok - " and "not ok - " lines as our cases. Returns CMD's exit status; a
# non-zero status that no "not ok" line explains is a failed case LABEL.
relay() {
	local label=$1 line f0=$FAILED rc
	shift
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"ok - "*) PASSED=$((PASSED + 1)) ;;
		"not ok - "*) FAILED=$((FAILED + 1)) ;;
		esac
	done < <("$@" 2>&1)
	wait $!
	rc=$?
	[ $rc = 0 ] || [ "$FAILED" != "$f0" ] || fail "$label" "exited with status $rc"
	return $rc
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

# await_on NODE SECONDS COND: return once the shell condition COND holds
# on NODE (polled there every 0.1 s), or 1 after SECONDS.
await_on() {
	on "$1" "for i in \$(seq $(($2 * 10))); do $3 && exit 0; sleep 0.1; done; exit 1"
}

# await_log NODE JOB TEXT [SECONDS]: wait (90 s unless told) until a
# background job's output (stdout or stderr, e.g. rdmapush's --trace)
# shows TEXT, a grep pattern: e.g. a test peer reporting where it stopped.
# If it never does, print why (with the job's last lines) and return 1.
# 90 s, because a Python test peer's start alone (the interpreter on an
# emulated CPU) takes 5 to 8 s in an idle lab, and passed 30 s on a busy
# host; the wait ends as soon as TEXT shows.
await_log() {
	local end=$((SECONDS + ${4:-90}))
	while [ $SECONDS -lt $end ]; do
		"$LAB" log "$1" "$2" 2>&1 | grep -q -e "$3" && return 0
		sleep 0.2
	done
	echo "# waited ${4:-90} s for '$3' from job $2 on $1; its last lines:"
	"$LAB" log "$1" "$2" 2>&1 | tail -3 | sed 's/^/#   /'
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

# recv_wait JOB [SECS]: wait for the receiver job (at most SECS, 120 by
# default); its output on stdout, its exit status as ours. A wait that
# ran out says so on the script's output: a receiver still serving when
# the test thought it done is a test's bug, and a slow run.
recv_wait() {
	local rc
	"$LAB" wait "$RCV" "$1" --timeout "${2:-120}"
	rc=$?
	[ $rc != 124 ] || echo "# recv_wait $1: still running after ${2:-120} s, killed" >&9
	return $rc
}

# refused_locally LABEL RC OUT PATTERN: a case that passes when a command
# exited 2 (usage) with OUT matching PATTERN and saying nothing of a
# connection or a phase: it was refused before connecting.
refused_locally() {
	if [ "$2" = 2 ] && echo "$3" | grep -qE -- "$4" &&
		! echo "$3" | grep -qiE 'connect|phase'; then
		ok "$1: usage error (exit 2) before connecting"
	else
		fail "$1" "exit $2, want 2 before connecting: $(echo "$3" | head -3)"
	fi
}

# send ARGS...: run "rdmapush send -p $PORT [--op $OP] ARGS" on the
# sender node.
send() {
	on "$SND" "$RP send -p $PORT${OP:+ --op $OP} $*"
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
