// SPDX-License-Identifier: MIT
/* libFuzzer target: the codec refuses garbage and round-trips the rest. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() rather than assert(): the check must survive -DNDEBUG. */
static void check(int ok)
{
	if (!ok)
		abort();
}

/*
 * A decoded HELLO's or MR's QPs: 1..RP_QPS_MAX, each after the first
 * with its 24-bit QPN (non-zero) and PSN, the unused entries zero.
 */
static void check_more(unsigned int qps, const struct rp_qp_more *more)
{
	unsigned int i;

	check(qps >= 1 && qps <= RP_QPS_MAX);
	for (i = 0; i < RP_QPS_MAX - 1; i++) {
		if (i + 1 < qps) {
			check(more[i].qpn && more[i].qpn < (1u << 24));
			check(more[i].psn < (1u << 24));
		} else {
			check(!more[i].qpn && !more[i].psn);
		}
	}
}

/*
 * Decode p as a payload of type. A refusal must be RP_EPROTO with a
 * reason. An accepted payload must re-encode (the encoders accept all the
 * decoders accept) to exactly the same bytes; when hdr is given, the
 * header must come out the same too. The message table (proto_msgs.h)
 * must agree with the codec both ways.
 */
static void check_payload(uint8_t type, const uint8_t *p, size_t len,
			  const uint8_t *hdr)
{
	uint8_t out[RP_PROTO_MAX_MSG];
	union {
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
	} m;
	static struct rp_host hops[RP_PROTO_MAX_PAYLOAD / 4];
	struct rp_chain_msg chain;
	uint8_t again[RP_PROTO_MAX_MSG];
	union rp_msg u;
	struct rp_msg_hdr h;
	const char *why = NULL, *uwhy = NULL;
	int urc = rp_msg_unpack(type, p, len, &u, &uwhy);
	int rc;
	int n = 0;

	switch (type) {
	case RP_MSG_HELLO:
		rc = rp_proto_unpack_hello(p, len, &m.hello, &why);
		if (rc)
			break;
		check(!(m.hello.flags & ~RP_HELLO_FLAGS));
		check(m.hello.chunk && m.hello.window);
		check_more(m.hello.qps, m.hello.more);
		n = rp_proto_pack_hello(out, sizeof(out), &m.hello);
		break;
	case RP_MSG_MR:
		rc = rp_proto_unpack_mr(p, len, &m.mr, &why);
		if (rc)
			break;
		check_more(m.mr.qps, m.mr.more);
		n = rp_proto_pack_mr(out, sizeof(out), &m.mr);
		break;
	case RP_MSG_FIN:
		rc = rp_proto_unpack_fin(p, len, &m.fin, &why);
		if (rc)
			break;
		n = rp_proto_pack_fin(out, sizeof(out), &m.fin);
		break;
	case RP_MSG_FILE:
		rc = rp_proto_unpack_file(p, len, &m.file, &why);
		if (rc)
			break;
		check(m.file.path_len >= 1 && m.file.path_len <= RP_PATH_MAX);
		check(m.file.path[m.file.path_len] == '\0');
		check(m.file.kind == RP_FILE_REG || m.file.kind == RP_FILE_DIR);
		check(m.file.kind == RP_FILE_REG || m.file.size == 0);
		check(m.file.mode <= 07777 && m.file.mtime_nsec < 1000000000u);
		check(!(m.file.want & ~RP_WANT_BITS));
		check(m.file.update < RP_UPDATE_MAX);
		check(m.file.kind == RP_FILE_REG ||
		      (!m.file.want && !m.file.update));
		n = rp_proto_pack_file(out, sizeof(out), &m.file);
		break;
	case RP_MSG_FEND:
		rc = rp_proto_unpack_fend(p, len, &m.fend, &why);
		if (rc)
			break;
		n = rp_proto_pack_fend(out, sizeof(out), &m.fend);
		break;
	case RP_MSG_ACK:
	case RP_MSG_ERR:
	case RP_MSG_FACK:
		rc = rp_proto_unpack_result(p, len, type, &m.result, &why);
		if (rc)
			break;
		check(m.result.status < RP_ST_MAX);
		check(m.result.text_len <= RP_TEXT_MAX);
		check(m.result.text[m.result.text_len] == '\0');
		n = rp_proto_pack_result(out, sizeof(out), type, &m.result);
		break;
	case RP_MSG_AUTH:
		rc = rp_proto_unpack_auth(p, len, &m.auth, &why);
		if (rc)
			break;
		n = rp_proto_pack_auth(out, sizeof(out), &m.auth);
		break;
	case RP_MSG_SYNC:
		rc = rp_proto_unpack_sync(p, len, &m.sync, &why);
		if (rc)
			break;
		check(m.sync.synced_bytes <= m.sync.total_bytes);
		n = rp_proto_pack_sync(out, sizeof(out), &m.sync);
		break;
	case RP_MSG_HAVE:
		rc = rp_proto_unpack_have(p, len, &m.have, &why);
		if (rc)
			break;
		check(m.have.verdict < RP_HAVE_MAX);
		check(m.have.verdict == RP_HAVE_PARTIAL ? m.have.bytes != 0 :
		      m.have.bytes == 0);
		n = rp_proto_pack_have(out, sizeof(out), &m.have);
		break;
	case RP_MSG_FROM:
		rc = rp_proto_unpack_from(p, len, &m.from, &why);
		if (rc)
			break;
		n = rp_proto_pack_from(out, sizeof(out), &m.from);
		break;
	case RP_MSG_RECONNECT:
		rc = rp_proto_unpack_reconnect(p, len, &m.reconnect, &why);
		if (rc)
			break;
		check(m.reconnect.attempt != 0);
		check(m.reconnect.qps >= 1 && m.reconnect.qps <= RP_QPS_MAX);
		/* All qps QPs are new, QP 0 too: as HELLO's after the first. */
		check(m.reconnect.qp[0].qpn &&
		      m.reconnect.qp[0].qpn < (1u << 24) &&
		      m.reconnect.qp[0].psn < (1u << 24));
		check_more(m.reconnect.qps, m.reconnect.qp + 1);
		n = rp_proto_pack_reconnect(out, sizeof(out), &m.reconnect);
		break;
	case RP_MSG_CHAIN:
		rc = rp_proto_unpack_chain(p, len, &m.chain, &why);
		if (rc)
			break;
		check(m.chain.n >= 1 && !m.chain.hop);
		check(m.chain.n <= sizeof(hops) / sizeof(hops[0]));
		rp_proto_chain_hops(&m.chain, hops);
		for (size_t i = 0; i < m.chain.n; i++)
			check(hops[i].port && hops[i].name[0] &&
			      strlen(hops[i].name) <= RP_HOST_NAME_MAX);
		check(!strcmp(hops[0].name, m.chain.first.name) &&
		      hops[0].port == m.chain.first.port);
		/* From the hops read out, the same bytes. */
		chain = (struct rp_chain_msg){ .n = m.chain.n, .hop = hops };
		n = rp_proto_pack_chain(out, sizeof(out), &chain);
		break;
	case RP_MSG_HOST:
		rc = rp_proto_unpack_host(p, len, &m.host, &why);
		if (rc)
			break;
		check(m.host.hop && m.host.status < RP_ST_MAX);
		check(m.host.text_len <= RP_TEXT_MAX &&
		      m.host.text[m.host.text_len] == '\0');
		n = rp_proto_pack_host(out, sizeof(out), &m.host);
		break;
	default:
		abort();
	}
	check(urc == rc);
	if (rc) {
		check(rc == RP_EPROTO);
		check(why && why[0]);
		return;
	}
	check(rp_msg_pack(again, sizeof(again), type, &u) == n);
	check(!memcmp(again, out, (size_t)n));

	check(n > 0 && (size_t)n == RP_PROTO_HDR_LEN + len);
	check(!memcmp(out + RP_PROTO_HDR_LEN, p, len));
	check(rp_proto_parse_hdr(out, (size_t)n, &h, NULL) == 0);
	check(h.type == type && h.length == len);
	if (hdr)
		check(!memcmp(out, hdr, RP_PROTO_HDR_LEN));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_msg_hdr h;
	const char *why = NULL;
	const uint8_t *hdr;
	size_t rest;
	unsigned int t;
	int rc;

	/* As the control channel sees it: a header, then its payload. */
	rc = rp_proto_parse_hdr(data, size, &h, &why);
	if (rc == 0) {
		check(h.version == RP_PROTO_VERSION);
		check(h.type > 0 && h.type < RP_MSG_TYPE_MAX);
		check(h.length <= RP_PROTO_MAX_PAYLOAD);
		rest = size - RP_PROTO_HDR_LEN;
		/* The header only round-trips when its length is honest. */
		hdr = rest == h.length ? data : NULL;
		check_payload(h.type, data + RP_PROTO_HDR_LEN, rest, hdr);
	} else {
		check(rc == RP_EPROTO || rc == RP_EVERSION ||
		      rc == RP_ENOTPEER);
		/* The peer's version is reported back (see proto.h). */
		check(rc != RP_EVERSION || h.version != RP_PROTO_VERSION);
		check(why && why[0]);
	}

	/* And every decoder on the raw bytes, whatever the header said. */
	for (t = RP_MSG_HELLO; t < RP_MSG_TYPE_MAX; t++)
		check_payload((uint8_t)t, data, size, NULL);

	/* The name and status helpers take any value. */
	if (size >= 4) {
		uint32_t v = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
			     (uint32_t)data[2] << 8 | data[3];

		check(rp_proto_type_name(v) != NULL);
		check(rp_proto_status_name(v) != NULL);
		check(rp_proto_status_from_err((int)v) < RP_ST_MAX);
		check(rp_proto_status_to_err((uint16_t)v) <= 0);
	}
	return 0;
}
