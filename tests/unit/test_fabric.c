// SPDX-License-Identifier: MIT
/* Unit tests of the in-memory fabric (tests/fakes/fabric_mem.c): the verbs.h
 * contract as the session uses it, its failures, faults and threads. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

#define RING_LEN	(64 * 1024)

#define ACC_LW		RP_ACCESS_LOCAL_WRITE
#define ACC_WRITE	(RP_ACCESS_LOCAL_WRITE | RP_ACCESS_REMOTE_WRITE)
#define ACC_READ	RP_ACCESS_REMOTE_READ

/* A sender (s) and a receiver (r), each with a registered ring. */
struct pair {
	struct rp_verbs *s;
	struct rp_verbs *r;
	uint8_t *sring;
	uint8_t *rring;
	uint32_t rkey;
	uint32_t skey;
	size_t len;
};

/* qps QPs a side (0: the default, one), each ring registered with its
 * side's access (RP_ACCESS_*). */
static void open_pair_qps(struct pair *p, uint32_t qps, uint32_t depth,
			  size_t len, unsigned int sacc, unsigned int racc)
{
	struct rp_verbs_cfg sc = { .max_send_wr = depth,
				   .max_recv_wr = depth, .access = sacc,
				   .qps = qps };
	struct rp_verbs_cfg rc = sc;

	rc.receiver = true;
	rc.access = racc;
	memset(p, 0, sizeof(*p));
	p->len = len;
	assert_int_equal(rp_verbs_open(&p->r, &rc), 0);
	assert_int_equal(rp_verbs_open(&p->s, &sc), 0);
	assert_int_equal(rp_verbs_reg_ring(p->r, len, (void **)&p->rring,
					   &p->rkey), 0);
	assert_int_equal(rp_verbs_reg_ring(p->s, len, (void **)&p->sring,
					   &p->skey), 0);
}

static void open_pair_acc(struct pair *p, uint32_t depth, size_t len,
			  unsigned int sacc, unsigned int racc)
{
	open_pair_qps(p, 0, depth, len, sacc, racc);
}

/* --op write: the sender's ring a local source, the receiver's open to
 * the sender's Writes. */
static void open_pair(struct pair *p, uint32_t depth, size_t len)
{
	open_pair_acc(p, depth, len, 0, ACC_WRITE);
}

/* Every QP i of one side to QP i of the other, as the session does. */
static void connect_pair(struct pair *p)
{
	struct rp_qp_addr sa[RP_QPS_MAX];
	struct rp_qp_addr ra[RP_QPS_MAX];
	uint32_t n = rp_verbs_qps(p->s);

	assert_int_equal(rp_verbs_qps(p->r), n);
	for (uint32_t i = 0; i < n; i++) {
		rp_verbs_local(p->s, i, &sa[i]);
		rp_verbs_local(p->r, i, &ra[i]);
	}
	assert_int_equal(rp_verbs_connect(p->r, sa, n), 0);
	assert_int_equal(rp_verbs_connect(p->s, ra, n), 0);
}

static void close_pair(struct pair *p)
{
	rp_verbs_close(p->s);
	rp_verbs_close(p->r);
	p->s = NULL;
	p->r = NULL;
}

/* Completions within timeout seconds, no watched fd. */
static int next_in(struct rp_verbs *v, struct rp_wc *wc, int max,
		   double timeout)
{
	return rp_verbs_next(v, wc, max, -1, rp_now() + timeout);
}

static uint64_t raddr_of(const struct pair *p, size_t off)
{
	return (uint64_t)(uintptr_t)p->rring + off;
}

/* The sender's ring, as the receiver's Reads address it. */
static uint64_t saddr_of(const struct pair *p, size_t off)
{
	return (uint64_t)(uintptr_t)p->sring + off;
}

static void fill(uint8_t *buf, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + seed);
}

static void expect_wc(const struct rp_wc *wc, enum rp_wc_op op,
		      uint64_t wr_id, uint32_t byte_len, uint32_t imm)
{
	assert_int_equal(wc->op, op);
	assert_int_equal(wc->wr_id, wr_id);
	assert_int_equal(wc->byte_len, byte_len);
	assert_int_equal(wc->imm, imm);
}

/* expect_wc(), and it came on QP qp. */
static void expect_wc_qp(const struct rp_wc *wc, enum rp_wc_op op,
			 uint64_t wr_id, uint32_t byte_len, uint32_t imm,
			 uint32_t qp)
{
	expect_wc(wc, op, wr_id, byte_len, imm);
	assert_int_equal(wc->qp, qp);
}

/* Nothing at all in buf[0, len): no byte moved there. */
static void assert_zero(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			fail_msg("byte %zu is 0x%02x, not 0", i, buf[i]);
}

static int setup(void **state)
{
	(void)state;
	rp_fab_reset();
	return 0;
}

/* Every test must leave nothing open behind it. */
static int teardown(void **state)
{
	struct rp_fab_stats st;

	(void)state;
	rp_fab_reset();
	rp_fab_stats(&st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
	return 0;
}

static void test_local_and_pairing(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct rp_verbs_cfg cfg = { .max_send_wr = 2, .max_recv_wr = 2 };
	struct rp_qp_addr a;
	struct rp_qp_addr b;
	struct rp_verbs *v;
	struct pair p;
	struct rp_wc wc[2];

	(void)state;
	open_pair(&p, 4, RING_LEN);
	rp_verbs_local(p.s, 0, &a);
	rp_verbs_local(p.r, 0, &b);
	assert_true(a.qpn && a.qpn <= 0xffffff);
	assert_true(b.qpn && b.qpn <= 0xffffff);
	assert_int_not_equal(a.qpn, b.qpn);
	assert_true(a.psn <= 0xffffff);
	assert_int_equal(a.lid, 0);
	assert_int_equal(a.mtu, 3);	/* IBV_MTU_1024, as rxe */
	assert_string_equal(rp_verbs_gid_str(p.s), "::ffff:127.0.0.1");
	assert_int_equal(rp_verbs_gid_index(p.s), 1);

	/* The sender connects first this time; unusable addresses fail. */
	assert_int_equal(rp_verbs_connect(p.s, &b, 1), 0);
	assert_int_equal(rp_verbs_connect(p.s, &b, 1), RP_EINTERNAL);
	b.qpn = 0;
	assert_int_equal(rp_verbs_connect(p.r, &b, 1), RP_EPROTO);
	assert_int_equal(rp_verbs_connect(p.r, &a, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 9, 0, 16,
						 raddr_of(&p, 0), p.rkey, 1),
			 0);
	assert_int_equal(next_in(p.r, wc, 2, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_RECV_WRITE_IMM);
	close_pair(&p);

	/* An IPv4 control connection gives its IPv4-mapped GID. */
	inet_pton(AF_INET, "10.0.0.5", &in.sin_addr);
	cfg.local_addr = (const struct sockaddr *)&in;
	cfg.local_addr_len = sizeof(in);
	assert_int_equal(rp_verbs_open(&v, &cfg), 0);
	assert_string_equal(rp_verbs_gid_str(v), "::ffff:10.0.0.5");
	rp_verbs_close(v);
}

/* A plain Write lands without using a receive and completes only on the
 * writer (and, unsignaled, not at all); rp_verbs_poll() never waits. */
static void test_plain_write_and_poll(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;
	double t0;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 7), 0);
	connect_pair(&p);
	t0 = rp_now();
	assert_int_equal(rp_verbs_poll(p.s, wc, 4), 0);
	assert_int_equal(rp_verbs_poll(p.r, wc, 4), 0);
	assert_true(rp_now() - t0 < 0.5);
	for (int i = 0; i < 100; i++)
		p.sring[i] = (uint8_t)(i + 1);

	assert_int_equal(rp_verbs_post_write(p.s, 0, 21, 0, 100,
					     raddr_of(&p, 300), p.rkey, true),
			 0);
	assert_int_equal(rp_verbs_poll(p.s, wc, 4), 1);
	assert_int_equal(wc[0].op, RP_WC_WRITE);
	assert_int_equal(wc[0].wr_id, 21);
	assert_memory_equal(p.rring + 300, p.sring, 100);
	/* Nothing on the responder: its receive is still posted. */
	assert_int_equal(rp_verbs_poll(p.r, wc, 4), 0);

	/* Unsignaled: the bytes land, no completion anywhere. */
	p.sring[99] = 0xee;
	assert_int_equal(rp_verbs_post_write(p.s, 0, 22, 0, 100,
					     raddr_of(&p, 300), p.rkey, false),
			 0);
	assert_int_equal(p.rring[399], 0xee);
	assert_int_equal(rp_verbs_poll(p.s, wc, 4), 0);
	assert_int_equal(rp_verbs_poll(p.r, wc, 4), 0);

	/* The receive posted before is the one a Write with immediate
	 * consumes now. */
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 23, 0, 8,
						 raddr_of(&p, 0), p.rkey, 5),
			 0);
	assert_int_equal(rp_verbs_poll(p.r, wc, 4), 1);
	assert_int_equal(wc[0].op, RP_WC_RECV_WRITE_IMM);
	assert_int_equal(wc[0].wr_id, 7);
	assert_int_equal(rp_verbs_poll(p.s, wc, 4), 1);
	rp_fab_stats(&st);
	assert_int_equal(st.plain_writes, 2);
	assert_int_equal(st.writes, 1);

	/* A bad rkey fails even an unsignaled one, with a completion. */
	assert_int_equal(rp_verbs_post_write(p.s, 0, 24, 0, 100,
					     raddr_of(&p, 0), p.rkey ^ 1,
					     false), 0);
	assert_int_equal(rp_verbs_poll(p.s, wc, 4), RP_EWC);
	close_pair(&p);
}

