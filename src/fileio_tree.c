// SPDX-License-Identifier: MIT
/* The receiver's tree: relative paths and their rules, directories opened
 * and created under DIR one level at a time without following a symlink,
 * their times, and the deferred fsync of a directory. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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
#include "fileio_int.h"

/* A directory we may step into: never a symlink, never a non-directory. */
#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Which rule the component c (n bytes) breaks, or NULL. */
static const char *component_problem(const char *c, size_t n)
{
	const char *why = NULL;

	if (n == 0)
		return "empty path component";
	/* Said as a path's rule: "." and ".." are where a walk escapes. */
	if (n == 1 && c[0] == '.')
		return "\".\" component";
	if (n == 2 && c[0] == '.' && c[1] == '.')
		return "\"..\" component";
	if (rp_fileio_check_name(c, n, &why))
		return why;
	return NULL;
}

static const char *path_problem(const char *path, size_t len)
{
	size_t start = 0;

	if (len == 0)
		return "empty path";
	if (len > RP_PATH_MAX)
		return "longer than 4095 bytes";
	if (path[0] == '/')
		return "absolute path";
	while (start <= len) {
		const char *slash = memchr(path + start, '/', len - start);
		size_t end = slash ? (size_t)(slash - path) : len;
		const char *why = component_problem(path + start, end - start);

		if (why)
			return why;
		start = end + 1;
	}
	return NULL;
}

int rp_fileio_check_path(const char *path, size_t len, const char **why)
{
	const char *problem = path_problem(path, len);

	if (!problem)
		return 0;
	if (why)
		*why = problem;
	return RP_EBADNAME;
}

/* Check path (NUL-terminated): 0 or RP_EBADNAME, reported. */
static int checked(const char *path)
{
	char shown[RP_PEER_TEXT_MAX];
	/* Stop one past the limit: enough to refuse, never unbounded. */
	size_t len = strnlen(path, RP_PATH_MAX + 1);
	const char *why = NULL;
	int rc = rp_fileio_check_path(path, len, &why);

	/* Escaped only to be said: this runs for every file of a tree. */
	if (rc)
		RP_ERR("refusing path \"%s\": %s",
		       rp_fileio_show(shown, path, len), why);
	return rc;
}

/*
 * Say why opening name in at, path's first n bytes, as a directory
 * failed with e. Linux says ENOTDIR or ELOOP for a symlink there: it is
 * -ELOOP, and said so, whatever it pointed at.
 */
static int open_failed(int at, const char *name, const char *path, size_t n,
		       int e)
{
	char shown[RP_PEER_TEXT_MAX], whole[RP_PEER_TEXT_MAX];
	struct stat st;

	rp_fileio_show(shown, path, n);
	rp_fileio_show(whole, path, strlen(path));
	if ((e == ENOTDIR || e == ELOOP) &&
	    fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		RP_ERR("%s: openat(%s, O_NOFOLLOW|O_DIRECTORY): a symbolic "
		       "link; not following it", whole, shown);
		return -ELOOP;
	}
	RP_ERR("%s: openat(%s, O_NOFOLLOW|O_DIRECTORY): %s", whole, shown,
	       strerror(e));
	return -e;
}

/* rp_fileio_open_parent from path's first from bytes (whole components,
 * already open as dirfd); messages name the whole path. borrow: a leaf
 * right in dirfd gets dirfd itself, not a duplicate. */
static int parent_from(int dirfd, const char *path, size_t from,
		       int *parentfd, const char **leaf, bool borrow)
{
	char shown[RP_PEER_TEXT_MAX];
	char comp[RP_NAME_MAX + 1];
	const char *c = path + from;
	const char *slash;
	int fd = dirfd;
	int rc;

	*parentfd = -1;
	rc = checked(path);
	if (rc)
		return rc;
	/* Checked: each component is 1..RP_NAME_MAX bytes. */
	while ((slash = strchr(c, '/'))) {
		int next;

		memcpy(comp, c, (size_t)(slash - c));
		comp[slash - c] = '\0';
		next = openat(fd, comp, DIR_FLAGS);
		if (next < 0)
			rc = open_failed(fd, comp, path, (size_t)(slash - path),
					 errno);
		if (fd != dirfd)
			close(fd);
		if (rc)
			return rc;
		fd = next;
		c = slash + 1;
	}
	if (fd == dirfd && !borrow) {
		/* The caller closes what it gets: never its own dirfd. */
		fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			RP_ERR("fcntl(directory of %s, F_DUPFD): %s",
			       rp_fileio_show(shown, path, strlen(path)),
			       strerror(-rc));
			return rc;
		}
	}
	*parentfd = fd;
	*leaf = c;
	return 0;
}

