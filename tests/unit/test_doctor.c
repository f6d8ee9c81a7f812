// SPDX-License-Identifier: MIT
/* Unit tests of `rdmapush doctor`'s judge (src/doctor.c) from crafted
 * facts: a healthy host (and path) gives no problem and exit 0; each
 * fault gives its finding, naming the cause and the command that fixes
 * it, and exit 4; the text lines and the JSON object say the same. */
#include <errno.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdmapush/doctor.h"
#include "rdmapush/err.h"
#include "rdmapush/proto.h"

/* rxe0 port 1 on eth0: a link-local and an IPv4-mapped RoCE v2 GID. */
static struct rp_gid_info gids[2];
static struct rp_port_info port;
static struct rp_dev_info dev;
static struct rp_doctor_facts f;
static struct rp_doc_report r;

static void healthy(bool host)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00,
					0xff, 0xfe, 0x12, 0x34, 0x56 };
	static const uint8_t v4[16] = { [10] = 0xff, 0xff, 10, 77, 0, 1 };
	static const uint8_t peer[16] = { [10] = 0xff, 0xff, 10, 77, 0, 2 };

	memset(gids, 0, sizeof(gids));
	memset(&port, 0, sizeof(port));
	memset(&dev, 0, sizeof(dev));
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < 2; i++) {
		gids[i].index = (uint32_t)i;
		gids[i].type = RP_GID_ROCE_V2;
		snprintf(gids[i].netdev, sizeof(gids[i].netdev), "eth0");
	}
	memcpy(gids[0].raw, ll, 16);
	memcpy(gids[1].raw, v4, 16);
	port.num = 1;
	port.state = 4;
	snprintf(port.state_name, sizeof(port.state_name), "PORT_ACTIVE");
	port.link = RP_LINK_ETHERNET;
	port.active_mtu = 1024;
	port.max_mtu = 4096;
	port.gids = gids;
	port.ngids = 2;
	snprintf(dev.name, sizeof(dev.name), "rxe0");
	dev.ports = &port;
	dev.nports = 1;
	f.sysfs_devs = 1;
	f.devs.devs = &dev;
	f.devs.ndevs = 1;
	f.rxe_loaded = true;
	f.rxe_module = true;
	snprintf(f.netdevs[0].name, sizeof(f.netdevs[0].name), "eth0");
	f.netdevs[0].mtu = 1500;
	f.netdevs[0].up = true;
	f.netdevs[0].has_addr = true;
	f.nnetdevs = 1;
	f.memlock = 8u << 20;
	f.ring = 8u << 20;
	f.port = 18500;
	if (!host)
		return;
	f.host = "10.77.0.2";
	snprintf(f.local_addr, sizeof(f.local_addr), "10.77.0.1");
	snprintf(f.choice.dev, sizeof(f.choice.dev), "rxe0");
	f.choice.port = 1;
	f.choice.gid_index = 1;
	memcpy(f.choice.gid, v4, 16);
	f.choice.type = RP_GID_ROCE_V2;
	f.our_mtu = 1024;
	f.recv_tcp = (struct rp_doc_tcp){ .port = 18500, .tried = true };
	f.ping_tcp = (struct rp_doc_tcp){ .port = 18501, .tried = true };
	f.trips[0] = (struct rp_doc_trip){ .op = RP_OP_SEND, .tried = true,
					   .connected = true, .us = 40 };
	f.trips[1] = (struct rp_doc_trip){ .op = RP_OP_WRITE, .tried = true,
					   .connected = true, .us = 30 };
	memcpy(f.peer_gid, peer, 16);
	f.peer_mtu = 1024;
}

