// SPDX-License-Identifier: MIT
/*
 * The receiver's group commit (session_int.h): small files, verified,
 * wait here with their data written but not synced; one syncfs(2) then
 * makes a whole batch durable, each file gets its name, and the batch's
 * FACKs go out together. An fsync per file costs a journal commit each:
 * for a tree of small files that, not the network, was the bound.
 * Guarantees kept: a file is verified before it is staged, durable
 * before it is named, and named before its FACK; ACK still comes after
 * the directories' fsync. FACKs stay in the order of the entries.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/pool.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

bool rp_batch_takes(const struct rp_batch *b, uint64_t size)
{
	return size <= RP_BATCH_FILE_MAX && b->n < RP_BATCH_FILES &&
	       b->bytes + size <= RP_BATCH_BYTES;
}

/* The next entry's slot, its path copied, all but its dst set: NULL
 * when out of memory (reported). The dst (2 KiB of names) is written
 * once, by the caller. */
static struct rp_batched *next_slot(struct rp_batch *b, uint32_t id,
				    const char *path, uint64_t bytes)
{
	struct rp_batched *e;

	if (!b->e && rp_sys_calloc(&b->e, RP_BATCH_FILES, sizeof(*b->e),
				   "files waiting for their sync"))
		return NULL;
	e = &b->e[b->n];
	e->id = id;
	e->bytes = bytes;
	e->force = false;
	e->answered = false;
	e->err = 0;
	e->why = NULL;
	e->path = strdup(path);
	if (!e->path) {
		RP_ERR("strdup: %s", strerror(ENOMEM));
		return NULL;
	}
	return e;
}

int rp_batch_add(struct rp_batch *b, struct rp_dst *d, uint32_t id,
		 const char *path, uint64_t bytes, bool force)
{
	struct rp_batched *e;
	int rc;

	rc = rp_fileio_dst_stage(d);
	if (rc)
		return rc;
	e = next_slot(b, id, path, bytes);
	if (!e)
		return -ENOMEM;
	e->dst = *d;
	e->force = force;
	/* The file is the batch's now: the caller's close leaves it. */
	rp_fileio_dst_init(d);
	b->n++;
	b->files++;
	b->bytes += bytes;
	return 0;
}

int rp_batch_add_answer(struct rp_batch *b, uint32_t id, const char *path,
			uint64_t bytes, int err)
{
	char why[RP_TEXT_MAX + 1];
	struct rp_batched *e = next_slot(b, id, path, bytes);

	if (!e)
		return -ENOMEM;
	rp_fileio_dst_init(&e->dst);
	e->answered = true;
	e->err = err;
	if (rp_trace_reason_take(why, sizeof(why)))
		e->why = strdup(why);	/* NULL: the error's own words */
	b->n++;
	return 0;
}

bool rp_batch_full(const struct rp_batch *b)
{
	return b->n == RP_BATCH_FILES || b->bytes >= RP_BATCH_BYTES;
}

static void entry_free(struct rp_batched *e)
{
	rp_fileio_dst_abort(&e->dst);
	free(e->path);
	free(e->why);
	e->path = e->why = NULL;
}

/*
 * A synced file's name and close, on the worker that ran its sync (on
 * tmpfs, with no sync, on the session thread): there the directory
 * work of the link, a quarter of the receiver's cost of a small file
 * on ext4, overlaps the session thread's next files. Its reason, when
 * it fails, is kept for its FACK.
 */
static void name_one(struct rp_batched *e)
{
	char why[RP_TEXT_MAX + 1];

	if (e->answered)
		return;
	rp_trace_reason_start();
	rp_fileio_dst_durable(&e->dst);
	e->err = rp_fileio_dst_commit(&e->dst, e->force);
	if (e->err && rp_trace_reason_take(why, sizeof(why)))
		e->why = strdup(why);	/* NULL: the error's own words */
	rp_fileio_dst_abort(&e->dst);	/* closes it; named or dropped */
}

/* One file's turn, in order: its result counted and told, with its own
 * reason or the sync's. */
static int commit_one(struct xfer *x, struct rp_tally *t,
		      struct rp_batched *e, int synced, const char *why)
{
	/* A failed sync fails the files, not what was answered already. */
	bool sync_failed = synced && !e->answered;
	int err = sync_failed ? synced : e->err;

	rp_trace_reason_start();
	if (sync_failed)
		rp_trace_reason_put(why);
	else if (e->why)
		rp_trace_reason_put(e->why);
	rp_xfer_entry(x, t, e->path, e->bytes, err, NULL);
	err = rp_xfer_send_fack(x, e->id, err, e->bytes);
	entry_free(e);
	return err;
}

/* The batch's first file (b->files > 0): the file system to sync. */
static const struct rp_batched *first_file(const struct rp_batch *b)
{
	const struct rp_batched *e = b->e;

	while (e->answered)
		e++;
	return e;
}

