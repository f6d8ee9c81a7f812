// SPDX-License-Identifier: MIT
/* Unit tests of trace's pure parts: byte, rate and ETA text, redraw gate;
 * the held first error main's verdict names; trace events, their text
 * (plurals included) and their --trace-json lines; and what the --json
 * writers print: numbers rounded, fields as the manual lists them. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "rdmapush/devices.h"
#include "rdmapush/err.h"
#include "rdmapush/ping.h"
#include "rdmapush/pool.h"
#include "rdmapush/proto.h"
#include "rdmapush/report.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs_devices.h"

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

/* A note (a link down) replaces the rate at once, on the same line;
 * nothing when the meter is off. */
static void test_progress_note(void **state)
{
	struct rp_progress p;
	const char *out;

	(void)state;
	memset(&p, 0, sizeof(p));
	capture_start();
	rp_progress_note(&p, "link down, reconnecting (attempt %u)", 2u);
	assert_string_equal(capture_end(), "");
	p.enabled = true;
	rp_progress_label(&p, "big.iso");
	capture_start();
	rp_progress_note(&p, "link down, reconnecting (attempt %u)", 2u);
	out = capture_end();
	assert_string_equal(out, "\rbig.iso  link down, reconnecting "
			    "(attempt 2)\033[K");
	assert_true(p.drawn);
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
	/* The quote, so a name cannot close a key="value" field and forge
	 * the next one in a trace line or a "refusing path" message. */
	assert_string_equal(PEER("x\" mode=0777 size=1"),
			    "x\\\" mode=0777 size=1");
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
	RP_EV0("ctrl", "test", "before");
	RP_ERR("the cause");
	RP_EV0("ctrl", "test", "after");
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


/* ---------------------------------------------------------------------
 * Trace events
 */

/* Every type renders as the old printf conversions did. */
static void test_render_types(void **state)
{
	const struct rp_ev_field f[] = {
		EV_S("name", "QP 0x12"), EV_U("port", 1),
		EV_S("access", "LOCAL_WRITE|REMOTE_WRITE"),
		EV_S("why", "the ring"), EV_I("qp", 0),
		EV_X("psn", 0xabc, 6), EV_X("qpn", 0x11, 0),
		EV_O("mode", 0644, 4), EV_D("ms", 536.8709, 0),
		EV_D("s", 3.75, 1), EV_I("neg", -5), EV_T("on", " on QP 1"),
		EV_U("big", UINT64_MAX), EV_B("yes", true),
		EV_P("addr", NULL), EV_S("nil", NULL),
	};
	size_t n = sizeof(f) / sizeof(f[0]);
	char b[512], want[64];

	(void)state;
	assert_string_equal(rp_trace_render(b, sizeof(b), "{name} RESET -> "
			    "INIT: pkey_index=0 port={port} qp_access_flags="
			    "{access} ({why})", f, n),
			    "QP 0x12 RESET -> INIT: pkey_index=0 port=1 "
			    "qp_access_flags=LOCAL_WRITE|REMOTE_WRITE "
			    "(the ring)");
	rp_trace_render(b, sizeof(b), "psn={psn} qpn={qpn} mode={mode} "
			"{ms} ms {s} s {neg}{on} {big} {yes} {nil}", f, n);
	assert_string_equal(b, "psn=0x000abc qpn=0x11 mode=0644 537 ms "
			    "3.8 s -5 on QP 1 18446744073709551615 true "
			    "(null)");
	snprintf(want, sizeof(want), "%p", NULL);
	assert_string_equal(rp_trace_render(b, sizeof(b), "{addr}", f, n),
			    want);
	/* Braces that name no field, or are not a name, stay. */
	assert_string_equal(rp_trace_render(b, sizeof(b), "{nope} {} {a b} "
					    "{port", f, n),
			    "{nope} {} {a b} {port");
	assert_string_equal(rp_trace_render(b, sizeof(b), "% %% %s", f, n),
			    "% %% %s");
	/* A short buffer: cut, terminated, never past it. */
	memset(b, 'x', sizeof(b));
	rp_trace_render(b, 8, "{access}", f, n);
	assert_string_equal(b, "LOCAL_W");
	assert_int_equal(b[8], 'x');
	rp_trace_render(b, 8, "abcdefghijk", f, n);
	assert_string_equal(b, "abcdefg");
}

/* A JSON sink in a temporary file; its path in path. */
static void sink_open(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/rp-test-trace.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rp_trace_json_open(path), 0);
}

