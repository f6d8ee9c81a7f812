// SPDX-License-Identifier: MIT
/* What both state machines share: control messages with their traces,
 * failure reporting to the peer, the transfer record and its teardown. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sodium.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/pool.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

volatile sig_atomic_t rp_session_stop;

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

int rp_session_handshake_secs(const struct rp_opts *o)
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

void xfer_phase(struct xfer *x, enum rp_phase p)
{
	x->phase = p;
	RP_EV("session", "phase", "phase {phase}",
	      EV_S("phase", rp_phase_name(p)));
}

int xfer_start(struct xfer *x, int (*authenticate)(struct xfer *x))
{
	int rc;

	rp_ctrl_tune(x->fd, x->o->timeout);
	if (x->psk) {
		xfer_phase(x, RP_PHASE_AUTH);
		rc = authenticate(x);
		if (rc)
			return rc;
	}
	xfer_phase(x, RP_PHASE_HELLO);
	return 0;
}

double xfer_deadline(const struct xfer *x)
{
	double d = rp_now() + (double)x->o->timeout;

	/* From accept to a valid HELLO: one short deadline for the whole
	 * handshake, so an idle connection cannot linger for --timeout. */
	if (x->handshake_end > 0 && x->handshake_end < d)
		return x->handshake_end;
	return d;
}

void xfer_report_timeout(const struct xfer *x, const char *what)
{
	if (x->handshake_end > 0)
		RP_ERR("no %s from %s within %.0f s of connecting; closing",
		       what, x->peer, x->handshake_end - x->start);
	else
		RP_ERR("timed out after %d s waiting for %s from %s",
		       x->o->timeout, what, x->peer);
}

/*
 * With a session key, end the message packed in buf[0..n) with its tag:
 * the header's length grows to count it, and the tag covers that header.
 * buf has room for RP_PROTO_MAX_MSG bytes. Returns the new length.
 */
static int seal(struct xfer *x, uint8_t *buf, int n)
{
	size_t len = (size_t)n;
	int rc;

	if (!x->keyed || n < 0)
		return n;
	rc = rp_proto_grow(buf, len, RP_TAG_LEN);
	if (rc)
		return rc;
	rp_auth_tag(x->skey, x->dir_out, x->seq_out++, buf,
		    buf + RP_PROTO_HDR_LEN, len - RP_PROTO_HDR_LEN, buf + len);
	return n + RP_TAG_LEN;
}

static int send_now(struct xfer *x, const uint8_t *buf, size_t n,
		    const char *what)
{
	int rc = rp_ctrl_send(x->fd, buf, n, xfer_deadline(x));

	if (rc == RP_ETIMEOUT)
		RP_ERR("timed out sending %s to %s", what, x->peer);
	/* A peer that gave up sent its ERR first: the reason is there. */
	if (rc == RP_ECTRLCLOSED)
		rc = xfer_peer_reason(x, rc);
	if (rc == RP_ECTRLCLOSED)
		RP_ERR("%s closed the control connection before %s", x->peer,
		       what);
	return rc;
}

int xfer_flush(struct xfer *x)
{
	size_t n = x->out_len;

	/* Emptied first: a failure must not send the same bytes again. */
	x->out_len = 0;
	return n ? send_now(x, x->out, n, x->out_what) : 0;
}

int msg_send(struct xfer *x, const uint8_t *msg, int n, const char *what)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	int rc = 0;

	if (n > (int)sizeof(buf))
		n = -ENOBUFS;
	if (n > 0) {
		memcpy(buf, msg, (size_t)n);
		n = seal(x, buf, n);
	}
	if (n < 0) {
		RP_ERR("cannot encode %s: %s", what, rp_strerror(n));
		return n;
	}
	if (!x->batch)
		return send_now(x, buf, (size_t)n, what);
	if ((size_t)n > sizeof(x->out) - x->out_len)
		rc = xfer_flush(x);
	if (!rc) {
		memcpy(x->out + x->out_len, buf, (size_t)n);
		x->out_len += (size_t)n;
		x->out_what = what;
	}
	return rc;
}

void msg_keyed(struct xfer *x, const uint8_t send_nonce[RP_AUTH_NONCE_LEN],
	       const uint8_t recv_nonce[RP_AUTH_NONCE_LEN],
	       enum rp_auth_role us)
{
	rp_auth_session_key(x->psk, send_nonce, recv_nonce, x->skey);
	x->keyed = true;
	x->dir_out = us;
	x->dir_in = us == RP_AUTH_ROLE_SEND ? RP_AUTH_ROLE_RECV :
		    RP_AUTH_ROLE_SEND;
	x->seq_out = 0;
	x->seq_in = 0;
	RP_EV0("ctrl", "auth.key", "session key derived: every message from "
	       "here on carries a tag");
}

