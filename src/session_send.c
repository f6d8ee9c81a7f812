// SPDX-License-Identifier: MIT
/* The sender's state machine: connect, HELLO, MR, RTR/RTS once; then for
 * each source entry FILE, its chunks under the receiver's credit (RDMA
 * Writes with immediate, Sends, or announcements the receiver answers
 * with RDMA Reads: --op), FEND; FIN; the receiver's FACKs and ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/partial.h"
#include "rdmapush/pool.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "rdmapush/walk.h"
#include "session_int.h"

/*
 * Entries sent whose FACK has not come back: four of the receiver's
 * batches of small files (RP_BATCH_FILES), so that files keep coming
 * while batches sync and link (two in flight left the disk's latency
 * the bound: 18% slower on a tree of 100,000 files of 1 KiB). Capped so
 * that the FACKs the receiver may owe us (at most about 330 bytes each)
 * always fit in the control socket's buffers, its send buffer and our
 * receive buffer (RP_CTRL_SOCKBUF each, asked for by both ends): it can
 * never block sending one while we block sending to it.
 */
#define MAX_PENDING	(4u * RP_BATCH_FILES)
_Static_assert(MAX_PENDING * 330u <= 2u * RP_CTRL_SOCKBUF,
	       "the FACKs owed must fit in the control socket's buffers");

/*
 * Files whose FILE and FEND share one write to the control socket. One
 * write each was a TCP segment, a virtio kick and a wake-up of the
 * receiver per small file; eight keep the receiver fed as well (it has
 * the chunks of many more in its ring). Whatever is queued goes before
 * any wait (rp_xfer_next), so nothing waits for them.
 */
#define FEND_BATCH	8u

struct pending {
	uint32_t id;
	bool failed_here;	/* we already reported it (a read error) */
	uint64_t size;		/* bytes sent */
	char *path;
};

/*
 * A chunk read into its ring slot (chunk n into slot n % window) and
 * hashed by a worker, waiting to be posted in order.
 */
enum { READ_FREE, READ_QUEUED, READ_DONE };

struct readout {
	struct rp_job job;	/* first: the job is its record */
	int fd;
	uint32_t align;		/* the source's O_DIRECT unit, or 0 */
	uint8_t *buf;		/* the slot */
	uint32_t len;
	uint64_t off;
	bool last;		/* the file's last chunk */
	int err;		/* 0, or as rp_fileio_src_pread() */
	bool reported;		/* err was reported already (standard input) */
	uint8_t digest[RP_CSUM_LEN];
	_Atomic int state;
};

/* The regular file (or standard input) whose chunks go out now. */
struct cur_src {
	bool open;
	bool is_stdin;
	uint32_t id;
	/* Its entry, until its FACK: the receiver refuses a file as soon
	 * as it can (then p is NULL), and we stop sending it. */
	struct pending *p;
	bool failed;		/* we could not read it (reported) */
	struct rp_src src;
	uint64_t size;		/* RP_SIZE_UNKNOWN for standard input */
	uint64_t off;		/* bytes read and posted */
	uint64_t queued;	/* bytes handed to the workers to read */
	bool all_queued;	/* its last chunk is queued */
	struct rp_csum *csum;
	/* --resume or --update: its FILE asked; no chunk before HAVE. */
	bool negotiating;
	bool fed;		/* a relay's: read as far as the feed says */
};

/* A relay hop's upstream, as a source: the feed's first entry is the
 * one being sent (held) until the next is asked for. */
struct feed_src {
	struct rp_feed *f;
	bool holding;
	struct rp_feed_entry now;	/* the first entry, as last looked */
};

struct send_state {
	struct rp_entry_src src;	/* where the entries come from */
	struct feed_src *fed;	/* src's, on a relay hop; else NULL */
	bool starved;		/* the feed has no entry yet: wait */
	uint64_t posted;	/* writes posted, in the whole session */
	uint64_t queued;	/* chunks queued to be read (>= posted) */
	struct readout *rd;	/* window records, one per ring slot */
	uint64_t written;	/* write completions seen */
	struct cur_src cur;
	struct pending q[MAX_PENDING];
	uint32_t qhead, qlen;
	uint32_t next_id;	/* FILEs sent so far */
	uint32_t unflushed;	/* FENDs queued since post_chunk last flushed */
	uint64_t bytes;		/* data bytes posted */
	struct rp_tally tally;
	bool walk_done, fin_sent, acked;
	struct rp_progress prog;
	uint8_t psk[RP_PSK_LEN];
};

/* ---- entries awaiting their FACK ---- */

static struct pending *pending_push(struct send_state *s, const char *path,
				    uint32_t id)
{
	struct pending *p = &s->q[(s->qhead + s->qlen) % MAX_PENDING];

	*p = (struct pending){ .id = id, .path = strdup(path) };
	if (!p->path) {
		RP_ERR("strdup: %s", strerror(ENOMEM));
		return NULL;
	}
	s->qlen++;
	return p;
}

static void pending_pop(struct send_state *s)
{
	free(s->q[s->qhead].path);
	s->q[s->qhead].path = NULL;
	s->qhead = (s->qhead + 1) % MAX_PENDING;
	s->qlen--;
}

/* Forget the entry pushed last (the current file's): no FACK will come
 * for it. */
static void pending_drop_last(struct send_state *s)
{
	struct pending *p = &s->q[(s->qhead + s->qlen - 1) % MAX_PENDING];

	free(p->path);
	p->path = NULL;
	s->qlen--;
	s->cur.p = NULL;
}

static void pending_clear(struct send_state *s)
{
	while (s->qlen)
		pending_pop(s);
}

/* ---- control messages of the session ---- */

/* FILE for e; for a regular file, with what it asks (want, update and
 * its digest when update checks it: csum, else NULL). */
static int send_file_msg(struct xfer *x, struct send_state *s,
			 const struct rp_walk_entry *e, uint8_t kind,
			 uint64_t size, uint8_t want, uint8_t update,
			 const uint8_t *csum)
{
	struct rp_file f = {
		.id = s->next_id, .kind = kind, .mode = (uint16_t)e->mode,
		.size = size, .mtime_sec = e->mtime_sec,
		.mtime_nsec = e->mtime_nsec,
		.path_len = (uint16_t)strlen(e->path),
		.want = want, .update = update,
	};
	int rc;

	memcpy(f.path, e->path, f.path_len + 1u);
	if (csum)
		memcpy(f.csum, csum, RP_CSUM_LEN);
	rc = rp_chan_send(&x->ch, RP_MSG_FILE, &f);
	if (!rc)
		s->next_id++;
	return rc;
}

