// SPDX-License-Identifier: MIT
/*
 * scripts/bench mem tree: many small files pushed natively, the real
 * sender (-r) and the real receiver in one process over a socketpair and
 * the in-memory fabric, against the same bytes copied by tar | tar and
 * made durable by sync -f, in the same run on the same file system.
 * Makes the tree, runs both interleaved, checks every result, prints
 * medians (a table, or one JSON object per run and per median).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/config.h"
#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/fileio.h"
#include "rdmapush/json.h"
#include "rdmapush/opts.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

#include "bench_common.h"

#define PER_DIR		1000	/* files per subdirectory of the tree */
#define REL_LEN		48	/* "dDDDD/fFFFFFFF", any uint64_t */
#define SAMPLE		97	/* every 97th file's bytes are compared */
#define RUNS_MAX	99
#define FILES_MAX	10000000ull	/* f%07llu names */
#define SIZE_MAX_	(64ull << 20)	/* one file in memory at a time */
/* The pushed tree's name in its target (rdmapush send --as). */
#define TREE_NAME	"tree"
/* The ceiling: the same bytes copied and made durable, no checksum. */
#define TAR_SCRIPT	"tar -C \"$1\" -cf - . | tar -C \"$2\" -xf - && " \
			"sync -f \"$2\""

static const char usage[] =
"usage: bench_tree [options]\n"
"Push a tree of many small files natively: rdmapush's real sender (-r)\n"
"and receiver in one process over the in-memory fabric, against the\n"
"ceiling `tar -C SRC -cf - . | tar -C DST -xf -; sync -f DST` in the\n"
"same run, into a fresh directory on the same file system. Prints\n"
"median files/s and MB/s of each, and rdmapush over the ceiling.\n"
"\n"
"  -n, --files N       files in the tree (default 100000), at most 1000\n"
"                      to a subdirectory\n"
"  -s, --size SIZE     bytes of each file (default 1K, at most 64M)\n"
"  -r, --runs N        runs of each, interleaved, 1..99 (default 3)\n"
"  -f, --fs WHICH      tmpfs, disk or both (default both)\n"
"      --tmpfs DIR     where to make the tmpfs directory (/dev/shm)\n"
"      --disk DIR      where to make the disk directory (.)\n"
"      --threads N     rdmapush --threads (default rdmapush's: one per\n"
"                      online core, at most 8)\n"
"      --only LIST     rdmapush, ceiling (or tar), or both (default\n"
"                      rdmapush,ceiling)\n"
"  -t, --timeout S     per-phase timeout of each push (default 120)\n"
"  -j, --json          one JSON object per run and per median on stdout;\n"
"                      the table goes to stderr\n"
"  -k, --keep          keep the source tree and every run's target\n"
"                      (without it they are removed after the last run)\n"
"  -h, --help\n";

/* ---------------------------------------------------------------------
 * What is measured, and the results
 */

enum what {
	W_RP = 0,	/* rdmapush send -r, into recv */
	W_CEIL,		/* tar | tar; sync -f */
	W_MAX
};

static const char *const what_names[W_MAX] = { "rdmapush", "ceiling" };

struct cfg {
	uint64_t files;
	uint64_t size;
	int runs;
	uint32_t threads;
	int timeout;
	unsigned int only;	/* 1u << enum what */
	bool json;
	bool keep;
	struct bench_fsopts fsopts;	/* --fs, --tmpfs, --disk */
};

/* One run of one side. */
struct run {
	int rc;			/* 0, or the error (reported) */
	double seconds;
	double cpu;		/* CPU seconds, user + system */
	long rss_kib;		/* peak RSS of the measuring process */
};

/* One file system under test: a private directory holding the source. */
struct tfs {
	const char *label;	/* "tmpfs", "disk" */
	char type[24];		/* what statfs(2) says: "tmpfs", "ext4" */
	int journal;		/* ext4: 1 with a journal, 0 without, -1 ? */
	char dir[PATH_MAX];	/* made with mkdtemp */
	char src[PATH_MAX + 8];	/* dir/src: the tree */
	bool made;
	bool measured;
	double make_seconds;	/* making the source, not timed */
	struct run run[W_MAX][RUNS_MAX];
	int n;			/* runs done */
};

/* ---------------------------------------------------------------------
 * Options
 */

/* One name of --only. */
static int only_item(const char *t, void *ctx)
{
	struct cfg *c = ctx;
	int w = 0;

	while (w < W_MAX && strcmp(t, what_names[w]))
		w++;
	/* The ceiling is tar's. */
	if (!strcmp(t, "tar"))
		w = W_CEIL;
	if (w == W_MAX)
		return bench_bad("--only", t,
				 "must be rdmapush, ceiling (or tar)");
	c->only |= 1u << w;
	return 0;
}

