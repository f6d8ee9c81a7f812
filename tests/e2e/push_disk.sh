#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: disk
# On a real block device: a 256 MiB file, 32 times the default ring
# (8 chunks of 1 MiB), pushed from A's /data to B's /data (ext4 on each
# guest's virtio disk) arrives byte-identical, and each side's peak
# resident memory stays under 64 MiB: the VmHWM of rdmapush send on A
# and of rdmapush recv on B, polled from /proc/PID/status while each
# runs (scripts/lab/vmhwm; the last value read before it exits).
. "$(dirname "$0")/lib.sh"

SIZE=$((256 << 20))
BOUND_KIB=$((64 << 10))
SRC=/data/e2e-disk/big
DST=/data/e2e-disk-in
VMHWM=$TOP/scripts/lab/vmhwm

for n in "$SND" "$RCV"; do
	on "$n" "mountpoint -q /data && [ \$(stat -f -c %T /data) = ext2/ext3 ]" ||
		{ fail "disk" "$n has no ext4 disk at /data (rdma-lab start --disk)"; done_testing; }
done
mkdata "$SND" $SRC $SIZE >/dev/null || { fail "make the file" "on $SND"; done_testing; }
fresh_dir "$RCV" $DST >/dev/null
want=$(digest "$SND" $SRC)

"$LAB" bg "$RCV" rx -- "exec $VMHWM $RP recv --once -q -p $PORT -o $DST"
await_listen "$RCV" || { fail "receiver" "did not listen"; done_testing; }
sout=$(on "$SND" "$VMHWM $RP send -q -p $PORT $SRC $RCV_IP" 2>&1)
src=$?
rout=$(recv_wait rx 300 2>&1)
rrc=$?
echo "$sout" | sed 's/^/# send: /'
echo "$rout" | sed 's/^/# recv: /'

got=$(digest "$RCV" $DST/big)
if [ $src = 0 ] && [ $rrc = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "256 MiB file /data -> /data byte-identical (sha256 on each side)"
else
	fail "256 MiB file /data -> /data byte-identical" \
		"send rc $src, recv rc $rrc, sha256 $want on $SND, '$got' on $RCV"
fi

# hwm_check SIDE OUTPUT: its vmhwm line's max_kib under the bound.
hwm_check() {
	local kib
	kib=$(sed -n 's/^vmhwm: max_kib=\([0-9]*\).*/\1/p' <<<"$2" | tail -1)
	if [ -n "$kib" ] && [ "$kib" -gt 0 ] && [ "$kib" -lt $BOUND_KIB ]; then
		ok "rdmapush $1's peak RSS (VmHWM) $kib KiB < $BOUND_KIB KiB"
	else
		fail "rdmapush $1's peak RSS (VmHWM) under $BOUND_KIB KiB" "VmHWM '${kib:-none}' KiB"
	fi
}
hwm_check send "$sout"
hwm_check recv "$rout"
on "$SND" "rm -rf ${SRC%/*}" >/dev/null
on "$RCV" "rm -rf $DST" >/dev/null
done_testing
