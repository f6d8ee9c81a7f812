// SPDX-License-Identifier: MIT
/*
 * Chain pushes, run for real in one process over the in-memory fabric:
 * each receiver a thread with its own TCP listener on 127.0.0.1 and its
 * own target directory, the sender in the test's thread naming them all
 * (sender -> hop 1 -> ... -> hop N). Every hop but the last relays
 * (recv --relay). Each case checks every hop's copy byte for byte, each
 * side's status, and that every context, ring and descriptor was
 * released.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "rdmapush/auth.h"
#include "rdmapush/config.h"
#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/proto.h"
#include "rdmapush/report.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"

#define KIB	1024u
#define MIB	(1024u * 1024u)
#define HOPS_MAX	4

static uint8_t test_op = RP_OP_WRITE;

/* Where a hop dies (test_hop_dies_*): its connections cut at that point,
 * as when its process is killed. */
enum death {
	LIVES,
	AT_CONNECT,	/* nothing listens on its port */
	AT_HELLO,	/* it accepts, then closes at once */
	IN_DATA,	/* once about half the file has landed */
	AT_END,		/* once its last entry is stored, before FIN */
	LINK_IN_DATA,	/* it lives, but its upstream's connection ends,
			 * as IN_DATA: its relay must stop the next hop's
			 * session, not end the file, for that one to keep
			 * what it has */
};

/* How much of the file has landed on the hop after an IN_DATA hop (on
 * it, for the last) when it dies. */
#define DIE_AFTER	(2 * MIB)

struct hop {
	char dir[256];
	int dirfd;
	int lfd;		/* listening on 127.0.0.1:port */
	uint16_t port;
	bool relay;
	struct rp_config o;
	pthread_t thread;
	int rc;
	struct rp_outcome out;
	const uint8_t *psk;	/* --psk's key, or NULL */
	_Atomic bool quit;	/* the push is over: stop serving */
	int sessions;		/* connections it took */
	uint64_t data_bytes;	/* its last session's (a resumed file's
				 * rest only) */
	uint16_t next_port;	/* the hop after it, 0 for the last */
	struct hop *victim;	/* dies when this one has DIE_AFTER */
	enum death death;
	_Atomic int conn;	/* the upstream's connection, once accepted */
	_Atomic bool died;
	struct rp_hooks hooks;	/* for its death */
};

/* What the origin's report said: its host lines and its JSON. */
struct seen {
	uint32_t nhosts;
	struct rp_host_result hosts[HOPS_MAX];
	char lines[2048];
	char json[4096];
};

struct env {
	char root[64];
	char src[128];
	struct hop hop[HOPS_MAX];
	int fds_before;
	struct seen seen;
	struct rp_outcome out;	/* the origin's */
};

static void make_file(const char *path, uint64_t size, uint8_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint8_t buf[4096];
	uint64_t left = size, x = seed * 2654435761u + 1;

	assert_true(fd >= 0);
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			buf[i] = (uint8_t)(x >> 56);
		}
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		left -= n;
	}
	close(fd);
}

/* a and b hold the same bytes. */
static void assert_same_file(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	uint8_t ba[65536], bb[65536];

	assert_true(fa >= 0);
	if (fb < 0)
		fail_msg("%s: missing (%s)", b, strerror(errno));
	for (;;) {
		ssize_t na = read(fa, ba, sizeof(ba));
		ssize_t nb = read(fb, bb, sizeof(bb));

		assert_int_equal(na, nb);
		if (na <= 0)
			break;
		assert_memory_equal(ba, bb, (size_t)na);
	}
	close(fa);
	close(fb);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	snprintf(e->root, sizeof(e->root), "/tmp/rp-chain.XXXXXX");
	assert_non_null(mkdtemp(e->root));
	snprintf(e->src, sizeof(e->src), "%s/src", e->root);
	assert_int_equal(mkdir(e->src, 0755), 0);
	rp_fab_reset();
	rp_session_stop = 0;
	e->fds_before = count_fds();
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	rm_tree(e->root);
	free(e);
	rp_fab_reset();
	rp_session_stop = 0;
	return 0;
}

