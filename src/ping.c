// SPDX-License-Identifier: MIT
/* rdmapush ping: the handshake and the timed round trips, both sides,
 * on the verbs.h interface only (so it runs over the in-memory fabric
 * too). Statistics, report and the listening loop: ping_report.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/auth.h"
#include "rdmapush/capture.h"
#include "rdmapush/chan.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/ping.h"
#include "rdmapush/proto.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"
#include "session_op.h"

/* Send-queue and receive-queue depths: one message is in flight each
 * way at a time; a little room keeps a late completion from blocking. */
#define SQ_DEPTH	16
#define RQ_DEPTH	4
/* Receives posted ahead (--op send): the next one is always there. */
#define RECVS_AHEAD	2
/* Spins between two looks at the stop flag, the clock and the control
 * socket (a poll(2) and a sched_yield(2) each): rare enough not to add
 * to the latency. */
#define SLOW_EVERY	1024
/* Spins between two looks at the CQ while waiting on a byte (--op
 * write): our Writes' completions, and a failed one. */
#define CQ_EVERY	16

struct ping_way;

struct ping {
	const struct rp_config *o;
	struct rp_chan ch;	/* the control connection */
	const char *peer;
	bool server;
	uint8_t op;
	const struct ping_way *way;	/* how op's round trips go */
	uint32_t size;
	uint32_t iters;
	struct rp_verbs *v;
	struct rp_capture *cap;	/* --capture, from the connect on */
	uint8_t *ring;		/* [0, size) ours to receive into; the
				 * outgoing message at stride */
	size_t stride;
	uint64_t raddr;		/* --op write: the peer's buffer */
	uint32_t rkey;
	uint32_t sq;		/* our Sends/Writes not yet completed */
	bool got;		/* --op send: a receive completed */
	uint32_t got_imm;
	uint32_t got_len;
	double deadline;	/* rp_now(): no progress after it */
	double end;		/* server: the client's whole ping ends by
				 * then (rp_now()), or 0 */
	struct rp_ping_serve *serve;	/* server: how, and what came */
	struct rp_ping_result *res;	/* client: what it learns */
	uint32_t done;		/* round trips completed */
};

/*
 * How a round trip goes, for each data op a ping supports, keyed by the
 * push's descriptor (session_op.h). Ping keeps its own: its messages
 * are not a push's chunks (a Write without immediate, spun on; an
 * answer that goes back the same way).
 */
struct ping_way {
	const struct rp_data_ops *desc;	/* the push's descriptor */
	int (*arm)(struct ping *p);	/* receives posted ahead, or NULL */
	int (*post)(struct ping *p, uint32_t i);	/* ours, of trip i */
	int (*wait)(struct ping *p, uint32_t i);	/* the peer's */
};

/*
 * Each side of a ping receives the other's messages, so it opens its
 * buffer as a push's receiver opens its ring: writable by the peer with
 * --op write. Then its MR carries the buffer's address and rkey.
 */
static unsigned int access_of(const struct ping *p)
{
	return p->way->desc->recv_access;
}

static bool exposed(const struct ping *p)
{
	return rp_op_exposes(access_of(p));
}

/* ---- control messages ---- */

/* A ping's FIN counts round trips (in the push's files field): a "msg"
 * event as the push's, in the ping's words. */
static void trace_fin_rounds(const char *dir, uint64_t n)
{
	RP_EV("ctrl", "msg", "{arrow} FIN: {round_trips} round "
	      "trip{round_trips:|s} done", EV_T("arrow", dir),
	      EV_S("dir", dir[0] == '-' ? "out" : "in"),
	      EV_S("type", "FIN"), EV_U("round_trips", n));
}

/* Its ACK, with the status it carries and the round trips answered (in
 * the push's bytes field). */
static void trace_ack_rounds(const char *dir, const struct rp_result *ack)
{
	RP_EV("ctrl", "msg", "{arrow} ACK status={status} ({status_name}): "
	      "{round_trips} round trip{round_trips:|s} answered",
	      EV_T("arrow", dir),
	      EV_S("dir", dir[0] == '-' ? "out" : "in"), EV_S("type", "ACK"),
	      EV_U("status", ack->status),
	      EV_S("status_name", rp_proto_status_name(ack->status)),
	      EV_U("round_trips", ack->bytes));
}

