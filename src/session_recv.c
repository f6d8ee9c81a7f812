// SPDX-License-Identifier: MIT
/* The receiver's state machine: AUTH, HELLO, ring and QP once, MR; then
 * per entry FILE, its chunks (copied out, credited, hashed, written),
 * FEND, verify, commit, FACK; FIN; directories synced; ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/auth.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"
#include "rdmapush/pool.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/*
 * After FEND the receiver syncs what the disk has not yet taken (at most
 * RP_FILEIO_WB_LAG) in steps of SYNC_STEP, and tells the sender how far
 * it got at most every RP_SYNC_EVERY seconds.
 */
#define SYNC_STEP	(8ull << 20)
/*
 * With --retry-for, while the control channel is not read (a file's
 * FEND is in, its chunks are not) and the sender owes chunks, a credit
 * goes again after this much silence: a link gone fails it, so the
 * outage is seen on this side too.
 */
#define PROBE_SECS	2.0
/*
 * Messages the receiver may read past while it looks for the sender's
 * RECONNECT (FILEs, FENDs and FIN sent ahead of it): at most an entry
 * per FACK the sender may await and a FEND per ring slot, and FIN.
 */
#define HELD_MAX	512u

/* The regular file whose chunks land now. */
struct recv_file {
	bool open;
	struct rp_file meta;
	int parentfd;		/* borrowed: the directory we are in (go_to) */
	const char *leaf;	/* its name there (in meta.path) */
	struct rp_dst dst;
	struct rp_csum *csum;
	uint64_t folded;	/* bytes written and folded into csum */
	uint64_t noted;		/* a kept file's journal says this much */
	/* FILE asked to resume or update it: HAVE is sent, its chunks
	 * start at FROM. */
	bool awaiting_from;
	bool replace;		/* --update: a differing copy is replaced */
	uint64_t have;		/* HAVE PARTIAL's bytes, or 0 */
	int partial_fd;		/* the partial offered, or -1 */
	struct rp_csum *prefix;	/* its chunks' digests, folded */
	int err;		/* it failed: its chunks are dropped */
	bool facked;		/* its failure is told already (early_fack) */
	uint64_t bytes;		/* landed so far */
	bool data_done;		/* its RP_IMM_END chunk landed */
	bool fend_seen;
	struct rp_fend fend;
	uint64_t relay_seq;	/* its entry in a relay's feed */
};

/*
 * A landed chunk, from its completion until it is folded into its file.
 * A worker copies it out of the ring (then its slot can be credited),
 * hashes the copy and writes it; the main thread folds the digests and
 * accounts the writes in order. Records outnumber ring slots (see
 * harvest), since a copied chunk may still be hashed and written while
 * its slot takes the next one.
 */
enum { CHUNK_FREE, CHUNK_QUEUED, CHUNK_COPIED, CHUNK_DONE };

struct landed {
	struct rp_job job;	/* first: the job is its record */
	struct rp_pool *pool;	/* NULL: run inline (RP_INLINE_MAX) */
	const uint8_t *slot;	/* in the ring */
	bool copy;		/* the op copies: out of the slot first */
	bool written;		/* a job ran (not a dropped or empty chunk) */
	struct rp_dst_put put;
	uint8_t digest[RP_CSUM_LEN];
	_Atomic int state;
};

/* A message read ahead of its turn (see HELD_MAX). */
struct held_msg {
	uint8_t type;
	union rp_msg m;
};

struct recv_state {
	int dirfd;		/* borrowed from the server */
	/* Read past, looking for a RECONNECT: taken before the channel's,
	 * in order. */
	struct held_msg *held;
	uint32_t held_head, held_len;
	struct rp_order order;	/* chunks arrived, before they land */
	struct landed *rec;	/* nrec records: chunk n uses rec[n % nrec] */
	uint32_t nrec;
	/* The small chunks' copy, written on this thread (O_DIRECT-able). */
	void *inline_buf;
	uint64_t landed;	/* chunks landed in the session */
	uint64_t folded;	/* of those, written and folded into a file */
	uint64_t credit_sent;	/* cumulative credit last posted */
	uint32_t sends_out;	/* credit Sends not yet completed */
	uint32_t sq_cap;
	uint32_t flags;		/* HELLO's RP_HELLO_* */
	/* --psk's id in journals (auth.h), or zeros. */
	uint8_t key_id[RP_PARTIAL_KEY_LEN];
	mode_t umask;
	struct recv_file cur;
	/* Small files verified, waiting for one sync (session_batch.c):
	 * a ring of batches, the ones in flight (their sync and names on
	 * a worker) from the oldest, then the one that takes files. */
	struct rp_batch batches[RP_BATCHES];
	/* Each batch's directories left, fsynced once it is done. */
	struct rp_dir_here left[RP_BATCHES][RP_BATCH_DIRS];
	unsigned nleft[RP_BATCHES];
	pthread_mutex_t naming;	/* theirs (struct rp_batch) */
	unsigned oldest, flying;
	/* Files that may wait at once: the open-file limit's share. */
	uint32_t max_waiting;
	uint32_t next_id;	/* the FILE id we expect next */
	bool fin_seen;
	/* The directory entries arrive in now (rp_fileio_here_go_to). */
	struct rp_dir_here here;
	/* Directories we made, and --preserve's times, set after FIN. */
	struct rp_dir_times times;
	struct rp_tally tally;
	struct rp_progress prog;
	/* --min-rate: seconds spent waiting on the sender (check_rate),
	 * and that and moved() where the span being judged began. */
	double waited, rate_w0;
	uint64_t rate_b0;
};

/* Everything the sender needs before its first chunk, in this order:
 * verbs, ring, the op's receives, RTR/RTS, MR (and, when the op exposes
 * the sender's ring, the sender's MR back). Files come later, one by
 * one. */
static int accept_hello(struct xfer *x, struct recv_state *r,
			const struct rp_hello *h)
{
	uint32_t rkey;
	int rc;

	x->qps = h->qps;
	r->flags = h->flags;
	rc = rp_op_set(x, h->op);
	if (!rc)
		rc = rp_xfer_take_remote(x, &h->qp, h->more, h->qps, "HELLO");
	if (!rc)
		rc = rp_recv_agree_shape(x, h);
	r->sq_cap = rp_xfer_credit_sends(x);
	r->nrec = 2 * x->window;
	if (!rc)
		rc = rp_sys_calloc(&r->rec, r->nrec, sizeof(*r->rec),
				   "chunk records");
	if (!rc)
		rc = rp_order_init(&r->order, x->window, x->qps);
	/* When the op copies chunks out of the ring, each worker does so
	 * into a buffer of its own (chunk_job says why). */
	if (!rc)
		rc = rp_xfer_start_pool(x, x->ops->recv_copies ? x->chunk : 0);
	if (!rc && posix_memalign(&r->inline_buf, 4096, RP_INLINE_MAX)) {
		RP_ERR("posix_memalign(%u bytes): %s", RP_INLINE_MAX,
		       strerror(ENOMEM));
		rc = -ENOMEM;
	}
	if (!rc)
		rc = rp_xfer_open_verbs(x, true);
	if (!rc)
		rc = rp_verbs_reg_ring(x->v, (size_t)x->chunk * x->window,
				       (void **)&x->ring, &rkey);
	if (!rc)
		rc = x->ops->recv_arm(x);
	if (!rc)
		rc = rp_xfer_connect(x);
	if (!rc)
		rc = rp_recv_send_mr(x, rkey);
	if (!rc && rp_op_exposes(x->ops->send_access))
		rc = rp_recv_sender_mr(x);
	return rc;
}

