#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A crowd of idle control connections from several source addresses,
kept up: each one the receiver closes is opened again at once, from the
same address, as a client trying to keep a receiver locked would.

usage: crowd.py HOST PORT N SECONDS SOURCE...

Opens N connections to HOST:PORT, taking SOURCE addresses in turn (e.g.
127.0.0.2 ... 127.0.0.9 against a receiver on 127.0.0.1), and says
nothing on them. Prints "connected K of N" once they are open, then,
after SECONDS (or on SIGTERM), "reopened R, refused F" and exits.
"""
import select
import signal
import socket
import sys
import time

host, port, n, limit = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                        float(sys.argv[4]))
sources = sys.argv[5:]
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)


def conn(src):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(3)
    s.connect((host, port))
    s.setblocking(False)
    return s


socks = {}
refused = 0
for i in range(n):
    try:
        socks[i] = conn(sources[i % len(sources)])
    except OSError:
        refused += 1
print(f"connected {len(socks)} of {n}", flush=True)
reopened = 0
t0 = time.monotonic()
while not stop and time.monotonic() - t0 < limit:
    ready, _, _ = select.select(list(socks.values()), [], [], 0.2)
    for s in ready:
        i = next(k for k, v in socks.items() if v is s)
        try:
            if s.recv(4096):
                continue
        except OSError:
            pass
        s.close()
        try:
            socks[i] = conn(sources[i % len(sources)])
            reopened += 1
        except OSError:
            del socks[i]
            refused += 1
        # A refused connection is closed at once: no tighter loop than
        # a determined client's.
        time.sleep(0.01)
print(f"reopened {reopened}, refused {refused}", flush=True)
