/* SPDX-License-Identifier: MIT */
/* Command line: argv -> struct rp_opts, validation and usage text. */
#ifndef RDMAPUSH_OPTS_H
#define RDMAPUSH_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/config.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/proto.h"
#include "rdmapush/render.h"

enum rp_mode {
	RP_MODE_NONE = 0,
	RP_MODE_SEND,
	RP_MODE_RECV,
	RP_MODE_HELP,		/* --help, possibly for one subcommand */
	RP_MODE_VERSION,
	RP_MODE_KEYGEN,		/* write a new key file (o->file) */
	RP_MODE_RENDER,		/* --trace-json files -> one SVG */
	RP_MODE_DEVICES,	/* list devices, ports, GIDs (o->devices_for) */
	RP_MODE_PING,		/* latency ping-pong, client or --server */
	RP_MODE_DOCTOR,		/* check this host and the path to HOST */
};

/* The command line: which command, and the settings it runs with. */
struct rp_opts {
	enum rp_mode mode;
	enum rp_mode help_for;	/* with RP_MODE_HELP: NONE or a command's mode */
	const char *file;	/* keygen: the key file */
	const char *devices_for; /* devices --for HOST: mark the GID for HOST */
	/* doctor: the ping server's port on HOST, and the data ops of its
	 * round trips */
	uint16_t doctor_ping_port;
	uint8_t doctor_ops[2];
	size_t doctor_nops;
	/* render */
	/* SENDER.jsonl RECEIVER.jsonl, or a chain's in its order */
	const char *render_in[RP_RENDER_MAX_TRACES];
	size_t render_n;
	const char *render_out;		/* -o FILE.svg, "-": stdout */
	const char *render_packets;	/* --packets FILE.pcap: as text */
	/* send: HOST or --hosts FILE expanded; cfg.hosts points into it
	 * (rp_opts_free() releases it). */
	const char *hosts_file;	/* --hosts FILE */
	struct rp_hostlist hosts;
	struct rp_config cfg;	/* what the library reads */
};

/*
 * Fill o from argv. Returns 0, or RP_EUSAGE after printing one line
 * "rdmapush: <what is wrong>" and a hint to stderr. A send sets the
 * trace (rp_trace_init(), errors only) to its role first, for the
 * error lines of its host list; the caller sets it up for the run.
 * Release o with rp_opts_free() whatever it returned.
 */
int rp_opts_parse(struct rp_opts *o, int argc, char **argv)
	__attribute__((warn_unused_result));

/* Release what rp_opts_parse() allocated (the host list); safe to call
 * more than once, and on a struct rp_opts whose parse failed. */
void rp_opts_free(struct rp_opts *o);

/* Usage text for mode (NONE: the overview). */
void rp_opts_usage(FILE *f, enum rp_mode mode);

/* "64K", "1M", "2G", "4096" -> bytes. 0 or RP_EUSAGE (overflow, junk). */
int rp_opts_parse_size(const char *s, uint64_t *out);

#endif
