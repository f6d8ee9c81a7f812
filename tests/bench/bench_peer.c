// SPDX-License-Identifier: MIT
/*
 * The synthetic peers of scripts/bench mem: a receiver and a sender that
 * speak the control protocol (version 4: HELLO, MR, then per entry FILE,
 * its chunks with RP_IMM_END on the last, FEND and FACK; FIN, ACK) and
 * drive the fabric as the real ones do, but skip the file, and the
 * sender hashes only the one slot it writes as every chunk, so that the
 * real side opposite them is measured alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rdmapush/csum.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/proto.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

#include "bench.h"

#define WC_BATCH	16

/* A set of message types, for ctl_recv(). */
#define MSG_BIT(t)	(1u << (t))

/* The sink's entry whose chunks land now. */
struct sink_file {
	bool open;
	uint32_t id;
	uint64_t size;		/* RP_SIZE_UNKNOWN for a stream */
	uint64_t bytes;		/* landed so far */
	bool data_done;		/* its RP_IMM_END chunk landed */
	bool fend_seen;
	uint64_t fend_bytes;
};

/* One synthetic side's session. */
struct peer {
	struct bench_job *j;
	const char *who;	/* prefix of every error line */
	struct rp_verbs *v;
	uint8_t *ring;
	uint32_t rkey;
	uint64_t size;		/* source: its file; sink: HELLO total */
	uint32_t chunk;
	uint32_t window;
	uint64_t nchunks;	/* source: writes the file takes (>= 1) */
	struct rp_csum *csum;	/* source: the file's, over chunk digests */
	uint8_t whole[RP_CSUM_LEN];	/* source: a whole chunk's digest */
	struct rp_qp_addr local;
	struct rp_qp_addr remote;
	struct rp_mr mr;	/* sender: where to write */
	uint64_t done;		/* sink: chunks landed; source: credit */
	uint64_t posted;	/* source: writes posted */
	uint64_t written;	/* source: write completions */
	bool facked;		/* source: our one FILE's FACK came */
	bool acked;		/* source: the session's ACK came */
	uint64_t credit_sent;	/* sink: cumulative credit last posted */
	uint32_t sends_out;	/* sink: credit Sends not yet completed */
	uint32_t next_id;	/* sink: the FILE id expected next */
	bool fin_seen;		/* sink */
	uint64_t landed;	/* sink: data bytes in the session */
	struct sink_file cur;	/* sink */
};

static double deadline(const struct peer *p)
{
	return rp_now() + (double)p->j->cfg->timeout;
}

static uint64_t count_chunks(uint64_t size, uint32_t chunk)
{
	return size / chunk + (size % chunk != 0);
}

/* rp_ctrl_send/recv report -errno themselves, not these. */
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
	char text[RP_PEER_TEXT_MAX];
	struct rp_result res;
	const char *why = NULL;

	if (rp_proto_unpack_result(buf, len, RP_MSG_ERR, &res, &why)) {
		RP_ERR("%s: malformed ERR: %s", p->who, why ? why : "?");
		return RP_EPROTO;
	}
	RP_ERR("%s: the real side sent ERR: %s: %s", p->who,
	       rp_proto_status_name(res.status),
	       rp_fmt_peer(text, sizeof(text), res.text, res.text_len));
	return RP_EREFUSED;
}

/* rp_ctrl_recv leaves a bad header to its caller to report. */
static int bad_header(const struct peer *p, const struct rp_msg_hdr *h,
		      int rc)
{
	struct rp_msg_hdr t;
	const char *why = NULL;

	if (rc == RP_EVERSION) {
		RP_ERR("%s: the real side speaks protocol version %u, we %d",
		       p->who, h->version, RP_PROTO_VERSION);
		return rc;
	}
	(void)rp_proto_parse_hdr(h->raw, sizeof(h->raw), &t, &why);
	RP_ERR("%s: bad control message header: %s", p->who,
	       why ? why : "payload too long");
	return rc;
}

/*
 * The next message, which must be one of the types in the set want: its
 * payload into buf (RP_PROTO_MAX_PAYLOAD bytes), its type and length
 * into *type and *len. An ERR is reported with its reason and fails.
 */
