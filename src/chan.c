// SPDX-License-Identifier: MIT
/* The control channel: whole messages to and from one peer, traced,
 * tagged with --psk, batched, read ahead; the peer's reasons and its
 * protocol version. Shared by the push's session and the ping. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmapush/chan.h"
#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

void rp_chan_init(struct rp_chan *ch, int fd, const char *peer,
		  const char *job, enum rp_msg_side peer_side,
		  const uint8_t *psk, int timeout)
{
	ch->fd = fd;
	ch->peer = peer;
	ch->job = job;
	ch->peer_side = peer_side;
	ch->psk = psk;
	ch->timeout = timeout;
	ch->start = rp_now();
	ch->handshake_end = 0;
	ch->peer_failed = false;
	ch->reason_wait = 0;
	ch->got_type = 0;
	ch->trace = NULL;
	ch->keyed = false;
	ch->seq_out = 0;
	ch->seq_in = 0;
	ch->batch = false;
	ch->out_len = 0;
	ch->out_what = NULL;
	ch->in.off = 0;
	ch->in.len = 0;
}

void rp_chan_close(struct rp_chan *ch)
{
	sodium_memzero(ch->skey, sizeof(ch->skey));
	ch->keyed = false;
	rp_ctrl_close(&ch->fd);
}

double rp_chan_deadline(const struct rp_chan *ch)
{
	double d = rp_now() + (double)ch->timeout;

	/* From accept to a valid HELLO: one short deadline for the whole
	 * handshake, so an idle connection cannot linger for --timeout. */
	if (ch->handshake_end > 0 && ch->handshake_end < d)
		return ch->handshake_end;
	return d;
}

static void report_timeout(const struct rp_chan *ch, const char *what)
{
	if (ch->handshake_end > 0)
		RP_ERR("no %s from %s within %.0f s of connecting; closing",
		       what, ch->peer, ch->handshake_end - ch->start);
	else
		RP_ERR("timed out after %d s waiting for %s from %s",
		       ch->timeout, what, ch->peer);
}

static void trace(const struct rp_chan *ch, const char *dir, uint8_t type,
		  const void *m)
{
	if (!rp_trace_any())
		return;
	if (ch->trace)
		ch->trace(dir, type, m);
	else
		rp_msg_trace(dir, type, m);
}

/*
 * With a session key, end the message packed in buf[0..n) with its tag:
 * the header's length grows to count it, and the tag covers that header.
 * buf has room for RP_PROTO_MAX_MSG bytes. Returns the new length.
 */
static int seal(struct rp_chan *ch, uint8_t *buf, int n)
{
	size_t len = (size_t)n;
	int rc;

	if (!ch->keyed || n < 0)
		return n;
	rc = rp_proto_grow(buf, len, RP_TAG_LEN);
	if (rc)
		return rc;
	rp_auth_tag(ch->skey, ch->dir_out, ch->seq_out++, buf,
		    buf + RP_PROTO_HDR_LEN, len - RP_PROTO_HDR_LEN, buf + len);
	return n + RP_TAG_LEN;
}

static int send_now(struct rp_chan *ch, const uint8_t *buf, size_t n,
		    const char *what)
{
	int rc = rp_ctrl_send(ch->fd, buf, n, rp_chan_deadline(ch));

	if (rc == RP_ETIMEOUT)
		RP_ERR("timed out sending %s to %s", what, ch->peer);
	/* A peer that gave up sent its ERR first: the reason is there. */
	if (rc == RP_ECTRLCLOSED)
		rc = rp_chan_peer_reason(ch, rc);
	if (rc == RP_ECTRLCLOSED)
		RP_ERR("%s closed the control connection before %s", ch->peer,
		       what);
	return rc;
}

int rp_chan_flush(struct rp_chan *ch)
{
	size_t n = ch->out_len;

	/* Emptied first: a failure must not send the same bytes again. */
	ch->out_len = 0;
	return n ? send_now(ch, ch->out, n, ch->out_what) : 0;
}

int rp_chan_send(struct rp_chan *ch, uint8_t type, const void *m)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	const char *what = rp_proto_type_name(type);
	int rc = 0, n;

	trace(ch, "->", type, m);
	n = seal(ch, buf, rp_msg_pack(buf, sizeof(buf), type, m));
	if (n < 0) {
		RP_ERR("cannot encode %s: %s", what, rp_strerror(n));
		return n;
	}
	if (!ch->batch)
		return send_now(ch, buf, (size_t)n, what);
	if ((size_t)n > sizeof(ch->out) - ch->out_len)
		rc = rp_chan_flush(ch);
	if (!rc) {
		memcpy(ch->out + ch->out_len, buf, (size_t)n);
		ch->out_len += (size_t)n;
		ch->out_what = what;
	}
	return rc;
}

