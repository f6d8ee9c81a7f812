#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile control-channel client for rdmapush's receiver.

It speaks the wire format through tests/e2e/wire.py (the tests' own
codec, independent of src/proto.c) and sends malformed, truncated,
out-of-range, slow and out-of-order messages, checks each answer, and
prints one "ok - ..." / "not ok - ..." line per case. It never speaks
RDMA: every case ends before the data phase, or declares a zero-byte
file, whose push needs no RDMA Write at all.

usage: hostile.py HOST PORT LOCAL_IPV4 TIMEOUT EMPTY_XXH3_128_HEX
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402
from wire import ACK, ERR, FACK, HELLO, MR, SYNC, fin, hdr, msg  # noqa: E402

host, port, local_ip, timeout, empty_csum = sys.argv[1:6]
csum = bytes.fromhex(empty_csum)
port = int(port)
timeout = float(timeout)
failed = 0


def report(ok, name, why=""):
    global failed
    if ok:
        print(f"ok - hostile: {name}", flush=True)
    else:
        failed += 1
        print(f"not ok - hostile: {name}: {why}", flush=True)


def qp_addr(qpn=0x11, psn=0x1234, lid=0, mtu=3, gid=None):
    return wire.qp_addr(qpn, psn, gid if gid is not None
                        else wire.gid_v4(local_ip), lid=lid, mtu=mtu)


def hello(total=0, chunk=65536, window=4, flags=0, more=(), qps=None, **qp):
    """A HELLO (write); more and qps as wire.hello_payload's (v6)."""
    return wire.hello(qp_addr(**qp), total, chunk, window, flags,
                      more=more, qps=qps)


def dir_entry(fid, path, mode=0o755, **kw):
    return wire.pack_file(fid, wire.FILE_DIR, path, mode=mode, **kw)


def reg_entry(fid, path, size=0, **kw):
    return wire.pack_file(fid, wire.FILE_REG, path, size=size, **kw)


def connect():
    s = socket.create_connection((host, port), timeout=timeout + 10)
    return s


def read_msg(s):
    """(type, payload), or None if the receiver closed without a message."""
    try:
        return wire.recv_msg(s)
    except (OSError, socket.timeout):
        return None


def read_answer(s):
    """The next message that is not a SYNC (a receiver syncing a file says
    how far it got)."""
    m = read_msg(s)
    syncs = 0
    while m and m[0] == SYNC and syncs < 1000:
        syncs += 1
        m = read_msg(s)
    return m


def status_of(m):
    if not m or m[0] not in (ACK, ERR) or len(m[1]) < wire.RESULT_FIXED_LEN:
        return None
    return wire.status_name(wire.result_status(m[1]))


def send_quietly(s, data, close_after=True):
    """The receiver may answer and close before we finish: that is fine."""
    try:
        s.sendall(data)
        if close_after:
            s.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def expect_refusal(name, data, want, close_after=True):
    """Send data; the receiver must answer ERR with status want (or, when
    want is None, just close), within the timeout."""
    t0 = time.monotonic()
    s = connect()
    try:
        send_quietly(s, data, close_after)
        m = read_msg(s)
    finally:
        s.close()
    took = time.monotonic() - t0
    got = status_of(m)
    if want is None:
        report(m is None or got is not None, name, f"answer {m!r}")
    else:
        report(got == want and m[0] == ERR, name,
               f"wanted ERR {want}, got {got} ({m!r})")
    if took > timeout + 5:
        report(False, name + " (answered in time)", f"took {took:.1f} s")


# --- malformed headers -----------------------------------------------------
good = hello()
expect_refusal("garbage bytes", b"GET / HTTP/1.0\r\n\r\n", None)
expect_refusal("bad magic", msg(HELLO, good[12:], magic=0xdeadbeef), None)
expect_refusal("newer version", msg(HELLO, good[12:],
                                    version=wire.VERSION + 1), None)


