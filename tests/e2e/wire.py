# SPDX-License-Identifier: MIT
"""rdmapush's control protocol, written again in Python for the tests.

An independent codec of the wire format, kept apart from src/proto.c on
purpose: the tests speak to rdmapush with it, so a layout mistake made in
C does not hide by being made twice. The layouts below follow the table
at the top of src/proto.c and include/rdmapush/proto.h, limits.h.

Every message is a 12-byte header and then a payload of exactly
header.length bytes; all integers are big-endian, with no padding:

  header   u32 magic "RDPU" | u8 version | u8 type | u16 reserved | u32 length
  qp_addr  u32 qpn | u32 psn | u16 lid | u8 mtu | u8 reserved | u8 gid[16]  (28)
  qp_more  u32 qpn | u32 psn                                                  (8)
  HELLO    qp_addr | u64 total | u32 chunk | u32 window | u32 flags |
           qp_more * (qps - 1)                                (48 + 8 * (qps - 1))
  MR       qp_addr | u64 addr | u32 rkey | u64 len | u32 chunk | u32 window |
           qp_more * (qps - 1)                                (56 + 8 * (qps - 1))
  FILE     u32 id | u8 kind | u8 reserved | u16 mode | u64 size |
           s64 mtime_sec | u32 mtime_nsec | u16 path_len | path |
           u8 want | u8 update | u8 csum[16]                    (48 + path_len)
  FEND     u32 id | u64 bytes | u8 csum[16]                                  (28)
  FIN      u64 files | u64 bytes                                             (16)
  ACK/ERR  u16 status | u64 bytes | u16 text_len | text           (12 + text_len)
  FACK     u32 id | then as ACK/ERR                               (16 + text_len)
  AUTH     u8 step | u8 nonce[32] | u8 mac[32]                                (65)
  SYNC     u32 id | u64 synced_bytes | u64 total_bytes                       (20)
  HAVE     u32 id | u8 verdict | u8 reserved | u16 reserved | u64 bytes |
           u8 csum[16]                                                       (32)
  FROM     u32 id | u32 reserved | u64 offset                                (16)
  RECONNECT u32 attempt | u8 qps | u8 reserved | u16 reserved |
           u64 next_chunk | qp_more * qps                         (16 + 8 * qps)
  CHAIN    u16 count | hop * count             (2 + the hops, at most
           MAX_PAYLOAD - TAG_LEN)
  hop      u16 port | u8 name_len | name                    (3 + name_len)
  HOST     u16 hop | u8 status | u64 files | u64 failed | u64 bytes |
           u16 text_len | text                            (29 + text_len)

Version 3: one session carries many files. HELLO and MR set up the QP and
the ring once; then per entry FILE (kind 1 regular, 2 directory), a
regular file's chunks, its FEND, and the receiver's FACK; FIN ends the
session and ACK answers it. HELLO flags: bit 0 (HELLO_PRESERVE) keeps
mode and mtime; bit 1 (HELLO_PING, added within version 6: a peer
without it refuses the bit) marks a ping's HELLO (total: round trips,
chunk: message size, window 1); any other bit is malformed. A size of SIZE_UNKNOWN
(2^64 - 1) is a stream's. The immediate of each data Write is the
chunk's number in the session modulo 2^31 (IMM_SEQ), with IMM_END on the
last chunk of a file.

Version 4 changes no layout, only what FEND's checksum is (file_csum):
XXH3-128 over the XXH3-128 digests (16 bytes each, canonical big-endian)
of the file's non-empty chunks, in order, each cut at the session's
agreed chunk size (MR's chunk). An empty file has no chunk: its checksum
is XXH3-128 of nothing. Version 3 hashed the bytes as one stream.

Version 5 changes no layout either: HELLO's flags word carries the op in
bits 8..15 (OP_WRITE 0, OP_READ 1, OP_SEND 2; any other value is
malformed). With OP_READ the sender answers MR with an MR of its own (its
ring, which the receiver RDMA-Reads) and announces each chunk with a
zero-length Send whose immediate is IMM_END on a file's last chunk | the
chunk's length (read_imm). With OP_READ and OP_SEND the receiver's MR
carries addr 0 and rkey 0: no peer touches its memory.

Version 6 stripes the chunks over qps RC QPs (--qps, 1..QPS_MAX).
HELLO's flags word carries qps in bits 16..23 (bits 24..31 stay zero;
qps 0 or above QPS_MAX is malformed). QP 0 is the qp_addr as before;
each QP after it adds a qp_more (its QPN, non-zero, and its PSN, both
under 2^24; LID, MTU and GID are QP 0's) at the end of HELLO, exactly
qps - 1 of them, and at the end of MR, whose qps is implied by its
length: 56 + 8k bytes is qps k + 1, k at most QPS_MAX - 1. The sender's
QP i connects to the receiver's QP i. Chunk n of the session (and with
OP_READ its announcing Send and its Read) goes on QP n mod qps; credits
go on QP 0.

Version 7: interruptions. FILE ends, after the path, in want (bit 0
WANT_RESUME; any other bit is malformed), update (UPDATE_NONE 0,
UPDATE_EXISTS 1, UPDATE_SIZE 2, UPDATE_MTIME 3, UPDATE_CHECKSUM 4; above
is malformed) and csum (the whole file's file_csum with UPDATE_CHECKSUM,
else all zero); a directory's want and update are 0. With want and
update 0 a file flows as in version 6. Otherwise the sender sends none
of its chunks before the receiver's HAVE: verdict HAVE_NONE (bytes and
csum 0), HAVE_UPTODATE (the same: nothing more comes for the file, no
FEND, no FACK) or HAVE_PARTIAL (a verified prefix of bytes > 0, a
multiple of the chunk, whose chunk digests fold to csum). After NONE or
PARTIAL the sender says with FROM where its chunks start (0, or exactly
HAVE's bytes), and its FEND carries the whole file's length and
checksum. RECONNECT, either way in the FILES and END stages, follows a
link outage: attempt (1..), the fresh QPs (qps of them, QP 0 too, each
a qp_more), and next_chunk (the receiver's first chunk not taken, the
sender's first not credited). An older peer gets "version 7 needed".

A chain push, within version 7: HELLO flag bit 2 (HELLO_CHAIN; a peer
without it refuses the bit) says a CHAIN comes right after the HELLO,
and only then: the hosts after the receiver, in order, count >= 1, each
a hop with a port (non-zero) and a name of 1..HOST_NAME_MAX bytes,
letters, digits, '-', '.' and '_', or an IPv6 address (with a ':'; an
optional "%zone" of name characters), no brackets. At the end, before
its ACK, a relay sends HOST for each host after it that it heard of:
hop 1 its own downstream, then further ones counted from it (a relay
passing one on adds 1); status, the entries stored and failed, the
bytes stored, and why it failed as ERR's text.

Version 2, with --psk: the key is BLAKE2b-256 of the key file's bytes.
AUTH: the sender sends step 1 (its nonce Ns), the receiver step 2 (its
nonce Nr, HMAC-SHA-256(key, "R" | Ns | Nr)), the sender step 3
(HMAC-SHA-256(key, "S" | Nr | Ns)). Then both derive the session key
K = BLAKE2b-256(key=psk, "rdmapush v2 session key" | Ns | Nr), and every
later message ends in a 32-byte tag counted in header.length:

  tag = HMAC-SHA-256(K, dir | u64 seq | header | body)

dir is "S" (sender -> receiver) or "R"; seq counts that direction's
tagged messages from 0; header is the 12 bytes as sent (length counts
the tag); body is the payload without the tag.

The encoders check nothing: a test may send any value, in range or not
(hostile.py sends the out-of-range ones). The decoders check lengths only
and raise ValueError on a payload of the wrong size (for HELLO, and MR
since version 6, and RECONNECT, that is also a qps out of range).
"""
import hashlib
import hmac
import socket
import struct

