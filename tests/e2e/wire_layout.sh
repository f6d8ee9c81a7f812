#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# tests/e2e/wire.py, the tests' own codec, against the C side's numbers:
# magic, version, message types, status codes and limits from
# include/rdmapush/proto.h and limits.h, every message's length from the
# layout table in src/proto.c, and a round trip of each message. On the
# host, no lab: it runs first in tests/e2e/run.
. "$(dirname "$0")/lib.sh"

relay "wire_layout.py" python3 -B - "$TOP" <<'PY'
import re
import sys

top = sys.argv[1]
sys.path.insert(0, top + "/tests/e2e")
import wire  # noqa: E402

hdr_h = open(top + "/include/rdmapush/proto.h").read()
auth_h = open(top + "/include/rdmapush/auth.h").read()
lim_h = open(top + "/include/rdmapush/limits.h").read()
proto_c = open(top + "/src/proto.c").read()


def report(ok, name, why):
    print(f"ok - host: wire: {name}" if ok else
          f"not ok - host: wire: {name}: {why}", flush=True)


def define(text, name):
    m = re.search(r"#define\s+%s\s+(0x[0-9a-fA-F]+|\d+)" % name, text)
    return int(m.group(1), 0) if m else None


def enum(prefix):
    return {k: int(v) for k, v in
            re.findall(r"\b%s(\w+)\s*=\s*(\d+)" % prefix, hdr_h)}


def same(name, got, want):
    report(got == want, name, f"wire.py has {got!r}, the C side {want!r}")


same("magic", wire.MAGIC, define(hdr_h, "RP_PROTO_MAGIC"))
same("version", wire.VERSION, define(hdr_h, "RP_PROTO_VERSION"))
same("header length", wire.HDR_LEN, define(hdr_h, "RP_PROTO_HDR_LEN"))
same("GID, checksum, nonce and MAC lengths",
     (wire.GID_LEN, wire.CSUM_LEN, wire.NONCE_LEN, wire.MAC_LEN),
     tuple(define(hdr_h, n) for n in ("RP_GID_LEN", "RP_CSUM_LEN",
                                      "RP_AUTH_NONCE_LEN", "RP_AUTH_MAC_LEN")))
same("tag length and the room left for it",
     (wire.TAG_LEN, wire.TAG_LEN),
     (define(auth_h, "RP_TAG_LEN"), define(hdr_h, "RP_PROTO_TAG_ROOM")))
same("payload, name and text limits",
     (wire.MAX_PAYLOAD, wire.NAME_MAX, wire.TEXT_MAX),
     tuple(define(lim_h, n) for n in ("RP_PROTO_MAX_PAYLOAD", "RP_NAME_MAX",
                                      "RP_TEXT_MAX")))
same("message types", {v: k for k, v in wire.TYPE_NAMES.items()},
     enum("RP_MSG_"))
same("status codes", {v.upper(): k for k, v in wire.STATUS.items()},
     enum("RP_ST_"))

# The layout table's sizes: "MR, 56 bytes", "HELLO, 46 + name_len bytes".
table = proto_c[:proto_c.index("*/", proto_c.index("Wire layouts"))]
sizes = dict(re.findall(r"\* (qp_addr|HELLO|MR|FIN|ACK and ERR|AUTH)"
                        r"(?: \(struct rp_result\))?, (\d+)", table))
same("message lengths in src/proto.c's layout table",
     {"qp_addr": wire.QP_ADDR_LEN, "HELLO": wire.HELLO_FIXED_LEN,
      "MR": wire.MR_LEN, "FIN": wire.FIN_LEN,
      "ACK and ERR": wire.RESULT_FIXED_LEN, "AUTH": wire.AUTH_LEN},
     {k: int(v) for k, v in sizes.items()})

# Round trips: what the encoders write, the decoders read back.
qp = wire.qp_addr(0x123456, 0xabcdef, wire.gid_v4("10.77.0.1"), lid=7,
                  mtu=5)
q = {"qpn": 0x123456, "psn": 0xabcdef, "lid": 7, "mtu": 5, "reserved": 0,
     "gid": wire.gid_v4("10.77.0.1")}


def trip(name, m, mtype, unpack, want):
    magic, ver, t, res, n = wire.parse_hdr(m[:wire.HDR_LEN])
    got = unpack(m[wire.HDR_LEN:])
    report((magic, ver, t, res, n) == (wire.MAGIC, wire.VERSION, mtype, 0,
                                       len(m) - wire.HDR_LEN) and got == want,
           f"{name} round trip", f"header {(magic, ver, t, res, n)}, {got}")


trip("HELLO", wire.hello(qp, 1 << 40, 65536, 8, b"f.bin"), wire.HELLO,
     wire.unpack_hello, dict(q, size=1 << 40, chunk=65536, window=8,
                             name=b"f.bin"))
trip("MR", wire.mr(qp, 1 << 47, 0x1234, 8 << 16, 65536, 8), wire.MR,
     wire.unpack_mr, dict(q, addr=1 << 47, rkey=0x1234, len=8 << 16,
                          chunk=65536, window=8))
trip("FIN", wire.fin(12345, bytes(range(16))), wire.FIN, wire.unpack_fin,
     {"bytes": 12345, "csum": bytes(range(16))})
trip("ACK", wire.ack(0, 99, b"done"), wire.ACK, wire.unpack_result,
     {"status": 0, "bytes": 99, "text": b"done"})
trip("ERR", wire.err(5, 0, b"receiver busy"), wire.ERR, wire.unpack_result,
     {"status": 5, "bytes": 0, "text": b"receiver busy"})
trip("AUTH", wire.auth(2, b"n" * 32, b"m" * 32), wire.AUTH, wire.unpack_auth,
     {"step": 2, "nonce": b"n" * 32, "mac": b"m" * 32})

# The session key and tag, against the known answers in
# tests/unit/test_auth.c (which the C side must match too).
unit = open(top + "/tests/unit/test_auth.c").read()


def kat(name):
    m = re.search(r"%s\[[A-Z_]+\] = \{([^}]*)\}" % name, unit)
    return bytes(int(x, 16) for x in re.findall(r"0x[0-9a-f]{2}", m.group(1)))


skey = wire.session_key(bytes(range(32)), b"\x11" * 32, b"\x22" * 32)
same("session key (test_auth.c's known answer)", skey.hex(),
     kat("kat_skey").hex())
sealed = wire.seal(skey, b"S", 5, wire.msg(wire.FIN, b"hello, tag"))
same("tag (test_auth.c's known answer)", sealed[-32:].hex(),
     kat("kat_tag").hex())
same("a sealed header counts the tag", sealed[:12].hex(),
     kat("kat_hdr").hex())
same("unseal checks the sequence number",
     (wire.unseal(skey, b"S", 5, sealed[:12], sealed[12:]),
      wire.unseal(skey, b"S", 6, sealed[:12], sealed[12:])),
     (b"hello, tag", None))
PY
done_testing
