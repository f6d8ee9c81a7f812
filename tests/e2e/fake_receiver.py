#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile receiver: accepts one sender, reads its HELLO, and answers
with a broken MR (or other wrong reply), so the sender's handling of
what comes back can be tested. Prints "listening" once ready.

usage: fake_receiver.py PORT LOCAL_IPV4 MODE [UPSTREAM_PORT]
MODE: short-mr | long-mr | overflow-len | bigger-window | garbage | silent |
      close | no-ack (a valid MR, then silence: send it a directory, whose
      FILE and FIN need no RDMA Write, and it waits for an ACK) |
      escape-err (an ERR whose text carries terminal escapes, a fake log
      line and a bidi override) |
      mitm-mr, mitm-ack: a party in the path without the key, in front of
      a real --psk receiver on LOCAL_IPV4:UPSTREAM_PORT. It relays AUTH
      (so the sender sees a genuine proof of the key), then mitm-mr
      answers the HELLO with its own MR; mitm-ack relays HELLO, MR and
      the session both ways, but keeps the sender's FEND (so the
      receiver commits nothing) and its FIN, answers ACK ok itself, then
      relays what the sender says next.
"""
import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402

port, local_ip, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def hdr(mtype, length):
    return wire.hdr(mtype, length)


def mr_payload(chunk=65536, window=4, ln=None):
    qp = wire.qp_addr(qpn=0x55, psn=0x100, gid=wire.gid_v4(local_ip))
    ln = chunk * window if ln is None else ln
    return wire.mr_payload(qp, addr=0x10000, rkey=0x1234, length=ln,
                           chunk=chunk, window=window)


srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", port))
srv.listen(1)
print("listening", flush=True)
c, _ = srv.accept()


def relay_one(src, dst):
    """One whole message from src to dst, as it came; its type."""
    m = wire.recv_raw(src)
    if m is None or m[0] == "garbage":
        sys.exit(f"mitm: no message to relay ({m!r})")
    dst.sendall(m[0] + m[1])
    return wire.parse_hdr(m[0])[2]


def relay_kept(keep, last):
    """Relay whole messages both ways, keeping from the receiver those
    of the sender's whose type is in keep, until the sender's type
    last (kept too)."""
    while True:
        for src in select.select([c, up], [], [])[0]:
            m = wire.recv_raw(src)
            if m is None or m[0] == "garbage":
                sys.exit(f"mitm: the session broke off ({m!r})")
            t = wire.parse_hdr(m[0])[2]
            if src is c and t == last:
                return
            if src is up or t not in keep:
                (c if src is up else up).sendall(m[0] + m[1])


if mode.startswith("mitm-"):
    up = socket.create_connection((local_ip, int(sys.argv[4])))
    for src, dst in ((c, up), (up, c), (c, up)):    # AUTH steps 1, 2, 3
        relay_one(src, dst)
    if mode == "mitm-ack":
        relay_one(c, up)                            # HELLO
        relay_one(up, c)                            # MR
        relay_kept((wire.FEND,), wire.FIN)
        c.sendall(wire.ack(0, 100000))
        relay_one(c, up)                            # the sender's ERR
        time.sleep(5)
        sys.exit(0)
wire.recv_msg(c)    # the sender's HELLO, whatever it says
p = mr_payload()
if mode == "short-mr":        # header promises 56 bytes, 20 arrive
    c.sendall(hdr(wire.MR, len(p)) + p[:20])
    time.sleep(30)
elif mode == "long-mr":       # one byte more than an MR has
    c.sendall(hdr(wire.MR, len(p) + 1) + p + b"\0")
elif mode == "overflow-len":  # a length past the protocol's maximum
    c.sendall(hdr(wire.MR, 1 << 31) + p)
elif mode == "bigger-window":  # more than the sender asked for
    c.sendall(hdr(wire.MR, len(p)) + mr_payload(window=4096))
elif mode == "garbage":
    c.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
elif mode == "escape-err":    # text meant to rewrite the sender's terminal
    text = (b"\x1b[2J\x1b[32mall good\r\nrdmapush send: sent h\n"
            b"\xe2\x80\xaeevil\x9b")
    c.sendall(wire.err(6, text=text))  # status "proto"
elif mode == "mitm-mr":       # our own QP and ring, untagged
    c.sendall(hdr(wire.MR, len(p)) + p)
    time.sleep(5)
elif mode == "silent":
    time.sleep(60)
elif mode == "no-ack":        # accept an empty file, then never answer FIN
    c.sendall(hdr(wire.MR, len(p)) + p)
    time.sleep(60)
c.close()
