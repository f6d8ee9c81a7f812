// SPDX-License-Identifier: MIT
/* Unit tests of rdmapush ping: the statistics, and whole pings (client and
 * server threads over a socketpair and the in-memory fabric), their
 * failures, and the refusals between a ping and a push. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/limits.h"
#include "rdmapush/opts.h"
#include "rdmapush/ping.h"
#include "rdmapush/proto.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/wc_causes.h"

/* ---- statistics ---- */

static void test_stats_one(void **state)
{
	double v[1] = { 7.5 };
	struct rp_ping_stats s;

	(void)state;
	assert_int_equal(rp_ping_stats(v, 1, &s), 0);
	assert_true(s.min == 7.5 && s.median == 7.5 && s.p99 == 7.5 &&
		    s.max == 7.5);
	assert_int_equal(rp_ping_stats(v, 0, &s), RP_EINTERNAL);
	assert_int_equal(rp_ping_stats(NULL, 1, &s), RP_EINTERNAL);
}

static void test_stats_small(void **state)
{
	double odd[5] = { 9, 1, 5, 3, 7 };
	double even[4] = { 4, 1, 3, 2 };
	double fifty[50];
	struct rp_ping_stats s;

	(void)state;
	assert_int_equal(rp_ping_stats(odd, 5, &s), 0);
	/* Sorted in place. */
	for (int i = 0; i < 5; i++)
		assert_true(odd[i] == 1 + 2 * i);
	assert_true(s.min == 1 && s.median == 5 && s.max == 9);
	/* Fewer than 100: nothing is above the 99th's rank but the max. */
	assert_true(s.p99 == 9);

	assert_int_equal(rp_ping_stats(even, 4, &s), 0);
	assert_true(s.median == 2.5);
	assert_true(s.p99 == 4);

	for (int i = 0; i < 50; i++)
		fifty[i] = 100 - i;
	assert_int_equal(rp_ping_stats(fifty, 50, &s), 0);
	assert_true(s.min == 51 && s.max == 100 && s.p99 == 100);
	assert_true(s.median == 75.5);
}

static void test_stats_p99(void **state)
{
	double *v = malloc(1000 * sizeof(*v));
	struct rp_ping_stats s;

	(void)state;
	assert_non_null(v);
	/* 1..1000 in reverse: p99 is the 990th smallest, 990. */
	for (int i = 0; i < 1000; i++)
		v[i] = 1000 - i;
	assert_int_equal(rp_ping_stats(v, 1000, &s), 0);
	assert_true(s.p99 == 990);
	assert_true(s.median == 500.5);
	/* 200 values: rank ceil(198) = 198. */
	for (int i = 0; i < 200; i++)
		v[i] = i + 1;
	assert_int_equal(rp_ping_stats(v, 200, &s), 0);
	assert_true(s.p99 == 198);
	/* 101 values: rank ceil(99.99) = 100, not the max. */
	for (int i = 0; i < 101; i++)
		v[i] = i;
	assert_int_equal(rp_ping_stats(v, 101, &s), 0);
	assert_true(s.p99 == 99 && s.max == 100);
	free(v);
}

/* ---- command line ---- */

static int parse(struct rp_opts *o, int argc, const char **argv)
{
	int rc;

	capture_start();
	rc = rp_opts_parse(o, argc, (char **)argv);
	capture_end();
	return rc;
}

