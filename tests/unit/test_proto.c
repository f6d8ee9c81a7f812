// SPDX-License-Identifier: MIT
/* Unit tests of the control protocol codec: layouts, bounds and mappings. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rdmapush/err.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/trace.h"

#define HDR	RP_PROTO_HDR_LEN
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Payload offsets, written out here so the tests pin the layout. */
#define OFF_QPN		0
#define OFF_PSN		4
#define OFF_LID		8
#define OFF_MTU		10
#define OFF_QP_RSVD	11
#define OFF_GID		12
#define OFF_H_TOTAL	28
#define OFF_H_CHUNK	36
#define OFF_H_WINDOW	40
#define OFF_H_FLAGS	44
#define HELLO_PLEN	48
#define OFF_H_MORE	48	/* v6: QPs 1..qps-1, 8 bytes each */
#define OFF_MR_ADDR	28
#define OFF_MR_RKEY	36
#define OFF_MR_LEN	40
#define OFF_MR_CHUNK	48
#define OFF_MR_WINDOW	52
#define MR_PLEN		56
#define OFF_MR_MORE	56
#define MORE_LEN	8	/* v6: u32 qpn, u32 psn */
#define OFF_MORE_QPN	0
#define OFF_MORE_PSN	4
#define QPS_SHIFT	16	/* v6: HELLO's qps, flags bits 16..23 */
#define OFF_F_ID	0
#define OFF_F_KIND	4
#define OFF_F_RSVD	5
#define OFF_F_MODE	6
#define OFF_F_SIZE	8
#define OFF_F_SEC	16
#define OFF_F_NSEC	24
#define OFF_F_PATHLEN	28
#define OFF_F_PATH	30
#define FILE_FIXED	30
#define FILE_TAIL	18	/* v7: after the path, at +n from its end */
#define OFF_FT_WANT	0
#define OFF_FT_UPDATE	1
#define OFF_FT_CSUM	2
#define OFF_FE_BYTES	4
#define OFF_FE_CSUM	12
#define FEND_PLEN	28
#define FIN_PLEN	16
#define OFF_R_STATUS	0
#define OFF_R_BYTES	2
#define OFF_R_TEXTLEN	10
#define OFF_R_TEXT	12
#define FACK_ID_LEN	4	/* FACK: a u32 id, then the ACK layout */
#define SYNC_PLEN	20
#define OFF_HV_VERDICT	4	/* v7: HAVE */
#define OFF_HV_RSVD	5
#define OFF_HV_RSVD16	6
#define OFF_HV_BYTES	8
#define OFF_HV_CSUM	16
#define HAVE_PLEN	32
#define OFF_FR_RSVD	4	/* v7: FROM */
#define OFF_FR_OFFSET	8
#define FROM_PLEN	16
#define OFF_RC_QPS	4	/* v7: RECONNECT */
#define OFF_RC_RSVD	5
#define OFF_RC_RSVD16	6
#define OFF_RC_NEXT	8
#define OFF_RC_QP	16
#define RC_FIXED	16

/* Big-endian store of the low 'width' bytes of v, to forge bad fields. */
static void be_put(uint8_t *p, size_t width, uint64_t v)
{
	size_t i;

	for (i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
}

/* Big-endian load, to read fields back at their documented offsets. */
static uint64_t be_get(const uint8_t *p, size_t width)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

static void sample_qp(struct rp_qp_addr *a)
{
	static const uint8_t gid[RP_GID_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7,
	};

	memset(a, 0, sizeof(*a));
	a->qpn = 0x123456;
	a->psn = 0xabcdef;
	a->lid = 0;
	a->mtu = 3;
	memcpy(a->gid, gid, sizeof(gid));
}

static void sample_hello(struct rp_hello *m)
{
	memset(m, 0, sizeof(*m));
	sample_qp(&m->qp);
	m->total = 0x0123456789abcdefull;
	m->chunk = 1 << 20;
	m->window = 16;
	m->flags = RP_HELLO_PRESERVE;
	m->op = RP_OP_READ;
}

static void sample_mr(struct rp_mr *m)
{
	memset(m, 0, sizeof(*m));
	sample_qp(&m->qp);
	m->qp.qpn = 0x000011;
	m->qp.psn = 0;
	m->addr = 0x00007f0012345000ull;
	m->rkey = 0xdeadbeef;
	m->chunk = 65536;
	m->window = 8;
	m->len = 65536ull * 8;
}

/* Distinct, in-range QPNs and PSNs for QPs 1..qps-1, the rest zero. */
static void sample_more(struct rp_qp_more *more, unsigned int qps)
{
	unsigned int i;

	memset(more, 0, (RP_QPS_MAX - 1) * sizeof(*more));
	for (i = 0; i + 1 < qps; i++) {
		more[i].qpn = 0x000100 + 0x10101 * i;
		more[i].psn = 0xfffff0 - 0x20202 * i;
	}
}

static void sample_hello_qps(struct rp_hello *m, unsigned int qps)
{
	sample_hello(m);
	m->qps = (uint8_t)qps;
	sample_more(m->more, qps);
}

static void sample_mr_qps(struct rp_mr *m, unsigned int qps)
{
	sample_mr(m);
	m->qps = (uint8_t)qps;
	sample_more(m->more, qps);
}

/* What a decoder must give for an encoder's qps: 0 is 1. */
static unsigned int wire_qps(unsigned int qps)
{
	return qps ? qps : 1;
}

/* A decoded list: the encoder's QPs 1..qps-1, and zero after them. */
static void assert_more_equal(const struct rp_qp_more *out,
			      const struct rp_qp_more *in, unsigned int qps)
{
	unsigned int i;

	for (i = 0; i < RP_QPS_MAX - 1; i++) {
		assert_int_equal(out[i].qpn, i + 1 < qps ? in[i].qpn : 0);
		assert_int_equal(out[i].psn, i + 1 < qps ? in[i].psn : 0);
	}
}

static void sample_fin(struct rp_fin *m)
{
	memset(m, 0, sizeof(*m));
	m->files = 0x0102030405060708ull;
	m->bytes = 0xfedcba9876543210ull;
}

/* A regular file "dir/f", or a directory "dir" when kind says so. */
static void sample_file(struct rp_file *m, uint8_t kind)
{
	memset(m, 0, sizeof(*m));
	m->id = 0x89abcdef;
	m->kind = kind;
	m->mode = kind == RP_FILE_DIR ? 0755 : 0644;
	m->size = kind == RP_FILE_DIR ? 0 : 0x0000012345678901ull;
	m->mtime_sec = 1795000000;
	m->mtime_nsec = 123456789;
	m->path_len = kind == RP_FILE_DIR ? 3 : 5;
	memcpy(m->path, "dir/f", m->path_len);
}

/* The longest path: RP_PATH_MAX bytes of "d/d/.../x". */
static void longest_path(struct rp_file *m)
{
	uint16_t i;

	for (i = 0; i < RP_PATH_MAX; i++)
		m->path[i] = i % 2 ? '/' : 'd';
	m->path[RP_PATH_MAX - 1] = 'x';
	m->path_len = RP_PATH_MAX;
}

static void sample_fend(struct rp_fend *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->id = 0x00c0ffee;
	m->bytes = 0xfedcba9876543210ull;
	for (i = 0; i < RP_CSUM_LEN; i++)
		m->csum[i] = (uint8_t)(0xa0 + i);
}

static void sample_result(struct rp_result *m)
{
	memset(m, 0, sizeof(*m));
	m->id = 0x0badf00d;
	m->status = RP_ST_NOSPACE;
	m->bytes = 42;
	m->text_len = 11;
	memcpy(m->text, "volume full", 11);
}

/* A regular file asking to resume and to compare digests (version 7). */
static void sample_file7(struct rp_file *m)
{
	size_t i;

	sample_file(m, RP_FILE_REG);
	m->want = RP_WANT_RESUME;
	m->update = RP_UPDATE_CHECKSUM;
	for (i = 0; i < RP_CSUM_LEN; i++)
		m->csum[i] = (uint8_t)(0x30 + i);
}

/* A partial HAVE (version 7). */
static void sample_have(struct rp_have *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->id = 0x01020304;
	m->verdict = RP_HAVE_PARTIAL;
	m->bytes = 3ull << 20;
	for (i = 0; i < RP_CSUM_LEN; i++)
		m->csum[i] = (uint8_t)(0xe0 + i);
}

/* A RECONNECT with qps fresh QPs, distinct and in range (version 7). */
static void sample_reconnect(struct rp_reconnect *m, unsigned int qps)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	m->attempt = 1;
	m->qps = (uint8_t)qps;
	m->next_chunk = 0x0102030405060708ull;
	for (i = 0; i < qps; i++) {
		m->qp[i].qpn = 0x000200 + 0x10101 * i;
		m->qp[i].psn = 0xffffe0 - 0x20202 * i;
	}
}

static void assert_qp_equal(const struct rp_qp_addr *a,
			    const struct rp_qp_addr *b)
{
	assert_int_equal(a->qpn, b->qpn);
	assert_int_equal(a->psn, b->psn);
	assert_int_equal(a->lid, b->lid);
	assert_int_equal(a->mtu, b->mtu);
	assert_memory_equal(a->gid, b->gid, RP_GID_LEN);
}

static void assert_file_equal(const struct rp_file *a, const struct rp_file *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->mode, b->mode);
	assert_true(a->size == b->size);
	assert_true(a->mtime_sec == b->mtime_sec);
	assert_int_equal(a->mtime_nsec, b->mtime_nsec);
	assert_int_equal(a->path_len, b->path_len);
	assert_memory_equal(a->path, b->path, a->path_len);
	assert_int_equal(a->want, b->want);
	assert_int_equal(a->update, b->update);
	assert_memory_equal(a->csum, b->csum, RP_CSUM_LEN);
}

/* Parse the header of a packed message and check its type and length. */
static void assert_hdr(const uint8_t *buf, int n, uint8_t type)
{
	struct rp_msg_hdr h;
	const char *why = NULL;

	assert_true(n > HDR);
	assert_int_equal(rp_proto_parse_hdr(buf, (size_t)n, &h, &why), 0);
	assert_null(why);
	assert_int_equal(h.version, RP_PROTO_VERSION);
	assert_int_equal(h.type, type);
	assert_int_equal(h.length, (uint32_t)n - HDR);
}

static int pack_hello(uint8_t *buf, const struct rp_hello *m)
{
	return rp_proto_pack_hello(buf, RP_PROTO_MAX_MSG, m);
}

static int pack_mr(uint8_t *buf, const struct rp_mr *m)
{
	return rp_proto_pack_mr(buf, RP_PROTO_MAX_MSG, m);
}

static int pack_file(uint8_t *buf, const struct rp_file *m)
{
	return rp_proto_pack_file(buf, RP_PROTO_MAX_MSG, m);
}

static int unpack_hello(const uint8_t *buf, int n, struct rp_hello *m,
			const char **why)
{
	return rp_proto_unpack_hello(buf + HDR, (size_t)n - HDR, m, why);
}

static int unpack_mr(const uint8_t *buf, int n, struct rp_mr *m,
		     const char **why)
{
	return rp_proto_unpack_mr(buf + HDR, (size_t)n - HDR, m, why);
}

static int unpack_file(const uint8_t *buf, int n, struct rp_file *m,
		       const char **why)
{
	return rp_proto_unpack_file(buf + HDR, (size_t)n - HDR, m, why);
}

static int unpack_result(const uint8_t *buf, int n, uint8_t type,
			 struct rp_result *m, const char **why)
{
	return rp_proto_unpack_result(buf + HDR, (size_t)n - HDR, type, m,
				      why);
}

/* ---- round trips ------------------------------------------------------ */

static void check_hello_roundtrip(const struct rp_hello *in)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello out;
	const char *why = NULL;
	int n;

	n = pack_hello(buf, in);
	assert_int_equal(n, HDR + HELLO_PLEN +
			    MORE_LEN * (wire_qps(in->qps) - 1));
	assert_hdr(buf, n, RP_MSG_HELLO);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_hello(buf, n, &out, &why), 0);
	assert_null(why);
	assert_qp_equal(&out.qp, &in->qp);
	assert_true(out.total == in->total);
	assert_int_equal(out.chunk, in->chunk);
	assert_int_equal(out.window, in->window);
	assert_int_equal(out.flags, in->flags);
	assert_int_equal(out.op, in->op);
	assert_int_equal(out.qps, wire_qps(in->qps));
	assert_more_equal(out.more, in->more, out.qps);
}

static void test_hello_roundtrip(void **state)
{
	struct rp_hello in;

	(void)state;
	sample_hello(&in);
	check_hello_roundtrip(&in);
	/* No flags; a stream of unknown size. */
	in.flags = 0;
	in.total = RP_SIZE_UNKNOWN;
	check_hello_roundtrip(&in);
	for (in.op = 0; in.op < RP_OP_MAX; in.op++)
		check_hello_roundtrip(&in);
}

static void check_mr_roundtrip(const struct rp_mr *in)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr out;
	const char *why = NULL;
	int n;

	n = pack_mr(buf, in);
	assert_int_equal(n, HDR + MR_PLEN + MORE_LEN * (wire_qps(in->qps) - 1));
	assert_hdr(buf, n, RP_MSG_MR);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_mr(buf, n, &out, &why), 0);
	assert_null(why);
	assert_qp_equal(&out.qp, &in->qp);
	assert_true(out.addr == in->addr);
	assert_int_equal(out.rkey, in->rkey);
	assert_true(out.len == in->len);
	assert_int_equal(out.chunk, in->chunk);
	assert_int_equal(out.window, in->window);
	assert_int_equal(out.qps, wire_qps(in->qps));
	assert_more_equal(out.more, in->more, out.qps);
}

/*
 * Version 6: every count of QPs, 0 (taken as 1) to RP_QPS_MAX, with the
 * extreme QPNs and PSNs in each slot of the list.
 */
static void test_qps_roundtrip(void **state)
{
	struct rp_hello h;
	struct rp_mr mr;
	unsigned int qps;
	unsigned int i;

	(void)state;
	for (qps = 0; qps <= RP_QPS_MAX; qps++) {
		sample_hello_qps(&h, qps);
		check_hello_roundtrip(&h);
		sample_mr_qps(&mr, qps);
		check_mr_roundtrip(&mr);
	}
	/* qps 0 or 1: the list is not read, whatever it holds. */
	for (qps = 0; qps <= 1; qps++) {
		sample_hello_qps(&h, qps);
		memset(h.more, 0xff, sizeof(h.more));
		check_hello_roundtrip(&h);
		sample_mr_qps(&mr, qps);
		memset(mr.more, 0xff, sizeof(mr.more));
		check_mr_roundtrip(&mr);
	}
	for (i = 0; i < RP_QPS_MAX - 1; i++) {
		sample_hello_qps(&h, RP_QPS_MAX);
		sample_mr_qps(&mr, RP_QPS_MAX);
		h.more[i].qpn = 1;
		h.more[i].psn = 0;
		mr.more[i].qpn = 0xffffff;
		mr.more[i].psn = 0xffffff;
		check_hello_roundtrip(&h);
		check_mr_roundtrip(&mr);
		/* Not distinct: the session's concern, not the codec's. */
		h.more[i].qpn = h.qp.qpn;
		mr.more[i].qpn = mr.more[(i + 1) % (RP_QPS_MAX - 1)].qpn;
		check_hello_roundtrip(&h);
		check_mr_roundtrip(&mr);
	}
}

/*
 * What one more set bit in the flags word of a one-QP HELLO (qps 1, bit
 * 16) means on the wire: bit 0 RP_HELLO_PRESERVE, bit 1 RP_HELLO_PING,
 * bit 2 RP_HELLO_CHAIN, bits 3..7 flags
 * that do not exist, bits 8 and 9 the ops read (1) and send (2), bits
 * 10..15 an op that does not exist; bit 16 is qps 1 already, bits 17
 * and 18 make it 3 and 5 with no QP list after the fixed part, bits
 * 19..23 make it 9 or more; bits 24..31 are malformed.
 */
static const char *hello_bit_refusal(unsigned int bit)
{
	if (bit <= 2 || bit == 8 || bit == 9 || bit == QPS_SHIFT)
		return NULL;
	if (bit < 8 || bit > 23)
		return "unknown flags";
	if (bit < 16)
		return "unknown op";
	return bit < 19 ? "truncated QP list" : "qps out of range";
}

static void test_hello_flags(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	struct rp_hello out;
	const char *why, *refusal;
	unsigned int bit;
	uint32_t word;
	int n;

	(void)state;
	assert_int_equal(RP_HELLO_FLAGS, RP_HELLO_PRESERVE | RP_HELLO_PING |
			 RP_HELLO_CHAIN);
	assert_int_equal(RP_HELLO_CHAIN, 0x4);
	for (bit = 0; bit < 32; bit++) {
		sample_hello(&h);
		n = pack_hello(buf, &h);
		assert_int_equal(n, HDR + HELLO_PLEN);
		word = 1u << QPS_SHIFT | 1u << bit;
		be_put(buf + HDR + OFF_H_FLAGS, 4, word);
		why = NULL;
		refusal = hello_bit_refusal(bit);
		if (!refusal) {
			assert_int_equal(unpack_hello(buf, n, &out, &why), 0);
			assert_int_equal(out.flags, bit < 8 ? 1u << bit : 0);
			assert_int_equal(out.op, bit >= 8 && bit < 16 ?
					 1u << (bit - 8) : 0);
			assert_int_equal(out.qps, 1);
			h.flags = out.flags;
			h.op = out.op;
			h.qps = out.qps;
			assert_int_equal(pack_hello(buf, &h), n);
			assert_int_equal(be_get(buf + HDR + OFF_H_FLAGS, 4),
					 word);
			continue;
		}
		assert_int_equal(unpack_hello(buf, n, &out, &why), RP_EPROTO);
		assert_string_equal(why, refusal);
	}
	/* The encoder refuses what the decoder would. */
	sample_hello(&h);
	h.flags = 0x8;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	sample_hello(&h);
	h.op = RP_OP_MAX;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	sample_hello(&h);
	h.qps = RP_QPS_MAX + 1;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	h.qps = 0xff;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	sample_hello(&h);
	n = pack_hello(buf, &h);
	be_put(buf + HDR + OFF_H_FLAGS, 4, 0xffffffff);
	assert_int_equal(unpack_hello(buf, n, &out, NULL), RP_EPROTO);
	/* Version 5's word, no qps: malformed, not one QP by default. */
	be_put(buf + HDR + OFF_H_FLAGS, 4, RP_OP_READ << 8 | RP_HELLO_PRESERVE);
	why = NULL;
	assert_int_equal(unpack_hello(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "qps out of range");
}

static void test_mr_roundtrip(void **state)
{
	struct rp_mr in;

	(void)state;
	sample_mr(&in);
	assert_int_equal(in.rkey, 0xdeadbeef);
	check_mr_roundtrip(&in);
	/* With op read and send, no peer may touch the ring. */
	in.addr = 0;
	in.rkey = 0;
	check_mr_roundtrip(&in);
}

static void check_file_roundtrip(const struct rp_file *in)
{
	static uint8_t buf[RP_PROTO_MAX_MSG];
	static struct rp_file out;
	const char *why = NULL;
	int n;

	n = pack_file(buf, in);
	assert_int_equal(n, HDR + FILE_FIXED + in->path_len + FILE_TAIL);
	assert_hdr(buf, n, RP_MSG_FILE);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_file(buf, n, &out, &why), 0);
	assert_null(why);
	assert_file_equal(&out, in);
	assert_int_equal(out.path[out.path_len], '\0');
}

