// SPDX-License-Identifier: MIT
/* What both state machines share: the control channel's session-side
 * helpers (the start, MR and FACK), the waits, the transfer record and
 * its teardown. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/pool.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/* Lock-free, so the signal handler may store it (C11 7.14.1.1). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "atomic int is not lock-free");
_Atomic int rp_session_stop;

static void on_stop_signal(int sig)
{
	rp_session_stop = sig;
}

void rp_session_signals(void)
{
	/* No SA_RESTART: a signal must interrupt accept() and poll(). */
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rp_session_handshake_secs(const struct rp_config *o)
{
	return o->timeout < RP_HANDSHAKE_SECS ? o->timeout : RP_HANDSHAKE_SECS;
}

int rp_session_exit_code(int rc)
{
	if (rc == RP_EINTERRUPTED && rp_session_stop)
		return RP_EXIT_SIGNAL_BASE + (int)rp_session_stop;
	return rp_err_exit_code(rc);
}

const char *rp_phase_name(enum rp_phase p)
{
	static const char *const names[RP_PHASE_MAX] = {
#define RP_PHASE_TEXT(name, text) [RP_PHASE_##name] = text,
		RP_PHASE_MAP(RP_PHASE_TEXT)
#undef RP_PHASE_TEXT
	};

	return (unsigned int)p < RP_PHASE_MAX ? names[p] : "?";
}

void rp_xfer_phase(struct xfer *x, enum rp_phase p)
{
	x->phase = p;
	RP_EV("session", "phase", "phase {phase}",
	      EV_S("phase", rp_phase_name(p)));
}

int rp_xfer_start(struct xfer *x, bool sender)
{
	int rc;

	/* Retransmissions back off exponentially: with only --timeout, TCP
	 * gave up on a 20 s outage that --retry-for rides out. */
	rp_ctrl_tune(x->ch.fd, x->o->timeout, x->o->retry_for);
	if (x->ch.psk) {
		rp_xfer_phase(x, RP_PHASE_AUTH);
		rc = sender ? rp_chan_auth_sender(&x->ch) :
			      rp_chan_auth_receiver(&x->ch);
		if (rc)
			return rc;
	}
	rp_xfer_phase(x, RP_PHASE_HELLO);
	return 0;
}

double rp_xfer_deadline(const struct xfer *x)
{
	return rp_chan_deadline(&x->ch);
}

int rp_xfer_flush(struct xfer *x)
{
	return rp_chan_flush(&x->ch);
}

int rp_xfer_recv(struct xfer *x, uint32_t want, union rp_msg *m,
	     const char *phase)
{
	/* A signal that landed outside a wait must stop us too. */
	if (rp_session_stop)
		return RP_EINTERRUPTED;
	return rp_chan_recv(&x->ch, want, m, phase);
}

int rp_xfer_send_mr(struct xfer *x, uint64_t addr, uint32_t rkey)
{
	struct rp_mr mr = {
		.addr = addr,
		.rkey = rkey,
		.len = (uint64_t)x->chunk * x->window,
		.chunk = x->chunk,
		.window = x->window,
	};

	rp_xfer_put_local(x, &mr.qp, mr.more, &mr.qps);
	return rp_chan_send(&x->ch, RP_MSG_MR, &mr);
}

int rp_xfer_sync_due(struct xfer *x, const struct rp_sync *s, double *next)
{
	int rc;

	if (rp_now() < *next)
		return 0;
	rc = rp_chan_send(&x->ch, RP_MSG_SYNC, s);
	/* It is news only if it goes now. */
	if (!rc)
		rc = rp_xfer_flush(x);
	*next = rp_now() + RP_SYNC_EVERY;
	return rc;
}

