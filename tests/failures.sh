#!/bin/sh
# SPDX-License-Identifier: MIT
# Every failure a user sees is one line "rdmapush SUB: ..." and at most
# one "rdmapush SUB: hint: ..." line, and the hint fits the cause; each
# command's help page is its own. Run by make check with the built
# ./rdmapush on this machine: without an RDMA device (CI, a host kernel
# without RDMA) the device failures are checked too; with one, the
# failures that need none. The lab's tests/e2e/startup.sh and
# devices.sh check the failures a device makes possible.
#
# usage: tests/failures.sh   (from make check, in the build directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "failures: $bin missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-failures.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "failures: ok $1"; }
bad() { echo "failures: FAIL $1"; fail=1; }
# A port nothing listens on, away from the defaults.
# Below the kernel's ephemeral ports (32768 up), which other tests'
# connections take meanwhile.
port=$((20000 + $$ % 12000))

# failure WANT-RC SUB ARGS...: exits WANT-RC; stderr is one line
# "rdmapush SUB: " (not a hint), then at most one "rdmapush SUB: hint: ".
failure() {
	want=$1 sub=$2
	shift 2
	timeout 10 "$bin" "$@" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	n=$(grep -c '' "$tmp/err")
	l1=$(sed -n 1p "$tmp/err")
	l2=$(sed -n 2p "$tmp/err")
	case $l1 in
	"rdmapush $sub: hint:"*) l1ok=0 ;;
	"rdmapush $sub: "?*) l1ok=1 ;;
	*) l1ok=0 ;;
	esac
	case $l2 in
	""|"rdmapush $sub: hint: "?*) l2ok=1 ;;
	*) l2ok=0 ;;
	esac
	if [ $rc = "$want" ] && [ "$n" -ge 1 ] && [ "$n" -le 2 ] &&
	   [ $l1ok = 1 ] && [ $l2ok = 1 ]; then
		ok "'$*': exit $rc, one line${l2:+ and a hint}"
	else
		bad "'$*': exit $rc (want $want), $n lines: $(cat "$tmp/err")"
	fi
}

# Usage errors: the line and where help is, as every other failure.
failure 2 send send README
failure 2 recv recv --bogus
failure 2 render render a.jsonl
failure 2 devices devices -x
failure 2 ping ping -n 0 127.0.0.1

# A failure that needs no device: --trace-json's open, said once.
failure 5 ping ping --trace-json /nonexistent/x 127.0.0.1
grep -q "^rdmapush ping: ping failed: --trace-json /nonexistent/x: open: " \
	"$tmp/err" && ok "ping --trace-json: the open's error is the cause" ||
	bad "ping --trace-json: $(cat "$tmp/err")"
failure 5 ping-server ping --server --trace-json /nonexistent/x -p $port

if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	# No device: every command that needs one says so in one line and
	# a hint, before it listens or connects.
	echo data > "$tmp/f"
	failure 4 ping-server ping --server -p $port
	grep -q '^rdmapush ping-server: server failed: no RDMA device' \
		"$tmp/err" && ! grep -q listening "$tmp/err" &&
		ok "ping --server: the device check runs before it listens" ||
		bad "ping --server: $(cat "$tmp/err")"
	failure 4 ping ping -p $port 127.0.0.1
	failure 4 recv recv -p $port -o "$tmp"
	failure 4 recv recv -b notanaddr -p $port -o "$tmp"
	failure 4 send send -p $port "$tmp/f" 127.0.0.1
	failure 4 devices devices
	failure 4 devices devices --for 127.0.0.1
	failure 4 devices devices -d nosuch
	# A kernel without RDMA: the module and the lab, not only a device.
	if grep -q 'Function not implemented' "$tmp/err"; then
		grep -q "^rdmapush devices: hint: .*modprobe rdma_rxe.*scripts/rdma-lab" \
			"$tmp/err" &&
			ok "no RDMA in the kernel: 'modprobe rdma_rxe' and the lab" ||
			bad "no RDMA in the kernel, hint: $(cat "$tmp/err")"
	fi
fi

# Help: each command's own page, one exit table; help CMD for each.
for cmd in send recv keygen devices ping render help; do
	"$bin" help "$cmd" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	"$bin" "$cmd" --help >"$tmp/out2" 2>/dev/null
	if [ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
	   head -1 "$tmp/out" | grep -q "^Usage: rdmapush $cmd" &&
	   [ "$(grep -c 'Exit status' "$tmp/out")" = 1 ] &&
	   cmp -s "$tmp/out" "$tmp/out2"; then
		ok "help $cmd = $cmd --help: its page, one exit status section"
	else
		bad "help $cmd: status $rc, $(grep -c 'Exit status' "$tmp/out") exit sections, $(head -1 "$tmp/out")"
	fi
done
for cmd in keygen devices ping render help; do
	"$bin" "$cmd" --help | grep -q 'rdmapush send big.iso' &&
		bad "$cmd --help shows a push's example" ||
		ok "$cmd --help: no push example"
done
exit $fail