/* The channel's tracer: FIN and ACK in the ping's words, the rest as
 * the push traces them. */
static void trace_msg(const char *dir, uint8_t type, const void *m)
{
	if (type == RP_MSG_FIN)
		trace_fin_rounds(dir, ((const struct rp_fin *)m)->files);
	else if (type == RP_MSG_ACK)
		trace_ack_rounds(dir, m);
	else
		rp_msg_trace(dir, type, m);
}

/* The control channel to peer over fd, and --psk's exchange on it. */
static int open_chan(struct ping *p, int fd, const uint8_t *psk)
{
	int rc;

	rp_chan_init(&p->ch, fd, p->peer, "ping", p->server ?
		     RP_SIDE_SENDER : RP_SIDE_RECEIVER, psk, p->o->timeout);
	p->ch.trace = trace_msg;
	rp_ctrl_tune(fd, p->o->timeout, 0);
	/* Until its HELLO, a client has the push's handshake deadline. */
	if (p->server)
		p->ch.handshake_end = p->ch.start +
				      rp_session_handshake_secs(p->o);
	if (!psk)
		return 0;
	rc = p->server ? rp_chan_auth_receiver(&p->ch) :
			 rp_chan_auth_sender(&p->ch);
	return rc;
}

/* Why we stop, for a peer that can still hear (the same ERR a push
 * sends); the control connection is closed either way. */
static void stop_ctrl(struct ping *p, int rc)
{
	if (rc)
		rp_chan_refuse(&p->ch, RP_MSG_ERR, rc);
	rp_chan_close(&p->ch);
}

static int send_mr(struct ping *p, uint32_t rkey)
{
	struct rp_mr m = {
		.addr = exposed(p) ? (uint64_t)(uintptr_t)p->ring : 0,
		.rkey = exposed(p) ? rkey : 0,
		.len = p->size, .chunk = p->size, .window = 1, .qps = 1,
	};

	rp_verbs_local(p->v, 0, &m.qp);
	return rp_chan_send(&p->ch, RP_MSG_MR, &m);
}

/* The peer's MR (the server's answer, or the client's buffer for --op
 * write): one QP, our size, and for --op write a buffer to write into. */
static int take_mr(struct ping *p, struct rp_mr *m, const char *what)
{
	union rp_msg u;
	int rc = rp_chan_recv(&p->ch, RP_MSG_BIT(RP_MSG_MR), &u, what);

	if (rc)
		return rc;
	*m = u.mr;
	if (m->qps != 1 || m->chunk != p->size ||
	    (exposed(p) && !m->rkey)) {
		RP_ERR("MR from %s does not fit the ping: %u QP%s, %u "
		       "byte%s, rkey 0x%x; want 1 QP of %u byte%s%s", p->peer,
		       m->qps, rp_s(m->qps), m->chunk, rp_s(m->chunk),
		       m->rkey, p->size, rp_s(p->size),
		       exposed(p) ? " and an rkey" : "");
		return RP_EPROTO;
	}
	p->raddr = m->addr;
	p->rkey = m->rkey;
	return 0;
}

/* ---- verbs ---- */

static int open_verbs(struct ping *p, uint32_t *rkey)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct rp_verbs_cfg cfg = {
		.dev_name = p->o->dev, .ib_port = p->o->ib_port,
		.gid_index = p->o->gid_index, .receiver = p->server,
		.access = access_of(p),
		.rd_atomic = 1, .max_send_wr = SQ_DEPTH,
		.max_recv_wr = RQ_DEPTH, .qps = 1,
		.ack_timeout = RP_QP_TIMEOUT_PING,
	};
	void *ring;
	int rc = rp_ctrl_local_addr(p->ch.fd, &ss, &sl);

	if (rc)
		return rc;
	cfg.local_addr = (const struct sockaddr *)&ss;
	cfg.local_addr_len = sl;
	rc = rp_verbs_open(&p->v, &cfg);
	if (rc)
		return rc;
	/* Ours to receive into, then the outgoing message, apart by a
	 * cache line so the two never share one. */
	p->stride = ((size_t)p->size + 63) & ~(size_t)63;
	rc = rp_verbs_reg_ring(p->v, 2 * p->stride, &ring, rkey);
	if (rc)
		return rc;
	p->ring = ring;
	memset(p->ring, 0, 2 * p->stride);
	for (uint32_t i = 0; i < p->size; i++)
		p->ring[p->stride + i] = (uint8_t)(i * 7 + 1);
	if (p->way->arm)
		rc = p->way->arm(p);
	return rc;
}

