// SPDX-License-Identifier: MIT
/* The control protocol codec: every message to and from big-endian bytes. */

/*
 * Wire layouts. All integers are big-endian, there is no padding, and the
 * offsets are from the start of the payload (after the 12-byte header:
 * u32 magic | u8 version | u8 type | u16 reserved (0) | u32 length).
 *
 * qp_addr, 28 bytes, shared by HELLO and MR:
 *	 0 u32 qpn		non-zero, < 2^24
 *	 4 u32 psn		< 2^24
 *	 8 u16 lid		0 on RoCE
 *	10 u8  mtu		enum ibv_mtu, 1..5
 *	11 u8  reserved		0
 *	12 u8  gid[16]		all-zero only when lid != 0
 *
 * qp_more, 8 bytes (v6), one for each QP after the first (--qps), which
 * shares the LID, MTU and GID of QP 0 (HELLO's and MR's qp_addr):
 *	 0 u32 qpn		non-zero, < 2^24
 *	 4 u32 psn		< 2^24
 *
 * HELLO, 48 + 8 * (qps - 1) bytes:
 *	 0 qp_addr
 *	28 u64 total		bytes in the session, or 2^64-1: unknown
 *	36 u32 chunk		non-zero
 *	40 u32 window		non-zero
 *	44 u32 flags		bits 0..7: RP_HELLO_* bits only
 *				(bit 0 PRESERVE, bit 1 PING);
 *				bits 8..15: op (v5), 0 write, 1 read, 2 send;
 *				bits 16..23: qps (v6), 1..RP_QPS_MAX;
 *				bits 24..31: 0
 *	48 qp_more more[qps - 1]	QPs 1..qps-1 (v6), exactly
 *
 * MR, 56 + 8 * (qps - 1) bytes (receiver -> sender; with op read also
 * sender -> receiver); qps is implied by the length, 1..RP_QPS_MAX:
 *	 0 qp_addr
 *	28 u64 addr		0 when no peer may touch the ring (v5)
 *	36 u32 rkey		0 likewise
 *	40 u64 len		== chunk * window
 *	48 u32 chunk		non-zero
 *	52 u32 window		non-zero
 *	56 qp_more more[qps - 1]	QPs 1..qps-1 (v6)
 *
 * FILE, 48 + path_len bytes (v7: 18 of them after the path, at +n
 * from its end):
 *	 0 u32 id
 *	 4 u8  kind		1 regular file, 2 directory
 *	 5 u8  reserved		0
 *	 6 u16 mode		<= 07777
 *	 8 u64 size		directory: 0; 2^64-1: unknown (a stream)
 *	16 u64 mtime_sec	two's complement
 *	24 u32 mtime_nsec	< 10^9
 *	28 u16 path_len		1..RP_PATH_MAX
 *	30 u8  path[path_len]	no NUL terminator on the wire
 *	+0 u8  want		v7: bit 0 resume, other bits 0
 *	+1 u8  update		v7: enum rp_update, 0..4
 *	+2 u8  csum[16]		v7: update 4 (checksum): the file's
 *				digest; otherwise all zero
 *				(a directory: want and update 0)
 *
 * FEND, 28 bytes:
 *	 0 u32 id
 *	 4 u64 bytes
 *	12 u8  csum[16]		XXH3-128 of the chunks' XXH3-128s (v4)
 *
 * FIN, 16 bytes:
 *	 0 u64 files
 *	 8 u64 bytes
 *
 * ACK and ERR (struct rp_result), 12 + text_len bytes; FACK is the same
 * after a u32 id (16 + text_len bytes):
 *	 0 u16 status		< RP_ST_MAX
 *	 2 u64 bytes
 *	10 u16 text_len		0..RP_TEXT_MAX
 *	12 u8  text[text_len]	no NUL terminator on the wire
 *
 * AUTH, 65 bytes:
 *	 0 u8  step		1..3
 *	 1 u8  nonce[32]
 *	33 u8  mac[32]
 *
 * SYNC, 20 bytes:
 *	 0 u32 id
 *	 4 u64 synced_bytes	<= total_bytes
 *	12 u64 total_bytes
 *
 * HAVE, 32 bytes (v7):
 *	 0 u32 id
 *	 4 u8  verdict		0 none, 1 up to date, 2 partial
 *	 5 u8  reserved		0
 *	 6 u16 reserved		0
 *	 8 u64 bytes		partial: > 0; otherwise 0
 *	16 u8  csum[16]		partial: the prefix's fold; otherwise 0
 *
 * FROM, 16 bytes (v7):
 *	 0 u32 id
 *	 4 u32 reserved		0
 *	 8 u64 offset
 *
 * RECONNECT, 16 + 8 * qps bytes (v7):
 *	 0 u32 attempt		non-zero
 *	 4 u8  qps		1..RP_QPS_MAX
 *	 5 u8  reserved		0
 *	 6 u16 reserved		0
 *	 8 u64 next_chunk
 *	16 qp_more qp[qps]	QPs 0..qps-1, exactly
 *
 * CHAIN, 2 + the hops' bytes (sender -> receiver, right after a HELLO
 * with flag CHAIN), within RP_PROTO_MAX_PAYLOAD less the tag's room:
 *	 0 u16 count		1..: the hosts after the receiver, in order
 *	 2 chain_hop hop[count]	exactly
 *
 * chain_hop, 3 + name_len bytes:
 *	 0 u16 port		non-zero
 *	 2 u8  name_len		1..RP_HOST_NAME_MAX
 *	 3 u8  name[name_len]	letters, digits, '-', '.', '_'; or an IPv6
 *				address (it has a ':'), "%zone" allowed;
 *				no brackets, no NUL terminator
 *
 * HOST, 29 + text_len bytes (receiver -> sender, END stage, before
 * ACK; from a relay hop only):
 *	 0 u16 hop		1..: 1 is the receiver's downstream
 *	 2 u8  status		< RP_ST_MAX: that host's session result
 *	 3 u64 files		entries it stored
 *	11 u64 failed		entries it failed
 *	19 u64 bytes		bytes it stored
 *	27 u16 text_len		0..RP_TEXT_MAX
 *	29 u8  text[text_len]	why it failed, as ERR's; no NUL terminator
 *
 * With --psk, every message after the AUTH exchange (version 2) ends in a
 * 32-byte tag, counted in the header's length; the session appends and
 * checks it (src/session.c, src/auth.c) and these decoders never see it.
 *
 * Encoders and decoders share one validator per message, so we never send
 * anything we would refuse to receive.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/proto.h"

#define QP_ADDR_LEN		28
#define QP_MORE_LEN		(4 + 4)
#define HELLO_LEN		(QP_ADDR_LEN + 8 + 4 + 4 + 4)
/*
 * HELLO's flags word carries the op in bits 8..15 (version 5) and the
 * number of QPs in bits 16..23 (version 6).
 */