/* origin: a relayed file's digest, as the origin sent it, or NULL. */
static int send_fend(struct xfer *x, struct cur_src *c, const uint8_t *origin)
{
	struct rp_fend f = { .id = c->id, .bytes = c->off };

	/* Not all of it was sent: the receiver must drop it. */
	if (c->failed || !c->p)
		f.bytes = RP_FEND_ABORTED;
	rp_csum_final(c->csum, f.csum);
	/* Relayed: the origin's digest, checked end to end downstream. */
	if (origin)
		memcpy(f.csum, origin, RP_CSUM_LEN);
	memcpy(x->rep.csum, f.csum, RP_CSUM_LEN);
	x->rep.have_csum = true;
	return rp_chan_send(&x->ch, RP_MSG_FEND, &f);
}

static int send_fin(struct xfer *x, struct send_state *s)
{
	struct rp_fin fin = { .files = s->next_id, .bytes = s->bytes };

	s->fin_sent = true;
	rp_xfer_phase(x, RP_PHASE_FIN);
	return rp_chan_send(&x->ch, RP_MSG_FIN, &fin);
}

/* ---- the current source ---- */

static void cur_close(struct cur_src *c)
{
	if (!c->is_stdin)
		rp_fileio_src_close(&c->src);
	c->src.fd = -1;
	rp_csum_free(c->csum);
	c->csum = NULL;
	c->open = false;
}

/*
 * FILE for the current source. With --resume or --update (not for
 * standard input, read once), it asks, and waits for HAVE; --update's
 * checksum level hashes the file here first. 1: the file could not be
 * read for that (reported, counted); go on.
 */
static int announce(struct xfer *x, struct send_state *s,
		    const struct rp_walk_entry *e)
{
	struct cur_src *c = &s->cur;
	uint8_t want = 0, update = 0, sum[RP_CSUM_LEN];
	int rc;

	if (!c->is_stdin) {
		want = x->o->resume ? RP_WANT_RESUME : 0;
		update = x->o->update;
	}
	if (update == RP_UPDATE_CHECKSUM) {
		rc = rp_partial_digest(c->src.fd, c->size, x->chunk, e->src,
				       NULL, sum);
		if (rc) {
			pending_drop_last(s);
			rp_xfer_entry(x, &s->tally, e->path, 0, rc, NULL);
			return 1;
		}
	}
	c->negotiating = want || update;
	return send_file_msg(x, s, e, RP_FILE_REG, c->size, want, update,
			     update == RP_UPDATE_CHECKSUM ? sum : NULL);
}

/* Open a regular file or standard input and announce it. A source that
 * cannot be opened fails alone: 1 means "nothing to send, go on". */
static int cur_open(struct xfer *x, struct send_state *s,
		    const struct rp_walk_entry *e)
{
	struct cur_src *c = &s->cur;
	struct rp_walk_entry sent = *e;
	int rc;

	*c = (struct cur_src){ .src = { .fd = -1 } };
	c->is_stdin = e->kind == RP_WALK_STDIN;
	if (c->is_stdin) {
		c->src.fd = x->o->stdin_fd;
		c->size = RP_SIZE_UNKNOWN;
	} else {
		rc = s->src.open(s->src.ctx, e, &c->src);
		if (rc) {
			rp_xfer_entry(x, &s->tally, e->path, 0, rc, NULL);
			return 1;
		}
		c->size = c->src.size;
		c->fed = s->fed != NULL;
		/* The file we hold is what goes, as it is now. */
		sent.mode = c->src.mode;
		sent.mtime_sec = c->src.mtime_sec;
		sent.mtime_nsec = c->src.mtime_nsec;
		rp_fileio_src_direct(&c->src, e->src, &x->dio);
	}
	rc = rp_csum_new(&c->csum);
	if (!rc) {
		c->id = s->next_id;
		c->p = pending_push(s, e->path, s->next_id);
		rc = c->p ? announce(x, s, &sent) : -ENOMEM;
	}
	if (rc) {
		cur_close(c);
		return rc > 0 ? 1 : rc;
	}
	RP_EV("file", "file.send", "sending {path} ({what})",
	      EV_S("path", e->src), EV_U("id", c->id),
	      EV_S("what", c->is_stdin ? "standard input, size known at its "
		   "end" : "regular file"));
	rp_progress_label(&s->prog, e->path);
	c->open = true;
	return 0;
}

/*
 * The next entry from the walk: a directory is announced at once, a
 * regular file becomes the current source, the rest are counted.
 */
static int next_entry(struct xfer *x, struct send_state *s)
{
	struct rp_walk_entry e;
	const char *why = NULL;
	int rc = s->src.next(s->src.ctx, &e);

	if (rc == -EAGAIN) {
		s->starved = true;	/* a relay's upstream is behind */
		return 0;
	}
	if (rc <= 0) {
		s->walk_done = rc == 0;
		return rc;
	}
	if (e.kind != RP_WALK_ERROR && e.kind != RP_WALK_SKIP &&
	    rp_fileio_check_path(e.path, strlen(e.path), &why)) {
		RP_ERR("cannot send %s as \"%s\": %s", e.src, e.path, why);
		rp_xfer_entry(x, &s->tally, e.path, 0, RP_EBADNAME, NULL);
		return 0;
	}
	switch (e.kind) {
	case RP_WALK_DIR:
		/* Not followed if swapped for a link since it was listed. */
		rc = s->src.recheck(s->src.ctx, &e);
		if (rc) {
			rp_xfer_entry(x, &s->tally, e.path, 0, rc, NULL);
			return 0;
		}
		if (!pending_push(s, e.path, s->next_id))
			return -ENOMEM;
		return send_file_msg(x, s, &e, RP_FILE_DIR, 0, 0, 0, NULL);
	case RP_WALK_FILE:
	case RP_WALK_STDIN:
		rc = cur_open(x, s, &e);
		return rc > 0 ? 0 : rc;
	case RP_WALK_SKIP:
		RP_INFO("skipping %s: %s", e.src, e.why);
		rp_xfer_entry(x, &s->tally, e.path, 0, 0, e.why);
		return 0;
	case RP_WALK_ERROR:
		/* No receiver path for a bad command-line source. */
		rp_xfer_entry(x, &s->tally, e.path ? e.path : e.src, 0, e.err,
			   NULL);
		return 0;
	case RP_WALK_KIND_MAX:
		break;
	}
	return RP_EINTERNAL;
}

