#!/bin/sh
# SPDX-License-Identifier: MIT
# The receiver's admission against a crowd of idle connections from one
# /24 (8 idle connections from each of 127.0.0.2-9): by default its
# prefix cap refuses most of them; with that cap raised until the crowd
# fills the table, a connection from another prefix (127.0.1.1) evicts
# the crowd's oldest instead of being refused. Needs no RDMA device
# (--no-device-check; nobody here passes the handshake). Run by make
# check with the built ./rdmapush; the lab's tests/e2e/crowd.sh pushes.
#
# usage: tests/admit.sh   (from make check, in the build directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "admit: $bin missing" >&2; exit 99; }
command -v python3 >/dev/null || { echo "admit: no python3, skipped"; exit 77; }
tmp=$(mktemp -d /tmp/rdmapush-admit.XXXXXX) || exit 99
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "admit: ok $1"; }
bad() { echo "admit: FAIL $1"; fail=1; }
# Below the kernel's ephemeral ports (32768 up), which other tests'
# connections take meanwhile.
port=$((20000 + ($$ + 13) % 12000))

# crowd: 64 idle connections from 127.0.0.2-9, then one from 127.0.1.1.
# Prints "admitted N" (crowd connections still open after a moment),
# "newcomer open|closed", "oldest open|closed".
crowd() {
	python3 - "$port" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
def conn(src):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    time.sleep(0.02)    # in order of arrival
    return s
def is_open(s, wait):
    s.settimeout(wait)
    try:
        return s.recv(4096) == b"" and False
    except socket.timeout:
        return True
    except OSError:
        return False
crowd = [conn("127.0.0.%d" % (2 + i % 8)) for i in range(64)]
time.sleep(0.5)
alive = [s for s in crowd if is_open(s, 0.01)]
print("admitted", len(alive))
new = conn("127.0.1.1")
print("newcomer", "open" if is_open(new, 1.0) else "closed")
print("oldest", "open" if alive and is_open(alive[0], 0.2) else "closed")
PY
}

# serve ARGS...: a receiver with ARGS, until it listens.
serve() {
	"$bin" recv --no-device-check -p "$port" -o "$tmp" "$@" \
		>/dev/null 2>"$tmp/err" &
	pid=$!
	i=0
	until grep -q listening "$tmp/err" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

stop() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	port=$((port + 1))
}

serve
crowd >"$tmp/res" 2>&1
stop
if grep -qx 'admitted 16' "$tmp/res" &&
   grep -qx 'newcomer open' "$tmp/res" &&
   grep -qx 'oldest open' "$tmp/res" &&
   grep -q 'still in their handshake (--max-pending-per-prefix 16)' \
	"$tmp/err" && [ "$(grep -c refusing "$tmp/err")" = 5 ]; then
	ok "by default a /24 holds 16 handshakes, another prefix gets in;"\
" 5 of 48 refusals said"
else
	bad "default caps:"
	cat "$tmp/res" "$tmp/err"
fi

serve --max-pending-per-prefix 64 --max-per-address 8
crowd >"$tmp/res" 2>&1
stop
if grep -qx 'admitted 64' "$tmp/res" &&
   grep -qx 'newcomer open' "$tmp/res" &&
   grep -qx 'oldest closed' "$tmp/res" &&
   grep -q 'ending it for 127.0.1.1' "$tmp/err"; then
	ok "a full table: another prefix evicts the crowd's oldest"
else
	bad "a full table of one /24:"
	cat "$tmp/res" "$tmp/err"
fi
exit $fail