#define HELLO_OP_SHIFT		8
#define HELLO_QPS_SHIFT		16
#define MR_LEN			(QP_ADDR_LEN + 8 + 4 + 8 + 4 + 4)
#define FILE_FIXED_LEN		(4 + 1 + 1 + 2 + 8 + 8 + 4 + 2)
#define FILE_TAIL_LEN		(1 + 1 + RP_CSUM_LEN)	/* after the path, v7 */
#define FEND_LEN		(4 + 8 + RP_CSUM_LEN)
#define FIN_LEN			(8 + 8)
#define RESULT_FIXED_LEN	(2 + 8 + 2)
#define AUTH_LEN		(1 + RP_AUTH_NONCE_LEN + RP_AUTH_MAC_LEN)
#define SYNC_LEN		(4 + 8 + 8)
#define HAVE_LEN		(4 + 1 + 1 + 2 + 8 + RP_CSUM_LEN)
#define FROM_LEN		(4 + 4 + 8)
#define RECONNECT_FIXED_LEN	(4 + 1 + 1 + 2 + 8)
#define CHAIN_FIXED_LEN		2
#define CHAIN_HOP_FIXED_LEN	(2 + 1)
/* A CHAIN's payload at most: one message with its tag. */
#define CHAIN_MAX_LEN		(RP_PROTO_MAX_PAYLOAD - RP_PROTO_TAG_ROOM)
#define HOST_FIXED_LEN		(2 + 1 + 8 + 8 + 8 + 2)
#define MODE_MAX		07777u
#define NSEC_LIMIT		1000000000u

#define QPN_LIMIT		(1u << 24)	/* QPNs and PSNs are 24 bits */
#define PSN_LIMIT		(1u << 24)
/* IBV_MTU_256..IBV_MTU_4096, numeric so the codec never sees ibverbs. */
#define MTU_MIN			1
#define MTU_MAX			5

_Static_assert(FILE_FIXED_LEN + RP_PATH_MAX + FILE_TAIL_LEN +
	       RP_PROTO_TAG_ROOM <= RP_PROTO_MAX_PAYLOAD,
	       "the longest FILE and its tag must fit in one message");
_Static_assert(MR_LEN + QP_MORE_LEN * (RP_QPS_MAX - 1) + RP_PROTO_TAG_ROOM <=
	       RP_PROTO_MAX_PAYLOAD,
	       "the longest MR and its tag must fit in one message");
_Static_assert(RECONNECT_FIXED_LEN + QP_MORE_LEN * RP_QPS_MAX +
	       RP_PROTO_TAG_ROOM <= RP_PROTO_MAX_PAYLOAD,
	       "the longest RECONNECT and its tag must fit in one message");
_Static_assert(RP_QPS_MAX >= 1 && RP_QPS_MAX <= UINT8_MAX,
	       "qps is a byte of HELLO's flags word");
_Static_assert(HOST_FIXED_LEN + RP_TEXT_MAX + RP_PROTO_TAG_ROOM <=
	       RP_PROTO_MAX_PAYLOAD,
	       "the longest HOST and its tag must fit in one message");
_Static_assert(RP_ST_MAX <= UINT8_MAX + 1, "HOST's status is a byte");
_Static_assert(4 + RESULT_FIXED_LEN + RP_TEXT_MAX + RP_PROTO_TAG_ROOM <=
	       RP_PROTO_MAX_PAYLOAD,
	       "the longest FACK and its tag must fit in one message");

/* A read cursor: getters fail rather than read past the end. */
struct cur {
	const uint8_t *p;
	size_t left;
};

/*
 * A write cursor. The encoders size the buffer before writing, so running
 * out of room here is a layout bug; it is remembered, not written past.
 */
struct wcur {
	uint8_t *p;
	size_t left;
	bool overflow;
};

