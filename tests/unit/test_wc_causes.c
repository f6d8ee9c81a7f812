// SPDX-License-Identifier: MIT
/*
 * The table of failed completions (src/wc_causes.c): every row says
 * something, on each link layer, in one short hint; a status without a
 * row gets none; and the manual's COMPLETION ERRORS section lists exactly
 * the table's rows, by the words and numbers the program prints. That
 * each row's failure reads as it should in a push and a ping is
 * test_session's test_every_completion_status and test_ping's
 * test_completion_status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "capture.h"
#include "rdmapush/trace.h"
#include "rdmapush/wc_causes.h"

/* A hint is one line a reader takes in at a glance. */
#define HINT_MAX	200

static void nonempty(const char *what, const char *s, int status)
{
	if (!s || !s[0] || strchr(s, '\n'))
		fail_msg("%s of %s: empty or several lines",
			 what, rp_wc_status_id(status));
}

static void test_rows_say_something(void **state)
{
	bool seen[RP_WCS_MAX] = { false };
	const struct rp_wc_cause *rows;
	size_t n;

	(void)state;
	rows = rp_wc_causes(&n);
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++) {
		int st = (int)rows[i].status;
		char h[RP_HELD_HINT_MAX];

		assert_in_range(st, 1, RP_WCS_MAX - 1);
		assert_false(seen[st]);
		seen[st] = true;
		assert_ptr_equal(rp_wc_cause(st), &rows[i]);
		assert_string_not_equal(rp_wc_status_name(st),
					"unknown completion status");
		assert_string_not_equal(rp_wc_status_id(st), "?");
		nonempty("means", rows[i].means, st);
		nonempty("roce", rows[i].roce, st);
		nonempty("ib", rows[i].ib, st);
		nonempty("check", rows[i].check, st);
		for (int roce = 0; roce < 2; roce++) {
			assert_ptr_equal(rp_wc_hint(h, sizeof(h), st, roce),
					 h);
			assert_non_null(strstr(h, roce ? rows[i].roce :
					       rows[i].ib));
			assert_non_null(strstr(h, rows[i].check));
			if (strlen(h) > HINT_MAX)
				fail_msg("hint of %s: %zu bytes",
					 rp_wc_status_id(st), strlen(h));
		}
	}
	/* What the readers meet most names its usual suspects. */
	assert_non_null(strstr(rp_wc_cause(RP_WCS_RETRY_EXC_ERR)->roce,
			       "GID"));
	assert_non_null(strstr(rp_wc_cause(RP_WCS_RETRY_EXC_ERR)->roce,
			       "4791"));
	assert_non_null(strstr(rp_wc_cause(RP_WCS_RETRY_EXC_ERR)->ib,
			       "LID"));
	assert_non_null(strstr(rp_wc_cause(RP_WCS_REM_ACCESS_ERR)->roce,
			       "rkey"));
	assert_non_null(strstr(rp_wc_cause(RP_WCS_WR_FLUSH_ERR)->check,
			       "first failure"));
}

/* No row: no hint, and the words still come (ibv_wc_status_str's). */
static void test_status_without_row(void **state)
{
	char h[RP_HELD_HINT_MAX] = "x";

	(void)state;
	assert_null(rp_wc_cause(RP_WCS_SUCCESS));
	assert_null(rp_wc_hint(h, sizeof(h), RP_WCS_SUCCESS, true));
	assert_string_equal(h, "");
	assert_null(rp_wc_cause(RP_WCS_INV_EECN_ERR));
	assert_string_equal(rp_wc_status_name(RP_WCS_INV_EECN_ERR),
			    "invalid EE context number");
	assert_string_equal(rp_wc_status_name(RP_WCS_RETRY_EXC_ERR),
			    "transport retry counter exceeded");
	assert_string_equal(rp_wc_status_id(RP_WCS_RETRY_EXC_ERR),
			    "RETRY_EXC_ERR");
	assert_string_equal(rp_wc_status_name(-1),
			    "unknown completion status");
	assert_string_equal(rp_wc_status_name(RP_WCS_MAX),
			    "unknown completion status");
	assert_string_equal(rp_wc_status_id(RP_WCS_MAX), "?");
}

