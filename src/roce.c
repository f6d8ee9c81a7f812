// SPDX-License-Identifier: MIT
/* The RoCE v2 decoder (roce.h): Ethernet, IP and UDP peeled off a frame,
 * then the InfiniBand BTH and the extended headers its opcode names. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmapush/roce.h"

/*
 * The layout, all big-endian (IBTA vol. 1 ch. 9; RoCE v2 annex A17):
 *
 *   Ethernet II   dst[6] src[6] type[2]   (0x8100: tag[2] type[2] first)
 *   IPv4          ver/IHL ... proto(9) src(12) dst(16), IHL*4 bytes
 *   IPv6          40 bytes, next header(6) src(8) dst(24)
 *   UDP           sport[2] dport[2] = 4791, length[2], checksum[2]
 *   BTH  (12)     opcode | SE M pad(2) tver(4) | P_Key[2] |
 *                 reserved[1] | dest QP[3] | A reserved(7) | PSN[3]
 *   RETH (16)     VA[8] rkey[4] DMA length[4]
 *   AETH (4)      syndrome | MSN[3]
 *   ImmDt, IETH (4), DETH (8), AtomicETH (28), AtomicAckETH (8)
 *   payload, pad (0-3 bytes), ICRC[4]
 *
 * Extended headers come in the spec's order: RDETH, DETH, RETH,
 * AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 */
#define ETH_LEN		14
#define VLAN_LEN	4
#define ETHERTYPE_IP	0x0800
#define ETHERTYPE_IP6	0x86dd
#define ETHERTYPE_VLAN	0x8100
#define IP4_MIN		20
#define IP6_LEN		40
#define IPPROTO_UDP_	17
#define UDP_LEN		8

#define RETH_LEN	16
#define AETH_LEN	4
#define IMMDT_LEN	4
#define IETH_LEN	4
#define DETH_LEN	8
#define ATOMIC_LEN	28
#define ATOMACK_LEN	8
#define CNP_LEN		16	/* reserved bytes after a CNP's BTH */

#define R RP_ROCE_RETH
#define I RP_ROCE_IMMDT
#define A RP_ROCE_AETH
#define V RP_ROCE_IETH
#define D RP_ROCE_DETH

/* One row per opcode the decoder knows; the others are reserved. */
static const struct op {
	uint8_t code;
	unsigned int headers;
	const char *name;
} ops[] = {
	/* Reliable Connection */
	{ 0x00, 0, "SEND First" },
	{ 0x01, 0, "SEND Middle" },
	{ 0x02, 0, "SEND Last" },
	{ 0x03, I, "SEND Last with Immediate" },
	{ 0x04, 0, "SEND Only" },
	{ 0x05, I, "SEND Only with Immediate" },
	{ 0x06, R, "RDMA WRITE First" },
	{ 0x07, 0, "RDMA WRITE Middle" },
	{ 0x08, 0, "RDMA WRITE Last" },
	{ 0x09, I, "RDMA WRITE Last with Immediate" },
	{ 0x0a, R, "RDMA WRITE Only" },
	{ 0x0b, R | I, "RDMA WRITE Only with Immediate" },
	{ 0x0c, R, "RDMA READ Request" },
	{ 0x0d, A, "RDMA READ Response First" },
	{ 0x0e, 0, "RDMA READ Response Middle" },
	{ 0x0f, A, "RDMA READ Response Last" },
	{ 0x10, A, "RDMA READ Response Only" },
	{ 0x11, A, "Acknowledge" },
	{ 0x12, A | RP_ROCE_ATOMACK, "ATOMIC Acknowledge" },
	{ 0x13, RP_ROCE_ATOMIC, "CmpSwap" },
	{ 0x14, RP_ROCE_ATOMIC, "FetchAdd" },
	{ 0x16, V, "SEND Last with Invalidate" },
	{ 0x17, V, "SEND Only with Invalidate" },
	/* Unreliable Connection */
	{ 0x20, 0, "UC SEND First" },
	{ 0x21, 0, "UC SEND Middle" },
	{ 0x22, 0, "UC SEND Last" },
	{ 0x23, I, "UC SEND Last with Immediate" },
	{ 0x24, 0, "UC SEND Only" },
	{ 0x25, I, "UC SEND Only with Immediate" },
	{ 0x26, R, "UC RDMA WRITE First" },
	{ 0x27, 0, "UC RDMA WRITE Middle" },
	{ 0x28, 0, "UC RDMA WRITE Last" },
	{ 0x29, I, "UC RDMA WRITE Last with Immediate" },
	{ 0x2a, R, "UC RDMA WRITE Only" },
	{ 0x2b, R | I, "UC RDMA WRITE Only with Immediate" },
	/* Unreliable Datagram */
	{ 0x64, D, "UD SEND Only" },
	{ 0x65, D | I, "UD SEND Only with Immediate" },
	/* Congestion notification (RoCE v2 annex A17.9.3) */
	{ 0x81, 0, "CNP" },
};