/* ---- results per entry ---- */

/* The batch that takes files: the one after those in flight. */
static struct rp_batch *filling(struct recv_state *r)
{
	return &r->batches[(r->oldest + r->flying) % RP_BATCHES];
}

static struct rp_batch *oldest(struct recv_state *r)
{
	return &r->batches[r->oldest];
}

/* Whether entries wait in batches: another's answer goes after them. */
static bool waiting(struct recv_state *r)
{
	return r->flying || filling(r)->n;
}

/* The directories batch i took, left: fsynced (their files are named),
 * the first failure kept for the ACK, and closed. */
static void leave_dirs(struct recv_state *r, unsigned i)
{
	for (unsigned k = 0; k < r->nleft[i]; k++) {
		struct rp_dir_here *d = &r->left[i][k];

		rp_fileio_here_leave(d);
		if (d->sync_err && !r->here.sync_err)
			r->here.sync_err = d->sync_err;
	}
	r->nleft[i] = 0;
}

/* Leaving the directory we are in while entries wait: the newest batch
 * holding any takes it, to fsync once its files are named (the batches
 * before it are done by then). false when that batch holds all it may. */
static bool hand_over(struct recv_state *r)
{
	unsigned i = (r->oldest + r->flying - !filling(r)->n) % RP_BATCHES;

	if (r->nleft[i] == RP_BATCH_DIRS)
		return false;
	rp_fileio_here_move(&r->here, &r->left[i][r->nleft[i]++]);
	return true;
}

/* The oldest batch in flight, once its sync and names are done (or
 * now, when wait): its files are in the directory we are in (its fsync
 * on leaving covers them) or in one it took, and answered, in order. */
static int reap(struct xfer *x, struct recv_state *r, bool wait)
{
	int rc;

	if (!r->flying || (!wait && !rp_batch_synced(oldest(r))))
		return 0;
	r->here.dirty = true;
	rc = rp_batch_finish(x, oldest(r), &r->tally);
	leave_dirs(r, r->oldest);
	r->oldest = (r->oldest + 1) % RP_BATCHES;
	r->flying--;
	return rc;
}

/* Every batch in flight that is done, answered in order. */
static int reap_done(struct xfer *x, struct recv_state *r)
{
	unsigned before;
	int rc = 0;

	do {
		before = r->flying;
		rc = reap(x, r, false);
	} while (!rc && r->flying < before);
	return rc;
}

/* The filling batch starts its sync, waiting first for the oldest in
 * flight when the ring is full (FACKs keep the entries' order); new
 * files go to the next. */
static int sync_behind(struct xfer *x, struct recv_state *r)
{
	int rc = reap_done(x, r);

	if (!rc && filling(r)->n && r->flying == RP_BATCHES - 1)
		rc = reap(x, r, true);
	if (rc || !filling(r)->n)
		return rc;
	rp_batch_start(x, filling(r));
	r->flying++;
	return 0;
}

/* The batches in flight: answered once done; until then the sender
 * hears we are alive (SYNC). */
static int behind(struct xfer *x, struct recv_state *r)
{
	int rc = reap_done(x, r);

	if (!rc && r->flying)
		rc = rp_batch_tick(x, oldest(r));
	return rc;
}

/* Every file waiting for its sync: durable, named, answered, now. */
static int flush(struct xfer *x, struct recv_state *r)
{
	int rc = sync_behind(x, r);

	while (!rc && r->flying)
		rc = reap(x, r, true);
	return rc;
}

/* Count an entry's result, say it in --json, and tell the sender now,
 * after the entries before it. */
static int answer_now(struct xfer *x, struct recv_state *r,
		      const struct rp_file *f, int err, uint64_t bytes)
{
	int rc = flush(x, r);

	rp_xfer_entry(x, &r->tally, f->path, bytes, err, NULL);
	if (!rc)
		rc = rp_xfer_send_fack(x, f->id, err, bytes);
	return rc;
}

/* As answer_now(), but behind entries waiting for their sync it waits
 * in the filling batch for its turn, with the reason held for it. */
static int entry_done(struct xfer *x, struct recv_state *r,
		      const struct rp_file *f, int err, uint64_t bytes)
{
	int rc;

	if (!waiting(r))
		return answer_now(x, r, f, err, bytes);
	rc = rp_batch_add_answer(filling(r), f->id, f->path, bytes, err);
	if (!rc && rp_batch_full(filling(r)))
		rc = sync_behind(x, r);
	return rc;
}

/* A path through (or onto) a symbolic link in DIR is refused by policy,
 * as a bad name is; the reason is reported where it was found. */
static int path_refusal(int rc)
{
	return rc == -ELOOP ? RP_EBADNAME : rc;
}

/* Into path's directory (opened once for a run of entries in it, not
 * from the top for each). Leaving the one the waiting files are in names
 * them first. */
static int go_to(struct xfer *x, struct recv_state *r, const char *path,
		 int *fd, const char **leaf)
{
	int rc = 0;

	if (!rp_fileio_here_is(&r->here, path) && r->here.fd >= 0 &&
	    waiting(r) && !hand_over(r))
		rc = flush(x, r);
	if (!rc)
		rc = path_refusal(rp_fileio_here_go_to(&r->here, r->dirfd,
						       path, fd, leaf));
	return rc;
}

/* ---- one entry ---- */

/* The sender's exact permission bits: it asks (-k), and this receiver
 * allows it (--preserve-modes). Modes are the receiver's choice. */
static bool exact_modes(const struct xfer *x, const struct recv_state *r)
{
	return (r->flags & RP_HELLO_PRESERVE) && x->o->preserve_modes;
}

/* Permission bits for an entry: the source's, masked as scp does;
 * setuid, setgid and sticky only when the sender keeps modes (-k) and
 * the receiver runs with --keep-setid, as the manual says. */
static uint32_t entry_mode(const struct xfer *x, const struct recv_state *r,
			   uint32_t mode, bool dir)
{
	bool setid = x->o->keep_setid && (r->flags & RP_HELLO_PRESERVE);
	uint32_t m = mode & (setid ? 07777u : 0777u);

	if (exact_modes(x, r))
		return m;
	m &= ~(uint32_t)r->umask;
	/* A directory anyone may write to and remove others' files from is
	 * made only when the receiver allows exact modes. */
	if (dir && (m & 0002) && !(m & 01000))
		m &= ~0002u;
	return m;
}

