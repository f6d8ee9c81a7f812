// SPDX-License-Identifier: MIT
/*
 * The report of scripts/bench mem: medians of each series, push versus
 * ceiling, as an aligned table or one JSON object per line (json-c); for
 * a sweep, a table per file system and a gnuplot script.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/json.h"
#include "rdmapush/trace.h"

#include "bench.h"

#define GIB	(1024.0 * 1024.0 * 1024.0)

/* One row: a single run, or the medians of a series (run == 0). */
struct row {
	int run;		/* 1-based; 0 for the medians */
	int ok;			/* successful runs behind it */
	int rc;			/* a single run's error */
	double seconds;
	double cpu_send;	/* every thread of the side; < 0: none */
	double cpu_recv;
	int threads_send;	/* threads counted in cpu_send */
	int threads_recv;
	double cpu_total;	/* every thread of the process */
	double sync;
	double rss_mib;
	long csw[4];		/* vcsw, ivcsw of send, then of recv */
};

/* Every series' medians, computed once. */
struct view {
	const struct bench_results *res;
	struct row med[BW_MAX][BS_MAX];
};

static const char *const where_names[BW_MAX] = {
	[BW_MEM] = "mem", [BW_TMPFS] = "tmpfs", [BW_DISK] = "disk",
};

static void row_of_run(struct row *w, const struct bench_run *r, int run)
{
	*w = (struct row){
		.run = run, .ok = r->rc == 0, .rc = r->rc,
		.seconds = r->seconds, .cpu_send = r->cpu_send,
		.cpu_recv = r->cpu_recv, .threads_send = r->threads_send,
		.threads_recv = r->threads_recv, .cpu_total = r->cpu_total,
		.sync = r->sync_seconds,
		.rss_mib = (double)r->rss_kib / 1024.0,
		.csw = { r->vcsw_send, r->ivcsw_send, r->vcsw_recv,
			 r->ivcsw_recv },
	};
}

/* Medians over the successful runs only. */
static void row_of_series(struct row *w, const struct bench_series *s)
{
	double v[6][BENCH_RUNS_MAX];
	int threads_send = 0, threads_recv = 0;
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		struct row one;

		row_of_run(&one, &s->run[i], i + 1);
		if (!one.ok)
			continue;
		v[0][n] = one.seconds;
		v[1][n] = one.cpu_send;
		v[2][n] = one.cpu_recv;
		v[3][n] = one.sync;
		v[4][n] = one.rss_mib;
		v[5][n] = one.cpu_total;
		n++;
		/* The same in every run of a series. */
		threads_send = one.threads_send;
		threads_recv = one.threads_recv;
	}
	*w = (struct row){ .ok = n, .cpu_send = -1.0, .cpu_recv = -1.0,
			   .threads_send = threads_send,
			   .threads_recv = threads_recv };
	if (!n)
		return;
	w->seconds = bench_median(v[0], n);
	w->cpu_send = bench_median(v[1], n);
	w->cpu_recv = bench_median(v[2], n);
	w->sync = bench_median(v[3], n);
	w->rss_mib = bench_median(v[4], n);
	w->cpu_total = bench_median(v[5], n);
}

static void view_init(struct view *v, const struct bench_results *res)
{
	v->res = res;
	for (int w = 0; w < BW_MAX; w++)
		for (int s = 0; s < BS_MAX; s++)
			row_of_series(&v->med[w][s], &res->s[w][s]);
}

static double gbps(const struct view *v, const struct row *w)
{
	if (!w->ok || w->seconds <= 0)
		return 0.0;
	return (double)v->res->cfg->size / w->seconds / 1e9;
}

static double med_gbps(const struct view *v, int where, enum bench_side s)
{
	return gbps(v, &v->med[where][s]);
}

double bench_median_gbps(const struct bench_results *res, int where,
			 enum bench_side s)
{
	struct view v = { .res = res };
	struct row r;

	if (where < 0 || where >= BW_MAX || (unsigned int)s >= BS_MAX)
		return 0.0;
	row_of_series(&r, &res->s[where][s]);
	return gbps(&v, &r);
}

static bool is_push(enum bench_side s)
{
	return s == BS_BOTH || s == BS_SEND || s == BS_RECV;
}

/*
 * The row of ceiling c that a row of w is held against: for a single
 * run, the ceiling's run of the same round (the rounds interleave every
 * measurement, so they ran under the same load); for medians, its
 * medians. NULL when it was not measured or failed.
 */
static const struct row *ceil_row(const struct view *v, int w,
				  enum bench_side c, const struct row *r,
				  struct row *buf)
{
	const struct bench_series *ser = &v->res->s[w][c];

	if (!r->run)
		return v->med[w][c].ok ? &v->med[w][c] : NULL;
	if (r->run > ser->n)
		return NULL;
	row_of_run(buf, &ser->run[r->run - 1], r->run);
	return buf->ok ? buf : NULL;
}