static void test_write_imm(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 7), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 8), 0);
	connect_pair(&p);
	for (int i = 0; i < 1000; i++)
		p.sring[4096 + i] = (uint8_t)(i * 7 + 3);

	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 11, 4096, 1000,
						 raddr_of(&p, 8192), p.rkey,
						 0xdeadbeef), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_WRITE);
	assert_int_equal(wc[0].wr_id, 11);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_RECV_WRITE_IMM);
	assert_int_equal(wc[0].wr_id, 7);	/* receives are FIFO */
	assert_int_equal(wc[0].byte_len, 1000);
	assert_int_equal(wc[0].imm, 0xdeadbeef);
	assert_memory_equal(p.rring + 8192, p.sring + 4096, 1000);
	assert_int_equal(p.rring[8191], 0);
	assert_int_equal(p.rring[9192], 0);

	/* The whole ring in one Write, into the next receive. */
	memset(p.sring, 0x5a, RING_LEN);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 12, 0, RING_LEN,
						 raddr_of(&p, 0), p.rkey, 2),
			 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	assert_int_equal(wc[0].wr_id, 8);
	assert_int_equal(wc[0].byte_len, RING_LEN);
	assert_memory_equal(p.rring, p.sring, RING_LEN);
	rp_fab_stats(&st);
	assert_int_equal(st.writes, 2);
	assert_int_equal(st.bytes, 1000 + RING_LEN);
	assert_int_equal(st.open, 2);
	assert_int_equal(st.rings, 2);
	close_pair(&p);
}

/* rp_fab_discard(): a Write and a Send into the receiver land and
 * complete as ever, but no byte of its ring changes; the sender's side
 * and later contexts are unaffected. */
static void test_discard(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	rp_fab_discard(RP_FAB_RECEIVER, true);
	open_pair(&p, 4, RING_LEN);
	rp_fab_discard(RP_FAB_RECEIVER, false);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 7), 0);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 8, 0, 4096), 0);
	connect_pair(&p);
	memset(p.sring, 0x5a, RING_LEN);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 11, 0, 1000,
						 raddr_of(&p, 8192), p.rkey,
						 5), 0);
	assert_int_equal(rp_verbs_post_send_data(p.s, 0, 12, 0, 100, 6), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 2);
	expect_wc(&wc[0], RP_WC_WRITE, 11, 0, 0);
	expect_wc(&wc[1], RP_WC_SEND, 12, 0, 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 2);
	expect_wc(&wc[0], RP_WC_RECV_WRITE_IMM, 7, 1000, 5);
	expect_wc(&wc[1], RP_WC_RECV_SEND_IMM, 8, 100, 6);
	for (size_t i = 0; i < RING_LEN; i++)
		assert_int_equal(p.rring[i], 0);
	close_pair(&p);

	/* Off again: the next pair copies. */
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 7), 0);
	connect_pair(&p);
	memset(p.sring, 0x5a, RING_LEN);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 11, 0, 1000,
						 raddr_of(&p, 0), p.rkey, 5),
			 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	assert_memory_equal(p.rring, p.sring, 1000);
	close_pair(&p);
}

static void test_send_imm(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 3), 0);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 5, 42), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_RECV_SEND_IMM);
	assert_int_equal(wc[0].wr_id, 3);
	assert_int_equal(wc[0].imm, 42);
	assert_int_equal(wc[0].byte_len, 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_SEND);
	assert_int_equal(wc[0].wr_id, 5);
	rp_fab_stats(&st);
	assert_int_equal(st.sends, 1);
	assert_int_equal(st.writes, 0);
	close_pair(&p);
}

/* One RDMA request: a Write from the sender into the receiver's ring,
 * or a Read by the receiver from the sender's, to local offset 0. */
struct rdma_req {
	bool read;
	uint64_t raddr;
	uint32_t len;
	uint32_t rkey;
};

static int post_req(struct pair *p, const struct rdma_req *q, uint64_t wr_id)
{
	if (q->read)
		return rp_verbs_post_read(p->r, 0, wr_id, 0, q->len, q->raddr,
					  q->rkey);
	return rp_verbs_post_write_imm(p->s, 0, wr_id, 0, q->len, q->raddr,
				       q->rkey, 0);
}

/* A refused request: the requester's completion fails, the responder's
 * QP goes to ERROR and flushes its receives, later posts flush too. */
static void expect_refused(struct pair *p, const struct rdma_req *q)
{
	struct rp_verbs *req = q->read ? p->r : p->s;
	struct rp_verbs *resp = q->read ? p->s : p->r;
	struct rp_wc wc[4];

	assert_int_equal(rp_verbs_post_recv(resp, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(resp, 0, 2), 0);
	connect_pair(p);
	assert_int_equal(post_req(p, q, 1), 0);
	assert_int_equal(next_in(req, wc, 4, 1), RP_EWC);
	assert_int_equal(next_in(resp, wc, 4, 1), RP_EWC);
	/* Both QPs are in ERROR now: whatever is posted comes back flushed. */
	assert_int_equal(rp_verbs_post_recv(resp, 0, 3), 0);
	assert_int_equal(next_in(resp, wc, 4, 1), RP_EWC);
	assert_int_equal(post_req(p, q, 2), 0);
	assert_int_equal(next_in(req, wc, 4, 1), RP_EWC);
	assert_int_equal(next_in(req, wc, 4, 0.01), RP_ETIMEOUT);
}

static void expect_write_refused(struct pair *p, uint64_t raddr,
				 uint32_t len, uint32_t rkey)
{
	struct rdma_req q = { .raddr = raddr, .len = len, .rkey = rkey };

	expect_refused(p, &q);
}

static void test_bad_rkey(void **state)
{
	struct rp_fab_stats st;
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	expect_write_refused(&p, raddr_of(&p, 0), 64, p.rkey ^ 1);
	rp_fab_stats(&st);
	assert_int_equal(st.writes, 0);
	close_pair(&p);
}

static void test_out_of_bounds(void **state)
{
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	expect_write_refused(&p, raddr_of(&p, RING_LEN - 10), 100, p.rkey);
	close_pair(&p);
	open_pair(&p, 4, RING_LEN);
	expect_write_refused(&p, raddr_of(&p, 0) - 1, 8, p.rkey);
	close_pair(&p);
}

static void test_no_recv_posted(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	/* The responder is in ERROR: a receive posted now is flushed. */
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	close_pair(&p);
}

static void test_queue_depth(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 2, RING_LEN);
	/* A Send before RTS fails as ibv_post_send does (EINVAL). */
	assert_int_equal(rp_verbs_post_send_imm(p.s, 0, 1, 0), RP_EVERBS);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 2), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 3), RP_EVERBS);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 2, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	/* Slots come back when completions are polled, not before. */
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 3, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 RP_EVERBS);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 3), RP_EVERBS);
	assert_int_equal(next_in(p.s, wc, 4, 1), 2);
	assert_int_equal(next_in(p.r, wc, 1, 1), 1);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, wc[0].wr_id), 0);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 3, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	assert_int_equal(next_in(p.r, wc, 4, 1), 2);
	/* Bad local arguments are bugs, not verbs failures. */
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 4, RING_LEN - 4, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 RP_EINTERNAL);
	close_pair(&p);
}

static void test_timeout(void **state)
{
	struct rp_wc wc[4];
	struct pair p;
	double t0;

	(void)state;
	open_pair(&p, 2, RING_LEN);
	connect_pair(&p);
	t0 = rp_now();
	assert_int_equal(next_in(p.s, wc, 4, 0.05), RP_ETIMEOUT);
	assert_true(rp_now() - t0 >= 0.05);
	assert_true(rp_now() - t0 < 1.0);
	/* A deadline already past: no sleep at all. */
	assert_int_equal(rp_verbs_next(p.s, wc, 4, -1, rp_now() - 1),
			 RP_ETIMEOUT);
	assert_int_equal(rp_verbs_next(p.s, wc, 0, -1, rp_now() + 1),
			 RP_EINTERNAL);
	close_pair(&p);
}

