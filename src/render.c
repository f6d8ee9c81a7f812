// SPDX-License-Identifier: MIT
/* rdmapush render: reads the --trace-json files (two, or a chain's, one
 * per node), pairs each adjacent two's messages (the k-th "out" of type
 * X on one side is the k-th "in" of X on the other), merges both sides
 * of each pair into rows and writes the SVG atomically. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/render.h"
#include "rdmapush/trace.h"
#include "render_int.h"


#define fail rp_render_fail

void rp_render_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rdmapush render: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* --- reading one trace --------------------------------------------------- */

static const struct {
	const char *name;
	enum rr_kind kind;
} kinds[] = {
	{ "device.open", RR_DEVICE }, { "pd.alloc", RR_PD_ALLOC },
	{ "pd.dealloc", RR_PD_DEALLOC }, { "cq.create", RR_CQ_CREATE },
	{ "cq.destroy", RR_CQ_DESTROY }, { "mr.reg", RR_MR_REG },
	{ "mr.dereg", RR_MR_DEREG }, { "qp.create", RR_QP_CREATE },
	{ "qp.modify", RR_QP_MODIFY }, { "qp.error", RR_QP_ERROR },
	{ "qp.destroy", RR_QP_DESTROY }, { "msg", RR_MSG },
	{ "phase", RR_PHASE }, { "data.summary", RR_SUMMARY },
	{ "error", RR_ERROR },
};

static int kind_of(const char *k)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, k))
			return (int)kinds[i].kind;
	return -1;
}

/* Parse one line into a JSON object; NULL after saying why. */
static json_object *parse_line(const char *path, long ln, const char *line,
			       size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;
	enum json_tokener_error e;
	size_t end;

	if (!tok) {
		fail("%s:%ld: out of memory", path, ln);
		return NULL;
	}
	o = json_tokener_parse_ex(tok, line, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o || e != json_tokener_success) {
		fail("%s:%ld: not JSON: %s", path, ln,
		     e == json_tokener_continue ? "the object is cut short" :
		     json_tokener_error_desc(e));
		json_object_put(o);
		return NULL;
	}
	while (end < len && strchr(" \t\r\n", line[end]))
		end++;
	if (end < len || !json_object_is_type(o, json_type_object)) {
		fail("%s:%ld: not one JSON object per line", path, ln);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Check v and kind; 1: an event to keep, 0: skip it, <0: error. */
static int check_line(const char *path, long ln, json_object *o,
		      const char **kind)
{
	json_object *v, *k;
	int64_t ver;

	if (!json_object_object_get_ex(o, "v", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		fail("%s:%ld: no schema version \"v\": not an rdmapush "
		     "--trace-json line", path, ln);
		return RP_EPROTO;
	}
	ver = json_object_get_int64(v);
	if (ver != 1) {
		fail("%s:%ld: trace schema version %" PRId64 "; this rdmapush "
		     "reads version 1", path, ln, ver);
		return RP_EVERSION;
	}
	if (!json_object_object_get_ex(o, "kind", &k) ||
	    !json_object_is_type(k, json_type_string)) {
		fail("%s:%ld: no \"kind\": not an rdmapush --trace-json line",
		     path, ln);
		return RP_EPROTO;
	}
	*kind = json_object_get_string(k);
	return 1;
}

static double num(json_object *o, const char *k, double dflt)
{
	json_object *m;

	if (!json_object_object_get_ex(o, k, &m))
		return dflt;
	if (!json_object_is_type(m, json_type_double) &&
	    !json_object_is_type(m, json_type_int))
		return dflt;
	return json_object_get_double(m);
}

/* A whole trace as lines (each a reference), in file order. */
struct lines {
	json_object **o;
	size_t n, cap;
};

static void lines_free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		json_object_put(l->o[i]);
	free(l->o);
	l->o = NULL;
	l->n = l->cap = 0;
}

static int lines_push(struct lines *l, json_object *o)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		json_object **p = realloc(l->o, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->o = p;
		l->cap = cap;
	}
	l->o[l->n++] = o;
	return 0;
}

/* A line of a relay's push on (side "relay"). */
static bool relay_line(json_object *o)
{
	const char *side = rp_render_str(o, "side");

	return side && !strcmp(side, "relay");
}

/* A session of a file: the lines of all whose side is (relay) or is not
 * (!relay) "relay", of pid only unless pid is 0; each a reference. */
static int lines_pick(struct lines *l, const struct lines *all, bool relay,
		      int64_t pid)
{
	size_t i;

	for (i = 0; i < all->n; i++) {
		json_object *o = all->o[i];
		int64_t p = 0;

		(void)rp_render_int(o, "pid", &p);
		if (relay_line(o) != relay || (pid && p != pid))
			continue;
		if (lines_push(l, json_object_get(o))) {
			json_object_put(o);
			return -ENOMEM;
		}
	}
	return 0;
}

static bool has_relay(const struct lines *all)
{
	size_t i;

	for (i = 0; i < all->n; i++)
		if (relay_line(all->o[i]))
			return true;
	return false;
}

static int read_lines(const char *path, struct lines *l)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	long ln = 0;
	int rc = 0;

	if (!f) {
		rc = -errno;
		fail("cannot open %s: %s", path, strerror(-rc));
		return rc;
	}
	errno = 0;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		json_object *o;
		const char *kind;

		ln++;
		if (strspn(buf, " \t\r\n") == (size_t)len)
			continue;
		o = parse_line(path, ln, buf, (size_t)len);
		if (!o) {
			rc = RP_EPROTO;
			break;
		}
		rc = check_line(path, ln, o, &kind);
		if (rc >= 0)
			rc = lines_push(l, o);
		if (rc < 0) {
			json_object_put(o);
			break;
		}
	}
	if (!rc && ferror(f)) {
		rc = errno ? -errno : -EIO;
		fail("cannot read %s: %s", path, strerror(-rc));
	}
	free(buf);
	fclose(f);
	if (!rc && !l->n) {
		fail("%s: no events: not an rdmapush --trace-json file", path);
		rc = RP_EPROTO;
	}
	return rc;
}

