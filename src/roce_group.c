// SPDX-License-Identifier: MIT
/* RoCE v2 packets grouped into messages (roce_group.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmapush/roce_group.h"

#define PSN_MASK	0xffffffu
/* How far back an ACK looks for the request it names: RC keeps few
 * messages outstanding per QP, and a capture has few QPs. */
#define ACK_LOOKBACK	512u

enum role { ROLE_FIRST, ROLE_MIDDLE, ROLE_LAST, ROLE_ONLY, ROLE_ACK };

/* The packet's place in its message, and the message's kind, from the
 * opcode's low five bits (the same for RC, UC, RD and UD, IBTA 9.2). */
static enum role role_of(uint8_t opcode, enum rp_roce_run_kind *kind)
{
	*kind = RP_RUN_REQUEST;
	switch (opcode & 0x1f) {
	case 0x00: case 0x06:			/* SEND, WRITE First */
		return ROLE_FIRST;
	case 0x01: case 0x07:			/* ... Middle */
		return ROLE_MIDDLE;
	case 0x02: case 0x03: case 0x08: case 0x09: case 0x16:
		return ROLE_LAST;
	case 0x0d:
		*kind = RP_RUN_RESPONSE;
		return ROLE_FIRST;
	case 0x0e:
		*kind = RP_RUN_RESPONSE;
		return ROLE_MIDDLE;
	case 0x0f:
		*kind = RP_RUN_RESPONSE;
		return ROLE_LAST;
	case 0x10:
		*kind = RP_RUN_RESPONSE;
		return ROLE_ONLY;
	case 0x11: case 0x12:			/* Acknowledge, Atomic ACK */
		*kind = RP_RUN_ACK;
		return ROLE_ACK;
	default:	/* Only, READ request, atomics, CNP, the rest */
		return ROLE_ONLY;
	}
}

/* a comes after b in PSN order (24-bit serial arithmetic). */
static bool psn_after(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & PSN_MASK;

	return d != 0 && d < 0x800000u;
}

/* Requests or responses of one QP in one direction. */
struct stream {
	int family;
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	enum rp_roce_run_kind kind;
	long open;		/* the run being filled, -1 */
	long ack;		/* RP_RUN_ACK: the last ACK run, -1 */
	uint32_t last_psn;
	bool seen;
};

struct grouper {
	struct rp_roce_run *run;
	size_t n, cap;
	struct stream *st;
	size_t nst, stcap;
};

/* Room in the array *a of *cap elements of size for one more than n:
 * doubled when full. false when out of memory (*a unchanged). */
static bool room(void **a, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*a, c * size);
	if (!p)
		return false;
	*a = p;
	*cap = c;
	return true;
}

static bool same_addr(int family, const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, family == AF_INET ? 4 : 16);
}

static struct stream *stream_of(struct grouper *g, const struct rp_roce_pkt *p,
				enum rp_roce_run_kind kind)
{
	struct stream *s;

	for (size_t i = 0; i < g->nst; i++) {
		s = &g->st[i];
		if (s->kind == kind && s->dqpn == p->dqpn &&
		    s->family == p->family &&
		    same_addr(p->family, s->src, p->src) &&
		    same_addr(p->family, s->dst, p->dst))
			return s;
	}
	if (!room((void **)&g->st, &g->stcap, g->nst, sizeof(*g->st)))
		return NULL;
	s = &g->st[g->nst++];
	*s = (struct stream){ .family = p->family, .dqpn = p->dqpn,
			      .kind = kind, .open = -1, .ack = -1 };
	memcpy(s->src, p->src, sizeof(s->src));
	memcpy(s->dst, p->dst, sizeof(s->dst));
	return s;
}

static struct rp_roce_run *run_new(struct grouper *g,
				   const struct rp_roce_tpkt *tp,
				   enum rp_roce_run_kind kind)
{
	const struct rp_roce_pkt *p = &tp->p;
	struct rp_roce_run *r;

