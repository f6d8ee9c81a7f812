// SPDX-License-Identifier: MIT
/* Unit tests of the RoCE v2 decoder on frames written byte by byte from
 * the IBTA spec (vol. 1 ch. 9, annex A17): every field in its place,
 * every cut of a frame refused cleanly, never a read past it (each frame
 * is copied into a buffer of exactly its length, for ASan). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "rdmapush/roce.h"

/* Ethernet II to 02:00:00:00:00:02 from 02:00:00:00:00:01, IPv4. */
#define ETH4 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, \
	     0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00
/* IPv4 header, 20 bytes: version 4 IHL 5, total length TOT, DF, TTL 64,
 * UDP (17), checksum 0 (not checked), 10.77.0.1 -> 10.77.0.2. */
#define IP4(tot) 0x45, 0x00, 0x00, (tot), 0x00, 0x00, 0x40, 0x00, \
	0x40, 0x11, 0x00, 0x00, 10, 77, 0, 1, 10, 77, 0, 2
/* UDP from port 0xc000 to 4791 (0x12b7), length LEN, checksum 0. */
#define UDP(len) 0xc0, 0x00, 0x12, 0xb7, 0x00, (len), 0x00, 0x00
#define ICRC 0xa1, 0xb2, 0xc3, 0xd4

/* RDMA WRITE First on QP 0x11, A bit, PSN 0x1c7daa, RETH VA
 * 0x00007f0012345000 rkey 0x1234 DMA length 65536, 8 bytes of data.
 * UDP: 8 + BTH 12 + RETH 16 + 8 + ICRC 4 = 48; IP: 20 + 48 = 68. */
static const uint8_t write_first[] = {
	ETH4, IP4(68), UDP(48),
	/* BTH: opcode 0x06 | SE 0 M 0 pad 0 tver 0 | P_Key 0xffff |
	 * reserved | dest QP 0x000011 | A=1 | PSN 0x1c7daa */
	0x06, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x1c, 0x7d, 0xaa,
	/* RETH: VA, rkey, DMA length */
	0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x50, 0x00,
	0x00, 0x00, 0x12, 0x34, 0x00, 0x01, 0x00, 0x00,
	/* data */
	'd', 'a', 't', 'a', '\n', 0x1b, '[', 'm',
	ICRC,
};

/* Acknowledge from 10.77.0.1 to QP 0x22, PSN 0x1c7daa, AETH syndrome
 * 0x1f (ACK, 31 credits) MSN 5. UDP 8 + 12 + 4 + 4 = 28; IP 48. */
static const uint8_t ack[] = {
	ETH4, IP4(48), UDP(28),
	0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22,
	0x00, 0x1c, 0x7d, 0xaa,
	/* AETH: syndrome | MSN */
	0x1f, 0x00, 0x00, 0x05,
	ICRC,
};
#define ACK_SYNDROME_AT (14 + 20 + 8 + 12)

/* IPv6 fd00::1 -> fd00::2, SEND Only with Immediate to QP 0x100, SE,
 * pad 2, tver 0, PSN 7, ImmDt 0xdeadbeef, 6 bytes of data and 2 of pad.
 * UDP 8 + 12 + 4 + 6 + 2 + 4 = 36 = IPv6 payload length. */
static const uint8_t send_imm6[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd,
	/* IPv6: version 6, class 0, flow 0 | payload 36 | UDP | hop 64 */
	0x60, 0x00, 0x00, 0x00, 0x00, 36, 0x11, 0x40,
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	UDP(36),
	/* BTH: 0x05 | SE=1 pad=2 -> 0xa0 | P_Key | QP 0x000100 | A PSN 7 */
	0x05, 0xa0, 0xff, 0xff, 0x00, 0x00, 0x01, 0x00,
	0x80, 0x00, 0x00, 0x07,
	/* ImmDt */
	0xde, 0xad, 0xbe, 0xef,
	/* 6 bytes of data, 2 of pad */
	1, 2, 3, 4, 5, 6, 0, 0,
	ICRC,
};

