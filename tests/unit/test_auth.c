// SPDX-License-Identifier: MIT
/* Unit tests of the pre-shared key module: key files, MACs, role binding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmapush/auth.h"
#include "rdmapush/err.h"

static char *key_file(const char *content, size_t len)
{
	static char path[] = "/tmp/rp-test-psk.XXXXXX";
	char *p = strdup(path);
	int fd = mkstemp(p);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	return p;
}

static void load(const char *content, size_t len, int want,
		 uint8_t key[RP_PSK_LEN])
{
	char *p = key_file(content, len);

	assert_int_equal(rp_auth_load(p, key), want);
	unlink(p);
	free(p);
}

static void test_load(void **state)
{
	uint8_t k1[RP_PSK_LEN], k2[RP_PSK_LEN], k3[RP_PSK_LEN];

	(void)state;
	load("0123456789abcdef", 16, 0, k1);
	load("0123456789abcdef", 16, 0, k2);
	assert_memory_equal(k1, k2, RP_PSK_LEN);
	load("0123456789abcdeF", 16, 0, k3);
	assert_memory_not_equal(k1, k3, RP_PSK_LEN);
	load("0123456789abcde", 15, RP_EUSAGE, k3);
	load("", 0, RP_EUSAGE, k3);
	assert_int_equal(rp_auth_load("/nonexistent/psk", k3), -ENOENT);
}

static void test_mac(void **state)
{
	uint8_t key[RP_PSK_LEN], other[RP_PSK_LEN];
	uint8_t a[RP_AUTH_NONCE_LEN], b[RP_AUTH_NONCE_LEN];
	uint8_t mac[RP_AUTH_MAC_LEN];

	(void)state;
	load("a key of twenty bytes", 21, 0, key);
	load("another key, also ok", 20, 0, other);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_mac),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
