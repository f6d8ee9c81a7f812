// SPDX-License-Identifier: MIT
/*
 * What the two native benchmarks share (bench_common.h): one copy of the
 * helpers bench_mem and bench_tree both need, so that their options,
 * directories and forked measurements behave alike.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/trace.h"

#include "bench_common.h"

volatile sig_atomic_t bench_stop;

static const char *prog = "bench";
static const char *usage_text = "";

void bench_init(const char *name, const char *usage)
{
	prog = name;
	usage_text = usage;
}

int bench_bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "%s: %s %s: %s\n%s", prog, opt, arg, why, usage_text);
	return RP_EUSAGE;
}

int bench_parse_count(const char *opt, const char *arg, long long min,
		      long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		char why[80];

		snprintf(why, sizeof(why), "must be an integer in %lld..%lld",
			 min, max);
		return bench_bad(opt, arg, why);
	}
	*out = v;
	return 0;
}

int bench_getopt(int argc, char **argv, const char *shorts,
		 const struct option *longs,
		 int (*one)(int opt, const char *arg, void *ctx), void *ctx)
{
	for (;;) {
		int opt = getopt_long(argc, argv, shorts, longs, NULL);
		int rc;

		if (opt == -1)
			break;
		if (opt == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		rc = one(opt, optarg, ctx);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return bench_bad("argument", argv[optind], "unexpected");
	return 0;
}

int bench_parse_list(const char *opt, const char *arg, size_t max,
		     int (*item)(const char *t, void *ctx), void *ctx)
{
	char list[128];
	char *save = NULL;
	int n = 0;

	if (max > sizeof(list))
		max = sizeof(list);
	if ((size_t)snprintf(list, max, "%s", arg) >= max)
		return bench_bad(opt, arg, "too long");
	for (char *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		int rc = item(t, ctx);

		if (rc)
			return rc;
		n++;
	}
	return n ? 0 : bench_bad(opt, arg, "names nothing");
}

int bench_parse_fsopts(int opt, const char *arg, struct bench_fsopts *w)
{
	switch (opt) {
	case 'f':
		w->use_tmpfs = !strcmp(arg, "tmpfs") || !strcmp(arg, "both");
		w->use_disk = !strcmp(arg, "disk") || !strcmp(arg, "both");
		if (!w->use_tmpfs && !w->use_disk)
			return bench_bad("--fs", arg,
					 "must be tmpfs, disk or both");
		return 0;
	case 'T':
		w->tmpfs_dir = arg;
		return 0;
	case 'D':
		w->disk_dir = arg;
		return 0;
	default:
		return 1;
	}
}

/* splitmix64 over (seed, word index): fast, and nothing compresses it. */
void bench_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t x = seed * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		memcpy(p + i, &z, len - i < 8 ? len - i : 8);
	}
}

/* read(2) or write(2) all len bytes at p, again on EINTR. */
static int io_full(int fd, char *p, size_t len, bool wr)
{
	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bench_write_full(int fd, const void *buf, size_t len)
{
	/* io_full only reads from p when wr is true. */
	return io_full(fd, (char *)buf, len, true);
}

int bench_read_full(int fd, void *buf, size_t len)
{
	return io_full(fd, buf, len, false);
}

int bench_mkdtemp(char *dir, size_t len, const char *base, const char *name,
		  const char *label)
{
	int rc;

	if ((size_t)snprintf(dir, len, "%s/%s-XXXXXX", base, name) >= len) {
		RP_ERR("--%s %s: path too long", label, base);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		rc = -errno;
		RP_ERR("mkdtemp(%s): %s", dir, strerror(-rc));
		return rc;
	}
	return 0;
}

int bench_fs_type(const char *dir, char *type, size_t len)
{
	static const struct {
		long magic;
		const char *name;
	} known[] = {
		{ TMPFS_MAGIC, "tmpfs" }, { EXT4_SUPER_MAGIC, "ext4" },
		{ XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlay" }, { V9FS_MAGIC, "9p" },
	};
	struct statfs st;
	int rc;

	if (statfs(dir, &st)) {
		rc = -errno;
		RP_ERR("statfs(%s): %s", dir, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if ((long)st.f_type == known[i].magic) {
			snprintf(type, len, "%s", known[i].name);
			return 0;
		}
	}
	snprintf(type, len, "0x%lx", (long)st.f_type);
	return 0;
}

void bench_check_kind(const char *label, const char *dir, const char *type)
{
	if (!strcmp(type, "tmpfs") != !strcmp(label, "tmpfs"))
		fprintf(stderr, "%s: warning: the %s directory %s is on %s\n",
			prog, label, dir, type);
}

int bench_reap(pid_t pid, int *status, struct rusage *ru)
{
	while (wait4(pid, status, 0, ru) < 0) {
		int e = errno;

		if (e != EINTR) {
			RP_ERR("wait4(%d): %s", (int)pid, strerror(e));
			return -e;
		}
	}
	return 0;
}

int bench_fork(const char *what, int (*fn)(void *arg, void *res), void *arg,
	       void *res, size_t len, long *rss_kib)
{
	struct rusage ru;
	int p[2], status, got, rc;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		rc = -errno;
		RP_ERR("pipe2: %s", strerror(-rc));
		return rc;
	}
	/* Or the child's exit would print what stdio holds a second time. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		RP_ERR("fork: %s", strerror(-rc));
		close(p[0]);
		close(p[1]);
		return rc;
	}
	if (pid == 0) {
		close(p[0]);
		rc = fn(arg, res);
		if (bench_write_full(p[1], res, len))
			RP_ERR("write(result pipe): %s", strerror(errno));
		_exit(rc ? 1 : 0);
	}
	close(p[1]);
	got = bench_read_full(p[0], res, len);
	close(p[0]);
	if (bench_reap(pid, &status, &ru))
		return RP_EINTERNAL;
	*rss_kib = ru.ru_maxrss;
	if (got) {
		RP_ERR("%s: the measuring process died (wait status 0x%x)",
		       what, status);
		return RP_EINTERNAL;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int bench_join(pthread_t t, const char *who)
{
	int e = pthread_join(t, NULL);

	if (e)
		RP_ERR("pthread_join(%s): %s", who, strerror(e));
	return -e;
}

static void on_signal(int sig)
{
	bench_stop = sig;
}

void bench_signals(void)
{
	/* No SA_RESTART: a signal ends the wait it interrupts. */
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int bench_exit(int failed, const char *noun)
{
	if (bench_stop)
		fprintf(stderr, "%s: interrupted by signal %d\n", prog,
			(int)bench_stop);
	if (failed)
		fprintf(stderr, "%s: %d %s failed\n", prog, failed, noun);
	return failed || bench_stop ? RP_EXIT_INTERNAL : RP_EXIT_OK;
}