static int get_bytes(struct cur *c, void *dst, size_t n)
{
	if (c->left < n)
		return RP_EPROTO;
	if (n)
		memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

/* A message's last field, its text of len bytes (checked against its
 * bound already), NUL-ended into text: NULL, or why not. */
static const char *get_last_text(struct cur *c, char *text, uint16_t len)
{
	if (get_bytes(c, text, len))
		return "text longer than payload";
	text[len] = '\0';
	return c->left ? "trailing bytes" : NULL;
}

static int get_u8(struct cur *c, uint8_t *v)
{
	return get_bytes(c, v, 1);
}

static int get_u16(struct cur *c, uint16_t *v)
{
	uint8_t b[2];

	if (get_bytes(c, b, sizeof(b)))
		return RP_EPROTO;
	*v = (uint16_t)((unsigned int)b[0] << 8 | b[1]);
	return 0;
}

static int get_u32(struct cur *c, uint32_t *v)
{
	uint8_t b[4];

	if (get_bytes(c, b, sizeof(b)))
		return RP_EPROTO;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	     (uint32_t)b[2] << 8 | b[3];
	return 0;
}

static int get_u64(struct cur *c, uint64_t *v)
{
	uint32_t hi;
	uint32_t lo;

	if (get_u32(c, &hi) || get_u32(c, &lo))
		return RP_EPROTO;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

static void put_bytes(struct wcur *c, const void *src, size_t n)
{
	if (c->overflow || c->left < n) {
		c->overflow = true;
		return;
	}
	if (n)
		memcpy(c->p, src, n);
	c->p += n;
	c->left -= n;
}

static void put_u8(struct wcur *c, uint8_t v)
{
	put_bytes(c, &v, 1);
}

static void put_u16(struct wcur *c, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put_bytes(c, b, sizeof(b));
}

static void put_u32(struct wcur *c, uint32_t v)
{
	uint8_t b[4] = {
		(uint8_t)(v >> 24), (uint8_t)(v >> 16),
		(uint8_t)(v >> 8), (uint8_t)v,
	};

	put_bytes(c, b, sizeof(b));
}

static void put_u64(struct wcur *c, uint64_t v)
{
	put_u32(c, (uint32_t)(v >> 32));
	put_u32(c, (uint32_t)v);
}

static int fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return RP_EPROTO;
}

/*
 * Validators return NULL when the message is fine, else the reason. They
 * see only decoded values, so encoders and decoders apply the same rules.
 */
static const char *check_qp(const struct rp_qp_addr *a)
{
	static const uint8_t zero_gid[RP_GID_LEN];

	if (a->qpn == 0 || a->qpn >= QPN_LIMIT)
		return "qpn out of range";
	if (a->psn >= PSN_LIMIT)
		return "psn out of range";
	if (a->mtu < MTU_MIN || a->mtu > MTU_MAX)
		return "mtu out of range";
	/* RoCE has no LID: the GID is then the only way to route. */
	if (a->lid == 0 && !memcmp(a->gid, zero_gid, RP_GID_LEN))
		return "zero gid without lid";
	return NULL;
}

/*
 * An encoder takes qps 0 as 1, so that a caller that knows nothing of
 * --qps packs what it did before; the wire has no such default.
 */
static unsigned int qps_or_1(uint8_t qps)
{
	return qps ? qps : 1;
}

static bool qps_in_range(size_t qps)
{
	return qps >= 1 && qps <= RP_QPS_MAX;
}

/* The QPs after the first, shared by HELLO and MR. */
static const char *check_more(unsigned int qps,
			      const struct rp_qp_more *more)
{
	unsigned int i;

	if (!qps_in_range(qps))
		return "qps out of range";
	/*
	 * As QP 0's (check_qp). Two QPs with one QPN are the session's to
	 * refuse: the codec has no notion of whose QPs they are.
	 */
	for (i = 0; i + 1 < qps; i++) {
		if (more[i].qpn == 0 || more[i].qpn >= QPN_LIMIT)
			return "extra qpn out of range";
		if (more[i].psn >= PSN_LIMIT)
			return "extra psn out of range";
	}
	return NULL;
}

static const char *check_hello(const struct rp_hello *m, unsigned int qps)
{
	const char *r = check_qp(&m->qp);

	if (r)
		return r;
	if (m->chunk == 0)
		return "zero chunk";
	if (m->window == 0)
		return "zero window";
	if (m->flags & ~RP_HELLO_FLAGS)
		return "unknown flags";
	if (m->op >= RP_OP_MAX)
		return "unknown op";
	return check_more(qps, m->more);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* FILE's fields after the path (version 7). */
static const char *check_file_tail(const struct rp_file *m)
{
	if (m->want & ~RP_WANT_BITS)
		return "unknown want bits";
	if (m->update >= RP_UPDATE_MAX)
		return "unknown update level";
	/* A directory has no data to resume or compare. */
	if (m->kind == RP_FILE_DIR && (m->want || m->update))
		return "directory with want or update";
	if (m->update != RP_UPDATE_CHECKSUM &&
	    !all_zero(m->csum, RP_CSUM_LEN))
		return "checksum without update checksum";
	return NULL;
}

static const char *check_file(const struct rp_file *m)
{
	if (m->kind != RP_FILE_REG && m->kind != RP_FILE_DIR)
		return "unknown kind";
	if (m->mode > MODE_MAX)
		return "mode has bits beyond 07777";
	if (m->kind == RP_FILE_DIR && m->size)
		return "directory with a size";
	if (m->mtime_nsec >= NSEC_LIMIT)
		return "mtime nanoseconds out of range";
	if (m->path_len == 0 || m->path_len > RP_PATH_MAX)
		return "path length out of range";
	return check_file_tail(m);
}

static const char *check_mr(const struct rp_mr *m, unsigned int qps)
{
	const char *r = check_qp(&m->qp);

	if (r)
		return r;
	if (m->chunk == 0)
		return "zero chunk";
	if (m->window == 0)
		return "zero window";
	/* The peer writes chunk-sized slots round the ring: it must fit. */
	if (m->len == 0 || m->len != (uint64_t)m->chunk * m->window)
		return "ring length is not chunk * window";
	return check_more(qps, m->more);
}

static const char *check_result(const struct rp_result *m)
{
	if (m->status >= RP_ST_MAX)
		return "status out of range";
	if (m->text_len > RP_TEXT_MAX)
		return "text length out of range";
	return NULL;
}

/*
 * Check the buffer, then write the header. The cursor is limited to this
 * message so a layout bug shows up as overflow, not as a write past it.
 */
static int begin(struct wcur *c, uint8_t *buf, size_t len, uint8_t type,
		 size_t plen)
{
	if (len < RP_PROTO_HDR_LEN + plen)
		return -ENOBUFS;
	c->p = buf;
	c->left = RP_PROTO_HDR_LEN + plen;
	c->overflow = false;
	put_u32(c, RP_PROTO_MAGIC);
	put_u8(c, RP_PROTO_VERSION);
	put_u8(c, type);
	put_u16(c, 0);
	put_u32(c, (uint32_t)plen);
	return 0;
}

/* Bytes written, once the payload filled exactly what begin() sized. */
static int finish(const struct wcur *c, size_t plen)
{
	if (c->overflow || c->left)
		return RP_EINTERNAL;
	return (int)(RP_PROTO_HDR_LEN + plen);
}

static void put_qp(struct wcur *c, const struct rp_qp_addr *a)
{
	put_u32(c, a->qpn);
	put_u32(c, a->psn);
	put_u16(c, a->lid);
	put_u8(c, a->mtu);
	put_u8(c, 0);
	put_bytes(c, a->gid, RP_GID_LEN);
}

static int get_qp(struct cur *c, struct rp_qp_addr *a, const char **why)
{
	uint8_t reserved;
	const char *r;

	if (get_u32(c, &a->qpn) || get_u32(c, &a->psn) ||
	    get_u16(c, &a->lid) || get_u8(c, &a->mtu) ||
	    get_u8(c, &reserved) || get_bytes(c, a->gid, RP_GID_LEN))
		return fail(why, "truncated qp address");
	if (reserved)
		return fail(why, "reserved byte not zero");
	r = check_qp(a);
	if (r)
		return fail(why, r);
	return 0;
}

/* The QPs after the first: qps - 1 entries after HELLO's or MR's fixed part. */
static void put_more(struct wcur *c, unsigned int qps,
		     const struct rp_qp_more *more)
{
	unsigned int i;

	for (i = 0; i + 1 < qps; i++) {
		put_u32(c, more[i].qpn);
		put_u32(c, more[i].psn);
	}
}

/*
 * Read what put_more() wrote. qps is checked first: it bounds the copy
 * into more[]. The entries are checked with the rest of the message.
 */
static int get_more(struct cur *c, size_t qps, struct rp_qp_more *more,
		    const char **why)
{
	size_t i;

	if (!qps_in_range(qps))
		return fail(why, "qps out of range");
	for (i = 0; i + 1 < qps; i++) {
		if (get_u32(c, &more[i].qpn) || get_u32(c, &more[i].psn))
			return fail(why, "truncated QP list");
	}
	return 0;
}

int rp_proto_pack_hello(uint8_t *buf, size_t len, const struct rp_hello *m)
{
	unsigned int qps = qps_or_1(m->qps);
	size_t plen = HELLO_LEN + QP_MORE_LEN * (size_t)(qps - 1);
	struct wcur c;
	int rc;

	if (check_hello(m, qps))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_HELLO, plen);
	if (rc)
		return rc;
	put_qp(&c, &m->qp);
	put_u64(&c, m->total);
	put_u32(&c, m->chunk);
	put_u32(&c, m->window);
	put_u32(&c, m->flags | (uint32_t)m->op << HELLO_OP_SHIFT |
		       (uint32_t)qps << HELLO_QPS_SHIFT);
	put_more(&c, qps, m->more);
	return finish(&c, plen);
}

int rp_proto_pack_file(uint8_t *buf, size_t len, const struct rp_file *m)
{
	struct wcur c;
	size_t plen;
	int rc;

	if (check_file(m))
		return RP_EPROTO;
	plen = FILE_FIXED_LEN + (size_t)m->path_len + FILE_TAIL_LEN;
	rc = begin(&c, buf, len, RP_MSG_FILE, plen);
	if (rc)
		return rc;
	put_u32(&c, m->id);
	put_u8(&c, m->kind);
	put_u8(&c, 0);
	put_u16(&c, m->mode);
	put_u64(&c, m->size);
	put_u64(&c, (uint64_t)m->mtime_sec);
	put_u32(&c, m->mtime_nsec);
	put_u16(&c, m->path_len);
	put_bytes(&c, m->path, m->path_len);
	put_u8(&c, m->want);
	put_u8(&c, m->update);
	put_bytes(&c, m->csum, RP_CSUM_LEN);
	return finish(&c, plen);
}

int rp_proto_pack_fend(uint8_t *buf, size_t len, const struct rp_fend *m)
{
	struct wcur c;
	int rc;

	rc = begin(&c, buf, len, RP_MSG_FEND, FEND_LEN);
	if (rc)
		return rc;
	put_u32(&c, m->id);
	put_u64(&c, m->bytes);
	put_bytes(&c, m->csum, RP_CSUM_LEN);
	return finish(&c, FEND_LEN);
}

int rp_proto_pack_mr(uint8_t *buf, size_t len, const struct rp_mr *m)
{
	unsigned int qps = qps_or_1(m->qps);
	size_t plen = MR_LEN + QP_MORE_LEN * (size_t)(qps - 1);
	struct wcur c;
	int rc;

	if (check_mr(m, qps))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_MR, plen);
	if (rc)
		return rc;
	put_qp(&c, &m->qp);
	put_u64(&c, m->addr);
	put_u32(&c, m->rkey);
	put_u64(&c, m->len);
	put_u32(&c, m->chunk);
	put_u32(&c, m->window);
	put_more(&c, qps, m->more);
	return finish(&c, plen);
}

