// SPDX-License-Identifier: MIT
/* Unit tests of walk: SOURCE arguments -> the exact sequence of entries. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/limits.h"
#include "rdmapush/walk.h"

/*
 * The tree, made once in a mkdtemp directory (base):
 *   base/outside.txt            the target of top/link
 *   base/suid                   04750, empty
 *   base/top/                   0755
 *     a.txt 0600 5 B, bin.sh 0755 10 B, empty/ 0755, fifo 0644,
 *     l1/ 0700: f1 0644 1 B, l2/l3/deep.txt 0644 7 B,
 *     link -> ../outside.txt, "sp ace é.txt" 0644 3 B
 */
static char base[64];
static char cwd[PATH_MAX];

#define A_TXT_SEC	1234567890
#define A_TXT_NSEC	123456789

struct want {
	enum rp_walk_kind kind;
	const char *rel;	/* appended to the prefix the test gives */
	uint32_t mode;
	uint64_t size;
	const char *why;	/* SKIP and ERROR only */
};

/* The tree under top with -r, in the walk's order (strcmp, pre-order). */
static const struct want tree[] = {
	{ RP_WALK_DIR, "", 0755, 0, NULL },
	{ RP_WALK_FILE, "/a.txt", 0600, 5, NULL },
	{ RP_WALK_FILE, "/bin.sh", 0755, 10, NULL },
	{ RP_WALK_DIR, "/empty", 0755, 0, NULL },
	{ RP_WALK_SKIP, "/fifo", 0644, 0, "FIFO" },
	{ RP_WALK_DIR, "/l1", 0700, 0, NULL },
	{ RP_WALK_FILE, "/l1/f1", 0644, 1, NULL },
	{ RP_WALK_DIR, "/l1/l2", 0755, 0, NULL },
	{ RP_WALK_DIR, "/l1/l2/l3", 0755, 0, NULL },
	{ RP_WALK_FILE, "/l1/l2/l3/deep.txt", 0644, 7, NULL },
	{ RP_WALK_SKIP, "/link", 0777, 0, "symbolic link" },
	{ RP_WALK_FILE, "/sp ace \xc3\xa9.txt", 0644, 3, NULL },
};
#define TREE_N (sizeof(tree) / sizeof(tree[0]))

/* base/rel, in a static buffer: one of eight, reused in turn, so copy
 * what must outlive seven more calls. */
static char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int i;
	char *b = bufs[i++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void make_file(const char *rel, size_t size, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL, 0600);
	char buf[16] = "0123456789abcde";

	assert_true(fd >= 0);
	assert_true(size <= sizeof(buf));
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	assert_int_equal(close(fd), 0);
	/* chmod, not the umask, decides the mode. */
	assert_int_equal(chmod(at(rel), mode), 0);
}

static void make_dir(const char *rel, mode_t mode)
{
	assert_int_equal(mkdir(at(rel), 0700), 0);
	assert_int_equal(chmod(at(rel), mode), 0);
}

