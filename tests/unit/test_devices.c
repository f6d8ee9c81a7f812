// SPDX-License-Identifier: MIT
/* Unit tests of `rdmapush devices`' formatting (src/devices.c) from
 * synthetic devices: the names of speeds, widths and GID types; the
 * text, where a RoCE v2 GID shows as such and the GID --for chose is
 * marked and explained; the JSON object's members; and the local
 * address the kernel would use for a host. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "rdmapush/devices.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

/* rxe0: one Ethernet port, two RoCE v2 GIDs and a RoCE v1 one. */
static struct rp_gid_info eth_gids[] = {
	{ .index = 0, .type = RP_GID_ROCE_V2, .netdev = "eth0",
	  .raw = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12,
		   0x34, 0x56 } },
	{ .index = 1, .type = RP_GID_ROCE_V2, .netdev = "eth0",
	  .raw = { [10] = 0xff, 0xff, 10, 0, 0, 1 } },
	{ .index = 2, .type = RP_GID_ROCE_V1, .netdev = "eth0",
	  .raw = { [10] = 0xff, 0xff, 10, 0, 0, 1 } },
};
/* mlx5_0: one InfiniBand port, 4X EDR, its GID 0. */
static struct rp_gid_info ib_gids[] = {
	{ .index = 0, .type = RP_GID_IB,
	  .raw = { 0xfe, 0x80, [8] = 0x7c, 0xfe, 0x90, 0x03, 0x00, 0xa5,
		   0x95, 0xc0 } },
};
static struct rp_port_info eth_port = {
	.num = 1, .state = 4, .state_name = "PORT_ACTIVE",
	.link = RP_LINK_ETHERNET, .active_mtu = 1024, .max_mtu = 4096,
	.active_speed = 1, .active_width = 1, .gid_tbl_len = 1024,
	.gids = eth_gids, .ngids = 3,
};
static struct rp_port_info ib_port = {
	.num = 1, .state = 4, .state_name = "PORT_ACTIVE",
	.link = RP_LINK_IB, .active_mtu = 4096, .max_mtu = 4096,
	.active_speed = 32, .active_width = 2, .lid = 0x12,
	.gid_tbl_len = 128, .gids = ib_gids, .ngids = 1,
};
static struct rp_dev_info devs[] = {
	{ .name = "rxe0", .node_guid = 0x505400fffe123456ull,
	  .fw_ver = "0.0.0", .max_qp = 1048560, .max_cq = 1048576,
	  .max_cqe = 32767, .max_mr = 524287, .max_mr_size = UINT64_MAX,
	  .max_qp_wr = 1048576, .max_sge = 32, .max_qp_rd_atom = 128,
	  .max_qp_init_rd_atom = 128, .ports = &eth_port, .nports = 1 },
	{ .name = "mlx5_0", .node_guid = 0x7cfe900300a595c0ull,
	  .fw_ver = "16.35.2000", .max_qp = 262144, .ports = &ib_port,
	  .nports = 1 },
};
static const struct rp_dev_list list = { .devs = devs, .ndevs = 2 };

/* --for 10.0.0.2, reached from 10.0.0.1: rxe0 port 1 GID 1. */
static struct rp_devices_for chosen_for(void)
{
	struct rp_devices_for f = {
		.host = "10.0.0.2", .local_addr = "10.0.0.1", .chosen = true,
		.choice = { .dev = "rxe0", .port = 1, .gid_index = 1,
			    .type = RP_GID_ROCE_V2, .why = RP_PICK_BY_ADDR },
	};

	memcpy(f.choice.gid, eth_gids[1].raw, 16);
	return f;
}

