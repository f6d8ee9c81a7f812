// SPDX-License-Identifier: MIT
/*
 * rdmapush render's packet lane: a RoCE v2 capture of the session
 * (--capture) drawn below its sequence diagram, one row per message as
 * the NIC put it on the wire (roce_group.h), each request tied to the
 * verbs post it came from and to that post's completion, ACKs and NAKs
 * as arrows back, long runs of messages alike folded into one row.
 *
 * Tying a message to its post needs no clock: RC sends a QP's messages
 * in the order they were posted, so the k-th request on the wire to the
 * peer's QP n is the k-th post on our QP that is paired with n (QP q of
 * one side is paired with QP q of the other). The trace keeps only the
 * first posts of each kind; later messages stay untied. Times are the
 * capture's (ms since its first packet) and each post's its own side's:
 * the clocks are unrelated.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmapush/capture.h"
#include "rdmapush/err.h"
#include "rdmapush/roce.h"
#include "rdmapush/roce_group.h"
#include "render_int.h"

#define KEEP_HEAD	10	/* the first messages, always drawn */
#define KEEP_TAIL	4	/* the last ones */
#define KEEP_ODD	24	/* NAKs, retransmissions, cuts, turns drawn */
#define ROW_H		40
#define HEAD_H		96	/* the lane's title and explanation */
#define LABEL_CHARS	52

struct wire_row {
	size_t first, last;	/* runs [first, last] */
	bool fold;		/* several runs as one grey row */
};

struct rr_wire {
	const char *path;
	struct rp_roce_run *run;
	size_t n;
	int *from;		/* per run: the side that sent it, -1: neither */
	long *post;		/* per run: its post in that side, -1 */
	struct wire_row *row;
	size_t nrows;
	size_t packets, malformed, foreign;
	double t0;		/* the first packet's time */
};

#define fail rp_render_fail

/* Every RoCE v2 packet of the capture, decoded, with its time. */
static int read_packets(struct rr_wire *w, struct rp_roce_tpkt **out,
			size_t *nout)
{
	struct rp_roce_tpkt *pk = NULL;
	size_t n = 0, cap = 0;
	struct rp_pcapfile *f;
	int rc = rp_pcapfile_open(&f, w->path);

	if (rc)
		return rc;
	for (;;) {
		const uint8_t *data;
		size_t len;
		double ts;

		rc = rp_pcapfile_next(f, &data, &len, &ts);
		if (rc <= 0)
			break;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 1024;
			struct rp_roce_tpkt *p = realloc(pk, c * sizeof(*p));

			if (!p) {
				fail("out of memory reading %s", w->path);
				rc = -ENOMEM;
				break;
			}
			pk = p;
			cap = c;
		}
		rc = rp_roce_decode(data, len, &pk[n].p);
		if (rc == -ENOMSG)
			continue;	/* not RoCE v2 */
		if (rc) {
			w->malformed++;
			continue;
		}
		pk[n++].t = ts;
	}
	rp_pcapfile_close(f);
	if (rc < 0) {
		free(pk);
		return rc;
	}
	*out = pk;
	*nout = n;
	return 0;
}

/* The two sides' GIDs, parsed once for every run's addresses. */
struct gids {
	struct in6_addr g[2];
	bool have[2];
};

static void parse_gids(const struct rr_diagram *d, struct gids *out)
{
	for (int side = 0; side < 2; side++)
		out->have[side] = d->s[side].gid &&
				  inet_pton(AF_INET6, d->s[side].gid,
					    &out->g[side]) == 1;
}

/* The side whose GID is addr (family AF_INET or AF_INET6), or -1. */
static int side_of(const struct gids *gs, int family, const uint8_t *a)
{
	for (int side = 0; side < 2; side++) {
		const struct in6_addr *g = &gs->g[side];

		if (!gs->have[side])
			continue;
		if (family == AF_INET && IN6_IS_ADDR_V4MAPPED(g) &&
		    !memcmp(a, &g->s6_addr[12], 4))
			return side;
		if (family == AF_INET6 && !memcmp(a, g->s6_addr, 16))
			return side;
	}
	return -1;
}

/* The QP index whose number on side s is qpn, or -1. */
static int qp_index(const struct rr_side *s, uint32_t qpn)
{
	for (int q = 0; q < RR_MAX_QPS; q++)
		if ((s->has_qpn & (1u << q)) && s->qpn[q] == qpn)
			return q;
	return -1;
}

/* The nth post of side s on QP q, or -1. */
static long nth_post(const struct rr_side *s, int q, unsigned nth)
{
	for (size_t i = 0; i < s->nposts; i++)
		if (s->post[i].qp == q && nth-- == 0)
			return (long)i;
	return -1;
}

