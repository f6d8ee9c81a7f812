/* SPDX-License-Identifier: MIT */
/* Internal to the session: what the sender and receiver state machines
 * share (control messages with tracing, the transfer record, signals). */
#ifndef RDMAPUSH_SESSION_INT_H
#define RDMAPUSH_SESSION_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/auth.h"
#include "rdmapush/capture.h"
#include "rdmapush/csum.h"
#include "rdmapush/chan.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/fileio.h"
#include "rdmapush/limits.h"
#include "rdmapush/partial.h"
#include "rdmapush/pool.h"
#include "rdmapush/config.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/session.h"

/* A journal keeps the key's id (auth.h) whole. */
_Static_assert(RP_PARTIAL_KEY_LEN == RP_KEY_ID_LEN, "key id sizes");
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"
#include "session_op.h"

/* How the entries of a session went, on either side. */
struct rp_tally {
	uint64_t ok;		/* entries stored (files and directories) */
	uint64_t failed;
	uint64_t skipped;	/* sender: symlinks and special files */
	uint64_t up_to_date;	/* --update: entries not sent, up to date */
	uint64_t bytes;		/* in the files stored */
	/* Data bytes moved in this session: the receiver's taken off the
	 * ring, the sender's posted (a resumed file's rest only). */
	uint64_t landed;
	int first_err;		/* the first entry's failure */
};

/*
 * A link outage ridden out (--retry-for), on either side: the QPs went
 * to ERROR (retry exceeded, port down) while the control connection
 * lives. Both sides make fresh QPs and swap them in RECONNECT.
 */
struct rp_relink {
	uint32_t attempt;	/* RECONNECTs we sent */
	/* Outages ridden out (--json "reconnects"): one however many
	 * attempts it took, the first that connected counting it. */
	uint32_t count;
	bool counted;		/* this outage is in count */
	double since;		/* when the link went; 0 while it works */
	double up;		/* when our last relink connected */
	bool got;		/* the peer's RECONNECT is in peer, not yet
				 * acted on */
	struct rp_reconnect peer;
	/* rp_xfer_next() returns 0 (unreported) at this rp_now() time
	 * rather than wait to its deadline, for a look at the link; 0:
	 * never. */
	double probe;
};

/* One session, on either side. */
struct xfer {
	const struct rp_config *o;
	/* The control connection: its fd, the peer, --psk, batching. */
	struct rp_chan ch;
	struct rp_verbs *v;
	/* --capture: this session's packets, from its first connect to
	 * rp_xfer_release() (NULL: none). */
	struct rp_capture *cap;
	/* Worker threads for the chunks' reads, hashes and writes, and an
	 * epoll fd over their eventfd and the control socket (-1 before). */
	struct rp_pool *pool;
	int epfd;
	uint8_t *ring;
	/* How the chunks move: the op (enum rp_data_op), its descriptor
	 * (session_op.h, set with it by rp_op_set()) and its state. */
	uint8_t op;
	const struct rp_data_ops *ops;
	struct rp_op_state ost;
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
	struct rp_relink rl;
	/* rp_xfer_next() also returns 0 (unreported) at this rp_now()
	 * time: a SYNC is then due while a batch syncs; 0: never. */
	double wake;
	/* The side's progress line, once its data loop runs (or NULL). */
	struct rp_progress *prog;
	/* A relay hop's downstream: its entries' feed, whose eventfd its
	 * waits watch too (or NULL). */
	struct rp_feed *feed;
	/* A relay hop's upstream: its downstream session (or NULL). */
	struct rp_relay *relay;
	/* The origin of a chain that broke went on to the hosts after the
	 * break directly (reroute() in session_send.c). */
	bool rerouted;
	uint64_t done;		/* chunks the receiver has taken (credit) */
	uint64_t credits;	/* credit Sends: posted (recv), got (send) */
	struct rp_tally tally;
	struct rp_report rep;
	char name[RP_PATH_MAX + 1];	/* the last entry stored */
	char peer[80];		/* x->ch.peer points here */
	char gid[48];		/* GID in use, text: outlives the verbs context */
	double start;
	/* The data phase, for rp_report.data_seconds: first chunk posted
	 * or landed, and the last credit (sender) or landing (receiver). */
	double data_start, data_end;
	/* A receiver's chain push: the hosts after it, in order, from the
	 * sender's CHAIN (n 0: none); freed by rp_xfer_release(). */
	struct rp_chain {
		struct rp_host *hop;
		uint32_t n;
	} chain;
	/* A chain push's sender: per host of rp_config's hosts, got[0]
	 * this session's own result (at its end), got[h] the HOST for
	 * hop h (hop 0 while none came); NULL for one host. */
	struct rp_host_msg *got;
	/* The origin's: got as the report shows it (rep.hosts). */
	struct rp_host_result *hres;
};