/* The one finding of severity sev and check, or fail. */
static const struct rp_doc_finding *only(enum rp_doc_sev sev,
					 const char *check)
{
	const struct rp_doc_finding *hit = NULL;
	size_t n = 0;

	for (size_t i = 0; i < r.n; i++) {
		if (r.f[i].sev != sev)
			continue;
		n++;
		if (!strcmp(r.f[i].check, check))
			hit = &r.f[i];
	}
	if (n != 1 || !hit) {
		for (size_t i = 0; i < r.n; i++)
			print_message("  %s [%s] %s; %s; fix: %s\n",
				      rp_doctor_sev_name(r.f[i].sev),
				      r.f[i].check, r.f[i].what, r.f[i].why,
				      r.f[i].fix);
		fail_msg("want exactly one %s, of check %s: %zu of that "
			 "severity", rp_doctor_sev_name(sev), check, n);
	}
	return hit;
}

/* The first finding of severity sev and check, or NULL. */
static const struct rp_doc_finding *find(enum rp_doc_sev sev,
					 const char *check)
{
	for (size_t i = 0; i < r.n; i++)
		if (r.f[i].sev == sev && !strcmp(r.f[i].check, check))
			return &r.f[i];
	return NULL;
}

static void judge_error(const char *check, const char *what,
			const char *fix)
{
	const struct rp_doc_finding *e;

	rp_doctor_judge(&f, &r);
	e = only(RP_DOC_ERROR, check);
	assert_int_equal(r.errors, 1);
	assert_int_equal(rp_doctor_exit_code(&r), RP_EXIT_TRANSPORT);
	if (!strstr(e->what, what) || !strstr(e->fix, fix))
		fail_msg("want '%s' and fix '%s'; got '%s', fix '%s'", what,
			 fix, e->what, e->fix);
	assert_true(e->why[0]);
}

static void test_all_well(void **state)
{
	(void)state;
	healthy(false);
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.warnings, 0);
	assert_int_equal(rp_doctor_exit_code(&r), 0);
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(r.f[i].sev, RP_DOC_OK);
	healthy(true);
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.errors + r.warnings, 0);
	assert_int_equal(rp_doctor_exit_code(&r), 0);
	/* The peer is said. */
	assert_non_null(find(RP_DOC_OK, "peer"));
}

static void test_no_device(void **state)
{
	(void)state;
	healthy(false);
	f.devs.ndevs = 0;
	f.sysfs_devs = -1;
	f.rxe_loaded = false;
	judge_error("device", "rdma_rxe (Soft-RoCE) is not loaded",
		    "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev "
		    "eth0");
	assert_null(strstr(only(RP_DOC_ERROR, "device")->fix, "boot"));
	/* No such module in this kernel: another kernel first. */
	f.rxe_module = false;
	judge_error("device", "rdma_rxe (Soft-RoCE) is not loaded",
		    "boot a kernel that has rdma_rxe");
	f.rxe_module = true;
	/* Loaded, but on no interface: no modprobe then. */
	f.rxe_loaded = true;
	judge_error("device", "on no interface",
		    "rdma link add rxe0 type rxe netdev eth0");
	assert_null(strstr(only(RP_DOC_ERROR, "device")->fix, "modprobe"));
	/* The kernel has a device libibverbs does not list. */
	f.sysfs_devs = 1;
	judge_error("device", "libibverbs lists none", "ibverbs-providers");
	/* -d names none of them. */
	f.dev = "mlx5_9";
	f.list_cause = ENOENT;
	snprintf(f.list_error, sizeof(f.list_error), "RDMA device "
		 "\"mlx5_9\" not found; devices: rxe0");
	judge_error("device", "\"mlx5_9\" not found", "-d NAME");
	/* A device that cannot be opened. */
	healthy(false);
	snprintf(dev.error, sizeof(dev.error), "ibv_open_device: "
		 "Permission denied");
	dev.nports = 0;
	judge_error("device", "rxe0: ibv_open_device: Permission denied",
		    "/dev/infiniband/uverbs");
}

static void test_port_down(void **state)
{
	(void)state;
	healthy(false);
	port.state = 1;
	snprintf(port.state_name, sizeof(port.state_name), "PORT_DOWN");
	judge_error("port", "rxe0 port 1 is PORT_DOWN",
		    "ip link set dev eth0 up");
}

