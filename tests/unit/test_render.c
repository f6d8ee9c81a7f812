// SPDX-License-Identifier: MIT
/* Unit tests of rdmapush render's text: XML escaping of what came from a
 * trace (a peer's path), invalid UTF-8 and control characters, the cut,
 * the field helpers (hex, QP lists, sizes), and the HELLO's label (a
 * push's size, a ping's round trips). The pictures themselves
 * are checked by tests/render/render.sh. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdmapush/render.h"
#include "../../src/render_int.h"

/* rp_render_xml_text(s, max) into a string (freed by the caller). */
static char *escaped(const char *s, int max, int *chars)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*chars = rp_render_xml_text(f, s, max);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void check(const char *in, int max, const char *want, int want_chars)
{
	int chars;
	char *out = escaped(in, max, &chars);

	assert_string_equal(out, want);
	assert_int_equal(chars, want_chars);
	free(out);
}

static void test_escape(void **state)
{
	(void)state;
	check("in/<script>alert('x')</script> & \"q\"", 0,
	      "in/&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; "
	      "&quot;q&quot;", 36);
	check("", 0, "", 0);
	check(NULL, 0, "", 0);
	check("plain", 0, "plain", 5);
}

static void test_bad_bytes(void **state)
{
	(void)state;
	/* Control characters XML 1.0 forbids; tab and newline are fine. */
	check("a\001b\033c\td\ne", 0, "a?b?c\td\ne", 9);
	/* Stray continuation, cut sequence, overlong, surrogate, FFFE. */
	check("x\x80y\xc3z\xc0\xafw\xed\xa0\x80v\xef\xbf\xbe.", 0,
	      "x?y?z??w???v???.", 16);
	/* Valid UTF-8 passes whole: 2, 3 and 4 bytes. */
	check("é→😀", 0, "é→😀", 3);
}

static void test_cut(void **state)
{
	(void)state;
	check("abcdefghij", 8, "abcde...", 8);
	check("abcdefgh", 8, "abcdefgh", 8);	/* fits: not cut */
	check("<<<<<<<<<<", 6, "&lt;&lt;&lt;...", 6);
	check("ééééééééé", 5, "éé...", 5);	/* never inside a character */
}

static void test_fields(void **state)
{
	json_object *f = json_tokener_parse("{\"qpn\": 17, \"rkey\": 6699, "
		"\"list\": [17, 18], \"s\": \"x\", \"big\": -1, \"d\": 2.5}");
	char buf[64];
	int64_t v;

	(void)state;
	assert_non_null(f);
	assert_string_equal(rp_render_hex(f, "qpn", buf, sizeof(buf)), "0x11");
	assert_string_equal(rp_render_hex(f, "rkey", buf, sizeof(buf)),
			    "0x1a2b");
	assert_string_equal(rp_render_hex(f, "list", buf, sizeof(buf)),
			    "0x11,0x12");
	assert_string_equal(rp_render_hex(f, "s", buf, sizeof(buf)), "?");
	assert_string_equal(rp_render_hex(f, "none", buf, sizeof(buf)), "?");
	assert_string_equal(rp_render_hex(NULL, "qpn", buf, sizeof(buf)), "?");
	assert_true(rp_render_int(f, "qpn", &v));
	assert_int_equal(v, 17);
	assert_true(rp_render_int(f, "d", &v));
	assert_int_equal(v, 2);
	assert_false(rp_render_int(f, "s", &v));
	assert_false(rp_render_int(NULL, "s", &v));
	assert_string_equal(rp_render_str(f, "s"), "x");
	assert_null(rp_render_str(f, "qpn"));
	assert_string_equal(rp_render_bytes(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(rp_render_bytes(1023, buf, sizeof(buf)), "1023 B");
	assert_string_equal(rp_render_bytes(10u << 20, buf, sizeof(buf)),
			    "10.0 MiB");
	assert_string_equal(rp_render_bytes(3ull << 40, buf, sizeof(buf)),
			    "3.0 TiB");
	json_object_put(f);
}

/* The HELLO arrow's detail line for the fields in json. */
static void hello_det(const char *json, const char *want)
{
	json_object *f = json_tokener_parse(json);
	struct rr_ev e = { .kind = RR_MSG, .type = "HELLO", .f = f,
			   .match = -1 };
	char m[320], det[320];

	assert_non_null(f);
	rp_render_msg_label(&e, m, det, sizeof(m));
	assert_string_equal(m, "HELLO  qpn 0x11  psn 0x5a3f21");
	assert_string_equal(det, want);
	json_object_put(f);
}

/* A ping's HELLO carries its round trips where a push's has its size. */
static void test_hello_label(void **state)
{
	(void)state;
	hello_det("{\"qpn\": 17, \"psn\": 5914401, \"mtu\": 1024, "
		  "\"chunk\": 1048576, \"window\": 8, \"qps\": 1, "
		  "\"total\": 10485760, \"ping\": false}",
		  "mtu 1024 · chunk 1.0 MiB · window 8 · qps 1 · "
		  "total 10.0 MiB");
	hello_det("{\"qpn\": 17, \"psn\": 5914401, \"mtu\": 1024, "
		  "\"chunk\": 2, \"window\": 1, \"qps\": 1, "
		  "\"total\": 50, \"ping\": true}",
		  "mtu 1024 · chunk 2 B · window 1 · qps 1 · 50 round trips");
	hello_det("{\"qpn\": 17, \"psn\": 5914401, \"mtu\": 1024, "
		  "\"chunk\": 2, \"window\": 1, \"qps\": 1, "
		  "\"total\": 1, \"ping\": true}",
		  "mtu 1024 · chunk 2 B · window 1 · qps 1 · 1 round trip");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_hello_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