static void listen_on(struct hop *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(h->lfd >= 0);
	assert_int_equal(bind(h->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(h->lfd, 4), 0);
	assert_int_equal(getsockname(h->lfd, (struct sockaddr *)&a, &len), 0);
	h->port = ntohs(a.sin_port);
}

/* One hop, as a receiver serving: each connection received in turn
 * (the upstream's, then the origin's when the chain is rerouted) until
 * the test is done with it. A hop that died closes every connection. */
static void *hop_main(void *arg)
{
	struct hop *h = arg;

	h->rc = RP_ETIMEOUT;
	while (!atomic_load(&h->quit)) {
		struct pollfd p = { .fd = h->lfd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, 20) != 1)
			continue;
		fd = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		h->sessions++;
		if (h->death == AT_HELLO || atomic_load(&h->died)) {
			atomic_store(&h->died, true);
			close(fd);
			h->rc = RP_EPEERABORT;
			continue;
		}
		atomic_store(&h->conn, fd);
		memset(&h->out, 0, sizeof(h->out));
		h->rc = rp_session_recv_one(&h->o, h->psk, h->dirfd, fd,
					    "upstream", NULL, &h->out);
		atomic_store(&h->conn, -1);
	}
	return NULL;
}

/* The hop's process is gone: its connections end, the upstream's and
 * its relay's to the next hop (found by its peer's port), as a killed
 * process's would, with nothing more said on them. Once. */
static void die(struct hop *h)
{
	if (atomic_exchange(&h->died, true))
		return;
	for (int fd = 0; h->death != LINK_IN_DATA && h->next_port &&
	     fd < 1024; fd++) {
		struct sockaddr_in a;
		socklen_t len = sizeof(a);

		if (getpeername(fd, (struct sockaddr *)&a, &len) == 0 &&
		    a.sin_family == AF_INET &&
		    ntohs(a.sin_port) == h->next_port)
			shutdown(fd, SHUT_RDWR);
	}
	shutdown(atomic_load(&h->conn), SHUT_RDWR);
}

static void hop_report(void *ctx, const struct rp_report *r)
{
	struct hop *h = ctx;

	h->data_bytes = r->data_bytes;
}

static bool in_data(enum death d)
{
	return d == IN_DATA || d == LINK_IN_DATA;
}

static void die_in_data(void *ctx, uint64_t done, uint64_t total)
{
	struct hop *h = ctx;

	(void)total;
	if (done >= DIE_AFTER)
		die(h->victim);
}

static void die_at_end(void *ctx, const char *path, uint64_t bytes, int rc)
{
	(void)path;
	(void)bytes;
	(void)rc;
	die(ctx);
}

static void hop_config(struct rp_config *o, struct hop *h)
{
	rp_config_defaults(o);
	o->timeout = 5;
	o->gid_index = -1;
	o->quiet = true;
	o->max_transfers = 1;
	o->dir = h->dir;
	o->relay = h->relay;
	o->op = test_op;
	h->hooks = (struct rp_hooks){ .ctx = h, .report = hop_report };
	if (h->victim)
		h->hooks.progress = die_in_data;
	else if (h->death == AT_END)
		h->hooks.entry = die_at_end;
	o->hooks = &h->hooks;
}

struct chain {
	int nhops;
	bool no_relay_at;	/* hop relay_off (1-based) does not relay */
	int relay_off;
	bool recursive;
	uint32_t chunk, window;
	const char *psk_file;	/* every hop's and the sender's key */
	bool force;		/* the hops' --force */
	bool keep_last_dir;	/* the test made the last hop's directory */
	int dies;		/* this hop (1-based) dies, */
	enum death death;	/* there */
};