static int check_entry(struct xfer *x, const struct rp_file *f)
{
	const char *why = NULL;
	char shown[RP_PEER_TEXT_MAX];
	int rc = rp_fileio_check_path(f->path, f->path_len, &why);

	if (rc)
		RP_ERR("refusing the path sent by %s (\"%s\"): %s", x->peer,
		       rp_fmt_peer(shown, sizeof(shown), f->path,
				   f->path_len), why);
	return rc;
}

static int make_dir(struct xfer *x, struct recv_state *r,
		    const struct rp_file *f)
{
	bool keep_times = r->flags & RP_HELLO_PRESERVE, created = false;
	uint32_t mode = entry_mode(x, r, f->mode, true);
	const char *leaf;
	int pfd;
	int rc = check_entry(x, f);

	/* In the directory entries arrive in, as files are. mkdir's mode
	 * loses the umask's bits (already out of mode unless exact) and
	 * setuid/setgid: chmod'ed to mode when it holds them. */
	if (!rc)
		rc = go_to(x, r, f->path, &pfd, &leaf);
	if (!rc)
		rc = path_refusal(rp_fileio_mkdir_at(pfd, leaf, f->path, mode,
						     exact_modes(x, r) ||
						     (mode & 07000),
						     &created));
	r->here.dirty |= created;
	if (!rc && created)
		rc = rp_fileio_made_add(&r->times, f->path);
	if (!rc)
		rp_relay_dir(x, f);
	if (!rc && keep_times)
		rc = rp_fileio_times_add(&r->times, f->path, f->mtime_sec,
					 f->mtime_nsec);
	rp_xfer_trace_dir(f, rc ? "refused" : created ? "created" : "exists");
	return entry_done(x, r, f, rc, 0);
}

/* Where the current file goes: a checked path within --max-size, its
 * directory open (parentfd) and its name there (leaf). */
static int locate(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	const struct rp_file *f = &c->meta;
	char shown[RP_PEER_TEXT_MAX];
	int rc = check_entry(x, f);

	if (!rc && x->o->max_size && f->size != RP_SIZE_UNKNOWN &&
	    f->size > x->o->max_size) {
		RP_ERR("%s: %s offers a file of %" PRIu64 " bytes, above this "
		       "receiver's --max-size of %" PRIu64 " bytes",
		       rp_fmt_peer(shown, sizeof(shown), f->path, f->path_len),
		       x->peer, f->size, x->o->max_size);
		rc = RP_ELIMIT;
	}
	if (!rc)
		rc = go_to(x, r, f->path, &c->parentfd, &c->leaf);
	rp_progress_label(&r->prog, f->path);
	return rc;
}

/* The current file's temporary file: new, or (from > 0) the partial
 * offered, whose chunks' digests start its checksum. */
static int create(struct xfer *x, struct recv_state *r, uint64_t from)
{
	struct recv_file *c = &r->cur;
	const struct rp_file *f = &c->meta;
	bool force = x->o->force || c->replace;
	int rc;

	if (from) {
		rc = rp_fileio_dst_adopt(&c->dst, c->parentfd, c->leaf,
					 f->path, f->size, force,
					 c->partial_fd, from);
		c->partial_fd = -1;
		c->csum = c->prefix;
		c->prefix = NULL;
		c->bytes = c->folded = c->noted = from;
	} else if (f->size != RP_SIZE_UNKNOWN &&
		   f->size >= RP_PARTIAL_NAMED_MIN && !x->o->no_partials) {
		rc = rp_fileio_dst_open_kept(&c->dst, c->parentfd, c->leaf,
					     f->path, f->size, force);
		if (!rc)
			rc = rp_csum_new(&c->csum);
	} else {
		rc = rp_fileio_dst_open_as(&c->dst, c->parentfd, c->leaf,
					   f->path, f->size, force,
					   entry_mode(x, r, f->mode, false),
					   rp_fileio_made(&r->times,
							  r->here.path));
		if (!rc)
			rc = rp_csum_new(&c->csum);
	}
	if (!rc) {
		c->dst.mode = entry_mode(x, r, f->mode, false);
		c->dst.set_mtime = r->flags & RP_HELLO_PRESERVE;
		c->dst.mtime_sec = f->mtime_sec;
		c->dst.mtime_nsec = f->mtime_nsec;
		c->dst.defer_dir_sync = true;
		rp_fileio_dst_direct(&c->dst, &x->dio);
	}
	return rc;
}

static int open_file(struct xfer *x, struct recv_state *r)
{
	int rc = locate(x, r);

	return rc ? rc : create(x, r, 0);
}

/* The partial offered and not taken. */
static void offer_close(struct recv_file *c)
{
	if (c->partial_fd >= 0)
		close(c->partial_fd);
	c->partial_fd = -1;
	rp_csum_free(c->prefix);
	c->prefix = NULL;
}

static void file_close(struct recv_file *c)
{
	rp_fileio_dst_abort(&c->dst);
	offer_close(c);
	c->parentfd = -1;	/* borrowed: the directory we are in */
	rp_csum_free(c->csum);
	c->csum = NULL;
	c->open = false;
}

/*
 * The current file failed before its end (refused at its FILE, the disk
 * full): say so now, so the sender stops sending it. Its chunks still
 * land, and are dropped, until the one marked last.
 */
static int early_fack(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;

	if (!c->err || c->facked)
		return 0;
	c->facked = true;
	return answer_now(x, r, &c->meta, c->err, 0);
}

/* An entry of the sender's --update the receiver has: no data comes. */
static int up_to_date(struct xfer *x, struct recv_state *r,
		      struct rp_have *h)
{
	struct recv_file *c = &r->cur;
	char shown[RP_PEER_TEXT_MAX];

	h->verdict = RP_HAVE_UPTODATE;
	c->awaiting_from = false;
	rp_xfer_entry(x, &r->tally, c->meta.path, 0, 0, RP_ENTRY_UP_TO_DATE);
	RP_EV("file", "file.uptodate", "{path}: up to date ({level}); "
	      "nothing sent", EV_S("path", rp_fmt_peer(shown, sizeof(shown),
						    c->meta.path,
						    c->meta.path_len)),
	      EV_S("level", rp_proto_update_name(c->meta.update)));
	file_close(c);
	return rp_chan_send(&x->ch, RP_MSG_HAVE, h);
}

/*
 * A FILE with --resume or --update: answer HAVE (what we hold of it);
 * its chunks start at FROM. Refused here, it gets its FACK instead, and
 * the sender still says FROM and ends it empty, as for any refusal.
 */
