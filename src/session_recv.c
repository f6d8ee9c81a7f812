// SPDX-License-Identifier: MIT
/* The receiver's state machine: AUTH, HELLO, ring and QP once, MR; then
 * per entry FILE, its chunks (copied out, credited, hashed, written),
 * FEND, verify, commit, FACK; FIN; directories synced; ACK. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/*
 * After FEND the receiver syncs what the disk has not yet taken (at most
 * RP_FILEIO_WB_LAG) in steps of SYNC_STEP, and tells the sender how far
 * it got at most every SYNC_EVERY seconds, so the sender's --timeout
 * measures silence, not the disk. A quarter second: a sender with the
 * smallest --timeout (1 s) still hears one in time even when a step
 * takes half a second.
 */
#define SYNC_STEP	(8ull << 20)
#define SYNC_EVERY	0.25

/* The regular file whose chunks land now. */
struct recv_file {
	bool open;
	struct rp_file meta;
	int parentfd;		/* borrowed: the directory we are in (go_to) */
	struct rp_dst dst;
	struct rp_csum *csum;
	int err;		/* it failed: its chunks are dropped */
	bool facked;		/* its failure is told already (early_fack) */
	uint64_t bytes;		/* landed so far */
	bool data_done;		/* its RP_IMM_END chunk landed */
	bool fend_seen;
	struct rp_fend fend;
};

/* A directory whose mtime is set once its contents are in (--preserve). */
struct dir_time {
	char *path;
	int64_t sec;
	uint32_t nsec;
};

struct recv_state {
	int dirfd;		/* borrowed from the server */
	uint8_t *bounce;	/* one chunk, never registered: see land_chunk */
	uint64_t credit_sent;	/* cumulative credit last posted */
	uint32_t sends_out;	/* credit Sends not yet completed */
	uint32_t sq_cap;
	uint32_t flags;		/* HELLO's RP_HELLO_* */
	mode_t umask;
	struct recv_file cur;
	uint32_t next_id;	/* the FILE id we expect next */
	bool fin_seen;
	/* The directory entries arrive in now (see go_to), its path, and
	 * whether it has new entries; a failed fsync of one, for the end. */
	int here_fd;
	char *here_path;
	bool here_dirty;
	int dir_sync_err;
	struct dir_time *times;
	size_t ntimes;
	struct rp_tally tally;
	struct rp_progress prog;
};

/* --psk: prove the key to the sender, then check its proof, before we
 * create a QP, register memory or open a file; then derive the session
 * key that tags everything that follows. */
static int authenticate(struct xfer *x)
{
	struct rp_auth chal, resp, ours = { .step = RP_AUTH_PROVE };
	int rc = msg_recv_auth(x, RP_AUTH_CHALLENGE, &chal);

	if (rc)
		return rc;
	rp_auth_nonce(ours.nonce);
	rp_auth_mac(x->psk, RP_AUTH_ROLE_RECV, chal.nonce, ours.nonce,
		    ours.mac);
	rc = msg_send_auth(x, &ours);
	if (!rc)
		rc = msg_recv_auth(x, RP_AUTH_RESPOND, &resp);
	if (rc)
		return rc;
	if (!rp_auth_check(x->psk, RP_AUTH_ROLE_SEND, ours.nonce, chal.nonce,
			   resp.mac)) {
		RP_ERR("%s failed the pre-shared key check", x->peer);
		return RP_EAUTH;
	}
	RP_TRACE("ctrl", "the sender proved the pre-shared key");
	msg_keyed(x, chal.nonce, ours.nonce, RP_AUTH_ROLE_RECV);
	return 0;
}

static int recv_hello(struct xfer *x, struct rp_hello *h)
{
	union rp_msg m;
	int rc = msg_recv(x, RP_MSG_HELLO, &m, "HELLO");

	if (rc == RP_EUNEXPECTED && x->got_type == RP_MSG_AUTH) {
		RP_ERR("%s offers a pre-shared key, but this receiver has no "
		       "--psk", x->peer);
		return RP_EAUTH;
	}
	if (rc)
		return rc;
	*h = m.hello;
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Agree chunk and window: never more than asked, within our caps, and no
 * more ring than the session needs. */
static int agree_shape(struct xfer *x, const struct rp_hello *h)
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
	return 0;
}

static int send_mr(struct xfer *x, uint32_t rkey)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_mr mr = {
		.qp = x->local,
		.addr = (uint64_t)(uintptr_t)x->ring,
		.rkey = rkey,
		.len = (uint64_t)x->chunk * x->window,
		.chunk = x->chunk,
		.window = x->window,
	};

	trace_mr("->", &mr);
	return msg_send(x, buf, rp_proto_pack_mr(buf, sizeof(buf), &mr), "MR");
}

