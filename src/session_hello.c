// SPDX-License-Identifier: MIT
/* The handshake after --psk's AUTH (chan_auth.c). The sender's: HELLO,
 * the receiver's MR. The receiver's: the sender's HELLO, the shape it
 * agrees to, the MR answer and (when the op exposes the sender's ring,
 * as --op read does) the sender's MR. Nothing is opened for a sender
 * before it has passed these. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rdmapush/err.h"
#include "rdmapush/limits.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/*
 * A chain push: the CHAIN that must come right after its HELLO (any
 * other message is out of place), into x->chain. Then, before anything
 * is opened or admitted: a receiver without --relay refuses it (a
 * policy, as --max-size is: the sender exits with that status); one
 * with it passes the push on once its shape is agreed (rp_relay_open).
 */
static int recv_chain(struct xfer *x)
{
	union rp_msg m;
	int rc = rp_xfer_recv(x, RP_MSG_BIT(RP_MSG_CHAIN) |
			      RP_MSG_BIT(RP_MSG_ERR), &m, "CHAIN");

	if (rc)
		return rc;
	rc = rp_sys_calloc(&x->chain.hop, m.chain.n, sizeof(*x->chain.hop),
			   "chain hops");
	if (rc)
		return rc;
	rp_proto_chain_hops(&m.chain, x->chain.hop);
	x->chain.n = m.chain.n;
	if (!x->o->relay) {
		RP_ERR("this receiver does not relay a chain (start it with "
		       "rdmapush recv --relay)");
		return RP_ELIMIT;
	}
	return 0;
}

int rp_recv_hello(struct xfer *x, struct rp_hello *h)
{
	union rp_msg m;
	int rc = rp_xfer_recv(x, rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_HELLO), &m,
			  "HELLO");

	rc = rp_chan_unkeyed(&x->ch, rc, "receiver");
	if (rc)
		return rc;
	/* rdmapush ping's HELLO (ping.c) has the same layout: refuse it
	 * before anything is opened, saying what we are (the ERR's text). */
	if (m.hello.flags & RP_HELLO_PING) {
		RP_ERR("%s sent a ping (rdmapush ping): this is an rdmapush "
		       "file receiver, not a ping server", x->peer);
		return RP_ENOTPING;
	}
	*h = m.hello;
	return h->flags & RP_HELLO_CHAIN ? recv_chain(x) : 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Agree chunk and window: never more than asked, within our caps, and no
 * more ring than the session needs. */
int rp_recv_agree_shape(struct xfer *x, const struct rp_hello *h)
{
	uint64_t need;

	if (h->chunk < RP_MIN_CHUNK) {
		RP_ERR("%s asks for %u-byte chunks, below the minimum %u",
		       x->peer, h->chunk, RP_MIN_CHUNK);
		return RP_ELIMIT;
	}
	x->size = h->total;
	x->chunk = min_u32(h->chunk, RP_MAX_CHUNK);
	if (x->size < x->chunk) {
		/* A small session needs no more ring than its pages, but
		 * never more than the sender asked for (its chunk need not
		 * be a multiple of a page). size < chunk <= 64 MiB here:
		 * the rounding cannot wrap. */
		need = (x->size + 4095) & ~(uint64_t)4095;
		if (need < RP_MIN_CHUNK)
			need = RP_MIN_CHUNK;
		x->chunk = min_u32(x->chunk, (uint32_t)need);
	}
	/* Every file takes a chunk of its own, however small: a session's
	 * size says nothing of how many it needs. The chunk shrank above
	 * for a small session, and the ring with it. */
	x->window = min_u32(h->window, RP_MAX_WINDOW);
	while ((uint64_t)x->chunk * x->window > RP_MAX_RING && x->window > 1)
		x->window--;
	/* Our own disk's choice: the sender's --direct is its own. */
	rp_fileio_dio_init(&x->dio, x->o->direct, x->chunk);
	return 0;
}

/* A window of them: never more chunks, announcements or credits are in
 * flight, and each completion posts its receive again. */
int rp_xfer_post_recvs(struct xfer *x, uint32_t qp)
{
	int rc = 0;

	for (uint32_t i = 0; !rc && i < x->window; i++)
		rc = rp_verbs_post_recv(x->v, qp, i);
	return rc;
}

