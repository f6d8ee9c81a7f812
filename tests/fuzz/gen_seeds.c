// SPDX-License-Identifier: MIT
/* Writes the fuzz seed corpus: valid messages of each type, and broken ones. */
/*
 * Build and run from the top of the tree:
 *   cc -std=gnu11 -D_GNU_SOURCE -Iinclude src/proto.c src/proto_status.c src/err.c \
 *	tests/fuzz/gen_seeds.c -o /tmp/gen_seeds
 *   /tmp/gen_seeds tests/fuzz/corpus/proto
 * The valid seeds come from our own encoders; the broken ones are valid
 * messages with one thing wrong, so the fuzzer starts right at the edges.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/proto.h"

#define HDR	RP_PROTO_HDR_LEN

static const char *outdir;
static int failed;

static void put_be(uint8_t *p, size_t width, uint64_t v)
{
	size_t i;

	for (i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
}

static void save(const char *name, const uint8_t *buf, int len)
{
	char path[4096];
	FILE *f;
	int n;

	if (len < 0) {
		fprintf(stderr, "gen_seeds: %s: encoder failed: %s\n", name,
			rp_strerror(len));
		failed = 1;
		return;
	}
	n = snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		fprintf(stderr, "gen_seeds: %s: path too long\n", name);
		failed = 1;
		return;
	}
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		failed = 1;
		return;
	}
	if (fwrite(buf, 1, (size_t)len, f) != (size_t)len)
		failed = 1;
	if (fclose(f))
		failed = 1;
}

static void qp(struct rp_qp_addr *a, uint32_t qpn)
{
	static const uint8_t gid[RP_GID_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 122, 10,
	};

	memset(a, 0, sizeof(*a));
	a->qpn = qpn;
	a->psn = 0x5a5a5a;
	a->mtu = 3;
	memcpy(a->gid, gid, sizeof(gid));
}

/* The QPs after the first (version 6): qps - 1 of them, each its own. */
static void more(struct rp_qp_more *m, unsigned int qps)
{
	unsigned int i;

	for (i = 0; i + 1 < qps; i++) {
		m[i].qpn = 0x20 + i;
		m[i].psn = 0x5a5a00 + i;
	}
}

/* flags: the flags word's bits 0..23 (RP_HELLO_*, op, qps; 0 is 1). */
static int hello(uint8_t *buf, uint32_t flags)
{
	struct rp_hello m;

	memset(&m, 0, sizeof(m));
	qp(&m.qp, 0x11);
	m.total = 1 << 30;
	m.chunk = 1 << 20;
	m.window = 16;
	m.flags = flags & 0xff;
	m.op = (uint8_t)(flags >> 8);
	m.qps = (uint8_t)(flags >> 16);
	more(m.more, m.qps);
	return rp_proto_pack_hello(buf, RP_PROTO_MAX_MSG, &m);
}

/* A FILE whose path is path_len bytes of "d/d/...". */
static int file(uint8_t *buf, uint8_t kind, uint64_t size, uint16_t path_len)
{
	struct rp_file m;
	uint16_t i;

	memset(&m, 0, sizeof(m));
	m.id = 1;
	m.kind = kind;
	m.mode = 0644;
	m.size = size;
	m.mtime_sec = 1795000000;
	m.mtime_nsec = 500000000;
	m.path_len = path_len;
	for (i = 0; i < path_len && i < RP_PATH_MAX; i++)
		m.path[i] = i % 2 ? '/' : 'd';
	return rp_proto_pack_file(buf, RP_PROTO_MAX_MSG, &m);
}

static int fend(uint8_t *buf)
{
	struct rp_fend m;

	memset(&m, 0, sizeof(m));
	m.id = 1;
	m.bytes = 1 << 30;
	memset(m.csum, 0xc5, RP_CSUM_LEN);
	return rp_proto_pack_fend(buf, RP_PROTO_MAX_MSG, &m);
}

