/* SPDX-License-Identifier: MIT */
/*
 * What a receiver keeps of a file whose push stopped mid-way, so that the
 * next push of it with --resume sends only the rest.
 *
 * Beside the target NAME, in its directory, two hidden files under the
 * reserved pattern (a sender can never name them; rp_fileio_check_name):
 *   .NAME.rdmapush-partial   the bytes received, mode 0600
 *   .NAME.rdmapush-journal   what they are: the path, the source's size,
 *                            mtime and mode as FILE announced them, the
 *                            chunk size, the verified length and its
 *                            folded digest, and a digest of the key
 * The journal is written after the partial's data is on disk and carries
 * its own checksum, so a torn or foreign journal is never believed. The
 * verified prefix is hashed again from the disk before it is offered: the
 * journal says what to expect, the bytes say whether it is there.
 */
#ifndef RDMAPUSH_PARTIAL_H
#define RDMAPUSH_PARTIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/csum.h"
#include "rdmapush/limits.h"

#define RP_PARTIAL_SUFFIX	".rdmapush-partial"
#define RP_JOURNAL_SUFFIX	".rdmapush-journal"
#define RP_PARTIAL_KEY_LEN	32	/* the key's id (auth.h), or zeros */

struct rp_journal {
	char path[RP_PATH_MAX + 1];	/* as the sender named it */
	uint64_t size;			/* the source's, from FILE */
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint32_t mode;
	uint32_t chunk;			/* the session's chunk */
	uint64_t verified;		/* bytes from 0, a multiple of chunk */
	uint8_t digest[RP_CSUM_LEN];	/* their chunks' digests, folded */
	uint8_t key_id[RP_PARTIAL_KEY_LEN];
};

/* Whether name (len bytes) is a partial's or a journal's name. */
bool rp_partial_is_name(const char *name, size_t len);
/* The partial's (journal false) or journal's name for target name into
 * out (RP_NAME_MAX + 1 bytes): 0, or RP_EBADNAME when it would be too
 * long (such a file keeps no partial). */
int rp_partial_name(const char *name, bool journal, char *out);

/*
 * Keep the temporary file fd (its data written and verified up to
 * j->verified) as name's partial in dirfd: fsync it, write the journal,
 * give the file the partial's name (tmpname: its current name, or ""
 * for an O_TMPFILE), fsync the directory. An older partial of name is
 * replaced. 0 or an error (reported); on error nothing half-kept stays
 * (the journal is removed). fd stays the caller's.
 */
int rp_partial_keep(int dirfd, const char *name, const char *tmpname, int fd,
		    const struct rp_journal *j)
	__attribute__((warn_unused_result));

/* Write (or replace) name's journal j in dirfd, durably, while its
 * partial is being written: what a receiver killed outright leaves.
 * 0 or an error (reported). */
int rp_partial_note(int dirfd, const char *name, const struct rp_journal *j)
	__attribute__((warn_unused_result));

/*
 * name's partial in dirfd, if one is kept: 1 with *j its journal and *fd
 * the partial opened read-write (the caller closes it), 0 when there is
 * none, a receiver is writing it now, or it is unusable (a torn journal, a partial shorter than the
 * journal says: both then removed, said once), or an error (reported).
 */
int rp_partial_find(int dirfd, const char *name, struct rp_journal *j,
		    int *fd) __attribute__((warn_unused_result));

/*
 * fd's first n bytes hashed as a push hashes a file (csum.h): each
 * chunk's digest (the last may be short) folded into out, and also into
 * fold (may be NULL). A kept prefix's must be what the sender's own
 * prefix folds to. what names fd in messages. 0 or an error (reported;
 * -EIO when the file is shorter than n).
 */
struct rp_csum;
int rp_partial_digest(int fd, uint64_t n, uint32_t chunk, const char *what,
		      struct rp_csum *fold, uint8_t out[RP_CSUM_LEN])
	__attribute__((warn_unused_result));

/* Forget name's partial in dirfd: both files removed (missing is fine). */
void rp_partial_drop(int dirfd, const char *name);

/* Whether a partial of this age (seconds since its journal was written)
 * is past max_age (0: never kept, always past). */
bool rp_partial_expired(double age, double max_age);

#endif