int rp_xfer_post_credit_recvs(struct xfer *x)
{
	int rc = 0;

	for (uint32_t i = 0; !rc && i < rp_xfer_credit_sends(x); i++)
		rc = rp_verbs_post_recv(x->v, 0, i);
	return rc;
}

int rp_op_arm_zero_recvs(struct xfer *x)
{
	int rc = 0;

	for (uint32_t q = 0; !rc && q < x->qps; q++)
		rc = rp_xfer_post_recvs(x, q);
	return rc;
}

/* When the peer Sends into our receives, or we Read its ring, nothing
 * of ours is exposed: nothing for a peer to use in our answer. */
int rp_recv_send_mr(struct xfer *x, uint32_t rkey)
{
	if (!rp_op_exposes(x->ops->recv_access))
		return rp_xfer_send_mr(x, 0, 0);
	return rp_xfer_send_mr(x, (uint64_t)(uintptr_t)x->ring, rkey);
}

/* The sender's MR names the QPs its HELLO did, in the same order. */
static bool same_qps(const struct xfer *x, const struct rp_mr *mr)
{
	if (mr->qps != x->qps || mr->qp.qpn != x->remote[0].qpn)
		return false;
	for (uint32_t i = 1; i < x->qps; i++)
		if (mr->more[i - 1].qpn != x->remote[i].qpn)
			return false;
	return true;
}

/*
 * The sender's MR, after ours, when the op exposes the sender's ring
 * (--op read). Its QP must be the one HELLO named and its ring the
 * shape we agreed: we reach into chunk-sized slots of it, so a
 * different shape would have us read what is not there.
 */
int rp_recv_sender_mr(struct xfer *x)
{
	union rp_msg m;
	int rc = rp_xfer_recv(x, rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_SETUP), &m,
			  "MR (the sender's ring)");

	if (rc)
		return rc;
	if (!same_qps(x, &m.mr) || m.mr.chunk != x->chunk ||
	    m.mr.window != x->window || !m.mr.rkey) {
		RP_ERR("MR from %s does not match the session: QP 0x%x of %u, "
		       "chunk %u x window %u, rkey 0x%x; want HELLO's QP 0x%x "
		       "of %u, %u x %u and an rkey", x->peer, m.mr.qp.qpn,
		       m.mr.qps, m.mr.chunk, m.mr.window, m.mr.rkey,
		       x->remote[0].qpn, x->qps, x->chunk, x->window);
		return RP_EPROTO;
	}
	x->ost.raddr = m.mr.addr;
	x->ost.rkey = m.mr.rkey;
	return 0;
}

/* ---- the sender's side ---- */

/* More than one host: the first (our peer) hears the others in a
 * CHAIN right after the HELLO, which says one follows. */
int rp_send_hello(struct xfer *x)
{
	bool chain = x->o->nhosts > 1;
	struct rp_hello h = {
		.total = x->size,
		.chunk = x->chunk,
		.window = x->window,
		.flags = (x->o->preserve ? RP_HELLO_PRESERVE : 0) |
			 (chain ? RP_HELLO_CHAIN : 0),
		.op = x->op,
	};
	struct rp_chain_msg c = {
		.n = (uint16_t)(chain ? x->o->nhosts - 1 : 0),
		.hop = chain ? x->o->hosts + 1 : NULL,
	};
	int rc;

	rp_xfer_put_local(x, &h.qp, h.more, &h.qps);
	rc = rp_chan_send(&x->ch, RP_MSG_HELLO, &h);
	if (!rc && chain)
		rc = rp_chan_send(&x->ch, RP_MSG_CHAIN, &c);
	return rc;
}

/* The receiver may shrink chunk and window, never grow them. Its ring's
 * address and rkey are 0 unless the op exposes it (--op write). */