MAGIC = 0x52445055          # "RDPU"
VERSION = 7
HDR_LEN = 12
MAX_PAYLOAD = 4224          # RP_PROTO_MAX_PAYLOAD
PATH_MAX = 4095             # RP_PATH_MAX
TEXT_MAX = 255              # RP_TEXT_MAX
GID_LEN = 16
CSUM_LEN = 16               # XXH3-128, canonical (big-endian) form
NONCE_LEN = 32              # RP_AUTH_NONCE_LEN
MAC_LEN = 32                # RP_AUTH_MAC_LEN
TAG_LEN = 32                # RP_TAG_LEN

SIZE_UNKNOWN = (1 << 64) - 1  # RP_SIZE_UNKNOWN: a stream's size

HELLO, MR, FIN, ACK, ERR, AUTH, SYNC = 1, 2, 3, 4, 5, 6, 7
FILE, FEND, FACK = 8, 9, 10
HAVE, FROM, RECONNECT = 11, 12, 13     # v7
CHAIN = 14                  # a chain push, after a HELLO_CHAIN HELLO
HOST = 15                   # a chain push: a later host's result, at END
TYPE_NAMES = {HELLO: "HELLO", MR: "MR", FIN: "FIN", ACK: "ACK", ERR: "ERR",
              AUTH: "AUTH", SYNC: "SYNC", FILE: "FILE", FEND: "FEND",
              FACK: "FACK", HAVE: "HAVE", FROM: "FROM",
              RECONNECT: "RECONNECT", CHAIN: "CHAIN", HOST: "HOST"}