static void test_file_roundtrip(void **state)
{
	static struct rp_file f;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	check_file_roundtrip(&f);
	sample_file(&f, RP_FILE_DIR);
	check_file_roundtrip(&f);

	/* The longest path, the largest mode and nanoseconds. */
	sample_file(&f, RP_FILE_REG);
	longest_path(&f);
	f.mode = 07777;
	f.mtime_nsec = 999999999;
	check_file_roundtrip(&f);
	sample_file(&f, RP_FILE_DIR);
	longest_path(&f);
	check_file_roundtrip(&f);

	/* Before 1970, and the extremes: mtime_sec is two's complement. */
	sample_file(&f, RP_FILE_REG);
	f.mtime_sec = -1;
	check_file_roundtrip(&f);
	f.mtime_sec = -86400 * 365 - 1;
	check_file_roundtrip(&f);
	f.mtime_sec = INT64_MIN;
	check_file_roundtrip(&f);
	f.mtime_sec = INT64_MAX;
	check_file_roundtrip(&f);

	/* A stream: its size known only at its FEND. */
	f.size = RP_SIZE_UNKNOWN;
	check_file_roundtrip(&f);
	f.size = 0;
	f.mode = 0;
	f.mtime_sec = 0;
	f.mtime_nsec = 0;
	f.id = UINT32_MAX;
	check_file_roundtrip(&f);
}

static void test_fend_roundtrip(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fend in;
	struct rp_fend out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_fend(&in);
	n = rp_proto_pack_fend(buf, sizeof(buf), &in);
	assert_int_equal(n, HDR + FEND_PLEN);
	assert_hdr(buf, n, RP_MSG_FEND);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(rp_proto_unpack_fend(buf + HDR, FEND_PLEN, &out,
					      &why), 0);
	assert_null(why);
	assert_int_equal(out.id, in.id);
	assert_true(out.bytes == in.bytes);
	assert_memory_equal(out.csum, in.csum, RP_CSUM_LEN);
}

/* AUTH: 65 bytes, step 1..3, every truncation and a trailing byte refused. */
static void test_auth(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_auth in = { .step = RP_AUTH_PROVE };
	struct rp_auth out;
	const char *why = NULL;
	int n;

	(void)state;
	for (int i = 0; i < RP_AUTH_NONCE_LEN; i++) {
		in.nonce[i] = (uint8_t)i;
		in.mac[i] = (uint8_t)(0xff - i);
	}
	n = rp_proto_pack_auth(buf, sizeof(buf), &in);
	assert_int_equal(n, HDR + 65);
	assert_hdr(buf, n, RP_MSG_AUTH);
	assert_int_equal(buf[HDR], RP_AUTH_PROVE);
	assert_int_equal(buf[HDR + 1], 0);
	assert_int_equal(buf[HDR + 33], 0xff);
	assert_int_equal(rp_proto_unpack_auth(buf + HDR, 65, &out, &why), 0);
	assert_int_equal(out.step, in.step);
	assert_memory_equal(out.nonce, in.nonce, RP_AUTH_NONCE_LEN);
	assert_memory_equal(out.mac, in.mac, RP_AUTH_MAC_LEN);
	for (size_t len = 0; len < 65; len++)
		assert_int_equal(rp_proto_unpack_auth(buf + HDR, len, &out,
						      NULL), RP_EPROTO);
	assert_int_equal(rp_proto_unpack_auth(buf + HDR, 66, &out, NULL),
			 RP_EPROTO);
	buf[HDR] = 0;
	assert_int_equal(rp_proto_unpack_auth(buf + HDR, 65, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "auth step out of range");
	buf[HDR] = 4;
	assert_int_equal(rp_proto_unpack_auth(buf + HDR, 65, &out, NULL),
			 RP_EPROTO);
	in.step = 4;
	assert_int_equal(rp_proto_pack_auth(buf, sizeof(buf), &in), RP_EPROTO);
	in.step = RP_AUTH_CHALLENGE;
	assert_int_equal(rp_proto_pack_auth(buf, HDR + 64, &in), -ENOBUFS);
	assert_string_equal(rp_proto_type_name(RP_MSG_AUTH), "AUTH");
}

/*
 * SYNC: 20 bytes, the file's id then synced <= total; every truncation
 * and a trailing byte refused, both boundaries exact.
 */
static void test_sync(void **state)
{
	static const uint8_t wire[] = { 0x01, 0x02, 0x03, 0x04,
					0, 0, 0, 0, 0, 0xc0, 0, 0,
					0, 0, 0, 0, 0x10, 0, 0, 0 };
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_sync in = { .id = 0x01020304, .synced_bytes = 12u << 20,
			      .total_bytes = 256u << 20 };
	struct rp_sync out;
	const char *why = NULL;
	int n;

	(void)state;
	n = rp_proto_pack_sync(buf, sizeof(buf), &in);
	assert_int_equal(n, HDR + SYNC_PLEN);
	assert_hdr(buf, n, RP_MSG_SYNC);
	assert_memory_equal(buf + HDR, wire, sizeof(wire));
	assert_int_equal(rp_proto_unpack_sync(buf + HDR, SYNC_PLEN, &out,
					      &why), 0);
	assert_int_equal(out.id, in.id);
	assert_true(out.synced_bytes == in.synced_bytes);
	assert_true(out.total_bytes == in.total_bytes);
	for (size_t len = 0; len < SYNC_PLEN; len++)
		assert_int_equal(rp_proto_unpack_sync(buf + HDR, len, &out,
						      NULL), RP_EPROTO);
	assert_int_equal(rp_proto_unpack_sync(buf + HDR, SYNC_PLEN + 1, &out,
					      NULL), RP_EPROTO);
	/* All synced, at the largest size: fine. One above: refused. */
	in.synced_bytes = in.total_bytes = UINT64_MAX;
	n = rp_proto_pack_sync(buf, sizeof(buf), &in);
	assert_int_equal(n, HDR + SYNC_PLEN);
	assert_int_equal(rp_proto_unpack_sync(buf + HDR, SYNC_PLEN, &out,
					      NULL), 0);
	buf[HDR + SYNC_PLEN - 1] = 0xfe;
	why = NULL;
	assert_int_equal(rp_proto_unpack_sync(buf + HDR, SYNC_PLEN, &out,
					      &why), RP_EPROTO);
	assert_string_equal(why, "synced bytes above total");
	in.total_bytes = UINT64_MAX - 1;
	assert_int_equal(rp_proto_pack_sync(buf, sizeof(buf), &in), RP_EPROTO);
	in.synced_bytes = 0;
	assert_int_equal(rp_proto_pack_sync(buf, HDR + SYNC_PLEN - 1, &in),
			 -ENOBUFS);
	assert_string_equal(rp_proto_type_name(RP_MSG_SYNC), "SYNC");
}

static void test_fin_roundtrip(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fin in;
	struct rp_fin out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_fin(&in);
	n = rp_proto_pack_fin(buf, sizeof(buf), &in);
	assert_int_equal(n, HDR + FIN_PLEN);
	assert_hdr(buf, n, RP_MSG_FIN);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(rp_proto_unpack_fin(buf + HDR, FIN_PLEN, &out, &why),
			 0);
	assert_null(why);
	assert_true(out.files == in.files);
	assert_true(out.bytes == in.bytes);
}

/* ACK, ERR and FACK: FACK is the same after its id. */
static void check_result_roundtrip(uint8_t type, const struct rp_result *in)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	size_t id_len = type == RP_MSG_FACK ? FACK_ID_LEN : 0;
	struct rp_result out;
	const char *why = NULL;
	int n;

	n = rp_proto_pack_result(buf, sizeof(buf), type, in);
	assert_int_equal(n, HDR + id_len + 12 + in->text_len);
	assert_hdr(buf, n, type);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_result(buf, n, type, &out, &why), 0);
	assert_null(why);
	if (type == RP_MSG_FACK)
		assert_int_equal(out.id, in->id);
	else
		assert_int_equal(out.id, 0);
	assert_int_equal(out.status, in->status);
	assert_true(out.bytes == in->bytes);
	assert_int_equal(out.text_len, in->text_len);
	assert_memory_equal(out.text, in->text, in->text_len);
	assert_int_equal(out.text[out.text_len], '\0');
}

static void test_result_roundtrip(void **state)
{
	struct rp_result r;

	(void)state;
	sample_result(&r);
	check_result_roundtrip(RP_MSG_ERR, &r);
	check_result_roundtrip(RP_MSG_ACK, &r);
	check_result_roundtrip(RP_MSG_FACK, &r);
	/* The usual ACK and FACK: success, no text. */
	memset(&r, 0, sizeof(r));
	r.status = RP_ST_OK;
	r.bytes = UINT64_MAX;
	check_result_roundtrip(RP_MSG_ACK, &r);
	r.id = UINT32_MAX;
	check_result_roundtrip(RP_MSG_FACK, &r);
	/* The longest text, in a FACK too. */
	r.text_len = RP_TEXT_MAX;
	memset(r.text, 't', RP_TEXT_MAX);
	check_result_roundtrip(RP_MSG_FACK, &r);
}

static void test_pack_result_bad_type(void **state)
{
	static const uint8_t bad[] = {
		0, RP_MSG_HELLO, RP_MSG_MR, RP_MSG_FIN, RP_MSG_AUTH,
		RP_MSG_SYNC, RP_MSG_FILE, RP_MSG_FEND, RP_MSG_TYPE_MAX, 0xff,
	};
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result r;
	size_t i;

	(void)state;
	sample_result(&r);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), bad[i],
						      &r), RP_EPROTO);
}

/* ---- golden bytes: the wire format must not drift ---------------------- */

/*
 * tests/e2e/wire_layout.sh reads the golden_* arrays here and compares
 * them with what tests/e2e/wire.py encodes from the same fields: keep
 * hex numbers out of their comments.
 */
static const uint8_t golden_hello[] = {
	0x52, 0x44, 0x50, 0x55,		/* magic "RDPU" */
	0x07,				/* version */
	0x01,				/* type HELLO */
	0x00, 0x00,			/* reserved */
	0x00, 0x00, 0x00, 0x30,		/* length 48 */
	0x00, 0xab, 0xcd, 0xef,		/* qpn */
	0x00, 0x12, 0x34, 0x56,		/* psn */
	0x00, 0x00,			/* lid */
	0x05,				/* mtu 4096 */
	0x00,				/* reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gid */
	0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x02,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,	/* total */
	0x00, 0x10, 0x00, 0x00,		/* chunk 1 MiB */
	0x00, 0x00, 0x00, 0x10,		/* window 16 */
	0x00, 0x01, 0x01, 0x01,		/* qps 1 | op read | preserve */
};

/* The same HELLO with qps 3: two QPs more, at the edges of the range. */
static const uint8_t golden_hello3[] = {
	0x52, 0x44, 0x50, 0x55, 0x07, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x40,		/* length 64 */
	0x00, 0xab, 0xcd, 0xef,		/* QP 0: qpn */
	0x00, 0x12, 0x34, 0x56,		/* psn */
	0x00, 0x00, 0x05, 0x00,		/* lid, mtu 4096, reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gid */
	0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x02,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,	/* total */
	0x00, 0x10, 0x00, 0x00,		/* chunk 1 MiB */
	0x00, 0x00, 0x00, 0x10,		/* window 16 */
	0x00, 0x03, 0x01, 0x01,		/* qps 3 | op read | preserve */
	0x00, 0x00, 0x01, 0x02,		/* QP 1: qpn 258 */
	0x00, 0xff, 0xff, 0xff,		/* psn 2^24 - 1 */
	0x00, 0xff, 0xff, 0xff,		/* QP 2: qpn 2^24 - 1 */
	0x00, 0x00, 0x00, 0x00,		/* psn 0 */
};

static void golden_hello_msg(struct rp_hello *m)
{
	static const uint8_t gid[RP_GID_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2,
	};

	memset(m, 0, sizeof(*m));
	m->qp.qpn = 0xabcdef;
	m->qp.psn = 0x123456;
	m->qp.lid = 0;
	m->qp.mtu = 5;
	memcpy(m->qp.gid, gid, sizeof(gid));
	m->total = 0x100000002ull;
	m->chunk = 0x100000;
	m->window = 16;
	m->flags = RP_HELLO_PRESERVE;
	m->op = RP_OP_READ;
	m->qps = 1;
}

static void golden_hello3_msg(struct rp_hello *m)
{
	golden_hello_msg(m);
	m->qps = 3;
	m->more[0].qpn = 258;
	m->more[0].psn = 0xffffff;
	m->more[1].qpn = 0xffffff;
	m->more[1].psn = 0;
}

static void check_golden_hello(const uint8_t *gold, size_t len,
			       const struct rp_hello *m)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello out;

	assert_int_equal(pack_hello(buf, m), len);
	assert_memory_equal(buf, gold, len);

	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_hello(gold, (int)len, &out, NULL), 0);
	assert_qp_equal(&out.qp, &m->qp);
	assert_true(out.total == 0x100000002ull);
	assert_int_equal(out.chunk, 0x100000);
	assert_int_equal(out.window, 16);
	assert_int_equal(out.flags, RP_HELLO_PRESERVE);
	assert_int_equal(out.op, RP_OP_READ);
	assert_int_equal(out.qps, wire_qps(m->qps));
	assert_more_equal(out.more, m->more, out.qps);
}

static void test_golden_hello(void **state)
{
	struct rp_hello m;

	(void)state;
	golden_hello_msg(&m);
	check_golden_hello(golden_hello, sizeof(golden_hello), &m);
	/* An encoder takes qps 0 as 1. */
	m.qps = 0;
	check_golden_hello(golden_hello, sizeof(golden_hello), &m);
	golden_hello3_msg(&m);
	check_golden_hello(golden_hello3, sizeof(golden_hello3), &m);
}

static const uint8_t golden_mr[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x02,				/* type MR */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x38,		/* length 56 */
	0x00, 0x00, 0x00, 0x11,		/* qpn */
	0x00, 0x00, 0xab, 0xcd,		/* psn */
	0x00, 0x07,			/* lid 7 (InfiniBand: no gid needed) */
	0x04,				/* mtu 2048 */
	0x00,				/* reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gid */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x00,	/* addr */
	0xde, 0xad, 0xbe, 0xef,		/* rkey */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,	/* len 512 KiB */
	0x00, 0x01, 0x00, 0x00,		/* chunk 64 KiB */
	0x00, 0x00, 0x00, 0x08,		/* window 8 */
};

/* The same MR with qps 3: its length says so. */
static const uint8_t golden_mr3[] = {
	0x52, 0x44, 0x50, 0x55, 0x07, 0x02, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x48,		/* length 72 */
	0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0xab, 0xcd,	/* QP 0 */
	0x00, 0x07, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x00,	/* addr */
	0xde, 0xad, 0xbe, 0xef,		/* rkey */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,	/* len */
	0x00, 0x01, 0x00, 0x00,		/* chunk */
	0x00, 0x00, 0x00, 0x08,		/* window */
	0x00, 0x00, 0x00, 0x12,		/* QP 1: qpn */
	0x00, 0x00, 0x00, 0x01,		/* psn */
	0x00, 0x00, 0x00, 0x13,		/* QP 2: qpn */
	0x00, 0x12, 0x34, 0x56,		/* psn */
};

static void golden_mr_msg(struct rp_mr *m, unsigned int qps)
{
	memset(m, 0, sizeof(*m));
	m->qp.qpn = 0x11;
	m->qp.psn = 0xabcd;
	m->qp.lid = 7;
	m->qp.mtu = 4;
	m->addr = 0x7f0012345000ull;
	m->rkey = 0xdeadbeef;
	m->len = 0x80000;
	m->chunk = 0x10000;
	m->window = 8;
	m->qps = (uint8_t)qps;
	if (qps == 3) {
		m->more[0].qpn = 0x12;
		m->more[0].psn = 1;
		m->more[1].qpn = 0x13;
		m->more[1].psn = 0x123456;
	}
}

static void check_golden_mr(const uint8_t *gold, size_t len,
			    const struct rp_mr *m)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr out;

	assert_int_equal(pack_mr(buf, m), len);
	assert_memory_equal(buf, gold, len);

	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_mr(gold, (int)len, &out, NULL), 0);
	assert_qp_equal(&out.qp, &m->qp);
	assert_true(out.addr == 0x7f0012345000ull);
	assert_int_equal(out.rkey, 0xdeadbeef);
	assert_true(out.len == 0x80000);
	assert_int_equal(out.chunk, 0x10000);
	assert_int_equal(out.window, 8);
	assert_int_equal(out.qps, wire_qps(m->qps));
	assert_more_equal(out.more, m->more, out.qps);
}

static void test_golden_mr(void **state)
{
	struct rp_mr m;

	(void)state;
	golden_mr_msg(&m, 1);
	check_golden_mr(golden_mr, sizeof(golden_mr), &m);
	golden_mr_msg(&m, 0);
	check_golden_mr(golden_mr, sizeof(golden_mr), &m);
	golden_mr_msg(&m, 3);
	check_golden_mr(golden_mr3, sizeof(golden_mr3), &m);
}

