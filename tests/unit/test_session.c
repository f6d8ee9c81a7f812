// SPDX-License-Identifier: MIT
/*
 * The sender's and receiver's state machines, run for real in one
 * process: the receiver in a thread, the sender in the test's thread,
 * over a socketpair control channel and the in-memory fabric, with real
 * files in a temporary directory. A relay between the two control
 * sockets counts messages and can cut the connection after any of them,
 * which is how a side "dies" at a chosen phase.
 *
 * Every case checks both exit statuses, the directory (the complete,
 * byte-identical file, or nothing at all, not even a hidden temporary),
 * and that every context, ring and descriptor was released.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/opts.h"
#include "rdmapush/proto.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"

#define KIB 1024u
#define MIB (1024u * 1024u)
#define NEVER UINT32_MAX	/* relay: never cut */

/* One case: what to push, how, and what goes wrong. */
struct scenario {
	uint64_t size;
	uint32_t chunk;
	uint32_t window;
	int timeout;
	const char *as_name;	/* sender's --as */
	bool psk_send, psk_recv;
	bool wrong_key;		/* the sender's key differs */
	bool force;
	bool exists;		/* a file of that name is already there */
	uint32_t cut_after;	/* relay: close after this many messages */
	enum rp_fab_side fault_side;
	enum rp_fab_fault fault;
	uint64_t fault_nth;
	uint64_t signal_at;	/* raise SIGINT at the sender's nth post */
	unsigned int recv_ack_ms;	/* the receiver's ACKs come this late */
	unsigned int send_ack_ms;	/* the sender's ACKs come this late */
	bool busy;		/* the receiver's admission hook says busy */
};

/* What came of it. */
struct result {
	int send_rc, recv_rc;
	struct rp_outcome send_out, recv_out;
	uint32_t msgs;		/* control messages the relay carried */
	int admit_calls;	/* times the admission hook was asked */
	int admit_open;		/* fabric contexts open when it was asked */
};

struct env {
	char root[64];
	char src[96], dst[96];
	char key_a[128], key_b[128];
	int dirfd;
	int fds_before;
};

/* ---------------------------------------------------------------------
 * The relay: forwards whole control messages between the two sides
 */

struct relay {
	int a, b;		/* to the sender, to the receiver */
	uint32_t cut_after;
	uint32_t msgs;
	pthread_t thr;
};

static int read_full(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One message from 'from' to 'to'. 0, or -1 when either side closed. */
static int forward(int from, int to)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_msg_hdr h;
	const char *why;

	if (read_full(from, buf, RP_PROTO_HDR_LEN))
		return -1;
	/* A header we cannot parse is passed on as is, for the side to judge. */
	if (rp_proto_parse_hdr(buf, RP_PROTO_HDR_LEN, &h, &why))
		return write_full(to, buf, RP_PROTO_HDR_LEN);
	if (read_full(from, buf + RP_PROTO_HDR_LEN, h.length))
		return -1;
	return write_full(to, buf, RP_PROTO_HDR_LEN + h.length);
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;

	while (r->msgs < r->cut_after) {
		struct pollfd p[2] = {
			{ .fd = r->a, .events = POLLIN },
			{ .fd = r->b, .events = POLLIN },
		};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents && forward(r->a, r->b))
			break;
		if (p[0].revents)
			r->msgs++;
		if (p[1].revents && r->msgs < r->cut_after &&
		    forward(r->b, r->a))
			break;
		if (p[1].revents && r->msgs < r->cut_after)
			r->msgs++;
	}
	/* The connection dies: both sides see it closed. */
	shutdown(r->a, SHUT_RDWR);
	shutdown(r->b, SHUT_RDWR);
	return NULL;
}

/* ---------------------------------------------------------------------
 * The receiver's thread
 */

struct recv_job {
	const struct rp_opts *o;
	const uint8_t *psk;
	int dirfd, fd;
	const struct rp_admission *adm;
	int rc;
	struct rp_outcome out;
};

static void *recv_main(void *arg)
{
	struct recv_job *j = arg;

	j->rc = rp_session_recv_one(j->o, j->psk, j->dirfd, j->fd, "test-sender",
				    j->adm, &j->out);
	return NULL;
}

/* ---------------------------------------------------------------------
 * Files and directories
 */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own */
}

