// SPDX-License-Identifier: MIT
/* A stopped file's partial and its journal (partial.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/csum.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/partial.h"
#include "rdmapush/trace.h"
#include "fileio_int.h"

/* The journal on disk: "RPJ1", the fields big-endian, the path, then the
 * digest of all that (a torn or edited journal fails it). */
#define JOURNAL_MAGIC	"RPJ1"
#define JOURNAL_FIXED	(4 + 8 + 8 + 4 + 4 + 4 + 8 + RP_CSUM_LEN + \
			 RP_PARTIAL_KEY_LEN + 2)
#define JOURNAL_MAX	(JOURNAL_FIXED + RP_PATH_MAX + RP_CSUM_LEN)
/* Rehashing a prefix reads this much at a time (a chunk may be larger). */
#define PREFIX_READ	(1u << 20)

static bool has_suffix(const char *name, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n + 1 && name[0] == '.' &&
	       !memcmp(name + len - n, suffix, n);
}

bool rp_partial_is_name(const char *name, size_t len)
{
	return has_suffix(name, len, RP_PARTIAL_SUFFIX) ||
	       has_suffix(name, len, RP_JOURNAL_SUFFIX);
}

int rp_partial_name(const char *name, bool journal, char *out)
{
	int n = snprintf(out, RP_NAME_MAX + 1, ".%s%s", name,
			 journal ? RP_JOURNAL_SUFFIX : RP_PARTIAL_SUFFIX);

	return n < 0 || n > RP_NAME_MAX ? RP_EBADNAME : 0;
}

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
	return p + bytes;
}

static const uint8_t *get(const uint8_t *p, uint64_t *v, int bytes)
{
	*v = 0;
	for (int i = 0; i < bytes; i++)
		*v = *v << 8 | p[i];
	return p + bytes;
}

/* The journal's bytes into buf (JOURNAL_MAX): their length. */
static size_t encode(const struct rp_journal *j, uint8_t *buf)
{
	size_t plen = strnlen(j->path, RP_PATH_MAX);
	uint8_t *p = buf;

	memcpy(p, JOURNAL_MAGIC, 4);
	p = put(p + 4, j->size, 8);
	p = put(p, (uint64_t)j->mtime_sec, 8);
	p = put(p, j->mtime_nsec, 4);
	p = put(p, j->mode, 4);
	p = put(p, j->chunk, 4);
	p = put(p, j->verified, 8);
	memcpy(p, j->digest, RP_CSUM_LEN);
	memcpy(p + RP_CSUM_LEN, j->key_id, RP_PARTIAL_KEY_LEN);
	p = put(p + RP_CSUM_LEN + RP_PARTIAL_KEY_LEN, plen, 2);
	memcpy(p, j->path, plen);
	p += plen;
	rp_csum_chunk(buf, (size_t)(p - buf), p);
	return (size_t)(p - buf) + RP_CSUM_LEN;
}

/* buf[0..len) back into *j: 0, or -EINVAL when it is no journal of ours
 * or is torn. */
static int decode(const uint8_t *buf, size_t len, struct rp_journal *j)
{
	uint8_t sum[RP_CSUM_LEN];
	const uint8_t *p = buf + 4;
	uint64_t v, plen;

	if (len < JOURNAL_FIXED + RP_CSUM_LEN || memcmp(buf, JOURNAL_MAGIC, 4))
		return -EINVAL;
	rp_csum_chunk(buf, len - RP_CSUM_LEN, sum);
	if (memcmp(sum, buf + len - RP_CSUM_LEN, RP_CSUM_LEN))
		return -EINVAL;
	memset(j, 0, sizeof(*j));
	p = get(p, &j->size, 8);
	p = get(p, &v, 8);
	j->mtime_sec = (int64_t)v;
	p = get(p, &v, 4);
	j->mtime_nsec = (uint32_t)v;
	p = get(p, &v, 4);
	j->mode = (uint32_t)v;
	p = get(p, &v, 4);
	j->chunk = (uint32_t)v;
	p = get(p, &j->verified, 8);
	memcpy(j->digest, p, RP_CSUM_LEN);
	memcpy(j->key_id, p + RP_CSUM_LEN, RP_PARTIAL_KEY_LEN);
	p = get(p + RP_CSUM_LEN + RP_PARTIAL_KEY_LEN, &plen, 2);
	if (plen > RP_PATH_MAX || JOURNAL_FIXED + plen + RP_CSUM_LEN != len ||
	    !j->chunk || j->verified % j->chunk)
		return -EINVAL;
	memcpy(j->path, p, plen);
	j->path[plen] = '\0';
	return 0;
}