#undef R
#undef I
#undef A
#undef V
#undef D

static const struct op *op_row(uint8_t code)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].code == code)
			return &ops[i];
	return NULL;
}

const char *rp_roce_opcode_name(uint8_t opcode)
{
	const struct op *o = op_row(opcode);

	return o ? o->name : NULL;
}

unsigned int rp_roce_opcode_headers(uint8_t opcode, bool *known)
{
	const struct op *o = op_row(opcode);

	if (known)
		*known = o != NULL;
	return o ? o->headers : 0;
}

const char *rp_roce_ack_name(enum rp_roce_ack a)
{
	static const char *const names[RP_ROCE_ACK_MAX] = {
		[RP_ROCE_ACK] = "ACK",
		[RP_ROCE_RNR_NAK] = "RNR NAK",
		[RP_ROCE_ACK_RESERVED] = "reserved",
		[RP_ROCE_NAK] = "NAK",
	};

	return (unsigned int)a < RP_ROCE_ACK_MAX ? names[a] : "?";
}

const char *rp_roce_nak_name(unsigned int code)
{
	static const char *const names[RP_ROCE_NAK_MAX] = {
		[RP_ROCE_NAK_PSN_SEQ] = "PSN sequence error",
		[RP_ROCE_NAK_INV_REQ] = "invalid request",
		[RP_ROCE_NAK_REM_ACCESS] = "remote access error",
		[RP_ROCE_NAK_REM_OP] = "remote operational error",
		[RP_ROCE_NAK_INV_RD] = "invalid RD request",
	};

	return code < RP_ROCE_NAK_MAX ? names[code] : NULL;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)((unsigned int)p[0] << 8 | p[1]);
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | be24(p + 1);
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/*
 * From the Ethernet header to the UDP payload: *udp and *udp_len (the
 * UDP length less its header), with the addresses in p. -ENOMSG: not a
 * RoCE v2 frame; -EBADMSG: one that is cut short or whose lengths
 * disagree. The IP length, not the frame's, bounds the datagram: a short
 * frame is padded to Ethernet's minimum.
 */
