// SPDX-License-Identifier: MIT
/*
 * The measurements of scripts/bench mem, each run once in a process the
 * driver forked for it: the references (XXH3-128, memcpy), each side's
 * ceiling (its unavoidable work alone, on one thread, as the design
 * uses today) and the pushes over the in-memory fabric.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/csum.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/opts.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"

#include "bench.h"

const char *bench_side_name(enum bench_side s)
{
	static const char *const names[BS_MAX] = {
#define BENCH_SIDE_TEXT(name, text) [BS_##name] = text,
		BENCH_SIDE_MAP(BENCH_SIDE_TEXT)
#undef BENCH_SIDE_TEXT
	};

	return (unsigned int)s < BS_MAX ? names[s] : "?";
}

/* splitmix64 over (seed, word index): fast, and nothing compresses it. */
void bench_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t x = seed * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		memcpy(p + i, &z, len - i < 8 ? len - i : 8);
	}
}

double bench_thread_cpu(void)
{
	struct timespec ts;

	/* Cannot fail for this clock on Linux; 0 keeps differences sane. */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_usage_now(struct bench_usage *u)
{
	struct rusage ru;

	u->cpu = bench_thread_cpu();
	/* Cannot fail for RUSAGE_THREAD; zeros keep the deltas sane. */
	if (getrusage(RUSAGE_THREAD, &ru))
		memset(&ru, 0, sizeof(ru));
	u->vcsw = ru.ru_nvcsw;
	u->ivcsw = ru.ru_nivcsw;
}

void bench_usage_since(struct bench_usage *u)
{
	struct bench_usage now;

	bench_usage_now(&now);
	u->cpu = now.cpu - u->cpu;
	u->vcsw = now.vcsw - u->vcsw;
	u->ivcsw = now.ivcsw - u->ivcsw;
}

/* Store one side's usage in the run. */
static void put_usage(struct bench_run *r, const struct bench_usage *u,
		      bool recv_side)
{
	if (recv_side) {
		r->cpu_recv = u->cpu;
		r->vcsw_recv = u->vcsw;
		r->ivcsw_recv = u->ivcsw;
	} else {
		r->cpu_send = u->cpu;
		r->vcsw_send = u->vcsw;
		r->ivcsw_send = u->ivcsw;
	}
}

/* Wall time and usage of a single-threaded measurement. */
struct stopwatch {
	double wall;
	struct bench_usage use;
};

static void sw_start(struct stopwatch *sw)
{
	sw->wall = rp_now();
	bench_usage_now(&sw->use);
}

static void sw_stop(struct stopwatch *sw, struct bench_run *r,
		    bool recv_side)
{
	bench_usage_since(&sw->use);
	r->seconds = rp_now() - sw->wall;
	put_usage(r, &sw->use, recv_side);
}

static uint64_t nchunks(const struct bench_cfg *c)
{
	return c->size / c->chunk + (c->size % c->chunk != 0);
}

static uint32_t chunk_len(const struct bench_cfg *c, uint64_t seq)
{
	uint64_t left = c->size - seq * c->chunk;

	return left < c->chunk ? (uint32_t)left : c->chunk;
}

/* Chunk seq's slot in a ring of window slots, as the session uses it. */
static uint8_t *slot(const struct bench_cfg *c, uint8_t *ring, uint64_t seq)
{
	return ring + (size_t)(seq % c->window) * c->chunk;
}

/* A page-aligned buffer of len bytes, filled (so its pages are mapped). */
static int buf_new(size_t len, uint64_t seed, uint8_t **out)
{
	void *p = NULL;
	int e = posix_memalign(&p, 4096, len);

	if (e) {
		RP_ERR("posix_memalign(%zu bytes): %s", len, strerror(e));
		return -e;
	}
	bench_fill(p, len, seed);
	*out = p;
	return 0;
}

static size_t ring_len(const struct bench_cfg *c)
{
	return (size_t)c->chunk * c->window;
}

/* ---------------------------------------------------------------------
 * References: memory only
 */

/* XXH3-128 over a ring-sized buffer, one chunk per update. */
static int ref_xxh3(const struct bench_cfg *c, struct bench_run *r)
{
	uint8_t out[RP_CSUM_LEN];
	struct rp_csum *cs = NULL;
	struct stopwatch sw;
	uint8_t *ring;
	int rc = buf_new(ring_len(c), 1, &ring);

	if (rc)
		return rc;
	rc = rp_csum_new(&cs);
	if (rc)
		goto out;
	sw_start(&sw);
	for (uint64_t seq = 0; seq < nchunks(c); seq++)
		rp_csum_update(cs, slot(c, ring, seq), chunk_len(c, seq));
	rp_csum_final(cs, out);
	sw_stop(&sw, r, false);
	r->bytes = c->size;
	rp_csum_free(cs);
out:
	free(ring);
	return rc;
}

/* memcpy from one ring to another in chunk blocks: the fabric's copy. */
static int ref_memcpy(const struct bench_cfg *c, struct bench_run *r)
{
	struct stopwatch sw;
	uint8_t *src, *dst;
	int rc = buf_new(ring_len(c), 1, &src);

	if (rc)
		return rc;
	rc = buf_new(ring_len(c), 2, &dst);
	if (rc)
		goto out_src;
	sw_start(&sw);
	for (uint64_t seq = 0; seq < nchunks(c); seq++) {
		memcpy(slot(c, dst, seq), slot(c, src, seq), chunk_len(c, seq));
		/* Never read: keep the compiler from dropping the copy. */
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	sw_stop(&sw, r, false);
	r->bytes = c->size;
	free(dst);
out_src:
	free(src);
	return rc;
}

/* ---------------------------------------------------------------------
 * Ceilings: each side's unavoidable work, on real files, one thread
 */

/* The sender's: open, then pread + hash every chunk into its slot. */
static int ceil_send(const struct bench_cfg *c, const struct bench_fs *fs,
		     struct bench_run *r)
{
	struct rp_src src = { .fd = -1 };
	uint8_t out[RP_CSUM_LEN];
	struct rp_csum *cs = NULL;
	struct stopwatch sw;
	uint8_t *ring;
	int rc = buf_new(ring_len(c), 1, &ring);

	if (!rc)
		rc = rp_csum_new(&cs);
	if (rc)
		goto out;
	sw_start(&sw);
	rc = rp_fileio_src_open(&src, fs->src);
	for (uint64_t seq = 0; !rc && seq < nchunks(c); seq++) {
		uint8_t *p = slot(c, ring, seq);

		rc = rp_fileio_src_read(&src, p, chunk_len(c, seq),
					seq * c->chunk);
		if (!rc)
			rp_csum_update(cs, p, chunk_len(c, seq));
	}
	rp_csum_final(cs, out);
	rp_fileio_src_close(&src);
	sw_stop(&sw, r, false);
	r->bytes = c->size;
out:
	rp_csum_free(cs);
	free(ring);
	return rc;
}

/*
 * Copy every chunk out of its slot into bounce, then hash + pwrite it,
 * as land_chunk() does; with no bounce, hash + pwrite from the slot (the
 * receiver before issue 8), so the two rows show what the copy costs.
 */
static int write_all(const struct bench_cfg *c, struct rp_dst *d,
		     struct rp_csum *cs, uint8_t *ring, uint8_t *bounce)
{
	uint8_t out[RP_CSUM_LEN];
	int rc = 0;

	for (uint64_t seq = 0; !rc && seq < nchunks(c); seq++) {
		uint8_t *p = slot(c, ring, seq);

		if (bounce) {
			memcpy(bounce, p, chunk_len(c, seq));
			p = bounce;
		}
		rp_csum_update(cs, p, chunk_len(c, seq));
		rc = rp_fileio_dst_write(d, p, chunk_len(c, seq),
					 seq * c->chunk);
	}
	rp_csum_final(cs, out);
	return rc;
}

/*
 * The receiver's, with what a push's receiver does around it: open
 * (O_TMPFILE, fallocate) before, commit (fsync, link, fsync of the
 * directory) after. The commit is also timed alone.
 */
static int ceil_recv(const struct bench_cfg *c, const struct bench_fs *fs,
		     struct bench_run *r, bool copy)
{
	struct rp_csum *cs = NULL;
	uint8_t *bounce = NULL;
	struct stopwatch sw;
	struct rp_dst d;
	uint8_t *ring;
	double t;
	int rc = buf_new(ring_len(c), 1, &ring);

	rp_fileio_dst_init(&d);
	if (!rc && copy)
		rc = buf_new(c->chunk, 1, &bounce);
	if (!rc)
		rc = rp_csum_new(&cs);
	if (rc)
		goto out;
	sw_start(&sw);
	rc = rp_fileio_dst_open(&d, fs->dirfd, BENCH_DST, c->size, false);
	if (!rc)
		rc = write_all(c, &d, cs, ring, bounce);
	t = rp_now();
	if (!rc)
		rc = rp_fileio_dst_commit(&d, false);
	r->sync_seconds = rp_now() - t;
	sw_stop(&sw, r, true);
	r->bytes = c->size;
	rp_fileio_dst_abort(&d);
out:
	rp_csum_free(cs);
	free(bounce);
	free(ring);
	return rc;
}

/* ---------------------------------------------------------------------
 * Pushes: two threads over a socketpair and the in-memory fabric
 */

static void opts_for(struct rp_opts *o, const struct bench_cfg *c)
{
	memset(o, 0, sizeof(*o));
	o->timeout = c->timeout;
	o->gid_index = -1;
	o->quiet = true;
	o->max_transfers = 1;
	o->chunk = c->chunk;
	o->window = c->window;
}

static int real_send(struct bench_job *j)
{
	struct rp_opts o;
	char *src[1] = { (char *)j->fs->src };

	opts_for(&o, j->cfg);
	o.mode = RP_MODE_SEND;
	o.sources = src;
	o.nsources = 1;
	o.as_name = BENCH_DST;
	o.host = "bench-receiver";
	return rp_session_send_fd(&o, j->fd, o.host, NULL);
}

static int real_recv(struct bench_job *j)
{
	struct rp_opts o;

	opts_for(&o, j->cfg);
	o.mode = RP_MODE_RECV;
	o.dir = j->fs->dir;
	o.once = true;
	return rp_session_recv_one(&o, NULL, j->fs->dirfd, j->fd,
				   "bench-sender", NULL, NULL);
}

static void *job_main(void *arg)
{
	struct bench_job *j = arg;

	/* For perf and top: which side a thread is (best effort). */
	(void)pthread_setname_np(pthread_self(), j->fn == real_send ||
				 j->fn == bench_source ? "bench-send" :
				 "bench-recv");
	bench_usage_now(&j->use);
	j->rc = j->fn(j);
	bench_usage_since(&j->use);
	return NULL;
}

static int join(pthread_t t, const char *who)
{
	int e = pthread_join(t, NULL);

	if (e)
		RP_ERR("pthread_join(%s): %s", who, strerror(e));
	return -e;
}

/* Both sides from thread start to both done: the push's wall time. */
static int run_pair(struct bench_job *s, struct bench_job *v, double *secs)
{
	double t0 = rp_now();
	pthread_t ts, tv;
	int e = pthread_create(&tv, NULL, job_main, v);
	int rs, rv;

	if (e) {
		RP_ERR("pthread_create(receiver): %s", strerror(e));
		close(v->fd);
		close(s->fd);
		return -e;
	}
	e = pthread_create(&ts, NULL, job_main, s);
	if (e) {
		RP_ERR("pthread_create(sender): %s", strerror(e));
		/* The receiver sees the control connection close and stops. */
		close(s->fd);
		join(tv, "receiver");
		return -e;
	}
	rs = join(ts, "sender");
	rv = join(tv, "receiver");
	*secs = rp_now() - t0;
	if (rs || rv)
		return rs ? rs : rv;
	return s->rc ? s->rc : v->rc;
}

/* The synthetic sender's one slot and its stream's checksum, computed
 * before the clock starts. */
static int source_stream(const struct bench_cfg *c, uint8_t **one,
			 uint8_t csum[RP_CSUM_LEN])
{
	struct rp_csum *cs;
	int rc = buf_new(c->chunk, 7, one);

	if (rc)
		return rc;
	rc = rp_csum_new(&cs);
	if (rc) {
		free(*one);
		*one = NULL;
		return rc;
	}
	for (uint64_t seq = 0; seq < nchunks(c); seq++)
		rp_csum_update(cs, *one, chunk_len(c, seq));
	rp_csum_final(cs, csum);
	rp_csum_free(cs);
	return 0;
}

static int push(enum bench_side side, const struct bench_cfg *c,
		const struct bench_fs *fs, struct bench_run *r)
{
	uint8_t csum[RP_CSUM_LEN];
	uint8_t *one = NULL;
	struct bench_job s = {
		.fn = side == BS_RECV ? bench_source : real_send,
		.cfg = c, .fs = fs, .csum = csum,
	};
	struct bench_job v = {
		.fn = side == BS_SEND ? bench_sink : real_recv,
		.cfg = c, .fs = fs,
	};
	int sp[2];
	int rc = 0;

	if (side == BS_RECV)
		rc = source_stream(c, &one, csum);
	if (rc)
		return rc;
	s.slot = one;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		rc = -errno;
		RP_ERR("socketpair(AF_UNIX): %s", strerror(-rc));
		goto out;
	}
	s.fd = sp[0];
	v.fd = sp[1];
	rc = run_pair(&s, &v, &r->seconds);
	r->bytes = c->size;
	put_usage(r, &s.use, false);
	put_usage(r, &v.use, true);
out:
	free(one);
	return rc;
}

int bench_measure(enum bench_side side, const struct bench_cfg *c,
		  const struct bench_fs *fs, struct bench_run *r)
{
	switch (side) {
	case BS_XXH3:
		return ref_xxh3(c, r);
	case BS_MEMCPY:
		return ref_memcpy(c, r);
	case BS_CEIL_SEND:
		return ceil_send(c, fs, r);
	case BS_CEIL_RECV:
	case BS_CEIL_RECV_NOCOPY:
		return ceil_recv(c, fs, r, side == BS_CEIL_RECV);
	case BS_BOTH:
	case BS_SEND:
	case BS_RECV:
		return push(side, c, fs, r);
	default:
		RP_ERR("bench_measure: unknown measurement %d", (int)side);
		return RP_EINTERNAL;
	}
}