int rp_proto_pack_fin(uint8_t *buf, size_t len, const struct rp_fin *m)
{
	struct wcur c;
	int rc;

	rc = begin(&c, buf, len, RP_MSG_FIN, FIN_LEN);
	if (rc)
		return rc;
	put_u64(&c, m->files);
	put_u64(&c, m->bytes);
	return finish(&c, FIN_LEN);
}

static const char *check_auth(const struct rp_auth *m)
{
	if (m->step < RP_AUTH_CHALLENGE || m->step > RP_AUTH_RESPOND)
		return "auth step out of range";
	return NULL;
}

int rp_proto_pack_auth(uint8_t *buf, size_t len, const struct rp_auth *m)
{
	struct wcur c;
	int rc;

	if (check_auth(m))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_AUTH, AUTH_LEN);
	if (rc)
		return rc;
	put_u8(&c, m->step);
	put_bytes(&c, m->nonce, RP_AUTH_NONCE_LEN);
	put_bytes(&c, m->mac, RP_AUTH_MAC_LEN);
	return finish(&c, AUTH_LEN);
}

int rp_proto_pack_result(uint8_t *buf, size_t len, uint8_t type,
			 const struct rp_result *m)
{
	struct wcur c;
	size_t plen;
	int rc;

	if (type != RP_MSG_ACK && type != RP_MSG_ERR && type != RP_MSG_FACK)
		return RP_EPROTO;
	if (check_result(m))
		return RP_EPROTO;
	plen = (type == RP_MSG_FACK ? 4 : 0) + RESULT_FIXED_LEN +
	       (size_t)m->text_len;
	rc = begin(&c, buf, len, type, plen);
	if (rc)
		return rc;
	if (type == RP_MSG_FACK)
		put_u32(&c, m->id);
	put_u16(&c, m->status);
	put_u64(&c, m->bytes);
	put_u16(&c, m->text_len);
	put_bytes(&c, m->text, m->text_len);
	return finish(&c, plen);
}

