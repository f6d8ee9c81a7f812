// SPDX-License-Identifier: MIT
/* Unit tests of the pre-shared key module: key files (size, permissions,
 * keygen), AUTH MACs and role binding, the session key and message tags. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "rdmapush/auth.h"
#include "rdmapush/err.h"

/* What the last rp_auth_load() wrote to stderr. */
static const char *captured = "";

static int load_path(const char *p, uint8_t key[RP_PSK_LEN])
{
	int rc;

	capture_start();
	rc = rp_auth_load(p, key);
	captured = capture_end();
	return rc;
}

/* A key file of len bytes of content, with the given mode. */
static char *key_file(const void *content, size_t len, mode_t mode)
{
	char *p = strdup("/tmp/rp-test-psk.XXXXXX");
	int fd = mkstemp(p);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return p;
}

static void load_mode(const void *content, size_t len, mode_t mode, int want,
		      uint8_t key[RP_PSK_LEN])
{
	char *p = key_file(content, len, mode);

	assert_int_equal(load_path(p, key), want);
	unlink(p);
	free(p);
}

static void load(const void *content, size_t len, int want,
		 uint8_t key[RP_PSK_LEN])
{
	load_mode(content, len, 0600, want, key);
}

#define K32 "0123456789abcdef0123456789abcdef"

static void test_load(void **state)
{
	uint8_t k1[RP_PSK_LEN], k2[RP_PSK_LEN], k3[RP_PSK_LEN];
	/* BLAKE2b-256 of 40 'k' bytes (Python hashlib, independently). */
	static const uint8_t kat[RP_PSK_LEN] = {
		0x23, 0x02, 0xe4, 0x86, 0xbc, 0x0f, 0x4a, 0xa8,
		0x9d, 0xe1, 0x46, 0xc4, 0x97, 0x71, 0xf4, 0x5b,
		0x08, 0x0a, 0x6c, 0xb1, 0x46, 0xbc, 0xb3, 0xa7,
		0x6b, 0x2b, 0x25, 0x92, 0x83, 0xb4, 0xd4, 0xf6,
	};
	char forty[40];

	(void)state;
	load(K32, 32, 0, k1);
	assert_string_equal(captured, "");
	load(K32, 32, 0, k2);
	assert_memory_equal(k1, k2, RP_PSK_LEN);
	load("0123456789abcdef0123456789abcdeF", 32, 0, k3);
	assert_memory_not_equal(k1, k3, RP_PSK_LEN);
	memset(forty, 'k', sizeof(forty));
	load(forty, sizeof(forty), 0, k3);
	assert_memory_equal(k3, kat, RP_PSK_LEN);
	/* Owner-only modes are fine, read-only included. */
	load_mode(K32, 32, 0400, 0, k3);
}

/* Every key-file problem is one configuration error, said plainly. */
static void test_load_refused(void **state)
{
	static uint8_t big[70000];
	uint8_t k[RP_PSK_LEN];

	(void)state;
	load(K32, 31, RP_ECONFIG, k);
	assert_non_null(strstr(captured, ": 31 bytes; a key needs at least "
					 "32"));
	assert_non_null(strstr(captured, "rdmapush keygen"));
	load("", 0, RP_ECONFIG, k);
	load(big, RP_PSK_MAX_FILE, 0, k);
	load(big, RP_PSK_MAX_FILE + 1, RP_ECONFIG, k);
	assert_non_null(strstr(captured, ": 65537 bytes"));
	/* The real size, not how far we read. */
	load(big, sizeof(big), RP_ECONFIG, k);
	assert_non_null(strstr(captured, ": 70000 bytes"));
	assert_int_equal(load_path("/nonexistent/psk", k), RP_ECONFIG);
	assert_non_null(strstr(captured, "/nonexistent/psk: open: "
					 "No such file or directory"));
	load_mode(K32, 32, 0644, RP_ECONFIG, k);
	assert_non_null(strstr(captured, "permissions 0644 are too open; "
					 "chmod 600 /tmp/rp-test-psk."));
	load_mode(K32, 32, 0640, RP_ECONFIG, k);
	load_mode(K32, 32, 0602, RP_ECONFIG, k);
	load_mode(K32, 32, 0604, RP_ECONFIG, k);
	assert_int_equal(rp_err_exit_code(RP_ECONFIG), 2);
}

