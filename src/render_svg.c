// SPDX-License-Identifier: MIT
/* rdmapush render's drawing: the merged rows as a standalone SVG (no
 * script, no external reference): title, legend, two lifelines (a
 * chain: one per node, each pair's rows in turn between its two), each
 * QP's state bands, the objects as markers, the messages as arrows, the
 * data phase and long runs of file messages as summary blocks. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "rdmapush/render.h"
#include "rdmapush/trace.h"
#include "render_int.h"

#define W		1300	/* picture width */
#define X_S		460	/* sender's lifeline */
#define X_R		840	/* receiver's lifeline */
#define TOP		196	/* first row */
#define MARK_DY		12	/* marker and band edges below a row's top */
#define ARROW_DY	32	/* arrow below a message row's top */
#define CHAR_W		6.4	/* average width of an 11px character */
#define MSG_CHARS	50	/* a message label between the lifelines */

static const char *const state_name[] = { "RESET", "INIT", "RTR", "RTS",
					  "ERROR" };
static const char *const state_color[] = { "#9e9e9e", "#fdd835", "#42a5f5",
					   "#43a047", "#e53935" };
#define NSTATES 5

static int state_of(const char *s)
{
	int i;

	for (i = 0; s && i < NSTATES; i++)
		if (!strcmp(s, state_name[i]))
			return i;
	return -1;
}

void rp_render_layout(struct rr_diagram *d)
{
	int y = TOP;
	size_t i;

	for (i = 0; i < d->nrows; i++) {
		struct rr_row *r = &d->rows[i];

		switch (r->kind) {
		case RR_ROW_LOCAL: r->h = 34; break;
		case RR_ROW_MSG: r->h = 42; break;
		case RR_ROW_DATA: r->h = 112; break;
		case RR_ROW_BLOCK: r->h = 100; break;
		case RR_ROW_HIDDEN: r->h = 0; break;
		}
		r->y = y;
		y += r->h;
	}
	/* A hidden row stands at its block's place (arrows, bands). */
	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].kind == RR_ROW_BLOCK) {
			long k;

			for (k = (long)i + 1; k <= d->rows[i].last; k++)
				d->rows[k].y = d->rows[i].y + d->rows[i].h / 2 -
					       MARK_DY;
		}
	d->height = y + 110 + rp_render_wire_height(d);
}

static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* <text> with escaped content cut at max characters (0: whole). */
static void text(FILE *f, double x, double y, const char *cls,
		 const char *anchor, const char *s, int max)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\"", x, y, cls);
	if (anchor)
		fprintf(f, " text-anchor=\"%s\"", anchor);
	fputc('>', f);
	rp_render_xml_text(f, s, max);
	if (max > 0 && utf8_len(s) > (size_t)max) {
		/* Cut: the whole text shows on hovering, no script needed. */
		fputs("<title>", f);
		rp_render_xml_text(f, s, 0);
		fputs("</title>", f);
	}
	fputs("</text>\n", f);
}

void rp_render_text(FILE *f, double x, double y, const char *cls,
		    const char *anchor, const char *s, int max)
{
	text(f, x, y, cls, anchor, s, max);
}

/* --- pieces -------------------------------------------------------------- */

/* "SENDER" or "receiver", or for a ping "CLIENT" or "server". */
static const char *head_name(const struct rr_diagram *d, int side,
			     bool caps)
{
	static const char *const names[2][2][2] = {
		{ { "sender", "receiver" }, { "SENDER", "RECEIVER" } },
		{ { "client", "server" }, { "CLIENT", "SERVER" } },
	};

	return names[d->ping][caps][side != RR_SEND];
}

static double lifeline(int side)
{
	return side == RR_SEND ? X_S : X_R;
}

double rp_render_lifeline(int side)
{
	return lifeline(side);
}

/* A QP's band column and the gap after it: narrower for many QPs, so
 * that the labels keep their room. */
static int band_step(const struct rr_diagram *d, int side)
{
	unsigned n = d->s[side].qps;

	return n <= 3 ? 22 : n <= 5 ? 15 : 11;
}

static int band_w(const struct rr_diagram *d, int side)
{
	return band_step(d, side) - (band_step(d, side) > 15 ? 6 : 3);
}

/* Left edge of QP q's band column. */
static double band_x(const struct rr_diagram *d, int side, unsigned q)
{
	int step = band_step(d, side);

	return side == RR_SEND ? X_S - 5 - band_w(d, side) - (double)q * step :
				 X_R + 5 + (double)q * step;
}

/* Where a side's local labels start (sender: end) and how many fit. */
static double label_x(const struct rr_diagram *d, int side)
{
	unsigned q = d->s[side].qps ? d->s[side].qps : 1;
	double w = (double)q * band_step(d, side);

	return side == RR_SEND ? X_S - 5 - w - 14 : X_R + 5 + w + 14;
}

static int label_chars(const struct rr_diagram *d, int side)
{
	double room = side == RR_SEND ? label_x(d, side) - 96 :
					W - 96 - label_x(d, side);

	return (int)(room / CHAR_W);
}