/* A push (or ceiling) row against the ceiling(s) of its side(s). */
struct check {
	/* The ceiling bounding it: its side's; both's is the slower of
	 * the two (both sides must do their work, each on its threads,
	 * so neither side's ceiling alone bounds it). 0: none. */
	double ceil_gbps;
	enum bench_side ceil_side;
	double ratio;		/* GB/s over ceil_gbps; 0: none */
	bool valid;		/* not more than max_over % over it */
	/* CPU per GiB over the ceiling's of the same side (send, recv),
	 * and of the push's real sides together over their ceilings';
	 * < 0: none. */
	double cpu_side[2];
	double cpu;
};

static bool real_side(enum bench_side s, int side)
{
	return s == BS_BOTH || s == (side ? BS_RECV : BS_SEND);
}

static void check_cpu(const struct view *v, int w, enum bench_side s,
		      const struct row *r, struct check *k)
{
	static const enum bench_side ceils[2] = { BS_CEIL_SEND,
						   BS_CEIL_RECV };
	double push = 0.0, ceil = 0.0;
	bool all = true;

	for (int side = 0; side < 2; side++) {
		struct row buf;
		const struct row *c = ceil_row(v, w, ceils[side], r, &buf);
		double mine = side ? r->cpu_recv : r->cpu_send;
		double theirs = c ? (side ? c->cpu_recv : c->cpu_send) : -1.0;

		k->cpu_side[side] = -1.0;
		if (!real_side(s, side))
			continue;
		if (mine < 0 || theirs <= 0) {
			all = false;
			continue;
		}
		k->cpu_side[side] = mine / theirs;
		push += mine;
		ceil += theirs;
	}
	k->cpu = all && ceil > 0 ? push / ceil : -1.0;
}

static void check_row(const struct view *v, int w, enum bench_side s,
		      const struct row *r, struct check *k)
{
	struct row bs, br;
	const struct row *cs = ceil_row(v, w, BS_CEIL_SEND, r, &bs);
	const struct row *cr = ceil_row(v, w, BS_CEIL_RECV, r, &br);
	double snd = cs ? gbps(v, cs) : 0.0;
	double rcv = cr ? gbps(v, cr) : 0.0;

	*k = (struct check){ .valid = true, .cpu_side = { -1.0, -1.0 },
			     .cpu = -1.0 };
	if (s == BS_CEIL_SEND || s == BS_SEND ||
	    (s == BS_BOTH && snd > 0 && (snd <= rcv || rcv <= 0))) {
		k->ceil_gbps = snd;
		k->ceil_side = BS_CEIL_SEND;
	} else if (s == BS_CEIL_RECV || s == BS_RECV || s == BS_BOTH) {
		k->ceil_gbps = rcv;
		k->ceil_side = BS_CEIL_RECV;
	}
	/* both with one ceiling missing is bounded by neither: unchecked. */
	if (s == BS_BOTH && (snd <= 0 || rcv <= 0))
		k->ceil_gbps = 0.0;
	if (!is_push(s) || !r->ok)
		return;
	if (k->ceil_gbps > 0) {
		k->ratio = gbps(v, r) / k->ceil_gbps;
		k->valid = k->ratio <= 1.0 + v->res->cfg->max_over / 100.0;
	}
	check_cpu(v, w, s, r, k);
}

/* Whether a series' run i (1-based) is valid. */
static bool run_valid(const struct view *v, int w, enum bench_side s, int i)
{
	struct row r;
	struct check k;

	row_of_run(&r, &v->res->s[w][s].run[i - 1], i);
	check_row(v, w, s, &r, &k);
	return k.valid;
}

/* The medians' verdict: valid only when the medians keep the rule and
 * so did every run behind them. */
static void check_medians(const struct view *v, int w, enum bench_side s,
			  struct check *k)
{
	check_row(v, w, s, &v->med[w][s], k);
	for (int i = 1; i <= v->res->s[w][s].n; i++)
		k->valid = k->valid && run_valid(v, w, s, i);
}

/* The check of any row: a run's, or the medians'. */
static void check_any(const struct view *v, int w, enum bench_side s,
		      const struct row *r, struct check *k)
{
	if (r->run)
		check_row(v, w, s, r, k);
	else
		check_medians(v, w, s, k);
}

/* The medians' GB/s over their ceiling's (the sweep's cells). */
static double ceiling(const struct view *v, int where, enum bench_side s)
{
	struct check k;

	check_row(v, where, s, &v->med[where][s], &k);
	return k.ceil_gbps;
}

/* Cores' worth of CPU the process used over the row's wall time: near
 * 2 when a push's two sides ran in parallel, near 1 when they took
 * turns, up to the threads (or the cores) for a ceiling. */
static double cores_busy(const struct row *w)
{
	return w->seconds > 0 ? w->cpu_total / w->seconds : 0.0;
}

/* Which side of the row is a synthetic peer, or NULL. */
static const char *synthetic(enum bench_side s)
{
	if (s == BS_SEND)
		return "recv";
	if (s == BS_RECV)
		return "send";
	return NULL;
}

