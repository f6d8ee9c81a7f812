/* SPDX-License-Identifier: MIT */
/* Internal to the session: what the sender and receiver state machines
 * share (control messages with tracing, the transfer record, signals). */
#ifndef RDMAPUSH_SESSION_INT_H
#define RDMAPUSH_SESSION_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/auth.h"
#include "rdmapush/csum.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/fileio.h"
#include "rdmapush/opts.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/report.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

/* How the entries of a session went, on either side. */
struct rp_tally {
	uint64_t ok;		/* entries stored (files and directories) */
	uint64_t failed;
	uint64_t skipped;	/* sender: symlinks and special files */
	uint64_t bytes;		/* in the files stored */
	uint64_t landed;	/* receiver: data bytes taken off the ring */
	int first_err;		/* the first entry's failure */
};

/* One session, on either side. */
struct xfer {
	const struct rp_opts *o;
	const uint8_t *psk;	/* --psk key, or NULL */
	int fd;			/* control connection */
	struct rp_verbs *v;
	/* Worker threads for the chunks' reads, hashes and writes, and an
	 * epoll fd over their eventfd and the control socket (-1 before). */
	struct rp_pool *pool;
	int epfd;
	uint8_t *ring;
	uint8_t op;		/* enum rp_data_op: how the chunks move */
	uint32_t chunk;
	uint32_t window;
	struct rp_dio dio;	/* --direct, once chunk is agreed */
	uint64_t size;		/* bytes in the session, or RP_SIZE_UNKNOWN */
	struct rp_csum *csum;
	/* --qps: the QPs chunks are striped over (chunk n on QP n % qps),
	 * ours and the peer's QP i, which ours connects to. */
	uint32_t qps;
	struct rp_qp_addr local[RP_QPS_MAX];
	struct rp_qp_addr remote[RP_QPS_MAX];
	enum rp_phase phase;
	uint64_t done;		/* chunks the receiver has taken (credit) */
	uint64_t credits;	/* credit Sends: posted (recv), got (send) */
	struct rp_tally tally;
	struct rp_report rep;
	char name[RP_PATH_MAX + 1];	/* the last entry stored */
	char peer[80];
	char gid[48];		/* GID in use, text: outlives the verbs context */
	double start;
	/* The data phase, for rp_report.data_seconds: first chunk posted
	 * or landed, and the last credit (sender) or landing (receiver). */
	double data_start, data_end;
	/* Receiver: the handshake deadline (absolute), until the sender has
	 * passed its handshake and holds a transfer slot; then 0. */
	double handshake_end;
	/* The peer has already said why it stopped: don't send ERR back. */
	bool peer_failed;
	uint8_t got_type;	/* type of the last message received */
	enum rp_msg_side peer_side;	/* which end the peer is */
	/* --psk, after AUTH: every message is tagged (msg_keyed()). */
	bool keyed;
	uint8_t skey[RP_SKEY_LEN];
	enum rp_auth_role dir_out, dir_in;
	uint64_t seq_out, seq_in;	/* tagged messages each way so far */
	/*
	 * In the session, messages are queued and go out in one write when
	 * we are about to wait (xfer_flush): the FILE and FEND of a small
	 * file, or the FACKs of several, cost one send, not one each.
	 */
	bool batch;
	struct rp_ctrl_in in;	/* what has come in, read ahead */
	uint8_t out[32768];
	size_t out_len;
	const char *out_what;	/* the last one queued, for messages */
};

/* Where chunk n of the session sits in either side's ring: slot
 * n % window, chunk bytes each. */
static inline size_t xfer_slot_off(const struct xfer *x, uint64_t n)
{
	return (size_t)(n % x->window) * x->chunk;
}

/* Data moved now: the data phase runs from the first such moment on. */
static inline void xfer_data_seen(struct xfer *x)
{
	x->data_end = rp_now();
	if (!x->data_start)
		x->data_start = x->data_end;
}

/* The QP chunk n (its Write, Send, or announcement and Read) goes on. */
static inline uint32_t xfer_chunk_qp(const struct xfer *x, uint64_t n)
{
	return (uint32_t)(n % x->qps);
}

/*
 * The receiver's reorder stage (session_order.c): chunks arrive in order
 * on each QP, not across them. seen[q]: chunks arrived on QP q so far.
 */
struct rp_arrival;
struct rp_order {
	struct rp_arrival *a;	/* window entries: chunk n in a[n % window] */
	uint32_t window;
	uint32_t qps;
	uint64_t seen[RP_QPS_MAX];
};
/* window entries, for qps QPs: 0 or -ENOMEM (reported). */
int rp_order_init(struct rp_order *o, uint32_t window, uint32_t qps);
void rp_order_free(struct rp_order *o);
/* The session number of the next chunk to arrive on QP qp (counted). */
uint64_t rp_order_next_on(struct rp_order *o, uint32_t qp);
/* Chunk n arrived with imm and len: kept until its turn. False when
 * another chunk waits in its entry (the peer passed its credit). */
