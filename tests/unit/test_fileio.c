// SPDX-License-Identifier: MIT
/* Unit tests of fileio (names, paths and the receiver's tree, source,
 * atomic destination) and csum. */
/* O_PATH: a directory descriptor that fsync refuses. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "rdmapush/csum.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"

/* Bytes written by the tests: filled in main. */
static uint8_t pattern[5000];
/* A chunk's worth of them for the write-behind tests. */
static uint8_t chunk[1 << 20];

/* One fresh directory per test; named forces the hidden-temp path; base
 * is where (default /tmp, which may be a tmpfs). */
struct fixture {
	char dir[64];
	int dirfd;
	bool named;
	const char *base;
};

static struct fixture anon_fx = { .named = false };
static struct fixture named_fx = { .named = true };
/* On a disk file system (O_DIRECT), and on a tmpfs (it may refuse). */
static struct fixture disk_fx = { .base = "/var/tmp" };
static struct fixture disk_named_fx = { .named = true, .base = "/var/tmp" };
static struct fixture shm_fx = { .base = "/dev/shm" };

static void remove_tree(int dirfd)
{
	DIR *dp;
	struct dirent *de;
	int fd = dup(dirfd);

	assert_true(fd >= 0);
	dp = fdopendir(fd);
	assert_non_null(dp);
	/* The dup shares its offset with dirfd, which may be at the end. */
	rewinddir(dp);
	while ((de = readdir(dp)) != NULL) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd, de->d_name, 0) == 0)
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY);
		assert_true(sub >= 0);
		remove_tree(sub);
		close(sub);
		assert_int_equal(unlinkat(dirfd, de->d_name, AT_REMOVEDIR), 0);
	}
	closedir(dp);
}

static int fx_setup(void **state)
{
	struct fixture *fx = *state;

	snprintf(fx->dir, sizeof(fx->dir), "%s/rp-test-fileio-XXXXXX",
		 fx->base ? fx->base : "/tmp");
	if (!mkdtemp(fx->dir))
		return -1;
	fx->dirfd = open(fx->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fx->dirfd < 0)
		return -1;
	if (fx->named)
		setenv("RDMAPUSH_NO_TMPFILE", "1", 1);
	else
		unsetenv("RDMAPUSH_NO_TMPFILE");
	return 0;
}

static int fx_teardown(void **state)
{
	struct fixture *fx = *state;

	remove_tree(fx->dirfd);
	close(fx->dirfd);
	unsetenv("RDMAPUSH_NO_TMPFILE");
	return rmdir(fx->dir);
}

/* Number of entries in the directory; the only one's name into only. */
static int count_entries(int dirfd, char *only, size_t len)
{
	DIR *dp;
	struct dirent *de;
	int n = 0;
	int fd = dup(dirfd);

	assert_true(fd >= 0);
	dp = fdopendir(fd);
	assert_non_null(dp);
	rewinddir(dp);
	while ((de = readdir(dp)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (only)
			snprintf(only, len, "%s", de->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

static void put_file(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY, 0600);
	size_t len = strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Content of name (not following a symlink) as a string. */
static void get_file(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

static void check_regular(int dirfd, const char *name, const char *text)
{
	char buf[4096];
	struct stat st;

	assert_int_equal(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, (off_t)strlen(text));
	get_file(dirfd, name, buf, sizeof(buf));
	assert_string_equal(buf, text);
}

/* Open, write text in two pieces (second half first), no commit. */
static void receive(struct fixture *fx, struct rp_dst *d, const char *name,
		    const char *text, bool force)
{
	size_t len = strlen(text);
	size_t half = len / 2;

	assert_int_equal(rp_fileio_dst_open(d, fx->dirfd, name, len, force), 0);
	assert_int_equal(d->anon, !fx->named);
	assert_int_equal(rp_fileio_dst_write(d, text + half, len - half, half),
			 0);
	assert_int_equal(rp_fileio_dst_write(d, text, half, 0), 0);
}

/* --- names ---------------------------------------------------------------- */

static void expect_bad(const char *name, size_t len, const char *why_want)
{
	const char *why = NULL;

	assert_int_equal(rp_fileio_check_name(name, len, &why), RP_EBADNAME);
	assert_non_null(why);
	assert_string_equal(why, why_want);
}

static void test_check_name(void **state)
{
	char longname[300];
	const char *why = NULL;

	(void)state;
	assert_int_equal(rp_fileio_check_name("a", 1, &why), 0);
	assert_int_equal(rp_fileio_check_name("big.iso", 7, &why), 0);
	assert_int_equal(rp_fileio_check_name("...", 3, &why), 0);
	assert_int_equal(rp_fileio_check_name(".a", 2, &why), 0);
	assert_int_equal(rp_fileio_check_name("..a", 3, &why), 0);
	assert_int_equal(rp_fileio_check_name("a b~\x80\xff", 6, &why), 0);
	assert_null(why);
	/* len bytes count, not the NUL terminator. */
	assert_int_equal(rp_fileio_check_name("abc/def", 3, &why), 0);
	/* NULL why is allowed. */
	assert_int_equal(rp_fileio_check_name("", 0, NULL), RP_EBADNAME);

	memset(longname, 'x', sizeof(longname));
	assert_int_equal(rp_fileio_check_name(longname, 255, &why), 0);
	expect_bad(longname, 256, "longer than 255 bytes");
	expect_bad(longname, sizeof(longname), "longer than 255 bytes");

	expect_bad("", 0, "empty name");
	expect_bad(".", 1, "'.' and '..' are not file names");
	expect_bad("..", 2, "'.' and '..' are not file names");
	expect_bad("a/b", 3, "contains '/'");
	expect_bad("/etc/passwd", 11, "contains '/'");
	expect_bad("../x", 4, "contains '/'");
	expect_bad("a/", 2, "contains '/'");
	expect_bad("a\0b", 3, "contains a NUL byte");
	expect_bad("a\x01" "b", 3, "contains a control character");
	expect_bad("a\x7f", 2, "contains a control character");
	expect_bad("\x1b[2J", 4, "contains a control character");
	expect_bad("a\nb", 3, "contains a control character");
	expect_bad("a\x1f", 2, "contains a control character");
}

#define RESERVED "reserved: the pattern of rdmapush's hidden temporary files " \
		 "(.NAME.rdmapush-XXXXXX)"

/* Another transfer's hidden temporary name is never a file name. */
static void test_reserved_pattern(void **state)
{
	const char *why = NULL;

	(void)state;
	expect_bad(".big.iso.rdmapush-aZ09xy", 24, RESERVED);
	expect_bad("..rdmapush-abcdef", 17, RESERVED);
	expect_bad(".a.rdmapush-rdmapu", 18, RESERVED);
	/* Near misses are plain names. */
	assert_int_equal(rp_fileio_check_name("big.rdmapush-abcdef", 19, &why),
			 0);
	assert_int_equal(rp_fileio_check_name(".a.rdmapush-abcde", 17, &why),
			 0);
	assert_int_equal(rp_fileio_check_name(".a.rdmapush-abcdefg", 19,
					      &why), 0);
	assert_int_equal(rp_fileio_check_name(".a.rdmapush-abc-ef", 18, &why),
			 0);
	assert_int_equal(rp_fileio_check_name(".a.rdmapush-abc\x80" "ef", 18,
					      &why), 0);
	assert_null(why);
}

/* --- paths ---------------------------------------------------------------- */

static void expect_bad_path(const char *path, size_t len, const char *want)
{
	const char *why = NULL;

	assert_int_equal(rp_fileio_check_path(path, len, &why), RP_EBADNAME);
	assert_non_null(why);
	assert_string_equal(why, want);
}

#define BAD_PATH(p, want) expect_bad_path(p, sizeof(p) - 1, want)

static void test_check_path(void **state)
{
	static char big[RP_PATH_MAX + 2];
	const char *why = NULL;
	size_t i;

	(void)state;
	assert_int_equal(rp_fileio_check_path("a", 1, &why), 0);
	assert_int_equal(rp_fileio_check_path("a/b c/\xc3\xbc.txt", 11, &why),
			 0);
	assert_int_equal(rp_fileio_check_path(".a/..b/...", 10, &why), 0);
	/* len bytes count: the rest is not looked at. */
	assert_int_equal(rp_fileio_check_path("a/b/../c", 3, &why), 0);
	assert_null(why);
	assert_int_equal(rp_fileio_check_path("", 0, NULL), RP_EBADNAME);

	BAD_PATH("", "empty path");
	BAD_PATH("/abs", "absolute path");
	BAD_PATH("/", "absolute path");
	BAD_PATH("a//b", "empty path component");
	BAD_PATH("a/", "empty path component");
	BAD_PATH("../x", "\"..\" component");
	BAD_PATH("a/../../b", "\"..\" component");
	BAD_PATH("..", "\"..\" component");
	BAD_PATH("a/./b", "\".\" component");
	BAD_PATH(".", "\".\" component");
	BAD_PATH("a/\x01", "contains a control character");
	BAD_PATH("a/b\0c", "contains a NUL byte");
	BAD_PATH("d/.f.rdmapush-abcdef/g", RESERVED);
	BAD_PATH("d/.f.rdmapush-abcdef", RESERVED);

	/* RP_PATH_MAX bytes of 255-byte components pass; one more fails. */
	memset(big, 'x', sizeof(big));
	for (i = RP_NAME_MAX; i < sizeof(big); i += RP_NAME_MAX + 1)
		big[i] = '/';
	big[RP_PATH_MAX - 1] = 'y';
	assert_int_equal(rp_fileio_check_path(big, RP_PATH_MAX, &why), 0);
	expect_bad_path(big, RP_PATH_MAX + 1, "longer than 4095 bytes");
	/* One component too long is the name's rule. */
	memset(big, 'x', 300);
	big[0] = 'a';
	big[1] = '/';
	expect_bad_path(big, 300, "longer than 255 bytes");
}

/* A refused path's quote is escaped in the message: a name cannot close
 * the quoted path and forge what follows it. */
static void test_refused_path_quoted(void **state)
{
	struct fixture *fx = *state;
	bool created;
	int dirty = -1;

	capture_start();
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "x\" size=1 \"/..", 0755,
					 false, &created, &dirty),
			 RP_EBADNAME);
	assert_string_equal(capture_end(), "rdmapush rdmapush: error: "
			    "refusing path \"x\\\" size=1 \\\"/..\": "
			    "\"..\" component\n");
}

/* A temp file of ours, flock()ed through its own descriptor if held. */
static int make_tmp(int dirfd, const char *name, bool held)
{
	int fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY, 0600);

	assert_true(fd >= 0);
	if (!held) {
		close(fd);
		return -1;
	}
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	return fd;
}

/* Stale temporaries (no lock) go; held ones, live transfers' and what
 * only looks like ours stay. */
static void test_clean_stale(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;
	int held;

	held = make_tmp(fx->dirfd, ".a.rdmapush-HELD01", true);
	make_tmp(fx->dirfd, ".a.rdmapush-stale1", false);
	make_tmp(fx->dirfd, ".b.rdmapush-stale2", false);
	make_tmp(fx->dirfd, "a.rdmapush-plain1", false);
	assert_int_equal(symlinkat("/etc/passwd", fx->dirfd,
				   ".c.rdmapush-link01"), 0);
	assert_int_equal(mkdirat(fx->dirfd, ".d.rdmapush-dir001", 0700), 0);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "live", 5, false),
			 0);
	assert_int_equal(rp_fileio_dst_write(&d, "live\n", 5, 0), 0);

	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 3600), 2);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 4 + !d.anon);
	assert_int_equal(fstatat(fx->dirfd, ".a.rdmapush-HELD01", &st, 0), 0);
	assert_int_not_equal(fstatat(fx->dirfd, ".a.rdmapush-stale1", &st, 0),
			     0);
	/* The live transfer is intact and commits. */
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	check_regular(fx->dirfd, "live", "live\n");
	close(held);
	/* Once its receiver is gone, the held one is stale too. */
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 3600), 1);
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 3600), 0);
}