static const char style[] =
	"<style>\n"
	"text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; "
	"font-size: 11px; fill: #212121; }\n"
	".title { font-size: 20px; font-weight: bold; }\n"
	".sub { font-size: 12px; fill: #424242; }\n"
	".head { font-size: 15px; font-weight: bold; }\n"
	".small { font-size: 11px; fill: #424242; }\n"
	".tiny { font-size: 9px; fill: #616161; }\n"
	".time { font-family: 'DejaVu Sans Mono', monospace; font-size: 10px;"
	" fill: #757575; }\n"
	".ev { font-size: 12px; }\n"
	".det { font-size: 10.5px; fill: #555555; }\n"
	".phase { font-size: 11px; font-style: italic; fill: #6d4c41; }\n"
	".err { font-size: 12px; font-weight: bold; fill: #c62828; }\n"
	".msg { font-size: 12px; font-weight: bold; }\n"
	".blockhead { font-size: 14px; font-weight: bold; }\n"
	".outok { font-size: 15px; font-weight: bold; fill: #2e7d32; }\n"
	".outerr { font-size: 15px; font-weight: bold; fill: #c62828; }\n"
	".outno { font-size: 15px; font-weight: bold; fill: #757575; }\n"
	"</style>\n";

static void marker(FILE *f, const struct rr_ev *e, const char *side,
		   double x, double y);

/* The marker shapes, drawn as on the lifelines. */
static void legend_objects(FILE *f)
{
	static const struct {
		enum rr_kind kind;
		const char *name;
	} obj[] = { { RR_PD_ALLOC, "PD" }, { RR_MR_REG, "MR" },
		    { RR_CQ_CREATE, "CQ" }, { RR_QP_CREATE, "QP" },
		    { RR_DEVICE, "device" } };
	struct rr_ev e = { .kind = RR_PD_ALLOC };
	size_t i;

	text(f, 500, 84, "small", NULL, "objects:", 0);
	for (i = 0; i < sizeof(obj) / sizeof(obj[0]); i++) {
		e.kind = obj[i].kind;
		marker(f, &e, "legend", 565 + i * 66, 80);
		text(f, 575 + i * 66, 84, "small", NULL, obj[i].name, 0);
	}
	text(f, 900, 84, "small", NULL,
	     "filled: created · hollow: destroyed", 0);
}

/* Top right: how the session ended, from its last ACK or ERR, and how
 * many files a FACK refused (an ACK after them still says 0). */
static void outcome(FILE *f, const struct rr_diagram *d, double x, double y)
{
	const struct rr_ev *last = NULL;
	unsigned long failed = 0;
	char buf[160];
	int side;
	size_t i;

	for (side = 0; side < 2; side++)
		for (i = 0; i < d->s[side].n; i++) {
			const struct rr_ev *e = &d->s[side].ev[i];

			if (e->kind != RR_MSG)
				continue;
			if (!strcmp(e->type, "FACK") && e->out &&
			    rp_render_iv(e->f, "status"))
				failed++;
			if ((!strcmp(e->type, "ACK") ||
			     !strcmp(e->type, "ERR")) &&
			    (!last || !strcmp(e->type, "ERR")))
				last = e;
		}
	if (!last) {
		text(f, x, y, "outno", "end", "ended without ACK or ERR", 0);
		return;
	}
	snprintf(buf, sizeof(buf), "ended with %s: status %" PRId64 " (%s)%s",
		 last->type, rp_render_iv(last->f, "status"),
		 rp_render_sv(last->f, "status_name"), failed ? "," : "");
	text(f, x, y, strcmp(last->type, "ERR") &&
	     !rp_render_iv(last->f, "status") && !failed ? "outok" : "outerr",
	     "end", buf, 60);
	if (failed) {
		snprintf(buf, sizeof(buf), "but a FACK refused %lu file%s",
			 failed, rp_s(failed));
		text(f, x, y + 20, "outerr", "end", buf, 0);
	}
}

/* The QP state colours, then the marker shapes. */
static void legend(FILE *f)
{
	int i;

	text(f, 20, 84, "small", NULL, "QP state:", 0);
	for (i = 0; i < NSTATES; i++) {
		fprintf(f, "<rect class=\"legend\" x=\"%d\" y=\"73\" "
			"width=\"14\" height=\"14\" fill=\"%s\" "
			"stroke=\"#424242\" stroke-width=\"0.5\"/>\n",
			86 + i * 78, state_color[i]);
		text(f, 104 + i * 78, 84, "small", NULL, state_name[i], 0);
	}
	legend_objects(f);
}

/* A lifeline's head: its name and a line below. */
static void head_box(FILE *f, double x, const char *name, const char *sub)
{
	fprintf(f, "<rect x=\"%.0f\" y=\"138\" width=\"220\" "
		"height=\"40\" rx=\"6\" fill=\"#eceff1\" "
		"stroke=\"#37474f\"/>\n", x - 110);
	text(f, x, 156, "head", "middle", name, 0);
	text(f, x, 172, "small", "middle", sub, 34);
}

/* Above a side's band columns: their numbers, and "QP" once beyond
 * narrow ones. */
static void qp_labels(FILE *f, const struct rr_diagram *d, int side)
{
	const struct rr_side *s = &d->s[side];
	char buf[16];
	unsigned q;

	for (q = 0; q < s->qps; q++) {
		snprintf(buf, sizeof(buf), "%s%u", band_step(d, side) > 15 ?
			 "QP" : "", q);
		text(f, band_x(d, side, q) + band_w(d, side) / 2.0, TOP - 4,
		     "tiny", "middle", buf, 0);
	}
	if (s->qps && band_step(d, side) <= 15)
		text(f, band_x(d, side, s->qps - 1) +
		     (side == RR_SEND ? -4 : band_w(d, side) + 4), TOP - 4,
		     "tiny", side == RR_SEND ? "end" : "start", "QP", 0);
}

