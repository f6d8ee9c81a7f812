#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: the system calls a tree of small files costs per file,
# counted with strace(1), where each one is a real share of the time
# (in the lab's emulated guests, tens of microseconds a call):
# - the sender's check of its sources reads a tree's top directory and
#   stats none of the files in it (the walk that sends stats them);
# - a push of 500 files over the in-memory fabric (bench_tree) takes
#   one fcntl(2) a file (opening a source takes no dup(2) and no
#   F_GETFL) and no flock(2) or fchmod(2) (the receiver makes its
#   O_TMPFILE with the file's mode, and locks one only for --force),
#   and FILE and FEND go to the control socket 8 files to a write.
# Skipped (77) without strace or where it cannot trace.
set -eu
N=500
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp-syscalls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "tree_syscalls: $*" >&2
	exit 1
}
# LeakSanitizer cannot run under ptrace (scripts/sanitize builds this
# with it): leaks are looked for by every other test there, not here.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
command -v strace >/dev/null 2>&1 || { echo "no strace: skipped"; exit 77; }
strace -o /dev/null true 2>/dev/null || { echo "strace cannot trace here: skipped"; exit 77; }

mkdir "$tmp/tree"
i=0
while [ $i -lt 20 ]; do
	echo $i >"$tmp/tree/f$i"
	i=$((i + 1))
done
# Without an RDMA device (this host), the sender stops at its device
# probe, after the check; with one it would go on to walk and connect.
strace -f -e trace=%file -o "$tmp/check.txt" ./rdmapush send -r \
	"$tmp/tree" 127.0.0.1 -p 1 2>"$tmp/check.err" || true
if grep -q 'no RDMA device' "$tmp/check.err"; then
	n=$(grep -c "$tmp/tree/f" "$tmp/check.txt" || true)
	[ "$n" = 0 ] ||
		fail "the sender's check stat'ed the tree's files ($n calls)"
	echo "tree_syscalls: the check stats no file in the tree"
else
	echo "tree_syscalls: an RDMA device here: the check is not counted"
fi

strace -f -c -o "$tmp/push.txt" ./tests/bench/bench_tree --files $N \
	--size 1K --runs 1 --fs tmpfs --tmpfs "$tmp" --only rdmapush \
	--timeout 60 >/dev/null 2>"$tmp/push.err" ||
	{ cat "$tmp/push.err" >&2; fail "bench_tree failed"; }
# strace -c: "% time  seconds  usecs/call  calls  [errors]  syscall".
calls() {
	awk -v c="$1" '$NF == c { print $4; f = 1 } END { if (!f) print 0 }' \
		"$tmp/push.txt"
}
fcntl=$(calls fcntl)
flock=$(calls flock)
fchmod=$(calls fchmod)
sendto=$(calls sendto)
echo "tree_syscalls: $N files: fcntl $fcntl, flock $flock, fchmod $fchmod," \
	"sendto $sendto"
# A few for the sessions' sockets and descriptors, besides the files'.
[ "$fcntl" -le $((N + N / 10)) ] || fail "fcntl: $fcntl calls for $N files"
[ "$flock" -le $((N / 10)) ] || fail "flock: $flock calls for $N files"
[ "$fchmod" -le $((N / 10)) ] || fail "fchmod: $fchmod calls for $N files"
# Both sides' messages: the sender's (it made one write a file) and the
# receiver's, its FACKs in batches: some 260 for 500 files, 565 before.
# The receiver batches less on a busy machine (it flushes before each
# wait, and waits more): 340 to 350 seen, so the bound is one a file.
[ "$sendto" -le $N ] || fail "sendto: $sendto calls for $N files"
