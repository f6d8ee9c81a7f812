#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ops: read send
# modes: two
# --qps N stripes a session's chunks over N RC QPs (chunk n on QP n mod N,
# the receiver puts them back in order): a file of 5 MiB + 17 bytes
# arrives byte-identical with 2, 4 and 8 QPs, also with fewer ring slots
# than QPs, and a small tree with -r over 3 QPs; --trace shows each of 4
# QPs driven RESET->INIT->RTR->RTS once on both sides, HELLO and MR carry
# all 4 QP addresses, and each side connects QP i to the peer's QP i;
# with one QP the trace keeps its old wording; --json reports the file;
# --qps 0 and 9 are usage errors before any connection. Every result is
# checked with sha256sum on both nodes, never by rdmapush itself.
. "$(dirname "$0")/lib.sh"

SRC=/tmp/e2e-qps-src
DST=/tmp/e2e-qps
SIZE=$((5 * 1024 * 1024 + 17))
OUT=/tmp/e2e-qps-send.out	# on the sender node
TMP=$(mktemp -d /tmp/e2e-qps.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

mkdata "$SND" "$SRC/data" $SIZE >/dev/null
WANT=$(digest "$SND" "$SRC/data")
[ ${#WANT} = 64 ] || { fail "source" "no sha256 of $SRC/data: '$WANT'"; done_testing; }

# push_file LABEL SEND-OPTIONS: push $SRC/data to a fresh $DST with those
# options (one receiver, --once); both must exit 0 and the copy's sha256
# must be the source's. The sender's stdout is left in $SND:$OUT.
push_file() {
	local label=$1 opts=$2 out src rcv rrc got
	fresh_dir "$RCV" "$DST" >/dev/null
	if ! recv_bg qps "--once -o $DST"; then
		fail "$label" "the receiver did not listen"
		return 1
	fi
	out=$(send "$opts" "$SRC/data" "$RCV_IP" ">$OUT" 2>&1)
	src=$?
	rcv=$(recv_wait qps 60 2>&1)
	rrc=$?
	if [ $src != 0 ] || [ $rrc != 0 ]; then
		fail "$label" "sender exited $src, receiver $rrc: $(echo "$out" | tail -2) / $(echo "$rcv" | tail -2)"
		return 1
	fi
	got=$(digest "$RCV" "$DST/data")
	if [ "$got" = "$WANT" ]; then
		ok "$label: $SIZE bytes arrive byte-identical (sha256)"
	else
		fail "$label" "sha256 $got, want $WANT"
		return 1
	fi
}

# 1. One file over several QPs, with the ring wider than, equal to and
# narrower than the QP count; the first also with --json.
if push_file "--qps 4 -c 64K -w 8" "--qps 4 -c 64K -w 8 -J"; then
	json=$(on "$SND" "cat $OUT")
	if echo "$json" | python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert len(objs) == 2, f"{len(objs)} objects, want 2"
e, d = objs
assert (e["type"], e["path"], e["status"], e["bytes"]) == ("entry", "data", "ok", int(sys.argv[1])), e
assert (d["type"], d["status"], d["bytes"]) == ("session", "ok", int(sys.argv[1])), d
assert (d["files"], d["failed"], d["skipped"]) == (1, 0, 0), d
assert (d["chunk"], d["window"]) == (65536, 8), d' $SIZE 2>&1; then
		ok "--qps 4 --json: the sender reports the file ok, $SIZE bytes, and a session of 1 file"
	else
		fail "--qps 4 --json" "not the expected objects: $json"
	fi
else
	fail "--qps 4 --json" "no push to report"
fi
push_file "--qps 2 -c 64K -w 8" "--qps 2 -c 64K -w 8"
push_file "--qps 4 -c 64K -w 1 (fewer slots than QPs)" "--qps 4 -c 64K -w 1"
push_file "--qps 8 -c 4K -w 3 (fewer slots than QPs)" "--qps 8 -c 4K -w 3"

# 2. A small tree with -r over 3 QPs: an empty file, one of exactly one
# chunk, one shorter, one of three chunks and a bit, one in a subdir.
TREE=$SRC/tree
on "$SND" "rm -rf $TREE && mkdir -p $TREE/sub && : >$TREE/empty &&
	head -c 65536 /dev/urandom >$TREE/one-chunk &&
	head -c 1000 /dev/urandom >$TREE/short &&
	head -c 196613 /dev/urandom >$TREE/three-chunks-and-5 &&
	head -c 70000 /dev/urandom >$TREE/sub/deeper" >/dev/null
# sums NODE DIR: "sha256  ./path" of every file under DIR, sorted by path.
sums() {
	on "$1" "cd $2 && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2"
}
fresh_dir "$RCV" "$DST" >/dev/null
if recv_bg qps-tree "--once -o $DST"; then
	out=$(send "-r --qps 3 -c 64K -w 4" "$TREE" "$RCV_IP" 2>&1)
	src=$?
	rcv=$(recv_wait qps-tree 60 2>&1)
	rrc=$?
	want=$(sums "$SND" "$TREE")
	got=$(sums "$RCV" "$DST/tree")
	if [ $src != 0 ] || [ $rrc != 0 ]; then
		fail "-r --qps 3: a tree of 5 files" "sender exited $src, receiver $rrc: $(echo "$out" | tail -2) / $(echo "$rcv" | tail -2)"
	elif [ "$(echo "$want" | wc -l)" = 5 ] && [ "$want" = "$got" ]; then
		ok "-r --qps 3: a tree of 5 files (one empty, one of exactly one chunk) arrives identical (sha256 of each)"
	else
		fail "-r --qps 3: a tree of 5 files" "sha256 lists differ: sent [$want] received [$got]"
	fi
else
	fail "-r --qps 3: a tree of 5 files" "the receiver did not listen"
fi

# 3. --trace on both sides with --qps 4 (a smaller file: 5 chunks).
mkdata "$SND" "$SRC/traced" 300017 >/dev/null
fresh_dir "$RCV" "$DST" >/dev/null
recv_bg qps-trace "--once -t -o $DST" || { fail "traced push" "the receiver did not listen"; done_testing; }
send "-t --qps 4 -c 64K -w 8" "$SRC/traced" "$RCV_IP" >"$TMP/send" 2>&1
src=$?
recv_wait qps-trace 60 >"$TMP/recv" 2>&1
rrc=$?
if [ $src = 0 ] && [ $rrc = 0 ] &&
	[ "$(digest "$SND" "$SRC/traced")" = "$(digest "$RCV" "$DST/traced")" ]; then
	ok "traced --qps 4 push: both exit 0, the file arrives identical (sha256)"
else
	fail "traced --qps 4 push" "sender $src, receiver $rrc, or sha256 differs"
fi
for side in send recv; do
	t=$TMP/$side
	# Each QP i of 4 goes through each transition once, and its state is
	# read back once: 12 of each kind in all, none of any other QP.
	bad=""
	for i in 0 1 2 3; do
		for step in "RESET -> INIT:" "INIT -> RTR:" "RTR -> RTS:" \
			"state now INIT \(queried\)" "state now RTR \(queried\)" \
			"state now RTS \(queried\)"; do
			n=$(grep -cE "verbs +QP $i of 4 \(0x[0-9a-f]+\) $step" "$t")
			[ "$n" = 1 ] || bad="$bad QP $i '$step' ${n}x;"
		done
	done
	n=$(grep -cE 'verbs +QP .*(-> (INIT|RTR|RTS):|state now (INIT|RTR|RTS) )' "$t")
	[ "$n" = 24 ] || bad="$bad $n transition and state lines in all, want 24;"
	if [ -z "$bad" ]; then
		ok "$side trace: each of the 4 QPs goes to INIT, RTR and RTS exactly once, each read back once"
	else
		fail "$side trace: QP transitions" "$bad"
	fi
done
# HELLO goes from the sender to the receiver, MR back.
for what in "send -> HELLO" "recv <- HELLO" "recv -> MR" "send <- MR"; do
	read -r side dir msg <<<"$what"
	n=$(grep -cF "ctrl    $dir $msg (cont.) 4 QPs, the first above; " "$TMP/$side")
	if [ "$n" = 1 ] && grep -qF "ctrl    $dir $msg qpn=" "$TMP/$side"; then
		ok "$side trace: $dir $msg names 4 QPs (one continuation line)"
	else
		fail "$side trace: $dir $msg with 4 QPs" "$n continuation lines: $(grep -F " $msg " "$TMP/$side" | head -3)"
	fi
done
# Each side's QP i is connected to the peer's QP i: its dest_qp_num and
# rq_psn at INIT -> RTR are the qpn and (random) psn the peer's QP i
# traced as its local address, and HELLO (the sender's) and MR (the
# receiver's) carry the same four addresses in order.
if why=$(python3 - "$TMP/send" "$TMP/recv" <<'EOF' 2>&1
import re, sys
snd, rcv = (open(p).read() for p in sys.argv[1:3])
H = "0x([0-9a-f]+)"
def local(t):
    return [(int(m[1]), int(m[2], 16), int(m[3], 16)) for m in re.finditer(
        rf"local QP address \(QP (\d+) of 4\): qpn={H} psn={H} ", t)]
def rtr(t):
    return [(int(m[1]), int(m[3], 16), int(m[4], 16)) for m in re.finditer(
        rf"QP (\d+) of 4 \({H}\) INIT -> RTR: .*? dest_qp_num={H} rq_psn={H} ", t)]
def message(t, arrow, name):
    m = re.search(rf"{arrow} {name} qpn={H} psn={H} ", t)
    first = [(0, int(m[1], 16), int(m[2], 16))] if m else []
    m = re.search(rf"{arrow} {name} \(cont\.\) 4 QPs, the first above; (.*)", t)
    more = [(int(i), int(q, 16), int(p, 16)) for i, q, p in re.findall(
        rf"QP(\d+) qpn={H} psn={H}", m[1])] if m else []
    return first + more
sl, rl = local(snd), local(rcv)
errs = []
for name, l in (("sender", sl), ("receiver", rl)):
    if [i for i, _, _ in l] != [0, 1, 2, 3] or len({q for _, q, _ in l}) != 4:
        errs.append(f"{name}'s local QP addresses: {l}")
if rtr(rcv) != sl:
    errs.append(f"receiver's dest_qp_num/rq_psn {rtr(rcv)} != sender's local QPs {sl}")
if rtr(snd) != rl:
    errs.append(f"sender's dest_qp_num/rq_psn {rtr(snd)} != receiver's local QPs {rl}")
for t, arrow, name, want in ((snd, "->", "HELLO", sl), (rcv, "<-", "HELLO", sl),
                             (rcv, "->", "MR", rl), (snd, "<-", "MR", rl)):
    if message(t, arrow, name) != want:
        errs.append(f"{arrow} {name} carries {message(t, arrow, name)}, want {want}")
if errs:
    sys.exit("; ".join(errs))
EOF
); then
	ok "each side's QP i is connected to the peer's QP i (dest_qp_num, rq_psn), and HELLO and MR carry the 4 local QPs in order"
else
	fail "QP pairing in the traces" "$why"
fi

# 4. With one QP (--qps 1 given) the trace keeps its single-QP wording.
fresh_dir "$RCV" "$DST" >/dev/null
recv_bg qps-one "--once -o $DST" || { fail "--qps 1 trace" "the receiver did not listen"; done_testing; }
send "-t --qps 1 -c 64K" "$SRC/traced" "$RCV_IP" >"$TMP/one" 2>&1
src=$?
recv_wait qps-one 60 >/dev/null 2>&1
rrc=$?
n=$(grep -cE 'verbs +QP 0x[0-9a-f]+ state now (INIT|RTR|RTS) \(queried\)' "$TMP/one")
multi=$(grep -E ' of 1 |\(cont\.\)' "$TMP/one" | head -2)
if [ $src = 0 ] && [ $rrc = 0 ] && [ "$n" = 3 ] && [ -z "$multi" ]; then
	ok "--qps 1 trace: 'QP 0x.. state now INIT/RTR/RTS (queried)', no 'of 1', no continuation lines"
else
	fail "--qps 1 trace" "sender $src, receiver $rrc, $n 'QP 0x.. state now' lines (want 3), multi-QP wording: [$multi]"
fi

# 5. Out-of-range counts are usage errors (exit 2) found before anything
# connects (nothing listens on $PORT now: a connection would fail
# otherwise). Once: with the default op.
if [ -z "$OP" ]; then
	for q in 0 9; do
		out=$(send "-t --qps $q" "$SRC/data" "$RCV_IP" 2>&1)
		refused_locally "--qps $q" $? "$out" "invalid QP count '$q'"
	done
fi
done_testing