static void test_ping_opts(void **state)
{
	const char *dflt[] = { "rdmapush", "ping", "host-b" };
	const char *srv[] = { "rdmapush", "ping", "--server", "-1", "-p",
			      "9000", "-b", "10.0.0.1", "--psk", "k1" };
	const char *all[] = { "rdmapush", "ping", "-n", "1000000", "-s", "1M",
			      "--op", "write", "-J", "-T", "3", "--psk",
			      "k2", "h" };
	const char *bad[][5] = {
		{ "rdmapush", "ping", "-n", "0", "h" },
		{ "rdmapush", "ping", "-n", "1000001", "h" },
		{ "rdmapush", "ping", "-s", "0", "h" },
		{ "rdmapush", "ping", "-s", "1025K", "h" },
		{ "rdmapush", "ping", "--op", "read", "h" },
		{ "rdmapush", "ping", "--once", "h", NULL },
		{ "rdmapush", "ping", "--server", "h", NULL },
		{ "rdmapush", "ping", "h", "i", NULL },
		{ "rdmapush", "ping", "-r", "h", NULL },
		{ "rdmapush", "ping", "--psk", "", "h" },
		{ "rdmapush", "ping", "h", "--psk", NULL },
	};
	struct rp_opts o;

	(void)state;
	assert_int_equal(parse(&o, 3, dflt), 0);
	assert_int_equal(o.mode, RP_MODE_PING);
	assert_false(o.cfg.ping_server);
	assert_int_equal(o.cfg.port, RP_PING_DEFAULT_PORT);
	assert_int_equal(o.cfg.ping_iters, 1000);
	assert_int_equal(o.cfg.ping_size, 2);
	assert_int_equal(o.cfg.ping_op, RP_OP_SEND);
	assert_string_equal(o.cfg.host, "host-b");

	assert_int_equal(parse(&o, 10, srv), 0);
	assert_true(o.cfg.ping_server && o.cfg.once);
	assert_string_equal(o.cfg.psk_file, "k1");
	assert_int_equal(o.cfg.port, 9000);
	assert_string_equal(o.cfg.bind_addr, "10.0.0.1");

	assert_int_equal(parse(&o, 14, all), 0);
	assert_string_equal(o.cfg.psk_file, "k2");
	assert_int_equal(o.cfg.ping_iters, 1000000);
	assert_int_equal(o.cfg.ping_size, 1u << 20);
	assert_int_equal(o.cfg.ping_op, RP_OP_WRITE);
	assert_true(o.cfg.json);
	assert_int_equal(o.cfg.timeout, 3);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse(&o, bad[i][4] ? 5 : 4, bad[i]),
				 RP_EUSAGE);
	assert_int_equal(RP_PING_DEFAULT_PORT, 18501);
}

/* ---- whole pings ---- */

/* A send's host lists, which its settings point into: released when
 * the group ends (LeakSanitizer, scripts/sanitize). */
static struct rp_opts kept[64];
static size_t nkept;

static int free_kept(void **state)
{
	(void)state;
	for (size_t i = 0; i < nkept; i++)
		rp_opts_free(&kept[i]);
	nkept = 0;
	return 0;
}

/* The settings of a command line (argv outlives them). */
static void opts(struct rp_config *o, int argc, const char **argv)
{
	struct rp_opts *cli;

	assert_true(nkept < sizeof(kept) / sizeof(kept[0]));
	cli = &kept[nkept++];
	assert_int_equal(rp_opts_parse(cli, argc, (char **)argv), 0);
	*o = cli->cfg;
}

struct server_job {
	struct rp_config o;
	const uint8_t *psk;	/* --psk's key, loaded, or NULL */
	int max_secs;		/* the server's cap on a ping, or 0 */
	int fd;
	int rc;
	bool hello;		/* the client passed its handshake */
};

/* The server thread's role in its lines, when a case sets it (apart
 * from the client's "test"). */
static const char *server_role;

static void *server_main(void *arg)
{
	struct server_job *j = arg;

	if (server_role)
		rp_trace_thread_role(server_role);

	struct rp_ping_serve s = { .psk = j->psk, .max_secs = j->max_secs };

	j->rc = rp_ping_serve_fd(&j->o, &s, j->fd, "test-client");
	j->hello = s.hello;
	return NULL;
}

/* A ping of iters round trips of size bytes with op, the server on a
 * thread; returns the client's result code, *src the server's. */
static int run_ping(const char *op, const char *iters, const char *size,
		    struct rp_ping_result *res, int *src)
{
	const char *cargv[] = { "rdmapush", "ping", "--op", op, "-n", iters,
				"-s", size, "-T", "5", "h" };
	const char *sargv[] = { "rdmapush", "ping", "--server", "-T", "5" };
	struct server_job j = { 0 };
	struct rp_config co;
	pthread_t t;
	int sp[2];
	int rc;