static int setup(void **state)
{
	struct timespec times[2] = {
		{ A_TXT_SEC, A_TXT_NSEC }, { A_TXT_SEC, A_TXT_NSEC }
	};

	(void)state;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(base, sizeof(base), "/tmp/rp-test-walk-XXXXXX");
	if (!mkdtemp(base))
		return -1;
	make_file("outside.txt", 4, 0644);
	make_file("suid", 0, 04750);
	make_dir("top", 0755);
	make_file("top/a.txt", 5, 0600);
	assert_int_equal(utimensat(AT_FDCWD, at("top/a.txt"), times, 0), 0);
	make_file("top/bin.sh", 10, 0755);
	make_dir("top/empty", 0755);
	assert_int_equal(mkfifo(at("top/fifo"), 0600), 0);
	assert_int_equal(chmod(at("top/fifo"), 0644), 0);
	make_dir("top/l1", 0700);
	make_file("top/l1/f1", 1, 0644);
	make_dir("top/l1/l2", 0755);
	make_dir("top/l1/l2/l3", 0755);
	make_file("top/l1/l2/l3/deep.txt", 7, 0644);
	assert_int_equal(symlink("../outside.txt", at("top/link")), 0);
	make_file("top/sp ace \xc3\xa9.txt", 3, 0644);
	/* Outside the tree: links given on the command line. */
	assert_int_equal(symlink("top/a.txt", at("alias")), 0);
	assert_int_equal(symlink("top/l1", at("dirlink")), 0);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	if (chdir(cwd))
		return -1;
	return nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void expect(struct rp_walk *w, const char *prefix,
		   const struct want *want);

/* The next entry must be this one (path: prefix + rel). */
static void expect_one(struct rp_walk *w, const char *prefix,
		       enum rp_walk_kind kind, const char *rel, uint32_t mode,
		       uint64_t size, const char *why)
{
	const struct want want = { kind, rel, mode, size, why };

	expect(w, prefix, &want);
}

/* The next entry must be want (its path: prefix + want->rel). */
static void expect(struct rp_walk *w, const char *prefix,
		   const struct want *want)
{
	struct rp_walk_entry e;
	char path[RP_PATH_MAX + 1];

	snprintf(path, sizeof(path), "%s%s", prefix, want->rel);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(rp_walk_kind_name(e.kind),
			    rp_walk_kind_name(want->kind));
	assert_non_null(e.path);
	assert_string_equal(e.path, path);
	assert_int_equal(e.mode, want->mode);
	assert_int_equal(e.size, want->size);
	if (want->why)
		assert_string_equal(e.why, want->why);
	else
		assert_null(e.why);
}

/* The next entry must be an ERROR for src, reported as such once. */
static void expect_error(struct rp_walk *w, const char *src, int err,
			 const char *why)
{
	char line[2 * PATH_MAX];
	struct rp_walk_entry e;
	const char *out;
	int rc;

	capture_start();
	rc = rp_walk_next(w, &e);
	out = capture_end();
	assert_int_equal(rc, 1);
	assert_int_equal(e.kind, RP_WALK_ERROR);
	assert_int_equal(e.err, err);
	assert_string_equal(e.why, why);
	assert_string_equal(e.src, src);
	snprintf(line, sizeof(line), "cannot send %s: %s\n", src, why);
	assert_non_null(strstr(out, line));
	assert_ptr_equal(strstr(out, line), strstr(out, "cannot send"));
	assert_null(strstr(out + strlen(line), "cannot send"));
}

static void expect_end(struct rp_walk *w)
{
	struct rp_walk_entry e;

	assert_int_equal(rp_walk_next(w, &e), 0);
	/* The end stays the end. */
	assert_int_equal(rp_walk_next(w, &e), 0);
}

/* Walk one source with -r and as_name: the whole tree under prefix. */
static void expect_tree(const char *src, const char *as_name,
			const char *prefix)
{
	char *argv[] = { (char *)src };
	struct rp_walk *w;
	size_t i;

	assert_int_equal(rp_walk_open(&w, argv, 1, true, as_name), 0);
	for (i = 0; i < TREE_N; i++)
		expect(w, prefix, &tree[i]);
	expect_end(w);
	rp_walk_close(w);
}

static void test_tree_recursive(void **state)
{
	char *argv[] = { at("top") };
	struct rp_walk_entry e;
	struct rp_walk *w;

	(void)state;
	expect_tree(at("top"), NULL, "top");

	/* Where the session opens each entry, and a file's time. */
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.src, at("top"));
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.src, at("top/a.txt"));
	assert_int_equal(e.mtime_sec, A_TXT_SEC);
	assert_int_equal(e.mtime_nsec, A_TXT_NSEC);
	rp_walk_close(w);
}

static void test_dir_without_r(void **state)
{
	char *argv[] = { at("top"), at("top/a.txt") };
	struct rp_walk *w;

	(void)state;
	assert_int_equal(rp_walk_open(&w, argv, 2, false, NULL), 0);
	expect_error(w, argv[0], -EISDIR, "directory (use -r)");
	/* The walk goes on with the next source. */
	expect_one(w, "", RP_WALK_FILE, "a.txt", 0600, 5, NULL);
	expect_end(w);
	rp_walk_close(w);
}

