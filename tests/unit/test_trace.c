// SPDX-License-Identifier: MIT
/* Unit tests of trace's pure parts: byte, rate and ETA text, redraw gate;
 * and the held first error main's verdict names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "rdmapush/trace.h"

static void test_fmt_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1), "1 B");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1024), "1.00 KiB");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1536), "1.50 KiB");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1 << 20), "1.00 MiB");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 3ull << 29),
			    "1.50 GiB");
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1ull << 40),
			    "1.00 TiB");
	/* TiB is the largest unit. */
	assert_string_equal(rp_fmt_bytes(b, sizeof(b), 1ull << 50),
			    "1024.00 TiB");
	/* Returns buf, and a short buffer is cut, still terminated. */
	assert_ptr_equal(rp_fmt_bytes(b, 4, 1536), b);
	assert_string_equal(b, "1.5");
}

static void test_fmt_rate(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 1000000, 1.0),
			    "8.0 Mb/s");
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 125000000, 1.0),
			    "1.00 Gb/s");
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 125000000, 0.5),
			    "2.00 Gb/s");
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 1000, 1.0),
			    "8.0 kb/s");
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 11675000, 1.0),
			    "93.4 Mb/s");
	/* No time elapsed yet: no division by zero. */
	assert_string_equal(rp_fmt_rate(b, sizeof(b), 1000, 0.0),
			    "0.0 kb/s");
	assert_ptr_equal(rp_fmt_rate(b, sizeof(b), 0, 1.0), b);
	assert_string_equal(b, "0.0 kb/s");
}

static void test_fmt_eta(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 0), "0s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 12), "12s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 59), "59s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 60), "1m00s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 61), "1m01s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 185), "3m05s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 3599), "59m59s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 3600), "1h00m");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 3725), "1h02m");
	/* Rounded to the nearest second; never negative. */
	assert_string_equal(rp_fmt_eta(b, sizeof(b), 59.6), "1m00s");
	assert_string_equal(rp_fmt_eta(b, sizeof(b), -5), "0s");
	assert_ptr_equal(rp_fmt_eta(b, sizeof(b), 1), b);
}

static void test_progress_due(void **state)
{
	struct rp_progress p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.last_draw = 10.0;
	/* Disabled (not a tty, quiet, trace): never. */
	p.enabled = false;
	assert_false(rp_progress_due(&p, 10.3, false));
	assert_false(rp_progress_due(&p, 100.0, false));
	assert_false(rp_progress_due(&p, 100.0, true));

	p.enabled = true;
	assert_false(rp_progress_due(&p, 10.0, false));
	assert_false(rp_progress_due(&p, 10.1, false));
	assert_false(rp_progress_due(&p, 10.24, false));
	assert_true(rp_progress_due(&p, 10.25, false));
	assert_true(rp_progress_due(&p, 10.3, false));
	assert_true(rp_progress_due(&p, 1000.0, false));
	/* The final call only clears a line that was drawn. */
	p.drawn = false;
	assert_false(rp_progress_due(&p, 10.0, true));
	p.drawn = true;
	assert_true(rp_progress_due(&p, 10.0, true));
}