bool rp_order_put(struct rp_order *o, uint64_t n, uint32_t imm,
		  uint32_t len);
/* Chunk n's imm and len, if it has arrived (then it is taken). */
bool rp_order_take(struct rp_order *o, uint64_t n, uint32_t *imm,
		   uint32_t *len);

/* Absolute deadline o->timeout seconds from now, or the handshake
 * deadline while that is sooner. */
double xfer_deadline(const struct xfer *x);
/* A wait for what (e.g. "HELLO") timed out: report it, naming the
 * handshake deadline when that was the one. */
void xfer_report_timeout(const struct xfer *x, const char *what);
/* Send what msg_send() queued (x->batch). 0 or as msg_send(). */
int xfer_flush(struct xfer *x);
/* Wire status and text for a local failure, sent best-effort as type. */
void xfer_send_failure(struct xfer *x, uint8_t type, int rc);
/*
 * After a failed completion, the peer has often said why on the control
 * channel (it aborted, its disk failed): wait briefly for that and return
 * its error, or rc if it said nothing.
 */
int xfer_peer_reason(struct xfer *x, int rc);
/*
 * Open the device whose GID matches the control connection's local
 * address, and create the QP (INIT), with the access x->op needs on this
 * side (receiver or not) for the QP and, later, the ring.
 */
int xfer_open_verbs(struct xfer *x, bool receiver);
/* Send and receive queue depth for the agreed window. */
uint32_t xfer_queue_depth(const struct xfer *x);
/* Fill the report's RDMA fields from the open verbs context. */
void xfer_report_verbs(struct xfer *x);
/* Enter phase p (traced). */
void xfer_phase(struct xfer *x, enum rp_phase p);
/*
 * On a fresh control connection: tune the socket, run this side's
 * authenticate (AUTH phase) when there is a key, then enter HELLO.
 * 0 or authenticate's error.
 */
int xfer_start(struct xfer *x, int (*authenticate)(struct xfer *x));
/*
 * Start the worker threads (rp_opts_threads(), each with scratch bytes)
 * and the epoll fd the data phase's waits watch. 0 or an error (reported).
 */
int xfer_start_pool(struct xfer *x, size_t scratch);
/* Let running jobs end, drop queued ones, join: before anything a job
 * points to (files, ring) is released. NULL-safe, idempotent. */
void xfer_stop_pool(struct xfer *x);
/*
 * Wait for a job to end or notify, --timeout at most (what: for the
 * message). 0, RP_ETIMEOUT (reported), RP_EINTERRUPTED (a stop signal).
 */
int xfer_pool_wait(struct xfer *x, const char *what);
/*
 * After xfer_next() returned 0: whether the control channel has
 * something to read (without workers, always: nothing else wakes it).
 */
bool xfer_ctrl_ready(const struct xfer *x);
/*
 * The data phase's wait: completions into wc[0..max), n > 0; or 0 when
 * watch and the control channel has a message to read, or a worker has
 * news (the caller looks at its jobs, then at xfer_ctrl_ready()); or an error with its cause reported once: a stop signal, a failed
 * completion (with the peer's reason if it gives one), or no progress by
 * deadline.
 */
int xfer_next(struct xfer *x, struct rp_wc *wc, int max, double deadline,
	      bool watch);
/*
 * An entry of the session ended: count it in t (rc 0: stored, bytes;
 * else failed), give its JSON object with --json, and remember its path
 * for the summary. skipped (not NULL): it was not sent, and why.
 */
void xfer_entry(struct xfer *x, struct rp_tally *t, const char *path,
		uint64_t bytes, int rc, const char *skipped);
/* Print summary and/or JSON for the finished transfer; copy where it
 * ended to *out (may be NULL). */
void xfer_report(struct xfer *x, int rc, struct rp_outcome *out);
/* Release verbs, checksum state and the control socket. */
void xfer_release(struct xfer *x);

/*
 * Send one message already packed (n > 0 bytes) or propagate the packing
 * error; trace it by type. After msg_keyed(), it goes out tagged.
 */