static void test_watch_fd(void **state)
{
	struct rp_wc wc[4];
	struct pair p;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	open_pair(&p, 2, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	connect_pair(&p);
	assert_int_equal(rp_verbs_next(p.s, wc, 4, sv[0], rp_now() + 0.02),
			 RP_ETIMEOUT);
	assert_int_equal(write(sv[1], "x", 1), 1);
	assert_int_equal(rp_verbs_next(p.s, wc, 4, sv[0], rp_now() + 5), 0);
	/* Completions come before the watched fd's readiness. */
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 1, 7), 0);
	assert_int_equal(rp_verbs_next(p.s, wc, 4, sv[0], rp_now() + 5), 1);
	assert_int_equal(wc[0].imm, 7);
	assert_int_equal(rp_verbs_next(p.s, wc, 4, sv[0], rp_now() + 5), 0);
	/* A closed peer reads as readable too (EOF). */
	close(sv[1]);
	assert_int_equal(rp_verbs_next(p.r, wc, 4, sv[0], rp_now() + 5), 1);
	assert_int_equal(rp_verbs_next(p.r, wc, 4, sv[0], rp_now() + 5), 0);
	close(sv[0]);
	close_pair(&p);
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct kick {
	pthread_t target;
	atomic_bool done;
};

/* Again and again until the waiter is out: a signal that lands before
 * it sleeps in poll(2) would be lost on a slow machine. */
static void *kick_later(void *arg)
{
	struct kick *k = arg;

	while (!atomic_load(&k->done)) {
		usleep(50 * 1000);
		if (!atomic_load(&k->done))
			pthread_kill(k->target, SIGUSR1);
	}
	return NULL;
}

static void test_eintr(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct sigaction old;
	struct rp_wc wc[4];
	struct kick k = { .target = pthread_self() };
	pthread_t kicker;
	struct pair p;
	double t0;
	int rc;

	(void)state;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	open_pair(&p, 2, RING_LEN);
	connect_pair(&p);
	assert_int_equal(pthread_create(&kicker, NULL, kick_later, &k), 0);
	t0 = rp_now();
	rc = next_in(p.r, wc, 4, 5);
	atomic_store(&k.done, true);
	pthread_join(kicker, NULL);
	assert_int_equal(rc, RP_EINTERRUPTED);
	assert_true(rp_now() - t0 < 4);
	sigaction(SIGUSR1, &old, NULL);
	close_pair(&p);
}

struct hook_log {
	int calls;
	enum rp_fab_side side[8];
	uint64_t nth[8];
};

static void record_hook(enum rp_fab_side side, uint64_t nth, void *arg)
{
	struct hook_log *h = arg;

	if (h->calls < 8) {
		h->side[h->calls] = side;
		h->nth[h->calls] = nth;
	}
	h->calls++;
}

static void test_fault_fail_post_and_hook(void **state)
{
	struct hook_log h = { 0 };
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	rp_fab_set_hook(record_hook, &h);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_FAIL_POST, 2);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 2), RP_EVERBS);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 3), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(h.calls, 3);
	assert_int_equal(h.side[0], RP_FAB_SENDER);
	assert_int_equal(h.nth[0], 1);
	assert_int_equal(h.nth[1], 3);	/* the failed post is counted */
	assert_int_equal(h.side[2], RP_FAB_RECEIVER);
	assert_int_equal(h.nth[2], 1);
	/* One-shot: the next transfer runs clean. */
	close_pair(&p);
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 2), 0);
	rp_fab_set_hook(NULL, NULL);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 3), 0);
	assert_int_equal(h.calls, 5);
	close_pair(&p);
}

static void test_fault_fail_completion(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_FAIL_COMPLETION, 1);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 2), 0);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	/* The writer saw success; the receiver's completion failed. */
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	assert_int_equal(wc[0].op, RP_WC_WRITE);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	/* Its QP is in ERROR: the peer's next Write is not answered. */
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 2, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	close_pair(&p);
}

static void test_fault_stall(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_STALL, 1);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(next_in(p.r, wc, 4, 0.05), RP_ETIMEOUT);
	assert_int_equal(next_in(p.s, wc, 4, 0.05), RP_ETIMEOUT);
	/* Nor does anything reach the stalled side. */
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 1, 1), 0);
	assert_int_equal(next_in(p.s, wc, 4, 0.05), RP_ETIMEOUT);
	assert_int_equal(next_in(p.r, wc, 4, 0.05), RP_ETIMEOUT);
	rp_fab_stats(&st);
	assert_int_equal(st.writes, 0);
	assert_int_equal(st.sends, 0);
	close_pair(&p);
}

static void test_fault_kill(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_KILL, 3);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 2), 0);
	connect_pair(&p);
	/* Post #3 kills the receiver: its receives and this Send flush. */
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 3, 0), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	/* The sender's next request finds nobody: retry exceeded. */
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey, 0),
			 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	close_pair(&p);
}

/*
 * A link outage at the sender's 2nd post (3 QPs): that Write and every
 * later request on the old QPs, either side's, fail with retry
 * exceeded, which relink mode neither reports nor confuses with other
 * failures; fresh QPs on both sides then carry a Write again, the ring
 * and its rkey unchanged. The side that connects first may post at
 * once: its request waits until the peer's QP connects.
 */
static int write8(struct pair *p, uint32_t qp, uint64_t wr_id,
		  uint32_t imm);