/* Deterministic content, different per offset, so misplaced chunks show. */
static void make_file(const char *path, uint64_t size, uint8_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint8_t buf[64 * KIB];
	uint64_t off = 0;

	assert_true(fd >= 0);
	while (off < size) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)((off + i) * 2654435761u >> 13) ^ seed;
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		off += n;
	}
	assert_int_equal(close(fd), 0);
}

static void make_key(const char *path, uint8_t fill)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	uint8_t key[32];

	memset(key, fill, sizeof(key));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, key, sizeof(key)), (ssize_t)sizeof(key));
	assert_int_equal(close(fd), 0);
}

/* Entries of dir, dot files included; the one name in *only if n == 1. */
static int list_dir(const char *dir, char *only, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(only, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	snprintf(e->root, sizeof(e->root), "/tmp/rp-session.XXXXXX");
	assert_non_null(mkdtemp(e->root));
	snprintf(e->src, sizeof(e->src), "%s/src", e->root);
	snprintf(e->dst, sizeof(e->dst), "%s/dst", e->root);
	snprintf(e->key_a, sizeof(e->key_a), "%s/key-a", e->root);
	snprintf(e->key_b, sizeof(e->key_b), "%s/key-b", e->root);
	assert_int_equal(mkdir(e->src, 0755), 0);
	assert_int_equal(mkdir(e->dst, 0755), 0);
	make_key(e->key_a, 0xa5);
	make_key(e->key_b, 0x5a);
	e->dirfd = open(e->dst, O_RDONLY | O_DIRECTORY);
	assert_true(e->dirfd >= 0);
	rp_fab_reset();
	rp_session_stop = 0;
	e->fds_before = count_fds();
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	close(e->dirfd);
	rm_tree(e->root);
	free(e);
	rp_fab_reset();
	rp_session_stop = 0;
	return 0;
}

/* ---------------------------------------------------------------------
 * Running one scenario
 */

static void on_post(enum rp_fab_side side, uint64_t nth, void *arg)
{
	const struct scenario *sc = arg;

	/* A real signal, delivered to the thread that is posting. */
	if (side == RP_FAB_SENDER && nth == sc->signal_at)
		raise(SIGINT);
}

/* The admission hook: what the receiver had done when it asked. */
struct admit_probe {
	const struct scenario *sc;
	struct result *res;
};

static int admit_hook(void *ctx, const char *peer)
{
	struct admit_probe *p = ctx;
	struct rp_fab_stats st;

	(void)peer;
	rp_fab_stats(&st);
	p->res->admit_calls++;
	p->res->admit_open = st.open;
	return p->sc->busy ? RP_EBUSY : 0;
}

static void opts_for(struct rp_opts *o, const struct env *e,
		     const struct scenario *sc, bool send, const char *file)
{
	memset(o, 0, sizeof(*o));
	o->mode = send ? RP_MODE_SEND : RP_MODE_RECV;
	o->timeout = sc->timeout ? sc->timeout : 5;
	o->gid_index = -1;
	o->quiet = true;
	o->max_transfers = 1;
	o->chunk = sc->chunk ? sc->chunk : 64 * KIB;
	o->window = sc->window ? sc->window : 4;
	o->force = sc->force;
	o->as_name = sc->as_name;
	o->file = file;
	o->host = "test-receiver";
	o->dir = e->dst;
	if (send && sc->psk_send)
		o->psk_file = sc->wrong_key ? e->key_b : e->key_a;
}

static void run(struct env *e, const struct scenario *sc, struct result *res,
		const char *file)
{
	struct rp_opts so, ro;
	uint8_t key[RP_PSK_LEN];
	struct recv_job job = { .dirfd = e->dirfd };
	struct relay rl = { .cut_after = sc->cut_after ? sc->cut_after : NEVER };
	struct admit_probe probe = { .sc = sc, .res = res };
	struct rp_admission adm = { .admit = admit_hook, .ctx = &probe };
	int sp[2], rp[2];
	pthread_t rt;

	opts_for(&so, e, sc, true, file);
	opts_for(&ro, e, sc, false, NULL);
	if (sc->psk_recv) {
		assert_int_equal(rp_auth_load(e->key_a, key), 0);
		job.psk = key;
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, rp), 0);
	rl.a = sp[1];
	rl.b = rp[1];
	if (sc->recv_ack_ms)
		rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_SLOW_ACK, sc->recv_ack_ms);
	if (sc->send_ack_ms)
		rp_fab_fault(RP_FAB_SENDER, RP_FAB_SLOW_ACK, sc->send_ack_ms);
	if (sc->fault)
		rp_fab_fault(sc->fault_side, sc->fault, sc->fault_nth);
	if (sc->signal_at)
		rp_fab_set_hook(on_post, (void *)sc);
	memset(res, 0, sizeof(*res));
	job.o = &ro;
	job.fd = rp[0];
	job.adm = &adm;
	assert_int_equal(pthread_create(&rl.thr, NULL, relay_main, &rl), 0);
	assert_int_equal(pthread_create(&rt, NULL, recv_main, &job), 0);
	res->send_rc = rp_session_send_fd(&so, sp[0], "test-receiver",
					  &res->send_out);
	assert_int_equal(pthread_join(rt, NULL), 0);
	/* Both sides have closed their ends: the relay sees EOF and stops. */
	assert_int_equal(pthread_join(rl.thr, NULL), 0);
	close(sp[1]);
	close(rp[1]);
	res->recv_rc = job.rc;
	res->recv_out = job.out;
	res->msgs = rl.msgs;
	rp_fab_set_hook(NULL, NULL);
	rp_session_stop = 0;
}