/* Fill buf from standard input: *got < len only at its end. */
static int read_stream(int fd, uint8_t *buf, uint32_t len, uint32_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, buf + *got, len - *got);

		if (n < 0 && errno == EINTR && !rp_session_stop)
			continue;
		if (n < 0 && errno == EINTR)
			return RP_EINTERRUPTED;
		if (n < 0) {
			int e = errno;

			RP_ERR("read(standard input): %s", strerror(e));
			return -e;
		}
		if (n == 0)
			break;
		*got += (uint32_t)n;
	}
	return 0;
}

/* In a worker (or inline, a small one): read a chunk of a regular file
 * into its slot, hash it. */
static void read_job(struct rp_job *j, void *scratch)
{
	struct readout *r = (struct readout *)j;

	(void)scratch;
	r->err = rp_fileio_src_pread(r->fd, r->buf, r->len, r->off, r->align);
	if (!r->err)
		rp_csum_chunk(r->buf, r->len, r->digest);
	atomic_store_explicit(&r->state, READ_DONE, memory_order_release);
}

static int read_state(const struct xfer *x, const struct send_state *s,
		      uint64_t n)
{
	return atomic_load_explicit(&s->rd[n % x->window].state,
				    memory_order_acquire);
}

/* A slot is free when our write from it completed and the receiver
 * has drained it (its credit). */
static bool slot_free(const struct xfer *x, const struct send_state *s,
		      uint64_t seq)
{
	return seq < x->done + x->window && seq < s->written + x->window;
}

/*
 * Standard input, on this thread: a pipe is read in order anyway, and a
 * read that a worker could not leave on SIGINT must not hold the session.
 * What we queued (this stream's FILE) goes first: a producer may keep us
 * here a while.
 */
static void read_stdin(struct xfer *x, struct cur_src *c, struct readout *r)
{
	uint32_t got = 0;

	r->err = rp_xfer_flush(x);
	if (!r->err)
		r->err = read_stream(c->src.fd, r->buf, x->chunk, &got);
	r->reported = r->err != 0;
	r->len = got;
	r->last = r->err || got < x->chunk;
	if (!r->err)
		rp_csum_chunk(r->buf, got, r->digest);
}

/*
 * A relayed file's next chunk is written on this hop (its last one once
 * the file is whole and verified here). Our copy failing here fails it
 * downstream too.
 */
static bool fed_ready(struct xfer *x, struct send_state *s,
		      struct cur_src *c)
{
	const struct rp_feed_entry *e = &s->fed->now;
	uint64_t left = c->size - c->queued;
	uint64_t want = left < x->chunk ? left : x->chunk;

	if (e->done && e->err) {
		c->failed = true;
		c->p->failed_here = true;
		rp_xfer_entry(x, &s->tally, c->p->path, 0, e->err, NULL);
		return true;
	}
	if (c->queued + want > e->ready)
		return false;
	return want < left || e->done;
}

/*
 * Queue the current source's next chunks, as far as free slots allow.
 * Once it failed or was refused, one empty last chunk ends it.
 */
static void queue_reads(struct xfer *x, struct send_state *s)
{
	struct cur_src *c = &s->cur;

	while (!c->all_queued && !c->negotiating &&
	       slot_free(x, s, s->queued)) {
		struct readout *r = &s->rd[s->queued % x->window];
		bool ended = c->failed || !c->p;

		/* A stream is read one chunk at a time, in order. */
		if (c->is_stdin && !ended && s->queued > s->posted)
			break;
		if (c->fed && !ended && !fed_ready(x, s, c))
			break;
		ended = c->failed || !c->p;
		*r = (struct readout){
			.fd = c->src.fd, .align = c->src.align,
			.off = c->queued,
			.buf = x->ring + xfer_slot_off(x, s->queued),
		};
		s->queued++;
		if (c->is_stdin && !ended) {
			read_stdin(x, c, r);
		} else {
			uint64_t left = ended ? 0 : c->size - c->queued;

			r->len = left < x->chunk ? (uint32_t)left : x->chunk;
			r->last = r->len == left;
		}
		c->queued += r->len;
		c->all_queued = r->last;
		/* Read already (a stream), or nothing to read. */
		if (c->is_stdin || !r->len) {
			atomic_store_explicit(&r->state, READ_DONE,
					      memory_order_relaxed);
			continue;
		}
		r->job.run = read_job;
		if (r->len <= RP_INLINE_MAX) {
			read_job(&r->job, NULL);
			continue;
		}
		atomic_store_explicit(&r->state, READ_QUEUED,
				      memory_order_relaxed);
		rp_pool_submit(x->pool, &r->job);
	}
}

/* The source ended early (failed, refused): wait for the reads queued
 * past it, and forget them; their slots take the next file's chunks. */
static int drop_reads(struct xfer *x, struct send_state *s)
{
	int rc = 0;

	while (!rc && s->queued > s->posted) {
		if (read_state(x, s, s->queued - 1) == READ_DONE)
			s->queued--;
		else
			rc = rp_xfer_pool_wait(x, "reading the source");
	}
	return rc;
}

/* A chunk that could not be read fails its file (reported once). */
static void read_failed(struct xfer *x, struct send_state *s,
			const struct readout *r)
{
	struct cur_src *c = &s->cur;
	int rc = r->err;

	if (rc == RP_EINTERRUPTED)
		return;
	if (!r->reported)
		rc = rp_fileio_src_failed(rc, r->len, r->off);
	c->failed = true;
	c->p->failed_here = true;
	rp_xfer_entry(x, &s->tally, c->p->path, 0, rc, NULL);
}

/*
 * Post a read chunk from its slot; the last one carries RP_IMM_END. A
 * source that fails mid-way still ends on the wire (an empty last
 * chunk), so the receiver can drop it and go on.
 */
static int post_chunk(struct xfer *x, struct send_state *s,
		      struct readout *r)
{
	struct cur_src *c = &s->cur;
	uint64_t seq = s->posted;
	size_t off = xfer_slot_off(x, seq);
	uint32_t len = r->len;
	bool last = r->last;
	int rc;

