/* SPDX-License-Identifier: MIT */
/*
 * Files: the sender's source, the receiver's destination. The receiver
 * writes into an anonymous (O_TMPFILE) or hidden temporary file inside the
 * target directory, and only a verified, fsynced file is renamed to its
 * final name; every failure removes the temporary file. Names are plain
 * names only, opened relative to the directory without following links.
 */
#ifndef RDMAPUSH_FILEIO_H
#define RDMAPUSH_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/proto.h"

/*
 * 0 if name (len bytes, not necessarily NUL-terminated) is a plain file
 * name: 1..255 bytes, not "." or "..", no '/', NUL or control characters
 * (bytes < 0x20 and 0x7f). Else RP_EBADNAME and *why says which rule.
 */
int rp_fileio_check_name(const char *name, size_t len, const char **why);

/* Last path component of path, for the default remote name. */
const char *rp_fileio_basename(const char *path);

struct rp_src {
	int fd;
	uint64_t size;
};
/* Open a regular file for reading. 0, -errno, or RP_ENOTREG (reported). */
int rp_fileio_src_open(struct rp_src *s, const char *path)
	__attribute__((warn_unused_result));
/* Read exactly len bytes at off. 0, -errno, or -EIO if the file shrank. */
int rp_fileio_src_read(struct rp_src *s, void *buf, size_t len, uint64_t off)
	__attribute__((warn_unused_result));
void rp_fileio_src_close(struct rp_src *s);

/* Open the destination directory (O_DIRECTORY). 0 or -errno (reported). */
int rp_fileio_dir_open(const char *path, int *dirfd)
	__attribute__((warn_unused_result));

struct rp_dst {
	int dirfd;		/* borrowed */
	int fd;
	bool anon;		/* O_TMPFILE: nothing to unlink on abort */
	bool committed;
	char name[RP_NAME_MAX + 1];
	char tmpname[RP_NAME_MAX + 32];
};

/*
 * Put d in the closed state (fd = dirfd = -1), so that
 * rp_fileio_dst_abort() on it is a no-op. rp_fileio_dst_open() does this
 * itself; call it only if abort may run before open (a teardown ladder).
 */
void rp_fileio_dst_init(struct rp_dst *d);

/*
 * Check name, refuse an existing entry unless force (RP_EEXIST; never
 * replace a directory or follow a symlink), refuse sizes above the free
 * space of the directory's file system (RP_ENOSPACE), then create the
 * temporary file and size it. 0 or an error (reported); on error nothing
 * is left behind and d is closed. d must not hold an open file.
 * RDMAPUSH_NO_TMPFILE=1 in the environment skips O_TMPFILE (for tests).
 */
int rp_fileio_dst_open(struct rp_dst *d, int dirfd, const char *name,
		       uint64_t size, bool force)
	__attribute__((warn_unused_result));
/* Write exactly len bytes at off. 0 or -errno (ENOSPC...), reported. */
int rp_fileio_dst_write(struct rp_dst *d, const void *buf, size_t len,
			uint64_t off) __attribute__((warn_unused_result));
/*
 * fsync the file, give it its final name (atomically; without force the
 * rename does not replace a file that appeared meanwhile), fsync the
 * directory. 0 or an error (reported); on error nothing is left behind.
 */
int rp_fileio_dst_commit(struct rp_dst *d, bool force)
	__attribute__((warn_unused_result));
/* Remove the temporary file and close; safe to call twice or after commit. */
void rp_fileio_dst_abort(struct rp_dst *d);

#endif