HELLO_PRESERVE = 0x1        # HELLO flag: keep each file's mode and mtime
HELLO_PING = 0x2            # HELLO flag: a ping (rdmapush ping), no push
HELLO_CHAIN = 0x4           # HELLO flag: a chain push, CHAIN follows
HELLO_FLAGS = HELLO_PRESERVE | HELLO_PING | HELLO_CHAIN
HOST_NAME_MAX = 255         # RP_HOST_NAME_MAX: a CHAIN hop's name
OP_WRITE, OP_READ, OP_SEND = 0, 1, 2   # HELLO op (flags bits 8..15, v5)
OP_SHIFT = 8
QPS_SHIFT = 16              # HELLO qps (flags bits 16..23, v6)
QPS_MAX = 8                 # RP_QPS_MAX
FILE_REG, FILE_DIR = 1, 2   # FILE kinds
IMM_END = 0x80000000        # data immediate: a file's last chunk
IMM_SEQ = 0x7fffffff        # data immediate: the session's chunk number
WANT_RESUME = 0x1           # FILE want bit (v7)
WANT_BITS = WANT_RESUME
# FILE update levels (v7)
UPDATE_NONE, UPDATE_EXISTS, UPDATE_SIZE, UPDATE_MTIME, UPDATE_CHECKSUM = \
    0, 1, 2, 3, 4
# HAVE verdicts (v7)
HAVE_NONE, HAVE_UPTODATE, HAVE_PARTIAL = 0, 1, 2

# enum rp_status: stable numbers on the wire (ACK, ERR and FACK status).
STATUS = {0: "ok", 1: "exists", 2: "badname", 3: "nospace", 4: "limit",
          5: "busy", 6: "proto", 7: "checksum", 8: "io", 9: "rdma",
          10: "auth", 11: "version", 12: "timeout", 13: "internal",
          14: "aborted", 15: "tampered"}

_HDR = struct.Struct(">IBBHI")
_QP = struct.Struct(">IIHBB")           # then the 16-byte GID
_HELLO_FIXED = struct.Struct(">QIII")   # after qp_addr
_MR_FIXED = struct.Struct(">QIQII")     # after qp_addr
_QP_MORE = struct.Struct(">II")         # a QP after the first: qpn, psn
_FILE_FIXED = struct.Struct(">IBBHQqIH")  # then the path
_FEND_FIXED = struct.Struct(">IQ")      # then the checksum
_FIN = struct.Struct(">QQ")             # files, bytes
_ID = struct.Struct(">I")               # FACK's id, before the result
_RESULT_FIXED = struct.Struct(">HQH")   # then the text
_AUTH_FIXED = struct.Struct(">B")       # then nonce and MAC
_SYNC = struct.Struct(">IQQ")           # id, synced, total
_FILE_TAIL = struct.Struct(">BB")       # after the path: want, update; csum
_HAVE_FIXED = struct.Struct(">IBBHQ")   # then the checksum
_FROM = struct.Struct(">IIQ")           # id, reserved, offset
_RECONNECT_FIXED = struct.Struct(">IBBHQ")  # then qps qp_more
_CHAIN_FIXED = struct.Struct(">H")      # count, then the hops
_CHAIN_HOP = struct.Struct(">HB")       # port, name_len; then the name
_HOST_FIXED = struct.Struct(">HBQQQH")  # hop .. text_len; then the text

