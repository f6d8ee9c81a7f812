// SPDX-License-Identifier: MIT
/* The receiver's state machine: accept, HELLO, checks, ring and file,
 * MR, land chunks and return credit, FIN, verify, commit, ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/*
 * After FIN the receiver syncs what the disk has not yet taken (at most
 * RP_FILEIO_WB_LAG) in steps of SYNC_STEP, and tells the sender how far
 * it got at most every SYNC_EVERY seconds, so the sender's --timeout
 * measures silence, not the disk. A quarter second: a sender with the
 * smallest --timeout (1 s) still hears one in time even when a step
 * takes half a second.
 */
#define SYNC_STEP	(8ull << 20)
#define SYNC_EVERY	0.25

/* Receiver-side progress through one transfer. */
struct recv_state {
	int dirfd;		/* borrowed from the server */
	struct rp_dst dst;
	uint8_t *bounce;	/* one chunk, never registered: see land_chunk */
	uint64_t credit_sent;	/* cumulative credit last posted */
	uint32_t sends_out;	/* credit Sends not yet completed */
	uint32_t sq_cap;
	bool fin_seen;
	struct rp_progress prog;
};

static int recv_hello(struct xfer *x, struct rp_hello *h)
{
	union rp_msg m;
	int rc = msg_recv(x, RP_MSG_HELLO, &m, "HELLO");

	if (rc == RP_EUNEXPECTED && x->got_type == RP_MSG_AUTH) {
		RP_ERR("%s offers a pre-shared key, but this receiver has no "
		       "--psk", x->peer);
		return RP_EAUTH;
	}
	if (rc)
		return rc;
	*h = m.hello;
	return 0;
}

/* --psk: prove the key to the sender, then check its proof, before we
 * create a QP, register memory or open a file; then derive the session
 * key that tags everything that follows. */
static int authenticate(struct xfer *x)
{
	struct rp_auth chal, resp, ours = { .step = RP_AUTH_PROVE };
	int rc = msg_recv_auth(x, RP_AUTH_CHALLENGE, &chal);

	if (rc)
		return rc;
	rp_auth_nonce(ours.nonce);
	rp_auth_mac(x->psk, RP_AUTH_ROLE_RECV, chal.nonce, ours.nonce,
		    ours.mac);
	rc = msg_send_auth(x, &ours);
	if (!rc)
		rc = msg_recv_auth(x, RP_AUTH_RESPOND, &resp);
	if (rc)
		return rc;
	if (!rp_auth_check(x->psk, RP_AUTH_ROLE_SEND, ours.nonce, chal.nonce,
			   resp.mac)) {
		RP_ERR("%s failed the pre-shared key check", x->peer);
		return RP_EAUTH;
	}
	RP_TRACE("ctrl", "the sender proved the pre-shared key");
	msg_keyed(x, chal.nonce, ours.nonce, RP_AUTH_ROLE_RECV);
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Agree chunk and window: never more than asked, within our caps, and no
 * more ring than the file needs. */
static int agree_shape(struct xfer *x, const struct rp_hello *h)
{
	uint64_t need;

	if (x->o->max_size && h->size > x->o->max_size) {
		RP_ERR("%s offers a file of %" PRIu64 " bytes, above this "
		       "receiver's --max-size of %" PRIu64 " bytes", x->peer,
		       h->size, x->o->max_size);
		return RP_ELIMIT;
	}
	if (h->chunk < RP_MIN_CHUNK) {
		RP_ERR("%s asks for %u-byte chunks, below the minimum %u",
		       x->peer, h->chunk, RP_MIN_CHUNK);
		return RP_ELIMIT;
	}
	x->size = h->size;
	x->chunk = min_u32(h->chunk, RP_MAX_CHUNK);
	if (x->size < x->chunk) {
		/* A small file needs no more ring than its pages, but never
		 * more than the sender asked for (its chunk need not be a
		 * multiple of a page). size < chunk <= 64 MiB here: the
		 * rounding cannot wrap. */
		need = (x->size + 4095) & ~(uint64_t)4095;
		if (need < RP_MIN_CHUNK)
			need = RP_MIN_CHUNK;
		x->chunk = min_u32(x->chunk, (uint32_t)need);
	}
	x->nchunks = xfer_count_chunks(x->size, x->chunk);
	if (x->nchunks > UINT32_MAX) {
		RP_ERR("%s's file needs %" PRIu64 " chunks, over the limit",
		       x->peer, x->nchunks);
		return RP_ELIMIT;
	}
	x->window = min_u32(h->window, RP_MAX_WINDOW);
	if (x->nchunks < x->window)
		x->window = x->nchunks ? (uint32_t)x->nchunks : 1;
	while ((uint64_t)x->chunk * x->window > RP_MAX_RING && x->window > 1)
		x->window--;
	return 0;
}

static int send_mr(struct xfer *x, uint32_t rkey)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr = {
		.qp = x->local,
		.addr = (uint64_t)(uintptr_t)x->ring,
		.rkey = rkey,
		.len = (uint64_t)x->chunk * x->window,
		.chunk = x->chunk,
		.window = x->window,
	};

	trace_mr("->", &mr);
	return msg_send(x, buf, rp_proto_pack_mr(buf, sizeof(buf), &mr), "MR");
}

