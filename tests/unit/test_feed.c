// SPDX-License-Identifier: MIT
/*
 * The relay feed (src/session_feed.c): entries in order, progress and end
 * seen by the downstream, the eventfd readable on each change, the bound
 * (a full feed holds its producer until an entry is taken), and the fds
 * it owns closed whichever side lets go first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmapush/err.h"
#include "../../src/session_int.h"

static _Atomic int stop;

static struct rp_feed_entry file_entry(const char *path, uint64_t size,
				       int fd)
{
	struct rp_feed_entry e = { .kind = RP_FILE_REG, .size = size,
				   .fd = fd, .mode = 0644 };

	snprintf(e.path, sizeof(e.path), "%s", path);
	return e;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static int some_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void test_order_progress_end(void **s)
{
	struct rp_feed *f;
	struct rp_feed_entry a = file_entry("a", 10, some_fd());
	struct rp_feed_entry b = file_entry("d/b", 0, -1), got;
	uint8_t sum[RP_CSUM_LEN];
	uint64_t sa, sb;
	int afd = a.fd, fd;

	(void)s;
	memset(sum, 0xab, sizeof(sum));
	b.kind = RP_FILE_DIR;
	assert_int_equal(rp_feed_new(&f, 4, &stop), 0);
	assert_int_equal(rp_feed_head(f, &got), -EAGAIN);
	assert_false(readable(rp_feed_fd(f)));
	assert_int_equal(rp_feed_put(f, &a, &sa), 0);
	assert_int_equal(a.fd, -1);	/* the feed's now */
	assert_true(readable(rp_feed_fd(f)));
	rp_feed_ack(f);
	assert_false(readable(rp_feed_fd(f)));
	assert_int_equal(rp_feed_put(f, &b, &sb), 0);
	assert_int_not_equal(sa, sb);

	rp_feed_progress(f, sa, 4);
	assert_int_equal(rp_feed_head(f, &got), 1);
	assert_string_equal(got.path, "a");
	assert_int_equal(got.ready, 4);
	assert_false(got.done);
	/* Progress never goes back. */
	rp_feed_progress(f, sa, 2);
	assert_int_equal(rp_feed_head(f, &got), 1);
	assert_int_equal(got.ready, 4);
	rp_feed_ack(f);
	rp_feed_end(f, sa, 0, sum);
	assert_true(readable(rp_feed_fd(f)));
	assert_int_equal(rp_feed_head(f, &got), 1);
	assert_true(got.done);
	assert_memory_equal(got.csum, sum, sizeof(sum));

	fd = rp_feed_claim_fd(f);
	assert_int_equal(fd, afd);
	assert_int_equal(rp_feed_claim_fd(f), -1);
	rp_feed_take(f);
	assert_true(fd_open(fd));	/* claimed: the caller's */
	close(fd);
	assert_int_equal(rp_feed_head(f, &got), 1);
	assert_string_equal(got.path, "d/b");
	assert_int_equal(got.kind, RP_FILE_DIR);
	rp_feed_take(f);
	assert_int_equal(rp_feed_head(f, &got), -EAGAIN);
	rp_feed_close(f);
	assert_int_equal(rp_feed_head(f, &got), 0);
	/* Taken entries are gone: their progress is nobody's. */
	rp_feed_progress(f, sa, 9);
	rp_feed_end(f, sb, -EIO, NULL);
	rp_feed_free(f);
}

struct producer {
	struct rp_feed *f;
	int n;
	int rc;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (int i = 0; i < p->n && !p->rc; i++) {
		char name[16];
		struct rp_feed_entry e;
		uint64_t seq;

		snprintf(name, sizeof(name), "f%d", i);
		e = file_entry(name, (uint64_t)i, -1);
		p->rc = rp_feed_put(p->f, &e, &seq);
		if (!p->rc && seq != RP_FEED_NONE)
			rp_feed_end(p->f, seq, 0, NULL);
	}
	rp_feed_close(p->f);
	return NULL;
}