/* Below the target too: a stale temporary two levels down goes, a held
 * one stays; nothing is removed through a symbolic link (to a directory
 * outside holding a stale one); past 64 levels the rest is left, and
 * that is said once. */
static void test_clean_stale_tree(void **state)
{
	struct fixture *fx = *state;
	char out[] = "/tmp/rp-test-outside-XXXXXX";
	const char *said;
	struct stat st;
	int a, b, o, d, held;

	assert_non_null(mkdtemp(out));
	o = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(o >= 0);
	make_tmp(o, ".o.rdmapush-outsd1", false);
	assert_int_equal(symlinkat(out, fx->dirfd, "link"), 0);
	assert_int_equal(mkdirat(fx->dirfd, "a", 0700), 0);
	a = openat(fx->dirfd, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(a >= 0);
	assert_int_equal(mkdirat(a, "b", 0700), 0);
	b = openat(a, "b", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(b >= 0);
	make_tmp(b, ".x.rdmapush-stale3", false);
	held = make_tmp(b, ".y.rdmapush-HELD02", true);
	/* 70 levels down: past the sweep's 64. */
	d = dup(fx->dirfd);
	for (int i = 0; i < 70; i++) {
		int next;

		assert_int_equal(mkdirat(d, "d", 0700), 0);
		next = openat(d, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(next >= 0);
		close(d);
		d = next;
	}
	make_tmp(d, ".z.rdmapush-deep01", false);

	capture_start();
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 3600), 1);
	said = capture_end();
	assert_non_null(strstr(said, "removed .x.rdmapush-stale3, a "
			       "temporary file left by a receiver"));
	assert_non_null(strstr(said, "no deeper than 64 levels"));
	assert_int_not_equal(fstatat(b, ".x.rdmapush-stale3", &st, 0), 0);
	assert_int_equal(fstatat(b, ".y.rdmapush-HELD02", &st, 0), 0);
	assert_int_equal(fstatat(o, ".o.rdmapush-outsd1", &st, 0), 0);
	assert_int_equal(fstatat(d, ".z.rdmapush-deep01", &st, 0), 0);
	close(held);
	close(d);
	close(b);
	close(a);
	assert_int_equal(unlinkat(o, ".o.rdmapush-outsd1", 0), 0);
	close(o);
	assert_int_equal(rmdir(out), 0);
}

/* The directories a session made, in the same table as the times: a
 * made one has no times to set unless they were added too. */
static void test_dirs_made(void **state)
{
	struct rp_dir_times t = { 0 };
	char dir[] = "/tmp/rp-made-XXXXXX", sub[64];
	int fd;

	(void)state;
	assert_false(rp_fileio_made(&t, "m"));
	assert_int_equal(rp_fileio_made_add(&t, "m"), 0);
	assert_int_equal(rp_fileio_times_add(&t, "a", 5, 0), 0);
	assert_int_equal(rp_fileio_made_add(&t, "a"), 0);
	assert_true(rp_fileio_made(&t, "m"));
	assert_true(rp_fileio_made(&t, "a"));
	assert_false(rp_fileio_made(&t, "b"));
	assert_false(rp_fileio_made(&t, ""));
	assert_false(rp_fileio_made(&t, NULL));
	assert_int_equal(t.n, 2);
	/* Only "a" has times: "m" need not exist for them to be set. */
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(rp_fileio_times_apply(&t, fd), 0);
	close(fd);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
	rp_fileio_times_free(&t);
}

/* --preserve's deferred directory times: a DIR sent again (a peer can
 * repeat one without end) updates its times in place, never adds; past
 * RP_DIR_TIMES_MAX paths the rest are not kept, said once. */
static void test_dir_times_once(void **state)
{
	struct rp_dir_times t = { 0 };
	char path[32];
	const char *said;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(rp_fileio_times_add(&t, "a/b", i, 7), 0);
		assert_int_equal(rp_fileio_times_add(&t, "a", 5, 0), 0);
	}
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[0].path, "a/b");
	assert_int_equal(t.v[0].sec, 999);
	assert_string_equal(t.v[1].path, "a");
	/* Many paths: each found again after the hash has grown. */
	for (int i = 0; t.n < RP_DIR_TIMES_MAX; i++) {
		snprintf(path, sizeof(path), "d/%d", i);
		assert_int_equal(rp_fileio_times_add(&t, path, i, 0), 0);
	}
	assert_int_equal(rp_fileio_times_add(&t, "d/77", 1, 2), 0);
	assert_int_equal(t.n, RP_DIR_TIMES_MAX);
	assert_int_equal(t.v[2 + 77].sec, 1);
	assert_int_equal(t.v[2 + 77].nsec, 2);
	capture_start();
	assert_int_equal(rp_fileio_times_add(&t, "new", 1, 0), 0);
	assert_int_equal(rp_fileio_times_add(&t, "newer", 1, 0), 0);
	said = capture_end();
	assert_int_equal(t.n, RP_DIR_TIMES_MAX);
	assert_non_null(strstr(said, "the times of the rest are not kept"));
	assert_null(strstr(strchr(said, '\n') + 1, "not kept"));
	/* Known ones are still updated. */
	assert_int_equal(rp_fileio_times_add(&t, "a", 9, 0), 0);
	assert_int_equal(t.v[1].sec, 9);
	rp_fileio_times_free(&t);
	assert_int_equal(t.n, 0);
	assert_null(t.v);
}

/* The probe proves a directory writable and leaves nothing; a directory
 * where files cannot be made fails it (root too: /proc). */
static void test_dir_probe(void **state)
{
	struct fixture *fx = *state;
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);

	assert_int_equal(rp_fileio_dir_probe(fx->dirfd, fx->dir), 0);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
	assert_true(proc >= 0);
	assert_true(rp_fileio_dir_probe(proc, "/proc") < 0);
	close(proc);
}

/* Blocks the file holds, in bytes. */
static uint64_t allocated(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

/* A declared size of three steps reserves one at open, then follows the
 * writes half a step ahead, never the whole size before it is needed. */
static void test_progressive_reservation(void **state)
{
	struct fixture *fx = *state;
	const uint64_t step = RP_FILEIO_RESERVE_STEP;
	struct rp_dst d;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "big", 3 * step,
					    false), 0);
	assert_true(allocated(d.fd) >= step);
	assert_true(allocated(d.fd) <= step + (1 << 20));
	assert_true(d.reserved == step);
	/* Far from the end of the reservation: nothing more. */
	assert_int_equal(rp_fileio_dst_write(&d, pattern, 4096, 0), 0);
	assert_true(d.reserved == step);
	/* Within half a step of it: one more step beyond the write. */
	assert_int_equal(rp_fileio_dst_write(&d, pattern, 4096, step - 4096),
			 0);
	assert_true(d.reserved == 2 * step);
	assert_true(allocated(d.fd) >= 2 * step);
	assert_true(allocated(d.fd) <= 2 * step + (1 << 20));
	/* Never past the declared size. */
	assert_int_equal(rp_fileio_dst_write(&d, pattern, 4096,
					     3 * step - 4096), 0);
	assert_true(d.reserved == 3 * step);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