static void test_link_down_relink(void **state)
{
	struct rp_qp_addr before[RP_QPS_MAX];
	struct rp_qp_addr after;
	struct rp_wc wc[16];
	struct rp_qp_addr sa[3];
	struct pair p;
	int n;

	(void)state;
	open_pair_qps(&p, 3, 4, RING_LEN, 0, ACC_WRITE);
	rp_verbs_set_relink(p.s, true);
	rp_verbs_set_relink(p.r, true);
	for (uint32_t q = 0; q < 3; q++) {
		assert_int_equal(rp_verbs_post_recv(p.r, q, q), 0);
		rp_verbs_local(p.s, q, &before[q]);
	}
	connect_pair(&p);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_LINK_DOWN, 2);
	fill(p.sring, 64, 1);
	assert_int_equal(write8(&p, 0, 1, 1), 0);
	assert_int_equal(write8(&p, 1, 2, 2), 0);	/* the link goes */
	/* The good completion polled with it is dropped, as ever. */
	assert_int_equal(next_in(p.s, wc, 16, 1), RP_EWC);
	assert_true(rp_verbs_link_down(p.s));
	/* The receiver learns of it only when it asks for something. */
	assert_int_equal(next_in(p.r, wc, 16, 1), 1);
	assert_false(rp_verbs_link_down(p.r));
	assert_int_equal(rp_verbs_post_send_imm(p.r, 2, 9, 0), 0);
	assert_int_equal(next_in(p.r, wc, 16, 1), RP_EWC);
	assert_true(rp_verbs_link_down(p.r));

	assert_int_equal(rp_verbs_relink(p.s), 0);
	assert_int_equal(rp_verbs_relink(p.r), 0);
	assert_false(rp_verbs_link_down(p.s));
	for (uint32_t q = 0; q < 3; q++) {
		rp_verbs_local(p.s, q, &after);
		assert_int_not_equal(after.qpn, before[q].qpn);
		assert_int_equal(rp_verbs_post_recv(p.r, q, 10 + q), 0);
		rp_verbs_local(p.s, q, &sa[q]);
	}
	/* The receiver connects first; the sender, once it has too, posts
	 * at once; then a credit the receiver posts before the sender has
	 * connected waits for it. */
	{
		struct rp_qp_addr ra[3];

		for (uint32_t q = 0; q < 3; q++)
			rp_verbs_local(p.r, q, &ra[q]);
		assert_int_equal(rp_verbs_connect(p.r, sa, 3), 0);
		assert_int_equal(rp_verbs_post_recv(p.s, 0, 7), 0);
		assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 20, 5), 0);
		assert_int_equal(next_in(p.r, wc, 16, 0.05), RP_ETIMEOUT);
		assert_int_equal(rp_verbs_connect(p.s, ra, 3), 0);
	}
	assert_int_equal(next_in(p.s, wc, 16, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_RECV_SEND_IMM, 7, 0, 5, 0);
	fill(p.sring, 64, 3);
	assert_int_equal(write8(&p, 1, 30, 31), 0);
	assert_int_equal(next_in(p.s, wc, 16, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_WRITE, 30, 0, 0, 1);
	n = next_in(p.r, wc, 16, 1);
	assert_int_equal(n, 2);
	expect_wc_qp(&wc[0], RP_WC_SEND, 20, 0, 0, 0);
	expect_wc_qp(&wc[1], RP_WC_RECV_WRITE_IMM, 11, 8, 31, 1);
	assert_memory_equal(p.rring, p.sring, 8);
	close_pair(&p);
}

static void test_peer_closed(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	uint64_t raddr;
	uint32_t rkey;
	struct pair p;

	(void)state;
	open_pair(&p, 4, RING_LEN);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	connect_pair(&p);
	raddr = raddr_of(&p, 0);
	rkey = p.rkey;
	rp_verbs_close(p.r);
	p.r = NULL;
	rp_fab_stats(&st);
	assert_int_equal(st.open, 1);
	assert_int_equal(st.rings, 1);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8, raddr, rkey,
						 0), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	/* NULL-safe, and deregistering twice is harmless. */
	rp_verbs_dereg_ring(p.s);
	rp_verbs_dereg_ring(p.s);
	rp_verbs_dereg_ring(NULL);
	rp_verbs_close(NULL);
	assert_string_equal(rp_verbs_gid_str(NULL), "-");
	assert_int_equal(rp_verbs_gid_index(NULL), -1);
	close_pair(&p);
	rp_fab_stats(&st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
}

/* ---------------------------------------------------------------------
 * Access bits, RDMA Read and Send with data
 */

static void test_access_checks(void **state)
{
	struct rp_verbs_cfg cfg = { .max_send_wr = 2, .max_recv_wr = 2,
				    .access = RP_ACCESS_REMOTE_WRITE };
	struct rp_verbs *v;
	uint32_t rkey;
	void *ring;
	struct pair p;

	(void)state;
	/* ibv_reg_mr refuses REMOTE_WRITE without LOCAL_WRITE. */
	assert_int_equal(rp_verbs_open(&v, &cfg), 0);
	assert_int_equal(rp_verbs_reg_ring(v, RING_LEN, &ring, &rkey),
			 -EINVAL);
	rp_verbs_close(v);
	/* A receiver registered without REMOTE_WRITE refuses Writes. */
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	p.sring[0] = 0x77;
	expect_write_refused(&p, raddr_of(&p, 0), 64, p.rkey);
	assert_zero(p.rring, 64);
	close_pair(&p);
}

/* --op read: the receiver pulls from the sender's ring. */
static void open_read_pair(struct pair *p, unsigned int racc)
{
	open_pair_acc(p, 4, RING_LEN, ACC_READ, racc);
}

static void test_read(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_read_pair(&p, ACC_LW);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 7), 0);
	connect_pair(&p);
	fill(p.sring, RING_LEN, 3);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 21, 4096, 1000,
					    saddr_of(&p, 8192), p.skey), 0);
	/* Ordered with the other requests on the send queue. */
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 22, 5), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 2);
	expect_wc(&wc[0], RP_WC_READ, 21, 1000, 0);
	expect_wc(&wc[1], RP_WC_SEND, 22, 0, 0);
	assert_memory_equal(p.rring + 4096, p.sring + 8192, 1000);
	assert_zero(p.rring, 4096);
	assert_zero(p.rring + 5096, RING_LEN - 5096);
	/* The responder sees only the Send: the Read took no receive. */
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	expect_wc(&wc[0], RP_WC_RECV_SEND_IMM, 7, 0, 5);
	assert_int_equal(next_in(p.s, wc, 4, 0.01), RP_ETIMEOUT);
	rp_fab_stats(&st);
	assert_int_equal(st.reads, 1);
	assert_int_equal(st.read_bytes, 1000);
	assert_int_equal(st.sends, 1);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.writes, 0);
	close_pair(&p);
}

static void expect_read_refused(struct pair *p, uint64_t raddr,
				uint32_t len, uint32_t rkey)
{
	struct rdma_req q = { .read = true, .raddr = raddr, .len = len,
			      .rkey = rkey };

	fill(p->sring, RING_LEN, 1);
	expect_refused(p, &q);
	assert_zero(p->rring, RING_LEN);
}

static void test_read_refused(void **state)
{
	struct rp_fab_stats st;
	struct pair p;

	(void)state;
	/* The sender's ring and QP without REMOTE_READ. */
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	expect_read_refused(&p, saddr_of(&p, 0), 64, p.skey);
	close_pair(&p);
	open_read_pair(&p, ACC_LW);
	expect_read_refused(&p, saddr_of(&p, 0), 64, p.skey ^ 0x100);
	close_pair(&p);
	open_read_pair(&p, ACC_LW);
	expect_read_refused(&p, saddr_of(&p, RING_LEN - 8), 16, p.skey);
	close_pair(&p);
	rp_fab_stats(&st);
	assert_int_equal(st.reads, 0);
	assert_int_equal(st.read_bytes, 0);
}

/* Our own ring without LOCAL_WRITE: the response cannot land. Only the
 * requester fails; the responder is not in ERROR. */
static void test_read_local_protection(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_read_pair(&p, 0);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	connect_pair(&p);
	fill(p.sring, RING_LEN, 9);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 1, 0, 64, saddr_of(&p, 0),
					    p.skey), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	assert_zero(p.rring, 64);
	assert_int_equal(next_in(p.s, wc, 4, 0.02), RP_ETIMEOUT);
	/* Bad local arguments are bugs, not verbs failures. */
	assert_int_equal(rp_verbs_post_read(p.r, 0, 2, RING_LEN - 4, 8,
					    saddr_of(&p, 0), p.skey),
			 RP_EINTERNAL);
	close_pair(&p);
}

/* --op send: ring bytes into a receive posted on the receiver's ring. */
static void test_send_data(void **state)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 7, 8192, 2000), 0);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 8, 0, 16), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 9), 0);
	connect_pair(&p);
	fill(p.sring, RING_LEN, 5);
	assert_int_equal(rp_verbs_post_send_data(p.s, 0, 5, 100, 1500,
						 0xabcdef01), 0);
	/* Zero bytes fit any receive: into a buffer, and into none. */
	assert_int_equal(rp_verbs_post_send_data(p.s, 0, 6, 0, 0, 2), 0);
	assert_int_equal(rp_verbs_post_send_imm(p.s, 0, 7, 3), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), 3);
	expect_wc(&wc[0], RP_WC_RECV_SEND_IMM, 7, 1500, 0xabcdef01);
	assert_memory_equal(p.rring + 8192, p.sring + 100, 1500);
	assert_zero(p.rring, 8192);
	assert_zero(p.rring + 8192 + 1500, RING_LEN - 8192 - 1500);
	expect_wc(&wc[1], RP_WC_RECV_SEND_IMM, 8, 0, 2);
	expect_wc(&wc[2], RP_WC_RECV_SEND_IMM, 9, 0, 3);
	assert_int_equal(next_in(p.s, wc, 4, 1), 3);
	expect_wc(&wc[0], RP_WC_SEND, 5, 0, 0);
	expect_wc(&wc[2], RP_WC_SEND, 7, 0, 0);
	rp_fab_stats(&st);
	assert_int_equal(st.sends, 3);
	assert_int_equal(st.bytes, 1500);
	close_pair(&p);
}

/* A Send of slen bytes into a receive of rlen (buffered: posted with
 * rp_verbs_post_recv_buf) fails both sides; the receiver's next receive
 * is flushed and no byte lands. */
static void expect_send_fails(struct pair *p, bool buffered, uint32_t rlen,
			      uint32_t slen)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];

	if (buffered)
		assert_int_equal(rp_verbs_post_recv_buf(p->r, 0, 1, 0, rlen), 0);
	else
		assert_int_equal(rp_verbs_post_recv(p->r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv_buf(p->r, 0, 2, 0, RING_LEN), 0);
	connect_pair(p);
	fill(p->sring, RING_LEN, 11);
	assert_int_equal(rp_verbs_post_send_data(p->s, 0, 1, 0, slen, 1), 0);
	assert_int_equal(next_in(p->s, wc, 4, 1), RP_EWC);
	assert_int_equal(next_in(p->r, wc, 4, 1), RP_EWC);
	assert_zero(p->rring, RING_LEN);
	/* In ERROR: the peer's next Send is not answered either. */
	assert_int_equal(rp_verbs_post_send_data(p->s, 0, 2, 0, 1, 2), 0);
	assert_int_equal(next_in(p->s, wc, 4, 1), RP_EWC);
	assert_zero(p->rring, RING_LEN);
	rp_fab_stats(&st);
	assert_int_equal(st.sends, 0);
	assert_int_equal(st.bytes, 0);
}