/* The lines the sink got, parsed; *n of them. The caller puts each. */
static json_object **sink_read(const char *path, size_t *n)
{
	static json_object *obj[64];
	char line[16384];
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		assert_true(*n < 64);
		assert_non_null(strchr(line, '\n'));
		obj[*n] = json_tokener_parse(line);
		assert_non_null(obj[*n]);
		(*n)++;
	}
	fclose(f);
	return obj;
}

static json_object *member(json_object *o, const char *key,
			   enum json_type type)
{
	json_object *m = NULL;

	assert_true(json_object_object_get_ex(o, key, &m));
	assert_int_equal(json_object_get_type(m), type);
	return m;
}

static const char *str_member(json_object *o, const char *key)
{
	return json_object_get_string(member(o, key, json_type_string));
}

/* One event: text on stderr with --trace, and its JSON line: members,
 * typed fields, text-only wording left out. */
static void test_event_json(void **state)
{
	char path[64];
	json_object **o, *f;
	const char *t;
	size_t n;

	(void)state;
	rp_trace_init(RP_V_TRACE, "send");
	sink_open(path, sizeof(path));
	capture_start();
	RP_EV("verbs", "qp.modify", "{name} RTR -> RTS: sq_psn={sq_psn} "
	      "({ack_ms} ms){on}", EV_S("name", "QP 0x11"),
	      EV_X("sq_psn", 0x1234, 6), EV_D("ack_ms", 536.87, 0),
	      EV_T("on", " on QP 1"), EV_U("qp", 1), EV_U("qpn", 0x11),
	      EV_I("neg", -3), EV_B("grh", true),
	      EV_U("big", UINT64_MAX), EV_S("nil", NULL));
	RP_EV0("verbs", "pd.alloc", "PD allocated");
	t = capture_end();
	rp_trace_json_close();
	assert_non_null(strstr(t, "] send verbs   QP 0x11 RTR -> RTS: "
			       "sq_psn=0x001234 (537 ms) on QP 1\n"));
	assert_non_null(strstr(t, "] send verbs   PD allocated\n"));
	o = sink_read(path, &n);
	assert_int_equal(n, 2);
	assert_int_equal(json_object_get_int(member(o[0], "v", json_type_int)),
			 RP_TRACE_SCHEMA);
	member(o[0], "t", json_type_double);
	assert_string_equal(str_member(o[0], "side"), "send");
	assert_int_equal(json_object_get_int(member(o[0], "pid",
						    json_type_int)), getpid());
	assert_string_equal(str_member(o[0], "area"), "verbs");
	assert_string_equal(str_member(o[0], "kind"), "qp.modify");
	assert_string_equal(str_member(o[0], "text"), "QP 0x11 RTR -> RTS: "
			    "sq_psn=0x001234 (537 ms) on QP 1");
	f = member(o[0], "f", json_type_object);
	assert_string_equal(str_member(f, "name"), "QP 0x11");
	assert_int_equal(json_object_get_int64(member(f, "sq_psn",
						      json_type_int)), 0x1234);
	assert_true(json_object_get_double(member(f, "ack_ms",
						  json_type_double)) > 536.86);
	assert_int_equal(json_object_get_int(member(f, "qp", json_type_int)),
			 1);
	assert_int_equal(json_object_get_int(member(f, "neg", json_type_int)),
			 -3);
	assert_true(json_object_get_boolean(member(f, "grh",
						   json_type_boolean)));
	assert_true(json_object_get_uint64(member(f, "big", json_type_int)) ==
		    UINT64_MAX);
	member(f, "nil", json_type_null);
	assert_false(json_object_object_get_ex(f, "on", NULL));
	/* Time goes on, and the zero-field event has an empty "f". */
	assert_true(json_object_get_double(member(o[1], "t",
						  json_type_double)) >=
		    json_object_get_double(member(o[0], "t",
						  json_type_double)));
	assert_int_equal(json_object_object_length(member(o[1], "f",
							  json_type_object)),
			 0);
	for (size_t i = 0; i < n; i++)
		json_object_put(o[i]);
	unlink(path);
}