/* The final sync in steps: each waits for at most step bytes, then one
 * fsync; the commit after it has nothing left to sync. */
static void test_sync_steps(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	bool done = true;
	int steps = 0;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "s", 3 << 20,
					    false), 0);
	for (int i = 0; i < 3 * 64; i++)
		assert_int_equal(rp_fileio_dst_write(&d, chunk, 16384,
						     (uint64_t)i * 16384), 0);
	assert_true(d.end == 3 << 20);
	assert_true(d.synced == 0);	/* under the write-behind lag */
	while (steps < 10) {
		uint64_t before = d.synced;

		assert_int_equal(rp_fileio_dst_sync(&d, 1 << 20, &done), 0);
		steps++;
		if (done)
			break;
		assert_true(d.synced - before <= 1 << 20);
	}
	assert_true(done);
	assert_int_equal(steps, 4);	/* three ranges, then the fsync */
	assert_true(d.synced == d.end);
	assert_int_equal(rp_fileio_dst_sync(&d, 1 << 20, &done), 0);
	assert_true(done);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

/* More than the lag written: the receiver waits for the oldest data as
 * it goes, so the sync after FIN has at most the lag left. */
static void test_write_behind_lag(void **state)
{
	struct fixture *fx = *state;
	const uint64_t total = RP_FILEIO_WB_LAG + (4 << 20);
	struct rp_dst d;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "wb", total,
					    false), 0);
	for (uint64_t off = 0; off < total; off += sizeof(chunk))
		assert_int_equal(rp_fileio_dst_write(&d, chunk, sizeof(chunk),
						     off), 0);
	assert_true(d.end == total);
	assert_true(d.end - d.synced <= RP_FILEIO_WB_LAG);
	assert_true(d.synced >= 4 << 20);
	rp_fileio_dst_abort(&d);
}

static void test_basename(void **state)
{
	(void)state;
	assert_string_equal(rp_fileio_basename("big.iso"), "big.iso");
	assert_string_equal(rp_fileio_basename("/srv/in/big.iso"), "big.iso");
	assert_string_equal(rp_fileio_basename("./a"), "a");
	assert_string_equal(rp_fileio_basename("dir/"), "");
	assert_string_equal(rp_fileio_basename("/"), "");
	assert_string_equal(rp_fileio_basename(""), "");
}

/* --- destination -------------------------------------------------------- */

static const char text[] = "hello, rdmapush: 0123456789abcdef\n";

static void test_commit(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	char only[300];

	receive(fx, &d, "out.bin", text, false);
	/* Only the named path shows anything before the commit. */
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)),
			 fx->named ? 1 : 0);
	if (fx->named) {
		assert_string_equal(only, d.tmpname);
		assert_true(!strncmp(only, ".out.bin.rdmapush-", 18));
		assert_int_equal(strlen(only), 18 + 6);
	}
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_true(d.committed);
	assert_int_equal(d.fd, -1);
	check_regular(fx->dirfd, "out.bin", text);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_string_equal(only, "out.bin");
	/* Abort after commit changes nothing; so does a second commit. */
	rp_fileio_dst_abort(&d);
	rp_fileio_dst_abort(&d);
	assert_int_equal(rp_fileio_dst_commit(&d, false), RP_EINTERNAL);
	check_regular(fx->dirfd, "out.bin", text);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

static void test_commit_empty(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "empty", 0, false),
			 0);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	check_regular(fx->dirfd, "empty", "");
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

/*
 * Without CAP_DAC_READ_SEARCH, linkat(AT_EMPTY_PATH) is refused before
 * Linux 6.10: the O_TMPFILE still gets its name, through /proc/self/fd.
 * In a child that dropped the capability (a no-op where it never had
 * it), with RDMAPUSH_LINK_PROC=1 too (the /proc path on any kernel),
 * both without and with --force (a hidden name, then a rename).
 */
static void test_commit_without_cap(void **state)
{
	struct fixture *fx = *state;
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct c[2];
		struct rp_dst d;
		int rc;

		if (syscall(SYS_capget, &h, c))
			_exit(3);
		c[0].effective &= ~(1u << CAP_DAC_READ_SEARCH);
		if (syscall(SYS_capset, &h, c))
			_exit(4);
		/* No cmocka assert in the child: its failure would run the
		 * rest of the suite here. */
		for (int i = 0; i < 4; i++) {
			const char *name = i < 2 ? "nocap.bin" : "proc.bin";
			bool force = i % 2;

			if (i == 2)
				setenv("RDMAPUSH_LINK_PROC", "1", 1);
			rc = rp_fileio_dst_open(&d, fx->dirfd, name,
						strlen(text), force);
			if (!rc)
				rc = rp_fileio_dst_write(&d, text,
							 strlen(text), 0);
			if (!rc)
				rc = rp_fileio_dst_commit(&d, force);
			if (rc)
				_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	check_regular(fx->dirfd, "nocap.bin", text);
	check_regular(fx->dirfd, "proc.bin", text);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 2);
}

/* 255-byte names: the hidden temp name must be cut to fit. */
static void test_commit_long_name(void **state)
{
	struct fixture *fx = *state;
	char name[RP_NAME_MAX + 1];
	char only[300];
	struct rp_dst d;

	memset(name, 'n', RP_NAME_MAX);
	name[RP_NAME_MAX] = '\0';
	receive(fx, &d, name, text, false);
	if (fx->named)
		assert_true(strlen(d.tmpname) <= RP_NAME_MAX);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	check_regular(fx->dirfd, name, text);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_string_equal(only, name);

	/* The same through the replace path, which also uses a temp name. */
	receive(fx, &d, name, "second", true);
	assert_int_equal(rp_fileio_dst_commit(&d, true), 0);
	check_regular(fx->dirfd, name, "second");
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

static void test_abort(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	receive(fx, &d, "out.bin", text, false);
	rp_fileio_dst_abort(&d);
	assert_int_equal(d.fd, -1);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

static void test_init_abort_noop(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	rp_fileio_dst_init(&d);
	assert_int_equal(d.fd, -1);
	rp_fileio_dst_abort(&d);
	rp_fileio_dst_abort(NULL);
	/* Zeroed with fd = -1, as the header promises. */
	memset(&d, 0, sizeof(d));
	d.fd = -1;
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
	/* A failed open leaves d closed: abort is still a no-op. */
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "a/b", 1, false),
			 RP_EBADNAME);
	assert_int_equal(d.fd, -1);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

static void test_bad_names_refused(void **state)
{
	struct fixture *fx = *state;
	char longname[300];
	struct rp_dst d;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "../x", 1, true),
			 RP_EBADNAME);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "", 1, true),
			 RP_EBADNAME);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "..", 1, true),
			 RP_EBADNAME);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "\x1b]0;x\a", 1,
					    true), RP_EBADNAME);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, longname, 1, true),
			 RP_EBADNAME);
	longname[256] = '\0';
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, longname, 1, true),
			 RP_EBADNAME);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

static void test_exists(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;
	char buf[16];

	put_file(fx->dirfd, "out.bin", "old");
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    false), RP_EEXIST);
	assert_int_equal(d.fd, -1);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
	/* put_file made it 0600: untouched means its mode too. */
	assert_int_equal(fstatat(fx->dirfd, "out.bin", &st, 0), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	get_file(fx->dirfd, "out.bin", buf, sizeof(buf));
	assert_string_equal(buf, "old");
}

