// SPDX-License-Identifier: MIT
/* The sender's state machine: connect, HELLO, MR, RTR/RTS, chunked RDMA
 * Writes with immediate under the receiver's credit, FIN, ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/* Sender-side progress through the data phase. */
struct send_state {
	struct rp_src src;
	struct rp_mr mr;
	uint64_t posted;	/* writes posted */
	uint64_t written;	/* write completions seen */
	struct rp_progress prog;
	uint8_t psk[RP_PSK_LEN];
};

static int send_hello(struct xfer *x)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_hello h = {
		.qp = x->local,
		.size = x->size,
		.chunk = x->chunk,
		.window = x->window,
		.name_len = (uint16_t)strlen(x->name),
	};

	memcpy(h.name, x->name, h.name_len + 1);
	trace_hello("->", &h);
	return msg_send(x, buf, rp_proto_pack_hello(buf, sizeof(buf), &h),
			"HELLO");
}

/* The receiver may shrink chunk and window, never grow them. */
static int recv_mr(struct xfer *x, struct rp_mr *mr)
{
	union rp_msg m;
	int rc = msg_recv(x, RP_MSG_MR, &m, "MR (the receiver's answer)");

	if (rc)
		return rc;
	*mr = m.mr;
	if (mr->chunk > x->chunk || mr->window > x->window ||
	    mr->chunk < RP_MIN_CHUNK) {
		RP_ERR("MR from %s offers chunk %u x window %u, outside the "
		       "requested %u x %u", x->peer, mr->chunk, mr->window,
		       x->chunk, x->window);
		return RP_EPROTO;
	}
	x->chunk = mr->chunk;
	x->window = mr->window;
	x->remote = mr->qp;
	x->rep.remote_qpn = mr->qp.qpn;
	return 0;
}