/* Everything the sender needs before its first write, in this order:
 * file (refusals cost nothing yet), verbs, ring, receives, RTR/RTS, MR. */
static int accept_hello(struct xfer *x, struct recv_state *r,
			const struct rp_hello *h)
{
	const char *why = NULL;
	uint32_t rkey;
	int rc;

	snprintf(x->name, sizeof(x->name), "%s", h->name);
	x->remote = h->qp;
	x->rep.remote_qpn = h->qp.qpn;
	/* name_len, not the C string: a NUL inside the name is refused. */
	rc = rp_fileio_check_name(h->name, h->name_len, &why);
	if (rc) {
		RP_ERR("refusing the name sent by %s: %s", x->peer, why);
		return rc;
	}
	rc = agree_shape(x, h);
	r->sq_cap = xfer_queue_depth(x);
	if (!rc)
		rc = rp_fileio_dst_open(&r->dst, r->dirfd, h->name, h->size,
					x->o->force);
	if (!rc)
		rc = rp_csum_new(&x->csum);
	if (!rc) {
		r->bounce = malloc(x->chunk);
		if (!r->bounce) {
			RP_ERR("malloc(%u): %s", x->chunk, strerror(ENOMEM));
			rc = -ENOMEM;
		}
	}
	if (!rc)
		rc = xfer_open_verbs(x, true);
	if (!rc)
		rc = rp_verbs_reg_ring(x->v, (size_t)x->chunk * x->window,
				       (void **)&x->ring, &rkey);
	for (uint32_t i = 0; !rc && i < x->window; i++)
		rc = rp_verbs_post_recv(x->v, i);
	if (!rc)
		rc = rp_verbs_connect(x->v, &x->remote);
	if (!rc)
		rc = send_mr(x, rkey);
	return rc;
}

/* Credit is cumulative: when the send queue is full, a later Send
 * carries the newer count. */
static int give_credit(struct xfer *x, struct recv_state *r)
{
	int rc;

	if (r->credit_sent == x->done || r->sends_out >= r->sq_cap)
		return 0;
	rc = rp_verbs_post_send_imm(x->v, x->done, (uint32_t)x->done);
	if (rc)
		return rc;
	r->credit_sent = x->done;
	r->sends_out++;
	return 0;
}

static int land_chunk(struct xfer *x, struct recv_state *r,
		      const struct rp_wc *wc)
{
	uint64_t seq = x->done;
	uint32_t len = xfer_chunk_len(x, seq);
	size_t off = (size_t)(seq % x->window) * x->chunk;
	int rc;

	if (seq >= x->nchunks || wc->imm != (uint32_t)seq ||
	    wc->byte_len != len) {
		RP_ERR("chunk out of order or size: got #%u of %u bytes, "
		       "expected #%" PRIu64 " of %u bytes", wc->imm,
		       wc->byte_len, seq, len);
		return RP_EPROTO;
	}
	/*
	 * The slot stays remotely writable: hashing it and then writing it
	 * could hash one version and write another. Copy it out once; what
	 * is hashed is then exactly what is written, and the slot can be
	 * handed back before the disk write.
	 */
	memcpy(r->bounce, x->ring + off, len);
	x->done++;
	rc = rp_verbs_post_recv(x->v, wc->wr_id);
	if (!rc)
		rc = give_credit(x, r);
	if (rc)
		return rc;
	rp_csum_update(x->csum, r->bounce, len);
	return rp_fileio_dst_write(&r->dst, r->bounce, len, seq * x->chunk);
}

static int handle_wc(struct xfer *x, struct recv_state *r,
		     const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_RECV_WRITE_IMM:
		return land_chunk(x, r, wc);
	case RP_WC_SEND:
		r->sends_out--;
		return give_credit(x, r);
	default:
		/* We post no writes: only the sender's Send can cause it. */
		RP_ERR("unexpected completion %s: %s does not follow the "
		       "protocol", rp_wc_op_name(wc->op), x->peer);
		return RP_EPROTO;
	}
}

/* Chunks to land, or the last credit still to post (the send queue may
 * have been full when the last chunk landed). */
static bool data_pending(const struct xfer *x, const struct recv_state *r)
{
	return x->done < x->nchunks || r->credit_sent < x->done;
}

