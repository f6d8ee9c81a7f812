/* SPDX-License-Identifier: MIT */
/*
 * Files: the sender's source, the receiver's destination. The receiver
 * writes into an anonymous (O_TMPFILE) or hidden temporary file inside the
 * target directory, reserving space a step ahead of what it has written
 * and starting writeback as it goes, and only a verified, fsynced file is
 * renamed to its final name; every failure before the rename removes the
 * temporary file. Names are plain names only, opened relative to the
 * directory without following links.
 */
#ifndef RDMAPUSH_FILEIO_H
#define RDMAPUSH_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/limits.h"
#include "rdmapush/proto.h"
#include "rdmapush/trace.h"

/*
 * Space is reserved (fallocate) this far ahead of the highest byte
 * written, never all at once: a HELLO that declares a huge size and then
 * sends nothing holds at most this much of the disk.
 */
#define RP_FILEIO_RESERVE_STEP	(64ull << 20)

/*
 * Written data allowed to sit in the page cache before the receiver waits
 * for the disk: this paces the data phase by the disk rather than the
 * network, so the final fsync after FIN has at most this much to do
 * (a fraction of a second on any disk), while still letting the kernel
 * merge writes into large requests.
 */
#define RP_FILEIO_WB_LAG	(32ull << 20)

/*
 * 0 if name (len bytes, not necessarily NUL-terminated) is a plain file
 * name: 1..255 bytes, not "." or "..", no '/', NUL or control characters
 * (bytes < 0x20 and 0x7f), and not of our hidden temporary pattern
 * (".<anything>.rdmapush-" and 6 letters or digits), which belongs to
 * transfers in progress. Else RP_EBADNAME and *why says which rule.
 */
int rp_fileio_check_name(const char *name, size_t len, const char **why);

/*
 * 0 if path (len bytes, not necessarily NUL-terminated) is a relative path
 * of a session: 1..RP_PATH_MAX bytes, no leading '/', no empty component
 * ("a//b", a trailing '/'), no "." or ".." component, and every
 * '/'-separated component passes rp_fileio_check_name(). Else RP_EBADNAME
 * and *why (static text, if why is not NULL) says which rule, e.g.
 * "absolute path", "empty path component", "\"..\" component".
 */
int rp_fileio_check_path(const char *path, size_t len, const char **why);

/*
 * Open the directory holding path's last component, relative to dirfd,
 * one component at a time with O_DIRECTORY|O_NOFOLLOW, closing each
 * previous one: nothing is created and no symlink is followed. path
 * (NUL-terminated) is checked with rp_fileio_check_path() first. On 0,
 * *parentfd is a new descriptor the caller closes (never dirfd itself,
 * even for a one-component path) and *leaf points at the last component
 * inside path. Else *parentfd is -1 and the error was reported naming the
 * path and the failing call: RP_EBADNAME, -ENOENT (a missing directory),
 * -ELOOP (a symlink) or -ENOTDIR (not a directory), or another -errno.
 */
int rp_fileio_open_parent(int dirfd, const char *path, int *parentfd,
			  const char **leaf) __attribute__((warn_unused_result));

/*
 * Create directory path under dirfd with mode (the umask applies), its
 * parent opened as rp_fileio_open_parent() does, or accept an existing
 * real directory there (*created false; its mode is left alone). An
 * existing symlink is refused (-ELOOP, even to a directory), any other
 * existing entry too (RP_EBADNAME: never replaced). If exact, the NEW
 * directory gets mode & 07777 exactly (fchmod, no umask). Once created,
 * the parent's new entry is fsynced at once if dirty_parent is NULL;
 * otherwise the caller keeps the parent's descriptor in *dirty_parent (-1
 * to start with) and later calls rp_fileio_dir_sync() on it and closes
 * it. If *dirty_parent already holds the same directory, it is kept (a
 * run of mkdirs in one parent costs one fsync); a different one is
 * fsynced, closed and replaced. 0 or an error, reported.
 */