static const char *line_str(json_object *o, const char *k)
{
	return rp_render_str(o, k);
}

static int64_t line_pid(json_object *o)
{
	int64_t pid = 0;

	(void)rp_render_int(o, "pid", &pid);
	return pid;
}

static bool is_hello(json_object *o)
{
	json_object *f;
	const char *type;

	if (strcmp(line_str(o, "kind"), "msg"))
		return false;
	if (!json_object_object_get_ex(o, "f", &f))
		return false;
	type = rp_render_str(f, "type");
	return type && !strcmp(type, "HELLO");
}

/* An rdmapush ping's trace: its HELLO carries the ping flag. */
static bool is_ping(const struct lines *l, int64_t pid)
{
	for (size_t i = 0; i < l->n; i++) {
		json_object *f = NULL, *b = NULL;

		if (!is_hello(l->o[i]) || line_pid(l->o[i]) != pid)
			continue;
		(void)json_object_object_get_ex(l->o[i], "f", &f);
		return json_object_object_get_ex(f, "ping", &b) &&
		       json_object_get_boolean(b);
	}
	return false;
}

/*
 * The transfer to draw: a receiver's file holds one per child (pid).
 * Keep the pid of the first HELLO; 0 when the file has no HELLO.
 */
static int64_t pick_pid(const struct lines *l, size_t *transfers)
{
	int64_t first = 0, last = 0;
	size_t i;

	*transfers = 0;
	for (i = 0; i < l->n; i++) {
		int64_t pid = line_pid(l->o[i]);

		if (!is_hello(l->o[i]) || (*transfers && pid == last))
			continue;
		if (!*transfers)
			first = pid;
		if (pid != last)
			(*transfers)++;
		last = pid;
	}
	return *transfers ? first : 0;
}

/* --- one side's events --------------------------------------------------- */

static int push_ev(struct rr_side *s, const struct rr_ev *e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 128;
		struct rr_ev *p = realloc(s->ev, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->ev = p;
		s->cap = cap;
	}
	s->ev[s->n++] = *e;
	return 0;
}

/* post/wc are not drawn one by one: counted for a data row's fallback. */
static void count_datapath(struct rr_side *s, const char *kind,
			   json_object *f, double t)
{
	const char *op = rp_render_str(f, "op");

	if (!strcmp(kind, "post") && op && strcmp(op, "RECV")) {
		if (!strcmp(op, "RDMA_READ"))
			s->posts_read++;
		else if (strstr(op, "IMM") && s->role[0] == 'r')
			s->posts_credit++;
		else
			s->posts_data++;
		if (!s->seen_post)
			s->data_t0 = t;
		s->seen_post = true;
	}
	if (!strcmp(kind, "wc") && s->seen_post)
		s->data_t1 = t;
}