int msg_peer_failure(struct xfer *x, const struct rp_result *res)
{
	const char *st = rp_proto_status_name(res->status);
	/* Our peers send their error text; don't say it twice. */
	bool same = !strcmp(st, res->text) || !res->text_len;
	char text[RP_PEER_TEXT_MAX];

	x->peer_failed = true;
	RP_ERR("%s refused or aborted the transfer: %s%s%s", x->peer, st,
	       same ? "" : ": ",
	       same ? "" : rp_fmt_peer(text, sizeof(text), res->text,
				       res->text_len));
	return rp_proto_status_to_err(res->status);
}

/* An ACK we wait for (0 if positive), or an ERR: the peer's failure. */
static int peer_result(struct xfer *x, const struct rp_msg_hdr *h,
		       const uint8_t *buf, union rp_msg *m)
{
	struct rp_result *res = &m->res;
	const char *why = NULL;
	int rc = rp_msg_unpack(h->type, buf, h->length, m, &why);

	if (rc) {
		RP_ERR("malformed %s from %s: %s", rp_proto_type_name(h->type),
		       x->peer, why ? why : "?");
		return rc;
	}
	rp_msg_trace("<-", h->type, res);
	if (h->type == RP_MSG_ACK && res->status == RP_ST_OK)
		return 0;
	if (res->status == RP_ST_OK) {
		RP_ERR("%s sent ERR with status ok", x->peer);
		return RP_EPROTO;
	}
	return msg_peer_failure(x, res);
}

/*
 * An older peer cannot read our version: tell it why at its own version
 * (best effort, briefly), and send nothing more it could not read.
 */
static void answer_old_version(struct xfer *x, uint8_t version)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .status = RP_ST_VERSION };
	int n;

	snprintf(res.text, sizeof(res.text), "version %d needed; this peer "
		 "runs rdmapush %s", RP_PROTO_VERSION, PACKAGE_VERSION);
	res.text_len = (uint16_t)strlen(res.text);
	n = rp_proto_pack_err_at(buf, sizeof(buf), version, &res);
	if (n > 0 && rp_ctrl_send(x->fd, buf, (size_t)n, rp_now() + 2.0))
		RP_EV("ctrl", "msg.unsent", "could not tell {peer} which "
		      "version we need", EV_S("peer", x->peer),
		      EV_S("type", "ERR"));
	x->peer_failed = true;
}

/* A header rp_ctrl_recv() refused (rc): say who sent what. */
static int bad_header(struct xfer *x, const struct rp_msg_hdr *h, int rc)
{
	char seen[RP_PEER_TEXT_MAX];
	struct rp_msg_hdr t;
	const char *why = NULL;

	if (rc == RP_ENOTPEER) {
		RP_ERR("%s is not an rdmapush peer (it sent: %s)", x->peer,
		       rp_fmt_peer(seen, sizeof(seen), (const char *)h->raw,
				   sizeof(h->raw)));
	} else if (rc == RP_EVERSION && h->version < RP_PROTO_VERSION) {
		answer_old_version(x, h->version);
		RP_ERR("%s speaks rdmapush protocol version %u; version %d "
		       "needed: upgrade rdmapush there", x->peer, h->version,
		       RP_PROTO_VERSION);
	} else if (rc == RP_EVERSION) {
		RP_ERR("%s speaks protocol version %u; this rdmapush speaks "
		       "%d: upgrade rdmapush here", x->peer, h->version,
		       RP_PROTO_VERSION);
	} else {
		(void)rp_proto_parse_hdr(h->raw, sizeof(h->raw), &t, &why);
		RP_ERR("bad control message header from %s: %s", x->peer,
		       why ? why : "payload too long");
	}
	return rc;
}

/*
 * The receiver derives the key only once our proof checks out, so its
 * refusal of that proof comes untagged. Accept that one ERR before any
 * tagged message: it can only make us fail, never succeed.
 */
static bool untagged_refusal(const struct xfer *x, const struct rp_msg_hdr *h,
			     const uint8_t *buf)
{
	struct rp_result res;

	return x->seq_in == 0 && h->type == RP_MSG_ERR &&
	       !rp_proto_unpack_result(buf, h->length, RP_MSG_ERR, &res,
				       NULL) &&
	       res.status == RP_ST_AUTH;
}

