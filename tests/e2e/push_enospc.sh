#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ops: read send
# modes: two
# A full disk. Up front: a file larger than the free space is refused
# (exit 6) before any memory is registered. Mid-transfer (the receiver
# told not to reserve space, as on a file system without fallocate, and
# the disk filled by someone else meanwhile): the receiver aborts with
# ENOSPC, the sender is told so (exit 6, as up front), and nothing is
# left behind. The sender shows the receiver's own words.
# In a session of several files, one that does not fit fails, whether
# refused when its FILE comes (larger than the free space) or on ENOSPC
# while its data lands (the disk filled meanwhile); the files before
# and after it arrive intact, the sender exits 6 naming it, and no
# temporary file is left.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-small-fs
on "$RCV" "umount $DST 2>/dev/null; mkdir -p $DST && mount -t tmpfs -o size=4m tmpfs $DST" >/dev/null ||
	{ fail "small file system" "could not mount a 4 MiB tmpfs"; exit 1; }
mkdata "$SND" /tmp/e2e-src/six $((6 << 20)) >/dev/null
mkdata "$SND" /tmp/e2e-src/three $((3 << 20)) >/dev/null

recv_bg nospc "-t -T 10 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send "-c 64K" /tmp/e2e-src/six "$RCV_IP" 2>&1); rc=$?
log=$("$LAB" log "$RCV" nospc 2>&1)
# The receiver's own words come back in the FACK: "not enough free space".
if [ $rc = 6 ] && echo "$out" | grep -q 'six: .*not enough free space'; then
	ok "6 MiB into 4 MiB free: refused up front (exit 6, 'not enough free space')"
else
	fail "refused up front" "exit $rc: $(echo "$out" | tail -2 | tr '\n' ' ')"
fi
# Refused at its FILE, before any of its data is written: in a session
# of several files the others may fit, so the ring is set up regardless.
! echo "$log" | grep -q 'receiving six into' &&
	echo "$log" | grep -q 'six: not enough free space' &&
	ok "6 MiB into 4 MiB free: refused at its FILE, no temporary file made" ||
	fail "6 MiB into 4 MiB free: refused at its FILE" "$(echo "$log" | grep -E 'six|space' | tail -3 | tr '\n' ' ')"
"$LAB" signal "$RCV" nospc TERM
recv_wait nospc >/dev/null 2>&1

# pace on|off: the sender's egress capped at 8 Mb/s (netem), or not.
pace() {
	if [ "$1" = on ]; then
		on "$SND" "tc qdisc replace dev eth0 root netem rate 8mbit" >/dev/null
	else
		on "$SND" "tc qdisc del dev eth0 root 2>/dev/null; true" >/dev/null
	fi
}

"$LAB" bg "$RCV" nospc2 -- "RDMAPUSH_NO_FALLOCATE=1 exec $RP recv -p $PORT -T 10 -o $DST"
await_listen "$RCV" >/dev/null
# Once the transfer has begun writing (the file system shows blocks in
# use: 20 s at most, else the filler says so and fills nothing), take all
# the space left (the receiver keeps writing meanwhile, hence several
# grabs and the crumbs).
"$LAB" bg "$RCV" filler -- "used() { df -k $DST | awk 'NR==2 { print \$3 }'; }; end=\$((\$(date +%s) + 20)); while [ \$(used) = 0 ]; do [ \$(date +%s) -lt \$end ] || { echo 'filler: nothing written to $DST in 20 s'; exit 1; }; sleep 0.01; done; for k in 1 2 3 4; do fallocate -l \$(df -k $DST | awk 'NR==2 { print \$4 }')K $DST/.filler\$k 2>/dev/null; done; cat /dev/zero > $DST/.crumbs 2>/dev/null; true"
# The push paced by the sender's egress (3 MiB at 8 Mb/s: 3 s or more),
# so that the filler, slow to start in the lab, always fills mid-way.
pace on
"$LAB" bg "$SND" push -- "exec $RP send${OP:+ --op $OP} -p $PORT -c 4K -w 1 /tmp/e2e-src/three $RCV_IP"
out=$("$LAB" wait "$SND" push --timeout 60 2>&1); rc=$?
pace off
fout=$("$LAB" wait "$RCV" filler 2>&1) ||
	fail "ENOSPC mid-transfer: disk filled once writing began" "$fout"
on "$RCV" "rm -f $DST/.filler* $DST/.crumbs" >/dev/null
if [ $rc = 6 ] && echo "$out" | grep -q 'three: .*No space left on device'; then
	ok "disk filled mid-transfer: the sender is told 'No space left on device' (exit 6)"
else
	fail "ENOSPC mid-transfer" "exit $rc: $(echo "$out" | tail -2 | tr '\n' ' ')"