int rp_xfer_send_fack(struct xfer *x, uint32_t id, int err, uint64_t bytes)
{
	struct rp_result res = {
		.id = id, .status = rp_proto_status_from_err(err),
		.bytes = err ? 0 : bytes,
	};

	if (err) {
		/* The receiver's own words for it, when it said more (its
		 * limit and the size, what is in the way), else the error's. */
		if (!rp_trace_reason_take(res.text, sizeof(res.text)))
			snprintf(res.text, sizeof(res.text), "%s",
				 rp_strerror(err));
		res.text_len = (uint16_t)strlen(res.text);
	}
	return rp_chan_send(&x->ch, RP_MSG_FACK, &res);
}

/* What a wait watches besides the CQ: the control socket (when watch),
 * the workers' eventfd, or both through x->epfd. */
static int watch_fd(const struct xfer *x, bool watch)
{
	if (!x->pool)
		return watch ? x->ch.fd : -1;
	return watch ? x->epfd : rp_pool_fd(x->pool);
}

bool rp_xfer_ctrl_ready(const struct xfer *x)
{
	struct pollfd pfd = { .fd = x->ch.fd, .events = POLLIN };

	if (rp_chan_pending(&x->ch))
		return true;
	/* Closed or failed counts too: the read says what happened. */
	return !x->pool || poll(&pfd, 1, 0) != 0;
}

bool rp_xfer_ctrl_now(const struct xfer *x)
{
	struct pollfd pfd = { .fd = x->ch.fd, .events = POLLIN };

	return rp_chan_pending(&x->ch) || poll(&pfd, 1, 0) == 1;
}

static int watch_add(int epfd, int fd, const char *what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	int e;

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		return 0;
	e = errno;
	RP_ERR("epoll_ctl(ADD, %s): %s", what, strerror(e));
	return -e;
}

int rp_xfer_start_pool(struct xfer *x, size_t scratch)
{
	int rc = rp_pool_new(&x->pool, rp_config_threads(x->o), scratch);

	if (rc)
		return rc;
	/* One fd for rp_verbs_next() to watch: readable when either is. */
	x->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (x->epfd < 0) {
		rc = -errno;
		RP_ERR("epoll_create1: %s", strerror(-rc));
		return rc;
	}
	rc = watch_add(x->epfd, x->ch.fd, "control socket");
	if (!rc)
		rc = watch_add(x->epfd, rp_pool_fd(x->pool), "workers' eventfd");
	if (!rc && x->feed)
		rc = watch_add(x->epfd, rp_feed_fd(x->feed), "relay feed");
	return rc;
}

int rp_xfer_pool_wait(struct xfer *x, const char *what)
{
	int rc = rp_pool_wait(x->pool, rp_xfer_deadline(x));

	if (rc == RP_EINTERRUPTED && !rp_session_stop)
		rc = 0;		/* another signal: look again */
	else if (rp_session_stop)
		rc = RP_EINTERRUPTED;
	if (rc == RP_ETIMEOUT)
		RP_ERR("%s took more than %d s (--timeout)", what,
		       x->o->timeout);
	rp_pool_ack(x->pool);
	return rc;
}

void rp_xfer_stop_pool(struct xfer *x)
{
	rp_pool_free(x->pool);
	x->pool = NULL;
	if (x->epfd >= 0)
		close(x->epfd);
	x->epfd = -1;
}

