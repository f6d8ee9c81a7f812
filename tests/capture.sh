#!/bin/sh
# SPDX-License-Identifier: MIT
# --capture and render --packets on this machine (no RDMA device needed):
# a pcap of RoCE v2 frames written here byte by byte decodes to the
# lines we expect, and, where tshark is installed, to the same opcodes,
# QPs, PSNs and A bits as Wireshark's dissector; a file that is not a
# capture, is cut short or is not of Ethernet frames fails with one line
# and exit 3, one that cannot be read with exit 5; --capture without
# CAP_NET_RAW fails at once (before the device check, before any
# connection) with one line, a hint and exit 2. The lab's
# tests/e2e/capture.sh captures a real push.
#
# usage: tests/capture.sh   (from make check, in the build directory)

bin=$(pwd)/rdmapush
[ -x "$bin" ] || { echo "capture: $bin missing" >&2; exit 99; }
command -v python3 >/dev/null || { echo "capture: python3 missing" >&2; exit 99; }
tmp=$(mktemp -d /tmp/rdmapush-capture.XXXXXX) || exit 99
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "capture: ok $1"; }
bad() { echo "capture: FAIL $1"; fail=1; }

# pcap FILE [LINKTYPE] [CUT]: four frames of an RDMA WRITE of 3 KiB with
# immediate on QP 0x11 and its ACK, as a pcap file (LINKTYPE 1:
# Ethernet); CUT drops that many bytes off the end.
pcap() {
	python3 - "$@" <<'EOF'
import struct, sys
path = sys.argv[1]
link = int(sys.argv[2]) if len(sys.argv) > 2 else 1
cut = int(sys.argv[3]) if len(sys.argv) > 3 else 0

def frame(transport):
    # Ethernet II, IPv4 10.77.0.1 -> 10.77.0.2, UDP 0xc000 -> 4791.
    udp = struct.pack(">HHHH", 0xc000, 4791, 8 + len(transport), 0)
    tot = 20 + len(udp) + len(transport)
    ip = bytes([0x45, 0, tot >> 8, tot & 255, 0, 0, 0x40, 0, 0x40, 17,
                0, 0, 10, 77, 0, 1, 10, 77, 0, 2])
    eth = bytes.fromhex("020000000002020000000001") + b"\x08\x00"
    return eth + ip + udp + transport

def bth(op, qp, psn, a=False):
    # opcode | SE M pad tver | P_Key | reserved, dest QP | A, PSN
    return struct.pack(">BBHII", op, 0, 0xffff, qp,
                       (0x80000000 if a else 0) | psn)

icrc = b"\xa1\xb2\xc3\xd4"
data = b"\x1b[2J" * 256		# 1 KiB; an escape sequence, never printed
reth = struct.pack(">QII", 0x7f0012345000, 0x1234, 3072)
frames = [
    frame(bth(0x06, 0x11, 0x1c7daa) + reth + data + icrc),
    frame(bth(0x07, 0x11, 0x1c7dab) + data + icrc),
    frame(bth(0x09, 0x11, 0x1c7dac, a=True) + struct.pack(">I", 3) +
          data + icrc),
    frame(bth(0x11, 0x22, 0x1c7dac) + struct.pack(">I", 0x1f000005) +
          icrc),
]
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, link)
for i, f in enumerate(frames):
    out += struct.pack("<IIII", 1700000000, 250 * i, len(f), len(f)) + f
with open(path, "wb") as fh:
    fh.write(out[:len(out) - cut])
EOF
}

pcap "$tmp/w.pcap" || exit 99
cat >"$tmp/want" <<'EOF'
0.000000 10.77.0.1 > 10.77.0.2 RDMA WRITE First (0x06) qp 0x000011 psn 0x1c7daa reth va 0x7f0012345000 rkey 0x1234 len 3072 data 1024
0.000250 10.77.0.1 > 10.77.0.2 RDMA WRITE Middle (0x07) qp 0x000011 psn 0x1c7dab data 1024
0.000500 10.77.0.1 > 10.77.0.2 RDMA WRITE Last with Immediate (0x09) qp 0x000011 psn 0x1c7dac A imm 0x00000003 data 1024
0.000750 10.77.0.1 > 10.77.0.2 Acknowledge (0x11) qp 0x000022 psn 0x1c7dac aeth ACK credits 31 msn 5 data 0
EOF
if "$bin" render --packets "$tmp/w.pcap" >"$tmp/got" 2>"$tmp/err" &&
	cmp -s "$tmp/want" "$tmp/got" && [ ! -s "$tmp/err" ]; then
	ok "render --packets prints each packet as decoded"
else
	bad "render --packets:"
	diff "$tmp/want" "$tmp/got"
	cat "$tmp/err"
fi

# Wireshark's dissector, field by field: opcode, QP, PSN, A.
if command -v tshark >/dev/null; then
	tshark -r "$tmp/w.pcap" -T fields -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.bth.a 2>/dev/null | while read -r op qp psn a; do
		printf '%d %d %d %s\n' "$op" "$qp" "$psn" \
			"$(case $a in 1|True) echo A ;; *) echo - ;; esac)"
	done >"$tmp/tshark"
	sed -E 's/.*\(0x(..)\) qp 0x(......) psn 0x(......)( A)?.*/\1 \2 \3 \4/' \
		"$tmp/got" | while read -r op qp psn a; do
		printf '%d %d %d %s\n' "0x$op" "0x$qp" "0x$psn" \
			"$([ "$a" = A ] && echo A || echo -)"
	done >"$tmp/ours"
	if [ -s "$tmp/ours" ] && cmp -s "$tmp/ours" "$tmp/tshark"; then
		ok "the same opcodes, QPs, PSNs and A bits as tshark"
	else
		bad "ours and tshark's differ:"
		diff "$tmp/ours" "$tmp/tshark"
	fi