static void test_send_data_refused(void **state)
{
	struct pair p;

	(void)state;
	/* Longer than the receive's buffer, by one byte. */
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	expect_send_fails(&p, true, 100, 101);
	close_pair(&p);
	/* Bytes into a zero-length receive (a credit's). */
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	expect_send_fails(&p, false, 0, 1);
	close_pair(&p);
	/* A buffer in a ring registered without LOCAL_WRITE: the post is
	 * accepted, the bytes cannot land. */
	open_pair_acc(&p, 4, RING_LEN, 0, 0);
	expect_send_fails(&p, true, 100, 10);
	close_pair(&p);
	/* A receive buffer needs a ring, and inside it. */
	open_pair_acc(&p, 4, RING_LEN, 0, ACC_LW);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 1, RING_LEN - 8, 16),
			 RP_EINTERNAL);
	assert_int_equal(rp_verbs_post_send_data(p.s, 0, 1, RING_LEN, 1, 0),
			 RP_EINTERNAL);
	rp_verbs_dereg_ring(p.r);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 1, 0, 16),
			 RP_EINTERNAL);
	close_pair(&p);
}

/* The faults count the new posts as posts, and the hook sees them. */
static void test_fault_new_posts(void **state)
{
	struct hook_log h = { 0 };
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_read_pair(&p, ACC_LW);
	connect_pair(&p);
	rp_fab_set_hook(record_hook, &h);
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_FAIL_POST, 2);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 0, 1, 0, 8), 0);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 2, 0, 8, saddr_of(&p, 0),
					    p.skey), RP_EVERBS);
	assert_int_equal(h.calls, 1);
	/* The third post's completion is the one delivered failed. */
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_FAIL_COMPLETION, 1);
	fill(p.sring, 8, 4);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 3, 0, 8, saddr_of(&p, 0),
					    p.skey), 0);
	assert_int_equal(h.calls, 2);
	assert_int_equal(h.nth[1], 3);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	close_pair(&p);

	/* A stalled responder swallows the Read: nothing completes. */
	open_read_pair(&p, ACC_LW);
	connect_pair(&p);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_STALL, 1);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	fill(p.sring, 8, 4);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 1, 0, 8, saddr_of(&p, 0),
					    p.skey), 0);
	assert_int_equal(next_in(p.r, wc, 4, 0.05), RP_ETIMEOUT);
	assert_zero(p.rring, 8);
	close_pair(&p);

	/* A killed sender: its receive flushes, the Read finds nobody. */
	open_read_pair(&p, ACC_LW);
	connect_pair(&p);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_KILL, 1);
	assert_int_equal(rp_verbs_post_recv_buf(p.s, 0, 1, 0, 8), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	assert_int_equal(rp_verbs_post_read(p.r, 0, 1, 0, 8, saddr_of(&p, 0),
					    p.skey), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	close_pair(&p);
}

/* Slow ACKs hold a Read's completion back too, still in post order. */
static void test_slow_ack_read(void **state)
{
	struct rp_wc wc[4];
	struct pair p;
	double t0;

	(void)state;
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_SLOW_ACK, 50);
	open_read_pair(&p, ACC_LW);
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_NONE, 0);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 1), 0);
	connect_pair(&p);
	fill(p.sring, 64, 6);
	t0 = rp_now();
	assert_int_equal(rp_verbs_post_read(p.r, 0, 1, 0, 64, saddr_of(&p, 0),
					    p.skey), 0);
	assert_int_equal(rp_verbs_post_send_imm(p.r, 0, 2, 0), 0);
	assert_int_equal(next_in(p.r, wc, 1, 1), 1);
	assert_true(rp_now() - t0 >= 0.045);
	expect_wc(&wc[0], RP_WC_READ, 1, 64, 0);
	assert_int_equal(next_in(p.r, wc, 1, 1), 1);
	expect_wc(&wc[0], RP_WC_SEND, 2, 0, 0);
	assert_memory_equal(p.rring, p.sring, 64);
	close_pair(&p);
}

/* ---------------------------------------------------------------------
 * Several QPs per context (--qps)
 */

/* 8 bytes from the sender's ring[0] to the receiver's, on QP qp. */
static int write8(struct pair *p, uint32_t qp, uint64_t wr_id, uint32_t imm)
{
	return rp_verbs_post_write_imm(p->s, qp, wr_id, 0, 8, raddr_of(p, 0),
				       p->rkey, imm);
}

/* Each QP's QPN, all different, on both sides; zeros for a QP we do not
 * have; a count of peer addresses other than ours refused. */
static void test_qps_local_and_connect(void **state)
{
	struct rp_verbs_cfg cfg = { .max_send_wr = 2, .max_recv_wr = 2 };
	struct rp_qp_addr a[2 * RP_QPS_MAX];
	struct rp_qp_addr none;
	struct rp_qp_addr zero;
	struct rp_fab_stats st;
	struct rp_verbs *v;
	struct pair p;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	open_pair_qps(&p, 4, 4, RING_LEN, 0, ACC_WRITE);
	assert_int_equal(rp_verbs_qps(p.s), 4);
	assert_int_equal(rp_verbs_qps(p.r), 4);
	for (uint32_t i = 0; i < 4; i++) {
		rp_verbs_local(p.s, i, &a[i]);
		rp_verbs_local(p.r, i, &a[4 + i]);
	}
	for (uint32_t i = 0; i < 8; i++) {
		assert_true(a[i].qpn && a[i].qpn <= 0xffffff);
		assert_true(a[i].psn <= 0xffffff);
		assert_int_equal(a[i].mtu, 3);
		for (uint32_t j = 0; j < i; j++)
			assert_int_not_equal(a[i].qpn, a[j].qpn);
	}
	memset(&none, 0xff, sizeof(none));
	rp_verbs_local(p.s, 4, &none);
	assert_memory_equal(&none, &zero, sizeof(zero));
	memset(&none, 0xff, sizeof(none));
	rp_verbs_local(p.r, UINT32_MAX, &none);
	assert_memory_equal(&none, &zero, sizeof(zero));

	/* One peer address per QP, no more and no fewer. */
	assert_int_equal(rp_verbs_connect(p.r, a, 3), RP_EINTERNAL);
	assert_int_equal(rp_verbs_connect(p.r, a, 5), RP_EINTERNAL);
	assert_int_equal(rp_verbs_connect(p.r, a, 1), RP_EINTERNAL);
	rp_fab_stats(&st);
	assert_int_equal(st.open, 2);	/* contexts, not QPs */
	assert_int_equal(st.opened, 2);
	connect_pair(&p);
	close_pair(&p);

	/* 0 is one QP; RP_QPS_MAX is the most. */
	assert_int_equal(rp_verbs_open(&v, &cfg), 0);
	assert_int_equal(rp_verbs_qps(v), 1);
	rp_verbs_close(v);
	cfg.qps = RP_QPS_MAX;
	assert_int_equal(rp_verbs_open(&v, &cfg), 0);
	assert_int_equal(rp_verbs_qps(v), RP_QPS_MAX);
	rp_verbs_local(v, RP_QPS_MAX - 1, &none);
	assert_true(none.qpn != 0);
	rp_verbs_close(v);
	cfg.qps = RP_QPS_MAX + 1;
	v = (struct rp_verbs *)&cfg;
	assert_int_equal(rp_verbs_open(&v, &cfg), RP_EINTERNAL);
	assert_null(v);
}

/* Every post naming a QP the context does not have is a bug. */
static void test_qps_post_out_of_range(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair_qps(&p, 2, 4, RING_LEN, ACC_READ, ACC_WRITE);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_recv(p.r, 2, 1), RP_EINTERNAL);
	assert_int_equal(rp_verbs_post_recv_buf(p.r, 2, 1, 0, 8),
			 RP_EINTERNAL);
	assert_int_equal(write8(&p, 2, 1, 0), RP_EINTERNAL);
	assert_int_equal(rp_verbs_post_send_imm(p.s, 2, 1, 0), RP_EINTERNAL);
	assert_int_equal(rp_verbs_post_send_data(p.s, UINT32_MAX, 1, 0, 8, 0),
			 RP_EINTERNAL);
	assert_int_equal(rp_verbs_post_read(p.r, 7, 1, 0, 8, saddr_of(&p, 0),
					    p.skey), RP_EINTERNAL);
	/* Nothing was posted: nothing completes. */
	assert_int_equal(next_in(p.s, wc, 4, 0.02), RP_ETIMEOUT);
	assert_int_equal(next_in(p.r, wc, 4, 0.02), RP_ETIMEOUT);
	close_pair(&p);
}

