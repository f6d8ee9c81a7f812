#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the render fixtures of tests/render/ (committed; rerun after an
# edit here): pairs of --trace-json files, sender's and receiver's, written
# by hand after docs/trace.md's contract (schema version 1), not by
# rdmapush: a 1-QP write push, a 2-QP and an 8-QP push, a failed session
# with ERR (a peer's path holding <script> and &), a many-file session,
# a push interrupted after 308 chunks, traced as rdmapush traces
# (only the first 4 work requests of each kind; no data.summary), and a
# chain's three traces (chain.a, chain.b: a relay's two sessions,
# chain.c).
# The clocks of the two sides are unrelated on purpose (1000 s vs 52000 s).
#
# usage: tests/render/make_fixtures.py [DIR]   (default: its own directory)
import json
import os
import sys

ESC_PATH = "in/<script>alert('x')</script> & <b>bold</b>.txt"


class Side:
    def __init__(self, side, pid, t0):
        self.side, self.pid, self.t = side, pid, t0
        self.lines = []

    def ev(self, area, kind, txt, dt=0.0001, pid=None, **f):
        self.t += dt
        self.lines.append({"v": 1, "t": round(self.t, 6), "side": self.side,
                           "pid": pid or self.pid, "area": area,
                           "kind": kind, "text": txt, "f": f})

    def msg(self, d, typ, dt=0.0002, **f):
        arrow = "->" if d == "out" else "<-"
        self.ev("ctrl", "msg", "%s %s" % (arrow, typ), dt, dir=d, type=typ,
                **f)

    def write(self, path):
        with open(path, "w") as fp:
            for line in self.lines:
                fp.write(json.dumps(line, ensure_ascii=False) + "\n")


def setup(s, qps, ring_access, init_access, cqe=17):
    s.ev("verbs", "device.open", "device rxe0 opened", dev="rxe0", port=1,
         link_layer="Ethernet", mtu=1024, gid_index=1,
         gid="::ffff:10.0.2.%d" % (15 if s.side == "send" else 16))
    s.ev("verbs", "pd.alloc", "PD allocated")
    s.ev("verbs", "cq.create", "CQ created: cqe=%d" % cqe, cqe=cqe)
    s.ev("verbs", "mr.reg", "MR registered", addr=0x7f3a5c000000,
         length=8 << 20, lkey=0x1a2b + (s.side == "recv"),
         rkey=0x1a2b + (s.side == "recv"), access=ring_access)
    for q in range(qps):
        s.ev("verbs", "qp.create", "QP%d created" % q, qp=q, qps=qps,
             qpn=s.qpn[q], max_send_wr=64, max_recv_wr=64)
        s.ev("verbs", "qp.modify", "QP%d RESET -> INIT" % q, qp=q,
             qpn=s.qpn[q], **{"from": "RESET"}, to="INIT", port=1,
             access=init_access)


def connect(s, peer, qps):
    for q in range(qps):
        s.ev("verbs", "qp.modify", "QP%d INIT -> RTR" % q, qp=q,
             qpn=s.qpn[q], **{"from": "INIT"}, to="RTR", path_mtu=1024,
             dest_qpn=peer.qpn[q], rq_psn=peer.psn[q], max_dest_rd_atomic=1)
        s.ev("verbs", "qp.modify", "QP%d RTR -> RTS" % q, qp=q,
             qpn=s.qpn[q], **{"from": "RTR"}, to="RTS", sq_psn=s.psn[q],
             timeout=14, retry_cnt=6, rnr_retry=7, max_rd_atomic=1)
        s.ev("verbs", "qp.state", "QP%d state now RTS" % q, qp=q,
             qpn=s.qpn[q], state="RTS")


def hello(s, d, who, qps, total):
    s.msg(d, "HELLO", qpn=who.qpn[0], psn=who.psn[0], lid=0, mtu=1024,
          gid="::ffff:10.0.2.15", chunk=1 << 20, window=8, total=total,
          op="write", qps=qps)
    if qps > 1:
        more = {}
        for q in range(1, qps):
            more["qp%d.qpn" % q] = who.qpn[q]
            more["qp%d.psn" % q] = who.psn[q]
        s.ev("ctrl", "msg.qps", "HELLO (cont.)", dir=d, type="HELLO",
             qps=qps, **more)