static int parse_one(int opt, const char *arg, void *ctx)
{
	struct cfg *c = ctx;
	long long l;
	int rc = bench_parse_fsopts(opt, arg, &c->fsopts);

	if (rc <= 0)
		return rc;
	rc = 0;
	switch (opt) {
	case 'n':
		rc = bench_parse_count("--files", arg, 1, (long long)FILES_MAX,
				       &l);
		c->files = (uint64_t)l;
		break;
	case 's':
		if (rp_opts_parse_size(arg, &c->size) || !c->size ||
		    c->size > SIZE_MAX_)
			return bench_bad("--size", arg, "not a size in 1..64M");
		break;
	case 'r':
		rc = bench_parse_count("--runs", arg, 1, RUNS_MAX, &l);
		c->runs = (int)l;
		break;
	case 'N':
		rc = bench_parse_count("--threads", arg, 1, RP_MAX_THREADS, &l);
		c->threads = (uint32_t)l;
		break;
	case 'O':
		c->only = 0;
		return bench_parse_list("--only", arg, 64, only_item, c);
	case 't':
		rc = bench_parse_count("--timeout", arg, 1, 3600, &l);
		c->timeout = (int)l;
		break;
	case 'j':
		c->json = true;
		break;
	case 'k':
		c->keep = true;
		break;
	default:
		fputs(usage, stderr);
		return RP_EUSAGE;
	}
	return rc;
}

/* 0, RP_EUSAGE (reported), or 1 for --help (printed). */
static int parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option longs[] = {
		{ "files", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "fs", required_argument, NULL, 'f' },
		{ "tmpfs", required_argument, NULL, 'T' },
		{ "disk", required_argument, NULL, 'D' },
		{ "threads", required_argument, NULL, 'N' },
		{ "only", required_argument, NULL, 'O' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "keep", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* No --threads: what a push with no --threads gets. */
	const struct rp_config none = { 0 };

	*c = (struct cfg){
		.files = 100000, .size = 1024, .runs = 3,
		.threads = rp_config_threads(&none), .timeout = 120,
		.only = (1u << W_MAX) - 1,
		.fsopts = BENCH_FSOPTS_DEFAULT,
	};
	return bench_getopt(argc, argv, "n:s:r:f:t:jkh", longs, parse_one, c);
}

/* ---------------------------------------------------------------------
 * Trees: made, counted, compared, removed
 */

/* File i's path under a tree's root: dDDDD/fFFFFFFF. */
static void file_path(char *buf, size_t len, uint64_t i)
{
	snprintf(buf, len, "d%04llu/f%07llu",
		 (unsigned long long)(i / PER_DIR), (unsigned long long)i);
}

static int make_file(int root, uint64_t i, uint8_t *buf, size_t size)
{
	char rel[REL_LEN];
	int fd, rc;

	file_path(rel, sizeof(rel), i);
	if (i % PER_DIR == 0) {
		char dir[REL_LEN];

		memcpy(dir, rel, sizeof(dir));
		*strchr(dir, '/') = '\0';
		if (mkdirat(root, dir, 0755)) {
			rc = -errno;
			RP_ERR("mkdirat(%s): %s", dir, strerror(-rc));
			return rc;
		}
	}
	fd = openat(root, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		RP_ERR("openat(%s): %s", rel, strerror(-rc));
		return rc;
	}
	bench_fill(buf, size, i + 1);
	rc = bench_write_full(fd, buf, size);
	if (rc)
		RP_ERR("write(%s): %s", rel, strerror(-rc));
	if (close(fd) && !rc) {
		rc = -errno;
		RP_ERR("close(%s): %s", rel, strerror(-rc));
	}
	return rc;
}

/*
 * The source tree, made durable with one syncfs so that none of its
 * writeback overlaps a run. Not timed as a run; its time is printed.
 */
static int make_tree(struct tfs *fs, const struct cfg *c)
{
	uint8_t *buf = malloc(c->size);
	double t0 = rp_now();
	int root = -1;
	int rc = 0;

	if (!buf) {
		RP_ERR("malloc(%llu): %s", (unsigned long long)c->size,
		       strerror(ENOMEM));
		return -ENOMEM;
	}
	if (mkdir(fs->src, 0755)) {
		rc = -errno;
		RP_ERR("mkdir(%s): %s", fs->src, strerror(-rc));
		goto out;
	}
	root = open(fs->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		rc = -errno;
		RP_ERR("open(%s): %s", fs->src, strerror(-rc));
		goto out;
	}
	for (uint64_t i = 0; i < c->files && !rc && !bench_stop; i++)
		rc = make_file(root, i, buf, (size_t)c->size);
	if (!rc && syncfs(root)) {
		rc = -errno;
		RP_ERR("syncfs(%s): %s", fs->src, strerror(-rc));
	}
	close(root);
	fs->make_seconds = rp_now() - t0;
out:
	free(buf);
	return rc;
}

/* What a tree holds. */
struct count {
	uint64_t files;		/* regular files */
	uint64_t bytes;		/* their sizes */
	uint64_t other;		/* anything but files and directories */
};

/*
 * Count what dir holds (dirfd, owned and closed), recursively; with
 * remove, remove it all too (post-order). 0 or -errno (reported).
 */
static int walk(int dirfd, const char *shown, struct count *n, bool remove)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		rc = -errno;
		RP_ERR("fdopendir(%s): %s", shown, strerror(-rc));
		close(dirfd);
		return rc;
	}
	while (!rc) {
		struct stat st;

		errno = 0;
		e = readdir(d);
		if (!e) {
			rc = errno ? -errno : 0;
			if (rc)
				RP_ERR("readdir(%s): %s", shown,
				       strerror(-rc));
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			rc = -errno;
			RP_ERR("fstatat(%s/%s): %s", shown, e->d_name,
			       strerror(-rc));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name, O_RDONLY |
					 O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				rc = -errno;
				RP_ERR("openat(%s/%s): %s", shown, e->d_name,
				       strerror(-rc));
				break;
			}
			rc = walk(sub, e->d_name, n, remove);
		} else if (S_ISREG(st.st_mode)) {
			n->files++;
			n->bytes += (uint64_t)st.st_size;
		} else {
			n->other++;
		}
		if (!rc && remove &&
		    unlinkat(dirfd, e->d_name,
			     S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0)) {
			rc = -errno;
			RP_ERR("unlinkat(%s/%s): %s", shown, e->d_name,
			       strerror(-rc));
		}
	}
	closedir(d);
	return rc;
}