int rp_chan_peer_failure(struct rp_chan *ch, const struct rp_result *res)
{
	const char *st = rp_proto_status_name(res->status);
	/* Our peers send their error text; don't say it twice. */
	bool same = !strcmp(st, res->text) || !res->text_len;
	char text[RP_PEER_TEXT_MAX];

	ch->peer_failed = true;
	memcpy(ch->peer_text, res->text, res->text_len);
	ch->peer_text[res->text_len] = '\0';
	RP_ERR("%s refused or aborted the %s: %s%s%s", ch->peer, ch->job, st,
	       same ? "" : ": ",
	       same ? "" : rp_fmt_peer(text, sizeof(text), res->text,
				       res->text_len));
	return rp_proto_status_to_err(res->status);
}

/* An ACK we wait for (0 if positive), or an ERR: the peer's failure. */
static int peer_result(struct rp_chan *ch, const struct rp_msg_hdr *h,
		       const uint8_t *buf, union rp_msg *m)
{
	struct rp_result *res = &m->res;
	const char *why = NULL;
	int rc = rp_msg_unpack(h->type, buf, h->length, m, &why);

	if (rc) {
		RP_ERR("malformed %s from %s: %s", rp_proto_type_name(h->type),
		       ch->peer, why ? why : "?");
		return rc;
	}
	trace(ch, "<-", h->type, res);
	if (h->type == RP_MSG_ACK && res->status == RP_ST_OK)
		return 0;
	if (res->status == RP_ST_OK) {
		RP_ERR("%s sent ERR with status ok", ch->peer);
		return RP_EPROTO;
	}
	return rp_chan_peer_failure(ch, res);
}

/*
 * An older peer cannot read our version: tell it why at its own version
 * (best effort, briefly), and send nothing more it could not read.
 */
static void answer_old_version(struct rp_chan *ch, uint8_t version)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .status = RP_ST_VERSION };
	int n;

	snprintf(res.text, sizeof(res.text), "version %d needed; this peer "
		 "runs rdmapush %s", RP_PROTO_VERSION, PACKAGE_VERSION);
	res.text_len = (uint16_t)strlen(res.text);
	n = rp_proto_pack_err_at(buf, sizeof(buf), version, &res);
	if (n > 0 && rp_ctrl_send(ch->fd, buf, (size_t)n, rp_now() + 2.0))
		RP_EV("ctrl", "msg.unsent", "could not tell {peer} which "
		      "version we need", EV_S("peer", ch->peer),
		      EV_S("type", "ERR"));
	ch->peer_failed = true;
}

/* A header rp_ctrl_recv() refused (rc): say who sent what. */
static int bad_header(struct rp_chan *ch, const struct rp_msg_hdr *h, int rc)
{
	char seen[RP_PEER_TEXT_MAX];
	struct rp_msg_hdr t;
	const char *why = NULL;

	if (rc == RP_ENOTPEER) {
		RP_ERR("%s is not an rdmapush peer (it sent: %s)", ch->peer,
		       rp_fmt_peer(seen, sizeof(seen), (const char *)h->raw,
				   sizeof(h->raw)));
	} else if (rc == RP_EVERSION && h->version < RP_PROTO_VERSION) {
		answer_old_version(ch, h->version);
		RP_ERR("%s speaks rdmapush protocol version %u; version %d "
		       "needed: upgrade rdmapush there", ch->peer, h->version,
		       RP_PROTO_VERSION);
	} else if (rc == RP_EVERSION) {
		RP_ERR("%s speaks protocol version %u; this rdmapush speaks "
		       "%d: upgrade rdmapush here", ch->peer, h->version,
		       RP_PROTO_VERSION);
	} else {
		(void)rp_proto_parse_hdr(h->raw, sizeof(h->raw), &t, &why);
		RP_ERR("bad control message header from %s: %s", ch->peer,
		       why ? why : "payload too long");
	}
	return rc;
}

/*
 * The receiver derives the key only once our proof checks out, so its
 * refusal of that proof comes untagged. Accept that one ERR before any
 * tagged message: it can only make us fail, never succeed.
 */
static bool untagged_refusal(const struct rp_chan *ch,
			     const struct rp_msg_hdr *h, const uint8_t *buf)
{
	struct rp_result res;

	return ch->seq_in == 0 && h->type == RP_MSG_ERR &&
	       !rp_proto_unpack_result(buf, h->length, RP_MSG_ERR, &res,
				       NULL) &&
	       res.status == RP_ST_AUTH;
}

/* With a session key: check and strip the tag before anything decodes. */
static int unseal(struct rp_chan *ch, struct rp_msg_hdr *h, const uint8_t *buf)
{
	size_t body;

	if (!ch->keyed)
		return 0;
	body = h->length >= RP_TAG_LEN ? h->length - RP_TAG_LEN : 0;
	if (h->length >= RP_TAG_LEN &&
	    rp_auth_tag_check(ch->skey, ch->dir_in, ch->seq_in, h->raw, buf,
			      body, buf + body)) {
		ch->seq_in++;
		h->length = (uint32_t)body;
		return 0;
	}
	if (untagged_refusal(ch, h, buf))
		return 0;
	RP_ERR("control message from %s failed its integrity check (altered, "
	       "replayed or reordered): %s", ch->peer,
	       rp_proto_type_name(h->type));
	return RP_ETAMPERED;
}

