#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A sender that stops at a chosen point of the protocol and waits to be
killed (SIGKILL from the test), so the receiver sees a peer that dies
there: before HELLO, after MR, or after FIN.

It makes no RDMA Write. after-mr declares a 1 MiB regular file NAME
(FILE sent) whose data never comes, so the receiver waits for it;
after-fin carries one entry that needs no data, a directory NAME
(answered by a FACK), then FIN, which completes the session.

usage: peer.py HOST PORT LOCAL_IPV4 {before-hello|after-mr|after-fin} NAME
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402

host, port, local_ip, point, name = sys.argv[1:6]
SIZE = 1 << 20


def hello(total):
    qp = wire.qp_addr(qpn=0x77, psn=0x100, gid=wire.gid_v4(local_ip))
    return wire.hello(qp, total, chunk=65536, window=4)


def recv_msg(s, want):
    m = wire.recv_msg(s)
    if m is None:
        sys.exit("receiver closed")
    if m[0] != want:
        sys.exit(f"expected {wire.TYPE_NAMES[want]}, got type {m[0]}")
    return m


s = socket.create_connection((host, int(port)))
if point != "before-hello":
    s.sendall(hello(SIZE if point == "after-mr" else 0))
    recv_msg(s, wire.MR)
    if point == "after-mr":
        s.sendall(wire.pack_file(0, wire.FILE_REG, name.encode(), size=SIZE))
    else:
        s.sendall(wire.pack_file(0, wire.FILE_DIR, name.encode(),
                                 mode=0o755))
        st = wire.unpack_fack(recv_msg(s, wire.FACK)[1])["status"]
        if st:
            sys.exit(f"FACK {wire.status_name(st)} for {name}")
        s.sendall(wire.fin(1, 0))
print(f"stopped {point}", flush=True)
time.sleep(3600)
