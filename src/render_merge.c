// SPDX-License-Identifier: MIT
/* rdmapush render's merge: pairs the two sides' messages (the k-th "out"
 * of type X on one side is the k-th "in" of X on the other), orders both
 * sides' events into rows (an "in" never above its "out"), the data row
 * where the sender's first chunk left, folds long FILE/FEND/FACK runs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rdmapush/render.h"
#include "render_int.h"

#define MAX_TYPES	32	/* message types told apart when pairing */
#define RUN_MIN		13	/* FILE/FEND/FACK messages a block stands for */

/* --- pairing ------------------------------------------------------------- */

static int type_id(const char *types[], int *ntypes, const char *t)
{
	int i;

	for (i = 0; i < *ntypes; i++)
		if (!strcmp(types[i], t))
			return i;
	if (*ntypes == MAX_TYPES)
		return -1;
	types[*ntypes] = t;
	return (*ntypes)++;
}

/*
 * The k-th "out" of X on one side is the k-th "in" of X on the other.
 * Walks both sides once per (side, type) with a cursor.
 */
static void pair(struct rr_diagram *d)
{
	const char *types[MAX_TYPES];
	int ntypes = 0, side, t;
	size_t i;

	for (side = 0; side < 2; side++)
		for (i = 0; i < d->s[side].n; i++) {
			struct rr_ev *e = &d->s[side].ev[i];

			if (e->kind == RR_MSG)
				e->type_id = type_id(types, &ntypes, e->type);
		}
	for (side = 0; side < 2; side++) {
		struct rr_side *a = &d->s[side], *b = &d->s[!side];

		for (t = 0; t < ntypes; t++) {
			size_t j = 0;

			for (i = 0; i < a->n; i++) {
				struct rr_ev *e = &a->ev[i];

				if (e->type_id != t || !e->out)
					continue;
				while (j < b->n && (b->ev[j].type_id != t ||
						    b->ev[j].out))
					j++;
				if (j == b->n)
					break;
				e->match = (long)j;
				b->ev[j].match = (long)i;
				j++;
			}
		}
	}
}

/*
 * The two clocks are unrelated: estimate the receiver's offset from the
 * messages (a message arrives after it leaves, both ways) so that local
 * events interleave plausibly. Order is still fixed by the messages.
 */
static void estimate_offset(struct rr_diagram *d)
{
	struct rr_side *s = &d->s[RR_SEND], *r = &d->s[RR_RECV];
	double lo = -1e300, hi = 1e300;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct rr_ev *e = &s->ev[i];

		if (e->kind != RR_MSG || e->match < 0)
			continue;
		if (e->out)	/* r.t - off >= s.t */
			hi = hi < r->ev[e->match].t - e->t ?
			     hi : r->ev[e->match].t - e->t;
		else		/* s.t >= r.t - off */
			lo = lo > r->ev[e->match].t - e->t ?
			     lo : r->ev[e->match].t - e->t;
	}
	if (lo > -1e300 && hi < 1e300)
		r->offset = -(lo + hi) / 2;
	else if (hi < 1e300)
		r->offset = -hi;
	else if (lo > -1e300)
		r->offset = -lo;
}

/* --- merging into rows --------------------------------------------------- */

