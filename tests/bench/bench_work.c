// SPDX-License-Identifier: MIT
/*
 * The measurements of scripts/bench mem, each run once in a process the
 * driver forked for it: the references (XXH3-128, memcpy, on one
 * thread), each side's ceiling (its unavoidable work alone, on the
 * threads a push's pool has) and the pushes over the in-memory fabric,
 * with the CPU of every thread of each side.
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
#include "rdmapush/fabric_mem.h"
#include "rdmapush/fileio.h"
#include "rdmapush/config.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
/* RP_PARTIAL_NAMED_MIN: where the receiver keeps a partial. */
#include "../../src/session_int.h"

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
	u->threads = 1;
}

void bench_usage_since(struct bench_usage *u)
{
	struct bench_usage now;

	bench_usage_now(&now);
	u->cpu = now.cpu - u->cpu;
	u->vcsw = now.vcsw - u->vcsw;
	u->ivcsw = now.ivcsw - u->ivcsw;
}

static void usage_add(struct bench_usage *sum, const struct bench_usage *u)
{
	sum->cpu += u->cpu;
	sum->vcsw += u->vcsw;
	sum->ivcsw += u->ivcsw;
	sum->threads += u->threads;
}

/* Store one side's usage in the run. */
static void put_usage(struct bench_run *r, const struct bench_usage *u,
		      bool recv_side)
{
	if (recv_side) {
		r->cpu_recv = u->cpu;
		r->vcsw_recv = u->vcsw;
		r->ivcsw_recv = u->ivcsw;
		r->threads_recv = u->threads;
	} else {
		r->cpu_send = u->cpu;
		r->vcsw_send = u->vcsw;
		r->ivcsw_send = u->ivcsw;
		r->threads_send = u->threads;
	}
}

