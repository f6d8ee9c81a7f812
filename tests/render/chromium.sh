#!/bin/sh
# SPDX-License-Identifier: MIT
# rdmapush render's picture in a real browser: headless Chromium (Debian's
# chromium, which `scripts/deps all` installs) opens the SVG of each
# fixture pair of tests/render, and of its chain of three, standalone as
# a file:
#   - its DOM as Chromium parsed it has no <parsererror> and holds the
#     texts (HELLO with its QPN and PSN, MR with its rkey, FIN, ACK, the
#     data block, a peer's <script> path as text);
#   - its screenshot is not blank and shows the five QP state colours
#     (RESET, INIT, RTR, RTS on both halves, ERROR), decoded by
#     tests/render/png_check.py (zlib, no PIL);
#   - inlined in an HTML page whose own script measures each <text>'s box,
#     no two labels overlap and none leaves the picture.
# A missing chromium is a failure, not a skip.
#
# usage: tests/render/chromium.sh [RDMAPUSH [SENDER.jsonl RECEIVER.jsonl]]
#        (default: ./rdmapush, e.g. from the build directory:
#        tests/render/chromium.sh ./rdmapush); with a pair of traces
#        (tests/e2e/push_render.sh's, from the lab) only that pair, whose
#        texts must show HELLO, MR, FIN and an ACK.
#        CHROMIUM=/path/to/chromium to use another browser binary;
#        RP_CHROMIUM_PAIRS="wire chain" to check only those fixtures.
# Exit 0 all good, 1 a check failed (or chromium missing), 99 no rdmapush.

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-./rdmapush}
[ -x "$bin" ] || { echo "chromium: $bin not found (build first)" >&2; exit 99; }
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$chrome" ] || [ ! -x "$chrome" ]; then
	echo "chromium: FAIL chromium ${chrome:+($chrome) }is not installed (apt-get install chromium, or scripts/deps all)"
	exit 1
fi
tmp=$(mktemp -d /tmp/rdmapush-chromium.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "chromium: ok $*"; }
bad() { echo "chromium: FAIL $*"; fail=1; }

# headless ARGS...: one Chromium run, its own profile, no network, a
# bounded time (a hung browser is a failure, not a hang).
headless() {
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --no-default-browser-check \
		--hide-scrollbars --user-data-dir="$tmp/profile" "$@" \
		2>>"$tmp/chromium.log"
}

# the SVG's height and width attributes
svg_height() {
	sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$1" | head -n 1
}
svg_width() {
	sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$1" | head -n 1
}

pairs=${RP_CHROMIUM_PAIRS:-push1 push2 push8 failed many interrupted lab-qps2 chain wire}
if [ $# -ge 3 ]; then
	pairs=given
	cp "$2" "$tmp/given.send.jsonl" && cp "$3" "$tmp/given.recv.jsonl" || exit 99
fi
for n in $pairs; do
	svg=$tmp/$n.svg
	dir=$here
	[ $n = given ] && dir=$tmp
	set -- "$dir/$n.send.jsonl" "$dir/$n.recv.jsonl"
	[ $n = chain ] && set -- "$dir/chain.a.jsonl" "$dir/chain.b.jsonl" \
		"$dir/chain.c.jsonl"
	[ $n = wire ] && set -- "$@" "$dir/wire.pcap"
	if ! "$bin" render "$@" -o "$svg"; then
		bad "$n: rdmapush render failed"
		continue
	fi
	h=$(svg_height "$svg")
	w=$(svg_width "$svg")

	# 1. The SVG as Chromium parsed it.
	headless --dump-dom "file://$svg" >"$tmp/$n.dom"
	case $n in
	given) want="HELLO  qpn 0x|MR  rkey 0x|FIN  1 file|ended with ACK: status 0" ;;
	many) want="FILE/FEND/FACK × 1200|400 acknowledged, 0 failed|FIN  400 files, 1.1 MiB" ;;
	interrupted) want="DATA PHASE (RDMA), INTERRUPTED|interrupted after 308 chunks posted|ERR status 14 (aborted by peer)" ;;
	failed) want="ERR status 6 (EXIST)|in/<script>alert('x')</script> & <b>bold</b>.txt" ;;
	push1) want="HELLO  qpn 0x11  psn 0x5a3f21|MR  rkey 0x1a2c  qpn 0x22  psn 0xc0ffee|FIN  1 file, 10.0 MiB|ACK status 0 (OK), 10.0 MiB|DATA PHASE (RDMA)" ;;
	lab-qps2) want="HELLO  qpn 0x11,0x12  psn 0xdbec69,0xae29fe|293.0 KiB in 5 chunks|ended with ACK: status 0 (ok)" ;;
	push8) want="QP0–7 created: qpn 0x22…0x92, RESET|QP0–7 INIT → RTR|ended with ACK: status 0 (OK)" ;;
	push2) want="HELLO  qpn 0x11,0x12  psn 0x5a3f21,0x5a5032|MR  rkey 0x1a2c  qpn 0x22,0x32|QP0–1 RTR → RTS|FIN  1 file, 10.0 MiB|10.0 MiB in 10 chunks" ;;
	chain) want="HELLO  qpn 0x11  psn 0x5a3f21|HELLO  qpn 0x41  psn 0x777777|RELAY 1|RECEIVER 2" ;;
	wire) want="On the wire: 56 RoCE v2 packets|RDMA WRITE First...Last with Immediate: 4 packets|post RDMA_WRITE_WITH_IMM wr_id=0 (QP 0), 4.0 KiB|more message folded: 1 packet, 0 B of data, 2 ACKs" ;;
	esac
	if python3 "$here/dom_check.py" "$tmp/$n.dom" "$want"; then
		ok "$n: Chromium parses the SVG, its texts are there"
	else
		bad "$n: the DOM Chromium parsed (see above)"
	fi

	# 2. The screenshot.
	rm -f "$tmp/$n.png"
	headless --window-size="$w,$h" --screenshot="$tmp/$n.png" \
		"file://$svg" >/dev/null
	states=RESET,INIT,RTR,RTS,ERROR
	if [ -s "$tmp/$n.png" ] &&
		python3 "$here/png_check.py" "$tmp/$n.png" "$states"; then
		ok "$n: the screenshot shows the picture and the $states bands"
	else
		bad "$n: the screenshot (see above)"
	fi

	# 3. Labels measured by the browser, in a page of our own.
	{
		echo '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
		sed 1d "$svg"
		cat "$here/overlap.html"
		echo '</body></html>'
	} >"$tmp/$n.html"
	headless --window-size="$w,$h" --dump-dom "file://$tmp/$n.html" \
		>"$tmp/$n.page"
	v=$(sed -n 's/.*<pre id="verdict">\([^<]*\)<\/pre>.*/\1/p' "$tmp/$n.page")
	case $v in
	"ok "*) ok "$n: ${v#ok }" ;;
	*) bad "$n: labels: ${v:-no verdict from the page's script}" ;;
	esac
done
[ $fail = 0 ] || { echo "chromium: its log:"; tail -n 5 "$tmp/chromium.log"; }
exit $fail
