// SPDX-License-Identifier: MIT
/* Files: the sender's source, and the receiver's temp file and its commit. */
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
#include <sys/statvfs.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* Hidden temporary names: ".<name>.rdmapush-XXXXXX". */
#define TMP_SUFFIX	".rdmapush-"
#define TMP_RAND	6
#define TMP_TRIES	64
/* How much of <name> fits so the whole temp name stays <= RP_NAME_MAX. */
#define TMP_NAME_KEEP	(RP_NAME_MAX - 1 - (sizeof(TMP_SUFFIX) - 1) - TMP_RAND)

/* Bytes of a refused name shown in the error line. */
#define ESC_SHOW	64

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

/*
 * A refused name comes from the peer and may hold terminal escapes: show
 * only printable ASCII as is, everything else as \xNN, and cut it short.
 */
static char *escape_name(char *out, size_t outlen, const char *name,
			 size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	size_t i;

	for (i = 0; i < len && i < ESC_SHOW && o + 5 < outlen; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 0xf];
	}
	if (i < len && o + 4 <= outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

const char *rp_fileio_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static const char *file_kind(mode_t m)
{
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

int rp_fileio_src_open(struct rp_src *s, const char *path)
{
	struct stat st;
	int flags;
	int rc;
	int fd;

	s->fd = -1;
	s->size = 0;
	/*
	 * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	 * writer before fstat() gets a chance to refuse it.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
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
		       file_kind(st.st_mode));
		rc = RP_ENOTREG;
		goto err_close;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		rc = -errno;
		RP_ERR("fcntl(%s, F_SETFL): %s", path, strerror(-rc));
		goto err_close;
	}
	s->fd = fd;
	s->size = (uint64_t)st.st_size;
	RP_TRACE("file", "opened %s for reading: %llu bytes", path,
		 (unsigned long long)s->size);
	return 0;

err_close:
	close(fd);
	return rc;
}

int rp_fileio_src_read(struct rp_src *s, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	if (off > INT64_MAX || len > INT64_MAX - off) {
		RP_ERR("pread(source, %zu bytes at %llu): offset too large",
		       len, (unsigned long long)off);
		return -EINVAL;
	}
	while (len > 0) {
		ssize_t n = pread(s->fd, p, len, (off_t)off);

		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			RP_ERR("pread(source, %zu bytes at %llu): %s", len,
			       (unsigned long long)off, strerror(e));
			return -e;
		}
		if (n == 0) {
			RP_ERR("pread(source, %zu bytes at %llu): file shrank while reading",
			       len, (unsigned long long)off);
			return -EIO;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

void rp_fileio_src_close(struct rp_src *s)
{
	if (!s || s->fd < 0)
		return;
	close(s->fd);
	s->fd = -1;
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

void rp_fileio_dst_init(struct rp_dst *d)
{
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
	d->fd = -1;
}

/*
 * The name only has to be unguessable enough that O_EXCL rarely collides;
 * O_EXCL|O_NOFOLLOW is what makes creating it safe. So if the kernel's
 * pool is not ready (early boot of a lab guest), do not wait for it.
 */
static void random_chars(char *out, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[16];
	size_t i;

	if (n > sizeof(rnd))
		n = sizeof(rnd);
	rp_sys_random(rnd, n);
	for (i = 0; i < n; i++)
		out[i] = set[rnd[i] % (sizeof(set) - 1)];
	out[n] = '\0';
}

/* A fresh hidden temp name for name into out, at most RP_NAME_MAX bytes. */
static void make_tmpname(char *out, size_t outlen, const char *name)
{
	char rnd[TMP_RAND + 1];
	size_t keep = strlen(name);

	if (keep > TMP_NAME_KEEP)
		keep = TMP_NAME_KEEP;
	random_chars(rnd, TMP_RAND);
	snprintf(out, outlen, ".%.*s" TMP_SUFFIX "%s", (int)keep, name, rnd);
}

/* Refuse what may not be replaced; with force, a file or symlink may. */
static int check_existing(int dirfd, const char *name, bool force)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		RP_ERR("fstatat(%s): %s", name, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		RP_ERR("%s: exists and is %s; never replacing it", name,
		       file_kind(st.st_mode));
		return RP_EEXIST;
	}
	if (!force) {
		RP_ERR("%s: file exists (use --force on the receiver)", name);
		return RP_EEXIST;
	}
	RP_TRACE("file", "%s exists: --force, it will be replaced", name);
	return 0;
}

static int check_space(int dirfd, const char *name, uint64_t size)
{
	char need[32], have[32];
	struct statvfs sv;
	uint64_t unit;
	uint64_t avail;

	if (fstatvfs(dirfd, &sv) < 0) {
		int e = errno;

		RP_ERR("fstatvfs(directory for %s): %s", name, strerror(e));
		return -e;
	}
	unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	if (unit && sv.f_bavail > UINT64_MAX / unit)
		avail = UINT64_MAX;
	else
		avail = (uint64_t)sv.f_bavail * unit;
	if (size > avail) {
		RP_ERR("%s: not enough free space: need %s, have %s", name,
		       rp_fmt_bytes(need, sizeof(need), size),
		       rp_fmt_bytes(have, sizeof(have), avail));
		return RP_ENOSPACE;
	}
	return 0;
}

/* O_TMPFILE links back into the tree only through /proc/self/fd. */
static bool proc_fd_usable(int fd)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return faccessat(AT_FDCWD, proc, F_OK, 0) == 0;
}

/* An anonymous temp file: 1 if made, 0 if unsupported here, or -errno. */
static int create_anon(struct rp_dst *d)
{
	int fd;

	fd = openat(d->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		if (e == EOPNOTSUPP || e == EISDIR || e == EINVAL) {
			RP_TRACE("file", "no O_TMPFILE here (%s): named temp",
				 strerror(e));
			return 0;
		}
		RP_ERR("openat(., O_TMPFILE) for %s: %s", d->name, strerror(e));
		return -e;
	}
	if (!proc_fd_usable(fd)) {
		RP_TRACE("file", "/proc/self/fd is not usable: named temp");
		close(fd);
		return 0;
	}
	d->fd = fd;
	d->anon = true;
	return 1;
}

static int create_named(struct rp_dst *d)
{
	const int flags = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	char tmp[sizeof(d->tmpname)];
	int fd = -1;
	int i;

	for (i = 0; i < TMP_TRIES && fd < 0; i++) {
		make_tmpname(tmp, sizeof(tmp), d->name);
		fd = openat(d->dirfd, tmp, flags, 0600);
		if (fd < 0 && errno != EEXIST) {
			int e = errno;

			RP_ERR("openat(%s, O_CREAT|O_EXCL): %s", tmp,
			       strerror(e));
			return -e;
		}
	}
	if (fd < 0) {
		RP_ERR("openat(%s, O_CREAT|O_EXCL): %s (%d tries)", tmp,
		       strerror(EEXIST), TMP_TRIES);
		return -EEXIST;
	}
	/* Only a name we created ourselves is ever unlinked by abort. */
	memcpy(d->tmpname, tmp, sizeof(d->tmpname));
	d->fd = fd;
	d->anon = false;
	return 0;
}

/* Claim the blocks now, so a full disk fails before any data moves. */
static int reserve_space(struct rp_dst *d, uint64_t size)
{
	int e;

	if (size == 0)
		return 0;
	if (size > INT64_MAX) {
		RP_ERR("fallocate(%s, %llu): %s", d->name,
		       (unsigned long long)size, strerror(EFBIG));
		return -EFBIG;
	}
	/*
	 * RDMAPUSH_NO_FALLOCATE makes us behave as on a file system without
	 * fallocate, where a full disk shows up mid-transfer (for tests).
	 */
	if (getenv("RDMAPUSH_NO_FALLOCATE"))
		e = EOPNOTSUPP;
	else if (fallocate(d->fd, 0, 0, (off_t)size) == 0)
		return 0;
	else
		e = errno;
	if (e != EOPNOTSUPP && e != ENOSYS) {
		RP_ERR("fallocate(%s, %llu): %s", d->name,
		       (unsigned long long)size, strerror(e));
		return -e;
	}
	RP_TRACE("file", "fallocate unsupported here: ftruncate");
	if (ftruncate(d->fd, (off_t)size) < 0) {
		e = errno;
		RP_ERR("ftruncate(%s, %llu): %s", d->name,
		       (unsigned long long)size, strerror(e));
		return -e;
	}
	return 0;
}

int rp_fileio_dst_open(struct rp_dst *d, int dirfd, const char *name,
		       uint64_t size, bool force)
{
	char esc[ESC_SHOW * 4 + 4];
	const char *why = NULL;
	size_t len;
	int rc;

	rp_fileio_dst_init(d);
	/* Stop at 256 bytes: enough to refuse a long name, never unbounded. */
	len = strnlen(name, RP_NAME_MAX + 1);
	rc = rp_fileio_check_name(name, len, &why);
	if (rc) {
		RP_ERR("refusing file name \"%s\": %s",
		       escape_name(esc, sizeof(esc), name, len), why);
		return rc;
	}
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	d->dirfd = dirfd;

	rc = check_existing(dirfd, d->name, force);
	if (rc)
		return rc;
	rc = check_space(dirfd, d->name, size);
	if (rc)
		return rc;

	rc = 0;
	if (!getenv("RDMAPUSH_NO_TMPFILE"))
		rc = create_anon(d);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		rc = create_named(d);
		if (rc)
			return rc;
	}
	/* O_TMPFILE's mode is cut by the umask: both paths end at 0644. */
	if (fchmod(d->fd, 0644) < 0) {
		rc = -errno;
		RP_ERR("fchmod(%s, 0644): %s", d->name, strerror(-rc));
		goto err_abort;
	}
	rc = reserve_space(d, size);
	if (rc)
		goto err_abort;
	RP_TRACE("file", "receiving %s into %s (%llu bytes reserved)", d->name,
		 d->anon ? "an O_TMPFILE" : d->tmpname,
		 (unsigned long long)size);
	return 0;

err_abort:
	rp_fileio_dst_abort(d);
	return rc;
}