int rp_xfer_next(struct xfer *x, struct rp_wc *wc, int max, double deadline,
	      bool watch)
{
	double until;
	int rc;

	/* A signal that landed outside poll() must stop us too. */
	if (rp_session_stop)
		return RP_EINTERRUPTED;
	/* What we queued goes before we wait: the peer may wait for it. */
	rc = rp_xfer_flush(x);
	if (rc)
		return rc;
	/* Read ahead already: the fd will not say so. */
	if (watch && rp_chan_pending(&x->ch))
		return 0;
	until = x->rl.probe > 0 && x->rl.probe < deadline ? x->rl.probe :
		deadline;
	if (x->wake > 0 && x->wake < until)
		until = x->wake;
	rc = rp_verbs_next(x->v, wc, max, watch_fd(x, watch), until);
	if (rc == RP_ETIMEOUT && until < deadline)
		return 0;	/* the caller's look at the link is due */
	if (rc == 0 && x->pool)
		rp_pool_ack(x->pool);
	/* A link outage is the data loop's to ride out (--retry-for). */
	if (rc == RP_EWC && !rp_xfer_link_lost(x, rc))
		rc = rp_chan_peer_reason(&x->ch, rc);
	if (rc == RP_ETIMEOUT)
		RP_ERR("no %s from %s for %d s (%" PRIu64
		       " chunks taken by the receiver so far)",
		       !strcmp(x->rep.role, "send") ? "credit or answer" :
		       "data", x->peer, x->o->timeout, x->done);
	return rc;
}

void rp_session_refuse(const struct rp_config *o, int fd, const char *peer,
		       int rc)
{
	struct rp_chan ch;

	rp_chan_init(&ch, fd, peer, "transfer", RP_SIDE_BOTH, NULL,
		     o->timeout);
	rp_chan_refuse(&ch, RP_MSG_ERR, rc);
	rp_chan_close(&ch);
}

int rp_op_set(struct xfer *x, uint8_t op)
{
	x->op = op;
	x->ops = rp_data_op_get(op);
	if (x->ops)
		return 0;
	RP_ERR("unknown data op %u", op);
	return RP_EINTERNAL;
}

int rp_op_unexpected_wc(const struct xfer *x, const struct rp_wc *wc)
{
	/* A Write into a sender, a Read completion where we read nothing:
	 * we never asked for one. */
	RP_ERR("unexpected completion %s in a session of --op %s: %s does "
	       "not follow the protocol", rp_wc_op_name(wc->op),
	       rp_proto_op_name(x->op), x->peer);
	return RP_EPROTO;
}

int rp_xfer_open_verbs(struct xfer *x, bool receiver)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct rp_verbs_cfg cfg = {
		.dev_name = x->o->dev,
		.ib_port = x->o->ib_port,
		.gid_index = x->o->gid_index,
		.receiver = receiver,
		/* Only what the op needs the peer to do to us. */
		.access = receiver ? x->ops->recv_access :
			  x->ops->send_access,
		/* A window of chunks read at once, when reading. */
		.rd_atomic = x->ops->reads ? x->window : 1,
		.max_send_wr = rp_xfer_queue_depth(x),
		.max_recv_wr = rp_xfer_queue_depth(x),
		.qps = x->qps,
		/* rp_xfer_link_seen() counts on this one's give-up time. */
		.ack_timeout = RP_QP_TIMEOUT_DATA,
	};
	int rc = rp_ctrl_local_addr(x->ch.fd, &ss, &sl);

	if (rc)
		return rc;
	/* The GID is chosen to match the address the peer reached us on. */
	cfg.local_addr = (struct sockaddr *)&ss;
	cfg.local_addr_len = sl;
	rc = rp_verbs_open(&x->v, &cfg);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < x->qps; i++)
		rp_verbs_local(x->v, i, &x->local[i]);
	rp_xfer_relink_arm(x);
	rp_xfer_report_verbs(x);
	return 0;
}

/* --capture: on the GID's netdev, the QPs of both sides watched. */
static int capture_qps(struct xfer *x)
{
	uint32_t qpn[2 * RP_QPS_MAX];

	for (uint32_t i = 0; i < x->qps; i++) {
		qpn[2 * i] = x->local[i].qpn;
		qpn[2 * i + 1] = x->remote[i].qpn;
	}
	return rp_capture_session(&x->cap, x->o->capture, x->v, qpn,
				  2 * (size_t)x->qps);
}

int rp_xfer_connect(struct xfer *x)
{
	int rc = capture_qps(x);

	if (!rc)
		rc = rp_verbs_connect(x->v, x->remote, x->qps);
	return rc;
}

