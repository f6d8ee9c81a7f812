// SPDX-License-Identifier: MIT
/* Unit tests of the admission bookkeeping: each cap, promotion to a
 * transfer slot, release when a child exits, counting per address and
 * per prefix, eviction of a crowd's oldest when the table is full. */
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
			    "1 transfer in progress (-m 1)");
	/* The refused one exits; the holder finishes; the next is served. */
	assert_true(rp_admit_release(&a, 2));
	assert_true(rp_admit_release(&a, 1));
	assert_int_equal(rp_admit_xfers(&a), 0);
	assert_int_equal(rp_admit_add(&a, 3, "10.0.0.2"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 3), RP_ADMIT_OK);
}

/* One address holds at most half of -m's slots by default (rounded up),
 * counted at promotion: its idle connections never keep its push out,
 * and another address still finds a slot. */
static void test_addr_slot_share(void **state)
{
	struct rp_admit a;
	char why[128];

	(void)state;
	rp_admit_init(&a, 4, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_xfers_per_addr, 2);
	for (long id = 1; id <= 5; id++)
		assert_int_equal(rp_admit_add(&a, id, "10.0.0.9"),
				 RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 1), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 2), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 3), RP_ADMIT_ADDR_XFERS_FULL);
	assert_false(rp_admit_has_slot(&a, 3));
	assert_int_equal(rp_admit_xfers_from(&a, "10.0.0.9"), 2);
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_ADDR_XFERS_FULL,
					 rp_admit_addr_of(&a, 3), why,
					 sizeof(why)),
			    "2 transfers from 10.0.0.9 in progress "
			    "(--max-xfers-per-address 2)");
	/* Another address still gets one of the free slots. */
	assert_int_equal(rp_admit_add(&a, 6, "10.0.0.8"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_promote(&a, 6), RP_ADMIT_OK);
	/* A slot of its own frees: the address may take one again. */
	assert_true(rp_admit_release(&a, 1));
	assert_int_equal(rp_admit_promote(&a, 4), RP_ADMIT_OK);
	/* Odd -m rounds up; the cap is clamped to -m; -m 1 gives 1. */
	rp_admit_init(&a, 5, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_xfers_per_addr, 3);
	rp_admit_set_addr_xfer_cap(&a, 9);
	assert_int_equal(a.max_xfers_per_addr, 5);
	rp_admit_init(&a, 1, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_xfers_per_addr, 1);
	assert_string_equal(rp_admit_addr_of(&a, 77), "");
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
	/* One is one connection, and one transfer. */
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_ADDR_FULL, "fd00::2",
					 why, sizeof(why)),
			    "0 connections from fd00::2 (--max-per-address 2)");
	assert_int_equal(rp_admit_add(&a, 7, "fd00::3"), RP_ADMIT_OK);
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_ADDR_FULL, "fd00::3",
					 why, sizeof(why)),
			    "1 connection from fd00::3 (--max-per-address 2)");
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_XFERS_FULL, "fd00::3",
					 why, sizeof(why)),
			    "1 transfer in progress (-m 4)");
	assert_true(rp_admit_release(&a, 7));
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
	rp_admit_set_addr_xfer_cap(&a, 2);
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

/* The prefix an address counts under: /24, /64; a scope or an IPv4
 * address in IPv6 clothes changes nothing. */
static void expect_prefix(const char *addr, const char *want)
{
	char pfx[RP_ADMIT_ADDR_MAX];

	rp_admit_prefix(addr, pfx, sizeof(pfx));
	assert_string_equal(pfx, want);
}

static void test_prefix_text(void **state)
{
	(void)state;
	expect_prefix("127.0.0.2", "127.0.0.0/24");
	expect_prefix("127.0.0.9", "127.0.0.0/24");
	expect_prefix("10.1.2.3", "10.1.2.0/24");
	expect_prefix("::ffff:10.1.2.3", "10.1.2.0/24");
	expect_prefix("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64");
	expect_prefix("2001:db8:1:2::ffff", "2001:db8:1:2::/64");
	expect_prefix("fe80::5054:ff:fe12:3456%eth0", "fe80::/64");
	expect_prefix("::1", "::/64");
	expect_prefix("?", "?");
}

/* The defaults: one address holds RP_DEFAULT_PER_ADDR connections,
 * whatever -m; a /24's crowd at most RP_DEFAULT_PER_PREFIX handshakes. */