/* The picture's frame: its size, its title, the style, a white page. */
static void page_open(FILE *f, int width, int height, const char *title)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, height, width,
		height);
	fprintf(f, "<title>%s</title>\n", title);
	fputs(style, f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		width, height);
}

/* A lifeline's name again at its foot. */
static void foot_box(FILE *f, double x, int bottom, const char *name)
{
	fprintf(f, "<rect x=\"%.0f\" y=\"%d\" width=\"160\" "
		"height=\"28\" rx=\"6\" fill=\"#eceff1\" "
		"stroke=\"#37474f\"/>\n", x - 80, bottom);
	text(f, x, bottom + 19, "head", "middle", name, 0);
}

static void header(FILE *f, const struct rr_diagram *d)
{
	char buf[512];
	int side;

	snprintf(buf, sizeof(buf), "rdmapush %s: %s and %s",
		 d->ping ? "ping" : "session", head_name(d, 0, false),
		 head_name(d, 1, false));
	page_open(f, W, d->height, buf);
	text(f, 20, 32, "title", NULL, d->ping ?
	     "rdmapush ping: the client times round trips, the server answers" :
	     "rdmapush session: the sender pushes, the receiver stores", 0);
	snprintf(buf, sizeof(buf), "%s trace %s (pid %" PRId64
		 ") · %s trace %s (pid %" PRId64 ")", head_name(d, 0, false),
		 d->s[0].path, d->s[0].pid, head_name(d, 1, false),
		 d->s[1].path, d->s[1].pid);
	text(f, 20, 54, "sub", NULL, buf, 130);
	outcome(f, d, W - 20, 32);
	legend(f);
	text(f, 20, 106, "small", NULL, "Time flows down. Rows follow the "
	     "messages (each arrives below where it left); the two hosts' "
	     "clocks are unrelated, so each side's time is its own: ms since "
	     "its first event.", 0);
	text(f, 20, 124, "small", NULL, "Arrows are control messages over "
	     "TCP (QPN, PSN and rkey in hex); the data itself moves by RDMA, "
	     "summarised in the blue block.", 0);
	for (side = 0; side < 2; side++) {
		const struct rr_side *s = &d->s[side];

		snprintf(buf, sizeof(buf), "side \"%s\" · pid %" PRId64,
			 s->role, s->pid);
		head_box(f, lifeline(side), head_name(d, side, true), buf);
		qp_labels(f, d, side);
	}
}

/* A marker on the lifeline: shape by object, filled when created. */
static void marker(FILE *f, const struct rr_ev *e, const char *side,
		   double x, double y)
{
	const char *fill = "#263238", *shape = NULL;
	char p[160];

	switch (e->kind) {
	case RR_PD_DEALLOC: case RR_MR_DEREG: case RR_CQ_DESTROY:
	case RR_QP_DESTROY:
		fill = "#ffffff";
		break;
	case RR_QP_ERROR:
		fill = state_color[4];
		break;
	default:
		break;
	}
	switch (e->kind) {
	case RR_PD_ALLOC: case RR_PD_DEALLOC:
		snprintf(p, sizeof(p), "<rect x=\"%.1f\" y=\"%.1f\" "
			 "width=\"10\" height=\"10\"", x - 5, y - 5);
		shape = "pd";
		break;
	case RR_MR_REG: case RR_MR_DEREG:
		snprintf(p, sizeof(p), "<path d=\"M%.1f,%.1f l6,6 l-6,6 l-6,-6 "
			 "z\"", x, y - 6);
		shape = "mr";
		break;
	case RR_CQ_CREATE: case RR_CQ_DESTROY:
		snprintf(p, sizeof(p), "<circle cx=\"%.1f\" cy=\"%.1f\" "
			 "r=\"5.5\"", x, y);
		shape = "cq";
		break;
	case RR_QP_CREATE: case RR_QP_DESTROY: case RR_QP_MODIFY:
	case RR_QP_ERROR:
		snprintf(p, sizeof(p), "<path d=\"M%.1f,%.1f l6,10 l-12,0 z\"",
			 x, y - 6);
		shape = "qp";
		break;
	case RR_DEVICE:
		snprintf(p, sizeof(p), "<path d=\"M%.1f,%.1f l5,3 l0,6 l-5,3 "
			 "l-5,-3 l0,-6 z\"", x, y - 6);
		shape = "device";
		break;
	default:
		return;
	}
	if (e->kind == RR_QP_MODIFY)
		fill = state_color[state_of(rp_render_str(e->f, "to")) < 0 ? 0 :
				   state_of(rp_render_str(e->f, "to"))];
	fprintf(f, "%s class=\"obj obj-%s\" data-side=\"%s\" fill=\"%s\" "
		"stroke=\"#263238\" stroke-width=\"1.2\"/>\n", p, shape, side,
		fill);
}

static void time_label(FILE *f, int side, const struct rr_ev *e, double y)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.3f ms", e->t * 1e3);
	text(f, side == RR_SEND ? 16 : W - 16, y, "time",
	     side == RR_SEND ? "start" : "end", buf, 0);
}