static void test_force_replaces(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	put_file(fx->dirfd, "out.bin", "old content, longer than the new");
	receive(fx, &d, "out.bin", text, true);
	assert_int_equal(rp_fileio_dst_commit(&d, true), 0);
	check_regular(fx->dirfd, "out.bin", text);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

/* A symlink at the name pointing out of the directory. */
static void make_outside_link(struct fixture *fx, char *outdir, size_t len,
			      int *outfd)
{
	char target[128];

	snprintf(outdir, len, "/tmp/rp-test-outside-XXXXXX");
	assert_non_null(mkdtemp(outdir));
	*outfd = open(outdir, O_RDONLY | O_DIRECTORY);
	assert_true(*outfd >= 0);
	put_file(*outfd, "victim", "precious");
	snprintf(target, sizeof(target), "%s/victim", outdir);
	assert_int_equal(symlinkat(target, fx->dirfd, "out.bin"), 0);
}

static void drop_outside(const char *outdir, int outfd)
{
	char buf[64];
	struct stat st;

	/* The link's target is untouched, in content and in mode. */
	get_file(outfd, "victim", buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	assert_int_equal(fstatat(outfd, "victim", &st, 0), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(count_entries(outfd, NULL, 0), 1);
	remove_tree(outfd);
	close(outfd);
	assert_int_equal(rmdir(outdir), 0);
}

static void test_symlink_no_force(void **state)
{
	struct fixture *fx = *state;
	char outdir[64];
	struct rp_dst d;
	struct stat st;
	int outfd;

	make_outside_link(fx, outdir, sizeof(outdir), &outfd);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    false), RP_EEXIST);
	assert_int_equal(fstatat(fx->dirfd, "out.bin", &st,
				 AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
	drop_outside(outdir, outfd);
}

static void test_symlink_force(void **state)
{
	struct fixture *fx = *state;
	char outdir[64];
	struct rp_dst d;
	int outfd;

	make_outside_link(fx, outdir, sizeof(outdir), &outfd);
	receive(fx, &d, "out.bin", text, true);
	assert_int_equal(rp_fileio_dst_commit(&d, true), 0);
	/* The link itself was replaced by a regular file. */
	check_regular(fx->dirfd, "out.bin", text);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
	drop_outside(outdir, outfd);
}

static void test_dangling_symlink(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	assert_int_equal(symlinkat("/nonexistent/rp-target", fx->dirfd,
				   "out.bin"), 0);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    false), RP_EEXIST);
	receive(fx, &d, "out.bin", text, true);
	assert_int_equal(rp_fileio_dst_commit(&d, true), 0);
	check_regular(fx->dirfd, "out.bin", text);
	assert_int_equal(access("/nonexistent/rp-target", F_OK), -1);
}

static void test_directory_never_replaced(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;

	assert_int_equal(mkdirat(fx->dirfd, "out.bin", 0755), 0);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    false), RP_EBADNAME);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    true), RP_EBADNAME);
	assert_int_equal(fstatat(fx->dirfd, "out.bin", &st, 0), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

static void test_fifo_never_replaced(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	assert_int_equal(mkfifoat(fx->dirfd, "out.bin", 0600), 0);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "out.bin", 3,
					    true), RP_EBADNAME);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

static void test_no_space(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "huge",
					    (uint64_t)1 << 62, false),
			 RP_ENOSPACE);
	/* The largest real size (UINT64_MAX is RP_SIZE_UNKNOWN, a stream). */
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "huge",
					    UINT64_MAX - 1, true), RP_ENOSPACE);
	assert_int_equal(d.fd, -1);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

/* The space is claimed at open: the file has its full size already. */
static void test_space_reserved(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "big", 1 << 20,
					    false), 0);
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_int_equal(st.st_size, 1 << 20);
	assert_true(st.st_blocks * 512 >= 1 << 20);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

static void test_appears_before_commit(void **state)
{
	struct fixture *fx = *state;
	char only[300];
	struct rp_dst d;
	char buf[64];

	receive(fx, &d, "out.bin", text, false);
	put_file(fx->dirfd, "out.bin", "intruder");
	assert_int_equal(rp_fileio_dst_commit(&d, false), RP_EEXIST);
	assert_false(d.committed);
	assert_int_equal(d.fd, -1);
	get_file(fx->dirfd, "out.bin", buf, sizeof(buf));
	assert_string_equal(buf, "intruder");
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_string_equal(only, "out.bin");
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

static void test_dir_appears_before_force_commit(void **state)
{
	struct fixture *fx = *state;
	char only[300];
	struct rp_dst d;
	struct stat st;

	receive(fx, &d, "out.bin", text, true);
	assert_int_equal(mkdirat(fx->dirfd, "out.bin", 0755), 0);
	assert_int_equal(rp_fileio_dst_commit(&d, true), RP_EBADNAME);
	assert_int_equal(fstatat(fx->dirfd, "out.bin", &st, 0), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_string_equal(only, "out.bin");
}

/* --- the receiver's tree ------------------------------------------------ */

/* Whether fd is the directory dirfd holds under path. */
static bool is_dir_at(int fd, int dirfd, const char *path)
{
	struct stat a, b;

	assert_int_equal(fstat(fd, &a), 0);
	if (fstatat(dirfd, path, &b, 0) < 0)
		return false;
	return S_ISDIR(a.st_mode) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

static mode_t mode_at(int dirfd, const char *path)
{
	struct stat st;

	assert_int_equal(fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st.st_mode & 07777;
}

/* An empty directory outside the fixture's, and a symlink to it. */
static int outside_dir(struct fixture *fx, int linkdir, const char *link,
		       char *outdir, size_t len)
{
	int outfd;

	(void)fx;
	snprintf(outdir, len, "/tmp/rp-test-outside-XXXXXX");
	assert_non_null(mkdtemp(outdir));
	outfd = open(outdir, O_RDONLY | O_DIRECTORY);
	assert_true(outfd >= 0);
	assert_int_equal(symlinkat(outdir, linkdir, link), 0);
	return outfd;
}

static void drop_empty_outside(const char *outdir, int outfd)
{
	/* Nothing was made there through the link. */
	assert_int_equal(count_entries(outfd, NULL, 0), 0);
	close(outfd);
	assert_int_equal(rmdir(outdir), 0);
}

static void test_open_parent(void **state)
{
	struct fixture *fx = *state;
	const char *path = "a/b c/f";
	const char *leaf = NULL;
	int pfd = 123;

	assert_int_equal(mkdirat(fx->dirfd, "a", 0700), 0);
	assert_int_equal(mkdirat(fx->dirfd, "a/b c", 0700), 0);
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, path, &pfd, &leaf),
			 0);
	assert_true(is_dir_at(pfd, fx->dirfd, "a/b c"));
	assert_ptr_equal(leaf, path + 6);
	assert_true(fcntl(pfd, F_GETFD) & FD_CLOEXEC);
	close(pfd);
	/* One component: a new descriptor of dirfd's directory. */
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, "f", &pfd, &leaf),
			 0);
	assert_int_not_equal(pfd, fx->dirfd);
	assert_true(is_dir_at(pfd, fx->dirfd, "."));
	assert_string_equal(leaf, "f");
	close(pfd);
	/* Nothing is created: the leaf and a missing parent stay missing. */
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, "a/nope/f", &pfd,
					       &leaf), -ENOENT);
	assert_int_equal(pfd, -1);
	put_file(fx->dirfd, "file", "x");
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, "file/f", &pfd,
					       &leaf), -ENOTDIR);
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, "a/../a/f", &pfd,
					       &leaf), RP_EBADNAME);
	assert_int_equal(rp_fileio_open_parent(fx->dirfd, "/tmp/f", &pfd,
					       &leaf), RP_EBADNAME);
	assert_int_equal(pfd, -1);
}

/* A symlink planted as a middle component, pointing out of the tree. */
static void test_open_parent_symlink(void **state)
{
	struct fixture *fx = *state;
	char outdir[64];
	const char *leaf;
	bool created = true;
	int pfd = 123;
	int outfd;
	int rc;

	assert_int_equal(mkdirat(fx->dirfd, "a", 0700), 0);
	outfd = outside_dir(fx, fx->dirfd, "a/ln", outdir, sizeof(outdir));
	assert_int_equal(mkdirat(outfd, "sub", 0700), 0);
	rc = rp_fileio_open_parent(fx->dirfd, "a/ln/f", &pfd, &leaf);
	assert_int_equal(rc, -ELOOP);
	assert_int_equal(pfd, -1);
	rc = rp_fileio_open_parent(fx->dirfd, "a/ln/sub/f", &pfd, &leaf);
	assert_int_equal(rc, -ELOOP);
	rc = rp_fileio_mkdir(fx->dirfd, "a/ln/new", 0700, false, &created,
			     NULL);
	assert_int_equal(rc, -ELOOP);
	assert_false(created);
	rc = rp_fileio_dir_times(fx->dirfd, "a/ln/sub", 1, 0);
	assert_int_equal(rc, -ELOOP);
	assert_int_equal(unlinkat(outfd, "sub", AT_REMOVEDIR), 0);
	drop_empty_outside(outdir, outfd);
}

static void test_mkdir(void **state)
{
	struct fixture *fx = *state;
	bool created = false;
	int dirty = -1;
	int first;

	/* umask 077 (main): exact modes are not cut by it. */
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "d", 0755, true, &created,
					 &dirty), 0);
	assert_true(created);
	assert_int_equal(mode_at(fx->dirfd, "d"), 0755);
	assert_true(dirty >= 0);
	assert_true(is_dir_at(dirty, fx->dirfd, "."));
	first = dirty;
	/* The same parent again: the descriptor is kept, not replaced. */
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "e", 0700, true, &created,
					 &dirty), 0);
	assert_int_equal(mode_at(fx->dirfd, "e"), 0700);
	assert_int_equal(dirty, first);
	/* Another parent: the first is synced and closed, d's is held. */
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "d/sub", 0750, true,
					 &created, &dirty), 0);
	assert_true(created);
	assert_true(is_dir_at(dirty, fx->dirfd, "d"));
	assert_int_equal(rp_fileio_dir_sync(dirty, "d"), 0);
	close(dirty);
	/* Not exact: the umask applies. */
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "u", 0777, false, &created,
					 NULL), 0);
	assert_true(created);
	assert_int_equal(mode_at(fx->dirfd, "u"), 0700);
	/* Existing directory: accepted, untouched, nothing to sync. */
	dirty = -1;
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "d", 0700, true, &created,
					 &dirty), 0);
	assert_false(created);
	assert_int_equal(dirty, -1);
	assert_int_equal(mode_at(fx->dirfd, "d"), 0755);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 3);
}