int rp_fileio_dst_write(struct rp_dst *d, const void *buf, size_t len,
			uint64_t off)
{
	const char *p = buf;

	if (off > INT64_MAX || len > INT64_MAX - off) {
		RP_ERR("pwrite(%s, %zu bytes at %llu): %s", d->name, len,
		       (unsigned long long)off, strerror(EFBIG));
		return -EFBIG;
	}
	while (len > 0) {
		ssize_t n = pwrite(d->fd, p, len, (off_t)off);

		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			RP_ERR("pwrite(%s, %zu bytes at %llu): %s", d->name,
			       len, (unsigned long long)off, strerror(e));
			return -e;
		}
		if (n == 0) {
			/* Not expected from a regular file: avoid spinning. */
			RP_ERR("pwrite(%s, %zu bytes at %llu): wrote nothing",
			       d->name, len, (unsigned long long)off);
			return -EIO;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int appeared(const struct rp_dst *d)
{
	RP_ERR("%s: appeared while receiving; not replacing it", d->name);
	return RP_EEXIST;
}

/* Rename the named temp over name; without force never replace. */
static int rename_into_place(struct rp_dst *d, bool force)
{
	int e;

	if (force) {
		if (renameat(d->dirfd, d->tmpname, d->dirfd, d->name) == 0)
			goto renamed;
		e = errno;
		if (e == EISDIR) {
			RP_ERR("%s: a directory appeared at the name; never replacing it",
			       d->name);
			return RP_EEXIST;
		}
		RP_ERR("renameat(%s, %s): %s", d->tmpname, d->name,
		       strerror(e));
		return -e;
	}
	if (renameat2(d->dirfd, d->tmpname, d->dirfd, d->name,
		      RENAME_NOREPLACE) == 0)
		goto renamed;
	e = errno;
	if (e == EEXIST)
		return appeared(d);
	if (e != EINVAL && e != ENOSYS) {
		RP_ERR("renameat2(%s, %s, RENAME_NOREPLACE): %s", d->tmpname,
		       d->name, strerror(e));
		return -e;
	}
	/* No RENAME_NOREPLACE on this file system: link() never replaces. */
	if (linkat(d->dirfd, d->tmpname, d->dirfd, d->name, 0) < 0) {
		e = errno;
		if (e == EEXIST)
			return appeared(d);
		RP_ERR("linkat(%s, %s): %s", d->tmpname, d->name, strerror(e));
		return -e;
	}
	if (unlinkat(d->dirfd, d->tmpname, 0) < 0) {
		/* The file is in place; only a hidden second name remains. */
		RP_ERR("unlinkat(%s): %s", d->tmpname, strerror(errno));
	}
renamed:
	/* Gone from under that name: abort must never unlink it again. */
	d->tmpname[0] = '\0';
	return 0;
}

/* Give the O_TMPFILE its final name. */
static int link_anon(struct rp_dst *d, bool force)
{
	char tmp[sizeof(d->tmpname)];
	char proc[32];
	int e = EEXIST;
	int i;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->fd);
	if (!force) {
		/*
		 * linkat() never replaces an entry, so linking straight to
		 * the final name is the atomic no-replace rename, and no
		 * temp name can be left behind by a crash.
		 */
		if (linkat(AT_FDCWD, proc, d->dirfd, d->name,
			   AT_SYMLINK_FOLLOW) == 0)
			return 0;
		e = errno;
		if (e == EEXIST)
			return appeared(d);
		RP_ERR("linkat(%s, %s): %s", proc, d->name, strerror(e));
		return -e;
	}
	/* To replace, link under a hidden name, then rename over. */
	for (i = 0; i < TMP_TRIES; i++) {
		make_tmpname(tmp, sizeof(tmp), d->name);
		if (linkat(AT_FDCWD, proc, d->dirfd, tmp,
			   AT_SYMLINK_FOLLOW) == 0) {
			memcpy(d->tmpname, tmp, sizeof(d->tmpname));
			return rename_into_place(d, true);
		}
		e = errno;
		if (e != EEXIST)
			break;
	}
	RP_ERR("linkat(%s, %s): %s", proc, tmp, strerror(e));
	return -e;
}

int rp_fileio_dst_commit(struct rp_dst *d, bool force)
{
	int rc;

	if (d->fd < 0 || d->committed) {
		RP_ERR("commit of %s: no open temporary file", d->name);
		return RP_EINTERNAL;
	}
	if (fsync(d->fd) < 0) {
		rc = -errno;
		RP_ERR("fsync(%s): %s", d->name, strerror(-rc));
		goto err_abort;
	}
	if (d->anon)
		rc = link_anon(d, force);
	else
		rc = rename_into_place(d, force);
	if (rc)
		goto err_abort;
	if (fsync(d->dirfd) < 0) {
		rc = -errno;
		RP_ERR("fsync(directory of %s): %s", d->name, strerror(-rc));
		goto err_unlink;
	}
	d->committed = true;
	/* The data is on disk: a late close error changes nothing. */
	if (close(d->fd) < 0)
		RP_TRACE("file", "close(%s): %s", d->name, strerror(errno));
	d->fd = -1;
	RP_TRACE("file", "%s: fsynced and in place", d->name);
	return 0;

err_unlink:
	/*
	 * A rename that may not survive a crash is not a success, and the
	 * sender will be told this push failed: leave no file under its name.
	 */
	if (unlinkat(d->dirfd, d->name, 0) < 0)
		RP_ERR("unlinkat(%s): %s", d->name, strerror(errno));
err_abort:
	rp_fileio_dst_abort(d);
	return rc;
}

void rp_fileio_dst_abort(struct rp_dst *d)
{
	if (!d)
		return;
	if (!d->committed && d->tmpname[0] && d->dirfd >= 0 &&
	    unlinkat(d->dirfd, d->tmpname, 0) < 0 && errno != ENOENT)
		RP_ERR("unlinkat(%s): %s", d->tmpname, strerror(errno));
	d->tmpname[0] = '\0';
	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
}
