// SPDX-License-Identifier: MIT
/* Files: names and their rules, the sender's source, the receiver's
 * directory and hidden temporary names (fileio_dst.c: the destination). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "fileio_int.h"

/* Hidden temporary names: ".<name>.rdmapush-XXXXXX". */
#define TMP_SUFFIX	".rdmapush-"
#define TMP_RAND	6
/* How much of <name> fits so the whole temp name stays <= RP_NAME_MAX. */
#define TMP_NAME_KEEP	(RP_NAME_MAX - 1 - (sizeof(TMP_SUFFIX) - 1) - TMP_RAND)
#define TMP_TAIL	(sizeof(TMP_SUFFIX) - 1 + TMP_RAND)

/* name (not NUL-terminated) escaped for a message, into a local buffer. */
const char *rp_fileio_show(char *out, const char *name, size_t len)
{
	return rp_fmt_peer(out, RP_PEER_TEXT_MAX, name, len);
}

/* What the random part of a temp name is made of. */
static const char tmp_chars[] = "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* ".<anything>.rdmapush-" and TMP_RAND letters or digits: ours. */
bool rp_fileio_is_tmp_name(const char *name, size_t len)
{
	size_t i;

	if (len < 1 + TMP_TAIL || name[0] != '.' ||
	    memcmp(name + len - TMP_TAIL, TMP_SUFFIX, sizeof(TMP_SUFFIX) - 1))
		return false;
	for (i = len - TMP_RAND; i < len; i++)
		if (!name[i] || !strchr(tmp_chars, name[i]))
			return false;
	return true;
}

/* Which rule name breaks, or NULL when it is a plain file name. */
static const char *name_problem(const char *name, size_t len)
{
	size_t i;

	if (len == 0)
		return "empty name";
	if (len > RP_NAME_MAX)
		return "longer than 255 bytes";
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return "'.' and '..' are not file names";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '/')
			return "contains '/'";
		if (c == '\0')
			return "contains a NUL byte";
		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
	}
	/*
	 * Another transfer's temporary file may have that name: a sender
	 * must not be able to replace it (with --force) or block it.
	 */
	if (rp_fileio_is_tmp_name(name, len))
		return "reserved: the pattern of rdmapush's hidden temporary "
		       "files (.NAME.rdmapush-XXXXXX)";
	if (rp_partial_is_name(name, len))
		return "reserved: the pattern of rdmapush's kept partial "
		       "files (.NAME" RP_PARTIAL_SUFFIX ", .NAME"
		       RP_JOURNAL_SUFFIX ")";
	return NULL;
}

int rp_fileio_check_name(const char *name, size_t len, const char **why)
{
	const char *problem = name_problem(name, len);

	if (!problem)
		return 0;
	if (why)
		*why = problem;
	return RP_EBADNAME;
}

const char *rp_fileio_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

const char *rp_fileio_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/*
 * Open name in at (AT_FDCWD: a path) for reading into s; path names it
 * in messages and traces. O_NONBLOCK: opening a FIFO for reading would
 * otherwise wait for a writer before fstat() gets a chance to refuse it.
 * O_NOFOLLOW: the walk saw a regular file here (a link named on the
 * command line comes resolved); a link put in its place since is not
 * followed. What is sent is what fstat() says of the file opened, not
 * what the walk saw: it may have changed since.
 */
static int src_open(struct rp_src *s, int at, const char *name,
		    const char *path)
{
	struct stat st;
	int rc;
	int fd;

	fd = openat(at, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		    O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		RP_ERR("open(%s): %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		RP_ERR("fstat(%s): %s", path, strerror(-rc));
		goto err_close;
	}
	if (!S_ISREG(st.st_mode)) {
		RP_ERR("%s: is %s, not a regular file", path,
		       rp_fileio_kind(st.st_mode));
		rc = RP_ENOTREG;
		goto err_close;
	}
	/* Of the flags F_SETFL sets, the open above gave only O_NONBLOCK:
	 * no F_GETFL needed to clear it alone. */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		rc = -errno;
		RP_ERR("fcntl(%s, F_SETFL): %s", path, strerror(-rc));
		goto err_close;
	}
	s->fd = fd;
	s->size = (uint64_t)st.st_size;
	s->mode = st.st_mode & 07777;
	s->mtime_sec = st.st_mtim.tv_sec;
	s->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	RP_EV("file", "file.open", "opened {path} for reading: {size} "
	      "byte{size:|s}", EV_S("path", path), EV_U("size", s->size));
	return 0;

err_close:
	close(fd);
	return rc;
}

int rp_fileio_src_open(struct rp_src *s, const char *path)
{
	*s = (struct rp_src){ .fd = -1 };
	return src_open(s, AT_FDCWD, path, path);
}