QP_ADDR_LEN = _QP.size + GID_LEN                        # 28
QP_MORE_LEN = _QP_MORE.size                             # 8
HELLO_LEN = QP_ADDR_LEN + _HELLO_FIXED.size             # 48
MR_LEN = QP_ADDR_LEN + _MR_FIXED.size                   # 56
FILE_FIXED_LEN = _FILE_FIXED.size                       # 30
FEND_LEN = _FEND_FIXED.size + CSUM_LEN                  # 28
FIN_LEN = _FIN.size                                     # 16
RESULT_FIXED_LEN = _RESULT_FIXED.size                   # 12
FACK_FIXED_LEN = _ID.size + RESULT_FIXED_LEN            # 16
AUTH_LEN = _AUTH_FIXED.size + NONCE_LEN + MAC_LEN       # 65
SYNC_LEN = _SYNC.size                                   # 20
FILE_TAIL_LEN = _FILE_TAIL.size + CSUM_LEN              # 18, after the path
HAVE_LEN = _HAVE_FIXED.size + CSUM_LEN                  # 32
FROM_LEN = _FROM.size                                   # 16
RECONNECT_FIXED_LEN = _RECONNECT_FIXED.size             # 16
CHAIN_FIXED_LEN = _CHAIN_FIXED.size                     # 2
CHAIN_HOP_FIXED_LEN = _CHAIN_HOP.size                   # 3
HOST_FIXED_LEN = _HOST_FIXED.size                       # 29


# --- encoders ---------------------------------------------------------------

def hdr(mtype, length, magic=MAGIC, version=VERSION, reserved=0):
    """The 12-byte header alone."""
    return _HDR.pack(magic, version, mtype, reserved, length)


def msg(mtype, payload, **kw):
    """A whole message: header (fields overridable, see hdr) + payload."""
    return hdr(mtype, len(payload), **kw) + payload


def gid_v4(ip):
    """The IPv4-mapped GID (::ffff:a.b.c.d) RoCE v2 uses for an address."""
    return b"\0" * 10 + b"\xff\xff" + socket.inet_aton(ip)


def qp_addr(qpn, psn, gid, lid=0, mtu=3, reserved=0):
    """The 28-byte qp_addr shared by HELLO and MR (mtu 3 = IBV_MTU_1024)."""
    return _QP.pack(qpn, psn, lid, mtu, reserved) + gid


def qp_more(more):
    """The (qpn, psn) pairs of the QPs after the first, as HELLO and MR
    end in them (v6)."""
    return b"".join(_QP_MORE.pack(qpn, psn) for qpn, psn in more)


def hello_payload(qp, total, chunk, window, flags=0, op=OP_WRITE, more=(),
                  qps=None):
    """HELLO's payload; more lists the (qpn, psn) of QPs 1..qps-1 and qps
    defaults to 1 + len(more) (a test may say another)."""
    qps = 1 + len(more) if qps is None else qps
    return qp + _HELLO_FIXED.pack(total, chunk, window,
                                  flags | op << OP_SHIFT |
                                  qps << QPS_SHIFT) + qp_more(more)


def hello(qp, total, chunk, window, flags=0, op=OP_WRITE, more=(),
          qps=None):
    return msg(HELLO, hello_payload(qp, total, chunk, window, flags, op,
                                    more, qps))


def mr_payload(qp, addr, rkey, length, chunk, window, more=()):
    """MR's payload; its qps is 1 + len(more), said by its length."""
    return qp + _MR_FIXED.pack(addr, rkey, length, chunk,
                               window) + qp_more(more)


def mr(qp, addr, rkey, length, chunk, window, more=()):
    return msg(MR, mr_payload(qp, addr, rkey, length, chunk, window, more))