int rp_proto_pack_err_at(uint8_t *buf, size_t len, uint8_t version,
			 const struct rp_result *m)
{
	int n = rp_proto_pack_result(buf, len, RP_MSG_ERR, m);

	/* Only the version byte differs (see proto.h). */
	if (n > 0)
		buf[4] = version;
	return n;
}

int rp_proto_grow(uint8_t *buf, size_t n, size_t extra)
{
	struct rp_msg_hdr h;
	struct wcur c = { .p = buf + 8, .left = 4 };

	if (rp_proto_parse_hdr(buf, n, &h, NULL) ||
	    n != RP_PROTO_HDR_LEN + (size_t)h.length ||
	    extra > RP_PROTO_MAX_PAYLOAD - h.length)
		return RP_EPROTO;
	put_u32(&c, h.length + (uint32_t)extra);
	return 0;
}

int rp_proto_parse_hdr(const uint8_t *buf, size_t len, struct rp_msg_hdr *h,
		       const char **why)
{
	struct cur c = { .p = buf, .left = len };
	uint32_t magic;
	uint8_t version;
	uint8_t type;
	uint16_t reserved;
	uint32_t length;

	if (get_u32(&c, &magic) || get_u8(&c, &version) ||
	    get_u8(&c, &type) || get_u16(&c, &reserved) ||
	    get_u32(&c, &length))
		return fail(why, "short header");
	if (magic != RP_PROTO_MAGIC) {
		if (why)
			*why = "bad magic";
		return RP_ENOTPEER;
	}
	/* Before the type: another version may define other types. */
	if (version != RP_PROTO_VERSION) {
		if (why)
			*why = "unsupported version";
		h->version = version;
		return RP_EVERSION;
	}
	if (type == 0 || type >= RP_MSG_TYPE_MAX)
		return fail(why, "unknown message type");
	if (reserved)
		return fail(why, "reserved bits not zero");
	if (length > RP_PROTO_MAX_PAYLOAD)
		return fail(why, "payload too long");
	h->version = version;
	h->type = type;
	h->length = length;
	return 0;
}

/*
 * The decoders fill a local copy and assign *m only on success, so a
 * caller never sees half a message.
 */
int rp_proto_unpack_hello(const uint8_t *p, size_t len, struct rp_hello *m,
			  const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_hello t;
	uint32_t flags;
	const char *r;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = get_qp(&c, &t.qp, why);
	if (rc)
		return rc;
	if (get_u64(&c, &t.total) || get_u32(&c, &t.chunk) ||
	    get_u32(&c, &t.window) || get_u32(&c, &flags))
		return fail(why, "truncated HELLO");
	if (flags >> HELLO_QPS_SHIFT > UINT8_MAX)
		return fail(why, "unknown flags");
	t.qps = (uint8_t)(flags >> HELLO_QPS_SHIFT);
	t.op = (uint8_t)(flags >> HELLO_OP_SHIFT);
	t.flags = flags & ((1u << HELLO_OP_SHIFT) - 1);
	/* The flags word says how many QPs follow: exactly those. */
	rc = get_more(&c, t.qps, t.more, why);
	if (rc)
		return rc;
	r = check_hello(&t, t.qps);
	if (r)
		return fail(why, r);
	if (c.left)
		return fail(why, "trailing bytes");
	*m = t;
	return 0;
}

int rp_proto_unpack_mr(const uint8_t *p, size_t len, struct rp_mr *m,
		       const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_mr t;
	const char *r;
	size_t qps;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = get_qp(&c, &t.qp, why);
	if (rc)
		return rc;
	if (get_u64(&c, &t.addr) || get_u32(&c, &t.rkey) ||
	    get_u64(&c, &t.len) || get_u32(&c, &t.chunk) ||
	    get_u32(&c, &t.window))
		return fail(why, "truncated MR");
	/*
	 * The length says how many QPs follow: every whole entry is one,
	 * and a part entry is trailing bytes.
	 */
	qps = 1 + c.left / QP_MORE_LEN;
	rc = get_more(&c, qps, t.more, why);
	if (rc)
		return rc;
	t.qps = (uint8_t)qps;
	r = check_mr(&t, t.qps);
	if (r)
		return fail(why, r);
	if (c.left)
		return fail(why, "trailing bytes");
	*m = t;
	return 0;
}

int rp_proto_unpack_fin(const uint8_t *p, size_t len, struct rp_fin *m,
			const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_fin t;

	memset(&t, 0, sizeof(t));
	if (get_u64(&c, &t.files) || get_u64(&c, &t.bytes))
		return fail(why, "truncated FIN");
	if (c.left)
		return fail(why, "trailing bytes");
	*m = t;
	return 0;
}