static const uint8_t golden_file[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x08,				/* type FILE */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x35,		/* length 53 */
	0x00, 0x00, 0x00, 0x07,		/* id */
	0x01,				/* kind: regular */
	0x00,				/* reserved */
	0x01, 0xa4,			/* mode 0644 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,	/* size 4096 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* mtime -1 s */
	0x3b, 0x9a, 0xc9, 0xff,		/* mtime_nsec 999999999 */
	0x00, 0x05,			/* path_len */
	'd', '/', 'a', '.', 'b',	/* path */
	0x00,				/* want: none */
	0x00,				/* update: none */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* csum: zero */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* The same FILE asking to resume, or to be sent only if its digest
 * differs (version 7). */
static const uint8_t golden_file7[] = {
	0x52, 0x44, 0x50, 0x55, 0x07, 0x08, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x35,		/* length 53 */
	0x00, 0x00, 0x00, 0x07, 0x01, 0x00, 0x01, 0xa4,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x3b, 0x9a, 0xc9, 0xff, 0x00, 0x05,
	'd', '/', 'a', '.', 'b',
	0x01,				/* want: resume */
	0x04,				/* update: checksum */
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,	/* csum */
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
};

static void test_golden_file(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_file m;
	struct rp_file out;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.id = 7;
	m.kind = RP_FILE_REG;
	m.mode = 0644;
	m.size = 4096;
	m.mtime_sec = -1;
	m.mtime_nsec = 999999999;
	m.path_len = 5;
	memcpy(m.path, "d/a.b", 5);
	assert_int_equal(pack_file(buf, &m), sizeof(golden_file));
	assert_memory_equal(buf, golden_file, sizeof(golden_file));
	assert_int_equal(unpack_file(golden_file, sizeof(golden_file), &out,
				     NULL), 0);
	assert_file_equal(&out, &m);
	assert_string_equal(out.path, "d/a.b");

	m.want = RP_WANT_RESUME;
	m.update = RP_UPDATE_CHECKSUM;
	for (size_t i = 0; i < RP_CSUM_LEN; i++)
		m.csum[i] = (uint8_t)(0xc0 + i);
	assert_int_equal(pack_file(buf, &m), sizeof(golden_file7));
	assert_memory_equal(buf, golden_file7, sizeof(golden_file7));
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(unpack_file(golden_file7, sizeof(golden_file7), &out,
				     NULL), 0);
	assert_file_equal(&out, &m);
	assert_string_equal(out.path, "d/a.b");
}

/* Version 7: HAVE, FROM and RECONNECT. */
static const uint8_t golden_have[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0b,				/* type HAVE */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x20,		/* length 32 */
	0x00, 0x00, 0x01, 0x02,		/* id 258 */
	0x02,				/* verdict: partial */
	0x00, 0x00, 0x00,		/* reserved */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,	/* bytes 4 GiB */
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,	/* csum */
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
};

static const uint8_t golden_from[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0c,				/* type FROM */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x10,		/* length 16 */
	0x00, 0x00, 0x01, 0x02,		/* id 258 */
	0x00, 0x00, 0x00, 0x00,		/* reserved */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,	/* offset 4 GiB */
};

static const uint8_t golden_reconnect[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0d,				/* type RECONNECT */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x28,		/* length 40 */
	0x00, 0x00, 0x00, 0x02,		/* attempt 2 */
	0x03,				/* qps 3 */
	0x00, 0x00, 0x00,		/* reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x45,	/* next_chunk */
	0x00, 0x00, 0x00, 0x21,		/* QP 0: qpn */
	0x00, 0xab, 0xcd, 0xef,		/* psn */
	0x00, 0xff, 0xff, 0xff,		/* QP 1: qpn 2^24 - 1 */
	0x00, 0x00, 0x00, 0x00,		/* psn 0 */
	0x00, 0x00, 0x00, 0x01,		/* QP 2: qpn 1 */
	0x00, 0xff, 0xff, 0xff,		/* psn 2^24 - 1 */
};

static void golden_have_msg(struct rp_have *m)
{
	memset(m, 0, sizeof(*m));
	m->id = 258;
	m->verdict = RP_HAVE_PARTIAL;
	m->bytes = 1ull << 32;
	for (size_t i = 0; i < RP_CSUM_LEN; i++)
		m->csum[i] = (uint8_t)(0xd0 + i);
}

static void golden_reconnect_msg(struct rp_reconnect *m)
{
	memset(m, 0, sizeof(*m));
	m->attempt = 2;
	m->qps = 3;
	m->next_chunk = 0x12345;
	m->qp[0].qpn = 0x21;
	m->qp[0].psn = 0xabcdef;
	m->qp[1].qpn = 0xffffff;
	m->qp[1].psn = 0;
	m->qp[2].qpn = 1;
	m->qp[2].psn = 0xffffff;
}

static void test_golden_v7(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_have h, ho;
	struct rp_from f = { .id = 258, .offset = 1ull << 32 }, fo;
	struct rp_reconnect r, ro;

	(void)state;
	golden_have_msg(&h);
	assert_int_equal(rp_proto_pack_have(buf, sizeof(buf), &h),
			 sizeof(golden_have));
	assert_memory_equal(buf, golden_have, sizeof(golden_have));
	memset(&ho, 0x5a, sizeof(ho));
	assert_int_equal(rp_proto_unpack_have(golden_have + HDR,
					      sizeof(golden_have) - HDR, &ho,
					      NULL), 0);
	assert_int_equal(ho.id, 258);
	assert_int_equal(ho.verdict, RP_HAVE_PARTIAL);
	assert_true(ho.bytes == 1ull << 32);
	assert_memory_equal(ho.csum, h.csum, RP_CSUM_LEN);

	assert_int_equal(rp_proto_pack_from(buf, sizeof(buf), &f),
			 sizeof(golden_from));
	assert_memory_equal(buf, golden_from, sizeof(golden_from));
	memset(&fo, 0x5a, sizeof(fo));
	assert_int_equal(rp_proto_unpack_from(golden_from + HDR,
					      sizeof(golden_from) - HDR, &fo,
					      NULL), 0);
	assert_int_equal(fo.id, 258);
	assert_true(fo.offset == 1ull << 32);

	golden_reconnect_msg(&r);
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 sizeof(golden_reconnect));
	assert_memory_equal(buf, golden_reconnect, sizeof(golden_reconnect));
	memset(&ro, 0x5a, sizeof(ro));
	assert_int_equal(rp_proto_unpack_reconnect(golden_reconnect + HDR,
						   sizeof(golden_reconnect) -
						   HDR, &ro, NULL), 0);
	assert_int_equal(ro.attempt, 2);
	assert_int_equal(ro.qps, 3);
	assert_true(ro.next_chunk == 0x12345);
	for (unsigned int i = 0; i < RP_QPS_MAX; i++) {
		assert_int_equal(ro.qp[i].qpn, i < 3 ? r.qp[i].qpn : 0);
		assert_int_equal(ro.qp[i].psn, i < 3 ? r.qp[i].psn : 0);
	}
}

/* Chain push: CHAIN, the hops after the receiver. */
static const uint8_t golden_chain[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0e,				/* type CHAIN */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x1a,		/* length 26 */
	0x00, 0x02,			/* count 2 */
	0x48, 0x38,			/* hop 0: port 18488 */
	0x06,				/* name_len 6 */
	'n', 'o', 'd', 'e', '0', '2',
	0x00, 0x01,			/* hop 1: port 1 */
	0x0c,				/* name_len 12 */
	'f', 'e', '8', '0', ':', ':', '1', '%', 'e', 't', 'h', '0',
};

static void test_golden_chain(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_host hop[2], out[2];
	struct rp_chain_msg m = { .n = 2, .hop = hop };
	static struct rp_chain_msg o;

	(void)state;
	memset(hop, 0, sizeof(hop));
	snprintf(hop[0].name, sizeof(hop[0].name), "node02");
	hop[0].port = 18488;
	snprintf(hop[1].name, sizeof(hop[1].name), "fe80::1%%eth0");
	hop[1].port = 1;
	hop[1].ipv6 = true;
	assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &m),
			 sizeof(golden_chain));
	assert_memory_equal(buf, golden_chain, sizeof(golden_chain));
	memset(&o, 0x5a, sizeof(o));
	assert_int_equal(rp_proto_unpack_chain(golden_chain + HDR,
					       sizeof(golden_chain) - HDR, &o,
					       NULL), 0);
	assert_int_equal(o.n, 2);
	assert_null(o.hop);
	assert_string_equal(o.first.name, "node02");
	assert_int_equal(o.first.port, 18488);
	assert_false(o.first.ipv6);
	memset(out, 0x5a, sizeof(out));
	rp_proto_chain_hops(&o, out);
	assert_string_equal(out[0].name, "node02");
	assert_int_equal(out[0].port, 18488);
	assert_false(out[0].ipv6);
	assert_string_equal(out[1].name, "fe80::1%eth0");
	assert_int_equal(out[1].port, 1);
	assert_true(out[1].ipv6);
	/* Decoded, it encodes again as it came; not with a count that
	 * disagrees with its bytes. */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &o),
			 sizeof(golden_chain));
	assert_memory_equal(buf, golden_chain, sizeof(golden_chain));
	o.n = 1;
	assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &o),
			 RP_EPROTO);
}

/* HOST: a later host's result, from a relay. */
static const uint8_t golden_host[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0f,				/* type HOST */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x1f,		/* length 31 */
	0x01, 0x02,			/* hop 258 */
	0x01,				/* status EXISTS */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,	/* files 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* failed 1 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,	/* bytes 2^32 */
	0x00, 0x02,			/* text_len */
	'n', 'o',
};

static void sample_host(struct rp_host_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->hop = 258;
	m->status = RP_ST_EXISTS;
	m->files = 3;
	m->failed = 1;
	m->bytes = 1ull << 32;
	m->text_len = 2;
	memcpy(m->text, "no", 2);
}

static void test_golden_host(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_host_msg m, o;

	(void)state;
	sample_host(&m);
	assert_int_equal(rp_proto_pack_host(buf, sizeof(buf), &m),
			 sizeof(golden_host));
	assert_memory_equal(buf, golden_host, sizeof(golden_host));
	memset(&o, 0x5a, sizeof(o));
	assert_int_equal(rp_proto_unpack_host(golden_host + HDR,
					      sizeof(golden_host) - HDR, &o,
					      NULL), 0);
	assert_int_equal(o.hop, 258);
	assert_int_equal(o.status, RP_ST_EXISTS);
	assert_true(o.files == 3 && o.failed == 1 && o.bytes == 1ull << 32);
	assert_int_equal(o.text_len, 2);
	assert_string_equal(o.text, "no");
}

/* Each field of HOST out of range: refused by the decoder with its
 * reason, and by the encoder. */
static void test_host_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG], p[64 + RP_TEXT_MAX];
	struct rp_host_msg m, o;
	const char *why;
	size_t n = sizeof(golden_host) - HDR;

	(void)state;
	sample_host(&m);
	m.hop = 0;
	assert_int_equal(rp_proto_pack_host(buf, sizeof(buf), &m), RP_EPROTO);
	sample_host(&m);
	m.status = RP_ST_MAX;
	assert_int_equal(rp_proto_pack_host(buf, sizeof(buf), &m), RP_EPROTO);
	sample_host(&m);
	m.text_len = RP_TEXT_MAX + 1;
	assert_int_equal(rp_proto_pack_host(buf, sizeof(buf), &m), RP_EPROTO);
	/* The longest text goes. */
	sample_host(&m);
	m.text_len = RP_TEXT_MAX;
	memset(m.text, 'x', RP_TEXT_MAX);
	assert_true(rp_proto_pack_host(buf, sizeof(buf), &m) > 0);
	assert_int_equal(rp_proto_unpack_host(buf + HDR, 29 + RP_TEXT_MAX, &o,
					      NULL), 0);
	assert_int_equal(o.text_len, RP_TEXT_MAX);

	memcpy(p, golden_host + HDR, n);
	p[0] = p[1] = 0;
	why = NULL;
	assert_int_equal(rp_proto_unpack_host(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "hop 0");
	memcpy(p, golden_host + HDR, n);
	p[2] = RP_ST_MAX;
	assert_int_equal(rp_proto_unpack_host(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "status out of range");
	memcpy(p, golden_host + HDR, n);
	p[27] = 0x01;	/* text_len 258 */
	assert_int_equal(rp_proto_unpack_host(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "text length out of range");
	memcpy(p, golden_host + HDR, n);
	p[28] = 3;
	assert_int_equal(rp_proto_unpack_host(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "text longer than payload");
	assert_int_equal(rp_proto_unpack_host(golden_host + HDR, 28, &o, &why),
			 RP_EPROTO);
	assert_string_equal(why, "truncated HOST");
	memcpy(p, golden_host + HDR, n);
	p[n] = 0;
	assert_int_equal(rp_proto_unpack_host(p, n + 1, &o, &why), RP_EPROTO);
	assert_string_equal(why, "trailing bytes");
}

/* A CHAIN payload of one hop: port, then name as given. */
static size_t chain1(uint8_t *p, uint16_t port, const char *name, size_t n)
{
	be_put(p, 2, 1);
	be_put(p + 2, 2, port);
	p[4] = (uint8_t)n;
	memcpy(p + 5, name, n);
	return 5 + n;
}

/* Each field of CHAIN out of range: refused by the decoder with its
 * reason, and by the encoder. */
static void test_chain_bounds(void **state)
{
	static const struct {
		const char *name;
		uint16_t port;
		const char *why;	/* NULL: fine */
	} cases[] = {
		{ "a", 1, NULL },
		{ "Node-1.example_x", 65535, NULL },
		{ "10.0.0.2", 18500, NULL },
		{ "::1", 7, NULL },
		{ "fe80::1%eth0", 7, NULL },
		{ "a", 0, "hop port 0" },
		{ "", 7, "hop name length out of range" },
		{ "a b", 7, "hop name has a character a host name cannot" },
		{ "a\x1b", 7, "hop name has a character a host name cannot" },
		{ "[::1]", 7, "hop address has a character an IPv6 address "
			      "cannot" },
		{ "h:22", 7, "hop address has a character an IPv6 address "
			     "cannot" },
		{ "1:2", 7, "hop name has a ':' but is no IPv6 address" },
		{ "::1::2", 7, "hop name has a ':' but is no IPv6 address" },
		{ "fe80::1%", 7, "hop address has an empty zone" },
		{ "fe80::1%e/0", 7, "hop address zone has a character a name "
				    "cannot" },
	};
	static uint8_t p[RP_PROTO_MAX_PAYLOAD + 8];
	static uint8_t buf[RP_PROTO_MAX_MSG];
	static struct rp_host many[RP_PROTO_MAX_PAYLOAD / 4];
	static struct rp_chain_msg o;
	struct rp_host h;
	struct rp_chain_msg m = { .n = 1, .hop = &h };
	const char *why;
	size_t n, fit;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = chain1(p, cases[i].port, cases[i].name,
			   strlen(cases[i].name));
		why = NULL;
		memset(&h, 0, sizeof(h));
		snprintf(h.name, sizeof(h.name), "%s", cases[i].name);
		h.port = cases[i].port;
		if (!cases[i].why) {
			assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why),
					 0);
			assert_string_equal(o.first.name, cases[i].name);
			assert_int_equal(o.first.port, cases[i].port);
			assert_int_equal(o.first.ipv6,
					 strchr(cases[i].name, ':') != NULL);
			assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf),
							     &m),
					 (int)(HDR + n));
			assert_memory_equal(buf + HDR, p, n);
			continue;
		}
		assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why),
				 RP_EPROTO);
		assert_string_equal(why, cases[i].why);
		assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &m),
				 RP_EPROTO);
	}
	/* A NUL inside a name, or inside an address (inet_pton() would
	 * stop there and take the rest for nothing). */
	n = chain1(p, 7, "a\0b", 3);
	assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why), RP_EPROTO);
	n = chain1(p, 7, "fe80::1\0th0", 11);
	assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "hop address has a character an IPv6 "
			    "address cannot");
	/* No hop, or fewer hops than counted, or more. */
	be_put(p, 2, 0);
	assert_int_equal(rp_proto_unpack_chain(p, 2, &o, &why), RP_EPROTO);
	assert_string_equal(why, "CHAIN with no hop");
	m.n = 0;
	assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &m),
			 RP_EPROTO);
	n = chain1(p, 7, "a", 1);
	be_put(p, 2, 2);
	assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "truncated hop");
	be_put(p, 2, 1);
	p[n] = 0;
	assert_int_equal(rp_proto_unpack_chain(p, n + 1, &o, &why),
			 RP_EPROTO);
	assert_string_equal(why, "trailing bytes");
	/* A name_len past the payload. */
	n = chain1(p, 7, "abc", 3);
	p[4] = 4;
	assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why), RP_EPROTO);
	assert_string_equal(why, "hop name longer than payload");

	/*
	 * The length cap: hosts of 255-byte names, 258 bytes each; after
	 * the count, as many as leave the tag its room, and no more.
	 */
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++) {
		memset(many[i].name, 'a', RP_HOST_NAME_MAX);
		snprintf(many[i].name + RP_HOST_NAME_MAX - 5, 6, "%05zu", i);
		many[i].port = 9;
	}
	fit = rp_proto_chain_fit(many, 100);
	assert_int_equal(fit, (RP_PROTO_MAX_PAYLOAD - RP_PROTO_TAG_ROOM - 2) /
			 (3 + RP_HOST_NAME_MAX));
	assert_int_equal(rp_proto_chain_fit(many, fit), fit);
	assert_int_equal(rp_proto_chain_fit(many, 3), 3);
	assert_int_equal(rp_proto_chain_fit(many, 0), 0);
	m.hop = many;
	m.n = (uint16_t)fit;
	n = (size_t)rp_proto_pack_chain(buf, sizeof(buf), &m);
	assert_true(n > HDR);
	assert_true(n - HDR + RP_PROTO_TAG_ROOM <= RP_PROTO_MAX_PAYLOAD);
	assert_int_equal(rp_proto_unpack_chain(buf + HDR, n - HDR, &o, &why),
			 0);
	assert_int_equal(o.n, fit);
	m.n = (uint16_t)(fit + 1);
	assert_int_equal(rp_proto_pack_chain(buf, sizeof(buf), &m),
			 RP_EPROTO);
	/* At the cap exactly, then one byte over: one more hop, its name
	 * as long as the room left, then a byte longer. */
	for (size_t extra = 0; extra < 2; extra++) {
		size_t room, k;

		n = (size_t)rp_proto_pack_chain(buf, sizeof(buf),
						&(struct rp_chain_msg){
							.n = (uint16_t)fit,
							.hop = many });
		n -= HDR;
		memcpy(p, buf + HDR, n);
		room = RP_PROTO_MAX_PAYLOAD - RP_PROTO_TAG_ROOM - n;
		k = room - 3 + extra;
		assert_true(k >= 1 && k <= RP_HOST_NAME_MAX);
		be_put(p, 2, fit + 1);
		be_put(p + n, 2, 9);
		p[n + 2] = (uint8_t)k;
		memset(p + n + 3, 'b', k);
		n += 3 + k;
		why = NULL;
		if (!extra) {
			assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why),
					 0);
			continue;
		}
		assert_int_equal(rp_proto_unpack_chain(p, n, &o, &why),
				 RP_EPROTO);
		assert_string_equal(why, "CHAIN longer than one message and "
				    "its tag");
	}
	/* A hop that cannot go is where the fit stops. */
	many[2].port = 0;
	assert_int_equal(rp_proto_chain_fit(many, 5), 2);
}