/* A long label with no detail line goes on in the detail line. */
static void wrap(char *m, char *det, size_t len, int chars)
{
	size_t n = strlen(m), cut;

	if (det[0] || n <= (size_t)chars || chars < 10)
		return;
	for (cut = (size_t)chars; cut > (size_t)chars / 2; cut--)
		if (m[cut] == ' ')
			break;
	if (m[cut] != ' ')
		return;
	snprintf(det, len, "%s", m + cut + 1);
	m[cut] = '\0';
}

static void local_event(FILE *f, const struct rr_diagram *d, int side,
			const struct rr_ev *e, const struct rr_row *r)
{
	const char *anchor = side == RR_SEND ? "end" : "start";
	const char *cls = e->kind == RR_ERROR ? "err" :
			  e->kind == RR_PHASE ? "phase" : "ev";
	double x = label_x(d, side), y = r->y + MARK_DY;
	char m[320], det[320];

	rp_render_local_label(&d->s[side], e, m, det, sizeof(m));
	wrap(m, det, sizeof(det), label_chars(d, side));
	marker(f, e, side == RR_SEND ? "send" : "recv", lifeline(side), y);
	time_label(f, side, e, y + 4);
	text(f, x, y + 4, cls, anchor, m, label_chars(d, side));
	if (det[0])
		text(f, x, y + 17, "det", anchor, det,
		     label_chars(d, side) + 8);
}

/* --- messages ------------------------------------------------------------ */

static void arrow(FILE *f, double x0, double y0, double x1, double y1,
		  const char *color, bool dashed, const char *type)
{
	double dx = x1 - x0, dy = y1 - y0;
	double n = dx * dx + dy * dy > 0 ? 1 / sqrt(dx * dx + dy * dy)
					 : 0;
	double ux = dx * n, uy = dy * n;

	fputs("<line class=\"arrow\" data-type=\"", f);
	rp_render_xml_text(f, type, 16);
	fprintf(f, "\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"1.6\"%s/>\n", x0, y0,
		x1 - ux * 8, y1 - uy * 8, color,
		dashed ? " stroke-dasharray=\"5 4\"" : "");
	fprintf(f, "<path d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z\" "
		"fill=\"%s\"/>\n", x1, y1, x1 - ux * 11 - uy * 5,
		y1 - uy * 11 + ux * 5, x1 - ux * 11 + uy * 5,
		y1 - uy * 11 - ux * 5, color);
}

void rp_render_arrow(FILE *f, double x0, double y0, double x1, double y1,
		     const char *color, bool dashed, const char *type)
{
	arrow(f, x0, y0, x1, y1, color, dashed, type);
}

/* An arrow from its "out" row to its "in" row, labelled at its start. */
static void message(FILE *f, const struct rr_diagram *d, int side,
		    const struct rr_ev *e)
{
	const struct rr_row *r0 = &d->rows[e->row], *r1 = r0;
	double x0 = lifeline(side), x1 = lifeline(!side);
	const char *color = rp_render_msg_color(e->type), *anchor = "middle";
	double lx = (X_S + X_R) / 2.0;
	char m[320], det[320];

	if (e->match >= 0)
		r1 = &d->rows[d->s[!side].ev[e->match].row];
	if (r0->kind == RR_ROW_HIDDEN || r0->kind == RR_ROW_BLOCK) {
		if (r1->kind == RR_ROW_HIDDEN || r1->kind == RR_ROW_BLOCK)
			return;
	}
	rp_render_msg_label(e, m, det, sizeof(m));
	if (e->match < 0) {	/* no partner: a stub, and why */
		if (e->out) {
			x1 = x0 + (x1 - x0) * 0.4;
		} else {
			x1 = lifeline(side);
			x0 = x1 + (lifeline(!side) - x1) * 0.4;
		}
		snprintf(det, sizeof(det),
			 "(no matching %s in the other trace)",
			 e->out ? "receipt" : "send");
	}
	arrow(f, x0, r0->y + ARROW_DY, x1, r1->y + ARROW_DY, color,
	      e->match < 0, e->type);
	/* A slanted arrow crosses rows: its label stays by its start. */
	if (r1 != r0) {
		lx = x0 + (side == RR_SEND ? 12 : -12);
		anchor = side == RR_SEND ? "start" : "end";
	}
	text(f, lx, r0->y + 13, "msg", anchor, m, MSG_CHARS);
	if (det[0])
		text(f, lx, r0->y + 26, "det", anchor, det, MSG_CHARS + 8);
}

/* --- QP state bands ------------------------------------------------------ */

static void band(FILE *f, const struct rr_diagram *d, int side, unsigned q,
		 int state, double y0, double y1)
{
	if (state < 0 || y1 <= y0)
		return;
	fprintf(f, "<rect class=\"band\" data-side=\"%s\" data-qp=\"%u\" "
		"data-state=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
		"height=\"%.1f\" fill=\"%s\"><title>QP%u %s</title></rect>\n",
		side == RR_SEND ? "send" : "recv", q, state_name[state],
		band_x(d, side, q), y0, band_w(d, side), y1 - y0,
		state_color[state], q,
		state_name[state]);
}

