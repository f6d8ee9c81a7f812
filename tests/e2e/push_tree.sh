#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: two
# Issue 9's sessions of many entries: a tree of 200+ files pushed with -r
# arrives as diff -r sees it (its symlink skipped and counted), with modes
# masked by the receiver's umask, and exact modes and mtimes with -k (and
# recv --preserve-modes); one QP set-up per side for the whole session;
# several files on one command line; 20 MiB from standard input through
# a pipe; --json gives an entry object per entry and a final session
# object.
. "$(dirname "$0")/lib.sh"

# The tree is built on the host, under the worktree: the guests see it
# read-only at the same path, so the sender reads it and the receiver's
# node can diff against it.
GEN=$TOP/tests/e2e/tmp-tree-$MODE
SRC=$GEN/tree
DST=/tmp/e2e-tree
trap 'rm -rf "$GEN"' EXIT

# gen_tree DIR: 200 small files (0 to 64 KiB, 0644) spread over three
# levels, a few of 1 to 8 MiB, one 0600 and one 0755 file, an empty
# directory, a name with spaces and UTF-8, and a symlink out of the tree.
gen_tree() {
	python3 - "$1" <<'EOF'
import os, random, sys
top = sys.argv[1]
rnd = random.Random(9)
dirs = [top]
for a in range(3):
    for b in range(2):
        dirs.append(os.path.join(top, f"d{a}", f"e{b}", "f"))
for d in dirs:
    os.makedirs(d, exist_ok=True)
def put(path, size, mode=0o644):
    with open(path, "wb") as f:
        f.write(os.urandom(size))
    os.chmod(path, mode)
for i in range(200):
    d = dirs[i % len(dirs)]
    size = 0 if i % 50 == 0 else rnd.randrange(1, 65536)
    put(os.path.join(d, f"small{i:03d}"), size)
for n, size in (("one", 1 << 20), ("three", (3 << 20) + 12345),
                ("eight", 8 << 20)):
    put(os.path.join(top, "d1", "e0", f"big-{n}"), size)
put(os.path.join(top, "d0", "e1", "f", "secret"), 4096, 0o600)
put(os.path.join(top, "d2", "run.sh"), 3000, 0o755)
put(os.path.join(top, "d1", "na\u00efve r\u00e9sum\u00e9 \u65e5\u672c.txt"), 777)
os.makedirs(os.path.join(top, "d2", "e1", "empty"))
os.symlink("/etc/hostname", os.path.join(top, "d0", "link-out"))
EOF
}

rm -rf "$GEN" && mkdir -p "$GEN" && gen_tree "$SRC" ||
	{ fail "generate the tree" "python3 failed"; done_testing; }
nfiles=$(find "$SRC" -type f | wc -l)
nentries=$(find "$SRC" -mindepth 0 | wc -l)	# the tree's own dir too

# start_recv JOB ARGS...: a receiver with umask 022, for this session.
start_recv() {
	local job=$1
	shift
	"$LAB" bg "$RCV" "$job" -- "umask 022; exec $RP recv -p $PORT $*"
	await_listen "$RCV"
}

# listing NODE DIR FORMAT: "path mode ..." of every entry under DIR but
# symlinks (stat FORMAT after the path), sorted.
listing() {
	on "$1" "cd '$2' && find . ! -type l -exec stat -c '%n $3' {} + | LC_ALL=C sort"
}

# 1. The tree without -k: diff -r, the symlink skipped, umask'd modes.
fresh_dir "$RCV" "$DST/plain" >/dev/null
start_recv plain "--once -o $DST/plain" ||
	{ fail "receiver start" "did not listen"; done_testing; }
out=$(send "-r -J" "'$SRC'" "$RCV_IP" "2>/tmp/e2e-tree.err")
src=$?
err=$(on "$SND" "cat /tmp/e2e-tree.err")
rcv=$(recv_wait plain 2>&1)
rrc=$?
if [ $src -eq 0 ] && [ $rrc -eq 0 ]; then
	ok "send -r of $nfiles files: sender and receiver exit 0"
else
	fail "send -r tree" "sender $src, receiver $rrc: $(echo "$err" | tail -2) / $(echo "$rcv" | tail -2)"
fi
d=$(on "$RCV" "diff -r '$SRC' $DST/plain/tree; true")
if [ "$d" = "Only in $SRC/d0: link-out" ]; then
	ok "diff -r: identical but for the skipped symlink"
else
	fail "diff -r" "$(echo "$d" | head -5)"
fi
if on "$RCV" "test -d $DST/plain/tree/d2/e1/empty && ! test -e $DST/plain/tree/d0/link-out"; then
	ok "the empty directory arrived, the symlink did not"
else
	fail "empty directory / symlink" "wrong on the receiver"
fi
want=$(listing "$RCV" "$SRC" '%a')
got=$(listing "$RCV" "$DST/plain/tree" '%a')
if [ "$(echo "$got" | wc -l)" -eq $((nentries - 1)) ] && [ "$want" = "$got" ]; then
	ok "modes: every file and directory as the source's & ~022"
else
	fail "modes" "$(diff <(echo "$want") <(echo "$got") | head -4)"
fi
m=$(on "$RCV" "stat -c %a $DST/plain/tree/d0/e1/f/secret $DST/plain/tree/d2/run.sh" | tr '\n' ' ')
[ "$m" = "600 755 " ] && ok "0600 stays 0600, 0755 stays 0755 (umask 022)" ||
	fail "0600 and 0755" "got $m"
if echo "$err" | grep -q 'skipping .*link-out' &&
	echo "$err" | grep -q -E "; 1 skipped, 0 failed$"; then
	ok "the sender says the symlink was skipped and counts it"