static int mr(uint8_t *buf, uint32_t chunk, uint32_t window, uint8_t qps)
{
	struct rp_mr m;

	memset(&m, 0, sizeof(m));
	qp(&m.qp, 0x12);
	m.addr = 0x7f0000001000ull;
	m.rkey = 0x1234;
	m.chunk = chunk;
	m.window = window;
	m.len = (uint64_t)chunk * window;
	m.qps = qps;
	more(m.more, qps);
	return rp_proto_pack_mr(buf, RP_PROTO_MAX_MSG, &m);
}

static int result(uint8_t *buf, uint8_t type, uint16_t status,
		  uint16_t text_len)
{
	struct rp_result m;

	memset(&m, 0, sizeof(m));
	m.id = 2;
	m.status = status;
	m.bytes = 1 << 30;
	m.text_len = text_len;
	memset(m.text, 'e', text_len);
	return rp_proto_pack_result(buf, RP_PROTO_MAX_MSG, type, &m);
}

/* A FILE of version 7: "d/f", asking to resume and/or update. */
static int file7(uint8_t *buf, uint8_t want, uint8_t update)
{
	struct rp_file m;

	memset(&m, 0, sizeof(m));
	m.id = 1;
	m.kind = RP_FILE_REG;
	m.mode = 0644;
	m.size = 1 << 30;
	m.path_len = 3;
	memcpy(m.path, "d/f", 3);
	m.want = want;
	m.update = update;
	if (update == RP_UPDATE_CHECKSUM)
		memset(m.csum, 0x5c, RP_CSUM_LEN);
	return rp_proto_pack_file(buf, RP_PROTO_MAX_MSG, &m);
}

static int have(uint8_t *buf, uint8_t verdict)
{
	struct rp_have m;

	memset(&m, 0, sizeof(m));
	m.id = 1;
	m.verdict = verdict;
	if (verdict == RP_HAVE_PARTIAL) {
		m.bytes = 1 << 20;
		memset(m.csum, 0x7e, RP_CSUM_LEN);
	}
	return rp_proto_pack_have(buf, RP_PROTO_MAX_MSG, &m);
}

static int from(uint8_t *buf, uint64_t offset)
{
	struct rp_from m = { .id = 1, .offset = offset };

	return rp_proto_pack_from(buf, RP_PROTO_MAX_MSG, &m);
}

/* A RECONNECT with qps fresh QPs: QP 0 is among them. */
static int reconnect(uint8_t *buf, uint8_t qps)
{
	struct rp_reconnect m;

	memset(&m, 0, sizeof(m));
	m.attempt = 1;
	m.qps = qps;
	m.next_chunk = 1000;
	m.qp[0].qpn = 0x40;
	m.qp[0].psn = 0x5a5a5a;
	more(m.qp + 1, qps);
	return rp_proto_pack_reconnect(buf, RP_PROTO_MAX_MSG, &m);
}

/* A CHAIN of n hops (n <= 3): a name, an IPv6 address with a zone, the
 * longest name. */
static int chain(uint8_t *buf, uint16_t n)
{
	static struct rp_host hop[3];
	struct rp_chain_msg m = { .n = n, .hop = hop };

	memset(hop, 0, sizeof(hop));
	snprintf(hop[0].name, sizeof(hop[0].name), "node02");
	hop[0].port = 18500;
	snprintf(hop[1].name, sizeof(hop[1].name), "fe80::1%%eth0");
	hop[1].port = 1;
	memset(hop[2].name, 'n', RP_HOST_NAME_MAX);
	hop[2].port = 65535;
	return rp_proto_pack_chain(buf, RP_PROTO_MAX_MSG, &m);
}

/* A HOST for hop 2: failed, with a reason of text_len bytes. */
static int host(uint8_t *buf, uint16_t text_len)
{
	struct rp_host_msg m = { .hop = 2, .status = RP_ST_EXISTS,
				 .files = 3, .failed = 1, .bytes = 1 << 20,
				 .text_len = text_len };

	memset(m.text, 'x', text_len);
	return rp_proto_pack_host(buf, RP_PROTO_MAX_MSG, &m);
}

