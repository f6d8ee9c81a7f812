/* SPDX-License-Identifier: MIT */
/*
 * The control protocol codec: every message to and from bytes.
 * Pure: no sockets, no verbs, no allocation. Every message is a fixed
 * 12-byte header followed by a payload of exactly header.length bytes:
 *
 *   u32 magic "RDPU" | u8 version | u8 type | u16 reserved (0) | u32 length
 *
 * All integers are big-endian. Variable fields carry an explicit u16 length
 * and a hard maximum. Decoders never read past the buffer they are given,
 * reject trailing bytes, and return RP_EPROTO / RP_EVERSION on anything
 * malformed, with a reason readable through the 'why' out-parameter.
 * With --psk, what follows the AUTH exchange also carries a tag at the end
 * of its payload, counted in header.length; the session adds and strips
 * it (rp_proto_grow()), so the decoders here never see it.
 */
#ifndef RDMAPUSH_PROTO_H
#define RDMAPUSH_PROTO_H

#include "rdmapush/export.h"

#include <stddef.h>
#include <stdint.h>

#include "rdmapush/csum.h"	/* RP_CSUM_LEN: XXH3-128, canonical form */
#include "rdmapush/hostlist.h"	/* struct rp_host: CHAIN's hops */
#include "rdmapush/limits.h"

#define RP_PROTO_MAGIC		0x52445055u	/* "RDPU" */
/*
 * 2: with --psk, every message after AUTH ends in a tag (see auth.h).
 * 3: one session carries many files: HELLO and MR set up the QP and the
 *    ring once; then per file FILE, its chunks, FEND, and the receiver's
 *    FACK; FIN ends the session and ACK answers it.
 * 4: only FEND's checksum changes meaning, not a byte of any layout: it is
 *    XXH3-128 over the XXH3-128 digests of the file's non-empty chunks,
 *    cut at MR's chunk (see csum.h), no longer over the bytes as one
 *    stream, so chunks can be hashed in parallel and checked one by one.
 * 5: the data may move three ways (HELLO's op, in bits 8..15 of its flags
 *    word): RDMA Write as before; RDMA Read, where the sender answers
 *    MR with an MR of its own (its ring, readable) and announces each
 *    chunk with a zero-length Send whose immediate is RP_IMM_END | the
 *    chunk's length; or Send, two-sided, into receives the receiver
 *    keeps posted in its ring. With Read and Send the receiver's MR
 *    carries no rkey (0): nothing may touch its memory remotely.
 * 6: the chunks may be striped over several RC QPs (--qps): HELLO says
 *    how many in bits 16..23 of its flags word (1..RP_QPS_MAX) and both
 *    HELLO and MR end in the QPN and PSN of each QP after the first
 *    (which is in qp_addr; the QPs share LID, MTU and GID). QP i
 *    connects to the peer's QP i. Chunk n of the session, and with
 *    --op read its announcement and its Read, go on QP n mod qps, so on
 *    each QP they come in order; credits go on QP 0.
 * 7: interruptions. FILE ends in three more fields (want, update, csum)
 *    by which the sender asks, per file, to resume it (RP_WANT_RESUME)
 *    or to send it only if it changed (enum rp_update); then it sends
 *    none of that file's chunks until the receiver answered with HAVE
 *    (what it holds) and it said with FROM where its chunks start.
 *    RECONNECT, from either side, brings up fresh QPs after a link
 *    outage while the control connection lives, and says from which
 *    chunk the data goes on.
 */
#define RP_PROTO_VERSION	7
#define RP_PROTO_HDR_LEN	12
/* Room every message leaves in RP_PROTO_MAX_PAYLOAD for that tag. */
#define RP_PROTO_TAG_ROOM	32
#define RP_PROTO_MAX_MSG	(RP_PROTO_HDR_LEN + RP_PROTO_MAX_PAYLOAD)
#define RP_GID_LEN		16

