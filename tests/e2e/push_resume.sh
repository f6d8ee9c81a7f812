#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Interrupted pushes on real RDMA: a sender killed with SIGKILL at about
# half of a 64 MiB file leaves the receiver its verified part, and
# --resume then sends at most 55% of the bytes (its --json data_bytes),
# byte-identical; a receiver's child killed with SIGKILL once it has
# journalled some of the file, the receiver restarted, then --resume
# sends less than the whole file, byte-identical; --update=checksum on a
# tree sends exactly the one file whose bytes changed under the same
# size and mtime.
. "$(dirname "$0")/lib.sh"

W=/tmp/e2e-resume
DST=/tmp/e2e-resume-dst
SIZE=$((64 << 20))

mkdata "$SND" $W/big $SIZE >/dev/null || { fail "make the file" "on $SND"; done_testing; }
fresh_dir "$RCV" $DST >/dev/null
want=$(digest "$SND" $W/big)

# push_killed JOB: push big in the background, killed (SIGKILL) by a
# watcher on the sender once its trace says 32 to 49 of the 64 chunks of
# 1 MiB were taken by the receiver (data.progress doubles its marks):
# about half. Prints "killed", or "done" if it ended first.
push_killed() {
	on "$SND" "$RP send -p $PORT -t -c 1M $W/big $RCV_IP 2>$W/$1.err & p=\$!
		while kill -0 \$p 2>/dev/null && ! grep -qE ' (3[2-9]|4[0-9])/[0-9]+ chunks posted' $W/$1.err; do sleep 0.02; done
		kill -KILL \$p 2>/dev/null && echo killed || echo done
		wait \$p"
}

# resumed LABEL PERCENT: push again with --resume; the file must arrive
# whole and the data moved be at most PERCENT% of it.
resumed() {
	local out moved
	out=$(send "--resume --json -c 1M $W/big $RCV_IP" 2>&1)
	moved=$(echo "$out" | sed -n 's/.*"type": *"session".*"data_bytes": *\([0-9]*\).*/\1/p')
	if [ "$(digest "$RCV" $DST/big)" = "$want" ] &&
		[ -n "$moved" ] && [ "$moved" -le $((SIZE * $2 / 100)) ]; then
		ok "$1: --resume sent $moved of $SIZE bytes; the file is byte-identical"
	else
		fail "$1: resume" "moved '$moved': $(echo "$out" | tail -3 | tr '\n' ' ')"
	fi
	if [ "$(entries "$RCV" $DST)" = big ]; then
		ok "$1: nothing but the file is left"
	else
		fail "$1: leftovers" "$(entries "$RCV" $DST | tr '\n' ' ')"
	fi
}

# 1. The sender killed outright at about half.
recv_bg rres "-o $DST" || { fail "receiver start" "did not listen"; done_testing; }
if [ "$(push_killed s1)" = killed ]; then
	if await_on "$RCV" 30 "test -s $DST/.big.rdmapush-journal && test -s $DST/.big.rdmapush-partial"; then
		ok "sender killed at half: the receiver keeps a partial and its journal"
	else
		fail "partial kept" "$(entries "$RCV" $DST | tr '\n' ' ')"
	fi
	resumed "sender killed" 55
else
	fail "sender killed" "the push ended before it was half-way"
fi

# 2. The receiver's child killed outright once it has journalled some
# of the file (a file this large is written under its partial's name
# from the start), the receiver restarted, then --resume.
on "$RCV" "rm -f $DST/big" >/dev/null
# One chunk of 256 KiB in flight: slow enough to kill it mid-way.
"$LAB" bg "$SND" s2 -- "exec $RP send -p $PORT -c 256K -w 1 $W/big $RCV_IP"
if await_on "$RCV" 300 "test -s $DST/.big.rdmapush-journal"; then
	on "$RCV" "pkill -KILL -n -f 'rdmapush recv -p $PORT'" >/dev/null
	"$LAB" wait "$SND" s2 --timeout 60 >/dev/null 2>&1
	on "$RCV" "pkill -TERM -f 'rdmapush recv -p $PORT'" >/dev/null
	recv_wait rres 30 >/dev/null 2>&1
	recv_bg rres2 "-o $DST" || { fail "receiver restart" "did not listen"; done_testing; }
	resumed "receiver's child killed, receiver restarted" 99
	on "$RCV" "pkill -TERM -f 'rdmapush recv -p $PORT'" >/dev/null
	recv_wait rres2 30 >/dev/null 2>&1
else
	fail "receiver killed" "no journal while the file was written"
fi

# 3. --update=checksum on a tree: one file's bytes changed, same size
# and mtime.
T=$W/tree
on "$SND" "rm -rf $T && mkdir -p $T/a $T/b &&
	for i in 1 2 3 4 5 6 7 8; do head -c \$((i * 10000)) /dev/urandom > $T/a/f\$i; head -c 777 /dev/urandom > $T/b/g\$i; done" >/dev/null
fresh_dir "$RCV" $DST >/dev/null
recv_bg rupd "-o $DST" || { fail "receiver start" "did not listen"; done_testing; }
send "-r -k $T $RCV_IP" >/dev/null 2>&1 || fail "first push of the tree" "failed"
on "$SND" "t=\$(stat -c %Y $T/b/g5) && head -c 777 /dev/urandom > $T/b/g5 && touch -d @\$t $T/b/g5" >/dev/null
out=$(send "-r --update=checksum --json $T $RCV_IP" 2>&1)
sent=$(echo "$out" | grep -c '"type": *"entry".*"status": *"ok".*"bytes": *777')
uptodate=$(echo "$out" | grep -c '"status": *"up-to-date"')
if [ "$sent" = 1 ] && [ "$uptodate" = 15 ] &&
	[ "$(digest "$RCV" $DST/tree/b/g5)" = "$(digest "$SND" $T/b/g5)" ]; then
	ok "--update=checksum on a tree of 16 files sends the one changed"
else
	fail "--update=checksum" "sent $sent, up to date $uptodate: $(echo "$out" | tail -2 | tr '\n' ' ')"
fi
on "$RCV" "pkill -TERM -f 'rdmapush recv -p $PORT'" >/dev/null
recv_wait rupd 30 >/dev/null 2>&1
done_testing
