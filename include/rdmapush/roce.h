/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 decoder: one captured frame (Ethernet II, an optional
 * 802.1Q tag, IPv4 or IPv6, UDP to port 4791) to the InfiniBand
 * transport headers it carries: BTH, then RETH, ImmDt, AETH (and the
 * lengths of the others) as its opcode says, and the payload length.
 * Pure: no libpcap, no verbs, no allocation; it never reads past the
 * bytes it is given. Used by --capture (to keep a session's packets)
 * and by rdmapush render --packets (to print them).
 */
#ifndef RDMAPUSH_ROCE_H
#define RDMAPUSH_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_ROCE_PORT	4791	/* IANA's UDP port for RoCE v2 */
#define RP_ROCE_BTH_LEN	12
#define RP_ROCE_ICRC_LEN 4

/* Which extended headers a packet has (rp_roce_pkt.has). */
#define RP_ROCE_RETH	0x1u	/* RDMA: VA, rkey, DMA length */
#define RP_ROCE_IMMDT	0x2u	/* 4 bytes of immediate data */
#define RP_ROCE_AETH	0x4u	/* ACK: syndrome and MSN */
#define RP_ROCE_IETH	0x8u	/* the rkey a SEND invalidates */
#define RP_ROCE_DETH	0x10u	/* UD: Q_Key and source QP */
#define RP_ROCE_ATOMIC	0x20u	/* AtomicETH (28 bytes, not decoded) */
#define RP_ROCE_ATOMACK	0x40u	/* AtomicAckETH (8 bytes, not decoded) */

/* AETH syndrome bits 6:5, IBTA 9.7.5.1.1. */
enum rp_roce_ack {
	RP_ROCE_ACK = 0,	/* value: credit count */
	RP_ROCE_RNR_NAK = 1,	/* value: the RNR timer's code */
	RP_ROCE_ACK_RESERVED = 2,
	RP_ROCE_NAK = 3,	/* value: enum rp_roce_nak */
	RP_ROCE_ACK_MAX
};

/* NAK codes (syndrome bits 4:0 with RP_ROCE_NAK). */
enum rp_roce_nak {
	RP_ROCE_NAK_PSN_SEQ = 0,
	RP_ROCE_NAK_INV_REQ = 1,
	RP_ROCE_NAK_REM_ACCESS = 2,
	RP_ROCE_NAK_REM_OP = 3,
	RP_ROCE_NAK_INV_RD = 4,
	RP_ROCE_NAK_MAX
};

/* One decoded packet. Fields of headers it lacks are 0. */
struct rp_roce_pkt {
	/* IP: family AF_INET or AF_INET6; IPv4 in the first 4 bytes. */
	int family;
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;		/* UDP source port (an entropy hash) */
	/* BTH */
	uint8_t opcode;
	bool se;		/* solicited event */
	bool migreq;
	uint8_t pad;		/* pad count, 0..3 */
	uint8_t tver;		/* transport header version */
	uint16_t pkey;
	uint32_t dqpn;		/* destination QP, 24 bits */
	bool ackreq;		/* A: the requester asks for an ACK */
	uint32_t psn;		/* 24 bits */
	unsigned int has;	/* RP_ROCE_* */
	/* RETH */
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
	/* ImmDt, as on the wire (big-endian order, read as a number) */
	uint32_t imm;
	/* AETH */
	uint8_t syndrome;
	enum rp_roce_ack ack;	/* syndrome bits 6:5 */
	uint8_t ack_value;	/* bits 4:0: credits, RNR timer or NAK code */
	uint32_t msn;		/* 24 bits */
	/* Data after the headers, less the pad and the ICRC. */
	uint32_t payload_len;
};

/*
 * Decode frame, len captured bytes of an Ethernet II frame. 0 with *out
 * filled; -ENOMSG for a frame that is not RoCE v2 (another EtherType or
 * IP protocol, another UDP port, an IP fragment, IPv6 extension
 * headers): not ours, skip it; -EBADMSG for a RoCE v2 frame that is
 * short or inconsistent (truncated capture, lengths that disagree, a
 * pad larger than the data, an opcode whose headers are unknown). *out
 * is written only on success. Nothing is reported.
 */
int rp_roce_decode(const uint8_t *frame, size_t len, struct rp_roce_pkt *out)
	__attribute__((warn_unused_result));

/*
 * The opcode's name as the IBTA spec writes it ("RDMA WRITE First",
 * "Acknowledge", "SEND Only with Immediate"), "UC "/"UD " before the
 * unreliable transports' and "CNP" for congestion notification; NULL
 * for a reserved opcode. Static strings.
 */
const char *rp_roce_opcode_name(uint8_t opcode);
/* The extended headers (RP_ROCE_*) an opcode carries after the BTH; 0
 * for one without any. *known is false for a reserved opcode. */
unsigned int rp_roce_opcode_headers(uint8_t opcode, bool *known);

/* "ACK", "RNR NAK", "reserved", "NAK"; "?" outside the enum. */
const char *rp_roce_ack_name(enum rp_roce_ack a);
/* "PSN sequence error", "invalid request", "remote access error",
 * "remote operational error", "invalid RD request"; NULL for a reserved
 * code. */
const char *rp_roce_nak_name(unsigned int code);

/*
 * One line, no newline, into buf (len bytes, always terminated): source
 * and destination addresses, the opcode's name and number, QP, PSN, the
 * A bit, and the extended headers' fields, e.g.
 *   10.77.0.1 > 10.77.0.2 RDMA WRITE First (0x06) qp 0x000011
 *   psn 0x1c7daa reth va 0x7f0000000000 rkey 0x1234 len 65536 data 1024
 * (one line). Only numbers and addresses: nothing of the frame is
 * printed as text. Returns the length it wanted, as snprintf.
 */
int rp_roce_format(const struct rp_roce_pkt *p, char *buf, size_t len);

#endif
