#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# modes: host
# tests/e2e/wire.py, the tests' own codec, against the C side's numbers:
# magic, version, message types, status codes, file kinds, HELLO flags,
# immediate bits and limits from include/rdmapush/proto.h, csum.h and
# limits.h; every message's length, and every field at its offset, from
# the layout table in src/proto.c; a round trip of each message; the golden HELLOs
# and MRs of tests/unit/test_proto.c (one QP and three), its FILEs, HAVE,
# FROM and RECONNECT (version 7), CHAIN and HOST (a chain push), made again by
# wire.py from the same fields; and the version 4 file checksum
# (wire.file_csum) against answers made without it. On the host, no lab:
# it runs first in tests/e2e/run.
. "$(dirname "$0")/lib.sh"

KAT=$(mktemp -d /tmp/rdmapush-wire.XXXXXX)
trap 'rm -rf "$KAT"' EXIT

# kat FILE CHUNK: the version 4 checksum of FILE cut at CHUNK, in hex,
# made by split(1) and xxhsum(1) alone: the XXH3-128 of each piece, those
# digests written one after the other as bytes, and their XXH3-128. An
# empty FILE makes no piece, so no digest.
kat() {
	local d=$KAT/pieces p hex
	rm -rf "$d" && mkdir "$d" && : >"$KAT/digests" || return 1
	split -a 6 -d -b "$2" "$1" "$d/p" || return 1
	for p in "$d"/p*; do
		[ -e "$p" ] || continue		# no piece: the glob stays as is
		hex=$(xxhsum -H2 "$p" | cut -d' ' -f1) || return 1
		printf '%s' "${hex^^}" | basenc --base16 -d >>"$KAT/digests" ||
			return 1
	done
	xxhsum -H2 "$KAT/digests" | cut -d' ' -f1
}