static void test_mkdir_refused(void **state)
{
	struct fixture *fx = *state;
	bool created = true;
	struct stat st;
	int dirty = -1;

	put_file(fx->dirfd, "f", "x");
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "f", 0700, true, &created,
					 &dirty), RP_EBADNAME);
	assert_false(created);
	assert_int_equal(mkdirat(fx->dirfd, "real", 0700), 0);
	assert_int_equal(symlinkat("real", fx->dirfd, "ln"), 0);
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "ln", 0700, true, &created,
					 &dirty), -ELOOP);
	assert_int_equal(fstatat(fx->dirfd, "ln", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "missing/x", 0700, true,
					 &created, &dirty), -ENOENT);
	assert_int_equal(rp_fileio_mkdir(fx->dirfd, "a/", 0700, true, &created,
					 &dirty), RP_EBADNAME);
	assert_false(created);
	assert_int_equal(dirty, -1);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 3);
}

static void test_dir_times(void **state)
{
	struct fixture *fx = *state;
	struct stat st;
	int rc;

	assert_int_equal(mkdirat(fx->dirfd, "t", 0700), 0);
	assert_int_equal(mkdirat(fx->dirfd, "t/u", 0700), 0);
	assert_int_equal(rp_fileio_dir_times(fx->dirfd, "t/u", 1000000000,
					     123456789), 0);
	assert_int_equal(fstatat(fx->dirfd, "t/u", &st, 0), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1000000000);
	assert_int_equal(st.st_mtim.tv_nsec, 123456789);
	/* A symlink to a directory is not the directory. */
	assert_int_equal(symlinkat("t", fx->dirfd, "ln"), 0);
	rc = rp_fileio_dir_times(fx->dirfd, "ln", 5, 0);
	assert_int_equal(rc, -ELOOP);
	assert_int_equal(fstatat(fx->dirfd, "t", &st, 0), 0);
	assert_int_not_equal(st.st_mtim.tv_sec, 5);
	assert_int_equal(rp_fileio_dir_times(fx->dirfd, "t/none", 5, 0),
			 -ENOENT);
	assert_int_equal(rp_fileio_dir_sync(-1, "nothing"), -EBADF);
}

/* --- the destination's mode, mtime, directory sync, unknown size -------- */

/* Receive text as name with mode, committed: its mode is mode exactly. */
static void commit_with_mode(struct fixture *fx, const char *name,
			     uint32_t mode)
{
	struct rp_dst d;

	receive(fx, &d, name, text, false);
	d.mode = mode;
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_int_equal(mode_at(fx->dirfd, name), mode);
}

static void test_dst_mode(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	bool done = false;

	umask(022);
	commit_with_mode(fx, "m600", 0600);
	commit_with_mode(fx, "m755", 0755);
	commit_with_mode(fx, "m777", 0777);
	umask(0);
	commit_with_mode(fx, "m640", 0640);
	umask(077);
	/* Not set: the 0644 of before, whatever the umask. */
	receive(fx, &d, "def", text, false);
	assert_int_equal(d.mode, 0644);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	check_regular(fx->dirfd, "def", text);
	/* Set after the final sync finished: still applied. */
	receive(fx, &d, "late", text, false);
	while (!done)
		assert_int_equal(rp_fileio_dst_sync(&d, 1 << 20, &done), 0);
	d.mode = 0700;
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_int_equal(mode_at(fx->dirfd, "late"), 0700);
}

/* While it is written, nobody else may read it, whatever the umask. */
static void test_tmp_private(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;

	umask(0);
	receive(fx, &d, "secret", text, false);
	umask(077);
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (fx->named)
		assert_int_equal(mode_at(fx->dirfd, d.tmpname), 0600);
	rp_fileio_dst_abort(&d);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 0);
}

static void test_dst_mtime(void **state)
{
	struct fixture *fx = *state;
	struct rp_dst d;
	struct stat st;

	receive(fx, &d, "old", text, false);
	d.set_mtime = true;
	d.mtime_sec = 1234567890;
	d.mtime_nsec = 987654321;
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_int_equal(fstatat(fx->dirfd, "old", &st, 0), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1234567890);
	assert_int_equal(st.st_mtim.tv_nsec, 987654321);
	check_regular(fx->dirfd, "old", text);
	/* An impossible time fails the commit, and leaves nothing. */
	receive(fx, &d, "bad", text, false);
	d.set_mtime = true;
	d.mtime_nsec = 1000000000;
	assert_int_equal(rp_fileio_dst_commit(&d, false), -EINVAL);
	assert_int_equal(count_entries(fx->dirfd, NULL, 0), 1);
}

/*
 * fsync fails on an O_PATH descriptor of the directory while every *at
 * call works through it: a commit that fsyncs it fails, one that defers
 * it does not.
 */
static void test_defer_dir_sync(void **state)
{
	struct fixture *fx = *state;
	int pathfd = open(fx->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct rp_dst d;

	assert_true(pathfd >= 0);
	assert_int_equal(rp_fileio_dst_open(&d, pathfd, "a", 3, false), 0);
	assert_int_equal(rp_fileio_dst_write(&d, "abc", 3, 0), 0);
	assert_int_equal(rp_fileio_dst_commit(&d, false), -EBADF);
	check_regular(fx->dirfd, "a", "abc");

	assert_int_equal(rp_fileio_dst_open(&d, pathfd, "b", 3, false), 0);
	assert_false(d.defer_dir_sync);
	d.defer_dir_sync = true;
	assert_int_equal(rp_fileio_dst_write(&d, "abc", 3, 0), 0);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	check_regular(fx->dirfd, "b", "abc");
	assert_int_equal(rp_fileio_dir_sync(fx->dirfd, "the test's"), 0);
	close(pathfd);
}

/* A stream: no size up front; the file ends where the writes did, and
 * the space reserved past that end is given back. */
static void test_size_unknown(void **state)
{
	struct fixture *fx = *state;
	const uint64_t total = 2 * sizeof(chunk) + sizeof(pattern);
	struct rp_dst d;
	struct stat st;
	uint8_t buf[sizeof(pattern)];
	int fd;

	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "stream",
					    RP_SIZE_UNKNOWN, false), 0);
	assert_int_equal(rp_fileio_dst_write(&d, chunk, sizeof(chunk), 0), 0);
	assert_int_equal(rp_fileio_dst_write(&d, chunk, sizeof(chunk),
					     sizeof(chunk)), 0);
	assert_int_equal(rp_fileio_dst_write(&d, pattern, sizeof(pattern),
					     2 * sizeof(chunk)), 0);
	assert_int_equal(rp_fileio_dst_commit(&d, false), 0);
	assert_int_equal(fstatat(fx->dirfd, "stream", &st, 0), 0);
	assert_int_equal(st.st_size, (off_t)total);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_true((uint64_t)st.st_blocks * 512 <= total + (1 << 20));
	fd = openat(fx->dirfd, "stream", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 2 * sizeof(chunk)),
			 (ssize_t)sizeof(buf));
	assert_memory_equal(buf, pattern, sizeof(pattern));
	close(fd);
}

/* --- source and directory ------------------------------------------------ */

static void test_src(void **state)
{
	struct fixture *fx = *state;
	char path[128];
	struct rp_src s;
	char buf[16];

	put_file(fx->dirfd, "src", "0123456789");
	snprintf(path, sizeof(path), "%s/src", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), 0);
	assert_int_equal(s.size, 10);
	assert_int_equal(rp_fileio_src_read(&s, buf, 10, 0), 0);
	assert_memory_equal(buf, "0123456789", 10);
	assert_int_equal(rp_fileio_src_read(&s, buf, 3, 7), 0);
	assert_memory_equal(buf, "789", 3);
	assert_int_equal(rp_fileio_src_read(&s, buf, 0, 10), 0);
	assert_int_equal(rp_fileio_src_read(&s, buf, 5, 8), -EIO);
	assert_int_equal(rp_fileio_src_read(&s, buf, 1, 10), -EIO);
	/* The file shrinks under us. */
	assert_int_equal(truncate(path, 4), 0);
	assert_int_equal(rp_fileio_src_read(&s, buf, 10, 0), -EIO);
	rp_fileio_src_close(&s);
	assert_int_equal(s.fd, -1);
	rp_fileio_src_close(&s);
	rp_fileio_src_close(NULL);
}

static void test_src_refused(void **state)
{
	struct fixture *fx = *state;
	char path[128];
	struct rp_src s;

	assert_int_equal(rp_fileio_src_open(&s, fx->dir), RP_ENOTREG);
	assert_int_equal(s.fd, -1);
	snprintf(path, sizeof(path), "%s/missing", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), -ENOENT);
	assert_int_equal(s.fd, -1);
	/* A FIFO without a writer: refused at once, not waited on. */
	assert_int_equal(mkfifoat(fx->dirfd, "fifo", 0600), 0);
	snprintf(path, sizeof(path), "%s/fifo", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), RP_ENOTREG);
	assert_int_equal(rp_fileio_src_open(&s, "/dev/null"), RP_ENOTREG);
	/* A symlink is not followed: the walk resolves one named on the
	 * command line, and one put in a file's place since is refused. */
	put_file(fx->dirfd, "real", "abc");
	assert_int_equal(symlinkat("real", fx->dirfd, "link"), 0);
	snprintf(path, sizeof(path), "%s/link", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), -ELOOP);
	assert_int_equal(s.fd, -1);
	snprintf(path, sizeof(path), "%s/real", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), 0);
	assert_int_equal(s.size, 3);
	rp_fileio_src_close(&s);
}