def old_version(v):
    """An older HELLO gets an ERR at its own version that says what to
    do. Its payload is laid out as version 5's (no qps in the flags
    word): the header's version is refused before the payload is read."""
    s = connect()
    try:
        send_quietly(s, msg(HELLO, hello(qps=0)[12:], version=v), False)
        m = wire.recv_raw(s, versions=(v,))
    except OSError as e:
        m = repr(e)
    finally:
        s.close()
    need = f"version {wire.VERSION} needed"
    ok = (isinstance(m, tuple) and m[0] != "garbage" and
          wire.parse_hdr(m[0])[1:3] == (v, ERR) and
          wire.unpack_result(m[1])["status"] == 11 and
          wire.unpack_result(m[1])["text"].startswith(need.encode()))
    report(ok, f"version {v} HELLO: ERR at version {v}, '{need}'",
           f"got {m!r}")


old_version(1)
old_version(2)
# Laid out as ours: only what FEND's checksum means differs (wire.py).
old_version(3)
old_version(4)
# Version 5 has no qps: one QP, its HELLO 48 bytes whatever it says.
old_version(5)
# Version 6's FILE lacks the 18 bytes after the path.
old_version(6)
expect_refusal("unknown type 99", msg(99, b""), None)
expect_refusal("reserved bits set", msg(HELLO, good[12:], reserved=1), None)
expect_refusal("length above the maximum", hdr(HELLO, 1 << 30), None)
expect_refusal("empty connection", b"", None)
# Every truncation of a valid HELLO, at every byte offset.


def truncated(n):
    # Connections come faster here than the receiver reaps the ones
    # before: its per-address cap may answer "busy" for a moment.
    for _ in range(50):
        s = connect()
        try:
            send_quietly(s, good[:n])
            st = status_of(read_msg(s))
        finally:
            s.close()
        if st != "busy":
            return st
        time.sleep(0.1)
    return st


bad = [n for n in range(1, len(good)) if truncated(n) not in (None, "proto")]
report(not bad, f"HELLO truncated at each of {len(good) - 1} offsets",
       f"odd answers at {bad[:5]}")

# --- out-of-range fields --------------------------------------------------
expect_refusal("QPN 0", hello(qpn=0), "proto")
expect_refusal("QPN 2^24", hello(qpn=1 << 24), "proto")
expect_refusal("PSN 2^24", hello(psn=1 << 24), "proto")
expect_refusal("zero GID", hello(gid=b"\0" * 16), "proto")
expect_refusal("MTU 0", hello(mtu=0), "proto")
expect_refusal("chunk 0", hello(chunk=0), "proto")
expect_refusal("window 0", hello(window=0), "proto")
# Bit 2 marks a chain (a CHAIN must follow: chain_refusal.sh); bit 3 is
# no flag at all.
expect_refusal("HELLO flag bit 3 (unknown)", hello(flags=8), "proto")
# Bit 1 marks rdmapush ping's HELLO: a file receiver refuses it.
expect_refusal("HELLO flag bit 1 (a ping's, not for a file receiver)",
               hello(flags=wire.HELLO_PING), "proto")
expect_refusal("trailing bytes after HELLO",
               msg(HELLO, hello()[12:] + b"\0"), "proto")
# Version 6: qps in flags bits 16..23, 1..QPS_MAX, and exactly qps - 1
# (qpn, psn) pairs after the fixed part.
eight = [(0x20 + i, 0x100 + i) for i in range(wire.QPS_MAX)]
expect_refusal("HELLO qps 0", hello(qps=0), "proto")
expect_refusal(f"HELLO qps {wire.QPS_MAX + 1}, with as many QPs",
               hello(more=eight), "proto")
expect_refusal("HELLO qps 3 with one QP after the first",
               hello(more=eight[:1], qps=3), "proto")
expect_refusal("HELLO qps 2 with two QPs after the first",
               hello(more=eight[:2], qps=2), "proto")