/* Each QP's state from qp.create to qp.destroy, one column per QP. */
static void bands(FILE *f, const struct rr_diagram *d, int side, int bottom)
{
	const struct rr_side *s = &d->s[side];
	unsigned q;
	size_t i;

	for (q = 0; q < s->qps; q++) {
		int state = -1;
		double since = 0;

		for (i = 0; i < s->n; i++) {
			const struct rr_ev *e = &s->ev[i];
			double y = d->rows[e->row].y + MARK_DY;
			int64_t qp = -1;
			int next;

			if (!rp_render_int(e->f, "qp", &qp) || qp != (int64_t)q)
				continue;
			switch (e->kind) {
			case RR_QP_CREATE: next = 0; break;
			case RR_QP_MODIFY:
				next = state_of(rp_render_str(e->f, "to"));
				break;
			case RR_QP_ERROR: next = 4; break;
			case RR_QP_DESTROY: next = -1; break;
			default: continue;
			}
			band(f, d, side, q, state, since, y);
			state = next;
			since = y;
		}
		band(f, d, side, q, state, since, bottom);
	}
}

/* --- summary blocks ------------------------------------------------------ */

static void block_rect(FILE *f, const struct rr_row *r, const char *cls,
		       const char *fill, const char *stroke)
{
	fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
		"height=\"%d\" rx=\"8\" fill=\"%s\" stroke=\"%s\" "
		"stroke-width=\"1.5\"/>\n", cls, X_S + 10, r->y + 6,
		X_R - X_S - 20, r->h - 12, fill, stroke);
}

static void side_summary(const struct rr_side *s, const struct rr_ev *e,
			 bool recv, char *buf, size_t len)
{
	int64_t chunks = rp_render_iv(e->f, "chunks");
	int64_t files = rp_render_iv(e->f, "files");
	int64_t credits = rp_render_iv(e->f, "credits");

	snprintf(buf, len, "%s: %" PRId64 " chunk%s, %" PRId64 " file%s, "
		 "%.3f s, %" PRId64 " credit%s %s", recv ? "receiver" : "sender",
		 chunks, rp_s((uint64_t)chunks), files, rp_s((uint64_t)files),
		 e->f ? json_object_get_double(json_object_object_get(e->f,
			"data_seconds")) : 0.0,
		 credits, rp_s((uint64_t)credits), recv ? "sent" : "received");
	(void)s;
}

static void rate(uint64_t bytes, double secs, char *buf, size_t len)
{
	if (secs <= 0) {
		snprintf(buf, len, "rate n/a");
		return;
	}
	snprintf(buf, len, "%.1f MiB/s (%.2f Gbit/s)",
		 bytes / secs / 1048576.0, bytes * 8 / secs / 1e9);
}

/* "10.0 MiB in 10 chunks" and "0.013 s · 800.0 MiB/s (6.71 Gbit/s)". */
static void totals(FILE *f, double cx, int y, uint64_t bytes,
		   uint64_t chunks, double secs)
{
	char b[32], rt[64], line[160];

	snprintf(line, sizeof(line), "%s in %" PRIu64 " chunk%s",
		 rp_render_bytes(bytes, b, sizeof(b)), chunks, rp_s(chunks));
	text(f, cx, y + 44, "ev", "middle", line, 0);
	rate(bytes, secs, rt, sizeof(rt));
	snprintf(line, sizeof(line), "%.3f s · %s", secs, rt);
	text(f, cx, y + 60, "ev", "middle", line, 0);
}

/* A ping's round trips, as its client's HELLO asked for them. */
static void ping_block(FILE *f, const struct rr_diagram *d,
		       const struct rr_row *r)
{
	const struct rr_side *s = &d->s[RR_SEND];
	double cx = (X_S + X_R) / 2.0, secs = s->data_t1 - s->data_t0;
	json_object *h = NULL;
	char line[160], size[32];
	int64_t n;

	for (size_t i = 0; i < s->n && !h; i++)
		if (s->ev[i].kind == RR_MSG && !strcmp(s->ev[i].type, "HELLO"))
			h = s->ev[i].f;
	n = rp_render_iv(h, "total");
	block_rect(f, r, "data", "#e3f2fd", "#1565c0");
	text(f, cx, r->y + 26, "blockhead", "middle", "ROUND TRIPS (RDMA)", 0);
	snprintf(line, sizeof(line), "%" PRId64 " round trip%s of %s, --op %s",
		 n, rp_s((uint64_t)n), rp_render_bytes((uint64_t)rp_render_iv(h, "chunk"), size,
				    sizeof(size)),
		 rp_render_sv(h, "op"));
	text(f, cx, r->y + 44, "ev", "middle", line, 0);
	text(f, cx, r->y + 60, "det", "middle", !strcmp(rp_render_sv(h, "op"),
	     "write") ? "RDMA Writes; each side spins on its last byte" :
	     "Sends into receives posted ahead", 0);
	if (n > 0 && s->seen_post && secs > 0) {
		/* The mean of the client's span: ping prints the median. */
		snprintf(line, sizeof(line), "%.3f s of posts: %.1f µs a round "
			 "trip", secs, secs * 1e6 / (double)n);
		text(f, cx, r->y + 78, "det", "middle", line, 0);
	}
}

#define TRACED_WR	4	/* post and wc: the first 4 of each kind traced */

/* The chunks the sender posted, from its datapath.summary (every post
 * but its receives); -1 without one. */
static int64_t posted_chunks(const struct rr_side *s)
{
	int64_t n = 0;

	if (!s->datapath)
		return -1;
	json_object_object_foreach(s->datapath, k, v) {
		if (strncmp(k, "posted.", 7) || !strncmp(k + 7, "RECV", 4) ||
		    !json_object_is_type(v, json_type_int))
			continue;
		n += json_object_get_int64(v);
	}
	return n;
}