static int ctl_recv(struct peer *p, unsigned int want, uint8_t *buf,
		    uint8_t *type, uint32_t *len)
{
	struct rp_msg_hdr h;
	int rc = rp_ctrl_recv(p->j->fd, &h, buf, RP_PROTO_MAX_PAYLOAD,
			      deadline(p));

	if (rc == RP_ENOTPEER || rc == RP_EVERSION || rc == RP_EPROTO)
		return bad_header(p, &h, rc);
	if (ctl_unreported(rc))
		RP_ERR("%s: rp_ctrl_recv: %s", p->who, rp_strerror(rc));
	if (rc)
		return rc;
	*type = h.type;
	*len = h.length;
	if (h.type == RP_MSG_ERR)
		return peer_said(p, buf, h.length);
	if (!(want & MSG_BIT(h.type))) {
		RP_ERR("%s: unexpected %s", p->who,
		       rp_proto_type_name(h.type));
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

static int open_verbs(struct peer *p, bool receiver)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct rp_verbs_cfg cfg = {
		.gid_index = -1,
		.receiver = receiver,
		/* The receiver's ring takes the sender's Writes. */
		.access = receiver ? RP_ACCESS_LOCAL_WRITE |
				     RP_ACCESS_REMOTE_WRITE : 0,
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
	rp_verbs_local(p->v, 0, &p->local);
	return 0;
}

static int post_recvs(struct peer *p)
{
	for (uint32_t i = 0; i < p->window; i++) {
		int rc = rp_verbs_post_recv(p->v, 0, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* Completions (> 0), the control socket readable (0, only when watching
 * it), or an error. */
static int next_wc(struct peer *p, struct rp_wc *wc, bool watch)
{
	int rc = rp_verbs_next(p->v, wc, WC_BATCH, watch ? p->j->fd : -1,
			       deadline(p));

	if (rc == RP_ETIMEOUT || rc == RP_EINTERRUPTED)
		RP_ERR("%s: rp_verbs_next: %s", p->who, rp_strerror(rc));
	return rc;
}

static void peer_close(struct peer *p)
{
	rp_csum_free(p->csum);
	p->csum = NULL;
	rp_verbs_close(p->v);
	p->v = NULL;
	p->ring = NULL;
	rp_ctrl_close(&p->j->fd);
}

/* ---------------------------------------------------------------------
 * The sink: a receiver that returns credit and does nothing else
 */

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The real receiver's shape, minus its small-session ring trim (it has
 * no file to fit): its caps, and no more window than chunks. */
static int sink_hello(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	const char *why = NULL;
	struct rp_hello h;
	uint8_t type;
	uint32_t len;
	uint64_t n;
	int rc = ctl_recv(p, MSG_BIT(RP_MSG_HELLO), buf, &type, &len);

	if (rc)
		return rc;
	if (rp_proto_unpack_hello(buf, len, &h, &why))
		return malformed(p, RP_MSG_HELLO, why);
	if (h.chunk < RP_MIN_CHUNK) {
		RP_ERR("%s: chunk %u is below the real receiver's minimum %u",
		       p->who, h.chunk, RP_MIN_CHUNK);
		return RP_ELIMIT;
	}
	p->size = h.total;
	p->chunk = min_u32(h.chunk, RP_MAX_CHUNK);
	p->window = min_u32(h.window, RP_MAX_WINDOW);
	n = count_chunks(h.total, p->chunk);
	if (h.total != RP_SIZE_UNKNOWN && n < p->window)
		p->window = n ? (uint32_t)n : 1;
	while ((uint64_t)p->chunk * p->window > RP_MAX_RING && p->window > 1)
		p->window--;
	p->remote = h.qp;
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
		rc = rp_verbs_connect(p->v, &p->remote, 1);
	if (!rc)
		rc = sink_send_mr(p);
	return rc;
}

/* Every entry is accepted: nothing was hashed or written. */
static int sink_fack(struct peer *p, uint32_t id, uint64_t bytes)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .id = id, .status = RP_ST_OK,
				 .bytes = bytes };

	return ctl_send(p, buf, rp_proto_pack_result(buf, sizeof(buf),
						     RP_MSG_FACK, &res),
			"FACK");
}

static int sink_on_file(struct peer *p, const uint8_t *buf, uint32_t len)
{
	const char *why = NULL;
	struct rp_file f;

	if (rp_proto_unpack_file(buf, len, &f, &why))
		return malformed(p, RP_MSG_FILE, why);
	if (p->cur.open || p->fin_seen || f.id != p->next_id) {
		RP_ERR("%s: FILE %u out of order (expected %u%s)", p->who,
		       f.id, p->next_id, p->cur.open ? " after a FEND" : "");
		return RP_EPROTO;
	}
	p->next_id++;
	if (f.kind == RP_FILE_DIR)
		return sink_fack(p, f.id, 0);
	p->cur = (struct sink_file){ .open = true, .id = f.id,
				     .size = f.size };
	return 0;
}

static int sink_on_fend(struct peer *p, const uint8_t *buf, uint32_t len)
{
	const char *why = NULL;
	struct rp_fend f;

	if (rp_proto_unpack_fend(buf, len, &f, &why))
		return malformed(p, RP_MSG_FEND, why);
	if (!p->cur.open || p->cur.fend_seen || f.id != p->cur.id) {
		RP_ERR("%s: FEND %u out of order", p->who, f.id);
		return RP_EPROTO;
	}
	p->cur.fend_seen = true;
	p->cur.fend_bytes = f.bytes;
	return 0;
}

static int sink_on_fin(struct peer *p, const uint8_t *buf, uint32_t len)
{
	const char *why = NULL;
	struct rp_fin f;

	if (rp_proto_unpack_fin(buf, len, &f, &why))
		return malformed(p, RP_MSG_FIN, why);
	if (p->cur.open || f.files != p->next_id || f.bytes != p->landed) {
		RP_ERR("%s: FIN says %" PRIu64 " entries, %" PRIu64 " bytes; "
		       "we have %u%s, %" PRIu64 " bytes", p->who, f.files,
		       f.bytes, p->next_id, p->cur.open ?
		       " and one unfinished" : "", p->landed);
		return RP_EPROTO;
	}
	p->fin_seen = true;
	return 0;
}

/* One message from the real sender: FILE, FEND or FIN. */
static int sink_message(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	uint8_t type;
	uint32_t len;
	int rc = ctl_recv(p, MSG_BIT(RP_MSG_FILE) | MSG_BIT(RP_MSG_FEND) |
			  MSG_BIT(RP_MSG_FIN), buf, &type, &len);

	if (rc)
		return rc;
	if (type == RP_MSG_FILE)
		return sink_on_file(p, buf, len);
	if (type == RP_MSG_FEND)
		return sink_on_fend(p, buf, len);
	return sink_on_fin(p, buf, len);
}

/* The current file's data and FEND are in: its length must agree. */
static int sink_finish_file(struct peer *p)
{
	struct sink_file *c = &p->cur;

	if (c->fend_bytes != c->bytes) {
		RP_ERR("%s: FEND %u says %" PRIu64 " bytes, %" PRIu64
		       " landed", p->who, c->id, c->fend_bytes, c->bytes);
		return RP_ECHECKSUM;
	}
	c->open = false;
	return sink_fack(p, c->id, c->bytes);
}

/*
 * As the real receiver's settle(): answer the current file once its data
 * and FEND are in; a chunk that lands with no file open makes us read up
 * to its FILE (sent before its first chunk).
 */
static int sink_settle(struct peer *p, bool need_file)
{
	int rc = 0;

	while (!rc) {
		struct sink_file *c = &p->cur;

		if (c->open && c->data_done && c->fend_seen)
			rc = sink_finish_file(p);
		else if ((c->open && c->data_done) ||
			 (!c->open && need_file && !p->fin_seen))
			rc = sink_message(p);
		else
			break;
	}
	if (!rc && need_file && !p->cur.open) {
		RP_ERR("%s: a chunk landed after FIN", p->who);
		return RP_EPROTO;
	}
	return rc;
}

/* Cumulative credit, as the real receiver gives it. */
static int sink_credit(struct peer *p)
{
	int rc;

	if (p->credit_sent == p->done || p->sends_out >= p->window + 1)
		return 0;
	rc = rp_verbs_post_send_imm(p->v, 0, p->done, (uint32_t)p->done);
	if (rc)
		return rc;
	p->credit_sent = p->done;
	p->sends_out++;
	return 0;
}

/* As the real receiver's check_chunk(): in order, in size, in its file. */
static int sink_check_chunk(struct peer *p, const struct rp_wc *wc,
			    bool last)
{
	uint32_t seq = wc->imm & RP_IMM_SEQ;
	uint64_t left = p->cur.size - p->cur.bytes;

	if (seq != (uint32_t)(p->done & RP_IMM_SEQ) ||
	    wc->byte_len > p->chunk || (!last && wc->byte_len != p->chunk) ||
	    (p->cur.size != RP_SIZE_UNKNOWN &&
	     (wc->byte_len > left || last != (wc->byte_len == left)))) {
		RP_ERR("%s: got chunk #%u of %u bytes%s, expected #%" PRIu64
		       " (chunk %u, %" PRIu64 " bytes of the file to go)",
		       p->who, seq, wc->byte_len, last ? " (last)" : "",
		       p->done & RP_IMM_SEQ, p->chunk, left);
		return RP_EPROTO;
	}
	return 0;
}

static int sink_land(struct peer *p, const struct rp_wc *wc)
{
	bool last = wc->imm & RP_IMM_END;
	int rc = sink_settle(p, true);

	if (!rc)
		rc = sink_check_chunk(p, wc, last);
	if (rc)
		return rc;
	p->done++;
	p->cur.bytes += wc->byte_len;
	p->landed += wc->byte_len;
	p->cur.data_done = last;
	rc = rp_verbs_post_recv(p->v, 0, wc->wr_id);
	return rc ? rc : sink_credit(p);
}

static int sink_wc(struct peer *p, const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_RECV_WRITE_IMM:
		return sink_land(p, wc);
	case RP_WC_SEND:
		p->sends_out--;
		return sink_credit(p);
	default:
		RP_ERR("%s: unexpected completion %s", p->who,
		       rp_wc_op_name(wc->op));
		return RP_EINTERNAL;
	}
}

/* What the real receiver's session_loop() waits for, until FIN and the
 * last credit are out. */
static int sink_session(struct peer *p)
{
	struct rp_wc wc[WC_BATCH];
	int rc = 0;

	while (!rc && !(p->fin_seen && !p->cur.open &&
			p->credit_sent == p->done)) {
		bool watch = !p->cur.open ? !p->fin_seen : !p->cur.fend_seen;

		rc = next_wc(p, wc, watch);
		if (rc == 0) {
			rc = sink_message(p);
		} else if (rc > 0) {
			int n = rc;

			rc = 0;
			for (int i = 0; !rc && i < n; i++)
				rc = sink_wc(p, &wc[i]);
		}
		if (!rc)
			rc = sink_settle(p, false);
	}
	return rc;
}

static int sink_ack(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result ack = { .status = RP_ST_OK, .bytes = p->landed };

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
		rc = sink_session(&p);
	if (!rc)
		rc = sink_ack(&p);
	peer_close(&p);
	return rc;
}

/* ---------------------------------------------------------------------
 * The source: a sender of one file that writes one pre-filled slot as
 * every chunk
 */

static uint32_t chunk_len(const struct peer *p, uint64_t seq)
{
	uint64_t left = p->size - seq * p->chunk;

	return left < p->chunk ? (uint32_t)left : p->chunk;
}

static int source_hello(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h = {
		.qp = p->local,
		.total = p->size,
		.chunk = p->chunk,
		.window = p->window,
	};

	return ctl_send(p, buf, rp_proto_pack_hello(buf, sizeof(buf), &h),
			"HELLO");
}

/* As the real sender: the receiver may agree a smaller chunk or window,
 * never a larger one. The chunks, and so the checksum, follow its chunk. */
static int source_mr(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	const char *why = NULL;
	uint8_t type;
	uint32_t len;
	int rc = ctl_recv(p, MSG_BIT(RP_MSG_MR), buf, &type, &len);

	if (rc)
		return rc;
	if (rp_proto_unpack_mr(buf, len, &p->mr, &why))
		return malformed(p, RP_MSG_MR, why);
	if (p->mr.chunk > p->chunk || p->mr.chunk < RP_MIN_CHUNK ||
	    !p->mr.window || p->mr.window > p->window) {
		RP_ERR("%s: the receiver agreed chunk %u x window %u for "
		       "requested %u x %u", p->who, p->mr.chunk,
		       p->mr.window, p->chunk, p->window);
		return RP_EPROTO;
	}
	p->chunk = p->mr.chunk;
	p->window = p->mr.window;
	p->remote = p->mr.qp;
	/* An empty file is still one (empty) write. */
	p->nchunks = count_chunks(p->size, p->chunk);
	if (!p->nchunks)
		p->nchunks = 1;
	return 0;
}

/*
 * One slot is enough: every chunk is written from it. So every whole
 * chunk has the same digest, hashed once here, and only a short last
 * one is hashed again (source_post()).
 */
static int source_setup(struct peer *p)
{
	int rc = rp_verbs_reg_ring(p->v, p->chunk, (void **)&p->ring,
				   &p->rkey);

	if (rc)
		return rc;
	memcpy(p->ring, p->j->slot, p->chunk);
	rc = rp_csum_new(&p->csum);
	if (rc)
		return rc;
	rp_csum_chunk(p->ring, p->chunk, p->whole);
	rc = post_recvs(p);
	if (!rc)
		rc = rp_verbs_connect(p->v, &p->remote, 1);
	return rc;
}

/* FILE 0: a regular file, before its first chunk. */
static int source_file(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_file f = {
		.id = 0, .kind = RP_FILE_REG, .mode = 0644, .size = p->size,
		.mtime_sec = (int64_t)time(NULL),
		.path_len = sizeof(BENCH_DST) - 1,
	};

	memcpy(f.path, BENCH_DST, sizeof(BENCH_DST));
	return ctl_send(p, buf, rp_proto_pack_file(buf, sizeof(buf), &f),
			"FILE");
}

/* After the last chunk, as the real sender does: FEND, then FIN. */
static int source_fend_fin(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fend fend = { .id = 0, .bytes = p->size };
	struct rp_fin fin = { .files = 1, .bytes = p->size };
	int rc;

	rp_csum_final(p->csum, fend.csum);
	rc = ctl_send(p, buf, rp_proto_pack_fend(buf, sizeof(buf), &fend),
		      "FEND");
	if (!rc)
		rc = ctl_send(p, buf, rp_proto_pack_fin(buf, sizeof(buf),
							&fin), "FIN");
	return rc;
}

static bool source_can_post(const struct peer *p)
{
	return p->posted < p->nchunks && p->posted < p->done + p->window &&
	       p->posted < p->written + p->window;
}

/*
 * Fold the digest of the chunk just posted (the slot's first len bytes)
 * into the file's checksum, protocol version 4. An empty chunk (an empty
 * file's one write) adds nothing: an empty file's checksum is that of no
 * digest at all.
 */
static void source_fold(struct peer *p, uint32_t len)
{
	uint8_t d[RP_CSUM_LEN];

	if (!len)
		return;
	if (len == p->chunk) {
		rp_csum_fold(p->csum, p->whole);
		return;
	}
	rp_csum_chunk(p->ring, len, d);
	rp_csum_fold(p->csum, d);
}

/* The next chunk; the last carries RP_IMM_END and is followed by FEND
 * and FIN (an empty file is one empty write). */
static int source_post(struct peer *p)
{
	uint64_t seq = p->posted;
	uint64_t raddr = p->mr.addr + (seq % p->window) * p->chunk;
	bool last = seq + 1 == p->nchunks;
	uint32_t len = chunk_len(p, seq);
	uint32_t imm = (uint32_t)(seq & RP_IMM_SEQ) | (last ? RP_IMM_END : 0);
	int rc = rp_verbs_post_write_imm(p->v, 0, seq, 0, len, raddr,
					 p->mr.rkey, imm);

	if (rc)
		return rc;
	source_fold(p, len);
	p->posted++;
	return last ? source_fend_fin(p) : 0;
}

static int source_wc(struct peer *p, const struct rp_wc *wc)
{
	uint32_t delta;

	switch (wc->op) {
	case RP_WC_WRITE:
		p->written++;
		return 0;
	case RP_WC_RECV_SEND_IMM:
		/* Cumulative credit, modulo 2^32. */
		delta = wc->imm - (uint32_t)p->done;
		if (delta > p->posted - p->done) {
			RP_ERR("%s: credit %u out of range (%" PRIu64
			       " posted, %" PRIu64 " credited)", p->who,
			       wc->imm, p->posted, p->done);
			return RP_EPROTO;
		}
		p->done += delta;
		return rp_verbs_post_recv(p->v, 0, wc->wr_id);
	default:
		RP_ERR("%s: unexpected completion %s", p->who,
		       rp_wc_op_name(wc->op));
		return RP_EINTERNAL;
	}
}

/* The receiver's answer for our file (FACK) or the session (ACK). */
static int source_result(struct peer *p, uint8_t type, const uint8_t *buf,
			 uint32_t len)
{
	char text[RP_PEER_TEXT_MAX];
	const char *why = NULL;
	struct rp_result r;

	if (rp_proto_unpack_result(buf, len, type, &r, &why))
		return malformed(p, type, why);
	if ((type == RP_MSG_FACK && (r.id != 0 || p->facked)) ||
	    (type == RP_MSG_ACK && !p->facked)) {
		RP_ERR("%s: %s out of order", p->who, rp_proto_type_name(type));
		return RP_EPROTO;
	}
	if (r.status != RP_ST_OK) {
		RP_ERR("%s: the receiver's %s says %s: %s", p->who,
		       rp_proto_type_name(type),
		       rp_proto_status_name(r.status),
		       rp_fmt_peer(text, sizeof(text), r.text, r.text_len));
		return rp_proto_status_to_err(r.status);
	}
	p->facked = true;
	p->acked = type == RP_MSG_ACK;
	return 0;
}

/* Once FEND is out: FACK, any SYNC (the receiver is syncing), ACK. */
static int source_message(struct peer *p)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	uint8_t type;
	uint32_t len;
	int rc = ctl_recv(p, p->posted < p->nchunks ? 0 :
			  MSG_BIT(RP_MSG_FACK) | MSG_BIT(RP_MSG_SYNC) |
			  MSG_BIT(RP_MSG_ACK), buf, &type, &len);

	if (rc || type == RP_MSG_SYNC)
		return rc;
	return source_result(p, type, buf, len);
}

/* Until the receiver's ACK, as the real sender's session_loop(). */
static int source_session(struct peer *p)
{
	struct rp_wc wc[WC_BATCH];
	int rc = source_file(p);

	while (!rc && !p->acked) {
		while (!rc && source_can_post(p))
			rc = source_post(p);
		if (rc)
			return rc;
		rc = next_wc(p, wc, true);
		if (rc == 0) {
			rc = source_message(p);
		} else if (rc > 0) {
			int n = rc;

			rc = 0;
			for (int i = 0; !rc && i < n; i++)
				rc = source_wc(p, &wc[i]);
		}
	}
	return rc;
}

int bench_source(struct bench_job *j)
{
	/* nchunks follows the chunk MR agrees (source_mr()). */
	struct peer p = {
		.j = j, .who = "synthetic sender", .size = j->cfg->size,
		.chunk = j->cfg->chunk, .window = j->cfg->window,
	};
	int rc = open_verbs(&p, false);

	if (!rc)
		rc = source_hello(&p);
	if (!rc)
		rc = source_mr(&p);
	if (!rc)
		rc = source_setup(&p);
	if (!rc)
		rc = source_session(&p);
	peer_close(&p);
	return rc;
}