/* What a row's seconds contain, for readers of the JSON alone. */
static const char *includes(enum bench_side s)
{
	static const char *const what[BS_MAX] = {
		[BS_XXH3] = "XXH3-128 of each chunk of a chunk x window ring "
			    "in memory, folded in order, one thread",
		[BS_MEMCPY] = "memcpy ring to ring in chunk blocks, one thread",
		[BS_CEIL_SEND] = "open + per chunk pread + XXH3-128 on the "
				 "threads, each taking the next chunk when "
				 "free, + the fold of the chunks' digests",
		[BS_CEIL_RECV] = "open as the receiver opens a file of this "
				 "size (from 64 MiB on under its partial's "
				 "name, below as an O_TMPFILE; fallocate in "
				 "steps) + per chunk copy out of the slot + "
				 "XXH3-128 + pwrite with write-behind on the "
				 "threads, each taking the next chunk when "
				 "free, + the fold + commit (fsync, rename or "
				 "link, fsync dir); no partial's journal",
		[BS_CEIL_RECV_NOCOPY] = "ceiling-recv without the copy: "
					"XXH3-128 + pwrite from the slot",
		[BS_BOTH] = "a whole push, HELLO to ACK, both sides real",
		[BS_SEND] = "a whole push, real sender, synthetic receiver",
		[BS_RECV] = "a whole push, synthetic sender, real receiver",
	};

	return (unsigned int)s < BS_MAX ? what[s] : "?";
}

/* ---------------------------------------------------------------------
 * The table
 */

static void table_cell(FILE *f, int width, double x, bool have, const char *fmt)
{
	char buf[32];

	if (have)
		snprintf(buf, sizeof(buf), fmt, x);
	else
		snprintf(buf, sizeof(buf), "-");
	fprintf(f, " %*s", width, buf);
}

/* CPU seconds per GiB; a synthetic peer's is starred. */
static void cpu_cell(FILE *f, const struct view *v, double cpu, bool peer)
{
	double per = cpu / ((double)v->res->cfg->size / GIB);

	table_cell(f, 10, per, cpu >= 0, peer ? "%.3f*" : "%.3f ");
}

/* A ratio's cell: "-" without one; "!" marks a run over the rule. */
static void ratio_cell(FILE *f, int width, double x, bool have, bool bad)
{
	table_cell(f, width, x, have, bad ? "%.2f!" : "%.2f ");
}

static void table_row(FILE *f, const struct view *v, int w,
		      enum bench_side s)
{
	const struct row *r = &v->med[w][s];
	const struct bench_series *ser = &v->res->s[w][s];
	const char *peer = synthetic(s);
	struct check k;

	fprintf(f, "%-6s %-19s", where_names[w], bench_side_name(s));
	if (!r->ok) {
		fprintf(f, "  failed in all %d runs\n", ser->n);
		return;
	}
	check_medians(v, w, s, &k);
	table_cell(f, 7, gbps(v, r), true, "%.2f");
	ratio_cell(f, 9, k.ratio, k.ratio > 0, !k.valid);
	ratio_cell(f, 9, k.cpu, k.cpu > 0, false);
	table_cell(f, 8, r->seconds, true, "%.3f");
	cpu_cell(f, v, r->cpu_send, peer && !strcmp(peer, "send"));
	cpu_cell(f, v, r->cpu_recv, peer && !strcmp(peer, "recv"));
	table_cell(f, 6, cores_busy(r), true, "%.2f");
	table_cell(f, 8, r->rss_mib, true, "%.1f");
	if (r->ok < ser->n)
		fprintf(f, "  (%d of %d runs failed)", ser->n - r->ok, ser->n);
	fputc('\n', f);
}

/* One line per push run over its ceiling, then the count. */
static void table_invalid(FILE *f, const struct view *v)
{
	int bad = 0, runs = 0;

	for (int w = BW_TMPFS; w < BW_MAX; w++) {
		for (int s = BS_BOTH; s <= BS_RECV; s++) {
			const struct bench_series *ser = &v->res->s[w][s];

			for (int i = 1; i <= ser->n; i++) {
				struct row r;
				struct check k;

				row_of_run(&r, &ser->run[i - 1], i);
				check_row(v, w, (enum bench_side)s, &r, &k);
				runs += r.ok;
				if (k.valid)
					continue;
				bad++;
				fprintf(f, "invalid: %s %s run %d: %.2f GB/s, "
					"%.2f times %s's %.2f GB/s in that "
					"round (%.0f%% over)\n",
					where_names[w],
					bench_side_name((enum bench_side)s), i,
					gbps(v, &r), k.ratio,
					bench_side_name(k.ceil_side),
					k.ceil_gbps, (k.ratio - 1.0) * 100.0);
			}
		}
	}
	fprintf(f, "validity: %d of %d push run%s beat their ceiling by more "
		"than %d%%%s\n", bad, runs, runs == 1 ? "" : "s",
		v->res->cfg->max_over, bad ? ": those runs and their medians "
		"(!) are invalid" : "");
}

/* The machine and its load: at the start of first, at the end of last. */
static void print_machine(FILE *f, const struct bench_results *first,
			  const struct bench_results *last)
{
	fprintf(f, "machine: %s, nproc %ld; load average %.2f %.2f %.2f at "
		"start, %.2f %.2f %.2f at end\n", first->cpu, first->nproc,
		first->load_start[0], first->load_start[1],
		first->load_start[2], last->load_end[0], last->load_end[1],
		last->load_end[2]);
}