int msg_send(struct xfer *x, const uint8_t *buf, int n, const char *what);
/*
 * Receive the next message, which must be of a type in the set want
 * (RP_MSG_BIT()s, or rp_msg_expect() of a stage), decode it into *m and
 * trace it; x->got_type says which came. An ERR (or an ACK with a failure
 * status, when want has ACK) from the peer is reported and turned into
 * the matching local error; a malformed message is reported as such
 * (RP_EPROTO); anything else unexpected is RP_EUNEXPECTED. 0 with an
 * ACK means a positive ACK (in m->res). A header not of
 * our protocol is RP_ENOTPEER, another version RP_EVERSION (an older
 * peer is told at its version what we need). After msg_keyed(), a
 * message whose tag does not check out is RP_ETAMPERED, before any of
 * it is decoded. Every error is reported, naming the peer.
 */
int msg_recv(struct xfer *x, uint32_t want, union rp_msg *m,
	     const char *phase);
/*
 * The peer may only say why it stopped (ERR): returns its error, or
 * RP_EPROTO if it sent anything else.
 */
int msg_recv_err(struct xfer *x, const char *phase);
/*
 * Both proofs checked: derive the session key from both nonces; from now
 * on every message each way carries a tag, with its own sequence number.
 * us: the direction we send in (RP_AUTH_ROLE_SEND on the sender).
 */
void msg_keyed(struct xfer *x, const uint8_t send_nonce[RP_AUTH_NONCE_LEN],
	       const uint8_t recv_nonce[RP_AUTH_NONCE_LEN],
	       enum rp_auth_role us);
/* AUTH of the given step out, and in (which must be of step want). */
int msg_send_auth(struct xfer *x, const struct rp_auth *a);
int msg_recv_auth(struct xfer *x, uint8_t want, struct rp_auth *a);
/* MR out for our ring, in the agreed shape: where the peer may write
 * (receiver, --op write) or read (sender, --op read), else addr and rkey
 * 0, nothing. */
int msg_send_mr(struct xfer *x, uint64_t addr, uint32_t rkey);
/* The receiver's result for entry id: err 0 (ok, bytes) or why not. */
int msg_send_fack(struct xfer *x, uint32_t id, int err, uint64_t bytes);
/* Peer-failure message in res: report it and map to a local error. */
int msg_peer_failure(struct xfer *x, const struct rp_result *res);

/*
 * The receiver's handshake (session_hello.c). --psk: prove the key, check
 * the sender's proof, derive the session key. The sender's HELLO (an AUTH
 * instead, without --psk, is RP_EAUTH). Chunk and window: never more than
 * asked, within our caps, no more ring than a small session needs. The
 * zero-length receives for the first window of chunks (--op write and
 * read, on each QP: xfer_post_recvs(); --op send posts its own, into the
 * slots). Our MR answer
 * (the ring's rkey only with --op write). With --op read, the sender's
 * MR: its QP and our shape, with an rkey. Each 0 or an error (reported).
 */
int recv_authenticate(struct xfer *x);
int recv_hello(struct xfer *x, struct rp_hello *h);
int recv_agree_shape(struct xfer *x, const struct rp_hello *h);
int recv_send_mr(struct xfer *x, uint32_t rkey);
int recv_sender_mr(struct xfer *x, struct rp_mr *mr);
/*
 * A window of zero-length receives on QP qp, for what carries no bytes
 * into them: Writes with immediate, announcements, credits. 0 or an
 * error (reported).
 */
int xfer_post_recvs(struct xfer *x, uint32_t qp);
/*
 * --op send, the receiver: a receive into its slot for each chunk from
 * *recvs (counted on) up to the credit's window. 0 or an error.
 */
int xfer_post_slot_recvs(struct xfer *x, uint64_t *recvs);
/*
 * HELLO's or MR's QPs (qp0 and more[], qps of them) as x->remote[], each
 * with qp0's LID, MTU and GID. RP_EPROTO (reported) when qps is not
 * x->qps or two QPNs are the same.
 */
int xfer_take_remote(struct xfer *x, const struct rp_qp_addr *qp0,
		     const struct rp_qp_more *more, uint32_t qps,
		     const char *what);
/* x->local[] as a message's qp0, more[] and qps. */
void xfer_put_local(const struct xfer *x, struct rp_qp_addr *qp0,
		    struct rp_qp_more *more, uint8_t *qps);
/*
 * The sender's handshake (session_hello.c): its --psk challenge and
 * proof; HELLO with x's shape, op and QP; the receiver's MR, whose shape
 * may be smaller, never larger (x takes it). Each 0 or an error
 * (reported).
 */
int send_authenticate(struct xfer *x);
int send_hello(struct xfer *x);
int send_take_mr(struct xfer *x, struct rp_mr *mr);

/* The "data.summary" event, once the data phase is over: bytes moved,
 * chunks, entries, the data phase's seconds and the credits. */
void trace_data_summary(const struct xfer *x, uint64_t bytes,
			uint64_t files);
/* A directory entry the receiver handled: "created", "exists", ... */
void trace_dir(const struct rp_file *f, const char *result);

#endif
