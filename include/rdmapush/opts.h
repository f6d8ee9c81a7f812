/* SPDX-License-Identifier: MIT */
/* Command line: argv -> struct rp_config, validation and usage text. */
#ifndef RDMAPUSH_OPTS_H
#define RDMAPUSH_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/limits.h"
#include "rdmapush/proto.h"

#define RP_DEFAULT_PORT		18500
#define RP_DEFAULT_CHUNK	(1u << 20)
#define RP_DEFAULT_WINDOW	8
#define RP_DEFAULT_TIMEOUT	30	/* seconds */
#define RP_DEFAULT_MAX_XFERS	4	/* concurrent transfers per receiver */
#define RP_DEFAULT_MAX_THREADS	8	/* default --threads: cores, up to this */

enum rp_mode {
	RP_MODE_NONE = 0,
	RP_MODE_SEND,
	RP_MODE_RECV,
	RP_MODE_HELP,		/* --help, possibly for one subcommand */
	RP_MODE_VERSION,
	RP_MODE_KEYGEN,		/* write a new key file (o->file) */
	RP_MODE_RENDER,		/* two --trace-json files -> one SVG */
	RP_MODE_DEVICES,	/* list devices, ports, GIDs (o->devices_for) */
	RP_MODE_PING,		/* latency ping-pong, client or --server */
};

struct rp_config {
	enum rp_mode mode;
	enum rp_mode help_for;	/* with RP_MODE_HELP: NONE or a command's mode */
	/* both sides */
	uint16_t port;
	const char *dev;	/* -d, NULL = automatic */
	int ib_port;		/* -i, 0 = automatic */
	int gid_index;		/* -g, -1 = automatic */
	int timeout;		/* --timeout seconds, applies to every phase */
	bool trace;
	const char *trace_json;	/* --trace-json FILE, NULL = none */
	bool json;
	bool quiet;
	const char *psk_file;
	uint32_t threads;	/* --threads, 0 = rp_opts_threads()'s default */
	bool direct;		/* --direct: O_DIRECT file data on this side */
	/* recv */
	const char *bind_addr;	/* -b, NULL = any */
	const char *dir;	/* -o, default "." */
	bool once;
	int max_transfers;	/* -m: concurrent transfers, 1..64 */
	uint64_t max_size;	/* --max-size bytes, 0 = no limit */
	int max_per_addr;	/* --max-per-address: connections, 1..64 */
	bool force;
	bool no_device_check;	/* --no-device-check: skip the startup probe */
	bool keep_setid;	/* --keep-setid: setuid/setgid/sticky bits too */
	/* send */
	const char *file;	/* keygen: the key file */
	char **sources;		/* SOURCE...: paths, or "-" (in argv) */
	int nsources;
	bool recursive;		/* -r */
	bool preserve;		/* -k: the receiver keeps mode and mtime */
	const char *host;
	const char *as_name;	/* --as, NULL = basename of the source */
	uint32_t chunk;
	uint32_t window;
	bool shape_set;		/* -c or -w given: no automatic shape */
	uint8_t op;		/* --op: enum rp_data_op, default RP_OP_WRITE */
	uint32_t qps;		/* --qps: RC QPs to stripe over, 0 = 1 */
	/* devices (-d, -i, -g, --json and --trace above apply too) */
	const char *devices_for; /* --for HOST: mark the GID for HOST */
	/* ping (also: port, bind_addr, once, dev, ib_port, gid_index,
	 * timeout, trace, json, quiet, host) */
	bool ping_server;	/* --server */
	uint32_t ping_iters;	/* -n: round trips */
	uint32_t ping_size;	/* -s: bytes each way */
	uint8_t ping_op;	/* --op send|write: enum rp_data_op */
	/* render */
	const char *render_send;	/* SENDER.jsonl */
	const char *render_recv;	/* RECEIVER.jsonl */
	const char *render_out;		/* -o FILE.svg, "-": stdout */
};

/*
 * Fill o from argv. Returns 0, or RP_EUSAGE after printing one line
 * "rdmapush: <what is wrong>" and a hint to stderr.
 */
int rp_opts_parse(struct rp_config *o, int argc, char **argv)
	__attribute__((warn_unused_result));

/* Usage text for mode (NONE: the overview). */
void rp_opts_usage(FILE *f, enum rp_mode mode);

/*
 * Worker threads for a transfer: --threads, else one per online core,
 * at most RP_DEFAULT_MAX_THREADS (at least 1).
 */
uint32_t rp_opts_threads(const struct rp_config *o);

/* "64K", "1M", "2G", "4096" -> bytes. 0 or RP_EUSAGE (overflow, junk). */
int rp_opts_parse_size(const char *s, uint64_t *out);

#endif