/* Valid, whole messages. */
static void valid(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	struct rp_hello h;
	struct rp_file f;
	struct rp_fin fin = { .files = 3, .bytes = 1 << 30 };
	struct rp_sync sy = { .id = 1, .synced_bytes = 1 << 20,
			      .total_bytes = 1 << 30 };
	struct rp_auth a = { .step = RP_AUTH_PROVE };

	save("hello", buf, hello(buf, 0));
	save("hello_preserve", buf, hello(buf, RP_HELLO_PRESERVE));
	/* Version 5: the op in bits 8..15 of the flags word. */
	save("hello_op_read", buf, hello(buf, RP_OP_READ << 8));
	save("hello_op_send", buf, hello(buf, RP_OP_SEND << 8));
	/* Version 6: qps in bits 16..23, and the QPs after the first. */
	save("hello_qps3", buf, hello(buf, 3 << 16 | RP_OP_READ << 8));
	memset(&h, 0, sizeof(h));
	qp(&h.qp, 0xffffff);
	memset(h.qp.gid, 0, RP_GID_LEN);
	h.qp.lid = 7;
	h.qp.mtu = 5;
	h.total = RP_SIZE_UNKNOWN;
	h.chunk = 4096;
	h.window = 1;
	save("hello_ib_stream", buf, rp_proto_pack_hello(buf, sizeof(buf), &h));
	save("mr", buf, mr(buf, 1 << 20, 16, 1));
	save("mr_max", buf, mr(buf, 0xffffffff, 0xffffffff, 1));
	save("mr_qps3", buf, mr(buf, 1 << 20, 16, 3));
	save("file", buf, file(buf, RP_FILE_REG, 1 << 30, 9));
	save("file_dir", buf, file(buf, RP_FILE_DIR, 0, 1));
	save("file_stream", buf, file(buf, RP_FILE_REG, RP_SIZE_UNKNOWN, 1));
	save("file_path_max", buf, file(buf, RP_FILE_REG, 0, RP_PATH_MAX));
	memset(&f, 0, sizeof(f));
	f.kind = RP_FILE_REG;
	f.mode = 07777;
	f.mtime_sec = -1;
	f.mtime_nsec = 999999999;
	f.path_len = 3;
	memcpy(f.path, "a\0b", 3);
	save("file_nul_mtime", buf, rp_proto_pack_file(buf, sizeof(buf), &f));
	save("fend", buf, fend(buf));
	save("fin", buf, rp_proto_pack_fin(buf, sizeof(buf), &fin));
	save("ack_ok", buf, result(buf, RP_MSG_ACK, RP_ST_OK, 0));
	save("err_text", buf, result(buf, RP_MSG_ERR, RP_ST_EXISTS, 20));
	save("err_text255", buf,
	     result(buf, RP_MSG_ERR, RP_ST_ABORTED, RP_TEXT_MAX));
	save("fack_ok", buf, result(buf, RP_MSG_FACK, RP_ST_OK, 0));
	save("fack_text", buf, result(buf, RP_MSG_FACK, RP_ST_BADNAME, 30));
	save("sync", buf, rp_proto_pack_sync(buf, sizeof(buf), &sy));
	memset(a.nonce, 0x3c, sizeof(a.nonce));
	memset(a.mac, 0xa7, sizeof(a.mac));
	save("auth", buf, rp_proto_pack_auth(buf, sizeof(buf), &a));
	/* Version 7: FILE's want and update; HAVE, FROM, RECONNECT. */
	save("file_resume", buf, file7(buf, RP_WANT_RESUME, 0));
	save("file_update_mtime", buf, file7(buf, 0, RP_UPDATE_MTIME));
	save("file_resume_checksum", buf,
	     file7(buf, RP_WANT_RESUME, RP_UPDATE_CHECKSUM));
	save("have_none", buf, have(buf, RP_HAVE_NONE));
	save("have_uptodate", buf, have(buf, RP_HAVE_UPTODATE));
	save("have_partial", buf, have(buf, RP_HAVE_PARTIAL));
	save("from", buf, from(buf, 1 << 20));
	save("reconnect", buf, reconnect(buf, 1));
	save("reconnect_qps8", buf, reconnect(buf, RP_QPS_MAX));
	/* Chain push: HELLO's flag, then CHAIN. */
	save("hello_chain", buf, hello(buf, RP_HELLO_CHAIN));
	save("chain", buf, chain(buf, 1));
	save("chain3", buf, chain(buf, 3));
	/* A relay's word of a later host. */
	save("host", buf, host(buf, 0));
	save("host_text_max", buf, host(buf, RP_TEXT_MAX));
}