/*
 * A Write with immediate on each QP, the last QP first: it lands in the
 * ring, consumes the receive posted on the peer's QP of the same index
 * (FIFO over the context would take QP 0's first), and both completions
 * name that QP.
 */
static void write_each_qp(uint32_t qps)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	rp_fab_reset();		/* the counts of this call alone */
	open_pair_qps(&p, qps, 4, RING_LEN, 0, ACC_WRITE);
	for (uint32_t i = 0; i < qps; i++)
		assert_int_equal(rp_verbs_post_recv(p.r, i, 100 + i), 0);
	connect_pair(&p);
	fill(p.sring, RING_LEN, 1);
	for (uint32_t i = qps; i-- > 0;) {
		assert_int_equal(rp_verbs_post_write_imm(p.s, i, 10 + i,
							 i * 1024, 512,
							 raddr_of(&p, i * 4096),
							 p.rkey, 0x1000 + i),
				 0);
		assert_int_equal(next_in(p.s, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_WRITE, 10 + i, 0, 0, i);
		assert_int_equal(next_in(p.r, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_RECV_WRITE_IMM, 100 + i, 512,
			     0x1000 + i, i);
		assert_memory_equal(p.rring + i * 4096, p.sring + i * 1024,
				    512);
	}
	rp_fab_stats(&st);
	assert_int_equal(st.writes, qps);
	close_pair(&p);
}

static void test_qps_write_imm(void **state)
{
	(void)state;
	write_each_qp(2);
	write_each_qp(4);
}

/* Queue depths are per QP; the one CQ holds every QP's completions. */
static void test_qps_queue_depth(void **state)
{
	struct rp_wc wc[16];
	struct pair p;

	(void)state;
	open_pair_qps(&p, 2, 2, RING_LEN, 0, ACC_WRITE);
	for (uint32_t i = 0; i < 2; i++) {
		for (uint64_t k = 0; k < 2; k++) {
			assert_int_equal(rp_verbs_post_recv(p.r, i, k), 0);
			assert_int_equal(rp_verbs_post_recv(p.s, i, k), 0);
		}
	}
	assert_int_equal(rp_verbs_post_recv(p.r, 1, 2), RP_EVERBS);
	connect_pair(&p);
	for (uint32_t i = 0; i < 2; i++) {
		for (uint64_t k = 0; k < 2; k++) {
			assert_int_equal(write8(&p, i, k, 0), 0);
			assert_int_equal(rp_verbs_post_send_imm(p.r, i, k, 0),
					 0);
		}
	}
	assert_int_equal(write8(&p, 0, 2, 0), RP_EVERBS);
	assert_int_equal(rp_verbs_post_send_imm(p.r, 1, 2, 0), RP_EVERBS);
	/* Eight completions a side, none lost: four of each kind. */
	assert_int_equal(next_in(p.s, wc, 16, 1), 8);
	assert_int_equal(next_in(p.r, wc, 16, 1), 8);
	/* Polled: every slot is free again. */
	assert_int_equal(rp_verbs_post_recv(p.r, 1, 2), 0);
	assert_int_equal(write8(&p, 1, 2, 0), 0);
	assert_int_equal(next_in(p.s, wc, 16, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_WRITE, 2, 0, 0, 1);
	close_pair(&p);
}

/* A receive waits on its own QP: a Write on another QP finds none there
 * (RNR), and that failure leaves the receive posted for its own QP. */
static void test_qps_recv_stays_on_its_qp(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair_qps(&p, 2, 4, RING_LEN, 0, ACC_WRITE);
	assert_int_equal(rp_verbs_post_recv(p.r, 1, 7), 0);
	connect_pair(&p);
	assert_int_equal(write8(&p, 0, 1, 0), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	assert_int_equal(next_in(p.r, wc, 4, 0.02), RP_ETIMEOUT);
	assert_int_equal(write8(&p, 1, 2, 5), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_WRITE, 2, 0, 0, 1);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_RECV_WRITE_IMM, 7, 8, 5, 1);
	close_pair(&p);
}

/* Sends with and without bytes, each QP's into the receive of the
 * peer's QP of the same index, the last QP first. */
static void send_each_qp(uint32_t qps)
{
	struct rp_wc wc[4];
	struct pair p;

	open_pair_qps(&p, qps, 4, RING_LEN, 0, ACC_LW);
	for (uint32_t i = 0; i < qps; i++) {
		assert_int_equal(rp_verbs_post_recv_buf(p.r, i, 100 + i,
							i * 4096, 1024), 0);
		assert_int_equal(rp_verbs_post_recv(p.s, i, 200 + i), 0);
	}
	connect_pair(&p);
	fill(p.sring, RING_LEN, 2);
	for (uint32_t i = qps; i-- > 0;) {
		assert_int_equal(rp_verbs_post_send_data(p.s, i, 10 + i,
							 i * 100, 100 + i, i),
				 0);
		assert_int_equal(next_in(p.s, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_SEND, 10 + i, 0, 0, i);
		assert_int_equal(next_in(p.r, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_RECV_SEND_IMM, 100 + i, 100 + i,
			     i, i);
		assert_memory_equal(p.rring + i * 4096, p.sring + i * 100,
				    100 + i);
		/* The credit back, on the same QP. */
		assert_int_equal(rp_verbs_post_send_imm(p.r, i, 20 + i,
							0x2000 + i), 0);
		assert_int_equal(next_in(p.r, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_SEND, 20 + i, 0, 0, i);
		assert_int_equal(next_in(p.s, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_RECV_SEND_IMM, 200 + i, 0,
			     0x2000 + i, i);
	}
	close_pair(&p);
}

static void test_qps_send(void **state)
{
	(void)state;
	send_each_qp(2);
	send_each_qp(4);
}

/* Reads on each QP: only the requester completes, on that QP. */
static void read_each_qp(uint32_t qps)
{
	struct rp_fab_stats st;
	struct rp_wc wc[4];
	struct pair p;

	rp_fab_reset();		/* the counts of this call alone */
	open_pair_qps(&p, qps, 4, RING_LEN, ACC_READ, ACC_LW);
	connect_pair(&p);
	fill(p.sring, RING_LEN, 3);
	for (uint32_t i = qps; i-- > 0;) {
		assert_int_equal(rp_verbs_post_read(p.r, i, 10 + i, i * 4096,
						    256, saddr_of(&p, i * 512),
						    p.skey), 0);
		assert_int_equal(next_in(p.r, wc, 4, 1), 1);
		expect_wc_qp(&wc[0], RP_WC_READ, 10 + i, 256, 0, i);
		assert_memory_equal(p.rring + i * 4096, p.sring + i * 512,
				    256);
	}
	assert_int_equal(next_in(p.s, wc, 4, 0.02), RP_ETIMEOUT);
	rp_fab_stats(&st);
	assert_int_equal(st.reads, qps);
	assert_int_equal(st.read_bytes, 256 * qps);
	close_pair(&p);
}

static void test_qps_read(void **state)
{
	(void)state;
	read_each_qp(2);
	read_each_qp(4);
}

/*
 * Writes interleaved over two QPs complete in post order on each QP, on
 * both sides, and each consumes its own QP's receives in FIFO order;
 * with slow ACKs too (the held-back completions keep their QP).
 */
static void order_per_qp(bool slow)
{
	static const uint32_t on[6] = { 1, 0, 1, 1, 0, 0 };
	uint64_t next_recv[2] = { 0, 10 };
	uint64_t next_wr[2] = { 0, 0 };
	struct rp_wc wc[8];
	struct pair p;
	int n;

	if (slow)
		rp_fab_fault(RP_FAB_SENDER, RP_FAB_SLOW_ACK, 10);
	open_pair_qps(&p, 2, 8, RING_LEN, 0, ACC_WRITE);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_NONE, 0);
	for (uint64_t i = 0; i < 3; i++) {
		assert_int_equal(rp_verbs_post_recv(p.r, 0, i), 0);
		assert_int_equal(rp_verbs_post_recv(p.r, 1, 10 + i), 0);
	}
	connect_pair(&p);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(write8(&p, on[i], i, i), 0);
	for (int got = 0; got < 6; got += n) {
		n = next_in(p.s, wc, 8, 1);
		assert_true(n > 0);
		for (int k = 0; k < n; k++) {
			uint32_t q = wc[k].qp;

			assert_true(q < 2);
			/* The next WR posted on that QP. */
			while (on[next_wr[q]] != q)
				next_wr[q]++;
			expect_wc(&wc[k], RP_WC_WRITE, next_wr[q]++, 0, 0);
		}
	}
	assert_int_equal(next_in(p.r, wc, 8, 1), 6);
	memset(next_wr, 0, sizeof(next_wr));
	for (int k = 0; k < 6; k++) {
		uint32_t q = wc[k].qp;

		assert_true(q < 2);
		while (on[next_wr[q]] != q)
			next_wr[q]++;
		expect_wc(&wc[k], RP_WC_RECV_WRITE_IMM, next_recv[q]++, 8,
			  (uint32_t)next_wr[q]++);
	}
	close_pair(&p);
}

static void test_qps_order(void **state)
{
	(void)state;
	order_per_qp(false);
	order_per_qp(true);
}

/*
 * Writes posted on QPs 0 1 2 3 0 1 2 3 of a 4-QP pair. With
 * RP_FAB_CROSS_QP armed on the receiver, its completions come out of
 * post order across QPs (1 2 3 0 5 6 7 4: each first one held back while
 * the other QPs' go ahead), in post order on each QP, and 6 counted
 * crossed; the sender, not armed, sees post order. Not armed: post order
 * on both sides, nothing crossed.
 */
static void cross_qp(bool armed)
{
	static const uint32_t mixed[8] = { 1, 2, 3, 0, 5, 6, 7, 4 };
	uint32_t next[4] = { 0, 1, 2, 3 };
	struct rp_fab_stats st;
	struct rp_wc wc[16];
	struct pair p;

	rp_fab_reset();
	/* A long hold: everything is queued before the receiver polls. */
	if (armed)
		rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_CROSS_QP, 5000);
	open_pair_qps(&p, 4, 4, RING_LEN, 0, ACC_WRITE);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(rp_verbs_post_recv(p.r, i % 4, 100 + i), 0);
	connect_pair(&p);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(write8(&p, i % 4, i, i), 0);
	assert_int_equal(next_in(p.s, wc, 16, 1), 8);
	for (uint32_t i = 0; i < 8; i++)
		expect_wc_qp(&wc[i], RP_WC_WRITE, i, 0, 0, i % 4);
	assert_int_equal(next_in(p.r, wc, 16, 1), 8);
	for (uint32_t k = 0; k < 8; k++) {
		uint32_t imm = wc[k].imm;

		/* The next one posted on its QP, whatever came between. */
		assert_true(imm < 8);
		assert_int_equal(imm, next[imm % 4]);
		next[imm % 4] += 4;
		expect_wc_qp(&wc[k], RP_WC_RECV_WRITE_IMM, 100 + imm, 8, imm,
			     imm % 4);
		assert_int_equal(imm, armed ? mixed[k] : k);
	}
	rp_fab_stats(&st);
	assert_int_equal(st.writes, 8);
	assert_int_equal(st.crossed, armed ? 6 : 0);
	close_pair(&p);
}

static void test_qps_cross_qp(void **state)
{
	(void)state;
	cross_qp(true);
	cross_qp(false);
}

/* One Write on QP qp of a pair of qps QPs: the seconds until the
 * receiver's completion came, checked. */
static double lone_write(uint32_t qps, uint32_t qp)
{
	struct rp_wc wc[4];
	struct pair p;
	double t0;

	open_pair_qps(&p, qps, 4, RING_LEN, 0, ACC_WRITE);
	assert_int_equal(rp_verbs_post_recv(p.r, qp, 7), 0);
	connect_pair(&p);
	t0 = rp_now();
	assert_int_equal(write8(&p, qp, 1, 0x42), 0);
	assert_int_equal(next_in(p.r, wc, 4, 10), 1);
	t0 = rp_now() - t0;
	expect_wc_qp(&wc[0], RP_WC_RECV_WRITE_IMM, 7, 8, 0x42, qp);
	close_pair(&p);
	return t0;
}

/*
 * A completion held back by RP_FAB_CROSS_QP with nothing else coming is
 * returned all the same once its nth milliseconds are up (not at the
 * caller's deadline); a context of one QP holds nothing back.
 */
static void test_qps_cross_qp_alone(void **state)
{
	struct rp_fab_stats st;
	double t;

	(void)state;
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_CROSS_QP, 40);
	t = lone_write(4, 2);
	assert_true(t >= 0.035 && t < 2);
	rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_CROSS_QP, 5000);
	assert_true(lone_write(1, 0) < 2);
	rp_fab_stats(&st);
	assert_int_equal(st.crossed, 0);
}

/* The peer's QP 0 connected to our QP 1 and its QP 1 to our QP 0: none
 * of ours names it back, so nothing pairs (a dead host to the
 * requester); the peer's receives are not touched. */
static void test_qps_crossed_do_not_pair(void **state)
{
	struct rp_qp_addr sa[2];
	struct rp_qp_addr ra[2];
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair_qps(&p, 2, 4, RING_LEN, 0, ACC_WRITE);
	for (uint32_t i = 0; i < 2; i++) {
		rp_verbs_local(p.s, 1 - i, &sa[i]);
		rp_verbs_local(p.r, i, &ra[i]);
		assert_int_equal(rp_verbs_post_recv(p.r, i, i), 0);
	}
	assert_int_equal(rp_verbs_connect(p.r, sa, 2), 0);
	assert_int_equal(rp_verbs_connect(p.s, ra, 2), 0);
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(write8(&p, i, i, 0), 0);
		assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	}
	assert_int_equal(next_in(p.r, wc, 4, 0.02), RP_ETIMEOUT);
	close_pair(&p);
}

/*
 * A refused Write (wrong rkey) on QP 0 fails the writer's QP 0 and puts
 * the responder's QP 0 in ERROR, flushing its receives; QP 1 of both
 * sides goes on.
 */
static void test_qps_error_is_per_qp(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	open_pair_qps(&p, 2, 4, RING_LEN, 0, ACC_WRITE);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 2), 0);
	assert_int_equal(rp_verbs_post_recv(p.r, 1, 3), 0);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_write_imm(p.s, 0, 1, 0, 8,
						 raddr_of(&p, 0), p.rkey ^ 1,
						 0), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	/* QP 0's two receives, flushed. */
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	assert_int_equal(next_in(p.r, wc, 4, 0.02), RP_ETIMEOUT);
	/* QP 1 still delivers, into its own receive. */
	assert_int_equal(write8(&p, 1, 2, 9), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_WRITE, 2, 0, 0, 1);
	assert_int_equal(next_in(p.r, wc, 4, 1), 1);
	expect_wc_qp(&wc[0], RP_WC_RECV_WRITE_IMM, 3, 8, 9, 1);
	/* On QP 0 of either side, whatever is posted comes back flushed;
	 * on QP 1 a receive stays posted. */
	assert_int_equal(rp_verbs_post_recv(p.r, 1, 4), 0);
	assert_int_equal(next_in(p.r, wc, 4, 0.02), RP_ETIMEOUT);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 5), 0);
	assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	assert_int_equal(rp_verbs_post_send_imm(p.s, 0, 3, 0), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	close_pair(&p);
}