static void test_files(void **state)
{
	char *argv[] = { at("top/bin.sh"), at("top/l1/l2/l3/deep.txt"),
			 at("top/a.txt"), at("top/fifo"), at("suid") };
	struct rp_walk_entry e;
	struct rp_walk *w;

	(void)state;
	/* Command-line order, basenames; -r changes nothing for files. */
	assert_int_equal(rp_walk_open(&w, argv, 5, true, NULL), 0);
	expect_one(w, "", RP_WALK_FILE, "bin.sh", 0755, 10, NULL);
	expect_one(w, "", RP_WALK_FILE, "deep.txt", 0644, 7, NULL);
	expect_one(w, "", RP_WALK_FILE, "a.txt", 0600, 5, NULL);
	expect_one(w, "", RP_WALK_SKIP, "fifo", 0644, 0, "FIFO");
	/* All 12 bits: whether to keep setuid is the receiver's choice. */
	expect_one(w, "", RP_WALK_FILE, "suid", 04750, 0, NULL);
	expect_end(w);
	rp_walk_close(w);

	/* No entry is left over for a second walk over the same argv. */
	assert_int_equal(rp_walk_open(&w, argv, 1, false, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.src, at("top/bin.sh"));
	expect_end(w);
	rp_walk_close(w);
}

static void test_missing_source(void **state)
{
	char *argv[] = { at("top/a.txt"), at("nope"), at("top/bin.sh") };
	struct rp_walk *w;

	(void)state;
	assert_int_equal(rp_walk_open(&w, argv, 3, false, NULL), 0);
	expect_one(w, "", RP_WALK_FILE, "a.txt", 0600, 5, NULL);
	expect_error(w, argv[1], -ENOENT, strerror(ENOENT));
	expect_one(w, "", RP_WALK_FILE, "bin.sh", 0755, 10, NULL);
	expect_end(w);
	rp_walk_close(w);
}

static void test_stdin(void **state)
{
	static char dash_arg[] = "-";
	char *dash[] = { dash_arg };
	char *two[] = { dash_arg, at("top/a.txt"), dash_arg };
	struct rp_walk_entry e;
	struct rp_walk *w;
	struct timespec before, after;

	(void)state;
	/* The clock the walker reads: time(2) may lag it by a second. */
	clock_gettime(CLOCK_REALTIME, &before);
	assert_int_equal(rp_walk_open(&w, dash, 1, false, "in.bin"), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(e.kind, RP_WALK_STDIN);
	assert_string_equal(e.src, "-");
	assert_string_equal(e.path, "in.bin");
	assert_int_equal(e.mode, 0666);
	assert_int_equal(e.size, 0);
	clock_gettime(CLOCK_REALTIME, &after);
	assert_true(e.mtime_sec >= before.tv_sec &&
		    e.mtime_sec <= after.tv_sec);
	expect_end(w);
	rp_walk_close(w);

	/* Usage errors, each reported, with no walk to close. */
	capture_start();
	assert_int_equal(rp_walk_open(&w, dash, 1, false, NULL), RP_EUSAGE);
	assert_null(w);
	assert_non_null(strstr(capture_end(), "needs --as NAME"));
	capture_start();
	assert_int_equal(rp_walk_open(&w, two, 3, false, NULL), RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "given 2 times"));
	capture_start();
	assert_int_equal(rp_walk_open(&w, two, 2, false, "x"), RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "--as renames one source"));
	capture_start();
	assert_int_equal(rp_walk_open(&w, dash, 1, false, "a/b"), RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "--as \"a/b\""));
	capture_start();
	assert_int_equal(rp_walk_open(&w, dash, 1, false, ".."), RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "--as \"..\""));
	capture_start();
	assert_int_equal(rp_walk_open(&w, dash, 0, false, NULL), RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "no source"));
	rp_walk_close(NULL);
}

static void test_as_renames(void **state)
{
	char *argv[] = { at("top/a.txt") };
	struct rp_walk *w;

	(void)state;
	expect_tree(at("top"), "renamed", "renamed");

	assert_int_equal(rp_walk_open(&w, argv, 1, false, "b.txt"), 0);
	expect_one(w, "", RP_WALK_FILE, "b.txt", 0600, 5, NULL);
	expect_end(w);
	rp_walk_close(w);
}

