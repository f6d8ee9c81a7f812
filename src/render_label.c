// SPDX-License-Identifier: MIT
/* rdmapush render's labels: what each event and message says in the
 * picture (QPN, PSN and rkey in hex, sizes, the attributes of each QP
 * step), as plain text; render_svg.c escapes it as it writes it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rdmapush/render.h"
#include "rdmapush/trace.h"
#include "render_int.h"

/* --- labels -------------------------------------------------------------- */

static void modify_detail(json_object *f, char *det, size_t len)
{
	const char *to = rp_render_sv(f, "to");
	char a[40], b[40];

	if (!strcmp(to, "INIT"))
		snprintf(det, len, "port %" PRId64 " · access %s",
			 rp_render_iv(f, "port"), rp_render_sv(f, "access"));
	else if (!strcmp(to, "RTR"))
		snprintf(det, len, "dest_qpn %s · rq_psn %s · path_mtu %"
			 PRId64, rp_render_hex(f, "dest_qpn", a, sizeof(a)),
			 rp_render_hex(f, "rq_psn", b, sizeof(b)),
			 rp_render_iv(f, "path_mtu"));
	else if (!strcmp(to, "RTS"))
		snprintf(det, len, "sq_psn %s · timeout %" PRId64
			 " · retry_cnt %" PRId64 " · rnr_retry %" PRId64,
			 rp_render_hex(f, "sq_psn", a, sizeof(a)),
			 rp_render_iv(f, "timeout"),
			 rp_render_iv(f, "retry_cnt"),
			 rp_render_iv(f, "rnr_retry"));
	else
		det[0] = '\0';
}

/*
 * A QP step, of one QP ("QP0") or of several alike on one row ("QP0-7",
 * their QPNs as first...last, the attributes of the first).
 */
static void qp_label(const struct rr_side *s, const struct rr_ev *e,
		     char *m, char *det, size_t len)
{
	const struct rr_ev *z = e->fold_last >= 0 ? &s->ev[e->fold_last] : e;
	json_object *f = e->f;
	char q[48], a[40], b[40], n[96];

	if (z != e) {
		int64_t x = rp_render_iv(f, "qp"), y = rp_render_iv(z->f, "qp");

		/* Teardown goes the other way: still "QP0–1". */
		snprintf(q, sizeof(q), "QP%" PRId64 "–%" PRId64,
			 x < y ? x : y, x < y ? y : x);
		snprintf(n, sizeof(n), "%s…%s",
			 rp_render_hex(f, "qpn", a, sizeof(a)),
			 rp_render_hex(z->f, "qpn", b, sizeof(b)));
	} else {
		snprintf(q, sizeof(q), "QP%" PRId64, rp_render_iv(f, "qp"));
		rp_render_hex(f, "qpn", n, sizeof(n));
	}
	det[0] = '\0';
	switch (e->kind) {
	case RR_QP_CREATE:
		snprintf(m, len, "%s created: qpn %s, RESET", q, n);
		snprintf(det, len, "max_send_wr %" PRId64 " · max_recv_wr %"
			 PRId64, rp_render_iv(f, "max_send_wr"),
			 rp_render_iv(f, "max_recv_wr"));
		break;
	case RR_QP_MODIFY:
		snprintf(m, len, "%s %s → %s", q, rp_render_sv(f, "from"),
			 rp_render_sv(f, "to"));
		modify_detail(f, det, len);
		if (z != e && det[0]) {
			char first[320];

			snprintf(first, sizeof(first), "QP%" PRId64 ": %s",
				 rp_render_iv(f, "qp"), det);
			snprintf(det, len, "%s", first);
		}
		break;
	case RR_QP_ERROR:
		snprintf(m, len, "%s → ERROR (flushes %s work)", q,
			 z != e ? "their" : "its");
		break;
	default:
		snprintf(m, len, "%s destroyed (qpn %s)", q, n);
		break;
	}
}

