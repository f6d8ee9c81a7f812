// SPDX-License-Identifier: MIT
/* Unit tests of the error table: values, names, messages and exit codes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct entry {
	int rc;
	const char *name;
	int exit_code;
};

/*
 * The documented exit code of every error, written out by hand rather than
 * generated from RP_ERR_MAP, so changing one, or adding an error without
 * deciding its exit code here, fails this test.
 */
static const struct entry documented[] = {
	{ RP_EUSAGE, "RP_EUSAGE", 2 },
	{ RP_EPROTO, "RP_EPROTO", 3 },
	{ RP_EVERSION, "RP_EVERSION", 3 },
	{ RP_EUNEXPECTED, "RP_EUNEXPECTED", 3 },
	{ RP_EREFUSED, "RP_EREFUSED", 3 },
	{ RP_EBUSY, "RP_EBUSY", 3 },
	{ RP_ECHECKSUM, "RP_ECHECKSUM", 3 },
	{ RP_EAUTH, "RP_EAUTH", 3 },
	{ RP_ENOTPEER, "RP_ENOTPEER", 3 },
	{ RP_ETAMPERED, "RP_ETAMPERED", 3 },
	{ RP_ENOTPING, "RP_ENOTPING", 3 },
	{ RP_ENOTPUSH, "RP_ENOTPUSH", 3 },
	{ RP_ECTRLCLOSED, "RP_ECTRLCLOSED", 4 },
	{ RP_ETIMEOUT, "RP_ETIMEOUT", 4 },
	{ RP_EWC, "RP_EWC", 4 },
	{ RP_ENODEV, "RP_ENODEV", 4 },
	{ RP_ENOGID, "RP_ENOGID", 4 },
	{ RP_EVERBS, "RP_EVERBS", 4 },
	{ RP_ERESOLVE, "RP_ERESOLVE", 4 },
	{ RP_EPEERIO, "RP_EPEERIO", 4 },
	{ RP_EPEERRDMA, "RP_EPEERRDMA", 4 },
	{ RP_EPEERABORT, "RP_EPEERABORT", 4 },
	{ RP_EINTERRUPTED, "RP_EINTERRUPTED", 4 },
	{ RP_EEXIST, "RP_EEXIST", 6 },
	{ RP_EBADNAME, "RP_EBADNAME", 6 },
	{ RP_ENOSPACE, "RP_ENOSPACE", 6 },
	{ RP_ELIMIT, "RP_ELIMIT", 6 },
	{ RP_ENOTREG, "RP_ENOTREG", 5 },
	{ RP_EINTERNAL, "RP_EINTERNAL", 1 },
	{ RP_ECONFIG, "RP_ECONFIG", 2 },
	{ RP_ELISTEN, "RP_ELISTEN", 7 },
};

/* The table itself, for the checks that must cover every entry. */
struct table_entry {
	int rc;
	int exit_code;
	const char *msg;
};

static const struct table_entry table[] = {
#define RP_ERR_ROW(name, val, ex, msg) { RP_E##name, ex, msg },
	RP_ERR_MAP(RP_ERR_ROW)
#undef RP_ERR_ROW
};

static void test_exit_enum(void **state)
{
	(void)state;
	/* Scripts depend on these numbers. */
	assert_int_equal(RP_EXIT_OK, 0);
	assert_int_equal(RP_EXIT_INTERNAL, 1);
	assert_int_equal(RP_EXIT_USAGE, 2);
	assert_int_equal(RP_EXIT_PROTO, 3);
	assert_int_equal(RP_EXIT_TRANSPORT, 4);
	assert_int_equal(RP_EXIT_IO, 5);
	assert_int_equal(RP_EXIT_POLICY, 6);
}

static void test_documented_covers_table(void **state)
{
	size_t i;
	size_t j;
	int found;

	(void)state;
	assert_int_equal(ARRAY_SIZE(documented), ARRAY_SIZE(table));
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		found = 0;
		for (j = 0; j < ARRAY_SIZE(documented); j++)
			found += documented[j].rc == table[i].rc;
		if (found != 1)
			print_error("%s\n", rp_err_name(table[i].rc));
		assert_int_equal(found, 1);
	}
}

