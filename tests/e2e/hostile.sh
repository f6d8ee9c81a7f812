#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Hostile control input against a running receiver (tests/e2e/hostile.py):
# each case is refused with the right status or cut off by the deadline;
# hostile paths (.., absolute, through a symlink planted in DIR) are
# refused and nothing is created outside DIR; the receiver then still
# serves a real push.
. "$(dirname "$0")/lib.sh"

HDIR=/tmp/e2e-hostile		# everything the attacks aim at is under it
DST=$HDIR/top/dst
OUTSIDE=$HDIR/outside
on "$RCV" "rm -rf $HDIR && mkdir -p $DST $OUTSIDE && ln -s $OUTSIDE $DST/link" >/dev/null ||
	{ fail "setup" "could not make $DST"; exit 1; }
# The tree around DIR, and the root, as they were before.
around() { on "$RCV" "find $HDIR -path $DST -prune -o -print | LC_ALL=C sort; ls -A /"; }
before=$(around)
recv_bg hostile "-T 5 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
# An empty file's checksum: it has no chunk, so in version 4 as before
# it is the XXH3-128 of nothing.
empty=$(on "$SND" "xxhsum -H2 /dev/null 2>/dev/null" | cut -d' ' -f1)
A_IP=$("$LAB" ip "$SND")
# hostile.py reports one case per line; relay counts them as ours.
RP_E2E_TIMEOUT=900 relay "hostile.py" on "$SND" "python3 $TOP/tests/e2e/hostile.py $RCV_IP $PORT $A_IP 5 $empty"

after=$(around)
[ "$before" = "$after" ] && ok "nothing created outside DIR (its parent, the symlink's target, /)" ||
	fail "nothing outside DIR" "$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ')"

# A regular file gets no FACK from a peer that cannot write its data:
# its refusal shows in the receiver's log (paths escaped as sent).
log=$("$LAB" log "$RCV" hostile 2>&1)
for want in '("../x.reg"): ".." component' '("/tmp/e2e-hostile/abs.reg"): absolute path' \
	'("a/../../b.reg"): ".." component' '("d/../../e.reg"): ".." component' \
	'link/x.reg: openat(link, O_NOFOLLOW|O_DIRECTORY): a symbolic link' \
	'huge.bin: not enough free space'; do
	echo "$log" | grep -qF -- "$want" && ok "regular file refused at FILE: receiver says $want" ||
		fail "regular file refused at FILE" "no '$want' in the receiver's log"
done

mkdata "$SND" /tmp/e2e-src/after-hostile 300000 >/dev/null
if send "-c 64K" /tmp/e2e-src/after-hostile "$RCV_IP" >/dev/null 2>&1 &&
	[ "$(digest "$SND" /tmp/e2e-src/after-hostile)" = "$(digest "$RCV" "$DST/after-hostile")" ]; then
	ok "receiver still serves a real push after every hostile case"
else
	fail "receiver still serves" "push after the hostile cases failed"
fi
# What the accepted entries made (directories made before a later entry
# of their session was refused stay), the planted link, and nothing else.
left=$(on "$RCV" "cd $DST && find . -mindepth 1 | LC_ALL=C sort" | tr '\n' ' ')
want="./after-hostile ./d ./fin-count ./fin-zero ./good-dir ./ids0 ./link ./twice0 "
[ "$left" = "$want" ] && ok "only the accepted entries exist in the target directory" ||
	fail "nothing left behind" "directory holds: $left"
[ -z "$(on "$RCV" "ls -A $OUTSIDE")" ] && ok "the symlink's target directory is still empty" ||
	fail "symlink target" "holds: $(on "$RCV" "ls -A $OUTSIDE")"
"$LAB" signal "$RCV" hostile TERM
recv_wait hostile 30 >/dev/null && ok "receiver exits 0 on SIGTERM after the hostile run" ||
	fail "receiver exit" "status $?"
done_testing
