/* SPDX-License-Identifier: MIT */
/*
 * What the two native benchmarks (bench_mem, bench_tree) share: option
 * parsing helpers, incompressible bytes, full reads and writes, the
 * directories under test, one measurement in a forked child, medians,
 * threads and signals. Each function reports its own errors (RP_ERR, or
 * the usage on stderr) and returns 0 or a negative RP_E* / -errno code.
 */
#ifndef RDMAPUSH_BENCH_COMMON_H
#define RDMAPUSH_BENCH_COMMON_H

#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* The signal that asked the program to stop (SIGINT, SIGTERM), or 0;
 * set once bench_signals() has run. */
extern volatile sig_atomic_t bench_stop;

/* Name the program ("bench_mem") and its usage text for bench_bad() and
 * the warnings; call first in main. */
void bench_init(const char *prog, const char *usage);

/* "PROG: OPT ARG: WHY" and the usage on stderr; returns RP_EUSAGE. */
int bench_bad(const char *opt, const char *arg, const char *why);

/* An integer in min..max from arg into *out; 0, or RP_EUSAGE (reported
 * by bench_bad() naming opt). */
int bench_parse_count(const char *opt, const char *arg, long long min,
		      long long max, long long *out)
	__attribute__((warn_unused_result));

/*
 * Parse argv with getopt_long: -h (--help) prints the usage on stdout
 * and returns 1; every other option goes to one(opt, optarg, ctx), and
 * its first nonzero result is returned; an argument left over is
 * RP_EUSAGE (reported). 0 when every option was taken.
 */
int bench_getopt(int argc, char **argv, const char *shorts,
		 const struct option *longs,
		 int (*one)(int opt, const char *arg, void *ctx), void *ctx)
	__attribute__((warn_unused_result));

/* Split the value arg of opt at commas (arg shorter than max bytes, max
 * at most 128) and call item(piece, ctx) on each: 0, the first nonzero
 * result of item, or RP_EUSAGE (reported) when arg is too long or names
 * nothing. */
int bench_parse_list(const char *opt, const char *arg, size_t max,
		     int (*item)(const char *t, void *ctx), void *ctx)
	__attribute__((warn_unused_result));

/* Where to measure: --fs, --tmpfs and --disk. */
struct bench_fsopts {
	bool use_tmpfs;
	bool use_disk;
	const char *tmpfs_dir;	/* where the tmpfs directory is made */
	const char *disk_dir;	/* where the disk directory is made */
};

/* Both file systems, in /dev/shm and in the current directory. */
#define BENCH_FSOPTS_DEFAULT						\
	{ .use_tmpfs = true, .use_disk = true, .tmpfs_dir = "/dev/shm",	\
	  .disk_dir = "." }

/* Take opt into *w if it is --fs (opt 'f', WHICH: tmpfs, disk or both),
 * --tmpfs DIR ('T') or --disk DIR ('D'): 0, RP_EUSAGE (reported), or 1
 * when opt is another option. */
int bench_parse_fsopts(int opt, const char *arg, struct bench_fsopts *w)
	__attribute__((warn_unused_result));

/* Deterministic, incompressible bytes (splitmix64 of seed and offset). */
void bench_fill(void *buf, size_t len, uint64_t seed);

/* write(2) all len bytes, again on EINTR: 0, -errno, or -EIO on a write
 * of nothing. Not reported (the caller knows what it wrote). */
int bench_write_full(int fd, const void *buf, size_t len)
	__attribute__((warn_unused_result));
/* read(2) all len bytes, again on EINTR: 0, -errno, or -EIO at the end
 * of the file. Not reported. */
int bench_read_full(int fd, void *buf, size_t len)
	__attribute__((warn_unused_result));

/* A private directory base/NAME-XXXXXX into dir (mkdtemp); label is the
 * option's name (--LABEL BASE) for a path too long. 0 or -errno. */
int bench_mkdtemp(char *dir, size_t len, const char *base, const char *name,
		  const char *label) __attribute__((warn_unused_result));
/* What statfs(2) says dir is on, into type: "tmpfs", "ext4", ... or the
 * magic number in hex. 0 or -errno. */
int bench_fs_type(const char *dir, char *type, size_t len)
	__attribute__((warn_unused_result));
/* Warn on stderr when the directory for --LABEL (dir, on a file system
 * of type) is not on the kind named: tmpfs for "tmpfs", else not. */
void bench_check_kind(const char *label, const char *dir, const char *type);

/* waitpid(2) with the child's rusage, again on EINTR: 0 or -errno. */
int bench_reap(pid_t pid, int *status, struct rusage *ru)
	__attribute__((warn_unused_result));

/*
 * Run fn(arg, res) in a forked child, so that its CPU, peak RSS and any
 * state it leaves are its own; the child sends *res (len bytes, the same
 * binary on both ends: the raw struct) back through a pipe and exits 1
 * when fn failed. *rss_kib (which may point into res) gets the child's
 * peak RSS. 0 when res came back (fn's own result is in it), -errno when
 * no child started, RP_EINTERNAL when it could not be reaped or died
 * before sending res ("WHAT: the measuring process died"); all reported.
 */
int bench_fork(const char *what, int (*fn)(void *arg, void *res), void *arg,
	       void *res, size_t len, long *rss_kib)
	__attribute__((warn_unused_result));

/* The median of v[0..n-1], n > 0; sorts v. */
double bench_median(double *v, int n);

/* pthread_join(t), reported naming who: 0 or -errno. */
int bench_join(pthread_t t, const char *who);

/* SIGINT and SIGTERM set bench_stop, without SA_RESTART: the program
 * stops between measurements, cleans up and reports. */
void bench_signals(void);

/* The end of main: say on stderr that a signal stopped the program and
 * that failed NOUN (e.g. "run(s)") failed; the exit status:
 * RP_EXIT_INTERNAL after either, else RP_EXIT_OK. */
int bench_exit(int failed, const char *noun);

#endif