enum rp_msg_type {
	RP_MSG_HELLO = 1,	/* sender -> receiver: the session's QP, shape */
	RP_MSG_MR = 2,		/* receiver -> sender: accept, with where to write */
	RP_MSG_FIN = 3,		/* sender -> receiver: no more files */
	RP_MSG_ACK = 4,		/* receiver -> sender: the session's result */
	RP_MSG_ERR = 5,		/* either way: the session ends, with reason */
	RP_MSG_AUTH = 6,	/* either way, before HELLO: pre-shared key proof */
	RP_MSG_SYNC = 7,	/* receiver -> sender: still syncing a file */
	RP_MSG_FILE = 8,	/* sender -> receiver: a file or directory next */
	RP_MSG_FEND = 9,	/* sender -> receiver: that file's size, checksum */
	RP_MSG_FACK = 10,	/* receiver -> sender: that file's result */
	RP_MSG_HAVE = 11,	/* receiver -> sender: what it holds of a file */
	RP_MSG_FROM = 12,	/* sender -> receiver: where its chunks start */
	RP_MSG_RECONNECT = 13,	/* either way: fresh QPs after a link outage */
	RP_MSG_CHAIN = 14,	/* sender -> receiver: the hops after it */
	RP_MSG_HOST = 15,	/* receiver -> sender: a later hop's result */
	RP_MSG_TYPE_MAX
};

/*
 * Status codes on the wire (ACK.status, ERR.status). Stable numbers,
 * independent of the local RP_E* values; see rp_proto_status_*().
 */
enum rp_status {
	RP_ST_OK = 0,
	RP_ST_EXISTS = 1,
	RP_ST_BADNAME = 2,
	RP_ST_NOSPACE = 3,
	RP_ST_LIMIT = 4,
	RP_ST_BUSY = 5,
	RP_ST_PROTO = 6,
	RP_ST_CHECKSUM = 7,
	RP_ST_IO = 8,
	RP_ST_RDMA = 9,
	RP_ST_AUTH = 10,
	RP_ST_VERSION = 11,
	RP_ST_TIMEOUT = 12,
	RP_ST_INTERNAL = 13,
	RP_ST_ABORTED = 14,	/* peer gave up (signal, local error) */
	RP_ST_TAMPERED = 15,	/* a control message failed its tag check */
	RP_ST_MAX
};

/* How to reach a queue pair: shared by HELLO and MR. */
struct rp_qp_addr {
	uint32_t qpn;		/* 24 bits, non-zero */
	uint32_t psn;		/* 24 bits: starting PSN of that side's SQ */
	uint16_t lid;		/* InfiniBand LID, 0 on RoCE */
	uint8_t mtu;		/* enum ibv_mtu value of the active MTU, 1..5 */
	uint8_t gid[RP_GID_LEN];/* may be all-zero only when lid != 0 */
};

/*
 * HELLO flags; any other bit set is malformed.
 * RP_HELLO_PING marks the HELLO of `rdmapush ping`, a latency
 * ping-pong, not a file push: a receiver refuses it and a ping server
 * refuses a HELLO without it, each with an ERR saying what it is. It
 * needs no new protocol version: no layout changes, and a version 6
 * peer that predates it refuses the bit as an unknown flag (a malformed
 * HELLO) rather than misreading a ping as a push. In a ping HELLO, total
 * is the number of round trips, chunk the message size, window 1, op
 * RP_OP_SEND or RP_OP_WRITE, qps 1 (see ping.h).
 */
/*
 * RP_HELLO_CHAIN marks a chain push: a CHAIN follows the HELLO at once,
 * naming the hosts the receiver is to pass the push on to. Like PING it
 * needs no new version: a version 7 receiver that predates it refuses
 * the bit as an unknown flag before reading anything more, so it never
 * takes a chain's first hop for the whole push.
 */
#define RP_HELLO_PRESERVE	0x1u	/* keep each file's mode and mtime */
#define RP_HELLO_PING		0x2u	/* a ping, not a push (ping.h) */
#define RP_HELLO_CHAIN		0x4u	/* a chain push: CHAIN follows */
#define RP_HELLO_FLAGS		0x7u	/* PRESERVE | PING | CHAIN */

/* How the chunks move (HELLO's op, version 5); the values are the wire's. */
enum rp_data_op {
	RP_OP_WRITE = 0,	/* the sender RDMA-Writes into the receiver's ring */
	RP_OP_READ = 1,		/* the receiver RDMA-Reads the sender's ring */
	RP_OP_SEND = 2,		/* the sender Sends into posted receives */
	RP_OP_MAX
};

/* A QP after the first: its own QPN and PSN (version 6). */
struct rp_qp_more {
	uint32_t qpn;		/* 24 bits, non-zero */
	uint32_t psn;		/* 24 bits */
};