static int new_row(struct rr_diagram *d, enum rr_row_kind kind)
{
	struct rr_row *r;

	if (d->nrows == d->rcap) {
		size_t cap = d->rcap ? d->rcap * 2 : 256;

		r = realloc(d->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		d->rows = r;
		d->rcap = cap;
	}
	r = &d->rows[d->nrows++];
	*r = (struct rr_row){ .kind = kind, .ev = { -1, -1 }, .last = -1 };
	return 0;
}

/* An "in" waits for its "out". */
static bool blocked(const struct rr_diagram *d, int side, size_t i)
{
	const struct rr_ev *e = &d->s[side].ev[i];

	return e->kind == RR_MSG && !e->out && e->match >= 0 &&
	       d->s[!side].ev[e->match].row < 0;
}

/* The events the data block stands for. */
static bool data_ev(const struct rr_ev *e)
{
	return e->kind == RR_SUMMARY || e->kind == RR_FIRST_CHUNK;
}

static int place(struct rr_diagram *d, int side, size_t i, size_t next[2])
{
	struct rr_ev *e = &d->s[side].ev[i];
	struct rr_row *last = d->nrows ? &d->rows[d->nrows - 1] : NULL;
	bool both = e->kind == RR_MSG && e->out && e->match >= 0 &&
		    (size_t)e->match == next[!side];
	int rc;

	if (e->fold_head >= 0) {	/* drawn on its head's row */
		e->row = d->s[side].ev[e->fold_head].row;
		next[side]++;
		return 0;
	}
	/*
	 * One data block for both sides, where the sender's first chunk
	 * left: each side's data.summary comes at its own moment (the
	 * receiver's after FIN, the sender's after ACK) and joins it.
	 */
	if (data_ev(e) && d->data_row >= 0) {
		if (d->rows[d->data_row].ev[side] < 0)
			d->rows[d->data_row].ev[side] = (long)i;
		e->row = d->data_row;
		next[side]++;
		return 0;
	}
	if (!data_ev(e) && e->kind != RR_MSG && last &&
	    (last->kind == RR_ROW_LOCAL || last->kind == RR_ROW_MSG) &&
	    last->ev[side] < 0 && !(last->kind == RR_ROW_MSG &&
				     last->ev[!side] < 0)) {
		last->ev[side] = (long)i;
		e->row = (long)d->nrows - 1;
		next[side]++;
		return 0;
	}
	rc = new_row(d, e->kind == RR_MSG ? RR_ROW_MSG :
		     data_ev(e) ? RR_ROW_DATA : RR_ROW_LOCAL);
	if (rc)
		return rc;
	last = &d->rows[d->nrows - 1];
	last->ev[side] = (long)i;
	e->row = (long)d->nrows - 1;
	next[side]++;
	if (both) {
		last->ev[!side] = e->match;
		d->s[!side].ev[e->match].row = e->row;
		next[!side]++;
	}
	if (data_ev(e)) {
		d->data_row = e->row;
		d->data_side = side;
	}
	return 0;
}

/* A cycle between the two files (each waits on the other) is broken by
 * taking the earliest event anyway, unpaired: never an arrow upwards. */
static void unpair(struct rr_diagram *d, int side, size_t i)
{
	struct rr_ev *e = &d->s[side].ev[i];

	if (e->match >= 0)
		d->s[!side].ev[e->match].match = -1;
	e->match = -1;
}

/* An "in" whose "out" is drawn already. */
static bool arrived(const struct rr_diagram *d, int side, size_t i)
{
	const struct rr_ev *e = &d->s[side].ev[i];

	return e->kind == RR_MSG && !e->out && e->match >= 0 &&
	       d->s[!side].ev[e->match].row >= 0;
}

static int merge(struct rr_diagram *d)
{
	size_t next[2] = { 0, 0 };

	while (next[0] < d->s[0].n || next[1] < d->s[1].n) {
		int side, pick = -1, force = -1;
		double best = 0, fbest = 0;
		int rc;

		for (side = 0; side < 2; side++) {
			const struct rr_side *s = &d->s[side];
			double g;

			if (next[side] >= s->n)
				continue;
			g = s->ev[next[side]].t + s->offset;
			if (force < 0 || g < fbest) {
				force = side;
				fbest = g;
			}
			if (blocked(d, side, next[side]))
				continue;
			/* A message that has left lands next: short arrows. */
			if (arrived(d, side, next[side])) {
				pick = side;
				break;
			}
			if (pick < 0 || g < best) {
				pick = side;
				best = g;
			}
		}
		if (pick < 0) {
			pick = force;
			unpair(d, pick, next[pick]);
		}
		rc = place(d, pick, next[pick], next);
		if (rc)
			return rc;
	}
	return 0;
}

/* Neither the sender's first chunk nor a data.summary came, yet a side
 * posted: the data row goes before the sender's FIN (or last). */
static int add_data_row(struct rr_diagram *d)
{
	const struct rr_side *s = &d->s[RR_SEND], *r = &d->s[RR_RECV];
	size_t pos = d->nrows, i, k;
	int side, rc;

	if (d->data_row >= 0 || (!s->seen_post && !r->seen_post))
		return 0;
	for (i = 0; i < s->n; i++)
		if (s->ev[i].kind == RR_MSG && s->ev[i].out &&
		    !strcmp(s->ev[i].type, "FIN")) {
			pos = (size_t)s->ev[i].row;
			break;
		}
	rc = new_row(d, RR_ROW_DATA);
	if (rc)
		return rc;
	memmove(&d->rows[pos + 1], &d->rows[pos],
		(d->nrows - 1 - pos) * sizeof(d->rows[0]));
	d->rows[pos] = (struct rr_row){ .kind = RR_ROW_DATA,
					.ev = { -1, -1 }, .last = -1 };
	for (side = 0; side < 2; side++)
		for (k = 0; k < d->s[side].n; k++)
			if (d->s[side].ev[k].row >= (long)pos)
				d->s[side].ev[k].row++;
	d->data_row = (long)pos;
	return 0;
}

static bool fileish_type(const char *t)
{
	return !strcmp(t, "FILE") || !strcmp(t, "FEND") ||
	       !strcmp(t, "FACK") || !strcmp(t, "SYNC");
}

/* Messages a row adds to a run of FILE/FEND/FACK, or -1: it ends one. */
static int fileish(const struct rr_diagram *d, const struct rr_row *r)
{
	int side, n = 0;

	if (r->kind != RR_ROW_MSG)
		return -1;
	for (side = 0; side < 2; side++) {
		const struct rr_ev *e;

		if (r->ev[side] < 0)
			continue;
		e = &d->s[side].ev[r->ev[side]];
		if (e->kind != RR_MSG || !fileish_type(e->type))
			return -1;
		if (e->out || e->match < 0)
			n++;
	}
	return n;
}

/* Many files: each long run of FILE/FEND/FACK rows becomes one block. */
static void collapse(struct rr_diagram *d)
{
	size_t a = 0, b;

	while (a < d->nrows) {
		int msgs = 0, n;

		for (b = a; b < d->nrows; b++) {
			n = fileish(d, &d->rows[b]);
			if (n < 0)
				break;
			msgs += n;
		}
		if (msgs >= RUN_MIN) {
			d->rows[a].kind = RR_ROW_BLOCK;
			d->rows[a].last = (long)b - 1;
			for (n = 1; a + (size_t)n < b; n++)
				d->rows[a + (size_t)n].kind = RR_ROW_HIDDEN;
		}
		a = b > a ? b : a + 1;
	}
}

int rp_render_merge(struct rr_diagram *d)
{
	int rc;

	pair(d);
	estimate_offset(d);
	rc = merge(d);
	if (!rc)
		rc = add_data_row(d);
	if (!rc)
		collapse(d);
	return rc;
}