/* What the packet lane ties packets to: the side's QPNs, its GID, and
 * the data-path posts the trace kept, each with its completion. */
static void note_wire(struct rr_side *s, const char *kind, json_object *f,
		      double t)
{
	const char *op = rp_render_str(f, "op");
	int64_t q, qpn, wr;

	if (!strcmp(kind, "device.open")) {
		s->gid = rp_render_str(f, "gid");
	} else if (!strcmp(kind, "qp.state") && rp_render_int(f, "qp", &q) &&
		   rp_render_int(f, "qpn", &qpn) && q >= 0 &&
		   q < RR_MAX_QPS) {
		s->qpn[q] = (uint32_t)qpn;
		s->has_qpn |= 1u << q;
	} else if (!strcmp(kind, "post") && op && strcmp(op, "RECV") &&
		   s->nposts < RR_MAX_POSTS && rp_render_int(f, "wr_id", &wr) &&
		   rp_render_int(f, "qp", &q)) {
		s->post[s->nposts++] = (struct rr_post){
			.t = t, .wc_t = -1, .op = op, .wr_id = (uint64_t)wr,
			.length = rp_render_iv(f, "length"), .qp = (int)q };
	} else if (!strcmp(kind, "wc") && rp_render_int(f, "wr_id", &wr) &&
		   rp_render_int(f, "qp", &q)) {
		for (size_t i = 0; i < s->nposts; i++)
			if (s->post[i].wr_id == (uint64_t)wr &&
			    s->post[i].qp == q && s->post[i].wc_t < 0) {
				s->post[i].wc_t = t;
				break;
			}
	}
}

/* "msg.qps" carries QP1.. of the HELLO or MR just before it. */
static void attach_more(struct rr_side *s, json_object *f)
{
	const char *type = rp_render_str(f, "type");
	size_t i;

	for (i = s->n; type && i-- > 0;)
		if (s->ev[i].kind == RR_MSG && !strcmp(s->ev[i].type, type)) {
			s->ev[i].more = f;
			return;
		}
}

/* Keeps the phase names' changes only: a run of files may repeat one. */
static bool same_phase(const struct rr_side *s, json_object *f)
{
	const char *p = rp_render_str(f, "phase");
	size_t i;

	for (i = s->n; i-- > 0;)
		if (s->ev[i].kind == RR_PHASE) {
			const char *q = rp_render_str(s->ev[i].f, "phase");

			return p && q && !strcmp(p, q);
		}
	return false;
}

/* What the data block needs beside the events drawn: the totals a data
 * phase cut short leaves (no data.summary then), the last being kept. */
static void note_data(struct rr_side *s, const char *kname, json_object *f)
{
	if (!strcmp(kname, "datapath.summary"))
		s->datapath = f;
	else if (!strcmp(kname, "data.progress"))
		s->progress = f;
}

/* The sender's first chunk posted: where its data phase begins. */
static bool first_chunk(const struct rr_side *s, bool sender,
			const char *kname, json_object *f)
{
	const char *op = rp_render_str(f, "op");

	return sender && !s->seen_post && !strcmp(kname, "post") && op &&
	       strcmp(op, "RECV");
}

/* The time of pid's first line in all: 0 on its side's clock. */
static double first_t(const struct lines *all, int64_t pid)
{
	size_t i;

	for (i = 0; i < all->n; i++)
		if (line_pid(all->o[i]) == pid)
			return num(all->o[i], "t", 0);
	return 0;
}

/* The session l of a file all (a relay's two share its pid and clock:
 * the times count from its first line). */