/* A directory, a device or a FIFO is not a key file, whatever its mode:
 * no chmod advice (harmful for /dev/null), and a FIFO is not waited on. */
static void test_load_not_regular(void **state)
{
	char dir[] = "/tmp/rp-test-psk-kind.XXXXXX";
	const char *paths[3];
	char fifo[64];
	uint8_t k[RP_PSK_LEN];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	paths[0] = dir;
	paths[1] = "/dev/null";
	paths[2] = fifo;
	for (int i = 0; i < 3; i++) {
		char want[96];

		assert_int_equal(load_path(paths[i], k), RP_ECONFIG);
		snprintf(want, sizeof(want), "--psk %s: not a regular file\n",
			 paths[i]);
		assert_non_null(strstr(captured, want));
		assert_null(strstr(captured, "chmod"));
		assert_null(strstr(captured, "permissions"));
	}
	unlink(fifo);
	rmdir(dir);
}

static void test_keygen(void **state)
{
	char dir[] = "/tmp/rp-test-keygen.XXXXXX";
	char path[64], link[64];
	uint8_t k1[RP_PSK_LEN], k2[RP_PSK_LEN];
	struct stat st;
	mode_t old;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	/* 0600 whatever the umask. */
	old = umask(0);
	assert_int_equal(rp_auth_keygen(path), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, RP_PSK_MIN_FILE);
	assert_int_equal(load_path(path, k1), 0);
	/* Never replaced: the same key loads after a second keygen. */
	assert_int_equal(rp_auth_keygen(path), RP_ECONFIG);
	assert_int_equal(load_path(path, k2), 0);
	assert_memory_equal(k1, k2, RP_PSK_LEN);
	/* Nor followed through a link. */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(rp_auth_keygen(link), RP_ECONFIG);
	unlink(link);
	unlink(path);
	/* Random: a second key differs. */
	assert_int_equal(rp_auth_keygen(path), 0);
	assert_int_equal(load_path(path, k2), 0);
	assert_memory_not_equal(k1, k2, RP_PSK_LEN);
	unlink(path);
	snprintf(path, sizeof(path), "%s/no/key", dir);
	assert_int_equal(rp_auth_keygen(path), -ENOENT);
	rmdir(dir);
}

static void test_mac(void **state)
{
	uint8_t key[RP_PSK_LEN], other[RP_PSK_LEN];
	uint8_t a[RP_AUTH_NONCE_LEN], b[RP_AUTH_NONCE_LEN];
	uint8_t mac[RP_AUTH_MAC_LEN];

	(void)state;
	load(K32, 32, 0, key);
	load("another key, also ok, 32 bytes!!", 32, 0, other);
	rp_auth_nonce(a);
	rp_auth_nonce(b);
	assert_memory_not_equal(a, b, RP_AUTH_NONCE_LEN);
	rp_auth_mac(key, RP_AUTH_ROLE_RECV, a, b, mac);
	assert_true(rp_auth_check(key, RP_AUTH_ROLE_RECV, a, b, mac));
	/* Wrong key, the other role, swapped nonces, one flipped bit. */
	assert_false(rp_auth_check(other, RP_AUTH_ROLE_RECV, a, b, mac));
	assert_false(rp_auth_check(key, RP_AUTH_ROLE_SEND, a, b, mac));
	assert_false(rp_auth_check(key, RP_AUTH_ROLE_RECV, b, a, mac));
	mac[31] ^= 1;
	assert_false(rp_auth_check(key, RP_AUTH_ROLE_RECV, a, b, mac));
}

/*
 * Known answers, computed once with Python's hashlib and hmac:
 *   K = blake2b(b"rdmapush v2 session key" + ns + nr, digest_size=32,
 *               key=bytes(range(32)))
 *   tag = hmac(K, b"S" + be64(5) + hdr + b"hello, tag", sha256)
 */
