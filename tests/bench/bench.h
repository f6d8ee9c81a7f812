/* SPDX-License-Identifier: MIT */
/*
 * scripts/bench mem: the host side of a transfer measured natively over
 * the in-memory fabric. Shared by the driver (bench_mem.c: options,
 * forks, medians, table and JSON), the measurements (bench_work.c) and
 * the synthetic peers (bench_peer.c).
 */
#ifndef RDMAPUSH_BENCH_H
#define RDMAPUSH_BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_common.h"

/* Name of the received file in the directory under test. */
#define BENCH_DST	"dst.bin"

/* What one measurement runs. The order is the order of the table. */
#define BENCH_SIDE_MAP(XX)						\
	XX(XXH3, "xxh3")		/* XXH3-128, ring in memory */	\
	XX(MEMCPY, "memcpy")		/* ring to ring, by chunk */	\
	XX(CEIL_SEND, "ceiling-send")	/* pread + hash of the file */	\
	XX(CEIL_RECV, "ceiling-recv")	/* open, copy, hash + pwrite, commit */ \
	XX(CEIL_RECV_NOCOPY, "ceiling-recv-nocopy") /* the same, no copy */ \
	XX(BOTH, "both")		/* real sender and receiver */	\
	XX(SEND, "send")		/* real sender, synthetic recv */ \
	XX(RECV, "recv")		/* synthetic sender, real recv */

enum bench_side {
#define BENCH_SIDE_ENUM(name, text) BS_##name,
	BENCH_SIDE_MAP(BENCH_SIDE_ENUM)
#undef BENCH_SIDE_ENUM
	BS_MAX
};

/* "both", "ceiling-send", ...; never NULL. */
const char *bench_side_name(enum bench_side s);

struct bench_cfg {
	uint64_t size;		/* file size */
	uint32_t chunk;
	uint32_t window;
	/* Threads of each ceiling (each takes the next chunk when free, as
	 * a pool's worker does), and the pushes' rp_opts.threads; the
	 * references always run on one. */
	uint32_t threads;
	int runs;		/* of each measurement (the table: medians) */
	int warmup;		/* uncounted rounds first, per file system */
	unsigned int only;	/* mask of 1u << enum bench_side to run */
	int timeout;		/* seconds per push phase (rp_opts.timeout) */
	/* A push run more than this many percent over its side's ceiling
	 * in the same round is invalid (bench_report.c). */
	int max_over;
	bool json;
	struct bench_fsopts fsopts;	/* --fs, --tmpfs, --disk */
};

/* One file system under test: a private directory holding the source. */
struct bench_fs {
	const char *label;	/* "tmpfs", "disk"; "mem" for the references */
	char type[24];		/* what statfs(2) says it is: "tmpfs", "ext4" */
	char dir[PATH_MAX];	/* made with mkdtemp */
	char src[PATH_MAX + 16];/* dir/src.bin, size bytes */
	int dirfd;		/* dir, the receiver's target */
	bool made;		/* dir exists: fs_teardown removes it */
};

/* One measurement, as the forked child that ran it reports it. */
struct bench_run {
	int rc;			/* 0 or the error (reported by the child) */
	uint64_t bytes;
	double seconds;		/* wall */
	/* CPU seconds of all the threads of each side, < 0 where there is
	 * no such side: the references' one thread counts as the sending
	 * side; a ceiling's side is all its worker threads; a push's side
	 * is the thread that drives it and every thread it started (the
	 * session's pool of workers), see __wrap_pthread_create. */
	double cpu_send;
	double cpu_recv;
	int threads_send;	/* threads counted in cpu_send */
	int threads_recv;
	/* The process's CPU seconds over the same wall time: every thread,
	 * a push's worker threads included. */
	double cpu_total;
	double sync_seconds;	/* ceiling-recv: its commit alone */
	/* Context switches of each side's threads: voluntary ones are
	 * waits, involuntary ones are other load taking the CPU. */
	long vcsw_send, ivcsw_send;
	long vcsw_recv, ivcsw_recv;
	long rss_kib;		/* peak RSS of the child (wait4) */
};

