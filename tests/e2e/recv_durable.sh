#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# The receiver's directory and disk (issue 8, items 3 and 5): an -o it
# cannot write fails at startup, naming it; stale hidden temporaries of
# ours are removed at startup, other files are not; a sender cannot name
# its file after our temporary pattern (exit 2); --max-size refuses
# larger files (exit 6, both sizes named); a push under the limit is
# answered once synced (FACK). SYNC, sent only while a sync lasts past
# 0.25 s, needs a slow disk: test_session.c wraps one (the guests' /tmp
# is tmpfs, where no sync lasts that long).
. "$(dirname "$0")/lib.sh"

RO=/tmp/e2e-ro
on "$RCV" "umount $RO 2>/dev/null; mkdir -p $RO && mount -t tmpfs -o ro tmpfs $RO" >/dev/null ||
	{ fail "read-only directory" "could not mount a read-only tmpfs"; exit 1; }
t0=$(date +%s)
out=$(on "$RCV" "timeout 10 $RP recv -p $PORT -o $RO" 2>&1); rc=$?
t1=$(date +%s)
on "$RCV" "umount $RO" >/dev/null
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $((t1 - t0)) -le 5 ] &&
	echo "$out" | grep -q "cannot write into $RO" &&
	! echo "$out" | grep -q listening; then
	ok "unwritable -o: recv exits $rc at once, naming $RO, before listening"
else
	fail "unwritable -o" "exit $rc after $((t1 - t0)) s: $out"
fi

DST=/tmp/e2e-durable
fresh_dir "$RCV" "$DST" >/dev/null
on "$RCV" "cd $DST && touch .big.iso.rdmapush-Ab12Cd .x.rdmapush-zzzzzz keep.rdmapush-Ab12Cd .y.rdmapush-short" >/dev/null
mkdata "$SND" /tmp/e2e-src/d1 $((5 << 20)) >/dev/null
recv_bg dur "-t -o $DST --max-size 4M" || { fail "receiver start" "did not listen"; exit 1; }
left=$(entries "$RCV" "$DST" | tr '\n' ' ')
[ "$left" = ".y.rdmapush-short keep.rdmapush-Ab12Cd " ] &&
	ok "stale temporaries removed at startup, look-alikes kept" ||
	fail "stale temporaries" "left: $left"
"$LAB" log "$RCV" dur 2>&1 | grep -q 'removed .big.iso.rdmapush-Ab12Cd, a temporary file left by a receiver' &&
	ok "each removal is reported" ||
	fail "removal reported" "$("$LAB" log "$RCV" dur 2>&1 | head -5)"

# Since version 3 the sender checks --as itself: a usage error (exit 2).
out=$(send "--as .d1.rdmapush-Ab12Cd" /tmp/e2e-src/d1 "$RCV_IP" 2>&1); src=$?
[ $src -eq 2 ] && echo "$out" | grep -q 'reserved' &&
	ok "a name of our temporary pattern is refused (exit 2, 'reserved')" ||
	fail "temp pattern name" "exit $src: $out"

out=$(send /tmp/e2e-src/d1 "$RCV_IP" 2>&1); src=$?
[ $src -eq 6 ] && "$LAB" log "$RCV" dur 2>&1 | grep -q 'offers a file of 5242880 bytes, above this receiver.s --max-size of 4194304 bytes' &&
	ok "--max-size 4M refuses a 5 MiB file (exit 6), naming both sizes" ||
	fail "--max-size" "exit $src: $out"

mkdata "$SND" /tmp/e2e-src/d2 $((3 << 20)) >/dev/null
out=$(send "-t" /tmp/e2e-src/d2 "$RCV_IP" 2>&1); src=$?
[ $src -eq 0 ] && echo "$out" | grep -q '<- FACK id=0 status=0 (ok) bytes=3145728' &&
	[ "$(digest "$SND" /tmp/e2e-src/d2)" = "$(digest "$RCV" "$DST/d2")" ] &&
	ok "a push under the limit succeeds; the sender traces the receiver's FACK" ||
	fail "push under the limit" "exit $src: $(echo "$out" | grep -e FACK -e SYNC -e error)"
[ "$(entries "$RCV" "$DST" | tr '\n' ' ')" = ".y.rdmapush-short d2 keep.rdmapush-Ab12Cd " ] &&
	ok "nothing else left in the directory" ||
	fail "directory after" "$(entries "$RCV" "$DST" | tr '\n' ' ')"
"$LAB" signal "$RCV" dur TERM
recv_wait dur >/dev/null 2>&1
done_testing
