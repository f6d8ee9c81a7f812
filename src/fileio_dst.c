// SPDX-License-Identifier: MIT
/* The receiver's destination file: checks, the temporary file, space
 * reserved ahead of the writes, write-behind, the final sync in steps,
 * and the commit under the final name (or nothing left at all). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"
#include "rdmapush/trace.h"
#include "fileio_int.h"

/*
 * Sessions carry many files this small, where each system call counts:
 * no free-space check and no reservation (the one write claims the
 * blocks and says ENOSPC as well), no separate writeback start or range
 * sync before the fsync.
 */
#define SMALL_FILE	(64u << 10)

/* Wait for writeback before, start it, wait for it: the range is on disk. */
#define SFR_WAIT	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | \
			 SYNC_FILE_RANGE_WAIT_AFTER)

void rp_fileio_dst_init(struct rp_dst *d)
{
	memset(d, 0, sizeof(*d));
	d->dirfd = -1;
	d->fd = -1;
	d->dfd = -1;
}

/* The O_DIRECT descriptor, once no write can use it any more. */
static void close_direct(struct rp_dst *d)
{
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
	d->align = 0;
}

/* Refuse what may not be replaced; with force, a file or symlink may. */
static int check_existing(const struct rp_dst *d, bool force)
{
	struct stat st;

	if (fstatat(d->dirfd, d->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		RP_ERR("fstatat(%s): %s", d->shown, strerror(e));
		return -e;
	}
	/* Refused as a name is (no --force can help): not "file exists". */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		RP_ERR("%s: %s is in the way; it is never replaced by a file, "
		       "even with --force", d->shown,
		       rp_fileio_kind(st.st_mode));
		return RP_EBADNAME;
	}
	if (!force) {
		RP_ERR("%s: file exists (use --force on the receiver)",
		       d->shown);
		return RP_EEXIST;
	}
	RP_EV("file", "file.replace", "{path} exists: --force, it will be "
	      "replaced", EV_S("path", d->shown));
	return 0;
}

static int check_space(const struct rp_dst *d, uint64_t size)
{
	char need[32], have[32];
	struct statvfs sv;
	uint64_t unit;
	uint64_t avail;

	/* A stream's size is known at its end: reserve() and pwrite() will
	 * say when the disk is full. */
	if (size == RP_SIZE_UNKNOWN || size <= SMALL_FILE)
		return 0;
	if (fstatvfs(d->dirfd, &sv) < 0) {
		int e = errno;

		RP_ERR("fstatvfs(directory for %s): %s", d->shown, strerror(e));
		return -e;
	}
	unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	if (unit && sv.f_bavail > UINT64_MAX / unit)
		avail = UINT64_MAX;
	else
		avail = (uint64_t)sv.f_bavail * unit;
	if (size > avail) {
		RP_ERR("%s: not enough free space: need %s, have %s", d->shown,
		       rp_fmt_bytes(need, sizeof(need), size),
		       rp_fmt_bytes(have, sizeof(have), avail));
		return RP_ENOSPACE;
	}
	return 0;
}

/* O_TMPFILE links back into the tree only through /proc/self/fd. Asked
 * once per process: /proc does not come and go between files. */
static bool proc_fd_usable(int fd)
{
	static int usable = -1;
	char proc[32];

	if (usable < 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		usable = faccessat(AT_FDCWD, proc, F_OK, 0) == 0;
	}
	return usable;
}

/* An anonymous temp file made with mode: 1 if made, 0 if unsupported
 * here, or -errno. */
static int create_anon(struct rp_dst *d, mode_t mode)
{
	int fd;

	fd = openat(d->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;

		if (e == EOPNOTSUPP || e == EISDIR || e == EINVAL) {
			RP_EV("file", "file.tmpfile", "no O_TMPFILE here "
			      "({reason}): named temp",
			      EV_S("reason", strerror(e)));
			return 0;
		}
		RP_ERR("openat(., O_TMPFILE) for %s: %s", d->shown,
		       strerror(e));
		return -e;
	}
	if (!proc_fd_usable(fd)) {
		RP_EV("file", "file.tmpfile", "{reason} is not usable: named "
		      "temp", EV_S("reason", "/proc/self/fd"));
		close(fd);
		return 0;
	}
	d->fd = fd;
	d->anon = true;
	return 1;
}

/*
 * Lock a temp we just created under tmp, so that rp_fileio_clean_stale()
 * leaves it alone: 0, or 1 if a cleaner got there first (it holds the
 * lock, or already removed the name), so try another name.
 */