fi
"$LAB" signal "$RCV" nospc2 TERM
rlog=$(recv_wait nospc2 2>&1)
echo "$rlog" | grep -q 'No space left on device' &&
	ok "the receiver names the failure: No space left on device" ||
	fail "receiver's message" "$(echo "$rlog" | grep error | head -2)"
[ -z "$(entries "$RCV" "$DST")" ] && ok "after ENOSPC: no partial or temporary file" ||
	fail "after ENOSPC" "found: $(entries "$RCV" "$DST")"

# session LABEL BIG OUT RC LOG: the checks after a session "x-BIG BIG
# y-BIG" (sender output OUT, exit RC, receiver log LOG) in which BIG
# alone failed.
session() {
	local label=$1 big=$2 out=$3 rc=$4 f same=1
	if [ "$rc" = 6 ] && echo "$out" | grep -q "1 entry failed; the first: $big: .* refused it: .*\\(not enough free space\\|No space left on device\\)"; then
		ok "$label: the sender exits 6, names $big and says why"
	else
		fail "$label: sender" "exit $rc: $(echo "$out" | grep -v '^ok' | tail -3 | tr '\n' ' ')"
	fi
	for f in "x-$big" "y-$big"; do
		[ "$(digest "$SND" "/tmp/e2e-src/$f")" = "$(digest "$RCV" "$DST/$f" 2>/dev/null)" ] || same=0
	done
	[ $same = 1 ] && ok "$label: the files before and after $big arrive intact (sha256)" ||
		fail "$label: other files" "x-$big or y-$big differs or is missing"
	left=$(entries "$RCV" "$DST" | tr '\n' ' ')
	[ "$left" = "x-$big y-$big " ] && ok "$label: no partial or temporary file of $big" ||
		fail "$label: left behind" "found: $left"
	on "$RCV" "rm -f $DST/x-$big $DST/y-$big" >/dev/null
}
for f in x-six y-six x-three y-three; do
	mkdata "$SND" /tmp/e2e-src/$f 200000 >/dev/null
done

# Refused when its FILE comes: 6 MiB into what is left of 4 MiB.
recv_bg nospc3 "-T 10 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
out=$(send "-c 64K" /tmp/e2e-src/x-six /tmp/e2e-src/six /tmp/e2e-src/y-six "$RCV_IP" 2>&1); rc=$?
"$LAB" signal "$RCV" nospc3 TERM
recv_wait nospc3 >/dev/null 2>&1
session "a session, its middle file larger than the free space" six "$out" $rc

# ENOSPC while its data lands: no reservation, and once the middle file
# has begun writing (more in use than the first file), the filler takes
# all the space but 768 KiB and keeps it; it grabs again while the file
# outruns it (a process takes a while to start in the lab) and stops
# once it sees the space taken. The middle file (3 MiB, some 2.8 MiB
# still to write) runs out of that; its blocks go back when it fails,
# before the file after it is opened, which fits in the 768 KiB
# (200000 bytes) whatever the timing.
"$LAB" bg "$RCV" nospc4 -- "RDMAPUSH_NO_FALLOCATE=1 exec $RP recv -p $PORT -T 10 -o $DST"
await_listen "$RCV" >/dev/null
"$LAB" bg "$RCV" filler -- "used() { df -k $DST | awk 'NR==2 { print \$3 }'; }; avail() { df -k $DST | awk 'NR==2 { print \$4 }'; }; end=\$((\$(date +%s) + 30)); while [ \$(used) -lt 400 ]; do [ \$(date +%s) -lt \$end ] || { echo 'filler: three did not begin writing in 30 s'; exit 1; }; sleep 0.01; done; k=0; while a=\$(avail); [ \$a -gt 900 ]; do k=\$((k + 1)); [ \$k -le 8 ] || { echo \"filler: could not fill $DST (\$a KiB still free)\"; exit 1; }; fallocate -l \$((a - 768))K $DST/.filler\$k 2>/dev/null; done"
pace on
out=$(send "-c 4K -w 1" /tmp/e2e-src/x-three /tmp/e2e-src/three /tmp/e2e-src/y-three "$RCV_IP" 2>&1); rc=$?
pace off
fout=$("$LAB" wait "$RCV" filler 2>&1) ||
	fail "ENOSPC mid-session: disk filled once three began writing" "$fout"
on "$RCV" "rm -f $DST/.filler*" >/dev/null
"$LAB" signal "$RCV" nospc4 TERM
rlog=$(recv_wait nospc4 2>&1)
echo "$rlog" | grep -q 'three.*No space left on device' &&
	ok "mid-session: the receiver names the failure: three: No space left on device" ||
	fail "mid-session: receiver's message" "$(echo "$rlog" | grep error | head -2)"
session "a session, its middle file hitting ENOSPC while it lands" three "$out" $rc
on "$RCV" "umount $DST" >/dev/null
done_testing
