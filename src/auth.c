// SPDX-License-Identifier: MIT
/* Pre-shared key: key files, nonces, AUTH MACs, the session key and the
 * tags of the control messages after AUTH (libsodium). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

#define SESSION_LABEL	"rdmapush v2 session key"

/* Read up to cap bytes; *len is how many. 0 or the errno of read(2). */
static int read_upto(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	ssize_t n;

	*len = 0;
	do {
		n = read(fd, buf + *len, cap - *len);
		if (n > 0)
			*len += (size_t)n;
	} while ((n > 0 && *len < cap) || (n < 0 && errno == EINTR));
	return n < 0 ? errno : 0;
}

/*
 * Like ssh with a private key: a key others can read is no longer a
 * secret, and one others can write is not ours.
 */
static int check_mode(const char *path, const struct stat *st)
{
	if (!(st->st_mode & 077))
		return 0;
	RP_ERR("--psk %s: permissions %04o are too open; chmod 600 %s", path,
	       (unsigned int)(st->st_mode & 07777), path);
	return RP_ECONFIG;
}

/*
 * A key is a file of its own: a directory, a device (/dev/null, a
 * terminal) or a FIFO is a wrong path, and its mode says nothing about
 * a secret, so no chmod advice.
 */
static int check_kind(const char *path, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	RP_ERR("--psk %s: not a regular file", path);
	return RP_ECONFIG;
}

/* The length must be in range; the file's real size is reported. */
static int check_len(const char *path, const struct stat *st, size_t len)
{
	if (len < RP_PSK_MIN_FILE) {
		RP_ERR("--psk %s: %zu bytes; a key needs at least %d (make one "
		       "with: rdmapush keygen FILE)", path, len,
		       RP_PSK_MIN_FILE);
		return RP_ECONFIG;
	}
	if (len <= RP_PSK_MAX_FILE)
		return 0;
	RP_ERR("--psk %s: %lld bytes; a key file holds at most %d",
	       path, (long long)st->st_size, RP_PSK_MAX_FILE);
	return RP_ECONFIG;
}

static int read_key_file(const char *path, uint8_t *buf, size_t cap,
			 size_t *len)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is
	 * refused by its kind below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	int e;

	if (fd < 0) {
		RP_ERR("--psk %s: open: %s", path, strerror(errno));
		return RP_ECONFIG;
	}
	if (fstat(fd, &st)) {
		e = errno;
		RP_ERR("--psk %s: fstat: %s", path, strerror(e));
		close(fd);
		return RP_ECONFIG;
	}
	e = check_kind(path, &st);
	if (!e)
		e = check_mode(path, &st);
	if (e) {
		close(fd);
		return e;
	}
	e = read_upto(fd, buf, cap, len);
	close(fd);
	if (e) {
		RP_ERR("--psk %s: read: %s", path, strerror(e));
		return RP_ECONFIG;
	}
	return check_len(path, &st, *len);
}

int rp_auth_load(const char *path, uint8_t key[RP_PSK_LEN])
{
	static uint8_t buf[RP_PSK_MAX_FILE + 1];
	size_t len = 0;
	int rc;

	if (sodium_init() < 0) {
		RP_ERR("sodium_init failed");
		return RP_EINTERNAL;
	}
	rc = read_key_file(path, buf, sizeof(buf), &len);
	if (!rc)
		crypto_generichash(key, RP_PSK_LEN, buf, len, NULL, 0);
	sodium_memzero(buf, sizeof(buf));
	return rc;
}

/* Write all of buf; 0 or the errno of write(2). */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Fill, set 0600 whatever the umask, and sync the new key file. */
static int fill_key_file(int fd, const char *path)
{
	uint8_t key[RP_PSK_MIN_FILE];
	const char *call = "write";
	int e;

	randombytes_buf(key, sizeof(key));
	e = write_all(fd, key, sizeof(key));
	sodium_memzero(key, sizeof(key));
	if (!e && fchmod(fd, 0600)) {
		e = errno;
		call = "fchmod";
	}
	if (!e && fsync(fd)) {
		e = errno;
		call = "fsync";
	}
	if (e)
		RP_ERR("%s: %s: %s", path, call, strerror(e));
	return -e;
}

int rp_auth_keygen(const char *path)
{
	int fd;
	int rc;

	if (sodium_init() < 0) {
		RP_ERR("sodium_init failed");
		return RP_EINTERNAL;
	}
	/* O_EXCL|O_NOFOLLOW: never replace a key, nor follow a planted link. */
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
		  O_NOCTTY, 0600);
	if (fd < 0 && errno == EEXIST) {
		RP_ERR("%s: file exists; not replacing it", path);
		return RP_ECONFIG;
	}
	if (fd < 0) {
		rc = -errno;
		RP_ERR("%s: open: %s", path, strerror(-rc));
		return rc;
	}
	rc = fill_key_file(fd, path);
	if (close(fd) && !rc) {
		rc = -errno;
		RP_ERR("%s: close: %s", path, strerror(-rc));
	}
	/* Half a key is worse than none: it would pass for one later. */
	if (rc)
		unlink(path);
	return rc;
}