static void *relay_thread(void *arg)
{
	(void)arg;
	rp_trace_thread_role("relay");
	RP_EV("session", "connect", "pushing on to {host}",
	      EV_S("host", "c"));
	RP_ERR("relay: down");
	return NULL;
}

/* A relay's downstream thread traces as "relay", in its JSON side, its
 * text lines and its error lines; the process's other threads, before
 * and after, keep the process's role. */
static void test_thread_role(void **state)
{
	char path[64];
	json_object **o;
	pthread_t th;
	const char *t;
	size_t n;

	(void)state;
	rp_trace_init(RP_V_TRACE, "recv");
	sink_open(path, sizeof(path));
	capture_start();
	RP_EV0("session", "relay.start", "up");
	assert_int_equal(pthread_create(&th, NULL, relay_thread, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	RP_EV0("session", "relay.end", "down");
	t = capture_end();
	rp_trace_json_close();
	assert_non_null(strstr(t, "] recv session up\n"));
	assert_non_null(strstr(t, "] relay session pushing on to c\n"));
	assert_non_null(strstr(t, "rdmapush relay: error: relay: down\n"));
	assert_non_null(strstr(t, "] recv session down\n"));
	o = sink_read(path, &n);
	assert_int_equal(n, 4);
	assert_string_equal(str_member(o[0], "side"), "recv");
	assert_string_equal(str_member(o[1], "side"), "relay");
	assert_string_equal(str_member(o[2], "side"), "relay");
	assert_string_equal(str_member(o[2], "kind"), "error");
	assert_string_equal(str_member(o[3], "side"), "recv");
	for (size_t i = 0; i < n; i++)
		json_object_put(o[i]);
	unlink(path);
}

/* Peer text and local paths: quotes, backslashes, control characters,
 * invalid UTF-8: the line stays one valid JSON object that says them. */
static void test_event_escaping(void **state)
{
	const char nasty[] = "a\"b\\c\n\td\x01\x7f/\xc3\xa9";
	const char bad[] = "x\xff\xfey";
	char path[64];
	json_object **o, *f;
	size_t n;

	(void)state;
	rp_trace_init(RP_V_QUIET, "recv");
	sink_open(path, sizeof(path));
	RP_EV("ctrl", "msg", "text=\"{text}\"", EV_S("text", nasty),
	      EV_S("path", bad));
	rp_trace_json_close();
	o = sink_read(path, &n);
	assert_int_equal(n, 1);
	f = member(o[0], "f", json_type_object);
	assert_string_equal(str_member(f, "text"), nasty);
	assert_string_equal(str_member(o[0], "text"),
			    "text=\"a\"b\\c\n\td\x01\x7f/\xc3\xa9\"");
	/* Not UTF-8: shown as rp_fmt_peer shows it, never raw. */
	assert_string_equal(str_member(f, "path"), "x\\xff\\xfey");
	json_object_put(o[0]);
	unlink(path);
}

/* Only --trace-json: the gate is open, nothing goes to stderr but the
 * events are written; error lines are "error" events as well. */
static void test_gate_json_only(void **state)
{
	char path[64];
	json_object **o;
	size_t n;

	(void)state;
	rp_trace_init(RP_V_NORMAL, "send");
	assert_false(rp_trace_any());
	sink_open(path, sizeof(path));
	assert_true(rp_trace_any());
	assert_false(rp_trace_on());
	capture_start();
	RP_EV("session", "phase", "phase {phase}", EV_S("phase", "DATA"));
	RP_ERR("ibv_post_send: %s", "busy");
	assert_string_equal(capture_end(),
			    "rdmapush send: error: ibv_post_send: busy\n");
	rp_trace_json_close();
	assert_false(rp_trace_any());
	rp_trace_json_close();	/* twice: harmless */
	o = sink_read(path, &n);
	assert_int_equal(n, 2);
	assert_string_equal(str_member(o[0], "kind"), "phase");
	assert_string_equal(str_member(o[1], "area"), "error");
	assert_string_equal(str_member(o[1], "kind"), "error");
	assert_string_equal(str_member(member(o[1], "f", json_type_object),
				       "message"), "ibv_post_send: busy");
	json_object_put(o[0]);
	json_object_put(o[1]);
	unlink(path);
}

/* A sink that cannot be written (a full disk): said once, then the JSON
 * trace stops and the program goes on; the text trace is untouched. */
static void test_write_failure(void **state)
{
	const char *t, *w;

	(void)state;
	rp_trace_init(RP_V_TRACE, "recv");
	assert_int_equal(rp_trace_json_open("/dev/full"), 0);
	capture_start();
	RP_EV0("ctrl", "one", "first");
	RP_EV0("ctrl", "two", "second");
	RP_ERR("later");
	t = capture_end();
	w = strstr(t, "rdmapush recv: warning: --trace-json /dev/full: "
		   "write: No space left on device; the JSON trace stops "
		   "here\n");
	assert_non_null(w);
	assert_null(strstr(strchr(w, '\n'), "warning"));
	assert_non_null(strstr(t, "first\n"));
	assert_non_null(strstr(t, "second\n"));
	assert_non_null(strstr(t, "rdmapush recv: error: later\n"));
	rp_trace_init(RP_V_NORMAL, "recv");
	assert_false(rp_trace_any());
	/* Not a held cause: the verdict would name the wrong failure. */
	assert_null(rp_trace_held_error());
}

/* A sink that cannot be opened: -errno, and a line naming the path. */
static void test_open_failure(void **state)
{
	(void)state;
	rp_trace_init(RP_V_NORMAL, "send");
	capture_start();
	assert_int_equal(rp_trace_json_open("/nonexistent/dir/t.jsonl"),
			 -ENOENT);
	assert_string_equal(capture_end(), "rdmapush send: error: "
			    "--trace-json /nonexistent/dir/t.jsonl: open: "
			    "No such file or directory\n");
	assert_false(rp_trace_any());
}

/* The sink holds addresses and rkeys: a new file is 0600 whatever the
 * umask, an old one is emptied and made its owner's only, and a symbolic
 * link at the path is refused, its target untouched. */
static void test_sink_file(void **state)
{
	char dir[] = "/tmp/rp-test-sink.XXXXXX", path[64], link[64];
	struct stat st;
	mode_t old = umask(0);
	int fd;

	(void)state;
	rp_trace_init(RP_V_NORMAL, "recv");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	snprintf(link, sizeof(link), "%s/l.jsonl", dir);
	assert_int_equal(rp_trace_json_open(path), 0);
	rp_trace_json_close();
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	close(fd);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(rp_trace_json_open(path), 0);
	rp_trace_json_close();
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 0);

	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret\n", 7), 7);
	close(fd);
	assert_int_equal(symlink(path, link), 0);
	capture_start();
	assert_int_equal(rp_trace_json_open(link), -ELOOP);
	assert_non_null(strstr(capture_end(), "l.jsonl: a symbolic link; "
			       "not followed\n"));
	assert_false(rp_trace_any());
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 7);
	umask(old);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

/* "{key:ONE|MANY}": the word a count asks for; anything else stays. */
static void test_render_plural(void **state)
{
	struct rp_ev_field one[] = {
		EV_U("n", 1), EV_I("i", 1), EV_D("d", 1.0, 1),
		EV_S("s", "x"), EV_X("h", 1, 0),
	};
	struct rp_ev_field two[] = {
		EV_U("n", 2), EV_I("i", -1), EV_D("d", 0.5, 1),
		EV_S("s", "x"), EV_X("h", 0, 0),
	};
	const char *t = "{n} file{n:|s}, {n} entr{n:y|ies}, {i} QP{i:|s}, "
			"{d} second{d:|s}, {h} {h:is|are}";
	char b[256];

	(void)state;
	assert_string_equal(rp_trace_render(b, sizeof(b), t, one, 5),
			    "1 file, 1 entry, 1 QP, 1.0 second, 0x1 is");
	assert_string_equal(rp_trace_render(b, sizeof(b), t, two, 5),
			    "2 files, 2 entries, -1 QPs, 0.5 seconds, 0x0 are");
	/* Not a count, no such field, no "|" or no "}": as written. */
	assert_string_equal(rp_trace_render(b, sizeof(b), "{s:a|b} {z:a|b} "
					    "{n:s} {n:a|b", two, 5),
			    "{s:a|b} {z:a|b} {n:s} {n:a|b");
	/* The longest form is cut like any text. */
	memset(b, 'x', sizeof(b));
	rp_trace_render(b, 6, "{n} {n:one|many}", two, 5);
	assert_string_equal(b, "2 man");
	assert_int_equal(b[6], 'x');
}

/* Sink: the texts of the events, one per line, into a buffer. */
static char sunk[1024];
static void sink_text(void *ctx, const char *area, const char *kind,
		      const char *text)
{
	size_t used = strlen(sunk);

	(void)ctx;
	(void)area;
	(void)kind;
	snprintf(sunk + used, sizeof(sunk) - used, "%s\n", text);
}

/* The pool's start in words that agree with its count of threads. */
static void test_pool_words(void **state)
{
	struct rp_pool *p;

	(void)state;
	rp_trace_init(RP_V_NORMAL, "recv");
	rp_trace_set_sink(sink_text, NULL);
	sunk[0] = '\0';
	assert_int_equal(rp_pool_new(&p, 1, 0), 0);
	rp_pool_free(p);
	assert_int_equal(rp_pool_new(&p, 2, 0), 0);
	rp_pool_free(p);
	rp_trace_set_sink(NULL, NULL);
	assert_non_null(strstr(sunk, "1 worker thread reads, hashes and "
			       "writes the chunks; this thread only drives "
			       "the queue pair\n"));
	assert_non_null(strstr(sunk, "2 worker threads read, hash and write "
			       "the chunks; this thread only drives the queue "
			       "pair\n"));
}

/* ---- the --json writers: numbers, and fields as the manual lists ---- */

/* What fn printed to a memory stream: one line, parsed; raw in *line. */
#define PRINTED(line, call)						\
	do {								\
		size_t len_ = 0;					\
		FILE *m_ = open_memstream(&(line), &len_);		\
		FILE *f = m_;						\
									\
		assert_non_null(m_);					\
		assert_int_equal((call), 0);				\
		assert_int_equal(fclose(m_), 0);			\
		assert_true(len_ > 0 && (line)[len_ - 1] == '\n');	\
		assert_null(memchr((line), '\n', len_ - 1));		\
	} while (0)

static json_object *parsed(const char *line)
{
	json_object *o = json_tokener_parse(line);

	assert_non_null(o);
	return o;
}

/* The manual, read whole (srcdir: make check's; else the tree's). */
static char *manual(void)
{
	const char *dir = getenv("srcdir");
	char path[4096];
	char *text = malloc(1 << 20);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/man/rdmapush.1", dir ? dir : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(text);
	n = fread(text, 1, (1 << 20) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* Between the first line that starts with from and the next that starts
 * with to (a new string). */
static char *between(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from), *b;

	assert_non_null(a);
	b = strstr(a + 1, to);
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

/* key is a word of text: a run of [A-Za-z0-9_] of its own. */
static bool has_word(const char *text, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) ||
					   p[-1] == '_');
		bool after = isalnum((unsigned char)p[k]) || p[k] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

/* The bold words of the JSON OUTPUT section: its .B, .BR and .RB lines
 * (the manual sets every field name in bold there). */
static char *json_section_names(void)
{
	char *man = manual();
	char *sec = between(man, "\n.SH JSON OUTPUT", "\n.SH ");
	char *out = calloc(1, strlen(sec) + 1);
	char *save = NULL;

	assert_non_null(out);
	for (char *l = strtok_r(sec, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, ".B ", 3) || !strncmp(l, ".BR ", 4) ||
		    !strncmp(l, ".RB ", 4)) {
			strcat(out, l);
			strcat(out, "\n");
		}
	}
	free(sec);
	free(man);
	return out;
}

/* o's members are exactly want (NULL-terminated), each a word of doc. */
static void fields_are(json_object *o, const char *doc, const char *what,
		       const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		if (!json_object_object_get_ex(o, want[n], NULL))
			fail_msg("%s: no \"%s\" in %s", what, want[n],
				 json_object_to_json_string(o));
		if (!has_word(doc, want[n]))
			fail_msg("%s: \"%s\" is not in the manual", what,
				 want[n]);
	}
	if ((size_t)json_object_object_length(o) != n)
		fail_msg("%s: %d members, the manual lists %zu: %s", what,
			 json_object_object_length(o), n,
			 json_object_to_json_string(o));
}