static int walk_path(const char *path, struct count *n, bool remove)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		int rc = -errno;

		RP_ERR("open(%s): %s", path, strerror(-rc));
		return rc;
	}
	return walk(fd, path, n, remove);
}

/* Read base/rel, size bytes, into buf; it must be exactly that long. */
static int read_file(const char *base, const char *rel, uint8_t *buf,
		     size_t size)
{
	char path[PATH_MAX * 2];
	uint8_t extra;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		RP_ERR("open(%s): %s", path, strerror(-rc));
		return rc;
	}
	rc = bench_read_full(fd, buf, size);
	if (!rc && read(fd, &extra, 1) != 0)
		rc = -EFBIG;
	if (rc)
		RP_ERR("read(%s, %zu bytes): %s", path, size,
		       rc == -EFBIG ? "longer than that" : strerror(-rc));
	close(fd);
	return rc;
}

/* The file after i to compare: every SAMPLE-th, and the last one. */
static uint64_t next_sample(uint64_t i, uint64_t files)
{
	if (i == files - 1)
		return files;
	return i + SAMPLE < files ? i + SAMPLE : files - 1;
}

/*
 * The target directory dst must hold the source's files and nothing
 * else (count and total bytes), the tree at root (dst, or a directory
 * in it), and every SAMPLE-th file byte for byte as the source's. 0 or
 * RP_EINTERNAL (reported: what differs).
 */
static int check_tree(const char *what, const char *dst, const char *root,
		      const struct tfs *fs, const struct cfg *c)
{
	uint64_t want = c->files * c->size;
	struct count n = { 0 };
	uint8_t *a = malloc(c->size);
	uint8_t *b = malloc(c->size);
	int rc = walk_path(dst, &n, false);

	if (!a || !b) {
		RP_ERR("malloc(%llu): %s", (unsigned long long)c->size,
		       strerror(ENOMEM));
		rc = -ENOMEM;
	}
	if (!rc && (n.files != c->files || n.bytes != want || n.other)) {
		RP_ERR("%s: %s holds %llu files of %llu bytes (and %llu other "
		       "entries), not %llu of %llu", what, dst,
		       (unsigned long long)n.files,
		       (unsigned long long)n.bytes,
		       (unsigned long long)n.other,
		       (unsigned long long)c->files,
		       (unsigned long long)want);
		rc = RP_EINTERNAL;
	}
	for (uint64_t i = 0; !rc && i < c->files;
	     i = next_sample(i, c->files)) {
		char rel[REL_LEN];

		file_path(rel, sizeof(rel), i);
		rc = read_file(fs->src, rel, a, (size_t)c->size);
		if (!rc)
			rc = read_file(root, rel, b, (size_t)c->size);
		if (!rc && memcmp(a, b, (size_t)c->size)) {
			RP_ERR("%s: %s/%s differs from the source's", what,
			       root, rel);
			rc = RP_EINTERNAL;
		}
	}
	free(a);
	free(b);
	return rc ? RP_EINTERNAL : 0;
}

