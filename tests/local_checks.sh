#!/bin/sh
# SPDX-License-Identifier: MIT
# What needs nothing remote is checked before the device probe and before
# connecting: a bad command line, --as, the key file, and sources none of
# which can be sent are refused with their own cause (exit 2), on a host
# without an RDMA device as on one with it; so are a receiver's key file
# and directory. A push where some sources can be sent goes on (here to
# the device probe or the connection, exit 4) and names none of the bad
# ones before it. Nothing here needs a device or a peer: port 1 on
# 127.0.0.1 has no receiver.
#
# usage: tests/local_checks.sh   (from make check; the built ./rdmapush in
# the current directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "local_checks: $bin missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-local.XXXXXX) || exit 99
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "local_checks: ok $1"; }
bad() { echo "local_checks: FAIL $1"; fail=1; }

cd "$tmp" || exit 99
echo hello >README
mkdir dir
mkfifo fifo
head -c 32 /dev/urandom >key644 && chmod 644 key644
head -c 32 /dev/urandom >key && chmod 600 key

# expect STATUS CAUSE ARGS...: rdmapush ARGS exits STATUS, its stderr holds
# CAUSE (a fixed string) on its "SUB: ... failed: " line, says nothing of
# the device, and holds one line but for a "hint:" one.
expect() {
	want=$1 cause=$2
	shift 2
	"$bin" "$@" </dev/null >out 2>err
	rc=$?
	sub=$1
	lines=$(grep -vc "^rdmapush $sub: hint: " err)
	if [ "$rc" = "$want" ] && grep -F -- "$cause" err | grep -q "failed: " &&
	   ! grep -q 'RDMA device' err && [ "$lines" = 1 ]; then
		ok "'$*': exit $want, $cause"
	else
		bad "'$*': status $rc (want $want and '$cause'): $(cat err)"
	fi
}

H="127.0.0.1 -p 1"
# shellcheck disable=SC2086 # $H is two words on purpose
{
expect 2 '--as renames one source, not 2' send --as x README README $H
expect 2 '"-" (standard input) needs --as NAME' send - $H
expect 2 '--as "a/b": ' send --as a/b README $H
expect 2 '--as "": ' send --as '' README $H
expect 2 'cannot send nonexist: No such file or directory' send nonexist $H
expect 2 'cannot send dir: directory (use -r)' send dir $H
expect 2 'cannot send fifo: FIFO' send fifo $H
expect 2 '--psk key644: permissions 0644 are too open' \
	send --psk key644 README $H
expect 2 '--psk /dev/null: not a regular file' send --psk /dev/null README $H
expect 2 '--psk dir: not a regular file' send --psk dir README $H
expect 2 '--psk fifo: not a regular file' send --psk fifo README $H
expect 2 '--psk key644: permissions 0644 are too open' recv --psk key644 -o .
expect 2 '--psk /dev/null: not a regular file' recv --psk /dev/null -o .
expect 2 '--psk dir: not a regular file' ping --psk dir 127.0.0.1 -p 1
expect 2 '--psk key644: permissions 0644 are too open' ping --psk key644 127.0.0.1 -p 1
expect 5 'open(nonexist): No such file or directory' recv -o nonexist
expect 5 'open(README): Not a directory' recv -o README
}
# Not a word of chmod for a key that is not a file.
"$bin" send --psk /dev/null README 127.0.0.1 -p 1 2>err
if grep -q chmod err; then
	bad "--psk /dev/null: chmod advice: $(cat err)"
else
	ok "--psk /dev/null: no chmod advice"
fi

# Several sources, none of which can go: each one's cause, exit 2.
"$bin" send dir nonexist 127.0.0.1 -p 1 2>err
rc=$?
if [ $rc = 2 ] && grep -q 'cannot send dir: directory (use -r)' err &&
   grep -q 'cannot send nonexist: No such file' err &&
   ! grep -q 'RDMA device' err; then
	ok "no source can go: each cause, exit 2"
else
	bad "no source can go: status $rc: $(cat err)"
fi

# An unreadable file: root reads everything, so as nobody when root.
chmod 000 README
runner=
if [ "$(id -u)" = 0 ]; then
	runner="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 755 "$tmp"
	$runner "$bin" --version >/dev/null 2>&1 || runner=none
fi
if [ "$runner" = none ]; then
	echo "local_checks: SKIP unreadable file (root, and no setpriv)"
else
	$runner "$bin" send README 127.0.0.1 -p 1 2>err
	rc=$?
	if [ $rc = 2 ] && grep -q 'cannot send README: Permission denied' err &&
	   ! grep -q 'RDMA device' err; then
		ok "unreadable file: exit 2, Permission denied"
	else
		bad "unreadable file: status $rc: $(cat err)"
	fi
fi
chmod 644 README

# Some sources can go: the push goes on (to the device probe, or to the
# connection), as before, and the bad ones are not reported up front.
"$bin" send --psk key dir nonexist README 127.0.0.1 -p 1 2>err
rc=$?
if [ $rc = 4 ] && ! grep -q 'cannot send' err; then
	ok "one source can go: the push goes on"
else
	bad "one source can go: status $rc (want 4, no 'cannot send'): $(cat err)"
fi
exit $fail