static void test_cmdline_symlink(void **state)
{
	char *argv[] = { at("alias") };
	char *dirs[] = { at("dirlink") };
	char real[PATH_MAX];
	struct rp_walk_entry e;
	struct rp_walk *w;

	(void)state;
	/* Followed, under the link's own name; src is openable with
	 * O_NOFOLLOW (the target itself). */
	assert_non_null(realpath(at("top/a.txt"), real));
	assert_int_equal(rp_walk_open(&w, argv, 1, false, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(e.kind, RP_WALK_FILE);
	assert_string_equal(e.path, "alias");
	assert_string_equal(e.src, real);
	assert_int_equal(e.mode, 0600);
	assert_int_equal(e.size, 5);
	expect_end(w);
	rp_walk_close(w);

	/* A link to a directory, with -r: the tree under the link's name. */
	assert_int_equal(rp_walk_open(&w, dirs, 1, true, NULL), 0);
	expect_one(w, "dirlink", RP_WALK_DIR, "", 0700, 0, NULL);
	expect_one(w, "dirlink", RP_WALK_FILE, "/f1", 0644, 1, NULL);
	expect_one(w, "dirlink", RP_WALK_DIR, "/l2", 0755, 0, NULL);
	expect_one(w, "dirlink", RP_WALK_DIR, "/l2/l3", 0755, 0, NULL);
	expect_one(w, "dirlink", RP_WALK_FILE, "/l2/l3/deep.txt", 0644, 7,
		   NULL);
	expect_end(w);
	rp_walk_close(w);
}

static void test_trailing_slash(void **state)
{
	char src[PATH_MAX];
	char *argv[] = { src };
	struct rp_walk_entry e;
	struct rp_walk *w;

	(void)state;
	snprintf(src, sizeof(src), "%s/", at("top"));
	expect_tree(src, NULL, "top");
	snprintf(src, sizeof(src), "%s//", at("top"));
	expect_tree(src, NULL, "top");

	/* Local paths are made without a doubled slash. */
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.src, at("top/a.txt"));
	rp_walk_close(w);

	/* A file is not a directory: the slash makes it an error. */
	snprintf(src, sizeof(src), "%s/", at("top/a.txt"));
	assert_int_equal(rp_walk_open(&w, argv, 1, false, NULL), 0);
	expect_error(w, src, -ENOTDIR, strerror(ENOTDIR));
	expect_end(w);
	rp_walk_close(w);
}

static void test_dot(void **state)
{
	static char dot[] = ".";
	static char dotdot[] = "../";
	char *argv[] = { dot };
	char *up[] = { dotdot };
	struct rp_walk_entry e;
	struct rp_walk *w;

	(void)state;
	assert_int_equal(chdir(at("top")), 0);
	expect_tree(".", NULL, "top");
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.src, "./a.txt");
	rp_walk_close(w);

	assert_int_equal(chdir("l1"), 0);
	assert_int_equal(rp_walk_open(&w, up, 1, true, NULL), 0);
	expect(w, "top", &tree[0]);
	expect(w, "top", &tree[1]);
	rp_walk_close(w);
	assert_int_equal(chdir(cwd), 0);
}

static void test_root(void **state)
{
	static char slash[] = "/";
	char *argv[] = { slash };
	struct rp_walk *w;

	(void)state;
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	expect_error(w, "/", RP_EBADNAME, "cannot send the root directory");
	expect_end(w);
	rp_walk_close(w);
}

/*
 * A tree whose receiver paths outgrow RP_PATH_MAX (a 255-byte --as in
 * place of a 1-byte local name): the first directory too long is one
 * ERROR and nothing under it is returned.
 */
static void test_path_too_long(void **state)
{
	char name[201];
	char as[256];
	char rel[PATH_MAX];
	char top[PATH_MAX];
	char line[2 * PATH_MAX];
	char *argv[] = { top };
	struct rp_walk_entry e;
	struct rp_walk *w;
	size_t len;
	int level;

	(void)state;
	memset(name, 'x', 200);
	name[200] = '\0';
	memset(as, 'a', 255);
	as[255] = '\0';
	len = (size_t)snprintf(rel, sizeof(rel), "t");
	make_dir(rel, 0755);
	/* Level k's receiver path: 255 + 201 k bytes; k = 20 is too long. */
	for (level = 1; level <= 20; level++) {
		len += (size_t)snprintf(rel + len, sizeof(rel) - len, "/%s",
					name);
		make_dir(rel, 0755);
		if (level == 19) {
			snprintf(rel + len, sizeof(rel) - len, "/f");
			make_file(rel, 2, 0644);
		}
	}
	snprintf(rel + len, sizeof(rel) - len, "/g");
	make_file(rel, 3, 0644);

	snprintf(top, sizeof(top), "%s", at("t"));
	assert_int_equal(rp_walk_open(&w, argv, 1, true, as), 0);
	for (level = 0; level <= 19; level++) {
		assert_int_equal(rp_walk_next(w, &e), 1);
		assert_int_equal(e.kind, RP_WALK_DIR);
		assert_int_equal(strlen(e.path), 255 + 201 * level);
	}
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(e.kind, RP_WALK_FILE);
	assert_int_equal(strlen(e.path), 255 + 201 * 19 + 2);
	capture_start();
	assert_int_equal(rp_walk_next(w, &e), 1);
	/* The line (cut by capture) names the local path. */
	snprintf(line, sizeof(line), "cannot send %s/%s/", top, name);
	assert_non_null(strstr(capture_end(), line));
	assert_int_equal(e.kind, RP_WALK_ERROR);
	assert_int_equal(e.err, RP_EBADNAME);
	assert_string_equal(e.why, "path too long");
	expect_end(w);
	rp_walk_close(w);
}