/* RDMA WRITE Last with Immediate, in an 802.1Q tag (VLAN 5): QP 0x11,
 * PSN 0xffffff, ImmDt 0x00000003, no data. UDP 8 + 12 + 4 + 4 = 28. */
static const uint8_t write_last_imm_vlan[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x81, 0x00, 0x00, 0x05,
	0x08, 0x00,
	IP4(48), UDP(28),
	0x09, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x03,
	ICRC,
};

/* Decode a copy of exactly n bytes, so that ASan sees any overrun. */
static int decode(const uint8_t *f, size_t n, struct rp_roce_pkt *p)
{
	uint8_t *copy = malloc(n ? n : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, f, n);
	rc = rp_roce_decode(copy, n, p);
	free(copy);
	return rc;
}

static void test_write_first(void **state)
{
	struct rp_roce_pkt p;
	char line[256];

	(void)state;
	assert_int_equal(decode(write_first, sizeof(write_first), &p), 0);
	assert_int_equal(p.family, AF_INET);
	assert_memory_equal(p.src, ((uint8_t[]){ 10, 77, 0, 1 }), 4);
	assert_memory_equal(p.dst, ((uint8_t[]){ 10, 77, 0, 2 }), 4);
	assert_int_equal(p.sport, 0xc000);
	assert_int_equal(p.opcode, 0x06);
	assert_false(p.se);
	assert_false(p.migreq);
	assert_int_equal(p.pad, 0);
	assert_int_equal(p.tver, 0);
	assert_int_equal(p.pkey, 0xffff);
	assert_int_equal(p.dqpn, 0x11);
	assert_true(p.ackreq);
	assert_int_equal(p.psn, 0x1c7daa);
	assert_int_equal(p.has, RP_ROCE_RETH);
	assert_true(p.va == 0x00007f0012345000ull);
	assert_int_equal(p.rkey, 0x1234);
	assert_int_equal(p.dmalen, 65536);
	assert_int_equal(p.payload_len, 8);
	assert_string_equal(rp_roce_opcode_name(p.opcode), "RDMA WRITE First");
	rp_roce_format(&p, line, sizeof(line));
	/* The data (which holds an escape sequence) is never printed. */
	assert_string_equal(line, "10.77.0.1 > 10.77.0.2 RDMA WRITE First "
			    "(0x06) qp 0x000011 psn 0x1c7daa A reth va "
			    "0x7f0012345000 rkey 0x1234 len 65536 data 8");
}

/* Ethernet pads short frames to 60 bytes: the IP length, not the
 * frame's, ends the datagram. */
static void test_ethernet_padding(void **state)
{
	uint8_t f[sizeof(ack) + 16];
	struct rp_roce_pkt p;

	(void)state;
	memset(f, 0xee, sizeof(f));
	memcpy(f, ack, sizeof(ack));
	assert_int_equal(decode(f, sizeof(f), &p), 0);
	assert_int_equal(p.payload_len, 0);
	assert_int_equal(p.msn, 5);
}