# Cases "FILE CHUNK HEX": no chunk; less than one; exactly three; three
# and a short one; the same bytes cut at another chunk size.
for size_chunk in "0 4096" "1000 4096" "12288 4096" "13288 4096" \
	"13288 5000"; do
	read -r size chunk <<<"$size_chunk"
	f=$KAT/data$size
	[ -e "$f" ] || head -c "$size" /dev/urandom >"$f"
	if hex=$(kat "$f" "$chunk") && [ ${#hex} = 32 ]; then
		echo "$f $chunk $hex" >>"$KAT/cases"
	else
		fail "file_csum known answer" "split or xxhsum failed on $size bytes"
	fi
done

relay "wire_layout.py" "$PYTHON3" -B - "$TOP" "$KAT/cases" <<'PY'
import re
import sys

top = sys.argv[1]
sys.path.insert(0, top + "/tests/e2e")
import wire  # noqa: E402

# proto.h takes RP_CSUM_LEN from csum.h: read both as one.
hdr_h = open(top + "/include/rdmapush/proto.h").read() + \
    open(top + "/include/rdmapush/csum.h").read()
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
same("payload, path and text limits",
     (wire.MAX_PAYLOAD, wire.PATH_MAX, wire.TEXT_MAX),
     tuple(define(lim_h, n) for n in ("RP_PROTO_MAX_PAYLOAD", "RP_PATH_MAX",
                                      "RP_TEXT_MAX")))
same("unknown size", wire.SIZE_UNKNOWN == (1 << 64) - 1 and
     re.search(r"#define\s+RP_SIZE_UNKNOWN\s+UINT64_MAX\b", lim_h) is not None,
     True)
same("message types", {v: k for k, v in wire.TYPE_NAMES.items()},
     enum("RP_MSG_"))
same("status codes", {v.upper(): k for k, v in wire.STATUS.items()},
     enum("RP_ST_"))
same("file kinds", {"REG": wire.FILE_REG, "DIR": wire.FILE_DIR},
     enum("RP_FILE_"))
same("HELLO flags", (wire.HELLO_PRESERVE, wire.HELLO_PING,
                     wire.HELLO_CHAIN, wire.HELLO_FLAGS),
     (define(hdr_h, "RP_HELLO_PRESERVE"), define(hdr_h, "RP_HELLO_PING"),
      define(hdr_h, "RP_HELLO_CHAIN"), define(hdr_h, "RP_HELLO_FLAGS")))
same("a CHAIN hop's longest name", wire.HOST_NAME_MAX,
     define(open(top + "/include/rdmapush/hostlist.h").read(),
            "RP_HOST_NAME_MAX"))
same("HELLO ops (v5)", {"WRITE": wire.OP_WRITE, "READ": wire.OP_READ,
                        "SEND": wire.OP_SEND},
     enum("RP_OP_"))
same("most QPs (v6)", wire.QPS_MAX, define(lim_h, "RP_QPS_MAX"))
same("data immediate bits", (wire.IMM_END, wire.IMM_SEQ),
     (define(hdr_h, "RP_IMM_END"), define(hdr_h, "RP_IMM_SEQ")))
same("FILE want bits (v7)", (wire.WANT_RESUME, wire.WANT_BITS),
     (define(hdr_h, "RP_WANT_RESUME"), define(hdr_h, "RP_WANT_BITS")))
same("FILE update levels (v7)",
     {"NONE": wire.UPDATE_NONE, "EXISTS": wire.UPDATE_EXISTS,
      "SIZE": wire.UPDATE_SIZE, "MTIME": wire.UPDATE_MTIME,
      "CHECKSUM": wire.UPDATE_CHECKSUM}, enum("RP_UPDATE_"))
same("HAVE verdicts (v7)",
     {"NONE": wire.HAVE_NONE, "UPTODATE": wire.HAVE_UPTODATE,
      "PARTIAL": wire.HAVE_PARTIAL}, enum("RP_HAVE_"))

# src/proto.c's layout table: each block's size line and its rows
# ("\t28 u64 total\t..."), as {name: (size, [(offset, type, field)])}.
table = proto_c[:proto_c.index("*/", proto_c.index("Wire layouts"))]
blocks = {}
for line in table.splitlines():
    m = re.match(r" \* (qp_addr|qp_more|chain_hop|[A-Z][A-Za-z ]*?)"
                 r"(?: \(struct rp_result\))?, (\d+)(?: \+ [^,:]*?)? bytes",
                 line)
    if m:
        rows = []
        blocks[m.group(1)] = (int(m.group(2)), rows)
        continue
    # "+n": a row after the variable field, at n from its end (FILE, v7).
    m = re.match(r" \*\t\s*(\+?)(\d+) (qp_addr|qp_more|u8|u16|u32|u64)"
                 r"(?:\s+(\w+)(?:\[([^]]+)\])?)?", line)
    if m and blocks:
        rows.append((int(m.group(2)), m.group(3), m.group(4) or m.group(3),
                     m.group(5), m.group(1) == "+"))
fack = re.search(r"FACK is the same\s*\n\s*\* after a u32 id \((\d+) \+",
                 table)
same("message lengths in src/proto.c's layout table",
     {"qp_addr": wire.QP_ADDR_LEN, "qp_more": wire.QP_MORE_LEN,
      "HELLO": wire.HELLO_LEN,
      "MR": wire.MR_LEN, "FILE": wire.FILE_FIXED_LEN + wire.FILE_TAIL_LEN,
      "FEND": wire.FEND_LEN,
      "FIN": wire.FIN_LEN, "ACK and ERR": wire.RESULT_FIXED_LEN,
      "FACK": wire.FACK_FIXED_LEN, "AUTH": wire.AUTH_LEN,
      "SYNC": wire.SYNC_LEN, "HAVE": wire.HAVE_LEN, "FROM": wire.FROM_LEN,
      "RECONNECT": wire.RECONNECT_FIXED_LEN,
      "CHAIN": wire.CHAIN_FIXED_LEN, "chain_hop": wire.CHAIN_HOP_FIXED_LEN,
      "HOST": wire.HOST_FIXED_LEN},
     dict({k: v[0] for k, v in blocks.items()},
          FACK=int(fack.group(1)) if fack else None))

WIDTH = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "qp_addr": wire.QP_ADDR_LEN}


def fields(name, payload, want, base=0):
    """Every row of the table's block name read from payload (a wire.py
    encoding) at its offset + base, against want[field]: the offsets are
    the table's, the bytes wire.py's. Rows must also be contiguous and
    fill the block's fixed size. A variable field is as long as
    want[field], and the "+n" rows after it (FILE's, v7) are at n from
    its end; with no such rows it is the rest of the payload."""
    size, rows = blocks.get(name, (None, []))
    got, end, at, tail = {}, 0, 0, 0
    for off, typ, field, count, after in rows:
        if off != (tail if after else end):
            got["offset of " + field] = off
            want = dict(want, **{"offset of " + field:
                                 tail if after else end})
        if count and not count.isdigit():
            if not any(r[4] for r in rows):
                got[field] = payload[base + off:]   # the variable tail
                break
            at = base + off + len(want[field])
            got[field] = payload[base + off:at]
            continue
        n = WIDTH[typ] * (int(count) if count else 1)
        start = at + off if after else base + off
        raw = payload[start:start + n]
        got[field] = raw if count or typ == "qp_addr" else \
            int.from_bytes(raw, "big", signed=field == "mtime_sec")
        if after:
            tail = off + n
            end += n
        else:
            end = off + n
    report(rows != [] and end == size and got == want,
           f"{name} fields at src/proto.c's offsets",
           f"table size {size}, rows end at {end}; read {got}, want {want}")


qp = wire.qp_addr(0x123456, 0xabcdef, wire.gid_v4("10.77.0.1"), lid=7,
                  mtu=5)
q = {"qpn": 0x123456, "psn": 0xabcdef, "lid": 7, "mtu": 5, "reserved": 0,
     "gid": wire.gid_v4("10.77.0.1")}
csum = bytes(range(0xa0, 0xb0))
more = [(0x000101, 0xfffffe), (0xffffff, 0)]
fields("qp_addr", qp, q)
fields("qp_more", wire.qp_more(more[:1]), {"qpn": 0x000101, "psn": 0xfffffe})
fields("HELLO", wire.hello_payload(qp, (1 << 40) + 5, 65536, 8,
                                   wire.HELLO_PRESERVE, wire.OP_SEND),
       {"qp_addr": qp, "total": (1 << 40) + 5, "chunk": 65536, "window": 8,
        "flags": wire.HELLO_PRESERVE | wire.OP_SEND << 8 | 1 << 16,
        "more": b""})
fields("HELLO", wire.hello_payload(qp, (1 << 40) + 5, 65536, 8,
                                   wire.HELLO_PRESERVE, wire.OP_SEND, more),
       {"qp_addr": qp, "total": (1 << 40) + 5, "chunk": 65536, "window": 8,
        "flags": wire.HELLO_PRESERVE | wire.OP_SEND << 8 | 3 << 16,
        "more": bytes.fromhex("00000101" "00fffffe" "00ffffff" "00000000")})
fields("MR", wire.mr_payload(qp, 1 << 47, 0x1234, 8 << 16, 65536, 8),
       {"qp_addr": qp, "addr": 1 << 47, "rkey": 0x1234, "len": 8 << 16,
        "chunk": 65536, "window": 8, "more": b""})
fields("MR", wire.mr_payload(qp, 1 << 47, 0x1234, 8 << 16, 65536, 8, more),
       {"qp_addr": qp, "addr": 1 << 47, "rkey": 0x1234, "len": 8 << 16,
        "chunk": 65536, "window": 8,
        "more": bytes.fromhex("00000101" "00fffffe" "00ffffff" "00000000")})
fields("FILE", wire.file_payload(0x01020304, wire.FILE_REG, 0o4755,
                                 wire.SIZE_UNKNOWN, -2, 999999999, b"d/f",
                                 want=wire.WANT_RESUME,
                                 update=wire.UPDATE_CHECKSUM, csum=csum),
       {"id": 0x01020304, "kind": wire.FILE_REG, "reserved": 0,
        "mode": 0o4755, "size": wire.SIZE_UNKNOWN, "mtime_sec": -2,
        "mtime_nsec": 999999999, "path_len": 3, "path": b"d/f",
        "want": wire.WANT_RESUME, "update": wire.UPDATE_CHECKSUM,
        "csum": csum})
fields("FEND", wire.fend_payload(9, 1 << 33, csum),
       {"id": 9, "bytes": 1 << 33, "csum": csum})
fields("FIN", wire.fin_payload(3, 1 << 33), {"files": 3, "bytes": 1 << 33})
res = {"status": 8, "bytes": 77, "text_len": 4, "text": b"disk"}
fields("ACK and ERR", wire.result_payload(8, 77, b"disk"), res)
# FACK: the result's rows after a u32 id.
fields("ACK and ERR", wire.fack_payload(0x0a0b0c0d, 8, 77, b"disk"), res,
       base=4)
same("FACK's id first", wire.fack_payload(0x0a0b0c0d)[:4],
     bytes([10, 11, 12, 13]))
fields("AUTH", wire.auth(2, b"n" * 32, b"m" * 32)[wire.HDR_LEN:],
       {"step": 2, "nonce": b"n" * 32, "mac": b"m" * 32})
fields("SYNC", wire.sync(5, 1 << 20, 1 << 30)[wire.HDR_LEN:],
       {"id": 5, "synced_bytes": 1 << 20, "total_bytes": 1 << 30})
fields("HAVE", wire.have_payload(0x01020304, wire.HAVE_PARTIAL, 1 << 33,
                                 csum),
       {"id": 0x01020304, "verdict": wire.HAVE_PARTIAL, "reserved": 0,
        "bytes": 1 << 33, "csum": csum})
fields("FROM", wire.from_payload(0x01020304, (1 << 64) - 1),
       {"id": 0x01020304, "reserved": 0, "offset": (1 << 64) - 1})
fields("RECONNECT", wire.reconnect_payload(3, 1 << 40, more),
       {"attempt": 3, "qps": 2, "reserved": 0, "next_chunk": 1 << 40,
        "qp": bytes.fromhex("00000101" "00fffffe" "00ffffff" "00000000")})
fields("CHAIN", wire.chain_payload([("n1", 7)]), {"count": 1})
fields("chain_hop", wire.chain_payload([("node02", 0xfffe)])[2:],
       {"port": 0xfffe, "name_len": 6, "name": b"node02"})
fields("HOST", wire.host_payload(0x0102, 1, 3, 1 << 40, (1 << 64) - 1,
                                 b"why"),
       {"hop": 0x0102, "status": 1, "files": 3, "failed": 1 << 40,
        "bytes": (1 << 64) - 1, "text_len": 3, "text": b"why"})


# Round trips: what the encoders write, the decoders read back.
def trip(name, m, mtype, unpack, want):
    magic, ver, t, res, n = wire.parse_hdr(m[:wire.HDR_LEN])
    got = unpack(m[wire.HDR_LEN:])
    report((magic, ver, t, res, n) == (wire.MAGIC, wire.VERSION, mtype, 0,
                                       len(m) - wire.HDR_LEN) and got == want,
           f"{name} round trip", f"header {(magic, ver, t, res, n)}, {got}")


trip("HELLO", wire.hello(qp, 1 << 40, 65536, 8, wire.HELLO_PRESERVE),
     wire.HELLO, wire.unpack_hello,
     dict(q, total=1 << 40, chunk=65536, window=8, flags=1, op=0, qps=1,
          top=0, more=[]))
trip("HELLO, op read", wire.hello(qp, 1 << 40, 65536, 8, op=wire.OP_READ),
     wire.HELLO, wire.unpack_hello,
     dict(q, total=1 << 40, chunk=65536, window=8, flags=0, op=1, qps=1,
          top=0, more=[]))
trip("MR", wire.mr(qp, 1 << 47, 0x1234, 8 << 16, 65536, 8), wire.MR,
     wire.unpack_mr, dict(q, addr=1 << 47, rkey=0x1234, len=8 << 16,
                          chunk=65536, window=8, qps=1, more=[]))
for n in range(2, wire.QPS_MAX + 1):
    most = [(0x10 + i, 0xfff000 + i) for i in range(n - 1)]
    trip(f"HELLO, {n} QPs", wire.hello(qp, 1 << 40, 65536, 8, op=wire.OP_SEND,
                                       more=most),
         wire.HELLO, wire.unpack_hello,
         dict(q, total=1 << 40, chunk=65536, window=8, flags=0, op=2,
              qps=n, top=0, more=most))
    trip(f"MR, {n} QPs", wire.mr(qp, 0, 0, 8 << 16, 65536, 8, most), wire.MR,
         wire.unpack_mr, dict(q, addr=0, rkey=0, len=8 << 16, chunk=65536,
                              window=8, qps=n, more=most))


def refused(unpack, payload):
    try:
        unpack(payload)
    except ValueError:
        return True
    return False


hello3 = wire.hello_payload(qp, 1, 65536, 8, more=more)
mr3 = wire.mr_payload(qp, 0, 0, 8 << 16, 65536, 8, more)
same("decoders refuse a RECONNECT whose length does not match qps (v7)",
     [refused(wire.unpack_reconnect, p) for p in
      (wire.reconnect_payload(1, 0, more)[:-1],
       wire.reconnect_payload(1, 0, more) + bytes(8),
       wire.reconnect_payload(1, 0, more, qps=3),
       wire.reconnect_payload(1, 0, [], qps=0),
       wire.reconnect_payload(1, 0, more * 4 + more[:1], qps=9))],
     [True] * 5)
same("decoders refuse a length that does not match qps (v6)",
     [refused(wire.unpack_hello, p) for p in
      (hello3[:-1], hello3[:-8], hello3 + bytes(8),
       wire.hello_payload(qp, 1, 65536, 8, more=more, qps=0),
       wire.hello_payload(qp, 1, 65536, 8, more=more * 4 + more[:1],
                          qps=9))] +
     [refused(wire.unpack_mr, p) for p in
      (mr3[:-1], mr3 + b"\0", mr3[:wire.MR_LEN - 1],
       wire.mr_payload(qp, 0, 0, 8 << 16, 65536, 8, more * 4))],
     [True] * 9)

# tests/unit/test_proto.c's golden HELLOs and MRs, made again here from
# the fields that file gives them: the C codec and wire.py must agree
# byte for byte.
unit_proto = open(top + "/tests/unit/test_proto.c").read()


def golden(name):
    """The bytes of a golden array: its hex numbers and its 'c' chars."""
    m = re.search(r"\b%s\[\] = \{([^}]*)\}" % name, unit_proto)
    return bytes(int(x, 16) if x else ord(c) for x, c in
                 re.findall(r"0x([0-9a-f]{2})|'(.)'", m.group(1))) \
        if m else None


gq = wire.qp_addr(0xabcdef, 0x123456,
                  b"\0" * 10 + b"\xff\xff" + bytes([192, 168, 1, 2]), mtu=5)
gh = (gq, 0x100000002, 0x100000, 16, wire.HELLO_PRESERVE, wire.OP_READ)
mq = wire.qp_addr(0x11, 0xabcd, b"\0" * 16, lid=7, mtu=4)
gm = (mq, 0x7f0012345000, 0xdeadbeef, 0x80000, 0x10000, 8)
gcsum = bytes(range(0xc0, 0xd0))
gfile = (7, wire.FILE_REG, b"d/a.b", 0o644, 4096, -1, 999999999)
for name, want in (
        ("golden_file", wire.pack_file(*gfile)),
        ("golden_file7", wire.pack_file(*gfile, want=wire.WANT_RESUME,
                                        update=wire.UPDATE_CHECKSUM,
                                        csum=gcsum)),
        ("golden_have", wire.pack_have(258, wire.HAVE_PARTIAL, 1 << 32,
                                       bytes(range(0xd0, 0xe0)))),
        ("golden_from", wire.pack_from(258, 1 << 32)),
        ("golden_chain", wire.pack_chain([("node02", 18488),
                                          ("fe80::1%eth0", 1)])),
        ("golden_host", wire.pack_host(258, 1, 3, 1, 1 << 32, b"no")),
        ("golden_reconnect", wire.pack_reconnect(
            2, 0x12345, [(0x21, 0xabcdef), (0xffffff, 0),
                         (1, 0xffffff)])),
        ("golden_hello", wire.hello(*gh)),
        ("golden_hello3", wire.hello(*gh, more=[(258, 0xffffff),
                                                (0xffffff, 0)])),
        ("golden_mr", wire.mr(*gm)),
        ("golden_mr3", wire.mr(*gm, more=[(0x12, 1), (0x13, 0x123456)]))):
    same(f"test_proto.c's {name}, encoded by wire.py",
         (golden(name) or b"").hex(), want.hex())
long_path = b"p/" * 2047 + b"f"
trip("FILE, regular, longest path",
     wire.pack_file(7, wire.FILE_REG, long_path, mode=0o600,
                    size=wire.SIZE_UNKNOWN, mtime_sec=-1, mtime_nsec=5),
     wire.FILE, wire.unpack_file,
     {"id": 7, "kind": 1, "reserved": 0, "mode": 0o600,
      "size": wire.SIZE_UNKNOWN, "mtime_sec": -1, "mtime_nsec": 5,
      "path": long_path, "want": 0, "update": 0, "csum": bytes(16)})
trip("FILE, resume and update checksum (v7)",
     wire.pack_file(7, wire.FILE_REG, b"f", want=wire.WANT_RESUME,
                    update=wire.UPDATE_CHECKSUM, csum=csum),
     wire.FILE, wire.unpack_file,
     {"id": 7, "kind": 1, "reserved": 0, "mode": 0o644, "size": 0,
      "mtime_sec": 0, "mtime_nsec": 0, "path": b"f",
      "want": wire.WANT_RESUME, "update": wire.UPDATE_CHECKSUM,
      "csum": csum})
same("the longest FILE and its tag fit",
     wire.FILE_FIXED_LEN + len(long_path) + wire.FILE_TAIL_LEN +
     wire.TAG_LEN <= wire.MAX_PAYLOAD and len(long_path) == wire.PATH_MAX,
     True)
trip("FILE, directory", wire.pack_file(0, wire.FILE_DIR, b"d", mode=0o755),
     wire.FILE, wire.unpack_file,
     {"id": 0, "kind": 2, "reserved": 0, "mode": 0o755, "size": 0,
      "mtime_sec": 0, "mtime_nsec": 0, "path": b"d", "want": 0,
      "update": 0, "csum": bytes(16)})
trip("FEND", wire.pack_fend(7, 12345, csum), wire.FEND, wire.unpack_fend,
     {"id": 7, "bytes": 12345, "csum": csum})
trip("FIN", wire.fin(2, 12345), wire.FIN, wire.unpack_fin,
     {"files": 2, "bytes": 12345})
trip("ACK", wire.ack(0, 99, b"done"), wire.ACK, wire.unpack_result,
     {"status": 0, "bytes": 99, "text": b"done"})
trip("ERR", wire.err(5, 0, b"receiver busy"), wire.ERR, wire.unpack_result,
     {"status": 5, "bytes": 0, "text": b"receiver busy"})
trip("FACK", wire.pack_fack(7, 1, 0, b"file exists"), wire.FACK,
     wire.unpack_fack,
     {"id": 7, "status": 1, "bytes": 0, "text": b"file exists"})
trip("AUTH", wire.auth(2, b"n" * 32, b"m" * 32), wire.AUTH, wire.unpack_auth,
     {"step": 2, "nonce": b"n" * 32, "mac": b"m" * 32})
trip("SYNC", wire.sync(7, 1, 2), wire.SYNC, wire.unpack_sync,
     {"id": 7, "synced": 1, "total": 2})
trip("HAVE (v7)", wire.pack_have(7, wire.HAVE_PARTIAL, 1 << 20, csum),
     wire.HAVE, wire.unpack_have,
     {"id": 7, "verdict": 2, "reserved": 0, "reserved16": 0,
      "bytes": 1 << 20, "csum": csum})
trip("FROM (v7)", wire.pack_from(7, 1 << 20), wire.FROM, wire.unpack_from,
     {"id": 7, "reserved": 0, "offset": 1 << 20})
for n in (1, wire.QPS_MAX):
    fresh = [(0x40 + i, 0xfff000 + i) for i in range(n)]
    trip(f"RECONNECT, {n} QP{'s' if n > 1 else ''} (v7)",
         wire.pack_reconnect(1, 99, fresh), wire.RECONNECT,
         wire.unpack_reconnect,
         {"attempt": 1, "reserved": 0, "reserved16": 0, "next_chunk": 99,
          "qps": fresh})
hops = [(b"node02", 18500), (b"fe80::1%eth0", 1), (b"n" * 255, 65535)]
trip("CHAIN (chain push)", wire.pack_chain(hops), wire.CHAIN,
     wire.unpack_chain, hops)
most = [(b"a" * 250 + b"%05d" % i, 9) for i in range(16)]
trip("CHAIN, as long as one message and its tag allow",
     wire.pack_chain(most + [(b"b" * 59, 9)]), wire.CHAIN, wire.unpack_chain,
     most + [(b"b" * 59, 9)])
same("decoders refuse a CHAIN whose count or length is wrong",
     [refused(wire.unpack_chain, p) for p in
      (wire.chain_payload(hops)[:-1], wire.chain_payload(hops) + b"\0",
       wire.chain_payload(hops, count=2), wire.chain_payload(hops, count=4),
       wire.chain_payload(most + [(b"b" * 60, 9)]), b"\0")],
     [True] * 6)
trip("HOST (chain push)", wire.pack_host(2, 1, 0, 1, 0, b"file exists"),
     wire.HOST, wire.unpack_host,
     {"hop": 2, "status": 1, "files": 0, "failed": 1, "bytes": 0,
      "text": b"file exists"})
same("decoders refuse a HOST whose length is wrong",
     [refused(wire.unpack_host, p) for p in
      (wire.host_payload(1, text=b"ab")[:-1],
       wire.host_payload(1, text=b"ab") + b"\0",
       wire.host_payload(1)[:-1])],
     [True] * 3)
same("data immediates",
     (wire.imm(5), wire.imm(5, end=True), wire.imm(1 << 31),
      wire.unpack_imm(0x80000003)),
     (5, 0x80000005, 0, (3, True)))

# The session key and tag, against the known answers in
# tests/unit/test_auth.c (which the C side must match too).
unit = open(top + "/tests/unit/test_auth.c").read()


def kat(name):
    m = re.search(r"%s\[[A-Z_]+\] = \{([^}]*)\}" % name, unit)
    return bytes(int(x, 16) for x in re.findall(r"0x[0-9a-f]{2}", m.group(1)))


skey = wire.session_key(bytes(range(32)), b"\x11" * 32, b"\x22" * 32)
same("session key (test_auth.c's known answer)", skey.hex(),
     kat("kat_skey").hex())
# The known answer's header is a version 2 one: the tag covers whatever
# header was sent, so the version does not matter to it.
sealed = wire.seal(skey, b"S", 5, wire.msg(wire.FIN, b"hello, tag",
                                           version=2))
same("tag (test_auth.c's known answer)", sealed[-32:].hex(),
     kat("kat_tag").hex())
same("a sealed header counts the tag", sealed[:12].hex(),
     kat("kat_hdr").hex())
same("unseal checks the sequence number",
     (wire.unseal(skey, b"S", 5, sealed[:12], sealed[12:]),
      wire.unseal(skey, b"S", 6, sealed[:12], sealed[12:])),
     (b"hello, tag", None))

# The version 4 file checksum, against split(1) + xxhsum(1) (the shell
# above).
for line in open(sys.argv[2]):
    path, chunk, want = line.split()
    data = open(path, "rb").read()
    same(f"file_csum of {len(data)} bytes in chunks of {chunk} "
         "(split + xxhsum's known answer)",
         wire.file_csum(data, int(chunk)).hex(), want)
PY
done_testing