void rp_auth_nonce(uint8_t nonce[RP_AUTH_NONCE_LEN])
{
	randombytes_buf(nonce, RP_AUTH_NONCE_LEN);
}

void rp_auth_mac(const uint8_t key[RP_PSK_LEN], enum rp_auth_role role,
		 const uint8_t first[RP_AUTH_NONCE_LEN],
		 const uint8_t second[RP_AUTH_NONCE_LEN],
		 uint8_t mac[RP_AUTH_MAC_LEN])
{
	crypto_auth_hmacsha256_state st;
	uint8_t r = (uint8_t)role;

	crypto_auth_hmacsha256_init(&st, key, RP_PSK_LEN);
	crypto_auth_hmacsha256_update(&st, &r, 1);
	crypto_auth_hmacsha256_update(&st, first, RP_AUTH_NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, second, RP_AUTH_NONCE_LEN);
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_memzero(&st, sizeof(st));
}

bool rp_auth_check(const uint8_t key[RP_PSK_LEN], enum rp_auth_role role,
		   const uint8_t first[RP_AUTH_NONCE_LEN],
		   const uint8_t second[RP_AUTH_NONCE_LEN],
		   const uint8_t mac[RP_AUTH_MAC_LEN])
{
	uint8_t want[RP_AUTH_MAC_LEN];
	bool ok;

	rp_auth_mac(key, role, first, second, want);
	ok = crypto_verify_32(want, mac) == 0;
	sodium_memzero(want, sizeof(want));
	return ok;
}

void rp_auth_session_key(const uint8_t psk[RP_PSK_LEN],
			 const uint8_t send_nonce[RP_AUTH_NONCE_LEN],
			 const uint8_t recv_nonce[RP_AUTH_NONCE_LEN],
			 uint8_t skey[RP_SKEY_LEN])
{
	crypto_generichash_state st;

	/* Fresh per session: both nonces are in it, one chosen by each. */
	crypto_generichash_init(&st, psk, RP_PSK_LEN, RP_SKEY_LEN);
	crypto_generichash_update(&st, (const uint8_t *)SESSION_LABEL,
				  sizeof(SESSION_LABEL) - 1);
	crypto_generichash_update(&st, send_nonce, RP_AUTH_NONCE_LEN);
	crypto_generichash_update(&st, recv_nonce, RP_AUTH_NONCE_LEN);
	crypto_generichash_final(&st, skey, RP_SKEY_LEN);
	sodium_memzero(&st, sizeof(st));
}

void rp_auth_tag(const uint8_t skey[RP_SKEY_LEN], enum rp_auth_role dir,
		 uint64_t seq, const uint8_t hdr[RP_PROTO_HDR_LEN],
		 const uint8_t *body, size_t len, uint8_t tag[RP_TAG_LEN])
{
	crypto_auth_hmacsha256_state st;
	uint8_t pre[1 + 8];

	pre[0] = (uint8_t)dir;
	for (int i = 0; i < 8; i++)
		pre[1 + i] = (uint8_t)(seq >> (56 - 8 * i));
	crypto_auth_hmacsha256_init(&st, skey, RP_SKEY_LEN);
	crypto_auth_hmacsha256_update(&st, pre, sizeof(pre));
	crypto_auth_hmacsha256_update(&st, hdr, RP_PROTO_HDR_LEN);
	crypto_auth_hmacsha256_update(&st, body, len);
	crypto_auth_hmacsha256_final(&st, tag);
	sodium_memzero(&st, sizeof(st));
}

bool rp_auth_tag_check(const uint8_t skey[RP_SKEY_LEN], enum rp_auth_role dir,
		       uint64_t seq, const uint8_t hdr[RP_PROTO_HDR_LEN],
		       const uint8_t *body, size_t len,
		       const uint8_t tag[RP_TAG_LEN])
{
	uint8_t want[RP_TAG_LEN];
	bool ok;

	rp_auth_tag(skey, dir, seq, hdr, body, len, want);
	ok = crypto_verify_32(want, tag) == 0;
	sodium_memzero(want, sizeof(want));
	return ok;
}

void rp_auth_key_id(const uint8_t key[RP_PSK_LEN], uint8_t out[RP_KEY_ID_LEN])
{
	static const char what[] = "rdmapush: the id of a key in a journal";

	/* Keyed BLAKE2b of a fixed text: names the key, reveals nothing. */
	crypto_generichash(out, RP_KEY_ID_LEN, (const unsigned char *)what,
			   sizeof(what) - 1, key, RP_PSK_LEN);
}
