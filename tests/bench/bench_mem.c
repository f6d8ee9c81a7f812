// SPDX-License-Identifier: MIT
/*
 * scripts/bench mem: the host side of a transfer (read, hash, write)
 * measured natively, since no machine here has RDMA and the lab's CPUs
 * are emulated. Options, the directories under test, one forked child
 * per measurement (so peak RSS is each one's own), and the schedule of
 * one invocation or of a sweep over threads x chunk; bench_work.c
 * measures, bench_report.c prints.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/limits.h"
#include "rdmapush/opts.h"
#include "rdmapush/trace.h"

#include "bench.h"

static const char usage[] =
"usage: bench_mem [options]\n"
"       bench_mem --sweep [--sweep-threads LIST] [--sweep-chunks LIST]\n"
"                 [--plot PREFIX] [options]\n"
"Measure rdmapush's host side natively over the in-memory fabric:\n"
"XXH3-128 and memcpy (one thread), each side's ceiling (its unavoidable\n"
"work on --threads threads, each taking the next chunk), and pushes (both\n"
"sides, send alone, recv alone; rdmapush --threads N) on tmpfs and on\n"
"disk. Prints medians, each push over its side's ceiling (GB/s and CPU\n"
"per GiB), and marks a push run that beats its ceiling as invalid.\n"
"\n"
"  -s, --size SIZE     file size (default 1G; 256M with --sweep)\n"
"  -c, --chunk SIZE    chunk (default 1M)\n"
"  -w, --window N      chunks in flight (default 8)\n"
"      --threads N     threads of each ceiling and of each push's sides,\n"
"                      1..64 (default rdmapush's: one per online core, at\n"
"                      most 8)\n"
"  -r, --runs N        runs of each measurement, 1..99 (default 3)\n"
"      --warmup N      uncounted rounds first, per file system (default 1):\n"
"                      the first write to fresh memory is slow in a VM\n"
"      --only LIST     measure only these, e.g. both,send (default all:\n"
"                      xxh3,memcpy,ceiling-send,ceiling-recv,\n"
"                      ceiling-recv-nocopy,both,send,recv; with --sweep\n"
"                      ceiling-send,ceiling-recv,send,recv)\n"
"  -f, --fs WHICH      tmpfs, disk or both (default both; tmpfs with\n"
"                      --sweep)\n"
"      --tmpfs DIR     where to make the tmpfs directory (/dev/shm)\n"
"      --disk DIR      where to make the disk directory (.)\n"
"  -t, --timeout S     per-phase timeout of each push (default 60)\n"
"      --max-over PCT  a push run more than PCT% over its side's ceiling\n"
"                      in the same round is invalid (default 5; -100\n"
"                      marks every push run, to see the marking)\n"
"  -j, --json          one JSON object per run and per median on stdout\n"
"                      (with --sweep, of every cell); the table goes to\n"
"                      stderr\n"
"  -h, --help\n"
"\n"
"The sweep measures every cell of threads x chunk in turn, the same way\n"
"as one invocation with --threads and --chunk would, on one source file\n"
"per file system, and prints per cell each measurement's GB/s and each\n"
"push over its side's ceiling at the same threads and chunk:\n"
"      --sweep         sweep (not with --threads or --chunk)\n"
"      --sweep-threads LIST  thread counts, at most 8 (default 1,2,4)\n"
"      --sweep-chunks LIST   chunk sizes, at most 8\n"
"                      (default 64K,256K,1M,4M)\n"
"      --plot PREFIX   write PREFIX.gp, a gnuplot script with the data\n"
"                      inline that draws GB/s against chunk size, one line\n"
"                      per thread count, into PREFIX.svg (run gnuplot\n"
"                      PREFIX.gp; scripts/bench mem --sweep does)\n";

/* ---------------------------------------------------------------------
 * Options
 */

#define SWEEP_MAX	8	/* entries of each --sweep-* list */

/* The command line: one invocation's cfg, and the sweep's cells. */
struct args {
	struct bench_cfg c;
	bool sweep;
	uint32_t threads[SWEEP_MAX];
	int nthreads;
	uint32_t chunks[SWEEP_MAX];
	int nchunks;
	const char *plot;	/* PREFIX: PREFIX.gp draws PREFIX.svg */
	/* Given on the command line: the sweep's defaults do not apply. */
	bool set_size, set_fs, set_only, set_threads, set_chunk;
};