static int open_parent_from(int dirfd, const char *path, size_t from,
			    int *parentfd, const char **leaf)
{
	return parent_from(dirfd, path, from, parentfd, leaf, false);
}

int rp_fileio_open_parent(int dirfd, const char *path, int *parentfd,
			  const char **leaf)
{
	return open_parent_from(dirfd, path, 0, parentfd, leaf);
}

int rp_fileio_parent_of(int dirfd, const char *path, int *parentfd,
			const char **leaf)
{
	/* A file per call for a tree of small files: a dup(2) and a
	 * close(2) fewer each. */
	return parent_from(dirfd, path, 0, parentfd, leaf, true);
}

/* leaf in pfd exists: fine if a real directory, else refused (reported). */
static int check_existing_dir(int pfd, const char *leaf, const char *shown)
{
	struct stat st;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;

		RP_ERR("fstatat(%s): %s", shown, strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		RP_ERR("%s: exists and is a symbolic link; not following it",
		       shown);
		return -ELOOP;
	}
	/* Refused as a name is (no --force can help): not "file exists". */
	RP_ERR("%s: %s is in the way; it is never replaced by a directory, "
	       "even with --force", shown, rp_fileio_kind(st.st_mode));
	return RP_EBADNAME;
}

/* The new directory's mode exactly as asked: mkdir's was cut by umask. */
static int chmod_new_dir(int pfd, const char *leaf, uint32_t mode,
			 const char *shown)
{
	int fd = openat(pfd, leaf, DIR_FLAGS);
	int rc = 0;

	if (fd < 0 || fchmod(fd, (mode_t)(mode & 07777)) < 0) {
		rc = -errno;
		RP_ERR("%s(%s, %04o): %s", fd < 0 ? "openat" : "fchmod", shown,
		       (unsigned int)(mode & 07777), strerror(-rc));
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Whether fds a and b are the same directory. */
static bool same_dir(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

/*
 * pfd's new entry must reach the disk: now, or handed to the caller in
 * *dirty. A different directory already held there is synced first, so a
 * run of mkdirs in one parent costs one fsync. Takes pfd in every case.
 */
static int parent_dirty(int pfd, int *dirty, const char *shown)
{
	char parent[RP_PEER_TEXT_MAX + 16];
	int rc = 0;

	if (!dirty) {
		snprintf(parent, sizeof(parent), "holding %s", shown);
		rc = rp_fileio_dir_sync(pfd, parent);
		close(pfd);
		return rc;
	}
	if (*dirty >= 0 && same_dir(*dirty, pfd)) {
		close(pfd);
		return 0;
	}
	if (*dirty >= 0) {
		rc = rp_fileio_dir_sync(*dirty, "holding earlier new directories");
		close(*dirty);
	}
	*dirty = pfd;
	return rc;
}

int rp_fileio_mkdir_at(int pfd, const char *leaf, const char *path,
		       uint32_t mode, bool exact, bool *created)
{
	char shown[RP_PEER_TEXT_MAX];
	int rc = 0;

	*created = false;
	rp_fileio_show(shown, path, strlen(path));
	if (mkdirat(pfd, leaf, (mode_t)(mode & 07777)) < 0) {
		rc = -errno;
		if (rc == -EEXIST)
			return check_existing_dir(pfd, leaf, shown);
		RP_ERR("mkdirat(%s): %s", shown, strerror(-rc));
		return rc;
	}
	*created = true;
	if (exact)
		rc = chmod_new_dir(pfd, leaf, mode, shown);
	if (!rc)
		RP_EV("file", "file.mkdir", "created directory {path}",
		      EV_S("path", shown));
	return rc;
}

int rp_fileio_mkdir(int dirfd, const char *path, uint32_t mode, bool exact,
		    bool *created, int *dirty_parent)
{
	char shown[RP_PEER_TEXT_MAX];
	const char *leaf;
	int pfd;
	int rc;

	*created = false;
	rc = rp_fileio_open_parent(dirfd, path, &pfd, &leaf);
	if (!rc)
		rc = rp_fileio_mkdir_at(pfd, leaf, path, mode, exact, created);
	if (rc || !*created) {
		if (pfd >= 0)
			close(pfd);
		return rc;
	}
	rp_fileio_show(shown, path, strlen(path));
	return parent_dirty(pfd, dirty_parent, shown);
}

int rp_fileio_dir_times(int dirfd, const char *path, int64_t sec,
			uint32_t nsec)
{
	struct timespec ts[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = (time_t)sec, .tv_nsec = (long)nsec },
	};
	char shown[RP_PEER_TEXT_MAX];
	const char *leaf;
	int pfd, fd;
	int rc;

	rc = rp_fileio_open_parent(dirfd, path, &pfd, &leaf);
	if (rc)
		return rc;
	fd = openat(pfd, leaf, DIR_FLAGS);
	if (fd < 0)
		rc = open_failed(pfd, leaf, path, strlen(path), errno);
	close(pfd);
	if (rc)
		return rc;
	if (futimens(fd, ts) < 0) {
		rc = -errno;
		RP_ERR("futimens(%s): %s",
		       rp_fileio_show(shown, path, strlen(path)),
		       strerror(-rc));
	}
	close(fd);
	return rc;
}

int rp_fileio_dir_sync(int fd, const char *shown)
{
	if (fsync(fd) < 0) {
		int e = errno;

		RP_ERR("fsync(directory %s): %s", shown, strerror(e));
		return -e;
	}
	return 0;
}

/* ---- the directory entries arrive in ---- */

/* The directory holding path: path up to its last '/', "" for DIR. */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

bool rp_fileio_here_is(const struct rp_dir_here *h, const char *path)
{
	size_t n = parent_len(path);

	return h->fd >= 0 && strlen(h->path) == n &&
	       !strncmp(h->path, path, n);
}

/* Where path goes on below the directory we are in: the length of its
 * "here/" prefix, or 0 when it is not below it. */
static size_t below_here(const struct rp_dir_here *h, const char *path)
{
	size_t n;

	if (h->fd < 0)
		return 0;
	n = strlen(h->path);
	if (!n || strncmp(h->path, path, n) || path[n] != '/')
		return 0;
	return n + 1;
}

/*
 * Leave the directory we are in: if it got new entries, fsync it first.
 * A failure is kept for the session's end: the entries it concerns are
 * already answered, and the ACK must not say they are safe.
 */
void rp_fileio_here_leave(struct rp_dir_here *h)
{
	int rc = 0;

	if (h->fd >= 0 && h->dirty)
		rc = rp_fileio_dir_sync(h->fd, h->path);
	if (rc && !h->sync_err)
		h->sync_err = rc;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->dirty = false;
	free(h->path);
	h->path = NULL;
}

void rp_fileio_here_move(struct rp_dir_here *h, struct rp_dir_here *to)
{
	*to = (struct rp_dir_here){ .fd = h->fd, .path = h->path,
				    .dirty = true };
	h->fd = -1;
	h->path = NULL;
	h->dirty = false;
}

/* Be in fd, path's directory (owned from here on); dirty: it has a new
 * entry. */
int rp_fileio_here_settle(struct rp_dir_here *h, int fd, const char *path,
			  bool dirty)
{
	if (rp_fileio_here_is(h, path)) {
		close(fd);
		h->dirty |= dirty;
		return 0;
	}
	rp_fileio_here_leave(h);
	h->path = strndup(path, parent_len(path));
	if (!h->path) {
		close(fd);
		return -ENOMEM;
	}
	h->fd = fd;
	h->dirty = dirty;
	return 0;
}

/*
 * The directory holding path, into *fd (borrowed), and its last
 * component. Entries come directory by directory: it is opened (one
 * level at a time) once for all of them, and fsynced once when we leave.
 */
int rp_fileio_here_go_to(struct rp_dir_here *h, int dirfd, const char *path,
			 int *fd, const char **leaf)
{
	size_t n = parent_len(path);
	int rc = 0;

	if (!rp_fileio_here_is(h, path)) {
		size_t below = below_here(h, path);
		int nfd;

		/* Going down from here costs one open per level, not a walk
		 * from the top for each new directory. */
		rc = open_parent_from(below ? h->fd : dirfd, path, below, &nfd,
				      leaf);
		if (!rc)
			rc = rp_fileio_here_settle(h, nfd, path, false);
	}
	*leaf = path + (n ? n + 1 : 0);
	*fd = h->fd;
	return rc;
}

/* FNV-1a: the slot a path starts looking from. */
static size_t path_hash(const char *path)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 0x100000001b3u;
	return (size_t)h;
}

/* The slot that holds path, or the free one where it would go. */
static size_t *times_slot(const struct rp_dir_times *t, const char *path)
{
	size_t mask = t->nslot - 1, i = path_hash(path) & mask;

	while (t->slot[i] && strcmp(t->v[t->slot[i] - 1].path, path))
		i = (i + 1) & mask;
	return &t->slot[i];
}

/* Room for one more path: the array and the hash (kept under half
 * full). 0 or -ENOMEM. */
static int times_grow(struct rp_dir_times *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct rp_dir_time *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (2 * (t->n + 1) > t->nslot) {
		size_t nslot = t->nslot ? 2 * t->nslot : 64;
		size_t *old = t->slot;

		t->slot = calloc(nslot, sizeof(*t->slot));
		if (!t->slot) {
			t->slot = old;
			return -ENOMEM;
		}
		t->nslot = nslot;
		free(old);
		for (size_t k = 0; k < t->n; k++)
			*times_slot(t, t->v[k].path) = k + 1;
	}
	return 0;
}

/* path's entry, added if new: 0 with *e NULL past RP_DIR_TIMES_MAX,
 * or -ENOMEM (reported). */
static int dir_entry(struct rp_dir_times *t, const char *path,
		     struct rp_dir_time **e)
{
	size_t *slot = t->nslot ? times_slot(t, path) : NULL;
	char *copy = NULL;

	*e = NULL;
	/* Sent again: the last word counts, its place (before everything
	 * inside it) stays. */
	if (slot && *slot) {
		*e = &t->v[*slot - 1];
		return 0;
	}
	if (t->n >= RP_DIR_TIMES_MAX)
		return 0;
	if (!times_grow(t))
		copy = strdup(path);
	if (!copy) {
		RP_ERR("remembering a directory: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	t->v[t->n++] = (struct rp_dir_time){ .path = copy };
	*times_slot(t, path) = t->n;
	*e = &t->v[t->n - 1];
	return 0;
}

int rp_fileio_times_add(struct rp_dir_times *t, const char *path,
			int64_t sec, uint32_t nsec)
{
	struct rp_dir_time *e;
	int rc = dir_entry(t, path, &e);

	if (!rc && e) {
		e->sec = sec;
		e->nsec = nsec;
		e->timed = true;
	} else if (!rc && !t->full) {
		RP_INFO("more than %d directories: the times of the rest are "
			"not kept", RP_DIR_TIMES_MAX);
		t->full = true;
	}
	return rc;
}

int rp_fileio_made_add(struct rp_dir_times *t, const char *path)
{
	struct rp_dir_time *e;
	int rc = dir_entry(t, path, &e);

	if (e)
		e->made = true;
	return rc;
}

bool rp_fileio_made(const struct rp_dir_times *t, const char *path)
{
	size_t *slot = t->nslot && path ? times_slot(t, path) : NULL;

	return slot && *slot && t->v[*slot - 1].made;
}

int rp_fileio_times_apply(const struct rp_dir_times *t, int dirfd)
{
	int rc = 0;

	for (size_t i = t->n; !rc && i-- > 0;)
		if (t->v[i].timed)
			rc = rp_fileio_dir_times(dirfd, t->v[i].path,
						 t->v[i].sec, t->v[i].nsec);
	return rc;
}

void rp_fileio_times_free(struct rp_dir_times *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	free(t->slot);
	*t = (struct rp_dir_times){ 0 };
}
