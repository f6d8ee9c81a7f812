#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A sender that stops at a chosen point of the protocol and waits to be
killed (SIGKILL from the test), so the receiver sees a peer that dies
there: before HELLO, after MR, or after FIN.

usage: peer.py HOST PORT LOCAL_IPV4 {before-hello|after-mr|after-fin} NAME
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402

host, port, local_ip, point, name = sys.argv[1:6]


def hello(size):
    qp = wire.qp_addr(qpn=0x77, psn=0x100, gid=wire.gid_v4(local_ip))
    return wire.hello(qp, size=size, chunk=65536, window=4,
                      name=name.encode())


def recv_msg(s):
    m = wire.recv_msg(s)
    if m is None:
        sys.exit("receiver closed")
    return m


s = socket.create_connection((host, int(port)))
if point != "before-hello":
    # after-mr: a file the receiver waits for; after-fin: an empty one,
    # whose FIN (with the XXH3-128 of nothing) completes it.
    s.sendall(hello(1 << 20 if point == "after-mr" else 0))
    t, _ = recv_msg(s)
    if t != wire.MR:
        sys.exit(f"expected MR, got type {t}")
    if point == "after-fin":
        csum = bytes.fromhex("99aa06d3014798d86001c324468d497f")
        s.sendall(wire.fin(0, csum))
print(f"stopped {point}", flush=True)
time.sleep(3600)