/* Each run's sender, and each request's post (see the top). */
static void tie(struct rr_wire *w, const struct rr_diagram *d)
{
	unsigned sent[2][RR_MAX_QPS] = { { 0 } };
	struct gids gs;

	parse_gids(d, &gs);
	for (size_t i = 0; i < w->n; i++) {
		const struct rp_roce_run *r = &w->run[i];
		int s = side_of(&gs, r->family, r->src), q;

		w->post[i] = -1;
		if (s < 0 || side_of(&gs, r->family, r->dst) != !s) {
			w->from[i] = -1;
			w->foreign++;
			continue;
		}
		w->from[i] = s;
		q = qp_index(&d->s[!s], r->dqpn);
		/* The rest of a message after a gap is not a post. */
		if (r->kind != RP_RUN_REQUEST || r->retransmit || !r->begins ||
		    q < 0)
			continue;
		w->post[i] = nth_post(&d->s[s], q, sent[s][q]++);
	}
}

/* A run worth its own row wherever it falls. */
static bool odd(const struct rp_roce_run *r)
{
	return r->retransmit || r->cut || r->unfinished ||
	       (r->kind == RP_RUN_ACK && r->ack != RP_ROCE_ACK);
}

/* A request unlike the one before it (another opcode, or the other
 * way): where the traffic changes, as a credit Send among Writes. */
static bool turns(const struct rr_wire *w, size_t i, long prev)
{
	const struct rp_roce_run *r = &w->run[i], *p;

	if (r->kind == RP_RUN_ACK || prev < 0)
		return false;
	p = &w->run[prev];
	return p->first_op != r->first_op || p->last_op != r->last_op ||
	       w->from[prev] != w->from[i];
}

/* Rows: the first and last runs, the odd ones, where the traffic
 * turns, the rest folded. */
static int plan_rows(struct rr_wire *w)
{
	size_t odd_kept = 0;
	long prev = -1;		/* the last request or response */

	w->row = calloc(w->n ? w->n : 1, sizeof(*w->row));
	if (!w->row)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++) {
		struct wire_row *last = w->nrows ? &w->row[w->nrows - 1] : NULL;
		bool keep;

		if (w->from[i] < 0)
			continue;
		keep = i < KEEP_HEAD || i + KEEP_TAIL >= w->n ||
		       ((odd(&w->run[i]) || turns(w, i, prev)) &&
			odd_kept++ < KEEP_ODD);
		if (w->run[i].kind != RP_RUN_ACK)
			prev = (long)i;
		if (!keep && last && last->fold)
			last->last = i;
		else
			w->row[w->nrows++] = (struct wire_row){ i, i, !keep };
	}
	/* A fold of one run is that run's row after all. */
	for (size_t k = 0; k < w->nrows; k++)
		if (w->row[k].first == w->row[k].last)
			w->row[k].fold = false;
	return 0;
}

int rp_render_wire_load(struct rr_diagram *d, const char *path)
{
	struct rr_wire *w = calloc(1, sizeof(*w));
	struct rp_roce_tpkt *pk = NULL;
	size_t npk = 0;
	int rc;

	if (!w)
		return -ENOMEM;
	w->path = path;
	rc = read_packets(w, &pk, &npk);
	if (!rc && !npk) {
		fail("%s: no RoCE v2 packet in it (UDP port 4791)%s", path,
		     w->malformed ? "; only malformed ones" : "");
		rc = RP_EPROTO;
	}
	if (!rc) {
		w->packets = npk;
		w->t0 = pk[0].t;
		rc = rp_roce_group(pk, npk, &w->run, &w->n);
		if (rc)
			fail("out of memory grouping %s", path);
	}
	free(pk);
	if (!rc) {
		w->from = calloc(w->n, sizeof(*w->from));
		w->post = calloc(w->n, sizeof(*w->post));
		if (!w->from || !w->post) {
			fail("out of memory");
			rc = -ENOMEM;
		}
	}
	if (!rc) {
		tie(w, d);
		if (w->foreign == w->n) {
			fail("%s: none of its packets goes between the two "
			     "traces' GIDs (%s and %s): a capture of another "
			     "session?", path, d->s[0].gid ? d->s[0].gid : "?",
			     d->s[1].gid ? d->s[1].gid : "?");
			rc = RP_EPROTO;
		}
	}
	if (!rc && plan_rows(w)) {
		fail("out of memory");
		rc = -ENOMEM;
	}
	d->wire = w;
	if (rc)
		rp_render_wire_free(d);
	return rc;
}

