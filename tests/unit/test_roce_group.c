// SPDX-License-Identifier: MIT
/* Unit tests of the grouping of RoCE v2 packets into messages: a
 * request's packets become one run whatever their number, PSNs wrap,
 * two QPs interleave, a READ's response is its own run, ACKs fold and
 * count against the request they name, a capture that ends inside a
 * message and a go-back-N retransmission are marked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "rdmapush/roce_group.h"

#define A_TO_B	0
#define B_TO_A	1

/* Opcodes (IBTA 9.2, RC). */
#define SEND_ONLY_IMM	0x05
#define WRITE_FIRST	0x06
#define WRITE_MIDDLE	0x07
#define WRITE_LAST_IMM	0x09
#define WRITE_ONLY	0x0a
#define READ_REQ	0x0c
#define READ_FIRST	0x0d
#define READ_MIDDLE	0x0e
#define READ_LAST	0x0f
#define ACKNOWLEDGE	0x11

static struct rp_roce_tpkt pk[64];
static size_t npk;

/* One packet: dir A_TO_B (10.77.0.1 -> .2) or B_TO_A, to QP dqpn. */
static void put(int dir, uint8_t op, uint32_t dqpn, uint32_t psn,
		uint32_t payload)
{
	struct rp_roce_tpkt *t = &pk[npk];

	assert_true(npk < sizeof(pk) / sizeof(pk[0]));
	*t = (struct rp_roce_tpkt){ .t = (double)npk / 1000 };
	t->p.family = AF_INET;
	memcpy(t->p.src, dir == A_TO_B ? "\x0a\x4d\x00\x01" :
	       "\x0a\x4d\x00\x02", 4);
	memcpy(t->p.dst, dir == A_TO_B ? "\x0a\x4d\x00\x02" :
	       "\x0a\x4d\x00\x01", 4);
	t->p.opcode = op;
	t->p.dqpn = dqpn;
	t->p.psn = psn;
	t->p.payload_len = payload;
	npk++;
}

static void put_ack(int dir, uint32_t dqpn, uint32_t psn,
		    enum rp_roce_ack kind, uint8_t value, uint32_t msn)
{
	put(dir, ACKNOWLEDGE, dqpn, psn, 0);
	pk[npk - 1].p.has = RP_ROCE_AETH;
	pk[npk - 1].p.ack = kind;
	pk[npk - 1].p.ack_value = value;
	pk[npk - 1].p.msn = msn;
}

static struct rp_roce_run *group(size_t *n)
{
	struct rp_roce_run *r = NULL;

	assert_int_equal(rp_roce_group(pk, npk, &r, n), 0);
	npk = 0;
	return r;
}

static void assert_line(const struct rp_roce_run *r, const char *want)
{
	char buf[256];

	rp_roce_run_format(r, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* FIRST, MIDDLE, MIDDLE, LAST across the 24-bit PSN wrap, and the ACK
 * of its last PSN: one run of four packets, one ACK counted. */
static void test_write_wraps_and_is_acked(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, WRITE_FIRST, 0x11, 0xfffffe, 1024);
	put(A_TO_B, WRITE_MIDDLE, 0x11, 0xffffff, 1024);
	put(A_TO_B, WRITE_MIDDLE, 0x11, 0x000000, 1024);
	put(A_TO_B, WRITE_LAST_IMM, 0x11, 0x000001, 512);
	put_ack(B_TO_A, 0x22, 0x000001, RP_ROCE_ACK, 31, 1);
	r = group(&n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].kind, RP_RUN_REQUEST);
	assert_int_equal(r[0].packets, 4);
	assert_int_equal(r[0].bytes, 3584);
	assert_false(r[0].cut);
	assert_false(r[0].retransmit);
	assert_line(&r[0], "RDMA WRITE First...Last with Immediate, 4 "
		    "packets, PSN 0xfffffe-0x000001, QP 0x000011, 1 ACK");
	assert_int_equal(r[1].kind, RP_RUN_ACK);
	assert_line(&r[1], "Acknowledge (ACK), 1 packet, PSN 0x000001, QP "
		    "0x000022, MSN 1");
	free(r);
}

/* Two QPs' messages interleaved on the wire stay two messages. */
static void test_two_qps_interleave(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, WRITE_FIRST, 0x11, 100, 1024);
	put(A_TO_B, WRITE_FIRST, 0x12, 500, 1024);
	put(A_TO_B, WRITE_LAST_IMM, 0x11, 101, 1024);
	put(A_TO_B, WRITE_LAST_IMM, 0x12, 501, 1024);
	r = group(&n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].dqpn, 0x11);
	assert_int_equal(r[0].packets, 2);
	assert_int_equal(r[1].dqpn, 0x12);
	assert_int_equal(r[1].psn1, 501);
	assert_false(r[0].cut || r[1].cut);
	free(r);
}

/* A READ: the request one way, its response packets the other. */
static void test_read_request_and_response(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, READ_REQ, 0x11, 40, 0);
	put(B_TO_A, READ_FIRST, 0x22, 40, 1024);
	put(B_TO_A, READ_MIDDLE, 0x22, 41, 1024);
	put(B_TO_A, READ_LAST, 0x22, 42, 1024);
	r = group(&n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].kind, RP_RUN_REQUEST);
	assert_int_equal(r[0].packets, 1);
	assert_line(&r[0], "RDMA READ Request, 1 packet, PSN 0x000028, QP "
		    "0x000011");
	assert_int_equal(r[1].kind, RP_RUN_RESPONSE);
	assert_line(&r[1], "RDMA READ Response First...Last, 3 packets, PSN "
		    "0x000028-0x00002a, QP 0x000022");
	free(r);
}

