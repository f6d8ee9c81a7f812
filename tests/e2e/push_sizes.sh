#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ops: read send
# modes: one two
# Byte-identical pushes at every size boundary, all served by one
# receiver in a row, which then exits cleanly on SIGTERM.
. "$(dirname "$0")/lib.sh"

CHUNK=65536
WINDOW=4	# ring = 256 KiB, so 3 MiB is 12 rings
SRC=/tmp/e2e-src
DST=/tmp/e2e-dst

fresh_dir "$RCV" "$DST" >/dev/null
recv_bg sizes "-o $DST" || { fail "receiver start" "did not listen"; exit 1; }

push_one() {	# push_one LABEL BYTES [send options]
	local label=$1 bytes=$2 want got out
	shift 2
	mkdata "$SND" "$SRC/$label" "$bytes" >/dev/null
	if ! out=$(send "$*" "$SRC/$label" "$RCV_IP" 2>&1); then
		fail "push $label ($bytes bytes)" "sender failed: $(echo "$out" | tail -2)"
		return
	fi
	want=$(digest "$SND" "$SRC/$label")
	got=$(digest "$RCV" "$DST/$label")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "push $label ($bytes bytes) byte-identical"
	else
		fail "push $label ($bytes bytes)" "sha256 differs: $want vs $got"
	fi
}

push_one empty 0 -c $CHUNK -w $WINDOW
push_one one-byte 1 -c $CHUNK -w $WINDOW
push_one chunk-minus-1 $((CHUNK - 1)) -c $CHUNK -w $WINDOW
push_one chunk $CHUNK -c $CHUNK -w $WINDOW
push_one chunk-plus-1 $((CHUNK + 1)) -c $CHUNK -w $WINDOW
push_one 12-rings $((3 * 1024 * 1024 + 12345)) -c $CHUNK -w $WINDOW
push_one 5MiB-default-chunk $((5 * 1024 * 1024)) -q

# Nothing but the pushed files in the directory: no temporary files.
extra=$(entries "$RCV" "$DST" | grep -v -x -E 'empty|one-byte|chunk-minus-1|chunk|chunk-plus-1|12-rings|5MiB-default-chunk')
if [ -z "$extra" ]; then
	ok "no temporary files left in the target directory"
else
	fail "no temporary files left" "found: $extra"
fi

"$LAB" signal "$RCV" sizes TERM
if out=$(recv_wait sizes 30); then
	ok "receiver served 7 pushes and exited 0 on SIGTERM"
else
	fail "receiver exit on SIGTERM" "status $?: $(echo "$out" | tail -3)"
fi
done_testing