/* The sender heard its last ACK, and an ok one: the session finished. */
static bool finished(const struct rr_side *s)
{
	const struct rr_ev *ack = NULL;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].kind == RR_MSG && !s->ev[i].out &&
		    !strcmp(s->ev[i].type, "ACK"))
			ack = &s->ev[i];
	return ack && !rp_render_iv(ack->f, "status");
}

/*
 * No data.summary: a data phase that did not succeed writes none. Say
 * what is known, and from where: every post is counted only by the
 * sender's datapath.summary (the trace keeps the first TRACED_WR work
 * requests of each kind), the credits by its last data.progress.
 */
static void unsummarised(FILE *f, const struct rr_diagram *d,
			 const struct rr_row *r, double cx)
{
	const struct rr_side *s = &d->s[RR_SEND];
	int64_t chunks = posted_chunks(s);
	bool cut = !finished(s);
	uint64_t traced = s->posts_data + d->s[RR_RECV].posts_read;
	int64_t said = rp_render_iv(s->progress, "posted");
	char line[320], head[64] = "", b[32];
	size_t i;

	/* Finished: FIN says the bytes. Cut short: nothing does. */
	for (i = 0; i < s->n && !cut; i++)
		if (s->ev[i].kind == RR_MSG && s->ev[i].out &&
		    !strcmp(s->ev[i].type, "FIN"))
			snprintf(head, sizeof(head), "%s in ", rp_render_bytes(
				 (uint64_t)rp_render_iv(s->ev[i].f, "bytes"),
				 b, sizeof(b)));
	if (cut)
		snprintf(head, sizeof(head), "interrupted after ");
	if (chunks >= 0)
		snprintf(line, sizeof(line), "%s%" PRId64 " chunk%s posted",
			 head, chunks, rp_s(chunks));
	else if (said > 0 && (uint64_t)said >= traced)
		snprintf(line, sizeof(line), "%sat least %" PRId64 " chunks "
			 "posted", head, said);
	else
		snprintf(line, sizeof(line), "%s%s%" PRIu64 " chunk%s posted",
			 head, traced >= TRACED_WR ? "at least " : "", traced,
			 rp_s(traced));
	text(f, cx, r->y + 44, "ev", "middle", line, 0);
	if (s->progress) {
		/* data.progress comes at doubling milestones only. */
		snprintf(line, sizeof(line), "at least %" PRId64 " credited "
			 "by the receiver", rp_render_iv(s->progress, "done"));
		text(f, cx, r->y + 60, "ev", "middle", line, 0);
	}
	text(f, cx, r->y + 78, "det", "middle", cut ?
	     "no data.summary (a push cut short has none): no rate" :
	     "no data.summary in the traces: no rate", 0);
	snprintf(line, sizeof(line), "chunks: %s%s", chunks >= 0 ?
		 "datapath.summary" : said > 0 && (uint64_t)said >= traced ?
		 "data.progress" : "the traced posts (4 of each kind)",
		 s->progress ? " · credits: data.progress" : "");
	text(f, cx, r->y + 92, "det", "middle", line, 0);
}

/* From the sender's data.summary (else the receiver's), each side's
 * own line below; without any, what unsummarised() can tell. */
static void data_block(FILE *f, const struct rr_diagram *d,
		       const struct rr_row *r)
{
	double cx = (X_S + X_R) / 2.0;
	const struct rr_ev *e = NULL;
	char line[320];
	int side;

	if (d->ping) {
		ping_block(f, d, r);
		return;
	}
	block_rect(f, r, "data", "#e3f2fd", "#1565c0");
	for (side = 0; side < 2 && !e; side++)
		if (d->s[side].summary >= 0)
			e = &d->s[side].ev[d->s[side].summary];
	text(f, cx, r->y + 26, "blockhead", "middle", e || finished(
	     &d->s[RR_SEND]) ? "DATA PHASE (RDMA)" :
	     "DATA PHASE (RDMA), INTERRUPTED", 0);
	if (!e) {
		unsummarised(f, d, r, cx);
		return;
	}
	totals(f, cx, r->y, (uint64_t)rp_render_iv(e->f, "bytes"),
	       (uint64_t)rp_render_iv(e->f, "chunks"), e->f ?
	       json_object_get_double(json_object_object_get(e->f,
				      "data_seconds")) : 0);
	for (side = 0; side < 2; side++) {
		const struct rr_side *s = &d->s[side];

		if (s->summary < 0)
			continue;
		side_summary(s, &s->ev[s->summary], side == RR_RECV, line,
			     sizeof(line));
		text(f, cx, r->y + 80 + side * 14, "det", "middle", line, 0);
	}
}

/* Each side's time span over a block: "1.800-1160.2 ms". */
static void block_times(FILE *f, const struct rr_diagram *d,
			const struct rr_row *r, size_t first)
{
	int side;

	for (side = 0; side < 2; side++) {
		double t0 = -1, t1 = -1;
		char buf[64];
		size_t k;

		for (k = first; k <= (size_t)r->last; k++) {
			long i = d->rows[k].ev[side];

			if (i < 0)
				continue;
			t1 = d->s[side].ev[i].t;
			t0 = t0 < 0 ? t1 : t0;
		}
		if (t0 < 0)
			continue;
		snprintf(buf, sizeof(buf), "%.3f ms", t0 * 1e3);
		text(f, side == RR_SEND ? 16 : W - 16, r->y + 22, "time",
		     side == RR_SEND ? "start" : "end", buf, 0);
		snprintf(buf, sizeof(buf), "to %.3f ms", t1 * 1e3);
		text(f, side == RR_SEND ? 16 : W - 16, r->y + 36, "time",
		     side == RR_SEND ? "start" : "end", buf, 0);
	}
}