static const uint8_t golden_err[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x05,				/* type ERR */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x0e,		/* length 14 */
	0x00, 0x01,			/* status EXISTS */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,	/* bytes 256 */
	0x00, 0x02,			/* text_len */
	'n', 'o',
};

static const uint8_t golden_fack[] = {
	0x52, 0x44, 0x50, 0x55, 0x07,
	0x0a,				/* type FACK */
	0x00, 0x00,
	0x00, 0x00, 0x00, 0x12,		/* length 18 */
	0x00, 0x00, 0x01, 0x02,		/* id 258 */
	0x00, 0x01,			/* status EXISTS */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,	/* bytes 256 */
	0x00, 0x02,			/* text_len */
	'n', 'o',
};

static void test_golden_result(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.id = 258;
	r.status = RP_ST_EXISTS;
	r.bytes = 256;
	r.text_len = 2;
	memcpy(r.text, "no", 2);
	/* ERR has no id: r.id is not written. */
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ERR, &r),
			 sizeof(golden_err));
	assert_memory_equal(buf, golden_err, sizeof(golden_err));
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_FACK,
					      &r), sizeof(golden_fack));
	assert_memory_equal(buf, golden_fack, sizeof(golden_fack));
}

/* The data immediate: a 31-bit chunk number and the end-of-file bit. */
static void test_imm(void **state)
{
	(void)state;
	assert_int_equal(RP_IMM_END, 0x80000000u);
	assert_int_equal(RP_IMM_SEQ, 0x7fffffffu);
	assert_int_equal(RP_IMM_END & RP_IMM_SEQ, 0);
	assert_int_equal(RP_IMM_END | RP_IMM_SEQ, UINT32_MAX);
}

/* Every other layout, field by field at its offsets. */
static void test_layout_offsets(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG];
	const uint8_t *p = buf + HDR;
	struct rp_hello h;
	struct rp_mr mr;
	struct rp_fin fin;
	struct rp_fend fe;
	struct rp_result r;
	static struct rp_file f;
	const uint8_t *q;
	size_t i;

	(void)state;
	sample_mr(&mr);
	assert_int_equal(pack_mr(buf, &mr), HDR + MR_PLEN);
	assert_int_equal(be_get(p + OFF_QPN, 4), mr.qp.qpn);
	assert_int_equal(be_get(p + OFF_PSN, 4), mr.qp.psn);
	assert_int_equal(be_get(p + OFF_LID, 2), mr.qp.lid);
	assert_int_equal(p[OFF_MTU], mr.qp.mtu);
	assert_int_equal(p[OFF_QP_RSVD], 0);
	assert_memory_equal(p + OFF_GID, mr.qp.gid, RP_GID_LEN);
	assert_true(be_get(p + OFF_MR_ADDR, 8) == mr.addr);
	assert_int_equal(be_get(p + OFF_MR_RKEY, 4), mr.rkey);
	assert_true(be_get(p + OFF_MR_LEN, 8) == mr.len);
	assert_int_equal(be_get(p + OFF_MR_CHUNK, 4), mr.chunk);
	assert_int_equal(be_get(p + OFF_MR_WINDOW, 4), mr.window);

	sample_hello(&h);
	assert_int_equal(pack_hello(buf, &h), HDR + HELLO_PLEN);
	assert_int_equal(be_get(p + OFF_QPN, 4), h.qp.qpn);
	assert_true(be_get(p + OFF_H_TOTAL, 8) == h.total);
	assert_int_equal(be_get(p + OFF_H_CHUNK, 4), h.chunk);
	assert_int_equal(be_get(p + OFF_H_WINDOW, 4), h.window);
	assert_int_equal(be_get(p + OFF_H_FLAGS, 4),
			 h.flags | h.op << 8 | 1u << QPS_SHIFT);

	/* Version 6: the QPs after the first, after each fixed part. */
	sample_hello_qps(&h, 3);
	assert_int_equal(pack_hello(buf, &h), HDR + HELLO_PLEN + 2 * MORE_LEN);
	assert_int_equal(be_get(p + OFF_H_FLAGS, 4),
			 h.flags | h.op << 8 | 3u << QPS_SHIFT);
	for (i = 0; i < 2; i++) {
		q = p + OFF_H_MORE + i * MORE_LEN;
		assert_int_equal(be_get(q + OFF_MORE_QPN, 4), h.more[i].qpn);
		assert_int_equal(be_get(q + OFF_MORE_PSN, 4), h.more[i].psn);
	}
	sample_mr_qps(&mr, 3);
	assert_int_equal(pack_mr(buf, &mr), HDR + MR_PLEN + 2 * MORE_LEN);
	assert_int_equal(be_get(p + OFF_MR_WINDOW, 4), mr.window);
	for (i = 0; i < 2; i++) {
		q = p + OFF_MR_MORE + i * MORE_LEN;
		assert_int_equal(be_get(q + OFF_MORE_QPN, 4), mr.more[i].qpn);
		assert_int_equal(be_get(q + OFF_MORE_PSN, 4), mr.more[i].psn);
	}

	sample_file(&f, RP_FILE_REG);
	f.mtime_sec = -2;
	assert_int_equal(pack_file(buf, &f), HDR + FILE_FIXED + 5 + FILE_TAIL);
	assert_int_equal(be_get(p + OFF_F_ID, 4), f.id);
	assert_int_equal(p[OFF_F_KIND], RP_FILE_REG);
	assert_int_equal(p[OFF_F_RSVD], 0);
	assert_int_equal(be_get(p + OFF_F_MODE, 2), 0644);
	assert_true(be_get(p + OFF_F_SIZE, 8) == f.size);
	assert_true(be_get(p + OFF_F_SEC, 8) == UINT64_MAX - 1);
	assert_int_equal(be_get(p + OFF_F_NSEC, 4), f.mtime_nsec);
	assert_int_equal(be_get(p + OFF_F_PATHLEN, 2), 5);
	assert_memory_equal(p + OFF_F_PATH, "dir/f", 5);

	sample_fend(&fe);
	assert_int_equal(rp_proto_pack_fend(buf, sizeof(buf), &fe),
			 HDR + FEND_PLEN);
	assert_int_equal(be_get(p, 4), fe.id);
	assert_true(be_get(p + OFF_FE_BYTES, 8) == fe.bytes);
	assert_memory_equal(p + OFF_FE_CSUM, fe.csum, RP_CSUM_LEN);

	sample_fin(&fin);
	assert_int_equal(rp_proto_pack_fin(buf, sizeof(buf), &fin),
			 HDR + FIN_PLEN);
	assert_true(be_get(p, 8) == fin.files);
	assert_true(be_get(p + 8, 8) == fin.bytes);

	sample_result(&r);
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK,
					      &r), HDR + OFF_R_TEXT + 11);
	assert_int_equal(be_get(p + OFF_R_STATUS, 2), r.status);
	assert_true(be_get(p + OFF_R_BYTES, 8) == r.bytes);
	assert_int_equal(be_get(p + OFF_R_TEXTLEN, 2), r.text_len);
	assert_memory_equal(p + OFF_R_TEXT, r.text, r.text_len);
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_FACK,
					      &r),
			 HDR + FACK_ID_LEN + OFF_R_TEXT + 11);
	assert_int_equal(be_get(p, 4), r.id);
	p += FACK_ID_LEN;
	assert_int_equal(be_get(p + OFF_R_STATUS, 2), r.status);
	assert_true(be_get(p + OFF_R_BYTES, 8) == r.bytes);
	assert_int_equal(be_get(p + OFF_R_TEXTLEN, 2), r.text_len);
	assert_memory_equal(p + OFF_R_TEXT, r.text, r.text_len);
}

/* ---- field bounds ------------------------------------------------------ */

/* One FILE field forced to a value, on the wire and in the struct. */
struct file_case {
	size_t off;
	size_t width;
	uint64_t val;
	const char *why;	/* NULL: accepted */
};

static const struct file_case file_cases[] = {
	{ OFF_F_KIND, 1, 0, "unknown kind" },
	{ OFF_F_KIND, 1, 3, "unknown kind" },
	{ OFF_F_KIND, 1, 0xff, "unknown kind" },
	/* A regular file's size, relabelled a directory. */
	{ OFF_F_KIND, 1, RP_FILE_DIR, "directory with a size" },
	{ OFF_F_MODE, 2, 07777, NULL },
	{ OFF_F_MODE, 2, 010000, "mode has bits beyond 07777" },
	{ OFF_F_MODE, 2, 0xffff, "mode has bits beyond 07777" },
	{ OFF_F_SIZE, 8, UINT64_MAX, NULL },
	{ OFF_F_SIZE, 8, 0, NULL },
	{ OFF_F_NSEC, 4, 999999999, NULL },
	{ OFF_F_NSEC, 4, 1000000000, "mtime nanoseconds out of range" },
	{ OFF_F_NSEC, 4, 0xffffffff, "mtime nanoseconds out of range" },
	{ OFF_F_ID, 4, 0xffffffff, NULL },
};

static void file_set(struct rp_file *f, const struct file_case *c)
{
	switch (c->off) {
	case OFF_F_KIND:
		f->kind = (uint8_t)c->val;
		break;
	case OFF_F_MODE:
		f->mode = (uint16_t)c->val;
		break;
	case OFF_F_SIZE:
		f->size = c->val;
		break;
	case OFF_F_NSEC:
		f->mtime_nsec = (uint32_t)c->val;
		break;
	case OFF_F_ID:
		f->id = (uint32_t)c->val;
		break;
	default:
		fail();
	}
}

static void test_file_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	const struct file_case *c;
	struct rp_file f;
	struct rp_file out;
	const char *why;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(file_cases); i++) {
		c = &file_cases[i];
		/* The decoder, from a valid FILE with one field forged. */
		sample_file(&f, RP_FILE_REG);
		n = pack_file(buf, &f);
		assert_int_equal(n, HDR + FILE_FIXED + 5 + FILE_TAIL);
		be_put(buf + HDR + c->off, c->width, c->val);
		why = NULL;
		if (c->why) {
			assert_int_equal(unpack_file(buf, n, &out, &why),
					 RP_EPROTO);
			assert_string_equal(why, c->why);
		} else {
			assert_int_equal(unpack_file(buf, n, &out, &why), 0);
		}
		/* The encoder refuses exactly what the decoder refuses. */
		file_set(&f, c);
		if (c->why) {
			assert_int_equal(pack_file(buf, &f), RP_EPROTO);
		} else {
			assert_int_equal(pack_file(buf, &f), n);
			assert_int_equal(unpack_file(buf, n, &out, NULL), 0);
			assert_file_equal(&out, &f);
		}
	}
}

/* FILE's reserved byte: any bit set is refused. */
static void test_file_reserved(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_file f;
	struct rp_file out;
	const char *why;
	int bit;
	int n;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	n = pack_file(buf, &f);
	assert_int_equal(buf[HDR + OFF_F_RSVD], 0);
	for (bit = 0; bit < 8; bit++) {
		buf[HDR + OFF_F_RSVD] = (uint8_t)(1u << bit);
		why = NULL;
		assert_int_equal(unpack_file(buf, n, &out, &why), RP_EPROTO);
		assert_non_null(strstr(why, "reserved byte not zero"));
	}
}

static void test_path_len_bounds(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG + 1];
	static struct rp_file f;
	static struct rp_file out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	f.path_len = 1;
	n = pack_file(buf, &f);
	assert_int_equal(n, HDR + FILE_FIXED + 1 + FILE_TAIL);
	assert_int_equal(unpack_file(buf, n, &out, &why), 0);
	assert_string_equal(out.path, "d");

	/* 0: every entry has a path. */
	be_put(buf + HDR + OFF_F_PATHLEN, 2, 0);
	assert_int_equal(unpack_file(buf, n - 1, &out, &why), RP_EPROTO);
	assert_string_equal(why, "path length out of range");
	f.path_len = 0;
	assert_int_equal(pack_file(buf, &f), RP_EPROTO);

	/* RP_PATH_MAX + 1 on the wire: the longest message, relabelled. */
	longest_path(&f);
	n = pack_file(buf, &f);
	assert_int_equal(n, HDR + FILE_FIXED + RP_PATH_MAX + FILE_TAIL);
	buf[n] = 'd';
	be_put(buf + HDR + OFF_F_PATHLEN, 2, RP_PATH_MAX + 1);
	why = NULL;
	assert_int_equal(unpack_file(buf, n + 1, &out, &why), RP_EPROTO);
	assert_string_equal(why, "path length out of range");
	f.path_len = RP_PATH_MAX + 1;
	assert_int_equal(pack_file(buf, &f), RP_EPROTO);
	f.path_len = UINT16_MAX;
	assert_int_equal(pack_file(buf, &f), RP_EPROTO);

	/*
	 * A path filling the largest payload: the length must be refused
	 * before the copy, which would otherwise overrun out.path.
	 */
	memset(buf + HDR + OFF_F_PATH, 'p', RP_PROTO_MAX_PAYLOAD - OFF_F_PATH);
	be_put(buf + HDR + OFF_F_PATHLEN, 2, RP_PROTO_MAX_PAYLOAD - OFF_F_PATH);
	why = NULL;
	assert_int_equal(rp_proto_unpack_file(buf + HDR, RP_PROTO_MAX_PAYLOAD,
					      &out, &why), RP_EPROTO);
	assert_string_equal(why, "path length out of range");
}

static void test_path_len_mismatch(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_file f;
	struct rp_file out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	n = pack_file(buf, &f);
	/* path_len claims fewer bytes than follow */
	be_put(buf + HDR + OFF_F_PATHLEN, 2, 4);
	assert_int_equal(unpack_file(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "trailing bytes");
	/* ... and more, up to the limit */
	be_put(buf + HDR + OFF_F_PATHLEN, 2, 6);
	assert_int_equal(unpack_file(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "path longer than payload");
	be_put(buf + HDR + OFF_F_PATHLEN, 2, RP_PATH_MAX);
	assert_int_equal(unpack_file(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "path longer than payload");
}

static void test_path_embedded_nul(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_file f;
	struct rp_file out;
	int n;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	f.path_len = 3;
	memcpy(f.path, "a\0b", 3);
	n = pack_file(buf, &f);
	assert_int_equal(n, HDR + FILE_FIXED + 3 + FILE_TAIL);
	assert_memory_equal(buf + HDR + OFF_F_PATH, "a\0b", 3);
	assert_int_equal(unpack_file(buf, n, &out, NULL), 0);
	/* path_len, not strlen, says how long the path is */
	assert_int_equal(out.path_len, 3);
	assert_memory_equal(out.path, "a\0b\0", 4);
}

static void test_text_len_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	struct rp_result r;
	struct rp_result out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_result(&r);
	r.text_len = RP_TEXT_MAX;
	memset(r.text, 't', RP_TEXT_MAX);
	n = rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ERR, &r);
	assert_int_equal(n, HDR + 12 + 255);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ERR, &out, &why), 0);
	assert_int_equal(out.text_len, 255);
	assert_int_equal(strlen(out.text), 255);

	buf[n] = 't';
	be_put(buf + HDR + OFF_R_TEXTLEN, 2, RP_TEXT_MAX + 1);
	assert_int_equal(unpack_result(buf, n + 1, RP_MSG_ERR, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "text length out of range");
	r.text_len = RP_TEXT_MAX + 1;
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ERR,
					      &r), RP_EPROTO);

	/* The longest text a payload could hold must not reach the copy. */
	memset(buf + HDR + OFF_R_TEXT, 't', RP_PROTO_MAX_PAYLOAD - OFF_R_TEXT);
	be_put(buf + HDR + OFF_R_TEXTLEN, 2, RP_PROTO_MAX_PAYLOAD - OFF_R_TEXT);
	why = NULL;
	assert_int_equal(rp_proto_unpack_result(buf + HDR, RP_PROTO_MAX_PAYLOAD,
						RP_MSG_ERR, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "text length out of range");
}

static void test_text_len_mismatch(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result r;
	struct rp_result out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_result(&r);
	n = rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ERR, &r);
	be_put(buf + HDR + OFF_R_TEXTLEN, 2, 10);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ERR, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "trailing bytes");
	be_put(buf + HDR + OFF_R_TEXTLEN, 2, 12);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ERR, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "text longer than payload");
}

/* One qp_addr field forced to a value, on the wire and in the struct. */
struct qp_case {
	size_t off;
	size_t width;
	uint32_t val;
	const char *why;	/* NULL: accepted */
};

static const struct qp_case qp_cases[] = {
	{ OFF_QPN, 4, 0, "qpn out of range" },
	{ OFF_QPN, 4, 1, NULL },
	{ OFF_QPN, 4, 0xffffff, NULL },
	{ OFF_QPN, 4, 0x1000000, "qpn out of range" },
	{ OFF_QPN, 4, 0xffffffff, "qpn out of range" },
	{ OFF_PSN, 4, 0, NULL },
	{ OFF_PSN, 4, 0xffffff, NULL },
	{ OFF_PSN, 4, 0x1000000, "psn out of range" },
	{ OFF_PSN, 4, 0xffffffff, "psn out of range" },
	{ OFF_LID, 2, 0xffff, NULL },
	{ OFF_MTU, 1, 0, "mtu out of range" },
	{ OFF_MTU, 1, 1, NULL },
	{ OFF_MTU, 1, 5, NULL },
	{ OFF_MTU, 1, 6, "mtu out of range" },
	{ OFF_MTU, 1, 0xff, "mtu out of range" },
};

static void qp_set(struct rp_qp_addr *a, const struct qp_case *c)
{
	switch (c->off) {
	case OFF_QPN:
		a->qpn = c->val;
		break;
	case OFF_PSN:
		a->psn = c->val;
		break;
	case OFF_LID:
		a->lid = (uint16_t)c->val;
		break;
	case OFF_MTU:
		a->mtu = (uint8_t)c->val;
		break;
	default:
		fail();
	}
}

static uint32_t qp_get(const struct rp_qp_addr *a, size_t off)
{
	switch (off) {
	case OFF_QPN:
		return a->qpn;
	case OFF_PSN:
		return a->psn;
	case OFF_LID:
		return a->lid;
	default:
		return a->mtu;
	}
}