static int lock_tmp(int dirfd, int fd, const char *tmp)
{
	return flock(fd, LOCK_EX | LOCK_NB) < 0 ||
	       !rp_fileio_same_entry(dirfd, fd, tmp);
}

static int create_named(struct rp_dst *d)
{
	char tmp[sizeof(d->tmpname)];
	char shown[RP_PEER_TEXT_MAX];
	int fd = -EEXIST;

	for (int i = 0; i < RP_FILEIO_TMP_TRIES && fd < 0; i++) {
		fd = rp_fileio_create_tmp(d->dirfd, d->name, tmp, sizeof(tmp));
		if (fd < 0)
			break;
		if (lock_tmp(d->dirfd, fd, tmp)) {
			close(fd);
			fd = -EEXIST;
		}
	}
	if (fd < 0) {
		RP_ERR("openat(%s, O_CREAT|O_EXCL): %s",
		       rp_fileio_show(shown, tmp, strlen(tmp)), strerror(-fd));
		return fd;
	}
	/* Only a name we created ourselves is ever unlinked by abort. */
	memcpy(d->tmpname, tmp, sizeof(d->tmpname));
	d->fd = fd;
	d->anon = false;
	return 0;
}

/*
 * Unlink name in dirfd if it is a regular file no live receiver holds (a
 * receiver keeps its lock until the file is renamed; after that, the
 * name is gone or no longer this file) and, for max_age >= 0, older than
 * that by its last change. said (or NULL: nothing) ends the line that
 * says so. 1 if removed, 0 if left, -ENOENT if there is no such name.
 * O_NOFOLLOW, O_NONBLOCK: never a symlink's target, never a FIFO's wait;
 * a file we cannot open is not one we made.
 */
static int unlink_unheld(int dirfd, const char *name, double max_age,
			 const char *said)
{
	char shown[RP_PEER_TEXT_MAX];
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC);
	int e = -1;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (max_age < 0 ||
	     rp_partial_expired(difftime(time(NULL), st.st_ctime), max_age)) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    rp_fileio_same_entry(dirfd, fd, name))
		e = unlinkat(dirfd, name, 0) < 0 ? errno : 0;
	close(fd);
	if (e < 0)
		return 0;
	rp_fileio_show(shown, name, strlen(name));
	if (e) {
		RP_ERR("unlinkat(%s): %s", shown, strerror(e));
		return 0;
	}
	if (said)
		RP_INFO("removed %s, %s", shown, said);
	return 1;
}

/* The sweep's bounds: start-up must not take as long as the tree is big
 * (or deep). Past them the rest is left as it is, and that is said. */
#define STALE_MAX_DEPTH		64
#define STALE_MAX_ENTRIES	(1u << 18)

struct sweep {
	double max_age;		/* of a kept partial, seconds */
	unsigned int seen;	/* entries looked at */
	int removed;
	bool too_deep;		/* a directory below STALE_MAX_DEPTH */
	bool too_many;		/* stopped at STALE_MAX_ENTRIES */
};

/* A subdirectory of the directory dfd is open on, opened never through
 * a symbolic link: its fd, or -1 (not a directory, or not ours to read:
 * nothing a receiver of ours wrote). */
static int open_subdir(int dfd, const struct dirent *e)
{
	if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
		return -1;
	return openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
}

/* Sweep the directory fd (ours: closed here) and those below it, depth
 * levels below the target directory. */
static void sweep_dir(int fd, unsigned int depth, struct sweep *sw)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;
	int dfd;

	if (!dir) {
		RP_ERR("looking for stale temporary files: fdopendir: %s",
		       strerror(errno));
		close(fd);
		return;
	}
	dfd = dirfd(dir);
	while (!sw->too_many && (e = readdir(dir))) {
		const char *name = e->d_name;
		int sub;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (++sw->seen > STALE_MAX_ENTRIES) {
			sw->too_many = true;
			break;
		}
		if (rp_fileio_is_tmp_name(name, strlen(name))) {
			sw->removed += unlink_unheld(dfd, name, -1, "a "
				"temporary file left by a receiver that "
				"stopped") > 0;
			continue;
		}
		/* A partial a transfer writes now is locked: never removed. */
		if (rp_partial_is_name(name, strlen(name))) {
			sw->removed += unlink_unheld(dfd, name, sw->max_age,
				"kept from a stopped push longer than "
				"--partial-max-age") > 0;
			continue;
		}
		sub = open_subdir(dfd, e);
		if (sub < 0)
			continue;
		if (depth + 1 >= STALE_MAX_DEPTH) {
			sw->too_deep = true;
			close(sub);
			continue;
		}
		sweep_dir(sub, depth + 1, sw);
	}
	closedir(dir);
}