/* What a run of FILE/FEND/FACK rows said, in four lines. */
static void file_block(FILE *f, const struct rr_diagram *d,
		       const struct rr_row *r, size_t first)
{
	uint64_t n = 0, files = 0, ends = 0, acks = 0, failed = 0, bytes = 0;
	const char *p0 = NULL, *p1 = NULL;
	double cx = (X_S + X_R) / 2.0;
	char line[640], b[32];
	size_t k;
	int side;

	for (k = first; k <= (size_t)r->last; k++)
		for (side = 0; side < 2; side++) {
			const struct rr_ev *e;

			if (d->rows[k].ev[side] < 0)
				continue;
			e = &d->s[side].ev[d->rows[k].ev[side]];
			if (!e->out && e->match >= 0)
				continue;	/* counted at its "out" */
			n++;
			if (!strcmp(e->type, "FILE")) {
				files++;
				p1 = rp_render_str(e->f, "path");
				p0 = p0 ? p0 : p1;
			} else if (!strcmp(e->type, "FEND")) {
				ends++;
				bytes += (uint64_t)rp_render_iv(e->f, "bytes");
			} else if (!strcmp(e->type, "FACK")) {
				acks++;
				failed += rp_render_iv(e->f, "status") != 0;
			}
		}
	block_rect(f, r, "files", "#f3e5f5", "#6a1b9a");
	snprintf(line, sizeof(line), "FILE/FEND/FACK × %" PRIu64, n);
	text(f, cx, r->y + 26, "blockhead", "middle", line, 0);
	snprintf(line, sizeof(line), "%" PRIu64 " file%s announced · %" PRIu64
		 " ended (%s)", files, rp_s(files), ends,
		 rp_render_bytes(bytes, b, sizeof(b)));
	text(f, cx, r->y + 46, "ev", "middle", line, MSG_CHARS);
	snprintf(line, sizeof(line), "%" PRIu64 " acknowledged, %" PRIu64
		 " failed", acks, failed);
	text(f, cx, r->y + 62, "ev", "middle", line, MSG_CHARS);
	snprintf(line, sizeof(line), "first %s · last %s", p0 ? p0 : "?",
		 p1 ? p1 : "?");
	text(f, cx, r->y + 80, "det", "middle", line, MSG_CHARS + 8);
	block_times(f, d, r, first);
}

/* --- the whole picture --------------------------------------------------- */

static void row(FILE *f, const struct rr_diagram *d, size_t i)
{
	const struct rr_row *r = &d->rows[i];
	int side;

	if (r->kind == RR_ROW_HIDDEN)
		return;
	if (r->kind == RR_ROW_DATA) {
		data_block(f, d, r);
	} else if (r->kind == RR_ROW_BLOCK) {
		file_block(f, d, r, i);
		return;
	}
	for (side = 0; side < 2; side++) {
		const struct rr_ev *e;

		if (r->ev[side] < 0)
			continue;
		e = &d->s[side].ev[r->ev[side]];
		if (e->kind == RR_MSG) {
			time_label(f, side, e, r->y + ARROW_DY + 4);
			if (e->out || e->match < 0)
				message(f, d, side, e);
		} else if (e->kind == RR_FIRST_CHUNK) {
			time_label(f, side, e, r->y + 30);
		} else if (e->kind == RR_SUMMARY) {
			/* The other side's came later: its own time is in
			 * the block (its data phase's seconds). */
			if (side == d->data_side)
				time_label(f, side, e, r->y + 30);
		} else {
			local_event(f, d, side, e, r);
		}
	}
}

static void footer(FILE *f, const struct rr_diagram *d, int bottom)
{
	int side;

	for (side = 0; side < 2; side++)
		foot_box(f, lifeline(side), bottom, head_name(d, side, true));
	text(f, 20, bottom + 58, "small", NULL, "Rendered by rdmapush render "
	     "from the two sides' --trace-json files.", 0);
}

