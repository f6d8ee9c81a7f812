#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Hostile control input against a running receiver (tests/e2e/hostile.py):
# each case is refused with the right status or cut off by the deadline,
# nothing is left on disk, and the receiver then still serves a real push.
. "$(dirname "$0")/lib.sh"

DST=/tmp/e2e-hostile
fresh_dir "$RCV" "$DST" >/dev/null
recv_bg hostile "-T 5 -o $DST" || { fail "receiver start" "did not listen"; exit 1; }
empty=$(on "$SND" "xxhsum -H2 /dev/null 2>/dev/null" | cut -d' ' -f1)
A_IP=$("$LAB" ip "$SND")
# hostile.py reports one case per line; relay counts them as ours.
RP_E2E_TIMEOUT=600 relay "hostile.py" on "$SND" "python3 $TOP/tests/e2e/hostile.py $RCV_IP $PORT $A_IP 5 $empty"

mkdata "$SND" /tmp/e2e-src/after-hostile 300000 >/dev/null
if send "-c 64K" /tmp/e2e-src/after-hostile "$RCV_IP" >/dev/null 2>&1 &&
	[ "$(digest "$SND" /tmp/e2e-src/after-hostile)" = "$(digest "$RCV" "$DST/after-hostile")" ]; then
	ok "receiver still serves a real push after every hostile case"
else
	fail "receiver still serves" "push after the hostile cases failed"
fi
left=$(entries "$RCV" "$DST" | sort | tr '\n' ' ')
[ "$left" = "after-hostile good-empty.bin " ] &&
	ok "only the two accepted files exist in the target directory" ||
	fail "nothing left behind" "directory holds: $left"
"$LAB" signal "$RCV" hostile TERM
recv_wait hostile 30 >/dev/null && ok "receiver exits 0 on SIGTERM after the hostile run" ||
	fail "receiver exit" "status $?"
done_testing
