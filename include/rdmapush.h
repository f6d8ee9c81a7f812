/* SPDX-License-Identifier: MIT */
/*
 * librdmapush: push files to a receiver over RDMA (RC queue pairs driven
 * through libibverbs, a control connection over TCP), and receive them.
 * The one installed header; manual: rdmapush(3).
 *
 * Every function that can fail returns 0 or a negative error: -errno
 * for a system error, or one of the library's own codes (-2001 and
 * below). rp_strerror() says what it means, rp_err_name() names it. A
 * failure is also described in the handle's result (rp_push_result(),
 * rp_recv_result()), in the words of the place that found it.
 *
 * The library writes its error lines (and, unless quiet, its notices) to
 * standard error, as the rdmapush tool does, and while a session runs
 * it handles SIGINT and SIGTERM itself: either stops the session.
 */
#ifndef RDMAPUSH_H
#define RDMAPUSH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define RP_EXPORT __attribute__((visibility("default")))
#else
#define RP_EXPORT
#endif

/* The version of this header; rp_version() is the library's at run time. */
#define RDMAPUSH_VERSION_MAJOR	0
#define RDMAPUSH_VERSION_MINOR	1
#define RDMAPUSH_VERSION_PATCH	0

/* "0.1.0": the library's version. Never NULL. */
RP_EXPORT const char *rp_version(void);

/* What an error means ("timed out"). Never NULL. */
RP_EXPORT const char *rp_strerror(int err);
/* An error's name ("RP_ETIMEOUT", "ENOENT"...). Never NULL. */
RP_EXPORT const char *rp_err_name(int err);

/* Opaque handles: a push to one receiver, a receiver on one port. */
struct rp_push;
struct rp_recv;

/* How the chunks move (the tool's --op). */
enum rp_push_op {
	RP_PUSH_WRITE = 0,	/* RDMA Write with immediate (default) */
	RP_PUSH_READ = 1,	/* the receiver reads them (RDMA Read) */
	RP_PUSH_SEND = 2,	/* Send into receives posted ahead */
};

/* One entry (file or directory) of a session, as it ended. */
struct rp_entry {
	const char *name;	/* its path as sent ("dir/a.txt") */
	uint64_t bytes;		/* bytes stored, 0 if it failed */
	int status;		/* 0, or why it failed (negative error) */
};

/*
 * Callbacks, each optional (NULL). They run on the thread that runs the
 * session, between its waits: keep them short, and call nothing of the
 * same handle from them.
 */
/* Data bytes moved so far of total (UINT64_MAX: not known, e.g. a pipe);
 * at most ten times a second, and once at the end. */
typedef void rp_progress_fn(void *user, uint64_t done, uint64_t total);
/* A trace event: area ("qp", "ctrl", "data"...), kind ("qp.state"...) and
 * the text a --trace line shows. The event catalogue is docs/trace.md. */
typedef void rp_event_fn(void *user, const char *area, const char *kind,
			 const char *text);
/* An entry is done (stored, or failed). */
typedef void rp_entry_fn(void *user, const struct rp_entry *entry);

/*
 * The settings of a push or a receiver. Fill it with rp_params_init(),
 * then change what you need: the fields a side does not use are ignored.
 *
 * ABI: the struct grows at its end only, and its first field, size,
 * records how large the caller's copy is (rp_params_init() sets it from
 * the caller's sizeof). The library reads only the fields that fit in
 * size, taking the defaults for the rest, so a program built with an
 * older header runs unchanged with a newer library; a size larger than
 * the library knows is refused (-EINVAL) rather than half understood.
 * One struct rather than a setter per field: it is read once, by
 * rp_push_new() or rp_recv_new(), and the caller may reuse it after.
 * Strings are borrowed: they must outlive the handle.
 */