static int build_side(struct rr_side *s, const struct lines *l,
		      const struct lines *all, int64_t pid, bool sender)
{
	double t0 = first_t(all, pid);
	size_t i;
	int rc;

	for (i = 0; i < l->n; i++) {
		json_object *o = l->o[i], *f = NULL;
		const char *kname = line_str(o, "kind");
		struct rr_ev e = { .type_id = -1, .match = -1, .row = -1,
				   .fold_head = -1, .fold_last = -1 };
		int64_t q;
		int k;

		if (line_pid(o) != pid)
			continue;
		(void)json_object_object_get_ex(o, "f", &f);
		e.t = num(o, "t", t0) - t0;
		if (first_chunk(s, sender, kname, f)) {
			struct rr_ev c = e;

			c.kind = RR_FIRST_CHUNK;
			c.f = f;
			c.line = o;
			rc = push_ev(s, &c);
			if (rc)
				return rc;
		}
		count_datapath(s, kname, f, e.t);
		note_data(s, kname, f);
		note_wire(s, kname, f, e.t);
		if (!strcmp(kname, "msg.qps"))
			attach_more(s, f);
		k = kind_of(kname);
		if (k < 0)
			continue;
		e.kind = (enum rr_kind)k;
		e.f = f;
		e.line = o;
		if (e.kind == RR_MSG) {
			const char *dir = rp_render_str(f, "dir");

			e.type = rp_render_str(f, "type");
			if (!e.type || !dir)
				continue;
			e.out = !strcmp(dir, "out");
		}
		if (e.kind == RR_PHASE && same_phase(s, f))
			continue;
		if (e.kind == RR_SUMMARY && s->summary < 0)
			s->summary = (long)s->n;
		if (rp_render_int(f, "qp", &q) && q >= 0 && q < RR_MAX_QPS &&
		    (unsigned)q + 1 > s->qps)
			s->qps = (unsigned)q + 1;
		rc = push_ev(s, &e);
		if (rc)
			return rc;
	}
	return 0;
}

static bool qp_event(const struct rr_ev *e)
{
	return e->kind == RR_QP_CREATE || e->kind == RR_QP_MODIFY ||
	       e->kind == RR_QP_ERROR || e->kind == RR_QP_DESTROY;
}

/* Same step: same kind and, for qp.modify, the same target state. */
static bool alike(const struct rr_ev *a, const struct rr_ev *b)
{
	const char *x = rp_render_str(a->f, "to");
	const char *y = rp_render_str(b->f, "to");

	return a->kind == b->kind &&
	       (a->kind != RR_QP_MODIFY || (x && y && !strcmp(x, y)));
}

#define FOLD_STEPS	16	/* steps per QP in one run that can fold */

/*
 * With --qps N each step is taken N times in a row (create all, INIT
 * all, then RTR and RTS QP by QP): in a run of QP events, each QP's k-th
 * step shares the row of the first QP's k-th step when alike, so the
 * picture does not grow by N rows per step. Bands keep each QP's own.
 */
static void fold_run(struct rr_side *s, size_t from, size_t to)
{
	long head[FOLD_STEPS];
	unsigned steps[RR_MAX_QPS] = { 0 };
	size_t i;

	for (i = 0; i < FOLD_STEPS; i++)
		head[i] = -1;
	for (i = from; i < to; i++) {
		struct rr_ev *e = &s->ev[i];
		int64_t q;
		unsigned k;

		if (!rp_render_int(e->f, "qp", &q) || q < 0 || q >= RR_MAX_QPS)
			continue;
		k = steps[q]++;
		if (k >= FOLD_STEPS)
			continue;
		if (head[k] < 0) {
			head[k] = (long)i;
		} else if (alike(&s->ev[head[k]], e)) {
			e->fold_head = head[k];
			s->ev[head[k]].fold_last = (long)i;
		}
	}
}

static void fold_qps(struct rr_side *s)
{
	size_t i = 0, j;

	while (i < s->n) {
		for (j = i; j < s->n && qp_event(&s->ev[j]); j++)
			;
		if (j > i + 1)
			fold_run(s, i, j);
		i = j > i ? j : i + 1;
	}
}

/* --- the command --------------------------------------------------------- */

static bool has_hello(const struct rr_side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].kind == RR_MSG && !strcmp(s->ev[i].type, "HELLO"))
			return true;
	return false;
}

/* The qpn of the first HELLO with dir in l (of pid, unless pid < 0) at
 * or after line *from; *from becomes the line after it. */
static bool hello_qpn(const struct lines *l, int64_t pid, const char *dir,
		      int64_t *qpn, size_t *from)
{
	size_t i;

	for (i = *from; i < l->n; i++) {
		json_object *f = NULL;
		const char *d;

		if (!is_hello(l->o[i]) || (pid >= 0 && line_pid(l->o[i]) != pid))
			continue;
		(void)json_object_object_get_ex(l->o[i], "f", &f);
		d = rp_render_str(f, "dir");
		if (d && !strcmp(d, dir) && rp_render_int(f, "qpn", qpn)) {
			*from = i + 1;
			return true;
		}
	}
	*from = l->n;
	return false;
}

