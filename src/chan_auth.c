// SPDX-License-Identifier: MIT
/* --psk on the control channel: the AUTH exchange, each side proving the
 * key before anything is opened for the other, then the session key that
 * tags every later message. The push and the ping run the same one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rdmapush/chan.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

/*
 * Both proofs checked: derive the session key from both nonces; from now
 * on every message each way carries a tag, with its own sequence number.
 * us: the direction we send in (RP_AUTH_ROLE_SEND on the sender).
 */
static void keyed(struct rp_chan *ch,
		  const uint8_t send_nonce[RP_AUTH_NONCE_LEN],
		  const uint8_t recv_nonce[RP_AUTH_NONCE_LEN],
		  enum rp_auth_role us)
{
	rp_auth_session_key(ch->psk, send_nonce, recv_nonce, ch->skey);
	ch->keyed = true;
	ch->dir_out = us;
	ch->dir_in = us == RP_AUTH_ROLE_SEND ? RP_AUTH_ROLE_RECV :
		     RP_AUTH_ROLE_SEND;
	ch->seq_out = 0;
	ch->seq_in = 0;
	RP_EV0("ctrl", "auth.key", "session key derived: every message from "
	       "here on carries a tag");
}

/* The peer's AUTH, which must be of step want. */
static int recv_auth(struct rp_chan *ch, uint8_t want, struct rp_auth *a)
{
	union rp_msg m;
	int rc = rp_chan_recv(ch, rp_msg_expect(ch->peer_side, RP_STAGE_AUTH),
			      &m, "AUTH (pre-shared key)");

	if (rc == RP_EUNEXPECTED) {
		RP_ERR_INSTEAD("%s did not authenticate: use the same --psk "
			       "on both sides", ch->peer);
		return RP_EAUTH;
	}
	if (rc)
		return rc;
	if (m.auth.step != want) {
		RP_ERR("malformed AUTH from %s: step %u, expected %u", ch->peer,
		       m.auth.step, want);
		return RP_EPROTO;
	}
	*a = m.auth;
	return 0;
}

/* Prove the key to the sender, then check its proof, before we create a
 * QP, register memory or open a file. */
int rp_chan_auth_receiver(struct rp_chan *ch)
{
	struct rp_auth chal, resp, ours = { .step = RP_AUTH_PROVE };
	int rc = recv_auth(ch, RP_AUTH_CHALLENGE, &chal);

	if (rc)
		return rc;
	rp_auth_nonce(ours.nonce);
	rp_auth_mac(ch->psk, RP_AUTH_ROLE_RECV, chal.nonce, ours.nonce,
		    ours.mac);
	rc = rp_chan_send(ch, RP_MSG_AUTH, &ours);
	if (!rc)
		rc = recv_auth(ch, RP_AUTH_RESPOND, &resp);
	if (rc)
		return rc;
	if (!rp_auth_check(ch->psk, RP_AUTH_ROLE_SEND, ours.nonce, chal.nonce,
			   resp.mac)) {
		RP_ERR("%s failed the pre-shared key check", ch->peer);
		return RP_EAUTH;
	}
	RP_EV("ctrl", "auth.proved", "the sender proved the pre-shared key",
	      EV_S("who", "sender"));
	keyed(ch, chal.nonce, ours.nonce, RP_AUTH_ROLE_RECV);
	return 0;
}

/* The receiver proves the key first, then we do. */
int rp_chan_auth_sender(struct rp_chan *ch)
{
	struct rp_auth ours = { .step = RP_AUTH_CHALLENGE };
	struct rp_auth theirs;
	int rc;

	rp_auth_nonce(ours.nonce);
	rc = rp_chan_send(ch, RP_MSG_AUTH, &ours);
	if (!rc)
		rc = recv_auth(ch, RP_AUTH_PROVE, &theirs);
	if (rc)
		return rc;
	if (!rp_auth_check(ch->psk, RP_AUTH_ROLE_RECV, ours.nonce,
			   theirs.nonce, theirs.mac)) {
		RP_ERR("%s does not know our pre-shared key: not sending",
		       ch->peer);
		return RP_EAUTH;
	}
	RP_EV("ctrl", "auth.proved", "the receiver proved the pre-shared key",
	      EV_S("who", "receiver"));
	ours.step = RP_AUTH_RESPOND;
	rp_auth_mac(ch->psk, RP_AUTH_ROLE_SEND, theirs.nonce, ours.nonce,
		    ours.mac);
	rc = rp_chan_send(ch, RP_MSG_AUTH, &ours);
	if (!rc)
		keyed(ch, ours.nonce, theirs.nonce, RP_AUTH_ROLE_SEND);
	return rc;
}

int rp_chan_unkeyed(struct rp_chan *ch, int rc, const char *us)
{
	if (rc != RP_EUNEXPECTED || ch->got_type != RP_MSG_AUTH)
		return rc;
	RP_ERR_INSTEAD("%s offers a pre-shared key, but this %s has no "
		       "--psk", ch->peer, us);
	return RP_EAUTH;
}