static void test_mtu_too_big_for_netdev(void **state)
{
	(void)state;
	healthy(false);
	f.netdevs[0].mtu = 1000;
	judge_error("mtu", "RoCE MTU 1024 does not fit eth0's MTU 1000",
		    "ip link set dev eth0 mtu 1500");
}

static void test_gids(void **state)
{
	(void)state;
	healthy(false);
	port.ngids = 1;		/* the link-local one only */
	judge_error("gid", "only link-local RoCE v2 GIDs",
		    "ip addr add ADDR/PREFIX dev eth0");
	gids[0].type = RP_GID_ROCE_V1;
	judge_error("gid", "no RoCE v2 GID", "dev eth0");
}

static void test_memlock(void **state)
{
	(void)state;
	healthy(false);
	f.memlock = 64 << 10;
	judge_error("memlock", "ulimit -l is 64 KiB, less than the 8 MiB "
		    "ring", "ulimit -l unlimited");
	/* Root: not bound by it, and told so. */
	f.cap_ipc_lock = true;
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.errors, 0);
	assert_non_null(strstr(find(RP_DOC_OK, "memlock")->what,
			       "CAP_IPC_LOCK"));
	f.cap_ipc_lock = false;
	f.memlock_unlimited = true;
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.errors, 0);
}

static void test_listen(void **state)
{
	const struct rp_doc_finding *w;

	(void)state;
	healthy(false);
	f.bind_rc = -EADDRINUSE;
	f.holder_pid = 4242;
	snprintf(f.holder_comm, sizeof(f.holder_comm), "nginx");
	rp_doctor_judge(&f, &r);
	w = only(RP_DOC_WARN, "listen");
	assert_non_null(strstr(w->what, "TCP port 18500 is held by pid 4242 "
				"(nginx)"));
	assert_non_null(strstr(w->fix, "-p PORT"));
	/* A warning only: the sender's host needs no free port. */
	assert_int_equal(rp_doctor_exit_code(&r), 0);
	/* Our own receiver: all is well. */
	snprintf(f.holder_comm, sizeof(f.holder_comm), "rdmapush");
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.warnings + r.errors, 0);
}

static void test_host_route_and_gid(void **state)
{
	(void)state;
	healthy(true);
	f.route_rc = -ENETUNREACH;
	snprintf(f.route_error, sizeof(f.route_error), "no route to "
		 "10.77.0.2: connect(UDP): Network is unreachable");
	judge_error("route", "no route to 10.77.0.2",
		    "ip route get 10.77.0.2");
	healthy(true);
	f.choose_rc = RP_ENOGID;
	snprintf(f.choose_error, sizeof(f.choose_error), "no RoCE v2 GID "
		 "equals the control connection's local address 10.77.0.1");
	f.trips[0].tried = f.trips[1].tried = false;
	f.peer_mtu = 0;
	judge_error("gid", "no RoCE v2 GID equals",
		    "rdmapush devices --for 10.77.0.2");
}

static void test_host_ports(void **state)
{
	const struct rp_doc_finding *n;

	(void)state;
	healthy(true);
	f.recv_tcp.rc = -ECONNREFUSED;
	judge_error("tcp", "10.77.0.2:18500: no rdmapush receiver",
		    "on 10.77.0.2: rdmapush recv -p 18500");
	/* A receiver without a ping server: fine, but RDMA is untried. */
	healthy(true);
	f.ping_tcp.rc = -ECONNREFUSED;
	f.trips[0].tried = f.trips[1].tried = false;
	f.peer_mtu = 0;
	rp_doctor_judge(&f, &r);
	assert_int_equal(rp_doctor_exit_code(&r), 0);
	n = only(RP_DOC_NOTE, "tcp");
	assert_non_null(strstr(n->why, "was not tried"));
	assert_non_null(strstr(n->fix, "rdmapush ping --server -p 18501"));
	/* Neither: an error for each. */
	f.recv_tcp.rc = -ECONNREFUSED;
	rp_doctor_judge(&f, &r);
	assert_int_equal(r.errors, 2);
}