static int parse_bytes(const char *opt, const char *arg, uint64_t min,
		       uint64_t max, uint64_t *out)
{
	if (rp_opts_parse_size(arg, out) || *out < min || *out > max)
		return bench_bad(opt, arg,
				 "not a size in range (e.g. 64M, 1G)");
	return 0;
}

/* One name of --only. */
static int only_item(const char *t, void *ctx)
{
	struct bench_cfg *c = ctx;
	int s = 0;

	while (s < BS_MAX && strcmp(t, bench_side_name(s)))
		s++;
	if (s == BS_MAX)
		return bench_bad("--only", t, "not a measurement's name");
	c->only |= 1u << s;
	return 0;
}

/* A --sweep-* list being parsed. */
struct list {
	const char *opt;
	const char *arg;
	bool sizes;		/* chunk sizes, else thread counts */
	uint32_t *out;
	int *n;
};

/* One entry of a --sweep-* list. */
static int list_item(const char *t, void *ctx)
{
	struct list *x = ctx;
	uint64_t u;
	long long l;
	int rc;

	if (*x->n == SWEEP_MAX)
		return bench_bad(x->opt, x->arg, "more than 8 entries");
	if (x->sizes) {
		rc = parse_bytes(x->opt, t, RP_MIN_CHUNK, RP_MAX_CHUNK, &u);
		x->out[*x->n] = (uint32_t)u;
	} else {
		rc = bench_parse_count(x->opt, t, 1, RP_MAX_THREADS, &l);
		x->out[*x->n] = (uint32_t)l;
	}
	if (!rc)
		(*x->n)++;
	return rc;
}

/* A --sweep-* list: comma-separated thread counts or sizes. */
static int parse_list(const char *opt, const char *arg, bool sizes,
		      uint32_t *out, int *n)
{
	struct list x = { opt, arg, sizes, out, n };

	*n = 0;
	return bench_parse_list(opt, arg, 128, list_item, &x);
}

/* The shape must be one the real receiver agrees to unchanged. */
static int check_shape(const struct bench_cfg *c)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%u x %u", c->chunk, c->window);
	if ((uint64_t)c->chunk * c->window > RP_MAX_RING)
		return bench_bad("--chunk x --window", arg,
				 "over the 256 MiB ring cap");
	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)c->size);
	if (c->size < c->chunk)
		return bench_bad("--size", arg, "must be at least one chunk");
	if (c->size / c->chunk >= UINT32_MAX)
		return bench_bad("--size", arg, "too many chunks for --chunk");
	return 0;
}

static int parse_shape(int opt, const char *arg, struct args *a)
{
	struct bench_cfg *c = &a->c;
	uint64_t u;
	long long l;
	int rc = 0;

	switch (opt) {
	case 's':
		rc = parse_bytes("--size", arg, 1, UINT64_MAX / 2, &c->size);
		a->set_size = true;
		break;
	case 'c':
		rc = parse_bytes("--chunk", arg, RP_MIN_CHUNK, RP_MAX_CHUNK,
				 &u);
		c->chunk = (uint32_t)u;
		a->set_chunk = true;
		break;
	case 'w':
		rc = bench_parse_count("--window", arg, 1, RP_MAX_WINDOW, &l);
		c->window = (uint32_t)l;
		break;
	case 'N':
		rc = bench_parse_count("--threads", arg, 1, RP_MAX_THREADS, &l);
		c->threads = (uint32_t)l;
		a->set_threads = true;
		break;
	case 'S':
		a->sweep = true;
		break;
	case 'X':
		return parse_list("--sweep-threads", arg, false, a->threads,
				  &a->nthreads);
	case 'Y':
		return parse_list("--sweep-chunks", arg, true, a->chunks,
				  &a->nchunks);
	case 'P':
		a->plot = arg;
		break;
	default:
		fputs(usage, stderr);
		return RP_EUSAGE;
	}
	return rc;
}