	if (r->err == RP_EINTERRUPTED)
		return r->err;
	if (r->err && c->p && !c->failed)
		read_failed(x, s, r);
	if (c->failed || !c->p) {
		len = 0;
		last = true;
	} else if (len) {
		rp_csum_fold(c->csum, r->digest);
	}
	if (!seq)
		xfer_data_seen(x);	/* the end: the last chunk's credit */
	/* To the receiver's slot of the same number, as the op moves it. */
	rc = x->ops->send_chunk(x, seq, off, len, last);
	if (rc)
		return rc;
	/* As posted, should the link go and the chunk have to go again. */
	r->len = len;
	r->last = last;
	atomic_store_explicit(&r->state, READ_FREE, memory_order_relaxed);
	s->posted++;
	c->off += len;
	s->bytes += len;
	if (!last)
		return 0;
	rc = drop_reads(x, s);
	if (c->p)
		c->p->size = c->off;
	if (!rc)
		rc = send_fend(x, c, c->fed ? s->fed->now.csum : NULL);
	/*
	 * The receiver needs this FILE before it can take the chunks
	 * posted: one write for both, now rather than at our next wait,
	 * or for a file of one chunk (small), for FEND_BATCH of them.
	 */
	if (!rc && (++s->unflushed >= FEND_BATCH || c->off > x->chunk)) {
		s->unflushed = 0;
		rc = rp_xfer_flush(x);
	}
	cur_close(c);
	return rc;
}

/* Post the chunks read, in order, as far as they are. */
static int post_chunks(struct xfer *x, struct send_state *s)
{
	int rc = 0;

	while (!rc && s->cur.open && s->posted < s->queued &&
	       read_state(x, s, s->posted) == READ_DONE)
		rc = post_chunk(x, s, &s->rd[s->posted % x->window]);
	return rc;
}

/* A relay's feed changed (or may have): look at the entry we send. */
static void feed_look(struct send_state *s)
{
	struct feed_src *fs = s->fed;

	rp_feed_ack(fs->f);
	if (fs->holding && rp_feed_head(fs->f, &fs->now) != 1)
		fs->holding = false;	/* cannot be: it is ours */
	s->starved = false;
}

/* Send what the credit and the pending cap allow; FIN at the end. */
static int pump(struct xfer *x, struct send_state *s)
{
	int rc = 0;

	if (s->fed) {
		feed_look(s);
		if (rp_feed_broken(s->fed->f)) {
			RP_ERR("relay: the push into this hop failed; the push "
			       "on to %s stops with it", x->peer);
			return RP_EPEERABORT;
		}
	}
	while (!rc && !s->fin_sent && !rp_session_stop && !s->starved) {
		if (s->cur.open) {
			queue_reads(x, s);
			rc = post_chunks(x, s);
			if (s->cur.open)
				break;	/* waiting for a read or a slot */
		} else if (s->qlen >= MAX_PENDING) {
			break;
		} else if (!s->walk_done) {
			rc = next_entry(x, s);
		} else {
			rc = send_fin(x, s);
		}
	}
	return rc;
}

/* ---- what comes back ---- */

/* The receiver's reason for entry path, without the path it begins
 * with when it names the same entry (ours leads the line already). */
static const char *reason_for(const char *path, const struct rp_result *r,
			      size_t *len)
{
	size_t n = strlen(path);

	*len = r->text_len;
	if (n + 2 >= r->text_len || memcmp(r->text, path, n) ||
	    memcmp(r->text + n, ": ", 2))
		return r->text;
	*len -= n + 2;
	return r->text + n + 2;
}

/*
 * HAVE PARTIAL: the receiver holds h->bytes of the file. If our own
 * first bytes fold to its digest, they start our checksum and only the
 * rest goes; else all of it, said once. Where we start.
 */
static uint64_t resume_at(struct xfer *x, struct cur_src *c,
			  const struct rp_have *h)
{
	struct rp_csum *fold = NULL;
	bool same = false;

	if (rp_csum_new(&fold) == 0)
		(void)rp_send_check_prefix(c->src.fd, c->p->path, h->bytes,
					   x->chunk, h->csum, fold, &same);
	if (!same) {
		rp_csum_free(fold);
		RP_INFO("%s: what %s kept of it differs from this file; "
			"sending it whole", c->p->path, x->peer);
		return 0;
	}
	rp_csum_free(c->csum);
	c->csum = fold;
	RP_EV("file", "file.resume", "{path}: the receiver holds the first "
	      "{bytes} bytes, verified; sending the rest",
	      EV_S("path", c->p->path), EV_U("bytes", h->bytes));
	return h->bytes;
}

/* FROM: the current file's chunks start at from. */
static int send_from(struct xfer *x, struct send_state *s, uint64_t from)
{
	struct cur_src *c = &s->cur;
	struct rp_from m = { .id = c->id, .offset = from };

	c->negotiating = false;
	c->off = c->queued = from;
	return rp_chan_send(&x->ch, RP_MSG_FROM, &m);
}

/* What the receiver holds of the file we asked about. */
static int on_have(struct xfer *x, struct send_state *s,
		   const struct rp_have *h)
{
	struct cur_src *c = &s->cur;
	bool partial = h->verdict == RP_HAVE_PARTIAL;

	if (!c->open || !c->negotiating || !c->p || h->id != c->id ||
	    (partial && (!x->o->resume || h->bytes > c->size ||
			 h->bytes % x->chunk)) ||
	    (h->verdict == RP_HAVE_UPTODATE && !x->o->update)) {
		RP_ERR("HAVE %s for entry %u from %s, which we did not ask "
		       "for", rp_proto_have_name(h->verdict), h->id, x->peer);
		return RP_EPROTO;
	}
	if (h->verdict == RP_HAVE_UPTODATE) {
		rp_xfer_entry(x, &s->tally, c->p->path, 0, 0,
			      RP_ENTRY_UP_TO_DATE);
		pending_drop_last(s);
		cur_close(c);
		return 0;
	}
	return send_from(x, s, partial ? resume_at(x, c, h) : 0);
}