	opts(&co, 11, cargv);
	opts(&j.o, 5, sargv);
	j.psk = NULL;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	assert_int_equal(pthread_create(&t, NULL, server_main, &j), 0);
	rc = rp_ping_client_fd(&co, sp[0], "test-server", res);
	assert_int_equal(pthread_join(t, NULL), 0);
	*src = j.rc;
	return rc;
}

static void check_ping(const char *op, const char *size)
{
	struct rp_ping_result res;
	struct rp_fab_stats st;
	int src;

	rp_fab_reset();
	assert_int_equal(run_ping(op, "50", size, &res, &src), 0);
	assert_int_equal(src, 0);
	assert_int_equal(res.iterations, 50);
	assert_int_equal(res.size, strtoul(size, NULL, 10));
	assert_string_equal(rp_proto_op_name(res.op), op);
	assert_true(res.rtt.min > 0);
	assert_true(res.rtt.min <= res.rtt.median);
	assert_true(res.rtt.median <= res.rtt.p99);
	assert_true(res.rtt.p99 <= res.rtt.max);
	rp_fab_stats(&st);
	/* Every round trip is one message each way, and nothing else. */
	if (!strcmp(op, "write")) {
		assert_int_equal(st.plain_writes, 100);
		assert_int_equal(st.writes + st.sends, 0);
	} else {
		assert_int_equal(st.sends, 100);
		assert_int_equal(st.writes + st.plain_writes, 0);
	}
	assert_int_equal(st.bytes, 100 * res.size);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
}

static void test_ping_send(void **state)
{
	(void)state;
	check_ping("send", "1");
	check_ping("send", "2");
	check_ping("send", "4096");
	check_ping("send", "65536");
}

static void test_ping_write(void **state)
{
	(void)state;
	check_ping("write", "1");
	check_ping("write", "2");
	check_ping("write", "4096");
	check_ping("write", "65536");
}

/* The server dies mid-ping (its QP in ERROR): both give up at once with a
 * transport error, the client included, well before --timeout. */
static void test_server_dies(void **state)
{
	struct rp_ping_result res;
	double t0 = rp_now();
	int src, rc;

	(void)state;
	rp_fab_reset();
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_KILL, 20);
	capture_start();
	rc = run_ping("write", "1000", "64", &res, &src);
	capture_end();
	assert_int_not_equal(rc, 0);
	assert_int_not_equal(src, 0);
	assert_int_equal(rp_err_exit_code(rc), RP_EXIT_TRANSPORT);
	assert_true(rp_now() - t0 < 4.0);
}

/*
 * A completion of the client's fails mid-ping with "transport retry
 * counter exceeded": exit status 4, and the client's first error line
 * names the status and what it means, with the hint line after it: the
 * usual causes on RoCE (the GID, UDP 4791) and what to check.
 */
static void test_completion_status(void **state)
{
	const char *client = "rdmapush test: error: ";
	const char *want = "rdmapush test: error: work completion failed: "
			   "transport retry counter exceeded (status 12,";
	struct rp_ping_result res;
	char h[RP_HELD_HINT_MAX];
	const char *err, *line, *eol;
	int src, rc;

	(void)state;
	rp_fab_reset();
	rp_fab_fail_completion(RP_FAB_SENDER, 5, RP_WCS_RETRY_EXC_ERR);
	server_role = "ping-server";
	capture_start();
	rc = run_ping("write", "1000", "64", &res, &src);
	err = capture_end();
	server_role = NULL;
	assert_int_not_equal(src, 0);
	assert_true(rc == RP_EWC || rc == RP_EPEERRDMA);
	assert_int_equal(rp_err_exit_code(rc), RP_EXIT_TRANSPORT);
	line = strstr(err, client);
	if (!line || strncmp(line, want, strlen(want)))
		fprintf(stderr, "not the client's first error:\n%s", err);
	assert_non_null(line);
	assert_memory_equal(line, want, strlen(want));
	assert_non_null(strstr(line, "; no acknowledgement from the peer "
			       "after every retry\n"));
	eol = strchr(line, '\n');
	assert_non_null(eol);
	assert_non_null(rp_wc_hint(h, sizeof(h), RP_WCS_RETRY_EXC_ERR,
				   true));
	assert_memory_equal(eol + 1, "rdmapush test: hint: ",
			    strlen("rdmapush test: hint: "));
	eol += 1 + strlen("rdmapush test: hint: ");
	assert_memory_equal(eol, h, strlen(h));
	assert_int_equal(eol[strlen(h)], '\n');
	assert_non_null(strstr(h, "GID index (-g)"));
	assert_non_null(strstr(h, "UDP port 4791"));
}

