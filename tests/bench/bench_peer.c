// SPDX-License-Identifier: MIT
/*
 * The synthetic peers of scripts/bench mem: a receiver and a sender that
 * speak the control protocol and drive the fabric as the real ones do,
 * but skip the file and the checksum, so that the real side opposite
 * them is measured alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/proto.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

#include "bench.h"

#define WC_BATCH	16

/* One synthetic side's transfer. */
struct peer {
	struct bench_job *j;
	const char *who;	/* prefix of every error line */
	struct rp_verbs *v;
	uint8_t *ring;
	uint32_t rkey;
	uint64_t size;
	uint32_t chunk;
	uint32_t window;
	uint64_t nchunks;
	struct rp_qp_addr local;
	struct rp_qp_addr remote;
	struct rp_mr mr;	/* sender: where to write */
	uint64_t done;		/* chunks landed (sink) or credited (source) */
	uint64_t posted;	/* source: writes posted */
	uint64_t written;	/* source: write completions */
	uint64_t credit_sent;	/* sink: cumulative credit last posted */
	uint32_t sends_out;	/* sink: credit Sends not yet completed */
};

static double deadline(const struct peer *p)
{
	return rp_now() + (double)p->j->cfg->timeout;
}

static uint64_t count_chunks(uint64_t size, uint32_t chunk)
{
	return size / chunk + (size % chunk != 0);
}

static uint32_t chunk_len(const struct peer *p, uint64_t seq)
{
	uint64_t left = p->size - seq * p->chunk;

	return left < p->chunk ? (uint32_t)left : p->chunk;
}

/* rp_ctrl_send/recv report -errno and bad headers themselves, not these. */
static bool ctl_unreported(int rc)
{
	return rc == RP_ETIMEOUT || rc == RP_ECTRLCLOSED ||
	       rc == RP_EINTERRUPTED;
}

static int ctl_send(struct peer *p, const uint8_t *buf, int n,
		    const char *what)
{
	int rc;

	if (n < 0) {
		RP_ERR("%s: cannot encode %s: %s", p->who, what,
		       rp_strerror(n));
		return n;
	}
	rc = rp_ctrl_send(p->j->fd, buf, (size_t)n, deadline(p));
	if (ctl_unreported(rc))
		RP_ERR("%s: rp_ctrl_send(%s): %s", p->who, what,
		       rp_strerror(rc));
	return rc;
}

/* The real side gave up: say what it said. */
static int peer_said(struct peer *p, const uint8_t *buf, uint32_t len)
{
	struct rp_result res;
	const char *why = NULL;

	if (rp_proto_unpack_result(buf, len, &res, &why)) {
		RP_ERR("%s: malformed ERR: %s", p->who, why ? why : "?");
		return RP_EPROTO;
	}
	RP_ERR("%s: the real side sent ERR: %s: %s", p->who,
	       rp_proto_status_name(res.status), res.text);
	return RP_EREFUSED;
}

/* The next message, which must be of type want: its payload into buf.
 * Before an ACK, the receiver's SYNC messages (it is syncing) are skipped. */
static int ctl_recv(struct peer *p, uint8_t want, uint8_t *buf,
		    uint32_t *len)
{
	struct rp_msg_hdr h;
	int rc;

	do
		rc = rp_ctrl_recv(p->j->fd, &h, buf, RP_PROTO_MAX_PAYLOAD,
				  deadline(p));
	while (!rc && want == RP_MSG_ACK && h.type == RP_MSG_SYNC);

	if (ctl_unreported(rc))
		RP_ERR("%s: rp_ctrl_recv(%s): %s", p->who,
		       rp_proto_type_name(want), rp_strerror(rc));
	if (rc)
		return rc;
	*len = h.length;
	if (h.type == RP_MSG_ERR && want != RP_MSG_ERR)
		return peer_said(p, buf, h.length);
	if (h.type != want) {
		RP_ERR("%s: expected %s, got %s", p->who,
		       rp_proto_type_name(want), rp_proto_type_name(h.type));
		return RP_EUNEXPECTED;
	}
	return 0;
}