/* The origin's report hook: what the tool would print, kept. */
static void report_hook(void *ctx, const struct rp_report *r)
{
	struct seen *sn = ctx;
	FILE *f;

	sn->nhosts = r->nhosts;
	assert_true(r->nhosts <= HOPS_MAX);
	/* Their strings are the session's: not kept. */
	for (uint32_t i = 0; i < r->nhosts; i++) {
		sn->hosts[i] = r->hosts[i];
		sn->hosts[i].host = NULL;
		sn->hosts[i].why = NULL;
	}
	f = fmemopen(sn->lines, sizeof(sn->lines) - 1, "w");
	assert_non_null(f);
	rp_report_hosts(f, r);
	fclose(f);
	f = fmemopen(sn->json, sizeof(sn->json) - 1, "w");
	assert_non_null(f);
	assert_int_equal(rp_report_json(f, r), 0);
	fclose(f);
}

/* Push the sources along a chain of c->nhops; each hop's status. */
static int push_chain(struct env *e, const struct chain *c,
		      char **sources, int nsources)
{
	struct rp_host hosts[HOPS_MAX];
	uint8_t key[RP_PSK_LEN];
	struct rp_config o;
	struct rp_hooks hooks = { .report = report_hook, .ctx = &e->seen };
	int rc;

	if (c->psk_file)
		assert_int_equal(rp_auth_load(c->psk_file, key), 0);
	for (int i = 0; i < c->nhops; i++) {
		struct hop *h = &e->hop[i];
		char root[sizeof(e->root)];

		/* Not from e into e: GCC -O1 cannot tell the two apart. */
		memcpy(root, e->root, sizeof(root));
		snprintf(h->dir, sizeof(h->dir), "%s/hop%d", root, i + 1);
		if (!c->keep_last_dir || i + 1 < c->nhops)
			assert_int_equal(mkdir(h->dir, 0755), 0);
		h->dirfd = open(h->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(h->dirfd >= 0);
		h->relay = i + 1 < c->nhops && c->relay_off != i + 1;
		h->death = c->dies == i + 1 ? c->death : LIVES;
		/* An IN_DATA hop dies once the next one has some of the
		 * file, for that one to go on from. */
		h->victim = NULL;
		if (in_data(c->death) && c->dies == i + 1 &&
		    i + 1 == c->nhops)
			h->victim = h;
		else if (in_data(c->death) && c->dies == i)
			h->victim = &e->hop[i - 1];
		atomic_store(&h->conn, -1);
		atomic_store(&h->quit, false);
		atomic_store(&h->died, false);
		h->sessions = 0;
		listen_on(h);
		hop_config(&h->o, h);
		/* A relay's own push on is keyed as its receiver is. */
		h->o.psk_file = c->psk_file;
		h->psk = c->psk_file ? key : NULL;
		h->o.force = c->force;
		memset(&hosts[i], 0, sizeof(hosts[i]));
		snprintf(hosts[i].name, sizeof(hosts[i].name), "127.0.0.1");
		hosts[i].port = h->port;
		if (i)
			e->hop[i - 1].next_port = h->port;
		h->next_port = 0;
		if (h->death == AT_CONNECT) {
			/* Nothing listens there any more. */
			close(h->lfd);
			h->lfd = -1;
			continue;
		}
		assert_int_equal(pthread_create(&h->thread, NULL, hop_main, h),
				 0);
	}
	rp_config_defaults(&o);
	o.timeout = 5;
	o.gid_index = -1;
	o.quiet = true;
	o.op = test_op;
	o.sources = sources;
	o.nsources = nsources;
	o.recursive = c->recursive;
	o.chunk = c->chunk ? c->chunk : 64 * KIB;
	o.window = c->window ? c->window : 4;
	o.hosts = hosts;
	o.nhosts = (uint32_t)c->nhops;
	o.psk_file = c->psk_file;
	o.host = hosts[0].name;
	o.port = hosts[0].port;
	o.hooks = &hooks;
	memset(&e->out, 0, sizeof(e->out));
	rc = rp_session_send(&o, &e->out);
	for (int i = 0; i < c->nhops; i++) {
		struct hop *h = &e->hop[i];

		close(h->dirfd);
		if (h->lfd < 0)
			continue;
		atomic_store(&h->quit, true);
		assert_int_equal(pthread_join(h->thread, NULL), 0);
		close(h->lfd);
	}
	return rc;
}

static void assert_released(const struct env *e)
{
	struct rp_fab_stats st;

	rp_fab_stats(&st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
	assert_int_equal(count_fds(), e->fds_before);
}

/* The origin heard of each host: stored files entries, bytes. */
static void assert_host_ok(const struct env *e, int i, uint64_t files,
			   uint64_t bytes)
{
	const struct rp_host_result *h = &e->seen.hosts[i];

	assert_true(h->reached);
	assert_int_equal(h->rc, 0);
	assert_int_equal(h->files, files);
	assert_int_equal(h->failed, 0);
	assert_true(h->bytes == bytes);
}

/* The host line of hop i (0-based), as the origin printed it. */
static void assert_host_line(const struct env *e, int i, const char *fmt,
			     ...)
{
	char want[256], tail[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tail, sizeof(tail), fmt, ap);
	va_end(ap);
	snprintf(want, sizeof(want), "rdmapush send: 127.0.0.1:%u: %s\n",
		 e->hop[i].port, tail);
	if (!strstr(e->seen.lines, want))
		fail_msg("no line \"%s\" in:\n%s", want, e->seen.lines);
}

/* The one error line the tool prints for the origin's outcome. */
static void assert_error_line(const struct env *e, unsigned int failed,
			      unsigned int of, const char *names)
{
	char got[512] = "", want[512];
	FILE *f = fmemopen(got, sizeof(got) - 1, "w");

	assert_non_null(f);
	rp_report_hosts_failed(f, "send", &e->out);
	fclose(f);
	snprintf(want, sizeof(want), "rdmapush send: failed on %u of %u "
		 "hosts: %s\n", failed, of, names);
	assert_string_equal(got, want);
}

/* A file of size bytes along nhops: each hop has it, byte-identical. */
static void file_along(void **s, int nhops, uint64_t size)
{
	struct env *e = *s;
	struct chain c = { .nhops = nhops };
	char src[256], *sources[1] = { src }, b[32];
	int rc;

	snprintf(src, sizeof(src), "%s/data.bin", e->src);
	make_file(src, size, 7);
	rc = push_chain(e, &c, sources, 1);
	assert_int_equal(rc, 0);
	assert_int_equal(e->seen.nhosts, nhops);
	assert_int_equal(e->out.hosts_failed, 0);
	for (int i = 0; i < nhops; i++) {
		char dst[512];

		assert_int_equal(e->hop[i].rc, 0);
		snprintf(dst, sizeof(dst), "%s/data.bin", e->hop[i].dir);
		assert_same_file(src, dst);
		assert_host_ok(e, i, 1, size);
		assert_host_line(e, i, "ok, 1 entry, %s",
				 rp_fmt_bytes(b, sizeof(b), size));
	}
	assert_released(e);
}

static void test_two_hops(void **s)
{
	file_along(s, 2, 3 * MIB + 123);
}

static void test_four_hops(void **s)
{
	file_along(s, 4, 5 * MIB + 7);
}

static void test_four_hops_empty(void **s)
{
	file_along(s, 4, 0);
}

static void test_four_hops_one_chunk(void **s)
{
	file_along(s, 4, 1000);
}

/* A tree: directories and files of many sizes, on every hop. */
static void test_four_hops_tree(void **s)
{
	struct env *e = *s;
	struct chain c = { .nhops = 4, .recursive = true };
	char top[256], sub[300], p[400], *sources[1] = { top };
	int rc;

	snprintf(top, sizeof(top), "%s/tree", e->src);
	snprintf(sub, sizeof(sub), "%s/sub", top);
	assert_int_equal(mkdir(top, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(p, sizeof(p), "%s/f%02d", i % 2 ? sub : top, i);
		make_file(p, (uint64_t)i * 7919u, (uint8_t)i);
	}
	rc = push_chain(e, &c, sources, 1);
	assert_int_equal(rc, 0);
	for (int h = 0; h < 4; h++) {
		assert_int_equal(e->hop[h].rc, 0);
		for (int i = 0; i < 40; i++) {
			char a[400], b[600];

			snprintf(a, sizeof(a), "%s/f%02d", i % 2 ? sub : top, i);
			snprintf(b, sizeof(b), "%s/tree/%sf%02d",
				 e->hop[h].dir, i % 2 ? "sub/" : "", i);
			assert_same_file(a, b);
		}
	}
	assert_released(e);
}

/* With --psk, each hop authenticates to the next with the key. */
static void test_three_hops_psk(void **s)
{
	struct env *e = *s;
	char key[256], src[256], dst[512], *sources[1] = { src };
	struct chain c = { .nhops = 3, .psk_file = key };

	snprintf(key, sizeof(key), "%s/key", e->root);
	assert_int_equal(rp_auth_keygen(key), 0);
	snprintf(src, sizeof(src), "%s/data.bin", e->src);
	make_file(src, 300 * KIB, 3);
	assert_int_equal(push_chain(e, &c, sources, 1), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(e->hop[i].rc, 0);
		snprintf(dst, sizeof(dst), "%s/data.bin", e->hop[i].dir);
		assert_same_file(src, dst);
	}
	assert_released(e);
}

/* --json: one object per host, in chain order. */
static void test_json_hosts(void **s)
{
	struct env *e = *s;
	char want[512];

	file_along(s, 3, 1000);
	snprintf(want, sizeof(want), "\"hosts\":["
		 "{\"host\":\"127.0.0.1:%u\",\"status\":\"ok\",\"files\":1,"
		 "\"failed\":0,\"bytes\":1000},"
		 "{\"host\":\"127.0.0.1:%u\",\"status\":\"ok\",\"files\":1,"
		 "\"failed\":0,\"bytes\":1000},"
		 "{\"host\":\"127.0.0.1:%u\",\"status\":\"ok\",\"files\":1,"
		 "\"failed\":0,\"bytes\":1000}]", e->hop[0].port,
		 e->hop[1].port, e->hop[2].port);
	if (!strstr(e->seen.json, want))
		fail_msg("no %s in:\n%s", want, e->seen.json);
}

/* A middle hop that does not relay refuses the chain at its HELLO: the
 * hop before it has the file, it failed, the ones after were not
 * reached, and the push fails, naming it. */
static void test_middle_hop_refuses(void **s)
{
	struct env *e = *s;
	struct chain c = { .nhops = 4, .relay_off = 2 };
	char src[256], dst[512], *sources[1] = { src }, b[32], names[64];
	int rc;

	snprintf(src, sizeof(src), "%s/data.bin", e->src);
	make_file(src, 100 * KIB, 3);
	rc = push_chain(e, &c, sources, 1);
	assert_int_not_equal(rc, 0);
	assert_int_equal(e->out.phase, RP_PHASE_DONE);
	assert_int_equal(e->hop[0].rc, 0);
	snprintf(dst, sizeof(dst), "%s/data.bin", e->hop[0].dir);
	assert_same_file(src, dst);
	assert_int_equal(e->seen.nhosts, 4);
	assert_host_ok(e, 0, 1, 100 * KIB);
	assert_true(e->seen.hosts[1].reached);
	assert_int_not_equal(e->seen.hosts[1].rc, 0);
	assert_false(e->seen.hosts[2].reached);
	assert_false(e->seen.hosts[3].reached);
	assert_host_line(e, 0, "ok, 1 entry, %s",
			 rp_fmt_bytes(b, sizeof(b), 100 * KIB));
	/* In the refusing host's words. */
	assert_host_line(e, 1, "failed: this receiver does not relay a "
			 "chain (start it with rdmapush recv --relay)");
	assert_host_line(e, 2, "not reached");
	assert_host_line(e, 3, "not reached");
	assert_int_equal(e->out.nhosts, 4);
	assert_int_equal(e->out.hosts_failed, 3);
	snprintf(names, sizeof(names), "127.0.0.1:%u, 127.0.0.1:%u, "
		 "127.0.0.1:%u", e->hop[1].port, e->hop[2].port,
		 e->hop[3].port);
	assert_string_equal(e->out.failed_hosts, names);
	assert_error_line(e, 3, 4, names);
	/* --json: the failed host's error, those after it not reached. */
	if (!strstr(e->seen.json, "\"status\":\"error\",\"files\":0,"
		    "\"failed\":0,\"bytes\":0,\"error\":\"this receiver "
		    "does not relay a chain (start it with rdmapush recv "
		    "--relay)\"}") ||
	    !strstr(e->seen.json, "\"status\":\"not-reached\""))
		fail_msg("hosts not as they fared in:\n%s", e->seen.json);
	assert_released(e);
}

/* The last hop has the file already (no --force): that host failed
 * for it, the others have it, and the push fails with its error. */
static void test_last_hop_refuses_file(void **s)
{
	struct env *e = *s;
	struct chain c = { .nhops = 4 };
	char src[256], dst[512], *sources[1] = { src }, b[32], names[64];
	char last[300];
	int rc;

	snprintf(src, sizeof(src), "%s/data.bin", e->src);
	make_file(src, 70 * KIB, 5);
	/* The hop's directory is made by push_chain: the file in it is
	 * made by a hop 4 directory here first. */
	snprintf(last, sizeof(last), "%s/hop4", e->root);
	assert_int_equal(mkdir(last, 0755), 0);
	snprintf(dst, sizeof(dst), "%s/data.bin", last);
	make_file(dst, 10, 1);
	c.keep_last_dir = true;
	rc = push_chain(e, &c, sources, 1);
	assert_int_equal(rc, RP_EEXIST);
	for (int i = 0; i < 3; i++) {
		snprintf(dst, sizeof(dst), "%s/data.bin", e->hop[i].dir);
		assert_same_file(src, dst);
		assert_host_ok(e, i, 1, 70 * KIB);
		assert_host_line(e, i, "ok, 1 entry, %s",
				 rp_fmt_bytes(b, sizeof(b), 70 * KIB));
	}
	assert_true(e->seen.hosts[3].reached);
	assert_int_equal(e->seen.hosts[3].rc, RP_EEXIST);
	assert_int_equal(e->seen.hosts[3].files, 0);
	assert_int_equal(e->seen.hosts[3].failed, 1);
	assert_host_line(e, 3, "failed: %s", rp_strerror(RP_EEXIST));
	assert_int_equal(e->out.hosts_failed, 1);
	snprintf(names, sizeof(names), "127.0.0.1:%u", e->hop[3].port);
	assert_string_equal(e->out.failed_hosts, names);
	assert_error_line(e, 1, 4, names);
	assert_released(e);
}

/* Hop k (1-based) of four dies at death, mid-way through a 5 MiB file:
 * nothing hangs or leaks; each hop before it has the file; the origin
 * pushes to each hop after it directly, which continues from where the
 * chain left it, so they have the file too; the dead one alone is
 * reported failed, and the push fails naming it. */
static void hop_dies(void **s, int k, enum death death)
{
	struct env *e = *s;
	struct chain c = { .nhops = 4, .dies = k, .death = death };
	char src[256], dst[512], *sources[1] = { src }, names[64];
	int rc;

	snprintf(src, sizeof(src), "%s/data.bin", e->src);
	make_file(src, 5 * MIB, 9);
	rc = push_chain(e, &c, sources, 1);
	assert_int_not_equal(rc, 0);
	/* It got through, but for the dead host: the tool prints each
	 * host's line and names that one (not "push failed in DATA"). */
	assert_int_equal(e->out.phase, RP_PHASE_DONE);
	if (death != AT_CONNECT)
		assert_true(atomic_load(&e->hop[k - 1].died));
	assert_int_equal(e->seen.nhosts, 4);
	for (int i = 0; i < 4; i++) {
		const struct rp_host_result *r = &e->seen.hosts[i];

		snprintf(dst, sizeof(dst), "%s/data.bin", e->hop[i].dir);
		assert_true(r->reached);
		if (i == k - 1) {
			assert_int_not_equal(r->rc, 0);
			/* Whole (it may have landed it all) or nothing. */
			if (access(dst, F_OK) == 0)
				assert_same_file(src, dst);
			continue;
		}
		if (r->rc)
			fail_msg("hop %d: %s", i + 1, rp_strerror(r->rc));
		assert_same_file(src, dst);
		/* Pushed to directly by the origin: after the chain's own
		 * push, when the dead hop had started to relay. */
		if (i > k - 1)
			assert_int_equal(e->hop[i].sessions,
					 in_data(death) || death == AT_END ?
					 2 : 1);
		/* The next hop's copy went on from where it stopped (or
		 * it had it whole: nothing sent). */
		if (i == k && in_data(death))
			assert_true(e->hop[i].data_bytes < 5 * MIB);
	}
	snprintf(names, sizeof(names), "127.0.0.1:%u", e->hop[k - 1].port);
	assert_int_equal(e->out.hosts_failed, 1);
	assert_string_equal(e->out.failed_hosts, names);
	assert_error_line(e, 1, 4, names);
	assert_released(e);
}

static void test_first_hop_dies_at_hello(void **s)
{
	hop_dies(s, 1, AT_HELLO);
}

static void test_first_hop_dies_in_data(void **s)
{
	hop_dies(s, 1, IN_DATA);
}

static void test_middle_hop_dies_at_connect(void **s)
{
	hop_dies(s, 2, AT_CONNECT);
}

static void test_middle_hop_dies_at_hello(void **s)
{
	hop_dies(s, 2, AT_HELLO);
}

static void test_middle_hop_dies_in_data(void **s)
{
	hop_dies(s, 2, IN_DATA);
}

static void test_middle_hop_link_fails_in_data(void **s)
{
	hop_dies(s, 2, LINK_IN_DATA);
}

static void test_middle_hop_dies_at_end(void **s)
{
	hop_dies(s, 3, AT_END);
}

static void test_last_hop_dies_in_data(void **s)
{
	hop_dies(s, 4, IN_DATA);
}

static void test_last_hop_dies_at_end(void **s)
{
	hop_dies(s, 4, AT_END);
}

/* What a chain cannot carry is refused before anything connects. */
static void test_chain_refuses_locally(void **s)
{
	struct env *e = *s;
	struct rp_host hosts[2] = { { .name = "a", .port = 1 },
				    { .name = "b", .port = 2 } };
	char src[256], dash[] = "-", *sources[1] = { src };
	struct rp_config o;

	snprintf(src, sizeof(src), "%s/f", e->src);
	make_file(src, 10, 1);
	rp_config_defaults(&o);
	o.quiet = true;
	o.sources = sources;
	o.nsources = 1;
	o.hosts = hosts;
	o.nhosts = 2;
	o.host = "a";
	assert_int_equal(rp_session_send_check(&o), 0);
	o.resume = true;
	assert_int_equal(rp_session_send_check(&o), RP_EUSAGE);
	o.resume = false;
	o.update = 1;
	assert_int_equal(rp_session_send_check(&o), RP_EUSAGE);
	o.update = 0;
	sources[0] = dash;
	o.as_name = "x";
	assert_int_equal(rp_session_send_check(&o), RP_EUSAGE);
	/* One host: as ever. */
	o.nhosts = 1;
	assert_int_equal(rp_session_send_check(&o), 0);
}

int main(void)
{
	const char *op = getenv("RP_TEST_OP");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_hops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_four_hops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_four_hops_empty, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_four_hops_one_chunk,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_four_hops_tree, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_three_hops_psk, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_json_hosts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_refuses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_hop_refuses_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_refuses_locally,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_hop_dies_at_hello,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_hop_dies_in_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_dies_at_connect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_dies_at_hello,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_dies_in_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_link_fails_in_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_middle_hop_dies_at_end,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_hop_dies_in_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_hop_dies_at_end,
						setup, teardown),
	};

	if (op && !strcmp(op, "read"))
		test_op = RP_OP_READ;
	else if (op && !strcmp(op, "send"))
		test_op = RP_OP_SEND;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
