// SPDX-License-Identifier: MIT
/* The sender's source walker: SOURCE arguments -> ordered entries. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/limits.h"
#include "rdmapush/trace.h"
#include "rdmapush/walk.h"

struct rp_walk {
	bool quiet;		/* rp_walk_total: the real walk reports */
	/* rp_walk_check: a tree's top only, its entries named, not stat'ed */
	bool names_only;
	char *const *sources;	/* borrowed */
	int n;
	int next;		/* index of the next source to start */
	bool recursive;
	const char *as_name;
	/* The tree being walked, if any. */
	FTS *fts;
	char *root;		/* the source, trimmed or resolved */
	size_t root_len;
	/* The tree's top directory, held from before its walk: its files
	 * are opened from here down (rp_walk_src_open), not by path. */
	int root_fd;
	/* The directory of the file opened last, below the top: the next
	 * file in it opens from there (a tree of small files is many files
	 * to a directory). Never dirty: leaving it only closes it. */
	struct rp_dir_here dir;
	FTSENT *cur;		/* the entry rp_walk_next gave last */
	const char *top;	/* its name on the receiver */
	char *real;		/* realpath of the source, when needed */
	char *dir_src;		/* a directory's src (see dir_entry) */
	char path[RP_PATH_MAX + 1];
};

const char *rp_walk_kind_name(enum rp_walk_kind k)
{
	static const char *const names[RP_WALK_KIND_MAX] = {
		[RP_WALK_FILE] = "file",   [RP_WALK_DIR] = "dir",
		[RP_WALK_STDIN] = "stdin", [RP_WALK_SKIP] = "skip",
		[RP_WALK_ERROR] = "error",
	};

	if ((unsigned)k >= RP_WALK_KIND_MAX)
		return "?";
	return names[k];
}

static int check_sources(char *const *sources, int n, const char *as_name)
{
	const char *why;
	int dashes = 0;
	int i;

	if (n < 1) {
		RP_ERR("no source to send");
		return RP_EUSAGE;
	}
	for (i = 0; i < n; i++)
		dashes += !strcmp(sources[i], "-");
	if (dashes > 1) {
		RP_ERR("\"-\" (standard input) given %d times", dashes);
		return RP_EUSAGE;
	}
	if (as_name && n > 1) {
		RP_ERR("--as renames one source, not %d", n);
		return RP_EUSAGE;
	}
	if (dashes && !as_name) {
		RP_ERR("\"-\" (standard input) needs --as NAME");
		return RP_EUSAGE;
	}
	if (as_name && rp_fileio_check_name(as_name, strlen(as_name), &why)) {
		RP_ERR("--as \"%s\": %s", as_name, why);
		return RP_EUSAGE;
	}
	return 0;
}