int rp_send_take_mr(struct xfer *x)
{
	union rp_msg m;
	const struct rp_mr *mr = &m.mr;
	int rc = rp_xfer_recv(x, rp_msg_expect(RP_SIDE_RECEIVER, RP_STAGE_HELLO),
			  &m, "MR (the receiver's answer)");

	if (rc)
		return rc;
	if (mr->chunk > x->chunk || mr->window > x->window ||
	    mr->chunk < RP_MIN_CHUNK) {
		RP_ERR("MR from %s offers chunk %u x window %u, outside the "
		       "requested %u x %u", x->peer, mr->chunk, mr->window,
		       x->chunk, x->window);
		return RP_EPROTO;
	}
	x->chunk = mr->chunk;
	x->window = mr->window;
	x->ost.raddr = mr->addr;
	x->ost.rkey = mr->rkey;
	rp_fileio_dio_init(&x->dio, x->o->direct, x->chunk);
	return rp_xfer_take_remote(x, &mr->qp, mr->more, mr->qps, "MR");
}

/* ---- both sides: the QPs in HELLO and MR (version 6) ---- */

int rp_xfer_take_remote(struct xfer *x, const struct rp_qp_addr *qp0,
		     const struct rp_qp_more *more, uint32_t qps,
		     const char *what)
{
	if (qps != x->qps) {
		RP_ERR("%s from %s names %u QPs; the session has %u", what,
		       x->peer, qps, x->qps);
		return RP_EPROTO;
	}
	for (uint32_t i = 0; i < qps; i++) {
		x->remote[i] = *qp0;
		if (i) {
			x->remote[i].qpn = more[i - 1].qpn;
			x->remote[i].psn = more[i - 1].psn;
		}
		/* Two of ours on one of theirs would cross the chunks'
		 * order, which is per QP. */
		for (uint32_t j = 0; j < i; j++) {
			if (x->remote[j].qpn == x->remote[i].qpn) {
				RP_ERR("%s from %s names QP 0x%x twice", what,
				       x->peer, x->remote[i].qpn);
				return RP_EPROTO;
			}
		}
	}
	x->rep.remote_qpn = qp0->qpn;
	return 0;
}

void rp_xfer_put_local(const struct xfer *x, struct rp_qp_addr *qp0,
		    struct rp_qp_more *more, uint8_t *qps)
{
	*qp0 = x->local[0];
	for (uint32_t i = 1; i < x->qps; i++)
		more[i - 1] = (struct rp_qp_more){
			.qpn = x->local[i].qpn, .psn = x->local[i].psn,
		};
	*qps = (uint8_t)x->qps;
}

/* ---- both sides: fresh QPs after a link outage (RECONNECT) ---- */

void rp_xfer_relink_arm(struct xfer *x)
{
	rp_verbs_set_relink(x->v, x->o->retry_for > 0);
}

void rp_xfer_link_seen(struct xfer *x, const struct rp_wc *wc, int n)
{
	if (!x->rl.since || n <= 0 ||
	    rp_now() - x->rl.up < rp_qp_give_up_secs(RP_QP_TIMEOUT_DATA))
		return;
	for (int i = 0; i < n; i++) {
		if (wc[i].op == RP_WC_WRITE || wc[i].op == RP_WC_SEND ||
		    wc[i].op == RP_WC_READ) {
			x->rl.since = 0;
			return;
		}
	}
}

bool rp_xfer_link_lost(const struct xfer *x, int rc)
{
	return rc == RP_EWC && rp_verbs_link_down(x->v);
}

uint32_t rp_xfer_relink_refused(const struct xfer *x)
{
	return x->o->retry_for > 0 ? 0 : RP_MSG_BIT(RP_MSG_RECONNECT);
}

int rp_xfer_relink_got(struct xfer *x, const struct rp_reconnect *m)
{
	if (m->qps != x->qps) {
		RP_ERR("RECONNECT from %s names %u QPs; the session has %u",
		       x->peer, m->qps, x->qps);
		return RP_EPROTO;
	}
	x->rl.peer = *m;
	x->rl.got = true;
	return 0;
}

/* The peer closed the control connection (or it broke): a dead peer,
 * not a link to wait for. Messages it sent first are read as usual. */