/* Remove a target (or the source), then sync the file system, so that
 * none of the removal's work lands in the next run. Not timed. */
static int remove_tree(const struct tfs *fs, const char *path)
{
	struct count n = { 0 };
	int rc = walk_path(path, &n, true);
	int fd;

	if (!rc && rmdir(path)) {
		rc = -errno;
		RP_ERR("rmdir(%s): %s", path, strerror(-rc));
	}
	fd = open(fs->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd)) {
		int e = errno;

		RP_ERR("%s(%s): %s", fd < 0 ? "open" : "syncfs", fs->dir,
		       strerror(e));
		if (!rc)
			rc = -e;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---------------------------------------------------------------------
 * The file systems under test
 */

/*
 * Whether the ext4 holding dir has a journal: jbd2 lists each journal it
 * runs as /proc/fs/jbd2/DEV-INODE, DEV the block device's name. Without
 * one, each fsync writes the inode's block and flushes on its own. 1, 0,
 * or -1 when it cannot tell.
 */
static int ext4_journal(const char *dir)
{
	char link[64], target[PATH_MAX];
	const char *name;
	struct dirent *e;
	struct stat st;
	size_t len;
	ssize_t n;
	DIR *d;
	int found = 0;

	if (stat(dir, &st))
		return -1;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_dev), minor(st.st_dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	len = strlen(name);
	d = opendir("/proc/fs/jbd2");
	if (!d)
		return -1;
	for (e = readdir(d); e && !found; e = readdir(d))
		found = !strncmp(e->d_name, name, len) && e->d_name[len] == '-';
	closedir(d);
	return found;
}

/* "ext4" or "ext4, no journal": what the table says of fs's type. */
static const char *fs_kind(const struct tfs *fs, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", fs->type, fs->journal == 0 ?
		 ", no journal" : "");
	return buf;
}

/* Run i's target directory of side w. */
static void dst_path(const struct tfs *fs, enum what w, int i, char *buf,
		     size_t len)
{
	snprintf(buf, len, "%s/dst-%s-%d", fs->dir, what_names[w], i + 1);
}

/* Removes what fs_setup and the runs made (unless --keep), reporting
 * and going on. NULL-safe; a second call does nothing. */
static void fs_teardown(struct tfs *fs, const struct cfg *c)
{
	char dst[PATH_MAX + 32];

	if (!fs || !fs->made)
		return;
	fs->made = false;
	if (c->keep) {
		fprintf(stderr, "bench_tree: kept %s\n", fs->dir);
		return;
	}
	for (int i = 0; i < c->runs; i++)
		for (int w = 0; w < W_MAX; w++) {
			dst_path(fs, w, i, dst, sizeof(dst));
			if (!access(dst, F_OK))
				(void)remove_tree(fs, dst);
		}
	if (!access(fs->src, F_OK))
		(void)remove_tree(fs, fs->src);
	if (rmdir(fs->dir))
		RP_ERR("rmdir(%s): %s", fs->dir, strerror(errno));
}

/* A private directory under base, its file system's type, the source. */
static int fs_setup(struct tfs *fs, const char *label, const char *base,
		    const struct cfg *c)
{
	char kind[48];
	int rc;

	*fs = (struct tfs){ .label = label };
	rc = bench_mkdtemp(fs->dir, sizeof(fs->dir), base, "rp-tree", label);
	if (rc)
		return rc;
	fs->made = true;
	snprintf(fs->src, sizeof(fs->src), "%s/src", fs->dir);
	rc = bench_fs_type(fs->dir, fs->type, sizeof(fs->type));
	if (rc)
		goto err_teardown;
	fs->journal = strcmp(fs->type, "ext4") ? -1 : ext4_journal(fs->dir);
	bench_check_kind(label, fs->dir, fs->type);
	fprintf(stderr, "bench_tree: %s: %s (%s): making %llu files...\n",
		label, fs->dir, fs_kind(fs, kind, sizeof(kind)),
		(unsigned long long)c->files);
	rc = make_tree(fs, c);
	if (rc)
		goto err_teardown;
	fprintf(stderr, "bench_tree: %s: source made and synced in %.1f s "
		"(not timed)\n", label, fs->make_seconds);
	return 0;

err_teardown:
	fs_teardown(fs, c);
	return rc;
}