static void test_distinct_values(void **state)
{
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		/* Negative, and never a real errno (the range is reserved). */
		assert_true(table[i].rc < 0);
		assert_null(strerrorname_np(-table[i].rc));
		for (j = i + 1; j < ARRAY_SIZE(table); j++)
			assert_int_not_equal(table[i].rc, table[j].rc);
	}
}

static void test_names(void **state)
{
	const char *n;
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(documented); i++) {
		n = rp_err_name(documented[i].rc);
		assert_non_null(n);
		assert_memory_equal(n, "RP_E", 4);
		assert_string_equal(n, documented[i].name);
		for (j = 0; j < i; j++)
			assert_string_not_equal(n,
						rp_err_name(documented[j].rc));
	}
}

static void test_messages(void **state)
{
	const char *m;
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		m = rp_strerror(table[i].rc);
		assert_non_null(m);
		assert_true(strlen(m) > 0);
		assert_string_equal(m, table[i].msg);
		for (j = 0; j < i; j++)
			assert_string_not_equal(m, rp_strerror(table[j].rc));
	}
}

static void test_exit_codes(void **state)
{
	size_t i;
	int ex;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(documented); i++) {
		ex = rp_err_exit_code(documented[i].rc);
		if (ex != documented[i].exit_code)
			print_error("%s\n", documented[i].name);
		assert_int_equal(ex, documented[i].exit_code);
	}
}

static void test_errno(void **state)
{
	static const int transport[] = {
		ECONNREFUSED, ECONNRESET, ECONNABORTED, EPIPE, ETIMEDOUT,
		EHOSTUNREACH, ENETUNREACH, ENETDOWN, EADDRNOTAVAIL,
	};
	size_t i;

	(void)state;
	assert_string_equal(rp_err_name(-ENOENT), "ENOENT");
	assert_string_equal(rp_strerror(-ENOENT), strerror(ENOENT));
	assert_int_equal(rp_err_exit_code(-ENOENT), RP_EXIT_IO);
	assert_int_equal(rp_err_exit_code(-ENOENT), 5);
	assert_int_equal(rp_err_exit_code(-EIO), 5);
	assert_int_equal(rp_err_exit_code(-ENOSPC), 5);
	assert_int_equal(rp_err_exit_code(-EACCES), 5);

	assert_string_equal(rp_err_name(-ECONNRESET), "ECONNRESET");
	assert_int_equal(rp_err_exit_code(-ECONNRESET), 4);
	for (i = 0; i < ARRAY_SIZE(transport); i++)
		assert_int_equal(rp_err_exit_code(-transport[i]),
				 RP_EXIT_TRANSPORT);

	/* Not an errno at all: still a name, never NULL. */
	assert_string_equal(rp_err_name(-99999), "E?");
	assert_non_null(rp_strerror(-99999));
}

static void test_success(void **state)
{
	(void)state;
	assert_int_equal(rp_err_exit_code(0), 0);
	assert_int_equal(rp_err_exit_code(1), 0);
	assert_int_equal(rp_err_exit_code(12345), 0);
	assert_string_equal(rp_err_name(0), "OK");
	assert_string_equal(rp_strerror(0), "success");
}

/*
 * The hint line: the classes a user can act on have one, naming what to
 * do (the option or command); the others have none rather than filler.
 */
