#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Bounded memory: with the same ring (window x chunk), the peak resident
# memory of both sides is the same for a 4 MiB and a 64 MiB file.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-mem
OPTS="-c 256K -w 4"	# ring 1 MiB
fresh_dir "$RCV" "$DST" >/dev/null

peak() {	# peak SIZE-LABEL BYTES -> "sender_kib receiver_kib"
	local label=$1 bytes=$2 s r
	mkdata "$SND" /tmp/e2e-src/$label "$bytes" >/dev/null
	"$LAB" bg "$RCV" mem -- "exec /usr/bin/time -f maxrss=%M $RP recv --once -q -p $PORT -o $DST"
	await_listen "$RCV" || return 1
	s=$(on "$SND" "/usr/bin/time -f maxrss=%M $RP send -q -p $PORT $OPTS /tmp/e2e-src/$label $RCV_IP" 2>&1 |
		sed -n 's/^maxrss=//p')
	r=$(recv_wait mem 2>&1 | sed -n 's/^maxrss=//p')
	on "$RCV" "rm -f $DST/$label" >/dev/null
	on "$SND" "rm -f /tmp/e2e-src/$label" >/dev/null
	echo "$s $r"
}

small=$(peak small $((4 << 20)))
large=$(peak large $((64 << 20)))
read -r s1 r1 <<<"$small"
read -r s2 r2 <<<"$large"
echo "# peak RSS KiB: 4 MiB file: send $s1 recv $r1; 64 MiB file: send $s2 recv $r2"
if [ -n "$s2" ] && [ -n "$r2" ] && [ $((s2 - s1)) -lt 2048 ] && [ $((r2 - r1)) -lt 2048 ]; then
	ok "resident memory flat from 4 MiB to 64 MiB (send +$((s2 - s1)) KiB, recv +$((r2 - r1)) KiB)"
else
	fail "resident memory flat" "4 MiB: $small, 64 MiB: $large (KiB)"
fi
done_testing