/*
 * Run measurement side once, in the calling (forked) process, into *r;
 * the ceilings and pushes start threads of their own and join them
 * before returning. fs is NULL for the references. 0 or an error
 * (reported).
 */
int bench_measure(enum bench_side side, const struct bench_cfg *c,
		  const struct bench_fs *fs, struct bench_run *r)
	__attribute__((warn_unused_result));

/* Thread CPU seconds (CLOCK_THREAD_CPUTIME_ID). */
double bench_thread_cpu(void);

/* What a thread spent: CPU seconds and context switches. */
struct bench_usage {
	double cpu;
	long vcsw;
	long ivcsw;
	int threads;		/* whose usage this is: 1, or a sum's */
};
/* The calling thread's usage so far; bench_usage_since() the delta. */
void bench_usage_now(struct bench_usage *u);
void bench_usage_since(struct bench_usage *u);

/* One side of a push, run in its own thread by bench_work.c. */
struct bench_job {
	int (*fn)(struct bench_job *j);
	const struct bench_cfg *cfg;
	const struct bench_fs *fs;
	int fd;			/* control socket, owned and closed by fn */
	const uint8_t *slot;	/* synthetic sender: the chunk it writes */
	const uint8_t *csum;	/* synthetic sender: the stream's XXH3-128 */
	int rc;			/* what fn returned */
	struct bench_usage use;	/* the thread's, in fn */
};

/*
 * The synthetic peers, which cost nothing the real side would not pay.
 * Sink: a receiver that registers a ring, posts receives and returns
 * credit for each write at once, never hashing or writing; FIN -> ACK ok.
 * Source: a sender that writes j->slot as every chunk without reading a
 * file and sends FIN with j->csum. Both close j->fd; 0 or an error
 * (reported once, prefixed "synthetic receiver:" / "synthetic sender:").
 */
int bench_sink(struct bench_job *j) __attribute__((warn_unused_result));
int bench_source(struct bench_job *j) __attribute__((warn_unused_result));

/* ---------------------------------------------------------------------
 * What one invocation measured (bench_mem.c), and its report
 * (bench_report.c)
 */

#define BENCH_RUNS_MAX	99

/* Where a series ran: memory only (the references), tmpfs, disk. */
enum bench_where {
	BW_MEM = 0,
	BW_TMPFS,
	BW_DISK,
	BW_MAX
};

struct bench_series {
	struct bench_run run[BENCH_RUNS_MAX];
	int n;			/* runs done, successful or not */
};

struct bench_results {
	const struct bench_cfg *cfg;
	const struct bench_fs *fs[BW_MAX];	/* NULL: not measured */
	struct bench_series s[BW_MAX][BS_MAX];
	long nproc;
	char cpu[128];		/* "model name" of /proc/cpuinfo */
	double load_start[3];	/* getloadavg() before the first run */
	double load_end[3];	/* and after the last */
	char date[40];		/* UTC, when it started */
	double wall;		/* the whole invocation, seconds */
};

/* Median GB/s of a series, 0 if no run succeeded. */
double bench_median_gbps(const struct bench_results *res, int where,
			 enum bench_side s);

/* The table of medians, and notes on what each row holds, to f. */
void bench_report_table(FILE *f, const struct bench_results *res);
/*
 * One JSON object per line to f: every run, then each series' medians
 * ("median": true). 0 or -ENOMEM / -EIO (reported).
 */
int bench_report_json(FILE *f, const struct bench_results *res)
	__attribute__((warn_unused_result));

/*
 * The sweep (bench_mem --sweep): n cells, each one invocation's results
 * at one threads x chunk, all with the same file systems, in the order
 * measured (threads outer, chunk inner).
 */
/* Per file system, a table of GB/s and /ceiling per cell, to f. */
void bench_report_sweep(FILE *f, struct bench_results *const *cell, int n,
			double wall);
/*
 * A gnuplot script to f, its data inline, that draws GB/s against chunk
 * size (one line per thread count, sender and receiver side by side, one
 * row per file system) into svg. 0 or -EIO (reported).
 */
int bench_report_plot(FILE *f, struct bench_results *const *cell, int n,
		      const char *svg) __attribute__((warn_unused_result));

#endif