/* ---------------------------------------------------------------------
 * rdmapush: both sides in a forked child, over a socketpair and the
 * in-memory fabric, as bench_mem's pushes
 */

struct side {
	struct rp_config o;
	int fd;			/* control socket, closed by the session */
	int dirfd;		/* receiver: the target */
	int rc;
	double end;		/* rp_now() at the session's return */
};

/* The tool's defaults (no -c or -w: a tree of small files gets the
 * session's own shape for them), quiet, --threads and --timeout. */
static void opts_for(struct rp_config *o, const struct cfg *c)
{
	rp_config_defaults(o);
	o->timeout = c->timeout;
	o->quiet = true;
	o->max_transfers = 1;
	o->threads = c->threads;
}

static void *send_main(void *arg)
{
	struct side *s = arg;

	(void)pthread_setname_np(pthread_self(), "bench-send");
	s->rc = rp_session_send_fd(&s->o, s->fd, s->o.host, NULL);
	s->end = rp_now();
	return NULL;
}

static void *recv_main(void *arg)
{
	struct side *s = arg;

	(void)pthread_setname_np(pthread_self(), "bench-recv");
	s->rc = rp_session_recv_one(&s->o, NULL, s->dirfd, s->fd,
				    "bench-sender", NULL, NULL);
	s->end = rp_now();
	return NULL;
}

static double rusage_cpu(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

static double self_cpu(void)
{
	struct rusage ru;

	/* Cannot fail for RUSAGE_SELF; 0 keeps differences sane. */
	if (getrusage(RUSAGE_SELF, &ru))
		return 0.0;
	return rusage_cpu(&ru);
}

/* In the child: send -r src as TREE_NAME into recv -o dst. Timed from
 * the threads' start to the sender's return (its ACK: all durable). */
static int push(const struct cfg *c, const struct tfs *fs, const char *dst,
		struct run *r)
{
	char *src[1] = { (char *)fs->src };
	struct side s, v;
	pthread_t ts, tv;
	double t0, cpu;
	int sp[2], e, rs, rv;

	opts_for(&s.o, c);
	s.o.sources = src;
	s.o.nsources = 1;
	s.o.recursive = true;
	s.o.as_name = TREE_NAME;
	s.o.host = "bench-receiver";
	opts_for(&v.o, c);
	v.o.dir = dst;
	v.o.once = true;
	v.rc = rp_fileio_dir_open(dst, &v.dirfd);
	if (v.rc)
		return v.rc;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		e = errno;
		RP_ERR("socketpair(AF_UNIX): %s", strerror(e));
		close(v.dirfd);
		return -e;
	}
	s.fd = sp[0];
	v.fd = sp[1];
	/* Both sides are real: the fabric copies every byte, for the
	 * receiver hashes and writes what lands (the default; said here,
	 * which also links the fabric in place of a device's verbs). */
	rp_fab_reset();
	cpu = self_cpu();
	t0 = rp_now();
	e = pthread_create(&tv, NULL, recv_main, &v);
	if (e) {
		RP_ERR("pthread_create(receiver): %s", strerror(e));
		close(v.fd);
		close(s.fd);
		close(v.dirfd);
		return -e;
	}
	e = pthread_create(&ts, NULL, send_main, &s);
	if (e) {
		RP_ERR("pthread_create(sender): %s", strerror(e));
		/* The receiver sees the control connection close and stops. */
		close(s.fd);
		(void)bench_join(tv, "receiver");
		close(v.dirfd);
		return -e;
	}
	rs = bench_join(ts, "sender");
	rv = bench_join(tv, "receiver");
	r->seconds = s.end - t0;
	r->cpu = self_cpu() - cpu;
	close(v.dirfd);
	if (rs || rv)
		return rs ? rs : rv;
	return s.rc ? s.rc : v.rc;
}

/* What the child pushes. */
struct job {
	const struct cfg *c;
	const struct tfs *fs;
	const char *dst;
};

static int push_child(void *arg, void *res)
{
	const struct job *j = arg;
	struct run *r = res;

	r->rc = push(j->c, j->fs, j->dst, r);
	return r->rc;
}

/* The push in a child of its own, so that its CPU, peak RSS and any
 * state of the in-memory fabric are its own. */