struct rp_hello {
	struct rp_qp_addr qp;	/* QP 0 */
	uint64_t total;		/* bytes in the session, or RP_SIZE_UNKNOWN */
	uint32_t chunk;		/* requested chunk size */
	uint32_t window;	/* requested number of chunks in flight */
	uint32_t flags;		/* RP_HELLO_* (on the wire, bits 0..7) */
	uint8_t op;		/* enum rp_data_op (on the wire, bits 8..15) */
	uint8_t qps;		/* QPs, 1..RP_QPS_MAX (on the wire, bits
				 * 16..23) */
	struct rp_qp_more more[RP_QPS_MAX - 1];	/* QPs 1..qps-1 */
};

struct rp_mr {
	struct rp_qp_addr qp;	/* QP 0 */
	uint64_t addr;		/* remote virtual address of the ring */
	uint32_t rkey;
	uint64_t len;		/* ring length = chunk * window */
	uint32_t chunk;		/* agreed chunk size (<= requested) */
	uint32_t window;	/* agreed window (<= requested) */
	uint8_t qps;		/* QPs, 1..RP_QPS_MAX (on the wire, implied
				 * by the length) */
	struct rp_qp_more more[RP_QPS_MAX - 1];	/* QPs 1..qps-1 */
};

enum rp_file_kind {
	RP_FILE_REG = 1,	/* a regular file: its chunks follow */
	RP_FILE_DIR = 2,	/* a directory: no data */
};

/* FILE's want bits (version 7); any other bit set is malformed. */
#define RP_WANT_RESUME		0x1u	/* keep what the receiver verified */
#define RP_WANT_BITS		0x1u

/*
 * FILE's update (version 7): send the file only if the receiver's copy
 * differs at this level; the values are the wire's, above
 * RP_UPDATE_CHECKSUM malformed.
 */
enum rp_update {
	RP_UPDATE_NONE = 0,	/* always send it (as version 6 did) */
	RP_UPDATE_EXISTS = 1,	/* unless the target exists */
	RP_UPDATE_SIZE = 2,	/* unless it has the same size */
	RP_UPDATE_MTIME = 3,	/* unless it has the same size and mtime */
	RP_UPDATE_CHECKSUM = 4,	/* unless its digest is FILE's csum */
	RP_UPDATE_MAX
};

/*
 * FILE: what comes next. Entries are numbered 0, 1, 2... in the order
 * sent; a directory comes before anything inside it. The chunks of a
 * regular file follow its FILE in the ring's order; the last one carries
 * RP_IMM_END (it may be short, or empty), so a stream of unknown size
 * needs no size up front. Then its FEND.
 * Version 7: with want and update 0 (a directory's must be), exactly
 * that. Otherwise the sender sends none of the file's chunks until the
 * receiver answered with HAVE; after HAVE RP_HAVE_UPTODATE nothing more
 * comes for it (no FROM, chunks, FEND or FACK), after the other
 * verdicts FROM, then the chunks from its offset, then FEND.
 */
struct rp_file {
	uint32_t id;
	uint8_t kind;		/* enum rp_file_kind */
	uint16_t mode;		/* permission bits, <= 07777 */
	uint64_t size;		/* REG: bytes or RP_SIZE_UNKNOWN; DIR: 0 */
	int64_t mtime_sec;
	uint32_t mtime_nsec;	/* < 10^9 */
	uint16_t path_len;	/* 1..RP_PATH_MAX */
	char path[RP_PATH_MAX + 1];	/* NUL-terminated after decode */
	uint8_t want;		/* RP_WANT_* bits (v7); REG only */
	uint8_t update;		/* enum rp_update (v7); REG only */
	/* update RP_UPDATE_CHECKSUM: the whole file's digest (csum.h's
	 * fold, at the session's chunk); otherwise all zero. */
	uint8_t csum[RP_CSUM_LEN];
};

/*
 * HAVE (version 7), the receiver's answer to a FILE with want or update
 * set: what it holds of that file. The values are the wire's.
 */
enum rp_have_verdict {
	RP_HAVE_NONE = 0,	/* nothing to keep: send it whole, from 0 */
	RP_HAVE_UPTODATE = 1,	/* the target matches at FILE's update level:
				 * the sender sends nothing more for it */
	RP_HAVE_PARTIAL = 2,	/* a verified prefix of bytes, below */
	RP_HAVE_MAX
};

/*
 * bytes and csum are 0 unless RP_HAVE_PARTIAL; then bytes > 0 (a
 * multiple of the session's chunk: the session checks that) and csum is
 * the fold of that prefix's chunk digests (csum.h).
 */
