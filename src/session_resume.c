// SPDX-License-Identifier: MIT
/* Interrupted and repeated pushes, per file (session_int.h): the
 * receiver's --update verdict and the partial it offers and keeps; the
 * sender's check of its own prefix against the receiver's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/csum.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/* The existing file's digest, at the session's chunk, against FILE's. */
static int same_digest(int pfd, const char *leaf, const struct rp_file *f,
		       uint32_t chunk, bool *same)
{
	char shown[RP_PEER_TEXT_MAX];
	uint8_t d[RP_CSUM_LEN];
	int fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);
	int rc;

	rp_fmt_peer(shown, sizeof(shown), f->path, f->path_len);
	if (fd < 0) {
		rc = -errno;
		RP_ERR("openat(%s) to compare it: %s", shown, strerror(-rc));
		return rc;
	}
	rc = rp_partial_digest(fd, f->size, chunk, shown, NULL, d);
	close(fd);
	*same = !rc && !memcmp(d, f->csum, RP_CSUM_LEN);
	return rc;
}

int rp_recv_up_to_date(int pfd, const char *leaf, const struct rp_file *f,
		       uint32_t chunk, bool *up, bool *regular)
{
	char shown[RP_PEER_TEXT_MAX];
	struct stat st;
	bool size_ok;

	*up = *regular = false;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		RP_ERR("fstatat(%s): %s", rp_fmt_peer(shown, sizeof(shown),
		       f->path, f->path_len), strerror(e));
		return -e;
	}
	/* Only a regular file can be up to date, or replaced by --update;
	 * anything else in the way is refused as it always was. */
	if (!S_ISREG(st.st_mode))
		return 0;
	*regular = true;
	size_ok = (uint64_t)st.st_size == f->size;
	switch (f->update) {
	case RP_UPDATE_EXISTS:
		*up = true;
		return 0;
	case RP_UPDATE_SIZE:
		*up = size_ok;
		return 0;
	case RP_UPDATE_MTIME:
		*up = size_ok && st.st_mtim.tv_sec == f->mtime_sec &&
		      (uint32_t)st.st_mtim.tv_nsec == f->mtime_nsec;
		return 0;
	case RP_UPDATE_CHECKSUM:
		return size_ok ? same_digest(pfd, leaf, f, chunk, up) : 0;
	}
	return 0;
}

/* Whether journal j was kept for this very source and key: else it is
 * another version of the file (or another sender's), said once. */
static bool same_source(const struct rp_journal *j, const struct rp_file *f,
			const uint8_t key_id[RP_PARTIAL_KEY_LEN])
{
	const char *why = NULL;
	char shown[RP_PEER_TEXT_MAX];

	if (strcmp(j->path, f->path))
		why = "for another path";
	else if (j->size != f->size || j->mtime_sec != f->mtime_sec ||
		 j->mtime_nsec != f->mtime_nsec || j->mode != f->mode)
		why = "of another version of the file (size, mtime or mode)";
	else if (memcmp(j->key_id, key_id, RP_PARTIAL_KEY_LEN))
		why = "from a push with another key";
	if (!why)
		return true;
	RP_INFO("%s: the kept partial is %s; starting over",
		rp_fmt_peer(shown, sizeof(shown), f->path, f->path_len), why);
	return false;
}

int rp_recv_offer_partial(int pfd, const char *leaf, const struct rp_file *f,
			  uint32_t chunk,
			  const uint8_t key_id[RP_PARTIAL_KEY_LEN],
			  struct rp_have *h, int *fd, struct rp_csum **prefix)
{
	static const uint8_t zero[RP_CSUM_LEN];
	char shown[RP_PEER_TEXT_MAX];
	struct rp_journal j;
	uint64_t n;
	int rc = rp_partial_find(pfd, leaf, &j, fd);

