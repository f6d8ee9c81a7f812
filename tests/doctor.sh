#!/bin/sh
# SPDX-License-Identifier: MIT
# `rdmapush doctor` on the machine that runs `make check`, with the
# outcome this machine allows: with no RDMA device it exits 4, its
# report names the missing device and the command that makes one (and
# stderr says the same in one line and a hint); --json has the same
# findings. A port another program holds is named with its pid; HOST's
# receiver port is tried over TCP (refused: an error naming the command
# to start one; answered: ok). Bad command lines exit 2. The lab's
# tests/e2e/doctor.sh checks a healthy pair and each fault.
#
# usage: tests/doctor.sh   (from make check; the built ./rdmapush in the
# current directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "doctor: $bin missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-doctor.XXXXXX) || exit 99
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "doctor: ok $1"; }
bad() { echo "doctor: FAIL $1"; fail=1; }

# A TCP port nothing listens on (the kernel's pick, then closed).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# same TEXT JSON: the JSON's findings are the text's lines, in order.
same() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
o = json.load(open(sys.argv[2]))
assert o["type"] == "doctor", o
f = o["findings"]
assert len(f) == len(lines), (len(f), lines)
for line, x in zip(lines, f):
    assert line.split()[0] == x["severity"], (line, x)
    assert x["what"] in line and x["fix"] in line, (line, x)
errors = sum(1 for x in f if x["severity"] == "error")
assert o["errors"] == errors, o
assert o["status"] == ("error" if errors else "ok"), o
assert o["exit_code"] == (4 if errors else 0), o
EOF
}

port=$(free_port)
"$bin" doctor -p "$port" >"$tmp/out" 2>"$tmp/err"
rc=$?
"$bin" doctor -p "$port" --json >"$tmp/json" 2>/dev/null
jrc=$?
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	[ $rc = 0 ] || [ $rc = 4 ] && grep -q "^ok      libibverbs lists" "$tmp/out" &&
		ok "with a device: lists it, exits $rc" ||
		bad "with a device: status $rc: $(cat "$tmp/out" "$tmp/err")"
else
	if [ $rc = 4 ] &&
	   grep -q "^error   no RDMA device.*; fix: .*rdma link add rxe0 type rxe netdev " "$tmp/out" &&
	   [ "$(wc -l <"$tmp/err")" = 2 ] &&
	   grep -q "^rdmapush doctor: [0-9]* problems\? found; the first: no RDMA device" "$tmp/err" &&
	   grep -q "^rdmapush doctor: hint: .*rdma link add rxe0 type rxe netdev " "$tmp/err"; then
		ok "no device: names it and the command that makes one, exits 4"
	else
		bad "no device: status $rc (want 4), stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
	fi
fi
if [ $jrc = $rc ] && why=$(same "$tmp/out" "$tmp/json" 2>&1); then
	ok "--json: the same findings, status and exit code $jrc"
else
	bad "--json: status $jrc (text: $rc): $why"
fi
grep -q "^ok      TCP port $port is free for rdmapush recv$" "$tmp/out" &&
	ok "a free port is said to be free" ||
	bad "port $port: $(grep -i port "$tmp/out")"

# A port another program listens on: named, with its pid.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen()
open(sys.argv[2], "w").close()
time.sleep(60)' "$port" "$tmp/listening" &
pid=$!
for _ in $(seq 50); do [ -e "$tmp/listening" ] && break; sleep 0.1; done
"$bin" doctor -p "$port" >"$tmp/out" 2>"$tmp/err"
grep -q "^warning TCP port $port is held by pid $pid (python3): rdmapush recv cannot listen on it; fix: .*-p PORT" "$tmp/out" &&
	ok "a held port: names the pid and the program" ||
	bad "held port $port (pid $pid): $(grep -i port "$tmp/out")"

# HOST: its receiver port over TCP, answered (our listener) or refused.
"$bin" doctor -p "$port" 127.0.0.1 >"$tmp/out" 2>"$tmp/err"
grep -q "^ok      127.0.0.1:$port answers: rdmapush receiver$" "$tmp/out" &&
	ok "HOST's port answers: ok" ||
	bad "HOST's port $port: $(cat "$tmp/out")"
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pid=
"$bin" doctor -p "$port" 127.0.0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 4 ] &&
grep -q "^error   127.0.0.1:$port: no rdmapush receiver: .*Connection refused.*; fix: on 127.0.0.1: rdmapush recv -p $port$" "$tmp/out" &&
	ok "HOST's port refused: an error naming the command, exit 4" ||
	bad "HOST's port $port refused: status $rc: $(cat "$tmp/out")"

for args in "doctor a b" "doctor --bogus" "doctor -p 0" \
	    "doctor --ping-port 70000" "doctor ''" "doctor --json=1" \
	    "doctor -T 0"; do
	eval "\"\$bin\" $args" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "^rdmapush doctor: hint: 'rdmapush doctor --help'" "$tmp/err"; then
		ok "'$args': usage error, exit 2"
	else
		bad "'$args': status $rc (want 2): $(cat "$tmp/err")"
	fi
done
"$bin" doctor --help >"$tmp/out" 2>&1 && grep -q "^Usage: rdmapush doctor" "$tmp/out" &&
	ok "--help" || bad "--help: $(head -3 "$tmp/out")"
exit $fail