static void test_qp_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	const struct qp_case *c;
	struct rp_hello h;
	struct rp_hello hout;
	struct rp_mr mr;
	struct rp_mr mout;
	const char *why;
	size_t i;
	int rc;
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(qp_cases); i++) {
		c = &qp_cases[i];
		/* Decoders, from a valid message with one field forged. */
		sample_hello(&h);
		n = pack_hello(buf, &h);
		be_put(buf + HDR + c->off, c->width, c->val);
		why = NULL;
		rc = unpack_hello(buf, n, &hout, &why);
		if (c->why) {
			assert_int_equal(rc, RP_EPROTO);
			assert_string_equal(why, c->why);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(qp_get(&hout.qp, c->off), c->val);
		}
		sample_mr(&mr);
		n = pack_mr(buf, &mr);
		be_put(buf + HDR + c->off, c->width, c->val);
		why = NULL;
		rc = unpack_mr(buf, n, &mout, &why);
		if (c->why) {
			assert_int_equal(rc, RP_EPROTO);
			assert_string_equal(why, c->why);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(qp_get(&mout.qp, c->off), c->val);
		}

		/* Encoders refuse exactly what decoders refuse. */
		qp_set(&h.qp, c);
		rc = pack_hello(buf, &h);
		if (c->why)
			assert_int_equal(rc, RP_EPROTO);
		else
			assert_int_equal(rc, HDR + HELLO_PLEN);
		qp_set(&mr.qp, c);
		rc = pack_mr(buf, &mr);
		if (c->why)
			assert_int_equal(rc, RP_EPROTO);
		else
			assert_int_equal(rc, HDR + MR_PLEN);
	}
}

static void test_qp_reserved(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	struct rp_mr mr;
	const char *why = NULL;
	int n;

	(void)state;
	sample_hello(&h);
	n = pack_hello(buf, &h);
	assert_int_equal(buf[HDR + OFF_QP_RSVD], 0);
	buf[HDR + OFF_QP_RSVD] = 0x80;
	assert_int_equal(unpack_hello(buf, n, &h, &why), RP_EPROTO);
	assert_string_equal(why, "reserved byte not zero");
	sample_mr(&mr);
	n = pack_mr(buf, &mr);
	buf[HDR + OFF_QP_RSVD] = 1;
	why = NULL;
	assert_int_equal(unpack_mr(buf, n, &mr, &why), RP_EPROTO);
	assert_string_equal(why, "reserved byte not zero");
}

static void test_gid_lid(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	struct rp_hello out;
	struct rp_mr mr;
	const char *why = NULL;
	int n;

	(void)state;
	/* RoCE: no LID, so an all-zero GID is unroutable. */
	sample_hello(&h);
	memset(h.qp.gid, 0, RP_GID_LEN);
	h.qp.lid = 0;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	sample_mr(&mr);
	memset(mr.qp.gid, 0, RP_GID_LEN);
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);

	sample_hello(&h);
	n = pack_hello(buf, &h);
	memset(buf + HDR + OFF_GID, 0, RP_GID_LEN);
	assert_int_equal(unpack_hello(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "zero gid without lid");
	sample_mr(&mr);
	n = pack_mr(buf, &mr);
	memset(buf + HDR + OFF_GID, 0, RP_GID_LEN);
	why = NULL;
	assert_int_equal(unpack_mr(buf, n, &mr, &why), RP_EPROTO);
	assert_string_equal(why, "zero gid without lid");

	/* InfiniBand: a LID is enough. */
	sample_hello(&h);
	memset(h.qp.gid, 0, RP_GID_LEN);
	h.qp.lid = 1;
	n = pack_hello(buf, &h);
	assert_int_equal(n, HDR + HELLO_PLEN);
	assert_int_equal(unpack_hello(buf, n, &out, NULL), 0);
	assert_int_equal(out.qp.lid, 1);

	/* One non-zero GID byte, anywhere, is a GID. */
	sample_hello(&h);
	memset(h.qp.gid, 0, RP_GID_LEN);
	h.qp.gid[RP_GID_LEN - 1] = 1;
	n = pack_hello(buf, &h);
	assert_int_equal(unpack_hello(buf, n, &out, NULL), 0);
	h.qp.gid[RP_GID_LEN - 1] = 0;
	h.qp.gid[0] = 0x80;
	n = pack_hello(buf, &h);
	assert_int_equal(unpack_hello(buf, n, &out, NULL), 0);
}

static void test_chunk_window_zero(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	struct rp_mr mr;
	const char *why = NULL;
	int n;

	(void)state;
	sample_hello(&h);
	h.chunk = 0;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);
	sample_hello(&h);
	h.window = 0;
	assert_int_equal(pack_hello(buf, &h), RP_EPROTO);

	sample_hello(&h);
	n = pack_hello(buf, &h);
	be_put(buf + HDR + OFF_H_CHUNK, 4, 0);
	assert_int_equal(unpack_hello(buf, n, &h, &why), RP_EPROTO);
	assert_string_equal(why, "zero chunk");
	sample_hello(&h);
	n = pack_hello(buf, &h);
	be_put(buf + HDR + OFF_H_WINDOW, 4, 0);
	assert_int_equal(unpack_hello(buf, n, &h, &why), RP_EPROTO);
	assert_string_equal(why, "zero window");

	sample_mr(&mr);
	mr.chunk = 0;
	mr.len = 0;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);
	sample_mr(&mr);
	mr.window = 0;
	mr.len = 0;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);

	sample_mr(&mr);
	n = pack_mr(buf, &mr);
	be_put(buf + HDR + OFF_MR_CHUNK, 4, 0);
	be_put(buf + HDR + OFF_MR_LEN, 8, 0);
	assert_int_equal(unpack_mr(buf, n, &mr, &why), RP_EPROTO);
	assert_string_equal(why, "zero chunk");
	sample_mr(&mr);
	n = pack_mr(buf, &mr);
	be_put(buf + HDR + OFF_MR_WINDOW, 4, 0);
	be_put(buf + HDR + OFF_MR_LEN, 8, 0);
	assert_int_equal(unpack_mr(buf, n, &mr, &why), RP_EPROTO);
	assert_string_equal(why, "zero window");
}

static void test_mr_len(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr;
	struct rp_mr out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_mr(&mr);
	mr.len += 1;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);
	mr.len = 0;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);

	sample_mr(&mr);
	n = pack_mr(buf, &mr);
	be_put(buf + HDR + OFF_MR_LEN, 8, 65536ull * 8 - 1);
	assert_int_equal(unpack_mr(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, "ring length is not chunk * window");
	be_put(buf + HDR + OFF_MR_LEN, 8, 0);
	assert_int_equal(unpack_mr(buf, n, &out, &why), RP_EPROTO);
	/* The product must be 64-bit: a 32-bit one would wrap to 0x...01. */
	be_put(buf + HDR + OFF_MR_LEN, 8, 1);
	be_put(buf + HDR + OFF_MR_CHUNK, 4, 0xffffffff);
	be_put(buf + HDR + OFF_MR_WINDOW, 4, 0xffffffff);
	assert_int_equal(unpack_mr(buf, n, &out, &why), RP_EPROTO);

	sample_mr(&mr);
	mr.chunk = 0xffffffff;
	mr.window = 0xffffffff;
	mr.len = 0xfffffffe00000001ull;
	mr.rkey = 0;
	n = pack_mr(buf, &mr);
	assert_int_equal(n, HDR + MR_PLEN);
	assert_int_equal(unpack_mr(buf, n, &out, NULL), 0);
	assert_true(out.len == 0xfffffffe00000001ull);
	assert_int_equal(out.rkey, 0);
	mr.rkey = 0xffffffff;
	n = pack_mr(buf, &mr);
	assert_int_equal(unpack_mr(buf, n, &out, NULL), 0);
	assert_int_equal(out.rkey, 0xffffffff);
}

/* ---- version 6: the QPs after the first ------------------------------ */

/* A HELLO or MR decoder refuses, for why, and leaves its output alone. */
static void assert_hello_refused(const uint8_t *buf, int n, const char *want)
{
	struct rp_hello out;
	struct rp_hello before;
	const char *why = NULL;

	memset(&out, 0xa5, sizeof(out));
	before = out;
	assert_int_equal(unpack_hello(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, want);
	assert_memory_equal(&out, &before, sizeof(out));
}

static void assert_mr_refused(const uint8_t *buf, int n, const char *want)
{
	struct rp_mr out;
	struct rp_mr before;
	const char *why = NULL;

	memset(&out, 0xa5, sizeof(out));
	before = out;
	assert_int_equal(unpack_mr(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, want);
	assert_memory_equal(&out, &before, sizeof(out));
}

/* HELLO's qps byte (flags bits 16..23) set to qps in a packed HELLO. */
static void set_hello_qps(uint8_t *buf, unsigned int qps)
{
	buf[HDR + OFF_H_FLAGS + 1] = (uint8_t)qps;
}

/*
 * HELLO: qps 1..RP_QPS_MAX in its flags word, and exactly qps - 1 QPs
 * after the fixed part, no fewer, no more.
 */
static void test_hello_qps(void **state)
{
	static const unsigned int bad[] = { 0, RP_QPS_MAX + 1, 0x80, 0xff };
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	struct rp_hello out;
	unsigned int have;
	unsigned int qps;
	size_t i;
	int n;

	(void)state;
	/* Out of range, whatever the length says. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		for (have = 1; have <= RP_QPS_MAX; have++) {
			sample_hello_qps(&h, have);
			n = pack_hello(buf, &h);
			set_hello_qps(buf, bad[i]);
			assert_hello_refused(buf, n, "qps out of range");
		}
		/* Nine QPs' worth of bytes for qps 9. */
		sample_hello_qps(&h, RP_QPS_MAX);
		n = pack_hello(buf, &h);
		be_put(buf + n, 4, 0x000777);
		be_put(buf + n + 4, 4, 0);
		set_hello_qps(buf, bad[i]);
		assert_hello_refused(buf, n + MORE_LEN, "qps out of range");
	}
	/* The encoder refuses them too; 0 it takes as 1. */
	sample_hello_qps(&h, RP_QPS_MAX);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		h.qps = (uint8_t)bad[i];
		n = pack_hello(buf, &h);
		if (bad[i])
			assert_int_equal(n, RP_EPROTO);
		else
			assert_int_equal(n, HDR + HELLO_PLEN);
	}

	/* Every count said against every count sent. */
	for (have = 1; have <= RP_QPS_MAX; have++) {
		for (qps = 1; qps <= RP_QPS_MAX; qps++) {
			sample_hello_qps(&h, have);
			n = pack_hello(buf, &h);
			set_hello_qps(buf, qps);
			if (qps > have) {
				assert_hello_refused(buf, n,
						     "truncated QP list");
			} else if (qps < have) {
				assert_hello_refused(buf, n, "trailing bytes");
			} else {
				assert_int_equal(unpack_hello(buf, n, &out,
							      NULL), 0);
				assert_int_equal(out.qps, qps);
			}
		}
	}
	/* Cut inside an entry. */
	sample_hello_qps(&h, 3);
	n = pack_hello(buf, &h);
	assert_hello_refused(buf, n - 1, "truncated QP list");
	assert_hello_refused(buf, n - MORE_LEN - 4, "truncated QP list");
}

/*
 * MR: the length says how many QPs: 56 + 8k bytes is qps k + 1, up to
 * RP_QPS_MAX; a part entry is trailing bytes.
 */
static void test_mr_qps(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr;
	struct rp_mr out;
	size_t plen;
	size_t k;
	int n;

	(void)state;
	sample_mr_qps(&mr, RP_QPS_MAX);
	n = pack_mr(buf, &mr);
	assert_int_equal(n, HDR + MR_PLEN + (RP_QPS_MAX - 1) * MORE_LEN);
	/* A valid ninth entry and part of a tenth after it. */
	be_put(buf + n, 4, 0x000777);
	be_put(buf + n + 4, 4, 0);
	memset(buf + n + MORE_LEN, 0, MORE_LEN);
	for (plen = MR_PLEN; plen < MR_PLEN + (RP_QPS_MAX + 1) * MORE_LEN;
	     plen++) {
		k = (plen - MR_PLEN) / MORE_LEN;
		n = (int)(HDR + plen);
		if (k >= RP_QPS_MAX) {
			assert_mr_refused(buf, n, "qps out of range");
		} else if ((plen - MR_PLEN) % MORE_LEN) {
			assert_mr_refused(buf, n, "trailing bytes");
		} else {
			memset(&out, 0x5a, sizeof(out));
			assert_int_equal(unpack_mr(buf, n, &out, NULL), 0);
			assert_int_equal(out.qps, k + 1);
			assert_more_equal(out.more, mr.more, out.qps);
		}
	}
	mr.qps = RP_QPS_MAX + 1;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);
	mr.qps = 0xff;
	assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);
}

/* One field of one entry of the list forced to a value. */
struct more_case {
	size_t off;		/* OFF_MORE_QPN or OFF_MORE_PSN */
	uint32_t val;
	const char *why;	/* NULL: accepted */
};

static const struct more_case more_cases[] = {
	{ OFF_MORE_QPN, 0, "extra qpn out of range" },
	{ OFF_MORE_QPN, 1, NULL },
	{ OFF_MORE_QPN, 0xffffff, NULL },
	{ OFF_MORE_QPN, 0x1000000, "extra qpn out of range" },
	{ OFF_MORE_QPN, 0xffffffff, "extra qpn out of range" },
	{ OFF_MORE_PSN, 0, NULL },
	{ OFF_MORE_PSN, 0xffffff, NULL },
	{ OFF_MORE_PSN, 0x1000000, "extra psn out of range" },
	{ OFF_MORE_PSN, 0xffffffff, "extra psn out of range" },
};

static void more_set(struct rp_qp_more *e, const struct more_case *c)
{
	if (c->off == OFF_MORE_QPN)
		e->qpn = c->val;
	else
		e->psn = c->val;
}

/* Each entry as QP 0's qpn and psn: 24 bits, the QPN non-zero. */
static void test_more_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	const struct more_case *c;
	struct rp_hello h;
	struct rp_hello hout;
	struct rp_mr mr;
	struct rp_mr mout;
	size_t i;
	size_t e;
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(more_cases); i++) {
		c = &more_cases[i];
		for (e = 0; e < RP_QPS_MAX - 1; e++) {
			/* Decoders, from a valid message, one field forged. */
			sample_hello_qps(&h, RP_QPS_MAX);
			n = pack_hello(buf, &h);
			be_put(buf + HDR + OFF_H_MORE + e * MORE_LEN + c->off,
			       4, c->val);
			if (c->why) {
				assert_hello_refused(buf, n, c->why);
			} else {
				assert_int_equal(unpack_hello(buf, n, &hout,
							      NULL), 0);
				more_set(&h.more[e], c);
				assert_more_equal(hout.more, h.more,
						  RP_QPS_MAX);
			}
			sample_mr_qps(&mr, RP_QPS_MAX);
			n = pack_mr(buf, &mr);
			be_put(buf + HDR + OFF_MR_MORE + e * MORE_LEN + c->off,
			       4, c->val);
			if (c->why) {
				assert_mr_refused(buf, n, c->why);
			} else {
				assert_int_equal(unpack_mr(buf, n, &mout,
							   NULL), 0);
				more_set(&mr.more[e], c);
				assert_more_equal(mout.more, mr.more,
						  RP_QPS_MAX);
			}

			/* Encoders refuse exactly what decoders refuse. */
			sample_hello_qps(&h, RP_QPS_MAX);
			more_set(&h.more[e], c);
			sample_mr_qps(&mr, RP_QPS_MAX);
			more_set(&mr.more[e], c);
			if (c->why) {
				assert_int_equal(pack_hello(buf, &h),
						 RP_EPROTO);
				assert_int_equal(pack_mr(buf, &mr), RP_EPROTO);
			} else {
				assert_true(pack_hello(buf, &h) > 0);
				assert_true(pack_mr(buf, &mr) > 0);
			}
		}
		/* An entry past qps is not the message's: not read. */
		sample_hello_qps(&h, 2);
		more_set(&h.more[1], c);
		assert_int_equal(pack_hello(buf, &h),
				 HDR + HELLO_PLEN + MORE_LEN);
		sample_mr_qps(&mr, 2);
		more_set(&mr.more[RP_QPS_MAX - 2], c);
		assert_int_equal(pack_mr(buf, &mr), HDR + MR_PLEN + MORE_LEN);
	}
}

static void test_status_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result r;
	struct rp_result out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_result(&r);
	r.status = RP_ST_MAX - 1;
	n = rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK, &r);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ACK, &out, &why), 0);
	assert_int_equal(out.status, RP_ST_MAX - 1);

	be_put(buf + HDR + OFF_R_STATUS, 2, RP_ST_MAX);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ACK, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "status out of range");
	be_put(buf + HDR + OFF_R_STATUS, 2, 0xffff);
	assert_int_equal(unpack_result(buf, n, RP_MSG_ACK, &out, &why),
			 RP_EPROTO);

	r.status = RP_ST_MAX;
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK,
					      &r), RP_EPROTO);
	r.status = 0xffff;
	assert_int_equal(rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ERR,
					      &r), RP_EPROTO);
}

/* ---- version 7: FILE's tail, HAVE, FROM, RECONNECT --------------------- */

/* Every field at its offset. */
static void test_layout_v7(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG];
	const uint8_t *p = buf + HDR;
	const uint8_t *t = p + FILE_FIXED + 5;
	static struct rp_file f;
	struct rp_have h;
	struct rp_from fr = { .id = 0x0a0b0c0d, .offset = UINT64_MAX };
	struct rp_reconnect r;
	unsigned int i;

	(void)state;
	sample_file7(&f);
	assert_int_equal(pack_file(buf, &f), HDR + FILE_FIXED + 5 + FILE_TAIL);
	assert_memory_equal(p + OFF_F_PATH, "dir/f", 5);
	assert_int_equal(t[OFF_FT_WANT], RP_WANT_RESUME);
	assert_int_equal(t[OFF_FT_UPDATE], RP_UPDATE_CHECKSUM);
	assert_memory_equal(t + OFF_FT_CSUM, f.csum, RP_CSUM_LEN);

	sample_have(&h);
	assert_int_equal(rp_proto_pack_have(buf, sizeof(buf), &h),
			 HDR + HAVE_PLEN);
	assert_int_equal(be_get(p, 4), h.id);
	assert_int_equal(p[OFF_HV_VERDICT], RP_HAVE_PARTIAL);
	assert_int_equal(p[OFF_HV_RSVD], 0);
	assert_int_equal(be_get(p + OFF_HV_RSVD16, 2), 0);
	assert_true(be_get(p + OFF_HV_BYTES, 8) == h.bytes);
	assert_memory_equal(p + OFF_HV_CSUM, h.csum, RP_CSUM_LEN);

	assert_int_equal(rp_proto_pack_from(buf, sizeof(buf), &fr),
			 HDR + FROM_PLEN);
	assert_int_equal(be_get(p, 4), fr.id);
	assert_int_equal(be_get(p + OFF_FR_RSVD, 4), 0);
	assert_true(be_get(p + OFF_FR_OFFSET, 8) == UINT64_MAX);

	sample_reconnect(&r, RP_QPS_MAX);
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 HDR + RC_FIXED + RP_QPS_MAX * MORE_LEN);
	assert_int_equal(be_get(p, 4), r.attempt);
	assert_int_equal(p[OFF_RC_QPS], RP_QPS_MAX);
	assert_int_equal(p[OFF_RC_RSVD], 0);
	assert_int_equal(be_get(p + OFF_RC_RSVD16, 2), 0);
	assert_true(be_get(p + OFF_RC_NEXT, 8) == r.next_chunk);
	for (i = 0; i < RP_QPS_MAX; i++) {
		const uint8_t *q = p + OFF_RC_QP + i * MORE_LEN;

		assert_int_equal(be_get(q + OFF_MORE_QPN, 4), r.qp[i].qpn);
		assert_int_equal(be_get(q + OFF_MORE_PSN, 4), r.qp[i].psn);
	}
}