int rp_fileio_mkdir(int dirfd, const char *path, uint32_t mode, bool exact,
		    bool *created, int *dirty_parent)
	__attribute__((warn_unused_result));
/*
 * rp_fileio_mkdir() in a parent already open: leaf in pfd (borrowed),
 * path naming it in messages. The parent's new entry (*created) is the
 * caller's to fsync. 0 or an error, reported.
 */
int rp_fileio_mkdir_at(int pfd, const char *leaf, const char *path,
		       uint32_t mode, bool exact, bool *created)
	__attribute__((warn_unused_result));

/*
 * Set the mtime of directory path under dirfd (once its contents are
 * written: each entry made in it changes it), the directory opened with
 * O_DIRECTORY|O_NOFOLLOW under a parent opened as rp_fileio_open_parent()
 * does. The atime is left alone. 0 or an error (reported).
 */
int rp_fileio_dir_times(int dirfd, const char *path, int64_t sec,
			uint32_t nsec) __attribute__((warn_unused_result));

/*
 * The directories a session met, by path: those it made itself (mkdir:
 * nothing in them predates the session, so a file arriving there needs no
 * look for one of its name), and those whose times wait until their
 * contents are in (--preserve), set innermost first (the reverse order:
 * a directory comes before anything inside it). Each path once (a DIR
 * sent again only updates its times), and at most RP_DIR_TIMES_MAX of
 * them per session: a peer cannot grow it by repeating itself; past it,
 * a directory is taken as not made by us and its times are not kept.
 * Zero-initialised is empty.
 */
#define RP_DIR_TIMES_MAX	65536
struct rp_dir_time {
	char *path;
	int64_t sec;
	uint32_t nsec;
	bool timed;		/* sec, nsec are to be set */
	bool made;		/* the session made it */
};
struct rp_dir_times {
	struct rp_dir_time *v;
	size_t n, cap;
	size_t *slot;		/* hash of the paths: 1 + index in v, 0: free */
	size_t nslot;		/* a power of 2 above 2 * n, or 0 */
	bool full;		/* RP_DIR_TIMES_MAX reached (said once) */
};
/* Remember path's times (once per path; past RP_DIR_TIMES_MAX paths, the
 * new ones' times are not kept, said once). 0 or -ENOMEM (reported). */
int rp_fileio_times_add(struct rp_dir_times *t, const char *path,
			int64_t sec, uint32_t nsec)
	__attribute__((warn_unused_result));
/* Remember that the session made path. 0 or -ENOMEM (reported). */
int rp_fileio_made_add(struct rp_dir_times *t, const char *path)
	__attribute__((warn_unused_result));
/* Whether the session made path (as remembered). */
bool rp_fileio_made(const struct rp_dir_times *t, const char *path);
/* rp_fileio_dir_times() on each with times, innermost first, up to the
 * first failure. 0 or that error (reported). */
int rp_fileio_times_apply(const struct rp_dir_times *t, int dirfd)
	__attribute__((warn_unused_result));
void rp_fileio_times_free(struct rp_dir_times *t);

/* fsync the directory fd; shown (already escaped) names it in the error
 * message "fsync(directory <shown>)". 0 or -errno (reported). */
int rp_fileio_dir_sync(int fd, const char *shown)
	__attribute__((warn_unused_result));

/* Last path component of path, for the default remote name. */
const char *rp_fileio_basename(const char *path);

/*
 * --direct for one session, on this side's own disk: file data moves
 * with O_DIRECT, past the page cache, where the file system takes it.
 * Never an error: where it cannot, one note (RP_INFO) says why and the
 * rest of the session goes through the page cache.
 */
struct rp_dio {
	bool on;		/* --direct, and nothing has ruled it out */
	bool noted;		/* the note was given */
	uint32_t chunk;		/* the session's: file offsets step by it */
};
/*
 * Start a session of chunk-byte chunks; want is --direct. A chunk that is
 * not a multiple of the page size (the ring's slots and the workers'
 * buffers are page-aligned, so theirs would not be) rules it out, with
 * the note.
 */