/* Faults count posts over all the QPs of an endpoint, and KILL and
 * STALL take every QP of it. */
static void test_qps_faults(void **state)
{
	struct rp_wc wc[4];
	struct pair p;

	(void)state;
	/* Post #2 of the sender, its first on QP 0, kills it. */
	open_pair_qps(&p, 2, 4, RING_LEN, ACC_READ | ACC_LW, ACC_LW);
	connect_pair(&p);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_KILL, 2);
	assert_int_equal(rp_verbs_post_recv(p.s, 1, 1), 0);
	assert_int_equal(next_in(p.s, wc, 4, 0.02), RP_ETIMEOUT);
	assert_int_equal(rp_verbs_post_recv(p.s, 0, 2), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	/* Its QP 1 is in ERROR too: a receive posted there is flushed. */
	assert_int_equal(rp_verbs_post_recv(p.s, 1, 3), 0);
	assert_int_equal(next_in(p.s, wc, 4, 1), RP_EWC);
	/* The receiver's later requests find nobody, on either QP. */
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(rp_verbs_post_read(p.r, i, i, 0, 8,
						    saddr_of(&p, 0), p.skey),
				 0);
		assert_int_equal(next_in(p.r, wc, 4, 1), RP_EWC);
	}
	assert_zero(p.rring, 8);
	close_pair(&p);

	/* A stalled sender swallows a Send on the QP it did not post on. */
	open_pair_qps(&p, 2, 4, RING_LEN, 0, ACC_WRITE);
	connect_pair(&p);
	assert_int_equal(rp_verbs_post_recv(p.s, 1, 1), 0);
	rp_fab_fault(RP_FAB_SENDER, RP_FAB_STALL, 2);
	assert_int_equal(rp_verbs_post_recv(p.r, 0, 1), 0);
	assert_int_equal(write8(&p, 0, 1, 0), 0);
	assert_int_equal(rp_verbs_post_send_imm(p.r, 1, 1, 0), 0);
	assert_int_equal(next_in(p.s, wc, 4, 0.05), RP_ETIMEOUT);
	assert_int_equal(next_in(p.r, wc, 4, 0.05), RP_ETIMEOUT);
	close_pair(&p);
}