/* FILE's want, update and csum, on a regular file or a directory. */
struct file7_case {
	uint8_t kind;
	uint8_t want;
	uint8_t update;
	uint8_t csum_last;	/* csum[15]; the rest stays zero */
	const char *why;	/* NULL: accepted */
};

static const struct file7_case file7_cases[] = {
	{ RP_FILE_REG, RP_WANT_RESUME, RP_UPDATE_NONE, 0, NULL },
	{ RP_FILE_REG, 0, RP_UPDATE_EXISTS, 0, NULL },
	{ RP_FILE_REG, 0, RP_UPDATE_SIZE, 0, NULL },
	{ RP_FILE_REG, RP_WANT_RESUME, RP_UPDATE_MTIME, 0, NULL },
	{ RP_FILE_REG, 0, RP_UPDATE_CHECKSUM, 0x55, NULL },
	/* A digest may be all zero: unlikely, but not malformed. */
	{ RP_FILE_REG, 0, RP_UPDATE_CHECKSUM, 0, NULL },
	{ RP_FILE_REG, 0x02, 0, 0, "unknown want bits" },
	{ RP_FILE_REG, 0x80, 0, 0, "unknown want bits" },
	{ RP_FILE_REG, 0xff, 0, 0, "unknown want bits" },
	{ RP_FILE_REG, 0, 5, 0, "unknown update level" },
	{ RP_FILE_REG, 0, 0xff, 0, "unknown update level" },
	{ RP_FILE_REG, 0, RP_UPDATE_NONE, 1,
	  "checksum without update checksum" },
	{ RP_FILE_REG, RP_WANT_RESUME, 0, 1,
	  "checksum without update checksum" },
	{ RP_FILE_REG, 0, RP_UPDATE_EXISTS, 1,
	  "checksum without update checksum" },
	{ RP_FILE_REG, 0, RP_UPDATE_SIZE, 0x80,
	  "checksum without update checksum" },
	{ RP_FILE_REG, 0, RP_UPDATE_MTIME, 0xff,
	  "checksum without update checksum" },
	{ RP_FILE_DIR, RP_WANT_RESUME, 0, 0, "directory with want or update" },
	{ RP_FILE_DIR, 0, RP_UPDATE_EXISTS, 0,
	  "directory with want or update" },
	{ RP_FILE_DIR, 0, RP_UPDATE_CHECKSUM, 1,
	  "directory with want or update" },
	{ RP_FILE_DIR, 0, 0, 1, "checksum without update checksum" },
};

static void test_file_v7_bounds(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG];
	static struct rp_file f, out, before;
	const struct file7_case *c;
	const char *why;
	uint8_t *t;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(file7_cases); i++) {
		c = &file7_cases[i];
		/* The decoder, from a valid FILE with the tail forged. */
		sample_file(&f, c->kind);
		n = pack_file(buf, &f);
		assert_int_equal(n, HDR + FILE_FIXED + f.path_len + FILE_TAIL);
		t = buf + HDR + FILE_FIXED + f.path_len;
		t[OFF_FT_WANT] = c->want;
		t[OFF_FT_UPDATE] = c->update;
		t[OFF_FT_CSUM + RP_CSUM_LEN - 1] = c->csum_last;
		why = NULL;
		memset(&out, 0xa5, sizeof(out));
		before = out;
		if (c->why) {
			assert_int_equal(unpack_file(buf, n, &out, &why),
					 RP_EPROTO);
			assert_string_equal(why, c->why);
			assert_memory_equal(&out, &before, sizeof(out));
		} else {
			assert_int_equal(unpack_file(buf, n, &out, &why), 0);
			assert_int_equal(out.want, c->want);
			assert_int_equal(out.update, c->update);
			assert_int_equal(out.csum[RP_CSUM_LEN - 1],
					 c->csum_last);
		}
		/* The encoder refuses exactly what the decoder refuses. */
		f.want = c->want;
		f.update = c->update;
		f.csum[RP_CSUM_LEN - 1] = c->csum_last;
		if (c->why) {
			assert_int_equal(pack_file(buf, &f), RP_EPROTO);
		} else {
			assert_int_equal(pack_file(buf, &f), n);
			assert_int_equal(unpack_file(buf, n, &out, NULL), 0);
			assert_file_equal(&out, &f);
		}
	}
	/* A csum byte other than the last counts too. */
	sample_file(&f, RP_FILE_REG);
	f.csum[0] = 1;
	assert_int_equal(pack_file(buf, &f), RP_EPROTO);
}

/* The tail is not optional: a version 6 FILE is short by 18 bytes. */
static void test_file_v6_refused(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG];
	static struct rp_file f, out;
	const char *why = NULL;
	int n;

	(void)state;
	sample_file(&f, RP_FILE_REG);
	n = pack_file(buf, &f);
	assert_int_equal(unpack_file(buf, n - FILE_TAIL, &out, &why),
			 RP_EPROTO);
	assert_string_equal(why, "path longer than payload");
	why = NULL;
	assert_int_equal(unpack_file(buf, n - 1, &out, &why), RP_EPROTO);
	assert_string_equal(why, "path longer than payload");
}

/* One HAVE, its fields set on the wire and in the struct. */
struct have_case {
	uint8_t verdict;
	uint64_t bytes;
	uint8_t csum_first;	/* csum[0]; the rest stays zero */
	const char *why;	/* NULL: accepted */
};

static const struct have_case have_cases[] = {
	{ RP_HAVE_NONE, 0, 0, NULL },
	{ RP_HAVE_UPTODATE, 0, 0, NULL },
	{ RP_HAVE_PARTIAL, 1, 0, NULL },
	{ RP_HAVE_PARTIAL, UINT64_MAX, 0xff, NULL },
	{ RP_HAVE_MAX, 0, 0, "unknown verdict" },
	{ 0xff, 0, 0, "unknown verdict" },
	{ RP_HAVE_NONE, 1, 0, "bytes or checksum without a partial" },
	{ RP_HAVE_NONE, 0, 1, "bytes or checksum without a partial" },
	{ RP_HAVE_UPTODATE, 1ull << 63, 0,
	  "bytes or checksum without a partial" },
	{ RP_HAVE_UPTODATE, 0, 0x80, "bytes or checksum without a partial" },
	{ RP_HAVE_PARTIAL, 0, 0, "partial of zero bytes" },
	{ RP_HAVE_PARTIAL, 0, 1, "partial of zero bytes" },
};

static void test_have_bounds(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	const struct have_case *c;
	struct rp_have h, out, before;
	const char *why;
	size_t i;
	int n, k;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(have_cases); i++) {
		c = &have_cases[i];
		memset(&h, 0, sizeof(h));
		h.id = 5;
		n = rp_proto_pack_have(buf, sizeof(buf), &h);
		assert_int_equal(n, HDR + HAVE_PLEN);
		buf[HDR + OFF_HV_VERDICT] = c->verdict;
		be_put(buf + HDR + OFF_HV_BYTES, 8, c->bytes);
		buf[HDR + OFF_HV_CSUM] = c->csum_first;
		why = NULL;
		memset(&out, 0xa5, sizeof(out));
		before = out;
		if (c->why) {
			assert_int_equal(rp_proto_unpack_have(buf + HDR,
							      HAVE_PLEN, &out,
							      &why),
					 RP_EPROTO);
			assert_string_equal(why, c->why);
			assert_memory_equal(&out, &before, sizeof(out));
		} else {
			assert_int_equal(rp_proto_unpack_have(buf + HDR,
							      HAVE_PLEN, &out,
							      &why), 0);
			assert_int_equal(out.id, 5);
			assert_int_equal(out.verdict, c->verdict);
			assert_true(out.bytes == c->bytes);
			assert_int_equal(out.csum[0], c->csum_first);
		}
		h.verdict = c->verdict;
		h.bytes = c->bytes;
		h.csum[0] = c->csum_first;
		assert_int_equal(rp_proto_pack_have(buf, sizeof(buf), &h),
				 c->why ? RP_EPROTO : n);
	}
	/* The reserved bytes, each bit. */
	for (k = 0; k < 24; k++) {
		memset(&h, 0, sizeof(h));
		n = rp_proto_pack_have(buf, sizeof(buf), &h);
		buf[HDR + OFF_HV_RSVD + k / 8] = (uint8_t)(1u << k % 8);
		why = NULL;
		assert_int_equal(rp_proto_unpack_have(buf + HDR, HAVE_PLEN,
						      &out, &why), RP_EPROTO);
		assert_string_equal(why, "reserved bytes not zero");
	}
}

static void test_from(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_from f = { .id = UINT32_MAX, .offset = 0 }, out;
	const char *why;
	int n, k;

	(void)state;
	/* Any id and offset: which are right is the session's to say. */
	n = rp_proto_pack_from(buf, sizeof(buf), &f);
	assert_int_equal(n, HDR + FROM_PLEN);
	assert_hdr(buf, n, RP_MSG_FROM);
	assert_int_equal(rp_proto_unpack_from(buf + HDR, FROM_PLEN, &out,
					      NULL), 0);
	assert_int_equal(out.id, UINT32_MAX);
	assert_true(out.offset == 0);
	for (k = 0; k < 32; k++) {
		n = rp_proto_pack_from(buf, sizeof(buf), &f);
		buf[HDR + OFF_FR_RSVD + k / 8] = (uint8_t)(1u << k % 8);
		why = NULL;
		assert_int_equal(rp_proto_unpack_from(buf + HDR, FROM_PLEN,
						      &out, &why), RP_EPROTO);
		assert_string_equal(why, "reserved bytes not zero");
	}
}

static int unpack_reconnect(const uint8_t *buf, size_t n,
			    struct rp_reconnect *m, const char **why)
{
	return rp_proto_unpack_reconnect(buf + HDR, n - HDR, m, why);
}

/* Pack r, forge one thing, and see it refused for why. */
static void assert_reconnect_refused(const uint8_t *buf, size_t n,
				     const char *want)
{
	static struct rp_reconnect out, before;
	const char *why = NULL;

	memset(&out, 0xa5, sizeof(out));
	before = out;
	assert_int_equal(unpack_reconnect(buf, n, &out, &why), RP_EPROTO);
	assert_string_equal(why, want);
	assert_memory_equal(&out, &before, sizeof(out));
}

static void test_reconnect_bounds(void **state)
{
	static uint8_t buf[RP_PROTO_MAX_MSG + 64];
	struct rp_reconnect r, out;
	unsigned int qps, i;
	size_t n;
	int k;

	(void)state;
	/* Every qps round-trips, with the edges of QPN and PSN. */
	for (qps = 1; qps <= RP_QPS_MAX; qps++) {
		sample_reconnect(&r, qps);
		r.attempt = qps == 1 ? UINT32_MAX : qps;
		r.qp[qps - 1].qpn = qps % 2 ? 1 : 0xffffff;
		r.qp[qps - 1].psn = qps % 2 ? 0xffffff : 0;
		r.next_chunk = qps == 2 ? UINT64_MAX : 0;
		n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
		assert_int_equal(n, HDR + RC_FIXED + qps * MORE_LEN);
		assert_hdr(buf, (int)n, RP_MSG_RECONNECT);
		memset(&out, 0x5a, sizeof(out));
		assert_int_equal(unpack_reconnect(buf, n, &out, NULL), 0);
		assert_int_equal(out.attempt, r.attempt);
		assert_int_equal(out.qps, qps);
		assert_true(out.next_chunk == r.next_chunk);
		for (i = 0; i < RP_QPS_MAX; i++) {
			assert_int_equal(out.qp[i].qpn,
					 i < qps ? r.qp[i].qpn : 0);
			assert_int_equal(out.qp[i].psn,
					 i < qps ? r.qp[i].psn : 0);
		}
	}

	/* attempt 0 */
	sample_reconnect(&r, 2);
	n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
	be_put(buf + HDR, 4, 0);
	assert_reconnect_refused(buf, n, "attempt 0");
	r.attempt = 0;
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 RP_EPROTO);

	/* qps 0, and above RP_QPS_MAX, whatever the length says */
	sample_reconnect(&r, 1);
	n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
	buf[HDR + OFF_RC_QPS] = 0;
	assert_reconnect_refused(buf, n, "qps out of range");
	assert_reconnect_refused(buf, HDR + RC_FIXED, "qps out of range");
	sample_reconnect(&r, RP_QPS_MAX);
	n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
	memset(buf + n, 0, MORE_LEN);
	buf[HDR + OFF_RC_QPS] = RP_QPS_MAX + 1;
	assert_reconnect_refused(buf, n + MORE_LEN, "qps out of range");
	buf[HDR + OFF_RC_QPS] = 0xff;
	assert_reconnect_refused(buf, n, "qps out of range");
	r.qps = 0;
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 RP_EPROTO);
	r.qps = RP_QPS_MAX + 1;
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 RP_EPROTO);

	/* A length that does not match qps: an entry short, or one more. */
	sample_reconnect(&r, 3);
	n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
	assert_reconnect_refused(buf, n - MORE_LEN, "truncated QP list");
	assert_reconnect_refused(buf, n - 1, "truncated QP list");
	memset(buf + n, 0x11, MORE_LEN);
	assert_reconnect_refused(buf, n + MORE_LEN, "trailing bytes");
	assert_reconnect_refused(buf, n + 1, "trailing bytes");

	/* QPN 0 and QPN or PSN of 25 bits, on QP 0 and on the last. */
	for (i = 0; i < 3; i += 2) {
		uint8_t *q = buf + HDR + OFF_RC_QP + i * MORE_LEN;

		sample_reconnect(&r, 3);
		n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
		be_put(q + OFF_MORE_QPN, 4, 0);
		assert_reconnect_refused(buf, n, "qpn out of range");
		be_put(q + OFF_MORE_QPN, 4, 1u << 24);
		assert_reconnect_refused(buf, n, "qpn out of range");
		be_put(q + OFF_MORE_QPN, 4, UINT32_MAX);
		assert_reconnect_refused(buf, n, "qpn out of range");
		be_put(q + OFF_MORE_QPN, 4, 0xffffff);
		be_put(q + OFF_MORE_PSN, 4, 1u << 24);
		assert_reconnect_refused(buf, n, "psn out of range");
		be_put(q + OFF_MORE_PSN, 4, 0xffffff);
		assert_int_equal(unpack_reconnect(buf, n, &out, NULL), 0);

		r.qp[i].qpn = 0;
		assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf),
							 &r), RP_EPROTO);
		r.qp[i].qpn = 1u << 24;
		assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf),
							 &r), RP_EPROTO);
		r.qp[i].qpn = 1;
		r.qp[i].psn = 1u << 24;
		assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf),
							 &r), RP_EPROTO);
	}
	/* The QPs past qps are not read: anything there is not sent. */
	sample_reconnect(&r, 2);
	r.qp[2].qpn = 0;
	r.qp[3].psn = UINT32_MAX;
	assert_int_equal(rp_proto_pack_reconnect(buf, sizeof(buf), &r),
			 HDR + RC_FIXED + 2 * MORE_LEN);

	/* The reserved bytes, each bit. */
	for (k = 0; k < 24; k++) {
		sample_reconnect(&r, 1);
		n = (size_t)rp_proto_pack_reconnect(buf, sizeof(buf), &r);
		buf[HDR + OFF_RC_RSVD + k / 8] = (uint8_t)(1u << k % 8);
		assert_reconnect_refused(buf, n, "reserved bytes not zero");
	}
}

/* The --trace lines of version 7's messages, caught from the sink. */
static char traced[512];

static void trace_sink(void *ctx, const char *area, const char *kind,
		       const char *text)
{
	(void)ctx;
	(void)area;
	(void)kind;
	snprintf(traced, sizeof(traced), "%s", text);
}

static const char *trace_of(const char *dir, uint8_t type, const void *m)
{
	traced[0] = '\0';
	rp_trace_set_sink(trace_sink, NULL);
	rp_msg_trace(dir, type, m);
	rp_trace_set_sink(NULL, NULL);
	return traced;
}

static void test_trace_v7(void **state)
{
	static struct rp_file f;
	struct rp_have h;
	struct rp_from fr = { .id = 3, .offset = 1 << 20 };
	struct rp_reconnect r;

	(void)state;
	/* Without want and update, FILE's line is version 6's, exactly. */
	sample_file(&f, RP_FILE_REG);
	f.size = 4096;
	assert_string_equal(trace_of("->", RP_MSG_FILE, &f),
			    "-> FILE id=2309737967 file path=\"dir/f\" "
			    "mode=0644 size=4096");
	f.want = RP_WANT_RESUME;
	assert_string_equal(trace_of("<-", RP_MSG_FILE, &f),
			    "<- FILE id=2309737967 file path=\"dir/f\" "
			    "mode=0644 size=4096 resume");
	f.update = RP_UPDATE_MTIME;
	assert_string_equal(trace_of("->", RP_MSG_FILE, &f),
			    "-> FILE id=2309737967 file path=\"dir/f\" "
			    "mode=0644 size=4096 resume update=mtime");
	f.want = 0;
	f.update = RP_UPDATE_CHECKSUM;
	assert_string_equal(trace_of("->", RP_MSG_FILE, &f),
			    "-> FILE id=2309737967 file path=\"dir/f\" "
			    "mode=0644 size=4096 update=checksum");

	memset(&h, 0, sizeof(h));
	h.id = 3;
	h.verdict = RP_HAVE_UPTODATE;
	assert_string_equal(trace_of("<-", RP_MSG_HAVE, &h),
			    "<- HAVE id=3 up-to-date");
	sample_have(&h);
	assert_string_equal(trace_of("->", RP_MSG_HAVE, &h),
			    "-> HAVE id=16909060 partial bytes=3145728 "
			    "(3.00 MiB) xxh3_128="
			    "e0e1e2e3e4e5e6e7e8e9eaebecedeeef");
	assert_string_equal(trace_of("->", RP_MSG_FROM, &fr),
			    "-> FROM id=3 offset=1048576");
	sample_reconnect(&r, 1);
	assert_string_equal(trace_of("<-", RP_MSG_RECONNECT, &r),
			    "<- RECONNECT attempt=1 next_chunk="
			    "72623859790382856 qpn=0x000200 psn=0xffffe0 "
			    "qps=1");
}

