// SPDX-License-Identifier: MIT
/* Unit tests of the admission bookkeeping: each cap, promotion to a
 * transfer slot, release when a child exits, counting per address. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rdmapush/admit.h"

/* Address text of a peer, as rp_ctrl_accept writes it. */
static void expect_addr(const char *peer, const char *want)
{
	char addr[RP_ADMIT_ADDR_MAX];

	rp_admit_addr(peer, addr, sizeof(addr));
	assert_string_equal(addr, want);
}

static void test_addr_text(void **state)
{
	char tiny[5];

	(void)state;
	expect_addr("10.0.0.1:40000", "10.0.0.1");
	expect_addr("::1:40000", "::1");
	expect_addr("fe80::5054:ff:fe12:3456%eth0:18500",
		    "fe80::5054:ff:fe12:3456%eth0");
	expect_addr("2001:db8::7:1", "2001:db8::7");
	expect_addr("[2001:db8::7]:1", "2001:db8::7");
	expect_addr("?", "?");
	rp_admit_addr("192.168.100.200:1", tiny, sizeof(tiny));
	assert_string_equal(tiny, "192.");
}

/* Idle connections hold no transfer slot: -m 2 still admits two real
 * transfers with two idle connections in their handshake. */
static void test_handshake_holds_no_slot(void **state)
{
	struct rp_admit a;

	(void)state;
	rp_admit_init(&a, 2, RP_MAX_PENDING, 8);
	assert_int_equal(rp_admit_add(&a, 101, "10.0.0.9"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 102, "10.0.0.9"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 201, "10.0.0.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 202, "10.0.0.2"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_pending(&a), 4);
	assert_int_equal(rp_admit_xfers(&a), 0);
	assert_int_equal(rp_admit_promote(&a, 201), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 202), RP_ADMIT_OK);
	assert_true(rp_admit_has_slot(&a, 201));
	assert_false(rp_admit_has_slot(&a, 101));
	assert_int_equal(rp_admit_xfers(&a), 2);
	assert_int_equal(rp_admit_pending(&a), 2);
	/* Promoting again changes nothing. */
	assert_int_equal(rp_admit_promote(&a, 201), RP_ADMIT_OK);
	assert_int_equal(rp_admit_xfers(&a), 2);
}

/* -m: the transfer over the cap is refused, and served once a slot frees. */
static void test_xfer_cap(void **state)
{
	struct rp_admit a;
	char why[128];

	(void)state;
	rp_admit_init(&a, 1, RP_MAX_PENDING, 8);
	assert_int_equal(rp_admit_add(&a, 1, "10.0.0.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 2, "10.0.0.2"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 1), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 2), RP_ADMIT_XFERS_FULL);
	assert_false(rp_admit_has_slot(&a, 2));
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_XFERS_FULL, "10.0.0.2",
					 why, sizeof(why)),
			    "1 transfers in progress (-m 1)");
	/* The refused one exits; the holder finishes; the next is served. */
	assert_true(rp_admit_release(&a, 2));
	assert_true(rp_admit_release(&a, 1));
	assert_int_equal(rp_admit_xfers(&a), 0);
	assert_int_equal(rp_admit_add(&a, 3, "10.0.0.2"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 3), RP_ADMIT_OK);
}

/* Connections in their handshake are capped, whatever their addresses;
 * promotion makes room. */
static void test_pending_cap(void **state)
{
	struct rp_admit a;
	char addr[32], why[128];

	(void)state;
	rp_admit_init(&a, 4, 3, 8);
	for (long id = 1; id <= 3; id++) {
		snprintf(addr, sizeof(addr), "10.0.0.%ld", id);
		assert_int_equal(rp_admit_add(&a, id, addr), RP_ADMIT_OK);
	}
	assert_int_equal(rp_admit_check(&a, "10.0.0.4"),
			 RP_ADMIT_PENDING_FULL);
	assert_int_equal(rp_admit_add(&a, 4, "10.0.0.4"),
			 RP_ADMIT_PENDING_FULL);
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_PENDING_FULL,
					 "10.0.0.4", why, sizeof(why)),
			    "3 connections still in their handshake "
			    "(at most 3)");
	assert_int_equal(rp_admit_promote(&a, 2), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 4, "10.0.0.4"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_pending(&a), 3);
}