def file_payload(fid, kind, mode, size, mtime_sec, mtime_nsec, path,
                 path_len=None, reserved=0, want=0, update=UPDATE_NONE,
                 csum=bytes(CSUM_LEN)):
    """FILE's payload; path_len defaults to len(path). want, update and
    csum (v7) follow the path."""
    n = len(path) if path_len is None else path_len
    return _FILE_FIXED.pack(fid, kind, reserved, mode, size, mtime_sec,
                            mtime_nsec, n) + path + \
        _FILE_TAIL.pack(want, update) + csum


def pack_file(fid, kind, path, mode=0o644, size=0, mtime_sec=0,
              mtime_nsec=0, path_len=None, reserved=0, want=0,
              update=UPDATE_NONE, csum=bytes(CSUM_LEN)):
    return msg(FILE, file_payload(fid, kind, mode, size, mtime_sec,
                                  mtime_nsec, path, path_len, reserved,
                                  want, update, csum))


def fend_payload(fid, nbytes, csum):
    return _FEND_FIXED.pack(fid, nbytes) + csum


def pack_fend(fid, nbytes, csum):
    return msg(FEND, fend_payload(fid, nbytes, csum))


def fin_payload(files, nbytes):
    return _FIN.pack(files, nbytes)


def fin(files, nbytes):
    return msg(FIN, fin_payload(files, nbytes))


def result_payload(status, nbytes=0, text=b""):
    return _RESULT_FIXED.pack(status, nbytes, len(text)) + text


def ack(status=0, nbytes=0, text=b""):
    return msg(ACK, result_payload(status, nbytes, text))


def err(status, nbytes=0, text=b""):
    return msg(ERR, result_payload(status, nbytes, text))


def fack_payload(fid, status=0, nbytes=0, text=b""):
    return _ID.pack(fid) + result_payload(status, nbytes, text)


def pack_fack(fid, status=0, nbytes=0, text=b""):
    return msg(FACK, fack_payload(fid, status, nbytes, text))


def auth(step, nonce, mac):
    return msg(AUTH, _AUTH_FIXED.pack(step) + nonce + mac)


def sync(fid, synced, total):
    return msg(SYNC, _SYNC.pack(fid, synced, total))


def have_payload(fid, verdict, nbytes=0, csum=bytes(CSUM_LEN), reserved=0,
                 reserved16=0):
    return _HAVE_FIXED.pack(fid, verdict, reserved, reserved16,
                            nbytes) + csum


def pack_have(fid, verdict, nbytes=0, csum=bytes(CSUM_LEN), **kw):
    return msg(HAVE, have_payload(fid, verdict, nbytes, csum, **kw))


def from_payload(fid, offset, reserved=0):
    return _FROM.pack(fid, reserved, offset)


def pack_from(fid, offset, reserved=0):
    return msg(FROM, from_payload(fid, offset, reserved))


def reconnect_payload(attempt, next_chunk, qps_list, qps=None, reserved=0,
                      reserved16=0):
    """RECONNECT's payload; qps_list is the (qpn, psn) of every fresh QP,
    QP 0 first, and qps defaults to its length (a test may say another)."""
    qps = len(qps_list) if qps is None else qps
    return _RECONNECT_FIXED.pack(attempt, qps, reserved, reserved16,
                                 next_chunk) + qp_more(qps_list)


def pack_reconnect(attempt, next_chunk, qps_list, **kw):
    return msg(RECONNECT, reconnect_payload(attempt, next_chunk, qps_list,
                                            **kw))


def chain_payload(hops, count=None):
    """CHAIN's payload; hops are (name, port), name str or bytes; count
    defaults to their number (a test may say another)."""
    count = len(hops) if count is None else count
    out = _CHAIN_FIXED.pack(count)
    for name, port in hops:
        name = name.encode() if isinstance(name, str) else name
        out += _CHAIN_HOP.pack(port, len(name)) + name
    return out


def pack_chain(hops, **kw):
    return msg(CHAIN, chain_payload(hops, **kw))


def host_payload(hop, status=0, files=0, failed=0, nbytes=0, text=b""):
    return _HOST_FIXED.pack(hop, status, files, failed, nbytes,
                            len(text)) + text


def pack_host(*a, **kw):
    return msg(HOST, host_payload(*a, **kw))