void rp_fileio_dio_init(struct rp_dio *dio, bool want, uint32_t chunk);

struct rp_src {
	int fd;
	uint64_t size;
	uint32_t align;		/* O_DIRECT unit (rp_fileio_src_direct), or 0 */
	/* The opened file's (fstat), which is what is sent: the walk's
	 * lstat may be out of date. mode is st_mode & 07777. */
	uint32_t mode;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
};
/*
 * Open a regular file for reading; a symlink as its last component is
 * not followed. 0, -errno, or RP_ENOTREG (reported).
 */
int rp_fileio_src_open(struct rp_src *s, const char *path)
	__attribute__((warn_unused_result));
/*
 * The same for rel, a relative path beneath the directory dirfd: every
 * directory on the way is opened as rp_fileio_open_parent() does, so a
 * symlink anywhere below dirfd is refused (-ELOOP, reported), never
 * followed. path names the file in messages (the local path).
 */
int rp_fileio_src_open_at(struct rp_src *s, int dirfd, const char *rel,
			  const char *path) __attribute__((warn_unused_result));
/*
 * With dio->on, read s's file (a regular file, never standard input) with
 * O_DIRECT from now on, s->align its unit; where the file system refuses
 * it or the chunk does not fit its unit, the note, and dio is off for the
 * rest of the session. Never fails.
 */
void rp_fileio_src_direct(struct rp_src *s, const char *path,
			  struct rp_dio *dio);
/* Read exactly len bytes at off (with s->align, as rp_fileio_src_pread()
 * says). 0, -errno, or -EIO if the file shrank. */
int rp_fileio_src_read(struct rp_src *s, void *buf, size_t len, uint64_t off)
	__attribute__((warn_unused_result));
/*
 * The same from any thread, reporting nothing: 0, -errno, -EFBIG (offset
 * too large) or -ENODATA (the file shrank). The owner reports it with
 * rp_fileio_src_failed(), which returns the error to go on with. align is
 * the source's (0: buffered); with O_DIRECT, off and buf are multiples of
 * it and buf has room for len rounded up to it: the file's tail is read
 * as whole units, which stop short at its end. A read the file system
 * refuses after all (EINVAL) turns O_DIRECT off on fd and goes on.
 */
int rp_fileio_src_pread(int fd, void *buf, size_t len, uint64_t off,
			uint32_t align) __attribute__((warn_unused_result));
int rp_fileio_src_failed(int rc, size_t len, uint64_t off);
void rp_fileio_src_close(struct rp_src *s);

/* Open the destination directory (O_DIRECTORY). 0 or -errno (reported). */
int rp_fileio_dir_open(const char *path, int *dirfd)
	__attribute__((warn_unused_result));
/*
 * Prove that files can be created in dirfd by creating and removing a
 * hidden temporary file. 0 or -errno, reported naming path (the
 * directory as the user gave it).
 */
int rp_fileio_dir_probe(int dirfd, const char *path)
	__attribute__((warn_unused_result));
/*
 * Remove the hidden temporaries of our pattern in dirfd and the
 * directories below it that no live receiver holds (each in use is
 * flock()ed by its receiver): what a crashed receiver left behind. Never
 * through a symbolic link; 64 levels and 2^18 entries at most (past
 * them, said once). Each removal is reported (RP_INFO). Kept partials
 * and journals (partial.h) go too when older than partial_max_age
 * seconds (by their last change; 0: whatever their age).
 * Returns how many were removed; failures are reported and skipped.
 */
int rp_fileio_clean_stale(int dirfd, double partial_max_age);