static int parse_one(int opt, const char *arg, void *ctx)
{
	struct args *a = ctx;
	struct bench_cfg *c = &a->c;
	long long l;
	int rc;

	if (opt == 'f')
		a->set_fs = true;
	rc = bench_parse_fsopts(opt, arg, &c->fsopts);
	if (rc <= 0)
		return rc;
	rc = 0;
	switch (opt) {
	case 'r':
		rc = bench_parse_count("--runs", arg, 1, BENCH_RUNS_MAX, &l);
		c->runs = (int)l;
		break;
	case 'W':
		rc = bench_parse_count("--warmup", arg, 0, 9, &l);
		c->warmup = (int)l;
		break;
	case 'O':
		a->set_only = true;
		c->only = 0;
		return bench_parse_list("--only", arg, 128, only_item, c);
	case 't':
		rc = bench_parse_count("--timeout", arg, 1, 3600, &l);
		c->timeout = (int)l;
		break;
	case 'M':
		rc = bench_parse_count("--max-over", arg, -100, 1000, &l);
		c->max_over = (int)l;
		break;
	case 'j':
		c->json = true;
		break;
	default:
		return parse_shape(opt, arg, a);
	}
	return rc;
}

/* The sweep's defaults where the command line said nothing, its lists
 * checked against the shape; 0 or RP_EUSAGE (reported). */
static int sweep_args(struct args *a)
{
	static const uint32_t threads[] = { 1, 2, 4 };
	static const uint32_t chunks[] = { 64u << 10, 256u << 10, 1u << 20,
					   4u << 20 };

	if (a->set_threads || a->set_chunk)
		return bench_bad("--sweep",
				 a->set_threads ? "--threads" : "--chunk",
				 "the sweep's cells set these: use "
				 "--sweep-threads and --sweep-chunks");
	if (!a->nthreads) {
		memcpy(a->threads, threads, sizeof(threads));
		a->nthreads = sizeof(threads) / sizeof(threads[0]);
	}
	if (!a->nchunks) {
		memcpy(a->chunks, chunks, sizeof(chunks));
		a->nchunks = sizeof(chunks) / sizeof(chunks[0]);
	}
	if (!a->set_size)
		a->c.size = 256ull << 20;
	if (!a->set_fs)
		a->c.fsopts.use_disk = false;
	if (!a->set_only)
		a->c.only = 1u << BS_CEIL_SEND | 1u << BS_CEIL_RECV |
			    1u << BS_SEND | 1u << BS_RECV;
	for (int i = 0; i < a->nchunks; i++) {
		struct bench_cfg c = a->c;
		int rc;

		c.chunk = a->chunks[i];
		rc = check_shape(&c);
		if (rc)
			return rc;
	}
	return 0;
}

/* 0, RP_EUSAGE (reported), or 1 for --help (printed). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longs[] = {
		{ "size", required_argument, NULL, 's' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "window", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 'N' },
		{ "runs", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "only", required_argument, NULL, 'O' },
		{ "fs", required_argument, NULL, 'f' },
		{ "tmpfs", required_argument, NULL, 'T' },
		{ "disk", required_argument, NULL, 'D' },
		{ "timeout", required_argument, NULL, 't' },
		{ "max-over", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "sweep", no_argument, NULL, 'S' },
		{ "sweep-threads", required_argument, NULL, 'X' },
		{ "sweep-chunks", required_argument, NULL, 'Y' },
		{ "plot", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* No --threads: what a push with no --threads gets. */
	const struct rp_config none = { 0 };
	int rc;

	*a = (struct args){ .c = {
		.size = 1ull << 30, .chunk = RP_DEFAULT_CHUNK,
		.window = RP_DEFAULT_WINDOW, .threads = rp_config_threads(&none),
		.runs = 3, .warmup = 1,
		.only = (1u << BS_MAX) - 1, .timeout = 60, .max_over = 5,
		.fsopts = BENCH_FSOPTS_DEFAULT,
	} };
	rc = bench_getopt(argc, argv, "s:c:w:r:f:t:jh", longs, parse_one, a);
	if (rc)
		return rc;
	if (!a->sweep && (a->plot || a->nthreads || a->nchunks))
		return bench_bad(a->plot ? "--plot" : "--sweep-*", "",
				 "only with --sweep");
	return a->sweep ? sweep_args(a) : check_shape(&a->c);
}

/* ---------------------------------------------------------------------
 * The directories under test
 */