static int peel(const uint8_t *f, size_t len, struct rp_roce_pkt *p,
		const uint8_t **udp, size_t *udp_len)
{
	size_t off = ETH_LEN, ip_end, hl;
	uint16_t type;
	uint8_t proto;

	if (len < ETH_LEN)
		return -ENOMSG;
	type = be16(f + 12);
	if (type == ETHERTYPE_VLAN) {
		if (len < ETH_LEN + VLAN_LEN)
			return -ENOMSG;
		type = be16(f + 16);
		off += VLAN_LEN;
	}
	if (type == ETHERTYPE_IP) {
		if (len < off + IP4_MIN || f[off] >> 4 != 4)
			return -ENOMSG;
		hl = (size_t)(f[off] & 0xf) * 4;
		proto = f[off + 9];
		/* A fragment's UDP header is in the first one only. */
		if (proto != IPPROTO_UDP_ || (be16(f + off + 6) & 0x3fff))
			return -ENOMSG;
		if (hl < IP4_MIN || be16(f + off + 2) < hl)
			return -EBADMSG;
		ip_end = off + be16(f + off + 2);
		p->family = AF_INET;
		memcpy(p->src, f + off + 12, 4);
		memcpy(p->dst, f + off + 16, 4);
	} else if (type == ETHERTYPE_IP6) {
		if (len < off + IP6_LEN || f[off] >> 4 != 6)
			return -ENOMSG;
		hl = IP6_LEN;
		proto = f[off + 6];
		/* Extension headers: RoCE v2 does not use them. */
		if (proto != IPPROTO_UDP_)
			return -ENOMSG;
		ip_end = off + IP6_LEN + be16(f + off + 4);
		p->family = AF_INET6;
		memcpy(p->src, f + off + 8, 16);
		memcpy(p->dst, f + off + 24, 16);
	} else {
		return -ENOMSG;
	}
	off += hl;
	if (len < off + UDP_LEN)
		return off > len ? -EBADMSG : -ENOMSG;
	if (be16(f + off + 2) != RP_ROCE_PORT)
		return -ENOMSG;
	/* From here on it claims to be RoCE v2: every flaw is -EBADMSG. */
	if (ip_end > len)
		return -EBADMSG;	/* cut short by the capture's snaplen */
	if (be16(f + off + 4) < UDP_LEN || off + be16(f + off + 4) > ip_end)
		return -EBADMSG;
	p->sport = be16(f + off);
	*udp = f + off + UDP_LEN;
	*udp_len = be16(f + off + 4) - UDP_LEN;
	return 0;
}

/* The BTH's fields into p. b has RP_ROCE_BTH_LEN bytes. */
static void bth(const uint8_t *b, struct rp_roce_pkt *p)
{
	p->opcode = b[0];
	p->se = b[1] & 0x80;
	p->migreq = b[1] & 0x40;
	p->pad = (b[1] >> 4) & 0x3;
	p->tver = b[1] & 0xf;
	p->pkey = be16(b + 2);
	p->dqpn = be24(b + 5);
	p->ackreq = b[8] & 0x80;
	p->psn = be24(b + 9);
}

int rp_roce_decode(const uint8_t *frame, size_t len, struct rp_roce_pkt *out)
{
	struct rp_roce_pkt p;
	const uint8_t *u;
	size_t n, off;
	unsigned int h;
	bool known;
	int rc;

	if (!frame || !out)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	rc = peel(frame, len, &p, &u, &n);
	if (rc)
		return rc;
	if (n < RP_ROCE_BTH_LEN + RP_ROCE_ICRC_LEN)
		return -EBADMSG;
	bth(u, &p);
	h = rp_roce_opcode_headers(p.opcode, &known);
	if (!known)
		return -EBADMSG;
	off = RP_ROCE_BTH_LEN;
	/* Each header: there must be room for it and for the ICRC. */
#define ROOM(k) (off + (k) + RP_ROCE_ICRC_LEN <= n)
	if (p.opcode == 0x81) {
		if (!ROOM(CNP_LEN))
			return -EBADMSG;
		off += CNP_LEN;
	}
	if (h & RP_ROCE_DETH) {
		if (!ROOM(DETH_LEN))
			return -EBADMSG;
		off += DETH_LEN;
	}
	if (h & RP_ROCE_RETH) {
		if (!ROOM(RETH_LEN))
			return -EBADMSG;
		p.va = be64(u + off);
		p.rkey = be32(u + off + 8);
		p.dmalen = be32(u + off + 12);
		off += RETH_LEN;
	}
	if (h & RP_ROCE_ATOMIC) {
		if (!ROOM(ATOMIC_LEN))
			return -EBADMSG;
		off += ATOMIC_LEN;
	}
	if (h & RP_ROCE_AETH) {
		if (!ROOM(AETH_LEN))
			return -EBADMSG;
		p.syndrome = u[off];
		p.ack = (enum rp_roce_ack)((p.syndrome >> 5) & 0x3);
		p.ack_value = p.syndrome & 0x1f;
		p.msn = be24(u + off + 1);
		off += AETH_LEN;
	}
	if (h & RP_ROCE_ATOMACK) {
		if (!ROOM(ATOMACK_LEN))
			return -EBADMSG;
		off += ATOMACK_LEN;
	}
	if (h & RP_ROCE_IMMDT) {
		if (!ROOM(IMMDT_LEN))
			return -EBADMSG;
		p.imm = be32(u + off);
		off += IMMDT_LEN;
	}
	if (h & RP_ROCE_IETH) {
		if (!ROOM(IETH_LEN))
			return -EBADMSG;
		p.rkey = be32(u + off);
		off += IETH_LEN;
	}
#undef ROOM
	n -= off + RP_ROCE_ICRC_LEN;
	if (p.pad > n)
		return -EBADMSG;
	p.payload_len = (uint32_t)(n - p.pad);
	p.has = h;
	*out = p;
	return 0;
}

