#!/bin/sh
# SPDX-License-Identifier: MIT
# recv --once ends only with a push: connections that connect and close
# (a port check), send garbage, or fail AUTH leave it listening, and are
# said on at most 5 lines per 10 s, with no result reported.
# Without --once, such connections, and refusals, are said the same way,
# then on one line counting the others.
# Needs no RDMA device: the receiver starts with --no-device-check and
# no connection here gets past its handshake. Run by make check with
# the built ./rdmapush; the lab's tests/e2e/once_probe.sh pushes after.
#
# usage: tests/once.sh   (from make check, in the build directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "once: $bin missing" >&2; exit 99; }
command -v python3 >/dev/null || { echo "once: no python3, skipped"; exit 77; }
tmp=$(mktemp -d /tmp/rdmapush-once.XXXXXX) || exit 99
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "once: ok $1"; }
bad() { echo "once: FAIL $1"; fail=1; }
# Below the kernel's ephemeral ports (32768 up), which other tests'
# connections take meanwhile.
port=$((20000 + ($$ + 7) % 12000))

# poke KIND...: connect to the receiver, do KIND (close, garbage, wait),
# close. Fails if the port is not listening.
poke() {
	python3 - "$port" "$@" 2>/dev/null <<'PY'
import socket, sys, time
port = int(sys.argv[1])
for kind in sys.argv[2:]:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if kind == "garbage":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" * 8)
    if kind != "close":
        # Until the receiver has had its say and closed.
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
    s.close()
PY
}

# listening: the receiver still runs and accepts.
listening() {
	kill -0 "$pid" 2>/dev/null && poke close
}

"$bin" keygen "$tmp/key" >/dev/null 2>&1 || { echo "once: keygen failed"; exit 99; }
for psk in "" "--psk $tmp/key"; do
	what=${psk:+ with --psk}
	: >"$tmp/out"
	# shellcheck disable=SC2086
	"$bin" recv --once --json --no-device-check -p "$port" -o "$tmp" $psk \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	i=0
	until grep -q listening "$tmp/err" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if poke close close close && sleep 0.3 && listening; then
		ok "probes that connect and close do not end it$what"
	else
		bad "probes that connect and close ended it$what"
	fi
	if poke garbage garbage && sleep 0.3 && listening; then
		ok "garbage does not end it$what"
	else
		bad "garbage ended it$what"
	fi
	# Seven connections so far (listening pokes too): five lines.
	poke close
	sleep 0.3
	n=$(grep -c 'no push, ignored' "$tmp/err")
	if [ "$n" = 5 ] && [ "$(grep -c '' "$tmp/err")" = 6 ]; then
		ok "one line each for the first 5 of them (rate-limited)$what"
	else
		bad "$n 'ignored' lines, or other lines$what:"
		cat "$tmp/err"
	fi
	if [ ! -s "$tmp/out" ]; then
		ok "nothing reported on stdout for them$what"
	else
		bad "something reported on stdout$what:"
		cat "$tmp/out"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	pid=
	if grep -q 'stopped by SIGTERM' "$tmp/err" && [ $rc -ne 0 ]; then
		ok "a stop still ends it, as before any transfer$what"
	else
		bad "stop: exit $rc:"
		cat "$tmp/err"
	fi
	port=$((port + 1))
done

# Without --once: 8 garbage connections, 5 said (two lines each), and
# after the 10 s window, at the next one, a line counting the other 3.
"$bin" recv --no-device-check -p "$port" -o "$tmp" --psk "$tmp/key" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
until grep -q listening "$tmp/err" 2>/dev/null || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
poke garbage garbage garbage garbage garbage garbage garbage garbage
sleep 0.5
n=$(grep -c 'failed in AUTH' "$tmp/err")
if [ "$n" = 5 ]; then
	ok "a server says 5 of 8 failed connections at once"
else
	bad "a server said $n of 8 failed connections at once:"
	cat "$tmp/err"
fi
sleep 10
poke garbage
sleep 0.5
if grep -q '^rdmapush recv: 3 more connections refused or failed before the handshake not shown$' "$tmp/err" &&
	[ "$(grep -c 'failed in AUTH' "$tmp/err")" = 6 ]; then
	ok "then a line counts the others, and the next is said"
else
	bad "no line counting the others:"
	cat "$tmp/err"
fi
kill "$pid" 2>/dev/null
wait "$pid"
pid=
exit $fail