/* CHAIN's trace: how many hops and the next, escaped. */
static void test_trace_chain(void **state)
{
	static struct rp_chain_msg o;
	struct rp_host hop[2];
	struct rp_chain_msg m = { .n = 2, .hop = hop };
	uint8_t buf[RP_PROTO_MAX_MSG];
	int n;

	(void)state;
	memset(hop, 0, sizeof(hop));
	snprintf(hop[0].name, sizeof(hop[0].name), "node02");
	hop[0].port = 18500;
	snprintf(hop[1].name, sizeof(hop[1].name), "node03");
	hop[1].port = 7;
	assert_string_equal(trace_of("->", RP_MSG_CHAIN, &m),
			    "-> CHAIN hops=2 next=node02:18500");
	n = rp_proto_pack_chain(buf, sizeof(buf), &m);
	assert_true(n > HDR);
	assert_int_equal(rp_proto_unpack_chain(buf + HDR, (size_t)n - HDR, &o,
					       NULL), 0);
	assert_string_equal(trace_of("<-", RP_MSG_CHAIN, &o),
			    "<- CHAIN hops=2 next=node02:18500");
	/* What no decoder lets through is still escaped. */
	snprintf(hop[0].name, sizeof(hop[0].name), "a\x1b[2Jb");
	assert_string_equal(trace_of("->", RP_MSG_CHAIN, &m),
			    "-> CHAIN hops=2 next=a\\u{001b}[2Jb:18500");
}

/* HOST's trace: the hop, its result, its text escaped. */
static void test_trace_host(void **state)
{
	struct rp_host_msg m;

	(void)state;
	sample_host(&m);
	assert_string_equal(trace_of("<-", RP_MSG_HOST, &m),
			    "<- HOST hop=258 status=1 (file exists) files=3 "
			    "failed=1 bytes=4294967296 text=\"no\"");
	m.text_len = 3;
	memcpy(m.text, "a\x1b" "b", 3);
	assert_string_equal(trace_of("->", RP_MSG_HOST, &m),
			    "-> HOST hop=258 status=1 (file exists) files=3 "
			    "failed=1 bytes=4294967296 text=\"a\\u{001b}b\"");
	m.text_len = 0;
	m.status = RP_ST_OK;
	assert_string_equal(trace_of("->", RP_MSG_HOST, &m),
			    "-> HOST hop=258 status=0 (ok) files=3 "
			    "failed=1 bytes=4294967296");
}

/* ---- truncation, trailing bytes, short buffers ------------------------- */

/* One valid message of every type and shape, from its struct. */
union any_msg {
	struct rp_hello hello;
	struct rp_mr mr;
	struct rp_fin fin;
	struct rp_file file;
	struct rp_fend fend;
	struct rp_result result;
	struct rp_auth auth;
	struct rp_sync sync;
	struct rp_have have;
	struct rp_from from;
	struct rp_reconnect reconnect;
	struct rp_chain_msg chain;
	struct rp_host_msg host;
};

struct sample_msg {
	uint8_t type;
	union any_msg m;
};

#define NSAMPLES	25

/* Hops for CHAIN samples: a name, and an IPv6 address with a zone at
 * the longest name. */
static struct rp_host sample_hops[3];

static void make_sample_hops(void)
{
	memset(sample_hops, 0, sizeof(sample_hops));
	snprintf(sample_hops[0].name, sizeof(sample_hops[0].name), "node02");
	sample_hops[0].port = 18500;
	snprintf(sample_hops[1].name, sizeof(sample_hops[1].name),
		 "fe80::1%%eth0");
	sample_hops[1].port = 1;
	sample_hops[1].ipv6 = true;
	memset(sample_hops[2].name, 'n', RP_HOST_NAME_MAX);
	sample_hops[2].port = 65535;
}

static void make_samples(struct sample_msg s[NSAMPLES])
{
	int i = 0;

	memset(s, 0, NSAMPLES * sizeof(*s));
	s[i].type = RP_MSG_HELLO;
	sample_hello(&s[i++].m.hello);
	s[i].type = RP_MSG_MR;
	sample_mr(&s[i++].m.mr);
	s[i].type = RP_MSG_HELLO;
	sample_hello_qps(&s[i++].m.hello, 3);
	s[i].type = RP_MSG_MR;
	sample_mr_qps(&s[i++].m.mr, 3);
	s[i].type = RP_MSG_FIN;
	sample_fin(&s[i++].m.fin);
	s[i].type = RP_MSG_FILE;
	sample_file(&s[i++].m.file, RP_FILE_REG);
	s[i].type = RP_MSG_FILE;
	sample_file(&s[i].m.file, RP_FILE_DIR);
	longest_path(&s[i++].m.file);
	s[i].type = RP_MSG_FEND;
	sample_fend(&s[i++].m.fend);
	s[i].type = RP_MSG_ERR;
	sample_result(&s[i++].m.result);
	s[i].type = RP_MSG_ACK;
	s[i++].m.result.bytes = 1;
	s[i].type = RP_MSG_FACK;
	sample_result(&s[i++].m.result);
	s[i].type = RP_MSG_FACK;
	s[i++].m.result.id = 3;
	s[i].type = RP_MSG_AUTH;
	s[i].m.auth.step = RP_AUTH_RESPOND;
	memset(s[i++].m.auth.mac, 0x6d, RP_AUTH_MAC_LEN);
	s[i].type = RP_MSG_SYNC;
	s[i].m.sync.id = 9;
	s[i].m.sync.synced_bytes = 1;
	s[i++].m.sync.total_bytes = 2;
	/* Version 7. */
	s[i].type = RP_MSG_FILE;
	sample_file7(&s[i++].m.file);
	s[i].type = RP_MSG_HAVE;
	s[i++].m.have.id = 1;
	s[i].type = RP_MSG_HAVE;
	s[i++].m.have.verdict = RP_HAVE_UPTODATE;
	s[i].type = RP_MSG_HAVE;
	sample_have(&s[i++].m.have);
	s[i].type = RP_MSG_FROM;
	s[i].m.from.id = 4;
	s[i++].m.from.offset = 1 << 20;
	s[i].type = RP_MSG_RECONNECT;
	sample_reconnect(&s[i++].m.reconnect, 1);
	s[i].type = RP_MSG_RECONNECT;
	sample_reconnect(&s[i++].m.reconnect, RP_QPS_MAX);
	/* Chain push. */
	make_sample_hops();
	s[i].type = RP_MSG_CHAIN;
	s[i].m.chain.n = 1;
	s[i++].m.chain.hop = sample_hops;
	s[i].type = RP_MSG_CHAIN;
	s[i].m.chain.n = 3;
	s[i++].m.chain.hop = sample_hops;
	s[i].type = RP_MSG_HOST;
	sample_host(&s[i++].m.host);
	s[i].type = RP_MSG_HOST;
	s[i++].m.host.hop = 1;
	assert_int_equal(i, NSAMPLES);
}

static int pack_any(uint8_t *buf, size_t len, const struct sample_msg *s)
{
	switch (s->type) {
	case RP_MSG_HELLO:
		return rp_proto_pack_hello(buf, len, &s->m.hello);
	case RP_MSG_MR:
		return rp_proto_pack_mr(buf, len, &s->m.mr);
	case RP_MSG_FIN:
		return rp_proto_pack_fin(buf, len, &s->m.fin);
	case RP_MSG_FILE:
		return rp_proto_pack_file(buf, len, &s->m.file);
	case RP_MSG_FEND:
		return rp_proto_pack_fend(buf, len, &s->m.fend);
	case RP_MSG_AUTH:
		return rp_proto_pack_auth(buf, len, &s->m.auth);
	case RP_MSG_SYNC:
		return rp_proto_pack_sync(buf, len, &s->m.sync);
	case RP_MSG_HAVE:
		return rp_proto_pack_have(buf, len, &s->m.have);
	case RP_MSG_FROM:
		return rp_proto_pack_from(buf, len, &s->m.from);
	case RP_MSG_RECONNECT:
		return rp_proto_pack_reconnect(buf, len, &s->m.reconnect);
	case RP_MSG_CHAIN:
		return rp_proto_pack_chain(buf, len, &s->m.chain);
	case RP_MSG_HOST:
		return rp_proto_pack_host(buf, len, &s->m.host);
	default:
		return rp_proto_pack_result(buf, len, s->type, &s->m.result);
	}
}

static int unpack_any(uint8_t type, const uint8_t *p, size_t len,
		      union any_msg *m, const char **why)
{
	switch (type) {
	case RP_MSG_HELLO:
		return rp_proto_unpack_hello(p, len, &m->hello, why);
	case RP_MSG_MR:
		return rp_proto_unpack_mr(p, len, &m->mr, why);
	case RP_MSG_FIN:
		return rp_proto_unpack_fin(p, len, &m->fin, why);
	case RP_MSG_FILE:
		return rp_proto_unpack_file(p, len, &m->file, why);
	case RP_MSG_FEND:
		return rp_proto_unpack_fend(p, len, &m->fend, why);
	case RP_MSG_AUTH:
		return rp_proto_unpack_auth(p, len, &m->auth, why);
	case RP_MSG_SYNC:
		return rp_proto_unpack_sync(p, len, &m->sync, why);
	case RP_MSG_HAVE:
		return rp_proto_unpack_have(p, len, &m->have, why);
	case RP_MSG_FROM:
		return rp_proto_unpack_from(p, len, &m->from, why);
	case RP_MSG_RECONNECT:
		return rp_proto_unpack_reconnect(p, len, &m->reconnect, why);
	case RP_MSG_CHAIN:
		return rp_proto_unpack_chain(p, len, &m->chain, why);
	case RP_MSG_HOST:
		return rp_proto_unpack_host(p, len, &m->host, why);
	default:
		return rp_proto_unpack_result(p, len, type, &m->result, why);
	}
}

/* Decode; a failed decode must leave the output alone. */
static int do_unpack(uint8_t type, const uint8_t *p, size_t len,
		     const char **why)
{
	static union any_msg m;
	static union any_msg before;
	int rc;

	memset(&m, 0xa5, sizeof(m));
	before = m;
	rc = unpack_any(type, p, len, &m, why);
	if (rc)
		assert_memory_equal(&m, &before, sizeof(m));
	return rc;
}

static void test_truncation(void **state)
{
	static struct sample_msg s[NSAMPLES];
	static uint8_t buf[RP_PROTO_MAX_MSG];
	static uint8_t again[RP_PROTO_MAX_MSG];
	union any_msg m;
	const char *why;
	size_t plen;
	size_t len;
	int i;
	int n;

	(void)state;
	make_samples(s);
	for (i = 0; i < NSAMPLES; i++) {
		n = pack_any(buf, sizeof(buf), &s[i]);
		assert_true(n > HDR);
		assert_hdr(buf, n, s[i].type);
		plen = (size_t)n - HDR;
		/* Whole: decodes, and encodes back to the same bytes. */
		memset(&m, 0, sizeof(m));
		assert_int_equal(unpack_any(s[i].type, buf + HDR, plen, &m,
					    NULL), 0);
		if (s[i].type == RP_MSG_ACK || s[i].type == RP_MSG_ERR ||
		    s[i].type == RP_MSG_FACK)
			m.result.id = s[i].m.result.id;
		s[i].m = m;
		assert_int_equal(pack_any(again, sizeof(again), &s[i]), n);
		assert_memory_equal(again, buf, (size_t)n);
		/*
		 * Cut short anywhere: refused, with a reason; but an MR
		 * cut after a whole entry is one with fewer QPs.
		 */
		for (len = 0; len < plen; len++) {
			if (s[i].type == RP_MSG_MR && len >= MR_PLEN &&
			    (len - MR_PLEN) % MORE_LEN == 0) {
				assert_int_equal(do_unpack(s[i].type,
							   buf + HDR, len,
							   NULL), 0);
				continue;
			}
			why = NULL;
			assert_int_equal(do_unpack(s[i].type, buf + HDR, len,
						   &why), RP_EPROTO);
			assert_non_null(why);
			assert_int_equal(do_unpack(s[i].type, buf + HDR, len,
						   NULL), RP_EPROTO);
		}
		/* An empty payload with no buffer at all. */
		assert_int_equal(do_unpack(s[i].type, NULL, 0, NULL),
				 RP_EPROTO);
	}
}

static void test_trailing_byte(void **state)
{
	static struct sample_msg s[NSAMPLES];
	static uint8_t buf[RP_PROTO_MAX_MSG + 1];
	const char *why;
	int i;
	int n;

	(void)state;
	make_samples(s);
	for (i = 0; i < NSAMPLES; i++) {
		n = pack_any(buf, sizeof(buf), &s[i]);
		assert_true(n > HDR);
		buf[n] = 0;
		why = NULL;
		assert_int_equal(do_unpack(s[i].type, buf + HDR,
					   (size_t)n - HDR + 1, &why),
				 RP_EPROTO);
		assert_string_equal(why, "trailing bytes");
	}
}

static void test_enobufs(void **state)
{
	static struct sample_msg s[NSAMPLES];
	static uint8_t buf[RP_PROTO_MAX_MSG + 1];
	size_t need;
	size_t len;
	int i;
	int rc;

	(void)state;
	make_samples(s);
	for (i = 0; i < NSAMPLES; i++) {
		rc = pack_any(buf, RP_PROTO_MAX_MSG, &s[i]);
		assert_true(rc > HDR);
		need = (size_t)rc;
		for (len = 0; len <= need; len++) {
			/* A guard byte right after len catches overruns. */
			memset(buf, 0xee, need + 1);
			rc = pack_any(buf, len, &s[i]);
			if (len < need)
				assert_int_equal(rc, -ENOBUFS);
			else
				assert_int_equal(rc, (int)need);
			assert_int_equal(buf[len], 0xee);
		}
		assert_int_equal(pack_any(NULL, 0, &s[i]), -ENOBUFS);
	}
}

/* ---- header ------------------------------------------------------------ */

static void valid_hdr(uint8_t *b)
{
	static const uint8_t hdr[HDR] = {
		0x52, 0x44, 0x50, 0x55, 7, RP_MSG_FIN, 0, 0, 0, 0, 0, FIN_PLEN,
	};

	memcpy(b, hdr, HDR);
}

static void test_hdr_valid(void **state)
{
	uint8_t b[HDR + 4];
	struct rp_msg_hdr h;
	const char *why = NULL;
	unsigned int t;

	(void)state;
	valid_hdr(b);
	memset(&h, 0, sizeof(h));
	assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why), 0);
	assert_null(why);
	assert_int_equal(h.version, 7);
	assert_int_equal(RP_PROTO_VERSION, 7);
	assert_int_equal(h.type, RP_MSG_FIN);
	assert_int_equal(h.length, FIN_PLEN);
	/* A longer buffer is fine: only the first 12 bytes are the header. */
	assert_int_equal(rp_proto_parse_hdr(b, sizeof(b), &h, NULL), 0);

	for (t = RP_MSG_HELLO; t < RP_MSG_TYPE_MAX; t++) {
		b[5] = (uint8_t)t;
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL), 0);
		assert_int_equal(h.type, t);
	}
	be_put(b + 8, 4, 0);
	assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL), 0);
	assert_int_equal(h.length, 0);
	be_put(b + 8, 4, RP_PROTO_MAX_PAYLOAD);
	assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL), 0);
	assert_int_equal(h.length, RP_PROTO_MAX_PAYLOAD);
}

static void test_hdr_bad_magic(void **state)
{
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	int i;
	int bit;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (bit = 0; bit < 8; bit++) {
			valid_hdr(b);
			b[i] ^= (uint8_t)(1u << bit);
			why = NULL;
			/* Not our protocol at all: told apart from a
			 * malformed message of ours. */
			assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why),
					 RP_ENOTPEER);
			assert_string_equal(why, "bad magic");
		}
	}
	/* Byte-swapped: the magic is big-endian, not host order. */
	valid_hdr(b);
	be_put(b, 4, 0x55504452);
	assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL), RP_ENOTPEER);
	/* What an SSH server says first. */
	memcpy(b, "SSH-2.0-Open", HDR);
	assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL), RP_ENOTPEER);
}

static void test_hdr_version(void **state)
{
	static const uint8_t bad[] = { 0, 1, 2, 3, 4, 5, 6, 8, 0xff };
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		valid_hdr(b);
		b[4] = bad[i];
		why = NULL;
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why),
				 RP_EVERSION);
		assert_string_equal(why, "unsupported version");
		memset(&h, 0, sizeof(h));
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, NULL),
				 RP_EVERSION);
		/* The caller says which version the peer speaks. */
		assert_int_equal(h.version, bad[i]);
	}
}

/*
 * An ERR for an older peer (version 5 down to 1): our ERR with its
 * version byte, nothing else; the payload decodes as an ERR.
 */
static void test_err_at_version(void **state)
{
	static const uint8_t old[] = { 6, 5, 4, 3, 2, 1 };
	uint8_t buf[RP_PROTO_MAX_MSG], want[RP_PROTO_MAX_MSG];
	struct rp_result r = { .status = RP_ST_VERSION, .text_len = 2 };
	struct rp_result out;
	struct rp_msg_hdr h;
	size_t i;
	int n;

	(void)state;
	memcpy(r.text, "v7", 2);
	for (i = 0; i < ARRAY_SIZE(old); i++) {
		n = rp_proto_pack_err_at(buf, sizeof(buf), old[i], &r);
		assert_int_equal(n, rp_proto_pack_result(want, sizeof(want),
							 RP_MSG_ERR, &r));
		assert_int_equal(buf[4], old[i]);
		assert_int_equal(buf[5], RP_MSG_ERR);
		assert_int_equal(rp_proto_parse_hdr(buf, HDR, &h, NULL),
				 RP_EVERSION);
		assert_int_equal(h.version, old[i]);
		assert_int_equal(unpack_result(buf, n, RP_MSG_ERR, &out, NULL),
				 0);
		assert_int_equal(out.status, RP_ST_VERSION);
		buf[4] = RP_PROTO_VERSION;
		assert_memory_equal(buf, want, (size_t)n);
	}
	r.status = RP_ST_MAX;
	assert_int_equal(rp_proto_pack_err_at(buf, sizeof(buf), 2, &r),
			 RP_EPROTO);
}