static void on_post(enum rp_fab_side side, uint64_t nth, void *arg)
{
	(void)arg;
	if (side == RP_FAB_SENDER && nth == 30)
		rp_session_stop = SIGINT;
}

/* SIGINT mid-ping: both busy loops see the flag and stop. */
static void test_stop_signal(void **state)
{
	struct rp_ping_result res;
	int src, rc, code;

	(void)state;
	rp_fab_reset();
	rp_fab_set_hook(on_post, NULL);
	capture_start();
	rc = run_ping("send", "100000", "8", &res, &src);
	capture_end();
	rp_fab_set_hook(NULL, NULL);
	code = rp_session_exit_code(rc);
	rp_session_stop = 0;
	assert_int_equal(rc, RP_EINTERRUPTED);
	assert_int_equal(code, 130);
	assert_int_equal(src, RP_EINTERRUPTED);
}

struct recv_job {
	struct rp_config o;
	int dirfd;
	int fd;
	int rc;
};

static void *recv_main(void *arg)
{
	struct recv_job *j = arg;
	struct rp_outcome out;

	j->rc = rp_session_recv_one(&j->o, NULL, j->dirfd, j->fd,
				    "test-client", NULL, &out);
	return NULL;
}

/* A ping to a file receiver: refused, saying what it is. */
static void test_receiver_refuses_ping(void **state)
{
	const char *cargv[] = { "rdmapush", "ping", "-T", "5", "h" };
	const char *rargv[] = { "rdmapush", "recv", "-T", "5" };
	struct rp_ping_result res;
	struct rp_config co;
	struct recv_job j;
	const char *err;
	pthread_t t;
	int sp[2], rc;

	(void)state;
	rp_fab_reset();
	opts(&co, 5, cargv);
	opts(&j.o, 4, rargv);
	j.dirfd = open(".", O_RDONLY | O_DIRECTORY);
	assert_true(j.dirfd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	capture_start();
	assert_int_equal(pthread_create(&t, NULL, recv_main, &j), 0);
	rc = rp_ping_client_fd(&co, sp[0], "test-receiver", &res);
	assert_int_equal(pthread_join(t, NULL), 0);
	err = capture_end();
	close(j.dirfd);
	assert_int_equal(j.rc, RP_ENOTPING);
	assert_int_equal(rc, RP_EREFUSED);
	assert_int_equal(rp_err_exit_code(rc), RP_EXIT_PROTO);
	assert_non_null(strstr(err, "this is an rdmapush file receiver, not "
			       "a ping server"));
}

/* A push to a ping server: refused, saying what it is. */
static void test_ping_server_refuses_push(void **state)
{
	char path[] = "/tmp/rp-ping-test.XXXXXX";
	const char *sargv[] = { "rdmapush", "send", "-T", "5", path, "h" };
	const char *pargv[] = { "rdmapush", "ping", "--server", "-T", "5" };
	struct rp_outcome out;
	struct server_job j = { 0 };
	struct rp_config so;
	const char *err;
	pthread_t t;
	int sp[2], rc, fd;

	(void)state;
	rp_fab_reset();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	opts(&so, 6, sargv);
	opts(&j.o, 5, pargv);
	j.psk = NULL;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	capture_start();
	assert_int_equal(pthread_create(&t, NULL, server_main, &j), 0);
	rc = rp_session_send_fd(&so, sp[0], "test-ping-server", &out);
	assert_int_equal(pthread_join(t, NULL), 0);
	err = capture_end();
	unlink(path);
	assert_int_equal(j.rc, RP_ENOTPUSH);
	assert_int_equal(rc, RP_EREFUSED);
	assert_non_null(strstr(err, "this is an rdmapush ping server, not "
			       "a file receiver"));
}

/* ---- --psk ---- */

static char key_dir[] = "/tmp/rp-ping-keys.XXXXXX";
static char key_a[64], key_b[64];

/* Two key files, a and b (mode 0600), made once. */
static void make_keys(void)
{
	if (key_a[0])
		return;
	assert_non_null(mkdtemp(key_dir));
	snprintf(key_a, sizeof(key_a), "%s/a", key_dir);
	snprintf(key_b, sizeof(key_b), "%s/b", key_dir);
	assert_int_equal(rp_auth_keygen(key_a), 0);
	assert_int_equal(rp_auth_keygen(key_b), 0);
}

/* A ping of 20 round trips, the client with --psk ckey, the server with
 * the key of skey (either NULL: none). The client's result; *src the
 * server's; *err what both said on stderr. */
static int run_psk(const char *ckey, const char *skey, int *src,
		   const char **err)
{
	const char *cargv[] = { "rdmapush", "ping", "-n", "20", "-T", "5",
				"--psk", ckey, "h" };
	const char *sargv[] = { "rdmapush", "ping", "--server", "-T", "5" };
	uint8_t key[RP_PSK_LEN];
	struct rp_ping_result res;
	struct server_job j = { 0 };
	struct rp_config co;
	pthread_t t;
	int sp[2];
	int rc;

	make_keys();
	rp_fab_reset();
	if (ckey) {
		opts(&co, 9, cargv);
	} else {
		cargv[6] = "h";
		opts(&co, 7, cargv);
	}
	opts(&j.o, 5, sargv);
	j.psk = NULL;
	if (skey) {
		assert_int_equal(rp_auth_load(skey, key), 0);
		j.psk = key;
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	capture_start();
	assert_int_equal(pthread_create(&t, NULL, server_main, &j), 0);
	rc = rp_ping_client_fd(&co, sp[0], "test-server", &res);
	assert_int_equal(pthread_join(t, NULL), 0);
	*err = capture_end();
	*src = j.rc;
	if (!rc)
		assert_int_equal(res.iterations, 20);
	return rc;
}

/* How many times needle is in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* The same key on both sides: the ping runs, after each side has proved
 * the key and both derived the session key (their --trace says so). */
static void test_psk_match(void **state)
{
	const char *err;
	int src, rc;

	(void)state;
	rp_trace_init(RP_V_TRACE, "test");
	rc = run_psk(key_a, key_a, &src, &err);
	rp_trace_init(getenv("RP_TEST_TRACE") ? RP_V_TRACE : RP_V_QUIET,
		      "test");
	assert_int_equal(rc, 0);
	assert_int_equal(src, 0);
	assert_int_equal(count(err, "proved the pre-shared key"), 2);
	assert_int_equal(count(err, "session key derived"), 2);
}

/* Different keys: each side finds the other out, exit status 3. */
static void test_psk_mismatch(void **state)
{
	const char *err;
	int src, rc;

	(void)state;
	rc = run_psk(key_a, key_b, &src, &err);
	assert_int_equal(rc, RP_EAUTH);
	assert_int_equal(src, RP_EAUTH);
	assert_int_equal(rp_err_exit_code(rc), RP_EXIT_PROTO);
	assert_non_null(strstr(err, "does not know our pre-shared key"));
}

/* A key on one side only: refused both ways, saying so. */
static void test_psk_one_side(void **state)
{
	const char *err;
	int src, rc;

	(void)state;
	rc = run_psk(key_a, NULL, &src, &err);
	assert_int_equal(rc, RP_EAUTH);
	assert_int_equal(src, RP_EAUTH);
	assert_non_null(strstr(err, "offers a pre-shared key, but this ping "
			       "server has no --psk"));
	rc = run_psk(NULL, key_a, &src, &err);
	assert_int_equal(rc, RP_EAUTH);
	assert_int_equal(src, RP_EAUTH);
	assert_non_null(strstr(err, "did not authenticate"));
}

/* ---- an older peer ---- */

/* One whole message from fd into buf: its header, parsed into *h at the
 * version it came in (not ours). Its length, or -1 when closed. */
static int read_old(int fd, uint8_t *buf, size_t cap, struct rp_msg_hdr *h)
{
	size_t got = 0, need = RP_PROTO_HDR_LEN;

	while (got < need) {
		ssize_t n = read(fd, buf + got, need - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (got == RP_PROTO_HDR_LEN) {
			h->version = buf[4];
			h->type = buf[5];
			h->length = (uint32_t)buf[8] << 24 |
				    (uint32_t)buf[9] << 16 |
				    (uint32_t)buf[10] << 8 | buf[11];
			need += h->length;
			assert_true(need <= cap);
		}
	}
	return (int)got;
}

/* What an older peer must get: an ERR at its version, saying why. */
static void check_old_err(int fd, uint8_t version)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_msg_hdr h;
	struct rp_result res;
	int n = read_old(fd, buf, sizeof(buf), &h);

	assert_true(n > 0);
	assert_int_equal(h.version, version);
	assert_int_equal(h.type, RP_MSG_ERR);
	assert_int_equal(rp_proto_unpack_result(buf + RP_PROTO_HDR_LEN,
						h.length, RP_MSG_ERR, &res,
						NULL), 0);
	assert_int_equal(res.status, RP_ST_VERSION);
	assert_non_null(strstr(res.text, "version 7 needed"));
}

/* A ping's HELLO at version 5, into buf: its length. */
static int old_hello(uint8_t *buf, size_t cap)
{
	struct rp_hello hello = {
		.qp = { .qpn = 0x11, .psn = 1, .lid = 1, .mtu = 3 },
		.total = 1, .chunk = 2, .window = 1, .flags = RP_HELLO_PING,
		.op = RP_OP_SEND, .qps = 1,
	};
	int n = rp_proto_pack_hello(buf, cap, &hello);

	assert_true(n > RP_PROTO_HDR_LEN);
	buf[4] = 5;
	return n;
}

/* A version 5 HELLO to a ping server: told at version 5 what it needs. */
static void test_old_client(void **state)
{
	const char *sargv[] = { "rdmapush", "ping", "--server", "-T", "5" };
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct server_job j = { 0 };
	pthread_t t;
	int sp[2], n;

	(void)state;
	rp_fab_reset();
	opts(&j.o, 5, sargv);
	j.psk = NULL;
	n = old_hello(buf, sizeof(buf));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	capture_start();
	assert_int_equal(pthread_create(&t, NULL, server_main, &j), 0);
	assert_int_equal(write(sp[0], buf, (size_t)n), n);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(strstr(capture_end(), "upgrade rdmapush there"));
	assert_int_equal(j.rc, RP_EVERSION);
	check_old_err(sp[0], 5);
	close(sp[0]);
}

struct client_job {
	struct rp_config o;
	int fd;
	int rc;
};

static void *client_main(void *arg)
{
	struct client_job *j = arg;
	struct rp_ping_result res;

	j->rc = rp_ping_client_fd(&j->o, j->fd, "test-server", &res);
	return NULL;
}

/* A version 5 server answers the client's HELLO: the client tells it at
 * version 5 what it needs. */
static void test_old_server(void **state)
{
	const char *cargv[] = { "rdmapush", "ping", "-T", "5", "h" };
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result res = { .status = RP_ST_OK };
	struct client_job j;
	struct rp_msg_hdr h;
	pthread_t t;
	int sp[2], n;

	(void)state;
	rp_fab_reset();
	opts(&j.o, 5, cargv);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[0];
	capture_start();
	assert_int_equal(pthread_create(&t, NULL, client_main, &j), 0);
	assert_true(read_old(sp[1], buf, sizeof(buf), &h) > 0);
	assert_int_equal(h.type, RP_MSG_HELLO);
	/* Any message at version 5 will do: the header says it all. */
	n = rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK, &res);
	assert_true(n > 0);
	buf[4] = 5;
	assert_int_equal(write(sp[1], buf, (size_t)n), n);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(strstr(capture_end(), "upgrade rdmapush there"));
	assert_int_equal(j.rc, RP_EVERSION);
	check_old_err(sp[1], 5);
	close(sp[1]);
}

/* ---- the server's loop: a process per client ---- */

/* The server's cap on one client's whole ping: a client of a million
 * large round trips is ended (RP_ELIMIT, told) after max_secs. */
static void test_client_cap(void **state)
{
	const char *cargv[] = { "rdmapush", "ping", "-n", "1000000", "-s",
				"64K", "-T", "5", "h" };
	const char *sargv[] = { "rdmapush", "ping", "--server", "-T", "5" };
	struct rp_ping_result res;
	struct server_job j = { 0 };
	struct rp_config co;
	pthread_t t;
	double t0;
	int sp[2], rc;

	(void)state;
	rp_fab_reset();
	opts(&co, 9, cargv);
	opts(&j.o, 5, sargv);
	j.max_secs = 1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	j.fd = sp[1];
	capture_start();
	t0 = rp_now();
	assert_int_equal(pthread_create(&t, NULL, server_main, &j), 0);
	rc = rp_ping_client_fd(&co, sp[0], "test-server", &res);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(strstr(capture_end(), "the most a ping server gives "
			       "one client"));
	assert_true(rp_now() - t0 < 4);
	assert_true(j.hello);
	assert_int_equal(j.rc, RP_ELIMIT);
	assert_int_equal(rc, RP_ELIMIT);
}

struct loop_job {
	struct rp_config o;
	char port[16];
	pid_t pid;		/* the test's: a forked child's is not */
	int rc;
	bool done;
};

static void *loop_main(void *arg)
{
	struct loop_job *j = arg;
	sigset_t s;

	/* SIGCHLD wakes the server's wait, not the test's reads. */
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	j->rc = rp_ping_server(&j->o);
	if (getpid() != j->pid)
		_exit(0);	/* a child, its client served */
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static pthread_t loop_thread;

/* rp_ping_server on a thread, on a port of its own, handshake deadline
 * 3 s (-T 3). */
static void loop_start(struct loop_job *j, bool once)
{
	static int nth;
	const char *argv[] = { "rdmapush", "ping", "--server", "-b",
			       "127.0.0.1", "-p", j->port, "-T", "3",
			       "--once" };
	sigset_t s;

	/* Its info lines (refusals, failed handshakes) are checked. */
	rp_trace_init(RP_V_NORMAL, "test");
	rp_trace_hold_first_error();	/* as main does */
	snprintf(j->port, sizeof(j->port), "%d",
		 20000 + (int)(getpid() % 20000) + nth++);
	opts(&j->o, once ? 10 : 9, argv);
	j->pid = getpid();
	j->done = false;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	assert_int_equal(pthread_create(&loop_thread, NULL, loop_main, j), 0);
}

/* Stop it as a signal would; its result. */
static int loop_stop(struct loop_job *j)
{
	rp_session_stop = SIGTERM;
	assert_int_equal(pthread_join(loop_thread, NULL), 0);
	rp_session_stop = 0;
	rp_trace_init(getenv("RP_TEST_TRACE") ? RP_V_TRACE : RP_V_QUIET,
		      "test");
	return j->rc;
}

/* A connection to it (retried while it starts), reads bounded by 4 s. */
static int dial(const struct loop_job *j)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 4 };

	a.sin_port = htons((uint16_t)atoi(j->port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 200; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		assert_true(fd >= 0);
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
			return fd;
		}
		close(fd);
		usleep(20000);
	}
	fail_msg("the ping server does not listen on %s", j->port);
	return -1;
}