static char *render_text(const struct rp_devices_for *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	rp_devices_print_text(m, &list, f);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* The whole line of text that contains needle (static buffer). */
static const char *line_with(const char *text, const char *needle)
{
	static char line[512];
	const char *p = strstr(text, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(e ? e - b : (long)strlen(b)),
		 b);
	return line;
}

static void test_names(void **state)
{
	char buf[32];
	double g;
	int lanes;

	(void)state;
	assert_string_equal(rp_gid_type_name(RP_GID_IB), "IB");
	assert_string_equal(rp_gid_type_name(RP_GID_ROCE_V1),
			    "RoCE v1");
	assert_string_equal(rp_gid_type_name(RP_GID_ROCE_V2),
			    "RoCE v2");
	assert_string_equal(rp_gid_type_name(RP_GID_TYPE_MAX), "?");
	assert_string_equal(rp_devices_link_name(RP_LINK_ETHERNET),
			    "Ethernet");
	assert_string_equal(rp_devices_link_name(RP_LINK_IB), "InfiniBand");

	/* ibv_devinfo's reading: speed codes are per lane. */
	assert_string_equal(rp_devices_speed_name(1, &g, buf, sizeof(buf)),
			    "2.5 Gb/s");
	assert_true(g == 2.5);
	assert_string_equal(rp_devices_speed_name(8, &g, buf, sizeof(buf)),
			    "10 Gb/s");	/* FDR10 */
	assert_true(g == 10.0);
	assert_string_equal(rp_devices_speed_name(32, &g, buf, sizeof(buf)),
			    "25 Gb/s");
	assert_string_equal(rp_devices_speed_name(3, &g, buf, sizeof(buf)),
			    "speed code 3");
	assert_true(g == 0);
	/* Width codes are bits, not lane counts: 2 is 4X, 16 is 2X. */
	assert_string_equal(rp_devices_width_name(2, &lanes, buf,
						  sizeof(buf)), "4X");
	assert_int_equal(lanes, 4);
	assert_string_equal(rp_devices_width_name(8, &lanes, buf,
						  sizeof(buf)), "12X");
	assert_int_equal(lanes, 12);
	assert_string_equal(rp_devices_width_name(16, &lanes, buf,
						  sizeof(buf)), "2X");
	assert_int_equal(lanes, 2);
	assert_string_equal(rp_devices_width_name(3, &lanes, buf,
						  sizeof(buf)), "width code 3");
	assert_int_equal(lanes, 0);
}

static void test_text_plain(void **state)
{
	char *t = render_text(NULL);
	const char *l;

	(void)state;
	assert_non_null(strstr(t, "rxe0: node GUID 5054:00ff:fe12:3456, "
			       "firmware 0.0.0\n"));
	assert_non_null(strstr(t, "max_qp_init_rd_atom 128"));
	assert_non_null(strstr(t, "    max_mr_size         18446744073709551615"
			       "  max_qp_wr           1048576\n"));
	/* Each GID: index, type, address, netdev, aligned in columns. */
	l = line_with(t, "::ffff:10.0.0.1");
	assert_non_null(l);
	assert_non_null(strstr(l, "    1  RoCE v2  ::ffff:10.0.0.1 "));
	assert_non_null(strstr(l, "eth0"));
	assert_non_null(strstr(t, "    2  RoCE v1  ::ffff:10.0.0.1 "));
	assert_non_null(strstr(t, "    0  RoCE v2  fe80::5054:ff:fe12:3456"));
	assert_non_null(strstr(t, "GID table (3 of 1024 slots in use)"));
	/* Nothing is marked without --for. */
	assert_null(strstr(t, "<- for"));
	assert_null(strstr(t, "*"));
	assert_null(strstr(t, " \n"));	/* no trailing blanks */
	free(t);
}

static void test_text_ib_vs_ethernet(void **state)
{
	char *t = render_text(NULL);
	const char *l;

	(void)state;
	l = line_with(t, "Ethernet");
	assert_non_null(l);
	assert_string_equal(l, "  port 1: PORT_ACTIVE, Ethernet (RoCE), MTU "
			    "1024 (max 4096)");
	assert_non_null(strstr(t, "(max 4096)\n    speed 2.5 Gb/s x 1X = "
			       "2.5 Gb/s\n"));
	l = line_with(t, "InfiniBand");
	assert_non_null(l);
	assert_string_equal(l, "  port 1: PORT_ACTIVE, InfiniBand, MTU 4096 "
			    "(max 4096), LID 0x0012");
	assert_non_null(strstr(t, "LID 0x0012\n    speed 25 Gb/s x 4X = "
			       "100 Gb/s\n"));
	/* An IB GID has no netdev. */
	l = line_with(t, "fe80::7cfe:9003:a5:95c0");
	assert_non_null(l);
	assert_non_null(strstr(l, "  IB  "));
	assert_non_null(strstr(l, " -"));
	free(t);
}

static void test_text_marked(void **state)
{
	struct rp_devices_for f = chosen_for();
	char *t = render_text(&f);
	const char *l;

	(void)state;
	l = line_with(t, "1  RoCE v2  ::ffff:10.0.0.1");
	assert_non_null(l);
	assert_true(!strncmp(l, "    *     1  RoCE v2", 20));
	assert_non_null(strstr(l, "<- for 10.0.0.2"));
	/* The same address as RoCE v1 is not the one. */
	l = line_with(t, "2  RoCE v1");
	assert_non_null(l);
	assert_null(strstr(l, "*"));
	assert_null(strstr(l, "<- for"));
	assert_non_null(strstr(t, "\nfor 10.0.0.2: the kernel reaches it from "
			       "10.0.0.1\n  rdmapush would use: rxe0 port 1 GID "
			       "1 ::ffff:10.0.0.1 (RoCE v2), marked *\n  why: RoCE v2 GID ::ffff:10.0.0.1 = the "
			       "local address 10.0.0.1 the kernel routes "
			       "10.0.0.2 through\n"));
	/* Only one line is marked. */
	assert_ptr_equal(strstr(t, "<- for"), strrchr(t, '<'));
	assert_ptr_equal(strchr(t, '*'), strstr(t, "*     1  RoCE v2  ::ffff:10.0.0.1"));
	free(t);
}

static void test_text_not_chosen(void **state)
{
	struct rp_devices_for f = {
		.host = "192.0.2.7", .local_addr = "192.0.2.1",
		.error = "no RoCE v2 GID equals the control connection's "
			 "local address 192.0.2.1\n  hint: ...",
	};
	char *t = render_text(&f);

	(void)state;
	assert_null(strstr(t, "<- for"));
	assert_non_null(strstr(t, "\nfor 192.0.2.7: the kernel reaches it "
			       "from 192.0.2.1\n  no GID would be used: no RoCE "
			       "v2 GID equals the control connection's local "
			       "address 192.0.2.1\n"));
	free(t);
}

static void test_reasons(void **state)
{
	struct rp_devices_for f = chosen_for();
	char buf[256];

	(void)state;
	f.choice.why = RP_PICK_BY_INDEX;
	f.choice.gid_index = 3;
	assert_string_equal(rp_devices_reason(&f, buf, sizeof(buf)),
			    "GID index 3 was given with -g");
	f.choice.why = RP_PICK_IB_DEFAULT;
	snprintf(f.choice.dev, sizeof(f.choice.dev), "mlx5_0");
	memcpy(f.choice.gid, ib_gids[0].raw, 16);
	assert_string_equal(rp_devices_reason(&f, buf, sizeof(buf)),
			    "mlx5_0 port 1 is InfiniBand: packets go by LID, "
			    "and GID 0 (fe80::7cfe:9003:a5:95c0) is the port's "
			    "own");
}

static struct json_object *render_json(const struct rp_devices_for *f,
				       int rc, const char *error)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct json_object *o;

	assert_non_null(m);
	assert_int_equal(rp_devices_print_json(m, &list, f, rc, error), 0);
	assert_int_equal(fclose(m), 0);
	assert_int_equal(buf[len - 1], '\n');
	assert_null(memchr(buf, '\n', len - 1));	/* one line */
	o = json_tokener_parse(buf);
	free(buf);
	assert_non_null(o);
	return o;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

static void test_json(void **state)
{
	struct rp_devices_for f = chosen_for();
	struct json_object *o = render_json(&f, 0, NULL);
	struct json_object *d, *p, *g, *c;

	(void)state;
	assert_string_equal(str(o, "type"), "devices");
	assert_string_equal(str(o, "status"), "ok");
	assert_int_equal(json_object_array_length(get(o, "devices")), 2);
	d = json_object_array_get_idx(get(o, "devices"), 0);
	assert_string_equal(str(d, "name"), "rxe0");
	assert_string_equal(str(d, "node_guid"), "5054:00ff:fe12:3456");
	assert_int_equal(json_object_get_int(get(d, "max_qp_rd_atom")), 128);
	assert_true(json_object_get_uint64(get(d, "max_mr_size")) ==
		    UINT64_MAX);
	p = json_object_array_get_idx(get(d, "ports"), 0);
	assert_string_equal(str(p, "link_layer"), "Ethernet");
	assert_int_equal(json_object_get_int(get(p, "active_mtu")), 1024);
	assert_string_equal(str(p, "active_width"), "1X");
	assert_int_equal(json_object_array_length(get(p, "gids")), 3);
	g = json_object_array_get_idx(get(p, "gids"), 1);
	assert_string_equal(str(g, "type"), "RoCE v2");
	assert_string_equal(str(g, "gid"), "::ffff:10.0.0.1");
	assert_string_equal(str(g, "netdev"), "eth0");
	assert_true(json_object_get_boolean(get(g, "chosen")));
	g = json_object_array_get_idx(get(p, "gids"), 2);
	assert_false(json_object_get_boolean(get(g, "chosen")));
	d = json_object_array_get_idx(get(o, "devices"), 1);
	p = json_object_array_get_idx(get(d, "ports"), 0);
	assert_string_equal(str(p, "link_layer"), "InfiniBand");
	assert_int_equal(json_object_get_int(get(p, "lid")), 0x12);
	assert_true(json_object_get_double(get(p, "speed_gbps")) == 100.0);

	assert_string_equal(str(o, "for"), "10.0.0.2");
	assert_string_equal(str(o, "local_address"), "10.0.0.1");
	c = get(o, "chosen");
	assert_string_equal(str(c, "device"), "rxe0");
	assert_int_equal(json_object_get_int(get(c, "port")), 1);
	assert_int_equal(json_object_get_int(get(c, "gid_index")), 1);
	assert_string_equal(str(c, "gid"), "::ffff:10.0.0.1");
	assert_string_equal(str(c, "type"), "RoCE v2");
	assert_non_null(strstr(str(c, "reason"), "= the local address "
			       "10.0.0.1 the kernel routes 10.0.0.2"));
	json_object_put(o);
}

static void test_json_error(void **state)
{
	struct rp_devices_for f = { .host = "192.0.2.7",
				    .local_addr = "192.0.2.1" };
	struct json_object *o = render_json(&f, RP_ENOGID, "no GID here");

	(void)state;
	assert_string_equal(str(o, "status"), "error");
	assert_string_equal(str(o, "error"), "no GID here");
	assert_string_equal(str(o, "error_code"), "RP_ENOGID");
	assert_int_equal(json_object_get_int(get(o, "exit_code")), 4);
	assert_null(get(o, "chosen"));
	json_object_put(o);
}

static void test_local_addr(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char text[64];
	const char *err;

	(void)state;
	assert_int_equal(rp_devices_local_addr("127.0.0.1", 18500, &ss, &len,
					       text, sizeof(text)), 0);
	assert_string_equal(text, "127.0.0.1");
	assert_int_equal(ss.ss_family, AF_INET);
	rp_trace_init(RP_V_NORMAL, "devices");
	capture_start();
	assert_int_equal(rp_devices_local_addr("nosuch.invalid", 18500, &ss,
					       &len, text, sizeof(text)),
			 RP_ERESOLVE);
	err = capture_end();
	assert_non_null(strstr(err, "cannot resolve nosuch.invalid"));
}

/* The provider a device probably needs, by its name or its kernel
 * driver's: what is tried before libibverbs loads every provider. */
static void test_provider_guess(void **state)
{
	char out[16];

	(void)state;
	assert_true(rp_verbs_provider_guess("rxe0", false, out, sizeof(out)));
	assert_string_equal(out, "rxe");
	assert_true(rp_verbs_provider_guess("siw12", false, out, sizeof(out)));
	assert_string_equal(out, "siw");
	assert_true(rp_verbs_provider_guess("mlx5_0", false, out, sizeof(out)));
	assert_string_equal(out, "mlx5");
	assert_true(rp_verbs_provider_guess("bnxt_re1", false, out,
					    sizeof(out)));
	assert_string_equal(out, "bnxt_re");
	assert_true(rp_verbs_provider_guess("mlx5_core", true, out,
					    sizeof(out)));
	assert_string_equal(out, "mlx5");
	assert_true(rp_verbs_provider_guess("efa", true, out, sizeof(out)));
	assert_string_equal(out, "efa");
	/* A driver's digits are its name's ("cxgb4"), not an instance's. */
	assert_true(rp_verbs_provider_guess("cxgb4", true, out, sizeof(out)));
	assert_string_equal(out, "cxgb4");
	/* Nothing to load: no name left, or one that is not a plain word. */
	assert_false(rp_verbs_provider_guess("0", false, out, sizeof(out)));
	assert_false(rp_verbs_provider_guess("", true, out, sizeof(out)));
	assert_false(rp_verbs_provider_guess("../x0", false, out, sizeof(out)));
	assert_false(rp_verbs_provider_guess("rx*0", false, out, sizeof(out)));
	assert_false(rp_verbs_provider_guess("averyveryverylongname0", false,
					     out, sizeof(out)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_text_plain),
		cmocka_unit_test(test_text_ib_vs_ethernet),
		cmocka_unit_test(test_text_marked),
		cmocka_unit_test(test_text_not_chosen),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_error),
		cmocka_unit_test(test_local_addr),
		cmocka_unit_test(test_provider_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