static int get_file_fixed(struct cur *c, struct rp_file *t)
{
	uint8_t reserved;
	uint64_t sec;

	if (get_u32(c, &t->id) || get_u8(c, &t->kind) ||
	    get_u8(c, &reserved) || get_u16(c, &t->mode) ||
	    get_u64(c, &t->size) || get_u64(c, &sec) ||
	    get_u32(c, &t->mtime_nsec) || get_u16(c, &t->path_len))
		return RP_EPROTO;
	t->mtime_sec = (int64_t)sec;
	return reserved ? RP_EPROTO : 0;
}

int rp_proto_unpack_file(const uint8_t *p, size_t len, struct rp_file *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_file t;
	const char *r;

	memset(&t, 0, sizeof(t));
	if (get_file_fixed(&c, &t))
		return fail(why, "truncated FILE or reserved byte not zero");
	/*
	 * Before copying: path_len bounds the copy into t.path. The
	 * fields after the path are still zero here, which passes.
	 */
	r = check_file(&t);
	if (r)
		return fail(why, r);
	/* The 18 bytes after the path are not the path's (version 7). */
	if (c.left < (size_t)t.path_len + FILE_TAIL_LEN ||
	    get_bytes(&c, t.path, t.path_len))
		return fail(why, "path longer than payload");
	/*
	 * path_len stays the authority: an embedded NUL is kept, not
	 * silently cut, and rp_fileio_check_path() refuses it.
	 */
	t.path[t.path_len] = '\0';
	if (get_u8(&c, &t.want) || get_u8(&c, &t.update) ||
	    get_bytes(&c, t.csum, RP_CSUM_LEN))
		return fail(why, "truncated FILE");
	if (c.left)
		return fail(why, "trailing bytes");
	r = check_file_tail(&t);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}

int rp_proto_unpack_fend(const uint8_t *p, size_t len, struct rp_fend *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_fend t;

	memset(&t, 0, sizeof(t));
	if (get_u32(&c, &t.id) || get_u64(&c, &t.bytes) ||
	    get_bytes(&c, t.csum, RP_CSUM_LEN))
		return fail(why, "truncated FEND");
	if (c.left)
		return fail(why, "trailing bytes");
	*m = t;
	return 0;
}

int rp_proto_unpack_result(const uint8_t *p, size_t len, uint8_t type,
			   struct rp_result *m, const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_result t;
	const char *r;

	memset(&t, 0, sizeof(t));
	if (type == RP_MSG_FACK && get_u32(&c, &t.id))
		return fail(why, "truncated FACK");
	if (get_u16(&c, &t.status) || get_u64(&c, &t.bytes) ||
	    get_u16(&c, &t.text_len))
		return fail(why, "truncated result");
	/* Before copying: text_len bounds the copy into t.text. */
	r = check_result(&t);
	if (r)
		return fail(why, r);
	r = get_last_text(&c, t.text, t.text_len);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}

int rp_proto_unpack_auth(const uint8_t *p, size_t len, struct rp_auth *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_auth t;
	const char *r;

	if (get_u8(&c, &t.step) || get_bytes(&c, t.nonce, RP_AUTH_NONCE_LEN) ||
	    get_bytes(&c, t.mac, RP_AUTH_MAC_LEN))
		return fail(why, "truncated AUTH");
	if (c.left)
		return fail(why, "trailing bytes");
	r = check_auth(&t);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}

static const char *check_sync(const struct rp_sync *m)
{
	if (m->synced_bytes > m->total_bytes)
		return "synced bytes above total";
	return NULL;
}

int rp_proto_pack_sync(uint8_t *buf, size_t len, const struct rp_sync *m)
{
	struct wcur c;
	int rc;

	if (check_sync(m))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_SYNC, SYNC_LEN);
	if (rc)
		return rc;
	put_u32(&c, m->id);
	put_u64(&c, m->synced_bytes);
	put_u64(&c, m->total_bytes);
	return finish(&c, SYNC_LEN);
}

int rp_proto_unpack_sync(const uint8_t *p, size_t len, struct rp_sync *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_sync t;
	const char *r;

	if (get_u32(&c, &t.id) || get_u64(&c, &t.synced_bytes) ||
	    get_u64(&c, &t.total_bytes))
		return fail(why, "truncated SYNC");
	if (c.left)
		return fail(why, "trailing bytes");
	r = check_sync(&t);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}


/* ---- version 7: HAVE, FROM, RECONNECT ---- */

static const char *check_have(const struct rp_have *m)
{
	if (m->verdict >= RP_HAVE_MAX)
		return "unknown verdict";
	if (m->verdict != RP_HAVE_PARTIAL &&
	    (m->bytes || !all_zero(m->csum, RP_CSUM_LEN)))
		return "bytes or checksum without a partial";
	/* A prefix of nothing is no prefix: that is RP_HAVE_NONE. */
	if (m->verdict == RP_HAVE_PARTIAL && m->bytes == 0)
		return "partial of zero bytes";
	return NULL;
}

int rp_proto_pack_have(uint8_t *buf, size_t len, const struct rp_have *m)
{
	struct wcur c;
	int rc;

	if (check_have(m))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_HAVE, HAVE_LEN);
	if (rc)
		return rc;
	put_u32(&c, m->id);
	put_u8(&c, m->verdict);
	put_u8(&c, 0);
	put_u16(&c, 0);
	put_u64(&c, m->bytes);
	put_bytes(&c, m->csum, RP_CSUM_LEN);
	return finish(&c, HAVE_LEN);
}

int rp_proto_unpack_have(const uint8_t *p, size_t len, struct rp_have *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_have t;
	uint16_t reserved16;
	uint8_t reserved8;
	const char *r;

	memset(&t, 0, sizeof(t));
	if (get_u32(&c, &t.id) || get_u8(&c, &t.verdict) ||
	    get_u8(&c, &reserved8) || get_u16(&c, &reserved16) ||
	    get_u64(&c, &t.bytes) || get_bytes(&c, t.csum, RP_CSUM_LEN))
		return fail(why, "truncated HAVE");
	if (c.left)
		return fail(why, "trailing bytes");
	if (reserved8 || reserved16)
		return fail(why, "reserved bytes not zero");
	r = check_have(&t);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}

