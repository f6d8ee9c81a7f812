#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check two --trace-json files of one push against docs/trace.md.

usage: trace_json.py LABEL SEND.jsonl RECV.jsonl SEND.trace RECV.trace QPS BYTES

SEND.trace and RECV.trace are what each side printed on stderr with
--trace ("" for none). Prints one "ok - LABEL: ..." or "not ok - LABEL:
...: why" line per case (tests/e2e/lib.sh's relay counts them); exits 1
if any failed.
"""
import json
import re
import sys

LABEL, SEND, RECV, SEND_TXT, RECV_TXT = sys.argv[1:6]
QPS, BYTES = int(sys.argv[6]), int(sys.argv[7])
failed = 0


def ok(name):
    print(f"ok - {LABEL}: {name}")


def fail(name, why):
    global failed
    failed += 1
    print(f"not ok - {LABEL}: {name}: {why}")


def case(name, fn):
    try:
        fn()
        ok(name)
    except (AssertionError, KeyError, TypeError, ValueError, IndexError) as e:
        fail(name, f"{type(e).__name__}: {e}"[:600])


def load(path):
    events = []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            assert raw.endswith(b"\n"), f"{path}:{n}: no newline"
            ev = json.loads(raw.decode("utf-8"))
            assert isinstance(ev, dict), f"{path}:{n}: not an object"
            events.append(ev)
    return events


def isint(v):
    return isinstance(v, int) and not isinstance(v, bool)


def members(events, side):
    last = {}
    for i, e in enumerate(events):
        assert set(e) == {"v", "t", "side", "pid", "area", "kind", "text", "f"}, \
            f"line {i + 1}: members {sorted(e)}"
        assert e["v"] == 1, f"line {i + 1}: v {e['v']}"
        assert isinstance(e["t"], float), f"line {i + 1}: t {e['t']!r}"
        assert e["side"] == side, f"line {i + 1}: side {e['side']}"
        assert isint(e["pid"]) and e["pid"] > 0
        assert e["area"] in ("verbs", "ctrl", "data", "file", "session",
                             "error", "pool", "server", "wire"), e["area"]
        assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)*", e["kind"]), e["kind"]
        assert isinstance(e["text"], str) and isinstance(e["f"], dict)
        # Time never goes back within one process.
        assert e["t"] >= last.get(e["pid"], 0.0), f"line {i + 1}: t went back"
        last[e["pid"]] = e["t"]
    assert not [e for e in events if e["kind"] == "error"], "error events"


def kinds(events, kind, **match):
    return [e for e in events if e["kind"] == kind and
            all(e["f"].get(k) == v for k, v in match.items())]


def need(e, spec):
    """spec: {field: type}; each field present with that JSON type."""
    for k, t in spec.items():
        assert k in e["f"], f"{e['kind']}: no field {k}: {e['text']}"
        v = e["f"][k]
        if t is int:
            assert isint(v), f"{e['kind']}.{k} = {v!r}, want an integer"
        else:
            assert isinstance(v, t), f"{e['kind']}.{k} = {v!r}, want {t.__name__}"


def verbs_life(events):
    (dev,) = kinds(events, "device.open")
    need(dev, {"dev": str, "port": int, "link_layer": str, "mtu": int,
               "gid_index": int, "gid": str})
    assert dev["f"]["link_layer"] in ("Ethernet", "InfiniBand"), dev["f"]
    assert len(kinds(events, "pd.alloc")) == 1 and len(kinds(events, "pd.dealloc")) == 1, \
        "not one pd.alloc and one pd.dealloc"
    (cq,) = kinds(events, "cq.create")
    need(cq, {"cqe": int})
    assert len(kinds(events, "cq.destroy")) == 1, "not one cq.destroy"
    (mr,) = kinds(events, "mr.reg")
    need(mr, {"addr": int, "length": int, "lkey": int, "rkey": int, "access": str})
    (dereg,) = kinds(events, "mr.dereg")
    assert dereg["f"]["rkey"] == mr["f"]["rkey"], (dereg["f"], mr["f"])
    order = [e["kind"] for e in events]
    assert order.index("device.open") < order.index("pd.alloc") < \
        order.index("cq.create") < order.index("qp.create"), "object order"
    for q in range(QPS):
        (c,) = kinds(events, "qp.create", qp=q)
        need(c, {"qp": int, "qps": int, "qpn": int, "max_send_wr": int,
                 "max_recv_wr": int})
        assert c["f"]["qps"] == QPS, c["f"]
        qpn = c["f"]["qpn"]
        steps = kinds(events, "qp.modify", qp=q)
        got = [(e["f"]["from"], e["f"]["to"]) for e in steps]
        assert got == [("RESET", "INIT"), ("INIT", "RTR"), ("RTR", "RTS")], got
        assert all(e["f"]["qpn"] == qpn for e in steps), f"QP {q}: qpn"
        need(steps[0], {"port": int, "access": str})
        need(steps[1], {"path_mtu": int, "dest_qpn": int, "rq_psn": int,
                        "max_dest_rd_atomic": int})
        need(steps[2], {"sq_psn": int, "timeout": int, "retry_cnt": int,
                        "rnr_retry": int, "max_rd_atomic": int})
        states = [e["f"]["state"] for e in kinds(events, "qp.state", qp=q)]
        assert states == ["INIT", "RTR", "RTS"], states
        (d,) = kinds(events, "qp.destroy", qp=q)
        assert d["f"]["qpn"] == qpn, d["f"]
        assert kinds(events, "qp.error", qp=q, qpn=qpn), f"QP {q}: no qp.error"
        i = events.index
        assert i(c) < i(steps[0]) < i(steps[1]) < i(steps[2]) < i(d), \
            f"QP {q}: created, modified, destroyed out of order"
    posts = kinds(events, "post")
    wcs = kinds(events, "wc")
    assert posts and wcs, "no post or no wc"
    for e in posts:
        need(e, {"op": str, "wr_id": int, "qp": int})
    for e in wcs:
        need(e, {"opcode": str, "status": str, "wr_id": int, "qp": int,
                 "byte_len": int, "imm": int})
    assert len(kinds(events, "datapath.summary")) == 1, "not one datapath.summary"


def msgs(events, d):
    return [e for e in events if e["kind"] == "msg" and e["f"]["dir"] == d]


def messages(snd, rcv):
    for a, b, first in ((snd, rcv, "HELLO"), (rcv, snd, "MR")):
        out = msgs(a, "out")
        types = [e["f"]["type"] for e in out]
        assert first in types, f"no {first} out: {types}"
        for t in set(types):
            mine = [e for e in out if e["f"]["type"] == t]
            theirs = [e for e in msgs(b, "in") if e["f"]["type"] == t]
            assert len(mine) == len(theirs), f"{t}: {len(mine)} out, {len(theirs)} in"
            for x, y in zip(mine, theirs):
                xf = {k: v for k, v in x["f"].items() if k != "dir"}
                yf = {k: v for k, v in y["f"].items() if k != "dir"}
                assert xf == yf, f"{t}: out {xf} in {yf}"
    types = [e["f"]["type"] for e in msgs(snd, "out")] + \
        [e["f"]["type"] for e in msgs(snd, "in")]
    for t in ("HELLO", "MR", "FIN", "ACK", "FILE", "FEND", "FACK"):
        assert t in types, f"no {t}: {types}"
    (h,) = [e for e in msgs(snd, "out") if e["f"]["type"] == "HELLO"]
    need(h, {"qpn": int, "psn": int, "lid": int, "mtu": int, "gid": str,
             "chunk": int, "window": int, "total": int, "op": str, "qps": int})
    assert h["f"]["total"] == BYTES and h["f"]["qps"] == QPS
    (m,) = [e for e in msgs(snd, "in") if e["f"]["type"] == "MR"]
    need(m, {"qpn": int, "psn": int, "addr": int, "rkey": int, "len": int})
    (a,) = [e for e in msgs(snd, "in") if e["f"]["type"] == "ACK"]
    need(a, {"status": int, "status_name": str, "bytes": int, "text": str})
    assert a["f"]["bytes"] == BYTES
    # The QPs each side created are the ones its HELLO or MR announced.
    for ev, mine in ((snd, h), (rcv, [e for e in msgs(rcv, "out") if e["f"]["type"] == "MR"][0])):
        (c,) = kinds(ev, "qp.create", qp=0)
        assert c["f"]["qpn"] == mine["f"]["qpn"]


def summary(events, side):
    (s,) = kinds(events, "data.summary")
    need(s, {"bytes": int, "chunks": int, "files": int, "data_seconds": float,
             "credits": int})
    f = s["f"]
    assert f["bytes"] == BYTES and f["files"] == 1, f
    assert f["chunks"] > 0 and f["credits"] > 0 and f["data_seconds"] > 0, f
    phases = [e["f"]["phase"] for e in kinds(events, "phase")]
    assert "DATA" in phases and phases[-1] == "DONE", phases
    return f


def same_as_text(events, path, side):
    if not path:
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\n") for l in f if re.match(r"\[ *[0-9]+\.[0-9]{6}\] ", l)]
    assert len(lines) == len(events), \
        f"{len(lines)} --trace lines, {len(events)} events"
    for n, (l, e) in enumerate(zip(lines, events)):
        want = f"{side} {e['area']:<7} {e['text']}"
        got = l.split("] ", 1)[1]
        assert got == want, f"line {n + 1}: text {got!r}, event {want!r}"


try:
    snd, rcv = load(SEND), load(RECV)
    ok(f"both files parse: {len(snd)} and {len(rcv)} JSON lines")
except (OSError, ValueError, AssertionError) as e:
    fail("both files parse as JSON lines", e)
    sys.exit(1)
for ev, side, txt in ((snd, "send", SEND_TXT), (rcv, "recv", RECV_TXT)):
    case(f"{side}: every line has v/t/side/pid/area/kind/text/f, time never goes back, no error event",
         lambda: members(ev, side))
    case(f"{side}: verbs life cycle: device.open, pd, cq, mr, each of {QPS} QPs created, RESET->INIT->RTR->RTS, read back, ERROR, destroyed; posts, completions, datapath.summary",
         lambda: verbs_life(ev))
    case(f"{side}: data.summary: {BYTES} bytes, 1 file, chunks, credits and data_seconds > 0; phases end in DONE",
         lambda: summary(ev, side))
    if txt:
        case(f"{side}: one event per --trace line, its text the line's, in the same order",
             lambda: same_as_text(ev, txt, side))
case("msg: HELLO, MR, FILE, FEND, FACK, FIN, ACK; the k-th out of each type is the peer's k-th in, with the same fields",
     lambda: messages(snd, rcv))


def credits():
    s, r = kinds(snd, "data.summary")[0]["f"], kinds(rcv, "data.summary")[0]["f"]
    assert s["chunks"] == r["chunks"], (s, r)
    assert s["credits"] <= r["credits"], (s, r)


case("data.summary: both sides count the same chunks; the sender got no more credits than the receiver sent", credits)
sys.exit(1 if failed else 0)