expect_refusal("HELLO flag bit 24", hello(flags=1 << 24), "proto")
expect_refusal("HELLO extra QPN 0", hello(more=[(0, 1)]), "proto")
expect_refusal("HELLO extra PSN 2^24", hello(more=[(0x21, 1 << 24)]),
               "proto")

# --- out of order before the session -----------------------------------------
expect_refusal("FIN before HELLO", fin(0, 0), "proto")
expect_refusal("FILE before HELLO", dir_entry(0, b"early"), "proto")
expect_refusal("ACK from a sender", wire.ack(0, 0), "proto")
expect_refusal("chunk below the minimum", hello(chunk=512), "limit")


# --- inside a session: after HELLO and MR ------------------------------------
def open_session(label):
    """A connection past HELLO (an empty session shape) and MR, or None."""
    s = connect()
    s.sendall(hello())
    m = read_msg(s)
    if not m or m[0] != MR:
        report(False, f"{label}: MR first", f"got {m!r}")
        s.close()
        return None
    return s


def in_session(label, msgs, want):
    """After MR, send msgs; the receiver must end the session with ERR
    want (FACKs before it are allowed: entries before the bad one)."""
    s = open_session(label)
    if not s:
        return
    send_quietly(s, b"".join(msgs), False)
    a = read_answer(s)
    facks = 0
    while a and a[0] == FACK and facks < 100:
        facks += 1
        a = read_answer(s)
    s.close()
    got = status_of(a)
    report(a is not None and a[0] == ERR and got == want,
           f"{label}: ERR {want}", f"got {got} ({a!r})")


def fack_session(label, entries, wants):
    """After MR, entries (one FILE each, ids from 0), each answered by a
    FACK with the status in wants (in order), or (status, words) when its
    text must hold the receiver's reason in those words; then FIN,
    answered ACK ok: a refused entry does not end the session."""
    s = open_session(label)
    if not s:
        return
    for i, (e, want) in enumerate(zip(entries, wants)):
        want, words = want if isinstance(want, tuple) else (want, b"")
        send_quietly(s, e, False)
        a = read_answer(s)
        if not a or a[0] != FACK:
            report(False, f"{label}: entry {i}: FACK {want}",
                   f"got {a!r} ({status_of(a)})")
            s.close()
            return
        f = wire.unpack_fack(a[1])
        got = wire.status_name(f["status"])
        report(f["id"] == i and got == want and words in f["text"],
               f"{label}: {wire.unpack_file(e[12:])['path'][:40]!r}: "
               f"FACK {want}" + (f", saying {words!r}" if words else ""),
               f"got FACK id {f['id']} status {got} text {f['text']!r}")
    send_quietly(s, fin(len(entries), 0), False)
    a = read_answer(s)
    s.close()
    report(status_of(a) == "ok" and a[0] == ACK,
           f"{label}: FIN after {len(entries)} entries: ACK ok",
           f"got {status_of(a)} ({a!r})")


# Hostile paths, as directory entries: a directory needs no data, so the
# receiver answers its FILE at once. Each is refused by a FACK and the
# session goes on to the next. "link" is a symlink the test planted in
# DIR (to a directory outside it); "d" is made, then used to climb out.
# Where given, the FACK's text holds the receiver's reason, not only the
# status's name.
attacks = [
    (b"../x", ("badname", b'("../x"): ".." component')),
    (b"/tmp/e2e-hostile/abs", ("badname", b"absolute path")),
    (b"a/../../b", "badname"),
    (b"link/x", ("badname", b"link/x: openat(link, O_NOFOLLOW")),
    (b"link", ("badname", b"link: exists and is a symbolic link")),
    (b"a//b", "badname"), (b"a/", "badname"), (b"./a", "badname"),
    (b"a/\x01", "badname"), (b"a\0b", "badname"), (b"x" * 256, "badname"),
    (b"d", "ok"), (b"d/../../e", "badname"), (b"d/../../../e", "badname"),
]
fack_session("directory paths",
             [dir_entry(i, p) for i, (p, _) in enumerate(attacks)],
             [w for _, w in attacks])

