/* SPDX-License-Identifier: MIT */
/* Internal to fileio: what the names and temporaries (fileio.c) share
 * with the destination file (fileio_dst.c). */
#ifndef RDMAPUSH_FILEIO_INT_H
#define RDMAPUSH_FILEIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdmapush/fileio.h"
#include "rdmapush/trace.h"

/* rp_fileio_open_parent(), but a path of one component gets dirfd
 * itself in *parentfd: the caller closes it only if it is not dirfd. */
int rp_fileio_parent_of(int dirfd, const char *path, int *parentfd,
			const char **leaf) __attribute__((warn_unused_result));

/* Attempts at a fresh random temporary name before giving up. */
#define RP_FILEIO_TMP_TRIES	64

/* name (len bytes, not NUL-terminated) escaped for a message into out,
 * which holds RP_PEER_TEXT_MAX bytes. */
const char *rp_fileio_show(char *out, const char *name, size_t len);
/* "a directory", "a regular file", ... for a message. */
const char *rp_fileio_kind(mode_t m);
/* A fresh hidden temp name ".<name>.rdmapush-XXXXXX" for name into out,
 * at most RP_NAME_MAX bytes. */
void rp_fileio_tmpname(char *out, size_t outlen, const char *name);
/* Create a fresh hidden temp of name in dirfd, its name into tmp: the fd,
 * or -errno (not reported). */
int rp_fileio_create_tmp(int dirfd, const char *name, char *tmp, size_t len);
/* Whether name (len bytes) has our hidden temporaries' pattern,
 * ".<name>.rdmapush-XXXXXX". */
bool rp_fileio_is_tmp_name(const char *name, size_t len);
/* Whether fd is the file dirfd holds under name (not a replacement). */
bool rp_fileio_same_entry(int dirfd, int fd, const char *name);
/* --direct is off for the rest of the session: the note (once) says
 * why, "--direct: <fmt>; the rest ... goes through the page cache". */
void rp_fileio_dio_off(struct rp_dio *dio, const char *fmt, ...)
	RP_PRINTF(2, 3);
/* O_DIRECT off on fd's open file (every thread's reads of it): 0, or
 * -1 with errno set. */
int rp_fileio_direct_off(int fd);

#endif