/* A source beneath a directory descriptor: no link on the way is
 * followed, the last component's neither; mode and mtime are fstat's. */
static void test_src_open_at(void **state)
{
	struct timespec times[2] = { { 77, 8 }, { 77, 8 } };
	struct fixture *fx = *state;
	struct rp_src s;
	char buf[4];

	assert_int_equal(mkdirat(fx->dirfd, "sa", 0700), 0);
	assert_int_equal(mkdirat(fx->dirfd, "sa/sb", 0700), 0);
	put_file(fx->dirfd, "sa/sb/f", "xyz");
	assert_int_equal(fchmodat(fx->dirfd, "sa/sb/f", 0640, 0), 0);
	assert_int_equal(utimensat(fx->dirfd, "sa/sb/f", times, 0), 0);
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sa/sb/f",
					       "shown"), 0);
	assert_int_equal(s.size, 3);
	assert_int_equal(s.mode, 0640);
	assert_int_equal(s.mtime_sec, 77);
	assert_int_equal(s.mtime_nsec, 8);
	assert_int_equal(rp_fileio_src_read(&s, buf, 3, 0), 0);
	assert_memory_equal(buf, "xyz", 3);
	rp_fileio_src_close(&s);
	/* One level: a plain name in dirfd. */
	put_file(fx->dirfd, "sf", "ab");
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sf", "sf"), 0);
	assert_int_equal(s.size, 2);
	rp_fileio_src_close(&s);
	/* A link as a middle or first component, or as the file. */
	assert_int_equal(symlinkat("sa/sb", fx->dirfd, "sl"), 0);
	assert_int_equal(symlinkat("sb", fx->dirfd, "sa/sl"), 0);
	assert_int_equal(symlinkat("f", fx->dirfd, "sa/sb/fl"), 0);
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sl/f", "x"),
			 -ELOOP);
	assert_int_equal(s.fd, -1);
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sa/sl/f",
					       "x"), -ELOOP);
	assert_int_equal(s.fd, -1);
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sa/sb/fl",
					       "x"), -ELOOP);
	assert_int_equal(s.fd, -1);
	/* Not a directory on the way; a directory as the file. */
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sf/f", "x"),
			 -ENOTDIR);
	assert_int_equal(rp_fileio_src_open_at(&s, fx->dirfd, "sa/sb", "x"),
			 RP_ENOTREG);
	assert_int_equal(s.fd, -1);
}

static void test_dir_open(void **state)
{
	struct fixture *fx = *state;
	char path[128];
	int dfd = 123;

	assert_int_equal(rp_fileio_dir_open(fx->dir, &dfd), 0);
	assert_true(dfd >= 0);
	assert_true(fcntl(dfd, F_GETFD) & FD_CLOEXEC);
	close(dfd);
	put_file(fx->dirfd, "file", "x");
	snprintf(path, sizeof(path), "%s/file", fx->dir);
	assert_int_equal(rp_fileio_dir_open(path, &dfd), -ENOTDIR);
	assert_int_equal(dfd, -1);
	snprintf(path, sizeof(path), "%s/missing", fx->dir);
	assert_int_equal(rp_fileio_dir_open(path, &dfd), -ENOENT);
}

/* --- csum --------------------------------------------------------------- */

/* Expected values from `xxhsum -H2` (xxhash 0.8.1). */
static void expect_csum(const void *buf, size_t len, const char *want)
{
	uint8_t out[RP_CSUM_LEN];
	struct rp_csum *c = NULL;
	char hex[33];

	assert_int_equal(rp_csum_new(&c), 0);
	assert_non_null(c);
	rp_csum_update(c, buf, len);
	rp_csum_final(c, out);
	assert_string_equal(rp_csum_hex(out, hex), want);
	rp_csum_free(c);
}


static void test_csum_vectors(void **state)
{
	static const char fox[] =
		"The quick brown fox jumps over the lazy dog";

	(void)state;
	expect_csum("", 0, "99aa06d3014798d86001c324468d497f");
	expect_csum(NULL, 0, "99aa06d3014798d86001c324468d497f");
	expect_csum("abc", 3, "06b05ab6733a618578af5f94892f3950");
	expect_csum(fox, strlen(fox), "ddd650205ca3e7fa24a1cc2e3a8a7651");
	/* bytes (i * 31 + 7) & 0xff, i < 5000, in a file | xxhsum -H2 */
	expect_csum(pattern, sizeof(pattern),
		    "3bf60aa89c7feeaa559fff92c2b7f8ee");
	rp_csum_free(NULL);
}

static void test_csum_streaming(void **state)
{
	static const size_t steps[] = { 1, 3, 64, 100, 239, 240, 241, 1024,
					4999 };
	uint8_t one[RP_CSUM_LEN], piece[RP_CSUM_LEN];
	struct rp_csum *c;
	size_t s;

	(void)state;
	assert_int_equal(rp_csum_new(&c), 0);
	rp_csum_update(c, pattern, sizeof(pattern));
	rp_csum_final(c, one);
	rp_csum_free(c);

	for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		size_t off = 0;

		assert_int_equal(rp_csum_new(&c), 0);
		while (off < sizeof(pattern)) {
			size_t n = sizeof(pattern) - off;

			if (n > steps[s])
				n = steps[s];
			rp_csum_update(c, pattern + off, n);
			rp_csum_update(c, pattern + off, 0);
			off += n;
			/* final mid-stream must not disturb the state */
			if (off == 2048 || off == 1000)
				rp_csum_final(c, piece);
		}
		rp_csum_final(c, piece);
		assert_memory_equal(piece, one, RP_CSUM_LEN);
		rp_csum_free(c);
	}
}

static void test_csum_hex(void **state)
{
	uint8_t in[RP_CSUM_LEN];
	char hex[33];
	int i;

	(void)state;
	for (i = 0; i < RP_CSUM_LEN; i++)
		in[i] = (uint8_t)(i * 0x11);
	memset(hex, 'Z', sizeof(hex));
	assert_ptr_equal(rp_csum_hex(in, hex), hex);
	assert_string_equal(hex, "00112233445566778899aabbccddeeff");
}

/* --- --direct ------------------------------------------------------------ */

#define DIO_CHUNK	(1u << 20)
#define DIO_SIZE	(3ull * DIO_CHUNK + 1000)	/* an unaligned tail */
/* Room for the tail read as whole units, as a ring slot has. */
#define DIO_ROOM	(4ull * DIO_CHUNK)

/* DIO_ROOM bytes, page-aligned as the ring and the workers' buffers are,
 * the first DIO_SIZE + 1 of a pattern that differs from chunk to chunk. */
static uint8_t *dio_data(void)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, DIO_ROOM), 0);
	for (size_t i = 0; i < DIO_ROOM; i++)
		((uint8_t *)p)[i] = (uint8_t)((i * 131 + (i >> 20)) & 0xff);
	return p;
}

/* Write size bytes of data in chunk-byte puts, as the receiver's workers
 * do (prepare, put, done), then commit it as name. */
static void dio_receive(struct fixture *fx, struct rp_dst *d,
			struct rp_dio *dio, const char *name,
			const uint8_t *data, uint64_t size)
{
	struct rp_dst_put w;

	assert_int_equal(rp_fileio_dst_open(d, fx->dirfd, name, size, false),
			 0);
	rp_fileio_dst_direct(d, dio);
	for (uint64_t off = 0; off < size; off += dio->chunk) {
		uint64_t left = size - off;
		uint32_t len = left < dio->chunk ? (uint32_t)left : dio->chunk;

		assert_int_equal(rp_fileio_dst_put_prepare(d, &w, off, len), 0);
		rp_fileio_dst_put(&w, data + off);
		assert_false(w.no_direct);
		assert_int_equal(rp_fileio_dst_put_done(d, &w), 0);
	}
	assert_int_equal(rp_fileio_dst_commit(d, false), 0);
	assert_int_equal(d->dfd, -1);	/* closed with the file */
}

/* name holds exactly the size bytes of data. */
static void check_bytes(int dirfd, const char *name, const uint8_t *data,
			uint64_t size)
{
	uint8_t *got = malloc(size + 1);
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	assert_non_null(got);
	assert_true(fd >= 0);
	n = pread(fd, got, size + 1, 0);
	assert_int_equal(n, (ssize_t)size);
	assert_memory_equal(got, data, size);
	close(fd);
	free(got);
}

/* dio_receive() into name, and name holds exactly those bytes. */
static void dio_round_trip(struct fixture *fx, struct rp_dio *dio,
			   const char *name, const uint8_t *data,
			   uint64_t size)
{
	struct rp_dst d;

	dio_receive(fx, &d, dio, name, data, size);
	check_bytes(fx->dirfd, name, data, size);
}