/* Where chunk n of the session sits in either side's ring: slot
 * n % window, chunk bytes each. */
static inline size_t xfer_slot_off(const struct xfer *x, uint64_t n)
{
	return (size_t)(n % x->window) * x->chunk;
}

/* Chunk seq's immediate, for the ops that carry its number: the
 * number modulo 2^31, with RP_IMM_END on its file's last chunk. */
static inline uint32_t xfer_chunk_imm(uint64_t seq, bool last)
{
	return (uint32_t)(seq & RP_IMM_SEQ) | (last ? RP_IMM_END : 0);
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
/* After a link outage: nothing has arrived, and chunks come again from
 * next on, chunk n on QP n % qps. */
void rp_order_restart(struct rp_order *o, uint64_t next);
/* Chunk n's imm and len, if it has arrived (then it is taken). */
bool rp_order_take(struct rp_order *o, uint64_t n, uint32_t *imm,
		   uint32_t *len);

/* rp_chan_deadline(): --timeout from now, or the handshake's deadline. */
double rp_xfer_deadline(const struct xfer *x);
/* rp_chan_flush(): send what was queued (x->ch.batch). */
int rp_xfer_flush(struct xfer *x);
/* The session's data op: x->op and x->ops. 0, or RP_EINTERNAL
 * (reported) for an op without a descriptor. */
int rp_op_set(struct xfer *x, uint8_t op);
/*
 * Open the device whose GID matches the control connection's local
 * address, and create the QP (INIT), with the access x->ops gives this
 * side (receiver or not) for the QP and, later, the ring.
 */
int rp_xfer_open_verbs(struct xfer *x, bool receiver);
/*
 * rp_verbs_connect() to x->remote, with --capture started (or told the
 * new QPs, after a reconnect) first: no packet flows before it returns,
 * so the capture misses none. 0 or an error (reported).
 */
int rp_xfer_connect(struct xfer *x);
/* Send and receive queue depth for the agreed window. */
uint32_t rp_xfer_queue_depth(const struct xfer *x);
/* Fill the report's RDMA fields from the open verbs context. */
void rp_xfer_report_verbs(struct xfer *x);
/* Enter phase p (traced). */
void rp_xfer_phase(struct xfer *x, enum rp_phase p);
/*
 * On a fresh control connection: tune the socket, run this side's AUTH
 * exchange (AUTH phase, rp_chan_auth_*()) when there is a key, then
 * enter HELLO. 0 or the exchange's error.
 */
int rp_xfer_start(struct xfer *x, bool sender);
/*
 * Start the worker threads (rp_config_threads(), each with scratch bytes)
 * and the epoll fd the data phase's waits watch. 0 or an error (reported).
 */
int rp_xfer_start_pool(struct xfer *x, size_t scratch);
/* Let running jobs end, drop queued ones, join: before anything a job
 * points to (files, ring) is released. NULL-safe, idempotent. */
void rp_xfer_stop_pool(struct xfer *x);
/*
 * Wait for a job to end or notify, --timeout at most (what: for the
 * message). 0, RP_ETIMEOUT (reported), RP_EINTERRUPTED (a stop signal).
 */
int rp_xfer_pool_wait(struct xfer *x, const char *what);
/*
 * After rp_xfer_next() returned 0: whether the control channel has
 * something to read (without workers, always: nothing else wakes it).
 */
bool rp_xfer_ctrl_ready(const struct xfer *x);
/* The control channel has something to read (or was closed) right now. */
bool rp_xfer_ctrl_now(const struct xfer *x);
/*
 * The data phase's wait: completions into wc[0..max), n > 0; or 0 when
 * watch and the control channel has a message to read, or a worker has
 * news (the caller looks at its jobs, then at rp_xfer_ctrl_ready()); or
 * an error with its cause reported once: a stop signal, a failed
 * completion (with the peer's reason if it gives one), or no progress by
 * deadline.
 */
int rp_xfer_next(struct xfer *x, struct rp_wc *wc, int max, double deadline,
	      bool watch);
/*
 * An entry of the session ended: count it in t (rc 0: stored, bytes;
 * else failed), give its JSON object with --json, tell a library caller's
 * entry callback, and remember its path for the summary. skipped (not NULL): it was not sent, and why.
 */
void rp_xfer_entry(struct xfer *x, struct rp_tally *t, const char *path,
		uint64_t bytes, int rc, const char *skipped);
/* Data bytes moved so far, for a library caller's progress callback. */
void rp_session_progress(struct xfer *x, uint64_t done);
/* Print summary and/or JSON for the finished transfer; copy where it
 * ended to *out (may be NULL). */
void rp_xfer_report(struct xfer *x, int rc, struct rp_outcome *out);
/* Release verbs, checksum state and the control socket; end the
 * capture (a failed session's too: x->rep.rc says which). */
void rp_xfer_release(struct xfer *x);

/* rp_chan_recv(), unless a stop signal came (RP_EINTERRUPTED). */
int rp_xfer_recv(struct xfer *x, uint32_t want, union rp_msg *m,
	     const char *phase);
/* MR out for our ring, in the agreed shape: where the peer may write
 * or read when the op exposes our ring (rp_op_exposes()), else addr and
 * rkey 0, nothing. */
int rp_xfer_send_mr(struct xfer *x, uint64_t addr, uint32_t rkey);
/* The receiver's result for entry id: err 0 (ok, bytes) or why not. */
int rp_xfer_send_fack(struct xfer *x, uint32_t id, int err, uint64_t bytes);

/*
 * The receiver's group commit (session_batch.c). Files of at most
 * RP_BATCH_FILE_MAX bytes, verified, wait with their data written but
 * not synced, up to RP_BATCH_FILES of them and RP_BATCH_BYTES in all;
 * one syncfs makes a batch durable, then each file is linked into place
 * (on the worker that ran the sync) and answered (FACK), in order.
 * RP_BATCHES take turns: while the batches before it sync and link on
 * the workers (one's links beside the next one's sync), files keep
 * arriving into the next, so the disk and the network overlap. The
 * receiver sends a batch to its sync when it is full and whenever it
 * would otherwise wait for the sender with none in flight. An entry
 * answered meanwhile (a directory, a refusal, a large file) waits in the
 * batch for its turn, as FACKs keep the entries' order; the directory
 * the files are in, left, goes with the newest batch holding any, which
 * fsyncs it once they are named, up to RP_BATCH_DIRS of them (past
 * that, everything waiting is named first, then the directory left).
 * Each file waiting holds its descriptor: the sender's MAX_PENDING (four
 * batches) bounds them, and so does the open-file limit, less
 * RP_FD_RESERVE for everything else (the directories taken among it):
 * at that cap the oldest batch is answered before another file waits.
 * `rdmapush recv` raises its limit (RP_SYS_NOFILE_RECV) so that the cap
 * is the sender's.
 */
#define RP_BATCHES		5u
#define RP_BATCH_FILE_MAX	(1u << 20)
#define RP_BATCH_FILES		256u
#define RP_BATCH_BYTES		(32ull << 20)
#define RP_BATCH_DIRS		32u
#define RP_FD_RESERVE		256u
/*
 * While the receiver waits for the disk (a large file's final sync, a
 * batch's syncfs) it tells the sender how far it got at most this often
 * (SYNC), so the sender's --timeout measures silence, not the disk. A
 * quarter second: a sender with the smallest --timeout (1 s) still
 * hears one in time even when a step takes half a second.
 */
#define RP_SYNC_EVERY		0.25
/* While the receiver waits for its disk: SYNC s, sent now, once *next
 * (rp_now() seconds) has passed, and *next moved on. 0 or the channel's
 * failure. */
int rp_xfer_sync_due(struct xfer *x, const struct rp_sync *s, double *next);
/*
 * A chunk this small is read and hashed (sender) or copied, hashed and
 * written (receiver) on the session thread: handing it to a worker (a
 * wake-up, an eventfd write, a poll) costs more than the work, and a
 * tree of small files is all such chunks.
 */
#define RP_INLINE_MAX		(16u << 10)

struct rp_batched {
	struct rp_dst dst;	/* written, staged (its attributes set) */
	uint32_t id;
	char *path;		/* as the sender named it */
	uint64_t bytes;
	bool force;		/* may replace what is there */
	/* No file: an entry answered already, waiting for its turn. */
	bool answered;
	int err;		/* its naming's result (after the sync) */
	char *why;		/* and its reason, when it failed, or NULL */
};

struct rp_batch {
	/* First: the syncfs runs as a worker's job (its record). */
	struct rp_job job;
	/* The session's, shared by its batches: one batch links at a time.
	 * A batch's files go into the directory the next batch's go into,
	 * and two workers linking there at once spin on its lock. */
	pthread_mutex_t *naming;
	int sync_errno;		/* the job's result */
	_Atomic bool synced;	/* the job ended */
	bool busy;		/* started, not yet finished */
	bool in_memory;		/* tmpfs: no sync to wait for */
	double next_sync;	/* SYNC due to the sender (rp_now()) */
	struct rp_batched *e;	/* RP_BATCH_FILES, allocated at first use */
	uint32_t n;		/* entries */
	uint32_t files;		/* of them, files to sync and name */
	uint64_t bytes;		/* the files' */
};

/* Whether a file of size bytes may wait in b now. */
bool rp_batch_takes(const struct rp_batch *b, uint64_t size);
/* Stage d and move it into b (d is left closed): 0 or an error
 * (reported; d is still the caller's). */
int rp_batch_add(struct rp_batch *b, struct rp_dst *d, uint32_t id,
		 const char *path, uint64_t bytes, bool force)
	__attribute__((warn_unused_result));
/* An entry answered already (err, and the reason held for it, if any:
 * taken) waits in b for its turn. 0 or -ENOMEM (reported). */
int rp_batch_add_answer(struct rp_batch *b, uint32_t id, const char *path,
			uint64_t bytes, int err)
	__attribute__((warn_unused_result));
bool rp_batch_full(const struct rp_batch *b);
/* b (not empty) starts its syncfs on a worker; b is busy, and takes no
 * file, until rp_batch_finish(). */
void rp_batch_start(struct xfer *x, struct rp_batch *b);
/* b's sync ended: rp_batch_finish() will not wait. */
bool rp_batch_synced(const struct rp_batch *b);
/* While b syncs: its SYNC to the sender, when b->next_sync is due. 0 or
 * the channel's failure. */
int rp_batch_tick(struct xfer *x, struct rp_batch *b)
	__attribute__((warn_unused_result));
/* Wait for a busy b's sync (telling the sender we are alive), then each
 * file named, counted in t and answered (FACK); b is empty and free
 * again. 0 (also when b is not busy) or the first failure to tell the
 * sender; each file's own failure is its FACK's. The reason held for
 * the entry being answered now survives. */
int rp_batch_finish(struct xfer *x, struct rp_batch *b, struct rp_tally *t)
	__attribute__((warn_unused_result));
/* Drop what waits (the session failed: no FACK told the sender these
 * files arrived, so none appears), and the batch's memory. */
void rp_batch_free(struct rp_batch *b);

/*
 * The receiver's handshake (session_hello.c), after --psk's AUTH
 * (rp_xfer_start()). The sender's HELLO (an AUTH instead, without --psk,
 * is RP_EAUTH). Chunk and window: never more than
 * asked, within our caps, no more ring than a small session needs. The
 * receives for the first window of chunks are the op's (recv_arm). Our
 * MR answer (the ring's address and rkey only when the op exposes it).
 * When the op exposes the sender's ring, the sender's MR: its QP and our
 * shape, with an rkey (into x->ost). Each 0 or an error (reported).
 */
int rp_recv_hello(struct xfer *x, struct rp_hello *h);
int rp_recv_agree_shape(struct xfer *x, const struct rp_hello *h);
int rp_recv_send_mr(struct xfer *x, uint32_t rkey);
int rp_recv_sender_mr(struct xfer *x);
/*
 * A window of zero-length receives on QP qp, for what carries no bytes
 * into them: Writes with immediate, announcements, credits. 0 or an
 * error (reported).
 */
int rp_xfer_post_recvs(struct xfer *x, uint32_t qp);
/*
 * Credit Sends the receiver may have posted and not seen complete: a
 * window's worth, as chunks land, and one more, the credit it gives again
 * at once when the link comes back (or to look at the link). The sender
 * keeps as many receives posted on QP 0 (rp_xfer_post_credit_recvs), so
 * that none finds its receive queue empty (RNR) while the sender is busy
 * posting rather than polling.
 */
static inline uint32_t rp_xfer_credit_sends(const struct xfer *x)
{
	return x->window + 1;
}
int rp_xfer_post_credit_recvs(struct xfer *x);
/*
 * HELLO's or MR's QPs (qp0 and more[], qps of them) as x->remote[], each
 * with qp0's LID, MTU and GID. RP_EPROTO (reported) when qps is not
 * x->qps or two QPNs are the same.
 */
int rp_xfer_take_remote(struct xfer *x, const struct rp_qp_addr *qp0,
		     const struct rp_qp_more *more, uint32_t qps,
		     const char *what);
/* x->local[] as a message's qp0, more[] and qps. */
void rp_xfer_put_local(const struct xfer *x, struct rp_qp_addr *qp0,
		    struct rp_qp_more *more, uint8_t *qps);
/*
 * Where a send session's entries come from: the command line's sources,
 * walked (session_send.c), or, on a relay hop, what its upstream lands.
 * next, open and recheck behave as rp_walk_next(), rp_walk_src_open()
 * and rp_walk_dir_recheck() (walk.h) on ctx; close releases ctx and
 * runs once, at the session's end, whatever happened before.
 */
struct rp_walk_entry;
struct rp_entry_src {
	int (*next)(void *ctx, struct rp_walk_entry *e);
	int (*open)(void *ctx, const struct rp_walk_entry *e,
		    struct rp_src *src);
	int (*recheck)(void *ctx, struct rp_walk_entry *e);
	void (*close)(void *ctx);
	void *ctx;
};

/*
 * A relay hop's feed (session_feed.c): the entries its upstream session
 * lands, in order, for the session that forwards them downstream on
 * another thread, which reads each file's copy as far as it is written.
 * At most cap entries wait; memory is cap entries of about 4 KiB.
 */
#define RP_FEED_NONE	UINT64_MAX	/* an entry not fed (see put) */

struct rp_feed_entry {
	uint8_t kind;		/* RP_FILE_REG or RP_FILE_DIR */
	char path[RP_PATH_MAX + 1];	/* as the upstream named it */
	uint32_t mode;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint64_t size;		/* RP_FILE_REG: its size */
	int fd;			/* RP_FILE_REG: this hop's copy, readable */
	uint64_t ready;		/* bytes of it written, from 0, in order */
	bool done;		/* ended: err, or whole and verified */
	int err;		/* this hop could not keep it (reported) */
	uint8_t csum[RP_CSUM_LEN];	/* done, !err: the origin's digest */
};

struct rp_feed;
/* A put waiting for room gives up once *stop is non-zero (a signal). */
int rp_feed_new(struct rp_feed **f, uint32_t cap, _Atomic int *stop)
	__attribute__((warn_unused_result));
/* Frees what waits too; NULL is fine. Once both sides are done. */
void rp_feed_free(struct rp_feed *f);

/* The upstream side. put takes e->fd (closes it when not fed) and
 * waits while cap entries wait; *seq names the entry to progress and
 * end, or is RP_FEED_NONE once the downstream left (nothing more is
 * fed; the upstream goes on for its own copy). 0, or RP_EINTERRUPTED
 * (*stop while it waited). */
int rp_feed_put(struct rp_feed *f, struct rp_feed_entry *e, uint64_t *seq)
	__attribute__((warn_unused_result));
void rp_feed_progress(struct rp_feed *f, uint64_t seq, uint64_t ready);
void rp_feed_end(struct rp_feed *f, uint64_t seq, int err,
		 const uint8_t csum[RP_CSUM_LEN]);
/* No entry comes after those put. */
void rp_feed_close(struct rp_feed *f);
/* The upstream session failed: the downstream stops its session as a
 * failed one (not file by file), so the hops after keep what they hold
 * of the file in flight, for a push that resumes it. */
void rp_feed_break(struct rp_feed *f);
bool rp_feed_broken(struct rp_feed *f);

/* The downstream side. The fd to watch (readable: something changed;
 * rp_feed_ack() before looking again). head copies the first entry
 * (1), or says none is left (0) or none is there yet (-EAGAIN).
 * claim_fd gives the caller the first entry's fd (-1 if none), take
 * drops the first entry, leave says no more is taken (put stops
 * feeding, and what waits is released). */
int rp_feed_fd(const struct rp_feed *f);
void rp_feed_ack(struct rp_feed *f);
int rp_feed_head(struct rp_feed *f, struct rp_feed_entry *copy);
int rp_feed_claim_fd(struct rp_feed *f);
void rp_feed_take(struct rp_feed *f);
void rp_feed_leave(struct rp_feed *f);

/*
 * A relay hop's downstream session (session_send.c): a push of what the
 * feed brings, to o->host, o->port, with o's shape taken as is (each
 * file's digest is the origin's, which depends on the chunk size). It
 * leaves the feed (rp_feed_leave) when it ends, however it ends.
 * got, o->nhosts of them, gets what the hosts said as x->got does
 * (got[0] always).
 */
int rp_session_send_feed(const struct rp_config *o, struct rp_feed *feed,
			 struct rp_outcome *out, struct rp_host_msg *got);

/*
 * A relay hop (session_relay.c), called by its upstream session: open
 * starts the downstream session along the n hops after this one (to
 * hops[0], which hears of the rest), on a thread of its own; then
 * each entry landed is told as it goes (a directory once made; a file
 * once opened here, err if it could not be, with ready bytes already
 * there; its progress; its end: err, or verified with the origin's
 * digest). close, after FIN, waits for the downstream to end (SYNCs
 * going upstream meanwhile), then tells the upstream each later
 * host's result (HOST): 0 or our session's failure, the downstream's
 * result in *down_rc. free, after our session failed, stops the
 * downstream as a failed session (rp_feed_break) and releases it. Each
 * is a no-op without a relay; a file's seq may be RP_FEED_NONE.
 */
struct rp_relay;
struct rp_host;
int rp_relay_open(struct xfer *x, const struct rp_host *hops, uint32_t n,
		  bool preserve)
	__attribute__((warn_unused_result));
void rp_relay_dir(struct xfer *x, const struct rp_file *f);
uint64_t rp_relay_file(struct xfer *x, const struct rp_file *f,
		       const struct rp_dst *d, int err, uint64_t ready);
void rp_relay_progress(struct xfer *x, uint64_t seq, uint64_t ready);
void rp_relay_end(struct xfer *x, uint64_t seq, int err,
		  const uint8_t csum[RP_CSUM_LEN]);
int rp_relay_close(struct xfer *x, int *down_rc)
	__attribute__((warn_unused_result));
void rp_relay_free(struct xfer *x);

/*
 * The sender's handshake (session_hello.c), after --psk's AUTH: HELLO
 * with x's shape, op and QP; the receiver's MR, whose shape may be
 * smaller, never larger (x takes it, and its ring's address and rkey
 * into x->ost). Each 0 or an error (reported).
 */
int rp_send_hello(struct xfer *x);
int rp_send_take_mr(struct xfer *x);

/* A chain push (session_relay.c): this receiver's session names hosts
 * after it (x->chain), for it to pass the push on to. */
/*
 * A chain push's sender at its end (session_relay.c): its own result
 * into x->got[0]; at the origin, every host's result into the report
 * and *out, and rc the first failed host's error when rc was 0.
 */
int rp_xfer_chain_result(struct xfer *x, int rc, struct rp_outcome *out);
bool rp_xfer_relays(const struct xfer *x);

/*
 * Link outages (session_hello.c), both sides, within their data loop:
 *
 * rp_xfer_relink_arm(): after rp_xfer_open_verbs(), whether a failure
 * the link causes is ridden out (--retry-for > 0) or reported as ever.
 *
 * rp_xfer_link_seen(): after rp_xfer_next() returned n completions:
 * an outage, if any, is over when one is our own request answered (a
 * Write, Send or Read: the link works both ways) at least
 * rp_qp_give_up_secs() after our last relink. A receive alone says only
 * that the peer's packets reach us (with our egress dropped its credits
 * still land); and a request either side posted before the other's fresh
 * QPs were ready may still fail that long after. Either way it is the
 * same outage (--json "reconnects"; --retry-for from its start).
 *
 * rp_xfer_link_lost(): rc from rp_xfer_next() is the link going away,
 * to ride out (not yet reported).
 *
 * rp_xfer_relink_refused(): RP_MSG_BIT(RP_MSG_RECONNECT) when this side
 * does not ride out outages (--retry-for 0): a data loop leaves it out
 * of what it accepts, so the peer's RECONNECT is refused as out of
 * place; else 0.
 *
 * rp_xfer_relink_got(): the peer's RECONNECT came (m): kept in x->rl
 * for the data loop to act on (rp_xfer_relink_begin() and on), so that
 * nothing is torn down in the middle of handling a chunk. 0, or
 * RP_EPROTO (reported) when it names another number of QPs.
 *
 * rp_xfer_relink_begin(): within --retry-for (and only while the peer
 * is still there), "link down, reconnecting (attempt n)": fresh QPs in
 * INIT (rp_verbs_relink()), x->local[] theirs. The caller then posts
 * its receives, and either, answering (x->rl.got), takes the peer's
 * RECONNECT and connects before sending its own, or sends its own and
 * waits for the peer's, then connects. 0 or an error (reported).
 *
 * rp_xfer_relink_send(): our RECONNECT with next_chunk, sent now.
 *
 * rp_xfer_relink_connect(): the peer's RECONNECT (x->rl.peer) taken
 * as x->remote[] and our fresh QPs driven INIT -> RTR -> RTS against
 * them; counted. 0 or an error (reported).
 */
void rp_xfer_relink_arm(struct xfer *x);
void rp_xfer_link_seen(struct xfer *x, const struct rp_wc *wc, int n);
bool rp_xfer_link_lost(const struct xfer *x, int rc);
uint32_t rp_xfer_relink_refused(const struct xfer *x);
int rp_xfer_relink_got(struct xfer *x, const struct rp_reconnect *m);
int rp_xfer_relink_begin(struct xfer *x);
int rp_xfer_relink_send(struct xfer *x, uint64_t next_chunk);
int rp_xfer_relink_connect(struct xfer *x);

/* The "data.summary" event, once the data phase is over: bytes moved,
 * chunks, entries, the data phase's seconds and the credits. */
void rp_xfer_trace_data_summary(const struct xfer *x, uint64_t bytes,
			uint64_t files);
/* A directory entry the receiver handled: "created", "exists", ... */
void rp_xfer_trace_dir(const struct rp_file *f, const char *result);

/* ---- interrupted and repeated pushes, per file (session_resume.c) ---- */

struct rp_csum;
struct rp_dst;
/*
 * --update: whether the entry f's target, leaf in pfd, matches f at
 * f->update's level (*up; the checksum level hashes it at chunk), and
 * whether a regular file is there (*regular: --update replaces only
 * that). 0 or an error (reported).
 */
int rp_recv_up_to_date(int pfd, const char *leaf, const struct rp_file *f,
		       uint32_t chunk, bool *up, bool *regular);
/*
 * --resume: the partial kept of f (leaf in pfd) that this session can
 * continue. If one is, h becomes HAVE PARTIAL (its whole chunks at
 * chunk, their digest), *fd the partial (owned) and *prefix its digests
 * folded (owned); else h is left NONE and a partial that cannot serve is
 * removed, said once. 0 or an error (reported).
 */
int rp_recv_offer_partial(int pfd, const char *leaf, const struct rp_file *f,
			  uint32_t chunk,
			  const uint8_t key_id[RP_PARTIAL_KEY_LEN],
			  struct rp_have *h, int *fd, struct rp_csum **prefix);
/*
 * The session stopped during f, with folded bytes of it written and
 * folded into csum: keep its whole chunks as leaf's partial in pfd
 * (d's temporary file; d's abort then only closes it). 0, also when
 * nothing is worth keeping, or an error (reported).
 */
int rp_recv_keep_partial(int pfd, const char *leaf, struct rp_dst *d,
			 const struct rp_file *f, uint32_t chunk,
			 uint64_t folded, struct rp_csum *csum,
			 const uint8_t key_id[RP_PARTIAL_KEY_LEN]);
/*
 * While a large file is written under its partial's name: its journal
 * now, for the whole chunks both synced and folded into csum (folded
 * bytes of them). 0 or an error (reported).
 */
int rp_recv_note_partial(int pfd, const char *leaf, const struct rp_file *f,
			 uint32_t chunk, uint64_t synced, uint64_t folded,
			 struct rp_csum *csum,
			 const uint8_t key_id[RP_PARTIAL_KEY_LEN]);
/* Files this large are written under their partial's name from the
 * start, with a journal every RP_PARTIAL_NOTE_STEP bytes. */
#define RP_PARTIAL_NAMED_MIN	(64ull << 20)
#define RP_PARTIAL_NOTE_STEP	(8ull << 20)
/*
 * The sender's side of HAVE PARTIAL: whether fd's first bytes, hashed at
 * chunk, fold to want (*same), their digests also folded into fold. 0 or
 * an error (reported).
 */
int rp_send_check_prefix(int fd, const char *path, uint64_t bytes,
			 uint32_t chunk, const uint8_t want[RP_CSUM_LEN],
			 struct rp_csum *fold, bool *same);

#endif