/* Everything released: fabric contexts and rings, and descriptors. */
static void assert_released(const struct env *e)
{
	struct rp_fab_stats st;

	rp_fab_stats(&st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
	assert_int_equal(count_fds(), e->fds_before);
}

/* The received file is there and identical, and nothing else is. */
static void assert_delivered(const struct env *e, const char *src,
			     const char *name)
{
	char only[300], path[512];

	assert_int_equal(list_dir(e->dst, only, sizeof(only)), 1);
	assert_string_equal(only, name);
	snprintf(path, sizeof(path), "%s/%s", e->dst, name);
	assert_true(same_file(src, path));
}

static void assert_nothing(const struct env *e)
{
	char only[300];

	assert_int_equal(list_dir(e->dst, only, sizeof(only)), 0);
}

/* Push a fresh file of sc->size bytes; returns the result. */
static void push(struct env *e, const struct scenario *sc, struct result *r)
{
	char file[160];

	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	make_file(file, sc->size, 7);
	run(e, sc, r, file);
	assert_released(e);
}

/* A push that must succeed on both sides and deliver the file. */
static void push_ok(void **state, const struct scenario *sc)
{
	struct env *e = *state;
	char file[160];
	struct result r;

	push(e, sc, &r);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	assert_true(r.send_out.done == r.send_out.chunks);
	assert_int_equal(r.admit_calls, 1);
	assert_delivered(e, file, sc->as_name ? sc->as_name : "data.bin");
}

/* A push that must fail on both sides and leave nothing behind. */
static void push_fails(void **state, const struct scenario *sc,
		       struct result *r)
{
	struct env *e = *state;

	push(e, sc, r);
	assert_int_not_equal(r->send_rc, 0);
	assert_int_not_equal(r->recv_rc, 0);
	assert_nothing(e);
}

/* ---------------------------------------------------------------------
 * Sizes and shapes
 */

static void test_size_0(void **s)
{
	push_ok(s, &(struct scenario){ .size = 0 });
}

static void test_size_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 1 });
}

static void test_size_chunk_minus_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB - 1 });
}

static void test_size_chunk(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB });
}

static void test_size_chunk_plus_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB + 1 });
}

/* 256 chunks through a ring of 4: every slot reused 64 times. */
static void test_size_many_rings(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4 * MIB + 12345,
				       .chunk = 16 * KIB, .window = 4 });
}

/* A small file with a chunk that is not a multiple of a page: the
 * receiver used to round the chunk up past what was asked, and the
 * sender refused the MR. */
static void test_chunk_not_page_multiple_small(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4999, .chunk = 5000 });
}

static void test_chunk_not_page_multiple_large(void **s)
{
	push_ok(s, &(struct scenario){ .size = 300 * KIB + 7,
				       .chunk = 5000, .window = 3 });
}

/* Window 1: the last credit used to be held back when the credit Send
 * queue was full, so a finished push waited for the timeout. The
 * timeout is long and the duration checked, so a hang cannot pass. */