struct rp_dst {
	int dirfd;		/* borrowed */
	int fd;
	/* --direct (rp_fileio_dst_direct): the same file opened again with
	 * O_DIRECT for the aligned writes, or -1; its unit; the session's
	 * state (borrowed), to turn it off if a write is refused. */
	int dfd;
	uint32_t align;
	struct rp_dio *dio;
	bool anon;		/* O_TMPFILE: nothing to unlink on abort */
	bool kept;		/* under the partial's name (partial.h) */
	bool committed;
	bool no_sfr;		/* no sync_file_range here: fdatasync */
	bool fsynced;		/* everything written is on disk */
	bool staged;		/* rp_fileio_dst_stage() set its attributes */
	uint64_t size;		/* declared size, or RP_SIZE_UNKNOWN */
	uint64_t reserved;	/* bytes from 0 claimed with fallocate */
	uint64_t end;		/* highest byte written, + 1 */
	uint64_t wb_started;	/* writeback started up to here */
	uint64_t synced;	/* on disk up to here */
	char name[RP_NAME_MAX + 1];
	char shown[RP_PEER_TEXT_MAX];	/* name, escaped for messages */
	char tmpname[RP_NAME_MAX + 32];
	/*
	 * Set by the caller between open and commit. mode: the final
	 * permission bits, applied exactly (mode & 07777, so setuid, setgid
	 * and sticky too: masking them is the caller's choice) before the
	 * file gets its name; open sets 0644, what a file always got before
	 * mode existed. set_mtime: the file's mtime becomes mtime_sec/nsec
	 * (nsec < 1e9) after its last write. defer_dir_sync: commit does
	 * not fsync the directory; the caller does, with
	 * rp_fileio_dir_sync(), once for many files.
	 */
	uint32_t mode;
	bool set_mtime;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	bool defer_dir_sync;
};

/*
 * Put d in the closed state (fd = dirfd = -1), so that
 * rp_fileio_dst_abort() on it is a no-op. rp_fileio_dst_open() does this
 * itself; call it only if abort may run before open (a teardown ladder).
 */
void rp_fileio_dst_init(struct rp_dst *d);

/*
 * Check name, refuse an existing file or symlink unless force (RP_EEXIST;
 * a symlink is replaced, never followed) and anything else there even so
 * (a directory: RP_EBADNAME, never replaced), refuse sizes above the free
 * space of the directory's file system (RP_ENOSPACE; not checked for
 * RP_SIZE_UNKNOWN, a stream's), then create the temporary file, mode 0600
 * while it is written (a named one is flock()ed while it exists) and
 * reserve its first RP_FILEIO_RESERVE_STEP bytes. 0 or an error
 * (reported); on error nothing is left behind and d is closed. d must not
 * hold an open file. RDMAPUSH_NO_TMPFILE=1 in the environment skips
 * O_TMPFILE, and RDMAPUSH_NO_FALLOCATE=1 reserves nothing (for tests).
 */
int rp_fileio_dst_open(struct rp_dst *d, int dirfd, const char *name,
		       uint64_t size, bool force)
	__attribute__((warn_unused_result));
/*
 * The same for an entry of a tree: name in dirfd is path's last
 * component, and messages name it by path (its path in the target
 * directory; NULL: by name).
 */
int rp_fileio_dst_open_at(struct rp_dst *d, int dirfd, const char *name,
			  const char *path, uint64_t size, bool force)
	__attribute__((warn_unused_result));
/*
 * rp_fileio_dst_open_at(), the file made with mode, the caller's d->mode
 * to come, when it can be (an O_TMPFILE, no setuid, setgid or sticky
 * bit; the umask still applies): then the commit has no mode to change.
 * A named temporary file is made 0600 whatever mode is. With made (the
 * caller made dirfd in this session, so nothing in it predates the
 * session), name is not looked up first: a file of that name can only
 * have appeared meanwhile, and the commit says so.
 */
int rp_fileio_dst_open_as(struct rp_dst *d, int dirfd, const char *name,
			  const char *path, uint64_t size, bool force,
			  uint32_t mode, bool made)
	__attribute__((warn_unused_result));