def imm(seq, end=False):
    """A data Write's immediate: chunk number seq (mod 2^31), IMM_END on a
    file's last chunk."""
    return (seq & IMM_SEQ) | (IMM_END if end else 0)


def read_imm(length, end=False):
    """With OP_READ, the immediate of the Send announcing a chunk: its
    length, IMM_END on a file's last chunk (v5). With qps QPs (v6) it
    goes on the QP of the chunk it announces, seq % qps."""
    return length | (IMM_END if end else 0)


def file_csum(data, chunk):
    """The version 4 checksum (16 bytes) of a file whose bytes are data,
    in a session whose agreed chunk size (MR's chunk) is chunk: XXH3-128
    of the concatenated XXH3-128 digests of its non-empty chunks."""
    # Imported here, not above: only this needs python3-xxhash, so the
    # peers that never hash run under any python3 (lib.sh's PYTHON3 is
    # the one that has it).
    import xxhash
    if chunk < 1:
        raise ValueError(f"chunk {chunk}: must be at least 1")
    digests = b"".join(xxhash.xxh3_128_digest(data[i:i + chunk])
                       for i in range(0, len(data), chunk))
    return xxhash.xxh3_128_digest(digests)


# --- decoders ---------------------------------------------------------------

def parse_hdr(h):
    """(magic, version, type, reserved, length) of a 12-byte header."""
    return _HDR.unpack(h)


def _need(payload, n, what, exact=True):
    if len(payload) < n or (exact and len(payload) != n):
        raise ValueError(f"{what}: {len(payload)} bytes, wanted {n}")


def unpack_qp(p):
    """dict of a qp_addr's fields from the first 28 bytes of p."""
    _need(p, QP_ADDR_LEN, "qp_addr", exact=False)
    qpn, psn, lid, mtu, reserved = _QP.unpack_from(p)
    return {"qpn": qpn, "psn": psn, "lid": lid, "mtu": mtu,
            "reserved": reserved, "gid": p[_QP.size:QP_ADDR_LEN]}


def unpack_more(p, n):
    """[(qpn, psn), ...] of the n QPs after the first, from all of p."""
    _need(p, n * QP_MORE_LEN, "QP list")
    return [_QP_MORE.unpack_from(p, i * QP_MORE_LEN) for i in range(n)]


def unpack_hello(p):
    """HELLO payload: dict of its fields; flags, op and qps are the bytes
    of the flags word (top: its bits 24..31), more the list of
    (qpn, psn). The length must be what qps says (1..QPS_MAX)."""
    _need(p, HELLO_LEN, "HELLO", exact=False)
    m = unpack_qp(p)
    (m["total"], m["chunk"], m["window"],
     word) = _HELLO_FIXED.unpack_from(p, QP_ADDR_LEN)
    m["flags"] = word & 0xff
    m["op"] = word >> OP_SHIFT & 0xff
    m["qps"] = word >> QPS_SHIFT & 0xff
    m["top"] = word >> 24
    if not 1 <= m["qps"] <= QPS_MAX:
        raise ValueError(f"HELLO: qps {m['qps']}, wanted 1..{QPS_MAX}")
    m["more"] = unpack_more(p[HELLO_LEN:], m["qps"] - 1)
    return m


def unpack_mr(p):
    """MR payload: dict of its fields; qps is said by the length, more
    lists the (qpn, psn) of QPs 1..qps-1."""
    _need(p, MR_LEN, "MR", exact=False)
    k, part = divmod(len(p) - MR_LEN, QP_MORE_LEN)
    if part or k >= QPS_MAX:
        raise ValueError(f"MR: {len(p)} bytes is not {MR_LEN} + "
                         f"{QP_MORE_LEN} * (0..{QPS_MAX - 1})")
    m = unpack_qp(p)
    (m["addr"], m["rkey"], m["len"], m["chunk"],
     m["window"]) = _MR_FIXED.unpack_from(p, QP_ADDR_LEN)
    m["qps"] = 1 + k
    m["more"] = unpack_more(p[MR_LEN:], k)
    return m