/* rp_walk_check over argv[0..n): its result and what it said. */
static int check(char **argv, int n, bool recursive, const char *as_name,
		 const char **said)
{
	int rc;

	capture_start();
	rc = rp_walk_check(argv, n, recursive, as_name);
	*said = capture_end();
	return rc;
}

static void expect_said(const char *said, const char *src, const char *why)
{
	char want[PATH_MAX + 64];

	snprintf(want, sizeof(want), "cannot send %s: %s\n", src, why);
	assert_non_null(strstr(said, want));
}

/* One source that can go is enough, and then nothing is said: the real
 * walk reports the others. When none can, each says why. */
static void test_check(void **state)
{
	static char dash_arg[] = "-";
	char *dash[] = { dash_arg };
	char *mixed[] = { at("top"), at("nope"), at("top/fifo"),
			  at("top/a.txt") };
	char *bad[] = { at("top"), at("nope"), at("top/fifo") };
	char *tree_only[] = { at("top/empty") };
	const char *said;

	(void)state;
	assert_int_equal(check(mixed, 4, false, NULL, &said), 0);
	assert_string_equal(said, "");
	assert_int_equal(check(bad, 3, false, NULL, &said), RP_EUSAGE);
	expect_said(said, bad[0], "directory (use -r)");
	expect_said(said, bad[1], strerror(ENOENT));
	expect_said(said, bad[2], "FIFO");
	/* With -r the directory can go; an empty one too. */
	assert_int_equal(check(bad, 3, true, NULL, &said), 0);
	assert_string_equal(said, "");
	assert_int_equal(check(tree_only, 1, true, NULL, &said), 0);
	/* Standard input is not read. */
	assert_int_equal(check(dash, 1, false, "in.bin", &said), 0);
	/* The usage checks come first, as rp_walk_open's. */
	assert_int_equal(check(mixed, 4, false, "x", &said), RP_EUSAGE);
	assert_non_null(strstr(said, "--as renames one source, not 4"));
	assert_int_equal(check(dash, 1, false, NULL, &said), RP_EUSAGE);
	assert_non_null(strstr(said, "needs --as NAME"));
}

/* rp_walk_check in a child as nobody (root reads everything): its
 * result, or -1000 - the child's status. */
static int check_as_nobody(char **argv, int n, bool recursive)
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return rp_walk_check(argv, n, recursive, NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		rc = rp_walk_check(argv, n, recursive, NULL);
		_exit(rc == 0 ? 0 : rc == RP_EUSAGE ? 1 : 99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) > 1)
		return -1000 - WEXITSTATUS(st);
	return WEXITSTATUS(st) ? RP_EUSAGE : 0;
}

/* An unreadable file, or an unreadable directory with -r, cannot go. */
static void test_check_unreadable(void **state)
{
	char *file[1], *dir[1], *both[2];

	(void)state;
	/* nobody must reach base to find them unreadable and not missing. */
	assert_int_equal(chmod(base, 0755), 0);
	make_file("secret", 3, 0600);
	make_dir("closed", 0700);
	assert_int_equal(chmod(at("top/a.txt"), 0644), 0);
	file[0] = at("secret");
	dir[0] = at("closed");
	both[0] = dir[0];
	both[1] = at("top/a.txt");
	assert_int_equal(check_as_nobody(file, 1, false), RP_EUSAGE);
	assert_int_equal(check_as_nobody(dir, 1, true), RP_EUSAGE);
	assert_int_equal(check_as_nobody(both, 2, true), 0);
	assert_int_equal(chmod(at("top/a.txt"), 0600), 0);
	assert_int_equal(chmod(base, 0700), 0);
}

/* The next entry must be the FILE prefix/rel; into *e. */
static void next_file(struct rp_walk *w, struct rp_walk_entry *e,
		      const char *path)
{
	assert_int_equal(rp_walk_next(w, e), 1);
	assert_int_equal(e->kind, RP_WALK_FILE);
	assert_string_equal(e->path, path);
}

/* s's whole content (at most 15 bytes), as a string in buf. */
static const char *src_bytes(struct rp_src *s, char *buf)
{
	assert_true(s->size < 16);
	assert_int_equal(rp_fileio_src_read(s, buf, s->size, 0), 0);
	buf[s->size] = '\0';
	return buf;
}

/*
 * A directory of the tree swapped for a symlink between the walk and the
 * open (what a user owning part of the tree can do while it is pushed):
 * the file behind the link is refused, never opened, so its bytes cannot
 * be sent. The walk lists swap/sub/f, then sub becomes a link to a
 * private directory holding a 0600 f.
 */