static void test_window_1(void **s)
{
	double t0 = rp_now();

	push_ok(s, &(struct scenario){ .size = 2 * MIB + 1, .chunk = 4 * KIB,
				       .window = 1, .timeout = 30 });
	assert_true(rp_now() - t0 < 10.0);
}

/* Window 1 with the receiver's credit Sends completing late, as on a
 * real link: its send queue is full when the last chunk lands. */
static void test_window_1_slow_acks(void **s)
{
	double t0 = rp_now();

	push_ok(s, &(struct scenario){ .size = 65 * 4 * KIB, .chunk = 4 * KIB,
				       .window = 1, .timeout = 30,
				       .recv_ack_ms = 3 });
	assert_true(rp_now() - t0 < 10.0);
}

/* The sender's write completions come late: slots free up only then. */
static void test_sender_slow_acks(void **s)
{
	push_ok(s, &(struct scenario){ .size = 1 * MIB + 3, .chunk = 16 * KIB,
				       .window = 4, .send_ack_ms = 2,
				       .recv_ack_ms = 1 });
}

/* The receiver shrinks the chunk to the file and the window to its
 * chunks; the sender follows. */
static void test_receiver_shrinks_chunk(void **s)
{
	push_ok(s, &(struct scenario){ .size = 100 * KIB, .chunk = 4 * MIB,
				       .window = 8 });
}

static void test_receiver_shrinks_window(void **s)
{
	push_ok(s, &(struct scenario){ .size = 3 * 64 * KIB, .window = 16 });
}

/* ---------------------------------------------------------------------
 * Pre-shared key, names
 */

static void test_psk_right(void **s)
{
	push_ok(s, &(struct scenario){ .size = 200 * KIB, .psk_send = true,
				       .psk_recv = true });
}

static void test_psk_wrong(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_send = true,
					  .psk_recv = true,
					  .wrong_key = true }, &r);
	assert_int_equal(r.send_rc, RP_EAUTH);
	assert_int_equal(r.send_out.phase, RP_PHASE_AUTH);
	assert_int_equal(r.recv_out.phase, RP_PHASE_AUTH);
	/* Never past its handshake: it never asked for a transfer slot. */
	assert_int_equal(r.admit_calls, 0);
}

static void test_psk_sender_only(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_send = true },
		   &r);
	assert_int_equal(r.recv_rc, RP_EAUTH);
}

static void test_psk_receiver_only(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_recv = true },
		   &r);
	assert_int_equal(r.send_rc, RP_EAUTH);
}

static void test_bad_name_refused_before_connecting(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10, .as_name = "../up" }, &r);
	assert_int_equal(r.send_rc, RP_EBADNAME);
	assert_int_equal(r.send_out.phase, RP_PHASE_PREPARE);
	/* Refused before HELLO: the only message is the sender's ERR. */
	assert_int_equal(r.msgs, 1);
	assert_int_equal(r.recv_rc, RP_EBADNAME);
	assert_int_equal(r.recv_out.phase, RP_PHASE_HELLO);
}

static void test_existing_name_refused(void **s)
{
	struct env *e = *s;
	char path[160], copy[160];
	struct result r;

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	snprintf(copy, sizeof(copy), "%s/before", e->src);
	make_file(path, 1000, 1);
	make_file(copy, 1000, 1);
	push(e, &(struct scenario){ .size = 5000 }, &r);
	assert_int_equal(r.send_rc, RP_EEXIST);
	assert_int_equal(r.recv_rc, RP_EEXIST);
	assert_int_equal(r.recv_out.phase, RP_PHASE_SETUP);
	assert_delivered(e, copy, "data.bin");	/* untouched */
}

static void test_existing_name_forced(void **s)
{
	struct env *e = *s;
	char path[160];

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	make_file(path, 1000, 1);
	push_ok(s, &(struct scenario){ .size = 70 * KIB, .force = true });
}

/* ---------------------------------------------------------------------
 * Faults in the fabric
 */

/*
 * One side's nth completion fails. Its QP goes to ERROR, so the other
 * side's next operation fails too; each tells the other why, and each
 * reports its own failed completion or the peer's word that its RDMA
 * failed, whichever it hears first. Never a timeout, never a file.
 */