	if (!room((void **)&g->run, &g->cap, g->n, sizeof(*g->run)))
		return NULL;
	r = &g->run[g->n++];
	*r = (struct rp_roce_run){
		.kind = kind, .t0 = tp->t, .t1 = tp->t, .family = p->family,
		.dqpn = p->dqpn, .first_op = p->opcode, .last_op = p->opcode,
		.psn0 = p->psn, .psn1 = p->psn, .packets = 1,
		.bytes = p->payload_len, .ack = p->ack,
		.ack_value = p->ack_value, .msn = p->msn,
	};
	memcpy(r->src, p->src, sizeof(r->src));
	memcpy(r->dst, p->dst, sizeof(r->dst));
	return r;
}

static void run_extend(struct rp_roce_run *r, const struct rp_roce_tpkt *tp)
{
	r->t1 = tp->t;
	r->last_op = tp->p.opcode;
	r->psn1 = tp->p.psn;
	r->packets++;
	r->bytes += tp->p.payload_len;
	r->msn = tp->p.msn;
	r->ack_value = tp->p.ack_value;
}

/* The request whose PSN range holds an ACK's PSN: sent the other way,
 * before it. */
static void ack_count(struct grouper *g, const struct rp_roce_pkt *p)
{
	size_t stop = g->n > ACK_LOOKBACK ? g->n - ACK_LOOKBACK : 0;

	for (size_t i = g->n; i-- > stop;) {
		struct rp_roce_run *r = &g->run[i];

		if (r->kind != RP_RUN_REQUEST || r->family != p->family ||
		    !same_addr(p->family, r->src, p->dst) ||
		    !same_addr(p->family, r->dst, p->src))
			continue;
		if (psn_after(r->psn0, p->psn) || psn_after(p->psn, r->psn1))
			continue;
		if (p->ack == RP_ROCE_ACK)
			r->acks++;
		else
			r->naks++;
		return;
	}
}

/* ACKs alike that follow each other, with nothing else between, are
 * one run; a NAK or an RNR NAK always stands alone. */
static int add_ack(struct grouper *g, const struct rp_roce_tpkt *tp)
{
	struct stream *s = stream_of(g, &tp->p, RP_RUN_ACK);
	struct rp_roce_run *r;

	if (!s)
		return -ENOMEM;
	ack_count(g, &tp->p);
	if (s->ack >= 0 && (size_t)s->ack == g->n - 1 &&
	    tp->p.ack == RP_ROCE_ACK && g->run[s->ack].ack == RP_ROCE_ACK &&
	    g->run[s->ack].first_op == tp->p.opcode) {
		run_extend(&g->run[s->ack], tp);
		return 0;
	}
	r = run_new(g, tp, RP_RUN_ACK);
	if (!r)
		return -ENOMEM;
	s->ack = (long)(g->n - 1);
	return 0;
}

static int add_data(struct grouper *g, const struct rp_roce_tpkt *tp,
		    enum role role, enum rp_roce_run_kind kind)
{
	struct stream *s = stream_of(g, &tp->p, kind);
	struct rp_roce_run *r;
	bool back;

	if (!s)
		return -ENOMEM;
	/* The next packet of the message being filled. */
	if (s->open >= 0 && (role == ROLE_MIDDLE || role == ROLE_LAST) &&
	    tp->p.psn == ((g->run[s->open].psn1 + 1) & PSN_MASK)) {
		run_extend(&g->run[s->open], tp);
		if (role == ROLE_LAST)
			s->open = -1;
		/* A retransmission stays behind what was seen. */
		if (psn_after(tp->p.psn, s->last_psn))
			s->last_psn = tp->p.psn;
		return 0;
	}
	if (s->open >= 0)
		g->run[s->open].cut = true;
	s->open = -1;
	back = s->seen && !psn_after(tp->p.psn, s->last_psn);
	r = run_new(g, tp, kind);
	if (!r)
		return -ENOMEM;
	r->retransmit = back;
	r->begins = role == ROLE_FIRST || role == ROLE_ONLY;
	if (role == ROLE_FIRST || role == ROLE_MIDDLE)
		s->open = (long)(g->n - 1);
	if (!back || !s->seen)
		s->last_psn = tp->p.psn;
	s->seen = true;
	return 0;
}

