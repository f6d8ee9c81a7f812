// SPDX-License-Identifier: MIT
/* Pre-shared key: key derivation, nonces and MACs (libsodium). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

#define PSK_MAX_FILE	65536

static int read_key_file(const char *path, uint8_t *buf, size_t cap,
			 size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0) {
		RP_ERR("open(%s): %s", path, strerror(errno));
		return -errno;
	}
	*len = 0;
	do {
		n = read(fd, buf + *len, cap - *len);
		if (n > 0)
			*len += (size_t)n;
	} while ((n > 0 && *len < cap) || (n < 0 && errno == EINTR));
	if (n < 0) {
		int e = errno;

		RP_ERR("read(%s): %s", path, strerror(e));
		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

int rp_auth_load(const char *path, uint8_t key[RP_PSK_LEN])
{
	static uint8_t buf[PSK_MAX_FILE + 1];
	size_t len = 0;
	int rc;

	if (sodium_init() < 0) {
		RP_ERR("sodium_init failed");
		return RP_EINTERNAL;
	}
	rc = read_key_file(path, buf, sizeof(buf), &len);
	if (rc)
		return rc;
	if (len < RP_PSK_MIN_FILE || len > PSK_MAX_FILE) {
		RP_ERR("--psk %s: %zu bytes; a key file holds %d to %d bytes "
		       "(e.g. head -c 32 /dev/urandom > key)", path, len,
		       RP_PSK_MIN_FILE, PSK_MAX_FILE);
		sodium_memzero(buf, sizeof(buf));
		return RP_EUSAGE;
	}
	crypto_generichash(key, RP_PSK_LEN, buf, len, NULL, 0);
	sodium_memzero(buf, sizeof(buf));
	return 0;
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