static int negotiate(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	const struct rp_file *f = &c->meta;
	struct rp_have h = { .id = f->id, .verdict = RP_HAVE_NONE };
	bool up = false;
	int rc = locate(x, r);

	c->awaiting_from = true;
	if (!rc && f->update)
		rc = rp_recv_up_to_date(c->parentfd, c->leaf, f, x->chunk, &up,
					&c->replace);
	if (!rc && up)
		return up_to_date(x, r, &h);
	if (!rc && (f->want & RP_WANT_RESUME) && !x->o->no_partials)
		rc = rp_recv_offer_partial(c->parentfd, c->leaf, f, x->chunk,
					   r->key_id, &h, &c->partial_fd,
					   &c->prefix);
	if (rc) {
		c->err = rc;
		return early_fack(x, r);
	}
	c->have = h.bytes;
	return rp_chan_send(&x->ch, RP_MSG_HAVE, &h);
}

/* FROM: the chunks of the file negotiated start at offset, 0 or what
 * HAVE offered. */
static int on_from(struct xfer *x, struct recv_state *r,
		   const struct rp_from *m)
{
	struct recv_file *c = &r->cur;
	char shown[RP_PEER_TEXT_MAX];

	if (!c->open || !c->awaiting_from || m->id != c->meta.id ||
	    (m->offset && m->offset != c->have)) {
		RP_ERR("FROM %u at %" PRIu64 " from %s out of order", m->id,
		       m->offset, x->peer);
		return RP_EPROTO;
	}
	c->awaiting_from = false;
	if (c->err)
		return 0;
	if (c->have && !m->offset) {
		RP_INFO("%s: %s sends it whole; its kept partial is dropped",
			rp_fmt_peer(shown, sizeof(shown), c->meta.path,
				    c->meta.path_len), x->peer);
		offer_close(c);
		rp_partial_drop(c->parentfd, c->leaf);
	}
	c->err = create(x, r, m->offset);
	c->relay_seq = rp_relay_file(x, &c->meta, &c->dst, c->err, m->offset);
	return early_fack(x, r);
}

/* A FILE: a directory is made at once; a regular file becomes current
 * (if it cannot be opened, its chunks are dropped as they land). */
static int on_file(struct xfer *x, struct recv_state *r,
		   const struct rp_file *f)
{
	struct recv_file *c = &r->cur;

	if (c->open || f->id != r->next_id || r->fin_seen) {
		RP_ERR("FILE %u from %s out of order (expected %s%u)", f->id,
		       x->peer, c->open ? "FEND first, then " : "",
		       r->next_id);
		return RP_EPROTO;
	}
	r->next_id++;
	/* What this entry's FACK tells the sender, if it fails. */
	rp_trace_reason_start();
	if (f->kind == RP_FILE_DIR)
		return make_dir(x, r, f);
	*c = (struct recv_file){ .open = true, .meta = *f, .parentfd = -1,
				 .partial_fd = -1, .relay_seq = RP_FEED_NONE };
	rp_fileio_dst_init(&c->dst);
	if (f->want || f->update)
		return negotiate(x, r);
	c->err = open_file(x, r);
	c->relay_seq = rp_relay_file(x, &c->meta, &c->dst, c->err, 0);
	return early_fack(x, r);
}

/* Sync the file in steps, keeping the sender informed; then commit. */
static int sync_and_commit(struct xfer *x, struct recv_file *c)
{
	struct rp_sync s = { .id = c->meta.id, .total_bytes = c->bytes };
	double next = rp_now() + RP_SYNC_EVERY;
	bool done = false;
	int rc;

	while (!done) {
		if (rp_session_stop)
			return RP_EINTERRUPTED;
		s.synced_bytes = c->dst.synced;
		rc = rp_xfer_sync_due(x, &s, &next);
		if (rc)
			return rc;
		rc = rp_fileio_dst_sync(&c->dst, SYNC_STEP, &done);
		if (rc)
			return rc;
	}
	/* --update's differing copy is replaced, as with --force. */
	return rp_fileio_dst_commit(&c->dst, x->o->force || c->replace);
}

static int verify(struct xfer *x, struct recv_file *c)
{
	char a[33], b[33], shown[RP_PEER_TEXT_MAX];
	uint8_t sum[RP_CSUM_LEN];

	rp_csum_final(c->csum, sum);
	memcpy(x->rep.csum, sum, RP_CSUM_LEN);
	x->rep.have_csum = true;
	if (c->fend.bytes == RP_FEND_ABORTED) {
		RP_ERR("%s: %s could not read it to its end; dropped",
		       rp_fmt_peer(shown, sizeof(shown), c->meta.path,
				   c->meta.path_len), x->peer);
		return RP_EPEERABORT;
	}
	if (c->fend.bytes == c->bytes && !memcmp(c->fend.csum, sum,
						  RP_CSUM_LEN))
		return 0;
	RP_ERR("%s: integrity check failed: sender says %" PRIu64
	       " bytes xxh3_128 %s, we received %" PRIu64 " bytes "
	       "xxh3_128 %s", rp_fmt_peer(shown, sizeof(shown), c->meta.path,
					  c->meta.path_len),
	       c->fend.bytes, rp_csum_hex(c->fend.csum, a), c->bytes,
	       rp_csum_hex(sum, b));
	return RP_ECHECKSUM;
}

/* Files waiting for their sync, each holding its descriptor. */
static uint32_t files_waiting(const struct recv_state *r)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < RP_BATCHES; i++)
		n += r->batches[i].files;
	return n;
}

/* At the open-file limit's share, the oldest batch is answered first
 * (sent to its sync now if none is in flight). */
static int make_room(struct xfer *x, struct recv_state *r)
{
	int rc = 0;

	while (!rc && files_waiting(r) >= r->max_waiting) {
		if (!r->flying)
			rc = sync_behind(x, r);
		if (!rc)
			rc = reap(x, r, true);
	}
	return rc;
}

/* Of the open-file limit, what files waiting may hold. */
static uint32_t waiting_cap(void)
{
	unsigned long lim = rp_sys_nofile(0);
	unsigned long cap = lim > 2 * RP_FD_RESERVE ? lim - RP_FD_RESERVE
						    : lim / 2;

	return cap < RP_BATCHES * RP_BATCH_FILES ? (uint32_t)(cap ? cap : 1)
						 : RP_BATCHES * RP_BATCH_FILES;
}

/* A small verified file waits for the batch's sync; a full batch goes. */
static int stage(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	int err = make_room(x, r);

	if (err) {
		file_close(c);
		return err;
	}
	err = rp_batch_add(filling(r), &c->dst, c->meta.id, c->meta.path,
			   c->bytes, x->o->force || c->replace);
	file_close(c);
	if (err)
		return entry_done(x, r, &c->meta, err, 0);
	return rp_batch_full(filling(r)) ? sync_behind(x, r) : 0;
}

/* Data and FEND in: verify, commit (a small file: stage), answer. Only
 * a failure of the session (the control channel, a signal) is
 * returned. */