static void test_defaults(void **state)
{
	struct rp_admit a;

	(void)state;
	rp_admit_init(&a, 2, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_per_addr, RP_DEFAULT_PER_ADDR);
	rp_admit_init(&a, 4, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_per_addr, RP_DEFAULT_PER_ADDR);
	rp_admit_init(&a, 16, RP_MAX_PENDING, 0);
	assert_int_equal(a.max_per_addr, RP_DEFAULT_PER_ADDR);
	/* Set by hand, it is taken as it is. */
	rp_admit_init(&a, 2, RP_MAX_PENDING, 6);
	assert_int_equal(a.max_per_addr, 6);
	assert_int_equal(a.max_per_prefix, RP_DEFAULT_PER_PREFIX);
	rp_admit_set_prefix_cap(&a, 0);
	assert_int_equal(a.max_per_prefix, 1);
	rp_admit_set_prefix_cap(&a, 1000);
	assert_int_equal(a.max_per_prefix, RP_MAX_PENDING);
}

/* 8 idle connections from each of 127.0.0.2-9 (one /24): with the
 * defaults, the prefix's cap stops them well short of the table, and a
 * sender from elsewhere is admitted with nobody evicted. */
static void test_prefix_cap(void **state)
{
	struct rp_admit a;
	char addr[32], why[160];
	int admitted = 0;
	long id = 1, victim;

	(void)state;
	rp_admit_init(&a, 4, RP_MAX_PENDING, 8);
	for (int i = 0; i < 64; i++, id++) {
		snprintf(addr, sizeof(addr), "127.0.0.%d", 2 + i % 8);
		if (rp_admit_make_room(&a, addr, &victim) == RP_ADMIT_OK) {
			assert_int_equal(victim, -1);
			assert_int_equal(rp_admit_add(&a, id, addr),
					 RP_ADMIT_OK);
			admitted++;
		} else {
			assert_int_equal(rp_admit_check(&a, addr),
					 RP_ADMIT_PREFIX_FULL);
		}
	}
	assert_int_equal(admitted, RP_DEFAULT_PER_PREFIX);
	assert_int_equal(rp_admit_pending_from_prefix(&a, "127.0.0.77"),
			 RP_DEFAULT_PER_PREFIX);
	assert_string_equal(rp_admit_why(&a, RP_ADMIT_PREFIX_FULL,
					 "127.0.0.3", why, sizeof(why)),
			    "16 connections from 127.0.0.0/24 still in their "
			    "handshake (--max-pending-per-prefix 16)");
	assert_int_equal(rp_admit_make_room(&a, "10.0.0.1", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, -1);
	assert_int_equal(rp_admit_add(&a, id, "10.0.0.1"), RP_ADMIT_OK);
	/* One that passed its handshake leaves room for its prefix. */
	assert_int_equal(rp_admit_promote(&a, 1), RP_ADMIT_OK);
	assert_int_equal(rp_admit_check(&a, "127.0.0.2"), RP_ADMIT_OK);
	/* IPv6: one /64 is one crowd, whatever its addresses. */
	rp_admit_init(&a, 4, RP_MAX_PENDING, 8);
	rp_admit_set_prefix_cap(&a, 2);
	assert_int_equal(rp_admit_add(&a, 1, "2001:db8::1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 2, "2001:db8::2"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_add(&a, 3, "2001:db8::3"),
			 RP_ADMIT_PREFIX_FULL);
	assert_int_equal(rp_admit_add(&a, 4, "2001:db8:0:1::3"), RP_ADMIT_OK);
}

/* The table full of one /24's idle connections (64, from 8 addresses,
 * its caps raised to allow it): a sender from another prefix evicts the
 * crowd's oldest instead of being refused; one more of the crowd does
 * not get in by evicting its like. */
static void test_crowd_evicted(void **state)
{
	struct rp_admit a;
	char addr[32];
	long victim;

	(void)state;
	rp_admit_init(&a, 4, RP_MAX_PENDING, 8);
	rp_admit_set_prefix_cap(&a, RP_MAX_PENDING);
	for (long id = 1; id <= 64; id++) {
		snprintf(addr, sizeof(addr), "127.0.0.%ld", 2 + (id - 1) % 8);
		assert_int_equal(rp_admit_make_room(&a, addr, &victim),
				 RP_ADMIT_OK);
		assert_int_equal(victim, -1);
		assert_int_equal(rp_admit_add(&a, id, addr), RP_ADMIT_OK);
	}
	assert_int_equal(rp_admit_pending(&a), RP_MAX_PENDING);
	assert_int_equal(rp_admit_check(&a, "10.0.0.1"),
			 RP_ADMIT_PENDING_FULL);
	assert_int_equal(rp_admit_make_room(&a, "127.0.0.10", &victim),
			 RP_ADMIT_PREFIX_FULL);
	assert_int_equal(victim, -1);
	assert_int_equal(rp_admit_make_room(&a, "10.0.0.1", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, 1);
	assert_true(rp_admit_evicted(&a, 1));
	assert_int_equal(rp_admit_promote(&a, 1), RP_ADMIT_UNKNOWN);
	assert_int_equal(rp_admit_from(&a, "127.0.0.2"), 7);
	assert_int_equal(rp_admit_add(&a, 100, "10.0.0.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_pending(&a), RP_MAX_PENDING);
	/* It passes its handshake and gets its slot. */
	assert_int_equal(rp_admit_promote(&a, 100), RP_ADMIT_OK);
	/* Which leaves room for one; then the crowd, still the largest
	 * group, loses its next oldest. */
	assert_int_equal(rp_admit_make_room(&a, "192.168.1.1", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, -1);
	assert_int_equal(rp_admit_add(&a, 101, "192.168.1.1"), RP_ADMIT_OK);
	assert_int_equal(rp_admit_make_room(&a, "192.168.2.1", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, 2);
	assert_int_equal(rp_admit_add(&a, 102, "192.168.2.1"), RP_ADMIT_OK);
	/* The evicted are released once reaped, as any other. */
	assert_true(rp_admit_release(&a, 1));
	assert_true(rp_admit_release(&a, 2));
	assert_false(rp_admit_evicted(&a, 2));
	assert_int_equal(a.gone, 0);
	assert_int_equal(rp_admit_pending(&a), RP_MAX_PENDING);
}

/* Two groups fill the table: the smaller one's newcomer evicts the
 * larger one's oldest; the larger one's is refused, not let in in
 * place of its like. */
static void test_two_crowds(void **state)
{
	struct rp_admit a;
	long victim, id;

	(void)state;
	rp_admit_init(&a, 4, 8, RP_MAX_PENDING);
	rp_admit_set_prefix_cap(&a, RP_MAX_PENDING);
	for (id = 1; id <= 5; id++)
		assert_int_equal(rp_admit_add(&a, id, "10.0.0.1"),
				 RP_ADMIT_OK);
	for (; id <= 8; id++)
		assert_int_equal(rp_admit_add(&a, id, "10.0.1.1"),
				 RP_ADMIT_OK);
	assert_int_equal(rp_admit_make_room(&a, "10.0.0.2", &victim),
			 RP_ADMIT_PENDING_FULL);
	assert_int_equal(rp_admit_make_room(&a, "10.0.1.2", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, 1);
	assert_int_equal(rp_admit_add(&a, id++, "10.0.1.2"), RP_ADMIT_OK);
	/* 4 and 4: a tie is no longer a smaller group. */
	assert_int_equal(rp_admit_make_room(&a, "10.0.1.3", &victim),
			 RP_ADMIT_PENDING_FULL);
	assert_int_equal(rp_admit_make_room(&a, "10.0.0.3", &victim),
			 RP_ADMIT_PENDING_FULL);
	/* A third prefix gets in: the oldest of the tied groups goes. */
	assert_int_equal(rp_admit_make_room(&a, "10.0.2.1", &victim),
			 RP_ADMIT_OK);
	assert_int_equal(victim, 2);
}

/* Evicted entries wait for their release: newcomers that keep evicting
 * never make the table overflow. */
static void test_evicted_bounded(void **state)
{
	struct rp_admit a;
	char addr[32];
	long victim, id = 1;
	int i;

	(void)state;
	rp_admit_init(&a, 4, RP_MAX_PENDING, RP_MAX_PENDING);
	rp_admit_set_prefix_cap(&a, RP_MAX_PENDING);
	for (i = 0; i < RP_MAX_PENDING; i++, id++)
		assert_int_equal(rp_admit_add(&a, id, "10.0.0.1"),
				 RP_ADMIT_OK);
	for (i = 0; i < 1000; i++, id++) {
		snprintf(addr, sizeof(addr), "10.%d.%d.1", 1 + i / 250,
			 i % 250);
		if (rp_admit_make_room(&a, addr, &victim))
			break;
		assert_true(victim > 0);
		assert_int_equal(rp_admit_add(&a, id, addr), RP_ADMIT_OK);
		assert_true(a.n <= RP_ADMIT_SLOTS);
	}
	assert_int_equal(a.n, RP_ADMIT_SLOTS);
	assert_int_equal(rp_admit_pending(&a), RP_MAX_PENDING);
}

/* The table never overflows: every cap at its maximum, filled up. */
static void test_full_table(void **state)
{
	struct rp_admit a;
	long id = 1;

	(void)state;
	rp_admit_init(&a, 1000, 1000, 1000);
	rp_admit_set_prefix_cap(&a, 1000);
	rp_admit_set_addr_xfer_cap(&a, 1000);
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
		cmocka_unit_test(test_addr_slot_share),
		cmocka_unit_test(test_pending_cap),
		cmocka_unit_test(test_per_address_cap),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_prefix_text),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_prefix_cap),
		cmocka_unit_test(test_crowd_evicted),
		cmocka_unit_test(test_two_crowds),
		cmocka_unit_test(test_evicted_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