static void test_host_rdma(void **state)
{
	(void)state;
	healthy(true);
	f.trips[1].rc = RP_EWC;
	snprintf(f.trips[1].error, sizeof(f.trips[1].error), "work "
		 "completion failed: transport retry counter exceeded");
	judge_error("rdma", "--op write: the handshake passed but no RDMA "
		    "round trip with 10.77.0.2: work completion failed",
		    "-p udp --dport 4791 -j ACCEPT");
	assert_non_null(strstr(only(RP_DOC_ERROR, "rdma")->why, "UDP 4791"));
	/* No handshake at all: another cause, another fix. */
	healthy(true);
	f.trips[0].rc = RP_EVERSION;
	f.trips[0].connected = false;
	snprintf(f.trips[0].error, sizeof(f.trips[0].error), "unsupported "
		 "protocol version");
	judge_error("handshake", "the ping handshake with 10.77.0.2 failed",
		    "the same rdmapush release");
}

static void test_peer_mtu(void **state)
{
	(void)state;
	healthy(true);
	f.peer_mtu = 512;
	judge_error("mtu", "RoCE MTU differs: ours 1024, 10.77.0.2's 512",
		    "on 10.77.0.2: ip link set dev IFACE mtu 1500 (as eth0 "
		    "here)");
	f.peer_mtu = 2048;
	judge_error("mtu", "ours 1024, 10.77.0.2's 2048",
		    "ip link set dev eth0 mtu N here");
}

/* The text: one line per finding, its severity first; the JSON: the
 * same findings, and the status and exit code. */
static void test_print(void **state)
{
	char *buf = NULL, *line;
	size_t len = 0, lines = 0;
	struct json_object *o, *a, *e;
	FILE *m;

	(void)state;
	healthy(true);
	f.recv_tcp.rc = -ECONNREFUSED;
	rp_doctor_judge(&f, &r);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	rp_doctor_print_text(m, &r);
	fclose(m);
	for (line = buf; *line; line = strchr(line, '\n') + 1)
		lines++;
	assert_int_equal(lines, r.n);
	assert_non_null(strstr(buf, "\nerror   10.77.0.2:18500: no rdmapush "
				"receiver: Connection refused: nothing "
				"listens on that port; fix: on 10.77.0.2: "
				"rdmapush recv -p 18500\n"));
	free(buf);
	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(rp_doctor_print_json(m, &r, f.host), 0);
	fclose(m);
	o = json_tokener_parse(buf);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(
		json_object_object_get(o, "type")), "doctor");
	assert_string_equal(json_object_get_string(
		json_object_object_get(o, "status")), "error");
	assert_int_equal(json_object_get_int(
		json_object_object_get(o, "exit_code")), 4);
	a = json_object_object_get(o, "findings");
	assert_int_equal(json_object_array_length(a), r.n);
	for (size_t i = 0; i < r.n; i++) {
		e = json_object_array_get_idx(a, i);
		assert_string_equal(json_object_get_string(
			json_object_object_get(e, "severity")),
			rp_doctor_sev_name(r.f[i].sev));
		assert_string_equal(json_object_get_string(
			json_object_object_get(e, "what")), r.f[i].what);
		assert_string_equal(json_object_get_string(
			json_object_object_get(e, "fix")), r.f[i].fix);
	}
	json_object_put(o);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_well),
		cmocka_unit_test(test_no_device),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_mtu_too_big_for_netdev),
		cmocka_unit_test(test_gids),
		cmocka_unit_test(test_memlock),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_host_route_and_gid),
		cmocka_unit_test(test_host_ports),
		cmocka_unit_test(test_host_rdma),
		cmocka_unit_test(test_peer_mtu),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