/*
 * The first failed completion, reported: one error line naming the
 * status and what it means, the hint line (not held: printed at once),
 * and with --trace the wc.failed event, whose text and JSON both carry
 * the causes and what to check.
 */
static void test_report_first(void **state)
{
	const struct rp_wc_cause *c = rp_wc_cause(RP_WCS_RETRY_EXC_ERR);
	struct rp_wc_failure f = {
		.status = RP_WCS_RETRY_EXC_ERR, .vendor_err = 0x81,
		.wr_id = 5, .qpn = 0x11, .which = "", .roce = true,
	};
	char path[] = "/tmp/rp-test-wc.XXXXXX";
	char want[512], json[4096], h[RP_HELD_HINT_MAX];
	const char *err;
	size_t len;
	FILE *fp;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	rp_trace_init(RP_V_TRACE, "send");
	assert_int_equal(rp_trace_json_open(path), 0);
	capture_start();
	rp_wc_report_first(&f);
	err = capture_end();
	rp_trace_json_close();
	rp_trace_init(RP_V_QUIET, "test");

	snprintf(want, sizeof(want), "rdmapush send: error: work completion "
		 "failed: transport retry counter exceeded (status 12, "
		 "vendor_err 0x81) wr_id=5 opcode=n/a qp=0x11; %s\n"
		 "rdmapush send: hint: %s\n", c->means,
		 rp_wc_hint(h, sizeof(h), f.status, true));
	assert_memory_equal(err, want, strlen(want));
	snprintf(want, sizeof(want), "completion failed: transport retry "
		 "counter exceeded (status 12) wr_id=5: %s; usual causes on "
		 "RoCE: %s; check %s\n", c->means, c->roce, c->check);
	assert_non_null(strstr(err, want));

	fp = fopen(path, "r");
	assert_non_null(fp);
	len = fread(json, 1, sizeof(json) - 1, fp);
	json[len] = '\0';
	fclose(fp);
	unlink(path);
	assert_non_null(strstr(json, "\"wc.failed\""));
	snprintf(want, sizeof(want), "\"causes\":\"%s\"", c->roce);
	assert_non_null(strstr(json, want));
	snprintf(want, sizeof(want), "\"check\":\"%s\"", c->check);
	assert_non_null(strstr(json, want));
	assert_non_null(strstr(json, "\"link\":\"RoCE\""));
}

/* The manual, read whole (NUL-terminated; free it). */
static char *read_manual(void)
{
	const char *top = getenv("srcdir");
	char path[4096];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/man/rdmapush.1", top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (srcdir)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/*
 * The section's table is one tagged paragraph per row, its tag the
 * status's words and "(number, ID)":
 *   .TP
 *   .BR "remote access error" " (10, REM_ACCESS_ERR)"
 * and nothing else is tagged there.
 */
static void test_manual_table(void **state)
{
	char *man = read_manual();
	char *sec, *end, *p;
	const struct rp_wc_cause *rows;
	size_t n, tags = 0;

	(void)state;
	sec = strstr(man, "\n.SH COMPLETION ERRORS\n");
	assert_non_null(sec);
	end = strstr(sec + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (p = strstr(sec, "\n.TP\n"); p; p = strstr(p + 1, "\n.TP\n"))
		tags++;
	rows = rp_wc_causes(&n);
	assert_int_equal(tags, n);
	for (size_t i = 0; i < n; i++) {
		int st = (int)rows[i].status;
		char tag[256];

		snprintf(tag, sizeof(tag), "\n.TP\n.BR \"%s\" \" (%d, %s)\"\n",
			 rp_wc_status_name(st), st, rp_wc_status_id(st));
		if (!strstr(sec, tag))
			fail_msg("not in the manual's COMPLETION ERRORS:%s",
				 tag);
	}
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_say_something),
		cmocka_unit_test(test_status_without_row),
		cmocka_unit_test(test_report_first),
		cmocka_unit_test(test_manual_table),
	};

	rp_trace_init(RP_V_QUIET, "test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