int rp_proto_pack_from(uint8_t *buf, size_t len, const struct rp_from *m)
{
	struct wcur c;
	int rc;

	rc = begin(&c, buf, len, RP_MSG_FROM, FROM_LEN);
	if (rc)
		return rc;
	put_u32(&c, m->id);
	put_u32(&c, 0);
	put_u64(&c, m->offset);
	return finish(&c, FROM_LEN);
}

int rp_proto_unpack_from(const uint8_t *p, size_t len, struct rp_from *m,
			 const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_from t;
	uint32_t reserved;

	memset(&t, 0, sizeof(t));
	if (get_u32(&c, &t.id) || get_u32(&c, &reserved) ||
	    get_u64(&c, &t.offset))
		return fail(why, "truncated FROM");
	if (c.left)
		return fail(why, "trailing bytes");
	if (reserved)
		return fail(why, "reserved bytes not zero");
	*m = t;
	return 0;
}

/*
 * All of the session's QPs are new, so QP 0 comes as a qp_more too: LID,
 * MTU and GID are the port's, which a link outage does not change.
 */
static const char *check_reconnect(const struct rp_reconnect *m)
{
	unsigned int i;

	if (m->attempt == 0)
		return "attempt 0";
	if (!qps_in_range(m->qps))
		return "qps out of range";
	for (i = 0; i < m->qps; i++) {
		if (m->qp[i].qpn == 0 || m->qp[i].qpn >= QPN_LIMIT)
			return "qpn out of range";
		if (m->qp[i].psn >= PSN_LIMIT)
			return "psn out of range";
	}
	return NULL;
}

int rp_proto_pack_reconnect(uint8_t *buf, size_t len,
			    const struct rp_reconnect *m)
{
	size_t plen = RECONNECT_FIXED_LEN + QP_MORE_LEN * (size_t)m->qps;
	struct wcur c;
	unsigned int i;
	int rc;

	if (check_reconnect(m))
		return RP_EPROTO;
	rc = begin(&c, buf, len, RP_MSG_RECONNECT, plen);
	if (rc)
		return rc;
	put_u32(&c, m->attempt);
	put_u8(&c, m->qps);
	put_u8(&c, 0);
	put_u16(&c, 0);
	put_u64(&c, m->next_chunk);
	for (i = 0; i < m->qps; i++) {
		put_u32(&c, m->qp[i].qpn);
		put_u32(&c, m->qp[i].psn);
	}
	return finish(&c, plen);
}

int rp_proto_unpack_reconnect(const uint8_t *p, size_t len,
			      struct rp_reconnect *m, const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_reconnect t;
	uint16_t reserved16;
	uint8_t reserved8;
	const char *r;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	if (get_u32(&c, &t.attempt) || get_u8(&c, &t.qps) ||
	    get_u8(&c, &reserved8) || get_u16(&c, &reserved16) ||
	    get_u64(&c, &t.next_chunk))
		return fail(why, "truncated RECONNECT");
	/* qps bounds the copy into t.qp: checked before it. */
	if (!qps_in_range(t.qps))
		return fail(why, "qps out of range");
	for (i = 0; i < t.qps; i++) {
		if (get_u32(&c, &t.qp[i].qpn) || get_u32(&c, &t.qp[i].psn))
			return fail(why, "truncated QP list");
	}
	if (c.left)
		return fail(why, "trailing bytes");
	if (reserved8 || reserved16)
		return fail(why, "reserved bytes not zero");
	r = check_reconnect(&t);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}

/* ---- CHAIN ---- */

static bool chain_namechar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/*
 * A hop's name (n bytes, no NUL needed): a host name, or an IPv6
 * address with an optional zone; *ipv6 says which. NULL, or why not.
 */
static const char *check_hop_name(const char *name, size_t n, bool *ipv6)
{
	char addr[RP_HOST_NAME_MAX + 1];
	struct in6_addr a;
	const char *colon = memchr(name, ':', n);
	const char *zone;
	size_t alen;

	if (!n || n > RP_HOST_NAME_MAX)
		return "hop name length out of range";
	*ipv6 = colon != NULL;
	if (!colon) {
		for (size_t i = 0; i < n; i++)
			if (!chain_namechar((unsigned char)name[i]))
				return "hop name has a character a host "
				       "name cannot";
		return NULL;
	}
	zone = memchr(name, '%', n);
	alen = zone ? (size_t)(zone - name) : n;
	/* inet_pton() would stop at a NUL and pass what follows it. */
	for (size_t i = 0; i < alen; i++)
		if (!strchr("0123456789abcdefABCDEF:.", name[i]) || !name[i])
			return "hop address has a character an IPv6 address "
			       "cannot";
	if (zone) {
		if (zone + 1 == name + n)
			return "hop address has an empty zone";
		for (const char *z = zone + 1; z < name + n; z++)
			if (!chain_namechar((unsigned char)*z))
				return "hop address zone has a character a "
				       "name cannot";
	}
	memcpy(addr, name, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, &a) != 1)
		return "hop name has a ':' but is no IPv6 address";
	return NULL;
}

static int get_hop(struct cur *c, struct rp_host *h, const char **why);

/* One hop's bytes on the wire, or 0 when it cannot go there. */
static size_t hop_len(const struct rp_host *h)
{
	size_t n = strnlen(h->name, sizeof(h->name));
	bool ipv6;

	if (!h->port || n == sizeof(h->name) ||
	    check_hop_name(h->name, n, &ipv6))
		return 0;
	return CHAIN_HOP_FIXED_LEN + n;
}