/*
 * A file with several transfers (a receiver's, one child each): draw the
 * one whose HELLO came from the other side's QP, else the first. Returns
 * that QPN, or -1 when none matched.
 */
static int64_t choose_transfer(const struct lines l[2], int64_t pid[2],
			       int side)
{
	size_t at = 0, from = 0;
	int64_t qpn, mine;

	if (hello_qpn(&l[!side], pid[!side], "out", &qpn, &at))
		while (hello_qpn(&l[side], -1, "in", &mine, &from))
			if (mine == qpn) {
				pid[side] = line_pid(l[side].o[from - 1]);
				return qpn;
			}
	return -1;
}

/* Which of a file's transfers is drawn: said once the two traces pair. */
static void say_transfer(const char *path[2], const int64_t pid[2], int side,
			 size_t transfers, int64_t qpn)
{
	if (qpn >= 0)
		fprintf(stderr, "rdmapush render: %s holds %zu transfers; "
			"drawing pid %" PRId64 ", whose HELLO came from QPN "
			"0x%" PRIx64 " of %s\n", path[side], transfers,
			pid[side], (uint64_t)qpn, path[!side]);
	else
		fprintf(stderr, "rdmapush render: %s holds %zu transfers; "
			"drawing the first (pid %" PRId64 ")\n", path[side],
			transfers, pid[side]);
}

/* --- do the two traces belong together? -------------------------------- */

/* The sides render draws: a push's two ends, or a ping's. */
static const struct {
	const char *side;
	const char *what;	/* "X is <what>" */
	bool ping;
	bool sender;		/* drawn on the left */
} ends[] = {
	{ "send", "a push sender's trace", false, true },
	{ "recv", "a file receiver's trace", false, false },
	{ "ping", "a ping client's trace", true, true },
	{ "ping-server", "a ping server's trace", true, false },
	{ "relay", "a relay's push on", false, true },
};

static int end_of(const char *side)
{
	size_t i;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(ends[i].side, side))
			return (int)i;
	return -1;
}

/* "a ping client's trace", or for a side render does not know, its
 * name (the file's own words: escaped for the terminal). */
static const char *end_text(const char *side, char *buf, size_t len)
{
	char shown[RP_PEER_TEXT_MAX];
	int i = end_of(side);

	if (i >= 0)
		return ends[i].what;
	snprintf(buf, len, "a trace of side \"%s\"",
		 rp_fmt_peer(shown, sizeof(shown), side, strlen(side)));
	return buf;
}

/*
 * One sender and its receiver, or a ping's client and its server: each
 * line's "side" says which. *swap: 1 when the receiver's file came first.
 */
static int check_sides(const char *path[2], const struct lines l[2],
		       int *swap)
{
	const char *r0 = line_str(l[0].o[0], "side");
	const char *r1 = line_str(l[1].o[0], "side");
	char a[RP_PEER_TEXT_MAX + 32], b[RP_PEER_TEXT_MAX + 32];
	int e0, e1;

	r0 = r0 ? r0 : "?";
	r1 = r1 ? r1 : "?";
	if (!strcmp(r0, r1)) {
		char shown[RP_PEER_TEXT_MAX];

		/* The file's own words: escaped for the terminal. */
		fail("%s and %s are both from the %s side: give the "
		     "sender's trace, then the receiver's", path[0], path[1],
		     rp_fmt_peer(shown, sizeof(shown), r0, strlen(r0)));
		return RP_EPROTO;
	}
	e0 = end_of(r0);
	e1 = end_of(r1);
	if (e0 < 0 || e1 < 0 || ends[e0].ping != ends[e1].ping ||
	    ends[e0].sender == ends[e1].sender) {
		fail("%s is %s and %s is %s: not the two ends of one session",
		     path[0], end_text(r0, a, sizeof(a)), path[1],
		     end_text(r1, b, sizeof(b)));
		return RP_EPROTO;
	}
	/* Given the other way round: the sender still goes left. */
	*swap = !ends[e0].sender;
	return 0;
}