int rp_roce_group(const struct rp_roce_tpkt *pkt, size_t n,
		  struct rp_roce_run **out, size_t *nout)
{
	struct grouper g = { 0 };
	int rc = 0;

	*out = NULL;
	*nout = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		enum rp_roce_run_kind kind;
		enum role role = role_of(pkt[i].p.opcode, &kind);

		rc = role == ROLE_ACK ? add_ack(&g, &pkt[i]) :
		     add_data(&g, &pkt[i], role, kind);
	}
	/* What the capture ended inside of. */
	for (size_t i = 0; !rc && i < g.nst; i++)
		if (g.st[i].open >= 0)
			g.run[g.st[i].open].unfinished = true;
	free(g.st);
	if (rc) {
		free(g.run);
		return rc;
	}
	*out = g.run;
	*nout = g.n;
	return 0;
}

/* n with a comma every three digits. */
static const char *thousands(uint64_t n, char *buf, size_t len)
{
	char raw[24];
	size_t d, o = 0;

	d = (size_t)snprintf(raw, sizeof(raw), "%" PRIu64, n);
	for (size_t i = 0; i < d && o + 2 < len; i++) {
		if (i && (d - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

int rp_roce_run_name(const struct rp_roce_run *r, char *buf, size_t len)
{
	const char *a = rp_roce_opcode_name(r->first_op);
	const char *b = rp_roce_opcode_name(r->last_op);
	size_t common = 0;

	if (!a)
		a = "reserved opcode";
	if (!b)
		b = "reserved opcode";
	if (r->first_op == r->last_op)
		return snprintf(buf, len, "%s", a);
	/* "RDMA WRITE First" and "RDMA WRITE Last": the words they share
	 * once. */
	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == ' ')
			common = i + 1;
	return snprintf(buf, len, "%s...%s", a, b + common);
}

const char *rp_roce_run_psns(const struct rp_roce_run *r, char *buf,
			     size_t len)
{
	if (r->psn0 == r->psn1)
		snprintf(buf, len, "0x%06x", r->psn0);
	else
		snprintf(buf, len, "0x%06x-0x%06x", r->psn0, r->psn1);
	return buf;
}

int rp_roce_run_format(const struct rp_roce_run *r, char *buf, size_t len)
{
	char name[96], num[32], psn[32], acks[64] = "", naks[32] = "";
	const char *plural = r->packets == 1 ? "" : "s";
	const char *nak;

	rp_roce_run_name(r, name, sizeof(name));
	thousands(r->packets, num, sizeof(num));
	rp_roce_run_psns(r, psn, sizeof(psn));
	if (r->kind == RP_RUN_ACK) {
		nak = r->ack == RP_ROCE_NAK ? rp_roce_nak_name(r->ack_value)
					    : NULL;
		return snprintf(buf, len, "%s (%s%s%s), %s packet%s, PSN %s, "
				"QP 0x%06x, MSN %u", name,
				rp_roce_ack_name(r->ack), nak ? ": " : "",
				nak ? nak : "", num, plural, psn, r->dqpn,
				r->msn);
	}
	if (r->naks)
		snprintf(naks, sizeof(naks), ", %u NAK%s", r->naks,
			 r->naks == 1 ? "" : "s");
	if (r->acks || r->naks)
		snprintf(acks, sizeof(acks), ", %u ACK%s%s", r->acks,
			 r->acks == 1 ? "" : "s", naks);
	return snprintf(buf, len, "%s, %s packet%s, PSN %s, QP 0x%06x%s%s%s%s",
			name, num, plural, psn, r->dqpn, acks,
			r->retransmit ? ", retransmitted" : "",
			r->cut ? ", cut short" : "",
			r->unfinished ? ", the capture ends inside it" : "");
}
