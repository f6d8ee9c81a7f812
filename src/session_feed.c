// SPDX-License-Identifier: MIT
/*
 * A relay hop's feed: the entries its upstream session lands, handed to
 * the session that forwards them downstream, on another thread. The
 * upstream announces an entry, says how far its copy is written, and
 * ends it; the downstream reads the copy behind it. A bounded ring under
 * a mutex; an eventfd wakes the downstream's wait (its epoll), a
 * condition variable the upstream's when the ring is full.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "session_int.h"

struct rp_feed {
	pthread_mutex_t mu;
	pthread_cond_t room;	/* an entry left the ring */
	int efd;		/* readable: something changed */
	struct rp_feed_entry *ring;
	uint32_t cap;
	uint64_t head, tail;	/* entries taken, entries put */
	bool closed;		/* the upstream put its last entry */
	bool broken;		/* the upstream failed */
	bool gone;		/* the downstream stopped taking */
	_Atomic int *stop;	/* non-zero: a waiting put gives up */
};

int rp_feed_new(struct rp_feed **out, uint32_t cap, _Atomic int *stop)
{
	struct rp_feed *f = calloc(1, sizeof(*f));
	int e;

	*out = NULL;
	if (!f || !(f->ring = calloc(cap, sizeof(*f->ring)))) {
		free(f);
		RP_ERR("calloc(relay feed of %u entries): %s", cap,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	f->cap = cap;
	f->stop = stop;
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->efd < 0) {
		e = errno;
		RP_ERR("eventfd (relay feed): %s", strerror(e));
		free(f->ring);
		free(f);
		return -e;
	}
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->room, NULL);
	*out = f;
	return 0;
}

static void entry_release(struct rp_feed_entry *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

void rp_feed_free(struct rp_feed *f)
{
	if (!f)
		return;
	for (uint64_t i = f->head; i < f->tail; i++)
		entry_release(&f->ring[i % f->cap]);
	close(f->efd);
	pthread_cond_destroy(&f->room);
	pthread_mutex_destroy(&f->mu);
	free(f->ring);
	free(f);
}

int rp_feed_fd(const struct rp_feed *f)
{
	return f->efd;
}

/* Under the mutex: the downstream's wait ends. */
static void wake(struct rp_feed *f)
{
	uint64_t one = 1;

	/* Only EAGAIN (the count at its maximum: readable anyway). */
	(void)!write(f->efd, &one, sizeof(one));
}

void rp_feed_ack(struct rp_feed *f)
{
	uint64_t n;

	(void)!read(f->efd, &n, sizeof(n));
}

int rp_feed_put(struct rp_feed *f, struct rp_feed_entry *e, uint64_t *seq)
{
	int rc = 0;

	*seq = RP_FEED_NONE;
	pthread_mutex_lock(&f->mu);
	while (!f->gone && !*f->stop && f->tail - f->head >= f->cap) {
		struct timespec t;

		/* A signal is seen within a tenth of a second. */
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&f->room, &f->mu, &t);
	}
	if (*f->stop && !f->gone) {
		rc = RP_EINTERRUPTED;
	} else if (!f->gone) {
		*seq = f->tail;
		f->ring[f->tail++ % f->cap] = *e;
		e->fd = -1;
		wake(f);
	}
	pthread_mutex_unlock(&f->mu);
	/* Not fed (the downstream left, or a signal): ours to close. */
	entry_release(e);
	return rc;
}

/* Entry seq, while still in the ring (else NULL); under the mutex. */
static struct rp_feed_entry *at(struct rp_feed *f, uint64_t seq)
{
	return seq >= f->head && seq < f->tail ? &f->ring[seq % f->cap] :
						 NULL;
}

void rp_feed_progress(struct rp_feed *f, uint64_t seq, uint64_t ready)
{
	struct rp_feed_entry *e;

	pthread_mutex_lock(&f->mu);
	e = at(f, seq);
	if (e && ready > e->ready) {
		e->ready = ready;
		wake(f);
	}
	pthread_mutex_unlock(&f->mu);
}

void rp_feed_end(struct rp_feed *f, uint64_t seq, int err,
		 const uint8_t csum[RP_CSUM_LEN])
{
	struct rp_feed_entry *e;

	pthread_mutex_lock(&f->mu);
	e = at(f, seq);
	if (e) {
		e->done = true;
		e->err = err;
		if (csum)
			memcpy(e->csum, csum, RP_CSUM_LEN);
		wake(f);
	}
	pthread_mutex_unlock(&f->mu);
}

void rp_feed_close(struct rp_feed *f)
{
	pthread_mutex_lock(&f->mu);
	f->closed = true;
	wake(f);
	pthread_mutex_unlock(&f->mu);
}

void rp_feed_break(struct rp_feed *f)
{
	pthread_mutex_lock(&f->mu);
	f->closed = true;
	f->broken = true;
	wake(f);
	pthread_mutex_unlock(&f->mu);
}

bool rp_feed_broken(struct rp_feed *f)
{
	bool b;

	pthread_mutex_lock(&f->mu);
	b = f->broken;
	pthread_mutex_unlock(&f->mu);
	return b;
}

int rp_feed_head(struct rp_feed *f, struct rp_feed_entry *copy)
{
	int rc;

	pthread_mutex_lock(&f->mu);
	if (f->head < f->tail) {
		*copy = f->ring[f->head % f->cap];
		rc = 1;
	} else {
		rc = f->closed ? 0 : -EAGAIN;
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

int rp_feed_claim_fd(struct rp_feed *f)
{
	struct rp_feed_entry *e;
	int fd = -1;

	pthread_mutex_lock(&f->mu);
	e = at(f, f->head);
	if (e) {
		fd = e->fd;
		e->fd = -1;
	}
	pthread_mutex_unlock(&f->mu);
	return fd;
}

void rp_feed_take(struct rp_feed *f)
{
	struct rp_feed_entry *e;

	pthread_mutex_lock(&f->mu);
	e = at(f, f->head);
	if (e) {
		entry_release(e);
		f->head++;
		pthread_cond_signal(&f->room);
	}
	pthread_mutex_unlock(&f->mu);
}

void rp_feed_leave(struct rp_feed *f)
{
	pthread_mutex_lock(&f->mu);
	f->gone = true;
	while (f->head < f->tail)
		entry_release(&f->ring[f->head++ % f->cap]);
	pthread_cond_broadcast(&f->room);
	pthread_mutex_unlock(&f->mu);
}