size_t rp_proto_chain_fit(const struct rp_host *hop, size_t n)
{
	size_t plen = CHAIN_FIXED_LEN;
	size_t i;

	for (i = 0; i < n && i < UINT16_MAX; i++) {
		size_t h = hop_len(&hop[i]);

		if (!h || plen + h > CHAIN_MAX_LEN)
			break;
		plen += h;
	}
	return i;
}

/* A decoded CHAIN's payload, checked again: count n, and its hops. */
static int check_raw_chain(const struct rp_chain_msg *m)
{
	struct cur c = { .p = m->raw, .left = m->raw_len };
	uint16_t n;

	if (m->raw_len > CHAIN_MAX_LEN || get_u16(&c, &n) || n != m->n)
		return RP_EPROTO;
	for (uint16_t i = 0; i < n; i++)
		if (get_hop(&c, NULL, NULL))
			return RP_EPROTO;
	return c.left ? RP_EPROTO : 0;
}

int rp_proto_pack_chain(uint8_t *buf, size_t len,
			const struct rp_chain_msg *m)
{
	size_t plen = CHAIN_FIXED_LEN;
	struct wcur c;
	int rc;

	/* A decoded one (hop NULL) goes again as it came. */
	if (m->n && !m->hop) {
		if (check_raw_chain(m))
			return RP_EPROTO;
		rc = begin(&c, buf, len, RP_MSG_CHAIN, m->raw_len);
		if (rc)
			return rc;
		put_bytes(&c, m->raw, m->raw_len);
		return finish(&c, m->raw_len);
	}
	if (!m->n || !m->hop || rp_proto_chain_fit(m->hop, m->n) != m->n)
		return RP_EPROTO;
	for (size_t i = 0; i < m->n; i++)
		plen += hop_len(&m->hop[i]);
	rc = begin(&c, buf, len, RP_MSG_CHAIN, plen);
	if (rc)
		return rc;
	put_u16(&c, m->n);
	for (size_t i = 0; i < m->n; i++) {
		size_t n = strlen(m->hop[i].name);

		put_u16(&c, m->hop[i].port);
		put_u8(&c, (uint8_t)n);
		put_bytes(&c, m->hop[i].name, n);
	}
	return finish(&c, plen);
}

/* The hop at c into h (when not NULL), checked. */
static int get_hop(struct cur *c, struct rp_host *h, const char **why)
{
	struct rp_host t = { .port = 0 };
	uint8_t n;
	const char *r;

	if (get_u16(c, &t.port) || get_u8(c, &n))
		return fail(why, "truncated hop");
	if (!t.port)
		return fail(why, "hop port 0");
	if (get_bytes(c, t.name, n))
		return fail(why, "hop name longer than payload");
	r = check_hop_name(t.name, n, &t.ipv6);
	if (r)
		return fail(why, r);
	t.name[n] = '\0';
	if (h)
		*h = t;
	return 0;
}

int rp_proto_unpack_chain(const uint8_t *p, size_t len,
			  struct rp_chain_msg *m, const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_host first;
	uint16_t n;

	if (len > CHAIN_MAX_LEN)
		return fail(why, "CHAIN longer than one message and its tag");
	if (get_u16(&c, &n))
		return fail(why, "truncated CHAIN");
	if (!n)
		return fail(why, "CHAIN with no hop");
	for (uint16_t i = 0; i < n; i++)
		if (get_hop(&c, i ? NULL : &first, why))
			return RP_EPROTO;
	if (c.left)
		return fail(why, "trailing bytes");
	m->n = n;
	m->hop = NULL;
	m->first = first;
	m->raw_len = (uint16_t)len;
	memcpy(m->raw, p, len);
	return 0;
}

void rp_proto_chain_hops(const struct rp_chain_msg *m, struct rp_host *out)
{
	struct cur c = { .p = m->raw + CHAIN_FIXED_LEN,
			 .left = m->raw_len - CHAIN_FIXED_LEN };

	for (uint16_t i = 0; i < m->n; i++)
		(void)get_hop(&c, &out[i], NULL);
}

/* ---- HOST ---- */

static const char *check_host(const struct rp_host_msg *m)
{
	if (!m->hop)
		return "hop 0";
	if (m->status >= RP_ST_MAX)
		return "status out of range";
	if (m->text_len > RP_TEXT_MAX)
		return "text length out of range";
	return NULL;
}

int rp_proto_pack_host(uint8_t *buf, size_t len, const struct rp_host_msg *m)
{
	struct wcur c;
	size_t plen;
	int rc;

	if (check_host(m))
		return RP_EPROTO;
	plen = HOST_FIXED_LEN + (size_t)m->text_len;
	rc = begin(&c, buf, len, RP_MSG_HOST, plen);
	if (rc)
		return rc;
	put_u16(&c, m->hop);
	put_u8(&c, (uint8_t)m->status);
	put_u64(&c, m->files);
	put_u64(&c, m->failed);
	put_u64(&c, m->bytes);
	put_u16(&c, m->text_len);
	put_bytes(&c, m->text, m->text_len);
	return finish(&c, plen);
}

int rp_proto_unpack_host(const uint8_t *p, size_t len,
			 struct rp_host_msg *m, const char **why)
{
	struct cur c = { .p = p, .left = len };
	struct rp_host_msg t;
	uint8_t status;
	const char *r;

	memset(&t, 0, sizeof(t));
	if (get_u16(&c, &t.hop) || get_u8(&c, &status) ||
	    get_u64(&c, &t.files) || get_u64(&c, &t.failed) ||
	    get_u64(&c, &t.bytes) || get_u16(&c, &t.text_len))
		return fail(why, "truncated HOST");
	t.status = status;
	/* Before copying: text_len bounds the copy into t.text. */
	r = check_host(&t);
	if (r)
		return fail(why, r);
	r = get_last_text(&c, t.text, t.text_len);
	if (r)
		return fail(why, r);
	*m = t;
	return 0;
}
