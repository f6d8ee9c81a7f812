#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# A chain push reaching a receiver that does not pass it on, on the host
# (no RDMA device: the receiver runs with --no-device-check and answers
# the handshake before it opens anything). A sender speaking wire.py
# sends HELLO with the CHAIN flag and a CHAIN: a receiver without
# --relay answers ERR status limit saying how to start it; a flagged
# HELLO followed by anything else, or a CHAIN no HELLO announced, is
# refused as out of place. The receiver says each in one line and
# writes nothing.
. "$(dirname "$0")/lib.sh"

DIR=$(mktemp -d /tmp/rdmapush-chain.XXXXXX)
trap 'kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; rm -rf "$DIR"' EXIT

# start_recv [OPTION...]: a receiver on 127.0.0.1:$PORT, logging to
# $DIR/recv.err, once it listens.
start_recv() {
	mkdir -p "$DIR/out"
	"$RP" recv --no-device-check -b 127.0.0.1 -p "$PORT" -o "$DIR/out" \
		"$@" 2>"$DIR/recv.err" &
	RPID=$!
	for _ in $(seq 50); do
		grep -q listening "$DIR/recv.err" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "receiver $* listens" "$(cat "$DIR/recv.err")"
	return 1
}

stop_recv() {
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
}

# peer CASE...: wire.py's sender for each CASE, its own ok/not ok lines.
peer() {
	relay "chain peer" "$PYTHON3" -B - "$TOP" "$PORT" "$@" <<'PY'
import socket
import sys

sys.path.insert(0, sys.argv[1] + "/tests/e2e")
import wire  # noqa: E402

port = int(sys.argv[2])
qp = wire.qp_addr(0x123, 0x456, wire.gid_v4("127.0.0.1"))
hops = [("node02", 18500), ("fe80::1", 18501)]
cases = {
    # name: (messages, status, text)
    "no-relay": ([wire.hello(qp, 10, 65536, 4, wire.HELLO_CHAIN),
                  wire.pack_chain(hops)], 4,
                 b"this receiver does not relay a chain (start it with "
                 b"rdmapush recv --relay)"),
    "flag-then-fin": ([wire.hello(qp, 10, 65536, 4, wire.HELLO_CHAIN),
                       wire.fin(0, 0)], 6, b"expected CHAIN from "),
    "chain-first": ([wire.pack_chain(hops)], 6, b"expected HELLO from "),
}
for name in sys.argv[3:]:
    msgs, status, text = cases[name]
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    for m in msgs:
        s.sendall(m)
    got = wire.recv_msg(s)
    s.close()
    ok = got is not None and got[0] == wire.ERR
    res = wire.unpack_result(got[1]) if ok else None
    ok = ok and res["status"] == status and res["text"].startswith(text)
    print(f"ok - host: chain: {name}: ERR {wire.status_name(status)}" if ok
          else f"not ok - host: chain: {name}: got {got!r}", flush=True)
PY
}

# recv_said LABEL TEXT...: each TEXT in one line of the receiver's log,
# and no more lines than those (besides "listening" and "stopped").
recv_said() {
	local label=$1 t n=0
	shift
	for t in "$@"; do
		n=$((n + 1))
		if ! grep -qF -- "$t" "$DIR/recv.err"; then
			fail "$label" "no \"$t\" in: $(cat "$DIR/recv.err")"
			return
		fi
	done
	if [ "$(grep -cv -e ': listening on port ' -e ': stopped by signal ' \
		"$DIR/recv.err")" = "$n" ] &&
	   [ -z "$(ls -A "$DIR/out")" ]; then
		ok "$label"
	else
		fail "$label" "$(cat "$DIR/recv.err"; ls -A "$DIR/out")"
	fi
}

if start_recv; then
	peer no-relay flag-then-fin chain-first
	stop_recv
	recv_said "no --relay: one line a connection, nothing written" \
		"this receiver does not relay a chain (start it with rdmapush recv --relay)" \
		"expected CHAIN from 127.0.0.1:" "expected HELLO from 127.0.0.1:"
fi

done_testing