void rp_render_wire_free(struct rr_diagram *d)
{
	struct rr_wire *w = d->wire;

	if (!w)
		return;
	free(w->run);
	free(w->from);
	free(w->post);
	free(w->row);
	free(w);
	d->wire = NULL;
}

int rp_render_wire_height(const struct rr_diagram *d)
{
	return d->wire ? HEAD_H + (int)d->wire->nrows * ROW_H + 40 : 0;
}

/* --- drawing ------------------------------------------------------------- */

static const char *run_color(const struct rp_roce_run *r)
{
	if (r->kind == RP_RUN_ACK)
		return r->ack == RP_ROCE_ACK ? "#2e7d32" : "#c62828";
	if (r->retransmit)
		return "#ef6c00";
	switch (r->first_op & 0x1f) {
	case 0x0c: case 0x0d: case 0x0e: case 0x0f: case 0x10:
		return "#00838f";	/* READ request and response */
	case 0x00: case 0x01: case 0x02: case 0x03: case 0x04: case 0x05:
		return "#6a1b9a";	/* SEND */
	default:
		return "#1565c0";	/* RDMA WRITE and the rest */
	}
}

/* The run's line under its name: "PSN 0x...-0x..., QP 0x..., 1 ACK". */
static void run_detail(const struct rp_roce_run *r, char *buf, size_t len)
{
	const char *nak = r->ack == RP_ROCE_NAK ?
			  rp_roce_nak_name(r->ack_value) : NULL;
	char psn[32];
	size_t l;

	rp_roce_run_psns(r, psn, sizeof(psn));
	if (r->kind == RP_RUN_ACK) {
		snprintf(buf, len, "%s%s%s, PSN %s, to QP 0x%06x, MSN %u",
			 rp_roce_ack_name(r->ack), nak ? ": " : "",
			 nak ? nak : "", psn, r->dqpn, r->msn);
		return;
	}
	snprintf(buf, len, "PSN %s, to QP 0x%06x", psn, r->dqpn);
	l = strlen(buf);
	if (r->acks || r->naks)
		snprintf(buf + l, len - l, ", %u ACK%s%s", r->acks,
			 r->acks == 1 ? "" : "s", r->naks ? ", NAKed" : "");
	l = strlen(buf);
	snprintf(buf + l, len - l, "%s%s%s", r->retransmit ?
		 ", retransmitted" : "", r->cut ? ", cut short" : "",
		 r->unfinished ? ", the capture ends inside it" : "");
}

static void run_row(FILE *f, const struct rr_diagram *d,
		    const struct rr_wire *w, size_t i, int y)
{
	const struct rp_roce_run *r = &w->run[i];
	int s = w->from[i];
	double x0 = rp_render_lifeline(s), x1 = rp_render_lifeline(!s);
	double mid = (rp_render_lifeline(0) + rp_render_lifeline(1)) / 2;
	char name[96], m[160], det[256], bytes[32], t[32];

	rp_roce_run_name(r, name, sizeof(name));
	if (r->packets > 1)
		snprintf(m, sizeof(m), "%s: %u packets", name, r->packets);
	else
		snprintf(m, sizeof(m), "%s", name);
	run_detail(r, det, sizeof(det));
	if (r->kind != RP_RUN_ACK && r->bytes) {
		size_t l = strlen(det);

		snprintf(det + l, sizeof(det) - l, ", %s of data",
			 rp_render_bytes(r->bytes, bytes, sizeof(bytes)));
	}
	fprintf(f, "<g class=\"wire-run\" data-kind=\"%s\">\n",
		r->kind == RP_RUN_ACK ? "ack" :
		r->kind == RP_RUN_RESPONSE ? "response" : "request");
	rp_render_arrow(f, x0, y + 30, x1, y + 30, run_color(r),
			r->kind == RP_RUN_ACK, "wire");
	rp_render_text(f, mid, y + 12, "msg", "middle", m, LABEL_CHARS);
	rp_render_text(f, mid, y + 24, "det", "middle", det, LABEL_CHARS + 14);
	snprintf(t, sizeof(t), "%.3f ms", (r->t0 - w->t0) * 1e3);
	rp_render_text(f, 20, y + 33, "time", NULL, t, 0);
	if (w->post[i] >= 0) {
		const struct rr_post *p = &d->s[s].post[w->post[i]];
		char tie_m[160], tie_d[160];
		double lx = s == RR_SEND ? x0 - 14 : x0 + 14;
		const char *anchor = s == RR_SEND ? "end" : "start";

		snprintf(tie_m, sizeof(tie_m), "post %s wr_id=%" PRIu64
			 " (QP %d), %s", p->op, p->wr_id, p->qp,
			 rp_render_bytes((uint64_t)(p->length > 0 ? p->length
						    : 0), bytes,
					 sizeof(bytes)));
		if (p->wc_t >= 0)
			snprintf(tie_d, sizeof(tie_d), "posted at %.3f ms, "
				 "completed at %.3f ms", p->t * 1e3,
				 p->wc_t * 1e3);
		else
			snprintf(tie_d, sizeof(tie_d), "posted at %.3f ms "
				 "(its completion not traced)", p->t * 1e3);
		rp_render_text(f, lx, y + 12, "ev", anchor, tie_m, 54);
		rp_render_text(f, lx, y + 25, "det", anchor, tie_d, 54);
	}
	fputs("</g>\n", f);
}