static int on_fack(struct xfer *x, struct send_state *s,
		   const struct rp_result *r)
{
	struct pending *p = &s->q[s->qhead];
	char text[RP_PEER_TEXT_MAX];
	const char *why;
	size_t len;

	if (!s->qlen || r->id != p->id) {
		RP_ERR("FACK from %s for entry %u, which we are not waiting "
		       "for", x->peer, r->id);
		return RP_EPROTO;
	}
	if (r->status != RP_ST_OK && !p->failed_here) {
		why = reason_for(p->path, r, &len);
		RP_ERR("%s: %s refused it: %s", p->path, x->peer,
		       len ? rp_fmt_peer(text, sizeof(text), why, len) :
		       rp_proto_status_name(r->status));
		rp_xfer_entry(x, &s->tally, p->path, 0,
			   rp_proto_status_to_err(r->status), NULL);
	} else if (r->status == RP_ST_OK) {
		rp_xfer_entry(x, &s->tally, p->path, p->size, 0, NULL);
	}
	/* Refused while we still send it: the rest would be wasted. */
	if (s->cur.open && s->cur.p == p) {
		if (r->status == RP_ST_OK) {
			RP_ERR("FACK ok from %s for entry %u before its end",
			       x->peer, r->id);
			return RP_EPROTO;
		}
		RP_EV("file", "file.refused", "entry {id} refused: not sending "
		      "the rest", EV_U("id", r->id));
		s->cur.p = NULL;
		/* Refused instead of HAVE: it still ends as any refusal. */
		if (s->cur.negotiating) {
			pending_pop(s);
			return send_from(x, s, 0);
		}
	}
	pending_pop(s);
	return 0;
}

/* A later host's result, from a relay: kept for the report. */
static int on_host(struct xfer *x, const struct rp_host_msg *m)
{
	if (!x->got || m->hop >= x->o->nhosts || x->got[m->hop].hop) {
		RP_ERR("HOST from %s for hop %u of a chain of %u hosts%s",
		       x->peer, m->hop, x->o->nhosts,
		       x->got && m->hop < x->o->nhosts ? ", twice" : "");
		return RP_EPROTO;
	}
	x->got[m->hop] = *m;
	return 0;
}

static int on_message(struct xfer *x, struct send_state *s)
{
	union rp_msg m;
	/* RECONNECT is refused as out of place with --retry-for 0. */
	uint32_t want = rp_msg_expect(RP_SIDE_RECEIVER, s->fin_sent ?
				      RP_STAGE_END : RP_STAGE_FILES) &
			~rp_xfer_relink_refused(x);
	int rc = rp_xfer_recv(x, want, &m, "the receiver's results");

	if (rc)
		return rc;
	switch (x->ch.got_type) {
	case RP_MSG_FACK:
		return on_fack(x, s, &m.res);
	case RP_MSG_SYNC:
		return 0;	/* a file still syncing: alive */
	case RP_MSG_RECONNECT:
		return rp_xfer_relink_got(x, &m.reconnect);
	case RP_MSG_HAVE:
		return on_have(x, s, &m.have);
	case RP_MSG_HOST:
		return on_host(x, &m.host);
	case RP_MSG_ACK:
		if (s->qlen) {
			RP_ERR("ACK from %s with %u entr%s unanswered",
			       x->peer, s->qlen, s->qlen == 1 ? "y" : "ies");
			return RP_EPROTO;
		}
		s->acked = true;
		return 0;
	}
	return RP_EINTERNAL;
}

static int handle_wc(struct xfer *x, struct send_state *s,
		     const struct rp_wc *wc)
{
	uint32_t delta;

	/* A chunk's Write or Send (or, --op read, its announcement) is
	 * done; its slot waits for credit. */
	if (wc->op == x->ops->sent_wc) {
		s->written++;
		return 0;
	}
	switch (wc->op) {
	case RP_WC_RECV_SEND_IMM:
		/* Cumulative credit, modulo 2^32. */
		delta = wc->imm - (uint32_t)x->done;
		if (delta > s->posted - x->done) {
			RP_ERR("credit %u from %s out of range (%" PRIu64
			       " posted, %" PRIu64 " credited)", wc->imm,
			       x->peer, s->posted, x->done);
			return RP_EPROTO;
		}
		x->done += delta;
		x->credits++;
		if (x->done == s->posted)
			x->data_end = rp_now();
		return rp_verbs_post_recv(x->v, wc->qp, wc->wr_id);
	default:
		return rp_op_unexpected_wc(x, wc);
	}
}

static void trace_milestone(const struct send_state *s, uint64_t done,
			    uint64_t *next_mark)
{
	if (done < *next_mark)
		return;
	/* Credit: the receiver has copied these out of its ring (it
	 * writes them to disk right after). */
	RP_EV("data", "data.progress", "{done}/{posted} chunk{posted:|s} "
	      "posted so far taken by the receiver", EV_U("done", done),
	      EV_U("posted", s->posted));
	*next_mark = done * 2;
}

static int handle_wcs(struct xfer *x, struct send_state *s,
		      const struct rp_wc *wc, int n)
{
	for (int i = 0; i < n; i++) {
		int rc = handle_wc(x, s, &wc[i]);

		if (rc)
			return rc;
	}
	return 0;
}

void rp_op_trace_into_slot(const struct xfer *x, const char *how)
{
	RP_EV("data", "data.path", "each chunk is {how} into slot n % "
	      "{window} of the receiver's ring; imm = n (the chunk's "
	      "number in the session), + {imm_end} on a file's last "
	      "chunk", EV_S("how", how), EV_U("window", x->window),
	      EV_X("imm_end", RP_IMM_END, 8),
	      EV_S("op", rp_proto_op_name(x->op)));
}

/*
 * The chunks the receiver has not taken, from its next_chunk on, go
 * again from their slots, which keep them until credited: one that
 * landed before the link went is overwritten with the same bytes.
 */
static int resend(struct xfer *x, struct send_state *s, uint64_t from)
{
	int rc = 0;

	if (from < x->done || from > s->posted) {
		RP_ERR("RECONNECT from %s resumes at chunk %" PRIu64 ", not "
		       "between the %" PRIu64 " credited and the %" PRIu64
		       " posted", x->peer, from, x->done, s->posted);
		return RP_EPROTO;
	}
	RP_EV("data", "data.resend", "resending chunks {from}..{posted} "
	      "the receiver has not taken", EV_U("from", from),
	      EV_U("posted", s->posted));
	s->written = from;
	for (uint64_t seq = from; !rc && seq < s->posted; seq++) {
		const struct readout *r = &s->rd[seq % x->window];

		rc = x->ops->send_chunk(x, seq, xfer_slot_off(x, seq), r->len,
					r->last);
	}
	return rc;
}