static void completion_fails(void **s, enum rp_fab_side side, uint64_t nth)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .fault_side = side,
		   .fault = RP_FAB_FAIL_COMPLETION, .fault_nth = nth }, &r);
	assert_true(r.send_rc == RP_EWC || r.send_rc == RP_EPEERRDMA);
	assert_true(r.recv_rc == RP_EWC || r.recv_rc == RP_EPEERRDMA);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

static void test_recv_completion_fails(void **s)
{
	completion_fails(s, RP_FAB_RECEIVER, 3);
}

static void test_send_completion_fails(void **s)
{
	completion_fails(s, RP_FAB_SENDER, 5);
}

static void test_send_post_fails(void **s)
{
	struct result r;

	/* The sender's posts: its credit receives first, then writes. */
	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_FAIL_POST,
		   .fault_nth = 10 }, &r);
	assert_int_equal(r.send_rc, RP_EVERBS);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.recv_rc, RP_EPEERRDMA);
}

static void test_recv_post_fails(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_FAIL_POST,
		   .fault_nth = 9 }, &r);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

/* The sender stalls mid-data: the receiver gives up after --timeout. */
static void test_stalled_sender_times_out(void **s)
{
	struct result r;
	double t0 = rp_now();

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .timeout = 1,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_STALL,
		   .fault_nth = 8 }, &r);
	assert_int_equal(r.recv_rc, RP_ETIMEOUT);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
	assert_true(rp_now() - t0 < 8.0);
}

static void test_stalled_receiver_times_out(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .timeout = 1,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_STALL,
		   .fault_nth = 6 }, &r);
	assert_int_equal(r.send_rc, RP_ETIMEOUT);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
}

/* SIGINT mid-data: the sender stops, says so, nothing is left. */
static void test_signal_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 4 * MIB, .chunk = 16 * KIB,
		   .signal_at = 40 }, &r);
	assert_int_equal(r.send_rc, RP_EINTERRUPTED);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_true(r.send_out.done < r.send_out.chunks);
}

/* The receiver dies mid-data: its QP errors out, its control connection
 * goes with it. */
static void test_receiver_dies_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_KILL,
		   .fault_nth = 12, .cut_after = 2 }, &r);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
}

static void test_sender_dies_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_KILL,
		   .fault_nth = 12, .cut_after = 2 }, &r);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

/* ---------------------------------------------------------------------
 * The control connection dies after each message
 */

/* Cut after 'after' messages; the receiver must stop in one of the two
 * phases (the second where the data may finish before the cut shows). */
static void cut(void **s, uint32_t after, bool psk, enum rp_phase phase,
		enum rp_phase or_phase)
{
	struct result r;
	enum rp_phase got;

	push_fails(s, &(struct scenario){ .size = 300 * KIB, .psk_send = psk,
		   .psk_recv = psk, .cut_after = after }, &r);
	assert_int_equal(r.msgs, after);
	got = r.recv_out.phase;
	assert_true(got == phase || got == or_phase);
}

static void test_cut_after_first_auth(void **s)
{
	cut(s, 1, true, RP_PHASE_AUTH, RP_PHASE_AUTH);
}

static void test_cut_after_auth(void **s)
{
	cut(s, 3, true, RP_PHASE_HELLO, RP_PHASE_HELLO);
}

static void test_cut_after_hello(void **s)
{
	/* Its MR may still fit in the socket before the cut shows. */
	cut(s, 1, false, RP_PHASE_SETUP, RP_PHASE_DATA);
}

static void test_cut_after_mr(void **s)
{
	cut(s, 2, false, RP_PHASE_DATA, RP_PHASE_FIN);
}

/* After FIN the receiver commits, then cannot deliver its ACK: the file
 * may stand (it is complete and verified), the sender must fail. */
static void test_cut_after_fin(void **s)
{
	struct env *e = *s;
	char file[160], only[300];
	struct result r;

	push(e, &(struct scenario){ .size = 300 * KIB, .cut_after = 3 }, &r);
	assert_int_equal(r.msgs, 3);
	assert_int_not_equal(r.send_rc, 0);
	assert_int_equal(r.send_out.phase, RP_PHASE_FIN);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	if (list_dir(e->dst, only, sizeof(only)))
		assert_delivered(e, file, "data.bin");
}

/* ---------------------------------------------------------------------
 * Admission: a slot is asked for only after the handshake, before
 * anything is opened; the handshake has its own short deadline
 */