static void table_head(FILE *f, const struct view *v)
{
	const struct bench_results *res = v->res;
	const struct bench_cfg *c = res->cfg;
	char sz[32], ch[32];

	fprintf(f, "rdmapush host-side benchmark over the in-memory fabric, "
		"%s\n", res->date);
	print_machine(f, res, res);
	fprintf(f, "file %s, chunk %s, window %u, threads %u (each "
		"ceiling's, and each push side's --threads); medians of %d "
		"runs after %d uncounted warm-up round%s; GB/s = 10^9 "
		"bytes/s\n",
		rp_fmt_bytes(sz, sizeof(sz), c->size),
		rp_fmt_bytes(ch, sizeof(ch), c->chunk), c->window, c->threads,
		c->runs, c->warmup, c->warmup == 1 ? "" : "s");
	for (int w = BW_TMPFS; w < BW_MAX; w++)
		if (res->fs[w])
			fprintf(f, "%s: %s (%s)\n", where_names[w],
				res->fs[w]->dir, res->fs[w]->type);
	fprintf(f, "\n%-6s %-19s %7s %9s %9s %8s %10s %10s %6s %8s\n", "fs",
		"side", "GB/s", "/ceiling", "CPU/ceil", "seconds", "send CPU",
		"recv CPU", "cores", "RSS MiB");
}

static void table_notes(FILE *f, const struct view *v)
{
	fprintf(f, "\n"
		"/ceiling: push GB/s over the ceiling of its side (both: the "
		"slower side's), on the same\n"
		"  %u thread%s. A push run more than %d%% over the ceiling's "
		"run of the same round is\n"
		"  invalid (listed above), and so are the medians over it "
		"(marked !).\n"
		"CPU/ceil: the push's CPU per GiB over its ceiling's, side "
		"by side (both: its two\n"
		"  real sides over the two ceilings); a busy machine "
		"disturbs it far less than GB/s.\n"
		"ceiling-send: %s, the source warm in the page cache.\n"
		"ceiling-recv: %s",
		v->res->cfg->threads, v->res->cfg->threads == 1 ? "" : "s",
		v->res->cfg->max_over, includes(BS_CEIL_SEND),
		includes(BS_CEIL_RECV));
	for (int w = BW_TMPFS; w < BW_MAX; w++)
		if (v->med[w][BS_CEIL_RECV].ok)
			fprintf(f, "; commit %.3f s on %s", v->med[w]
				[BS_CEIL_RECV].sync, where_names[w]);
	fprintf(f, ".\n"
		"ceiling-recv-nocopy: %s; the GB/s difference from "
		"ceiling-recv is what the copy costs.\n"
		"both/send/recv: wall time of a whole push (HELLO to ACK, "
		"the receiver's fsync included).\n"
		"send: synthetic receiver (credit only); recv: synthetic "
		"sender (one pre-filled slot);\n"
		"  * marks the synthetic peer's CPU.\n"
		"CPU: CPU seconds per GiB of all the threads of each side: a "
		"ceiling's workers and the\n"
		"  thread that opens and commits; a push's thread that drives "
		"the side and every\n"
		"  thread it starts (the session's workers). The fabric's "
		"copy (the NIC's DMA in\n"
		"  real life) runs in the sending thread: it is inside the "
		"sender's CPU.\n"
		"cores: the process's CPU (every thread) over wall time: ~2 "
		"when a push's sides ran\n"
		"  in parallel, up to the threads or the cores for a ceiling; "
		"less when they waited:\n"
		"  for each other, for the disk, or for a core (the JSON has "
		"each side's voluntary\n"
		"  and involuntary context switches).\n"
		"RSS: peak RSS of the forked child that ran the measurement "
		"(wait4 ru_maxrss).\n", includes(BS_CEIL_RECV_NOCOPY));
}

/* The cores a reference (one thread) or a ceiling (its threads, at
 * most one per core) can keep busy. */
static double cores_due(const struct view *v, enum bench_side s)
{
	double threads = s <= BS_MEMCPY ? 1.0 : v->res->cfg->threads;

	return v->res->nproc > 0 && threads > v->res->nproc ?
	       (double)v->res->nproc : threads;
}

/* A reference or ceiling that got less than its cores was sharing them;
 * on disk the receiver also waits for I/O, so only memory and tmpfs
 * tell. */
static void busy_warning(FILE *f, const struct view *v)
{
	double least = 1.0, got = 0.0, due = 0.0;

	for (int w = BW_MEM; w <= BW_TMPFS; w++) {
		for (int s = BS_XXH3; s <= BS_CEIL_RECV_NOCOPY; s++) {
			const struct row *r = &v->med[w][s];
			double d = cores_due(v, (enum bench_side)s);

			if (r->ok && cores_busy(r) / d < least) {
				least = cores_busy(r) / d;
				got = cores_busy(r);
				due = d;
			}
		}
	}
	if (least < 0.9)
		fprintf(f, "warning: a reference or ceiling in memory or on "
			"tmpfs kept only %.2f of the %.0f core%s\n  it could "
			"have busy: the machine was busy, the figures are "
			"low.\n", got, due, due == 1 ? "" : "s");
}