/* ACKs that follow each other fold into one run; an RNR NAK stands
 * alone and counts as a NAK of the request it names. */
static void test_acks_fold_naks_stand_alone(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, WRITE_ONLY, 0x11, 7, 64);
	put(A_TO_B, WRITE_ONLY, 0x11, 8, 64);
	put(A_TO_B, SEND_ONLY_IMM, 0x11, 9, 16);
	put_ack(B_TO_A, 0x22, 7, RP_ROCE_ACK, 31, 1);
	put_ack(B_TO_A, 0x22, 8, RP_ROCE_ACK, 31, 2);
	put_ack(B_TO_A, 0x22, 9, RP_ROCE_RNR_NAK, 14, 2);
	r = group(&n);
	assert_int_equal(n, 5);
	assert_int_equal(r[3].kind, RP_RUN_ACK);
	assert_int_equal(r[3].packets, 2);
	assert_line(&r[3], "Acknowledge (ACK), 2 packets, PSN "
		    "0x000007-0x000008, QP 0x000022, MSN 2");
	assert_int_equal(r[4].ack, RP_ROCE_RNR_NAK);
	assert_int_equal(r[4].packets, 1);
	assert_int_equal(r[0].acks, 1);
	assert_int_equal(r[2].acks, 0);
	assert_int_equal(r[2].naks, 1);
	assert_line(&r[2], "SEND Only with Immediate, 1 packet, PSN "
		    "0x000009, QP 0x000011, 0 ACKs, 1 NAK");
	free(r);
}

/* A packet lost on the wire: the message before the gap is cut short,
 * the NAK names the lost PSN, and the requester's going back is a
 * retransmission. */
static void test_go_back_n_is_marked(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, WRITE_FIRST, 0x11, 10, 1024);
	put(A_TO_B, WRITE_MIDDLE, 0x11, 11, 1024);
	/* 12 lost */
	put(A_TO_B, WRITE_LAST_IMM, 0x11, 13, 1024);
	/* The next message goes out before the NAK comes back... */
	put(A_TO_B, WRITE_ONLY, 0x11, 14, 1024);
	put_ack(B_TO_A, 0x22, 12, RP_ROCE_NAK, RP_ROCE_NAK_PSN_SEQ, 0);
	put(A_TO_B, WRITE_MIDDLE, 0x11, 12, 1024);
	put(A_TO_B, WRITE_LAST_IMM, 0x11, 13, 1024);
	/* ... and again after the lost packet's message. */
	put(A_TO_B, WRITE_ONLY, 0x11, 14, 1024);
	put(A_TO_B, WRITE_ONLY, 0x11, 15, 1024);
	r = group(&n);
	assert_int_equal(n, 7);
	assert_true(r[0].cut);
	assert_int_equal(r[0].packets, 2);
	assert_true(r[0].begins);
	assert_false(r[1].retransmit);
	assert_false(r[1].begins);
	assert_false(r[2].retransmit);
	assert_line(&r[3], "Acknowledge (NAK: PSN sequence error), 1 packet, "
		    "PSN 0x00000c, QP 0x000022, MSN 0");
	assert_true(r[4].retransmit);
	assert_false(r[4].cut);
	assert_false(r[0].unfinished || r[4].unfinished);
	assert_int_equal(r[4].packets, 2);
	assert_line(&r[4], "RDMA WRITE Middle...Last with Immediate, 2 "
		    "packets, PSN 0x00000c-0x00000d, QP 0x000011, "
		    "retransmitted");
	assert_true(r[5].retransmit);
	assert_false(r[6].retransmit);
	free(r);
}

/* The capture ended inside a message. */
static void test_capture_ends_inside(void **state)
{
	struct rp_roce_run *r;
	size_t n;

	(void)state;
	put(A_TO_B, WRITE_FIRST, 0x11, 1, 1024);
	put(A_TO_B, WRITE_MIDDLE, 0x11, 2, 1024);
	r = group(&n);
	assert_int_equal(n, 1);
	assert_false(r[0].cut);
	assert_true(r[0].unfinished);
	assert_line(&r[0], "RDMA WRITE First...Middle, 2 packets, PSN "
		    "0x000001-0x000002, QP 0x000011, the capture ends inside "
		    "it");
	free(r);
}

static void test_nothing(void **state)
{
	struct rp_roce_run *r = (void *)1;
	size_t n = 9;

	(void)state;
	assert_int_equal(rp_roce_group(pk, 0, &r, &n), 0);
	assert_null(r);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_wraps_and_is_acked),
		cmocka_unit_test(test_two_qps_interleave),
		cmocka_unit_test(test_read_request_and_response),
		cmocka_unit_test(test_acks_fold_naks_stand_alone),
		cmocka_unit_test(test_go_back_n_is_marked),
		cmocka_unit_test(test_capture_ends_inside),
		cmocka_unit_test(test_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