static int post_credit_recvs(struct xfer *x)
{
	for (uint32_t i = 0; i < x->window; i++) {
		int rc = rp_verbs_post_recv(x->v, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* Read the next chunk into its slot and write it to the receiver's slot. */
static int post_next(struct xfer *x, struct send_state *s)
{
	uint64_t seq = s->posted;
	size_t off = (size_t)(seq % x->window) * x->chunk;
	uint32_t len = xfer_chunk_len(x, seq);
	int rc = rp_fileio_src_read(&s->src, x->ring + off, len,
				    seq * x->chunk);

	if (rc)
		return rc;
	rp_csum_update(x->csum, x->ring + off, len);
	rc = rp_verbs_post_write_imm(x->v, seq, off, len, s->mr.addr + off,
				     s->mr.rkey, (uint32_t)seq);
	if (rc)
		return rc;
	s->posted++;
	return 0;
}

/* A slot is free when our write from it completed and the receiver
 * has drained it (its credit). */
static bool can_post(const struct xfer *x, const struct send_state *s)
{
	return s->posted < x->nchunks &&
	       s->posted < x->done + x->window &&
	       s->posted < s->written + x->window;
}

static int handle_wc(struct xfer *x, struct send_state *s,
		     const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_WRITE:
		s->written++;
		return 0;
	case RP_WC_RECV_SEND_IMM:
		if (wc->imm > s->posted || wc->imm < x->done) {
			RP_ERR("credit %u from %s out of range (%" PRIu64
			       " posted, %" PRIu64 " credited)", wc->imm,
			       x->peer, s->posted, x->done);
			return RP_EPROTO;
		}
		x->done = wc->imm;
		return rp_verbs_post_recv(x->v, wc->wr_id);
	default:
		/* We never post receives for writes: the receiver wrote. */
		RP_ERR("unexpected completion %s: %s does not follow the "
		       "protocol", rp_wc_op_name(wc->op), x->peer);
		return RP_EPROTO;
	}
}

static void trace_milestone(const struct xfer *x, uint64_t done,
			    uint64_t *next_mark)
{
	if (done < *next_mark || !x->nchunks)
		return;
	/* Credit: the receiver has copied these out of its ring (it
	 * writes them to disk right after). */
	RP_TRACE("data", "%" PRIu64 "/%" PRIu64 " chunks taken by the "
		 "receiver (%" PRIu64 "%%)", done, x->nchunks,
		 done * 100 / x->nchunks);
	*next_mark = done + (x->nchunks + 3) / 4;
}

static int data_phase(struct xfer *x, struct send_state *s)
{
	struct rp_wc wc[16];
	double deadline = xfer_deadline(x);
	uint64_t mark = 1;
	int rc = 0;

	rp_progress_start(&s->prog, x->size);
	while (x->done < x->nchunks) {
		while (can_post(x, s)) {
			rc = post_next(x, s);
			if (rc)
				goto out;
		}
		rc = xfer_next(x, wc, 16, deadline);
		if (rc < 0)
			goto out;
		for (int i = 0; i < rc; i++) {
			int err = handle_wc(x, s, &wc[i]);

			if (err) {
				rc = err;
				goto out;
			}
		}
		rc = 0;
		deadline = xfer_deadline(x);
		trace_milestone(x, x->done, &mark);
		rp_progress_update(&s->prog, xfer_bytes_done(x));
	}
out:
	rp_progress_end(&s->prog);
	return rc;
}

static int send_fin_recv_ack(struct xfer *x)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_fin fin = { .bytes = x->size };
	union rp_msg m;
	int rc;

	rp_csum_final(x->csum, fin.csum);
	memcpy(x->rep.csum, fin.csum, RP_CSUM_LEN);
	x->rep.have_csum = true;
	trace_fin("->", &fin);
	rc = msg_send(x, buf, rp_proto_pack_fin(buf, sizeof(buf), &fin), "FIN");
	/* Each SYNC says the receiver is still writing to disk: it resets
	 * our deadline (msg_recv's), however long the disk takes. */
	do {
		if (!rc)
			rc = msg_recv(x, RP_MSG_SYNC, &m, "ACK (the receiver "
				      "verifying and syncing the file)");
		if (!rc && x->got_type == RP_MSG_SYNC &&
		    m.sync.total_bytes != x->size) {
			RP_ERR("SYNC from %s is about %" PRIu64 " bytes, we "
			       "sent %" PRIu64, x->peer, m.sync.total_bytes,
			       x->size);
			rc = RP_EPROTO;
		}
	} while (!rc && x->got_type == RP_MSG_SYNC);
	return rc;
}

static int prepare(struct xfer *x, struct send_state *s)
{
	const char *name = x->o->as_name ? x->o->as_name :
			   rp_fileio_basename(x->o->file);
	const char *why = NULL;
	int rc = rp_fileio_check_name(name, strlen(name), &why);

	if (rc) {
		RP_ERR("cannot send as \"%s\": %s", name, why ? why : "?");
		return rc;
	}
	snprintf(x->name, sizeof(x->name), "%s", name);
	if (x->o->psk_file) {
		rc = rp_auth_load(x->o->psk_file, s->psk);
		if (rc)
			return rc;
		x->psk = s->psk;
	}
	rc = rp_fileio_src_open(&s->src, x->o->file);
	if (rc)
		return rc;
	x->size = s->src.size;
	x->nchunks = xfer_count_chunks(x->size, x->chunk);
	if (x->nchunks > UINT32_MAX) {
		RP_ERR("%s needs %" PRIu64 " chunks; use a larger --chunk",
		       x->o->file, x->nchunks);
		return RP_ELIMIT;
	}
	return rp_csum_new(&x->csum);
}

/* --psk: the receiver proves the key first, then we do; then both
 * derive the session key that tags everything that follows. */
static int authenticate(struct xfer *x)
{
	struct rp_auth ours = { .step = RP_AUTH_CHALLENGE };
	struct rp_auth theirs;
	int rc;

	rp_auth_nonce(ours.nonce);
	rc = msg_send_auth(x, &ours);
	if (!rc)
		rc = msg_recv_auth(x, RP_AUTH_PROVE, &theirs);
	if (rc)
		return rc;
	if (!rp_auth_check(x->psk, RP_AUTH_ROLE_RECV, ours.nonce,
			   theirs.nonce, theirs.mac)) {
		RP_ERR("%s does not know our pre-shared key: not sending",
		       x->peer);
		return RP_EAUTH;
	}
	RP_TRACE("ctrl", "the receiver proved the pre-shared key");
	ours.step = RP_AUTH_RESPOND;
	rp_auth_mac(x->psk, RP_AUTH_ROLE_SEND, theirs.nonce, ours.nonce,
		    ours.mac);
	rc = msg_send_auth(x, &ours);
	if (!rc)
		msg_keyed(x, ours.nonce, theirs.nonce, RP_AUTH_ROLE_SEND);
	return rc;
}

/* Over an open control connection: everything up to the first write. */
static int handshake(struct xfer *x, struct send_state *s)
{
	uint32_t unused_rkey;
	int rc = xfer_start(x, authenticate);

	if (rc)
		return rc;
	rc = xfer_open_verbs(x, false);
	if (!rc)
		rc = send_hello(x);
	if (!rc)
		rc = recv_mr(x, &s->mr);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_SETUP);
	x->nchunks = xfer_count_chunks(x->size, x->chunk);
	/* Our ring is local-only: its rkey is never sent anywhere. */
	rc = rp_verbs_reg_ring(x->v, (size_t)x->chunk * x->window,
			       (void **)&x->ring, &unused_rkey);
	if (!rc)
		rc = post_credit_recvs(x);
	if (!rc)
		rc = rp_verbs_connect(x->v, &x->remote);
	return rc;
}