/* ---------------------------------------------------------------------
 * Two threads: the session's data phase in miniature
 */

#define STREAM_N	4000
#define STREAM_W	8
#define STREAM_CHUNK	4096

/* Each thread writes only its own failure: no shared flag to race on.
 * When one side stops, the other fails at its deadline. */
struct stream {
	struct pair p;
	const char *rfail;
	const char *sfail;
	uint64_t got;
};

static uint8_t stream_byte(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7);
}

/* Cumulative credit, as session_recv.c gives it. */
static int give_credit(struct stream *s, uint64_t landed, uint64_t *sent,
		       uint32_t *out)
{
	int rc;

	if (*sent == landed || *out >= STREAM_W + 1)
		return 0;
	rc = rp_verbs_post_send_imm(s->p.r, 0, landed, (uint32_t)landed);
	if (!rc) {
		*sent = landed;
		(*out)++;
	}
	return rc;
}

static const char *land(struct stream *s, const struct rp_wc *wc,
			uint64_t landed)
{
	const uint8_t *slot = s->p.rring + (landed % STREAM_W) * STREAM_CHUNK;

	if (wc->imm != (uint32_t)landed || wc->byte_len != STREAM_CHUNK)
		return "receiver: chunk out of order or size";
	for (size_t i = 0; i < STREAM_CHUNK; i++)
		if (slot[i] != stream_byte(landed, i))
			return "receiver: chunk content differs";
	if (rp_verbs_post_recv(s->p.r, 0, wc->wr_id))
		return "receiver: post_recv failed";
	return NULL;
}

static void *stream_recv(void *arg)
{
	struct stream *s = arg;
	uint64_t landed = 0;
	uint64_t sent = 0;
	uint32_t out = 0;
	struct rp_wc wc[16];

	while (sent < STREAM_N && !s->rfail) {
		int n = next_in(s->p.r, wc, 16, 5);

		if (n <= 0) {
			s->rfail = "receiver: rp_verbs_next failed";
			break;
		}
		for (int i = 0; i < n && !s->rfail; i++) {
			if (wc[i].op == RP_WC_SEND)
				out--;
			else if (wc[i].op == RP_WC_RECV_WRITE_IMM)
				s->rfail = land(s, &wc[i], landed++);
			else
				s->rfail = "receiver: unexpected completion";
			if (!s->rfail && give_credit(s, landed, &sent, &out))
				s->rfail = "receiver: post_send_imm failed";
		}
	}
	s->got = landed;
	return NULL;
}

static int stream_post(struct stream *s, uint64_t seq)
{
	size_t off = (seq % STREAM_W) * STREAM_CHUNK;

	for (size_t i = 0; i < STREAM_CHUNK; i++)
		s->p.sring[off + i] = stream_byte(seq, i);
	return rp_verbs_post_write_imm(s->p.s, 0, seq, off, STREAM_CHUNK,
				       raddr_of(&s->p, off), s->p.rkey,
				       (uint32_t)seq);
}

static void *stream_send(void *arg)
{
	struct stream *s = arg;
	uint64_t posted = 0;
	uint64_t written = 0;
	uint64_t credited = 0;
	struct rp_wc wc[16];

	while (credited < STREAM_N && !s->sfail) {
		while (posted < STREAM_N && posted < credited + STREAM_W &&
		       posted < written + STREAM_W) {
			if (stream_post(s, posted++)) {
				s->sfail = "sender: post_write_imm failed";
				return NULL;
			}
		}
		int n = next_in(s->p.s, wc, 16, 5);

		if (n <= 0) {
			s->sfail = "sender: rp_verbs_next failed";
			break;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].op == RP_WC_WRITE)
				written++;
			else if (wc[i].op == RP_WC_RECV_SEND_IMM)
				credited = wc[i].imm;
			if (wc[i].op == RP_WC_RECV_SEND_IMM &&
			    rp_verbs_post_recv(s->p.s, 0, wc[i].wr_id))
				s->sfail = "sender: post_recv failed";
		}
	}
	return NULL;
}

static void test_stream_threads(void **state)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct rp_fab_stats st;
	pthread_t tr;
	pthread_t ts;

	(void)state;
	assert_non_null(s);
	open_pair(&s->p, STREAM_W + 1, STREAM_W * STREAM_CHUNK);
	for (uint32_t i = 0; i < STREAM_W; i++) {
		assert_int_equal(rp_verbs_post_recv(s->p.r, 0, i), 0);
		assert_int_equal(rp_verbs_post_recv(s->p.s, 0, i), 0);
	}
	connect_pair(&s->p);
	assert_int_equal(pthread_create(&tr, NULL, stream_recv, s), 0);
	assert_int_equal(pthread_create(&ts, NULL, stream_send, s), 0);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	if (s->rfail || s->sfail)
		fail_msg("%s", s->rfail ? s->rfail : s->sfail);
	assert_int_equal(s->got, STREAM_N);
	rp_fab_stats(&st);
	assert_int_equal(st.writes, STREAM_N);
	assert_int_equal(st.bytes, (uint64_t)STREAM_N * STREAM_CHUNK);
	assert_true(st.sends > 0 && st.sends <= STREAM_N);
	close_pair(&s->p);
	free(s);
}

/* A receiver closing while the peer's Writes are landing: the close
 * waits for the copy in progress; later Writes fail as to a dead QP. */
#define CLOSE_RECVS	20000

struct close_race {
	struct pair p;
	const char *fail;
	uint64_t ok;
};

static void *write_until_error(void *arg)
{
	struct close_race *c = arg;
	struct rp_wc wc[4];

	for (uint64_t i = 0; i <= CLOSE_RECVS; i++) {
		if (rp_verbs_post_write_imm(c->p.s, 0, i, 0, RING_LEN,
					    raddr_of(&c->p, 0), c->p.rkey, 0)) {
			c->fail = "post failed";
			return NULL;
		}
		if (next_in(c->p.s, wc, 4, 5) == RP_EWC)
			return NULL;
		c->ok++;
	}
	c->fail = "never failed";
	return NULL;
}

static void test_close_during_writes(void **state)
{
	struct close_race *c = calloc(1, sizeof(*c));
	struct rp_verbs_cfg sc = { .max_send_wr = 4, .max_recv_wr = 4 };
	struct rp_verbs_cfg rc = { .max_send_wr = 4,
				   .max_recv_wr = CLOSE_RECVS,
				   .receiver = true, .access = ACC_WRITE };
	uint32_t unused;
	pthread_t t;

	(void)state;
	assert_non_null(c);
	assert_int_equal(rp_verbs_open(&c->p.r, &rc), 0);
	assert_int_equal(rp_verbs_open(&c->p.s, &sc), 0);
	assert_int_equal(rp_verbs_reg_ring(c->p.r, RING_LEN,
					   (void **)&c->p.rring, &c->p.rkey),
			 0);
	assert_int_equal(rp_verbs_reg_ring(c->p.s, RING_LEN,
					   (void **)&c->p.sring, &unused), 0);
	for (uint64_t i = 0; i < CLOSE_RECVS; i++)
		assert_int_equal(rp_verbs_post_recv(c->p.r, 0, i), 0);
	connect_pair(&c->p);
	assert_int_equal(pthread_create(&t, NULL, write_until_error, c), 0);
	usleep(20 * 1000);
	rp_verbs_close(c->p.r);
	c->p.r = NULL;
	pthread_join(t, NULL);
	if (c->fail)
		fail_msg("%s after %" PRIu64 " writes", c->fail, c->ok);
	print_message("%" PRIu64 " writes landed before the close\n", c->ok);
	close_pair(&c->p);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_local_and_pairing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_imm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_plain_write_and_poll,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_discard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_imm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rkey, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_bounds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_recv_posted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_queue_depth, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eintr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_fail_post_and_hook,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_fail_completion,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_stall, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fault_kill, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_link_down_relink, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_peer_closed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_access_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_local_protection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_data, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_data_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fault_new_posts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_slow_ack_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_local_and_connect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qps_post_out_of_range,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qps_write_imm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_queue_depth, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_recv_stays_on_its_qp,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qps_send, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_cross_qp, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_cross_qp_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qps_crossed_do_not_pair,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qps_error_is_per_qp,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qps_faults, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stream_threads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_close_during_writes, setup,
						teardown),
	};

	/* Traces on, so every trace format in the fabric is exercised. */
	rp_trace_init(getenv("FABRIC_TRACE") ? RP_V_TRACE : RP_V_NORMAL,
		      "fabric");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