/* The first HELLO with dir of pid in l and its "msg.qps" (QP1..), if any. */
static json_object *first_hello(const struct lines *l, int64_t pid,
				const char *dir, json_object **more)
{
	json_object *hello = NULL;
	size_t i;

	*more = NULL;
	for (i = 0; i < l->n; i++) {
		json_object *o = l->o[i], *f = NULL;
		const char *d, *k = line_str(o, "kind");

		if (line_pid(o) != pid)
			continue;
		(void)json_object_object_get_ex(o, "f", &f);
		d = rp_render_str(f, "dir");
		if (!d || strcmp(d, dir))
			continue;
		if (!hello && is_hello(o)) {
			hello = f;
		} else if (hello && !strcmp(k, "msg.qps")) {
			const char *t = rp_render_str(f, "type");

			if (t && !strcmp(t, "HELLO"))
				*more = f;
			break;
		} else if (hello && !strcmp(k, "msg")) {
			break;
		}
	}
	return hello;
}

/* A field's value as the message names it: QPN and PSN in hex. */
static void field_text(const char *k, json_object *v, char *buf, size_t len)
{
	const char *s;
	size_t n = strlen(k);

	if (!v) {
		snprintf(buf, len, "(none)");
		return;
	}
	if (json_object_is_type(v, json_type_int) && n >= 3 &&
	    (!strcmp(k + n - 3, "qpn") || !strcmp(k + n - 3, "psn"))) {
		snprintf(buf, len, "0x%" PRIx64,
			 (uint64_t)json_object_get_int64(v));
		return;
	}
	s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	/* The file's own words: escaped for the terminal. */
	rp_fmt_peer(buf, len, s, strlen(s));
}

/* Appends "k a vs b" for each field of a that b lacks or holds another
 * value in; counts them in *n (listed up to 3). */
static void diff_fields(json_object *a, json_object *b, bool a_sent,
			char *out, size_t len, int *n)
{
	json_object_object_foreach(a, k, va) {
		json_object *vb = NULL;
		char x[96], y[96];
		size_t used = strlen(out);

		if (!strcmp(k, "dir"))
			continue;
		if (b && json_object_object_get_ex(b, k, &vb) &&
		    json_object_equal(va, vb))
			continue;
		/* Fields b has and a lacks are found from b's side. */
		if (!a_sent && b && json_object_object_get_ex(b, k, NULL))
			continue;
		if ((*n)++ >= 3)
			continue;
		field_text(k, a_sent ? va : vb, x, sizeof(x));
		field_text(k, a_sent ? vb : va, y, sizeof(y));
		snprintf(out + used, len - used, "%s%s %s vs %s",
			 used ? ", " : "", k, x, y);
	}
}

/*
 * The receiver got the sender's HELLO as it was sent (docs/trace.md: the
 * k-th "out" of a type is the other side's k-th "in", with the same
 * fields). The QP count first, since it changes the whole picture. A
 * receiver's file of several transfers (found: one of them received a
 * HELLO from the sender's QPN) is told apart by its QPN alone.
 */
static int check_hello(const char *path[2], const struct lines l[2],
		       const int64_t pid[2], int swap, size_t transfers,
		       bool found)
{
	int snd = swap, rcv = !swap, n = 0;
	json_object *out, *in, *out_more, *in_more;
	int64_t qo = 1, qi = 1;
	char diff[512] = "";

	out = first_hello(&l[snd], pid[snd], "out", &out_more);
	in = first_hello(&l[rcv], pid[rcv], "in", &in_more);
	if (!out || !in)
		return 0;	/* a trace cut short: drawn, with stubs */
	if (transfers > 1 && !found) {
		char q[32];

		fail("none of the %zu transfers in %s received the HELLO %s "
		     "sent (qpn %s): not one session", transfers, path[rcv],
		     path[snd], rp_render_hex(out, "qpn", q, sizeof(q)));
		return RP_EPROTO;
	}
	(void)rp_render_int(out, "qps", &qo);
	(void)rp_render_int(in, "qps", &qi);
	if (qo != qi) {
		fail("%s sent a HELLO for %" PRId64 " QP%s, %s received one "
		     "for %" PRId64 " QP%s: not one session", path[snd], qo,
		     rp_s(qo), path[rcv], qi, rp_s(qi));
		return RP_EPROTO;
	}
	diff_fields(out, in, true, diff, sizeof(diff), &n);
	diff_fields(in, out, false, diff, sizeof(diff), &n);
	if (out_more && in_more) {
		diff_fields(out_more, in_more, true, diff, sizeof(diff), &n);
		diff_fields(in_more, out_more, false, diff, sizeof(diff), &n);
	}
	if (!n)
		return 0;
	fail("the HELLO %s sent is not the one %s received (%s%s): not one "
	     "session", path[snd], path[rcv], diff, n > 3 ? ", ..." : "");
	return RP_EPROTO;
}

