// SPDX-License-Identifier: MIT
/* The receiver's state machine: accept, HELLO, checks, ring and file,
 * MR, land chunks and return credit, FIN, verify, commit, ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/* Receiver-side progress through one transfer. */
struct recv_state {
	int dirfd;		/* borrowed from the server */
	struct rp_dst dst;
	uint64_t landed;	/* chunks written to the file */
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
 * create a QP, register memory or open a file. */
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

	if (h->chunk < RP_MIN_CHUNK) {
		RP_ERR("%s asks for %u-byte chunks, below the minimum %u",
		       x->peer, h->chunk, RP_MIN_CHUNK);
		return RP_ELIMIT;
	}
	x->size = h->size;
	x->chunk = min_u32(h->chunk, RP_MAX_CHUNK);
	if (x->size < x->chunk) {
		need = (x->size + 4095) & ~(uint64_t)4095;
		x->chunk = need < RP_MIN_CHUNK ? RP_MIN_CHUNK : (uint32_t)need;
	}
	x->nchunks = (x->size + x->chunk - 1) / x->chunk;
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

	if (r->credit_sent == r->landed || r->sends_out >= r->sq_cap)
		return 0;
	rc = rp_verbs_post_send_imm(x->v, r->landed, (uint32_t)r->landed);
	if (rc)
		return rc;
	r->credit_sent = r->landed;
	r->sends_out++;
	return 0;
}

static int land_chunk(struct xfer *x, struct recv_state *r,
		      const struct rp_wc *wc)
{
	uint64_t seq = r->landed;
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
	rp_csum_update(x->csum, x->ring + off, len);
	rc = rp_fileio_dst_write(&r->dst, x->ring + off, len, seq * x->chunk);
	if (rc)
		return rc;
	r->landed++;
	rc = rp_verbs_post_recv(x->v, wc->wr_id);
	if (rc)
		return rc;
	return give_credit(x, r);
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
		RP_ERR("unexpected completion %s", rp_wc_op_name(wc->op));
		return RP_EINTERNAL;
	}
}

static int data_phase(struct xfer *x, struct recv_state *r)
{
	struct rp_wc wc[16];
	double deadline = xfer_deadline(x);
	int rc = 0;

	rp_progress_start(&r->prog, x->size);
	while (r->landed < x->nchunks) {
		/* A signal that landed outside poll() must stop us too. */
		if (rp_session_stop) {
			rc = RP_EINTERRUPTED;
			break;
		}
		rc = rp_verbs_next(x->v, wc, 16, x->fd, deadline);
		if (rc == 0)
			rc = msg_recv_err(x, "data");
		if (rc == RP_EWC)
			rc = xfer_peer_reason(x, rc);
		if (rc == RP_ETIMEOUT)
			RP_ERR("no data from %s for %d s (%" PRIu64 "/%" PRIu64
			       " chunks landed)", x->peer, x->o->timeout,
			       r->landed, x->nchunks);
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
		rp_progress_update(&r->prog, r->landed * x->chunk);
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
	RP_TRACE("file", "checksum verified; fsync, rename to \"%s\", fsync "
		 "directory", x->name);
	return rp_fileio_dst_commit(&r->dst, x->o->force);
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

/* One transfer on an accepted connection; always reports and releases. */
static int serve_one(const struct rp_opts *o, const uint8_t *psk, int dirfd,
		     int fd, const char *peer)
{
	struct xfer x = {
		.o = o, .psk = psk, .fd = fd, .rep = { .role = "recv" },
	};
	struct recv_state r = { .dirfd = dirfd };
	struct rp_hello h;
	int rc;

	rp_fileio_dst_init(&r.dst);
	x.start = rp_now();
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	rp_ctrl_tune(fd, o->timeout);
	rc = psk ? authenticate(&x) : 0;
	if (!rc)
		rc = recv_hello(&x, &h);
	if (!rc)
		rc = accept_hello(&x, &r, &h);
	if (!rc)
		rc = data_phase(&x, &r);
	if (!rc)
		rc = verify_and_commit(&x, &r);
	if (!rc)
		rc = send_ack(&x);
	if (rc) {
		rp_fileio_dst_abort(&r.dst);
		xfer_send_failure(&x, r.fin_seen ? RP_MSG_ACK : RP_MSG_ERR, rc);
	}
	xfer_report(&x, rc, r.landed);
	xfer_release(&x);
	return rc;
}

/* Children serving transfers; the server itself never opens a device. */
struct server {
	const struct rp_opts *o;
	int lfd;
	int dirfd;
	const uint8_t *psk;
	uint8_t key[RP_PSK_LEN];
	pid_t kids[RP_MAX_XFERS];
	int nkids;
};

static void reap(struct server *sv, bool block)
{
	for (int i = 0; i < sv->nkids;) {
		pid_t p = waitpid(sv->kids[i], NULL, block ? 0 : WNOHANG);

		if (p == sv->kids[i] || (p < 0 && errno != EINTR)) {
			sv->kids[i] = sv->kids[--sv->nkids];
			continue;
		}
		if (p < 0)
			continue;	/* interrupted: wait for it again */
		i++;
	}
}

/* Over the cap: say so at once rather than leave the sender waiting. */
static void refuse_busy(struct server *sv, int fd, const char *peer)
{
	struct xfer x = { .o = sv->o, .fd = fd };

	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	RP_INFO("refusing %s: %d transfers in progress (-m %d)", peer,
		sv->nkids, sv->o->max_transfers);
	xfer_send_failure(&x, RP_MSG_ERR, RP_EBUSY);
	rp_ctrl_close(&x.fd);
}

/*
 * Serve one connection in a child process, so transfers run side by side
 * and whatever one of them holds (device context, registered memory,
 * files) is gone with it. Returns 1 in the parent, or, in the child, the
 * transfer's result (<= 0) for main to exit with.
 */
static int spawn(struct server *sv, int fd, const char *peer)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		RP_ERR("fork: %s", strerror(errno));
		refuse_busy(sv, fd, peer);
		return 1;
	}
	if (pid == 0) {
		close(sv->lfd);
		sv->lfd = -1;
		return serve_one(sv->o, sv->psk, sv->dirfd, fd, peer);
	}
	close(fd);
	sv->kids[sv->nkids++] = pid;
	return 1;
}

