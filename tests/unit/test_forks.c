// SPDX-License-Identifier: MIT
/* Unit tests of the servers' table of children (forks.h): a full table
 * refuses without forking or writing past its end, and a child's
 * admission entry lives exactly as long as its process: it is released
 * when the child is reaped, not when its admission socket closes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmapush/forks.h"
#include "rdmapush/ctrl.h"

#define ADDR	"10.0.0.7"

struct fx {
	struct rp_admit adm;
	struct rp_kid kids[2];	/* kids[1]: a guard, never to be touched */
	struct rp_forks f;
};

static int setup(void **state)
{
	static struct fx fx;

	memset(&fx, 0, sizeof(fx));
	rp_admit_init(&fx.adm, 4, RP_MAX_PENDING, 8);
	memset(&fx.kids[1], 0x5a, sizeof(fx.kids[1]));
	fx.f = (struct rp_forks){ .kids = fx.kids, .max = 1, .adm = &fx.adm,
				  .kill_after = 60 };
	*state = &fx;
	return 0;
}

/* Fork a child that waits for its admission socket to close, then
 * exits; returns its pid (the child never returns). */
static pid_t spawn_waiting(struct rp_forks *f, char *why, size_t len)
{
	int sp[2], fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	pid = rp_forks_spawn(f, &fd, sp, ADDR ":9", ADDR, 0, why, len);
	if (pid == 0) {
		char c;

		while (read(sp[1], &c, 1) > 0)
			;
		_exit(0);
	}
	if (pid < 0)
		close(fd);
	return pid;
}

/* Reap until pid is gone (it was told to exit). */
static void reap_until_gone(struct rp_forks *f, pid_t pid)
{
	for (int i = 0; i < 500 && rp_forks_kid_of(f, pid); i++) {
		rp_forks_reap(f);
		usleep(10000);
	}
	assert_null(rp_forks_kid_of(f, pid));
}

/* A full table: refused with a reason, nothing forked, nothing written
 * past its end. */
static void test_full_table(void **state)
{
	struct fx *fx = *state;
	struct rp_kid guard;
	char why[96] = "";
	pid_t first, second;

	memcpy(&guard, &fx->kids[1], sizeof(guard));
	first = spawn_waiting(&fx->f, why, sizeof(why));
	assert_true(first > 0);
	assert_int_equal(fx->f.n, 1);
	second = spawn_waiting(&fx->f, why, sizeof(why));
	assert_int_equal(second, -1);
	assert_string_equal(why, "no place left for another connection");
	assert_int_equal(fx->f.n, 1);
	assert_memory_equal(&fx->kids[1], &guard, sizeof(guard));
	assert_int_equal(rp_admit_from(&fx->adm, ADDR), 1);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), 0);
	rp_ctrl_close(&fx->kids[0].chan);
	reap_until_gone(&fx->f, first);
}

/* The admission entry outlives the child's admission socket, and goes
 * when the child is reaped. */
static void test_release_on_reap(void **state)
{
	struct fx *fx = *state;
	char why[96];
	pid_t pid = spawn_waiting(&fx->f, why, sizeof(why));

	assert_true(pid > 0);
	assert_int_equal(rp_admit_from(&fx->adm, ADDR), 1);
	/* The child's socket closes (it is exiting): it still counts. */
	rp_ctrl_close(&fx->kids[0].chan);
	usleep(50000);
	assert_int_equal(rp_admit_from(&fx->adm, ADDR), 1);
	assert_non_null(rp_forks_kid_of(&fx->f, pid));
	reap_until_gone(&fx->f, pid);
	assert_int_equal(rp_admit_from(&fx->adm, ADDR), 0);
	assert_int_equal(fx->f.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_full_table, setup),
		cmocka_unit_test_setup(test_release_on_reap, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