void bench_report_table(FILE *f, const struct bench_results *res)
{
	struct view v;

	view_init(&v, res);
	table_head(f, &v);
	for (int w = 0; w < BW_MAX; w++) {
		if (w != BW_MEM && !res->fs[w])
			continue;
		for (int s = 0; s < BS_MAX; s++)
			if (res->s[w][s].n)
				table_row(f, &v, w, (enum bench_side)s);
	}
	fputc('\n', f);
	table_invalid(f, &v);
	table_notes(f, &v);
	busy_warning(f, &v);
	fprintf(f, "wall time of the whole benchmark: %.1f s\n", res->wall);
}

/* ---------------------------------------------------------------------
 * JSON
 */

static int put(struct json_object *o, const char *k, struct json_object *x)
{
	return rp_json_add(o, k, x);
}

/* A number, or null when there is none. */
static int put_num(struct json_object *o, const char *k, double x,
		   bool have)
{
	if (!have)
		return json_object_object_add(o, k, NULL) ? -ENOMEM : 0;
	return put(o, k, json_object_new_double(x));
}

static int put_str(struct json_object *o, const char *k, const char *s)
{
	if (!s)
		return json_object_object_add(o, k, NULL) ? -ENOMEM : 0;
	return put(o, k, json_object_new_string(s));
}

static int put_where(struct json_object *o, const struct view *v, int w)
{
	const struct bench_fs *fs = v->res->fs[w];
	int rc = 0;

	rc |= put_str(o, "fs", where_names[w]);
	rc |= put_str(o, "fs_type", fs ? fs->type : "memory");
	rc |= put_str(o, "dir", fs ? fs->dir : NULL);
	return rc;
}

static int put_machine(struct json_object *o, const struct view *v)
{
	const struct bench_results *res = v->res;
	const struct bench_cfg *c = res->cfg;
	int rc = 0;

	rc |= put(o, "threads", json_object_new_int64(c->threads));
	rc |= put(o, "chunk", json_object_new_int64(c->chunk));
	rc |= put(o, "window", json_object_new_int64(c->window));
	rc |= put(o, "runs", json_object_new_int(c->runs));
	rc |= put(o, "warmup", json_object_new_int(c->warmup));
	rc |= put(o, "max_over_pct", json_object_new_int(c->max_over));
	rc |= put_str(o, "date", res->date);
	rc |= put_str(o, "cpu", res->cpu);
	rc |= put(o, "nproc", json_object_new_int64(res->nproc));
	rc |= put_num(o, "load1_start", res->load_start[0], true);
	rc |= put_num(o, "load1_end", res->load_end[0], true);
	return rc;
}

/* A row's speed, and a push's against its ceiling: of the same round
 * for a run, the medians' for the medians. */
static int put_speeds(struct json_object *o, const struct view *v,
		      const struct row *r, const struct check *k)
{
	double xxh = med_gbps(v, BW_MEM, BS_XXH3);
	double mcp = med_gbps(v, BW_MEM, BS_MEMCPY);
	int rc = 0;

	rc |= put(o, "bytes", json_object_new_uint64(v->res->cfg->size));
	rc |= put_num(o, "seconds", r->seconds, r->ok);
	rc |= put_num(o, "GBps", gbps(v, r), r->ok);
	rc |= put_num(o, "ceiling_GBps", k->ceil_gbps, k->ceil_gbps > 0);
	rc |= put_str(o, "ceiling", k->ceil_gbps > 0 ?
		      bench_side_name(k->ceil_side) : NULL);
	rc |= put_num(o, "ratio", k->ratio, k->ratio > 0);
	rc |= put(o, "valid", json_object_new_boolean(k->valid));
	rc |= put_num(o, "xxh3_GBps", xxh, xxh > 0);
	rc |= put_num(o, "memcpy_GBps", mcp, mcp > 0);
	return rc;
}

/* A single run's context switches per side (not medians): voluntary
 * ones are waits, involuntary ones other load taking the CPU. */
static int put_csw(struct json_object *o, const struct row *r)
{
	static const char *const keys[4] = {
		"vcsw_send", "ivcsw_send", "vcsw_recv", "ivcsw_recv",
	};
	bool have_send = r->run && r->ok && r->cpu_send >= 0;
	bool have_recv = r->run && r->ok && r->cpu_recv >= 0;
	int rc = 0;

	for (int i = 0; i < 4; i++) {
		bool have = i < 2 ? have_send : have_recv;

		if (!have)
			rc |= json_object_object_add(o, keys[i], NULL) ?
			      -ENOMEM : 0;
		else
			rc |= put(o, keys[i], json_object_new_int64(r->csw[i]));
	}
	return rc;
}

/*
 * CPU per GiB of all the threads of each side (null where the row has
 * no such side: the references, the other side of a ceiling; and for a
 * failed run), and a push's over its ceilings' (null but for a push's
 * real sides).
 */