/* ---- the round trips ---- */

/* Between spins, now and then: stop flag, deadline, control socket. */
static int keep_going(struct ping *p, const char *what)
{
	struct pollfd pfd = { .fd = p->ch.fd, .events = POLLIN };
	union rp_msg m;
	int rc;

	if (rp_session_stop)
		return RP_EINTERRUPTED;
	/* Free on a core of our own (nobody else runnable); where the peer
	 * shares our CPU (one guest, the unit tests), it runs now rather
	 * than after our whole time slice. */
	sched_yield();
	if (p->end > 0 && rp_now() > p->end) {
		RP_ERR("%s is still pinging after %d s, the most a ping "
		       "server gives one client (round trip %" PRIu32 " of %"
		       PRIu32 "): ending it", p->peer, p->serve->max_secs,
		       p->done + 1, p->iters);
		return RP_ELIMIT;
	}
	if (rp_now() > p->deadline) {
		RP_ERR("timed out after %d s waiting for %s from %s (round "
		       "trip %" PRIu32 " of %" PRIu32 ")", p->o->timeout, what,
		       p->peer, p->done + 1, p->iters);
		return RP_ETIMEOUT;
	}
	if (!rp_chan_pending(&p->ch) && poll(&pfd, 1, 0) <= 0)
		return 0;
	/* Nothing is due on the control connection mid-ping: an ERR,
	 * or the peer's end closing, or a message out of turn. */
	rc = rp_chan_recv(&p->ch, RP_MSG_BIT(RP_MSG_FIN), &m,
			  "nothing (mid-ping)");
	if (!rc) {
		RP_ERR("%s sent FIN after %" PRIu32 " of %" PRIu32 " round "
		       "trips", p->peer, p->done, p->iters);
		rc = RP_EUNEXPECTED;
	}
	return rc;
}

/* One look at the CQ: our completions free send-queue slots, a receive
 * is noted for the loop. */
static int reap(struct ping *p)
{
	struct rp_wc wc[8];
	int n = rp_verbs_poll(p->v, wc, 8);

	for (int i = 0; i < n; i++) {
		if (wc[i].op == RP_WC_SEND || wc[i].op == RP_WC_WRITE) {
			p->sq--;
		} else if (wc[i].op == RP_WC_RECV_SEND_IMM) {
			p->got = true;
			p->got_imm = wc[i].imm;
			p->got_len = wc[i].byte_len;
		} else {
			RP_ERR("unexpected completion %s wr_id=%" PRIu64,
			       rp_wc_op_name(wc[i].op), wc[i].wr_id);
			return RP_EINTERNAL;
		}
	}
	/* A peer that ends the ping sends ERR, then tears down its QP: our
	 * completion may fail first, but its reason is the ERR. */
	if (n == RP_EWC)
		return rp_chan_peer_reason(&p->ch, n);
	return n < 0 ? n : 0;
}

/* Room on the send queue for one more. */
static int sq_room(struct ping *p)
{
	for (uint64_t spin = 1; p->sq >= SQ_DEPTH; spin++) {
		int rc = reap(p);

		if (!rc && spin % SLOW_EVERY == 0)
			rc = keep_going(p, "our own completions");
		if (rc)
			return rc;
	}
	return 0;
}

/* --op send: receives posted ahead, so the next is always there. */
static int recvs_ahead(struct ping *p)
{
	int rc = 0;

	for (uint32_t i = 0; !rc && i < RECVS_AHEAD; i++)
		rc = rp_verbs_post_recv_buf(p->v, 0, i, 0, p->size);
	return rc;
}