/*
 * As rp_fileio_dst_open_at(), but the temporary file is written under
 * name's partial's name from the start (partial.h), so that a receiver
 * killed outright leaves what it wrote (described by the journal the
 * caller writes as it goes, rp_partial_note()). Committed, the journal
 * goes; failed, both go. Where the partial's name is held by another
 * receiver or too long, an ordinary temporary file.
 */
int rp_fileio_dst_open_kept(struct rp_dst *d, int dirfd, const char *name,
			    const char *path, uint64_t size, bool force)
	__attribute__((warn_unused_result));
/*
 * As rp_fileio_dst_open_kept(), but d continues the kept partial fd
 * (rp_partial_find(), owned from here on, closed on failure) from byte
 * from: it stays under its name, locked against any other receiver,
 * loses anything past from, and only size - from more bytes need the
 * space.
 */
int rp_fileio_dst_adopt(struct rp_dst *d, int dirfd, const char *name,
			const char *path, uint64_t size, bool force, int fd,
			uint64_t from) __attribute__((warn_unused_result));
/*
 * With dio->on, write d's data with O_DIRECT from now on where offset,
 * length and buffer are aligned to the file system's unit (every chunk but
 * a file's tail, whose last partial unit goes through the page cache);
 * where the file system refuses it or the chunk does not fit its unit,
 * the note, and dio is off for the rest of the session. Call after open;
 * never fails. RDMAPUSH_NO_DIRECT=1 in the environment acts as a file
 * system that refuses O_DIRECT, on both sides (for tests).
 */
void rp_fileio_dst_direct(struct rp_dst *d, struct rp_dio *dio);
/*
 * Write exactly len bytes at off, reserving the next step of space first
 * when the write comes near the end of what is reserved, then start
 * writeback of the range and wait for ranges more than RP_FILEIO_WB_LAG
 * behind (fdatasync every RP_FILEIO_WB_LAG bytes where sync_file_range is
 * not supported). 0 or -errno (ENOSPC...), reported.
 */
int rp_fileio_dst_write(struct rp_dst *d, const void *buf, size_t len,
			uint64_t off) __attribute__((warn_unused_result));
/*
 * One chunk's write, for a worker thread. It carries copies of what the
 * write needs and touches no rp_dst, so chunks of one file can be written
 * from several threads at once: prepared (space reserved) on the thread
 * that owns the rp_dst, run anywhere, then accounted on the owner's
 * thread in the file's order, which is also where a failure is reported
 * (a worker reports nothing: see rp_job in pool.h).
 */
struct rp_dst_put {
	int fd;
	int dfd;		/* O_DIRECT, or -1 */
	uint32_t align;		/* dfd's unit */
	uint64_t off;
	uint32_t len;
	bool pace;		/* write-behind (not for a whole file at once) */
	bool sfr;		/* sync_file_range works here, as far as known */
	/* results */
	int err;		/* 0 or -errno */
	const char *call;	/* what failed: "pwrite", "fdatasync", ... */
	uint64_t synced;	/* its write-behind waited up to here */
	bool no_sfr;		/* it found sync_file_range unsupported */
	bool no_direct;		/* the file system refused its direct write */
};
/* Reserve space as rp_fileio_dst_write() does and fill w. 0 or an error
 * (reported). */
int rp_fileio_dst_put_prepare(struct rp_dst *d, struct rp_dst_put *w,
			      uint64_t off, uint32_t len)
	__attribute__((warn_unused_result));
/* Write buf and pace the writeback, as rp_fileio_dst_write(); results in
 * w. Thread-safe for distinct w. */
void rp_fileio_dst_put(struct rp_dst_put *w, const void *buf);
/* After w ran, and all puts before it in the file: account it, or report
 * its failure. 0 or w->err. */
int rp_fileio_dst_put_done(struct rp_dst *d, const struct rp_dst_put *w)
	__attribute__((warn_unused_result));