static int put_cpu(struct json_object *o, const struct view *v,
		   enum bench_side s, const struct row *r,
		   const struct check *k)
{
	double gib = (double)v->res->cfg->size / GIB;
	bool refs = s == BS_XXH3 || s == BS_MEMCPY;
	bool send = r->ok && !refs && r->cpu_send >= 0;
	bool recv = r->ok && !refs && r->cpu_recv >= 0;
	int rc = 0;

	rc |= put_num(o, "send_cpu_s_per_GiB", r->cpu_send / gib, send);
	rc |= put_num(o, "recv_cpu_s_per_GiB", r->cpu_recv / gib, recv);
	rc |= send ? put(o, "send_threads",
			 json_object_new_int(r->threads_send)) :
		     put_num(o, "send_threads", 0, false);
	rc |= recv ? put(o, "recv_threads",
			 json_object_new_int(r->threads_recv)) :
		     put_num(o, "recv_threads", 0, false);
	rc |= put_num(o, "send_cpu_vs_ceiling", k->cpu_side[0],
		      k->cpu_side[0] > 0);
	rc |= put_num(o, "recv_cpu_vs_ceiling", k->cpu_side[1],
		      k->cpu_side[1] > 0);
	rc |= put_num(o, "cpu_vs_ceiling", k->cpu, k->cpu > 0);
	return rc;
}

static int put_costs(struct json_object *o, const struct view *v,
		     enum bench_side s, const struct row *r)
{
	double gib = (double)v->res->cfg->size / GIB;
	int rc = 0;

	rc |= put_num(o, "cpu_s_per_GiB", r->cpu_total / gib, r->ok);
	rc |= put_num(o, "cores_busy", cores_busy(r), r->ok);
	rc |= put_num(o, "peak_rss_MiB", r->rss_mib, r->ok);
	rc |= put_num(o, "sync_seconds", r->sync, r->ok && s == BS_CEIL_RECV);
	rc |= put_csw(o, r);
	rc |= put_str(o, "synthetic", synthetic(s));
	rc |= put_str(o, "includes", includes(s));
	return rc;
}

static int put_status(struct json_object *o, const struct row *r)
{
	int rc = 0;

	if (r->run) {
		rc |= put(o, "run", json_object_new_int(r->run));
		rc |= put(o, "median", json_object_new_boolean(0));
	} else {
		rc |= put_num(o, "run", 0, false);
		rc |= put(o, "median", json_object_new_boolean(1));
		rc |= put(o, "ok_runs", json_object_new_int(r->ok));
	}
	rc |= put_str(o, "status", r->ok ? "ok" : "error");
	if (r->run && !r->ok)
		rc |= put_str(o, "error", rp_strerror(r->rc));
	return rc;
}

static int json_row(FILE *f, const struct view *v, int w, enum bench_side s,
		    const struct row *r)
{
	struct json_object *o = json_object_new_object();
	struct check k;
	int rc;

	if (!o)
		return -ENOMEM;
	check_any(v, w, s, r, &k);
	rc = put_str(o, "side", bench_side_name(s));
	rc |= put_where(o, v, w);
	rc |= put_status(o, r);
	rc |= put_speeds(o, v, r, &k);
	rc |= put_cpu(o, v, s, r, &k);
	rc |= put_costs(o, v, s, r);
	rc |= put_machine(o, v);
	if (!rc) {
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      f);
		fputc('\n', f);
	}
	json_object_put(o);
	return rc ? -ENOMEM : 0;
}

static int json_series(FILE *f, const struct view *v, int w,
		       enum bench_side s)
{
	const struct bench_series *ser = &v->res->s[w][s];
	int rc = 0;

	for (int i = 0; !rc && i < ser->n; i++) {
		struct row r;

		row_of_run(&r, &ser->run[i], i + 1);
		rc = json_row(f, v, w, s, &r);
	}
	return rc;
}

