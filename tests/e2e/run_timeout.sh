#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# tests/e2e/run's per-script time limit: a script that hangs (here with a
# child of its own) is stopped at RP_E2E_TIMEOUT with what it started,
# counts as one failure with a line saying so, and the run goes on with
# the next script. The inner run's lines go to a file, not to ours, so
# its "ok" lines are not counted as this script's. On the host, no lab.
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d /tmp/rdmapush-e2e-timeout.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat >"$T/hang.sh" <<'SH'
# modes: host
echo "ok - before the hang"
sleep 300 &
echo $! >"$(dirname "$0")/child.pid"
wait
echo "1..1"
SH
cat >"$T/next.sh" <<'SH'
# modes: host
echo "ok - the next script"
echo "1..1"
SH

t0=$SECONDS
RP_E2E_TIMEOUT=2 "$TOP/tests/e2e/run" "$T/hang.sh" "$T/next.sh" \
	>"$T/out" 2>&1
rc=$?
took=$((SECONDS - t0))
line=$(grep '^not ok - ' "$T/out")
if [ "$rc" = 1 ] && [ "$took" -lt 30 ] &&
	[ "$line" = "not ok - host: hang: timed out after 2 s (RP_E2E_TIMEOUT); stopped before its end (no plan line 1..N)" ] &&
	grep -qx 'ok - the next script' "$T/out" &&
	grep -qx 'e2e: 2 passed, 1 failed' "$T/out"; then
	ok "a hung script is stopped at RP_E2E_TIMEOUT and counted as one failure"
else
	fail "a hung script is stopped at RP_E2E_TIMEOUT" \
		"status $rc after ${took} s: $(tr '\n' '|' <"$T/out")"
fi
# alive PID: it runs (a zombie not yet reaped does not count).
alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st#Z}" = "$st" ]
}
child=$(cat "$T/child.pid" 2>/dev/null)
for _ in $(seq 50); do
	[ -n "$child" ] && alive "$child" || break
	sleep 0.1
done
if [ -n "$child" ] && ! alive "$child"; then
	ok "what the hung script started is stopped with it"
else
	fail "what the hung script started is stopped with it" \
		"pid ${child:-?} still runs 5 s after the run"
	[ -z "$child" ] || kill "$child" 2>/dev/null
fi

RP_E2E_TIMEOUT=soon "$TOP/tests/e2e/run" "$T/next.sh" >"$T/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "RP_E2E_TIMEOUT must be a number" "$T/out"; then
	ok "RP_E2E_TIMEOUT that is not a number is refused"
else
	fail "RP_E2E_TIMEOUT=soon" "status $rc: $(tr '\n' '|' <"$T/out")"
fi
done_testing