def unpack_file(p):
    """FILE payload: dict of its fields; path is path_len bytes, then
    want, update and csum (v7)."""
    _need(p, FILE_FIXED_LEN, "FILE", exact=False)
    (fid, kind, reserved, mode, size, sec, nsec,
     n) = _FILE_FIXED.unpack_from(p)
    _need(p, FILE_FIXED_LEN + n + FILE_TAIL_LEN, "FILE")
    tail = FILE_FIXED_LEN + n
    want, update = _FILE_TAIL.unpack_from(p, tail)
    return {"id": fid, "kind": kind, "reserved": reserved, "mode": mode,
            "size": size, "mtime_sec": sec, "mtime_nsec": nsec,
            "path": p[FILE_FIXED_LEN:tail], "want": want, "update": update,
            "csum": p[tail + _FILE_TAIL.size:]}


def unpack_fend(p):
    _need(p, FEND_LEN, "FEND")
    fid, nbytes = _FEND_FIXED.unpack_from(p)
    return {"id": fid, "bytes": nbytes, "csum": p[_FEND_FIXED.size:]}


def unpack_fin(p):
    _need(p, FIN_LEN, "FIN")
    files, nbytes = _FIN.unpack(p)
    return {"files": files, "bytes": nbytes}


def unpack_result(p):
    """ACK/ERR payload: dict of status, bytes, text."""
    _need(p, RESULT_FIXED_LEN, "ACK/ERR", exact=False)
    status, nbytes, n = _RESULT_FIXED.unpack_from(p)
    _need(p, RESULT_FIXED_LEN + n, "ACK/ERR")
    return {"status": status, "bytes": nbytes, "text": p[RESULT_FIXED_LEN:]}


def unpack_fack(p):
    """FACK payload: dict of id, status, bytes, text."""
    _need(p, FACK_FIXED_LEN, "FACK", exact=False)
    return dict(unpack_result(p[_ID.size:]), id=_ID.unpack_from(p)[0])


def result_status(p):
    """The status of an ACK/ERR payload of at least 12 bytes, the rest
    unchecked (a test may want the status of a malformed answer)."""
    _need(p, RESULT_FIXED_LEN, "ACK/ERR", exact=False)
    return _RESULT_FIXED.unpack_from(p)[0]


def unpack_auth(p):
    _need(p, AUTH_LEN, "AUTH")
    return {"step": p[0], "nonce": p[1:1 + NONCE_LEN],
            "mac": p[1 + NONCE_LEN:]}


def unpack_sync(p):
    """SYNC payload: dict of id, synced and total (not checked: a test may
    want to see a receiver's out-of-range claim)."""
    _need(p, SYNC_LEN, "SYNC")
    fid, synced, total = _SYNC.unpack(p)
    return {"id": fid, "synced": synced, "total": total}


def unpack_have(p):
    """HAVE payload: dict of its fields (values not checked)."""
    _need(p, HAVE_LEN, "HAVE")
    fid, verdict, reserved, reserved16, nbytes = _HAVE_FIXED.unpack_from(p)
    return {"id": fid, "verdict": verdict, "reserved": reserved,
            "reserved16": reserved16, "bytes": nbytes,
            "csum": p[_HAVE_FIXED.size:]}


def unpack_from(p):
    _need(p, FROM_LEN, "FROM")
    fid, reserved, offset = _FROM.unpack(p)
    return {"id": fid, "reserved": reserved, "offset": offset}


def unpack_reconnect(p):
    """RECONNECT payload: dict of its fields; qps lists the (qpn, psn) of
    the fresh QPs. The length must be what qps says (1..QPS_MAX)."""
    _need(p, RECONNECT_FIXED_LEN, "RECONNECT", exact=False)
    (attempt, qps, reserved, reserved16,
     next_chunk) = _RECONNECT_FIXED.unpack_from(p)
    if not 1 <= qps <= QPS_MAX:
        raise ValueError(f"RECONNECT: qps {qps}, wanted 1..{QPS_MAX}")
    return {"attempt": attempt, "reserved": reserved,
            "reserved16": reserved16, "next_chunk": next_chunk,
            "qps": unpack_more(p[RECONNECT_FIXED_LEN:], qps)}