/* Each AETH syndrome: bits 6:5 the kind, 4:0 its value. */
static void test_aeth_syndromes(void **state)
{
	static const struct {
		uint8_t syndrome;
		enum rp_roce_ack ack;
		uint8_t value;
		const char *text;
	} cases[] = {
		{ 0x1f, RP_ROCE_ACK, 31, "aeth ACK credits 31 msn 5" },
		{ 0x2e, RP_ROCE_RNR_NAK, 14, "aeth RNR NAK timer 14 msn 5" },
		{ 0x60, RP_ROCE_NAK, 0,
		  "aeth NAK (PSN sequence error) msn 5" },
		{ 0x61, RP_ROCE_NAK, 1, "aeth NAK (invalid request) msn 5" },
		{ 0x62, RP_ROCE_NAK, 2,
		  "aeth NAK (remote access error) msn 5" },
		{ 0x63, RP_ROCE_NAK, 3,
		  "aeth NAK (remote operational error) msn 5" },
		{ 0x64, RP_ROCE_NAK, 4, "aeth NAK (invalid RD request) msn 5" },
		{ 0x7f, RP_ROCE_NAK, 31, "aeth NAK (code 31) msn 5" },
		{ 0x45, RP_ROCE_ACK_RESERVED, 5,
		  "aeth reserved syndrome 0x45 msn 5" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[sizeof(ack)];
		struct rp_roce_pkt p;
		char line[256];

		memcpy(f, ack, sizeof(f));
		f[ACK_SYNDROME_AT] = cases[i].syndrome;
		assert_int_equal(decode(f, sizeof(f), &p), 0);
		assert_int_equal(p.opcode, 0x11);
		assert_int_equal(p.has, RP_ROCE_AETH);
		assert_int_equal(p.syndrome, cases[i].syndrome);
		assert_int_equal(p.ack, cases[i].ack);
		assert_int_equal(p.ack_value, cases[i].value);
		assert_int_equal(p.dqpn, 0x22);
		assert_false(p.ackreq);
		rp_roce_format(&p, line, sizeof(line));
		assert_non_null(strstr(line, " Acknowledge (0x11) qp 0x000022 "
				       "psn 0x1c7daa "));
		assert_non_null(strstr(line, cases[i].text));
	}
}

static void test_ipv6_send_imm_pad(void **state)
{
	static const uint8_t dst[16] = { 0xfd, [15] = 2 };
	struct rp_roce_pkt p;
	char line[256];

	(void)state;
	assert_int_equal(decode(send_imm6, sizeof(send_imm6), &p), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_memory_equal(p.dst, dst, 16);
	assert_int_equal(p.opcode, 0x05);
	assert_true(p.se);
	assert_int_equal(p.pad, 2);
	assert_int_equal(p.dqpn, 0x100);
	assert_int_equal(p.psn, 7);
	assert_int_equal(p.has, RP_ROCE_IMMDT);
	assert_int_equal(p.imm, 0xdeadbeef);
	assert_int_equal(p.payload_len, 6);
	rp_roce_format(&p, line, sizeof(line));
	assert_string_equal(line, "fd00::1 > fd00::2 SEND Only with Immediate "
			    "(0x05) qp 0x000100 psn 0x000007 A SE imm "
			    "0xdeadbeef data 6");
}

static void test_vlan_write_last_imm(void **state)
{
	struct rp_roce_pkt p;

	(void)state;
	assert_int_equal(decode(write_last_imm_vlan,
				sizeof(write_last_imm_vlan), &p), 0);
	assert_int_equal(p.opcode, 0x09);
	assert_int_equal(p.psn, 0xffffff);
	assert_int_equal(p.imm, 3);
	assert_int_equal(p.payload_len, 0);
	assert_string_equal(rp_roce_opcode_name(p.opcode),
			    "RDMA WRITE Last with Immediate");
}

/* Every prefix of every frame: a clean refusal, never a success. */
static void test_every_cut_refused(void **state)
{
	static const struct {
		const uint8_t *f;
		size_t n;
	} frames[] = {
		{ write_first, sizeof(write_first) },
		{ ack, sizeof(ack) },
		{ send_imm6, sizeof(send_imm6) },
		{ write_last_imm_vlan, sizeof(write_last_imm_vlan) },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		for (size_t n = 0; n < frames[i].n; n++) {
			struct rp_roce_pkt p;
			int rc;

			memset(&p, 0x5a, sizeof(p));
			rc = decode(frames[i].f, n, &p);
			assert_true(rc == -ENOMSG || rc == -EBADMSG);
			/* *out untouched on failure */
			assert_int_equal(p.opcode, 0x5a);
		}
	}
}

/* Not RoCE v2 (-ENOMSG), or RoCE v2 that lies about itself (-EBADMSG). */
static void test_refusals(void **state)
{
	struct rp_roce_pkt p;
	uint8_t f[sizeof(write_first)];
	size_t udp = 14 + 20, bth = udp + 8;

	(void)state;
	assert_int_equal(rp_roce_decode(NULL, 0, &p), -EINVAL);

	memcpy(f, write_first, sizeof(f));
	f[udp + 3] = 0xb8;		/* UDP port 4792 */
	assert_int_equal(decode(f, sizeof(f), &p), -ENOMSG);

	memcpy(f, write_first, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06;			/* ARP */
	assert_int_equal(decode(f, sizeof(f), &p), -ENOMSG);

	memcpy(f, write_first, sizeof(f));
	f[14 + 9] = 6;			/* TCP */
	assert_int_equal(decode(f, sizeof(f), &p), -ENOMSG);

	memcpy(f, write_first, sizeof(f));
	f[14 + 6] = 0x20;		/* more fragments */
	assert_int_equal(decode(f, sizeof(f), &p), -ENOMSG);

	memcpy(f, write_first, sizeof(f));
	f[14 + 3] = 69;			/* IP longer than the frame */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);

	memcpy(f, write_first, sizeof(f));
	f[14] = 0x44;			/* IHL 4: shorter than a header */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);

	memcpy(f, write_first, sizeof(f));
	f[udp + 5] = 49;		/* UDP longer than IP */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);

	memcpy(f, write_first, sizeof(f));
	f[udp + 5] = 7;			/* UDP shorter than its header */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);

	memcpy(f, write_first, sizeof(f));
	f[bth] = 0x15;			/* a reserved opcode */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);
	assert_null(rp_roce_opcode_name(0x15));

	memcpy(f, write_first, sizeof(f));
	f[bth] = 0x12;			/* ATOMIC Acknowledge: 12 bytes */
	f[udp + 5] = 8 + 12 + 4 + 4;	/* AETH + ICRC only: too short */
	assert_int_equal(decode(f, sizeof(f), &p), -EBADMSG);

	/* A pad count larger than the data: ACK (no data) with pad 3. */
	{
		uint8_t a[sizeof(ack)];

		memcpy(a, ack, sizeof(a));
		a[bth + 1] = 0x30;
		assert_int_equal(decode(a, sizeof(a), &p), -EBADMSG);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(rp_roce_opcode_name(0x0e),
			    "RDMA READ Response Middle");
	assert_string_equal(rp_roce_opcode_name(0x0c), "RDMA READ Request");
	assert_string_equal(rp_roce_opcode_name(0x11), "Acknowledge");
	assert_string_equal(rp_roce_opcode_name(0x81), "CNP");
	assert_string_equal(rp_roce_opcode_name(0x29),
			    "UC RDMA WRITE Last with Immediate");
	assert_string_equal(rp_roce_ack_name(RP_ROCE_ACK_MAX), "?");
	assert_null(rp_roce_nak_name(5));
}

/* A line cut to the buffer: terminated, and the full length returned. */
static void test_format_truncates(void **state)
{
	struct rp_roce_pkt p;
	char full[256], cut[16];
	int n;

	(void)state;
	assert_int_equal(decode(write_first, sizeof(write_first), &p), 0);
	n = rp_roce_format(&p, full, sizeof(full));
	assert_int_equal(n, (int)strlen(full));
	assert_int_equal(rp_roce_format(&p, cut, sizeof(cut)), n);
	assert_int_equal(strlen(cut), sizeof(cut) - 1);
	assert_memory_equal(cut, full, sizeof(cut) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_first),
		cmocka_unit_test(test_ethernet_padding),
		cmocka_unit_test(test_aeth_syndromes),
		cmocka_unit_test(test_ipv6_send_imm_pad),
		cmocka_unit_test(test_vlan_write_last_imm),
		cmocka_unit_test(test_every_cut_refused),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_format_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
