#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A sender that stops at a chosen point of the protocol and waits to be
killed (SIGKILL from the test), so the receiver sees a peer that dies
there: before HELLO, after MR, or after FIN.

usage: peer.py HOST PORT LOCAL_IPV4 {before-hello|after-mr|after-fin} NAME
"""
import socket
import struct
import sys
import time

host, port, local_ip, point, name = sys.argv[1:6]
MAGIC = 0x52445055


def msg(mtype, payload):
    return struct.pack(">IBBHI", MAGIC, 1, mtype, 0, len(payload)) + payload


def hello(size):
    gid = b"\0" * 10 + b"\xff\xff" + socket.inet_aton(local_ip)
    qp = struct.pack(">IIHBB", 0x77, 0x100, 0, 3, 0) + gid
    n = name.encode()
    return msg(1, qp + struct.pack(">QIIH", size, 65536, 4, len(n)) + n)


def recv_msg(s):
    h = b""
    while len(h) < 12:
        part = s.recv(12 - len(h))
        if not part:
            sys.exit("receiver closed")
        h += part
    length = struct.unpack(">I", h[8:12])[0]
    body = b""
    while len(body) < length:
        body += s.recv(length - len(body))
    return h[5], body


s = socket.create_connection((host, int(port)))
if point != "before-hello":
    # after-mr: a file the receiver waits for; after-fin: an empty one,
    # whose FIN (with the XXH3-128 of nothing) completes it.
    s.sendall(hello(1 << 20 if point == "after-mr" else 0))
    t, _ = recv_msg(s)
    if t != 2:
        sys.exit(f"expected MR, got type {t}")
    if point == "after-fin":
        csum = bytes.fromhex("99aa06d3014798d86001c324468d497f")
        s.sendall(msg(3, struct.pack(">Q", 0) + csum))
print(f"stopped {point}", flush=True)
time.sleep(3600)