static const struct rp_report one_entry = {
	.role = "send", .name = "tree/sub/a.bin", .peer = "10.0.0.2:18500",
	.bytes = 4194304, .files = 1, .seconds = 0.40941467500000073,
	.data_seconds = 0.2996, .have_csum = true, .phase = "DONE",
	.local_qpn = 0x11, .remote_qpn = 0x12, .gid = "::ffff:10.0.0.1",
	.gid_index = 1, .chunk = 1048576, .window = 8,
};

/* Seconds to the millisecond (the data phase's to the microsecond), bits
 * per second and microseconds whole, a "/" as it is: no float noise, no
 * escapes. */
static void test_json_numbers(void **state)
{
	struct rp_ping_result pr = {
		.op = RP_OP_WRITE, .size = 64, .iterations = 1,
		.rtt = { 2.5004, 3.25, 7.75, 9.4999 }, .peer = "10.0.0.2:18500",
	};
	struct rp_report r = one_entry;
	char *line = NULL;

	(void)state;
	PRINTED(line, rp_report_json(f, &r));
	assert_non_null(strstr(line, "\"name\":\"tree/sub/a.bin\""));
	assert_non_null(strstr(line, "\"seconds\":0.409,"));
	assert_non_null(strstr(line, "\"data_seconds\":0.299600,"));
	/* 4194304 B * 8 / 0.40941467500000073 s = 81957081.78 b/s */
	assert_non_null(strstr(line, "\"throughput_bps\":81957082,"));
	assert_null(strstr(line, "\\/"));
	free(line);
	r.seconds = 0;
	r.data_seconds = -0.0000001;
	PRINTED(line, rp_report_json(f, &r));
	assert_non_null(strstr(line, "\"seconds\":0.000,"));
	assert_non_null(strstr(line, "\"data_seconds\":0.000000,"));
	assert_non_null(strstr(line, "\"throughput_bps\":0,"));
	free(line);
	PRINTED(line, rp_report_json_entry(f, "recv", "a/b/c", 1, 0, NULL));
	assert_non_null(strstr(line, "\"path\":\"a/b/c\""));
	free(line);
	PRINTED(line, rp_ping_report(f, &pr, true));
	assert_non_null(strstr(line, "\"rtt_us\":{\"min\":3,\"median\":3,"
			       "\"p99\":8,\"max\":9}"));
	assert_non_null(strstr(line, "\"one_way_us\":{\"min\":1,\"median\":2,"
			       "\"p99\":4,\"max\":5}"));
	free(line);
}