static int finish_file(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	int err = c->err;

	if (!err && c->meta.size != RP_SIZE_UNKNOWN &&
	    c->bytes != c->meta.size && c->fend.bytes != RP_FEND_ABORTED) {
		RP_ERR("%s sent %" PRIu64 " bytes of a %" PRIu64 "-byte "
		       "file", x->peer, c->bytes, c->meta.size);
		err = RP_ECHECKSUM;
	}
	if (!err)
		err = verify(x, c);
	/* Verified (or not): a relay sends it on from here. */
	rp_relay_end(x, c->relay_seq, err, c->fend.csum);
	c->relay_seq = RP_FEED_NONE;
	if (!err) {
		RP_EV("file", "file.verified", "checksum verified; sync, give "
		      "the file its name", EV_U("id", c->meta.id));
		if (c->meta.size != RP_SIZE_UNKNOWN && !c->dst.kept &&
		    rp_batch_takes(filling(r), c->bytes))
			return stage(x, r);
		err = sync_and_commit(x, c);
	}
	if (err == RP_EINTERRUPTED || err == RP_ECTRLCLOSED ||
	    err == RP_ETIMEOUT) {
		file_close(c);
		return err;
	}
	if (c->facked) {	/* told at once (early_fack) */
		file_close(c);
		return 0;
	}
	if (!err) {
		r->here.dirty = true;
	}
	file_close(c);
	return entry_done(x, r, &c->meta, err, c->bytes);
}

/* ---- the control channel in the session ---- */

static int on_fend(struct xfer *x, struct recv_state *r,
		   const struct rp_fend *f)
{
	struct recv_file *c = &r->cur;

	if (!c->open || c->fend_seen || f->id != c->meta.id) {
		RP_ERR("FEND %u from %s out of order", f->id, x->peer);
		return RP_EPROTO;
	}
	c->fend = *f;
	c->fend_seen = true;
	return 0;
}

static int on_fin(struct xfer *x, struct recv_state *r,
		  const struct rp_fin *f)
{
	if (r->cur.open || f->files != r->next_id) {
		RP_ERR("FIN from %s after %" PRIu64 " entr%s; we have %u%s",
		       x->peer, f->files, f->files == 1 ? "y" : "ies",
		       r->next_id, r->cur.open ? " and one unfinished" : "");
		return RP_EPROTO;
	}
	r->fin_seen = true;
	return 0;
}

/* One message from the sender: FILE, FEND, FIN (or its ERR). */
static int read_message(struct xfer *x, struct recv_state *r,
			union rp_msg *m, uint8_t *type)
{
	double t = rp_now();
	/* RECONNECT is refused as out of place with --retry-for 0. */
	uint32_t want = rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_FILES) &
			~rp_xfer_relink_refused(x);
	int rc;

	if (r->held_len) {
		*type = r->held[r->held_head].type;
		*m = r->held[r->held_head].m;
		r->held_head = (r->held_head + 1) % HELD_MAX;
		r->held_len--;
		return 0;
	}
	rc = rp_xfer_recv(x, want, m, "the next entry");
	/* A message we wait for is owed by the sender (--min-rate). */
	r->waited += rp_now() - t;
	*type = x->ch.got_type;
	return rc;
}

static int on_message(struct xfer *x, struct recv_state *r)
{
	union rp_msg m;
	uint8_t type;
	int rc = read_message(x, r, &m, &type);

	if (rc)
		return rc;
	switch (type) {
	case RP_MSG_FILE:
		return on_file(x, r, &m.file);
	case RP_MSG_FEND:
		return on_fend(x, r, &m.fend);
	case RP_MSG_FIN:
		return on_fin(x, r, &m.fin);
	case RP_MSG_RECONNECT:
		return rp_xfer_relink_got(x, &m.reconnect);
	case RP_MSG_FROM:
		return on_from(x, r, &m.from);
	}
	return RP_EINTERNAL;
}

/*
 * Credit is cumulative: when the send queue is full, a later Send
 * carries the newer count. While the sender's messages wait to be read
 * it is given in steps of a quarter of the ring (a Send per small file
 * cost about as much as the file); now, before we wait for anything.
 */
static int give_credit(struct xfer *x, struct recv_state *r, bool now)
{
	int rc = x->ops->recv_refill ? x->ops->recv_refill(x) : 0;
	uint32_t step = x->window / 4 ? x->window / 4 : 1;

	if (rc || r->credit_sent == x->done || r->sends_out >= r->sq_cap)
		return rc;
	if (!now && r->credit_sent != UINT64_MAX &&
	    x->done - r->credit_sent < step)
		return 0;
	rc = rp_verbs_post_send_imm(x->v, 0, x->done, (uint32_t)x->done);
	if (rc)
		return rc;
	r->credit_sent = x->done;
	r->sends_out++;
	x->credits++;
	return 0;
}

/*
 * In a worker, or inline for a small chunk. When the op lets the peer
 * write into the slot (--op write), it stays remotely writable: hashing
 * it and then writing it could hash one version and write another.
 * Copy it out once; what is hashed is then exactly what is written, and
 * the slot can be credited before the hash and the disk write. Otherwise (--op read and send)
 * nothing remote can write into our ring (only our own Reads, and
 * receives we post once a slot is credited): hash and write straight
 * from the slot, which is credited once written.
 */
static void chunk_job(struct rp_job *j, void *scratch)
{
	struct landed *l = (struct landed *)j;
	const uint8_t *p = l->slot;

	if (l->copy) {
		memcpy(scratch, l->slot, l->put.len);
		p = scratch;
		atomic_store_explicit(&l->state, CHUNK_COPIED,
				      memory_order_release);
		if (l->pool)
			rp_pool_notify(l->pool);
	}
	rp_csum_chunk(p, l->put.len, l->digest);
	rp_fileio_dst_put(&l->put, p);
	atomic_store_explicit(&l->state, CHUNK_DONE, memory_order_release);
}

/* Hand the chunk in the ring at off to a worker; a chunk of a failed
 * file, or an empty one, is done at once. */
static void submit_chunk(struct xfer *x, struct recv_state *r, size_t off,
			 uint32_t len)
{
	struct recv_file *c = &r->cur;
	struct landed *l = &r->rec[r->landed % r->nrec];

	l->written = false;
	if (len && !c->err) {
		c->err = rp_fileio_dst_put_prepare(&c->dst, &l->put, c->bytes,
						   len);
		l->written = !c->err;
	}
	if (!l->written) {
		atomic_store_explicit(&l->state, CHUNK_DONE,
				      memory_order_relaxed);
		return;
	}
	l->job.run = chunk_job;
	l->pool = x->pool;
	l->slot = x->ring + off;
	l->copy = x->ops->recv_copies;
	atomic_store_explicit(&l->state, CHUNK_QUEUED, memory_order_relaxed);
	if (len <= RP_INLINE_MAX) {
		l->pool = NULL;
		chunk_job(&l->job, r->inline_buf);
		return;
	}
	rp_pool_submit(x->pool, &l->job);
}