struct rp_have {
	uint32_t id;		/* the FILE's */
	uint8_t verdict;	/* enum rp_have_verdict */
	uint64_t bytes;
	uint8_t csum[RP_CSUM_LEN];
};

/*
 * FROM (version 7), the sender's answer to HAVE NONE or PARTIAL: the
 * file's chunks start at offset, 0 or exactly HAVE's bytes (when its own
 * prefix folds to HAVE's csum). Its FEND then gives the whole file's
 * length and digest, the prefix's chunks included.
 */
struct rp_from {
	uint32_t id;
	uint64_t offset;
};

/*
 * RECONNECT (version 7), from either side in the FILES and END stages:
 * the link went away while the control connection lives. Each side
 * makes fresh QPs (keeping PD, MRs and ring) and sends their QPNs and
 * PSNs, in the order of the old ones; next_chunk is the receiver's
 * first chunk not taken, or the sender's first chunk not credited. The
 * sender resends from the receiver's next_chunk.
 */
struct rp_reconnect {
	uint32_t attempt;	/* 1, 2, ... within the session */
	uint8_t qps;		/* 1..RP_QPS_MAX, as the session's */
	uint64_t next_chunk;
	struct rp_qp_more qp[RP_QPS_MAX];	/* QPs 0..qps-1 */
};

/*
 * FEND: the end of regular file id: its length and checksum (since
 * version 4 the digest of its chunks' digests, see csum.h). A sender
 * that could not read the file to its end, or that was told by an early
 * FACK that the receiver refused it, ends it with an empty last chunk
 * and says bytes RP_FEND_ABORTED: the receiver drops what it got.
 */
#define RP_FEND_ABORTED		UINT64_MAX
struct rp_fend {
	uint32_t id;
	uint64_t bytes;
	uint8_t csum[RP_CSUM_LEN];
};

/* FIN: the sender has no more; files is how many FILEs it sent. */
struct rp_fin {
	uint64_t files;
	uint64_t bytes;		/* data bytes in all of them */
};

/*
 * CHAIN, right after a HELLO with RP_HELLO_CHAIN and only then: the
 * hosts after the receiver, in the order the push flows, each with its
 * port (never 0). A name is 1..RP_HOST_NAME_MAX bytes of a host name
 * (letters, digits, '-', '.', '_') or an IPv6 address (inet_pton(3)'s,
 * with an optional "%zone" of name characters), never bracketed. The
 * whole must fit in one message with its tag: rp_proto_chain_fit()
 * says how many hops do.
 * Encoding reads hop[0..n), or with hop NULL (a decoded CHAIN) writes
 * raw again; decoding keeps the checked payload in raw
 * (rp_proto_chain_hops() reads the hops out) and the first hop in
 * first, with hop NULL.
 */
struct rp_chain_msg {
	uint16_t n;			/* hops, 1.. */
	const struct rp_host *hop;	/* encode: the n hops, not owned */
	struct rp_host first;		/* decode: hop 0 */
	uint16_t raw_len;		/* decode: the payload */
	uint8_t raw[RP_PROTO_MAX_PAYLOAD];
};

/*
 * ACK, ERR and FACK share this shape. ACK with status RP_ST_OK means the
 * session ended well: every file its FACKs accepted is on disk. ERR ends
 * the session. FACK (id set) is one entry's result; a failed entry does
 * not end the session.
 */
struct rp_result {
	uint32_t id;		/* FACK only: the entry */
	uint16_t status;	/* enum rp_status */
	uint64_t bytes;		/* bytes stored (ACK, FACK) or 0 */
	uint16_t text_len;
	char text[RP_TEXT_MAX + 1];	/* NUL-terminated after decode */
};

/*
 * HOST, from a relay hop in the END stage, before its ACK, any number:
 * the result of a host further down the chain. hop 1 is the relay's
 * own downstream (the next host), and a relay passing on one its
 * downstream sent adds 1. status is that host's session result
 * (enum rp_status), files, failed and bytes its entries stored, failed
 * and bytes stored; text why it failed, as ERR carries it (empty when
 * it did not).
 */
struct rp_host_msg {
	uint16_t hop;		/* 1.. */
	uint16_t status;	/* enum rp_status; a byte on the wire */
	uint64_t files;
	uint64_t failed;
	uint64_t bytes;
	uint16_t text_len;
	char text[RP_TEXT_MAX + 1];	/* NUL-terminated after decode */
};