static int measure_push(const struct cfg *c, const struct tfs *fs,
			const char *dst, struct run *r)
{
	struct job j = { .c = c, .fs = fs, .dst = dst };
	int rc = bench_fork(what_names[W_RP], push_child, &j, r, sizeof(*r),
			    &r->rss_kib);

	if (rc)
		r->rc = rc;
	return r->rc;
}

/* ---------------------------------------------------------------------
 * The ceiling: sh -c TAR_SCRIPT, timed as a whole
 */

static int measure_ceiling(const struct tfs *fs, const char *dst,
			   struct run *r)
{
	struct rusage ru;
	double t0;
	int status;
	pid_t pid;

	fflush(NULL);
	t0 = rp_now();
	pid = fork();
	if (pid < 0) {
		r->rc = -errno;
		RP_ERR("fork: %s", strerror(-r->rc));
		return r->rc;
	}
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", TAR_SCRIPT, "sh", fs->src, dst,
		      (char *)NULL);
		RP_ERR("execl(/bin/sh): %s", strerror(errno));
		_exit(127);
	}
	if (bench_reap(pid, &status, &ru))
		return r->rc = RP_EINTERNAL;
	r->seconds = rp_now() - t0;
	/* sh's and the tars' it waited for (wait4 counts reaped children). */
	r->cpu = rusage_cpu(&ru);
	r->rss_kib = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		RP_ERR("ceiling: sh -c '%s' failed (wait status 0x%x)",
		       TAR_SCRIPT, status);
		r->rc = RP_EINTERNAL;
	}
	return r->rc;
}

/* ---------------------------------------------------------------------
 * The schedule: per file system, runs of each side interleaved
 */

/*
 * Run i of side w into a fresh directory, checked. The targets stay
 * until every run is done: ext4 without a journal passes over inodes
 * freed in the last minute or more when it allocates one
 * (recently_deleted()), so a run right after 100,000 files were
 * removed paid up to 5 times the CPU to create its own.
 */
static int one_run(const struct cfg *c, struct tfs *fs, enum what w, int i)
{
	char dst[PATH_MAX + 32], root[PATH_MAX + 64];
	struct run *r = &fs->run[w][i];
	int rc;

	*r = (struct run){ 0 };
	dst_path(fs, w, i, dst, sizeof(dst));
	if (mkdir(dst, 0755)) {
		r->rc = -errno;
		RP_ERR("mkdir(%s): %s", dst, strerror(-r->rc));
		return r->rc;
	}
	rc = w == W_RP ? measure_push(c, fs, dst, r) :
	     measure_ceiling(fs, dst, r);
	if (!rc) {
		snprintf(root, sizeof(root), "%s%s", dst,
			 w == W_RP ? "/" TREE_NAME : "");
		rc = check_tree(what_names[w], dst, root, fs, c);
		r->rc = rc;
	}
	fprintf(stderr, "bench_tree: %s run %d/%d: %s ", fs->label, i + 1,
		c->runs, what_names[w]);
	if (rc)
		fprintf(stderr, "FAILED\n");
	else
		fprintf(stderr, "%.2f s, %.0f files/s, %.2f CPU s\n",
			r->seconds, (double)c->files / r->seconds, r->cpu);
	return rc;
}

/* The number of failures. */
static int run_fs(const struct cfg *c, struct tfs *fs, const char *label,
		  const char *base)
{
	int failed = 0;

	if (fs_setup(fs, label, base, c))
		return 1;
	fs->measured = true;
	for (int i = 0; i < c->runs && !bench_stop; i++) {
		for (int w = 0; w < W_MAX && !bench_stop; w++)
			if (c->only & (1u << w))
				failed += one_run(c, fs, w, i) != 0;
		fs->n = i + 1;
	}
	fs_teardown(fs, c);
	return failed;
}

/* ---------------------------------------------------------------------
 * The report
 */

/* One row: a run, or the medians of a side's successful runs. */
struct row {
	int ok;			/* runs behind it (a run: 1 if it succeeded) */
	double seconds;
	double cpu;
	long rss_kib;
};

static struct row median_row(const struct tfs *fs, enum what w)
{
	double secs[RUNS_MAX], cpu[RUNS_MAX], rss[RUNS_MAX];
	struct row m = { 0 };

	for (int i = 0; i < fs->n; i++) {
		const struct run *r = &fs->run[w][i];

		if (r->rc || r->seconds <= 0)
			continue;
		secs[m.ok] = r->seconds;
		cpu[m.ok] = r->cpu;
		rss[m.ok] = (double)r->rss_kib;
		m.ok++;
	}
	if (m.ok) {
		m.seconds = bench_median(secs, m.ok);
		m.cpu = bench_median(cpu, m.ok);
		m.rss_kib = (long)bench_median(rss, m.ok);
	}
	return m;
}