static bool peer_gone(const struct xfer *x)
{
	struct pollfd pfd = { .fd = x->ch.fd, .events = POLLIN };
	ssize_t n;
	char c;

	if (rp_chan_pending(&x->ch) || poll(&pfd, 1, 0) != 1)
		return false;
	n = recv(x->ch.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

/*
 * Whether the outage under way is still one to wait for: 0, or the
 * error (reported) when the peer closed the control connection or
 * --retry-for has run out since it began; why ends that message.
 */
static int outage_over(struct xfer *x, const char *why)
{
	double waited = rp_now() - x->rl.since;

	if (peer_gone(x)) {
		RP_ERR("the RDMA link to %s failed and it closed the control "
		       "connection", x->peer);
		return RP_ECTRLCLOSED;
	}
	if (x->rl.since && waited > x->o->retry_for) {
		RP_ERR("the RDMA link to %s is still down after %u attempt%s "
		       "in %.0f s (--retry-for %d)%s", x->peer, x->rl.attempt,
		       x->rl.attempt == 1 ? "" : "s", waited, x->o->retry_for,
		       why);
		return RP_EWC;
	}
	return 0;
}

int rp_xfer_relink_begin(struct xfer *x)
{
	int rc = outage_over(x, "");

	if (rc)
		return rc;
	if (!x->rl.since) {
		x->rl.since = rp_now();	/* a new outage */
		x->rl.counted = false;
	}
	x->rl.attempt++;
	RP_EV("session", "relink", "link down, reconnecting (attempt "
	      "{attempt})", EV_U("attempt", x->rl.attempt),
	      EV_S("peer", x->peer));
	if (x->prog)
		rp_progress_note(x->prog, "link down, reconnecting (attempt %u)",
				 x->rl.attempt);
	rc = rp_verbs_relink(x->v);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < x->qps; i++)
		rp_verbs_local(x->v, i, &x->local[i]);
	return 0;
}

int rp_xfer_relink_send(struct xfer *x, uint64_t next_chunk)
{
	struct rp_reconnect m = {
		.attempt = x->rl.attempt, .qps = (uint8_t)x->qps,
		.next_chunk = next_chunk,
	};
	int rc;

	for (uint32_t i = 0; i < x->qps; i++)
		m.qp[i] = (struct rp_qp_more){
			.qpn = x->local[i].qpn, .psn = x->local[i].psn,
		};
	rc = rp_chan_send(&x->ch, RP_MSG_RECONNECT, &m);
	return rc ? rc : rp_xfer_flush(x);
}

/* Between tries at the peer's fresh QPs while RTR finds the link still
 * down: each try has waited a second for an ARP answer already. */
#define RELINK_PAUSE_MS	250

/*
 * Our fresh QPs against the peer's: its RECONNECT can reach us while our
 * own packets are still lost, and then RTR finds no ARP answer. That is
 * the outage going on: try again, within --retry-for, while the peer
 * waits for our RECONNECT or connects as we do.
 */
static int connect_fresh(struct xfer *x)
{
	int rc = rp_xfer_connect(x);

	while (rp_xfer_link_lost(x, rc)) {
		if (rp_session_stop)
			return RP_EINTERRUPTED;
		rc = outage_over(x, ": its address does not resolve");
		if (rc)
			return rc;
		(void)poll(NULL, 0, RELINK_PAUSE_MS);
		rc = rp_verbs_connect(x->v, x->remote, x->qps);
	}
	return rc;
}

int rp_xfer_relink_connect(struct xfer *x)
{
	const struct rp_reconnect *m = &x->rl.peer;
	int rc;

	/* LID, MTU and GID are the old QPs': the same ports. */
	for (uint32_t i = 0; i < x->qps; i++) {
		x->remote[i].qpn = m->qp[i].qpn;
		x->remote[i].psn = m->qp[i].psn;
		for (uint32_t j = 0; j < i; j++) {
			if (x->remote[j].qpn == x->remote[i].qpn) {
				RP_ERR("RECONNECT from %s names QP 0x%x twice",
				       x->peer, x->remote[i].qpn);
				return RP_EPROTO;
			}
		}
	}
	x->rl.got = false;
	rc = connect_fresh(x);
	if (rc)
		return rc;
	if (!x->rl.counted)
		x->rl.count++;
	x->rl.counted = true;
	x->rl.up = rp_now();
	RP_EV("session", "relinked", "reconnected: fresh QP{s} up (attempt "
	      "{attempt}; {count} outage{count:|s} ridden out so far)",
	      EV_T("s", x->qps > 1 ? "s" : ""), EV_U("attempt", x->rl.attempt),
	      EV_U("count", x->rl.count), EV_U("peer_attempt", m->attempt));
	return 0;
}
