// SPDX-License-Identifier: MIT
/* Unit tests of the worker pool: every job runs once, on a worker thread
 * with its own scratch buffer and SIGINT/SIGTERM blocked; the eventfd
 * wakes the submitter; freeing drops queued jobs and joins. */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmapush/err.h"
#include "rdmapush/limits.h"
#include "rdmapush/pool.h"
#include "rdmapush/trace.h"


struct tjob {
	struct rp_job job;
	int ran;		/* times run */
	pthread_t by;
	void *scratch;
	bool sig_blocked;
	unsigned int sleep_us;
	pthread_mutex_t *gate;	/* held by the test: the job waits on it */
	atomic_bool started;	/* a worker is inside it */
};

static void run(struct rp_job *j, void *scratch)
{
	struct tjob *t = (struct tjob *)j;
	sigset_t cur;

	atomic_store(&t->started, true);
	if (t->gate) {
		pthread_mutex_lock(t->gate);
		pthread_mutex_unlock(t->gate);
	}
	if (t->sleep_us)
		usleep(t->sleep_us);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	t->sig_blocked = sigismember(&cur, SIGINT) &&
			 sigismember(&cur, SIGTERM);
	t->by = pthread_self();
	t->scratch = scratch;
	if (scratch)
		memset(scratch, 0xab, 4096);	/* ASan: it is that big */
	t->ran++;
}

/* Wait (on the eventfd) until no job is queued or running. */
static void drain(struct rp_pool *p)
{
	double end = rp_now() + 10;

	while (rp_pool_busy(p)) {
		int rc = rp_pool_wait(p, end);

		assert_true(rc == 0 || rc == RP_ETIMEOUT);
		assert_true(rp_now() < end);
		rp_pool_ack(p);
	}
}

static void test_every_job_runs_once(void **state)
{
	enum { N = 200 };
	static struct tjob t[N];
	struct rp_pool *p;
	int other_thread = 0;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 3, 4096), 0);
	for (int i = 0; i < N; i++) {
		t[i] = (struct tjob){ .job.run = run };
		rp_pool_submit(p, &t[i].job);
	}
	drain(p);
	for (int i = 0; i < N; i++) {
		assert_int_equal(t[i].ran, 1);
		assert_true(t[i].sig_blocked);
		assert_non_null(t[i].scratch);
		/* Page-aligned: written to files opened O_DIRECT. */
		assert_int_equal((uintptr_t)t[i].scratch %
				 (uintptr_t)sysconf(_SC_PAGESIZE), 0);
		other_thread += !pthread_equal(t[i].by, pthread_self());
	}
	assert_int_equal(other_thread, N);
	rp_pool_free(p);
}

/* Two jobs running at once get two different scratch buffers. */
static void test_scratch_per_thread(void **state)
{
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct tjob a = { .job.run = run, .gate = &gate };
	struct tjob b = { .job.run = run, .gate = &gate };
	struct rp_pool *p;
	double end = rp_now() + 5;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 2, 4096), 0);
	pthread_mutex_lock(&gate);
	rp_pool_submit(p, &a.job);
	rp_pool_submit(p, &b.job);
	assert_int_equal(rp_pool_busy(p), 2);
	/* Nothing ended yet: the eventfd stays quiet. */
	assert_int_equal(rp_pool_wait(p, rp_now() + 0.05), RP_ETIMEOUT);
	pthread_mutex_unlock(&gate);
	while (rp_pool_busy(p) && rp_now() < end)
		assert_int_equal(rp_pool_wait(p, end), 0);
	drain(p);
	assert_true(a.scratch != b.scratch || pthread_equal(a.by, b.by));
	assert_false(pthread_equal(a.by, b.by));
	rp_pool_free(p);
}

/* Freeing lets the running job end and never runs the queued ones. */
static void test_free_drops_queued(void **state)
{
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct tjob first = { .job.run = run, .sleep_us = 50000 };
	struct tjob later[5];
	struct rp_pool *p;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 1, 0), 0);
	rp_pool_submit(p, &first.job);
	for (int i = 0; i < 5; i++) {
		later[i] = (struct tjob){ .job.run = run, .gate = &gate };
		rp_pool_submit(p, &later[i].job);
	}
	/* The worker is inside first (a loaded machine may take a while
	 * to get there). */
	while (!atomic_load(&first.started))
		usleep(1000);
	rp_pool_free(p);
	assert_int_equal(first.ran, 1);
	assert_null(first.scratch);
	for (int i = 0; i < 5; i++)
		assert_int_equal(later[i].ran, 0);
}

static void notifier(struct rp_job *j, void *scratch)
{
	struct tjob *t = (struct tjob *)j;

	(void)scratch;
	t->ran++;
	rp_pool_notify((struct rp_pool *)t->scratch);
	pthread_mutex_lock(t->gate);
	pthread_mutex_unlock(t->gate);
}

/* A job's rp_pool_notify wakes the submitter before the job ends. */
static void test_notify_from_job(void **state)
{
	pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
	struct tjob t = { .job.run = notifier, .gate = &gate };
	struct rp_pool *p;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 1, 0), 0);
	t.scratch = p;
	pthread_mutex_lock(&gate);
	rp_pool_submit(p, &t.job);
	assert_int_equal(rp_pool_wait(p, rp_now() + 5), 0);
	rp_pool_ack(p);
	assert_int_equal(t.ran, 1);
	assert_int_equal(rp_pool_busy(p), 1);
	pthread_mutex_unlock(&gate);
	drain(p);
	rp_pool_free(p);
}

/* The peer picks the chunk, so the scratch: no more than RP_MAX_SCRATCH
 * per transfer, in fewer workers; within it, as many as asked. */
static void test_scratch_bounded(void **state)
{
	struct rp_pool *p;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 64, 64u << 20), 0);
	assert_int_equal(rp_pool_threads(p), RP_MAX_SCRATCH / (64u << 20));
	rp_pool_free(p);
	assert_int_equal(rp_pool_new(&p, 8, 32u << 20), 0);
	assert_int_equal(rp_pool_threads(p), 8);
	rp_pool_free(p);
	/* Without scratch nothing is pinned: all of them. */
	assert_int_equal(rp_pool_new(&p, 64, 0), 0);
	assert_int_equal(rp_pool_threads(p), 64);
	rp_pool_free(p);
}

static void test_bad_thread_counts(void **state)
{
	struct rp_pool *p = (void *)1;

	(void)state;
	assert_int_equal(rp_pool_new(&p, 0, 0), RP_EINTERNAL);
	assert_null(p);
	assert_int_equal(rp_pool_new(&p, 65, 0), RP_EINTERNAL);
	assert_null(p);
	rp_pool_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_job_runs_once),
		cmocka_unit_test(test_scratch_per_thread),
		cmocka_unit_test(test_free_drops_queued),
		cmocka_unit_test(test_notify_from_job),
		cmocka_unit_test(test_scratch_bounded),
		cmocka_unit_test(test_bad_thread_counts),
	};

	rp_trace_init(RP_V_QUIET, "test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