/* Write the source and fsync it, so its writeback never overlaps a run. */
static int fill_source(int fd, const struct bench_cfg *c, uint8_t *buf)
{
	for (uint64_t off = 0; off < c->size; off += c->chunk) {
		uint64_t left = c->size - off;
		size_t len = left < c->chunk ? (size_t)left : c->chunk;
		int rc;

		bench_fill(buf, len, off / c->chunk + 100);
		rc = bench_write_full(fd, buf, len);
		if (rc) {
			RP_ERR("write(source, %zu bytes at %llu): %s", len,
			       (unsigned long long)off, strerror(-rc));
			return rc;
		}
	}
	if (fsync(fd)) {
		int e = errno;

		RP_ERR("fsync(source): %s", strerror(e));
		return -e;
	}
	return 0;
}

static int make_source(const struct bench_fs *fs, const struct bench_cfg *c)
{
	uint8_t *buf = malloc(c->chunk);
	int fd, rc;

	if (!buf) {
		RP_ERR("malloc(%u): %s", c->chunk, strerror(ENOMEM));
		return -ENOMEM;
	}
	fd = open(fs->src, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		RP_ERR("open(%s): %s", fs->src, strerror(-rc));
		goto out;
	}
	rc = fill_source(fd, c, buf);
	if (close(fd) && !rc) {
		rc = -errno;
		RP_ERR("close(%s): %s", fs->src, strerror(-rc));
	}
out:
	free(buf);
	return rc;
}

/* The received file goes after every measurement (ENOENT is fine). */
static void clear_dst(const struct bench_fs *fs)
{
	if (unlinkat(fs->dirfd, BENCH_DST, 0) && errno != ENOENT)
		RP_ERR("unlinkat(%s/%s): %s", fs->dir, BENCH_DST,
		       strerror(errno));
}

/* Removes what fs_setup made, reporting and continuing; the name stays
 * for the report. NULL-safe, and a second call does nothing. */
static void fs_teardown(struct bench_fs *fs)
{
	if (!fs || !fs->made)
		return;
	if (fs->dirfd >= 0) {
		clear_dst(fs);
		close(fs->dirfd);
		fs->dirfd = -1;
	}
	if (unlink(fs->src) && errno != ENOENT)
		RP_ERR("unlink(%s): %s", fs->src, strerror(errno));
	if (rmdir(fs->dir))
		RP_ERR("rmdir(%s): %s", fs->dir, strerror(errno));
	fs->made = false;
}

static int fs_setup(struct bench_fs *fs, const char *label, const char *base,
		    const struct bench_cfg *c)
{
	int rc;

	*fs = (struct bench_fs){ .label = label, .dirfd = -1 };
	rc = bench_mkdtemp(fs->dir, sizeof(fs->dir), base, "rp-bench", label);
	if (rc)
		return rc;
	fs->made = true;
	snprintf(fs->src, sizeof(fs->src), "%s/src.bin", fs->dir);
	rc = bench_fs_type(fs->dir, fs->type, sizeof(fs->type));
	if (!rc)
		rc = rp_fileio_dir_open(fs->dir, &fs->dirfd);
	if (!rc)
		rc = make_source(fs, c);
	if (rc)
		goto err_teardown;
	return 0;

err_teardown:
	fs_teardown(fs);
	return rc;
}

/* ---------------------------------------------------------------------
 * One measurement in a forked child
 */

/* What the child measures. */
struct job {
	enum bench_side side;
	const struct bench_cfg *c;
	const struct bench_fs *fs;
};

static int child(void *arg, void *res)
{
	const struct job *j = arg;
	struct bench_run *r = res;

	*r = (struct bench_run){ .cpu_send = -1.0, .cpu_recv = -1.0 };
	r->rc = bench_measure(j->side, j->c, j->fs, r);
	return r->rc;
}

static int measure(enum bench_side side, const struct bench_cfg *c,
		   const struct bench_fs *fs, struct bench_run *r)
{
	struct job j = { .side = side, .c = c, .fs = fs };
	int rc = bench_fork(bench_side_name(side), child, &j, r, sizeof(*r),
			    &r->rss_kib);

	if (rc)
		r->rc = rc;
	return r->rc;
}

/* ---------------------------------------------------------------------
 * The schedule: references, then per file system interleaved runs
 */