/* Write the journal of name under its own name, durably. */
static int write_journal(int dirfd, const char *jname, const char *shown,
			 const struct rp_journal *j)
{
	uint8_t buf[JOURNAL_MAX];
	size_t len = encode(j, buf);
	int fd = openat(dirfd, jname, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0) {
		rc = -errno;
		RP_ERR("openat(journal of %s): %s", shown, strerror(-rc));
		return rc;
	}
	if (write(fd, buf, len) != (ssize_t)len || fdatasync(fd) < 0) {
		rc = errno ? -errno : -EIO;
		RP_ERR("writing the journal of %s: %s", shown, strerror(-rc));
	}
	close(fd);
	return rc;
}

/* The temp's data (fd) takes the partial's name pname. */
static int name_partial(int dirfd, const char *tmpname, int fd,
			const char *pname, const char *shown)
{
	char proc[32];
	int e;

	if (tmpname[0]) {
		if (renameat(dirfd, tmpname, dirfd, pname) == 0)
			return 0;
		e = errno;
		RP_ERR("renameat(temporary file of %s, its partial): %s",
		       shown, strerror(e));
		return -e;
	}
	/* An O_TMPFILE: linked under the name (an older partial is
	 * removed first: linkat never replaces). */
	if (unlinkat(dirfd, pname, 0) < 0 && errno != ENOENT) {
		e = errno;
		RP_ERR("unlinkat(older partial of %s): %s", shown, strerror(e));
		return -e;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dirfd, pname, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	e = errno;
	RP_ERR("linkat(temporary file of %s, its partial): %s", shown,
	       strerror(e));
	return -e;
}

int rp_partial_note(int dirfd, const char *name, const struct rp_journal *j)
{
	char jname[RP_NAME_MAX + 1], shown[RP_PEER_TEXT_MAX];

	if (rp_partial_name(name, true, jname))
		return RP_EBADNAME;
	rp_fileio_show(shown, j->path, strlen(j->path));
	return write_journal(dirfd, jname, shown, j);
}

int rp_partial_keep(int dirfd, const char *name, const char *tmpname, int fd,
		    const struct rp_journal *j)
{
	char pname[RP_NAME_MAX + 1], jname[RP_NAME_MAX + 1];
	char shown[RP_PEER_TEXT_MAX];
	int rc;

	rp_fileio_show(shown, j->path, strlen(j->path));
	if (rp_partial_name(name, false, pname) ||
	    rp_partial_name(name, true, jname)) {
		RP_INFO("%s: name too long to keep its partial", shown);
		return RP_EBADNAME;
	}
	if (fsync(fd) < 0) {
		rc = -errno;
		RP_ERR("fsync(partial of %s): %s", shown, strerror(-rc));
		return rc;
	}
	rc = write_journal(dirfd, jname, shown, j);
	if (!rc)
		rc = name_partial(dirfd, tmpname, fd, pname, shown);
	if (!rc && fsync(dirfd) < 0) {
		rc = -errno;
		RP_ERR("fsync(directory of %s's partial): %s", shown,
		       strerror(-rc));
	}
	if (rc) {
		(void)unlinkat(dirfd, jname, 0);
		return rc;
	}
	RP_EV("file", "file.partial", "{path}: kept {bytes} verified bytes "
	      "for --resume", EV_S("path", shown), EV_U("bytes", j->verified));
	return 0;
}

/* Read the journal jname: 0, -ENOENT (none), -EINVAL (not believed). */
static int read_journal(int dirfd, const char *jname, struct rp_journal *j)
{
	uint8_t buf[JOURNAL_MAX + 1];
	int fd = openat(dirfd, jname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || (size_t)n > JOURNAL_MAX)
		return -EINVAL;
	return decode(buf, (size_t)n, j);
}

int rp_partial_find(int dirfd, const char *name, struct rp_journal *j,
		    int *fd)
{
	char pname[RP_NAME_MAX + 1], jname[RP_NAME_MAX + 1];
	char shown[RP_PEER_TEXT_MAX];
	struct stat st;
	int rc;

	*fd = -1;
	if (rp_partial_name(name, false, pname) ||
	    rp_partial_name(name, true, jname))
		return 0;
	rc = read_journal(dirfd, jname, j);
	if (rc == -ENOENT)
		return 0;
	if (!rc) {
		*fd = openat(dirfd, pname, O_RDWR | O_NOFOLLOW | O_NONBLOCK |
			     O_CLOEXEC);
		/* Held by a receiver writing it now: not ours to offer. */
		if (*fd >= 0 && flock(*fd, LOCK_SH | LOCK_NB) < 0) {
			close(*fd);
			*fd = -1;
			return 0;
		}
		if (*fd >= 0)
			(void)flock(*fd, LOCK_UN);
		if (*fd >= 0 && (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) ||
				 (uint64_t)st.st_size < j->verified))
			rc = -EINVAL;
		else if (*fd < 0)
			rc = -EINVAL;
	}
	if (!rc)
		return 1;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	rp_fileio_show(shown, name, strlen(name));
	RP_INFO("%s: its partial or journal is damaged; removed, the file "
		"starts over", shown);
	rp_partial_drop(dirfd, name);
	return 0;
}