else
	echo "capture: tshark not installed: the lab's capture.sh compares"
fi

# failure WANT-RC WHAT ARGS...: exit WANT-RC, one "rdmapush render: "
# line naming the file.
failure() {
	want=$1 what=$2
	shift 2
	"$bin" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ] && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
		grep -q "^rdmapush render: .*$tmp/" "$tmp/err"; then
		ok "$what: exit $rc, one line"
	else
		bad "$what: exit $rc (want $want):"
		cat "$tmp/err"
	fi
}
printf 'not a capture at all\n' >"$tmp/text.pcap"
failure 3 "not a pcap file" render --packets "$tmp/text.pcap"
pcap "$tmp/cut.pcap" 1 100 || exit 99
failure 3 "a capture cut short" render --packets "$tmp/cut.pcap"
pcap "$tmp/raw.pcap" 101 || exit 99
failure 3 "a capture of raw IP, not Ethernet" render --packets "$tmp/raw.pcap"
failure 5 "a missing file" render --packets "$tmp/none.pcap"
"$bin" render --packets "$tmp/w.pcap" a.jsonl >/dev/null 2>&1
if [ $? = 2 ]; then
	ok "--packets with trace files: usage error"
else
	bad "--packets with trace files is accepted"
fi

# libpcap is loaded by what uses it, not linked: no other command loads
# it and the eight libraries it brings. One that does not load, or is not
# a libpcap, fails render --packets with exit 2 and how to get one.
if command -v objdump >/dev/null; then
	if objdump -p "$bin" | grep -q 'NEEDED.*libpcap'; then
		bad "rdmapush links libpcap (objdump -p): every start loads it"
	else
		ok "rdmapush does not link libpcap"
	fi
else
	echo "capture: objdump not installed: whether rdmapush links libpcap is not checked"
fi
# nopcap WHAT LIB WANT-TEXT ARGS...: with RDMAPUSH_LIBPCAP=LIB, exit 2,
# an error line saying WANT-TEXT and a hint, nothing written.
nopcap() {
	what=$1 lib=$2 want=$3
	shift 3
	RDMAPUSH_LIBPCAP=$lib "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -c '' "$tmp/err")" = 2 ] &&
		sed -n 1p "$tmp/err" | grep -q "^rdmapush [a-z]*: .*$want" &&
		sed -n 2p "$tmp/err" | grep -q "hint: install libpcap" &&
		[ ! -s "$tmp/out" ] && [ ! -e "$tmp/c.pcap" ]; then
		ok "$what: exit 2, why and a hint"
	else
		bad "$what: exit $rc (want 2):"
		cat "$tmp/err"
	fi
}
nopcap "render --packets, libpcap missing" "$tmp/none.so" \
	"w.pcap needs libpcap, which did not load: .*none.so" \
	render --packets "$tmp/w.pcap"
libm=$(ldconfig -p | sed -n 's/^[[:space:]]*libm\.so\.6 .*=> //p' | head -1)
nopcap "render --packets, a library that is not libpcap" "$libm" \
	"has no pcap_create" render --packets "$tmp/w.pcap"
if [ "$(id -u)" = 0 ]; then
	# Root may open a packet socket: what refuses is the library,
	# before any connection (port 1 has no listener either way).
	nopcap "send --capture, libpcap missing" "$tmp/none.so" \
		"--capture needs libpcap, which did not load" \
		send --capture "$tmp/c.pcap" -p 1 "$tmp/w.pcap" 127.0.0.1
else
	echo "capture: not root: send --capture without libpcap is not checked"
fi

# --capture without CAP_NET_RAW: as nobody, when we are root, with a copy
# of the binary nobody can run (the build tree may be closed to it: a
# scratch build's mktemp -d is mode 0700).
if [ "$(id -u)" = 0 ]; then
	cp "$bin" "$tmp/rdmapush" && chmod 755 "$tmp/rdmapush" || exit 99
	bin=$tmp/rdmapush
fi
run_unprivileged() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid nobody --regid nogroup --clear-groups \
			--inh-caps=-all "$@"
	else
		"$@"
	fi
}
echo data >"$tmp/src"
chmod 644 "$tmp/src"
mkdir "$tmp/in" && chmod 777 "$tmp/in"
for sub in send recv ping; do
	case $sub in
	send) args="$tmp/src 127.0.0.1" ;;
	recv) args="-o $tmp/in" ;;
	ping) args=127.0.0.1 ;;
	esac
	# shellcheck disable=SC2086
	run_unprivileged timeout 10 "$bin" $sub --capture "$tmp/c.pcap" \
		-p 1 $args >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(grep -c '' "$tmp/err")" = 2 ] &&
		sed -n 1p "$tmp/err" | grep -q "^rdmapush $sub: .*--capture needs CAP_NET_RAW" &&
		sed -n 2p "$tmp/err" | grep -q "^rdmapush $sub: hint: .*setcap cap_net_raw+ep" &&
		[ ! -e "$tmp/c.pcap" ]; then
		ok "$sub --capture without CAP_NET_RAW: exit 2, said first"
	else
		bad "$sub --capture without CAP_NET_RAW: exit $rc:"
		cat "$tmp/err"
	fi
done

exit $fail