/*
 * One pair of sessions: l[0] from path[0], l[1] from path[1], each a
 * session of its whole file all[i]. In a chain (more than two files) the
 * sender's must come first.
 */
static int load(struct rr_diagram *d, const char *path[2],
		const struct lines l[2], const struct lines *all[2], bool chain)
{
	int side, rc, swap = 0;
	size_t many[2];
	int64_t pid[2], qpn[2] = { -1, -1 };

	for (side = 0; side < 2; side++) {
		size_t transfers;

		pid[side] = pick_pid(&l[side], &transfers);
		if (!transfers) {
			fail("%s: no HELLO message: the session never reached "
			     "its handshake, so there is nothing to pair",
			     path[side]);
			return RP_EPROTO;
		}
		many[side] = transfers;
	}
	rc = check_sides(path, l, &swap);
	if (rc)
		return rc;
	if (chain && swap) {
		fail("%s comes before %s, the trace of its sender: give the "
		     "traces in chain order, the origin's first", path[0],
		     path[1]);
		return RP_EPROTO;
	}
	for (side = 0; side < 2; side++)
		if (many[side] > 1)
			qpn[side] = choose_transfer(l, pid, side);
	rc = check_hello(path, l, pid, swap, many[!swap], qpn[!swap] >= 0);
	if (rc)
		return rc;
	for (side = 0; side < 2; side++)
		if (many[side] > 1)
			say_transfer(path, pid, side, many[side], qpn[side]);
	d->ping = is_ping(&l[0], pid[0]);
	for (side = 0; side < 2; side++) {
		struct rr_side *s = &d->s[side ^ swap];
		const char *role = line_str(l[side].o[0], "side");

		s->path = path[side];
		s->pid = pid[side];
		snprintf(s->role, sizeof(s->role), "%s", role ? role : "?");
		s->summary = -1;
		rc = build_side(s, &l[side], all[side], pid[side],
				(side ^ swap) == RR_SEND);
		if (rc)
			return rc;
		fold_qps(s);
		if (!has_hello(s)) {
			fail("%s: no HELLO message in pid %" PRId64, path[side],
			     pid[side]);
			return RP_EPROTO;
		}
	}
	return 0;
}

/* One pair's picture (d[0]), or a chain's (n pairs). */
static int write_svg(FILE *f, const struct rr_diagram *d, size_t n)
{
	return n == 1 ? rp_render_write_svg(f, d) :
			rp_render_write_chain_svg(f, d, n);
}

static int write_atomic(const struct rr_diagram *d, size_t n,
			const char *out)
{
	size_t len = strlen(out);
	char *tmp = malloc(len + 8);
	mode_t mask;
	FILE *f;
	int fd, rc;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 8, "%s.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		fail("cannot write %s: %s", out, strerror(-rc));
		free(tmp);
		return rc;
	}
	mask = umask(0);
	umask(mask);
	(void)!fchmod(fd, 0666 & ~mask);
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		goto err_unlink;
	}
	rc = write_svg(f, d, n);
	if (fflush(f) && !rc)
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, out))
		rc = -errno;
	if (!rc) {
		free(tmp);
		return 0;
	}
err_unlink:
	fail("cannot write %s: %s", out, strerror(-rc));
	unlink(tmp);
	free(tmp);
	return rc;
}

/*
 * One file of the command line: all its lines, its session facing the
 * file before it (up: all but a relay's lines) and the one facing the
 * file after it (down: a relay's lines if it has any, else as up; a
 * middle file's, of one pid, are picked by middle_node()).
 */
struct node {
	struct lines all, up, down;
};

static void node_free(struct node *nd)
{
	lines_free(&nd->all);
	lines_free(&nd->up);
	lines_free(&nd->down);
}

static int read_node(const char *path, struct node *nd, bool up, bool down)
{
	int rc = read_lines(path, &nd->all);
	bool relay;

	if (rc)
		return rc;
	relay = has_relay(&nd->all);
	if (up && down && !relay) {
		fail("%s: no relay session (side \"relay\"): a trace between "
		     "two others is a relaying receiver's (recv --relay), in "
		     "chain order", path);
		return RP_EPROTO;
	}
	if (up)
		rc = lines_pick(&nd->up, &nd->all, false, 0);
	if (!rc && down && !up)
		rc = lines_pick(&nd->down, &nd->all, relay, 0);
	if (rc)
		fail("out of memory");
	return rc;
}