static void test_swapped_dir(void **state)
{
	char top[PATH_MAX];
	char *argv[] = { top };
	char priv[PATH_MAX];
	struct rp_walk_entry e;
	struct rp_src s;
	struct rp_walk *w;
	const char *out;
	char buf[16];
	int rc;

	(void)state;
	make_dir("private", 0700);
	make_file("private/f", 6, 0600);
	make_dir("swap", 0755);
	make_dir("swap/sub", 0755);
	make_file("swap/sub/f", 3, 0644);
	snprintf(priv, sizeof(priv), "%s", at("private"));
	snprintf(top, sizeof(top), "%s", at("swap"));

	/* Untouched, the file opens and reads as the walk saw it. */
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	expect_one(w, "swap", RP_WALK_DIR, "", 0755, 0, NULL);
	expect_one(w, "swap", RP_WALK_DIR, "/sub", 0755, 0, NULL);
	next_file(w, &e, "swap/sub/f");
	assert_string_equal(e.rel, "sub/f");
	assert_int_equal(rp_walk_src_open(w, &e, &s), 0);
	assert_string_equal(src_bytes(&s, buf), "012");
	rp_fileio_src_close(&s);
	expect_end(w);
	rp_walk_close(w);

	/* Listed, then swapped: refused at the link, nothing opened. */
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	expect_one(w, "swap", RP_WALK_DIR, "", 0755, 0, NULL);
	expect_one(w, "swap", RP_WALK_DIR, "/sub", 0755, 0, NULL);
	next_file(w, &e, "swap/sub/f");
	assert_int_equal(rename(at("swap/sub"), at("sub.old")), 0);
	assert_int_equal(symlink(priv, at("swap/sub")), 0);
	capture_start();
	rc = rp_walk_src_open(w, &e, &s);
	out = capture_end();
	assert_int_equal(rc, -ELOOP);
	assert_int_equal(s.fd, -1);
	assert_non_null(strstr(out, "a symbolic link; not following it"));
	/* One line. */
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	expect_end(w);
	rp_walk_close(w);

	/* The top itself swapped after the walk began: the files come from
	 * the directory the walk started on, not the link's target. */
	assert_int_equal(unlink(at("swap/sub")), 0);
	assert_int_equal(rename(at("sub.old"), at("swap/sub")), 0);
	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	expect_one(w, "swap", RP_WALK_DIR, "", 0755, 0, NULL);
	expect_one(w, "swap", RP_WALK_DIR, "/sub", 0755, 0, NULL);
	next_file(w, &e, "swap/sub/f");
	assert_int_equal(rename(at("swap"), at("swap.old")), 0);
	assert_int_equal(mkdir(at("swap"), 0755), 0);
	assert_int_equal(symlink(priv, at("swap/sub")), 0);
	assert_int_equal(rp_walk_src_open(w, &e, &s), 0);
	assert_string_equal(src_bytes(&s, buf), "012");
	rp_fileio_src_close(&s);
	rp_walk_close(w);
	assert_int_equal(unlink(at("swap/sub")), 0);
	assert_int_equal(rmdir(at("swap")), 0);
	assert_int_equal(rename(at("swap.old"), at("swap")), 0);
}

/*
 * A directory is opened at its first file, and its next files come from
 * the directory so opened: a swap between two files of it is not seen
 * (they are the files of the directory the walk listed, as a tree's come
 * from the top it held); a directory not opened yet is still refused.
 */