static void test_hints(void **state)
{
	static const struct {
		int rc;
		const char *says;	/* NULL: no hint */
	} cases[] = {
		{ RP_ENODEV, "rdma link add" },
		{ RP_ENOGID, "HOST must be an address" },
		{ RP_ETIMEOUT, "--timeout" },
		{ RP_EEXIST, "--force" },
		{ RP_EBADNAME, "--as NAME" },
		{ RP_ECONFIG, "rdmapush keygen" },
		{ RP_ELISTEN, "-p PORT" },
		{ RP_EVERBS, "ulimit -l" },
		{ RP_EBUSY, "-m" },
		{ RP_EAUTH, "--psk" },
		{ -ECONNREFUSED, "rdmapush recv" },
		{ RP_EINTERNAL, NULL },
		{ RP_ECHECKSUM, NULL },
		{ -EIO, NULL },
		{ 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *h = rp_err_hint(cases[i].rc);

		if (!cases[i].says) {
			assert_null(h);
			continue;
		}
		assert_non_null(h);
		assert_non_null(strstr(h, cases[i].says));
		/* One line, after "rdmapush send: hint: ", in 200 columns. */
		assert_null(strchr(h, '\n'));
		assert_true(strlen(h) < 180);
	}
}

/*
 * A hint that fits the cause: where the failed call's errno changes what
 * to do, rp_err_hint_for() says that and not the class's other advice;
 * an unknown cause gets the class's general hint. The cause reaches main
 * with the held error (RP_ERR_WHY, rp_trace_held_cause()).
 */
static void test_hints_by_cause(void **state)
{
	static const struct {
		int rc, cause;
		const char *says, *not;	/* not: NULL when anything goes */
	} cases[] = {
		/* A kernel without RDMA: the module, and the lab. */
		{ RP_ENODEV, ENOSYS, "modprobe rdma_rxe", NULL },
		{ RP_ENODEV, ENOSYS, "scripts/rdma-lab", NULL },
		/* -d names none of the devices there: not "create one". */
		{ RP_ENODEV, ENOENT, "-d", "rdma link add" },
		{ RP_ENODEV, ENETDOWN, "ip link", "rdma link add" },
		{ RP_ENODEV, 0, "rdma link add", "modprobe" },
		{ RP_ENODEV, EIO, "rdma link add", "modprobe" },
		/* recv -b notanaddr is not told about ports. */
		{ RP_ELISTEN, EADDRNOTAVAIL, "-b must be an address", "1024" },
		{ RP_ELISTEN, EADDRNOTAVAIL, "leave -b out", "in use" },
		{ RP_ELISTEN, EADDRINUSE, "-p PORT", "-b" },
		{ RP_ELISTEN, EADDRINUSE, "listens on this port", "1024" },
		{ RP_ELISTEN, EACCES, "below 1024", "-b" },
		{ RP_ELISTEN, EACCES, "-p PORT", "in use" },
		{ RP_ELISTEN, 0, "-p PORT", NULL },
		/* RTR finds no ARP answer: not the locked-memory limit. */
		{ RP_EVERBS, ETIMEDOUT, "ARP", "ulimit" },
		{ RP_EVERBS, EHOSTUNREACH, "route", "ulimit" },
		{ RP_EVERBS, ENETUNREACH, "route", "ulimit" },
		{ RP_EVERBS, ENOMEM, "ulimit -l", NULL },
		/* A cause of no other class changes nothing. */
		{ RP_ETIMEOUT, ENOSYS, "--timeout", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *h = rp_err_hint_for(cases[i].rc, cases[i].cause);

		assert_non_null(h);
		if (!strstr(h, cases[i].says) ||
		    (cases[i].not && strstr(h, cases[i].not)))
			fail_msg("hint for %s, cause %d: '%s'",
				 rp_err_name(cases[i].rc), cases[i].cause, h);
		assert_null(strchr(h, '\n'));
		assert_true(strlen(h) < 180);
	}
	assert_null(rp_err_hint_for(RP_EINTERNAL, ENOSYS));
	assert_string_equal(rp_err_hint_for(RP_ELISTEN, 0),
			    rp_err_hint(RP_ELISTEN));

	/* The first error's cause is held with it; later ones are not. */
	rp_trace_init(RP_V_QUIET, "test");
	rp_trace_hold_first_error();
	assert_int_equal(rp_trace_held_cause(), 0);
	RP_ERR_WHY(EADDRINUSE, "cannot listen on * port 1: in use");
	RP_ERR_WHY(EACCES, "a later error");
	assert_string_equal(rp_trace_held_error(),
			    "cannot listen on * port 1: in use");
	assert_int_equal(rp_trace_held_cause(), EADDRINUSE);
	rp_trace_init(RP_V_QUIET, "test");
	rp_trace_hold_first_error();
	RP_ERR("no cause given");
	assert_int_equal(rp_trace_held_cause(), 0);
	rp_trace_init(RP_V_QUIET, "test");
	assert_int_equal(rp_trace_held_cause(), 0);
}

/*
 * A caller that knows what its callee's error means says it instead:
 * the receiver of a key-less sender fails in one line, "did not
 * authenticate", not that and "expected AUTH, got HELLO" too.
 */
static void test_error_instead(void **state)
{
	(void)state;
	rp_trace_init(RP_V_QUIET, "test");
	rp_trace_hold_first_error();
	RP_ERR_WHY(EPROTO, "expected AUTH from h, got HELLO");
	capture_start();
	RP_ERR_INSTEAD("h did not authenticate: use the same --psk");
	assert_string_equal(capture_end(), "");
	assert_string_equal(rp_trace_held_error(),
			    "h did not authenticate: use the same --psk");
	assert_int_equal(rp_trace_held_cause(), 0);
	/* Nothing held (main did not ask): printed as any error. */
	rp_trace_init(RP_V_QUIET, "test");
	capture_start();
	RP_ERR_INSTEAD("h did not authenticate");
	assert_string_equal(capture_end(),
			    "rdmapush test: error: h did not authenticate\n");
	assert_null(rp_trace_held_error());
}

/*
 * A hint only the detection site can give (which GID, and why none
 * fits) is held with its error for main's hint line, so the failure is
 * one line and one hint; when nothing is held it follows the error line
 * at once, under the same prefix.
 */
static void test_error_hint(void **state)
{
	(void)state;
	rp_trace_init(RP_V_QUIET, "test");
	rp_trace_hold_first_error();
	assert_null(rp_trace_held_hint());
	capture_start();
	RP_ERR_HINT("connect to the RDMA interface's address",
		    "no RoCE v2 GID equals 127.0.0.1");
	RP_ERR_HINT("a later hint", "a later error");
	assert_string_equal(capture_end(),
			    "rdmapush test: error: a later error\n"
			    "rdmapush test: hint: a later hint\n");
	assert_string_equal(rp_trace_held_error(),
			    "no RoCE v2 GID equals 127.0.0.1");
	assert_string_equal(rp_trace_held_hint(),
			    "connect to the RDMA interface's address");
	/* An error without a hint of its own leaves the table's. */
	rp_trace_init(RP_V_QUIET, "test");
	rp_trace_hold_first_error();
	RP_ERR("plain");
	assert_null(rp_trace_held_hint());
	rp_trace_init(RP_V_QUIET, "test");
	assert_null(rp_trace_held_hint());
}

/* --as NAME names one SOURCE, not a tree: only such a push is told to
 * use it when a file exists; the receiver, or a push of several sources
 * or a tree, is told only of --force. */
static void test_hint_as_one_source(void **state)
{
	const char *h;

	(void)state;
	h = rp_err_hint_push(RP_EEXIST, 0, 1, false);
	assert_non_null(strstr(h, "--force"));
	assert_non_null(strstr(h, "--as NAME"));
	assert_null(strchr(h, '\n'));
	assert_true(strlen(h) < 180);
	/* n == 0: the receiver; 1: a tree; 2, 3: several sources. */
	for (int n = 0; n <= 3; n++) {
		h = rp_err_hint_push(RP_EEXIST, 0, n, n == 1);
		assert_non_null(strstr(h, "--force"));
		assert_null(strstr(h, "--as"));
	}
	/* Another error's hint is the same for any push, by its cause. */
	assert_string_equal(rp_err_hint_push(RP_ENODEV, 0, 1, false),
			    rp_err_hint(RP_ENODEV));
	assert_string_equal(rp_err_hint_push(RP_ELISTEN, EADDRINUSE, 1, false),
			    rp_err_hint_for(RP_ELISTEN, EADDRINUSE));
	assert_null(rp_err_hint_push(RP_ECHECKSUM, 0, 1, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_enum),
		cmocka_unit_test(test_documented_covers_table),
		cmocka_unit_test(test_distinct_values),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_errno),
		cmocka_unit_test(test_success),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_hints_by_cause),
		cmocka_unit_test(test_error_instead),
		cmocka_unit_test(test_error_hint),
		cmocka_unit_test(test_hint_as_one_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