/* The next message, header checked and tag stripped, into h and buf. */
static int next_msg(struct rp_chan *ch, struct rp_msg_hdr *h, uint8_t *buf,
		    size_t cap, const char *what)
{
	int rc = rp_ctrl_recv_in(ch->fd, &ch->in, h, buf, cap,
				 rp_chan_deadline(ch));

	if (rc == RP_ETIMEOUT) {
		report_timeout(ch, what);
		return rc;
	}
	if (rc == RP_ECTRLCLOSED) {
		RP_ERR("%s closed the control connection while we waited "
		       "for %s", ch->peer, what);
		ch->peer_failed = true;
		return rc;
	}
	if (rc == RP_ENOTPEER || rc == RP_EVERSION || rc == RP_EPROTO)
		return bad_header(ch, h, rc);
	if (rc)
		return rc;
	return unseal(ch, h, buf);
}

int rp_chan_recv(struct rp_chan *ch, uint32_t want, union rp_msg *m,
		 const char *what)
{
	uint8_t buf[RP_PROTO_MAX_PAYLOAD];
	struct rp_msg_hdr h;
	const char *why = NULL;
	char names[64];
	int rc = rp_chan_flush(ch);

	if (!rc)
		rc = next_msg(ch, &h, buf, sizeof(buf), what);
	if (rc)
		return rc;
	ch->got_type = h.type;
	if (h.type == RP_MSG_ERR || (h.type == RP_MSG_ACK &&
				     (want & RP_MSG_BIT(RP_MSG_ACK))))
		return peer_result(ch, &h, buf, m);
	if (!(want & RP_MSG_BIT(h.type))) {
		RP_ERR("expected %s from %s, got %s",
		       rp_msg_set_name(want, names, sizeof(names)), ch->peer,
		       rp_proto_type_name(h.type));
		return RP_EUNEXPECTED;
	}
	rc = rp_msg_unpack(h.type, buf, h.length, m, &why);
	if (rc) {
		RP_ERR("malformed %s from %s: %s", rp_proto_type_name(h.type),
		       ch->peer, why ? why : "?");
		return rc;
	}
	trace(ch, "<-", h.type, m);
	return 0;
}

int rp_chan_recv_err(struct rp_chan *ch, const char *what)
{
	union rp_msg m;
	int rc = rp_chan_recv(ch, RP_MSG_BIT(RP_MSG_ERR), &m, what);

	return rc ? rc : RP_EPROTO;
}

bool rp_chan_pending(const struct rp_chan *ch)
{
	return rp_ctrl_pending(&ch->in);
}

int rp_chan_peer_reason(struct rp_chan *ch, int rc)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	/* What the peer may still send, so that messages it sent before
	 * its ERR (FILE, FEND, FACK...) are read past, not refused. */
	uint32_t want = rp_msg_expect(ch->peer_side, ch->peer_side ==
				      RP_SIDE_RECEIVER ? RP_STAGE_END :
				      RP_STAGE_FILES);
	double end = rp_now() + (ch->reason_wait > 0 ? ch->reason_wait : 1.0);
	union rp_msg m;

	if (ch->fd < 0)
		return rc;
	/* A peer that gives up sends ERR first, so it is usually there. */
	while (rp_chan_pending(ch) ||
	       poll(&pfd, 1, rp_sys_poll_ms(end, 1000)) == 1) {
		char c;
		int err;

		/* Closed with nothing more to read: no reason given. */
		if (!rp_chan_pending(ch) &&
		    recv(ch->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0)
			break;
		err = rp_chan_recv(ch, want, &m, "the reason");

		if (err)
			return err;
		if (ch->got_type == RP_MSG_ACK)
			break;
	}
	return rc;
}

void rp_chan_refuse(struct rp_chan *ch, uint8_t type, int rc)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .status = rp_proto_status_from_err(rc) };
	int n;

	if (ch->fd < 0 || ch->peer_failed)
		return;
	/* What was queued first, in order, or the peer's tags won't match. */
	ch->batch = false;
	if (rp_chan_flush(ch))
		return;
	/* In the words of the place that found it, when it said more. */
	if (!rp_trace_reason_take(res.text, sizeof(res.text)))
		snprintf(res.text, sizeof(res.text), "%s", rp_strerror(rc));
	res.text_len = (uint16_t)strlen(res.text);
	n = seal(ch, buf, rp_proto_pack_result(buf, sizeof(buf), type, &res));
	if (n < 0)
		return;
	trace(ch, "->", type, &res);
	/* Best effort, briefly: the peer may be the reason we are failing. */
	if (rp_ctrl_send(ch->fd, buf, (size_t)n, rp_now() + 2.0))
		RP_EV("ctrl", "msg.unsent", "could not tell {peer} why we "
		      "stopped", EV_S("peer", ch->peer),
		      EV_S("type", rp_proto_type_name(type)));
}