/* With a session key: check and strip the tag before anything decodes. */
static int unseal(struct xfer *x, struct rp_msg_hdr *h, const uint8_t *buf)
{
	size_t body;

	if (!x->keyed)
		return 0;
	body = h->length >= RP_TAG_LEN ? h->length - RP_TAG_LEN : 0;
	if (h->length >= RP_TAG_LEN &&
	    rp_auth_tag_check(x->skey, x->dir_in, x->seq_in, h->raw, buf,
			      body, buf + body)) {
		x->seq_in++;
		h->length = (uint32_t)body;
		return 0;
	}
	if (untagged_refusal(x, h, buf))
		return 0;
	RP_ERR("control message from %s failed its integrity check (altered, "
	       "replayed or reordered): %s", x->peer,
	       rp_proto_type_name(h->type));
	return RP_ETAMPERED;
}

/* The next message, header checked and tag stripped, into h and buf. */
static int next_msg(struct xfer *x, struct rp_msg_hdr *h, uint8_t *buf,
		    size_t cap, const char *phase)
{
	int rc = rp_ctrl_recv_in(x->fd, &x->in, h, buf, cap,
				 xfer_deadline(x));

	if (rc == RP_ETIMEOUT) {
		xfer_report_timeout(x, phase);
		return rc;
	}
	if (rc == RP_ECTRLCLOSED) {
		RP_ERR("%s closed the control connection while we waited for %s",
		       x->peer, phase);
		x->peer_failed = true;
		return rc;
	}
	if (rc == RP_ENOTPEER || rc == RP_EVERSION || rc == RP_EPROTO)
		return bad_header(x, h, rc);
	if (rc)
		return rc;
	return unseal(x, h, buf);
}

int msg_recv(struct xfer *x, uint32_t want, union rp_msg *m,
	     const char *phase)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	struct rp_msg_hdr h;
	const char *why = NULL;
	char names[64];
	int rc;

	if (rp_session_stop)
		return RP_EINTERRUPTED;
	rc = xfer_flush(x);
	if (!rc)
		rc = next_msg(x, &h, buf, sizeof(buf), phase);
	if (rc)
		return rc;
	x->got_type = h.type;
	if (h.type == RP_MSG_ERR || (h.type == RP_MSG_ACK &&
				     (want & RP_MSG_BIT(RP_MSG_ACK))))
		return peer_result(x, &h, buf, m);
	if (!(want & RP_MSG_BIT(h.type))) {
		RP_ERR("expected %s from %s, got %s",
		       rp_msg_set_name(want, names, sizeof(names)), x->peer,
		       rp_proto_type_name(h.type));
		return RP_EUNEXPECTED;
	}
	rc = rp_msg_unpack(h.type, buf, h.length, m, &why);
	if (rc) {
		RP_ERR("malformed %s from %s: %s", rp_proto_type_name(h.type),
		       x->peer, why ? why : "?");
		return rc;
	}
	rp_msg_trace("<-", h.type, m);
	return 0;
}

int msg_recv_err(struct xfer *x, const char *phase)
{
	union rp_msg m;
	int rc = msg_recv(x, RP_MSG_BIT(RP_MSG_ERR), &m, phase);

	return rc ? rc : RP_EPROTO;
}

int msg_send_auth(struct xfer *x, const struct rp_auth *a)
{
	uint8_t buf[RP_PROTO_MAX_MSG];

	rp_msg_trace("->", RP_MSG_AUTH, a);
	return msg_send(x, buf, rp_proto_pack_auth(buf, sizeof(buf), a),
			"AUTH");
}

int msg_send_mr(struct xfer *x, uint64_t addr, uint32_t rkey)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr = {
		.addr = addr,
		.rkey = rkey,
		.len = (uint64_t)x->chunk * x->window,
		.chunk = x->chunk,
		.window = x->window,
	};

	xfer_put_local(x, &mr.qp, mr.more, &mr.qps);
	rp_msg_trace("->", RP_MSG_MR, &mr);
	return msg_send(x, buf, rp_proto_pack_mr(buf, sizeof(buf), &mr), "MR");
}

int msg_send_fack(struct xfer *x, uint32_t id, int err, uint64_t bytes)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = {
		.id = id, .status = rp_proto_status_from_err(err),
		.bytes = err ? 0 : bytes,
	};

	if (err) {
		snprintf(res.text, sizeof(res.text), "%s", rp_strerror(err));
		res.text_len = (uint16_t)strlen(res.text);
	}
	rp_msg_trace("->", RP_MSG_FACK, &res);
	return msg_send(x, buf,
			rp_proto_pack_result(buf, sizeof(buf), RP_MSG_FACK,
					     &res), "FACK");
}

