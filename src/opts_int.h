/* SPDX-License-Identifier: MIT */
/*
 * opts.c's own helpers, shared with opts_ping.c (rdmapush ping's options)
 * and opts_render.c (render's) so that each file stays short; not an
 * interface for anything else.
 * Each usage error prints one line and a hint, then returns RP_EUSAGE.
 */
#ifndef RDMAPUSH_OPTS_INT_H
#define RDMAPUSH_OPTS_INT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdmapush/opts.h"
#include "rdmapush/trace.h"

/* Long-only options: values outside the range of any short option. */
enum {
	OPT_AS = 256,
	OPT_PSK,
	OPT_MAX_SIZE,
	OPT_NO_DEVICE_CHECK,
	OPT_PER_ADDR,
	OPT_PER_PREFIX,
	OPT_XFERS_PER_ADDR,
	OPT_MIN_RATE,
	OPT_KEEP_SETID,
	OPT_PRESERVE_MODES,
	OPT_THREADS,
	OPT_OP,
	OPT_DIRECT,
	OPT_QPS,
	OPT_RESUME,
	OPT_UPDATE,
	OPT_NO_PARTIALS,
	OPT_PARTIAL_MAX_AGE,
	OPT_TRACE_JSON,
	OPT_FOR,
	OPT_RETRY_FOR,
	OPT_HOSTS,
	OPT_RELAY,
	OPT_CAPTURE,
};

/* "rdmapush: <what>" and "Try 'rdmapush SUB --help'."; RP_EUSAGE. */
int RP_PRINTF(2, 3) rp_opts_usage_error(const char *sub, const char *fmt, ...);
/* "invalid WHAT 'ARG' (RANGE)"; RP_EUSAGE. */
int rp_opts_bad_value(const char *sub, const char *what, const char *arg,
		      const char *range);
/* Decimal s in [min, max] into *out: 0, or RP_EUSAGE (silent). */
int rp_opts_parse_range(const char *s, unsigned long long min,
			unsigned long long max, unsigned long long *out);
/*
 * What getopt_long's ':' or '?' (c) means, said as a usage error: a value
 * missing, a value given to an option that takes none, or an unknown
 * option ("or ambiguous" for a long one). RP_EUSAGE.
 */
int rp_opts_getopt_error(const char *sub, int c, char **argv,
			 const struct option *longopts);
/* An option common to the subcommands (port, device, timeout, ...). */
int rp_opts_set(struct rp_config *o, const char *sub, int c, const char *arg);
/* Options that name something must not be empty; 0 or RP_EUSAGE. */
int rp_opts_check_not_empty(const struct rp_config *o, const char *sub);
/* Why HOST looks written for another tool, or NULL. */
const char *rp_opts_host_hint(const char *h);

/* rdmapush ping (opts_ping.c): argv after "rdmapush"; 0 or RP_EUSAGE. */
int rp_opts_parse_ping(struct rp_opts *o, int argc, char **argv);

/* rdmapush doctor (opts_doctor.c): argv after "rdmapush"; 0 or RP_EUSAGE. */
int rp_opts_parse_doctor(struct rp_opts *o, int argc, char **argv);

/* rdmapush render (opts_render.c): the whole argv; 0 or RP_EUSAGE. */
int rp_opts_parse_render(struct rp_opts *o, int argc, char **argv);

/* opts_help.c: the mode whose help page NAME is ("send", ..., "help":
 * RP_MODE_HELP) into *mode; false when there is none. */
bool rp_opts_help_page(const char *name, enum rp_mode *mode);

#endif