/* Pages of name's first len bytes in the page cache (mincore). */
static size_t cached_pages(int dirfd, const char *name, size_t len)
{
	size_t pages = (len + 4095) / 4096, n = 0;
	unsigned char *vec = calloc(pages, 1);
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
	void *map;

	assert_non_null(vec);
	assert_true(fd >= 0);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	munmap(map, len);
	close(fd);
	free(vec);
	return n;
}

/* Aligned chunks past the cache, the unaligned tail through it, the same
 * bytes in the end, committed as ever. */
static void test_dst_direct(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data = dio_data();
	struct rp_dio dio;
	struct rp_dst d;
	struct stat st;

	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	assert_true(dio.on);
	assert_int_equal(rp_fileio_dst_open(&d, fx->dirfd, "probe", 1, false),
			 0);
	rp_fileio_dst_direct(&d, &dio);
	if (d.dfd < 0)
		skip();		/* this file system refuses O_DIRECT */
	assert_true(d.align >= 4096 && DIO_CHUNK % d.align == 0);
	assert_true(fcntl(d.dfd, F_GETFL) & O_DIRECT);
	assert_false(fcntl(d.fd, F_GETFL) & O_DIRECT);
	rp_fileio_dst_abort(&d);
	assert_int_equal(d.dfd, -1);

	dio_receive(fx, &d, &dio, "direct", data, DIO_SIZE);
	assert_true(dio.on);
	assert_false(dio.noted);
	/* The whole units never entered the page cache. */
	assert_int_equal(cached_pages(fx->dirfd, "direct", 3 * DIO_CHUNK), 0);
	assert_int_equal(fstatat(fx->dirfd, "direct", &st, 0), 0);
	assert_int_equal(st.st_mode & 07777, 0644);	/* as ever */
	check_bytes(fx->dirfd, "direct", data, DIO_SIZE);
	free(data);
}

/* A buffer off alignment (never one of ours): that chunk is written
 * through the page cache, correctly, and direct stays on. */
static void test_dst_direct_unaligned_buffer(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data = dio_data();
	struct rp_dio dio;

	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	dio_round_trip(fx, &dio, "odd", data + 1, DIO_SIZE);
	assert_true(dio.on);
	free(data);
}

/*
 * A chunk that is not a multiple of a page: off for the session, with
 * one note, and the writes buffered; the same for a file system that
 * refuses O_DIRECT (RDMAPUSH_NO_DIRECT stands in for one).
 */
static void test_dst_direct_fallback(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data = dio_data();
	struct rp_dio dio;
	const char *note;

	capture_start();
	rp_fileio_dio_init(&dio, true, 5000);
	note = capture_end();
	assert_false(dio.on);
	assert_true(dio.noted);
	assert_non_null(strstr(note, "note: --direct: the chunk size, 5000 "
			       "bytes, is not a multiple of the page size"));
	assert_non_null(strstr(note, "through the page cache"));
	capture_start();
	dio_round_trip(fx, &dio, "odd-chunk", data, DIO_SIZE);
	assert_string_equal(capture_end(), "");		/* noted once */

	setenv("RDMAPUSH_NO_DIRECT", "1", 1);
	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	capture_start();
	dio_round_trip(fx, &dio, "refused", data, DIO_SIZE);
	dio_round_trip(fx, &dio, "refused-2", data, 4096);
	note = capture_end();
	unsetenv("RDMAPUSH_NO_DIRECT");
	assert_false(dio.on);
	assert_non_null(strstr(note, "--direct: refused: "));
	assert_non_null(strstr(note, "refuses O_DIRECT"));
	assert_null(strstr(note, "refused-2"));		/* one note */
	free(data);
}

/* A tmpfs: O_DIRECT or not (Linux 6.6 took it), the same bytes. */
static void test_dst_direct_tmpfs(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data = dio_data();
	struct rp_dio dio;

	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	capture_start();
	dio_round_trip(fx, &dio, "shm", data, DIO_SIZE);
	capture_end();
	assert_true(dio.on || dio.noted);
	free(data);
}

/* The source: whole units read direct, the tail stopping short at the
 * file's end, into a slot-like buffer; the same bytes. */
static void test_src_direct(void **state)
{
	struct fixture *fx = *state;
	uint8_t *data = dio_data(), *buf = dio_data();
	struct rp_dio dio;
	struct rp_dst d;
	struct rp_src s;
	char path[128];

	rp_fileio_dio_init(&dio, false, DIO_CHUNK);	/* written buffered */
	dio_receive(fx, &d, &dio, "src", data, DIO_SIZE);
	snprintf(path, sizeof(path), "%s/src", fx->dir);
	assert_int_equal(rp_fileio_src_open(&s, path), 0);
	rp_fileio_src_direct(&s, path, &dio);
	assert_int_equal(s.align, 0);		/* not asked for */
	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	rp_fileio_src_direct(&s, path, &dio);
	if (!s.align)
		skip();		/* this file system refuses O_DIRECT */
	assert_true(fcntl(s.fd, F_GETFL) & O_DIRECT);
	for (uint64_t off = 0; off < DIO_SIZE; off += DIO_CHUNK) {
		uint64_t left = DIO_SIZE - off;
		size_t len = left < DIO_CHUNK ? left : DIO_CHUNK;

		memset(buf, 0, len);
		assert_int_equal(rp_fileio_src_read(&s, buf, len, off), 0);
		assert_memory_equal(buf, data + off, len);
	}
	assert_true(fcntl(s.fd, F_GETFL) & O_DIRECT);
	/* An unaligned buffer: refused, and read through the cache. */
	assert_int_equal(rp_fileio_src_pread(s.fd, buf + 1, 1000, 0, s.align),
			 0);
	assert_memory_equal(buf + 1, data, 1000);
	assert_false(fcntl(s.fd, F_GETFL) & O_DIRECT);
	/* Shrunk under us, mid-chunk: -EIO, as without --direct. */
	assert_int_equal(fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_DIRECT),
			 0);
	assert_int_equal(truncate(path, 2 * DIO_CHUNK + 10), 0);
	assert_int_equal(rp_fileio_src_read(&s, buf, DIO_CHUNK, 2 * DIO_CHUNK),
			 -EIO);
	rp_fileio_src_close(&s);
	assert_int_equal(s.align, 0);
	free(buf);
	free(data);
}

/* A file system that refuses O_DIRECT (procfs does, truly): a note, and
 * the source is read through the page cache. */
static void test_src_direct_refused(void **state)
{
	struct rp_dio dio;
	struct rp_src s;
	const char *note;

	(void)state;
	assert_int_equal(rp_fileio_src_open(&s, "/proc/self/status"), 0);
	rp_fileio_dio_init(&dio, true, DIO_CHUNK);
	capture_start();
	rp_fileio_src_direct(&s, "/proc/self/status", &dio);
	note = capture_end();
	assert_int_equal(s.align, 0);
	assert_false(dio.on);
	assert_false(fcntl(s.fd, F_GETFL) & O_DIRECT);
	assert_non_null(strstr(note, "note: --direct: /proc/self/status: "));
	assert_non_null(strstr(note, "refuses O_DIRECT (fcntl(F_SETFL, "
			       "O_DIRECT): Invalid argument)"));
	rp_fileio_src_close(&s);
}

/* ---- partials kept for --resume ------------------------------------ */

/* A receive of 3 chunks of 4 KiB, stopped with 2 verified: the partial
 * and its journal are kept under the reserved names, found again, and
 * the prefix hashes to what the chunks' digests fold to. */
static void test_partial_keep_find(void **state)
{
	struct fixture *fx = *state;
	struct rp_journal j = { .path = "sub/data.bin", .size = 3 * 4096,
				.mtime_sec = 1600000000, .mtime_nsec = 7,
				.mode = 0640, .chunk = 4096,
				.verified = 2 * 4096 };
	struct rp_journal got;
	uint8_t want[RP_CSUM_LEN], have[RP_CSUM_LEN], d[RP_CSUM_LEN];
	struct rp_csum *fold;
	struct rp_dst dst;
	char only[300];
	int fd;

	assert_int_equal(rp_csum_new(&fold), 0);
	for (int i = 0; i < 2; i++) {
		rp_csum_chunk(chunk + 4096 * i, 4096, d);
		rp_csum_fold(fold, d);
	}
	rp_csum_final(fold, want);
	memcpy(j.digest, want, RP_CSUM_LEN);
	memset(j.key_id, 0xab, sizeof(j.key_id));
	assert_int_equal(rp_fileio_dst_open(&dst, fx->dirfd, "data.bin",
					    3 * 4096, false), 0);
	assert_int_equal(rp_fileio_dst_write(&dst, chunk, 2 * 4096, 0), 0);
	assert_int_equal(rp_partial_keep(fx->dirfd, "data.bin", dst.tmpname,
					 dst.fd, &j), 0);
	dst.tmpname[0] = '\0';
	rp_fileio_dst_abort(&dst);
	/* Two hidden files, both reserved names; no temp left. */
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 2);
	assert_true(faccessat(fx->dirfd, ".data.bin.rdmapush-partial", F_OK,
			      AT_SYMLINK_NOFOLLOW) == 0);
	assert_true(rp_partial_is_name(".data.bin.rdmapush-journal", 26));
	assert_int_equal(rp_fileio_check_name(".data.bin.rdmapush-partial",
					      26, NULL), RP_EBADNAME);
	assert_int_equal(rp_partial_find(fx->dirfd, "data.bin", &got, &fd), 1);
	assert_memory_equal(&got, &j, sizeof(got));
	assert_int_equal(rp_partial_digest(fd, got.verified, got.chunk,
					   "partial", NULL, have), 0);
	assert_memory_equal(have, want, RP_CSUM_LEN);
	/* A short last chunk counts as a push counts it. */
	rp_csum_chunk(chunk + 2 * 4096, 100, d);
	rp_csum_fold(fold, d);
	rp_csum_final(fold, want);
	assert_int_equal(pwrite(fd, chunk + 2 * 4096, 100, 2 * 4096), 100);
	assert_int_equal(rp_partial_digest(fd, 2 * 4096 + 100, 4096, "partial",
					   NULL, have), 0);
	assert_memory_equal(have, want, RP_CSUM_LEN);
	assert_int_equal(rp_partial_digest(fd, 3 * 4096, 4096, "partial",
					   NULL, have), -EIO);
	close(fd);
	rp_csum_free(fold);
	rp_partial_drop(fx->dirfd, "data.bin");
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 0);
	assert_int_equal(rp_partial_find(fx->dirfd, "data.bin", &got, &fd), 0);
}

