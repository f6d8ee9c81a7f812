/* SPDX-License-Identifier: MIT */
/* rdmapush render's internal model, shared by render.c (reading, pairing,
 * merging each two adjacent traces into rows) and render_svg.c (drawing
 * them). */
#ifndef RDMAPUSH_RENDER_INT_H
#define RDMAPUSH_RENDER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#define RR_MAX_QPS	16	/* band columns drawn per side */
#define RR_SEND		0	/* left lifeline */
#define RR_RECV		1	/* right lifeline */

/* The event kinds the picture shows; the rest are counted or skipped. */
enum rr_kind {
	RR_DEVICE, RR_PD_ALLOC, RR_PD_DEALLOC, RR_CQ_CREATE, RR_CQ_DESTROY,
	RR_MR_REG, RR_MR_DEREG, RR_QP_CREATE, RR_QP_MODIFY, RR_QP_ERROR,
	RR_QP_DESTROY, RR_MSG, RR_PHASE, RR_SUMMARY, RR_ERROR,
	RR_FIRST_CHUNK,	/* made up: the sender's first chunk posted */
	RR_KIND_MAX
};

struct rr_ev {
	enum rr_kind kind;
	double t;		/* seconds since the side's first event */
	json_object *f;		/* the line's "f" (owned by the line) */
	json_object *line;	/* the whole line (one reference) */
	json_object *more;	/* RR_MSG: its "msg.qps" (QP1.. of HELLO/MR) */
	const char *type;	/* RR_MSG: "HELLO", ... */
	int type_id;		/* index in the pairing table, -1 */
	bool out;		/* RR_MSG: we sent it */
	long match;		/* the other side's partner event, -1 */
	long row;		/* row it is drawn on */
	/* QP events alike over several QPs share one row (fold_qps()) */
	long fold_head;		/* the event whose row this one shares, -1 */
	long fold_last;		/* head: the last event folded into it, -1 */
};

/* A data-path work request the trace kept (the first few of each
 * kind), for the packet lane: which packets it became, when it
 * completed. */
#define RR_MAX_POSTS	64
struct rr_post {
	double t;		/* its side's time (s) */
	double wc_t;		/* its completion's, or -1 */
	const char *op;		/* "RDMA_WRITE_WITH_IMM", ... */
	uint64_t wr_id;
	int64_t length;
	int qp;
};

struct rr_side {
	const char *path;
	char role[24];
	int64_t pid;
	struct rr_ev *ev;
	size_t n, cap;
	unsigned qps;		/* QP columns: highest qp index + 1 */
	/* counted for the data block when no data.summary came (the
	 * trace keeps the first 4 work requests of each kind) */
	uint64_t posts_data, posts_credit, posts_read;
	double data_t0, data_t1;	/* first data post, last wc (s) */
	bool seen_post;
	long summary;		/* its data.summary event, -1: none */
	json_object *datapath;	/* its datapath.summary's "f", or NULL */
	json_object *progress;	/* its last data.progress's "f", or NULL */
	double offset;		/* added to t to compare with the other side */
	/* For the packet lane: its QPs' numbers, its GID, its posts. */
	uint32_t qpn[RR_MAX_QPS];
	unsigned has_qpn;	/* bit q: qpn[q] is known */
	const char *gid;	/* device.open's "gid", or NULL */
	struct rr_post post[RR_MAX_POSTS];
	size_t nposts;
};

struct rr_wire;

enum rr_row_kind { RR_ROW_LOCAL, RR_ROW_MSG, RR_ROW_DATA, RR_ROW_BLOCK,
		   RR_ROW_HIDDEN };

struct rr_row {
	enum rr_row_kind kind;
	long ev[2];		/* event on each side, -1 */
	long last;		/* RR_ROW_BLOCK: last row it stands for */
	int y, h;		/* top and height, set by rp_render_layout() */
};

struct rr_diagram {
	struct rr_side s[2];
	struct rr_row *rows;
	size_t nrows, rcap;
	long data_row;		/* -1: none */
	int data_side;		/* the side whose event made the data row */
	bool ping;		/* an rdmapush ping (its HELLO says so) */
	int height;
	struct rr_wire *wire;	/* the packet lane (render_wire.c), or NULL */
};

/* Pair, order into rows (the data row where the sender's first chunk
 * left), fold long runs of file messages (render_merge.c). 0 or
 * -ENOMEM. */
int rp_render_merge(struct rr_diagram *d);

/* Labels, main line and detail line, unescaped (render_label.c). */
void rp_render_local_label(const struct rr_side *s, const struct rr_ev *e,
			   char *m, char *det, size_t len);
void rp_render_msg_label(const struct rr_ev *e, char *m, char *det, size_t len);
/* The arrow colour of a message type ("#1565c0"). */
const char *rp_render_msg_color(const char *type);

/* Row heights, and the rows' y (render_svg.c). */
void rp_render_layout(struct rr_diagram *d);
/* The whole SVG to f. 0 or -errno of the first failed write. */
int rp_render_write_svg(FILE *f, const struct rr_diagram *d);

/* A chain's SVG to f: n pairs, d[k] between node k and node k + 1, each
 * laid out by rp_render_layout(). As rp_render_write_svg(). */
int rp_render_write_chain_svg(FILE *f, const struct rr_diagram *d, size_t n);

/* The packet lane (render_wire.c): the RoCE v2 capture path read,
 * its packets grouped into messages and tied to d's posts. 0, or the
 * capture's error (reported). */
int rp_render_wire_load(struct rr_diagram *d, const char *path);
/* Its height in the picture (0 without one), and its drawing, from y
 * down. */
int rp_render_wire_height(const struct rr_diagram *d);
void rp_render_wire_svg(FILE *f, const struct rr_diagram *d, int y);
void rp_render_wire_free(struct rr_diagram *d);

/* Drawing helpers (render_svg.c): escaped text cut at max characters
 * (0: whole), an arrow with its head at (x1, y1). */
void rp_render_text(FILE *f, double x, double y, const char *cls,
		    const char *anchor, const char *s, int max);
void rp_render_arrow(FILE *f, double x0, double y0, double x1, double y1,
		     const char *color, bool dashed, const char *type);
/* The lifelines' x: RR_SEND's and RR_RECV's. */
double rp_render_lifeline(int side);

/* One line "rdmapush render: ..." on stderr: the error, said once
 * (render.c). */
void rp_render_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Field helpers over an event's "f" (render.c). */
bool rp_render_int(json_object *f, const char *k, int64_t *v);
const char *rp_render_str(json_object *f, const char *k);
/* f's member k as hex ("0x1a2b", a list as "0x11,0x12"), or "?". */
const char *rp_render_hex(json_object *f, const char *k, char *buf, size_t len);
/* f's integer k, or 0; f's string k, or "?". */
int64_t rp_render_iv(json_object *f, const char *k);
const char *rp_render_sv(json_object *f, const char *k);
/* bytes as "10.0 MiB". */
const char *rp_render_bytes(uint64_t b, char *buf, size_t len);

#endif