def unpack_host(p):
    """HOST payload: dict of hop, status, files, failed, bytes, text."""
    _need(p, HOST_FIXED_LEN, "HOST", exact=False)
    hop, status, files, failed, nbytes, n = _HOST_FIXED.unpack_from(p)
    _need(p, HOST_FIXED_LEN + n, "HOST")
    return {"hop": hop, "status": status, "files": files, "failed": failed,
            "bytes": nbytes, "text": p[HOST_FIXED_LEN:]}


def unpack_chain(p):
    """CHAIN payload: the (name bytes, port) of each hop. Lengths only:
    count must be what follows, and the whole at most MAX_PAYLOAD less
    the tag's room."""
    _need(p, CHAIN_FIXED_LEN, "CHAIN", exact=False)
    if len(p) > MAX_PAYLOAD - TAG_LEN:
        raise ValueError(f"CHAIN: {len(p)} bytes, over one message")
    (count,) = _CHAIN_FIXED.unpack_from(p)
    at, hops = CHAIN_FIXED_LEN, []
    for _ in range(count):
        _need(p[at:], CHAIN_HOP_FIXED_LEN, "CHAIN hop", exact=False)
        port, n = _CHAIN_HOP.unpack_from(p, at)
        at += CHAIN_HOP_FIXED_LEN
        _need(p[at:], n, "CHAIN hop name", exact=False)
        hops.append((p[at:at + n], port))
        at += n
    if at != len(p):
        raise ValueError(f"CHAIN: {len(p) - at} trailing bytes")
    return hops


def unpack_imm(v):
    """(chunk number, last chunk of its file?) of a data immediate."""
    return (v & IMM_SEQ, bool(v & IMM_END))


def status_name(status):
    return STATUS.get(status, "?")


# --- pre-shared key and tags ------------------------------------------------

def psk_of(key_file_bytes):
    return hashlib.blake2b(key_file_bytes, digest_size=32).digest()


def auth_mac(psk, role, first, second):
    return hmac.new(psk, role + first + second, hashlib.sha256).digest()


def session_key(psk, send_nonce, recv_nonce):
    return hashlib.blake2b(b"rdmapush v2 session key" + send_nonce +
                           recv_nonce, digest_size=32, key=psk).digest()


def tag(skey, direction, seq, header, body):
    return hmac.new(skey, direction + struct.pack(">Q", seq) + header + body,
                    hashlib.sha256).digest()


def seal(skey, direction, seq, m):
    """Message m (header + payload) with its tag appended."""
    _, ver, mtype, res, length = parse_hdr(m[:HDR_LEN])
    h = _HDR.pack(MAGIC, ver, mtype, res, length + TAG_LEN)
    return h + m[HDR_LEN:] + tag(skey, direction, seq, h, m[HDR_LEN:])


def unseal(skey, direction, seq, header, payload):
    """The payload without its tag, or None if the tag is wrong."""
    body, t = payload[:-TAG_LEN], payload[-TAG_LEN:]
    ok = len(payload) >= TAG_LEN and hmac.compare_digest(
        t, tag(skey, direction, seq, header, body))
    return body if ok else None


# --- on a socket ------------------------------------------------------------

def recv_exact(s, n):
    """n bytes from s, or None if the peer closed before they came."""
    buf = b""
    while len(buf) < n:
        part = s.recv(n - len(buf))
        if not part:
            return None
        buf += part
    return buf


def recv_raw(s, versions=(VERSION,)):
    """(header, payload) of the next message, or None if the peer closed
    first. A header that is not ours (bad magic, a version not in
    versions, or a length over MAX_PAYLOAD) gives ("garbage", header)
    without reading on."""
    h = recv_exact(s, HDR_LEN)
    if h is None:
        return None
    magic, ver, mtype, _, length = parse_hdr(h)
    if magic != MAGIC or ver not in versions or length > MAX_PAYLOAD:
        return ("garbage", h)
    body = recv_exact(s, length)
    return None if body is None else (h, body)


def recv_msg(s, versions=(VERSION,)):
    """(type, payload) of the next message, as recv_raw."""
    m = recv_raw(s, versions)
    if m is None or m[0] == "garbage":
        return m
    return (parse_hdr(m[0])[2], m[1])
