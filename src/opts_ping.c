// SPDX-License-Identifier: MIT
/* Command line of rdmapush ping: its options (on top of opts.c's common
 * ones), their checks, and its help text. */
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
	char text[64];
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
		if (c == ':' || c == '?') {
			bool known = rp_opts_text(text, sizeof(text), argv,
						  ping_long);

			return rp_opts_usage_error("ping", c == ':' ?
				"option '%s' needs a value" : known ?
				"option '%s' takes no value" :
				"unknown option '%s'", text);
		}
		rc = set_ping_option(&o->cfg, c, optarg);
		if (rc)
			return rc;
	}
	return check_ping(&o->cfg, argc - optind, argv + optind);
}

static const char help_ping[] =
	"Usage: rdmapush ping --server [-p PORT] [-b ADDR] [--once]\n"
	"                     [--psk FILE]\n"
	"       rdmapush ping [-n N] [-s SIZE] [--op send|write] [--psk FILE]\n"
	"                     HOST\n"
	"\n"
	"Measure the round-trip latency between two hosts over one RC queue\n"
	"pair, set up by the same handshake as a push. --op send (default):\n"
	"the client Sends SIZE bytes into a receive posted ahead, the server\n"
	"Sends them back. --op write: each side RDMA-Writes SIZE bytes into\n"
	"the other's buffer and spins on the last byte, as ib_write_lat\n"
	"does. Both sides busy-poll. The client prints the min, median, p99\n"
	"and max round trip, and half of each as the one-way estimate that\n"
	"perftest's ib_*_lat print. The server answers one client at a\n"
	"time until SIGINT or SIGTERM; a file receiver refuses a ping, and\n"
	"a ping server a push.\n"
	"\n"
	"Options:\n"
	"      --server         answer pings instead of sending them\n"
	"  -p, --port PORT      TCP port (default 18501: the receiver's\n"
	"                       18500 + 1, so both can run on one host)\n"
	"  -b, --bind ADDR      server: address to listen on (default: all)\n"
	"  -1, --once           server: exit after one client, with its\n"
	"                       result\n"
	"  -n, --iterations N   round trips, 1..1000000 (default 1000)\n"
	"  -s, --size SIZE      bytes each way, 1..1M (default 2, as\n"
	"                       perftest)\n"
	"      --op OP          send (default) or write\n"
	"  -d, --device DEV     RDMA device (default: the one with the\n"
	"                       control connection's address)\n"
	"  -i, --ib-port N      device port, 1..255\n"
	"  -g, --gid-index N    GID index, 0..255\n"
	"  -T, --timeout SEC    give up after SEC seconds without a round\n"
	"                       trip, 1..86400 (default 30)\n"
	"      --psk FILE       authenticate the peer with the pre-shared\n"
	"                       key in FILE (rdmapush keygen), as a push\n"
	"                       does; both sides use the same key\n"
	"  -t, --trace          explain the handshake and verbs steps\n"
	"      --trace-json FILE  the same steps as JSON lines in FILE\n"
	"                       (docs/trace.md)\n"
	"  -J, --json           one JSON object: op, size, iterations,\n"
	"                       rtt_us and one_way_us {min,median,p99,max}\n"
	"  -q, --quiet          print errors only\n"
	"\n"
	"Exit status:\n"
	"  0  every round trip answered (server: stopped by a signal, or\n"
	"     with --once the one client served)\n"
	"  2  usage error, or a --psk key file that will not do\n"
	"  3  refused: HOST is a file receiver (rdmapush recv), not a ping\n"
	"     server, the peer broke the protocol, or the --psk keys differ\n"
	"     (or only one side has one)\n"
	"  4  peer, network or RDMA failure, or timeout\n"
	"  7  the server cannot listen on its port\n"
	"  130, 143  stopped by SIGINT or SIGTERM\n";

void rp_opts_ping_usage(FILE *f)
{
	fputs(help_ping, f);
}
