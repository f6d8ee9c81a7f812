#!/bin/sh
# SPDX-License-Identifier: MIT
# `rdmapush devices` on the machine that runs `make check`, with the
# outcome this machine allows and no other: with no RDMA device (no
# /sys/class/infiniband entry: CI, and a host kernel without RDMA) it
# says so on stderr with what to do, and exits 4 (as --json, with the
# same code in the object); with a device, it lists each one and exits
# 0. Bad command lines exit 2 either way. The lab's
# tests/e2e/devices.sh checks the listing itself on rxe.
#
# usage: tests/devices.sh   (from make check; the built ./rdmapush in
# the current directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "devices: $bin missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-devices.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "devices: ok $1"; }
bad() { echo "devices: FAIL $1"; fail=1; }

"$bin" devices >"$tmp/out" 2>"$tmp/err"
rc=$?
"$bin" devices --json >"$tmp/json" 2>/dev/null
jrc=$?
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	first=$(ls /sys/class/infiniband | head -1)
	[ $rc = 0 ] && grep -q "^$first: node GUID" "$tmp/out" &&
		ok "lists $first and exits 0" ||
		bad "with /sys/class/infiniband/$first: status $rc, output: $(head -3 "$tmp/out") $(cat "$tmp/err")"
else
	if [ $rc = 4 ] && [ ! -s "$tmp/out" ] &&
	   grep -q '^rdmapush devices: error: no RDMA device' "$tmp/err" &&
	   grep -q "^rdmapush devices: hint: .*rdma link add rxe0 type rxe netdev" "$tmp/err"; then
		ok "no device: says so, says what to do, exits 4"
	else
		bad "no device: status $rc (want 4), stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
	fi
	if [ $jrc = 4 ] && python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["type"] == "devices" and o["devices"] == [], o
assert o["status"] == "error" and o["exit_code"] == 4, o
assert o["error_code"] == "RP_ENODEV" and "no RDMA device" in o["error"], o
' "$tmp/json"; then
		ok "no device, --json: one object with the error and exit code 4"
	else
		bad "no device, --json: status $jrc, $(cat "$tmp/json")"
	fi
fi

for args in "devices extra" "devices --for" "devices --for ''" \
	    "devices -g 300" "devices --bogus" "devices --json=1"; do
	eval "\"\$bin\" $args" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "^rdmapush devices: hint: 'rdmapush devices --help'" "$tmp/err"; then
		ok "'$args': usage error, exit 2"
	else
		bad "'$args': status $rc (want 2): $(cat "$tmp/err")"
	fi
done
"$bin" devices --help | grep -q '^Usage: rdmapush devices' &&
	"$bin" help devices | grep -q -- '--for HOST' &&
	ok "devices --help and help devices" || bad "devices --help"
exit $fail