/* Everything the sender needs before its first write, in this order:
 * verbs, ring, receives, RTR/RTS, MR. Files come later, one by one. */
static int accept_hello(struct xfer *x, struct recv_state *r,
			const struct rp_hello *h)
{
	uint32_t rkey;
	int rc;

	x->remote = h->qp;
	x->rep.remote_qpn = h->qp.qpn;
	r->flags = h->flags;
	rc = agree_shape(x, h);
	r->sq_cap = xfer_queue_depth(x);
	if (!rc) {
		r->bounce = malloc(x->chunk);
		if (!r->bounce) {
			RP_ERR("malloc(%u): %s", x->chunk, strerror(ENOMEM));
			rc = -ENOMEM;
		}
	}
	if (!rc)
		rc = xfer_open_verbs(x, true);
	if (!rc)
		rc = rp_verbs_reg_ring(x->v, (size_t)x->chunk * x->window,
				       (void **)&x->ring, &rkey);
	for (uint32_t i = 0; !rc && i < x->window; i++)
		rc = rp_verbs_post_recv(x->v, i);
	if (!rc)
		rc = rp_verbs_connect(x->v, &x->remote);
	if (!rc)
		rc = send_mr(x, rkey);
	return rc;
}

/* ---- results per entry ---- */

static int send_fack(struct xfer *x, uint32_t id, int err, uint64_t bytes)
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
	trace_result("->", RP_MSG_FACK, &res);
	return msg_send(x, buf,
			rp_proto_pack_result(buf, sizeof(buf), RP_MSG_FACK,
					     &res), "FACK");
}

/* Count an entry's result, say it in --json, and tell the sender. */
static int entry_done(struct xfer *x, struct recv_state *r,
		      const struct rp_file *f, int err, uint64_t bytes)
{
	xfer_entry(x, &r->tally, f->path, bytes, err, NULL);
	return send_fack(x, f->id, err, bytes);
}

/* ---- directories touched, fsynced once ---- */

/* The directory holding path: path up to its last '/', "" for DIR. */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* Whether path's directory is the one we are in. */
static bool is_here(const struct recv_state *r, const char *path)
{
	size_t n = parent_len(path);

	return r->here_fd >= 0 && strlen(r->here_path) == n &&
	       !strncmp(r->here_path, path, n);
}

/*
 * Leave the directory we are in: if it got new entries, fsync it first.
 * A failure is kept for the session's end: the entries it concerns are
 * already answered, and the ACK must not say they are safe.
 */
static void leave(struct recv_state *r)
{
	int rc = 0;

	if (r->here_fd >= 0 && r->here_dirty)
		rc = rp_fileio_dir_sync(r->here_fd, r->here_path);
	if (rc && !r->dir_sync_err)
		r->dir_sync_err = rc;
	if (r->here_fd >= 0)
		close(r->here_fd);
	r->here_fd = -1;
	r->here_dirty = false;
	free(r->here_path);
	r->here_path = NULL;
}

/* Be in fd, path's directory (owned from here on); dirty: it has a new
 * entry. */
static int settle_in(struct recv_state *r, int fd, const char *path,
		     bool dirty)
{
	if (is_here(r, path)) {
		close(fd);
		r->here_dirty |= dirty;
		return 0;
	}
	leave(r);
	r->here_path = strndup(path, parent_len(path));
	if (!r->here_path) {
		close(fd);
		return -ENOMEM;
	}
	r->here_fd = fd;
	r->here_dirty = dirty;
	return 0;
}

/*
 * The directory holding path, into *fd (borrowed), and its last
 * component. Entries come directory by directory: it is opened (one
 * level at a time) once for all of them, and fsynced once when we leave.
 */
static int go_to(struct recv_state *r, const char *path, int *fd,
		 const char **leaf)
{
	size_t n = parent_len(path);
	int rc = 0;

	if (!is_here(r, path)) {
		int nfd;

		rc = rp_fileio_open_parent(r->dirfd, path, &nfd, leaf);
		if (!rc)
			rc = settle_in(r, nfd, path, false);
	}
	*leaf = path + (n ? n + 1 : 0);
	*fd = r->here_fd;
	return rc;
}

/* ---- one entry ---- */

/* Permission bits for an entry: the source's, masked as scp does. */
static uint32_t entry_mode(const struct xfer *x, const struct recv_state *r,
			   uint32_t mode)
{
	uint32_t keep = x->o->keep_setid ? 07777u : 0777u;

	if (r->flags & RP_HELLO_PRESERVE)
		return mode & keep;
	return mode & keep & ~(uint32_t)r->umask;
}