# Paths the codec refuses: the FILE itself is malformed and the session
# ends with ERR proto.
expect_in = [
    ("empty path", [dir_entry(0, b"")]),
    ("4096-byte path", [dir_entry(0, b"a/" * 2047 + b"bb")]),
    ("path_len longer than the payload", [dir_entry(0, b"short",
                                                    path_len=9)]),
    ("trailing bytes after the path",
     [msg(wire.FILE, dir_entry(0, b"t")[12:] + b"\0")]),
    ("FILE kind 3", [wire.pack_file(0, 3, b"k")]),
    ("directory with a size", [dir_entry(0, b"sized", size=1)]),
    ("mode above 07777", [dir_entry(0, b"m", mode=0o10000)]),
    ("mtime nanoseconds 10^9", [dir_entry(0, b"n", mtime_nsec=10**9)]),
    ("FILE reserved byte set", [dir_entry(0, b"r", reserved=1)]),
]
for label, msgs in expect_in:
    in_session(label, msgs, "proto")

# Hostile paths as regular files: the receiver refuses them when the
# FILE comes (nothing is created; hostile.sh checks its log for each),
# but answers a regular file only after its last chunk, an RDMA Write
# this peer cannot make. A FIN with the file unfinished then ends the
# session with ERR proto.
for p in [b"../x.reg", b"/tmp/e2e-hostile/abs.reg", b"a/../../b.reg",
          b"link/x.reg", b"d/../../e.reg"]:
    in_session(f"regular file {p!r}, then FIN", [reg_entry(0, p), fin(1, 0)],
               "proto")
in_session("regular file above free space, then FIN",
           [reg_entry(0, b"huge.bin", size=1 << 50), fin(1, 0)], "proto")

# Protocol order inside the session.
in_session("second HELLO", [hello()], "proto")
in_session("FILE id 1 first", [dir_entry(1, b"id1")], "proto")
in_session("FILE ids 0, 2", [dir_entry(0, b"ids0"), dir_entry(2, b"ids2")],
           "proto")
in_session("FILE id 0 twice",
           [dir_entry(0, b"twice0"), dir_entry(0, b"twice1")], "proto")
in_session("FEND with no file", [wire.pack_fend(0, 0, csum)], "proto")
in_session("FEND for the wrong id",
           [reg_entry(0, b"fend-id"), wire.pack_fend(5, 0, csum)], "proto")
in_session("FILE while a regular file is open",
           [reg_entry(0, b"open-reg"), dir_entry(1, b"open-dir")], "proto")
in_session("FIN counting 5 entries after 1",
           [dir_entry(0, b"fin-count"), fin(5, 0)], "proto")
in_session("FIN counting 0 entries after 1",
           [dir_entry(0, b"fin-zero"), fin(0, 0)], "proto")
in_session("ACK from a sender", [wire.ack(0, 0)], "proto")
in_session("FACK from a sender", [wire.pack_fack(0)], "proto")

# A well-behaved end: one directory, then FIN: ACK ok.
fack_session("good directory", [dir_entry(0, b"good-dir")], ["ok"])

# --- slowloris: one byte every 2 s must not hold the receiver -------------
t0 = time.monotonic()
s = connect()
closed = False
try:
    for b in good:
        s.send(bytes([b]))
        time.sleep(2)
        if time.monotonic() - t0 > timeout + 10:
            break
except (BrokenPipeError, ConnectionResetError):
    closed = True
if not closed:
    m = read_msg(s)
    closed = m is None or status_of(m) is not None
took = time.monotonic() - t0
s.close()
report(closed and took < timeout + 6,
       f"slowloris cut off by the {timeout:.0f} s deadline",
       f"closed={closed} after {took:.1f} s")
sys.exit(1 if failed else 0)