int bench_report_json(FILE *f, const struct bench_results *res)
{
	struct view v;
	int rc = 0;

	view_init(&v, res);
	/* Six significant digits: the runs are not more precise. */
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	for (int w = 0; !rc && w < BW_MAX; w++)
		for (int s = 0; !rc && s < BS_MAX; s++)
			rc = json_series(f, &v, w, (enum bench_side)s);
	for (int w = 0; !rc && w < BW_MAX; w++)
		for (int s = 0; !rc && s < BS_MAX; s++)
			if (res->s[w][s].n)
				rc = json_row(f, &v, w, (enum bench_side)s,
					      &v.med[w][s]);
	if (rc) {
		RP_ERR("json-c: %s", strerror(-rc));
		return rc;
	}
	if (fflush(f)) {
		RP_ERR("writing the JSON report: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The sweep: a table per file system, a gnuplot script
 */

/* "64K", "1M": a chunk size as --chunk takes it. */
static const char *short_size(char *buf, size_t len, uint32_t v)
{
	if (v % (1u << 20) == 0)
		snprintf(buf, len, "%uM", v >> 20);
	else if (v % 1024 == 0)
		snprintf(buf, len, "%uK", v >> 10);
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

/* Where a side is measured: the references in memory, the rest on files. */
static bool side_in(enum bench_side s, int w)
{
	return (w == BW_MEM) == (s <= BS_MEMCPY);
}

/* The sweep's columns: each push after its side's ceiling. */
static const enum bench_side sweep_order[] = {
	BS_XXH3, BS_MEMCPY, BS_CEIL_SEND, BS_SEND, BS_CEIL_RECV,
	BS_CEIL_RECV_NOCOPY, BS_RECV, BS_BOTH,
};

#define SWEEP_COLS	(sizeof(sweep_order) / sizeof(sweep_order[0]))

static int col_width(enum bench_side s)
{
	int n = (int)strlen(bench_side_name(s));

	return n < 7 ? 7 : n;
}

static void sweep_head(FILE *f, struct bench_results *const *cell, int n,
		       double wall)
{
	const struct bench_results *a = cell[0];
	const struct bench_results *z = cell[n - 1];
	const struct bench_cfg *c = a->cfg;
	char sz[32];

	fprintf(f, "rdmapush host-side sweep over the in-memory fabric, %s\n",
		a->date);
	print_machine(f, a, z);
	fprintf(f, "file %s, window %u, %d cell%s of threads x chunk; each "
		"cell: medians of %d run%s\nafter %d uncounted warm-up "
		"round%s; GB/s = 10^9 bytes/s; wall time of the sweep "
		"%.1f s\n", rp_fmt_bytes(sz, sizeof(sz), c->size), c->window,
		n, n == 1 ? "" : "s", c->runs, c->runs == 1 ? "" : "s", c->warmup,
		c->warmup == 1 ? "" : "s", wall);
	fprintf(f, "threads: each ceiling's, and each push side's "
		"--threads. /ceiling: the push before it over\nits side's "
		"ceiling in the same cell (both: the slower side's); - : "
		"not measured or failed.\n");
}

static void sweep_table(FILE *f, struct bench_results *const *cell, int n,
			int w)
{
	unsigned int only = cell[0]->cfg->only;
	const struct bench_fs *fs = cell[0]->fs[w];
	char ch[16];

	if (w == BW_MEM)
		fprintf(f, "\nmemory (one thread, whatever the cell's "
			"threads):\n");
	else
		fprintf(f, "\n%s: %s (%s)\n", where_names[w], fs->dir,
			fs->type);
	fprintf(f, "%7s %6s", "threads", "chunk");
	for (size_t k = 0; k < SWEEP_COLS; k++) {
		enum bench_side s = sweep_order[k];

		if (!(only & (1u << s)) || !side_in(s, w))
			continue;
		fprintf(f, " %*s", col_width(s), bench_side_name(s));
		if (is_push(s))
			fprintf(f, " %8s", "/ceiling");
	}
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		struct view v;

		view_init(&v, cell[i]);
		fprintf(f, "%7u %6s", cell[i]->cfg->threads,
			short_size(ch, sizeof(ch), cell[i]->cfg->chunk));
		for (size_t k = 0; k < SWEEP_COLS; k++) {
			enum bench_side s = sweep_order[k];
			double g = med_gbps(&v, w, s);
			double ceil = ceiling(&v, w, s);

			if (!(only & (1u << s)) || !side_in(s, w))
				continue;
			table_cell(f, col_width(s), g, g > 0, "%.2f");
			if (is_push(s))
				table_cell(f, 8, g / ceil, g > 0 && ceil > 0,
				     "%.2f");
		}
		fputc('\n', f);
	}
}

/* The least busy reference or ceiling of all cells, as busy_warning. */
static void sweep_busy(FILE *f, struct bench_results *const *cell, int n)
{
	double least = 1.0, got = 0.0, due = 0.0;
	char ch[16];
	int which = -1;

	for (int i = 0; i < n; i++) {
		struct view v;

		view_init(&v, cell[i]);
		for (int w = BW_MEM; w <= BW_TMPFS; w++) {
			for (int s = BS_XXH3; s <= BS_CEIL_RECV_NOCOPY; s++) {
				const struct row *r = &v.med[w][s];
				double d = cores_due(&v, (enum bench_side)s);

				if (!r->ok || cores_busy(r) / d >= least)
					continue;
				least = cores_busy(r) / d;
				got = cores_busy(r);
				due = d;
				which = i;
			}
		}
	}
	if (least < 0.9)
		fprintf(f, "warning: a reference or ceiling (%u threads, "
			"chunk %s) kept only %.2f of the %.0f\n  core%s it "
			"could have busy: the machine was busy, the figures "
			"are low.\n", cell[which]->cfg->threads,
			short_size(ch, sizeof(ch), cell[which]->cfg->chunk),
			got, due, due == 1 ? "" : "s");
}

void bench_report_sweep(FILE *f, struct bench_results *const *cell, int n,
			double wall)
{
	const struct bench_cfg *c = cell[0]->cfg;

	sweep_head(f, cell, n, wall);
	if (c->only & ((1u << BS_XXH3) | (1u << BS_MEMCPY)))
		sweep_table(f, cell, n, BW_MEM);
	for (int w = BW_TMPFS; w < BW_MAX; w++)
		if (cell[0]->fs[w])
			sweep_table(f, cell, n, w);
	sweep_busy(f, cell, n);
}

/* The two panels of a file system's row: the push alone, its ceiling. */
static const struct {
	const char *title;
	enum bench_side push, ceil;
} panels[] = {
	{ "sender: send alone (synthetic receiver) and ceiling-send",
	  BS_SEND, BS_CEIL_SEND },
	{ "receiver: recv alone (synthetic sender) and ceiling-recv",
	  BS_RECV, BS_CEIL_RECV },
};

/* A datablock per file system and thread count: one line per chunk. */
static void plot_data(FILE *f, struct bench_results *const *cell, int n,
		      int w)
{
	uint32_t threads = 0;

	for (int i = 0; i < n; i++) {
		struct view v;

		if (cell[i]->cfg->threads != threads) {
			if (threads)
				fprintf(f, "EOD\n");
			threads = cell[i]->cfg->threads;
			fprintf(f, "$%s_t%u << EOD\n# chunk_bytes",
				where_names[w], threads);
			for (size_t p = 0; p < 2; p++)
				fprintf(f, " %s %s",
					bench_side_name(panels[p].push),
					bench_side_name(panels[p].ceil));
			fputc('\n', f);
		}
		view_init(&v, cell[i]);
		fprintf(f, "%u", cell[i]->cfg->chunk);
		for (size_t p = 0; p < 2; p++) {
			double g = med_gbps(&v, w, panels[p].push);
			double ceil = med_gbps(&v, w, panels[p].ceil);

			table_cell(f, 0, g, g > 0, "%.4f");
			table_cell(f, 0, ceil, ceil > 0, "%.4f");
		}
		fputc('\n', f);
	}
	if (threads)
		fprintf(f, "EOD\n");
}

/* Whether cells with threads have a measured point of side on w. */
static bool plot_has(struct bench_results *const *cell, int n, int w,
		     uint32_t threads, enum bench_side s)
{
	for (int i = 0; i < n; i++)
		if (cell[i]->cfg->threads == threads &&
		    bench_median_gbps(cell[i], w, s) > 0)
			return true;
	return false;
}

/* One panel: a solid line per thread count for the push, dashed in the
 * same colour for its ceiling; an empty panel is skipped. */
static void plot_panel(FILE *f, struct bench_results *const *cell, int n,
		       int w, size_t p)
{
	const char *sep = "plot ";
	uint32_t threads = 0;
	int colour = 0;

	fprintf(f, "set title \"%s: %s\"\n", where_names[w], panels[p].title);
	for (int i = 0; i < n; i++) {
		enum bench_side sides[2] = { panels[p].push, panels[p].ceil };

		if (cell[i]->cfg->threads == threads)
			continue;
		threads = cell[i]->cfg->threads;
		colour++;
		for (int k = 0; k < 2; k++) {
			if (!plot_has(cell, n, w, threads, sides[k]))
				continue;
			fprintf(f, "%s\\\n  $%s_t%u using 1:%zu with %s lw 2 "
				"lc %d dt %d title \"%s, %u thread%s\"", sep,
				where_names[w], threads, 2 + 2 * p + k,
				k ? "lines" : "linespoints pt 7", colour,
				k ? 2 : 1, k ? "ceiling" : bench_side_name(
				sides[k]), threads, threads == 1 ? "" : "s");
			sep = ", ";
		}
	}
	if (*sep == ',')
		fputc('\n', f);
	else
		fprintf(f, "set multiplot next\n");
}

int bench_report_plot(FILE *f, struct bench_results *const *cell, int n,
		      const char *svg)
{
	const struct bench_results *a = cell[0];
	const struct bench_cfg *c = a->cfg;
	int rows = 0;
	char sz[32], ch[16];

	for (int w = BW_TMPFS; w < BW_MAX; w++)
		rows += a->fs[w] != NULL;
	fprintf(f, "# rdmapush bench_mem --sweep, %s, on %s (nproc %ld).\n"
		"# GB/s (10^9 bytes/s) against chunk size, medians measured "
		"in that run.\n# Draw it: gnuplot THIS_FILE\n", a->date,
		a->cpu, a->nproc);
	fprintf(f, "set terminal svg size 1400,%d dynamic noenhanced "
		"font \"sans,11\" background rgb \"white\"\n"
		"set output \"%s\"\nset datafile missing \"-\"\n",
		rows ? 520 * rows : 200, svg);
	for (int w = BW_TMPFS; w < BW_MAX; w++)
		if (a->fs[w])
			plot_data(f, cell, n, w);
	if (!rows) {
		fprintf(f, "set label \"nothing measured on files\" at "
			"screen 0.4, screen 0.5\nplot NaN notitle\n");
		goto done;
	}
	fprintf(f, "set multiplot layout %d,2 title \"rdmapush bench_mem "
		"--sweep: %s file, window %u, medians of %d run%s, %s\"\n",
		rows, rp_fmt_bytes(sz, sizeof(sz), c->size), c->window,
		c->runs, c->runs == 1 ? "" : "s", a->date);
	fprintf(f, "set logscale x 2\nset xtics (");
	for (int i = 0; i < n && cell[i]->cfg->threads == c->threads; i++)
		fprintf(f, "%s\"%s\" %u", i ? ", " : "",
			short_size(ch, sizeof(ch), cell[i]->cfg->chunk),
			cell[i]->cfg->chunk);
	fprintf(f, ")\nset xlabel \"chunk size\"\nset ylabel \"GB/s\"\n"
		"set yrange [0:*]\nset grid\n"
		"set key outside right top vertical samplen 2\n");
	for (int w = BW_TMPFS; w < BW_MAX; w++)
		for (size_t p = 0; a->fs[w] && p < 2; p++)
			plot_panel(f, cell, n, w, p);
	fprintf(f, "unset multiplot\n");
done:
	if (ferror(f)) {
		RP_ERR("writing the gnuplot script: %s", strerror(EIO));
		return -EIO;
	}
	return 0;
}