/* A node in the middle of a chain: its push on is the one of the
 * process whose receipt the pair before it drew. */
static int middle_node(const char *path, struct node *nd, int64_t pid)
{
	int rc = lines_pick(&nd->down, &nd->all, true, pid);
	if (rc) {
		fail("out of memory");
		return rc;
	}
	if (!nd->down.n) {
		fail("%s: no relay session in pid %" PRId64 ", the receipt "
		     "drawn", path, pid);
		return RP_EPROTO;
	}
	return 0;
}

/* A capture rather than a trace: a pcap file's magic number (either
 * byte order, micro- or nanosecond). An unreadable file is left to the
 * trace reader to report. */
static bool is_pcap(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(m, 1, 4, f) == 4 &&
	      ((m[0] == 0xa1 && m[1] == 0xb2 && (m[2] == 0xc3 || m[2] == 0x3c)
		&& m[3] == 0xd4) ||
	       (m[3] == 0xa1 && m[2] == 0xb2 && (m[1] == 0xc3 || m[1] == 0x3c)
		&& m[0] == 0xd4));
	fclose(f);
	return yes;
}

/* The traces of paths in order, and at most one capture among them
 * (*pcap, or NULL). n is what remains. */
static int split_capture(const char *const *paths, size_t *n,
			 const char **trace, const char **pcap)
{
	size_t k = 0;

	*pcap = NULL;
	for (size_t i = 0; i < *n; i++) {
		if (!is_pcap(paths[i])) {
			if (k < RP_RENDER_MAX_TRACES)
				trace[k] = paths[i];
			k++;
			continue;
		}
		if (*pcap) {
			fail("%s and %s are both captures: give one, beside "
			     "the two traces of its session", *pcap, paths[i]);
			return RP_EUSAGE;
		}
		*pcap = paths[i];
	}
	*n = k;
	if (*pcap && k != 2) {
		fail("%s: a capture goes beside the two traces of its "
		     "session (a sender's and its receiver's), not %zu", *pcap,
		     k);
		return RP_EUSAGE;
	}
	return 0;
}

int rp_render_chain(const char *const *all_paths, size_t n, const char *out)
{
	struct node nd[RP_RENDER_MAX_TRACES] = { 0 };
	struct rr_diagram d[RP_RENDER_MAX_TRACES - 1];
	const char *paths[RP_RENDER_MAX_TRACES], *pcap;
	size_t i, pairs = 0;
	int rc;

	rc = split_capture(all_paths, &n, paths, &pcap);
	if (rc)
		return rc;
	if (n < 2 || n > RP_RENDER_MAX_TRACES) {
		fail("%zu traces: give 2 to %d", n, RP_RENDER_MAX_TRACES);
		return -EINVAL;
	}
	for (i = 0; i < n && !rc; i++)
		rc = read_node(paths[i], &nd[i], i > 0, i + 1 < n);
	for (i = 0; i + 1 < n && !rc; i++) {
		const char *path[2] = { paths[i], paths[i + 1] };
		const struct lines l[2] = { nd[i].down, nd[i + 1].up };
		const struct lines *all[2] = { &nd[i].all, &nd[i + 1].all };

		d[i] = (struct rr_diagram){ .data_row = -1 };
		pairs++;
		rc = load(&d[i], path, l, all, n > 2);
		if (!rc && i + 2 < n)
			rc = middle_node(paths[i + 1], &nd[i + 1],
					 d[i].s[RR_RECV].pid);
		if (!rc && rp_render_merge(&d[i])) {
			fail("out of memory");
			rc = -ENOMEM;
		}
		if (!rc && pcap)
			rc = rp_render_wire_load(&d[i], pcap);
		if (!rc)
			rp_render_layout(&d[i]);
	}
	if (rc)
		goto out;
	if (!strcmp(out, "-")) {
		rc = write_svg(stdout, d, pairs);
		if (!rc && fflush(stdout))
			rc = -errno;
		if (rc)
			fail("cannot write the SVG to standard output: %s",
			     strerror(-rc));
	} else {
		rc = write_atomic(d, pairs, out);
	}
out:
	for (i = 0; i < pairs; i++) {
		rp_render_wire_free(&d[i]);
		free(d[i].s[0].ev);
		free(d[i].s[1].ev);
		free(d[i].rows);
	}
	for (i = 0; i < n; i++)
		node_free(&nd[i]);
	return rc;
}