/*
 * One step of the final sync: wait for up to step more bytes of what was
 * written to reach the disk and return 0 with *done false; once all have,
 * give the file its size (a stream's: what was written), d->mode and
 * mtime, fsync it (size and metadata) and return 0 with *done true. d->
 * synced says how far it got. 0 or -errno (reported).
 */
int rp_fileio_dst_sync(struct rp_dst *d, uint64_t step, bool *done)
	__attribute__((warn_unused_result));
/*
 * fsync the file (unless rp_fileio_dst_sync() finished; if mode or mtime
 * changed since, they are applied and fsynced again), give it its final
 * name (atomically; without force the rename does not replace a file
 * that appeared meanwhile), fsync the directory unless defer_dir_sync. 0 or an error
 * (reported). An error before the rename leaves nothing behind; if the
 * directory fsync fails, the file stays in place under its name (it may
 * have replaced the old one: removing it would lose both) and the error
 * says its entry may not survive a crash.
 */
int rp_fileio_dst_commit(struct rp_dst *d, bool force)
	__attribute__((warn_unused_result));
/* Remove the temporary file and close; safe to call twice or after commit. */
void rp_fileio_dst_abort(struct rp_dst *d);
/*
 * A new descriptor reading d's file, whatever its name (an O_TMPFILE has
 * none), for a relay that forwards it as it is written: into *fd. 0 or
 * -errno (reported).
 */
int rp_fileio_dst_reader(const struct rp_dst *d, int *fd)
	__attribute__((warn_unused_result));

/*
 * Group commit: many small files made durable by one syncfs(2) of the
 * caller's rather than an fsync each. rp_fileio_dst_stage() gives a
 * fully written file its size, mode and mtime (as the final sync would)
 * without syncing it: 0 or -errno (reported). After the caller's sync,
 * rp_fileio_dst_durable() tells d that it covered it, so that
 * rp_fileio_dst_commit() only links it into place. A file must be
 * durable before it gets its name: a crash never leaves a name on
 * missing data.
 */
int rp_fileio_dst_stage(struct rp_dst *d) __attribute__((warn_unused_result));
void rp_fileio_dst_durable(struct rp_dst *d);
/* fd is on a file system in memory (tmpfs, ramfs): a sync of it has
 * nothing to wait for. False when fstatfs fails, and with
 * RDMAPUSH_SYNC_TMPFS=1 in the environment (tests on a tmpfs /tmp). */
bool rp_fileio_in_memory(int fd);

/*
 * The directory a session's entries arrive in now, opened once for all of
 * them and fsynced once when they move on: entries come directory by
 * directory. fd -1 when none; sync_err keeps the first failed fsync for
 * the session's end (the entries it concerns are answered already, and
 * the ACK must not say they are safe).
 */
struct rp_dir_here {
	int fd;
	char *path;		/* relative to DIR */
	bool dirty;		/* it has new entries */
	int sync_err;
};
/* Leave it: fsync it first if it is dirty. */
void rp_fileio_here_leave(struct rp_dir_here *h);
/* Leave it for to (empty) to sync later, once names still to come are
 * in it: to is dirty; h is in none, its sync_err kept. */
void rp_fileio_here_move(struct rp_dir_here *h, struct rp_dir_here *to);
/* Whether path's directory is the one h is in (so going to it leaves
 * nothing). */
bool rp_fileio_here_is(const struct rp_dir_here *h, const char *path);
/* Be in fd (owned from here on), path's directory; dirty: it has a new
 * entry. 0 or -ENOMEM. */
int rp_fileio_here_settle(struct rp_dir_here *h, int fd, const char *path,
			  bool dirty) __attribute__((warn_unused_result));
/* The directory holding path under dirfd, into *fd (borrowed), and its
 * last component; opened one level at a time as rp_fileio_open_parent(). */
int rp_fileio_here_go_to(struct rp_dir_here *h, int dirfd, const char *path,
			 int *fd, const char **leaf)
	__attribute__((warn_unused_result));

#endif