/* The digest of the chunk at off, this bytes long, read len at a time
 * (XXH3-128 of its bytes, streamed). */
static int chunk_digest(int fd, uint64_t off, uint64_t this, uint8_t *buf,
			size_t len, const char *what, uint8_t d[RP_CSUM_LEN])
{
	struct rp_csum *one;
	int rc = rp_csum_new(&one);

	for (uint64_t at = 0; !rc && at < this; at += len) {
		size_t want = this - at < len ? (size_t)(this - at) : len;
		ssize_t got = pread(fd, buf, want, (off_t)(off + at));

		if (got != (ssize_t)want) {
			rc = got < 0 ? -errno : -EIO;
			RP_ERR("pread(%s, %zu bytes at %llu): %s", what, want,
			       (unsigned long long)(off + at),
			       got < 0 ? strerror(-rc) : "the file is shorter");
			break;
		}
		rp_csum_update(one, buf, want);
	}
	if (!rc)
		rp_csum_final(one, d);
	rp_csum_free(one);
	return rc;
}

int rp_partial_digest(int fd, uint64_t n, uint32_t chunk, const char *what,
		      struct rp_csum *fold, uint8_t out[RP_CSUM_LEN])
{
	size_t len = chunk < PREFIX_READ ? chunk : PREFIX_READ;
	struct rp_csum *all = NULL;
	uint8_t *buf = malloc(len), d[RP_CSUM_LEN];
	int rc = buf ? rp_csum_new(&all) : -ENOMEM;

	for (uint64_t off = 0; !rc && off < n; off += chunk) {
		rc = chunk_digest(fd, off, n - off < chunk ? n - off : chunk,
				  buf, len, what, d);
		if (rc)
			break;
		rp_csum_fold(all, d);
		if (fold)
			rp_csum_fold(fold, d);
	}
	if (!rc)
		rp_csum_final(all, out);
	rp_csum_free(all);
	free(buf);
	if (!buf)
		RP_ERR("hashing %s: %s", what, strerror(ENOMEM));
	return rc;
}

void rp_partial_drop(int dirfd, const char *name)
{
	char pname[RP_NAME_MAX + 1];

	if (!rp_partial_name(name, false, pname))
		(void)unlinkat(dirfd, pname, 0);
	if (!rp_partial_name(name, true, pname))
		(void)unlinkat(dirfd, pname, 0);
}

bool rp_partial_expired(double age, double max_age)
{
	return max_age <= 0 || age > max_age;
}
