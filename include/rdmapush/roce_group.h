/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 packets (roce.h) grouped into the messages they carry: a
 * request's FIRST, MIDDLE... and LAST packets (or its ONLY one) become
 * one run with its PSN range and packet count; a READ's response
 * packets another; ACKs and NAKs runs of their own, each counted
 * against the request whose PSN range it names. This is what a verbs
 * post looks like on the wire: one Write of 1 MiB with a 1 KiB MTU is
 * one run of 1,024 packets. Pure: no libpcap, no I/O, no verbs.
 */
#ifndef RDMAPUSH_ROCE_GROUP_H
#define RDMAPUSH_ROCE_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/roce.h"

/* One decoded packet and when it was captured (seconds). */
struct rp_roce_tpkt {
	double t;
	struct rp_roce_pkt p;
};

enum rp_roce_run_kind {
	RP_RUN_REQUEST,		/* SEND, RDMA WRITE, READ request, atomic */
	RP_RUN_RESPONSE,	/* RDMA READ response packets */
	RP_RUN_ACK,		/* Acknowledge (ACK, RNR NAK, NAK), atomic ACK */
};

/* One message (or, for ACKs, a run of ACKs alike) on the wire. */
struct rp_roce_run {
	enum rp_roce_run_kind kind;
	double t0, t1;		/* its first and last packet */
	int family;		/* AF_INET or AF_INET6, as in rp_roce_pkt */
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	uint8_t first_op, last_op;
	uint32_t psn0, psn1;	/* first and last PSN */
	uint32_t packets;
	uint64_t bytes;		/* payload */
	/* A request or response whose first PSN is not after the last
	 * one already seen on its QP: the requester went back (go-back-N
	 * after a NAK or a timeout). */
	bool retransmit;
	/* Its first packet begins a message (a FIRST or an ONLY): not the
	 * rest of one whose packets before a gap came in another run. */
	bool begins;
	/* Ended without its LAST packet: the next one on its QP had
	 * another PSN (a packet was lost, or the requester went back). */
	bool cut;
	/* The packets given ended inside it (the capture stopped). */
	bool unfinished;
	/* RP_RUN_ACK: the ACK type and value of its packets (alike), and
	 * the MSN of its last; requests: the ACKs and NAKs that named a
	 * PSN in its range. */
	enum rp_roce_ack ack;
	uint8_t ack_value;
	uint32_t msn;
	uint32_t acks, naks;
};

/*
 * Group n packets, in capture order, into runs, in the order their
 * first packets came. *out is allocated (free() it), *nout set. Packets
 * the decoder refused are not given here. 0 or -ENOMEM.
 */
int rp_roce_group(const struct rp_roce_tpkt *pkt, size_t n,
		  struct rp_roce_run **out, size_t *nout)
	__attribute__((warn_unused_result));

/*
 * One line, no newline, into buf (always terminated), e.g.
 *   "RDMA WRITE First…Last with Immediate, 1,024 packets, PSN
 *    0x1c7daa–0x1c7ea9, QP 0x000011, 1 ACK"
 * or "Acknowledge (ACK), 3 packets, PSN 0x1c7e00–0x1c7ea9, QP 0x000012,
 * MSN 5". Numbers and fixed names only. As snprintf.
 */
int rp_roce_run_format(const struct rp_roce_run *r, char *buf, size_t len);

/* Its PSN, or its range "0x1c7daa-0x1c7ea9", into buf; returns buf. */
const char *rp_roce_run_psns(const struct rp_roce_run *r, char *buf,
			     size_t len);

/* "RDMA WRITE First…Last with Immediate", or the one name of a
 * one-packet run, into buf. As snprintf. */
int rp_roce_run_name(const struct rp_roce_run *r, char *buf, size_t len);

#endif
