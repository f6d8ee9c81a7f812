#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Device, port and GID selection by hand (-d, -i, -g), what a wrong one
# says, and a symbolic link at the target name (never followed).
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-opts
fresh_dir "$RCV" "$DST" >/dev/null
mkdata "$SND" /tmp/e2e-src/o1 70000 >/dev/null

recv_bg o1 "--once -d rxe0 -i 1 -g 1 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send "-d rxe0 -i 1 -g 1 -J" /tmp/e2e-src/o1 "$RCV_IP" 2>/dev/null); rc=$?
recv_wait o1 >/dev/null; rrc=$?
[ $rc = 0 ] && [ $rrc = 0 ] && echo "$out" | grep -q '"gid_index":1' &&
	[ "$(digest "$SND" /tmp/e2e-src/o1)" = "$(digest "$RCV" "$DST/o1")" ] &&
	ok "-d rxe0 -i 1 -g 1 on both sides: pushed, GID index 1 reported" ||
	fail "-d/-i/-g" "sender $rc, receiver $rrc: $out"

# A device that is not there (-d nosuch0) fails before connecting:
# tests/e2e/startup.sh.

# A GID index with nothing behind it: the sender gives up after its
# control connection (the GID is chosen for the address it leaves from),
# before any push, so the --once receiver listens on and is stopped.
recv_bg o3 "--once -o $DST" >/dev/null
out=$(send "-g 9 --as o3" /tmp/e2e-src/o1 "$RCV_IP" 2>&1); rc=$?
"$LAB" signal "$RCV" o3 TERM >/dev/null 2>&1
recv_wait o3 >/dev/null 2>&1
[ $rc = 4 ] && [ "$(echo "$out" | wc -l)" = 2 ] &&
	echo "$out" | grep -q 'GID index 9 not found on any active port' &&
	echo "$out" | grep -q "hint: .*'rdmapush devices' lists" &&
	ok "-g 9 (empty): exit 4, one line and a hint that points at 'rdmapush devices'" ||
	fail "-g 9" "exit $rc: $out"

# A symlink at the target name, pointing outside the directory.
on "$RCV" "echo precious > /tmp/e2e-outside; ln -sfn /tmp/e2e-outside $DST/link" >/dev/null
recv_bg o4 "--once -o $DST" >/dev/null
send "--as link" /tmp/e2e-src/o1 "$RCV_IP" >/dev/null 2>&1; rc=$?
recv_wait o4 >/dev/null 2>&1
[ $rc = 6 ] && [ "$(on "$RCV" "cat /tmp/e2e-outside")" = precious ] &&
	[ "$(on "$RCV" "readlink $DST/link")" = /tmp/e2e-outside ] &&
	ok "symlink at the name: refused (exit 6), link and its target untouched" ||
	fail "symlink refused" "exit $rc"
recv_bg o5 "--once --force -o $DST" >/dev/null
send "--as link" /tmp/e2e-src/o1 "$RCV_IP" >/dev/null 2>&1; rc=$?
recv_wait o5 >/dev/null 2>&1
[ $rc = 0 ] && [ "$(on "$RCV" "cat /tmp/e2e-outside")" = precious ] &&
	[ "$(on "$RCV" "test -L $DST/link || echo regular")" = regular ] &&
	[ "$(digest "$SND" /tmp/e2e-src/o1)" = "$(digest "$RCV" "$DST/link")" ] &&
	ok "symlink with --force: replaced by the file, the link's target untouched" ||
	fail "symlink --force" "exit $rc"
done_testing