static int malformed(const struct peer *p, uint8_t type, const char *why)
{
	RP_ERR("%s: malformed %s: %s", p->who, rp_proto_type_name(type),
	       why ? why : "?");
	return RP_EPROTO;
}

static int open_verbs(struct peer *p, bool remote_write)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct rp_verbs_cfg cfg = {
		.gid_index = -1,
		.remote_write = remote_write,
		.max_send_wr = p->window + 1,
		.max_recv_wr = p->window + 1,
	};
	int rc = rp_ctrl_local_addr(p->j->fd, &ss, &sl);

	if (rc)
		return rc;
	cfg.local_addr = (struct sockaddr *)&ss;
	cfg.local_addr_len = sl;
	rc = rp_verbs_open(&p->v, &cfg);
	if (rc)
		return rc;
	rp_verbs_local(p->v, &p->local);
	return 0;
}

static int post_recvs(struct peer *p)
{
	for (uint32_t i = 0; i < p->window; i++) {
		int rc = rp_verbs_post_recv(p->v, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* Completions, or an error: the real side must not speak mid-data. */
static int next_wc(struct peer *p, struct rp_wc *wc)
{
	int rc = rp_verbs_next(p->v, wc, WC_BATCH, p->j->fd, deadline(p));

	if (rc == 0) {
		RP_ERR("%s: the real side spoke or closed mid-data", p->who);
		return RP_EUNEXPECTED;
	}
	if (rc == RP_ETIMEOUT || rc == RP_EINTERRUPTED)
		RP_ERR("%s: rp_verbs_next: %s", p->who, rp_strerror(rc));
	return rc;
}

static void peer_close(struct peer *p)
{
	rp_verbs_close(p->v);
	p->v = NULL;
	p->ring = NULL;
	rp_ctrl_close(&p->j->fd);
}

/* ---------------------------------------------------------------------
 * The sink: a receiver that returns credit and does nothing else
 */

/* Take the sender's shape as it is: no file, so no reason to shrink it
 * but the real receiver's caps. */
static int sink_hello(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	const char *why = NULL;
	struct rp_hello h;
	uint32_t len;
	int rc = ctl_recv(p, RP_MSG_HELLO, buf, &len);

	if (rc)
		return rc;
	if (rp_proto_unpack_hello(buf, len, &h, &why))
		return malformed(p, RP_MSG_HELLO, why);
	p->size = h.size;
	p->chunk = h.chunk;
	p->nchunks = count_chunks(h.size, h.chunk);
	p->window = h.window;
	if (p->nchunks < p->window)
		p->window = p->nchunks ? (uint32_t)p->nchunks : 1;
	p->remote = h.qp;
	if (h.chunk > RP_MAX_CHUNK || (uint64_t)h.chunk * p->window >
	    RP_MAX_RING || p->nchunks > UINT32_MAX) {
		RP_ERR("%s: chunk %u x window %u for %" PRIu64 " bytes is "
		       "over the real receiver's caps", p->who, h.chunk,
		       p->window, h.size);
		return RP_ELIMIT;
	}
	return 0;
}

static int sink_send_mr(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr = {
		.qp = p->local,
		.addr = (uint64_t)(uintptr_t)p->ring,
		.rkey = p->rkey,
		.len = (uint64_t)p->chunk * p->window,
		.chunk = p->chunk,
		.window = p->window,
	};

	return ctl_send(p, buf, rp_proto_pack_mr(buf, sizeof(buf), &mr), "MR");
}

/* The real receiver's order: verbs, ring, receives, RTR/RTS, MR. */
static int sink_setup(struct peer *p)
{
	int rc = open_verbs(p, true);

	if (!rc)
		rc = rp_verbs_reg_ring(p->v, (size_t)p->chunk * p->window,
				       (void **)&p->ring, &p->rkey);
	if (!rc)
		rc = post_recvs(p);
	if (!rc)
		rc = rp_verbs_connect(p->v, &p->remote);
	if (!rc)
		rc = sink_send_mr(p);
	return rc;
}

/* Cumulative credit, as the real receiver gives it. */
static int sink_credit(struct peer *p)
{
	int rc;

	if (p->credit_sent == p->done || p->sends_out > p->window)
		return 0;
	rc = rp_verbs_post_send_imm(p->v, p->done, (uint32_t)p->done);
	if (rc)
		return rc;
	p->credit_sent = p->done;
	p->sends_out++;
	return 0;
}

static int sink_wc(struct peer *p, const struct rp_wc *wc)
{
	int rc;

	switch (wc->op) {
	case RP_WC_RECV_WRITE_IMM:
		if (wc->imm != (uint32_t)p->done ||
		    wc->byte_len != chunk_len(p, p->done)) {
			RP_ERR("%s: got chunk #%u of %u bytes, expected #%"
			       PRIu64, p->who, wc->imm, wc->byte_len, p->done);
			return RP_EPROTO;
		}
		p->done++;
		rc = rp_verbs_post_recv(p->v, wc->wr_id);
		return rc ? rc : sink_credit(p);
	case RP_WC_SEND:
		p->sends_out--;
		return sink_credit(p);
	default:
		RP_ERR("%s: unexpected completion %s", p->who,
		       rp_wc_op_name(wc->op));
		return RP_EINTERNAL;
	}
}

static int sink_data(struct peer *p)
{
	struct rp_wc wc[WC_BATCH];

	while (p->done < p->nchunks || p->credit_sent < p->done) {
		int n = next_wc(p, wc);

		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			int rc = sink_wc(p, &wc[i]);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* FIN is not checked: nothing was hashed. */
static int sink_fin(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result ack = { .status = RP_ST_OK, .bytes = p->size };
	struct rp_fin fin;
	const char *why = NULL;
	uint32_t len;
	int rc = ctl_recv(p, RP_MSG_FIN, buf, &len);

	if (rc)
		return rc;
	if (rp_proto_unpack_fin(buf, len, &fin, &why))
		return malformed(p, RP_MSG_FIN, why);
	return ctl_send(p, buf, rp_proto_pack_result(buf, sizeof(buf),
						     RP_MSG_ACK, &ack), "ACK");
}

int bench_sink(struct bench_job *j)
{
	struct peer p = { .j = j, .who = "synthetic receiver" };
	int rc = sink_hello(&p);

	if (!rc)
		rc = sink_setup(&p);
	if (!rc)
		rc = sink_data(&p);
	if (!rc)
		rc = sink_fin(&p);
	peer_close(&p);
	return rc;
}

/* ---------------------------------------------------------------------
 * The source: a sender that writes one pre-filled slot as every chunk
 */

static int source_hello(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h = {
		.qp = p->local,
		.size = p->size,
		.chunk = p->chunk,
		.window = p->window,
		.name_len = sizeof(BENCH_DST) - 1,
	};

	memcpy(h.name, BENCH_DST, sizeof(BENCH_DST));
	return ctl_send(p, buf, rp_proto_pack_hello(buf, sizeof(buf), &h),
			"HELLO");
}

/* The stream's checksum was computed for our chunk: it must stand. */
static int source_mr(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	const char *why = NULL;
	uint32_t len;
	int rc = ctl_recv(p, RP_MSG_MR, buf, &len);

	if (rc)
		return rc;
	if (rp_proto_unpack_mr(buf, len, &p->mr, &why))
		return malformed(p, RP_MSG_MR, why);
	if (p->mr.chunk != p->chunk || !p->mr.window ||
	    p->mr.window > p->window) {
		RP_ERR("%s: the receiver agreed chunk %u x window %u for "
		       "%u x %u; the precomputed checksum needs chunk %u",
		       p->who, p->mr.chunk, p->mr.window, p->chunk, p->window,
		       p->chunk);
		return RP_EPROTO;
	}
	p->window = p->mr.window;
	p->remote = p->mr.qp;
	return 0;
}

/* One slot is enough: every chunk is written from it. */
static int source_setup(struct peer *p)
{
	int rc = rp_verbs_reg_ring(p->v, p->chunk, (void **)&p->ring,
				   &p->rkey);

	if (rc)
		return rc;
	memcpy(p->ring, p->j->slot, p->chunk);
	rc = post_recvs(p);
	if (!rc)
		rc = rp_verbs_connect(p->v, &p->remote);
	return rc;
}

static bool source_can_post(const struct peer *p)
{
	return p->posted < p->nchunks && p->posted < p->done + p->window &&
	       p->posted < p->written + p->window;
}

static int source_post(struct peer *p)
{
	uint64_t seq = p->posted;
	uint64_t raddr = p->mr.addr + (seq % p->window) * p->chunk;
	int rc = rp_verbs_post_write_imm(p->v, seq, 0, chunk_len(p, seq),
					 raddr, p->mr.rkey, (uint32_t)seq);

	if (!rc)
		p->posted++;
	return rc;
}

static int source_wc(struct peer *p, const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_WRITE:
		p->written++;
		return 0;
	case RP_WC_RECV_SEND_IMM:
		if (wc->imm > p->posted || wc->imm < p->done) {
			RP_ERR("%s: credit %u out of range (%" PRIu64
			       " posted, %" PRIu64 " credited)", p->who,
			       wc->imm, p->posted, p->done);
			return RP_EPROTO;
		}
		p->done = wc->imm;
		return rp_verbs_post_recv(p->v, wc->wr_id);
	default:
		RP_ERR("%s: unexpected completion %s", p->who,
		       rp_wc_op_name(wc->op));
		return RP_EINTERNAL;
	}
}

static int source_data(struct peer *p)
{
	struct rp_wc wc[WC_BATCH];
	int rc = 0;

	while (p->done < p->nchunks) {
		while (!rc && source_can_post(p))
			rc = source_post(p);
		if (rc)
			return rc;
		rc = next_wc(p, wc);
		if (rc < 0)
			return rc;
		for (int i = 0, n = rc; i < n; i++) {
			rc = source_wc(p, &wc[i]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int source_fin(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fin fin = { .bytes = p->size };
	struct rp_result ack;
	const char *why = NULL;
	uint32_t len;
	int rc;

	memcpy(fin.csum, p->j->csum, RP_CSUM_LEN);
	rc = ctl_send(p, buf, rp_proto_pack_fin(buf, sizeof(buf), &fin),
		      "FIN");
	if (!rc)
		rc = ctl_recv(p, RP_MSG_ACK, buf, &len);
	if (rc)
		return rc;
	if (rp_proto_unpack_result(buf, len, &ack, &why))
		return malformed(p, RP_MSG_ACK, why);
	if (ack.status != RP_ST_OK) {
		RP_ERR("%s: the receiver's ACK says %s: %s", p->who,
		       rp_proto_status_name(ack.status), ack.text);
		return rp_proto_status_to_err(ack.status);
	}
	return 0;
}

int bench_source(struct bench_job *j)
{
	struct peer p = {
		.j = j, .who = "synthetic sender", .size = j->cfg->size,
		.chunk = j->cfg->chunk, .window = j->cfg->window,
		.nchunks = count_chunks(j->cfg->size, j->cfg->chunk),
	};
	int rc = open_verbs(&p, false);

	if (!rc)
		rc = source_hello(&p);
	if (!rc)
		rc = source_mr(&p);
	if (!rc)
		rc = source_setup(&p);
	if (!rc)
		rc = source_data(&p);
	if (!rc)
		rc = source_fin(&p);
	peer_close(&p);
	return rc;
}