static void test_dir_kept(void **state)
{
	char top[PATH_MAX];
	char *argv[] = { top };
	char priv[PATH_MAX];
	struct rp_walk_entry e;
	struct rp_src s;
	struct rp_walk *w;
	char buf[16];

	(void)state;
	make_dir("hidden", 0700);
	make_file("hidden/f2", 6, 0600);
	make_file("hidden/g", 6, 0600);
	make_dir("kept", 0755);
	make_dir("kept/a", 0755);
	make_file("kept/a/f1", 3, 0644);
	make_file("kept/a/f2", 5, 0644);
	make_dir("kept/b", 0755);
	make_file("kept/b/g", 2, 0644);
	snprintf(priv, sizeof(priv), "%s", at("hidden"));
	snprintf(top, sizeof(top), "%s", at("kept"));

	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	expect_one(w, "kept", RP_WALK_DIR, "", 0755, 0, NULL);
	expect_one(w, "kept", RP_WALK_DIR, "/a", 0755, 0, NULL);
	next_file(w, &e, "kept/a/f1");
	assert_int_equal(rp_walk_src_open(w, &e, &s), 0);
	assert_string_equal(src_bytes(&s, buf), "012");
	rp_fileio_src_close(&s);
	assert_int_equal(rename(at("kept/a"), at("a.old")), 0);
	assert_int_equal(symlink(priv, at("kept/a")), 0);
	next_file(w, &e, "kept/a/f2");
	assert_int_equal(rp_walk_src_open(w, &e, &s), 0);
	assert_string_equal(src_bytes(&s, buf), "01234");
	rp_fileio_src_close(&s);
	expect_one(w, "kept", RP_WALK_DIR, "/b", 0755, 0, NULL);
	assert_int_equal(rename(at("kept/b"), at("b.old")), 0);
	assert_int_equal(symlink(priv, at("kept/b")), 0);
	next_file(w, &e, "kept/b/g");
	capture_start();
	assert_int_equal(rp_walk_src_open(w, &e, &s), -ELOOP);
	(void)capture_end();
	assert_int_equal(s.fd, -1);
	expect_end(w);
	rp_walk_close(w);
}

/*
 * The same for a directory: one listed under a directory since swapped
 * for a link is refused when looked at again, and nothing the walk would
 * find behind the link is listed. A directory's mode and mtime are
 * taken again too.
 */
static void test_swapped_subdir(void **state)
{
	char top[PATH_MAX];
	char *argv[] = { top };
	char priv[PATH_MAX];
	struct rp_walk_entry e;
	struct rp_walk *w;
	const char *out;
	int rc;

	(void)state;
	make_dir("private2", 0700);
	make_dir("private2/d", 0700);
	make_file("private2/d/secret", 6, 0600);
	make_dir("private2/d/x", 0700);
	make_dir("swap2", 0755);
	make_dir("swap2/sub", 0755);
	make_dir("swap2/sub/d", 0755);
	make_file("swap2/sub/d/g", 3, 0644);
	snprintf(priv, sizeof(priv), "%s", at("private2"));
	snprintf(top, sizeof(top), "%s", at("swap2"));

	assert_int_equal(rp_walk_open(&w, argv, 1, true, NULL), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(chmod(top, 0750), 0);
	/* Not the top's path from before, not a link's: what is held. */
	assert_string_equal(e.rel, "");
	assert_int_equal(e.mode, 0755);
	assert_int_equal(rp_walk_dir_recheck(w, &e), 0);
	assert_int_equal(e.mode, 0750);
	/* sub: its names are read; then it becomes a link. */
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_string_equal(e.rel, "sub");
	assert_int_equal(rp_walk_dir_recheck(w, &e), 0);
	assert_int_equal(rename(at("swap2/sub"), at("sub2.old")), 0);
	assert_int_equal(symlink(priv, at("swap2/sub")), 0);
	assert_int_equal(rp_walk_next(w, &e), 1);
	assert_int_equal(e.kind, RP_WALK_DIR);
	assert_string_equal(e.rel, "sub/d");
	capture_start();
	rc = rp_walk_dir_recheck(w, &e);
	out = capture_end();
	assert_int_equal(rc, -ELOOP);
	assert_non_null(strstr(out, "a symbolic link; not following it"));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	/* Not private2/d/secret, not private2/d/x. */
	expect_end(w);
	rp_walk_close(w);
	assert_int_equal(chmod(top, 0755), 0);
}

/*
 * What is sent of a file is what the opened descriptor says, not the
 * walk's lstat: a mode, size or mtime changed in between is the new one.
 */
static void test_src_is_fstat(void **state)
{
	struct timespec times[2] = { { 1000, 5 }, { 1000, 5 } };
	char top[PATH_MAX], file[PATH_MAX];
	char *tree_argv[] = { top };
	char *file_argv[] = { file };
	char *const *argvs[] = { tree_argv, file_argv };
	struct rp_walk_entry e;
	struct rp_src s;
	struct rp_walk *w;
	int fd;
	int i;

	(void)state;
	/* at()'s buffers are reused: the walk borrows its arguments. */
	snprintf(top, sizeof(top), "%s", at("swap"));
	snprintf(file, sizeof(file), "%s", at("swap/sub/f"));
	for (i = 0; i < 2; i++) {
		assert_int_equal(chmod(at("swap/sub/f"), 0644), 0);
		assert_int_equal(truncate(at("swap/sub/f"), 3), 0);
		assert_int_equal(rp_walk_open(&w, argvs[i], 1, i == 0, NULL),
				 0);
		if (i == 0) {
			expect_one(w, "swap", RP_WALK_DIR, "", 0755, 0, NULL);
			expect_one(w, "swap", RP_WALK_DIR, "/sub", 0755, 0,
				   NULL);
			next_file(w, &e, "swap/sub/f");
		} else {
			next_file(w, &e, "f");
			assert_null(e.rel);
		}
		assert_int_equal(e.mode, 0644);
		assert_int_equal(e.size, 3);
		assert_int_equal(chmod(at("swap/sub/f"), 0600), 0);
		fd = open(at("swap/sub/f"), O_WRONLY | O_APPEND);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "xy", 2), 2);
		assert_int_equal(close(fd), 0);
		assert_int_equal(utimensat(AT_FDCWD, at("swap/sub/f"), times,
					   0), 0);
		assert_int_equal(rp_walk_src_open(w, &e, &s), 0);
		assert_int_equal(s.mode, 0600);
		assert_int_equal(s.size, 5);
		assert_int_equal(s.mtime_sec, 1000);
		assert_int_equal(s.mtime_nsec, 5);
		rp_fileio_src_close(&s);
		rp_walk_close(w);
	}
}