static int chunk_state(const struct recv_state *r, uint64_t n)
{
	return atomic_load_explicit(&r->rec[n % r->nrec].state,
				    memory_order_acquire);
}

/* Credit the slots copied out, in order; a record is reused only once
 * folded, so credit stays within window of the records folded. */
static void advance_credit(struct xfer *x, struct recv_state *r)
{
	while (x->done < r->landed && x->done < r->folded + x->window &&
	       (x->done < r->folded ||
		chunk_state(r, x->done) >= CHUNK_COPIED))
		x->done++;
}

/* A written chunk, in order: its digest into the file's checksum, its
 * write accounted (or its failure reported, and the file failed). */
static void fold(struct recv_state *r, struct landed *l)
{
	struct recv_file *c = &r->cur;
	int rc;

	if (!l->written || c->err)
		return;
	rc = rp_fileio_dst_put_done(&c->dst, &l->put);
	if (rc) {
		c->err = rc;
	} else {
		rp_csum_fold(c->csum, l->digest);
		c->folded += l->put.len;
	}
}

/* A file written under its partial's name: its journal follows what is
 * on disk, so that even a receiver killed outright leaves it usable. */
static void note_partial(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	uint64_t upto = c->dst.synced < c->folded ? c->dst.synced : c->folded;

	if (!c->open || c->err || !c->dst.kept ||
	    upto < c->noted + RP_PARTIAL_NOTE_STEP)
		return;
	if (!rp_recv_note_partial(c->parentfd, c->leaf, &c->meta, x->chunk,
				  c->dst.synced, c->folded, c->csum,
				  r->key_id))
		c->noted = upto;
}

/* Take what the workers finished: credit, then fold, in order. */
static int harvest(struct xfer *x, struct recv_state *r)
{
	int rc = 0;

	advance_credit(x, r);
	while (r->folded < r->landed &&
	       chunk_state(r, r->folded) == CHUNK_DONE) {
		struct landed *l = &r->rec[r->folded % r->nrec];

		fold(r, l);
		atomic_store_explicit(&l->state, CHUNK_FREE,
				      memory_order_relaxed);
		r->folded++;
	}
	advance_credit(x, r);
	if (r->cur.open)
		rp_relay_progress(x, r->cur.relay_seq, r->cur.folded);
	note_partial(x, r);
	if (r->cur.open)
		rc = early_fack(x, r);
	return rc ? rc : give_credit(x, r, false);
}

/* Every chunk landed so far written and folded: the current file can be
 * judged. Credit keeps flowing meanwhile. */
static int drain(struct xfer *x, struct recv_state *r)
{
	int rc = harvest(x, r);

	while (!rc && r->folded < r->landed) {
		rc = rp_xfer_pool_wait(x, "writing the chunks received");
		if (!rc)
			rc = harvest(x, r);
	}
	return rc;
}

/*
 * Settle the current file if its data and FEND are both in; a chunk
 * that lands for the next file makes us read the control channel up to
 * that file's FILE (it was sent before its first chunk).
 */
static int settle(struct xfer *x, struct recv_state *r, bool need_file)
{
	int rc = 0;

	while (!rc) {
		struct recv_file *c = &r->cur;

		if (c->open && c->data_done && c->fend_seen) {
			rc = drain(x, r);
			if (!rc)
				rc = finish_file(x, r);
		}
		else if ((c->open && c->data_done) || (!c->open && need_file &&
						       !r->fin_seen) ||
			 (c->open && c->awaiting_from && need_file))
			rc = on_message(x, r);
		else
			break;
	}
	if (!rc && need_file && !r->cur.open) {
		RP_ERR("a chunk from %s landed after FIN", x->peer);
		return RP_EPROTO;
	}
	return rc;
}

static int check_chunk(struct xfer *x, const struct recv_state *r,
		       uint32_t imm, uint32_t len, bool last)
{
	const struct recv_file *c = &r->cur;
	uint32_t seq = imm & RP_IMM_SEQ;
	uint64_t left = c->meta.size - c->bytes;

	if (seq != (uint32_t)(r->landed & RP_IMM_SEQ) || len > x->chunk ||
	    (!last && len != x->chunk)) {
		RP_ERR("chunk out of order or size from %s: got #%u of %u "
		       "bytes, expected #%" PRIu64 " of %s%u bytes", x->peer,
		       seq, len, r->landed & RP_IMM_SEQ,
		       last ? "up to " : "", x->chunk);
		return RP_EPROTO;
	}
	/* Once told it failed, the sender may end the file early; and it
	 * ends one it could not read to its end (its source shrank, a
	 * relay's upstream failed) with an empty last chunk: its FEND then
	 * says aborted, which finish_file() holds it to. */
	if (c->meta.size != RP_SIZE_UNKNOWN && !c->facked &&
	    !(len == 0 && last) &&
	    (len > left || last != (len == left))) {
		RP_ERR("chunk from %s does not fit its file: %u bytes with "
		       "%" PRIu64 " to go%s", x->peer, len, left,
		       last ? " (marked last)" : "");
		return RP_EPROTO;
	}
	return 0;
}

/* A chunk is in the ring's next slot: len bytes, imm its number and
 * RP_IMM_END (as a Write's or Send's immediate says). */
static int land_chunk(struct xfer *x, struct recv_state *r, uint32_t imm,
		      uint32_t len)
{
	struct recv_file *c = &r->cur;
	bool last = imm & RP_IMM_END;
	size_t off = xfer_slot_off(x, r->landed);
	int rc = settle(x, r, true);

	if (!rc)
		rc = check_chunk(x, r, imm, len, last);
	if (rc)
		return rc;
	if (!c->err && x->o->max_size && c->bytes + len > x->o->max_size) {
		char shown[RP_PEER_TEXT_MAX];

		RP_ERR("%s: the stream from %s passes this receiver's "
		       "--max-size of %" PRIu64 " bytes at %" PRIu64 " bytes",
		       rp_fmt_peer(shown, sizeof(shown), c->meta.path,
				   c->meta.path_len),
		       x->peer, x->o->max_size, c->bytes + len);
		c->err = RP_ELIMIT;
	}
	submit_chunk(x, r, off, len);
	xfer_data_seen(x);
	r->landed++;
	c->bytes += len;
	r->tally.landed += len;
	c->data_done = last;
	return early_fack(x, r);
}

/*
 * Chunk n's bytes are in its slot (n from the QP it came on: chunk n
 * goes on QP n % qps, in order there). Land it, and those that came
 * early behind it, in the session's order. Within credit, no two wait.
 */