/* An idle connection ahead delays nobody: a client behind it is
 * answered (an old HELLO, told at once) well before its deadline. */
static void test_loop_idle_ahead(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct loop_job j;
	int idle, fd, n;
	double t0;

	(void)state;
	capture_start();
	loop_start(&j, false);
	idle = dial(&j);
	t0 = rp_now();
	fd = dial(&j);
	n = old_hello(buf, sizeof(buf));
	assert_int_equal(write(fd, buf, (size_t)n), n);
	check_old_err(fd, 5);
	assert_true(rp_now() - t0 < 1.5);
	close(fd);
	close(idle);
	assert_int_equal(loop_stop(&j), 0);
	capture_end();
}

/* The receiver's admission caps: the connection over the per-address
 * cap (8) is refused at once as busy, not left waiting. */
static void test_loop_per_address(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_msg_hdr h;
	struct rp_result res;
	struct loop_job j;
	int fd[RP_DEFAULT_PER_ADDR + 1];
	double t0;

	(void)state;
	capture_start();
	loop_start(&j, false);
	for (int i = 0; i < RP_DEFAULT_PER_ADDR; i++)
		fd[i] = dial(&j);
	/* Each of them taken (and its process running) first. */
	usleep(300000);
	t0 = rp_now();
	fd[RP_DEFAULT_PER_ADDR] = dial(&j);
	assert_true(read_old(fd[RP_DEFAULT_PER_ADDR], buf, sizeof(buf),
			     &h) > 0);
	assert_true(rp_now() - t0 < 1.5);
	assert_int_equal(h.type, RP_MSG_ERR);
	assert_int_equal(rp_proto_unpack_result(buf + RP_PROTO_HDR_LEN,
						h.length, RP_MSG_ERR, &res,
						NULL), 0);
	assert_int_equal(res.status, RP_ST_BUSY);
	for (int i = 0; i <= RP_DEFAULT_PER_ADDR; i++)
		close(fd[i]);
	assert_int_equal(loop_stop(&j), 0);
	assert_non_null(strstr(capture_end(), "refusing 127.0.0.1:"));
}