def mr(s, d, who, qps):
    s.msg(d, "MR", qpn=who.qpn[0], psn=who.psn[0], lid=0, mtu=1024,
          gid="::ffff:10.0.2.16", chunk=1 << 20, window=8,
          addr=0x7f3a5c000000, rkey=0x1a2c, len=8 << 20, qps=qps)
    if qps > 1:
        more = {}
        for q in range(1, qps):
            more["qp%d.qpn" % q] = who.qpn[q]
            more["qp%d.psn" % q] = who.psn[q]
        s.ev("ctrl", "msg.qps", "MR (cont.)", dir=d, type="MR", qps=qps,
             **more)


def teardown(s, qps, err=False):
    for q in range(qps):
        s.ev("verbs", "qp.error", "QP%d -> ERROR" % q, qp=q, qpn=s.qpn[q])
        s.ev("verbs", "qp.destroy", "QP%d destroyed" % q, qp=q,
             qpn=s.qpn[q])
    s.ev("verbs", "mr.dereg", "MR deregistered", rkey=0x1a2b +
         (s.side == "recv"))
    s.ev("verbs", "cq.destroy", "CQ destroyed")
    s.ev("verbs", "pd.dealloc", "PD freed")


def sides(qps):
    s = Side("send", 4242, 1000.0)
    r = Side("recv", 5151, 52000.5)
    s.qpn = [0x11 + q for q in range(qps)]
    s.psn = [0x5a3f21 + 0x1111 * q for q in range(qps)]
    r.qpn = [0x12 + 0x10 * (q + 1) for q in range(qps)]
    r.psn = [0xc0ffee - 0x101 * q for q in range(qps)]
    r.ev("ctrl", "listen", "listening on 0.0.0.0 port 18500 (TCP)",
         pid=5150, addr="0.0.0.0", port=18500)
    r.ev("ctrl", "accept", "accepted control connection from 10.0.2.15",
         pid=5150, peer="10.0.2.15")
    return s, r


def handshake(s, r, qps, total):
    s.ev("session", "phase", "phase CONNECT", phase="CONNECT")
    s.ev("ctrl", "connected", "control connection up", addr="10.0.2.16")
    setup(s, qps, "LOCAL_WRITE", "0")
    r.ev("session", "phase", "phase HELLO", phase="HELLO")
    setup(r, qps, "LOCAL_WRITE|REMOTE_WRITE", "REMOTE_WRITE")
    s.ev("session", "phase", "phase HELLO", phase="HELLO")
    # The receiver answers HELLO with MR: its QPs' address and its ring's.
    hello(s, "out", s, qps, total)
    hello(r, "in", s, qps, total)
    connect(r, s, qps)
    mr(r, "out", r, qps)
    mr(s, "in", r, qps)
    connect(s, r, qps)


def data(s, r, chunks, qps, files, nbytes, secs):
    for c in range(chunks):
        q = c % qps
        s.ev("verbs", "post", "post RDMA_WRITE_WITH_IMM", op=
             "RDMA_WRITE_WITH_IMM", wr_id=c, qp=q, length=1 << 20, imm=c)
        r.ev("verbs", "wc", "completion RECV_RDMA_WITH_IMM", opcode=
             "RECV_RDMA_WITH_IMM", status="SUCCESS", wr_id=c, qp=q,
             byte_len=1 << 20, imm=c)
        r.ev("verbs", "post", "post SEND_WITH_IMM (credit)", op=
             "SEND_WITH_IMM", wr_id=1000 + c, qp=0, imm=c)
        s.ev("verbs", "wc", "completion RDMA_WRITE", opcode="RDMA_WRITE",
             status="SUCCESS", wr_id=c, qp=q, byte_len=0, imm=0)
    s.ev("data", "data.summary", "data phase", dt=secs, bytes=nbytes,
         chunks=chunks, files=files, data_seconds=secs, credits=chunks)
    r.ev("data", "data.summary", "data phase", dt=secs, bytes=nbytes,
         chunks=chunks, files=files, data_seconds=secs * 0.98,
         credits=chunks)


def finish(s, r, files, nbytes):
    s.ev("session", "phase", "phase FIN", phase="FIN")
    s.msg("out", "FIN", files=files, bytes=nbytes)
    r.msg("in", "FIN", files=files, bytes=nbytes)
    r.msg("out", "ACK", status=0, status_name="OK", bytes=nbytes, text="")
    s.msg("in", "ACK", status=0, status_name="OK", bytes=nbytes, text="")
    s.ev("session", "phase", "phase DONE", phase="DONE")


def one_file(s, r, fid, path, size, status=0, name="OK", text=""):
    s.msg("out", "FILE", id=fid, path=path, size=size)
    r.msg("in", "FILE", id=fid, path=path, size=size)
    if status:
        return
    s.msg("out", "FEND", id=fid, bytes=size)
    r.msg("in", "FEND", id=fid, bytes=size)
    r.msg("out", "FACK", id=fid, status=status, status_name=name,
          bytes=size, text=text)
    s.msg("in", "FACK", id=fid, status=status, status_name=name, bytes=size,
          text=text)