	if (rc <= 0)
		return rc;
	/* A new chunk size: the whole chunks of the old prefix still are. */
	n = j.verified / chunk * chunk;
	if (!same_source(&j, f, key_id) || !n || n > f->size)
		goto drop;
	rc = rp_csum_new(prefix);
	if (!rc)
		rc = rp_partial_digest(*fd, n, chunk, "a kept partial", *prefix,
				       h->csum);
	if (rc)
		goto drop;
	/* Written as the journal says: else the disk lost some of it. */
	if (j.chunk == chunk && n == j.verified &&
	    memcmp(j.digest, zero, RP_CSUM_LEN) &&
	    memcmp(j.digest, h->csum, RP_CSUM_LEN)) {
		RP_INFO("%s: the kept partial does not match its journal; "
			"starting over", rp_fmt_peer(shown, sizeof(shown),
						     f->path, f->path_len));
		goto drop;
	}
	h->verdict = RP_HAVE_PARTIAL;
	h->bytes = n;
	RP_EV("file", "file.offer", "{path}: offering {bytes} verified bytes "
	      "kept from an earlier push",
	      EV_S("path", rp_fmt_peer(shown, sizeof(shown), f->path,
				       f->path_len)),
	      EV_U("bytes", n));
	return 0;

drop:
	rp_csum_free(*prefix);
	*prefix = NULL;
	memset(h->csum, 0, RP_CSUM_LEN);
	close(*fd);
	*fd = -1;
	rp_partial_drop(pfd, leaf);
	return 0;
}

/* The journal of f's first verified bytes (whole chunks), of which
 * folded were folded into csum: its digest when that is exactly what is
 * kept, else zeros (the prefix is hashed again from the disk anyway). */
static void journal_of(struct rp_journal *j, const struct rp_file *f,
		       uint32_t chunk, uint64_t verified, uint64_t folded,
		       struct rp_csum *csum, const uint8_t *key_id)
{
	*j = (struct rp_journal){
		.size = f->size, .mtime_sec = f->mtime_sec,
		.mtime_nsec = f->mtime_nsec, .mode = f->mode, .chunk = chunk,
		.verified = verified / chunk * chunk,
	};
	memcpy(j->path, f->path, f->path_len + 1u);
	memcpy(j->key_id, key_id, RP_PARTIAL_KEY_LEN);
	if (j->verified == folded)
		rp_csum_final(csum, j->digest);
}

int rp_recv_note_partial(int pfd, const char *leaf, const struct rp_file *f,
			 uint32_t chunk, uint64_t synced, uint64_t folded,
			 struct rp_csum *csum,
			 const uint8_t key_id[RP_PARTIAL_KEY_LEN])
{
	struct rp_journal j;

	journal_of(&j, f, chunk, synced < folded ? synced : folded, folded,
		   csum, key_id);
	return j.verified ? rp_partial_note(pfd, leaf, &j) : 0;
}

int rp_recv_keep_partial(int pfd, const char *leaf, struct rp_dst *d,
			 const struct rp_file *f, uint32_t chunk,
			 uint64_t folded, struct rp_csum *csum,
			 const uint8_t key_id[RP_PARTIAL_KEY_LEN])
{
	struct rp_journal j;
	int rc;

	journal_of(&j, f, chunk, folded, folded, csum, key_id);
	if (!j.verified || d->fd < 0)
		return 0;
	rc = rp_partial_keep(pfd, leaf, d->tmpname, d->fd, &j);
	/* Kept under its new name: the abort that follows only closes it. */
	if (!rc)
		d->tmpname[0] = '\0';
	return rc;
}

int rp_send_check_prefix(int fd, const char *path, uint64_t bytes,
			 uint32_t chunk, const uint8_t want[RP_CSUM_LEN],
			 struct rp_csum *fold, bool *same)
{
	uint8_t d[RP_CSUM_LEN];
	int rc = rp_partial_digest(fd, bytes, chunk, path, fold, d);

	*same = !rc && !memcmp(d, want, RP_CSUM_LEN);
	return rc;
}