static int remember_time(struct recv_state *r, const struct rp_file *f)
{
	struct dir_time *t = realloc(r->times,
				     (r->ntimes + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	r->times = t;
	t[r->ntimes].path = strdup(f->path);
	if (!t[r->ntimes].path)
		return -ENOMEM;
	t[r->ntimes].sec = f->mtime_sec;
	t[r->ntimes].nsec = f->mtime_nsec;
	r->ntimes++;
	return 0;
}

/* A path through (or onto) a symbolic link in DIR is refused by policy,
 * as a bad name is; the reason is reported where it was found. */
static int path_refusal(int rc)
{
	return rc == -ELOOP ? RP_EBADNAME : rc;
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
	bool exact = r->flags & RP_HELLO_PRESERVE, created = false;
	int dirty = -1;
	int rc = check_entry(x, f);

	if (!rc)
		rc = path_refusal(rp_fileio_mkdir(r->dirfd, f->path,
						  entry_mode(x, r, f->mode),
						  exact, &created, &dirty));
	if (!rc && dirty >= 0)
		rc = settle_in(r, dirty, f->path, true);
	if (!rc && exact)
		rc = remember_time(r, f);
	if (rp_trace_on()) {
		char shown[RP_PEER_TEXT_MAX];

		RP_TRACE("file", "directory \"%s\" %s",
			 rp_fmt_peer(shown, sizeof(shown), f->path,
				     f->path_len),
			 rc ? "refused" : created ? "created" : "exists");
	}
	return entry_done(x, r, f, rc, 0);
}

static int open_file(struct xfer *x, struct recv_state *r)
{
	struct recv_file *c = &r->cur;
	const struct rp_file *f = &c->meta;
	const char *leaf;
	int rc = check_entry(x, f);

	if (!rc && x->o->max_size && f->size != RP_SIZE_UNKNOWN &&
	    f->size > x->o->max_size) {
		RP_ERR("%s offers a file of %" PRIu64 " bytes, above this "
		       "receiver's --max-size of %" PRIu64 " bytes", x->peer,
		       f->size, x->o->max_size);
		rc = RP_ELIMIT;
	}
	if (!rc)
		rc = path_refusal(go_to(r, f->path, &c->parentfd, &leaf));
	if (!rc)
		rc = rp_fileio_dst_open(&c->dst, c->parentfd, leaf, f->size,
					x->o->force);
	if (!rc)
		rc = rp_csum_new(&c->csum);
	if (!rc) {
		c->dst.mode = entry_mode(x, r, f->mode);
		c->dst.set_mtime = r->flags & RP_HELLO_PRESERVE;
		c->dst.mtime_sec = f->mtime_sec;
		c->dst.mtime_nsec = f->mtime_nsec;
		c->dst.defer_dir_sync = true;
	}
	rp_progress_label(&r->prog, f->path);
	return rc;
}

static void file_close(struct recv_file *c)
{
	rp_fileio_dst_abort(&c->dst);
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
	return entry_done(x, r, &c->meta, c->err, 0);
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
	if (f->kind == RP_FILE_DIR)
		return make_dir(x, r, f);
	*c = (struct recv_file){ .open = true, .meta = *f, .parentfd = -1 };
	rp_fileio_dst_init(&c->dst);
	c->err = open_file(x, r);
	return early_fack(x, r);
}

/* Sync the file in steps, keeping the sender informed; then commit. */
static int sync_and_commit(struct xfer *x, struct recv_file *c)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_sync s = { .id = c->meta.id, .total_bytes = c->bytes };
	double next = rp_now() + SYNC_EVERY;
	bool done = false;
	int rc;

	while (!done) {
		if (rp_session_stop)
			return RP_EINTERRUPTED;
		if (rp_now() >= next) {
			s.synced_bytes = c->dst.synced;
			trace_sync("->", &s);
			rc = msg_send(x, buf, rp_proto_pack_sync(buf,
					sizeof(buf), &s), "SYNC");
			/* It is news only if it goes now. */
			if (!rc)
				rc = xfer_flush(x);
			if (rc)
				return rc;
			next = rp_now() + SYNC_EVERY;
		}
		rc = rp_fileio_dst_sync(&c->dst, SYNC_STEP, &done);
		if (rc)
			return rc;
	}
	return rp_fileio_dst_commit(&c->dst, x->o->force);
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

/* Data and FEND in: verify, commit, answer. Only a failure of the
 * session (the control channel, a signal) is returned. */
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
	if (!err) {
		RP_TRACE("file", "checksum verified; sync, give the file its "
			 "name");
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
		r->here_dirty = true;
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
		RP_ERR("FIN from %s after %" PRIu64 " entries; we have %u%s",
		       x->peer, f->files, r->next_id,
		       r->cur.open ? " and one unfinished" : "");
		return RP_EPROTO;
	}
	r->fin_seen = true;
	return 0;
}

/* One message from the sender: FILE, FEND, FIN (or its ERR). */
static int on_message(struct xfer *x, struct recv_state *r)
{
	union rp_msg m;
	int rc = msg_recv(x, RP_MSG_FILE, &m, "the next entry");

	if (rc)
		return rc;
	switch (x->got_type) {
	case RP_MSG_FILE:
		return on_file(x, r, &m.file);
	case RP_MSG_FEND:
		return on_fend(x, r, &m.fend);
	case RP_MSG_FIN:
		return on_fin(x, r, &m.fin);
	}
	return RP_EINTERNAL;
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

		if (c->open && c->data_done && c->fend_seen)
			rc = finish_file(x, r);
		else if ((c->open && c->data_done) || (!c->open && need_file &&
						       !r->fin_seen))
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

/* Credit is cumulative: when the send queue is full, a later Send
 * carries the newer count. */
static int give_credit(struct xfer *x, struct recv_state *r)
{
	int rc;

	if (r->credit_sent == x->done || r->sends_out >= r->sq_cap)
		return 0;
	rc = rp_verbs_post_send_imm(x->v, x->done, (uint32_t)x->done);
	if (rc)
		return rc;
	r->credit_sent = x->done;
	r->sends_out++;
	return 0;
}

static int check_chunk(struct xfer *x, const struct recv_file *c,
		       const struct rp_wc *wc, bool last)
{
	uint32_t seq = wc->imm & RP_IMM_SEQ;
	uint64_t left = c->meta.size - c->bytes;

	if (seq != (uint32_t)(x->done & RP_IMM_SEQ) || wc->byte_len >
	    x->chunk || (!last && wc->byte_len != x->chunk)) {
		RP_ERR("chunk out of order or size from %s: got #%u of %u "
		       "bytes, expected #%" PRIu64 " of %s%u bytes", x->peer,
		       seq, wc->byte_len, x->done & RP_IMM_SEQ,
		       last ? "up to " : "", x->chunk);
		return RP_EPROTO;
	}
	/* Once told it failed, the sender may end the file early. */
	if (c->meta.size != RP_SIZE_UNKNOWN && !c->facked &&
	    (wc->byte_len > left || last != (wc->byte_len == left))) {
		RP_ERR("chunk from %s does not fit its file: %u bytes with "
		       "%" PRIu64 " to go%s", x->peer, wc->byte_len, left,
		       last ? " (marked last)" : "");
		return RP_EPROTO;
	}
	return 0;
}

static int land_chunk(struct xfer *x, struct recv_state *r,
		      const struct rp_wc *wc)
{
	struct recv_file *c = &r->cur;
	bool last = wc->imm & RP_IMM_END;
	size_t off = (size_t)(x->done % x->window) * x->chunk;
	uint32_t len = wc->byte_len;
	int rc = settle(x, r, true);

	if (!rc)
		rc = check_chunk(x, c, wc, last);
	if (rc)
		return rc;
	/*
	 * The slot stays remotely writable: hashing it and then writing it
	 * could hash one version and write another. Copy it out once; what
	 * is hashed is then exactly what is written, and the slot can be
	 * handed back before the disk write.
	 */
	memcpy(r->bounce, x->ring + off, len);
	x->done++;
	/* The credit goes once per batch of completions (session_loop). */
	rc = rp_verbs_post_recv(x->v, wc->wr_id);
	if (rc)
		return rc;
	if (!c->err && x->o->max_size && c->bytes + len > x->o->max_size) {
		RP_ERR("the stream from %s passes this receiver's --max-size "
		       "of %" PRIu64 " bytes", x->peer, x->o->max_size);
		c->err = RP_ELIMIT;
	}
	if (!c->err) {
		rp_csum_update(c->csum, r->bounce, len);
		c->err = rp_fileio_dst_write(&c->dst, r->bounce, len,
					     c->bytes);
	}
	c->bytes += len;
	r->tally.landed += len;
	c->data_done = last;
	return early_fack(x, r);
}

static int handle_wc(struct xfer *x, struct recv_state *r,
		     const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_RECV_WRITE_IMM:
		return land_chunk(x, r, wc);
	case RP_WC_SEND:
		r->sends_out--;
		return give_credit(x, r);
	default:
		/* We post no writes: only the sender's Send can cause it. */
		RP_ERR("unexpected completion %s: %s does not follow the "
		       "protocol", rp_wc_op_name(wc->op), x->peer);
		return RP_EPROTO;
	}
}

/* The control channel has something we can take now: a FILE or FIN
 * between files, a FEND (or an ERR) while a file's chunks land. */
static bool want_message(const struct recv_state *r)
{
	return !r->cur.open ? !r->fin_seen : !r->cur.fend_seen;
}

static int session_loop(struct xfer *x, struct recv_state *r)
{
	struct rp_wc wc[16];
	int rc = 0;

	rp_progress_start(&r->prog, x->size);
	x->batch = true;
	while (!rc && !(r->fin_seen && !r->cur.open &&
			r->credit_sent == x->done)) {
		rc = xfer_next(x, wc, 16, xfer_deadline(x),
				   want_message(r));
		if (rc == 0) {
			rc = on_message(x, r);
		} else if (rc > 0) {
			int n = rc;

			rc = 0;
			for (int i = 0; !rc && i < n; i++)
				rc = handle_wc(x, r, &wc[i]);
			/* One Send for the batch: it is cumulative. */
			if (!rc)
				rc = give_credit(x, r);
		}
		if (!rc)
			rc = settle(x, r, false);
		rp_progress_update(&r->prog, r->tally.landed);
	}
	rp_progress_end(&r->prog);
	return rc;
}

/* FIN: the directories with new entries reach the disk, directories
 * kept by --preserve get their times (innermost first), then ACK. */
static int close_session(struct xfer *x, struct recv_state *r)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result ack = { .status = RP_ST_OK, .bytes = r->tally.bytes };
	int rc;

	leave(r);
	rc = r->dir_sync_err;

	for (size_t i = r->ntimes; !rc && i-- > 0;)
		rc = rp_fileio_dir_times(r->dirfd, r->times[i].path,
					 r->times[i].sec, r->times[i].nsec);
	if (rc)
		return rc;
	rp_verbs_dereg_ring(x->v);
	x->ring = NULL;
	RP_TRACE("data", "session over: %" PRIu64 " chunks landed; ring "
		 "deregistered", x->done);
	xfer_phase(x, RP_PHASE_ACK);
	trace_result("->", RP_MSG_ACK, &ack);
	rc = msg_send(x, buf,
		      rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK, &ack),
		      "ACK");
	return rc ? rc : xfer_flush(x);
}