/* Refused a slot after AUTH and HELLO: the sender hears "busy" (exit 3),
 * and the receiver had opened nothing when it asked. */
static void test_busy_after_handshake(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 100 * KIB, .psk_send = true,
					  .psk_recv = true, .busy = true }, &r);
	assert_int_equal(r.admit_calls, 1);
	/* The sender's context (its HELLO carries its QP), not ours. */
	assert_int_equal(r.admit_open, 1);
	assert_int_equal(r.send_rc, RP_EBUSY);
	assert_int_equal(rp_err_exit_code(r.send_rc), 3);
	assert_int_equal(r.send_out.phase, RP_PHASE_HELLO);
	assert_int_equal(r.recv_rc, RP_EBUSY);
	assert_int_equal(r.recv_out.phase, RP_PHASE_HELLO);
}

/* A connection that says nothing, or starts AUTH and stalls, is closed
 * handshake_s after it was accepted, whatever --timeout says; a message
 * on the way does not restart the clock. */
static void silent_peer(struct env *e, int timeout, bool psk, double delay,
			double want_s)
{
	struct rp_opts o;
	uint8_t key[RP_PSK_LEN], buf[RP_PROTO_MAX_MSG];
	struct rp_auth chal = { .step = RP_AUTH_CHALLENGE };
	struct rp_outcome out;
	int sp[2], rc, n;
	double t0 = rp_now(), took;
	pid_t kid;

	opts_for(&o, e, &(struct scenario){ .timeout = timeout }, false, NULL);
	assert_int_equal(rp_auth_load(e->key_a, key), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	n = rp_proto_pack_auth(buf, sizeof(buf), &chal);
	assert_true(n > 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		close(sp[0]);
		usleep((useconds_t)(delay * 1e6));
		if (psk)
			(void)!write(sp[1], buf, (size_t)n);
		sleep(30);
		_exit(0);
	}
	close(sp[1]);
	rc = rp_session_recv_one(&o, psk ? key : NULL, e->dirfd, sp[0],
				 "silent", NULL, &out);
	took = rp_now() - t0;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	assert_int_equal(rc, RP_ETIMEOUT);
	assert_int_equal(out.phase, psk ? RP_PHASE_AUTH : RP_PHASE_HELLO);
	assert_true(took > want_s - 0.3);
	assert_true(took < want_s + 0.8);
	assert_nothing(e);
	assert_released(e);
}

static void test_handshake_deadline(void **s)
{
	/* RP_HANDSHAKE_SECS, not --timeout 60. */
	silent_peer(*s, 60, false, 0, RP_HANDSHAKE_SECS);
}

static void test_handshake_deadline_not_reset(void **s)
{
	/* --timeout 2 is shorter: 2 s from accept, though AUTH came at 1.5 s. */
	silent_peer(*s, 2, true, 1.5, 2.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_size_0),
		T(test_size_1),
		T(test_size_chunk_minus_1),
		T(test_size_chunk),
		T(test_size_chunk_plus_1),
		T(test_size_many_rings),
		T(test_chunk_not_page_multiple_small),
		T(test_chunk_not_page_multiple_large),
		T(test_window_1),
		T(test_window_1_slow_acks),
		T(test_sender_slow_acks),
		T(test_receiver_shrinks_chunk),
		T(test_receiver_shrinks_window),
		T(test_psk_right),
		T(test_psk_wrong),
		T(test_psk_sender_only),
		T(test_psk_receiver_only),
		T(test_bad_name_refused_before_connecting),
		T(test_existing_name_refused),
		T(test_existing_name_forced),
		T(test_recv_completion_fails),
		T(test_send_completion_fails),
		T(test_send_post_fails),
		T(test_recv_post_fails),
		T(test_stalled_sender_times_out),
		T(test_stalled_receiver_times_out),
		T(test_signal_mid_data),
		T(test_receiver_dies_mid_data),
		T(test_sender_dies_mid_data),
		T(test_cut_after_first_auth),
		T(test_cut_after_auth),
		T(test_cut_after_hello),
		T(test_cut_after_mr),
		T(test_cut_after_fin),
		T(test_busy_after_handshake),
		T(test_handshake_deadline),
		T(test_handshake_deadline_not_reset),
#undef T
	};

	/* Errors still print (to stderr); progress and summaries do not. */
	rp_trace_init(RP_V_QUIET, "test");
	rp_session_signals();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