/*
 * The immediate of each data Write or Send: the chunk's number in the
 * session, modulo 2^31, with RP_IMM_END on the last chunk of a file. With
 * RDMA Read, the Send announcing a chunk carries its length instead (the
 * number is implied: chunks are announced in order).
 */
#define RP_IMM_END		0x80000000u
#define RP_IMM_SEQ		0x7fffffffu

#define RP_AUTH_NONCE_LEN	32
#define RP_AUTH_MAC_LEN		32

/*
 * AUTH, with --psk (see src/auth.c): step 1 sender's nonce; step 2
 * receiver's nonce and MAC (it proves the key); step 3 sender's MAC.
 */
enum rp_auth_step {
	RP_AUTH_CHALLENGE = 1,
	RP_AUTH_PROVE = 2,
	RP_AUTH_RESPOND = 3,
};

struct rp_auth {
	uint8_t step;		/* enum rp_auth_step */
	uint8_t nonce[RP_AUTH_NONCE_LEN];
	uint8_t mac[RP_AUTH_MAC_LEN];
};

struct rp_msg_hdr {
	uint8_t version;
	uint8_t type;
	uint32_t length;
	uint8_t raw[RP_PROTO_HDR_LEN];	/* as received (rp_ctrl_recv) */
};

/*
 * Encoders: write one whole message (header + payload) into buf. In
 * HELLO and MR, qps 0 is taken as 1 (more[] is then not read); decoders
 * always give 1..RP_QPS_MAX.
 * Return the number of bytes written (> 0), or RP_EPROTO when a field is
 * out of range (e.g. path_len > RP_PATH_MAX), or -ENOBUFS when len is short.
 */
int rp_proto_pack_hello(uint8_t *buf, size_t len, const struct rp_hello *m);
int rp_proto_pack_mr(uint8_t *buf, size_t len, const struct rp_mr *m);
int rp_proto_pack_fin(uint8_t *buf, size_t len, const struct rp_fin *m);
int rp_proto_pack_file(uint8_t *buf, size_t len, const struct rp_file *m);
int rp_proto_pack_fend(uint8_t *buf, size_t len, const struct rp_fend *m);
/* type: RP_MSG_ACK, RP_MSG_ERR or RP_MSG_FACK. */
int rp_proto_pack_result(uint8_t *buf, size_t len, uint8_t type,
			 const struct rp_result *m);
int rp_proto_pack_auth(uint8_t *buf, size_t len, const struct rp_auth *m);
int rp_proto_pack_have(uint8_t *buf, size_t len, const struct rp_have *m);
int rp_proto_pack_from(uint8_t *buf, size_t len, const struct rp_from *m);
int rp_proto_pack_reconnect(uint8_t *buf, size_t len,
			    const struct rp_reconnect *m);
int rp_proto_pack_chain(uint8_t *buf, size_t len,
			const struct rp_chain_msg *m);
int rp_proto_pack_host(uint8_t *buf, size_t len, const struct rp_host_msg *m);

/*
 * An ERR at another protocol version, for a peer that speaks an older
 * one: the header and ERR layouts have not changed since version 1, so
 * it can read why we stop. Returns as the encoders above.
 */
int rp_proto_pack_err_at(uint8_t *buf, size_t len, uint8_t version,
			 const struct rp_result *m);
/*
 * Lengthen the payload of the message packed in buf[0..n) by extra bytes,
 * which the caller appends (a tag): rewrites header.length. 0, or
 * RP_EPROTO if the message is not one, or would grow past
 * RP_PROTO_MAX_PAYLOAD.
 */
int rp_proto_grow(uint8_t *buf, size_t n, size_t extra);

/*
 * Parse a 12-byte header. Returns 0, RP_ENOTPEER (bad magic: not our
 * protocol at all), RP_EVERSION (magic right, version not ours: then
 * h->version is the peer's, nothing else of *h is set), or RP_EPROTO
 * (reserved bits, unknown type, length > RP_PROTO_MAX_PAYLOAD).
 * *why is set to a static reason string on failure (may be NULL).
 */
int rp_proto_parse_hdr(const uint8_t *buf, size_t len, struct rp_msg_hdr *h,
		       const char **why);

/*
 * Decoders take the payload only (after the header), of exactly
 * header.length bytes. Return 0 or RP_EPROTO with *why set. They validate
 * every field's range: QPN and PSN < 2^24, QPN != 0, MTU 1..5, GID not
 * all-zero unless LID != 0, path/text lengths, chunk/window non-zero,
 * status < RP_ST_MAX, and no trailing bytes. Paths are not checked for
 * safety here (see rp_fileio_check_path()).
 */