def push(qps, name, dirname):
    s, r = sides(qps)
    size = 10 << 20
    handshake(s, r, qps, size)
    s.ev("session", "phase", "phase DATA", phase="DATA")
    s.msg("out", "FILE", id=0, path="big.iso", size=size)
    r.msg("in", "FILE", id=0, path="big.iso", size=size)
    data(s, r, 10, qps, 1, size, 0.0125)
    s.msg("out", "FEND", id=0, bytes=size)
    r.msg("in", "FEND", id=0, bytes=size)
    r.msg("out", "FACK", id=0, status=0, status_name="OK", bytes=size,
          text="")
    # Pipelined: the sender's FIN leaves before the FACK comes back.
    s.ev("session", "phase", "phase FIN", phase="FIN")
    s.msg("out", "FIN", files=1, bytes=size)
    s.msg("in", "FACK", id=0, status=0, status_name="OK", bytes=size,
          text="")
    r.msg("in", "FIN", files=1, bytes=size)
    r.msg("out", "ACK", status=0, status_name="OK", bytes=size, text="")
    s.msg("in", "ACK", status=0, status_name="OK", bytes=size, text="")
    s.ev("session", "phase", "phase DONE", phase="DONE")
    teardown(s, qps)
    teardown(r, qps)
    s.write(os.path.join(dirname, name + ".send.jsonl"))
    r.write(os.path.join(dirname, name + ".recv.jsonl"))


def failed(dirname):
    s, r = sides(1)
    handshake(s, r, 1, 4096)
    s.ev("session", "phase", "phase DATA", phase="DATA")
    s.msg("out", "FILE", id=0, path=ESC_PATH, size=4096)
    r.msg("in", "FILE", id=0, path=ESC_PATH, size=4096)
    r.ev("error", "error", "error", message="refusing " + ESC_PATH +
         ": file exists")
    text = "file exists: " + ESC_PATH
    r.msg("out", "ERR", status=6, status_name="EXIST", bytes=0, text=text)
    s.msg("in", "ERR", status=6, status_name="EXIST", bytes=0, text=text)
    s.ev("error", "error", "error", message="push failed in DATA: " + text)
    teardown(s, 1, err=True)
    teardown(r, 1, err=True)
    s.write(os.path.join(dirname, "failed.send.jsonl"))
    r.write(os.path.join(dirname, "failed.recv.jsonl"))


def many(dirname, files=400):
    s, r = sides(1)
    handshake(s, r, 1, files * 3000)
    s.ev("session", "phase", "phase DATA", phase="DATA")
    for i in range(files):
        one_file(s, r, i, "tree/d%02d/f%04d.txt" % ((i + 1) % 17, i + 1),
                 3000)
    data(s, r, files, 1, files, files * 3000, 0.84)
    finish(s, r, files, files * 3000)
    teardown(s, 1)
    teardown(r, 1)
    s.write(os.path.join(dirname, "many.send.jsonl"))
    r.write(os.path.join(dirname, "many.recv.jsonl"))


TRACE_FIRST = 4     # post and wc: the first 4 of each kind are traced