/* Payloads alone, for the decoders run on the raw input. */
static void raw(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	int n;

	n = hello(buf, RP_HELLO_PRESERVE);
	save("raw_hello", buf + HDR, n - HDR);
	n = mr(buf, 65536, 4, 1);
	save("raw_mr", buf + HDR, n - HDR);
	n = file(buf, RP_FILE_REG, 100, 12);
	save("raw_file", buf + HDR, n - HDR);
	n = fend(buf);
	save("raw_fend", buf + HDR, n - HDR);
	n = result(buf, RP_MSG_ERR, RP_ST_IO, 5);
	save("raw_result", buf + HDR, n - HDR);
	n = result(buf, RP_MSG_FACK, RP_ST_IO, 5);
	save("raw_fack", buf + HDR, n - HDR);
	n = have(buf, RP_HAVE_PARTIAL);
	save("raw_have", buf + HDR, n - HDR);
	n = from(buf, 0);
	save("raw_from", buf + HDR, n - HDR);
	n = reconnect(buf, 3);
	save("raw_reconnect", buf + HDR, n - HDR);
	n = chain(buf, 3);
	save("raw_chain", buf + HDR, n - HDR);
	n = host(buf, 5);
	save("raw_host", buf + HDR, n - HDR);
}

/* Broken headers and HELLO/MR/ACK: one thing wrong each. */
static void broken(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	int n;

	n = hello(buf, 0);
	buf[0] ^= 0x20;
	save("bad_magic", buf, n);
	n = hello(buf, 0);
	buf[4] = RP_PROTO_VERSION - 1;
	save("bad_version", buf, n);
	n = hello(buf, 0);
	buf[5] = 0;
	save("bad_type0", buf, n);
	n = hello(buf, 0);
	buf[5] = RP_MSG_TYPE_MAX;
	save("bad_type_max", buf, n);
	n = hello(buf, 0);
	buf[7] = 1;
	save("bad_hdr_reserved", buf, n);
	n = hello(buf, 0);
	put_be(buf + 8, 4, RP_PROTO_MAX_PAYLOAD + 1);
	save("bad_length", buf, n);
	n = hello(buf, 0);
	save("bad_hello_truncated", buf, n - 1);
	n = hello(buf, 0);
	buf[n] = 'x';
	put_be(buf + 8, 4, (uint64_t)(n - HDR + 1));
	save("bad_hello_trailing", buf, n + 1);
	n = hello(buf, 0);
	put_be(buf + HDR + 44, 4, 1 << 16 | 2);
	save("bad_hello_flag", buf, n);
	n = hello(buf, 0);
	put_be(buf + HDR + 44, 4, 1 << 16 | RP_OP_MAX << 8);
	save("bad_hello_op", buf, n);
	n = hello(buf, 0);
	put_be(buf + HDR, 4, 0);
	save("bad_hello_qpn0", buf, n);
	n = hello(buf, 0);
	memset(buf + HDR + 12, 0, RP_GID_LEN);
	save("bad_hello_zero_gid", buf, n);
	n = mr(buf, 1 << 20, 16, 1);
	put_be(buf + HDR + 40, 8, (16ull << 20) + 1);
	save("bad_mr_len", buf, n);
	/* Version 6: a qps out of range, or a length that disagrees. */
	n = hello(buf, 0);
	buf[HDR + 45] = 0;
	save("bad_hello_qps0", buf, n);
	n = hello(buf, 8 << 16);
	buf[HDR + 45] = 9;
	save("bad_hello_qps9", buf, n);
	n = hello(buf, 2 << 16);
	buf[HDR + 45] = 3;
	save("bad_hello_qps_len", buf, n);
	n = hello(buf, 3 << 16);
	put_be(buf + HDR + 48, 4, 0);
	save("bad_hello_more_qpn0", buf, n);
	n = mr(buf, 1 << 20, 16, 8);
	buf[n] = 0;
	put_be(buf + 8, 4, (uint64_t)(n - HDR + 1));
	save("bad_mr_part", buf, n + 1);
	n = result(buf, RP_MSG_ACK, RP_ST_OK, 0);
	put_be(buf + HDR, 2, RP_ST_MAX);
	save("bad_status", buf, n);
	n = result(buf, RP_MSG_FACK, RP_ST_OK, 0);
	save("bad_fack_truncated", buf, n - 1);
}