int rp_fileio_clean_stale(int dirfd, double partial_max_age)
{
	/* Our own descriptor: readdir moves its offset. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct sweep sw = { .max_age = partial_max_age };

	if (fd < 0) {
		RP_ERR("looking for stale temporary files: openat: %s",
		       strerror(errno));
		return 0;
	}
	sweep_dir(fd, 0, &sw);
	if (sw.too_many || sw.too_deep)
		RP_INFO("looked for stale temporary files no deeper than %u "
			"levels and in at most %u entries; the rest is left "
			"as it is", STALE_MAX_DEPTH, STALE_MAX_ENTRIES);
	return sw.removed;
}

/* Claim the blocks up to upto (<= the declared size): a full disk fails
 * here, not mid-write. Without fallocate, pwrite's ENOSPC will say it.
 * A stream's reservation runs past its end: the final sync cuts it. */
static int reserve(struct rp_dst *d, uint64_t upto)
{
	uint64_t from = d->reserved;
	int e;

	if (upto > d->size)
		upto = d->size;
	if (upto <= from)
		return 0;
	if (fallocate(d->fd, 0, (off_t)from, (off_t)(upto - from)) == 0) {
		d->reserved = upto;
		return 0;
	}
	e = errno;
	if (e != EOPNOTSUPP && e != ENOSYS) {
		RP_ERR("fallocate(%s, %llu bytes at %llu): %s", d->shown,
		       (unsigned long long)(upto - from),
		       (unsigned long long)from, strerror(e));
		return -e;
	}
	RP_EV0("file", "file.noreserve", "fallocate unsupported here: no "
	       "reservation");
	d->reserved = d->size;
	return 0;
}

/*
 * The temporary file. A named one is created 0600 (the umask may only
 * take bits away): what is being written may be a secret, and nobody
 * else reads a file before it is complete. An O_TMPFILE has no name to
 * be opened by, so it gets its final mode at once (mode: 0600 when the
 * caller did not say) unless that has a setuid, setgid or sticky bit,
 * which only apply_attrs() sets, at the end, as it does any mode the
 * umask cut.
 */
static int create_file(struct rp_dst *d, uint32_t mode)
{
	int rc = 0;

	if (!getenv("RDMAPUSH_NO_TMPFILE"))
		rc = create_anon(d, (mode & 07000) ? 0600 : mode & 0777);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return create_named(d);
	return 0;
}

int rp_fileio_dst_open(struct rp_dst *d, int dirfd, const char *name,
		       uint64_t size, bool force)
{
	return rp_fileio_dst_open_at(d, dirfd, name, NULL, size, force);
}

/* d for name in dirfd (path: how messages name it, or NULL), with the
 * defaults; name checked. */
static int dst_begin(struct rp_dst *d, int dirfd, const char *name,
		     const char *path, uint64_t size)
{
	const char *why = NULL;
	size_t len;
	int rc;

	rp_fileio_dst_init(d);
	/* Stop at 256 bytes: enough to refuse a long name, never unbounded. */
	len = strnlen(name, RP_NAME_MAX + 1);
	/* Named as the user knows it: its path in the target directory. */
	if (path)
		rp_fileio_show(d->shown, path, strlen(path));
	else
		rp_fileio_show(d->shown, name, len);
	rc = rp_fileio_check_name(name, len, &why);
	if (rc) {
		RP_ERR("refusing file name \"%s\": %s", d->shown, why);
		return rc;
	}
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	d->dirfd = dirfd;
	d->size = size;
	/* What every received file got before the caller could choose. */
	d->mode = 0644;
	return 0;
}

/*
 * The temporary file under the partial's name from the start (a large
 * file: even a receiver killed outright then leaves what it wrote, for
 * a --resume). An older partial no receiver holds is replaced; one that
 * is held (the same name pushed twice at once), or a name too long,
 * gets an ordinary temporary file.
 */
static int create_kept(struct rp_dst *d)
{
	char pname[RP_NAME_MAX + 1], jname[RP_NAME_MAX + 1];
	const int flags = O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	int fd = -1;

	if (rp_partial_name(d->name, false, pname) ||
	    rp_partial_name(d->name, true, jname))
		return create_file(d, 0600);
	for (int i = 0; i < 2 && fd < 0; i++) {
		fd = openat(d->dirfd, pname, flags, 0600);
		if (fd < 0 && (errno != EEXIST ||
			       !unlink_unheld(d->dirfd, pname, -1, NULL)))
			return create_file(d, 0600);
	}
	if (fd < 0 || lock_tmp(d->dirfd, fd, pname)) {
		if (fd >= 0)
			close(fd);
		return create_file(d, 0600);
	}
	/* Its journal describes what is no longer there. */
	(void)unlinkat(d->dirfd, jname, 0);
	memcpy(d->tmpname, pname, sizeof(pname));
	d->fd = fd;
	d->anon = false;
	d->kept = true;
	return 0;
}

/* kept: under the partial's name; else an O_TMPFILE made with mode. */
static int open_dst(struct rp_dst *d, int dirfd, const char *name,
		    const char *path, uint64_t size, bool force, bool kept,
		    uint32_t mode, bool made)
{
	int rc = dst_begin(d, dirfd, name, path, size);

	/* A look that misses searches the directory's whole index: for a
	 * tree of small files, a large part of the receiver's time. */
	if (!rc && !made)
		rc = check_existing(d, force);
	if (!rc)
		rc = check_space(d, size);
	if (!rc)
		rc = kept ? create_kept(d) : create_file(d, mode);
	/* RDMAPUSH_NO_FALLOCATE: as on a file system without it (tests). A
	 * small file's blocks are claimed by its one write just as well. */
	if (!rc && (size <= SMALL_FILE || getenv("RDMAPUSH_NO_FALLOCATE")))
		d->reserved = size;
	if (!rc)
		rc = reserve(d, RP_FILEIO_RESERVE_STEP);
	if (rc)
		goto err_abort;
	RP_EV("file", "file.create", "receiving {path} into {into} ({reserved} "
	      "bytes reserved)", EV_S("path", d->shown),
	      EV_S("into", d->anon ? "an O_TMPFILE" : d->tmpname),
	      EV_U("reserved", d->reserved));
	return 0;

err_abort:
	rp_fileio_dst_abort(d);
	return rc;
}

int rp_fileio_dst_open_at(struct rp_dst *d, int dirfd, const char *name,
			  const char *path, uint64_t size, bool force)
{
	return open_dst(d, dirfd, name, path, size, force, false, 0600, false);
}

int rp_fileio_dst_open_as(struct rp_dst *d, int dirfd, const char *name,
			  const char *path, uint64_t size, bool force,
			  uint32_t mode, bool made)
{
	return open_dst(d, dirfd, name, path, size, force, false, mode, made);
}

int rp_fileio_dst_open_kept(struct rp_dst *d, int dirfd, const char *name,
			    const char *path, uint64_t size, bool force)
{
	return open_dst(d, dirfd, name, path, size, force, true, 0600, false);
}

/*
 * The kept partial fd becomes d's temporary file, under its own name,
 * if that is still the file there and no other receiver took it (its
 * lock). Its journal stays until the next one replaces it.
 */
static int take_partial(struct rp_dst *d, int fd)
{
	char pname[RP_NAME_MAX + 1];
	int rc = rp_partial_name(d->name, false, pname);

	if (!rc && (!rp_fileio_same_entry(d->dirfd, fd, pname) ||
		    flock(fd, LOCK_EX | LOCK_NB) < 0)) {
		RP_ERR("%s: its kept partial changed while we took it",
		       d->shown);
		rc = -EAGAIN;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	memcpy(d->tmpname, pname, sizeof(pname));
	d->fd = fd;
	d->anon = false;
	d->kept = true;
	return 0;
}

int rp_fileio_dst_adopt(struct rp_dst *d, int dirfd, const char *name,
			const char *path, uint64_t size, bool force, int fd,
			uint64_t from)
{
	int rc = dst_begin(d, dirfd, name, path, size);

	if (!rc)
		rc = check_existing(d, force);
	if (!rc)
		rc = check_space(d, size - from);
	if (!rc)
		rc = take_partial(d, fd);
	else
		close(fd);
	if (!rc && ftruncate(d->fd, (off_t)from) < 0) {
		rc = -errno;
		RP_ERR("ftruncate(%s, %" PRIu64 "): %s", d->shown, from,
		       strerror(-rc));
	}
	if (rc)
		goto err_abort;
	d->end = d->synced = d->wb_started = d->reserved = from;
	if (size <= SMALL_FILE || getenv("RDMAPUSH_NO_FALLOCATE"))
		d->reserved = size;
	rc = reserve(d, from + RP_FILEIO_RESERVE_STEP);
	if (rc)
		goto err_abort;
	RP_EV("file", "file.adopt", "receiving the rest of {path} from byte "
	      "{from}, into its kept partial", EV_S("path", d->shown),
	      EV_U("from", from));
	return 0;

err_abort:
	rp_fileio_dst_abort(d);
	return rc;
}

/* sync_file_range: 0, 1 if unsupported here, or -errno (reported). */
static int sync_range(struct rp_dst *d, uint64_t off, uint64_t len,
		      unsigned int flags)
{
	int e;

	if (d->no_sfr)
		return 1;
	if (sync_file_range(d->fd, (off_t)off, (off_t)len, flags) == 0)
		return 0;
	e = errno;
	if (e == EINVAL || e == ENOSYS || e == ESPIPE) {
		RP_EV("file", "file.nosfr", "sync_file_range: {reason}: "
		      "fdatasync instead", EV_S("reason", strerror(e)));
		d->no_sfr = true;
		return 1;
	}
	RP_ERR("sync_file_range(%s, %llu bytes at %llu): %s", d->shown,
	       (unsigned long long)len, (unsigned long long)off, strerror(e));
	return -e;
}

static int pwrite_full(int fd, const char *p, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		/* 0 is not expected from a regular file: never spin. */
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			if (e == EINTR)
				continue;
			return -e;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* sync_file_range for a worker: 0, 1 if unsupported here (w->no_sfr),
 * or -errno (w->call set). */
static int put_sync_range(struct rp_dst_put *w, uint64_t off, uint64_t len,
			  unsigned int flags)
{
	int e;

	if (sync_file_range(w->fd, (off_t)off, (off_t)len, flags) == 0)
		return 0;
	e = errno;
	if (e == EINVAL || e == ENOSYS || e == ESPIPE) {
		w->no_sfr = true;
		return 1;
	}
	w->call = "sync_file_range";
	return -e;
}

/*
 * Write-behind, from the chunk's range alone (no shared state): start
 * writeback of what was just written and wait for the slice
 * RP_FILEIO_WB_LAG behind it, so the disk, not the network, sets the
 * pace. The chunks tile the file, so their slices cover everything
 * older than the lag once all before this one are done.
 */
static int put_behind(struct rp_dst_put *w)
{
	uint64_t end = w->off + w->len, from;
	int rc = w->sfr ? put_sync_range(w, w->off, w->len,
					 SYNC_FILE_RANGE_WRITE) : 1;

	if (rc == 0 && end > RP_FILEIO_WB_LAG) {
		from = w->off > RP_FILEIO_WB_LAG ? w->off - RP_FILEIO_WB_LAG : 0;
		rc = put_sync_range(w, from, end - RP_FILEIO_WB_LAG - from,
				    SFR_WAIT);
		if (rc == 0)
			w->synced = end - RP_FILEIO_WB_LAG;
	}
	if (rc <= 0)
		return rc;
	/* No sync_file_range: fdatasync once per lag's worth. */
	if (end / RP_FILEIO_WB_LAG == w->off / RP_FILEIO_WB_LAG)
		return 0;
	if (fdatasync(w->fd) < 0) {
		w->call = "fdatasync";
		return -errno;
	}
	w->synced = end;
	return 0;
}

int rp_fileio_dst_put_prepare(struct rp_dst *d, struct rp_dst_put *w,
			      uint64_t off, uint32_t len)
{
	int rc;

	if (off > INT64_MAX || len > INT64_MAX - off) {
		RP_ERR("pwrite(%s, %u bytes at %llu): %s", d->shown, len,
		       (unsigned long long)off, strerror(EFBIG));
		return -EFBIG;
	}
	/* Half a step before the end of the reservation, claim the next. */
	if (off + len + RP_FILEIO_RESERVE_STEP / 2 > d->reserved) {
		rc = reserve(d, off + len + RP_FILEIO_RESERVE_STEP);
		if (rc)
			return rc;
	}
	*w = (struct rp_dst_put){
		.fd = d->fd, .off = off, .len = len, .sfr = !d->no_sfr,
		.dfd = d->align ? d->dfd : -1, .align = d->align,
		/* A whole file in one write: its final sync follows. */
		.pace = !(off == 0 && len == d->size),
	};
	return 0;
}

/* How much of w's chunk, from its start, goes out with O_DIRECT: its
 * whole units when its offset and buffer are aligned. */
static size_t direct_part(const struct rp_dst_put *w, const void *buf)
{
	if (w->dfd < 0 || w->off % w->align || (uintptr_t)buf % w->align)
		return 0;
	return w->len / w->align * w->align;
}

void rp_fileio_dst_put(struct rp_dst_put *w, const void *buf)
{
	size_t direct = direct_part(w, buf);

	w->err = direct ? pwrite_full(w->dfd, buf, direct, w->off) : 0;
	if (w->err == -EINVAL) {
		/* Refused after all: all of it through the page cache. */
		w->no_direct = true;
		direct = 0;
		w->err = 0;
	}
	/* The rest: a file's partial last unit, or all of an unaligned
	 * chunk. */
	if (!w->err && direct < w->len)
		w->err = pwrite_full(w->fd, (const char *)buf + direct,
				     w->len - direct, w->off + direct);
	if (w->err) {
		w->call = "pwrite";
		return;
	}
	/* A direct write leaves nothing in the cache to start or wait for;
	 * the final sync still walks its range and fsyncs it all. */
	if (w->pace && direct < w->len)
		w->err = put_behind(w);
}

int rp_fileio_dst_put_done(struct rp_dst *d, const struct rp_dst_put *w)
{
	if (w->no_sfr && !d->no_sfr) {
		RP_EV("file", "file.nosfr", "sync_file_range: {reason}: "
		      "fdatasync instead",
		      EV_S("reason", "not supported here"));
		d->no_sfr = true;
	}
	if (w->no_direct && d->align) {
		d->align = 0;	/* the next chunks: buffered */
		rp_fileio_dio_off(d->dio, "%s: the file system refused a "
				  "direct write (%s)", d->shown,
				  strerror(EINVAL));
	}
	if (w->err) {
		RP_ERR("%s(%s, %u bytes at %llu): %s", w->call, d->shown,
		       w->len, (unsigned long long)w->off, strerror(-w->err));
		return w->err;
	}
	if (w->off + w->len > d->end)
		d->end = w->off + w->len;
	d->fsynced = false;
	if (w->synced > d->synced)
		d->synced = w->synced;
	return 0;
}

int rp_fileio_dst_write(struct rp_dst *d, const void *buf, size_t len,
			uint64_t off)
{
	struct rp_dst_put w;
	int rc;

	if (len > UINT32_MAX) {
		RP_ERR("pwrite(%s, %zu bytes at %llu): %s", d->shown, len,
		       (unsigned long long)off, strerror(EFBIG));
		return -EFBIG;
	}
	rc = rp_fileio_dst_put_prepare(d, &w, off, (uint32_t)len);
	if (rc)
		return rc;
	rp_fileio_dst_put(&w, buf);
	return rp_fileio_dst_put_done(d, &w);
}

static int attr_failed(const struct rp_dst *d, const char *call, int e)
{
	RP_ERR("%s(%s): %s", call, d->shown, strerror(e));
	return -e;
}

/*
 * What the file keeps besides its data, set after the last write (which
 * moves the mtime) and before the fsync that makes it durable: a
 * stream's size (the reservation ran past its end), d->mode, the mtime.
 * 1 if anything changed, 0 if all was in place, or -errno (reported).
 */
static int apply_attrs(struct rp_dst *d)
{
	const struct timespec ts[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = (time_t)d->mtime_sec, .tv_nsec = d->mtime_nsec },
	};
	bool cut = false;
	bool mode_off, time_off;
	struct stat st;

	if (fstat(d->fd, &st) < 0)
		return attr_failed(d, "fstat", errno);
	if (d->size == RP_SIZE_UNKNOWN && (uint64_t)st.st_size != d->end) {
		if (ftruncate(d->fd, (off_t)d->end) < 0)
			return attr_failed(d, "ftruncate", errno);
		/* The blocks past the end are gone with it. */
		if (d->reserved != d->size)
			d->reserved = d->end;
		cut = true;	/* which moved the mtime */
	}
	mode_off = (st.st_mode & 07777) != (d->mode & 07777);
	if (mode_off && fchmod(d->fd, (mode_t)(d->mode & 07777)) < 0)
		return attr_failed(d, "fchmod", errno);
	time_off = d->set_mtime && (cut || st.st_mtim.tv_sec != ts[1].tv_sec ||
				    st.st_mtim.tv_nsec != ts[1].tv_nsec);
	if (time_off && futimens(d->fd, ts) < 0)
		return attr_failed(d, "futimens", errno);
	return cut || mode_off || time_off;
}

int rp_fileio_dst_sync(struct rp_dst *d, uint64_t step, bool *done)
{
	uint64_t n = d->end - d->synced;
	int rc;

	*done = d->fsynced;
	if (d->fsynced)
		return 0;
	if (n > step)
		n = step;
	/* A small file is synced by its fsync alone: one call, not two. */
	if (n && d->end > SMALL_FILE) {
		rc = sync_range(d, d->synced, n, SFR_WAIT);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			d->synced += n;
			return 0;
		}
	}
	rc = apply_attrs(d);
	if (rc < 0)
		return rc;
	/* The rest, and the size and block map that make it readable. */
	if (fsync(d->fd) < 0) {
		rc = -errno;
		RP_ERR("fsync(%s): %s", d->shown, strerror(-rc));
		return rc;
	}
	d->synced = d->end;
	d->fsynced = true;
	*done = true;
	return 0;
}

int rp_fileio_dst_stage(struct rp_dst *d)
{
	int rc;

	if (d->fd < 0 || d->committed) {
		RP_ERR("stage of %s: no open temporary file", d->shown);
		return RP_EINTERNAL;
	}
	rc = apply_attrs(d);
	d->staged = rc >= 0;
	return rc < 0 ? rc : 0;
}

bool rp_fileio_in_memory(int fd)
{
	struct statfs sf;

	if (getenv("RDMAPUSH_SYNC_TMPFS"))
		return false;
	return fstatfs(fd, &sf) == 0 && ((unsigned long)sf.f_type ==
					 TMPFS_MAGIC ||
					 (unsigned long)sf.f_type ==
					 RAMFS_MAGIC);
}

void rp_fileio_dst_durable(struct rp_dst *d)
{
	d->synced = d->end;
	d->fsynced = true;
}

static int appeared(const struct rp_dst *d)
{
	RP_ERR("%s: appeared while receiving; not replacing it", d->shown);
	return RP_EEXIST;
}

/* Report a failed rename-like call from the temp to the final name. */
static int rename_failed(const struct rp_dst *d, const char *call,
			 const char *from, int e)
{
	char shown[RP_PEER_TEXT_MAX];

	RP_ERR("%s(%s, %s): %s", call, rp_fileio_show(shown, from, strlen(from)),
	       d->shown, strerror(e));
	return -e;
}

/* Rename the named temp over name; without force never replace. */
static int rename_into_place(struct rp_dst *d, bool force)
{
	char shown[RP_PEER_TEXT_MAX];
	int e;

	if (force) {
		if (renameat(d->dirfd, d->tmpname, d->dirfd, d->name) == 0)
			goto renamed;
		e = errno;
		if (e == EISDIR) {
			RP_ERR("%s: a directory appeared in the way; it is "
			       "never replaced by a file", d->shown);
			return RP_EBADNAME;
		}
		return rename_failed(d, "renameat", d->tmpname, e);
	}
	if (renameat2(d->dirfd, d->tmpname, d->dirfd, d->name,
		      RENAME_NOREPLACE) == 0)
		goto renamed;
	e = errno;
	if (e == EEXIST)
		return appeared(d);
	if (e != EINVAL && e != ENOSYS)
		return rename_failed(d, "renameat2(RENAME_NOREPLACE)",
				     d->tmpname, e);
	/* No RENAME_NOREPLACE on this file system: link() never replaces. */
	if (linkat(d->dirfd, d->tmpname, d->dirfd, d->name, 0) < 0) {
		e = errno;
		if (e == EEXIST)
			return appeared(d);
		return rename_failed(d, "linkat", d->tmpname, e);
	}
	if (unlinkat(d->dirfd, d->tmpname, 0) < 0) {
		/* The file is in place; only a hidden second name remains. */
		RP_ERR("unlinkat(%s): %s",
		       rp_fileio_show(shown, d->tmpname, strlen(d->tmpname)),
		       strerror(errno));
	}
renamed:
	/* Gone from under that name: abort must never unlink it again. */
	d->tmpname[0] = '\0';
	return 0;
}

/*
 * linkat(fd, "", AT_EMPTY_PATH) names an open file directly, but only
 * for a process with CAP_DAC_READ_SEARCH (ENOENT otherwise); the path
 * through /proc/self/fd works for anyone, at the price of a lookup in
 * /proc, which was a quarter of a small file's cost to the receiver.
 * Tried first until it is refused once (Linux 6.10 and later allow it
 * for a file its caller opened).
 */
static _Atomic bool empty_path_refused;

static int link_fd(int fd, int dirfd, const char *name)
{
	char proc[32];

	/* RDMAPUSH_LINK_PROC=1: the path through /proc only (tests). */
	if (!atomic_load_explicit(&empty_path_refused, memory_order_relaxed) &&
	    !getenv("RDMAPUSH_LINK_PROC")) {
		if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOENT && errno != EPERM)
			return -1;
		atomic_store_explicit(&empty_path_refused, true,
				      memory_order_relaxed);
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
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
		if (link_fd(d->fd, d->dirfd, d->name) == 0)
			return 0;
		e = errno;
		if (e == EEXIST)
			return appeared(d);
		return rename_failed(d, "linkat", proc, e);
	}
	/*
	 * To replace, link under a hidden name, then rename over. Locked
	 * first, so that rp_fileio_clean_stale() leaves that name alone
	 * (only then is there a name to see: no lock before).
	 */
	if (flock(d->fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno;
		RP_ERR("flock(temporary file for %s): %s", d->shown,
		       strerror(e));
		return -e;
	}
	for (i = 0; i < RP_FILEIO_TMP_TRIES; i++) {
		rp_fileio_tmpname(tmp, sizeof(tmp), d->name);
		if (link_fd(d->fd, d->dirfd, tmp) == 0) {
			memcpy(d->tmpname, tmp, sizeof(d->tmpname));
			return rename_into_place(d, true);
		}
		e = errno;
		if (e != EEXIST)
			break;
	}
	return rename_failed(d, "linkat", tmp, e);
}

/* A kept partial's journal, once the file is in place or given up. */
static void drop_journal(const struct rp_dst *d)
{
	char jname[RP_NAME_MAX + 1];

	if (d->kept && !rp_partial_name(d->name, true, jname))
		(void)unlinkat(d->dirfd, jname, 0);
}

/* In place: nothing may unlink it any more; close the file. */
static void committed(struct rp_dst *d)
{
	drop_journal(d);
	d->committed = true;
	close_direct(d);
	/* The data is on disk: a late close error changes nothing. */
	if (close(d->fd) < 0)
		RP_EV("file", "file.close_failed", "close({path}): {reason}",
		      EV_S("path", d->shown), EV_S("reason", strerror(errno)));
	d->fd = -1;
}

int rp_fileio_dst_commit(struct rp_dst *d, bool force)
{
	bool done = false;
	int rc;

	if (d->fd < 0 || d->committed) {
		RP_ERR("commit of %s: no open temporary file", d->shown);
		return RP_EINTERNAL;
	}
	while (!done) {
		rc = rp_fileio_dst_sync(d, UINT64_MAX, &done);
		if (rc)
			goto err_abort;
	}
	/* Mode or mtime set after the sync finished: once more, durably
	 * (staged: they were set just before the caller's sync). */
	rc = d->staged ? 0 : apply_attrs(d);
	if (rc > 0)
		rc = fsync(d->fd) < 0 ? attr_failed(d, "fsync", errno) : 0;
	if (rc)
		goto err_abort;
	if (d->anon)
		rc = link_anon(d, force);
	else
		rc = rename_into_place(d, force);
	if (rc)
		goto err_abort;
	committed(d);
	/* The caller syncs the directory once for many files. */
	if (d->defer_dir_sync) {
		RP_EV("file", "file.commit", "{path}: fsynced and in place; "
		      "directory fsync deferred", EV_S("path", d->shown),
		      EV_B("dir_synced", false));
		return 0;
	}
	if (fsync(d->dirfd) < 0) {
		rc = -errno;
		/*
		 * Never unlink it now: with --force it has replaced the old
		 * version, and removing it would lose both. The sender is
		 * told this push failed; the file stays.
		 */
		RP_ERR("fsync(directory of %s): %s: the file is in place, but "
		       "its directory entry may not survive a crash", d->shown,
		       strerror(-rc));
		return rc;
	}
	RP_EV("file", "file.commit", "{path}: fsynced and in place",
	      EV_S("path", d->shown), EV_B("dir_synced", true));
	return 0;

err_abort:
	rp_fileio_dst_abort(d);
	return rc;
}

void rp_fileio_dst_abort(struct rp_dst *d)
{
	char shown[RP_PEER_TEXT_MAX];

	if (!d)
		return;
	if (!d->committed && d->tmpname[0] && d->dirfd >= 0 &&
	    unlinkat(d->dirfd, d->tmpname, 0) < 0 && errno != ENOENT)
		RP_ERR("unlinkat(%s): %s",
		       rp_fileio_show(shown, d->tmpname, strlen(d->tmpname)),
		       strerror(errno));
	if (!d->committed && d->tmpname[0] && d->dirfd >= 0)
		drop_journal(d);
	d->tmpname[0] = '\0';
	close_direct(d);
	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
}

int rp_fileio_dst_reader(const struct rp_dst *d, int *fd)
{
	char proc[32];
	int e;

	/* The open file itself, not a name that may be gone or swapped. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->fd);
	*fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	e = errno;
	RP_ERR("open(%s, O_RDONLY) to forward %s: %s", proc, d->shown,
	       strerror(e));
	return -e;
}