static double run_gbps(const struct bench_run *r)
{
	return r->rc || r->seconds <= 0 ? 0.0 :
	       (double)r->bytes / r->seconds / 1e9;
}

/* One measurement into its series, or nowhere for a warm-up round. */
static int measure_into(struct bench_results *res, int w, enum bench_side s,
			const struct bench_fs *fs, bool warmup)
{
	struct bench_series *ser = &res->s[w][s];
	struct bench_run scratch;
	struct bench_run *r = warmup ? &scratch : &ser->run[ser->n++];
	int rc;

	*r = (struct bench_run){ .cpu_send = -1.0, .cpu_recv = -1.0 };
	if (fs)
		clear_dst(fs);
	rc = measure(s, res->cfg, fs, r);
	if (fs)
		clear_dst(fs);
	fprintf(stderr, " %s %.2f", bench_side_name(s), run_gbps(r));
	return rc;
}

/* Round i (warm-up rounds first, numbered from 1 - warmup) of sides
 * first..last; the number of failures. */
static int run_round(struct bench_results *res, int w, int i,
		     enum bench_side first, enum bench_side last,
		     const struct bench_fs *fs)
{
	const struct bench_cfg *c = res->cfg;
	char ch[32];
	int failed = 0;

	fprintf(stderr, "bench_mem: %s, %u thread%s, chunk %s, ",
		fs ? fs->label : "memory", c->threads,
		c->threads == 1 ? "" : "s",
		rp_fmt_bytes(ch, sizeof(ch), c->chunk));
	if (i < 1)
		fprintf(stderr, "warm-up GB/s:");
	else
		fprintf(stderr, "run %d/%d GB/s:", i, c->runs);
	for (int s = (int)first; s <= (int)last && !bench_stop; s++)
		if (c->only & (1u << s))
			failed += measure_into(res, w, (enum bench_side)s, fs,
					       i < 1) != 0;
	fputc('\n', stderr);
	return failed;
}

/* Interleaved rounds: each run of every side before the next run. */
static int run_block(struct bench_results *res, int w, enum bench_side first,
		     enum bench_side last, const struct bench_fs *fs)
{
	const struct bench_cfg *c = res->cfg;
	unsigned int mask = ((1u << (last + 1)) - 1) & ~((1u << first) - 1);
	int failed = 0;

	if (!(c->only & mask))
		return 0;
	for (int i = 1 - c->warmup; i <= c->runs && !bench_stop; i++)
		failed += run_round(res, w, i, first, last, fs);
	return failed;
}

/* Every measurement from the ceilings on needs the directory. */
static bool on_files(const struct bench_cfg *c)
{
	return c->only & ((1u << BS_MAX) - (1u << BS_CEIL_SEND));
}

/* The file system measurements of each of n cells (one for a single
 * invocation) in a directory made once; the number of failures. */
static int run_fs(struct bench_results *const *cell, int n, int w,
		  struct bench_fs *fs, const char *label, const char *base)
{
	int failed = 0;

	if (!on_files(cell[0]->cfg))
		return 0;
	if (fs_setup(fs, label, base, cell[0]->cfg))
		return 1;
	bench_check_kind(fs->label, fs->dir, fs->type);
	for (int i = 0; i < n && !bench_stop; i++) {
		cell[i]->fs[w] = fs;
		failed += run_block(cell[i], w, BS_CEIL_SEND, BS_RECV, fs);
	}
	fs_teardown(fs);
	return failed;
}

static void machine_info(struct bench_results *res)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	time_t now = time(NULL);
	struct tm tm;

	res->nproc = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(res->cpu, sizeof(res->cpu), "?");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(res->cpu, sizeof(res->cpu), "%s", colon + 2);
		break;
	}
	if (f)
		fclose(f);
	if (getloadavg(res->load_start, 3) < 0)
		memset(res->load_start, 0, sizeof(res->load_start));
	gmtime_r(&now, &tm);
	strftime(res->date, sizeof(res->date), "%Y-%m-%d %H:%M UTC", &tm);
}

/* n cells (one for a single invocation): the references of each, then
 * each file system's measurements of each; the number of failures. */