/* One address: handshaking and transferring both count; others are not
 * affected; IPv6 text counts the same way. */
static void test_per_address_cap(void **state)
{
	struct rp_admit a;
	char why[128];

	(void)state;
	rp_admit_init(&a, 4, RP_MAX_PENDING, 2);
	assert_int_equal(rp_admit_add(&a, 1, "fd00::1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 1), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 2, "fd00::1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_from(&a, "fd00::1"), 2);
	assert_int_equal(rp_admit_add(&a, 3, "fd00::1"), RP_ADMIT_ADDR_FULL);
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_ADDR_FULL, "fd00::1",
					 why, sizeof(why)),
			    "2 connections from fd00::1 (--max-per-address 2)");
	/* A prefix of the address is another address. */
	assert_int_equal(rp_admit_add(&a, 4, "fd00::"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 5, "10.0.0.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 6, "10.0.0.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 7, "10.0.0.1"), RP_ADMIT_ADDR_FULL);
	/* The transfer ends: that address may connect again. */
	assert_true(rp_admit_release(&a, 1));
	assert_int_equal(rp_admit_add(&a, 8, "fd00::1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_from(&a, "fd00::1"), 2);
}

/* Release: unknown ids change nothing; each id goes once; its slot with it. */
static void test_release(void **state)
{
	struct rp_admit a;

	(void)state;
	rp_admit_init(&a, 2, RP_MAX_PENDING, RP_MAX_PENDING);
	assert_false(rp_admit_release(&a, 42));
	assert_int_equal(rp_admit_promote(&a, 42), RP_ADMIT_UNKNOWN);
	for (long id = 1; id <= 5; id++)
		assert_int_equal(rp_admit_add(&a, id, "10.0.0.1"),
				 RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 3), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 5), RP_ADMIT_OK);
	assert_true(rp_admit_release(&a, 3));
	assert_false(rp_admit_release(&a, 3));
	assert_int_equal(rp_admit_xfers(&a), 1);
	assert_true(rp_admit_has_slot(&a, 5));
	assert_int_equal(rp_admit_pending(&a), 3);
	for (long id = 1; id <= 5; id++)
		(void)rp_admit_release(&a, id);
	assert_int_equal(rp_admit_pending(&a), 0);
	assert_int_equal(rp_admit_xfers(&a), 0);
	assert_int_equal(rp_admit_from(&a, "10.0.0.1"), 0);
}

/* The table never overflows: every cap at its maximum, filled up. */
static void test_full_table(void **state)
{
	struct rp_admit a;
	long id = 1;

	(void)state;
	rp_admit_init(&a, 1000, 1000, 1000);
	assert_int_equal(a.max_xfers, RP_MAX_XFERS);
	assert_int_equal(a.max_pending, RP_MAX_PENDING);
	assert_int_equal(a.max_per_addr, RP_MAX_PENDING);
	for (int i = 0; i < RP_MAX_XFERS; i++, id++) {
		char addr[32];

		snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 8, i % 8);
		assert_int_equal(rp_admit_add(&a, id, addr), RP_ADMIT_OK);
		assert_int_equal(rp_admit_promote(&a, id), RP_ADMIT_OK);
	}
	for (int i = 0; i < RP_MAX_PENDING; i++, id++)
		assert_int_equal(rp_admit_add(&a, id, "10.1.0.1"),
				 RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, id, "10.2.0.1"),
			 RP_ADMIT_PENDING_FULL);
	assert_int_equal(rp_admit_promote(&a, id - 1), RP_ADMIT_XFERS_FULL);
	assert_int_equal(a.n, RP_MAX_PENDING + RP_MAX_XFERS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_text),
		cmocka_unit_test(test_handshake_holds_no_slot),
		cmocka_unit_test(test_xfer_cap),
		cmocka_unit_test(test_pending_cap),
		cmocka_unit_test(test_per_address_cap),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_full_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