/* Broken FILEs (offsets: src/proto.c's layout table). */
static void broken_file(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	int n;

	n = file(buf, RP_FILE_REG, 100, 5);
	buf[HDR + 4] = 0;
	save("bad_file_kind0", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	buf[HDR + 4] = 3;
	save("bad_file_kind3", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	buf[HDR + 5] = 1;
	save("bad_file_reserved", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	put_be(buf + HDR + 6, 2, 010000);
	save("bad_file_mode", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	buf[HDR + 4] = RP_FILE_DIR;
	save("bad_file_dir_size", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	put_be(buf + HDR + 24, 4, 1000000000);
	save("bad_file_nsec", buf, n);
	n = file(buf, RP_FILE_REG, 100, 1);
	put_be(buf + HDR + 28, 2, 0);
	put_be(buf + 8, 4, (uint64_t)(n - HDR - 1));
	save("bad_file_path0", buf, n - 1);
	n = file(buf, RP_FILE_REG, 100, RP_PATH_MAX);
	buf[n] = 'd';
	put_be(buf + HDR + 28, 2, RP_PATH_MAX + 1);
	put_be(buf + 8, 4, (uint64_t)(n - HDR + 1));
	save("bad_file_path4096", buf, n + 1);
	n = file(buf, RP_FILE_REG, 100, 5);
	put_be(buf + HDR + 28, 2, 6);
	save("bad_file_path_long", buf, n);
	n = file(buf, RP_FILE_REG, 100, 5);
	save("bad_file_truncated", buf, n - 1);
	/* Version 7: the 18 bytes after the path (here, 3 bytes of it). */
	n = file7(buf, RP_WANT_RESUME, 0);
	buf[HDR + 33] = 2;
	save("bad_file_want", buf, n);
	n = file7(buf, 0, RP_UPDATE_MTIME);
	buf[HDR + 34] = RP_UPDATE_MAX;
	save("bad_file_update", buf, n);
	n = file7(buf, RP_WANT_RESUME, 0);
	buf[HDR + 35] = 1;
	save("bad_file_csum", buf, n);
	n = file(buf, RP_FILE_DIR, 0, 5);
	buf[HDR + 35] = RP_WANT_RESUME;
	save("bad_file_dir_want", buf, n);
}

/* Broken HAVE, FROM and RECONNECT (version 7). */
static void broken_v7(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	int n;

	n = have(buf, RP_HAVE_NONE);
	buf[HDR + 4] = RP_HAVE_MAX;
	save("bad_have_verdict", buf, n);
	n = have(buf, RP_HAVE_NONE);
	buf[HDR + 6] = 1;
	save("bad_have_reserved", buf, n);
	n = have(buf, RP_HAVE_UPTODATE);
	buf[HDR + 15] = 1;
	save("bad_have_bytes", buf, n);
	n = have(buf, RP_HAVE_PARTIAL);
	put_be(buf + HDR + 8, 8, 0);
	save("bad_have_partial0", buf, n);
	n = have(buf, RP_HAVE_PARTIAL);
	save("bad_have_truncated", buf, n - 1);
	n = from(buf, 0);
	buf[HDR + 7] = 1;
	save("bad_from_reserved", buf, n);
	n = reconnect(buf, 1);
	put_be(buf + HDR, 4, 0);
	save("bad_reconnect_attempt0", buf, n);
	n = reconnect(buf, 1);
	buf[HDR + 4] = 0;
	save("bad_reconnect_qps0", buf, n);
	n = reconnect(buf, RP_QPS_MAX);
	buf[HDR + 4] = RP_QPS_MAX + 1;
	save("bad_reconnect_qps9", buf, n);
	n = reconnect(buf, 2);
	buf[HDR + 4] = 3;
	save("bad_reconnect_qps_len", buf, n);
	n = reconnect(buf, 2);
	put_be(buf + HDR + 24, 4, 0);
	save("bad_reconnect_qpn0", buf, n);
	n = reconnect(buf, 1);
	put_be(buf + HDR + 20, 4, 1 << 24);
	save("bad_reconnect_psn", buf, n);
	n = reconnect(buf, 1);
	buf[HDR + 5] = 1;
	save("bad_reconnect_reserved", buf, n);
}

/* Broken CHAINs: one thing wrong each. Hop 0 is "node02" at +2. */
static void broken_chain(void)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	int n;

	n = hello(buf, 0);
	put_be(buf + HDR + 44, 4, 1 << 16 | 0x8);	/* after CHAIN's 0x4 */
	save("bad_hello_flag8", buf, n);
	n = chain(buf, 1);
	put_be(buf + HDR, 2, 0);
	save("bad_chain_count0", buf, n);
	n = chain(buf, 1);
	put_be(buf + HDR, 2, 2);
	save("bad_chain_count_more", buf, n);
	n = chain(buf, 2);
	put_be(buf + HDR, 2, 1);
	save("bad_chain_count_less", buf, n);
	n = chain(buf, 1);
	put_be(buf + HDR + 2, 2, 0);
	save("bad_chain_port0", buf, n);
	n = chain(buf, 1);
	buf[HDR + 4] = 0;
	save("bad_chain_name_len0", buf, n);
	n = chain(buf, 1);
	buf[HDR + 4] = 7;
	save("bad_chain_name_len_over", buf, n);
	n = chain(buf, 1);
	buf[HDR + 6] = ' ';
	save("bad_chain_name_char", buf, n);
	n = chain(buf, 1);
	buf[HDR + 6] = ':';
	save("bad_chain_name_colon", buf, n);
	n = chain(buf, 2);
	buf[n - 1] = '%';
	save("bad_chain_zone_char", buf, n);
	n = chain(buf, 1);
	save("bad_chain_truncated", buf, n - 1);
	/* HOST: hop at +0, status +2, text_len +27. */
	n = host(buf, 5);
	put_be(buf + HDR, 2, 0);
	save("bad_host_hop0", buf, n);
	n = host(buf, 5);
	buf[HDR + 2] = RP_ST_MAX;
	save("bad_host_status", buf, n);
	n = host(buf, 5);
	put_be(buf + HDR + 27, 2, 6);
	save("bad_host_text_len", buf, n);
	n = host(buf, 5);
	save("bad_host_truncated", buf, n - 1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	valid();
	raw();
	broken();
	broken_file();
	broken_v7();
	broken_chain();
	return failed;
}