int rp_render_write_svg(FILE *f, const struct rr_diagram *d)
{
	int wire = rp_render_wire_height(d);
	int bottom = d->height - 90 - wire, side;
	size_t i;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	header(f, d);
	for (side = 0; side < 2; side++) {
		fprintf(f, "<line class=\"lifeline\" data-side=\"%s\" "
			"x1=\"%.0f\" y1=\"178\" x2=\"%.0f\" y2=\"%d\" "
			"stroke=\"#37474f\" stroke-width=\"1.5\" "
			"stroke-dasharray=\"6 4\"/>\n", side ? "recv" : "send",
			lifeline(side), lifeline(side), bottom);
		bands(f, d, side, bottom - 10);
	}
	for (i = 0; i < d->nrows; i++)
		row(f, d, i);
	footer(f, d, bottom);
	if (wire)
		rp_render_wire_svg(f, d, bottom + 90);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* --- a chain: one lifeline per node -------------------------------------- */

#define GAP		(X_R - X_S)	/* between two nodes' lifelines */
#define SECT_HEAD	40		/* a pair's title above its rows */

/* Node j's lifeline in a chain's picture. */
static double node_x(size_t j)
{
	return X_S + (double)j * GAP;
}

/* The rows' extent of a pair laid out by rp_render_layout(). */
static int rows_h(const struct rr_diagram *d)
{
	return d->height - 110 - TOP;
}

/* Node j of n + 1: "SENDER", "RELAY j" or "RECEIVER j", and below it its
 * side(s) and pid. */
static void chain_head(FILE *f, const struct rr_diagram *d, size_t n,
		       size_t j)
{
	const struct rr_side *s = j < n ? &d[j].s[RR_SEND] :
					  &d[j - 1].s[RR_RECV];
	char name[32], sub[96];

	if (!j)
		snprintf(name, sizeof(name), "SENDER");
	else
		snprintf(name, sizeof(name), "%s %zu", j < n ? "RELAY" :
			 "RECEIVER", j);
	if (j && j < n)
		snprintf(sub, sizeof(sub), "sides \"%s\", \"%s\" · pid %"
			 PRId64, d[j - 1].s[RR_RECV].role, s->role, s->pid);
	else
		snprintf(sub, sizeof(sub), "side \"%s\" · pid %" PRId64,
			 s->role, s->pid);
	head_box(f, node_x(j), name, sub);
}

static void chain_header(FILE *f, const struct rr_diagram *d, size_t n,
			 int width, int height)
{
	char buf[2048];
	size_t j, used = 0;

	snprintf(buf, sizeof(buf), "rdmapush chain: a sender and %zu receivers",
		 n);
	page_open(f, width, height, buf);
	text(f, 20, 32, "title", NULL, "rdmapush chain: the sender pushes, "
	     "each relay stores and pushes on", 0);
	for (j = 0; j <= n && used < sizeof(buf); j++) {
		const struct rr_side *s = j < n ? &d[j].s[RR_SEND] :
						  &d[j - 1].s[RR_RECV];
		int w = snprintf(buf + used, sizeof(buf) - used, "%s%zu: %s "
				 "(pid %" PRId64 ")", j ? " · " : "", j + 1,
				 s->path, s->pid);

		used += w > 0 ? (size_t)w : 0;
	}
	text(f, 20, 54, "sub", NULL, buf, (int)((width - 40) / CHAR_W));
	legend(f);
	text(f, 20, 106, "small", NULL, "Time flows down within each pair "
	     "of hosts, drawn in chain order; the hosts' clocks are "
	     "unrelated, so each host's time is its own: ms since its first "
	     "event (a relay's two sessions share its clock).", 0);
	text(f, 20, 124, "small", NULL, "Arrows are control messages over "
	     "TCP (QPN, PSN and rkey in hex); the data itself moves by RDMA, "
	     "summarised in the blue block of each pair.", 0);
	for (j = 0; j <= n; j++)
		chain_head(f, d, n, j);
}

/* Pair k's rows between node k and node k + 1, from y down. */
static void chain_pair(FILE *f, const struct rr_diagram *d, size_t k,
		       int width, int y)
{
	int dy = y + SECT_HEAD - TOP, side;
	char buf[256];
	size_t i;

	fprintf(f, "<line class=\"pair-rule\" x1=\"20\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"#b0bec5\" stroke-width=\"1\"/>\n", y,
		width - 20, y);
	snprintf(buf, sizeof(buf), "%zu → %zu: %s pushes to %s", k + 1, k + 2,
		 d->s[RR_SEND].path, d->s[RR_RECV].path);
	text(f, 20, y + 20, "blockhead", NULL, buf, 90);
	outcome(f, d, width - 20, y + 20);
	fprintf(f, "<g class=\"pair\" data-pair=\"%zu\" "
		"transform=\"translate(%.0f,%d)\">\n", k, (double)k * GAP, dy);
	for (side = 0; side < 2; side++) {
		qp_labels(f, d, side);
		bands(f, d, side, TOP + rows_h(d) + 6);
	}
	for (i = 0; i < d->nrows; i++)
		row(f, d, i);
	fputs("</g>\n", f);
}

int rp_render_write_chain_svg(FILE *f, const struct rr_diagram *d, size_t n)
{
	int width = W + (int)(n - 1) * GAP, y = TOP, bottom, height;
	size_t j, k;

	/* Each pair: its title, its rows, room for the band ends. */
	bottom = y;
	for (k = 0; k < n; k++)
		bottom += SECT_HEAD + rows_h(&d[k]) + 20;
	bottom += 10;
	height = bottom + 90;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	chain_header(f, d, n, width, height);
	for (j = 0; j <= n; j++)
		fprintf(f, "<line class=\"lifeline\" data-node=\"%zu\" "
			"x1=\"%.0f\" y1=\"178\" x2=\"%.0f\" y2=\"%d\" "
			"stroke=\"#37474f\" stroke-width=\"1.5\" "
			"stroke-dasharray=\"6 4\"/>\n", j, node_x(j),
			node_x(j), bottom);
	for (k = 0; k < n; k++) {
		chain_pair(f, &d[k], k, width, y);
		y += SECT_HEAD + rows_h(&d[k]) + 20;
	}
	for (j = 0; j <= n; j++)
		foot_box(f, node_x(j), bottom, j ? j < n ? "RELAY" : "RECEIVER" :
			 "SENDER");
	text(f, 20, bottom + 58, "small", NULL, "Rendered by rdmapush render "
	     "from the nodes' --trace-json files, in chain order.", 0);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