/* Main line and detail line of a local event's label. */
void rp_render_local_label(const struct rr_side *s, const struct rr_ev *e,
			   char *m, char *det, size_t len)
{
	json_object *f = e->f;
	char a[40], b[40], c[32];

	det[0] = '\0';
	switch (e->kind) {
	case RR_DEVICE:
		snprintf(m, len, "device %s, port %" PRId64,
			 rp_render_sv(f, "dev"), rp_render_iv(f, "port"));
		snprintf(det, len, "%s · mtu %" PRId64 " · gid[%" PRId64
			 "] %s", rp_render_sv(f, "link_layer"),
			 rp_render_iv(f, "mtu"),
			 rp_render_iv(f, "gid_index"), rp_render_sv(f, "gid"));
		break;
	case RR_PD_ALLOC: snprintf(m, len, "PD allocated"); break;
	case RR_PD_DEALLOC: snprintf(m, len, "PD freed"); break;
	case RR_CQ_CREATE:
		snprintf(m, len, "CQ created, cqe %" PRId64,
			 rp_render_iv(f, "cqe"));
		break;
	case RR_CQ_DESTROY: snprintf(m, len, "CQ destroyed"); break;
	case RR_MR_REG:
		snprintf(m, len, "MR registered: rkey %s, lkey %s",
			 rp_render_hex(f, "rkey", a, sizeof(a)),
			 rp_render_hex(f, "lkey", b, sizeof(b)));
		snprintf(det, len, "%s · %s", rp_render_sv(f, "access"),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "length"), c,
					 sizeof(c)));
		break;
	case RR_MR_DEREG:
		snprintf(m, len, "MR deregistered (rkey %s)",
			 rp_render_hex(f, "rkey", a, sizeof(a)));
		break;
	case RR_QP_CREATE:
	case RR_QP_MODIFY:
	case RR_QP_ERROR:
	case RR_QP_DESTROY:
		qp_label(s, e, m, det, len);
		break;
	case RR_PHASE:
		snprintf(m, len, "phase %s", rp_render_sv(f, "phase"));
		break;
	case RR_ERROR:
		snprintf(m, len, "error: %s", rp_render_sv(f, "message"));
		break;
	default:
		snprintf(m, len, "%s", rp_render_sv(e->line, "kind"));
		break;
	}
}

static void status_label(const struct rr_ev *e, char *m, char *det,
			 size_t len)
{
	char c[32];

	snprintf(m, len, "%s status %" PRId64 " (%s), %s", e->type,
		 rp_render_iv(e->f, "status"),
		 rp_render_sv(e->f, "status_name"),
		 rp_render_bytes((uint64_t)rp_render_iv(e->f, "bytes"), c,
				 sizeof(c)));
	snprintf(det, len, "%s",
		 rp_render_str(e->f, "text") ? rp_render_str(e->f, "text")
		 : "");
}

/* "0x11" or, with the QPs of "msg.qps", "0x11,0x12,0x13". */
static const char *qp_list(const struct rr_ev *e, const char *k, char *buf,
			   size_t len)
{
	int64_t qps = 0, i;
	size_t used;

	rp_render_hex(e->f, k, buf, len);
	if (!e->more || !rp_render_int(e->more, "qps", &qps))
		return buf;
	for (i = 1; i < qps && i < RR_MAX_QPS; i++) {
		char key[24], h[24];

		snprintf(key, sizeof(key), "qp%" PRId64 ".%s", i, k);
		used = strlen(buf);
		snprintf(buf + used, len - used, ",%s",
			 rp_render_hex(e->more, key, h, sizeof(h)));
	}
	return buf;
}

/* A push's HELLO says its size, "total 10.0 MiB"; a ping's, in the same
 * field, its round trips. */
