#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Idle control connections: open N TCP connections to a receiver and say
nothing on them, then report when the receiver closes each one.

usage: idle.py HOST PORT N [SECONDS]

Prints "connected K of N" once the connections are open (a connection
the kernel could not open within 3 s is counted out), then one line per
connection as the receiver closes it:
  "closed I after T s, B bytes"   (B > 0: it said something, e.g. ERR busy)
and "still open I" for those open after SECONDS (default 60), then exits.
Exits early, closing everything, on SIGTERM.
"""
import select
import signal
import socket
import sys
import time

host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

t0 = time.monotonic()
socks = {}
for i in range(n):
    try:
        socks[i] = socket.create_connection((host, port), timeout=3)
        socks[i].setblocking(False)
    except OSError as e:
        print(f"could not connect {i}: {e}", flush=True)
opened = {i: time.monotonic() for i in socks}
got = {i: 0 for i in socks}
print(f"connected {len(socks)} of {n}", flush=True)

while socks and time.monotonic() - t0 < limit:
    ready, _, _ = select.select(list(socks.values()), [], [], 0.2)
    for s in ready:
        i = next(k for k, v in socks.items() if v is s)
        try:
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
        if data:
            got[i] += len(data)
            continue
        print(f"closed {i} after {time.monotonic() - opened[i]:.1f} s, "
              f"{got[i]} bytes", flush=True)
        s.close()
        del socks[i]
for i in socks:
    print(f"still open {i}", flush=True)