/* CPU seconds of every thread of the process so far. */
static double process_cpu(void)
{
	struct timespec ts;

	/* Cannot fail for this clock on Linux; 0 keeps differences sane. */
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall time, the process's CPU and the calling thread's usage. */
struct stopwatch {
	double wall;
	double cpu_total;
	struct bench_usage use;
};

static void sw_start(struct stopwatch *sw)
{
	sw->wall = rp_now();
	sw->cpu_total = process_cpu();
	bench_usage_now(&sw->use);
}

/* The side's usage: the calling thread's (a reference's one thread; a
 * ceiling's open, fold and commit), plus its threads' (NULL: none). */
static void sw_stop(struct stopwatch *sw, struct bench_run *r,
		    bool recv_side, const struct bench_usage *threads)
{
	bench_usage_since(&sw->use);
	r->seconds = rp_now() - sw->wall;
	r->cpu_total = process_cpu() - sw->cpu_total;
	if (threads)
		usage_add(&sw->use, threads);
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

/* XXH3-128 of each chunk of a ring-sized buffer, folded in order: a
 * file's checksum (protocol version 4) on one thread. */
static int ref_xxh3(const struct bench_cfg *c, struct bench_run *r)
{
	uint8_t out[RP_CSUM_LEN], d[RP_CSUM_LEN];
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
	for (uint64_t seq = 0; seq < nchunks(c); seq++) {
		rp_csum_chunk(slot(c, ring, seq), chunk_len(c, seq), d);
		rp_csum_fold(cs, d);
	}
	rp_csum_final(cs, out);
	sw_stop(&sw, r, false, NULL);
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
	sw_stop(&sw, r, false, NULL);
	r->bytes = c->size;
	free(dst);
out_src:
	free(src);
	return rc;
}

/* ---------------------------------------------------------------------
 * Ceilings: each side's unavoidable work on real files, on c->threads
 * threads that take the chunks as a push's pool of that many workers
 * does, the next one in order to whichever thread is free (an atomic
 * counter in place of its FIFO queue), while the calling thread only
 * waits, as the push's driving thread mostly does. A thread the
 * machine's other load delays so leaves its chunks to the others, and
 * the ceiling's wall time is its work over the cores it got, as the
 * push's is. Wall time is over all of them.
 */

struct ceil;

/* One thread of a ceiling: a worker of the push's pool. */
struct ceil_thread {
	struct ceil *x;
	uint32_t id;
	uint64_t taken;			/* chunks this thread took so far */
	uint8_t *bounce;		/* ceiling-recv: the copy's target */
	pthread_t tid;
	struct bench_usage use;		/* the thread's, in its share */
	int rc;
};

/* One ceiling's state, shared by its threads. */
struct ceil {
	const struct bench_cfg *c;
	int (*fn)(struct ceil_thread *t, uint64_t seq);	/* one chunk */
	struct ceil_thread *t;		/* c->threads of them */
	uint32_t per;			/* ring slots of each thread */
	uint8_t *ring;			/* threads x per slots */
	uint8_t (*digest)[RP_CSUM_LEN];	/* each chunk's, folded in order */
	struct rp_src src;		/* ceiling-send */
	struct rp_dst dst;		/* ceiling-recv */
	pthread_mutex_t dst_lock;
	bool copy;			/* ceiling-recv: out of the slot */
	uint64_t next;			/* the next chunk to take */
	int failed;			/* set by a failing thread: all stop */
};

/*
 * Thread t's slot for the chunk it takes now. Each thread owns per
 * slots and cycles through them, so no two threads fill one slot at
 * once (in a push the window guarantees that).
 */
static uint8_t *ceil_slot(const struct ceil_thread *t)
{
	const struct ceil *x = t->x;

	return x->ring + ((size_t)t->id * x->per +
			  (size_t)(t->taken % x->per)) * x->c->chunk;
}

/* The sender's work on chunk seq: pread it into its slot, hash it. */
static int send_chunk(struct ceil_thread *t, uint64_t seq)
{
	struct ceil *x = t->x;
	uint32_t len = chunk_len(x->c, seq);
	uint8_t *p = ceil_slot(t);
	int rc = rp_fileio_src_read(&x->src, p, len, seq * x->c->chunk);

	if (!rc)
		rp_csum_chunk(p, len, x->digest[seq]);
	return rc;
}

/*
 * The receiver's on chunk seq: copy it out of its slot (which is then
 * free for the next write), hash, pwrite; with no copy, hash + pwrite
 * from the slot (the receiver before issue 8), so the two rows show what
 * the copy costs. As in a push, only the reservation and the accounting
 * of rp_dst are under a lock (the push's driving thread does them); the
 * write itself (rp_fileio_dst_put, with its write-behind) runs on the
 * thread (Linux still takes the file's inode lock for each buffered
 * write).
 */
static int recv_chunk(struct ceil_thread *t, uint64_t seq)
{
	struct ceil *x = t->x;
	uint32_t len = chunk_len(x->c, seq);
	uint8_t *p = ceil_slot(t);
	struct rp_dst_put w;
	int rc;

	if (x->copy) {
		memcpy(t->bounce, p, len);
		p = t->bounce;
	}
	rp_csum_chunk(p, len, x->digest[seq]);
	pthread_mutex_lock(&x->dst_lock);
	rc = rp_fileio_dst_put_prepare(&x->dst, &w, seq * x->c->chunk, len);
	pthread_mutex_unlock(&x->dst_lock);
	if (rc)
		return rc;
	rp_fileio_dst_put(&w, p);
	pthread_mutex_lock(&x->dst_lock);
	rc = rp_fileio_dst_put_done(&x->dst, &w);
	pthread_mutex_unlock(&x->dst_lock);
	return rc;
}

/* Thread t's share: the next chunk not taken, until none is left or
 * any thread fails. */
static int ceil_share(struct ceil_thread *t)
{
	struct ceil *x = t->x;
	uint64_t n = nchunks(x->c);

	for (;;) {
		uint64_t seq = __atomic_fetch_add(&x->next, 1,
						  __ATOMIC_RELAXED);
		int rc;

		/* Another thread failed and said so: stop quietly. */
		if (seq >= n || __atomic_load_n(&x->failed, __ATOMIC_RELAXED))
			return 0;
		rc = x->fn(t, seq);
		t->taken++;
		if (rc) {
			__atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
			return rc;
		}
	}
}

static void *ceil_main(void *arg)
{
	struct ceil_thread *t = arg;

	(void)pthread_setname_np(pthread_self(), "bench-ceil");
	bench_usage_now(&t->use);
	t->rc = ceil_share(t);
	bench_usage_since(&t->use);
	return NULL;
}

/*
 * Every share, each in a thread of its own, whose usage is summed into
 * *use, while the calling thread waits. 0 or the first error
 * (reported).
 */
static int ceil_run(struct ceil *x, struct bench_usage *use)
{
	uint32_t n = x->c->threads;
	uint32_t started;
	int rc = 0;

	for (started = 0; started < n; started++) {
		int e = pthread_create(&x->t[started].tid, NULL, ceil_main,
				       &x->t[started]);

		if (e) {
			RP_ERR("pthread_create(ceiling thread %u): %s",
			       started, strerror(e));
			__atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
			rc = -e;
			break;
		}
	}
	for (uint32_t i = 0; i < started; i++) {
		int e = bench_join(x->t[i].tid, "ceiling thread");

		if (!rc)
			rc = e ? e : x->t[i].rc;
		usage_add(use, &x->t[i].use);
	}
	return rc;
}

/* NULL-safe; a second call does nothing. */
static void ceil_free(struct ceil *x)
{
	for (uint32_t i = 0; x->t && i < x->c->threads; i++)
		free(x->t[i].bounce);
	free(x->t);
	free(x->digest);
	free(x->ring);
	x->t = NULL;
	x->digest = NULL;
	x->ring = NULL;
}

/*
 * A ceiling's buffers, allocated (the ring's pages mapped) before its
 * clock starts: each thread's share of the ring's window slots (at
 * least one), its bounce buffer (the pool worker's scratch), a digest
 * per chunk. 0 or -ENOMEM (reported); ceil_free() in either case.
 */
static int ceil_new(struct ceil *x, const struct bench_cfg *c,
		    int (*fn)(struct ceil_thread *t, uint64_t seq), bool copy)
{
	uint32_t n = c->threads;
	int rc;

	*x = (struct ceil){
		.c = c, .fn = fn, .copy = copy, .src = { .fd = -1 },
		.dst_lock = PTHREAD_MUTEX_INITIALIZER,
		.per = c->window / n ? c->window / n : 1,
	};
	rp_fileio_dst_init(&x->dst);
	rc = buf_new((size_t)n * x->per * c->chunk, 1, &x->ring);
	if (rc)
		return rc;
	x->digest = calloc((size_t)nchunks(c), sizeof(*x->digest));
	x->t = calloc(n, sizeof(*x->t));
	if (!x->digest || !x->t) {
		RP_ERR("calloc(ceiling, %u threads): %s", n, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		x->t[i] = (struct ceil_thread){ .x = x, .id = i };
		rc = copy ? buf_new(c->chunk, 1, &x->t[i].bounce) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* The file's checksum from its chunks' digests, in order (version 4). */
static void ceil_fold(const struct ceil *x, struct rp_csum *cs)
{
	uint8_t out[RP_CSUM_LEN];

	for (uint64_t seq = 0; seq < nchunks(x->c); seq++)
		rp_csum_fold(cs, x->digest[seq]);
	rp_csum_final(cs, out);
}

/* The sender's: open, every chunk's pread + hash, the fold. */
static int ceil_send(const struct bench_cfg *c, const struct bench_fs *fs,
		     struct bench_run *r)
{
	struct bench_usage use = { 0 };
	struct rp_csum *cs = NULL;
	struct stopwatch sw;
	struct ceil x;
	int rc = ceil_new(&x, c, send_chunk, false);

	if (!rc)
		rc = rp_csum_new(&cs);
	if (rc)
		goto out;
	sw_start(&sw);
	rc = rp_fileio_src_open(&x.src, fs->src);
	if (!rc)
		rc = ceil_run(&x, &use);
	ceil_fold(&x, cs);
	rp_fileio_src_close(&x.src);
	sw_stop(&sw, r, false, &use);
	r->bytes = c->size;
out:
	rp_csum_free(cs);
	ceil_free(&x);
	return rc;
}

/*
 * The receiver's temporary file, opened as a push's receiver opens one
 * of this size (session_recv.c create()): from RP_PARTIAL_NAMED_MIN on
 * under its partial's name, below it an O_TMPFILE; either reserves
 * (fallocate) its first RP_FILEIO_RESERVE_STEP bytes and the rest as
 * the writes come. The push also writes the partial's journal as it
 * goes: that is for --resume, not for the bytes (--no-partials drops
 * it), so the ceiling leaves it out.
 */
static int ceil_recv_open(struct ceil *x, const struct bench_cfg *c,
			  const struct bench_fs *fs)
{
	if (c->size >= RP_PARTIAL_NAMED_MIN)
		return rp_fileio_dst_open_kept(&x->dst, fs->dirfd, BENCH_DST,
					       NULL, c->size, false);
	return rp_fileio_dst_open_at(&x->dst, fs->dirfd, BENCH_DST, NULL,
				     c->size, false);
}

/*
 * The receiver's, with what a push's receiver does around it: open
 * before, the fold and the commit (fsync, rename or link, fsync of the
 * directory) after. The commit is also timed alone.
 */
static int ceil_recv(const struct bench_cfg *c, const struct bench_fs *fs,
		     struct bench_run *r, bool copy)
{
	struct bench_usage use = { 0 };
	struct rp_csum *cs = NULL;
	struct stopwatch sw;
	struct ceil x;
	double t;
	int rc = ceil_new(&x, c, recv_chunk, copy);

	if (!rc)
		rc = rp_csum_new(&cs);
	if (rc)
		goto out;
	sw_start(&sw);
	rc = ceil_recv_open(&x, c, fs);
	if (!rc)
		rc = ceil_run(&x, &use);
	ceil_fold(&x, cs);
	t = rp_now();
	if (!rc)
		rc = rp_fileio_dst_commit(&x.dst, false);
	r->sync_seconds = rp_now() - t;
	sw_stop(&sw, r, true, &use);
	r->bytes = c->size;
	rp_fileio_dst_abort(&x.dst);
out:
	rp_csum_free(cs);
	ceil_free(&x);
	return rc;
}
/* ---------------------------------------------------------------------
 * Pushes: two threads over a socketpair and the in-memory fabric
 */

/*
 * Every thread of each side of a push. The session starts its pool's
 * workers itself (src/pool.c), so the benchmark links with
 * -Wl,--wrap=pthread_create (Makefile.am): a thread created by a
 * thread of a side (the side's job thread, which sets side_of_thread)
 * belongs to that side too, and its usage, taken in the thread itself
 * just before its start routine returns, is added to the side's. The
 * library's threads all return from their start routine (no
 * pthread_exit, no cancellation), so none is missed.
 */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);

/* 0: the sending side, 1: the receiving side, -1: neither. */
static __thread int side_of_thread = -1;

static struct {
	pthread_mutex_t lock;
	struct bench_usage use[2];	/* threads started by each side */
} side_threads = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct side_start {
	void *(*fn)(void *);
	void *arg;
	int side;
};

static void *side_thread_main(void *arg)
{
	struct side_start st = *(struct side_start *)arg;
	struct bench_usage use;
	void *ret;

	free(arg);
	side_of_thread = st.side;
	bench_usage_now(&use);
	ret = st.fn(st.arg);
	bench_usage_since(&use);
	pthread_mutex_lock(&side_threads.lock);
	usage_add(&side_threads.use[st.side], &use);
	pthread_mutex_unlock(&side_threads.lock);
	return ret;
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct side_start *st;
	int e;

	if (side_of_thread < 0)
		return __real_pthread_create(t, attr, fn, arg);
	st = malloc(sizeof(*st));
	if (!st)
		return EAGAIN;
	*st = (struct side_start){ .fn = fn, .arg = arg,
				   .side = side_of_thread };
	e = __real_pthread_create(t, attr, side_thread_main, st);
	if (e)
		free(st);
	return e;
}

/* The usage of the threads side started, all joined by now. */
static void side_threads_usage(int side, struct bench_usage *out)
{
	pthread_mutex_lock(&side_threads.lock);
	*out = side_threads.use[side];
	pthread_mutex_unlock(&side_threads.lock);
}

static void opts_for(struct rp_config *o, const struct bench_cfg *c)
{
	memset(o, 0, sizeof(*o));
	o->timeout = c->timeout;
	o->gid_index = -1;
	o->quiet = true;
	o->max_transfers = 1;
	o->chunk = c->chunk;
	o->window = c->window;
	o->threads = c->threads;
}

static int real_send(struct bench_job *j)
{
	struct rp_config o;
	char *src[1] = { (char *)j->fs->src };

	opts_for(&o, j->cfg);
	o.sources = src;
	o.nsources = 1;
	o.as_name = BENCH_DST;
	o.host = "bench-receiver";
	return rp_session_send_fd(&o, j->fd, o.host, NULL);
}

static int real_recv(struct bench_job *j)
{
	struct rp_config o;

	opts_for(&o, j->cfg);
	o.dir = j->fs->dir;
	o.once = true;
	return rp_session_recv_one(&o, NULL, j->fs->dirfd, j->fd,
				   "bench-sender", NULL, NULL);
}

static void *job_main(void *arg)
{
	struct bench_job *j = arg;

	bool send = j->fn == real_send || j->fn == bench_source;

	/* For perf and top: which side a thread is (best effort); the
	 * session's worker threads inherit the name. */
	(void)pthread_setname_np(pthread_self(), send ? "bench-send" :
				 "bench-recv");
	side_of_thread = send ? 0 : 1;
	bench_usage_now(&j->use);
	j->rc = j->fn(j);
	bench_usage_since(&j->use);
	return NULL;
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
		bench_join(tv, "receiver");
		return -e;
	}
	rs = bench_join(ts, "sender");
	rv = bench_join(tv, "receiver");
	*secs = rp_now() - t0;
	if (rs || rv)
		return rs ? rs : rv;
	return s->rc ? s->rc : v->rc;
}

/* The synthetic sender's one slot and its stream's checksum, computed
 * before the clock starts, as the real receiver's protocol version
 * computes it: until version 4 one XXH3-128 over the stream, from it on
 * the fold of each chunk's. */
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
	for (uint64_t seq = 0; seq < nchunks(c); seq++) {
#if RP_PROTO_VERSION >= 4
		uint8_t d[RP_CSUM_LEN];

		rp_csum_chunk(*one, chunk_len(c, seq), d);
		rp_csum_fold(cs, d);
#else
		rp_csum_update(cs, *one, chunk_len(c, seq));
#endif
	}
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
	double cpu;
	int sp[2];
	int rc = 0;

	if (side == BS_RECV)
		rc = source_stream(c, &one, csum);
	if (rc)
		return rc;
	/* The sink reads nothing of what lands: the fabric's stand-in for
	 * the NIC's DMA need not copy it on the measured sender's thread.
	 * (The source's copy stays: the real receiver hashes the bytes.) */
	rp_fab_discard(RP_FAB_RECEIVER, side == BS_SEND);
	s.slot = one;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		rc = -errno;
		RP_ERR("socketpair(AF_UNIX): %s", strerror(-rc));
		goto out;
	}
	s.fd = sp[0];
	v.fd = sp[1];
	cpu = process_cpu();
	rc = run_pair(&s, &v, &r->seconds);
	r->cpu_total = process_cpu() - cpu;
	r->bytes = c->size;
	/* Each side: the thread that drives it and the threads it started. */
	for (int k = 0; k < 2; k++) {
		struct bench_job *j = k ? &v : &s;
		struct bench_usage use;

		side_threads_usage(k, &use);
		usage_add(&use, &j->use);
		put_usage(r, &use, k == 1);
	}
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