static struct row run_row(const struct tfs *fs, enum what w, int i)
{
	const struct run *r = &fs->run[w][i];
	struct row x = { .ok = !r->rc && r->seconds > 0 };

	if (x.ok) {
		x.seconds = r->seconds;
		x.cpu = r->cpu;
		x.rss_kib = r->rss_kib;
	}
	return x;
}

static double files_per_s(const struct cfg *c, const struct row *x)
{
	return x->ok ? (double)c->files / x->seconds : 0.0;
}

static double mb_per_s(const struct cfg *c, const struct row *x)
{
	return x->ok ? (double)(c->files * c->size) / x->seconds / 1e6 : 0.0;
}

static void table_row(FILE *f, const struct cfg *c, enum what w,
		      const struct row *m, int runs)
{
	if (!m->ok) {
		fprintf(f, "  %-9s %10s %9s %9s %8s %12s %5d/%d\n",
			what_names[w], "-", "-", "-", "-", "-", 0, runs);
		return;
	}
	fprintf(f, "  %-9s %10.0f %9.2f %9.3f %8.2f %12.1f %5d/%d\n",
		what_names[w], files_per_s(c, m), mb_per_s(c, m), m->seconds,
		m->cpu, m->cpu * 1e6 / (double)c->files, m->ok, runs);
}

static void report_table(FILE *f, const struct cfg *c,
			 const struct tfs *const *fss, int n)
{
	char sz[32];
	uint64_t dirs = (c->files + PER_DIR - 1) / PER_DIR;

	rp_fmt_bytes(sz, sizeof(sz), c->size);
	fprintf(f, "%llu files of %s (%llu bytes in all) in %llu "
		"director%s of at most %d files; %d interleaved run%s of "
		"each; rdmapush --threads %u\n",
		(unsigned long long)c->files, sz,
		(unsigned long long)(c->files * c->size),
		(unsigned long long)dirs, dirs == 1 ? "y" : "ies", PER_DIR,
		c->runs, c->runs == 1 ? "" : "s", c->threads);
	for (int k = 0; k < n; k++) {
		const struct tfs *fs = fss[k];
		struct row m[W_MAX];
		char kind[48];

		fprintf(f, "%s (%s, %s), medians:\n", fs->label,
			fs_kind(fs, kind, sizeof(kind)), fs->dir);
		fprintf(f, "  %-9s %10s %9s %9s %8s %12s %7s\n", "what",
			"files/s", "MB/s", "seconds", "CPU s", "CPU us/file",
			"ok");
		for (int w = 0; w < W_MAX; w++) {
			m[w] = median_row(fs, w);
			if (c->only & (1u << w))
				table_row(f, c, w, &m[w], fs->n);
		}
		if (m[W_RP].ok && m[W_CEIL].ok)
			fprintf(f, "  rdmapush / ceiling, files/s: %.2f\n",
				m[W_CEIL].seconds / m[W_RP].seconds);
	}
	fputs("rdmapush: the real sender (-r) and receiver in one process "
	      "over a socketpair and the\nin-memory fabric, timed from "
	      "their start to the sender's return (its ACK: every file\n"
	      "durable); CPU: the process's, both sides, every thread "
	      "(getrusage).\nceiling: sh -c '" TAR_SCRIPT "' sh SRC DST,\n"
	      "timed from fork to exit; CPU: sh and both tars (wait4).\n"
	      "Each run into a fresh empty directory on the same file "
	      "system, checked (files,\nbytes, every 97th file's content), "
	      "kept until the last run (ext4 without a journal\nskips "
	      "inodes freed in the last minute, so removing 100,000 files "
	      "slows the next\nrun's creates), then removed. Nothing is "
	      "dropped from the page cache: the source\nis read from "
	      "memory.\n", f);
}

static int put(struct json_object *o, const char *k, struct json_object *v)
{
	return rp_json_add(o, k, v);
}

/* One JSON row: run i (0-based) of side w, or (i < 0) its medians. */
static int json_row(FILE *f, const struct cfg *c, const struct tfs *fs,
		    enum what w, int i)
{
	struct json_object *o = json_object_new_object();
	struct row x = i < 0 ? median_row(fs, w) : run_row(fs, w, i);
	struct row ceil = i < 0 ? median_row(fs, W_CEIL) :
			  run_row(fs, W_CEIL, i);
	int rc = 0;

