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
from wire import ACK, ERR, HELLO, MR, SYNC, hdr, msg  # noqa: E402

host, port, local_ip, timeout, empty_csum = sys.argv[1:6]
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


def hello(name=b"hostile.bin", size=0, chunk=65536, window=4, name_len=None,
          **qp):
    return wire.hello(qp_addr(**qp), size, chunk, window, name, name_len)


fin = wire.fin


def connect():
    s = socket.create_connection((host, port), timeout=timeout + 10)
    return s


def read_msg(s):
    """(type, payload), or None if the receiver closed without a message."""
    try:
        return wire.recv_msg(s)
    except (OSError, socket.timeout):
        return None


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
        report(got == want, name, f"wanted ERR {want}, got {got} ({m!r})")
    if took > timeout + 5:
        report(False, name + " (answered in time)", f"took {took:.1f} s")


# --- malformed headers -----------------------------------------------------
good = hello()
expect_refusal("garbage bytes", b"GET / HTTP/1.0\r\n\r\n", None)
expect_refusal("bad magic", msg(HELLO, good[12:], magic=0xdeadbeef), None)
expect_refusal("newer version", msg(HELLO, good[12:], version=3), None)


def old_version():
    """A version 1 HELLO gets an ERR at version 1 that says what to do."""
    s = connect()
    try:
        send_quietly(s, msg(HELLO, good[12:], version=1), False)
        m = wire.recv_raw(s, versions=(1,))
    except OSError as e:
        m = repr(e)
    finally:
        s.close()
    ok = (isinstance(m, tuple) and m[0] != "garbage" and
          wire.parse_hdr(m[0])[1:3] == (1, ERR) and
          wire.unpack_result(m[1])["status"] == 11 and
          wire.unpack_result(m[1])["text"].startswith(b"version 2 needed"))
    report(ok, "version 1 HELLO: ERR at version 1, 'version 2 needed'",
           f"got {m!r}")


old_version()
expect_refusal("unknown type 99", msg(99, b""), None)
expect_refusal("reserved bits set", msg(HELLO, good[12:], reserved=1), None)
expect_refusal("length above the maximum", hdr(HELLO, 1 << 30), None)
expect_refusal("empty connection", b"", None)
# Every truncation of a valid HELLO, at every byte offset.


def truncated(n):
    s = connect()
    try:
        send_quietly(s, good[:n])
        return status_of(read_msg(s))
    finally:
        s.close()


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
expect_refusal("name_len longer than the payload",
               hello(name=b"short", name_len=9), "proto")
expect_refusal("trailing bytes after the name",
               msg(HELLO, hello()[12:] + b"\0"), "proto")

# --- hostile names --------------------------------------------------------
for n in [b".", b"..", b"../x", b"/etc/passwd", b"a/b", b"a\x01b",
          b"a\x7fb", b"x" * 256, b"a\0b"]:
    want = "proto" if len(n) > 255 else "badname"
    expect_refusal(f"name {n[:20]!r}", hello(name=n), want)
expect_refusal("empty name", hello(name=b""), "proto")

# --- out of order ----------------------------------------------------------
expect_refusal("FIN before HELLO", fin(0, b"\0" * 16), "proto")
expect_refusal("ACK from a sender", wire.ack(0, 0), "proto")
expect_refusal("declared size above free space",
               hello(name=b"huge.bin", size=1 << 40), "nospace")
expect_refusal("chunk below the minimum", hello(chunk=512), "limit")


def after_mr(name, then, want):
    """A valid zero-byte HELLO, wait for MR, then send 'then'."""
    s = connect()
    s.sendall(hello(name=name))
    m = read_msg(s)
    if not m or m[0] != MR:
        report(False, f"{name.decode()}: MR first", f"got {m!r}")
        s.close()
        return
    if then:
        s.sendall(then)
    a = read_msg(s)
    # While it syncs the file, the receiver says how far it got.
    syncs = 0
    while a and a[0] == SYNC and syncs < 1000:
        syncs += 1
        a = read_msg(s)
    s.close()
    got = status_of(a)
    report(got == want, f"{name.decode()}: answered {want}",
           f"got {got} ({a!r})")


csum = bytes.fromhex(empty_csum)
after_mr(b"second-hello.bin", hello(name=b"second-hello.bin"), "proto")
after_mr(b"wrong-size.bin", fin(1, csum), "checksum")
after_mr(b"wrong-csum.bin", fin(0, b"\x01" * 16), "checksum")
after_mr(b"good-empty.bin", fin(0, csum), "ok")

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