def interrupted(dirname, chunks=308):
    """A 512 MiB push stopped by Ctrl-C after 308 chunks posted: no
    data.summary (its data phase did not succeed), its credits so far in
    data.progress, every post counted in datapath.summary."""
    s, r = sides(1)
    size = 512 << 20
    handshake(s, r, 1, size)
    s.ev("session", "phase", "phase DATA", phase="DATA")
    s.msg("out", "FILE", id=0, path="big.iso", size=size)
    r.msg("in", "FILE", id=0, path="big.iso", size=size)
    done = 1
    for c in range(chunks):
        if c < TRACE_FIRST:
            s.ev("verbs", "post", "post RDMA_WRITE_WITH_IMM", op=
                 "RDMA_WRITE_WITH_IMM", wr_id=c, qp=0, length=1 << 20,
                 imm=c)
            r.ev("verbs", "wc", "completion RECV_RDMA_WITH_IMM", opcode=
                 "RECV_RDMA_WITH_IMM", status="SUCCESS", wr_id=c, qp=0,
                 byte_len=1 << 20, imm=c)
            r.ev("verbs", "post", "post SEND_WITH_IMM (credit)", op=
                 "SEND_WITH_IMM", wr_id=1000 + c, qp=0, imm=c)
            s.ev("verbs", "wc", "completion RDMA_WRITE", opcode=
                 "RDMA_WRITE", status="SUCCESS", wr_id=c, qp=0,
                 byte_len=0, imm=0)
        else:
            s.t += 0.0009
            r.t += 0.0009
        if c + 1 - 8 == done:   # credits trail the window (8)
            s.ev("data", "data.progress", "%d/%d chunks posted so far "
                 "taken by the receiver" % (done, c + 1), done=done,
                 posted=c + 1)
            done *= 2
    s.ev("error", "error", "error", message="interrupted by signal 2")
    text = "interrupted by signal"
    s.msg("out", "ERR", status=14, status_name="aborted by peer", bytes=0,
          text=text)
    r.msg("in", "ERR", status=14, status_name="aborted by peer", bytes=0,
          text=text)
    r.ev("error", "error", "error", message="the sender aborted: " + text)
    credited = chunks - 8
    s.ev("verbs", "datapath.summary", "data path", **{
        "posted.WRITE_WITH_IMM": chunks, "posted.SEND_WITH_IMM": 0,
        "posted.SEND_WITH_IMM(data)": 0, "posted.RDMA_READ": 0,
        "posted.RECV": 8 + credited, "posted.RECV(buffer)": 0,
        "completed.WRITE": chunks, "completed.RECV_WITH_IMM": credited,
        "failed": 0})
    r.ev("verbs", "datapath.summary", "data path", **{
        "posted.WRITE_WITH_IMM": 0, "posted.SEND_WITH_IMM": credited,
        "posted.RECV": chunks + 8, "completed.RECV_RDMA_WITH_IMM": chunks,
        "completed.SEND": credited, "failed": 0})
    teardown(s, 1, err=True)
    teardown(r, 1, err=True)
    s.write(os.path.join(dirname, "interrupted.send.jsonl"))
    r.write(os.path.join(dirname, "interrupted.recv.jsonl"))


def chain(dirname):
    """A push along a chain of 3 hosts, a -> b -> c: b (recv --relay)
    lands a's file and, on a second thread of the same process (side
    "relay", same pid and clock), pushes it on to c as it lands; it
    answers a's FIN once its push on has ended. b's file holds both
    sessions, interleaved by time."""
    a, b = sides(1)
    r = Side("relay", 5151, 0)
    c = Side("recv", 6161, 91000.25)
    r.qpn, r.psn = [0x41], [0x777777]
    c.qpn, c.psn = [0x52], [0xabcdef]
    c.ev("ctrl", "listen", "listening on 0.0.0.0 port 18500 (TCP)",
         pid=6160, addr="0.0.0.0", port=18500)
    c.ev("ctrl", "accept", "accepted control connection from 10.0.2.16",
         pid=6160, peer="10.0.2.16")
    size = 10 << 20
    handshake(a, b, 1, size)
    b.ev("session", "relay.start", "relaying to 10.0.2.17:18500",
         host="10.0.2.17", port=18500)
    r.t = b.t
    handshake(r, c, 1, size)
    for s, d in ((a, b), (r, c)):
        s.ev("session", "phase", "phase DATA", phase="DATA")
        s.msg("out", "FILE", id=0, path="big.iso", size=size)
        d.msg("in", "FILE", id=0, path="big.iso", size=size)
    data(a, b, 10, 1, 1, size, 0.0125)
    data(r, c, 10, 1, 1, size, 0.0131)
    for s, d in ((a, b), (r, c)):
        s.msg("out", "FEND", id=0, bytes=size)
        d.msg("in", "FEND", id=0, bytes=size)
        d.msg("out", "FACK", id=0, status=0, status_name="OK", bytes=size,
              text="")
        s.msg("in", "FACK", id=0, status=0, status_name="OK", bytes=size,
              text="")
    finish(r, c, 1, size)
    b.t = max(b.t, r.t)
    b.ev("session", "relay.end", "relayed to 10.0.2.17:18500",
         host="10.0.2.17", port=18500)
    finish(a, b, 1, size)
    for s in (a, b, r, c):
        teardown(s, 1)
    b.lines = sorted(b.lines + r.lines, key=lambda e: e["t"])
    for name, s in (("a", a), ("b", b), ("c", c)):
        s.write(os.path.join(dirname, "chain.%s.jsonl" % name))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    push(1, "push1", d)
    push(2, "push2", d)
    push(8, "push8", d)
    failed(d)
    many(d)
    interrupted(d)
    chain(d)


if __name__ == "__main__":
    main()