/* In a worker: the sync, which may take long on a busy disk, then
 * the names. The session thread touches none of b until synced. */
static void syncfs_job(struct rp_job *j, void *scratch)
{
	struct rp_batch *b = (struct rp_batch *)j;

	(void)scratch;
	b->sync_errno = syncfs(first_file(b)->dst.fd) < 0 ? errno : 0;
	pthread_mutex_lock(b->naming);
	for (uint32_t i = 0; !b->sync_errno && i < b->n; i++)
		name_one(&b->e[i]);
	pthread_mutex_unlock(b->naming);
	atomic_store_explicit(&b->synced, true, memory_order_release);
}

void rp_batch_start(struct xfer *x, struct rp_batch *b)
{
	b->busy = true;
	b->sync_errno = 0;
	b->next_sync = rp_now() + RP_SYNC_EVERY;
	/* tmpfs keeps nothing past a reboot: a sync there waits for
	 * nothing, and costs a worker's wake-up a batch. Answers alone
	 * have nothing to sync either. */
	b->in_memory = !b->files || rp_fileio_in_memory(first_file(b)->dst.fd);
	if (b->in_memory) {	/* named in rp_batch_finish() */
		atomic_store_explicit(&b->synced, true, memory_order_release);
		return;
	}
	atomic_store_explicit(&b->synced, false, memory_order_relaxed);
	b->job.run = syncfs_job;
	rp_pool_submit(x->pool, &b->job);
}

bool rp_batch_synced(const struct rp_batch *b)
{
	return atomic_load_explicit(&b->synced, memory_order_acquire);
}

int rp_batch_tick(struct xfer *x, struct rp_batch *b)
{
	struct rp_sync s = { .id = b->e[0].id, .total_bytes = b->bytes };

	return rp_xfer_sync_due(x, &s, &b->next_sync);
}

/* Until the batch's syncfs ended, telling the sender we are alive
 * (SYNC), as for one large file's final sync. 0 or the session's
 * failure. */
static int wait_synced(struct xfer *x, struct rp_batch *b)
{
	int rc = 0;

	while (!rc && !rp_batch_synced(b)) {
		rc = rp_batch_tick(x, b);
		if (!rc)
			rc = rp_pool_wait(x->pool, b->next_sync);
		if (rc == RP_ETIMEOUT ||
		    (rc == RP_EINTERRUPTED && !rp_session_stop))
			rc = 0;
		rp_pool_ack(x->pool);
	}
	/* The chunks' jobs that ended meanwhile woke no one: look again. */
	if (!b->in_memory)
		rp_pool_notify(x->pool);
	return rc;
}

/* The sync's result: 0 or its -errno, reported. */
static int sync_result(const struct rp_batch *b)
{
	char many[48];

	if (!b->sync_errno)
		return 0;
	snprintf(many, sizeof(many), "none of the %u files", b->files);
	RP_ERR("syncfs(file system of %s): %s: %s waiting for it is stored",
	       first_file(b)->dst.shown, strerror(b->sync_errno),
	       b->files == 1 ? "the file" : many);
	return -b->sync_errno;
}

int rp_batch_finish(struct xfer *x, struct rp_batch *b, struct rp_tally *t)
{
	char why[RP_TEXT_MAX + 1] = "";
	char held[RP_TEXT_MAX + 1];
	bool had;
	int rc, synced;

	if (!b->busy)
		return 0;
	rc = wait_synced(x, b);
	if (rc)
		return rc;
	/* The entry being answered now keeps its own reason. */
	had = rp_trace_reason_take(held, sizeof(held));
	rp_trace_reason_start();
	synced = sync_result(b);
	(void)rp_trace_reason_take(why, sizeof(why));
	for (uint32_t i = 0; b->in_memory && i < b->n; i++)
		name_one(&b->e[i]);
	if (b->files)
		RP_EV("file", "file.batch", "{files} file{files:|s} {how}, "
		      "then named", EV_U("files", b->files),
		      EV_U("bytes", b->bytes),
		      EV_T("how", b->in_memory ? "in memory (tmpfs): no "
			   "sync to wait for" : "made durable by one syncfs"),
		      EV_B("synced", !b->in_memory), EV_B("ok", synced == 0));
	for (uint32_t i = 0; i < b->n; i++) {
		struct rp_batched *e = &b->e[i];
		int e_rc = commit_one(x, t, e, synced, why);

		if (!rc)
			rc = e_rc;
	}
	b->n = 0;
	b->files = 0;
	b->bytes = 0;
	b->busy = false;
	rp_trace_reason_start();
	if (had)
		rp_trace_reason_put(held);
	return rc;
}

void rp_batch_free(struct rp_batch *b)
{
	pthread_mutex_t *naming = b->naming;

	for (uint32_t i = 0; b->e && i < b->n; i++)
		entry_free(&b->e[i]);
	free(b->e);
	*b = (struct rp_batch){ .naming = naming };
}
