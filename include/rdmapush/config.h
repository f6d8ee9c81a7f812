/* SPDX-License-Identifier: MIT */
/*
 * The settings of a transfer, a receiver, a ping or a device report: what
 * the library reads. Filled by the CLI from argv (opts.h, whose struct
 * rp_opts embeds one) or by the public API from a struct rp_params
 * (rdmapush.h). Field names are the options' own.
 */
#ifndef RDMAPUSH_CONFIG_H
#define RDMAPUSH_CONFIG_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/limits.h"

struct rp_host;

#define RP_DEFAULT_PORT		18500
#define RP_DEFAULT_CHUNK	(1u << 20)
#define RP_DEFAULT_WINDOW	8
#define RP_DEFAULT_TIMEOUT	30	/* seconds */
/* --retry-for: how long a link outage is ridden out, seconds. */
#define RP_DEFAULT_RETRY_FOR	60
#define RP_DEFAULT_MAX_XFERS	4	/* concurrent transfers per receiver */
#define RP_DEFAULT_MAX_THREADS	8	/* default --threads: cores, up to this */
/* --min-rate: a floor no honest link falls below, in bytes a second. */
#define RP_DEFAULT_MIN_RATE	(64u << 10)

/*
 * What the caller (the tool, or a library caller) hears while a session
 * runs and when it ends: each NULL when unwanted. The session prints
 * no result itself: the tool's report hooks do (report.c). They run on the session's thread, between its
 * waits: a slow callback slows the transfer, and none may call back into
 * the same session.
 */
struct rp_report;

struct rp_hooks {
	/* An entry finished: its path as sent, bytes stored, 0 or its
	 * error (negative RP_E*). */
	void (*entry)(void *ctx, const char *path, uint64_t bytes, int rc);
	/* Data bytes moved so far of total (UINT64_MAX if unknown). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	/* An entry ended or was skipped (skipped: why, else NULL), for the
	 * tool's --json line per entry. */
	void (*report_entry)(void *ctx, const char *role, const char *path,
			     uint64_t bytes, int rc, const char *skipped);
	/* The transfer ended (r->rc 0 or its error): the tool's summary
	 * line and --json object. */
	void (*report)(void *ctx, const struct rp_report *r);
	void *ctx;
};

/* The reason report_entry gets for an entry --update did not send. */
#define RP_ENTRY_UP_TO_DATE	"up to date"

struct rp_config {
	/* both sides */
	uint16_t port;
	const char *dev;	/* -d, NULL = automatic */
	int ib_port;		/* -i, 0 = automatic */
	int gid_index;		/* -g, -1 = automatic */
	int timeout;		/* --timeout seconds, applies to every phase */
	bool trace;
	const char *trace_json;	/* --trace-json FILE, NULL = none */
	/* --capture FILE.pcap: this side's RoCE v2 packets of each
	 * session (capture.h), NULL = none */
	const char *capture;
	bool json;
	bool quiet;
	const char *psk_file;
	uint32_t threads;	/* --threads, 0 = rp_config_threads()'s default */
	bool direct;		/* --direct: O_DIRECT file data on this side */
	/* --retry-for seconds: how long a session with its control
	 * connection alive keeps bringing up fresh QPs after the RDMA link
	 * went away; 0: it fails at once, as before. */
	int retry_for;
	const struct rp_hooks *hooks;	/* or NULL: nothing told */
	/* recv */
	const char *bind_addr;	/* -b, NULL = any */
	const char *dir;	/* -o, default "." */
	bool once;
	int max_transfers;	/* -m: concurrent transfers, 1..64 */
	uint64_t max_size;	/* --max-size bytes, 0 = no limit */
	uint64_t min_rate;	/* --min-rate bytes a second, 0 = no floor */
	/* The span --min-rate is judged over, seconds; 0: RP_MIN_RATE_SECS.
	 * Not an option: tests shorten it. */
	double min_rate_secs;
	/* How long a side whose RDMA failed waits for the peer's reason,
	 * seconds; 0: a second. Not an option: tests shorten it. */
	double reason_wait_secs;
	int max_per_addr;	/* --max-per-address: connections, 1..64;
				 * 0: RP_DEFAULT_PER_ADDR */
	int max_pending_per_prefix;	/* --max-pending-per-prefix, 1..64 */
	int max_xfers_per_addr;	/* --max-xfers-per-address, 1..64; 0: half
				 * of max_transfers, rounded up */
	bool force;
	bool no_device_check;	/* --no-device-check: skip the startup probe */
	bool keep_setid;	/* --keep-setid: setuid/setgid/sticky bits too */
	bool preserve_modes;	/* --preserve-modes: a -k sender's exact bits */
	bool no_partials;	/* --no-partials: keep nothing of a stopped
				 * file */
	double partial_max_age;	/* --partial-max-age: seconds a partial is
				 * kept; 0: removed at once */
	bool relay;		/* --relay: may forward a sender's chain */
	/* send */
	char **sources;		/* SOURCE...: paths, or "-" (stdin_fd) */
	int stdin_fd;		/* what "-" reads: 0, or a library caller's fd */
	int nsources;
	bool recursive;		/* -r */
	bool preserve;		/* -k: the receiver keeps mode and mtime */
	const char *host;
	/* The hosts in the order the data flows, each with its port (one
	 * without: --port's); host and port above are hosts[0]'s. NULL
	 * with nhosts 0: host and port alone (a library caller). More
	 * than one: a chain, sender -> hosts[0] -> hosts[1] -> ... */
	const struct rp_host *hosts;
	uint32_t nhosts;
	const char *as_name;	/* --as, NULL = basename of the source */
	uint32_t chunk;
	uint32_t window;
	bool shape_set;		/* -c or -w given: no automatic shape */
	uint8_t op;		/* --op: enum rp_data_op, default RP_OP_WRITE */
	uint32_t qps;		/* --qps: RC QPs to stripe over, 0 = 1 */
	bool resume;		/* --resume: continue what the receiver kept */
	uint8_t update;		/* --update: enum rp_update, 0: send all */
	/* ping (also: port, bind_addr, once, dev, ib_port, gid_index,
	 * timeout, trace, json, quiet, host) */
	bool ping_server;	/* --server */
	uint32_t ping_iters;	/* -n: round trips */
	uint32_t ping_size;	/* -s: bytes each way */
	uint8_t ping_op;	/* --op send|write: enum rp_data_op */
};

/* c with every setting at its default (no sources, no host). */
void rp_config_defaults(struct rp_config *c);

/*
 * Worker threads for a transfer: --threads, else one per online core,
 * at most RP_DEFAULT_MAX_THREADS (at least 1).
 */
uint32_t rp_config_threads(const struct rp_config *c);

#endif