int rp_fileio_src_open_at(struct rp_src *s, int dirfd, const char *rel,
			  const char *path)
{
	const char *leaf;
	int pfd;
	int rc;

	*s = (struct rp_src){ .fd = -1 };
	/* Every directory level without following a link, as the
	 * receiver goes down its own tree. */
	rc = rp_fileio_parent_of(dirfd, rel, &pfd, &leaf);
	if (rc)
		return rc;
	rc = src_open(s, pfd, leaf, path);
	if (pfd != dirfd)
		close(pfd);
	return rc;
}

int rp_fileio_src_pread(int fd, void *buf, size_t len, uint64_t off,
			uint32_t align)
{
	char *p = buf;
	/* O_DIRECT reads whole units: at the file's end the count stops
	 * short. */
	size_t want = align ? (len + align - 1) / align * align : len;

	if (off > INT64_MAX || len > INT64_MAX - off)
		return -EFBIG;
	while (len > 0) {
		ssize_t n = pread(fd, p, want, (off_t)off);
		int e = errno;

		if (n < 0 && e == EINTR)
			continue;
		/* Refused after all, or an unaligned resume after a short
		 * read: on through the page cache. */
		if (n < 0 && e == EINVAL && align &&
		    rp_fileio_direct_off(fd) == 0) {
			align = 0;
			continue;
		}
		if (n < 0)
			return -e;
		if (n == 0)
			return -ENODATA;	/* shrank while we read it */
		if ((size_t)n >= len)
			return 0;
		p += n;
		len -= (size_t)n;
		want -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int rp_fileio_src_failed(int rc, size_t len, uint64_t off)
{
	if (rc == -ENODATA) {
		RP_ERR("pread(source, %zu bytes at %llu): file shrank while "
		       "reading", len, (unsigned long long)off);
		return -EIO;
	}
	RP_ERR("pread(source, %zu bytes at %llu): %s", len,
	       (unsigned long long)off, rc == -EFBIG ? "offset too large" :
	       strerror(-rc));
	return rc == -EFBIG ? -EINVAL : rc;
}

int rp_fileio_src_read(struct rp_src *s, void *buf, size_t len, uint64_t off)
{
	int rc = rp_fileio_src_pread(s->fd, buf, len, off, s->align);

	return rc ? rp_fileio_src_failed(rc, len, off) : 0;
}

void rp_fileio_src_close(struct rp_src *s)
{
	if (!s || s->fd < 0)
		return;
	close(s->fd);
	s->fd = -1;
	s->align = 0;
}

int rp_fileio_dir_open(const char *path, int *dirfd)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		*dirfd = -1;
		RP_ERR("open(%s): %s", path, strerror(e));
		return -e;
	}
	*dirfd = fd;
	return 0;
}

/*
 * The name only has to be unguessable enough that O_EXCL rarely collides;
 * O_EXCL|O_NOFOLLOW is what makes creating it safe. So if the kernel's
 * pool is not ready (early boot of a lab guest), do not wait for it.
 */
static void random_chars(char *out, size_t n)
{
	unsigned char rnd[16];
	size_t i;

	if (n > sizeof(rnd))
		n = sizeof(rnd);
	rp_sys_random(rnd, n);
	for (i = 0; i < n; i++)
		out[i] = tmp_chars[rnd[i] % (sizeof(tmp_chars) - 1)];
	out[n] = '\0';
}

/* A fresh hidden temp name for name into out, at most RP_NAME_MAX bytes. */
void rp_fileio_tmpname(char *out, size_t outlen, const char *name)
{
	char rnd[TMP_RAND + 1];
	size_t keep = strlen(name);

	if (keep > TMP_NAME_KEEP)
		keep = TMP_NAME_KEEP;
	random_chars(rnd, TMP_RAND);
	snprintf(out, outlen, ".%.*s" TMP_SUFFIX "%s", (int)keep, name, rnd);
}

/* Create a fresh hidden temp of name: fd, or -errno (not reported). */
int rp_fileio_create_tmp(int dirfd, const char *name, char *tmp, size_t len)
{
	const int flags = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	int fd = -EEXIST;

	for (int i = 0; i < RP_FILEIO_TMP_TRIES && fd == -EEXIST; i++) {
		rp_fileio_tmpname(tmp, len, name);
		fd = openat(dirfd, tmp, flags, 0600);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int rp_fileio_dir_probe(int dirfd, const char *path)
{
	char tmp[RP_NAME_MAX + 1];
	int fd = rp_fileio_create_tmp(dirfd, "probe", tmp, sizeof(tmp));

	if (fd < 0) {
		RP_ERR("cannot write into %s: creating a file there failed: %s",
		       path, strerror(-fd));
		return fd;
	}
	close(fd);
	if (unlinkat(dirfd, tmp, 0) < 0) {
		int e = errno;

		RP_ERR("cannot write into %s: unlinkat(%s): %s", path, tmp,
		       strerror(e));
		return -e;
	}
	return 0;
}

/* fd is what name (in dirfd) names, now: nobody replaced or removed it. */
bool rp_fileio_same_entry(int dirfd, int fd, const char *name)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	       fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}
