// SPDX-License-Identifier: MIT
/* Command line of rdmapush ping: its options (on top of opts.c's common
 * ones) and their checks; its help page is in opts_help.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/ping.h"
#include "opts_int.h"

/* Long-only options, above opts.c's (256 and up) so that none is
 * mistaken for one of those in rp_opts_set(). */
enum {
	PING_OPT_SERVER = 512,
	PING_OPT_OP,
};

static const char ping_short[] = ":p:b:1n:s:d:i:g:tJqT:h";
static const struct option ping_long[] = {
	{ "server",	no_argument,	   NULL, PING_OPT_SERVER },
	{ "port",	required_argument, NULL, 'p' },
	{ "bind",	required_argument, NULL, 'b' },
	{ "once",	no_argument,	   NULL, '1' },
	{ "iterations",	required_argument, NULL, 'n' },
	{ "size",	required_argument, NULL, 's' },
	{ "op",		required_argument, NULL, PING_OPT_OP },
	{ "device",	required_argument, NULL, 'd' },
	{ "ib-port",	required_argument, NULL, 'i' },
	{ "gid-index",	required_argument, NULL, 'g' },
	{ "trace",	no_argument,	   NULL, 't' },
	{ "trace-json",	required_argument, NULL, OPT_TRACE_JSON },
	{ "capture",	required_argument, NULL, OPT_CAPTURE },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int set_ping_option(struct rp_config *o, int c, const char *arg)
{
	unsigned long long v;
	uint64_t size;

	switch (c) {
	case PING_OPT_SERVER:
		o->ping_server = true;
		return 0;
	case 'n':
		if (rp_opts_parse_range(arg, 1, RP_PING_MAX_ITERS, &v))
			return rp_opts_bad_value("ping", "round trips", arg,
						 "1..1000000");
		o->ping_iters = (uint32_t)v;
		return 0;
	case 's':
		if (rp_opts_parse_size(arg, &size) || size < 1 ||
		    size > RP_PING_MAX_SIZE)
			return rp_opts_bad_value("ping", "message size", arg,
						 "1..1M bytes, e.g. 64 or 4K");
		o->ping_size = (uint32_t)size;
		return 0;
	case PING_OPT_OP:
		if (strcmp(arg, "send") && strcmp(arg, "write"))
			return rp_opts_bad_value("ping", "op", arg,
						 "send or write");
		o->ping_op = strcmp(arg, "send") ? RP_OP_WRITE : RP_OP_SEND;
		return 0;
	default:
		return rp_opts_set(o, "ping", c, arg);
	}
}

/* Client options mean nothing to the server and the other way round. */
static int check_ping(struct rp_config *o, int n, char **pos)
{
	if (o->quiet && o->trace)
		return rp_opts_usage_error("ping", "--quiet and --trace "
					   "exclude each other");
	if (o->ping_server) {
		if (n > 0)
			return rp_opts_usage_error("ping",
						   "unexpected argument '%s' "
						   "(the server takes no HOST)",
						   pos[0]);
		return rp_opts_check_not_empty(o, "ping");
	}
	if (o->once || o->bind_addr)
		return rp_opts_usage_error("ping",
					   "%s is for the server (--server)",
					   o->once ? "--once" : "-b");
	if (n == 0)
		return rp_opts_usage_error("ping",
					   "missing HOST (or --server)");
	if (n > 1)
		return rp_opts_usage_error("ping", "unexpected argument '%s'",
					   pos[1]);
	if (!pos[0][0] || rp_opts_host_hint(pos[0]))
		return rp_opts_usage_error("ping", "invalid HOST '%s'%s%s",
					   pos[0], pos[0][0] ? ": " : "",
					   pos[0][0] ?
					   rp_opts_host_hint(pos[0]) : "");
	o->host = pos[0];
	return rp_opts_check_not_empty(o, "ping");
}

int rp_opts_parse_ping(struct rp_opts *o, int argc, char **argv)
{
	int rc;
	int c;

	o->mode = RP_MODE_PING;
	o->cfg.port = RP_PING_DEFAULT_PORT;
	o->cfg.ping_iters = RP_PING_DEFAULT_ITERS;
	o->cfg.ping_size = RP_PING_DEFAULT_SIZE;
	o->cfg.ping_op = RP_OP_SEND;
	optind = 0;
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, ping_short, ping_long, NULL);
		if (c == -1)
			break;
		if (c == 'h') {
			o->mode = RP_MODE_HELP;
			o->help_for = RP_MODE_PING;
			return 0;
		}
		if (c == ':' || c == '?')
			return rp_opts_getopt_error("ping", c, argv,
						    ping_long);
		rc = set_ping_option(&o->cfg, c, optarg);
		if (rc)
			return rc;
	}
	return check_ping(&o->cfg, argc - optind, argv + optind);
}
