#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# rdmapush render on a real push: a file over 2 QPs with --trace-json on
# both sides; on the host, `rdmapush render` merges the two files into
# one SVG that shows RESET->INIT->RTR->RTS (and ERROR at teardown) for
# each QP on both lifelines, the HELLO, MR, FILE, FEND, FACK, FIN and ACK
# arrows, the data block and the objects of each side
# (tests/render/check_svg.py); then headless Chromium opens it
# (tests/render/chromium.sh: parsed, screenshot with the band colours,
# no label over another), and draws the fixtures of a capture's packet
# lane and of a chain alike. Chromium missing is a failure.
. "$(dirname "$0")/lib.sh"

SRC=/tmp/e2e-render-src/data
DST=/tmp/e2e-render
TMP=$(mktemp -d /tmp/e2e-render.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

mkdata "$SND" "$SRC" 300001 >/dev/null
fresh_dir "$RCV" "$DST" >/dev/null
on "$SND" "rm -f /tmp/e2e-render-send.jsonl" >/dev/null
on "$RCV" "rm -f /tmp/e2e-render-recv.jsonl" >/dev/null
recv_bg render "--once --trace-json /tmp/e2e-render-recv.jsonl -o $DST" ||
	{ fail "receiver start" "did not listen"; done_testing; }
send "--trace-json /tmp/e2e-render-send.jsonl --qps 2 -c 64K" "$SRC" \
	"$RCV_IP" >"$TMP/send.out" 2>&1
src=$?
recv_wait render >"$TMP/recv.out" 2>&1
rrc=$?
if [ $src = 0 ] && [ $rrc = 0 ] &&
	[ "$(digest "$RCV" "$DST/data")" = "$(digest "$SND" "$SRC")" ]; then
	ok "push over 2 QPs with --trace-json on both sides (sha256)"
else
	fail "push with --trace-json" "sender $src, receiver $rrc: $(tail -2 "$TMP/send.out") / $(tail -2 "$TMP/recv.out")"
fi
on "$SND" "cat /tmp/e2e-render-send.jsonl" >"$TMP/send.jsonl"
on "$RCV" "cat /tmp/e2e-render-recv.jsonl" >"$TMP/recv.jsonl"

if "$RP" render "$TMP/send.jsonl" "$TMP/recv.jsonl" -o "$TMP/push.svg" \
	2>"$TMP/render.err"; then
	ok "rdmapush render merges the two traces"
else
	fail "rdmapush render" "$(cat "$TMP/render.err")"
fi
states=RESET,INIT,RTR,RTS,ERROR
if why=$("$PYTHON3" "$TOP/tests/render/check_svg.py" "$TMP/push.svg" \
	lifelines bands:send:0:$states bands:send:1:$states \
	bands:recv:0:$states bands:recv:1:$states \
	arrows:HELLO,MR,FILE,FEND,FACK,FIN,ACK \
	"text:DATA PHASE (RDMA)" "text:293.0 KiB in 5 chunks" \
	"text:ended with ACK: status 0" datapos:FILE:FEND,FIN,FACK,ACK \
	objs:send:pd,mr,cq,qp,device objs:recv:pd,mr,cq,qp,device 2>&1); then
	ok "the SVG: each QP RESET->INIT->RTR->RTS->ERROR on both lifelines, HELLO/MR/FILE/FEND/FACK/FIN/ACK, the data block between FILE and FEND, the objects"
else
	fail "the SVG" "$why"
fi
if out=$("$TOP/tests/render/chromium.sh" "$RP" "$TMP/send.jsonl" \
	"$TMP/recv.jsonl" 2>&1); then
	ok "headless Chromium parses it, its screenshot shows the five state colours, no label overlaps"
else
	fail "headless Chromium" "$(printf '%s\n' "$out" | grep FAIL | head -3)"
fi
# The packet lane of a lab capture beside its traces (tests/render/wire.*)
# and a chain's three lifelines, in the same browser.
if out=$(RP_CHROMIUM_PAIRS="wire chain" "$TOP/tests/render/chromium.sh" "$RP" 2>&1); then
	ok "headless Chromium draws the packet lane of a capture and a chain's picture, no label overlaps"
else
	fail "headless Chromium, packet lane and chain" "$(printf '%s\n' "$out" | grep FAIL | head -3)"
fi
# For a look by hand after a run.
cp "$TMP/push.svg" /tmp/rdmapush-last-render.svg
done_testing