uint32_t rp_xfer_queue_depth(const struct xfer *x)
{
	/* window writes (or receives) in flight; credits are cumulative, so
	 * the credit Sends need no more than that either. A Read session's
	 * receiver has a window of Reads in its send queue besides. */
	return x->window + 1 + (x->ops->reads ? x->window : 0);
}

void rp_xfer_report_verbs(struct xfer *x)
{
	x->rep.local_qpn = x->local[0].qpn;
	x->rep.remote_qpn = x->remote[0].qpn;
	snprintf(x->gid, sizeof(x->gid), "%s", rp_verbs_gid_str(x->v));
	x->rep.gid = x->gid;
	x->rep.gid_index = rp_verbs_gid_index(x->v);
}

void rp_xfer_entry(struct xfer *x, struct rp_tally *t, const char *path,
		uint64_t bytes, int rc, const char *skipped)
{
	const struct rp_hooks *h = x->o->hooks;

	if (skipped && !strcmp(skipped, RP_ENTRY_UP_TO_DATE)) {
		t->up_to_date++;
	} else if (skipped) {
		t->skipped++;
	} else if (rc) {
		t->failed++;
		if (!t->first_err)
			t->first_err = rc;
	} else {
		t->ok++;
		t->bytes += bytes;
	}
	if (!skipped)
		snprintf(x->name, sizeof(x->name), "%s", path);
	if (h && h->report_entry)
		h->report_entry(h->ctx, x->rep.role, path, bytes, rc, skipped);
	if (!skipped && h && h->entry)
		h->entry(h->ctx, path, bytes, rc);
}

void rp_session_progress(struct xfer *x, uint64_t done)
{
	if (x->o->hooks && x->o->hooks->progress)
		x->o->hooks->progress(x->o->hooks->ctx, done, x->size);
}

void rp_xfer_report(struct xfer *x, int rc, struct rp_outcome *out)
{
	if (!rc)
		rp_xfer_phase(x, RP_PHASE_DONE);
	if (out) {
		out->phase = x->phase;
		out->done = x->done;
		out->failed = x->tally.failed;
		snprintf(out->peer, sizeof(out->peer), "%s", x->peer);
	}
	x->rep.bytes = x->tally.bytes;
	x->rep.files = x->tally.ok;
	x->rep.failed = x->tally.failed;
	x->rep.skipped = x->tally.skipped;
	x->rep.up_to_date = x->tally.up_to_date;
	x->rep.data_bytes = x->tally.landed;
	x->rep.rc = rc;
	x->rep.exit_code = rp_session_exit_code(rc);
	/* One entry: the summary names it. */
	x->rep.name = x->tally.ok + x->tally.failed == 1 ? x->name : NULL;
	x->rep.peer = x->peer;
	x->rep.seconds = rp_now() - x->start;
	if (x->data_end > x->data_start && x->data_start > 0)
		x->rep.data_seconds = x->data_end - x->data_start;
	x->rep.chunk = x->chunk;
	x->rep.window = x->window;
	x->rep.reconnects = x->rl.count;
	x->rep.phase = rp_phase_name(x->phase);
	/* A checksum stands for one file, not for a session of several. */
	if (!x->rep.name)
		x->rep.have_csum = false;
	if (x->o->hooks && x->o->hooks->report)
		x->o->hooks->report(x->o->hooks->ctx, &x->rep);
}

void rp_xfer_release(struct xfer *x)
{
	rp_xfer_stop_pool(x);
	/* The QPs are quiet now: the last packets are in the capture. */
	(void)rp_capture_stop(x->cap, x->rep.rc != 0);
	x->cap = NULL;
	rp_verbs_close(x->v);
	x->v = NULL;
	x->ring = NULL;
	rp_csum_free(x->csum);
	x->csum = NULL;
	free(x->chain.hop);
	x->chain.hop = NULL;
	x->chain.n = 0;
	rp_chan_close(&x->ch);
}