else
	fail "symlink reported" "$(echo "$err" | grep -E 'skip|failed' | tail -3)"
fi

# 5. --json: one entry object per entry, then the session's counts.
if why=$(echo "$out" | python3 -c '
import json, sys
want = int(sys.argv[1])
objs = [json.loads(l) for l in sys.stdin.read().splitlines()]
ents, last = objs[:-1], objs[-1]
assert len(ents) == want, f"{len(ents)} entry objects, want {want}"
assert all(o["type"] == "entry" for o in ents), "an object before the last is not an entry"
bad = [o for o in ents if o["status"] != ("skipped" if o["path"].endswith("link-out") else "ok")]
assert not bad, f"unexpected status: {bad[:2]}"
assert last["type"] == "session", f"last object: {last}"
c = (last["files"], last["failed"], last["skipped"])
assert c == (want - 1, 0, 1), f"session files/failed/skipped {c}"
' "$nentries" 2>&1); then
	ok "--json: $nentries entry objects, then a session object with files/failed/skipped"
else
	fail "--json" "$(echo "$why" | tail -1)"
fi

# 1 and 2. With -k (and recv --preserve-modes): exact modes and mtimes;
# one QP set-up per side.
fresh_dir "$RCV" "$DST/kept" >/dev/null
start_recv kept "--once -t --preserve-modes -o $DST/kept" ||
	{ fail "receiver start" "did not listen"; done_testing; }
snd=$(send "-r -k -t" "'$SRC'" "$RCV_IP" 2>&1)
src=$?
rcv=$(recv_wait kept 2>&1)
rrc=$?
[ $src -eq 0 ] && [ $rrc -eq 0 ] && ok "send -r -k --trace: both exit 0" ||
	fail "send -r -k" "sender $src, receiver $rrc: $(echo "$snd" | tail -2)"
want=$(listing "$RCV" "$SRC" '%a %Y')
got=$(listing "$RCV" "$DST/kept/tree" '%a %Y')
if [ "$(echo "$got" | wc -l)" -eq $((nentries - 1)) ] && [ "$want" = "$got" ]; then
	ok "-k: every file's and directory's mode and mtime kept"
else
	fail "-k modes and mtimes" "$(diff <(echo "$want") <(echo "$got") | head -4)"
fi
d=$(on "$RCV" "diff -r '$SRC' $DST/kept/tree; true")
[ "$d" = "Only in $SRC/d0: link-out" ] && ok "-k: diff -r identical but for the symlink" ||
	fail "-k: diff -r" "$(echo "$d" | head -5)"
for side in send recv; do
	if [ $side = send ]; then t=$snd; else t=$rcv; fi
	c=""
	for tr in 'RESET -> INIT' 'INIT -> RTR' 'RTR -> RTS'; do
		c="$c $(echo "$t" | grep -c "QP 0x[0-9a-f]* $tr:")"
	done
	[ "$c" = " 1 1 1" ] && ok "$side trace: one RESET->INIT, INIT->RTR, RTR->RTS for $nfiles files" ||
		fail "$side trace: QP set-ups" "RESET->INIT, INIT->RTR, RTR->RTS seen$c times"
done

# 3. Several files on one command line.
fresh_dir "$RCV" "$DST/abc" >/dev/null
mkdata "$SND" /tmp/e2e-abc/a 100000 >/dev/null
mkdata "$SND" /tmp/e2e-abc/b $((2 * 1024 * 1024 + 1)) >/dev/null
mkdata "$SND" /tmp/e2e-abc/c 0 >/dev/null
start_recv abc "--once -o $DST/abc" ||
	{ fail "receiver start" "did not listen"; done_testing; }
out=$(send -q /tmp/e2e-abc/a /tmp/e2e-abc/b /tmp/e2e-abc/c "$RCV_IP" 2>&1)
src=$?
recv_wait abc >/dev/null 2>&1
rrc=$?
same=0
for f in a b c; do
	w=$(digest "$SND" "/tmp/e2e-abc/$f")
	g=$(digest "$RCV" "$DST/abc/$f")
	[ -n "$w" ] && [ "$w" = "$g" ] && same=$((same + 1))
done
[ $src -eq 0 ] && [ $rrc -eq 0 ] && [ $same = 3 ] &&
	[ "$(entries "$RCV" "$DST/abc" | tr '\n' ' ')" = "a b c " ] &&
	ok "send a b c HOST: all three arrive, byte-identical" ||
	fail "send a b c" "sender $src, receiver $rrc, $same of 3 identical: $out"

# 4. 20 MiB from standard input through a pipe.
fresh_dir "$RCV" "$DST/stdin" >/dev/null
start_recv stdin "--once -o $DST/stdin" ||
	{ fail "receiver start" "did not listen"; done_testing; }
out=$(on "$SND" "head -c 20M /dev/urandom | tee /tmp/e2e-stream.src | $RP send${OP:+ --op $OP} -q -p $PORT --as stream.bin - $RCV_IP" 2>&1)
src=$?
recv_wait stdin >/dev/null 2>&1
rrc=$?
w=$(digest "$SND" /tmp/e2e-stream.src)
g=$(digest "$RCV" "$DST/stdin/stream.bin")
n=$(on "$RCV" "stat -c %s $DST/stdin/stream.bin")
if [ $src -eq 0 ] && [ $rrc -eq 0 ] && [ "$n" = 20971520 ] && [ "$w" = "$g" ]; then
	ok "20 MiB from a pipe: stream.bin arrives with the same sha256"
else
	fail "stdin pipe" "sender $src, receiver $rrc, $n bytes, $w vs $g: $out"
fi
done_testing