/* The real walk's regular files and their bytes, for comparison. */
static void walked(char **argv, int n, bool recursive, uint64_t *total,
		   uint64_t *files)
{
	struct rp_walk_entry e;
	struct rp_walk *w;

	*total = *files = 0;
	assert_int_equal(rp_walk_open(&w, argv, n, recursive, NULL), 0);
	capture_start();
	while (rp_walk_next(w, &e) > 0)
		if (e.kind == RP_WALK_FILE) {
			(*files)++;
			*total += e.size;
		}
	(void)capture_end();
	rp_walk_close(w);
}

/* The count before a push: what the walk will send, links not followed
 * inside a tree (followed when named), a directory only with -r,
 * standard input of unknown size. */
static void test_total(void **state)
{
	static char dash_arg[] = "-";
	char *top[] = { at("top") };
	char *mixed[] = { at("top"), at("top/a.txt"), at("top/link"),
			  at("nothing-here") };
	char *in[] = { dash_arg };
	uint64_t total, files, want_total, want_files;

	(void)state;
	assert_int_equal(rp_walk_total(top, 1, true, NULL, &total, &files), 0);
	assert_int_equal(files, 5);
	assert_int_equal(total, 5 + 10 + 1 + 7 + 3);
	walked(top, 1, true, &want_total, &want_files);
	assert_int_equal(files, want_files);
	assert_int_equal(total, want_total);

	/* Without -r the tree is not counted; the link named is followed
	 * to outside.txt; a missing source counts nothing. */
	capture_start();
	assert_int_equal(rp_walk_total(mixed, 4, false, NULL, &total,
				       &files), 0);
	assert_string_equal(capture_end(), "");
	assert_int_equal(files, 2);
	assert_int_equal(total, 5 + 4);
	assert_int_equal(rp_walk_total(mixed, 3, true, NULL, &total, &files),
			 0);
	assert_int_equal(files, 7);
	assert_int_equal(total, 26 + 5 + 4);

	assert_int_equal(rp_walk_total(in, 1, false, "in.bin", &total,
				       &files), 0);
	assert_int_equal(files, 1);
	assert_true(total == UINT64_MAX);
	capture_start();
	assert_int_equal(rp_walk_total(in, 1, false, NULL, &total, &files),
			 RP_EUSAGE);
	assert_non_null(strstr(capture_end(), "needs --as NAME"));
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(rp_walk_kind_name(RP_WALK_FILE), "file");
	assert_string_equal(rp_walk_kind_name(RP_WALK_DIR), "dir");
	assert_string_equal(rp_walk_kind_name(RP_WALK_STDIN), "stdin");
	assert_string_equal(rp_walk_kind_name(RP_WALK_SKIP), "skip");
	assert_string_equal(rp_walk_kind_name(RP_WALK_ERROR), "error");
	assert_string_equal(rp_walk_kind_name(RP_WALK_KIND_MAX), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_recursive),
		cmocka_unit_test(test_dir_without_r),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_missing_source),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_as_renames),
		cmocka_unit_test(test_cmdline_symlink),
		cmocka_unit_test(test_trailing_slash),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_path_too_long),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_unreadable),
		cmocka_unit_test(test_swapped_dir),
		cmocka_unit_test(test_swapped_subdir),
		cmocka_unit_test(test_dir_kept),
		cmocka_unit_test(test_src_is_fstat),
		cmocka_unit_test(test_total),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