/* snprintf into buf at *used, keeping the count of what was wanted. */
#define PUT(...)							\
	do {								\
		int k_ = snprintf(buf + (*used < len ? *used : len),	\
				  *used < len ? len - *used : 0,	\
				  __VA_ARGS__);				\
		if (k_ > 0)						\
			*used += (size_t)k_;				\
	} while (0)

static void put_addr(const struct rp_roce_pkt *p, const uint8_t *a,
		     char *buf, size_t len, size_t *used)
{
	char t[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family == AF_INET6 ? AF_INET6 : AF_INET, a, t,
		       sizeof(t)))
		snprintf(t, sizeof(t), "?");
	PUT("%s", t);
}

static void put_aeth(const struct rp_roce_pkt *p, char *buf, size_t len,
		     size_t *used)
{
	const char *nak;

	PUT(" aeth %s", rp_roce_ack_name(p->ack));
	switch (p->ack) {
	case RP_ROCE_ACK:
		PUT(" credits %u", p->ack_value);
		break;
	case RP_ROCE_RNR_NAK:
		PUT(" timer %u", p->ack_value);
		break;
	case RP_ROCE_NAK:
		nak = rp_roce_nak_name(p->ack_value);
		if (nak)
			PUT(" (%s)", nak);
		else
			PUT(" (code %u)", p->ack_value);
		break;
	default:
		PUT(" syndrome 0x%02x", p->syndrome);
		break;
	}
	PUT(" msn %u", p->msn);
}

int rp_roce_format(const struct rp_roce_pkt *p, char *buf, size_t len)
{
	const char *name = rp_roce_opcode_name(p->opcode);
	size_t used_ = 0, *used = &used_;

	if (len)
		buf[0] = '\0';
	put_addr(p, p->src, buf, len, used);
	PUT(" > ");
	put_addr(p, p->dst, buf, len, used);
	PUT(" %s (0x%02x) qp 0x%06x psn 0x%06x", name ? name : "reserved",
	    p->opcode, p->dqpn, p->psn);
	if (p->ackreq)
		PUT(" A");
	if (p->se)
		PUT(" SE");
	if (p->has & RP_ROCE_RETH)
		PUT(" reth va 0x%llx rkey 0x%x len %u",
		    (unsigned long long)p->va, p->rkey, p->dmalen);
	if (p->has & RP_ROCE_AETH)
		put_aeth(p, buf, len, used);
	if (p->has & RP_ROCE_IMMDT)
		PUT(" imm 0x%08x", p->imm);
	if (p->has & RP_ROCE_IETH)
		PUT(" ieth rkey 0x%x", p->rkey);
	PUT(" data %u", p->payload_len);
	return used_ > (size_t)0x7fffffff ? 0x7fffffff : (int)used_;
}