static int run(struct xfer *x, struct send_state *s)
{
	int rc = handshake(x, s);

	if (!rc) {
		xfer_phase(x, RP_PHASE_DATA);
		rc = data_phase(x, s);
	}
	if (!rc) {
		xfer_phase(x, RP_PHASE_FIN);
		rc = send_fin_recv_ack(x);
	}
	return rc;
}

static void init(struct xfer *x, struct send_state *s,
		 const struct rp_opts *o)
{
	*x = (struct xfer){
		.o = o, .fd = -1, .chunk = o->chunk, .window = o->window,
		.rep = { .role = "send" }, .start = rp_now(),
	};
	*s = (struct send_state){ .src = { .fd = -1 } };
	rp_session_signals();
	xfer_phase(x, RP_PHASE_PREPARE);
}

/* Tell the receiver why (if it can still hear it), report, release. */
static int finish(struct xfer *x, struct send_state *s, int rc,
		  struct rp_outcome *out)
{
	if (rc == RP_EINTERRUPTED)
		RP_ERR("interrupted by signal %d", (int)rp_session_stop);
	if (rc)
		xfer_send_failure(x, RP_MSG_ERR, rc);
	xfer_report(x, rc, out);
	xfer_release(x);
	rp_fileio_src_close(&s->src);
	return rc;
}

int rp_session_send(const struct rp_opts *o, struct rp_outcome *out)
{
	struct xfer x;
	struct send_state s;
	int rc;

	init(&x, &s, o);
	snprintf(x.peer, sizeof(x.peer), "%s:%u", o->host, o->port);
	rc = prepare(&x, &s);
	if (!rc) {
		xfer_phase(&x, RP_PHASE_CONNECT);
		rc = rp_ctrl_connect(o->host, o->port, xfer_deadline(&x),
				     &x.fd);
	}
	if (!rc)
		rc = run(&x, &s);
	return finish(&x, &s, rc, out);
}

int rp_session_send_fd(const struct rp_opts *o, int fd, const char *peer,
		       struct rp_outcome *out)
{
	struct xfer x;
	struct send_state s;
	int rc;

	init(&x, &s, o);
	x.fd = fd;
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	rc = prepare(&x, &s);
	if (!rc)
		rc = run(&x, &s);
	return finish(&x, &s, rc, out);
}
