// SPDX-License-Identifier: MIT
/* Worker threads for the chunks: one FIFO queue under a mutex, an eventfd
 * that tells the submitter something finished. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/limits.h"
#include "rdmapush/pool.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

struct worker {
	struct rp_pool *p;
	pthread_t thread;
	void *scratch;		/* the job's buffer in this thread */
};

struct rp_pool {
	pthread_mutex_t lock;
	pthread_cond_t more;	/* a job was queued, or stopping */
	struct rp_job *head, *tail;
	uint32_t busy;		/* queued + running */
	bool stopping;
	int efd;
	uint32_t nthreads;	/* started */
	uint32_t nworkers;
	struct worker *w;
};

void rp_pool_notify(struct rp_pool *p)
{
	uint64_t one = 1;

	/* Fails only when the count would overflow 2^64 - 2: the reader
	 * wakes up anyway. */
	if (write(p->efd, &one, sizeof(one)) < 0)
		return;
}

static struct rp_job *take(struct rp_pool *p)
{
	struct rp_job *j;

	pthread_mutex_lock(&p->lock);
	while (!p->head && !p->stopping)
		pthread_cond_wait(&p->more, &p->lock);
	j = p->stopping ? NULL : p->head;
	if (j) {
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	return j;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rp_pool *p = w->p;
	struct rp_job *j;

	while ((j = take(p))) {
		j->run(j, w->scratch);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		pthread_mutex_unlock(&p->lock);
		rp_pool_notify(p);
	}
	return NULL;
}

/* Stop and join the threads started so far; queued jobs never run. */
static void stop(struct rp_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (uint32_t i = 0; i < p->nthreads; i++)
		pthread_join(p->w[i].thread, NULL);
	p->nthreads = 0;
}

static void free_workers(struct rp_pool *p)
{
	for (uint32_t i = 0; i < p->nworkers; i++)
		free(p->w[i].scratch);
	free(p->w);
}

static int start(struct rp_pool *p, uint32_t threads)
{
	sigset_t block, old;
	int rc = 0;

	/* Workers inherit this mask: SIGINT and SIGTERM reach the thread
	 * that waits in poll(2) and checks the stop flag. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (; p->nthreads < threads; p->nthreads++) {
		rc = pthread_create(&p->w[p->nthreads].thread, NULL, work,
				    &p->w[p->nthreads]);
		if (rc) {
			RP_ERR("pthread_create(worker %u of %u): %s",
			       p->nthreads + 1, threads, strerror(rc));
			rc = -rc;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Page-aligned: a job may write it to a file opened O_DIRECT. 0 or
 * -ENOMEM (not reported). */
static int alloc_scratch(void **buf, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	if (posix_memalign(buf, page > 0 ? (size_t)page : 4096, len)) {
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* As many workers as fit RP_MAX_SCRATCH of scratch, at least one: the
 * chunk is the peer's choice, the memory pinned is ours. */
static uint32_t scratch_bound(uint32_t threads, size_t scratch)
{
	uint64_t fit;

	if (!scratch || (uint64_t)threads * scratch <= RP_MAX_SCRATCH)
		return threads;
	fit = RP_MAX_SCRATCH / scratch;
	if (fit < 1)
		fit = 1;
	RP_EV("pool", "pool.capped", "{threads} worker thread{threads:|s} "
	      "instead of {asked}: {asked} chunks of {scratch} bytes would "
	      "exceed the {max} bytes of scratch a transfer may hold",
	      EV_U("threads", fit), EV_U("asked", threads),
	      EV_U("scratch", scratch), EV_U("max", RP_MAX_SCRATCH));
	return (uint32_t)fit;
}

uint32_t rp_pool_threads(const struct rp_pool *p)
{
	return p->nworkers;
}

int rp_pool_new(struct rp_pool **out, uint32_t threads, size_t scratch)
{
	struct rp_pool *p;
	int rc;

	*out = NULL;
	if (threads < 1 || threads > RP_MAX_THREADS) {
		RP_ERR("rp_pool_new: %u threads, outside 1..%u", threads,
		       RP_MAX_THREADS);
		return RP_EINTERNAL;
	}
	threads = scratch_bound(threads, scratch);
	p = calloc(1, sizeof(*p));
	if (!p)
		goto err_nomem;
	p->w = calloc(threads, sizeof(*p->w));
	if (!p->w)
		goto err_free;
	for (; p->nworkers < threads; p->nworkers++) {
		struct worker *w = &p->w[p->nworkers];

		w->p = p;
		if (scratch && alloc_scratch(&w->scratch, scratch))
			goto err_free_workers;
	}
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0) {
		rc = -errno;
		RP_ERR("eventfd: %s", strerror(-rc));
		goto err_free_scratch;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	rc = start(p, threads);
	if (rc)
		goto err_stop;
	RP_EV("pool", "pool.start", "{threads} worker thread{threads:|s} "
	      "{threads:reads, hashes and writes|read, hash and write} the "
	      "chunks; this thread only drives the queue pair",
	      EV_U("threads", threads));
	*out = p;
	return 0;

err_stop:
	stop(p);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
	close(p->efd);
err_free_scratch:
	free_workers(p);
	free(p);
	return rc;
err_free_workers:
	free_workers(p);
err_free:
	free(p);
err_nomem:
	RP_ERR("rp_pool_new: %s", strerror(ENOMEM));
	return -ENOMEM;
}

void rp_pool_submit(struct rp_pool *p, struct rp_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	p->busy++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

int rp_pool_fd(const struct rp_pool *p)
{
	return p->efd;
}

void rp_pool_ack(struct rp_pool *p)
{
	uint64_t n;

	/* EAGAIN: nothing new; the count itself does not matter. */
	if (read(p->efd, &n, sizeof(n)) < 0)
		return;
}

int rp_pool_wait(struct rp_pool *p, double deadline)
{
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };
	int ms = rp_sys_poll_ms(deadline, RP_SYS_MAX_SLEEP_MS);
	int rc;

	if (!ms)
		return RP_ETIMEOUT;
	rc = poll(&pfd, 1, ms);
	if (rc < 0) {
		int e = errno;

		if (e == EINTR)
			return RP_EINTERRUPTED;
		RP_ERR("poll(worker threads' eventfd): %s", strerror(e));
		return -e;
	}
	return rc ? 0 : RP_ETIMEOUT;
}

uint32_t rp_pool_busy(struct rp_pool *p)
{
	uint32_t n;

	pthread_mutex_lock(&p->lock);
	n = p->busy;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void rp_pool_free(struct rp_pool *p)
{
	if (!p)
		return;
	stop(p);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->lock);
	close(p->efd);
	free_workers(p);
	free(p);
}