int rp_walk_open(struct rp_walk **wp, char *const *sources, int n,
		 bool recursive, const char *as_name)
{
	struct rp_walk *w;
	int rc;

	*wp = NULL;
	rc = check_sources(sources, n, as_name);
	if (rc)
		return rc;
	w = calloc(1, sizeof(*w));
	if (!w) {
		RP_ERR("calloc(walk): %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	w->sources = sources;
	w->n = n;
	w->recursive = recursive;
	w->as_name = as_name;
	w->root_fd = -1;
	w->dir.fd = -1;
	*wp = w;
	return 0;
}

/* Forget the current source: its tree, its root and realpath. */
static void end_source(struct rp_walk *w)
{
	rp_fileio_here_leave(&w->dir);
	if (w->fts && fts_close(w->fts)) {
		int e = errno;

		RP_ERR("fts_close(%s): %s", w->root, strerror(e));
	}
	w->fts = NULL;
	w->cur = NULL;
	if (w->root_fd >= 0)
		close(w->root_fd);
	w->root_fd = -1;
	free(w->root);
	w->root = NULL;
	free(w->real);
	w->real = NULL;
}

void rp_walk_close(struct rp_walk *w)
{
	if (!w)
		return;
	end_source(w);
	free(w->dir_src);
	free(w);
}

/* Report an entry that cannot be sent; returns 1 (an entry). */
static int error_entry(const struct rp_walk *w, struct rp_walk_entry *e,
		       const char *src, int err,
		       const char *why)
{
	if (!w->quiet)
		RP_ERR("cannot send %s: %s", src, why);
	e->kind = RP_WALK_ERROR;
	e->src = src;
	e->err = err;
	e->why = why;
	return 1;
}

/* An error entry for a failed system call with errno err (> 0). */
static int errno_entry(const struct rp_walk *w, struct rp_walk_entry *e,
		       const char *src, int err)
{
	return error_entry(w, e, src, -err, strerror(err));
}

static int nomem(const char *what)
{
	RP_ERR("%s: %s", what, strerror(ENOMEM));
	return -ENOMEM;
}

/* What a non-regular, non-directory entry is, for a SKIP's why. */
static const char *skip_why(mode_t m)
{
	if (S_ISLNK(m))
		return "symbolic link";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "device";
	return "not a regular file";
}

/* Kind, mode, size and mtime of e from st. */
static void fill_stat(struct rp_walk_entry *e, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		e->kind = RP_WALK_FILE;
	else if (S_ISDIR(st->st_mode))
		e->kind = RP_WALK_DIR;
	else
		e->kind = RP_WALK_SKIP;
	if (e->kind == RP_WALK_SKIP)
		e->why = skip_why(st->st_mode);
	e->mode = st->st_mode & 07777;
	e->size = e->kind == RP_WALK_FILE ? (uint64_t)st->st_size : 0;
	e->mtime_sec = st->st_mtim.tv_sec;
	e->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
}

/* e->path = top + rel (rel is "" or starts with '/'); false if too long. */
static bool set_path(struct rp_walk *w, struct rp_walk_entry *e,
		     const char *rel)
{
	int len = snprintf(w->path, sizeof(w->path), "%s%s", w->top, rel);

	if (len < 0 || (size_t)len >= sizeof(w->path))
		return false;
	e->path = w->path;
	return true;
}

static int stdin_entry(struct rp_walk *w, struct rp_walk_entry *e)
{
	struct timespec now;

	/* The data is being made now: that is its time. */
	clock_gettime(CLOCK_REALTIME, &now);
	e->kind = RP_WALK_STDIN;
	e->src = "-";
	e->path = w->as_name;
	e->mode = 0666;
	e->mtime_sec = now.tv_sec;
	e->mtime_nsec = (uint32_t)now.tv_nsec;
	return 1;
}

/*
 * Set w->root (what to stat and walk: src without its trailing slashes,
 * or the realpath of a symlink to a non-directory, so that the session
 * can open it with O_NOFOLLOW) and w->top (its name on the receiver:
 * --as, else the last component; for ".", ".." and the like, that of its
 * realpath). 0, 1 with an ERROR entry, or -ENOMEM.
 */
static int name_source(struct rp_walk *w, struct rp_walk_entry *e,
		       const char *src, bool dir)
{
	size_t len = strlen(src);
	struct stat lst;
	bool link;
	bool dots;

	while (len > 1 && src[len - 1] == '/')
		len--;
	w->root = strndup(src, len);
	if (!w->root)
		return nomem("strndup");
	w->top = rp_fileio_basename(w->root);
	dots = !strcmp(w->top, ".") || !strcmp(w->top, "..");
	link = !dir && !lstat(w->root, &lst) && S_ISLNK(lst.st_mode);
	if (dots || link) {
		w->real = realpath(w->root, NULL);
		if (!w->real && errno == ENOMEM)
			return nomem("realpath");
		if (!w->real)
			return errno_entry(w, e, src, errno);
	}
	if (dots)
		w->top = rp_fileio_basename(w->real);
	if (link) {
		/* Walk the target; keep the link's name (w->top) alive. */
		char *name = w->root;

		w->root = w->real;
		w->real = name;
	}
	if (!*w->top)
		return error_entry(w, e, src, RP_EBADNAME,
				   "cannot send the root directory");
	if (w->as_name)
		w->top = w->as_name;
	return 0;
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/* Walk w->root: 0 (fts_read gives its top next), 1 with an ERROR entry
 * for src, or -ENOMEM. */
static int open_tree(struct rp_walk *w, struct rp_walk_entry *e,
		     const char *src)
{
	char *argv[2] = { w->root, NULL };
	int err;

	/*
	 * The top as fts is about to see it (a link given as the source is
	 * followed, as COMFOLLOW does). O_PATH: reading it is fts's to try
	 * and report; this only anchors the opens below it.
	 */
	w->root_fd = open(w->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->root_fd < 0) {
		err = errno;
		if (err == ENOMEM)
			return nomem("open");
		return errno_entry(w, e, src, err);
	}
	/* Physical: no link inside is followed; COMFOLLOW: the root is. */
	w->fts = fts_open(argv, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR,
			  by_name);
	if (w->fts) {
		w->root_len = strlen(w->root);
		return 0;
	}
	err = errno;
	if (err == ENOMEM)
		return nomem("fts_open");
	return errno_entry(w, e, src, err);
}

/*
 * Start the source src: 1 with its entry (stdin, a file, a special
 * file, an error), 0 with its tree open, or -ENOMEM.
 */
static int start_source(struct rp_walk *w, struct rp_walk_entry *e,
			const char *src)
{
	struct stat st;
	int rc;

	if (!strcmp(src, "-"))
		return stdin_entry(w, e);
	/* stat: a symlink given on the command line is followed. */
	if (stat(src, &st))
		return errno_entry(w, e, src, errno);
	if (S_ISDIR(st.st_mode) && !w->recursive)
		return error_entry(w, e, src, -EISDIR, "directory (use -r)");
	rc = name_source(w, e, src, S_ISDIR(st.st_mode));
	if (rc)
		return rc;
	if (S_ISDIR(st.st_mode))
		return open_tree(w, e, src);
	if (!set_path(w, e, ""))
		return error_entry(w, e, src, RP_EBADNAME, "path too long");
	/* Unreadable is found here, for the message to name the source. */
	if (S_ISREG(st.st_mode) &&
	    faccessat(AT_FDCWD, w->root, R_OK, AT_EACCESS))
		return errno_entry(w, e, src, errno);
	fill_stat(e, &st);
	e->src = w->root;
	return 1;
}

/* A directory in the tree, p->fts_info FTS_D: 1 with its entry or an
 * ERROR, or -ENOMEM. */
static int dir_entry(struct rp_walk *w, struct rp_walk_entry *e, FTSENT *p)
{
	char *src = realloc(w->dir_src, p->fts_pathlen + 1);
	int err;

	/* fts_children appends a '/' to the path fts_read gave us. */
	if (!src)
		return nomem("realloc");
	memcpy(src, p->fts_path, p->fts_pathlen);
	src[p->fts_pathlen] = '\0';
	w->dir_src = src;
	e->src = src;
	/* Below the top as for a FILE; the top's is "". */
	e->rel = src + w->root_len + (p->fts_level > 0);
	/*
	 * Read its names now (fts_read keeps them for the walk), so that an
	 * unreadable directory is one ERROR rather than a DIR, then an ERROR
	 * after it. fts_children sets errno to 0 for an empty directory.
	 * A check looks no further than the top: no need to stat what is
	 * in it (an lstat(2) per file, the walk's dearest part).
	 */
	if (fts_children(w->fts, w->names_only ? FTS_NAMEONLY : 0) ||
	    !errno) {
		fill_stat(e, p->fts_statp);
		return 1;
	}
	err = errno;
	fts_set(w->fts, p, FTS_SKIP);
	if (err == ENOMEM)
		return nomem("fts_children");
	return errno_entry(w, e, src, err);
}

/* One fts entry (not FTS_DP) as e: 1, or -ENOMEM. */
static int tree_entry(struct rp_walk *w, struct rp_walk_entry *e, FTSENT *p)
{
	e->src = p->fts_path;
	w->cur = p;
	if (!set_path(w, e, p->fts_path + w->root_len)) {
		/* Then so is everything inside: one error for them all. */
		if (p->fts_info == FTS_D)
			fts_set(w->fts, p, FTS_SKIP);
		return error_entry(w, e, p->fts_path, RP_EBADNAME,
				   "path too long");
	}
	switch (p->fts_info) {
	case FTS_D:
		return dir_entry(w, e, p);
	case FTS_DC:
		return error_entry(w, e, p->fts_path, -ELOOP, "directory cycle");
	case FTS_DNR:
	case FTS_NS:
	case FTS_ERR:
		return errno_entry(w, e, p->fts_path,
				   p->fts_errno ? p->fts_errno : EIO);
	default:	/* FTS_F, FTS_SL, FTS_SLNONE, FTS_DEFAULT */
		fill_stat(e, p->fts_statp);
		/* Below the top: fts_path is root + '/' + rel. */
		if (e->kind == RP_WALK_FILE)
			e->rel = p->fts_path + w->root_len + 1;
		return 1;
	}
}

/*
 * The next entry of the open tree: 1, 0 when it is done (then closed),
 * or -ENOMEM. A failure of the walk itself ends this source with an
 * ERROR entry.
 */
static int tree_next(struct rp_walk *w, struct rp_walk_entry *e)
{
	const char *src = w->sources[w->next - 1];
	FTSENT *p;
	int err;

	do {
		errno = 0;
		p = fts_read(w->fts);
	} while (p && p->fts_info == FTS_DP);
	if (p)
		return tree_entry(w, e, p);
	err = errno;
	end_source(w);
	if (!err)
		return 0;
	if (err == ENOMEM)
		return nomem("fts_read");
	return errno_entry(w, e, src, err);
}

int rp_walk_next(struct rp_walk *w, struct rp_walk_entry *e)
{
	int rc;

	memset(e, 0, sizeof(*e));
	for (;;) {
		if (w->fts) {
			rc = tree_next(w, e);
			if (rc)
				return rc;
			continue;
		}
		end_source(w);
		if (w->next >= w->n)
			return 0;
		rc = start_source(w, e, w->sources[w->next++]);
		if (rc)
			return rc;
	}
}

int rp_walk_src_open(struct rp_walk *w, const struct rp_walk_entry *e,
		     struct rp_src *s)
{
	const char *leaf;
	int fd;
	int rc;

	if (!e->rel)
		return rp_fileio_src_open(s, e->src);
	if (!strchr(e->rel, '/'))	/* in the top, held already */
		return rp_fileio_src_open_at(s, w->root_fd, e->rel, e->src);
	/* Its directory, as the receiver keeps the one entries arrive in. */
	rc = rp_fileio_here_go_to(&w->dir, w->root_fd, e->rel, &fd, &leaf);
	if (rc) {
		*s = (struct rp_src){ .fd = -1 };
		return rc;
	}
	return rp_fileio_src_open_at(s, fd, leaf, e->src);
}

int rp_walk_dir_recheck(struct rp_walk *w, struct rp_walk_entry *e)
{
	const char *leaf;
	struct stat st;
	int pfd;
	int rc;

	if (!e->rel)		/* not in a tree: nothing below to recheck */
		return 0;
	if (!*e->rel) {
		/* The top: the directory held, whatever its name is now. */
		if (fstat(w->root_fd, &st) == 0)
			goto done;
		rc = -errno;
		RP_ERR("fstat(%s): %s", e->src, strerror(-rc));
		goto skip;
	}
	rc = rp_fileio_open_parent(w->root_fd, e->rel, &pfd, &leaf);
	if (rc)
		goto skip;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
		RP_ERR("fstatat(%s): %s", e->src, strerror(-rc));
	} else if (!S_ISDIR(st.st_mode)) {
		rc = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
		RP_ERR("%s: no longer a directory (%s); not following it",
		       e->src, S_ISLNK(st.st_mode) ? "a symbolic link" :
		       "something else");
	}
	close(pfd);
	if (rc)
		goto skip;
done:
	e->mode = st.st_mode & 07777;
	e->mtime_sec = st.st_mtim.tv_sec;
	e->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	return 0;
skip:
	/* Whatever fts would list in it now is not the tree's. */
	fts_set(w->fts, w->cur, FTS_SKIP);
	return rc;
}

/*
 * The first entry of the next source: its own (a file, standard input, a
 * special file, an ERROR), or for a tree its top directory's. 1, 0 when
 * no source is left, or -ENOMEM. Nothing inside a tree is looked at.
 */
static int top_entry(struct rp_walk *w, struct rp_walk_entry *e)
{
	int rc;

	memset(e, 0, sizeof(*e));
	do {
		end_source(w);
		if (w->next >= w->n)
			return 0;
		rc = start_source(w, e, w->sources[w->next++]);
		if (rc == 0)
			rc = tree_next(w, e);
	} while (rc == 0);
	return rc;
}

static bool sendable(enum rp_walk_kind k)
{
	return k == RP_WALK_FILE || k == RP_WALK_DIR || k == RP_WALK_STDIN;
}

int rp_walk_check(char *const *sources, int n, bool recursive,
		  const char *as_name)
{
	struct rp_walk_entry e;
	struct rp_walk *w;
	int rc = rp_walk_open(&w, sources, n, recursive, as_name);

	if (rc)
		return rc;
	/* Quietly: when one source can go, the real walk reports the rest. */
	w->quiet = true;
	w->names_only = true;
	while ((rc = top_entry(w, &e)) > 0 && !sendable(e.kind))
		;
	if (rc == 0) {
		/* None can: each one's cause, as the real walk says it. */
		w->quiet = false;
		w->next = 0;
		while ((rc = top_entry(w, &e)) > 0)
			if (e.kind == RP_WALK_SKIP)
				error_entry(w, &e, w->sources[w->next - 1],
					    RP_ENOTREG, e.why);
		if (rc == 0)
			rc = RP_EUSAGE;
	} else if (rc > 0) {
		rc = 0;
	}
	rp_walk_close(w);
	return rc;
}

/*
 * How deep rp_walk_total() counts: each level holds its directory open.
 * A tree deeper than this (a path of 4,095 bytes can be 2,048 levels)
 * is counted short: the sizes are for the progress and the ring's
 * shape, never for what is sent.
 */
#define COUNT_DEPTH_MAX	256u

/* One more file of size bytes; a total already unknown (a stream's)
 * stays so, a known one stops short of it. */
static void count_add(uint64_t *total, uint64_t *files, uint64_t size)
{
	(*files)++;
	if (*total != UINT64_MAX)
		*total = size > UINT64_MAX - 1 - *total ? UINT64_MAX - 1
							 : *total + size;
}

/*
 * The regular files in directory fd (closed here) and below, counted.
 * Names are looked up in the directory held, one component each, and
 * only the entries that may be regular files or directories are
 * stat'ed (the type readdir gives, when it gives one): the sender's
 * first look at a tree of small files, before anything can overlap it.
 * Links are not followed. Quiet: what cannot be read is the real
 * walk's to report.
 */
static void count_tree(int fd, unsigned depth, uint64_t *total,
		       uint64_t *files)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		unsigned char t = de->d_type;
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (t != DT_REG && t != DT_DIR && t != DT_UNKNOWN)
			continue;
		if (t != DT_DIR) {
			if (fstatat(dirfd(d), de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW))
				continue;
			if (S_ISREG(st.st_mode))
				count_add(total, files, (uint64_t)st.st_size);
			if (!S_ISDIR(st.st_mode))
				continue;
		}
		if (depth >= COUNT_DEPTH_MAX)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			count_tree(sub, depth + 1, total, files);
	}
	closedir(d);
}

/* One source, as rp_walk_next() starts it: a link given is followed. */
static void count_source(const char *src, bool recursive, uint64_t *total,
			 uint64_t *files)
{
	struct stat st;
	int fd;

	if (!strcmp(src, "-")) {
		*total = UINT64_MAX;
		count_add(total, files, 0);
		return;
	}
	if (stat(src, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		count_add(total, files, (uint64_t)st.st_size);
	} else if (S_ISDIR(st.st_mode) && recursive) {
		fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			count_tree(fd, 0, total, files);
	}
}

int rp_walk_total(char *const *sources, int n, bool recursive,
		  const char *as_name, uint64_t *total, uint64_t *files)
{
	int rc = check_sources(sources, n, as_name);

	*total = 0;
	*files = 0;
	if (rc)
		return rc;
	for (int i = 0; i < n; i++)
		count_source(sources[i], recursive, total, files);
	return 0;
}
