#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Refusals: an existing file without --force, a bad --as name, a missing
# source (alone: before connecting). Each: a clear error, the documented
# exit code, nothing left.
# Since version 3 a refused entry ends the session with "done, but 1
# entry failed; the first: ..." and the session's counts.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-refuse
fresh_dir "$RCV" "$DST" >/dev/null
on "$RCV" "echo original > $DST/taken" >/dev/null
mkdata "$SND" /tmp/e2e-src/taken 5000 >/dev/null

recv_bg exist "--once -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
rout=$(recv_wait exist 2>&1); rrc=$?
if [ $src -eq 6 ] && [ $rrc -eq 6 ] && echo "$out" | grep -q 'file exists' &&
	echo "$out" | grep -q 'push done, but 1 entry failed; the first: .*file exists' &&
	echo "$out" | grep -q '; 0 skipped, 1 failed$'; then
	ok "existing file refused: sender and receiver exit 6, 'file exists', counted"
else
	fail "existing file refused" "sender $src, receiver $rrc: $out $rout"
fi
[ "$(on "$RCV" "cat $DST/taken")" = original ] && [ "$(entries "$RCV" "$DST")" = taken ] &&
	ok "existing file untouched, nothing else created" ||
	fail "existing file untouched" "$(entries "$RCV" "$DST")"

recv_bg force "--once --force -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
send /tmp/e2e-src/taken "$RCV_IP" >/dev/null 2>&1; src=$?
recv_wait force >/dev/null; rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] &&
	[ "$(digest "$SND" /tmp/e2e-src/taken)" = "$(digest "$RCV" "$DST/taken")" ] &&
	ok "--force replaces the existing file" ||
	fail "--force replaces" "sender $src, receiver $rrc"

# --as renames one source and must be a plain name: a usage error (exit
# 2, src/walk.c) said before connecting (no receiver listens here).
for bad in '../x' '.' '..' 'a/b' '/etc/passwd'; do
	out=$(send "--as '$bad'" /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
	[ $src -eq 2 ] && echo "$out" | grep -q -F -- "--as \"$bad\"" &&
		! echo "$out" | grep -q connect &&
		ok "bad --as name '$bad' refused with exit 2 before connecting" ||
		fail "bad --as '$bad'" "exit $src: $out"
done

# A source that cannot be sent, alone, is refused before connecting
# (exit 2; no receiver listens here). Among others it is a failed entry
# of the session, and the others arrive.
out=$(send /tmp/e2e-src/does-not-exist "$RCV_IP" 2>&1); src=$?
[ $src -eq 2 ] &&
	echo "$out" | grep -q 'cannot send /tmp/e2e-src/does-not-exist: No such file' &&
	! echo "$out" | grep -qi 'connect\|refused' &&
	ok "lone missing source: exit 2 naming the file, before connecting" ||
	fail "lone missing source" "exit $src: $out"

mkdata "$SND" /tmp/e2e-src/extra 3000 >/dev/null
recv_bg missing "--once -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send /tmp/e2e-src/does-not-exist /tmp/e2e-src/extra "$RCV_IP" 2>&1); src=$?
recv_wait missing >/dev/null 2>&1
[ $src -eq 5 ] && echo "$out" | grep -q 'does-not-exist.*No such file' &&
	echo "$out" | grep -q 'push done, but 1 entry failed; the first: ' &&
	[ "$(digest "$SND" /tmp/e2e-src/extra)" = "$(digest "$RCV" "$DST/extra")" ] &&
	ok "missing source among others: exit 5 naming it, the other arrives" ||
	fail "missing source among others" "exit $src: $out"
on "$RCV" "rm -f $DST/extra" >/dev/null

out=$(send /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
[ $src -eq 4 ] && echo "$out" | grep -qi 'refused' &&
	ok "no receiver listening: exit 4, connection refused" ||
	fail "no receiver" "exit $src: $out"
[ "$(entries "$RCV" "$DST")" = taken ] &&
	ok "refusals left nothing behind in the target directory" ||
	fail "nothing left behind" "$(entries "$RCV" "$DST")"
done_testing