/* --op send: until the receive of round trip i completes. */
static int wait_recv(struct ping *p, uint32_t i)
{
	int rc = 0;

	p->got = false;
	for (uint64_t spin = 1; !rc && !p->got; spin++) {
		rc = reap(p);
		if (!rc && spin % SLOW_EVERY == 0)
			rc = keep_going(p, "a Send");
	}
	if (rc)
		return rc;
	if (p->got_imm != i || p->got_len != p->size) {
		RP_ERR("%s sent round trip %" PRIu32 " of %" PRIu32 " byte%s; "
		       "expected %" PRIu32 " of %" PRIu32, p->peer, p->got_imm,
		       p->got_len, rp_s(p->got_len), i, p->size);
		return RP_EPROTO;
	}
	/* The one just used, again at the back of the queue. */
	return rp_verbs_post_recv_buf(p->v, 0, i + RECVS_AHEAD, 0, p->size);
}

static int post_send(struct ping *p, uint32_t i)
{
	int rc = sq_room(p);

	if (!rc)
		rc = rp_verbs_post_send_data(p->v, 0, i, p->stride, p->size,
					     i);
	if (!rc)
		p->sq++;
	return rc;
}

/* --op write: 1..255, never 0 (the buffer's first value) and never the
 * previous round trip's. */
static uint8_t tag_of(uint32_t i)
{
	return (uint8_t)(i % 255 + 1);
}

/* --op write: until the peer's Write of round trip i has landed: its
 * last byte, written last, carries the tag. The acquire load keeps the
 * bytes before it from being read earlier. */
static int wait_tag(struct ping *p, uint32_t i)
{
	const uint8_t *last = &p->ring[p->size - 1];
	uint8_t tag = tag_of(i);
	int rc = 0;

	for (uint64_t spin = 1; __atomic_load_n(last, __ATOMIC_ACQUIRE) != tag;
	     spin++) {
		if (spin % CQ_EVERY == 0)
			rc = reap(p);
		if (!rc && spin % SLOW_EVERY == 0)
			rc = keep_going(p, "an RDMA Write");
		if (rc)
			return rc;
	}
	return 0;
}

static int post_write(struct ping *p, uint32_t i)
{
	int rc = sq_room(p);

	p->ring[p->stride + p->size - 1] = tag_of(i);
	if (!rc)
		rc = rp_verbs_post_write(p->v, 0, i, p->stride, p->size,
					 p->raddr, p->rkey, true);
	if (!rc)
		p->sq++;
	return rc;
}

static const struct ping_way ways[] = {
	{ &rp_data_op_send, recvs_ahead, post_send, wait_recv },
	{ &rp_data_op_write, NULL, post_write, wait_tag },
};

/* How a ping by op goes, or NULL: not an op a ping supports. */
static const struct ping_way *way_of(uint8_t op)
{
	const struct rp_data_ops *d = rp_data_op_get(op);

	for (size_t i = 0; d && i < sizeof(ways) / sizeof(ways[0]); i++)
		if (ways[i].desc == d)
			return &ways[i];
	return NULL;
}

/* The client's round trip i, timed into *us. */
static int client_trip(struct ping *p, uint32_t i, double *us)
{
	double t0 = rp_now();
	int rc;

	p->deadline = t0 + (double)p->o->timeout;
	rc = p->way->post(p, i);
	if (!rc)
		rc = p->way->wait(p, i);
	*us = (rp_now() - t0) * 1e6;
	return rc;
}

/* The server's round trip i: wait, answer. */
static int server_trip(struct ping *p, uint32_t i)
{
	int rc;

	p->deadline = rp_now() + (double)p->o->timeout;
	rc = p->way->wait(p, i);
	if (!rc)
		rc = p->way->post(p, i);
	return rc;
}

/* A failure once a stop signal came is its doing (the peer, stopped
 * too, may have gone first): say so, for the exit status 130 or 143. */
static int stopped(int rc)
{
	return rc && rp_session_stop ? RP_EINTERRUPTED : rc;
}

/* ---- the client ---- */

static int client_hello(struct ping *p)
{
	struct rp_hello h = {
		.total = p->iters, .chunk = p->size, .window = 1,
		.flags = RP_HELLO_PING, .op = p->op, .qps = 1,
	};

	rp_verbs_local(p->v, 0, &h.qp);
	return rp_chan_send(&p->ch, RP_MSG_HELLO, &h);
}