/* Room for a tag: the header's length grows, within the cap only. */
static void test_grow(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fin f = { .bytes = 7 };
	struct rp_msg_hdr h;
	int n;

	(void)state;
	n = rp_proto_pack_fin(buf, sizeof(buf), &f);
	assert_int_equal(n, HDR + FIN_PLEN);
	assert_int_equal(rp_proto_grow(buf, (size_t)n, 32), 0);
	assert_int_equal(rp_proto_parse_hdr(buf, HDR, &h, NULL), 0);
	assert_int_equal(h.length, FIN_PLEN + 32);
	/* n no longer matches the header: refused. */
	assert_int_equal(rp_proto_grow(buf, (size_t)n, 32), RP_EPROTO);
	n = rp_proto_pack_fin(buf, sizeof(buf), &f);
	assert_int_equal(rp_proto_grow(buf, (size_t)n,
				       RP_PROTO_MAX_PAYLOAD - FIN_PLEN), 0);
	n = rp_proto_pack_fin(buf, sizeof(buf), &f);
	assert_int_equal(rp_proto_grow(buf, (size_t)n,
				       RP_PROTO_MAX_PAYLOAD - FIN_PLEN + 1),
			 RP_EPROTO);
	assert_int_equal(rp_proto_grow(buf, 3, 0), RP_EPROTO);
}

static void test_hdr_type(void **state)
{
	static const uint8_t bad[] = { 0, RP_MSG_TYPE_MAX, 0x80, 0xff };
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		valid_hdr(b);
		b[5] = bad[i];
		why = NULL;
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why),
				 RP_EPROTO);
		assert_string_equal(why, "unknown message type");
	}
}

static void test_hdr_reserved(void **state)
{
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	int i;

	(void)state;
	for (i = 6; i < 8; i++) {
		valid_hdr(b);
		b[i] = 1;
		why = NULL;
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why),
				 RP_EPROTO);
		assert_string_equal(why, "reserved bits not zero");
	}
}

static void test_hdr_length(void **state)
{
	static const uint32_t bad[] = {
		RP_PROTO_MAX_PAYLOAD + 1, 0x10000, 0x80000000, 0xffffffff,
	};
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		valid_hdr(b);
		be_put(b + 8, 4, bad[i]);
		why = NULL;
		assert_int_equal(rp_proto_parse_hdr(b, HDR, &h, &why),
				 RP_EPROTO);
		assert_string_equal(why, "payload too long");
	}
}

static void test_hdr_short(void **state)
{
	uint8_t b[HDR];
	struct rp_msg_hdr h;
	const char *why;
	size_t len;

	(void)state;
	valid_hdr(b);
	for (len = 0; len < HDR; len++) {
		why = NULL;
		assert_int_equal(rp_proto_parse_hdr(b, len, &h, &why),
				 RP_EPROTO);
		assert_string_equal(why, "short header");
	}
	assert_int_equal(rp_proto_parse_hdr(NULL, 0, &h, NULL), RP_EPROTO);
}

/* ---- names and status mapping ------------------------------------------ */

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(rp_proto_type_name(RP_MSG_HELLO), "HELLO");
	assert_string_equal(rp_proto_type_name(RP_MSG_MR), "MR");
	assert_string_equal(rp_proto_type_name(RP_MSG_FIN), "FIN");
	assert_string_equal(rp_proto_type_name(RP_MSG_ACK), "ACK");
	assert_string_equal(rp_proto_type_name(RP_MSG_ERR), "ERR");
	assert_string_equal(rp_proto_type_name(RP_MSG_AUTH), "AUTH");
	assert_string_equal(rp_proto_type_name(RP_MSG_SYNC), "SYNC");
	assert_string_equal(rp_proto_type_name(RP_MSG_FILE), "FILE");
	assert_string_equal(rp_proto_type_name(RP_MSG_FEND), "FEND");
	assert_string_equal(rp_proto_type_name(RP_MSG_FACK), "FACK");
	assert_int_equal(RP_MSG_FILE, 8);
	assert_int_equal(RP_MSG_FEND, 9);
	assert_int_equal(RP_MSG_FACK, 10);
	assert_string_equal(rp_proto_type_name(RP_MSG_HAVE), "HAVE");
	assert_string_equal(rp_proto_type_name(RP_MSG_FROM), "FROM");
	assert_string_equal(rp_proto_type_name(RP_MSG_RECONNECT),
			    "RECONNECT");
	assert_int_equal(RP_MSG_HAVE, 11);
	assert_int_equal(RP_MSG_FROM, 12);
	assert_int_equal(RP_MSG_RECONNECT, 13);
	assert_string_equal(rp_proto_type_name(RP_MSG_CHAIN), "CHAIN");
	assert_int_equal(RP_MSG_CHAIN, 14);
	assert_string_equal(rp_proto_type_name(RP_MSG_HOST), "HOST");
	assert_int_equal(RP_MSG_HOST, 15);
	assert_int_equal(RP_MSG_TYPE_MAX, 16);
	assert_string_equal(rp_proto_type_name(0), "?");
	assert_string_equal(rp_proto_type_name(RP_MSG_TYPE_MAX), "?");
	assert_string_equal(rp_proto_type_name(UINT_MAX), "?");
}

/*
 * The message table: every type has a row with all its columns, its
 * codec is proto.c's (the same bytes either way), and the stages say who
 * may send what: these sets are what the session waits for.
 */
static void test_msg_table(void **state)
{
	uint8_t a[RP_PROTO_MAX_MSG], b[RP_PROTO_MAX_MSG];
	struct rp_hello h;
	union rp_msg m;
	const char *why = NULL;
	char names[64];
	int na, nb;

	(void)state;
	for (unsigned int t = 1; t < RP_MSG_TYPE_MAX; t++) {
		const struct rp_msg_desc *d = rp_msg_desc(t);

		assert_non_null(d);
		assert_non_null(d->pack);
		assert_non_null(d->unpack);
		assert_non_null(d->trace);
		assert_string_equal(d->name, rp_proto_type_name(t));
	}
	assert_null(rp_msg_desc(0));
	assert_null(rp_msg_desc(RP_MSG_TYPE_MAX));
	sample_hello(&h);
	na = rp_msg_pack(a, sizeof(a), RP_MSG_HELLO, &h);
	nb = rp_proto_pack_hello(b, sizeof(b), &h);
	assert_true(na > RP_PROTO_HDR_LEN);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, (size_t)na);
	assert_int_equal(rp_msg_unpack(RP_MSG_HELLO, a + RP_PROTO_HDR_LEN,
				       (size_t)na - RP_PROTO_HDR_LEN, &m, &why),
			 0);
	assert_int_equal(m.hello.chunk, h.chunk);
	assert_int_equal(rp_msg_pack(a, sizeof(a), 0, &h), RP_EPROTO);
	assert_int_equal(rp_msg_unpack(99, a, 0, &m, &why), RP_EUNEXPECTED);
	assert_non_null(why);

#define BIT RP_MSG_BIT
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_AUTH),
			 BIT(RP_MSG_AUTH) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_AUTH),
			 BIT(RP_MSG_AUTH) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_HELLO),
			 BIT(RP_MSG_HELLO) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_HELLO),
			 BIT(RP_MSG_MR) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_SETUP),
			 BIT(RP_MSG_MR) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_SETUP),
			 BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_FILES),
			 BIT(RP_MSG_FILE) | BIT(RP_MSG_FEND) |
			 BIT(RP_MSG_FIN) | BIT(RP_MSG_FROM) |
			 BIT(RP_MSG_RECONNECT) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_FILES),
			 BIT(RP_MSG_FACK) | BIT(RP_MSG_SYNC) |
			 BIT(RP_MSG_HAVE) | BIT(RP_MSG_RECONNECT) |
			 BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_END),
			 BIT(RP_MSG_RECONNECT) | BIT(RP_MSG_ERR));
	assert_int_equal(rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_END),
			 BIT(RP_MSG_ACK) | BIT(RP_MSG_FACK) |
			 BIT(RP_MSG_SYNC) | BIT(RP_MSG_RECONNECT) |
			 BIT(RP_MSG_HOST) | BIT(RP_MSG_ERR));
	/* CHAIN comes only when its HELLO announced it: in no set, asked
	 * for by name, and from a sender in stage HELLO only. */
	for (int st = RP_STAGE_AUTH; st < RP_STAGE_MAX; st++)
		assert_int_equal(rp_msg_expect(RP_SIDE_BOTH, st) &
				 BIT(RP_MSG_CHAIN), 0);
	assert_true(rp_msg_desc(RP_MSG_CHAIN)->announced);
	assert_int_equal(rp_msg_desc(RP_MSG_CHAIN)->from[RP_STAGE_HELLO],
			 RP_SIDE_SENDER);
	for (unsigned int t = 1; t < RP_MSG_TYPE_MAX; t++)
		assert_true(rp_msg_desc(t)->announced == (t == RP_MSG_CHAIN));
	/* HOST: a receiver's, at the end only. */
	for (int st = RP_STAGE_AUTH; st < RP_STAGE_END; st++)
		assert_int_equal(rp_msg_expect(RP_SIDE_BOTH, st) &
				 BIT(RP_MSG_HOST), 0);
	assert_int_equal(rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_END) &
			 BIT(RP_MSG_HOST), 0);
	/* Version 7's messages come in no stage before FILES. */
	for (int st = RP_STAGE_AUTH; st < RP_STAGE_FILES; st++)
		assert_int_equal(rp_msg_expect(RP_SIDE_BOTH, st) &
				 (BIT(RP_MSG_HAVE) | BIT(RP_MSG_FROM) |
				  BIT(RP_MSG_RECONNECT)), 0);
	assert_string_equal(rp_msg_set_name(BIT(RP_MSG_HELLO) |
					    BIT(RP_MSG_ERR), names,
					    sizeof(names)), "HELLO");
	assert_string_equal(rp_msg_set_name(BIT(RP_MSG_FACK) |
					    BIT(RP_MSG_SYNC), names,
					    sizeof(names)), "SYNC or FACK");
	assert_string_equal(rp_msg_set_name(rp_msg_expect(RP_SIDE_SENDER,
							  RP_STAGE_FILES),
					    names, sizeof(names)),
			    "FIN, FILE, FEND, FROM or RECONNECT");
#undef BIT
}

static const char *const status_text[RP_ST_MAX] = {
	"ok", "file exists", "bad file name", "not enough space",
	"limit exceeded", "receiver busy", "protocol error",
	"checksum mismatch", "I/O error on receiver", "RDMA failure",
	"authentication failed", "unsupported version", "timed out",
	"internal error", "aborted by peer", "integrity check failed",
};

static void test_status_names(void **state)
{
	unsigned int s;

	(void)state;
	for (s = 0; s < RP_ST_MAX; s++)
		assert_string_equal(rp_proto_status_name(s), status_text[s]);
	assert_string_equal(rp_proto_status_name(RP_ST_MAX), "unknown status");
	assert_string_equal(rp_proto_status_name(UINT_MAX), "unknown status");
}

struct err_st {
	int rc;
	uint16_t st;
};

/* Local error -> wire status, as documented. */
static const struct err_st from_err[] = {
	{ 0, RP_ST_OK },
	{ RP_EEXIST, RP_ST_EXISTS },
	{ RP_EBADNAME, RP_ST_BADNAME },
	{ RP_ENOSPACE, RP_ST_NOSPACE },
	{ -ENOSPC, RP_ST_NOSPACE },
	{ RP_ELIMIT, RP_ST_LIMIT },
	{ RP_EBUSY, RP_ST_BUSY },
	{ RP_EPROTO, RP_ST_PROTO },
	{ RP_EUNEXPECTED, RP_ST_PROTO },
	{ RP_ENOTPEER, RP_ST_PROTO },
	{ RP_ENOTPING, RP_ST_PROTO },
	{ RP_ENOTPUSH, RP_ST_PROTO },
	{ RP_ETAMPERED, RP_ST_TAMPERED },
	{ RP_ECHECKSUM, RP_ST_CHECKSUM },
	{ RP_EPEERIO, RP_ST_IO },
	{ RP_EPEERRDMA, RP_ST_RDMA },
	{ RP_EPEERABORT, RP_ST_ABORTED },
	{ RP_EWC, RP_ST_RDMA },
	{ RP_EVERBS, RP_ST_RDMA },
	{ RP_ENODEV, RP_ST_RDMA },
	{ RP_ENOGID, RP_ST_RDMA },
	{ RP_EAUTH, RP_ST_AUTH },
	{ RP_EVERSION, RP_ST_VERSION },
	{ RP_ETIMEOUT, RP_ST_TIMEOUT },
	{ RP_EINTERRUPTED, RP_ST_ABORTED },
	{ RP_ECTRLCLOSED, RP_ST_ABORTED },
	{ -EIO, RP_ST_IO },
	{ -ENOENT, RP_ST_IO },
	{ -EACCES, RP_ST_IO },
	{ -EDQUOT, RP_ST_IO },
	{ -1, RP_ST_IO },
	{ -4095, RP_ST_IO },
	{ RP_EUSAGE, RP_ST_INTERNAL },
	{ RP_EREFUSED, RP_ST_INTERNAL },
	{ RP_ERESOLVE, RP_ST_INTERNAL },
	{ RP_ENOTREG, RP_ST_INTERNAL },
	{ RP_EINTERNAL, RP_ST_INTERNAL },
	{ -4096, RP_ST_INTERNAL },
	{ INT_MIN, RP_ST_INTERNAL },
	{ 1, RP_ST_INTERNAL },
	{ INT_MAX, RP_ST_INTERNAL },
};

/* Wire status -> local error, indexed by status. */
static const int to_err[RP_ST_MAX] = {
	[RP_ST_OK] = 0,
	[RP_ST_EXISTS] = RP_EEXIST,
	[RP_ST_BADNAME] = RP_EBADNAME,
	[RP_ST_NOSPACE] = RP_ENOSPACE,
	[RP_ST_LIMIT] = RP_ELIMIT,
	[RP_ST_BUSY] = RP_EBUSY,
	[RP_ST_PROTO] = RP_EREFUSED,
	[RP_ST_CHECKSUM] = RP_ECHECKSUM,
	[RP_ST_IO] = RP_EPEERIO,
	[RP_ST_RDMA] = RP_EPEERRDMA,
	[RP_ST_AUTH] = RP_EAUTH,
	[RP_ST_VERSION] = RP_EVERSION,
	[RP_ST_TIMEOUT] = RP_ETIMEOUT,
	[RP_ST_INTERNAL] = RP_EREFUSED,
	[RP_ST_ABORTED] = RP_EPEERABORT,
	[RP_ST_TAMPERED] = RP_ETAMPERED,
};

static void test_status_from_err(void **state)
{
	uint16_t st;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(from_err); i++) {
		st = rp_proto_status_from_err(from_err[i].rc);
		if (st != from_err[i].st)
			print_error("from_err(%d)\n", from_err[i].rc);
		assert_int_equal(st, from_err[i].st);
	}
}

static void test_status_to_err(void **state)
{
	unsigned int s;

	(void)state;
	for (s = 0; s < RP_ST_MAX; s++)
		assert_int_equal(rp_proto_status_to_err((uint16_t)s),
				 to_err[s]);
	assert_int_equal(rp_proto_status_to_err(RP_ST_MAX), RP_EREFUSED);
	assert_int_equal(rp_proto_status_to_err(0xffff), RP_EREFUSED);
}

static void test_status_round_trip(void **state)
{
	unsigned int s;
	uint16_t back;

	(void)state;
	for (s = 0; s < RP_ST_MAX; s++) {
		back = rp_proto_status_from_err(rp_proto_status_to_err(
							(uint16_t)s));
		/*
		 * PROTO and INTERNAL both arrive as "refused by peer"; that
		 * local error goes back out as INTERNAL. Every other status
		 * survives the trip.
		 */
		if (s == RP_ST_PROTO)
			assert_int_equal(back, RP_ST_INTERNAL);
		else
			assert_int_equal(back, s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_roundtrip),
		cmocka_unit_test(test_hello_flags),
		cmocka_unit_test(test_mr_roundtrip),
		cmocka_unit_test(test_qps_roundtrip),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_fend_roundtrip),
		cmocka_unit_test(test_fin_roundtrip),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_result_roundtrip),
		cmocka_unit_test(test_pack_result_bad_type),
		cmocka_unit_test(test_golden_hello),
		cmocka_unit_test(test_golden_mr),
		cmocka_unit_test(test_golden_file),
		cmocka_unit_test(test_golden_v7),
		cmocka_unit_test(test_golden_chain),
		cmocka_unit_test(test_golden_host),
		cmocka_unit_test(test_host_bounds),
		cmocka_unit_test(test_trace_host),
		cmocka_unit_test(test_chain_bounds),
		cmocka_unit_test(test_trace_chain),
		cmocka_unit_test(test_golden_result),
		cmocka_unit_test(test_imm),
		cmocka_unit_test(test_layout_offsets),
		cmocka_unit_test(test_file_bounds),
		cmocka_unit_test(test_file_reserved),
		cmocka_unit_test(test_path_len_bounds),
		cmocka_unit_test(test_path_len_mismatch),
		cmocka_unit_test(test_path_embedded_nul),
		cmocka_unit_test(test_text_len_bounds),
		cmocka_unit_test(test_text_len_mismatch),
		cmocka_unit_test(test_qp_bounds),
		cmocka_unit_test(test_qp_reserved),
		cmocka_unit_test(test_gid_lid),
		cmocka_unit_test(test_chunk_window_zero),
		cmocka_unit_test(test_mr_len),
		cmocka_unit_test(test_hello_qps),
		cmocka_unit_test(test_mr_qps),
		cmocka_unit_test(test_more_bounds),
		cmocka_unit_test(test_status_bounds),
		cmocka_unit_test(test_layout_v7),
		cmocka_unit_test(test_file_v7_bounds),
		cmocka_unit_test(test_file_v6_refused),
		cmocka_unit_test(test_have_bounds),
		cmocka_unit_test(test_from),
		cmocka_unit_test(test_reconnect_bounds),
		cmocka_unit_test(test_trace_v7),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_trailing_byte),
		cmocka_unit_test(test_hdr_valid),
		cmocka_unit_test(test_hdr_bad_magic),
		cmocka_unit_test(test_hdr_version),
		cmocka_unit_test(test_err_at_version),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_hdr_type),
		cmocka_unit_test(test_hdr_reserved),
		cmocka_unit_test(test_hdr_length),
		cmocka_unit_test(test_hdr_short),
		cmocka_unit_test(test_enobufs),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_msg_table),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_status_from_err),
		cmocka_unit_test(test_status_to_err),
		cmocka_unit_test(test_status_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