static int serve_loop(struct server *sv)
{
	while (!rp_session_stop) {
		char peer[80];
		int fd, rc;

		rc = rp_ctrl_accept(sv->lfd, &fd, peer, sizeof(peer));
		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		if (sv->o->once)
			return serve_one(sv->o, sv->psk, sv->dirfd, fd, peer);
		reap(sv, false);
		if (sv->nkids >= sv->o->max_transfers) {
			refuse_busy(sv, fd, peer);
			continue;
		}
		rc = spawn(sv, fd, peer);
		if (rc <= 0)
			return rc;	/* the child, done */
	}
	return 0;
}

/* Stop: tell each transfer to abort (it removes its temporary file). */
static void stop_children(struct server *sv)
{
	reap(sv, false);
	if (!sv->nkids)
		return;
	RP_INFO("signal %d: stopping %d transfer(s)", (int)rp_session_stop,
		sv->nkids);
	for (int i = 0; i < sv->nkids; i++)
		kill(sv->kids[i], SIGTERM);
	reap(sv, true);
}

int rp_session_recv(const struct rp_opts *o)
{
	struct server sv = { .o = o, .lfd = -1, .dirfd = -1 };
	pid_t self = getpid();
	int rc;

	rp_session_signals();
	if (o->psk_file) {
		rc = rp_auth_load(o->psk_file, sv.key);
		if (rc)
			return rc;
		sv.psk = sv.key;
	}
	rc = rp_fileio_dir_open(o->dir, &sv.dirfd);
	if (rc)
		return rc;
	rc = rp_ctrl_listen(o->bind_addr, o->port, &sv.lfd);
	if (rc)
		goto out_dir;
	RP_INFO("listening on port %u, writing into %s", o->port, o->dir);
	rc = serve_loop(&sv);
	if (getpid() != self)
		goto out_dir;	/* a child: its transfer's result */
	if (rp_session_stop && !o->once) {
		stop_children(&sv);
		RP_INFO("stopped by signal %d", (int)rp_session_stop);
		rc = 0;
	}
	reap(&sv, true);
	rp_ctrl_close(&sv.lfd);
out_dir:
	close(sv.dirfd);
	return rc;
}