static const char *hello_total(json_object *f, char *buf, size_t len)
{
	int64_t n = rp_render_iv(f, "total");
	json_object *ping;
	char b[32];

	if (json_object_object_get_ex(f, "ping", &ping) &&
	    json_object_get_boolean(ping))
		snprintf(buf, len, "%" PRId64 " round trip%s", n,
			 rp_s(n));
	else
		snprintf(buf, len, "total %s",
			 rp_render_bytes((uint64_t)n, b, sizeof(b)));
	return buf;
}

void rp_render_msg_label(const struct rr_ev *e, char *m, char *det, size_t len)
{
	json_object *f = e->f;
	const char *t = e->type;
	char a[160], b[160], c[32], d[32];

	det[0] = '\0';
	if (!strcmp(t, "HELLO")) {
		snprintf(m, len, "HELLO  qpn %s  psn %s",
			 qp_list(e, "qpn", a, sizeof(a)),
			 qp_list(e, "psn", b, sizeof(b)));
		snprintf(det, len, "mtu %" PRId64 " · chunk %s · window %"
			 PRId64 " · qps %" PRId64 " · %s",
			 rp_render_iv(f, "mtu"),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "chunk"), c,
					 sizeof(c)),
			 rp_render_iv(f, "window"), rp_render_iv(f, "qps"),
			 hello_total(f, d, sizeof(d)));
	} else if (!strcmp(t, "MR")) {
		snprintf(m, len, "MR  rkey %s  qpn %s  psn %s",
			 rp_render_hex(f, "rkey", c, sizeof(c)),
			 qp_list(e, "qpn", a, sizeof(a)),
			 qp_list(e, "psn", b, sizeof(b)));
		snprintf(det, len, "addr %s · len %s · chunk %s · window %"
			 PRId64, rp_render_hex(f, "addr", a, sizeof(a)),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "len"), b,
					 sizeof(b)),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "chunk"), d,
					 sizeof(d)),
			 rp_render_iv(f, "window"));
	} else if (!strcmp(t, "FILE")) {
		snprintf(m, len, "FILE #%" PRId64 ", %s", rp_render_iv(f, "id"),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "size"), c,
					 sizeof(c)));
		snprintf(det, len, "%s", rp_render_sv(f, "path"));
	} else if (!strcmp(t, "FEND")) {
		snprintf(m, len, "FEND #%" PRId64 ", %s", rp_render_iv(f, "id"),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "bytes"), c,
					 sizeof(c)));
	} else if (json_object_object_get_ex(f, "round_trips", NULL)) {
		/* A ping's FIN and ACK count round trips. */
		int64_t n = rp_render_iv(f, "round_trips");

		snprintf(m, len, "%s  %" PRId64 " round trip%s%s", t, n,
			 rp_s((uint64_t)n), strcmp(t, "ACK") ? "" :
			 " answered");
	} else if (!strcmp(t, "FIN")) {
		int64_t n = rp_render_iv(f, "files");

		snprintf(m, len, "FIN  %" PRId64 " file%s, %s", n,
			 rp_s((uint64_t)n),
			 rp_render_bytes((uint64_t)rp_render_iv(f, "bytes"), c,
					 sizeof(c)));
	} else if (!strcmp(t, "ACK") || !strcmp(t, "ERR") ||
		   !strcmp(t, "FACK")) {
		status_label(e, m, det, len);
	} else if (!strcmp(t, "AUTH")) {
		snprintf(m, len, "AUTH step %" PRId64, rp_render_iv(f, "step"));
	} else {
		snprintf(m, len, "%s", t);
	}
}

const char *rp_render_msg_color(const char *t)
{
	if (!strcmp(t, "HELLO") || !strcmp(t, "MR"))
		return "#1565c0";
	if (!strcmp(t, "FIN") || !strcmp(t, "ACK"))
		return "#2e7d32";
	if (!strcmp(t, "ERR"))
		return "#c62828";
	if (!strcmp(t, "AUTH"))
		return "#6a1b9a";
	return "#455a64";
}