/* Peer text: what a hostile peer sends must reach the terminal inert. */
static void test_fmt_peer(void **state)
{
	char b[RP_PEER_TEXT_MAX];
#define PEER(lit) rp_fmt_peer(b, sizeof(b), lit, sizeof(lit) - 1)

	(void)state;
	assert_string_equal(PEER("plain text 1.0"), "plain text 1.0");
	assert_string_equal(PEER(""), "");
	/* Valid UTF-8 passes. */
	assert_string_equal(PEER("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* Terminal escapes, CR, newline, DEL, NUL. */
	assert_string_equal(PEER("\x1b[2Jx\r\n\x7f"),
			    "\\u{001b}[2Jx\\u{000d}\\u{000a}\\u{007f}");
	assert_string_equal(PEER("a\0b"), "a\\u{0000}b");
	/* The backslash itself, so an escape cannot be forged. */
	assert_string_equal(PEER("\\x41"), "\\\\x41");
	/* C1 encoded, and C1 as a raw (invalid) byte. */
	assert_string_equal(PEER("\xc2\x9b" "1m"), "\\u{009b}1m");
	assert_string_equal(PEER("\x9b" "1m"), "\\x9b1m");
	/* Bidi overrides and isolates, LRM/RLM, ALM. */
	assert_string_equal(PEER("a\xe2\x80\xae" "b"), "a\\u{202e}b");
	assert_string_equal(PEER("\xe2\x81\xa6\xe2\x80\x8f\xd8\x9c"),
			    "\\u{2066}\\u{200f}\\u{061c}");
	/* Invalid UTF-8: overlong, surrogate, beyond U+10FFFF, cut short. */
	assert_string_equal(PEER("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(PEER("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(PEER("\xf4\x90\x80\x80"),
			    "\\xf4\\x90\\x80\\x80");
	assert_string_equal(PEER("ab\xe2\x82"), "ab\\xe2\\x82");
#undef PEER
}

/* Cut to fit, with "...", never inside an escape or a sequence. */
static void test_fmt_peer_cut(void **state)
{
	char b[12];

	(void)state;
	assert_string_equal(rp_fmt_peer(b, sizeof(b), "0123456789a", 11),
			    "0123456789a");
	assert_string_equal(rp_fmt_peer(b, sizeof(b), "0123456789ab", 12),
			    "01234567...");
	assert_string_equal(rp_fmt_peer(b, sizeof(b), "0123\x1b" "56789", 10),
			    "0123...");
	assert_string_equal(rp_fmt_peer(b, sizeof(b),
					"0123456\xe2\x82\xac" "x", 11),
			    "0123456\xe2\x82\xac" "x");
	assert_string_equal(rp_fmt_peer(b, sizeof(b),
					"01234567\xe2\x82\xac" "x", 12),
			    "01234567...");
}

static void test_errors_unheld(void **state)
{
	(void)state;
	rp_trace_init(RP_V_NORMAL, "send");
	capture_start();
	RP_ERR("first %d", 1);
	RP_ERR("second");
	assert_string_equal(capture_end(), "rdmapush send: error: first 1\n"
			    "rdmapush send: error: second\n");
	/* Nothing held unless main asked for it. */
	assert_null(rp_trace_held_error());
}

static void test_hold_first_error(void **state)
{
	(void)state;
	rp_trace_init(RP_V_NORMAL, "send");
	rp_trace_hold_first_error();
	assert_null(rp_trace_held_error());
	capture_start();
	RP_ERR("no credit from %s for %d s", "10.0.0.2:18500", 30);
	RP_ERR("ibv_destroy_qp: busy");
	/* The cause is held; a later, secondary one prints at once. */
	assert_string_equal(capture_end(),
			    "rdmapush send: error: ibv_destroy_qp: busy\n");
	assert_string_equal(rp_trace_held_error(),
			    "no credit from 10.0.0.2:18500 for 30 s");
	/* rp_trace_init starts over: nothing held, nothing holding. */
	rp_trace_init(RP_V_NORMAL, "send");
	assert_null(rp_trace_held_error());
	capture_start();
	RP_ERR("printed");
	assert_string_equal(capture_end(), "rdmapush send: error: printed\n");
}

/* With --trace the held cause also shows inline, in order. */
static void test_hold_with_trace(void **state)
{
	const char *t;

	(void)state;
	rp_trace_init(RP_V_TRACE, "recv");
	rp_trace_hold_first_error();
	capture_start();
	RP_TRACE("ctrl", "before");
	RP_ERR("the cause");
	RP_TRACE("ctrl", "after");
	t = capture_end();
	assert_non_null(strstr(t, " recv error   the cause\n"));
	assert_true(strstr(t, "before") < strstr(t, "the cause"));
	assert_true(strstr(t, "the cause") < strstr(t, "after"));
	assert_null(strstr(t, "rdmapush recv: error:"));
	assert_string_equal(rp_trace_held_error(), "the cause");
}

/* A server: stops holding once it listens; a child it forks holds its
 * own first error, not one the parent held before the fork. */
static void test_hold_stop_and_fork(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	rp_trace_init(RP_V_NORMAL, "recv");
	rp_trace_hold_first_error();
	capture_start();
	RP_ERR("parent cause");
	rp_trace_hold_stop();
	RP_ERR("parent later");
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *h0 = rp_trace_held_error();
		const char *h1;

		RP_ERR("child cause");
		h1 = rp_trace_held_error();
		_exit(!h0 && h1 && !strcmp(h1, "child cause") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(capture_end(),
			    "rdmapush recv: error: parent later\n");
	assert_string_equal(rp_trace_held_error(), "parent cause");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_fmt_rate),
		cmocka_unit_test(test_fmt_eta),
		cmocka_unit_test(test_progress_due),
		cmocka_unit_test(test_fmt_peer),
		cmocka_unit_test(test_fmt_peer_cut),
		cmocka_unit_test(test_errors_unheld),
		cmocka_unit_test(test_hold_first_error),
		cmocka_unit_test(test_hold_with_trace),
		cmocka_unit_test(test_hold_stop_and_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