static int data_phase(struct xfer *x, struct recv_state *r)
{
	struct rp_wc wc[16];
	double deadline = xfer_deadline(x);
	int rc = 0;

	rp_progress_start(&r->prog, x->size);
	while (data_pending(x, r)) {
		rc = xfer_next(x, wc, 16, deadline);
		if (rc < 0)
			break;
		for (int i = 0; i < rc; i++) {
			int err = handle_wc(x, r, &wc[i]);

			if (err) {
				rc = err;
				goto out;
			}
		}
		rc = 0;
		deadline = xfer_deadline(x);
		rp_progress_update(&r->prog, xfer_bytes_done(x));
	}
out:
	rp_progress_end(&r->prog);
	if (!rc && x->nchunks)
		RP_TRACE("data", "all %" PRIu64 " chunks landed and written; "
			 "ring no longer needed", x->nchunks);
	/*
	 * The rkey dies with the data phase: nothing can write here again.
	 * On failure the ring goes at teardown, after we told the sender
	 * why, so it hears the reason rather than an access error.
	 */
	if (!rc) {
		rp_verbs_dereg_ring(x->v);
		x->ring = NULL;
	}
	return rc;
}

static int send_sync(struct xfer *x, const struct recv_state *r)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_sync s = {
		.synced_bytes = r->dst.synced, .total_bytes = x->size,
	};

	trace_sync("->", &s);
	return msg_send(x, buf, rp_proto_pack_sync(buf, sizeof(buf), &s),
			"SYNC");
}

/* Sync the rest in steps, keeping the sender informed; then commit. */
static int sync_and_commit(struct xfer *x, struct recv_state *r)
{
	double next = 0;	/* the first SYNC goes before the first step */
	bool done = false;
	int rc;

	while (!done) {
		if (rp_session_stop)
			return RP_EINTERRUPTED;
		if (rp_now() >= next) {
			rc = send_sync(x, r);
			if (rc)
				return rc;
			next = rp_now() + SYNC_EVERY;
		}
		rc = rp_fileio_dst_sync(&r->dst, SYNC_STEP, &done);
		if (rc)
			return rc;
	}
	return rp_fileio_dst_commit(&r->dst, x->o->force);
}

static int verify_and_commit(struct xfer *x, struct recv_state *r)
{
	union rp_msg m;
	struct rp_fin *fin = &m.fin;
	char a[33], b[33];
	int rc = msg_recv(x, RP_MSG_FIN, &m, "FIN");

	if (rc)
		return rc;
	r->fin_seen = true;
	rp_csum_final(x->csum, x->rep.csum);
	x->rep.have_csum = true;
	if (fin->bytes != x->size ||
	    memcmp(fin->csum, x->rep.csum, RP_CSUM_LEN)) {
		RP_ERR("integrity check failed: sender says %" PRIu64
		       " bytes xxh3_128 %s, we received %" PRIu64 " bytes "
		       "xxh3_128 %s", fin->bytes, rp_csum_hex(fin->csum, a),
		       x->size, rp_csum_hex(x->rep.csum, b));
		return RP_ECHECKSUM;
	}
	RP_TRACE("file", "checksum verified; sync, rename to \"%s\", fsync "
		 "directory", x->name);
	return sync_and_commit(x, r);
}

static int send_ack(struct xfer *x)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result ack = { .status = RP_ST_OK, .bytes = x->size };

	trace_result("->", RP_MSG_ACK, &ack);
	return msg_send(x, buf,
			rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK, &ack),
			"ACK");
}

/* The handshake is over: ask for a transfer slot; --timeout from here. */
static int admit(struct xfer *x, const struct rp_admission *adm)
{
	int rc = adm ? adm->admit(adm->ctx, x->peer) : 0;

	if (!rc)
		x->handshake_end = 0;
	return rc;
}

static int run(struct xfer *x, struct recv_state *r,
	       const struct rp_admission *adm)
{
	struct rp_hello h;
	int rc = xfer_start(x, authenticate);

	if (rc)
		return rc;
	rc = recv_hello(x, &h);
	if (!rc)
		rc = admit(x, adm);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_SETUP);
	rc = accept_hello(x, r, &h);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_DATA);
	rc = data_phase(x, r);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_FIN);
	rc = verify_and_commit(x, r);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_ACK);
	return send_ack(x);
}

int rp_session_recv_one(const struct rp_opts *o, const uint8_t *psk,
			int dirfd, int fd, const char *peer,
			const struct rp_admission *adm,
			struct rp_outcome *out)
{
	struct xfer x = {
		.o = o, .psk = psk, .fd = fd, .rep = { .role = "recv" },
		.start = rp_now(),
	};
	struct recv_state r = { .dirfd = dirfd };
	int rc;

	x.handshake_end = x.start + rp_session_handshake_secs(o);
	rp_fileio_dst_init(&r.dst);
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	rc = run(&x, &r, adm);
	if (rc) {
		rp_fileio_dst_abort(&r.dst);
		xfer_send_failure(&x, r.fin_seen ? RP_MSG_ACK : RP_MSG_ERR, rc);
	}
	xfer_report(&x, rc, out);
	xfer_release(&x);
	free(r.bounce);
	return rc;
}
