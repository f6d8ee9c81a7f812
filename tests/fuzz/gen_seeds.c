// SPDX-License-Identifier: MIT
/* Writes the fuzz seed corpus: valid messages of each type, and broken ones. */
/*
 * Build and run from the top of the tree:
 *   cc -std=gnu11 -D_GNU_SOURCE -Iinclude src/proto.c src/err.c \
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

static int hello(uint8_t *buf, uint16_t name_len)
{
	struct rp_hello m;

	memset(&m, 0, sizeof(m));
	qp(&m.qp, 0x11);
	m.size = 1 << 30;
	m.chunk = 1 << 20;
	m.window = 16;
	m.name_len = name_len;
	memset(m.name, 'f', name_len);
	return rp_proto_pack_hello(buf, RP_PROTO_MAX_MSG, &m);
}

static int mr(uint8_t *buf, uint32_t chunk, uint32_t window)
{
	struct rp_mr m;

	memset(&m, 0, sizeof(m));
	qp(&m.qp, 0x12);
	m.addr = 0x7f0000001000ull;
	m.rkey = 0x1234;
	m.chunk = chunk;
	m.window = window;
	m.len = (uint64_t)chunk * window;
	return rp_proto_pack_mr(buf, RP_PROTO_MAX_MSG, &m);
}

static int result(uint8_t *buf, uint8_t type, uint16_t status,
		  uint16_t text_len)
{
	struct rp_result m;

	memset(&m, 0, sizeof(m));
	m.status = status;
	m.bytes = 1 << 30;
	m.text_len = text_len;
	memset(m.text, 'e', text_len);
	return rp_proto_pack_result(buf, RP_PROTO_MAX_MSG, type, &m);
}

int main(int argc, char **argv)
{
	uint8_t buf[RP_PROTO_MAX_MSG + 1];
	struct rp_hello h;
	struct rp_fin fin;
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds OUTDIR\n");
		return 2;
	}
	outdir = argv[1];

	/* Valid, whole messages. */
	save("hello_name1", buf, hello(buf, 1));
	save("hello_name255", buf, hello(buf, RP_NAME_MAX));
	memset(&h, 0, sizeof(h));
	qp(&h.qp, 0xffffff);
	memset(h.qp.gid, 0, RP_GID_LEN);
	h.qp.lid = 7;
	h.qp.mtu = 5;
	h.chunk = 4096;
	h.window = 1;
	h.name_len = 3;
	memcpy(h.name, "a\0b", 3);
	save("hello_ib_nul", buf, rp_proto_pack_hello(buf, sizeof(buf), &h));
	save("mr", buf, mr(buf, 1 << 20, 16));
	save("mr_max", buf, mr(buf, 0xffffffff, 0xffffffff));
	memset(&fin, 0, sizeof(fin));
	fin.bytes = 1 << 30;
	memset(fin.csum, 0xc5, RP_CSUM_LEN);
	save("fin", buf, rp_proto_pack_fin(buf, sizeof(buf), &fin));
	save("ack_ok", buf, result(buf, RP_MSG_ACK, RP_ST_OK, 0));
	save("err_text", buf, result(buf, RP_MSG_ERR, RP_ST_EXISTS, 20));
	save("err_text255", buf,
	     result(buf, RP_MSG_ERR, RP_ST_ABORTED, RP_TEXT_MAX));
	{
		struct rp_auth a = { .step = RP_AUTH_PROVE };

		memset(a.nonce, 0x3c, sizeof(a.nonce));
		memset(a.mac, 0xa7, sizeof(a.mac));
		save("auth", buf, rp_proto_pack_auth(buf, sizeof(buf), &a));
	}

	/* Payloads alone, for the decoders run on the raw input. */
	n = hello(buf, 9);
	save("raw_hello", buf + HDR, n - HDR);
	n = mr(buf, 65536, 4);
	save("raw_mr", buf + HDR, n - HDR);
	n = result(buf, RP_MSG_ERR, RP_ST_IO, 5);
	save("raw_result", buf + HDR, n - HDR);

	/* Broken: one thing wrong each. */
	n = hello(buf, 8);
	buf[0] ^= 0x20;
	save("bad_magic", buf, n);
	n = hello(buf, 8);
	buf[4] = RP_PROTO_VERSION - 1;
	save("bad_version", buf, n);
	n = hello(buf, 8);
	buf[5] = 0;
	save("bad_type0", buf, n);
	n = hello(buf, 8);
	buf[5] = RP_MSG_TYPE_MAX;
	save("bad_type_max", buf, n);
	n = hello(buf, 8);
	buf[7] = 1;
	save("bad_hdr_reserved", buf, n);
	n = hello(buf, 8);
	put_be(buf + 8, 4, RP_PROTO_MAX_PAYLOAD + 1);
	save("bad_length", buf, n);
	n = hello(buf, 8);
	save("bad_hello_truncated", buf, n - 1);
	n = hello(buf, 8);
	buf[n] = 'x';
	put_be(buf + 8, 4, (uint64_t)(n - HDR + 1));
	save("bad_hello_trailing", buf, n + 1);
	n = hello(buf, 8);
	put_be(buf + HDR + 44, 2, 300);
	save("bad_hello_namelen", buf, n);
	n = hello(buf, 8);
	put_be(buf + HDR, 4, 0);
	save("bad_hello_qpn0", buf, n);
	n = hello(buf, 8);
	memset(buf + HDR + 12, 0, RP_GID_LEN);
	save("bad_hello_zero_gid", buf, n);
	n = mr(buf, 1 << 20, 16);
	put_be(buf + HDR + 40, 8, (16ull << 20) + 1);
	save("bad_mr_len", buf, n);
	n = result(buf, RP_MSG_ACK, RP_ST_OK, 0);
	put_be(buf + HDR, 2, RP_ST_MAX);
	save("bad_status", buf, n);

	return failed;
}