struct rp_params {
	size_t size;		/* set by rp_params_init(): leave it */
	/* both sides */
	uint16_t port;		/* 18500 */
	const char *psk_file;	/* pre-shared key file (rdmapush keygen), or
				 * NULL: no authentication */
	int timeout;		/* seconds a phase may go without progress: 30 */
	const char *device;	/* RDMA device, NULL: chosen by route */
	int ib_port;		/* its port, 0: automatic */
	int gid_index;		/* GID index, -1: automatic */
	unsigned int threads;	/* worker threads, 0: one per core, up to 8 */
	int quiet;		/* no notices on stderr (errors still) */
	/* push */
	const char *host;	/* the receiver's address or name */
	enum rp_push_op op;	/* RP_PUSH_WRITE */
	unsigned int qps;	/* RC QPs to stripe chunks over, 0: 1 */
	uint32_t chunk;		/* bytes per chunk, 0: automatic (1 MiB) */
	uint32_t window;	/* chunks in flight, 0: automatic (8) */
	int recursive;		/* a directory source sends its tree */
	int preserve;		/* the receiver keeps mode and mtime */
	/* receive */
	const char *bind_addr;	/* local address to listen on, NULL: any */
	const char *dir;	/* where files land: "." */
	int once;		/* one transfer, then return its result */
	uint64_t max_size;	/* largest session accepted, 0: no limit */
	int max_transfers;	/* concurrent transfers, 1..64: 4 */
	int force;		/* replace existing files */
	/* callbacks, and their first argument */
	rp_progress_fn *on_progress;
	rp_event_fn *on_event;
	rp_entry_fn *on_entry;
	void *user;
};

/* p with every default, p->size the caller's sizeof(*p). */
#define rp_params_init(p) rp_params_init_size((p), sizeof(*(p)))
RP_EXPORT void rp_params_init_size(struct rp_params *p, size_t size);

/* How a session went. Owned by its handle; fields only ever appended. */
struct rp_summary {
	int error;		/* 0, or why the session (or an entry) failed */
	char message[256];	/* what failed, in detail; "" if nothing */
	const char *phase;	/* the phase it ended in: "DONE" when it
				 * completed, "CONNECT", "DATA"...; "" when
				 * nothing began */
	uint64_t entries_ok;	/* entries stored */
	uint64_t entries_failed;
	uint64_t bytes;		/* bytes in the files stored */
	char peer[80];		/* "addr:port" of the peer, "" before one */
};

/*
 * A push: rp_push_new(), one or more sources, rp_push_run(), the results,
 * rp_push_free(). 0 or a negative error; rp_push_new() sets *out only on
 * success (-EINVAL: bad params, -ENOMEM).
 */
RP_EXPORT int rp_push_new(struct rp_push **out, const struct rp_params *p);
/* A file, or with recursive a directory tree, by path; sent under its
 * base name. 0, -EINVAL (empty path, or after an fd source), -ENOMEM. */
RP_EXPORT int rp_push_add_path(struct rp_push *h, const char *path);
/*
 * The data read from fd (a pipe, a socket, a file: read to its end,
 * borrowed, not closed), stored as name. It must be the only source
 * of the push. 0 or -EINVAL.
 */
RP_EXPORT int rp_push_add_fd(struct rp_push *h, int fd, const char *name);
/*
 * Connect and send every source in one session; once per handle. 0 when
 * every entry was stored, else the error (the first failed entry's when
 * the session itself completed). Details: rp_push_result().
 */
RP_EXPORT int rp_push_run(struct rp_push *h);
/* The session's result (zeroes before rp_push_run()). Never NULL. */
RP_EXPORT const struct rp_summary *rp_push_result(const struct rp_push *h);
/* The entries in the order they ended: *list (valid until the handle is
 * freed) and their count. */
RP_EXPORT size_t rp_push_entries(const struct rp_push *h,
				 const struct rp_entry **list);
/* Free the handle; NULL is fine. */
RP_EXPORT void rp_push_free(struct rp_push *h);

/*
 * A receiver: rp_recv_new(), rp_recv_run() (blocks), rp_recv_free().
 * With once, rp_recv_run() serves one transfer in the calling thread and
 * returns its result, entries and callbacks included. Without it, it
 * serves until rp_recv_stop(), each transfer in a child process of its
 * own (as `rdmapush recv` does): callbacks and entries of those
 * transfers stay in the child, and the result is the server's.
 */
RP_EXPORT int rp_recv_new(struct rp_recv **out, const struct rp_params *p);
/* 0, or the error (already reported): with once, the transfer's. */
RP_EXPORT int rp_recv_run(struct rp_recv *h);
/*
 * Make rp_recv_run() return soon (transfers in progress stop as SIGTERM
 * would stop them). From any thread, or from a signal handler
 * (async-signal-safe); before rp_recv_run(), it returns at once.
 */
RP_EXPORT void rp_recv_stop(struct rp_recv *h);
RP_EXPORT const struct rp_summary *rp_recv_result(const struct rp_recv *h);
RP_EXPORT size_t rp_recv_entries(const struct rp_recv *h,
				 const struct rp_entry **list);
RP_EXPORT void rp_recv_free(struct rp_recv *h);

#ifdef __cplusplus
}
#endif

#endif