	if (!o)
		return rp_json_print(f, o, -ENOMEM);
	rc |= put(o, "fs", json_object_new_string(fs->label));
	rc |= put(o, "fs_type", json_object_new_string(fs->type));
	if (fs->journal >= 0)
		rc |= put(o, "journal", json_object_new_boolean(fs->journal));
	rc |= put(o, "what", json_object_new_string(what_names[w]));
	rc |= put(o, "median", json_object_new_boolean(i < 0));
	if (i >= 0)
		rc |= put(o, "run", json_object_new_int(i + 1));
	else
		rc |= put(o, "ok_runs", json_object_new_int(x.ok));
	rc |= put(o, "status", json_object_new_string(x.ok ? "ok" :
						       "failed"));
	rc |= put(o, "files", json_object_new_uint64(c->files));
	rc |= put(o, "size", json_object_new_uint64(c->size));
	rc |= put(o, "bytes", json_object_new_uint64(c->files * c->size));
	rc |= put(o, "threads", json_object_new_int64(c->threads));
	if (x.ok) {
		rc |= put(o, "seconds", rp_json_fixed(x.seconds, 4));
		rc |= put(o, "files_per_s",
			  rp_json_fixed(files_per_s(c, &x), 1));
		rc |= put(o, "mb_per_s", rp_json_fixed(mb_per_s(c, &x), 3));
		rc |= put(o, "cpu_s", rp_json_fixed(x.cpu, 3));
		rc |= put(o, "cpu_us_per_file",
			  rp_json_fixed(x.cpu * 1e6 / (double)c->files, 2));
		rc |= put(o, "rss_kib", json_object_new_int64(x.rss_kib));
	} else {
		static const char *const none[] = {
			"seconds", "files_per_s", "mb_per_s", "cpu_s",
			"cpu_us_per_file", "rss_kib",
		};

		for (size_t k = 0; k < sizeof(none) / sizeof(none[0]); k++)
			rc |= json_object_object_add(o, none[k], NULL) ?
			      -ENOMEM : 0;
	}
	if (ceil.ok && (c->only & (1u << W_CEIL)))
		rc |= put(o, "ceiling_files_per_s",
			  rp_json_fixed(files_per_s(c, &ceil), 1));
	else
		rc |= json_object_object_add(o, "ceiling_files_per_s", NULL) ?
		      -ENOMEM : 0;
	if (w == W_RP && x.ok && ceil.ok && (c->only & (1u << W_CEIL)))
		rc |= put(o, "over_ceiling",
			  rp_json_fixed(ceil.seconds / x.seconds, 3));
	return rp_json_print(f, o, rc);
}

/* Every run of each side, then its medians; 0 or -ENOMEM / -EIO. */
static int report_json(FILE *f, const struct cfg *c,
		       const struct tfs *const *fss, int n)
{
	int rc = 0;

	for (int k = 0; k < n; k++)
		for (int w = 0; w < W_MAX; w++) {
			if (!(c->only & (1u << w)))
				continue;
			for (int i = 0; i < fss[k]->n && !rc; i++)
				rc = json_row(f, c, fss[k], w, i);
			if (!rc)
				rc = json_row(f, c, fss[k], w, -1);
		}
	return rc;
}

/* ---------------------------------------------------------------------
 * main
 */

int main(int argc, char **argv)
{
	static struct tfs tmpfs, disk;
	const struct tfs *done[2];
	struct cfg c;
	int n = 0;
	int failed = 0;
	int rc;

	bench_init("bench_tree", usage);
	/* The receiver's open-file limit, as `rdmapush recv` raises it. */
	(void)rp_sys_nofile(RP_SYS_NOFILE_RECV);
	rc = parse_args(argc, argv, &c);
	if (rc)
		return rc > 0 ? 0 : RP_EXIT_USAGE;
	rp_trace_init(RP_V_QUIET, "bench");
	bench_signals();
	if (c.fsopts.use_tmpfs && !bench_stop) {
		failed += run_fs(&c, &tmpfs, "tmpfs", c.fsopts.tmpfs_dir);
		if (tmpfs.measured)
			done[n++] = &tmpfs;
	}
	if (c.fsopts.use_disk && !bench_stop) {
		failed += run_fs(&c, &disk, "disk", c.fsopts.disk_dir);
		if (disk.measured)
			done[n++] = &disk;
	}
	report_table(c.json ? stderr : stdout, &c, done, n);
	if (c.json && report_json(stdout, &c, done, n))
		failed++;
	return bench_exit(failed, "run(s)");
}