/* A full feed holds its producer; every entry arrives once, in order. */
static void test_bounded_in_order(void **s)
{
	struct producer p = { .n = 1000 };
	struct rp_feed_entry got;
	pthread_t t;
	int seen = 0, rc;

	(void)s;
	assert_int_equal(rp_feed_new(&p.f, 3, &stop), 0);
	assert_int_equal(pthread_create(&t, NULL, produce, &p), 0);
	while ((rc = rp_feed_head(p.f, &got)) != 0) {
		char want[16];

		if (rc < 0) {
			struct pollfd pf = { .fd = rp_feed_fd(p.f),
					     .events = POLLIN };

			assert_int_equal(rc, -EAGAIN);
			assert_int_equal(poll(&pf, 1, 5000), 1);
			rp_feed_ack(p.f);
			continue;
		}
		snprintf(want, sizeof(want), "f%d", seen);
		assert_string_equal(got.path, want);
		assert_int_equal(got.size, (uint64_t)seen);
		seen++;
		rp_feed_take(p.f);
	}
	pthread_join(t, NULL);
	assert_int_equal(p.rc, 0);
	assert_int_equal(seen, 1000);
	rp_feed_free(p.f);
}

/* The downstream leaves: a producer held on a full feed goes on, later
 * puts feed nothing (their fds closed), and what waited is closed. */
static void test_leave_releases(void **s)
{
	struct rp_feed *f;
	struct rp_feed_entry a = file_entry("a", 1, some_fd());
	struct rp_feed_entry b = file_entry("b", 1, some_fd());
	int afd = a.fd, bfd = b.fd;
	uint64_t seq;

	(void)s;
	assert_int_equal(rp_feed_new(&f, 1, &stop), 0);
	assert_int_equal(rp_feed_put(f, &a, &seq), 0);
	assert_int_not_equal(seq, RP_FEED_NONE);
	rp_feed_leave(f);
	assert_false(fd_open(afd));
	assert_int_equal(rp_feed_put(f, &b, &seq), 0);
	assert_int_equal(seq, RP_FEED_NONE);
	assert_false(fd_open(bfd));
	rp_feed_free(f);
}

static void *raise_stop(void *arg)
{
	(void)arg;
	usleep(200 * 1000);
	stop = 1;
	return NULL;
}

/* A put held on a full feed gives up on a signal (stop), its fd closed. */
static void test_stop_ends_wait(void **s)
{
	struct rp_feed *f;
	struct rp_feed_entry a = file_entry("a", 1, -1);
	struct rp_feed_entry b = file_entry("b", 1, some_fd());
	int bfd = b.fd;
	uint64_t seq;
	pthread_t t;

	(void)s;
	assert_int_equal(rp_feed_new(&f, 1, &stop), 0);
	assert_int_equal(rp_feed_put(f, &a, &seq), 0);
	assert_int_equal(pthread_create(&t, NULL, raise_stop, NULL), 0);
	assert_int_equal(rp_feed_put(f, &b, &seq), RP_EINTERRUPTED);
	assert_int_equal(seq, RP_FEED_NONE);
	assert_false(fd_open(bfd));
	pthread_join(t, NULL);
	stop = 0;
	rp_feed_free(f);
}

/* Broken (the upstream failed): the downstream is woken and told so,
 * and no entry comes after; a plain close is not broken. */
static void test_break(void **s)
{
	struct rp_feed *f;
	struct rp_feed_entry a = file_entry("a", 1, -1), got;
	uint64_t seq;

	(void)s;
	assert_int_equal(rp_feed_new(&f, 2, &stop), 0);
	assert_int_equal(rp_feed_put(f, &a, &seq), 0);
	rp_feed_ack(f);
	assert_false(rp_feed_broken(f));
	rp_feed_close(f);
	assert_false(rp_feed_broken(f));
	rp_feed_break(f);
	assert_true(readable(rp_feed_fd(f)));
	assert_true(rp_feed_broken(f));
	assert_int_equal(rp_feed_head(f, &got), 1);
	rp_feed_take(f);
	assert_int_equal(rp_feed_head(f, &got), 0);
	rp_feed_free(f);
}

/* Freed with entries waiting: their fds are closed. */
static void test_free_closes(void **s)
{
	struct rp_feed *f;
	struct rp_feed_entry a = file_entry("a", 1, some_fd());
	int afd = a.fd;
	uint64_t seq;

	(void)s;
	assert_int_equal(rp_feed_new(&f, 2, &stop), 0);
	assert_int_equal(rp_feed_put(f, &a, &seq), 0);
	assert_true(fd_open(afd));
	rp_feed_free(f);
	assert_false(fd_open(afd));
	rp_feed_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_progress_end),
		cmocka_unit_test(test_bounded_in_order),
		cmocka_unit_test(test_leave_releases),
		cmocka_unit_test(test_stop_ends_wait),
		cmocka_unit_test(test_free_closes),
		cmocka_unit_test(test_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