/* FIN, and the server's ACK: it answered every round trip. */
static int client_finish(struct ping *p)
{
	struct rp_fin fin = { .files = p->done, .bytes = 0 };
	union rp_msg m;
	int rc = rp_chan_send(&p->ch, RP_MSG_FIN, &fin);

	/* An ACK with a failure status is the server's failure. */
	if (!rc)
		rc = rp_chan_recv(&p->ch, RP_MSG_BIT(RP_MSG_ACK), &m, "ACK");
	if (rc)
		return rc;
	if (m.res.bytes != p->done) {
		RP_ERR("%s answered %" PRIu64 " of %" PRIu32 " round trip%s "
		       "(status %s)", p->peer, m.res.bytes, p->done,
		       rp_s(p->done), rp_proto_status_name(m.res.status));
		return RP_EPROTO;
	}
	return 0;
}

/* Our one QP to the peer's, --capture started first: no packet flows
 * before the QP is connected, so the capture misses none. */
static int connect_qp(struct ping *p, const struct rp_qp_addr *peer)
{
	struct rp_qp_addr me;
	uint32_t qpn[2];
	int rc;

	rp_verbs_local(p->v, 0, &me);
	qpn[0] = me.qpn;
	qpn[1] = peer->qpn;
	rc = rp_capture_session(&p->cap, p->o->capture, p->v, qpn, 2);
	if (!rc)
		rc = rp_verbs_connect(p->v, peer, 1);
	return rc;
}

static int client_run(struct ping *p, double *rtt)
{
	struct rp_mr mr;
	uint32_t rkey;
	int rc = open_verbs(p, &rkey);

	if (!rc)
		rc = client_hello(p);
	if (!rc)
		rc = take_mr(p, &mr, "MR");
	if (!rc) {
		p->res->connected = true;
		p->res->remote = mr.qp;
		rc = connect_qp(p, &mr.qp);
	}
	if (!rc && exposed(p))
		rc = send_mr(p, rkey);
	for (uint32_t i = 0; !rc && i < p->iters; i++) {
		rc = client_trip(p, i, &rtt[i]);
		if (!rc)
			p->done++;
	}
	if (!rc)
		rc = client_finish(p);
	return stopped(rc);
}

int rp_ping_client_fd(const struct rp_config *o, int fd, const char *peer,
		      struct rp_ping_result *res)
{
	struct ping p = {
		.o = o, .peer = peer, .op = o->ping_op,
		.way = way_of(o->ping_op), .size = o->ping_size,
		.iters = o->ping_iters, .res = res,
	};
	uint8_t key[RP_PSK_LEN];
	double *rtt = NULL;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	snprintf(res->peer, sizeof(res->peer), "%s", peer);
	/* A key file that will not do: the server hears nothing of it. */
	if (o->psk_file)
		rc = rp_auth_load(o->psk_file, key);
	if (rc) {
		rp_ctrl_close(&fd);
		return rc;
	}
	rc = open_chan(&p, fd, o->psk_file ? key : NULL);
	if (!rc)
		rc = rp_sys_calloc(&rtt, p.iters ? p.iters : 1, sizeof(*rtt),
				   "round-trip times");
	if (!rc && !p.way) {
		RP_ERR("a ping cannot move its messages by --op %s",
		       rp_proto_op_name(p.op));
		rc = RP_EINTERNAL;
	}
	if (!rc)
		rc = client_run(&p, rtt);
	stop_ctrl(&p, rc);
	sodium_memzero(key, sizeof(key));
	(void)rp_capture_stop(p.cap, rc != 0);
	rp_verbs_close(p.v);
	if (!rc) {
		res->op = p.op;
		res->size = p.size;
		res->iterations = p.done;
		rc = rp_ping_stats(rtt, p.done, &res->rtt);
	}
	free(rtt);
	return rc;
}

int rp_ping_client(const struct rp_config *o, struct rp_ping_result *res)
{
	char peer[80];
	int fd = -1;
	int rc = rp_ctrl_connect(o->host, o->port, rp_now() + o->timeout,
				 &fd);

	if (rc)
		return rc;
	snprintf(peer, sizeof(peer), "%s:%u", o->host, o->port);
	return rp_ping_client_fd(o, fd, peer, res);
}

/* ---- the server ---- */