/*
 * The link went away (we saw it, or the receiver's RECONNECT says so):
 * fresh QPs, receives for the credits, RECONNECT both ways (the side
 * that answers connects first), then the chunks not taken go again.
 */
static int relink(struct xfer *x, struct send_state *s)
{
	bool answer;
	int rc = 0;

	/* What the receiver said first goes first: its ERR (or its closing
	 * the connection) says why better than a lost link, and its
	 * RECONNECT makes us the side that answers. */
	while (!rc && !x->rl.got && !s->acked && rp_xfer_ctrl_now(x))
		rc = on_message(x, s);
	if (rc || s->acked)
		return rc;
	answer = x->rl.got;
	rc = rp_xfer_relink_begin(x);

	if (!rc)
		rc = rp_xfer_post_credit_recvs(x);
	if (!rc && answer)
		rc = rp_xfer_relink_connect(x);
	if (!rc)
		rc = rp_xfer_relink_send(x, x->done);
	while (!rc && !answer && !x->rl.got && !s->acked)
		rc = on_message(x, s);
	if (!rc && !answer && x->rl.got)
		rc = rp_xfer_relink_connect(x);
	if (!rc && !s->acked)
		rc = resend(x, s, x->rl.peer.next_chunk);
	return rc;
}

/* Every entry out, every answer in: until the receiver's ACK. */
static int session_loop(struct xfer *x, struct send_state *s)
{
	struct rp_wc wc[16];
	uint64_t mark = 1;
	int rc = 0;

	rp_progress_start(&s->prog, x->size);
	/* A relay's progress line is its upstream session's. */
	if (x->feed)
		s->prog.enabled = false;
	x->prog = &s->prog;
	x->ops->trace_path(x);
	x->ch.batch = true;
	while (!rc && !s->acked) {
		rc = pump(x, s);
		if (rc)
			break;
		rc = rp_xfer_next(x, wc, 16, rp_xfer_deadline(x), true);
		rp_xfer_link_seen(x, wc, rc);
		if (rc == 0 && rp_xfer_ctrl_ready(x))
			rc = on_message(x, s);
		else if (rc > 0)
			rc = handle_wcs(x, s, wc, rc);
		if ((!rc && x->rl.got) || rp_xfer_link_lost(x, rc))
			rc = relink(x, s);
		trace_milestone(s, x->done, &mark);
		rp_progress_update(&s->prog, s->bytes);
		rp_session_progress(x, s->bytes);
	}
	rp_progress_end(&s->prog);
	return rc;
}

/*
 * Every file takes a ring slot of its own, however small: with the
 * default 8 x 1 MiB, a tree of small files has only 8 in flight. When
 * they are small on average (and -c, -w were not given), SMALL_WINDOW
 * slots keep that many in flight, each four times the average rounded
 * up to a power of two, from SMALL_CHUNK_MIN to SMALL_CHUNK: a file
 * somewhat above the average still fits one, and no more memory is
 * pinned than the files need (registering a ring costs time for each
 * of its pages, on both sides, before the first byte moves).
 */
#define SMALL_CHUNK	(64u << 10)
#define SMALL_CHUNK_MIN	(16u << 10)
#define SMALL_WINDOW	64u

static void choose_shape(struct xfer *x, uint64_t files)
{
	uint64_t average;

	if (x->o->shape_set || files < 2 || x->size == RP_SIZE_UNKNOWN ||
	    x->size / files > SMALL_CHUNK)
		return;
	average = x->size / files;
	x->chunk = SMALL_CHUNK_MIN;
	while (x->chunk < SMALL_CHUNK && x->chunk < 4 * average)
		x->chunk *= 2;
	x->window = SMALL_WINDOW;
	RP_EV("session", "shape", "{files} files of {average} bytes on "
	      "average: asking for {window} chunks of {chunk} bytes, so that "
	      "many small files are in flight", EV_U("files", files),
	      EV_U("average", average), EV_U("window", x->window),
	      EV_U("chunk", x->chunk));
}

/*
 * What needs nothing remote: the sources (usage, --as, and whether any
 * can go at all) and the key file, into psk. The caller's pre-check and
 * the session's own preparation, so that a library caller is refused
 * before connecting too.
 */
/*
 * A chain push sends every file whole, as each hop relays what it lands:
 * no hop decides alone to skip or continue one, and a stream, whose size
 * is known only at its end, is not relayed.
 */
static int check_chain(const struct rp_config *o)
{
	if (o->resume || o->update) {
		RP_ERR("%s works with one host: a push along a chain sends "
		       "every file whole", o->resume ? "--resume" : "--update");
		return RP_EUSAGE;
	}
	for (int i = 0; i < o->nsources; i++)
		if (!strcmp(o->sources[i], "-")) {
			RP_ERR("standard input cannot go along a chain: push "
			       "it to one host, or save it to a file first");
			return RP_EUSAGE;
		}
	return 0;
}

static int check_local(const struct rp_config *o, uint8_t psk[RP_PSK_LEN])
{
	int rc = rp_walk_check(o->sources, o->nsources, o->recursive,
			       o->as_name);

	for (int i = 0; !rc && o->resume && i < o->nsources; i++)
		if (!strcmp(o->sources[i], "-")) {
			RP_ERR("--resume cannot continue standard input: a "
			       "stream cannot be read from the middle");
			rc = RP_EUSAGE;
		}
	if (!rc && o->nhosts > 1)
		rc = check_chain(o);
	if (!rc && o->psk_file)
		rc = rp_auth_load(o->psk_file, psk);
	return rc;
}

int rp_session_send_check(const struct rp_config *o)
{
	uint8_t psk[RP_PSK_LEN];
	int rc = check_local(o, psk);

	explicit_bzero(psk, sizeof(psk));
	return rc;
}

/* ---- the command line's sources, walked ---- */

static int walk_next(void *w, struct rp_walk_entry *e)
{
	return rp_walk_next(w, e);
}

static int walk_open(void *w, const struct rp_walk_entry *e,
		     struct rp_src *src)
{
	return rp_walk_src_open(w, e, src);
}

static int walk_recheck(void *w, struct rp_walk_entry *e)
{
	return rp_walk_dir_recheck(w, e);
}

static void walk_close(void *w)
{
	rp_walk_close(w);
}