int msg_recv_auth(struct xfer *x, uint8_t want, struct rp_auth *a)
{
	union rp_msg m;
	int rc = msg_recv(x, rp_msg_expect(x->peer_side, RP_STAGE_AUTH), &m,
			  "AUTH (pre-shared key)");

	if (rc == RP_EUNEXPECTED) {
		RP_ERR("%s did not authenticate: use the same --psk on both "
		       "sides", x->peer);
		return RP_EAUTH;
	}
	if (rc)
		return rc;
	if (m.auth.step != want) {
		RP_ERR("malformed AUTH from %s: step %u, expected %u", x->peer,
		       m.auth.step, want);
		return RP_EPROTO;
	}
	*a = m.auth;
	return 0;
}

int xfer_peer_reason(struct xfer *x, int rc)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	/* What the session carries now, so that messages sent before the
	 * peer's ERR (FILE, FEND, FACK...) are read past, not refused. */
	uint32_t want = rp_msg_expect(x->peer_side, x->peer_side ==
				      RP_SIDE_RECEIVER ? RP_STAGE_END :
				      RP_STAGE_FILES);
	double end = rp_now() + 1.0;
	union rp_msg m;

	/* A peer that gives up sends ERR first, so it is usually there. */
	while (rp_ctrl_pending(&x->in) ||
	       poll(&pfd, 1, rp_sys_poll_ms(end, 1000)) == 1) {
		char c;
		int err;

		/* Closed with nothing more to read: no reason given. */
		if (!rp_ctrl_pending(&x->in) &&
		    recv(x->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
			break;
		err = msg_recv(x, want, &m, "the reason");

		if (err)
			return err;
		if (x->got_type == RP_MSG_ACK)
			break;
	}
	return rc;
}

void xfer_send_failure(struct xfer *x, uint8_t type, int rc)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .status = rp_proto_status_from_err(rc) };
	int n;

	if (x->fd < 0 || x->peer_failed)
		return;
	/* What was queued first, in order, or the peer's tags won't match. */
	x->batch = false;
	if (xfer_flush(x))
		return;
	snprintf(res.text, sizeof(res.text), "%s", rp_strerror(rc));
	res.text_len = (uint16_t)strlen(res.text);
	n = seal(x, buf, rp_proto_pack_result(buf, sizeof(buf), type, &res));
	if (n < 0)
		return;
	rp_msg_trace("->", type, &res);
	/* Best effort, briefly: the peer may be the reason we are failing. */
	if (rp_ctrl_send(x->fd, buf, (size_t)n, rp_now() + 2.0))
		RP_EV("ctrl", "msg.unsent", "could not tell {peer} why we "
		      "stopped", EV_S("peer", x->peer),
		      EV_S("type", rp_proto_type_name(type)));
}

/* What a wait watches besides the CQ: the control socket (when watch),
 * the workers' eventfd, or both through x->epfd. */
static int watch_fd(const struct xfer *x, bool watch)
{
	if (!x->pool)
		return watch ? x->fd : -1;
	return watch ? x->epfd : rp_pool_fd(x->pool);
}

bool xfer_ctrl_ready(const struct xfer *x)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };

	if (rp_ctrl_pending(&x->in))
		return true;
	/* Closed or failed counts too: the read says what happened. */
	return !x->pool || poll(&pfd, 1, 0) != 0;
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

int xfer_start_pool(struct xfer *x, size_t scratch)
{
	int rc = rp_pool_new(&x->pool, rp_opts_threads(x->o), scratch);

	if (rc)
		return rc;
	/* One fd for rp_verbs_next() to watch: readable when either is. */
	x->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (x->epfd < 0) {
		rc = -errno;
		RP_ERR("epoll_create1: %s", strerror(-rc));
		return rc;
	}
	rc = watch_add(x->epfd, x->fd, "control socket");
	if (!rc)
		rc = watch_add(x->epfd, rp_pool_fd(x->pool), "workers' eventfd");
	return rc;
}