/* A ping's HELLO, within our limits; anything else is refused saying
 * what we are. */
static int server_hello(struct ping *p, struct rp_hello *h)
{
	union rp_msg m;
	int rc = rp_chan_recv(&p->ch, rp_msg_expect(RP_SIDE_SENDER,
						    RP_STAGE_HELLO), &m,
			      "HELLO");

	if (!p->ch.psk)
		rc = rp_chan_unkeyed(&p->ch, rc, "ping server");
	/* A push's first message: say what this is. */
	if (rc == RP_EUNEXPECTED)
		return RP_ENOTPUSH;
	if (rc)
		return rc;
	*h = m.hello;
	if (!(h->flags & RP_HELLO_PING)) {
		RP_ERR("%s sent a push's HELLO; this is a ping server: "
		       "refusing", p->peer);
		return RP_ENOTPUSH;
	}
	if (!way_of(h->op) || h->qps != 1 ||
	    h->total < 1 || h->total > RP_PING_MAX_ITERS ||
	    h->chunk > RP_PING_MAX_SIZE) {
		RP_ERR("%s asks for a ping outside our limits: op %s, %u "
		       "QP%s, %" PRIu64 " round trip%s of %u byte%s (send or "
		       "write, 1 QP, 1..%u of 1..%u)", p->peer,
		       rp_proto_op_name(h->op), h->qps, rp_s(h->qps),
		       h->total, rp_s(h->total), h->chunk, rp_s(h->chunk),
		       RP_PING_MAX_ITERS, RP_PING_MAX_SIZE);
		return RP_ELIMIT;
	}
	/* Past its handshake (AUTH and HELLO): it counts as a ping now,
	 * and takes a slot if the server has one (else RP_EBUSY, said). */
	p->serve->hello = true;
	if (p->serve->adm)
		rc = p->serve->adm->admit(p->serve->adm->ctx, p->peer);
	if (rc)
		return rc;
	/* --timeout from here, and the whole ping within max_secs: a
	 * client cannot hold its slot for a million slow round trips. */
	p->ch.handshake_end = 0;
	if (p->serve->max_secs > 0)
		p->end = rp_now() + p->serve->max_secs;
	p->op = h->op;
	p->way = way_of(h->op);
	p->size = h->chunk;
	p->iters = (uint32_t)h->total;
	return 0;
}

/* The client's FIN says how many it did; ACK with how many we answered. */
static int server_finish(struct ping *p)
{
	struct rp_result ack = { .status = RP_ST_OK, .bytes = p->done };
	union rp_msg m;
	int rc = rp_chan_recv(&p->ch, RP_MSG_BIT(RP_MSG_FIN), &m, "FIN");

	return rc ? rc : rp_chan_send(&p->ch, RP_MSG_ACK, &ack);
}

static int server_run(struct ping *p)
{
	struct rp_hello h;
	struct rp_mr mr;
	uint32_t rkey;
	int rc = server_hello(p, &h);

	if (!rc)
		rc = open_verbs(p, &rkey);
	if (!rc)
		rc = connect_qp(p, &h.qp);
	if (!rc)
		rc = send_mr(p, rkey);
	if (!rc && exposed(p))
		rc = take_mr(p, &mr, "MR (the client's buffer)");
	for (uint32_t i = 0; !rc && i < p->iters; i++) {
		rc = server_trip(p, i);
		if (!rc)
			p->done++;
	}
	if (!rc)
		rc = server_finish(p);
	return stopped(rc);
}

int rp_ping_serve_fd(const struct rp_config *o, struct rp_ping_serve *s,
		     int fd, const char *peer)
{
	struct ping p = { .o = o, .peer = peer, .server = true, .serve = s };
	int rc;

	s->hello = false;
	rc = open_chan(&p, fd, s->psk);

	if (!rc)
		rc = server_run(&p);
	if (!rc)
		RP_INFO("answered %" PRIu32 " %s round trip%s of %" PRIu32
			" byte%s from %s", p.done, rp_proto_op_name(p.op),
			rp_s(p.done), p.size, rp_s(p.size), peer);
	stop_ctrl(&p, rc);
	(void)rp_capture_stop(p.cap, rc != 0);
	rp_verbs_close(p.v);
	return rc;
}