/* The handshake is over: ask for a transfer slot; --timeout from here. */
static int admit(struct xfer *x, const struct rp_admission *adm)
{
	int rc = adm ? adm->admit(adm->ctx, x->peer) : 0;

	if (!rc)
		x->handshake_end = 0;
	return rc;
}

static int run(struct xfer *x, struct recv_state *r,
	       const struct rp_admission *adm)
{
	struct rp_hello h;
	int rc = xfer_start(x, authenticate);

	if (rc)
		return rc;
	rc = recv_hello(x, &h);
	if (!rc)
		rc = admit(x, adm);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_SETUP);
	rc = accept_hello(x, r, &h);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_DATA);
	rc = session_loop(x, r);
	if (rc)
		return rc;
	xfer_phase(x, RP_PHASE_FIN);
	return close_session(x, r);
}

static void release(struct recv_state *r)
{
	if (r->cur.open)
		file_close(&r->cur);
	/* Entries already committed stay: sync what we can. */
	leave(r);
	for (size_t i = 0; i < r->ntimes; i++)
		free(r->times[i].path);
	free(r->times);
	free(r->bounce);
}

int rp_session_recv_one(const struct rp_opts *o, const uint8_t *psk,
			int dirfd, int fd, const char *peer,
			const struct rp_admission *adm,
			struct rp_outcome *out)
{
	struct xfer x = {
		.o = o, .psk = psk, .fd = fd, .rep = { .role = "recv" },
		.start = rp_now(),
	};
	struct recv_state r = { .dirfd = dirfd, .here_fd = -1 };
	int rc;

	r.umask = umask(0);
	umask(r.umask);
	x.handshake_end = x.start + rp_session_handshake_secs(o);
	snprintf(x.peer, sizeof(x.peer), "%s", peer);
	rc = run(&x, &r, adm);
	if (rc)
		xfer_send_failure(&x, RP_MSG_ERR, rc);
	release(&r);
	if (!rc && r.tally.failed) {
		xfer_phase(&x, RP_PHASE_DONE);
		rc = r.tally.first_err;
	}
	x.tally = r.tally;
	xfer_report(&x, rc, out);
	xfer_release(&x);
	return rc;
}