int rp_op_recv_arrive(struct xfer *x, struct recv_state *r, uint64_t n,
		      uint32_t imm, uint32_t len)
{
	int rc = 0;

	if (n < r->landed || n >= x->done + x->window ||
	    !rp_order_put(&r->order, n, imm, len)) {
		RP_ERR("chunk #%" PRIu64 " from %s beyond its credit (%" PRIu64
		       " landed, %" PRIu64 " credited)", n, x->peer,
		       r->landed, x->done);
		return RP_EPROTO;
	}
	while (!rc && rp_order_take(&r->order, r->landed, &imm, &len))
		rc = land_chunk(x, r, imm, len);
	return rc;
}

uint64_t rp_op_recv_next_on(struct recv_state *r, uint32_t qp)
{
	return rp_order_next_on(&r->order, qp);
}

/* Our credit Sends complete here; everything else is the op's. */
static int handle_wc(struct xfer *x, struct recv_state *r,
		     const struct rp_wc *wc)
{
	if (wc->op == RP_WC_SEND) {
		r->sends_out--;
		return give_credit(x, r, false);
	}
	return x->ops->recv_wc(x, r, wc);
}

/* The control channel has something we can take now: a FILE or FIN
 * between files, a FEND (or an ERR) while a file's chunks land. */
static bool want_message(const struct recv_state *r)
{
	return !r->cur.open ? !r->fin_seen : !r->cur.fend_seen;
}

/* What the sender has moved, for --min-rate: its data, and each entry
 * as one page, so that a tree of small files is judged by its entries
 * as well as its bytes. */
static uint64_t moved(const struct recv_state *r)
{
	return r->tally.landed + (uint64_t)r->next_id * RP_MIN_CHUNK;
}

/*
 * A slot held by a sender trickling a chunk per --timeout is ended:
 * over each span of RP_MIN_RATE_SECS (min_rate_secs) spent waiting for
 * the sender, it must have moved --min-rate a second. Only the waits
 * that are the sender's count: for its next message, or for completions
 * while it held unused credit. Not the time we spent on our own work
 * (writes, syncs), nor waits with every slot landed and not yet
 * credited: when this receiver is the bottleneck, the sender is not at
 * fault. A few additions a wake-up.
 */
static int check_rate(struct xfer *x, struct recv_state *r)
{
	double span = r->waited - r->rate_w0;
	double secs = x->o->min_rate_secs > 0 ? x->o->min_rate_secs :
		      RP_MIN_RATE_SECS;
	uint64_t bytes = moved(r) - r->rate_b0;

	if (!x->o->min_rate || span < secs)
		return 0;
	if ((double)bytes < (double)x->o->min_rate * span) {
		RP_ERR("%s sent %.1f KiB in the last %.3g s (%.1f KiB/s), "
		       "below --min-rate %.1f KiB/s: ending the transfer",
		       x->peer, bytes / 1024.0, span, bytes / 1024.0 / span,
		       x->o->min_rate / 1024.0);
		return RP_ELIMIT;
	}
	r->rate_w0 = r->waited;
	r->rate_b0 = moved(r);
	return 0;
}

/*
 * The next message is the sender's RECONNECT, or one it sent before
 * (the rest of this file's, the next files', FIN), kept in its order
 * for when we can take it: a file's chunks must land before the next
 * FILE is taken, and they come only once the link is back.
 */
static int await_reconnect(struct xfer *x, struct recv_state *r)
{
	struct held_msg *h;
	int rc;

	if (!r->held) {
		rc = rp_sys_calloc(&r->held, HELD_MAX, sizeof(*r->held),
				   "messages read ahead");
		if (rc)
			return rc;
	}
	if (r->held_len == HELD_MAX) {
		RP_ERR("%s sent more than %u messages ahead of its RECONNECT",
		       x->peer, HELD_MAX);
		return RP_EPROTO;
	}
	h = &r->held[(r->held_head + r->held_len) % HELD_MAX];
	rc = rp_xfer_recv(x, rp_msg_expect(RP_SIDE_SENDER, RP_STAGE_FILES),
			  &h->m, "a RECONNECT");
	if (rc)
		return rc;
	h->type = x->ch.got_type;
	if (h->type == RP_MSG_RECONNECT)
		return rp_xfer_relink_got(x, &h->m.reconnect);
	r->held_len++;
	return 0;
}

/*
 * The link went away (we saw it, or the sender's RECONNECT says so):
 * fresh QPs and the receives the op needs from the first chunk not
 * landed on (what had arrived past it comes again), RECONNECT both ways
 * (the side that answers connects first), then our credit again: the
 * last one may have been lost with the old QPs.
 */
static int relink(struct xfer *x, struct recv_state *r)
{
	bool answer = x->rl.got;
	int rc = rp_xfer_relink_begin(x);

	if (!rc) {
		rp_order_restart(&r->order, r->landed);
		x->ost.recvs = r->landed;
		r->sends_out = 0;
		rc = x->ops->recv_arm(x);
	}
	if (!rc && answer)
		rc = rp_xfer_relink_connect(x);
	if (!rc)
		rc = rp_xfer_relink_send(x, r->landed);
	while (!rc && !answer && !x->rl.got)
		rc = await_reconnect(x, r);
	if (!rc && !answer)
		rc = rp_xfer_relink_connect(x);
	if (rc)
		return rc;
	r->credit_sent = UINT64_MAX;	/* none posted on these QPs */
	return give_credit(x, r, true);
}

static int session_loop(struct xfer *x, struct recv_state *r)
{
	struct rp_wc wc[16];
	int rc = 0;

	rp_progress_start(&r->prog, x->size);
	x->prog = &r->prog;
	x->ch.batch = true;
	while (!rc && !(r->fin_seen && !r->cur.open &&
			x->done == r->landed && r->credit_sent == x->done)) {
		/* The sender may still send: the wait is on it. */
		bool owed = r->landed < r->credit_sent + x->window;
		double t;

		rc = behind(x, r);
		if (rc)
			break;
		/* Nothing to take now: what we owe goes before we wait
		 * (the files waiting to their sync, all the credit). */
		if (((filling(r)->n && !r->flying) ||
		     r->credit_sent != x->done) && !rp_xfer_ctrl_now(x)) {
			rc = sync_behind(x, r);
			if (!rc)
				rc = give_credit(x, r, true);
			if (rc)
				break;
		}
		/* The batch syncing behind us owes the sender a SYNC. */
		x->wake = r->flying ? oldest(r)->next_sync : 0;
		t = rp_now();

		/* Not reading the control channel, we would not see a
		 * RECONNECT: look at the link ourselves now and then. */
		x->rl.probe = x->o->retry_for > 0 && !want_message(r) &&
			      owed ? t + PROBE_SECS : 0;
		rc = rp_xfer_next(x, wc, 16, rp_xfer_deadline(x),
				   want_message(r));
		if (owed)
			r->waited += rp_now() - t;
		rp_xfer_link_seen(x, wc, rc);
		/* Our credit again: a dead link fails it, and we know. */
		if (!rc && x->rl.probe && rp_now() >= x->rl.probe &&
		    !r->sends_out)
			r->credit_sent = UINT64_MAX;
		if (rc == 0 && want_message(r) && rp_xfer_ctrl_ready(x)) {
			rc = on_message(x, r);
		} else if (rc > 0) {
			int n = rc;

			rc = 0;
			for (int i = 0; !rc && i < n; i++)
				rc = handle_wc(x, r, &wc[i]);
		}
		if ((!rc && x->rl.got) || rp_xfer_link_lost(x, rc))
			rc = relink(x, r);
		/* Credit once per wake: it is cumulative. */
		if (!rc)
			rc = harvest(x, r);
		if (!rc)
			rc = settle(x, r, false);
		/* settle() may have read the sender's RECONNECT. */
		if (!rc && x->rl.got)
			rc = relink(x, r);
		/* What was read past for a RECONNECT, in its turn. */
		while (!rc && r->held_len && want_message(r))
			rc = on_message(x, r);
		if (!rc)
			rc = check_rate(x, r);
		rp_progress_update(&r->prog, r->tally.landed);
		rp_session_progress(x, r->tally.landed);
	}
	x->wake = 0;
	/* FIN is in: the last files waiting are answered before ACK. */
	if (!rc)
		rc = flush(x, r);
	rp_progress_end(&r->prog);
	return rc;
}

