#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile receiver: accepts one sender, reads its HELLO, and answers
with a broken MR (or other wrong reply), so the sender's handling of
what comes back can be tested. Prints "listening" once ready.

usage: fake_receiver.py PORT LOCAL_IPV4 MODE
MODE: short-mr | long-mr | overflow-len | bigger-window | garbage | silent |
      close | no-ack (a valid MR, then silence after the FIN)
"""
import socket
import struct
import sys
import time

port, local_ip, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
MAGIC = 0x52445055


def hdr(mtype, length):
    return struct.pack(">IBBHI", MAGIC, 1, mtype, 0, length)


def mr_payload(chunk=65536, window=4, ln=None):
    gid = b"\0" * 10 + b"\xff\xff" + socket.inet_aton(local_ip)
    qp = struct.pack(">IIHBB", 0x55, 0x100, 0, 3, 0) + gid
    ln = chunk * window if ln is None else ln
    return qp + struct.pack(">QIQII", 0x10000, 0x1234, ln, chunk, window)


srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", port))
srv.listen(1)
print("listening", flush=True)
c, _ = srv.accept()
h = c.recv(12)
length = struct.unpack(">I", h[8:12])[0]
while length:
    length -= len(c.recv(length))
p = mr_payload()
if mode == "short-mr":        # header promises 56 bytes, 20 arrive
    c.sendall(hdr(2, len(p)) + p[:20])
    time.sleep(30)
elif mode == "long-mr":       # one byte more than an MR has
    c.sendall(hdr(2, len(p) + 1) + p + b"\0")
elif mode == "overflow-len":  # a length past the protocol's maximum
    c.sendall(hdr(2, 1 << 31) + p)
elif mode == "bigger-window":  # more than the sender asked for
    c.sendall(hdr(2, len(p)) + mr_payload(window=4096))
elif mode == "garbage":
    c.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
elif mode == "silent":
    time.sleep(60)
elif mode == "no-ack":        # accept an empty file, then never answer FIN
    c.sendall(hdr(2, len(p)) + p)
    time.sleep(60)
c.close()