static void fold_row(FILE *f, const struct rr_wire *w,
		     const struct wire_row *row, int y)
{
	uint64_t packets = 0, bytes = 0, acks = 0;
	size_t msgs = 0;
	char m[200], b[32];

	for (size_t i = row->first; i <= row->last; i++) {
		if (w->from[i] < 0)
			continue;
		if (w->run[i].kind == RP_RUN_ACK) {
			acks += w->run[i].packets;
			continue;
		}
		msgs++;
		packets += w->run[i].packets;
		bytes += w->run[i].bytes;
	}
	fprintf(f, "<g class=\"wire-fold\">\n<rect x=\"%.0f\" y=\"%d\" "
		"width=\"%.0f\" height=\"%d\" rx=\"4\" fill=\"#eceff1\" "
		"stroke=\"#90a4ae\"/>\n", rp_render_lifeline(0) - 60, y + 4,
		rp_render_lifeline(1) - rp_render_lifeline(0) + 120,
		ROW_H - 8);
	snprintf(m, sizeof(m), "... %zu more message%s folded: %" PRIu64
		 " packet%s, %s of data, %" PRIu64 " ACK%s", msgs,
		 msgs == 1 ? "" : "s", packets, packets == 1 ? "" : "s",
		 rp_render_bytes(bytes, b, sizeof(b)), acks,
		 acks == 1 ? "" : "s");
	rp_render_text(f, (rp_render_lifeline(0) + rp_render_lifeline(1)) / 2,
		       y + 24, "det", "middle", m, 0);
	fputs("</g>\n", f);
}

void rp_render_wire_svg(FILE *f, const struct rr_diagram *d, int y)
{
	const struct rr_wire *w = d->wire;
	char buf[512];
	int side, bottom = y + HEAD_H + (int)w->nrows * ROW_H;

	fprintf(f, "<g class=\"wire\" data-packets=\"%zu\" "
		"data-messages=\"%zu\">\n", w->packets, w->n);
	snprintf(buf, sizeof(buf), "On the wire: %zu RoCE v2 packets of this "
		 "session in %s", w->packets, w->path);
	rp_render_text(f, 20, y + 20, "blockhead", NULL, buf, 120);
	rp_render_text(f, 20, y + 40, "small", NULL, "Each arrow is one "
		       "message as the NIC put it on the wire: a Write larger "
		       "than the path MTU leaves as FIRST, MIDDLE... LAST "
		       "packets, one PSN each; an ACK acknowledges every PSN "
		       "up to its own.", 0);
	snprintf(buf, sizeof(buf), "Left: the capture's time (ms since its "
		 "first packet). Beside each request: the post it came from "
		 "and its completion, in its side's own time.%s%s",
		 w->malformed ? " Malformed packets skipped." : "",
		 w->foreign ? " Packets of other hosts skipped." : "");
	rp_render_text(f, 20, y + 58, "small", NULL, buf, 0);
	for (side = 0; side < 2; side++) {
		double x = rp_render_lifeline(side);

		fprintf(f, "<line class=\"wire-lifeline\" x1=\"%.0f\" y1=\"%d\" "
			"x2=\"%.0f\" y2=\"%d\" stroke=\"#37474f\" "
			"stroke-width=\"1\" stroke-dasharray=\"2 4\"/>\n", x,
			y + 88, x, bottom);
		snprintf(buf, sizeof(buf), "%s", d->s[side].gid ?
			 d->s[side].gid : "?");
		rp_render_text(f, x, y + 82, "tiny", "middle", buf, 40);
	}
	for (size_t k = 0; k < w->nrows; k++) {
		const struct wire_row *row = &w->row[k];
		int ry = y + HEAD_H + (int)k * ROW_H;

		if (row->fold)
			fold_row(f, w, row, ry);
		else
			run_row(f, d, w, row->first, ry);
	}
	fputs("</g>\n", f);
}