/* A large file written under its partial's name from the start, with a
 * journal as it goes: a receiver killed outright (nothing aborted, the
 * descriptor merely closed) leaves it to be found; while it is being
 * written it is not offered; committed or aborted, nothing is left. */
static void test_partial_kept_from_start(void **state)
{
	struct fixture *fx = *state;
	struct rp_journal j = { .path = "big", .size = 4 * 4096,
				.chunk = 4096, .verified = 2 * 4096 };
	struct rp_journal got;
	struct rp_dst dst;
	char only[300];
	int fd;

	assert_int_equal(rp_fileio_dst_open_kept(&dst, fx->dirfd, "big", NULL,
						 4 * 4096, false), 0);
	assert_true(dst.kept);
	assert_string_equal(dst.tmpname, ".big.rdmapush-partial");
	assert_int_equal(rp_fileio_dst_write(&dst, chunk, 3 * 4096, 0), 0);
	assert_int_equal(rp_partial_note(fx->dirfd, "big", &j), 0);
	/* Being written (locked): not offered. */
	assert_int_equal(rp_partial_find(fx->dirfd, "big", &got, &fd), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 2);
	/* Killed: the process's descriptors close, nothing else. */
	close(dst.fd);
	dst.fd = -1;
	assert_int_equal(rp_partial_find(fx->dirfd, "big", &got, &fd), 1);
	assert_int_equal(got.verified, 2 * 4096);
	close(fd);
	/* The next receive of it replaces it; committed, nothing else. */
	assert_int_equal(rp_fileio_dst_open_kept(&dst, fx->dirfd, "big", NULL,
						 4096, false), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_int_equal(rp_fileio_dst_write(&dst, chunk, 4096, 0), 0);
	assert_int_equal(rp_partial_note(fx->dirfd, "big", &j), 0);
	assert_int_equal(rp_fileio_dst_commit(&dst, false), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
	assert_string_equal(only, "big");
	/* Aborted: both gone. */
	assert_int_equal(rp_fileio_dst_open_kept(&dst, fx->dirfd, "big2", NULL,
						 4096, false), 0);
	assert_int_equal(rp_partial_note(fx->dirfd, "big2", &j), 0);
	/* The age sweep never removes a partial being written (locked). */
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 0), 1);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 2);
	rp_fileio_dst_abort(&dst);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 1);
}

/* A torn journal, or a partial shorter than its journal says, is never
 * believed: both are removed and nothing is found. */
/* A batch on tmpfs has no sync to wait for; elsewhere it has, and the
 * tests' override makes tmpfs count as elsewhere. */
static void test_in_memory(void **state)
{
	int shm = open("/dev/shm", O_RDONLY | O_DIRECTORY);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(shm >= 0 && proc >= 0);
	assert_true(rp_fileio_in_memory(shm));
	assert_false(rp_fileio_in_memory(proc));
	assert_false(rp_fileio_in_memory(-1));
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	assert_false(rp_fileio_in_memory(shm));
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	close(shm);
	close(proc);
}

static void test_partial_damaged(void **state)
{
	struct fixture *fx = *state;
	struct rp_journal j = { .path = "x", .size = 8192, .chunk = 4096,
				.verified = 8192 };
	struct rp_journal got;
	char only[300];
	int fd = openat(fx->dirfd, ".x.tmp", O_RDWR | O_CREAT, 0600);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, chunk, 4096, 0), 4096);
	/* Says 8 KiB verified; holds 4 KiB. */
	assert_int_equal(rp_partial_keep(fx->dirfd, "x", ".x.tmp", fd, &j), 0);
	close(fd);
	assert_int_equal(rp_partial_find(fx->dirfd, "x", &got, &fd), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 0);
	/* A journal with one byte changed. */
	fd = openat(fx->dirfd, ".x.tmp", O_RDWR | O_CREAT, 0600);
	assert_int_equal(pwrite(fd, chunk, 8192, 0), 8192);
	assert_int_equal(rp_partial_keep(fx->dirfd, "x", ".x.tmp", fd, &j), 0);
	close(fd);
	fd = openat(fx->dirfd, ".x.rdmapush-journal", O_RDWR);
	assert_int_equal(pwrite(fd, "\xff", 1, 9), 1);
	close(fd);
	assert_int_equal(rp_partial_find(fx->dirfd, "x", &got, &fd), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 0);
	/* A name too long for its partial keeps none. */
	memset(only, 'n', 250);
	only[250] = '\0';
	assert_int_equal(rp_partial_name(only, false, j.path), RP_EBADNAME);
	assert_true(rp_partial_expired(10, 0));
	/* The start-up sweep: kept younger than the age, removed at 0. */
	fd = openat(fx->dirfd, ".x.tmp", O_RDWR | O_CREAT, 0600);
	assert_int_equal(pwrite(fd, chunk, 8192, 0), 8192);
	assert_int_equal(rp_partial_keep(fx->dirfd, "x", ".x.tmp", fd, &j), 0);
	close(fd);
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 3600), 0);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 2);
	assert_int_equal(rp_fileio_clean_stale(fx->dirfd, 0), 2);
	assert_int_equal(count_entries(fx->dirfd, only, sizeof(only)), 0);
	assert_false(rp_partial_expired(10, 60));
}

/* Each destination test by name, once per temp-file path where both apply. */
#define FX(t, fx, tag) { #t "/" tag, t, fx_setup, fx_teardown, &fx }
#define ANON(t) FX(t, anon_fx, "tmpfile")
#define BOTH(t) ANON(t), FX(t, named_fx, "named")

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_name),
		cmocka_unit_test(test_basename),
		cmocka_unit_test(test_reserved_pattern),
		cmocka_unit_test(test_check_path),
		BOTH(test_clean_stale),
		BOTH(test_partial_keep_find),
		ANON(test_partial_damaged),
		ANON(test_partial_kept_from_start),
		BOTH(test_clean_stale_tree),
		BOTH(test_refused_path_quoted),
		cmocka_unit_test(test_dirs_made),
		cmocka_unit_test(test_dir_times_once),
		ANON(test_dir_probe),
		ANON(test_progressive_reservation),
		ANON(test_sync_steps),
		ANON(test_write_behind_lag),
		BOTH(test_commit),
		BOTH(test_commit_empty),
		ANON(test_commit_without_cap),
		BOTH(test_commit_long_name),
		BOTH(test_abort),
		ANON(test_init_abort_noop),
		ANON(test_bad_names_refused),
		ANON(test_exists),
		BOTH(test_force_replaces),
		ANON(test_symlink_no_force),
		BOTH(test_symlink_force),
		BOTH(test_dangling_symlink),
		ANON(test_directory_never_replaced),
		ANON(test_fifo_never_replaced),
		ANON(test_no_space),
		BOTH(test_space_reserved),
		BOTH(test_appears_before_commit),
		BOTH(test_dir_appears_before_force_commit),
		ANON(test_open_parent),
		ANON(test_open_parent_symlink),
		ANON(test_mkdir),
		ANON(test_mkdir_refused),
		ANON(test_dir_times),
		BOTH(test_dst_mode),
		BOTH(test_tmp_private),
		BOTH(test_dst_mtime),
		BOTH(test_defer_dir_sync),
		BOTH(test_size_unknown),
		ANON(test_src),
		ANON(test_src_refused),
		ANON(test_src_open_at),
		ANON(test_dir_open),
		FX(test_dst_direct, disk_fx, "direct"),
		FX(test_dst_direct, disk_named_fx, "direct-named"),
		FX(test_dst_direct_unaligned_buffer, disk_fx, "direct"),
		FX(test_dst_direct_fallback, disk_fx, "direct"),
		FX(test_dst_direct_tmpfs, shm_fx, "tmpfs"),
		FX(test_src_direct, disk_fx, "direct"),
		cmocka_unit_test(test_src_direct_refused),
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_csum_vectors),
		cmocka_unit_test(test_csum_streaming),
		cmocka_unit_test(test_csum_hex),
	};
	size_t i;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)((i * 31 + 7) & 0xff);
	/* Created files must be 0644 whatever the umask. */
	umask(077);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
