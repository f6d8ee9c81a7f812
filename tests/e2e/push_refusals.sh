#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Refusals: an existing file without --force, a bad --as name, a missing
# source. Each: a clear error, the documented exit code, nothing left.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-refuse
fresh_dir "$RCV" "$DST" >/dev/null
on "$RCV" "echo original > $DST/taken" >/dev/null
mkdata "$SND" /tmp/e2e-src/taken 5000 >/dev/null

recv_bg exist "--once -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
rout=$(recv_wait exist 2>&1); rrc=$?
if [ $src -eq 6 ] && [ $rrc -eq 6 ] && echo "$out" | grep -q 'file exists'; then
	ok "existing file refused: sender and receiver exit 6, 'file exists'"
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

for bad in '../x' '.' '..' 'a/b' '/etc/passwd'; do
	out=$(send "--as '$bad'" /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
	[ $src -eq 6 ] && echo "$out" | grep -q 'cannot send as' &&
		ok "bad --as name '$bad' refused with exit 6" ||
		fail "bad --as '$bad'" "exit $src: $out"
done

out=$(send /tmp/e2e-src/does-not-exist "$RCV_IP" 2>&1); src=$?
[ $src -eq 5 ] && echo "$out" | grep -q 'No such file' &&
	ok "missing source: exit 5 naming the file" ||
	fail "missing source" "exit $src: $out"

out=$(send /tmp/e2e-src/taken "$RCV_IP" 2>&1); src=$?
[ $src -eq 4 ] && echo "$out" | grep -qi 'refused' &&
	ok "no receiver listening: exit 4, connection refused" ||
	fail "no receiver" "exit $src: $out"
[ "$(entries "$RCV" "$DST")" = taken ] &&
	ok "refusals left nothing behind in the target directory" ||
	fail "nothing left behind" "$(entries "$RCV" "$DST")"
done_testing
