/* SPDX-License-Identifier: MIT */
/*
 * The control channel (src/chan.c, src/chan_auth.c): whole control
 * messages to and from one peer over a connected socket (ctrl.h), for the
 * push and the ping alike. It packs, traces (through the message table,
 * proto_msgs.h) and sends, batched when asked; it receives through a
 * read-ahead buffer, checks the header, the --psk tag and that the type
 * is one the caller waits for, then decodes and traces. Errors are
 * reported here, once, naming the peer: a peer's ERR with its reason, an
 * older peer's version (it is told at its own version what we need), a
 * header not of our protocol, a tag that does not check out.
 * Below the session: it knows nothing of files, verbs or transfers.
 */
#ifndef RDMAPUSH_CHAN_H
#define RDMAPUSH_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/auth.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"

struct rp_chan {
	int fd;			/* the control connection, owned; -1 closed */
	const char *peer;	/* "addr:port", borrowed: named in errors */
	const char *job;	/* "transfer", "ping": what the peer aborts */
	enum rp_msg_side peer_side;	/* which end the peer is */
	int timeout;		/* seconds without progress (--timeout) */
	double start;		/* when the connection was taken */
	/* Until the peer has passed its handshake: one absolute deadline
	 * for all of it (0: none). */
	double handshake_end;
	/* The peer has already said why it stopped (or is gone): tell it
	 * nothing more. */
	bool peer_failed;
	/* Why, in its words, when its ERR said (raw, NUL-terminated; ""
	 * else): a relay passes it on in its HOST. */
	char peer_text[RP_TEXT_MAX + 1];
	/* How long rp_chan_peer_reason() waits for the peer's ERR; 0: a
	 * second. */
	double reason_wait;
	uint8_t got_type;	/* type of the last message received */
	/* Traces each message sent or received; NULL: rp_msg_trace(). */
	void (*trace)(const char *dir, uint8_t type, const void *m);
	/* --psk: the key, and after AUTH the session key that tags every
	 * message, with a sequence number each way. */
	const uint8_t *psk;
	bool keyed;
	uint8_t skey[RP_SKEY_LEN];
	enum rp_auth_role dir_out, dir_in;
	uint64_t seq_out, seq_in;
	/*
	 * batch: messages are queued and go out in one write at the next
	 * receive or rp_chan_flush(): the FILE and FEND of a small file, or
	 * the FACKs of several, cost one send, not one each.
	 */
	bool batch;
	uint8_t out[32768];
	size_t out_len;
	const char *out_what;	/* the last one queued, for messages */
	struct rp_ctrl_in in;	/* what has come in, read ahead */
};

/*
 * A channel over fd (owned from here on; may be -1 for one connected
 * later: set ch->fd) to peer (borrowed), for job ("transfer", "ping"),
 * with the peer being peer_side, psk the --psk key or NULL, timeout
 * seconds per wait.
 */
void rp_chan_init(struct rp_chan *ch, int fd, const char *peer,
		  const char *job, enum rp_msg_side peer_side,
		  const uint8_t *psk, int timeout);
/* Close the connection and forget the session key. Idempotent. */
void rp_chan_close(struct rp_chan *ch);
/* Absolute deadline timeout seconds from now, or the handshake's while
 * that is sooner. */
double rp_chan_deadline(const struct rp_chan *ch);

/*
 * Send a message of type, m its struct (struct rp_hello, ...): traced,
 * packed, tagged after AUTH, then queued (ch->batch) or sent. 0, or an
 * error reported here: encoding (RP_EPROTO, -ENOBUFS), RP_ETIMEOUT,
 * RP_ECTRLCLOSED (or the peer's reason, if it sent one), -errno.
 */
int rp_chan_send(struct rp_chan *ch, uint8_t type, const void *m)
	__attribute__((warn_unused_result));
/* Send what rp_chan_send() queued. 0 or as rp_chan_send(). */
int rp_chan_flush(struct rp_chan *ch) __attribute__((warn_unused_result));
/*
 * Receive the next message, which must be of a type in the set want
 * (RP_MSG_BIT()s, or rp_msg_expect() of a stage), decoded into *m and
 * traced; ch->got_type says which came. what names it in errors
 * ("HELLO", "the next entry"). Flushes what was queued first.
 * Returns 0 (with an ACK: a positive one, in m->res) or an error,
 * reported: the peer's ERR, or an ACK with a failure status when want
 * has ACK, as the matching local error; RP_EPROTO (malformed);
 * RP_EUNEXPECTED (a type not in want); RP_ENOTPEER; RP_EVERSION (an
 * older peer is told at its version what we need); RP_ETAMPERED (a tag
 * that does not check out, before anything is decoded); RP_ETIMEOUT;
 * RP_ECTRLCLOSED.
 */
int rp_chan_recv(struct rp_chan *ch, uint32_t want, union rp_msg *m,
		 const char *what) __attribute__((warn_unused_result));
/* The peer may only say why it stopped (ERR): its error, or RP_EPROTO
 * (reported) if it sent anything else. */
int rp_chan_recv_err(struct rp_chan *ch, const char *what)
	__attribute__((warn_unused_result));
/* Whether bytes are read ahead (the fd will not poll readable for them). */
bool rp_chan_pending(const struct rp_chan *ch);
/*
 * After a failure rc of the connection or the RDMA path, the peer has
 * often said why (it aborted, its disk failed): read for a second past
 * what it may still send, and return its error, or rc if it said nothing.
 */
int rp_chan_peer_reason(struct rp_chan *ch, int rc);
/*
 * Tell the peer why we stop (rc), as a message of type (RP_MSG_ERR):
 * best effort, briefly (2 s), after what was queued; nothing when the
 * peer has failed already or the channel is closed.
 */
void rp_chan_refuse(struct rp_chan *ch, uint8_t type, int rc);
/* A peer's failure message (ERR, or a failed ACK): report it, naming
 * the job, and map it to a local error. */
int rp_chan_peer_failure(struct rp_chan *ch, const struct rp_result *res);

/*
 * --psk (src/chan_auth.c), on a channel with ch->psk. The sender's side
 * (the push's sender, the ping's client): its challenge, the receiver's
 * proof checked, its own proof. The receiver's side: the challenge, its
 * proof, the sender's proof checked. Both then derive the session key:
 * every later message each way is tagged. 0, or RP_EAUTH (a wrong key,
 * or the peer has none) or another error, reported.
 */
int rp_chan_auth_sender(struct rp_chan *ch)
	__attribute__((warn_unused_result));
int rp_chan_auth_receiver(struct rp_chan *ch)
	__attribute__((warn_unused_result));
/*
 * A receiver without --psk whose first receive failed with rc: if the
 * peer sent AUTH, it has a key we lack: say so (us: "receiver", "ping
 * server") and return RP_EAUTH; else rc.
 */
int rp_chan_unkeyed(struct rp_chan *ch, int rc, const char *us);

#endif