static int run_all(struct bench_results *const *cell, int n)
{
	static struct bench_fs tmpfs, disk;
	const struct bench_cfg *c = cell[0]->cfg;
	int failed = 0;

	for (int i = 0; i < n && !bench_stop; i++)
		failed += run_block(cell[i], BW_MEM, BS_XXH3, BS_MEMCPY, NULL);
	if (c->fsopts.use_tmpfs && !bench_stop)
		failed += run_fs(cell, n, BW_TMPFS, &tmpfs, "tmpfs",
				 c->fsopts.tmpfs_dir);
	if (c->fsopts.use_disk && !bench_stop)
		failed += run_fs(cell, n, BW_DISK, &disk, "disk",
				 c->fsopts.disk_dir);
	for (int i = 0; i < n; i++)
		if (getloadavg(cell[i]->load_end, 3) < 0)
			memset(cell[i]->load_end, 0,
			       sizeof(cell[i]->load_end));
	return failed;
}

/* ---------------------------------------------------------------------
 * One invocation, or the sweep
 */

static int run_one(struct bench_cfg *c, double t0)
{
	static struct bench_results res;
	struct bench_results *cell = &res;
	int failed;

	res.cfg = c;
	machine_info(&res);
	failed = run_all(&cell, 1);
	res.wall = rp_now() - t0;
	bench_report_table(c->json ? stderr : stdout, &res);
	if (c->json && bench_report_json(stdout, &res))
		failed++;
	return failed;
}

/* PREFIX.gp, drawing PREFIX.svg; the number of failures (reported). */
static int write_plot(const char *prefix, struct bench_results *const *cell,
		      int n)
{
	char gp[PATH_MAX], svg[PATH_MAX];
	FILE *f;
	int rc;

	if ((size_t)snprintf(gp, sizeof(gp), "%s.gp", prefix) >= sizeof(gp) ||
	    (size_t)snprintf(svg, sizeof(svg), "%s.svg", prefix) >=
	    sizeof(svg)) {
		RP_ERR("--plot %s: path too long", prefix);
		return 1;
	}
	f = fopen(gp, "we");
	if (!f) {
		RP_ERR("fopen(%s): %s", gp, strerror(errno));
		return 1;
	}
	rc = bench_report_plot(f, cell, n, svg);
	if (fclose(f) && !rc) {
		RP_ERR("fclose(%s): %s", gp, strerror(errno));
		rc = -EIO;
	}
	if (rc)
		return 1;
	fprintf(stderr, "bench_mem: wrote %s; gnuplot %s draws %s\n", gp, gp,
		svg);
	return 0;
}

/* Every threads x chunk cell, threads outer; the number of failures. */
static int run_sweep(struct args *a, double t0)
{
	int n = a->nthreads * a->nchunks;
	struct bench_results **cell = calloc((size_t)n, sizeof(*cell));
	struct bench_cfg *cfg = calloc((size_t)n, sizeof(*cfg));
	int failed = 0;

	if (!cell || !cfg) {
		RP_ERR("calloc(%d cells): %s", n, strerror(ENOMEM));
		failed = 1;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		cell[i] = calloc(1, sizeof(**cell));
		if (!cell[i]) {
			RP_ERR("calloc(cell): %s", strerror(ENOMEM));
			failed = 1;
			goto out;
		}
		cfg[i] = a->c;
		cfg[i].threads = a->threads[i / a->nchunks];
		cfg[i].chunk = a->chunks[i % a->nchunks];
		cell[i]->cfg = &cfg[i];
		machine_info(cell[i]);
	}
	failed = run_all(cell, n);
	bench_report_sweep(a->c.json ? stderr : stdout, cell, n,
			   rp_now() - t0);
	for (int i = 0; a->c.json && i < n; i++)
		failed += bench_report_json(stdout, cell[i]) != 0;
	if (a->plot)
		failed += write_plot(a->plot, cell, n);
out:
	for (int i = 0; cell && i < n; i++)
		free(cell[i]);
	free(cell);
	free(cfg);
	return failed;
}

int main(int argc, char **argv)
{
	static struct args a;
	double t0 = rp_now();
	int failed;
	int rc;

	bench_init("bench_mem", usage);
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc > 0 ? 0 : RP_EXIT_USAGE;
	rp_trace_init(RP_V_QUIET, "bench");
	bench_signals();
	failed = a.sweep ? run_sweep(&a, t0) : run_one(&a.c, t0);
	return bench_exit(failed, "measurement(s)");
}
