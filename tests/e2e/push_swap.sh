#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: one
# The sender never sends a file from outside the tree it was given, even
# when a directory of the tree is swapped for a symlink while the tree is
# pushed: a link made before the push is skipped, and a directory swapped
# after the sender opened it for a file (the sender stopped with SIGSTOP
# while it sends that file, so the timing is ours) goes on giving the
# files the walk listed in it from the directory opened, never from
# behind the link: the private file never reaches the receiver. (A
# directory swapped before its first file is opened is refused: unit
# tests test_swapped_dir and test_dir_kept in tests/unit/test_walk.c.)
. "$(dirname "$0")/lib.sh"

W=/tmp/e2e-swap
SRC=$W/src/tree
DST=$W/dst
MARK=PRIVATE-BYTES-e2e-swap

# tree/b/big1 (slow to send with 64 KiB chunks, one in flight), then
# tree/b/f2, the decoy; tree/c -> private from the start; private/f2, 0600,
# holds MARK.
on "$SND" "rm -rf $W && mkdir -p $SRC/b $W/private $DST &&
	head -c $((48 << 20)) /dev/urandom > $SRC/b/big1 &&
	echo decoy > $SRC/b/f2 && chmod 0644 $SRC/b/f2 &&
	echo $MARK > $W/private/f2 && chmod 0600 $W/private/f2 &&
	ln -s $W/private $SRC/c" >/dev/null ||
	{ fail "make the tree" "on $SND"; done_testing; }

recv_bg swaprecv "--once -o $DST" ||
	{ fail "receiver start" "did not listen"; done_testing; }
"$LAB" bg "$SND" swapsend -- "echo \$\$ > $W/pid; exec $RP send -p $PORT -r -t -c 64K -w 1 $SRC $RCV_IP 2>$W/snd.err"

# Once big1 is being sent, stop the sender, swap b for a link to the
# private directory, and let it go on. "late": it had opened f2 already
# (the test would then prove nothing).
swap=$(on "$SND" "for i in \$(seq 6000); do grep -q 'sending .*/b/big1 ' $W/snd.err && break; sleep 0.01; done
	kill -STOP \$(cat $W/pid)
	grep -q 'sending .*/b/big1 ' $W/snd.err || echo 'big1 never sent'
	grep -q 'sending .*/b/f2 ' $W/snd.err && echo late
	mv $SRC/b $W/b.old && ln -s $W/private $SRC/b && echo swapped
	kill -CONT \$(cat $W/pid)" 2>&1)
"$LAB" wait "$SND" swapsend --timeout 300 >/dev/null 2>&1
src=$?
rcv=$(recv_wait swaprecv 300 2>&1)
rrc=$?
if [ "$swap" = swapped ]; then
	ok "b swapped for a link while big1 was sent, before f2 was opened"
else
	fail "the swap" "$(echo "$swap" | tr '\n' ' ')"
fi
err=$(on "$SND" "grep -v -e '^ *\[' -e '^rdmapush: trace' $W/snd.err | grep -e 'b/f2' -e 'c:' -e failed -e skipped | tail -5")
if on "$RCV" "test -s $DST/tree/b/big1 && grep -qx decoy $DST/tree/b/f2 && ! test -e $DST/tree/c && ! grep -rqF $MARK $DST"; then
	ok "big1 and b's own f2 arrived, read from the b the walk opened; nothing from behind either link"
else
	fail "what arrived" "$(on "$RCV" "cd $DST && find . -type f | head; grep -rlF $MARK . | head -3")"
fi
if [ $src -eq 0 ] && on "$SND" "! grep -q 'not following' $W/snd.err && grep -q -E '1 skipped, 0 failed\$' $W/snd.err"; then
	ok "the sender skips c, counts it, exits 0"
else
	fail "sender's report" "exit $src: $err"
fi
[ $rrc -eq 0 ] && ok "the receiver ends its session: exit 0" ||
	fail "receiver" "exit $rrc: $(echo "$rcv" | tail -2)"
on "$SND" "rm -rf $W" >/dev/null
done_testing