static const uint8_t kat_skey[RP_SKEY_LEN] = {
	0xa6, 0x18, 0x9d, 0xda, 0x10, 0x06, 0x7a, 0xd2,
	0x66, 0x24, 0x88, 0x11, 0x2d, 0xe3, 0x9a, 0x8e,
	0xb9, 0x91, 0x40, 0x37, 0x82, 0x30, 0x8f, 0xc3,
	0xc1, 0x0b, 0x5c, 0x0e, 0x23, 0x67, 0x8d, 0xe6,
};
static const uint8_t kat_tag[RP_TAG_LEN] = {
	0x2b, 0x8f, 0x5f, 0x3b, 0x2c, 0x88, 0xa2, 0xef,
	0x6f, 0x6e, 0xe1, 0xcb, 0xd8, 0x1b, 0x7d, 0xa2,
	0xe9, 0xf6, 0x44, 0x69, 0x92, 0x81, 0x98, 0x92,
	0x79, 0x9c, 0xa4, 0xd4, 0x07, 0x59, 0x9f, 0x68,
};
static const uint8_t kat_hdr[RP_PROTO_HDR_LEN] = {
	0x52, 0x44, 0x50, 0x55, 0x02, 0x03, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x2a,
};
#define KAT_BODY "hello, tag"

static void test_session_key(void **state)
{
	uint8_t psk[RP_PSK_LEN], ns[RP_AUTH_NONCE_LEN], nr[RP_AUTH_NONCE_LEN];
	uint8_t k[RP_SKEY_LEN], k2[RP_SKEY_LEN];

	(void)state;
	for (int i = 0; i < RP_PSK_LEN; i++)
		psk[i] = (uint8_t)i;
	memset(ns, 0x11, sizeof(ns));
	memset(nr, 0x22, sizeof(nr));
	rp_auth_session_key(psk, ns, nr, k);
	assert_memory_equal(k, kat_skey, RP_SKEY_LEN);
	/* Each nonce and the key matter, and so does their order. */
	rp_auth_session_key(psk, nr, ns, k2);
	assert_memory_not_equal(k, k2, RP_SKEY_LEN);
	ns[0] ^= 1;
	rp_auth_session_key(psk, ns, nr, k2);
	assert_memory_not_equal(k, k2, RP_SKEY_LEN);
	ns[0] ^= 1;
	psk[0] ^= 1;
	rp_auth_session_key(psk, ns, nr, k2);
	assert_memory_not_equal(k, k2, RP_SKEY_LEN);
}

static bool check(enum rp_auth_role dir, uint64_t seq, const uint8_t *hdr,
		  const char *body, const uint8_t *tag)
{
	return rp_auth_tag_check(kat_skey, dir, seq, hdr,
				 (const uint8_t *)body, strlen(body), tag);
}

static void test_tag(void **state)
{
	uint8_t tag[RP_TAG_LEN], hdr[RP_PROTO_HDR_LEN];
	char body[] = KAT_BODY;

	(void)state;
	rp_auth_tag(kat_skey, RP_AUTH_ROLE_SEND, 5, kat_hdr,
		    (const uint8_t *)body, strlen(body), tag);
	assert_memory_equal(tag, kat_tag, RP_TAG_LEN);
	assert_true(check(RP_AUTH_ROLE_SEND, 5, kat_hdr, body, tag));
	/* Reflected, replayed or reordered (another seq), or altered. */
	assert_false(check(RP_AUTH_ROLE_RECV, 5, kat_hdr, body, tag));
	assert_false(check(RP_AUTH_ROLE_SEND, 4, kat_hdr, body, tag));
	assert_false(check(RP_AUTH_ROLE_SEND, 6, kat_hdr, body, tag));
	assert_false(check(RP_AUTH_ROLE_SEND, 5ull | 1ull << 40, kat_hdr,
			   body, tag));
	body[3] ^= 0x10;
	assert_false(check(RP_AUTH_ROLE_SEND, 5, kat_hdr, body, tag));
	body[3] ^= 0x10;
	memcpy(hdr, kat_hdr, sizeof(hdr));
	hdr[5] = 4;	/* the same body, passed off as another type */
	assert_false(check(RP_AUTH_ROLE_SEND, 5, hdr, body, tag));
	body[strlen(body) - 1] = '\0';	/* one byte short */
	assert_false(check(RP_AUTH_ROLE_SEND, 5, kat_hdr, body, tag));
	strcpy(body, KAT_BODY);
	tag[0] ^= 0x80;
	assert_false(check(RP_AUTH_ROLE_SEND, 5, kat_hdr, body, tag));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_refused),
		cmocka_unit_test(test_load_not_regular),
		cmocka_unit_test(test_keygen),
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_session_key),
		cmocka_unit_test(test_tag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
