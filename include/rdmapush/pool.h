/* SPDX-License-Identifier: MIT */
/*
 * A fixed set of worker threads that run jobs from one queue, so that the
 * thread driving the queue pair never reads, hashes or writes a chunk.
 * A job reports its own result in its own fields; the pool only says
 * "something finished" on an eventfd, which the session's wait watches.
 */
#ifndef RDMAPUSH_POOL_H
#define RDMAPUSH_POOL_H

#include <stddef.h>
#include <stdint.h>

struct rp_pool;

struct rp_job {
	/*
	 * Runs in a worker thread, with that thread's scratch buffer
	 * (scratch bytes of rp_pool_new, or NULL). It must not report
	 * errors itself (RP_ERR holds the first error for main, which is
	 * not thread-safe): it stores them in its job for the submitter.
	 */
	void (*run)(struct rp_job *j, void *scratch);
	struct rp_job *next;	/* the pool's, while queued */
};

/*
 * Start threads workers (1..RP_MAX_THREADS; fewer when threads * scratch
 * would exceed RP_MAX_SCRATCH), each with a page-aligned scratch buffer
 * of scratch bytes (0: none; aligned for O_DIRECT writes from it), with SIGINT and SIGTERM blocked: signals
 * stay with the caller's thread. 0 or -errno (reported); *out NULL then.
 */
int rp_pool_new(struct rp_pool **out, uint32_t threads, size_t scratch)
	__attribute__((warn_unused_result));

/* Queue j (not queued already); a free worker runs it soon. */
void rp_pool_submit(struct rp_pool *p, struct rp_job *j);

/*
 * From inside a job: wake the submitter now (a job may have news before
 * it ends, as a slot copied out of the ring before its write).
 */
void rp_pool_notify(struct rp_pool *p);

/* Readable after a job ended or called rp_pool_notify(); never -1. */
int rp_pool_fd(const struct rp_pool *p);

/* Consume the eventfd's count (non-blocking): call before looking at
 * the jobs, so a job ending meanwhile wakes the next wait. */
void rp_pool_ack(struct rp_pool *p);

/*
 * Wait until the eventfd is readable or deadline (rp_now() seconds)
 * passes. 0 (readable), RP_ETIMEOUT, RP_EINTERRUPTED (a signal), or
 * -errno (reported).
 */
int rp_pool_wait(struct rp_pool *p, double deadline)
	__attribute__((warn_unused_result));

/* Jobs queued or running now. */
uint32_t rp_pool_busy(struct rp_pool *p);

/*
 * Let the running jobs end, drop the queued ones (never run), join the
 * threads and free. NULL-safe. Call before freeing what jobs point to.
 */
/* How many worker threads run: fewer than asked when threads * scratch
 * would exceed RP_MAX_SCRATCH (limits.h). */
uint32_t rp_pool_threads(const struct rp_pool *p);

void rp_pool_free(struct rp_pool *p);

#endif