/* A path from the sender in --json: whole however long (two long names
 * that differ only at the end stay apart), its quotes escaped by json-c
 * once, its controls and backslashes as peer text shows them. */
static void test_json_whole_path(void **state)
{
	char path[4097], *line = NULL;
	const char *got;
	json_object *o, *v;

	(void)state;
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	path[sizeof(path) - 2] = 'z';
	memcpy(path, "x\" \\\x1b", 5);
	PRINTED(line, rp_report_json_entry(f, "recv", path, 1, 0, NULL));
	o = parsed(line);
	assert_true(json_object_object_get_ex(o, "path", &v));
	got = json_object_get_string(v);
	assert_int_equal(strncmp(got, "x\" \\\\\\u{001b}aa", 15), 0);
	assert_int_equal(strlen(got), 4096 - 5 + 13);
	assert_int_equal(got[strlen(got) - 1], 'z');
	json_object_put(o);
	free(line);
}

/* Every object --json prints has the fields the manual lists, no more:
 * "name" only with one entry, nothing a failed session never learnt. */
static void test_json_fields(void **state)
{
	static const char *const session_one[] = {
		"type", "role", "name", "files", "failed", "skipped",
		"up_to_date", "peer", "status", "phase", "bytes", "data_bytes",
		"seconds", "data_seconds", "throughput_bps", "xxh3_128",
		"chunk", "window", "local_qpn", "remote_qpn", "gid",
		"gid_index", NULL };
	static const char *const session_many[] = {
		"type", "role", "files", "failed", "skipped", "up_to_date",
		"peer", "status", "phase", "bytes", "data_bytes", "seconds",
		"data_seconds", "throughput_bps", "chunk", "window",
		"local_qpn", "remote_qpn", "gid", "gid_index", NULL };
	static const char *const session_early[] = {
		"type", "role", "files", "failed", "skipped", "up_to_date",
		"peer", "status", "phase", "error", "error_code", "exit_code",
		"bytes", "data_bytes", "seconds", "data_seconds",
		"throughput_bps", NULL };
	static const char *const entry_ok[] = {
		"type", "role", "path", "status", "bytes", NULL };
	static const char *const entry_failed[] = {
		"type", "role", "path", "status", "bytes", "error",
		"error_code", NULL };
	static const char *const entry_skipped[] = {
		"type", "role", "path", "status", "bytes", "reason", NULL };
	static const char *const failure[] = {
		"role", "status", "phase", "error", "error_code",
		"exit_code", NULL };
	static const char *const ping[] = {
		"type", "peer", "op", "size", "iterations", "rtt_us",
		"one_way_us", NULL };
	static const char *const stats[] = {
		"min", "median", "p99", "max", NULL };
	struct rp_ping_result pr = { .op = RP_OP_SEND, .size = 8,
				     .iterations = 100, .peer = "h:1" };
	char *doc = json_section_names();
	struct rp_report r = one_entry;
	json_object *o, *m;
	char *line = NULL;

	(void)state;
	rp_trace_init(RP_V_NORMAL, "send");
	PRINTED(line, rp_report_json(f, &r));
	o = parsed(line);
	fields_are(o, doc, "a session of one entry", session_one);
	json_object_put(o);
	free(line);

	r.name = NULL;
	r.files = 3;
	r.have_csum = false;
	PRINTED(line, rp_report_json(f, &r));
	o = parsed(line);
	fields_are(o, doc, "a session of three entries", session_many);
	json_object_put(o);
	free(line);

	/* Refused before HELLO: no QP, no GID, no chunk size yet. */
	r = (struct rp_report){ .role = "send", .peer = "10.0.0.2:18500",
				.rc = RP_ETIMEOUT, .exit_code = 4,
				.phase = "CONNECT", .seconds = 2.0 };
	PRINTED(line, rp_report_json(f, &r));
	o = parsed(line);
	fields_are(o, doc, "a session that failed early", session_early);
	json_object_put(o);
	free(line);

	PRINTED(line, rp_report_json_entry(f, "send", "a", 3, 0, NULL));
	o = parsed(line);
	fields_are(o, doc, "an entry", entry_ok);
	json_object_put(o);
	free(line);
	PRINTED(line, rp_report_json_entry(f, "send", "a", 0, -ENOENT, NULL));
	o = parsed(line);
	fields_are(o, doc, "a failed entry", entry_failed);
	json_object_put(o);
	free(line);
	PRINTED(line, rp_report_json_entry(f, "send", "a", 0, 0, "a socket"));
	o = parsed(line);
	fields_are(o, doc, "a skipped entry", entry_skipped);
	json_object_put(o);
	free(line);

	PRINTED(line, rp_report_json_failure(f, "recv", -EADDRINUSE,
					     "bind: Address already in use",
					     7));
	o = parsed(line);
	fields_are(o, doc, "a failure before any transfer", failure);
	json_object_put(o);
	free(line);

	PRINTED(line, rp_ping_report(f, &pr, true));
	o = parsed(line);
	fields_are(o, doc, "a ping", ping);
	assert_true(json_object_object_get_ex(o, "rtt_us", &m));
	fields_are(m, doc, "a ping's rtt_us", stats);
	assert_true(json_object_object_get_ex(o, "one_way_us", &m));
	fields_are(m, doc, "a ping's one_way_us", stats);
	json_object_put(o);
	free(line);
	free(doc);
}