static int walk_src(const struct rp_config *o, struct rp_entry_src *src)
{
	struct rp_walk *w = NULL;
	int rc = rp_walk_open(&w, o->sources, o->nsources, o->recursive,
			      o->as_name);

	if (!rc)
		*src = (struct rp_entry_src){ .next = walk_next,
			.open = walk_open, .recheck = walk_recheck,
			.close = walk_close, .ctx = w };
	return rc;
}

/* ---- a relay hop's upstream, fed ---- */

static int feed_next(void *ctx, struct rp_walk_entry *e)
{
	struct feed_src *fs = ctx;
	const struct rp_feed_entry *n = &fs->now;
	int rc;

	if (fs->holding)
		rp_feed_take(fs->f);	/* the file sent before */
	fs->holding = false;
	rc = rp_feed_head(fs->f, &fs->now);
	if (rc <= 0)
		return rc;
	*e = (struct rp_walk_entry){
		.kind = n->kind == RP_FILE_DIR ? RP_WALK_DIR : RP_WALK_FILE,
		.src = n->path, .path = n->path, .mode = n->mode,
		.size = n->size, .mtime_sec = n->mtime_sec,
		.mtime_nsec = n->mtime_nsec,
	};
	if (n->kind == RP_FILE_DIR) {
		rp_feed_take(fs->f);
	} else if (n->done && n->err) {
		/* Not kept here, so not sent on (reported upstream). */
		e->kind = RP_WALK_ERROR;
		e->err = n->err;
		e->why = "not stored on this relay";
		rp_feed_take(fs->f);
	} else {
		fs->holding = true;
	}
	return 1;
}

static int feed_open(void *ctx, const struct rp_walk_entry *e,
		     struct rp_src *src)
{
	struct feed_src *fs = ctx;

	*src = (struct rp_src){ .fd = rp_feed_claim_fd(fs->f),
		.size = e->size, .mode = e->mode, .mtime_sec = e->mtime_sec,
		.mtime_nsec = e->mtime_nsec };
	if (src->fd >= 0)
		return 0;
	RP_ERR("relay: no copy of %s to forward", e->path);
	return RP_EINTERNAL;
}

static int feed_recheck(void *ctx, struct rp_walk_entry *e)
{
	(void)ctx;
	(void)e;
	return 0;	/* made by this hop's upstream session */
}

static void feed_close(void *ctx)
{
	struct feed_src *fs = ctx;

	rp_feed_leave(fs->f);
	free(fs);
}

static int prepare(struct xfer *x, struct send_state *s)
{
	uint64_t files;
	int rc = rp_op_set(x, x->o->op);

	if (!rc)
		rc = check_local(x->o, s->psk);
	if (rc)
		return rc;
	if (x->o->psk_file)
		x->ch.psk = s->psk;
	rc = walk_src(x->o, &s->src);
	if (rc)
		return rc;
	/* Sizes as they are now, for the ring's shape and the progress. */
	rc = rp_walk_total(x->o->sources, x->o->nsources, x->o->recursive,
			   x->o->as_name, &x->size, &files);
	if (!rc)
		choose_shape(x, files);
	return rc;
}

/*
 * A relay forwards each file's digest as the origin made it, chunk by
 * chunk: the next hop must take our chunk size as it is.
 */
static int relay_shape(const struct xfer *x)
{
	if (x->chunk == x->o->chunk)
		return 0;
	RP_ERR("relay: %s takes chunks of at most %u bytes, and this chain "
	       "moves %u: push the chain with -c %u (or less), or raise that "
	       "receiver's limit", x->peer, x->chunk, x->o->chunk, x->chunk);
	return RP_ELIMIT;
}

/* Over an open control connection: everything up to the first write. */
static int handshake(struct xfer *x, struct send_state *s)
{
	uint32_t rkey;
	int rc = rp_xfer_start(x, true);

	if (rc)
		return rc;
	rc = rp_xfer_open_verbs(x, false);
	if (!rc)
		rc = rp_send_hello(x);
	if (!rc)
		rc = rp_send_take_mr(x);
	if (!rc && x->feed)
		rc = relay_shape(x);
	if (rc)
		return rc;
	rp_xfer_phase(x, RP_PHASE_SETUP);
	/* Our ring's rkey goes out only when the op exposes it (--op
	 * read, for the receiver to read it); otherwise it is local-only. */
	rc = rp_verbs_reg_ring(x->v, (size_t)x->chunk * x->window,
			       (void **)&x->ring, &rkey);
	if (!rc)
		rc = rp_xfer_post_credit_recvs(x);
	if (!rc)
		rc = rp_xfer_connect(x);
	if (!rc && rp_op_exposes(x->ops->send_access))
		rc = rp_xfer_send_mr(x, (uint64_t)(uintptr_t)x->ring, rkey);
	if (!rc)
		rc = rp_sys_calloc(&s->rd, x->window, sizeof(*s->rd),
				   "read records");
	/* Workers read into the ring's slots: no buffer of their own. */
	if (!rc)
		rc = rp_xfer_start_pool(x, 0);
	return rc;
}

static int run(struct xfer *x, struct send_state *s)
{
	int rc = handshake(x, s);

	if (!rc) {
		rp_xfer_phase(x, RP_PHASE_DATA);
		rc = session_loop(x, s);
	}
	if (!rc)
		rp_xfer_trace_data_summary(x, s->bytes, s->next_id);
	return rc;
}

static void init(struct xfer *x, struct send_state *s,
		 const struct rp_config *o)
{
	*x = (struct xfer){
		.o = o, .epfd = -1, .chunk = o->chunk,
		.window = o->window, .qps = o->qps ? o->qps : 1,
		.rep = { .role = "send" }, .start = rp_now(),
	};
	rp_chan_init(&x->ch, -1, x->peer, "transfer", RP_SIDE_RECEIVER, NULL,
		     o->timeout);
	x->ch.reason_wait = o->reason_wait_secs;
	*s = (struct send_state){ .cur = { .src = { .fd = -1 } } };
	rp_session_signals();
	rp_xfer_phase(x, RP_PHASE_PREPARE);
}

static int push_to_host(const struct rp_config *o, struct rp_feed *feed,
			struct rp_host_msg *got, struct rp_outcome *out);

/*
 * Where a chain broke: the first host that failed in transport (it died,
 * or its link did: rc is our own session's, into the first host) when no
 * host after it answered. False if it did not break so, or broke at its
 * last host.
 */