/* --once: probes (connect and close) and an old client's failed
 * handshake do not end it; they are logged, at most 5 lines a window. */
static void test_loop_once_probes(void **state)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct loop_job j;
	const char *err;
	int fd, n;

	(void)state;
	capture_start();
	loop_start(&j, true);
	for (int i = 0; i < 7; i++)
		close(dial(&j));
	fd = dial(&j);
	n = old_hello(buf, sizeof(buf));
	assert_int_equal(write(fd, buf, (size_t)n), n);
	check_old_err(fd, 5);
	close(fd);
	/* Until every child has ended and reported (10 s at most: a
	 * loaded machine), then a little longer for any line too many. */
	for (int i = 0; i < 100; i++) {
		err = capture_peek();
		if (count(err, "no ping: ") + count(err, "refusing ") >= 5)
			break;
		usleep(100000);
	}
	usleep(300000);
	assert_false(__atomic_load_n(&j.done, __ATOMIC_ACQUIRE));
	assert_int_equal(loop_stop(&j), RP_EINTERRUPTED);
	err = capture_end();
	assert_int_equal(count(err, "no ping: ") + count(err, "refusing "),
			 5);
}

int main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_one),
		cmocka_unit_test(test_stats_small),
		cmocka_unit_test(test_stats_p99),
		cmocka_unit_test(test_ping_opts),
		cmocka_unit_test(test_ping_send),
		cmocka_unit_test(test_ping_write),
		cmocka_unit_test(test_server_dies),
		cmocka_unit_test(test_completion_status),
		cmocka_unit_test(test_stop_signal),
		cmocka_unit_test(test_receiver_refuses_ping),
		cmocka_unit_test(test_ping_server_refuses_push),
		cmocka_unit_test(test_psk_match),
		cmocka_unit_test(test_psk_mismatch),
		cmocka_unit_test(test_psk_one_side),
		cmocka_unit_test(test_old_client),
		cmocka_unit_test(test_old_server),
		cmocka_unit_test(test_client_cap),
		cmocka_unit_test(test_loop_idle_ahead),
		cmocka_unit_test(test_loop_per_address),
		cmocka_unit_test(test_loop_once_probes),
	};

	rp_trace_init(getenv("RP_TEST_TRACE") ? RP_V_TRACE : RP_V_QUIET,
		      "test");
	rp_session_signals();
	rc = cmocka_run_group_tests(tests, NULL, free_kept);
	if (key_a[0]) {
		unlink(key_a);
		unlink(key_b);
		rmdir(key_dir);
	}
	return rc;
}