/* devices --json: the manual's paragraph on it names every member. */
static void test_json_devices_fields(void **state)
{
	static const char *const top[] = {
		"type", "devices", "for", "local_address", "chosen", "status",
		NULL };
	static const char *const top_failed[] = {
		"type", "devices", "status", "error", "error_code",
		"exit_code", NULL };
	static const char *const dev[] = {
		"name", "node_guid", "fw_ver", "max_qp", "max_cq", "max_cqe",
		"max_mr", "max_mr_size", "max_qp_wr", "max_sge",
		"max_qp_rd_atom", "max_qp_init_rd_atom", "ports", NULL };
	static const char *const port[] = {
		"port", "state", "link_layer", "active_mtu", "max_mtu",
		"active_speed", "active_width", "speed_gbps", "lid",
		"gid_tbl_len", "gids", NULL };
	static const char *const gid[] = {
		"index", "type", "gid", "netdev", "chosen", NULL };
	static const char *const chosen[] = {
		"device", "port", "gid_index", "gid", "type", "reason", NULL };
	struct rp_gid_info g = { .index = 1, .type = RP_GID_ROCE_V2,
				 .raw = { [10] = 0xff, [11] = 0xff, [12] = 10,
					  [15] = 1 }, .netdev = "eth0" };
	struct rp_port_info p = { .num = 1, .state = 4,
				  .state_name = "PORT_ACTIVE",
				  .link = RP_LINK_ETHERNET, .active_mtu = 1024,
				  .max_mtu = 4096, .active_speed = 1,
				  .active_width = 1, .gid_tbl_len = 256,
				  .gids = &g, .ngids = 1 };
	struct rp_dev_info d = { .name = "rxe0", .fw_ver = "0.0.0",
				 .ports = &p, .nports = 1 };
	struct rp_dev_list l = { .devs = &d, .ndevs = 1 };
	struct rp_dev_list none = { 0 };
	struct rp_devices_for fo = { .host = "10.0.0.2",
				     .local_addr = "10.0.0.1", .chosen = true,
				     .choice = { .dev = "rxe0", .port = 1,
						 .gid_index = 1,
						 .type = RP_GID_ROCE_V2,
						 .why = RP_PICK_BY_ADDR } };
	char *man = manual();
	char *doc = between(man, "One JSON object instead of the text",
			    "\n.TP");
	json_object *o, *m;
	char *line = NULL;

	(void)state;
	PRINTED(line, rp_devices_print_json(f, &l, &fo, 0, NULL));
	o = parsed(line);
	fields_are(o, doc, "devices --for", top);
	m = json_object_array_get_idx(json_object_object_get(o, "devices"), 0);
	fields_are(m, doc, "a device", dev);
	m = json_object_array_get_idx(json_object_object_get(m, "ports"), 0);
	fields_are(m, doc, "a port", port);
	m = json_object_array_get_idx(json_object_object_get(m, "gids"), 0);
	fields_are(m, doc, "a GID", gid);
	fields_are(json_object_object_get(o, "chosen"), doc, "the choice",
		   chosen);
	json_object_put(o);
	free(line);
	PRINTED(line, rp_devices_print_json(f, &none, NULL, RP_ENODEV,
					    "no RDMA device"));
	o = parsed(line);
	fields_are(o, doc, "devices, failed", top_failed);
	json_object_put(o);
	free(line);
	free(doc);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_fmt_rate),
		cmocka_unit_test(test_fmt_eta),
		cmocka_unit_test(test_progress_due),
		cmocka_unit_test(test_progress_note),
		cmocka_unit_test(test_fmt_peer),
		cmocka_unit_test(test_fmt_peer_cut),
		cmocka_unit_test(test_json_whole_path),
		cmocka_unit_test(test_sink_file),
		cmocka_unit_test(test_errors_unheld),
		cmocka_unit_test(test_hold_first_error),
		cmocka_unit_test(test_hold_with_trace),
		cmocka_unit_test(test_hold_stop_and_fork),
		cmocka_unit_test(test_render_types),
		cmocka_unit_test(test_event_json),
		cmocka_unit_test(test_thread_role),
		cmocka_unit_test(test_event_escaping),
		cmocka_unit_test(test_gate_json_only),
		cmocka_unit_test(test_write_failure),
		cmocka_unit_test(test_open_failure),
		cmocka_unit_test(test_render_plural),
		cmocka_unit_test(test_pool_words),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_json_devices_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