static bool broken_at(const struct xfer *x, int rc, uint32_t *k)
{
	uint32_t n = x->o->nhosts, i = 0;
	int err = rc;

	if (!rc) {
		for (i = 1; i < n; i++)
			if (x->got[i].hop && x->got[i].status != RP_ST_OK)
				break;
		if (i == n)
			return false;
		err = rp_proto_status_to_err(x->got[i].status);
	}
	if (rp_err_exit_code(err) != RP_EXIT_TRANSPORT)
		return false;
	for (uint32_t j = i + 1; j < n; j++)
		if (x->got[j].hop)
			return false;
	*k = i;
	return i + 1 < n;
}

/* Host i's port: its own, or the push's -p. */
static uint16_t host_port(const struct rp_config *o, uint32_t i)
{
	return o->hosts[i].port ? o->hosts[i].port : o->port;
}

/*
 * The origin of a chain that broke at host k: each host after it gets a
 * push of its own, straight from here, with --resume and --update exists:
 * it continues the file the chain left mid-way and keeps, never replaces,
 * what it holds. Their results take the places of theirs.
 */
static void reroute(struct xfer *x, int rc)
{
	const struct rp_config *o = x->o;
	char dead[RP_HOST_NAME_MAX + 10];
	uint32_t k;

	if (!x->got || x->feed || o->nhosts < 2 || rp_session_stop ||
	    !broken_at(x, rc, &k))
		return;
	rp_host_format(dead, sizeof(dead), o->hosts[k].name,
		       host_port(o, k));
	x->rerouted = true;
	for (uint32_t j = k + 1; j < o->nhosts && !rp_session_stop; j++) {
		struct rp_config d = *o;
		struct rp_host_msg got = { 0 };

		d.hosts = &o->hosts[j];
		d.nhosts = 1;
		d.host = o->hosts[j].name;
		d.port = host_port(o, j);
		d.resume = true;
		d.update = RP_UPDATE_EXISTS;
		d.hooks = NULL;
		d.json = false;
		RP_INFO("the chain broke at %s: pushing to %s:%u directly, "
			"from where it stopped", dead, d.host, d.port);
		RP_EV("session", "chain.reroute", "chain broke at {dead}: "
		      "pushing to {host}:{port} directly", EV_S("dead", dead),
		      EV_S("host", d.host), EV_U("port", d.port));
		(void)push_to_host(&d, NULL, &got, NULL);
		got.hop = (uint16_t)(j + 1);
		x->got[j] = got;
	}
}

/* Tell the receiver why (if it can still hear it), report, release. */
static int finish(struct xfer *x, struct send_state *s, int rc,
		  struct rp_outcome *out)
{
	if (rc == RP_EINTERRUPTED)
		RP_ERR("interrupted by signal %d", (int)rp_session_stop);
	if (rc)
		rp_chan_refuse(&x->ch, RP_MSG_ERR, rc);
	reroute(x, rc);
	/* The session went well, but not every entry did. */
	if (!rc && s->tally.failed) {
		rp_xfer_phase(x, RP_PHASE_DONE);
		rc = s->tally.first_err;
	}
	s->tally.landed = s->bytes;
	x->tally = s->tally;
	if (x->got)
		rc = rp_xfer_chain_result(x, rc, out);
	rp_xfer_report(x, rc, out);
	/* It stops the workers first: none reads the source or the ring
	 * past here. */
	rp_xfer_release(x);
	if (s->cur.open)
		cur_close(&s->cur);
	free(s->rd);
	pending_clear(s);
	if (s->src.close)
		s->src.close(s->src.ctx);
	explicit_bzero(s->psk, sizeof(s->psk));
	return rc;
}

/* A relay's downstream: entries from the feed, no walk, no size known
 * ahead. The feed is left on failure (src.close does it from here on). */
static int prepare_feed(struct xfer *x, struct send_state *s,
			struct rp_feed *feed)
{
	int rc = rp_op_set(x, x->o->op);

	x->feed = feed;
	x->size = RP_SIZE_UNKNOWN;
	if (!rc && x->o->psk_file)
		rc = rp_auth_load(x->o->psk_file, s->psk);
	if (!rc && x->o->psk_file)
		x->ch.psk = s->psk;
	if (!rc)
		rc = rp_sys_calloc(&s->fed, 1, sizeof(*s->fed),
				   "relay source");
	if (rc) {
		rp_feed_leave(feed);
		return rc;
	}
	s->fed->f = feed;
	s->src = (struct rp_entry_src){ .next = feed_next, .open = feed_open,
		.recheck = feed_recheck, .close = feed_close, .ctx = s->fed };
	return 0;
}

/* Connect to o->host and push what the walk (or the feed) gives. */
static int push_to_host(const struct rp_config *o, struct rp_feed *feed,
			struct rp_host_msg *got, struct rp_outcome *out)
{
	struct xfer x;
	struct send_state s;
	int rc;

	init(&x, &s, o);
	snprintf(x.peer, sizeof(x.peer), "%s:%u", o->host, o->port);
	rc = feed ? prepare_feed(&x, &s, feed) : prepare(&x, &s);
	/* A relay's downstream fills its relay's; the origin, its own. */
	x.got = got;
	if (!rc && !got && o->nhosts > 1)
		rc = rp_sys_calloc(&x.got, o->nhosts, sizeof(*x.got),
				   "host results");
	if (!rc) {
		rp_xfer_phase(&x, RP_PHASE_CONNECT);
		rc = rp_ctrl_connect(o->host, o->port, rp_xfer_deadline(&x),
				     &x.ch.fd);
	}
	if (!rc)
		rc = run(&x, &s);
	rc = finish(&x, &s, rc, out);
	if (x.got != got)
		free(x.got);
	free(x.hres);
	return rc;
}

int rp_session_send(const struct rp_config *o, struct rp_outcome *out)
{
	return push_to_host(o, NULL, NULL, out);
}

int rp_session_send_feed(const struct rp_config *o, struct rp_feed *feed,
			 struct rp_outcome *out, struct rp_host_msg *got)
{
	return push_to_host(o, feed, got, out);
}

int rp_session_send_fd(const struct rp_config *o, int fd, const char *peer,
		       struct rp_outcome *out)
{
	struct xfer x;
	struct send_state s;
	int rc;

	init(&x, &s, o);
	x.ch.fd = fd;
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	rc = prepare(&x, &s);
	if (!rc)
		rc = run(&x, &s);
	return finish(&x, &s, rc, out);
}