/* FIN: the directories with new entries reach the disk, directories
 * kept by --preserve get their times (innermost first), then ACK. */
static int close_session(struct xfer *x, struct recv_state *r)
{
	struct rp_result ack = { .status = RP_ST_OK, .bytes = r->tally.bytes };
	int rc, down_rc;

	rp_fileio_here_leave(&r->here);
	rc = r->here.sync_err;

	if (!rc)
		rc = rp_fileio_times_apply(&r->times, r->dirfd);
	/* A relay answers once its downstream is done too. */
	if (!rc)
		rc = rp_relay_close(x, &down_rc);
	if (rc)
		return rc;
	rp_verbs_dereg_ring(x->v);
	x->ring = NULL;
	RP_EV("data", "data.end", "session over: {chunks} chunk{chunks:|s} "
	      "landed; ring deregistered", EV_U("chunks", x->done));
	rp_xfer_phase(x, RP_PHASE_ACK);
	rc = rp_chan_send(&x->ch, RP_MSG_ACK, &ack);
	return rc ? rc : rp_xfer_flush(x);
}

/* The handshake is over: ask for a transfer slot; --timeout from here. */
static int admit(struct xfer *x, const struct rp_admission *adm)
{
	int rc = adm ? adm->admit(adm->ctx, x->peer) : 0;

	if (!rc)
		x->ch.handshake_end = 0;
	return rc;
}

static int run(struct xfer *x, struct recv_state *r,
	       const struct rp_admission *adm)
{
	struct rp_hello h;
	int rc = rp_xfer_start(x, false);

	if (rc)
		return rc;
	rc = rp_recv_hello(x, &h);
	if (!rc)
		rc = admit(x, adm);
	if (rc)
		return rc;
	rp_xfer_phase(x, RP_PHASE_SETUP);
	rc = accept_hello(x, r, &h);
	/* Our shape is agreed: the push goes on along the chain with it. */
	if (!rc && rp_xfer_relays(x))
		rc = rp_relay_open(x, x->chain.hop, x->chain.n,
				   r->flags & RP_HELLO_PRESERVE);
	if (rc)
		return rc;
	rp_xfer_phase(x, RP_PHASE_DATA);
	rc = session_loop(x, r);
	if (rc)
		return rc;
	rp_xfer_trace_data_summary(x, r->tally.landed, r->tally.ok + r->tally.failed);
	rp_xfer_phase(x, RP_PHASE_FIN);
	return close_session(x, r);
}

/*
 * The session stopped mid-file for a cause of its own (the sender gone,
 * a signal, a deadline), not the file's: keep the chunks of it written
 * and folded, in order, for a --resume (no worker runs any more).
 */
static void keep_partial(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;

	if (!c->open || c->err || c->awaiting_from || x->o->no_partials ||
	    c->meta.size == RP_SIZE_UNKNOWN || !r->rec)
		return;
	while (r->folded < r->landed &&
	       chunk_state(r, r->folded) == CHUNK_DONE) {
		fold(r, &r->rec[r->folded % r->nrec]);
		r->folded++;
	}
	if (!c->err)
		(void)rp_recv_keep_partial(c->parentfd, c->leaf, &c->dst,
					   &c->meta, x->chunk, c->folded,
					   c->csum, r->key_id);
}

static void release(struct recv_state *r)
{
	if (r->cur.open)
		file_close(&r->cur);
	for (unsigned i = 0; i < RP_BATCHES; i++) {
		rp_batch_free(&r->batches[i]);
		leave_dirs(r, i);
	}
	/* Entries already committed stay: sync what we can. */
	rp_fileio_here_leave(&r->here);
	rp_fileio_times_free(&r->times);
	rp_order_free(&r->order);
	free(r->rec);
	free(r->inline_buf);
	free(r->held);
}

int rp_session_recv_one(const struct rp_config *o, const uint8_t *psk,
			int dirfd, int fd, const char *peer,
			const struct rp_admission *adm,
			struct rp_outcome *out)
{
	struct xfer x = {
		.o = o, .epfd = -1, .rep = { .role = "recv" },
		.start = rp_now(),
	};
	struct recv_state r = { .dirfd = dirfd, .here = { .fd = -1 },
				.naming = PTHREAD_MUTEX_INITIALIZER };
	int rc;

	for (unsigned i = 0; i < RP_BATCHES; i++)
		r.batches[i].naming = &r.naming;
	r.max_waiting = waiting_cap();
	r.umask = umask(0);
	umask(r.umask);
	rp_chan_init(&x.ch, fd, x.peer, "transfer", RP_SIDE_SENDER, psk,
		     o->timeout);
	x.ch.start = x.start;
	x.ch.reason_wait = o->reason_wait_secs;
	x.ch.handshake_end = x.start + rp_session_handshake_secs(o);
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	/* The sender hears why we stop in our words, not only a status. */
	rp_trace_reason_start();
	if (psk)
		rp_auth_key_id(psk, r.key_id);
	rc = run(&x, &r, adm);
	if (rc)
		rp_chan_refuse(&x.ch, RP_MSG_ERR, rc);
	/* No worker may still write into a file or read the ring. */
	rp_xfer_stop_pool(&x);
	if (rc)
		keep_partial(&x, &r);
	rp_relay_free(&x);
	release(&r);
	if (!rc && r.tally.failed) {
		rp_xfer_phase(&x, RP_PHASE_DONE);
		rc = r.tally.first_err;
	}
	x.tally = r.tally;
	rp_xfer_report(&x, rc, out);
	rp_xfer_release(&x);
	return rc;
}