int rp_proto_unpack_hello(const uint8_t *p, size_t len, struct rp_hello *m,
			  const char **why);
int rp_proto_unpack_mr(const uint8_t *p, size_t len, struct rp_mr *m,
		       const char **why);
int rp_proto_unpack_fin(const uint8_t *p, size_t len, struct rp_fin *m,
			const char **why);
int rp_proto_unpack_file(const uint8_t *p, size_t len, struct rp_file *m,
			 const char **why);
int rp_proto_unpack_fend(const uint8_t *p, size_t len, struct rp_fend *m,
			 const char **why);
/* type: as for rp_proto_pack_result (FACK has an id first). */
int rp_proto_unpack_result(const uint8_t *p, size_t len, uint8_t type,
			   struct rp_result *m, const char **why);
/* step must be 1..3. */
int rp_proto_unpack_auth(const uint8_t *p, size_t len, struct rp_auth *m,
			 const char **why);
/*
 * Version 7. FILE (above) also checks want's bits, update's range, and
 * that csum is zero unless update is RP_UPDATE_CHECKSUM and want and
 * update are zero for a directory. HAVE: verdict < RP_HAVE_MAX, bytes
 * and csum zero unless PARTIAL, bytes non-zero if PARTIAL. RECONNECT:
 * attempt non-zero, qps 1..RP_QPS_MAX and exactly that many QPs, each
 * QPN non-zero and QPN and PSN < 2^24. Reserved bytes must be zero.
 */
int rp_proto_unpack_have(const uint8_t *p, size_t len, struct rp_have *m,
			 const char **why);
int rp_proto_unpack_from(const uint8_t *p, size_t len, struct rp_from *m,
			 const char **why);
int rp_proto_unpack_reconnect(const uint8_t *p, size_t len,
			      struct rp_reconnect *m, const char **why);
/*
 * CHAIN: count non-zero and exactly that many hops, each with a port
 * non-zero and a name as struct rp_chain_msg says, and the whole within
 * one message with its tag.
 */
int rp_proto_unpack_chain(const uint8_t *p, size_t len,
			  struct rp_chain_msg *m, const char **why);
/* HOST: hop non-zero, status in range, text within RP_TEXT_MAX. */
int rp_proto_unpack_host(const uint8_t *p, size_t len,
			 struct rp_host_msg *m, const char **why);
/* The n hops of a decoded CHAIN into out[0..m->n), ipv6 set for an
 * address. Cannot fail: the decoder checked them. */
void rp_proto_chain_hops(const struct rp_chain_msg *m, struct rp_host *out);
/*
 * How many of hop[0..n), from the first, fit in one CHAIN with its tag
 * (n when all do): a sender refuses a longer chain before it connects.
 */
size_t rp_proto_chain_fit(const struct rp_host *hop, size_t n);

/*
 * SYNC: after file id's FEND verified, the receiver is writing it to disk
 * and has synced_bytes of total_bytes there; any number may come before
 * its FACK, each one showing it is alive. synced_bytes <= total_bytes.
 */
struct rp_sync {
	uint32_t id;
	uint64_t synced_bytes;
	uint64_t total_bytes;
};
/* As the other encoders and decoders above. */
int rp_proto_pack_sync(uint8_t *buf, size_t len, const struct rp_sync *m);
int rp_proto_unpack_sync(const uint8_t *p, size_t len, struct rp_sync *m,
			 const char **why);

/* "write", "read", "send"; "?" for unknown. */
const char *rp_proto_op_name(unsigned int op);
/* "none", "exists", "size", "mtime", "checksum"; "?" for unknown. */
const char *rp_proto_update_name(unsigned int update);
/* "none", "up-to-date", "partial"; "?" for unknown. */
const char *rp_proto_have_name(unsigned int verdict);
/* "HELLO", "MR", ...; "?" for unknown. */
const char *rp_proto_type_name(unsigned int type);
/* "ok", "file exists", ...; "unknown status" for unknown. */
const char *rp_proto_status_name(unsigned int status);
/* Local error -> wire status, and back (RP_ST_OK <-> 0). */
uint16_t rp_proto_status_from_err(int rc);
int rp_proto_status_to_err(uint16_t status);

#endif