int xfer_pool_wait(struct xfer *x, const char *what)
{
	int rc = rp_pool_wait(x->pool, xfer_deadline(x));

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

void xfer_stop_pool(struct xfer *x)
{
	rp_pool_free(x->pool);
	x->pool = NULL;
	if (x->epfd >= 0)
		close(x->epfd);
	x->epfd = -1;
}

int xfer_next(struct xfer *x, struct rp_wc *wc, int max, double deadline,
	      bool watch)
{
	int rc;

	/* A signal that landed outside poll() must stop us too. */
	if (rp_session_stop)
		return RP_EINTERRUPTED;
	/* What we queued goes before we wait: the peer may wait for it. */
	rc = xfer_flush(x);
	if (rc)
		return rc;
	/* Read ahead already: the fd will not say so. */
	if (watch && rp_ctrl_pending(&x->in))
		return 0;
	rc = rp_verbs_next(x->v, wc, max, watch_fd(x, watch), deadline);
	if (rc == 0 && x->pool)
		rp_pool_ack(x->pool);
	if (rc == RP_EWC)
		rc = xfer_peer_reason(x, rc);
	if (rc == RP_ETIMEOUT)
		RP_ERR("no %s from %s for %d s (%" PRIu64
		       " chunks taken by the receiver so far)",
		       !strcmp(x->rep.role, "send") ? "credit or answer" :
		       "data", x->peer, x->o->timeout, x->done);
	return rc;
}

void rp_session_refuse(const struct rp_opts *o, int fd, const char *peer,
		       int rc)
{
	struct xfer x = { .o = o, .fd = fd, .epfd = -1 };

	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	xfer_send_failure(&x, RP_MSG_ERR, rc);
	rp_ctrl_close(&x.fd);
}

/*
 * What the peer may do to this side's ring, per op: only what the op
 * needs, so a Read session's receiver and a Send session's both expose
 * nothing, and a sender exposes its ring only for Read.
 */
static unsigned int ring_access(uint8_t op, bool receiver)
{
	switch (op) {
	case RP_OP_WRITE:
		return receiver ? RP_ACCESS_LOCAL_WRITE |
				  RP_ACCESS_REMOTE_WRITE : 0;
	case RP_OP_READ:
		return receiver ? RP_ACCESS_LOCAL_WRITE : RP_ACCESS_REMOTE_READ;
	default:
		return receiver ? RP_ACCESS_LOCAL_WRITE : 0;
	}
}

int xfer_open_verbs(struct xfer *x, bool receiver)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct rp_verbs_cfg cfg = {
		.dev_name = x->o->dev,
		.ib_port = x->o->ib_port,
		.gid_index = x->o->gid_index,
		.receiver = receiver,
		.access = ring_access(x->op, receiver),
		/* A window of chunks read at once, when reading. */
		.rd_atomic = x->op == RP_OP_READ ? x->window : 1,
		.max_send_wr = xfer_queue_depth(x),
		.max_recv_wr = xfer_queue_depth(x),
		.qps = x->qps,
	};
	int rc = rp_ctrl_local_addr(x->fd, &ss, &sl);

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
	xfer_report_verbs(x);
	return 0;
}

uint32_t xfer_queue_depth(const struct xfer *x)
{
	/* window writes (or receives) in flight; credits are cumulative, so
	 * the credit Sends need no more than that either. A Read session's
	 * receiver has a window of Reads in its send queue besides. */
	return x->window + 1 + (x->op == RP_OP_READ ? x->window : 0);
}

void xfer_report_verbs(struct xfer *x)
{
	x->rep.local_qpn = x->local[0].qpn;
	x->rep.remote_qpn = x->remote[0].qpn;
	snprintf(x->gid, sizeof(x->gid), "%s", rp_verbs_gid_str(x->v));
	x->rep.gid = x->gid;
	x->rep.gid_index = rp_verbs_gid_index(x->v);
}

void xfer_entry(struct xfer *x, struct rp_tally *t, const char *path,
		uint64_t bytes, int rc, const char *skipped)
{
	if (skipped) {
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
	if (x->o->json)
		rp_report_json_entry(stdout, x->rep.role, path, bytes, rc,
				     skipped);
}

void xfer_report(struct xfer *x, int rc, struct rp_outcome *out)
{
	if (!rc)
		xfer_phase(x, RP_PHASE_DONE);
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
	x->rep.phase = rp_phase_name(x->phase);
	/* A checksum stands for one file, not for a session of several. */
	if (!x->rep.name)
		x->rep.have_csum = false;
	/* A session that ended well shows its counts, failures or not. */
	if ((!rc || x->phase == RP_PHASE_DONE) && !x->o->quiet)
		rp_report_summary(stderr, &x->rep);
	if (x->o->json)
		rp_report_json(stdout, &x->rep);
}

void xfer_release(struct xfer *x)
{
	xfer_stop_pool(x);
	sodium_memzero(x->skey, sizeof(x->skey));
	x->keyed = false;
	rp_verbs_close(x->v);
	x->v = NULL;
	x->ring = NULL;
	rp_csum_free(x->csum);
	x->csum = NULL;
	rp_ctrl_close(&x->fd);
}
